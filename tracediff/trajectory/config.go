package trajectory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
	"github.com/tracecheck/tracecheck/schema"
)

// Mode is a trajectory relation.
type Mode string

// The relations. Expected is the reference trajectory, actual the run's.
const (
	// Exact: the same calls in the same order.
	Exact Mode = "exact"
	// ContainsInOrder: the expected calls appear in the actual trajectory
	// in their order; other calls may come between.
	ContainsInOrder Mode = "contains-in-order"
	// SameMultiset: the same calls in any order, matched one to one.
	SameMultiset Mode = "same-multiset"
	// Subset: every actual call matches a distinct expected call.
	Subset Mode = "subset"
	// Superset: every expected call matches a distinct actual call.
	Superset Mode = "superset"
)

// Modes lists the relations.
var Modes = []Mode{Exact, ContainsInOrder, SameMultiset, Subset, Superset}

// ParseMode reads a relation's name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown match mode %q (want %s)", s, strings.Join(names, ", "))
}

// ArgMatch says how two calls' arguments are compared.
type ArgMatch struct {
	// Kind is exact (the default), ignore, subset, superset or keys.
	Kind string
	// Keys are the JSON pointers, relative to the arguments, that Kind
	// keys compares.
	Keys []string
}

// The kinds of ArgMatch.
const (
	ArgsExact    = "exact"
	ArgsIgnore   = "ignore"
	ArgsSubset   = "subset"
	ArgsSuperset = "superset"
	ArgsKeys     = "keys"
)

// UnmarshalJSON reads "exact", "ignore", "subset", "superset" or
// {"keys": [...]}.
func (a *ArgMatch) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		a.Kind = s
		return nil
	}
	var k struct {
		Keys []string `json:"keys"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	a.Kind, a.Keys = ArgsKeys, k.Keys
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (a ArgMatch) MarshalJSON() ([]byte, error) {
	if a.Kind == ArgsKeys {
		return json.Marshal(struct {
			Keys []string `json:"keys"`
		}{a.Keys})
	}
	return json.Marshal(a.kind())
}

func (a ArgMatch) kind() string {
	if a.Kind == "" {
		return ArgsExact
	}
	return a.Kind
}

// ToolConfig holds one tool's settings.
type ToolConfig struct {
	Arguments *ArgMatch `json:"arguments,omitempty"`
}

// Bounds bound a count; nil is no bound.
type Bounds struct {
	Min *int `json:"min,omitempty"`
	Max *int `json:"max,omitempty"`
}

// Policy is the reference-free checks of an actual trace.
type Policy struct {
	AllowedTools  []string          `json:"allowed_tools,omitempty"`
	DeniedTools   []string          `json:"denied_tools,omitempty"`
	Calls         map[string]Bounds `json:"calls,omitempty"`
	MaxTurns      *int              `json:"max_turns,omitempty"`
	NoOrphanCalls bool              `json:"no_orphan_calls,omitempty"`
}

// Config is a match config, the document schema/match-config.schema.json
// describes.
type Config struct {
	// Match is the relation; "" compares the traces event by event and
	// adds only the policy.
	Match     Mode                  `json:"match,omitempty"`
	Arguments ArgMatch              `json:"arguments,omitzero"`
	Tools     map[string]ToolConfig `json:"tools,omitempty"`
	// Results (default true) makes a call's tool.result count: present on
	// both sides or neither, with the same ok.
	Results *bool   `json:"results,omitempty"`
	Policy  *Policy `json:"policy,omitempty"`
}

// argsFor returns the argument matching of tool.
func (c *Config) argsFor(tool string) ArgMatch {
	if t, ok := c.Tools[tool]; ok && t.Arguments != nil {
		return *t.Arguments
	}
	return c.Arguments
}

func (c *Config) results() bool { return c.Results == nil || *c.Results }

// ParseConfig reads a match config: strict JSON (no duplicate keys),
// validated against the schema; name is the file for messages.
func ParseConfig(data []byte, name string) (*Config, error) {
	v, err := jsonv.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := schema.ValidateMatchConfig(v.Interface(schema.Number)); err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: %s", name, se.Error())
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}
