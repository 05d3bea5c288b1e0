// Command gentrace writes a long, deterministic Trace 0.1.0 journal in the
// reference layout (see package tracegen) for benchmarks.
//
//	go run ./bench/gentrace -events 200000 -o bench/out/trace-200k.jsonl
//	go run ./bench/gentrace -events 200000 -ids uuid -o bench/out/trace-200k-uuid.jsonl
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/bench/tracegen"
)

func main() {
	events := flag.Int("events", 200000, "number of events")
	seed := flag.Uint64("seed", 1, "seed for texts and turn shapes")
	name := flag.String("name", "bench", "session-<name> / run-<name>-golden")
	out := flag.String("o", "-", "output file ('-' for standard output)")
	ids := flag.String("ids", tracegen.IDsRef, "event id style: "+strings.Join(tracegen.IDStyles, ", "))
	flag.Parse()
	if !slices.Contains(tracegen.IDStyles, *ids) {
		fmt.Fprintf(os.Stderr, "gentrace: -ids %q: want one of %s\n", *ids, strings.Join(tracegen.IDStyles, ", "))
		os.Exit(2)
	}
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gentrace:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	n, err := tracegen.Write(w, tracegen.Options{Events: *events, Seed: *seed, Name: *name, IDs: *ids})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gentrace: %d events, %d bytes\n", *events, n)
}
