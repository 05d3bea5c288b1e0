package view

import (
	"bufio"
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/tracediff"
)

// DiffContext is how many unchanged events the diff page shows on each
// side of a difference; longer unchanged runs are folded.
const DiffContext = 2

// DiffOptions say how a diff page is built.
type DiffOptions struct {
	// ExpectedName and ActualName name the two files in the page.
	ExpectedName, ActualName string
	// Tolerant says the golden is a tolerant golden (package tolerant,
	// what tracecheck normalize writes): the page compares it as
	// tracecheck diff --normalize does (TracediffAligner.Tolerant), shows
	// the placeholders that matched as matched, and lists the golden's
	// problems as ValidateGolden finds them, not the SCHEMA problems its
	// placeholders would be in a plain trace.
	Tolerant bool
	// Aligner lines the traces up; nil is TracediffAligner (with
	// Tolerant).
	Aligner Aligner
	// Limits bound the page (Events, PayloadBytes as the most of one line,
	// DataBytes); zero fields take DefaultLimits'.
	Limits Limits
	// Notes are said at the head of the page, before the page's own (how
	// the golden was read, when the caller chose).
	Notes []string
}

// DiffPage is a built diff page: BuildDiff it, then WriteHTML.
type DiffPage struct {
	opt      DiffOptions
	lim      Limits
	rows     []Aligned
	el, al   [][]byte
	counts   map[string]int
	eProbs   []*journal.Error
	aProbs   []*journal.Error
	notes    []string
	excused  int    // the golden's SCHEMA problems its placeholders caused (Tolerant)
	same     bool   // byte-identical
	keepLine []bool // rows whose lines the page holds: differences, their context, and unchanged ones within the budget
}

// BuildDiff compares expected (the golden) with actual.
func BuildDiff(expected, actual []byte, opt DiffOptions) *DiffPage {
	d := &DiffPage{opt: opt, lim: (&Options{Limits: opt.Limits}).limits(), counts: map[string]int{}, notes: append([]string(nil), opt.Notes...)}
	if d.opt.Aligner == nil {
		d.opt.Aligner = TracediffAligner{Tolerant: opt.Tolerant}
	}
	d.same = bytes.Equal(expected, actual)
	d.el, d.al = splitLines(expected), splitLines(actual)
	d.rows = d.opt.Aligner.Align(expected, actual)
	for i := range d.rows {
		d.counts[d.rows[i].Kind()]++
	}
	if opt.Tolerant {
		d.eProbs, d.excused = tracediff.ValidateGolden(expected, opt.ExpectedName)
		d.notes = append(d.notes, tolerantNote(d.excused))
	} else {
		d.eProbs = journal.Validate(bytes.NewReader(expected), opt.ExpectedName)
	}
	d.aProbs = journal.Validate(bytes.NewReader(actual), opt.ActualName)
	d.plan()
	return d
}

// tolerantNote says how the page reads a tolerant golden.
func tolerantNote(excused int) string {
	n := "The golden is a tolerant golden, compared as tracecheck diff --normalize compares it: an event whose placeholders all matched the actual values is unchanged, only real differences are highlighted, and in a changed event the placeholders that matched are underlined. The golden is checked as a trace where it is literal: a placeholder such as \"[TIMESTAMP]\" where the schema wants a date-time is no problem."
	if excused > 0 {
		n += fmt.Sprintf(" %d %s at placeholders %s not listed.", excused, pluralS(excused, "SCHEMA problem", "SCHEMA problems"), pluralS(excused, "is", "are"))
	}
	return n
}

// Problems is the number of problems the page lists for the two files.
func (d *DiffPage) Problems() int { return len(d.eProbs) + len(d.aProbs) }

// Tolerant reports whether the golden was compared as a tolerant golden.
func (d *DiffPage) Tolerant() bool { return d.opt.Tolerant }

// Equal reports whether the traces are byte-identical.
func (d *DiffPage) Equal() bool {
	return d.same
}

// Differences is the number of events that differ.
func (d *DiffPage) Differences() int {
	return d.counts["changed"] + d.counts["missing"] + d.counts["extra"]
}

// plan decides which rows' lines go into the page: every difference and
// the DiffContext rows around it, then unchanged rows, while the budget
// (Limits.DataBytes, counted as the page writes it) lasts; a difference
// past it keeps its kind and fields, and says its lines are left out, and
// the rest of a fold says it is left out. Each field's pointer and values
// are cut to the page's field bounds first.
func (d *DiffPage) plan() {
	n := len(d.rows)
	d.keepLine = make([]bool, n)
	fb := d.lim.FieldBytes
	clipField := func(s string, n int) string {
		if t := cutJS(s, n); len(t) < len(s) {
			return t + " … (cut: " + fmtBytes(int64(len(s))) + " in all)"
		}
		return s
	}
	var used int64
	for i := range d.rows {
		r := &d.rows[i]
		r.Note = clipField(r.Note, 4*fb)
		for j := range r.Fields {
			f := &r.Fields[j]
			f.Pointer, f.Expected, f.Actual = clipField(f.Pointer, fb), clipField(f.Expected, 4*fb), clipField(f.Actual, 4*fb)
			used += int64(jsWritten(f.Pointer)+jsWritten(f.Expected)+jsWritten(f.Actual)) + 12
		}
		for j := range r.Fields {
			f := &r.Fields[j]
			f.Reason = clipField(f.Reason, 4*fb)
			used += int64(jsWritten(f.Reason))
		}
		for j := range r.Matched {
			r.Matched[j] = clipField(r.Matched[j], fb)
			used += int64(jsWritten(r.Matched[j])) + 3
		}
		used += int64(jsWritten(r.Note)) + 64
	}
	linesLeft := false
	for i := range d.rows {
		if d.rows[i].Kind() == "equal" {
			continue
		}
		for k := max(0, i-DiffContext); k <= min(n-1, i+DiffContext); k++ {
			if d.keepLine[k] {
				continue
			}
			if used+d.lineBytes(k) > d.lim.DataBytes {
				linesLeft = true
				continue
			}
			d.keepLine[k] = true
			used += d.lineBytes(k)
		}
	}
	if linesLeft {
		d.notes = append(d.notes, fmt.Sprintf("The page's budget (%s as written) was reached: some differences show their fields but not their lines, and say so (Limits.DataBytes).", fmtBytes(d.lim.DataBytes)))
	}
	left := false
	for i := range d.rows {
		if d.keepLine[i] {
			continue
		}
		if i >= d.lim.Events || used+d.lineBytes(i) > d.lim.DataBytes {
			left = true
			continue
		}
		d.keepLine[i] = true
		used += d.lineBytes(i)
	}
	if left && !linesLeft {
		d.notes = append(d.notes, "Some unchanged events are not in the page (its size is bounded); their folds say so. The differences and the events around them are all here.")
	}
}

// lineBytes is what a row's lines take in the page, as written.
func (d *DiffPage) lineBytes(i int) int64 {
	r := &d.rows[i]
	var n int64
	if r.ExpectedLine > 0 {
		n += int64(jsWritten(d.lineText(d.el, r.ExpectedLine))) + 3
	}
	if r.ActualLine > 0 && r.Kind() != "equal" {
		n += int64(jsWritten(d.lineText(d.al, r.ActualLine))) + 3
	}
	return n
}

// lineText is line n of a file as the page holds it: cut to
// Limits.PayloadBytes as written.
func (d *DiffPage) lineText(lines [][]byte, n int) string {
	l := lines[n-1]
	if len(l) > 6*d.lim.PayloadBytes {
		l = l[:6*d.lim.PayloadBytes] // enough for any cut: each byte is written in at most six
	}
	return cutJS(string(l), d.lim.PayloadBytes)
}

type diffData struct {
	Title        string
	ExpectedName string
	ActualName   string
	Events       int
	Changed      int
	Missing      int
	Extra        int
	Equal        bool
	Identical    bool
	Tolerant     bool
	Problems     []problemData
	Notes        []string
	CSS          template.CSS
	JS           template.JS
}

// WriteHTML writes the diff page: one self-contained HTML document. The
// same inputs give the same bytes.
func (d *DiffPage) WriteHTML(w io.Writer) error {
	dd := diffData{
		Title:        filepath.Base(d.opt.ActualName),
		ExpectedName: d.opt.ExpectedName,
		ActualName:   d.opt.ActualName,
		Events:       len(d.rows),
		Changed:      d.counts["changed"],
		Missing:      d.counts["missing"],
		Extra:        d.counts["extra"],
		Equal:        d.Differences() == 0,
		Identical:    d.Equal(),
		Tolerant:     d.opt.Tolerant,
		Notes:        d.notes,
		CSS:          pageCSS,
		JS:           diffJS,
	}
	for _, side := range []struct {
		name  string
		probs []*journal.Error
	}{{"golden", d.eProbs}, {"actual", d.aProbs}} {
		for _, e := range side.probs {
			where := fmt.Sprintf("%s file", side.name)
			if e.Line > 0 {
				where = fmt.Sprintf("%s line %d", side.name, e.Line)
			}
			fb := d.lim.FieldBytes
			dd.Problems = append(dd.Problems, problemData{Row: -1, Where: where, Code: string(e.Code), Event: clip(e.EventID, fb), Pointer: clip(e.Pointer, fb), Msg: clip(e.Msg, 4*fb)})
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.ExecuteTemplate(bw, "diff", dd); err != nil {
		return err
	}
	bw.WriteString(islandOpen)
	isl := newIsland(bw)
	d.island(isl)
	if isl.err != nil {
		return isl.err
	}
	bw.WriteString(islandClose)
	if err := tmpl.ExecuteTemplate(bw, "diff-end", dd); err != nil {
		return err
	}
	return bw.Flush()
}

func (d *DiffPage) island(w *island) {
	w.obj()
	w.kstr("kind", "diff")
	w.kstr("expName", d.opt.ExpectedName)
	w.kstr("actName", d.opt.ActualName)
	w.kint("context", DiffContext)
	if d.opt.Tolerant {
		w.kbool("tolerant", true)
	}
	w.key("rows")
	w.arr()
	for i := range d.rows {
		r := &d.rows[i]
		w.arr()
		w.str(r.Kind())
		w.int(int64(r.Run))
		w.int(r.Sequence)
		w.int(int64(r.ExpectedLine))
		w.int(int64(r.ActualLine))
		line := func(lines [][]byte, n int) {
			if n == 0 || !d.keepLine[i] {
				w.null()
				return
			}
			w.str(d.lineText(lines, n))
		}
		line(d.el, r.ExpectedLine)
		if r.Kind() == "equal" {
			w.null() // the same bytes as the expected line
		} else {
			line(d.al, r.ActualLine)
		}
		w.str(r.Note)
		w.arr()
		for _, f := range r.Fields {
			w.arr()
			w.str(f.Pointer)
			w.str(f.Expected)
			w.str(f.Actual)
			if f.Reason != "" {
				w.str(f.Reason)
			}
			w.endArr()
		}
		w.endArr()
		if d.opt.Tolerant {
			w.arr()
			for _, p := range r.Matched {
				w.str(p)
			}
			w.endArr()
		}
		w.endArr()
		w.flush(false)
	}
	w.endArr()
	w.endObj()
	w.flush(true)
}

// WriteDiffFile writes the diff page of expected (the golden, named
// expName; a tolerant golden when tolerant) and actual (actName) to path,
// atomically: verify calls it to keep <id>.diff.html beside the traces it
// keeps as artifacts.
func WriteDiffFile(path string, expected, actual []byte, expName, actName string, tolerant bool) error {
	d := BuildDiff(expected, actual, DiffOptions{ExpectedName: expName, ActualName: actName, Tolerant: tolerant})
	return atomicfile.WriteFunc(path, 0o644, d.WriteHTML)
}
