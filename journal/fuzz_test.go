package journal_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
)

// addFixtures seeds a fuzz target with every good and bad trace fixture.
func addFixtures(f *testing.F) {
	for _, dir := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join(testdata, dir, "*.jsonl"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// FuzzValidate: Validate never panics, every error names a line inside the
// input, and Validate and Read agree on single-run input.
func FuzzValidate(f *testing.F) {
	addFixtures(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := journal.Validate(bytes.NewReader(data), "fuzz")
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range errs {
			if e.Line < 0 || e.Line > lines || e.Code == "" || e.Msg == "" || e.File != "fuzz" {
				t.Fatalf("malformed error %#v for %d lines", e, lines)
			}
		}
		j, err := journal.Read(bytes.NewReader(data), "fuzz")
		if err == nil {
			if len(errs) != 0 {
				t.Fatalf("Read accepted what Validate rejected: %v", errs)
			}
			// An accepted journal re-encodes to input that is accepted again
			// with the same events.
			again, err := journal.Read(bytes.NewReader(journal.EncodeGolden(j.Events())), "again")
			if err != nil || again.Len() != j.Len() {
				t.Fatalf("re-encoded journal rejected: %v", err)
			}
		} else {
			var je *journal.Error
			if !errors.As(err, &je) {
				t.Fatalf("Read returned %T %v, want *journal.Error", err, err)
			}
		}
	})
}

// FuzzReader: lines come back in order with exact offsets, and together
// they are the input.
func FuzzReader(f *testing.F) {
	addFixtures(f)
	f.Add([]byte("a\n\nb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := journal.NewReader(bytes.NewReader(data))
		r.SetMaxLineBytes(64)
		var rebuilt []byte
		num := 0
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, &journal.Error{Code: journal.LineTooLong}) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			num++
			if l.Num != num || l.Offset != int64(len(rebuilt)) {
				t.Fatalf("line %d at %d, want %d at %d", l.Num, l.Offset, num, len(rebuilt))
			}
			rebuilt = append(rebuilt, l.Raw...)
			if !l.Torn {
				rebuilt = append(rebuilt, '\n')
			}
			if l.End() != int64(len(rebuilt)) {
				t.Fatalf("End %d, want %d", l.End(), len(rebuilt))
			}
		}
		if !bytes.Equal(rebuilt, data) {
			t.Fatalf("lines do not rebuild the input")
		}
	})
}
