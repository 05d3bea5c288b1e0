package journal

import (
	"math"
	"math/bits"
)

// Member is one of the envelope's top-level members, by its key.
type Member uint8

// The envelope's members, in the order of the presence bits of fast.go.
const (
	MemberTraceVersion Member = iota
	MemberEventID
	MemberSessionID
	MemberSequence
	MemberTimestamp
	MemberType
	MemberActor
	MemberPayload
	MemberProvenance
	MemberRedaction
	MemberParentEventID
	MemberDurationMS
	memberCount
)

var memberKeys = [memberCount]string{"trace_version", "event_id", "session_id", "sequence", "timestamp", "type",
	"actor", "payload", "provenance", "redaction", "parent_event_id", "duration_ms"}

// String returns the member's key.
func (m Member) String() string {
	if m < memberCount {
		return memberKeys[m]
	}
	return "?"
}

// MemberSpan is where one top-level member of an event line stands: its
// value as written is the line's bytes [Start, End).
type MemberSpan struct {
	Start, End int32
	Member     Member
}

// members is what the lean scanner found of a line's members, in line
// order; each member stands at most once.
type members struct {
	n     uint8
	long  bool // the line is past what the spans' offsets hold
	spans [memberCount]MemberSpan
}

// add notes the member of presence bit at line[vs:ve].
func (m *members) add(bit, vs, ve int) {
	if ve > math.MaxInt32 {
		m.long = true
	}
	if int(m.n) < len(m.spans) {
		m.spans[m.n] = MemberSpan{Start: int32(vs), End: int32(ve), Member: Member(bits.TrailingZeros(uint(bit)))}
		m.n++
	}
}

// list returns the spans, nil when there are none or they do not fit.
func (m *members) list() []MemberSpan {
	if m.long || m.n == 0 {
		return nil
	}
	return m.spans[:m.n]
}
