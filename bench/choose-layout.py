#!/usr/bin/env python3
"""choose-layout measured, not only predicted (issue 46, item 5). For each
model: costs=measure (costs-out keeps the table), then the module as
written, every uniform layout (every conv2d and pool in one candidate, as
convert-layout{...},plan,fold makes it), greedy (each call's fastest kernel
by the table, then plan: choose-layout on a table holding each workload's
fastest layout alone) and the choice, each run with `lopt --run -j1`; the
runs alternate between the variants, and each variant's median wall time
is printed beside choose-layout's prediction for it.
Usage: choose-layout.py [--lopt ./lopt] [--reps N] MODEL.tir ..."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

CANDS = {"NCHW": ("NCHW:OIHW", "NCHW"), "NHWC": ("NHWC:OHWI", "NHWC"),
         "NCHW4c": ("NCHW4c:OIHW4o", "NCHW4c"), "NCHW8c": ("NCHW8c:OIHW8o", "NCHW8c")}
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}
TIME = r"([0-9.e+]+)(ns|us|ms)"


def spec():
    conv = "|".join(c for c, _ in CANDS.values())
    pool = "|".join(p for _, p in CANDS.values())
    return "conv2d=%s,max_pool2d=%s,avg_pool2d=%s" % (conv, pool, pool)


def secs(m):
    return float(m[0]) * UNIT[m[1]]


def lopt_out(lopt, args, path):
    p = subprocess.run([lopt] + args + [path], capture_output=True, text=True)
    if p.returncode:
        sys.exit("lopt %s %s: %s" % (" ".join(args), path, p.stderr[-500:]))
    return p


def greedy_table(table, out):
    best = {}
    for line in open(table):
        w = line.split()
        if len(w) >= 4 and w[0] == "kernel":
            t = float(re.match(TIME, w[3]).group(1)) * UNIT[re.match(TIME, w[3]).group(2)]
            if w[1] not in best or t < best[w[1]][0]:
                best[w[1]] = (t, line)
    with open(out, "w") as f:
        for line in open(table):
            if not line.startswith("kernel"):
                f.write(line)
        for _, line in best.values():
            f.write(line)


def bench(lopt, model, reps, tmp):
    table = os.path.join(tmp, "measured.costs")
    t0 = time.time()
    p = lopt_out(lopt, ["--pass=choose-layout{%s,costs=measure,costs-out=%s}" % (spec(), table), "--explain"], model)
    measuring = time.time() - t0
    line = re.search(r"main: predicted " + TIME + r".*? against (?:" + TIME + r"|no time) as written(.*?); lower bound", p.stderr)
    predicted = {"chosen": secs(line.groups()[0:2])}
    if line.group(3):
        predicted["written"] = secs(line.groups()[2:4])
    for lay, t, u in re.findall(r"uniform (\w+) " + TIME, line.group(5)):
        predicted[lay] = secs((t, u))
    g = re.search(r"greedy " + TIME, line.group(5))
    if g:
        predicted["greedy"] = secs(g.groups())
    gtable = os.path.join(tmp, "greedy.costs")
    greedy_table(table, gtable)
    variants = {"written": None,
                "chosen": "choose-layout{%s,costs=%s},plan,fold" % (spec(), table),
                "greedy": "choose-layout{%s,costs=%s},plan,fold" % (spec(), gtable)}
    for lay, (conv, pool) in CANDS.items():
        if lay != "NCHW":
            variants[lay] = "convert-layout{conv2d=%s,max_pool2d=%s,avg_pool2d=%s},plan,fold" % (conv, pool, pool)
    files = {}
    for name, pipe in variants.items():
        files[name] = os.path.join(tmp, name + ".tir")
        if pipe is None:
            files[name] = model
        else:
            with open(files[name], "w") as f:
                f.write(lopt_out(lopt, ["--pass=" + pipe], model).stdout)
    runs = {n: [] for n in variants}
    for _ in range(reps):
        for n in variants:
            t = time.time()
            lopt_out(lopt, ["--run", "-j1"], files[n])
            runs[n].append(time.time() - t)
    print("%s (measuring the table: %.1f s)" % (model, measuring))
    med = {n: statistics.median(r) for n, r in runs.items()}
    for n in variants:
        pr = predicted.get("NCHW" if n == "written" else n)
        pr = predicted.get(n, pr)
        print("  %-8s run %.3f s (%+.1f%% against chosen)   predicted kernels+rewrites %s" % (
            n, med[n], 100 * (med[n] / med["chosen"] - 1), "%.4f s" % pr if pr is not None else "-"))
    worse = [n for n in variants if med["chosen"] > med[n] * 1.05]
    print("  chosen within 5%% of every variant: %s" % ("yes" if not worse else "no, slower than " + ", ".join(worse)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lopt", default="./lopt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for m in a.models:
            bench(a.lopt, m, a.reps, tmp)


if __name__ == "__main__":
    main()
