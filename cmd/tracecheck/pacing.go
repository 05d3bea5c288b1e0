package main

import (
	"os"
	"runtime/debug"
)

// pacing is how the Go collector is paced for a command: percent is the
// collector's GOGC (0: the runtime's), limit its soft memory limit in
// bytes (0: none).
type pacing struct {
	percent int
	limit   int64
}

// sessionPacing is for the session commands: their live heap is a few
// tens of MB at most (docs/session-store.md, Memory), but the default
// pacing lets garbage grow as large as the live heap before a cycle,
// which doubles the peak RSS of a command that holds a large buffer
// briefly (a 10M-event UUID session's 18 MB ID index while a checkpoint
// is read or written: 72 MB peak RSS without the limit, 53 MB with it).
var sessionPacing = pacing{limit: 48 << 20}

// streamingPercent and streamingLimit pace the commands that read agent
// logs a record at a time (lint, import): their live heap is bounded
// whatever the log's size (three id-set fronts of at most 8 MiB, a line,
// BENCHMARKS.md), and at the default pacing the collector runs a cycle
// each time the heap doubles from 4 MB: nine cycles and about a tenth of
// the CPU of lint of a 100 MB Claude Code log, most of it the idle core's
// mark worker. With a cycle when the heap is five times the live heap or
// at the limit, whichever comes first, the same lint runs two. Paired
// against the default (12 alternated rounds of the 100 MB logs of
// bench/targets.py): lint 0.82x the CPU for Claude Code, 0.96-0.97x for
// the other formats; import 0.85x and 0.92-1.00x; peak RSS 3-10 MiB more,
// under 50 MiB at 1 GB. The trace commands (validate, replay,
// fingerprint, diff) measured 0.95-1.01x and keep the default.
const (
	streamingPercent = 400
	streamingLimit   = 40 << 20
)

// streamingPacing is the pacing of a command that reads n inputs at once
// (lint --jobs): the limit grows with them, so that it stays above what
// they hold live together. (A line near the 32 MiB line limit holds more
// for a while; the collector then runs more often, and a lint of a log
// with a 30 MB line took 0.68x the CPU and 73 MiB instead of 79.)
func streamingPacing(n int) pacing {
	return pacing{percent: streamingPercent, limit: int64(max(n, 1)) * streamingLimit}
}

// pace sets p through e's setPacing; a command run in-process by a test
// has none, and keeps the runtime's defaults.
func (e *env) pace(p pacing) {
	if e.setPacing != nil {
		e.setPacing(p)
	}
}

// applyPacing sets p for the process, but leaves a knob the user set in
// the environment (GOGC, GOMEMLIMIT) as the user set it.
func applyPacing(p pacing) {
	if p.percent != 0 && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(p.percent)
	}
	if p.limit != 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(p.limit)
	}
}
