package tolerant

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// MatchText against Match: on goldens normalized from real traces and
// hand-written ones, each matched with its own trace and with mutated
// lines, a matcher that tries MatchText first (Match when it cannot tell)
// must end every line in the state of one that only asks Match, and say
// "matched" only where Match finds nothing.

func textCorpus(t *testing.T) [][2][][]byte {
	var sets [][2][][]byte
	split := func(b []byte) [][]byte {
		var ls [][]byte
		for _, l := range bytes.Split(b, []byte{'\n'}) {
			if len(bytes.TrimSpace(l)) > 0 {
				ls = append(ls, l)
			}
		}
		return ls
	}
	traces, _ := filepath.Glob("../../testdata/good/*.jsonl")
	for _, f := range traces {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		z := NewNormalizer()
		var golden [][]byte
		actual := split(data)
		for _, l := range actual {
			v, err := jsonv.Parse(l)
			if err != nil {
				t.Fatal(f, err)
			}
			golden = append(golden, z.Event(v).AppendJSON(nil))
		}
		sets = append(sets, [2][][]byte{golden, actual})
	}
	// Committed tolerant goldens with the traces they were taken from.
	goldens, _ := filepath.Glob("../../agents/cases/*.trace.jsonl")
	for _, g := range goldens {
		gd, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		z := NewNormalizer()
		var renorm [][]byte
		for _, l := range split(gd) {
			if v, err := jsonv.Parse(l); err == nil {
				renorm = append(renorm, z.Event(v).AppendJSON(nil))
			}
		}
		sets = append(sets, [2][][]byte{split(gd), renorm})
	}
	hand := [][2]string{
		{`{"a":"[X]","b":"[X]","c":"[Y]"}`, `{"a":1,"b":1,"c":1}`},
		{`{"a":"[X]","b":"[Y]"}`, `{"a":"p","b":"p"}`},
		{`{"a":"[X]"}`, `{"a":{"k":[1,2.50,"s"]}}`},
		{`{"a":"[X]"}`, `{"a":{"k":[1,2.5,"s"]}}`},
		{`{"a":"[X]"}`, `{"a":"x\"y"}`},
		{`{"a":"[X]"}`, `{"a":-0}`},
		{`{"a":"[X]"}`, `{"a":0}`},
		{`{"t":"[TIMESTAMP]","d":"[DURATION]","u":"[UUID]","g":"run-[..]-x"}`, `{"t":"2026-01-02T03:04:05Z","d":1.5,"u":"0b6f9a1e-2f2e-4c1e-9a53-6f3c2d1e0f00","g":"run-7-x"}`},
		{`{"t":"[TIMESTAMP]"}`, `{"t":"2026-01-02T03:04:05.5+01:00"}`},
		{`{"t":"[TIMESTAMP]"}`, `{"t":"yesterday"}`},
		{`{"d":"[DURATION]"}`, `{"d":-1}`},
		{`{"d":"[DURATION]"}`, `{"d":"1"}`},
		{`{"d":"[DURATION]"}`, `{"d":-0}`},
		{`{"a":"{...}"}`, `{"a":[1,{"b":null}]}`},
		{`{"a":"{...}","...":"{...}"}`, `{"a":1,"z":2}`},
		{`{"a":[1,"...",3]}`, `{"a":[1,2,3]}`},
		{`{"a":"...","b":1}`, `{"a":"...","b":1}`},
		{`{"a":"\\[X]"}`, `{"a":"[X]"}`},
		{`{"a":"x","b":2}`, `{"b":2,"a":"x"}`},
		{`{"a":"x"}`, `{"a":"\u0078"}`},
		{`{"a":1.0}`, `{"a":1.00}`},
		{`{"a":1.0}`, `{"a":1}`},
		{`{"a":[]}`, `{"a":[]}`},
		{`{"a":{}}`, `{"a":{}}`},
		{`{"a":{}}`, `{"a":{"b":1}}`},
		{`{"a/b~c":"[P]"}`, `{"a/b~c":"v"}`},
		{`{"a":["[E]","[E]"]}`, `{"a":["v","v"]}`},
		{`{"a":["[E]","[F]"]}`, `{"a":["v","w"]}`},
		{`{"a":"[F]"}`, `{"a":"w"}`},
		{`{"a":"[E]"}`, `{"a":"w"}`},
		{`{"a":true,"b":null,"c":false}`, `{"a":true,"b":null,"c":false}`},
		{`{"a":true}`, `{"a":truex}`},
		{`{"a":12}`, `{"a":123}`},
		{`{"a":"[X]"} `, `{"a":"p"}`},
		{`{"a": "[X]"}`, `{"a":"p"}`},
		{`{"a": "[X]", "b" : 1}`, `{"a": "v", "b" : 1}`},
		{`{"time\u0073tamp":"[TIMESTAMP]","k":"[K]"}`, `{"time\u0073tamp":"2026-01-02T03:04:05Z","k":"z"}`},
		{`{"a":"x\ny","b":"[X2]"}`, `{"a":"x\ny","b":"v2"}`},
		{`{"a":"\u005bID-9]"}`, `{"a":"q9"}`},
		{`{"a":"\\x"}`, `{"a":"\\x"}`},
		{`{"a":"\\[Y]"}`, `{"a":"[\u0059]"}`},
		{`{"a":["[E3]",{"b~/c":"[E4]"}]}`, `{"a":[{"x":1},{"b~/c":[2]}]}`},
		{`{"a":"[E3]"}`, `{"a":{"x":1}}`},
		{`{"a":"[E3]"}`, `{"a":{"x": 1}}`},
		{`{"g":"a[..]b"}`, `{"g":"a\u0041b"}`},
		{`{"...":1,"k":"[K9]"}`, `{"...":1,"k":"v9"}`},
		{`{"...":"[K10]"}`, `{"...":"v10"}`},
		{`{"x":{"...":"{...}"}}`, `{"x":{"a":1}}`},
	}
	var hg, ha [][]byte
	for _, h := range hand {
		hg, ha = append(hg, []byte(h[0])), append(ha, []byte(h[1]))
	}
	sets = append(sets, [2][][]byte{hg, ha})
	return sets
}

// mutateLine changes an actual line the way a later run would: another
// id, timestamp or number, a member gone or moved, a byte changed.
func mutateLine(r *rand.Rand, l []byte) []byte {
	b := append([]byte(nil), l...)
	switch r.IntN(6) {
	case 0: // another digit
		for k := 0; k < 4; k++ {
			if i := r.IntN(len(b)); b[i] >= '0' && b[i] <= '9' {
				b[i] = '0' + byte(r.IntN(10))
				return b
			}
		}
	case 1: // another letter in a string
		if i := r.IntN(len(b)); b[i] >= 'a' && b[i] <= 'z' {
			b[i] = 'a' + byte(r.IntN(26))
		}
	case 2: // a member's value replaced by another kind
		if i := bytes.Index(b, []byte(`":"`)); i >= 0 {
			return append(b[:i+2], append([]byte(`17,"zz":"`), b[i+3:]...)...)
		}
	case 3: // white space
		if i := bytes.IndexByte(b, ','); i >= 0 {
			return append(b[:i+1], append([]byte(" "), b[i+1:]...)...)
		}
	case 4: // an escape
		if i := bytes.Index(b, []byte(`":"`)); i >= 0 && i+4 < len(b) && b[i+3] >= 'a' && b[i+3] <= 'z' {
			return append(b[:i+3], append([]byte(`\u00`+strings.ToLower(string("0123456789abcdef"[b[i+3]>>4]))+string("0123456789abcdef"[b[i+3]&15])), b[i+4:]...)...)
		}
	}
	return b
}

func TestMatchTextMatchesMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	fast := 0
	for si, set := range textCorpus(t) {
		golden, actual := set[0], set[1]
		for round := 0; round < 6; round++ {
			mt, mm := NewMatcher(true), NewMatcher(true)
			for i := range golden {
				if i >= len(actual) {
					break
				}
				a := actual[i]
				if round > 0 && r.IntN(3) == 0 {
					a = mutateLine(r, a)
				}
				if round == 5 {
					a = actual[r.IntN(len(actual))]
				}
				ev, eerr := jsonv.Parse(golden[i])
				av, aerr := jsonv.Parse(a)
				if eerr != nil {
					t.Fatalf("set %d line %d: golden: %v", si, i, eerr)
				}
				mt.Line, mm.Line = i+1, i+1
				ok, ts := mt.MatchText(golden[i], a)
				if ok && aerr != nil {
					continue // an invalid actual line: what anything says is void
				}
				if aerr != nil {
					continue
				}
				if ok {
					fast++
					if et, _ := ev.Get("timestamp"); et.Kind() == jsonv.String && et.Text() == TimestampToken {
						at, _ := av.Get("timestamp")
						if ts != at.Text() {
							t.Fatalf("set %d line %d: timestamp %q, want %q", si, i, ts, at.Text())
						}
					} else if ts != "" {
						t.Fatalf("set %d line %d: timestamp %q without [TIMESTAMP]", si, i, ts)
					}
				} else {
					mt.Match("", ev, av, nil, 0)
				}
				_, n := mm.Match("", ev, av, nil, 0)
				if ok && n != 0 {
					t.Fatalf("set %d line %d: MatchText matched %s against %s; Match finds %d mismatches", si, i, golden[i], a, n)
				}
				if got, want := dumpBindings(mt), dumpBindings(mm); !reflect.DeepEqual(got, want) {
					t.Fatalf("set %d line %d (%s against %s, fast %v): bindings differ:\n%v\n%v", si, i, golden[i], a, ok, got, want)
				}
			}
		}
	}
	if fast < 100 {
		t.Fatalf("MatchText matched only %d lines", fast)
	}
	t.Logf("%d lines matched by MatchText", fast)
}

// lookup is the record bound to name, or -1; lookupV the record whose
// value is canon.
func lookup(s *bindings, name []byte) int   { i, _ := s.lookupName(name); return i }
func lookupV(s *bindings, canon []byte) int { i, _, _ := s.lookupVal(canon); return i }

// dumpBindings lists a matcher's bindings in order, each found again by
// name and by value.
func dumpBindings(m *Matcher) []string {
	var out []string
	for i := 0; i < m.binds.n; i++ {
		name, canon, ptr := m.binds.bytes(i)
		out = append(out, fmt.Sprintf("%s=%s@%d%s n%d v%d", name, canon, m.binds.line(i), ptr, lookup(&m.binds, name), lookupV(&m.binds, canon)))
	}
	return out
}
