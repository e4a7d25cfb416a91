#!/usr/bin/env python3
"""Checks seed 004's int8 convolution (examples/conv7x7_int8.tir) against a
reference computed here in plain Python with exact integers: int8 data and
weights, int32 accumulation, as written, after weight-layout,fold (the weight
folded into its new layout) and after weight-layout{keep-body=1} (the reverse
chain). Needs no NumPy: the .npy files are read and written by hand.
Usage: int8_conv_check.py [path/to/lopt]"""
import ast
import os
import random
import struct
import subprocess
import sys
import tempfile

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LOPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "lopt")
EXAMPLE = os.path.join(top, "examples", "conv7x7_int8.tir")
FORMATS = {"|i1": "b", "<i4": "i"}


def npy_write(path, descr, shape, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (descr, ", ".join(map(str, shape)))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), FORMATS[descr]), *values))


def npy_read(path):
    data = open(path, "rb").read()
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode())
    count = 1
    for s in header["shape"]:
        count *= s
    fmt = FORMATS[header["descr"]]
    return tuple(header["shape"]), struct.unpack("<%d%s" % (count, fmt), data[10 + n:10 + n + count * struct.calcsize(fmt)])


def weight():
    for line in open(EXAMPLE):
        if "R.const(" in line:
            text = line[line.index("R.const(") + 8:]
            return ast.literal_eval(text[:text.rindex(', "int8")')])
    raise SystemExit("int8_conv_check: no constant in " + EXAMPLE)


def reference(x, w):
    """Y[o, h, w] = sum X_pad[i, h + kh, w + kw] * W[o, i, kh, kw], X padded by 1."""
    def at(c, h, v):
        return x[(c * 16 + h) * 16 + v] if 0 <= h < 16 and 0 <= v < 16 else 0
    y = []
    for o in range(32):
        for h in range(12):
            for v in range(12):
                y.append(sum(at(i, h + kh - 1, v + kv - 1) * w[o][i][kh][kv]
                             for i in range(3) for kh in range(7) for kv in range(7)))
    return y


def main():
    rng = random.Random(4)
    x = [rng.randint(-128, 127) for _ in range(3 * 16 * 16)]
    want = reference(x, weight())
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        npy_write(os.path.join(d, "x.npy"), "|i1", (1, 3, 16, 16), x)
        for pipeline in ["", "--pass=weight-layout,fold", "--pass=weight-layout{keep-body=1}"]:
            out = os.path.join(d, "out")
            os.makedirs(out, exist_ok=True)
            args = [LOPT, "--run", "--input", "x=" + os.path.join(d, "x.npy"), "--output-dir", out, EXAMPLE]
            r = subprocess.run(args + ([pipeline] if pipeline else []), capture_output=True, text=True)
            got = npy_read(os.path.join(out, "output.npy")) if r.returncode == 0 else ((), ())
            bad = sum(a != b for a, b in zip(got[1], want)) if got[0] == (1, 32, 12, 12) else len(want)
            print("int8_conv_check: %-36s %s (%d of %d outputs differ, largest |y| %d)"
                  % (pipeline or "as written", "ok" if bad == 0 else "FAILED", bad, len(want), max(map(abs, want))))
            failures += bad != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
