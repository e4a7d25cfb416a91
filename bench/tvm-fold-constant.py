#!/usr/bin/env python3
"""lopt's fold against TVM's FoldConstant, test by test, on the tests of TVM's
tests/python/relax/test_transform_fold_constant.py.

Each test's module (outside the repository, DIR/<test>.before.tir and
DIR/<test>.expected.tir) is made as the test's gen_mod makes it: the
function named ("before", "expected") becomes main and the parameters the
test binds become constants, R.const bindings at the head of main, with the
values the test computes with NumPy (a few NumPy operations are done here,
on flat lists, so that NumPy is not needed). A test without an expected
function expects its module unchanged. Then `lopt --pass=fold` runs on the
before module, and the calls left in main (every R.* call but R.const,
R.shape and struct info) are compared, as a multiset of operator names, with
those of the expected main: equal is a match. Both modules then run
(--run --seed 1; a parameter of which only the rank is known is given
16 per axis with --shape) and their outputs are compared, and fold runs
once more with --verify-exec.

    python3 bench/tvm-fold-constant.py --git /path/to/tvm.git DIR [--lopt ./lopt] [-v]
"""
import argparse
import ast
import collections
import os
import re
import sys
import textwrap

import tvmtests
from tvmtests import HEADER, first_error, lopt, main_text

TEST = "tests/python/relax/test_transform_fold_constant.py"
CALL = re.compile(r"\bR\.([A-Za-z_][A-Za-z_0-9.]*)\(")
NOT_CALLS = {"const", "shape", "Tensor", "Tuple", "Shape", "Prim", "Object", "dataflow", "output", "function",
             "device", "prim_value", "str", "dtype"}


class Array:
    """The few NumPy operations the tests compute their constants with: a flat list and a shape."""

    def __init__(self, flat, shape):
        self.flat, self.shape = list(flat), tuple(shape)

    def astype(self, _dtype):
        return self

    def reshape(self, *shape):
        return Array(self.flat, shape)

    @property
    def T(self):
        r, c = self.shape
        return Array([self.flat[i * c + j] for j in range(c) for i in range(r)], (c, r))

    def __getitem__(self, s):
        rows = range(self.shape[0])[s]
        inner = len(self.flat) // self.shape[0]
        return Array([v for r in rows for v in self.flat[r * inner:(r + 1) * inner]], (len(rows),) + self.shape[1:])

    def _zip(self, other, f):
        o = other.flat if isinstance(other, Array) else [other] * len(self.flat)
        return Array([f(a, b) for a, b in zip(self.flat, o)], self.shape)

    def __add__(self, o):
        return self._zip(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._zip(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._zip(o, lambda a, b: a * b)


def array(v):
    if isinstance(v, Array):
        return v
    if isinstance(v, (list, tuple)):
        items = [array(x) for x in v]
        if not items:
            return Array([], (0,))
        return Array([f for a in items for f in a.flat], (len(items),) + items[0].shape)
    return Array([v], ())


class NumPy:
    @staticmethod
    def arange(n):
        return Array(range(n), (n,))

    @staticmethod
    def array(v):
        return array(v)

    @staticmethod
    def zeros(shape, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = 1
        for d in shape:
            n *= d
        return Array([0] * n, shape)

    @staticmethod
    def take(a, idx, axis=0):
        a, idx = array(a), array(idx)
        assert axis == 0 and len(a.shape) == 1
        return Array([a.flat[i] for i in idx.flat], idx.shape)

    @staticmethod
    def expand_dims(a, axis):
        a = array(a)
        shape = list(a.shape)
        for ax in sorted(axis if isinstance(axis, list) else [axis]):
            shape.insert(ax, 1)
        return Array(a.flat, shape)

    @staticmethod
    def concatenate(arrays, axis=0):
        arrays = [array(a) for a in arrays]
        assert axis == 0
        return Array([f for a in arrays for f in a.flat], (sum(a.shape[0] for a in arrays),) + arrays[0].shape[1:])


class Tvm:
    class runtime:
        @staticmethod
        def tensor(v):
            return array(v)


def const_text(a, dtype):
    fmt = (lambda v: repr(float(v))) if dtype.startswith("float") else (lambda v: str(int(v)))

    def nest(flat, shape):
        if not shape:
            return fmt(flat[0])
        inner = len(flat) // shape[0] if shape[0] else 0
        return "[" + ", ".join(nest(flat[i * inner:(i + 1) * inner], shape[1:]) for i in range(shape[0])) + "]"
    return 'R.const(%s, "%s")' % (nest(a.flat, a.shape), dtype)


def annotation_dtype(src, arg):
    seg = ast.get_source_segment(src, arg.annotation) or ""
    m = re.search(r'"(float\d+|int\d+|uint\d+|bool)"', seg)
    return m.group(1) if m else "float32"


def bound_function(src, cls, fname, binding):
    """The text of cls's module with fname as main and the names in binding as constants."""
    lines = src.splitlines()
    out = []
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        deco = [ast.get_source_segment(src, d) for d in item.decorator_list]
        if "R.function" not in deco:
            out.append(tvmtests.segment(src, item))
            continue
        if item.name != fname:
            continue
        params = [a for a in item.args.args if a.arg not in binding]
        sig = ", ".join("%s: %s" % (a.arg, ast.get_source_segment(src, a.annotation)) for a in params)
        ret = " -> " + ast.get_source_segment(src, item.returns) if item.returns else ""
        body0 = item.body[0]
        indent = " " * body0.col_offset
        consts = [indent + "%s = %s" % (a.arg, const_text(binding[a.arg], annotation_dtype(src, a)))
                  for a in item.args.args if a.arg in binding]
        text = "\n".join([" " * item.col_offset + "@R.function",
                          " " * item.col_offset + "def main(%s)%s:" % (sig, ret)] + consts +
                         lines[body0.lineno - 1:item.end_lineno])
        out.append(textwrap.dedent(text))
    body = "\n\n".join(textwrap.indent(t, "    ") for t in out)
    return HEADER + "@I.ir_module\nclass Module:\n" + body + "\n"


def cases(src, out):
    """(test, before file, expected file) per test; modules written to out."""
    tree = ast.parse(src)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith("test_"):
            continue
        cls = next((n for n in ast.walk(fn) if isinstance(n, ast.ClassDef)), None)
        if cls is None:
            continue
        env = {"np": NumPy, "tvm": Tvm}
        mods = {}
        for st in fn.body:
            if not isinstance(st, ast.Assign) or not isinstance(st.targets[0], ast.Name):
                continue
            call = st.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "gen_mod":
                fname = call.args[1].value
                binding = {k.value: eval(compile(ast.Expression(v), "binding", "eval"), env)
                           for k, v in zip(call.args[2].keys, call.args[2].values)}
                mods[st.targets[0].id] = bound_function(src, cls, fname, {k: array(v) for k, v in binding.items()})
            elif st.targets[0].id.endswith("_np") or st.targets[0].id.startswith("np_"):
                env[st.targets[0].id] = eval(compile(ast.Expression(st.value), "value", "eval"), env)
        if "before" not in mods:
            # the test runs FoldConstant on the module as written, main included
            mods["before"] = bound_function(src, cls, "main" if any(
                isinstance(i, ast.FunctionDef) and i.name == "main" for i in cls.body) else "before", {})
        mods.setdefault("expected", mods["before"])
        paths = []
        for k in ("before", "expected"):
            paths.append(tvmtests.write(os.path.join(out, "%s.%s.tir" % (fn.name, k)), mods[k]))
        found.append((fn.name, paths[0], paths[1]))
    return found


def calls(text):
    return collections.Counter(c for c in CALL.findall(main_text(text)) if c not in NOT_CALLS)


def shapes(path):
    """--shape options for main's parameters of which only the rank is known: 16 per axis, the
    extent of the tests' constants (test_fold_mixed_case's x meets a (16, 16) constant)."""
    with open(path) as f:
        sig = re.search(r"def main\((.*?)\)( ->|:)", f.read(), re.S)
    opts = []
    for name, ndim in re.findall(r"(\w+): R\.Tensor\([^()]*?ndim=(\d+)", sig.group(1) if sig else ""):
        opts += ["--shape", "%s=%s" % (name, ",".join(["16"] * int(ndim)))]
    return opts


def main():
    ap = argparse.ArgumentParser()
    tvmtests.add_args(ap, verbose="one line per test")
    args = ap.parse_args()
    src = tvmtests.read_test(args, TEST)
    os.makedirs(args.dir, exist_ok=True)
    tally = collections.Counter()
    for test, before, expected in cases(src, args.dir):
        rc, out, err = lopt(args, "--pass=fold", before)
        erc, eout, eerr = lopt(args, expected)
        if rc:
            verdict, detail = "lopt fails", first_error(err, rc)
        elif erc:
            verdict, detail = "expected unread", first_error(eerr, erc)
        else:
            mine, theirs = calls(out), calls(eout)
            verdict = "match" if mine == theirs else "differ"
            detail = "calls %s, TVM %s" % (dict(mine) or "none", dict(theirs) or "none")
            path = before[:-len(".before.tir")] + ".lopt.tir"
            tvmtests.write(path, out)
            orc, o1, _ = lopt(args, "--run", "--seed", "1", *shapes(path), path)
            erc2, o2, _ = lopt(args, "--run", "--seed", "1", *shapes(expected), expected)
            if orc or erc2 or o1 != o2:
                tally["outputs differ"] += 1
                detail += "; outputs differ from TVM's Expected"
            vrc, _, verr = lopt(args, "--pass=fold", "--verify-exec", *shapes(before), before)
            if vrc:
                tally["verify-exec fails"] += 1
                detail += "; verify-exec: " + first_error(verr, vrc)
        tally[verdict] += 1
        if args.v:
            print("%-15s %s: %s" % (verdict, test, detail))
    total = sum(v for k, v in tally.items() if k not in ("outputs differ", "verify-exec fails"))
    print("fold against TVM's FoldConstant: %d tests: %s" % (
        total, ", ".join("%s %d" % (k, v) for k, v in sorted(tally.items()))))


if __name__ == "__main__":
    sys.exit(main())
