package cassette_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/modelserver/cassette"
)

// secretQuery is what a client puts in the URL: an API key and an Azure
// SAS signature, neither of which may be written anywhere.
const secretQuery = "?api_key=sk-test-123&sig=abc&api-version=2024-06-01"

var querySecrets = []string{"sk-test-123", "sig=abc", "api_key="}

// TestFailingUpstreamLeaksNoSecret records through an upstream that fails
// (one drops the connection: a 502 from tracecheck; one answers 500: a
// recorded exchange): the secrets of the request's query appear in none of
// the trace, the log, the answer and the cassette.
func TestFailingUpstreamLeaksNoSecret(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      http.HandlerFunc
		status int
	}{
		{"connection closed", func(w http.ResponseWriter, r *http.Request) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
		}, http.StatusBadGateway},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"message":"upstream broke","type":"server_error"}}`)
		}, http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(tc.h)
			defer up.Close()
			path := filepath.Join(t.TempDir(), "cassette.jsonl")
			var trace, log bytes.Buffer
			p, err := cassette.Open(path, cassette.Options{Mode: cassette.Record, Upstream: up.URL, Trace: &trace, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(p)
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/v1/chat/completions"+secretQuery, "application/json", strings.NewReader(wholeReq))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			p.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			cas, err := os.ReadFile(path)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			var rejected strings.Builder
			for _, r := range p.Report().Rejected {
				rejected.WriteString(r.Message + "\n")
			}
			for what, got := range map[string]string{"trace": trace.String(), "log": log.String(), "answer": string(body), "cassette": string(cas), "report": rejected.String()} {
				for _, s := range querySecrets {
					if strings.Contains(got, s) {
						t.Errorf("the %s holds %q:\n%s", what, s, got)
					}
				}
			}
			if tc.status == http.StatusBadGateway {
				// The failure still says where the request went.
				if !strings.Contains(string(body), "/v1/chat/completions") || !strings.Contains(log.String(), "/v1/chat/completions?api-version=2024-06-01") {
					t.Errorf("the 502 no longer names the upstream URL:\nbody %s\nlog %s", body, log.String())
				}
			} else if !strings.Contains(string(cas), `"query":"api-version=2024-06-01"`) {
				t.Errorf("the cassette lost the query's harmless part:\n%s", cas)
			}
		})
	}
}

// TestSecretQueryNames: the query parameters a cassette and every message
// leave out, whatever their case, and some they keep.
func TestSecretQueryNames(t *testing.T) {
	for _, name := range []string{
		"sig", "SIG", "signature", "X-Amz-Signature", "token", "access_token", "key", "api-key", "API_KEY", "apikey",
		"code", "client_secret", "password", "refresh_token", "id-token", "x-goog-secret", "X-Amz-Security-Token",
	} {
		if got := cassette.SafeQuery(name + "=v&model=m"); got != "model=m" {
			t.Errorf("SafeQuery kept %s: %q", name, got)
		}
		raw := "https://user:pw@example.com/v1/x?" + name + "=s3cr3t&model=m#frag"
		if got := cassette.SafeURL(raw); strings.Contains(got, "s3cr3t") || strings.Contains(got, "pw") || got != "https://example.com/v1/x?model=m" {
			t.Errorf("SafeURL(%q) = %q", raw, got)
		}
	}
	for _, name := range []string{"api-version", "model", "beta", "stream", "design", "encode"} {
		if got := cassette.SafeQuery(name + "=v"); got != name+"=v" {
			t.Errorf("SafeQuery dropped %s: %q", name, got)
		}
	}
	for raw, want := range map[string]string{
		"http://[bad host/?api_key=sk-1": "http://[bad host/",
		"":                               "",
		"/v1/chat?token=t":               "/v1/chat",
	} {
		if got := cassette.SafeURL(raw); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
