package jsonv

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// referenceGlobs find the reference traces, which live outside the
// repository in ../shared (beside the checkout, as in CI): the five golden
// traces and the later lessons' traces. The paths are relative to this
// package's directory, as go test runs it.
var referenceGlobs = []string{
	"../../../shared/reference/golden/*.jsonl",
	"../../../shared/reference/lessons-s04-s13/*.jsonl",
}

// goldenLines returns every line of the reference traces; the test is
// skipped, saying where it looked, when ../shared is absent.
func goldenLines(tb testing.TB) [][]byte {
	tb.Helper()
	var files []string
	for _, g := range referenceGlobs {
		m, err := filepath.Glob(g)
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Skipf("SKIPPED: ../shared not found: no reference traces match %v", referenceGlobs)
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

// The reference lookup is relative to the checkout (not a machine path) and
// reads both reference directories: every trace of both is in goldenLines.
func TestGoldenLinesReadsBothReferenceDirs(t *testing.T) {
	var want int
	for _, g := range referenceGlobs {
		files, _ := filepath.Glob(g)
		if len(files) == 0 {
			t.Skipf("SKIPPED: ../shared not found: nothing matches %s", g)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want += bytes.Count(data, []byte{'\n'})
		}
	}
	if got := len(goldenLines(t)); got != want {
		t.Errorf("goldenLines returned %d lines, the reference directories hold %d", got, want)
	}
}
