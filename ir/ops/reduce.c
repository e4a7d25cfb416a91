/* Reductions over some axes (R.sum, R.mean, R.max, R.min, R.prod): one block with
 * T.init, and for the mean a second one dividing by the count; R.argmax and
 * R.argmin along one axis or over all: the extreme value, then the first
 * index holding it. */
#include <string.h>

#include "internal.h"

static const char *const reduce_attrs[] = { "axis", "keepdims", NULL };

/* The result's shape: a's dimensions outside p->axes, and with keepdims an
 * extent 1 for each of p->axes. */
static void reduced_shape(const TensorType *a, Plan *p)
{
    p->out.ndim = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!p->axes[d])
            p->out.shape[p->out.ndim++] = a->shape[d];
        else if (p->keepdims)
            p->out.shape[p->out.ndim++] = 1;
}

static int infer_reduce(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK];
    const Expr *axis = attr(call, "axis"), *keep = attr(call, "keepdims");
    int n = axis && axis->kind == E_NONE ? 0 : ints_of(axis, ax, OP_MAX_RANK);
    if (n < 0)
        return fail(err, axis->loc, "axis is an integer or a list of integers");
    memset(p->axes, 0, sizeof p->axes);
    p->nlist = 0;
    for (int i = 0; i < n; i++) {
        int64_t v = ax[i] < 0 ? ax[i] + a->ndim : ax[i];
        if (v < 0 || v >= a->ndim)
            return fail(err, axis->loc, "axis %lld is out of range for a tensor of rank %d", (long long)ax[i], a->ndim);
        if (!p->axes[v])
            p->list[p->nlist++] = (int)v;
        p->axes[v] = 1;
    }
    if (n == 0)
        for (int d = 0; d < a->ndim; d++) {
            p->axes[d] = 1;
            p->list[p->nlist++] = d;
        }
    if (keep && keep->kind != E_BOOL)
        return fail(err, keep->loc, "%s: keepdims is True or False", o->info.name);
    p->keepdims = keep && keep->u.b;
    p->out.dtype = a->dtype;
    reduced_shape(a, p);
    return 0;
}

static void legal_reduce(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    /* loops: the kept dimensions (spatial), then the reduced ones in the
     * order the axis list names them. That order is the order of the sum:
     * flow renumbers the list when it moves a reduction to another layout
     * and keeps its order, so the sum adds the same terms in the same order
     * and the result stays bit-exact. */
    Nest t;
    int64_t shape[OP_MAX_RANK] = { 0 };
    int nd = in[0]->ndim, at[OP_MAX_RANK];
    for (int d = 0; d < nd; d++)
        expr_const_int(in[0]->shape[d], &shape[d]);
    nest_reduce(b, &t, shape, nd, p->axes, p->list, p->nlist, at);
    Expr *iidx[OP_MAX_RANK], *oidx[OP_MAX_RANK];
    int k = 0;
    for (int d = 0; d < nd; d++) {
        iidx[d] = t.x[at[d]];
        if (!p->axes[d])
            oidx[k++] = t.x[at[d]];
        else if (p->keepdims)
            oidx[k++] = num(b, 0);
    }
    Expr *acc = load(b, out, oidx), *x = load(b, in[0], iidx), *val, *init;
    DType dt = p->out.dtype;
    if (o->code == R_MAX || o->code == R_MIN) {
        init = intrin(b, o->code == R_MAX ? "T.min_value" : "T.max_value", str(b, dtype_name(dt)), NULL);
        val = intrin(b, o->code == R_MAX ? "T.max" : "T.min", acc, x);
    } else if (o->code == R_PROD) {
        init = typed(b, 1, dt);
        val = bin(b, B_MUL, acc, x);
    } else {
        init = typed(b, 0, dt);
        val = bin(b, B_ADD, acc, x);
    }
    const char *name = strrchr(o->info.name, '.') + 1;
    nest_end(b, &t, name, store(b, out, oidx, init), store(b, out, oidx, val));
    if (o->code == R_MEAN) {
        int64_t count = 1;
        for (int d = 0; d < nd; d++)
            if (p->axes[d]) {
                int64_t e;
                expr_const_int(in[0]->shape[d], &e);
                count *= e;
            }
        Nest u;
        char sk[OP_MAX_RANK + 1];
        memset(sk, 'S', sizeof sk);
        nest_begin(b, &u, p->out.ndim, p->out.shape, sk);
        nest_end(b, &u, "mean_divide", NULL, store(b, out, u.x, bin(b, B_DIV, load(b, out, u.x), typed(b, (double)count, dt))));
    }
}

/* argmax(x, axis=None, keepdims=False): axis one integer, or None (or
 * absent) for the index into x flattened; an int64 result */
static int infer_arg(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *axis = attr(call, "axis"), *keep = attr(call, "keepdims");
    int64_t v;
    memset(p->axes, 0, sizeof p->axes);
    if (axis && axis->kind != E_NONE) {
        if (int_of(axis, &v))
            return fail(err, axis->loc, "%s: axis is an integer or None", o->info.name);
        if (v < -a->ndim || v >= a->ndim)
            return fail(err, axis->loc, "%s: axis %lld is out of range for a tensor of rank %d", o->info.name,
                        (long long)v, a->ndim);
        v = v < 0 ? v + a->ndim : v;
        p->axes[v] = 1;
        p->list[0] = (int)v;
        p->nlist = 1;
    } else {
        for (int d = 0; d < a->ndim; d++) {
            p->axes[d] = 1;
            p->list[d] = d;
        }
        p->nlist = a->ndim;
    }
    if (keep && keep->kind != E_BOOL)
        return fail(err, keep->loc, "%s: keepdims is True or False", o->info.name);
    p->keepdims = keep && keep->u.b;
    for (int d = 0; d < a->ndim; d++)
        if (p->axes[d] && a->shape[d] == 0)
            return fail(err, call->loc, "%s of an empty dimension", o->info.name);
    p->out.dtype = DT_INT64;
    reduced_shape(a, p);
    return 0;
}

static void legal_arg(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    int nd = in[0]->ndim, at[OP_MAX_RANK], mx = o->code == R_ARGMAX;
    int64_t shape[OP_MAX_RANK] = { 0 }, count = 1;
    for (int d = 0; d < nd; d++) {
        expr_const_int(in[0]->shape[d], &shape[d]);
        if (p->axes[d])
            count *= shape[d];
    }
    TensorType vt = p->out;
    vt.dtype = in[0]->dtype;
    Buffer *best = scratch(b, mx ? "T_max" : "T_min", &vt);
    DType dt = in[0]->dtype;
    /* two passes in the same loop order: the extreme value, then the
     * smallest index (row-major over the reduced dimensions) that holds it,
     * as NumPy's first occurrence. A NaN is NumPy's extreme either way: the
     * first pass keeps the first NaN it meets, and the second finds the
     * first NaN (which compares equal to nothing) */
    int fl = dtype_is_float(dt);
    for (int step = 0; step < 2; step++) {
        Nest t;
        nest_reduce(b, &t, shape, nd, p->axes, p->list, p->nlist, at);
        Expr *iidx[OP_MAX_RANK], *oidx[OP_MAX_RANK], *first[OP_MAX_RANK], *k = NULL;
        int n = 0;
        for (int d = 0; d < nd; d++) {
            iidx[d] = t.x[at[d]];
            first[d] = p->axes[d] ? num(b, 0) : t.x[at[d]];
            if (!p->axes[d])
                oidx[n++] = t.x[at[d]];
            else {
                if (p->keepdims)
                    oidx[n++] = num(b, 0);
                k = k ? bin(b, B_ADD, bin(b, B_MUL, k, num(b, shape[d])), t.x[at[d]]) : t.x[at[d]];
            }
        }
        if (!k)
            k = num(b, 0);
        if (step == 0) {
            /* the first element, not the dtype's lowest value: -inf is
             * below every finite float, and a row of -inf has its argmax */
            Expr *init = load(b, in[0], first);
            Expr *x = load(b, in[0], iidx), *cur = load(b, best, oidx);
            Expr *v = intrin(b, mx ? "T.max" : "T.min", cur, x);
            if (fl)
                v = select3(b, bin(b, B_NE, load(b, best, oidx), load(b, best, oidx)), load(b, best, oidx),
                            select3(b, bin(b, B_NE, load(b, in[0], iidx), load(b, in[0], iidx)), load(b, in[0], iidx), v));
            nest_end(b, &t, mx ? "argmax_value" : "argmin_value", store(b, best, oidx, init), store(b, best, oidx, v));
        } else {
            Expr *hit = bin(b, B_EQ, load(b, in[0], iidx), load(b, best, oidx));
            if (fl)
                hit = bin(b, B_OR, hit, bin(b, B_AND, bin(b, B_NE, load(b, best, oidx), load(b, best, oidx)),
                                            bin(b, B_NE, load(b, in[0], iidx), load(b, in[0], iidx))));
            Expr *v = select3(b, hit, intrin(b, "T.min", load(b, outs[0], oidx), to_dtype(b, k, DT_INT64, DT_INT64)),
                              load(b, outs[0], oidx));
            nest_end(b, &t, mx ? "argmax" : "argmin", store(b, outs[0], oidx, typed(b, (double)count, DT_INT64)),
                     store(b, outs[0], oidx, v));
        }
    }
}

static const Op ops[] = {
    { { "R.sum", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_SUM, 0, 0, reduce_attrs },
    { { "R.mean", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MEAN, 0, 0, reduce_attrs },
    { { "R.max", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MAX, 0, 0, reduce_attrs },
    { { "R.min", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MIN, 0, 0, reduce_attrs },
    { { "R.prod", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_PROD, 0, 0,
      reduce_attrs },
    { { "R.argmax", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_arg, legal_arg, R_ARGMAX, 0, 0,
      reduce_attrs },
    { { "R.argmin", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_arg, legal_arg, R_ARGMIN, 0, 0,
      reduce_attrs },
};

const OpFamily op_family_reduce = { ops, sizeof ops / sizeof *ops };
