#!/usr/bin/env python3
"""Counts the R.layout_transform bindings of a printed module and the bytes
they write (the product of each annotated result shape times the dtype's
size; an unannotated binding counts no bytes). With --weights, counts instead the rewrites of weights left to run
time: bindings of R.layout_transform, R.reshape, R.nn.pad, R.pad,
R.permute_dims, R.strided_slice or R.crop whose operand is a constant or
such a rewrite of one, and the bytes they write.
Usage: layout-count.py [--weights] < module.tir"""
import re
import sys

size = {"float32": 4, "float16": 2, "int8": 1, "int32": 4, "float64": 8}
BIND = re.compile(r'^\s*(\w+)(?:: R\.Tensor\(\(([0-9, ]*)\), dtype="(\w+)"\))? = (.*)$')
REWRITE = re.compile(r'^R\.(layout_transform|reshape|nn\.pad|pad|permute_dims|strided_slice|crop)\((\w+|R\.const)\b')


def nbytes(shape, dtype):
    if shape is None:
        return 0
    k = 1
    for d in shape.split(","):
        if d.strip():
            k *= int(d)
    return k * size.get(dtype, 4)


def layout_transforms(lines):
    n = moved = 0
    for line in lines:
        if "R.layout_transform(" not in line:
            continue
        n += 1
        m = BIND.match(line)
        if m and m.group(4).startswith("R.layout_transform"):
            moved += nbytes(m.group(2), m.group(3))
    print("%d layout_transform, %d bytes" % (n, moved))


def weight_rewrites(lines):
    weights = set()
    n = moved = 0
    for line in lines:
        m = BIND.match(line)
        if not m:
            continue
        name, value = m.group(1), m.group(4)
        if value.startswith("R.const("):
            weights.add(name)
            continue
        r = REWRITE.match(value)
        if r and (r.group(2) == "R.const" or r.group(2) in weights):
            weights.add(name)
            n += 1
            moved += nbytes(m.group(2), m.group(3))
    print("%d weight rewrites, %d bytes" % (n, moved))


if __name__ == "__main__":
    lines = sys.stdin.readlines()
    if sys.argv[1:] == ["--weights"]:
        weight_rewrites(lines)
    else:
        layout_transforms(lines)
