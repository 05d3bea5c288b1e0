package term

import (
	"os"
	"path/filepath"
	"testing"
)

// Neither a pipe nor a regular file is a terminal, and neither can be put
// in key mode; review then asks for --accept or --reject.
func TestNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, x := range []*os.File{r, f} {
		if IsTerminal(x) {
			t.Errorf("%s is a terminal", x.Name())
		}
		if _, err := KeyMode(x); err == nil {
			t.Errorf("KeyMode(%s) succeeded", x.Name())
		}
	}
}
