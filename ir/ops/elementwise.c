/* Elementwise operators: binary ones with broadcasting (R.add ... R.minimum)
 * and unary ones (R.nn.relu, R.exp ...); all layout agnostic. */
#include <string.h>

#include "internal.h"

static const char *const no_attrs[] = { NULL };

static int infer_binary(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    char b1[96], b2[96];
    if (x->dtype != y->dtype)
        return fail(err, call->loc, "%s of %s and %s tensors", call->u.call.op->str, dtype_name(x->dtype),
                    dtype_name(y->dtype));
    int r = x->ndim > y->ndim ? x->ndim : y->ndim;
    p->out.ndim = r;
    p->out.dtype = x->dtype;
    for (int d = 0; d < r; d++) {
        int dx = d - (r - x->ndim), dy = d - (r - y->ndim);
        int64_t ex = dx >= 0 ? x->shape[dx] : 1, ey = dy >= 0 ? y->shape[dy] : 1;
        if (ex != ey && ex != 1 && ey != 1)
            return fail(err, call->loc, "%s cannot broadcast shapes %s and %s", call->u.call.op->str,
                        type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2));
        p->out.shape[d] = ex == 1 ? ey : ex;
    }
    return 0;
}

static int infer_unary(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    p->out = a[0];
    if (!dtype_is_float(a[0].dtype) && o->code != U_RELU && o->code != U_NEGATIVE)
        return fail(err, call->loc, "%s takes a float tensor", o->info.name);
    return 0;
}

static void legal_binary(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *v[2];
    for (int k = 0; k < 2; k++) {
        Expr *idx[OP_MAX_RANK];
        int off = p->out.ndim - in[k]->ndim;
        for (int d = 0; d < in[k]->ndim; d++) {
            int64_t e;
            expr_const_int(in[k]->shape[d], &e);
            idx[d] = e == 1 && p->out.shape[d + off] != 1 ? num(b, 0) : t.x[d + off];
        }
        v[k] = load(b, in[k], idx);
    }
    Expr *val = o->code == B_GT ? intrin(b, "T.max", v[0], v[1]) : o->code == B_LT ? intrin(b, "T.min", v[0], v[1])
                                                                                  : bin(b, (BinOp)o->code, v[0], v[1]);
    nest_end(b, &t, o->info.name + 2, NULL, store(b, out, t.x, val));
}

static void legal_unary(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *x = load(b, in[0], t.x), *val;
    switch (o->code) {
    case U_RELU: val = intrin(b, "T.max", x, typed(b, 0, p->out.dtype)); break;
    case U_EXP: val = intrin(b, "T.exp", x, NULL); break;
    case U_SIGMOID: val = intrin(b, "T.sigmoid", x, NULL); break;
    case U_TANH: val = intrin(b, "T.tanh", x, NULL); break;
    case U_SQRT: val = intrin(b, "T.sqrt", x, NULL); break;
    default:
        val = expr_new(b->a, E_UNARY, b->loc);
        val->u.un.op = U_NEG;
        val->u.un.a = x;
        break;
    }
    const char *name = strrchr(o->info.name, '.') + 1;
    nest_end(b, &t, name, NULL, store(b, out, t.x, val));
}

static const Op ops[] = {
    { { "R.add", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_ADD, 0, 0 },
    { { "R.subtract", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_SUB, 0, 0 },
    { { "R.multiply", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_MUL, 0, 0 },
    { { "R.divide", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_DIV, 0, 0 },
    { { "R.maximum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_GT, 0, 0 },
    { { "R.minimum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, infer_binary, legal_binary, B_LT, 0, 0 },
    { { "R.nn.relu", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_RELU, 0, 0 },
    { { "R.exp", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_EXP, 0, 0 },
    { { "R.sigmoid", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_SIGMOID, 0, 0 },
    { { "R.tanh", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_TANH, 0, 0 },
    { { "R.sqrt", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_SQRT, 0, 0 },
    { { "R.negative", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, infer_unary, legal_unary, U_NEGATIVE, 0, 0 },
};

const OpFamily op_family_elementwise = { ops, sizeof ops / sizeof *ops };
