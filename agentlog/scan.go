package agentlog

import (
	"bufio"
	"bytes"
	"io"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// handler receives what one pass over a file finds, in line order.
type handler interface {
	// record is one record the agent reads (or, on a concatenated line,
	// one a repair restores). rec is reused after the call.
	record(rec *Record)
	// badLine is a line that is not one JSON object; last: it is the
	// file's last line.
	badLine(num int, last bool, msg string)
	// concatenated is a line holding whole records (parts: their byte
	// ranges) and possibly torn bytes around them.
	concatenated(num int, parts [][2]int, torn bool)
	// missingNewline: the last line is a whole record without a newline.
	missingNewline(num int)
	tooLong(num int, length int64)
	invalidUTF8(num int)
}

var decoders = [...]func(*Record){Codex: decodeCodex, ClaudeCode: decodeClaude, Pi: decodePi, TSHarness: decodeTSHarness}

// sniff reads the first lines of r for Detect (at most SniffLines lines or
// about 1 MiB) and returns them with a reader that yields all of r again.
func sniff(r io.Reader) ([][]byte, io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 0; n < SniffLines && len(buf) < 1<<20; {
		l, err := br.ReadSlice('\n')
		buf = append(buf, l...)
		if err == bufio.ErrBufferFull {
			continue
		}
		n++
		if err != nil {
			break
		}
	}
	var lines [][]byte
	for _, l := range bytes.Split(buf, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 && len(lines) < SniffLines {
			lines = append(lines, l)
		}
	}
	return lines, io.MultiReader(bytes.NewReader(buf), br)
}

// idHinter is a handler that wants each record's entry id as soon as it
// is decoded (Record.setID), before the record is handed over.
type idHinter interface {
	idHint(id string)
}

// scanFile reads r line by line and reports to h; it returns the number
// of lines and the first read error. keyCheck: the records' flags say
// whether they repeat a key (jsonpeek.DuplicateKey), which an import needs
// before it copies raw bytes.
func scanFile(r io.Reader, f Format, maxLine int, keyCheck bool, h handler) (int, error) {
	lr := newLineReader(r, maxLine)
	d := jsonpeek.Doc{NoKeyCheck: !keyCheck}
	rec := Record{in: newInterner()}
	if hh, ok := h.(idHinter); ok {
		rec.idHint = hh.idHint
	}
	decode := decoders[f]
	type bad struct {
		num int
		msg string
	}
	var pending *bad
	flush := func(last bool) {
		if pending != nil {
			h.badLine(pending.num, last, pending.msg)
			pending = nil
		}
	}
	n := 0
	for {
		l, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			flush(false)
			return n, err
		}
		n = l.num
		if len(bytes.TrimSpace(l.raw)) == 0 && !l.tooLong {
			continue // every agent skips blank lines
		}
		flush(false)
		if l.tooLong {
			h.tooLong(l.num, l.length)
			continue
		}
		if err := d.Parse(l.raw); err != nil || d.Root().Kind() != jsonpeek.Object {
			if parts, torn := splitConcatenated(&d, l.raw, f); parts != nil {
				h.concatenated(l.num, parts, torn || l.torn)
				for _, p := range parts {
					if d.Parse(l.raw[p[0]:p[1]]) == nil {
						rec.reset(l.num, d.Root())
						decode(&rec)
						h.record(&rec)
					}
				}
				continue
			}
			msg := "the line holds a JSON " + d.Root().Kind().String() + ", not an object"
			if err != nil {
				msg = err.Error()
			}
			pending = &bad{l.num, msg}
			continue
		}
		if l.torn {
			h.missingNewline(l.num)
		}
		if d.Flags()&jsonpeek.InvalidUTF8 != 0 {
			h.invalidUTF8(l.num)
		}
		rec.reset(l.num, d.Root())
		decode(&rec)
		h.record(&rec)
	}
	flush(true)
	return n, nil
}

// maxSplitTries bounds the positions tried when looking for a record glued
// after a torn one.
const maxSplitTries = 256

// splitConcatenated finds whole JSON objects sharing one line that does
// not parse as one: "{…}{…}" (two records), "{…}{…" (a whole record, then
// a torn one) or "{…{…}" (a torn record, then a whole one, as
// anthropics/claude-code#52387 shows). It returns the byte ranges of the
// whole records and whether torn bytes surround them; nil when the line
// is not of that shape. Every whole part must look like a record of format
// f (plausible), so that an inner object of one torn record is not taken
// for a record of its own. d is used as scratch.
func splitConcatenated(d *jsonpeek.Doc, raw []byte, f Format) (parts [][2]int, torn bool) {
	objects := func(from int, toEnd bool) ([][2]int, int) {
		var ps [][2]int
		i := from
		for {
			for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r') {
				i++
			}
			if i >= len(raw) || raw[i] != '{' {
				return ps, i
			}
			n, err := d.ParsePrefix(raw[i:])
			if err == nil && !plausible(f, d.Root()) {
				return nil, i
			}
			if err != nil {
				if toEnd {
					return nil, i
				}
				return ps, i
			}
			ps = append(ps, [2]int{i, i + n})
			i += n
		}
	}
	start := 0
	for start < len(raw) && (raw[start] == ' ' || raw[start] == '\t') {
		start++
	}
	if ps, rest := objects(start, false); len(ps) > 0 {
		switch {
		case rest >= len(raw) && len(ps) >= 2:
			return ps, false
		case rest < len(raw) && raw[rest] == '{':
			return ps, true
		}
		return nil, false
	}
	tries := 0
	for i := start + 1; i < len(raw) && tries < maxSplitTries; i++ {
		j := bytes.Index(raw[i:], []byte(`{"`))
		if j < 0 {
			break
		}
		i += j
		tries++
		// After ':', ',' or '[' the object is a value inside the torn
		// record, not a record of its own.
		k := i - 1
		for k > 0 && (raw[k] == ' ' || raw[k] == '\t') {
			k--
		}
		if c := raw[k]; c == ':' || c == ',' || c == '[' {
			continue
		}
		if ps, rest := objects(i, true); len(ps) > 0 && rest >= len(raw) {
			return ps, true
		}
	}
	return nil, false
}

// plausible reports whether v has the top-level fields of a record of
// format f.
func plausible(f Format, v jsonpeek.Value) bool {
	if v.Get("type").Kind() != jsonpeek.String {
		return false
	}
	switch f {
	case Codex, TSHarness:
		return v.Get("timestamp").Exists() && v.Get("payload").Kind() == jsonpeek.Object
	case ClaudeCode:
		return v.Get("uuid").Exists() || v.Get("sessionId").Exists() || v.Get("leafUuid").Exists() || v.Get("messageId").Exists()
	case Pi:
		return v.Get("id").Exists() || v.Get("message").Exists() || v.Get("timestamp").Exists()
	}
	return false
}
