package procgroup

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
)

// TokenVar is the environment variable through which Set marks a command
// and everything it starts (on Linux): its value is a comma-separated list
// of run tokens, the command's own last, each 32 random hex digits. A
// command started from inside a marked one (tracecheck running tracecheck)
// keeps the outer tokens before its own, so that the outer run's sweep
// still finds what the inner one started.
const TokenVar = "TRACECHECK_RUN_TOKEN"

// newToken is a token no other run shares: 128 random bits.
func newToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program first
	return hex.EncodeToString(b[:])
}

// envOf is the environment cmd will run with: cmd.Env, or this process's
// own when cmd.Env is nil (as os/exec does).
func envOf(cmd *exec.Cmd) []string {
	if cmd.Env != nil {
		return cmd.Env
	}
	return os.Environ()
}

// withToken returns a copy of env whose TokenVar entry is its first one,
// holding tok after the tokens env already had (the last TokenVar entry's:
// the one os/exec would pass), and no other TokenVar entry. First, because
// the sweep reads only the first environCap bytes of a process's
// environment, and an environment passed on keeps its order in most
// programs.
func withToken(env []string, tok string) []string {
	out := make([]string, 1, len(env)+1)
	value := tok
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, TokenVar+"="); ok {
			if v != "" {
				value = v + "," + tok
			} else {
				value = tok
			}
			continue
		}
		out = append(out, kv)
	}
	out[0] = TokenVar + "=" + value
	return out
}

// tokenOf is the token Set gave a command whose environment is env: the
// last of the list of its last TokenVar entry ("" when it has none).
func tokenOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], TokenVar+"="); ok {
			return v[strings.LastIndexByte(v, ',')+1:]
		}
	}
	return ""
}

// holdsToken reports whether environ, NUL-separated NAME=VALUE entries as
// /proc/PID/environ gives them, has a TokenVar entry listing tok.
func holdsToken(environ []byte, tok string) bool {
	if tok == "" {
		return false
	}
	prefix := []byte(TokenVar + "=")
	for len(environ) > 0 {
		entry := environ
		if i := bytes.IndexByte(environ, 0); i >= 0 {
			entry, environ = environ[:i], environ[i+1:]
		} else {
			environ = nil
		}
		v, ok := bytes.CutPrefix(entry, prefix)
		if !ok {
			continue
		}
		for len(v) > 0 {
			t := v
			if i := bytes.IndexByte(v, ','); i >= 0 {
				t, v = v[:i], v[i+1:]
			} else {
				v = nil
			}
			if string(t) == tok {
				return true
			}
		}
	}
	return false
}
