#!/usr/bin/env python3
"""lopt's convert-layout against TVM's ConvertLayout, case by case, on the
verify() calls of TVM's tests/python/relax/test_transform_convert_layout.py.

Each verify(Input, Expected, extra_ops) call names a module, TVM's expected
result and the desired layouts ({"relax.nn.conv2d": ["NHWC", "OHWI"]} and
the call's extra ops). Its modules are written (outside the repository)
to DIR/<test>.<Class>.tir; then lopt runs
`convert-layout{conv2d=D:K,...[,policy=tvm]},flow,fold --verify-exec` on
Input, and the rewrites left in main (R.layout_transform, R.permute_dims,
R.nn.pad, R.pad, R.crop, R.strided_slice calls) are counted against those
in TVM's Expected main: fewer is better, equal a match, more worse. Both
modules then run (--run --seed 1): equal outputs are counted too, and the
pipeline once more with --verify-exec (counted apart: operands of which
only the rank is known may not run on the shapes the seed draws).

    python3 bench/tvm-convert-layout.py --git /path/to/tvm.git DIR [--lopt ./lopt] [--policy tvm] [-v]
"""
import argparse
import ast
import os
import re
import sys

import tvmtests
from tvmtests import first_error, lopt, main_text

TEST = "tests/python/relax/test_transform_convert_layout.py"
REWRITES = re.compile(r"\bR\.(layout_transform|permute_dims|nn\.pad|pad|crop|strided_slice)\(")
OPS = {"relax.nn.conv2d": "conv2d", "relax.nn.max_pool2d": "max_pool2d", "relax.nn.avg_pool2d": "avg_pool2d",
       "relax.nn.adaptive_avg_pool2d": "adaptive_avg_pool2d", "relax.image.resize2d": "resize2d",
       "relax.nn.conv2d_transpose": "conv2d_transpose"}


def cases(src, out):
    """(test, input file, expected file, desired layouts) per verify() call; modules written to out."""
    tree = ast.parse(src)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
            continue
        classes = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.ClassDef) and node.decorator_list:
                classes[node.name] = tvmtests.write_module(out, "%s.%s" % (fn.name, node.name), src, node)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "verify"):
                continue
            names = [a.id for a in node.args[:2] if isinstance(a, ast.Name)]
            extra = node.args[2] if len(node.args) > 2 else None
            cb = False
            for kw in node.keywords:
                if kw.arg == "extra_ops":
                    extra = kw.value
                cb = cb or kw.arg == "cb"
            want = {"relax.nn.conv2d": ["NHWC", "OHWI"]}
            if extra is not None:
                want.update(ast.literal_eval(extra))
            if len(names) == 2 and all(n in classes for n in names):
                found.append((fn.name, classes[names[0]], classes[names[1]], want, cb))
    return found


def outputs(args, path):
    rc, out, _ = lopt(args, "--run", "--seed", "1", path)
    return out if rc == 0 else None


def main():
    ap = argparse.ArgumentParser()
    tvmtests.add_args(ap)
    ap.add_argument("--policy", help="convert-layout's policy= option (tvm)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    tally = {}
    for test, inp, exp, want, cb in cases(tvmtests.read_test(args, TEST), args.dir):
        opts = []
        unknown = [k for k in want if k not in OPS]
        for k, v in want.items():
            if k in OPS:
                opts.append("%s=%s" % (OPS[k], ":".join(v)))
        if args.policy:
            opts.append("policy=" + args.policy)
        if cb or unknown:
            verdict, detail = "skipped", "a layout callback" if cb else "ops lopt does not convert: " + ", ".join(unknown)
        else:
            pipe = "convert-layout{%s},flow,fold" % ",".join(opts)
            rc, out, err = lopt(args, "--pass=" + pipe, inp)
            if rc == 0:
                # --verify-exec apart: a module of rank-only operands may not run on seeded shapes
                vrc, _, verr = lopt(args, "--pass=" + pipe, "--verify-exec", inp)
                if vrc:
                    tally["verify-exec fails"] = tally.get("verify-exec fails", 0) + 1
                    if args.v:
                        print("  verify-exec fails on %s: %s" % (test, first_error(verr, vrc)))
            erc, eout, eerr = lopt(args, exp)
            if rc:
                verdict, detail = "lopt fails", first_error(err, rc)
            elif erc:
                verdict, detail = "expected unread", first_error(eerr, erc)
            else:
                mine, theirs = len(REWRITES.findall(main_text(out))), len(REWRITES.findall(main_text(eout)))
                verdict = "better" if mine < theirs else "match" if mine == theirs else "worse"
                path = os.path.join(args.dir, "%s.lopt.tir" % os.path.basename(inp)[:-4])
                tvmtests.write(path, out)
                same = outputs(args, path) == outputs(args, exp)
                detail = "%d rewrites, TVM %d%s" % (mine, theirs, "" if same else "; outputs differ from TVM's Expected")
                if not same:
                    tally["outputs differ"] = tally.get("outputs differ", 0) + 1
        tally[verdict] = tally.get(verdict, 0) + 1
        if args.v:
            print("%-8s %s %s: %s" % (verdict, test, ",".join(opts), detail))
    total = sum(v for k, v in tally.items() if k not in ("outputs differ", "verify-exec fails"))
    print("convert-layout against TVM's ConvertLayout (%s): %d cases: %s" % (
        "policy=" + args.policy if args.policy else "lopt's policy", total,
        ", ".join("%s %d" % (k, v) for k, v in sorted(tally.items()))))


if __name__ == "__main__":
    sys.exit(main())
