package reducer

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Fingerprint returns the SHA-256 hex digest of events as one canonical
// JSON array: the digest the reference computes for a replayed prefix.
func Fingerprint(events []journal.Event) string {
	vals := make([]jsonv.Value, len(events))
	for i := range events {
		vals[i] = events[i].Value()
	}
	return FingerprintValues(vals)
}

// FingerprintValues is Fingerprint over events as parsed.
func FingerprintValues(vals []jsonv.Value) string {
	h := NewHasher(false)
	for _, v := range vals {
		h.Add(v)
	}
	return h.Sum()
}

// NormalizedFingerprint hashes events with session_id, timestamp and
// provenance.run_id removed, so two real runs of the same scenario can be
// compared; it matches the reference labs' normalized fingerprint.
func NormalizedFingerprint(vals []jsonv.Value) string {
	h := NewHasher(true)
	for _, v := range vals {
		h.Add(v)
	}
	return h.Sum()
}

// Hasher computes a fingerprint incrementally, one event at a time.
type Hasher struct {
	normalized bool
	h          interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	n   int
	buf []byte
}

// NewHasher returns a Hasher; normalized drops the volatile fields first.
func NewHasher(normalized bool) *Hasher {
	h := sha256.New()
	h.Write([]byte{'['})
	return &Hasher{normalized: normalized, h: h}
}

// Add hashes the next event.
func (h *Hasher) Add(v jsonv.Value) {
	if h.normalized {
		v = Normalize(v)
	}
	h.buf = v.AppendCanonical(h.buf[:0])
	h.AddCanonical(h.buf)
}

// AddCanonical hashes the next event given its canonical encoding.
func (h *Hasher) AddCanonical(canonical []byte) {
	if h.n > 0 {
		h.h.Write([]byte{','})
	}
	h.n++
	h.h.Write(canonical)
}

// Sum closes the array and returns its digest; call it once, after the
// last Add.
func (h *Hasher) Sum() string {
	h.h.Write([]byte{']'})
	return hex.EncodeToString(h.h.Sum(nil))
}

// Normalize drops session_id, timestamp and provenance.run_id from an
// event. A missing provenance becomes {} as in the reference.
func Normalize(v jsonv.Value) jsonv.Value {
	v = v.Without("session_id").Without("timestamp")
	prov, ok := v.Get("provenance")
	if !ok || prov.Kind() != jsonv.Object {
		prov = jsonv.Obj()
	}
	return v.With("provenance", prov.Without("run_id"))
}
