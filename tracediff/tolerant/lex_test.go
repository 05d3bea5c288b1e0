package tolerant

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// goldenLines are tolerant golden lines: MatchText's corpus (the test
// traces normalized, the committed goldens, lines by hand) and lines that
// Lex must read as Check does or give up on.
func goldenLines(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, set := range textCorpus(t) {
		out = append(out, set[0]...)
	}
	for _, l := range []string{
		`{"a":"[X]","b":["[Y]",{"c/d~e":"[TIMESTAMP]"}],"sequence":3,"session_id":"[S]","provenance":{"run_id":"[R]"}}`,
		` { "timestamp" : "[TIMESTAMP]" , "x" : [ "[DURATION]" , "{...}" ] } `,
		`{"a":"\u005bX]","b":"\\[X]","c":"x\ny","d":"[..]z"}`,
		`{"a":["...","[X]"]}`,
		`{"a":{"...":"{...}"},"b":"[X]"}`,
		`{"a":"[X]""b":1}`,
		`{"a":"[X]"`,
		`{"a\u0062":"[X]"}`,
		`{"":"[X]"}`,
		`["[X]"]`,
		`{"a":"[X]"]`,
	} {
		out = append(out, []byte(l))
	}
	return out
}

func holesText(hs []Hole) string {
	var b bytes.Buffer
	for _, h := range hs {
		fmt.Fprintf(&b, "%d-%d %d %q %q %v; ", h.Start, h.End, h.Kind, h.Arg, h.Ptr, h.Timestamp)
	}
	return b.String()
}

// On every line Check compiles, Lex gives up or finds the same holes, the
// first time a line's top-level objects are met and when they repeat.
func TestLexAsCheck(t *testing.T) {
	lines := goldenLines(t)
	r := rand.New(rand.NewPCG(3, 11))
	for i, n := 0, len(lines); i < n; i++ {
		l := lines[i]
		if len(l) < 2 {
			continue
		}
		for k := 0; k < 4; k++ { // broken copies
			m := bytes.Clone(l)
			m[r.IntN(len(m))] = `"\,:{}[] x`[r.IntN(10)]
			lines = append(lines, m)
		}
	}
	var ck, lx Compiler
	lexed := 0
	for _, l := range lines {
		want, _, compiled, err := ck.Check(nil, nil, l)
		for pass := 0; pass < 2; pass++ {
			var key LexKey
			got, _, ok := lx.Lex(nil, nil, l, &key)
			if !ok || err != nil || !compiled {
				continue
			}
			lexed++
			if holesText(got) != holesText(want) {
				t.Fatalf("%s (pass %d):\nLex   %s\nCheck %s", l, pass, holesText(got), holesText(want))
			}
		}
	}
	if lexed < len(lines)/4 {
		t.Fatalf("only %d of %d lines lexed", lexed, len(lines))
	}
}

func TestLexKey(t *testing.T) {
	var k Compiler
	for _, c := range []struct{ line, seq, session, run string }{
		{`{"sequence":12,"session_id":"[S]","provenance":{"x":{"run_id":"no"},"run_id":"r-1"}}`, "12", `"[S]"`, `"r-1"`},
		{`{"provenance":{"run_id":"r"},"session_id":"s","sequence":0}`, "0", `"s"`, `"r"`},
		{`{"sequence":1,"provenance":"p","x":{"session_id":"no"}}`, "1", "", ""},
		{`{"sequence":1.5,"session_id":{"a":1},"provenance":{"run_id":["x"]}}`, "1.5", "{", "["},
	} {
		var key LexKey
		if _, _, ok := k.Lex(nil, nil, []byte(c.line), &key); !ok {
			t.Fatalf("%s: not lexed", c.line)
		}
		if string(key.Sequence) != c.seq || string(key.SessionID) != c.session || string(key.RunID) != c.run {
			t.Fatalf("%s: key %q %q %q", c.line, key.Sequence, key.SessionID, key.RunID)
		}
	}
}

// quoteEnd finds the end of a string as jsonv.StringEnd does, and reports
// a '[' in a plain string's content wherever it stands in the 8-byte words
// it reads: before the closing quote in the same word, in an earlier word,
// in the tail; a '[' after the quote is not the string's.
func TestQuoteEndBracket(t *testing.T) {
	contents := []string{"", "a", "[", "abcdefg[", "abcdefgh", "abcdefgh[", "[abcdefghijklmno", "abcdefghijklmn[",
		`a\"b[`, `[\n`, "x\"[", "日本[語", "{...}", "[ID-12]"}
	for _, c := range contents {
		for pad := 0; pad < 9; pad++ {
			for _, after := range []string{`"`, `"[`, `","[X]"`, `"]]]]]]]]]`} {
				line := []byte(`"` + c + after)
				line = append(bytes.Repeat([]byte{' '}, pad), line...)
				i := pad + 1
				end, esc, bracket := quoteEnd(line, i)
				wantEnd, wantEsc := stringEnd(line, i)
				if end != wantEnd || esc != wantEsc {
					t.Errorf("quoteEnd(%q, %d) = %d, %v; StringEnd: %d, %v", line, i, end, esc, wantEnd, wantEsc)
					continue
				}
				want := !esc && end <= len(line) && bytes.IndexByte(line[i:min(end, len(line))], '[') >= 0
				if end < len(line) && !esc && bracket != want {
					t.Errorf("quoteEnd(%q, %d): bracket %v, want %v", line, i, bracket, want)
				}
				if esc && bracket {
					t.Errorf("quoteEnd(%q, %d): bracket reported for an escaped string", line, i)
				}
			}
		}
	}
}
