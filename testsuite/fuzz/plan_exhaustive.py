#!/usr/bin/env python3
"""plan against every assignment, through the whole pass. On small random
graphs (the model fuzzer's generator, modelgen.py, with convolutions),
converted to NHWC and to NCHW4c (channels that need padding included): the
rank-4 values plan may move (operator calls other than the converted
convolutions and pools, in the module convert-layout,fold leaves) each take
every layout of a menu (as written, NHWC, NCHW4c: padded where C is not a
multiple of 4, with 0 in the padding), and every combination is realized
through the same machinery plan uses (plan{layouts="v=NHWC ..."},fold:
flow's rewrites, then fold; a padded layout moves only through calls that
keep its padding 0, else the value stays as written) and executed (--verify-exec: the outputs are those of the module as
written). The bytes the R.layout_transform calls left read and write are
counted apart from plan (plan_accounts.py); plan,fold on the same module
must leave no more than the cheapest combination.
Usage: plan_exhaustive.py LOPT [--graphs N] [--seed S] [--values K] [--jobs J]
Exit status 1 on a graph where plan leaves more, or where a realized
combination does not run as the module as written does."""
import argparse
import concurrent.futures
import itertools
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.dirname(here))
import modelgen  # noqa: E402
import plan_accounts  # noqa: E402

CONVERSIONS = ("conv2d=NHWC:HWIO", "conv2d=NCHW4c:OIHW4o")
FROZEN = ("R.layout_transform", "R.nn.conv2d", "R.nn.max_pool2d", "R.nn.avg_pool2d", "R.nn.pad", "R.crop")
CALL = re.compile(r"^\s+(\w+)(?::.*?)? = R\.call_tir\(cls\.(\w+), .*out_sinfo=R\.Tensor\(\((\d+), (\d+), (\d+), (\d+)\)")
PRIM = re.compile(r'^    def (\w+)\(')
OP = re.compile(r'"op": "([\w.]+)"')


def movable(lopt, path, conv):
    """The rank-4 values plan may move, with their channels."""
    run = subprocess.run([lopt, "--pass=convert-layout{%s},fold,legalize" % conv, path], capture_output=True,
                         text=True)
    if run.returncode:
        return None
    lines = run.stdout.splitlines()
    ops = {}
    for i, line in enumerate(lines):
        m = PRIM.match(line)
        if m and i + 1 < len(lines):
            o = OP.search(lines[i + 1])
            ops[m.group(1)] = o.group(1) if o else ""
    values = []
    for line in lines:
        m = CALL.match(line)
        if m and ops.get(m.group(2), "") not in FROZEN:
            values.append((m.group(1), int(m.group(4))))
    return values


def rewrites(lopt, path, pipeline, verify):
    """The bytes the module left by pipeline holds in rewrites, or an error text."""
    args = [lopt, "--pass=" + pipeline, path] + (["--verify-exec"] if verify else [])
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode:
        return None, run.stderr.strip().splitlines()[-1:] or ["exit %d" % run.returncode]
    got = plan_accounts.held(lopt, run.stdout)
    if got is None:
        return None, ["the module does not fold and legalize"]
    return got[0], None


def one_graph(lopt, seed, k, verify):
    """Checks one generated graph; returns (combinations run, lines to report, whether plan tied the minimum)."""
    try:
        m = modelgen.generate(seed, max_bindings=6)
    except modelgen.Invalid:
        return 0, [], []
    if not modelgen.features(m)["conv"]:
        return 0, [], []
    path = "/tmp/plan_exhaustive_%d_%d.tir" % (os.getpid(), seed)
    with open(path, "w") as f:
        f.write(m.text())
    runs, bad, ties = 0, [], []
    try:
        for conv in CONVERSIONS:
            values = movable(lopt, path, conv)
            if not values:
                continue
            values = values[:k]
            menus = [[None, "NHWC", "NCHW4c"] for _ in values]
            best, best_at = None, None
            for choice in itertools.product(*menus):
                spec = " ".join("%s=%s" % (v, lay) for (v, _), lay in zip(values, choice) if lay)
                pipe = "convert-layout{%s},%s,fold" % (conv, 'plan{layouts="%s"}' % spec if spec else "fold")
                b, err = rewrites(lopt, path, pipe, verify)
                runs += 1
                if err:
                    bad.append("seed %d, %s, %s: the combination does not run as written: %s" % (
                        seed, conv, spec or "as written", err[0]))
                    continue
                if best is None or b < best:
                    best, best_at = b, spec or "as written"
            p, err = rewrites(lopt, path, "convert-layout{%s},plan,fold" % conv, verify)
            if err:
                bad.append("seed %d, %s: plan,fold fails: %s" % (seed, conv, err[0]))
            elif best is not None and p > best:
                bad.append("seed %d, %s: plan leaves %d bytes, the combination %s leaves %d" % (
                    seed, conv, p, best_at, best))
            elif best is not None:
                ties.append(p == best)
    finally:
        os.unlink(path)
    return runs, bad, ties


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lopt")
    ap.add_argument("--graphs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--values", type=int, default=4, help="values varied per graph (3 layouts each)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-exec", action="store_true", help="do not execute the combinations")
    ap.add_argument("--known", help="a file of 'SEED CONVERSION' lines where plan is known to leave more bytes "
                    "than the cheapest combination: reported, not failed (any other finding fails)")
    a = ap.parse_args()
    known = set()
    if a.known:
        with open(a.known) as f:
            known = {tuple(l.split()[:2]) for l in f if l.strip() and not l.startswith("#")}
    lopt = os.path.abspath(a.lopt)
    graphs = runs = 0
    bad, ties = [], []
    seed = a.seed
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        while graphs < a.graphs:
            batch = list(range(seed, seed + 4 * a.jobs))
            seed += len(batch)
            for r, b, t in pool.map(lambda s: one_graph(lopt, s, a.values, not a.no_exec), batch):
                if r and graphs < a.graphs:
                    graphs += 1
                    runs += r
                    bad += b
                    ties += t
    worse_known = []
    for line in bad:
        m = re.match(r"seed (\d+), (\S+): plan leaves", line)
        if m and (m.group(1), m.group(2)) in known:
            worse_known.append(line)
            print("known: " + line)
        else:
            print("FAIL " + line)
    print("plan exhaustive: %d graphs (seeds from %d), %d conversions of them, %d combinations realized%s: plan "
          "leaves as few bytes as the cheapest on %d, fewer on %d (it also moves values past the menu), more on %d" % (
              graphs, a.seed, len(ties), runs, "" if a.no_exec else " and executed", sum(ties),
              len(ties) - sum(ties), sum(1 for b in bad if "plan leaves" in b)))
    if worse_known:
        print("plan exhaustive: %d of the findings are known (%s); plan is not optimal there" % (len(worse_known), a.known))
    return 1 if len(bad) > len(worse_known) else 0


if __name__ == "__main__":
    sys.exit(main())
