package reducer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// EditCheckpoint rewrites the header of the checkpoint at path with edit
// and seals it again with a matching trailer, as a faulty writer would: the
// checks that come after the trailer's must catch what edit changed.
func EditCheckpoint(path string, edit func(*Checkpoint)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(data, []byte(checkpointMagic))
	if !ok || len(rest) < trailerLen {
		return fmt.Errorf("%s: not a checkpoint", path)
	}
	head, rest, _ := bytes.Cut(rest[:len(rest)-trailerLen], []byte("\n"))
	var c Checkpoint
	if err := json.Unmarshal(head, &c); err != nil {
		return err
	}
	if c.CheckerStateLen < 0 || c.CheckerStateLen >= int64(len(rest)) {
		return fmt.Errorf("%s: no checker state", path)
	}
	c.CheckerState = rest[:c.CheckerStateLen]
	items := rest[c.CheckerStateLen+1:]
	edit(&c)
	sum := sha256.Sum256(c.CheckerState)
	c.CheckerStateLen, c.CheckerStateSHA256 = int64(len(c.CheckerState)), hex.EncodeToString(sum[:])
	head, err = json.Marshal(&c)
	if err != nil {
		return err
	}
	head = append(head, '\n')
	out := append([]byte(checkpointMagic), head...)
	out = append(out, c.CheckerState...)
	out = append(out, '\n')
	out = append(out, items...)
	out = fmt.Appendf(out, "%s%x %x\n", trailerStart, sha256.Sum256(head), sha256.Sum256(items))
	return os.WriteFile(path, out, 0o600)
}
