// Package cases reads and runs command cases: data files that say how to
// check an agent written in any language against a golden trace, the way
// snapbox/trycmd keeps command tests as data.
//
// A case file (DIR/<id>.json, validated by schema/case.schema.json; every
// problem names the file and the field's JSON pointer) names a command
// (argv run without a shell, a working directory relative to the case file,
// environment additions, standard input, a timeout), where its Trace 0.1.0
// comes from (standard output, the lines after a marker line such as
// "TRACE:", a file it writes in its working directory, or a file it writes
// in $TRACECHECK_OUT_DIR, a fresh directory made for each run), its golden,
// and how the two are compared: byte for byte, as a tolerant golden, or by
// a trajectory match config with policy checks. With a model, the command
// runs against the scripted model server (package modelserver) and the
// trace the server writes is checked too.
//
// A case may say "repeat": K (Case.Repeat): package verify then calls Run
// K times and compares each run with the golden.
//
// Run runs a case once: the command's process group is killed when it
// outlives the timeout, and a command that fails, times out, or writes no
// valid trace leaves the problems (with the tail of its standard error)
// that make the case INVALID. Comparing a run with a golden and the golden
// workflow around it belong to package verify.
package cases

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/agentrun"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver"
	"github.com/tracecheck/tracecheck/scenarios"
	"github.com/tracecheck/tracecheck/schema"
	"github.com/tracecheck/tracecheck/tracediff/trajectory"
)

// Case is one parsed, checked case file.
type Case struct {
	ID   string
	File string // the case file, as it was named
	// Dir is the case file's directory: relative paths of the file start
	// there.
	Dir         string
	Description string
	Command     Command
	// Trace is where the command's trace comes from; nil when the case
	// checks only the model-side trace.
	Trace *Source
	// Golden names the goldens: <Golden>.trace.jsonl and, with a model,
	// <Golden>.model.trace.jsonl.
	Golden   string
	Tolerant bool
	// Match compares the trace as 'tracecheck diff --match-config' does;
	// nil compares it event by event.
	Match *trajectory.Config
	// Events: with Match, the trace is compared event by event too.
	Events bool
	Model  *Model
	// Agent runs a real agent's preset instead of Command (package
	// agentrun); its Trace is FromAgent and it is always tolerant.
	Agent *Agent
	// Repeat is how many times the case runs (1 to MaxRepeat; 1 when the
	// file says nothing): each run is a Run of its own, and package verify
	// compares each with the golden.
	Repeat int
}

// MaxRepeat bounds a case's repeat (the schema's maximum): every run keeps
// its traces until the report is written, and a hundred runs already give
// a pass^k figure far past what a CI job has time for.
const MaxRepeat = 100

// Agent is a real coding agent a case runs with its preset.
type Agent struct {
	Preset  *agentrun.Agent
	Bin     string // "" for the preset's program on PATH
	Args    []string
	Timeout time.Duration
	// Report: the scenario has resumes, a kill or scripted faults, so the
	// case checks the run's conformance report (its only subject, id
	// <id>.report, golden <golden>.report.trace.jsonl).
	Report bool
}

// ReportSuffix follows an agent case's golden name in its report's
// golden's: <golden>.report.trace.jsonl.
const ReportSuffix = ".report"

// Command is what a case runs.
type Command struct {
	Argv []string
	// Dir is the working directory (the case file's directory joined with
	// its cwd).
	Dir string
	// Env holds the NAME=VALUE additions, sorted by name.
	Env     []string
	Stdin   []byte
	Timeout time.Duration
}

// DefaultTimeout is how long a command may run when its case says nothing.
const DefaultTimeout = 60 * time.Second

// Where a trace comes from (Source.From).
const (
	FromStdout = "stdout"
	FromFile   = "file"
	FromOutDir = "out_dir"
	// FromAgent is an agent case's trace: the import of the agent's own
	// session log, the run's paths as placeholders.
	FromAgent = "agent"
)

// OutDirVar names the directory made for each run; ${OutDirVar} in argv
// and env values is replaced by it.
const OutDirVar = "TRACECHECK_OUT_DIR"

// Source is where a command's trace comes from.
type Source struct {
	From string `json:"from"`
	// After is the marker line standard output's trace follows ("" for
	// all of standard output).
	After string `json:"after,omitempty"`
	// Path is the file (FromFile: relative to the working directory;
	// FromOutDir: relative to $TRACECHECK_OUT_DIR).
	Path string `json:"path,omitempty"`
}

// Model says which scripted model a case's command runs against.
type Model struct {
	Scenario  *scenarios.Scenario
	Exhausted modelserver.ExhaustedPolicy
}

// ModelSuffix follows a case's golden name in its model-side golden's:
// <golden>.model.trace.jsonl.
const ModelSuffix = ".model"

// FileError is a problem in a case file: the file, the JSON pointer of
// the field ("" for the document) and what is wrong; the same type as a
// scenario file's.
type FileError = scenarios.FileError

// FileErrors lists every problem found in case files.
type FileErrors = scenarios.FileErrors

// Lookup finds a scenario by id for a case's model (the scenarios a verify
// run reads); it returns an error naming the known ids when there is none.
type Lookup func(id string) (*scenarios.Scenario, error)

// MaxFileSize bounds a case file and a stdin_file: both are small
// hand-written documents, and a path may name anything.
const MaxFileSize = 16 << 20

// caseDoc is a case file as the schema describes it.
type caseDoc struct {
	Schema      string          `json:"$schema"`
	ID          string          `json:"id"`
	Description string          `json:"description"`
	Command     commandDoc      `json:"command"`
	Trace       *Source         `json:"trace"`
	Golden      string          `json:"golden"`
	Tolerant    bool            `json:"tolerant"`
	Match       json.RawMessage `json:"match"`
	Events      bool            `json:"events"`
	// Repeat is a float so that 2.0, which the schema counts as an
	// integer, decodes.
	Repeat *float64 `json:"repeat"`
	Model  *struct {
		Scenario    string `json:"scenario"`
		OnExhausted string `json:"on_exhausted"`
	} `json:"model"`
	Agent *struct {
		Name    string   `json:"name"`
		Bin     string   `json:"bin"`
		Args    []string `json:"args"`
		Timeout string   `json:"timeout"`
	} `json:"agent"`
}

type commandDoc struct {
	Argv      []string          `json:"argv"`
	Cwd       string            `json:"cwd"`
	Env       map[string]string `json:"env"`
	Stdin     *string           `json:"stdin"`
	StdinFile string            `json:"stdin_file"`
	Timeout   string            `json:"timeout"`
}

// Parse validates data (the contents of file) against the case schema and
// decodes it; relative paths are resolved from file's directory, a model's
// scenario id through lookup. Every problem names file and the field's JSON
// pointer; the error is a FileErrors.
func Parse(file string, data []byte, lookup Lookup) (*Case, error) {
	doc, err := jsonv.Parse(data)
	if err != nil {
		return nil, FileErrors{{File: file, Msg: "not valid JSON: " + err.Error()}}
	}
	if err := schema.ValidateCase(doc.Interface(schema.Number)); err != nil {
		var se *schema.Error
		if !errors.As(err, &se) {
			return nil, FileErrors{{File: file, Msg: err.Error()}}
		}
		var out FileErrors
		for _, v := range se.Violations {
			msg := v.Message
			if v.Pointer == "/repeat" {
				// The schema says "must be >= 1 but found 0"; say what
				// the member is and what it takes.
				msg = fmt.Sprintf("repeat is how many times the command runs, a whole number from 1 to %d: %s", MaxRepeat, msg)
			}
			out = append(out, &FileError{File: file, Pointer: v.Pointer, Msg: msg})
		}
		return nil, out
	}
	var d caseDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, FileErrors{{File: file, Msg: err.Error()}}
	}
	p := &parser{file: file}
	c := p.decode(&d, lookup)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return c, nil
}

type parser struct {
	file string
	errs FileErrors
}

func (p *parser) fail(pointer, format string, args ...any) {
	p.errs = append(p.errs, &FileError{File: p.file, Pointer: pointer, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) decode(d *caseDoc, lookup Lookup) *Case {
	dir := filepath.Dir(p.file)
	base := path.Base(filepath.ToSlash(p.file))
	c := &Case{ID: d.ID, File: p.file, Dir: dir, Description: d.Description, Trace: d.Trace, Golden: d.Golden, Tolerant: d.Tolerant}
	name := strings.TrimSuffix(base, ".json")
	switch {
	case c.ID == "":
		c.ID = name
		if !slug(name) {
			p.fail("", "the file name %q is no case id (lower-case letters, digits and single hyphens): rename the file", base)
		}
	case c.ID != name:
		p.fail("/id", "id %q does not match the file name %q: name the file %s.json", c.ID, base, c.ID)
	}
	if c.Golden == "" {
		c.Golden = c.ID
	}

	cmd := &c.Command
	cmd.Argv = d.Command.Argv
	cmd.Dir = dir
	if d.Command.Cwd != "" {
		cmd.Dir = relTo(dir, d.Command.Cwd)
		if info, err := os.Stat(cmd.Dir); err != nil || !info.IsDir() {
			p.fail("/command/cwd", "%s is not a directory", cmd.Dir)
		}
	}
	names := make([]string, 0, len(d.Command.Env))
	for k := range d.Command.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k == OutDirVar {
			p.fail("/command/env/"+k, "%s is set by tracecheck for each run", OutDirVar)
		}
		cmd.Env = append(cmd.Env, k+"="+d.Command.Env[k])
	}
	switch {
	case d.Command.Stdin != nil:
		cmd.Stdin = []byte(*d.Command.Stdin)
	case d.Command.StdinFile != "":
		f := relTo(dir, d.Command.StdinFile)
		b, err := readSmall(f)
		if err != nil {
			p.fail("/command/stdin_file", "%v", err)
		}
		cmd.Stdin = b
	}
	cmd.Timeout = DefaultTimeout
	if d.Command.Timeout != "" {
		t, err := time.ParseDuration(d.Command.Timeout)
		switch {
		case err != nil:
			p.fail("/command/timeout", "%v", err)
		case t <= 0:
			p.fail("/command/timeout", "the timeout must be more than 0")
		default:
			cmd.Timeout = t
		}
	}

	if s := c.Trace; s != nil && s.From == FromOutDir {
		clean := path.Clean(s.Path)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
			p.fail("/trace/path", "%q is not a file inside $%s (a relative path that stays there)", s.Path, OutDirVar)
		}
	}
	if len(d.Match) > 0 {
		// The schema has checked the config, but a number it counts as an
		// integer (1.0, 1e0) still fails Go's int fields here.
		m, err := trajectory.ParseConfig(d.Match, p.file+": /match")
		if err != nil {
			p.fail("/match", "%v", err)
		}
		c.Match = m
	}
	c.Events = d.Events
	c.Repeat = 1
	if d.Repeat != nil {
		c.Repeat = int(*d.Repeat)
	}
	if d.Events && (c.Match == nil || c.Match.Match == "") {
		p.fail("/events", "events goes with a match relation: without match the events are what is compared")
	}
	if d.Model != nil {
		c.Model = &Model{}
		if d.Model.OnExhausted == "error" {
			c.Model.Exhausted = modelserver.ExhaustedError
		}
		c.Model.Scenario = p.scenario(d.Model.Scenario, dir, lookup)
	}
	if d.Agent != nil {
		c.Agent = p.agent(d, dir)
		c.Trace = &Source{From: FromAgent}
		c.Tolerant = true
		if c.Model != nil && c.Model.Scenario != nil && agentrun.NeedsReport(c.Model.Scenario) {
			c.Agent.Report = true
		}
	}
	if c.Trace == nil && c.Model == nil {
		p.fail("", "the case has neither a trace (where the command's trace comes from) nor a model (whose trace is checked): give trace, model or both")
	}
	return c
}

// agent decodes an agent case's agent.
func (p *parser) agent(d *caseDoc, dir string) *Agent {
	a := &Agent{Args: d.Agent.Args, Timeout: agentrun.DefaultTimeout}
	preset, err := agentrun.Lookup(d.Agent.Name)
	if err != nil {
		p.fail("/agent/name", "%v", err)
	}
	a.Preset = preset
	if b := d.Agent.Bin; b != "" {
		a.Bin = b
		if strings.ContainsRune(b, '/') || strings.ContainsRune(b, filepath.Separator) {
			a.Bin = relTo(dir, b)
		}
	}
	if d.Agent.Timeout != "" {
		t, err := time.ParseDuration(d.Agent.Timeout)
		switch {
		case err != nil:
			p.fail("/agent/timeout", "%v", err)
		case t <= 0:
			p.fail("/agent/timeout", "the timeout must be more than 0")
		default:
			a.Timeout = t
		}
	}
	return a
}

// scenario resolves a model's scenario: a file when ref looks like a path
// (ends in .json or holds a slash), relative to the case file; an id
// through lookup.
func (p *parser) scenario(ref, dir string, lookup Lookup) *scenarios.Scenario {
	if strings.HasSuffix(ref, ".json") || strings.ContainsRune(ref, '/') {
		sc, err := scenarios.LoadFile(relTo(dir, ref))
		if err != nil {
			p.fail("/model/scenario", "%v", err)
		}
		return sc
	}
	if lookup == nil {
		p.fail("/model/scenario", "scenario %q: no scenarios to look it up in", ref)
		return nil
	}
	sc, err := lookup(ref)
	if err != nil {
		p.fail("/model/scenario", "%v", err)
	}
	return sc
}

// relTo resolves a path of a case file: relative to dir unless absolute.
func relTo(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func slug(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// readSmall reads a regular file of at most MaxFileSize bytes.
func readSmall(name string) ([]byte, error) { return regularfile.Read(name, MaxFileSize) }

// LoadFile reads and parses one case file.
func LoadFile(name string, lookup Lookup) (*Case, error) {
	data, err := readSmall(name)
	if err != nil {
		return nil, FileErrors{{File: name, Msg: err.Error()}}
	}
	return Parse(name, data, lookup)
}

// LoadDir reads every *.json file of dir (not its subdirectories) as a
// case, sorted by id. Every file is read; the error is a FileErrors with
// the problems of all of them, and names two cases sharing a golden.
func LoadDir(dir string, lookup Lookup) ([]*Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Case
	var errs FileErrors
	goldens := map[string]string{}
	for _, n := range names {
		c, err := LoadFile(n, lookup)
		var fe FileErrors
		switch {
		case errors.As(err, &fe):
			errs = append(errs, fe...)
			continue
		case err != nil:
			return nil, err
		}
		if other, dup := goldens[c.Golden]; dup {
			errs = append(errs, &FileError{File: n, Pointer: "/golden", Msg: fmt.Sprintf("golden %q is also the golden of %s", c.Golden, other)})
			continue
		}
		goldens[c.Golden] = n
		out = append(out, c)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortFunc(out, func(a, b *Case) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// GoldenNames are the golden names a case's subjects use: its Golden when
// it has a trace, and Golden+ModelSuffix with a model.
func (c *Case) GoldenNames() []string {
	var out []string
	if c.Agent != nil && c.Agent.Report {
		return []string{c.Golden + ReportSuffix}
	}
	if c.Trace != nil {
		out = append(out, c.Golden)
	}
	if c.Model != nil {
		out = append(out, c.Golden+ModelSuffix)
	}
	return out
}

// describeArgv is the command line for messages.
func (c *Case) describeArgv() string {
	var b bytes.Buffer
	for i, a := range c.Command.Argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$") {
			fmt.Fprintf(&b, "%q", a)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}
