/* Normalizations along an axis: R.nn.softmax and R.nn.batch_norm (inference). */
#include <string.h>

#include "../internal.h"

static const char *const softmax_attrs[] = { "axis", NULL };
static const char *const bn_attrs[] = { "axis", "epsilon", "center", "scale", "momentum", "training", NULL };

static int infer_softmax(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (read_axis(call, a->ndim, &p->axis, err))
        return -1;
    if (!dtype_is_float(a->dtype))
        return fail(err, call->loc, "R.nn.softmax takes a float tensor");
    p->out = *a;
    return 0;
}

static void legal_softmax(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    /* max along the axis, the sum of exp(x - max), then exp(x - max) / sum */
    int r = p->out.ndim, ax = p->axis;
    TensorType red = p->out;
    red.shape[ax] = 1;
    Buffer *mx = scratch(b, "T_max", &red), *sm = scratch(b, "T_sum", &red);
    int64_t ext[OP_MAX_RANK + 1];
    char kinds[OP_MAX_RANK + 1];
    for (int step = 0; step < 2; step++) {
        /* loops over the kept dimensions then the axis (reduce) */
        int n = 0, at[OP_MAX_RANK];
        for (int d = 0; d < r; d++)
            if (d != ax) {
                ext[n] = p->out.shape[d];
                kinds[n] = 'S';
                at[d] = n++;
            }
        ext[n] = p->out.shape[ax];
        kinds[n] = 'R';
        at[ax] = n++;
        Nest t;
        nest_begin(b, &t, n, ext, kinds);
        Expr *xi[OP_MAX_RANK], *ri[OP_MAX_RANK];
        for (int d = 0; d < r; d++) {
            xi[d] = t.x[at[d]];
            ri[d] = d == ax ? num(b, 0) : t.x[at[d]];
        }
        Expr *x = load(b, in[0], xi);
        if (step == 0)
            nest_end(b, &t, "softmax_max", store(b, mx, ri, intrin(b, "T.min_value", str(b, dtype_name(p->out.dtype)), NULL)),
                     store(b, mx, ri, intrin(b, "T.max", load(b, mx, ri), x)));
        else
            nest_end(b, &t, "softmax_sum", store(b, sm, ri, typed(b, 0, p->out.dtype)),
                     store(b, sm, ri, bin(b, B_ADD, load(b, sm, ri),
                                          intrin(b, "T.exp", bin(b, B_SUB, x, load(b, mx, ri)), NULL))));
    }
    Nest t;
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, r, p->out.shape, kinds);
    Expr *ri[OP_MAX_RANK];
    for (int d = 0; d < r; d++)
        ri[d] = d == ax ? num(b, 0) : t.x[d];
    Expr *e = intrin(b, "T.exp", bin(b, B_SUB, load(b, in[0], t.x), load(b, mx, ri)), NULL);
    nest_end(b, &t, "softmax", NULL, store(b, out, t.x, bin(b, B_DIV, e, load(b, sm, ri))));
}

static int infer_batchnorm(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *eps = attr(call, "epsilon"), *tr = attr(call, "training"), *ce = attr(call, "center"),
               *sc = attr(call, "scale");
    if (read_axis(call, a[0].ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    if (tr && tr->kind == E_BOOL && tr->u.b)
        return fail(err, tr->loc, "R.nn.batch_norm runs in inference mode only");
    p->pad_value = 1e-5;
    if (eps && num_of(eps, &p->pad_value))
        return fail(err, eps->loc, "epsilon is a number");
    if ((ce && ce->kind != E_BOOL) || (sc && sc->kind != E_BOOL))
        return fail(err, (ce && ce->kind != E_BOOL ? ce : sc)->loc, "center and scale are True or False");
    p->center = !ce || ce->u.b;
    p->scale = !sc || sc->u.b;
    for (int i = 1; i < 5; i++)
        if (a[i].ndim != 1 || a[i].shape[0] != a[0].shape[ax] || a[i].dtype != a[0].dtype)
            return fail(err, call->loc, "R.nn.batch_norm: argument %d is not a vector of the %lld channels", i + 1,
                        (long long)a[0].shape[ax]);
    if (!dtype_is_float(a[0].dtype))
        return fail(err, call->loc, "R.nn.batch_norm takes float tensors");
    p->out = a[0];
    p->nout = 3;
    p->more[0] = a[3];
    p->more[1] = a[4];
    return 0;
}

static void legal_batchnorm(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *c[1] = { t.x[p->axis] };
    DType dt = p->out.dtype;
    /* (x - mean) / sqrt(var + epsilon), times gamma when scale, plus beta when center */
    Expr *val = bin(b, B_DIV, bin(b, B_SUB, load(b, in[0], t.x), load(b, in[3], c)),
                    intrin(b, "T.sqrt", bin(b, B_ADD, load(b, in[4], c), typed(b, p->pad_value, dt)), NULL));
    if (p->scale)
        val = bin(b, B_MUL, val, load(b, in[1], c));
    if (p->center)
        val = bin(b, B_ADD, val, load(b, in[2], c));
    nest_end(b, &t, "batch_norm", NULL, store(b, outs[0], t.x, val));
    for (int k = 1; k < 3; k++) {
        Nest u;
        nest_begin(b, &u, 1, p->more[k - 1].shape, kinds);
        nest_end(b, &u, k == 1 ? "batch_norm_mean" : "batch_norm_var", NULL, store(b, outs[k], u.x, load(b, in[k + 2], u.x)));
    }
}

static const Op ops[] = {
    { { "R.nn.softmax", LAYOUT_LIGHT, 1, 1, softmax_attrs, 0, 0 }, infer_softmax, legal_softmax, 0, 1, -1 },
    { { "R.nn.batch_norm", LAYOUT_LIGHT, 5, 5, bn_attrs, 0, 1 }, infer_batchnorm, legal_batchnorm, 0, 1, 1 },
};

const OpFamily op_family_norm = { ops, sizeof ops / sizeof *ops };
