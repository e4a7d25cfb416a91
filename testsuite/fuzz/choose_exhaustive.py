#!/usr/bin/env python3
"""choose-layout against every assignment. On small random graphs (2 to 4
conv2d and max_pool2d calls, relu and add between them, each convolution of
its own workload) with random cost tables (kernel times for random
candidates, random rewrite lines, a random ns-per-byte), every assignment of
a timed candidate to each call is priced by choose-layout itself with a
table holding that candidate's time alone for each call (what --explain
predicts then is the assignment's cost, the rewrites placed best), and the
choice with the whole table must cost no more than the cheapest of them.
The chosen module, through plan and fold, must run as the module as written
does (--verify-exec).
Usage: choose_exhaustive.py LOPT [--graphs N] [--seed S] [--jobs J]
Exit status 1 on a graph where an assignment is cheaper than the choice, or
where the chosen module does not run as written."""
import argparse
import concurrent.futures
import itertools
import os
import random
import re
import subprocess
import sys
import tempfile

CONV_CANDS = ("NCHW:OIHW", "NHWC:OHWI", "NCHW4c:OIHW4o", "NCHW8c:OIHW8o")
POOL_CANDS = ("NCHW", "NHWC", "NCHW4c")
PREDICTED = re.compile(r"choose-layout: main: predicted ([0-9.e+]+)(ns|us|ms)")
UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6}


def gen(rng):
    """A module and its calls: (kind, workload, binding name)."""
    c = rng.choice((8, 16))
    hw = rng.choice((4, 6))
    params = ['x: R.Tensor((1, %d, %d, %d), dtype="float32")' % (c, hw, hw)]
    lines, calls, vals = [], [], ["x"]
    n = rng.randint(2, 4)
    for i in range(n):
        src = vals[-1]
        kind = "conv" if i == 0 or rng.random() < 0.7 or hw < 4 else "pool"
        name = "lv%d" % len(lines)
        if kind == "conv":
            oc = rng.choice((8, 16)) + 0 * i
            # each convolution its own workload: its own output channels and kernel size
            k = 1 + 2 * (i % 2)
            oc = 8 * (i + 1) if rng.random() < 0.5 else 8 * (i + 1) + 8
            params.append('w%d: R.Tensor((%d, %d, %d, %d), dtype="float32")' % (i, oc, c, k, k))
            pad = k // 2
            lines.append('%s = R.nn.conv2d(%s, w%d, padding=[%d, %d, %d, %d], out_dtype="float32")'
                         % (name, src, i, pad, pad, pad, pad))
            wl = "conv2d(1x%dx%dx%d,%dx%dx%dx%d,float32,strides=1x1,padding=%dx%dx%dx%d,dilation=1x1,groups=1)" % (
                c, hw, hw, oc, c, k, k, pad, pad, pad, pad)
            c = oc
        else:
            lines.append("%s = R.nn.max_pool2d(%s, pool_size=[2, 2], strides=[2, 2])" % (name, src))
            wl = "max_pool2d(1x%dx%dx%d,float32,pool_size=2x2,strides=2x2,padding=0x0x0x0,dilation=1x1,ceil_mode=0)" % (
                c, hw, hw)
            hw //= 2
        calls.append((kind, wl, name, c, hw))
        vals.append(name)
        r = rng.random()
        if r < 0.4:
            lines.append("lv%d = R.nn.relu(%s)" % (len(lines), name))
            vals.append("lv%d" % (len(lines) - 1))
        elif r < 0.6 and len(vals) > 2 and calls[-1][3] == c:
            lines.append("lv%d = R.add(%s, %s)" % (len(lines), name, name))
            vals.append("lv%d" % (len(lines) - 1))
    out = vals[-1]
    body = "\n".join("            " + ln for ln in lines)
    text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s) -> R.Tensor((1, %d, %d, %d), dtype=\"float32\"):\n"
            "        with R.dataflow():\n%s\n            gv = R.nn.relu(%s)\n            R.output(gv)\n        return gv\n"
            % (", ".join(params), c, hw, hw, body, out))
    return text, calls


def table(rng, calls):
    """Random candidates per call kind, a random table: {(workload, layout): ns}, rewrite lines, ns-per-byte."""
    conv = ["NCHW:OIHW"] + rng.sample(CONV_CANDS[1:], rng.randint(1, 2))
    pool = ["NCHW"] + rng.sample(POOL_CANDS[1:], rng.randint(0, 2))
    kern = {}
    for kind, wl, _, _, _ in calls:
        for lay in conv if kind == "conv" else pool:
            if rng.random() < 0.85:
                kern[(wl, lay)] = rng.randint(1, 400) * 100.0
    rw = []
    for kind, wl, _, c, hw in calls:
        if rng.random() < 0.5:
            a, b = rng.sample(("NCHW", "NHWC", "NCHW4c"), 2)
            rw.append("rewrite float32[1x%dx%dx%d] %s %s %dns" % (c, hw, hw, a, b, rng.randint(1, 20000)))
    npb = rng.choice((0.05, 0.25, 1.0, 4.0))
    return conv, pool, kern, rw, npb


def write_table(path, kern, rw, npb):
    with open(path, "w") as f:
        f.write("ns-per-byte %g\n" % npb)
        for (wl, lay), ns in sorted(kern.items()):
            f.write("kernel %s %s %gns\n" % (wl, lay, ns))
        for line in rw:
            f.write(line + "\n")


def predicted(lopt, model, spec, tpath, extra=""):
    p = subprocess.run([lopt, "--pass=choose-layout{%s,costs=%s}%s" % (spec, tpath, extra), "--explain", model],
                       capture_output=True, text=True, timeout=120)
    m = PREDICTED.search(p.stderr)
    return p, (float(m.group(1)) * UNIT[m.group(2)] if m else None)


def check(lopt, seed, tmp):
    rng = random.Random(seed)
    text, calls = gen(rng)
    conv, pool, kern, rw, npb = table(rng, calls)
    model = os.path.join(tmp, "m%d.tir" % seed)
    with open(model, "w") as f:
        f.write(text)
    kinds = {k for k, *_ in calls}
    spec = ",".join((["conv2d=" + "|".join(conv)] if "conv" in kinds else []) +
                    (["max_pool2d=" + "|".join(pool)] if "pool" in kinds else []))
    tpath = os.path.join(tmp, "t%d.costs" % seed)
    write_table(tpath, kern, rw, npb)
    p, best = predicted(lopt, model, spec, tpath, ",plan,fold")
    p2 = subprocess.run([lopt, "--pass=choose-layout{%s,costs=%s},plan,fold" % (spec, tpath), "--verify-exec", model],
                        capture_output=True, text=True, timeout=120)
    if p2.returncode != 0:
        return "seed %d: the chosen module does not run as written: %s" % (seed, p2.stderr[-400:])
    # every assignment of timed candidates (a call with none stays as written)
    menus = []
    for kind, wl, *_ in calls:
        timed = [lay for lay in (conv if kind == "conv" else pool) if (wl, lay) in kern]
        menus.append(timed or [None])
    cheapest = None
    for pick in itertools.product(*menus):
        one = {(wl, lay): kern[(wl, lay)] for (kind, wl, *_), lay in zip(calls, pick) if lay}
        apath = os.path.join(tmp, "a%d.costs" % seed)
        write_table(apath, one, rw, npb)
        _, cost = predicted(lopt, model, spec, apath)
        if cost is not None and (cheapest is None or cost < cheapest):
            cheapest = cost
    if best is None and cheapest is None:
        return None
    if best is None or (cheapest is not None and best > cheapest * (1 + 1e-5) + 1e-3):
        return "seed %d: the choice costs %s, an assignment %s" % (seed, best, cheapest)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lopt")
    ap.add_argument("--graphs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for r in ex.map(lambda s: check(a.lopt, s, tmp), range(a.seed, a.seed + a.graphs)):
            if r:
                bad += 1
                print("FAIL choose_exhaustive: " + r)
    print("choose_exhaustive: %d graphs, %d failed" % (a.graphs, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
