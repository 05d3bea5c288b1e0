package redact

import (
	"slices"
	"testing"
)

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "apiKey": true, "x-api-key": true, "ANTHROPIC_API_KEY": true, "Authorization": true,
		"password": true, "client_secret": true, "access_token": true, "refreshToken": true, "token": true, "cookie": true,
		"credentials": true, "private_key": true,
		"input_tokens": false, "max_tokens": false, "cache_read_input_tokens": false, "session_id": false,
		"key": false, "keywords": false, "token_count": false, "model": false, "": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSecretValue(t *testing.T) {
	for s, want := range map[string]bool{
		"sk-proj-ABCDEFGHIJKLMNOPQRSTUV":             true,
		"use sk-ant-api03-ABCDEFGHIJKLMNOPQR please": true,
		"ghp_0123456789abcdefghij0123":               true,
		"AKIAIOSFODNN7EXAMPLE":                       true,
		"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6":        true,
		"risk-assessment-of-the-whole-plan":          false, // "sk-" inside a word
		"sk-short":                                   false,
		"ask the user":                               false,
		"":                                           false,
	} {
		if got := SecretValue(s); got != want {
			t.Errorf("SecretValue(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		ptrs    []string
	}{
		{`{"a":1,"text":"nothing here"}`, `{"a":1,"text":"nothing here"}`, nil},
		{`{"usage":{"input_tokens":3,"output_tokens":4}}`, `{"usage":{"input_tokens":3,"output_tokens":4}}`, nil},
		{`{"n":1.50,"api_key":"abc"}`, `{"n":1.5,"api_key":"[REDACTED]"}`, []string{"/api_key"}},
		{`{"m":[{"t":"key sk-ABCDEFGHIJKLMNOPQRSTU"}],"a/b":{"token":"x"}}`, `{"m":[{"t":"[REDACTED]"}],"a/b":{"token":"[REDACTED]"}}`, []string{"/m/0/t", "/a~1b/token"}},
		{`{"token":""}`, `{"token":""}`, nil},
		{`{"token":`, `{"token":`, nil}, // not JSON: as it is
	} {
		out, ptrs := JSON([]byte(tc.in))
		if string(out) != tc.out || !slices.Equal(ptrs, tc.ptrs) {
			t.Errorf("JSON(%s) = %s %q, want %s %q", tc.in, out, ptrs, tc.out, tc.ptrs)
		}
	}
}

// TestMayHoldIsASuperset: every text JSON redacts passes mayHold, whatever
// the case of its member names.
func TestMayHoldIsASuperset(t *testing.T) {
	for _, text := range []string{`{"API_KEY":"x"}`, `{"aPiKeY":"x"}`, `{"X-Api-Key":"x"}`, `{"client_secret":"x"}`,
		`{"AccessToken":"x"}`, `{"authorization":"x"}`, `{"t":"sk-ABCDEFGHIJKLMNOPQRSTU"}`, `{"t":"Bearer ABCDEFGHIJKLMNOPQRSTU"}`,
		`{"t":"AKIAIOSFODNN7EXAMPLE"}`, `{"t":"github_pat_ABCDEFGHIJKLMNOPQRSTU"}`, `{"t":"xoxb-ABCDEFGHIJKLMNOPQRSTU"}`, `{"credentials":"x"}`} {
		if _, ptrs := JSON([]byte(text)); len(ptrs) == 0 {
			t.Errorf("JSON(%s) redacted nothing", text)
		}
		if !mayHold([]byte(text)) {
			t.Errorf("mayHold(%s) = false", text)
		}
	}
	if mayHold([]byte(`{"usage":{"input_tokens":3},"text":"a plan, step by step"}`)) {
		t.Error("mayHold of a text without a secret-named member or credential is true")
	}
}
