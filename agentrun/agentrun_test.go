package agentrun

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/scenarios"
)

// TestPortableToolsBecomeEachAgentsOwn: shell and read_file become the
// preset's own tools with its argument names; another call is left alone.
func TestPortableToolsBecomeEachAgentsOwn(t *testing.T) {
	s := &Setup{Workspace: "/w"}
	shell := reducer.ToolCall{ID: "c1", Name: ToolShell, Arguments: jsonv.Obj(jsonv.M("command", jsonv.Str("echo hi")))}
	read := reducer.ToolCall{ID: "c2", Name: ToolReadFile, Arguments: jsonv.Obj(jsonv.M("path", jsonv.Str("it's.txt")))}
	other := reducer.ToolCall{ID: "c3", Name: "Glob", Arguments: jsonv.Obj(jsonv.M("pattern", jsonv.Str("*")))}
	tests := []struct {
		agent             string
		shell, read, glob string
	}{
		{"pi", `bash {"command":"echo hi"}`, `read {"path":"it's.txt"}`, `Glob {"pattern":"*"}`},
		{"claude-code", `Bash {"command":"echo hi","description":"Run the scenario's command"}`, `Read {"file_path":"/w/it's.txt"}`, `Glob {"pattern":"*"}`},
		{"codex", `exec_command {"cmd":"echo hi"}`, `exec_command {"cmd":"cat 'it'\\''s.txt'"}`, `Glob {"pattern":"*"}`},
	}
	for _, tt := range tests {
		a, err := Lookup(tt.agent)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []reducer.ToolCall{shell, read, other} {
			got := a.tool(c, s)
			line := got.Name + " " + string(got.ArgumentsValue().AppendJSON(nil))
			if want := []string{tt.shell, tt.read, tt.glob}[i]; line != want || got.ID != c.ID {
				t.Errorf("%s: %s became %s (id %s), want %s", tt.agent, c.Name, line, got.ID, want)
			}
		}
	}
}

func TestLookupNamesThePresets(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"claude-code", "codex", "pi"}) {
		t.Errorf("Names = %v", got)
	}
	_, err := Lookup("aider")
	var ue *UnknownAgentError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "claude-code, codex, pi") {
		t.Errorf("Lookup(aider) = %v", err)
	}
}

// TestAMissingAgentNamesItsPackage: a program that cannot be found is a
// NotInstalledError naming the npm package, before anything is made.
func TestAMissingAgentNamesItsPackage(t *testing.T) {
	a, _ := Lookup("codex")
	out := filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), Options{Agent: a, Scenario: &scenarios.Scenario{}, Bin: filepath.Join(t.TempDir(), "no-codex"), Out: out})
	var ni *NotInstalledError
	if !errors.As(err, &ni) || !strings.Contains(err.Error(), "npm install -g @openai/codex@"+a.Tested) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output folder was made for a run that could not start: %v", err)
	}
}

// TestPresetsNameThePinnedVersions: each preset's Tested version is the
// one agents/npm/package.json pins for the end-to-end tests.
func TestPresetsNameThePinnedVersions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "agents", "npm", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pi", "claude-code", "codex"} {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if pin := pkg.Dependencies[a.Package]; a.Tested == "" || a.Tested != pin {
			t.Errorf("%s: Tested = %q, agents/npm/package.json pins %s at %q", name, a.Tested, a.Package, pin)
		}
	}
}

// TestTheOutputFolderMustBeNewOrEmpty: a folder that holds anything is
// refused and left as it was; a missing one is made; an empty one is used.
func TestTheOutputFolderMustBeNewOrEmpty(t *testing.T) {
	full := t.TempDir()
	keep := filepath.Join(full, "keep.txt")
	os.WriteFile(keep, []byte("mine"), 0o644)
	if _, err := makeOut(full); err == nil || !strings.Contains(err.Error(), "holds 1 entries") {
		t.Errorf("makeOut(non-empty) = %v", err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Error("the user's file changed")
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := makeOut(file); err == nil {
		t.Error("a file was taken as an output folder")
	}
	for _, dir := range []string{filepath.Join(t.TempDir(), "new"), t.TempDir()} {
		got, err := makeOut(dir)
		if err != nil || got != dir {
			t.Errorf("makeOut(%s) = %q, %v", dir, got, err)
		}
	}
}

// TestTheEnvironmentIsCurated: nothing of the caller's environment reaches
// the agent; its folders are inside the run; proxies point at the refusing
// proxy with loopback exempt; the preset's own variables come last.
func TestTheEnvironmentIsCurated(t *testing.T) {
	t.Setenv("TRACECHECK_TEST_SECRET", "sk-do-not-pass")
	t.Setenv("NVM_DIR", "/home/someone/.nvm")
	s := &Setup{Home: "/run/home", Temp: "/run/tmp"}
	env := curatedEnv(s, "/opt/agent/bin/pi", "http://127.0.0.1:9", []string{"PI_OFFLINE=1"})
	joined := strings.Join(env, "\n")
	for _, leak := range []string{"sk-do-not-pass", "NVM_DIR", os.Getenv("HOME")} {
		if leak != "" && leak != "/run/home" && strings.Contains(joined, leak) {
			t.Errorf("the caller's %q reached the agent:\n%s", leak, joined)
		}
	}
	for _, want := range []string{"HOME=/run/home", "TMPDIR=/run/tmp", "XDG_CONFIG_HOME=/run/home/.config", "HTTPS_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost,::1", "TZ=UTC"} {
		if !slices.Contains(env, want) {
			t.Errorf("missing %s", want)
		}
	}
	if !strings.HasPrefix(env[0], "PATH=/opt/agent/bin:") || env[len(env)-1] != "PI_OFFLINE=1" {
		t.Errorf("PATH %q, last %q", env[0], env[len(env)-1])
	}
}

// TestTheProxyRefusesAndRecords: a request through the proxy (HTTPS by
// CONNECT, HTTP by absolute URL) gets 403, reaches nothing, and its host is
// recorded.
func TestTheProxyRefusesAndRecords(t *testing.T) {
	p, served, err := startProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer served.Shutdown(context.Background())
	u, _ := url.Parse(served.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	if resp, err := client.Get("http://telemetry.example.invalid/v1/events"); err != nil || resp.StatusCode != 403 {
		t.Errorf("HTTP through the proxy: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if _, err := client.Get("https://updates.example.invalid/latest"); err == nil {
		t.Error("HTTPS through the proxy succeeded")
	}
	if got := p.Hosts(); !slices.Equal(got, []string{"telemetry.example.invalid", "updates.example.invalid:443"}) {
		t.Errorf("hosts = %v", got)
	}
}

func TestClaudeSlugAndPackageDir(t *testing.T) {
	if got := claudeSlug("/tmp/run 1/work_space"); got != "-tmp-run-1-work-space" {
		t.Errorf("claudeSlug = %q", got)
	}
	root := t.TempDir()
	pkg := filepath.Join(root, "node_modules", "@openai", "codex")
	os.MkdirAll(filepath.Join(pkg, "bin"), 0o755)
	os.WriteFile(filepath.Join(pkg, "bin", "codex.js"), nil, 0o755)
	os.MkdirAll(filepath.Join(root, "node_modules", ".bin"), 0o755)
	link := filepath.Join(root, "node_modules", ".bin", "codex")
	if err := os.Symlink("../@openai/codex/bin/codex.js", link); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(pkg)
	if got := packageDir(link, "@openai/codex"); got != real {
		t.Errorf("packageDir = %q, want %q", got, real)
	}
	if got := packageDir(link, "@anthropic-ai/claude-code"); got != "" {
		t.Errorf("packageDir of another package = %q", got)
	}
}
