package agentlog

import (
	"bytes"
	"path/filepath"
	"slices"
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
