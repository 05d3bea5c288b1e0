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
// markup. What one page holds is bounded (Limits): a payload over the
// limit is cut and past the page's budget later events keep only their
// envelope, and the page says what it left out; only the rows in sight
// are in the DOM, so a 200,000-event trace stays usable.
//
// The timeline shows events by actor lane with parent links, tool calls
// joined to their results, runs with their resume markers, branch lineage
// (the parent fingerprint recomputed by package reducer), compaction, the
// replay view of each run, and the problems package journal finds, pinned
// to their lines. The diff page aligns events by run and sequence with
// package tracediff (SequenceAligner where a file is not a valid trace).
package view
