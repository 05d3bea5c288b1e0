package tracediff

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// BenchmarkDiff200k diffs two generated 200,000-event traces (bench/tracegen,
// about 129 MB each) read from files: identical, with a change every 1,000
// events, and a tolerant golden (Normalize of the first) against the trace.
// MB/s counts the bytes of both files. Figures: BENCHMARKS.md.
func BenchmarkDiff200k(b *testing.B) {
	const events = 200000
	exp, act := genPair(b, events, 1000)
	dir := b.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}
	expPath, actPath := write("expected.jsonl", exp), write("actual.jsonl", act)
	var golden bytes.Buffer
	if problems, err := Normalize(Input{"e", bytes.NewReader(exp)}, &golden); err != nil || problems != nil {
		b.Fatal(err, problems)
	}
	goldenPath := write("golden.jsonl", golden.Bytes())
	run := func(b *testing.B, e, a string, opt Options, want int) {
		st1, _ := os.Stat(e)
		st2, _ := os.Stat(a)
		b.SetBytes(st1.Size() + st2.Size())
		b.ReportAllocs()
		for b.Loop() {
			ef, err := os.Open(e)
			if err != nil {
				b.Fatal(err)
			}
			af, err := os.Open(a)
			if err != nil {
				b.Fatal(err)
			}
			r := Diff(Input{e, ef}, Input{a, af}, opt)
			ef.Close()
			af.Close()
			if r.Invalid() || r.Differences != want {
				b.Fatalf("differences %d (want %d), problems %v %v", r.Differences, want, r.Expected.Problems, r.Actual.Problems)
			}
		}
	}
	b.Run("same", func(b *testing.B) { run(b, expPath, expPath, Options{}, 0) })
	b.Run("changes", func(b *testing.B) { run(b, expPath, actPath, Options{}, events/1000-1) })
	b.Run("tolerant", func(b *testing.B) { run(b, goldenPath, expPath, Options{Tolerant: true}, 0) })
}

// BenchmarkGoldenLines is the golden side of a tolerant diff alone, on
// 20,000 generated events and their normalized golden held in memory:
// "lex" reads the golden's lines as a lexing source does
// (tolerant.Compiler.Lex), "match" matches each lexed line against its
// event (MatchHoles, the bindings made as in a diff), "prove" does both by
// comparing each golden line with its event member by member
// (tolerant.Compiler.Prove). MB/s counts the golden's bytes.
func BenchmarkGoldenLines(b *testing.B) {
	exp, _ := genPair(b, 20000, 0)
	var golden bytes.Buffer
	if problems, err := Normalize(Input{"e", bytes.NewReader(exp)}, &golden); err != nil || problems != nil {
		b.Fatal(err, problems)
	}
	gl := bytes.Split(bytes.TrimSuffix(golden.Bytes(), []byte("\n")), []byte("\n"))
	al := bytes.Split(bytes.TrimSuffix(exp, []byte("\n")), []byte("\n"))
	if len(gl) != len(al) {
		b.Fatalf("%d golden lines, %d events", len(gl), len(al))
	}
	var k tolerant.Compiler
	var key tolerant.LexKey
	holes := make([][]tolerant.Hole, len(gl))
	for i, l := range gl {
		var ok bool
		if holes[i], _, ok = k.Lex(nil, nil, l, &key); !ok {
			b.Fatalf("golden line %d not lexed", i+1)
		}
	}
	b.Run("lex", func(b *testing.B) {
		b.SetBytes(int64(golden.Len()))
		var hs []tolerant.Hole
		var ptrs []byte
		for b.Loop() {
			for _, l := range gl {
				hs, ptrs, _ = k.Lex(hs[:0], ptrs[:0], l, &key)
			}
		}
	})
	var sc journal.LineScanner
	members := make([][]journal.MemberSpan, len(al))
	for i, l := range al {
		var ok bool
		if members[i], ok = sc.Members(nil, l); !ok {
			b.Fatalf("event %d is not on the lean path", i+1)
		}
	}
	// each matches every golden line against its event with a fresh
	// Matcher, as a diff would.
	each := func(b *testing.B, fails string, match func(m *tolerant.Matcher, i int) bool) {
		b.SetBytes(int64(golden.Len()))
		for b.Loop() {
			m := tolerant.NewMatcher(true)
			for i := range gl {
				m.Line = i + 1
				if !match(m, i) {
					b.Fatalf("golden line %d %s", i+1, fails)
				}
			}
		}
	}
	b.Run("prove", func(b *testing.B) {
		each(b, "not proven", func(m *tolerant.Matcher, i int) bool {
			ok, _, _, _ := k.Prove(m, gl[i], al[i], members[i], &key)
			return ok
		})
	})
	b.Run("match", func(b *testing.B) {
		each(b, "does not match its event", func(m *tolerant.Matcher, i int) bool {
			ok, _, _ := m.MatchHoles(gl[i], holes[i], al[i])
			return ok
		})
	})
}
