package jsonv

import (
	"encoding/json"
	"strings"
	"testing"
)

func totalLen(lines [][]byte) int64 {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	return int64(n)
}

func BenchmarkParse(b *testing.B) {
	lines := goldenLines(b)
	b.SetBytes(totalLen(lines))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkCanonicalizer(b *testing.B) {
	lines := goldenLines(b)
	var c Canonicalizer
	var dst []byte
	var err error
	b.SetBytes(totalLen(lines))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if dst, err = c.Append(dst[:0], l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCanonicalizerEscaped measures the slow paths: escapes,
// non-ASCII text and floats.
func BenchmarkCanonicalizerEscaped(b *testing.B) {
	line := []byte(`{"type":"model.response","payload":{"content":"Line one\nLine \"two\"\twith tab, caf\u00e9 and emoji \ud83d\ude00 \u2014 done.\n` +
		strings.Repeat(`Grüße, 世界! `, 8) + `","score":0.25,"latency":1.5e3},"sequence":7,"event_id":"evt-007"}`)
	var c Canonicalizer
	var dst []byte
	var err error
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = c.Append(dst[:0], line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAppendCanonical is the tree-building route to the same bytes.
func BenchmarkParseAppendCanonical(b *testing.B) {
	lines := goldenLines(b)
	var dst []byte
	b.SetBytes(totalLen(lines))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			v, err := Parse(l)
			if err != nil {
				b.Fatal(err)
			}
			dst = v.AppendCanonical(dst[:0])
		}
	}
}

// BenchmarkStdlibValid is a yardstick: encoding/json's validator, which
// builds nothing and checks less.
func BenchmarkStdlibValid(b *testing.B) {
	lines := goldenLines(b)
	b.SetBytes(totalLen(lines))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if !json.Valid(l) {
				b.Fatal("invalid")
			}
		}
	}
}
