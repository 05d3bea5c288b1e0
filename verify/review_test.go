package verify_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracecheck/tracecheck/golden"
	"github.com/tracecheck/tracecheck/verify"
)

// pendingDir holds a golden with a pending change (b), a pending new golden
// (c) and a pending golden equal to its golden (e).
func pendingDir(tb testing.TB) string {
	return dirWith(tb, map[string]string{
		"b.trace.jsonl": trace(9), "b.trace.jsonl.new": trace(2),
		"c.trace.jsonl.new": trace(3),
		"e.trace.jsonl":     trace(5), "e.trace.jsonl.new": trace(5),
	})
}

func TestReviewWithScriptedKeys(t *testing.T) {
	tests := []struct {
		keys  string
		after map[string]string
		sum   verify.ReviewSummary
	}{
		{"a\nr\ns\n", map[string]string{"b.trace.jsonl": trace(2), "e.trace.jsonl": trace(5), "e.trace.jsonl.new": trace(5)},
			verify.ReviewSummary{Accepted: []string{"b"}, Rejected: []string{"c"}, Skipped: []string{"e"}}},
		{"x?ra", map[string]string{"b.trace.jsonl": trace(9), "c.trace.jsonl": trace(3), "e.trace.jsonl": trace(5), "e.trace.jsonl.new": trace(5)},
			verify.ReviewSummary{Accepted: []string{"c"}, Rejected: []string{"b"}, Skipped: []string{"e"}}},
		{"q", map[string]string{"b.trace.jsonl": trace(9), "b.trace.jsonl.new": trace(2), "c.trace.jsonl.new": trace(3), "e.trace.jsonl": trace(5), "e.trace.jsonl.new": trace(5)},
			verify.ReviewSummary{Skipped: []string{"b", "c", "e"}}},
		{"a", map[string]string{"b.trace.jsonl": trace(2), "c.trace.jsonl.new": trace(3), "e.trace.jsonl": trace(5), "e.trace.jsonl.new": trace(5)},
			verify.ReviewSummary{Accepted: []string{"b"}, Skipped: []string{"c", "e"}}}, // end of input quits
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.keys, "\n", "⏎"), func(t *testing.T) {
			dir := pendingDir(t)
			store := golden.DiskStore(dir)
			items, err := verify.LoadPending(store, nil)
			if err != nil || len(items) != 3 {
				t.Fatalf("LoadPending: %d items, %v", len(items), err)
			}
			var out bytes.Buffer
			sum, err := verify.Review(store, items, true, verify.Keys(strings.NewReader(tc.keys), &out), &out)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.sum, sum); d != "" {
				t.Errorf("summary (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.after, listing(t, dir)); d != "" {
				t.Errorf("directory (-want +got):\n%s\n%s", d, out.String())
			}
			wants := []string{
				"reviewing [1/3] b: " + filepath.Join(dir, "b.trace.jsonl.new"),
				"/payload/n: expected 9, actual 2",
			}
			if tc.keys != "q" {
				wants = append(wants, "a new golden: "+filepath.Join(dir, "c.trace.jsonl")+" does not exist yet; 2 lines")
			}
			for _, want := range wants {
				if !strings.Contains(out.String(), want) {
					t.Errorf("review output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestReviewAcceptAndRejectAll(t *testing.T) {
	dir := pendingDir(t)
	store := golden.DiskStore(dir)
	items, _ := verify.LoadPending(store, []string{"c", "b"})
	if len(items) != 2 || items[0].ID != "c" {
		t.Fatalf("LoadPending(c, b) = %+v", items)
	}
	if _, err := verify.Review(store, items, false, verify.Always(verify.Accept), new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	items, _ = verify.LoadPending(store, nil)
	if _, err := verify.Review(store, items, false, verify.Always(verify.Reject), new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"b.trace.jsonl": trace(2), "c.trace.jsonl": trace(3), "e.trace.jsonl": trace(5)}
	if d := cmp.Diff(want, listing(t, dir)); d != "" {
		t.Errorf("directory (-want +got):\n%s", d)
	}
	var np *verify.NoPendingError
	if _, err := verify.LoadPending(store, []string{"b", "zz"}); !errors.As(err, &np) || strings.Join(np.IDs, ",") != "b,zz" {
		t.Errorf("LoadPending of ids with nothing pending: %v", err)
	}
}

// TestReviewDoesNotInstallWhatIsNoGolden: a .new file that is not JSON
// lines of objects (NUL bytes, a line of text, a torn last line) is not
// accepted, and the golden it would replace is left as it was.
func TestReviewDoesNotInstallWhatIsNoGolden(t *testing.T) {
	for name, bad := range map[string]string{
		"nul bytes":    strings.Repeat("\x00", 4096),
		"text":         "not a trace\n",
		"an array":     "[1,2]\n",
		"torn":         trace(2)[:len(trace(2))-1],
		"empty":        "",
		"a bad line 2": trace(1) + "{\"a\":\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := dirWith(t, map[string]string{"b.trace.jsonl": trace(9), "b.trace.jsonl.new": bad})
			store := golden.DiskStore(dir)
			items, err := verify.LoadPending(store, nil)
			if err != nil || len(items) != 1 {
				t.Fatalf("LoadPending: %v %d", err, len(items))
			}
			_, err = verify.Review(store, items, false, verify.Always(verify.Accept), new(bytes.Buffer))
			if err == nil || !strings.Contains(err.Error(), "it is not a golden") {
				t.Errorf("Review accepted it: %v", err)
			}
			if got := listing(t, dir)["b.trace.jsonl"]; got != trace(9) {
				t.Errorf("the golden changed to %q", got)
			}
		})
	}
	if p := verify.NotAGolden([]byte(trace(3))); p != "" {
		t.Errorf("NotAGolden of a trace: %s", p)
	}
}

// TestAcceptIsARename: accepting leaves the golden with the pending file's
// bytes and mode, and no .new, in one rename.
func TestAcceptIsARename(t *testing.T) {
	dir := pendingDir(t)
	before, err := os.Stat(filepath.Join(dir, "b.trace.jsonl.new"))
	if err != nil {
		t.Fatal(err)
	}
	if err := golden.DiskStore(dir).Accept("b"); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(filepath.Join(dir, "b.trace.jsonl"))
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the golden is not the renamed pending file: %v", err)
	}
}
