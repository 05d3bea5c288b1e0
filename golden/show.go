package golden

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// MaxShown is how many bytes of a line or value that cannot be shown as it
// is (not JSON, not text, or too long) a report shows.
const MaxShown = 200

// ShowLine returns a line of a golden or render (without its newline) as
// a report may print it: a JSON line made of displayable characters as it
// is; any other line (not JSON, not UTF-8 text, or holding control, bidi
// or invisible formatting characters) cut to MaxShown bytes, the cut said,
// and quoted with textsafe.Quote (which leaves plain text as it is).
func ShowLine(line string) string {
	if Displayable(line) {
		if _, err := jsonv.Parse([]byte(line)); err == nil {
			return line
		}
	}
	return ShowText(line)
}

// ShowText quotes s (textsafe.Quote) after cutting it to MaxShown bytes;
// a cut says how long s was.
func ShowText(s string) string {
	if len(s) <= MaxShown {
		return textsafe.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", textsafe.Quote(cut(s, MaxShown)), len(s))
}

// ShowJSON returns a JSON text (a field's value) as a report may print
// it: SafeJSON, cut to MaxShown bytes, the cut said.
func ShowJSON(s string) string {
	s = SafeJSON(s)
	if len(s) <= MaxShown {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", cut(s, MaxShown), len(s))
}

// SafeJSON returns a JSON text with every character a terminal would act
// on (controls, bidi and invisible formatting characters) escaped as
// \uXXXX, which leaves it the same JSON value (textsafe.EscapeJSON).
func SafeJSON(s string) string { return textsafe.EscapeJSON(s) }

// Displayable reports whether s can go to a terminal as it is
// (textsafe.Displayable): valid UTF-8 of printable characters, none of them
// a formatting character (bidi overrides, zero-width joiners) that changes
// what the line shows.
func Displayable(s string) bool { return textsafe.Displayable(s) }

// cut returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SafeLines returns text (a message that may span lines) with every line
// that a terminal would act on quoted and cut (ShowText); other lines are
// kept as they are.
func SafeLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !Displayable(l) {
			lines[i] = ShowText(l)
		}
	}
	return strings.Join(lines, "\n")
}
