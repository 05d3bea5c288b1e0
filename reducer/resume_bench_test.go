package reducer_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tracecheck/tracecheck/bench/sessiongen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/store"
	"github.com/tracecheck/tracecheck/reducer"
)

// benchSession is a generated long session with a checkpoint, shared by the
// sub-benchmarks of one size.
type benchSession struct {
	st    *store.Store
	id    string
	g     *sessionGen
	bytes int64
	runs  int
}

// newBenchSession writes a session of at least prior events directly in
// the golden layout (one run of agent turns, compacted as it goes), then
// checkpoints it: one read of the whole file.
func newBenchSession(b *testing.B, dir string, prior int, ids sessiongen.IDStyle) *benchSession {
	b.Helper()
	begin := time.Now()
	st, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := &benchSession{st: st, id: fmt.Sprintf("session-bench-%d-%d", prior, ids)}
	path, _ := st.Path(s.id)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	s.g = newSessionGen(s.id, func(e *journal.Event) {
		line = e.AppendGolden(line[:0])
		bw.Write(line)
		s.bytes += int64(len(line))
	})
	s.g.ids = ids
	s.g.start(b)
	for s.g.n < prior {
		s.g.turn(b, false)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	written := time.Since(begin)
	w, err := st.OpenWriter(s.id, store.WriterOptions{CheckpointMinEvents: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := reducer.CheckpointSession(w, genConfig); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d events (%.1f MB) written in %v, checkpointed in %v", s.g.n, float64(s.bytes)/1e6, written.Round(time.Millisecond), (time.Since(begin) - written).Round(time.Millisecond))
	return s
}

// resume resumes the session once, as a new run with a user message:
// open the writer (from its checkpoint and the tail after it), rebuild the
// history (from the checkpoint's projection and the tail), append, close
// (which writes the next checkpoint).
func (s *benchSession) resume(b *testing.B) *reducer.Resumed {
	s.runs++
	w, err := s.st.OpenWriter(s.id, store.WriterOptions{CheckpointMinEvents: 1})
	if err != nil {
		b.Fatal(err)
	}
	res, err := reducer.ResumeWriter(w, reducer.ResumeOptions{RunID: fmt.Sprintf("run-b%d", s.runs), Message: "Carry on.",
		History: genConfig, Timestamp: fixedClock})
	if err != nil {
		b.Fatal(err)
	}
	if !w.OpenedFrom().Used || !res.Rebuilt.FromProjection {
		b.Fatalf("the resume did not start from the checkpoint: %+v, %+v", w.OpenedFrom(), res.Rebuilt)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkResumeAfter resumes a long session that has a checkpoint, after
// 1k and after 1M prior events, with evt-%03d event IDs (ids=ref) and with
// UUIDs (ids=uuid): the cost must not grow with the prior events (issues 5
// and 13: within 2x). tail=0 resumes right after the previous
// resume; tail=N first appends about N events (agent turns) with a writer
// that writes no checkpoint (CheckpointMinEvents -1; its tail receipt
// covers them, as it does for a writer killed after its appends), so the
// resume reads them (store state and history) after the checkpoint. Close
// rewrites the checkpoint only once the opens have read tail bytes
// amounting to a sixth of it, so an iteration pays the rewrite now and
// then, as a real resume does. The model-visible history stays bounded
// because the generated session compacts, as long sessions do.
func BenchmarkResumeAfter(b *testing.B) {
	dir := b.TempDir()
	type key struct {
		prior int
		ids   sessiongen.IDStyle
	}
	sessions := map[key]*benchSession{}
	for _, tail := range []int{0, 100} {
		for _, ids := range []string{"ref", "padded", "uuid"} {
			for _, prior := range []int{1_000, 1_000_000} {
				name := fmt.Sprintf("tail=%d/ids=%s/prior=%s", tail, ids, map[int]string{1_000: "1k", 1_000_000: "1M"}[prior])
				b.Run(name, func(b *testing.B) {
					k := key{prior, map[string]sessiongen.IDStyle{"ref": sessiongen.RefIDs, "padded": sessiongen.PaddedIDs, "uuid": sessiongen.UUIDIDs}[ids]}
					s := sessions[k]
					if s == nil {
						s = newBenchSession(b, dir, prior, k.ids)
						sessions[k] = s
					}
					b.ResetTimer()
					for range b.N {
						if tail > 0 {
							b.StopTimer()
							appendTurns(b, s.st, s.g, tail/7, false, true)
							b.StartTimer()
						}
						res := s.resume(b)
						b.StopTimer()
						for i := range res.Appended {
							s.g.observe(b, &res.Appended[i])
						}
						b.StartTimer()
					}
				})
			}
		}
	}
}

// BenchmarkResumePaired is BenchmarkResumeAfter's comparison made robust
// to a shared, noisy machine: each iteration resumes the session after 1k
// events and the one after 1M in turn (same ID style, same tail), and the
// figure is the median of the per-pair ratios (ratio-1M/1k), as a whole-
// process A/B tool pairs its runs, with each side's median time (ms-1k,
// ms-1M). ns/op is the pair's.
func BenchmarkResumePaired(b *testing.B) {
	dir := b.TempDir()
	sessions := map[sessiongen.IDStyle][2]*benchSession{}
	for _, tail := range []int{0, 100} {
		for _, ids := range []string{"ref", "padded", "uuid"} {
			b.Run(fmt.Sprintf("tail=%d/ids=%s", tail, ids), func(b *testing.B) {
				style := map[string]sessiongen.IDStyle{"ref": sessiongen.RefIDs, "padded": sessiongen.PaddedIDs, "uuid": sessiongen.UUIDIDs}[ids]
				pair, ok := sessions[style]
				if !ok {
					pair = [2]*benchSession{newBenchSession(b, dir, 1_000, style), newBenchSession(b, dir, 1_000_000, style)}
					sessions[style] = pair
				}
				var took [2][]float64
				var ratios []float64
				b.ResetTimer()
				for range b.N {
					var d [2]time.Duration
					for i, s := range pair {
						b.StopTimer()
						if tail > 0 {
							appendTurns(b, s.st, s.g, tail/7, false, true)
						}
						b.StartTimer()
						start := time.Now()
						res := s.resume(b)
						d[i] = time.Since(start)
						b.StopTimer()
						for j := range res.Appended {
							s.g.observe(b, &res.Appended[j])
						}
						b.StartTimer()
					}
					took[0], took[1] = append(took[0], float64(d[0])/1e6), append(took[1], float64(d[1])/1e6)
					ratios = append(ratios, float64(d[1])/float64(d[0]))
				}
				b.ReportMetric(median(took[0]), "ms-1k")
				b.ReportMetric(median(took[1]), "ms-1M")
				b.ReportMetric(median(ratios), "ratio-1M/1k")
			})
		}
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
