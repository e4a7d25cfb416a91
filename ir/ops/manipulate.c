/* Operators that move elements without computing: R.permute_dims, R.reshape,
 * R.flatten, R.expand_dims, R.squeeze, R.broadcast_to, R.tile, R.repeat,
 * R.flip, R.reverse_sequence, R.concat, R.split, R.layout_transform, padding (R.nn.pad,
 * R.pad), and the reverse of a broadcast (R.collapse_sum_like,
 * R.collapse_sum_to). */
#include <stdio.h>
#include <string.h>

#include "../indexmap.h"
#include "internal.h"

static const char *const no_attrs[] = { NULL };
static const char *const permute_attrs[] = { "axes", NULL };
static const char *const pad_attrs[] = { "pad_width", "pad_value", "pad_mode", NULL };
static const char *const nn_pad_pos[] = { "pad_width", "pad_mode", "pad_value", NULL };   /* TVM's order */
static const char *const concat_attrs[] = { "axis", NULL };
static const char *const lt_attrs[] = { "index_map", "pad_value", "axis_separators", "input_axis_separators", NULL };
static const char *const split_attrs[] = { "indices_or_sections", "axis", NULL };
static const char *const axis_attrs[] = { "axis", NULL };
static const char *const tile_attrs[] = { "repeats", NULL };
static const char *const repeat_attrs[] = { "repeats", "axis", NULL };
static const char *const revseq_attrs[] = { "seq_axis", "batch_axis", NULL };

static int infer_permute(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK];
    const Expr *axes = attr(call, "axes");
    int n = axes && axes->kind == E_NONE ? 0 : ints_of(axes, ax, OP_MAX_RANK);
    if (n < 0 || (n && n != a->ndim))
        return fail(err, axes->loc, "axes lists each of the %d dimensions once", a->ndim);
    int seen[OP_MAX_RANK] = { 0 };
    for (int d = 0; d < a->ndim; d++) {
        int64_t v = n ? (ax[d] < 0 ? ax[d] + a->ndim : ax[d]) : a->ndim - 1 - d;
        if (v < 0 || v >= a->ndim || seen[v]++)
            return fail(err, axes->loc, "axes lists each of the %d dimensions once", a->ndim);
        p->axes[d] = (int)v;
        p->out.shape[d] = a->shape[v];
    }
    p->out.ndim = a->ndim;
    p->out.dtype = a->dtype;
    return 0;
}

static void legal_permute(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *idx[OP_MAX_RANK];
    for (int d = 0; d < p->out.ndim; d++)
        idx[p->axes[d]] = t.x[d];
    nest_end(b, &t, "permute_dims", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

static int infer_reshape(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t s[OP_MAX_RANK];
    const Expr *shape = call->u.call.nargs > 1 ? call->u.call.args[1] : NULL;
    int n = shape ? shape_of(shape, s, OP_MAX_RANK) : -1;
    if (n <= 0)
        return fail(err, call->loc, "R.reshape takes a tensor and a shape of constants, as in (2, 3) or "
                    "R.shape([2, 3]), of rank 1 to %d", OP_MAX_RANK);
    int64_t in = 1, out = 1;
    int infer = -1;
    for (int d = 0; d < a->ndim; d++)
        if (__builtin_mul_overflow(in, a->shape[d], &in))
            return fail(err, call->loc, "R.reshape: more than 2^63 elements");
    for (int d = 0; d < n; d++) {
        if (s[d] == -1 && infer < 0) {
            infer = d;
            continue;
        }
        if (s[d] < 0)
            return fail(err, shape->loc, "a reshape dimension is positive, or -1 once");
        if (__builtin_mul_overflow(out, s[d], &out))
            return fail(err, shape->loc, "R.reshape: more than 2^63 elements");
    }
    if (infer >= 0)
        s[infer] = out ? in / out : 0;
    if (infer >= 0 && __builtin_mul_overflow(out, s[infer], &out))
        return fail(err, shape->loc, "R.reshape: more than 2^63 elements");
    if (out != in)
        return fail(err, shape->loc, "cannot reshape %lld elements into %lld", (long long)in, (long long)out);
    p->out.ndim = n;
    p->out.dtype = a->dtype;
    memcpy(p->out.shape, s, (size_t)n * sizeof *s);
    return 0;
}

static void legal_reshape(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    /* flat = the output index in row-major order; the input index from it */
    Expr *flat = NULL;
    for (int d = 0; d < p->out.ndim; d++)
        flat = flat ? bin(b, B_ADD, bin(b, B_MUL, flat, num(b, p->out.shape[d])), t.x[d]) : t.x[d];
    Expr *idx[OP_MAX_RANK];
    int64_t stride = 1;
    for (int d = in[0]->ndim - 1; d >= 0; d--) {
        int64_t e;
        expr_const_int(in[0]->shape[d], &e);
        Expr *v = stride > 1 ? bin(b, B_FLOORDIV, flat, num(b, stride)) : flat;
        idx[d] = d > 0 ? bin(b, B_FLOORMOD, v, num(b, e)) : v;
        stride *= e;
    }
    nest_end(b, &t, "reshape", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

static int infer_concat(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (read_axis(call, a[0].ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    p->out = a[0];
    p->out.shape[ax] = 0;
    for (int i = 0; i < nargs; i++) {
        if (a[i].dtype != a[0].dtype || a[i].ndim != a[0].ndim)
            return fail(err, call->loc, "R.concat joins tensors of one dtype and rank");
        for (int d = 0; d < a[0].ndim; d++)
            if (d != ax && a[i].shape[d] != a[0].shape[d])
                return fail(err, call->loc, "R.concat: tensor %d differs in dimension %d", i + 1, d);
        p->before[i] = p->out.shape[ax];
        if (__builtin_add_overflow(p->out.shape[ax], a[i].shape[ax], &p->out.shape[ax]))
            return fail(err, call->loc, "R.concat: more than 2^63 elements along axis %d", ax);
    }
    return 0;
}

static void legal_concat(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    /* the last input, then each earlier one where the index is below its end */
    Expr *val = NULL;
    for (int k = nin - 1; k >= 0; k--) {
        Expr *idx[OP_MAX_RANK];
        for (int d = 0; d < p->out.ndim; d++)
            idx[d] = d == p->axis && p->before[k] ? bin(b, B_SUB, t.x[d], num(b, p->before[k])) : t.x[d];
        Expr *x = load(b, in[k], idx);
        if (!val) {
            val = x;
        } else {
            int64_t e;
            expr_const_int(in[k]->shape[p->axis], &e);
            val = select3(b, bin(b, B_LT, t.x[p->axis], num(b, p->before[k] + e)), x, val);
        }
    }
    nest_end(b, &t, "concat", NULL, store(b, out, t.x, val));
}

static int infer_split(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t v[OP_MAX_ARGS];
    const Expr *ios = attr(call, "indices_or_sections");
    if (read_axis(call, a->ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    int64_t e = a->shape[ax], starts[OP_MAX_ARGS + 1];
    int n;
    if (ios && int_of(ios, &v[0]) == 0) {
        if (v[0] < 1 || v[0] > OP_MAX_ARGS)
            return fail(err, ios->loc, "R.split makes 1 to %d sections, not %lld", OP_MAX_ARGS, (long long)v[0]);
        if (e % v[0])
            return fail(err, ios->loc, "%lld sections do not divide the extent %lld", (long long)v[0], (long long)e);
        n = (int)v[0];
        for (int i = 0; i <= n; i++)
            starts[i] = e / n * i;
    } else {
        int k = ios ? ints_of(ios, v, OP_MAX_ARGS - 1) : -1;
        if (k < 0 && ios && (ios->kind == E_LIST || ios->kind == E_TUPLE) && ios->u.list.n > OP_MAX_ARGS - 1)
            return fail(err, ios->loc, "R.split takes at most %d split points (%d sections), not %d", OP_MAX_ARGS - 1,
                        OP_MAX_ARGS, ios->u.list.n);
        if (k < 0)
            return fail(err, ios ? ios->loc : call->loc, "indices_or_sections is a count or a list of split points");
        n = k + 1;
        starts[0] = 0;
        for (int i = 0; i < k; i++) {
            starts[i + 1] = v[i] < 0 ? 0 : v[i] > e ? e : v[i];
            if (starts[i + 1] < starts[i])
                return fail(err, ios->loc, "split points must increase");
        }
        starts[n] = e;
    }
    p->nout = n;
    for (int i = 0; i < n; i++) {
        TensorType *t = i ? &p->more[i - 1] : &p->out;
        *t = *a;
        t->shape[ax] = starts[i + 1] - starts[i];
        p->before[i] = starts[i];
        if (t->shape[ax] == 0)
            return fail(err, call->loc, "R.split: section %d is empty", i);
    }
    return 0;
}

static void legal_split(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    for (int k = 0; k < p->nout; k++) {
        const TensorType *t = k ? &p->more[k - 1] : &p->out;
        Nest n;
        nest_begin(b, &n, t->ndim, t->shape, kinds);
        Expr *idx[OP_MAX_RANK];
        for (int d = 0; d < t->ndim; d++)
            idx[d] = d == p->axis && p->before[k] ? bin(b, B_ADD, n.x[d], num(b, p->before[k])) : n.x[d];
        char name[32];
        snprintf(name, sizeof name, "split%d", k);
        nest_end(b, &n, name, NULL, store(b, outs[k], n.x, load(b, in[0], idx)));
    }
}

/* Whether the output has more elements than the input (then it has padding). */
static int volume_differs(const TensorType *a, const TensorType *b)
{
    int64_t x = 1, y = 1;
    for (int i = 0; i < a->ndim; i++)
        x *= a->shape[i];
    for (int i = 0; i < b->ndim; i++)
        y *= b->shape[i];
    return x != y;
}

static int infer_layout(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *map = attr(call, "index_map"), *pv = attr(call, "pad_value");
    if (!map || map->kind != E_INDEXMAP)
        return fail(err, call->loc, "R.layout_transform needs index_map=T.index_map(...)");
    if (map->u.map.nparams != a->ndim)
        return fail(err, map->loc, "the index map takes %d ind%s; the tensor has rank %d", map->u.map.nparams,
                    map->u.map.nparams == 1 ? "ex" : "ices", a->ndim);
    p->keepdims = pv && pv->kind != E_NONE;
    if (p->keepdims && num_of(pv, &p->pad_value))
        return fail(err, pv->loc, "pad_value is a number");
    Arena ar = { 0 };
    arena_scratch(&ar);
    ImError ierr;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    IndexMap *im = im_from_expr(&ar, map, a->shape, &ierr);
    int r = 0;
    if (!im) {
        r = fail(err, ierr.loc.line ? ierr.loc : map->loc, "%s", ierr.msg);
    } else if (im->nout > OP_MAX_RANK) {
        r = fail(err, map->loc, "the index map has more than %d outputs", OP_MAX_RANK);
    } else {
        ImKind k = im_classify(im, wa, wb);
        if (k == IM_NOT_INJECTIVE || k == IM_UNKNOWN)
            r = fail(err, map->loc, "the index map of R.layout_transform is %s on the tensor's shape",
                     k == IM_UNKNOWN ? "not known to be injective" : "not injective");
        p->out.dtype = a->dtype;
        p->out.ndim = im->nout;
        memcpy(p->out.shape, im->obox, (size_t)im->nout * sizeof *im->obox);
        p->axis = volume_differs(a, &p->out);
    }
    arena_scratch_end(&ar);
    return r;
}

/* A copy of a map's output expression over the block's iterators. */
static Expr *subst(B *b, const Expr *e, const Expr *map, Expr *const *to)
{
    switch (e->kind) {
    case E_VAR:
        for (int i = 0; i < map->u.map.nparams; i++)
            if (map->u.map.params[i] == e->u.var)
                return to[i];
        return (Expr *)e;
    case E_BIN:
        return bin(b, e->u.bin.op, subst(b, e->u.bin.a, map, to), subst(b, e->u.bin.b, map, to));
    case E_UNARY: {
        Expr *x = expr_new(b->a, E_UNARY, b->loc);
        x->u.un.op = e->u.un.op;
        x->u.un.a = subst(b, e->u.un.a, map, to);
        return x;
    }
    default:
        return (Expr *)e;
    }
}

static void legal_layout(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    const Expr *map = attr(call, "index_map");
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    if (p->keepdims && p->axis) {
        /* the padding: every point first, then the image over it */
        Nest f;
        nest_begin(b, &f, p->out.ndim, p->out.shape, kinds);
        nest_end(b, &f, "layout_transform_pad", NULL, store(b, out, f.x, typed(b, p->pad_value, p->out.dtype)));
    }
    Nest t;
    int64_t ext[OP_MAX_RANK];
    for (int d = 0; d < in[0]->ndim; d++)
        expr_const_int(in[0]->shape[d], &ext[d]);
    nest_begin(b, &t, in[0]->ndim, ext, kinds);
    Expr *oi[OP_MAX_RANK];
    for (int k = 0; k < map->u.map.nout; k++)
        oi[k] = subst(b, map->u.map.out[k], map, t.x);
    nest_end(b, &t, "layout_transform", NULL, store(b, out, oi, load(b, in[0], t.x)));
}

static int infer_pad(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t w[2 * OP_MAX_RANK];
    const Expr *pw = attr(call, "pad_width"), *pv = attr(call, "pad_value"), *mode = attr(call, "pad_mode");
    int n = pw ? ints_of(pw, w, 2 * OP_MAX_RANK) : -1;
    if (n != 2 * a->ndim)
        return fail(err, pw ? pw->loc : call->loc, "pad_width lists a before and an after pad for each of the %d "
                    "dimensions", a->ndim);
    const char *m = str_of(mode, "constant");
    /* the mode; TVM spells NumPy's "edge" "replicate" */
    p->keepdims = strcmp(m, "edge") == 0 || strcmp(m, "replicate") == 0 ? 1 : strcmp(m, "reflect") == 0 ? 2 : 0;
    if (!p->keepdims && strcmp(m, "constant") != 0)
        return fail(err, mode->loc, "pad_mode is \"constant\", \"edge\" (TVM's \"replicate\") or \"reflect\"");
    p->pad_value = 0;
    if (pv && num_of(pv, &p->pad_value))
        return fail(err, pv->loc, "pad_value is a number");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        if (w[2 * d] < 0 || w[2 * d + 1] < 0)
            return fail(err, pw->loc, "pads are not negative");
        if (p->keepdims && (w[2 * d] || w[2 * d + 1]) && a->shape[d] == 0)
            return fail(err, pw->loc, "pad_mode \"%s\" pads dimension %d of extent 0", m, d);
        if (p->keepdims == 2 && (w[2 * d] >= a->shape[d] || w[2 * d + 1] >= a->shape[d]))
            return fail(err, pw->loc, "pad_mode \"reflect\" pads dimension %d of extent %lld by less than its extent",
                        d, (long long)a->shape[d]);
        p->before[d] = w[2 * d];
        p->out.shape[d] = a->shape[d] + w[2 * d] + w[2 * d + 1];
    }
    return 0;
}

static Expr *shifted(B *b, Expr *x, int64_t before)
{
    return before ? bin(b, B_SUB, x, num(b, before)) : x;
}

/* |x - before|: the mirror about the first point */
static Expr *mirror_first(B *b, Expr *x, int64_t before)
{
    return select3(b, bin(b, B_LT, shifted(b, x, before), num(b, 0)), bin(b, B_SUB, num(b, 0), shifted(b, x, before)),
                   shifted(b, x, before));
}

/* The input index output index x of an edge (1) or reflect (2) pad reads:
 * x - before held inside [0, e) by repeating the edge, or by mirroring about
 * the first and the last point (which are not repeated). Every use builds
 * its own nodes. */
static Expr *pad_source(B *b, int mode, Expr *x, int64_t before, int64_t e)
{
    if (mode == 1)
        return intrin(b, "T.min", intrin(b, "T.max", shifted(b, x, before), num(b, 0)), num(b, e - 1));
    return select3(b, bin(b, B_GE, mirror_first(b, x, before), num(b, e)),
                   bin(b, B_SUB, num(b, 2 * (e - 1)), mirror_first(b, x, before)), mirror_first(b, x, before));
}

static void legal_pad(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *idx[OP_MAX_RANK], *cond = NULL;
    for (int d = 0; d < p->out.ndim; d++) {
        int64_t e;
        expr_const_int(in[0]->shape[d], &e);
        idx[d] = p->before[d] ? bin(b, B_SUB, t.x[d], num(b, p->before[d])) : t.x[d];
        if (p->keepdims && p->out.shape[d] != e) {
            idx[d] = pad_source(b, p->keepdims, t.x[d], p->before[d], e);
            continue;
        }
        if (p->out.shape[d] != e) {
            Expr *c = within(b, t.x[d], p->before[d], p->before[d] + e);
            cond = cond ? bin(b, B_AND, cond, c) : c;
        }
    }
    Expr *x = load(b, in[0], idx);
    Expr *val = cond ? select3(b, cond, x, typed(b, p->pad_value, p->out.dtype)) : x;
    nest_end(b, &t, "pad", NULL, store(b, out, t.x, val));
}

/* The input index each output index reads, for the operators that only
 * move elements: x holds the output's block iterators. */
typedef void IndexFn(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx);

static int64_t extent(const Buffer *buf, int d)
{
    int64_t e = 0;
    expr_const_int(buf->shape[d], &e);
    return e;
}

static void gather(B *b, const char *name, Buffer *in, Buffer *out, const Plan *p, IndexFn *index)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *idx[OP_MAX_RANK];
    index(b, p, in, t.x, idx);
    nest_end(b, &t, name, NULL, store(b, out, t.x, load(b, in, idx)));
}

/* flatten(x): every dimension into one, in row-major order */
static int infer_flatten(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    p->out.dtype = a->dtype;
    p->out.ndim = 1;
    p->out.shape[0] = 1;
    for (int d = 0; d < a->ndim; d++)
        if (__builtin_mul_overflow(p->out.shape[0], a->shape[d], &p->out.shape[0]))
            return fail(err, call->loc, "R.flatten: more than 2^63 elements");
    return 0;
}

/* The axes of an axis attribute (an integer or a list) against rank, flagged
 * in seen; the count, or -1 with err filled. */
static int axes_attr(const Expr *call, int rank, int *seen, OpError *err)
{
    int64_t v[OP_MAX_RANK];
    const Expr *e = attr(call, "axis");
    int n = e && e->kind != E_NONE ? ints_of(e, v, OP_MAX_RANK) : 0;
    if (n < 0)
        return fail(err, e->loc, "axis is an integer or a list of at most %d integers", OP_MAX_RANK);
    memset(seen, 0, OP_MAX_RANK * sizeof *seen);
    for (int i = 0; i < n; i++) {
        int64_t d = v[i] < 0 ? v[i] + rank : v[i];
        if (d < 0 || d >= rank)
            return fail(err, e->loc, "axis %lld is out of range for rank %d", (long long)v[i], rank);
        if (seen[d]++)
            return fail(err, e->loc, "axis names dimension %lld twice", (long long)d);
    }
    return n;
}

/* expand_dims(x, axis): new dimensions of extent 1 at the output's places axis */
static int infer_expand(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *e = attr(call, "axis");
    int64_t v[OP_MAX_RANK];
    int k = e ? ints_of(e, v, OP_MAX_RANK) : -1;
    if (k < 1)
        return fail(err, e ? e->loc : call->loc, "R.expand_dims needs axis, an integer or a list of them");
    if (a->ndim + k > OP_MAX_RANK)
        return fail(err, call->loc, "R.expand_dims: rank %d above %d", a->ndim + k, OP_MAX_RANK);
    if (axes_attr(call, a->ndim + k, p->axes, err) < 0)
        return -1;
    p->out.dtype = a->dtype;
    p->out.ndim = a->ndim + k;
    for (int d = 0, j = 0; d < p->out.ndim; d++)
        p->out.shape[d] = p->axes[d] ? 1 : a->shape[j++];
    return 0;
}

static void expand_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    for (int d = 0, j = 0; d < p->out.ndim; d++)
        if (!p->axes[d])
            idx[j++] = x[d];
}

/* squeeze(x, axis): the dimensions named (each of extent 1), or every one of extent 1 */
static int infer_squeeze(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int n = axes_attr(call, a->ndim, p->axes, err);
    if (n < 0)
        return -1;
    for (int d = 0; d < a->ndim; d++) {
        if (n == 0)
            p->axes[d] = a->shape[d] == 1;
        else if (p->axes[d] && a->shape[d] != 1)
            return fail(err, attr(call, "axis")->loc, "R.squeeze: dimension %d has extent %lld, not 1", d,
                        (long long)a->shape[d]);
    }
    p->out.dtype = a->dtype;
    for (int d = 0; d < a->ndim; d++)
        if (!p->axes[d])
            p->out.shape[p->out.ndim++] = a->shape[d];
    return 0;
}

static void squeeze_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    for (int d = 0, j = 0; d < in->ndim; d++)
        idx[d] = p->axes[d] ? num(b, 0) : x[j++];
}

/* broadcast_to(x, shape): NumPy's rules, the shape of rank at least x's */
static int infer_broadcast(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t s[OP_MAX_RANK];
    char b1[96], b2[96];
    const Expr *shape = call->u.call.args[1];
    int n = shape_of(shape, s, OP_MAX_RANK);
    if (n < 0)
        return fail(err, shape->loc, "R.broadcast_to takes a shape of constants, as in R.shape([2, 3]), of rank at "
                    "most %d", OP_MAX_RANK);
    p->out.dtype = a->dtype;
    p->out.ndim = n;
    memcpy(p->out.shape, s, (size_t)n * sizeof *s);
    int ok = n >= a->ndim;
    for (int d = 0; ok && d < a->ndim; d++) {
        int64_t e = a->shape[d], f = s[n - a->ndim + d];
        ok = e == f || e == 1;
    }
    if (!ok)
        return fail(err, shape->loc, "R.broadcast_to: %s does not broadcast to %s", type_text(a, b1, sizeof b1),
                    type_text(&p->out, b2, sizeof b2));
    return 0;
}

static void broadcast_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    int off = p->out.ndim - in->ndim;
    for (int d = 0; d < in->ndim; d++)
        idx[d] = extent(in, d) == 1 && p->out.shape[d + off] != 1 ? num(b, 0) : x[d + off];
}

/* tile(x, repeats): the tensor repeated along each dimension; repeats
 * shorter than the rank repeat the last dimensions, longer ones give x
 * leading dimensions of extent 1 */
static int infer_tile(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t r[OP_MAX_RANK];
    const Expr *e = attr(call, "repeats");
    int n = e ? ints_of(e, r, OP_MAX_RANK) : -1;
    if (n < 0)
        return fail(err, e ? e->loc : call->loc, "R.tile needs repeats, an integer or a list of at most %d", OP_MAX_RANK);
    int rank = n > a->ndim ? n : a->ndim;
    p->out.dtype = a->dtype;
    p->out.ndim = rank;
    for (int d = 0; d < rank; d++) {
        int dx = d - (rank - a->ndim), dr = d - (rank - n);
        int64_t x = dx >= 0 ? a->shape[dx] : 1, k = dr >= 0 ? r[dr] : 1;
        if (k < 0 || (x && k > INT64_MAX / x))
            return fail(err, e->loc, "R.tile: repeats are not negative");
        p->out.shape[d] = x * k;
    }
    return 0;
}

static void tile_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    int off = p->out.ndim - in->ndim;
    for (int d = 0; d < in->ndim; d++) {
        int64_t e = extent(in, d);
        idx[d] = e == p->out.shape[d + off] ? x[d + off] : e == 1 ? num(b, 0) : bin(b, B_FLOORMOD, x[d + off], num(b, e));
    }
}

/* repeat(x, repeats, axis): each element repeats times along axis; without
 * an axis, of the flattened tensor */
static int infer_repeat(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *e = attr(call, "repeats"), *ax = attr(call, "axis");
    int64_t k, v;
    if (!e || int_of(e, &k) || k < 0)
        return fail(err, e ? e->loc : call->loc, "R.repeat needs repeats, an integer at least 0");
    p->out.dtype = a->dtype;
    p->step[0] = k;
    if (!ax || ax->kind == E_NONE) {
        p->axis = -1;
        p->out.ndim = 1;
        p->out.shape[0] = k;
        for (int d = 0; d < a->ndim; d++)
            if (__builtin_mul_overflow(p->out.shape[0], a->shape[d], &p->out.shape[0]))
                return fail(err, e->loc, "R.repeat: more than 2^63 elements");
        return 0;
    }
    if (int_of(ax, &v) || (v < 0 ? v += a->ndim : v) < 0 || v >= a->ndim)
        return fail(err, ax->loc, "axis is an integer in range for rank %d", a->ndim);
    p->axis = (int)v;
    p->out.ndim = a->ndim;
    memcpy(p->out.shape, a->shape, (size_t)a->ndim * sizeof *a->shape);
    if (__builtin_mul_overflow(p->out.shape[v], k, &p->out.shape[v]))
        return fail(err, e->loc, "R.repeat: more than 2^63 elements along axis %lld", (long long)v);
    return 0;
}

/* The row-major index into in of the flat position f. */
static void unflatten(B *b, const Buffer *in, Expr *f, Expr **idx)
{
    int64_t stride = 1;
    for (int d = in->ndim - 1; d >= 0; d--) {
        int64_t e = extent(in, d);
        Expr *v = stride > 1 ? bin(b, B_FLOORDIV, f, num(b, stride)) : f;
        idx[d] = d > 0 ? bin(b, B_FLOORMOD, v, num(b, e)) : v;
        stride *= e;
    }
}

static void repeat_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    int64_t k = p->step[0];
    if (p->axis < 0) {
        unflatten(b, in, k == 1 ? x[0] : bin(b, B_FLOORDIV, x[0], num(b, k)), idx);
        return;
    }
    for (int d = 0; d < in->ndim; d++)
        idx[d] = d == p->axis && k != 1 ? bin(b, B_FLOORDIV, x[d], num(b, k)) : x[d];
}

/* flip(x, axis): the order along axis reversed */
static int infer_flip(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *ax = attr(call, "axis");
    int64_t v;
    if (!ax || int_of(ax, &v) || (v < 0 ? v += a->ndim : v) < 0 || v >= a->ndim)
        return fail(err, ax ? ax->loc : call->loc, "R.flip needs axis, an integer in range for rank %d", a->ndim);
    p->axis = (int)v;
    p->out = *a;
    return 0;
}

static void flip_index(B *b, const Plan *p, const Buffer *in, Expr *const *x, Expr **idx)
{
    for (int d = 0; d < in->ndim; d++)
        idx[d] = d == p->axis ? bin(b, B_SUB, num(b, extent(in, d) - 1), x[d]) : x[d];
}

/* reverse_sequence(x, seq_lengths, seq_axis=1, batch_axis=0): for each
 * index b along batch_axis, the first seq_lengths[b] elements along seq_axis
 * reversed and the rest left in place; a length above the extent reverses
 * the whole axis, one of 0 or 1 (or negative) leaves it (Relay's
 * reverse_sequence). seq_lengths is a 1-d integer tensor with one length per
 * batch index. */
static int infer_revseq(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const char *key[2] = { "seq_axis", "batch_axis" };
    int64_t v[2] = { 1, 0 };
    for (int k = 0; k < 2; k++) {
        const Expr *e = attr(call, key[k]);
        if (e && (int_of(e, &v[k]) || (v[k] < 0 ? v[k] += a[0].ndim : v[k]) < 0 || v[k] >= a[0].ndim))
            return fail(err, e->loc, "R.reverse_sequence: %s is an integer in range for rank %d", key[k], a[0].ndim);
        if (!e && v[k] >= a[0].ndim)
            return fail(err, call->loc, "R.reverse_sequence: the data has rank %d; it needs 2 for the default "
                        "axes, or seq_axis and batch_axis given", a[0].ndim);
    }
    if (v[0] == v[1])
        return fail(err, call->loc, "R.reverse_sequence: seq_axis and batch_axis are one dimension (%lld)",
                    (long long)v[0]);
    if (a[1].dtype != DT_INT32 && a[1].dtype != DT_INT64)
        return fail(err, call->loc, "R.reverse_sequence: seq_lengths are int32 or int64, not %s",
                    dtype_name(a[1].dtype));
    if (a[1].ndim != 1 || a[1].shape[0] != a[0].shape[v[1]]) {
        char buf[96];
        return fail(err, call->loc, "R.reverse_sequence: seq_lengths is %s; it needs one length for each of the %lld "
                    "indices of batch_axis %lld", type_text(&a[1], buf, sizeof buf), (long long)a[0].shape[v[1]],
                    (long long)v[1]);
    }
    p->axis = (int)v[0];
    p->axes[0] = (int)v[1];
    p->out = a[0];
    return 0;
}

/* index s along the sequence axis reads L - 1 - s when s < L = min(len, extent), else s */
static void legal_revseq(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *bi[1] = { t.x[p->axes[0]] }, *idx[OP_MAX_RANK];
    Expr *len = to_dtype(b, load(b, in[1], bi), in[1]->dtype, DT_INT64);
    Expr *l = intrin(b, "T.min", len, typed(b, (double)extent(in[0], p->axis), DT_INT64));
    Expr *s = t.x[p->axis];
    for (int d = 0; d < p->out.ndim; d++)
        idx[d] = t.x[d];
    idx[p->axis] = select3(b, bin(b, B_LT, s, l), bin(b, B_SUB, bin(b, B_SUB, l, typed(b, 1, DT_INT64)), s), s);
    nest_end(b, &t, "reverse_sequence", NULL, store(b, outs[0], t.x, load(b, in[0], idx)));
}

static void legal_expand(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "expand_dims", in[0], outs[0], p, expand_index);
}

static void legal_squeeze(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "squeeze", in[0], outs[0], p, squeeze_index);
}

static void legal_broadcast(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "broadcast_to", in[0], outs[0], p, broadcast_index);
}

static void legal_tile(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "tile", in[0], outs[0], p, tile_index);
}

static void legal_repeat(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "repeat", in[0], outs[0], p, repeat_index);
}

static void legal_flip(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    gather(b, "flip", in[0], outs[0], p, flip_index);
}

/* collapse_sum_to(x, shape) and collapse_sum_like(x, y): the sum of x down
 * to a shape that broadcasts to x's (y's shape for the _like form), the
 * gradient of a broadcast: x's leading dimensions the shape lacks are
 * summed away, and those where the shape has 1 and x more are summed to 1.
 * The sum adds in dimension order (nest_reduce's). */
static int infer_collapse(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t s[OP_MAX_RANK];
    char b1[96], b2[96];
    int n;
    if (nargs == 2) {
        n = a[1].ndim;
        memcpy(s, a[1].shape, (size_t)n * sizeof *s);
    } else if ((n = shape_of(call->u.call.args[1], s, OP_MAX_RANK)) < 0) {
        return fail(err, call->u.call.args[1]->loc, "R.collapse_sum_to takes a shape of constants, as in "
                    "R.shape([2, 3]), of rank at most %d", OP_MAX_RANK);
    }
    p->out.dtype = a->dtype;
    p->out.ndim = n;
    memcpy(p->out.shape, s, (size_t)n * sizeof *s);
    int off = a->ndim - n, ok = off >= 0;
    for (int d = 0; ok && d < n; d++)
        ok = s[d] == a->shape[off + d] || s[d] == 1;
    if (!ok)
        return fail(err, nargs == 2 ? call->loc : call->u.call.args[1]->loc, "%s: %s does not broadcast to %s",
                    o->info.name, type_text(&p->out, b2, sizeof b2), type_text(a, b1, sizeof b1));
    /* axes[d]: x's dimension d is summed (away when d < off, to 1 after) */
    for (int d = 0; d < a->ndim; d++)
        p->axes[d] = d < off || (s[d - off] == 1 && a->shape[d] != 1);
    return 0;
}

static void legal_collapse(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    int64_t shape[OP_MAX_RANK] = { 0 };
    int nd = in[0]->ndim, at[OP_MAX_RANK], off = nd - p->out.ndim;
    for (int d = 0; d < nd; d++)
        shape[d] = extent(in[0], d);
    nest_reduce(b, &t, shape, nd, p->axes, NULL, 0, at);
    Expr *iidx[OP_MAX_RANK], *oidx[OP_MAX_RANK];
    for (int d = 0; d < nd; d++) {
        iidx[d] = t.x[at[d]];
        if (d >= off)
            oidx[d - off] = p->axes[d] ? num(b, 0) : t.x[at[d]];
    }
    Expr *acc = load(b, outs[0], oidx);
    nest_end(b, &t, "collapse_sum", store(b, outs[0], oidx, typed(b, 0, p->out.dtype)),
             store(b, outs[0], oidx, bin(b, B_ADD, acc, load(b, in[0], iidx))));
}

static const Op ops[] = {
    { { "R.permute_dims", LAYOUT_LIGHT, 1, 1, permute_attrs, 0, 0, NULL, NULL }, infer_permute, legal_permute, 0, 0, 0, permute_attrs },
    { { "R.reshape", LAYOUT_HEAVY, 2, 1, no_attrs, 0, 0, NULL, NULL }, infer_reshape, legal_reshape, 0, 0, 0, NULL },
    { { "R.concat", LAYOUT_LIGHT, 1, 0, concat_attrs, 1, 0, NULL, NULL }, infer_concat, legal_concat, 0, 1, 0, concat_attrs },
    { { "R.split", LAYOUT_LIGHT, 1, 1, split_attrs, 0, 1, NULL, NULL }, infer_split, legal_split, 0, 1, 0, split_attrs },
    { { "R.layout_transform", LAYOUT_HEAVY, 1, 1, lt_attrs, 0, 0, NULL, NULL }, infer_layout, legal_layout, 0, 0, 0, lt_attrs },
    { { "R.nn.pad", LAYOUT_LIGHT, 1, 1, pad_attrs, 0, 0, NULL, NULL }, infer_pad, legal_pad, 0, 0, 0, nn_pad_pos },
    { { "R.pad", LAYOUT_LIGHT, 1, 1, pad_attrs, 0, 0, NULL, NULL }, infer_pad, legal_pad, 0, 0, 0, NULL },
    { { "R.flatten", LAYOUT_HEAVY, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_flatten, legal_reshape, 0, 0, 0, NULL },
    { { "R.expand_dims", LAYOUT_LIGHT, 1, 1, axis_attrs, 0, 0, NULL, NULL }, infer_expand, legal_expand, 0, 0, 0, axis_attrs },
    { { "R.squeeze", LAYOUT_LIGHT, 1, 1, axis_attrs, 0, 0, NULL, NULL }, infer_squeeze, legal_squeeze, 0, 0, 0, axis_attrs },
    { { "R.broadcast_to", LAYOUT_LIGHT, 2, 1, no_attrs, 0, 0, NULL, NULL }, infer_broadcast, legal_broadcast, 0, 0, 0, NULL },
    { { "R.tile", LAYOUT_LIGHT, 1, 1, tile_attrs, 0, 0, NULL, NULL }, infer_tile, legal_tile, 0, 0, 0, tile_attrs },
    { { "R.repeat", LAYOUT_LIGHT, 1, 1, repeat_attrs, 0, 0, NULL, NULL }, infer_repeat, legal_repeat, 0, 1, 0, repeat_attrs },
    { { "R.flip", LAYOUT_LIGHT, 1, 1, axis_attrs, 0, 0, NULL, NULL }, infer_flip, legal_flip, 0, 1, 0, axis_attrs },
    { { "R.reverse_sequence", LAYOUT_LIGHT, 2, 2, revseq_attrs, 0, 0, NULL, NULL }, infer_revseq, legal_revseq, 0, 0, 0,
      revseq_attrs },
    { { "R.collapse_sum_like", LAYOUT_LIGHT, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_collapse, legal_collapse, 0, 0, 0, NULL },
    { { "R.collapse_sum_to", LAYOUT_LIGHT, 2, 1, no_attrs, 0, 0, NULL, NULL }, infer_collapse, legal_collapse, 0, 0, 0, NULL },
};

const OpFamily op_family_manipulate = { ops, sizeof ops / sizeof *ops };
