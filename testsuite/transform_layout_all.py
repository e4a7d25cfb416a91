#!/usr/bin/env python3
"""Every buffer parameter (a T.Buffer, or a buffer matched to a T.handle) of
every PrimFunc in testsuite/ and examples/ whose module runs goes through transform-layout two ways (its axes reversed; its
last axis split by 3, which pads most extents), with and without a pad value,
then flatten, under --verify-exec. Each run must either keep the outputs or
stop with a transform-layout error; a crash, a sanitizer report, a changed
output or a module that no longer runs is a failure. Run by
`make check-transform-layout`.

usage: transform_layout_all.py LOPT"""
import collections
import glob
import os
import re
import subprocess
import sys


def maps(n):
    v = ', '.join('i%d' % k for k in range(n))
    rev = ', '.join('i%d' % k for k in reversed(range(n))) + (',' if n == 1 else '')
    split = ''.join('i%d, ' % k for k in range(n - 1)) + 'i%d // 3, i%d %% 3' % (n - 1, n - 1)
    return ['lambda %s: (%s)' % (v, rev), 'lambda %s: (%s)' % (v, split)]


def buffers(text):
    """(function, buffer, shape text) of every T.Buffer parameter and every
    buffer T.match_buffer matches to a handle parameter, with a constant shape."""
    defs = list(re.finditer(r'def (\w+)\(([^\n]*)\):', text))
    for k, m in enumerate(defs):
        for b in re.finditer(r'(\w+): T\.Buffer\(\(([\d, ]+)\)', m.group(2)):
            yield m.group(1), b.group(1), b.group(2)
        body = text[m.end():defs[k + 1].start() if k + 1 < len(defs) else len(text)]
        for b in re.finditer(r'(\w+) = T\.match_buffer\(\w+, \(([\d, ]+)\)', body):
            yield m.group(1), b.group(1), b.group(2)


def main():
    lopt = sys.argv[1]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(top, 'testsuite', '**', '*.tir'), recursive=True) +
                   glob.glob(os.path.join(top, 'examples', '**', '*.tir'), recursive=True))
    stats = collections.Counter()
    failed = []
    for f in files:
        text = open(f, errors='replace').read()
        if 'T.prim_func' not in text or 'def main' not in text:
            continue
        if subprocess.run([lopt, '--verify-exec', f], capture_output=True).returncode != 0:
            continue
        for func, buf, shape in buffers(text):
            n = len([x for x in shape.split(',') if x.strip()])
            if n == 0:
                continue
            for mp in maps(n):
                for pad in ('', ',pad-value=0'):
                    p = 'transform-layout{func=%s,buffer=%s,map="%s"%s},flatten' % (func, buf, mp, pad)
                    r = subprocess.run([lopt, '--pass=' + p, '--verify-exec', f], capture_output=True, text=True,
                                       timeout=600)
                    first = r.stderr.strip().splitlines()[0] if r.stderr.strip() else ''
                    if r.returncode == 0:
                        stats['kept the outputs'] += 1
                    elif r.returncode == 1 and 'error: transform-layout' in first and 'Sanitizer' not in r.stderr:
                        stats['refused'] += 1
                    else:
                        failed.append((os.path.relpath(f, top), p, r.stderr[-300:]))
    for f, p, err in failed:
        print('FAIL %s: --pass=\'%s\'\n%s' % (f, p, err))
    print('transform-layout: %d runs kept the outputs, %d refused with an error, %d failed' %
          (stats['kept the outputs'], stats['refused'], len(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
