#!/usr/bin/env python3
"""Times convert-layout{...},flow,fold against convert-layout{...},plan,fold
on random graphs of N operators (the model fuzzer's generator,
testsuite/fuzz/modelgen.py, asked for N bindings; every value nothing reads
is an output, so the whole graph is live), and on the files named. For each
model and each desired layout: the median of 3 runs of the CPU seconds
(user + sys) lopt takes, and the rewrites each pipeline leaves.
Usage: plan-random.py [--lopt ./lopt] [--ops N] [--seeds S,S,...] [FILE ...]"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(top, "testsuite", "fuzz"))
import modelgen  # noqa: E402

LAYOUTS = {"NCHW4c": "conv2d=NCHW4c:OIHW4o", "NHWC": "conv2d=NHWC:HWIO"}


def live_graph(seed, n):
    m = modelgen.generate(seed, max_bindings=n)
    used = {a for b in m.bindings for a in b.args}
    sinks = [b.name for b in m.bindings if isinstance(b.type, modelgen.TT) and b.name not in used]
    m.outputs = list(dict.fromkeys(m.outputs + sinks))
    m.check()
    return m


def cpu_run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode:
        sys.exit("lopt failed: %s\n%s" % (" ".join(cmd), run.stderr[-2000:]))
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, run.stdout


def measure(lopt, path):
    for name, conv in LAYOUTS.items():
        row = []
        for p in ("flow", "plan"):
            cmd = [lopt, "--pass=convert-layout{%s},%s,fold" % (conv, p), path]
            times, out = [], ""
            for _ in range(3):
                t, out = cpu_run(cmd)
                times.append(t)
            row.append((sorted(times)[1], len(re.findall(r"= R\.layout_transform\(", out))))
        (tf, nf), (tp, np_) = row
        print("%s %s: flow,fold %.3f s (%d rewrites left), plan,fold %.3f s (%d left), plan/flow %.2fx" % (
            os.path.basename(path), name, tf, nf, tp, np_, tp / tf if tf else float("nan")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lopt", default=os.path.join(top, "lopt"))
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for s in [int(x) for x in a.seeds.split(",") if x]:
            m = live_graph(s, a.ops)
            path = os.path.join(tmp, "random%d_%d.tir" % (a.ops, s))
            with open(path, "w") as f:
                f.write(m.text())
            print("random graph, seed %d: %d bindings, %d outputs" % (s, len(m.bindings), len(m.outputs)))
            measure(a.lopt, path)
        for f in a.files:
            measure(a.lopt, f)


if __name__ == "__main__":
    main()
