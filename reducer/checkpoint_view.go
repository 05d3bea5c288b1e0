package reducer

// The replay view of a streaming replay, kept flat in memory.
//
// A view grows with the journal (every user message, final assistant
// message and tool result), so StreamReplay does not keep it: once a list
// holds SpillItems items they move to a temporary file, one JSON value per
// line (the encoding the view is printed with), and applied_sequences is
// kept as a count (a checked single-run prefix is exactly 0..n-1). A
// resumed replay's earlier items stay in the checkpoint file, in the same
// encoding. WriteJSON, WriteText and checkpoints stream the items from
// these places in order; State builds the whole view in memory for callers
// that want it.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// DefaultSpillItems is how many items a view list holds in memory before
// StreamReplay moves them to a temporary file.
const DefaultSpillItems = 8192

// spillBytes is how many bytes of items the view lists hold in memory
// before StreamReplay moves them to a temporary file, whatever their
// number: a few huge tool results are spilled as soon as they are read.
const spillBytes = 4 << 20

// The view's lists, in the order they are printed.
const (
	listUsers = iota
	listAssistants
	listResults
	nLists
)

// spill holds view items on disk.
type spill struct {
	dir   string
	f     [nLists]*os.File
	w     [nLists]*bufio.Writer
	count [nLists]int
}

// drain drops the reducer's applied sequences (the view keeps them as a
// count) and moves its in-memory lists to the spill when one of them is
// full.
func (p *Progress) drain() error {
	s := &p.red.state
	s.AppliedSequences = s.AppliedSequences[:0]
	if p.spillAt < 0 {
		return nil
	}
	if len(s.UserMessages) < p.spillAt && len(s.AssistantMessages) < p.spillAt && len(p.red.results) < p.spillAt && p.red.memBytes < spillBytes {
		return nil
	}
	if p.spill == nil {
		dir, err := os.MkdirTemp("", "tracecheck-view-")
		if err != nil {
			return err
		}
		p.spill = &spill{dir: dir}
		for k := range p.spill.f {
			f, err := os.Create(fmt.Sprintf("%s/%d.jsonl", dir, k))
			if err != nil {
				return err
			}
			p.spill.f[k], p.spill.w[k] = f, bufio.NewWriterSize(f, 64<<10)
		}
	}
	var buf []byte
	for k := 0; k < nLists; k++ {
		n := p.memLen(k)
		for i := 0; i < n; i++ {
			item := p.memItem(buf[:0], k, i)
			if _, err := p.spill.w[k].Write(item); err != nil {
				return err
			}
			if err := p.spill.w[k].WriteByte('\n'); err != nil {
				return err
			}
			if k != listResults {
				buf = item
			}
		}
		p.spill.count[k] += n
	}
	clear(s.UserMessages)
	clear(s.AssistantMessages)
	clear(p.red.results)
	s.UserMessages, s.AssistantMessages, p.red.results = s.UserMessages[:0], s.AssistantMessages[:0], p.red.results[:0]
	p.red.memBytes = 0
	return nil
}

func (p *Progress) memLen(k int) int {
	s := &p.red.state
	switch k {
	case listUsers:
		return len(s.UserMessages)
	case listAssistants:
		return len(s.AssistantMessages)
	}
	return len(p.red.results)
}

// memItem returns the JSON of in-memory item i of list k, encoded into
// buf or, for a tool result already held as JSON, the text itself.
func (p *Progress) memItem(buf []byte, k, i int) []byte {
	s := &p.red.state
	switch k {
	case listUsers:
		return jsonv.AppendPyString(buf, s.UserMessages[i])
	case listAssistants:
		return jsonv.AppendPyString(buf, s.AssistantMessages[i])
	}
	return p.red.results[i]
}

// Close removes the view's temporary files and releases the checkpoint the
// replay resumed from. The Progress cannot print its view afterwards.
func (p *Progress) Close() error {
	if p.base != nil {
		p.base.Close()
	}
	if p.spill != nil {
		for _, f := range p.spill.f {
			if f != nil {
				f.Close()
			}
		}
		os.RemoveAll(p.spill.dir)
		p.spill = nil
	}
	return nil
}

// eachItem calls fn with the JSON of every view item, list by list (users,
// assistants, tool results), each in order: the checkpoint's, then the
// spilled ones, then those still in memory. line is only valid during the
// call.
func (p *Progress) eachItem(fn func(k int, line []byte) error) error {
	var base *journal.Reader
	var baseN [nLists]int
	if p.base != nil {
		rd, err := p.base.items()
		if err != nil {
			return err
		}
		base, baseN = rd, p.base.listCounts()
	}
	if p.spill != nil {
		for k := range p.spill.w {
			if err := p.spill.w[k].Flush(); err != nil {
				return err
			}
		}
	}
	var buf []byte
	for k := 0; k < nLists; k++ {
		for i := 0; i < baseN[k]; i++ {
			l, err := base.Next()
			if err != nil || l.Torn {
				return fmt.Errorf("checkpoint %s: projection cut short", p.base.path)
			}
			if err := fn(k, l.Raw); err != nil {
				return err
			}
		}
		if p.spill != nil && p.spill.count[k] > 0 {
			f := p.spill.f[k]
			rd := journal.NewReader(io.NewSectionReader(f, 0, 1<<62))
			for i := 0; i < p.spill.count[k]; i++ {
				l, err := rd.Next()
				if err != nil || l.Torn {
					return fmt.Errorf("replay view spill: item %d of list %d lost", i, k)
				}
				if err := fn(k, l.Raw); err != nil {
					return err
				}
			}
		}
		for i, n := 0, p.memLen(k); i < n; i++ {
			item := p.memItem(buf[:0], k, i)
			if err := fn(k, item); err != nil {
				return err
			}
			if k != listResults {
				buf = item
			}
		}
	}
	return nil
}

// listCounts returns the length of each view list.
func (p *Progress) listCounts() [nLists]int {
	var n [nLists]int
	if p.base != nil {
		n = p.base.listCounts()
	}
	for k := range n {
		n[k] += p.memLen(k)
		if p.spill != nil {
			n[k] += p.spill.count[k]
		}
	}
	return n
}

// listCounts returns the length of each list of the checkpoint's view.
func (c *Checkpoint) listCounts() [nLists]int {
	return [nLists]int{c.UserMessages, c.AssistantMessages, c.ToolResults}
}

// State returns the whole view, built in memory.
func (p *Progress) State() (ReplayState, error) {
	st := ReplayState{SessionID: p.red.state.SessionID, RunID: p.red.state.RunID, StopReason: p.red.state.StopReason, Fingerprint: p.Fingerprint()}
	st.AppliedSequences = make([]int64, p.applied)
	for i := range st.AppliedSequences {
		st.AppliedSequences[i] = int64(i) // a checked single-run prefix is exactly 0..n-1
	}
	n := p.listCounts()
	st.UserMessages = make([]string, 0, n[listUsers])
	st.AssistantMessages = make([]string, 0, n[listAssistants])
	st.ToolResults = make([]jsonv.Value, 0, n[listResults])
	err := p.eachItem(func(k int, line []byte) error {
		v, err := jsonv.Parse(line)
		if err != nil {
			return fmt.Errorf("replay view item: %v", err)
		}
		switch k {
		case listUsers:
			st.UserMessages = append(st.UserMessages, v.Text())
		case listAssistants:
			st.AssistantMessages = append(st.AssistantMessages, v.Text())
		default:
			st.ToolResults = append(st.ToolResults, v)
		}
		return nil
	})
	if err != nil {
		return ReplayState{}, err
	}
	return st, nil
}

// WriteJSON writes the view as State().Value().AppendJSON and a newline
// would, streaming it.
func (p *Progress) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	b = append(b, `{"session_id":`...)
	b = jsonv.AppendPyString(b, p.red.state.SessionID)
	b = append(b, `,"run_id":`...)
	b = jsonv.AppendPyString(b, p.red.state.RunID)
	b = append(b, `,"applied_sequences":[`...)
	for i := 0; i < p.applied; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		if len(b) > 32<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	bw.Write(b)
	names := [nLists]string{`],"user_messages":[`, `],"assistant_messages":[`, `],"tool_results":[`}
	cur, first := -1, true
	open := func(k int) {
		for cur < k {
			cur++
			bw.WriteString(names[cur])
			first = true
		}
	}
	err := p.eachItem(func(k int, line []byte) error {
		open(k)
		if !first {
			bw.WriteByte(',')
		}
		first = false
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	open(nLists - 1)
	b = append(b[:0], `],"stop_reason":`...)
	if r := p.red.state.StopReason; r != nil {
		b = jsonv.AppendPyString(b, *r)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"fingerprint":`...)
	b = jsonv.AppendPyString(b, p.Fingerprint())
	b = append(b, '}', '\n')
	bw.Write(b)
	return bw.Flush()
}

// WriteText writes the view as `tracecheck replay` prints it.
func (p *Progress) WriteText(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	// Ids and the stop reason came from input: quoted when not plain, so
	// that none can forge a line or drive the terminal.
	fmt.Fprintf(bw, "session_id:  %s\nrun_id:      %s\n", textsafe.Quote(p.red.state.SessionID), textsafe.Quote(p.red.state.RunID))
	fmt.Fprintf(bw, "applied:     %d events (sequences %d..%d)\n", p.applied, 0, p.applied-1)
	stop := "(none)"
	if r := p.red.state.StopReason; r != nil {
		stop = textsafe.Quote(*r)
	}
	fmt.Fprintf(bw, "stop_reason: %s\nfingerprint: %s\n", stop, p.Fingerprint())
	labels := [nLists]string{"user:        ", "assistant:   ", "tool_result: "}
	err := p.eachItem(func(k int, line []byte) error {
		bw.WriteString(labels[k])
		if k == listResults {
			bw.WriteString(journal.SafeText(string(line))) // JSON leaves C1 controls and bidi characters as they are
		} else {
			v, err := jsonv.Parse(line)
			if err != nil {
				return err
			}
			bw.WriteString(strconv.Quote(v.Text()))
		}
		return bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
