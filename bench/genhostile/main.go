// Command genhostile writes the hostile inputs of BENCHMARKS.md (see package
// hostile):
//
//	go run ./bench/genhostile -lines 1 -bytes 16777216 -o bench/out/big1.jsonl
//	go run ./bench/genhostile -runs 1000000 -o bench/out/runs-1m.jsonl
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracecheck/tracecheck/bench/hostile"
)

func main() {
	lines := flag.Int("lines", 0, "number of long lines")
	size := flag.Int("bytes", 16<<20, "bytes per long line, newline excluded")
	typ := flag.String("type", "tool.result", "event type of the long lines")
	runs := flag.Int("runs", 0, "number of one-event runs (instead of -lines)")
	out := flag.String("o", "-", "output file ('-' for standard output)")
	flag.Parse()
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genhostile:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	var err error
	if *runs > 0 {
		err = hostile.Runs(w, *runs)
	} else {
		err = hostile.BigLines(w, *lines, *size, *typ)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genhostile:", err)
		os.Exit(1)
	}
}
