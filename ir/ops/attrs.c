/* Reading a call's attributes: integers, lists of them, strings, numbers and
 * dtypes, with the error each misuse gets. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../elem.h"
#include "internal.h"

int fail(OpError *err, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->loc = loc;
    err->unknown = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

const Expr *attr(const Expr *call, const char *name)
{
    for (int i = 0; i < call->u.call.nkw; i++)
        if (strcmp(call->u.call.kw[i]->str, name) == 0)
            return call_kwv(call)[i];
    return NULL;
}

int int_of(const Expr *e, int64_t *v)
{
    if (e->kind == E_INT) {
        *v = e->u.i.v;
        return 0;
    }
    if (e->kind == E_UNARY && e->u.un.op == U_NEG && e->u.un.a->kind == E_INT) {
        *v = -e->u.un.a->u.i.v;
        return 0;
    }
    return -1;
}

/* An int or a list/tuple of ints (at most max); returns the count or -1. */
int ints_of(const Expr *e, int64_t *v, int max)
{
    if (!e)
        return 0;
    if (int_of(e, v) == 0)
        return 1;
    if (e->kind != E_LIST && e->kind != E_TUPLE)
        return -1;
    if (e->u.list.n > max)
        return -1;
    for (int i = 0; i < e->u.list.n; i++)
        if (int_of(e->u.list.items[i], &v[i]))
            return -1;
    return e->u.list.n;
}

const char *str_of(const Expr *e, const char *dflt)
{
    return e && e->kind == E_STR ? e->u.str.s : dflt;
}

int num_of(const Expr *e, double *v)
{
    int64_t i;
    if (e->kind == E_FLOAT) {
        *v = e->u.f.v;
        return 0;
    }
    if (e->kind == E_UNARY && e->u.un.op == U_NEG && e->u.un.a->kind == E_FLOAT) {
        *v = -e->u.un.a->u.f.v;
        return 0;
    }
    if (int_of(e, &i) == 0) {
        *v = (double)i;
        return 0;
    }
    return -1;
}

const char *type_text(const TensorType *t, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < t->ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, t->ndim == 1 ? ",)" : ")");
    return buf;
}

/* out_dtype: the result's dtype, to which matmul and conv2d cast their operands
 * before multiplying and accumulating (as TVM does); absent, "" or "void" keeps
 * the operands' dtype. */
int out_dtype(const Expr *call, DType in, DType *out, OpError *err)
{
    const Expr *e = attr(call, "out_dtype");
    *out = in;
    if (!e || e->kind == E_NONE)
        return 0;
    if (e->kind != E_STR)
        return fail(err, e->loc, "out_dtype is a dtype string, such as \"float32\"");
    if (!*e->u.str.s || strcmp(e->u.str.s, "void") == 0)
        return 0;
    DType t;
    if (dtype_parse(e->u.str.s, &t) || t == DT_VOID)
        return fail(err, e->loc, "out_dtype \"%s\" is not a dtype", e->u.str.s);
    if (dtype_is_float(in) && !dtype_is_float(t))
        return fail(err, e->loc, "out_dtype %s: float operands give a float result", e->u.str.s);
    *out = t;
    return 0;
}


/* A shape: a tuple or list of integers, or R.shape([...]) of them; returns
 * the count, or -1. */
int shape_of(const Expr *e, int64_t *v, int max)
{
    if (e && e->kind == E_CALL && strcmp(e->u.call.op->str, "R.shape") == 0 && e->u.call.nargs == 1 &&
        e->u.call.nkw == 0)
        e = e->u.call.args[0];
    if (!e || (e->kind != E_LIST && e->kind != E_TUPLE))
        return -1;
    return ints_of(e, v, max);
}

/* A number: written, R.prim_value(number), or a constant tensor of one
 * element (R.const(0.5, "float32")). */
int scalar_of(const Expr *e, double *v)
{
    if (e && e->kind == E_CALL && strcmp(e->u.call.op->str, "R.prim_value") == 0 && e->u.call.nargs == 1 &&
        e->u.call.nkw == 0)
        e = e->u.call.args[0];
    if (e && e->kind == E_CONST && e->u.cst.count == 1) {
        *v = elem_getf(e->u.cst.dtype, e->u.cst.data, 0);
        return 0;
    }
    return e ? num_of(e, v) : -1;
}

/* The dtype attribute name of call: a string such as "float16", or
 * R.dtype("float16"); *dt is dflt when the call has none (or says "void"
 * or ""). Returns 0, or -1 with err filled. */
int dtype_attr(const Expr *call, const char *name, DType dflt, DType *dt, OpError *err)
{
    const Expr *e = attr(call, name);
    *dt = dflt;
    if (e && e->kind == E_CALL && strcmp(e->u.call.op->str, "R.dtype") == 0 && e->u.call.nargs == 1)
        e = e->u.call.args[0];
    if (!e || e->kind == E_NONE)
        return 0;
    if (e->kind != E_STR)
        return fail(err, e->loc, "%s is a dtype string, such as \"float32\"", name);
    if (!*e->u.str.s || strcmp(e->u.str.s, "void") == 0)
        return 0;
    if (dtype_parse(e->u.str.s, dt) || *dt == DT_VOID)
        return fail(err, e->loc, "%s \"%s\" is not a dtype", name, e->u.str.s);
    return 0;
}
