#!/bin/sh
# A command that passes on some runs and fails on others, deterministically,
# for the tests of a case's "repeat": it keeps a count of its runs in the
# file COUNTER (outside every run's workspace, so that the count survives
# from run to run), and prints TRACE (a valid trace) on an odd run and, on
# an even run, TRACE with its model's answer changed: a drift, every second
# run.
#
# Usage: flaky_agent.sh COUNTER TRACE
set -eu
counter=$1
trace=$2
n=0
if [ -f "$counter" ]; then
	n=$(cat "$counter")
fi
n=$((n + 1))
echo "$n" >"$counter"
if [ $((n % 2)) -eq 0 ]; then
	sed 's/branching preserves its parent\./branching forgets its parent./' "$trace"
else
	cat "$trace"
fi
