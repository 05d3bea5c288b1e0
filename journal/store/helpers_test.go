package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/journal/store"
)

var clock0 = time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)

// run builds the events of one run the way the reference writes them:
// sequence from 0, parent_event_id the previous event of the run, event
// IDs from a counter shared by the whole session.
type run struct {
	session, id string
	seq         int64
	last        string
	ids         *int
}

func newRun(session, id string, ids *int) *run {
	return &run{session: session, id: id, ids: ids}
}

func (r *run) next(typ string, payload jsonv.Value) journal.Event {
	model, provider := "scripted-model-v1", "local-fixture"
	e := journal.Event{
		TraceVersion: journal.TraceVersion,
		EventID:      fmt.Sprintf("evt-%03d", *r.ids),
		SessionID:    r.session,
		Sequence:     r.seq,
		Timestamp:    clock0.Add(time.Duration(*r.ids) * time.Second).Format(time.RFC3339),
		Type:         typ,
		Actor:        journal.Actor{Kind: "harness", ID: "reference-agent"},
		Payload:      payload,
		Provenance: journal.Provenance{AgentID: "reference-agent", SnapshotID: "reference-agent-test",
			Surface: "sdk", HarnessMode: "fake", RunID: r.id, Model: &model, Provider: &provider},
		Redaction:     journal.CleanRedaction(),
		ParentEventID: r.last,
	}
	*r.ids++
	r.seq++
	r.last = e.EventID
	return e
}

func start() jsonv.Value {
	return jsonv.Obj(jsonv.M("max_turns", jsonv.Int(8)), jsonv.M("tool_count", jsonv.Int(1)))
}

func resumeStart(prev string) jsonv.Value {
	return jsonv.Obj(jsonv.M("max_turns", jsonv.Int(8)), jsonv.M("tool_count", jsonv.Int(1)),
		jsonv.M(store.ResumedKey, jsonv.BoolValue(true)), jsonv.M(store.ResumesRunIDKey, jsonv.Str(prev)))
}

func user(text string) jsonv.Value { return jsonv.Obj(jsonv.M("content", jsonv.Str(text))) }

func line(e journal.Event) []byte { return e.Value().AppendJSON(nil) }

// twoRuns returns a session of two runs: run-1 (start, user) and run-2
// resuming it (start, user).
func twoRuns(session string) []journal.Event {
	n := 0
	r1 := newRun(session, "run-1", &n)
	evs := []journal.Event{r1.next("session.start", start()), r1.next("user.message", user("first"))}
	r2 := newRun(session, "run-2", &n)
	return append(evs, r2.next("session.start", resumeStart("run-1")), r2.next("user.message", user("second")))
}

func openStore(t testing.TB) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

func openWriter(t testing.TB, st *store.Store, id string, opts store.WriterOptions) *store.Writer {
	t.Helper()
	w, err := st.OpenWriter(id, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validates checks a session file with the journal's own validator too.
func validates(t testing.TB, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if errs := journal.Validate(f, path); len(errs) > 0 {
		t.Fatalf("journal.Validate: %v", errs)
	}
}

// goldens returns the reference goldens: the repository's copies and, when
// present beside the repository, the shared reference set.
func goldens(t testing.TB) []string {
	t.Helper()
	var files []string
	seen := map[string]bool{}
	for _, pat := range []string{"../../testdata/good/s*.trace.jsonl", "../../../shared/reference/golden/*.trace.jsonl"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if !seen[filepath.Base(f)] {
				seen[filepath.Base(f)] = true
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		t.Fatal("no golden trace found")
	}
	return files
}

func sessionOf(t testing.TB, data []byte) string {
	t.Helper()
	first, _, _ := bytes.Cut(data, []byte("\n"))
	_, ev, jerr := journal.DecodeLine(first)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return ev.SessionID
}

func ackIDs(acks []store.Ack) string {
	var ids []string
	for _, a := range acks {
		s := a.EventID
		if a.Duplicate {
			s += "(dup)"
		}
		ids = append(ids, s)
	}
	return strings.Join(ids, ",")
}

// readOptional reads a file that may not exist ("" then).
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// readDir lists a directory's entries, comma-separated.
func readDir(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, ","), err
}
