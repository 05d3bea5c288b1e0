package scenarios

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzParseAndRender: whatever a scenario file holds, Parse and Render
// return an error or a result, never panic. Seeds are the built-in
// scenario files.
func FuzzParseAndRender(f *testing.F) {
	names, err := fs.Glob(embedded, "*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		data, err := fs.ReadFile(embedded, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("f.json", data)
		if err != nil || len(sc.Resumes) > 0 || strings.Contains(string(data), `"max_turns"`) {
			return // resumes go through a store on disk; large turn limits only take time
		}
		if r, err := Render(sc); err == nil {
			Check(r)
		}
	})
}
