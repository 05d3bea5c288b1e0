// Package scenarios runs scripted-model sessions and renders them as Trace
// 0.1.0 journals: the agent loop of the reference runtime (session.start,
// user.message, model.request, model.response, tool.request, tool.result,
// context.compact, session.stop) with its fixed clock, evt-NNN ids and
// parent chain, followed by post-run journal operations (session.replay,
// session.branch, orphan repair, branch continuation), and resumes: later
// runs of the same session that go through the durable session store
// (journal/store and reducer.ResumeWriter), whose golden is the session
// file's bytes.
//
// The mechanisms of the curriculum's later lessons are scenario options and
// built-in tools, one file each: a workspace and its tools
// (tools_workspace.go, s04), instruction discovery (instructions.go, s05),
// a context budget (budget.go, s06), memory and skills (memory.go, s09), an
// approval gate (approval.go, s10), a sandbox (sandbox.go, s11), project
// trust (trust.go, s12) and checkpoints (checkpoint.go, s13); their fields
// are decoded in decode_mechanisms.go.
//
// Scenarios are data: one JSON file per scenario, scenarios/<id>.json,
// validated by schema/scenario.schema.json and embedded in the binary, so a
// new case needs no Go. Render turns a Scenario into events and bytes; Check
// validates the bytes (schema and journal invariants) and the scenario's
// expectations.
package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tracecheck/tracecheck/fakemodel"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/reducer"
	"github.com/tracecheck/tracecheck/schema"
)

//go:embed *.json
var embedded embed.FS

// Reference defaults: the provenance of the reference implementation's
// golden traces.
const (
	DefaultAgentID      = "reference-agent"
	DefaultSnapshotID   = "reference-agent-2026-08-10-python"
	DefaultSurface      = "sdk"
	DefaultHarnessMode  = "fake"
	DefaultExperimentID = "reference-foundations-golden"
	DefaultProvider     = "local-fixture"
	DefaultMaxTurns     = 8
)

// Scenario is one parsed, validated scenario file with its defaults
// applied.
type Scenario struct {
	ID           string
	Description  string
	File         string // where it was read from, for messages
	Reference    bool   // the golden must equal the reference implementation's
	SessionID    string
	RunID        string
	Provenance   journal.Provenance // RunID included
	MaxTurns     int
	SystemPrompt string // the run's system message: system_prompt, or what instructions or trust make of their sources
	Prompt       string
	Tools        []Tool
	Compactor    *CompactorSpec
	Turns        []fakemodel.Turn
	Interrupt    *Interrupt
	Kill         *Kill // the first run's; tracecheck agent run only
	AfterRun     []Operation
	// Resumes are the session's later runs, in order. A scenario with
	// resumes is rendered through the session store (see RenderDir).
	Resumes []Resume
	Expect  Expect
	// HasExpect: the file gives its expectations. Every scenario verify
	// renders needs them; one written only for real agents (tracecheck
	// agent run, whose checks are goldens of the agent's own logs) may go
	// without.
	HasExpect bool

	// The mechanisms of the reference's later lessons (decoded by
	// decode_mechanisms.go); nil when the scenario does not use them.
	Workspace    map[string]string // path -> content: the files the tools act on (s04, s10, s13)
	Instructions *InstructionsSpec // instruction discovery into the system prompt (s05)
	Budget       *BudgetSpec       // context budget and tool result truncation (s06)
	Memory       []MemoryRecord    // what memory_search finds (s09)
	Skills       []Skill           // what load_skill loads (s09)
	Approval     *ApprovalSpec     // the approval gate before every tool call (s10)
	Sandbox      *SandboxSpec      // the profile sandboxed_fetch is planned against (s11)
	Trust        *TrustSpec        // project trust and instruction sources before session.start (s12)
}

// Resume is one later run of the session: the session is reopened from
// its file and resumed (reducer.ResumeWriter: the resume marker, a
// synthesized tool.result for every call left open, the new user message),
// then the agent loop goes on with Turns.
type Resume struct {
	Pointer   string // JSON pointer of the resume in its file
	RunID     string
	Message   string // "" appends no user.message
	Turns     []fakemodel.Turn
	Interrupt *Interrupt // counts only the events the run's agent loop emits
	Kill      *Kill      // tracecheck agent run only
}

// Kill says when tracecheck agent run kills a real agent's process group
// during a run (the scenario runner ignores it): DuringTool, while the
// tool of the run's first portable shell call runs; or once the model
// server has answered AfterRequest requests of the run.
type Kill struct {
	DuringTool   bool
	AfterRequest int
}

func decodeKill(v jsonv.Value) *Kill {
	k, ok := v.Get("kill")
	if !ok {
		return nil
	}
	dt, _ := k.Get("during_tool")
	return &Kill{DuringTool: dt.IsTrue(), AfterRequest: int(integer(k, "after_request", 0))}
}

// CompactorSpec configures the reference's ContextCompactor with a fixed
// summary.
type CompactorSpec struct {
	TriggerChars       int
	KeepRecentMessages int
	Summary            string
}

// Compactor returns the reducer.Compactor the spec describes (nil for a nil
// spec).
func (c *CompactorSpec) Compactor() *reducer.Compactor {
	if c == nil {
		return nil
	}
	return &reducer.Compactor{
		TriggerChars:       c.TriggerChars,
		KeepRecentMessages: c.KeepRecentMessages,
		Summarize:          reducer.FixedSummary(c.Summary),
	}
}

// HistoryConfig is what reducer.History needs to rebuild this scenario's
// model-visible history from its journal.
func (s *Scenario) HistoryConfig() reducer.HistoryConfig {
	return reducer.HistoryConfig{SystemPrompt: s.SystemPrompt, Compactor: s.Compactor.Compactor()}
}

// Interrupt stops a run right after the Occurrence-th event of type After.
type Interrupt struct {
	After      string
	Occurrence int
}

// Operation kinds.
const (
	OpReplay   = "replay"
	OpBranch   = "branch"
	OpRepair   = "repair"
	OpContinue = "continue"
)

// Operation is one post-run journal operation.
type Operation struct {
	Op           string
	Pointer      string // JSON pointer of the operation in its file
	Through      *int64 // replay
	BranchID     string // branch, continue
	ForkSequence int64  // branch
	SessionID    string // continue
	RunID        string // continue
	Turns        []fakemodel.Turn
}

// Expect is what the rendered trace must show.
type Expect struct {
	EventCount        int
	FocusEventTypes   []string
	RunIDs            []string
	StopReason        *string // checked when HasStopReason
	HasStopReason     bool
	AssistantMessages []string // checked when non-nil
	UnansweredCalls   []string // checked when non-nil
	// RepairedCalls holds, per resume in order, the tool call ids it
	// answered with a synthesized result; checked when non-nil.
	RepairedCalls [][]string
	// SystemPrompt is the system message the model saw first (nil: none);
	// checked when HasSystemPrompt.
	SystemPrompt    *string
	HasSystemPrompt bool
}

// FileError is a problem in a scenario file: the file, the JSON pointer of
// the field ("" for the document) and what is wrong.
type FileError struct {
	File    string
	Pointer string
	Msg     string
}

func (e *FileError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: %s: %s", e.File, p, e.Msg)
}

// FileErrors lists every problem found in one file.
type FileErrors []*FileError

func (es FileErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Parse validates data (the contents of file) against the scenario schema
// and decodes it. Every problem names file and the field's JSON pointer;
// the error is a FileErrors.
func Parse(file string, data []byte) (*Scenario, error) {
	doc, err := jsonv.Parse(data)
	if err != nil {
		return nil, FileErrors{{File: file, Msg: "not valid JSON: " + err.Error()}}
	}
	if err := schema.ValidateScenario(doc.Interface(schema.Number)); err != nil {
		se, ok := err.(*schema.Error)
		if !ok {
			return nil, FileErrors{{File: file, Msg: err.Error()}}
		}
		var out FileErrors
		for _, v := range se.Violations {
			out = append(out, &FileError{File: file, Pointer: v.Pointer, Msg: v.Message})
		}
		return nil, out
	}
	d := decoder{file: file}
	s := d.scenario(doc)
	if base := path.Base(filepath.ToSlash(file)); strings.HasSuffix(base, ".json") && base != s.ID+".json" {
		d.fail("/id", "id %q does not match the file name %q: name the file %s.json", s.ID, base, s.ID)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return s, nil
}

// decoder reads a schema-valid document; it records semantic problems the
// schema cannot express.
type decoder struct {
	file string
	errs FileErrors
}

func (d *decoder) fail(pointer, format string, args ...any) {
	d.errs = append(d.errs, &FileError{File: d.file, Pointer: pointer, Msg: fmt.Sprintf(format, args...)})
}

func str(v jsonv.Value, key, def string) string {
	if f, ok := v.Get(key); ok && f.Kind() == jsonv.String {
		return f.Text()
	}
	return def
}

func integer(v jsonv.Value, key string, def int64) int64 {
	if f, ok := v.Get(key); ok {
		if n, ok := f.Int64(); ok {
			return n
		}
	}
	return def
}

func strs(v jsonv.Value, key string) []string {
	f, ok := v.Get(key)
	if !ok {
		return nil
	}
	out := make([]string, 0, f.Len())
	for _, e := range f.Elems() {
		out = append(out, e.Text())
	}
	return out
}

func (d *decoder) scenario(doc jsonv.Value) *Scenario {
	s := &Scenario{
		ID:           str(doc, "id", ""),
		Description:  str(doc, "description", ""),
		File:         d.file,
		SystemPrompt: str(doc, "system_prompt", ""),
		Prompt:       str(doc, "prompt", ""),
		MaxTurns:     int(integer(doc, "max_turns", DefaultMaxTurns)),
	}
	if r, ok := doc.Get("reference"); ok {
		s.Reference = r.IsTrue()
	}
	s.SessionID = str(doc, "session_id", "session-"+s.ID)
	s.RunID = str(doc, "run_id", "run-"+s.ID+"-golden")
	prov, _ := doc.Get("provenance")
	model := str(prov, "model", fakemodel.ID)
	provider := str(prov, "provider", DefaultProvider)
	s.Provenance = journal.Provenance{
		AgentID:      str(prov, "agent_id", DefaultAgentID),
		SnapshotID:   str(prov, "snapshot_id", DefaultSnapshotID),
		Surface:      str(prov, "surface", DefaultSurface),
		HarnessMode:  str(prov, "harness_mode", DefaultHarnessMode),
		RunID:        s.RunID,
		ExperimentID: str(prov, "experiment_id", DefaultExperimentID),
		Model:        &model,
		Provider:     &provider,
	}

	tools, _ := doc.Get("tools")
	seen := map[string]int{}
	for i, t := range tools.Elems() {
		ptr := "/tools/" + strconv.Itoa(i)
		tool := Tool{
			Name:        str(t, "name", ""),
			Description: str(t, "description", ""),
		}
		tool.Parameters, _ = t.Get("parameters")
		h, _ := t.Get("handler")
		if b, ok := h.Get("builtin"); ok {
			tool.Handler = Handler{Builtin: b.Text()}
			tool.Handler.Options, _ = h.Get("options")
		} else if r, ok := h.Get("result"); ok {
			tool.Handler = Handler{Result: r}
		} else if e, ok := h.Get("error"); ok {
			tool.Handler = Handler{ErrorType: str(e, "type", ""), ErrorMessage: str(e, "message", "")}
		}
		if j, dup := seen[tool.Name]; dup {
			d.fail(ptr+"/name", "tool %q is already declared at /tools/%d", tool.Name, j)
		}
		seen[tool.Name] = i
		s.Tools = append(s.Tools, tool)
	}

	if c, ok := doc.Get("compactor"); ok {
		s.Compactor = &CompactorSpec{
			TriggerChars:       int(integer(c, "trigger_chars", 0)),
			KeepRecentMessages: int(integer(c, "keep_recent_messages", 0)),
			Summary:            str(c, "summary", ""),
		}
	}

	turns, _ := doc.Get("turns")
	s.Turns = decodeTurns(turns)

	s.Interrupt = decodeInterrupt(doc)
	s.Kill = decodeKill(doc)

	ops, _ := doc.Get("after_run")
	branches := map[string]bool{}
	for i, o := range ops.Elems() {
		ptr := "/after_run/" + strconv.Itoa(i)
		op := Operation{Op: str(o, "op", ""), Pointer: ptr, BranchID: str(o, "branch_id", "")}
		switch op.Op {
		case OpReplay:
			if _, ok := o.Get("through"); ok {
				n := integer(o, "through", 0)
				op.Through = &n
			}
		case OpBranch:
			op.ForkSequence = integer(o, "fork_sequence", 0)
			if branches[op.BranchID] {
				d.fail(ptr+"/branch_id", "branch %q is already created by an earlier operation", op.BranchID)
			}
			branches[op.BranchID] = true
		case OpContinue:
			if !branches[op.BranchID] {
				d.fail(ptr+"/branch_id", "no earlier branch operation creates branch %q", op.BranchID)
			}
			op.SessionID = str(o, "session_id", "session-"+op.BranchID)
			op.RunID = str(o, "run_id", "run-"+op.BranchID)
			t, _ := o.Get("turns")
			op.Turns = decodeTurns(t)
		}
		s.AfterRun = append(s.AfterRun, op)
	}

	resumes, _ := doc.Get("resumes")
	runIDs := map[string]string{s.RunID: "/run_id"}
	for i, r := range resumes.Elems() {
		ptr := "/resumes/" + strconv.Itoa(i)
		rs := Resume{
			Pointer:   ptr,
			RunID:     str(r, "run_id", fmt.Sprintf("run-%s-resume-%d", s.ID, i+1)),
			Message:   str(r, "message", ""),
			Interrupt: decodeInterrupt(r),
			Kill:      decodeKill(r),
		}
		t, _ := r.Get("turns")
		rs.Turns = decodeTurns(t)
		if at, dup := runIDs[rs.RunID]; dup {
			d.fail(ptr+"/run_id", "run_id %q is already the run_id at %s: every run of a session needs its own", rs.RunID, at)
		}
		runIDs[rs.RunID] = ptr + "/run_id"
		s.Resumes = append(s.Resumes, rs)
	}
	if len(s.Resumes) > 0 {
		for _, op := range s.AfterRun {
			if op.Op == OpContinue {
				d.fail(op.Pointer, "a continued branch is a session of its own; it cannot go in the session file of a scenario with resumes")
			}
		}
	}

	ex, hasExpect := doc.Get("expect")
	s.HasExpect = hasExpect
	s.Expect = Expect{
		EventCount:      int(integer(ex, "event_count", 0)),
		FocusEventTypes: strs(ex, "focus_event_types"),
		RunIDs:          strs(ex, "run_ids"),
	}
	if s.Expect.RunIDs == nil {
		s.Expect.RunIDs = []string{s.RunID}
		for _, op := range s.AfterRun {
			if op.Op == OpContinue {
				s.Expect.RunIDs = append(s.Expect.RunIDs, op.RunID)
			}
		}
		for _, rs := range s.Resumes {
			s.Expect.RunIDs = append(s.Expect.RunIDs, rs.RunID)
		}
	}
	if sr, ok := ex.Get("stop_reason"); ok {
		s.Expect.HasStopReason = true
		if sr.Kind() == jsonv.String {
			r := sr.Text()
			s.Expect.StopReason = &r
		}
	}
	if ex.Has("assistant_messages") {
		s.Expect.AssistantMessages = strs(ex, "assistant_messages")
	}
	if sp, ok := ex.Get("system_prompt"); ok {
		s.Expect.HasSystemPrompt = true
		if sp.Kind() == jsonv.String {
			t := sp.Text()
			s.Expect.SystemPrompt = &t
		}
	}
	if ex.Has("unanswered_calls") {
		s.Expect.UnansweredCalls = strs(ex, "unanswered_calls")
	}
	if rc, ok := ex.Get("repaired_calls"); ok {
		s.Expect.RepairedCalls = [][]string{}
		for _, ids := range rc.Elems() {
			list := []string{}
			for _, id := range ids.Elems() {
				list = append(list, id.Text())
			}
			s.Expect.RepairedCalls = append(s.Expect.RepairedCalls, list)
		}
		if len(s.Expect.RepairedCalls) != len(s.Resumes) {
			d.fail("/expect/repaired_calls", "%d entries for %d resumes: give one list of tool call ids per resume", len(s.Expect.RepairedCalls), len(s.Resumes))
		}
	}
	d.mechanisms(doc, s)
	return s
}

func decodeInterrupt(v jsonv.Value) *Interrupt {
	in, ok := v.Get("interrupt")
	if !ok {
		return nil
	}
	return &Interrupt{After: str(in, "after", ""), Occurrence: int(integer(in, "occurrence", 1))}
}

func decodeTurns(v jsonv.Value) []fakemodel.Turn {
	out := make([]fakemodel.Turn, 0, v.Len())
	for _, t := range v.Elems() {
		turn := fakemodel.Turn{Content: str(t, "content", "")}
		if st, ok := t.Get("stop"); ok {
			turn.Stop = st.IsTrue()
		}
		if c, ok := t.Get("chunks"); ok {
			for _, ch := range c.Elems() {
				turn.Chunks = append(turn.Chunks, ch.Text())
			}
		}
		calls, _ := t.Get("tool_calls")
		for _, c := range calls.Elems() {
			call := reducer.ToolCall{ID: str(c, "id", ""), Name: str(c, "name", "")}
			call.Arguments, _ = c.Get("arguments")
			if !call.Arguments.IsValid() {
				call.Arguments = jsonv.Obj()
			}
			turn.ToolCalls = append(turn.ToolCalls, call)
		}
		if f, ok := t.Get("fault"); ok {
			turn.Fault = decodeFault(f)
		}
		out = append(out, turn)
	}
	return out
}

// decodeFault reads a turn's schema-valid fault: the schema allows each
// kind only its own members and "for" only durations that parse.
func decodeFault(f jsonv.Value) *fakemodel.Fault {
	out := &fakemodel.Fault{
		Kind:        str(f, "kind", ""),
		AfterChunks: int(integer(f, "after_chunks", 0)),
		Status:      int(integer(f, "status", 0)),
		Message:     str(f, "message", ""),
	}
	if ra, ok := f.Get("retry_after"); ok {
		secs, _ := ra.Float64()
		d := time.Duration(math.Round(secs * float64(time.Second)))
		out.RetryAfter = &d
	}
	if sr, ok := f.Get("should_retry"); ok {
		b := sr.IsTrue()
		out.ShouldRetry = &b
	}
	if d, err := time.ParseDuration(str(f, "for", "")); err == nil {
		out.For = d
	}
	if bh, ok := f.Get("before_headers"); ok {
		out.BeforeHeaders = bh.IsTrue()
	}
	return out
}

// LoadFS reads every *.json file of fsys's root as a scenario, sorted by
// id. All files are read; the error joins every file's problems.
func LoadFS(fsys fs.FS, dirName string) ([]*Scenario, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	var errs FileErrors
	ids := map[string]string{}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		file := path.Join(dirName, n)
		s, err := Parse(file, data)
		if err != nil {
			if fe, ok := err.(FileErrors); ok {
				errs = append(errs, fe...)
				continue
			}
			return nil, err
		}
		if other, dup := ids[s.ID]; dup {
			errs = append(errs, &FileError{File: file, Pointer: "/id", Msg: fmt.Sprintf("scenario %q is also defined in %s", s.ID, other)})
			continue
		}
		ids[s.ID] = file
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// LoadDir reads the scenarios of a directory on disk.
func LoadDir(dir string) ([]*Scenario, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return LoadFS(os.DirFS(dir), dir)
}

// Builtin returns the scenarios embedded in the binary (scenarios/*.json),
// sorted by id.
func Builtin() ([]*Scenario, error) {
	return LoadFS(embedded, "scenarios")
}
