package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// refParse is an independent reader built on encoding/json tokens (the
// package's original stand-in). It is lenient, so it only serves as an
// oracle for inputs Parse accepts: on those both must build the same value.
func refParse(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := refValue(dec)
	if err != nil {
		return Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Value{}, fmt.Errorf("trailing data")
	}
	return v, nil
}

func refValue(dec *json.Decoder) (Value, error) {
	t, err := dec.Token()
	if err != nil {
		return Value{}, err
	}
	switch t := t.(type) {
	case nil:
		return NullValue(), nil
	case bool:
		return BoolValue(t), nil
	case string:
		return Str(t), nil
	case json.Number:
		s := string(t)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return Value{}, err
			}
			return Float(f), nil
		}
		if s == "-0" {
			s = "0"
		}
		return Value{kind: Number, s: s}, nil
	case json.Delim:
		if t == '[' {
			var vs []Value
			for dec.More() {
				v, err := refValue(dec)
				if err != nil {
					return Value{}, err
				}
				vs = append(vs, v)
			}
			_, err := dec.Token()
			return Arr(vs...), err
		}
		var ms []Member
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return Value{}, err
			}
			v, err := refValue(dec)
			if err != nil {
				return Value{}, err
			}
			ms = append(ms, M(k.(string), v))
		}
		_, err := dec.Token()
		return Obj(ms...), err
	}
	return Value{}, fmt.Errorf("unexpected token %v", t)
}

// maxSeed keeps multi-kilobyte inputs (the depth and digit limits) out of
// the fuzz seeds: the fuzzer spends up to a minute minimising each
// interesting input, and the unit tests cover the limits exactly.
const maxSeed = 1500

// fuzzSeeds are the inputs both fuzz targets start from, besides the files
// under testdata/fuzz.
func fuzzSeeds(f *testing.F) {
	for _, s := range seedInputs() {
		f.Add(s)
	}
}

func seedInputs() [][]byte {
	var seeds [][]byte
	for _, tc := range rejectCases() {
		seeds = append(seeds, []byte(tc.in))
	}
	for _, c := range oracleCases()[:200] {
		seeds = append(seeds, []byte(c))
	}
	small := seeds[:0]
	for _, s := range seeds {
		if len(s) <= maxSeed {
			small = append(small, s)
		}
	}
	return small
}

// shared exercises scratch reuse across fuzz inputs.
var shared struct {
	sync.Mutex
	c Canonicalizer
}

func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		shared.Lock()
		out, cerr := shared.c.Append(nil, data)
		shared.Unlock()
		if err != nil {
			se := syntaxErr(t, err)
			if cerr == nil {
				t.Fatalf("Parse rejects (%v), Canonicalizer accepts: %q", err, out)
			}
			if cse := syntaxErr(t, cerr); *cse != *se {
				t.Fatalf("Canonicalizer error %+v, Parse error %+v", *cse, *se)
			}
			if se.Offset < 0 || se.Offset > len(data) || se.Msg == "" {
				t.Fatalf("bad error %+v for %d bytes", *se, len(data))
			}
			// Grammar errors must be real: encoding/json shares our
			// grammar but none of our extra rules.
			if (se.Code == ErrInvalidJSON || se.Code == ErrTrailingData) && utf8.Valid(data) && json.Valid(data) {
				t.Fatalf("%s rejected as %s, but it is valid JSON", data, se)
			}
			return
		}
		if cerr != nil {
			t.Fatalf("Parse accepts, Canonicalizer rejects: %v", cerr)
		}
		if !json.Valid(data) || !utf8.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		shared.Lock()
		spans, serr := shared.c.CheckSpans(data, nil, len(data)+1)
		shared.Unlock()
		if want := spansOf(t, data); serr != nil || !slices.Equal(spans, want) {
			t.Fatalf("CheckSpans(%q) = %v (%v), want %v", data, spans, serr, want)
		}
		j := v.AppendJSON(nil)
		v2, err := Parse(j)
		if err != nil {
			t.Fatalf("AppendJSON output %q does not parse: %v", j, err)
		}
		if !Equal(v, v2) {
			t.Fatalf("round trip changed the value: %q -> %q", data, j)
		}
		if j2 := v2.AppendJSON(nil); !bytes.Equal(j, j2) {
			t.Fatalf("AppendJSON not stable: %q then %q", j, j2)
		}
		canon := v.AppendCanonical(nil)
		if !bytes.Equal(out, canon) {
			t.Fatalf("Canonicalizer %q, AppendCanonical %q", out, canon)
		}
		ref, err := refParse(data)
		if err != nil {
			t.Fatalf("reference parser rejects accepted %q: %v", data, err)
		}
		if r := ref.AppendJSON(nil); !bytes.Equal(r, j) {
			t.Fatalf("reference reads %q as %q, Parse as %q", data, r, j)
		}
	})
}

func FuzzCanonical(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		shared.Lock()
		out, err := shared.c.Append([]byte("pre:"), data)
		shared.Unlock()
		var fresh Canonicalizer
		out2, err2 := fresh.Append(nil, data)
		if (err == nil) != (err2 == nil) || (err == nil && !bytes.Equal(out[4:], out2)) {
			t.Fatalf("reused and fresh Canonicalizers disagree: %q %v / %q %v", out, err, out2, err2)
		}
		if !bytes.HasPrefix(out, []byte("pre:")) {
			t.Fatalf("dst prefix lost: %q", out)
		}
		_, perr := Parse(data)
		streamingOut, serr := (&Canonicalizer{tapeLimit: -1}).Append([]byte("pre:"), data)
		if (serr == nil) != (err == nil) || serr != nil && (*syntaxErr(t, serr) != *syntaxErr(t, err) || string(streamingOut) != "pre:") {
			t.Fatalf("Canonicalizer without a tape: %v, with one: %v", serr, err)
		}
		if err != nil {
			if string(out) != "pre:" {
				t.Fatalf("dst changed on error: %q", out)
			}
			if perr == nil || *syntaxErr(t, perr) != *syntaxErr(t, err) {
				t.Fatalf("Canonicalizer error %v, Parse error %v", err, perr)
			}
			return
		}
		if perr != nil {
			t.Fatalf("Canonicalizer accepts, Parse rejects: %v", perr)
		}
		canon := out[4:]
		if !utf8.Valid(canon) || !json.Valid(canon) {
			t.Fatalf("output %q is not valid JSON", canon)
		}
		again, err := fresh.Append(nil, canon)
		if err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("canonical form is not a fixed point: %q -> %q (%v)", canon, again, err)
		}
		ref, err := refParse(data)
		if err != nil {
			t.Fatalf("reference parser rejects accepted %q: %v", data, err)
		}
		if r := ref.AppendCanonical(nil); !bytes.Equal(r, canon) {
			t.Fatalf("reference canonical %q, Canonicalizer %q", r, canon)
		}
		streaming := Canonicalizer{tapeLimit: -1}
		if s, err := streaming.Append(nil, data); err != nil || !bytes.Equal(s, canon) {
			t.Fatalf("Canonicalizer without a tape: %q (%v), with one %q", s, err, canon)
		}
		if o, err := fresh.AppendOrdered(nil, data); err != nil || !bytes.Equal(o, ref.AppendJSON(nil)) {
			t.Fatalf("AppendOrdered %q (%v), reference %q", o, err, ref.AppendJSON(nil))
		}
		if o, err := fresh.AppendPyRepr(nil, data); err != nil || !bytes.Equal(o, ref.AppendPyRepr(nil)) {
			t.Fatalf("AppendPyRepr %q (%v), reference %q", o, err, ref.AppendPyRepr(nil))
		}
	})
}

// TestWriteSeedCorpus regenerates testdata/fuzz from the golden journals
// and the test tables: JSONV_WRITE_SEEDS=1 go test -run WriteSeedCorpus.
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("JSONV_WRITE_SEEDS") == "" {
		t.Skip("set JSONV_WRITE_SEEDS=1 to regenerate testdata/fuzz")
	}
	seeds := map[string][]byte{}
	for i, l := range goldenLines(t) {
		seeds[fmt.Sprintf("golden-%02d", i)] = l
	}
	for i, tc := range rejectCases() {
		if len(tc.in) <= maxSeed {
			seeds[fmt.Sprintf("reject-%02d", i)] = []byte(tc.in)
		}
	}
	for i, c := range oracleCases()[:120] {
		if len(c) <= maxSeed {
			seeds[fmt.Sprintf("tricky-%03d", i)] = []byte(c)
		}
	}
	for _, target := range []string{"FuzzParse", "FuzzCanonical"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range seeds {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
