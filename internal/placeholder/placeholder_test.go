package placeholder

import (
	"regexp"
	"testing"
)

func TestText(t *testing.T) {
	s := New(
		Pair{Home, "/tmp/run-1/home"},
		Pair{Workspace, "/tmp/run-1/home/ws"},
		Pair{Date, "2026-12-02"},
		Pair{Session, ""}, // ignored
	)
	tests := []struct{ in, want string }{
		{"cwd: /tmp/run-1/home/ws/out.txt", "cwd: [WORKSPACE]/out.txt"},
		{"HOME=/tmp/run-1/home", "HOME=[HOME]"},
		{"Today's date is 2026-12-02.", "Today's date is [DATE]."},
		{"nothing to replace", "nothing to replace"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := s.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONReplacesTheEscapedSpelling(t *testing.T) {
	s := New(Pair{Workspace, `C:\work "x"`}, Pair{Home, "/h<o>me"})
	in := []byte(`{"cwd":"C:\\work \"x\"\\a","home":"/h<o>me/.pi"}`)
	want := `{"cwd":"[WORKSPACE]\\a","home":"[HOME]/.pi"}`
	if got := string(s.JSON(in)); got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestNilAndEmptySetsReplaceNothing(t *testing.T) {
	var nilSet *Set
	for _, s := range []*Set{nilSet, New(), New(Pair{Home, ""})} {
		if got := s.Text("/tmp/x"); got != "/tmp/x" {
			t.Errorf("Text = %q", got)
		}
		if got := string(s.JSON([]byte(`"/tmp/x"`))); got != `"/tmp/x"` {
			t.Errorf("JSON = %q", got)
		}
	}
}

func TestWithAddsPairsAndKeepsTheLongestFirst(t *testing.T) {
	s := New(Pair{Home, "/h"}).With(Pair{Workspace, "/h/ws"})
	if got := s.Text("/h/ws and /h"); got != "[WORKSPACE] and [HOME]" {
		t.Errorf("Text = %q", got)
	}
	if p := s.Pairs(); len(p) != 2 || p[0].Name != Workspace {
		t.Errorf("Pairs = %v", p)
	}
}

func TestRulesApplyAfterThePairs(t *testing.T) {
	s := New(Pair{Workspace, "/w"}).WithRules(Rule{regexp.MustCompile(`(cc_version=\d+\.\d+\.\d+)\.[0-9a-f]+`), "${1}." + PromptHash})
	in := "x-anthropic-billing-header: cc_version=2.1.332.9ab; cwd /w"
	want := "x-anthropic-billing-header: cc_version=2.1.332.[PROMPT_HASH]; cwd [WORKSPACE]"
	if got := s.Text(in); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := string(s.JSON([]byte(`"` + in + `"`))); got != `"`+want+`"` {
		t.Errorf("JSON = %s", got)
	}
	if got := s.With(Pair{Home, "/h"}).Text(in + " /h"); got != want+" [HOME]" {
		t.Errorf("With kept no rule: %q", got)
	}
}

func TestDateRuleLeavesTimestampsAlone(t *testing.T) {
	s := New().WithRules(DateRule("2026-12-02"))
	tests := []struct{ in, want string }{
		{"<current_date>2026-12-02</current_date>", "<current_date>[DATE]</current_date>"},
		{"Today's date is 2026-12-02.", "Today's date is [DATE]."},
		{"ends 2026-12-02", "ends [DATE]"},
		{`"timestamp":"2026-12-02T03:14:39.351Z"`, `"timestamp":"2026-12-02T03:14:39.351Z"`},
		{"2026-12-021", "2026-12-021"},
	}
	for _, tt := range tests {
		if got := s.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
