package trajectory

import (
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// exactKey returns the fields that decide whether the call matches,
// encoded as one string, when that decision is plain equality of those
// fields (exact, ignored or keyed arguments, and no placeholder in a
// tolerant expected call): two such calls match exactly when their keys
// are equal, so they can be paired by key in linear time. ok is false
// for calls that need the general comparison (subset and superset
// arguments, placeholders).
func (c *comparer) exactKey(call *Call, expected bool) (string, bool) {
	literal := func(v jsonv.Value) bool { return !expected || !c.m.Tolerant || isLiteral(v) }
	if !literal(call.Tool) {
		return "", false
	}
	b := call.Tool.AppendCanonical(nil)
	b = append(b, 0)
	switch am := c.cfg.argsFor(call.ToolName()); am.kind() {
	case ArgsExact:
		if !literal(call.Arguments) {
			return "", false
		}
		b = appendCanon(b, call.Arguments)
	case ArgsIgnore:
	case ArgsKeys:
		for _, k := range am.Keys {
			v, _ := resolve(call.Arguments, k)
			if !literal(v) {
				return "", false
			}
			b = append(appendCanon(b, v), 0)
		}
	default:
		return "", false
	}
	if c.cfg.results() {
		b = append(b, 0)
		if call.HasResult {
			if !literal(call.ResultOK) {
				return "", false
			}
			b = appendCanon(append(b, 'r'), call.ResultOK)
		}
	}
	return string(b), true
}

// appendCanon appends v's canonical JSON, or a byte no JSON starts with
// for an absent value.
func appendCanon(b []byte, v jsonv.Value) []byte {
	if !v.IsValid() {
		return append(b, '-')
	}
	return v.AppendCanonical(b)
}

// isLiteral reports whether an expected value holds no placeholder, so
// that it matches exactly the values equal to it.
func isLiteral(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.String:
		k, _ := tolerant.Classify(v.Text())
		return k == tolerant.Literal && v.Text() != tolerant.AnyElements
	case jsonv.Array:
		for _, e := range v.Elems() {
			if !isLiteral(e) {
				return false
			}
		}
	case jsonv.Object:
		for _, m := range v.Members() {
			if !isLiteral(m.Value) {
				return false
			}
		}
	}
	return true
}
