package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tracecheck/tracecheck/view"
)

// moduleRoot is where the golden traces and fixtures are, from this
// package's directory.
const moduleRoot = "../.."

// chromium finds the browser, or skips the test saying why.
func chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("TRACECHECK_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Skip("SKIP: no Chromium found (Debian's chromium package; .ci/run installs it as root): the browser tests did not run")
	return ""
}

// artifacts is where screenshots go: a build artifact, never committed.
func artifacts(tb testing.TB) string {
	dir := os.Getenv("TRACECHECK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(moduleRoot, "bench", "out", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium with the flags of the machine notes
// (no network of its own, a fresh profile) and returns a context for
// tabs; it is closed when the test ends.
func browser(tb testing.TB) context.Context {
	tb.Helper()
	path := chromium(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1400, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancel)
	bctx, bcancel := chromedp.NewContext(actx)
	tb.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	return bctx
}

// tab opens url in a new tab of the browser and waits until the page says
// it has drawn its first rows. An exception the page throws, or an error
// it logs (a refused network load among them), fails the test.
func tab(t *testing.T, bctx context.Context, url string) context.Context {
	t.Helper()
	tctx, cancel := chromedp.NewContext(bctx)
	msgs := chromedp.Console(tctx)
	var mu sync.Mutex
	var bad []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				bad = append(bad, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, m := range bad {
			t.Errorf("the page said: %s", m)
		}
	})
	ctx, tcancel := context.WithTimeout(tctx, 60*time.Second)
	t.Cleanup(tcancel)
	run(t, ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(`body[data-ready="1"]`)))
	return ctx
}

func run(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression and decodes its value.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out
}

// scheme emulates prefers-color-scheme: light or dark.
func scheme(t testing.TB, ctx context.Context, value string) {
	t.Helper()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: value}}})
	if err != nil {
		t.Fatal(err)
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// page writes the trace page of files into dir and returns its URL.
func page(t *testing.T, dir, name string, opt view.Options, files ...string) string {
	t.Helper()
	var srcs []view.Source
	for _, f := range files {
		srcs = append(srcs, view.FileSource(filepath.Join(moduleRoot, f)))
	}
	p, err := view.Build(srcs, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	return "file://" + abs
}

// contrastJS returns the lowest WCAG contrast ratio of the text of the
// elements selected, each against the first opaque background behind it.
const contrastJS = `(sel) => {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = (el) => { for (let n = el; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c.length === 3 || c[3] > 0.5) return c.slice(0, 3); } return rgb(getComputedStyle(document.body).backgroundColor); };
  let worst = 99, what = "";
  for (const el of document.querySelectorAll(sel)) {
    if (!el.textContent.trim()) continue;
    const a = lum(rgb(getComputedStyle(el).color).slice(0, 3)), b = lum(bg(el));
    const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (r < worst) { worst = r; what = el.className + ": " + el.textContent.slice(0, 30); }
  }
  return [worst, what];
}`

func TestPages(t *testing.T) {
	bctx := browser(t)
	dir := t.TempDir()

	t.Run("s07", func(t *testing.T) {
		ctx := tab(t, bctx, page(t, dir, "s07.html", view.Options{}, "golden/s07-session-replay.trace.jsonl"))
		if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .item.ev").length`); n != 7 {
			t.Errorf("event rows in the timeline: %d, want 7", n)
		}
		if got := eval[string](t, ctx, `document.getElementById("count").textContent`); got != "7 events" {
			t.Errorf("count says %q", got)
		}
		if got := eval[string](t, ctx, `document.querySelector(".runhead").textContent`); !strings.Contains(got, "Run 1 · run-s07-session-replay-golden") {
			t.Errorf("run header %q", got)
		}
		// Keyboard: focus the list, move down three events, open one.
		run(t, ctx, chromedp.Focus(chromedp.CSS("#timeline")), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent(kb.Enter))
		if got := eval[string](t, ctx, `document.activeElement.closest(".item").id`); got != "e3" {
			t.Errorf("after j j j the focused event is %q, want e3", got)
		}
		if got := eval[string](t, ctx, `document.activeElement.getAttribute("aria-expanded")`); got != "true" {
			t.Errorf("Enter did not open the event: aria-expanded=%q", got)
		}
		payload := eval[string](t, ctx, `document.querySelector("#e3 pre.payload").textContent`)
		for _, want := range []string{`"content": "Replay derives state; branching preserves its parent."`, `"stop": true`} {
			if !strings.Contains(payload, want) {
				t.Errorf("opened payload lacks %s:\n%s", want, payload)
			}
		}
		if got := eval[string](t, ctx, `document.querySelector("#e3 .facts").textContent`); !strings.Contains(got, "evt-002 (model.request)") {
			t.Errorf("the parent link is missing: %q", got)
		}
		// The overview: lineage, recomputed fingerprints, the replay view.
		if got := eval[string](t, ctx, `document.querySelector(".lineage .forkcell").textContent`); got != "2" {
			t.Errorf("fork cell %q, want 2", got)
		}
		if n := eval[int](t, ctx, `[...document.querySelectorAll("#runs .fp .good")].length`); n != 2 {
			t.Errorf("%d fingerprints shown as matching, want 2 (the branch's parent, the recorded replay)", n)
		}
		if got := eval[string](t, ctx, `document.querySelector("#replay .fpfull").textContent`); len(got) != 64 {
			t.Errorf("replay fingerprint %q", got)
		}
		screenshot(t, ctx, "s07.png")
		// Search from the keyboard: "/" then text.
		run(t, ctx, chromedp.Focus(chromedp.CSS("#timeline")), chromedp.KeyEvent("/"))
		if got := eval[string](t, ctx, `document.activeElement.id`); got != "q" {
			t.Errorf("/ focused %q, not the search field", got)
		}
		// Type into an empty field (the protocol's char event for "/" may
		// have reached it), then press Enter: the list shows the matches
		// and takes the focus back.
		eval[string](t, ctx, `document.getElementById("q").value = ""`)
		run(t, ctx, chromedp.SendKeys(chromedp.CSS("#q"), "branch"+kb.Enter))
		if got := eval[string](t, ctx, `document.getElementById("count").textContent`); got != "showing 3 of 7 events" {
			t.Errorf("after searching 'branch' the count says %q, want 3 of 7 (evt-001, evt-003, evt-006)", got)
		}
		if got := eval[[]string](t, ctx, `[...document.querySelectorAll("#timeline .item.ev")].map(n => n.id)`); fmt.Sprint(got) != "[e1 e3 e6]" {
			t.Errorf("matches shown: %v", got)
		}
		// Dark mode: dark background, readable text.
		for _, mode := range []string{"light", "dark"} {
			scheme(t, ctx, mode)
			got := eval[[]any](t, ctx, `(`+contrastJS+`)(".c-what .text, .c-what .type, .c-seq, .actor, .badge, .meta, .hint, .good, .bad, #runs code, .convo .who, pre.json span")`)
			if ratio, _ := got[0].(float64); ratio < 4.5 {
				t.Errorf("%s mode: text contrast %.2f < 4.5 (%v)", mode, ratio, got[1])
			}
		}
		dark := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`)
		if dark != "rgb(13, 17, 23)" {
			t.Errorf("dark mode background %s", dark)
		}
		screenshot(t, ctx, "s07-dark.png")
	})

	t.Run("orphan", func(t *testing.T) {
		// #r8 in the address opens row 8, with the events before it in sight.
		ctx := tab(t, bctx, page(t, dir, "orphan.html", view.Options{}, "testdata/view/interrupted-run.trace.jsonl")+"#r8")
		row := `document.getElementById("e8")`
		if got := eval[string](t, ctx, `document.activeElement.closest(".item").id + " " + document.activeElement.getAttribute("aria-expanded")`); got != "e8 true" {
			t.Errorf("#r8 focused %q, want e8 opened", got)
		}
		if top := eval[float64](t, ctx, row+`.getBoundingClientRect().top - document.getElementById("timeline").getBoundingClientRect().top`); top < 60 {
			t.Errorf("#r8 put its row %.0fpx from the top of the list: the events before it are out of sight", top)
		}
		if got := eval[string](t, ctx, row+`.className`); !strings.Contains(got, "orphan") {
			t.Errorf("the unanswered call is not marked: class %q", got)
		}
		if got := eval[string](t, ctx, row+`.querySelector(".badge.orphan").textContent`); got != "no result" {
			t.Errorf("orphan badge %q", got)
		}
		bg := eval[string](t, ctx, `getComputedStyle(`+row+`.querySelector(".head")).backgroundColor`)
		plain := eval[string](t, ctx, `getComputedStyle(document.getElementById("e7").querySelector(".head")).backgroundColor`)
		if bg == plain {
			t.Errorf("the orphan row looks like the others (background %s)", bg)
		}
	})

	t.Run("resume", func(t *testing.T) {
		ctx := tab(t, bctx, page(t, dir, "resume.html", view.Options{}, "golden/session-resume.trace.jsonl"))
		if got := eval[string](t, ctx, `document.querySelector("#e10 .badge.synth").textContent`); got != "synthesized" {
			t.Errorf("the SESSION_RESUME_INTERRUPTED repair is not marked: %q", got)
		}
		if got := eval[string](t, ctx, `document.querySelector("#e8 .badge.interrupted").textContent`); got != "interrupted" {
			t.Errorf("the interrupted call is not marked: %q", got)
		}
		heads := eval[[]string](t, ctx, `[...document.querySelectorAll(".runhead")].map(n => n.textContent)`)
		if len(heads) != 3 || !strings.Contains(heads[1], "↻ resumes Run 1") || !strings.Contains(heads[2], "↻ resumes Run 2") {
			t.Errorf("run headers %q", heads)
		}
		// t jumps from the repair to the call it answers.
		run(t, ctx, chromedp.Click(chromedp.CSS("#e10 .head")), chromedp.KeyEvent("t"))
		if got := eval[string](t, ctx, `document.activeElement.closest(".item").id`); got != "e8" {
			t.Errorf("t from the repair went to %q, want e8", got)
		}
		screenshot(t, ctx, "session-resume.png")
	})

	t.Run("hostile", func(t *testing.T) {
		ctx := tab(t, bctx, page(t, dir, "hostile.html", view.Options{}, "testdata/view/hostile.trace.jsonl"))
		if got := eval[any](t, ctx, `window.pwned === undefined ? null : window.pwned`); got != nil {
			t.Fatalf("a payload ran as script: window.pwned = %v", got)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("img, #timeline script").length`); n != 0 {
			t.Errorf("payload markup became %d elements", n)
		}
		text := eval[string](t, ctx, `document.querySelector("#e1 .text").textContent`)
		if !strings.Contains(text, "</script><script>window.pwned=1</script>") || !strings.Contains(text, "<img src=x") {
			t.Errorf("the payload is not shown as text: %q", text)
		}
		run(t, ctx, chromedp.Click(chromedp.CSS("#e4 .head")))
		if got := eval[string](t, ctx, `document.querySelector("#e4 pre.payload").textContent`); !strings.Contains(got, `"</script>": "<script>window.pwned=3</script>"`) {
			t.Errorf("hostile key not shown as text: %q", got)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .item.ev").length`); n != 5 {
			t.Errorf("%d events, want 5", n)
		}
	})

	t.Run("invisible and cut", func(t *testing.T) {
		// A message whose bidi override would make it read "rm -rf /", a
		// tool named with a zero-width space, and an event whose id is
		// longer than the page holds.
		ev := func(seq int, id, typ, payload string) string {
			parent := ""
			if seq > 0 {
				parent = `,"parent_event_id":"evt-000"`
			}
			return fmt.Sprintf(`{"trace_version":"0.1.0","event_id":"%s","session_id":"s","sequence":%d,"timestamp":"2026-08-10T00:00:00Z","type":"%s","actor":{"kind":"user","id":"learner"},"payload":%s,"provenance":{"agent_id":"a","snapshot_id":"s","surface":"sdk","harness_mode":"fake","run_id":"r"},"redaction":{"status":"clean","fields":[]}%s}`+"\n", id, seq, typ, payload, parent)
		}
		trace := ev(0, "evt-000", "session.start", `{}`) +
			ev(1, "evt-001", "user.message", `{"content":"\u202e; / fr- mr"}`) +
			ev(2, "evt-"+strings.Repeat("9", 5000), "tool.request", `{"tool":"sh\u200b","tool_call_id":"c1","arguments":{}}`)
		path := filepath.Join(dir, "invisible.trace.jsonl")
		if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := view.Build([]view.Source{view.FileSource(path)}, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		out := filepath.Join(dir, "invisible.html")
		f, _ := os.Create(out)
		if err := p.WriteHTML(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		ctx := tab(t, bctx, "file://"+out)
		// The timeline's summary, drawn by the script from the data.
		if got := eval[string](t, ctx, `document.querySelector("#e1 .text").textContent`); got != `\u202e; / fr- mr` {
			t.Errorf("the row shows %q, want the override escaped", got)
		}
		if got := eval[string](t, ctx, `document.querySelector("#e1 .text .esc").textContent`); got != `\u202e` {
			t.Errorf("the escape is not in its own style: %q", got)
		}
		if got := eval[string](t, ctx, `getComputedStyle(document.querySelector("#e1 .text .esc")).color`); got == eval[string](t, ctx, `getComputedStyle(document.querySelector("#e1 .text")).color`) {
			t.Errorf("the escape looks like the text around it (colour %s)", got)
		}
		// The replay view, written by the page's HTML.
		if got := eval[string](t, ctx, `document.querySelector("#replay .convo .text").textContent`); got != `\u202e; / fr- mr` {
			t.Errorf("the replay view shows %q", got)
		}
		// (The data island holds the text as it is: data, never shown.)
		if n := eval[int](t, ctx, `[...document.querySelectorAll("body *:not(script)")].filter(n => /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]/.test([...n.childNodes].filter(c => c.nodeType === 3).map(c => c.data).join(""))).length`); n != 0 {
			t.Errorf("%d elements show a raw invisible character", n)
		}
		// Opened, the row shows its payload with the escape too.
		run(t, ctx, chromedp.Click(chromedp.CSS("#e1 .head")))
		if got := eval[string](t, ctx, `document.querySelector("#e1 pre.payload").textContent`); !strings.Contains(got, `"\u202e; / fr- mr"`) {
			t.Errorf("opened payload %q", got)
		}
		// The cut id: a badge, and the opened row says what was cut.
		if got := eval[string](t, ctx, `[...document.querySelectorAll("#e2 .badge")].map(b => b.textContent).join(",")`); !strings.Contains(got, "field cut") {
			t.Errorf("the row of the long id has badges %q", got)
		}
		run(t, ctx, chromedp.Click(chromedp.CSS("#e2 .head")))
		if got := eval[string](t, ctx, `document.querySelector("#e2 .detail").textContent`); !strings.Contains(got, "Cut: event_id is longer than the page holds (1.0 KiB of each field") {
			t.Errorf("the opened row does not say its id is cut: %q", got)
		}
		if got := eval[string](t, ctx, `document.querySelector("#f-tool").options[1].textContent`); got != `sh\u200b` {
			t.Errorf("the tool filter shows %q", got)
		}
		screenshot(t, ctx, "invisible.png")
	})

	t.Run("diff", func(t *testing.T) {
		exp, err := os.ReadFile(filepath.Join(moduleRoot, "golden/s07-session-replay.trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		act, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/view/s07-drift.trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s07.diff.html")
		if err := view.WriteDiffFile(path, exp, act, "golden/s07-session-replay.trace.jsonl", "s07-drift.trace.jsonl", false); err != nil {
			t.Fatal(err)
		}
		ctx := tab(t, bctx, "file://"+path)
		kinds := eval[[]string](t, ctx, `[...document.querySelectorAll(".pair.changed, .pair.missing, .pair.extra")].map(n => n.className)`)
		if fmt.Sprint(kinds) != "[pair changed pair changed pair missing]" {
			t.Errorf("differences drawn: %q", kinds)
		}
		marks := eval[[]string](t, ctx, `[...document.querySelectorAll("#d3 .mark")].map(n => n.dataset.pointer + "=" + n.textContent)`)
		want := `[/payload/content="Replay derives state; branching preserves its parent." /payload/content="Replay derives state; branches keep their parent."]`
		if fmt.Sprint(marks) != want {
			t.Errorf("highlighted fields %s, want %s", marks, want)
		}
		if got := eval[string](t, ctx, `getComputedStyle(document.querySelector("#d3 .mark")).backgroundColor`); got == "rgba(0, 0, 0, 0)" {
			t.Error("the differing field is not highlighted")
		}
		run(t, ctx, chromedp.KeyEvent("n"), chromedp.KeyEvent("n"))
		if got := eval[string](t, ctx, `document.activeElement.id`); got != "d4" {
			t.Errorf("n n went to %q, want d4 (the second difference)", got)
		}
		screenshot(t, ctx, "s07-drift.png")
	})

	// A tolerant golden with one real change (testdata/tolerant-drift):
	// one difference drawn, only its field highlighted on both sides, the
	// placeholders that matched underlined, the unchanged events matched.
	t.Run("tolerant diff", func(t *testing.T) {
		exp, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/tolerant-drift/one-change.trace.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		act, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/tracediff/tolerant/other-argument.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "tolerant.diff.html")
		if err := view.WriteDiffFile(path, exp, act, "one-change.trace.jsonl", "other-argument.jsonl", true); err != nil {
			t.Fatal(err)
		}
		ctx := tab(t, bctx, "file://"+path)
		kinds := eval[[]string](t, ctx, `[...document.querySelectorAll(".pair.changed, .pair.missing, .pair.extra")].map(n => n.id)`)
		if fmt.Sprint(kinds) != "[d4]" {
			t.Errorf("differences drawn: %q, want d4 only", kinds)
		}
		marks := eval[[]string](t, ctx, `[...document.querySelectorAll("#d4 .mark")].map(n => n.dataset.pointer + "=" + n.textContent)`)
		if want := `[/payload/arguments/text="hello" /payload/arguments/text="goodbye"]`; fmt.Sprint(marks) != want {
			t.Errorf("highlighted fields %s, want %s", marks, want)
		}
		matched := eval[[]string](t, ctx, `[...document.querySelectorAll("#d4 .matched")].filter(n => n.dataset.pointer === "/event_id").map(n => n.textContent)`)
		if want := `["[ID-8]" "00000000-0000-4002-8000-000000000008"]`; fmt.Sprint(matched) != want {
			t.Errorf("the matched event_id on each side %s, want %s", matched, want)
		}
		if got := eval[string](t, ctx, `getComputedStyle(document.querySelector("#d4 .matched")).textDecorationLine`); got != "underline" {
			t.Errorf("a matched placeholder is drawn with text-decoration %q, not underlined", got)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll(".problems li").length`); n != 0 {
			t.Errorf("%d problems listed", n)
		}
		if got := eval[string](t, ctx, `document.querySelector(".pair.equal .sd.muted").textContent`); !strings.HasPrefix(got, "matched (line") {
			t.Errorf("an unchanged event says %q", got)
		}
		screenshot(t, ctx, "tolerant-drift.png")
	})

	t.Run("lazy", func(t *testing.T) {
		trace := filepath.Join(dir, "gen-20k.jsonl")
		writeGenerated(t, trace, 20000)
		p, err := view.Build([]view.Source{view.FileSource(trace)}, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		out := filepath.Join(dir, "gen.html")
		f, _ := os.Create(out)
		if err := p.WriteHTML(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		ctx := tab(t, bctx, "file://"+out)
		if got := eval[int](t, ctx, `window.tracecheckView.events`); got != 20000 {
			t.Errorf("page holds %d events, want 20000", got)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .item").length`); n > 200 {
			t.Errorf("%d rows in the DOM for 20,000 events: the list is not lazy", n)
		}
		run(t, ctx, chromedp.Focus(chromedp.CSS("#timeline")), chromedp.KeyEvent(kb.End))
		if got := eval[string](t, ctx, `document.activeElement.closest(".item").querySelector(".c-seq").textContent`); got != "19999" {
			t.Errorf("End went to sequence %q, want 19999", got)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("#timeline .item").length`); n > 200 {
			t.Errorf("%d rows in the DOM after scrolling to the end", n)
		}
		// A jump far down opens the row there; the next row starts below
		// its opened payload, not over it.
		eval[any](t, ctx, `window.tracecheckView.jumpTo(15000), null`)
		gap := eval[float64](t, ctx, `document.getElementById("e15001").getBoundingClientRect().top - document.getElementById("e15000").getBoundingClientRect().bottom`)
		if gap < -1 { // sub-pixel positions round
			t.Errorf("row 15001 overlaps the opened row 15000 by %.0fpx", -gap)
		}
		if n := eval[int](t, ctx, `performance.getEntriesByType("resource").length`); n != 0 {
			t.Errorf("the page loaded %d resources; it must need none", n)
		}
	})
}
