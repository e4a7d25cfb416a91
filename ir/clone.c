/* Deep copies of TIR statements and expressions with substitution of
 * variables and buffers (clone.h). Everything is allocated in the caller's
 * arena; constants' data and interned names are shared, being immutable. */
#include <string.h>

#include "clone.h"

void subst_var(Arena *a, Subst *s, const Var *from, Expr *to)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        const Var **f = arena_array(a, (size_t)cap, sizeof *f);
        Expr **t = arena_array(a, (size_t)cap, sizeof *t);
        if (s->n) {
            memcpy(f, s->from, (size_t)s->n * sizeof *f);
            memcpy(t, s->to, (size_t)s->n * sizeof *t);
        }
        s->from = f;
        s->to = t;
        s->cap = cap;
    }
    s->from[s->n] = from;
    s->to[s->n++] = to;
}

void subst_buf(Arena *a, Subst *s, const Buffer *from, Buffer *to)
{
    if (s->nb == s->bcap) {
        int cap = s->bcap ? 2 * s->bcap : 8;
        const Buffer **f = arena_array(a, (size_t)cap, sizeof *f);
        Buffer **t = arena_array(a, (size_t)cap, sizeof *t);
        if (s->nb) {
            memcpy(f, s->bfrom, (size_t)s->nb * sizeof *f);
            memcpy(t, s->bto, (size_t)s->nb * sizeof *t);
        }
        s->bfrom = f;
        s->bto = t;
        s->bcap = cap;
    }
    s->bfrom[s->nb] = from;
    s->bto[s->nb++] = to;
}

static Expr *find_var(const Subst *s, const Var *v)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (s->from[i] == v)
            return s->to[i];
    return NULL;
}

Buffer *subst_find_buf(const Subst *s, const Buffer *b)
{
    for (int i = s->nb - 1; i >= 0; i--)
        if (s->bfrom[i] == b)
            return s->bto[i];
    return (Buffer *)b;
}

static Expr **clone_list(Arena *a, Subst *s, Expr *const *items, int n)
{
    Expr **out = arena_array(a, (size_t)n + 1, sizeof *out);
    for (int i = 0; i < n; i++)
        out[i] = clone_expr(a, s, items[i]);
    return out;
}

/* A fresh copy of v, recorded so that later uses of v become the copy. */
static Var *fresh_var(Arena *a, Subst *s, const Var *v)
{
    Var *c = var_copy(a, v);
    Expr *e = expr_new(a, E_VAR, v->loc);
    e->u.var = c;
    subst_var(a, s, v, e);
    return c;
}

Expr *clone_expr(Arena *a, Subst *s, const Expr *e)
{
    if (!e)
        return NULL;
    if (e->kind == E_VAR) {
        Expr *to = find_var(s, e->u.var);
        if (to)
            return to->kind == E_VAR ? to : clone_expr(a, &(Subst){ 0 }, to);
    }
    Expr *c = arena_alloc(a, sizeof *c);
    *c = *e;
    switch (e->kind) {
    case E_TUPLE:
    case E_LIST:
        c->u.list.items = clone_list(a, s, e->u.list.items, e->u.list.n);
        break;
    case E_DICT:
        c->u.dict.keys = clone_list(a, s, e->u.dict.keys, e->u.dict.n);
        c->u.dict.vals = clone_list(a, s, e->u.dict.vals, e->u.dict.n);
        break;
    case E_GETITEM:
        c->u.get.tuple = clone_expr(a, s, e->u.get.tuple);
        break;
    case E_CALL:
        c->u.call.args = clone_list(a, s, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
        if (e->u.call.nkw) {
            c->u.call.kw = arena_array(a, (size_t)e->u.call.nkw, sizeof *c->u.call.kw);
            memcpy(c->u.call.kw, e->u.call.kw, (size_t)e->u.call.nkw * sizeof *c->u.call.kw);
        }
        break;
    case E_STR:
        /* the copy owns its text: a function built in a staging arena is
         * copied out before that arena goes */
        c->u.str.s = arena_strndup(a, e->u.str.s, (size_t)e->u.str.len);
        break;
    case E_BIN:
        c->u.bin.a = clone_expr(a, s, e->u.bin.a);
        c->u.bin.b = clone_expr(a, s, e->u.bin.b);
        break;
    case E_UNARY:
        c->u.un.a = clone_expr(a, s, e->u.un.a);
        break;
    case E_LOAD:
        c->u.load.buf = subst_find_buf(s, e->u.load.buf);
        c->u.load.idx = clone_list(a, s, e->u.load.idx, e->u.load.n);
        break;
    case E_CAST:
        c->u.cast.a = clone_expr(a, s, e->u.cast.a);
        break;
    case E_SLICE:
        c->u.slice.lo = clone_expr(a, s, e->u.slice.lo);
        c->u.slice.hi = clone_expr(a, s, e->u.slice.hi);
        break;
    case E_INDEXMAP: {
        int mark = s->n;
        c->u.map.params = arena_array(a, (size_t)e->u.map.nparams + 1, sizeof(Var *));
        for (int i = 0; i < e->u.map.nparams; i++)
            c->u.map.params[i] = fresh_var(a, s, e->u.map.params[i]);
        c->u.map.out = clone_list(a, s, e->u.map.out, e->u.map.nout);
        s->n = mark;
        break;
    }
    default:
        break;
    }
    return c;
}

Buffer *clone_buffer(Arena *a, Subst *s, const Buffer *b)
{
    Buffer *c = arena_alloc(a, sizeof *c);
    *c = *b;
    c->shape = clone_list(a, s, b->shape, b->ndim);
    c->extra_vals = clone_list(a, s, b->extra_vals, b->nextra);
    if (b->handle) {
        Expr *h = find_var(s, b->handle);
        if (h && h->kind == E_VAR)
            c->handle = h->u.var;
    }
    if (b->base)
        c->base = subst_find_buf(s, b->base);
    subst_buf(a, s, b, c);
    return c;
}

static Region *clone_regions(Arena *a, Subst *s, const Region *r, int n)
{
    Region *out = arena_array(a, (size_t)n + 1, sizeof *out);
    for (int i = 0; i < n; i++) {
        out[i] = r[i];
        out[i].buf = subst_find_buf(s, r[i].buf);
        out[i].idx = clone_list(a, s, r[i].idx, r[i].n);
    }
    return out;
}

static Block *clone_block(Arena *a, Subst *s, const Block *b)
{
    Block *c = arena_alloc(a, sizeof *c);
    *c = *b;
    c->iters = arena_array(a, (size_t)b->niters + 1, sizeof *c->iters);
    /* bindings and domains see the enclosing scope, not the new iterators */
    for (int i = 0; i < b->niters; i++) {
        c->iters[i] = b->iters[i];
        c->iters[i].dom = clone_expr(a, s, b->iters[i].dom);
        c->iters[i].binding = clone_expr(a, s, b->iters[i].binding);
    }
    for (int i = 0; i < b->niters; i++)
        c->iters[i].var = fresh_var(a, s, b->iters[i].var);
    c->reads = clone_regions(a, s, b->reads, b->nreads);
    c->writes = clone_regions(a, s, b->writes, b->nwrites);
    c->attrs = clone_expr(a, s, b->attrs);
    c->where = clone_expr(a, s, b->where);
    c->init = clone_stmt(a, s, b->init);
    c->body = clone_stmt(a, s, b->body);
    return c;
}

Stmt *clone_stmt(Arena *a, Subst *s, const Stmt *st)
{
    if (!st)
        return NULL;
    Stmt *c = arena_alloc(a, sizeof *c);
    *c = *st;
    switch (st->kind) {
    case S_SEQ:
        c->u.seq.items = arena_array(a, (size_t)st->u.seq.n + 1, sizeof(Stmt *));
        for (int i = 0; i < st->u.seq.n; i++)
            c->u.seq.items[i] = clone_stmt(a, s, st->u.seq.items[i]);
        break;
    case S_FOR:
        c->u.loop.min = clone_expr(a, s, st->u.loop.min);
        c->u.loop.extent = clone_expr(a, s, st->u.loop.extent);
        c->u.loop.var = fresh_var(a, s, st->u.loop.var);
        c->u.loop.var->loop = c;
        c->u.loop.body = clone_stmt(a, s, st->u.loop.body);
        break;
    case S_BLOCK: {
        int mark = s->n;
        c->u.block = clone_block(a, s, st->u.block);
        s->n = mark;
        break;
    }
    case S_STORE:
        c->u.store.buf = subst_find_buf(s, st->u.store.buf);
        c->u.store.idx = clone_list(a, s, st->u.store.idx, st->u.store.n);
        c->u.store.value = clone_expr(a, s, st->u.store.value);
        break;
    case S_IF:
        c->u.branch.cond = clone_expr(a, s, st->u.branch.cond);
        c->u.branch.then = clone_stmt(a, s, st->u.branch.then);
        c->u.branch.orelse = clone_stmt(a, s, st->u.branch.orelse);
        break;
    case S_EVAL:
        c->u.eval = clone_expr(a, s, st->u.eval);
        break;
    case S_ALLOC:
        c->u.alloc = clone_buffer(a, s, st->u.alloc);
        break;
    case S_LET:
        c->u.let.value = clone_expr(a, s, st->u.let.value);
        c->u.let.handle_type = clone_expr(a, s, st->u.let.handle_type);
        c->u.let.var = fresh_var(a, s, st->u.let.var);
        break;
    case S_LOWERED:
        if (st->u.low.k == LOW_IDS) {   /* the variables it defines are fresh, as a let's */
            const Expr *t = st->u.low.args[1];
            c->u.low.args[0] = clone_expr(a, s, st->u.low.args[0]);
            c->u.low.args[1] = clone_expr(a, s, t);
            for (int i = 0; i < t->u.list.n; i++)
                c->u.low.args[1]->u.list.items[i]->u.var = fresh_var(a, s, t->u.list.items[i]->u.var);
            break;
        }
        for (int i = 0; i < st->u.low.nargs; i++)
            c->u.low.args[i] = clone_expr(a, s, st->u.low.args[i]);
        c->u.low.body = clone_stmt(a, s, st->u.low.body);
        break;
    }
    return c;
}

Func *clone_prim(Arena *a, const Func *f, Sym *name)
{
    Subst s = { 0 };
    Func *c = arena_alloc(a, sizeof *c);
    *c = *f;
    c->name = name;
    c->pparams = arena_array(a, (size_t)f->npparams + 1, sizeof *c->pparams);
    for (int i = 0; i < f->npparams; i++) {
        c->pparams[i] = f->pparams[i];
        if (f->pparams[i].var)
            c->pparams[i].var = fresh_var(a, &s, f->pparams[i].var);
    }
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf)
            c->pparams[i].buf = clone_buffer(a, &s, f->pparams[i].buf);
    c->attrs = clone_expr(a, &s, f->attrs);
    c->body = clone_stmt(a, &s, f->body);
    return c;
}
