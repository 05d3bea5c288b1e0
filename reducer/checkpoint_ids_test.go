package reducer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/bench/tracegen"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/reducer"
)

// eventIDs returns a line's event_id and parent_event_id.
func eventIDs(tb testing.TB, line []byte) (id, parent string) {
	tb.Helper()
	var ev struct {
		EventID string `json:"event_id"`
		Parent  string `json:"parent_event_id"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		tb.Fatal(err)
	}
	return ev.EventID, ev.Parent
}

// TestCheckpointIDStyles resumes from a checkpoint of 2,000 events for each
// id style: the checkpoint keeps the checker's id set encoded (a
// fingerprint per UUID, a range for counter ids), and the tail is checked
// against the prefix exactly, reading ids back from the journal where
// the encoding cannot say: a parent or a repeated id far back, one just
// before, one never written.
func TestCheckpointIDStyles(t *testing.T) {
	for _, style := range tracegen.IDStyles {
		t.Run(strings.ReplaceAll(style, "%", ""), func(t *testing.T) {
			full := tracegen.Bytes(tracegen.Options{Events: 2300, Seed: 3, IDs: style})
			ls := lines(full)
			prefix := bytes.Join(ls[:2000], nil)
			dir := t.TempDir()
			path, cp := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "cp")
			os.WriteFile(path, prefix, 0o644)
			replayFile(t, path, cp, reducer.StreamOptions{})

			far, _ := eventIDs(t, ls[5])
			near, _ := eventIDs(t, ls[1999])
			id, parent := eventIDs(t, ls[2000])
			withParent := func(p string) []byte {
				return bytes.Replace(ls[2000], []byte(`"parent_event_id":"`+parent+`"`), []byte(`"parent_event_id":"`+p+`"`), 1)
			}
			withID := func(x string) []byte {
				return bytes.Replace(ls[2000], []byte(`"event_id":"`+id+`"`), []byte(`"event_id":"`+x+`"`), 1)
			}
			for _, tc := range []struct {
				name string
				tail []byte
				code journal.Code // "" for a tail that is accepted
			}{
				{"the rest of the journal", bytes.Join(ls[2000:], nil), ""},
				{"a parent far back", append(withParent(far), bytes.Join(ls[2001:], nil)...), ""},
				{"the id of an event far back", withID(far), journal.DuplicateEventID},
				{"the id of the event before", withID(near), journal.DuplicateEventID},
				{"a parent never written", withParent("never-" + far), journal.ParentNotEarlier},
				{"its own id as parent", withParent(id), journal.ParentNotEarlier},
			} {
				data := append(bytes.Clone(prefix), tc.tail...)
				os.WriteFile(path, data, 0o644)
				if tc.code != "" {
					if err := resumeOnly(t, path, cp); !errors.Is(err, &journal.Error{Code: tc.code, Line: 2001}) {
						t.Errorf("%s: got %v, want %s on line 2001", tc.name, err, tc.code)
					}
					continue
				}
				p, note, err := reducer.ReplayFile(path, cp, reducer.StreamOptions{}, false)
				if !strings.Contains(note, "resumed from checkpoint at sequence 1999") {
					t.Fatalf("%s: note %q, err %v", tc.name, note, err)
				}
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if got := checkViews(t, p); got != fromZero(t, data, -1) {
					t.Errorf("%s: resumed replay differs from replay from zero", tc.name)
				}
				p.Close()
				// The refreshed checkpoint (a set decoded, then grown) is
				// used by the next replay and gives the same answer.
				p, note, err = reducer.ReplayFile(path, cp, reducer.StreamOptions{}, true)
				if err != nil || !strings.Contains(note, "resumed from checkpoint") {
					t.Fatalf("%s: after the refresh: %v, %q", tc.name, err, note)
				}
				p.Close()
				os.WriteFile(path, prefix, 0o644)
				replayFile(t, path, cp, reducer.StreamOptions{}) // a checkpoint of the prefix again (from zero: it is shorter)
			}
		})
	}
}

// resumeOnly replays the tail of path after the checkpoint cp, which must
// match it, and returns the replay's error.
func resumeOnly(tb testing.TB, path, cp string) error {
	tb.Helper()
	c, err := reducer.LoadCheckpoint(cp)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if err := c.Verify(f, fi.Size(), true); err != nil {
		tb.Fatal(err)
	}
	f.Seek(c.Offset, 0)
	p, err := reducer.StreamReplay(f, path, reducer.StreamOptions{From: c})
	if err == nil {
		p.Close()
	}
	return err
}
