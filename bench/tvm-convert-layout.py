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
import subprocess
import sys
import textwrap

TEST = "tests/python/relax/test_transform_convert_layout.py"
HEADER = "# from tvm.script import ir as I\n# from tvm.script import relax as R\n# from tvm.script import tir as T\n\n"
REWRITES = re.compile(r"\bR\.(layout_transform|permute_dims|nn\.pad|pad|crop|strided_slice)\(")
OPS = {"relax.nn.conv2d": "conv2d", "relax.nn.max_pool2d": "max_pool2d", "relax.nn.avg_pool2d": "avg_pool2d",
       "relax.nn.adaptive_avg_pool2d": "adaptive_avg_pool2d", "relax.image.resize2d": "resize2d",
       "relax.nn.conv2d_transpose": "conv2d_transpose"}


def read_test(args):
    if args.git:
        return subprocess.run(["git", "--git-dir", args.git, "show", "HEAD:" + TEST], capture_output=True,
                              text=True, check=True).stdout
    with open(os.path.join(args.root, TEST)) as f:
        return f.read()


def cases(src, out):
    """(test, input file, expected file, desired layouts) per verify() call; modules written to out."""
    lines = src.splitlines()
    tree = ast.parse(src)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
            continue
        classes = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.ClassDef) and node.decorator_list:
                start = node.decorator_list[0].lineno
                text = textwrap.dedent("\n".join(lines[start - 1:node.end_lineno]))
                path = os.path.join(out, "%s.%s.tir" % (fn.name, node.name))
                with open(path, "w") as f:
                    f.write(HEADER + text + "\n")
                classes[node.name] = path
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


def main_text(text):
    """The text of main in a printed module."""
    m = re.search(r"^(\s*)def main\(", text, re.M)
    if not m:
        return ""
    rest = text[m.start():]
    nxt = re.search(r"^%s@" % re.escape(m.group(1)), rest[1:], re.M)
    return rest[:nxt.start() + 1] if nxt else rest


def lopt(args, *argv):
    try:
        r = subprocess.run([args.lopt] + list(argv), capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    return r.returncode, r.stdout, r.stderr


def outputs(args, path):
    rc, out, _ = lopt(args, "--run", "--seed", "1", path)
    return out if rc == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git", help="a bare git directory of apache/tvm")
    ap.add_argument("--root", help="a work tree of apache/tvm")
    ap.add_argument("dir")
    ap.add_argument("--lopt", default="./lopt")
    ap.add_argument("--policy", help="convert-layout's policy= option (tvm)")
    ap.add_argument("-v", action="store_true", help="one line per case")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    tally = {}
    for test, inp, exp, want, cb in cases(read_test(args), args.dir):
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
                    said = [l for l in verr.splitlines() if "error:" in l] or ["exit %d" % vrc]
                    tally["verify-exec fails"] = tally.get("verify-exec fails", 0) + 1
                    if args.v:
                        print("  verify-exec fails on %s: %s" % (test, said[0]))
            erc, eout, eerr = lopt(args, exp)
            if rc:
                said = [l for l in err.splitlines() if "error:" in l] or err.strip().splitlines() or ["exit %d" % rc]
                verdict, detail = "lopt fails", said[0]
            elif erc:
                verdict, detail = "expected unread", (eerr.strip().splitlines() or [""])[0]
            else:
                mine, theirs = len(REWRITES.findall(main_text(out))), len(REWRITES.findall(main_text(eout)))
                verdict = "better" if mine < theirs else "match" if mine == theirs else "worse"
                path = os.path.join(args.dir, "%s.lopt.tir" % os.path.basename(inp)[:-4])
                with open(path, "w") as f:
                    f.write(out)
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
