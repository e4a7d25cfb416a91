#!/usr/bin/env python3
"""Counts the R.layout_transform bindings of a printed module and the bytes
they write (the product of each annotated result shape times the dtype's
size). Usage: layout-count.py < module.tir"""
import re
import sys

size = {"float32": 4, "float16": 2, "int8": 1, "int32": 4, "float64": 8}
n = 0
moved = 0
for line in sys.stdin:
    if "R.layout_transform(" not in line:
        continue
    n += 1
    m = re.search(r'R\.Tensor\(\(([0-9, ]*)\), dtype="(\w+)"\) = R\.layout_transform', line)
    if m:
        k = 1
        for d in m.group(1).split(","):
            if d.strip():
                k *= int(d)
        moved += k * size.get(m.group(2), 4)
print("%d layout_transform, %d bytes" % (n, moved))
