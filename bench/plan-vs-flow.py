#!/usr/bin/env python3
"""plan against flow on random models: for each model of the model fuzzer's
generator (testsuite/fuzz/modelgen.py) and each desired layout, runs
convert-layout{...},flow,fold and convert-layout{...},plan,fold and measures the rewrites left and the
bytes they read and write as plan's model does (see cost()). Prints how often each is ahead, by how much, and
the seeds where flow,fold is furthest behind (and any where plan is).
Usage: plan-vs-flow.py [--lopt ./lopt] [--start N] [--count N]"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "testsuite", "fuzz"))
import modelgen  # noqa: E402

LAYOUTS = {
    "NHWC": "conv2d=NHWC:HWIO,max_pool2d=NHWC,avg_pool2d=NHWC",
    "NCHW4c": "conv2d=NCHW4c:OIHW4o,max_pool2d=NCHW4c,avg_pool2d=NCHW4c",
}


SUMMARY = re.compile(r"as written: (\d+) bytes \((\d+) rewrites\)")


def cost(lopt, path, pipeline):
    """The rewrites the pipeline leaves and the bytes they read and write,
    measured as plan measures a module as written: one rewrite per value and
    distinct layout asked of it (R.layout_transform, and the R.nn.pad or
    crop fold composes from rewrites, alike), constants free."""
    r = subprocess.run([lopt, "--pass=" + pipeline, path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None
    r = subprocess.run([lopt, "--pass=plan", "--explain", "-"], input=r.stdout, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        return None
    n = b = 0
    for m in SUMMARY.finditer(r.stderr):
        b += int(m.group(1))
        n += int(m.group(2))
    return n, b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lopt", default=os.path.join(top, "lopt"))
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--count", type=int, default=500)
    a = ap.parse_args()
    stats = {lay: {"runs": 0, "flow_worse": 0, "plan_worse": 0, "equal": 0, "bytes": 0, "rewrites": 0,
                   "worst": [], "failed": 0} for lay in LAYOUTS}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.tir")
        for seed in range(a.start, a.start + a.count):
            with open(path, "w") as f:
                f.write(modelgen.generate(seed).text())
            for lay, opts in LAYOUTS.items():
                s = stats[lay]
                fl = cost(a.lopt, path, "convert-layout{%s},flow,fold" % opts)
                pl = cost(a.lopt, path, "convert-layout{%s},plan,fold" % opts)
                if fl is None or pl is None:
                    s["failed"] += 1
                    continue
                s["runs"] += 1
                if (fl[1], fl[0]) > (pl[1], pl[0]):
                    s["flow_worse"] += 1
                    s["bytes"] += fl[1] - pl[1]
                    s["rewrites"] += fl[0] - pl[0]
                    s["worst"].append((fl[1] - pl[1], fl[0] - pl[0], seed))
                elif (fl[1], fl[0]) < (pl[1], pl[0]):
                    s["plan_worse"] += 1
                    s["worst"].append((fl[1] - pl[1], fl[0] - pl[0], seed))
                else:
                    s["equal"] += 1
    for lay, s in stats.items():
        n = max(s["runs"], 1)
        print("%-7s %d models: flow,fold behind plan,fold on %d (%.1f%%, %d bytes and %d rewrites in all), "
              "plan behind on %d, equal on %d, %d runs failed" % (lay, s["runs"], s["flow_worse"],
              100.0 * s["flow_worse"] / n, s["bytes"], s["rewrites"], s["plan_worse"], s["equal"], s["failed"]))
        w = sorted(s["worst"], reverse=True)
        if w:
            print("        furthest behind (bytes, rewrites, seed): %s" % ", ".join("%d B %+d @%d" % x for x in w[:5]))
        behind = [x for x in w if x[0] < 0 or (x[0] == 0 and x[1] < 0)]
        if behind:
            print("        plan behind (bytes, rewrites, seed): %s" % ", ".join("%d B %+d @%d" % x for x in behind[-5:]))


if __name__ == "__main__":
    main()
