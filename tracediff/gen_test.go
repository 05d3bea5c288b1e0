package tracediff

import (
	"bytes"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
)

// genPair returns a generated trace of n events and a copy in which the
// payload of every event whose sequence is a multiple of every (but 0)
// holds one more member.
func genPair(tb testing.TB, n, every int) ([]byte, []byte) {
	tb.Helper()
	var exp, act bytes.Buffer
	g := tracegen.New(tracegen.Options{Events: n, Seed: 7})
	for seq := 0; ; seq++ {
		line := g.Next()
		if line == nil {
			break
		}
		exp.Write(line)
		if seq > 0 && every > 0 && seq%every == 0 {
			i := bytes.Index(line, []byte(`"payload":{`))
			if i < 0 {
				tb.Fatalf("line %d has no payload", seq)
			}
			i += len(`"payload":{`)
			mod := append(append(append([]byte{}, line[:i]...), `"injected":true`...), line[i:]...)
			if !bytes.HasPrefix(line[i:], []byte("}")) {
				mod = append(append(append([]byte{}, line[:i]...), `"injected":true,`...), line[i:]...)
			}
			act.Write(mod)
			continue
		}
		act.Write(line)
	}
	return exp.Bytes(), act.Bytes()
}
