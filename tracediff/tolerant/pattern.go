// Package tolerant is the tolerant golden format: a Trace event written
// with placeholders where real runs vary, and the matcher that checks an
// actual event against it. The tolerance is written in the expected file
// itself, so nothing is stripped from the data being compared.
//
// A JSON string in the expected event is read as follows (see Classify):
//
//	"{...}"        any value (the member or element must be there)
//	"[TIMESTAMP]"  an RFC 3339 date-time string
//	"[UUID]"       a UUID-shaped string (8-4-4-4-12 hex digits)
//	"[DURATION]"   a number >= 0
//	"[NAME]"       a binding: any value, the same at every occurrence of NAME
//	               (NAME: an upper-case letter, then upper-case letters,
//	               digits, '_' or '-'; not one of the typed names above)
//	"...[..]..."   a string; [..] matches any run of characters and an
//	               embedded [UUID] one UUID
//	"\..."         the text after the backslash, literally: the escape for
//	               data that would otherwise read as a placeholder
//
// In an object, the member "...": "{...}" allows any further members; without
// it the actual object must have exactly the members written. In an array, an
// element "..." matches any run of elements (none included).
//
// Bindings: the first occurrence of a name binds it to the actual value
// there; every later occurrence must hold an equal value. Distinct names must
// bind distinct values: if [ID-2] would bind a value already bound to [ID-1],
// the events mix up two things the golden keeps apart (a parent_event_id
// naming the wrong event, a tool result answering the wrong call) and that
// is a mismatch. Typed placeholders and "{...}" bind nothing, so they are
// exempt: write a typed placeholder where two fields may legitimately hold
// the same value. Bindings hold across a whole trace.
//
// Anything else is a literal and matches an equal JSON value: member order
// does not matter, a number's spelling does (1 and 1.0 differ, as they do in
// a fingerprint).
package tolerant

import (
	"strings"
	"time"
)

// Kind is what a string in an expected event stands for.
type Kind uint8

// The kinds of expected strings.
const (
	Literal   Kind = iota // the string itself
	Any                   // "{...}"
	Binding               // "[NAME]"
	Timestamp             // "[TIMESTAMP]"
	UUID                  // "[UUID]"
	Duration              // "[DURATION]"
	Glob                  // a string with [..] or embedded [UUID] holes
	Escaped               // "\text": the literal text
)

// The spellings of the placeholders.
const (
	AnyValue       = "{...}"
	AnyMembersKey  = "..."  // with AnyValue as its value: further members allowed
	AnyElements    = "..."  // as an array element: any run of elements
	AnyRun         = "[..]" // inside a string: any run of characters
	TimestampToken = "[TIMESTAMP]"
	UUIDToken      = "[UUID]"
	DurationToken  = "[DURATION]"
	escapeChar     = '\\'
	maxNameLen     = 64
)

// Classify says what the expected string s stands for. For a Binding it
// returns the name, for Escaped the literal text, otherwise s.
func Classify(s string) (Kind, string) {
	if s == "" {
		return Literal, s
	}
	if s[0] == escapeChar {
		return Escaped, s[1:]
	}
	switch s {
	case AnyValue:
		return Any, s
	case TimestampToken:
		return Timestamp, s
	case UUIDToken:
		return UUID, s
	case DurationToken:
		return Duration, s
	}
	if strings.IndexByte(s, '[') < 0 {
		return Literal, s // neither a binding nor a hole: both need '['
	}
	if name, ok := bindingName(s); ok {
		return Binding, name
	}
	if strings.Contains(s, AnyRun) || strings.Contains(s, UUIDToken) {
		return Glob, s
	}
	return Literal, s
}

// bindingName reports whether s is "[NAME]" and returns NAME.
func bindingName(s string) (string, bool) {
	if len(s) < 3 || len(s) > maxNameLen+2 || s[0] != '[' || s[len(s)-1] != ']' {
		return "", false
	}
	name := s[1 : len(s)-1]
	if name[0] < 'A' || name[0] > 'Z' {
		return "", false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return "", false
		}
	}
	return name, true
}

// Escape returns s as an expected string that matches exactly s: s itself
// when it reads as a literal, else s behind the escape character.
func Escape(s string) string {
	if k, _ := Classify(s); k == Literal && s != AnyElements {
		return s
	}
	return string(escapeChar) + s
}

// IsUUID reports whether s is 8-4-4-4-12 hexadecimal digits (either case).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// ParseTimestamp reads an RFC 3339 date-time as the Trace schema's
// "date-time" format does: 'T' or 't', 'Z' or 'z' or a numeric offset, an
// optional fraction, and a leap second (:60), which orders just before the
// next second.
func ParseTimestamp(s string) (time.Time, bool) {
	if t, ok := parseSecondZ(s); ok {
		return t, true
	}
	return parseTimestamp(s)
}

// parseSecondZ reads the one layout traces mostly hold,
// 2006-01-02T15:04:05Z, without time.Parse (which was a tenth of a
// tolerant diff's matching): false for anything else, a leap second
// included, which parseTimestamp then reads (FuzzParseSecondZ: the same
// time whenever this reads one).
func parseSecondZ(s string) (time.Time, bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, false // past the month's end: time.Date moved it to the next month
	}
	return t, true
}

// dayClock is ParseTimestamp for the timestamps of one trace, which
// mostly share their date: a 2006-01-02T15:04:05Z of the date read last
// is that date's midnight plus its time of day, without time.Date's
// calendar arithmetic (FuzzDayClock: the same time as ParseTimestamp).
type dayClock struct {
	date     string // the date part of the last 2006-01-02T15:04:05Z read; "": none
	midnight time.Time
}

func (c *dayClock) parse(s string) (time.Time, bool) {
	if len(s) == 20 && c.date != "" && s[:10] == c.date && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == 'Z' {
		h, mi, sec := twoDigits(s[11:13]), twoDigits(s[14:16]), twoDigits(s[17:19])
		if h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 {
			return c.midnight.Add(time.Duration(h*3600+mi*60+sec) * time.Second), true
		}
	}
	t, ok := parseSecondZ(s)
	if !ok {
		return parseTimestamp(s)
	}
	if c.date != s[:10] {
		c.date = strings.Clone(s[:10]) // s may be a view of a line
		c.midnight = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t, true
}

// twoDigits is the number two decimal digits spell, or -1.
func twoDigits(s string) int {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return -1
	}
	return int(s[0]-'0')*10 + int(s[1]-'0')
}

// parseTimestamp is ParseTimestamp by time.Parse.
func parseTimestamp(s string) (time.Time, bool) {
	if len(s) < 20 || len(s) > 64 {
		return time.Time{}, false
	}
	if s[10] != 't' && s[len(s)-1] != 'z' && (s[17] != '6' || s[18] != '0') {
		// Nothing to respell: time.Parse reads s as it is.
		t, err := time.Parse(time.RFC3339Nano, s)
		return t, err == nil
	}
	b := []byte(s)
	if b[10] == 't' {
		b[10] = 'T'
	}
	if n := len(b) - 1; b[n] == 'z' {
		b[n] = 'Z'
	}
	leap := false
	if b[17] == '6' && b[18] == '0' {
		b[17], b[18], leap = '5', '9', true
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, false
	}
	if leap {
		if t.UTC().Hour() != 23 || t.UTC().Minute() != 59 {
			return time.Time{}, false
		}
		t = t.Add(time.Second - time.Nanosecond)
	}
	return t, true
}

// globToken is one element of a compiled glob: a byte, or one of the
// classes below.
type globToken int16

const (
	globStar globToken = -1 // any run of bytes
	globHex  globToken = -2 // one hexadecimal digit
)

// compileGlob turns a Glob string into tokens: [..] a star, [UUID] the
// 36 classes of a UUID, every other byte itself.
func compileGlob(s string) []globToken {
	out := make([]globToken, 0, len(s))
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], AnyRun):
			if len(out) == 0 || out[len(out)-1] != globStar {
				out = append(out, globStar)
			}
			i += len(AnyRun)
		case strings.HasPrefix(s[i:], UUIDToken):
			for j := 0; j < 36; j++ {
				if j == 8 || j == 13 || j == 18 || j == 23 {
					out = append(out, '-')
				} else {
					out = append(out, globHex)
				}
			}
			i += len(UUIDToken)
		default:
			out = append(out, globToken(s[i]))
			i++
		}
	}
	return out
}

// globMatch is the classic wildcard match with backtracking to the last
// star: O(len(pat)·len(s)) at worst, never exponential.
func globMatch(pat []globToken, s string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && pat[p] == globStar:
			starP, starI = p, i
			p++
		case p < len(pat) && (pat[p] == globToken(s[i]) || pat[p] == globHex && isHex(s[i])):
			p++
			i++
		case starP >= 0:
			p = starP + 1
			starI++
			i = starI
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == globStar {
		p++
	}
	return p == len(pat)
}

// GlobMatch reports whether the actual string s matches the Glob string
// pattern (as written, holes included).
func GlobMatch(pattern, s string) bool { return globMatch(compileGlob(pattern), s) }
