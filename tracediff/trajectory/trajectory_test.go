package trajectory

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
)

// call is one tool call of a test trace: its tool, its arguments as JSON,
// and its result ("ok", "fail" or "" for none).
type call struct {
	tool, args, result string
}

// build writes a valid single-run trace: session.start, one model.request
// per turns, the calls (each tool.request followed by its tool.result), and
// session.stop.
func build(tb testing.TB, turns int, calls ...call) []byte {
	tb.Helper()
	var out []byte
	seq := 0
	emit := func(typ string, payload jsonv.Value) {
		ev := jsonv.Obj(
			jsonv.M("trace_version", jsonv.Str("0.1.0")),
			jsonv.M("event_id", jsonv.Str(fmt.Sprintf("evt-%03d", seq))),
			jsonv.M("session_id", jsonv.Str("session-t")),
			jsonv.M("sequence", jsonv.Int(int64(seq))),
			jsonv.M("timestamp", jsonv.Str(fmt.Sprintf("2026-08-10T00:00:%02dZ", seq%60))),
			jsonv.M("type", jsonv.Str(typ)),
			jsonv.M("actor", jsonv.Obj(jsonv.M("kind", jsonv.Str("agent")), jsonv.M("id", jsonv.Str("a")))),
			jsonv.M("payload", payload),
			jsonv.M("provenance", jsonv.Obj(jsonv.M("agent_id", jsonv.Str("a")), jsonv.M("snapshot_id", jsonv.Str("s")),
				jsonv.M("surface", jsonv.Str("sdk")), jsonv.M("harness_mode", jsonv.Str("fake")), jsonv.M("run_id", jsonv.Str("run-t")))),
			jsonv.M("redaction", jsonv.Obj(jsonv.M("status", jsonv.Str("clean")), jsonv.M("fields", jsonv.Arr()))),
		)
		out = append(ev.AppendJSON(out), '\n')
		seq++
	}
	emit("session.start", jsonv.Obj())
	for i := 0; i < turns; i++ {
		emit("model.request", jsonv.Obj(jsonv.M("turn", jsonv.Int(int64(i+1)))))
	}
	for i, c := range calls {
		args, err := jsonv.Parse([]byte(c.args))
		if err != nil {
			tb.Fatal(err)
		}
		id := jsonv.Str(fmt.Sprintf("call-%d", i))
		emit("tool.request", jsonv.Obj(jsonv.M("tool_call_id", id), jsonv.M("tool", jsonv.Str(c.tool)), jsonv.M("arguments", args)))
		if c.result != "" {
			emit("tool.result", jsonv.Obj(jsonv.M("tool_call_id", id), jsonv.M("tool", jsonv.Str(c.tool)), jsonv.M("ok", jsonv.BoolValue(c.result == "ok"))))
		}
	}
	emit("session.stop", jsonv.Obj(jsonv.M("reason", jsonv.Str("completed"))))
	return out
}

func diff(tb testing.TB, exp, act []byte, cfg *Config, tolerant bool) *tracediff.Report {
	tb.Helper()
	r := Diff(tracediff.Input{Name: "expected", R: bytes.NewReader(exp)}, tracediff.Input{Name: "actual", R: bytes.NewReader(act)},
		cfg, tracediff.Options{Tolerant: tolerant})
	if r.Invalid() {
		tb.Fatalf("invalid: %v %v", r.Expected.Problems, r.Actual.Problems)
	}
	return r
}

// failure is a failure as the tests write it: kind, actual line, and the
// pointers of its fields.
type failure struct {
	Kind     string
	Line     int
	Pointers string
}

func failuresOf(r *tracediff.Report) []failure {
	var out []failure
	for _, ed := range r.Events {
		var ps []string
		for _, f := range ed.Fields {
			ps = append(ps, f.Pointer)
		}
		out = append(out, failure{ed.Kind, ed.ActualLine, strings.Join(ps, " ")})
	}
	return out
}

var (
	readA  = call{"read", `{"path":"a"}`, "ok"}
	readB  = call{"read", `{"path":"b"}`, "ok"}
	grepX  = call{"grep", `{"q":"x"}`, "ok"}
	grepY  = call{"grep", `{"q":"y"}`, "ok"}
	readAn = call{"read", `{"path":"a"}`, ""} // no result
)

// TestModes: each relation on the same pairs of trajectories. Lines: the
// calls start at line 3 (after session.start and one model.request) and
// take two lines each.
func TestModes(t *testing.T) {
	ref := []call{readA, grepX}
	tests := []struct {
		name   string
		mode   Mode
		actual []call
		want   []failure
	}{
		{"exact same", Exact, []call{readA, grepX}, nil},
		{"exact swapped", Exact, []call{grepX, readA}, []failure{{"mismatch", 3, "/payload/tool /payload/arguments/path /payload/arguments/q"}, {"mismatch", 5, "/payload/tool /payload/arguments/q /payload/arguments/path"}}},
		{"exact one more", Exact, []call{readA, grepX, grepY}, []failure{{"unexpected", 7, ""}}},
		{"exact one less", Exact, []call{readA}, []failure{{"unmatched", 0, ""}}},
		{"in order with others between", ContainsInOrder, []call{readB, readA, grepY, grepX}, nil},
		{"in order swapped", ContainsInOrder, []call{grepX, readA}, []failure{{"unmatched", 3, ""}}},
		{"multiset swapped", SameMultiset, []call{grepX, readA}, nil},
		{"multiset one more", SameMultiset, []call{grepX, readA, readB}, []failure{{"unexpected", 7, "/payload/arguments/path"}}},
		{"multiset changed argument", SameMultiset, []call{grepY, readA}, []failure{{"unmatched", 3, "/payload/arguments/q"}}},
		{"multiset missing result", SameMultiset, []call{grepX, readAn}, []failure{{"unmatched", 5, "/payload/tool_call_id"}}},
		{"subset fewer", Subset, []call{grepX}, nil},
		{"subset other", Subset, []call{grepX, readB}, []failure{{"unexpected", 5, "/payload/arguments/path"}}},
		{"superset more", Superset, []call{readB, grepX, readA, grepY}, nil},
		{"superset fewer", Superset, []call{grepX}, []failure{{"unmatched", 0, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := diff(t, build(t, 1, ref...), build(t, 1, tt.actual...), &Config{Match: tt.mode}, false)
			if diff := cmp.Diff(tt.want, failuresOf(r)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if r.Equal != (len(tt.want) == 0) || r.Differences != len(tt.want) {
				t.Errorf("equal %v, differences %d", r.Equal, r.Differences)
			}
		})
	}
}

// TestMatchingIsMaximum is the adversarial case for a greedy matcher: the
// first expected call fits both actual calls, the second only the first.
// Greedy gives the first actual call to the first expected call and fails;
// the maximum matching pairs them crosswise and passes.
func TestMatchingIsMaximum(t *testing.T) {
	// Both expected calls are patterns, so the general matching pairs them.
	exp := build(t, 1, call{"read", `{"path":"[..]"}`, "ok"}, call{"read", `{"path":"a[..]"}`, "ok"})
	act := build(t, 1, readA, readB)

	// What a greedy pairing would do on this graph.
	adj := [][]int{{0, 1}, {0}}
	greedy, taken := 0, map[int]bool{}
	for _, js := range adj {
		for _, j := range js {
			if !taken[j] {
				taken[j], greedy = true, greedy+1
				break
			}
		}
	}
	if greedy != 1 {
		t.Fatalf("the case is not adversarial: greedy matched %d", greedy)
	}
	mL, _ := maxMatching(2, 2, adj)
	if mL[0] != 1 || mL[1] != 0 {
		t.Fatalf("maxMatching = %v, want [1 0]", mL)
	}
	r := diff(t, exp, act, &Config{Match: SameMultiset}, true)
	if !r.Equal {
		t.Errorf("same-multiset failed where a one-to-one pairing exists: %+v", r.Events)
	}
}

// TestMaxMatchingAgainstBruteForce compares Hopcroft–Karp with an
// exhaustive search on random small graphs.
func TestMaxMatchingAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 500; n++ {
		nL, nR := rng.IntN(6), rng.IntN(6)
		adj := make([][]int, nL)
		for i := range adj {
			for j := 0; j < nR; j++ {
				if rng.IntN(3) == 0 {
					adj[i] = append(adj[i], j)
				}
			}
		}
		mL, mR := maxMatching(nL, nR, adj)
		size := 0
		for i, j := range mL {
			if j >= 0 {
				size++
				if mR[j] != i {
					t.Fatalf("inconsistent matching %v %v", mL, mR)
				}
			}
		}
		if want := brute(adj, 0, make([]bool, nR)); size != want {
			t.Fatalf("graph %v: matching of %d, maximum is %d", adj, size, want)
		}
	}
}

func brute(adj [][]int, i int, used []bool) int {
	if i == len(adj) {
		return 0
	}
	best := brute(adj, i+1, used)
	for _, j := range adj[i] {
		if !used[j] {
			used[j] = true
			best = max(best, 1+brute(adj, i+1, used))
			used[j] = false
		}
	}
	return best
}

func TestArgumentMatching(t *testing.T) {
	exp := build(t, 1, call{"write", `{"path":"a","text":"hi","mode":"w"}`, "ok"})
	tests := []struct {
		name string
		args ArgMatch
		act  string
		want []failure
	}{
		{"exact", ArgMatch{}, `{"path":"a","text":"hi","mode":"w"}`, nil},
		{"exact differs", ArgMatch{}, `{"path":"a","text":"bye","mode":"w"}`, []failure{{"unmatched", 3, "/payload/arguments/text"}}},
		{"ignore", ArgMatch{Kind: ArgsIgnore}, `{"anything":1}`, nil},
		{"superset: more is fine", ArgMatch{Kind: ArgsSuperset}, `{"path":"a","text":"hi","mode":"w","extra":1}`, nil},
		{"superset: less is not", ArgMatch{Kind: ArgsSuperset}, `{"path":"a","text":"hi"}`, []failure{{"unmatched", 3, "/payload/arguments/mode"}}},
		{"subset: less is fine", ArgMatch{Kind: ArgsSubset}, `{"path":"a"}`, nil},
		{"subset: more is not", ArgMatch{Kind: ArgsSubset}, `{"path":"a","force":true}`, []failure{{"unmatched", 3, "/payload/arguments/force"}}},
		{"keys", ArgMatch{Kind: ArgsKeys, Keys: []string{"/path"}}, `{"path":"a","text":"other"}`, nil},
		{"keys differ", ArgMatch{Kind: ArgsKeys, Keys: []string{"/path"}}, `{"path":"b","text":"hi"}`, []failure{{"unmatched", 3, "/payload/arguments/path"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, perTool := range []bool{false, true} {
				cfg := &Config{Match: SameMultiset, Arguments: tt.args}
				if perTool { // the override wins over a default that would fail
					a := tt.args
					cfg = &Config{Match: SameMultiset, Arguments: ArgMatch{Kind: "keys", Keys: []string{"/nope"}},
						Tools: map[string]ToolConfig{"write": {Arguments: &a}}}
				}
				r := diff(t, exp, build(t, 1, call{"write", tt.act, "ok"}), cfg, false)
				if diff := cmp.Diff(tt.want, failuresOf(r)); diff != "" {
					t.Errorf("per tool %v: failures (-want +got):\n%s", perTool, diff)
				}
			}
		})
	}
}

// TestKeyedPairingScales: thousands of identical calls pair by key in
// linear time, in every relation (an unmatched expected call and an
// unexpected actual one are reported together, as the closest pair).
func TestKeyedPairingScales(t *testing.T) {
	calls := make([]call, 3000)
	for i := range calls {
		calls[i] = []call{readA, readB, grepX}[i%3]
	}
	exp, act := build(t, 1, calls...), build(t, 1, append(calls[1:], grepY)...)
	for _, mode := range Modes {
		r := diff(t, exp, act, &Config{Match: mode}, false)
		want := map[Mode]int{Exact: 3000, ContainsInOrder: 3, SameMultiset: 1, Subset: 1, Superset: 1}[mode]
		if r.Differences != want {
			t.Errorf("%s: %d failures, want %d", mode, r.Differences, want)
		}
	}
}

func TestResultsOff(t *testing.T) {
	f := false
	r := diff(t, build(t, 1, readA), build(t, 1, readAn), &Config{Match: Exact, Results: &f}, false)
	if !r.Equal {
		t.Errorf("results off still compared results: %+v", r.Events)
	}
}

func intp(n int) *int { return &n }

func TestPolicy(t *testing.T) {
	act := build(t, 3, readA, readB, grepX, readAn)
	tests := []struct {
		name   string
		policy Policy
		want   []string // notes
	}{
		{"allowed", Policy{AllowedTools: []string{"read"}}, []string{"the tool is not allowed"}},
		{"denied", Policy{DeniedTools: []string{"read"}}, []string{"the tool is denied", "the tool is denied", "the tool is denied"}},
		{"max calls", Policy{Calls: map[string]Bounds{"read": {Max: intp(2)}}}, []string{`call 3 of "read"`}},
		{"min calls", Policy{Calls: map[string]Bounds{"grep": {Min: intp(2)}, "echo": {Min: intp(1)}}},
			[]string{`"echo" is called 0 times; at least 1 expected`, `"grep" is called 1 times; at least 2 expected`}},
		{"max turns", Policy{MaxTurns: intp(2)}, []string{"turn 3 of 3: at most 2 turns are allowed"}},
		{"no orphan calls", Policy{NoOrphanCalls: true}, []string{"an orphan call: no tool.result with its tool_call_id in the run"}},
		{"all fine", Policy{AllowedTools: []string{"read", "grep"}, MaxTurns: intp(3), Calls: map[string]Bounds{"read": {Min: intp(1), Max: intp(3)}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Event by event (no match mode): the trace against itself,
			// so only the policy can fail.
			r := diff(t, act, act, &Config{Policy: &tt.policy}, false)
			var notes []string
			for _, ed := range r.Events {
				if ed.Kind != KindPolicy {
					t.Errorf("a %s failure", ed.Kind)
				}
				notes = append(notes, ed.Note)
			}
			if diff := cmp.Diff(tt.want, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			// With no reference at all: the same failures.
			alone := CheckPolicy(Read(tracediff.Input{Name: "act", R: bytes.NewReader(act)}, false), &tt.policy, tracediff.Options{})
			var got []string
			for _, ed := range alone.Events {
				got = append(got, ed.Note)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || alone.Equal != (tt.want == nil) || alone.Differences != len(tt.want) {
				t.Errorf("CheckPolicy notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	good := `{"match":"same-multiset","arguments":"superset","tools":{"write":{"arguments":{"keys":["/path"]}}},"results":false,` +
		`"policy":{"allowed_tools":["read","write"],"calls":{"read":{"max":3}},"max_turns":8,"no_orphan_calls":true}}`
	c, err := ParseConfig([]byte(good), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Match != SameMultiset || c.Arguments.Kind != ArgsSuperset || c.argsFor("write").Kind != ArgsKeys || c.results() || *c.Policy.MaxTurns != 8 {
		t.Errorf("parsed %+v", c)
	}
	for _, bad := range []struct{ doc, want string }{
		{`{"match":"sorta"}`, "/match"},
		{`{"arguments":{"keys":[]}}`, "/arguments"},
		{`{"arguments":{"keys":["path"]}}`, "/arguments"},
		{`{"policy":{"max_turns":-1}}`, "/policy/max_turns"},
		{`{"extra":1}`, "extra"},
		{`{"match":"exact","match":"exact"}`, "duplicate"},
		{`[]`, "object"},
	} {
		if _, err := ParseConfig([]byte(bad.doc), "m.json"); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), "m.json: ") {
			t.Errorf("ParseConfig(%s) = %v, want an error naming %q", bad.doc, err, bad.want)
		}
	}
}
