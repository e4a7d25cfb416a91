#!/usr/bin/env python3
"""fuzz_batch.py: batched loops against loops run one iteration at a time.

Each case is a PrimFunc of one to three nested loops (extents 2 to 12) over
a 32x32 input A of a random dtype (float32, float64, float16, int32, int8)
and output B, whose body is one store: an elementwise expression of loads
with indices such as i + 1, j // 2, k % 3 or i + j (a few out of bounds,
some under a T.if_then_else guard, some reading B itself, as in place),
constants (some inexact, as 0.1), casts, +, -, *, / or //, T.max and (for
floats) T.exp; or, in a block, a reduction B[i, 0] = B[i, 0] + e (often
e = a * b), or T.max, with T.init; B first holds A transposed. It is run
with `--run` and with `--run --no-batch`: the two must print the same
outputs and the same error, with the same exit status. Anything else fails.

usage: fuzz_batch.py [--lopt PATH] [--cases N] [--seed S]"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

N = 32


def expr(rng, dt, loops, depth):
    isf = dt.startswith("float")

    def index():
        v = rng.choice(loops)
        if rng.random() < 0.05:
            return v + " - 1"     # out of bounds at 0
        if rng.random() < 0.2:
            return v + rng.choice([" // 2", " % 3"])
        return v + rng.choice(["", " + 1", " * 2", " + " + rng.choice(loops)])

    def load():
        a, b = index(), index()
        if rng.random() < 0.4:
            buf = "B" if rng.random() < 0.35 else "A"
            if rng.random() < 0.3:
                guard = "%s < %d and 0 <= %s" % (a, N, a)
            elif rng.random() < 0.5:
                guard = "1 <= %s and %s < %d and 0 <= %s and %s < %d" % (a, a, N + 1, b, b, N)
            else:       # zero padding, as a convolution reads it
                guard = "1 <= %s and %s < %d and 1 <= %s and %s < %d" % (a, a, N + 1, b, b, N + 1)
                a, b = a + " - 1", b + " - 1"
            return "T.if_then_else(%s, %s[%s, %s], T.%s(0))" % (guard, buf, a, b, dt)
        return "%s[%s, %s]" % ("B" if rng.random() < 0.25 else "A", a, b)

    if depth == 0 or rng.random() < 0.3:
        r = rng.random()
        if r < 0.6:
            return load()
        if r < 0.8:
            return "T.%s(%s)" % (dt, rng.choice(["0.5", "-1.25", "3", "0.1", "1.0000001"] if isf else ["3", "-2", "1"]))
        return 'T.Cast("%s", %s)' % (dt, rng.choice(loops))
    if rng.random() < 0.15:
        return "T.max(%s, %s)" % (expr(rng, dt, loops, depth - 1), expr(rng, dt, loops, depth - 1))
    if isf and rng.random() < 0.15:
        return "T.exp(%s)" % expr(rng, dt, loops, depth - 1)
    op = rng.choice([" + ", " - ", " * ", " / " if isf else " // "])
    return "(" + expr(rng, dt, loops, depth - 1) + op + expr(rng, dt, loops, depth - 1) + ")"


def module(rng):
    dt = rng.choice(["float32", "float32", "float64", "float16", "int32", "int8"])
    nl = rng.randint(1, 3)
    loops = ["i", "j", "k"][:nl]
    grid = "for %s in T.grid(%s):" % (", ".join(loops), ", ".join(str(rng.randint(2, 12)) for _ in loops))
    if nl >= 2 and rng.random() < 0.5:
        out = "B[vi, 0]"
        e = expr(rng, dt, loops, 2)
        if rng.random() < 0.5:      # C + a * b, each product rounded
            e = "%s * %s" % (e, expr(rng, dt, loops, 1))
        e = re.sub(r"\b([ijk])\b", r"v\1", e)
        if rng.random() < 0.5:
            val, init = "%s + %s" % (out, e), "0"
        else:
            val, init = "T.max(%s, %s)" % (out, e), "-100"
        body = ["        " + grid,
                '            with T.block("B"):',
                '                %s = T.axis.remap("S%s", [%s])' % (", ".join("v" + v for v in loops), "R" * (nl - 1),
                                                                     ", ".join(loops)),
                "                with T.init():",
                "                    %s = T.%s(%s)" % (out, dt, init),
                "                %s = %s" % (out, val)]
    else:
        if rng.random() < 0.3:
            store = "B[%s + 1, %s // 2]" % (rng.choice(loops), rng.choice(loops))
        else:
            store = "B[%s, %s]" % (loops[0], loops[-1])
        body = ["        " + grid, "            %s = %s" % (store, expr(rng, dt, loops, 3))]
    # B starts as A transposed (not poison, whose NaN would hide what is read)
    body = ["        for i0, j0 in T.grid(%d, %d):" % (N, N), "            B[i0, j0] = A[j0, i0]"] + body
    t = 'R.Tensor((%d, %d), dtype="%s")' % (N, N, dt)
    return ("@I.ir_module\nclass Module:\n    @R.function\n"
            "    def main(a: %s) -> %s:\n        cls = Module\n"
            "        y = R.call_tir(cls.f, (a,), out_sinfo=%s)\n        return y\n\n"
            "    @T.prim_func\n    def f(A: T.Buffer((%d, %d), \"%s\"), B: T.Buffer((%d, %d), \"%s\")):\n"
            % (t, t, t, N, N, dt, N, N, dt)) + "\n".join(body) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lopt", default=os.path.join(os.path.dirname(__file__), "..", "..", "lopt"))
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    fails = ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.tir")
        for s in range(args.seed, args.seed + args.cases):
            src = module(random.Random(s))
            with open(path, "w") as f:
                f.write(src)
            r = [subprocess.run([args.lopt, "--run"] + extra + [path], capture_output=True, text=True)
                 for extra in ([], ["--no-batch"])]
            ran += r[1].returncode == 0
            bad = [x for x in r if x.returncode not in (0, 1) or "Sanitizer" in x.stderr or "runtime error" in x.stderr]
            if bad or (r[0].stdout, r[0].stderr, r[0].returncode) != (r[1].stdout, r[1].stderr, r[1].returncode):
                fails += 1
                print("FAIL fuzz_batch seed %d:\n%s" % (s, src))
                for name, x in zip(("batches", "--no-batch"), r):
                    print("%s: exit %d\n%s%s" % (name, x.returncode, x.stdout, x.stderr[:2000]))
    print("fuzz-batch: %d cases (seed %d): %d ran, the others stopped with an error; %d failing"
          % (args.cases, args.seed, ran, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
