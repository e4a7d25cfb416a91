/* Taking elements: a box of them (R.strided_slice, strides of either sign
 * and empty results too, as NumPy's slices; R.crop), or those an index
 * tensor names (R.take, R.gather_elements); a box whose bounds are tensors
 * (R.dynamic_strided_slice); and writing elements where an index tensor
 * says (R.scatter_elements, R.scatter_nd). */
#include <string.h>

#include "../elem.h"
#include "internal.h"

static const char *const slice_attrs[] = { "axes", "begin", "end", "strides", "assume_inbound", NULL };
static const char *const take_attrs[] = { "axis", "mode", NULL };
static const char *const crop_attrs[] = { "start_indices", "slice_sizes", "cropped_value", NULL };
static const char *const gather_attrs[] = { "axis", NULL };
static const char *const scatter_attrs[] = { "axis", "reduction", NULL };
static const char *const scatter_nd_attrs[] = { "reduction", NULL };
static const char *const no_attrs[] = { NULL };

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
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
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
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
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
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *i = to_dtype(b, load(b, in[1], t.x), in[1]->dtype, DT_INT64), *xi[OP_MAX_RANK];
    Expr *neg = bin(b, B_LT, i, typed(b, 0, DT_INT64));
    for (int d = 0; d < p->out.ndim; d++)
        xi[d] = t.x[d];
    xi[p->axis] = select3(b, neg, bin(b, B_ADD, i, typed(b, (double)p->before[0], DT_INT64)), i);
    nest_end(b, &t, "gather_elements", NULL, store(b, outs[0], t.x, load(b, in[0], xi)));
}

/* ---- scattering ---- */

/* How a scatter combines the element already there with an update. */
enum { SC_UPDATE, SC_ADD, SC_MUL, SC_MEAN, SC_MAX, SC_MIN };

/* The reduction attribute: scatter_elements takes the six, scatter_nd all
 * but "mean" (as Relax). */
static int scatter_reduction(const Expr *call, int with_mean, Plan *p, OpError *err)
{
    static const char *const names[] = { "update", "add", "mul", "mean", "max", "min" };
    const Expr *r = attr(call, "reduction");
    const char *v = str_of(r, "update");
    for (int k = 0; k < 6; k++)
        if (strcmp(v, names[k]) == 0 && (with_mean || k != SC_MEAN) && (!r || r->kind == E_STR)) {
            p->mode[0] = k;
            return 0;
        }
    return fail(err, r->loc, "%s: reduction is \"update\", \"add\", \"mul\", %s\"max\" or \"min\"",
                call->u.call.op->str, with_mean ? "\"mean\", " : "");
}

static int scatter_index_dtype(const Expr *call, const TensorType *i, OpError *err)
{
    if (i->dtype != DT_INT32 && i->dtype != DT_INT64)
        return fail(err, call->loc, "%s: the indices are int32 or int64, not %s", call->u.call.op->str,
                    dtype_name(i->dtype));
    return 0;
}

/* scatter_elements(data, indices, updates, axis, reduction): a copy of
 * data where, for each position i of indices (of data's rank, off the axis
 * no larger than data), the element at i with i[axis] = indices[i] (from the
 * end when negative) combines with updates[i]. Updates meet the output in
 * row-major order of the indices, so with "update" the last one to land on
 * an element stays; "mean" is the mean of the element and every update
 * landing on it (a floor division for integers). */
static int infer_scatter(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *ax = attr(call, "axis");
    int64_t v = 0;
    char b1[96], b2[96];
    if (scatter_index_dtype(call, &a[1], err) || scatter_reduction(call, 1, p, err))
        return -1;
    if (a[0].ndim == 0)
        return fail(err, call->loc, "R.scatter_elements: the data has rank 0");
    if (a[1].ndim != a[0].ndim)
        return fail(err, call->loc, "R.scatter_elements: the indices have rank %d, the data rank %d", a[1].ndim,
                    a[0].ndim);
    if (ax && ax->kind != E_NONE && (int_of(ax, &v) || (v < 0 ? v += a[0].ndim : v) < 0 || v >= a[0].ndim))
        return fail(err, ax->loc, "axis is an integer in range for rank %d", a[0].ndim);
    if (a[2].dtype != a[0].dtype)
        return fail(err, call->loc, "R.scatter_elements: the updates are %s, the data %s", dtype_name(a[2].dtype),
                    dtype_name(a[0].dtype));
    if (a[2].ndim != a[1].ndim || memcmp(a[2].shape, a[1].shape, (size_t)a[1].ndim * sizeof *a[1].shape))
        return fail(err, call->loc, "R.scatter_elements: the updates have shape %s, the indices %s",
                    type_text(&a[2], b1, sizeof b1), type_text(&a[1], b2, sizeof b2));
    for (int d = 0; d < a[0].ndim; d++)
        if (d != v && a[1].shape[d] > a[0].shape[d])
            return fail(err, call->loc, "R.scatter_elements: dimension %d of the indices (%lld) exceeds the data's (%lld)",
                        d, (long long)a[1].shape[d], (long long)a[0].shape[d]);
    p->axis = (int)v;
    p->out = a[0];
    p->before[0] = a[0].shape[v];
    return 0;
}

/* scatter_nd(data, indices, updates, reduction): indices of shape
 * (..., M), M at most data's rank, each row the first M coordinates of an
 * element (from the end when negative); updates have shape indices.shape[:-1]
 * + data.shape[M:], each slice combining with the one its row names. */
static int infer_scatter_nd(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    char b1[96], b2[96];
    if (scatter_index_dtype(call, &a[1], err) || scatter_reduction(call, 0, p, err))
        return -1;
    int k = a[1].ndim;
    int64_t m = k ? a[1].shape[k - 1] : 0;
    if (k == 0 || m < 1 || m > a[0].ndim)
        return fail(err, call->loc, "R.scatter_nd: the indices' last dimension (%lld) is 1 to the data's rank (%d)",
                    (long long)m, a[0].ndim);
    if (a[2].dtype != a[0].dtype)
        return fail(err, call->loc, "R.scatter_nd: the updates are %s, the data %s", dtype_name(a[2].dtype),
                    dtype_name(a[0].dtype));
    TensorType want = { a[0].dtype, 0, { 0 } };
    if (k - 1 + a[0].ndim - m > OP_MAX_RANK)
        return fail(err, call->loc, "R.scatter_nd: the updates would have rank above %d", OP_MAX_RANK);
    for (int d = 0; d < k - 1; d++)
        want.shape[want.ndim++] = a[1].shape[d];
    for (int d = (int)m; d < a[0].ndim; d++)
        want.shape[want.ndim++] = a[0].shape[d];
    if (a[2].ndim != want.ndim || memcmp(a[2].shape, want.shape, (size_t)want.ndim * sizeof *want.shape))
        return fail(err, call->loc, "R.scatter_nd: the updates have shape %s, not %s", type_text(&a[2], b1, sizeof b1),
                    type_text(&want, b2, sizeof b2));
    p->axis = (int)m;
    p->out = a[0];
    return 0;
}

/* An index loaded from the indices, as int64, counted from the end when negative. */
static Expr *wrapped_index(B *b, Buffer *ind, Expr **at, int64_t extent)
{
    Expr *i = to_dtype(b, load(b, ind, at), ind->dtype, DT_INT64);
    return select3(b, bin(b, B_LT, i, typed(b, 0, DT_INT64)), bin(b, B_ADD, i, typed(b, (double)extent, DT_INT64)), i);
}

/* out = data; then for each update, out[oi] combined with it (and for
 * "mean" a count of what landed, then the division). */
static void scatter_nests(B *b, Buffer **in, Buffer *out, const Plan *p, const char *name, Expr **oi, Nest *t)
{
    DType dt = p->out.dtype;
    Buffer *cnt = NULL;
    if (p->mode[0] == SC_MEAN) {
        TensorType ct = p->out;
        ct.dtype = DT_INT64;
        cnt = scratch(b, "count", &ct);
    }
    Expr *old = load(b, out, oi), *u = load(b, in[2], t->x), *val;
    switch (p->mode[0]) {
    case SC_ADD: case SC_MEAN: val = bin(b, B_ADD, old, u); break;
    case SC_MUL: val = bin(b, B_MUL, old, u); break;
    case SC_MAX: val = intrin(b, "T.max", old, u); break;
    case SC_MIN: val = intrin(b, "T.min", old, u); break;
    default: val = u; break;
    }
    /* the copy first: it is the nest the caller began after this one */
    Nest c;
    nest_begin(b, &c, p->out.ndim, p->out.shape, NULL);
    if (cnt) {
        Stmt *seq = stmt_new(b->a, S_SEQ, b->loc);
        seq->u.seq.n = 2;
        seq->u.seq.items = arena_array(b->a, 2, sizeof(Stmt *));
        seq->u.seq.items[0] = store(b, out, c.x, load(b, in[0], c.x));
        seq->u.seq.items[1] = store(b, cnt, c.x, typed(b, 1, DT_INT64));
        nest_end(b, &c, "scatter_copy", NULL, seq);
        Stmt *s2 = stmt_new(b->a, S_SEQ, b->loc);
        s2->u.seq.n = 2;
        s2->u.seq.items = arena_array(b->a, 2, sizeof(Stmt *));
        s2->u.seq.items[0] = store(b, out, oi, val);
        s2->u.seq.items[1] = store(b, cnt, oi, bin(b, B_ADD, load(b, cnt, oi), typed(b, 1, DT_INT64)));
        nest_end(b, t, name, NULL, s2);
        Nest d;
        nest_begin(b, &d, p->out.ndim, p->out.shape, NULL);
        Expr *n = to_dtype(b, load(b, cnt, d.x), DT_INT64, dt);
        nest_end(b, &d, "scatter_mean", NULL,
                 store(b, out, d.x, bin(b, dtype_is_float(dt) ? B_DIV : B_FLOORDIV, load(b, out, d.x), n)));
    } else {
        nest_end(b, &c, "scatter_copy", NULL, store(b, out, c.x, load(b, in[0], c.x)));
        nest_end(b, t, name, NULL, store(b, out, oi, val));
    }
}

/* The scatter nests' iterators are opaque: where an iteration writes
 * depends on the indices' values, and two may write one element, in order. */
static void legal_scatter(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'O', sizeof kinds);
    TensorType it;
    it.ndim = in[1]->ndim;
    for (int d = 0; d < it.ndim; d++)
        expr_const_int(in[1]->shape[d], &it.shape[d]);
    nest_begin(b, &t, it.ndim, it.shape, kinds);
    Expr *oi[OP_MAX_RANK];
    for (int d = 0; d < it.ndim; d++)
        oi[d] = t.x[d];
    oi[p->axis] = wrapped_index(b, in[1], t.x, p->before[0]);
    scatter_nests(b, in, outs[0], p, "scatter_elements", oi, &t);
}

static void legal_scatter_nd(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'O', sizeof kinds);
    int64_t ushape[OP_MAX_RANK];
    int nu = in[2]->ndim, lead = in[1]->ndim - 1, m = p->axis;
    for (int d = 0; d < nu; d++)
        expr_const_int(in[2]->shape[d], &ushape[d]);
    nest_begin(b, &t, nu, ushape, kinds);
    Expr *oi[OP_MAX_RANK], *ii[OP_MAX_RANK];
    for (int d = 0; d < lead; d++)
        ii[d] = t.x[d];
    for (int j = 0; j < m; j++) {
        ii[lead] = num(b, j);
        oi[j] = wrapped_index(b, in[1], ii, p->out.shape[j]);
    }
    for (int d = m; d < p->out.ndim; d++)
        oi[d] = t.x[lead + d - m];
    scatter_nests(b, in, outs[0], p, "scatter_nd", oi, &t);
}

/* dynamic_strided_slice(x, begin, end, strides): R.strided_slice over the
 * first n axes with its bounds in three int64 tensors of n elements. The
 * result's shape depends on their values, and a tensor type here has
 * constant extents: lopt knows the shape (and can run the call) when the
 * three are constants written in the call; otherwise the shape is unknown
 * (verify and legalize leave the call) until the interpreter runs it, which
 * writes the bounds' values into the call as constants first. The
 * three are then operands like attributes (compared by value: calls with
 * other bounds get another PrimFunc), not parameters of the PrimFunc. */
static int infer_dyn_slice(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    static const char *const what[] = { "begin", "end", "strides" };
    int64_t v[3][OP_MAX_RANK];
    int n = -1;
    for (int k = 1; k <= 3; k++) {
        const Expr *e = call->u.call.args[k];
        TensorType t;
        if (e->kind != E_CONST || op_const_type(e, &t)) {
            fail(err, e->loc, "R.dynamic_strided_slice: the result's shape depends on the value of %s, which lopt "
                 "knows only as a constant (R.const) written in the call", what[k - 1]);
            err->unknown = 1;
            return -1;
        }
        if (t.dtype != DT_INT64 || t.ndim != 1 || (n >= 0 && t.shape[0] != n))
            return fail(err, call->loc, "R.dynamic_strided_slice: begin, end and strides are int64 tensors of one "
                        "length (%s is %s of rank %d)", what[k - 1], dtype_name(t.dtype), t.ndim);
        n = (int)t.shape[0];
        if (n < 1 || n > a[0].ndim)
            return fail(err, call->loc, "R.dynamic_strided_slice: %s has %d elements, the data rank %d", what[k - 1], n,
                        a[0].ndim);
        for (int i = 0; i < n; i++)
            v[k - 1][i] = elem_geti(e->u.cst.dtype, e->u.cst.data, i);
    }
    p->out = a[0];
    for (int d = 0; d < a->ndim; d++) {
        p->before[d] = 0;
        p->step[d] = 1;
    }
    for (int d = 0; d < n; d++) {
        int64_t e = a->shape[d], s = v[2][d], bg = v[0][d], f = v[1][d];
        if (s == 0 || s == INT64_MIN)
            return fail(err, call->u.call.args[3]->loc, "R.dynamic_strided_slice: strides are not 0");
        bg = bg < 0 ? (bg < -e ? -e - 1 : bg) + e : bg;
        f = f < 0 ? (f < -e ? -e - 1 : f) + e : f;
        /* as NumPy: forward from bg up to f, or backward from bg down to f (-1: past the first) */
        int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? e : e - 1;
        bg = bg < lo ? lo : bg > hi ? hi : bg;
        f = f < lo ? lo : f > hi ? hi : f;
        p->before[d] = bg;
        p->step[d] = s;
        p->out.shape[d] = s > 0 ? (f > bg ? (f - bg + s - 1) / s : 0) : (bg > f ? (bg - f - s - 1) / -s : 0);
    }
    return 0;
}

static const Op ops[] = {
    { { "R.strided_slice", LAYOUT_LIGHT, 1, 1, slice_attrs, 0, 0, NULL, NULL }, infer_slice, legal_slice, 0, 0, 0, slice_attrs },
    { { "R.take", LAYOUT_LIGHT, 2, 2, take_attrs, 0, 0, NULL, NULL }, infer_take, legal_take, 0, 0, 0, take_attrs },
    { { "R.gather_elements", LAYOUT_LIGHT, 2, 2, gather_attrs, 0, 0, NULL, NULL }, infer_gather, legal_gather, 0, 1, 0, gather_attrs },
    { { "R.scatter_elements", LAYOUT_LIGHT, 3, 3, scatter_attrs, 0, 0, NULL, NULL }, infer_scatter, legal_scatter, 0, 1, 0, scatter_attrs },
    { { "R.scatter_nd", LAYOUT_LIGHT, 3, 3, scatter_nd_attrs, 0, 0, NULL, NULL }, infer_scatter_nd, legal_scatter_nd, 0, 0, 0, scatter_nd_attrs },
    { { "R.dynamic_strided_slice", LAYOUT_HEAVY, 4, 1, no_attrs, 0, 0, NULL, NULL }, infer_dyn_slice, legal_slice, 0, 0, 0, NULL },
    { { "R.crop", LAYOUT_LIGHT, 1, 1, crop_attrs, 0, 0, NULL, NULL }, infer_crop, legal_slice, 0, 0, 0, NULL },
};

const OpFamily op_family_index = { ops, sizeof ops / sizeof *ops };
