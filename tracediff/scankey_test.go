package tracediff

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// slowScanKey is scanKey without its shortcut.
func slowScanKey(line []byte, prev *key) (key, bool) {
	kr := keyReader{line: line, prev: prev}
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return key{}, false
	}
	end := members(line, i, kr.member)
	if end < 0 || !kr.haveSeq || ws(line, end) != len(line) {
		return key{}, false
	}
	return kr.k, true
}

// On valid lines scanKey's shortcut reads the key the whole walk reads.
func TestScanKeyFastMatchesWalk(t *testing.T) {
	files, _ := filepath.Glob("../testdata/good/*.jsonl")
	var lines [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte{'\n'})...)
	}
	exp, _ := genPair(t, 2000, 0)
	lines = append(lines, bytes.Split(exp, []byte{'\n'})...)
	r := rand.New(rand.NewPCG(22, 10))
	inserts := []string{
		`"payload":{"provenance":{"run_id":"nested"},`, `"payload":{"t":"\"provenance\":{\"run_id\":\"s\"}",`,
		`"payload":{"t":"\\\\","provenance":{"run_id":"n2"},`, `"payload":{"x":[{"provenance":{}}],`,
	}
	fast, n := 0, 0
	var pc provCache // across lines, as a source keeps it
	for _, l := range lines {
		for k := 0; k < 8; k++ {
			m := l
			switch k {
			case 1, 2, 3, 4:
				m = bytes.Replace(l, []byte(`"payload":{`), []byte(inserts[k-1]), 1)
			case 6:
				m = bytes.Replace(l, []byte(`"run_id":"`), []byte(`"run_id":"z`), 1)
			case 7:
				m = bytes.Replace(l, []byte(`"provenance":{`), []byte(`"provenance":{"x":1,`), 1)
			case 5:
				// provenance moved to the front, or gone
				if r.IntN(2) == 0 {
					m = bytes.Replace(l, []byte(`"provenance":`), []byte(`"provenancX":`), 1)
				} else {
					m = bytes.Replace(l, []byte(`"session_id":`), []byte(`"session_iX":`), 1)
				}
			}
			if _, err := jsonv.Parse(m); err != nil || len(bytes.TrimSpace(m)) == 0 {
				continue
			}
			n++
			var p1, p2 key
			got, gok := scanKeyFast(m, &p1, &pc)
			want, wok := slowScanKey(m, &p2)
			if gok {
				fast++
				if !wok || got != want {
					t.Fatalf("%s: fast %+v, walk %+v %v", m, got, want, wok)
				}
			}
			if g, ok := scanKey(m, &p1, &pc); ok != wok || g != want {
				t.Fatalf("%s: scanKey %+v %v, walk %+v %v", m, g, ok, want, wok)
			}
		}
	}
	if fast < n/2 || !strings.Contains(string(exp), "provenance") {
		t.Fatalf("the shortcut read %d of %d lines", fast, n)
	}
	t.Logf("the shortcut read %d of %d valid lines", fast, n)
}
