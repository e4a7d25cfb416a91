/* Gives the syntax tree its meaning: decorators select Relax or TIR, names
 * resolve to variables and buffers in scope, calls of known constructs
 * (T.Buffer, T.block, R.Tensor, R.const, T.index_map, ...) become IR nodes.
 * It runs while the parser does (the stream_* hooks): a Relax function is
 * lowered statement by statement and its syntax released as it goes.
 * Relies on syntax.h (the tree) and ir.h (what it builds). */
#include "reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/elem.h"
#include "../ir/ops.h"
#include "lexer.h"
#include "parser.h"

enum { BK_NONE, BK_RVAR, BK_TVAR, BK_BUF, BK_SYM, BK_LOCAL, BK_META };

typedef struct Undo {
    Sym *sym;
    void *bind;
    int kind;
} Undo;

enum { SHAPE_CACHE = 64 };

typedef struct Reader {
    Expr **shapes[SHAPE_CACHE];   /* recent constant Relax shapes, shared */
    int shape_n[SHAPE_CACHE];
    StructInfo *tensors[SHAPE_CACHE];  /* recent tensor annotations, shared */
    Source *src;
    Module *m;
    Arena *a;
    Func *fn;
    Expr **fixups;                /* cls.f references read before f was */
    int nfixups, capfixups;
    struct Ctx *ctx;              /* functions and dataflow blocks being read */
    int nctx;
    int in_class;
    Undo *undo;
    int nundo, capundo;
    const Constants *consts;      /* --constants: what metadata[...] references read */
    Arena *syn;                   /* the parser's syntax nodes, released statement by statement */
} Reader;

static const Loc NOWHERE = { 0, 0 }, FIRST_LINE = { 1, 1 };

#define ERR(R, loc, ...) diag_error((R)->src, (loc), __VA_ARGS__)

/* ---- names and scopes ---- */

static void bind(Reader *R, Sym *s, int kind, void *p)
{
    Undo u = { s, s->bind, s->bind_kind };
    if (R->nundo == R->capundo) {
        R->capundo = R->capundo ? R->capundo * 2 : 64;
        R->undo = realloc(R->undo, (size_t)R->capundo * sizeof *R->undo);
        if (!R->undo)
            abort();
    }
    R->undo[R->nundo++] = u;
    s->bind = p;
    s->bind_kind = kind;
}

static void unbind_to(Reader *R, int mark)
{
    while (R->nundo > mark) {
        Undo *u = &R->undo[--R->nundo];
        u->sym->bind = u->bind;
        u->sym->bind_kind = u->kind;
    }
}

static Sym *S(Reader *R, const char *s)
{
    return intern_cstr(&R->m->names, s);
}

/* "R.nn.conv2d" for a chain of attribute accesses on a name, else NULL. */
static const char *dotted(Reader *R, const Sx *e)
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

static int is_call_of(Reader *R, const Sx *e, const char *name)
{
    if (!e || e->kind != SX_CALL)
        return 0;
    const char *d = dotted(R, e->u.call.fn);
    return d && streq(d, name);
}

static const char *call_name(Reader *R, const Sx *e)
{
    return e && e->kind == SX_CALL ? dotted(R, e->u.call.fn) : NULL;
}

/* Positional and keyword arguments of a call, looked up by position or name. */
typedef struct Args {
    Sx *pos[16];
    int npos;
    Sym *kw[16];
    Sx *kwv[16];
    int nkw;
    int used[16];
} Args;

static int split_args(Reader *R, const Sx *call, Args *out)
{
    const SxList *l = &call->u.call.args;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < l->n; i++) {
        Sym *k = l->keys ? l->keys[i] : NULL;
        if (k) {
            if (out->nkw == 16)
                return ERR(R, l->items[i]->loc, "too many keyword arguments (limit 16)");
            out->kw[out->nkw] = k;
            out->kwv[out->nkw++] = l->items[i];
        } else {
            if (out->npos == 16)
                return ERR(R, l->items[i]->loc, "too many arguments (limit 16)");
            out->pos[out->npos++] = l->items[i];
        }
    }
    return 0;
}

static Sx *kwarg(Args *a, const char *name)
{
    for (int i = 0; i < a->nkw; i++)
        if (streq(a->kw[i]->str, name)) {
            a->used[i] = 1;
            return a->kwv[i];
        }
    return NULL;
}

/* The argument at position i, or the keyword of that name. */
static Sx *arg(Args *a, int i, const char *name)
{
    Sx *k = name ? kwarg(a, name) : NULL;
    return k ? k : i < a->npos ? a->pos[i] : NULL;
}

static int check_kwargs(Reader *R, Args *a, const char *what)
{
    for (int i = 0; i < a->nkw; i++)
        if (!a->used[i])
            return ERR(R, a->kwv[i]->loc, "unknown keyword argument '%s' to %s", a->kw[i]->str, what);
    return 0;
}

static int want_args(Reader *R, const Sx *call, Args *a, int lo, int hi, const char *what)
{
    if (a->npos < lo || a->npos > hi) {
        if (lo == hi)
            return ERR(R, call->loc, "%s takes %d positional argument%s, got %d", what, lo, lo == 1 ? "" : "s", a->npos);
        return ERR(R, call->loc, "%s takes %d to %d positional arguments, got %d", what, lo, hi, a->npos);
    }
    return 0;
}

static const char *string_arg(Reader *R, const Sx *e, const char *what)
{
    if (!e || e->kind != SX_STR) {
        ERR(R, e ? e->loc : NOWHERE, "%s must be a string", what);
        return NULL;
    }
    return e->u.str.s;
}

static int dtype_arg(Reader *R, const Sx *e, DType *out)
{
    const char *s = string_arg(R, e, "dtype");
    if (!s)
        return -1;
    if (dtype_parse(s, out) != 0 || *out == DT_HANDLE)
        return ERR(R, e->loc, "unknown dtype \"%s\"", s);
    return 0;
}

/* T.float32 -> float32, for the typed-literal and cast spellings. */
static int dtype_of_ctor(const char *name, DType *out)
{
    if (!name || strncmp(name, "T.", 2) != 0)
        return -1;
    return dtype_parse(name + 2, out);
}

/* ---- generic values shared by both dialects ---- */

static Expr *lower_literal(Reader *R, const Sx *e)
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

typedef Expr *(*LowerFn)(Reader *R, const Sx *e);

static Expr *lower_seq(Reader *R, const Sx *e, ExprKind k, LowerFn f)
{
    Expr *x = expr_new(R->a, k, e->loc);
    x->u.list.n = e->u.elems.n;
    x->u.list.items = arena_array(R->a, (size_t)e->u.elems.n, sizeof(Expr *));
    for (int i = 0; i < e->u.elems.n; i++)
        if (!(x->u.list.items[i] = f(R, e->u.elems.items[i])))
            return NULL;
    return x;
}

static Expr *lower_dict(Reader *R, const Sx *e, LowerFn f)
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

/* A generic call: the operator by name, arguments lowered by f. */
static Expr *lower_call(Reader *R, const Sx *e, const char *name, LowerFn f)
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
        x->u.call.kw = arena_array(R->a, (size_t)nkw, sizeof(Sym *));
    int p = 0, k = 0;
    for (int i = 0; i < l->n; i++) {
        Expr *v = f(R, l->items[i]);
        if (!v)
            return NULL;
        if (l->keys && l->keys[i]) {
            x->u.call.kw[k] = l->keys[i];
            x->u.call.args[x->u.call.nargs + k++] = v;
        } else {
            x->u.call.args[p++] = v;
        }
    }
    return x;
}

/* ---- declarations: symbolic variables and meta variables ---- */

/* The symbolic variable name of the function being read, declared on first
 * use (a string dimension "n") or by `n = T.int64()`. */
static Var *sym_var(Reader *R, Sym *name, Loc loc, DType t)
{
    if (name->bind_kind == BK_SYM)
        return name->bind;
    Var *v = var_new(R->a, name, VAR_SYM, loc);
    v->dtype = t;
    int cap = R->fn->nsyms;
    vec_push(R->a, &R->fn->syms, &R->fn->nsyms, &cap, v);
    bind(R, name, BK_SYM, v);
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
 * `N, C = T.int64(), T.int64()` or `k = I.meta_var(T.int64(16))`. */
static int is_decl(Reader *R, const St *st)
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
        if (!is_sym_ctor(R, v->u.elems.items[i], &dt))
            return 0;
    return 1;
}

static Expr *typed_literal(Reader *R, const Sx *e, DType t, const Sx *v);

static int declare_one(Reader *R, const Sx *name, const Sx *v)
{
    if (name->kind != SX_NAME || strchr(name->u.name->str, '.'))
        return ERR(R, name->loc, "a declaration names a variable");
    Sym *s = name->u.name;
    DType t;
    if (is_sym_ctor(R, v, &t)) {
        if (s->bind_kind != BK_NONE && s->bind_kind != BK_SYM)
            return ERR(R, name->loc, "'%s' is already defined; a symbolic variable needs a name of its own", s->str);
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
    bind(R, s, BK_META, x);
    return 0;
}

static int lower_decl(Reader *R, const St *st)
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
static Expr *meta_use(Reader *R, const Sym *s, Loc loc)
{
    const Expr *c = s->bind;
    Expr *x = expr_new(R->a, c->kind, loc);
    x->u = c->u;
    return x;
}

/* ---- TIR expressions ---- */

static Expr *lower_texpr(Reader *R, const Sx *e);

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

/* "inf", "-inf" and "nan": how the printer writes the floats that have no
 * literal, in T.float32("nan") and in R.const's lists. */
static int special_float(const char *s, double *d)
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

static Expr *typed_literal(Reader *R, const Sx *e, DType t, const Sx *v)
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

/* Constructs with a statement of their own, never values inside an expression. */
static int statement_only(const char *name)
{
    static const char *const names[] = {
        "T.alloc_buffer", "T.sblock_alloc_buffer", "T.match_buffer", "T.reads", "T.writes",
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

static Sym *global_name(Reader *R, const Sx *e);

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
    return lower_call(R, e, name, lower_texpr);
}

static const BinOp binops[] = {
    [OP_ADD] = B_ADD, [OP_SUB] = B_SUB, [OP_MUL] = B_MUL, [OP_DIV] = B_DIV,
    [OP_FLOORDIV] = B_FLOORDIV, [OP_MOD] = B_FLOORMOD, [OP_LT] = B_LT, [OP_LE] = B_LE,
    [OP_GT] = B_GT, [OP_GE] = B_GE, [OP_EQ] = B_EQ, [OP_NE] = B_NE, [OP_AND] = B_AND, [OP_OR] = B_OR,
};

static Expr *lower_arith(Reader *R, const Sx *e, LowerFn f)
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
        x->u.un.op = e->u.bin.op == OP_NOT ? U_NOT : U_NEG;
        x->u.un.a = a;
        return x;
    }
    Expr *x = expr_new(R->a, E_BIN, e->loc);
    x->u.bin.op = binops[e->u.bin.op];
    if (!(x->u.bin.a = f(R, e->u.bin.a)) || !(x->u.bin.b = f(R, e->u.bin.b)))
        return NULL;
    return x;
}

static Expr *lower_texpr(Reader *R, const Sx *e)
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
        if (strchr(s->str, '.'))
            return ERR(R, e->loc, "expected a TIR expression, found '%s'", s->str), NULL;
        if (s->bind_kind == BK_BUF)
            return ERR(R, e->loc, "buffer '%s' used as a value; index it, as in %s[i]", s->str, s->str), NULL;
        return ERR(R, e->loc, "undefined variable '%s'", s->str), NULL;
    }
    case SX_INT: case SX_FLOAT: case SX_STR: case SX_TRUE: case SX_FALSE:
        return lower_literal(R, e);
    case SX_INDEX: return lower_load(R, e);
    case SX_BINOP:
    case SX_UNARY: return lower_arith(R, e, lower_texpr);
    case SX_CALL: return lower_tcall(R, e);
    case SX_TUPLE: return lower_seq(R, e, E_TUPLE, lower_texpr);
    case SX_LIST: return lower_seq(R, e, E_LIST, lower_texpr);
    default:
        return ERR(R, e->loc, "expected a TIR expression"), NULL;
    }
}

/* Attribute dictionaries and other annotation values: literals, lists, dicts. */
static Expr *lower_index_map(Reader *R, const Sx *lam);

/* T.index_map(lambda i, j: (j, i)), with TVM's index_dtype="int32" or
 * "int64": lopt's index arithmetic is 64-bit whichever is named. */
static Expr *index_map_call(Reader *R, const Sx *e)
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

static Expr *lower_attr_value(Reader *R, const Sx *e)
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
    if (e->kind == SX_CALL && dotted(R, e->u.call.fn) && strncmp(call_name(R, e), "T.", 2) == 0)
        return lower_texpr(R, e);
    if (e->kind == SX_CALL && call_name(R, e))
        return lower_call(R, e, call_name(R, e), lower_attr_value);
    return ERR(R, e->loc, "expected a constant value"), NULL;
}

static Expr *lower_attr_dict(Reader *R, const Sx *call, const char *what)
{
    Args a;
    if (split_args(R, call, &a) || want_args(R, call, &a, 1, 1, what) || check_kwargs(R, &a, what))
        return NULL;
    if (a.pos[0]->kind != SX_DICT)
        return ERR(R, a.pos[0]->loc, "%s takes a dictionary, as in {\"key\": value}", what), NULL;
    return lower_dict(R, a.pos[0], lower_attr_value);
}

/* ---- buffers ---- */

static Expr **lower_shape(Reader *R, const Sx *e, int *ndim, LowerFn f)
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
    b->extra_keys = arena_array(R->a, (size_t)a->nkw, sizeof(Sym *));
    b->extra_vals = arena_array(R->a, (size_t)a->nkw, sizeof(Expr *));
    for (int i = 0; i < a->nkw; i++) {
        if (a->used[i])
            continue;
        int ok = 0;
        for (size_t j = 0; j < sizeof extra / sizeof extra[0]; j++)
            ok |= streq(a->kw[i]->str, extra[j]);
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

static Stmt *make_loop(Reader *R, const Sx *target, ForKind fk, Expr *min, Expr *extent, Loc loc)
{
    if (target->kind != SX_NAME)
        return ERR(R, target->loc, "a loop variable must be a name"), NULL;
    Stmt *s = stmt_new(R->a, S_FOR, loc);
    Var *v = var_new(R->a, target->u.name, VAR_TIR, target->loc);
    v->dtype = tir_dtype(extent);
    v->loop = s;
    s->u.loop.var = v;
    s->u.loop.fk = fk;
    s->u.loop.min = min;
    s->u.loop.extent = extent;
    bind(R, target->u.name, BK_TVAR, v);
    return s;
}

static Stmt *lower_for(Reader *R, const St *st)
{
    const Sx *it = st->u.loop.iter, *tg = st->u.loop.target;
    const char *name = call_name(R, it);
    ForKind fk;
    if (!name || loop_kind(name, &fk))
        return ERR(R, it->loc, "expected range(...), T.grid(...), T.serial(...), T.parallel(...), T.vectorized(...), T.unroll(...) or T.thread_binding(...)"), NULL;
    Args a;
    if (split_args(R, it, &a))
        return NULL;
    int mark = R->nundo;
    Stmt *outer = NULL, *inner = NULL;
    if (streq(name, "T.grid")) {
        int nt = tg->kind == SX_TUPLE ? tg->u.elems.n : 1;
        if (check_kwargs(R, &a, name))
            return NULL;
        if (a.npos != nt)
            return ERR(R, it->loc, "T.grid has %d extent%s for %d loop variable%s", a.npos, a.npos == 1 ? "" : "s", nt, nt == 1 ? "" : "s"), NULL;
        for (int i = 0; i < nt; i++) {
            Expr *ext = lower_texpr(R, a.pos[i]);
            if (!ext)
                return NULL;
            Stmt *s = make_loop(R, nt == 1 ? tg : tg->u.elems.items[i], FOR_SERIAL, expr_int(R->a, 0, DT_VOID, it->loc), ext, st->loc);
            if (!s)
                return NULL;
            if (inner)
                inner->u.loop.body = s;
            else
                outer = s;
            inner = s;
        }
    } else {
        if (tg->kind != SX_NAME)
            return ERR(R, tg->loc, "%s defines one loop variable", name), NULL;
        Sx *thread = fk == FOR_THREAD ? kwarg(&a, "thread") : NULL;
        if (fk == FOR_THREAD && !thread)
            return ERR(R, it->loc, "T.thread_binding needs thread=\"...\""), NULL;
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
    if (vars->kind != SX_LIST && vars->kind != SX_TUPLE)
        return ERR(R, vars->loc, "T.axis.remap takes a list of loop variables");
    int n = vars->u.elems.n, nt = tg->kind == SX_TUPLE ? tg->u.elems.n : 1;
    if ((int)strlen(kinds) != n || nt != n)
        return ERR(R, call->loc, "T.axis.remap has %d kinds, %d loop variables and %d targets; they must agree", (int)strlen(kinds), n, nt);
    for (int i = 0; i < n; i++) {
        if (kinds[i] != 'S' && kinds[i] != 'R')
            return ERR(R, a.pos[0]->loc, "unknown iterator kind '%c'; expected 'S' (spatial) or 'R' (reduce)", kinds[i]);
        const Sx *lv = vars->u.elems.items[i];
        Expr *binding = lower_texpr(R, lv);
        if (!binding)
            return -1;
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
static int block_iters(Reader *R, Block *b, const StList *body)
{
    int cap = 0, i = 0;
    for (; i < body->n; i++) {
        const St *x = body->items[i];
        const char *ax = axis_call(R, x);
        if (!ax)
            break;
        int r = streq(ax, "T.axis.remap") ? lower_remap(R, b, &cap, x, x->u.assign.value)
              : lower_axis(R, b, &cap, x, x->u.assign.value, ax);
        if (r)
            return -1;
    }
    return i;
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
    if (cn && (streq(cn, "T.block_attr") || streq(cn, "T.sblock_attr")))
        return (b->attrs = lower_attr_dict(R, x->u.expr, cn)) ? 0 : -1;
    if (cn && streq(cn, "T.where")) {
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
    int i = block_iters(R, b, body);
    if (i < 0)
        return NULL;
    /* Iterators, allocations and lets are in scope until the block ends. */
    int mark = R->nundo, r = 0;
    for (int k = 0; k < b->niters; k++)
        bind(R, b->iters[k].var->name, BK_TVAR, b->iters[k].var);
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
    if (match) {
        if (a.npos < 1 || a.pos[0]->kind != SX_NAME || a.pos[0]->u.name->bind_kind != BK_TVAR ||
            ((Var *)a.pos[0]->u.name->bind)->dtype != DT_HANDLE)
            return ERR(R, st->u.assign.value->loc, "T.match_buffer takes a T.handle parameter first"), NULL;
        h = a.pos[0]->u.name->bind;
    }
    if (!(b = lower_buffer(R, t->u.name, t->loc, match ? BUF_MATCH : BUF_ALLOC, &a, match, cn)))
        return NULL;
    b->handle = h;
    Stmt *s = stmt_new(R->a, S_ALLOC, st->loc);
    s->u.alloc = b;
    bind(R, t->u.name, BK_BUF, b);
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
    Sx *data = kwarg(&a, "data");
    if (!data)
        return ERR(R, st->u.assign.value->loc, "%s in a body declares a view of a buffer: give data=B.data", cn), NULL;
    const char *d = data->kind == SX_NAME ? data->u.name->str : NULL;
    size_t n = d ? strlen(d) : 0;
    if (!d || n < 6 || strcmp(d + n - 5, ".data") != 0)
        return ERR(R, data->loc, "data= of %s must be B.data, B a buffer in scope", cn), NULL;
    Sym *bs = intern(&R->m->names, d, n - 5);
    if (bs->bind_kind != BK_BUF)
        return ERR(R, data->loc, "'%s' is not a buffer in scope", bs->str), NULL;
    Buffer *b = lower_buffer(R, t->u.name, t->loc, BUF_ALIAS, &a, 0, cn);
    if (!b)
        return NULL;
    b->base = bs->bind;
    if (b->dtype != b->base->dtype)
        return ERR(R, st->u.assign.value->loc, "the view %s has dtype %s but %s holds %s", t->u.name->str,
                   dtype_name(b->dtype), bs->str, dtype_name(b->base->dtype)), NULL;
    Stmt *s = stmt_new(R->a, S_ALLOC, st->loc);
    s->u.alloc = b;
    bind(R, t->u.name, BK_BUF, b);
    return s;
}

static Stmt *lower_let(Reader *R, const St *st)
{
    const Sx *t = st->u.assign.target;
    if (t->kind != SX_NAME)
        return ERR(R, t->loc, "cannot assign to this target in a prim_func"), NULL;
    Expr *v = lower_texpr(R, st->u.assign.value);
    if (!v)
        return NULL;
    Var *x = var_new(R->a, t->u.name, VAR_TIR, t->loc);
    x->dtype = tir_dtype(v);
    if (st->u.assign.annot) {
        const char *an = dotted(R, st->u.assign.annot);
        if (dtype_of_ctor(an, &x->dtype) != 0)
            return ERR(R, st->u.assign.annot->loc, "expected a scalar type such as T.int32"), NULL;
    }
    Stmt *s = stmt_new(R->a, S_LET, st->loc);
    s->u.let.var = x;
    s->u.let.value = v;
    bind(R, t->u.name, BK_TVAR, x);
    return s;
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
    case ST_WITH: {
        const char *cn = call_name(R, st->u.with.ctx);
        if (cn && (streq(cn, "T.block") || streq(cn, "T.sblock")))
            return lower_block(R, st, st->u.with.ctx);
        if (cn && streq(cn, "T.init"))
            return ERR(R, st->loc, "T.init() belongs directly inside a block"), NULL;
        return ERR(R, st->u.with.ctx->loc, "expected T.block(\"name\") after 'with'"), NULL;
    }
    case ST_ASSIGN: {
        const Sx *t = st->u.assign.target;
        const char *cn = call_name(R, st->u.assign.value);
        if (t->kind == SX_INDEX)
            return lower_store(R, st);
        if (cn && (streq(cn, "T.alloc_buffer") || streq(cn, "T.sblock_alloc_buffer") ||
                   streq(cn, "T.match_buffer")))
            return lower_alloc(R, st, cn);
        if (cn && (streq(cn, "T.Buffer") || streq(cn, "T.decl_buffer")))
            return lower_alias(R, st, cn);
        if (cn && strncmp(cn, "T.axis.", 7) == 0)
            return ERR(R, st->loc, "block iterators belong directly inside a block"), NULL;
        if (is_decl(R, st))
            return lower_decl(R, st) ? NULL : stmt_new(R->a, S_SEQ, st->loc);
        return lower_let(R, st);
    }
    case ST_EXPR: {
        const Sx *e = st->u.expr;
        const char *cn = call_name(R, e);
        if (cn && (streq(cn, "T.reads") || streq(cn, "T.writes") || streq(cn, "T.block_attr") ||
                   streq(cn, "T.sblock_attr") || streq(cn, "T.where")))
            return ERR(R, st->loc, "%s belongs directly inside a block", cn), NULL;
        if (cn && streq(cn, "T.func_attr"))
            return ERR(R, st->loc, "T.func_attr belongs at the top of the function body"), NULL;
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
        Stmt *s = lower_tstmt(R, l->items[i]);
        if (!s)
            return NULL;
        if (s->kind == S_SEQ && s->u.seq.n == 0 && l->n > 1)
            continue;
        vec_push(R->a, &items, &n, &cap, s);
    }
    if (n == 0)
        return stmt_new(R->a, S_SEQ, l->n ? l->items[0]->loc : NOWHERE);
    return seq_of(R, l->items[0]->loc, items, n);
}

static int lower_prim_func(Reader *R, Func *f, const St *def)
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
    for (int i = 0; i < f->npparams; i++) {
        SxParam *p = def->u.def.params[i];
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
        if (an && streq(an, "T.Buffer") && p->annot->kind != SX_ATTR) {
            Buffer *b = lower_buffer_type(R, p->name, p->loc, p->annot);
            if (!b)
                return -1;
            f->pparams[i].buf = b;
            bind(R, p->name, BK_BUF, b);
        } else if (p->annot->kind == SX_NAME && dtype_of_ctor(an, &t) == 0) {
            Var *v = var_new(R->a, p->name, VAR_TIR, p->loc);
            v->dtype = t;
            f->pparams[i].var = v;
            bind(R, p->name, BK_TVAR, v);
        } else {
            return ERR(R, p->annot->loc, "expected T.Buffer(...), T.handle or a scalar type such as T.int32");
        }
    }
    const Sx *ret = def->u.def.ret;
    if (ret && ret->kind != SX_NONE && (dtype_of_ctor(dotted(R, ret), &f->tret) != 0 || f->tret == DT_HANDLE))
        return ERR(R, ret->loc, "a prim_func returns None or a scalar type such as T.float32");
    f->body = lower_tstmts(R, &rest);
    unbind_to(R, mark);
    return f->body ? 0 : -1;
}

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
    l.col += 1 + (int)(d->p - d->s);    /* past the opening quote */
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
        if (e->u.bin.op == OP_NOT)
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

static StructInfo *lower_tensor_sinfo(Reader *R, const Sx *e)
{
    StructInfo t = { .kind = SI_TENSOR, .loc = e->loc, .ndim = -1 }, *s = &t;
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

static StructInfo *lower_sinfo(Reader *R, const Sx *e)
{
    const char *name = e->kind == SX_CALL ? call_name(R, e) : dotted(R, e);
    if (name && strncmp(name, "R.", 2) == 0)
        name += 2;
    if (!name)
        return ERR(R, e->loc, "expected struct info such as R.Tensor((4,), dtype=\"float32\")"), NULL;
    if (streq(name, "Object"))
        return sinfo_new(R, SI_OBJECT, e->loc);
    /* bare R.Tensor and R.Tuple: any tensor, a tuple of unknown fields */
    if (e->kind != SX_CALL && streq(name, "Tensor"))
        return sinfo_new(R, SI_TENSOR, e->loc);
    if (e->kind != SX_CALL && streq(name, "Tuple")) {
        StructInfo *s = sinfo_new(R, SI_TUPLE, e->loc);
        s->nfields = -1;
        return s;
    }
    if (e->kind == SX_CALL && streq(name, "Tensor"))
        return lower_tensor_sinfo(R, e);
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
    return ERR(R, e->loc, "unknown struct info '%s'; expected R.Tensor, R.Tuple, R.Shape, R.Prim or R.Object", name), NULL;
}

static int is_sinfo_name(const char *n)
{
    return n && (streq(n, "R.Tensor") || streq(n, "R.Tuple") || streq(n, "R.Shape") ||
                 streq(n, "R.Prim") || streq(n, "R.Object"));
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
        return ERR(R, e->loc, "a constant holds numbers");
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
    Expr *x = expr_new(R->a, E_CONST, e->loc);
    int64_t shape[OP_MAX_RANK], n = 0;
    int ndim = 0;
    x->u.cst.dtype = v->kind == SX_FLOAT || (v->kind != SX_INT && v->kind != SX_UNARY) ? DT_FLOAT32 : DT_INT32;
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

/* lambda i, j: (j, i // 4, i % 4), bare or inside T.index_map(...) */
static Expr *lower_index_map(Reader *R, const Sx *lam)
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
        bind(R, s, BK_TVAR, x->u.map.params[i]);
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

/* The function named by cls.f or Module.f, or NULL when e is not such a name. */
static Sym *global_name(Reader *R, const Sx *e)
{
    if (e->kind != SX_NAME)
        return NULL;
    const char *s = e->u.name->str, *dot = strchr(s, '.');
    if (!dot || strchr(dot + 1, '.'))
        return NULL;
    size_t n = (size_t)(dot - s);
    if (!((n == 3 && strncmp(s, "cls", 3) == 0) || (n == R->m->name->len && strncmp(s, R->m->name->str, n) == 0)))
        return NULL;
    return intern_cstr(&R->m->names, dot + 1);
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

/* R.call_tir(cls.f, (x,), R.Tensor(...)), relax.call_tir and out_ty=: the
 * older spellings, read as R.call_tir(cls.f, (x,), out_sinfo=R.Tensor(...)). */
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
        sx_push(syn, &c->u.call.args, k, l->items[i]);
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
    /* pad_value=R.prim_value(T.float32(0)), as TVM prints a layout_transform's
     * pad value: the number itself */
    for (int i = 0; x && i < x->u.call.nkw; i++) {
        Expr **v = &x->u.call.args[x->u.call.nargs + i];
        if (streq(x->u.call.kw[i]->str, "pad_value") && (*v)->kind == E_CALL &&
            strcmp((*v)->u.call.op->str, "R.prim_value") == 0 && (*v)->u.call.nargs == 1 && (*v)->u.call.nkw == 0 &&
            ((*v)->u.call.args[0]->kind == E_INT || (*v)->u.call.args[0]->kind == E_FLOAT))
            *v = (*v)->u.call.args[0];
    }
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
    };
    SxOp op = e->u.bin.op;
    if (e->kind == SX_UNARY && op == OP_POS)
        return lower_rexpr(R, e->u.bin.a);
    if (op == OP_AND || op == OP_OR)
        return ERR(R, e->loc, "'%s' on Relax values has no operator; use R.logical_and or R.logical_or",
                   op == OP_AND ? "and" : "or"), NULL;
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
        if (streq(s->str, "R.Object") || streq(s->str, "R.Tensor") || streq(s->str, "R.Tuple")) {
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

static RBlock *new_block(Reader *R, Func *f, int dataflow, Loc loc)
{
    RBlock *b = arena_zalloc(R->a, sizeof *b);
    b->dataflow = dataflow;
    b->loc = loc;
    int cap = f->nblocks;
    vec_push(R->a, &f->blocks, &f->nblocks, &cap, b);
    return b;
}

static int lower_binding(Reader *R, RBlock *b, int *cap, const St *st, int dataflow);

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
    bd->var = var_new(R->a, t->u.name, VAR_RELAX, t->loc);
    bd->var->dataflow = dataflow;
    bd->var->sinfo = bd->annot;
    bind(R, t->u.name, BK_RVAR, bd->var);
    vec_push(R->a, &b->binds, &b->nbinds, cap, bd);
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
            /* the nested if binds the name its own branches end with */
            Sx *n = sx_new(R->a, SX_NAME, v->loc);
            n->u.name = v->name;
            *name = n;
            continue;
        }
        if (last && x->kind == ST_ASSIGN && x->u.assign.target->kind == SX_NAME) {
            *name = x->u.assign.target;
            *annot = x->u.assign.annot;
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
    const Sx *an = a1 ? a1 : a2;
    if (an && !(bd->annot = lower_sinfo(R, an)))
        return NULL;
    bd->var = var_new(R->a, n1->u.name, VAR_RELAX, n1->loc);
    bd->var->sinfo = bd->annot;
    bind(R, n1->u.name, BK_RVAR, bd->var);
    vec_push(R->a, &b->binds, &b->nbinds, cap, bd);
    return bd->var;
}

/* What is being read: a function, or a dataflow block inside a Relax function.
 * Statements at `depth` belong to it and are lowered as the parser reduces them. */
enum { CTX_RELAX, CTX_PRIM, CTX_DATAFLOW, MAX_CTX = 4 };

typedef struct Ctx {
    int kind;
    int depth;
    ArenaMark mark;       /* the syntax arena just after the header */
    int undo;             /* the scope when it began */
    Func *f;
    const St *header;
    int params_done;
    RBlock *block;        /* the open block: plain bindings, or the dataflow block */
    int cap;
    int closed;           /* the dataflow block has seen R.output */
} Ctx;

/* ---- dataflow blocks ---- */

static void df_begin(Reader *R, Ctx *d, Func *f, Loc loc)
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

static int df_stmt(Reader *R, Ctx *d, const St *x)
{
    if (d->closed)
        return ERR(R, x->loc, "R.output(...) must end the dataflow block");
    if (is_decl(R, x))
        return lower_decl(R, x);
    if (x->kind == ST_ASSIGN)
        return lower_binding(R, d->block, &d->cap, x, 1);
    if (x->kind == ST_EXPR && is_call_of(R, x->u.expr, "R.output")) {
        d->closed = 1;
        return df_output(R, d->block, x);
    }
    if (x->kind == ST_PASS)
        return 0;
    return ERR(R, x->loc, "a dataflow block holds bindings and ends with R.output(...)");
}

/* Only the outputs stay visible after the block, and they are no longer dataflow values. */
static void df_end(Reader *R, Ctx *d)
{
    RBlock *b = d->block;
    unbind_to(R, d->undo);
    for (int k = 0; k < b->nbinds; k++)
        bind(R, b->binds[k]->var->name, BK_LOCAL, b->binds[k]->var);
    for (int k = 0; k < b->noutputs; k++) {
        b->outputs[k]->dataflow = 0;
        bind(R, b->outputs[k]->name, BK_RVAR, b->outputs[k]);
    }
}

/* ---- Relax functions, a statement at a time ---- */

/* The signature is read once the body's leading `n = T.int64()` declarations
 * are in, so that symbolic dimensions declared there can be used in it. */
static int relax_params(Reader *R, Ctx *c)
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
        bind(R, p->name, BK_RVAR, v);
    }
    if (def->u.def.ret && !(f->ret = lower_sinfo(R, def->u.def.ret)))
        return -1;
    return 0;
}

static int relax_stmt(Reader *R, Ctx *c, const St *st)
{
    Func *f = c->f;
    if (f->result)
        return ERR(R, st->loc, "statement after return");
    if (st->kind == ST_PASS)
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
        return lower_binding(R, c->block, &c->cap, st, 0);
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
        if (!f->is_impure)
            return ERR(R, st->loc, "a call whose value is not bound has no effect in a pure function; "
                                   "bind it, or declare the function @R.function(pure=False)");
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
        return lower_binding(R, c->block, &c->cap, &as, 0);
    }
    return ERR(R, st->loc, "expected a binding, a dataflow block or return in a Relax function");
}

static int relax_end(Reader *R, Ctx *c)
{
    if (relax_params(R, c))
        return -1;
    if (!c->f->result)
        return ERR(R, c->header->loc, "Relax function '%s' has no return", c->f->name->str);
    return 0;
}

/* ---- module ---- */

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
        if (check_kwargs(R, &a, n) || bool_kwarg(R, p, "private") || bool_kwarg(R, stir, "s_tir") ||
            bool_kwarg(R, pure, "pure"))
            return -1;
        f->is_private = p && p->kind == SX_TRUE;
        f->is_impure = pure && pure->kind == SX_FALSE;
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
    }
    R->m->name = cls->u.def.name;
    const StList *body = &cls->u.def.body;
    for (int i = 0; i < body->n; i++) {
        const St *st = body->items[i];
        const char *cn = st->kind == ST_EXPR ? call_name(R, st->u.expr) : NULL;
        if (st->kind == ST_LOWERED) {
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
    const StList *body = &file->body;
    if (body->n == 0)
        return ERR(R, FIRST_LINE, "empty input: expected an @I.ir_module class or a function");
    if (body->n > 1)
        return ERR(R, body->items[1]->loc, "a file holds one module or one function; this is a second");
    const St *st = body->items[0];
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
        /* a Relax function defined in a Relax function's body: a local value */
        Ctx *o = top(R);
        if (o->kind != CTX_RELAX || R->nctx >= MAX_CTX - 1)
            return ERR(R, header->loc, "a function may be defined only in a Relax function's body (not in a dataflow block or a prim_func)");
        if (relax_params(R, o))
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
        bind(R, f->name, BK_RVAR, bd->var);
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

Module *read_module_with(Source *src, const Constants *k)
{
    Module *m = module_new();
    Parser P;
    memset(&P, 0, sizeof P);
    lexer_init(&P.lx, src, &m->arena, &m->names);
    Ctx ctx[MAX_CTX];
    Reader R = { .src = src, .m = m, .a = &m->arena, .ctx = ctx, .consts = k };
    P.R = &R;
    R.syn = &P.syn;
    int failed = yyparse(&P) != 0 || src->errors > 0;
    m->headers = P.lx.headers;
    m->nheaders = P.lx.nheaders;
    if (!failed)
        failed = lower_file(&R, &P.file) != 0 || resolve_fixups(&R) != 0 || src->errors > 0;
    unbind_to(&R, 0);
    free(R.undo);
    arena_free(&P.syn);
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
    Parser P;
    memset(&P, 0, sizeof P);
    lexer_init(&P.lx, src, &m->arena, &m->names);
    Ctx ctx[MAX_CTX];
    Reader R = { .src = src, .m = m, .a = &m->arena, .ctx = ctx };
    P.R = &R;
    R.syn = &P.syn;
    Expr *x = NULL;
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
    unbind_to(&R, 0);
    free(R.undo);
    arena_free(&P.syn);
    return src->errors ? NULL : x;
}
