// Package textsafe makes strings that came from input safe to print in text
// output meant for a terminal or a line-oriented log.
//
// An event id, a session id or a file name is data an attacker can write:
// printed raw, a newline in it forges an extra "ok" line and an ANSI escape
// recolours or rewrites the terminal. Quote returns a plain string
// unchanged, so ordinary output stays as it was, and otherwise a Go-quoted
// string (with its double quotes) in which every control character,
// invalid byte, and bidirectional or invisible formatting character is
// escaped. The result never contains a byte below 0x20, DEL, or a character
// that changes how the rest of the line is displayed.
//
// JSON output needs none of this: encoding/json already escapes controls.
package textsafe

import (
	"unicode"
	"unicode/utf8"
)

// Quote returns s when it is safe to print as is, else its Go quoting.
// An empty string is quoted ("") so that it stays visible.
func Quote(s string) string {
	if s != "" && Plain(s) {
		return s
	}
	return quote(s)
}

// Plain reports whether s can be printed as is: valid UTF-8 made of
// printable characters, with no space at either end (which would blur
// where the value stops) and no quote character (so that a quoted value
// and a plain one can never be mistaken for each other).
func Plain(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if r == '"' || r == '\\' || !safeRune(r) {
			return false
		}
		if r == ' ' && (i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// Displayable reports whether s can go to a terminal as it is: valid UTF-8
// made of printable characters (spaces included), none of them a
// formatting character. Unlike Plain it allows quote marks, backslashes and
// spaces at either end: it is the test for prose, not for a value that must
// stand apart from the text around it.
func Displayable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if !safeRune(r) {
			return false
		}
	}
	return true
}

// Escape returns s with every character Quote would escape (a control
// character, an invalid byte, a bidirectional or invisible formatting
// character) replaced by the escape Quote writes for it, and everything
// else, quote marks, backslashes and spaces included, as it is, with no
// quotes around it: for prose that quotes input (a schema library's
// message, a JSON line, a line of a program's stderr), which must stay
// readable and on one line.
func Escape(s string) string {
	if Displayable(s) {
		return s
	}
	buf := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r != utf8.RuneError || size > 1) && safeRune(r) {
			buf = append(buf, s[i:i+size]...)
		} else {
			q := quote(s[i : i+size])
			buf = append(buf, q[1:len(q)-1]...)
		}
		i += size
	}
	return string(buf)
}

// EscapeJSON returns a JSON text (a trace line, a field's value) safe to
// print with its meaning as JSON kept: every character Escape would escape
// becomes a JSON \uXXXX escape (a surrogate pair beyond U+FFFF, \ufffd for
// a byte that is not UTF-8, which is what a JSON reader makes of it);
// everything else, quote marks and backslashes included, stays as it is.
// Inside a JSON string the result is the same string; outside one, the
// text was not JSON to begin with.
func EscapeJSON(s string) string {
	if Displayable(s) {
		return s
	}
	const hex = "0123456789abcdef"
	u := func(buf []byte, r rune) []byte {
		return append(buf, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	buf := make([]byte, 0, len(s)+12)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = u(buf, utf8.RuneError)
		case safeRune(r):
			buf = append(buf, s[i:i+size]...)
		case r > 0xffff:
			r -= 0x10000
			buf = u(u(buf, 0xd800+(r>>10)&0x3ff), 0xdc00+r&0x3ff)
		default:
			buf = u(buf, r)
		}
		i += size
	}
	return string(buf)
}

// safeRune: printable and not a formatting character (Cf: bidi overrides,
// zero-width joiners, the BOM), which display as nothing or reorder text.
func safeRune(r rune) bool {
	return (r == ' ' || unicode.IsPrint(r)) && !unicode.Is(unicode.Cf, r)
}

// quote writes s between double quotes with Go's escapes: \n, \t, \r,
// \" and \\, \xNN for a byte that is not UTF-8, and \uNNNN or
// \UNNNNNNNN for any other character that is not safe to display.
func quote(s string) string {
	const hex = "0123456789abcdef"
	buf := make([]byte, 0, len(s)+2)
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			buf = append(buf, '\\', 'x', hex[s[i]>>4], hex[s[i]&0xf])
		case r == '"' || r == '\\':
			buf = append(buf, '\\', byte(r))
		case r == '\n':
			buf = append(buf, '\\', 'n')
		case r == '\r':
			buf = append(buf, '\\', 'r')
		case r == '\t':
			buf = append(buf, '\\', 't')
		case safeRune(r):
			buf = append(buf, s[i:i+size]...)
		case r < 0x80:
			buf = append(buf, '\\', 'x', hex[r>>4], hex[r&0xf])
		case r <= 0xffff:
			buf = append(buf, '\\', 'u')
			for shift := 12; shift >= 0; shift -= 4 {
				buf = append(buf, hex[(r>>shift)&0xf])
			}
		default:
			buf = append(buf, '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				buf = append(buf, hex[(r>>shift)&0xf])
			}
		}
		i += size
	}
	return string(append(buf, '"'))
}
