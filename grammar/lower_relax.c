/* Lowers Relax: struct info and shapes (dimensions written as strings too),
 * R.const and metadata constants, calls and infix arithmetic, bindings and
 * if/else, dataflow blocks, and a function's statements as they come. */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../ir/elem.h"
#include "../ir/ops.h"

/* ---- Relax ---- */

static Expr *lower_rexpr(Reader *R, const Sx *e);
static StructInfo *lower_sinfo(Reader *R, const Sx *e);

/* A dimension written as a string, "n" or "c * 2 + 1": integers, names and
 * + - * // % with parentheses, parsed into syntax whose names are strings
 * (so that lower_dim declares them). Errors point into the string. */
typedef struct DimText {
    Reader *R;
    const char *s, *p;
    Loc loc;
    int depth;
} DimText;

static Sx *dim_sum(DimText *d);

static Loc dim_loc(DimText *d)
{
    Loc l = d->loc;
    l.col = loc_col((long)l.col + 1 + (d->p - d->s));    /* past the opening quote */
    return l;
}

static void dim_space(DimText *d)
{
    while (*d->p == ' ')
        d->p++;
}

static int is_name_char(char c, int first)
{
    return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || (!first && c >= '0' && c <= '9');
}

static Sx *dim_atom(DimText *d)
{
    dim_space(d);
    Loc l = dim_loc(d);
    if (*d->p == '-') {
        d->p++;
        Sx *a = dim_atom(d);
        if (!a)
            return NULL;
        Sx *x = sx_new(d->R->a, SX_UNARY, l);
        x->u.bin.op = OP_NEG;
        x->u.bin.a = a;
        return x;
    }
    if (*d->p == '(') {
        if (++d->depth > 50)
            return ERR(d->R, l, "a symbolic dimension nests parentheses more than 50 deep"), NULL;
        d->p++;
        Sx *x = dim_sum(d);
        dim_space(d);
        if (x && *d->p != ')')
            return ERR(d->R, dim_loc(d), "expected ')' in a symbolic dimension"), NULL;
        d->p++;
        d->depth--;
        return x;
    }
    if (*d->p >= '0' && *d->p <= '9') {
        int64_t v = 0;
        for (; *d->p >= '0' && *d->p <= '9'; d->p++) {
            if (v > (INT64_MAX - 9) / 10)
                return ERR(d->R, l, "integer too large in a symbolic dimension"), NULL;
            v = v * 10 + (*d->p - '0');
        }
        Sx *x = sx_new(d->R->a, SX_INT, l);
        x->u.ival = v;
        return x;
    }
    if (is_name_char(*d->p, 1)) {
        const char *b = d->p;
        while (is_name_char(*d->p, 0))
            d->p++;
        Sx *x = sx_new(d->R->a, SX_STR, l);
        char *name = arena_alloc(d->R->a, (size_t)(d->p - b) + 1);
        memcpy(name, b, (size_t)(d->p - b));
        name[d->p - b] = 0;
        x->u.str.s = name;
        x->u.str.len = (int)(d->p - b);
        return x;
    }
    return ERR(d->R, l, *d->p ? "expected a name, an integer or '(' in a symbolic dimension"
                              : "a symbolic dimension ends too early"), NULL;
}

static Sx *dim_bin(DimText *d, SxOp op, Sx *a, Sx *b, Loc l)
{
    Sx *x = sx_new(d->R->a, SX_BINOP, l);
    x->u.bin.op = op;
    x->u.bin.a = a;
    x->u.bin.b = b;
    return x;
}

static Sx *dim_product(DimText *d)
{
    Sx *a = dim_atom(d);
    for (;;) {
        dim_space(d);
        Loc l = dim_loc(d);
        SxOp op = *d->p == '*' ? OP_MUL : *d->p == '%' ? OP_MOD : d->p[0] == '/' && d->p[1] == '/' ? OP_FLOORDIV : OP_NOT;
        if (!a || op == OP_NOT)
            return a;
        d->p += op == OP_FLOORDIV ? 2 : 1;
        Sx *b = dim_atom(d);
        if (!b)
            return NULL;
        a = dim_bin(d, op, a, b, l);
    }
}

static Sx *dim_sum(DimText *d)
{
    Sx *a = dim_product(d);
    for (;;) {
        dim_space(d);
        Loc l = dim_loc(d);
        if (!a || (*d->p != '+' && *d->p != '-'))
            return a;
        SxOp op = *d->p++ == '+' ? OP_ADD : OP_SUB;
        Sx *b = dim_product(d);
        if (!b)
            return NULL;
        a = dim_bin(d, op, a, b, l);
    }
}

/* Reports a name in arithmetic of a dimension string ("m + 1") that is not
 * a symbolic variable yet: as in TVM, only a dimension that is a name alone
 * ("m") defines one. */
static int dim_unbound(Reader *R, const Sx *x)
{
    if (x->kind == SX_BINOP)
        return dim_unbound(R, x->u.bin.a) || dim_unbound(R, x->u.bin.b);
    if (x->kind == SX_UNARY)
        return dim_unbound(R, x->u.bin.a);
    if (x->kind != SX_STR)
        return 0;
    Sym *name = S(R, x->u.str.s);
    if (name->bind_kind == BK_SYM || name->bind_kind == BK_META)
        return 0;
    return ERR(R, x->loc, "'%s' is not defined here: a symbolic variable is defined by a dimension that is its name "
               "alone, as in R.Tensor((\"%s\",))", x->u.str.s, x->u.str.s);
}

/* A dimension of a Relax shape: an integer, a symbolic name ("n" or n), or arithmetic on them. */
static Expr *lower_dim(Reader *R, const Sx *e)
{
    switch (e->kind) {
    case SX_INT: return expr_int(R->a, e->u.ival, DT_VOID, e->loc);
    case SX_STR: {
        const char *s = e->u.str.s;
        int ok = is_name_char(s[0], 1);
        for (const char *p = s; *p && ok; p++)
            ok = is_name_char(*p, 0);
        if (!ok) {
            /* an expression in a string, as TVM prints R.Tensor(("n", "c + 1")) */
            DimText d = { R, s, s, e->loc, 0 };
            Sx *x = dim_sum(&d);
            dim_space(&d);
            if (x && *d.p)
                return ERR(R, dim_loc(&d), "unexpected '%c' in a symbolic dimension", *d.p), NULL;
            if (x && x->kind != SX_STR && dim_unbound(R, x))
                return NULL;
            return x ? lower_dim(R, x) : NULL;
        }
        Sym *name = S(R, s);
        if (name->bind_kind != BK_NONE && name->bind_kind != BK_SYM)
            return ERR(R, e->loc, "'%s' is already a value here; a symbolic dimension needs a name of its own", s), NULL;
        Expr *x = expr_new(R->a, E_VAR, e->loc);
        x->u.var = sym_var(R, name, e->loc, DT_INT64);
        return x;
    }
    case SX_NAME:
        if (e->u.name->bind_kind == BK_SYM) {
            Expr *x = expr_new(R->a, E_VAR, e->loc);
            x->u.var = e->u.name->bind;
            return x;
        }
        if (e->u.name->bind_kind == BK_META) {
            Expr *x = meta_use(R, e->u.name, e->loc);
            if (x->kind != E_INT)
                return ERR(R, e->loc, "'%s' stands for a constant that is not an integer", e->u.name->str), NULL;
            x->u.i.dtype = DT_VOID;
            return x;
        }
        return ERR(R, e->loc, "undefined symbolic dimension '%s'", e->u.name->str), NULL;
    case SX_BINOP:
        if (e->u.bin.op != OP_ADD && e->u.bin.op != OP_SUB && e->u.bin.op != OP_MUL && e->u.bin.op != OP_FLOORDIV &&
            e->u.bin.op != OP_MOD)
            return ERR(R, e->loc, "a dimension is integer arithmetic: +, -, *, // and %% on integers and symbolic names"), NULL;
        return lower_arith(R, e, lower_dim);
    case SX_UNARY:
        if (e->u.bin.op == OP_NOT || e->u.bin.op == OP_INVERT)
            return ERR(R, e->loc, "a dimension is integer arithmetic: +, -, *, // and %% on integers and symbolic names"), NULL;
        return lower_arith(R, e, lower_dim);
    case SX_CALL: {
        DType t;
        Args a;
        if (dtype_of_ctor(call_name(R, e), &t) == 0 && split_args(R, e, &a) == 0 && a.npos == 1 && a.nkw == 0)
            return typed_literal(R, e, t, a.pos[0]);
        break;
    }
    default: break;
    }
    return ERR(R, e->loc, "expected a dimension: an integer or a symbolic name"), NULL;
}

static StructInfo *sinfo_new(Reader *R, SInfoKind k, Loc loc)
{
    StructInfo *s = arena_zalloc(R->a, sizeof *s);
    s->kind = k;
    s->loc = loc;
    s->ndim = -1;
    return s;
}

/* Constant shapes repeat on nearly every binding; equal ones share storage.
 * Their expressions carry no location anyone reports. Looked up from the
 * syntax, so a repeated shape costs no allocation. */
static Expr **shared_shape(Reader *R, const Sx *e, int *ndim)
{
    int n = e->u.elems.n;
    uint64_t h = (uint64_t)n;
    for (int i = 0; i < n; i++) {
        const Sx *d = e->u.elems.items[i];
        if (d->kind != SX_INT)
            return lower_shape(R, e, ndim, lower_dim);
        h = h * 1000003u + (uint64_t)d->u.ival;
    }
    int slot = (int)(h % SHAPE_CACHE);
    Expr **old = R->shapes[slot];
    if (old && R->shape_n[slot] == n) {
        int same = 1;
        for (int i = 0; i < n && same; i++)
            same = old[i]->u.i.v == e->u.elems.items[i]->u.ival;
        if (same) {
            *ndim = n;
            return old;
        }
    }
    Expr **shape = lower_shape(R, e, ndim, lower_dim);
    if (shape) {
        R->shapes[slot] = shape;
        R->shape_n[slot] = n;
    }
    return shape;
}

/* A tensor annotation repeats on nearly every binding of a large function;
 * equal ones (the same shared shape, rank and dtype, no vdevice) share one
 * StructInfo, which nothing changes once made. Its location is the first
 * one's: a StructInfo's location is only reported for a non-tensor. */
static StructInfo *shared_tensor_sinfo(Reader *R, const StructInfo *t)
{
    if (t->vdevice)
        return NULL;
    uint64_t h = ((uint64_t)(uintptr_t)t->shape >> 3) * 1000003u + (uint64_t)(t->ndim + 1) * 31u + (uint64_t)t->dtype;
    int slot = (int)(h % SHAPE_CACHE);
    StructInfo *old = R->tensors[slot];
    if (old && old->shape == t->shape && old->ndim == t->ndim && old->dtype == t->dtype && !old->vdevice)
        return old;
    StructInfo *s = arena_alloc(R->a, sizeof *s);
    *s = *t;
    R->tensors[slot] = s;
    return s;
}

/* R.Tensor((1, 64, 56, 56), dtype="float32") or R.Tensor((4,), "int32"),
 * a shape of plain integers and a known dtype, as lower_tensor_sinfo reads
 * it, without sorting its arguments: 1 with *out (NULL after an error in
 * the shape, reported), 0 for any other form. */
static int plain_tensor_sinfo(Reader *R, const Sx *e, StructInfo **out)
{
    const SxList *l = &e->u.call.args;
    if (l->n != 2 || l->items[0]->kind != SX_TUPLE || l->items[1]->kind != SX_STR ||
        (l->keys && (l->keys[0] || (l->keys[1] && l->keys[1] != S(R, "dtype")))))
        return 0;
    DType dt;
    if (dtype_parse(l->items[1]->u.str.s, &dt) != 0 || dt == DT_HANDLE)
        return 0;
    StructInfo t = { .kind = SI_TENSOR, .loc = e->loc, .ndim = -1, .dtype = dt };
    if (!(t.shape = shared_shape(R, l->items[0], &t.ndim))) {
        *out = NULL;
        return 1;
    }
    if (!(*out = shared_tensor_sinfo(R, &t))) {
        *out = arena_alloc(R->a, sizeof **out);
        **out = t;
    }
    return 1;
}

static StructInfo *lower_tensor_sinfo(Reader *R, const Sx *e)
{
    StructInfo t = { .kind = SI_TENSOR, .loc = e->loc, .ndim = -1 }, *s = &t;
    StructInfo *plain;
    Sx *const *items = e->u.call.args.items;
    for (int i = 0; i < 2; i++)
        if (items && items == R->tensor_items[i])
            return R->tensor_sinfo[i];
    if (plain_tensor_sinfo(R, e, &plain)) {
        /* a constant shape and a dtype mean the same in every scope: a
         * kept call read again (its argument list lives to the end of the
         * input, so the address is no other's) is the same struct info */
        if (plain && items && R->keep && arena_holds(R->keep, items)) {
            R->tensor_items[1] = R->tensor_items[0];
            R->tensor_sinfo[1] = R->tensor_sinfo[0];
            R->tensor_items[0] = items;
            R->tensor_sinfo[0] = plain;
        }
        return plain;
    }
    Args a;
    if (split_args(R, e, &a) || want_args(R, e, &a, 0, 3, "R.Tensor"))
        return NULL;
    /* R.Tensor("float32", ndim=4): a string first is the dtype, not a shape */
    int first = a.npos > 0 && a.pos[0]->kind == SX_STR;
    if (first && a.npos > 2)
        return ERR(R, a.pos[2]->loc, "R.Tensor takes a shape, a dtype and a vdevice, in that order"), NULL;
    Sx *shape = first ? kwarg(&a, "shape") : arg(&a, 0, "shape"), *dt = arg(&a, 1 - first, "dtype"),
       *vd = arg(&a, 2 - first, "vdevice"), *nd = kwarg(&a, "ndim");
    if (check_kwargs(R, &a, "R.Tensor"))
        return NULL;
    if (shape && shape->kind != SX_NONE) {
        if (shape->kind != SX_TUPLE && shape->kind != SX_LIST)
            return ERR(R, shape->loc, "expected a shape, as in (1, 64, 56, 56)"), NULL;
        if (!(s->shape = shared_shape(R, shape, &s->ndim)))
            return NULL;
    }
    if (nd) {
        if (nd->kind != SX_INT && !(nd->kind == SX_UNARY && nd->u.bin.a->kind == SX_INT))
            return ERR(R, nd->loc, "ndim must be an integer"), NULL;
        if (nd->kind == SX_UNARY && (nd->u.bin.op != OP_NEG || nd->u.bin.a->u.ival != 1))
            return ERR(R, nd->loc, "ndim is -1 (any rank) or a number of dimensions, not less"), NULL;
        int v = nd->kind == SX_INT ? (int)(nd->u.ival > 64 ? 65 : nd->u.ival) : -1;
        if (v > 64 || (s->shape && v != s->ndim))
            return ERR(R, nd->loc, "ndim does not agree with the shape"), NULL;
        s->ndim = v;
    }
    if (dt && dt->kind != SX_NONE && dtype_arg(R, dt, &s->dtype))
        return NULL;
    if (vd && !(s->vdevice = string_arg(R, vd, "vdevice")))
        return NULL;
    StructInfo *shared = shared_tensor_sinfo(R, &t);
    if (!shared) {
        shared = arena_alloc(R->a, sizeof *shared);
        *shared = t;
    }
    return shared;
}

static int is_sinfo_name(const char *n);

/* The arguments of R.Callable and R.DTensor, kept as written: struct info,
 * lists and tuples of it, and literals. */
static Expr *lower_sinfo_arg(Reader *R, const Sx *e)
{
    const char *n = e->kind == SX_CALL ? call_name(R, e) : e->kind == SX_NAME ? e->u.name->str : NULL;
    if (is_sinfo_name(n)) {
        Expr *x = expr_new(R->a, E_SINFO, e->loc);
        return (x->u.sinfo = lower_sinfo(R, e)) ? x : NULL;
    }
    switch (e->kind) {
    case SX_LIST: return lower_seq(R, e, E_LIST, lower_sinfo_arg);
    case SX_TUPLE: return lower_seq(R, e, E_TUPLE, lower_sinfo_arg);
    default: break;
    }
    Expr *x = lower_literal(R, e);
    return x ? x : (ERR(R, e->loc, "expected struct info or a constant"), NULL);
}

static StructInfo *lower_sinfo(Reader *R, const Sx *e)
{
    const char *name = e->kind == SX_CALL ? call_name(R, e) : dotted(R, e);
    if (name && strncmp(name, "R.", 2) == 0)
        name += 2;
    if (!name)
        return ERR(R, e->loc, "expected struct info such as R.Tensor((4,), dtype=\"float32\")"), NULL;
    if (e->kind == SX_CALL && streq(name, "Tensor"))
        return lower_tensor_sinfo(R, e);   /* nearly every annotation: asked first */
    /* R.Any is TVM's new name for R.Object */
    if (streq(name, "Object") || streq(name, "Any")) {
        if (e->kind == SX_CALL && e->u.call.args.n)
            return ERR(R, e->loc, "R.%s takes no arguments", name), NULL;
        return sinfo_new(R, SI_OBJECT, e->loc);
    }
    if (streq(name, "Callable") || streq(name, "DTensor")) {
        /* a function's or a distributed tensor's type: kept as written,
         * and to lopt's checks and --run any value */
        if (e->kind != SX_CALL)
            return ERR(R, e->loc, "R.%s takes arguments, as in %s", name, streq(name, "Callable")
                       ? "R.Callable([R.Tensor((4,), \"float32\")], R.Tensor((4,), \"float32\"))"
                       : "R.DTensor((4, 8), \"float32\", device_mesh=\"mesh[0]\", placement=\"R\")"), NULL;
        StructInfo *s = sinfo_new(R, SI_OBJECT, e->loc);
        return (s->written = lower_call(R, e, streq(name, "Callable") ? "R.Callable" : "R.DTensor", lower_sinfo_arg)) ? s : NULL;
    }
    if (e->kind != SX_CALL && streq(name, "Shape"))
        return sinfo_new(R, SI_SHAPE, e->loc);   /* a shape of any rank */
    /* bare R.Tensor and R.Tuple: any tensor, a tuple of unknown fields */
    if (e->kind != SX_CALL && streq(name, "Tensor"))
        return sinfo_new(R, SI_TENSOR, e->loc);
    if (e->kind != SX_CALL && streq(name, "Tuple")) {
        StructInfo *s = sinfo_new(R, SI_TUPLE, e->loc);
        s->nfields = -1;
        return s;
    }
    if (e->kind == SX_CALL && streq(name, "Tuple")) {
        StructInfo *s = sinfo_new(R, SI_TUPLE, e->loc);
        const SxList *l = &e->u.call.args;
        /* R.Tuple([A, B]) as well as R.Tuple(A, B) */
        if (l->n == 1 && !(l->keys && l->keys[0]) && l->items[0]->kind == SX_LIST)
            l = &l->items[0]->u.elems;
        s->nfields = l->n;
        s->fields = arena_array(R->a, (size_t)l->n, sizeof *s->fields);
        for (int i = 0; i < l->n; i++)
            if ((l->keys && l->keys[i]) || !(s->fields[i] = lower_sinfo(R, l->items[i])))
                return l->keys && l->keys[i] ? ERR(R, l->items[i]->loc, "R.Tuple takes struct info fields"), NULL : NULL;
        return s;
    }
    if (e->kind == SX_CALL && streq(name, "Shape")) {
        StructInfo *s = sinfo_new(R, SI_SHAPE, e->loc);
        Args a;
        if (split_args(R, e, &a) || want_args(R, e, &a, 0, 1, "R.Shape"))
            return NULL;
        Sx *v = arg(&a, 0, "values"), *nd = kwarg(&a, "ndim");
        if (check_kwargs(R, &a, "R.Shape"))
            return NULL;
        if (v && !(s->shape = lower_shape(R, v, &s->ndim, lower_dim)))
            return NULL;
        if (nd && nd->kind == SX_INT && nd->u.ival <= 64)
            s->ndim = (int)nd->u.ival;
        else if (nd)
            return ERR(R, nd->loc, "ndim must be an integer"), NULL;
        return s;
    }
    if (e->kind == SX_CALL && streq(name, "Prim")) {
        StructInfo *s = sinfo_new(R, SI_PRIM, e->loc);
        Args a;
        if (split_args(R, e, &a) || want_args(R, e, &a, 0, 1, "R.Prim"))
            return NULL;
        /* R.Prim("int64"), R.Prim(value="n") (an int64 of known value), R.Prim("int32", value=3) */
        Sx *dt = arg(&a, 0, "dtype"), *v = kwarg(&a, "value");
        if (check_kwargs(R, &a, "R.Prim"))
            return NULL;
        if (!dt && !v)
            return ERR(R, e->loc, "R.Prim takes a dtype, a value or both, as in R.Prim(\"int64\") or R.Prim(value=\"n\")"), NULL;
        s->dtype = DT_INT64;
        if (dt && dtype_arg(R, dt, &s->dtype))
            return NULL;
        if (v && !(s->value = lower_dim(R, v)))
            return NULL;
        return s;
    }
    return ERR(R, e->loc, "unknown struct info '%s'; expected R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object (R.Any), "
                          "R.Callable or R.DTensor", name), NULL;
}

static int is_sinfo_name(const char *n)
{
    /* each starts R. and an upper-case letter; R.add and T.max do not */
    return n && n[0] == 'R' && n[1] == '.' && n[2] >= 'A' && n[2] <= 'Z' && (streq(n, "R.Tensor") || streq(n, "R.Tuple") || streq(n, "R.Shape") || streq(n, "R.Prim") ||
                 streq(n, "R.Object") || streq(n, "R.Any") || streq(n, "R.Callable") || streq(n, "R.DTensor"));
}

/* Nested lists of numbers, row-major, with their shape checked to be a box. */
/* The shape of a constant's nested lists, which must be rectangular, and
 * the number of its elements. */
static int const_shape(Reader *R, const Sx *e, int depth, int64_t *shape, int *ndim, int64_t *n)
{
    if (e->kind == SX_LIST || e->kind == SX_TUPLE) {
        if (depth >= OP_MAX_RANK)
            return ERR(R, e->loc, "constant has more than %d dimensions", OP_MAX_RANK);
        if (depth >= *ndim) {
            if (*n > 0)
                return ERR(R, e->loc, "ragged constant: rows differ in shape");
            *ndim = depth + 1;
            shape[depth] = e->u.elems.n;
        } else if (shape[depth] != e->u.elems.n) {
            return ERR(R, e->loc, "ragged constant: rows differ in shape");
        }
        for (int i = 0; i < e->u.elems.n; i++)
            if (const_shape(R, e->u.elems.items[i], depth + 1, shape, ndim, n))
                return -1;
        return 0;
    }
    if (depth != *ndim)
        return ERR(R, e->loc, "ragged constant: rows differ in shape");
    (*n)++;
    return 0;
}

/* Stores element i of c, written as the literal lit, in c's dtype: a float
 * rounds, an integer must be a value of an integer dtype. */
static int const_store(Reader *R, Expr *c, int64_t i, const Expr *lit, Loc loc)
{
    DType dt = c->u.cst.dtype;
    if (lit->kind == E_FLOAT) {
        elem_setf(dt, c->u.cst.data, i, lit->u.f.v);
        return 0;
    }
    int64_t v = lit->kind == E_INT ? lit->u.i.v : lit->u.b;
    if (dtype_is_float(dt)) {
        elem_setf(dt, c->u.cst.data, i, (double)v);
        return 0;
    }
    if (!elem_int_fits(dt, v) && dt != DT_BOOL)
        return ERR(R, loc, "%lld is not a value of %s", (long long)v, dtype_name(dt));
    elem_seti(dt, c->u.cst.data, i, v);
    return 0;
}

/* float("inf"), float("-inf"), float("nan"): Python's spelling of the
 * floats without a literal, as the string inside it. */
static const Sx *python_float(Reader *R, const Sx *e)
{
    const char *fn = call_name(R, e);
    if (fn && streq(fn, "float") && e->u.call.args.n == 1 && !(e->u.call.args.keys && e->u.call.args.keys[0]) &&
        e->u.call.args.items[0]->kind == SX_STR)
        return e->u.call.args.items[0];
    return e;
}

/* A number of Python's arithmetic on literals, R.const(15.0 / 14.0): TVM's
 * parser has Python evaluate it, in doubles (a / b always a float, as in
 * Python 3), before the constant rounds it to its dtype. 0 with *lit set,
 * 1 when e is no such sum, -1 after an error. */
static int python_arith(Reader *R, const Sx *e, Expr *lit)
{
    if (e->kind == SX_INT || e->kind == SX_FLOAT) {
        lit->kind = e->kind == SX_INT ? E_INT : E_FLOAT;
        if (e->kind == SX_INT)
            lit->u.i.v = e->u.ival;
        else
            lit->u.f.v = e->u.fval;
        return 0;
    }
    if (e->kind == SX_UNARY && e->u.bin.op == OP_NEG) {
        int r = python_arith(R, e->u.bin.a, lit);
        if (r == 0 && lit->kind == E_INT)
            lit->u.i.v = -lit->u.i.v;
        else if (r == 0)
            lit->u.f.v = -lit->u.f.v;
        return r;
    }
    SxOp op = e->u.bin.op;
    if (e->kind != SX_BINOP || (op != OP_ADD && op != OP_SUB && op != OP_MUL && op != OP_DIV))
        return 1;
    Expr a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int r = python_arith(R, e->u.bin.a, &a);
    if (r == 0)
        r = python_arith(R, e->u.bin.b, &b);
    if (r)
        return r;
    double x = a.kind == E_INT ? (double)a.u.i.v : a.u.f.v, y = b.kind == E_INT ? (double)b.u.i.v : b.u.f.v;
    if (op == OP_DIV && y == 0)
        return ERR(R, e->loc, "division by zero in a constant");
    if (op != OP_DIV && a.kind == E_INT && b.kind == E_INT) {
        /* ints stay ints, as in Python; lopt's reach is 64 bits */
        int64_t v;
        if (op == OP_ADD ? __builtin_add_overflow(a.u.i.v, b.u.i.v, &v)
            : op == OP_SUB ? __builtin_sub_overflow(a.u.i.v, b.u.i.v, &v)
            : __builtin_mul_overflow(a.u.i.v, b.u.i.v, &v))
            return ERR(R, e->loc, "a constant's arithmetic overflows 64 bits");
        lit->kind = E_INT;
        lit->u.i.v = v;
        return 0;
    }
    lit->kind = E_FLOAT;
    lit->u.f.v = op == OP_ADD ? x + y : op == OP_SUB ? x - y : op == OP_MUL ? x * y : x / y;
    return 0;
}

static int const_fill(Reader *R, const Sx *e, Expr *c, int64_t *at)
{
    if (e->kind == SX_LIST || e->kind == SX_TUPLE) {
        for (int i = 0; i < e->u.elems.n; i++)
            if (const_fill(R, e->u.elems.items[i], c, at))
                return -1;
        return 0;
    }
    /* the literal on the stack: an element costs no node of the module's arena */
    Expr lit;
    e = python_float(R, e);
    const Sx *v = e->kind == SX_UNARY && e->u.bin.op == OP_NEG ? e->u.bin.a : e;
    double sign = v == e ? 1 : -1, special;
    memset(&lit, 0, sizeof lit);
    if (v->kind == SX_INT) {
        lit.kind = E_INT;
        lit.u.i.v = v == e ? v->u.ival : -v->u.ival;
    } else if (v->kind == SX_FLOAT) {
        lit.kind = E_FLOAT;
        lit.u.f.v = sign * v->u.fval;
    } else if (v == e && (e->kind == SX_TRUE || e->kind == SX_FALSE)) {
        lit.kind = E_BOOL;
        lit.u.b = e->kind == SX_TRUE;
    } else if (v == e && e->kind == SX_STR && special_float(e->u.str.s, &special) == 0) {
        lit.kind = E_FLOAT;
        lit.u.f.v = special;
    } else {
        int r = python_arith(R, e, &lit);
        if (r)
            return r < 0 ? -1 : ERR(R, e->loc, "a constant holds numbers");
    }
    return const_store(R, c, (*at)++, &lit, e->loc);
}

static Expr *lower_const(Reader *R, const Sx *e)
{
    Args a;
    if (split_args(R, e, &a) || want_args(R, e, &a, 1, 2, "R.const"))
        return NULL;
    Sx *v = a.pos[0], *dt = arg(&a, 1, "dtype");
    if (check_kwargs(R, &a, "R.const"))
        return NULL;
    v = (Sx *)python_float(R, v);
    Expr *x = expr_new(R->a, E_CONST, e->loc);
    int64_t shape[OP_MAX_RANK], n = 0;
    int ndim = 0;
    x->u.cst.dtype = v->kind == SX_FLOAT || (v->kind != SX_INT && v->kind != SX_UNARY) ? DT_FLOAT32 : DT_INT32;
    Expr sum;
    memset(&sum, 0, sizeof sum);
    int folded = v->kind == SX_BINOP ? python_arith(R, v, &sum) : 1;
    if (folded < 0)
        return NULL;
    if (folded == 0 && sum.kind == E_INT)
        x->u.cst.dtype = DT_INT32;   /* R.const(2 * 3): an int, as Python's */
    if (dt && dtype_arg(R, dt, &x->u.cst.dtype))
        return NULL;
    if (v->kind == SX_CONST) {
        /* the lexer has stored the elements already, in the dtype it read
         * after the list: the same text dtype_arg has just read */
        const SxConst *c = v->u.cst;
        if (c->dtype != x->u.cst.dtype)
            abort();
        x->u.cst.ndim = c->ndim;
        x->u.cst.count = c->count;
        x->u.cst.shape = c->shape;
        x->u.cst.data = c->data;
        return x;
    }
    if (const_shape(R, v, 0, shape, &ndim, &n))
        return NULL;
    x->u.cst.ndim = ndim;
    x->u.cst.count = n;
    x->u.cst.shape = arena_array(R->a, (size_t)ndim, sizeof(int64_t));
    memcpy(x->u.cst.shape, shape, (size_t)ndim * sizeof(int64_t));
    if (n == 0 && ndim > 0) {
        int64_t total = 1;
        for (int i = 0; i < ndim; i++)
            total *= shape[i];
        if (total != 0)
            return ERR(R, v->loc, "ragged constant: rows differ in shape"), NULL;
    }
    x->u.cst.data = arena_array(R->a, (size_t)n + 1, (size_t)dtype_size(x->u.cst.dtype));
    int64_t at = 0;
    return const_fill(R, v, x, &at) ? NULL : x;
}

/* metadata["relax.expr.Constant"][i]: how TVM prints a constant whose data
 * it keeps out of the text (show_meta=False). */
static int is_metadata_ref(Reader *R, const Sx *e)
{
    const Sx *o = e->u.index.obj;
    if (o->kind != SX_INDEX || o->u.index.items.n != 1)
        return 0;
    const char *d = dotted(R, o->u.index.obj);
    const Sx *key = o->u.index.items.items[0];
    return d && streq(d, "metadata") && key->kind == SX_STR && key->u.str.len == 19 &&
           memcmp(key->u.str.s, "relax.expr.Constant", 19) == 0;
}

/* The constant is read from the --constants file, and from then on is an
 * ordinary R.const: lopt prints its data inline. */
static Expr *lower_metadata(Reader *R, const Sx *e)
{
    const SxList *it = &e->u.index.items;
    if (it->n != 1 || it->items[0]->kind != SX_INT)
        return ERR(R, e->loc, "a metadata constant is taken by a constant index, as in metadata[\"relax.expr.Constant\"][0]"), NULL;
    int64_t i = it->items[0]->u.ival;
    const Constants *k = R->consts;
    if (!k)
        return ERR(R, e->loc, "the constant's data is in TVM's metadata section, which the text does not hold; "
                              "name the file with --constants=PATH (an .npz archive or a directory of .npy files), "
                              "or print the module with show_meta=True"), NULL;
    if (i >= k->count)
        return ERR(R, e->loc, "metadata constant %lld is past the constants of '%s', which holds %lld",
                   (long long)i, k->path, (long long)k->count), NULL;
    Expr *x = expr_new(R->a, E_CONST, e->loc);
    char err[1400];
    if (k->load(k->ctx, i, R->a, x, err, sizeof err))
        return ERR(R, e->loc, "metadata constant %lld: %s", (long long)i, err), NULL;
    return x;
}

/* "float32 (2, 3)", a dimension that is not a number as ?. */
static void type_text(char *buf, size_t cap, DType dt, int ndim, const int64_t *dims)
{
    size_t n = (size_t)snprintf(buf, cap, "%s (", dt == DT_VOID ? "any dtype" : dtype_name(dt));
    for (int i = 0; i < ndim && n < cap; i++) {
        if (dims[i] < 0)
            n += (size_t)snprintf(buf + n, cap - n, "%s?", i ? ", " : "");
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
    }
    if (n < cap)
        snprintf(buf + n, cap - n, "%s)", ndim == 1 ? "," : "");
}

/* c: R.Tensor(...) = metadata[...][i]: the annotation must be the type the
 * file gives (a symbolic dimension or an unknown dtype or rank matches). */
static int check_metadata_annot(Reader *R, const Binding *bd, const Sx *ref)
{
    const StructInfo *s = bd->annot;
    const Expr *c = bd->value;
    if (!s || s->kind != SI_TENSOR)
        return s ? ERR(R, s->loc, "a metadata constant is a tensor; annotate it with R.Tensor") : 0;
    int bad = (s->dtype != DT_VOID && s->dtype != c->u.cst.dtype) || (s->ndim >= 0 && s->ndim != c->u.cst.ndim);
    int64_t dims[OP_MAX_RANK];
    int ndim = s->ndim < 0 ? 0 : s->ndim > OP_MAX_RANK ? OP_MAX_RANK : s->ndim;
    for (int i = 0; i < ndim; i++) {
        const Expr *d = s->shape ? s->shape[i] : NULL;
        dims[i] = d && d->kind == E_INT ? d->u.i.v : -1;
        if (dims[i] >= 0 && !bad && dims[i] != c->u.cst.shape[i])
            bad = 1;
    }
    if (!bad)
        return 0;
    char have[256], want[256];
    type_text(have, sizeof have, c->u.cst.dtype, c->u.cst.ndim, c->u.cst.shape);
    if (s->ndim < 0)
        snprintf(want, sizeof want, "%s of any rank", s->dtype == DT_VOID ? "any dtype" : dtype_name(s->dtype));
    else
        type_text(want, sizeof want, s->dtype, ndim, dims);
    return ERR(R, ref->loc, "metadata constant %lld is %s in '%s', but its binding is annotated %s",
               (long long)ref->u.index.items.items[0]->u.ival, have, R->consts->path, want);
}

static Expr *lower_global(Reader *R, const Sx *e)
{
    Sym *name = global_name(R, e);
    Expr *x = expr_new(R->a, E_GLOBAL, e->loc);
    x->u.global.name = name;
    x->u.global.fn = module_find(R->m, name);
    if (!x->u.global.fn)
        vec_push(R->a, &R->fixups, &R->nfixups, &R->capfixups, x);   /* defined further down, or an error */
    return x;
}

/* R.tuple(a, b), TVM's tuple constructor, as the tuple (a, b); other
 * syntax as it is. */
static Sx *tuple_of_call(Reader *R, Sx *e)
{
    const char *name = e->kind == SX_CALL ? call_name(R, e) : NULL;
    if (!name || !streq(name, "R.tuple"))
        return e;
    for (int i = 0; e->u.call.args.keys && i < e->u.call.args.n; i++)
        if (e->u.call.args.keys[i])
            return e;
    Sx *t = sx_new(R->syn, SX_TUPLE, e->loc);
    t->u.elems = e->u.call.args;
    t->depth = (short)sx_depth(t);
    return t;
}

/* The arguments of R.call_tir as a tuple: TVM takes a list, and a single
 * value that is not a tuple, as the tuple of it. */
static Sx *call_tir_args(Reader *R, Sx *a)
{
    a = tuple_of_call(R, a);
    if (a->kind == SX_TUPLE)
        return a;
    if (a->kind == SX_NAME && a->u.name->bind_kind == BK_RVAR) {
        const StructInfo *s = ((Var *)a->u.name->bind)->sinfo;
        if (!s || s->kind == SI_TUPLE)
            return a;   /* a tuple value, or one whose type only the verifier knows */
    }
    Sx *t = sx_new(R->syn, SX_TUPLE, a->loc);
    if (a->kind == SX_LIST)
        t->u.elems = a->u.elems;
    else
        sx_push(R->syn, &t->u.elems, NULL, a);
    t->depth = (short)sx_depth(t);
    return t;
}

/* R.call_tir(cls.f, (x,), R.Tensor(...)), relax.call_tir and out_ty=: the
 * older spellings, read as R.call_tir(cls.f, (x,), out_sinfo=R.Tensor(...)).
 * A list of one output's struct info is that struct info, as in TVM (two or
 * more are a tuple of outputs). */
static Expr *lower_call_tir(Reader *R, const Sx *e)
{
    const SxList *l = &e->u.call.args;
    /* the call rewritten with out_sinfo as a keyword: syntax that dies with
     * the statement, not the module's */
    Arena *syn = R->syn;
    Sx *c = sx_new(syn, SX_CALL, e->loc);
    c->u.call.fn = sx_new(syn, SX_NAME, e->u.call.fn->loc);
    c->u.call.fn->u.name = S(R, "R.call_tir");
    Sym *out = S(R, "out_sinfo");
    int npos = 0;
    for (int i = 0; i < l->n; i++) {
        Sym *k = l->keys ? l->keys[i] : NULL;
        if (!k && npos++ == 2)
            k = out;
        else if (k && streq(k->str, "out_ty"))
            k = out;
        for (int j = 0; k && j < c->u.call.args.n; j++)
            if (c->u.call.args.keys && c->u.call.args.keys[j] == k)
                return ERR(R, l->items[i]->loc, "R.call_tir is given its out_sinfo twice"), NULL;
        Sx *v = l->items[i];
        if (k == out && v->kind == SX_LIST && v->u.elems.n == 1)
            v = v->u.elems.items[0];
        else if (!k && npos == 2)
            v = call_tir_args(R, v);
        sx_push(syn, &c->u.call.args, k, v);
    }
    return lower_call(R, c, "R.call_tir", lower_rexpr);
}

/* Arguments past a registered operator's own that name its attributes in
 * order (R.clip(x, 0, 6), R.split(x, [3, 7], 1)) become keywords (min=0,
 * max=6), as TVM's printer writes them, so that passes read one form. A
 * call with more arguments than that is left for the operator's check. */
static int positional_attrs(Reader *R, Expr *x)
{
    const char *name = x->u.call.op->str;
    const OpInfo *op = op_find(name);
    int n = x->u.call.nargs, nkw = x->u.call.nkw;
    if (!op || n <= op->nargs)
        return 0;
    int extra = n - op->nargs;
    for (int i = 0; i < extra; i++) {
        if (!op_positional(name, i))
            return 0;
        for (int k = 0; k < nkw; k++)
            if (strcmp(x->u.call.kw[k]->str, op_positional(name, i)) == 0)
                return ERR(R, x->u.call.args[op->nargs + i]->loc, "%s: %s is given twice, in place and by name",
                           name, op_positional(name, i)), -1;
    }
    Sym **kw = arena_array(R->a, (size_t)(extra + nkw), sizeof *kw);
    Expr **args = arena_array(R->a, (size_t)(n + nkw), sizeof *args);
    memcpy(args, x->u.call.args, (size_t)(n + nkw) * sizeof *args);   /* the values stay in order */
    for (int i = 0; i < extra; i++)
        kw[i] = S(R, op_positional(name, i));
    for (int k = 0; k < nkw; k++)
        kw[extra + k] = x->u.call.kw[k];
    x->u.call.args = args;
    x->u.call.kw = kw;
    x->u.call.nargs = op->nargs;
    x->u.call.nkw = extra + nkw;
    return 0;
}

/* tvm.cpu(), tvm.cuda(0), ...: a device, read as R.device(dev_type=N, dev_id=I). */
static Expr *lower_tvm_device(Reader *R, const Sx *e, const char *name)
{
    static const struct { const char *name; int type; } kinds[] = {
        { "tvm.cpu", 1 }, { "tvm.cuda", 2 }, { "tvm.gpu", 2 }, { "tvm.opencl", 4 }, { "tvm.cl", 4 },
        { "tvm.vulkan", 7 }, { "tvm.metal", 8 }, { "tvm.rocm", 10 }, { "tvm.ext_dev", 12 },
        { "tvm.hexagon", 14 }, { "tvm.webgpu", 15 },
    };
    int type = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (streq(name, kinds[i].name))
            type = kinds[i].type;
    if (!type)
        return ERR(R, e->loc, "unknown device '%s'; expected tvm.cpu(), tvm.cuda(), tvm.opencl(), ... or R.device(dev_type=N, dev_id=I)", name), NULL;
    Args a;
    if (split_args(R, e, &a) || want_args(R, e, &a, 0, 1, name))
        return NULL;
    Sx *id = arg(&a, 0, "dev_id");
    if (check_kwargs(R, &a, name))
        return NULL;
    if (id && (id->kind != SX_INT || id->u.ival > INT32_MAX))
        return ERR(R, id->loc, "the device id must be a non-negative integer"), NULL;
    Expr *x = expr_new(R->a, E_CALL, e->loc);
    x->u.call.op = S(R, "R.device");
    x->u.call.nkw = 2;
    x->u.call.args = arena_array(R->a, 2, sizeof(Expr *));
    x->u.call.kw = arena_array(R->a, 2, sizeof(Sym *));
    x->u.call.kw[0] = S(R, "dev_type");
    x->u.call.kw[1] = S(R, "dev_id");
    x->u.call.args[0] = expr_int(R->a, type, DT_VOID, e->loc);
    x->u.call.args[1] = expr_int(R->a, id ? id->u.ival : 0, DT_VOID, id ? id->loc : e->loc);
    return x;
}

/* R.prim_value(3) as 3, in an attribute and in its tuples and lists. */
static void unwrap_prim_values(Expr **v)
{
    Expr *x = *v;
    if (x->kind == E_TUPLE || x->kind == E_LIST) {
        for (int i = 0; i < x->u.list.n; i++)
            unwrap_prim_values(&x->u.list.items[i]);
    } else if (x->kind == E_CALL && !x->u.call.callee && strcmp(x->u.call.op->str, "R.prim_value") == 0 &&
               x->u.call.nargs == 1 && x->u.call.nkw == 0 &&
               (x->u.call.args[0]->kind == E_INT || x->u.call.args[0]->kind == E_FLOAT)) {
        *v = x->u.call.args[0];
    }
}

static Expr *lower_rcall(Reader *R, const Sx *e)
{
    const char *name = call_name(R, e);
    const Sx *fn = e->u.call.fn;
    if (global_name(R, fn)) {
        Expr *callee = lower_global(R, fn);
        Expr *x = callee ? lower_call(R, e, callee->u.global.name->str, lower_rexpr) : NULL;
        if (x)
            x->u.call.callee = callee;
        return x;
    }
    if (!name)
        return ERR(R, e->loc, "cannot call this expression"), NULL;
    if (fn->kind == SX_NAME && fn->u.name->bind_kind == BK_RVAR) {
        /* f(x) where f is a Relax value: a local function, or a function passed in */
        Expr *callee = lower_rexpr(R, fn);
        Expr *x = callee ? lower_call(R, e, name, lower_rexpr) : NULL;
        if (x)
            x->u.call.callee = callee;
        return x;
    }
    if (streq(name, "R.const"))
        return lower_const(R, e);
    if (streq(name, "R.tuple")) {
        Sx *t = tuple_of_call(R, (Sx *)e);
        return t == e ? ERR(R, e->loc, "R.tuple takes its items as positional arguments"), NULL : lower_rexpr(R, t);
    }
    if (streq(name, "R.call_tir") || streq(name, "relax.call_tir"))
        return lower_call_tir(R, e);
    if (strncmp(name, "tvm.", 4) == 0)
        return lower_tvm_device(R, e, name);
    if (is_sinfo_name(name)) {
        Expr *x = expr_new(R->a, E_SINFO, e->loc);
        return (x->u.sinfo = lower_sinfo(R, e)) ? x : NULL;
    }
    if (streq(name, "T.index_map"))
        return index_map_call(R, e);
    DType t;
    if (dtype_of_ctor(name, &t) == 0) {
        Args a;
        if (split_args(R, e, &a) || want_args(R, e, &a, 1, 1, name) || check_kwargs(R, &a, name))
            return NULL;
        Expr *x = typed_literal(R, e, t, a.pos[0]);
        if (!x && !R->src->errors)
            ERR(R, a.pos[0]->loc, "%s takes a number here", name);
        return x;
    }
    if (strncmp(name, "R.", 2) != 0 && strncmp(name, "I.", 2) != 0)
        return ERR(R, e->loc, "unknown function '%s' in a Relax function", name), NULL;
    Expr *x = lower_call(R, e, name, lower_rexpr);
    if (x && positional_attrs(R, x))
        return NULL;
    /* pad_value=R.prim_value(T.float32(0)), begin=(R.prim_value(1),): how
     * TVM prints an operator's attributes, read as the numbers themselves */
    if (x && x->u.call.nkw && op_find(name))
        for (int i = 0; i < x->u.call.nkw; i++)
            unwrap_prim_values(&x->u.call.args[x->u.call.nargs + i]);
    return x;
}

/* Arithmetic on symbolic shape values alone, as in R.shape((n // 2, 4)). */
static int is_dim_expr(Reader *R, const Sx *e)
{
    DType t;
    switch (e->kind) {
    case SX_INT: return 1;
    case SX_NAME: return e->u.name->bind_kind == BK_SYM || e->u.name->bind_kind == BK_META;
    case SX_UNARY: return e->u.bin.op == OP_NEG && is_dim_expr(R, e->u.bin.a);
    case SX_BINOP:
        return (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB || e->u.bin.op == OP_MUL ||
                e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_MOD) &&
               is_dim_expr(R, e->u.bin.a) && is_dim_expr(R, e->u.bin.b);
    case SX_CALL: return dtype_of_ctor(call_name(R, e), &t) == 0 && (t == DT_INT64 || t == DT_INT32);
    default: return 0;
    }
}

/* Infix arithmetic on Relax tensors, read as the operator it stands for:
 * a + b is R.add(a, b), -a is R.negative(a), a < b is R.less(a, b). */
static Expr *lower_infix(Reader *R, const Sx *e)
{
    static const char *const ops[] = {
        [OP_ADD] = "R.add", [OP_SUB] = "R.subtract", [OP_MUL] = "R.multiply", [OP_DIV] = "R.divide",
        [OP_FLOORDIV] = "R.floor_divide", [OP_MOD] = "R.floor_mod", [OP_LT] = "R.less",
        [OP_LE] = "R.less_equal", [OP_GT] = "R.greater", [OP_GE] = "R.greater_equal",
        [OP_EQ] = "R.equal", [OP_NE] = "R.not_equal", [OP_NEG] = "R.negative", [OP_NOT] = "R.logical_not",
        [OP_INVERT] = NULL,
    };
    SxOp op = e->u.bin.op;
    if (e->kind == SX_UNARY && op == OP_POS)
        return lower_rexpr(R, e->u.bin.a);
    if (op == OP_AND || op == OP_OR)
        return ERR(R, e->loc, "'%s' on Relax values has no operator; use R.logical_and or R.logical_or",
                   op == OP_AND ? "and" : "or"), NULL;
    if (!ops[op])   /* the bitwise operators: lopt has no Relax operator for them */
        return ERR(R, e->loc, "bitwise operators (& | ^ ~ << >>) are read in TIR expressions only, not on Relax values"),
               NULL;
    int n = e->kind == SX_UNARY ? 1 : 2;
    Expr *x = expr_new(R->a, E_CALL, e->loc);
    x->u.call.op = S(R, ops[op]);
    x->u.call.nargs = n;
    x->u.call.args = arena_array(R->a, (size_t)n, sizeof(Expr *));
    if (!(x->u.call.args[0] = lower_rexpr(R, e->u.bin.a)))
        return NULL;
    if (n == 2 && !(x->u.call.args[1] = lower_rexpr(R, e->u.bin.b)))
        return NULL;
    return x;
}

static Expr *lower_rexpr(Reader *R, const Sx *e)
{
    switch (e->kind) {
    case SX_NAME: {
        Sym *s = e->u.name;
        if (s->bind_kind == BK_RVAR) {
            Expr *x = expr_new(R->a, E_VAR, e->loc);
            x->u.var = s->bind;
            return x;
        }
        if (s->bind_kind == BK_SYM)
            return lower_dim(R, e);
        if (s->bind_kind == BK_META)
            return meta_use(R, s, e->loc);
        if (global_name(R, e))
            return lower_global(R, e);
        if (streq(s->str, "R.Object") || streq(s->str, "R.Any") || streq(s->str, "R.Tensor") ||
            streq(s->str, "R.Tuple") || streq(s->str, "R.Shape")) {
            Expr *x = expr_new(R->a, E_SINFO, e->loc);
            return (x->u.sinfo = lower_sinfo(R, e)) ? x : NULL;
        }
        if (strchr(s->str, '.'))
            return ERR(R, e->loc, "expected a value, found '%s'", s->str), NULL;
        if (s->bind_kind == BK_LOCAL)
            return ERR(R, e->loc, "'%s' is local to the dataflow block at line %d; list it in R.output to use it here",
                       s->str, ((Var *)s->bind)->loc.line), NULL;
        if (module_find(R->m, s)) {
            Expr *x = expr_new(R->a, E_GLOBAL, e->loc);
            x->u.global.name = s;
            x->u.global.fn = module_find(R->m, s);
            return x;
        }
        return ERR(R, e->loc, "undefined variable '%s'", s->str), NULL;
    }
    case SX_ATTR: {
        const char *d = dotted(R, e);
        return ERR(R, e->loc, "expected a value, found '%s'", d ? d : "an attribute"), NULL;
    }
    case SX_INT: case SX_FLOAT: case SX_STR: case SX_TRUE: case SX_FALSE: case SX_NONE:
        return lower_literal(R, e);
    case SX_UNARY:
    case SX_BINOP: {
        Expr *x = e->kind == SX_UNARY ? lower_literal(R, e) : NULL;
        if (x)
            return x;
        if (is_dim_expr(R, e))
            return lower_dim(R, e);
        return lower_infix(R, e);
    }
    case SX_TUPLE: return lower_seq(R, e, E_TUPLE, lower_rexpr);
    case SX_LIST: return lower_seq(R, e, E_LIST, lower_rexpr);
    case SX_DICT: return lower_dict(R, e, lower_rexpr);
    case SX_CALL: return lower_rcall(R, e);
    case SX_LAMBDA: return lower_index_map(R, e);
    case SX_INDEX: {
        const SxList *it = &e->u.index.items;
        if (is_metadata_ref(R, e))
            return lower_metadata(R, e);
        if (it->n != 1 || it->items[0]->kind != SX_INT || it->items[0]->u.ival > INT32_MAX)
        {
            const char *d = dotted(R, e->u.index.obj);
            if (d && streq(d, "metadata"))
                return ERR(R, e->loc, "the constant's data is in TVM's metadata section, which the text does not hold; "
                                      "print the module with show_meta=True or write the constant as R.const(...)"), NULL;
            return ERR(R, e->loc, "only a tuple item with a constant index, as in t[0], can be taken"), NULL;
        }
        Expr *x = expr_new(R->a, E_GETITEM, e->loc);
        x->u.get.index = (int)it->items[0]->u.ival;
        return (x->u.get.tuple = lower_rexpr(R, e->u.index.obj)) ? x : NULL;
    }
    default: return ERR(R, e->loc, "expected a Relax expression"), NULL;
    }
}

RBlock *new_block(Reader *R, Func *f, int dataflow, Loc loc)
{
    RBlock *b = arena_zalloc(R->a, sizeof *b);
    b->dataflow = dataflow;
    b->loc = loc;
    int cap = f->nblocks;
    vec_push(R->a, &f->blocks, &f->nblocks, &cap, b);
    return b;
}

/* lower_binding's last argument: 1 in a dataflow block, with TOP_BINDING
 * directly in a function's body or dataflow block (bind_top). */
enum { TOP_BINDING = 2 };
static int lower_binding(Reader *R, RBlock *b, int *cap, const St *st, int dataflow);

/* Appends a binding to a block. The arrays a block of a large function
 * outgrows give their pages back: they held as much again as the last. */
static void push_binding(Reader *R, RBlock *b, int *cap, Binding *bd)
{
    Binding **old = b->binds;
    int oldcap = *cap;
    vec_push(R->a, &b->binds, &b->nbinds, cap, bd);
    if (b->binds != old && (size_t)oldcap * sizeof *old >= 65536)
        arena_discard(old, (size_t)oldcap * sizeof *old);
}


/* a, b = value: value bound to a name of its own (unless it is a variable),
 * then a = t[0], b = t[1]. The name joins the targets': a_b. */
static int lower_unpack(Reader *R, RBlock *b, int *cap, const St *st, int dataflow)
{
    const Sx *t = st->u.assign.target, *v = st->u.assign.value;
    if (st->u.assign.annot)
        return ERR(R, st->u.assign.annot->loc, "unpacking a tuple takes no annotation; annotate the tuple's binding");
    for (int i = 0; i < t->u.elems.n; i++)
        if (t->u.elems.items[i]->kind != SX_NAME || strchr(t->u.elems.items[i]->u.name->str, '.'))
            return ERR(R, t->u.elems.items[i]->loc, "a tuple is unpacked into names, as in a, b = t");
    Sx *src = (Sx *)v;
    if (!(v->kind == SX_NAME && v->u.name->bind_kind == BK_RVAR)) {
        char name[256];
        int len = 0;
        for (int i = 0; i < t->u.elems.n && len < 200; i++)
            len += snprintf(name + len, sizeof name - (size_t)len, "%s%s", i ? "_" : "", t->u.elems.items[i]->u.name->str);
        Sym *s = S(R, name);
        for (int k = 1; s->bind_kind != BK_NONE; k++) {
            char alt[280];
            snprintf(alt, sizeof alt, "%s_%d", name, k);
            s = S(R, alt);
        }
        St tmp = *st;
        tmp.u.assign.target = src = sx_new(R->a, SX_NAME, t->loc);
        src->u.name = s;
        if (lower_binding(R, b, cap, &tmp, dataflow))
            return -1;
    }
    for (int i = 0; i < t->u.elems.n; i++) {
        const Sx *ti = t->u.elems.items[i];
        Sx *get = sx_new(R->a, SX_INDEX, ti->loc), *idx = sx_new(R->a, SX_INT, ti->loc);
        get->u.index.obj = src;
        idx->u.ival = i;
        sx_push(R->a, &get->u.index.items, NULL, idx);
        St one = *st;
        one.loc = ti->loc;
        one.u.assign.target = (Sx *)ti;
        one.u.assign.value = get;
        if (lower_binding(R, b, cap, &one, dataflow))
            return -1;
    }
    return 0;
}

static int lower_binding(Reader *R, RBlock *b, int *cap, const St *st, int dataflow)
{
    const Sx *t = st->u.assign.target;
    if (t->kind == SX_TUPLE && t->u.elems.n > 0)
        return lower_unpack(R, b, cap, st, dataflow);
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "a binding defines one name, or unpacks a tuple into names");
    Binding *bd = arena_zalloc(R->a, sizeof *bd);
    bd->loc = st->loc;
    if (!(bd->value = lower_rexpr(R, st->u.assign.value)))
        return -1;
    if (st->u.assign.annot && !(bd->annot = lower_sinfo(R, st->u.assign.annot)))
        return -1;
    if (st->u.assign.value->kind == SX_INDEX && is_metadata_ref(R, st->u.assign.value) &&
        check_metadata_annot(R, bd, st->u.assign.value))
        return -1;
    bd->var = var_read(R->a, t->u.name, t->loc);
    bd->var->dataflow = (dataflow & 1) != 0;
    bd->var->sinfo = bd->annot;
    if (dataflow & TOP_BINDING)
        bind_top(R, t->u.name, BK_RVAR, bd->var);
    else
        bind_sym(R, t->u.name, BK_RVAR, bd->var);
    push_binding(R, b, cap, bd);
    return 0;
}

/* ---- Relax if/else ---- */

static Var *lower_relax_if(Reader *R, RBlock *b, int *cap, const St *st);

/* A branch of an if: bindings, then `y = value` naming the if's value (or a
 * nested if binding y). Its names are local to it. */
static RSeq *lower_branch(Reader *R, const StList *body, Loc at, const Sx **name, const Sx **annot)
{
    RSeq *q = arena_zalloc(R->a, sizeof *q);
    q->loc = body->n ? body->items[0]->loc : at;
    int mark = R->nundo, cap = 0, ok = 1, nblocks_cap = 0;
    RBlock *blk = NULL;
    *name = *annot = NULL;
    for (int i = 0; i < body->n && ok; i++) {
        const St *x = body->items[i];
        int last = i == body->n - 1;
        if (x->kind == ST_PASS && !last)
            continue;
        if (!last && is_decl(R, x)) {
            ok = lower_decl(R, x) == 0;
            continue;
        }
        if (x->kind == ST_IF || (!last && x->kind == ST_ASSIGN)) {
            if (!blk) {
                blk = arena_zalloc(R->a, sizeof *blk);
                blk->loc = x->loc;
                vec_push(R->a, &q->blocks, &q->nblocks, &nblocks_cap, blk);
            }
            if (x->kind == ST_ASSIGN) {
                ok = lower_binding(R, blk, &cap, x, 0) == 0;
                continue;
            }
            Var *v = lower_relax_if(R, blk, &cap, x);
            if (!(ok = v != NULL) || !last)
                continue;
            q->result = expr_new(R->a, E_VAR, x->loc);
            q->result->u.var = v;
            q->at = v->loc;
            /* the nested if binds the name its own branches end with */
            Sx *n = sx_new(R->a, SX_NAME, v->loc);
            n->u.name = v->name;
            *name = n;
            continue;
        }
        if (last && x->kind == ST_ASSIGN && x->u.assign.target->kind == SX_NAME) {
            *name = x->u.assign.target;
            *annot = x->u.assign.annot;
            q->at = x->u.assign.target->loc;
            ok = (q->result = lower_rexpr(R, x->u.assign.value)) != NULL;
            continue;
        }
        ERR(R, x->loc, last ? "a branch of a Relax if ends by binding the if's value, as in y = R.add(x, x)"
                            : "a branch of a Relax if holds bindings and ifs");
        ok = 0;
    }
    if (ok && !body->n)
        ok = ERR(R, at, "an empty branch; a branch of a Relax if ends by binding the if's value") == 0;
    unbind_to(R, mark);
    return ok ? q : NULL;
}

/* if cond: ... y = a  else: ... y = b, as the binding y = if(cond, ...). */
static Var *lower_relax_if(Reader *R, RBlock *b, int *cap, const St *st)
{
    Expr *x = expr_new(R->a, E_IF, st->loc);
    if (!(x->u.rif.cond = lower_rexpr(R, st->u.branch.cond)))
        return NULL;
    if (!st->u.branch.orelse.n)
        return ERR(R, st->loc, "a Relax if needs an else branch: both branches give the if's value"), NULL;
    const Sx *n1, *n2, *a1, *a2;
    if (!(x->u.rif.then = lower_branch(R, &st->u.branch.then, st->loc, &n1, &a1)) ||
        !(x->u.rif.orelse = lower_branch(R, &st->u.branch.orelse, st->loc, &n2, &a2)))
        return NULL;
    if (n1->u.name != n2->u.name)
        return ERR(R, n2->loc, "the branches of an if must end by binding the same name; the first binds '%s', this one '%s'",
                   n1->u.name->str, n2->u.name->str), NULL;
    Binding *bd = arena_zalloc(R->a, sizeof *bd);
    bd->loc = st->loc;
    bd->value = x;
    /* each branch's annotation is checked where it stands; the first is the if's */
    if ((a1 && !(x->u.rif.then->annot = lower_sinfo(R, a1))) || (a2 && !(x->u.rif.orelse->annot = lower_sinfo(R, a2))))
        return NULL;
    bd->annot = a1 ? x->u.rif.then->annot : x->u.rif.orelse->annot;
    bd->var = var_read(R->a, n1->u.name, n1->loc);
    bd->var->sinfo = bd->annot;
    bind_sym(R, n1->u.name, BK_RVAR, bd->var);
    push_binding(R, b, cap, bd);
    return bd->var;
}

/* ---- dataflow blocks ---- */

void df_begin(Reader *R, Ctx *d, Func *f, Loc loc)
{
    d->kind = CTX_DATAFLOW;
    d->f = f;
    d->block = new_block(R, f, 1, loc);
    d->cap = 0;
    d->closed = 0;
    d->undo = R->nundo;
}

static int df_output(Reader *R, RBlock *b, const St *x)
{
    const SxList *l = &x->u.expr->u.call.args;
    b->out_loc = x->loc;
    b->noutputs = l->n;
    b->outputs = arena_array(R->a, (size_t)l->n, sizeof(Var *));
    for (int k = 0; k < l->n; k++) {
        const Sx *o = l->items[k];
        if (o->kind != SX_NAME || (l->keys && l->keys[k]))
            return ERR(R, o->loc, "R.output takes the names of bindings in the block");
        if (o->u.name->bind_kind != BK_RVAR || !((Var *)o->u.name->bind)->dataflow)
            return ERR(R, o->loc, "'%s' is not bound in this dataflow block", o->u.name->str);
        b->outputs[k] = o->u.name->bind;
    }
    return 0;
}

int df_stmt(Reader *R, Ctx *d, const St *x)
{
    if (d->closed)
        return ERR(R, x->loc, "R.output(...) must end the dataflow block");
    if (is_decl(R, x))
        return lower_decl(R, x);
    if (x->kind == ST_ASSIGN)
        return lower_binding(R, d->block, &d->cap, x, 1 | TOP_BINDING);
    if (x->kind == ST_EXPR && is_call_of(R, x->u.expr, "R.output")) {
        d->closed = 1;
        return df_output(R, d->block, x);
    }
    if (x->kind == ST_PASS)
        return 0;
    return ERR(R, x->loc, "a dataflow block holds bindings and ends with R.output(...)");
}

/* Only the outputs stay visible after the block, and they are no longer dataflow values. */
void df_end(Reader *R, Ctx *d)
{
    RBlock *b = d->block;
    unbind_to(R, d->undo);
    for (int k = 0; k < b->nbinds; k++) {
        Var *v = b->binds[k]->var;
        if (v->name->bind == v)
            v->name->bind_kind = BK_LOCAL;   /* bound by bind_top, unbound by unbind_relax */
        else
            bind_sym(R, v->name, BK_LOCAL, v);
    }
    for (int k = 0; k < b->noutputs; k++) {
        b->outputs[k]->dataflow = 0;
        bind_sym(R, b->outputs[k]->name, BK_RVAR, b->outputs[k]);
    }
}

/* ---- Relax functions, a statement at a time ---- */

/* The signature is read once the body's leading `n = T.int64()` declarations
 * are in, so that symbolic dimensions declared there can be used in it. */
int relax_params(Reader *R, Ctx *c)
{
    if (c->params_done)
        return 0;
    c->params_done = 1;
    Func *f = c->f;
    const St *def = c->header;
    f->nparams = def->u.def.nparams;
    f->params = arena_array(R->a, (size_t)f->nparams, sizeof(Var *));
    for (int i = 0; i < f->nparams; i++) {
        SxParam *p = def->u.def.params[i];
        for (int k = 0; k < i; k++)
            if (f->params[k]->name == p->name)
                return ERR(R, p->loc, "duplicate parameter '%s'", p->name->str);
        if (p->name->bind_kind == BK_SYM || p->name->bind_kind == BK_META)
            return ERR(R, p->loc, "parameter '%s' is also declared in the function's body", p->name->str);
        if (!p->annot)
            return ERR(R, p->loc, "parameter '%s' needs struct info, such as R.Tensor((4,), dtype=\"float32\")", p->name->str);
        if (p->dflt)
            return ERR(R, p->dflt->loc, "parameters have no default values");
        Var *v = var_new(R->a, p->name, VAR_RELAX, p->loc);
        if (!(v->sinfo = lower_sinfo(R, p->annot)))
            return -1;
        f->params[i] = v;
        bind_sym(R, p->name, BK_RVAR, v);
    }
    if (def->u.def.ret && !(f->ret = lower_sinfo(R, def->u.def.ret)))
        return -1;
    return 0;
}

int relax_stmt(Reader *R, Ctx *c, const St *st)
{
    Func *f = c->f;
    if (f->result)
        return ERR(R, st->loc, "statement after return");
    if (st->kind == ST_PASS || is_docstring(st))
        return 0;
    if (is_decl(R, st))
        return lower_decl(R, st);
    if (st->kind == ST_ASSIGN && st->u.assign.target->kind == SX_NAME && !st->u.assign.annot &&
        streq(st->u.assign.target->u.name->str, "cls") && st->u.assign.value->kind == SX_NAME) {
        if (st->u.assign.value->u.name != R->m->name)
            return ERR(R, st->u.assign.value->loc, "cls must name the module class '%s'", R->m->name->str);
        return 0;
    }
    if (st->kind == ST_EXPR && is_call_of(R, st->u.expr, "R.func_attr")) {
        if (f->attrs)
            return ERR(R, st->loc, "R.func_attr given twice");
        return (f->attrs = lower_attr_dict(R, st->u.expr, "R.func_attr")) ? 0 : -1;
    }
    if (relax_params(R, c))
        return -1;
    if (st->kind == ST_WITH && is_call_of(R, st->u.with.ctx, "R.dataflow")) {
        Ctx d;
        df_begin(R, &d, f, st->loc);
        for (int i = 0; i < st->u.with.body.n; i++)
            if (df_stmt(R, &d, st->u.with.body.items[i]))
                return -1;
        df_end(R, &d);
        c->block = NULL;
        return 0;
    }
    if (st->kind == ST_ASSIGN || st->kind == ST_IF) {
        if (!c->block) {
            c->block = new_block(R, f, 0, st->loc);
            c->cap = 0;
        }
        if (st->kind == ST_IF)
            return lower_relax_if(R, c->block, &c->cap, st) ? 0 : -1;
        return lower_binding(R, c->block, &c->cap, st, TOP_BINDING);
    }
    if (st->kind == ST_RETURN) {
        if (!st->u.expr)
            return ERR(R, st->loc, "a Relax function returns a value");
        return (f->result = lower_rexpr(R, st->u.expr)) ? 0 : -1;
    }
    if (st->kind == ST_EXPR && is_call_of(R, st->u.expr, "R.output"))
        return ERR(R, st->loc, "R.output(...) is only allowed at the end of a dataflow block");
    if (st->kind == ST_EXPR && st->u.expr->kind == SX_CALL) {
        /* a call made for its effect: bound to _, as in _ = cls.f(x, y) */
        if (!f->is_impure && !func_force_pure(f))
            return ERR(R, st->loc, "a call whose value is not bound has no effect in a pure function; "
                                   "bind it, declare the function @R.function(pure=False), or give it "
                                   "R.func_attr({\"relax.force_pure\": True})");
        if (!c->block) {
            c->block = new_block(R, f, 0, st->loc);
            c->cap = 0;
        }
        St as = *st;
        as.kind = ST_ASSIGN;
        as.u.assign.target = sx_new(R->a, SX_NAME, st->loc);
        as.u.assign.target->u.name = S(R, "_");
        as.u.assign.annot = NULL;
        as.u.assign.value = st->u.expr;
        return lower_binding(R, c->block, &c->cap, &as, TOP_BINDING);
    }
    if (st->kind == ST_WHILE || st->kind == ST_BREAK || st->kind == ST_CONTINUE || st->kind == ST_ASSERT)
        return ERR(R, st->loc, "'%s' is a statement of a prim_func (lowered TIR), not of a Relax function",
                   st->kind == ST_WHILE ? "while" : st->kind == ST_BREAK ? "break" : st->kind == ST_CONTINUE ? "continue" : "assert");
    if (st->kind == ST_DECLARE)
        return ERR(R, st->loc, "a declaration without a value (x: T.float32) is a statement of a prim_func; "
                               "a Relax binding needs '= value'");
    return ERR(R, st->loc, "expected a binding, a dataflow block or return in a Relax function");
}

int relax_end(Reader *R, Ctx *c)
{
    if (relax_params(R, c))
        return -1;
    if (!c->f->result)
        return ERR(R, c->header->loc, "Relax function '%s' has no return", c->f->name->str);
    return 0;
}
