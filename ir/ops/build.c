/* Building a PrimFunc's body: expressions, buffers, loads and stores, and loop
 * nests with one block inside, in the module's arena. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "../indexmap.h"

Expr *num(B *b, int64_t v)
{
    return expr_int(b->a, v, DT_VOID, b->loc);
}

Expr *ref(B *b, Var *v)
{
    Expr *e = expr_new(b->a, E_VAR, b->loc);
    e->u.var = v;
    return e;
}

Expr *bin(B *b, BinOp op, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_BIN, b->loc);
    e->u.bin.op = op;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

Expr *typed(B *b, double v, DType t)
{
    Expr *e;
    if (dtype_is_float(t)) {
        e = expr_float(b->a, v, t, b->loc);
    } else {
        e = expr_int(b->a, (int64_t)v, t, b->loc);
    }
    return e;
}

Expr *intrin(B *b, const char *op, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_CALL, b->loc);
    e->u.call.op = intern_cstr(&b->m->names, op);
    e->u.call.nargs = y ? 2 : 1;
    e->u.call.args = arena_array(b->a, 2, sizeof(Expr *));
    e->u.call.args[0] = x;
    e->u.call.args[1] = y;
    return e;
}

Expr *str(B *b, const char *s)
{
    Expr *e = expr_new(b->a, E_STR, b->loc);
    e->u.str.s = arena_strndup(b->a, s, strlen(s));
    e->u.str.len = (int)strlen(s);
    return e;
}

Buffer *buffer(B *b, const char *name, const TensorType *t, BufKind kind)
{
    Buffer *x = arena_zalloc(b->a, sizeof *x);
    x->name = intern_cstr(&b->m->names, name);
    x->loc = b->loc;
    x->kind = kind;
    x->dtype = t->dtype;
    x->ndim = t->ndim;
    x->shape = arena_array(b->a, (size_t)t->ndim + 1, sizeof *x->shape);
    for (int i = 0; i < t->ndim; i++)
        x->shape[i] = num(b, t->shape[i]);
    return x;
}

Expr *load(B *b, Buffer *buf, Expr **idx)
{
    Expr *e = expr_new(b->a, E_LOAD, b->loc);
    e->u.load.buf = buf;
    e->u.load.n = buf->ndim;
    e->u.load.idx = arena_array(b->a, (size_t)buf->ndim + 1, sizeof *idx);
    memcpy(e->u.load.idx, idx, (size_t)buf->ndim * sizeof *idx);
    return e;
}

Stmt *store(B *b, Buffer *buf, Expr **idx, Expr *value)
{
    Stmt *s = stmt_new(b->a, S_STORE, b->loc);
    s->u.store.buf = buf;
    s->u.store.n = buf->ndim;
    s->u.store.idx = arena_array(b->a, (size_t)buf->ndim + 1, sizeof *idx);
    memcpy(s->u.store.idx, idx, (size_t)buf->ndim * sizeof *idx);
    s->u.store.value = value;
    return s;
}

void nest_begin(B *b, Nest *t, int n, const int64_t *ext, const char *kinds)
{
    t->n = n;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", i);
        t->loop[i] = var_new(b->a, intern_cstr(&b->m->names, name), VAR_TIR, b->loc);
        snprintf(name, sizeof name, "v%d", i);
        t->iv[i] = var_new(b->a, intern_cstr(&b->m->names, name), VAR_TIR, b->loc);
        t->x[i] = ref(b, t->iv[i]);
        t->ext[i] = ext[i];
        t->kind[i] = kinds ? kinds[i] : 'S';
    }
}

void emit(B *b, Stmt *s)
{
    vec_push(b->a, &b->stmts, &b->n, &b->cap, s);
}

static void simplify_stmt(B *b, const Nest *t, Stmt *s);

static int expr_size(const Expr *e)
{
    switch (e->kind) {
    case E_BIN: return 1 + expr_size(e->u.bin.a) + expr_size(e->u.bin.b);
    case E_UNARY: return 1 + expr_size(e->u.un.a);
    default: return 1;
    }
}

/* e's normal form when it is smaller than e (v1 // 1 * 1 + v4 is v1 + v4),
 * else e as the operator wrote it (v2 + v5 * 2 stays). */
static Expr *simplify_index(B *b, const Nest *t, Expr *e)
{
    Expr *r = im_simplify(b->a, &b->scratch, e, t->iv, t->ext, t->n);
    return expr_size(r) < expr_size(e) ? r : e;
}

/* The indices of e's loads in normal form over the nest's iterators: an
 * operator composes them from pieces (the group of a channel, a layout's
 * split), and A[v1 // 1 * 1 + v4] would be read at run time as written. */
static void simplify_expr(B *b, const Nest *t, Expr *e)
{
    switch (e->kind) {
    case E_LOAD:
        for (int i = 0; i < e->u.load.n; i++) {
            simplify_expr(b, t, e->u.load.idx[i]);
            e->u.load.idx[i] = simplify_index(b, t, e->u.load.idx[i]);
        }
        break;
    case E_BIN:
        simplify_expr(b, t, e->u.bin.a);
        simplify_expr(b, t, e->u.bin.b);
        break;
    case E_UNARY: simplify_expr(b, t, e->u.un.a); break;
    case E_CAST: simplify_expr(b, t, e->u.cast.a); break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            simplify_expr(b, t, e->u.call.args[i]);
        break;
    default: break;
    }
}

static void simplify_stmt(B *b, const Nest *t, Stmt *s)
{
    switch (s->kind) {
    case S_STORE:
        for (int i = 0; i < s->u.store.n; i++) {
            simplify_expr(b, t, s->u.store.idx[i]);
            s->u.store.idx[i] = simplify_index(b, t, s->u.store.idx[i]);
        }
        simplify_expr(b, t, s->u.store.value);
        break;
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            simplify_stmt(b, t, s->u.seq.items[i]);
        break;
    case S_IF:
        simplify_expr(b, t, s->u.branch.cond);
        simplify_stmt(b, t, s->u.branch.then);
        if (s->u.branch.orelse)
            simplify_stmt(b, t, s->u.branch.orelse);
        break;
    case S_EVAL: simplify_expr(b, t, s->u.eval); break;
    default: break;
    }
}

void nest_end(B *b, Nest *t, const char *name, Stmt *init, Stmt *body)
{
    if (init)
        simplify_stmt(b, t, init);
    simplify_stmt(b, t, body);
    Block *blk = arena_zalloc(b->a, sizeof *blk);
    blk->name = intern_cstr(&b->m->names, name);
    blk->niters = t->n;
    blk->iters = arena_array(b->a, (size_t)t->n + 1, sizeof *blk->iters);
    for (int i = 0; i < t->n; i++) {
        BlockIter *it = &blk->iters[i];
        it->var = t->iv[i];
        it->kind = t->kind[i];
        it->dom = num(b, t->ext[i]);
        it->binding = ref(b, t->loop[i]);
        it->loc = b->loc;
    }
    blk->init = init;
    blk->body = body;
    Stmt *s = stmt_new(b->a, S_BLOCK, b->loc);
    s->u.block = blk;
    for (int i = t->n - 1; i >= 0; i--) {
        Stmt *f = stmt_new(b->a, S_FOR, b->loc);
        f->u.loop.var = t->loop[i];
        f->u.loop.fk = FOR_SERIAL;
        f->u.loop.min = num(b, 0);
        f->u.loop.extent = num(b, t->ext[i]);
        f->u.loop.body = s;
        t->loop[i]->loop = f;
        s = f;
    }
    emit(b, s);
}

/* x (of dtype from) as dtype to: a T.Cast when they differ. */
Expr *to_dtype(B *b, Expr *x, DType from, DType to)
{
    if (from == to)
        return x;
    Expr *c = expr_new(b->a, E_CAST, b->loc);
    c->u.cast.dtype = to;
    c->u.cast.a = x;
    return c;
}

Expr *select3(B *b, Expr *cond, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_CALL, b->loc);
    e->u.call.op = intern_cstr(&b->m->names, "T.if_then_else");
    e->u.call.nargs = 3;
    e->u.call.args = arena_array(b->a, 3, sizeof(Expr *));
    e->u.call.args[0] = cond;
    e->u.call.args[1] = x;
    e->u.call.args[2] = y;
    return e;
}

/* lo <= e < hi */
Expr *within(B *b, Expr *e, int64_t lo, int64_t hi)
{
    return bin(b, B_AND, bin(b, B_LE, num(b, lo), e), bin(b, B_LT, e, num(b, hi)));
}

Buffer *scratch(B *b, const char *name, const TensorType *t)
{
    Buffer *x = buffer(b, name, t, BUF_ALLOC);
    Stmt *s = stmt_new(b->a, S_ALLOC, b->loc);
    s->u.alloc = x;
    emit(b, s);
    return x;
}


void nest_reduce(B *b, Nest *t, const int64_t *shape, int rank, const int *red, const int *order, int norder, int *at)
{
    int64_t ext[OP_MAX_RANK] = { 0 };
    char kinds[OP_MAX_RANK] = { 0 };
    int n = 0;
    for (int d = 0; d < rank; d++)
        if (!red[d]) {
            ext[n] = shape[d];
            kinds[n] = 'S';
            at[d] = n++;
        }
    for (int i = 0; i < (order ? norder : rank); i++) {
        int d = order ? order[i] : i;
        if (red[d]) {
            ext[n] = shape[d];
            kinds[n] = 'R';
            at[d] = n++;
        }
    }
    nest_begin(b, t, n, ext, kinds);
}
