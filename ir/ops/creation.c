/* Tensors made from a shape and a value: R.zeros, R.ones, R.full, their _like
 * forms (the shape of a tensor), and R.arange. The fill value is a number or
 * a constant of one element, read when the call is legalized. */
#include <math.h>
#include <string.h>

#include "internal.h"

static const char *const dtype_attrs[] = { "dtype", NULL };
static const char *const arange_attrs[] = { "end", "step", "dtype", NULL };

enum { C_ZEROS, C_ONES, C_FULL };

/* What every creation operator fills with: 0, 1, or its fill_value (the
 * argument after the shape or the tensor). */
static int fill_value(const Op *o, const Expr *call, Plan *p, OpError *err)
{
    p->pad_value = o->code == C_ONES;
    if (o->code != C_FULL)
        return 0;
    const Expr *v = call->u.call.args[1];
    if (scalar_of(v, &p->pad_value))
        return fail(err, v->loc, "%s: fill_value is a number or a constant of one element", o->info.name);
    return 0;
}

/* The dtype of a full without one: its fill value's, when a constant says it. */
static DType fill_dtype(const Expr *call, int at, DType dflt)
{
    const Expr *v = call->u.call.args[at];
    if (v->kind == E_CALL && strcmp(v->u.call.op->str, "R.prim_value") == 0 && v->u.call.nargs == 1)
        v = v->u.call.args[0];
    if (v->kind == E_CONST)
        return v->u.cst.dtype;
    if (v->kind == E_FLOAT && v->u.f.dtype != DT_VOID)
        return v->u.f.dtype;
    if (v->kind == E_INT && v->u.i.dtype != DT_VOID)
        return v->u.i.dtype;
    return dflt;
}

/* zeros(shape, dtype), ones(shape, dtype), full(shape, fill_value, dtype) */
static int infer_create(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t s[OP_MAX_RANK];
    const Expr *shape = call->u.call.args[0];
    int n = shape_of(shape, s, OP_MAX_RANK);
    if (n < 0)
        return fail(err, shape->loc, "%s takes a shape of constants, as in R.shape([2, 3]), of rank at most %d",
                    o->info.name, OP_MAX_RANK);
    DType dflt = o->code == C_FULL ? fill_dtype(call, 1, DT_VOID) : DT_VOID;
    if (dtype_attr(call, "dtype", dflt, &p->out.dtype, err))
        return -1;
    if (p->out.dtype == DT_VOID)
        return fail(err, call->loc, "%s needs a dtype", o->info.name);
    for (int d = 0; d < n; d++)
        if (s[d] < 0)
            return fail(err, shape->loc, "%s: dimension %d is negative", o->info.name, d);
    p->out.ndim = n;
    memcpy(p->out.shape, s, (size_t)n * sizeof *s);
    return fill_value(o, call, p, err);
}

/* zeros_like(x, dtype), ones_like(x, dtype), full_like(x, fill_value, dtype) */
static int infer_like(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    p->out = a[0];
    if (dtype_attr(call, "dtype", a[0].dtype, &p->out.dtype, err))
        return -1;
    return fill_value(o, call, p, err);
}

static void legal_fill(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
    nest_end(b, &t, strrchr(o->info.name, '.') + 1, NULL, store(b, outs[0], t.x, typed(b, p->pad_value, p->out.dtype)));
}

/* arange(start, end, step, dtype): start + i * step while below end (above,
 * for a negative step); one argument is the end, from 0. The dtype is int64
 * when every bound is an integer, else float32. */
static int infer_arange(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *e[3] = { call->u.call.args[0], attr(call, "end"), attr(call, "step") };
    double v[3] = { 0, 0, 1 };
    int ints = 1;
    for (int k = 0; k < 3; k++) {
        if (!e[k] || e[k]->kind == E_NONE)
            continue;
        if (scalar_of(e[k], &v[k]))
            return fail(err, e[k]->loc, "R.arange takes numbers");
        ints &= v[k] == floor(v[k]) && e[k]->kind != E_FLOAT;
    }
    if (!e[1] || e[1]->kind == E_NONE) {
        v[1] = v[0];
        v[0] = 0;
    }
    if (v[2] == 0)
        return fail(err, e[2]->loc, "R.arange: step is not 0");
    double count = ceil((v[1] - v[0]) / v[2]);
    if (!(count < (double)(1 << 24)))
        return fail(err, call->loc, "R.arange: more than %d elements", 1 << 24);
    if (dtype_attr(call, "dtype", ints ? DT_INT64 : DT_FLOAT32, &p->out.dtype, err))
        return -1;
    p->out.ndim = 1;
    p->out.shape[0] = count > 0 ? (int64_t)count : 0;
    p->scalar[0] = v[0];
    p->scalar[1] = v[2];
    return 0;
}

static void legal_arange(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    /* computed in float64 (int64 for integers), then cast: start + i * step */
    Nest t;
    nest_begin(b, &t, 1, p->out.shape, "S");
    DType dt = p->out.dtype, wide = dtype_is_float(dt) ? DT_FLOAT64 : DT_INT64;
    Expr *i = to_dtype(b, t.x[0], DT_INT64, wide);
    Expr *v = bin(b, B_ADD, typed(b, p->scalar[0], wide), bin(b, B_MUL, i, typed(b, p->scalar[1], wide)));
    nest_end(b, &t, "arange", NULL, store(b, outs[0], t.x, to_dtype(b, v, wide, dt)));
}

static const Op ops[] = {
    { { "R.zeros", LAYOUT_AGNOSTIC, 1, 0, dtype_attrs, 0, 0, NULL, NULL }, infer_create, legal_fill, C_ZEROS, 0, 0, dtype_attrs },
    { { "R.ones", LAYOUT_AGNOSTIC, 1, 0, dtype_attrs, 0, 0, NULL, NULL }, infer_create, legal_fill, C_ONES, 0, 0, dtype_attrs },
    { { "R.full", LAYOUT_AGNOSTIC, 2, 0, dtype_attrs, 0, 0, NULL, NULL }, infer_create, legal_fill, C_FULL, 0, 0, dtype_attrs },
    { { "R.zeros_like", LAYOUT_AGNOSTIC, 1, 1, dtype_attrs, 0, 0, NULL, NULL }, infer_like, legal_fill, C_ZEROS, 0, 0,
      dtype_attrs },
    { { "R.ones_like", LAYOUT_AGNOSTIC, 1, 1, dtype_attrs, 0, 0, NULL, NULL }, infer_like, legal_fill, C_ONES, 0, 0, dtype_attrs },
    { { "R.full_like", LAYOUT_AGNOSTIC, 2, 1, dtype_attrs, 0, 0, NULL, NULL }, infer_like, legal_fill, C_FULL, 0, 0,
      dtype_attrs },
    { { "R.arange", LAYOUT_AGNOSTIC, 1, 0, arange_attrs, 0, 0, NULL, NULL }, infer_arange, legal_arange, 0, 0, 0, arange_attrs },
};

const OpFamily op_family_creation = { ops, sizeof ops / sizeof *ops };
