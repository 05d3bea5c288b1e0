package view_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/view"
)

// Hostile traces are made as they are read (genReader), never held whole
// or committed.

// line is one event of the reference's shape with the given id, parent
// ("" for none), session, run, type, actor id and payload (JSON).
func line(seq int, id, parent, session, run, typ, actor, payload string) string {
	if parent != "" {
		parent = fmt.Sprintf(`,"parent_event_id":"%s"`, parent)
	}
	return fmt.Sprintf(`{"trace_version":"0.1.0","event_id":"%s","session_id":"%s","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":"%s","actor":{"kind":"user","id":"%s"},"payload":%s,"provenance":{"agent_id":"a","snapshot_id":"s","surface":"sdk","harness_mode":"fake","run_id":"%s"},"redaction":{"status":"clean","fields":[]}%s}`+"\n",
		id, session, seq, typ, actor, payload, run, parent)
}

// evt is the reference's id of event i, and its parent's.
func evt(i int) (string, string) {
	if i == 0 {
		return "evt-000", ""
	}
	return fmt.Sprintf("evt-%03d", i), fmt.Sprintf("evt-%03d", i-1)
}

// genReader reads the lines next makes, one at a time, until it returns
// "", and calls probe every probeEvery bytes.
type genReader struct {
	next       func(i int) string
	i          int
	buf        []byte
	read       int64
	probe      func()
	probeEvery int64
	probed     int64
}

func (g *genReader) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		s := g.next(g.i)
		if s == "" {
			return 0, io.EOF
		}
		g.i++
		g.buf = []byte(s)
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.read += int64(n)
	if g.probe != nil && g.read-g.probed >= g.probeEvery {
		g.probed = g.read
		g.probe()
	}
	return n, nil
}

func genSource(name string, next func(i int) string, probe func()) view.Source {
	return view.Source{Name: name, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(&genReader{next: next, probe: probe, probeEvery: 8 << 20}), nil
	}}
}

// writePage builds and writes the page of srcs.
func writePage(t *testing.T, opt view.Options, srcs ...view.Source) (*view.Page, []byte) {
	t.Helper()
	p, err := view.Build(srcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var out bytes.Buffer
	if err := p.WriteHTML(&out); err != nil {
		t.Fatal(err)
	}
	return p, out.Bytes()
}

// islandBytes is the page's data island as written.
func islandBytes(t *testing.T, page []byte) []byte {
	t.Helper()
	m := islandRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("no data island in the page")
	}
	return m[1]
}

// payloadColumn is the payload column as the page writes it, escapes
// included: the bytes the page's payload budget counts.
func payloadColumn(t *testing.T, page []byte) []byte {
	t.Helper()
	d := islandBytes(t, page)
	i := bytes.Index(d, []byte(`"payload":[`))
	if i < 0 {
		t.Fatal("no payload column")
	}
	return d[i : len(d)-2]
}

// The payload budget and the cut of one payload count the bytes the page
// writes: a '<' is six (\u003c). Counted on the input's bytes, 100 payloads
// of 10 KB of '<' fit a 1 MiB budget and write 6 MB.
func TestBudgetsCountWrittenBytes(t *testing.T) {
	angles := strings.Repeat("<", 10_000)
	src := genSource("angles.jsonl", func(i int) string {
		if i == 100 {
			return ""
		}
		id, parent := evt(i)
		return line(i, id, parent, "s", "r", "user.message", "u", `{"content":"`+angles+`"}`)
	}, nil)
	const budget = 1 << 20
	p, page := writePage(t, view.Options{Limits: view.Limits{DataBytes: budget}}, src)
	if n := len(payloadColumn(t, page)); n > budget {
		t.Errorf("the payload column is %d bytes, over the %d of the budget", n, budget)
	}
	if p.Events() != 100 || !bytes.Contains(page, []byte("payload budget (1.0 MiB as written) was reached at line 18 ")) {
		t.Errorf("%d events; the page does not say the budget was reached where it was", p.Events())
	}

	// One payload of 60 KB of '<' is 360 KB written: over 64 KiB, so cut.
	one := genSource("one.jsonl", func(i int) string {
		if i == 1 {
			return ""
		}
		return line(0, "evt-000", "", "s", "r", "user.message", "u", `{"content":"`+strings.Repeat("<", 60_000)+`"}`)
	}, nil)
	_, page = writePage(t, view.Options{}, one)
	var d struct {
		Cut [][]int
		Ev  struct{ Payload []string }
	}
	if err := json.Unmarshal(islandBytes(t, page), &d); err != nil {
		t.Fatal(err)
	}
	if n := len(payloadColumn(t, page)); n > 64<<10+16 {
		t.Errorf("one payload takes %d bytes of the page, over 64 KiB", n)
	}
	kept := len(d.Ev.Payload[0])
	if len(d.Cut) != 1 || d.Cut[0][0] != 0 || d.Cut[0][1] != 60_000+len(`{"content":""}`) || d.Cut[0][2] != kept || kept > (64<<10)/6+16 {
		t.Errorf("cut entries %v, payload kept %d bytes", d.Cut, kept)
	}
}

var invisibleRE = regexp.MustCompile("[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]")

// Every envelope field is cut to Limits.FieldBytes as written, and the
// page says so: nine events whose ids, session, run, type and actor are
// 1 MiB each (of '<', six bytes each as written) make a page of well
// under 1 MiB, not one of hundreds.
func TestEnvelopeFieldsAreCut(t *testing.T) {
	huge := func(c string, i int) string { return fmt.Sprintf("%s%d", strings.Repeat(c, 1<<20), i) }
	src := genSource("ids.jsonl", func(i int) string {
		if i == 9 {
			return ""
		}
		parent := ""
		if i > 0 {
			parent = huge("<", i-1)
		}
		return line(i, huge("<", i), parent, huge("s", i), huge("r<", i), huge("t", i), huge("a", i), fmt.Sprintf(`{"tool":"%s","tool_call_id":"c"}`, huge("x", i)))
	}, nil)
	p, page := writePage(t, view.Options{}, src)
	if len(page) > 1<<20 {
		t.Errorf("the page of 9 events with 1 MiB fields is %d bytes", len(page))
	}
	if p.Events() != 9 {
		t.Errorf("%d events, want 9", p.Events())
	}
	var d struct {
		FieldCut   [][]int
		FieldLimit int
		Runs       []struct {
			Run, Session string
			Cut          bool
		}
		Ev struct {
			ID, Ts []string
			Flags  []int
		}
		Actors, Types, Envs []string
	}
	if err := json.Unmarshal(islandBytes(t, page), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.FieldCut) != 9 || d.FieldLimit != 1024 {
		t.Errorf("field-cut rows %d (want 9), limit %d", len(d.FieldCut), d.FieldLimit)
	}
	for _, fc := range d.FieldCut {
		if want := 1 | 4 | 32 | 64 | 128 | 256; fc[1]&want != want {
			t.Errorf("row %d: cut fields %b, want at least %b (id, type, actor, session, run, envelope)", fc[0], fc[1], want)
		}
	}
	written := func(s string) int { b, _ := json.Marshal(s); return len(b) } // no more than the page writes
	for _, s := range append(append(append(d.Ev.ID, d.Actors...), d.Types...), d.Runs[0].Run, d.Runs[0].Session) {
		if written(s) > 6*1024 {
			t.Errorf("a field of %d bytes is in the page", len(s))
		}
	}
	for _, e := range d.Envs {
		if len(e) > 4*1024 {
			t.Errorf("an envelope of %d bytes is in the page", len(e))
		}
		if !json.Valid([]byte(e)) {
			t.Errorf("a cut envelope is not JSON: %.80s", e)
		}
	}
	if !d.Runs[0].Cut || d.Ev.Flags[0]&4096 == 0 {
		t.Error("the page's data does not mark the cut run ids and rows")
	}
	html := string(page[:islandRE.FindIndex(page)[0]])
	if !strings.Contains(html, `class="cutmark"`) || !strings.Contains(html, "9 events have envelope fields") {
		t.Error("the overview does not say the ids it shows are cut")
	}
}

// Bidirectional controls and invisible formatting characters in content
// are shown as their escapes in a style of their own wherever the page
// writes text (the overview here; the script's text in
// browsertest.TestPages): "\u202e; / fr- mr" must not read "rm -rf /".
func TestInvisibleCharactersShownEscaped(t *testing.T) {
	const evil = "\u202e; / fr- mr"
	const more = "\u2066x\u2069 zero\u200bwidth"
	const yetMore = "bom\ufeff lrm\u200e word\u2060joiner"
	src := genSource("bidi.jsonl", func(i int) string {
		switch i {
		case 0:
			return line(0, "evt-000", "", "s\u202e", "run\u2067", "session.start", "harness", `{}`)
		case 1:
			return line(1, "evt-001", "evt-000", "s\u202e", "run\u2067", "user.message", "learner", `{"content":"`+evil+`"}`)
		case 2:
			return line(2, "evt-002", "evt-001", "s\u202e", "run\u2067", "tool.result", "t", `{"tool":"sh\u200b","tool_call_id":"c","ok":true,"result":"`+more+`"}`)
		case 3:
			return line(3, "evt-003", "evt-002", "s\u202e", "run\u2067", "user.message", "learner", `{"content":"`+yetMore+`"}`)
		}
		return ""
	}, nil)
	_, page := writePage(t, view.Options{}, src)
	loc := islandRE.FindIndex(page)
	html := string(page[:loc[0]]) + string(page[loc[1]:])
	// An <option>'s value is the exact string the filter matches; it is
	// not shown.
	if m := invisibleRE.FindString(regexp.MustCompile(`value="[^"]*"`).ReplaceAllString(html, "")); m != "" {
		t.Errorf("the page's markup, script or style holds a raw %U", []rune(m)[0])
	}
	for _, want := range []string{
		`<span class="esc">\u202e</span>; / fr- mr`,
		`\u2066</span>x<span class="esc">\u2069</span>`, `zero<span class="esc">\u200b</span>width`,
		`bom<span class="esc">\ufeff</span> lrm<span class="esc">\u200e</span> word<span class="esc">\u2060</span>joiner`,
		`run<span class="esc"`, // the run id in the overview
		">sh\\u200b</option>",  // the tool filter
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
}

// What the page holds does not grow with the input, and neither does
// the memory building it takes: a trace of hostile sizes (events whose ids
// are 4 MiB, 3,000 payloads of 60 KB of '<', 600,000 more events, which is
// past every budget) gives a page under its bound (DataBytes +
// EnvelopeBytes and the overview's few MiB), while the heap stays under a
// bound sampled as the input is read and as the page is written: what is
// live after a collection, and what the heap holds, garbage included,
// under the soft limit tracecheck view sets (cmd/tracecheck).
func TestHostileSizesStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 500 MB of generated trace")
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(160 << 20))
	}
	var peak, peakLive uint64
	probes := 0
	probe := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		if probes++; probes%8 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peakLive = max(peakLive, ms.HeapAlloc)
		}
	}
	const hugeIDs, bigPayloads, small = 9, 3000, 600_000
	angles := strings.Repeat("<", 60_000)
	huge := strings.Repeat("<", 4<<20)
	src := genSource("hostile.jsonl", func(i int) string {
		switch {
		case i < hugeIDs:
			return line(i, fmt.Sprintf("%s%d", huge, i), "", "s"+huge, "r", "user.message", "a"+huge[:1<<20], `{"content":"x"}`)
		case i < hugeIDs+bigPayloads:
			id, parent := evt(i)
			return line(i, id, parent, "s", "r", "user.message", "learner", `{"content":"`+angles+`"}`)
		case i < hugeIDs+bigPayloads+small:
			id, parent := evt(i)
			return line(i, id, parent, "s", "r", "model.response", "m", `{"turn":1,"content":"ok <b>","stop":false,"tool_calls":[]}`)
		}
		return ""
	}, probe)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	p, err := view.Build([]view.Source{src}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w := &probingWriter{probe: probe}
	if err := p.WriteHTML(w); err != nil {
		t.Fatal(err)
	}
	lim := view.DefaultLimits
	bound := lim.DataBytes + lim.EnvelopeBytes + 4<<20
	t.Logf("%d events, page %.1f MiB (bound %.1f MiB); heap at most %.1f MiB, live at most %.1f MiB (%.1f MiB before)",
		p.Events(), float64(w.n)/(1<<20), float64(bound)/(1<<20), float64(peak)/(1<<20), float64(peakLive)/(1<<20), float64(base.HeapAlloc)/(1<<20))
	if w.n > bound {
		t.Errorf("the page is %d bytes, over its bound of %d", w.n, bound)
	}
	if p.Events() != lim.Events {
		t.Errorf("%d events, want the first %d", p.Events(), lim.Events)
	}
	// 256 MB of RSS is the goal; the heap, garbage included, stays well
	// under it, and what is live much more so.
	if peak > 200<<20 || peakLive > 128<<20 {
		t.Errorf("heap %d bytes at most (bound 200 MiB), live %d (bound 128 MiB)", peak, peakLive)
	}
}

// probingWriter counts what is written and probes the heap every 8 MiB.
type probingWriter struct {
	n, last int64
	probe   func()
}

func (w *probingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n-w.last >= 8<<20 {
		w.last = w.n
		w.probe()
	}
	return len(p), nil
}
