package wire

import (
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// contentText is a message content as the model reads it (Message.Text):
// a string as it is; an array of parts, each text part's text and every
// other part as "[TYPE]" ("[image]" for the image kinds), joined by "\n".
func contentText(c jsonv.Value) string {
	switch c.Kind() {
	case jsonv.String:
		return c.Text()
	case jsonv.Array:
		parts := make([]string, 0, c.Len())
		for _, p := range c.Elems() {
			parts = append(parts, partText(p))
		}
		return strings.Join(parts, "\n")
	case jsonv.Invalid, jsonv.Null:
		return ""
	}
	return string(c.AppendJSON(nil))
}

// partText is one content part as text.
func partText(p jsonv.Value) string {
	if p.Kind() == jsonv.String {
		return p.Text()
	}
	typ, _ := p.Get("type")
	switch typ.Text() {
	case "text", "input_text", "output_text":
		t, _ := p.Get("text")
		return t.Text()
	case "tool_result":
		c, _ := p.Get("content")
		return contentText(c)
	case "image", "image_url", "input_image":
		return "[image]"
	case "":
		return "[part]"
	}
	return "[" + typ.Text() + "]"
}

// callLine is one tool call of an assistant message as Message.Text
// writes it: "NAME ARGUMENTS", the arguments as sent (a string as it is,
// any other JSON compact).
func callLine(name string, args jsonv.Value) string {
	if args.Kind() == jsonv.String {
		return name + " " + args.Text()
	}
	if !args.IsValid() {
		return name
	}
	return name + " " + string(args.AppendJSON(nil))
}

// joinText joins the non-empty pieces of a message's text by "\n".
func joinText(pieces ...string) string {
	var kept []string
	for _, p := range pieces {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n")
}
