// Package browsertest opens the pages package view writes in a real
// headless Chromium, over the DevTools protocol (github.com/chromedp), and
// checks what a person would see: the events listed, a payload opened from
// the keyboard, an orphan call highlighted, a synthesized repair marked,
// the diff page's highlighted field, hostile payloads shown as text, light
// and dark colours with enough contrast, and a large trace drawn lazily.
//
// Chromium is Debian's (/usr/bin/chromium; .ci/run installs it as root when
// missing), or the one TRACECHECK_CHROMIUM names. It is started headless
// with a fresh profile and the flags that keep it off the network; no
// browser is ever downloaded. Where none is installed the tests skip,
// saying so. Screenshots go to TRACECHECK_ARTIFACTS, by default
// bench/out/screenshots at the module root (git-ignored): build artifacts,
// never committed.
//
// BenchmarkOpen200k measures how fast a 200,000-event page opens, with the
// page's own performance marks; figures are in BENCHMARKS.md.
package browsertest
