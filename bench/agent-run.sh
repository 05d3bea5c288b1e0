#!/usr/bin/env bash
# Time per real-agent run: the whole `tracecheck agent run` against the
# agent's own wall time (what the run reports as "exited 0 after Xs"), for
# each agent on each scenario, RUNS times; prints the medians and
# tracecheck's overhead (whole minus agent). Needs the agents installed in
# agents/npm/node_modules (go test ./cmd/tracecheck -run TestRealAgents
# installs them). Usage: bench/agent-run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=agents/npm/node_modules/.bin
go build -o bin/tracecheck ./cmd/tracecheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-12s %-12s %10s %10s %10s\n' agent scenario "whole ms" "agent ms" "overhead"
for agent in pi claude-code codex; do
	prog=$agent; [ "$agent" = claude-code ] && prog=claude
	for sc in shell-write read-count; do
		: >"$tmp/whole"; : >"$tmp/agent"
		for i in $(seq "$runs"); do
			out="$tmp/$agent-$sc-$i"
			start=$(date +%s%N)
			./bin/tracecheck agent run "$agent" --scenario "agents/scenarios/$sc.json" --bin "$bin/$prog" --out "$out" >"$tmp/log" 2>&1
			end=$(date +%s%N)
			echo $(((end - start) / 1000000)) >>"$tmp/whole"
			sed -n 's/.* after \([0-9.]*\)\(m\?s\):.*/\1 \2/p' "$tmp/log" | awk '{print ($2=="ms") ? $1 : $1*1000}' >>"$tmp/agent"
			rm -rf "$out"
		done
		w=$(median <"$tmp/whole"); a=$(median <"$tmp/agent")
		printf '%-12s %-12s %10s %10.0f %10.0f\n' "$agent" "$sc" "$w" "$a" "$(echo "$w - $a" | bc)"
	done
done
