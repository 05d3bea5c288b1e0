package tolerant

import (
	"bytes"
	"time"
	"unsafe"

	"github.com/tracecheck/tracecheck/journal"
)

// A golden line and the event it was normalized from are the same bytes
// but for the holes. Prove uses that: given where the validated event's
// top-level members stand (journal.CheckedLine.Members), it compares the
// golden line with the event member by member, and only reads the golden's
// own tokens where the two differ or where the event's text could hold a
// string that reads as a hole. Everything else is a byte comparison.

// Prove is Lex of golden line g followed by MatchHoles against a, for an
// event line a that the validator read on its lean path and whose
// top-level members stand at members (in line order): it answers true
// only when g is a with some values replaced by strings that Check would
// compile to holes, and those holes accept a's values, having made the
// bindings MatchHoles makes, in the same order. holes are then the holes
// Check finds in g (their strings views of g and of k's scratch, valid
// until the next Prove). When it answers false nothing it bound is kept,
// and the caller takes Lex and MatchHoles, which decide. key is then what
// Lex gives as the line's key (the value texts of its alignment members).
func (k *Compiler) Prove(m *Matcher, g, a []byte, members []journal.MemberSpan, key *LexKey) (ok bool, holes []Hole, timestamp string, t time.Time) {
	*key = LexKey{}
	if !m.Tolerant || len(members) == 0 {
		return false, nil, "", t
	}
	mark := m.Mark()
	k.line, k.holes, k.ptrs, k.ok = g, k.proveHoles[:0], k.provePtrs[:0], true
	k.lex.key = key
	ok, timestamp, t = k.prove(m, g, a, members)
	holes = k.holes
	k.proveHoles, k.provePtrs = k.holes[:0], k.ptrs[:0]
	k.line, k.holes, k.ptrs, k.lex.key = nil, nil, nil, nil
	if !ok {
		m.Rollback(mark)
		return false, nil, "", time.Time{}
	}
	return true, holes, timestamp, t
}

func (k *Compiler) prove(m *Matcher, g, a []byte, members []journal.MemberSpan) (ok bool, timestamp string, t time.Time) {
	gp, ap := 0, 0
	for _, s := range members {
		vs, ve := int(s.Start), int(s.End)
		if vs < ap || ve <= vs || ve > len(a) {
			return false, "", t
		}
		// What comes before the value, a separator and the key, is the
		// event's: no hole stands there. Most values are the event's too,
		// so both are compared at once.
		n, same := vs-ap, false
		if len(g)-gp >= ve-ap && string(g[gp:gp+ve-ap]) == string(a[ap:ve]) {
			same = true
		} else if len(g)-gp < n || string(g[gp:gp+n]) != string(a[ap:vs]) {
			return false, "", t
		}
		gp += n
		av := a[vs:ve]
		ap = ve
		if !same {
			if end, ok := k.recallProof(m, s.Member, g, gp, av); ok {
				gp = end
				continue
			}
		}
		start, nh := gp, len(k.holes)
		switch s.Member {
		case journal.MemberActor, journal.MemberPayload, journal.MemberProvenance, journal.MemberRedaction:
			if gp, ok = k.proveContainer(m, s.Member, g, gp, av, same); !ok {
				return false, "", t
			}
		default:
			var ts string
			if gp, ts, ok = k.proveScalar(m, s.Member, g, gp, av, same); !ok {
				return false, "", t
			}
			if ts != "" {
				timestamp, t = ts, m.ts
			}
			switch s.Member {
			case journal.MemberSequence:
				k.lex.key.Sequence = g[start:gp]
			case journal.MemberSessionID:
				k.lex.key.SessionID = g[start:gp]
			}
		}
		if !same {
			k.rememberProof(m, s.Member, g, start, gp, av, nh)
		}
	}
	// The closing brace, and nothing after it.
	if string(g[gp:]) != string(a[ap:]) {
		return false, "", t
	}
	return true, timestamp, t
}

// proveScalar reads the golden's value at g[gp] for the event's scalar
// member value av (a string without escapes, or a number: the lean path's
// envelope; same: the golden's bytes there are av) and returns the index
// past it; ts is the event's timestamp when the golden holds
// "[TIMESTAMP]" for it.
func (k *Compiler) proveScalar(m *Matcher, member journal.Member, g []byte, gp int, av []byte, same bool) (end int, ts string, ok bool) {
	if same && (av[0] != '"' || plainLiteral(av[1:len(av)-1], false)) {
		return gp + len(av), "", true // the event's literal, which reads as nothing else
	}
	if gp >= len(g) || g[gp] != '"' {
		return 0, "", false
	}
	e, esc, _ := quoteEnd(g, gp+1)
	if esc || e >= len(g) {
		return 0, "", false // escapes: Lex decides
	}
	t := view(g[gp+1 : e])
	kind, arg := Classify(t)
	if kind == Literal {
		if t == AnyElements {
			return 0, "", false // Lex gives up on it
		}
		// A literal: the event's text, or a difference Match explains.
		return e + 1, "", string(g[gp:e+1]) == string(av)
	}
	// The hole visit would make of a top-level value.
	k.holes = append(k.holes, Hole{Start: gp, End: e + 1, Kind: kind, Arg: arg, Ptr: k.memberPtr(member),
		Timestamp: kind == Timestamp && member == journal.MemberTimestamp})
	h := &k.holes[len(k.holes)-1]
	if h.Kind == Glob && k.c.Check(g[gp:e+1]) != nil {
		// Its text is the golden's own: "\xc3[..]\xa9" matches "é" and
		// is not valid UTF-8.
		return 0, "", false
	}
	if !m.fill(h, av, av[0] == '"') {
		return 0, "", false
	}
	if h.Timestamp {
		ts = view(av[1 : len(av)-1])
	}
	return e + 1, ts, true
}

// proveContainer reads the golden's value at g[gp] for the event's
// container member value av (same: the golden's bytes there are av) and
// returns the index past it. A value the same bytes as the event's that no
// string of it can read as a hole (literalOnly) is taken as it is; any
// other is lexed (memberValue), and its holes matched against av.
func (k *Compiler) proveContainer(m *Matcher, member journal.Member, g []byte, gp int, av []byte, same bool) (int, bool) {
	clean := &k.clean[member]
	if same && (string(*clean) == string(av) || literalOnly(av)) {
		k.keepClean(clean, av)
		if member == journal.MemberProvenance {
			k.lex.key.RunID = runIDOf(g[gp : gp+len(av)])
		}
		return gp + len(av), true
	}
	n := len(k.holes)
	end, ok := k.lex.memberValue(k, g, memberKey(member), gp)
	if !ok {
		return 0, false
	}
	if ok, _, _ = m.matchSpan(g, gp, end, k.holes[n:], av, false); !ok {
		return 0, false
	}
	if same && len(k.holes) == n {
		k.keepClean(clean, av) // no holes after all: its literals' arrays, say
	}
	return end, true
}

// keepClean remembers v as a member value that holds no hole.
func (k *Compiler) keepClean(clean *[]byte, v []byte) {
	if string(*clean) != string(v) && len(v) <= memoMaxBytes {
		*clean = append((*clean)[:0], v...)
	}
}

// literalOnly reports whether no string in the JSON text v can read as a
// hole or as "...": Classify reads every hole in a string that starts
// with '[' (a quote before it), holds "[..]" or "[UUID]", is "{...}", or
// starts with a backslash (written \\ or \u005c); an escape \u may spell
// any of those.
func literalOnly(v []byte) bool {
	// Each of `"[`, "[..]" and "[UUID]" holds a '[': the text is looked at
	// around each '[' (arrays hold many), not searched three times.
	for i := 0; i < len(v); i++ {
		j := bytes.IndexByte(v[i:], '[')
		if j < 0 {
			break
		}
		if i += j; i > 0 && v[i-1] == '"' || bytes.HasPrefix(v[i:], []byte(AnyRun)) || bytes.HasPrefix(v[i:], []byte(UUIDToken)) {
			return false
		}
	}
	if bytes.Contains(v, []byte("...")) { // "..." and "{...}"
		return false
	}
	for i := 0; i < len(v); {
		j := bytes.IndexByte(v[i:], '\\')
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(v) && (v[i] == '\\' || v[i] == 'u') {
			return false
		}
		i++ // the escaped byte
	}
	return true
}

// runIDOf is the text of the run_id member of provenance object v, the
// bytes of one that the lean path read (no escapes in them, so a quote
// before run_id": opens a key); nil when there is none.
func runIDOf(v []byte) []byte {
	const k = `"run_id":`
	i := bytes.Index(v, []byte(k))
	if i < 0 {
		return nil
	}
	if i += len(k); i >= len(v) {
		return nil
	}
	if v[i] != '"' {
		return v[i : i+1] // not a string: as Lex takes a container's start
	}
	e, _, _ := quoteEnd(v, i+1)
	if e >= len(v) {
		return nil
	}
	return v[i : e+1]
}

// memberPtr is the pointer of a top-level member's value.
func (k *Compiler) memberPtr(m journal.Member) string {
	if k.ptrTab[m] == "" {
		k.ptrTab[m] = "/" + m.String()
	}
	return k.ptrTab[m]
}

// memberKey is the key of a top-level member, as bytes (not to be
// modified).
func memberKey(m journal.Member) []byte {
	s := m.String()
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
