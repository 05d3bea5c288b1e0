#!/usr/bin/env python3
"""Speed table for `make bench-speed` (issue 22, items 1 and 2): lint and
import of every agent log format and of a Trace file, each against Python's
per-line json.loads over the same file (the named peer) and `wc -l` (the
floor: reading the bytes and counting lines), then `tracecheck diff
--normalize` against exact `tracecheck diff` against GNU diff on the same
200k-event pair.

Usage: speed.py TRACECHECK [--before OLD_TRACECHECK] [--runs N]
                [--out DIR] [--size MB] [--diff-events N]
                [--only agent|diff|rss] [--rss-gb G]

Every command runs as a child of this process, measured by wait4: CPU time
(user + system), wall time and peak RSS (ru_maxrss). A round runs every
command of a file once, in an order that alternates from round to round
(forward, then backward), so that a machine whose speed drifts moves the
command and its peer alike; the ratios are taken pair by pair inside a
round and the table gives their median (and min-max) over the rounds.
MB per CPU-second is the file's size over the command's median CPU time.
--before adds the same rows for an older binary, paired with the new one
round by round (the "before" column of BENCHMARKS.md). --rss-gb G also
generates a G GB file of each format (one at a time, deleted after) and
gives the peak RSS of lint and import on it; --only picks one table
(rss: that one alone).

Files are generated in --out (default bench/out) when missing:
bench/genagentlog for Codex, Claude Code, pi and the TypeScript harness,
bench/gentrace for Trace (UUID event ids), each about --size MB.

Exit status 1 when a command fails or a target is not met.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Targets (issue 22): MB per CPU-second and ratio to json.loads for lint and
# import; RSS in MiB; diff ratios.
TARGET_MBPS = 400.0
TARGET_LOADS = 6.0
TARGET_RSS = 64.0
TARGET_NORMALIZE = 1.5  # diff --normalize CPU / exact diff CPU, at most
TARGET_GNU = 1.0  # exact diff wall / GNU diff wall, at most

JSON_LOADS = r"""
import json, sys
loads = json.loads
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            loads(line)
"""


def run(cmd, ok_codes=(0,), stdout=subprocess.DEVNULL):
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if code not in ok_codes:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), code, err[-2000:]))
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024.0}


def med(xs):
    return statistics.median(xs)


def fmt_range(xs, f="%.2f"):
    return (f + " (" + f + "-" + f + ")") % (med(xs), min(xs), max(xs))


def gen_agent(kind, path, size_mb):
    if not os.path.exists(path):
        subprocess.check_call(["go", "run", "./bench/genagentlog", "-kind", kind, "-size", "%dMB" % size_mb, "-o", path], cwd=ROOT)


def gen_trace(path, events, ids):
    if not os.path.exists(path):
        subprocess.check_call(["go", "run", "./bench/gentrace", "-events", str(events), "-ids", ids, "-o", path], cwd=ROOT)


def warm(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return n
            n += b.count(b"\n")


def rounds(commands, runs):
    """commands: list of (label, argv, ok_codes). Returns label -> list of
    measurements, one per round, in round order."""
    res = {label: [] for label, _, _ in commands}
    for r in range(runs):
        order = commands if r % 2 == 0 else commands[::-1]
        for label, cmd, ok in order:
            res[label].append(run(cmd, ok))
    return res


def paired(res, num, den, field="cpu"):
    return [a[field] / b[field] for a, b in zip(res[num], res[den]) if b[field] > 0]


def agent_table(bins, files, runs):
    failed = False
    out = []
    out.append("| file | MB | command | CPU s | MB/CPU-s | x json.loads (CPU, paired) | x wc -l (CPU) | wall s | peak RSS MiB | target |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    sys.stdout.write("\n".join(out) + "\n")
    for name, path, fmt in files:
        size = os.path.getsize(path)
        mb = size / 1e6
        warm(path)
        cmds = [("json.loads", [sys.executable, "-c", JSON_LOADS, path], (0,)),
                ("wc -l", ["wc", "-l", path], (0,))]
        for tag, b in bins:
            cmds.append((tag + "lint -q", [b, "lint", "-q", path], (0,)))
            if fmt != "trace":
                cmds.append((tag + "import", [b, "import", path], (0,)))
        res = rounds(cmds, runs)
        for label, _, _ in cmds:
            cpu = [m["cpu"] for m in res[label]]
            wall = [m["wall"] for m in res[label]]
            rss = max(m["rss"] for m in res[label])
            mbps = mb / med(cpu) if med(cpu) > 0 else float("inf")
            loads = paired(res, "json.loads", label)
            wc = paired(res, label, "wc -l") if label != "wc -l" else [1.0]
            verdict = ""
            if label.endswith("lint -q") or label.endswith("import"):
                if label in ("lint -q", "import"):  # the binary under test
                    ok = mbps >= TARGET_MBPS and med(loads) >= TARGET_LOADS and rss < TARGET_RSS
                    verdict = "met" if ok else "NOT met"
                    failed = failed or not ok
            out.append("| %s | %.1f | %s | %s | **%.0f** | %s | %s | %.3f | %.1f | %s |" % (
                name, mb, label, fmt_range(cpu, "%.3f"), mbps,
                "%.2fx (%.2f-%.2f)" % (med(loads), min(loads), max(loads)) if label != "json.loads" else "1",
                "%.1fx" % med(wc) if label != "wc -l" else "1",
                med(wall), rss, verdict))
        sys.stdout.write("\n".join(out[-len(cmds):]) + "\n")
        sys.stdout.flush()
    return out, failed


def change_events(src, dst, events):
    """dst: src with a member added to the payload of 3 events (a quarter,
    half and three quarters in)."""
    picks = {events // 4, events // 2, 3 * events // 4}
    with open(src, "rb") as f, open(dst, "wb") as g:
        for i, line in enumerate(f):
            if i in picks:
                line = line.replace(b'"payload":{', b'"payload":{"bench_changed":true,', 1)
            g.write(line)


def diff_table(bins, outdir, events, runs):
    a = os.path.join(outdir, "diff-a-%d.jsonl" % events)
    b = os.path.join(outdir, "diff-b-%d.jsonl" % events)
    golden = os.path.join(outdir, "diff-golden-%d.jsonl" % events)
    gen_trace(a, events, "evt-%03d")
    if not os.path.exists(b):
        change_events(a, b, events)
    if not os.path.exists(golden):
        with open(golden, "wb") as g:
            subprocess.check_call([bins[0][1], "normalize", a], stdout=g)
    for p in (a, b, golden):
        warm(p)
    cmds = [("GNU diff", ["diff", a, b], (1,))]
    for tag, bn in bins:
        cmds.append((tag + "diff", [bn, "diff", a, b], (1,)))
        cmds.append((tag + "diff --normalize", [bn, "diff", "--normalize", golden, b], (1,)))
    res = rounds(cmds, runs)
    mb = (os.path.getsize(a) + os.path.getsize(b)) / 1e6
    out = ["| command (%d events, 3 differ, %.0f MB read) | CPU s | wall s | peak RSS MiB | x exact diff (CPU / wall, paired) | x GNU diff (CPU / wall, paired) | target |" % (events, mb),
           "| --- | --- | --- | --- | --- | --- | --- |"]
    failed = False
    for label, _, _ in cmds:
        cpu = [m["cpu"] for m in res[label]]
        wall = [m["wall"] for m in res[label]]
        rss = max(m["rss"] for m in res[label])
        tag = label[:-len("diff --normalize")] if label.endswith("diff --normalize") else label[:-len("diff")] if label.endswith("diff") and label != "GNU diff" else ""
        exact = tag + "diff"
        vs_exact = "-"
        if label != "GNU diff" and label != exact:
            vs_exact = "%.2fx / %.2fx" % (med(paired(res, label, exact)), med(paired(res, label, exact, "wall")))
        vs_gnu = "-"
        if label != "GNU diff":
            vs_gnu = "%.2fx / %.2fx" % (med(paired(res, label, "GNU diff")), med(paired(res, label, "GNU diff", "wall")))
        verdict = ""
        if label == "diff":
            ok = med(paired(res, label, "GNU diff", "wall")) <= TARGET_GNU
            verdict = "wall <= GNU diff: " + ("met" if ok else "NOT met")
            failed = failed or not ok
        elif label == "diff --normalize":
            r = med(paired(res, label, "diff"))
            ok = r <= TARGET_NORMALIZE and rss < TARGET_RSS
            verdict = "<= 1.5x exact, < 64 MiB: " + ("met" if ok else "NOT met")
            failed = failed or not ok
        out.append("| %s | %s | %s | %.1f | %s | %s | %s |" % (label, fmt_range(cpu, "%.3f"), fmt_range(wall, "%.3f"), rss, vs_exact, vs_gnu, verdict))
    sys.stdout.write("\n".join(out) + "\n")
    return out, failed


def rss_table(bins, outdir, gb):
    out = ["| file (%d GB) | command | CPU s | MB/CPU-s | peak RSS MiB |" % gb, "| --- | --- | --- | --- | --- |"]
    print("\n".join(out))
    failed = False
    tag, bn = bins[0]
    for kind, fmt in (("codex", "codex"), ("claude", "claude-code"), ("pi", "pi"), ("ts", "ts-harness"), ("trace", "trace")):
        path = os.path.join(outdir, "rss-%s-%dg.jsonl" % (kind, gb))
        try:
            if kind == "trace":
                gen_trace(path, int(gb * 1e9 / 700), "uuid")
            else:
                gen_agent(kind, path, gb * 1024)
            mb = os.path.getsize(path) / 1e6
            cmds = [("lint -q", [bn, "lint", "-q", path])]
            if kind != "trace":
                cmds.append(("import", [bn, "import", path]))
            for label, cmd in cmds:
                m = run(cmd)
                failed = failed or m["rss"] >= TARGET_RSS
                out.append("| %s %.0f MB | %s | %.2f | %.0f | **%.1f** |" % (fmt, mb, label, m["cpu"], mb / m["cpu"], m["rss"]))
                print(out[-1])
                sys.stdout.flush()
        finally:
            if os.path.exists(path):
                os.remove(path)
    return out, failed



def l2_cache():
    """The size of cpu0's level-2 cache as sysfs gives it ("1024K"), or ""."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            with open(os.path.join(base, d, "level")) as f:
                if f.read().strip() != "2":
                    continue
            with open(os.path.join(base, d, "size")) as f:
                return f.read().strip()
    except OSError:
        pass
    return ""


def processor():
    """The processor as a figure must name it: the model name, family and
    model (a VM's model name alone, "AMD EPYC", names several), the widest
    vector extension and the L2 cache of a core, from /proc/cpuinfo."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if not l.strip():
                    break  # the first processor's block is enough
                k, _, val = l.partition(":")
                info[k.strip()] = val.strip()
    except OSError:
        return "?"
    flags = info.get("flags", "").split()
    vec = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    parts = ["family %s model %s" % (info.get("cpu family", "?"), info.get("model", "?")), vec]
    l2 = l2_cache()
    if l2:
        parts.append("L2 %s a core" % l2)
    return "%s (%s)" % (info.get("model name", "?"), ", ".join(parts))

def main(argv):
    args = argv[1:]

    def opt(name, default):
        if name in args:
            i = args.index(name)
            v = args[i + 1]
            del args[i:i + 2]
            return v
        return default

    runs = int(opt("--runs", "5"))
    outdir = opt("--out", os.path.join(ROOT, "bench", "out"))
    size = int(opt("--size", "100"))
    diff_events = int(opt("--diff-events", "200000"))
    before = opt("--before", None)
    only = opt("--only", None)
    rss_gb = int(opt("--rss-gb", "0"))
    if len(args) != 1:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("Usage:")))
    bins = [("", os.path.abspath(args[0]))]
    if before:
        bins.append(("before: ", os.path.abspath(before)))
    os.makedirs(outdir, exist_ok=True)
    print("machine: %s, %d cores, load average %.2f %.2f %.2f; %d rounds; python %s" % (
        (processor(), os.cpu_count()) + os.getloadavg() + (runs, sys.version.split()[0])))
    failed = False
    if only in (None, "agent"):
        files = []
        for kind, fmt in (("codex", "codex"), ("claude", "claude-code"), ("pi", "pi"), ("ts", "ts-harness")):
            p = os.path.join(outdir, "speed-%s-%dm.jsonl" % (kind, size))
            gen_agent(kind, p, size)
            files.append((fmt, p, fmt))
        p = os.path.join(outdir, "speed-trace-%dm.jsonl" % size)
        gen_trace(p, int(size * 1e6 / 690), "uuid")
        files.append(("trace (uuid ids)", p, "trace"))
        print("\n## lint and import: MB per CPU-second, against json.loads per line and wc -l\n")
        _, f = agent_table(bins, files, runs)
        failed = failed or f
    if only in (None, "diff"):
        print("\n## diff: --normalize against exact, exact against GNU diff\n")
        _, f = diff_table(bins, outdir, diff_events, runs)
        failed = failed or f
    if rss_gb > 0:
        print("\n## peak RSS at %d GB\n" % rss_gb)
        _, f = rss_table(bins, outdir, rss_gb)
        failed = failed or f
    print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())
    if failed:
        print("some targets are NOT met")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
