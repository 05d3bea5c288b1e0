package view

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:embed assets
var assets embed.FS

var tmpl = template.Must(template.New("").Funcs(template.FuncMap{
	"plural": pluralS,
	// short is the first 16 bytes of a fingerprint, or of what an event
	// claims is one.
	"short": func(s string) string {
		if len(s) > 16 {
			return visText(cut(s, 16)) + "…"
		}
		return visText(s)
	},
	"deref": func(p *int) int { return *p },
	"add": func(n ...int) int {
		t := 0
		for _, k := range n {
			t += k
		}
		return t
	},
	// vis is text from the input, its invisible characters shown escaped
	// (clip.go); vistext the same for an attribute, an option or the
	// title; clip a clipped string, marked when it was cut.
	"vis":      visHTML,
	"vistext":  visText,
	"clip":     clipHTML,
	"clipText": func(c clipped) string { return visText(c.S) },
	"plain":    func(s string) bool { return !hasInvisible(s) },
}).ParseFS(assets, "assets/*.tmpl"))

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k]
}

// asset returns an embedded file's text.
func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// pageCSS and the scripts are the same for every page.
var (
	pageCSS = template.CSS(asset("view.css"))
	traceJS = template.JS(asset("common.js") + asset("trace.js"))
	diffJS  = template.JS(asset("common.js") + asset("diff.js"))
)

// The data island sits between the two halves of each page's template
// ("trace" and "trace-end", "diff" and "diff-end"), written as it is made
// (island.go), never whole in memory.
const islandOpen, islandClose = `<script type="application/json" id="tc-data">`, "</script>\n"

type traceData struct {
	Title    string
	Events   int
	RunCount int
	Sessions int
	Through  *int
	Files    []fileData
	Notes    []string
	Types    []string
	Tools    []string
	Lanes    []laneData
	Problems []problemData // validation problems and lint findings, info ones too
	// ProblemCount counts Problems but info findings, as the exit status does.
	ProblemCount int
	Runs         []runData
	MultiFile    bool
	CSS          template.CSS
	JS           template.JS
}

type fileData struct {
	Name           string
	Origin         string
	Lines, Runs    int
	Problems       int
	FirstRow, Rows int
}

type laneData struct {
	Index int
	Name  string
}

type problemData struct {
	Row                 int
	Where               string
	Code                string
	Event, Pointer, Msg clipped
}

type runRef struct {
	Index, Number, Last int
	RunID               clipped
}

type runData struct {
	Index, Number int
	RunID         clipped
	Session       clipped
	File          string
	First, Rows   int
	Problems      int
	Resumes       *runRef
	ResumedRow    int
	Branches      []branchData
	Checks        []checkData
	Replay        *replayData
}

type branchData struct {
	Row         int
	Own         bool // recorded in its parent run
	ID          clipped
	ParentRunID clipped
	Fork        int64
	ForkRow     *int
	Inherited   string
	Fingerprint clipped
	Check       *fpCheck
	Cells       []cellData
	Aria        string
}

type cellData struct {
	Row       int
	Seq       int64
	Type      string
	Inherited bool
	Fork      bool
	Gap       bool
}

type checkData struct {
	*fpCheck
	Seq int64
}

type replayData struct {
	*replayView
	Index, Number int
	Partial       string
	ListLimit     int // Limits.ReplayItems
}

// WriteHTML writes the page: one self-contained HTML document. The same
// page gives the same bytes.
func (p *Page) WriteHTML(w io.Writer) error {
	d := traceData{
		Title:     p.title(),
		Events:    p.rows.len(),
		RunCount:  len(p.runs),
		Notes:     p.notes,
		MultiFile: len(p.files) > 1,
		CSS:       pageCSS,
		JS:        traceJS,
	}
	if p.opt.HasThrough {
		t := int(p.opt.Through)
		d.Through = &t
	}
	sessions := map[uint64]bool{}
	for _, r := range p.runs {
		sessions[r.sessKey] = true
	}
	d.Sessions = len(sessions)
	for _, f := range p.files {
		d.Files = append(d.Files, fileData{Name: f.Name, Origin: f.Origin, Lines: f.Lines, Runs: f.Runs, Problems: f.problemCount(), FirstRow: f.First, Rows: f.Rows})
	}
	d.ProblemCount = p.Problems()
	d.Types = slices.Sorted(slices.Values(p.types.list))
	d.Tools = slices.Sorted(slices.Values(p.tools.list))
	for i, used := range p.lanesUsed() {
		if used {
			name := "other"
			if i < len(Lanes) {
				name = Lanes[i]
			}
			d.Lanes = append(d.Lanes, laneData{Index: i, Name: name})
		}
	}
	for _, e := range p.problems {
		var where string
		switch {
		case d.MultiFile && e.Line > 0:
			where = fmt.Sprintf("%s:%d", e.File, e.Line)
		case d.MultiFile:
			where = e.File
		case e.Line == 0:
			where = "the file"
		default:
			where = "line " + strconv.Itoa(e.Line)
		}
		d.Problems = append(d.Problems, problemData{Row: e.Row, Where: where, Code: string(e.Code), Event: e.Event, Pointer: e.Pointer, Msg: e.Msg})
	}
	for _, f := range p.files {
		for _, x := range f.Findings {
			where := fmt.Sprintf("%s, log line %d", f.Name, x.Line)
			if x.Line == 0 {
				where = f.Name
			}
			d.Problems = append(d.Problems, problemData{Row: -1, Where: where, Code: x.Code, Msg: clipped{S: x.Severity + ": " + x.Message}})
		}
	}
	for i, r := range p.runs {
		d.Runs = append(d.Runs, p.runData(i, r))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.ExecuteTemplate(bw, "trace", d); err != nil {
		return err
	}
	bw.WriteString(islandOpen)
	isl := newIsland(bw)
	p.island(isl, d.Lanes)
	if isl.err != nil {
		return isl.err
	}
	bw.WriteString(islandClose)
	if err := tmpl.ExecuteTemplate(bw, "trace-end", d); err != nil {
		return err
	}
	return bw.Flush()
}

func (p *Page) title() string {
	if len(p.files) == 1 {
		return filepath.Base(p.files[0].Name)
	}
	names := make([]string, len(p.files))
	for i, f := range p.files {
		names[i] = filepath.Base(f.Name)
	}
	return strings.Join(names, ", ")
}

func (p *Page) lanesUsed() []bool {
	used := make([]bool, otherLane+1)
	for i, l := range p.rows.lane {
		if p.rows.flags[i]&flagUnreadable == 0 {
			used[l] = true
		}
	}
	return used
}

func (p *Page) runData(i int, r *runInfo) runData {
	rd := runData{Index: i, Number: i + 1, RunID: r.RunID, Session: r.Session, File: p.files[r.File].Name,
		First: r.First, Rows: r.Rows, Problems: r.Problems, ResumedRow: r.ResumedRow}
	if r.ResumesID.S != "" {
		ref := &runRef{Index: r.Resumes, RunID: r.ResumesID}
		if r.Resumes >= 0 {
			ref.Number = r.Resumes + 1
			ref.Last = p.lastRow(r.Resumes)
		}
		rd.Resumes = ref
	}
	for _, b := range p.branches {
		if b.Run != i {
			continue
		}
		bd := branchData{Row: b.Row, Own: b.ParentRun == i, ID: b.BranchID, ParentRunID: b.ParentRunID, Fork: b.Fork,
			Fingerprint: b.Fingerprint, Check: b.Check}
		if b.ForkRow >= 0 {
			fr := b.ForkRow
			bd.ForkRow = &fr
		}
		switch {
		case b.Inherited >= 0:
			bd.Inherited = fmt.Sprintf("%d %s", b.Inherited, pluralS(int(b.Inherited), "event", "events"))
		default:
			bd.Inherited = "the events"
		}
		if bd.Check == nil {
			bd.Check = &fpCheck{Verdict: "unchecked", Why: "its parent run is not in this page"}
			if b.ParentRunID.S == "" {
				bd.Check.Why = "it names no parent run"
			}
		}
		if b.ParentRun >= 0 && b.Fork >= 0 {
			bd.Cells = p.lineageCells(b.ParentRun, b.Fork)
			bd.Aria = fmt.Sprintf("Lineage: branch %s inherits sequences 0 to %d of run %s", b.BranchID.S, b.Fork, b.ParentRunID.S)
		}
		rd.Branches = append(rd.Branches, bd)
	}
	for _, c := range p.checks {
		if c.isBranch || int(p.rows.run[c.Row]) != i {
			continue
		}
		rd.Checks = append(rd.Checks, checkData{fpCheck: c, Seq: p.rows.seq[c.Row]})
	}
	if r.replay != nil {
		rp := &replayData{replayView: r.replay, Index: i, Number: i + 1, ListLimit: p.lim.ReplayItems}
		if r.Problems > 0 {
			rp.Partial = "This run has validation problems: the replay below covers the events that could be read, and tracecheck replay would refuse the file."
		}
		rd.Replay = rp
	}
	return rd
}

func pluralS(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (p *Page) lastRow(run int) int {
	last := p.runs[run].First
	for row := last; row < p.rows.len(); row++ {
		if p.rows.run[row] == int32(run) {
			last = row
		}
	}
	return last
}

// maxCells bounds the lineage strip: the inherited prefix and the events
// just after it, with a gap for the rest.
const maxCells = 24

// lineageCells draws the parent run's events as cells, the inherited ones
// marked and the fork point last of them.
func (p *Page) lineageCells(run int, fork int64) []cellData {
	var cells []cellData
	for row := p.runs[run].First; row < p.rows.len(); row++ {
		if p.rows.run[row] != int32(run) {
			continue
		}
		seq := p.rows.seq[row]
		typ := ""
		if t := p.rows.typ[row]; t >= 0 {
			typ = visText(p.types.list[t])
		}
		cells = append(cells, cellData{Row: row, Seq: seq, Type: typ, Inherited: seq >= 0 && seq <= fork, Fork: seq == fork})
	}
	if len(cells) <= maxCells {
		return cells
	}
	// Keep the first events, those around the fork and the next ones.
	keep := func(i int) bool {
		s := cells[i].Seq
		return i < 4 || (s >= fork-3 && s <= fork+4)
	}
	var out []cellData
	gap := false
	for i := range cells {
		if keep(i) {
			out = append(out, cells[i])
			gap = false
		} else if !gap {
			out = append(out, cellData{Gap: true})
			gap = true
		}
	}
	return out
}

// island writes the page's data: the timeline column by column, and what
// the script needs to draw runs, branches and problems (see trace.js).
func (p *Page) island(w *island, lanes []laneData) {
	w.obj()
	w.kstr("kind", "trace")
	w.key("lanes")
	w.arr()
	for _, l := range lanes {
		w.int(int64(l.Index))
	}
	w.endArr()
	w.kstrs("laneNames", append(slices.Clone(Lanes), "other"))
	w.kstrs("types", p.types.list)
	w.kstrs("actors", p.actors.list)
	w.kstrs("envs", p.envs.list)
	w.kstrs("tools", p.tools.list)
	w.key("files")
	w.arr()
	for _, f := range p.files {
		w.obj()
		w.kstr("name", f.Name)
		w.kint("first", int64(f.First))
		w.kint("rows", int64(f.Rows))
		w.endObj()
	}
	w.endArr()
	w.key("runs")
	w.arr()
	for i, r := range p.runs {
		w.obj()
		w.kint("file", int64(r.File))
		w.kstr("session", r.Session.S)
		w.kstr("run", r.RunID.S)
		w.kint("first", int64(r.First))
		w.kint("rows", int64(r.Rows))
		w.kint("problems", int64(r.Problems))
		w.kstr("resumesId", r.ResumesID.S)
		w.kint("resumes", int64(r.Resumes))
		w.kint("resumedRow", int64(r.ResumedRow))
		w.kbool("stopped", r.stopped)
		// A branch recorded in this run, of another run: this run is it.
		for j, b := range p.branches {
			if b.Run == i && b.ParentRun != i {
				w.kint("branchOf", int64(j))
				break
			}
		}
		if r.Session.Cut() || r.RunID.Cut() || r.ResumesID.Cut() {
			w.kbool("cut", true) // an id above is cut
		}
		w.endObj()
		w.flush(false)
	}
	w.endArr()
	w.key("branches")
	w.arr()
	for _, b := range p.branches {
		w.obj()
		w.kint("row", int64(b.Row))
		w.kint("run", int64(b.Run))
		w.kstr("id", b.BranchID.S)
		w.kstr("parentRunId", b.ParentRunID.S)
		w.kint("parentRun", int64(b.ParentRun))
		w.kint("fork", b.Fork)
		w.kint("forkRow", int64(b.ForkRow))
		w.kstr("fp", b.Fingerprint.S)
		verdict := "unchecked"
		if b.Check != nil {
			verdict = b.Check.Verdict
		}
		w.kstr("verdict", verdict)
		if b.BranchID.Cut() || b.ParentRunID.Cut() || b.Fingerprint.Cut() {
			w.kbool("cut", true)
		}
		w.endObj()
	}
	w.endArr()
	w.key("problems")
	w.arr()
	for _, pr := range p.problems {
		if pr.Row < 0 {
			continue
		}
		w.obj()
		w.kint("row", int64(pr.Row))
		w.kstr("code", string(pr.Code))
		w.kstr("pointer", pr.Pointer.S)
		w.kstr("msg", pr.Msg.S)
		w.endObj()
	}
	w.endArr()
	kRows(w, "cut", p.cuts, func(c rowCut) {
		w.int(int64(c.row))
		w.int(int64(c.whole))
		w.int(int64(c.kept))
	})
	kRows(w, "fieldCut", p.fieldCut, func(c rowMask) {
		w.int(int64(c.row))
		w.int(int64(c.mask))
	})
	kRows(w, "dangling", p.dangling, func(d rowText) {
		w.int(int64(d.row))
		w.str(d.text)
	})
	w.kint("payloadLimit", int64(p.lim.PayloadBytes))
	w.kint("fieldLimit", int64(p.lim.FieldBytes))
	w.kint("lineLimit", unreadableBytes)
	if p.opt.HasThrough {
		w.kint("through", p.opt.Through)
	} else {
		w.key("through")
		w.null()
	}
	r := &p.rows
	w.key("ev")
	w.obj()
	w.key("file")
	w.arr()
	for fi, f := range p.files {
		for range f.Rows {
			w.int(int64(fi))
		}
		w.flush(false)
	}
	w.endArr()
	w.key("line")
	w.arr()
	for _, f := range p.files {
		for l := range f.Rows {
			w.int(int64(l + 1))
			if l&1023 == 0 {
				w.flush(false)
			}
		}
	}
	w.endArr()
	kints(w, "run", r.run)
	kints(w, "seq", r.seq)
	w.column("id", r.id)
	w.column("ts", r.ts)
	kints(w, "type", r.typ)
	kints(w, "lane", r.lane)
	kints(w, "actor", r.actor)
	kints(w, "parent", r.parent)
	kints(w, "env", r.env)
	w.column("dur", r.dur)
	kints(w, "flags", r.flags)
	kints(w, "link", r.link)
	kints(w, "tool", r.tool)
	w.column("payload", r.payload)
	w.endObj()
	w.endObj()
	w.flush(true)
}
