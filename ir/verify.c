/* The verifier: every use has a definition in scope, call_tir agrees with its
 * target, accesses have the rank of their buffer, block iterator bindings
 * stay inside their domains, operators get only their attributes and the
 * arguments they take (ir/ops/), layout_transform maps are injective. Every
 * binding gets the type its value has (a constant's, a tuple's, an
 * operator's or a function's result, an if's), which an annotation must fit
 * (TVM's static check) and otherwise stands for. Runs on the reader's
 * output and after passes; on the input it also refuses calls of names
 * neither lopt nor TVM defines (names.h). */
#include <stdio.h>
#include <string.h>

#include "clone.h"
#include "indexmap.h"
#include "ir.h"
#include "names.h"
#include "ops.h"

enum { MAX_ERRORS = 20 };

typedef struct Verifier {
    Module *m;
    Source *src;
    unsigned live;        /* the stamp of the function being checked */
    int errors;
    const Func *fn;       /* the function being checked */
    int input;            /* checking the reader's output: check the names called */
    int strict;           /* warnings are errors */
    int allow_unregistered;   /* a name neither lopt nor TVM defines is a warning, not an error */
    const BlockIter *iters[64];   /* the block iterators in scope, for ranges */
    int niters;
    int guarded;          /* inside a condition (if, T.if_then_else, T.where): ranges overstate */
    Arena *types;         /* where op_result puts the types it infers */
    Arena scratch;        /* for an inferred type that is only compared with an annotation */
    StructInfo *kept[64]; /* types kept in the module's arena (inferred), by a hash of kept_t */
    TensorType kept_t[64];
    /* Results of operators without attributes met lately (op_result):
     * their result is a function of the operator and the argument types. */
    struct {
        const Sym *op;
        int n;
        TensorType args[2], out;
    } memo[32];
    /* The tensor types of the struct info of the variables arg_type read last. */
    struct {
        const StructInfo *si;
        int bad;
        TensorType t;
    } argt[2];
    int argt_next;
    const Sym *op_name;   /* the operator op_of looked up last, and what it found */
    const OpInfo *op_info;
    struct {
        const Var *var;
        const Func *fn;
    } locals[64];         /* the local functions bound (the first 64), for the types of their calls */
    int nlocals;
} Verifier;

#define VERR(V, loc, ...) ((V)->errors++ < MAX_ERRORS ? diag_error((V)->src, (loc), __VA_ARGS__) : -1)

static void enter(Verifier *V, Var *v)
{
    v->mark = V->live;
}

static void leave(Var *v)
{
    v->mark = 0;
}

/* ---- integer ranges of index expressions ---- */

typedef struct Range {
    int64_t lo, hi;
} Range;

static int range_of(const Verifier *V, const Expr *e, Range *r, int depth);

static int var_range(const Verifier *V, const Var *v, Range *r)
{
    int64_t lo, ext;
    /* a block iterator ranges over its domain inside its block */
    for (int i = 0; V && i < V->niters; i++)
        if (V->iters[i]->var == v && expr_const_int(V->iters[i]->dom, &ext) == 0 && ext > 0) {
            r->lo = 0;
            r->hi = ext - 1;
            return 0;
        }
    if (!v->loop || expr_const_int(v->loop->u.loop.min, &lo) || expr_const_int(v->loop->u.loop.extent, &ext) || ext <= 0)
        return -1;
    r->lo = lo;
    if (__builtin_add_overflow(lo, ext - 1, &r->hi))
        return -1;
    return 0;
}

static int range_of(const Verifier *V, const Expr *e, Range *r, int depth)
{
    Range a, b;
    if (depth > 64)
        return -1;
    switch (e->kind) {
    case E_INT: r->lo = r->hi = e->u.i.v; return 0;
    case E_VAR: return var_range(V, e->u.var, r);
    case E_BIN:
        if (range_of(V, e->u.bin.a, &a, depth + 1) || range_of(V, e->u.bin.b, &b, depth + 1))
            return -1;
        switch (e->u.bin.op) {
        case B_ADD:
            return __builtin_add_overflow(a.lo, b.lo, &r->lo) || __builtin_add_overflow(a.hi, b.hi, &r->hi) ? -1 : 0;
        case B_SUB:
            return __builtin_sub_overflow(a.lo, b.hi, &r->lo) || __builtin_sub_overflow(a.hi, b.lo, &r->hi) ? -1 : 0;
        case B_MUL: {
            int64_t c[4];
            if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
                __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
                return -1;
            r->lo = r->hi = c[0];
            for (int i = 1; i < 4; i++) {
                r->lo = c[i] < r->lo ? c[i] : r->lo;
                r->hi = c[i] > r->hi ? c[i] : r->hi;
            }
            return 0;
        }
        case B_FLOORDIV:
            if (b.lo != b.hi || b.lo <= 0 || a.lo < 0)
                return -1;
            r->lo = a.lo / b.lo;
            r->hi = a.hi / b.lo;
            return 0;
        case B_FLOORMOD:
            if (b.lo != b.hi || b.lo <= 0 || a.lo < 0)
                return -1;
            if (a.hi - a.lo < b.lo && a.lo % b.lo <= a.hi % b.lo) {
                r->lo = a.lo % b.lo;
                r->hi = a.hi % b.lo;
            } else {
                r->lo = 0;
                r->hi = b.lo - 1;
            }
            return 0;
        default: return -1;
        }
    default: return -1;
    }
}

/* ---- uses ---- */

static void texpr(Verifier *V, const Expr *e);

static void texprs(Verifier *V, Expr *const *items, int n)
{
    for (int i = 0; i < n; i++)
        texpr(V, items[i]);
}

static void check_rank(Verifier *V, const Buffer *b, int n, Loc loc)
{
    if (b->mark != V->live)
        VERR(V, loc, "buffer '%s' is not defined here", b->name->str);
    if (n != b->ndim)
        VERR(V, loc, "buffer '%s' has %d dimension%s but is accessed with %d ind%s", b->name->str, b->ndim,
             b->ndim == 1 ? "" : "s", n, n == 1 ? "ex" : "ices");
}

/* The accesses of a view (flatten's physical buffers) must stay inside its
 * extents wherever the loops bound the index: a view has no logical shape
 * behind it that the interpreter could name. */
static void check_view_access(Verifier *V, const Buffer *b, Expr *const *idx, int n, Loc loc)
{
    if (b->kind != BUF_ALIAS || n != b->ndim || V->guarded)
        return;
    for (int d = 0; d < n; d++) {
        int64_t ext;
        Range r;
        if (expr_const_int(b->shape[d], &ext) || range_of(V, idx[d], &r, 0))
            continue;
        if (r.lo < 0 || r.hi >= ext)
            VERR(V, loc, "index %d of '%s' ranges over [%lld, %lld] but its extent is %lld", d, b->name->str,
                 (long long)r.lo, (long long)r.hi, (long long)ext);
    }
}

/* A view names a buffer in scope, holds its dtype, and is no larger. */
static void check_view(Verifier *V, const Buffer *b, Loc loc)
{
    const Buffer *base = b->base;
    if (base->mark != V->live) {
        VERR(V, loc, "'%s' is a view of '%s', which is not a buffer in scope", b->name->str, base->name->str);
        return;
    }
    if (b->dtype != base->dtype)
        VERR(V, loc, "the view '%s' has dtype %s but '%s' holds %s", b->name->str, dtype_name(b->dtype),
             base->name->str, dtype_name(base->dtype));
    int64_t nv = 1, nb = 1, e;
    for (int d = 0; d < b->ndim; d++)
        if (expr_const_int(b->shape[d], &e) || e < 0 || __builtin_mul_overflow(nv, e, &nv))
            return;
    for (int d = 0; d < base->ndim; d++)
        if (expr_const_int(base->shape[d], &e) || e < 0 || __builtin_mul_overflow(nb, e, &nb))
            return;
    if (nv > nb)
        VERR(V, loc, "the view '%s' holds %lld elements but '%s' holds %lld", b->name->str, (long long)nv,
             base->name->str, (long long)nb);
}

static void check_name(Verifier *V, const Expr *e);

/* As TVM's builtins: the bitwise ops take integers or bools, the shifts
 * integers only. */
static void check_bits(Verifier *V, const char *op, const Expr *x, int shift)
{
    DType t = tir_dtype(x);
    if (!dtype_is_int(t) && (shift || t != DT_BOOL))
        VERR(V, x->loc, "%s takes integer%s operands, not %s", op, shift ? "" : " or bool", dtype_name(t));
}

/* A constant shift count must be one the shifted value's width allows, as
 * TVM checks it. */
static void check_bitop(Verifier *V, const Expr *e)
{
    const char *op = bitop_name(e->u.bin.op);
    int shift = e->u.bin.op == B_SHL || e->u.bin.op == B_SHR;
    int64_t k;
    check_bits(V, op, e->u.bin.a, shift);
    check_bits(V, op, e->u.bin.b, shift);
    DType t = tir_dtype(e);
    if (shift && dtype_is_int(t) && expr_const_int(e->u.bin.b, &k) == 0 && !shift_ok(t, k))
        VERR(V, e->u.bin.b->loc, "%s by %lld: the count must be at least 0 and less than %s's %d bits", op,
             (long long)k, dtype_name(t), 8 * dtype_size(t));
}

static void texpr(Verifier *V, const Expr *e)
{
    switch (e->kind) {
    case E_VAR:
        if (e->u.var->mark != V->live && e->u.var->kind != VAR_SYM)
            VERR(V, e->loc, "variable '%s' is used outside its scope", e->u.var->name->str);
        else if (e->u.var->mark != V->live && V->fn->kind == F_PRIM)
            VERR(V, e->loc, "'%s' has no value here: no parameter, buffer shape or binding of '%s' gives it one",
                 e->u.var->name->str, V->fn->name->str);
        break;
    case E_TUPLE: case E_LIST: texprs(V, e->u.list.items, e->u.list.n); break;
    case E_CALL: {
        check_name(V, e);
        int sel = e->u.call.nargs == 3 &&
                  (streq(e->u.call.op->str, "T.if_then_else") || streq(e->u.call.op->str, "T.Select"));
        if (sel) {
            texpr(V, e->u.call.args[0]);
            V->guarded++;
            texprs(V, e->u.call.args + 1, 2 + e->u.call.nkw);
            V->guarded--;
        } else {
            texprs(V, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
        }
        break;
    }
    case E_BIN:
        texpr(V, e->u.bin.a);
        texpr(V, e->u.bin.b);
        if (bitop_name(e->u.bin.op))
            check_bitop(V, e);
        break;
    case E_UNARY:
        texpr(V, e->u.un.a);
        if (e->u.un.op == U_BITNOT)
            check_bits(V, BITNOT_NAME, e->u.un.a, 0);
        break;
    case E_CAST: texpr(V, e->u.cast.a); break;
    case E_SLICE: texpr(V, e->u.slice.lo); texpr(V, e->u.slice.hi); break;
    case E_LOAD:
        check_rank(V, e->u.load.buf, e->u.load.n, e->loc);
        texprs(V, e->u.load.idx, e->u.load.n);
        check_view_access(V, e->u.load.buf, e->u.load.idx, e->u.load.n, e->loc);
        break;
    default: break;
    }
}

/* The symbolic variables in the shape of a buffer that is bound to storage
 * given to the PrimFunc (a parameter, a match_buffer, a view of one) take
 * their values from it. */
static void given_syms(Verifier *V, const Expr *e, int depth)
{
    if (depth > 64)
        return;
    switch (e->kind) {
    case E_VAR:
        if (e->u.var->kind == VAR_SYM)
            enter(V, e->u.var);
        break;
    case E_BIN: given_syms(V, e->u.bin.a, depth + 1); given_syms(V, e->u.bin.b, depth + 1); break;
    case E_UNARY: given_syms(V, e->u.un.a, depth + 1); break;
    case E_CAST: given_syms(V, e->u.cast.a, depth + 1); break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            given_syms(V, e->u.call.args[i], depth + 1);
        break;
    default: break;
    }
}

static void declare_buffer(Verifier *V, Buffer *b)
{
    b->mark = V->live;
    if (b->data)
        b->data->mark = V->live;   /* B.data is in scope with B */
    for (int i = 0; i < b->ndefs; i++)
        b->defs[i]->mark = V->live;   /* so are B.elem_offset and B.strides[i] */
    for (int i = 0; !buf_allocates(b->kind) && i < b->ndim; i++)
        given_syms(V, b->shape[i], 0);
    for (int i = 0; i < b->ndim; i++)
        texpr(V, b->shape[i]);
    /* the reader's rule, kept by every pass that reshapes a buffer */
    for (int i = 0; i < b->nsep; i++)
        if (b->axis_sep[i] < 1 || b->axis_sep[i] >= b->ndim || (i && b->axis_sep[i] <= b->axis_sep[i - 1])) {
            VERR(V, b->loc, "the axis separators of '%s' must increase and lie between 1 and %d", b->name->str, b->ndim - 1);
            break;
        }
}

static void tstmt(Verifier *V, const Stmt *s);

/* Narrows r by the clauses of a block's T.where that bound e itself
 * (e < c, e <= c, e >= c, e > c, joined by and). Returns 1 when where has a
 * clause about something else, which the range cannot see. */
static int where_narrows(const Expr *w, const Expr *e, Range *r)
{
    if (w->kind != E_BIN)
        return 1;
    if (w->u.bin.op == B_AND) {
        int a = where_narrows(w->u.bin.a, e, r), b = where_narrows(w->u.bin.b, e, r);
        return a | b;
    }
    int64_t c;
    if (!expr_equal(w->u.bin.a, e) || expr_const_int(w->u.bin.b, &c))
        return 1;
    switch (w->u.bin.op) {
    case B_LT: if (c - 1 < r->hi) r->hi = c - 1; return 0;
    case B_LE: if (c < r->hi) r->hi = c; return 0;
    case B_GT: if (c + 1 > r->lo) r->lo = c + 1; return 0;
    case B_GE: if (c > r->lo) r->lo = c; return 0;
    default: return 1;
    }
}

static void iter_binding(Verifier *V, const BlockIter *it, const Expr *where)
{
    texpr(V, it->binding);
    int64_t dom;
    Range r;
    if (expr_const_int(it->dom, &dom) || range_of(V, it->binding, &r, 0))
        return;
    /* under T.where the binding need only fit where the predicate holds */
    if (where && where_narrows(where, it->binding, &r) && (r.lo < 0 || r.hi >= dom))
        return;
    if (r.lo < 0 || r.hi >= dom) {
        VERR(V, it->binding->loc, "block iterator '%s' ranges over [%lld, %lld] but its domain is [0, %lld)",
             it->var->name->str, (long long)r.lo, (long long)r.hi, (long long)dom);
    }
}

static void regions(Verifier *V, const Region *r, int n)
{
    for (int i = 0; i < n; i++) {
        check_rank(V, r[i].buf, r[i].n, r[i].loc);
        texprs(V, r[i].idx, r[i].n);
    }
}

static void block(Verifier *V, const Block *b)
{
    for (int i = 0; i < b->niters; i++) {
        iter_binding(V, &b->iters[i], b->where);
        texpr(V, b->iters[i].dom);
    }
    int mark = V->niters;
    for (int i = 0; i < b->niters; i++) {
        enter(V, b->iters[i].var);
        if (V->niters < (int)(sizeof V->iters / sizeof V->iters[0]))
            V->iters[V->niters++] = &b->iters[i];
    }
    if (b->where) {
        texpr(V, b->where);
        V->guarded++;
    }
    regions(V, b->reads, b->nreads);
    regions(V, b->writes, b->nwrites);
    if (b->init)
        tstmt(V, b->init);
    tstmt(V, b->body);
    if (b->where)
        V->guarded--;
    V->niters = mark;
    for (int i = 0; i < b->niters; i++)
        leave(b->iters[i].var);
}

static void tstmt(Verifier *V, const Stmt *s)
{
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            tstmt(V, s->u.seq.items[i]);
        break;
    case S_FOR:
        texpr(V, s->u.loop.min);
        texpr(V, s->u.loop.extent);
        enter(V, s->u.loop.var);
        tstmt(V, s->u.loop.body);
        leave(s->u.loop.var);
        break;
    case S_BLOCK: block(V, s->u.block); break;
    case S_STORE:
        check_rank(V, s->u.store.buf, s->u.store.n, s->loc);
        texprs(V, s->u.store.idx, s->u.store.n);
        check_view_access(V, s->u.store.buf, s->u.store.idx, s->u.store.n, s->loc);
        texpr(V, s->u.store.value);
        break;
    case S_IF:
        texpr(V, s->u.branch.cond);
        V->guarded++;
        tstmt(V, s->u.branch.then);
        if (s->u.branch.orelse)
            tstmt(V, s->u.branch.orelse);
        V->guarded--;
        break;
    case S_EVAL: texpr(V, s->u.eval); break;
    case S_ALLOC:
        if (s->u.alloc->handle && s->u.alloc->handle->mark != V->live)
            VERR(V, s->loc, "T.match_buffer of '%s', which is not a parameter in scope", s->u.alloc->handle->name->str);
        if (s->u.alloc->kind == BUF_ALIAS)
            check_view(V, s->u.alloc, s->loc);
        declare_buffer(V, s->u.alloc);
        break;
    case S_LET:
        texpr(V, s->u.let.value);
        enter(V, s->u.let.var);
        break;
    case S_LOWERED:
        if (s->u.low.k == LOW_IDS) {   /* the call, then the variables it defines */
            texpr(V, s->u.low.args[0]);
            for (int i = 0; i < s->u.low.args[1]->u.list.n; i++)
                enter(V, s->u.low.args[1]->u.list.items[i]->u.var);
            break;
        }
        texprs(V, s->u.low.args, s->u.low.nargs);
        if (s->u.low.body)
            tstmt(V, s->u.low.body);
        break;
    }
}

static void prim_func(Verifier *V, Func *f)
{
    /* the scalars first: a buffer's shape may read one given after it */
    for (int i = 0; i < f->npparams; i++)
        if (!f->pparams[i].buf)
            enter(V, f->pparams[i].var);
    /* every parameter's shape gives its variables values before any is read */
    for (int i = 0; i < f->npparams; i++)
        for (int d = 0; f->pparams[i].buf && d < f->pparams[i].buf->ndim; d++)
            given_syms(V, f->pparams[i].buf->shape[d], 0);
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf)
            declare_buffer(V, f->pparams[i].buf);
    tstmt(V, f->body);
}

/* ---- Relax ---- */

static void rexpr(Verifier *V, const Expr *e);

static void rexprs(Verifier *V, Expr *const *items, int n)
{
    for (int i = 0; i < n; i++)
        rexpr(V, items[i]);
}

static const StructInfo *sinfo_of(const Expr *e)
{
    if (e->kind == E_VAR)
        return e->u.var->sinfo;
    if (e->kind == E_GETITEM) {
        const StructInfo *t = sinfo_of(e->u.get.tuple);
        int i = e->u.get.index;
        return t && t->kind == SI_TUPLE && i >= 0 && i < t->nfields ? t->fields[i] : NULL;
    }
    if (e->kind == E_CALL && streq(e->u.call.op->str, "R.call_tir"))
        for (int i = 0; i < e->u.call.nkw; i++)
            if (streq(e->u.call.kw[i]->str, "out_sinfo") && call_kwv(e)[i]->kind == E_SINFO)
                return call_kwv(e)[i]->u.sinfo;
    return NULL;
}

static const char *const kind_names[] = { "a tensor", "a tuple", "a shape", "a prim value", "an object" };

/* The kind of value e is (SI_TENSOR, SI_TUPLE, ...), as its type or its form
 * says (a call written in place: the operator's or the function's result);
 * -1 when neither says. */
static int value_kind(const Expr *e)
{
    const StructInfo *s = sinfo_of(e);
    if (s)
        return s->kind;
    if (e->kind == E_TUPLE)
        return SI_TUPLE;
    if (e->kind == E_CONST)
        return SI_TENSOR;
    if (e->kind != E_CALL)
        return -1;
    if (e->u.call.callee) {
        const Func *f = e->u.call.callee->kind == E_GLOBAL ? e->u.call.callee->u.global.fn : NULL;
        return f && f->kind == F_RELAX && f->ret ? (int)f->ret->kind : -1;
    }
    const char *op = e->u.call.op->str;
    const OpInfo *info = op_find(op);
    if (info)
        return info->tuple_out ? SI_TUPLE : SI_TENSOR;
    if (streq(op, "R.shape") || streq(op, "R.shape_of") || streq(op, "R.tensor_to_shape"))
        return SI_SHAPE;
    if (streq(op, "R.shape_to_tensor"))
        return SI_TENSOR;
    if (streq(op, "R.prim_value"))
        return SI_PRIM;
    if (streq(op, "R.match_cast") && e->u.call.nargs == 2 && e->u.call.args[1]->kind == E_SINFO)
        return e->u.call.args[1]->u.sinfo->kind;
    return -1;
}

/* Whether e may be a tensor: it is one, or nothing says what it is. */
static int maybe_tensor(const Expr *e, int *kind)
{
    *kind = value_kind(e);
    return *kind < 0 || *kind == SI_TENSOR || *kind == SI_OBJECT;
}

static void shape_text(char *buf, size_t cap, Expr *const *shape, int n)
{
    size_t len = 0;
    len += (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < n && len < cap; i++) {
        int64_t v;
        if (expr_const_int(shape[i], &v) == 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                    shape[i]->kind == E_VAR ? shape[i]->u.var->name->str : "?");
    }
    if (len < cap)
        snprintf(buf + len, cap - len, n == 1 ? ",)" : ")");
}

/* A tensor's struct info against the buffer it is bound to; unknown parts agree with anything. */
static void match_tensor(Verifier *V, const StructInfo *s, const Buffer *b, const Func *f, const char *what, int k, Loc loc)
{
    if (!s || s->kind != SI_TENSOR || !b)
        return;
    char have[128], want[128];
    if (s->shape) {
        int same = s->ndim == b->ndim;
        for (int i = 0; same && i < s->ndim; i++) {
            int64_t x, y;
            if (expr_const_int(s->shape[i], &x) == 0 && expr_const_int(b->shape[i], &y) == 0 && x != y)
                same = 0;
        }
        if (!same) {
            shape_text(have, sizeof have, s->shape, s->ndim);
            shape_text(want, sizeof want, b->shape, b->ndim);
            VERR(V, loc, "%s %d of the call to '%s' has shape %s but buffer '%s' has shape %s", what, k,
                 f->name->str, have, b->name->str, want);
            return;
        }
    } else if (s->ndim >= 0 && s->ndim != b->ndim) {
        VERR(V, loc, "%s %d of the call to '%s' has rank %d but buffer '%s' has rank %d", what, k, f->name->str,
             s->ndim, b->name->str, b->ndim);
        return;
    }
    if (s->dtype != DT_VOID && s->dtype != b->dtype)
        VERR(V, loc, "%s %d of the call to '%s' has dtype %s but buffer '%s' has dtype %s", what, k, f->name->str,
             dtype_name(s->dtype), b->name->str, dtype_name(b->dtype));
}

static const StructInfo *value_type(Verifier *V, const Expr *e, const char **by, int depth);

static void call_tir(Verifier *V, const Expr *e)
{
    if (e->u.call.nargs < 2)
        return (void)VERR(V, e->loc, "R.call_tir takes a function and a tuple of arguments");
    const Expr *fn = e->u.call.args[0], *args = e->u.call.args[1];
    const StructInfo *out = sinfo_of(e);
    const Expr *list = NULL;
    for (int i = 0; i < e->u.call.nkw; i++)
        if (streq(e->u.call.kw[i]->str, "out_sinfo") && call_kwv(e)[i]->kind == E_LIST)
            list = call_kwv(e)[i];
    if (fn->kind != E_GLOBAL)
        return (void)VERR(V, fn->loc, "R.call_tir calls a function of the module, as in cls.f");
    const Func *f = fn->u.global.fn;
    if (f->kind != F_PRIM)
        return (void)VERR(V, fn->loc, "R.call_tir calls a prim_func; '%s' is a Relax function", f->name->str);
    if (args->kind != E_TUPLE)
        return (void)VERR(V, args->loc, "the arguments of R.call_tir are a tuple, as in (x, w)");
    if (!out && !list)
        return (void)VERR(V, e->loc, "R.call_tir needs out_sinfo=R.Tensor(...)");
    const StructInfo *const *outs = &out;
    const StructInfo *from_list[64];
    int nout = 1;
    if (list) {
        /* out_sinfo=[R.Tensor(...), R.Tensor(...)]: one output each */
        nout = list->u.list.n;
        if (nout > 64)
            return (void)VERR(V, list->loc, "R.call_tir has at most 64 outputs");
        for (int i = 0; i < nout; i++) {
            if (list->u.list.items[i]->kind != E_SINFO)
                return (void)VERR(V, list->u.list.items[i]->loc, "out_sinfo lists struct infos, as in R.Tensor(...)");
            from_list[i] = list->u.list.items[i]->u.sinfo;
        }
        outs = from_list;
    } else if (out->kind == SI_TUPLE) {
        if (out->nfields < 0)
            return (void)VERR(V, out->loc, "the out_sinfo of R.call_tir names each output; a bare R.Tuple does not");
        outs = (const StructInfo *const *)out->fields;
        nout = out->nfields;
    }
    int nin = args->u.list.n, ntv = 0;
    const Expr *tv = NULL;
    for (int i = 0; i < e->u.call.nkw; i++)
        if (streq(e->u.call.kw[i]->str, "tir_vars"))
            tv = call_kwv(e)[i];
    if (tv) {
        /* tir_vars=R.shape([n]): values for the PrimFunc's trailing scalar parameters */
        if (tv->kind != E_CALL || strcmp(tv->u.call.op->str, "R.shape") != 0 || tv->u.call.nargs != 1 ||
            (tv->u.call.args[0]->kind != E_LIST && tv->u.call.args[0]->kind != E_TUPLE))
            return (void)VERR(V, tv->loc, "tir_vars of R.call_tir is a shape, as in tir_vars=R.shape([n])");
        ntv = tv->u.call.args[0]->u.list.n;
    }
    if (nin + nout + ntv != f->npparams) {
        if (!tv)
            return (void)VERR(V, e->loc, "R.call_tir passes %d argument%s and %d output%s to '%s', which has %d parameter%s",
                              nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", f->name->str, f->npparams,
                              f->npparams == 1 ? "" : "s");
        return (void)VERR(V, e->loc, "R.call_tir passes %d argument%s, %d output%s and %d tir_vars to '%s', which has %d parameter%s",
                          nin, nin == 1 ? "" : "s", nout, nout == 1 ? "" : "s", ntv, f->name->str, f->npparams,
                          f->npparams == 1 ? "" : "s");
    }
    for (int i = nin + nout; i < f->npparams; i++)
        if (!f->pparams[i].var || !dtype_is_int(f->pparams[i].var->dtype))
            return (void)VERR(V, tv->loc, "tir_vars value %d goes to parameter %d of '%s', which is not an integer scalar",
                              i - nin - nout + 1, i + 1, f->name->str);
    for (int i = 0; i < nin; i++) {
        int kind;
        if (prim_param_buffer(f, i) && !maybe_tensor(args->u.list.items[i], &kind))
            VERR(V, args->u.list.items[i]->loc, "argument %d of the call to '%s' is %s, but buffer '%s' is a tensor", i + 1,
                 f->name->str, kind_names[kind], prim_param_buffer(f, i)->name->str);
        match_tensor(V, sinfo_of(args->u.list.items[i]), prim_param_buffer(f, i), f, "argument", i + 1, args->u.list.items[i]->loc);
        const Var *p = f->pparams[i].var;
        const char *by;
        const StructInfo *a = prim_param_buffer(f, i) || !p || p->dtype == DT_HANDLE ? NULL
                              : value_type(V, args->u.list.items[i], &by, 1);
        if (a && a->kind == SI_PRIM && a->dtype != DT_VOID && a->dtype != p->dtype)
            VERR(V, args->u.list.items[i]->loc, "argument %d of the call to '%s' is a prim value of %s, but parameter "
                 "'%s' is %s", i + 1, f->name->str, dtype_name(a->dtype), p->name->str, dtype_name(p->dtype));
    }
    for (int i = 0; i < nout; i++)
        match_tensor(V, outs[i], prim_param_buffer(f, nin + i), f, "output", i + 1, outs[i]->loc);
}

static const StructInfo *relax_if(Verifier *V, const Expr *e, const Binding *bd);
static void relax_blocks(Verifier *V, RBlock **blocks, int nblocks);
static void relax_func(Verifier *V, Func *f);
static void relax_call(Verifier *V, const Expr *e);
/* The operands the registry says are tensors (the first ntensors, or the
 * items of the tuple R.concat takes) are not tuples, shapes or prim values. */
static void op_operands(Verifier *V, const Expr *e, const OpInfo *op)
{
    int kind;
    if (!op->tuple_arg) {
        for (int k = 0; k < op->ntensors && k < e->u.call.nargs; k++)
            if (!maybe_tensor(e->u.call.args[k], &kind) && !(kind == SI_PRIM && op_prim_operand(op->name, k)))
                VERR(V, e->u.call.args[k]->loc, "argument %d of %s is %s, not a tensor", k + 1, op->name,
                     kind_names[kind]);
        return;
    }
    if (e->u.call.nargs < 1)
        return;
    const Expr *t = e->u.call.args[0];
    kind = value_kind(t);
    if (kind >= 0 && kind != SI_TUPLE && kind != SI_OBJECT) {
        VERR(V, t->loc, "argument 1 of %s is %s; it takes a tuple of tensors", op->name, kind_names[kind]);
        return;
    }
    const StructInfo *s = t->kind == E_TUPLE ? NULL : sinfo_of(t);
    int n = t->kind == E_TUPLE ? t->u.list.n : s && s->kind == SI_TUPLE ? s->nfields : 0;
    for (int i = 0; i < n; i++) {
        kind = t->kind == E_TUPLE ? value_kind(t->u.list.items[i]) : (int)s->fields[i]->kind;
        if (kind >= 0 && kind != SI_TENSOR && kind != SI_OBJECT)
            VERR(V, t->kind == E_TUPLE ? t->u.list.items[i]->loc : t->loc, "item %d of the tuple %s takes is %s, "
                 "not a tensor", i, op->name, kind_names[kind]);
    }
}

/* The registered operator a call names, or NULL; the last one asked for is
 * kept (each binding of a chain asks for its operator twice, op_call and
 * op_result, and the next binding for the same). */
static const OpInfo *op_of(Verifier *V, const Sym *name)
{
    if (name != V->op_name) {
        V->op_name = name;
        V->op_info = op_find(name->str);
    }
    return V->op_info;
}

/* A call of a name neither lopt nor TVM defines, on the input: an error
 * naming the nearest known name, as TVM's parser refuses it; with
 * --allow-unregistered a warning, the call kept opaque. A name TVM has and
 * lopt has no rule for is an opaque call without a word. */
static void check_name(Verifier *V, const Expr *e)
{
    const char *name = e->u.call.op->str;
    if (!V->input || e->u.call.callee || name_kind(name) != NAME_UNKNOWN)
        return;
    const char *near = name_nearest(name);
    char hint[96] = "";
    if (near)
        snprintf(hint, sizeof hint, " (did you mean %s?)", near);
    if (!V->allow_unregistered)
        VERR(V, e->loc, "neither lopt nor TVM defines %s%s; --allow-unregistered keeps it as an opaque call", name, hint);
    else if (diag_warning(V->src, V->strict, e->loc, "lopt does not know %s: the call stays opaque, and no pass "
                          "looks into it%s", name, hint))
        V->errors++;
}

/* A registered operator's keywords; an unknown name, on the input. */
static void op_call(Verifier *V, const Expr *e)
{
    OpError err;
    const OpInfo *info = op_of(V, e->u.call.op);
    if (info) {
        if (op_check_attrs(e, &err))
            VERR(V, err.loc, "%s", err.msg);
        op_operands(V, e, info);
        return;
    }
    check_name(V, e);
}

static void rexpr(Verifier *V, const Expr *e)
{
    switch (e->kind) {
    case E_VAR:
        if (e->u.var->kind == VAR_RELAX && e->u.var->mark != V->live)
            VERR(V, e->loc, "variable '%s' is not defined here%s", e->u.var->name->str,
                 e->u.var->dataflow ? " (it is local to its dataflow block; list it in R.output)" : "");
        break;
    case E_TUPLE: case E_LIST: rexprs(V, e->u.list.items, e->u.list.n); break;
    case E_DICT: rexprs(V, e->u.dict.vals, e->u.dict.n); break;
    case E_GETITEM: {
        rexpr(V, e->u.get.tuple);
        const StructInfo *t = sinfo_of(e->u.get.tuple);
        int i = e->u.get.index;
        if (t && t->kind != SI_TUPLE && t->kind != SI_OBJECT)
            VERR(V, e->loc, "item %d of %s: only a tuple has items", i, kind_names[t->kind]);
        else if (t && t->kind == SI_TUPLE && t->nfields >= 0 && (i < 0 || i >= t->nfields))
            VERR(V, e->loc, "index %d is outside the tuple: it has %d field%s", i, t->nfields, t->nfields == 1 ? "" : "s");
        break;
    }
    case E_FUNC: {
        /* a local function sees the names bound before it */
        const Func *outer = V->fn;
        V->fn = e->u.global.fn;
        relax_func(V, e->u.global.fn);
        V->fn = outer;
        break;
    }
    case E_IF: relax_if(V, e, NULL); break;
    case E_GLOBAL:
        if (module_find(V->m, e->u.global.name) != e->u.global.fn)
            VERR(V, e->loc, "function '%s' is not in the module", e->u.global.name->str);
        break;
    case E_CALL:
        if (e->u.call.callee) {
            rexpr(V, e->u.call.callee);
            const StructInfo *cs = sinfo_of(e->u.call.callee);
            if (e->u.call.callee->kind == E_VAR && cs && cs->kind != SI_OBJECT)
                VERR(V, e->u.call.callee->loc, "'%s' is not a function: it is a %s", e->u.call.callee->u.var->name->str,
                     cs->kind == SI_TENSOR ? "tensor" : cs->kind == SI_TUPLE ? "tuple" : cs->kind == SI_SHAPE ? "shape" : "scalar");
            if (e->u.call.callee->kind == E_GLOBAL && e->u.call.callee->u.global.fn->kind != F_RELAX && !V->fn->is_impure &&
                !func_force_pure(V->fn))
                VERR(V, e->loc, "'%s' is a prim_func; call it with R.call_tir", e->u.call.callee->u.global.name->str);
        }
        rexprs(V, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
        if (streq(e->u.call.op->str, "R.call_tir"))
            call_tir(V, e);
        else if (!e->u.call.callee)
            op_call(V, e);
        else if (e->u.call.callee->kind == E_GLOBAL)
            relax_call(V, e);
        break;
    default: break;
    }
}

/* ---- the types operators give ---- */

/* The tensor type of an operator's argument. A variable's comes from its
 * struct info, and the last two met are kept: the bindings of a chain read
 * one shared struct info (grammar/lower_relax.c) over and over, and nothing
 * changes struct info in place or frees a variable's while the verifier
 * runs (only the types compared with annotations are scratch). */

static int arg_type(Verifier *V, const Expr *e, TensorType *t)
{
    if (e->kind == E_CONST)
        return op_const_type(e, t);
    const StructInfo *s = sinfo_of(e);
    if (e->kind != E_VAR || !s) {
        const char *by;
        if (!s && (e->kind == E_CALL || e->kind == E_TUPLE))
            s = value_type(V, e, &by, 1);   /* a call written in place */
        return op_sinfo_type(s, t);
    }
    int k = V->argt[0].si == s ? 0 : V->argt[1].si == s ? 1 : -1;
    if (k < 0) {
        k = V->argt_next;
        V->argt_next ^= 1;
        V->argt[k].si = s;
        V->argt[k].bad = op_sinfo_type(s, &V->argt[k].t) != 0;
    }
    if (V->argt[k].bad)
        return -1;
    *t = V->argt[k].t;
    return 0;
}

static int type_equal(const TensorType *a, const TensorType *b)
{
    return a->dtype == b->dtype && a->ndim == b->ndim && memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape) == 0;
}

static StructInfo *type_sinfo(Arena *a, const TensorType *t, Loc loc)
{
    return tensor_sinfo_new(a, t->dtype, t->ndim, t->shape, loc);
}

/* The type op_result gives a binding without annotation, which the binding
 * keeps (in the module's arena): bindings of one tensor type share one
 * StructInfo (no one changes struct info in place), where each had a copy
 * of its own, its shape's integers included; a chain of 100,000 bindings
 * held 100,000 of them, about 270 bytes each, which every pass after reads
 * from as many places. A type only compared with an annotation is the kept
 * one too (one per type in the module: made in scratch, each was made anew
 * for every binding). */
static StructInfo *inferred_type(Verifier *V, const TensorType *t, Loc loc)
{
    uint64_t h = (uint64_t)t->dtype * 31 + (uint64_t)t->ndim;
    for (int i = 0; i < t->ndim; i++)
        h = h * 0x100000001B3ull + (uint64_t)t->shape[i];
    int k = (int)((h * 0x9E3779B97F4A7C15ull) >> 58);
    const TensorType *o = &V->kept_t[k];
    if (V->kept[k] && o->dtype == t->dtype && o->ndim == t->ndim &&
        memcmp(o->shape, t->shape, (size_t)t->ndim * sizeof *t->shape) == 0)
        return V->kept[k];
    V->kept_t[k] = *t;
    return V->kept[k] = type_sinfo(&V->m->arena, t, loc);
}

static void tuple_text(char *buf, size_t cap, const int64_t *v, int n)
{
    size_t len = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (len < cap)
        snprintf(buf + len, cap - len, n == 1 ? ",)" : ")");
}

/* R.layout_transform on a tensor of known shape: its map must be injective
 * there, or two elements would land on one; the witness says which. */
static int check_layout_map(Verifier *V, const Expr *e, const TensorType *t)
{
    const Expr *map = NULL;
    for (int i = 0; i < e->u.call.nkw; i++)
        if (streq(e->u.call.kw[i]->str, "index_map"))
            map = call_kwv(e)[i];
    if (!map || map->kind != E_INDEXMAP || map->u.map.nparams != t->ndim)
        return 0;   /* op_infer says what is wrong */
    Arena a = { 0 };
    arena_scratch(&a);
    ImError err;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK], y[IM_MAX_RANK];
    int status = 0;
    IndexMap *im = im_from_expr(&a, map, t->shape, &err);
    ImKind kind = im ? im_classify(im, wa, wb) : IM_UNKNOWN;
    char box[160], x1[160], x2[160], to[160];
    tuple_text(box, sizeof box, t->shape, t->ndim);
    if (!im) {
        status = VERR(V, err.loc.line ? err.loc : map->loc, "%s", err.msg);
    } else if (kind == IM_NOT_INJECTIVE) {
        im_apply(im, wa, y);
        tuple_text(x1, sizeof x1, wa, im->nin);
        tuple_text(x2, sizeof x2, wb, im->nin);
        tuple_text(to, sizeof to, y, im->nout);
        status = VERR(V, map->loc, "the index map of R.layout_transform is not injective on shape %s: %s and %s "
                      "both map to %s", box, x1, x2, to);
    } else if (kind == IM_UNKNOWN) {
        status = VERR(V, map->loc, "cannot decide whether the index map of R.layout_transform is injective on "
                      "shape %s (too large to enumerate)", box);
    }
    arena_scratch_end(&a);
    return status;
}

/* The type a call of a registered operator gives, when its arguments' types
 * are known; NULL otherwise, or after reporting why the call is wrong. */
static const StructInfo *op_result(Verifier *V, const Expr *e)
{
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_of(V, e->u.call.op) : NULL;
    if (!op)
        return NULL;
    TensorType args[OP_MAX_ARGS], outs[OP_MAX_ARGS];
    Expr *const *items = e->u.call.args;
    int n = op->ntensors, nout = 0;
    OpError err;
    if (op->tuple_arg) {
        if (e->u.call.nargs < 1 || e->u.call.args[0]->kind != E_TUPLE || e->u.call.args[0]->u.list.n > OP_MAX_ARGS)
            return NULL;
        items = e->u.call.args[0]->u.list.items;
        n = e->u.call.args[0]->u.list.n;
    }
    if (e->u.call.nargs < (op->tuple_arg ? 1 : n) || (e->u.call.nkw && op_check_attrs(e, &err)))
        return NULL;
    int nprim = 0;
    for (int k = 0; k < n; k++) {
        const StructInfo *s = sinfo_of(items[k]);
        const char *by;
        if (!s && items[k]->kind == E_CALL)
            s = value_type(V, items[k], &by, 1);   /* R.prim_value(2) written in place */
        if (s && s->kind == SI_PRIM && s->dtype != DT_VOID && op_prim_operand(op->name, k)) {
            /* a prim value where TVM takes one: a 0-d tensor of its dtype */
            memset(&args[k], 0, sizeof args[k]);
            args[k].dtype = s->dtype;
            nprim++;
        } else if (arg_type(V, items[k], &args[k])) {
            return NULL;
        }
    }
    if (nprim == n)
        return NULL;   /* of prim values only: TVM's result is a prim value */
    if (streq(op->name, "R.layout_transform") && check_layout_map(V, e, &args[0]))
        return NULL;
    /* An operator of one or two tensors and no attributes (R.add, R.nn.relu)
     * met before with these argument types gives the type it gave. */
    int memo = !op->tuple_arg && !op->tuple_out && n <= 2 && e->u.call.nargs == n && e->u.call.nkw == 0 ? 0 : -1;
    if (memo == 0) {
        uint64_t h = (uint64_t)(uintptr_t)e->u.call.op;
        for (int k = 0; k < n; k++) {
            h = h * 31 + (uint64_t)args[k].dtype * 7 + (uint64_t)args[k].ndim;
            for (int d = 0; d < args[k].ndim; d++)
                h = h * 1000003 + (uint64_t)args[k].shape[d];
        }
        memo = (int)((h * 0x9E3779B97F4A7C15ull) >> 59);
        int same = V->memo[memo].op == e->u.call.op && V->memo[memo].n == n;
        for (int k = 0; k < n && same; k++)
            same = type_equal(&V->memo[memo].args[k], &args[k]);
        if (same)
            return inferred_type(V, &V->memo[memo].out, e->loc);
    }
    if (op_infer(e, args, n, outs, &nout, &err)) {
        if (!err.unknown)
            VERR(V, err.loc.line ? err.loc : e->loc, "%s", err.msg);
        return NULL;
    }
    if (memo >= 0) {
        V->memo[memo].op = e->u.call.op;
        V->memo[memo].n = n;
        for (int k = 0; k < n; k++)
            V->memo[memo].args[k] = args[k];
        V->memo[memo].out = outs[0];
    }
    if (!op->tuple_out)
        return inferred_type(V, &outs[0], e->loc);
    StructInfo *s = arena_zalloc(V->types, sizeof *s);
    s->kind = SI_TUPLE;
    s->loc = e->loc;
    s->ndim = -1;
    s->nfields = nout;
    s->fields = arena_array(V->types, (size_t)nout + 1, sizeof *s->fields);
    for (int i = 0; i < nout; i++)
        s->fields[i] = inferred_type(V, &outs[i], e->loc);
    return s;
}

/* ---- the types of shape values ---- */


static StructInfo *shape_sinfo(Module *m, int ndim, const int64_t *dims, Loc loc)
{
    StructInfo *s = arena_zalloc(&m->arena, sizeof *s);
    s->kind = SI_SHAPE;
    s->loc = loc;
    s->ndim = ndim;
    if (dims) {
        s->shape = arena_array(&m->arena, (size_t)ndim + 1, sizeof *s->shape);
        for (int i = 0; i < ndim; i++)
            s->shape[i] = expr_int(&m->arena, dims[i], DT_VOID, loc);
    }
    return s;
}

/* The type of the shape value the argument e gives, or NULL. */
static const StructInfo *shape_type(Module *m, const Expr *e)
{
    if (e->kind == E_CALL && !e->u.call.callee && streq(e->u.call.op->str, "R.shape") && e->u.call.nargs == 1 &&
        (e->u.call.args[0]->kind == E_LIST || e->u.call.args[0]->kind == E_TUPLE))
        return shape_sinfo(m, e->u.call.args[0]->u.list.n, NULL, e->loc);
    return sinfo_of(e);
}

/* R.shape_of, R.shape_to_tensor, R.tensor_to_shape and R.match_cast: the
 * type of the result, when the argument's is known; NULL otherwise, or after
 * reporting an argument of the wrong kind. */
static const StructInfo *shape_op_result(Verifier *V, const Expr *e)
{
    if (e->kind != E_CALL || e->u.call.callee)
        return NULL;
    const char *op = e->u.call.op->str;
    const Expr *x = e->u.call.nargs >= 1 ? e->u.call.args[0] : NULL;
    const StructInfo *a = x ? shape_type(V->m, x) : NULL;
    if (streq(op, "R.match_cast")) {
        if (e->u.call.nargs != 2 || e->u.call.nkw || e->u.call.args[1]->kind != E_SINFO)
            return VERR(V, e->loc, "R.match_cast takes a value and a struct info, as in R.match_cast(x, "
                        "R.Tensor((n, 3), dtype=\"float32\"))"), NULL;
        return e->u.call.args[1]->u.sinfo;   /* what the run checks the value against */
    }
    if (streq(op, "R.shape") && e->u.call.nargs == 1 && (x->kind == E_LIST || x->kind == E_TUPLE)) {
        /* R.shape([2, n]) is R.Shape([2, n]) */
        StructInfo *s = shape_sinfo(V->m, x->u.list.n, NULL, e->loc);
        s->shape = x->u.list.items;
        return s;
    }
    int shape_of = streq(op, "R.shape_of"), to_tensor = streq(op, "R.shape_to_tensor"),
        to_shape = streq(op, "R.tensor_to_shape");
    if (!shape_of && !to_tensor && !to_shape)
        return NULL;
    if (e->u.call.nargs != 1 || e->u.call.nkw)
        return VERR(V, e->loc, "%s takes one argument, a %s", op, to_tensor ? "shape" : "tensor"), NULL;
    if (!a || a->kind == SI_OBJECT)
        return to_tensor ? NULL : shape_sinfo(V->m, -1, NULL, e->loc);   /* a shape of some rank */
    if (to_tensor) {
        if (a->kind != SI_SHAPE)
            return VERR(V, x->loc, "R.shape_to_tensor takes a shape; this is a %s",
                        a->kind == SI_TENSOR ? "tensor" : a->kind == SI_TUPLE ? "tuple" : "prim value"), NULL;
        if (a->ndim < 0)
            return NULL;
        int64_t n = a->ndim;
        return tensor_sinfo_new(&V->m->arena, DT_INT64, 1, &n, e->loc);
    }
    if (a->kind != SI_TENSOR)
        return VERR(V, x->loc, "%s takes a tensor; this is a %s", op,
                    a->kind == SI_SHAPE ? "shape" : a->kind == SI_TUPLE ? "tuple" : "prim value"), NULL;
    if (shape_of) {
        /* its dimensions as the tensor's type says them, symbolic ones too:
         * R.shape_of(x) with x (n, 4) is R.Shape([n, 4]) */
        if (a->ndim < 0)
            return NULL;
        StructInfo *s = shape_sinfo(V->m, a->ndim, NULL, e->loc);
        s->shape = a->shape;
        return s;
    }
    int64_t n;
    if ((a->ndim >= 0 && a->ndim != 1) || (a->dtype != DT_VOID && a->dtype != DT_INT64)) {
        char shape[128] = "(?)";
        if (a->shape)
            shape_text(shape, sizeof shape, a->shape, a->ndim);
        else if (a->ndim >= 0)
            snprintf(shape, sizeof shape, "of %d dimensions", a->ndim);
        return VERR(V, x->loc, "R.tensor_to_shape takes a 1-d int64 tensor; this one is %s %s",
                    a->dtype == DT_VOID ? "of any dtype" : dtype_name(a->dtype), shape), NULL;
    }
    if (a->ndim != 1 || !a->shape || expr_const_int(a->shape[0], &n))
        return shape_sinfo(V->m, -1, NULL, e->loc);
    return shape_sinfo(V->m, (int)n, NULL, e->loc);
}

/* The dimensions a shape operand states (R.shape([n, 4]), a variable of
 * type R.Shape([n, 4]), R.shape_of(x) written in place), or NULL; *ndim
 * their number. */
static Expr *const *shape_dims(const Expr *x, int *ndim)
{
    const StructInfo *s = NULL;
    if (x->kind == E_CALL && !x->u.call.callee && x->u.call.nargs == 1) {
        const Expr *l = x->u.call.args[0];
        if (strcmp(x->u.call.op->str, "R.shape") == 0 && (l->kind == E_LIST || l->kind == E_TUPLE)) {
            *ndim = l->u.list.n;
            return l->u.list.items;
        }
        if (strcmp(x->u.call.op->str, "R.shape_of") == 0 && (s = sinfo_of(l)) != NULL && s->kind == SI_TENSOR &&
            s->shape) {
            *ndim = s->ndim;
            return s->shape;
        }
        return NULL;
    }
    s = sinfo_of(x);
    if (!s || s->kind != SI_SHAPE || !s->shape)
        return NULL;
    *ndim = s->ndim;
    return s->shape;
}

/* A call whose result's shape is a shape operand's, when the registry cannot
 * type it (the shape is a value of the run, or the tensor's dimensions are
 * symbolic): R.reshape(x, s) and R.broadcast_to(x, s) have x's dtype and
 * s's dimensions, R.zeros(s, dtype), R.ones and R.full those of s and
 * their dtype. So verify and the passes see R.reshape(x, R.shape_of(y))
 * with y (n, 4) as (n, 4). NULL when the operand does not state its
 * dimensions. */
static const StructInfo *shape_operand_result(Verifier *V, const Expr *e)
{
    if (e->kind != E_CALL || e->u.call.callee || e->u.call.nargs < 1)
        return NULL;
    const char *op = e->u.call.op->str;
    int like = !strcmp(op, "R.reshape") || !strcmp(op, "R.broadcast_to");
    int create = !strcmp(op, "R.zeros") || !strcmp(op, "R.ones") || !strcmp(op, "R.full");
    if (!(like && e->u.call.nargs == 2) && !(create && e->u.call.nargs == (strcmp(op, "R.full") ? 1 : 2)))
        return NULL;
    int n;
    Expr *const *dims = shape_dims(e->u.call.args[like], &n);
    DType dt = DT_VOID;
    if (!dims)
        return NULL;
    if (like) {
        const Expr *x = e->u.call.args[0];
        const StructInfo *xs = sinfo_of(x);
        TensorType ct;
        if (op_const_type(x, &ct) == 0 || op_sinfo_type(xs, &ct) == 0) {
            dt = ct.dtype;
            /* a reshape whose element counts are both known must keep it */
            int64_t in = 1, out = 1, v;
            int known = !strcmp(op, "R.reshape");
            for (int d = 0; known && d < n; d++)
                known = expr_const_int(dims[d], &v) == 0 && v >= 0 && !__builtin_mul_overflow(out, v, &out);
            for (int d = 0; known && d < ct.ndim; d++)
                known = !__builtin_mul_overflow(in, ct.shape[d], &in);
            if (known && in != out)
                return VERR(V, e->u.call.args[1]->loc, "cannot reshape %lld elements into %lld", (long long)in,
                            (long long)out), NULL;
        } else if (xs && xs->kind == SI_TENSOR) {
            dt = xs->dtype;
        }
    } else {
        for (int i = 0; i < e->u.call.nkw; i++)
            if (strcmp(e->u.call.kw[i]->str, "dtype") == 0 && call_kwv(e)[i]->kind == E_STR) {
                char name[32];
                const Expr *v = call_kwv(e)[i];
                snprintf(name, sizeof name, "%.*s", v->u.str.len, v->u.str.s);
                if (dtype_parse(name, &dt))
                    dt = DT_VOID;
            }
        if (dt == DT_VOID && e->u.call.nargs == 2 && e->u.call.args[1]->kind == E_CONST)
            dt = e->u.call.args[1]->u.cst.dtype;
    }
    StructInfo *s = arena_zalloc(&V->m->arena, sizeof *s);
    s->kind = SI_TENSOR;
    s->loc = e->loc;
    s->ndim = n;
    s->dtype = dt;
    s->nfields = -1;
    s->shape = (Expr **)dims;
    return s;
}

static int fits(const StructInfo *want, const StructInfo *got);

static void sinfo_text(char *buf, size_t cap, const StructInfo *s)
{
    if (s->kind == SI_TUPLE) {
        snprintf(buf, cap, "a tuple of %d", s->nfields);
        return;
    }
    if (s->kind == SI_SHAPE || s->kind == SI_PRIM || s->kind == SI_OBJECT) {
        if (s->kind == SI_PRIM && s->dtype != DT_VOID)
            snprintf(buf, cap, "a prim value of %s", dtype_name(s->dtype));
        else if (s->kind != SI_SHAPE)
            snprintf(buf, cap, s->kind == SI_PRIM ? "a prim value" : "an object");
        else if (s->ndim >= 0 && s->shape) {
            char dims[128];
            shape_text(dims, sizeof dims, s->shape, s->ndim);
            snprintf(buf, cap, "the shape %s", dims);
        } else if (s->ndim >= 0)
            snprintf(buf, cap, "a shape of %d dimensions", s->ndim);
        else
            snprintf(buf, cap, "a shape");
        return;
    }
    char shape[128] = "ndim=?";
    if (s->shape)
        shape_text(shape, sizeof shape, s->shape, s->ndim);
    else if (s->ndim >= 0)
        snprintf(shape, sizeof shape, "ndim=%d", s->ndim);
    snprintf(buf, cap, "%s %s", shape, s->dtype == DT_VOID ? "of any dtype" : dtype_name(s->dtype));
}

/* Where want and got first differ: in tuples of as many fields, the first
 * field that does not fit, said in path ("field 1 of "), and the texts of
 * the two there. */
static void misfit_text(char *path, char *w, char *h, size_t cap, const StructInfo *want, const StructInfo *got)
{
    size_t len = 0;
    path[0] = 0;
    while (want->kind == SI_TUPLE && got->kind == SI_TUPLE && want->nfields == got->nfields && len < cap - 24) {
        int i = 0;
        while (i < want->nfields && fits(want->fields[i], got->fields[i]))
            i++;
        if (i == want->nfields)
            break;
        len += (size_t)snprintf(path + len, cap - len, "field %d of ", i);
        want = want->fields[i];
        got = got->fields[i];
    }
    sinfo_text(w, cap, want);
    sinfo_text(h, cap, got);
}

/* Whether two dimensions may be equal: unless both are constants that differ. */
static int same_dims(Expr *const *a, Expr *const *b, int n)
{
    for (int i = 0; a && b && i < n; i++) {
        int64_t x, y;
        if (expr_const_int(a[i], &x) == 0 && expr_const_int(b[i], &y) == 0 && x != y)
            return 0;
    }
    return 1;
}

/* Whether what a binding declares can hold what its value is: TVM's static
 * check of an annotation. Kinds must agree (R.Object holds anything), and
 * what both sides state of a tensor (dtype, rank, constant extents), a
 * shape (rank, constant extents), a prim value (dtype) or a tuple (its
 * fields) must agree; what either leaves unknown (a symbolic extent, ndim
 * without a shape, a bare R.Tuple) agrees, being checked only by a run. */
static int fits(const StructInfo *want, const StructInfo *got)
{
    if (want->kind == SI_OBJECT || got->kind == SI_OBJECT)
        return 1;   /* nothing known of it (an item of a tuple written out, of unknown type) */
    if (want->kind != got->kind)
        return 0;
    switch (want->kind) {
    case SI_TUPLE:
        if (want->nfields < 0 || got->nfields < 0)
            return 1;   /* a bare R.Tuple */
        if (want->nfields != got->nfields)
            return 0;
        for (int i = 0; i < want->nfields; i++)
            if (!fits(want->fields[i], got->fields[i]))
                return 0;
        return 1;
    case SI_PRIM:
        return want->dtype == DT_VOID || got->dtype == DT_VOID || want->dtype == got->dtype;
    default:   /* a tensor or a shape: its rank and extents, and a tensor's dtype */
        if (want->kind == SI_TENSOR && want->dtype != DT_VOID && got->dtype != DT_VOID && want->dtype != got->dtype)
            return 0;
        if (want->ndim < 0 || got->ndim < 0)
            return 1;
        return want->ndim == got->ndim && same_dims(want->shape, got->shape, want->ndim);
    }
}

/* ---- the types of binding values ---- */

static StructInfo *tuple_type(Verifier *V, const Expr *e, int depth);

static StructInfo *object_sinfo(Arena *a, Loc loc)
{
    StructInfo *s = arena_zalloc(a, sizeof *s);
    s->kind = SI_OBJECT;
    s->loc = loc;
    s->ndim = -1;
    s->nfields = -1;
    return s;
}

/* An R.const's type: constants of one type share the kept one. */
static const StructInfo *const_type(Verifier *V, const Expr *e)
{
    TensorType t;
    if (op_const_type(e, &t) == 0)
        return inferred_type(V, &t, e->loc);
    return tensor_sinfo_new(V->types, e->u.cst.dtype, e->u.cst.ndim, e->u.cst.shape, e->loc);
}

/* What two types have in common, as TVM joins the branches of an if: what
 * they state alike is kept, a part on which they differ is unknown, and
 * values of different kinds are objects. NULL when either is unknown. */
static const StructInfo *common_type(Verifier *V, const StructInfo *a, const StructInfo *b, Loc loc, int depth)
{
    if (!a || !b)
        return NULL;
    if (a == b)
        return a;
    if (a->kind != b->kind || a->kind == SI_OBJECT || depth > 64 ||
        (a->kind == SI_TUPLE && (a->nfields != b->nfields || a->nfields < 0)))
        return object_sinfo(V->types, loc);
    StructInfo *s = arena_alloc(V->types, sizeof *s);
    *s = *a;
    s->loc = loc;
    if (a->kind == SI_TUPLE) {
        s->fields = arena_array(V->types, (size_t)a->nfields + 1, sizeof *s->fields);
        for (int i = 0; i < a->nfields; i++) {
            const StructInfo *f = common_type(V, a->fields[i], b->fields[i], loc, depth + 1);
            s->fields[i] = f ? (StructInfo *)f : object_sinfo(V->types, loc);
        }
        return s;
    }
    if (a->dtype != b->dtype)
        s->dtype = DT_VOID;
    if (a->vdevice && (!b->vdevice || strcmp(a->vdevice, b->vdevice)))
        s->vdevice = NULL;
    if (a->value && (!b->value || !expr_equal(a->value, b->value)))
        s->value = NULL;
    if (a->ndim != b->ndim) {
        s->ndim = -1;
        s->shape = NULL;
    }
    for (int i = 0; s->shape && i < a->ndim; i++)
        if (!b->shape || !expr_equal(a->shape[i], b->shape[i]))
            s->shape = NULL;
    return s;
}

/* ---- calls of Relax functions ---- */

/* The function a call calls: cls.g, or a local function bound before. */
static const Func *callee_of(const Verifier *V, const Expr *callee)
{
    if (callee->kind == E_GLOBAL)
        return callee->u.global.fn;
    for (int i = 0; callee->kind == E_VAR && i < V->nlocals; i++)
        if (V->locals[i].var == callee->u.var)
            return V->locals[i].fn;
    return NULL;
}

/* Whether e reads one of f's symbolic variables. */
static int reads_syms(const Func *f, const Expr *e, int depth)
{
    if (!e || depth > 64)
        return 1;
    switch (e->kind) {
    case E_VAR:
        for (int i = 0; i < f->nsyms; i++)
            if (f->syms[i] == e->u.var)
                return 1;
        return 0;
    case E_BIN: return reads_syms(f, e->u.bin.a, depth + 1) || reads_syms(f, e->u.bin.b, depth + 1);
    case E_UNARY: return reads_syms(f, e->u.un.a, depth + 1);
    case E_CAST: return reads_syms(f, e->u.cast.a, depth + 1);
    default: return 0;
    }
}

static int sinfo_reads_syms(const Func *f, const StructInfo *s, int depth)
{
    if (depth > 64)
        return 1;
    for (int i = 0; s->kind == SI_TUPLE && i < s->nfields; i++)
        if (sinfo_reads_syms(f, s->fields[i], depth + 1))
            return 1;
    for (int i = 0; s->shape && i < s->ndim; i++)
        if (reads_syms(f, s->shape[i], 0))
            return 1;
    return s->value && reads_syms(f, s->value, 0);
}

static int subst_has(const Subst *s, const Var *v)
{
    for (int i = 0; i < s->n; i++)
        if (s->from[i] == v)
            return 1;
    return 0;
}

static void bind_sym(Arena *a, Subst *s, const Expr *param, Expr *arg)
{
    if (param && arg && param->kind == E_VAR && param->u.var->kind == VAR_SYM && !subst_has(s, param->u.var))
        subst_var(a, s, param->u.var, arg);
}

/* Binds the symbolic variables a parameter's type names to what the
 * argument's type states in their places: R.Tensor(("n", 4)) given an
 * (8, 4) tensor binds n to 8. */
static void bind_params(Arena *a, Subst *s, const StructInfo *param, const StructInfo *arg, int depth)
{
    if (!param || !arg || param->kind != arg->kind || depth > 64)
        return;
    for (int i = 0; param->kind == SI_TUPLE && i < param->nfields && i < arg->nfields; i++)
        bind_params(a, s, param->fields[i], arg->fields[i], depth + 1);
    if (param->kind == SI_PRIM)
        bind_sym(a, s, param->value, arg->value);
    if (param->shape && arg->shape && param->ndim == arg->ndim)
        for (int i = 0; i < param->ndim; i++)
            bind_sym(a, s, param->shape[i], arg->shape[i]);
}

static int no_value(const Var *v, void *data, int64_t *out)
{
    (void)v, (void)data, (void)out;
    return -1;
}

/* The callee's result type r in the caller's terms: its symbolic variables
 * replaced by what the arguments bind them to; a part that reads one left
 * unbound is unknown (a shape keeps its rank). */
static const StructInfo *callee_type(Arena *a, const Func *f, Subst *s, const StructInfo *r, int depth)
{
    if (!sinfo_reads_syms(f, r, 0))
        return r;
    StructInfo *c = arena_alloc(a, sizeof *c);
    *c = *r;
    if (depth > 64)
        return object_sinfo(a, r->loc);
    if (r->kind == SI_TUPLE) {
        c->fields = arena_array(a, (size_t)r->nfields + 1, sizeof *c->fields);
        for (int i = 0; i < r->nfields; i++)
            c->fields[i] = (StructInfo *)callee_type(a, f, s, r->fields[i], depth + 1);
        return c;
    }
    if (r->value) {
        c->value = clone_expr(a, s, r->value);
        c->value = reads_syms(f, c->value, 0) ? NULL : c->value;
    }
    if (r->shape) {
        c->shape = arena_array(a, (size_t)r->ndim + 1, sizeof *c->shape);
        for (int i = 0; c->shape && i < r->ndim; i++) {
            int64_t v;
            c->shape[i] = clone_expr(a, s, r->shape[i]);
            if (reads_syms(f, c->shape[i], 0))
                c->shape = NULL;
            else if (c->shape[i]->kind != E_INT && expr_eval_int(c->shape[i], no_value, NULL, &v) == 0)
                c->shape[i] = expr_int(a, v, DT_VOID, c->shape[i]->loc);   /* "n * 2" of n = 4 is 8 */
        }
    }
    return c;
}

/* The type a call of a Relax function gives: its declared result's. */
static const StructInfo *call_type(Verifier *V, const Expr *e, int depth)
{
    const Func *f = callee_of(V, e->u.call.callee);
    if (!f || f->kind != F_RELAX || !f->ret || e->u.call.nargs != f->nparams)
        return NULL;
    if (!sinfo_reads_syms(f, f->ret, 0))
        return f->ret;
    Arena tmp = { 0 };
    Subst s = { 0 };
    const char *by;
    for (int i = 0; i < f->nparams; i++)
        bind_params(&tmp, &s, f->params[i]->sinfo, value_type(V, e->u.call.args[i], &by, depth + 1), 0);
    const StructInfo *r = callee_type(V->types, f, &s, f->ret, 0);
    arena_free(&tmp);
    return r;
}

/* ---- what each value is ---- */

/* The type of an if: what its branches' values have in common. The
 * branches were checked (relax_branch), their values typed there. */
static const StructInfo *if_type(Verifier *V, const Expr *e, int depth)
{
    const char *by;
    const StructInfo *a = value_type(V, e->u.rif.then->result, &by, depth + 1);
    const StructInfo *b = value_type(V, e->u.rif.orelse->result, &by, depth + 1);
    return common_type(V, a, b, e->loc, 0);
}

/* R.prim_value(x): a prim value of x's dtype (a bare integer is int64, a
 * bare float float32), holding x when it is an integer expression. */
static const StructInfo *prim_type(Verifier *V, const Expr *e)
{
    if (e->u.call.nargs != 1 || e->u.call.nkw)
        return NULL;
    const Expr *x = e->u.call.args[0];
    StructInfo *s = arena_zalloc(V->types, sizeof *s);
    s->kind = SI_PRIM;
    s->loc = e->loc;
    s->ndim = -1;
    s->nfields = -1;
    if (x->kind == E_FLOAT)
        s->dtype = x->u.f.dtype == DT_VOID ? DT_FLOAT32 : x->u.f.dtype;
    else if (x->kind == E_BOOL)
        s->dtype = DT_BOOL;
    else if (x->kind == E_INT)
        s->dtype = x->u.i.dtype == DT_VOID ? DT_INT64 : x->u.i.dtype;
    else
        s->dtype = tir_dtype(x);
    if (dtype_is_int(s->dtype))
        s->value = (Expr *)x;
    return s;
}

/* The type of a value as far as lopt can tell, or NULL: a variable's, a
 * constant's, a tuple's (written out or an item of one), an operator's or
 * a Relax function's result, R.call_tir's out_sinfo, a shape value's,
 * R.match_cast's struct info, an if's. When an operator gives it, *by
 * names the operator (for the message). */
static const StructInfo *value_type(Verifier *V, const Expr *e, const char **by, int depth)
{
    const StructInfo *s = sinfo_of(e);
    *by = NULL;
    if (s || depth > 64)
        return s;
    switch (e->kind) {
    case E_CONST: return const_type(V, e);
    case E_TUPLE: return tuple_type(V, e, depth);
    case E_IF: return if_type(V, e, depth);
    case E_FUNC: return object_sinfo(V->types, e->loc);
    case E_CALL: break;
    default: return NULL;
    }
    if (e->u.call.callee)
        return call_type(V, e, depth);
    const char *op = e->u.call.op->str;
    if ((streq(op, "R.hint_on_device") || streq(op, "R.to_vdevice")) && e->u.call.nargs) {
        /* the operand's type; where it is placed is realize-vdevice's to say */
        const StructInfo *x = value_type(V, e->u.call.args[0], by, depth + 1);
        if (!x || !x->vdevice)
            return x;
        StructInfo *c = arena_alloc(V->types, sizeof *c);
        *c = *x;
        c->vdevice = NULL;
        return c;
    }
    if (streq(op, "R.call_tir")) {
        for (int i = 0; i < e->u.call.nkw; i++) {
            const Expr *l = call_kwv(e)[i];
            if (!streq(e->u.call.kw[i]->str, "out_sinfo") || l->kind != E_LIST)
                continue;
            StructInfo *t = arena_zalloc(V->types, sizeof *t);
            t->kind = SI_TUPLE;
            t->loc = e->loc;
            t->ndim = -1;
            t->nfields = l->u.list.n;
            t->fields = arena_array(V->types, (size_t)t->nfields + 1, sizeof *t->fields);
            for (int k = 0; k < t->nfields; k++)
                if (l->u.list.items[k]->kind != E_SINFO)
                    return NULL;
                else
                    t->fields[k] = l->u.list.items[k]->u.sinfo;
            return t;
        }
        return NULL;
    }
    if (streq(op, "R.prim_value"))
        return prim_type(V, e);
    int before = V->errors;
    *by = op;
    if (!s && V->errors == before)
        s = op_result(V, e);
    if (!s && V->errors == before)
        s = shape_op_result(V, e);
    if (!s && V->errors == before)
        s = shape_operand_result(V, e);
    return s;
}

/* The type of a tuple written out, (x, y): a field of unknown type is an object. */
static StructInfo *tuple_type(Verifier *V, const Expr *e, int depth)
{
    StructInfo *s = arena_zalloc(V->types, sizeof *s);
    s->kind = SI_TUPLE;
    s->loc = e->loc;
    s->ndim = -1;
    s->nfields = e->u.list.n;
    s->fields = arena_array(V->types, (size_t)s->nfields + 1, sizeof *s->fields);
    for (int i = 0; i < s->nfields; i++) {
        const char *by;
        const Expr *x = e->u.list.items[i];
        s->fields[i] = (StructInfo *)value_type(V, x, &by, depth + 1);
        if (!s->fields[i])
            s->fields[i] = object_sinfo(V->types, x->loc);
    }
    return s;
}

/* The type of a value that is compared with a declared one (in V->types);
 * NULL when unknown. */
static const StructInfo *declared_value(Verifier *V, const Expr *e)
{
    const char *by;
    return value_type(V, e, &by, 0);
}

/* A value against what a parameter or a result declares: what is wrong goes
 * to the user as "WHO is declared WANT but ... is HAVE". */
static void check_declared(Verifier *V, const StructInfo *want, const Expr *e, const char *who, const char *what)
{
    ArenaMark mark = arena_mark(&V->scratch);
    Arena *types = V->types;
    V->types = &V->scratch;
    const StructInfo *got = declared_value(V, e);
    if (got && !fits(want, got)) {
        char path[160], w[160], h[160];
        misfit_text(path, w, h, sizeof w, want, got);
        VERR(V, e->loc, "%s%s is declared %s but %s is %s", path, who, w, what, h);
    }
    V->types = types;
    arena_release(&V->scratch, mark);
}

/* cls.g(a, b): as many arguments as g has parameters, each of its type. */
static void relax_call(Verifier *V, const Expr *e)
{
    const Func *f = e->u.call.callee->u.global.fn;
    if (f->kind != F_RELAX)
        return;
    if (e->u.call.nargs != f->nparams || e->u.call.nkw) {
        VERR(V, e->loc, "'%s' takes %d argument%s; this call passes %d%s", f->name->str, f->nparams,
             f->nparams == 1 ? "" : "s", e->u.call.nargs, e->u.call.nkw ? " and keywords" : "");
        return;
    }
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i]->sinfo) {
            char who[160], what[64];
            snprintf(who, sizeof who, "parameter '%s' of '%s'", f->params[i]->name->str, f->name->str);
            snprintf(what, sizeof what, "argument %d", i + 1);
            check_declared(V, f->params[i]->sinfo, e->u.call.args[i], who, what);
        }
}

/* A value's type against what its variable declares, reported at loc. */
static void check_annot(Verifier *V, const StructInfo *annot, const StructInfo *got, const char *by, const Var *var,
                        Loc loc)
{
    if (!annot || !got || fits(annot, got))
        return;
    char path[160], want[160], have[160];
    misfit_text(path, want, have, sizeof want, annot, got);
    if (by)
        VERR(V, loc, "%s'%s' is declared %s but %s gives %s", path, var->name->str, want, by, have);
    else
        VERR(V, loc, "%s'%s' is declared %s but its value is %s", path, var->name->str, want, have);
}

/* A branch of an if: its bindings, then its value, typed and checked
 * against the branch's annotation and the if's (bd; NULL outside a
 * binding); its names go out of scope after it. Returns its value's type. */
static const StructInfo *relax_branch(Verifier *V, const RSeq *q, const Binding *bd)
{
    relax_blocks(V, q->blocks, q->nblocks);
    int before = V->errors;
    rexpr(V, q->result);
    const char *by = NULL;
    const StructInfo *got = V->errors == before ? value_type(V, q->result, &by, 0) : NULL;
    if (bd) {
        check_annot(V, q->annot, got, by, bd->var, q->at);
        if (bd->annot != q->annot && V->errors == before)
            check_annot(V, bd->annot, got, by, bd->var, q->at);
    }
    for (int i = 0; i < q->nblocks; i++)
        for (int k = 0; k < q->blocks[i]->nbinds; k++)
            leave(q->blocks[i]->binds[k]->var);
    return got;
}

/* An if: its condition, and its branches; its type is what theirs have in common. */
static const StructInfo *relax_if(Verifier *V, const Expr *e, const Binding *bd)
{
    rexpr(V, e->u.rif.cond);
    const StructInfo *c = sinfo_of(e->u.rif.cond);
    if (c && (c->kind == SI_TUPLE || c->kind == SI_SHAPE || c->kind == SI_OBJECT ||
              (c->kind == SI_TENSOR && ((c->ndim > 0) || (c->dtype != DT_VOID && c->dtype != DT_BOOL))) ||
              (c->kind == SI_PRIM && c->dtype != DT_BOOL)))
        VERR(V, e->u.rif.cond->loc, "the condition of an if is a scalar boolean tensor or R.prim_value of bool");
    const StructInfo *a = relax_branch(V, e->u.rif.then, bd);
    const StructInfo *b = relax_branch(V, e->u.rif.orelse, bd);
    return common_type(V, a, b, e->loc, 0);
}

/* A binding: its value checked and typed, the type checked against the
 * annotation, which is the variable's type when there is one (TVM keeps an
 * annotation more specific than the value's type, checked by a run), else
 * the value's type is. Then the variable is in scope. */
static void relax_binding(Verifier *V, Binding *bd)
{
    int before = V->errors;
    Arena *types = V->types;
    ArenaMark mark = arena_mark(&V->scratch);
    /* an annotated binding's inferred type is only compared, and costs the module no memory */
    V->types = bd->annot ? &V->scratch : &V->m->arena;
    const StructInfo *got;
    if (bd->value->kind == E_IF) {
        got = relax_if(V, bd->value, bd);   /* each branch checked against the annotations */
    } else {
        const char *by = NULL;
        rexpr(V, bd->value);
        got = V->errors == before ? value_type(V, bd->value, &by, 0) : sinfo_of(bd->value);
        check_annot(V, bd->annot, got, by, bd->var, bd->loc);
    }
    if (!bd->annot)
        bd->var->sinfo = (StructInfo *)got;
    if (bd->value->kind == E_FUNC && V->nlocals < (int)(sizeof V->locals / sizeof V->locals[0])) {
        V->locals[V->nlocals].var = bd->var;
        V->locals[V->nlocals++].fn = bd->value->u.global.fn;
    }
    arena_release(&V->scratch, mark);
    V->types = types;
    enter(V, bd->var);
}

/* The bindings of blocks in order, each checked and then in scope. */
static void relax_blocks(Verifier *V, RBlock **blocks, int nblocks)
{
    for (int i = 0; i < nblocks; i++) {
        RBlock *b = blocks[i];
        for (int k = 0; k < b->nbinds; k++)
            relax_binding(V, b->binds[k]);
        if (b->dataflow) {
            for (int k = 0; k < b->nbinds; k++)
                leave(b->binds[k]->var);
            for (int k = 0; k < b->noutputs; k++)
                enter(V, b->outputs[k]);
        }
    }
}

static void relax_func(Verifier *V, Func *f)
{
    for (int i = 0; i < f->nparams; i++)
        enter(V, f->params[i]);
    relax_blocks(V, f->blocks, f->nblocks);
    int before = V->errors;
    rexpr(V, f->result);
    if (f->ret && f->result && V->errors == before) {
        char who[160];
        snprintf(who, sizeof who, "the result of '%s'", f->name->str);
        check_declared(V, f->ret, f->result, who, "its value");
    }
}

/* A private function has no global symbol, as TVM has it: private=True
 * beside T.func_attr({"global_symbol": ...}) says two things. */
static void private_symbol(Verifier *V, const Func *f)
{
    const Expr *a = f->attrs;
    for (int i = 0; f->is_private && a && a->kind == E_DICT && i < a->u.dict.n; i++) {
        const Expr *k = a->u.dict.keys[i];
        if (k->kind == E_STR && k->u.str.len == 13 && memcmp(k->u.str.s, "global_symbol", 13) == 0)
            VERR(V, k->loc, "'%s' is private=True, which gives it no global symbol; drop the \"global_symbol\" "
                 "attribute or private=True", f->name->str);
    }
}

static int verify(Module *m, Source *src, int input, int strict, int allow_unregistered)
{
    Verifier V = { .m = m, .src = src, .input = input, .strict = strict, .allow_unregistered = allow_unregistered };
    for (int i = 0; i < m->nfuncs; i++) {
        V.live = module_stamps(m, 1) + 1;
        V.fn = m->funcs[i];
        private_symbol(&V, m->funcs[i]);
        if (m->funcs[i]->kind == F_RELAX)
            relax_func(&V, m->funcs[i]);
        else
            prim_func(&V, m->funcs[i]);
    }
    arena_free(&V.scratch);
    if (V.errors > MAX_ERRORS)
        diag_error(src, (Loc){ 0, 0 }, "%d more errors not shown", V.errors - MAX_ERRORS);
    return V.errors;
}

int ir_verify(Module *m, Source *src)
{
    return verify(m, src, 0, 0, 0);
}

int ir_verify_input(Module *m, Source *src, int strict, int allow_unregistered)
{
    return verify(m, src, 1, strict, allow_unregistered);
}
