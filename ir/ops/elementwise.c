/* Elementwise operators: binary ones with broadcasting (R.add ... R.minimum,
 * R.floor_divide and R.floor_mod, rounding toward minus infinity, R.power),
 * unary ones (R.nn.relu, R.exp, R.log, R.round, R.sign, R.nn.gelu ...),
 * R.astype, R.clip and R.ewise_fma; all layout agnostic. */
#include <string.h>

#include "internal.h"

static const char *const no_attrs[] = { NULL };
static const char *const astype_attrs[] = { "dtype", NULL };
static const char *const clip_attrs[] = { "min", "max", NULL };
static const char *const leakyrelu_attrs[] = { "alpha", NULL };
static const char *const softplus_attrs[] = { "beta", "threshold", NULL };

/* The shape n tensors broadcast to (NumPy's rule: aligned at the last
 * dimension, an extent 1 stretched); out's dtype is left to the caller. */
static int broadcast(const Expr *call, const TensorType *a, int n, TensorType *out, OpError *err)
{
    char b1[96], b2[96];
    int r = 0;
    for (int k = 0; k < n; k++)
        r = a[k].ndim > r ? a[k].ndim : r;
    out->ndim = r;
    for (int d = 0; d < r; d++) {
        out->shape[d] = 1;
        int from = -1;          /* the argument whose extent out took */
        for (int k = 0; k < n; k++) {
            int dk = d - (r - a[k].ndim);
            int64_t e = dk >= 0 ? a[k].shape[dk] : 1;
            if (e == 1)
                continue;
            if (from >= 0 && e != out->shape[d])
                return fail(err, call->loc, "%s cannot broadcast shapes %s and %s", call->u.call.op->str,
                            type_text(&a[from], b1, sizeof b1), type_text(&a[k], b2, sizeof b2));
            out->shape[d] = e;
            from = k;
        }
    }
    return 0;
}

static int infer_binary(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    if (x->dtype != y->dtype)
        return fail(err, call->loc, "%s of %s and %s tensors", call->u.call.op->str, dtype_name(x->dtype),
                    dtype_name(y->dtype));
    if (o->code == BIN_POWER && !dtype_is_float(x->dtype))
        return fail(err, call->loc, "R.power takes float tensors");
    if ((o->code == BIN_BOOL + B_AND || o->code == BIN_BOOL + B_OR) && x->dtype != DT_BOOL)
        return fail(err, call->loc, "%s takes bool tensors, not %s", o->info.name, dtype_name(x->dtype));
    if (broadcast(call, a, 2, &p->out, err))
        return -1;
    /* comparisons and logical and / or give bool */
    p->out.dtype = o->code >= BIN_BOOL ? DT_BOOL : x->dtype;
    return 0;
}

static int infer_unary(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    p->out = a[0];
    /* the table says which take only floats (transcendental ones) */
    if (!dtype_is_float(a[0].dtype) && o->info.dtypes && strcmp(o->info.dtypes, "float") == 0)
        return fail(err, call->loc, "%s takes a float tensor", o->info.name);
    if (o->code == U_LOGICAL_NOT && a[0].dtype != DT_BOOL)
        return fail(err, call->loc, "%s takes a bool tensor, not %s", o->info.name, dtype_name(a[0].dtype));
    return 0;
}

/* x read at the output's index t under NumPy broadcasting: x's dimensions
 * align with the output's last ones, and an extent 1 against a larger one
 * reads index 0 */
static Expr *broadcast_load(B *b, Buffer *x, const Nest *t, const Plan *p)
{
    Expr *idx[OP_MAX_RANK];
    int off = p->out.ndim - x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        int64_t e;
        expr_const_int(x->shape[d], &e);
        idx[d] = e == 1 && p->out.shape[d + off] != 1 ? num(b, 0) : t->x[d + off];
    }
    return load(b, x, idx);
}

static void legal_binary(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *v[2] = { broadcast_load(b, in[0], &t, p), broadcast_load(b, in[1], &t, p) };
    Expr *val = o->code >= BIN_BOOL    ? bin(b, (BinOp)(o->code - BIN_BOOL), v[0], v[1])
                : o->code == B_GT      ? intrin(b, "T.max", v[0], v[1])
                : o->code == B_LT      ? intrin(b, "T.min", v[0], v[1])
                : o->code == BIN_POWER ? intrin(b, "T.pow", v[0], v[1])
                                       : bin(b, (BinOp)o->code, v[0], v[1]);
    nest_end(b, &t, o->info.name + 2, NULL, store(b, out, t.x, val));
}

static void legal_unary(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *x = load(b, in[0], t.x), *val;
    DType dt = p->out.dtype;
    switch (o->code) {
    case U_RELU: val = intrin(b, "T.max", x, typed(b, 0, p->out.dtype)); break;
    case U_EXP: val = intrin(b, "T.exp", x, NULL); break;
    case U_SIGMOID: val = intrin(b, "T.sigmoid", x, NULL); break;
    case U_TANH: val = intrin(b, "T.tanh", x, NULL); break;
    case U_SQRT: val = intrin(b, "T.sqrt", x, NULL); break;
    case U_GELU:
        /* x * (1 + erf(x / sqrt 2)) / 2 */
        val = bin(b, B_MUL, bin(b, B_MUL, x, typed(b, 0.5, dt)),
                  bin(b, B_ADD, typed(b, 1, dt), intrin(b, "T.erf", bin(b, B_MUL, load(b, in[0], t.x),
                                                                         typed(b, 0.70710678118654752440, dt)), NULL)));
        break;
    case U_GELU_TANH: {
        /* x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2 */
        Expr *x2 = load(b, in[0], t.x), *x3 = bin(b, B_MUL, bin(b, B_MUL, x2, load(b, in[0], t.x)), load(b, in[0], t.x));
        Expr *inner = bin(b, B_MUL, typed(b, 0.79788456080286535588, dt),
                          bin(b, B_ADD, load(b, in[0], t.x), bin(b, B_MUL, typed(b, 0.044715, dt), x3)));
        val = bin(b, B_MUL, bin(b, B_MUL, x, typed(b, 0.5, dt)),
                  bin(b, B_ADD, typed(b, 1, dt), intrin(b, "T.tanh", inner, NULL)));
        break;
    }
    case U_SILU: val = bin(b, B_MUL, x, intrin(b, "T.sigmoid", load(b, in[0], t.x), NULL)); break;
    case U_LOG: val = intrin(b, "T.log", x, NULL); break;
    case U_ABS: val = intrin(b, "T.abs", x, NULL); break;
    case U_RSQRT: val = intrin(b, "T.rsqrt", x, NULL); break;
    case U_SIN: val = intrin(b, "T.sin", x, NULL); break;
    case U_COS: val = intrin(b, "T.cos", x, NULL); break;
    case U_ERF: val = intrin(b, "T.erf", x, NULL); break;
    case U_FLOOR:
    case U_CEIL:
    case U_ROUND:
        /* integers are whole already; T.round rounds halves to even */
        val = !dtype_is_float(dt) ? x
              : intrin(b, o->code == U_FLOOR ? "T.floor" : o->code == U_CEIL ? "T.ceil" : "T.round", x, NULL);
        break;
    case U_SQUARE: val = bin(b, B_MUL, x, load(b, in[0], t.x)); break;
    case U_SIGN:
        /* -1 below zero, 1 above, else x itself, as NumPy's sign: an
         * integer's 0, a float's NaN; a float's zero (-0 too) gives 0 */
        val = load(b, in[0], t.x);
        if (dtype_is_float(dt))
            val = select3(b, bin(b, B_EQ, load(b, in[0], t.x), typed(b, 0, dt)), typed(b, 0, dt), val);
        val = select3(b, bin(b, B_LT, x, typed(b, 0, dt)), typed(b, -1, dt),
                      select3(b, bin(b, B_GT, load(b, in[0], t.x), typed(b, 0, dt)), typed(b, 1, dt), val));
        break;
    default:
        val = expr_new(b->a, E_UNARY, b->loc);
        val->u.un.op = o->code == U_LOGICAL_NOT ? U_NOT : U_NEG;
        val->u.un.a = x;
        break;
    }
    const char *name = strrchr(o->info.name, '.') + 1;
    nest_end(b, &t, name, NULL, store(b, out, t.x, val));
}

/* where(cond, x, y): x where cond holds, else y; the three broadcast
 * together, cond bool, x and y of one dtype (the result's) */
static int infer_where(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (a[0].dtype != DT_BOOL)
        return fail(err, call->loc, "R.where: the condition is a bool tensor, not %s", dtype_name(a[0].dtype));
    if (a[1].dtype != a[2].dtype)
        return fail(err, call->loc, "R.where of %s and %s tensors", dtype_name(a[1].dtype), dtype_name(a[2].dtype));
    if (broadcast(call, a, 3, &p->out, err))
        return -1;
    p->out.dtype = a[1].dtype;
    return 0;
}

static void legal_where(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *v[3];
    for (int k = 0; k < 3; k++)
        v[k] = broadcast_load(b, in[k], &t, p);
    nest_end(b, &t, "where", NULL, store(b, outs[0], t.x, select3(b, v[0], v[1], v[2])));
}

/* astype(x, dtype): each element converted (floats to integers toward zero) */
static int infer_astype(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    p->out = a[0];
    if (!attr(call, "dtype"))
        return fail(err, call->loc, "R.astype needs a dtype");
    return dtype_attr(call, "dtype", a[0].dtype, &p->out.dtype, err);
}

static void legal_astype(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *x = load(b, in[0], t.x);
    nest_end(b, &t, "astype", NULL, store(b, outs[0], t.x, to_dtype(b, x, in[0]->dtype, p->out.dtype)));
}

/* clip(x, min, max): the bounds are numbers (R.prim_value(...) too), held
 * in x's dtype */
static int infer_clip(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const char *names[2] = { "min", "max" };
    for (int k = 0; k < 2; k++) {
        const Expr *e = attr(call, names[k]);
        if (!e || scalar_of(e, &p->scalar[k]))
            return fail(err, e ? e->loc : call->loc, "R.clip: %s is a number", names[k]);
    }
    if (p->scalar[0] > p->scalar[1])
        return fail(err, call->loc, "R.clip: min %g is above max %g", p->scalar[0], p->scalar[1]);
    p->out = a[0];
    return 0;
}

static void legal_clip(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    DType dt = p->out.dtype;
    Expr *v = intrin(b, "T.min", intrin(b, "T.max", load(b, in[0], t.x), typed(b, p->scalar[0], dt)),
                     typed(b, p->scalar[1], dt));
    nest_end(b, &t, "clip", NULL, store(b, outs[0], t.x, v));
}

/* leakyrelu(x, alpha=0.01): x above 0, else alpha * x; softplus(x, beta=1,
 * threshold=20): log(1 + exp(beta x)) / beta, or x where beta x is above
 * threshold (code 1). The numbers are held in x's dtype, as TVM's. */
static int infer_act(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int soft = o->code == 1;
    const char *const *names = o->info.attrs;
    double dflt[2] = { soft ? 1.0 : 0.01, 20.0 };
    for (int k = 0; names[k]; k++) {
        const Expr *e = attr(call, names[k]);
        p->scalar[k] = dflt[k];
        if (e && scalar_of(e, &p->scalar[k]))
            return fail(err, e->loc, "%s: %s is a number", o->info.name, names[k]);
    }
    if (soft && p->scalar[0] == 0)
        return fail(err, attr(call, "beta")->loc, "R.nn.softplus: beta is 0");
    if (!dtype_is_float(a[0].dtype))
        return fail(err, call->loc, "%s takes a float tensor", o->info.name);
    p->out = a[0];
    return 0;
}

static void legal_act(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    DType dt = p->out.dtype;
    Expr *v;
    if (o->code == 1) {
        Expr *beta = typed(b, p->scalar[0], dt);
        Expr *bx = bin(b, B_MUL, load(b, in[0], t.x), beta);
        Expr *sp = bin(b, B_DIV,
                       intrin(b, "T.log", bin(b, B_ADD, typed(b, 1, dt),
                                              intrin(b, "T.exp", bin(b, B_MUL, load(b, in[0], t.x), typed(b, p->scalar[0], dt)),
                                                     NULL)),
                              NULL),
                       typed(b, p->scalar[0], dt));
        v = select3(b, bin(b, B_GT, bx, typed(b, p->scalar[1], dt)), load(b, in[0], t.x), sp);
    } else {
        v = select3(b, bin(b, B_GT, load(b, in[0], t.x), typed(b, 0, dt)), load(b, in[0], t.x),
                    bin(b, B_MUL, load(b, in[0], t.x), typed(b, p->scalar[0], dt)));
    }
    nest_end(b, &t, strrchr(o->info.name, '.') + 1, NULL, store(b, outs[0], t.x, v));
}

/* ewise_fma(a, b, c): a * b + c, of one shape and dtype */
static int infer_fma(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    char b1[96], b2[96];
    for (int k = 1; k < 3; k++)
        if (a[k].dtype != a[0].dtype || a[k].ndim != a[0].ndim ||
            memcmp(a[k].shape, a[0].shape, (size_t)a[0].ndim * sizeof *a[0].shape))
            return fail(err, call->loc, "R.ewise_fma takes three tensors of one shape and dtype: %s %s and %s %s",
                        dtype_name(a[0].dtype), type_text(&a[0], b1, sizeof b1), dtype_name(a[k].dtype),
                        type_text(&a[k], b2, sizeof b2));
    p->out = a[0];
    return 0;
}

static void legal_fma(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    Expr *v = bin(b, B_ADD, bin(b, B_MUL, load(b, in[0], t.x), load(b, in[1], t.x)), load(b, in[2], t.x));
    nest_end(b, &t, "ewise_fma", NULL, store(b, outs[0], t.x, v));
}

static const Op ops[] = {
    { { "R.add", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_ADD, 0, 0, NULL },
    { { "R.subtract", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_SUB, 0, 0, NULL },
    { { "R.multiply", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_MUL, 0, 0, NULL },
    { { "R.divide", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_DIV, 0, 0, NULL },
    { { "R.maximum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_GT, 0, 0, NULL },
    { { "R.minimum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_LT, 0, 0, NULL },
    { { "R.nn.relu", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_RELU, 0, 0, NULL },
    { { "R.exp", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_EXP, 0, 0, NULL },
    { { "R.sigmoid", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_SIGMOID, 0, 0, NULL },
    { { "R.tanh", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_TANH, 0, 0, NULL },
    { { "R.sqrt", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_SQRT, 0, 0, NULL },
    { { "R.negative", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_NEGATIVE, 0, 0, NULL },
    { { "R.floor_divide", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_FLOORDIV, 0,
      0, NULL },
    { { "R.floor_mod", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, B_FLOORMOD, 0, 0,
      NULL },
    { { "R.power", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, "float", NULL }, infer_binary, legal_binary, BIN_POWER, 0, 0, NULL },
    { { "R.nn.gelu", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_GELU, 0, 0, NULL },
    { { "R.nn.gelu_tanh", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_GELU_TANH, 0, 0, NULL },
    { { "R.nn.silu", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_SILU, 0, 0, NULL },
    { { "R.log", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_LOG, 0, 0, NULL },
    { { "R.abs", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_ABS, 0, 0, NULL },
    { { "R.rsqrt", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_RSQRT, 0, 0, NULL },
    { { "R.floor", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_FLOOR, 0, 0, NULL },
    { { "R.ceil", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_CEIL, 0, 0, NULL },
    { { "R.round", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_ROUND, 0, 0, NULL },
    { { "R.sin", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_SIN, 0, 0, NULL },
    { { "R.cos", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_COS, 0, 0, NULL },
    { { "R.square", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_SQUARE, 0, 0, NULL },
    { { "R.sign", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, NULL, NULL }, infer_unary, legal_unary, U_SIGN, 0, 0, NULL },
    { { "R.erf", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "float", NULL }, infer_unary, legal_unary, U_ERF, 0, 0, NULL },
    { { "R.less", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_LT, 0, 0, NULL },
    { { "R.greater", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_GT, 0, 0,
      NULL },
    { { "R.equal", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_EQ, 0, 0, NULL },
    { { "R.not_equal", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_NE, 0,
      0, NULL },
    { { "R.less_equal", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_LE, 0,
      0, NULL },
    { { "R.greater_equal", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, NULL, NULL }, infer_binary, legal_binary, BIN_BOOL + B_GE,
      0, 0, NULL },
    { { "R.logical_not", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0, "bool", NULL }, infer_unary, legal_unary, U_LOGICAL_NOT, 0,
      0, NULL },
    { { "R.logical_and", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, "bool", NULL }, infer_binary, legal_binary,
      BIN_BOOL + B_AND, 0, 0, NULL },
    { { "R.logical_or", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0, "bool", NULL }, infer_binary, legal_binary, BIN_BOOL + B_OR,
      0, 0, NULL },
    { { "R.where", LAYOUT_AGNOSTIC, 3, 3, no_attrs, 0, 0, NULL, NULL }, infer_where, legal_where, 0, 0, 0, NULL },
    { { "R.nn.leakyrelu", LAYOUT_AGNOSTIC, 1, 1, leakyrelu_attrs, 0, 0, "float", NULL }, infer_act, legal_act, 0, 0, 0,
      leakyrelu_attrs },
    { { "R.nn.softplus", LAYOUT_AGNOSTIC, 1, 1, softplus_attrs, 0, 0, "float", NULL }, infer_act, legal_act, 1, 0, 0,
      softplus_attrs },
    { { "R.astype", LAYOUT_AGNOSTIC, 1, 1, astype_attrs, 0, 0, NULL, NULL }, infer_astype, legal_astype, 0, 0, 0, astype_attrs },
    { { "R.clip", LAYOUT_AGNOSTIC, 1, 1, clip_attrs, 0, 0, NULL, NULL }, infer_clip, legal_clip, 0, 0, 0, clip_attrs },
    { { "R.ewise_fma", LAYOUT_AGNOSTIC, 3, 3, no_attrs, 0, 0, NULL, NULL }, infer_fma, legal_fma, 0, 0, 0, NULL },
};

const OpFamily op_family_elementwise = { ops, sizeof ops / sizeof *ops };

int op_is_binary(const Op *o)
{
    return o->infer == infer_binary;
}
