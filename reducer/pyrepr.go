package reducer

import (
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// pyStr mirrors Python's str(payload.get(key, def)) for JSON values, so a
// replayed view holds what the reference's view holds even for payloads
// whose text fields are not strings.
func pyStr(p jsonv.Value, key, def string) string {
	v, ok := p.Get(key)
	if !ok {
		return def
	}
	if v.Kind() == jsonv.String {
		return v.Text()
	}
	return string(v.AppendPyRepr(nil))
}

// pyStrText is pyStr for a payload given as its valid JSON text: only the
// member asked for is decoded, and a value that is not a string is written
// as Python's repr straight from its text, so a huge list costs its repr,
// not a tree of it.
func pyStrText(c *jsonv.Canonicalizer, payload []byte, key, def string) string {
	raw, ok := jsonv.MemberText(payload, key)
	if !ok {
		return def
	}
	if s, ok := jsonv.StringText(raw); ok {
		return s
	}
	out, err := c.AppendPyRepr(nil, raw)
	if err != nil {
		return def // unreachable: the payload was validated
	}
	return string(out)
}
