package reducer

// Reading the members a history needs from a payload's JSON text, without
// a tree of the rest: a tool.result holding megabytes of output costs the
// text of its tool message, not a jsonv.Value per number in it. The rules
// are jsonv.Value's (Get, Text, Int64, IsTrue, Elems), applied to the text.

import (
	"bytes"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// payloadText is a payload as valid JSON text (as a session file stores
// it, or as jsonv.Value.AppendJSON writes it).
type payloadText []byte

// fields returns the texts of the members keys of the object p, reading
// it once: out[i] is nil when p lacks keys[i] or is not an object. (A
// value's text is never empty.)
func (p payloadText) fields(keys ...string) []payloadText {
	out := make([]payloadText, len(keys))
	left := len(keys)
	jsonv.EachMember(p, func(k, v []byte) bool {
		escaped := bytes.IndexByte(k, '\\') >= 0
		for i, key := range keys {
			if out[i] == nil && (string(k) == key || escaped && jsonv.KeyText(k) == key) {
				out[i] = v
				left--
			}
		}
		return left > 0
	})
	return out
}

// isTrue reports whether p is the literal true (Value.IsTrue).
func (p payloadText) isTrue() bool { return string(p) == "true" }

// kind returns p's JSON kind; Invalid for no text.
func (p payloadText) kind() jsonv.Kind { return jsonv.KindOfText(p) }

// scalar returns p as a Value when it is a scalar (a string's text is
// decoded, a number spelt as Python spells it), and an empty container of
// its kind otherwise: what Text, Int64 and Kind of the whole value give.
func (p payloadText) scalar() jsonv.Value {
	switch p.kind() {
	case jsonv.Invalid:
		return jsonv.Value{}
	case jsonv.Object:
		return jsonv.Obj()
	case jsonv.Array:
		return jsonv.Arr()
	}
	v, _ := jsonv.Parse(p) // valid JSON
	return v
}

// text is Python's str() of a string or number member as the history
// reads it: a string's text, a number's spelling; "" for anything else and
// for an absent member (nil).
func (p payloadText) text() string {
	switch p.kind() {
	case jsonv.String:
		t, _ := jsonv.StringText(p) // no tape for a long text
		return t
	case jsonv.Number:
		return p.scalar().Text()
	}
	return ""
}

// elems calls fn with each element of an array (none when p is not one).
func (p payloadText) elems(fn func(e payloadText) bool) {
	jsonv.EachElement(p, func(e []byte) bool { return fn(payloadText(e)) })
}

// ordered returns what jsonv.Parse(p).AppendJSON writes (member order
// kept, Python's spellings), without the tree.
func (p payloadText) ordered(c *jsonv.Canonicalizer) []byte {
	b, _ := c.AppendOrdered(nil, p) // valid JSON
	return b
}

// pySpaced writes AppendPySpaced of the value p holds to b: its canonical
// encoding (written without a tree, into scratch, which it returns) with
// Python's default separators, ", " and ": ", put back outside strings.
func pySpaced(b *strings.Builder, c *jsonv.Canonicalizer, scratch []byte, p payloadText) []byte {
	canon, _ := c.Append(scratch[:0], p) // valid JSON
	seps := 0
	eachSeparator(canon, func(int) { seps++ })
	b.Grow(len(canon) + seps)
	from := 0
	eachSeparator(canon, func(i int) {
		b.Write(canon[from : i+1])
		b.WriteByte(' ')
		from = i + 1
	})
	b.Write(canon[from:])
	return canon
}

// eachSeparator calls fn with the index of every ',' and ':' of a compact
// JSON text that is not inside a string.
func eachSeparator(canon []byte, fn func(i int)) {
	inString := false
	for i := 0; i < len(canon); i++ {
		switch b := canon[i]; {
		case inString && b == '\\':
			i++
		case b == '"':
			inString = !inString
		case !inString && (b == ',' || b == ':'):
			fn(i)
		}
	}
}

var nullText = payloadText("null")

// toolResultText is ToolResultContent of a tool.result payload whose
// members ok, result, error and error_type are given (nil when absent).
func toolResultText(c *jsonv.Canonicalizer, scratch *[]byte, ok, result, errv, typ payloadText) string {
	or := func(v payloadText) payloadText {
		if v == nil {
			return nullText
		}
		return v
	}
	var b strings.Builder
	if ok.isTrue() {
		*scratch = pySpaced(&b, c, *scratch, or(result))
		return b.String()
	}
	// The keys in order: error, error_type, ok.
	b.WriteString(`{"error": `)
	*scratch = pySpaced(&b, c, *scratch, or(errv))
	b.WriteString(`, "error_type": `)
	*scratch = pySpaced(&b, c, *scratch, or(typ))
	b.WriteString(`, "ok": false}`)
	return b.String()
}
