package tolerant

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// provePairs are traces as (golden, actual) line pairs: the test traces
// and a generated one, each event with its normalized golden line.
func provePairs(t *testing.T) [][][2][]byte { return provePairsFrom(t) }

func provePairsFrom(t testing.TB) [][][2][]byte {
	t.Helper()
	var traces [][][]byte
	files, _ := filepath.Glob("../../testdata/good/*.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, bytes.Split(bytes.TrimSpace(data), []byte{'\n'}))
	}
	g := tracegen.New(tracegen.Options{Events: 1500, Seed: 3})
	var gen [][]byte
	for l := g.Next(); l != nil; l = g.Next() {
		gen = append(gen, bytes.TrimSuffix(bytes.Clone(l), []byte{'\n'}))
	}
	traces = append(traces, gen)
	var out [][][2][]byte
	for _, tr := range traces {
		z := NewNormalizer()
		var pairs [][2][]byte
		for _, l := range tr {
			v, err := jsonv.Parse(l)
			if err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, [2][]byte{z.Event(v).AppendJSON(nil), l})
		}
		out = append(out, pairs)
	}
	return out
}

// mutatePair edits a golden line and its event as a golden and a run
// might differ, or break them: a byte of the golden changed, a hole
// renamed or made a literal, a string of both made one that reads as a
// hole, space or an escape in the golden.
func mutatePair(r *rand.Rand, g, a []byte) ([]byte, []byte) {
	g, a = bytes.Clone(g), bytes.Clone(a)
	switch r.IntN(11) {
	case 0:
		g[r.IntN(len(g))] = `"\,:{}[] x1`[r.IntN(11)]
	case 1:
		g = bytes.Replace(g, []byte(`"[ID-`), []byte(`"[ID-9`), 1)
	case 2:
		g = bytes.Replace(g, []byte(`"[TIMESTAMP]"`), []byte(`"[UUID]"`), 1)
	case 3:
		for _, w := range []string{`"learner"`, `"clean"`, `"sdk"`, `"user"`} {
			if bytes.Contains(a, []byte(w)) {
				rep := []string{`"[X]"`, `"{...}"`, `"\\x"`, `"a[..]b"`, `"..."`, `"[TIMESTAMP]"`}[r.IntN(6)]
				g = bytes.ReplaceAll(g, []byte(w), []byte(rep))
				a = bytes.ReplaceAll(a, []byte(w), []byte(rep))
				break
			}
		}
	case 4:
		g = bytes.Replace(g, []byte(`":`), []byte(`": `), 1)
	case 5:
		g = bytes.Replace(g, []byte(`"[ID-`), []byte(`"\u005bID-`), 1)
	case 6:
		g = bytes.Replace(g, []byte(`"sequence":`), []byte(`"sequence":"[SEQ]","x":`), 1)
	case 8:
		// A top-level string the same in both that reads as a hole.
		rep := []string{`"[EV]"`, `"[ID-1]"`, `"{...}"`, `"\\ev"`, `"ev-[..]"`, `"..."`}[r.IntN(6)]
		g, a = setMember(g, "event_id", rep), setMember(a, "event_id", rep)
	case 9:
		// A glob that is not a valid JSON string, though what it matches
		// is: a character cut in two by [..].
		g, a = setMember(g, "event_id", "\"\xc3[..]\xa9\""), setMember(a, "event_id", `"é"`)
	case 10:
		g = append(g, []byte{'}', 'x', ' '}[r.IntN(3)])
	case 7:
		if i := bytes.Index(g, []byte(`"[ID-`)); i >= 0 {
			j := bytes.IndexByte(g[i+1:], '"')
			g = append(g[:i:i], append([]byte(`"literal"`), g[i+j+2:]...)...)
		}
	}
	return g, a
}

// setMember sets the top-level string member key of line to the JSON
// string v.
func setMember(line []byte, key, v string) []byte {
	k := []byte(`"` + key + `":"`)
	i := bytes.Index(line, k)
	if i < 0 {
		return line
	}
	i += len(k) - 1
	e, _ := stringEnd(line, i+1)
	return append(line[:i:i], append([]byte(v), line[e+1:]...)...)
}

// bindingsText lists a Matcher's bindings: name, value, pointer, line.
func bindingsText(m *Matcher) string {
	var b strings.Builder
	for i := 0; i < m.binds.n; i++ {
		n, c, p := m.binds.bytes(i)
		fmt.Fprintf(&b, "%s=%s@%s:%d; ", n, c, p, m.binds.line(i))
	}
	return b.String()
}

// Prove answers true only where Check compiles the golden line and
// MatchHoles accepts the event against its holes, and then with Check's
// holes, MatchHoles's bindings and timestamp, and Lex's key; on the
// lines of normalized traces it answers true. Lines are taken in trace
// order, so bindings made earlier count, as in a diff.
func TestProveAsCheckAndMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	var sc journal.LineScanner
	var ck, pk, lk Compiler
	proved, plain, total := 0, 0, 0
	for _, pairs := range provePairs(t) {
		for round := 0; round < 3; round++ {
			oracle, prover := NewMatcher(true), NewMatcher(true)
			for i, p := range pairs {
				g, a := p[0], p[1]
				mutated := round > 0 && r.IntN(3) == 0
				if mutated {
					g, a = mutatePair(r, g, a)
				}
				members, ok := sc.Members(nil, a)
				if !ok {
					continue
				}
				total++
				oracle.Line, prover.Line = i+1, i+1
				holes, _, compiled, err := ck.Check(nil, nil, g)
				wantOK, wantTS, wantT := false, "", oracle.ts
				if compiled && err == nil {
					wantOK, wantTS, wantT = oracle.MatchHoles(g, holes, a)
				}
				var key LexKey
				gotOK, gotHoles, gotTS, gotT := pk.Prove(prover, g, a, members, &key)
				name := fmt.Sprintf("line %d (mutated %v):\n%s\n%s", i+1, mutated, g, a)
				switch {
				case gotOK && !wantOK:
					t.Fatalf("%s\nProve accepts what Check and MatchHoles do not (compiled %v, %v)", name, compiled, err)
				case gotOK:
					proved++
					if !mutated {
						plain++
					}
					if holesText(gotHoles) != holesText(holes) {
						t.Fatalf("%s\nProve's holes %s\nCheck's       %s", name, holesText(gotHoles), holesText(holes))
					}
					if gotTS != wantTS || !gotT.Equal(wantT) {
						t.Fatalf("%s\ntimestamp %q %v, MatchHoles %q %v", name, gotTS, gotT, wantTS, wantT)
					}
					var lexKey LexKey
					if _, _, lok := lk.Lex(nil, nil, g, &lexKey); lok &&
						(string(key.Sequence) != string(lexKey.Sequence) || string(key.SessionID) != string(lexKey.SessionID) || string(key.RunID) != string(lexKey.RunID)) {
						t.Fatalf("%s\nkey %q %q %q, Lex's %q %q %q", name, key.Sequence, key.SessionID, key.RunID,
							lexKey.Sequence, lexKey.SessionID, lexKey.RunID)
					}
				case wantOK:
					// Prove left it to Lex and MatchHoles: the prover takes
					// the same bindings that way.
					if ok, _, _ := prover.MatchHoles(g, holes, a); !ok {
						t.Fatalf("%s\nMatchHoles accepts it once and not twice", name)
					}
					if !mutated {
						t.Logf("%s\nnot proven", name)
					}
				}
				if got, want := bindingsText(prover), bindingsText(oracle); got != want {
					t.Fatalf("%s\nbindings after Prove (%v):\n%s\nafter MatchHoles (%v):\n%s", name, gotOK, got, wantOK, want)
				}
			}
		}
	}
	t.Logf("proved %d of %d lines (%d not mutated)", proved, total, plain)
	if plain*10 < total*6 || proved == 0 {
		t.Fatalf("Prove proved %d of %d lines (%d not mutated)", proved, total, plain)
	}
}

// A member value that held a hole is not taken for one that holds none,
// when a line is proven again after its bindings were rolled back.
func TestProveAfterRollback(t *testing.T) {
	a := []byte(`{"trace_version":"0.1.0","event_id":"e1","session_id":"s","sequence":0,"timestamp":"2026-01-01T00:00:00Z","type":"session.start","actor":{"kind":"harness","id":"[X]"},"payload":{},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}`)
	g := bytes.Replace(a, []byte(`"e1"`), []byte(`"[E]"`), 1)
	var sc journal.LineScanner
	members, ok := sc.Members(nil, a)
	if !ok {
		t.Fatal("not on the lean path")
	}
	var k Compiler
	m := NewMatcher(true)
	for pass := 0; pass < 2; pass++ {
		mark := m.Mark()
		var key LexKey
		if ok, _, _, _ := k.Prove(m, g, a, members, &key); !ok {
			t.Fatalf("pass %d: not proven", pass)
		}
		if got := bindingsText(m); !strings.Contains(got, "X=") || !strings.Contains(got, "E=") {
			t.Fatalf("pass %d: bindings %s, want X and E", pass, got)
		}
		m.Rollback(mark)
	}
}

// Two events with the same timestamp and golden text: the second is proven
// with its timestamp too (a pair with a Timestamp hole is not recalled, as
// the time is the Matcher's), and a pair recalled gives the holes and key
// its proof gave.
func TestProveRecallsPairs(t *testing.T) {
	a := []byte(`{"trace_version":"0.1.0","event_id":"e1","session_id":"s","sequence":0,"timestamp":"2026-01-01T00:00:07Z","type":"session.start","actor":{"kind":"harness","id":"h"},"payload":{},"provenance":{"agent_id":"a","snapshot_id":"x","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}}`)
	g := bytes.Replace(a, []byte(`"2026-01-01T00:00:07Z"`), []byte(`"[TIMESTAMP]"`), 1)
	g = bytes.Replace(g, []byte(`"s"`), []byte(`"[ID-2]"`), 1)
	g = bytes.Replace(g, []byte(`"r"`), []byte(`"[ID-3]"`), 1)
	var sc journal.LineScanner
	members, ok := sc.Members(nil, a)
	if !ok {
		t.Fatal("not on the lean path")
	}
	var k, ck Compiler
	want, _, _, _ := ck.Check(nil, nil, g)
	m := NewMatcher(true)
	for pass := 0; pass < 3; pass++ {
		var key LexKey
		ok, holes, ts, tm := k.Prove(m, g, a, members, &key)
		if !ok || ts != "2026-01-01T00:00:07Z" || tm.Second() != 7 {
			t.Fatalf("pass %d: proven %v, timestamp %q %v", pass, ok, ts, tm)
		}
		if holesText(holes) != holesText(want) {
			t.Fatalf("pass %d: holes %s, Check's %s", pass, holesText(holes), holesText(want))
		}
		if string(key.SessionID) != `"[ID-2]"` || string(key.RunID) != `"[ID-3]"` || string(key.Sequence) != "0" {
			t.Fatalf("pass %d: key %q %q %q", pass, key.Sequence, key.SessionID, key.RunID)
		}
	}
	if pm := &k.proofs[journal.MemberSessionID]; pm.m != m || pm.misses != 0 {
		t.Fatalf("session_id's pair was not remembered (%+v)", pm)
	}
}

// literalOnly is false wherever a string of the text could read as a hole
// or as "...", however it is written.
func TestLiteralOnly(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{`{"a":"b","c":[1,2,{"d":"e"}],"f":"x\ny"}`, true},
		{`{"roles":["user","assistant"],"n":[]}`, true},
		{`{"a":"text with ] and a:b"}`, true},
		{`{"a":"[X]"}`, false},
		{`{"a":["[X]"]}`, false},
		{`{"a":"x[..]y"}`, false},
		{`{"a":"id-[UUID]"}`, false},
		{`{"a":"{...}"}`, false},
		{`{"a":["..."]}`, false},
		{`{"...":"{...}"}`, false},
		{`{"a":"\\path"}`, false},
		{`{"a":"\u005bX]"}`, false},
		{`{"a":"say \"[X]\""}`, false},
		{`{"a":"x\\"}`, false},
		{`"a\n"`, true},
		{`\`, true}, // not JSON, but no panic at a backslash that ends the text
	} {
		if got := literalOnly([]byte(c.v)); got != c.want {
			t.Errorf("literalOnly(%s) = %v, want %v", c.v, got, c.want)
		}
	}
}

// literalOnly looks at each '[' where it once searched for each of `"[`,
// "[..]" and "[UUID]": the two agree on texts dense in those bytes.
func TestLiteralOnlyMatchesSearch(t *testing.T) {
	bySearch := func(v []byte) bool {
		if bytes.Contains(v, []byte(`"[`)) || bytes.Contains(v, []byte(AnyRun)) || bytes.Contains(v, []byte(UUIDToken)) ||
			bytes.Contains(v, []byte("...")) {
			return false
		}
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' {
				if i+1 < len(v) && (v[i+1] == '\\' || v[i+1] == 'u') {
					return false
				}
				i++
			}
		}
		return true
	}
	r := rand.New(rand.NewPCG(25, 4))
	alphabet := []byte(`"[]..UUIDx\\u{}:,`)
	var v []byte
	for range 200000 {
		v = v[:0]
		for range r.IntN(24) {
			if r.IntN(6) == 0 {
				v = append(v, []string{AnyRun, UUIDToken, `"[`, "..."}[r.IntN(4)]...)
				continue
			}
			v = append(v, alphabet[r.IntN(len(alphabet))])
		}
		if got, want := literalOnly(v), bySearch(v); got != want {
			t.Fatalf("literalOnly(%q) = %v, the searches say %v", v, got, want)
		}
	}
}

// FuzzProve: whatever the golden line and the event, Prove does not panic
// and accepts only what Check and MatchHoles accept, with their bindings.
func FuzzProve(f *testing.F) {
	for _, pairs := range provePairsFrom(f) {
		for _, p := range pairs[:min(len(pairs), 8)] {
			f.Add(p[0], p[1])
		}
	}
	f.Fuzz(func(t *testing.T, g, a []byte) {
		var sc journal.LineScanner
		members, ok := sc.Members(nil, a)
		if !ok {
			return
		}
		var ck, pk Compiler
		oracle, prover := NewMatcher(true), NewMatcher(true)
		holes, _, compiled, err := ck.Check(nil, nil, g)
		wantOK := false
		if compiled && err == nil {
			wantOK, _, _ = oracle.MatchHoles(g, holes, a)
		}
		var key LexKey
		gotOK, gotHoles, _, _ := pk.Prove(prover, g, a, members, &key)
		if gotOK && !wantOK {
			t.Fatalf("Prove accepts what Check and MatchHoles do not:\n%s\n%s", g, a)
		}
		if gotOK && holesText(gotHoles) != holesText(holes) {
			t.Fatalf("holes %s, Check's %s", holesText(gotHoles), holesText(holes))
		}
		if gotOK && bindingsText(prover) != bindingsText(oracle) {
			t.Fatalf("bindings %s, MatchHoles's %s", bindingsText(prover), bindingsText(oracle))
		}
		if !gotOK && prover.Bindings() != 0 {
			t.Fatalf("Prove answered false and kept %d bindings", prover.Bindings())
		}
		// The same line again, as a run repeats its members: what Prove
		// remembered of the first (provememo.go) must give what Check and
		// MatchHoles give the second time.
		if wantOK {
			wantOK, _, _ = oracle.MatchHoles(g, holes, a)
		}
		gotOK, gotHoles, _, _ = pk.Prove(prover, g, a, members, &key)
		if gotOK && !wantOK {
			t.Fatalf("the second time, Prove accepts what Check and MatchHoles do not:\n%s\n%s", g, a)
		}
		if gotOK && (holesText(gotHoles) != holesText(holes) || bindingsText(prover) != bindingsText(oracle)) {
			t.Fatalf("the second time, holes %s and bindings %s; Check's %s, MatchHoles's %s",
				holesText(gotHoles), bindingsText(prover), holesText(holes), bindingsText(oracle))
		}
	})
}
