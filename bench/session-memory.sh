#!/bin/bash
# session-memory.sh BIN FILE SESSION [history flags...]: peak RSS and wall
# time of every session command on a copy of FILE as session SESSION, as
# BENCHMARKS.md and docs/session-store.md (Memory) report them:
#
#   check         session check --session SESSION
#   append-nocp   session append (nothing on stdin) without a checkpoint:
#                 the whole file is read
#   resume-nocp   session resume without a checkpoint
#   checkpoint    session checkpoint (the history flags given)
#   append-cp     session append from that checkpoint
#   resume-cp     session resume from it
#
# One line per command: name, exit status, seconds, maximum RSS in KB
# (/usr/bin/time). The sessions the figures use:
#
#   go run ./bench/genhostile -lines 4 -bytes 16000000 -o four.jsonl             # session-hostile
#   go run ./bench/gensession -messages 2790 -message-bytes 100000 -o msgs.jsonl # session-gen
#   go run ./bench/gensession -events 1000000 -open -o turns.jsonl               # session-gen, with the
#                                                                                # history flags it prints
set -u
BIN=$1 FILE=$2 SESS=$3
shift 3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/st"
cp "$FILE" "$W/st/$SESS.jsonl"
run() {
	local name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$W/time" "$@" >"$W/out" 2>"$W/err"
	echo "$name rc=$? $(tail -1 "$W/time")"
}
resume=(session resume --dir "$W/st" --session "$SESS" --message hi --clock 2026-08-11T00:00:00Z "$@")
run check "$BIN" session check --dir "$W/st" --session "$SESS"
run append-nocp "$BIN" session append --dir "$W/st" --session "$SESS" </dev/null
rm -f "$W/st/"*.checkpoint
run resume-nocp "$BIN" "${resume[@]}" --run-id run-r1
rm -f "$W/st/"*.checkpoint
run checkpoint "$BIN" session checkpoint --dir "$W/st" --session "$SESS" "$@"
run append-cp "$BIN" session append --dir "$W/st" --session "$SESS" </dev/null
run resume-cp "$BIN" "${resume[@]}" --run-id run-r2
