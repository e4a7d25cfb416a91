"""Random valid lopt modules (Relax graphs over every registered operator).

A module is kept as a small IR (parameters, bindings with operator, operands,
attributes and a result type, outputs) so that the reducer can edit it and
re-infer types: `infer()` mirrors the op_infer checks of ir/ops/ and raises
Invalid for anything lopt would reject.  `generate(seed)` builds a module,
`Module.text()` prints it in the TVMScript-like format lopt reads.

Python 3 standard library only.
"""
import random

DTYPES = ("float32", "float16")


class Invalid(Exception):
    pass


# ---- types -------------------------------------------------------------

class TT:
    """A tensor type: shape (tuple of ints) and dtype."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype

    def __eq__(self, o):
        return isinstance(o, TT) and o.shape == self.shape and o.dtype == self.dtype

    def __hash__(self):
        return hash((self.shape, self.dtype))

    @property
    def rank(self):
        return len(self.shape)

    def text(self):
        if len(self.shape) == 1:
            s = "(%d,)" % self.shape[0]
        else:
            s = "(" + ", ".join(str(d) for d in self.shape) + ")"
        return 'R.Tensor(%s, dtype="%s")' % (s, self.dtype)


def type_text(t):
    if isinstance(t, TT):
        return t.text()
    return "R.Tuple(" + ", ".join(type_text(x) for x in t) + ")"


def size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---- index maps for R.layout_transform ----------------------------------

class Map:
    """kind 'perm' (perm), 'tile' (axis, f, pos: the inner index goes to
    position pos of the output), 'untile' (the inverse of a tile: input of
    rank r+1, the inner index at pos)."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)

    def out_shape(self, shape):
        r = len(shape)
        if self.kind == "perm":
            if len(self.perm) != r:
                raise Invalid("map rank")
            return tuple(shape[p] for p in self.perm)
        if self.kind == "tile":
            if self.axis >= r or self.pos > r:
                raise Invalid("map rank")
            s = list(shape)
            e = s[self.axis]
            s[self.axis] = -(-e // self.f)
            s.insert(self.pos, self.f)
            return tuple(s)
        if self.kind == "untile":
            if r < 2 or self.pos >= r or shape[self.pos] != self.f:
                raise Invalid("map rank")
            s = list(shape)
            del s[self.pos]
            if self.axis >= len(s):
                raise Invalid("map axis")
            s[self.axis] = s[self.axis] * self.f
            return tuple(s)
        raise AssertionError(self.kind)

    def padded(self, shape):
        return self.kind == "tile" and shape[self.axis] % self.f != 0

    def text(self, rank):
        names = "nchwdefgk"[:rank] if rank <= 9 else ["i%d" % i for i in range(rank)]
        names = list(names)
        if self.kind == "perm":
            outs = [names[p] for p in self.perm]
        elif self.kind == "tile":
            outs = list(names)
            a = names[self.axis]
            outs[self.axis] = "%s // %d" % (a, self.f)
            outs.insert(self.pos, "%s %% %d" % (a, self.f))
        else:
            names = ["a%d" % i for i in range(rank)]
            inner = names[self.pos]
            outs = [n for i, n in enumerate(names) if i != self.pos]
            outs[self.axis] = "%s * %d + %s" % (outs[self.axis], self.f, inner)
        return "T.index_map(lambda %s: (%s))" % (", ".join(names), ", ".join(outs) + ("," if len(outs) == 1 else ""))

    def inverse(self):
        if self.kind == "perm":
            inv = [0] * len(self.perm)
            for i, p in enumerate(self.perm):
                inv[p] = i
            return Map("perm", perm=tuple(inv))
        if self.kind == "tile":
            # after the tile, the outer index of axis sits at axis if axis < pos, else axis + 1
            return Map("untile", axis=self.axis, f=self.f, pos=self.pos)
        raise AssertionError


# ---- attributes --------------------------------------------------------

class Raw(str):
    """An attribute printed as is (an index map)."""


def attr_text(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(attr_text(x) for x in v) + "]"
    if v is None:
        return "None"
    raise AssertionError(repr(v))


def const_text(value, dtype):
    def lit(x):
        if isinstance(x, list):
            return "[" + ", ".join(lit(y) for y in x) + "]"
        return str(int(x)) if dtype.startswith("int") else repr(float(x))
    return 'R.const(%s, "%s")' % (lit(value), dtype)


def const_shape(value):
    s = []
    while isinstance(value, list):
        s.append(len(value))
        value = value[0]
    return tuple(s)


# ---- type inference (mirrors ir/ops/) ------------------------------------

def lay_parse(s, prims):
    """Returns list of (prim index, inner) and splits, or raises."""
    out, split, seen, f = [], {}, set(), 0
    for ch in s:
        if ch.isdigit():
            f = f * 10 + int(ch)
            continue
        k = prims.find(ch.upper())
        if k < 0:
            raise Invalid("layout")
        if ch.islower():
            if f < 1 or k in split:
                raise Invalid("layout")
            split[k] = f
            out.append((k, True))
        else:
            if f != 0 or k in seen:
                raise Invalid("layout")
            seen.add(k)
            out.append((k, False))
        f = 0
    if f or len(seen) != 4:
        raise Invalid("layout")
    return out, split


def lay_logical(lay, t):
    l, split = lay
    if len(l) != t.rank:
        raise Invalid("layout rank")
    ext = [0] * 4
    for j, (k, inner) in enumerate(l):
        if inner:
            if t.shape[j] != split[k]:
                raise Invalid("inner extent")
        else:
            ext[k] = t.shape[j] * split.get(k, 1)
    return ext


def lay_shape(lay, ext):
    l, split = lay
    s = []
    for k, inner in l:
        f = split.get(k, 0)
        if f and ext[k] % f:
            raise Invalid("split")
        s.append(f if (f and inner) else (ext[k] // f if f else ext[k]))
    return tuple(s)


def window(attrs):
    def two(name, d):
        v = attrs.get(name)
        if v is None:
            return [d, d]
        if isinstance(v, int):
            return [v, v]
        if len(v) == 1:
            return [v[0], v[0]]
        return list(v)
    st, dil = two("strides", 1), two("dilation", 1)
    p = attrs.get("padding")
    if p is None:
        pad = [0, 0, 0, 0]
    elif isinstance(p, int):
        pad = [p] * 4
    elif len(p) == 1:
        pad = [p[0]] * 4
    elif len(p) == 2:
        pad = [p[0], p[1], p[0], p[1]]
    else:
        pad = list(p)
    return st, dil, pad


def wout(inp, k, st, dil, pad, i):
    return (inp + pad[i] + pad[i + 2] - dil[i] * (k - 1) - 1) // st[i] + 1


BINARY = ("R.add", "R.subtract", "R.multiply", "R.divide", "R.maximum", "R.minimum")
UNARY = ("R.nn.relu", "R.exp", "R.sigmoid", "R.tanh", "R.sqrt", "R.negative")
ACT = ("R.nn.gelu", "R.nn.gelu_tanh", "R.nn.silu")
LIKE = ("R.zeros_like", "R.ones_like", "R.full_like")
REDUCE = ("R.sum", "R.mean", "R.max", "R.min")
MATH = ("R.log", "R.abs", "R.rsqrt", "R.floor", "R.ceil", "R.round", "R.sin", "R.cos", "R.square",
        "R.sign", "R.erf")
COMPARE = ("R.less", "R.greater", "R.equal", "R.not_equal", "R.less_equal", "R.greater_equal")
LOGIC = ("R.logical_and", "R.logical_or")
ARGEXT = ("R.argmax", "R.argmin")


def broadcast(ts):
    """The shape the operands broadcast to (numpy rules), or Invalid."""
    r = max(t.rank for t in ts)
    out = []
    for d in range(r):
        es = [t.shape[d - (r - t.rank)] if d - (r - t.rank) >= 0 else 1 for t in ts]
        big = {e for e in es if e != 1}
        if len(big) > 1:
            raise Invalid("broadcast")
        out.append(big.pop() if big else 1)
    return out


def infer(op, args, attrs):
    """args: list of types (TT, or list of TT for a tuple). Returns the result type."""
    if op == "const":
        raise AssertionError
    if op == "tuple":
        return list(args)
    if op == "getitem":
        t, i = args[0], attrs["index"]
        if isinstance(t, TT) or i >= len(t):
            raise Invalid("getitem")
        return t[i]
    if op == "call_tir":
        return attrs["out"]
    for a in (args if op != "R.concat" else args[0]):
        if not isinstance(a, TT):
            raise Invalid("tuple operand")
        if a.rank > 6:
            raise Invalid("rank")
    if op in ("R.zeros", "R.ones", "R.full"):
        return TT(attrs["_shape"], attrs["dtype"])
    if op == "R.arange":
        start, end, step = attrs["_range"]
        n = max(0, -(-(end - start) // step))
        if n < 1:
            raise Invalid("arange")
        return TT([n], attrs["dtype"])
    if op in BINARY or op == "R.power":
        x, y = args
        if x.dtype != y.dtype:
            raise Invalid("dtype")
        r = max(x.rank, y.rank)
        out = []
        for d in range(r):
            dx, dy = d - (r - x.rank), d - (r - y.rank)
            ex = x.shape[dx] if dx >= 0 else 1
            ey = y.shape[dy] if dy >= 0 else 1
            if ex != ey and ex != 1 and ey != 1:
                raise Invalid("broadcast")
            out.append(ey if ex == 1 else ex)
        return TT(out, x.dtype)
    if op in UNARY or op in ACT or op in LIKE or op == "R.clip":
        return args[0]
    if op in MATH or op in ("R.nn.leakyrelu", "R.nn.softplus", "R.nn.log_softmax"):
        if not args[0].dtype.startswith("float"):
            raise Invalid("float op")
        a = attrs.get("axis", -1)
        if op == "R.nn.log_softmax" and not -args[0].rank <= a < args[0].rank:
            raise Invalid("axis")
        return args[0]
    if op in COMPARE or op in LOGIC:
        x, y = args
        if x.dtype != y.dtype or (op in LOGIC) != (x.dtype == "bool"):
            raise Invalid("dtype")
        return TT(broadcast(args), "bool")
    if op == "R.logical_not":
        if args[0].dtype != "bool":
            raise Invalid("dtype")
        return args[0]
    if op == "R.where":
        c, x, y = args
        if c.dtype != "bool" or x.dtype != y.dtype:
            raise Invalid("dtype")
        return TT(broadcast(args), x.dtype)
    if op in ARGEXT:
        x, a = args[0], attrs.get("axis")
        keep = attrs.get("keepdims") is True
        if a is None:
            return TT([1] * x.rank if keep else [], "int64")
        if not -x.rank <= a < x.rank:
            raise Invalid("axis")
        a %= x.rank
        return TT([1 if d == a else e for d, e in enumerate(x.shape) if keep or d != a], "int64")
    x = args[0] if op != "R.concat" else None
    if op == "R.ewise_fma":
        if not all(a == x for a in args):
            raise Invalid("fma")
        return x
    if op == "R.astype":
        return TT(x.shape, attrs["dtype"])
    if op == "R.flatten":
        return TT([size(x.shape)], x.dtype)
    if op == "R.expand_dims":
        r = x.rank + len(attrs["axis"])
        at = sorted(a + r if a < 0 else a for a in attrs["axis"])
        if len(set(at)) != len(at) or not all(0 <= a < r for a in at):
            raise Invalid("expand_dims")
        s, it = [], iter(x.shape)
        for d in range(r):
            s.append(1 if d in at else next(it))
        return TT(s, x.dtype)
    if op == "R.squeeze":
        at = {a + x.rank if a < 0 else a for a in attrs["axis"]}
        if not all(0 <= a < x.rank and x.shape[a] == 1 for a in at) or len(at) >= x.rank:
            raise Invalid("squeeze")
        return TT([e for d, e in enumerate(x.shape) if d not in at], x.dtype)
    if op == "R.broadcast_to":
        s = list(attrs["_shape"])
        if len(s) < x.rank:
            raise Invalid("broadcast_to")
        for d in range(x.rank):
            e = x.shape[x.rank - 1 - d]
            if e != 1 and e != s[len(s) - 1 - d]:
                raise Invalid("broadcast_to")
        return TT(s, x.dtype)
    if op == "R.repeat":
        a = attrs["axis"]
        if not -x.rank <= a < x.rank or attrs["repeats"] < 1:
            raise Invalid("repeat")
        s = list(x.shape)
        s[a] *= attrs["repeats"]
        return TT(s, x.dtype)
    if op == "R.flip":
        if not -x.rank <= attrs["axis"] < x.rank:
            raise Invalid("flip")
        return x
    if op == "R.reverse_sequence":
        sa, ba = attrs.get("seq_axis", 1), attrs.get("batch_axis", 0)
        if not (-x.rank <= sa < x.rank and -x.rank <= ba < x.rank) or sa % x.rank == ba % x.rank:
            raise Invalid("reverse_sequence axes")
        ln = args[1]
        if ln.dtype not in ("int32", "int64") or ln.shape != (x.shape[ba],):
            raise Invalid("reverse_sequence lengths")
        return x
    if op == "R.tile":
        reps = list(attrs["repeats"])
        s = list(x.shape)
        n = max(len(reps), len(s))
        reps, s = [1] * (n - len(reps)) + reps, [1] * (n - len(s)) + s
        if n > 6 or min(reps) < 1:
            raise Invalid("tile")
        return TT([a * b for a, b in zip(s, reps)], x.dtype)
    if op in ("R.take", "R.gather_elements"):
        i = args[1]
        a = attrs["axis"]
        if not i.dtype.startswith("int") or not -x.rank <= a < x.rank:
            raise Invalid("index")
        a = a + x.rank if a < 0 else a
        if op == "R.take":
            if x.rank - 1 + i.rank > 6:
                raise Invalid("rank")
            return TT(x.shape[:a] + i.shape + x.shape[a + 1:], x.dtype)
        if i.rank != x.rank or any(i.shape[d] > x.shape[d] for d in range(x.rank) if d != a):
            raise Invalid("gather")
        return TT(i.shape, x.dtype)
    if op in ("R.collapse_sum_to", "R.collapse_sum_like"):
        s = tuple(attrs["_shape"]) if op == "R.collapse_sum_to" else args[1].shape
        off = x.rank - len(s)
        if off < 0 or any(e not in (1, x.shape[off + d]) for d, e in enumerate(s)):
            raise Invalid("collapse_sum")
        return TT(s, x.dtype)
    if op in ("R.scatter_elements", "R.scatter_nd"):
        i, u = args[1], args[2]
        if not i.dtype.startswith("int") or u.dtype != x.dtype:
            raise Invalid("scatter")
        if op == "R.scatter_elements":
            a = attrs.get("axis", 0)
            if not -x.rank <= a < x.rank:
                raise Invalid("axis")
            a = a + x.rank if a < 0 else a
            if i.rank != x.rank or u.shape != i.shape or \
                    any(i.shape[d] > x.shape[d] for d in range(x.rank) if d != a):
                raise Invalid("scatter_elements")
        else:
            m = i.shape[-1] if i.rank else 0
            if not 1 <= m <= x.rank or u.shape != i.shape[:-1] + x.shape[m:]:
                raise Invalid("scatter_nd")
        return x
    if op == "R.nn.layer_norm":
        axes = [a + x.rank if a < 0 else a for a in attrs["axes"]]
        want = tuple(x.shape[a] for a in axes if 0 <= a < x.rank)
        if len(want) != len(axes) or len(set(axes)) != len(axes) or \
                any(v.shape != want or v.dtype != x.dtype for v in args[1:]):
            raise Invalid("layer_norm")
        return x
    if op == "R.nn.group_norm":
        g, ca = attrs["num_groups"], attrs["channel_axis"]
        if x.rank != 4 or ca != 1 or attrs["axes"] != [2, 3] or g < 1 or x.shape[1] % g or \
                any(v.shape != (x.shape[1],) or v.dtype != x.dtype for v in args[1:]):
            raise Invalid("group_norm")
        return x
    if op in ("R.nn.adaptive_avg_pool2d", "R.image.resize2d"):
        oh, ow = attrs["output_size" if op == "R.nn.adaptive_avg_pool2d" else "size"]
        if x.rank != 4 or oh < 1 or ow < 1:
            raise Invalid("window")
        return TT(x.shape[:2] + (oh, ow), x.dtype)
    if op in REDUCE or op == "R.prod":
        ax = attrs.get("axis")
        axes = [] if ax is None else ([ax] if isinstance(ax, int) else list(ax))
        red = set()
        for a in axes:
            v = a + x.rank if a < 0 else a
            if v < 0 or v >= x.rank:
                raise Invalid("axis")
            red.add(v)
        if not axes:
            red = set(range(x.rank))
        keep = attrs.get("keepdims") is True
        out = [1 if d in red else e for d, e in enumerate(x.shape) if keep or d not in red]
        if not out:
            raise Invalid("scalar reduce")
        return TT(out, x.dtype)
    if op == "R.permute_dims":
        ax = attrs.get("axes")
        if ax is None:
            return TT(x.shape[::-1], x.dtype)
        if sorted((a + x.rank if a < 0 else a) for a in ax) != list(range(x.rank)):
            raise Invalid("axes")
        return TT([x.shape[a + x.rank if a < 0 else a] for a in ax], x.dtype)
    if op == "R.reshape":
        s = list(attrs["shape"])
        if not s:
            raise Invalid("reshape")
        if s.count(-1) > 1 or any(d < -1 for d in s):
            raise Invalid("reshape")
        known = size([d for d in s if d != -1])
        if -1 in s:
            s[s.index(-1)] = size(x.shape) // known if known else 0
        if size(s) != size(x.shape):
            raise Invalid("reshape")
        return TT(s, x.dtype)
    if op == "R.matmul":
        # NumPy's rules: a 1-d left operand is a row, a 1-d right one a
        # column (the added dimension dropped), batch dimensions broadcast
        y = args[1]
        if x.dtype != y.dtype or x.rank < 1 or y.rank < 1:
            raise Invalid("matmul")
        a = (1,) + x.shape if x.rank == 1 else x.shape
        b = y.shape + (1,) if y.rank == 1 else y.shape
        if a[-1] != b[-2]:
            raise Invalid("matmul")
        ba, bb = a[:-2], b[:-2]
        n = max(len(ba), len(bb))
        ba, bb = (1,) * (n - len(ba)) + ba, (1,) * (n - len(bb)) + bb
        if any(p != q and 1 not in (p, q) for p, q in zip(ba, bb)):
            raise Invalid("matmul batch")
        out = tuple(max(p, q) for p, q in zip(ba, bb)) + (a[-2],) * (x.rank > 1) + (b[-1],) * (y.rank > 1)
        return TT(out, x.dtype)
    if op == "R.nn.conv2d":
        w = args[1]
        dl = attrs.get("data_layout", "NCHW")
        kl = attrs.get("kernel_layout", "OIHW")
        ol = attrs.get("out_layout", dl)
        D, K, O = lay_parse(dl, "NCHW"), lay_parse(kl, "OIHW"), lay_parse(ol, "NCHW")
        if x.dtype != w.dtype:
            raise Invalid("dtype")
        de, ke = lay_logical(D, x), lay_logical(K, w)
        st, dil, pad = window(attrs)
        g = attrs.get("groups", 1)
        N, C, H, W = de
        Oc, I, KH, KW = ke
        if g < 1 or C % g or Oc % g or I * g != C:
            raise Invalid("groups")
        if min(st + dil) < 1:
            raise Invalid("strides")
        OH, OW = wout(H, KH, st, dil, pad, 0), wout(W, KW, st, dil, pad, 1)
        if OH < 1 or OW < 1:
            raise Invalid("window")
        return TT(lay_shape(O, [N, Oc, OH, OW]), x.dtype)
    if op == "R.nn.conv2d_transpose":
        w = args[1]
        if x.rank != 4 or w.rank != 4 or x.dtype != w.dtype:
            raise Invalid("conv2d_transpose")
        st, dil, pad = window(attrs)
        opad = attrs.get("output_padding", [0, 0])
        g = attrs.get("groups", 1)
        N, C, H, W = x.shape
        I, OG, KH, KW = w.shape
        if g < 1 or C % g or I != C or min(st + dil) < 1 or any(not 0 <= opad[i] < st[i] for i in range(2)):
            raise Invalid("conv2d_transpose")
        OH = (H - 1) * st[0] - pad[0] - pad[2] + dil[0] * (KH - 1) + opad[0] + 1
        OW = (W - 1) * st[1] - pad[1] - pad[3] + dil[1] * (KW - 1) + opad[1] + 1
        if OH < 1 or OW < 1:
            raise Invalid("window")
        return TT((N, OG * g, OH, OW), x.dtype)
    if op in ("R.nn.pad", "R.pad"):
        pw = attrs["pad_width"]
        if len(pw) != 2 * x.rank or min(pw) < 0:
            raise Invalid("pad_width")
        return TT([e + pw[2 * d] + pw[2 * d + 1] for d, e in enumerate(x.shape)], x.dtype)
    if op in ("R.nn.max_pool2d", "R.nn.avg_pool2d"):
        lay = attrs.get("layout", "NCHW")
        L = lay_parse(lay, "NCHW")
        O = lay_parse(attrs.get("out_layout", lay), "NCHW")
        for l, split in (L, O):
            if 2 in split or 3 in split:
                raise Invalid("pool layout")
        ps = attrs["pool_size"]
        ps = [ps, ps] if isinstance(ps, int) else (ps * 2 if len(ps) == 1 else list(ps))
        st, dil, pad = window(attrs)
        if min(ps + st + dil) < 1:
            raise Invalid("pool")
        N, C, H, W = lay_logical(L, x)
        # ceil_mode rounds the division by the stride up (Relax keeps a last
        # window that starts in the trailing padding)
        up = [st[i] - 1 if attrs.get("ceil_mode") is True else 0 for i in range(2)]
        span = [H + pad[0] + pad[2] - dil[0] * (ps[0] - 1) - 1, W + pad[1] + pad[3] - dil[1] * (ps[1] - 1) - 1]
        if min(span) < 0:
            raise Invalid("pool window")
        OH, OW = (span[0] + up[0]) // st[0] + 1, (span[1] + up[1]) // st[1] + 1
        return TT(lay_shape(O, [N, C, OH, OW]), x.dtype)
    if op == "R.nn.softmax":
        a = attrs.get("axis", -1)
        if not -x.rank <= a < x.rank:
            raise Invalid("axis")
        return x
    if op == "R.dynamic_strided_slice":
        b, e, st = attrs["_bounds"]
        if not 1 <= len(b) <= x.rank or not len(b) == len(e) == len(st) or 0 in st:
            raise Invalid("dynamic slice")
        s = [len(range(*slice(b[d], e[d], st[d]).indices(x.shape[d]))) for d in range(len(b))] + \
            list(x.shape[len(b):])
        if 0 in s:
            raise Invalid("empty slice")
        return TT(s, x.dtype)
    if op == "R.strided_slice":
        axes, b, e = attrs["axes"], attrs["begin"], attrs["end"]
        st = attrs.get("strides", [1] * len(axes))
        if not axes or len(b) != len(axes) or len(e) != len(axes) or len(st) != len(axes):
            raise Invalid("slice")
        s = list(x.shape)
        for a, bb, ee, ss in zip(axes, b, e, st):
            d = a + x.rank if a < 0 else a
            if not 0 <= d < x.rank or ss <= 0:
                raise Invalid("slice axis")
            ext = x.shape[d]
            bb = bb + ext if bb < 0 else bb
            ee = ee + ext if ee < 0 else ee
            bb, ee = min(max(bb, 0), ext), min(max(ee, 0), ext)
            s[d] = (ee - bb + ss - 1) // ss if ee > bb else 0
            if s[d] == 0:
                raise Invalid("empty slice")
        return TT(s, x.dtype)
    if op == "R.concat":
        ts = args[0]
        if not isinstance(ts, list) or not ts or len(ts) > 8:
            raise Invalid("concat")
        a = attrs.get("axis", 0)
        r = ts[0].rank
        if not -r <= a < r:
            raise Invalid("axis")
        a = a + r if a < 0 else a
        for t in ts:
            if not isinstance(t, TT) or t.dtype != ts[0].dtype or t.rank != r:
                raise Invalid("concat")
            if any(t.shape[d] != ts[0].shape[d] for d in range(r) if d != a):
                raise Invalid("concat dims")
        s = list(ts[0].shape)
        s[a] = sum(t.shape[a] for t in ts)
        return TT(s, ts[0].dtype)
    if op == "R.layout_transform":
        return TT(attrs["_map"].out_shape(x.shape), x.dtype)
    if op == "R.split":
        a = attrs.get("axis", 0)
        if not -x.rank <= a < x.rank:
            raise Invalid("axis")
        a = a + x.rank if a < 0 else a
        e = x.shape[a]
        ios = attrs["indices_or_sections"]
        if isinstance(ios, int):
            if ios < 1 or ios > 8 or e % ios:
                raise Invalid("sections")
            starts = [e // ios * i for i in range(ios + 1)]
        else:
            if len(ios) > 7:
                raise Invalid("split")
            starts = [0] + [min(max(v, 0), e) for v in ios] + [e]
            if any(starts[i + 1] < starts[i] for i in range(len(starts) - 1)):
                raise Invalid("split order")
        outs = []
        for i in range(len(starts) - 1):
            s = list(x.shape)
            s[a] = starts[i + 1] - starts[i]
            if s[a] == 0:
                raise Invalid("empty section")
            outs.append(TT(s, x.dtype))
        return outs
    if op == "R.nn.batch_norm":
        a = attrs.get("axis", 1)
        if not -x.rank <= a < x.rank:
            raise Invalid("axis")
        a = a + x.rank if a < 0 else a
        for v in args[1:]:
            if v.rank != 1 or v.shape[0] != x.shape[a] or v.dtype != x.dtype:
                raise Invalid("bn vector")
        return [x, args[3], args[4]]
    if op == "R.crop":
        st, sz = attrs["start_indices"], attrs["slice_sizes"]
        if len(st) != x.rank or len(sz) != x.rank:
            raise Invalid("crop")
        for d in range(x.rank):
            if st[d] < 0 or sz[d] < 1 or st[d] + sz[d] > x.shape[d]:
                raise Invalid("crop range")
        return TT(sz, x.dtype)
    raise AssertionError(op)


# ---- the module ----------------------------------------------------------

class Binding:
    """op: an operator name, 'const', 'tuple', 'getitem' or 'call_tir'.
    args: names of values (for R.concat and 'tuple' too); attrs: keyword
    attributes in order (keys starting with '_' are not printed); for
    'const', attrs['value']; for 'call_tir', attrs['func'] (a PrimFunc
    template) and attrs['out']."""

    def __init__(self, name, op, args, attrs=None, annotate=False, inline=()):
        self.name, self.op, self.args = name, op, list(args)
        self.attrs = dict(attrs or {})
        self.annotate = annotate
        self.inline = set(inline)   # indices of args that are constants printed inline
        self.type = None

    def copy(self):
        b = Binding(self.name, self.op, self.args, self.attrs, self.annotate, self.inline)
        b.type = self.type
        return b


class Module:
    def __init__(self, dtype):
        self.dtype = dtype
        self.params = []        # (name, TT)
        self.bindings = []
        self.outputs = []       # names
        self.dataflow = False
        self.pairs = []         # (first, last binding name, source name) of explicit rewrite pairs
        self.ulp = 0

    def copy(self):
        m = Module(self.dtype)
        m.params = list(self.params)
        m.bindings = [b.copy() for b in self.bindings]
        m.outputs = list(self.outputs)
        m.dataflow = self.dataflow
        m.pairs = list(self.pairs)
        m.ulp = self.ulp
        return m

    # re-infers every type; raises Invalid if the module is not valid
    def check(self):
        env = {n: t for n, t in self.params}
        names = set(env)
        for b in self.bindings:
            if b.name in names:
                raise Invalid("redefined")
            if b.op == "const":
                v = b.attrs["value"]
                b.type = TT(const_shape(v), b.attrs.get("_dtype", self.dtype))
            else:
                for a in b.args:
                    if a not in env:
                        raise Invalid("undefined " + a)
                if b.op == "R.concat" or b.op == "tuple":
                    ts = [env[a] for a in b.args]
                    b.type = infer(b.op, [ts] if b.op == "R.concat" else ts, b.attrs)
                elif b.op == "call_tir":
                    f = b.attrs["func"]
                    ins = [env[a] for a in b.args]
                    if ins != f.in_types or b.attrs["out"] != f.out_type:
                        raise Invalid("call_tir types")
                    b.type = f.out_type
                else:
                    b.type = infer(b.op, [env[a] for a in b.args], b.attrs)
            env[b.name] = b.type
            names.add(b.name)
        if not self.outputs:
            raise Invalid("no outputs")
        for o in self.outputs:
            if o not in env:
                raise Invalid("undefined output")
        if self.dataflow:
            for o in self.outputs:
                if o in dict(self.params):
                    raise Invalid("a parameter is not a dataflow output")
        return env

    def uses(self, name):
        return [b for b in self.bindings if name in b.args]

    def text(self):
        env = self.check()
        ret_t = env[self.outputs[0]] if len(self.outputs) == 1 else [env[o] for o in self.outputs]
        consts = {b.name: b for b in self.bindings if b.op == "const"}
        funcs = []
        for b in self.bindings:
            if b.op == "call_tir" and b.attrs["func"] not in funcs:
                funcs.append(b.attrs["func"])
        L = ["@I.ir_module", "class Module:", "    @R.function"]
        ps = ", ".join("%s: %s" % (n, t.text()) for n, t in self.params)
        L.append("    def main(%s) -> %s:" % (ps, type_text(ret_t)))
        ind = "        "
        if funcs:
            L.append(ind + "cls = Module")
        if self.dataflow:
            L.append(ind + "with R.dataflow():")
            ind += "    "
        inlined = set()
        for b in self.bindings:
            for i in b.inline:
                inlined.add(b.args[i])

        def operand(b, i):
            a = b.args[i]
            if i in b.inline and a in consts:
                return const_text(consts[a].attrs["value"], consts[a].attrs.get("_dtype", self.dtype))
            return a

        for b in self.bindings:
            if b.op == "const" and b.name in inlined and all(
                    i in u.inline for u in self.bindings for i, x in enumerate(u.args) if x == b.name) \
                    and b.name not in self.outputs:
                continue
            lhs = b.name + (": " + type_text(b.type) if b.annotate else "")
            if b.op == "const":
                rhs = const_text(b.attrs["value"], b.attrs.get("_dtype", self.dtype))
            elif b.op == "tuple":
                rhs = "(" + ", ".join(b.args) + ("," if len(b.args) == 1 else "") + ")"
            elif b.op == "getitem":
                rhs = "%s[%d]" % (b.args[0], b.attrs["index"])
            elif b.op == "call_tir":
                rhs = "R.call_tir(cls.%s, (%s), out_sinfo=%s)" % (
                    b.attrs["func"].name, ", ".join(operand(b, i) for i in range(len(b.args))) +
                    ("," if len(b.args) == 1 else ""), b.attrs["out"].text())
            else:
                if b.op == "R.concat":
                    items = [operand(b, i) for i in range(len(b.args))]
                    ops = ["(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"]
                elif b.op == "R.reshape":
                    ops = [operand(b, 0), "(" + ", ".join(str(d) for d in b.attrs["shape"]) +
                           ("," if len(b.attrs["shape"]) == 1 else "") + ")"]
                else:
                    ops = [operand(b, i) for i in range(len(b.args))]
                if "_shape" in b.attrs:
                    ops.append("R.shape(%s)" % attr_text(list(b.attrs["_shape"])))
                if "_bounds" in b.attrs:   # begin, end, strides: int64 constants in the call
                    ops += ['R.const(%s, "int64")' % attr_text(list(v)) for v in b.attrs["_bounds"]]
                if "_range" in b.attrs:
                    ops += [str(v) for v in b.attrs["_range"]]
                if "_fill" in b.attrs:
                    ops.append(b.attrs["_fill"])
                kws = ["%s=%s" % (k, attr_text(v)) for k, v in b.attrs.items()
                       if not k.startswith("_") and not (b.op == "R.reshape" and k == "shape")]
                rhs = "%s(%s)" % (b.op, ", ".join(ops + kws))
            L.append(ind + lhs + " = " + rhs)
        ret = self.outputs[0]
        if len(self.outputs) > 1:
            ret = fresh_name(set(env) | {"cls"}, "gv")
            L.append(ind + "%s = (%s)" % (ret, ", ".join(self.outputs)))
        if self.dataflow:
            L.append(ind + "R.output(%s)" % ret)
        L.append("        return %s" % ret)
        for f in funcs:
            L.append("")
            L.extend(f.text().rstrip("\n").split("\n"))
        return "\n".join(L) + "\n"

    def rewrites_known(self):
        """The module with every explicit rewrite pair removed (the same
        values, fewer rewrites), or None when it has no pairs."""
        if not self.pairs:
            return None
        m = self.copy()
        for first, last, src in self.pairs:
            drop = set()
            # only a pair still intact (the reducer may have cut it): last
            # reaches first through single-operand bindings, first reads src
            by = {x.name: x for x in m.bindings}
            b, steps = by.get(last), 0
            while b is not None and b.name != first and steps < 3 and len(b.args) == 1:
                b, steps = by.get(b.args[0]), steps + 1
            if b is None or b.name != first or b.args != [src]:
                continue
            rename(m, last, src)
            # the pair's own bindings become dead; remove them when unused
            for name in (last, first):
                pass
            drop = {first, last}
            m.bindings = [x for x in m.bindings if x.name not in drop or m.uses(x.name)]
        try:
            m.check()
        except Invalid:
            return None
        return m


def rename(m, old, new):
    for b in m.bindings:
        b.args = [new if a == old else a for a in b.args]
    m.outputs = [new if o == old else o for o in m.outputs]


def fresh_name(used, base):
    if base not in used:
        return base
    i = 1
    while "%s%d" % (base, i) in used:
        i += 1
    return "%s%d" % (base, i)


# ---- PrimFunc templates (the form hoist lifts) ---------------------------

class PrimFunc:
    def __init__(self, name, in_types, out_type, body):
        self.name, self.in_types, self.out_type, self.body = name, in_types, out_type, body

    def text(self):
        return self.body


def _idx(names):
    return ", ".join(names)


def _lit(dtype, v):
    return "T.%s(%s)" % (dtype, v)


def tir_prologue(name, t, axis, f, pos, op, pad):
    """B = op(A) elementwise, with A rewritten first by an annotated block
    into a tiled buffer (axis split by f, the inner index at pos); pad:
    the axis does not divide and the rewrite pads with T.if_then_else."""
    r = t.rank
    dt = t.dtype
    v = ["v%d" % i for i in range(r)]
    lp = ["i%d" % i for i in range(r)]
    e = t.shape[axis]
    outer = -(-e // f)
    tshape = list(t.shape)
    tshape[axis] = outer
    tshape.insert(pos, f)
    tidx = list(v)
    tidx[axis] = "%s // %d" % (v[axis], f)
    tidx.insert(pos, "%s %% %d" % (v[axis], f))
    grid = list(t.shape)
    if pad:
        grid[axis] = outer * f
    shp = lambda s: "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
    remap = lambda: '%s = T.axis.remap("%s", [%s])' % (_idx(v) if r > 1 else v[0], "S" * r, _idx(lp))
    src = "A[%s]" % _idx(v)
    if pad:
        src = "T.if_then_else(%s < %d, %s, %s)" % (v[axis], e, src, _lit(dt, 0))
    x = "A_t[%s]" % _idx(tidx)
    val = {"mul": "%s * %s" % (x, _lit(dt, 2)), "add": "%s + %s" % (x, _lit(dt, 1)),
           "relu": "T.max(%s, %s)" % (x, _lit(dt, 0)), "copy": x}[op]
    grid_of = lambda g: ("T.grid(%s)" % ", ".join(map(str, g))) if r > 1 else "range(%d)" % g[0]
    s = """    @T.prim_func
    def {name}(A: T.Buffer({ish}, "{dt}"), B: T.Buffer({ish}, "{dt}")):
        A_t = T.alloc_buffer({tsh}, "{dt}")
        for {lp} in {g1}:
            with T.block("layout_rewrite"):
                {remap}
                T.block_attr({{"meta_schedule.layout_rewrite_preproc": True}})
                A_t[{tidx}] = {src}
        for {lp} in {g2}:
            with T.block("compute"):
                {remap}
                B[{vi}] = {val}
""".format(name=name, ish=shp(t.shape), dt=dt, tsh=shp(tshape), lp=_idx(lp), g1=grid_of(grid),
           g2=grid_of(t.shape), remap=remap(), tidx=_idx(tidx), src=src, vi=_idx(v), val=val)
    return PrimFunc(name, [t], t, s)


def tir_epilogue(name, t, axis, f, pos, op):
    """B = op(A) computed into a tiled buffer, copied out at the end by a
    layout-rewrite block (axis divides by f)."""
    r = t.rank
    dt = t.dtype
    v = ["v%d" % i for i in range(r)]
    lp = ["i%d" % i for i in range(r)]
    tshape = list(t.shape)
    tshape[axis] //= f
    tshape.insert(pos, f)
    tidx = list(v)
    tidx[axis] = "%s // %d" % (v[axis], f)
    tidx.insert(pos, "%s %% %d" % (v[axis], f))
    # the copy-out block iterates over the tiled buffer
    w = ["w%d" % i for i in range(r + 1)]
    lw = ["j%d" % i for i in range(r + 1)]
    back = [w[i] for i in range(r + 1) if i != pos]
    back[axis] = "%s * %d + %s" % (back[axis], f, w[pos])
    shp = lambda s: "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
    grid_of = lambda g: ("T.grid(%s)" % ", ".join(map(str, g))) if len(g) > 1 else "range(%d)" % g[0]
    x = "A[%s]" % _idx(v)
    val = {"mul": "%s * %s" % (x, _lit(dt, 2)), "add": "%s + %s" % (x, _lit(dt, 1)),
           "relu": "T.max(%s, %s)" % (x, _lit(dt, 0)), "copy": x}[op]
    s = """    @T.prim_func
    def {name}(A: T.Buffer({ish}, "{dt}"), B: T.Buffer({ish}, "{dt}")):
        B_t = T.alloc_buffer({tsh}, "{dt}")
        for {lp} in {g1}:
            with T.block("compute"):
                {vv} = T.axis.remap("{ss}", [{lp}])
                B_t[{tidx}] = {val}
        for {lw} in {g2}:
            with T.block("layout_rewrite"):
                {ww} = T.axis.remap("{sw}", [{lw}])
                B[{back}] = B_t[{wi}]
""".format(name=name, ish=shp(t.shape), dt=dt, tsh=shp(tshape), lp=_idx(lp), g1=grid_of(t.shape),
           vv=_idx(v), ss="S" * r, tidx=_idx(tidx), val=val, lw=_idx(lw), g2=grid_of(tshape),
           ww=_idx(w), sw="S" * (r + 1), back=_idx(back), wi=_idx(w))
    return PrimFunc(name, [t], t, s)


def tir_matmul(name, a, b, f, pad):
    """C = A @ B (2-D), B rewritten by an annotated block to (N, K/f, f);
    pad: K does not divide, the rewrite pads with T.if_then_else."""
    M, K = a.shape
    N = b.shape[1]
    dt = a.dtype
    ko = -(-K // f)
    src = "B[vk, vj]"
    if pad:
        src = "T.if_then_else(vk < %d, B[vk, vj], %s)" % (K, _lit(dt, 0))
    s = """    @T.prim_func
    def {name}(A: T.Buffer(({M}, {K}), "{dt}"), B: T.Buffer(({K}, {N}), "{dt}"), C: T.Buffer(({M}, {N}), "{dt}")):
        B_ = T.alloc_buffer(({N}, {ko}, {f}), "{dt}")
        for k, j in T.grid({KP}, {N}):
            with T.block("layout_rewrite"):
                vk, vj = T.axis.remap("SS", [k, j])
                T.block_attr({{"meta_schedule.layout_rewrite_preproc": True}})
                B_[vj, vk // {f}, vk % {f}] = {src}
        for i, j, k in T.grid({M}, {N}, {K}):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = {zero}
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B_[vj, vk // {f}, vk % {f}]
""".format(name=name, M=M, K=K, N=N, dt=dt, ko=ko, f=f, KP=ko * f if pad else K, src=src, zero=_lit(dt, 0))
    return PrimFunc(name, [a, b], TT((M, N), dt), s)


# ---- the generator ---------------------------------------------------------

class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        r = self.r
        self.m = Module(r.choice(DTYPES) if r.random() < 0.35 else "float32")
        self.m.dataflow = r.random() < 0.5
        self.used = {"cls", "Module", "main"}
        self.env = {}          # name -> type
        self.flags = {}        # name -> set of 'pos' (> 0), 'nonneg'
        self.order = []        # tensor values in definition order
        self.nfunc = 0

    def name(self, base):
        n = fresh_name(self.used, base)
        self.used.add(n)
        return n

    # -- values
    def param(self, t, base="p"):
        n = self.name(base)
        self.m.params.append((n, t))
        self.env[n] = t
        self.flags[n] = set()
        self.order.append(n)
        return n

    def add(self, op, args, attrs=None, base="v", flags=(), inline=()):
        n = self.name(base)
        b = Binding(n, op, args, attrs, annotate=self.r.random() < 0.3, inline=inline)
        self.m.bindings.append(b)
        env = self.m.check() if False else None
        # infer this binding only
        if op == "const":
            b.type = TT(const_shape(b.attrs["value"]), b.attrs.get("_dtype", self.m.dtype))
        elif op in ("R.concat",):
            b.type = infer(op, [[self.env[a] for a in args]], b.attrs)
        elif op == "tuple":
            b.type = [self.env[a] for a in args]
        elif op == "call_tir":
            b.type = b.attrs["out"]
        else:
            b.type = infer(op, [self.env[a] for a in args], b.attrs)
        if not isinstance(b.type, TT):
            b.annotate = False
        self.env[n] = b.type
        self.flags[n] = set(flags)
        if isinstance(b.type, TT):
            self.order.append(n)
        return n

    def const(self, shape, positive=False, inline=True):
        r = self.r

        def val():
            x = r.randint(1 if positive else -8, 8) / 8.0
            return x
        def build(s):
            if not s:
                return val()
            return [build(s[1:]) for _ in range(s[0])]
        v = build(list(shape))
        n = self.add("const", [], {"value": v}, base="c", flags={"pos", "nonneg"} if positive else ())
        return n

    def operand(self, t_shape=None, pred=None, rank=None):
        """A tensor value, preferring recent ones."""
        cands = [n for n in self.order if self.env[n].rank >= 1 and (rank is None or self.env[n].rank == rank) and
                 (pred is None or pred(n))]
        if not cands:
            return None
        r = self.r
        if r.random() < 0.6:
            return cands[-1 - min(int(r.expovariate(1.0)), len(cands) - 1)]
        return r.choice(cands)

    def shape(self, rank=None):
        r = self.r
        rank = rank or r.choice((1, 2, 2, 3, 4, 4, 4))
        if rank == 4:
            return (r.choice((1, 1, 2)), r.choice((1, 2, 3, 4, 6, 8)), r.randint(1, 6), r.randint(1, 6))
        return tuple(r.randint(1, 8 if rank <= 2 else 5) for _ in range(rank))

    def const_or_param(self, shape, positive=False):
        r = self.r
        if positive:
            if r.random() < 0.5:
                return self.const(shape, positive=True)
            p = self.param(TT(shape, self.m.dtype), "q")
            return self.add(r.choice(("R.exp", "R.sigmoid")), [p], flags={"pos", "nonneg"})
        if r.random() < 0.5:
            return self.const(shape)
        return self.param(TT(shape, self.m.dtype), "w")

    # -- operators
    def g_binary(self):
        r = self.r
        op = r.choice(BINARY)
        x = self.operand()
        t = self.env[x]
        # the other operand: same shape, a broadcast shape, a scalar
        k = r.random()
        if op == "R.divide":
            pred = lambda n: "pos" in self.flags[n]
        else:
            pred = None
        y = None
        if k < 0.4:
            y = self.operand(pred=lambda n: self.env[n] == t and (pred is None or pred(n)))
        if y is None:
            if k < 0.6 and t.rank:
                s = tuple(d if r.random() < 0.5 else 1 for d in t.shape)
                if r.random() < 0.3:
                    s = s[r.randint(0, len(s)):]
            elif k < 0.8:
                s = ()
            else:
                s = t.shape
            if not s and r.random() < 0.5 or s == ():
                y = self.const((), positive=op == "R.divide")
            else:
                y = self.const_or_param(s, positive=op == "R.divide")
        args = [x, y] if r.random() < 0.8 or op == "R.divide" else [y, x]
        inline = {i for i, a in enumerate(args) if self.m.bindings and self._is_const(a) and r.random() < 0.7}
        f = set()
        if op in ("R.add", "R.multiply", "R.maximum", "R.minimum", "R.divide") and \
                all("nonneg" in self.flags[a] for a in args):
            f = {"nonneg"}
        if op in ("R.multiply", "R.divide", "R.add") and all("pos" in self.flags[a] for a in args):
            f = {"pos", "nonneg"}
        return self.add(op, args, inline=inline, flags=f)

    def _is_const(self, n):
        return any(b.name == n and b.op == "const" for b in self.m.bindings)

    def g_unary(self):
        r = self.r
        op = r.choice(UNARY)
        if op == "R.sqrt":
            x = self.operand(pred=lambda n: "nonneg" in self.flags[n])
            if x is None:
                op = "R.nn.relu"
        if op != "R.sqrt":
            x = self.operand()
        fl = {"R.nn.relu": {"nonneg"}, "R.exp": {"pos", "nonneg"}, "R.sigmoid": {"pos", "nonneg"},
              "R.sqrt": {"nonneg"}}.get(op, set())
        return self.add(op, [x], flags=fl)

    def g_reduce(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        op = r.choice(REDUCE)
        attrs = {}
        keep = r.random() < 0.5
        k = r.random()
        if k < 0.15 and keep:
            pass   # all axes, kept
        else:
            n = r.randint(1, t.rank)
            axes = sorted(r.sample(range(t.rank), n))
            if n == t.rank and not keep:
                axes = axes[:-1] or None
                if axes is None:
                    keep = True
                    axes = [0]
            axes = [a - t.rank if r.random() < 0.2 else a for a in axes]
            attrs["axis"] = axes[0] if len(axes) == 1 and r.random() < 0.4 else axes
        if keep or r.random() < 0.3:
            attrs["keepdims"] = keep
        fl = {"pos": {"pos"}, "nonneg": {"nonneg"}}
        fs = self.flags[x] if op != "R.sum" or True else set()
        return self.add(op, [x], attrs, flags=fs & {"pos", "nonneg"})

    def g_permute(self):
        r = self.r
        x = self.operand(pred=lambda n: self.env[n].rank >= 2)
        if x is None:
            return None
        t = self.env[x]
        attrs = {}
        if r.random() < 0.8:
            p = list(range(t.rank))
            r.shuffle(p)
            attrs["axes"] = p
        return self.add("R.permute_dims", [x], attrs, flags=self.flags[x])

    def g_reshape(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        n = size(t.shape)
        # factor n into 1..4 dims
        dims = []
        rest = n
        for _ in range(r.randint(0, 3)):
            ds = [d for d in range(1, rest + 1) if rest % d == 0]
            d = r.choice(ds)
            dims.append(d)
            rest //= d
        dims.append(rest)
        r.shuffle(dims)
        if r.random() < 0.3:
            dims[r.randrange(len(dims))] = -1
        return self.add("R.reshape", [x], {"shape": dims}, flags=self.flags[x])

    def g_matmul(self):
        r = self.r
        if r.random() < 0.3:
            return self.g_matmul_numpy()
        x = self.operand(pred=lambda n: 2 <= self.env[n].rank <= 3)
        if x is None:
            x = self.param(TT(self.shape(2), self.m.dtype), "a")
        t = self.env[x]
        k = t.shape[-1]
        nn = r.randint(1, 6)
        ws = t.shape[:-2] + (k, nn)
        w = self.operand(pred=lambda n: self.env[n].shape == ws)
        if w is None or r.random() < 0.5:
            w = self.const_or_param(ws)
        return self.add("R.matmul", [x, w], inline={1} if self._is_const(w) and r.random() < 0.5 else ())

    def g_matmul_numpy(self):
        """matmul by NumPy's rules: a 1-d operand on either side, or batch
        dimensions that broadcast (unequal ranks, extents of 1)."""
        r = self.r
        x = self.operand(pred=lambda n: 1 <= self.env[n].rank <= 4)
        if x is None:
            x = self.param(TT(self.shape(r.randint(1, 3)), self.m.dtype), "a")
        t = self.env[x]
        k = t.shape[-1]
        nn = r.randint(1, 5)
        kind = r.choice(("vec", "batch"))
        if t.rank == 1:
            # a row times a matrix, or a batch of them (never two vectors: rank 0)
            ws = (k, nn) if r.random() < 0.5 else (r.randint(1, 3), k, nn)
        elif kind == "vec":
            ws = (k,)
        else:
            # the other operand's batch: a suffix of t's, some extents 1, maybe one more leading
            bt = list(t.shape[:-2][r.randint(0, t.rank - 2):])
            bt = [1 if r.random() < 0.4 else e for e in bt]
            if len(t.shape) - 2 < 2 and r.random() < 0.4:
                bt = [r.randint(1, 3)] + bt
            ws = tuple(bt) + (k, nn)
        w = self.const_or_param(ws)
        return self.add("R.matmul", [x, w], inline={1} if self._is_const(w) and r.random() < 0.5 else ())

    def rank4(self):
        x = self.operand(rank=4)
        if x is None or self.r.random() < 0.15:
            x = self.param(TT(self.shape(4), self.m.dtype), "x")
        return x

    def g_conv2d(self):
        r = self.r
        x = self.rank4()
        t = self.env[x]
        nhwc = r.random() < 0.3
        if nhwc:
            N, H, W, C = t.shape
        else:
            N, C, H, W = t.shape
        groups = 1
        if C > 1 and r.random() < 0.2:
            groups = r.choice([g for g in range(1, C + 1) if C % g == 0])
        O = groups * r.randint(1, max(1, 6 // groups))
        KH, KW = r.randint(1, 3), r.randint(1, 3)
        attrs = {}
        if r.random() < 0.5:
            attrs["padding"] = r.choice(([1, 1], [0, 0, 1, 1], [1, 0, 1, 2], [1, 1, 1, 1], 1))
        if r.random() < 0.3:
            attrs["strides"] = r.choice(([2, 2], [1, 2], 2))
        if r.random() < 0.2:
            attrs["dilation"] = r.choice(([2, 2], [1, 2]))
        if groups > 1:
            attrs["groups"] = groups
        st, dil, pad = window(attrs)
        # shrink the kernel until it fits
        while KH > 1 and wout(H, KH, st, dil, pad, 0) < 1:
            KH -= 1
        while KW > 1 and wout(W, KW, st, dil, pad, 1) < 1:
            KW -= 1
        if wout(H, KH, st, dil, pad, 0) < 1 or wout(W, KW, st, dil, pad, 1) < 1:
            attrs.pop("dilation", None)
            attrs.pop("strides", None)
        ks = (KH, KW, C // groups, O) if nhwc else (O, C // groups, KH, KW)
        if nhwc:
            attrs["data_layout"] = "NHWC"
            attrs["kernel_layout"] = "HWIO"
        if r.random() < 0.1:
            attrs["out_layout"] = attrs.get("data_layout", "NCHW")
        w = self.const_or_param(ks)
        return self.add("R.nn.conv2d", [x, w], attrs, base="conv",
                        inline={1} if self._is_const(w) and r.random() < 0.5 else ())

    def g_pool(self):
        r = self.r
        x = self.rank4()
        t = self.env[x]
        op = r.choice(("R.nn.max_pool2d", "R.nn.avg_pool2d"))
        nhwc = r.random() < 0.3
        H, W = (t.shape[1], t.shape[2]) if nhwc else (t.shape[2], t.shape[3])
        attrs = {"pool_size": [r.randint(1, min(3, H)), r.randint(1, min(3, W))]}
        if r.random() < 0.4:
            attrs["strides"] = r.choice(([2, 2], [1, 2], [1, 1]))
        if r.random() < 0.4:
            ph = min(1, attrs["pool_size"][0] - 1)
            pw = min(1, attrs["pool_size"][1] - 1)
            attrs["padding"] = [ph, pw, ph, pw] if r.random() < 0.5 else [0, 0, ph, pw]
        if nhwc:
            attrs["layout"] = "NHWC"
        if op == "R.nn.avg_pool2d" and r.random() < 0.5:
            attrs["count_include_pad"] = r.random() < 0.5
        if r.random() < 0.25:
            # only where every last window still starts inside the input
            # (one past it would be empty: the lowest value, or 0)
            st, dil, pad = window(dict(attrs, ceil_mode=True))
            ps = attrs["pool_size"]
            ok = True
            for i, n in enumerate((H, W)):
                span = n + pad[i] + pad[i + 2] - dil[i] * (ps[i] - 1) - 1
                o = (span + st[i] - 1) // st[i] + 1
                ok = ok and span >= 0 and (o - 1) * st[i] - pad[i] < n
            if ok:
                attrs["ceil_mode"] = True
        if r.random() < 0.2:
            # the output in another layout than the input's
            attrs["out_layout"] = r.choice([l for l in ("NCHW", "NHWC") if l != attrs.get("layout", "NCHW")])
        return self.add(op, [x], attrs, base="pool", flags=self.flags[x] if op == "R.nn.max_pool2d" else ())

    def g_pad(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        pw = []
        for _ in range(t.rank):
            pw += [r.choice((0, 0, 1, 2)), r.choice((0, 0, 1))]
        attrs = {"pad_width": pw}
        if r.random() < 0.6:
            attrs["pad_value"] = r.choice((0.0, 1.0, -0.5))
        op = r.choice(("R.nn.pad", "R.pad"))
        return self.add(op, [x], attrs)

    def g_softmax(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        attrs = {}
        if r.random() < 0.7:
            attrs["axis"] = r.randint(-t.rank, t.rank - 1)
        return self.add("R.nn.softmax", [x], attrs, flags={"nonneg"})

    def g_slice(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        n = r.randint(1, t.rank)
        axes = sorted(r.sample(range(t.rank), n))
        b, e, s = [], [], []
        for a in axes:
            ext = t.shape[a]
            bb = r.randint(0, ext - 1)
            ee = r.randint(bb + 1, ext)
            if r.random() < 0.2:
                ee = ext + 3       # clamped
            if r.random() < 0.15 and bb > 0:
                bb = bb - ext      # negative
            b.append(bb)
            e.append(ee)
            s.append(r.choice((1, 1, 1, 2)))
        attrs = {"axes": axes, "begin": b, "end": e}
        if any(v != 1 for v in s) or r.random() < 0.3:
            attrs["strides"] = s
        if r.random() < 0.2:
            # the same box as a dynamic_strided_slice over the first dimensions
            # (strides of either sign), its bounds constants
            k = r.randint(1, t.rank)
            bounds = [[], [], []]
            for d in range(k):
                ext = t.shape[d]
                st = r.choice((1, 1, 2, -1))
                bb, ee = (r.randint(0, ext - 1), r.randint(-ext - 2, ext + 2))
                if not range(*slice(bb, ee, st).indices(ext)):
                    bb, ee = (0, ext) if st > 0 else (ext - 1, -ext - 1)
                for v, w in zip(bounds, (bb, ee, st)):
                    v.append(w)
            return self.add("R.dynamic_strided_slice", [x], {"_bounds": bounds}, flags=self.flags[x])
        return self.add("R.strided_slice", [x], attrs, flags=self.flags[x])

    def g_concat(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        a = r.randrange(t.rank)
        items = [x]
        for _ in range(r.randint(1, 2)):
            y = self.operand(pred=lambda n: self.env[n].rank == t.rank and
                             all(self.env[n].shape[d] == t.shape[d] for d in range(t.rank) if d != a))
            if y is None or r.random() < 0.3:
                s = list(t.shape)
                s[a] = r.randint(1, 3)
                y = self.const_or_param(tuple(s))
            items.append(y)
        r.shuffle(items)
        attrs = {"axis": a - t.rank if r.random() < 0.2 else a} if a or r.random() < 0.5 else {}
        return self.add("R.concat", items, attrs)

    def g_split(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        a = r.randrange(t.rank)
        e = t.shape[a]
        divs = [d for d in range(1, min(e, 4) + 1) if e % d == 0]
        if r.random() < 0.5 and len(divs) > 1:
            ios = r.choice(divs[1:])
        elif e > 1:
            k = r.randint(1, min(3, e - 1))
            ios = sorted(r.sample(range(1, e), k))
        else:
            ios = 1
        attrs = {"indices_or_sections": ios}
        if a or r.random() < 0.5:
            attrs["axis"] = a
        s = self.add("R.split", [x], attrs, base="s")
        items = self.env[s]
        picks = sorted(r.sample(range(len(items)), r.randint(1, len(items))))
        last = None
        for i in picks:
            last = self.add("getitem", [s], {"index": i}, base="s", flags=self.flags[x])
        if r.random() < 0.1:
            self.tuple_outputs.append(s)
        return last

    def g_batch_norm(self):
        r = self.r
        x = self.operand(pred=lambda n: self.env[n].rank >= 2)
        if x is None:
            x = self.rank4()
        t = self.env[x]
        a = 1 if r.random() < 0.5 else r.randrange(t.rank)
        attrs = {"axis": a}                  # it has no default
        C = t.shape[a]
        vecs = [self.const_or_param((C,)), self.const_or_param((C,)), self.const_or_param((C,)),
                self.const_or_param((C,), positive=True)]
        if r.random() < 0.3:
            attrs["epsilon"] = r.choice((1e-05, 0.001, 0.0))
            if attrs["epsilon"] == 0.0:
                attrs["epsilon"] = 0.5
        if r.random() < 0.15:
            attrs["center"] = r.random() < 0.5
        if r.random() < 0.15:
            attrs["scale"] = r.random() < 0.5
        # training (the default) normalizes by the batch's statistics, or by
        # the moving ones (training=False, what a model for inference says)
        if r.random() < 0.5:
            attrs["training"] = False
        elif r.random() < 0.2:
            attrs["momentum"] = r.choice((0.5, 0.9))
        bn = self.add("R.nn.batch_norm", [x] + vecs, attrs, base="bn",
                      inline={i for i in range(1, 5) if self._is_const(vecs[i - 1]) and r.random() < 0.5})
        y = self.add("getitem", [bn], {"index": 0}, base="y")
        if r.random() < 0.2:
            self.add("getitem", [bn], {"index": r.choice((1, 2))}, base="y")
        return y

    def g_crop(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        st, sz = [], []
        for e in t.shape:
            a = r.randint(0, e - 1)
            st.append(a)
            sz.append(r.randint(1, e - a))
        return self.add("R.crop", [x], {"start_indices": st, "slice_sizes": sz}, flags=self.flags[x])

    # -- the operators added with the operator registry's growth (issue 23):
    # activations, clip, power, ewise_fma, astype, shape moves, creation,
    # indexing, layer_norm, group_norm, adaptive pooling and resize
    def g_act(self):
        x = self.operand()
        return self.add(self.r.choice(ACT), [x])

    def g_clip(self):
        r = self.r
        x = self.operand()
        lo = r.choice((-1.0, -0.5, 0.0, 0.25))
        hi = lo + r.choice((0.25, 0.5, 1.5))
        return self.add("R.clip", [x], {"min": lo, "max": hi}, flags={"nonneg"} if lo >= 0 else ())

    def g_power(self):
        r = self.r
        x = self.operand(pred=lambda n: "pos" in self.flags[n])
        if x is None:
            x = self.add("R.exp", [self.operand()], flags={"pos", "nonneg"})
        t = self.env[x]
        e = self.const(() if r.random() < 0.5 else t.shape[-1:])
        return self.add("R.power", [x, e], inline={1} if r.random() < 0.5 else (), flags={"pos", "nonneg"})

    def g_fma(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        y = self.operand(pred=lambda n: self.env[n] == t) if r.random() < 0.5 else None
        y = y or self.const_or_param(t.shape)
        z = self.const_or_param(t.shape)
        return self.add("R.ewise_fma", [x, y, z])

    def g_math(self):
        """One of the newer unary float operators.  log and rsqrt take a
        positive operand most of the time; on the rest NaN and inf come out,
        which --verify-exec compares bit-exactly like any other value."""
        r = self.r
        op = r.choice(MATH)
        x = None
        if op in ("R.log", "R.rsqrt") and r.random() < 0.75:
            x = self.operand(pred=lambda n: "pos" in self.flags[n])
        x = x or self.operand()
        fl = {"R.abs": {"nonneg"}, "R.square": {"nonneg"}}.get(op, set())
        if op == "R.rsqrt" and "pos" in self.flags[x]:
            fl = {"pos", "nonneg"}
        return self.add(op, [x], flags=fl)

    def g_act2(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        k = r.random()
        if k < 0.35:
            attrs = {"alpha": r.choice((0.01, 0.1, 0.25, 0.5))} if r.random() < 0.6 else {}
            return self.add("R.nn.leakyrelu", [x], attrs)
        if k < 0.7:
            attrs = {}
            if r.random() < 0.5:
                attrs["beta"] = r.choice((0.5, 1.0, 2.0))
            if r.random() < 0.5:
                attrs["threshold"] = r.choice((1.0, 5.0, 20.0))
            return self.add("R.nn.softplus", [x], attrs, flags={"nonneg"})
        attrs = {}
        if r.random() < 0.7:
            attrs["axis"] = r.randint(-t.rank, t.rank - 1)
        return self.add("R.nn.log_softmax", [x], attrs)

    def _other(self, t):
        """A second operand broadcasting against t: a value of the same type,
        a constant of a broadcast shape or a scalar constant."""
        r = self.r
        y = self.operand(pred=lambda n: self.env[n] == t) if r.random() < 0.4 else None
        if y is None:
            k = r.random()
            s = () if k < 0.3 else tuple(d if r.random() < 0.5 else 1 for d in t.shape)
            y = self.const(s)
        return y

    def _hidden(self, n):
        """A bool or integer value: not offered to the generators that take
        operands of the module's float dtype."""
        self.order.remove(n)
        return n

    def g_compare(self):
        """A comparison (bool), maybe combined with a second one or negated,
        consumed by R.where or cast back to the float dtype."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        y = self._other(t)
        args = [x, y] if r.random() < 0.8 else [y, x]
        inline = {i for i, a in enumerate(args) if self._is_const(a) and r.random() < 0.7}
        c = self._hidden(self.add(r.choice(COMPARE), args, inline=inline, base="m"))
        k = r.random()
        if k < 0.25:
            x2 = self.operand(pred=lambda n: self.env[n].rank <= t.rank)
            y2 = self._other(self.env[x2])
            c2 = self._hidden(self.add(r.choice(COMPARE), [x2, y2], base="m"))
            c = self._hidden(self.add(r.choice(LOGIC), [c, c2] if r.random() < 0.5 else [c2, c], base="m"))
        elif k < 0.4:
            c = self._hidden(self.add("R.logical_not", [c], base="m"))
        if r.random() < 0.25:
            return self.add("R.astype", [c], {"dtype": t.dtype}, base="cast",
                            flags={"nonneg"})
        a = x if r.random() < 0.5 else self.operand()
        b = self._other(self.env[a])
        args = [c, a, b] if r.random() < 0.7 else [c, b, a]
        return self.add("R.where", args)

    def g_argext(self):
        """argmax / argmin (int64), cast back to the float dtype."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        attrs = {}
        if r.random() < 0.85:
            attrs["axis"] = r.randint(-t.rank, t.rank - 1)
        elif r.random() < 0.5:
            attrs["axis"] = None
        if r.random() < 0.6:
            attrs["keepdims"] = r.random() < 0.5
        i = self._hidden(self.add(r.choice(ARGEXT), [x], attrs, base="idx"))
        return self.add("R.astype", [i], {"dtype": t.dtype}, base="cast", flags={"nonneg"})

    def g_prod(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        attrs = {}
        keep = r.random() < 0.5
        if r.random() < 0.8 or not keep:
            n = r.randint(1, max(1, min(2, t.rank - (0 if keep else 1))))
            axes = sorted(r.sample(range(t.rank), n))
            axes = [a - t.rank if r.random() < 0.2 else a for a in axes]
            attrs["axis"] = axes[0] if len(axes) == 1 and r.random() < 0.5 else axes
        if keep or r.random() < 0.3:
            attrs["keepdims"] = keep
        return self.add("R.prod", [x], attrs, flags=self.flags[x] & {"nonneg"})

    def g_astype(self):
        """To the other float dtype and back; the value in between is not
        offered to the other generators (their operands share one dtype)."""
        x = self.operand()
        t = self.env[x]
        other = "float16" if t.dtype == "float32" else "float32"
        a = self.add("R.astype", [x], {"dtype": other}, base="cast")
        self.order.remove(a)
        return self.add("R.astype", [a], {"dtype": t.dtype}, base="cast")

    def g_move(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        k = r.choice(("flatten", "expand", "squeeze", "broadcast", "repeat", "flip", "tile", "revseq"))
        fl = self.flags[x]
        if k == "revseq" and t.rank >= 2:
            sa, ba = r.sample(range(t.rank), 2)
            lens = [r.randint(-1, t.shape[sa] + 2) for _ in range(t.shape[ba])]
            ln = self.add("const", [], {"value": lens, "_dtype": r.choice(("int32", "int64"))}, base="len")
            self.order.remove(ln)
            attrs = {}
            if sa != 1 or r.random() < 0.5:
                attrs["seq_axis"] = sa - t.rank if r.random() < 0.3 else sa
            if ba != 0 or r.random() < 0.5:
                attrs["batch_axis"] = ba - t.rank if r.random() < 0.3 else ba
            return self.add("R.reverse_sequence", [x, ln], attrs, inline={1} if r.random() < 0.5 else (), flags=fl)
        if k == "revseq":
            k = "flip"
        if k == "flatten":
            return self.add("R.flatten", [x], flags=fl)
        if k == "expand" or (k == "squeeze" and 1 not in t.shape) or (k == "squeeze" and t.rank == 1):
            if t.rank >= 6:
                return None
            n = r.randint(1, min(2, 6 - t.rank))
            R = t.rank + n
            axes = sorted(r.sample(range(R), n))
            return self.add("R.expand_dims", [x], {"axis": [a - R if r.random() < 0.3 else a for a in axes]}, flags=fl)
        if k == "squeeze":
            ones = [d for d, e in enumerate(t.shape) if e == 1]
            axes = sorted(r.sample(ones, r.randint(1, min(len(ones), t.rank - 1))))
            return self.add("R.squeeze", [x], {"axis": axes}, flags=fl)
        if k == "broadcast":
            lead = [] if t.rank >= 5 or r.random() < 0.5 else [r.randint(1, 3)]
            s = lead + [e if e != 1 or r.random() < 0.5 else r.randint(2, 3) for e in t.shape]
            return self.add("R.broadcast_to", [x], {"_shape": s}, flags=fl)
        if k == "repeat":
            return self.add("R.repeat", [x], {"repeats": r.randint(1, 3), "axis": r.randint(-t.rank, t.rank - 1)},
                            flags=fl)
        if k == "flip":
            return self.add("R.flip", [x], {"axis": r.randint(-t.rank, t.rank - 1)}, flags=fl)
        reps = [r.choice((1, 1, 2)) for _ in range(r.randint(1, min(t.rank + 1, 6)))]
        return self.add("R.tile", [x], {"repeats": reps}, flags=fl)

    def g_create(self):
        """A created tensor combined with a value: x * ones_like(x), x +
        zeros(shape), x + arange along the last axis, and so on."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        dt = t.dtype
        k = r.choice(("like", "like", "new", "arange"))
        if k == "like":
            op = r.choice(LIKE)
            attrs = {"_fill": 'R.const(%r, "%s")' % (r.choice((0.5, -1.0, 2.0)), dt)} if op == "R.full_like" else {}
            c = self.add(op, [x], attrs, base="c")
        elif k == "new":
            op = r.choice(("R.zeros", "R.ones", "R.full"))
            s = list(t.shape[r.randint(0, t.rank - 1):])
            attrs = {"_shape": s}
            if op == "R.full":
                attrs["_fill"] = 'R.const(%r, "%s")' % (r.choice((0.25, -2.0)), dt)
            attrs["dtype"] = dt
            c = self.add(op, [], attrs, base="c")
        else:
            n = t.shape[-1]
            step = r.choice((1, 2))
            start = r.randint(-3, 3)
            c = self.add("R.arange", [], {"_range": [start, start + n * step, step], "dtype": dt}, base="c")
        op = r.choice(("R.add", "R.multiply", "R.subtract"))
        return self.add(op, [x, c] if r.random() < 0.7 else [c, x])

    def g_index(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        a = r.randrange(t.rank)
        e = t.shape[a]
        idt = r.choice(("int32", "int64"))
        if r.random() < 0.5 and t.rank <= 5:
            op = "R.take"
            ishape = [r.randint(1, 3) for _ in range(r.randint(1, min(2, 7 - t.rank)))]
            lo = 0
        else:
            op = "R.gather_elements"
            ishape = [r.randint(1, 3) if d == a else r.randint(1, t.shape[d]) for d in range(t.rank)]
            lo = -e

        def build(sh):
            return [build(sh[1:]) for _ in range(sh[0])] if sh else r.randint(lo, e - 1)
        i = self.add("const", [], {"value": build(ishape), "_dtype": idt}, base="idx")
        self.order.remove(i)
        ax = a - t.rank if r.random() < 0.3 else a
        return self.add(op, [x, i], {"axis": ax}, inline={1} if r.random() < 0.5 else (), flags=self.flags[x])

    # -- collapse_sum, scatter and conv2d_transpose (issue 23)
    def g_collapse(self):
        """x summed down to a suffix of its shape with some extents 1 (the
        gradient of a broadcast), then added back to x by broadcasting."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        k = r.randint(1, t.rank)
        s = [1 if r.random() < 0.5 else e for e in t.shape[t.rank - k:]]
        if r.random() < 0.5:
            c = self.add("R.collapse_sum_to", [x], {"_shape": s}, base="cs")
        else:
            like = self.const_or_param(tuple(s))
            c = self.add("R.collapse_sum_like", [x, like], base="cs",
                         inline={1} if self._is_const(like) and r.random() < 0.5 else ())
        return self.add("R.add", [x, c])

    def g_scatter(self):
        r = self.r
        x = self.operand()
        t = self.env[x]
        idt = r.choice(("int32", "int64"))
        red = r.choice(("update", "add", "mul", "max", "min"))
        if r.random() < 0.5:
            op = "R.scatter_elements"
            a = r.randrange(t.rank)
            e = t.shape[a]
            ishape = [r.randint(1, 3) if d == a else r.randint(1, t.shape[d]) for d in range(t.rank)]
            attrs = {"axis": a - t.rank if r.random() < 0.3 else a}
            red = r.choice((red, "mean"))

            def build(sh):
                return [build(sh[1:]) for _ in range(sh[0])] if sh else r.randint(-e, e - 1)
            ushape = ishape
        else:
            op = "R.scatter_nd"
            m = r.randint(1, t.rank)
            lead = [r.randint(1, 3)]
            ishape = lead + [m]
            attrs = {}

            def build(sh, j=0):
                if len(sh) == 1:
                    return [r.randint(-t.shape[d], t.shape[d] - 1) for d in range(sh[0])]
                return [build(sh[1:]) for _ in range(sh[0])]
            ushape = lead + list(t.shape[m:])
        i = self.add("const", [], {"value": build(ishape), "_dtype": idt}, base="idx")
        self.order.remove(i)
        u = self.const_or_param(tuple(ushape))
        if red != "update" or r.random() < 0.3:
            attrs["reduction"] = red
        inline = {1} if r.random() < 0.5 else set()
        if self._is_const(u) and r.random() < 0.5:
            inline.add(2)
        return self.add(op, [x, i, u], attrs, base="sc", inline=inline)

    def g_conv_transpose(self):
        r = self.r
        x = self.rank4()
        t = self.env[x]
        N, C, H, W = t.shape
        groups = r.choice([g for g in range(1, C + 1) if C % g == 0]) if C > 1 and r.random() < 0.2 else 1
        OG = r.randint(1, 3)
        attrs = {}
        if r.random() < 0.5:
            attrs["strides"] = r.choice(([2, 2], [1, 2], 2))
        if r.random() < 0.4:
            attrs["padding"] = r.choice(([1, 1], [0, 0, 1, 1], 1))
        if r.random() < 0.2:
            attrs["dilation"] = [2, 2]
        st, dil, pad = window(attrs)
        if st[0] > 1 and st[1] > 1 and r.random() < 0.3:
            attrs["output_padding"] = [1, 1]
        if groups > 1:
            attrs["groups"] = groups
        w = self.const_or_param((C, OG, r.randint(1, 3), r.randint(1, 3)))
        return self.add("R.nn.conv2d_transpose", [x, w], attrs, base="convt",
                        inline={1} if self._is_const(w) and r.random() < 0.5 else ())

    def g_norm2(self):
        r = self.r
        if r.random() < 0.5:
            x = self.operand()
            t = self.env[x]
            n = r.randint(1, min(2, t.rank))
            axes = list(range(t.rank - n, t.rank))
            ws = tuple(t.shape[a] for a in axes)
            g, b = self.const_or_param(ws, positive=r.random() < 0.5), self.const_or_param(ws)
            return self.add("R.nn.layer_norm", [x, g, b], {"axes": [a - t.rank if r.random() < 0.5 else a
                                                                   for a in axes]})
        x = self.rank4()
        t = self.env[x]
        C = t.shape[1]
        G = r.choice([d for d in range(1, C + 1) if C % d == 0])
        g, b = self.const_or_param((C,)), self.const_or_param((C,))
        return self.add("R.nn.group_norm", [x, g, b], {"num_groups": G, "channel_axis": 1, "axes": [2, 3]})

    def g_image(self):
        r = self.r
        x = self.rank4()
        t = self.env[x]
        H, W = t.shape[2], t.shape[3]
        if r.random() < 0.5:
            size = [r.randint(1, H), r.randint(1, W)]
            return self.add("R.nn.adaptive_avg_pool2d", [x], {"output_size": size}, base="pool")
        size = [r.randint(1, 2 * H), r.randint(1, 2 * W)]
        attrs = {"size": size}
        m = r.choice(("linear", "nearest_neighbor", "cubic"))
        if m != "linear" or r.random() < 0.5:
            attrs["method"] = m
        if m == "nearest_neighbor":
            attrs["coordinate_transformation_mode"] = r.choice(("asymmetric", "half_pixel"))
        elif r.random() < 0.3:
            attrs["coordinate_transformation_mode"] = "align_corners"
        if m == "cubic" and r.random() < 0.5:
            attrs["cubic_alpha"] = r.choice((-0.5, -0.75))
            if r.random() < 0.5:
                attrs["cubic_exclude"] = 1
        return self.add("R.image.resize2d", [x], attrs, base="rs")

    def g_layout_pair(self):
        """An explicit R.layout_transform and its inverse (and a crop back
        when the first one pads): the pair is removable."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        if r.random() < 0.35 and t.rank >= 2:
            p = list(range(t.rank))
            while p == list(range(t.rank)):
                r.shuffle(p)
            mp = Map("perm", perm=tuple(p))
        else:
            axis = 1 if t.rank == 4 and r.random() < 0.6 else r.randrange(t.rank)
            f = r.choice((2, 4, 4))
            pos = t.rank if r.random() < 0.7 else r.randint(axis + 1, t.rank)
            mp = Map("tile", axis=axis, f=f, pos=pos)
        attrs = {"index_map": Raw(mp.text(t.rank)), "_map": mp}
        padded = mp.padded(t.shape) if mp.kind == "tile" else False
        if padded or r.random() < 0.2:
            attrs["pad_value"] = r.choice((0.0, 0.0, 1.5))
        first = self.add("R.layout_transform", [x], attrs, base=x + "_t")
        # sometimes something elementwise in between (flow should move through it)
        mid = first
        if r.random() < 0.4:
            mid = self.add(r.choice(("R.nn.relu", "R.negative", "R.tanh")), [first], base="m")
        inv = mp.inverse()
        t2 = self.env[mid]
        back = self.add("R.layout_transform", [mid], {"index_map": Raw(inv.text(t2.rank)), "_map": inv},
                        base=x + "_b")
        last = back
        if self.env[back].shape != t.shape:
            last = self.add("R.crop", [back], {"start_indices": [0] * t.rank, "slice_sizes": list(t.shape)},
                            base=x + "_c")
        if mid == first:
            self.m.pairs.append((first, last, x))
        self.flags[last] = set(self.flags[x])
        return last

    def g_layout_one(self):
        """A single rewrite to a tiled or permuted layout (not undone)."""
        r = self.r
        x = self.operand()
        t = self.env[x]
        if t.rank >= 2 and r.random() < 0.4:
            p = list(range(t.rank))
            r.shuffle(p)
            mp = Map("perm", perm=tuple(p))
        else:
            axis = r.randrange(t.rank)
            mp = Map("tile", axis=axis, f=r.choice((2, 4)), pos=t.rank)
        attrs = {"index_map": Raw(mp.text(t.rank)), "_map": mp}
        if mp.padded(t.shape):
            attrs["pad_value"] = 0.0
        return self.add("R.layout_transform", [x], attrs, base="lt", flags=self.flags[x])

    def g_tir(self):
        r = self.r
        self.nfunc += 1
        k = r.random()
        if k < 0.35:
            x = self.operand(pred=lambda n: self.env[n].rank == 2)
            if x is None:
                x = self.param(TT(self.shape(2), self.m.dtype), "a")
            t = self.env[x]
            K = t.shape[1]
            f = r.choice((2, 4))
            pad = K % f != 0
            N = r.randint(1, 6)
            w = self.const_or_param((K, N))
            fn = tir_matmul(self.name("matmul"), t, TT((K, N), self.m.dtype), f, pad)
            return self.add("call_tir", [x, w], {"func": fn, "out": fn.out_type}, base="mm",
                            inline={1} if self._is_const(w) and r.random() < 0.5 else ())
        x = self.operand(pred=lambda n: 1 <= self.env[n].rank <= 4)
        t = self.env[x]
        axis = r.randrange(t.rank)
        f = r.choice((2, 4))
        pos = r.randint(0, t.rank)
        op = r.choice(("mul", "add", "relu", "copy"))
        if k < 0.7:
            pad = t.shape[axis] % f != 0
            fn = tir_prologue(self.name("pro"), t, axis, f, pos, op, pad)
        else:
            if t.shape[axis] % f:
                f = 1 if t.shape[axis] == 1 else next(d for d in (2, 3, 5, 7, t.shape[axis]) if t.shape[axis] % d == 0)
            fn = tir_epilogue(self.name("epi"), t, axis, f, pos, op)
        fl = self.flags[x] if op in ("mul", "copy") else ({"nonneg"} if op == "relu" else set())
        return self.add("call_tir", [x], {"func": fn, "out": fn.out_type}, base="t", flags=fl)


WEIGHTS = [("binary", 14), ("unary", 9), ("reduce", 5), ("permute", 4), ("reshape", 3), ("matmul", 3),
           ("conv2d", 6), ("pool", 4), ("pad", 3), ("softmax", 3), ("slice", 3), ("concat", 3),
           ("split", 3), ("batch_norm", 3), ("crop", 2), ("layout_pair", 6), ("layout_one", 2), ("tir", 5),
           ("act", 2), ("clip", 1), ("power", 1), ("fma", 1), ("astype", 1), ("move", 4), ("create", 2),
           ("index", 2), ("norm2", 2), ("image", 2), ("collapse", 1), ("scatter", 2), ("conv_transpose", 1),
           ("math", 5), ("act2", 2), ("compare", 4), ("argext", 2), ("prod", 1)]


def generate(seed, max_bindings=None):
    g = Gen(seed)
    r = g.r
    g.tuple_outputs = []
    m = g.m
    # parameters: a rank-4 image half of the time
    g.param(TT(g.shape(4 if r.random() < 0.55 else None), m.dtype), "x")
    if r.random() < 0.4:
        g.param(TT(g.shape(), m.dtype), "y")
    n = max_bindings or r.randint(2, 9)
    kinds = [k for k, w in WEIGHTS for _ in range(w)]
    steps = 0
    tries = 0
    while steps < n and tries < max(100, 4 * n):   # 100 for the fuzzer's small models
        tries += 1
        k = r.choice(kinds)
        save = (m.copy(), dict(g.env), dict(g.flags), list(g.order), set(g.used), list(g.tuple_outputs))
        try:
            v = getattr(g, "g_" + k)()
            if v is None:
                continue
            steps += 1
        except Invalid:
            m2, g.env, g.flags, g.order, g.used, g.tuple_outputs = save
            g.m = m2
            m = m2
            continue
    # outputs: the last value, sometimes more; the rest is dead
    defined = [b.name for b in m.bindings if isinstance(b.type, TT)]
    if not defined:
        v = g.add("R.nn.relu", [m.params[0][0]])
        defined = [v]
    outs = [defined[-1]]
    # most other sinks become outputs too (several outputs); some stay dead
    used = {a for b in m.bindings for a in b.args}
    for o in defined[:-1]:
        if o not in used and r.random() < 0.6 and len(outs) < 4:
            outs.append(o)
    if r.random() < 0.2:
        o = r.choice(defined)
        if o not in outs:
            outs.append(o)
    if g.tuple_outputs and r.random() < 0.5:
        outs.append(g.tuple_outputs[0])
    m.outputs = outs
    m.ulp = 0
    m.check()
    return m


def features(m):
    ops = {b.op for b in m.bindings}
    return {"conv": bool(ops & {"R.nn.conv2d", "R.nn.max_pool2d", "R.nn.avg_pool2d"}),
            "tir": "call_tir" in ops}


if __name__ == "__main__":
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    sys.stdout.write(generate(seed).text())
