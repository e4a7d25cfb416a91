"""Greedy reduction of a failing generated module (modelgen.Module).

reduce(m, fails) repeatedly tries smaller variants and keeps each one for
which fails(variant) is still true (the caller checks the same failure
class, pipeline and pass): dropping outputs, dropping bindings (their uses
rewired to an earlier value of the same type or to a new parameter),
dropping dead bindings, attributes and unused parameters, shrinking
parameter extents, and plain-text simplifications (no dataflow block, no
annotations, constants bound once instead of inline). Every variant is
re-checked by modelgen's type inference first, so only valid modules reach
lopt.
"""
import modelgen
from modelgen import TT, Invalid


def _valid(m):
    try:
        m.check()
        m.text()
        return True
    except (Invalid, KeyError, IndexError, StopIteration):
        return False


def _replace_uses(m, old, new):
    for b in m.bindings:
        b.args = [new if a == old else a for a in b.args]
    m.outputs = [new if o == old else o for o in m.outputs]


def _names(m):
    return {n for n, _ in m.params} | {b.name for b in m.bindings} | {"cls", "Module", "main"}


def candidates(m):
    """Variants of m, the most promising (biggest cuts) first."""
    env = None
    try:
        env = m.check()
    except Invalid:
        return
    # 1. fewer outputs
    if len(m.outputs) > 1:
        for i in range(len(m.outputs)):
            c = m.copy()
            del c.outputs[i]
            yield "drop output %s" % m.outputs[i], c
    # 2. dead bindings, all at once
    used = {a for b in m.bindings for a in b.args} | set(m.outputs)
    dead = [b.name for b in m.bindings if b.name not in used]
    if dead:
        c = m.copy()
        c.bindings = [b for b in c.bindings if b.name not in dead]
        yield "drop dead %s" % ",".join(dead), c
    # 3. each binding, from the last: its uses go to an earlier value of its type, or a new parameter
    for idx in range(len(m.bindings) - 1, -1, -1):
        b = m.bindings[idx]
        t = env[b.name]
        users = [u for u in m.bindings if b.name in u.args]
        if not isinstance(t, TT):
            if users or b.name in m.outputs:
                continue
            c = m.copy()
            del c.bindings[idx]
            yield "drop %s" % b.name, c
            continue
        earlier = [n for n, pt in m.params if pt == t] + [x.name for x in m.bindings[:idx] if env[x.name] == t]
        subs = earlier[-2:] + [None]
        for s in subs:
            c = m.copy()
            del c.bindings[idx]
            if s is None:
                s = modelgen.fresh_name(_names(m), "r")
                c.params.append((s, t))
            _replace_uses(c, b.name, s)
            yield "drop %s (uses -> %s)" % (b.name, s), c
    # 4. attributes
    for idx, b in enumerate(m.bindings):
        for k in list(b.attrs):
            if k.startswith("_") or k in ("value", "func", "out", "index", "index_map", "shape"):
                continue
            c = m.copy()
            del c.bindings[idx].attrs[k]
            yield "drop %s.%s" % (b.name, k), c
    # 5. unused parameters
    for i, (n, _) in enumerate(m.params):
        if n not in used:
            c = m.copy()
            del c.params[i]
            yield "drop parameter %s" % n, c
    # 6. smaller parameters
    for i, (n, t) in enumerate(m.params):
        for d, e in enumerate(t.shape):
            for smaller in sorted({1, e // 2}):
                if 1 <= smaller < e:
                    c = m.copy()
                    s = list(t.shape)
                    s[d] = smaller
                    c.params[i] = (n, TT(s, t.dtype))
                    yield "shrink %s dim %d to %d" % (n, d, smaller), c
    # 7. plain text
    if m.dataflow:
        c = m.copy()
        c.dataflow = False
        yield "no dataflow", c
    if any(b.annotate for b in m.bindings):
        c = m.copy()
        for b in c.bindings:
            b.annotate = False
        yield "no annotations", c
    if m.dtype == "float16":
        c = m.copy()
        c.dtype = "float32"
        c.params = [(n, TT(t.shape, "float32")) for n, t in c.params]
        ok = True
        for b in c.bindings:
            if b.op == "call_tir":
                ok = False
        if ok:
            c.ulp = 0
            yield "float32", c


def reduce(m, fails, log=None, max_tries=600):
    """Returns the smallest variant of m found for which fails() holds."""
    tries = 0
    progress = True
    while progress and tries < max_tries:
        progress = False
        for what, c in candidates(m):
            if not _valid(c):
                continue
            tries += 1
            if fails(c):
                if log:
                    log("reduce: %s" % what)
                m = c
                progress = True
                break
            if tries >= max_tries:
                break
    return m


if __name__ == "__main__":
    import sys
    sys.exit("use fuzz_models.py --seeds N --reduce")
