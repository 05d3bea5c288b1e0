package agentlog

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tracecheck/tracecheck/agentlog/jsonpeek"
)

// RepairResult says what Repair did to one file.
type RepairResult struct {
	// Report is the lint of the original file; its findings that are not
	// Repairable are left as they are.
	Report *FileReport
	// Repairs lists every change, one line each ("LINE: what was done").
	Repairs []string
	// Sidelined counts the lines (or parts of lines) moved to the side file.
	Sidelined int
}

// Repair lints a file and writes a repaired copy of it to out, and the
// bytes it takes out (torn tails, invalid lines, torn parts of
// concatenated lines) to the writer side returns, one per line; side is
// called only when something is sidelined. open is called twice: the
// file is linted first, then copied with the repairs. Findings that no
// repair answers (a duplicate id, a dangling parent no single entry fits)
// stay in the copy and in Report.
//
// Each repair follows the agent's own convention (docs/agent-logs.md):
// a call without a result gets, right after its line, the result the
// agent itself gives an interrupted call; a dangling parent is pointed at
// the one entry that can have been its parent; nothing else changes.
func Repair(open func() (io.ReadCloser, error), name string, out io.Writer, side func() (io.Writer, error), opt Options) (*RepairResult, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	rep := lint(rc, name, opt, true)
	rc.Close()
	res := &RepairResult{Report: rep}
	if rep.Format == Unknown || rep.Format == Trace {
		return res, fmt.Errorf("%s: lint --repair reads codex, claude-code, pi or ts-harness files, not %s", name, rep.Format)
	}
	defer rep.ids.Close() // lint keeps the entry ids for every other format
	if err := rep.idsErr; err != nil {
		return res, fmt.Errorf("%s: not repaired: %v", name, err)
	}
	if rep.Counts[ReadFailed] > 0 || rep.Counts[LineTooLong] > 0 {
		return res, fmt.Errorf("%s: not repaired: a line could not be read whole, so a copy would lose it", name)
	}
	rc, err = open()
	if err != nil {
		return res, err
	}
	defer rc.Close()
	rw := &repairWriter{res: res, format: rep.Format, out: bufio.NewWriterSize(out, 256<<10), side: side,
		ids: rep.ids, reparent: map[string]string{}}
	if err := rw.run(rc, rep.fixes, opt.MaxLine); err != nil {
		return res, err
	}
	if err := rw.ids.Err(); err != nil {
		return res, fmt.Errorf("%s: not repaired: %v", name, err)
	}
	return res, rw.out.Flush()
}

type repairWriter struct {
	res      *RepairResult
	format   Format
	out      *bufio.Writer
	side     func() (io.Writer, error)
	sideW    *bufio.Writer
	ids      IDSet
	reparent map[string]string // an answered call's entry id -> the last answer's id
	doc      jsonpeek.Doc
	scratch  []byte
}

func (rw *repairWriter) note(line int, format string, a ...any) {
	rw.res.Repairs = append(rw.res.Repairs, strconv.Itoa(line)+": "+fmt.Sprintf(format, a...))
}

func (rw *repairWriter) run(r io.Reader, fixes []fix, maxLine int) error {
	lr := newLineReader(r, maxLine)
	k := 0
	for {
		l, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		var mine []fix
		for k < len(fixes) && fixes[k].line < l.num {
			k++
		}
		for k < len(fixes) && fixes[k].line == l.num {
			mine = append(mine, fixes[k])
			k++
		}
		if err := rw.line(l, mine); err != nil {
			return err
		}
	}
	if rw.sideW != nil {
		return rw.sideW.Flush()
	}
	return nil
}

func (rw *repairWriter) line(l line, fixes []fix) error {
	raw := l.raw
	var answers []fix
	for _, f := range fixes {
		switch f.kind {
		case fixSideline:
			rw.note(l.num, "moved the line (%d bytes) to the side file", len(raw))
			return rw.sideline(raw)
		case fixSplit:
			return rw.split(l.num, raw, f)
		case fixNewline:
			rw.note(l.num, "ended the last line with its missing newline")
		case fixUTF8:
			raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
			rw.note(l.num, "replaced bytes that are not UTF-8 with U+FFFD")
		case fixRelink:
			var ok bool
			if raw, ok = rw.setParent(raw, f.parent); ok {
				rw.note(l.num, "pointed the parent link at %s, the one earlier entry that fits", q(f.parent))
			}
		case fixAnswer:
			answers = append(answers, f)
		}
	}
	if len(bytes.TrimSpace(raw)) > 0 && len(rw.reparent) > 0 {
		raw = rw.follow(l.num, raw)
	}
	rw.out.Write(raw)
	rw.out.WriteByte('\n')
	prev := ""
	for _, f := range answers {
		ans, id := rw.answer(f.call, prev)
		if ans == nil {
			continue
		}
		rw.out.Write(ans)
		rw.out.WriteByte('\n')
		rw.note(l.num, "answered tool call %s with %s after its line", q(f.call.item.CallID), answerWhat(rw.format))
		if id != "" {
			prev = id
		}
	}
	if prev != "" && answers[0].call.entryID != "" {
		rw.reparent[answers[0].call.entryID] = prev
	}
	return nil
}

func answerWhat(f Format) string {
	switch f {
	case Codex:
		return `Codex's "aborted" output`
	case ClaudeCode:
		return "an is_error tool_result"
	case Pi:
		return `pi's error toolResult "No result provided"`
	case TSHarness:
		return "the SESSION_RESUME_INTERRUPTED error output"
	}
	return "a result"
}

func (rw *repairWriter) sideline(b []byte) error {
	if rw.sideW == nil {
		w, err := rw.side()
		if err != nil {
			return err
		}
		rw.sideW = bufio.NewWriter(w)
	}
	rw.res.Sidelined++
	rw.sideW.Write(b)
	return rw.sideW.WriteByte('\n')
}

func (rw *repairWriter) split(num int, raw []byte, f fix) error {
	at := 0
	var torn []byte
	for _, p := range f.parts {
		torn = append(torn, bytes.TrimSpace(raw[at:p[0]])...)
		at = p[1]
	}
	torn = append(torn, bytes.TrimSpace(raw[at:])...)
	for _, p := range f.parts {
		part := raw[p[0]:p[1]]
		if len(rw.reparent) > 0 {
			part = rw.follow(num, part)
		}
		rw.out.Write(part)
		rw.out.WriteByte('\n')
	}
	rw.note(num, "wrote the %d whole record(s) of the line on lines of their own", len(f.parts))
	if len(torn) > 0 {
		rw.note(num, "moved the torn record (%d bytes) to the side file", len(torn))
		return rw.sideline(torn)
	}
	return nil
}

// parentKey names the parent link of the format's entries.
func parentKey(f Format) string {
	if f == Pi {
		return "parentId"
	}
	return "parentUuid"
}

// setParent rewrites the line's parent link to id, leaving every other
// byte as it was.
func (rw *repairWriter) setParent(raw []byte, id string) ([]byte, bool) {
	if rw.doc.Parse(raw) != nil {
		return raw, false
	}
	v := rw.doc.Root().Get(parentKey(rw.format))
	if !v.Exists() {
		return raw, false
	}
	a, b := v.Span()
	out := append([]byte(nil), raw[:a]...)
	out = appendString(out, id)
	return append(out, raw[b:]...), true
}

// follow points an entry whose parent was an answered call at the call's
// last answer, so the answer stays on the path a resume walks.
func (rw *repairWriter) follow(num int, raw []byte) []byte {
	if rw.doc.Parse(raw) != nil {
		return raw
	}
	p := rw.doc.Root().Get(parentKey(rw.format))
	if p.Kind() != jsonpeek.String {
		return raw
	}
	to, ok := rw.reparent[p.Str()]
	if !ok {
		return raw
	}
	out, _ := rw.setParent(raw, to)
	rw.note(num, "pointed the parent link at the inserted answer %s", q(to))
	return out
}

// newID mints an entry id for an inserted answer: derived from the call,
// so a repair is reproducible, and checked against the file's ids.
func (rw *repairWriter) newID(oc *openCall) string {
	for n := 0; ; n++ {
		h := sha1.Sum([]byte("tracecheck-repair\x00" + oc.item.CallID + "\x00" + strconv.Itoa(oc.line) + "\x00" + strconv.Itoa(n)))
		var id string
		if rw.format == Pi {
			id = hex.EncodeToString(h[:4]) // pi's ids are 8 hex digits
		} else {
			h[6] = h[6]&0x0f | 0x50 // a version-5 style UUID
			h[8] = h[8]&0x3f | 0x80
			x := hex.EncodeToString(h[:16])
			id = x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
		}
		if rw.ids.Add(id) {
			return id
		}
	}
}

// answer builds the line that answers an interrupted call, in the agent's
// own convention, and the new entry's id (Claude Code and pi). prev is the
// previous answer's id on the same line, which chains after it.
func (rw *repairWriter) answer(oc *openCall, prev string) ([]byte, string) {
	b := rw.scratch[:0]
	ts := oc.timestamp
	switch rw.format {
	case Codex:
		b = append(b, `{"timestamp":`...)
		b = appendString(b, ts)
		b = append(b, `,"type":"response_item","payload":{"type":`...)
		switch oc.item.CallKey {
		case "c":
			b = append(b, `"custom_tool_call_output","call_id":`...)
			b = appendString(b, oc.item.CallID)
			b = append(b, `,"output":"aborted"}}`...)
		case "s":
			b = append(b, `"tool_search_output","call_id":`...)
			b = appendString(b, oc.item.CallID)
			b = append(b, `,"status":"completed","execution":"client","tools":[]}}`...)
		default:
			b = append(b, `"function_call_output","call_id":`...)
			b = appendString(b, oc.item.CallID)
			b = append(b, `,"output":"aborted"}}`...)
		}
		rw.scratch = b
		return b, ""
	case TSHarness:
		b = append(b, `{"timestamp":`...)
		b = appendString(b, ts)
		b = append(b, `,"type":"response_item","payload":{"type":"function_call_output","callId":`...)
		b = appendString(b, oc.item.CallID)
		b = append(b, `,"toolName":`...)
		b = appendString(b, oc.item.Tool)
		b = append(b, `,"output":`...)
		b = appendString(b, SessionResumeInterrupted)
		b = append(b, `,"isError":true}}`...)
		rw.scratch = b
		return b, ""
	case ClaudeCode:
		id := rw.newID(oc)
		parent := oc.entryID
		if prev != "" {
			parent = prev
		}
		b = append(b, `{"parentUuid":`...)
		b = appendString(b, parent)
		b = append(b, `,"isSidechain":`...)
		b = strconv.AppendBool(b, oc.sidechain)
		if oc.agentID != "" {
			b = append(b, `,"agentId":`...)
			b = appendString(b, oc.agentID)
		}
		if oc.session != "" {
			b = append(b, `,"sessionId":`...)
			b = appendString(b, oc.session)
		}
		b = append(b, `,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":`...)
		b = appendString(b, oc.item.CallID)
		b = append(b, `,"content":"[Request interrupted by user for tool use]","is_error":true}]},"uuid":`...)
		b = appendString(b, id)
		if ts != "" {
			b = append(b, `,"timestamp":`...)
			b = appendString(b, ts)
		}
		b = append(b, '}')
		rw.scratch = b
		return b, id
	case Pi:
		id := ""
		b = append(b, `{"type":"message"`...)
		if oc.entryID != "" {
			id = rw.newID(oc)
			parent := oc.entryID
			if prev != "" {
				parent = prev
			}
			b = append(b, `,"id":`...)
			b = appendString(b, id)
			b = append(b, `,"parentId":`...)
			b = appendString(b, parent)
		}
		if ts != "" {
			b = append(b, `,"timestamp":`...)
			b = appendString(b, ts)
		}
		b = append(b, `,"message":{"role":"toolResult","toolCallId":`...)
		b = appendString(b, oc.item.CallID)
		b = append(b, `,"toolName":`...)
		b = appendString(b, oc.item.Tool)
		b = append(b, `,"content":[{"type":"text","text":"No result provided"}],"isError":true`...)
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			b = append(b, `,"timestamp":`...)
			b = strconv.AppendInt(b, t.UnixMilli(), 10)
		}
		b = append(b, `}}`...)
		rw.scratch = b
		return b, id
	}
	return nil, ""
}
