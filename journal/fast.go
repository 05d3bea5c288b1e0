package journal

// The fast envelope check.
//
// schema/trace-event.schema.json is the single source of truth for what an
// event may look like, and the JSON Schema library explains every rejection.
// But the library needs the event as map[string]any and walks it generically,
// which runs at about 20 MB/s; the Trace envelope is fixed, so this file
// checks it by hand. The rules below accept exactly what the schema, compiled
// by jsonschema v5 with format assertions on, accepts (and what FromValue can
// then read: a sequence must fit int64). When they reject, the caller runs the
// library to produce the explanation, so both paths always agree on the
// verdict and the library alone words the errors. fast_test.go proves the
// equivalence with a differential test and FuzzEnvelope.
//
// The rules take a string's text either decoded (from a jsonv.Value) or as
// written in canonical JSON without escapes. Both give the same verdicts: a
// string whose written form holds a backslash decodes to text with a quote,
// a backslash or a control character, which no const, enum, pattern or
// date-time below accepts, and "non-empty" and "equal" hold for the written
// form exactly when they hold for the decoded text.

import (
	"math"
	"strconv"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// eventTypes is the schema's enum of event types. Lookups return the
// package's own copy of the string, so a caller holding a type never keeps a
// line buffer alive.
var eventTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{
		"session.start", "session.stop", "session.replay", "session.branch",
		"user.message", "model.request", "model.response",
		"tool.request", "tool.result",
		"approval.request", "approval.decision",
		"sandbox.configure", "network.decision", "trust.decision",
		"instruction.accept", "instruction.quarantine",
		"checkpoint.create", "checkpoint.diff", "checkpoint.rollback",
		"file.patch", "context.prune", "context.compact",
		"memory.read", "memory.write", "skill.load",
		"agent.spawn", "agent.message", "agent.stop",
		"metric.sample", "error",
	} {
		m[t] = t
	}
	return m
}()

// internType returns the canonical copy of an event type, or false when t is
// not in the schema's enum.
func internType(t []byte) (string, bool) {
	s, ok := eventTypes[string(t)] // no allocation: the compiler looks up without converting
	return s, ok
}

func isActorKind(s string) bool {
	switch s {
	case "user", "model", "agent", "tool", "harness", "policy", "environment":
		return true
	}
	return false
}

func isHarnessMode(s string) bool {
	switch s {
	case "fake", "native", "controlled", "adversarial":
		return true
	}
	return false
}

func isRedactionStatus(s string) bool {
	switch s {
	case "clean", "redacted", "restricted":
		return true
	}
	return false
}

// isStableID matches ^[a-z0-9]+(?:-[a-z0-9]+)*$ (Go regexp semantics: $ is
// the end of the text).
func isStableID[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	prevDash := true // a leading dash is not allowed
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevDash = false
		case c == '-':
			if prevDash {
				return false
			}
			prevDash = true
		default:
			return false
		}
	}
	return !prevDash
}

// isDateTime is jsonschema v5's "date-time" format check: RFC 3339 with the
// library's reading of it (T or t, Z or z or ±hh:mm, a fraction of any
// length, a leap second only at 23:59:60 UTC, and strconv.Atoi's acceptance
// of a sign in a two-character field).
func isDateTime[T string | []byte](s T) bool {
	if len(s) < 20 {
		return false
	}
	if s[10] != 'T' && s[10] != 't' {
		return false
	}
	return isFullDate(s[:10]) && isFullTime(s[11:])
}

// isFullDate is time.Parse("2006-01-02", s) == nil.
func isFullDate[T string | []byte](s T) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := int(s[8]-'0')*10 + int(s[9]-'0')
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= daysIn(month, year)
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// atoi2 is strconv.Atoi on a two-byte field: two digits, or a sign and a
// digit.
func atoi2[T string | []byte](s T) (int, bool) {
	a, b := s[0], s[1]
	if b < '0' || b > '9' {
		return 0, false
	}
	switch {
	case a >= '0' && a <= '9':
		return int(a-'0')*10 + int(b-'0'), true
	case a == '+':
		return int(b - '0'), true
	case a == '-':
		return -int(b - '0'), true
	}
	return 0, false
}

func inRange[T string | []byte](s T, lo, hi int) (int, bool) {
	n, ok := atoi2(s)
	return n, ok && n >= lo && n <= hi
}

// isFullTime is jsonschema v5's isTime.
func isFullTime[T string | []byte](s T) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := inRange(s[0:2], 0, 23)
	m, ok2 := inRange(s[3:5], 0, 59)
	sec, ok3 := inRange(s[6:8], 0, 60)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	s = s[8:]
	if s[0] == '.' {
		s = s[1:]
		n := 0
		for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			n++
			s = s[1:]
		}
		if n == 0 {
			return false
		}
	}
	if len(s) == 0 {
		return false
	}
	if s[0] == 'z' || s[0] == 'Z' {
		if len(s) != 1 {
			return false
		}
	} else {
		if len(s) != 6 || s[3] != ':' {
			return false
		}
		var sign int
		switch s[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return false
		}
		zh, ok1 := inRange(s[1:3], 0, 23)
		zm, ok2 := inRange(s[4:6], 0, 59)
		if !ok1 || !ok2 {
			return false
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	if sec == 60 && (h != 23 || m != 59) {
		return false
	}
	return true
}

// sequenceOf applies the schema's {"type": "integer", "minimum": 0} to a
// number in Python's spelling (what the library sees), plus FromValue's
// requirement that it fit int64, and returns its value. An integer spelled
// as a float (1.0, 1e+16) is an integer to the schema.
func sequenceOf(text string, isFloat bool) (int64, bool) {
	if !isFloat {
		n, err := strconv.ParseInt(text, 10, 64)
		return n, err == nil && n >= 0
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// durationOK applies {"type": "number", "minimum": 0}: any number but a
// negative one (-0.0 is not negative).
func durationOK(text string, isFloat bool) bool {
	if !isFloat {
		return len(text) > 0 && text[0] != '-'
	}
	f, err := strconv.ParseFloat(text, 64)
	return err == nil && !(f < 0)
}

// Presence bits of the envelope's members.
const (
	fTraceVersion = 1 << iota
	fEventID
	fSessionID
	fSequence
	fTimestamp
	fType
	fActor
	fPayload
	fProvenance
	fRedaction
	fParentEventID
	fDurationMS

	fRequired = fTraceVersion | fEventID | fSessionID | fSequence | fTimestamp | fType | fActor | fPayload | fProvenance | fRedaction
)

// envelopeKey maps a top-level key to its presence bit; 0 for a key the
// schema does not allow.
func envelopeKey[T string | []byte](k T) int {
	switch string(k) {
	case "trace_version":
		return fTraceVersion
	case "event_id":
		return fEventID
	case "session_id":
		return fSessionID
	case "sequence":
		return fSequence
	case "timestamp":
		return fTimestamp
	case "type":
		return fType
	case "actor":
		return fActor
	case "payload":
		return fPayload
	case "provenance":
		return fProvenance
	case "redaction":
		return fRedaction
	case "parent_event_id":
		return fParentEventID
	case "duration_ms":
		return fDurationMS
	}
	return 0
}

// checkValue reports whether the schema accepts v, an object, and FromValue
// can read it. It is the fast path of DecodeLine.
func checkValue(v jsonv.Value) bool {
	seen := 0
	for _, m := range v.Members() {
		bit := envelopeKey(m.Key)
		if bit == 0 {
			return false // additionalProperties: false
		}
		seen |= bit
		f := m.Value
		ok := false
		switch bit {
		case fTraceVersion:
			ok = f.Kind() == jsonv.String && f.Text() == TraceVersion
		case fEventID, fSessionID, fParentEventID:
			ok = f.Kind() == jsonv.String && f.Text() != ""
		case fSequence:
			_, ok = sequenceOf(f.Text(), f.IsFloat())
			ok = ok && f.Kind() == jsonv.Number
		case fTimestamp:
			ok = f.Kind() == jsonv.String && isDateTime(f.Text())
		case fType:
			_, ok = eventTypes[f.Text()]
			ok = ok && f.Kind() == jsonv.String
		case fActor:
			ok = checkActorValue(f)
		case fPayload:
			ok = f.Kind() == jsonv.Object
		case fProvenance:
			ok = checkProvenanceValue(f)
		case fRedaction:
			ok = checkRedactionValue(f)
		case fDurationMS:
			ok = f.Kind() == jsonv.Number && durationOK(f.Text(), f.IsFloat())
		}
		if !ok {
			return false
		}
	}
	return seen&fRequired == fRequired
}

func nonEmptyString(v jsonv.Value) bool { return v.Kind() == jsonv.String && v.Text() != "" }

func checkActorValue(v jsonv.Value) bool {
	if v.Kind() != jsonv.Object {
		return false
	}
	var kind, id bool
	for _, m := range v.Members() {
		switch m.Key {
		case "kind":
			if m.Value.Kind() != jsonv.String || !isActorKind(m.Value.Text()) {
				return false
			}
			kind = true
		case "id":
			if !nonEmptyString(m.Value) {
				return false
			}
			id = true
		case "parent_id":
			if !nonEmptyString(m.Value) {
				return false
			}
		default:
			return false
		}
	}
	return kind && id
}

func checkProvenanceValue(v jsonv.Value) bool {
	if v.Kind() != jsonv.Object {
		return false
	}
	const need = 1<<5 - 1
	seen := 0
	for _, m := range v.Members() {
		f := m.Value
		isStr := f.Kind() == jsonv.String
		switch m.Key {
		case "agent_id":
			seen |= 1
			if !isStr || !isStableID(f.Text()) {
				return false
			}
		case "snapshot_id":
			seen |= 2
			if !isStr || f.Text() == "" {
				return false
			}
		case "surface":
			seen |= 4
			if !isStr || f.Text() == "" {
				return false
			}
		case "run_id":
			seen |= 8
			if !isStr || f.Text() == "" {
				return false
			}
		case "harness_mode":
			seen |= 16
			if !isStr || !isHarnessMode(f.Text()) {
				return false
			}
		case "experiment_id":
			if !isStr || !isStableID(f.Text()) {
				return false
			}
		case "model", "provider":
			if !isStr {
				return false
			}
		default:
			return false
		}
	}
	return seen == need
}

func checkRedactionValue(v jsonv.Value) bool {
	if v.Kind() != jsonv.Object {
		return false
	}
	var status, fields bool
	for _, m := range v.Members() {
		f := m.Value
		switch m.Key {
		case "status":
			if f.Kind() != jsonv.String || !isRedactionStatus(f.Text()) {
				return false
			}
			status = true
		case "fields":
			if f.Kind() != jsonv.Array {
				return false
			}
			es := f.Elems()
			for _, e := range es {
				if !nonEmptyString(e) {
					return false
				}
			}
			if !uniqueStrings(len(es), func(i int) string { return es[i].Text() }) {
				return false
			}
			fields = true
		case "notes":
			if f.Kind() != jsonv.String {
				return false
			}
		default:
			return false
		}
	}
	return status && fields
}

// uniqueStrings reports whether the n strings at(0..n-1) are all different
// (uniqueItems over strings), in O(n) for long arrays.
func uniqueStrings(n int, at func(int) string) bool {
	if n <= 16 {
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if at(i) == at(j) {
					return false
				}
			}
		}
		return true
	}
	seen := make(map[string]struct{}, n)
	for i := 0; i < n; i++ {
		if _, dup := seen[at(i)]; dup {
			return false
		}
		seen[at(i)] = struct{}{}
	}
	return true
}
