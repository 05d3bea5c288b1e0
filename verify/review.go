package verify

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/tracecheck/tracecheck/journal/jsonv"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/golden"
)

// Pending is a pending golden waiting for review, with the golden it would
// replace.
type Pending struct {
	ID         string
	Path       string // the <id>.trace.jsonl.new file
	GoldenPath string
	New        []byte
	Old        []byte // nil when there is no golden yet
}

// NoPendingError names ids that have no pending golden.
type NoPendingError struct {
	IDs     []string
	Pending []string // the ids that have one
}

func (e *NoPendingError) Error() string {
	q := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		q[i] = quote(id)
	}
	have := "none"
	if len(e.Pending) > 0 {
		have = strings.Join(e.Pending, ", ")
	}
	return fmt.Sprintf("no pending golden for %s (pending: %s)", strings.Join(q, ", "), have)
}

// LoadPending reads the pending goldens of store for ids (all of them,
// sorted, when ids is empty; in the order given otherwise), each with the
// golden it would replace.
func LoadPending(store *golden.Store, ids []string) ([]Pending, error) {
	have, err := store.PendingIDs()
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		ids = have
	} else {
		var missing []string
		for _, id := range ids {
			if !slices.Contains(have, id) && !slices.Contains(missing, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return nil, &NoPendingError{IDs: missing, Pending: have}
		}
	}
	var out []Pending
	for _, id := range ids {
		if slices.ContainsFunc(out, func(p Pending) bool { return p.ID == id }) {
			continue
		}
		p := Pending{ID: id, Path: store.PendingPath(id), GoldenPath: store.Path(id)}
		if p.New, err = store.ReadPending(id); err != nil {
			return nil, err
		}
		p.Old, err = store.Read(id)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// previewLines is how many lines of a new golden (one with no golden to
// compare with) review shows.
const previewLines = 12

// Describe writes the pending golden against its golden: the drift report
// when there is a golden, else the first lines of the new one.
func (p *Pending) Describe(w io.Writer) {
	if p.Old == nil {
		n := bytes.Count(p.New, []byte("\n"))
		fmt.Fprintf(w, "  a new golden: %s does not exist yet; %d lines, the first ones:\n", quote(p.GoldenPath), n)
		lines := strings.SplitAfter(string(p.New), "\n")
		for i, l := range lines {
			if i == previewLines {
				fmt.Fprintf(w, "  + ... %d more lines\n", n-i)
				break
			}
			if l != "" {
				fmt.Fprintf(w, "  + %s\n", golden.ShowLine(strings.TrimSuffix(l, "\n")))
			}
		}
		return
	}
	d := golden.Compare(p.Old, p.New, p.GoldenPath, p.Path)
	if d == nil {
		fmt.Fprintf(w, "  the pending golden is byte for byte the golden\n")
		return
	}
	WriteDrift(w, p.GoldenPath, d)
}

// Decision is what review does with one pending golden.
type Decision int

// Decisions.
const (
	// Skip keeps both for now.
	Skip Decision = iota
	// Accept renames the pending golden over the golden.
	Accept
	// Reject removes the pending golden; the golden stays.
	Reject
	// Quit skips this one and every one after it.
	Quit
)

// ReviewSummary is what a review did.
type ReviewSummary struct {
	Accepted, Rejected, Skipped []string
}

// Review shows each pending golden (with show) and applies the decision
// decide returns for it: Accept renames it over its golden atomically,
// Reject removes it; Skip and Quit leave it. It stops at the first error.
func Review(store *golden.Store, items []Pending, show bool, decide func(p *Pending) (Decision, error), out io.Writer) (ReviewSummary, error) {
	var sum ReviewSummary
	for i := range items {
		p := &items[i]
		if show {
			fmt.Fprintf(out, "reviewing [%d/%d] %s: %s\n", i+1, len(items), quote(p.ID), quote(p.Path))
			p.Describe(out)
		}
		d, err := decide(p)
		if err != nil {
			return sum, err
		}
		switch d {
		case Accept:
			if problem := NotAGolden(p.New); problem != "" {
				return sum, fmt.Errorf("accepting %s: it is not a golden (%s): reject it, or fix it and run review again; %s is unchanged", quote(p.Path), problem, quote(p.GoldenPath))
			}
			if err := store.Accept(p.ID); err != nil {
				return sum, fmt.Errorf("accepting %s: %w", p.Path, err)
			}
			sum.Accepted = append(sum.Accepted, p.ID)
			fmt.Fprintf(out, "accepted %s: %s is the golden now\n", quote(p.ID), quote(p.GoldenPath))
		case Reject:
			if _, err := store.RemovePending(p.ID); err != nil {
				return sum, fmt.Errorf("rejecting %s: %w", p.Path, err)
			}
			sum.Rejected = append(sum.Rejected, p.ID)
			fmt.Fprintf(out, "rejected %s: removed %s\n", quote(p.ID), quote(p.Path))
		case Skip:
			sum.Skipped = append(sum.Skipped, p.ID)
			fmt.Fprintf(out, "skipped %s: %s is still pending\n", quote(p.ID), quote(p.Path))
		case Quit:
			for _, q := range items[i:] {
				sum.Skipped = append(sum.Skipped, q.ID)
			}
			fmt.Fprintf(out, "stopped: %d still pending\n", len(items)-i)
			return sum, nil
		}
	}
	return sum, nil
}

// Always returns a decide function that answers d for every item.
func Always(d Decision) func(*Pending) (Decision, error) {
	return func(*Pending) (Decision, error) { return d, nil }
}

// Keys returns a decide function that prompts on out and reads one key
// per item from keys: a accept, r reject, s (or space) skip, q quit; end
// of input, Ctrl-C and Ctrl-D also quit. Newlines are ignored, so a
// scripted "a\nr\n" works as typed keys do; any other key asks again.
func Keys(keys io.Reader, out io.Writer) func(*Pending) (Decision, error) {
	br := bufio.NewReader(keys)
	return func(p *Pending) (Decision, error) {
		if p != nil && p.Old == nil {
			fmt.Fprint(out, "  a accept (this becomes the golden)  r reject (no golden is written)  s skip (keep it pending)  q quit: ")
		} else {
			fmt.Fprint(out, "  a accept (keep the new golden)  r reject (keep the old one)  s skip (keep both for now)  q quit: ")
		}
		for {
			b, err := br.ReadByte()
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(out, "quit (end of input)")
				return Quit, nil
			}
			if err != nil {
				fmt.Fprintln(out)
				return Quit, err
			}
			switch b {
			case 'a', 'A':
				fmt.Fprintln(out, "accept")
				return Accept, nil
			case 'r', 'R':
				fmt.Fprintln(out, "reject")
				return Reject, nil
			case 's', 'S', ' ':
				fmt.Fprintln(out, "skip")
				return Skip, nil
			case 'q', 'Q', 3, 4: // 3, 4: Ctrl-C, Ctrl-D in raw mode
				fmt.Fprintln(out, "quit")
				return Quit, nil
			case '\n', '\r', '\t':
			default:
				fmt.Fprint(out, "\n  press a, r, s or q: ")
			}
		}
	}
}

// NotAGolden says why data cannot be a golden file, or "": a golden (a
// trace, a tolerant golden, a model trace or a report) is JSON lines,
// each line one JSON object, and ends with a newline. verify never writes
// anything else as a pending golden; a .new file that is not one was put
// there some other way, and review does not install it.
func NotAGolden(data []byte) string {
	if len(data) == 0 {
		return "it is empty"
	}
	if data[len(data)-1] != '\n' {
		return "its last line has no newline"
	}
	line := 0
	for rest := data; len(rest) > 0; {
		line++
		i := bytes.IndexByte(rest, '\n')
		v, err := jsonv.Parse(rest[:i])
		switch {
		case err != nil:
			return fmt.Sprintf("line %d: %v", line, err)
		case v.Kind() != jsonv.Object:
			return fmt.Sprintf("line %d: a JSON %s, not an object", line, v.Kind())
		}
		rest = rest[i+1:]
	}
	return ""
}
