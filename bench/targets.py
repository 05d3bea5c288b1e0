#!/usr/bin/env python3
"""The targets of issue 25, each measured against its peer in the same run
(`make bench-targets`).

Usage: targets.py TRACECHECK MODELLOAD [--runs N] [--side-runs N]
                  [--out DIR] [--only PART[,PART...]] [--no-keep-rss]

Parts (all by default, in this order):

  agent  lint and import of Codex, Claude Code, pi, the TypeScript harness
         and Trace (UUID ids), about 100 MB each: MB per CPU-second, and the
         ratio to Python's json.loads per line over the same file (CPU,
         paired round by round), with `wc -l` as the floor.
  rss    peak RSS of lint and import on 1 GB of each format.
  diff   diff --normalize against exact diff (CPU, paired) and its peak RSS
         at 200k events; exact diff against GNU diff (wall, paired) on the
         same pair, 3 events differing. Three times --runs rounds: each
         command takes under a second.
  side   replay --json and fingerprint against the streaming Python peer
         (bench/peer.py --json) on 1M events with UUID ids: the peer's wall
         time over tracecheck's, pair by pair (the definition of bench/run.py
         and of issue 13), the CPU ratio beside it; peak RSS.
  model  model serve against a plain net/http handler serving the same
         answer (bench/modelload -server pair: 50 clients, 5,000 requests,
         the trace written), whole and streamed; three times --runs
         rounds.

Each command runs as a child measured by wait4 (CPU = user + system, wall,
peak RSS); a round runs a command and its peer one after the other, in an
order that alternates from round to round, and ratios are taken within a
round: the table gives the median and the min-max of the rounds. The machine
line says the processor, the cores and the load average before and after:
on a shared machine wall times move with the load, CPU times much less.

Files are generated in --out (default bench/out) when missing and kept,
the 1 GB ones too (about 5.4 GB; --no-keep-rss deletes them after use,
and the next run generates them again). About 10 minutes on the
project's 2-core machine once the files exist.

Prints one line per target with its measured figure, the peer's in the same
run and met or NOT met; exit status 1 when a target is not met or a command
fails.
"""

import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import speed  # noqa: E402  (bench/speed.py: run, rounds, paired, generators)

# Issue 25's targets.
T_MBPS = 400.0  # lint and import: MB per CPU-second, at least
T_LOADS = 6.0  # ... and this many times json.loads per line (CPU), at least
T_RSS = 64.0  # MiB at 1 GB, below
T_NORMALIZE = 1.5  # diff --normalize CPU / exact diff CPU, at most
T_NORMALIZE_RSS = 64.0  # MiB at 200k events, below
T_GNU = 1.0  # exact diff wall / GNU diff wall, at most
T_PEER = 12.0  # Python peer wall / tracecheck wall, at least
T_PEER_RSS = 48.0  # MiB at 1M events, below
T_MODEL = 0.8  # model serve requests/s / plain net/http requests/s, at least


def mr(xs, f="%.2f"):
    return (f + " (" + f + "-" + f + ")") % (statistics.median(xs), min(xs), max(xs))


class Verdicts:
    def __init__(self):
        self.rows = []

    def add(self, target, measured, peer, ok):
        self.rows.append((target, measured, peer, ok))
        print("  -> %s: %s [%s] %s" % (target, measured, peer, "met" if ok else "NOT met"))
        sys.stdout.flush()

    def failed(self):
        return any(not ok for _, _, _, ok in self.rows)

    def table(self):
        out = ["| target | measured (median, min-max) | peer in the same run | |", "| --- | --- | --- | --- |"]
        for t, m, p, ok in self.rows:
            out.append("| %s | %s | %s | %s |" % (t, m, p, "met" if ok else "**NOT met**"))
        return "\n".join(out)


def agent_part(v, tc, outdir, runs):
    print("\n## lint and import, about 100 MB of each format (%d rounds)\n" % runs)
    files = []
    for kind, name in (("codex", "Codex"), ("claude", "Claude Code"), ("pi", "pi"), ("ts", "TypeScript harness")):
        p = os.path.join(outdir, "speed-%s-100m.jsonl" % kind)
        speed.gen_agent(kind, p, 100)
        files.append((name, p, True))
    p = os.path.join(outdir, "speed-trace-100m.jsonl")
    speed.gen_trace(p, int(100 * 1e6 / 690), "uuid")
    files.append(("Trace (UUID ids)", p, False))
    for name, path, agent in files:
        mb = os.path.getsize(path) / 1e6
        speed.warm(path)
        cmds = [("json.loads", [sys.executable, "-c", speed.JSON_LOADS, path], (0,)),
                ("wc -l", ["wc", "-l", path], (0,)),
                ("lint", [tc, "lint", "-q", path], (0,))]
        if agent:
            cmds.append(("import", [tc, "import", path], (0,)))
        res = speed.rounds(cmds, runs)
        loads_cpu = [m["cpu"] for m in res["json.loads"]]
        wc_cpu = [m["cpu"] for m in res["wc -l"]]
        print("%s, %.1f MB: json.loads %s CPU s (%.0f MB/CPU-s), wc -l %s CPU s" % (
            name, mb, mr(loads_cpu, "%.3f"), mb / statistics.median(loads_cpu), mr(wc_cpu, "%.3f")))
        for label in [c[0] for c in cmds[2:]]:
            cpu = [m["cpu"] for m in res[label]]
            mbps = [mb / c for c in cpu]
            x = speed.paired(res, "json.loads", label)
            floor = speed.paired(res, label, "wc -l")
            rss = max(m["rss"] for m in res[label])
            print("  %-6s %s CPU s, %s MB/CPU-s, %s x json.loads, %.1f x wc -l's CPU, peak RSS %.1f MiB" % (
                label, mr(cpu, "%.3f"), mr(mbps, "%.0f"), mr(x), statistics.median(floor), rss))
            v.add("%s %s >= %.0f MB per CPU-second" % (label, name, T_MBPS), mr(mbps, "%.0f"),
                  "wc -l %.0f MB/CPU-s" % (mb / statistics.median(wc_cpu)), statistics.median(mbps) >= T_MBPS)
            v.add("%s %s >= %.0fx json.loads (CPU)" % (label, name, T_LOADS), mr(x) + "x",
                  "json.loads %.0f MB/CPU-s" % (mb / statistics.median(loads_cpu)), statistics.median(x) >= T_LOADS)


def rss_part(v, tc, outdir, keep):
    print("\n## peak RSS at 1 GB\n")
    worst = []
    for kind, name in (("codex", "Codex"), ("claude", "Claude Code"), ("pi", "pi"), ("ts", "TypeScript harness"), ("trace", "Trace (UUID ids)")):
        path = os.path.join(outdir, "rss-%s-1g.jsonl" % kind)
        if kind == "trace":
            speed.gen_trace(path, int(1e9 / 700), "uuid")
        else:
            speed.gen_agent(kind, path, 1024)
        mb = os.path.getsize(path) / 1e6
        cmds = [("lint", [tc, "lint", "-q", path])]
        if kind != "trace":
            cmds.append(("import", [tc, "import", path]))
        for label, cmd in cmds:
            m = speed.run(cmd)
            print("  %s %.0f MB: %s %.2f CPU s (%.0f MB/CPU-s), peak RSS %.1f MiB" % (name, mb, label, m["cpu"], mb / m["cpu"], m["rss"]))
            worst.append((m["rss"], "%s %s" % (label, name)))
        if not keep:
            os.remove(path)
    rss, what = max(worst)
    v.add("lint and import < %.0f MiB at 1 GB, every format" % T_RSS, "largest %.1f MiB (%s)" % (rss, what), "-", rss < T_RSS)


def diff_part(v, tc, outdir, runs):
    events = 200000
    # Three times the rounds: each command takes under a second, and the
    # ratio of two sub-second CPU times moves by a third from round to
    # round on a shared machine.
    runs *= 3
    print("\n## diff, %d events, 3 differ (%d rounds)\n" % (events, runs))
    a = os.path.join(outdir, "diff-a-%d.jsonl" % events)
    b = os.path.join(outdir, "diff-b-%d.jsonl" % events)
    golden = os.path.join(outdir, "diff-golden-%d.jsonl" % events)
    speed.gen_trace(a, events, "evt-%03d")
    if not os.path.exists(b):
        speed.change_events(a, b, events)
    if not os.path.exists(golden):
        with open(golden, "wb") as g:
            subprocess.check_call([tc, "normalize", a], stdout=g)
    for p in (a, b, golden):
        speed.warm(p)
    cmds = [("GNU diff", ["diff", a, b], (1,)),
            ("diff", [tc, "diff", a, b], (1,)),
            ("diff --normalize", [tc, "diff", "--normalize", golden, b], (1,))]
    res = speed.rounds(cmds, runs)
    for label, _, _ in cmds:
        print("  %-17s CPU %s s, wall %s s, peak RSS %.1f MiB" % (
            label, mr([m["cpu"] for m in res[label]], "%.3f"), mr([m["wall"] for m in res[label]], "%.3f"), max(m["rss"] for m in res[label])))
    norm = speed.paired(res, "diff --normalize", "diff")
    norm_rss = max(m["rss"] for m in res["diff --normalize"])
    v.add("diff --normalize <= %.1fx exact diff (CPU)" % T_NORMALIZE, mr(norm) + "x",
          "exact diff %.3f CPU s" % statistics.median([m["cpu"] for m in res["diff"]]), statistics.median(norm) <= T_NORMALIZE)
    v.add("diff --normalize < %.0f MiB at 200k events" % T_NORMALIZE_RSS, "%.1f MiB" % norm_rss, "-", norm_rss < T_NORMALIZE_RSS)
    gnu = speed.paired(res, "diff", "GNU diff", "wall")
    gnu_cpu = speed.paired(res, "diff", "GNU diff")
    v.add("exact diff <= GNU diff (wall)", mr(gnu) + "x (CPU: %s x)" % mr(gnu_cpu),
          "GNU diff %s s wall, peak RSS %.0f MiB" % (mr([m["wall"] for m in res["GNU diff"]], "%.3f"), max(m["rss"] for m in res["GNU diff"])),
          statistics.median(gnu) <= T_GNU)


def side_part(v, tc, outdir, runs):
    events = 1000000
    print("\n## replay --json and fingerprint against the Python peer, %d events, UUID ids (%d rounds)\n" % (events, runs))
    trace = os.path.join(outdir, "trace-%d-uuid.jsonl" % events)
    speed.gen_trace(trace, events, "uuid")
    speed.warm(trace)
    peer = [sys.executable, os.path.join(HERE, "peer.py"), trace, "--json"]
    cmds = [("peer", peer, (0,)),
            ("replay --json", [tc, "replay", "--json", trace], (0,)),
            ("fingerprint", [tc, "fingerprint", trace], (0,))]
    res = speed.rounds(cmds, runs)
    # The outputs must agree (bench/run.py checks the whole view; here the
    # fingerprint, once).
    fp = subprocess.run([tc, "fingerprint", trace], check=True, capture_output=True).stdout.decode().strip()
    out = subprocess.run(peer, check=True, capture_output=True).stdout
    agree = ('"fingerprint":"%s"' % fp).encode() in out
    del out
    print("  fingerprints agree: %s (%s)" % (agree, fp))
    pw = [m["wall"] for m in res["peer"]]
    pc = [m["cpu"] for m in res["peer"]]
    print("  peer: wall %s s, CPU %s s, peak RSS %.0f MiB" % (mr(pw, "%.1f"), mr(pc, "%.1f"), max(m["rss"] for m in res["peer"])))
    for label in ("replay --json", "fingerprint"):
        w = [m["wall"] for m in res[label]]
        c = [m["cpu"] for m in res[label]]
        rss = max(m["rss"] for m in res[label])
        xw = speed.paired(res, "peer", label, "wall")
        xc = speed.paired(res, "peer", label)
        print("  %-13s wall %s s, CPU %s s, peak RSS %.1f MiB; peer/tracecheck wall %s x, CPU %s x" % (
            label, mr(w, "%.2f"), mr(c, "%.2f"), rss, mr(xw, "%.1f"), mr(xc, "%.1f")))
        v.add("%s >= %.0fx the Python peer, UUID ids, 1M events (wall)" % (label, T_PEER), mr(xw, "%.1f") + "x (CPU: %sx)" % mr(xc, "%.1f"),
              "peer %.1f s wall, %.1f CPU s" % (statistics.median(pw), statistics.median(pc)), agree and statistics.median(xw) >= T_PEER)
        v.add("%s < %.0f MiB at 1M UUID events" % (label, T_PEER_RSS), "%.1f MiB" % rss, "peer %.0f MiB" % max(m["rss"] for m in res["peer"]), rss < T_PEER_RSS)


def model_part(v, ml, runs):
    runs *= 3  # each round is two fifths of a second: more of them, for a steadier median
    print("\n## model serve against a plain net/http handler (50 clients, 5,000 requests, %d rounds)\n" % runs)
    for mode in ("whole", "stream"):
        p = subprocess.run([ml, "-server", "pair", "-mode", mode, "-c", "50", "-n", "5000", "-rounds", str(runs)],
                           check=True, capture_output=True, text=True)
        lines = p.stdout.strip().splitlines()
        for l in lines[:-1]:
            print("  " + l)
        last = lines[-1]
        print("  " + last)
        m = re.search(r"model_rps=(\d+) \((\d+)-(\d+)\) plain_rps=(\d+) \((\d+)-(\d+)\) model/plain=([\d.]+) \(([\d.]+)-([\d.]+)\)", last)
        ratio = float(m.group(7))
        v.add("model serve %s >= %.1fx plain net/http (requests/s, trace written)" % (mode, T_MODEL),
              "%s (%s-%s)x; %s (%s-%s) requests/s" % (m.group(7), m.group(8), m.group(9), m.group(1), m.group(2), m.group(3)),
              "net/http %s (%s-%s) requests/s" % (m.group(4), m.group(5), m.group(6)), ratio >= T_MODEL)


def main(argv):
    args = argv[1:]

    def opt(name, default):
        if name in args:
            i = args.index(name)
            val = args[i + 1]
            del args[i:i + 2]
            return val
        return default

    runs = int(opt("--runs", "5"))
    side_runs = int(opt("--side-runs", "3"))
    outdir = opt("--out", os.path.join(ROOT, "bench", "out"))
    only = opt("--only", "agent,rss,diff,side,model").split(",")
    keep = "--no-keep-rss" not in args
    args = [a for a in args if a != "--no-keep-rss"]
    if len(args) != 2:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("Usage:")))
    tc, ml = os.path.abspath(args[0]), os.path.abspath(args[1])
    os.makedirs(outdir, exist_ok=True)
    cpu = speed.processor()
    print("machine: %s, %d cores, load average %.2f %.2f %.2f before; python %s" % (
        (cpu, os.cpu_count()) + os.getloadavg() + (sys.version.split()[0],)))
    v = Verdicts()
    if "agent" in only:
        agent_part(v, tc, outdir, runs)
    if "rss" in only:
        rss_part(v, tc, outdir, keep)
    if "diff" in only:
        diff_part(v, tc, outdir, runs)
    if "side" in only:
        side_part(v, tc, outdir, side_runs)
    if "model" in only:
        model_part(v, ml, runs)
    print("\n## issue 25: targets against their peers, measured in this run\n")
    print("machine: %s, %d cores, load average %.2f %.2f %.2f after" % ((cpu, os.cpu_count()) + os.getloadavg()))
    print(v.table())
    if v.failed():
        print("\nsome targets are NOT met")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
