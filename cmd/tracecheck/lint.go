package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/agentlog"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
	"github.com/tracecheck/tracecheck/shard"
)

const lintHelp = "Check coding agents' session logs: Codex CLI rollouts, Claude Code transcripts,\n" +
	"pi sessions, TypeScript harness session stores, and Trace 0.1.0 files (with the\n" +
	"same checks as validate). The format is detected per file from its content;\n" +
	"--from forces one. A DIR is walked for *.jsonl files (symlinks not followed);\n" +
	"'-' reads standard input (not with --repair, --shard or --result).\n" +
	"Every problem is printed as FILE:LINE: CODE message, then a summary per file;\n" +
	"docs/agent-logs.md says what each code means for the agent.\n\n" +
	"--jobs J lints J files at a time (default: the number of cores); the output is\n" +
	"in input order, the same as with --jobs 1. --shard K/N lints only the files whose\n" +
	"path hashes to shard K of N (stderr says how many it took; -v: which), so that N\n" +
	"jobs of a CI matrix split a corpus; --result FILE writes the shard's whole result\n" +
	"as JSON for 'tracecheck merge', which prints what one lint of every file prints\n" +
	"(docs/sharding.md).\n\n" +
	"--repair writes a repaired copy of each file that needs one to --out DIR (never\n" +
	"over an existing file, never through a symbolic link below DIR), or with\n" +
	"--in-place replaces the file after writing a backup beside it (FILE.bak). Torn\n" +
	"and invalid lines go to FILE.sidelined. Every\n" +
	"repair is listed; the copy is linted again and its problems reported. Repairs are\n" +
	"made one file at a time, whatever --jobs says.\n\n" +
	"Exit 0 when no file has an error or warning, 1 when one has, 2 on usage errors."

// lintSettings are what every shard of a lint run shares, kept as a result
// file's "run".
type lintSettings struct {
	From   string `json:"from"`
	Repair string `json:"repair"` // none, out or in-place
	Out    string `json:"out,omitempty"`
	// Errors are the inputs that could not be read, as lint printed them
	// (each shard walks every path, so each saw them all).
	Errors []string `json:"errors,omitempty"`
}

// lintTask is one input in the order lint prints it: a file to lint
// (result delivers its outcome), standard input, or an input that could
// not be read (errLine, printed on stderr).
type lintTask struct {
	in      agentlog.Input
	stdin   bool
	size    int64
	errLine string
	result  chan lintResult
}

func runLint(e *env, args []string) int {
	fs := newFlags(e, "lint", "lint FILE|DIR... [--format text|json|github|junit] [--from FORMAT] [--repair (--out DIR | --in-place)] [-q]\n"+
		"                [--jobs J] [--shard K/N] [--result FILE] [--verbose]", lintHelp)
	format := formatFlag(fs, "text", "json", "github", "junit")
	from := fs.String("from", "", "read every file as `FORMAT`: codex, claude-code, pi, ts-harness or trace")
	repair := fs.Bool("repair", false, "write repaired copies (with --out or --in-place)")
	outDir := fs.String("out", "", "with --repair: write repaired copies under `DIR`")
	inPlace := fs.Bool("in-place", false, "with --repair: replace each file, after a backup")
	quiet := fs.BoolP("quiet", "q", false, "text: print nothing for a file without findings")
	jobs := fs.Int("jobs", 0, "lint `J` files at a time (default: the number of cores, GOMAXPROCS); the output is the same for every J")
	sf := addShardFlags(fs, "files")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	opt := agentlog.Options{}
	if *from != "" {
		f, err := agentlog.ParseFormat(*from)
		if err != nil {
			return usageError(e, "lint", "--from: %v", err)
		}
		opt.Format = f
	}
	switch {
	case *repair && (*outDir == "") == !*inPlace:
		return usageError(e, "lint", "--repair needs exactly one of --out DIR and --in-place")
	case !*repair && (*outDir != "" || *inPlace):
		return usageError(e, "lint", "--out and --in-place only go with --repair")
	case *repair && opt.Format == agentlog.Trace:
		return usageError(e, "lint", "--repair does not rewrite Trace files")
	case *jobs < 0:
		return usageError(e, "lint", "--jobs must be at least 1 (0: the number of cores), not %d", *jobs)
	}
	if msg := sf.checkResult(); msg != "" {
		return usageError(e, "lint", "%s", msg)
	}
	spec, part := sf.part()
	if fs.NArg() == 0 {
		return usageError(e, "lint", "no FILE or DIR given")
	}
	if slices.Contains(fs.Args(), "-") {
		switch {
		case stdinTwice(fs.Args()):
			return usageError(e, "lint", "'-' (standard input) given more than once")
		case *repair:
			return usageError(e, "lint", "--repair writes files: it cannot repair standard input ('-')")
		case part:
			return usageError(e, "lint", "--shard and --result split files by their path: standard input ('-') has none")
		}
	}

	// Every input, in the order lint prints it (a walk is cheap beside
	// the lint of what it finds).
	var tasks []*lintTask
	walkFailed := false
	for _, arg := range fs.Args() {
		if arg == "-" {
			tasks = append(tasks, &lintTask{stdin: true, in: agentlog.Input{Path: "<stdin>"}})
			continue
		}
		before := len(tasks)
		err := agentlog.Walk(arg, func(in agentlog.Input, err error) error {
			t := &lintTask{in: in}
			if err != nil {
				t.errLine = fmt.Sprintf("tracecheck lint: %v", inputError(in.Path, err))
			} else if part {
				st, serr := os.Stat(in.Path)
				if serr != nil {
					t.errLine = fmt.Sprintf("tracecheck lint: %v", inputError(in.Path, serr))
				} else {
					t.size = st.Size()
				}
			}
			tasks = append(tasks, t)
			return nil
		})
		if err != nil {
			tasks = append(tasks, &lintTask{errLine: fmt.Sprintf("%s lint: %s", programName, textsafe.Escape(err.Error()))})
		} else if len(tasks) == before {
			// As ruff does for a directory of no Python files: said, not
			// an error (a CI job's log directory may be empty).
			fmt.Fprintf(e.stderr, "%s lint: %s holds no session log (*.jsonl): nothing to lint\n", programName, textsafe.Quote(arg))
		}
	}

	var res *shard.Result
	set := lintSettings{From: *from, Repair: "none"}
	switch {
	case *repair && *inPlace:
		set.Repair = "in-place"
	case *repair:
		set.Repair, set.Out = "out", *outDir
	}
	if part {
		d := shard.NewDigest(shard.Lint)
		var plan []shard.Planned
		seen := map[string]bool{}
		for _, t := range tasks {
			if t.errLine != "" {
				set.Errors = append(set.Errors, t.errLine)
				continue
			}
			id := lintID(t.in.Path)
			if seen[id] {
				return usageError(e, "lint", "%s is named twice: --shard and --result take each file once", textsafe.Quote(t.in.Path))
			}
			seen[id] = true
			d.Add("file", id, []byte(strconv.FormatInt(t.size, 10)))
			plan = append(plan, shard.Planned{ID: id})
		}
		var err error
		if res, err = shard.New(shard.Lint, buildVersion(), spec, d, plan, set); err != nil {
			errorLine(e, "lint", err)
			return exitFailed
		}
		kept := tasks[:0]
		for _, t := range tasks {
			if t.errLine != "" || spec.Takes(lintID(t.in.Path)) {
				kept = append(kept, t)
			}
		}
		tasks = kept
		sf.announce(e, "lint", "files", spec, res.Taken(), len(plan))
	}

	// Lint up to J files at a time and print in input order: a file takes
	// a slot when it starts and gives it back once printed, so at most J
	// results wait (behind a slow file) at any time.
	workers := *jobs
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if *repair {
		workers = 1 // repairs write files: one at a time
	}
	e.pace(streamingPacing(min(workers, len(tasks))))
	slots := make(chan struct{}, workers)
	for _, t := range tasks {
		if t.errLine == "" {
			t.result = make(chan lintResult, 1)
		}
	}
	go func() {
		for _, t := range tasks {
			if t.errLine != "" {
				continue
			}
			slots <- struct{}{}
			go func() {
				if t.stdin {
					rep := agentlog.Lint(e.stdin, "<stdin>", opt)
					t.result <- lintResult{report: rep, failed: rep.Failed()}
					return
				}
				o := opt
				o.Detecting = t.in.Found
				t.result <- lintOne(t.in, o, *repair, *outDir, *inPlace)
			}()
		}
	}()
	out := &lintOutput{e: e, format: *format, quiet: *quiet}
	status := exitOK
	var resErr error
	for _, t := range tasks {
		if t.errLine != "" {
			fmt.Fprintln(e.stderr, t.errLine)
			walkFailed = true
			continue
		}
		r := <-t.result
		<-slots
		jf := r.jsonFile()
		if r.failed && status == exitOK {
			status = exitFailed
		}
		out.file(jf, r.failed)
		if res != nil && resErr == nil {
			outcome := "ok"
			if r.failed {
				outcome = "failed"
			}
			resErr = res.Add(lintID(t.in.Path), outcome, r.failed, jf)
		}
	}
	if resErr != nil {
		errorLine(e, "lint", resErr)
		return exitFailed
	}
	if walkFailed {
		status = exitUsage
	}
	if err := out.finish(); err != nil {
		errorLine(e, "lint", err)
		return exitFailed
	}
	if res != nil && !sf.writeResult(e, "lint", res) {
		return exitFailed
	}
	return status
}

// lintID is a file's id in a sharded lint: its path as lint prints it,
// with forward slashes.
func lintID(path string) string { return filepath.ToSlash(path) }

// lintResult is one file's outcome, as the outputs print it.
type lintResult struct {
	report   *agentlog.FileReport
	repairs  []string
	copyPath string // the repaired copy, when one was written
	backup   string
	after    *agentlog.FileReport // the lint of the repaired copy
	err      error                // the repair failed
	failed   bool
}

func lintOne(in agentlog.Input, opt agentlog.Options, repair bool, outDir string, inPlace bool) lintResult {
	if !repair {
		rep := agentlog.LintFile(in.Path, opt)
		return lintResult{report: rep, failed: rep.Failed()}
	}
	var res *agentlog.RepairResult
	var r lintResult
	if inPlace {
		res, r.backup, r.err = agentlog.RepairInPlace(in.Path, opt)
		if r.backup != "" && r.err == nil {
			r.copyPath = in.Path
		}
	} else {
		rep := agentlog.LintFile(in.Path, opt)
		if rep.Repairable == 0 || rep.Format == agentlog.Trace || rep.Format == agentlog.Unknown {
			return lintResult{report: rep, failed: rep.Failed()}
		}
		r.copyPath, res, r.err = agentlog.RepairBelow(in.Path, outDir, in.Rel, opt)
		if r.err != nil {
			r.copyPath = ""
		}
	}
	if res == nil {
		r.report = agentlog.LintFile(in.Path, opt)
		r.failed = true
		return r
	}
	r.report, r.repairs = res.Report, res.Repairs
	r.failed = r.err != nil
	if r.copyPath != "" {
		r.after = agentlog.LintFile(r.copyPath, agentlog.Options{Format: res.Report.Format})
		r.failed = r.failed || r.after.Failed()
	} else if r.err == nil {
		r.failed = r.report.Failed()
	}
	return r
}

// lintOutput prints results as they come (text, github) or at the end
// (json, junit). It prints a file from its JSON form, so that tracecheck
// merge, which reads that form from the shards' results, prints what lint
// does.
type lintOutput struct {
	e      *env
	format string
	quiet  bool
	files  []lintJSONFile
	suite  cireport.Suite
}

type lintJSONFinding struct {
	Line       int      `json:"line"`
	Code       string   `json:"code"`
	Severity   string   `json:"severity"`
	Message    string   `json:"message"`
	IDs        []string `json:"ids,omitempty"`
	Repairable bool     `json:"repairable"`
}

// String is the finding as agentlog.Finding.String writes it.
func (f *lintJSONFinding) String(file string) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s %s", file, f.Line, f.Code, f.Message)
	}
	return fmt.Sprintf("%s: %s %s", file, f.Code, f.Message)
}

type lintJSONFile struct {
	File       string            `json:"file"`
	Format     string            `json:"format"`
	Lines      int               `json:"lines"`
	Records    int               `json:"records"`
	Errors     int               `json:"errors"`
	Warnings   int               `json:"warnings"`
	Infos      int               `json:"infos"`
	Repairable int               `json:"repairable"`
	Findings   []lintJSONFinding `json:"findings"`
	Repairs    []string          `json:"repairs,omitempty"`
	Repaired   string            `json:"repaired_copy,omitempty"`
	Backup     string            `json:"backup,omitempty"`
	After      *lintJSONFile     `json:"repaired_lint,omitempty"`
	RepairErr  string            `json:"repair_error,omitempty"`
}

func jsonFile(rep *agentlog.FileReport) *lintJSONFile {
	jf := &lintJSONFile{File: rep.File, Format: rep.Format.String(), Lines: rep.Lines, Records: rep.Records,
		Errors: rep.Errors, Warnings: rep.Warnings, Infos: rep.Infos, Repairable: rep.Repairable, Findings: []lintJSONFinding{}}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		jf.Findings = append(jf.Findings, lintJSONFinding{Line: f.Line, Code: string(f.Code), Severity: f.Severity.String(),
			Message: f.Message, IDs: f.IDs, Repairable: f.Repairable()})
	}
	return jf
}

// jsonFile is the result in the form every output prints.
func (r *lintResult) jsonFile() *lintJSONFile {
	jf := jsonFile(r.report)
	jf.Repairs, jf.Repaired, jf.Backup = r.repairs, r.copyPath, r.backup
	if r.after != nil {
		jf.After = jsonFile(r.after)
	}
	if r.err != nil {
		jf.RepairErr = r.err.Error()
		if jf.RepairErr == "" {
			jf.RepairErr = "failed"
		}
	}
	return jf
}

func summary(jf *lintJSONFile) string {
	s := fmt.Sprintf("%s (%s, %d records): %s, %s, %d info", textsafe.Quote(jf.File), jf.Format, jf.Records,
		plural(jf.Errors, "error"), plural(jf.Warnings, "warning"), jf.Infos)
	if jf.Repairable > 0 {
		s += fmt.Sprintf(", %d repairable", jf.Repairable)
	}
	return s
}

// file prints one file's outcome; failed is whether it fails the run.
func (o *lintOutput) file(jf *lintJSONFile, failed bool) {
	switch o.format {
	case "text":
		o.text(jf)
	case "github":
		var anns []cireport.Annotation
		for _, f := range jf.Findings {
			level := cireport.LevelError
			switch f.Severity {
			case agentlog.Warning.String():
				level = cireport.LevelWarning
			case agentlog.Info.String():
				level = cireport.LevelNotice
			}
			anns = append(anns, cireport.Annotation{Level: level, File: jf.File, Line: f.Line, Title: f.Code, Message: f.Message})
		}
		if jf.RepairErr != "" {
			anns = append(anns, cireport.Annotation{Level: cireport.LevelError, File: jf.File, Title: "REPAIR_FAILED", Message: jf.RepairErr})
		}
		cireport.WriteGitHub(o.e.stdout, anns)
	case "json":
		o.files = append(o.files, *jf)
	case "junit":
		c := cireport.Case{Name: jf.File, File: jf.File}
		if failed {
			var b strings.Builder
			for i := range jf.Findings {
				b.WriteString(jf.Findings[i].String(jf.File))
				b.WriteByte('\n')
			}
			if jf.RepairErr != "" {
				b.WriteString("repair failed: " + jf.RepairErr + "\n")
			}
			c.Failure = &cireport.Failure{Message: summary(jf), Type: "lint", Text: b.String()}
		}
		o.suite.Cases = append(o.suite.Cases, c)
	}
}

func (o *lintOutput) text(jf *lintJSONFile) {
	w := o.e.stdout
	for i := range jf.Findings {
		f := &jf.Findings[i]
		fmt.Fprintf(w, "%s:%d: %s %s\n", textsafe.Quote(jf.File), f.Line, f.Code, f.Message)
	}
	for _, s := range jf.Repairs {
		fmt.Fprintf(w, "%s:%s\n", textsafe.Quote(jf.File), repairLine(s))
	}
	switch {
	case jf.RepairErr != "":
		fmt.Fprintf(w, "%s: repair failed: %s\n", textsafe.Quote(jf.File), textsafe.Escape(jf.RepairErr))
	case jf.Repaired != "" && jf.After != nil:
		fmt.Fprintf(w, "%s: repaired copy %s", textsafe.Quote(jf.File), textsafe.Quote(jf.Repaired))
		if jf.Backup != "" {
			fmt.Fprintf(w, " (original kept as %s)", textsafe.Quote(jf.Backup))
		}
		fmt.Fprintln(w)
		for i := range jf.After.Findings {
			f := &jf.After.Findings[i]
			fmt.Fprintf(w, "%s:%d: %s %s\n", textsafe.Quote(jf.Repaired), f.Line, f.Code, f.Message)
		}
		fmt.Fprintln(w, "after repair: "+summary(jf.After))
	}
	if len(jf.Findings) == 0 && o.quiet && jf.Repaired == "" {
		return
	}
	if len(jf.Findings) == 0 {
		fmt.Fprintf(w, "ok %s (%s, %d records)\n", textsafe.Quote(jf.File), jf.Format, jf.Records)
		return
	}
	fmt.Fprintln(w, summary(jf))
}

// repairLine turns "LINE: what" into " LINE: repaired: what".
func repairLine(s string) string {
	line, what, _ := strings.Cut(s, ": ")
	return line + ": repaired: " + what
}

func (o *lintOutput) finish() error {
	switch o.format {
	case "json":
		if o.files == nil {
			o.files = []lintJSONFile{}
		}
		return jsonout.Write(o.e.stdout, struct {
			Files []lintJSONFile `json:"files"`
		}{o.files})
	case "junit":
		o.suite.Name = "tracecheck lint"
		return cireport.WriteJUnit(o.e.stdout, "tracecheck lint", o.suite)
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// mergeLint prints what one lint of every file of m prints, from the
// files' reports the shards kept, and returns lint's exit status.
func mergeLint(e *env, m *shard.Merged, format string, quiet bool) int {
	var set lintSettings
	if err := json.Unmarshal(m.Run, &set); err != nil {
		errorLine(e, "merge", fmt.Errorf("the results' settings: %w", err))
		return exitUsage
	}
	out := &lintOutput{e: e, format: format, quiet: quiet}
	status := exitOK
	for _, line := range set.Errors {
		fmt.Fprintln(e.stderr, line)
	}
	for _, it := range m.Results {
		var jf lintJSONFile
		if err := json.Unmarshal(it.Report, &jf); err != nil {
			errorLine(e, "merge", fmt.Errorf("the report of %s: %w", textsafe.Quote(it.ID), err))
			return exitUsage
		}
		if jf.Findings == nil {
			jf.Findings = []lintJSONFinding{}
		}
		if it.Failed && status == exitOK {
			status = exitFailed
		}
		out.file(&jf, it.Failed)
	}
	if len(set.Errors) > 0 {
		status = exitUsage
	}
	if err := out.finish(); err != nil {
		errorLine(e, "merge", err)
		return exitFailed
	}
	return status
}
