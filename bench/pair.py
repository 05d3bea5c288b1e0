#!/usr/bin/env python3
"""Two binaries on the same command, in turn: the paired comparison of a
change (BENCHMARKS.md, How figures are measured).

Usage: pair.py OLD NEW [--runs N] -- ARGS...

Runs `OLD ARGS` and `NEW ARGS` alternately (OLD first in even rounds, NEW
first in odd ones) N times each (default 9), stdout discarded, and prints
the median CPU time (user + system) and wall time of each, the median of
the per-round ratios OLD/NEW (above 1: NEW is faster) and the peak RSS of
each. Exit status 0 and 1 of the command are both accepted (lint and diff
exit 1 on findings).
"""

import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read()
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), code, err.decode(errors="replace")[-2000:]))
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss / 1024.0


def main(argv):
    args = argv[1:]
    runs = 9
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if "--" not in args or args.index("--") != 2:
        sys.exit(__doc__.split("\n\n")[1])
    old, new, rest = args[0], args[1], args[3:]
    res = {"old": [], "new": []}
    for r in range(runs):
        order = [("old", old), ("new", new)] if r % 2 == 0 else [("new", new), ("old", old)]
        for tag, b in order:
            res[tag].append(run([b] + rest))
    cpu = {t: [m[0] for m in res[t]] for t in res}
    wall = {t: [m[1] for m in res[t]] for t in res}
    rss = {t: max(m[2] for m in res[t]) for t in res}
    rc = [a / b for a, b in zip(cpu["old"], cpu["new"]) if b > 0]
    rw = [a / b for a, b in zip(wall["old"], wall["new"]) if b > 0]
    print("%s: %d rounds, load %.2f" % (" ".join(rest), runs, os.getloadavg()[0]))
    for t in ("old", "new"):
        print("  %-3s cpu %.3f s  wall %.3f s  rss %.1f MiB" % (t, statistics.median(cpu[t]), statistics.median(wall[t]), rss[t]))
    print("  old/new cpu %.3fx (%.2f-%.2f)  wall %.3fx" % (statistics.median(rc), min(rc), max(rc), statistics.median(rw)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
