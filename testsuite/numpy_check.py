#!/usr/bin/env python3
"""Cross-checks lopt's interpreter against NumPy.

For each case a module is written, inputs are made with NumPy and passed with
--input, `lopt --run --output-dir` writes the outputs as .npy, and NumPy
computes the same thing independently. Usage: numpy_check.py [path/to/lopt]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

LOPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "lopt")
rng = np.random.default_rng(20261122)
failures = 0


def grid(*shape):
    """Values on a 1/256 grid in [-1, 1): exact in float32."""
    return (rng.integers(-256, 256, size=shape) / 256.0).astype(np.float32)


def run(text, inputs):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.tir")
        with open(path, "w") as f:
            f.write(text)
        args = [LOPT, "--run", "--output-dir", d, path]
        for name, value in inputs.items():
            np.save(os.path.join(d, name + ".npy"), value)
            args[1:1] = ["--input", "%s=%s" % (name, os.path.join(d, name + ".npy"))]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        outs = sorted(f for f in os.listdir(d) if f.startswith("output"))
        return [np.load(os.path.join(d, f)) for f in outs]


def shape_text(s):
    return "(" + ", ".join(str(v) for v in s) + ("," if len(s) == 1 else "") + ")"


def tensor(s, dt="float32"):
    return 'R.Tensor(%s, dtype="%s")' % (shape_text(s), dt)


def module(params, out_shape, body, dt="float32"):
    """params: (name, shape) pairs, of dtype dt as the result is."""
    ps = ", ".join("%s: %s" % (n, tensor(s, dt)) for n, s in params)
    return ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s) -> %s:\n"
            "        y = %s\n        return y\n" % (ps, tensor(out_shape, dt), body))


def check(name, got, want, atol=1e-5, rtol=1e-5):
    global failures
    ok = got.shape == want.shape and np.allclose(got, want.astype(np.float32), atol=atol, rtol=rtol)
    err = float(np.max(np.abs(got.astype(np.float64) - want))) if got.shape == want.shape else float("inf")
    print("numpy_check: %-34s %s (max abs error %.3g)" % (name, "ok" if ok else "FAILED", err))
    failures += not ok


def conv2d_ref(x, w, stride, pad, groups=1, dil=1):
    """NCHW x OIHW, pad = (top, left, bottom, right), in float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    oh = (h - dil * (kh - 1) - 1) // stride + 1
    ow = (wd - dil * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for a in range(kh):
            for b in range(kw):
                patch = x[:, g * i:(g + 1) * i, a * dil:a * dil + stride * (oh - 1) + 1:stride,
                          b * dil:b * dil + stride * (ow - 1) + 1:stride]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, a, b].astype(np.float64))
    return y


def pool_ref(x, k, stride, pad, kind):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + pad[0] + pad[2], w + pad[1] + pad[3]), np.nan)
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = x
    oh = (h + pad[0] + pad[2] - k) // stride + 1
    ow = (w + pad[1] + pad[3] - k) // stride + 1
    y = np.zeros((n, c, oh, ow))
    for a in range(oh):
        for b in range(ow):
            win = xp[:, :, a * stride:a * stride + k, b * stride:b * stride + k]
            y[:, :, a, b] = np.nanmax(win, axis=(2, 3)) if kind == "max" else np.nanmean(win, axis=(2, 3))
    return y


def layer_norm_ref(x, g, b, axes, eps):
    """x normalized over axes (in float64); g and b have the axes' extents in axes' order."""
    x = x.astype(np.float64)
    ax = tuple(a % x.ndim for a in axes)
    m = x.mean(axis=ax, keepdims=True)
    v = ((x - m) ** 2).mean(axis=ax, keepdims=True)
    order = np.argsort(ax)
    shape = [x.shape[d] if d in ax else 1 for d in range(x.ndim)]
    gb = [np.transpose(t.astype(np.float64), order).reshape(shape) for t in (g, b)]
    return (x - m) / np.sqrt(v + eps) * gb[0] + gb[1]


def adaptive_pool_ref(x, oh, ow):
    """NCHW, output row i averaging rows [floor(i H / oh), ceil((i + 1) H / oh))."""
    n, c, h, w = x.shape
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, he = i * h // oh, -(-(i + 1) * h // oh)
            ws, we = j * w // ow, -(-(j + 1) * w // ow)
            y[:, :, i, j] = x[:, :, hs:he, ws:we].astype(np.float64).mean(axis=(2, 3))
    return y


def check_norm_pool():
    # layer_norm: two shapes and axes each in float32 and float16 (half: within 2e-3)
    for shape, axes, eps in (((2, 3, 4), [1, 2], 1e-5), ((4, 6), [-1], 1e-3), ((2, 5, 3), [2, 1], 0.1)):
        gshape = tuple(shape[a] for a in axes)
        for dt, tol in (("float32", 1e-5), ("float16", 2e-3)):
            x, g, b = (grid(*shape) * 2).astype(dt), grid(*gshape).astype(dt), grid(*gshape).astype(dt)
            text = module([("x", shape), ("g", gshape), ("b", gshape)], shape,
                          "R.nn.layer_norm(x, g, b, axes=%s, epsilon=%r)" % (axes, eps), dt)
            check("layer_norm %s %s axes=%s" % (dt, shape, axes), run(text, {"x": x, "g": g, "b": b})[0],
                  layer_norm_ref(x, g, b, axes, eps), tol, tol)
    # adaptive_avg_pool2d in NCHW, NHWC and NCHW4c, windows of one and of several widths
    for (n, c, h, w), (oh, ow), lay in (((1, 3, 7, 5), (3, 2), "NCHW"), ((2, 4, 6, 6), (1, 1), "NHWC"),
                                        ((1, 8, 5, 5), (2, 3), "NCHW4c"), ((1, 2, 4, 6), (4, 3), "NHWC")):
        for dt, tol in (("float32", 1e-6), ("float16", 1e-3)):
            x = grid(n, c, h, w).astype(dt)
            ref = adaptive_pool_ref(x, oh, ow)
            if lay == "NHWC":
                xl, ref = x.transpose(0, 2, 3, 1), ref.transpose(0, 2, 3, 1)
            elif lay == "NCHW4c":
                xl = x.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2)
                ref = ref.reshape(n, c // 4, 4, oh, ow).transpose(0, 1, 3, 4, 2)
            else:
                xl = x
            xl = np.ascontiguousarray(xl)
            text = module([("x", xl.shape)], ref.shape,
                          'R.nn.adaptive_avg_pool2d(x, output_size=[%d, %d], layout="%s")' % (oh, ow, lay), dt)
            check("adaptive_avg_pool2d %s %s %s to %dx%d" % (dt, lay, (h, w), oh, ow), run(text, {"x": xl})[0],
                  ref, tol, tol)


def exact(name, got, want):
    """Bit-exact agreement (data movement, conversions, clipping, filling)."""
    global failures
    ok = got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
    print("numpy_check: %-34s %s (exact)" % (name, "ok" if ok else "FAILED"))
    failures += not ok


# resize2d's reference, shared with the differential test
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ops_diff import resize_ref  # noqa: E402


def check_more_ops():
    """Each operator on two shapes in two dtypes."""
    import math
    erf = np.vectorize(math.erf)
    for shape, dt in (((2, 3, 4), "float32"), ((5, 1, 3), "float16"), ((4, 6), "int32"), ((3, 1, 2, 2), "int8")):
        x = (grid(*shape) * 8).astype(dt)
        r = len(shape)
        moves = (("flatten", "R.flatten(x)", x.reshape(-1)),
                 ("expand_dims", "R.expand_dims(x, axis=[0, -1])", x.reshape((1,) + shape + (1,))),
                 ("squeeze", "R.squeeze(R.expand_dims(x, axis=1))", np.squeeze(x)),
                 ("broadcast_to", "R.broadcast_to(x, R.shape(%s))" % list((2,) + shape), np.broadcast_to(x, (2,) + shape)),
                 ("tile", "R.tile(x, [2, 1, 3])", np.tile(x, [2, 1, 3])),
                 ("repeat", "R.repeat(x, 2, axis=-1)", np.repeat(x, 2, axis=-1)),
                 ("repeat flat", "R.repeat(x, 3)", np.repeat(x, 3)),
                 ("flip", "R.flip(x, axis=1)", np.flip(x, 1)),
                 ("astype float16", 'R.astype(x, "float16")', x.astype(np.float16)),
                 ("astype int32", 'R.astype(x, dtype="int32")', np.trunc(x.astype(np.float64)).astype(np.int32)),
                 ("clip", "R.clip(x, -2, 3)", np.clip(x, -2, 3).astype(dt)),
                 ("zeros_like", "R.zeros_like(x)", np.zeros(shape, dt)),
                 ("full_like", 'R.full_like(x, 3, dtype="float32")', np.full(shape, 3, np.float32)),
                 ("full", 'R.full(R.shape(%s), R.const(2, "%s"))' % (list(shape), dt), np.full(shape, 2, dt)),
                 ("ones", 'R.ones(R.shape(%s), "%s")' % (list(shape), dt), np.ones(shape, dt)),
                 ("ewise_fma", "R.ewise_fma(x, x, x)", (x * x + x).astype(dt)))
        for name, body, want in moves:
            if name == "ewise_fma" and dt == "float16":
                want = ((x.astype(np.float64) * x).astype(np.float16) + x).astype(np.float16)
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n        y = %s\n"
                    "        return y\n" % (tensor(shape, dt), body))
            exact("%s %s %s" % (name, dt, shape), run(text, {"x": x})[0], np.ascontiguousarray(want))
        if dt.startswith("float"):
            v = x.astype(np.float64)
            tol = 1e-6 if dt == "float32" else 2e-3
            for name, body, want in (("gelu", "R.nn.gelu(x)", 0.5 * v * (1 + erf(v / np.sqrt(2)))),
                                     ("gelu_tanh", "R.nn.gelu_tanh(x)",
                                      0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))),
                                     ("silu", "R.nn.silu(x)", v / (1 + np.exp(-v))),
                                     ("power", "R.power(R.clip(x, 0.25, 4), x)", np.power(np.clip(v, 0.25, 4), v))):
                text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n        y = %s\n"
                        "        return y\n" % (tensor(shape, dt), body))
                check("%s %s %s" % (name, dt, shape), run(text, {"x": x})[0], want, tol * 8, tol)
    for body, want in (("R.arange(0, 10, 3)", np.arange(0, 10, 3, dtype=np.int64)),
                       ('R.arange(1.5, -1, -0.5, dtype="float32")', np.arange(1.5, -1, -0.5, dtype=np.float32)),
                       ('R.arange(5, dtype="int32")', np.arange(5, dtype=np.int32)),
                       ('R.arange(0.25, 2, 0.25, "float16")', np.arange(0.25, 2, 0.25).astype(np.float16))):
        text = "@I.ir_module\nclass Module:\n    @R.function\n    def main():\n        y = %s\n        return y\n" % body
        exact(body, run(text, {})[0], want)


def check_gather():
    """gather_elements on two shapes in two dtypes, negative indices too."""
    rng = np.random.default_rng(7)
    for shape, ishape, axis, dt, idt in (((3, 4), (2, 4), 0, "float32", "int64"),
                                         ((2, 3, 5), (2, 2, 7), -1, "float16", "int32"),
                                         ((4, 2, 3), (4, 1, 3), 1, "int32", "int64")):
        x = (grid(*shape) * 8).astype(dt)
        e = shape[axis]
        i = rng.integers(-e, e, size=ishape).astype(idt)
        text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s, i: %s):\n"
                "        y = R.gather_elements(x, i, axis=%d)\n        return y\n" % (tensor(shape, dt), tensor(ishape, idt), axis))
        # off the axis, the indices' extents may be smaller: they read that corner of x
        ax = axis % len(shape)
        xs = x[tuple(slice(None) if d == ax else slice(0, ishape[d]) for d in range(len(shape)))]
        want = np.take_along_axis(xs, np.where(i < 0, i + e, i).astype(np.int64), axis=axis)
        exact("gather_elements %s %s axis=%d" % (dt, shape, axis), run(text, {"x": x, "i": i})[0], want)


def check_resize():
    """resize2d against the same float32 formulas in NumPy: bit-exact."""
    for (n, c, h, w), (oh, ow), lay, method, mode, rounding in (
            ((1, 2, 3, 5), (7, 4), "NCHW", "linear", "half_pixel", ""),
            ((2, 3, 4, 4), (8, 8), "NHWC", "nearest_neighbor", "asymmetric", "floor"),
            ((1, 8, 5, 3), (2, 6), "NCHW4c", "linear", "align_corners", ""),
            ((1, 4, 6, 6), (4, 9), "NCHW", "nearest_neighbor", "half_pixel", "round_prefer_ceil"),
            ((1, 4, 2, 7), (5, 3), "NHWC", "linear", "pytorch_half_pixel", "")):
        for dt in ("float32", "float16"):
            x = grid(n, c, h, w).astype(dt)
            want = resize_ref(x, oh, ow, method, mode, rounding or "round").astype(dt)
            if lay == "NHWC":
                xl, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
            elif lay == "NCHW4c":
                xl = x.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2)
                want = want.reshape(n, c // 4, 4, oh, ow).transpose(0, 1, 3, 4, 2)
            else:
                xl = x
            xl = np.ascontiguousarray(xl)
            body = 'R.image.resize2d(x, R.shape([%d, %d]), layout="%s", method="%s", coordinate_transformation_mode="%s"%s)' % (
                oh, ow, lay, method, mode, ', rounding_method="%s"' % rounding if rounding else "")
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n        y = %s\n"
                    "        return y\n" % (tensor(xl.shape, dt), body))
            exact("resize2d %s %s %s %s" % (dt, lay, method, mode), run(text, {"x": xl})[0], np.ascontiguousarray(want))


def pool_ceil_ref(x, k, stride, pad, kind, ceil, cip):
    """NCHW pooling in float64 with ceil_mode (the output extent rounded up, as
    Relax infers it) and count_include_pad (avg: divide by the window's points
    inside the input with its declared padding, else by those inside the input)."""
    n, c, h, w = x.shape
    ext = []
    for a, (size, lo, hi) in enumerate(((h, pad[0], pad[2]), (w, pad[1], pad[3]))):
        span = size + lo + hi - k[a]
        ext.append((span + (stride[a] - 1 if ceil else 0)) // stride[a] + 1)
    y = np.zeros((n, c, ext[0], ext[1]))
    xv = x.astype(np.float64)
    for i in range(ext[0]):
        for j in range(ext[1]):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[1]
            hs, he, ws, we = max(h0, 0), min(h0 + k[0], h), max(w0, 0), min(w0 + k[1], w)
            win = xv[:, :, hs:he, ws:we]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3)) if win.size else np.finfo(x.dtype).min
                continue
            if cip:
                cnt = (min(h0 + k[0], h + pad[2]) - h0) * (min(w0 + k[1], w + pad[3]) - w0)
            else:
                cnt = max(he - hs, 0) * max(we - ws, 0)
            y[:, :, i, j] = win.sum(axis=(2, 3)) / max(cnt, 1)
    return y


def nchw_to(x, lay):
    """An NCHW array in NCHW, NHWC or NCHW4c."""
    if lay == "NHWC":
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    if lay == "NCHW4c":
        n, c, h, w = x.shape
        return np.ascontiguousarray(x.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2))
    return x


def check_pool_ceil_layout():
    """max/avg_pool2d with ceil_mode, count_include_pad and an out_layout other
    than the layout; adaptive_avg_pool2d with an out_layout: two shapes, two dtypes."""
    cases = ((("max", (1, 4, 8, 7), (3, 2), (2, 2), (0, 0, 0, 0), True, False, "NCHW", "NHWC")),
             (("avg", (2, 8, 6, 7), (3, 3), (2, 3), (1, 1, 1, 0), True, True, "NCHW4c", "NCHW")),
             (("avg", (1, 4, 5, 5), (2, 2), (2, 2), (1, 0, 1, 0), True, False, "NHWC", "NCHW4c")),
             (("max", (2, 8, 5, 9), (2, 3), (3, 2), (1, 1, 1, 1), False, False, "NCHW4c", "NHWC")))
    for kind, shape, k, stride, pad, ceil, cip, lay, olay in cases:
        for dt, tol in (("float32", 1e-6), ("float16", 1e-3)):
            x = grid(*shape).astype(dt)
            ref = nchw_to(pool_ceil_ref(x, k, stride, pad, kind, ceil, cip), olay)
            xl = nchw_to(x, lay)
            body = ("R.nn.%s_pool2d(x, pool_size=%s, strides=%s, padding=%s, ceil_mode=%s%s, layout=\"%s\", "
                    "out_layout=\"%s\")" % (kind, list(k), list(stride), list(pad), ceil,
                                             ", count_include_pad=True" if cip else "", lay, olay))
            text = module([("x", xl.shape)], ref.shape, body, dt)
            check("%s_pool2d %s %s ceil=%s %s to %s" % (kind, dt, shape, ceil, lay, olay), run(text, {"x": xl})[0],
                  ref, tol, tol)
    for shape, (oh, ow), lay, olay in (((1, 4, 7, 5), (3, 2), "NCHW", "NCHW4c"), ((2, 8, 6, 6), (4, 3), "NCHW4c", "NHWC")):
        for dt, tol in (("float32", 1e-6), ("float16", 1e-3)):
            x = grid(*shape).astype(dt)
            ref = nchw_to(adaptive_pool_ref(x, oh, ow), olay)
            text = module([("x", nchw_to(x, lay).shape)], ref.shape, 'R.nn.adaptive_avg_pool2d(x, output_size=[%d, %d], '
                          'layout="%s", out_layout="%s")' % (oh, ow, lay, olay), dt)
            check("adaptive_avg_pool2d %s %s to %s" % (dt, lay, olay), run(text, {"x": nchw_to(x, lay)})[0], ref, tol, tol)


def check_matmul_broadcast():
    """matmul with NumPy's rules (1-d operands, unequal ranks, broadcast batch
    dimensions) in float32, float16 accumulated in float32, and int8 with
    out_dtype int32 (exact)."""
    rng = np.random.default_rng(23)
    for sa, sb in (((2, 1, 3, 4), (5, 4, 6)), ((4,), (3, 4, 2)), ((2, 3, 5), (5,)), ((6,), (6,)),
                   ((1, 2, 3), (4, 1, 3, 2))):
        for dt, odt in (("float32", None), ("float16", "float32"), ("int8", "int32")):
            if dt == "int8":
                a, b = rng.integers(-100, 100, size=sa).astype(np.int8), rng.integers(-100, 100, size=sb).astype(np.int8)
            else:
                a, b = grid(*sa).astype(dt), grid(*sb).astype(dt)
            want = np.matmul(a.astype(np.float64 if dt != "int8" else np.int64), b.astype(np.float64 if dt != "int8" else np.int64))
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(a: %s, b: %s):\n"
                    "        y = R.matmul(a, b%s)\n        return y\n" % (tensor(sa, dt), tensor(sb, dt),
                                                                     ', out_dtype="%s"' % odt if odt else ""))
            got = run(text, {"a": a, "b": b})[0]
            name = "matmul %s %s @ %s" % (dt, sa, sb)
            if dt == "int8":
                exact(name, got, np.asarray(want).astype(np.int32))
            else:
                check(name, got, np.asarray(want), 1e-6, 1e-6)


def check_resize_cubic():
    """resize2d method="cubic" (alpha, exclude, coordinate modes, layouts)
    against the same float32 formulas in NumPy: bit-exact."""
    for (n, c, h, w), (oh, ow), lay, mode, alpha, exclude in (
            ((1, 2, 4, 5), (7, 3), "NCHW", "half_pixel", -0.75, 0),
            ((2, 3, 3, 3), (8, 6), "NHWC", "align_corners", -0.5, 1),
            ((1, 8, 5, 4), (2, 9), "NCHW4c", "asymmetric", -0.75, 1),
            ((1, 4, 6, 2), (4, 5), "NCHW", "pytorch_half_pixel", -0.6, 0)):
        for dt in ("float32", "float16"):
            x = grid(n, c, h, w).astype(dt)
            want = resize_ref(x, oh, ow, "cubic", mode, "round", alpha, exclude).astype(dt)
            xl, want = nchw_to(x, lay), nchw_to(want, lay)
            body = ('R.image.resize2d(x, R.shape([%d, %d]), layout="%s", method="cubic", '
                    'coordinate_transformation_mode="%s", cubic_alpha=%r, cubic_exclude=%d)' % (oh, ow, lay, mode, alpha,
                                                                                          exclude))
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n        y = %s\n"
                    "        return y\n" % (tensor(xl.shape, dt), body))
            exact("resize2d cubic %s %s %s a=%g ex=%d" % (dt, lay, mode, alpha, exclude), run(text, {"x": xl})[0],
                  np.ascontiguousarray(want))


def check_limits():
    """At lopt's limits: concat of 64 tensors, split into 64 sections, rank 16."""
    for dt in ("float32", "int8"):
        for shape, axis in (((2, 1), 1), ((3, 2, 2), 0)):
            parts = [(grid(*shape) * 64).astype(dt) for _ in range(64)]
            names = ["x%d" % i for i in range(64)]
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n"
                    "        y = R.concat((%s), axis=%d)\n        return y\n"
                    % (", ".join("%s: %s" % (n, tensor(shape, dt)) for n in names), ", ".join(names), axis))
            exact("concat of 64 %s %s" % (dt, shape), run(text, dict(zip(names, parts)))[0],
                  np.concatenate(parts, axis=axis))
            whole = np.concatenate(parts, axis=axis)
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n"
                    "        y = R.split(x, indices_or_sections=64, axis=%d)\n        return y\n"
                    % (tensor(whole.shape, dt), axis))
            got = run(text, {"x": whole})
            # run() gives the outputs in the order of their file names: output0, output1, output10, ...
            order = sorted(range(64), key=lambda i: "output%d" % i)
            got = [got[order.index(i)] for i in range(64)]
            exact("split into 64 %s %s" % (dt, whole.shape), np.stack(got), np.stack(np.split(whole, 64, axis=axis)))
        for shape in ((1,) * 14 + (2, 3), (2,) * 16):
            x = (grid(*shape) * 64).astype(dt)
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s):\n"
                    "        y = R.sum(R.add(x, x), axis=[0, 15], keepdims=True)\n        return y\n" % tensor(shape, dt))
            want = (x.astype(np.int64 if dt == "int8" else np.float64) * 2).sum(axis=(0, 15), keepdims=True)
            exact("rank 16 add and sum %s %s" % (dt, shape[-4:]), run(text, {"x": x})[0],
                  want.astype(np.int8 if dt == "int8" else np.float32))
# ---- collapse_sum, scatter, dynamic_strided_slice, conv2d_transpose (issue 23) ----

def small_ints(shape, dt, lo=-4, hi=5):
    """Small integers: their sums and products stay exact in every dtype used here."""
    return rng.integers(lo, hi, size=shape).astype(dt)


def one_op(params, body):
    ps = ", ".join("%s: %s" % (n, tensor(a.shape, a.dtype.name)) for n, a in params)
    return ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n        y = %s\n        return y\n"
            % (ps, body))


def check_collapse_sum():
    """collapse_sum_to / _like on two shapes in three dtypes: exact (small integers)."""
    for shape, target, dt in (((2, 3, 4), (3, 1), "float32"), ((2, 4, 1, 5), (4, 1, 1), "float16"),
                              ((3, 2, 2, 3), (1, 2, 1, 3), "int32"), ((5,), (1,), "float32")):
        x = small_ints(shape, dt)
        off = len(shape) - len(target)
        ax = tuple(range(off)) + tuple(off + d for d, t in enumerate(target) if t == 1 and shape[off + d] != 1)
        want = x.astype(np.int64).sum(axis=ax, keepdims=True).reshape(target).astype(dt)
        exact("collapse_sum_to %s %s->%s" % (dt, shape, target),
              run(one_op([("x", x)], "R.collapse_sum_to(x, R.shape(%s))" % list(target)), {"x": x})[0], want)
        y = np.zeros(target, dt)
        exact("collapse_sum_like %s %s->%s" % (dt, shape, target),
              run(one_op([("x", x), ("t", y)], "R.collapse_sum_like(x, t)"), {"x": x, "t": y})[0], want)


def scatter_combine(red, old, u):
    return {"update": u, "add": old + u, "mul": old * u, "mean": old + u, "max": max(old, u), "min": min(old, u)}[red]


def scatter_mean_finish(out, count, dt):
    if np.issubdtype(np.dtype(dt), np.floating):
        return (out / count.astype(dt)).astype(dt)
    return (out // count.astype(dt)).astype(dt)


def scatter_elements_ref(x, ind, upd, axis, red):
    """In the dtype, one update at a time in row-major order of the indices."""
    out, count = x.copy(), np.ones(x.shape, np.int64)
    for pos in np.ndindex(*ind.shape):
        i = int(ind[pos])
        at = list(pos)
        at[axis] = i + x.shape[axis] if i < 0 else i
        at = tuple(at)
        out[at] = scatter_combine(red, out[at], upd[pos])
        count[at] += 1
    return scatter_mean_finish(out, count, x.dtype) if red == "mean" else out


def scatter_nd_ref(x, ind, upd, red):
    out = x.copy()
    m = ind.shape[-1]
    for lead in np.ndindex(*ind.shape[:-1]):
        at = tuple(int(i) + x.shape[j] if i < 0 else int(i) for j, i in enumerate(ind[lead]))
        for rest in np.ndindex(*x.shape[m:]):
            out[at + rest] = scatter_combine(red, out[at + rest], upd[lead + rest])
    return out


def check_scatter():
    """scatter_elements and scatter_nd, every reduction, two shapes in two dtypes: exact."""
    for shape, ishape, axis, dt, idt in (((4, 3), (3, 3), 0, "float32", "int64"),
                                         ((2, 3, 5), (2, 2, 6), -1, "int32", "int32"),
                                         ((3, 4, 2), (2, 4, 1), 1, "float16", "int64")):
        x = small_ints(shape, dt)
        e = shape[axis]
        i = rng.integers(-e, e, size=ishape).astype(idt)
        u = small_ints(ishape, dt, -3, 4)
        for red in ("update", "add", "mul", "mean", "max", "min"):
            body = "R.scatter_elements(x, i, u, axis=%d, reduction=\"%s\")" % (axis, red)
            exact("scatter_elements %s %s %s" % (dt, shape, red),
                  run(one_op([("x", x), ("i", i), ("u", u)], body), {"x": x, "i": i, "u": u})[0],
                  scatter_elements_ref(x, i, u, axis % len(shape), red))
    for shape, ishape, dt, idt in (((4, 3), (5, 1), "float32", "int64"), ((3, 2, 4), (2, 3, 2), "int8", "int32"),
                                   ((2, 3), (4, 2), "float16", "int64")):
        x = small_ints(shape, dt)
        m = ishape[-1]
        i = np.stack([rng.integers(-shape[j], shape[j], size=ishape[:-1]) for j in range(m)], axis=-1).astype(idt)
        u = small_ints(ishape[:-1] + shape[m:], dt, -2, 3)
        for red in ("update", "add", "mul", "max", "min"):
            body = "R.scatter_nd(x, i, u, reduction=\"%s\")" % red
            exact("scatter_nd %s %s %s" % (dt, shape, red),
                  run(one_op([("x", x), ("i", i), ("u", u)], body), {"x": x, "i": i, "u": u})[0],
                  scatter_nd_ref(x, i, u, red))


def check_dynamic_slice():
    """dynamic_strided_slice with constant bounds against NumPy's slices: exact."""
    for shape, b, e, st, dt in (((5, 4), [4, 1], [-7, 4], [-2, 2], "float32"), ((3, 6, 2), [1, -5], [3, 100], [1, 3], "int8"),
                                ((6,), [-1], [0], [-1], "float16")):
        x = small_ints(shape, dt)
        c = lambda v: 'R.const(%s, "int64")' % list(v)
        body = "R.dynamic_strided_slice(x, %s, %s, %s)" % (c(b), c(e), c(st))
        want = x[tuple(slice(b[d], e[d], st[d]) for d in range(len(b)))]
        exact("dynamic_strided_slice %s %s" % (dt, shape), run(one_op([("x", x)], body), {"x": x})[0],
              np.ascontiguousarray(want))


def conv2d_transpose_ref(x, w, s, pad, op, dil, g):
    """NCHW x IOHW in float64 (or int64): each input spreads over the output."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    oh = (h - 1) * s[0] - pad[0] - pad[2] + dil[0] * (kh - 1) + op[0] + 1
    ow = (wd - 1) * s[1] - pad[1] - pad[3] + dil[1] * (kw - 1) + op[1] + 1
    big = np.zeros((n, og * g, (h - 1) * s[0] + dil[0] * (kh - 1) + 1 + op[0] + pad[2],
                    (wd - 1) * s[1] + dil[1] * (kw - 1) + 1 + op[1] + pad[3]), dtype=x.dtype)
    ig = c // g
    for cc in range(c):
        o0 = cc // ig * og
        for a in range(kh):
            for b in range(kw):
                big[:, o0:o0 + og, a * dil[0]:a * dil[0] + (h - 1) * s[0] + 1:s[0],
                    b * dil[1]:b * dil[1] + (wd - 1) * s[1] + 1:s[1]] += \
                    np.einsum("nhw,o->nohw", x[:, cc], w[cc, :, a, b])
    return big[:, :, pad[0]:pad[0] + oh, pad[1]:pad[1] + ow]


def check_conv2d_transpose():
    """conv2d_transpose: float32 within rounding, int32 exact, NCHW and NHWC/HWIO."""
    for xs, ws, s, pad, op, dil, g in (((1, 4, 5, 5), (4, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 1),
                                       ((2, 4, 3, 4), (4, 1, 2, 3), (3, 1), (0, 1, 2, 0), (2, 0), (1, 2), 2)):
        attrs = "strides=%s, padding=%s, output_padding=%s, dilation=%s, groups=%d" % (
            list(s), list(pad), list(op), list(dil), g)
        x, w = grid(*xs), grid(*ws)
        want = conv2d_transpose_ref(x.astype(np.float64), w.astype(np.float64), s, pad, op, dil, g)
        check("conv2d_transpose float32 %s %s" % (xs, ws),
              run(one_op([("x", x), ("w", w)], "R.nn.conv2d_transpose(x, w, %s)" % attrs), {"x": x, "w": w})[0], want)
        xi, wi = small_ints(xs, "int32"), small_ints(ws, "int32")
        want = conv2d_transpose_ref(xi.astype(np.int64), wi.astype(np.int64), s, pad, op, dil, g).astype(np.int32)
        exact("conv2d_transpose int32 %s %s" % (xs, ws),
              run(one_op([("x", xi), ("w", wi)], "R.nn.conv2d_transpose(x, w, %s)" % attrs), {"x": xi, "w": wi})[0],
              want)
        xh, wh = np.ascontiguousarray(xi.transpose(0, 2, 3, 1)), np.ascontiguousarray(wi.transpose(2, 3, 0, 1))
        body = 'R.nn.conv2d_transpose(x, w, %s, data_layout="NHWC", kernel_layout="HWIO")' % attrs
        exact("conv2d_transpose int32 NHWC %s" % (xs,), run(one_op([("x", xh), ("w", wh)], body), {"x": xh, "w": wh})[0],
              np.ascontiguousarray(want.transpose(0, 2, 3, 1)))



def check_take_group_norm():
    """take (two shapes, two dtypes, an axis and none; indices in range, as
    Relax's default mode assumes) and
    group_norm (two shapes, float32 and float16) against NumPy."""
    rng = np.random.default_rng(11)
    for shape, ishape, axis, dt, idt in (((4, 3), (2, 5), 0, "float32", "int64"),
                                         ((2, 5, 3), (4,), 1, "float16", "int32"),
                                         ((3, 4), (2, 2), None, "int32", "int64")):
        x = (grid(*shape) * 8).astype(dt)
        e = shape[axis] if axis is not None else x.size
        i = rng.integers(0, e, size=ishape).astype(idt)
        attr = ", axis=%d" % axis if axis is not None else ""
        text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s, i: %s):\n"
                "        y = R.take(x, i%s)\n        return y\n" % (tensor(shape, dt), tensor(ishape, idt), attr))
        want = np.take(x, i.astype(np.int64), axis=axis)
        exact("take %s %s axis=%s" % (dt, shape, axis), run(text, {"x": x, "i": i})[0], want)
    for shape, groups, ch, axes, eps in (((2, 4, 3, 3), 2, 1, [2, 3], 1e-5), ((1, 5, 6), 3, 2, [1], 1e-3)):
        c = shape[ch]
        for dt, tol in (("float32", 1e-5), ("float16", 3e-3)):
            x, g, b = (grid(*shape) * 2).astype(dt), grid(c).astype(dt), grid(c).astype(dt)
            text = module([("x", shape), ("g", (c,)), ("b", (c,))], shape,
                          "R.nn.group_norm(x, g, b, num_groups=%d, channel_axis=%d, axes=%s, epsilon=%r)"
                          % (groups, ch, axes, eps), dt)
            v = np.moveaxis(x.astype(np.float64), ch, 0)
            rest = [a + (1 if a < ch else 0) for a in axes]   # the axes after moving ch to the front
            vg = v.reshape((groups, c // groups) + v.shape[1:])
            red = (1,) + tuple(r + 1 for r in rest)
            m = vg.mean(axis=red, keepdims=True)
            var = ((vg - m) ** 2).mean(axis=red, keepdims=True)
            q = ((vg - m) / np.sqrt(var + eps)).reshape(v.shape)
            bs = (c,) + (1,) * (len(shape) - 1)
            want = np.moveaxis(q * g.astype(np.float64).reshape(bs) + b.astype(np.float64).reshape(bs), 0, ch)
            check("group_norm %s %s groups=%d" % (dt, shape, groups), run(text, {"x": x, "g": g, "b": b})[0],
                  want, tol, tol)

def batch_norm_ref(x, g, b, mm, mv, axis, eps, training, momentum, center, scale):
    """TVM's batch_norm in float64: by the batch's mean and (biased) variance over
    every axis but axis when training, else by the moving ones; then the moving
    statistics, updated with momentum when training, else as they came."""
    x = x.astype(np.float64)
    bs = [1] * x.ndim
    bs[axis] = x.shape[axis]
    g, b, mm, mv = (t.astype(np.float64) for t in (g, b, mm, mv))
    rest = tuple(d for d in range(x.ndim) if d != axis)
    if training:
        mean, var = x.mean(axis=rest), x.var(axis=rest)
    else:
        mean, var = mm, mv
    y = (x - mean.reshape(bs)) / np.sqrt(var.reshape(bs) + eps)
    y = y * g.reshape(bs) if scale else y
    y = y + b.reshape(bs) if center else y
    if not training:
        return y, mm, mv
    return y, mm * (1 - momentum) + mean * momentum, mv * (1 - momentum) + var * momentum


def check_batch_norm():
    """batch_norm in both modes (training, TVM's default when the call does
    not say, and training=False), three shapes and axes, float32 and
    float16, center and scale off in turn, and its three results."""
    cases = (((2, 3, 4, 4), 1, 1e-5, None, True, True),
             ((4, 6), -1, 1e-3, 0.25, True, True),
             ((3, 2, 5), 0, 0.5, None, False, True),
             ((2, 5, 3), 2, 1e-5, 0.5, True, False))
    for shape, axis, eps, mom, center, scale in cases:
        c = shape[axis]
        more = "" if eps == 1e-5 else ", epsilon=%r" % eps
        more += "" if mom is None else ", momentum=%r" % mom
        more += "" if center else ", center=False"
        more += "" if scale else ", scale=False"
        mom = 0.1 if mom is None else mom
        for training in (None, True, False):
            for dt, tol in (("float32", 1e-5), ("float16", 3e-3)):
                x, g, b, mm = ((grid(*shape) * 2).astype(dt), grid(c).astype(dt), grid(c).astype(dt),
                               grid(c).astype(dt))
                mv = (np.abs(grid(c)) + 0.25).astype(dt)
                tr = "" if training is None else ", training=%s" % training
                ps = ", ".join("%s: %s" % (n, tensor(s, dt)) for n, s in
                               (("x", shape), ("g", (c,)), ("b", (c,)), ("m", (c,)), ("v", (c,))))
                text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n"
                        "        t = R.nn.batch_norm(x, g, b, m, v, axis=%d%s%s)\n        return t\n"
                        % (ps, axis, more, tr))
                got = run(text, {"x": x, "g": g, "b": b, "m": mm, "v": mv})
                want = batch_norm_ref(x, g, b, mm, mv, axis % len(shape), eps, training is not False, mom,
                                      center, scale)
                for k, what in enumerate(("out", "moving_mean", "moving_var")):
                    check("batch_norm %s %s axis=%d %s %s" % (dt, shape, axis,
                                                             "training" if training is not False else "inference",
                                                             what), got[k], want[k], tol, tol)


def reverse_sequence_ref(x, lens, seq_axis, batch_axis):
    """Relay's reverse_sequence: along seq_axis, the first lens[b] elements
    of batch index b reversed (all of them past the extent, none below 2)."""
    y = x.copy()
    for b in range(x.shape[batch_axis]):
        n = min(int(lens[b]), x.shape[seq_axis])
        if n < 2:
            continue
        src = [slice(None)] * x.ndim
        src[batch_axis] = b
        src[seq_axis] = slice(0, n)
        dst = list(src)
        y[tuple(dst)] = np.flip(x[tuple(src)], axis=seq_axis - (1 if batch_axis < seq_axis else 0))
    return y


def check_reverse_sequence():
    """reverse_sequence on two shapes in two dtypes (and int lengths of both
    widths), lengths of 0, 1, inside, at and past the extent, negative axes."""
    rng = np.random.default_rng(23)
    for shape, seq, bat, dt, ldt in (((4, 5, 2), 1, 0, "float32", "int64"),
                                     ((2, 3, 6, 4), -2, 1, "float16", "int32"),
                                     ((7, 3), 0, -1, "int32", "int64")):
        x = (grid(*shape) * 8).astype(dt)
        s, b = seq % len(shape), bat % len(shape)
        lens = rng.integers(-1, shape[s] + 3, size=shape[b]).astype(ldt)
        lens[0] = shape[s]
        text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: %s, l: %s):\n"
                "        y = R.reverse_sequence(x, l, seq_axis=%d, batch_axis=%d)\n        return y\n"
                % (tensor(shape, dt), tensor((shape[b],), ldt), seq, bat))
        exact("reverse_sequence %s %s seq=%d batch=%d" % (dt, shape, seq, bat), run(text, {"x": x, "l": lens})[0],
              reverse_sequence_ref(x, lens, s, b))


def check_floor_div_mod():
    """floor_divide and floor_mod (rounding toward minus infinity, signs of
    both kinds, broadcasting) on two shapes in two dtypes, against NumPy's
    floor_divide and mod (exact: for floats NumPy's and lopt's quotients
    floor the same float64 division of these grid values)."""
    rng = np.random.default_rng(29)
    for (sa, sb), dt in ((((3, 4), (4,)), "int32"), (((2, 3, 5), (2, 1, 5)), "float32"),
                         (((2, 3, 5), (2, 1, 5)), "int64"), (((3, 4), (4,)), "float32")):
        if dt.startswith("int"):
            a = rng.integers(-20, 21, size=sa).astype(dt)
            b = rng.integers(1, 6, size=sb).astype(dt) * rng.choice([-1, 1], size=sb).astype(dt)
        else:
            a = (grid(*sa) * 16).astype(dt)
            b = np.where(np.abs(grid(*sb)) < 0.25, 0.5, grid(*sb) * 4).astype(dt)
        for op, ref in (("R.floor_divide", np.floor_divide), ("R.floor_mod", np.mod)):
            text = ("@I.ir_module\nclass Module:\n    @R.function\n    def main(a: %s, b: %s):\n"
                    "        y = %s(a, b)\n        return y\n" % (tensor(sa, dt), tensor(sb, dt), op))
            exact("%s %s %s %s" % (op[2:], dt, sa, sb), run(text, {"a": a, "b": b})[0], ref(a, b))


def check_unary_math():
    """log, abs, rsqrt, floor, ceil, round, sin, cos, square, sign and erf on
    two shapes in two float dtypes (the integer-taking ones in two integer
    dtypes too). abs, floor, ceil, round (halves to even: the data holds
    halves), square and sign are bit-exact against NumPy in the same dtype:
    one rounding of the same exact value, or none. log, rsqrt, sin, cos and
    erf are computed by lopt in float64 (C's libm) and rounded once to the
    dtype, as R.exp is; NumPy's float32 and float16 versions compute in
    other ways, so the reference is NumPy's float64 value and the tolerance
    one unit of the dtype's precision (2^-23 or 2^-10 relative): half a unit
    from the one rounding, the rest for float64's own error."""
    import math
    erf = np.vectorize(math.erf)
    for shape, dt in (((2, 3, 4), "float32"), ((5, 6), "float16"), ((3, 7), "float32"), ((4, 1, 3), "float16")):
        x = (grid(*shape) * 8).astype(dt)            # multiples of 1/32 in [-8, 8): halves among them
        pos = (np.abs(grid(*shape)) * 8 + 0.03125).astype(dt)
        for op, ref in (("R.abs", np.abs), ("R.floor", np.floor), ("R.ceil", np.ceil), ("R.round", np.round),
                        ("R.square", np.square), ("R.sign", np.sign)):
            exact("%s %s %s" % (op[2:], dt, shape), run(one_op([("x", x)], "%s(x)" % op), {"x": x})[0], ref(x))
        unit = 2.0 ** -23 if dt == "float32" else 2.0 ** -10
        for op, ref, v in (("R.log", np.log, pos), ("R.rsqrt", lambda a: 1 / np.sqrt(a), pos), ("R.sin", np.sin, x),
                           ("R.cos", np.cos, x), ("R.erf", erf, x)):
            check("%s %s %s" % (op[2:], dt, shape), run(one_op([("x", v)], "%s(x)" % op), {"x": v})[0],
                  ref(v.astype(np.float64)), atol=0, rtol=unit)
    # sign's zeros and NaN: array_equal takes -0 for 0 and NaN for unequal,
    # so compare the sign bits and the NaNs
    for dt in ("float32", "float16"):
        x = np.array([-0.0, 0.0, np.nan, -2.5, 0.5], dtype=dt)
        got, want = run(one_op([("x", x)], "R.sign(x)"), {"x": x})[0], np.sign(x)
        exact("sign %s -0, 0, NaN: sign bits" % dt, np.signbit(got), np.signbit(want))
        exact("sign %s -0, 0, NaN: NaNs" % dt, np.isnan(got), np.isnan(want))
    for shape, dt in (((3, 4), "int32"), ((2, 1, 5), "int64")):
        x = np.random.default_rng(31).integers(-40, 41, size=shape).astype(dt)
        for op, ref in (("R.abs", np.abs), ("R.floor", np.floor), ("R.ceil", np.ceil), ("R.round", np.round),
                        ("R.square", np.square), ("R.sign", np.sign)):
            want = ref(x).astype(dt)                 # NumPy's floor of an integer is a float; lopt keeps the dtype
            exact("%s %s %s" % (op[2:], dt, shape), run(one_op([("x", x)], "%s(x)" % op), {"x": x})[0], want)


def check_compare_where():
    """The six comparisons (broadcasting, ties and a NaN among the floats),
    logical_not / _and / _or on bool tensors, and where with its three
    operands broadcast together, on two shape sets in two dtypes each:
    exact (no arithmetic, a bool or a chosen element)."""
    rng = np.random.default_rng(37)
    for (sa, sb), dt in ((((3, 4), (4,)), "float32"), (((2, 1, 5), (3, 1)), "int32"),
                         (((2, 1, 5), (3, 1)), "float16"), (((3, 4), (4,)), "int64")):
        a = rng.integers(-3, 4, size=sa).astype(dt)
        b = rng.integers(-3, 4, size=sb).astype(dt)
        if dt.startswith("float"):
            a.flat[1] = np.nan
        for op, ref in (("R.less", np.less), ("R.greater", np.greater), ("R.equal", np.equal),
                        ("R.not_equal", np.not_equal), ("R.less_equal", np.less_equal),
                        ("R.greater_equal", np.greater_equal)):
            exact("%s %s %s %s" % (op[2:], dt, sa, sb),
                  run(one_op([("a", a), ("b", b)], "%s(a, b)" % op), {"a": a, "b": b})[0], ref(a, b))
        p, q = a > 0, b < 1
        exact("logical_not %s" % (sa,), run(one_op([("p", p)], "R.logical_not(p)"), {"p": p})[0], ~p)
        for op, ref in (("R.logical_and", np.logical_and), ("R.logical_or", np.logical_or)):
            exact("%s %s %s" % (op[2:], sa, sb),
                  run(one_op([("p", p), ("q", q)], "%s(p, q)" % op), {"p": p, "q": q})[0], ref(p, q))
        # where: the condition (sb), x (sa) and y (a column) broadcast three ways
        y = rng.integers(10, 20, size=(sa[-2] if len(sa) > 1 else 1, 1)).astype(dt)
        c = rng.integers(0, 2, size=sb).astype(bool)
        x = np.where(np.isnan(a), 5, a).astype(dt)   # exact() takes NaN for unequal
        exact("where %s %s %s %s" % (dt, sb, sa, y.shape),
              run(one_op([("c", c), ("x", x), ("y", y)], "R.where(c, x, y)"), {"c": c, "x": x, "y": y})[0],
              np.where(c, x, y))


def check_argmax():
    """argmax and argmin along each axis (and a negative one) and over all,
    keepdims or not, on two shapes in two dtypes; the values from a small
    set, so ties are many and the first index is what is checked (exact)."""
    rng = np.random.default_rng(41)
    for shape, dt in (((3, 4, 5), "float32"), ((6, 2), "int32"), ((2, 3, 4), "int64"), ((5, 3), "float16")):
        x = rng.integers(-3, 4, size=shape).astype(dt)
        for op, fn in (("R.argmax", np.argmax), ("R.argmin", np.argmin)):
            for axis in list(range(len(shape))) + [-1, None]:
                for keep in (False, True):
                    body = "%s(x, axis=%s, keepdims=%s)" % (op, axis, keep)
                    want = fn(x, axis=axis, keepdims=keep) if axis is not None else fn(x, keepdims=keep)
                    exact("%s %s %s axis=%s keep=%d" % (op[2:], dt, shape, axis, keep),
                          run(one_op([("x", x)], body), {"x": x})[0], np.asarray(want, dtype=np.int64))


def check_prod():
    """prod along axes, over all, keepdims, on two shapes in two float and
    two integer dtypes. Exact: the floats are signed powers of two (1/2 to 2),
    whose products are exact in any order while in range; the integers are
    small and their products wrap the same in NumPy."""
    rng = np.random.default_rng(43)
    for shape, dt in (((3, 4, 5), "float32"), ((4, 6), "float16"), ((2, 3, 4), "int32"), ((5, 3), "int64")):
        if dt.startswith("float"):
            x = (rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=shape)).astype(dt)
        else:
            x = rng.integers(-3, 4, size=shape).astype(dt)
        r = len(shape)
        for axis, keep in ((None, False), ([0], True), ([r - 1, 0], False), ([-1], True)):
            body = "R.prod(x%s, keepdims=%s)" % ("" if axis is None else ", axis=%s" % axis, keep)
            want = np.prod(x, axis=None if axis is None else tuple(axis), keepdims=keep).astype(dt)
            exact("prod %s %s axis=%s keep=%d" % (dt, shape, axis, keep), run(one_op([("x", x)], body), {"x": x})[0],
                  np.asarray(want))


def check_log_softmax():
    """log_softmax along each axis on two shapes in float32 and float16,
    against x - max - log(sum(exp(x - max))) in float64; within 1e-5 (float32)
    or 4e-3 (float16), absolute and relative: the exp, sum and log round in
    the dtype, as softmax's."""
    for shape, dt in (((3, 5, 4), "float32"), ((4, 6), "float16"), ((2, 7), "float32"), ((3, 2, 5), "float16")):
        x = (grid(*shape) * 6).astype(dt)
        v = x.astype(np.float64)
        tol = 1e-5 if dt == "float32" else 4e-3
        for axis in range(-1, len(shape)):
            m = v.max(axis=axis, keepdims=True)
            want = v - m - np.log(np.exp(v - m).sum(axis=axis, keepdims=True))
            check("log_softmax %s %s axis=%d" % (dt, shape, axis),
                  run(one_op([("x", x)], "R.nn.log_softmax(x, axis=%d)" % axis), {"x": x})[0], want, tol, tol)


def check_leakyrelu_softplus():
    """leakyrelu on two shapes in float32 and float16, exact against NumPy in
    the dtype (x * alpha rounded once in both); softplus against
    log1p(exp(beta x)) / beta in float64, where beta x (rounded in the dtype,
    as lopt compares it) is at most threshold, else x: within 2e-6 (float32)
    or 4e-3 (float16), absolute and relative, for the roundings of beta x,
    exp, 1 +, log and / beta in the dtype."""
    for shape, dt in (((2, 3, 4), "float32"), ((5, 6), "float16"), ((4, 5), "float32"), ((3, 1, 4), "float16")):
        x = (grid(*shape) * 8).astype(dt)
        for alpha in (0.01, 0.2):
            a = np.asarray(alpha, dtype=dt)
            exact("leakyrelu %s %s alpha=%g" % (dt, shape, alpha),
                  run(one_op([("x", x)], "R.nn.leakyrelu(x, alpha=%r)" % alpha), {"x": x})[0],
                  np.where(x > 0, x, x * a).astype(dt))
        tol = 2e-6 if dt == "float32" else 4e-3
        for beta, thr in ((1.0, 20.0), (2.0, 5.0), (0.5, 1.0)):
            bx = (x * np.asarray(beta, dtype=dt)).astype(np.float64)
            v = x.astype(np.float64)
            want = np.where(bx > thr, v, np.log1p(np.exp(bx)) / beta)
            check("softplus %s %s beta=%g thr=%g" % (dt, shape, beta, thr),
                  run(one_op([("x", x)], "R.nn.softplus(x, beta=%r, threshold=%r)" % (beta, thr)), {"x": x})[0],
                  want, tol, tol)


def check_issue23_ops():
    check_collapse_sum()
    check_scatter()
    check_dynamic_slice()
    check_conv2d_transpose()
    check_reverse_sequence()
    check_floor_div_mod()
    check_unary_math()
    check_compare_where()
    check_argmax()
    check_prod()
    check_log_softmax()
    check_leakyrelu_softplus()


def main():
    # conv2d NCHW, stride 2, padding 1
    x, w = grid(1, 8, 9, 9), grid(4, 8, 3, 3)
    text = module([("x", x.shape), ("w", w.shape)], (1, 4, 5, 5),
                  "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])")
    check("conv2d NCHW stride 2 pad 1", run(text, {"x": x, "w": w})[0], conv2d_ref(x, w, 2, (1, 1, 1, 1)))
    # conv2d NHWC / HWIO, asymmetric padding, dilation 2
    xh, wh = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    ref = conv2d_ref(x, w, 1, (2, 1, 0, 1), dil=2).transpose(0, 2, 3, 1)
    text = module([("x", xh.shape), ("w", wh.shape)], ref.shape,
                  'R.nn.conv2d(x, w, padding=[2, 1, 0, 1], dilation=[2, 2], data_layout="NHWC", kernel_layout="HWIO")')
    check("conv2d NHWC dilation 2 asym pad", run(text, {"x": xh, "w": wh})[0], ref)
    # depthwise
    wd = grid(8, 1, 3, 3)
    text = module([("x", x.shape), ("w", wd.shape)], (1, 8, 9, 9), "R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=8)")
    check("conv2d depthwise groups=8", run(text, {"x": x, "w": wd})[0], conv2d_ref(x, wd, 1, (1, 1, 1, 1), groups=8))
    # conv2d in NCHW4c / OIHW4o against the NCHW reference in the same layout
    x8, w8 = grid(1, 8, 6, 6), grid(8, 8, 3, 3)
    x4 = np.ascontiguousarray(x8.reshape(1, 2, 4, 6, 6).transpose(0, 1, 3, 4, 2))
    w4 = np.ascontiguousarray(w8.reshape(2, 4, 8, 3, 3).transpose(0, 2, 3, 4, 1))
    ref = conv2d_ref(x8, w8, 1, (1, 1, 1, 1)).reshape(1, 2, 4, 6, 6).transpose(0, 1, 3, 4, 2)
    text = module([("x", x4.shape), ("w", w4.shape)], ref.shape,
                  'R.nn.conv2d(x, w, padding=[1, 1, 1, 1], data_layout="NCHW4c", kernel_layout="OIHW4o")')
    check("conv2d NCHW4c / OIHW4o pad 1", run(text, {"x": x4, "w": w4})[0], ref)
    # matmul
    a, b = grid(16, 24), grid(24, 8)
    text = module([("a", a.shape), ("b", b.shape)], (16, 8), "R.matmul(a, b)")
    check("matmul 16x24x8", run(text, {"a": a, "b": b})[0], a.astype(np.float64) @ b.astype(np.float64))
    # pooling with padding
    p = grid(2, 3, 7, 7)
    text = module([("p", p.shape)], (2, 3, 4, 4), "R.nn.max_pool2d(p, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])")
    check("max_pool2d 3x3 stride 2 pad 1", run(text, {"p": p})[0], pool_ref(p, 3, 2, (1, 1, 1, 1), "max"))
    text = module([("p", p.shape)], (2, 3, 4, 4), "R.nn.avg_pool2d(p, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])")
    check("avg_pool2d 3x3 stride 2 pad 1", run(text, {"p": p})[0], pool_ref(p, 3, 2, (1, 1, 1, 1), "avg"))
    # softmax
    s = grid(3, 5, 4) * 4
    e = np.exp(s.astype(np.float64) - s.max(axis=1, keepdims=True))
    text = module([("s", s.shape)], s.shape, "R.nn.softmax(s, axis=1)")
    check("softmax axis 1", run(text, {"s": s})[0], e / e.sum(axis=1, keepdims=True))
    # layout_transform NCHW -> NCHW4c with C = 6: padded with 0.5, and undefined (poison) without
    t = grid(2, 6, 3, 3)
    want = np.full((2, 2, 3, 3, 4), 0.5)
    for c in range(6):
        want[:, c // 4, :, :, c % 4] = t[:, c]
    m = "T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c % 4))"
    text = module([("t", t.shape)], want.shape, "R.layout_transform(t, index_map=%s, pad_value=0.5)" % m)
    check("layout_transform C=6 to NCHW4c, pad 0.5", run(text, {"t": t})[0], want)
    got = run(module([("t", t.shape)], want.shape, "R.layout_transform(t, index_map=%s)" % m), {"t": t})[0]
    check("layout_transform C=6, no pad_value", np.concatenate([got[:, 0].ravel(), got[:, 1, :, :, :2].ravel()]),
          np.concatenate([want[:, 0].ravel(), want[:, 1, :, :, :2].ravel()]))
    global failures
    ok = bool(np.all(np.ascontiguousarray(got[:, 1, :, :, 2:]).view(np.uint32) == 0x7FC0DEAD))
    print("numpy_check: %-34s %s" % ("  its padding is the poison pattern", "ok" if ok else "FAILED"))
    failures += not ok
    check_norm_pool()
    check_more_ops()
    check_resize()
    check_gather()
    check_pool_ceil_layout()
    check_matmul_broadcast()
    check_resize_cubic()
    check_limits()
    check_issue23_ops()
    check_take_group_norm()
    check_batch_norm()
    print("numpy_check: %d failure%s" % (failures, "" if failures == 1 else "s"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
