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
func FingerprintValues(vals []jsonv.Value) string { return fingerprint(vals, false) }

// NormalizedFingerprint hashes events with session_id, timestamp and
// provenance.run_id removed (journal.Normalize), so two real runs of the
// same scenario can be compared; it matches the reference labs' normalized
// fingerprint.
func NormalizedFingerprint(vals []jsonv.Value) string { return fingerprint(vals, true) }

// fingerprint hashes the canonical array of vals, normalizing each first
// when normalized is set.
func fingerprint(vals []jsonv.Value, normalized bool) string {
	h := sha256.New()
	buf := []byte{'['}
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if normalized {
			v = journal.Normalize(v)
		}
		buf = v.AppendCanonical(buf)
		h.Write(buf)
		buf = buf[:0]
	}
	h.Write(append(buf, ']'))
	return hex.EncodeToString(h.Sum(nil))
}
