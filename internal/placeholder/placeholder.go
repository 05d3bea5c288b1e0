// Package placeholder replaces what legitimately varies from one run of a
// real agent to the next (the workspace and home paths, today's date, the
// agent's install folder) by named placeholders such as [WORKSPACE], so
// that two runs of the same scenario give the same bytes to hash and to
// compare.
//
// A Set is built once from its pairs and used for plain text (Text) and for
// JSON bytes (JSON), where a value is replaced as it is spelt inside a JSON
// string. Longer values are replaced first, so a workspace inside the home
// folder becomes [WORKSPACE], not [HOME]/workspace. An empty value is
// ignored: it would match everywhere.
package placeholder

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// Names of the placeholders tracecheck writes, as the docs list them.
const (
	Workspace = "[WORKSPACE]" // the agent's working directory
	Home      = "[HOME]"      // the throwaway HOME the agent ran with
	Out       = "[OUT]"       // the run's output folder
	AgentDir  = "[AGENT_DIR]" // where the agent is installed (its package folder)
	Date      = "[DATE]"      // today's date, YYYY-MM-DD, where it stands alone (DateRule)
	Session   = "[SESSION]"   // the agent's own session id
	// OSRelease stands for the running kernel's release (uname -r), which
	// agents write into their prompts (Claude Code's "OS Version: Linux
	// 6.18.44-…"): it differs from machine to machine.
	OSRelease = "[OS_RELEASE]"
	// PromptHash stands for a hash an agent computes from each prompt
	// (Claude Code's cc_version=X.Y.Z.<hash> in its billing header block).
	PromptHash = "[PROMPT_HASH]"
	// Duration stands for a measured time an agent writes into a tool
	// output (Codex's "Wall time: 0.0012 seconds").
	Duration = "[DURATION]"
)

// Pair is one value and the placeholder that stands for it.
type Pair struct {
	Name  string // e.g. Workspace
	Value string
}

// Rule replaces what a pattern matches: for a value an agent derives per
// run and that no pair can name in advance (Claude Code's per-prompt hash
// in its billing header). Repl is a regexp replacement template ($1 for a
// group); it should hold a placeholder name.
type Rule struct {
	Re   *regexp.Regexp
	Repl string
}

// Set replaces the values of its pairs, then what its rules match. The
// zero Set replaces nothing.
type Set struct {
	pairs []Pair
	rules []Rule
	text  *strings.Replacer
	json  *strings.Replacer
}

// New returns the Set of pairs. A pair with an empty value, or a value
// another pair already has, is dropped.
func New(pairs ...Pair) *Set {
	seen := map[string]bool{}
	var kept []Pair
	for _, p := range pairs {
		if p.Value == "" || seen[p.Value] {
			continue
		}
		seen[p.Value] = true
		kept = append(kept, p)
	}
	sort.SliceStable(kept, func(i, j int) bool { return len(kept[i].Value) > len(kept[j].Value) })
	s := &Set{pairs: kept}
	var text, js []string
	for _, p := range kept {
		text = append(text, p.Value, p.Name)
		js = append(js, jsonSpelling(p.Value), jsonSpelling(p.Name))
	}
	s.text = strings.NewReplacer(text...)
	s.json = strings.NewReplacer(js...)
	return s
}

// With returns a Set with the pairs and rules of s and more pairs.
func (s *Set) With(more ...Pair) *Set {
	var all []Pair
	var rules []Rule
	if s != nil {
		all = append(all, s.pairs...)
		rules = s.rules
	}
	return New(append(all, more...)...).WithRules(rules...)
}

// WithRules returns a Set with the pairs and rules of s and more rules,
// applied after the pairs in the order given. A rule's pattern is matched
// against JSON bytes as it is against text: it should not span a quote or
// a backslash.
func (s *Set) WithRules(rules ...Rule) *Set {
	if s == nil {
		s = New()
	}
	out := *s
	out.rules = append(append([]Rule(nil), s.rules...), rules...)
	return &out
}

// Pairs lists the pairs, longest value first.
func (s *Set) Pairs() []Pair {
	if s == nil {
		return nil
	}
	return append([]Pair(nil), s.pairs...)
}

// Text replaces every value in s.
func (s *Set) Text(text string) string {
	if s == nil {
		return text
	}
	if len(s.pairs) > 0 {
		text = s.text.Replace(text)
	}
	for _, r := range s.rules {
		text = r.Re.ReplaceAllString(text, r.Repl)
	}
	return text
}

// JSON replaces every value as it is spelt inside a JSON string of b (a
// value holding a quote or a backslash is looked for escaped).
func (s *Set) JSON(b []byte) []byte {
	if s == nil {
		return b
	}
	if len(s.pairs) > 0 {
		b = []byte(s.json.Replace(string(b)))
	}
	for _, r := range s.rules {
		b = r.Re.ReplaceAll(b, []byte(r.Repl))
	}
	return b
}

// jsonSpelling is v as encoding/json writes it inside a string, without
// the quotes (HTML characters are not escaped: tracecheck's writers do not
// escape them either).
func jsonSpelling(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// DateRule replaces date (YYYY-MM-DD) where it stands alone, as agents
// write today's date into their prompts, but not where it starts a
// timestamp (2026-12-02T03:14:39Z), which a tolerant golden normalizes as
// a whole.
func DateRule(date string) Rule {
	return Rule{Re: regexp.MustCompile(regexp.QuoteMeta(date) + `([^T0-9]|$)`), Repl: Date + "${1}"}
}
