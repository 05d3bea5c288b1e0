package agentrun

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracecheck/tracecheck/modelserver"
)

// TestRejectionsBeyondTheKeptOnesCount: the model server keeps only the
// first rejections in full and counts the others (Report.MoreRejected);
// the conformance report counts every one, so that a step whose kept
// rejections were all taken by an earlier step still reads as refused.
func TestRejectionsBeyondTheKeptOnesCount(t *testing.T) {
	kept := modelserver.Rejection{Turn: 2, Status: 400, Message: "tool call without result"}
	tests := []struct {
		name         string
		report       modelserver.Report
		wantRequests int
		wantRejected []string
		wantProvider string
		wantOutcome  string
	}{
		{"none", modelserver.Report{Answered: 2}, 2, []string{}, "accepted", OutcomeLogBroken},
		{"kept", modelserver.Report{Answered: 1, Rejected: []modelserver.Rejection{kept}}, 2,
			[]string{"turn 2: 400 tool call without result"}, "rejected", OutcomeRejected},
		{"only counted", modelserver.Report{Answered: 1, MoreRejected: 3}, 4,
			[]string{"and 3 more"}, "rejected", OutcomeRejected},
		{"kept and counted", modelserver.Report{Rejected: []modelserver.Rejection{kept}, MoreRejected: 1}, 2,
			[]string{"turn 2: 400 tool call without result", "and 1 more"}, "rejected", OutcomeRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &Result{Steps: []StepResult{{Index: 1, Report: tt.report}}}
			rep := BuildReport(res, &Agent{Name: "pi"}, "s")
			sr := rep.Steps[0]
			if sr.Requests != tt.wantRequests {
				t.Errorf("requests %d, want %d", sr.Requests, tt.wantRequests)
			}
			if diff := cmp.Diff(tt.wantRejected, sr.Rejected); diff != "" {
				t.Errorf("rejected (-want +got):\n%s", diff)
			}
			if sr.Provider != tt.wantProvider || sr.Outcome != tt.wantOutcome {
				t.Errorf("provider %q outcome %q, want %q %q", sr.Provider, sr.Outcome, tt.wantProvider, tt.wantOutcome)
			}
			if sr.Completed != (tt.report.Rejections() == 0) {
				t.Errorf("completed %v with %d rejections", sr.Completed, tt.report.Rejections())
			}
		})
	}
}

// TestOSReleaseIsUnames: the kernel release the placeholders replace is
// the one uname -r prints (Claude Code writes it into its prompt, so a
// golden made on another kernel would not match without it).
func TestOSReleaseIsUnames(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("SKIP: the release is read from Linux's /proc (%s)", runtime.GOOS)
	}
	out, err := exec.Command("uname", "-r").Output()
	if err != nil {
		t.Skipf("SKIP: no uname: %v", err)
	}
	if got, want := osRelease(), strings.TrimSpace(string(out)); got != want || got == "" {
		t.Errorf("osRelease() = %q, want %q", got, want)
	}
}
