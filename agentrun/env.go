package agentrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// dummyKey is the API key every preset configures: the agents refuse to
// start without one; the scripted server ignores it.
const dummyKey = "tracecheck-dummy-key"

// curatedEnv is the environment an agent runs with: not the caller's, so
// that nothing of the user's shell (a version manager's variables, API
// keys, proxies, XDG folders) reaches the agent or its prompt. PATH holds
// the agent's own folder, node's (pi and the Codex launcher are Node
// programs) and the system's; every XDG folder is inside HOME; HTTP(S)
// proxies point at the refusing proxy with loopback exempt.
func curatedEnv(s *Setup, bin, proxyURL string, extra []string) []string {
	path := []string{filepath.Dir(bin)}
	if node, err := exec.LookPath("node"); err == nil {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	shell := "/bin/sh"
	if _, err := os.Stat("/bin/bash"); err == nil {
		shell = "/bin/bash"
	}
	env := []string{
		"PATH=" + strings.Join(unique(path), string(os.PathListSeparator)),
		"HOME=" + s.Home,
		"USER=tracecheck",
		"LOGNAME=tracecheck",
		"SHELL=" + shell,
		"TMPDIR=" + s.Temp,
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
		"NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"),
		"NODE_USE_ENV_PROXY=1", // Node 24 and later send fetch through HTTPS_PROXY too
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+proxyURL)
	}
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		env = append(env, k+"=127.0.0.1,localhost,::1")
	}
	return append(env, extra...)
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
