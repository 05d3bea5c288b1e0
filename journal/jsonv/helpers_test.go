package jsonv

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const goldenGlob = "/work/shared/reference/golden/*.jsonl"

// goldenLines returns every line of the reference golden journals.
func goldenLines(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(goldenGlob)
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Skipf("no golden journals match %s", goldenGlob)
	}
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		if err := sc.Err(); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
	}
	return lines
}

// mustParse parses src or fails the test.
func mustParse(tb testing.TB, src []byte) Value {
	tb.Helper()
	v, err := Parse(src)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", clip(src), err)
	}
	return v
}

// syntaxErr unwraps a *SyntaxError or fails the test.
func syntaxErr(tb testing.TB, err error) *SyntaxError {
	tb.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		tb.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
	}
	return se
}

// canonical runs a fresh Canonicalizer over src.
func canonical(src []byte) ([]byte, error) {
	var c Canonicalizer
	return c.Append(nil, src)
}

// clip shortens long inputs in failure messages.
func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(append(b[:100:100], "..."...), b[len(b)-50:]...)
	}
	return b
}
