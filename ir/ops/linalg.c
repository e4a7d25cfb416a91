/* R.matmul: batched, operands of one rank, accumulated in out_dtype. */
#include <string.h>

#include "internal.h"

static const char *const matmul_attrs[] = { "out_dtype", NULL };

static int infer_matmul(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    char b1[96], b2[96];
    if (x->dtype != y->dtype || x->ndim < 2 || x->ndim != y->ndim || x->shape[x->ndim - 1] != y->shape[y->ndim - 2])
        return fail(err, call->loc, "R.matmul of %s and %s: ranks at least 2 and equal, inner dimensions equal",
                    type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2));
    for (int d = 0; d + 2 < x->ndim; d++)
        if (x->shape[d] != y->shape[d])
            return fail(err, call->loc, "R.matmul batch dimensions differ: %s and %s", type_text(x, b1, sizeof b1),
                        type_text(y, b2, sizeof b2));
    p->out = *x;
    p->out.shape[x->ndim - 1] = y->shape[y->ndim - 1];
    return out_dtype(call, x->dtype, &p->out.dtype, err);
}

static void legal_matmul(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    int r = p->out.ndim;
    int64_t ext[OP_MAX_RANK + 1];
    char kinds[OP_MAX_RANK + 1];
    memcpy(ext, p->out.shape, (size_t)r * sizeof *ext);
    memset(kinds, 'S', (size_t)r);
    expr_const_int(in[0]->shape[r - 1], &ext[r]);
    kinds[r] = 'R';
    Nest t;
    nest_begin(b, &t, r + 1, ext, kinds);
    Expr *ai[OP_MAX_RANK], *bi[OP_MAX_RANK];
    for (int d = 0; d + 2 < r; d++)
        ai[d] = bi[d] = t.x[d];
    ai[r - 2] = t.x[r - 2];
    ai[r - 1] = t.x[r];
    bi[r - 2] = t.x[r];
    bi[r - 1] = t.x[r - 1];
    Expr *val = bin(b, B_ADD, load(b, out, t.x), bin(b, B_MUL, to_dtype(b, load(b, in[0], ai), in[0]->dtype, p->out.dtype),
                                                     to_dtype(b, load(b, in[1], bi), in[1]->dtype, p->out.dtype)));
    nest_end(b, &t, "matmul", store(b, out, t.x, typed(b, 0, p->out.dtype)), store(b, out, t.x, val));
}

static const Op ops[] = {
    { { "R.matmul", LAYOUT_HEAVY, 2, 2, matmul_attrs, 0, 0 }, infer_matmul, legal_matmul, 0, 0, 0, matmul_attrs },
};

const OpFamily op_family_linalg = { ops, sizeof ops / sizeof *ops };
