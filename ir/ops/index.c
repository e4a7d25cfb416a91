/* Taking elements: a box of them (R.strided_slice, strides of either sign
 * and empty results too, as NumPy's slices; R.crop), or those an index
 * tensor names (R.take, R.gather_elements). */
#include <string.h>

#include "internal.h"

static const char *const slice_attrs[] = { "axes", "begin", "end", "strides", "assume_inbound", NULL };
static const char *const take_attrs[] = { "axis", "mode", NULL };
static const char *const crop_attrs[] = { "start_indices", "slice_sizes", "cropped_value", NULL };
static const char *const gather_attrs[] = { "axis", NULL };

static int infer_slice(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK], be[OP_MAX_RANK], en[OP_MAX_RANK], st[OP_MAX_RANK];
    const Expr *axes = attr(call, "axes"), *begin = attr(call, "begin"), *end = attr(call, "end"),
               *strides = attr(call, "strides");
    int n = ints_of(axes, ax, OP_MAX_RANK), nb = ints_of(begin, be, OP_MAX_RANK), ne = ints_of(end, en, OP_MAX_RANK),
        ns = strides && strides->kind != E_NONE ? ints_of(strides, st, OP_MAX_RANK) : 0;
    if (n <= 0 || nb != n || ne != n || (ns && ns != n))
        return fail(err, call->loc, "R.strided_slice takes axes, begin and end (and strides) of one length");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        p->before[d] = 0;
        p->step[d] = 1;
    }
    for (int i = 0; i < n; i++) {
        int64_t d = ax[i] < 0 ? ax[i] + a->ndim : ax[i], e = a->shape[d >= 0 && d < a->ndim ? d : 0];
        if (d < 0 || d >= a->ndim)
            return fail(err, axes->loc, "axis %lld is out of range", (long long)ax[i]);
        int64_t s = ns ? st[i] : 1, b = be[i] < 0 ? be[i] + e : be[i], f = en[i] < 0 ? en[i] + e : en[i];
        if (s == 0 || s == INT64_MIN)
            return fail(err, strides->loc, "strides are not 0");
        /* as NumPy: forward from b up to f, or backward from b down to f (-1: past the first) */
        int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? e : e - 1;
        b = b < lo ? lo : b > hi ? hi : b;
        f = f < lo ? lo : f > hi ? hi : f;
        p->before[d] = b;
        p->step[d] = s;
        p->out.shape[d] = s > 0 ? (f > b ? (f - b + s - 1) / s : 0) : (b > f ? (b - f - s - 1) / -s : 0);
    }
    return 0;
}

static int infer_crop(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t st[OP_MAX_RANK], sz[OP_MAX_RANK];
    const Expr *s = attr(call, "start_indices"), *z = attr(call, "slice_sizes");
    if (!s || !z || ints_of(s, st, OP_MAX_RANK) != a->ndim || ints_of(z, sz, OP_MAX_RANK) != a->ndim)
        return fail(err, call->loc, "R.crop takes start_indices and slice_sizes, one per dimension");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        if (st[d] < 0 || sz[d] < 1 || st[d] + sz[d] > a->shape[d])
            return fail(err, call->loc, "R.crop: dimension %d: [%lld, %lld) is not inside [0, %lld)", d,
                        (long long)st[d], (long long)(st[d] + sz[d]), (long long)a->shape[d]);
        p->before[d] = st[d];
        p->step[d] = 1;
        p->out.shape[d] = sz[d];
    }
    return 0;
}

static void legal_slice(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *idx[OP_MAX_RANK];
    for (int d = 0; d < p->out.ndim; d++) {
        Expr *v = p->step[d] != 1 ? bin(b, B_MUL, t.x[d], num(b, p->step[d])) : t.x[d];
        idx[d] = p->before[d] ? bin(b, B_ADD, v, num(b, p->before[d])) : v;
    }
    nest_end(b, &t, "strided_slice", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

/* take(x, indices, axis, mode): along axis (of the flattened x without one),
 * the elements indices names; the result has x's shape with that axis
 * replaced by the indices' shape. mode "fast" reads the index as it is (one
 * outside the axis is an error of the run), "wrap" takes it modulo the
 * extent, "clip" holds it inside. */
static int infer_take(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *ax = attr(call, "axis"), *mode = attr(call, "mode");
    const char *m = str_of(mode, "fast");
    if (a[1].dtype != DT_INT32 && a[1].dtype != DT_INT64)
        return fail(err, call->loc, "R.take: the indices are int32 or int64, not %s", dtype_name(a[1].dtype));
    p->keepdims = strcmp(m, "wrap") == 0 ? 1 : strcmp(m, "clip") == 0 ? 2 : 0;
    if (!p->keepdims && strcmp(m, "fast") != 0)
        return fail(err, mode->loc, "R.take: mode is \"fast\", \"wrap\" or \"clip\"");
    int64_t v;
    TensorType x = a[0];
    if (!ax || ax->kind == E_NONE) {
        p->axis = -1;
        x.ndim = 1;
        x.shape[0] = 1;
        for (int d = 0; d < a[0].ndim; d++)
            if (__builtin_mul_overflow(x.shape[0], a[0].shape[d], &x.shape[0]))
                return fail(err, call->loc, "R.take: more than 2^63 elements");
        v = 0;
    } else if (int_of(ax, &v) || (v < 0 ? v += a[0].ndim : v) < 0 || v >= a[0].ndim) {
        return fail(err, ax->loc, "axis is an integer in range for rank %d", a[0].ndim);
    } else {
        p->axis = (int)v;
    }
    if (x.ndim - 1 + a[1].ndim > OP_MAX_RANK)
        return fail(err, call->loc, "R.take: rank %d above %d", x.ndim - 1 + a[1].ndim, OP_MAX_RANK);
    if (x.shape[v] == 0 && p->keepdims)
        return fail(err, call->loc, "R.take: mode \"%s\" takes from an empty axis", m);
    p->out.dtype = a[0].dtype;
    p->out.ndim = 0;
    for (int d = 0; d < v; d++)
        p->out.shape[p->out.ndim++] = x.shape[d];
    for (int d = 0; d < a[1].ndim; d++)
        p->out.shape[p->out.ndim++] = a[1].shape[d];
    for (int d = (int)v + 1; d < x.ndim; d++)
        p->out.shape[p->out.ndim++] = x.shape[d];
    p->before[0] = x.shape[v];   /* the axis' extent */
    return 0;
}

static void legal_take(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    int k = in[1]->ndim, ax = p->axis < 0 ? 0 : p->axis;
    int64_t e = p->before[0];
    Expr *ii[OP_MAX_RANK], *xi[OP_MAX_RANK];
    for (int d = 0; d < k; d++)
        ii[d] = t.x[ax + d];
    Expr *i = to_dtype(b, load(b, in[1], ii), in[1]->dtype, DT_INT64);
    if (p->keepdims == 1)
        i = bin(b, B_FLOORMOD, i, typed(b, (double)e, DT_INT64));
    else if (p->keepdims == 2)
        i = intrin(b, "T.min", intrin(b, "T.max", i, typed(b, 0, DT_INT64)), typed(b, (double)(e - 1), DT_INT64));
    if (p->axis < 0) {
        /* the flattened x: its row-major index i */
        int64_t stride = 1;
        for (int d = in[0]->ndim - 1; d >= 0; d--) {
            int64_t ext;
            expr_const_int(in[0]->shape[d], &ext);
            Expr *q = to_dtype(b, load(b, in[1], ii), in[1]->dtype, DT_INT64);
            if (p->keepdims == 1)
                q = bin(b, B_FLOORMOD, q, typed(b, (double)e, DT_INT64));
            else if (p->keepdims == 2)
                q = intrin(b, "T.min", intrin(b, "T.max", q, typed(b, 0, DT_INT64)), typed(b, (double)(e - 1), DT_INT64));
            Expr *v = stride > 1 ? bin(b, B_FLOORDIV, q, typed(b, (double)stride, DT_INT64)) : q;
            xi[d] = d > 0 ? bin(b, B_FLOORMOD, v, typed(b, (double)ext, DT_INT64)) : v;
            stride *= ext;
        }
    } else {
        for (int d = 0; d < ax; d++)
            xi[d] = t.x[d];
        xi[ax] = i;
        for (int d = ax + 1; d < in[0]->ndim; d++)
            xi[d] = t.x[d - 1 + k];
    }
    nest_end(b, &t, "take", NULL, store(b, outs[0], t.x, load(b, in[0], xi)));
}

/* gather_elements(x, indices, axis): indices has x's rank and, off the
 * axis, extents within x's; out[i] = x[i with i[axis] = indices[i]], the
 * index counted from the end when negative (as NumPy's take_along_axis and
 * ONNX); one outside [-e, e) is an error of the run. */
static int infer_gather(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *ax = attr(call, "axis");
    int64_t v = 0;
    if (a[1].dtype != DT_INT32 && a[1].dtype != DT_INT64)
        return fail(err, call->loc, "R.gather_elements: the indices are int32 or int64, not %s", dtype_name(a[1].dtype));
    if (a[1].ndim != a[0].ndim)
        return fail(err, call->loc, "R.gather_elements: the indices have rank %d, the data rank %d", a[1].ndim,
                    a[0].ndim);
    if (a[0].ndim == 0)
        return fail(err, call->loc, "R.gather_elements: the data has rank 0");
    if (ax && ax->kind != E_NONE && (int_of(ax, &v) || (v < 0 ? v += a[0].ndim : v) < 0 || v >= a[0].ndim))
        return fail(err, ax->loc, "axis is an integer in range for rank %d", a[0].ndim);
    for (int d = 0; d < a[0].ndim; d++)
        if (d != v && a[1].shape[d] > a[0].shape[d])
            return fail(err, call->loc, "R.gather_elements: dimension %d of the indices (%lld) exceeds the data's (%lld)",
                        d, (long long)a[1].shape[d], (long long)a[0].shape[d]);
    if (a[0].shape[v] == 0 && a[1].shape[v] > 0)
        return fail(err, call->loc, "R.gather_elements: gathers from an empty axis");
    p->axis = (int)v;
    p->out = a[1];
    p->out.dtype = a[0].dtype;
    p->before[0] = a[0].shape[v];
    return 0;
}

static void legal_gather(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *i = to_dtype(b, load(b, in[1], t.x), in[1]->dtype, DT_INT64), *xi[OP_MAX_RANK];
    Expr *neg = bin(b, B_LT, i, typed(b, 0, DT_INT64));
    for (int d = 0; d < p->out.ndim; d++)
        xi[d] = t.x[d];
    xi[p->axis] = select3(b, neg, bin(b, B_ADD, i, typed(b, (double)p->before[0], DT_INT64)), i);
    nest_end(b, &t, "gather_elements", NULL, store(b, outs[0], t.x, load(b, in[0], xi)));
}

static const Op ops[] = {
    { { "R.strided_slice", LAYOUT_LIGHT, 1, 1, slice_attrs, 0, 0 }, infer_slice, legal_slice, 0, 0, 0, slice_attrs },
    { { "R.take", LAYOUT_LIGHT, 2, 2, take_attrs, 0, 0 }, infer_take, legal_take, 0, 0, 0, take_attrs },
    { { "R.gather_elements", LAYOUT_LIGHT, 2, 2, gather_attrs, 0, 0 }, infer_gather, legal_gather, 0, 1, 0, gather_attrs },
    { { "R.crop", LAYOUT_LIGHT, 1, 1, crop_attrs, 0, 0 }, infer_crop, legal_slice, 0, 0, 0, NULL },
};

const OpFamily op_family_index = { ops, sizeof ops / sizeof *ops };
