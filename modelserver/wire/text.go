package wire

import (
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// contentText is a message content as the model reads it (Message.Text):
// a string as it is; an array of parts, each text part's text and every
// other part as "[TYPE]" ("[image]" for the image kinds), joined by "\n".
// Each part counts as an item of the request (d.count).
func (d *decoder) contentText(c val) (string, *Error) {
	switch c.Kind() {
	case jsonv.String:
		return d.textOf(c)
	case jsonv.Array:
		var b strings.Builder
		var e *Error
		for k, p := range c.All() {
			if e = d.count(1); e != nil {
				break
			}
			if k > 0 {
				if e = d.addText(1); e != nil {
					break
				}
				b.WriteByte('\n')
			}
			t, pe := d.partText(p)
			if pe != nil {
				e = pe
				break
			}
			b.WriteString(t)
		}
		return b.String(), e
	case jsonv.Invalid, jsonv.Null:
		return "", nil
	}
	b, e := d.appendJSON(d.grow(0, c), c)
	if e != nil {
		return "", e
	}
	return string(b), nil
}

// partText is one content part as text, counted.
func (d *decoder) partText(p val) (string, *Error) {
	if p.Kind() == jsonv.String {
		return d.textOf(p)
	}
	var f [3]val
	p.pick(f[:], "type", "text", "content")
	typ := f[0].Text()
	var t string
	switch typ {
	case "text", "input_text", "output_text":
		return d.textOf(f[1])
	case "tool_result":
		if d.nested == MaxNesting {
			return "", Invalid("", "a tool_result block's content holds tool_result blocks more than %d deep", MaxNesting)
		}
		d.nested++
		defer func() { d.nested-- }()
		return d.contentText(f[2])
	case "image", "image_url", "input_image":
		t = "[image]"
	case "":
		t = "[part]"
	default:
		t = "[" + typ + "]"
	}
	return t, d.addText(len(t))
}

// MaxNesting is how deep tool_result blocks may nest in one another's
// content (the APIs take none; reading each level goes over the levels
// inside it again).
const MaxNesting = 8

// callLine is one tool call of an assistant message as Message.Text
// writes it: "NAME ARGUMENTS", the arguments as sent (a string as it is,
// any other JSON compact), counted.
func (d *decoder) callLine(name string, args val) (string, *Error) {
	if e := d.addText(len(name) + 1); e != nil {
		return "", e
	}
	switch {
	case args.Kind() == jsonv.String:
		t, e := d.textOf(args)
		return name + " " + t, e
	case !args.IsValid():
		return name, nil
	}
	b := d.grow(len(name)+1, args)
	b, e := d.appendJSON(append(append(b, name...), ' '), args)
	if e != nil {
		return "", e
	}
	return string(b), nil
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
