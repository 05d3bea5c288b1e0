package main

// Placeholder until the session store lands; replace this file wholesale.

import "fmt"

func runSession(e *env, args []string) int {
	fmt.Fprintln(e.stderr, "tracecheck session: not built yet")
	return exitUsage
}
