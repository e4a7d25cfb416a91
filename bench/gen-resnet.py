#!/usr/bin/env python3
"""Writes a ResNet-style stack for the layout passes: a stem convolution,
BLOCKS residual blocks of conv / bias add / relu / residual add, and a head
convolution. The convolutions are frozen NCHW4c / OIHW4o PrimFuncs with
rewrites on their edges (as a tuner or convert-layout leaves them); weights
and biases are constants. Usage: gen-resnet.py [BLOCKS] [C] [H] > model.tir"""
import random
import sys

blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 16
C = int(sys.argv[2]) if len(sys.argv) > 2 else 8
H = int(sys.argv[3]) if len(sys.argv) > 3 else 4
rng = random.Random(7)
c4 = C // 4
to_c = "T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c % 4))"
from_c = "T.index_map(lambda n, c, h, w, c4: (n, c * 4 + c4, h, w))"
to_o = "T.index_map(lambda o, i, h, w: (o // 4, i, h, w, o % 4))"
t4 = 'R.Tensor((1, %d, %d, %d), dtype="float32")' % (C, H, H)
t5 = 'R.Tensor((1, %d, %d, %d, 4), dtype="float32")' % (c4, H, H)
tw = 'R.Tensor((%d, %d, 1, 1, 4), dtype="float32")' % (c4, C)


def const(shape):
    def nest(d):
        if d == len(shape):
            return "%g" % (rng.randrange(-64, 64) / 256)
        return "[" + ", ".join(nest(d + 1) for _ in range(shape[d])) + "]"
    return 'R.const(%s, "float32")' % nest(0)


print("# A ResNet-style stack written by bench/gen-resnet.py %d %d %d." % (blocks, C, H))
print("@I.ir_module")
print("class Module:")
print("    @R.function")
print("    def main(x: %s) -> %s:" % (t4, t4))
print("        cls = Module")
print("        with R.dataflow():")
n = 0


def conv(src, dst):
    global n
    n += 1
    print("            xc%d: %s = R.layout_transform(%s, index_map=%s)" % (n, t5, src, to_c))
    print("            wc%d: %s = R.layout_transform(%s, index_map=%s)" % (n, tw, const([C, C, 1, 1]), to_o))
    print("            y%d = R.call_tir(cls.conv1x1_nchw4c, (xc%d, wc%d), out_sinfo=%s)" % (n, n, n, t5))
    print("            %s: %s = R.layout_transform(y%d, index_map=%s)" % (dst, t4, n, from_c))


conv("x", "h0")
for b in range(blocks):
    conv("h%d" % b, "r%d" % b)
    print("            a%d = R.add(r%d, %s)" % (b, b, const([C, 1, 1])))
    print("            u%d = R.nn.relu(a%d)" % (b, b))
    print("            h%d = R.add(u%d, h%d)" % (b + 1, b, b))
conv("h%d" % blocks, "gv")
print("            R.output(gv)")
print("        return gv")
print()
print("    @T.prim_func")
print('    def conv1x1_nchw4c(X: T.Buffer((1, %d, %d, %d, 4), "float32"), W: T.Buffer((%d, %d, 1, 1, 4), "float32"), '
      'Y: T.Buffer((1, %d, %d, %d, 4), "float32")):' % (c4, H, H, c4, C, c4, H, H))
print('        T.func_attr({"frozen_layout": True})')
print("        for n, oc, h, w, oc4, ic in T.grid(1, %d, %d, %d, 4, %d):" % (c4, H, H, C))
print('            with T.block("conv"):')
print('                vn, voc, vh, vw, voc4, vic = T.axis.remap("SSSSSR", [n, oc, h, w, oc4, ic])')
print("                with T.init():")
print("                    Y[vn, voc, vh, vw, voc4] = T.float32(0)")
print("                Y[vn, voc, vh, vw, voc4] = Y[vn, voc, vh, vw, voc4] + X[vn, vic // 4, vh, vw, vic % 4] * W[voc, vic, 0, 0, voc4]")
