/* R.matmul with NumPy's rules: a 1-d left operand is a row (1, K) and a 1-d
 * right operand a column (K, 1), the added dimension dropped from the
 * result; the batch dimensions (all but the last two) align from the right
 * and broadcast (equal, or one of them 1); accumulated in out_dtype. */
#include <string.h>

#include "internal.h"

static const char *const matmul_attrs[] = { "out_dtype", NULL };

/* The batch dimensions of t: all but its last two (none for rank 1 or 2). */
static int batch_rank(const TensorType *t)
{
    return t->ndim > 2 ? t->ndim - 2 : 0;
}

static int infer_matmul(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    char b1[96], b2[96];
    if (x->dtype != y->dtype)
        return fail(err, call->loc, "R.matmul of %s and %s: the operands' dtypes differ", dtype_name(x->dtype),
                    dtype_name(y->dtype));
    if (x->ndim < 1 || y->ndim < 1)
        return fail(err, call->loc, "R.matmul of %s and %s: an operand of rank 0", type_text(x, b1, sizeof b1),
                    type_text(y, b2, sizeof b2));
    int64_t k1 = x->shape[x->ndim - 1], k2 = y->shape[y->ndim == 1 ? 0 : y->ndim - 2];
    if (k1 != k2)
        return fail(err, call->loc, "R.matmul of %s and %s: the inner dimensions differ (%lld and %lld)",
                    type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2), (long long)k1, (long long)k2);
    int bx = batch_rank(x), by = batch_rank(y), nb = bx > by ? bx : by;
    int r = nb + (x->ndim > 1) + (y->ndim > 1);   /* at most the larger operand's rank */
    p->out = *x;
    p->out.ndim = r;
    /* batch dimension d of the result reads dimension d - (nb - bx) of x, when there is one */
    for (int d = 0; d < nb; d++) {
        int dx = d - (nb - bx), dy = d - (nb - by);
        int64_t ex = dx >= 0 ? x->shape[dx] : 1, ey = dy >= 0 ? y->shape[dy] : 1;
        if (ex != ey && ex != 1 && ey != 1)
            return fail(err, call->loc, "R.matmul batch dimensions do not broadcast: %s and %s (%lld and %lld)",
                        type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2), (long long)ex, (long long)ey);
        p->out.shape[d] = ex == 1 ? ey : ex;
    }
    int d = nb;
    if (x->ndim > 1)
        p->out.shape[d++] = x->shape[x->ndim - 2];
    if (y->ndim > 1)
        p->out.shape[d++] = y->shape[y->ndim - 1];
    return out_dtype(call, x->dtype, &p->out.dtype, err);
}

/* The indices of an operand t (x: the left one) from the result's loops:
 * its batch dimensions aligned from the right (a dimension of extent 1 read
 * at 0 where the result's is larger), then its row or column and k. */
static void operand_index(B *b, const Buffer *t, int left, const Plan *p, int nb, Expr *const *x, Expr *k,
                          Expr **idx)
{
    int bt = t->ndim > 2 ? t->ndim - 2 : 0;
    for (int d = 0; d < bt; d++) {
        int od = d + nb - bt;
        int64_t e;
        expr_const_int(t->shape[d], &e);
        idx[d] = e == 1 && p->out.shape[od] != 1 ? num(b, 0) : x[od];
    }
    int at = bt;
    if (left) {
        if (t->ndim > 1)
            idx[at++] = x[nb];   /* its row */
        idx[at] = k;
    } else {
        idx[at++] = k;
        if (t->ndim > 1)
            idx[at] = x[p->out.ndim - 1];   /* its column */
    }
}

static void legal_matmul(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    int r = p->out.ndim;
    int bx = in[0]->ndim > 2 ? in[0]->ndim - 2 : 0, by = in[1]->ndim > 2 ? in[1]->ndim - 2 : 0;
    int nb = bx > by ? bx : by;
    int64_t ext[OP_MAX_RANK + 1];
    char kinds[OP_MAX_RANK + 1];
    memcpy(ext, p->out.shape, (size_t)r * sizeof *ext);
    memset(kinds, 'S', (size_t)r);
    expr_const_int(in[0]->shape[in[0]->ndim - 1], &ext[r]);
    kinds[r] = 'R';
    Nest t;
    nest_begin(b, &t, r + 1, ext, kinds);
    Expr *ai[OP_MAX_RANK], *bi[OP_MAX_RANK];
    operand_index(b, in[0], 1, p, nb, t.x, t.x[r], ai);
    operand_index(b, in[1], 0, p, nb, t.x, t.x[r], bi);
    Expr *val = bin(b, B_ADD, load(b, out, t.x), bin(b, B_MUL, to_dtype(b, load(b, in[0], ai), in[0]->dtype, p->out.dtype),
                                                     to_dtype(b, load(b, in[1], bi), in[1]->dtype, p->out.dtype)));
    nest_end(b, &t, "matmul", store(b, out, t.x, typed(b, 0, p->out.dtype)), store(b, out, t.x, val));
}

static const Op ops[] = {
    { { "R.matmul", LAYOUT_HEAVY, 2, 2, matmul_attrs, 0, 0, NULL, NULL }, infer_matmul, legal_matmul, 0, 0, 0, matmul_attrs },
};

const OpFamily op_family_linalg = { ops, sizeof ops / sizeof *ops };
