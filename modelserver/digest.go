package modelserver

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tracecheck/tracecheck/internal/placeholder"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/modelserver/wire"
)

// PreviewRunes is how much of a message's text a trace's preview shows.
const PreviewRunes = 48

// appendDigest appends the description of a message for the trace: its
// role, the calls it makes or answers, and the SHA-256 and a short
// preview of its text with the placeholders applied, so that a changed
// tool output or prompt is a difference in the trace while what varies per
// run is not. d is the digest of m.Text (digests.of).
func appendDigest(b []byte, m *wire.Message, d textDigest) []byte {
	b = append(b, `{"role":`...)
	b = jsonv.Str(m.Role).AppendJSON(b)
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"calls":[`...)
		for i, c := range m.ToolCalls {
			b = appendStr(b, i, c)
		}
		b = append(b, ']')
	}
	if m.Answers != "" {
		b = append(b, `,"answers":`...)
		b = jsonv.Str(m.Answers).AppendJSON(b)
	}
	b = append(b, `,"sha256":"`...)
	b = hex.AppendEncode(b, d.sum[:])
	b = append(b, `","chars":`...)
	b = jsonv.AppendInt(b, int64(d.chars))
	b = append(b, `,"preview":`...)
	b = jsonv.Str(d.preview).AppendJSON(b)
	return append(b, '}')
}

// textDigest is what a trace records of a message's text: its SHA-256,
// its length in runes and its preview, the placeholders applied first.
type textDigest struct {
	sum     [sha256.Size]byte
	chars   int
	preview string
}

// digestText is the digest of text with set's placeholders applied.
func digestText(text string, set *placeholder.Set) textDigest {
	t := set.Text(text)
	return textDigest{sum: sum256(t), chars: utf8.RuneCountInString(t), preview: preview(t)}
}

// digests remembers the digests of the last request's messages by their
// place: an agent sends its whole conversation again on every request, so
// message i of a request is most often message i of the one before, and
// its text is hashed (and its placeholders applied) once, not on every
// request after it. A text is compared whole before its digest is used
// again. What it keeps, the texts, their previews and a record per
// message, is at most maxRemembered bytes (and the slack of the records'
// slice): a request of more messages, or of longer ones, has the rest
// digested every time.
type digests struct {
	last []remembered
	kept int // bytes held: rememberedSize per record, its text and preview
}

// remembered is the digest of a message's text, the text as the request
// sent it (placeholders not applied); ok false: nothing remembered.
type remembered struct {
	text string
	d    textDigest
	ok   bool
}

// maxRemembered bounds what digests keeps from one request to the next.
const maxRemembered = 4 << 20

// rememberedSize is what a record costs before its strings.
const rememberedSize = int(unsafe.Sizeof(remembered{}))

// of returns the digest of text, message i of a request (asked for i = 0,
// 1, ... in turn), from the last request's message i when its text is the
// same, and remembers it for the next request.
func (ds *digests) of(i int, text string, set *placeholder.Set) textDigest {
	if i < len(ds.last) && ds.last[i].ok && ds.last[i].text == text {
		return ds.last[i].d
	}
	d := digestText(text, set)
	if i > len(ds.last) {
		return d // past the records the bound allowed
	}
	if i == len(ds.last) {
		if ds.kept+rememberedSize > maxRemembered {
			return d
		}
		ds.last = append(ds.last, remembered{})
		ds.kept += rememberedSize
	}
	r := &ds.last[i]
	ds.kept -= r.strings()
	*r = remembered{}
	if n := len(text) + len(d.preview); ds.kept+n <= maxRemembered {
		*r = remembered{text: text, d: d, ok: true}
		ds.kept += n
	}
	return d
}

// strings is what r's strings hold.
func (r *remembered) strings() int { return len(r.text) + len(r.d.preview) }

// keep forgets what digests holds of messages from n on, before a
// request of n messages is digested: the places it does not have.
func (ds *digests) keep(n int) {
	if n >= len(ds.last) {
		return
	}
	for i := n; i < len(ds.last); i++ {
		ds.kept -= rememberedSize + ds.last[i].strings()
	}
	clear(ds.last[n:])
	ds.last = ds.last[:n]
}

// sum256 is the SHA-256 of s, hashed through a small buffer: no copy of
// a long text. A short text (most messages) is copied into a buffer of
// its size class, not the 16 KiB one, which would be cleared for each.
func sum256(s string) [sha256.Size]byte {
	if len(s) <= 256 {
		var small [256]byte
		return sha256.Sum256(small[:copy(small[:], s)])
	}
	h := sha256.New()
	var buf [16 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// preview is the start of text, at most PreviewRunes runes, "…" when cut.
func preview(text string) string {
	n := 0
	for i := range text {
		if n == PreviewRunes {
			return strings.ToValidUTF8(text[:i], "") + "…"
		}
		n++
	}
	return strings.ToValidUTF8(text, "")
}
