#!/usr/bin/env python3
"""Operator differential test: every operator of ir/ops/'s registry against
a NumPy reference written from the operator's definition.

Cases draw random shapes, dtypes (float32, float16, and integers where the
registry takes them) and attributes within what the registry accepts. Many
one-operator cases go into one module (each its own parameters and results,
main returns them all as one tuple); `lopt --run --output-dir` runs it with
the inputs given by --input, and each result is compared with the reference,
computed in float64: exact for data movement, max/min and integers; within
a bound scaled by the dtype's unit roundoff and by the sum of magnitudes for
accumulating operators (sum, mean, matmul, conv2d, avg_pool2d, softmax,
batch_norm). Every other batch runs through `--pass=legalize` first, so
R.layout_transform is checked both as the interpreter runs it and as its
legalized PrimFunc.

Usage:
  ops_diff.py LOPT [--seed S] [--cases N]     a fixed set of cases
  ops_diff.py LOPT --seconds T [--seed S]     as many as T seconds allow
Options: --batch B (cases per lopt run), --ops a,b (only these operators),
--keep DIR (write each mismatching case there as a module and its inputs),
--quiet. Exit status 0 when every case agrees, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

UNIT = {"float32": 2.0 ** -24, "float16": 2.0 ** -11}     # unit roundoff
TINY = {"float32": 2.0 ** -149, "float16": 2.0 ** -24}    # smallest subnormal
INTS = ("int32", "int8", "int64", "uint8")
NP = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "int8": np.int8, "int64": np.int64,
      "uint8": np.uint8, "bool": np.bool_}


def is_float(dt):
    return dt in UNIT


def shape_text(s):
    return "(" + ", ".join(str(v) for v in s) + ("," if len(s) == 1 else "") + ")"


def tensor_text(s, dt):
    return 'R.Tensor(%s, dtype="%s")' % (shape_text(s), dt)


def ints_text(v):
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def num_text(v, dt):
    return repr(float(v)) if is_float(dt) else str(int(v))


class Out:
    """One result: the variable, the reference (float64 or int64), its dtype,
    a tolerance (0: exact; an array or scalar bound on |got - want|) and a
    mask of the elements that are defined (None: all)."""

    def __init__(self, var, want, dt, tol=0.0, mask=None):
        self.var, self.want, self.dt, self.tol, self.mask = var, want, dt, tol, mask


class Case:
    def __init__(self, op, desc):
        self.op, self.desc = op, desc
        self.inputs = []      # (name, array)
        self.lines = []
        self.outs = []


class Gen:
    def __init__(self, rng, k):
        self.rng, self.k, self.n = rng, k, 0

    def name(self, base):
        self.n += 1
        return "c%d_%s%d" % (self.k, base, self.n)

    def r(self, lo, hi):
        """An integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, seq):
        return seq[int(self.rng.integers(0, len(seq)))]

    def chance(self, p):
        return self.rng.random() < p

    def shape(self, rank=None, lo=1, hi=5, deep=False):
        """Mostly rank 1 to 4; now and then up to 7 with small extents, and
        with deep rarely up to 16 (lopt's limit) with extents of 1 or 2."""
        if rank is None:
            rank = self.r(1, 4) if self.chance(0.85) else self.r(8, 16) if deep and self.chance(0.1) else self.r(5, 7)
        if rank > 4:
            hi = min(hi, 3)
        if rank > 7:
            hi = min(hi, 2)
        return tuple(self.r(lo, hi) for _ in range(rank))

    def data(self, shape, dt, lo=-2.0, hi=2.0):
        if is_float(dt):
            return self.rng.uniform(lo, hi, size=shape).astype(NP[dt])
        ilo, ihi = {"int8": (-8, 8), "uint8": (0, 15)}.get(dt, (-20, 20))
        return self.rng.integers(max(ilo, int(lo * 10)), min(ihi, int(hi * 10)) + 1, size=shape).astype(NP[dt])

    def param(self, case, arr):
        n = self.name("p")
        case.inputs.append((n, arr))
        return n


def f64(a):
    return np.asarray(a).astype(np.float64)


def wrap_int(v, dt):
    return np.asarray(v).astype(np.int64).astype(NP[dt]).astype(np.int64)


def trunc_div(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def rounding_tol(dt, want, k=2.0):
    """Elementwise results rounded once: within k units of the result."""
    return k * UNIT[dt] * np.abs(want) + TINY[dt]


def sum_tol(dt, n, mag, extra=None):
    """A sum of n terms of total magnitude mag, each step rounded."""
    t = 2.0 * (n + 2) * UNIT[dt] * mag + (n + 2) * TINY[dt]
    return t if extra is None else t + extra


# ---- the operators ----

BINARY = {"R.add": np.add, "R.subtract": np.subtract, "R.multiply": np.multiply, "R.divide": None,
          "R.maximum": np.maximum, "R.minimum": np.minimum,
          # rounding toward minus infinity; for floats floor(a / b) and
          # a - floor(a / b) * b in float64, then rounded once (float32 and
          # float16 operands are exact in float64, so the result is exact)
          "R.floor_divide": lambda a, b: np.floor(a / b) if a.dtype == np.float64 else np.floor_divide(a, b),
          "R.floor_mod": lambda a, b: a - np.floor(a / b) * b if a.dtype == np.float64 else np.mod(a, b)}


def gen_binary(g, op):
    dt = g.pick(["float32", "float16", "float32", "float16"] + list(INTS))
    shapes, _ = shapes_to(g, 2)
    c = Case(op, "%s %s %s" % (dt, shapes[0], shapes[1]))
    a = g.data(shapes[0], dt)
    b = g.data(shapes[1], dt)
    if op in ("R.divide", "R.floor_divide", "R.floor_mod"):
        if is_float(dt):
            b = np.where(np.abs(f64(b)) < 0.25, 0.5, b).astype(NP[dt])
        else:
            b = np.where(b == 0, 3, b).astype(NP[dt])
    pa, pb = g.param(c, a), g.param(c, b)
    y = g.name("y")
    c.lines.append("%s = %s(%s, %s)" % (y, op, pa, pb))
    if is_float(dt):
        x1, x2 = f64(a), f64(b)
        want = x1 / x2 if op == "R.divide" else BINARY[op](x1, x2)
        exact = op in ("R.maximum", "R.minimum", "R.floor_divide", "R.floor_mod")
        c.outs.append(Out(y, want, dt, 0.0 if exact else rounding_tol(dt, want)))
    else:
        x1, x2 = a.astype(np.int64), b.astype(np.int64)
        want = trunc_div(x1, x2) if op == "R.divide" else BINARY[op](x1, x2)
        c.outs.append(Out(y, wrap_int(want, dt), dt))
    return c


def shapes_to(g, n):
    """n shapes that broadcast together, and the shape they broadcast to."""
    out = g.shape(deep=True)
    shapes = []
    for _ in range(n):
        r = g.r(1, len(out))
        s = list(out[len(out) - r:])
        for d in range(r):
            if g.chance(0.25):
                s[d] = 1
        shapes.append(tuple(s))
    if g.chance(0.3):
        shapes[g.r(0, n - 1)] = out
    return shapes, np.broadcast_shapes(*shapes)


COMPARE = {"R.less": np.less, "R.greater": np.greater, "R.equal": np.equal, "R.not_equal": np.not_equal,
           "R.less_equal": np.less_equal, "R.greater_equal": np.greater_equal}
LOGICAL = {"R.logical_and": np.logical_and, "R.logical_or": np.logical_or}


def gen_compare(g, op):
    dt = g.pick(["float32", "float16"] + list(INTS))
    (sa, sb), _ = shapes_to(g, 2)
    # halves in [-2, 2] (small integers for integer dtypes): ties are common
    a, b = (np.round(f64(g.data(s, dt)) * 2) / (2 if is_float(dt) else 1) for s in (sa, sb))
    a, b = a.astype(NP[dt]), b.astype(NP[dt])
    if is_float(dt) and g.chance(0.2):
        a.flat[g.r(0, a.size - 1)] = np.nan
    c = Case(op, "%s %s %s" % (dt, sa, sb))
    pa, pb = g.param(c, a), g.param(c, b)
    y = g.name("y")
    c.lines.append("%s = %s(%s, %s)" % (y, op, pa, pb))
    c.outs.append(Out(y, COMPARE[op](a, b), "bool"))
    return c


def gen_logical(g, op):
    n = 1 if op == "R.logical_not" else 2
    shapes, _ = shapes_to(g, n)
    xs = [g.rng.integers(0, 2, size=s).astype(bool) for s in shapes]
    c = Case(op, " ".join(str(s) for s in shapes))
    ps = [g.param(c, x) for x in xs]
    y = g.name("y")
    c.lines.append("%s = %s(%s)" % (y, op, ", ".join(ps)))
    c.outs.append(Out(y, np.logical_not(xs[0]) if n == 1 else LOGICAL[op](*xs), "bool"))
    return c


def gen_where(g, op):
    dt = g.pick(["float32", "float16"] + list(INTS))
    (sc, sx, sy), _ = shapes_to(g, 3)
    cond = g.rng.integers(0, 2, size=sc).astype(bool)
    x, y0 = g.data(sx, dt), g.data(sy, dt)
    c = Case(op, "%s %s %s %s" % (dt, sc, sx, sy))
    pc, px, py = g.param(c, cond), g.param(c, x), g.param(c, y0)
    y = g.name("y")
    c.lines.append("%s = R.where(%s, %s, %s)" % (y, pc, px, py))
    want = np.where(cond, x, y0)
    c.outs.append(Out(y, f64(want) if is_float(dt) else want.astype(np.int64), dt))
    return c


def gen_arg(g, op):
    """argmax / argmin along one axis (either sign) or over all; ties
    common (values in a small set), so the first index is what is checked."""
    dt = g.pick(["float32", "float16"] + list(INTS))
    s = g.shape(deep=True)
    r = len(s)
    x = g.data(s, dt)
    if is_float(dt):
        x = (np.round(f64(x) * 2) / 2).astype(NP[dt])
    keep = g.chance(0.5)
    axis = None if g.chance(0.3) else g.r(0, r - 1)
    attrs = []
    if axis is not None:
        attrs.append("axis=%d" % (axis - r if g.chance(0.3) else axis))
    elif g.chance(0.5):
        attrs.append("axis=None")
    if keep or g.chance(0.3):
        attrs.append("keepdims=%s" % keep)
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s%s)" % (y, op, p, "".join(", " + a for a in attrs)))
    fn = np.argmax if op == "R.argmax" else np.argmin
    want = fn(x, axis=axis, keepdims=keep) if axis is not None else fn(x, keepdims=keep)
    c.outs.append(Out(y, np.asarray(want).astype(np.int64), "int64"))
    return c


def gen_act(g, op):
    """leakyrelu (alpha) and softplus (beta, threshold), the numbers held in
    x's dtype; the attributes given by keyword, in place or not at all."""
    dt = g.pick(["float32", "float16"])
    s = g.shape(deep=True)
    x = g.data(s, dt, -3.0, 3.0)
    names = ["alpha"] if op == "R.nn.leakyrelu" else ["beta", "threshold"]
    vals = [g.pick([0.01, 0.25, 0.5, 2.0])] if op == "R.nn.leakyrelu" else [g.pick([1.0, 0.5, 2.0, -1.0]),
                                                                          g.pick([20.0, 1.0, 2.5])]
    given = g.r(0, len(names))
    if given < len(names):
        vals[given:] = [0.01] if op == "R.nn.leakyrelu" else [1.0, 20.0][given:]
    inplace = g.chance(0.3)
    attrs = [("%r" % v if inplace else "%s=%r" % (n, v)) for n, v in zip(names[:given], vals[:given])]
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s)" % (y, op, ", ".join([p] + attrs)))
    one = lambda v: f64(np.asarray(v).astype(NP[dt]))   # a number held in the dtype
    if op == "R.nn.leakyrelu":
        # x * alpha of two dtype values is exact in float64: one rounding, as lopt's
        want = np.where(x > 0, f64(x), (f64(x) * one(vals[0])).astype(NP[dt]))
        c.outs.append(Out(y, f64(want), dt, 0.0))
        return c
    beta, thr = one(vals[0]), one(vals[1])
    bx = f64((f64(x) * beta).astype(NP[dt]))             # rounded in the dtype, as lopt compares it
    soft = np.log1p(np.exp(bx)) / beta
    want = np.where(bx > thr, f64(x), soft)
    # the roundings of beta x, exp, 1 +, log and / beta (each a unit), an
    # absolute error of about (3 + |beta x|) units of log's result, over beta
    tol = np.where(bx > thr, 0.0, 4 * UNIT[dt] * ((4 + np.abs(bx)) / abs(beta) + np.abs(want)) + TINY[dt])
    c.outs.append(Out(y, want, dt, tol))
    return c


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


UNARY = {"R.nn.relu": lambda x: np.maximum(x, 0), "R.exp": np.exp, "R.sigmoid": sigmoid, "R.tanh": np.tanh,
         "R.sqrt": np.sqrt, "R.negative": np.negative, "R.log": np.log, "R.abs": np.abs,
         "R.rsqrt": lambda x: 1 / np.sqrt(x), "R.floor": np.floor, "R.ceil": np.ceil, "R.round": np.round,
         "R.sin": np.sin, "R.cos": np.cos, "R.square": np.square, "R.sign": np.sign, "R.erf": lambda x: erf(x)}
# exact: no rounding at all, or of an exact value NumPy also rounds once
UNARY_EXACT = ("R.nn.relu", "R.negative", "R.abs", "R.floor", "R.ceil", "R.round", "R.sign")
UNARY_INTS = UNARY_EXACT + ("R.square",)


def gen_unary(g, op):
    ints_ok = op in UNARY_INTS
    dt = g.pick(["float32", "float16"] + (list(INTS) if ints_ok else []))
    s = g.shape(deep=True)
    lo = 0.0 if op == "R.sqrt" else 0.125 if op in ("R.log", "R.rsqrt") else -3.0
    x = g.data(s, dt, lo, 3.0)
    if op in ("R.floor", "R.ceil", "R.round") and is_float(dt) and g.chance(0.5):
        x = (np.round(f64(x) * 4) / 4).astype(NP[dt])   # quarters: halves to round to even
    c = Case(op, "%s %s" % (dt, s))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s)" % (y, op, p))
    if is_float(dt):
        want = UNARY[op](f64(x))
        # the others: lopt evaluates in float64 and rounds once, as here
        c.outs.append(Out(y, want, dt, 0.0 if op in UNARY_EXACT else rounding_tol(dt, want)))
    else:
        c.outs.append(Out(y, wrap_int(UNARY[op](x.astype(np.int64)), dt), dt))
    return c


def gen_reduce(g, op):
    dt = g.pick(["float32", "float16", "float32", "int32", "int64"])
    s = g.shape(deep=True)
    r = len(s)
    x = g.data(s, dt)
    keep = g.chance(0.5)
    mode = g.r(0, 3)
    if mode == 0:
        axes = None                      # every dimension
    else:
        k = g.r(1, r)
        axes = sorted(int(a) for a in g.rng.choice(r, size=k, replace=False))
    reduced = list(range(r)) if axes is None else axes
    if len(reduced) == r and not keep:
        keep = g.chance(0.5)             # a rank-0 result half the time
    attrs = []
    if axes is not None:
        shown = [a - r if g.chance(0.3) else a for a in axes]
        attrs.append("axis=" + (str(shown[0]) if len(shown) == 1 and g.chance(0.5) else ints_text(shown)))
    if keep or g.chance(0.3):
        attrs.append("keepdims=%s" % ("True" if keep else "False"))
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s%s)" % (y, op, p, "".join(", " + a for a in attrs)))
    ax = tuple(reduced)
    n = int(np.prod([s[a] for a in ax]))
    if is_float(dt):
        v = f64(x)
        if op == "R.sum":
            want = v.sum(axis=ax, keepdims=keep)
            tol = sum_tol(dt, n, np.abs(v).sum(axis=ax, keepdims=keep))
        elif op == "R.mean":
            want = v.mean(axis=ax, keepdims=keep)
            tol = sum_tol(dt, n, np.abs(v).sum(axis=ax, keepdims=keep)) / n + rounding_tol(dt, want)
        elif op == "R.prod":
            # n roundings of a product, each within a unit of the partial product
            want = v.prod(axis=ax, keepdims=keep)
            tol = 2.0 * (n + 2) * UNIT[dt] * np.abs(v).prod(axis=ax, keepdims=keep) + (n + 2) * TINY[dt]
            # a product past the dtype's range is inf in lopt (and not here)
            c.outs.append(Out(y, want, dt, tol, np.abs(want) < float(np.finfo(NP[dt]).max) / 4))
            return c
        elif op == "R.max":
            want, tol = v.max(axis=ax, keepdims=keep), 0.0
        else:
            want, tol = v.min(axis=ax, keepdims=keep), 0.0
        c.outs.append(Out(y, want, dt, tol))
    else:
        v = x.astype(np.int64)
        if op == "R.sum":
            want = v.sum(axis=ax, keepdims=keep)
        elif op == "R.mean":
            want = trunc_div(wrap_int(v.sum(axis=ax, keepdims=keep), dt), n)
        elif op == "R.prod":
            want = v.prod(axis=ax, keepdims=keep)      # wraps modulo 2^64, so modulo the dtype's width too
        elif op == "R.max":
            want = v.max(axis=ax, keepdims=keep)
        else:
            want = v.min(axis=ax, keepdims=keep)
        c.outs.append(Out(y, wrap_int(want, dt), dt))
    return c


def gen_permute(g, op):
    dt = g.pick(["float32", "float16"] + list(INTS))
    s = g.shape(deep=True)
    x = g.data(s, dt)
    c = Case(op, "")
    p = g.param(c, x)
    y = g.name("y")
    if g.chance(0.2):
        perm = list(range(len(s)))[::-1]
        c.lines.append("%s = R.permute_dims(%s)" % (y, p))
    else:
        perm = [int(a) for a in g.rng.permutation(len(s))]
        shown = [a - len(s) if g.chance(0.2) else a for a in perm]
        c.lines.append("%s = R.permute_dims(%s, axes=%s)" % (y, p, ints_text(shown)))
    c.desc = "%s %s axes=%s" % (dt, s, perm)
    c.outs.append(Out(y, np.transpose(x, perm), dt))
    return c


def factor(g, n, rank):
    """A shape of rank dimensions whose product is n."""
    dims = [1] * rank
    for _ in range(64):
        if n == 1:
            break
        d = g.r(2, n)
        if n % d == 0:
            dims[g.r(0, rank - 1)] *= d
            n //= d
    dims[0] *= n
    return dims


def gen_reshape(g, op):
    dt = g.pick(["float32", "float16", "int32", "uint8"])
    s = g.shape()
    x = g.data(s, dt)
    new = factor(g, int(np.prod(s)), g.r(1, 4))
    shown = list(new)
    if g.chance(0.4):
        shown[g.r(0, len(new) - 1)] = -1
    c = Case(op, "%s %s -> %s" % (dt, s, shown))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = R.reshape(%s, %s)" % (y, p, shape_text(shown)))
    c.outs.append(Out(y, x.reshape(new), dt))
    return c


def matmul_shapes(g):
    """Operand shapes under NumPy's rules: ranks 1 to 4, not always equal (1-d
    operands lose their added row or column), batch dimensions that
    broadcast (aligned from the right, some 1 against a larger one)."""
    m, k, n = g.r(1, 6), g.r(1, 8), g.r(1, 6)
    if g.chance(0.4):
        rank = g.r(2, 4)
        batch = [g.r(1, 3) for _ in range(rank - 2)]
        return tuple(batch + [m, k]), tuple(batch + [k, n])
    ra, rb = g.r(1, 5), g.r(1, 5)
    full = [g.r(1, 3) for _ in range(max(ra, rb) - 2)]
    ba = [e if g.chance(0.7) else 1 for e in full[len(full) - max(ra - 2, 0):]]
    bb = [e if g.chance(0.7) else 1 for e in full[len(full) - max(rb - 2, 0):]]
    return (tuple(ba + [m, k]) if ra > 1 else (k,)), (tuple(bb + [k, n]) if rb > 1 else (k,))


def gen_matmul(g, op):
    dt = g.pick(["float32", "float16", "float16", "int32", "int8"])
    odt = None
    if dt == "float16" and g.chance(0.5):
        odt = "float32"
    elif dt == "int8" and g.chance(0.7):
        odt = "int32"
    elif g.chance(0.1):
        odt = dt
    a_shape, b_shape = matmul_shapes(g)
    k = a_shape[-1]
    a = g.data(a_shape, dt)
    b = g.data(b_shape, dt)
    c = Case(op, "%s %s x %s out_dtype=%s" % (dt, a.shape, b.shape, odt))
    pa, pb = g.param(c, a), g.param(c, b)
    y = g.name("y")
    c.lines.append("%s = R.matmul(%s, %s%s)" % (y, pa, pb, ', out_dtype="%s"' % odt if odt else ""))
    rdt = odt or dt
    if is_float(rdt):
        want = np.matmul(f64(a), f64(b))
        mag = np.matmul(np.abs(f64(a)), np.abs(f64(b)))
        c.outs.append(Out(y, want, rdt, sum_tol(rdt, k, mag)))
    else:
        want = np.matmul(a.astype(np.int64), b.astype(np.int64))
        c.outs.append(Out(y, wrap_int(want, rdt), rdt))
    return c


# layouts: a string of the primal axes (upper case), with lower-case split
# axes preceded by their factor, as NCHW4c

def lay_parse(s, prims):
    axes, f = [], 0
    for ch in s:
        if ch.isdigit():
            f = f * 10 + int(ch)
            continue
        axes.append((prims.index(ch.upper()), ch.islower(), f))
        f = 0
    return axes


def lay_split(axes):
    sp = {}
    for p, inner, f in axes:
        if inner:
            sp[p] = f
    return sp


def to_layout(x, layout, prims):
    """A logical array (axes in prims order) in the layout's buffer order."""
    axes = lay_parse(layout, prims)
    sp = lay_split(axes)
    shape, pos = [], {}
    for p in range(len(prims)):
        e = x.shape[p]
        if p in sp:
            pos[(p, False)] = len(shape)
            shape.append(e // sp[p])
            pos[(p, True)] = len(shape)
            shape.append(sp[p])
        else:
            pos[(p, False)] = len(shape)
            shape.append(e)
    y = x.reshape(shape)
    return np.transpose(y, [pos[(p, inner)] for p, inner, _ in axes])


def random_layout(g, prims, splits):
    """A permutation of prims, with some axes split (splits: axis -> factor)."""
    order = list(prims)
    g.rng.shuffle(order)
    items = [a for a in order]
    for p, f in splits.items():
        at = g.r(0, len(items)) if g.chance(0.3) else len(items)
        items.insert(at, "%d%s" % (f, prims[p].lower()))
    return "".join(items)


def pick_split(g, extent, p=0.5):
    """A factor dividing extent (> 1), or None."""
    fs = [f for f in (2, 3, 4) if extent % f == 0]
    return g.pick(fs) if fs and g.chance(p) else None


def conv_ref(x, w, stride, pad, dil, groups):
    """NCHW x OIHW in float64 (x, w logical); returns (y, sum of |x * w|)."""
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    n, cc, h, wd = x.shape
    o, i, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    mag = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        gi = oc // og
        for a in range(kh):
            for b in range(kw):
                patch = x[:, gi * i:(gi + 1) * i, a * dil[0]:a * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                          b * dil[1]:b * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, a, b])
                mag[:, oc] += np.einsum("nchw,c->nhw", np.abs(patch), np.abs(w[oc, :, a, b]))
    return y, mag


def window(g, kext_max=3):
    stride = [g.r(1, 3), g.r(1, 3)]
    dil = [g.r(1, 2), g.r(1, 2)]
    pad = [g.r(0, 2) for _ in range(4)]
    return stride, dil, pad


def window_attrs(g, stride, dil, pad):
    attrs = []
    if stride != [1, 1] or g.chance(0.3):
        attrs.append("strides=" + (str(stride[0]) if stride[0] == stride[1] and g.chance(0.3) else ints_text(stride)))
    if any(pad) or g.chance(0.3):
        if pad[0] == pad[1] == pad[2] == pad[3] and g.chance(0.4):
            attrs.append("padding=" + (str(pad[0]) if g.chance(0.5) else ints_text([pad[0]])))
        elif pad[0] == pad[2] and pad[1] == pad[3] and g.chance(0.4):
            attrs.append("padding=" + ints_text(pad[:2]))
        else:
            attrs.append("padding=" + ints_text(pad))
    if dil != [1, 1] or g.chance(0.2):
        attrs.append("dilation=" + ints_text(dil))
    return attrs


def gen_conv2d(g, op):
    dt = g.pick(["float32", "float32", "float16", "float16", "int32", "int8"])
    odt = None
    if dt == "float16" and g.chance(0.5):
        odt = "float32"
    elif dt == "int8":
        odt = "int32"
    groups = g.pick([1, 1, 1, 2, 3])
    ic = g.r(1, 3) * groups
    oc = g.r(1, 3) * groups
    n = g.r(1, 2)
    kh, kw = g.r(1, 3), g.r(1, 3)
    stride, dil, pad = window(g)
    h = max(g.r(1, 7), dil[0] * (kh - 1) + 1 - pad[0] - pad[2])
    w = max(g.r(1, 7), dil[1] * (kw - 1) + 1 - pad[1] - pad[3])
    x = g.data((n, ic, h, w), dt)
    k = g.data((oc, ic // groups, kh, kw), dt)
    dl = random_layout(g, "NCHW", {p: f for p, f in ((0, pick_split(g, n, 0.1)), (1, pick_split(g, ic)),
                                                      (2, pick_split(g, h, 0.1)),
                                                      (3, pick_split(g, w, 0.1))) if f})
    kl = random_layout(g, "OIHW", {p: f for p, f in ((0, pick_split(g, oc)), (1, pick_split(g, ic // groups, 0.3)))
                                   if f})
    y64, mag = conv_ref(f64(x), f64(k), stride, pad, dil, groups)
    oh, ow = y64.shape[2], y64.shape[3]
    ol = dl
    if g.chance(0.4):
        ol = random_layout(g, "NCHW", {p: f for p, f in ((1, pick_split(g, oc)), (2, pick_split(g, oh, 0.1)),
                                                          (3, pick_split(g, ow, 0.1))) if f})
    elif any(p != 0 and f and ext % f for p, f, ext in [(p, f, (n, oc, oh, ow)[p]) for p, f in
                                                         lay_split(lay_parse(dl, "NCHW")).items()]):
        ol = random_layout(g, "NCHW", {})
    attrs = window_attrs(g, stride, dil, pad)
    if groups != 1 or g.chance(0.2):
        attrs.append("groups=%d" % groups)
    if dl != "NCHW" or g.chance(0.2):
        attrs.append('data_layout="%s"' % dl)
    if kl != "OIHW" or g.chance(0.2):
        attrs.append('kernel_layout="%s"' % kl)
    if ol != dl or g.chance(0.2):
        attrs.append('out_layout="%s"' % ol)
    if odt:
        attrs.append('out_dtype="%s"' % odt)
    c = Case(op, "%s x%s w%s %s" % (dt, (n, ic, h, w), k.shape, ", ".join(attrs)))
    px = g.param(c, to_layout(x, dl, "NCHW"))
    pk = g.param(c, to_layout(k, kl, "OIHW"))
    y = g.name("y")
    c.lines.append("%s = R.nn.conv2d(%s, %s%s)" % (y, px, pk, "".join(", " + a for a in attrs)))
    rdt = odt or dt
    if is_float(rdt):
        terms = (ic // groups) * kh * kw
        c.outs.append(Out(y, to_layout(y64, ol, "NCHW"), rdt, to_layout(sum_tol(rdt, terms, mag), ol, "NCHW")))
    else:
        c.outs.append(Out(y, wrap_int(to_layout(y64, ol, "NCHW"), rdt), rdt))
    return c


def gen_pad(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    s = g.shape()
    x = g.data(s, dt)
    mode = g.pick(["constant", "constant", "edge", "reflect"])
    # reflect pads by less than the extent
    widths = [g.r(0, min(2, s[d // 2] - 1) if mode == "reflect" else 2) for d in range(2 * len(s))]
    attrs = ["pad_width=" + ints_text(widths)]
    pv = 0
    if mode == "constant" and g.chance(0.7):
        pv = g.pick([0, 1, -3, 2.5, -0.75]) if is_float(dt) else g.r(-5, 5)
        attrs.append("pad_value=" + num_text(pv, dt))
    if mode != "constant" or g.chance(0.2):
        attrs.append('pad_mode="%s"' % mode)
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s, %s)" % (y, op, p, ", ".join(attrs)))
    pads = [(widths[2 * d], widths[2 * d + 1]) for d in range(len(s))]
    want = np.pad(x, pads, constant_values=NP[dt](pv)) if mode == "constant" else np.pad(x, pads, mode)
    c.outs.append(Out(y, want, dt))
    return c


def out_layout(g, lay, ch):
    """A pool's out_layout: mostly its layout, now and then another of N, C,
    H, W (the channels split by a factor that divides them, or not)."""
    if g.chance(0.6):
        return lay
    return random_layout(g, "NCHW", {1: f} if (f := pick_split(g, ch)) else {})


def gen_pool(g, op):
    avg = op == "R.nn.avg_pool2d"
    dt = g.pick(["float32", "float32", "float16", "float16", "int32"])
    n, ch = g.r(1, 2), g.r(1, 6)
    ph, pw = g.r(1, 3), g.r(1, 3)
    stride, dil, pad = window(g)
    h = max(g.r(1, 7), dil[0] * (ph - 1) + 1 - pad[0] - pad[2])
    w = max(g.r(1, 7), dil[1] * (pw - 1) + 1 - pad[1] - pad[3])
    x = g.data((n, ch, h, w), dt)
    lay = random_layout(g, "NCHW", {1: f} if (f := pick_split(g, ch)) else {})
    attrs = ["pool_size=" + (str(ph) if ph == pw and g.chance(0.3) else ints_text([ph, pw]))]
    attrs += window_attrs(g, stride, dil, pad)
    if lay != "NCHW" or g.chance(0.2):
        attrs.append('layout="%s"' % lay)
    olay = out_layout(g, lay, ch)
    if olay != lay or g.chance(0.2):
        attrs.append('out_layout="%s"' % olay)
    ceil = g.chance(0.4)
    if ceil or g.chance(0.2):
        attrs.append("ceil_mode=%s" % ceil)
    cip = False
    if avg and g.chance(0.6):
        cip = g.chance(0.5)
        attrs.append("count_include_pad=%s" % cip)
    c = Case(op, "%s %s %s" % (dt, (n, ch, h, w), ", ".join(attrs)))
    p = g.param(c, to_layout(x, lay, "NCHW"))
    y = g.name("y")
    c.lines.append("%s = %s(%s, %s)" % (y, op, p, ", ".join(attrs)))
    # the reference: every window point, in or out of the input
    v = f64(x) if is_float(dt) else x.astype(np.int64)
    # ceil_mode rounds the division by the stride up (as Relax infers it)
    oh = (h + pad[0] + pad[2] - dil[0] * (ph - 1) - 1 + (stride[0] - 1 if ceil else 0)) // stride[0] + 1
    ow = (w + pad[1] + pad[3] - dil[1] * (pw - 1) - 1 + (stride[1] - 1 if ceil else 0)) // stride[1] + 1
    # count_include_pad: the window's points inside the input with its declared padding
    incl = np.zeros((oh, ow), dtype=np.int64)
    if is_float(dt):
        lowest = float(np.finfo(NP[dt]).min)
    else:
        lowest = int(np.iinfo(NP[dt]).min)
    acc = np.zeros((n, ch, oh, ow)) if is_float(dt) else np.zeros((n, ch, oh, ow), dtype=np.int64)
    mag = np.zeros((n, ch, oh, ow))
    mx = np.full((n, ch, oh, ow), lowest, dtype=acc.dtype)
    cnt = np.zeros((oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(ph):
                for b in range(pw):
                    hh = i * stride[0] + a * dil[0] - pad[0]
                    ww = j * stride[1] + b * dil[1] - pad[1]
                    if -pad[0] <= hh < h + pad[2] and -pad[1] <= ww < w + pad[3]:
                        incl[i, j] += 1
                    if 0 <= hh < h and 0 <= ww < w:
                        acc[:, :, i, j] += v[:, :, hh, ww]
                        mag[:, :, i, j] += np.abs(v[:, :, hh, ww])
                        mx[:, :, i, j] = np.maximum(mx[:, :, i, j], v[:, :, hh, ww])
                        cnt[i, j] += 1
                    else:
                        mx[:, :, i, j] = np.maximum(mx[:, :, i, j], lowest)
    if not avg:
        want, tol = mx, 0.0
    else:
        div = np.maximum(incl if cip else cnt, 1)
        if is_float(dt):
            want = acc / div
            tol = sum_tol(dt, ph * pw, mag) / div + rounding_tol(dt, want)
        else:
            want, tol = trunc_div(acc, np.broadcast_to(div, acc.shape)), 0.0
    if is_float(dt):
        c.outs.append(Out(y, to_layout(want, olay, "NCHW"), dt,
                          tol if np.isscalar(tol) else to_layout(tol, olay, "NCHW")))
    else:
        c.outs.append(Out(y, wrap_int(to_layout(want, olay, "NCHW"), dt), dt))
    return c


def gen_softmax(g, op):
    dt = g.pick(["float32", "float16"])
    s = g.shape()
    x = g.data(s, dt, -3.0, 3.0)
    r = len(s)
    attrs = []
    ax = r - 1
    if g.chance(0.7):
        ax = g.r(0, r - 1)
        attrs.append("axis=%d" % (ax - r if g.chance(0.3) else ax))
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s%s)" % (y, op, p, "".join(", " + a for a in attrs)))
    v = f64(x)
    e = np.exp(v - v.max(axis=ax, keepdims=True))
    n = s[ax]
    if op == "R.nn.log_softmax":
        # x - max - log(sum): the sum's n roundings are an absolute error of
        # log(sum), the rest a few roundings of the result
        want = v - v.max(axis=ax, keepdims=True) - np.log(e.sum(axis=ax, keepdims=True))
        c.outs.append(Out(y, want, dt, (2 * n + 24) * UNIT[dt] * (np.abs(want) + 1) + TINY[dt]))
        return c
    want = e / e.sum(axis=ax, keepdims=True)
    c.outs.append(Out(y, want, dt, (2 * n + 24) * UNIT[dt] * want + (n + 2) * TINY[dt]))
    return c


def gen_slice(g, op):
    dt = g.pick(["float32", "float16", "int32", "int64"])
    s = g.shape(hi=7)
    r = len(s)
    x = g.data(s, dt)
    k = g.r(1, r)
    axes = [int(a) for a in g.rng.choice(r, size=k, replace=False)]
    begin, end, strides = [], [], []
    sl = [slice(None)] * r
    for a in axes:
        e = s[a]
        while True:
            b, f, st = g.r(-e - 2, e + 2), g.r(-e - 2, e + 2), g.pick([1, 1, 2, 3, -1, -2])
            # NumPy's slice semantics (Python's slice.indices), empty results now and then
            if len(range(*slice(b, f, st).indices(e))) > 0 or g.chance(0.1):
                break
        begin.append(b)
        end.append(f)
        strides.append(st)
        sl[a] = slice(b, f, st)
    attrs = ["axes=" + ints_text([a - r if g.chance(0.2) else a for a in axes]), "begin=" + ints_text(begin),
             "end=" + ints_text(end)]
    if strides != [1] * k or g.chance(0.3):
        attrs.append("strides=" + ints_text(strides))
    if g.chance(0.1):
        attrs.append("assume_inbound=False")
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = R.strided_slice(%s, %s)" % (y, p, ", ".join(attrs)))
    c.outs.append(Out(y, x[tuple(sl)], dt))
    return c


def gen_concat(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8", "int64"])
    s = g.shape()
    r = len(s)
    ax = g.r(0, r - 1)
    parts = []
    # now and then many inputs, up to lopt's limit of 64
    for _ in range(g.r(1, 4) if g.chance(0.9) else g.r(5, 64)):
        t = list(s)
        t[ax] = g.r(1, 4)
        parts.append(g.data(tuple(t), dt))
    c = Case(op, "")
    names = [g.param(c, a) for a in parts]
    attrs = ""
    if ax != 0 or g.chance(0.5):
        attrs = ", axis=%d" % (ax - r if g.chance(0.3) else ax)
    c.desc = "%s %s%s" % (dt, [a.shape for a in parts], attrs)
    y = g.name("y")
    c.lines.append("%s = R.concat((%s%s)%s)" % (y, ", ".join(names), "," if len(names) == 1 else "", attrs))
    c.outs.append(Out(y, np.concatenate(parts, axis=ax), dt))
    return c


def gen_layout(g, op):
    """Maps of a family that is injective by construction: a permutation of
    the dimensions, one of them split (a // f, a % f, padded when f does not
    divide it), two of them fused (a * E + b)."""
    dt = g.pick(["float32", "float16", "int32", "int8", "uint8"])
    s = g.shape(g.r(1, 5))
    r = len(s)
    x = g.data(s, dt)
    names = ["i%d" % d for d in range(r)]
    # output items: (expression, extent, function of the index arrays)
    items = [(names[d], s[d], (lambda d: lambda I: I[d])(d)) for d in range(r)]
    if g.chance(0.6):
        d = g.r(0, r - 1)
        f = g.r(2, 5)
        e = s[d]
        whole = items[d]
        items = items[:d] + items[d + 1:]
        outer = ("%s // %d" % (names[d], f), -(-e // f), (lambda d, f: lambda I: I[d] // f)(d, f))
        inner = ("%s %% %d" % (names[d], f), f, (lambda d, f: lambda I: I[d] % f)(d, f))
        items.insert(g.r(0, len(items)), outer)
        items.insert(g.r(0, len(items)), inner)
        del whole
    if g.chance(0.3) and any(" " not in it[0] for it in items):
        # a plain dimension moved by an offset or spread by a stride (padding between)
        j = g.pick([j for j, it in enumerate(items) if " " not in it[0]])
        t, e, fn = items[j]
        if g.chance(0.5):
            k = g.r(1, 2)
            items[j] = ("%s + %d" % (t, k), e + k, (lambda fn, k: lambda I: fn(I) + k)(fn, k))
        else:
            m = g.r(2, 3)
            items[j] = ("%s * %d" % (t, m), m * (e - 1) + 1, (lambda fn, m: lambda I: fn(I) * m)(fn, m))
    if g.chance(0.15):
        items.append(("0", 1, lambda I: np.zeros(s, dtype=np.int64)))
    g.rng.shuffle(items)
    if len(items) >= 2 and g.chance(0.3):
        j = g.r(0, len(items) - 2)
        (ea, xa, fa), (eb, xb, fb) = items[j], items[j + 1]
        plain = lambda t: " " not in t
        if plain(ea) and plain(eb):
            fused = ("%s * %d + %s" % (ea, xb, eb), xa * xb, (lambda fa, fb, xb: lambda I: fa(I) * xb + fb(I))(fa, fb, xb))
            items[j:j + 2] = [fused]
    oshape = tuple(e for _, e, _ in items)
    padded = int(np.prod(oshape)) != int(np.prod(s))
    attrs = "index_map=T.index_map(lambda %s: (%s%s))" % (", ".join(names), ", ".join(t for t, _, _ in items),
                                                         "," if len(items) == 1 else "")
    pv = None
    if padded and g.chance(0.6) or g.chance(0.1):
        pv = g.pick([0, 1, -2.5, 0.125]) if is_float(dt) else g.r(0 if dt == "uint8" else -5, 5)
        attrs += ", pad_value=" + num_text(pv, dt)
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = R.layout_transform(%s, %s)" % (y, p, attrs))
    I = np.indices(s)
    idx = tuple(fn(I) for _, _, fn in items)
    want = np.zeros(oshape, dtype=x.dtype)
    mask = np.zeros(oshape, dtype=bool)
    if pv is not None:
        want[...] = NP[dt](pv)
        mask[...] = True
    want[idx] = x
    mask[idx] = True
    c.outs.append(Out(y, want, dt, 0.0, None if mask.all() else mask))
    return c


def gen_split(g, op):
    dt = g.pick(["float32", "float16", "int32", "uint8"])
    s = list(g.shape())
    r = len(s)
    ax = g.r(0, r - 1)
    if g.chance(0.5):
        # now and then many sections, up to lopt's limit of 64
        k = g.r(1, 4) if g.chance(0.85) else g.r(5, 64)
        s[ax] = k * g.r(1, 3)
        ios = str(k)
        pts = [s[ax] // k * i for i in range(1, k)]
    else:
        s[ax] = g.r(2, 7)
        k = g.r(1, min(4, s[ax] - 1))
        pts = sorted(int(v) for v in g.rng.choice(np.arange(1, s[ax]), size=k, replace=False))
        ios = ints_text(pts)
    x = g.data(tuple(s), dt)
    attrs = "indices_or_sections=" + ios
    if ax != 0 or g.chance(0.5):
        attrs += ", axis=%d" % (ax - r if g.chance(0.3) else ax)
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    p = g.param(c, x)
    t = g.name("t")
    c.lines.append("%s = R.split(%s, %s)" % (t, p, attrs))
    for i, part in enumerate(np.split(x, pts, axis=ax)):
        y = g.name("y")
        c.lines.append("%s = %s[%d]" % (y, t, i))
        c.outs.append(Out(y, part, dt))
    return c


def gen_batchnorm(g, op):
    dt = g.pick(["float32", "float16"])
    s = g.shape()
    r = len(s)
    ax = g.r(0, r - 1)
    attrs = ["axis=%d" % (ax - r if g.chance(0.3) else ax)]   # axis has no default
    eps = 1e-5
    if g.chance(0.6):
        eps = g.pick([0.0, 1e-3, 0.1, 1e-5])
        attrs.append("epsilon=%r" % eps)
    center = scale = True
    if g.chance(0.4):
        center = g.chance(0.5)
        attrs.append("center=%s" % center)
    if g.chance(0.4):
        scale = g.chance(0.5)
        attrs.append("scale=%s" % scale)
    momentum = 0.1
    if g.chance(0.3):
        momentum = g.pick([0.9, 0.5, 0.0, 1.0])
        attrs.append("momentum=%r" % momentum)
    training = g.chance(0.6)              # the default, or said
    if not training or g.chance(0.3):
        attrs.append("training=%s" % training)
    C = s[ax]
    rest = tuple(d for d in range(r) if d != ax)
    n = int(np.prod([s[d] for d in rest]))
    x = g.data(s, dt)
    if training and n == 1 and eps == 0.0:
        eps = 1e-3                        # a batch of one has variance 0: 0 / 0 without epsilon
        attrs = [a if not a.startswith("epsilon=") else "epsilon=%r" % eps for a in attrs]
    gamma, beta, mean, var = g.data((C,), dt), g.data((C,), dt), g.data((C,), dt), g.data((C,), dt, 0.25, 2.0)
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    ps = [g.param(c, a) for a in (x, gamma, beta, mean, var)]
    t = g.name("t")
    c.lines.append("%s = R.nn.batch_norm(%s%s)" % (t, ", ".join(ps), "".join(", " + a for a in attrs)))
    bshape = [1] * r
    bshape[ax] = C
    b = lambda v: f64(v).reshape(bshape)
    epsd = float(NP[dt](eps))          # epsilon as the dtype holds it
    v = f64(x)
    if training:
        # the batch's mean and biased variance, sums of n terms in the dtype:
        # their error, relative to the deviation's scale, carries into every result
        bm, bv = v.mean(axis=rest), v.var(axis=rest)
        q = (v - b(bm)) / np.sqrt(b(bv) + epsd)
        sc = (np.abs(v).max() + 1) / np.sqrt(b(bv) + epsd)
        unit = (4 * n + 16) * UNIT[dt]
    else:
        q = (v - b(mean)) / np.sqrt(b(var) + epsd)
        sc = 0.0
        unit = 8 * UNIT[dt]
    want = q * b(gamma) if scale else q
    m = np.abs(want) + (np.abs(b(gamma)) if scale else 1.0) * sc
    if center:
        want = want + b(beta)
        m = m + np.abs(b(beta))
    outs = [(want, unit * m + 4 * TINY[dt]), (f64(mean), 0.0), (f64(var), 0.0)]
    if training:
        mom = float(NP[dt](momentum))
        keep = float(NP[dt](1.0 - momentum))   # 1 - momentum as the dtype holds it
        for k, (old, new) in enumerate(((mean, bm), (var, bv))):
            w = f64(old) * keep + new * mom
            mag = np.abs(f64(old)) + np.abs(new) + np.abs(v).max() ** 2 + 1
            outs[k + 1] = (w, (4 * n + 16) * UNIT[dt] * mag + 4 * TINY[dt])
    for i, (wv, tol) in enumerate(outs):
        y = g.name("y")
        c.lines.append("%s = %s[%d]" % (y, t, i))
        c.outs.append(Out(y, wv, dt, tol))
    return c


def gen_crop(g, op):
    dt = g.pick(["float32", "float16", "int32", "int64"])
    s = g.shape()
    x = g.data(s, dt)
    st, sz = [], []
    for e in s:
        a = g.r(0, e - 1)
        st.append(a)
        sz.append(g.r(1, e - a))
    attrs = "start_indices=%s, slice_sizes=%s" % (ints_text(st), ints_text(sz))
    if g.chance(0.3):
        attrs += ", cropped_value=" + num_text(0, dt)
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = R.crop(%s, %s)" % (y, p, attrs))
    c.outs.append(Out(y, x[tuple(slice(a, a + z) for a, z in zip(st, sz))], dt))
    return c


def gen_layernorm(g, op):
    dt = g.pick(["float32", "float16"])
    s = g.shape()
    r = len(s)
    k = g.r(1, r)
    axes = [int(a) for a in g.rng.choice(r, size=k, replace=False)]
    if g.chance(0.5):
        axes.sort()
    attrs = ["axes=" + (str(axes[0] - r) if k == 1 and g.chance(0.3) else
                        ints_text([a - r if g.chance(0.2) else a for a in axes]))]
    eps = 1e-5
    if g.chance(0.6):
        eps = g.pick([1e-3, 0.1, 1e-5, 1.0])
        attrs.append("epsilon=%r" % eps)
    center = scale = True
    if g.chance(0.3):
        center = g.chance(0.5)
        attrs.append("center=%s" % center)
    if g.chance(0.3):
        scale = g.chance(0.5)
        attrs.append("scale=%s" % scale)
    gs = tuple(s[a] for a in axes)
    x, gamma, beta = g.data(s, dt), g.data(gs, dt), g.data(gs, dt)
    c = Case(op, "%s %s %s" % (dt, s, ", ".join(attrs)))
    ps = [g.param(c, a) for a in (x, gamma, beta)]
    y = g.name("y")
    c.lines.append("%s = R.nn.layer_norm(%s, %s)" % (y, ", ".join(ps), ", ".join(attrs)))
    ax = tuple(sorted(axes))
    v = f64(x)
    m = v.mean(axis=ax, keepdims=True)
    var = ((v - m) ** 2).mean(axis=ax, keepdims=True)
    shape = [s[d] if d in ax else 1 for d in range(r)]
    order = list(np.argsort(axes))
    b = lambda t: np.transpose(f64(t), order).reshape(shape)
    epsd = float(NP[dt](eps))
    q = (v - m) / np.sqrt(var + epsd)
    want = q * b(gamma) if scale else q
    # the mean and variance are sums of n terms in the dtype: their error,
    # relative to the deviation's scale, carries into every result
    n = int(np.prod([s[a] for a in ax]))
    mag = np.abs(want) + (np.abs(b(gamma)) if scale else 1.0) * (np.abs(v).max() + 1) / np.sqrt(var + epsd)
    if center:
        want = want + b(beta)
        mag = mag + np.abs(b(beta))
    c.outs.append(Out(y, want, dt, (4 * n + 16) * UNIT[dt] * mag + 4 * TINY[dt]))
    return c


def gen_adaptive(g, op):
    dt = g.pick(["float32", "float32", "float16", "int32"])
    n, ch, h, w = g.r(1, 2), g.r(1, 6), g.r(1, 7), g.r(1, 7)
    oh, ow = g.r(1, 8), g.r(1, 8)
    x = g.data((n, ch, h, w), dt)
    lay = random_layout(g, "NCHW", {1: f} if (f := pick_split(g, ch)) else {})
    attrs = []
    if g.chance(0.15):
        oh, ow = h, w
    elif oh == ow and g.chance(0.3):
        attrs.append("output_size=%d" % oh)
    else:
        attrs.append("output_size=" + ints_text([oh, ow]))
    if lay != "NCHW" or g.chance(0.2):
        attrs.append('layout="%s"' % lay)
    olay = out_layout(g, lay, ch)
    if olay != lay or g.chance(0.2):
        attrs.append('out_layout="%s"' % olay)
    c = Case(op, "%s %s %s" % (dt, (n, ch, h, w), ", ".join(attrs)))
    p = g.param(c, to_layout(x, lay, "NCHW"))
    y = g.name("y")
    c.lines.append("%s = R.nn.adaptive_avg_pool2d(%s%s)" % (y, p, "".join(", " + a for a in attrs)))
    v = f64(x) if is_float(dt) else x.astype(np.int64)
    acc = np.zeros((n, ch, oh, ow), dtype=v.dtype)
    mag = np.zeros((n, ch, oh, ow))
    cnt = np.zeros((oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            hs, he = i * h // oh, -(-(i + 1) * h // oh)
            ws, we = j * w // ow, -(-(j + 1) * w // ow)
            acc[:, :, i, j] = v[:, :, hs:he, ws:we].sum(axis=(2, 3))
            mag[:, :, i, j] = np.abs(v[:, :, hs:he, ws:we]).sum(axis=(2, 3))
            cnt[i, j] = (he - hs) * (we - ws)
    if is_float(dt):
        want = acc / cnt
        tol = sum_tol(dt, int(cnt.max()), mag) / cnt + rounding_tol(dt, want)
        c.outs.append(Out(y, to_layout(want, olay, "NCHW"), dt, to_layout(tol, olay, "NCHW")))
    else:
        want = trunc_div(acc, np.broadcast_to(cnt, acc.shape))
        c.outs.append(Out(y, wrap_int(to_layout(want, olay, "NCHW"), dt), dt))
    return c


def erf(x):
    import math
    return np.vectorize(math.erf)(x)


MORE_UNARY = {"R.nn.gelu": lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2.0))),
              "R.nn.gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
              "R.nn.silu": lambda x: x * sigmoid(x)}


def gen_more_unary(g, op):
    dt = g.pick(["float32", "float16"])
    s = g.shape()
    x = g.data(s, dt, -3.0, 3.0)
    c = Case(op, "%s %s" % (dt, s))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append("%s = %s(%s)" % (y, op, p))
    want = MORE_UNARY[op](f64(x))
    # a few roundings of intermediate values of magnitude up to |x|
    c.outs.append(Out(y, want, dt, 16 * UNIT[dt] * (np.abs(want) + np.abs(f64(x))) + TINY[dt]))
    return c


def gen_power(g, op):
    dt = g.pick(["float32", "float16"])
    s = g.shape()
    a = g.data(s, dt, 0.25, 2.0)
    b = g.data(s[g.r(0, len(s) - 1):], dt, -2.0, 2.0)
    c = Case(op, "%s %s %s" % (dt, a.shape, b.shape))
    pa, pb = g.param(c, a), g.param(c, b)
    y = g.name("y")
    c.lines.append("%s = R.power(%s, %s)" % (y, pa, pb))
    want = np.power(f64(a), f64(b))
    c.outs.append(Out(y, want, dt, rounding_tol(dt, want, 8.0)))
    return c


def gen_astype(g, op):
    src = g.pick(["float32", "float16", "int32", "int8", "uint8", "int64"])
    dst = g.pick(["float32", "float16", "int32", "int8", "int64"])
    s = g.shape()
    x = g.data(s, src, -3.0, 3.0)
    c = Case(op, "%s to %s %s" % (src, dst, s))
    p = g.param(c, x)
    y = g.name("y")
    c.lines.append('%s = R.astype(%s, dtype="%s")' % (y, p, dst) if g.chance(0.5) else
                   '%s = R.astype(%s, "%s")' % (y, p, dst))
    if is_float(dst):
        c.outs.append(Out(y, f64(x).astype(NP[dst]).astype(np.float64), dst))
    else:
        c.outs.append(Out(y, wrap_int(np.trunc(f64(x)), dst), dst))
    return c


def gen_clip(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    s = g.shape()
    x = g.data(s, dt)
    lo, hi = sorted([g.pick([-1.5, -1, 0, 0.5, 1]), g.pick([-1, 0, 0.5, 1, 6])])
    if not is_float(dt):
        lo, hi = int(lo), int(hi)
    c = Case(op, "%s %s [%s, %s]" % (dt, s, lo, hi))
    p = g.param(c, x)
    y = g.name("y")
    form = g.r(0, 2)
    lt, ht = num_text(lo, dt), num_text(hi, dt)
    if form == 0:
        c.lines.append("%s = R.clip(%s, %s, %s)" % (y, p, lt, ht))
    elif form == 1:
        c.lines.append("%s = R.clip(%s, R.prim_value(%s), R.prim_value(%s))" % (y, p, lt, ht))
    else:
        c.lines.append("%s = R.clip(%s, min=%s, max=%s)" % (y, p, lt, ht))
    v = f64(x) if is_float(dt) else x.astype(np.int64)
    c.outs.append(Out(y, np.minimum(np.maximum(v, lo), hi), dt))
    return c


def gen_fma(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    s = g.shape()
    xs = [g.data(s, dt) for _ in range(3)]
    c = Case(op, "%s %s" % (dt, s))
    ps = [g.param(c, a) for a in xs]
    y = g.name("y")
    c.lines.append("%s = R.ewise_fma(%s)" % (y, ", ".join(ps)))
    if is_float(dt):
        prod = (f64(xs[0]) * f64(xs[1])).astype(NP[dt]).astype(np.float64)
        want = prod + f64(xs[2])
        c.outs.append(Out(y, want, dt, rounding_tol(dt, np.abs(prod) + np.abs(f64(xs[2])))))
    else:
        v = [a.astype(np.int64) for a in xs]
        c.outs.append(Out(y, wrap_int(v[0] * v[1] + v[2], dt), dt))
    return c


def gen_create(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8", "uint8"])
    s = g.shape(lo=0) if g.chance(0.1) else g.shape()
    like = op.endswith("_like")
    c = Case(op, "%s %s" % (dt, s))
    y = g.name("y")
    val = {"zeros": 0, "ones": 1}.get(op[2:].replace("_like", ""), None)
    fill = ""
    if val is None:
        val = g.pick([2.5, -1, 0.125, 7]) if is_float(dt) else g.r(0 if dt.startswith("uint") else -5, 5)
        fill = ", " + (num_text(val, dt) if g.chance(0.5) else 'R.const(%s, "%s")' % (num_text(val, dt), dt))
    if like:
        src = g.pick(["float32", "int32", "float16"])
        p = g.param(c, g.data(s, src))
        dtext = ', dtype="%s"' % dt if dt != src or g.chance(0.3) else ""
        c.lines.append("%s = %s(%s%s%s)" % (y, op, p, fill, dtext))
        rdt = dt if dtext else src
    else:
        c.lines.append('%s = %s(R.shape(%s)%s, dtype="%s")' % (y, op, ints_text(s), fill, dt))
        rdt = dt
    want = np.full(s, val, dtype=np.float64)
    c.outs.append(Out(y, want if is_float(rdt) else wrap_int(want, rdt), rdt))
    return c


def gen_arange(g, op):
    if g.chance(0.5):
        start, end, step = g.r(-5, 5), g.r(-5, 10), g.pick([1, 2, 3, -1, -2])
        dt = g.pick(["int64", "int32", "float32"])
    else:
        start, end, step = g.pick([0.0, 0.5, -1.25]), g.pick([2.0, 3.75, -2.0]), g.pick([0.25, 0.5, -0.5, 1.0])
        dt = "float32"
    count = max(0, int(np.ceil((end - start) / step)))
    if count == 0:
        end = start + step * 3
        count = 3
    c = Case(op, "%s %s %s %s" % (dt, start, end, step))
    y = g.name("y")
    c.lines.append('%s = R.arange(%r, %r, %r, dtype="%s")' % (y, start, end, step, dt))
    want = start + np.arange(count) * step
    c.outs.append(Out(y, want if is_float(dt) else wrap_int(want, dt), dt))
    return c


def gen_move(g, op):
    """The operators that only move elements: flatten, expand_dims, squeeze,
    broadcast_to, tile, repeat, flip."""
    dt = g.pick(["float32", "float16", "int32", "int8", "uint8"])
    s = g.shape()
    r = len(s)
    name = op[2:]
    if name == "squeeze":
        s = tuple(1 if g.chance(0.4) else e for e in s)
        if all(e == 1 for e in s):
            s = s[:-1] + (2,)
    x = g.data(s, dt)
    c = Case(op, "")
    p = g.param(c, x)
    y = g.name("y")
    if name == "flatten":
        text, want = "R.flatten(%s)" % p, x.reshape(-1)
    elif name == "expand_dims":
        k = g.r(1, min(2, 8 - r))
        axes = sorted(int(a) for a in g.rng.choice(r + k, size=k, replace=False))
        shown = [a - (r + k) if g.chance(0.3) else a for a in axes]
        text = "R.expand_dims(%s, axis=%s)" % (p, str(shown[0]) if k == 1 and g.chance(0.5) else ints_text(shown))
        want = np.expand_dims(x, tuple(axes))
    elif name == "squeeze":
        ones = [d for d in range(r) if s[d] == 1]
        if ones and g.chance(0.6):
            axes = sorted(int(a) for a in g.rng.choice(ones, size=g.r(1, len(ones)), replace=False))
            text, want = "R.squeeze(%s, axis=%s)" % (p, ints_text(axes)), np.squeeze(x, tuple(axes))
        else:
            text, want = "R.squeeze(%s)" % p, np.squeeze(x)
    elif name == "broadcast_to":
        extra = [g.r(1, 3) for _ in range(g.r(0, min(2, 8 - r)))]
        t = extra + [g.r(2, 3) if e == 1 and g.chance(0.5) else e for e in s]
        text, want = "R.broadcast_to(%s, R.shape(%s))" % (p, ints_text(t)), np.broadcast_to(x, t)
    elif name == "tile":
        reps = [g.r(1, 3) for _ in range(g.r(1, r + 1))]
        text = "R.tile(%s, repeats=%s)" % (p, str(reps[0]) if len(reps) == 1 and g.chance(0.5) else ints_text(reps))
        want = np.tile(x, reps)
    elif name == "repeat":
        k = g.r(1, 3)
        if g.chance(0.3):
            text, want = "R.repeat(%s, %d)" % (p, k), np.repeat(x, k)
        else:
            a = g.r(0, r - 1)
            text, want = "R.repeat(%s, %d, axis=%d)" % (p, k, a - r if g.chance(0.3) else a), np.repeat(x, k, axis=a)
    else:
        a = g.r(0, r - 1)
        text, want = "R.flip(%s, axis=%d)" % (p, a - r if g.chance(0.3) else a), np.flip(x, a)
    c.desc = "%s %s %s" % (dt, s, text)
    c.lines.append("%s = %s" % (y, text))
    c.outs.append(Out(y, np.ascontiguousarray(want), dt))
    return c


def resize_coord(o, n_in, n_out, mode):
    """The input coordinates (float32) of output indices o, as lopt computes them."""
    f = np.float32
    x = o.astype(np.float32)
    s = f(n_in / n_out)
    if mode == "align_corners":
        return x * f((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros_like(x)
    if mode == "asymmetric":
        return x * s
    if mode == "tf_half_pixel_for_nn":
        return (x + f(0.5)) * s
    if mode == "pytorch_half_pixel" and n_out == 1:
        return np.zeros_like(x)
    return (x + f(0.5)) * s - f(0.5)


def cubic_weights(t, alpha):
    """The four weights of the cubic convolution kernel at fractions t, in
    float32, each operation in the order lopt (and TVM) computes it."""
    f = np.float32
    a = f(alpha)
    t2, t3 = t * t, t * t * t
    return [a * (t3 - f(2) * t2 + t),
            f(alpha + 2) * t3 - f(3 + alpha) * t2 + f(1),
            f(-(alpha + 2)) * t3 + f(3 + 2 * alpha) * t2 - a * t,
            f(-alpha) * t3 + a * t2]


def cubic_ref(x, ch, cw, alpha, exclude):
    """Bicubic from float32 input coordinates ch, cw: per row the four taps
    around the coordinate (clamped into the input) summed by their weights,
    then the four rows so; with exclude the weights of taps outside the input
    are 0 and the others divided by their sum."""
    f = np.float32
    n, c, h, w = x.shape
    v = x.astype(f)
    per = []
    for co, size in ((ch, h), (cw, w)):
        fl = np.floor(co)
        t = (co - fl).astype(f)
        fl = fl.astype(np.int64)
        wt = cubic_weights(t, alpha)
        if exclude:
            wt = [np.where((fl + i - 1 >= 0) & (fl + i - 1 < size), wt[i], f(0)).astype(f) for i in range(4)]
            tot = ((wt[0] + wt[1]) + wt[2]) + wt[3]
            wt = [(wi / tot).astype(f) for wi in wt]
        idx = [np.clip(fl + i - 1, 0, size - 1) for i in range(4)]
        per.append((wt, idx))
    (wy, iy), (wx, ix) = per
    rows = []
    for j in range(4):
        acc = None
        for i in range(4):
            term = v[:, :, iy[j]][:, :, :, ix[i]] * wx[i][None, None, None, :]
            acc = term if acc is None else (acc + term).astype(f)
        rows.append(acc)
    out = None
    for j in range(4):
        term = rows[j] * wy[j][None, None, :, None]
        out = term if out is None else (out + term).astype(f)
    return out


def resize_ref(x, oh, ow, method, mode, rounding, alpha=-0.75, exclude=0):
    """NCHW x resized to (oh, ow); float64 result (nearest: the input's values)."""
    n, c, h, w = x.shape
    ch, cw = resize_coord(np.arange(oh), h, oh, mode), resize_coord(np.arange(ow), w, ow, mode)
    if method == "cubic":
        return cubic_ref(x, ch, cw, alpha, exclude)
    if method == "nearest_neighbor":
        rnd = {"round": np.round, "floor": np.floor, "ceil": np.ceil,
               "round_prefer_floor": lambda v: np.ceil(v - np.float32(0.5)),
               "round_prefer_ceil": lambda v: np.floor(v + np.float32(0.5))}[rounding]
        ih = np.clip(rnd(ch).astype(np.int64), 0, h - 1)
        iw = np.clip(rnd(cw).astype(np.int64), 0, w - 1)
        return x[:, :, ih][:, :, :, iw]
    f32 = np.float32
    h0, w0 = np.floor(ch), np.floor(cw)
    fh, fw = (ch - h0).astype(f32), (cw - w0).astype(f32)
    h0, w0 = h0.astype(np.int64), w0.astype(np.int64)
    hi = [np.clip(h0 + r, 0, h - 1) for r in (0, 1)]
    wi = [np.clip(w0 + k, 0, w - 1) for k in (0, 1)]
    v = x.astype(f32)
    a = [[v[:, :, hi[r]][:, :, :, wi[k]] for k in (0, 1)] for r in (0, 1)]
    fw_, fh_ = fw[None, None, None, :], fh[None, None, :, None]
    row = [((f32(1) - fw_) * a[r][0] + fw_ * a[r][1]).astype(f32) for r in (0, 1)]
    return ((f32(1) - fh_) * row[0] + fh_ * row[1]).astype(f32)


def gen_resize(g, op):
    method = g.pick(["nearest_neighbor", "linear", "cubic"])
    dt = g.pick(["float32", "float16"] + (["int32", "int8"] if method == "nearest_neighbor" else []))
    mode = g.pick(["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"])
    rounding = g.pick(["round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil"])
    n, ch, h, w = g.r(1, 2), g.r(1, 6), g.r(1, 6), g.r(1, 6)
    oh, ow = g.r(1, 9), g.r(1, 9)
    x = g.data((n, ch, h, w), dt)
    lay = random_layout(g, "NCHW", {1: f} if (f := pick_split(g, ch)) else {})
    attrs = ["R.shape(%s)" % ints_text([oh, ow])]
    if lay != "NCHW" or g.chance(0.2):
        attrs.append('layout="%s"' % lay)
    attrs.append('method="%s"' % method)
    if mode != "half_pixel" or g.chance(0.3):
        attrs.append('coordinate_transformation_mode="%s"' % mode)
    if method == "nearest_neighbor" and (rounding != "round" or g.chance(0.3)):
        attrs.append('rounding_method="%s"' % rounding)
    alpha, exclude = -0.75, 0
    if method == "cubic":
        if g.chance(0.5):
            alpha = g.pick([-0.5, -0.75, -0.6, -1.0])
            attrs.append("cubic_alpha=%r" % alpha)
        if g.chance(0.5):
            exclude = g.r(0, 1)
            attrs.append("cubic_exclude=%d" % exclude)
    c = Case(op, "%s %s %s" % (dt, (n, ch, h, w), ", ".join(attrs)))
    p = g.param(c, to_layout(x, lay, "NCHW"))
    y = g.name("y")
    c.lines.append("%s = R.image.resize2d(%s, %s)" % (y, p, ", ".join(attrs)))
    want = resize_ref(x, oh, ow, method, mode, rounding, alpha, exclude)
    if method == "nearest_neighbor":
        c.outs.append(Out(y, to_layout(want, lay, "NCHW"), dt))
    else:
        # the same float32 operations in the same order: exact before the final rounding to dt
        c.outs.append(Out(y, to_layout(f64(want), lay, "NCHW"), dt))
    return c


def gen_take(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    idt = g.pick(["int32", "int64"])
    s = g.shape()
    x = g.data(s, dt)
    mode = g.pick(["fast", "wrap", "clip"])
    flat = g.chance(0.25)
    e = int(np.prod(s)) if flat else None
    a = None if flat else g.r(0, len(s) - 1)
    e = e if flat else s[a]
    ishape = g.shape(g.r(1, max(1, min(3, 8 - len(s) + 1))), hi=3)
    lo, hi = (0, e - 1) if mode == "fast" else (-2 * e, 2 * e)
    ind = g.rng.integers(lo, hi + 1, size=ishape).astype(NP[idt])
    c = Case(op, "%s %s %s axis=%s mode=%s" % (dt, s, ishape, a, mode))
    px, pi = g.param(c, x), g.param(c, ind)
    attrs = ("" if flat else ", axis=%d" % (a - len(s) if g.chance(0.3) else a)) + \
            (', mode="%s"' % mode if mode != "fast" or g.chance(0.3) else "")
    y = g.name("y")
    c.lines.append("%s = R.take(%s, %s%s)" % (y, px, pi, attrs))
    want = np.take(x, ind.astype(np.int64), axis=a, mode={"fast": "raise", "wrap": "wrap", "clip": "clip"}[mode])
    c.outs.append(Out(y, want, dt))
    return c


def gen_gather(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    idt = g.pick(["int32", "int64"])
    s = g.shape()
    x = g.data(s, dt)
    a = g.r(0, len(s) - 1)
    e = s[a]
    # off the axis the indices may be smaller than the data (they read its corner)
    ishape = [g.r(1, 4) if d == a else g.r(1, s[d]) for d in range(len(s))]
    ind = g.rng.integers(-e, e, size=ishape).astype(NP[idt])
    c = Case(op, "%s %s %s axis=%d" % (dt, s, ishape, a))
    px, pi = g.param(c, x), g.param(c, ind)
    y = g.name("y")
    c.lines.append("%s = R.gather_elements(%s, %s, axis=%d)" % (y, px, pi, a - len(s) if g.chance(0.3) else a))
    corner = x[tuple(slice(None) if d == a else slice(0, ishape[d]) for d in range(len(s)))]
    want = np.take_along_axis(corner, np.where(ind < 0, ind + e, ind).astype(np.int64), axis=a)
    c.outs.append(Out(y, want, dt))
    return c


def gen_groupnorm(g, op):
    dt = g.pick(["float32", "float16"])
    r = g.r(2, 4)
    s = list(g.shape(r))
    ch = g.r(0, r - 1)
    groups = g.r(1, 3)
    s[ch] = groups * g.r(1, 3)
    s = tuple(s)
    others = [d for d in range(r) if d != ch]
    axes = sorted(int(a) for a in g.rng.choice(others, size=g.r(0, len(others)), replace=False)) if others else []
    eps = g.pick([1e-5, 0.1, 1.0])
    x, gamma, beta = g.data(s, dt), g.data((s[ch],), dt), g.data((s[ch],), dt)
    attrs = "num_groups=%d, channel_axis=%d, axes=%s, epsilon=%r" % (groups, ch - r if g.chance(0.3) else ch,
                                                                      ints_text(axes), eps)
    c = Case(op, "%s %s %s" % (dt, s, attrs))
    ps = [g.param(c, a) for a in (x, gamma, beta)]
    y = g.name("y")
    c.lines.append("%s = R.nn.group_norm(%s, %s)" % (y, ", ".join(ps), attrs))
    # move the channels first, split them into groups, normalize each group with the axes
    v = np.moveaxis(f64(x), ch, 0)
    rest = [d for d in range(r) if d != ch]
    red = [1 + rest.index(a) + 1 for a in axes]          # axes in v after the split (groups, per, rest...)
    vg = v.reshape((groups, s[ch] // groups) + v.shape[1:])
    ax = tuple([1] + red)
    m = vg.mean(axis=ax, keepdims=True)
    var = ((vg - m) ** 2).mean(axis=ax, keepdims=True)
    epsd = float(NP[dt](eps))
    q = ((vg - m) / np.sqrt(var + epsd)).reshape(v.shape)
    bshape = [s[ch]] + [1] * (r - 1)
    want = np.moveaxis(q * f64(gamma).reshape(bshape) + f64(beta).reshape(bshape), 0, ch)
    n = (s[ch] // groups) * int(np.prod([s[a] for a in axes]))
    mag = np.moveaxis(np.abs(q * f64(gamma).reshape(bshape)) + np.abs(f64(beta).reshape(bshape)) +
                      np.abs(f64(gamma).reshape(bshape)) * (np.abs(v).max() + 1) / np.sqrt(np.broadcast_to(
                          var, vg.shape).reshape(v.shape) + epsd), 0, ch)
    c.outs.append(Out(y, want, dt, (4 * n + 16) * UNIT[dt] * mag + 4 * TINY[dt]))
    return c


GENS = {}
for _op in BINARY:
    GENS[_op] = gen_binary
for _op in UNARY:
    GENS[_op] = gen_unary
for _op in COMPARE:
    GENS[_op] = gen_compare
for _op in ("R.logical_not", "R.logical_and", "R.logical_or"):
    GENS[_op] = gen_logical
GENS["R.where"] = gen_where
GENS["R.argmax"] = gen_arg
GENS["R.nn.leakyrelu"] = gen_act
GENS["R.nn.softplus"] = gen_act
GENS["R.argmin"] = gen_arg
for _op in ("R.sum", "R.mean", "R.max", "R.min", "R.prod"):
    GENS[_op] = gen_reduce
GENS.update({
    "R.permute_dims": gen_permute, "R.reshape": gen_reshape, "R.matmul": gen_matmul, "R.nn.conv2d": gen_conv2d,
    "R.nn.pad": gen_pad, "R.nn.max_pool2d": gen_pool, "R.nn.avg_pool2d": gen_pool, "R.nn.softmax": gen_softmax, "R.nn.log_softmax": gen_softmax,
    "R.strided_slice": gen_slice, "R.concat": gen_concat, "R.layout_transform": gen_layout, "R.split": gen_split,
    "R.nn.batch_norm": gen_batchnorm, "R.pad": gen_pad, "R.crop": gen_crop,
    "R.nn.layer_norm": gen_layernorm, "R.nn.adaptive_avg_pool2d": gen_adaptive,
    "R.image.resize2d": gen_resize, "R.take": gen_take, "R.gather_elements": gen_gather, "R.nn.group_norm": gen_groupnorm, "R.power": gen_power, "R.astype": gen_astype, "R.clip": gen_clip, "R.ewise_fma": gen_fma, "R.arange": gen_arange,
})
for _op in MORE_UNARY:
    GENS[_op] = gen_more_unary
for _op in ("R.zeros", "R.ones", "R.full", "R.zeros_like", "R.ones_like", "R.full_like"):
    GENS[_op] = gen_create
for _op in ("R.flatten", "R.expand_dims", "R.squeeze", "R.broadcast_to", "R.tile", "R.repeat", "R.flip"):
    GENS[_op] = gen_move


# ---- collapse_sum, scatter, dynamic_strided_slice, conv2d_transpose (issue 23) ----

def gen_collapse(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    s = g.shape()
    # a target that broadcasts to s: a suffix of it, some extents 1
    k = g.r(0, len(s))
    target = tuple(1 if g.chance(0.4) else e for e in s[len(s) - k:])
    x = g.data(s, dt)
    off = len(s) - k
    ax = tuple(range(off)) + tuple(off + d for d, t in enumerate(target) if t == 1 and s[off + d] != 1)
    c = Case(op, "%s %s -> %s" % (dt, s, target))
    px = g.param(c, x)
    y = g.name("y")
    if op == "R.collapse_sum_like":
        # only its shape counts; a rank-0 one is a constant (--input files
        # are saved contiguous, which makes them 1-d)
        tdt = g.pick([dt, "float32", "int32"])
        pt = g.param(c, g.data(target, tdt)) if target else 'R.const(0, "%s")' % tdt
        c.lines.append("%s = R.collapse_sum_like(%s, %s)" % (y, px, pt))
    else:
        c.lines.append("%s = R.collapse_sum_to(%s, R.shape(%s))" % (y, px, ints_text(target)))
    n = int(np.prod([s[a] for a in ax])) if ax else 1
    if is_float(dt):
        v = f64(x)
        want = v.sum(axis=ax, keepdims=True).reshape(target)
        c.outs.append(Out(y, want, dt, sum_tol(dt, n, np.abs(v).sum(axis=ax, keepdims=True).reshape(target))))
    else:
        c.outs.append(Out(y, wrap_int(x.astype(np.int64).sum(axis=ax, keepdims=True).reshape(target), dt), dt))
    return c


def scatter_step(red, old, u):
    return {"update": u, "add": old + u, "mul": old * u, "mean": old + u, "max": max(old, u),
            "min": min(old, u)}[red]


def scatter_finish(out, count, dt):
    """mean: the sum over the count, in the dtype (a floor division for integers)."""
    if is_float(dt):
        return (out / count.astype(NP[dt])).astype(NP[dt])
    return (out // count.astype(NP[dt])).astype(NP[dt])


def scatter_data(g, shape, dt, red):
    # products of many updates stay small: mul takes values near 1 in magnitude
    if red == "mul":
        return g.data(shape, dt, -1.5, 1.5) if is_float(dt) else g.data(shape, dt, -0.2, 0.2)
    return g.data(shape, dt)


def gen_scatter(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    idt = g.pick(["int32", "int64"])
    red = g.pick(["update", "add", "mul", "mean", "max", "min"])
    s = g.shape()
    a = g.r(0, len(s) - 1)
    e = s[a]
    ishape = tuple(g.r(1, 4) if d == a else g.r(1, s[d]) for d in range(len(s)))
    x = scatter_data(g, s, dt, red)
    ind = g.rng.integers(-e, e, size=ishape).astype(NP[idt])
    upd = scatter_data(g, ishape, dt, red)
    attrs = []
    if a != 0 or g.chance(0.3):
        attrs.append("axis=%d" % (a - len(s) if g.chance(0.3) else a))
    if red != "update" or g.chance(0.3):
        attrs.append('reduction="%s"' % red)
    c = Case(op, "%s %s %s %s" % (dt, s, ishape, ", ".join(attrs)))
    px, pi, pu = g.param(c, x), g.param(c, ind), g.param(c, upd)
    y = g.name("y")
    c.lines.append("%s = R.scatter_elements(%s, %s, %s%s)" % (y, px, pi, pu, "".join(", " + t for t in attrs)))
    # in the dtype, one update at a time in row-major order of the indices
    out, count = x.copy(), np.ones(s, np.int64)
    with np.errstate(over="ignore"):
        for pos in np.ndindex(*ishape):
            at = list(pos)
            at[a] = int(ind[pos]) % e
            at = tuple(at)
            out[at] = scatter_step(red, out[at], upd[pos])
            count[at] += 1
        if red == "mean":
            out = scatter_finish(out, count, dt)
    c.outs.append(Out(y, out, dt))
    return c


def gen_scatter_nd(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    idt = g.pick(["int32", "int64"])
    red = g.pick(["update", "add", "mul", "max", "min"])
    s = g.shape()
    m = g.r(1, len(s))
    lead = g.shape(rank=g.r(1, 2), hi=4)
    if len(lead) + len(s) - m > 7:
        lead = lead[:1]
    ind = np.stack([g.rng.integers(-s[j], s[j], size=lead) for j in range(m)], axis=-1).astype(NP[idt])
    x = scatter_data(g, s, dt, red)
    upd = scatter_data(g, lead + s[m:], dt, red)
    attrs = ['reduction="%s"' % red] if red != "update" or g.chance(0.3) else []
    c = Case(op, "%s %s %s %s" % (dt, s, ind.shape, ", ".join(attrs)))
    px, pi, pu = g.param(c, x), g.param(c, ind), g.param(c, upd)
    y = g.name("y")
    c.lines.append("%s = R.scatter_nd(%s, %s, %s%s)" % (y, px, pi, pu, "".join(", " + t for t in attrs)))
    out = x.copy()
    with np.errstate(over="ignore"):
        for pos in np.ndindex(*lead):
            at = tuple(int(i) % s[j] for j, i in enumerate(ind[pos]))
            for rest in np.ndindex(*s[m:]):
                out[at + rest] = scatter_step(red, out[at + rest], upd[pos + rest])
    c.outs.append(Out(y, out, dt))
    return c


def gen_dyn_slice(g, op):
    dt = g.pick(["float32", "float16", "int32", "int8"])
    s = g.shape(hi=7)
    n = g.r(1, len(s))
    begin, end, strides = [], [], []
    for d in range(n):
        e = s[d]
        while True:
            b, f, st = g.r(-e - 2, e + 2), g.r(-e - 2, e + 2), g.pick([1, 1, 2, 3, -1, -2])
            if len(range(*slice(b, f, st).indices(e))) > 0 or g.chance(0.1):
                break
        begin.append(b)
        end.append(f)
        strides.append(st)
    x = g.data(s, dt)
    c = Case(op, "%s %s [%s:%s:%s]" % (dt, s, begin, end, strides))
    p = g.param(c, x)
    y = g.name("y")
    k = lambda v: 'R.const(%s, "int64")' % ints_text(v)
    c.lines.append("%s = R.dynamic_strided_slice(%s, %s, %s, %s)" % (y, p, k(begin), k(end), k(strides)))
    c.outs.append(Out(y, x[tuple(slice(begin[d], end[d], strides[d]) for d in range(n))], dt))
    return c


def conv_transpose_ref(x, w, stride, pad, opad, dil, groups):
    """NCHW x IOHW in float64 (x, w logical); returns (y, sum of |x * w|)."""
    n, cc, h, wd = x.shape
    _, og, kh, kw = w.shape
    oh = (h - 1) * stride[0] - pad[0] - pad[2] + dil[0] * (kh - 1) + opad[0] + 1
    ow = (wd - 1) * stride[1] - pad[1] - pad[3] + dil[1] * (kw - 1) + opad[1] + 1
    fh = (h - 1) * stride[0] + dil[0] * (kh - 1) + 1 + opad[0] + pad[2]
    fw = (wd - 1) * stride[1] + dil[1] * (kw - 1) + 1 + opad[1] + pad[3]
    y, mag = np.zeros((n, og * groups, fh, fw)), np.zeros((n, og * groups, fh, fw))
    ig = cc // groups
    for ci in range(cc):
        o0 = ci // ig * og
        for a in range(kh):
            for b in range(kw):
                at = (slice(None), slice(o0, o0 + og), slice(a * dil[0], a * dil[0] + (h - 1) * stride[0] + 1, stride[0]),
                      slice(b * dil[1], b * dil[1] + (wd - 1) * stride[1] + 1, stride[1]))
                y[at] += np.einsum("nhw,o->nohw", x[:, ci], w[ci, :, a, b])
                mag[at] += np.einsum("nhw,o->nohw", np.abs(x[:, ci]), np.abs(w[ci, :, a, b]))
    at = (slice(None), slice(None), slice(pad[0], pad[0] + oh), slice(pad[1], pad[1] + ow))
    return y[at], mag[at]


def gen_conv2d_transpose(g, op):
    dt = g.pick(["float32", "float32", "float16", "int32", "int8"])
    odt = "int32" if dt == "int8" else ("float32" if dt == "float16" and g.chance(0.5) else None)
    groups = g.pick([1, 1, 2, 3])
    ic, og = g.r(1, 3) * groups, g.r(1, 3)
    n, h, w = g.r(1, 2), g.r(1, 5), g.r(1, 5)
    kh, kw = g.r(1, 3), g.r(1, 3)
    stride, dil = [g.r(1, 3), g.r(1, 3)], [g.r(1, 2), g.r(1, 2)]
    opad = [g.r(0, stride[0] - 1), g.r(0, stride[1] - 1)]
    full = [(h - 1) * stride[0] + dil[0] * (kh - 1) + 1 + opad[0], (w - 1) * stride[1] + dil[1] * (kw - 1) + 1 + opad[1]]
    pad = [g.r(0, 2) for _ in range(4)]
    for i in range(2):   # leave at least one output row and column
        while pad[i] + pad[i + 2] >= full[i]:
            pad[i + (2 if pad[i + 2] else 0)] -= 1
    x = g.data((n, ic, h, w), dt)
    k = g.data((ic, og, kh, kw), dt)
    dl = g.pick(["NCHW", "NCHW", "NHWC"])
    kl = g.pick(["IOHW", "IOHW", "HWIO", "OIHW"])
    attrs = window_attrs(g, stride, dil, pad)
    if any(opad) or g.chance(0.2):
        attrs.append("output_padding=" + ints_text(opad))
    if groups != 1 or g.chance(0.2):
        attrs.append("groups=%d" % groups)
    if dl != "NCHW" or g.chance(0.2):
        attrs.append('data_layout="%s"' % dl)
    if kl != "IOHW" or g.chance(0.2):
        attrs.append('kernel_layout="%s"' % kl)
    if odt:
        attrs.append('out_dtype="%s"' % odt)
    c = Case(op, "%s x%s w%s %s" % (dt, x.shape, k.shape, ", ".join(attrs)))
    px = g.param(c, to_layout(x, dl, "NCHW"))
    pk = g.param(c, to_layout(k, kl, "IOHW"))
    y = g.name("y")
    c.lines.append("%s = R.nn.conv2d_transpose(%s, %s%s)" % (y, px, pk, "".join(", " + a for a in attrs)))
    y64, mag = conv_transpose_ref(f64(x), f64(k), stride, pad, opad, dil, groups)
    rdt = odt or dt
    if is_float(rdt):
        terms = (ic // groups) * kh * kw
        c.outs.append(Out(y, to_layout(y64, dl, "NCHW"), rdt, to_layout(sum_tol(rdt, terms, mag), dl, "NCHW")))
    else:
        c.outs.append(Out(y, wrap_int(to_layout(y64, dl, "NCHW"), rdt), rdt))
    return c


def gen_reverse_sequence(g, op):
    """reverse_sequence: the source index along the sequence axis computed
    per element (s < L = min(len, extent): L - 1 - s, else s) and gathered."""
    dt = g.pick(["float32", "float16", "int32", "int8"])
    ldt = g.pick(["int32", "int64"])
    s = g.shape(g.r(2, 4))
    r = len(s)
    sa, ba = (int(a) for a in g.rng.choice(r, size=2, replace=False))
    x = g.data(s, dt)
    lens = g.rng.integers(-1, s[sa] + 3, size=s[ba]).astype(NP[ldt])
    c = Case(op, "%s %s seq_axis=%d batch_axis=%d lengths %s" % (dt, s, sa, ba, list(lens)))
    px, pl = g.param(c, x), g.param(c, lens)
    y = g.name("y")
    attrs = []
    if sa != 1 or g.chance(0.5):
        attrs.append("seq_axis=%d" % (sa - r if g.chance(0.3) else sa))
    if ba != 0 or g.chance(0.5):
        attrs.append("batch_axis=%d" % (ba - r if g.chance(0.3) else ba))
    c.lines.append("%s = R.reverse_sequence(%s, %s%s)" % (y, px, pl, "".join(", " + a for a in attrs)))
    shp = [1] * r
    shp[ba] = s[ba]
    L = np.minimum(lens.astype(np.int64), s[sa]).reshape(shp)
    shp = [1] * r
    shp[sa] = s[sa]
    pos = np.arange(s[sa]).reshape(shp)
    src = np.broadcast_to(np.where(pos < L, L - 1 - pos, pos), s)
    c.outs.append(Out(y, np.take_along_axis(x, src, axis=sa), dt))
    return c


GENS.update({
    "R.collapse_sum_to": gen_collapse, "R.collapse_sum_like": gen_collapse, "R.scatter_elements": gen_scatter,
    "R.scatter_nd": gen_scatter_nd, "R.dynamic_strided_slice": gen_dyn_slice,
    "R.nn.conv2d_transpose": gen_conv2d_transpose, "R.reverse_sequence": gen_reverse_sequence,
})


def registry_ops(root):
    """The operator names of the ops[] tables in ir/ops/ (one file per family),
    to check that each has a generator."""
    names = []
    for dirpath, _, files in sorted(os.walk(root)):
        for fn in sorted(files):
            if not fn.endswith(".c"):
                continue
            inside = False
            with open(os.path.join(dirpath, fn)) as f:
                for line in f:
                    if line.startswith("static const Op ops[]"):
                        inside = True
                    elif inside and line.startswith("};"):
                        break
                    elif inside and '{ { "' in line:
                        names.append(line.split('"')[1])
    return names


# ---- running a batch ----

def module_text(cases):
    params, lines, outs = [], [], []
    for c in cases:
        for n, a in c.inputs:
            params.append("%s: %s" % (n, tensor_text(a.shape, a.dtype.name)))
        lines += c.lines
        outs += [o.var for o in c.outs]
    body = "".join("        %s\n" % l for l in lines)
    return ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n%s        return (%s%s)\n"
            % (", ".join(params), body, ", ".join(outs), "," if len(outs) == 1 else ""))


def run_lopt(lopt, cases, d, legalize):
    path = os.path.join(d, "m.tir")
    with open(path, "w") as f:
        f.write(module_text(cases))
    args = [lopt, "--run", "--output-dir", d]
    if legalize:
        args.append("--pass=legalize")
    for c in cases:
        for n, a in c.inputs:
            p = os.path.join(d, n + ".npy")
            np.save(p, np.ascontiguousarray(a))
            args += ["--input", "%s=%s" % (n, p)]
    for f in os.listdir(d):
        if f.startswith("output"):
            os.unlink(os.path.join(d, f))
    r = subprocess.run(args + [path], capture_output=True, text=True)
    for c in cases:
        for n, _ in c.inputs:
            os.unlink(os.path.join(d, n + ".npy"))
    if r.returncode != 0:
        return None, r.stderr.strip()
    nout = sum(len(c.outs) for c in cases)
    files = [os.path.join(d, "output%d.npy" % i) for i in range(nout)]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        return None, "lopt wrote no %s (a tuple's tensors are output0, output1, ...)" % os.path.basename(missing[0])
    return [np.load(f) for f in files], None


def compare(o, got):
    """None when got agrees with o, else a description of the first difference."""
    if got.dtype != np.dtype(NP[o.dt]):
        return "dtype %s, want %s" % (got.dtype, o.dt)
    want = np.asarray(o.want)
    if got.shape != want.shape:
        return "shape %s, want %s" % (got.shape, want.shape)
    mask = np.ones(want.shape, dtype=bool) if o.mask is None else o.mask
    if is_float(o.dt):
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        tol = np.broadcast_to(np.asarray(o.tol, dtype=np.float64), want.shape)
        if np.all(tol == 0):
            bad = ~((g64 == w64.astype(NP[o.dt]).astype(np.float64)) | (np.isnan(g64) & np.isnan(w64)))
        else:
            bad = ~(np.abs(g64 - w64) <= tol)
    else:
        g64, w64 = got.astype(np.int64), want.astype(np.int64)
        tol = np.zeros(want.shape)
        bad = g64 != w64
    bad &= mask
    if not bad.any():
        return None
    at = tuple(int(v) for v in np.argwhere(bad)[0])
    return "%d of %d elements differ; at %s: got %r, want %r (tolerance %.3g)" % (
        int(bad.sum()), int(mask.sum()), list(at), g64[at].item(), w64[at].item(), float(tol[at]))


def keep_case(keep, c, k, msg):
    os.makedirs(keep, exist_ok=True)
    base = os.path.join(keep, "case%d" % k)
    with open(base + ".tir", "w") as f:
        f.write("# %s: %s\n# %s\n" % (c.op, c.desc, msg.replace("\n", " ")))
        f.write(module_text([c]))
    for n, a in c.inputs:
        np.save("%s_%s.npy" % (base, n), np.ascontiguousarray(a))


class Stats:
    def __init__(self):
        self.cases, self.bad, self.per, self.perbad = 0, 0, {}, {}
        self.reports = []


def check_batch(lopt, cases, legalize, st, args, d, first):
    outs, err = run_lopt(lopt, cases, d, legalize)
    if outs is None and len(cases) > 1:
        # one case makes lopt fail: run each alone to find it
        bad = st.bad
        for i, c in enumerate(cases):
            check_batch(lopt, [c], legalize, st, args, d, first + i)
        if st.bad == bad:
            st.bad += 1
            text = "MISMATCH the batch of cases %d to %d fails, each alone passes: %s" % (first, first + len(cases) - 1, err)
            st.reports.append(text)
            print("ops_diff: " + text, flush=True)
        return
    j = 0
    for i, c in enumerate(cases):
        msgs = []
        if outs is None:
            msgs.append("lopt failed: " + err)
        else:
            for o in c.outs:
                m = compare(o, outs[j])
                j += 1
                if m:
                    msgs.append("%s: %s" % (o.var, m))
        st.cases += 1
        st.per[c.op] = st.per.get(c.op, 0) + 1
        if msgs:
            st.bad += 1
            st.perbad[c.op] = st.perbad.get(c.op, 0) + 1
            text = "MISMATCH %s (%s%s): %s" % (c.op, c.desc, ", legalized" if legalize else "", "; ".join(msgs))
            st.reports.append(text)
            if len(st.reports) <= 50:
                print("ops_diff: " + text, flush=True)
            if args.keep:
                keep_case(args.keep, c, first + i, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lopt")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cases", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--batch", type=int, default=120)
    ap.add_argument("--ops", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.cases is None and args.seconds is None:
        args.cases = 2000
    seed = args.seed if args.seed is not None else int(time.time()) % 1000000
    ops = registry_ops(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ir", "ops"))
    missing = [o for o in ops if o not in GENS]
    if missing:
        print("ops_diff: no generator for %s" % ", ".join(missing))
        return 1
    if args.ops:
        ops = [o for o in ops if o in args.ops.split(",") or o[2:] in args.ops.split(",")]
    rng = np.random.default_rng(seed)
    st = Stats()
    t0 = time.time()
    last = t0
    k = 0
    with tempfile.TemporaryDirectory() as d:
        batch_no = 0
        while True:
            if args.cases is not None and k >= args.cases:
                break
            if args.seconds is not None and time.time() - t0 >= args.seconds:
                break
            n = args.batch if args.cases is None else min(args.batch, args.cases - k)
            cases = []
            for i in range(n):
                op = ops[int(rng.integers(0, len(ops)))]
                cases.append(GENS[op](Gen(rng, k + i), op))
            check_batch(args.lopt, cases, batch_no % 2 == 1, st, args, d, k)
            k += n
            batch_no += 1
            if not args.quiet and time.time() - last >= 10:
                last = time.time()
                print("ops_diff: %d cases, %d mismatches, %.0f s" % (st.cases, st.bad, last - t0), flush=True)
    el = time.time() - t0
    print("ops_diff: seed %d: %d cases over %d operators, %d mismatches, %.1f s" % (seed, st.cases, len(st.per),
                                                                                   st.bad, el))
    if not args.quiet or st.bad:
        print("ops_diff: per operator: " + ", ".join("%s %d%s" % (o[2:], st.per.get(o, 0),
              " (%d bad)" % st.perbad[o] if o in st.perbad else "") for o in ops))
    return 1 if st.bad else 0


if __name__ == "__main__":
    sys.exit(main())
