package agentlog

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportRedactsSecrets: a key in a log's header and one pasted into a
// message are not in the imported trace; the events that held them are
// marked redacted, naming where, and the trace still validates
// (importFixture checks).
func TestImportRedactsSecrets(t *testing.T) {
	out, evs := importFixture(t, filepath.Join(agentFixtureRoot, "redact", "pi-secrets.jsonl"), Pi)
	for _, secret := range []string{"sk-proj-FAKEFAKEFAKEFAKEFAKE0123", "sk-ant-api03-FAKEFAKEFAKEFAKE9876"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("the trace holds %s", secret)
		}
	}
	var fields []string
	for _, e := range evs {
		if e.Redaction.Status == "redacted" {
			fields = append(fields, e.Redaction.Fields...)
		} else if e.Redaction.Status != "clean" || len(e.Redaction.Fields) != 0 {
			t.Errorf("redaction %+v", e.Redaction)
		}
	}
	slices.Sort(fields)
	if want := []string{"/payload/content", "/payload/native/api_key"}; !slices.Equal(fields, want) {
		t.Errorf("redacted fields %q, want %q", fields, want)
	}
}

// TestARepeatedKeyReadsAsTheAgentReadsIt: pi reads its header with
// JSON.parse, where the last of a repeated key wins, so a header whose
// "type" is first "x" and then "session" is a header, and import takes its
// session id.
func TestARepeatedKeyReadsAsTheAgentReadsIt(t *testing.T) {
	path := filepath.Join(agentFixtureRoot, "dupkey", "pi-header.jsonl")
	if rep := LintFile(path, Options{}); rep.Format != Pi || rep.Failed() {
		t.Errorf("lint: format %v, findings %v", rep.Format, rep.Findings)
	}
	_, evs := importFixture(t, path, Pi)
	if len(evs) == 0 || !strings.Contains(evs[0].raw, `"session_id":"7c1e0f4a-2b3c-4d5e-8f90-a1b2c3d4e5f6"`) {
		t.Errorf("the import's session is not the header's id: %s", evs[0].raw)
	}
}
