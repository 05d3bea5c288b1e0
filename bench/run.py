#!/usr/bin/env python3
"""Side-by-side run for `make bench`: tracecheck and the Python peer on the
same trace, in one run.

Usage: run.py TRACECHECK_BINARY TRACE [--runs N]

Runs `tracecheck replay --json` (validate + replay + fingerprint, the whole
pass), `tracecheck fingerprint` and `tracecheck validate`, each N times
(best wall time kept), and `python3 bench/peer.py --json` once; checks that
the peer's output, fingerprint included, is byte-identical to tracecheck's;
prints wall time, MB/s, peak RSS (ru_maxrss of each child, via wait4) and
the ratio. Exit 1 if the outputs differ or a command fails.
"""

import os
import subprocess
import sys
import tempfile
import time


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
    return wall, ru.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def main(argv):
    if len(argv) < 3:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("Usage:")))
    binary, trace = argv[1], argv[2]
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 3
    size = os.path.getsize(trace)
    with open(trace, "rb") as f:
        events = sum(1 for _ in f)  # also warms the page cache for everyone
    here = os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp(prefix="tracecheck-bench-")
    rows = []

    def measure(label, cmd, n):
        best = None
        for i in range(n):
            out = os.path.join(tmp, "%d.out" % len(rows))
            wall, rss = run(cmd, out)
            if best is None or wall < best[0]:
                best = (wall, rss)
        rows.append((label, best[0], size / best[0] / 1e6, best[1], out))
        return out

    go_out = measure("tracecheck replay --json", [binary, "replay", "--json", trace], runs)
    fp_out = measure("tracecheck fingerprint", [binary, "fingerprint", trace], runs)
    measure("tracecheck validate", [binary, "validate", "-q", trace], runs)
    py_out = measure("python3 bench/peer.py --json", [sys.executable, os.path.join(here, "peer.py"), trace, "--json"], 1)

    print("trace: %s, %.1f MB, %d events; machine: %d cores" % (trace, size / 1e6, events, os.cpu_count()))
    print("%-32s %8s %8s %14s" % ("command", "wall s", "MB/s", "peak RSS MB"))
    for label, wall, mbs, rss, _ in rows:
        print("%-32s %8.3f %8.1f %14.1f" % (label, wall, mbs, rss))
    go, py = open(go_out, "rb").read(), open(py_out, "rb").read()
    fp = open(fp_out).read().strip()
    import json
    go_fp, py_fp = json.loads(go)["fingerprint"], json.loads(py)["fingerprint"]
    print("fingerprints: tracecheck %s, peer %s, fingerprint command %s" % (go_fp, py_fp, fp))
    if go != py or go_fp != py_fp or fp != go_fp:
        print("MISMATCH: tracecheck and the Python peer disagree", file=sys.stderr)
        return 1
    print("agree: the peer's whole replay view is byte-identical to tracecheck's")
    print("ratio (whole pass, replay --json): tracecheck is %.1fx the peer's MB/s, with %.2fx its peak RSS"
          % (rows[0][2] / rows[3][2], rows[0][3] / rows[3][3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
