#!/usr/bin/env python3
"""Side-by-side run for `make bench`: tracecheck and the Python peer on the
same traces, in one run.

Usage: run.py TRACECHECK_BINARY TRACE [TRACE ...] [--runs N] [--no-peer]

For each trace, N rounds; a round runs the Python peer (`bench/peer.py
--json`) and then tracecheck's `replay --json` (validate + replay +
fingerprint, the whole pass), `fingerprint`, `validate -q` and `lint -q`,
one after the other, so that each tracecheck command is paired with the
peer run just before it and a machine whose speed drifts moves both. It
checks that the peer's output, fingerprint included, is byte-identical to
`tracecheck replay --json`; prints per command the median wall time, MB/s,
median CPU time (user + system) and the largest peak RSS (ru_maxrss of each
child, via wait4); then, per tracecheck command, the ratio of the peer's
wall time to tracecheck's, pair by pair (median, min-max). A summary table
ends the run when several traces were given. --no-peer measures tracecheck
alone (peak RSS at a size where the peer would take too long). Exit 1 if
the outputs differ or a command fails.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The targets issue 13 sets for the ratios (peer wall / tracecheck wall).
TARGETS = {"replay --json": 10.0, "validate -q": 15.0}


def run(cmd, out_path):
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode()
        p.stderr.close()
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, err))
    # ru_maxrss is in KiB on Linux.
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def id_style(trace):
    """The id style of a trace, from its first event id."""
    with open(trace, "rb") as f:
        first = json.loads(f.readline())
    eid = first.get("event_id", "")
    if len(eid) == 36 and eid.count("-") == 4:
        return "uuid"
    digits = eid[len("evt-"):] if eid.startswith("evt-") else ""
    if digits.isdigit():
        return "evt-%%0%dd" % len(digits)
    return "other"


def same_file(a, b):
    """Whether two files hold the same bytes, read a chunk at a time: the
    outputs are large, and what this process holds is counted in the peak
    RSS of every child it starts next (Linux carries the high-water mark
    across fork and exec)."""
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def fingerprint_in(path):
    """The fingerprint member of a replay --json output, read a chunk at a
    time (see same_file)."""
    key = b'"fingerprint":"'
    tail = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return None
            buf = tail + chunk
            i = buf.find(key)
            if i >= 0 and len(buf) >= i + len(key) + 64:
                return buf[i + len(key):i + len(key) + 64].decode()
            tail = buf[-(len(key) + 64):]


def median_range(xs):
    return statistics.median(xs), min(xs), max(xs)


def measure_trace(binary, trace, runs, peer, tmp):
    size = os.path.getsize(trace)
    events = 0
    with open(trace, "rb") as f:  # also warms the page cache for everyone
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            events += chunk.count(b"\n")
    here = os.path.dirname(os.path.abspath(__file__))
    commands = [
        ("replay --json", [binary, "replay", "--json", trace]),
        ("fingerprint", [binary, "fingerprint", trace]),
        ("validate -q", [binary, "validate", "-q", trace]),
        ("lint -q", [binary, "lint", "-q", trace]),
    ]
    peer_cmd = [sys.executable, os.path.join(here, "peer.py"), trace, "--json"]
    walls = {label: [] for label, _ in commands}
    cpus = {label: [] for label, _ in commands}
    rss = {label: 0.0 for label, _ in commands}
    ratios = {label: [] for label, _ in commands}
    peer_walls, peer_cpus, peer_rss = [], [], 0.0
    outs = {}
    for r in range(runs):
        if peer:
            out = os.path.join(tmp, "peer.out")
            pw, pc, pr = run(peer_cmd, out)
            peer_walls.append(pw)
            peer_cpus.append(pc)
            peer_rss = max(peer_rss, pr)
            outs["peer"] = out
        for label, cmd in commands:
            out = os.path.join(tmp, "%s.out" % label.split()[0])
            w, c, m = run(cmd, out)
            walls[label].append(w)
            cpus[label].append(c)
            rss[label] = max(rss[label], m)
            outs[label] = out
            if peer:
                ratios[label].append(pw / w)

    style = id_style(trace)
    print("trace: %s, %.1f MB, %d events, ids %s; machine: %d cores; %d round(s)"
          % (trace, size / 1e6, events, style, os.cpu_count(), runs))
    print("%-32s %10s %8s %10s %14s" % ("command", "wall s", "MB/s", "cpu s", "peak RSS MB"))
    rows = [("tracecheck " + label, walls[label], cpus[label], rss[label]) for label, _ in commands]
    if peer:
        rows.append(("python3 bench/peer.py --json", peer_walls, peer_cpus, peer_rss))
    for label, w, c, m in rows:
        mw = statistics.median(w)
        print("%-32s %10.3f %8.1f %10.3f %14.1f" % (label, mw, size / mw / 1e6, statistics.median(c), m))

    summary = {"trace": trace, "style": style, "events": events, "rss": rss, "ratios": {}}
    fp = open(outs["fingerprint"]).read().strip()
    go_fp = fingerprint_in(outs["replay --json"])
    if fp != go_fp:
        print("MISMATCH: replay --json and fingerprint disagree", file=sys.stderr)
        return None
    if not peer:
        return summary
    py_fp = fingerprint_in(outs["peer"])
    print("fingerprints: tracecheck %s, peer %s" % (go_fp, py_fp))
    if not same_file(outs["replay --json"], outs["peer"]) or go_fp != py_fp:
        print("MISMATCH: tracecheck and the Python peer disagree", file=sys.stderr)
        return None
    print("agree: the peer's whole replay view is byte-identical to tracecheck's")
    print("ratio, peer wall / tracecheck wall, pair by pair (median, min-max):")
    for label, _ in commands:
        med, lo, hi = median_range(ratios[label])
        target = TARGETS.get(label)
        verdict = ""
        if target:
            verdict = "  target >= %.0fx: %s" % (target, "met" if med >= target else "NOT met")
        print("  %-16s %6.1fx  (%.1f-%.1f)%s" % (label, med, lo, hi, verdict))
        summary["ratios"][label] = (med, lo, hi)
    return summary


def main(argv):
    args = argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    peer = "--no-peer" not in args
    args = [a for a in args if a != "--no-peer"]
    if len(args) < 2:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("Usage:")))
    binary, traces = args[0], args[1:]
    tmp = tempfile.mkdtemp(prefix="tracecheck-bench-")
    summaries = []
    for trace in traces:
        s = measure_trace(binary, trace, runs, peer, tmp)
        if s is None:
            return 1
        summaries.append(s)
        print()
    if len(summaries) > 1:
        labels = ["replay --json", "fingerprint", "validate -q", "lint -q"]
        print("summary (ratios: peer wall / tracecheck wall, median of the pairs; peak RSS MB)")
        head = "%-10s %10s" % ("ids", "events")
        if peer:
            head += "".join(" %14s" % ("x " + l.split()[0]) for l in labels)
        head += "".join(" %12s" % ("MB " + l.split()[0]) for l in labels)
        print(head)
        for s in summaries:
            row = "%-10s %10d" % (s["style"], s["events"])
            if peer:
                row += "".join(" %14.1f" % s["ratios"][l][0] for l in labels)
            row += "".join(" %12.1f" % s["rss"][l] for l in labels)
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
