// Package view writes the HTML pages of tracecheck view: one
// self-contained page of one or more traces (Build, then Page.WriteHTML)
// and the side-by-side page of a golden and an actual trace (BuildDiff,
// then DiffPage.WriteHTML, or WriteDiffFile).
//
// A page is one HTML document built from the templates, CSS and JavaScript
// embedded in the binary: it needs no network, CDN or web font (its
// Content-Security-Policy says default-src 'none') and works from file://.
// The same input always gives the same bytes, so pages are golden files
// in testdata/. Every string from input reaches the page through
// html/template or as JSON data in a script island (island.go), never as
// markup, and wherever the page shows text, a character that would be
// invisible or reorder the text around it (a bidi override, a zero-width
// space: clip.go) is shown as its escape in a style of its own.
//
// What one page holds is bounded (Limits), every bound counting the bytes
// the page writes, escapes included: a payload or an envelope field over
// its limit is cut and marked, past the page's budgets later events keep
// only their envelope or are left out, and the page says what it left out.
// Build reads each source as a stream and keeps only what the page holds,
// its string columns past a few MiB in a temporary file (column.go), so
// its memory does not grow with the input; only the rows in sight are in
// the DOM, so a 200,000-event trace stays usable.
//
// The timeline shows events by actor lane with parent links, tool calls
// joined to their results, runs with their resume markers, branch lineage
// (the parent fingerprint recomputed by package reducer), compaction, the
// replay view of each run, and the problems package journal finds, pinned
// to their lines. The diff page aligns events by run and sequence with
// package tracediff (SequenceAligner where a file is not a valid trace).
package view
