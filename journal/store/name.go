package store

import (
	"strings"
)

// Ext is the extension of session files.
const Ext = ".jsonl"

// maxNameBytes is the longest file name Linux file systems accept.
const maxNameBytes = 255

const upperHex = "0123456789ABCDEF"

// FileName returns the file name that holds session id: the ID with every
// byte outside [A-Za-z0-9._-], every '%' and a leading '.' written as %XX,
// then ".jsonl". The mapping is one-to-one, and the result never contains
// a '/', never starts with '.', and is never "." or "..".
func FileName(id string) (string, error) {
	if id == "" {
		return "", &Error{Kind: ErrInvalidSessionID, Msg: "session id is empty"}
	}
	var b strings.Builder
	b.Grow(len(id) + len(Ext))
	for i := 0; i < len(id); i++ {
		c := id[i]
		if safe(c) && !(i == 0 && c == '.') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	b.WriteString(Ext)
	if b.Len() > maxNameBytes {
		return "", &Error{Kind: ErrInvalidSessionID, SessionID: id,
			Msg: "session id is too long for a file name once escaped"}
	}
	return b.String(), nil
}

// SessionID returns the session whose file is name, and false when name is
// not the file of any session (it is not what FileName would produce).
func SessionID(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, Ext)
	if !ok || base == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(base); i++ {
		c := base[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(base) {
			return "", false
		}
		hi, lo := unhex(base[i+1]), unhex(base[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	id := b.String()
	if again, err := FileName(id); err != nil || again != name {
		return "", false
	}
	return id, true
}

func safe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
