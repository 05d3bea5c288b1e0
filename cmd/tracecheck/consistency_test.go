package main

// The rules every command keeps, checked over all of them at once: several
// people add commands in parallel, and a rule one of them forgets (help on
// stdout, one-line usage errors, the same --format, '-' for stdin, a
// missing file as exit 2) is easy to miss command by command.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// commandGroups are the commands that hold subcommands.
var commandGroups = map[string]func() []command{
	"session":  sessionCommands,
	"exercise": exerciseCommands,
	"model":    modelCommands,
	"agent":    agentCommands,
}

// commandPaths returns every command as typed: the top-level ones, the
// groups themselves, and each group's subcommands ("session append").
func commandPaths() [][]string {
	var paths [][]string
	for _, c := range commands() {
		paths = append(paths, []string{c.name})
		if subs, ok := commandGroups[c.name]; ok {
			for _, s := range subs() {
				paths = append(paths, []string{c.name, s.name})
			}
		}
	}
	return paths
}

// leafPaths are the commands that parse flags: all but the groups.
func leafPaths() [][]string {
	var paths [][]string
	for _, p := range commandPaths() {
		if _, group := commandGroups[p[0]]; group && len(p) == 1 {
			continue
		}
		paths = append(paths, p)
	}
	return paths
}

func helpOf(t *testing.T, path []string) string {
	t.Helper()
	code, stdout, stderr := runCmd(t, "", append(slices.Clone(path), "--help")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("%s --help: exit %d, stderr %q", strings.Join(path, " "), code, stderr)
	}
	return stdout
}

// oneLine checks that stderr is one line starting "tracecheck PATH: ".
func oneLine(t *testing.T, what string, path []string, stderr string) {
	t.Helper()
	prefix := strings.TrimSpace(programName+" "+strings.Join(path, " ")) + ": "
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(stderr, prefix) {
		t.Errorf("%s: stderr %q, want one line starting %q", what, stderr, prefix)
	}
}

// TestConsistencyHelp: every command answers --help, -h and 'help PATH'
// with exit 0, the same text on stdout, starting with its usage line;
// a group lists each of its subcommands.
func TestConsistencyHelp(t *testing.T) {
	for _, path := range commandPaths() {
		name := strings.Join(path, " ")
		help := helpOf(t, path)
		if !strings.HasPrefix(help, "Usage: tracecheck "+name) {
			t.Errorf("%s --help does not start with its usage line:\n%s", name, help)
		}
		for _, args := range [][]string{append(slices.Clone(path), "-h"), append([]string{"help"}, path...)} {
			code, stdout, stderr := runCmd(t, "", args...)
			if code != exitOK || stderr != "" || stdout != help {
				t.Errorf("%q: exit %d, stderr %q; stdout differs from %s --help:\n%s", args, code, stderr, name, stdout)
			}
		}
		if len(path) == 1 {
			subs, group := commandGroups[path[0]]
			usesSub := strings.Contains(strings.SplitN(help, "\n", 2)[0], "SUBCOMMAND")
			if group != usesSub {
				t.Errorf("%s: its usage line and commandGroups disagree on whether it has subcommands", name)
			}
			if group {
				for _, s := range subs() {
					if !regexp.MustCompile(`(?m)^  ` + s.name + ` `).MatchString(help) {
						t.Errorf("%s --help does not list its subcommand %s", name, s.name)
					}
				}
			}
		}
	}
}

// TestConsistencyUnknownFlagAndCommand: a flag or a (sub)command that does
// not exist is exit 2 with one line naming the command and pointing at
// --help; nothing on stdout.
func TestConsistencyUnknownFlagAndCommand(t *testing.T) {
	for _, path := range leafPaths() {
		args := append(slices.Clone(path), "--no-such-flag")
		code, stdout, stderr := runCmd(t, "", args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "--no-such-flag") || !strings.Contains(stderr, "--help') ") && !strings.HasSuffix(stderr, "--help')\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		oneLine(t, strings.Join(args, " "), path, stderr)
	}
	for _, args := range [][]string{{"no-such-command"}, {"session", "nope"}, {"exercise", "nope"}, {"model", "nope"}, {"help", "nope"}, {"--nope"}, {"session", "--nope"}} {
		code, stdout, stderr := runCmd(t, "", args...)
		path := args[:len(args)-1]
		if args[0] == "help" {
			path = nil
		}
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "nope") && !strings.Contains(stderr, "no-such-command") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		oneLine(t, strings.Join(args, " "), path, stderr)
	}
}

// fileCommands are the commands that read a FILE argument (or a flag's
// file), with FILE where it goes; dirOK marks those for which a directory
// is a legitimate FILE (lint walks it).
var fileCommands = []struct {
	args  []string
	dirOK bool
}{
	{args: []string{"validate", "FILE"}},
	{args: []string{"validate", "--format", "json", "FILE"}},
	{args: []string{"replay", "FILE"}},
	{args: []string{"fingerprint", "FILE"}},
	{args: []string{"branch", "FILE", "--at", "0", "--id", "b"}},
	{args: []string{"diff", "FILE", "GOOD"}},
	{args: []string{"diff", "GOOD", "FILE"}},
	{args: []string{"diff", "--match-config", "FILE", "GOOD", "GOOD"}},
	{args: []string{"normalize", "FILE"}},
	{args: []string{"render", "FILE.json"}},
	{args: []string{"view", "FILE", "-o", "OUT"}},
	{args: []string{"view", "--diff", "FILE", "GOOD", "-o", "OUT"}},
	{args: []string{"lint", "FILE"}, dirOK: true},
	{args: []string{"import", "FILE"}},
	{args: []string{"verify", "--scenario-dir", "FILE"}},
	{args: []string{"verify", "--golden-dir", "FILE"}},
	{args: []string{"verify", "--cases", "FILE", "--no-scenarios"}},
	{args: []string{"list", "--scenario-dir", "FILE"}},
	{args: []string{"render", "--scenario-dir", "FILE", "s01-agent-loop"}},
	{args: []string{"review", "--golden-dir", "FILE", "--accept"}},
	{args: []string{"model", "serve", "--scenario", "FILE.json"}},
	{args: []string{"model", "serve", "--cassette", "FILE"}},
	{args: []string{"model", "run", "--scenario", "FILE.json", "--trace", "OUT", "--", "true"}},
	{args: []string{"model", "serve", "--cassette", "FILE", "--trace", "OUT"}},
	{args: []string{"exercise", "run", "A", "--reference", "FILE", "--", "true"}},
}

// TestConsistencyMissingFile: a FILE that does not exist, or a directory
// where a file is wanted (and a file where a directory is), is exit 2 with
// one line that names it; nothing on stdout, nothing created. The missing
// file's name holds a newline and an escape sequence, which must reach
// stderr escaped.
func TestConsistencyMissingFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "testdata", "good", "s07-session-replay.trace.jsonl")
	missing := filepath.Join(dir, "no-such-file\nok forged\x1b[2J")
	aDir := filepath.Join(dir, "a-directory")
	if err := os.Mkdir(aDir, 0o755); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "a-file.json")
	if err := os.WriteFile(aFile, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fc := range fileCommands {
		wantsDir := slices.ContainsFunc(fc.args, func(a string) bool { return strings.HasSuffix(a, "-dir") || a == "--cases" || a == "--reference" })
		bad := []string{missing}
		switch {
		case wantsDir:
			bad = append(bad, aFile)
		case !fc.dirOK:
			bad = append(bad, aDir)
		}
		for _, file := range bad {
			args := make([]string, len(fc.args))
			for i, a := range fc.args {
				a = strings.ReplaceAll(a, "GOOD", good)
				a = strings.ReplaceAll(a, "OUT", filepath.Join(dir, "out.html"))
				if strings.HasPrefix(a, "FILE") {
					a = file + strings.TrimPrefix(a, "FILE")
				}
				args[i] = a
			}
			code, stdout, stderr := runCmd(t, "", args...)
			path := args[:1]
			if _, group := commandGroups[args[0]]; group {
				path = args[:2]
			}
			name, _, _ := strings.Cut(strings.TrimSuffix(filepath.Base(file), ".json"), "\n")
			if slices.Contains(args, "json") && json.Valid([]byte(stdout)) {
				stdout = "" // validate --format json reports the unreadable file in its document too
			}
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, name) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 naming %s", args, code, stdout, stderr, name)
			}
			oneLine(t, strings.Join(args, " "), path, stderr)
			if strings.Contains(stderr, "\x1b") {
				t.Errorf("%q: stderr %q holds the file name's escape sequence raw", args, stderr)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the commands left files behind: %v", entries)
	}
}

// TestConsistencyStandardInput: '-' reads standard input wherever FILE is
// read once, and is refused with one clear line where it cannot be.
func TestConsistencyStandardInput(t *testing.T) {
	good := filepath.Join("..", "..", "testdata", "good", "s07-session-replay.trace.jsonl")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", "-"},
		{"replay", "-"},
		{"fingerprint", "-"},
		{"branch", "-", "--at", "1", "--id", "b"},
		{"diff", "-", good},
		{"diff", good, "-"},
		{"normalize", "-"},
		{"lint", "-"},
	} {
		code, fromStdin, stderr := runCmd(t, string(data), args...)
		fileArgs := slices.Clone(args)
		fileArgs[slices.Index(fileArgs, "-")] = good
		_, fromFile, _ := runCmd(t, "", fileArgs...)
		fromStdin = strings.ReplaceAll(fromStdin, "<stdin>", good)
		if code != exitOK || fromStdin != fromFile {
			t.Errorf("%q: exit %d, stderr %q; output differs from the file's:\n%s\n%s", args, code, stderr, fromStdin, fromFile)
		}
	}
	for _, args := range [][]string{
		{"validate", "-", "-"},
		{"lint", "-", "-"},
		{"diff", "-", "-"},
		{"view", "-", "-o", filepath.Join(t.TempDir(), "x.html")},
		{"replay", "-", "--checkpoint", filepath.Join(t.TempDir(), "cp")},
		{"lint", "--repair", "--out", t.TempDir(), "-"},
	} {
		code, stdout, stderr := runCmd(t, string(data), args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "'-'") && !strings.Contains(stderr, "standard input") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		oneLine(t, strings.Join(args, " "), args[:1], stderr)
	}
}

// flagsOf returns the long flags a command's --help lists, with their
// shorthands ("output" -> "o").
func flagsOf(help string) map[string]string {
	flags := map[string]string{}
	_, list, _ := strings.Cut(help, "\nFlags:\n")
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-(\w), )?--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(list, -1) {
		flags[m[2]] = m[1]
	}
	return flags
}

// TestConsistencyFlags: the flags in a command's usage line exist; every
// flag --help lists is documented (README.md, docs/, scenarios/README.md),
// by its long name or its shorthand; --format is spelled, shown and
// checked the same way everywhere.
func TestConsistencyFlags(t *testing.T) {
	var docs strings.Builder
	for _, pattern := range []string{"../../README.md", "../../docs/*.md", "../../scenarios/README.md"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs.Write(b)
		}
	}
	documented := docs.String()
	for _, path := range leafPaths() {
		name := strings.Join(path, " ")
		help := helpOf(t, path)
		flags := flagsOf(help)
		usage, _, _ := strings.Cut(help, "\n\n")
		for _, m := range regexp.MustCompile(`--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(usage, -1) {
			if _, ok := flags[m[1]]; !ok {
				t.Errorf("%s: the usage line names --%s, which is not a flag of it", name, m[1])
			}
		}
		for long, short := range flags {
			if long == "help" {
				continue
			}
			if !regexp.MustCompile(`--`+long+`\b`).MatchString(documented) && (short == "" || !regexp.MustCompile("(^|[\\s`\\[])-"+short+`\b`).MatchString(documented)) {
				t.Errorf("%s: --%s is in --help but in no document", name, long)
			}
		}
		if _, ok := flags["format"]; ok {
			if !regexp.MustCompile(`(?m)^\s+--format FORMAT\s+output FORMAT: [a-z]+(, [a-z]+)* or [a-z]+ \(default "text"\)$`).MatchString(help) {
				t.Errorf("%s: --format is not shown as every command shows it:\n%s", name, help)
			}
			args := append(slices.Clone(path), "--format", "yaml")
			code, stdout, stderr := runCmd(t, "", args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, `--format must be `) || !strings.Contains(stderr, `, not "yaml"`) {
				t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
			}
			oneLine(t, strings.Join(args, " "), path, stderr)
		}
	}
}

// okInvocations are commands that succeed and print on stdout.
func okInvocations() [][]string {
	good := filepath.Join("..", "..", "testdata", "good", "s07-session-replay.trace.jsonl")
	codex := filepath.Join("..", "..", "testdata", "agentlog", "codex", "orphan-call-aborted.jsonl")
	return [][]string{
		{"validate", good},
		{"validate", "--format", "json", good},
		{"replay", good},
		{"replay", "--format", "json", good},
		{"fingerprint", good},
		{"branch", good, "--at", "1", "--id", "b"},
		{"diff", good, good},
		{"diff", "--format", "json", good, good},
		{"normalize", good},
		{"list"},
		{"list", "--format", "json"},
		{"render", "s01-agent-loop"},
		{"verify", "s01-agent-loop"},
		{"verify", "--format", "json", "s01-agent-loop"},
		{"lint", "--format", "json", codex},
		{"import", codex},
		{"version"},
		{"help"},
		{"exercise", "list", "--state", "STATE"},
		{"exercise", "list", "--format", "json", "--state", "STATE"},
		{"exercise", "show", "A", "--format", "json", "--state", "STATE"},
	}
}

// TestConsistencyStdoutWriteError: output that cannot be written fails
// the command with exit 1 and one line naming the command.
func TestConsistencyStdoutWriteError(t *testing.T) {
	state := filepath.Join(t.TempDir(), "progress.json")
	for _, args := range okInvocations() {
		for i, a := range args {
			if a == "STATE" {
				args[i] = state
			}
		}
		var errb strings.Builder
		code := run(&env{stdin: strings.NewReader(""), stdout: failWriter{}, stderr: &errb}, args)
		path := args[:1]
		if _, group := commandGroups[args[0]]; group {
			path = args[:2]
		}
		want := strings.TrimSpace(programName+" "+strings.Join(path, " ")) + ": writing standard output: no space left on device\n"
		if args[0] == "help" {
			want = "tracecheck: writing standard output: no space left on device\n"
		}
		if code != exitFailed || strings.Count(errb.String(), "no space left on device") != 1 || !strings.Contains(errb.String(), want) {
			t.Errorf("%q with stdout failing: exit %d, stderr %q; want exit 1 and %q once", args, code, errb.String(), want)
		}
	}
}

// TestConsistencyJSON: every --format json document parses, and the same
// command gives the same bytes twice.
func TestConsistencyJSON(t *testing.T) {
	state := filepath.Join(t.TempDir(), "progress.json")
	for _, args := range okInvocations() {
		if !slices.Contains(args, "json") {
			continue
		}
		for i, a := range args {
			if a == "STATE" {
				args[i] = state
			}
		}
		_, first, stderr := runCmd(t, "", args...)
		_, second, _ := runCmd(t, "", args...)
		var v any
		if err := json.Unmarshal([]byte(first), &v); err != nil {
			t.Errorf("%q: not one JSON document (%v), stderr %q:\n%s", args, err, stderr, first)
		}
		if first != second || !strings.HasSuffix(first, "\n") {
			t.Errorf("%q: two runs differ, or no final newline:\n%s\n%s", args, first, second)
		}
	}
}

// TestHelpShowsBooleanFlagsPlainly: no --help shows pflag's
// "[=true|false]" after a boolean flag.
func TestHelpShowsBooleanFlagsPlainly(t *testing.T) {
	for _, path := range leafPaths() {
		if help := helpOf(t, path); strings.Contains(help, "[=true|false]") {
			t.Errorf("%s --help shows [=true|false]", strings.Join(path, " "))
		}
	}
}
