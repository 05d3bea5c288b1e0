package jsonv

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestGoldenRoundTrip(t *testing.T) {
	var c Canonicalizer
	for i, line := range goldenLines(t) {
		v := mustParse(t, line)
		if got := v.AppendJSON(nil); !bytes.Equal(got, line) {
			t.Errorf("line %d: AppendJSON differs\n got %s\nwant %s", i, got, line)
		}
		want := v.AppendCanonical(nil)
		got, err := c.Append(nil, line)
		if err != nil {
			t.Fatalf("line %d: Canonicalizer: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("line %d: Canonicalizer differs from AppendCanonical\n got %s\nwant %s", i, got, want)
		}
	}
}

// rejectCase is an input and the error Parse must report for it.
type rejectCase struct {
	name   string
	in     string
	code   string
	offset int
	msg    string // checked when set
}

func rejectCases() []rejectCase {
	digits := func(n int) string { return strings.Repeat("7", n) }
	wideObj := func(dupAt int) string { // 40 members: beyond the insertion sort
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < 40; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			k := i
			if i == dupAt {
				k = 3
			}
			fmt.Fprintf(&b, `"k%02d":%d`, k, i)
		}
		b.WriteByte('}')
		return b.String()
	}
	wide := wideObj(31)
	return []rejectCase{
		// Grammar.
		{"empty", "", ErrInvalidJSON, 0, "unexpected end of input"},
		{"only space", " \t\r\n", ErrInvalidJSON, 4, "unexpected end of input"},
		{"open object", "{", ErrInvalidJSON, 1, ""},
		{"open array", "[1,", ErrInvalidJSON, 3, ""},
		{"trailing comma object", `{"a":1,}`, ErrInvalidJSON, 7, "unexpected '}' looking for an object key"},
		{"trailing comma array", `[1,]`, ErrInvalidJSON, 3, "unexpected ']' looking for a value"},
		{"missing comma", `[1 2]`, ErrInvalidJSON, 3, "unexpected '2' after array element, expected ',' or ']'"},
		{"missing member comma", `{"a":1 "b":2}`, ErrInvalidJSON, 7, ""},
		{"missing colon", `{"a" 1}`, ErrInvalidJSON, 5, "unexpected '1' after object key, expected ':'"},
		{"number key", `{1:2}`, ErrInvalidJSON, 1, ""},
		{"single quotes", `'a'`, ErrInvalidJSON, 0, ""},
		{"truncated literal", `tru`, ErrInvalidJSON, 3, "unexpected end of input"},
		{"bad literal", `[nul1]`, ErrInvalidJSON, 4, "unexpected '1' in literal null"},
		{"capital literal", `True`, ErrInvalidJSON, 0, ""},
		{"leading zero", `01`, ErrInvalidJSON, 1, "invalid number: leading zero"},
		{"negative leading zero", `[-01]`, ErrInvalidJSON, 3, ""},
		{"bare minus", `-`, ErrInvalidJSON, 1, "unexpected end of input"},
		{"minus letter", `-a`, ErrInvalidJSON, 1, ""},
		{"plus", `+1`, ErrInvalidJSON, 0, ""},
		{"leading dot", `.5`, ErrInvalidJSON, 0, ""},
		{"trailing dot", `1.`, ErrInvalidJSON, 2, "unexpected end of input"},
		{"dot exponent", `1.e5`, ErrInvalidJSON, 2, ""},
		{"empty exponent", `1e+`, ErrInvalidJSON, 3, ""},
		{"hex number", `0x10`, ErrTrailingData, 1, ""},
		{"lowercase nan", `nan`, ErrInvalidJSON, 1, "unexpected 'a' in literal null"},
		{"partial NaN", `Na`, ErrInvalidJSON, 0, ""},
		{"control char", "\"a\x01b\"", ErrInvalidJSON, 2, "unescaped control character U+0001 in string"},
		{"raw newline", "[\"a\nb\"]", ErrInvalidJSON, 3, ""},
		{"raw tab", "\"\t\"", ErrInvalidJSON, 1, ""},
		{"bad escape", `"ab\x"`, ErrInvalidJSON, 3, `invalid escape \x`},
		{"escaped quote char", `"\'"`, ErrInvalidJSON, 1, ""},
		{"short u escape", `"\u12"`, ErrInvalidJSON, 1, `invalid \u escape: want 4 hex digits`},
		{"bad hex", `"\u12G4"`, ErrInvalidJSON, 1, ""},
		{"truncated u escape", `"\u12`, ErrInvalidJSON, 5, "unexpected end of input"},
		{"unterminated string", `"abc`, ErrInvalidJSON, 4, "unexpected end of input"},
		{"unterminated escape", `"abc\`, ErrInvalidJSON, 5, "unexpected end of input"},
		{"BOM", "\ufeff{}", ErrInvalidJSON, 0, "unexpected U+FEFF looking for a value"},
		{"NBSP as space", "[\u00a01]", ErrInvalidJSON, 1, ""},
		{"form feed as space", "\f1", ErrInvalidJSON, 0, ""},
		{"comment", `[1]//`, ErrTrailingData, 3, ""},

		// Duplicate keys, compared decoded, reported at the second occurrence.
		{"duplicate", `{"type":1,"type":2}`, ErrDuplicateKey, 10, `duplicate key "type"`},
		{"duplicate escaped", `{"a":1,"\u0061":2}`, ErrDuplicateKey, 7, `duplicate key "a"`},
		{"duplicate first in input order", `{"b":1,"a":2,"b":3,"a":4}`, ErrDuplicateKey, 13, `duplicate key "b"`},
		{"triple", `{"a":1,"b":0,"a":2,"a":3}`, ErrDuplicateKey, 13, ""},
		{"duplicate nested first", `{"x":{"k":1,"k":2},"x":1}`, ErrDuplicateKey, 12, `duplicate key "k"`},
		{"duplicate control key", `{"\n":1,"\u000a":2}`, ErrDuplicateKey, 8, `duplicate key "\n"`},
		{"duplicate in wide object", wide, ErrDuplicateKey, strings.Index(wide, `"k03":31`), `duplicate key "k03"`},
		// Found when the object closes: an earlier syntax error wins.
		{"duplicate then syntax error", `{"a":1,"a":2,}`, ErrInvalidJSON, 13, ""},

		// Non-finite numbers.
		{"NaN", `NaN`, ErrNonFinite, 0, "NaN is not a JSON number"},
		{"Infinity", `[Infinity]`, ErrNonFinite, 1, "Infinity is not a JSON number"},
		{"-Infinity", `{"a":-Infinity}`, ErrNonFinite, 5, "-Infinity is not a JSON number"},

		// Overflow.
		{"float overflow", `1e400`, ErrNumberOverflow, 0, "number 1e400 overflows a 64-bit float"},
		{"negative float overflow", `[-1.8e308]`, ErrNumberOverflow, 1, ""},
		{"huge exponent", `[0.5,1E99999999999999999999]`, ErrNumberOverflow, 5, ""},
		{"just above max float", `1.7976931348623159e308`, ErrNumberOverflow, 0, ""},
		{"too many digits", digits(MaxIntDigits + 1), ErrNumberOverflow, 0, "integer has 4301 digits, more than the limit of 4300"},
		{"too many negative digits", "[-" + digits(MaxIntDigits+1) + "]", ErrNumberOverflow, 1, ""},

		// UTF-8, inside strings and out.
		{"invalid byte", "\"\xff\"", ErrInvalidUTF8, 1, "invalid UTF-8 byte 0xff"},
		{"truncated sequence", "\"a\xc3\"", ErrInvalidUTF8, 2, ""},
		{"truncated at end", "\"a\xe2\x82", ErrInvalidUTF8, 2, ""},
		{"encoded surrogate", "\"\xed\xa0\x80\"", ErrInvalidUTF8, 1, ""},
		{"overlong", "\"\xc0\xaf\"", ErrInvalidUTF8, 1, ""},
		{"overlong 3 byte", "\"\xe0\x80\xaf\"", ErrInvalidUTF8, 1, ""},
		{"above U+10FFFF", "\"\xf4\x90\x80\x80\"", ErrInvalidUTF8, 1, ""},
		{"lone continuation", "\"ok \x80\"", ErrInvalidUTF8, 4, ""},
		{"in key", "{\"\xfe\":1}", ErrInvalidUTF8, 2, ""},
		{"outside string", "[\xff]", ErrInvalidUTF8, 1, ""},
		{"after value", "{} \xff", ErrInvalidUTF8, 3, ""},
		{"late in long string", `"` + strings.Repeat("a", 37) + "\xff\"", ErrInvalidUTF8, 38, ""},

		// Surrogate escapes.
		{"lone high", `"\ud800"`, ErrLoneSurrogate, 1, `lone high surrogate \ud800`},
		{"lone low", `"\udc00"`, ErrLoneSurrogate, 1, `lone low surrogate \udc00`},
		{"high then BMP", `"a\uD800\u0041"`, ErrLoneSurrogate, 2, ""},
		{"high then high", `"\ud800\ud800"`, ErrLoneSurrogate, 1, ""},
		{"high then text", `"\udbffx"`, ErrLoneSurrogate, 1, ""},
		{"swapped pair", `"\ude00\ud83d"`, ErrLoneSurrogate, 1, ""},
		{"high at end", `"\ud83d`, ErrLoneSurrogate, 1, ""},
		{"lone in key", `{"\udfff":1}`, ErrLoneSurrogate, 2, ""},

		// Depth.
		{"too deep arrays", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), ErrTooDeep, MaxDepth, "nesting deeper than 512 levels"},
		{"too deep unclosed", strings.Repeat(`{"a":`, MaxDepth+1), ErrTooDeep, 5 * MaxDepth, ""},
		{"too deep mixed", strings.Repeat(`[{"a":`, MaxDepth/2) + "[", ErrTooDeep, 6 * MaxDepth / 2, ""},

		// Trailing data.
		{"second value", `{} {}`, ErrTrailingData, 3, "unexpected '{' after the JSON value"},
		{"two numbers", `1 2`, ErrTrailingData, 2, ""},
		{"adjacent strings", `"a""b"`, ErrTrailingData, 3, ""},
		{"extra bracket", `[]]`, ErrTrailingData, 2, ""},
		{"comma after", "null,", ErrTrailingData, 4, ""},
		{"NUL after", "0\x00", ErrTrailingData, 1, ""},
	}
}

func TestReject(t *testing.T) {
	var c Canonicalizer
	for _, tc := range rejectCases() {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want %s at %d", clip([]byte(tc.in)), v.AppendJSON(nil), tc.code, tc.offset)
			}
			se := syntaxErr(t, err)
			if se.Code != tc.code || se.Offset != tc.offset {
				t.Errorf("Parse(%q): got %s at %d (%s), want %s at %d", clip([]byte(tc.in)), se.Code, se.Offset, se.Msg, tc.code, tc.offset)
			}
			if tc.msg != "" && se.Msg != tc.msg {
				t.Errorf("message %q, want %q", se.Msg, tc.msg)
			}
			if v.IsValid() {
				t.Errorf("Parse returned a value with its error")
			}
			if want := fmt.Sprintf("offset %d: %s", se.Offset, se.Msg); se.Error() != want {
				t.Errorf("Error() = %q, want %q", se.Error(), want)
			}

			prefix := []byte("keep")
			out, cerr := c.Append(prefix, []byte(tc.in))
			if cerr == nil {
				t.Fatalf("Canonicalizer accepted what Parse rejects: %s", out)
			}
			if cse := syntaxErr(t, cerr); *cse != *se {
				t.Errorf("Canonicalizer error %+v, Parse error %+v", *cse, *se)
			}
			if string(out) != "keep" {
				t.Errorf("Canonicalizer changed dst on error: %q", out)
			}
		})
	}
}

func TestAccept(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	deepObj := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	maxInt := strings.Repeat("9", MaxIntDigits)
	tests := []struct {
		name, in, json, canonical string
	}{
		{"max depth", deep, deep, deep},
		{"max depth objects", deepObj, deepObj, deepObj},
		{"max int digits", maxInt, maxInt, maxInt},
		{"max negative int digits", "-" + maxInt, "-" + maxInt, "-" + maxInt},
		{"whitespace", " \t\r\n{ \"b\" : [ 1 , 2 ] ,\n\"a\":{ } }\r\n", `{"b":[1,2],"a":{}}`, `{"a":{},"b":[1,2]}`},
		{"negative zero int", `[-0,0,-0.0,0.0,-0e0,0E-0,-4,-10]`, `[0,0,-0.0,0.0,-0.0,0.0,-4,-10]`, `[0,0,-0.0,0.0,-0.0,0.0,-4,-10]`},
		{"underflow", `[1e-400,-1e-400,2e-324,3e-324]`, `[0.0,-0.0,0.0,5e-324]`, `[0.0,-0.0,0.0,5e-324]`},
		{"max float", `1.7976931348623158e308`, `1.7976931348623157e+308`, `1.7976931348623157e+308`},
		{"float spellings", `[1E5,1e16,1.5e15,0.0001,0.00001,100.0,1e-7,123456789012345678.0]`,
			`[100000.0,1e+16,1500000000000000.0,0.0001,1e-05,100.0,1e-07,1.2345678901234568e+17]`,
			`[100000.0,1e+16,1500000000000000.0,0.0001,1e-05,100.0,1e-07,1.2345678901234568e+17]`},
		{"big ints kept", `[9007199254740993,18446744073709551617,-0]`, `[9007199254740993,18446744073709551617,0]`, `[9007199254740993,18446744073709551617,0]`},
		{"escapes", `"\/\"\\\b\f\n\r\t\u0000\u001F\u007f\u00E9\u2028\ud83d\ude00\uFFFF"`,
			"\"/\\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\x7fé\u2028😀\uffff\"",
			"\"/\\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\x7fé\u2028😀\uffff\""},
		{"escaped quote and backslash via u", `"\u0022\u005c\u002f"`, `"\"\\/"`, `"\"\\/"`},
		{"raw non-ASCII", "\"é\u2028\u2029\x7f😀<>&\"", "\"é\u2028\u2029\x7f😀<>&\"", "\"é\u2028\u2029\x7f😀<>&\""},
		{"key order by code point", `{"b":1,"é":2,"a":3,"😀":4,"\uffff":5,"Z":6,"":7}`,
			"{\"b\":1,\"é\":2,\"a\":3,\"😀\":4,\"\uffff\":5,\"Z\":6,\"\":7}",
			"{\"\":7,\"Z\":6,\"a\":3,\"b\":1,\"é\":2,\"\uffff\":5,\"😀\":4}"},
		{"key order decoded", `{"\u0062":1,"a\u0000":2,"a":3,"abcdefgh2":4,"abcdefgh1":5,"abcdefgh":6}`,
			`{"b":1,"a\u0000":2,"a":3,"abcdefgh2":4,"abcdefgh1":5,"abcdefgh":6}`,
			`{"a":3,"a\u0000":2,"abcdefgh":6,"abcdefgh1":5,"abcdefgh2":4,"b":1}`},
		{"scalars", `[true,false,null,"",{},[]]`, `[true,false,null,"",{},[]]`, `[true,false,null,"",{},[]]`},
	}
	var c Canonicalizer
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := mustParse(t, []byte(tc.in))
			if got := v.AppendJSON(nil); string(got) != tc.json {
				t.Errorf("AppendJSON\n got %s\nwant %s", clip(got), clip([]byte(tc.json)))
			}
			if got := v.AppendCanonical(nil); string(got) != tc.canonical {
				t.Errorf("AppendCanonical\n got %s\nwant %s", clip(got), clip([]byte(tc.canonical)))
			}
			got, err := c.Append([]byte("pre"), []byte(tc.in))
			if err != nil {
				t.Fatalf("Canonicalizer: %v", err)
			}
			if string(got) != "pre"+tc.canonical {
				t.Errorf("Canonicalizer\n got %s\nwant pre%s", clip(got), clip([]byte(tc.canonical)))
			}
		})
	}
}

func TestParsedValues(t *testing.T) {
	v := mustParse(t, []byte(`{"s":"a\"b","i":-12,"f":2.50,"t":true,"n":null,"a":[1,"x"],"o":{"k":[],"l":[false]}}`))
	if v.Kind() != Object || v.Len() != 7 {
		t.Fatalf("kind %v len %d", v.Kind(), v.Len())
	}
	get := func(k string) Value {
		t.Helper()
		f, ok := v.Get(k)
		if !ok {
			t.Fatalf("no member %q", k)
		}
		return f
	}
	if s := get("s"); s.Kind() != String || s.Text() != `a"b` {
		t.Errorf("s = %v %q", s.Kind(), s.Text())
	}
	if i, ok := get("i").Int64(); !ok || i != -12 {
		t.Errorf("i = %d %v", i, ok)
	}
	if f := get("f"); !f.IsFloat() || f.Text() != "2.5" {
		t.Errorf("f = %v %q", f.IsFloat(), f.Text())
	}
	if !get("t").IsTrue() || get("n").Kind() != Null {
		t.Errorf("t or n wrong")
	}
	if a := get("a"); a.Len() != 2 || a.Elems()[1].Text() != "x" {
		t.Errorf("a = %s", a.AppendJSON(nil))
	}
	if o := get("o"); !o.Has("k") || o.Members()[0].Value.Kind() != Array || o.Members()[0].Value.Elems() == nil {
		t.Errorf("o = %s", o.AppendJSON(nil))
	}
	// Slices handed out share slabs; appending to one must not clobber
	// its neighbours ("a"'s elements are followed by "l"'s, the top
	// object's members by "o"'s).
	_ = append(get("a").Elems(), Str("clobber"))
	_ = append(v.Members(), M("clobber", NullValue()))
	if got := string(v.AppendJSON(nil)); got != `{"s":"a\"b","i":-12,"f":2.5,"t":true,"n":null,"a":[1,"x"],"o":{"k":[],"l":[false]}}` {
		t.Errorf("after append: %s", got)
	}
	if !Equal(v, mustParse(t, v.AppendCanonical(nil))) {
		t.Errorf("canonical form does not parse back to an equal value")
	}
}

func TestCanonicalizerReuse(t *testing.T) {
	inputs := []string{
		`{"b":{"d":[1,{"z":0,"y":1}],"c":"\u00e9"},"a":[]}`,
		`[1,2`,
		`"plain"`,
		`{"k":1,"k":2}`,
		`{"z":[[[{"b":1,"a":2}]]],"a":"\n"}`,
	}
	var c Canonicalizer
	var dst []byte
	for round := 0; round < 3; round++ {
		for _, in := range inputs {
			v, perr := Parse([]byte(in))
			before := len(dst)
			var err error
			dst, err = c.Append(dst, []byte(in))
			if (err == nil) != (perr == nil) {
				t.Fatalf("%s: Canonicalizer err %v, Parse err %v", in, err, perr)
			}
			if err != nil {
				continue
			}
			if got, want := string(dst[before:]), string(v.AppendCanonical(nil)); got != want {
				t.Errorf("round %d %s: got %s want %s", round, in, got, want)
			}
		}
	}
}

func TestAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts are checked in full runs without -race")
	}
	lines := goldenLines(t)
	var c Canonicalizer
	dst := make([]byte, 0, 4096)
	for _, l := range lines { // warm the scratch space
		dst, _ = c.Append(dst[:0], l)
	}
	if n := testing.AllocsPerRun(20, func() {
		for _, l := range lines {
			dst, _ = c.Append(dst[:0], l)
		}
	}); n != 0 {
		t.Errorf("Canonicalizer.Append: %v allocations per %d lines, want 0", n, len(lines))
	}
	// Parse: one string for all texts, one slab of elements, one of members.
	n := testing.AllocsPerRun(20, func() {
		for _, l := range lines {
			if _, err := Parse(l); err != nil {
				t.Fatal(err)
			}
		}
	})
	if per := n / float64(len(lines)); per > 3 {
		t.Errorf("Parse: %.1f allocations per line, want at most 3", per)
	}
}

func TestAppendCanonicalBuilt(t *testing.T) {
	// Obj may hold duplicate keys; sorting keeps them in the given order.
	v := Obj(M("b", Int(1)), M("a", Int(2)), M("b", Int(3)), M("a", Int(4)))
	if got, want := string(v.AppendCanonical(nil)), `{"a":2,"a":4,"b":1,"b":3}`; got != want {
		t.Errorf("duplicates: got %s want %s", got, want)
	}
	if got, want := string(v.AppendJSON(nil)), `{"b":1,"a":2,"b":3,"a":4}`; got != want {
		t.Errorf("AppendJSON: got %s want %s", got, want)
	}
	// Wide objects take the library sort; compare with the scanner's.
	var ms []Member
	for i := 39; i >= 0; i-- {
		ms = append(ms, M(fmt.Sprintf("k%s%02d", []string{"é", "a"}[i%2], i), Arr(Obj(M("z", NullValue()), M("y", Float(0.5))))))
	}
	wide := Obj(ms...)
	got := wide.AppendCanonical(nil)
	want, err := canonical(wide.AppendJSON(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wide object:\n got %s\nwant %s", got, want)
	}
	if n := testing.AllocsPerRun(10, func() { got = wide.AppendCanonical(got[:0]) }); n > 1 && !raceEnabled {
		t.Errorf("AppendCanonical of a 40-member object: %v allocations, want at most 1 (its index)", n)
	}
}
