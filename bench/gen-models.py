#!/usr/bin/env python3
"""Writes the model suite for convert-layout: NCHW graphs of registered
operators (R.nn.conv2d, R.nn.batch_norm, R.add, R.nn.relu, R.nn.max_pool2d,
R.mean, ...) whose
weights are constants, small enough for --verify-exec.

  resnet18     stem, max pool, 4 stages of 2 basic blocks (conv/relu/conv,
               residual add, projection shortcut when the stage narrows), mean
  resnet50     the same with bottleneck blocks (1x1, 3x3, 1x1 x4), each
               convolution followed by R.nn.batch_norm (inference form,
               training=False)
  mobilenetv2  inverted residuals: 1x1 expand, 3x3 depthwise (groups), 1x1
               project, each with R.nn.batch_norm; residual add when the
               shape allows
  unet         two levels: conv/relu encoders, max pool down, a 2x up-sampling
               by tiling (R.concat along H and W: lopt has no resize), skip
               connections joined by R.concat along C, a 1x1 head
  transformer  one pre-norm block on (1, T, D): layer norm written out (mean,
               subtract, multiply, sqrt, divide), q/k/v matmuls, softmax,
               output projection, residual add; no convolution
  seghead      a small segmentation head: two convolutions (the second
               strided), R.nn.layer_norm over the channels, a squeeze-and-
               excitation gate (R.nn.adaptive_avg_pool2d to 1x1, a 1x1
               convolution, sigmoid, multiply), a 1x1 classifier and
               R.image.resize2d back to the input's size

Usage: gen-models.py NAME [WIDTH] [H] > model.tir   (WIDTH: the first
stage's channels, a multiple of 4; H: the input's height and width)."""
import random
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
W = int(sys.argv[2]) if len(sys.argv) > 2 else 8
H = int(sys.argv[3]) if len(sys.argv) > 3 else 16
rng = random.Random(11)
lines = []
count = [0]


def const(shape):
    def nest(d):
        if d == len(shape):
            return "%g" % (rng.randrange(-3, 4) / 16)
        return "[" + ", ".join(nest(d + 1) for _ in range(shape[d])) + "]"
    return 'R.const(%s, "float32")' % nest(0)


def fresh(base):
    count[0] += 1
    return "%s%d" % (base, count[0])


def emit(value, base="lv"):
    v = fresh(base)
    lines.append("            %s = %s" % (v, value))
    return v


def conv(x, cin, cout, k, stride=1, groups=1):
    w = emit(const((cout, cin // groups, k, k)), "w")
    attrs = "padding=[%d, %d]" % (k // 2, k // 2)
    if stride != 1:
        attrs += ", strides=[%d, %d]" % (stride, stride)
    if groups != 1:
        attrs += ", groups=%d" % groups
    return emit("R.nn.conv2d(%s, %s, %s)" % (x, w, attrs))


def bias_relu(x, c, relu=True):
    b = emit(const((c, 1, 1)), "b")
    y = emit("R.add(%s, %s)" % (x, b))
    return emit("R.nn.relu(%s)" % y) if relu else y


def positive(shape):
    def nest(d):
        if d == len(shape):
            return "%g" % (rng.randrange(4, 17) / 16)
        return "[" + ", ".join(nest(d + 1) for _ in range(shape[d])) + "]"
    return 'R.const(%s, "float32")' % nest(0)


def bn_relu(x, c, relu=True):
    """batch_norm in inference form (moving mean and variance constants);
    item 0 of its tuple is the normalized tensor."""
    t = emit("R.nn.batch_norm(%s, %s, %s, %s, %s, axis=1, epsilon=1e-05, training=False)"
             % (x, positive((c,)), const((c,)), const((c,)), positive((c,))), "bn")
    y = emit("%s[0]" % t)
    return emit("R.nn.relu(%s)" % y) if relu else y


def basic(x, cin, cout, stride):
    y = bias_relu(conv(x, cin, cout, 3, stride), cout)
    y = bias_relu(conv(y, cout, cout, 3), cout, relu=False)
    s = x if stride == 1 and cin == cout else conv(x, cin, cout, 1, stride)
    return emit("R.nn.relu(%s)" % emit("R.add(%s, %s)" % (y, s)))


def bottleneck(x, cin, mid, stride):
    cout = 4 * mid
    y = bn_relu(conv(x, cin, mid, 1), mid)
    y = bn_relu(conv(y, mid, mid, 3, stride), mid)
    y = bn_relu(conv(y, mid, cout, 1), cout, relu=False)
    s = x if stride == 1 and cin == cout else conv(x, cin, cout, 1, stride)
    return emit("R.nn.relu(%s)" % emit("R.add(%s, %s)" % (y, s)))


def inverted(x, cin, cout, stride, t=2):
    mid = cin * t
    y = bn_relu(conv(x, cin, mid, 1), mid)
    y = bn_relu(conv(y, mid, mid, 3, stride, groups=mid), mid)
    y = bn_relu(conv(y, mid, cout, 1), cout, relu=False)
    if stride == 1 and cin == cout:
        y = emit("R.add(%s, %s)" % (y, x))
    return y


def stem(x):
    y = bias_relu(conv(x, 3, W, 3), W)
    return emit("R.nn.max_pool2d(%s, pool_size=[2, 2], strides=[2, 2])" % y), H // 2


if name == "resnet18":
    y, h = stem("x")
    c = W
    for i, cout in enumerate([W, 2 * W, 4 * W, 8 * W]):
        for j in range(2):
            stride = 2 if i > 0 and j == 0 and h > 1 else 1
            y = basic(y, c, cout, stride)
            h //= stride
            c = cout
elif name == "resnet50":
    y, h = stem("x")
    c = W
    for i, (mid, n) in enumerate([(W // 2, 3), (W, 4), (2 * W, 6), (4 * W, 3)]):
        for j in range(n):
            stride = 2 if i > 0 and j == 0 and h > 1 else 1
            y = bottleneck(y, c, mid, stride)
            h //= stride
            c = 4 * mid
elif name == "mobilenetv2":
    y = bias_relu(conv("x", 3, W, 3, 2), W)
    h = H // 2
    c = W
    for cout, n, s in [(W, 1, 1), (W, 2, 2), (2 * W, 3, 2), (2 * W, 3, 1), (4 * W, 2, 2)]:
        for j in range(n):
            stride = s if j == 0 and h > 1 else 1
            y = inverted(y, c, cout, stride)
            h //= stride
            c = cout
elif name == "unet":
    e1 = bias_relu(conv(bias_relu(conv("x", 3, W, 3), W), W, W, 3), W)
    d1 = emit("R.nn.max_pool2d(%s, pool_size=[2, 2], strides=[2, 2])" % e1)
    e2 = bias_relu(conv(bias_relu(conv(d1, W, 2 * W, 3), 2 * W), 2 * W, 2 * W, 3), 2 * W)
    d2 = emit("R.nn.max_pool2d(%s, pool_size=[2, 2], strides=[2, 2])" % e2)
    m = bias_relu(conv(d2, 2 * W, 4 * W, 3), 4 * W)

    def up(v, c):
        v = bias_relu(conv(v, c, c // 2, 1), c // 2)
        v = emit("R.concat((%s, %s), axis=2)" % (v, v))
        return emit("R.concat((%s, %s), axis=3)" % (v, v))
    u2 = emit("R.concat((%s, %s), axis=1)" % (e2, up(m, 4 * W)))
    u2 = bias_relu(conv(u2, 4 * W, 2 * W, 3), 2 * W)
    u1 = emit("R.concat((%s, %s), axis=1)" % (e1, up(u2, 2 * W)))
    u1 = bias_relu(conv(u1, 2 * W, W, 3), W)
    y = conv(u1, W, 4, 1)
    c = 4
elif name == "transformer":
    T_, D = H, 4 * W

    def mat(shape):
        return emit(const((1,) + shape), "w")

    def norm(v):
        mu = emit("R.mean(%s, axis=[2], keepdims=True)" % v)
        d = emit("R.subtract(%s, %s)" % (v, mu))
        var = emit("R.mean(%s, axis=[2], keepdims=True)" % emit("R.multiply(%s, %s)" % (d, d)))
        eps = emit("R.add(%s, R.const(0.00001, \"float32\"))" % var)
        return emit("R.divide(%s, %s)" % (d, emit("R.sqrt(%s)" % eps)))
    h = norm("x")
    q = emit("R.matmul(%s, %s)" % (h, mat((D, D))))
    k = emit("R.matmul(%s, %s)" % (h, mat((D, D))))
    v = emit("R.matmul(%s, %s)" % (h, mat((D, D))))
    sc = emit("R.matmul(%s, %s)" % (q, emit("R.permute_dims(%s, axes=[0, 2, 1])" % k)))
    sc = emit("R.multiply(%s, R.const(%g, \"float32\"))" % (sc, 1 / D ** 0.5))
    a = emit("R.nn.softmax(%s, axis=2)" % sc)
    o = emit("R.matmul(%s, %s)" % (emit("R.matmul(%s, %s)" % (a, v)), mat((D, D))))
    y = emit("R.add(%s, x)" % o)
elif name == "seghead":
    f = bias_relu(conv(bias_relu(conv("x", 3, W, 3), W), W, 2 * W, 3, 2), 2 * W)
    g, b = emit(const((2 * W,)), "w"), emit(const((2 * W,)), "w")
    f = emit("R.nn.layer_norm(%s, %s, %s, axes=[1], epsilon=1e-05)" % (f, g, b))
    p = emit("R.nn.adaptive_avg_pool2d(%s, output_size=[1, 1])" % f)
    gate = emit("R.sigmoid(%s)" % bias_relu(conv(p, 2 * W, 2 * W, 1), 2 * W, relu=False))
    f = emit("R.multiply(%s, %s)" % (f, gate))
    y = conv(f, 2 * W, 4, 1)
    y = emit('R.image.resize2d(%s, R.shape([%d, %d]), method="linear")' % (y, H, H))
    c = 4
else:
    sys.exit("gen-models.py: unknown model %s (resnet18, resnet50, mobilenetv2, unet, transformer, seghead)" % name)
if name == "transformer":
    out = emit("R.add(%s, R.const(0.0, \"float32\"))" % y, "gv")
    shape_in, shape_out = (1, T_, D), (1, T_, D)
elif name in ("unet", "seghead"):
    out = emit("R.nn.relu(%s)" % y, "gv")
    shape_in, shape_out = (1, 3, H, H), (1, c, H, H)
else:
    out = emit("R.mean(%s, axis=[2, 3])" % y, "gv")
    shape_in, shape_out = (1, 3, H, H), (1, c)

print("# %s-style model written by bench/gen-models.py %s %d %d." % (name, name, W, H))
print("@I.ir_module")
print("class Module:")
print("    @R.function")
print('    def main(x: R.Tensor(%s, dtype="float32")) -> R.Tensor(%s, dtype="float32"):'
      % (str(shape_in), str(shape_out)))
print("        with R.dataflow():")
print("\n".join(lines))
print("            R.output(%s)" % out)
print("        return %s" % out)
