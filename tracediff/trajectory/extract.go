package trajectory

import (
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/tracediff"
)

// Call is one tool call of a trajectory: a tool.request event and the
// tool.result that answers it (same tool_call_id, same run), if any.
type Call struct {
	Run      int // 0-based
	Line     int
	Sequence int64
	EventID  string
	// From the request's payload (the zero Value when absent).
	ToolCallID jsonv.Value
	Tool       jsonv.Value
	Arguments  jsonv.Value
	// The result, when HasResult.
	HasResult  bool
	ResultLine int
	ResultOK   jsonv.Value
}

// ToolName is the call's tool as text ("" when it is not a string).
func (c *Call) ToolName() string {
	if c.Tool.Kind() == jsonv.String {
		return c.Tool.Text()
	}
	return ""
}

// Trace is what a trajectory comparison reads from one file: its tool
// calls in file order and, per run, its model.request events (the turns).
type Trace struct {
	File   string
	Events int
	Calls  []Call
	// Turns holds, per run, the line and sequence of each model.request.
	Turns    map[int][]Turn
	Problems []tracediff.Problem
}

// Turn is one model.request event.
type Turn struct {
	Line     int
	Sequence int64
	EventID  string
}

// Read reads the tool calls of a trace in one streaming pass; golden says
// the file is a tolerant golden (shape-checked, not validated). Memory
// grows with the number of calls, not with the file.
func Read(in tracediff.Input, golden bool) *Trace {
	t := &Trace{File: in.Name, Turns: map[int][]Turn{}}
	open := map[callKey]int{} // unanswered calls: run and tool_call_id → index
	t.Events, t.Problems = tracediff.Scan(in, golden, func(ev *tracediff.Event) {
		t.add(ev, open)
	})
	return t
}

type callKey struct {
	run int
	id  string
}

func str(v jsonv.Value, key string) string {
	if f, ok := v.Get(key); ok && f.Kind() == jsonv.String {
		return f.Text()
	}
	return ""
}

func (t *Trace) add(ev *tracediff.Event, open map[callKey]int) {
	typ := str(ev.Value, "type")
	switch typ {
	case "model.request":
		t.Turns[ev.Run] = append(t.Turns[ev.Run], Turn{Line: ev.Line, Sequence: ev.Sequence, EventID: str(ev.Value, "event_id")})
	case "tool.request":
		p, _ := ev.Value.Get("payload")
		c := Call{Run: ev.Run, Line: ev.Line, Sequence: ev.Sequence, EventID: str(ev.Value, "event_id")}
		c.ToolCallID = detach(p, "tool_call_id")
		c.Tool = detach(p, "tool")
		c.Arguments = detach(p, "arguments")
		if c.ToolCallID.IsValid() {
			open[callKey{ev.Run, string(c.ToolCallID.AppendCanonical(nil))}] = len(t.Calls)
		}
		t.Calls = append(t.Calls, c)
	case "tool.result":
		p, _ := ev.Value.Get("payload")
		id, ok := p.Get("tool_call_id")
		if !ok {
			return
		}
		k := callKey{ev.Run, string(id.AppendCanonical(nil))}
		i, ok := open[k]
		if !ok {
			return
		}
		delete(open, k)
		c := &t.Calls[i]
		c.HasResult, c.ResultLine = true, ev.Line
		c.ResultOK = detach(p, "ok")
	}
}

// detach returns member key of v as a value of its own: the strings of a
// parsed line share one allocation, which a kept call would keep alive
// whole.
func detach(v jsonv.Value, key string) jsonv.Value {
	f, ok := v.Get(key)
	if !ok {
		return jsonv.Value{}
	}
	d, err := jsonv.Parse(f.AppendJSON(nil))
	if err != nil {
		return f
	}
	return d
}
