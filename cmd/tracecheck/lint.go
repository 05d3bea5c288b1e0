package main

import (
	"fmt"

	"path/filepath"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/agentlog"
	"github.com/tracecheck/tracecheck/internal/cireport"
	"github.com/tracecheck/tracecheck/internal/jsonout"
	"github.com/tracecheck/tracecheck/internal/textsafe"
)

func runLint(e *env, args []string) int {
	fs := newFlags(e, "lint", "lint FILE|DIR... [--format text|json|github|junit] [--from FORMAT] [--repair (--out DIR | --in-place)] [-q]",
		"Check coding agents' session logs: Codex CLI rollouts, Claude Code transcripts,\n"+
			"pi sessions, TypeScript harness session stores, and Trace 0.1.0 files (with the\n"+
			"same checks as validate). The format is detected per file from its content;\n"+
			"--from forces one. A DIR is walked for *.jsonl files (symlinks not followed);\n"+
			"'-' reads standard input (not with --repair).\n"+
			"Every problem is printed as FILE:LINE: CODE message, then a summary per file;\n"+
			"docs/agent-logs.md says what each code means for the agent.\n\n"+
			"--repair writes a repaired copy of each file that needs one to --out DIR (never\n"+
			"over an existing file), or with --in-place replaces the file after writing a\n"+
			"backup beside it (FILE.bak). Torn and invalid lines go to FILE.sidelined. Every\n"+
			"repair is listed; the copy is linted again and its problems reported.\n\n"+
			"Exit 0 when no file has an error or warning, 1 when one has, 2 on usage errors.")
	format := formatFlag(fs, "text", "json", "github", "junit")
	from := fs.String("from", "", "read every file as `FORMAT`: codex, claude-code, pi, ts-harness or trace")
	repair := fs.Bool("repair", false, "write repaired copies (with --out or --in-place)")
	outDir := fs.String("out", "", "with --repair: write repaired copies under `DIR`")
	inPlace := fs.Bool("in-place", false, "with --repair: replace each file, after a backup")
	quiet := fs.BoolP("quiet", "q", false, "text: print nothing for a file without findings")
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
	}
	if fs.NArg() == 0 {
		return usageError(e, "lint", "no FILE or DIR given")
	}
	if slices.Contains(fs.Args(), "-") {
		switch {
		case stdinTwice(fs.Args()):
			return usageError(e, "lint", "'-' (standard input) given more than once")
		case *repair:
			return usageError(e, "lint", "--repair writes files: it cannot repair standard input ('-')")
		}
	}
	out := &lintOutput{e: e, format: *format, quiet: *quiet}
	status := exitOK
	for _, arg := range fs.Args() {
		if arg == "-" {
			rep := agentlog.Lint(e.stdin, "<stdin>", opt)
			if rep.Failed() && status == exitOK {
				status = exitFailed
			}
			out.file(lintResult{report: rep, failed: rep.Failed()})
			continue
		}
		err := agentlog.Walk(arg, func(in agentlog.Input, err error) error {
			if err != nil {
				fmt.Fprintf(e.stderr, "tracecheck lint: %v\n", inputError(in.Path, err))
				status = exitUsage
				return nil
			}
			o := opt
			o.Detecting = in.Found
			res := lintOne(e, in, o, *repair, *outDir, *inPlace)
			if res.failed && status == exitOK {
				status = exitFailed
			}
			out.file(res)
			return nil
		})
		if err != nil {
			errorLine(e, "lint", err)
			status = exitUsage
		}
	}
	if err := out.finish(); err != nil {
		errorLine(e, "lint", err)
		return exitFailed
	}
	return status
}

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

func lintOne(e *env, in agentlog.Input, opt agentlog.Options, repair bool, outDir string, inPlace bool) lintResult {
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
		r.copyPath = filepath.Join(outDir, in.Rel)
		res, r.err = agentlog.RepairTo(in.Path, r.copyPath, opt)
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
// (json, junit).
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

func summary(rep *agentlog.FileReport) string {
	s := fmt.Sprintf("%s (%s, %d records): %s, %s, %d info", textsafe.Quote(rep.File), rep.Format, rep.Records,
		plural(rep.Errors, "error"), plural(rep.Warnings, "warning"), rep.Infos)
	if rep.Repairable > 0 {
		s += fmt.Sprintf(", %d repairable", rep.Repairable)
	}
	return s
}

func (o *lintOutput) file(r lintResult) {
	rep := r.report
	switch o.format {
	case "text":
		o.text(r)
	case "github":
		var anns []cireport.Annotation
		for _, f := range rep.Findings {
			level := cireport.LevelError
			switch f.Severity {
			case agentlog.Warning:
				level = cireport.LevelWarning
			case agentlog.Info:
				level = cireport.LevelNotice
			}
			anns = append(anns, cireport.Annotation{Level: level, File: rep.File, Line: f.Line, Title: string(f.Code), Message: f.Message})
		}
		if r.err != nil {
			anns = append(anns, cireport.Annotation{Level: cireport.LevelError, File: rep.File, Title: "REPAIR_FAILED", Message: r.err.Error()})
		}
		cireport.WriteGitHub(o.e.stdout, anns)
	case "json":
		jf := jsonFile(rep)
		jf.Repairs, jf.Repaired, jf.Backup = r.repairs, r.copyPath, r.backup
		if r.after != nil {
			jf.After = jsonFile(r.after)
		}
		if r.err != nil {
			jf.RepairErr = r.err.Error()
		}
		o.files = append(o.files, *jf)
	case "junit":
		c := cireport.Case{Name: rep.File, File: rep.File}
		if r.failed {
			var b strings.Builder
			for i := range rep.Findings {
				b.WriteString(rep.Findings[i].String())
				b.WriteByte('\n')
			}
			if r.err != nil {
				b.WriteString("repair failed: " + r.err.Error() + "\n")
			}
			c.Failure = &cireport.Failure{Message: summary(rep), Type: "lint", Text: b.String()}
		}
		o.suite.Cases = append(o.suite.Cases, c)
	}
}

func (o *lintOutput) text(r lintResult) {
	w := o.e.stdout
	rep := r.report
	for i := range rep.Findings {
		f := &rep.Findings[i]
		fmt.Fprintf(w, "%s:%d: %s %s\n", textsafe.Quote(rep.File), f.Line, f.Code, f.Message)
	}
	for _, s := range r.repairs {
		fmt.Fprintf(w, "%s:%s\n", textsafe.Quote(rep.File), repairLine(s))
	}
	switch {
	case r.err != nil:
		fmt.Fprintf(w, "%s: repair failed: %s\n", textsafe.Quote(rep.File), textsafe.Escape(r.err.Error()))
	case r.copyPath != "" && r.after != nil:
		fmt.Fprintf(w, "%s: repaired copy %s", textsafe.Quote(rep.File), textsafe.Quote(r.copyPath))
		if r.backup != "" {
			fmt.Fprintf(w, " (original kept as %s)", textsafe.Quote(r.backup))
		}
		fmt.Fprintln(w)
		for i := range r.after.Findings {
			f := &r.after.Findings[i]
			fmt.Fprintf(w, "%s:%d: %s %s\n", textsafe.Quote(r.copyPath), f.Line, f.Code, f.Message)
		}
		fmt.Fprintln(w, "after repair: "+summary(r.after))
	}
	if len(rep.Findings) == 0 && o.quiet && r.copyPath == "" {
		return
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintf(w, "ok %s (%s, %d records)\n", textsafe.Quote(rep.File), rep.Format, rep.Records)
		return
	}
	fmt.Fprintln(w, summary(rep))
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
