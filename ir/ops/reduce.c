/* Reductions over some axes (R.sum, R.mean, R.max, R.min): one block with
 * T.init, and for the mean a second one dividing by the count. */
#include <string.h>

#include "internal.h"

static const char *const reduce_attrs[] = { "axis", "keepdims", NULL };

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
    p->keepdims = keep && keep->kind == E_BOOL && keep->u.b;
    p->out.dtype = a->dtype;
    p->out.ndim = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!p->axes[d])
            p->out.shape[p->out.ndim++] = a->shape[d];
        else if (p->keepdims)
            p->out.shape[p->out.ndim++] = 1;
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

static const Op ops[] = {
    { { "R.sum", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_SUM, 0, 0, reduce_attrs },
    { { "R.mean", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MEAN, 0, 0, reduce_attrs },
    { { "R.max", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MAX, 0, 0, reduce_attrs },
    { { "R.min", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0, NULL, NULL }, infer_reduce, legal_reduce, R_MIN, 0, 0, reduce_attrs },
};

const OpFamily op_family_reduce = { ops, sizeof ops / sizeof *ops };
