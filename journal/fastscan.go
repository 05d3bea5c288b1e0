package journal

// The lean line path: a purpose-built scanner for event lines in the
// reference layout.
//
// A line written by the reference (compact, envelope strings without
// escapes) is read here without building a jsonv.Value: the envelope is
// scanned in place and checked with the rules of fast.go, the payload alone
// goes through jsonv.Canonicalizer (which validates it as strictly as
// jsonv.Parse), and the event's canonical encoding, the bytes a fingerprint
// hashes, is written directly. Actor, provenance and redaction objects repeat
// from line to line, so each lineScanner remembers the last few it checked
// and recognises a repeat by its bytes alone.
//
// Anything outside that subset (whitespace between tokens, an escape in an
// envelope string, a float sequence, an unknown or duplicate key, a schema
// violation, a syntax error) makes the scanner give up, and the caller takes
// the general path (DecodeLine), which decides and explains. Giving up is
// always safe; accepting is only done when the general path would accept the
// line and read the same event, which fast_test.go checks.

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tracecheck/tracecheck/internal/stopbits"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// leanMaxDepth bounds the payload nesting the scanner accepts; deeper
// payloads go to the general path, which applies jsonv.MaxDepth to the whole
// line.
const leanMaxDepth = 64

// objMemo is one remembered actor, provenance or redaction object.
type objMemo struct {
	raw   []byte // as written, from '{' to '}'
	canon []byte // canonical encoding
	norm  []byte // canonical encoding without run_id (provenance only)

	actor Actor
	prov  Provenance
	red   Redaction
}

// memoSet remembers a few objects of one kind, replacing round-robin.
type memoSet struct {
	e    []*objMemo
	next int
}

func (m *memoSet) find(line []byte) *objMemo {
	for _, e := range m.e {
		if bytes.HasPrefix(line, e.raw) {
			return e
		}
	}
	return nil
}

func (m *memoSet) add(e *objMemo, max int) {
	if len(m.e) < max {
		m.e = append(m.e, e)
		return
	}
	m.e[m.next] = e
	m.next = (m.next + 1) % max
}

// lineScanner reads lines on the lean path. It is not safe for concurrent
// use; each pipeline worker has its own.
type lineScanner struct {
	canon      jsonv.Canonicalizer
	actors     memoSet
	provs      memoSet
	reds       memoSet
	normalized bool   // write the normalized encoding (no session_id, timestamp, provenance.run_id)
	checkOnly  bool   // check the line only: no canonical encoding, no payload Value
	session    string // the last session_id read, an owned copy
	// wantPayload says which events also need their payload as a Value;
	// those are built from the scan that canonicalizes the payload.
	wantPayload func(typ string, payload []byte) bool
	// mem, when set, is where the envelope's member spans are noted.
	mem *members
	// stops marks the line's quotes, backslashes, controls and bytes >=
	// 0x80 (package stopbits) for scanString and skipValue; readEnvelope
	// resets it for each line.
	stops stopbits.Window
}

// leanLine is what the scanner read from one line. EventID, ParentEventID
// and Timestamp alias the line, valid while the line is; the other strings
// are owned (session_id, run_id and the like repeat, and a reducer keeps
// them).
type leanLine struct {
	ev      Event
	payload []byte      // the payload object as written
	value   jsonv.Value // the payload parsed, when wantPayload asked for it
}

// aliasString returns b as a string without copying; b must not change
// while the string is in use.
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// scanString reads the string starting at line[i] (a quote) and returns the
// index of its closing quote. ok is false for an escape, a control
// character, invalid UTF-8 or an unterminated string: the general path will
// decide.
func (s *lineScanner) scanString(line []byte, i int) (end int, ok bool) {
	if i >= len(line) || line[i] != '"' {
		return 0, false
	}
	ascii := true
	for j := i + 1; ; j++ {
		if k, ok := s.stops.Quick(j); ok {
			j = k
		} else if j = s.stops.Next(line, j); j >= len(line) {
			return 0, false
		}
		switch c := line[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(line[i+1:j]) {
				return 0, false
			}
			return j, true
		case c == '\\' || c < 0x20:
			return 0, false
		case c >= 0x80:
			ascii = false
		}
	}
}

// skipValue returns the index just past the JSON value starting at line[i],
// tracking strings and nesting only. ok is false past leanMaxDepth or at the
// end of the line. The caller validates the value itself.
func (s *lineScanner) skipValue(line []byte, i int) (end int, ok bool) {
	depth := 0
	for j := i; j < len(line); j++ {
		switch line[j] {
		case '"':
			// To the closing quote: from stop to stop, over escapes.
			for j++; ; j++ {
				if k, ok := s.stops.Quick(j); ok {
					j = k
				} else if j = s.stops.Next(line, j); j >= len(line) {
					return 0, false
				}
				if line[j] == '"' {
					break
				}
				if line[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			depth++
			if depth > leanMaxDepth {
				return 0, false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// readObject reads a flat object of string members (or, for redaction
// fields, an array of strings) starting at line[i]. It calls member for each
// key and value span (value including quotes or brackets); a false return
// from member stops the read. It returns the index past '}'.
func (s *lineScanner) readObject(line []byte, i int, member func(key []byte, vs, ve int) bool) (int, bool) {
	if i >= len(line) || line[i] != '{' {
		return 0, false
	}
	i++
	if i < len(line) && line[i] == '}' {
		return i + 1, true
	}
	for {
		ke, ok := s.scanString(line, i)
		if !ok || ke+1 >= len(line) || line[ke+1] != ':' {
			return 0, false
		}
		key := line[i+1 : ke]
		vs := ke + 2
		var ve int
		if vs < len(line) && line[vs] == '[' {
			// An array of strings: redaction.fields.
			j := vs + 1
			if j < len(line) && line[j] == ']' {
				ve = j + 1
			} else {
				for {
					se, ok := s.scanString(line, j)
					if !ok || se+1 >= len(line) {
						return 0, false
					}
					j = se + 1
					if line[j] == ']' {
						ve = j + 1
						break
					}
					if line[j] != ',' {
						return 0, false
					}
					j++
				}
			}
		} else {
			se, ok := s.scanString(line, vs)
			if !ok {
				return 0, false
			}
			ve = se + 1
		}
		if !member(key, vs, ve) {
			return 0, false
		}
		if ve >= len(line) {
			return 0, false
		}
		switch line[ve] {
		case ',':
			i = ve + 1
		case '}':
			return ve + 1, true
		default:
			return 0, false
		}
	}
}

func strVal(line []byte, vs, ve int) ([]byte, bool) {
	if line[vs] != '"' {
		return nil, false
	}
	return line[vs+1 : ve-1], true
}

// readActor checks an actor object and remembers it.
func (s *lineScanner) readActor(line []byte, i int) (*objMemo, int, bool) {
	var kind, id, parent []byte
	var seen int
	end, ok := s.readObject(line, i, func(k []byte, vs, ve int) bool {
		v, isStr := strVal(line, vs, ve)
		if !isStr {
			return false
		}
		var bit int
		switch string(k) {
		case "kind":
			bit, kind = 1, v
			if !isActorKind(string(v)) {
				return false
			}
		case "id":
			bit, id = 2, v
		case "parent_id":
			bit, parent = 4, v
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return bit == 1 || len(v) > 0
	})
	if !ok || seen&3 != 3 {
		return nil, 0, false
	}
	m := &objMemo{raw: bytes.Clone(line[i:end])}
	m.actor = Actor{Kind: string(kind), ID: string(id), ParentID: string(parent)}
	c := append([]byte(nil), `{"id":`...)
	c = appendQuoted(c, id)
	c = append(c, `,"kind":`...)
	c = appendQuoted(c, kind)
	if seen&4 != 0 {
		c = append(c, `,"parent_id":`...)
		c = appendQuoted(c, parent)
	}
	m.canon = append(c, '}')
	s.actors.add(m, 8)
	return m, end, true
}

// provKeys are provenance's keys in sorted order, with their presence bits.
var provKeys = [...]string{"agent_id", "experiment_id", "harness_mode", "model", "provider", "run_id", "snapshot_id", "surface"}

// readProvenance checks a provenance object and remembers it.
func (s *lineScanner) readProvenance(line []byte, i int) (*objMemo, int, bool) {
	var vals [len(provKeys)][]byte
	seen := 0
	end, ok := s.readObject(line, i, func(k []byte, vs, ve int) bool {
		v, isStr := strVal(line, vs, ve)
		if !isStr {
			return false
		}
		idx := -1
		for j, pk := range provKeys {
			if string(k) == pk {
				idx = j
				break
			}
		}
		if idx < 0 || seen&(1<<idx) != 0 {
			return false
		}
		seen |= 1 << idx
		vals[idx] = v
		switch idx {
		case 0, 1: // agent_id, experiment_id
			return isStableID(v)
		case 2:
			return isHarnessMode(string(v))
		case 5, 6, 7: // run_id, snapshot_id, surface
			return len(v) > 0
		}
		return true // model, provider: any string
	})
	const need = 1<<0 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	if !ok || seen&need != need {
		return nil, 0, false
	}
	m := &objMemo{raw: bytes.Clone(line[i:end])}
	p := &m.prov
	p.AgentID, p.ExperimentID, p.HarnessMode = string(vals[0]), string(vals[1]), string(vals[2])
	p.RunID, p.SnapshotID, p.Surface = string(vals[5]), string(vals[6]), string(vals[7])
	if seen&(1<<3) != 0 {
		model := string(vals[3])
		p.Model = &model
	}
	if seen&(1<<4) != 0 {
		provider := string(vals[4])
		p.Provider = &provider
	}
	emit := func(skipRun bool) []byte {
		c := []byte{'{'}
		first := true
		for j, pk := range provKeys {
			if seen&(1<<j) == 0 || (skipRun && j == 5) {
				continue
			}
			if !first {
				c = append(c, ',')
			}
			first = false
			c = append(c, '"')
			c = append(c, pk...)
			c = append(c, '"', ':')
			c = appendQuoted(c, vals[j])
		}
		return append(c, '}')
	}
	m.canon = emit(false)
	m.norm = emit(true)
	s.provs.add(m, 4)
	return m, end, true
}

// readRedaction checks a redaction object and remembers it.
func (s *lineScanner) readRedaction(line []byte, i int) (*objMemo, int, bool) {
	var status, notes []byte
	var fields []string
	var fieldsRaw []byte
	seen := 0
	end, ok := s.readObject(line, i, func(k []byte, vs, ve int) bool {
		var bit int
		switch string(k) {
		case "status":
			bit = 1
			v, isStr := strVal(line, vs, ve)
			if !isStr || !isRedactionStatus(string(v)) {
				return false
			}
			status = v
		case "fields":
			bit = 2
			if line[vs] != '[' {
				return false
			}
			fieldsRaw = line[vs:ve]
			fields = []string{}
			for j := vs + 1; j < ve-1; {
				se, _ := s.scanString(line, j) // readObject checked the array
				if se == j+1 {
					return false // minLength 1
				}
				fields = append(fields, string(line[j+1:se]))
				j = se + 2
			}
			if !uniqueStrings(len(fields), func(i int) string { return fields[i] }) {
				return false
			}
		case "notes":
			bit = 4
			v, isStr := strVal(line, vs, ve)
			if !isStr {
				return false
			}
			notes = v
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok || seen&3 != 3 {
		return nil, 0, false
	}
	m := &objMemo{raw: bytes.Clone(line[i:end])}
	m.red = Redaction{Status: string(status), Fields: fields}
	if seen&4 != 0 {
		n := string(notes)
		m.red.Notes = &n
	}
	c := append([]byte(nil), `{"fields":`...)
	c = append(c, fieldsRaw...)
	if seen&4 != 0 {
		c = append(c, `,"notes":`...)
		c = appendQuoted(c, notes)
	}
	c = append(c, `,"status":`...)
	c = appendQuoted(c, status)
	m.canon = append(c, '}')
	s.reds.add(m, 4)
	return m, end, true
}

func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainUint reads a JSON integer written as digits only (no sign, fraction
// or exponent) that fits int64, and returns the index past it.
func plainUint(line []byte, i int) (int64, int, bool) {
	j := i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	if j == i || j-i > 18 || (line[i] == '0' && j-i > 1) {
		return 0, 0, false
	}
	if j < len(line) && (line[j] == '.' || line[j] == 'e' || line[j] == 'E') {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(string(line[i:j]), 10, 64)
	return n, j, err == nil
}

// envelope is what readEnvelope found on a line: the members' values as
// written (aliasing the line), the sequence, the interned type and the
// checked actor, provenance and redaction objects.
type envelope struct {
	seen                                     int // presence bits of the members read
	eventID, sessionID, ts, parentID, seqRaw []byte
	durRaw, payload                          []byte
	typ                                      string
	seq                                      int64
	actor, prov, red                         *objMemo
}

// scan reads one line in three steps: the envelope (readEnvelope), the
// canonical encoding with the payload checked (appendCanonical), the
// event (fillEvent). On success it has appended the event's canonical
// encoding (or the normalized one; nothing with checkOnly) to dst and
// filled out; ok false means "take the general path", and dst is returned
// unchanged.
func (s *lineScanner) scan(dst, line []byte, out *leanLine) (_ []byte, ok bool) {
	var env envelope
	if !s.readEnvelope(line, &env) {
		return dst, false
	}
	if dst, ok = s.appendCanonical(dst, &env, out); !ok {
		return dst, false
	}
	s.fillEvent(out, &env)
	return dst, true
}

// readEnvelope reads the line's members in any order, each once, checking
// each value with the schema's rules; the payload is only delimited here.
// It fails on anything outside the lean subset.
func (s *lineScanner) readEnvelope(line []byte, env *envelope) bool {
	if len(line) < 2 || line[0] != '{' {
		return false
	}
	s.stops.Reset() // a new line: its stop bits are marked as it is read
	for i := 1; ; i++ {
		ke, ok := s.scanString(line, i)
		if !ok || ke+1 >= len(line) || line[ke+1] != ':' {
			return false
		}
		bit := envelopeKey(line[i+1 : ke])
		if bit == 0 || env.seen&bit != 0 {
			return false
		}
		env.seen |= bit
		vs := ke + 2
		if i, ok = s.readMember(line, vs, bit, env); !ok || i >= len(line) {
			return false
		}
		if s.mem != nil {
			s.mem.add(bit, vs, i)
		}
		switch line[i] {
		case '}':
			return i == len(line)-1 && env.seen&fRequired == fRequired
		case ',':
		default:
			return false
		}
	}
}

// readMember reads the value of the member bit starting at line[i] into
// env and returns the index past it.
func (s *lineScanner) readMember(line []byte, i, bit int, env *envelope) (int, bool) {
	if i >= len(line) {
		return 0, false
	}
	var ok bool
	switch bit {
	case fTraceVersion, fEventID, fSessionID, fTimestamp, fType, fParentEventID:
		return s.readStringMember(line, i, bit, env)
	case fSequence:
		var j int
		if env.seq, j, ok = plainUint(line, i); ok {
			env.seqRaw = line[i:j]
		}
		return j, ok
	case fDurationMS:
		var j int
		if _, j, ok = plainUint(line, i); ok {
			env.durRaw = line[i:j]
		}
		return j, ok
	case fActor:
		return recall(&s.actors, line, i, &env.actor, s.readActor)
	case fProvenance:
		return recall(&s.provs, line, i, &env.prov, s.readProvenance)
	case fRedaction:
		return recall(&s.reds, line, i, &env.red, s.readRedaction)
	case fPayload:
		if line[i] != '{' {
			return 0, false
		}
		j, ok := s.skipValue(line, i)
		if ok {
			env.payload = line[i:j]
		}
		return j, ok
	}
	return 0, false
}

// readStringMember reads one of the envelope's string members.
func (s *lineScanner) readStringMember(line []byte, i, bit int, env *envelope) (int, bool) {
	se, ok := s.scanString(line, i)
	if !ok {
		return 0, false
	}
	v := line[i+1 : se]
	switch bit {
	case fTraceVersion:
		ok = string(v) == TraceVersion
	case fEventID:
		env.eventID, ok = v, len(v) > 0
	case fSessionID:
		env.sessionID, ok = v, len(v) > 0
	case fParentEventID:
		env.parentID, ok = v, len(v) > 0
	case fTimestamp:
		env.ts, ok = v, isDateTime(v)
	case fType:
		env.typ, ok = internType(v)
	}
	return se + 1, ok
}

// recall reads an actor, provenance or redaction object at line[i]: one
// remembered by its bytes, or one read (and remembered) by read.
func recall(set *memoSet, line []byte, i int, dst **objMemo, read func([]byte, int) (*objMemo, int, bool)) (int, bool) {
	if m := set.find(line[i:]); m != nil {
		*dst = m
		return i + len(m.raw), true
	}
	m, end, ok := read(line, i)
	*dst = m
	return end, ok
}

// appendCanonical writes the event's canonical encoding, members sorted by
// key, and checks the payload on the way (only checks it, with checkOnly).
// On failure dst is returned as it was.
func (s *lineScanner) appendCanonical(dst []byte, env *envelope, out *leanLine) ([]byte, bool) {
	out.value = jsonv.Value{}
	if s.checkOnly {
		return dst, s.canon.Check(env.payload) == nil
	}
	start := len(dst)
	dst = append(dst, `{"actor":`...)
	dst = append(dst, env.actor.canon...)
	if env.durRaw != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = append(dst, env.durRaw...)
	}
	dst = append(dst, `,"event_id":`...)
	dst = appendQuoted(dst, env.eventID)
	if env.parentID != nil {
		dst = append(dst, `,"parent_event_id":`...)
		dst = appendQuoted(dst, env.parentID)
	}
	dst = append(dst, `,"payload":`...)
	var err error
	if s.wantPayload != nil && s.wantPayload(env.typ, env.payload) {
		dst, out.value, err = s.canon.AppendValue(dst, env.payload)
	} else {
		dst, err = s.canon.Append(dst, env.payload)
	}
	if err != nil {
		return dst[:start], false
	}
	dst = append(dst, `,"provenance":`...)
	if s.normalized {
		dst = append(dst, env.prov.norm...)
	} else {
		dst = append(dst, env.prov.canon...)
	}
	dst = append(dst, `,"redaction":`...)
	dst = append(dst, env.red.canon...)
	dst = append(dst, `,"sequence":`...)
	dst = append(dst, env.seqRaw...)
	if !s.normalized {
		dst = append(dst, `,"session_id":`...)
		dst = appendQuoted(dst, env.sessionID)
		dst = append(dst, `,"timestamp":`...)
		dst = appendQuoted(dst, env.ts)
	}
	dst = append(dst, `,"trace_version":"0.1.0","type":"`...)
	dst = append(dst, env.typ...)
	return append(dst, '"', '}'), true
}

// fillEvent fills out.ev from a read envelope: strings the reducer keeps
// are owned (the session id is copied once per session), the rest alias
// the line.
func (s *lineScanner) fillEvent(out *leanLine, env *envelope) {
	if string(env.sessionID) != s.session {
		s.session = string(env.sessionID)
	}
	out.payload = env.payload
	ev := &out.ev
	*ev = Event{
		TraceVersion:  TraceVersion,
		EventID:       aliasString(env.eventID),
		SessionID:     s.session,
		Sequence:      env.seq,
		Timestamp:     aliasString(env.ts),
		Type:          env.typ,
		Actor:         env.actor.actor,
		Provenance:    env.prov.prov,
		Redaction:     env.red.red,
		ParentEventID: aliasString(env.parentID),
	}
	if env.durRaw != nil {
		d, _ := strconv.ParseInt(string(env.durRaw), 10, 64) // plainUint checked it
		ev.DurationMS = jsonv.Int(d)
	}
}
