/* Seeded inputs for --run and --verify-exec: an integer tensor that a
 * function reads as indices is drawn inside the extent it indexes (read from
 * the PrimFuncs the values reach, legalized for a registered operator, not
 * from a table of operators), a tuple parameter gets seeded items, and a
 * PrimFunc runs alone on seeded buffers (--entry). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "../ir/oom.h"

enum { MAX_CALL_DEPTH = 8 };

/* ---- the extent an index buffer indexes, in one PrimFunc ---- */

/* The buffer whose storage b is: b, or what it views (flatten's flat views). */
static const Buffer *storage(const Buffer *b)
{
    for (int depth = 0; b && b->kind == BUF_ALIAS && b->base && depth < 16; depth++)
        b = b->base;
    return b;
}

enum { MAX_CARRIERS = 8 };

typedef struct Bound {
    /* the buffers holding the index values: the parameter's, and those a
     * plain copy of one fills (TVM's legalized scatter_nd transposes its
     * indices into a buffer of its own first) */
    const Buffer *idx[MAX_CARRIERS];
    int n;
    int64_t extent;       /* the least extent they index; 0: none found */
} Bound;

/* Whether e is the value of a load of b as an index takes it: the load,
 * converted, clamped (T.max, T.min) or with negative values wrapped
 * (T.if_then_else(x < 0, x + n, x)), all of which leave [0, extent) alone. */
static int plain_index(const Expr *e, const Buffer *b)
{
    switch (e->kind) {
    case E_LOAD:
        return storage(e->u.load.buf) == b;
    case E_CAST:
        return plain_index(e->u.cast.a, b);
    case E_CALL: {
        const char *op = e->u.call.op->str;
        if (!strcmp(op, "T.if_then_else") && e->u.call.nargs == 3)
            return plain_index(e->u.call.args[2], b);
        if ((!strcmp(op, "T.max") || !strcmp(op, "T.min")) && e->u.call.nargs == 2)
            return plain_index(e->u.call.args[0], b) || plain_index(e->u.call.args[1], b);
        return 0;
    }
    default:
        return 0;
    }
}

static int reads_visit(const Buffer *b, const Expr *e);

/* Whether the index e is computed from a load of b: plainly (above), or
 * through arithmetic TVM's legalized operators write, such as
 * (i * 4 + (x + T.Cast("int64", x < 0) * 4)) // 4, which indices in
 * [0, extent) keep inside the dimension too. */
static int reads_index(const Expr *e, const Buffer *b)
{
    return plain_index(e, b) || reads_visit(b, e);
}

static int carries(const Bound *B, const Buffer *b)
{
    b = storage(b);
    for (int k = 0; k < B->n; k++)
        if (B->idx[k] == b)
            return 1;
    return 0;
}

static int index_of(const Bound *B, const Expr *e)
{
    for (int k = 0; k < B->n; k++)
        if (reads_index(e, B->idx[k]))
            return 1;
    return 0;
}

/* Whether e is a load of index values, as it is or converted. */
static int copy_of(const Bound *B, const Expr *e)
{
    while (e->kind == E_CAST)
        e = e->u.cast.a;
    return e->kind == E_LOAD && carries(B, e->u.load.buf);
}

/* Adds each buffer that a store fills with a plain copy of index values. */
static void carry_stmt(Bound *B, const Stmt *s, int *grew)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            carry_stmt(B, s->u.seq.items[i], grew);
        break;
    case S_FOR: carry_stmt(B, s->u.loop.body, grew); break;
    case S_BLOCK:
        carry_stmt(B, s->u.block->init, grew);
        carry_stmt(B, s->u.block->body, grew);
        break;
    case S_STORE:
        if (!carries(B, s->u.store.buf) && copy_of(B, s->u.store.value) && B->n < MAX_CARRIERS) {
            B->idx[B->n++] = storage(s->u.store.buf);
            *grew = 1;
        }
        break;
    case S_IF:
        carry_stmt(B, s->u.branch.then, grew);
        carry_stmt(B, s->u.branch.orelse, grew);
        break;
    case S_LOWERED: carry_stmt(B, s->u.low.body, grew); break;
    default: break;
    }
}

static void bound_expr(Bound *B, const Expr *e);

/* An access of buf at idx: each index computed from index values bounds
 * them by the extent of that dimension. */
static void bound_access(Bound *B, const Buffer *buf, Expr *const *idx, int n)
{
    for (int d = 0; d < n; d++) {
        int64_t ext;
        if (!carries(B, buf) && d < buf->ndim && index_of(B, idx[d]) && expr_const_int(buf->shape[d], &ext) == 0 &&
            ext > 0 && (B->extent == 0 || ext < B->extent))
            B->extent = ext;
        bound_expr(B, idx[d]);
    }
}

static void bound_expr(Bound *B, const Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD: bound_access(B, e->u.load.buf, e->u.load.idx, e->u.load.n); break;
    case E_BIN: bound_expr(B, e->u.bin.a); bound_expr(B, e->u.bin.b); break;
    case E_UNARY: bound_expr(B, e->u.un.a); break;
    case E_CAST: bound_expr(B, e->u.cast.a); break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            bound_expr(B, e->u.call.args[i]);
        break;
    default: break;
    }
}

static void bound_stmt(Bound *B, const Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            bound_stmt(B, s->u.seq.items[i]);
        break;
    case S_FOR: bound_stmt(B, s->u.loop.body); break;
    case S_BLOCK:
        for (int i = 0; i < s->u.block->niters; i++)
            bound_expr(B, s->u.block->iters[i].binding);
        bound_expr(B, s->u.block->where);
        bound_stmt(B, s->u.block->init);
        bound_stmt(B, s->u.block->body);
        break;
    case S_STORE:
        bound_access(B, s->u.store.buf, s->u.store.idx, s->u.store.n);
        bound_expr(B, s->u.store.value);
        break;
    case S_IF:
        bound_expr(B, s->u.branch.cond);
        bound_stmt(B, s->u.branch.then);
        bound_stmt(B, s->u.branch.orelse);
        break;
    case S_EVAL: bound_expr(B, s->u.eval); break;
    case S_LET: bound_expr(B, s->u.let.value); break;
    case S_LOWERED: bound_stmt(B, s->u.low.body); break;
    default: break;
    }
}

/* The least extent the values of PrimFunc f's parameter k index, or 0;
 * in B, the buffers that hold them (which of f's outputs copy them). */
static int64_t prim_bound_in(Bound *B, const Func *f, int k)
{
    memset(B, 0, sizeof *B);
    if (!(B->idx[0] = storage(prim_param_buffer(f, k))))
        return 0;
    B->n = 1;
    for (int grew = 1, round = 0; grew && round < MAX_CARRIERS; round++) {
        grew = 0;
        carry_stmt(B, f->body, &grew);
    }
    bound_stmt(B, f->body);
    return B->extent;
}

static int64_t prim_bound(const Func *f, int k)
{
    Bound B;
    return prim_bound_in(&B, f, k);
}

/* Whether one of f's parameters from the first output on holds a copy of
 * the index values B follows. */
static int copied_out(const Bound *B, const Func *f, int first_out)
{
    for (int j = first_out; j < f->npparams; j++)
        if (prim_param_buffer(f, j) && carries(B, prim_param_buffer(f, j)))
            return 1;
    return 0;
}

/* ---- where a Relax function's parameter goes ---- */

typedef struct Uses {
    const Func *f;        /* the function the uses are in */
    const Var *v;
    int64_t extent;       /* the least found; 0: none */
    int depth;
    VarValue value;       /* the values of main's symbolic dimensions (depth 0), or NULL */
    void *data;
} Uses;

static void take_bound(Uses *U, int64_t ext)
{
    if (ext > 0 && (U->extent == 0 || ext < U->extent))
        U->extent = ext;
}

static int64_t relax_bound(const Func *f, const Var *v, int depth, VarValue value, void *data);

/* A tensor type of constant shape: as declared, or with the symbolic
 * dimensions of the function the uses are in given their values. */
static int use_type(const Uses *U, const StructInfo *s, TensorType *t)
{
    if (op_sinfo_type(s, t) == 0)
        return 0;
    if (!U->value || !s || s->kind != SI_TENSOR || !s->shape || s->dtype == DT_VOID || s->ndim < 0 ||
        s->ndim > OP_MAX_RANK)
        return -1;
    memset(t, 0, sizeof *t);
    t->dtype = s->dtype;
    t->ndim = s->ndim;
    for (int i = 0; i < s->ndim; i++)
        if (expr_eval_int(s->shape[i], U->value, U->data, &t->shape[i]) || t->shape[i] < 0)
            return -1;
    return 0;
}

static int is_v(const Expr *e, const Var *v)
{
    return e && e->kind == E_VAR && e->u.var == v;
}

/* The variable the call e is bound to among f's bindings, or NULL. */
static const Var *binding_of(const Func *f, const Expr *e)
{
    for (int b = 0; b < f->nblocks; b++)
        for (int k = 0; k < f->blocks[b]->nbinds; k++)
            if (f->blocks[b]->binds[k]->value == e)
                return f->blocks[b]->binds[k]->var;
    return NULL;
}

/* The uses of index values in PrimFunc g, the call e's, at parameter k:
 * what they index there, and, when g copies them to an output (a
 * permute_dims, a reshape, a layout_transform of them), what the result of
 * e indexes in turn. */
static void prim_use(Uses *U, const Expr *e, const Func *g, int k, int first_out)
{
    Bound B;
    take_bound(U, prim_bound_in(&B, g, k));
    const Var *y = copied_out(&B, g, first_out) ? binding_of(U->f, e) : NULL;
    if (y && U->depth < MAX_CALL_DEPTH)
        take_bound(U, relax_bound(U->f, y, U->depth + 1, U->value, U->data));
}

/* A registered operator's call with v among its tensors: the PrimFunc it
 * legalizes to, for the operands' declared types, says what v indexes. */
static void op_use(Uses *U, const Expr *e, const OpInfo *op)
{
    Expr *const *items = e->u.call.args;
    int n = op->ntensors;
    if (op->tuple_arg) {
        if (e->u.call.nargs < 1 || e->u.call.args[0]->kind != E_TUPLE)
            return;
        items = e->u.call.args[0]->u.list.items;
        n = e->u.call.args[0]->u.list.n;
    }
    if (n > OP_MAX_ARGS || e->u.call.nargs < (op->tuple_arg ? 1 : n))
        return;
    TensorType types[OP_MAX_ARGS];
    int at = -1;
    for (int k = 0; k < n; k++) {
        if (is_v(items[k], U->v))
            at = at < 0 ? k : at;
        if (items[k]->kind == E_CONST ? op_const_type(items[k], &types[k])
                                       : items[k]->kind != E_VAR || use_type(U, items[k]->u.var->sinfo, &types[k]))
            return;
    }
    if (at < 0)
        return;
    Module *scratch = module_new();
    OpError err;
    Func *g = op_legalize(scratch, e, types, n, intern_cstr(&scratch->names, "seed"), &err);
    for (int k = 0; g && k < n; k++)
        if (is_v(items[k], U->v))
            prim_use(U, e, g, k, n);
    module_free(scratch);
}

static int use_visit(const Expr *e, void *data)
{
    Uses *U = data;
    if (e->kind != E_CALL)
        return 0;
    const Expr *callee = e->u.call.callee;
    if (callee && callee->kind == E_GLOBAL && callee->u.global.fn->kind == F_RELAX) {
        for (int k = 0; k < e->u.call.nargs && k < callee->u.global.fn->nparams; k++)
            if (is_v(e->u.call.args[k], U->v) && U->depth < MAX_CALL_DEPTH)
                take_bound(U, relax_bound(callee->u.global.fn, callee->u.global.fn->params[k], U->depth + 1, NULL,
                                          NULL));
        return 0;
    }
    if (callee)
        return 0;
    if (!strcmp(e->u.call.op->str, "R.call_tir")) {
        const Expr *fn = e->u.call.nargs >= 2 ? e->u.call.args[0] : NULL, *args = fn ? e->u.call.args[1] : NULL;
        if (!fn || fn->kind != E_GLOBAL || fn->u.global.fn->kind != F_PRIM || args->kind != E_TUPLE)
            return 0;
        for (int k = 0; k < args->u.list.n && k < fn->u.global.fn->npparams; k++)
            if (is_v(args->u.list.items[k], U->v))
                prim_use(U, e, fn->u.global.fn, k, args->u.list.n);
        return 0;
    }
    const OpInfo *op = op_find(e->u.call.op->str);
    if (op)
        op_use(U, e, op);
    return 0;
}

static int64_t relax_bound(const Func *f, const Var *v, int depth, VarValue value, void *data)
{
    Uses U = { f, v, 0, depth, value, data };
    relax_walk_blocks(f->blocks, f->nblocks, use_visit, &U);
    return U.extent;
}

/* ---- extents nothing binds ---- */

typedef struct Divs {
    const Var *v;
    int64_t lcm;
} Divs;

static int mentions(const Expr *e, const Var *v)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case E_VAR: return e->u.var == v;
    case E_BIN: return mentions(e->u.bin.a, v) || mentions(e->u.bin.b, v);
    case E_UNARY: return mentions(e->u.un.a, v);
    case E_CAST: return mentions(e->u.cast.a, v);
    default: return 0;
    }
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Each e // k and e % k with e mentioning D->v makes v a multiple of k. */
static void divs_expr(Divs *D, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == E_BIN) {
        const Expr *k = e->u.bin.b;
        BinOp op = e->u.bin.op;
        if ((op == B_FLOORDIV || op == B_FLOORMOD || op == B_DIV) && k->kind == E_INT && mentions(e->u.bin.a, D->v)) {
            int64_t m = k->u.i.v < 0 ? -k->u.i.v : k->u.i.v;
            if (m >= 2 && m <= INTERP_DRAWN_EXTENT_MAX)
                D->lcm = D->lcm / gcd(D->lcm, m) * m;
            if (D->lcm > INTERP_DRAWN_EXTENT_MAX)
                D->lcm = 1;   /* no small extent has them all */
        }
        divs_expr(D, e->u.bin.a);
        divs_expr(D, e->u.bin.b);
    } else if (e->kind == E_UNARY) {
        divs_expr(D, e->u.un.a);
    } else if (e->kind == E_CAST) {
        divs_expr(D, e->u.cast.a);
    }
}

static void divs_sinfo(Divs *D, const StructInfo *s, int depth)
{
    if (!s || depth > 16)
        return;
    for (int d = 0; s->shape && d < s->ndim; d++)
        divs_expr(D, s->shape[d]);
    divs_expr(D, s->value);
    for (int k = 0; s->kind == SI_TUPLE && k < s->nfields; k++)
        divs_sinfo(D, s->fields[k], depth + 1);
}

static int divs_visit(const Expr *e, void *data)
{
    if (e->kind == E_SINFO)
        divs_sinfo(data, e->u.sinfo, 0);
    return 0;
}

/* The least multiple of every constant that divides v in f's types: its
 * parameters', its result's, its bindings' and the types its calls take
 * (R.match_cast, out_sinfo=). */
static int64_t dim_multiple(const Func *f, const Var *v)
{
    Divs D = { v, 1 };
    for (int i = 0; i < f->nparams; i++)
        divs_sinfo(&D, f->params[i]->sinfo, 0);
    divs_sinfo(&D, f->ret, 0);
    for (int b = 0; b < f->nblocks; b++)
        for (int k = 0; k < f->blocks[b]->nbinds; k++) {
            divs_sinfo(&D, f->blocks[b]->binds[k]->annot, 0);
            divs_sinfo(&D, f->blocks[b]->binds[k]->var->sinfo, 0);
        }
    relax_walk_blocks(f->blocks, f->nblocks, divs_visit, &D);
    return D.lcm;
}

int64_t interp_draw_extent(const Func *f, const Var *v, const char *name, uint64_t seed)
{
    /* the multiples of m in [2, max(8, 2m)]: 2 to 8 when nothing divides v */
    int64_t m = v ? dim_multiple(f, v) : 1, lo = m >= 2 ? 1 : 2, hi = m >= 4 ? 2 : 8 / m, none = 0;
    Tensor *t = tensor_new(DT_INT64, 0, &none);
    if (!t)
        return lo * m;
    tensor_fill_seeded_below(t, seed, name, hi - lo + 1);
    int64_t k = lo + tensor_geti(t, 0);
    tensor_free(t);
    return k * m;
}

int64_t interp_even_extent(const Func *f, const Var *v)
{
    int64_t m = v ? dim_multiple(f, v) : 1;
    return m <= 1 || 4 % m == 0 ? 4 : m;
}

typedef struct Cast {
    const Var *p;
    const Expr *call;
} Cast;

static int cast_visit(const Expr *e, void *data)
{
    Cast *C = data;
    if (!C->call && e->kind == E_CALL && !e->u.call.callee && !strcmp(e->u.call.op->str, "R.match_cast") &&
        e->u.call.nargs == 2 && is_v(e->u.call.args[0], C->p) && e->u.call.args[1]->kind == E_SINFO &&
        e->u.call.args[1]->u.sinfo->kind == SI_TENSOR && e->u.call.args[1]->u.sinfo->shape)
        C->call = e;
    return 0;
}

const Expr *interp_param_cast(const Func *f, const Var *p)
{
    Cast C = { p, NULL };
    relax_walk_blocks(f->blocks, f->nblocks, cast_visit, &C);
    return C.call;
}

/* ---- filling ---- */

static void fill(Tensor *t, uint64_t seed, const char *name, int64_t extent)
{
    if (extent > 0 && dtype_is_int(t->dtype))
        tensor_fill_seeded_below(t, seed, name, extent);
    else
        tensor_fill_seeded(t, seed, name);
}

/* Whether p is the begin, end or strides of an R.dynamic_strided_slice
 * (C->p's role, 1, 2 or 3, in C->role). */
typedef struct Slice {
    const Var *p;
    int role;
} Slice;

static int slice_visit(const Expr *e, void *data)
{
    Slice *S = data;
    if (S->role || e->kind != E_CALL || e->u.call.callee || strcmp(e->u.call.op->str, "R.dynamic_strided_slice") ||
        e->u.call.nargs < 4)
        return 0;
    for (int k = 1; k < 4 && !S->role; k++)
        if (is_v(e->u.call.args[k], S->p))
            S->role = k;
    return 0;
}

void interp_fill_param(const Func *f, int i, Tensor *t, uint64_t seed, VarValue dims, void *data)
{
    const Var *p = f->params[i];
    Slice S = { p, 0 };
    if (dtype_is_int(t->dtype))
        relax_walk_blocks(f->blocks, f->nblocks, slice_visit, &S);
    if (S.role) {
        /* a slice that keeps something: begin 0, end past every
         * extent (the slice clamps it), strides 1 or 2 (never 0) */
        tensor_fill_seeded_below(t, seed, p->name->str, 2);
        for (int64_t k = 0; k < t->count; k++)
            tensor_seti(t, k, S.role == 1 ? 0 : S.role == 2 ? INT32_MAX : tensor_geti(t, k) + 1);
        return;
    }
    fill(t, seed, p->name->str, dtype_is_int(t->dtype) ? relax_bound(f, p, 0, dims, data) : 0);
}

static Value *seed_sinfo(const StructInfo *s, uint64_t seed, const char *name, char *err, size_t cap, int depth,
                         VarValue dims, void *data)
{
    if (s && s->kind == SI_TUPLE && s->nfields >= 0 && depth < 16) {
        Value **items = xcalloc((size_t)s->nfields + 1, sizeof *items);
        if (!items)
            oom_fail();
        for (int k = 0; k < s->nfields; k++) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s[%d]", name, k);
            if (!(items[k] = seed_sinfo(s->fields[k], seed, sub, err, cap, depth + 1, dims, data))) {
                while (k--)
                    value_free(items[k]);
                free(items);
                return NULL;
            }
        }
        Value *v = value_tuple(items, s->nfields);
        free(items);
        return v;
    }
    int64_t shape[TENSOR_MAX_RANK];
    int ok = s && s->kind == SI_TENSOR && s->shape && s->dtype != DT_VOID && s->ndim <= TENSOR_MAX_RANK;
    for (int d = 0; ok && d < s->ndim; d++)
        ok = (expr_const_int(s->shape[d], &shape[d]) == 0 ||
              (dims && expr_eval_int(s->shape[d], dims, data, &shape[d]) == 0)) && shape[d] >= 0;
    Tensor *t = ok ? tensor_new(s->dtype, s->ndim, shape) : NULL;
    if (!t) {
        snprintf(err, cap, ok ? "%s is too large to make" : "%s needs a tensor type with a shape and a dtype "
                 "(or a tuple of them)", name);
        return NULL;
    }
    tensor_fill_seeded(t, seed, name);
    return value_tensor(t);
}

Value *interp_seed_tuple(const Func *f, int i, uint64_t seed, VarValue dims, void *data, char *err, size_t cap)
{
    const Var *p = f->params[i];
    return seed_sinfo(p->sinfo, seed, p->name->str, err, cap, 0, dims, data);
}

/* ---- a PrimFunc alone ---- */

static int reads_visit(const Buffer *b, const Expr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case E_LOAD:
        if (storage(e->u.load.buf) == b)
            return 1;
        for (int d = 0; d < e->u.load.n; d++)
            if (reads_visit(b, e->u.load.idx[d]))
                return 1;
        return 0;
    case E_BIN: return reads_visit(b, e->u.bin.a) || reads_visit(b, e->u.bin.b);
    case E_UNARY: return reads_visit(b, e->u.un.a);
    case E_CAST: return reads_visit(b, e->u.cast.a);
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            if (reads_visit(b, e->u.call.args[i]))
                return 1;
        return 0;
    default: return 0;
    }
}

/* Whether s reads b (want 'r') or writes it (want 'w'). */
static int touches(const Stmt *s, const Buffer *b, char want)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            if (touches(s->u.seq.items[i], b, want))
                return 1;
        return 0;
    case S_FOR: return touches(s->u.loop.body, b, want);
    case S_BLOCK:
        if (want == 'r' && reads_visit(b, s->u.block->where))
            return 1;
        return touches(s->u.block->init, b, want) || touches(s->u.block->body, b, want);
    case S_STORE:
        if (want == 'w')
            return storage(s->u.store.buf) == b;
        for (int d = 0; d < s->u.store.n; d++)
            if (reads_visit(b, s->u.store.idx[d]))
                return 1;
        return reads_visit(b, s->u.store.value);
    case S_IF:
        return (want == 'r' && reads_visit(b, s->u.branch.cond)) || touches(s->u.branch.then, b, want) ||
               touches(s->u.branch.orelse, b, want);
    case S_EVAL: return want == 'r' && reads_visit(b, s->u.eval);
    case S_LET: return want == 'r' && reads_visit(b, s->u.let.value);
    case S_LOWERED: return touches(s->u.low.body, b, want);
    default: return 0;
    }
}

/* An integer scalar parameter of an entry PrimFunc, or NULL. */
static const Var *int_param(const Func *f, int k)
{
    const Var *v = f->pparams[k].var;
    return !f->pparams[k].buf && !prim_param_buffer(f, k) && v && !f->pparams[k].handle_type && dtype_is_int(v->dtype)
           ? v : NULL;
}

/* The scalar parameters of an entry PrimFunc with their seeded values. */
typedef struct Entry {
    const Func *f;
    Tensor *const *args;
} Entry;

static int scalar_value(const Var *v, void *data, int64_t *out)
{
    const Entry *en = data;
    for (int k = 0; k < en->f->npparams; k++)
        if (int_param(en->f, k) == v && en->args[k]) {
            *out = tensor_geti(en->args[k], 0);
            return 0;
        }
    return -1;
}

/* An extent of an entry PrimFunc's buffer over its scalar parameters'
 * values ((16 + n - 1) // n); -1 when it reads anything else. */
static int entry_dim(const Func *f, Tensor *const *args, const Expr *e, int64_t *v)
{
    Entry en = { f, args };
    return expr_eval_int(e, scalar_value, &en, v);
}

int interp_run_prim_seeded(Interp *in, Func *f, uint64_t seed, Value **out, InterpError *err)
{
    int n = f->npparams;
    Tensor **args = xcalloc((size_t)n + 1, sizeof *args);
    Value **outs = xcalloc((size_t)n + 1, sizeof *outs);
    int nout = 0, status = -1;
    if (!args || !outs)
        oom_fail();
    /* An integer scalar parameter (n: T.int32) has nothing outside to bind
     * it: the buffers are made from their declared shapes, which are written
     * with it, not the other way round. It is drawn from 1 to 8 by the seed
     * and its name, the same in both runs of --verify-exec, before the
     * buffers' shapes are computed from it. */
    for (int k = 0; k < n; k++) {
        const Var *v = int_param(f, k);
        int64_t none = 0;
        if (!v)
            continue;
        if (!(args[k] = tensor_new(v->dtype, 0, &none)))
            oom_fail();
        tensor_fill_seeded_below(args[k], seed, v->name->str, 8);
        tensor_seti(args[k], 0, tensor_geti(args[k], 0) + 1);
    }
    for (int k = 0; k < n; k++) {
        const Buffer *b = prim_param_buffer(f, k);
        if (!b && args[k])
            continue;
        int64_t shape[TENSOR_MAX_RANK];
        int ok = b && b->ndim <= TENSOR_MAX_RANK;
        for (int d = 0; ok && d < b->ndim; d++)
            ok = entry_dim(f, args, b->shape[d], &shape[d]) == 0 && shape[d] >= 0;
        const char *name = b ? b->name->str : f->pparams[k].var->name->str;
        if (!ok || !(args[k] = tensor_new(b->dtype, b->ndim, shape))) {
            err->loc = b ? b->loc : f->pparams[k].var->loc;
            const Var *v = f->pparams[k].var;
            snprintf(err->msg, sizeof err->msg, "cannot make a %s for parameter '%s' of '%s': %s%s%s", b ? "buffer" :
                     "value", name, f->name->str, b ? "" : v->dtype == DT_HANDLE ? "a handle no T.match_buffer reads" :
                     "it is a ", b || v->dtype == DT_HANDLE ? "" : dtype_name(v->dtype),
                     b ? (ok ? "it is too large" : "its shape is not constant, nor computed from integer scalar "
                          "parameters") : v->dtype == DT_HANDLE ? "" : " scalar; --entry draws integer scalars only");
            goto done;
        }
        /* what the function reads is seeded; what it only writes starts undefined */
        if (touches(f->body, b, 'r'))
            fill(args[k], seed, name, dtype_is_int(b->dtype) ? prim_bound(f, k) : 0);
        else
            tensor_fill_poison_all(args[k]);
    }
    if (interp_call_prim(in, f, args, n, err))
        goto done;
    for (int k = 0; k < n; k++)
        if (prim_param_buffer(f, k) && touches(f->body, prim_param_buffer(f, k), 'w')) {
            outs[nout++] = value_tensor(args[k]);
            args[k] = NULL;
        }
    if (nout == 0) {
        err->loc = f->loc;
        snprintf(err->msg, sizeof err->msg, "'%s' writes none of its buffers: there is nothing to show", f->name->str);
        goto done;
    }
    *out = nout == 1 ? outs[0] : value_tuple(outs, nout);
    status = 0;
done:
    for (int k = 0; k < n; k++)
        tensor_free(args[k]);
    if (status && nout)
        for (int k = 0; k < nout; k++)
            value_free(outs[k]);
    free(args);
    free(outs);
    return status;
}
