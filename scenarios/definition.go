package scenarios

import (
	"os"
	"path"
)

// Definition returns the bytes of the file sc was read from in s: what
// defines it (the shards of a sharded verify hash it, to know they ran the
// same suite).
func (s Source) Definition(sc *Scenario) ([]byte, error) {
	if s.Embedded() {
		return embedded.ReadFile(path.Base(sc.File))
	}
	return os.ReadFile(sc.File)
}
