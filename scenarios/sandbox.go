package scenarios

// The sandbox of the reference's lesson s11 (its SandboxController with the
// simulated backend): a capability request is planned against the
// scenario's sandbox profile (allowed commands, an exact host:port network
// allowlist) and the backend's attested isolation, recorded as
// sandbox.configure and network.decision, and only an allowed plan runs.
// The backend has no effects: it returns what it would have done.

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// SimulatedBackend is the name of the only backend: the reference's
// no-effect SimulatedSandboxBackend.
const SimulatedBackend = "simulated-no-effects"

// The actors of the events the sandbox records.
const (
	actorSandbox = "sandbox-controller"
	actorNetwork = "network-policy"
)

// DefaultFetchPort is the port sandboxed_fetch connects to by default.
const DefaultFetchPort = 443

// SandboxSpec is a scenario's sandbox: one profile and the isolation the
// backend attests.
type SandboxSpec struct {
	ProfileID        string
	AllowedCommands  []string
	NetworkAllowlist []Endpoint
	// What the backend can attest; the reference's simulated backend
	// attests all three.
	FilesystemIsolation bool
	NetworkIsolation    bool
	ProcessIsolation    bool
}

// Endpoint is an exact host:port network destination.
type Endpoint struct {
	Host string
	Port int
}

func (e Endpoint) String() string { return e.Host + ":" + strconv.Itoa(e.Port) }

// ParseEndpoint is the reference's NetworkEndpoint.parse: "host:port",
// lower-cased, split at the last colon, port 1..65535, and no URL or
// wildcard syntax in the host. Its errors are the reference's ValueError
// texts.
func ParseEndpoint(s string) (Endpoint, error) {
	s = strings.ToLower(s)
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 || strings.Trim(s[i+1:], "0123456789") != "" {
		return Endpoint{}, errors.New("network endpoint must be an exact host:port pair")
	}
	port, err := strconv.Atoi(s[i+1:])
	if err != nil || port < 1 || port > 65535 {
		return Endpoint{}, errors.New("network endpoint port is outside 1..65535")
	}
	host := s[:i]
	if strings.ContainsAny(host, "/*@") {
		return Endpoint{}, errors.New("network endpoint host must not contain URL or wildcard syntax")
	}
	return Endpoint{host, port}, nil
}

// sandboxPlan is the controller's plan for one capability request.
type sandboxPlan struct {
	command      string
	destinations []Endpoint
	allowed      bool
	reasons      []string
	required     []string
}

// plan is SandboxController.plan for a request with no filesystem paths.
func (s *SandboxSpec) plan(command string, destinations []Endpoint) sandboxPlan {
	p := sandboxPlan{command: command, destinations: destinations, required: []string{"process"}}
	if !slices.Contains(s.AllowedCommands, command) {
		p.reasons = append(p.reasons, "command is not allowed: "+command)
	}
	if !s.ProcessIsolation {
		p.reasons = append(p.reasons, "backend cannot attest process isolation")
	}
	if len(destinations) > 0 {
		p.required = append(p.required, "network")
		var denied []Endpoint
		for _, d := range destinations {
			if !slices.Contains(s.NetworkAllowlist, d) && !slices.Contains(denied, d) {
				denied = append(denied, d)
			}
		}
		if len(denied) > 0 {
			slices.SortFunc(denied, func(a, b Endpoint) int {
				if c := strings.Compare(a.Host, b.Host); c != 0 {
					return c
				}
				return a.Port - b.Port
			})
			names := make([]string, len(denied))
			for i, d := range denied {
				names[i] = d.String()
			}
			p.reasons = append(p.reasons, "network destination is not allowlisted: "+strings.Join(names, ", "))
		}
		if !s.NetworkIsolation {
			p.reasons = append(p.reasons, "backend cannot attest network isolation")
		}
	}
	p.allowed = len(p.reasons) == 0
	return p
}

func (p sandboxPlan) network() []string {
	out := make([]string, len(p.destinations))
	for i, d := range p.destinations {
		out[i] = d.String()
	}
	return out
}

// sandboxedFetchTool is the reference's s11 fetch handler, generalised: it
// plans options.command with the destination args[options.host_argument]:
// options.port, records sandbox.configure and network.decision, and, when
// the plan is allowed, returns the simulated backend's result {backend,
// command, network, payload}; payload holds the arguments named by
// options.payload_arguments, then the members of options.payload. A denied
// plan fails as the reference's SandboxDenied does, with the reasons.
func sandboxedFetchTool(c *call) (jsonv.Value, error) {
	host, err := stringArg(c.args, str(c.opts, "host_argument", "host"))
	if err != nil {
		return jsonv.Value{}, err
	}
	ep, err := ParseEndpoint(host + ":" + strconv.FormatInt(integer(c.opts, "port", DefaultFetchPort), 10))
	if err != nil {
		return jsonv.Value{}, &pyException{err.Error()}
	}
	sb := c.env.sc.Sandbox
	plan := sb.plan(str(c.opts, "command", ""), []Endpoint{ep})
	if err := c.env.emit("sandbox.configure", journal.Actor{Kind: "harness", ID: actorSandbox}, jsonv.Obj(
		jsonv.M("profile_id", jsonv.Str(sb.ProfileID)),
		jsonv.M("backend", jsonv.Str(SimulatedBackend)),
		jsonv.M("required_capabilities", jsonv.StrArr(plan.required)),
		jsonv.M("allowed", jsonv.BoolValue(plan.allowed)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	if err := c.env.emit("network.decision", journal.Actor{Kind: "harness", ID: actorNetwork}, jsonv.Obj(
		jsonv.M("destinations", jsonv.StrArr(plan.network())),
		jsonv.M("allowed", jsonv.BoolValue(plan.allowed)),
		jsonv.M("reasons", jsonv.StrArr(plan.reasons)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	var payload []jsonv.Member
	pa, _ := c.opts.Get("payload_arguments")
	for _, k := range pa.Elems() {
		v, ok := c.args.Get(k.Text())
		if !ok {
			return jsonv.Value{}, keyError(k.Text())
		}
		payload = append(payload, jsonv.M(k.Text(), v))
	}
	fixed, _ := c.opts.Get("payload")
	payload = append(payload, fixed.Members()...)
	if !plan.allowed {
		return jsonv.Value{}, &pyException{strings.Join(plan.reasons, "; ")}
	}
	return jsonv.Obj(
		jsonv.M("backend", jsonv.Str(SimulatedBackend)),
		jsonv.M("command", jsonv.Str(plan.command)),
		jsonv.M("network", jsonv.StrArr(plan.network())),
		jsonv.M("payload", jsonv.Obj(payload...)),
	), nil
}
