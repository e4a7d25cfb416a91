/* Gives the syntax tree its meaning: the scopes, names, call arguments and
 * literal values both dialects share, the module class and its decorators,
 * and the stream_* hooks through which the parser hands over each function
 * as it reads it (a Relax function statement by statement, its syntax
 * released as it goes). TIR is lowered in lower_tir.c, Relax in lower_relax.c;
 * lower_internal.h joins them. Relies on syntax.h and ir.h. */
#include "lower_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "parser.h"
#include "../ir/oom.h"

static const Loc FIRST_LINE = { 1, 1 };

/* ---- names and scopes ---- */

void bind_sym(Reader *R, Sym *s, int kind, void *p)
{
    int words = s->bind || s->bind_kind != BK_NONE ? 3 : 1;
    if (R->nundo + words > R->capundo) {
        R->capundo = R->capundo ? R->capundo * 2 : 64;
        R->undo = xrealloc(R->undo, (size_t)R->capundo * sizeof *R->undo);
        if (!R->undo)
            oom_fail();
    }
    if (words == 3) {
        R->undo[R->nundo++] = (uintptr_t)s->bind;
        R->undo[R->nundo++] = (uintptr_t)s->bind_kind;
        R->undo[R->nundo++] = (uintptr_t)s | 1;
    } else {
        R->undo[R->nundo++] = (uintptr_t)s;
    }
    s->bind = p;
    s->bind_kind = kind;
}

void bind_top(Reader *R, Sym *s, int kind, void *p)
{
    if (s->bind || s->bind_kind != BK_NONE) {
        bind_sym(R, s, kind, p);
        return;
    }
    s->bind = p;
    s->bind_kind = kind;
}

void unbind_relax(Func *f)
{
    for (int i = 0; i < f->nblocks; i++)
        for (int k = 0; k < f->blocks[i]->nbinds; k++) {
            Var *v = f->blocks[i]->binds[k]->var;
            if (v->name->bind == v) {
                v->name->bind = NULL;
                v->name->bind_kind = BK_NONE;
            }
        }
}

void unbind_to(Reader *R, int mark)
{
    while (R->nundo > mark) {
        uintptr_t w = R->undo[--R->nundo];
        Sym *s = (Sym *)(w & ~(uintptr_t)1);
        if (w & 1) {
            s->bind_kind = (int)R->undo[--R->nundo];
            s->bind = (void *)R->undo[--R->nundo];
        } else {
            s->bind = NULL;
            s->bind_kind = BK_NONE;
        }
    }
}

/* The names the reader asks for by a constant ("R.call_tir", "out_sinfo")
 * come back from a small table keyed by their address, checked by content
 * (an address may be a buffer's). */
Sym *S(Reader *R, const char *s)
{
    int k = (int)(((uintptr_t)s >> 3) & 31);
    if (R->names[k].s == s && strcmp(R->names[k].sym->str, s) == 0)
        return R->names[k].sym;
    R->names[k].s = s;
    return R->names[k].sym = intern_cstr(&R->m->names, s);
}

/* "R.nn.conv2d" for a chain of attribute accesses on a name, else NULL. */
const char *dotted(Reader *R, const Sx *e)
{
    if (e->kind == SX_NAME)
        return e->u.name->str;
    char buf[256];
    int len = 0;
    const Sx *parts[32];
    int n = 0;
    while (e->kind == SX_ATTR && n < 31) {
        parts[n++] = e;
        e = e->u.attr.obj;
    }
    if (e->kind != SX_NAME)
        return NULL;
    len = snprintf(buf, sizeof buf, "%s", e->u.name->str);
    for (int i = n - 1; i >= 0 && len < (int)sizeof buf; i--)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ".%s", parts[i]->u.attr.name->str);
    if (len >= (int)sizeof buf)
        return NULL;
    return intern_cstr(&R->m->names, buf)->str;
}

int is_call_of(Reader *R, const Sx *e, const char *name)
{
    if (!e || e->kind != SX_CALL)
        return 0;
    const char *d = dotted(R, e->u.call.fn);
    return d && streq(d, name);
}

/* A string on a line of its own: a docstring, which TVM's parser ignores too. */
int is_docstring(const St *st)
{
    return st->kind == ST_EXPR && st->u.expr->kind == SX_STR;
}

const char *call_name(Reader *R, const Sx *e)
{
    return e && e->kind == SX_CALL ? dotted(R, e->u.call.fn) : NULL;
}

int split_args(Reader *R, const Sx *call, Args *out)
{
    const SxList *l = &call->u.call.args;
    /* Not the whole struct (1.8 kB, zeroed for each call of a large
     * module): the counts, the marks as keywords come, and the first
     * positions, which read NULL past npos as before. */
    out->npos = out->nkw = 0;
    out->pos[0] = out->pos[1] = out->pos[2] = out->pos[3] = NULL;
    for (int i = 0; i < l->n; i++) {
        Sym *k = l->keys ? l->keys[i] : NULL;
        if (k) {
            if (out->nkw == MAX_CALL_ARGS)
                return ERR(R, l->items[i]->loc, "too many keyword arguments (limit %d)", MAX_CALL_ARGS);
            out->kw[out->nkw] = k;
            out->used[out->nkw] = 0;
            out->kwv[out->nkw++] = l->items[i];
        } else {
            if (l->items[i]->kind == SX_STAR)
                return ERR(R, l->items[i]->loc, "*%s: an argument is unpacked only in T.grid(*B.shape)",
                           l->items[i]->u.bin.a->kind == SX_NAME ? l->items[i]->u.bin.a->u.name->str : "...");
            if (out->npos == MAX_CALL_ARGS)
                return ERR(R, l->items[i]->loc, "too many arguments (limit %d)", MAX_CALL_ARGS);
            out->pos[out->npos++] = l->items[i];
        }
    }
    return 0;
}

Sx *kwarg(Args *a, const char *name)
{
    for (int i = 0; i < a->nkw; i++)
        if (streq(a->kw[i]->str, name)) {
            a->used[i] = 1;
            return a->kwv[i];
        }
    return NULL;
}

/* The argument at position i, or the keyword of that name. */
Sx *arg(Args *a, int i, const char *name)
{
    Sx *k = name ? kwarg(a, name) : NULL;
    return k ? k : i < a->npos ? a->pos[i] : NULL;
}

int check_kwargs(Reader *R, Args *a, const char *what)
{
    for (int i = 0; i < a->nkw; i++)
        if (!a->used[i])
            return ERR(R, a->kwv[i]->loc, "unknown keyword argument '%s' to %s", a->kw[i]->str, what);
    return 0;
}

int want_args(Reader *R, const Sx *call, Args *a, int lo, int hi, const char *what)
{
    if (a->npos < lo || a->npos > hi) {
        if (lo == hi)
            return ERR(R, call->loc, "%s takes %d positional argument%s, got %d", what, lo, lo == 1 ? "" : "s", a->npos);
        return ERR(R, call->loc, "%s takes %d to %d positional arguments, got %d", what, lo, hi, a->npos);
    }
    return 0;
}

const char *string_arg(Reader *R, const Sx *e, const char *what)
{
    if (!e || e->kind != SX_STR) {
        ERR(R, e ? e->loc : NOWHERE, "%s must be a string", what);
        return NULL;
    }
    return e->u.str.s;
}

int dtype_arg(Reader *R, const Sx *e, DType *out)
{
    const char *s = string_arg(R, e, "dtype");
    if (!s)
        return -1;
    if (dtype_parse(s, out) != 0 || *out == DT_HANDLE)
        return ERR(R, e->loc, "unknown dtype \"%s\"", s);
    return 0;
}

/* T.float32 -> float32, for the typed-literal and cast spellings. */
int dtype_of_ctor(const char *name, DType *out)
{
    /* TVM's short names of the same constructors (T.f32 is T.float32) */
    static const char *const alias[][2] = {
        { "f16", "float16" }, { "f32", "float32" }, { "f64", "float64" }, { "bf16", "bfloat16" },
        { "i8", "int8" }, { "i16", "int16" }, { "i32", "int32" }, { "i64", "int64" },
        { "u8", "uint8" }, { "u16", "uint16" }, { "u32", "uint32" }, { "u64", "uint64" },
    };
    if (!name || strncmp(name, "T.", 2) != 0)
        return -1;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(name + 2, alias[i][0]) == 0)
            return dtype_parse(alias[i][1], out);
    return dtype_parse(name + 2, out);
}

/* ---- generic values shared by both dialects ---- */

Expr *lower_literal(Reader *R, const Sx *e)
{
    Expr *x;
    switch (e->kind) {
    case SX_INT: return expr_int(R->a, e->u.ival, DT_VOID, e->loc);
    case SX_FLOAT:
        x = expr_new(R->a, E_FLOAT, e->loc);
        x->u.f.v = e->u.fval;
        return x;
    case SX_STR:
        x = expr_new(R->a, E_STR, e->loc);
        x->u.str.s = e->u.str.s;
        x->u.str.len = e->u.str.len;
        return x;
    case SX_TRUE:
    case SX_FALSE:
        x = expr_new(R->a, E_BOOL, e->loc);
        x->u.b = e->kind == SX_TRUE;
        return x;
    case SX_NONE: return expr_new(R->a, E_NONE, e->loc);
    case SX_UNARY:
        if (e->u.bin.op == OP_NEG && (e->u.bin.a->kind == SX_INT || e->u.bin.a->kind == SX_FLOAT)) {
            x = lower_literal(R, e->u.bin.a);
            x->loc = e->loc;
            if (x->kind == E_INT)
                x->u.i.v = -x->u.i.v;
            else
                x->u.f.v = -x->u.f.v;
            return x;
        }
        return NULL;
    default: return NULL;
    }
}

Expr *lower_seq(Reader *R, const Sx *e, ExprKind k, LowerFn f)
{
    Expr *x = expr_new(R->a, k, e->loc);
    x->u.list.n = e->u.elems.n;
    x->u.list.items = arena_array(R->a, (size_t)e->u.elems.n, sizeof(Expr *));
    for (int i = 0; i < e->u.elems.n; i++)
        if (!(x->u.list.items[i] = f(R, e->u.elems.items[i])))
            return NULL;
    return x;
}

Expr *lower_dict(Reader *R, const Sx *e, LowerFn f)
{
    Expr *x = expr_new(R->a, E_DICT, e->loc);
    int n = e->u.pairs.n / 2;
    x->u.dict.n = n;
    x->u.dict.keys = arena_array(R->a, (size_t)n, sizeof(Expr *));
    x->u.dict.vals = arena_array(R->a, (size_t)n, sizeof(Expr *));
    for (int i = 0; i < n; i++) {
        if (!(x->u.dict.keys[i] = f(R, e->u.pairs.items[2 * i])))
            return NULL;
        if (!(x->u.dict.vals[i] = f(R, e->u.pairs.items[2 * i + 1])))
            return NULL;
    }
    return x;
}

/* The keywords of a call's arguments l (nkw of them), in order: an array
 * equal to one of a call read lately is that array (no one writes into a
 * call's keywords; a call of a large module, R.call_tir's out_sinfo, has the
 * same ones as the line before). */
static Sym **shared_keywords(Reader *R, const SxList *l, int nkw)
{
    Sym *first = NULL;
    for (int i = 0; i < l->n && !first; i++)
        first = l->keys[i];
    int slot = (int)(((uintptr_t)first >> 4) * 7 + (uintptr_t)nkw) & 7;
    Sym **kw = R->kws[slot];
    if (kw && R->nkws[slot] == nkw) {
        int k = 0;
        for (int i = 0; i < l->n && kw; i++)
            if (l->keys[i] && l->keys[i] != kw[k++])
                kw = NULL;
        if (kw)
            return kw;
    }
    kw = arena_array(R->a, (size_t)nkw, sizeof(Sym *));
    for (int i = 0, k = 0; i < l->n; i++)
        if (l->keys[i])
            kw[k++] = l->keys[i];
    R->kws[slot] = kw;
    R->nkws[slot] = nkw;
    return kw;
}

/* A generic call: the operator by name, arguments lowered by f. */
Expr *lower_call(Reader *R, const Sx *e, const char *name, LowerFn f)
{
    const SxList *l = &e->u.call.args;
    Expr *x = expr_new(R->a, E_CALL, e->loc);
    x->u.call.op = e->u.call.fn->kind == SX_NAME && e->u.call.fn->u.name->str == name ? e->u.call.fn->u.name : S(R, name);
    int nkw = 0;
    for (int i = 0; i < l->n; i++)
        nkw += l->keys && l->keys[i];
    x->u.call.nargs = l->n - nkw;
    x->u.call.nkw = nkw;
    x->u.call.args = arena_array(R->a, (size_t)l->n, sizeof(Expr *));
    if (nkw)
        x->u.call.kw = shared_keywords(R, l, nkw);
    int p = 0, k = 0;
    for (int i = 0; i < l->n; i++) {
        Expr *v = f(R, l->items[i]);
        if (!v)
            return NULL;
        if (l->keys && l->keys[i])
            x->u.call.args[x->u.call.nargs + k++] = v;
        else
            x->u.call.args[p++] = v;
    }
    return x;
}

/* "inf", "-inf" and "nan": how the printer writes the floats that have no
 * literal, in T.float32("nan") and in R.const's lists. */
int special_float(const char *s, double *d)
{
    if (streq(s, "inf"))
        *d = INFINITY;
    else if (streq(s, "-inf"))
        *d = -INFINITY;
    else if (streq(s, "nan"))
        *d = NAN;
    else
        return -1;
    return 0;
}

Expr *typed_literal(Reader *R, const Sx *e, DType t, const Sx *v)
{
    Expr *x = NULL;
    if (v->kind == SX_STR && dtype_is_float(t)) {
        double d;
        if (special_float(v->u.str.s, &d)) {
            ERR(R, v->loc, "expected \"inf\", \"-inf\" or \"nan\"");
            return NULL;
        }
        x = expr_new(R->a, E_FLOAT, e->loc);
        x->u.f.v = d;
        x->u.f.dtype = t;
        return x;
    }
    Expr *lit = lower_literal(R, v);
    if (!lit || (lit->kind != E_INT && lit->kind != E_FLOAT && lit->kind != E_BOOL))
        return NULL;
    if (dtype_is_float(t)) {
        x = expr_new(R->a, E_FLOAT, e->loc);
        x->u.f.v = lit->kind == E_FLOAT ? lit->u.f.v : lit->kind == E_INT ? (double)lit->u.i.v : lit->u.b;
        x->u.f.dtype = t;
    } else if (t == DT_BOOL) {
        x = expr_new(R->a, E_BOOL, e->loc);
        x->u.b = lit->kind == E_BOOL ? lit->u.b : lit->kind == E_INT ? lit->u.i.v != 0 : lit->u.f.v != 0;
    } else if (lit->kind == E_INT) {
        x = expr_int(R->a, lit->u.i.v, t, e->loc);
    } else {
        return NULL;
    }
    return x;
}

/* Arithmetic on operands lowered by f: TIR expressions, or Relax dimensions. */
static const BinOp binops[] = {
    [OP_ADD] = B_ADD, [OP_SUB] = B_SUB, [OP_MUL] = B_MUL, [OP_DIV] = B_DIV,
    [OP_FLOORDIV] = B_FLOORDIV, [OP_MOD] = B_FLOORMOD, [OP_LT] = B_LT, [OP_LE] = B_LE,
    [OP_GT] = B_GT, [OP_GE] = B_GE, [OP_EQ] = B_EQ, [OP_NE] = B_NE, [OP_AND] = B_AND, [OP_OR] = B_OR,
    [OP_BITAND] = B_BITAND, [OP_BITOR] = B_BITOR, [OP_BITXOR] = B_BITXOR, [OP_SHL] = B_SHL, [OP_SHR] = B_SHR,
};

Expr *lower_arith(Reader *R, const Sx *e, LowerFn f)
{
    if (e->kind == SX_UNARY) {
        Expr *lit = lower_literal(R, e);
        if (lit)
            return lit;
        Expr *a = f(R, e->u.bin.a);
        if (!a || e->u.bin.op == OP_POS)
            return a;
        /* Negated literals fold, so -(-1) and --0 print as what they read back as. */
        if (e->u.bin.op == OP_NEG && a->kind == E_INT && a->u.i.v != INT64_MIN) {
            a->u.i.v = -a->u.i.v;
            a->loc = e->loc;
            return a;
        }
        if (e->u.bin.op == OP_NEG && a->kind == E_FLOAT) {
            a->u.f.v = -a->u.f.v;
            a->loc = e->loc;
            return a;
        }
        Expr *x = expr_new(R->a, E_UNARY, e->loc);
        x->u.un.op = e->u.bin.op == OP_NOT ? U_NOT : e->u.bin.op == OP_INVERT ? U_BITNOT : U_NEG;
        x->u.un.a = a;
        return x;
    }
    Expr *x = expr_new(R->a, E_BIN, e->loc);
    x->u.bin.op = binops[e->u.bin.op];
    if (!(x->u.bin.a = f(R, e->u.bin.a)) || !(x->u.bin.b = f(R, e->u.bin.b)))
        return NULL;
    return x;
}

/* A shape, (4, n) or a single dimension, each lowered by f. */
Expr **lower_shape(Reader *R, const Sx *e, int *ndim, LowerFn f)
{
    if (e->kind == SX_INT || e->kind == SX_NAME || e->kind == SX_BINOP || e->kind == SX_CALL) {
        Expr **s = arena_array(R->a, 1, sizeof(Expr *));
        *ndim = 1;
        return (s[0] = f(R, e)) ? s : NULL;
    }
    if (e->kind != SX_TUPLE && e->kind != SX_LIST) {
        ERR(R, e->loc, "expected a shape, as in (4, 8)");
        return NULL;
    }
    *ndim = e->u.elems.n;
    Expr **s = arena_array(R->a, (size_t)*ndim, sizeof(Expr *));
    for (int i = 0; i < *ndim; i++) {
        if (!(s[i] = f(R, e->u.elems.items[i])))
            return NULL;
        int64_t v;
        if (expr_const_int(s[i], &v) == 0 && v < 0) {
            ERR(R, e->u.elems.items[i]->loc, "negative dimension %lld", (long long)v);
            return NULL;
        }
    }
    return s;
}

/* ---- declarations: symbolic variables and meta variables ---- */

/* The symbolic variable name of the function being read, declared on first
 * use (a string dimension "n") or by `n = T.int64()`. */
Var *sym_var(Reader *R, Sym *name, Loc loc, DType t)
{
    if (name->bind_kind == BK_SYM)
        return name->bind;
    Var *v = var_new(R->a, name, VAR_SYM, loc);
    v->dtype = t;
    int cap = R->fn->nsyms;
    vec_push(R->a, &R->fn->syms, &R->fn->nsyms, &cap, v);
    bind_sym(R, name, BK_SYM, v);
    return v;
}

/* T.int64() or T.int32(): a symbolic variable's declaration, its dtype in *t. */
static int is_sym_ctor(Reader *R, const Sx *v, DType *t)
{
    return v->kind == SX_CALL && v->u.call.args.n == 0 && dtype_of_ctor(call_name(R, v), t) == 0 &&
           (*t == DT_INT64 || *t == DT_INT32);
}

/* I.meta_var(v) or T.meta_var(v): a name standing for a constant. */
static int is_meta_var(Reader *R, const Sx *v)
{
    const char *n = call_name(R, v);
    return n && (streq(n, "I.meta_var") || streq(n, "T.meta_var") || streq(n, "R.meta_var"));
}

/* Whether st declares names rather than computing: `n = T.int64()`,
 * `N, C = T.int64(), T.int64()` or `k = I.meta_var(T.int64(16))`, and tuples
 * mixing the two (`N, C = T.int64(), I.meta_var(T.int64(16))`). */
int is_decl(Reader *R, const St *st)
{
    if (st->kind != ST_ASSIGN || st->u.assign.annot)
        return 0;
    const Sx *t = st->u.assign.target, *v = st->u.assign.value;
    DType dt;
    if (t->kind == SX_NAME)
        return is_sym_ctor(R, v, &dt) || is_meta_var(R, v);
    if (t->kind != SX_TUPLE || v->kind != SX_TUPLE || v->u.elems.n == 0)
        return 0;
    for (int i = 0; i < v->u.elems.n; i++)
        if (!is_sym_ctor(R, v->u.elems.items[i], &dt) && !is_meta_var(R, v->u.elems.items[i]))
            return 0;
    return 1;
}

static int declare_one(Reader *R, const Sx *name, const Sx *v)
{
    if (name->kind != SX_NAME || strchr(name->u.name->str, '.'))
        return ERR(R, name->loc, "a declaration names a variable");
    Sym *s = name->u.name;
    DType t;
    if (is_sym_ctor(R, v, &t)) {
        if (s->bind_kind != BK_NONE && s->bind_kind != BK_SYM)
            return ERR(R, name->loc, "'%s' is already defined; a symbolic variable needs a name of its own", s->str);
        if (t != DT_INT64 && R->fn && R->fn->kind == F_RELAX)
            return ERR(R, v->loc, "'%s' is a symbolic variable of a Relax function, which is int64: declare it "
                       "with T.int64()", s->str);
        Var *x = sym_var(R, s, name->loc, t);
        if (x->dtype != t)
            return ERR(R, v->loc, "symbolic variable '%s' was declared as %s", s->str, dtype_name(x->dtype));
        return 0;
    }
    Args a;
    const char *cn = call_name(R, v);
    if (split_args(R, v, &a) || want_args(R, v, &a, 1, 1, cn) || check_kwargs(R, &a, cn))
        return -1;
    const Sx *c = a.pos[0];
    Expr *x = NULL;
    if (c->kind == SX_CALL && dtype_of_ctor(call_name(R, c), &t) == 0 && t != DT_HANDLE) {
        Args b;
        if (split_args(R, c, &b) == 0 && b.npos == 1 && b.nkw == 0)
            x = typed_literal(R, c, t, b.pos[0]);
    } else {
        x = lower_literal(R, c);
    }
    if (!x || (x->kind != E_INT && x->kind != E_FLOAT && x->kind != E_BOOL))
        return R->src->errors ? -1 : ERR(R, c->loc, "%s stands for a constant, such as 16 or T.int64(16)", cn);
    if (s->bind_kind != BK_NONE)
        return ERR(R, name->loc, "'%s' is already defined", s->str);
    bind_sym(R, s, BK_META, x);
    return 0;
}

int lower_decl(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target, *v = st->u.assign.value;
    if (t->kind == SX_NAME)
        return declare_one(R, t, v);
    if (t->u.elems.n != v->u.elems.n)
        return ERR(R, st->loc, "%d names and %d declarations", t->u.elems.n, v->u.elems.n);
    for (int i = 0; i < t->u.elems.n; i++)
        if (declare_one(R, t->u.elems.items[i], v->u.elems.items[i]))
            return -1;
    return 0;
}

/* A use of a meta variable: a fresh copy of its constant. */
Expr *meta_use(Reader *R, const Sym *s, Loc loc)
{
    const Expr *c = s->bind;
    Expr *x = expr_new(R->a, c->kind, loc);
    x->u = c->u;
    return x;
}

/* ---- module ---- */

/* The function named by cls.f or Module.f, or NULL when e is not such a name. */
Sym *global_name(Reader *R, const Sx *e)
{
    if (e->kind != SX_NAME)
        return NULL;
    /* most names called are operators (R.add, R.nn.conv2d): the first
     * letter tells them apart without a search for dots */
    const char *s = e->u.name->str;
    if (s[0] != 'c' && s[0] != R->m->name->str[0])
        return NULL;
    const char *dot = strchr(s, '.');
    if (!dot || strchr(dot + 1, '.'))
        return NULL;
    size_t n = (size_t)(dot - s);
    if (!((n == 3 && strncmp(s, "cls", 3) == 0) || (n == R->m->name->len && strncmp(s, R->m->name->str, n) == 0)))
        return NULL;
    if (R->dotted_in != e->u.name) {
        R->dotted_in = e->u.name;
        R->global_out = intern_cstr(&R->m->names, dot + 1);
    }
    return R->global_out;
}

/* A keyword argument that must be True or False, when given. */
static int bool_kwarg(Reader *R, const Sx *v, const char *what)
{
    if (v && v->kind != SX_TRUE && v->kind != SX_FALSE)
        return ERR(R, v->loc, "%s must be True or False", what);
    return 0;
}

static int decorator_kind(Reader *R, const Sx *d, Func *f)
{
    const char *n = d->kind == SX_CALL ? call_name(R, d) : dotted(R, d);
    FuncKind *k = &f->kind;
    if (n && (streq(n, "R.function") || streq(n, "tvm.script.relax.function")))
        *k = F_RELAX;
    else if (n && (streq(n, "T.prim_func") || streq(n, "tvm.script.tir.prim_func")))
        *k = F_PRIM;
    else
        return ERR(R, d->loc, "unknown decorator '@%s'; expected @R.function or @T.prim_func", n ? n : "...");
    if (d->kind == SX_CALL) {
        Args a;
        if (split_args(R, d, &a) || want_args(R, d, &a, 0, 0, n))
            return -1;
        Sx *p = kwarg(&a, "private"), *pure = *k == F_RELAX ? kwarg(&a, "pure") : NULL;
        /* s_tir=True marks a PrimFunc of schedulable blocks (TVM's tvm.s_tir);
         * every PrimFunc lopt reads may hold blocks, so it only needs checking. */
        Sx *stir = *k == F_PRIM ? kwarg(&a, "s_tir") : NULL;
        /* check_well_formed=False: lopt verifies every function it reads either way */
        Sx *wf = kwarg(&a, "check_well_formed");
        if (check_kwargs(R, &a, n) || bool_kwarg(R, p, "private") || bool_kwarg(R, stir, "s_tir") ||
            bool_kwarg(R, pure, "pure") || bool_kwarg(R, wf, "check_well_formed"))
            return -1;
        f->is_private = p && p->kind == SX_TRUE;
        f->is_impure = pure && pure->kind == SX_FALSE;
        f->s_tir = stir && stir->kind == SX_TRUE;
        f->no_wf_check = wf && wf->kind == SX_FALSE;
    }
    return 0;
}

static Func *declare_func(Reader *R, const St *def)
{
    if (def->u.def.decorators.n != 1)
        return ERR(R, def->loc, "a function needs exactly one decorator: @R.function or @T.prim_func"), NULL;
    Func *f = arena_zalloc(R->a, sizeof *f);
    if (decorator_kind(R, def->u.def.decorators.items[0], f))
        return NULL;
    f->name = def->u.def.name;
    f->loc = def->u.def.name_loc;
    Func *old = module_find(R->m, f->name);
    if (old)
        return ERR(R, f->loc, "duplicate function '%s' (first defined at line %d)", f->name->str, old->loc.line), NULL;
    module_add(R->m, f);
    return f;
}

static int lower_class(Reader *R, const St *cls)
{
    const SxList *ds = &cls->u.def.decorators;
    const Sx *dx = ds->n == 1 ? ds->items[0] : NULL;
    const char *d = !dx ? NULL : dx->kind == SX_CALL ? call_name(R, dx) : dotted(R, dx);
    if (!d || (strcmp(d, "I.ir_module") != 0 && strcmp(d, "tvm.script.ir_module") != 0 && strcmp(d, "ir_module") != 0))
        return ERR(R, cls->loc, "a module class needs the decorator @I.ir_module");
    if (dx->kind == SX_CALL) {
        /* @I.ir_module(s_tir=True, check_well_formed=False): lopt verifies every
         * module it reads, and its PrimFuncs may hold blocks either way. */
        Args a;
        if (split_args(R, dx, &a) || want_args(R, dx, &a, 0, 0, d))
            return -1;
        Sx *stir = kwarg(&a, "s_tir"), *wf = kwarg(&a, "check_well_formed");
        if (check_kwargs(R, &a, d) || bool_kwarg(R, stir, "s_tir") || bool_kwarg(R, wf, "check_well_formed"))
            return -1;
        R->m->s_tir = stir && stir->kind == SX_TRUE;
        R->m->no_wf_check = wf && wf->kind == SX_FALSE;
    }
    R->m->name = cls->u.def.name;
    const StList *body = &cls->u.def.body;
    for (int i = 0; i < body->n; i++) {
        const St *st = body->items[i];
        const char *cn = st->kind == ST_EXPR ? call_name(R, st->u.expr) : NULL;
        if (st->kind == ST_LOWERED || is_docstring(st)) {
            continue;
        } else if (cn && (streq(cn, "I.module_global_infos") || streq(cn, "I.module_attrs"))) {
            Expr **slot = cn[2] == 'm' && cn[9] == 'g' ? &R->m->global_infos : &R->m->module_attrs;
            if (*slot)
                return ERR(R, st->loc, "%s given twice", cn);
            Args a;
            if (split_args(R, st->u.expr, &a) || want_args(R, st->u.expr, &a, 1, 1, cn) || check_kwargs(R, &a, cn))
                return -1;
            if (a.pos[0]->kind != SX_DICT)
                return ERR(R, a.pos[0]->loc, "%s takes a dictionary", cn);
            if (!(*slot = lower_dict(R, a.pos[0], lower_attr_value)))
                return -1;
        } else if (st->kind != ST_PASS) {
            return ERR(R, st->loc, "a module class holds functions, I.module_global_infos and I.module_attrs");
        }
    }
    return 0;
}

static int lower_file(Reader *R, const SyntaxFile *file)
{
    /* a module's docstrings aside */
    const St *st = NULL;
    for (int i = 0; i < file->body.n; i++) {
        const St *x = file->body.items[i];
        if (is_docstring(x))
            continue;
        if (st)
            return ERR(R, x->loc, "a file holds one module or one function; this is a second");
        st = x;
    }
    if (!st)
        return ERR(R, FIRST_LINE, "empty input: expected an @I.ir_module class or a function");
    if (st->kind == ST_CLASS)
        return lower_class(R, st);
    if (st->kind == ST_LOWERED) {
        R->m->bare = 1;
        return 0;
    }
    return ERR(R, st->loc, "expected an @I.ir_module class or a function");
}

/* ---- lowering while parsing ---- */

static Ctx *top(Reader *R)
{
    return R->nctx ? &R->ctx[R->nctx - 1] : NULL;
}

static Ctx *push_ctx(Parser *P, int kind)
{
    Reader *R = P->R;
    Ctx *c = &R->ctx[R->nctx++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->depth = P->depth + 1;
    c->mark = arena_mark(&P->syn);
    c->undo = R->nundo;
    return c;
}

static void pop_ctx(Parser *P)
{
    Reader *R = P->R;
    arena_release(&P->syn, R->ctx[--R->nctx].mark);
}

int stream_class(Parser *P, Sym *name)
{
    Reader *R = P->R;
    memset(&P->decos, 0, sizeof P->decos);   /* the class's own decorators */
    if (name) {
        R->m->name = name;
        R->in_class = 1;
    } else {
        R->in_class = 0;
    }
    return 0;
}

int stream_def_begin(Parser *P, St *header)
{
    Reader *R = P->R;
    Func *f;
    if (R->nctx) {
        /* a Relax function defined in a Relax function's body, or in its
         * dataflow block, as TVM reads one: a local value */
        Ctx *o = top(R);
        if (o->kind == CTX_PRIM || R->nctx >= MAX_CTX - 1)
            return ERR(R, header->loc, "a function may be defined only in a Relax function's body or dataflow block (not in a prim_func)");
        if (o->kind == CTX_DATAFLOW && o->closed)
            return ERR(R, header->loc, "R.output(...) must end the dataflow block");
        if (o->kind == CTX_RELAX && relax_params(R, o))
            return -1;
        if (header->u.def.decorators.n != 1)
            return ERR(R, header->loc, "a function needs exactly one decorator: @R.function");
        f = arena_zalloc(R->a, sizeof *f);
        if (decorator_kind(R, header->u.def.decorators.items[0], f))
            return -1;
        if (f->kind != F_RELAX)
            return ERR(R, header->loc, "a function defined inside a Relax function is a Relax function");
        f->name = header->u.def.name;
        f->loc = header->u.def.name_loc;
        f->is_local = 1;
    } else {
        if (!R->in_class && R->m->nfuncs > 0)
            return ERR(R, header->loc, "a file holds one module or one function; this is a second");
        if (!(f = declare_func(R, header)))
            return -1;
    }
    Ctx *c = push_ctx(P, f->kind == F_RELAX ? CTX_RELAX : CTX_PRIM);
    c->f = f;
    c->header = header;
    R->fn = f;
    return 0;
}

int stream_def_end(Parser *P, St *header, StList *body)
{
    Reader *R = P->R;
    Ctx *c = top(R);
    int r = 0;
    if (c->kind == CTX_PRIM) {
        header->u.def.body = *body;
        r = lower_prim_func(R, c->f, header);
    } else {
        for (int i = 0; i < body->n && r == 0; i++)
            r = relax_stmt(R, c, body->items[i]);
        if (r == 0)
            r = relax_end(R, c);
        unbind_to(R, c->undo);
        unbind_relax(c->f);
    }
    Func *f = c->f;
    pop_ctx(P);
    if (r == 0 && f->is_local) {
        /* the outer function binds the local one's name: inner = <function> */
        Ctx *o = top(R);
        R->fn = o->f;
        if (!o->block) {
            o->block = new_block(R, o->f, 0, header->loc);
            o->cap = 0;
        }
        Binding *bd = arena_zalloc(R->a, sizeof *bd);
        bd->loc = header->loc;
        bd->value = expr_new(R->a, E_FUNC, header->loc);
        bd->value->u.global.fn = f;
        bd->value->u.global.name = f->name;
        bd->var = var_new(R->a, f->name, VAR_RELAX, f->loc);
        bd->var->dataflow = o->kind == CTX_DATAFLOW;   /* visible after the block if R.output names it */
        bind_sym(R, f->name, BK_RVAR, bd->var);
        vec_push(R->a, &o->block->binds, &o->block->nbinds, &o->cap, bd);
    }
    header->kind = ST_LOWERED;
    memset(&header->u.def.body, 0, sizeof header->u.def.body);
    return r;
}

/* A dataflow block directly in a Relax function's body is read as it comes. */
int stream_with_begin(Parser *P, St *header)
{
    Reader *R = P->R;
    Ctx *c = top(R);
    if (!c || c->kind != CTX_RELAX || c->depth != P->depth || !is_call_of(R, header->u.with.ctx, "R.dataflow"))
        return 0;
    if (c->f->result)
        return ERR(R, header->loc, "statement after return");
    if (relax_params(R, c))
        return -1;
    Func *f = c->f;
    c->block = NULL;
    Ctx *d = push_ctx(P, CTX_DATAFLOW);
    df_begin(R, d, f, header->loc);
    return 0;
}

int stream_with_end(Parser *P, St *header, StList *body)
{
    Reader *R = P->R;
    Ctx *d = top(R);
    if (!d || d->kind != CTX_DATAFLOW || d->depth != P->depth + 1)
        return 0;
    for (int i = 0; i < body->n; i++)
        if (df_stmt(R, d, body->items[i]))
            return -1;
    df_end(R, d);
    pop_ctx(P);
    header->kind = ST_LOWERED;
    return 0;
}

int stream_stmt(Parser *P, St *st)
{
    Reader *R = P->R;
    Ctx *c = top(R);
    if (!c || c->depth != P->depth)
        return 0;
    if (c->kind == CTX_PRIM)
        return 0;
    int r = 0;
    if (st->kind != ST_LOWERED)
        r = c->kind == CTX_DATAFLOW ? df_stmt(R, c, st) : relax_stmt(R, c, st);
    arena_release(&P->syn, c->mark);
    return r ? -1 : 1;
}

static int resolve_fixups(Reader *R)
{
    for (int i = 0; i < R->nfixups; i++) {
        Expr *x = R->fixups[i];
        x->u.global.fn = module_find(R->m, x->u.global.name);
        if (!x->u.global.fn)
            return ERR(R, x->loc, "unknown function '%s' in module %s", x->u.global.name->str, R->m->name->str);
    }
    return 0;
}

Module *read_module(Source *src)
{
    return read_module_with(src, NULL);
}

/* What the module's arena may take still (Arena.expect): the lexer's guess
 * from the input left, while the syntax read is lowered as it comes (a
 * Relax function's statements); while a PrimFunc's is kept to be lowered
 * whole at its end, the rate so far says nothing of it, and any amount
 * may come. */
static size_t read_expect(const void *data)
{
    const Parser *P = data;
    if (P->syn.used > 65536)
        return SIZE_MAX;
    return lex_expect(&P->lx);
}

static void free_module(void *m)
{
    module_free(m);
}

/* What a parse holds beside the module: the syntax tree, the lexer's kept
 * text and the reader's undo list; freed by oom_fail too if an allocation
 * fails while it parses. */
static void parse_free(void *p)
{
    Parser *P = p;
    free(P->R->undo);
    P->R->undo = NULL;
    arena_free(&P->syn);
    lexer_done(&P->lx);
}

static void parse_done(Parser *P)
{
    oom_keep(P);
    parse_free(P);
}

Module *read_module_with(Source *src, const Constants *k)
{
    Module *m = module_new();
    oom_defer(free_module, m);
    Parser P;
    memset(&P, 0, sizeof P);
    lexer_init(&P.lx, src, &m->arena, &m->names);
    if (lexer_check_utf8(&P.lx)) {
        lexer_done(&P.lx);
        module_free(m);
        return NULL;
    }
    m->arena.expect = read_expect;
    m->arena.expect_data = &P;
    Ctx ctx[MAX_CTX];
    Reader R = { .src = src, .m = m, .a = &m->arena, .ctx = ctx, .consts = k, .keep = &P.lx.keep };
    P.R = &R;
    R.syn = &P.syn;
    oom_defer(parse_free, &P);
    int failed = yyparse(&P) != 0 || src->errors > 0;
    m->arena.expect = NULL;
    m->arena.expect_data = NULL;
    m->headers = P.lx.headers;
    m->nheaders = P.lx.nheaders;
    if (!failed)
        failed = lower_file(&R, &P.file) != 0 || resolve_fixups(&R) != 0 || src->errors > 0;
    oom_keep(m);
    unbind_to(&R, 0);
    parse_done(&P);
    if (failed) {
        module_free(m);
        return NULL;
    }
    return m;
}

/* An index map given on its own, as in --map 'lambda i, j: (j, i)': the text
 * is parsed as a file of one expression statement. */
Expr *read_index_map(Source *src, Module *m)
{
    return read_index_map_in(src, m, NULL, 0);
}

Expr *read_index_map_in(Source *src, Module *m, Var *const *scope, int n)
{
    Parser P;
    memset(&P, 0, sizeof P);
    lexer_init(&P.lx, src, &m->arena, &m->names);
    Ctx ctx[MAX_CTX];
    Reader R = { .src = src, .m = m, .a = &m->arena, .ctx = ctx };
    P.R = &R;
    R.syn = &P.syn;
    oom_defer(parse_free, &P);
    Expr *x = NULL;
    for (int i = 0; i < n; i++)
        bind_sym(&R, scope[i]->name, BK_TVAR, scope[i]);
    if (yyparse(&P) == 0 && src->errors == 0) {
        const StList *body = &P.file.body;
        if (body->n == 0)
            ERR(&R, FIRST_LINE, "empty index map: expected lambda i, j: (...)");
        else if (body->n > 1)
            ERR(&R, body->items[1]->loc, "an index map is one lambda; this is a second statement");
        else if (body->items[0]->kind != ST_EXPR || body->items[0]->u.expr->kind != SX_LAMBDA)
            ERR(&R, body->items[0]->loc, "expected an index map: lambda i, j: (...)");
        else
            x = lower_index_map(&R, body->items[0]->u.expr);
    }
    oom_keep(m);
    unbind_to(&R, 0);
    parse_done(&P);
    return src->errors ? NULL : x;
}
