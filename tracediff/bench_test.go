package tracediff

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
