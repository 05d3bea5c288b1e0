package main

// Placeholder until the scenarios work lands; replace this file wholesale.

import "fmt"

func runVerify(e *env, args []string) int {
	fmt.Fprintln(e.stderr, "tracecheck verify: not built yet")
	return exitUsage
}

func runList(e *env, args []string) int {
	fmt.Fprintln(e.stderr, "tracecheck list: not built yet")
	return exitUsage
}
