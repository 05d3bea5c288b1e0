#!/usr/bin/env bash
# Figures for BENCHMARKS.md, "Sharding and lint --jobs":
#   1. lint of a FILES-file corpus (default 10,000) with --jobs 1 and --jobs 2;
#   2. N simulated shards (default 4) against one job: a verify suite of
#      CASES command cases (default 64) that each take AGENT_SECONDS (0.25 s,
#      an agent waiting on its model) and the lint corpus, each shard's wall
#      time, the merge's, and one job's.
# Every figure is the median of RUNS runs (default 3) of a whole process,
# /usr/bin/time's wall, user+system CPU and peak RSS. The shards run one
# after another on this machine, as N CI jobs would each run one: a CI
# matrix's wall time is the slowest shard plus the merge.
#
#   go build -o bin/tracecheck ./cmd/tracecheck && bench/shards.sh bin/tracecheck
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-bin/tracecheck}")
RUNS=${RUNS:-3}
FILES=${FILES:-10000}
SIZE=${SIZE:-64KB}
N=${SHARDS:-4}
CASES=${CASES:-64}
AGENT_SECONDS=${AGENT_SECONDS:-0.25}
OUT=bench/out/shards
mkdir -p "$OUT"

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure LABEL CMD...: RUNS runs; prints LABEL, median wall s, CPU s, RSS MiB
measure() {
	local label=$1; shift
	local walls=() cpus=() rsss=()
	local t=$OUT/time.txt
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -o "$t" -f "%e %U %S %M" "$@" >/dev/null 2>&1 || true
		read -r e u s m < <(tail -n 1 "$t")
		walls+=("$e"); cpus+=("$(awk "BEGIN {print $u + $s}")"); rsss+=("$(awk "BEGIN {print $m / 1024}")")
	done
	printf '%-34s wall %6.2f s  cpu %6.2f s  rss %6.1f MiB\n' "$label" \
		"$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" "$(printf '%s\n' "${rsss[@]}" | median)"
}

# The corpus: one log of each kind per seed (four seeds), SIZE each,
# copied into FILES files in 100 folders (lint reads every byte of each).
corpus=$OUT/corpus-$FILES
if [ ! -d "$corpus" ]; then
	go build -o "$OUT/genagentlog" ./bench/genagentlog
	base=$OUT/base
	mkdir -p "$base"
	for kind in codex claude pi ts; do
		for seed in 1 2 3 4; do
			"$OUT/genagentlog" -kind "$kind" -size "$SIZE" -seed "$seed" -o "$base/$kind-$seed.jsonl"
		done
	done
	bases=("$base"/*.jsonl)
	for i in $(seq 0 $((FILES - 1))); do
		d=$corpus/project-$((i % 100))
		mkdir -p "$d"
		cp "${bases[$((i % ${#bases[@]}))]}" "$d/session-$i.jsonl"
	done
fi
echo "corpus: $FILES files, $(du -sm "$corpus" | cut -f1) MB ($(nproc) cores)"

echo "== lint --jobs"
for j in 1 2; do
	measure "lint -q --jobs $j" "$BIN" lint -q --jobs "$j" "$corpus"
done

# The verify suite: CASES cases, each an agent that takes AGENT_SECONDS.
suite=$OUT/suite-$CASES
if [ ! -d "$suite" ]; then
	mkdir -p "$suite/data"
	cp testdata/good/s07-session-replay.trace.jsonl "$suite/data/trace.jsonl"
	for i in $(seq 1 "$CASES"); do
		printf '{"command": {"argv": ["sh", "-c", "sleep %s; cat data/trace.jsonl"]}, "trace": {"from": "stdout"}}\n' "$AGENT_SECONDS" >"$suite/case-$i.json"
	done
	"$BIN" verify --cases "$suite" --no-scenarios --update=always >/dev/null
fi

shards() { # shards NAME CMD...: each of the N shards, then the merge
	local name=$1; shift
	for k in $(seq "$N"); do
		measure "$name shard $k/$N" "$@" --shard "$k/$N" --result "$OUT/$name-$k.json"
	done
	local results=()
	for k in $(seq "$N"); do results+=("$OUT/$name-$k.json"); done
	measure "merge of $N $name results" "$BIN" merge "${results[@]}"
	ls -l "${results[@]}" | awk '{s += $5} END {printf "  result files: %.1f MB in all\n", s / 1e6}'
	printf '  items per shard:'
	for r in "${results[@]}"; do printf ' %s' "$(grep -c '"outcome":' "$r")"; done
	echo
}

echo "== verify: $CASES cases of $AGENT_SECONDS s each, one job against $N shards"
measure "verify (one job)" "$BIN" verify --cases "$suite" --no-scenarios --update=no
shards verify "$BIN" verify --cases "$suite" --no-scenarios --update=no

echo "== lint: the corpus, one job against $N shards (--jobs 1 each)"
measure "lint (one job, --jobs 1)" "$BIN" lint -q --jobs 1 "$corpus"
shards lint "$BIN" lint -q --jobs 1 "$corpus"
