package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// The event-ID index survives encode and readBinary whatever the IDs
// look like: every ID is found again at its line, with its offset once
// read back from the file, and IDs one padding or one byte off are not.
func TestIDIndexBinary(t *testing.T) {
	for _, ids := range [][]string{
		{"evt-000"},
		{"evt-063", "evt-064", "evt-127", "evt-128"},
		{"a", "evt-01", "evt-0001", "evt-999999999999", `q"uote`, `back\slash`, "é"},
		uuids(3000),
	} {
		for k := 200; k < 1000; k++ { // a long counter range
			if k%97 != 0 {
				ids = append(ids, fmt.Sprintf("evt-%03d", k))
			}
		}
		var file []byte
		s := newState("s")
		for i, id := range ids {
			off := int64(len(file))
			file = append(file, eventLine(id, i)...)
			if err := s.ids.add(s, id, off); err != nil {
				t.Fatal(err)
			}
		}
		s.src = bytes.NewReader(file)
		enc, err := s.ids.encode()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := enc.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		r := newState("s")
		r.src = bytes.NewReader(file)
		if err := r.ids.readBinary(r, b.Bytes()); err != nil {
			t.Fatal(err)
		}
		if r.ids.len() != len(ids) {
			t.Fatalf("%d IDs after, %d before", r.ids.len(), len(ids))
		}
		for i, id := range ids {
			line, off, found, err := r.ids.lookup(id)
			if err != nil || !found || line != i+1 {
				t.Fatalf("%s: line %d, found %v, %v; want line %d", id, line, found, err, i+1)
			}
			if off >= 0 && !bytes.HasPrefix(file[off:], eventLine(id, i)) {
				t.Fatalf("%s: offset %d is not its line's", id, off)
			}
			for _, other := range []string{id + "0", "x" + id, strings.ToUpper(id)} {
				if other == id || slices.Contains(ids, other) {
					continue
				}
				if found, err := r.ids.has(other); err != nil || found {
					t.Fatalf("%s: found %v, %v", other, found, err)
				}
			}
		}
		s.ids.close()
		r.ids.close()
	}
}

// uuids returns n distinct UUID-shaped IDs.
func uuids(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761%(1<<32), i)
	}
	return ids
}

// eventLine is an event line of session s holding id, with its newline.
func eventLine(id string, seq int) []byte {
	e := journal.Event{TraceVersion: journal.TraceVersion, EventID: id, SessionID: "s", Sequence: int64(seq),
		Timestamp: "2026-08-10T00:00:00Z", Type: "user.message", Actor: journal.Actor{Kind: "user", ID: "user"},
		Payload:    jsonv.Obj(jsonv.M("content", jsonv.Str("hi"))),
		Provenance: journal.Provenance{AgentID: "a", SnapshotID: "s", Surface: "sdk", HarnessMode: "fake", RunID: "run-1"},
		Redaction:  journal.CleanRedaction()}
	return append(e.Value().AppendJSON(nil), '\n')
}
