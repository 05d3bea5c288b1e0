package subject

import (
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// docOrder is the order docs/protocol.md lists the schema's definitions
// in: the messages op by op, then the parts they share. Reference fails on
// a definition missing here, so a new one cannot be left undocumented.
var docOrder = []string{
	"hello_request", "hello_response",
	"journal_request", "journal_response",
	"replay_request", "replay_response",
	"branch_request", "branch_response",
	"append_request", "append_response",
	"checkpoint_request", "checkpoint_response",
	"replay_from_checkpoint_request", "replay_from_checkpoint_response",
	"resume_request", "resume_response",
	"error_response", "response_envelope",
	"state", "checkpoint_state", "branch_record", "message",
	"error_code", "op", "event", "events", "request_id", "sha256",
}

// Reference renders the message reference of docs/protocol.md from the
// protocol schema: one section per definition, a table of its fields
// (type, whether required, description) for objects. The doc holds this
// text between its generated-section markers; a test keeps them equal.
func Reference() (string, error) {
	root, err := jsonv.Parse(schema.ProtocolJSON)
	if err != nil {
		return "", err
	}
	defs, _ := root.Get("$defs")
	listed := map[string]bool{}
	for _, n := range docOrder {
		listed[n] = true
		if !defs.Has(n) {
			return "", fmt.Errorf("docOrder names %q, which the schema does not define", n)
		}
	}
	for _, m := range defs.Members() {
		if !listed[m.Key] {
			return "", fmt.Errorf("the schema defines %q, which docOrder does not place", m.Key)
		}
	}
	var b strings.Builder
	for i, name := range docOrder {
		if i > 0 {
			b.WriteString("\n")
		}
		def, _ := defs.Get(name)
		fmt.Fprintf(&b, "### %s\n\n", name)
		if d := text(def, "description"); d != "" {
			fmt.Fprintf(&b, "%s\n", d)
		}
		props, isObject := def.Get("properties")
		if !isObject || text(def, "type") != "object" {
			fmt.Fprintf(&b, "\nType: %s.\n", typeOf(def, defs))
			continue
		}
		b.WriteString("\n| field | type | required | description |\n| --- | --- | --- | --- |\n")
		writeFields(&b, "", def, props, defs)
		if ap, ok := def.Get("additionalProperties"); ok && ap.Kind() == jsonv.Bool && !ap.Bool() {
			b.WriteString("\nNo other member is allowed.\n")
		}
	}
	return b.String(), nil
}

// writeFields writes one table row per property of an object schema, and
// rows for the properties of an inline object under it ("limits.timeout_ms").
func writeFields(b *strings.Builder, prefix string, def, props, defs jsonv.Value) {
	required := map[string]bool{}
	if r, ok := def.Get("required"); ok {
		for _, x := range r.Elems() {
			required[x.Text()] = true
		}
	}
	for _, p := range props.Members() {
		req := "no"
		if required[p.Key] {
			req = "yes"
		}
		fmt.Fprintf(b, "| `%s%s` | %s | %s | %s |\n", prefix, p.Key, typeOf(p.Value, defs), req, cell(describe(p.Value, defs)))
		if inner, ok := p.Value.Get("properties"); ok && text(p.Value, "type") == "object" {
			writeFields(b, prefix+p.Key+".", p.Value, inner, defs)
		}
	}
}

func text(v jsonv.Value, key string) string {
	x, _ := v.Get(key)
	return x.Text()
}

// describe is a field's description, or its definition's.
func describe(v jsonv.Value, defs jsonv.Value) string {
	if d := text(v, "description"); d != "" {
		return d
	}
	if ref := text(v, "$ref"); ref != "" {
		target, _ := defs.Get(strings.TrimPrefix(ref, "#/$defs/"))
		if text(target, "type") != "object" {
			return text(target, "description")
		}
	}
	return ""
}

// typeOf renders a schema as a type for a reader.
func typeOf(v jsonv.Value, defs jsonv.Value) string {
	if ref := text(v, "$ref"); ref != "" {
		name := strings.TrimPrefix(ref, "#/$defs/")
		target, _ := defs.Get(name)
		if text(target, "type") == "object" || target.Has("enum") {
			return fmt.Sprintf("[%s](#%s)", name, name)
		}
		return typeOf(target, defs)
	}
	if c, ok := v.Get("const"); ok {
		return "`" + string(c.AppendJSON(nil)) + "`"
	}
	if e, ok := v.Get("enum"); ok {
		vals := make([]string, 0, e.Len())
		for _, x := range e.Elems() {
			vals = append(vals, "`"+string(x.AppendJSON(nil))+"`")
		}
		return "one of " + strings.Join(vals, ", ")
	}
	if alts, ok := v.Get("anyOf"); ok {
		parts := make([]string, 0, alts.Len())
		for _, a := range alts.Elems() {
			parts = append(parts, typeOf(a, defs))
		}
		return strings.Join(parts, " or ")
	}
	t, ok := v.Get("type")
	if !ok {
		return "any JSON value"
	}
	if t.Kind() == jsonv.Array {
		parts := make([]string, 0, t.Len())
		for _, x := range t.Elems() {
			parts = append(parts, x.Text())
		}
		return strings.Join(parts, " or ")
	}
	switch t.Text() {
	case "array":
		items, _ := v.Get("items")
		s := "array of " + typeOf(items, defs)
		if u, _ := v.Get("uniqueItems"); u.IsTrue() {
			s += ", without repeats"
		}
		return s
	case "integer":
		if m, ok := v.Get("minimum"); ok {
			return "integer ≥ " + m.Text()
		}
	case "string":
		var notes []string
		if m, ok := v.Get("minLength"); ok && m.Text() == "1" {
			notes = append(notes, "non-empty")
		} else if ok {
			notes = append(notes, "at least "+m.Text()+" characters")
		}
		if m, ok := v.Get("maxLength"); ok {
			notes = append(notes, "at most "+m.Text()+" characters")
		}
		if p, ok := v.Get("pattern"); ok {
			notes = append(notes, "matching `"+p.Text()+"`")
		}
		if len(notes) > 0 {
			return "string (" + strings.Join(notes, ", ") + ")"
		}
	}
	return t.Text()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
