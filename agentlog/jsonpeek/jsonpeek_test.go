package jsonpeek

import (
	"encoding/json"
	"testing"
)

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e3, -0, true, false, null, "x\"y"]} `,
		`{"a":{"b":{"c":[{"d":"\u00e9\ud83d\ude00"}]}}}`, `"s"`, `12`, `-1.5E-3`,
		`{`, `{"a"}`, `{"a":}`, `[1,]`, `{"a":1,}`, `{"a":1}{"b":2}`, `01`, `1.`, `-`, `tru`,
		`{"a":"\x"}`, "{\"a\":\"\x01\"}", `{"a":1 "b":2}`, `[1 2]`, `{"a":"\u12"}`, ``, `   `,
		`{"a":[}`, `nul`, `{"k":"v"} x`,
	}
	var d Doc
	for _, c := range cases {
		err := d.Parse([]byte(c))
		want := json.Valid([]byte(c))
		if (err == nil) != want {
			t.Errorf("%q: Parse error %v, encoding/json valid %v", c, err, want)
		}
	}
}

func TestFlags(t *testing.T) {
	cases := []struct {
		in   string
		want Flags
	}{
		{`{"a":1,"a":2}`, DuplicateKey},
		{`{"a":{"b":1},"b":1}`, 0},
		{`{"a":"\ud800"}`, LoneSurrogate},
		{`{"a":"\udc00x"}`, LoneSurrogate},
		{`{"a":"\ud83d\ude00"}`, 0},
		{"{\"a\":\"\xff\"}", InvalidUTF8},
		{`{"a":1e400}`, NumberOverflow},
		{`{"a":1e300}`, 0},
		{`{"a\u0062":1,"ab":2}`, DuplicateKey},
	}
	var d Doc
	for _, c := range cases {
		if err := d.Parse([]byte(c.in)); err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := d.Flags(); got != c.want {
			t.Errorf("%q: flags %b, want %b", c.in, got, c.want)
		}
	}
	// Without the key check, the other flags are the same and a repeated
	// key reads as its last member, as JSON.parse and json.loads read it.
	nk := Doc{NoKeyCheck: true}
	for _, c := range cases {
		if err := nk.Parse([]byte(c.in)); err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got, want := nk.Flags(), c.want&^DuplicateKey; got != want {
			t.Errorf("%q without the key check: flags %b, want %b", c.in, got, want)
		}
	}
	if err := nk.Parse([]byte(`{"a":1,"a":2}`)); err != nil || string(nk.Root().Get("a").Raw()) != "2" {
		t.Errorf("a repeated key without the key check: %v, %s", err, nk.Root().Get("a").Raw())
	}
}

func TestValueAccess(t *testing.T) {
	var d Doc
	src := `{"type":"response_item","payload":{"type":"function_call","call_id":"c\u0031","n":[1,{"x":true}],"e":""},"t":null}`
	if err := d.Parse([]byte(src)); err != nil {
		t.Fatal(err)
	}
	r := d.Root()
	if !r.Get("type").Is("response_item") || r.Get("nope").Exists() {
		t.Fatal("Get/Is")
	}
	if got := r.Path("payload", "call_id").Str(); got != "c1" {
		t.Errorf("escaped string = %q", got)
	}
	if got := string(r.Path("payload", "n").Raw()); got != `[1,{"x":true}]` {
		t.Errorf("Raw = %s", got)
	}
	n := 0
	r.Path("payload", "n").Elems(func(i int, e Value) bool {
		n++
		if i == 1 && !e.Get("x").True() {
			t.Error("nested true")
		}
		return true
	})
	if n != 2 || r.Get("payload").Len() != 4 {
		t.Errorf("elems %d, members %d", n, r.Get("payload").Len())
	}
	if !r.Path("payload", "e").IsEmpty() || !r.Get("t").IsEmpty() || r.Get("type").IsEmpty() {
		t.Error("IsEmpty")
	}
	end, err := d.ParsePrefix([]byte(`{"a":1}{"b":2}`))
	if err != nil || end != 7 {
		t.Errorf("ParsePrefix = %d, %v", end, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `[1,2`, `"\u00e9"`, `{"a":1}{"b":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Doc
		err := d.Parse(b)
		// encoding/json also rejects invalid UTF-8 only by replacing it, so
		// compare on syntax alone.
		if (err == nil) != json.Valid(b) {
			t.Fatalf("%q: Parse error %v, encoding/json valid %v", b, err, json.Valid(b))
		}
	})
}

// Lookup finds what Get finds, for every key of the set: present, absent,
// repeated, escaped, empty, on objects and on what is not one.
func TestLookupIsGet(t *testing.T) {
	ks := NewKeys("type", "uuid", "", "a\"b", "dup", "missing", "tyqe", "épée", "x")
	for _, src := range []string{
		`{"type":"user","uuid":"u1","x":1,"dup":1,"dup":2,"":"empty","a\"b":3,"\u0074ype":"escaped twin"}`,
		`{"\u0075uid":"esc","tyqe":1,"type":{"type":"inner"},"épée":true,"x":[1,2]}`,
		`{}`, `[{"type":1}]`, `"type"`, `null`,
	} {
		var d Doc
		if err := d.Parse([]byte(src)); err != nil {
			t.Fatal(err)
		}
		v := d.Root()
		out := make([]Value, ks.Len())
		v.Lookup(ks, out)
		for i, k := range ks.keys {
			want := v.Get(k)
			if out[i].Exists() != want.Exists() || want.Exists() && string(out[i].Raw()) != string(want.Raw()) {
				t.Errorf("%s: Lookup %q = %q, Get %q", src, k, out[i].Raw(), want.Raw())
			}
		}
	}
}

// FuzzLookupIsGet: on any object, Lookup finds what Get finds, for the
// object's own keys (decoded) and for keys it lacks.
func FuzzLookupIsGet(f *testing.F) {
	for _, s := range []string{`{"type":"user","uuid":"u","dup":1,"dup":2}`, `{"a\u0062":1,"ab":2,"":3}`, `{"x":{"y":1},"épée":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var d Doc
		if d.Parse(src) != nil {
			return
		}
		v := d.Root()
		keys := []string{"type", "missing"}
		seen := map[string]bool{"type": true, "missing": true}
		v.Members(func(k string, _ Value) bool {
			if !seen[k] && len(keys) < 255 {
				seen[k] = true
				keys = append(keys, k)
			}
			return true
		})
		ks := NewKeys(keys...)
		out := make([]Value, ks.Len())
		v.Lookup(ks, out)
		for i, k := range keys {
			want := v.Get(k)
			if out[i].Exists() != want.Exists() || want.Exists() && string(out[i].Raw()) != string(want.Raw()) {
				t.Fatalf("%s: Lookup %q = %q, Get %q", src, k, out[i].Raw(), want.Raw())
			}
		}
	})
}
