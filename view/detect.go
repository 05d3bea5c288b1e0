package view

import (
	"bytes"
	"fmt"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/tracediff"
	"github.com/tracecheck/tracecheck/tracediff/tolerant"
)

// GoldenKind is what DetectGolden makes of a golden.
type GoldenKind struct {
	// Tolerant: the golden holds placeholders and is not a valid trace as
	// written, which is what tracecheck normalize writes ("[TIMESTAMP]"
	// where the schema wants a date-time): compare it as a tolerant golden.
	Tolerant bool
	// Placeholder describes the first placeholder found ("line 1:
	// \"[ID-1]\" at /event_id"), "" when there is none.
	Placeholder string
}

// DetectGolden says whether a golden is a tolerant one, by the evidence
// tracecheck diff's hint uses (tolerant.Compiler.FirstPlaceholder): it
// holds a placeholder. A valid trace may hold one as data too (an exact
// golden with "[WORKSPACE]" where a path was), so a golden that holds
// placeholders and is a valid trace is taken literally; view --diff says
// so and --normalize overrides it.
func DetectGolden(golden []byte) GoldenKind {
	var k tolerant.Compiler
	num := 0
	for rest := golden; len(rest) > 0; {
		num++
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		h, ok := k.FirstPlaceholder(line)
		if !ok {
			continue
		}
		ptr := h.Ptr
		if ptr == "" {
			ptr = "/"
		}
		g := GoldenKind{Placeholder: fmt.Sprintf("line %d: %s at %s", num, tracediff.SafeLine(string(line[h.Start:h.End])), ptr)}
		g.Tolerant = len(journal.Validate(bytes.NewReader(golden), "golden")) > 0
		return g
	}
	return GoldenKind{}
}
