#!/bin/bash
# session-rss.sh BIN EVENTS IDS: peak RSS, wall time and checkpoint size of
# the session store on a generated session of EVENTS events with IDS event
# IDs (evt-%03d, evt-%07d or uuid), the issue 13 figures of BENCHMARKS.md
# (Session store by ID style):
#
#   append       session append --batch 512, every event on stdin (the
#                store built from nothing, as an agent writes it)
#   check        session check (reads the whole file)
#   resume-nocp  session resume without a checkpoint
#   checkpoint   session checkpoint (with the history flags gensession
#                prints); the checkpoint's size in bytes follows
#   append-cp    session append from that checkpoint (nothing on stdin)
#   resume-cp    session resume from it
#
# One line per command: name, exit status, seconds, maximum RSS in KB
# (/usr/bin/time). The session and its store live in a temporary
# directory, deleted at the end (10M events are about 5.5 GB, twice).
set -u
BIN=$1 N=$2 IDS=$3
W=$(mktemp -d "${TMPDIR:-/tmp}/session-rss.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir "$W/st"
go run ./bench/gensession -events "$N" -open -ids "$IDS" -o "$W/in.jsonl" 2>"$W/gen" || { cat "$W/gen"; exit 1; }
# The history flags gensession prints: --system-prompt ... --compact-summary ...
eval "hist=($(sed -n 's/^gensession: resume with //p' "$W/gen"))"
run() {
	local name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$W/time" "$@" >"$W/out" 2>"$W/err"
	local rc=$?
	echo "$name rc=$rc $(tail -1 "$W/time")"
	[ $rc = 0 ] || { tail -3 "$W/err"; exit 1; }
}
S=session-gen
resume=(session resume --dir "$W/st" --session $S --message hi --clock 2026-08-11T00:00:00Z "${hist[@]}")
echo "# $N events, IDs $IDS, $(stat -c %s "$W/in.jsonl") bytes"
run append "$BIN" session append --dir "$W/st" --session $S --batch 512 <"$W/in.jsonl"
rm -f "$W/in.jsonl"
run check "$BIN" session check --dir "$W/st" --session $S
run resume-nocp "$BIN" "${resume[@]}" --run-id run-r1
rm -f "$W/st/"*.checkpoint
run checkpoint "$BIN" session checkpoint --dir "$W/st" --session $S "${hist[@]}"
echo "checkpoint-bytes $(cat "$W/st/"*.checkpoint | wc -c)"
run append-cp "$BIN" session append --dir "$W/st" --session $S </dev/null
run resume-cp "$BIN" "${resume[@]}" --run-id run-r2
