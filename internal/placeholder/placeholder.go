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
	"sort"
	"strings"
)

// Names of the placeholders tracecheck writes, as the docs list them.
const (
	Workspace = "[WORKSPACE]" // the agent's working directory
	Home      = "[HOME]"      // the throwaway HOME the agent ran with
	Out       = "[OUT]"       // the run's output folder
	AgentDir  = "[AGENT_DIR]" // where the agent is installed (its package folder)
	Date      = "[DATE]"      // today's date, YYYY-MM-DD, as agents put it in their prompts
	Session   = "[SESSION]"   // the agent's own session id
)

// Pair is one value and the placeholder that stands for it.
type Pair struct {
	Name  string // e.g. Workspace
	Value string
}

// Set replaces the values of its pairs. The zero Set replaces nothing.
type Set struct {
	pairs []Pair
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

// With returns a Set with the pairs of s and more.
func (s *Set) With(more ...Pair) *Set {
	var all []Pair
	if s != nil {
		all = append(all, s.pairs...)
	}
	return New(append(all, more...)...)
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
	if s == nil || len(s.pairs) == 0 {
		return text
	}
	return s.text.Replace(text)
}

// JSON replaces every value as it is spelt inside a JSON string of b (a
// value holding a quote or a backslash is looked for escaped).
func (s *Set) JSON(b []byte) []byte {
	if s == nil || len(s.pairs) == 0 {
		return b
	}
	return []byte(s.json.Replace(string(b)))
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
