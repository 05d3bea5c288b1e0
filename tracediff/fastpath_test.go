package tracediff

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The fast paths (goldens compiled as they are read, actual lines matched
// as text and keyed from the expected line they meet) against the way
// without them: the same report, to the byte, tolerant and exact, on the
// test traces and their goldens against the traces with lines dropped,
// repeated, edited, respelled and moved to other runs.
func TestFastPathsMatchSlow(t *testing.T) {
	files, _ := filepath.Glob("../testdata/good/*.jsonl")
	agents, _ := filepath.Glob("../agents/cases/*.trace.jsonl")
	if len(files) == 0 {
		t.Fatal("no traces")
	}
	exp, _ := genPair(t, 3000, 0)
	r := rand.New(rand.NewPCG(22, 9))
	type src struct {
		name  string
		trace []byte
	}
	var srcs []src
	withDiffs := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src{f, b})
	}
	srcs = append(srcs, src{"gen", exp})
	edits := [][2]string{
		{`"session_id":"`, `"session_id":"x`}, {`"run_id":"`, `"run_id":"r`}, {`"timestamp":"2`, `"timestamp":"1`},
		{`"parent_event_id":"evt-0`, `"parent_event_id":"evt-1`}, {`"event_id":"`, `"event_id":"\u0065`},
		{`"sequence":`, `"sequence": `}, {`"payload":{`, `"payload":{"x":1,`}, {`"type":"`, `"type":"z`},
		{`"provenance":{`, `"provenance":{"run_id":"dup",`}, {`"session_id":"`, `"session_id":7,"q":"`},
	}
	for _, s := range srcs {
		var golden bytes.Buffer
		if probs, err := Normalize(Input{s.name, bytes.NewReader(s.trace)}, &golden); err != nil || probs != nil {
			t.Fatalf("%s: %v %v", s.name, err, probs)
		}
		goldens := [][]byte{golden.Bytes()}
		for _, a := range agents {
			if g, err := os.ReadFile(a); err == nil && s.name == files[0] {
				goldens = append(goldens, g)
			}
		}
		lines := bytes.SplitAfter(s.trace, []byte{'\n'})
		for round := 0; round < 12; round++ {
			var act bytes.Buffer
			for _, l := range lines {
				switch k := r.IntN(40); {
				case round == 0:
				case k == 0:
					continue
				case k == 1:
					act.Write(l)
				case k < 5:
					e := edits[r.IntN(len(edits))]
					l = bytes.Replace(l, []byte(e[0]), []byte(e[1]), 1)
				}
				act.Write(l)
			}
			type cmp struct {
				exp []byte
				opt Options
			}
			var cmps []cmp
			for _, g := range goldens {
				cmps = append(cmps, cmp{g, Options{Tolerant: true}}, cmp{g, Options{Tolerant: true, MaxEvents: 1000, MaxFields: 100}})
			}
			cmps = append(cmps, cmp{s.trace, Options{}}, cmp{s.trace, Options{Bytes: true, MaxEvents: 1000}}, cmp{s.trace, Options{NoValidate: true}})
			for _, cp := range cmps {
				{
					g, opt := cp.exp, cp.opt
					fast := DiffBytes(g, act.Bytes(), "g", "a", opt)
					slowPaths = true
					slow := DiffBytes(g, act.Bytes(), "g", "a", opt)
					slowPaths = false
					fj, _ := json.Marshal(fast)
					sj, _ := json.Marshal(slow)
					var ft, st bytes.Buffer
					fast.WriteText(&ft)
					slow.WriteText(&st)
					if !fast.Invalid() && fast.Differences > 0 {
						withDiffs++
					}
					if !bytes.Equal(fj, sj) || !bytes.Equal(ft.Bytes(), st.Bytes()) {
						t.Fatalf("%s round %d: fast and slow reports differ:\n%s\n---\n%s", s.name, round, ft.String(), st.String())
					}
				}
			}
		}
	}
	if withDiffs < 20 {
		t.Fatalf("only %d valid comparisons with differences", withDiffs)
	}
	t.Logf("%d valid comparisons with differences", withDiffs)
}
