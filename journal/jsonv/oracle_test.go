package jsonv

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracecheck/tracecheck/internal/testenv"
)

// oracleScript prints, for every input line, Python's sorted and unsorted
// compact encodings of json.loads(line), each on its own line (json.dumps
// never writes a raw newline).
const oracleScript = `
import json, sys
out = sys.stdout.buffer
for line in open(sys.argv[1], 'rb').read().split(b'\n')[:-1]:
    v = json.loads(line)
    for sort in (True, False):
        out.write(json.dumps(v, ensure_ascii=False, sort_keys=sort, separators=(',', ':')).encode('utf-8'))
        out.write(b'\n')
`

// TestPythonOracle checks Parse, AppendJSON, AppendCanonical and
// Canonicalizer against CPython's json module on inputs chosen to exercise
// every escaping, number spelling and key ordering rule.
func TestPythonOracle(t *testing.T) {
	py := testenv.Python(t, "the Python oracle check is skipped")
	cases := oracleCases()
	var in bytes.Buffer
	for _, c := range cases {
		if strings.ContainsRune(c, '\n') {
			t.Fatalf("oracle case holds a raw newline: %q", c)
		}
		in.WriteString(c)
		in.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(path, in.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", oracleScript, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.Bytes())
	}
	lines := bytes.Split(out, []byte("\n"))
	if len(lines) != 2*len(cases)+1 {
		t.Fatalf("python3 wrote %d lines for %d cases", len(lines), len(cases))
	}
	var c Canonicalizer
	fails := 0
	for i, src := range cases {
		wantSorted, wantOrdered := lines[2*i], lines[2*i+1]
		v, err := Parse([]byte(src))
		if err != nil {
			t.Errorf("case %d %q: Parse: %v", i, clip([]byte(src)), err)
			fails++
			continue
		}
		check := func(what string, got, want []byte) {
			if !bytes.Equal(got, want) {
				t.Errorf("case %d %s\n  in %q\n got %q\nwant %q", i, what, clip([]byte(src)), clip(got), clip(want))
				fails++
			}
		}
		check("AppendJSON", v.AppendJSON(nil), wantOrdered)
		check("AppendCanonical", v.AppendCanonical(nil), wantSorted)
		got, err := c.Append(nil, []byte(src))
		if err != nil {
			t.Errorf("case %d %q: Canonicalizer: %v", i, clip([]byte(src)), err)
			fails++
		}
		check("Canonicalizer", got, wantSorted)
		if fails > 20 {
			t.Fatal("too many failures")
		}
	}
	t.Logf("%d cases agree with %s", len(cases), py)
}

func oracleCases() []string {
	var cases []string
	add := func(s ...string) { cases = append(cases, s...) }

	// Every C0 control, escaped each way JSON allows, plus DEL.
	for c := 0; c < 0x20; c++ {
		add(fmt.Sprintf(`"<\u%04x>"`, c), fmt.Sprintf(`"\u%04X"`, c))
	}
	add(`"\b\f\n\r\t"`, `"\/\"\\"`, `"\u0022\u005c\u002F"`, "\"\x7f\"", `"\u007f"`, `"\u007F"`)

	// Non-ASCII, raw and escaped.
	add(`"é"`, `"\u00e9"`, `"\u00E9"`, `"😀"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`,
		"\"\u2028\u2029\"", `"\u2028\u2029"`, `"\uffff\ufffe\ufffd\ufeff"`, `"\udbff\udfff"`, `"\ud800\udc00"`,
		`"日本語テキスト"`, `"Ünïcödé ∑ ≠ ∞"`, `"<script>&amp;</script>"`, `"\u003c\u003e\u0026"`,
		`"mixed \"quotes\" and \\slashes\\ / \/ é\u00e9😀\ud83d\ude00\n"`, `""`, `"\u0000"`)

	// Numbers.
	add(`[9007199254740993,-9007199254740993,18446744073709551615,18446744073709551616,-18446744073709551617]`,
		`[0,-0,1,-1,123456789012345678901234567890]`,
		`[100.0,1e-07,1e+16,1e16,1E5,0.0001,0.00001,5e-324,1.7976931348623157e308,-0.0,123456789012345678.0]`,
		`[1.0,1.5,0.1,0.2,0.30000000000000004,1e22,1e21,1e-5,1e-4,9999999999999998.0,1e15,1.5e16,2.5e-5]`,
		`[0e0,-0e0,0.0e10,1E+2,1e-2,1E-400,-1e-400,2.2250738585072014e-308,4.9e-324,2.5e-324,1.0000000000000002]`,
		`[12345678901234567890.0,0.000001,0.0000001,123.456e2,1.23456789012345678901234567890]`,
		strings.Repeat("9", MaxIntDigits), "-"+strings.Repeat("1", MaxIntDigits))

	// Keys that need sorting, including non-ASCII and escaped ones.
	add(`{"b":1,"a":2,"é":3,"z":4,"😀":5,"\uffff":6,"A":7,"aa":8,"":9,"\u00e8":10}`,
		`{"a\u0000":1,"a":2,"\u0061b":3,"aa":4,"abcdefgh1":5,"abcdefgh":6,"abcdefgh0":7,"abcdefgi":8}`,
		`{"z":{"y":{"x":[{"b":2,"a":1},{"d":[],"c":{}}]}},"a":[{"\n":1,"\t":2," ":3}]}`,
		`{"\ud83d\ude00":1,"\uffff":2,"\u2028":3,"~":4,"\u007f":5,"\u0080":6}`,
		` { "b" : [ 1 , { "y" : true , "x" : null } ] , "a" : false } `,
		"\t\r[\r\t1\t]\r")

	// Golden-shaped events with escapes.
	add(`{"trace_version":"0.1.0","event_id":"evt-1","payload":{"content":"line one\nline \"two\"\ttab \u2028 é 😀","tool":"echo"},"sequence":1,"duration_ms":12.50}`)

	r := rand.New(rand.NewPCG(1, 2))
	// Random doubles spelled several ways: Python's repr must match
	// AppendPyFloat whatever spelling the input used.
	for i := 0; i < 1500; i++ {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		add("[" + strconv.FormatFloat(f, 'e', -1, 64) + "," +
			strconv.FormatFloat(f, 'E', 17, 64) + "," +
			strconv.FormatFloat(f, 'e', r.IntN(20), 64) + "]")
	}
	for i := 0; i < 500; i++ {
		f := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		add(strconv.FormatFloat(f, 'f', -1, 64), strconv.FormatFloat(f, 'g', r.IntN(17)+1, 64))
	}
	// Random strings and objects mixing raw and escaped characters.
	for i := 0; i < 500; i++ {
		var b strings.Builder
		b.WriteByte('{')
		n := r.IntN(40)
		seen := map[string]bool{}
		for j := 0; j < n; j++ {
			k, dk := randString(r, 6)
			if seen[dk] {
				continue
			}
			seen[dk] = true
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			v, _ := randString(r, 20)
			b.WriteString(k + ":" + v)
		}
		b.WriteByte('}')
		add(b.String())
	}
	return cases
}

// randString returns a JSON string literal of up to n characters and its
// decoded text.
func randString(r *rand.Rand, n int) (lit, text string) {
	var b, d strings.Builder
	b.WriteByte('"')
	for i := r.IntN(n + 1); i > 0; i-- {
		var c rune
		switch r.IntN(6) {
		case 0:
			c = rune(r.IntN(0x80))
		case 1:
			c = rune(r.IntN(0x800))
		case 2:
			c = rune(r.IntN(0x10000))
		case 3:
			c = rune(0x10000 + r.IntN(0x100000))
		default:
			c = rune('a' + r.IntN(4)) // small alphabet: shared key prefixes
		}
		if c >= 0xD800 && c < 0xE000 {
			c = 0xFFFD
		}
		d.WriteRune(c)
		switch {
		case c < 0x20 || c == '"' || c == '\\' || r.IntN(4) == 0:
			if c >= 0x10000 {
				h, l := utf16Pair(c)
				fmt.Fprintf(&b, `\u%04x\u%04X`, h, l)
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	if !utf8.ValidString(d.String()) {
		panic("bad random text")
	}
	return b.String(), d.String()
}

func utf16Pair(c rune) (hi, lo rune) {
	c -= 0x10000
	return 0xD800 + c>>10, 0xDC00 + c&0x3FF
}
