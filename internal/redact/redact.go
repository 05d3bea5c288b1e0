// Package redact finds secrets in JSON text and replaces them, so that
// nothing tracecheck stores or prints from an agent's log holds an API key,
// a token or a password the log did.
//
// A secret is a member whose name says it holds one (SecretName: api_key,
// apiKey, authorization, password, token, client_secret, ... whatever the
// case or separators; never a count such as input_tokens) with a string
// value, or any string shaped as a provider's credential (SecretValue: an
// OpenAI or Anthropic sk- key, a GitHub, Slack or AWS access key, a Bearer
// header value), wherever it stands, message text included. JSON replaces
// each with the string Placeholder and says where, as JSON pointers.
//
// Text without a secret is returned as it is, byte for byte; a text with
// one is written anew in jsonv's spellings.
package redact

import (
	"bytes"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Placeholder is what a secret is replaced with.
const Placeholder = "[REDACTED]"

// secretWords are the normalized member names (lower case, without '_'
// and '-') that hold a secret, whole or as their end.
var secretWords = []string{"apikey", "secret", "password", "passwd", "token", "authorization", "cookie", "credential", "credentials", "privatekey", "bearer"}

// SecretName reports whether a member named name holds a secret.
func SecretName(name string) bool {
	n := strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return r
	}, name)
	for _, w := range secretWords {
		if strings.HasSuffix(n, w) {
			return true
		}
	}
	return false
}

// valuePrefixes start the credentials SecretValue knows, each followed by
// at least minTail characters of [A-Za-z0-9_-].
var valuePrefixes = []string{"sk-", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "xoxb-", "xoxp-", "AKIA", "Bearer "}

const minTail = 16

// SecretValue reports whether s holds a string shaped as a credential.
func SecretValue(s string) bool {
	for _, p := range valuePrefixes {
		for i := strings.Index(s, p); i >= 0; {
			if i == 0 || !isKeyByte(s[i-1]) {
				n := 0
				for j := i + len(p); j < len(s) && isKeyByte(s[j]); j++ {
					n++
				}
				if n >= minTail {
					return true
				}
			}
			k := strings.Index(s[i+1:], p)
			if k < 0 {
				break
			}
			i += 1 + k
		}
	}
	return false
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// mayHold is a cheap test that text could hold a secret: a member name
// ending in one of secretWords (whatever its case), or a credential's
// prefix. False is certain (TestMayHoldIsASuperset).
//
// On the short payloads of agent logs a search of the text for each
// anchor, and one for each key's colon, cost more than the text's reading;
// with AVX2 one pass finds every place where an anchor or a key's end
// may start (pairMask), and only those are looked at.
func mayHold(text []byte) bool {
	if vectorPairs {
		return mayHoldByPairs(text)
	}
	return anchoredBySearch(text) || secretKeyBySearch(text)
}

// anchors find valuePrefixes: each ends as the prefix does, and starts
// with a byte rarer in text than the prefix's own first. anchors_amd64.s
// holds their first two bytes too.
var anchors = [][]byte{[]byte("k-"), []byte("xox"), []byte("gh"), []byte("_pat_"), []byte("AKIA"), []byte("Bearer ")}

// anchorOf is, for each byte, 1 + the index of the anchor it starts (no
// two anchors start with the same byte); 0 for the other bytes.
var anchorOf = func() (t [256]uint8) {
	for i, a := range anchors {
		t[a[0]] = uint8(i + 1)
	}
	return t
}()

// mayHoldByPairs is mayHold by pairMask's blocks, the tail they leave
// looked at byte by byte.
func mayHoldByPairs(text []byte) bool {
	i := 0
	for {
		off, mask := pairMask(text[i:])
		i += off
		if mask == 0 {
			break
		}
		for ; mask != 0; mask &= mask - 1 {
			if secretAt(text, i+bits.TrailingZeros32(mask)) {
				return true
			}
		}
		i += 32
	}
	for ; i+1 < len(text); i++ {
		if (anchorOf[text[i]] != 0 || text[i] == '"') && secretAt(text, i) {
			return true
		}
	}
	return false
}

// secretAt reports whether a key that names a secret ends at text[i] (its
// closing quote, a colon after it) or an anchor that ends a credential's
// prefix starts there.
func secretAt(text []byte, i int) bool {
	if text[i] == '"' {
		return i+1 < len(text) && text[i+1] == ':' && nameEndsSecret(text[:i])
	}
	if k := anchorOf[text[i]]; k != 0 {
		a := anchors[k-1]
		return bytes.HasPrefix(text[i:], a) && credentialBefore(text[:i+len(a)])
	}
	return false
}

// anchoredBySearch is mayHold's anchors without AVX2: each anchor's
// occurrences, overlapping ones too, by bytes.Index, whose vector scan
// skips to the rare first bytes.
func anchoredBySearch(text []byte) bool {
	for _, p := range anchors {
		for i := 0; ; {
			k := bytes.Index(text[i:], p)
			if k < 0 {
				break
			}
			i += k
			if credentialBefore(text[:i+len(p)]) {
				return true
			}
			i++
		}
	}
	return false
}

// secretKeyBySearch is mayHold's member names without AVX2: a key ends
// `":`; the colon, one a member, is the rarer byte.
func secretKeyBySearch(text []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], ':')
		if k < 0 {
			return false
		}
		if k += i; k > 0 && text[k-1] == '"' && nameEndsSecret(text[:k-1]) {
			return true
		}
		i = k + 1
	}
}

// nameEndsSecret reports whether the text before a key's closing quote
// ends in one of secretWords, case and separators ignored.
func nameEndsSecret(before []byte) bool {
	if len(before) == 0 {
		return false
	}
	// The last three letters first: most names end otherwise.
	if n := len(before); n >= 3 {
		switch string([]byte{before[n-3] | 0x20, before[n-2] | 0x20, before[n-1] | 0x20}) {
		case "key", "ret", "ord", "swd", "ken", "ion", "kie", "ial", "als", "rer":
		default:
			return false
		}
	}
	// The name, normalized, from its end: at most the longest word.
	var n [16]byte
	k := len(n)
	for j := len(before) - 1; j >= 0 && k > 0; j-- {
		c := before[j]
		if c == '"' {
			break
		}
		if c == '_' || c == '-' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		k--
		n[k] = c
	}
	name := string(n[k:])
	for _, w := range secretWords {
		if strings.HasSuffix(name, w) {
			return true
		}
	}
	return false
}

// credentialBefore reports whether text, which ends with an anchor, ends
// a credential's prefix or is followed by one (the bytes after the anchor
// are looked at through the slice's capacity).
func credentialBefore(text []byte) bool {
	n := len(text)
	full := text[:cap(text)]
	at := func(from int, p string) bool {
		return from >= 0 && from+len(p) <= len(full) && string(full[from:from+len(p)]) == p
	}
	switch {
	case n >= 2 && string(text[n-2:]) == "k-":
		return at(n-3, "sk-")
	case n >= 3 && string(text[n-3:]) == "xox":
		return at(n-3, "xoxb-") || at(n-3, "xoxp-")
	case n >= 2 && string(text[n-2:]) == "gh":
		return at(n-2, "ghp_") || at(n-2, "gho_") || at(n-2, "ghs_") || at(n-2, "ghu_")
	case n >= 5 && string(text[n-5:]) == "_pat_":
		return at(n-11, "github_pat_")
	case n >= 4 && string(text[n-4:]) == "AKIA", n >= 7 && string(text[n-7:]) == "Bearer ":
		return true
	}
	return false
}

// JSON returns text (one JSON value) with its secrets replaced by
// Placeholder, and the JSON pointers of what it replaced, in document
// order; text itself, and no pointer, when it holds none (or is not JSON).
func JSON(text []byte) ([]byte, []string) {
	if !mayHold(text) {
		return text, nil
	}
	v, err := jsonv.Parse(text)
	if err != nil {
		return text, nil
	}
	var ptrs []string
	out := walk(v, "", &ptrs)
	if len(ptrs) == 0 {
		return text, nil
	}
	return out.AppendJSON(nil), ptrs
}

func walk(v jsonv.Value, ptr string, ptrs *[]string) jsonv.Value {
	switch v.Kind() {
	case jsonv.String:
		if SecretValue(v.Text()) {
			*ptrs = append(*ptrs, ptr)
			return jsonv.Str(Placeholder)
		}
	case jsonv.Array:
		var out []jsonv.Value
		for i, e := range v.Elems() {
			out = append(out, walk(e, ptr+"/"+strconv.Itoa(i), ptrs))
		}
		return jsonv.Arr(out...)
	case jsonv.Object:
		var out []jsonv.Member
		for _, m := range v.Members() {
			p := ptr + "/" + escapePointer(m.Key)
			if m.Value.Kind() == jsonv.String && m.Value.Text() != "" && SecretName(m.Key) {
				*ptrs = append(*ptrs, p)
				out = append(out, jsonv.M(m.Key, jsonv.Str(Placeholder)))
				continue
			}
			out = append(out, jsonv.M(m.Key, walk(m.Value, p, ptrs)))
		}
		return jsonv.Obj(out...)
	}
	return v
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
