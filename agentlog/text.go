package agentlog

import "github.com/tracecheck/tracecheck/agentlog/jsonpeek"

// What import writes for a message's content: the text the model reads,
// never the native array of parts, so that `tracecheck view` shows the
// words and `tracecheck replay` hashes them (a payload member that is an
// array or object reaches neither as text). The rule is the one
// modelserver/wire uses for Message.Text: a string as it is; an array of
// parts, each part's text joined by "\n": a text part (Codex input_text,
// output_text, summary_text, reasoning_text; Claude Code and pi text) its
// text, an image part "[image]", any other part "[TYPE]" (import then
// keeps the native value too, as native_<key>). A tool_result block in a
// Claude Code user line is left out: import writes it as its own
// tool.result event.

// appendPartsText appends content as text, encoded as the inside of a
// JSON string. It copies the native strings' JSON text as it is (escapes
// and all), so it needs a line without the problems strictFlags names
// (the caller falls back to the raw value on one). lossy: some part held
// more than text (an image, a part of another type), so the caller keeps
// the native value beside the text.
func appendPartsText(b []byte, content jsonpeek.Value) (_ []byte, lossy bool) {
	switch content.Kind() {
	case jsonpeek.String:
		return appendStringBody(b, content), false
	case jsonpeek.Array:
		n := 0
		content.Elems(func(_ int, p jsonpeek.Value) bool {
			if p.Get("type").Is("tool_result") {
				return true
			}
			if n > 0 {
				b = append(b, `\n`...)
			}
			var l bool
			b, l = appendPartText(b, p)
			lossy = lossy || l
			n++
			return true
		})
		return b, lossy
	case jsonpeek.Object:
		if content.Get("type").Is("tool_result") {
			return b, true
		}
		b, _ = appendPartText(b, content)
		return b, true
	}
	return b, true
}

// appendPartText appends one content part as text; lossy: the text does
// not say all the part held.
func appendPartText(b []byte, p jsonpeek.Value) (_ []byte, lossy bool) {
	if p.Kind() == jsonpeek.String {
		return appendStringBody(b, p), false
	}
	typ := p.Get("type")
	switch {
	case typ.Is("text"), typ.Is("input_text"), typ.Is("output_text"), typ.Is("summary_text"), typ.Is("reasoning_text"):
		if t := p.Get("text"); t.Kind() == jsonpeek.String {
			return appendStringBody(b, t), false
		}
	case typ.Is("image"), typ.Is("image_url"), typ.Is("input_image"):
		return append(b, "[image]"...), true
	case typ.Kind() != jsonpeek.String || typ.IsEmpty():
		return append(b, "[part]"...), true
	}
	b = append(b, '[')
	b = appendStringBody(b, typ)
	return append(b, ']'), true
}

// appendStringBody appends a string's JSON text without its quotes.
func appendStringBody(b []byte, s jsonpeek.Value) []byte {
	raw := s.Raw()
	return append(b, raw[1:len(raw)-1]...)
}
