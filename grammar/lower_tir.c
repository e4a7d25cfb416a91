/* Lowers a T.prim_func: TIR expressions and loads, buffers and their
 * declarations, loops, blocks and the other statements, and the values of
 * annotations (attribute dictionaries, T.index_map). Relies on lower_internal.h. */
#include "lower_internal.h"

#include <string.h>

/* ---- TIR expressions ---- */

static Buffer *find_buffer(Reader *R, const Sx *e)
{
    if (e->kind != SX_NAME) {
        ERR(R, e->loc, "expected a buffer name");
        return NULL;
    }
    Sym *s = e->u.name;
    if (s->bind_kind == BK_BUF)
        return s->bind;
    if (s->bind_kind == BK_NONE)
        ERR(R, e->loc, "unknown buffer '%s'", s->str);
    else
        ERR(R, e->loc, "'%s' is not a buffer", s->str);
    return NULL;
}

/* The indices of A[i, j], and their count in *n: none for A[()], as TVM
 * writes a rank-0 buffer's only element. */
static Expr **lower_indices(Reader *R, const SxList *items, int slices, int *n)
{
    *n = items->n;
    if (items->n == 1 && items->items[0]->kind == SX_TUPLE && items->items[0]->u.elems.n == 0)
        *n = 0;
    Expr **idx = arena_array(R->a, (size_t)*n + 1, sizeof(Expr *));
    for (int i = 0; i < *n; i++) {
        const Sx *it = items->items[i];
        if (it->kind == SX_SLICE) {
            if (!slices) {
                ERR(R, it->loc, "a slice is only allowed in T.reads and T.writes regions");
                return NULL;
            }
            if (!it->u.slice.lo || !it->u.slice.hi) {
                ERR(R, it->loc, "a region slice needs both bounds, as in 0:16");
                return NULL;
            }
            Expr *x = expr_new(R->a, E_SLICE, it->loc);
            if (!(x->u.slice.lo = lower_texpr(R, it->u.slice.lo)) || !(x->u.slice.hi = lower_texpr(R, it->u.slice.hi)))
                return NULL;
            idx[i] = x;
        } else if (!(idx[i] = lower_texpr(R, it))) {
            return NULL;
        }
    }
    return idx;
}

static Expr *lower_load(Reader *R, const Sx *e)
{
    Buffer *b = find_buffer(R, e->u.index.obj);
    if (!b)
        return NULL;
    Expr *x = expr_new(R->a, E_LOAD, e->loc);
    x->u.load.buf = b;
    if (!(x->u.load.idx = lower_indices(R, &e->u.index.items, 0, &x->u.load.n)))
        return NULL;
    return x;
}

/* The buffer B of a name B.data or B.access_ptr (member, with its dot), or NULL. */
static Buffer *buffer_of_member(Reader *R, const Sym *s, const char *member)
{
    size_t n = strlen(member);
    if (s->len <= n || strcmp(s->str + s->len - n, member) != 0)
        return NULL;
    Sym *bs = intern(&R->m->names, s->str, s->len - n);
    return bs->bind_kind == BK_BUF ? bs->bind : NULL;
}

/* x, the mutable scalar x read: x[0] of its buffer of one element. */
static Expr *scalar_load(Reader *R, Buffer *b, Loc loc)
{
    Expr *x = expr_new(R->a, E_LOAD, loc);
    x->u.load.buf = b;
    x->u.load.n = 1;
    x->u.load.idx = arena_array(R->a, 2, sizeof(Expr *));
    x->u.load.idx[0] = expr_int(R->a, 0, DT_VOID, loc);
    return x;
}

/* B.data: the handle of B's storage, one variable per buffer. */
static Var *buffer_data(Reader *R, Buffer *b)
{
    if (!b->data) {
        char name[300];
        snprintf(name, sizeof name, "%s.data", b->name->str);
        b->data = var_new(R->a, S(R, name), VAR_TIR, b->loc);
        b->data->dtype = DT_HANDLE;
        b->data->data_of = b;
    }
    return b->data;
}

/* A copy of the node e (its operands shared), at loc. */
static Expr *expr_at(Reader *R, const Expr *e, Loc loc)
{
    Expr *x = expr_new(R->a, e->kind, loc);
    x->u = e->u;
    return x;
}

/* The variable B defines for one of its members, named so (B.elem_offset,
 * B.strides[0]), made once. */
static Expr *buffer_def(Reader *R, Buffer *b, const char *member, DType dt, Loc loc)
{
    char name[300];
    snprintf(name, sizeof name, "%s.%s", b->name->str, member);
    Sym *s = S(R, name);
    Var *v = NULL;
    for (int i = 0; i < b->ndefs && !v; i++)
        if (b->defs[i]->name == s)
            v = b->defs[i];
    if (!v) {
        Var **d = arena_array(R->a, (size_t)b->ndefs + 1, sizeof *d);
        if (b->ndefs)
            memcpy(d, b->defs, (size_t)b->ndefs * sizeof *d);
        v = d[b->ndefs++] = var_new(R->a, s, VAR_TIR, b->loc);
        v->dtype = dt;
        v->data_of = b;
        b->defs = d;
    }
    Expr *x = expr_new(R->a, E_VAR, loc);
    x->u.var = v;
    return x;
}

static const Expr *buffer_extra(const Buffer *b, const char *key)
{
    for (int i = 0; i < b->nextra; i++)
        if (streq(b->extra_keys[i]->str, key))
            return b->extra_vals[i];
    return NULL;
}

/* The dtype of B's indices: of its shape, int32 for a buffer of rank 0. */
static DType index_dtype(const Buffer *b)
{
    DType t = b->ndim ? tir_dtype(b->shape[0]) : DT_INT32;
    return dtype_is_int(t) ? t : DT_INT32;
}

/* B.elem_offset as TVM reads it: elem_offset= as given (a name makes a
 * variable), a variable when offset_factor= is given without it, else 0. */
static Expr *buffer_elem_offset(Reader *R, Buffer *b, Loc loc)
{
    const Expr *e = buffer_extra(b, "elem_offset"), *f = buffer_extra(b, "offset_factor");
    int64_t k;
    if (e && e->kind != E_STR && e->kind != E_NONE)
        return expr_at(R, e, loc);
    if (e || (f && !(expr_const_int(f, &k) == 0 && k == 0)))
        return buffer_def(R, b, "elem_offset", index_dtype(b), loc);
    return expr_int(R->a, 0, index_dtype(b) == DT_INT32 ? DT_VOID : index_dtype(b), loc);
}

/* B.shape[i] and B.strides[i] as TVM reads them: the dimension, the stride
 * as given in strides= (a name makes a variable). */
static Expr *buffer_dim(Reader *R, const Sx *e, Buffer *b, int strides)
{
    const char *what = strides ? "strides" : "shape";
    const SxList *l = &e->u.index.items;
    if (l->n != 1 || l->items[0]->kind != SX_INT)
        return ERR(R, e->loc, "%s.%s takes one constant index, as in %s.%s[0]", b->name->str, what, b->name->str, what), NULL;
    int64_t i = l->items[0]->u.ival;
    if (!strides) {
        if (i < 0 || i >= b->ndim)
            return ERR(R, l->items[0]->loc, "index %lld of %s.shape is out of range: '%s' has %d dimensions",
                       (long long)i, b->name->str, b->name->str, b->ndim), NULL;
        return expr_at(R, b->shape[i], e->loc);
    }
    const Expr *st = buffer_extra(b, "strides");
    if (!st || (st->kind != E_TUPLE && st->kind != E_LIST) || st->u.list.n == 0)
        return ERR(R, e->loc, "'%s' has no strides= (it is compact, and TVM's %s.strides is empty)",
                   b->name->str, b->name->str), NULL;
    if (i < 0 || i >= st->u.list.n)
        return ERR(R, l->items[0]->loc, "index %lld of %s.strides is out of range: '%s' has %d strides",
                   (long long)i, b->name->str, b->name->str, st->u.list.n), NULL;
    const Expr *x = st->u.list.items[i];
    if (x->kind != E_STR)
        return expr_at(R, x, e->loc);
    char member[32];
    snprintf(member, sizeof member, "strides[%d]", (int)i);
    return buffer_def(R, b, member, index_dtype(b), e->loc);
}

/* T.comm_reducer(lambda x, y: x + y, [T.float32(0)]): its combiner is a lambda. */
static Expr *lower_texpr_or_lambda(Reader *R, const Sx *e)
{
    return e->kind == SX_LAMBDA ? lower_index_map(R, e) : lower_texpr(R, e);
}

/* Constructs with a statement of their own, never values inside an expression. */
static int statement_only(const char *name)
{
    static const char *const names[] = {
        "T.alloc_buffer", "T.sblock_alloc_buffer", "T.alloc_local", "T.match_buffer", "T.reads", "T.writes",
        "T.block_attr", "T.sblock_attr", "T.where", "T.init", "T.func_attr", "T.block", "T.sblock",
        "T.grid", "T.serial", "T.parallel", "T.vectorized", "T.unroll", "T.thread_binding",
        "T.index_map", "T.prim_func",
    };
    if (strncmp(name, "T.axis.", 7) == 0)
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (streq(name, names[i]))
            return 1;
    return 0;
}

/* T.bitwise_and(a, b), ..., T.bitwise_not(a): the ops a & b, ..., ~a are
 * (ir.h), read as one whichever way they are written. A dtype= (older TVM
 * printed one) is dropped, as TVM's T.shift_left drops it: the result has
 * its operands' dtype. */
static Expr *lower_bitop(Reader *R, const Sx *e, Args *a, const char *name)
{
    int not = streq(name, BITNOT_NAME), n = not ? 1 : 2;
    const Sx *dt = kwarg(a, "dtype");
    DType t;
    if (want_args(R, e, a, n, n, name) || check_kwargs(R, a, name) || (dt && dtype_arg(R, dt, &t)))
        return NULL;
    Expr *x = expr_new(R->a, not ? E_UNARY : E_BIN, e->loc);
    if (not) {
        x->u.un.op = U_BITNOT;
        return (x->u.un.a = lower_texpr(R, a->pos[0])) ? x : NULL;
    }
    x->u.bin.op = (BinOp)bitop_of_name(name);
    if (!(x->u.bin.a = lower_texpr(R, a->pos[0])) || !(x->u.bin.b = lower_texpr(R, a->pos[1])))
        return NULL;
    return x;
}

static Expr *lower_tcall(Reader *R, const Sx *e)
{
    const char *name = call_name(R, e);
    if (!name)
        return ERR(R, e->loc, "cannot call this expression"), NULL;
    DType t;
    Args a;
    if (split_args(R, e, &a))
        return NULL;
    if (dtype_of_ctor(name, &t) == 0 && t != DT_HANDLE) {
        if (want_args(R, e, &a, 1, 1, name) || check_kwargs(R, &a, name))
            return NULL;
        Expr *x = typed_literal(R, e, t, a.pos[0]);
        if (x)
            return x;
        if (R->src->errors)
            return NULL;
        x = expr_new(R->a, E_CAST, e->loc);
        x->u.cast.dtype = t;
        return (x->u.cast.a = lower_texpr(R, a.pos[0])) ? x : NULL;
    }
    if (streq(name, "T.Cast")) {
        if (want_args(R, e, &a, 2, 2, name) || check_kwargs(R, &a, name))
            return NULL;
        Expr *x = expr_new(R->a, E_CAST, e->loc);
        if (dtype_arg(R, a.pos[0], &x->u.cast.dtype))
            return NULL;
        return (x->u.cast.a = lower_texpr(R, a.pos[1])) ? x : NULL;
    }
    Buffer *b = e->u.call.fn->kind == SX_NAME ? buffer_of_member(R, e->u.call.fn->u.name, ".access_ptr") : NULL;
    if (b) {
        /* B.access_ptr("r"): T.access_ptr(B.data, "r"), printed back as written */
        Expr *x = lower_call(R, e, "T.access_ptr", lower_texpr);
        if (!x)
            return NULL;
        Expr **args = arena_array(R->a, (size_t)(x->u.call.nargs + x->u.call.nkw + 1), sizeof *args);
        args[0] = expr_new(R->a, E_VAR, e->loc);
        args[0]->u.var = buffer_data(R, b);
        memcpy(args + 1, x->u.call.args, (size_t)(x->u.call.nargs + x->u.call.nkw) * sizeof *args);
        x->u.call.args = args;
        x->u.call.nargs++;
        return x;
    }
    if (streq(name, "T.comm_reducer"))
        return lower_call(R, e, name, lower_texpr_or_lambda);
    if (strncmp(name, "T.", 2) != 0 && global_name(R, e->u.call.fn)) {
        /* Module.f(x[i]): a call of a function of the module, kept opaque */
        char buf[256];
        snprintf(buf, sizeof buf, "%s.%s", R->m->name ? R->m->name->str : "Module", global_name(R, e->u.call.fn)->str);
        return lower_call(R, e, S(R, buf)->str, lower_texpr);
    }
    if (strncmp(name, "T.", 2) != 0)
        return ERR(R, e->loc, "unknown function '%s' in a prim_func", name), NULL;
    if (statement_only(name))
        return ERR(R, e->loc, "%s is not a value; it has a place of its own in a prim_func", name), NULL;
    if (bitop_of_name(name) >= 0 || streq(name, BITNOT_NAME))
        return lower_bitop(R, e, &a, name);
    return lower_call(R, e, name, lower_texpr);
}

/* A use of the name of `for iters in T.grid(...)`: the tuple of its loops'
 * variables, each a use of its own. */
static Expr *iters_use(Reader *R, const Sym *s, Loc loc)
{
    const Expr *t = s->bind;
    Expr *x = expr_new(R->a, E_TUPLE, loc);
    x->u.list.n = t->u.list.n;
    x->u.list.items = arena_array(R->a, (size_t)t->u.list.n, sizeof(Expr *));
    for (int i = 0; i < t->u.list.n; i++) {
        x->u.list.items[i] = expr_new(R->a, E_VAR, loc);
        x->u.list.items[i]->u.var = t->u.list.items[i]->u.var;
    }
    return x;
}

/* iters[1]: the second loop's variable */
static Expr *iters_item(Reader *R, const Sx *e)
{
    const Sym *s = e->u.index.obj->u.name;
    const Expr *t = s->bind;
    const SxList *l = &e->u.index.items;
    if (l->n != 1 || l->items[0]->kind != SX_INT || l->items[0]->u.ival < 0 || l->items[0]->u.ival >= t->u.list.n)
        return ERR(R, e->loc, "'%s' holds the variables of %d loops: index it with a constant from 0 to %d, as in %s[0]",
                   s->str, t->u.list.n, t->u.list.n - 1, s->str), NULL;
    Expr *x = expr_new(R->a, E_VAR, e->loc);
    x->u.var = t->u.list.items[l->items[0]->u.ival]->u.var;
    return x;
}

Expr *lower_texpr(Reader *R, const Sx *e)
{
    switch (e->kind) {
    case SX_NAME: {
        Sym *s = e->u.name;
        if (s->bind_kind == BK_TVAR || s->bind_kind == BK_SYM) {
            Expr *x = expr_new(R->a, E_VAR, e->loc);
            x->u.var = s->bind;
            return x;
        }
        if (s->bind_kind == BK_META)
            return meta_use(R, s, e->loc);
        if (s->bind_kind == BK_ITERS)
            return iters_use(R, s, e->loc);
        if (s->bind_kind == BK_ENV)
            return ERR(R, e->loc, "thread '%s' of T.env_thread is used before T.launch_thread(%s, n) launches it",
                       s->str, s->str), NULL;
        Buffer *b = buffer_of_member(R, s, ".data");
        if (b) {
            Expr *x = expr_new(R->a, E_VAR, e->loc);
            x->u.var = buffer_data(R, b);
            return x;
        }
        if ((b = buffer_of_member(R, s, ".elem_offset")))
            return buffer_elem_offset(R, b, e->loc);
        if ((b = buffer_of_member(R, s, ".ndim")))
            return expr_int(R->a, b->ndim, DT_VOID, e->loc);
        if (strchr(s->str, '.'))
            return ERR(R, e->loc, "expected a TIR expression, found '%s'", s->str), NULL;
        if (s->bind_kind == BK_BUF && ((Buffer *)s->bind)->scalar)
            return scalar_load(R, s->bind, e->loc);
        if (s->bind_kind == BK_BUF)
            return ERR(R, e->loc, "buffer '%s' used as a value; index it, as in %s[i]", s->str, s->str), NULL;
        return ERR(R, e->loc, "undefined variable '%s'", s->str), NULL;
    }
    case SX_INT: case SX_FLOAT: case SX_STR: case SX_TRUE: case SX_FALSE:
        return lower_literal(R, e);
    case SX_INDEX: {
        const Sx *o = e->u.index.obj;
        Buffer *b;
        if (o->kind == SX_NAME && o->u.name->bind_kind == BK_ITERS)
            return iters_item(R, e);
        if (o->kind == SX_NAME && (b = buffer_of_member(R, o->u.name, ".shape")))
            return buffer_dim(R, e, b, 0);
        if (o->kind == SX_NAME && (b = buffer_of_member(R, o->u.name, ".strides")))
            return buffer_dim(R, e, b, 1);
        return lower_load(R, e);
    }
    case SX_BINOP:
    case SX_UNARY: return lower_arith(R, e, lower_texpr);
    case SX_CALL: return lower_tcall(R, e);
    case SX_TUPLE: return lower_seq(R, e, E_TUPLE, lower_texpr);
    case SX_LIST: return lower_seq(R, e, E_LIST, lower_texpr);
    default:
        return ERR(R, e->loc, "expected a TIR expression"), NULL;
    }
}

/* ---- index maps and annotation values ---- */

/* lambda i, j: (j, i // 4, i % 4), bare or inside T.index_map(...) */
Expr *lower_index_map(Reader *R, const Sx *lam)
{
    if (lam->kind != SX_LAMBDA)
        return ERR(R, lam->loc, "T.index_map takes a lambda, as in lambda i, j: (j, i)"), NULL;
    Expr *x = expr_new(R->a, E_INDEXMAP, lam->loc);
    int mark = R->nundo;
    const SxList *ps = &lam->u.lambda.params;
    x->u.map.nparams = ps->n;
    x->u.map.params = arena_array(R->a, (size_t)ps->n, sizeof(Var *));
    for (int i = 0; i < ps->n; i++) {
        Sym *s = ps->items[i]->u.name;
        for (int k = 0; k < i; k++)
            if (x->u.map.params[k]->name == s) {
                unbind_to(R, mark);
                return ERR(R, ps->items[i]->loc, "duplicate lambda parameter '%s'", s->str), NULL;
            }
        x->u.map.params[i] = var_new(R->a, s, VAR_TIR, ps->items[i]->loc);
        bind_sym(R, s, BK_TVAR, x->u.map.params[i]);
    }
    const Sx *body = lam->u.lambda.body;
    int tuple = body->kind == SX_TUPLE || body->kind == SX_LIST;
    x->u.map.nout = tuple ? body->u.elems.n : 1;
    x->u.map.out = arena_array(R->a, (size_t)x->u.map.nout, sizeof(Expr *));
    for (int i = 0; i < x->u.map.nout; i++)
        if (!(x->u.map.out[i] = lower_texpr(R, tuple ? body->u.elems.items[i] : body))) {
            unbind_to(R, mark);
            return NULL;
        }
    unbind_to(R, mark);
    return x;
}

/* Attribute dictionaries and other annotation values: literals, lists, dicts. */

/* T.index_map(lambda i, j: (j, i)), with TVM's index_dtype="int32" or
 * "int64": lopt's index arithmetic is 64-bit whichever is named. */
Expr *index_map_call(Reader *R, const Sx *e)
{
    Args a;
    if (split_args(R, e, &a) || want_args(R, e, &a, 1, 1, "T.index_map"))
        return NULL;
    Sx *dt = kwarg(&a, "index_dtype");
    if (check_kwargs(R, &a, "T.index_map"))
        return NULL;
    if (dt) {
        const char *s = string_arg(R, dt, "index_dtype");
        if (!s)
            return NULL;
        if (strcmp(s, "int32") != 0 && strcmp(s, "int64") != 0)
            return ERR(R, dt->loc, "index_dtype must be \"int32\" or \"int64\""), NULL;
    }
    return lower_index_map(R, a.pos[0]);
}

Expr *lower_attr_value(Reader *R, const Sx *e)
{
    switch (e->kind) {
    case SX_LIST: return lower_seq(R, e, E_LIST, lower_attr_value);
    case SX_TUPLE: return lower_seq(R, e, E_TUPLE, lower_attr_value);
    case SX_DICT: return lower_dict(R, e, lower_attr_value);
    default: break;
    }
    Expr *x = lower_literal(R, e);
    if (x)
        return x;
    /* an index map is a value in attributes: {"index_map": T.index_map(...)} */
    if (e->kind == SX_CALL && call_name(R, e) && strcmp(call_name(R, e), "T.index_map") == 0)
        return index_map_call(R, e);
    /* T.target({"kind": "llvm", "keys": ["cpu"]}): TVM builds a target from
     * a dictionary as from a name; kept as written, as T.target("llvm") is */
    if (e->kind == SX_CALL && call_name(R, e) && streq(call_name(R, e), "T.target"))
        return lower_call(R, e, call_name(R, e), lower_attr_value);
    if (e->kind == SX_CALL && dotted(R, e->u.call.fn) && strncmp(call_name(R, e), "T.", 2) == 0)
        return lower_texpr(R, e);
    if (e->kind == SX_CALL && call_name(R, e))
        return lower_call(R, e, call_name(R, e), lower_attr_value);
    return ERR(R, e->loc, "expected a constant value"), NULL;
}

Expr *lower_attr_dict(Reader *R, const Sx *call, const char *what)
{
    Args a;
    if (split_args(R, call, &a) || want_args(R, call, &a, 1, 1, what) || check_kwargs(R, &a, what))
        return NULL;
    if (a.pos[0]->kind != SX_DICT)
        return ERR(R, a.pos[0]->loc, "%s takes a dictionary, as in {\"key\": value}", what), NULL;
    return lower_dict(R, a.pos[0], lower_attr_value);
}

/* ---- buffers ---- */

/* A buffer dimension: a TIR expression; TIR has no string dimensions. */
static Expr *lower_tdim(Reader *R, const Sx *e)
{
    if (e->kind == SX_STR)
        return ERR(R, e->loc, "a buffer dimension is an expression, not a string; declare %s = T.int64() first in the body and write %s",
                   e->u.str.s, e->u.str.s), NULL;
    return lower_texpr(R, e);
}

/* Shape, dtype and options shared by T.Buffer, T.alloc_buffer and T.match_buffer. */
static Buffer *lower_buffer(Reader *R, Sym *name, Loc loc, BufKind kind, Args *a, int first, const char *what)
{
    Buffer *b = arena_zalloc(R->a, sizeof *b);
    b->name = name;
    b->loc = loc;
    b->kind = kind;
    b->dtype = DT_FLOAT32;
    Sx *shape = arg(a, first, "shape");
    if (!shape)
        return ERR(R, loc, "%s needs a shape", what), NULL;
    if (!(b->shape = lower_shape(R, shape, &b->ndim, lower_tdim)))
        return NULL;
    Sx *dt = arg(a, first + 1, "dtype");
    if (dt && dtype_arg(R, dt, &b->dtype))
        return NULL;
    if (a->npos > first + 2)
        return ERR(R, a->pos[first + 2]->loc, "unexpected argument to %s; use keywords for options", what), NULL;
    Sx *sc = kwarg(a, "scope"), *lay = kwarg(a, "layout");
    /* TVM writes layout=None for a buffer with the default (row-major) layout */
    if (lay && lay->kind != SX_NONE)
        return ERR(R, lay->loc, "layout= of %s must be None (the default, row-major layout)", what), NULL;
    b->layout_none = lay != NULL;
    if (sc && !(b->scope = string_arg(R, sc, "scope")))
        return NULL;
    if (b->scope && streq(b->scope, "global"))
        b->scope = NULL;
    Sx *sep = kwarg(a, "axis_separators");
    if (sep) {
        if (sep->kind != SX_LIST && sep->kind != SX_TUPLE)
            return ERR(R, sep->loc, "axis_separators must be a list of integers"), NULL;
        b->nsep = sep->u.elems.n;
        b->axis_sep = arena_array(R->a, (size_t)b->nsep, sizeof(int));
        for (int i = 0; i < b->nsep; i++) {
            Sx *it = sep->u.elems.items[i];
            if (it->kind != SX_INT || it->u.ival < 1 || it->u.ival >= b->ndim || (i && it->u.ival <= b->axis_sep[i - 1]))
                return ERR(R, it->loc, "axis separators must increase and lie between 1 and %d", b->ndim - 1), NULL;
            b->axis_sep[i] = (int)it->u.ival;
        }
    }
    static const char *const extra[] = { "data", "strides", "elem_offset", "align", "offset_factor", "buffer_type" };
    /* what TVM's T.alloc_buffer takes besides: kept, and printed back, as the others */
    static const char *const alloc_extra[] = { "allocated_addr", "annotations" };
    int alloc = streq(what, "T.alloc_buffer") || streq(what, "T.sblock_alloc_buffer");
    b->extra_keys = arena_array(R->a, (size_t)a->nkw, sizeof(Sym *));
    b->extra_vals = arena_array(R->a, (size_t)a->nkw, sizeof(Expr *));
    for (int i = 0; i < a->nkw; i++) {
        if (a->used[i])
            continue;
        int ok = 0;
        for (size_t j = 0; j < sizeof extra / sizeof extra[0]; j++)
            ok |= streq(a->kw[i]->str, extra[j]);
        for (size_t j = 0; alloc && j < sizeof alloc_extra / sizeof alloc_extra[0]; j++)
            ok |= streq(a->kw[i]->str, alloc_extra[j]);
        if (!ok)
            return ERR(R, a->kwv[i]->loc, "unknown keyword argument '%s' to %s", a->kw[i]->str, what), NULL;
        /* strides and offsets are index expressions: symbolic ones name variables */
        const Sx *v = a->kwv[i];
        int index = streq(a->kw[i]->str, "strides") || streq(a->kw[i]->str, "elem_offset");
        if (index && (v->kind == SX_LIST || v->kind == SX_TUPLE))
            b->extra_vals[b->nextra] = lower_seq(R, v, v->kind == SX_LIST ? E_LIST : E_TUPLE, lower_texpr);
        else if (index && v->kind != SX_NONE)
            b->extra_vals[b->nextra] = lower_texpr(R, v);
        else
            b->extra_vals[b->nextra] = lower_attr_value(R, v);
        if (!b->extra_vals[b->nextra])
            return NULL;
        b->extra_keys[b->nextra++] = a->kw[i];
        a->used[i] = 1;
    }
    return b;
}

/* T.Buffer((4, 8), "float32") or the older T.Buffer[(4, 8), "float32"]. */
static Buffer *lower_buffer_type(Reader *R, Sym *name, Loc loc, const Sx *annot)
{
    Args a;
    if (annot->kind == SX_INDEX) {
        const char *d = dotted(R, annot->u.index.obj);
        if (!d || strcmp(d, "T.Buffer") != 0)
            return NULL;
        memset(&a, 0, sizeof a);
        for (int i = 0; i < annot->u.index.items.n && i < 16; i++)
            a.pos[a.npos++] = annot->u.index.items.items[i];
        return lower_buffer(R, name, loc, BUF_PARAM, &a, 0, "T.Buffer");
    }
    if (split_args(R, annot, &a))
        return NULL;
    return lower_buffer(R, name, loc, BUF_PARAM, &a, 0, "T.Buffer");
}

/* ---- TIR statements ---- */

static Stmt *lower_tstmts(Reader *R, const StList *l);
static Stmt *lower_tstmt(Reader *R, const St *st);

static Stmt *seq_of(Reader *R, Loc loc, Stmt **items, int n)
{
    if (n == 1)
        return items[0];
    Stmt *s = stmt_new(R->a, S_SEQ, loc);
    s->u.seq.items = items;
    s->u.seq.n = n;
    return s;
}

static int loop_kind(const char *name, ForKind *fk)
{
    static const struct { const char *name; ForKind fk; } kinds[] = {
        { "range", FOR_SERIAL }, { "T.serial", FOR_SERIAL }, { "T.grid", FOR_SERIAL },
        { "T.parallel", FOR_PARALLEL }, { "T.vectorized", FOR_VECTORIZED },
        { "T.unroll", FOR_UNROLLED }, { "T.thread_binding", FOR_THREAD },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (streq(name, kinds[i].name)) {
            *fk = kinds[i].fk;
            return 0;
        }
    return -1;
}

static Stmt *loop_of(Reader *R, Sym *name, Loc at, ForKind fk, Expr *min, Expr *extent, Loc loc)
{
    Stmt *s = stmt_new(R->a, S_FOR, loc);
    Var *v = var_new(R->a, name, VAR_TIR, at);
    v->dtype = tir_dtype(extent);
    v->loop = s;
    s->u.loop.var = v;
    s->u.loop.fk = fk;
    s->u.loop.min = min;
    s->u.loop.extent = extent;
    bind_sym(R, name, BK_TVAR, v);
    return s;
}

static Stmt *make_loop(Reader *R, const Sx *target, ForKind fk, Expr *min, Expr *extent, Loc loc)
{
    if (target->kind != SX_NAME)
        return ERR(R, target->loc, "a loop variable must be a name"), NULL;
    return loop_of(R, target->u.name, target->loc, fk, min, extent, loc);
}

/* for iters in T.grid(4, 8): as TVM reads it, the loops' variables are
 * iters_0 and iters_1 (the names lopt prints them by, as TVM does, and
 * bound too), and iters names their tuple. */
static Stmt *iters_loop(Reader *R, const Sx *tg, int i, int n, Expr *min, Expr *extent, Loc loc, Expr **tuple)
{
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s_%d", tg->u.name->str, i) >= (int)sizeof buf)
        return ERR(R, tg->loc, "loop variable name too long"), NULL;
    Stmt *s = loop_of(R, S(R, buf), tg->loc, FOR_SERIAL, min, extent, loc);
    if (!*tuple) {
        *tuple = expr_new(R->a, E_TUPLE, tg->loc);
        (*tuple)->u.list.n = n;
        (*tuple)->u.list.items = arena_array(R->a, (size_t)n, sizeof(Expr *));
    }
    Expr *v = expr_new(R->a, E_VAR, tg->loc);
    v->u.var = s->u.loop.var;
    (*tuple)->u.list.items[i] = v;
    if (i == n - 1)
        bind_sym(R, tg->u.name, BK_ITERS, *tuple);
    return s;
}

/* The extents of T.grid(16, n, *B.shape, (1, 8)): B's dimensions in place
 * of *B.shape; a pair is a start and an extent, as TVM reads it (the loop
 * from 1 to 9). The starts go to *mins, 0 but for pairs. */
static Expr **grid_extents(Reader *R, const Sx *call, int *n, Expr ***mins)
{
    const SxList *l = &call->u.call.args;
    Expr **ext = NULL;
    int cap = 0, nmin = 0, capmin = 0;
    *n = 0;
    *mins = NULL;
    for (int i = 0; i < l->n; i++) {
        const Sx *x = l->items[i];
        if (l->keys && l->keys[i])
            return ERR(R, x->loc, "unknown keyword argument '%s' to T.grid", l->keys[i]->str), NULL;
        if (x->kind == SX_TUPLE && x->u.elems.n != 2)
            return ERR(R, x->loc, "a pair in T.grid is a start and an extent, as in (1, 8)"), NULL;
        if (x->kind != SX_STAR) {
            int pair = x->kind == SX_TUPLE;
            Expr *lo = pair ? lower_texpr(R, x->u.elems.items[0]) : expr_int(R->a, 0, DT_VOID, call->loc);
            Expr *e = lo ? lower_texpr(R, pair ? x->u.elems.items[1] : x) : NULL;
            if (!e)
                return NULL;
            vec_push(R->a, &ext, n, &cap, e);
            vec_push(R->a, mins, &nmin, &capmin, lo);
            continue;
        }
        const char *d = x->u.bin.a->kind == SX_NAME ? x->u.bin.a->u.name->str : NULL;
        size_t len = d ? strlen(d) : 0;
        Sym *bs = len > 6 && strcmp(d + len - 6, ".shape") == 0 ? intern(&R->m->names, d, len - 6) : NULL;
        if (!bs || bs->bind_kind != BK_BUF)
            return ERR(R, x->loc, "T.grid unpacks a buffer's shape, as in *B.shape"), NULL;
        const Buffer *b = bs->bind;
        for (int k = 0; k < b->ndim; k++) {
            Expr *e = expr_new(R->a, b->shape[k]->kind, x->loc);
            e->u = b->shape[k]->u;
            vec_push(R->a, &ext, n, &cap, e);
            vec_push(R->a, mins, &nmin, &capmin, expr_int(R->a, 0, DT_VOID, call->loc));
        }
    }
    return ext;
}

/* A thread loop over body, launched by one of
 *     v = T.launch_thread("threadIdx.x", 64)          (the rest of the statements)
 *     T.launch_thread(v, 64), v = T.env_thread(...)   (the rest of the statements)
 *     with T.launch_thread(v, 64):                    (the with's body)
 *     with T.launch_thread("threadIdx.x", 64) as v:
 * call is the T.launch_thread call; target the variable's name when the
 * call's first argument is the thread's name, or NULL. */
static Stmt *lower_launch(Reader *R, const Sx *call, const Sx *target, const StList *body, Loc loc)
{
    Args a;
    if (split_args(R, call, &a) || want_args(R, call, &a, 2, 2, "T.launch_thread") ||
        check_kwargs(R, &a, "T.launch_thread"))
        return NULL;
    const Sx *t = target;
    const char *thread;
    Sx named;
    if (a.pos[0]->kind == SX_NAME && a.pos[0]->u.name->bind_kind == BK_ENV) {
        if (target)
            return ERR(R, target->loc, "T.launch_thread(%s, n) launches the variable of T.env_thread; it takes no other name",
                       a.pos[0]->u.name->str), NULL;
        thread = a.pos[0]->u.name->bind;
        t = a.pos[0];
    } else if (a.pos[0]->kind == SX_NAME) {
        return ERR(R, a.pos[0]->loc, "'%s' is not a thread of T.env_thread; write %s = T.env_thread(\"threadIdx.x\") first",
                   a.pos[0]->u.name->str, a.pos[0]->u.name->str), NULL;
    } else {
        thread = string_arg(R, a.pos[0], "the thread of T.launch_thread");
        if (!thread)
            return NULL;
        if (!t) {   /* unnamed: the variable takes the thread's name, threadIdx_x */
            char buf[64];
            size_t n = strlen(thread);
            if (n >= sizeof buf)
                n = sizeof buf - 1;
            for (size_t i = 0; i < n; i++)
                buf[i] = thread[i] == '.' ? '_' : thread[i];
            named = *a.pos[0];
            named.kind = SX_NAME;
            named.u.name = intern(&R->m->names, buf, n);
            t = &named;
        }
    }
    Expr *ext = lower_texpr(R, a.pos[1]);
    if (!ext)
        return NULL;
    int mark = R->nundo;
    Stmt *s = make_loop(R, t, FOR_THREAD, expr_int(R->a, 0, DT_VOID, loc), ext, loc);
    if (!s)
        return NULL;
    s->u.loop.thread = thread;
    s->u.loop.launch = 1;
    s->u.loop.body = lower_tstmts(R, body);
    unbind_to(R, mark);
    return s->u.loop.body ? s : NULL;
}

/* v = T.env_thread("threadIdx.x"): v names that thread until a
 * T.launch_thread(v, n) launches it. */
static int lower_env_thread(Reader *R, const St *st)
{
    Args a;
    const Sx *t = st->u.assign.target, *call = st->u.assign.value;
    if (split_args(R, call, &a) || want_args(R, call, &a, 1, 1, "T.env_thread") || check_kwargs(R, &a, "T.env_thread"))
        return -1;
    const char *thread = string_arg(R, a.pos[0], "the thread of T.env_thread");
    if (!thread)
        return -1;
    if (t->kind != SX_NAME || strchr(t->u.name->str, '.'))
        return ERR(R, t->loc, "the variable of T.env_thread must be a name");
    bind_sym(R, t->u.name, BK_ENV, arena_strndup(R->a, thread, strlen(thread)));
    return 0;
}

/* T.serial(0, 16, annotations={...}, step=2, dtype="int64"): what every
 * loop kind takes besides its range, given or NULL. */
static int loop_keywords(Reader *R, Stmt *s, const Sx *an, const Sx *step, const Sx *dt, const char *name)
{
    if (an && an->kind != SX_NONE) {
        if (an->kind != SX_DICT)
            return ERR(R, an->loc, "annotations= of %s is a dictionary, as in {\"pragma_unroll_explicit\": 1}", name);
        if (!(s->u.loop.annot = lower_dict(R, an, lower_attr_value)))
            return -1;
        if (s->u.loop.annot->u.dict.n == 0)
            s->u.loop.annot = NULL;
    }
    if (step && step->kind != SX_NONE) {
        int64_t one;
        if (!(s->u.loop.step = lower_texpr(R, step)))
            return -1;
        if (expr_const_int(s->u.loop.step, &one) == 0 && one == 1)
            s->u.loop.step = NULL;
    }
    if (dt) {
        DType t;
        if (dtype_arg(R, dt, &t))
            return -1;
        if (!dtype_is_int(t))
            return ERR(R, dt->loc, "dtype= of %s is an integer dtype", name);
        /* the loop's bounds are of that dtype, and so is its variable */
        Expr *b[2] = { s->u.loop.min, s->u.loop.extent };
        for (int i = 0; i < 2; i++)
            if (b[i]->kind == E_INT && b[i]->u.i.dtype == DT_VOID)
                b[i]->u.i.dtype = t;
        s->u.loop.var->dtype = t;
    }
    return 0;
}

/* unroll= of T.serial, as TVM reads it: an annotation, True or a positive
 * count "pragma_unroll", False "disable_unroll" (True). */
static int loop_unroll(Reader *R, Stmt *s, const Sx *un, const char *name)
{
    if (!un || un->kind == SX_NONE)
        return 0;
    if (un->kind != SX_TRUE && un->kind != SX_FALSE && !(un->kind == SX_INT && un->u.ival >= 1))
        return ERR(R, un->loc, "unroll= of %s is True, False or a positive integer", name);
    const char *key = un->kind == SX_FALSE ? "disable_unroll" : "pragma_unroll";
    Expr *v = expr_new(R->a, un->kind == SX_INT ? E_INT : E_BOOL, un->loc);
    if (un->kind == SX_INT)
        v->u.i.v = un->u.ival;
    else
        v->u.b = 1;
    Expr *k = expr_new(R->a, E_STR, un->loc);
    k->u.str.s = key;
    k->u.str.len = (int)strlen(key);
    Expr *d = s->u.loop.annot;
    int n = d ? d->u.dict.n : 0;
    for (int i = 0; i < n; i++)
        if (d->u.dict.keys[i]->kind == E_STR && d->u.dict.keys[i]->u.str.len == k->u.str.len &&
            memcmp(d->u.dict.keys[i]->u.str.s, key, (size_t)k->u.str.len) == 0)
            return d->u.dict.vals[i] = v, 0;   /* unroll= wins, as in TVM */
    Expr *x = expr_new(R->a, E_DICT, un->loc);
    x->u.dict.n = n + 1;
    x->u.dict.keys = arena_array(R->a, (size_t)n + 1, sizeof(Expr *));
    x->u.dict.vals = arena_array(R->a, (size_t)n + 1, sizeof(Expr *));
    for (int i = 0; i < n; i++) {
        x->u.dict.keys[i] = d->u.dict.keys[i];
        x->u.dict.vals[i] = d->u.dict.vals[i];
    }
    x->u.dict.keys[n] = k;
    x->u.dict.vals[n] = v;
    s->u.loop.annot = x;
    return 0;
}

static Stmt *lower_for(Reader *R, const St *st)
{
    const Sx *it = st->u.loop.iter, *tg = st->u.loop.target;
    const char *name = call_name(R, it);
    ForKind fk;
    if (!name || loop_kind(name, &fk))
        return ERR(R, it->loc, "expected range(...), T.grid(...), T.serial(...), T.parallel(...), T.vectorized(...), T.unroll(...) or T.thread_binding(...)"), NULL;
    Args a;
    int mark = R->nundo;
    Stmt *outer = NULL, *inner = NULL;
    if (streq(name, "T.grid")) {
        int nt = tg->kind == SX_TUPLE ? tg->u.elems.n : 1, next;
        Expr **mins, **exts = grid_extents(R, it, &next, &mins);
        if (!exts && R->src->errors)
            return NULL;
        Expr *tuple = NULL;
        int one = tg->kind == SX_NAME && next > 1;   /* for iters in T.grid(4, 8) */
        if (one)
            nt = next;
        if (next != nt)
            return ERR(R, it->loc, "T.grid has %d extent%s for %d loop variable%s", next, next == 1 ? "" : "s", nt, nt == 1 ? "" : "s"), NULL;
        for (int i = 0; i < nt; i++) {
            Expr *ext = exts[i];
            Stmt *s = one ? iters_loop(R, tg, i, nt, mins[i], ext, st->loc, &tuple)
                          : make_loop(R, nt == 1 ? tg : tg->u.elems.items[i], FOR_SERIAL, mins[i], ext, st->loc);
            if (!s)
                return NULL;
            if (inner)
                inner->u.loop.body = s;
            else
                outer = s;
            inner = s;
        }
    } else {
        if (split_args(R, it, &a))
            return NULL;
        if (tg->kind != SX_NAME)
            return ERR(R, tg->loc, "%s defines one loop variable", name), NULL;
        Sx *thread = fk == FOR_THREAD ? kwarg(&a, "thread") : NULL;
        if (fk == FOR_THREAD && !thread && a.npos >= 2 && a.pos[a.npos - 1]->kind == SX_STR)
            thread = a.pos[--a.npos];   /* T.thread_binding(128, "threadIdx.x") */
        if (fk == FOR_THREAD && !thread)
            return ERR(R, it->loc, "T.thread_binding needs thread=\"...\""), NULL;
        Sx *an = kwarg(&a, "annotations"), *step = kwarg(&a, "step"), *dt = kwarg(&a, "dtype");
        Sx *un = fk == FOR_SERIAL ? kwarg(&a, "unroll") : NULL;   /* T.serial's, and range's (TVM's T.serial) */
        if (streq(name, "range") && a.npos == 3 && !step)
            step = a.pos[--a.npos];   /* range(lo, hi, step), as Python writes it */
        if (want_args(R, it, &a, 1, 2, name) || check_kwargs(R, &a, name))
            return NULL;
        Expr *lo = a.npos == 2 ? lower_texpr(R, a.pos[0]) : expr_int(R->a, 0, DT_VOID, it->loc);
        Expr *hi = lower_texpr(R, a.pos[a.npos - 1]);
        if (!lo || !hi)
            return NULL;
        Expr *ext = hi;
        int64_t l, h;
        if (a.npos == 2 && expr_const_int(lo, &l) == 0 && expr_const_int(hi, &h) == 0) {
            int64_t d;
            if (__builtin_sub_overflow(h, l, &d))
                return ERR(R, it->loc, "the loop from %lld to %lld has more iterations than an int64 counts", (long long)l, (long long)h), NULL;
            ext = expr_int(R->a, d, hi->u.i.dtype, hi->loc);
        } else if (a.npos == 2 && !(expr_const_int(lo, &l) == 0 && l == 0)) {
            ext = expr_new(R->a, E_BIN, hi->loc);
            ext->u.bin.op = B_SUB;
            ext->u.bin.a = hi;
            ext->u.bin.b = lo;
        }
        outer = inner = make_loop(R, tg, fk, lo, ext, st->loc);
        if (!outer)
            return NULL;
        if (thread && !(outer->u.loop.thread = string_arg(R, thread, "thread")))
            return NULL;
        if (loop_keywords(R, outer, an, step, dt, name) || loop_unroll(R, outer, un, name))
            return NULL;
    }
    Stmt *body = lower_tstmts(R, &st->u.loop.body);
    unbind_to(R, mark);
    if (!body)
        return NULL;
    inner->u.loop.body = body;
    return outer;
}

static int lower_region(Reader *R, const Sx *e, Region **out, int *n, int *cap)
{
    if (e->kind == SX_LIST || e->kind == SX_TUPLE) {
        for (int i = 0; i < e->u.elems.n; i++)
            if (lower_region(R, e->u.elems.items[i], out, n, cap))
                return -1;
        return 0;
    }
    if (e->kind != SX_INDEX)
        return ERR(R, e->loc, "expected a buffer region, as in A[i, 0:4]");
    Buffer *b = find_buffer(R, e->u.index.obj);
    if (!b)
        return -1;
    int nidx;
    Expr **idx = lower_indices(R, &e->u.index.items, 1, &nidx);
    if (!idx)
        return -1;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        Region *g = arena_array(R->a, (size_t)*cap, sizeof *g);
        if (*n)
            memcpy(g, *out, (size_t)*n * sizeof *g);
        *out = g;
    }
    Region *r = &(*out)[(*n)++];
    r->buf = b;
    r->idx = idx;
    r->n = nidx;
    r->loc = e->loc;
    return 0;
}

static int lower_regions(Reader *R, const Sx *call, Region **out, int *n)
{
    int cap = 0;
    *n = 0;
    const SxList *l = &call->u.call.args;
    for (int i = 0; i < l->n; i++) {
        if (l->keys && l->keys[i])
            return ERR(R, l->items[i]->loc, "unexpected keyword argument");
        if (lower_region(R, l->items[i], out, n, &cap))
            return -1;
    }
    return 0;
}

static int new_iter(Reader *R, Block *b, int *cap, const Sx *name, char kind, Expr *dom, Expr *binding)
{
    if (name->kind != SX_NAME)
        return ERR(R, name->loc, "a block iterator must be a name");
    if (b->niters == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        BlockIter *g = arena_array(R->a, (size_t)*cap, sizeof *g);
        if (b->niters)
            memcpy(g, b->iters, (size_t)b->niters * sizeof *g);
        b->iters = g;
    }
    BlockIter *it = &b->iters[b->niters++];
    it->var = var_new(R->a, name->u.name, VAR_TIR, name->loc);
    it->var->dtype = tir_dtype(binding);
    it->kind = kind;
    it->dom = dom;
    it->binding = binding;
    it->loc = name->loc;
    return 0;
}

static int is_zero_const(const Expr *e)
{
    int64_t v;
    return expr_const_int(e, &v) == 0 && v == 0;
}

/* vi, vj = T.axis.remap("SS", [i, j]) */
static int lower_remap(Reader *R, Block *b, int *cap, const St *st, const Sx *call)
{
    Args a;
    if (split_args(R, call, &a) || want_args(R, call, &a, 2, 2, "T.axis.remap") || check_kwargs(R, &a, "T.axis.remap"))
        return -1;
    const char *kinds = string_arg(R, a.pos[0], "the iterator kinds of T.axis.remap");
    if (!kinds)
        return -1;
    const Sx *vars = a.pos[1], *tg = st->u.assign.target;
    /* T.axis.remap("SS", iters), iters the name of for iters in T.grid(...) */
    const Expr *iters = vars->kind == SX_NAME && vars->u.name->bind_kind == BK_ITERS ? vars->u.name->bind : NULL;
    if (vars->kind != SX_LIST && vars->kind != SX_TUPLE && !iters)
        return ERR(R, vars->loc, "T.axis.remap takes a list of loop variables");
    int n = iters ? iters->u.list.n : vars->u.elems.n, nt = tg->kind == SX_TUPLE ? tg->u.elems.n : 1;
    if ((int)strlen(kinds) != n || nt != n)
        return ERR(R, call->loc, "T.axis.remap has %d kinds, %d loop variables and %d targets; they must agree", (int)strlen(kinds), n, nt);
    for (int i = 0; i < n; i++) {
        if (kinds[i] != 'S' && kinds[i] != 'R')
            return ERR(R, a.pos[0]->loc, "unknown iterator kind '%c'; expected 'S' (spatial) or 'R' (reduce)", kinds[i]);
        const Sx *lv = iters ? vars : vars->u.elems.items[i];
        Expr *binding = iters ? expr_copy(R->a, iters->u.list.items[i]) : lower_texpr(R, lv);
        if (!binding)
            return -1;
        binding->loc = lv->loc;
        if (binding->kind != E_VAR || !binding->u.var->loop)
            return lv->kind == SX_NAME ? ERR(R, lv->loc, "T.axis.remap binds loop variables; '%s' is not one", lv->u.name->str)
                                       : ERR(R, lv->loc, "T.axis.remap binds loop variables; bind an expression with T.axis.spatial(extent, value)");
        /* the domain covers the loop's range: [0, min + extent) when the loop
         * starts past 0, as T.serial(1, 3) does */
        const Stmt *loop = binding->u.var->loop;
        Expr *dom = loop->u.loop.extent;
        int64_t lo, ext;
        if (!is_zero_const(loop->u.loop.min)) {
            int64_t end;
            if (expr_const_int(loop->u.loop.min, &lo) == 0 && expr_const_int(dom, &ext) == 0 &&
                !__builtin_add_overflow(lo, ext, &end)) {
                dom = expr_int(R->a, end, loop->u.loop.extent->kind == E_INT ? loop->u.loop.extent->u.i.dtype : DT_VOID, lv->loc);
            } else {
                dom = expr_new(R->a, E_BIN, lv->loc);
                dom->u.bin.op = B_ADD;
                dom->u.bin.a = loop->u.loop.min;
                dom->u.bin.b = loop->u.loop.extent;
            }
        }
        if (new_iter(R, b, cap, nt == 1 ? tg : tg->u.elems.items[i], kinds[i], dom, binding))
            return -1;
    }
    return 0;
}

static int lower_axis(Reader *R, Block *b, int *cap, const St *st, const Sx *call, const char *name)
{
    char kind = streq(name, "T.axis.spatial") || streq(name, "T.axis.S") ? 'S'
              : streq(name, "T.axis.reduce") || streq(name, "T.axis.R") ? 'R'
              : streq(name, "T.axis.opaque") ? 'O' : 0;
    if (!kind)
        return ERR(R, call->loc, "unknown block iterator '%s'; expected T.axis.spatial, T.axis.reduce, T.axis.opaque or T.axis.remap", name);
    Args a;
    if (split_args(R, call, &a) || want_args(R, call, &a, 2, 2, name) || check_kwargs(R, &a, name))
        return -1;
    Expr *dom = lower_texpr(R, a.pos[0]), *binding = dom ? lower_texpr(R, a.pos[1]) : NULL;
    if (!binding)
        return -1;
    return new_iter(R, b, cap, st->u.assign.target, kind, dom, binding);
}

static const char *axis_call(Reader *R, const St *st)
{
    if (st->kind != ST_ASSIGN || st->u.assign.annot)
        return NULL;
    const char *n = call_name(R, st->u.assign.value);
    return n && strncmp(n, "T.axis.", 7) == 0 ? n : NULL;
}

/* The block's iterators, which come first. They are bound only after all
 * are read: their bindings refer to loop variables, never to each other.
 * Returns the index of the first statement after them, or -1. */
static int block_annotation(Reader *R, Block *b, const St *x);

/* T.reads, T.writes or a block's attributes, which may come before
 * iterators (TVM reads a block's statements in order) */
static int early_annotation(Reader *R, const St *x)
{
    const char *cn = x->kind == ST_EXPR ? call_name(R, x->u.expr) : NULL;
    return cn && (streq(cn, "T.reads") || streq(cn, "T.writes") || streq(cn, "T.sblock_attr") ||
                  streq(cn, "T.block_attr"));
}

static int block_iters(Reader *R, Block *b, const StList *body, const St **where)
{
    int cap = 0, i = 0, bound = 0;
    *where = NULL;
    for (; i < body->n; i++) {
        const St *x = body->items[i];
        const char *ax = axis_call(R, x);
        if (!ax && !*where && x->kind == ST_EXPR && is_call_of(R, x->u.expr, "T.where") && i + 1 < body->n &&
            axis_call(R, body->items[i + 1])) {
            *where = x;   /* T.where before the iterators, as TVM may write it: read once they are bound */
            continue;
        }
        if (!ax && early_annotation(R, x)) {
            int j = i + 1;
            while (j < body->n && early_annotation(R, body->items[j]))
                j++;
            if (j < body->n && axis_call(R, body->items[j])) {
                /* read here, seeing the iterators given before it, as TVM does */
                for (; bound < b->niters; bound++)
                    bind_sym(R, b->iters[bound].var->name, BK_TVAR, b->iters[bound].var);
                if (block_annotation(R, b, x) < 0)
                    return -1;
                continue;
            }
        }
        if (!ax)
            break;
        int r = streq(ax, "T.axis.remap") ? lower_remap(R, b, &cap, x, x->u.assign.value)
              : lower_axis(R, b, &cap, x, x->u.assign.value, ax);
        if (r)
            return -1;
    }
    return i;
}

/* Adds dict d's entries to o, as TVM merges two T.sblock_attr calls: a
 * key given again with the same value is kept once, two dicts under one key
 * merge the same way, and another value is an error at the second. */
static int merge_attrs(Reader *R, Expr *o, const Expr *d)
{
    int n = o->u.dict.n;
    Expr **k = arena_array(R->a, (size_t)(n + d->u.dict.n) + 1, sizeof *k),
         **v = arena_array(R->a, (size_t)(n + d->u.dict.n) + 1, sizeof *v);
    memcpy(k, o->u.dict.keys, (size_t)n * sizeof *k);
    memcpy(v, o->u.dict.vals, (size_t)n * sizeof *v);
    for (int i = 0; i < d->u.dict.n; i++) {
        Expr *key = d->u.dict.keys[i], *val = d->u.dict.vals[i];
        int j = 0;
        while (j < n && !expr_equal(k[j], key))
            j++;
        if (j == n) {
            k[n] = key;
            v[n++] = val;
        } else if (v[j]->kind == E_DICT && val->kind == E_DICT) {
            Expr *m = expr_new(R->a, E_DICT, v[j]->loc);
            m->u.dict = v[j]->u.dict;
            if (merge_attrs(R, m, val))
                return -1;
            v[j] = m;
        } else if (!expr_equal(v[j], val)) {
            return key->kind == E_STR
                       ? ERR(R, key->loc, "block attribute \"%s\" given twice, with two values", key->u.str.s)
                       : ERR(R, key->loc, "block attribute given twice, with two values");
        }
    }
    o->u.dict.keys = k;
    o->u.dict.vals = v;
    o->u.dict.n = n;
    return 0;
}

/* T.reads, T.writes, T.block_attr, T.where or T.init, into b. Returns 1
 * when x is none of them (a statement of the body), 0 or -1 otherwise. */
static int block_annotation(Reader *R, Block *b, const St *x)
{
    const char *cn = x->kind == ST_EXPR ? call_name(R, x->u.expr) : NULL;
    if (axis_call(R, x))
        return ERR(R, x->loc, "block iterators must come first in the block");
    if (cn && (streq(cn, "T.reads") || streq(cn, "T.writes"))) {
        int rd = cn[2] == 'r';
        int *has = rd ? &b->has_reads : &b->has_writes;
        if (*has)
            return ERR(R, x->loc, "%s given twice", cn);
        *has = 1;
        return lower_regions(R, x->u.expr, rd ? &b->reads : &b->writes, rd ? &b->nreads : &b->nwrites);
    }
    if (cn && (streq(cn, "T.block_attr") || streq(cn, "T.sblock_attr"))) {
        Expr *d = lower_attr_dict(R, x->u.expr, cn);
        if (!d)
            return -1;
        if (!b->attrs) {
            b->attrs = d;
            return 0;
        }
        /* a second call adds its keys, as in TVM */
        return merge_attrs(R, b->attrs, d);
    }
    if (cn && streq(cn, "T.where")) {
        if (b->where)
            return ERR(R, x->loc, "T.where given twice");
        Args w;
        if (split_args(R, x->u.expr, &w) || want_args(R, x->u.expr, &w, 1, 1, cn))
            return -1;
        return (b->where = lower_texpr(R, w.pos[0])) ? 0 : -1;
    }
    if (x->kind == ST_WITH && is_call_of(R, x->u.with.ctx, "T.init")) {
        if (b->init)
            return ERR(R, x->loc, "a block has one T.init()");
        return (b->init = lower_tstmts(R, &x->u.with.body)) ? 0 : -1;
    }
    return 1;
}

static Stmt *lower_block(Reader *R, const St *st, const Sx *ctx)
{
    Args a;
    const char *name = call_name(R, ctx);
    if (split_args(R, ctx, &a) || want_args(R, ctx, &a, 0, 1, name) || check_kwargs(R, &a, name))
        return NULL;
    Block *b = arena_zalloc(R->a, sizeof *b);
    Stmt *s = stmt_new(R->a, S_BLOCK, st->loc);
    s->u.block = b;
    const char *bn = a.npos ? string_arg(R, a.pos[0], "the block name") : "";
    if (!bn)
        return NULL;
    b->name = S(R, bn);
    const StList *body = &st->u.with.body;
    const St *where;
    /* Iterators, allocations and lets are in scope until the block ends. */
    int mark = R->nundo, r = 0;
    int i = block_iters(R, b, body, &where);
    if (i < 0) {
        unbind_to(R, mark);
        return NULL;
    }
    for (int k = 0; k < b->niters; k++)
        bind_sym(R, b->iters[k].var->name, BK_TVAR, b->iters[k].var);
    if (where)
        r = block_annotation(R, b, where);
    Stmt **items = NULL;
    int n = 0, ncap = 0;
    for (; i < body->n && r >= 0; i++) {
        r = block_annotation(R, b, body->items[i]);
        if (r != 1)
            continue;
        Stmt *y = lower_tstmt(R, body->items[i]);
        r = y ? 0 : -1;
        if (y && !(y->kind == S_SEQ && y->u.seq.n == 0))
            vec_push(R->a, &items, &n, &ncap, y);
    }
    unbind_to(R, mark);
    if (r < 0)
        return NULL;
    b->body = n ? seq_of(R, st->loc, items, n) : stmt_new(R->a, S_SEQ, st->loc);
    return s;
}

static Stmt *lower_store(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target;
    Buffer *b = find_buffer(R, t->u.index.obj);
    if (!b)
        return NULL;
    Stmt *s = stmt_new(R->a, S_STORE, st->loc);
    s->u.store.buf = b;
    if (!(s->u.store.idx = lower_indices(R, &t->u.index.items, 0, &s->u.store.n)))
        return NULL;
    if (!(s->u.store.value = lower_texpr(R, st->u.assign.value)))
        return NULL;
    return s;
}

static int has_kwarg(const Sx *call, const char *name)
{
    const SxList *l = &call->u.call.args;
    for (int i = 0; i < l->n; i++)
        if (l->keys && l->keys[i] && streq(l->keys[i]->str, name))
            return 1;
    return 0;
}

/* T.decl_buffer(shape, dtype, A.data): TVM's third positional argument is data=, so the call is a view. */
static int gives_data(const Sx *call)
{
    const SxList *l = &call->u.call.args;
    int npos = 0;
    for (int i = 0; i < l->n; i++)
        npos += !(l->keys && l->keys[i]);
    return npos >= 3 || has_kwarg(call, "data");
}

static Stmt *lower_alloc(Reader *R, const St *st, const char *cn)
{
    const Sx *t = st->u.assign.target;
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "%s must be assigned to a name", cn), NULL;
    Args a;
    if (split_args(R, st->u.assign.value, &a))
        return NULL;
    int match = streq(cn, "T.match_buffer");
    Buffer *b;
    Var *h = NULL;
    Region *region = NULL;
    if (match && a.npos >= 1 && a.pos[0]->kind == SX_INDEX) {
        /* a region of a buffer, inside a block: A_sub = T.match_buffer(A[0:4, j], (4,)) */
        int n = 0, cap = 0;
        if (lower_region(R, a.pos[0], &region, &n, &cap))
            return NULL;
    } else if (match) {
        if (a.npos < 1 || a.pos[0]->kind != SX_NAME || a.pos[0]->u.name->bind_kind != BK_TVAR ||
            ((Var *)a.pos[0]->u.name->bind)->dtype != DT_HANDLE)
            return ERR(R, st->u.assign.value->loc, "T.match_buffer takes a T.handle parameter or a buffer region first"), NULL;
        h = a.pos[0]->u.name->bind;
    }
    BufKind kind = match ? BUF_MATCH : streq(cn, "T.sblock_alloc_buffer") ? BUF_SBLOCK
                 : streq(cn, "T.decl_buffer") ? BUF_DECL : streq(cn, "T.alloc_local") ? BUF_LOCAL : BUF_ALLOC;
    Sx *sc = kind == BUF_LOCAL ? kwarg(&a, "scope") : NULL;
    if (sc)
        return ERR(R, sc->loc, "T.alloc_local allocates in scope \"local\"; for another scope write "
                   "T.alloc_buffer(shape, dtype, scope=...)"), NULL;
    if (!(b = lower_buffer(R, t->u.name, t->loc, kind, &a, match, cn)))
        return NULL;
    if (kind == BUF_LOCAL)
        b->scope = "local";
    b->handle = h;
    b->region = region;
    Stmt *s = stmt_new(R->a, S_ALLOC, st->loc);
    s->u.alloc = b;
    bind_sym(R, t->u.name, BK_BUF, b);
    return s;
}

/* A_1 = T.Buffer((256,), "float32", data=A.data): a view of A's storage
 * (T.decl_buffer is read the same way). */
static Stmt *lower_alias(Reader *R, const St *st, const char *cn)
{
    const Sx *t = st->u.assign.target;
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "%s must be assigned to a name", cn), NULL;
    Args a;
    if (split_args(R, st->u.assign.value, &a))
        return NULL;
    int decl = streq(cn, "T.decl_buffer") ? 1 : 2;
    Sx *data = decl == 1 ? arg(&a, 2, "data") : kwarg(&a, "data");
    if (!data)
        return ERR(R, st->u.assign.value->loc, "%s in a body declares a view of a buffer: give data=B.data", cn), NULL;
    if (a.npos > 2 && a.pos[2] == data) {
        /* the data argument given by position is taken; what follows it stays an error below */
        for (int i = 2; i + 1 < a.npos; i++)
            a.pos[i] = a.pos[i + 1];
        a.npos--;
    }
    const char *d = data->kind == SX_NAME ? data->u.name->str : NULL;
    size_t n = d ? strlen(d) : 0;
    if (d && data->u.name->bind_kind == BK_TVAR && ((Var *)data->u.name->bind)->dtype == DT_HANDLE) {
        /* data=h, h a handle parameter: the buffer over the storage it points to, as T.match_buffer(h, ...) */
        Buffer *b = lower_buffer(R, t->u.name, t->loc, BUF_MATCH, &a, 0, cn);
        if (!b)
            return NULL;
        b->handle = data->u.name->bind;
        b->decl = decl;
        Stmt *s = stmt_new(R->a, S_ALLOC, st->loc);
        s->u.alloc = b;
        bind_sym(R, t->u.name, BK_BUF, b);
        return s;
    }
    if (!d || n < 6 || strcmp(d + n - 5, ".data") != 0)
        return ERR(R, data->loc, "data= of %s must be B.data, B a buffer in scope, or a T.handle parameter", cn), NULL;
    Sym *bs = intern(&R->m->names, d, n - 5);
    if (bs->bind_kind != BK_BUF)
        return ERR(R, data->loc, "'%s' is not a buffer in scope", bs->str), NULL;
    Buffer *b = lower_buffer(R, t->u.name, t->loc, BUF_ALIAS, &a, 0, cn);
    if (!b)
        return NULL;
    b->base = bs->bind;
    b->decl = decl == 1;
    if (b->dtype != b->base->dtype)
        return ERR(R, st->u.assign.value->loc, "the view %s has dtype %s but %s holds %s", t->u.name->str,
                   dtype_name(b->dtype), bs->str, dtype_name(b->base->dtype)), NULL;
    Stmt *s = stmt_new(R->a, S_ALLOC, st->loc);
    s->u.alloc = b;
    bind_sym(R, t->u.name, BK_BUF, b);
    return s;
}

/* x[0] = v, the store of the mutable scalar x. */
static Stmt *scalar_store(Reader *R, Buffer *b, Expr *v, Loc loc)
{
    Stmt *s = stmt_new(R->a, S_STORE, loc);
    s->u.store.buf = b;
    s->u.store.n = 1;
    s->u.store.idx = arena_array(R->a, 2, sizeof(Expr *));
    s->u.store.idx[0] = expr_int(R->a, 0, DT_VOID, loc);
    s->u.store.value = v;
    return s;
}

/* The mutable scalar x of dtype dt, declared here: a local buffer of one
 * element, bound to x's name for the statements after it. */
static Stmt *scalar_decl(Reader *R, const Sx *t, DType dt, Loc loc)
{
    Buffer *b = arena_zalloc(R->a, sizeof *b);
    b->name = t->u.name;
    b->loc = t->loc;
    b->kind = BUF_ALLOC;
    b->dtype = dt;
    b->ndim = 1;
    b->shape = arena_array(R->a, 2, sizeof(Expr *));
    b->shape[0] = expr_int(R->a, 1, DT_VOID, t->loc);
    b->scope = "local";
    b->scalar = 1;
    Stmt *s = stmt_new(R->a, S_ALLOC, loc);
    s->u.alloc = b;
    bind_sym(R, t->u.name, BK_BUF, b);
    return s;
}

/* A scalar type written T.float32, or NULL with the error given. */
static int scalar_annot(Reader *R, const Sx *an, DType *dt)
{
    if (dtype_of_ctor(dotted(R, an), dt) != 0 || *dt == DT_HANDLE)
        return ERR(R, an->loc, "expected a scalar type such as T.int32");
    return 0;
}

/* x: T.float32, with no value: the declaration of a mutable scalar. */
static Stmt *lower_declare(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target, *an = st->u.assign.annot;
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "expected a name to declare, as in x: T.float32"), NULL;
    DType dt;
    if (an->kind == SX_INDEX || scalar_annot(R, an, &dt))
        return an->kind == SX_INDEX ? ERR(R, an->loc, "T.let[...] needs a value: x: T.let[T.int32] = e"), NULL : NULL;
    return scalar_decl(R, t, dt, st->loc);
}

/* Whether an annotation is T.let or T.let[type] (*inner: the type, or NULL). */
static int let_annot(Reader *R, const Sx *an, const Sx **inner)
{
    *inner = NULL;
    if (!an)
        return 0;
    if (an->kind == SX_INDEX) {
        const char *d = dotted(R, an->u.index.obj);
        if (!d || !streq(d, "T.let"))
            return 0;
        if (an->u.index.items.n == 1)
            *inner = an->u.index.items.items[0];
        return 1;
    }
    const char *d = dotted(R, an);
    return d && streq(d, "T.let");
}

static Stmt *lowered_stmt(Reader *R, const St *st, LowKind k)
{
    Stmt *s = stmt_new(R->a, S_LOWERED, st->loc);
    s->u.low.k = k;
    return s;
}

/* TIRx's scope ids, which define one variable per extent: bx, by =
 * T.cta_id([2, 2]) */
static int scope_id_call(const char *name)
{
    static const char *const names[] = {
        "T.cluster_id", "T.cta_id", "T.cta_id_in_cluster", "T.warpgroup_id", "T.warp_id",
        "T.warp_id_in_wg", "T.lane_id", "T.thread_id", "T.thread_id_in_wg",
    };
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (streq(name, names[i]))
            return 1;
    return 0;
}

/* bx, by, bz = T.cta_id([1, 1, 1]), as TVM reads it: the call defines as
 * many variables as it has extents, bound to the names in order (of dtype=,
 * "int32" unless it says "uint32"). Kept as a lowered statement, printed
 * back as written; the interpreter refuses it. */
static Stmt *lower_scope_ids(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target, *val = st->u.assign.value;
    const char *name = val->kind == SX_CALL ? call_name(R, val) : NULL;
    if (st->u.assign.annot || !scope_id_call(name))
        return ERR(R, t->loc, "only a scope id, as in bx, by = T.cta_id([2, 2]), assigns to several names in a prim_func"), NULL;
    const SxList *names = &t->u.elems;
    for (int i = 0; i < names->n; i++)
        if (names->items[i]->kind != SX_NAME)
            return ERR(R, names->items[i]->loc, "expected a name"), NULL;
    const Sx *ext = val->u.call.args.n ? val->u.call.args.items[0] : NULL;
    if (!ext || (val->u.call.args.keys && val->u.call.args.keys[0]) || ext->kind != SX_LIST || ext->u.elems.n != names->n)
        return ERR(R, val->loc, "%s defines one variable per extent: give it a list of %d extents, as in %s([2, 2])",
                   name, names->n, name), NULL;
    Stmt *s = lowered_stmt(R, st, LOW_IDS);
    if (!(s->u.low.args[0] = lower_texpr(R, val)))
        return NULL;
    DType dt = DT_INT32;
    const Expr *c = s->u.low.args[0];
    for (int i = 0; i < c->u.call.nkw; i++)
        if (streq(c->u.call.kw[i]->str, "dtype") && c->u.call.args[c->u.call.nargs + i]->kind == E_STR
            && streq(c->u.call.args[c->u.call.nargs + i]->u.str.s, "uint32"))
            dt = DT_UINT32;
    Expr *vars = expr_new(R->a, E_TUPLE, t->loc);
    vars->u.list.n = names->n;
    vars->u.list.items = arena_array(R->a, (size_t)names->n, sizeof(Expr *));
    for (int i = 0; i < names->n; i++) {
        Var *x = var_new(R->a, names->items[i]->u.name, VAR_TIR, names->items[i]->loc);
        x->dtype = dt;
        vars->u.list.items[i] = expr_new(R->a, E_VAR, names->items[i]->loc);
        vars->u.list.items[i]->u.var = x;
        bind_sym(R, x->name, BK_TVAR, x);
    }
    s->u.low.args[1] = vars;
    s->u.low.nargs = 2;
    return s;
}

/* An assignment to a name in a prim_func, as TVM reads it: x = e of a
 * number, and x: T.int32 = e, declare the mutable scalar x (later x = e
 * store into it); x: T.let[T.int32] = e, x: T.let = e and x = T.bind(e)
 * bind an immutable x (S_LET), as does x = e of a handle or a string. */
static Stmt *lower_let(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target;
    if (t->kind == SX_TUPLE)
        return lower_scope_ids(R, st);
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "cannot assign to this target in a prim_func"), NULL;
    const Sx *an = st->u.assign.annot, *val = st->u.assign.value, *inner;
    int let = let_annot(R, an, &inner);
    if (an && an->kind == SX_INDEX && (!let || !inner))
        return ERR(R, an->loc, "expected a scalar type such as T.int32, or T.let[T.int32]"), NULL;
    if (!an && is_call_of(R, val, "T.bind")) {
        Args a;
        if (split_args(R, val, &a) || want_args(R, val, &a, 1, 1, "T.bind") || check_kwargs(R, &a, "T.bind"))
            return NULL;
        val = a.pos[0];
        let = 1;
    }
    Sym *old = t->u.name;
    Buffer *into = !an && !let && old->bind_kind == BK_BUF ? old->bind : NULL;
    if (into && !into->scalar && !(into->ndim == 1 && into->shape[0]->kind == E_INT && into->shape[0]->u.i.v == 1))
        into = NULL;
    Expr *v = lower_texpr(R, val);
    if (!v)
        return NULL;
    if (into)   /* x = e of a scalar, or of a buffer of shape (1,): x[0] = e */
        return scalar_store(R, into, v, st->loc);
    DType dt = tir_dtype(v);
    if (an && !let && scalar_annot(R, an, &dt))
        return NULL;
    /* x: T.let[T.handle("int32")] = ...: a typed pointer, kept as written */
    Expr *handle_type = NULL;
    if (inner && inner->kind == SX_CALL && is_call_of(R, inner, "T.handle")) {
        if (!(handle_type = lower_call(R, inner, "T.handle", lower_attr_value)))
            return NULL;
        dt = DT_HANDLE;
    } else if (inner && dtype_of_ctor(dotted(R, inner), &dt) != 0) {
        return ERR(R, inner->loc, "expected a scalar type such as T.int32"), NULL;
    }
    if (!let && dt != DT_HANDLE && dt != DT_VOID && v->kind != E_STR) {
        Stmt **two = arena_array(R->a, 3, sizeof *two);
        two[0] = scalar_decl(R, t, dt, st->loc);
        two[1] = scalar_store(R, two[0]->u.alloc, v, st->loc);
        Stmt *s = stmt_new(R->a, S_SEQ, st->loc);
        s->u.seq.items = two;
        s->u.seq.n = 2;
        return s;
    }
    Var *x = var_new(R->a, t->u.name, VAR_TIR, t->loc);
    x->dtype = dt;
    Stmt *s = stmt_new(R->a, S_LET, st->loc);
    s->u.let.var = x;
    s->u.let.value = v;
    s->u.let.handle_type = handle_type;
    bind_sym(R, t->u.name, BK_TVAR, x);
    return s;
}

/* with T.attr(node, "key", value): body */
static Stmt *lower_attr_stmt(Reader *R, const St *st)
{
    Args a;
    const Sx *c = st->u.with.ctx;
    if (split_args(R, c, &a) || want_args(R, c, &a, 3, 3, "T.attr") || check_kwargs(R, &a, "T.attr"))
        return NULL;
    Stmt *s = lowered_stmt(R, st, LOW_ATTR);
    for (int i = 0; i < 3; i++)
        if (!(s->u.low.args[i] = lower_texpr_or_lambda(R, a.pos[i])))
            return NULL;
    s->u.low.nargs = 3;
    int mark = R->nundo;
    s->u.low.body = lower_tstmts(R, &st->u.with.body);
    unbind_to(R, mark);
    return s->u.low.body ? s : NULL;
}

static Stmt *lower_tstmt(Reader *R, const St *st)
{
    switch (st->kind) {
    case ST_FOR: return lower_for(R, st);
    case ST_PASS: return stmt_new(R->a, S_SEQ, st->loc);
    case ST_IF: {
        Stmt *s = stmt_new(R->a, S_IF, st->loc);
        int mark = R->nundo;
        if (!(s->u.branch.cond = lower_texpr(R, st->u.branch.cond)))
            return NULL;
        s->u.branch.then = lower_tstmts(R, &st->u.branch.then);
        unbind_to(R, mark);
        if (!s->u.branch.then)
            return NULL;
        if (st->u.branch.orelse.n) {
            s->u.branch.orelse = lower_tstmts(R, &st->u.branch.orelse);
            unbind_to(R, mark);
            if (!s->u.branch.orelse)
                return NULL;
        }
        return s;
    }
    case ST_WHILE: {
        Stmt *s = lowered_stmt(R, st, LOW_WHILE);
        int mark = R->nundo;
        if (!s || !(s->u.low.args[0] = lower_texpr(R, st->u.loop.iter)))
            return NULL;
        s->u.low.nargs = 1;
        s->u.low.body = lower_tstmts(R, &st->u.loop.body);
        unbind_to(R, mark);
        return s->u.low.body ? s : NULL;
    }
    case ST_BREAK: return lowered_stmt(R, st, LOW_BREAK);
    case ST_CONTINUE: return lowered_stmt(R, st, LOW_CONTINUE);
    case ST_ASSERT: {
        Stmt *s = lowered_stmt(R, st, LOW_ASSERT);
        if (!s || !(s->u.low.args[0] = lower_texpr(R, st->u.assign.target)))
            return NULL;
        s->u.low.nargs = 1;
        if (st->u.assign.value && !(s->u.low.args[s->u.low.nargs++] = lower_texpr(R, st->u.assign.value)))
            return NULL;
        return s;
    }
    case ST_WITH: {
        const char *cn = call_name(R, st->u.with.ctx);
        if (cn && (streq(cn, "T.block") || streq(cn, "T.sblock")))
            return lower_block(R, st, st->u.with.ctx);
        if (cn && streq(cn, "T.attr") && !st->u.with.as)
            return lower_attr_stmt(R, st);
        if (cn && streq(cn, "T.init"))
            return ERR(R, st->loc, "T.init() belongs directly inside a block"), NULL;
        if (cn && streq(cn, "T.launch_thread"))
            return lower_launch(R, st->u.with.ctx, st->u.with.as, &st->u.with.body, st->loc);
        if (cn && strncmp(cn, "T.", 2) == 0)
            return ERR(R, st->u.with.ctx->loc, "with %s is not read in a prim_func; lopt reads with T.sblock (T.block), "
                                               "T.init and T.attr", cn), NULL;
        return ERR(R, st->u.with.ctx->loc, "expected T.block(\"name\") after 'with'"), NULL;
    }
    case ST_DECLARE: return lower_declare(R, st);
    case ST_ASSIGN: {
        const Sx *t = st->u.assign.target;
        const char *cn = call_name(R, st->u.assign.value);
        if (t->kind == SX_INDEX)
            return lower_store(R, st);
        if (cn && (streq(cn, "T.alloc_buffer") || streq(cn, "T.sblock_alloc_buffer") || streq(cn, "T.alloc_local") ||
                   streq(cn, "T.match_buffer") || (streq(cn, "T.decl_buffer") && !gives_data(st->u.assign.value))))
            return lower_alloc(R, st, cn);
        if (cn && (streq(cn, "T.Buffer") || streq(cn, "T.decl_buffer")))
            return lower_alias(R, st, cn);
        if (cn && strncmp(cn, "T.axis.", 7) == 0)
            return ERR(R, st->loc, "block iterators belong directly inside a block"), NULL;
        if (cn && streq(cn, "T.allocate"))
            return ERR(R, st->u.assign.value->loc, "T.allocate (TVM's older lowered TIR) is not read; write "
                       "B = T.decl_buffer(shape, dtype, scope=...), as TVM prints it today"), NULL;
        if (cn && streq(cn, "T.env_thread"))
            return lower_env_thread(R, st) ? NULL : stmt_new(R->a, S_SEQ, st->loc);
        if (is_decl(R, st))
            return lower_decl(R, st) ? NULL : stmt_new(R->a, S_SEQ, st->loc);
        return lower_let(R, st);
    }
    case ST_EXPR: {
        const Sx *e = st->u.expr;
        const char *cn = call_name(R, e);
        if (is_docstring(st))
            return stmt_new(R->a, S_SEQ, st->loc);
        if (cn && (streq(cn, "T.reads") || streq(cn, "T.writes") || streq(cn, "T.block_attr") ||
                   streq(cn, "T.sblock_attr") || streq(cn, "T.where")))
            return ERR(R, st->loc, "%s belongs directly inside a block", cn), NULL;
        if (cn && streq(cn, "T.func_attr"))
            return ERR(R, st->loc, "T.func_attr belongs directly in the function body, not inside another statement"), NULL;
        Stmt *s = stmt_new(R->a, S_EVAL, st->loc);
        if (cn && streq(cn, "T.evaluate")) {
            Args a;
            if (split_args(R, e, &a) || want_args(R, e, &a, 1, 1, cn))
                return NULL;
            e = a.pos[0];
        }
        return (s->u.eval = lower_texpr(R, e)) ? s : NULL;
    }
    case ST_RETURN: {
        /* return v in a PrimFunc that returns a scalar: T.ret(v) */
        if (R->fn->tret == DT_VOID || !st->u.expr)
            return ERR(R, st->loc, "a prim_func without a return type (-> T.float32) does not return a value; write to an output buffer"), NULL;
        Stmt *s = stmt_new(R->a, S_EVAL, st->loc);
        Expr *x = expr_new(R->a, E_CALL, st->loc);
        x->u.call.op = S(R, "T.ret");
        x->u.call.nargs = 1;
        x->u.call.args = arena_array(R->a, 1, sizeof(Expr *));
        s->u.eval = x;
        return (x->u.call.args[0] = lower_texpr(R, st->u.expr)) ? s : NULL;
    }
    default: return ERR(R, st->loc, "this statement is not allowed in a prim_func"), NULL;
    }
}

/* Statements in order; an allocation or let is in scope until the end of the
 * list, so the caller restores the scope. */
static Stmt *lower_tstmts(Reader *R, const StList *l)
{
    Stmt **items = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < l->n; i++) {
        const St *x = l->items[i];
        const Sx *launch = x->kind == ST_ASSIGN && !x->u.assign.annot ? x->u.assign.value
                         : x->kind == ST_EXPR ? x->u.expr : NULL;
        if (launch && is_call_of(R, launch, "T.launch_thread")) {
            StList rest = { l->items + i + 1, l->n - i - 1, 0 };
            Stmt *s = lower_launch(R, launch, x->kind == ST_ASSIGN ? x->u.assign.target : NULL, &rest, x->loc);
            if (!s)
                return NULL;
            vec_push(R->a, &items, &n, &cap, s);
            break;
        }
        Stmt *s = lower_tstmt(R, x);
        if (!s)
            return NULL;
        if (s->kind == S_SEQ && s->u.seq.n == 0 && l->n > 1)
            continue;
        if (s->kind == S_SEQ) {   /* a scalar's declaration and its first store */
            for (int k = 0; k < s->u.seq.n; k++)
                vec_push(R->a, &items, &n, &cap, s->u.seq.items[k]);
            continue;
        }
        vec_push(R->a, &items, &n, &cap, s);
    }
    if (n == 0)
        return stmt_new(R->a, S_SEQ, l->n ? l->items[0]->loc : NOWHERE);
    return seq_of(R, l->items[0]->loc, items, n);
}

int lower_prim_func(Reader *R, Func *f, const St *def)
{
    int mark = R->nundo;
    /* The body's leading attributes and declarations come first: the
     * signature may use the symbolic variables declared there. */
    const StList *body = &def->u.def.body;
    StList rest = *body;
    for (; rest.n > 0; rest.items++, rest.n--) {
        const St *x = rest.items[0];
        if (x->kind == ST_EXPR && is_call_of(R, x->u.expr, "T.func_attr")) {
            if (f->attrs)
                return ERR(R, x->loc, "T.func_attr given twice");
            if (!(f->attrs = lower_attr_dict(R, x->u.expr, "T.func_attr")))
                return -1;
        } else if (is_decl(R, x)) {
            if (lower_decl(R, x))
                return -1;
        } else {
            break;
        }
    }
    f->npparams = def->u.def.nparams;
    f->pparams = arena_array(R->a, (size_t)f->npparams, sizeof(PParam));
    /* the scalar parameters first: a buffer's shape may read one given
     * after it (buf: T.Buffer(((16 + n - 1) // n, n), "int32"), n: T.int32) */
    for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < f->npparams; i++) {
        SxParam *p = def->u.def.params[i];
        const char *an0 = p->annot && p->annot->kind == SX_NAME ? dotted(R, p->annot) : NULL;
        DType t0;
        int scalar = an0 && dtype_of_ctor(an0, &t0) == 0 && !p->dflt;
        if (scalar != (pass == 0))
            continue;
        if (p->name->bind_kind == BK_BUF || p->name->bind_kind == BK_TVAR)
            return ERR(R, p->loc, "duplicate parameter '%s'", p->name->str);
        if (p->name->bind_kind == BK_SYM || p->name->bind_kind == BK_META)
            return ERR(R, p->loc, "parameter '%s' is also declared in the function's body", p->name->str);
        if (!p->annot)
            return ERR(R, p->loc, "parameter '%s' needs a type, such as T.Buffer((16,), \"float32\") or T.handle", p->name->str);
        if (p->dflt)
            return ERR(R, p->dflt->loc, "parameters have no default values");
        const char *an = p->annot->kind == SX_CALL ? call_name(R, p->annot)
                       : p->annot->kind == SX_INDEX ? dotted(R, p->annot->u.index.obj) : dotted(R, p->annot);
        DType t;
        /* T.buffer(...): TVM's older name of T.Buffer(...) as a parameter's type */
        if (an && (streq(an, "T.Buffer") || (streq(an, "T.buffer") && p->annot->kind == SX_CALL)) &&
            p->annot->kind != SX_ATTR) {
            Buffer *b = lower_buffer_type(R, p->name, p->loc, p->annot);
            if (!b)
                return -1;
            f->pparams[i].buf = b;
            bind_sym(R, p->name, BK_BUF, b);
        } else if (p->annot->kind == SX_NAME && dtype_of_ctor(an, &t) == 0) {
            Var *v = var_new(R->a, p->name, VAR_TIR, p->loc);
            v->dtype = t;
            f->pparams[i].var = v;
            bind_sym(R, p->name, BK_TVAR, v);
        } else if (p->annot->kind == SX_CALL && an && streq(an, "T.handle")) {
            /* a typed pointer, T.handle("float32") or T.handle("float32", "global"): kept as written */
            Var *v = var_new(R->a, p->name, VAR_TIR, p->loc);
            v->dtype = DT_HANDLE;
            if (!(f->pparams[i].handle_type = lower_call(R, p->annot, "T.handle", lower_attr_value)))
                return -1;
            f->pparams[i].var = v;
            bind_sym(R, p->name, BK_TVAR, v);
        } else {
            return ERR(R, p->annot->loc, "expected T.Buffer(...), T.handle or a scalar type such as T.int32");
        }
    }
    const Sx *ret = def->u.def.ret;
    if (ret && ret->kind != SX_NONE && (dtype_of_ctor(dotted(R, ret), &f->tret) != 0 || f->tret == DT_HANDLE))
        return ERR(R, ret->loc, "a prim_func returns None or a scalar type such as T.float32");
    /* T.func_attr after other statements of the body, where TVM takes it too
     * (it belongs to the function's own frame, not inside another statement) */
    StList stmts = { arena_array(R->a, (size_t)rest.n + 1, sizeof(St *)), 0, 0 };
    for (int i = 0; i < rest.n; i++) {
        const St *x = rest.items[i];
        if (x->kind == ST_EXPR && is_call_of(R, x->u.expr, "T.func_attr")) {
            if (f->attrs)
                return ERR(R, x->loc, "T.func_attr given twice");
            if (!(f->attrs = lower_attr_dict(R, x->u.expr, "T.func_attr")))
                return -1;
            continue;
        }
        stmts.items[stmts.n++] = rest.items[i];
    }
    f->body = lower_tstmts(R, &stmts);
    unbind_to(R, mark);
    return f->body ? 0 : -1;
}
