#!/usr/bin/env python3
"""fuzz_weight_layout.py: random schedule steps for weight-layout.

Each case is a module whose PrimFunc reads a constant weight of a random
shape (rank 1 to 3, extents 1 to 7) in an elementwise add or in a reduction
over its last axis, and a random sequence of 1 to 5 steps (splits by 1 to 5
with and without padding and pad values, reorders, fuses), with or without
keep-body=1 and form=layout-transform, run as `weight-layout{...},fold` under
--verify-exec. A case passes when the pass converts the weight (or finds
that the steps compose to the identity) and every output stays bit-exact, or
when it stops with an error about the steps (such as padding beyond 16 times).
Anything else (a crash, a sanitizer report, a wrong output, a refusal) fails.

usage: fuzz_weight_layout.py [--lopt PATH] [--cases N] [--seed S]"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def tensor(shape):
    return 'R.Tensor((%s%s), dtype="float32")' % (", ".join(map(str, shape)), "," if len(shape) == 1 else "")


def const(shape, rng):
    if not shape:
        return str(rng.randint(-8, 8) / 4)
    return "[%s]" % ", ".join(const(shape[1:], rng) for _ in range(shape[0]))


def buffer(shape):
    return "T.Buffer((%s%s), \"float32\")" % (", ".join(map(str, shape)), "," if len(shape) == 1 else "")


def prim(shape, reduce):
    n = len(shape)
    it = "ijk"[:n]
    vs = ["v" + c for c in it]
    idx = ", ".join(vs)
    if reduce:
        out = shape[:-1] or [1]
        oidx = ", ".join(vs[:-1]) or "0"
        return f'''    @T.prim_func
    def f(X: {buffer(out)}, W: {buffer(shape)}, Y: {buffer(out)}):
        for {", ".join(it)} in T.grid({", ".join(map(str, shape))}):
            with T.block("sum"):
                {idx} = T.axis.remap("{"S" * (n - 1)}R", [{", ".join(it)}])
                with T.init():
                    Y[{oidx}] = X[{oidx}]
                Y[{oidx}] = Y[{oidx}] + W[{idx}] * T.float32(2)
''', out
    return f'''    @T.prim_func
    def f(X: {buffer(shape)}, W: {buffer(shape)}, Y: {buffer(shape)}):
        for {", ".join(it)} in T.grid({", ".join(map(str, shape))}):
            with T.block("add"):
                {idx} = T.axis.remap("{"S" * n}", [{", ".join(it)}])
                T.reads(X[{idx}], W[{idx}])
                T.writes(Y[{idx}])
                Y[{idx}] = X[{idx}] + W[{idx}]
''', shape


def steps_for(shape, rng):
    steps, cur = [], list(shape)
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(["split", "split", "reorder", "fuse"])
        if kind == "split" and len(cur) < 6:
            a, f = rng.randrange(len(cur)), rng.randint(1, 5)
            steps.append("split=%d:%d%s" % (a, f, rng.choice(["", ":0", ":-1.5"])))
            cur[a:a + 1] = [-(-cur[a] // f), f]
        elif kind == "reorder":
            p = list(range(len(cur)))
            rng.shuffle(p)
            steps.append("reorder=" + ":".join(map(str, p)))
            cur = [cur[i] for i in p]
        elif kind == "fuse" and len(cur) > 1:
            a = rng.randrange(len(cur) - 1)
            steps.append("fuse=%d" % a)
            cur[a:a + 2] = [cur[a] * cur[a + 1]]
    return steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lopt", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "lopt-check"))
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    converted = errors = failures = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.tir")
        for case in range(args.cases):
            shape = [rng.randint(1, 7) for _ in range(rng.randint(1, 3))]
            body, out = prim(shape, rng.random() < 0.3 and len(shape) > 1)
            steps = steps_for(shape, rng)
            if not steps:
                continue
            opts = ",".join(["func=f", "buffer=W"] + steps + rng.choice([[], ["keep-body=1"]]) +
                            rng.choice([[], ["form=layout-transform"]]))
            with open(path, "w") as f:
                f.write(f'''@I.ir_module
class Module:
    @R.function
    def main(x: {tensor(out)}) -> {tensor(out)}:
        cls = Module
        with R.dataflow():
            w: {tensor(shape)} = R.const({const(shape, rng)}, "float32")
            gv = R.call_tir(cls.f, (x, w), out_sinfo={tensor(out)})
            R.output(gv)
        return gv

''' + body)
            r = subprocess.run([args.lopt, "--pass=weight-layout{%s},fold" % opts, "--verify-exec", "--explain", path],
                               capture_output=True, text=True)
            ok_error = r.returncode == 1 and ": error: weight-layout: step" in r.stderr
            sanitized = "Sanitizer" in r.stderr or "runtime error" in r.stderr
            if r.returncode == 0 and ("converted W" in r.stderr or "compose to the identity" in r.stderr) and not sanitized:
                converted += 1
            elif ok_error and not sanitized:
                errors += 1
            else:
                failures += 1
                print("fuzz-weight-layout: FAILED case %d: shape %s, weight-layout{%s}" % (case, shape, opts))
                print("\n".join(r.stderr.splitlines()[-8:]))
    print("fuzz-weight-layout: %d cases (seed %d): %d converted (or the identity), %d refused with an error about the steps, %d failing"
          % (args.cases, args.seed, converted, errors, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
