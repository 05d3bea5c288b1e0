package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/internal/atomicfile"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/regularfile"
	"github.com/tracecheck/tracecheck/schema"
)

// The result file's format and version (schema/result.schema.json).
const (
	FormatName = "tracecheck-result"
	Version    = 1
)

// MaxResultBytes bounds a result file: Write refuses to write a larger
// one and Read to read one (reading holds the file and its parse, a few
// times its size, so the bound is what keeps merge's memory bounded).
const MaxResultBytes = 64 << 20

// Commands whose runs are sharded and merged.
const (
	Verify  = "verify"
	Lint    = "lint"
	Conform = "conform"
)

// Result is one shard's whole result, as --result writes it.
type Result struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	Tracecheck string `json:"tracecheck"`
	Command    string `json:"command"`
	Shard      Spec   `json:"shard"`
	Inputs     Inputs `json:"inputs"`
	// Plan is every item the run selected, in the run's order, each with
	// the shard it belongs to.
	Plan []Planned `json:"plan"`
	// Results are the items this shard took, in the plan's order.
	Results []ItemResult `json:"results"`
	// Goldens are the goldens the shard saw on disk (verify).
	Goldens *Goldens `json:"goldens,omitempty"`
	// Run holds the command's settings, which every shard of a run
	// shares (what they are is the command's).
	Run json.RawMessage `json:"run"`
	// Part is what the shard says of its own run as a whole, when the
	// command has something to say (conform: its subject's hello, status,
	// protocol error and stderr tail).
	Part json.RawMessage `json:"part,omitempty"`
}

// Inputs identify the suite: the digest of every item the run knew (see
// Digest) and how many there were.
type Inputs struct {
	Digest string `json:"digest"`
	Known  int    `json:"known"`
}

// Planned is one item of the plan.
type Planned struct {
	ID    string `json:"id"`
	Kind  string `json:"kind,omitempty"`
	Shard int    `json:"shard"`
	// Goldens are the golden names the item renders (verify).
	Goldens []string `json:"goldens,omitempty"`
}

// ItemResult is the outcome of one item a shard took and its report, in
// the command's own form.
type ItemResult struct {
	ID      string          `json:"id"`
	Outcome string          `json:"outcome"`
	Failed  bool            `json:"failed"`
	Report  json.RawMessage `json:"report"`
}

// Goldens are the goldens of a golden directory.
type Goldens struct {
	Dir      string   `json:"dir"`
	Embedded bool     `json:"embedded"`
	Names    []string `json:"names"`
}

// New starts the result of shard spec (the zero Spec is Whole) of a run
// of command over the items of plan (their Shard is filled in), with the
// inputs' digest d, tracecheck's version and the run's settings.
func New(command, version string, spec Spec, d *Digest, plan []Planned, run any) (*Result, error) {
	if spec.IsZero() {
		spec = Whole
	}
	settings, err := json.Marshal(run)
	if err != nil {
		return nil, err
	}
	for i := range plan {
		plan[i].Shard = Of(plan[i].ID, spec.Total)
	}
	if plan == nil {
		plan = []Planned{}
	}
	return &Result{Format: FormatName, Version: Version, Tracecheck: version, Command: command, Shard: spec,
		Inputs: Inputs{Digest: d.Sum(), Known: d.Items()}, Plan: plan, Results: []ItemResult{}, Run: settings}, nil
}

// Taken lists the plan's items that belong to the result's shard.
func (r *Result) Taken() []Planned {
	var out []Planned
	for _, p := range r.Plan {
		if p.Shard == r.Shard.Index {
			out = append(out, p)
		}
	}
	return out
}

// Add records the outcome and report of one item.
func (r *Result) Add(id, outcome string, failed bool, report any) error {
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	r.Results = append(r.Results, ItemResult{ID: id, Outcome: outcome, Failed: failed, Report: b})
	return nil
}

// Write writes the result to path as one JSON document (as every
// --format json document is written: internal/jsonout), atomically.
// A result larger than MaxResultBytes is a *TooLargeError, and path is
// left as it was.
func (r *Result) Write(path string) error {
	return atomicfile.WriteFunc(path, 0o644, func(w io.Writer) error {
		return jsonout.Write(&capped{w: w, left: MaxResultBytes}, r)
	})
}

// TooLargeError is a result larger than MaxResultBytes.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the result is larger than %d MiB, more than merge reads: split the run into more shards", e.Max>>20)
}

// capped writes to w until left bytes are written, then fails.
type capped struct {
	w    io.Writer
	left int64
}

func (c *capped) Write(b []byte) (int, error) {
	if int64(len(b)) > c.left {
		return 0, &TooLargeError{Max: MaxResultBytes}
	}
	c.left -= int64(len(b))
	return c.w.Write(b)
}

// IsResultFile reports whether the file at path reads as a result file
// of some tracecheck: a JSON object whose first member is "format":
// "tracecheck-result", as Write writes it (only its start is read). A file
// that does not is one --result must not replace.
func IsResultFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	compact := bytes.Join(bytes.Fields(head[:n]), nil)
	return bytes.HasPrefix(compact, []byte(`{"format":"`+FormatName+`"`))
}

// ReadError is a file that is no result this tracecheck reads.
type ReadError struct {
	File string
	Msg  string
}

func (e *ReadError) Error() string { return e.File + ": " + e.Msg }

// Read reads and checks the result file at path: a JSON document valid
// against schema/result.schema.json, of this format and version.
func Read(path string) (*Result, error) {
	data, err := regularfile.Read(path, MaxResultBytes)
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

// Decode checks and decodes a result file's bytes; file names it in
// errors.
func Decode(file string, data []byte) (*Result, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, &ReadError{File: file, Msg: "not a tracecheck result file (not JSON: " + err.Error() + ")"}
	}
	if dec.More() {
		return nil, &ReadError{File: file, Msg: "not a tracecheck result file (more than one JSON value)"}
	}
	m, _ := doc.(map[string]any)
	if m == nil || m["format"] != FormatName {
		return nil, &ReadError{File: file, Msg: fmt.Sprintf("not a tracecheck result file (no \"format\": %q)", FormatName)}
	}
	if v, ok := m["version"].(json.Number); !ok || v.String() != fmt.Sprint(Version) {
		if _, has := m["version"]; !has || !ok {
			return nil, &ReadError{File: file, Msg: fmt.Sprintf("not a valid result file: no integer \"version\" (this tracecheck reads version %d)", Version)}
		}
		return nil, &ReadError{File: file, Msg: fmt.Sprintf("a result file of version %v; this tracecheck reads version %d", m["version"], Version)}
	}
	if err := schema.ValidateResult(doc); err != nil {
		var se *schema.Error
		if errors.As(err, &se) && len(se.Violations) > 0 {
			return nil, &ReadError{File: file, Msg: "not a valid result file: " + se.Violations[0].String()}
		}
		return nil, &ReadError{File: file, Msg: "not a valid result file: " + err.Error()}
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &ReadError{File: file, Msg: "not a valid result file: " + err.Error()}
	}
	if r.Shard.Index > r.Shard.Total {
		return nil, &ReadError{File: file, Msg: fmt.Sprintf("not a valid result file: /shard: shard %s does not exist", r.Shard)}
	}
	for _, p := range r.Plan {
		if p.Shard > r.Shard.Total {
			return nil, &ReadError{File: file, Msg: fmt.Sprintf("not a valid result file: /plan: %q is planned in shard %d of %d", p.ID, p.Shard, r.Shard.Total)}
		}
	}
	return &r, nil
}
