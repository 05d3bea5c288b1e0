package agentrun

import (
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"

	"github.com/tracecheck/tracecheck/modelserver"
)

// refusingProxy is the HTTP(S) proxy an agent is given: it forwards
// nothing, answers every request (a CONNECT for HTTPS, an absolute URL for
// HTTP) with 403, and records the host asked for, so that a run reports an
// agent that tries to leave loopback (telemetry, update checks, a model
// it was not pointed at).
type refusingProxy struct {
	mu    sync.Mutex
	hosts map[string]int
}

// maxProxyHosts bounds the distinct hosts recorded.
const maxProxyHosts = 100

func (p *refusingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if r.Method != http.MethodConnect && r.URL.Host != "" {
		host = r.URL.Host
	}
	p.mu.Lock()
	if p.hosts == nil {
		p.hosts = map[string]int{}
	}
	if _, seen := p.hosts[host]; seen || len(p.hosts) < maxProxyHosts {
		p.hosts[host]++
	}
	p.mu.Unlock()
	http.Error(w, fmt.Sprintf("tracecheck agent run: %s is beyond loopback; nothing leaves this machine", host), http.StatusForbidden)
}

// Hosts lists the hosts asked for, sorted.
func (p *refusingProxy) Hosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.hosts))
	for h := range p.hosts {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// startProxy serves a refusingProxy on a free loopback port.
func startProxy() (*refusingProxy, *modelserver.Served, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("starting the refusing proxy: %w", err)
	}
	p := &refusingProxy{}
	return p, modelserver.Serve(ln, p), nil
}
