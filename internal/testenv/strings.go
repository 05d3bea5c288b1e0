package testenv

import (
	"fmt"
	"strings"
)

// StringRun is the text of a JSON string (no quotes) for tests of a
// string scanner: a plain run of some length, then one kind of byte that
// ends a run.
type StringRun struct {
	Name string // for example: 17 plain bytes then "\\n"
	Text string
}

// StringRuns are plain runs of 0 to 4097 bytes, across a word scanner's
// 8-byte steps at every kind of boundary, each followed by each kind of
// byte that ends one (an escape, a multi-byte UTF-8 sequence, a control
// byte, a byte that is not UTF-8, a quote) and a few plain bytes more.
// Some are not valid in a JSON string: a scanner is to refuse those.
func StringRuns() []StringRun {
	var runs []StringRun
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 300, 4097} {
		for _, tail := range []string{``, `\"`, `\\`, `\n`, `\u00e9`, `é`, `数据`, "\x01", "\x1f", "\x7f", "\xff", "\xc3", `"`} {
			runs = append(runs, StringRun{
				Name: fmt.Sprintf("%d plain bytes then %q", n, tail),
				Text: strings.Repeat("a/b+c=D ", n/8+1)[:n] + tail + "tail",
			})
		}
	}
	return runs
}
