package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Volatile lists the top-level request members left out of the match key:
// they identify the caller, tune billing, storage or caching, or ask for
// extras that do not change the answer, and agents set them differently
// from run to run.
//
//   - metadata (both APIs: user ids, tags), user, safety_identifier,
//     prompt_cache_key: who is asking, not what;
//   - store, service_tier: where OpenAI keeps or schedules the request;
//   - stream_options: whether a usage chunk ends an OpenAI stream.
//
// Anthropic's cache_control markers are left out too, wherever a request
// may carry them (system blocks, tools, content blocks, tool results'
// blocks): agents move the cache breakpoint every turn.
//
// Everything else is kept, max_tokens and temperature included: they can
// change the answer, so a cassette fails closed when they change, and the
// miss names the field (/max_tokens) so the fix is one look away.
var Volatile = []string{"metadata", "prompt_cache_key", "safety_identifier", "service_tier", "store", "stream_options", "user"}

// Canonical is body without the Volatile members and cache_control
// markers. Its canonical encoding (sorted keys, compact, numbers as
// written) is what Key hashes.
func Canonical(body jsonv.Value) jsonv.Value {
	if body.Kind() != jsonv.Object {
		return body
	}
	for _, k := range Volatile {
		if body.Has(k) {
			body = body.Without(k)
		}
	}
	body = mapMember(body, "system", eachBlock(nil))
	body = mapMember(body, "tools", eachBlock(nil))
	return mapMember(body, "messages", func(m jsonv.Value) jsonv.Value {
		return mapMember(m, "content", eachBlock(func(b jsonv.Value) jsonv.Value {
			return mapMember(b, "content", eachBlock(nil))
		}))
	})
}

// eachBlock returns a mapper that drops cache_control from every object
// of an array (then applies then to it).
func eachBlock(then func(jsonv.Value) jsonv.Value) func(jsonv.Value) jsonv.Value {
	return func(arr jsonv.Value) jsonv.Value {
		if arr.Kind() != jsonv.Array {
			return arr
		}
		out := make([]jsonv.Value, arr.Len())
		for i, b := range arr.Elems() {
			if b.Kind() == jsonv.Object && b.Has("cache_control") {
				b = b.Without("cache_control")
			}
			if then != nil {
				b = then(b)
			}
			out[i] = b
		}
		return jsonv.Arr(out...)
	}
}

// mapMember replaces obj's member key by fn of it; messages map each
// element. Non-objects and absent members are left as they are.
func mapMember(obj jsonv.Value, key string, fn func(jsonv.Value) jsonv.Value) jsonv.Value {
	if obj.Kind() != jsonv.Object {
		return obj
	}
	v, ok := obj.Get(key)
	if !ok {
		return obj
	}
	if key == "messages" && v.Kind() == jsonv.Array {
		out := make([]jsonv.Value, v.Len())
		for i, m := range v.Elems() {
			out[i] = fn(m)
		}
		return obj.With(key, jsonv.Arr(out...))
	}
	return obj.With(key, fn(v))
}

// Key is the match key of a request: the SHA-256, hex, of
// "METHOD PATH\n" followed by the canonical encoding of Canonical(body).
func Key(method, path string, body jsonv.Value) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(Canonical(body).AppendCanonical(nil))
	return hex.EncodeToString(h.Sum(nil))
}

// difference is how two canonical requests differ: how many leaves, and
// the first (in canonical order: sorted keys, then array order).
type difference struct {
	count    int
	pointer  string
	recorded jsonv.Value // the zero Value: absent
	sent     jsonv.Value
}

func (d *difference) add(ptr string, recorded, sent jsonv.Value) {
	if d.count == 0 {
		d.pointer, d.recorded, d.sent = ptr, recorded, sent
	}
	d.count++
}

// compare adds every difference between recorded and sent under ptr.
func compare(recorded, sent jsonv.Value, ptr string, d *difference) {
	switch {
	case recorded.Kind() == jsonv.Object && sent.Kind() == jsonv.Object:
		keys := map[string]bool{}
		for _, m := range recorded.Members() {
			keys[m.Key] = true
		}
		for _, m := range sent.Members() {
			keys[m.Key] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			a, _ := recorded.Get(k)
			b, _ := sent.Get(k)
			compare(a, b, ptr+"/"+escape(k), d)
		}
	case recorded.Kind() == jsonv.Array && sent.Kind() == jsonv.Array:
		ra, sa := recorded.Elems(), sent.Elems()
		for i := 0; i < max(len(ra), len(sa)); i++ {
			var a, b jsonv.Value
			if i < len(ra) {
				a = ra[i]
			}
			if i < len(sa) {
				b = sa[i]
			}
			compare(a, b, ptr+"/"+strconv.Itoa(i), d)
		}
	case !jsonv.Equal(recorded, sent) || recorded.IsValid() != sent.IsValid():
		d.add(ptr, recorded, sent)
	}
}

// escape is a JSON pointer's reference token for key (RFC 6901).
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// show is a value for a one-line message: compact JSON cut to 80 bytes,
// or "(absent)".
func show(v jsonv.Value) string {
	if !v.IsValid() {
		return "(absent)"
	}
	b := v.AppendJSON(nil)
	if len(b) > 80 {
		cut := 77
		for cut > 0 && b[cut]&0xC0 == 0x80 {
			cut--
		}
		return string(b[:cut]) + "..."
	}
	return string(b)
}

// describe is the difference as a message: where, what was recorded, what
// was sent, and how many other leaves differ.
func (d *difference) describe() string {
	ptr := d.pointer
	if ptr == "" {
		ptr = "/"
	}
	s := fmt.Sprintf("first difference at %s: recorded %s, sent %s", ptr, show(d.recorded), show(d.sent))
	if d.count > 1 {
		s += fmt.Sprintf(" (%d differences in all)", d.count)
	}
	return s
}
