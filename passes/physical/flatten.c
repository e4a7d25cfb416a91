/* flatten (seed 001): every buffer of a PrimFunc becomes physical. The axes
 * between a buffer's axis separators fuse row-major into one (or by its
 * strides, when it has strides=), so a buffer
 * without separators becomes 1-d and one with k becomes (k+1)-d, its
 * separators renumbered 1..k (flattening again changes nothing). Accesses
 * become the linear index, simplified by the index-map algebra over the
 * enclosing loops and block iterators; regions become [flat(min),
 * flat(max) + 1]. Allocations change shape in place; a parameter keeps its
 * logical signature (Relax calls it unchanged) and the body reaches it
 * through a view, A_1 = T.Buffer((n,), dtype, data=A.data). */
#include <stdio.h>
#include <string.h>

#include "../../ir/indexmap.h"
#include "../graph.h"
#include "../pass.h"
#include "physical.h"

typedef struct Flat {
    Module *m;
    Arena *scratch;
    PtrMap to;            /* buffer -> 1 + index in bufs of the buffer that replaces it in accesses */
    Buffer **from, **into;
    int n, cap;
    Scope sc;
    int changed;
    const Buffer *bad;    /* a buffer flatten cannot lay out (a pitched image that does not fit) */
    char why[160];        /* why, for a pitched image */
} Flat;

/* The linear element e + sum idx[d] * st[d] of a strided buffer. */
static Expr *strided_sum(Arena *a, Expr *e, Expr *const *st, Expr *const *idx, int n)
{
    for (int d = 0; d < n; d++)
        e = ix_add(a, e, ix_mul(a, idx[d], st[d]));
    return e;
}

/* A strided buffer with axis separators is a pitched image: the stride of
 * the last axis of each group but the last is that group's pitch P, the
 * elements one step of it skips. Each group becomes one physical axis,
 * indexed by its strided sum in units of its pitch (the last group in
 * elements), so that the physical axes, row-major, give the same element:
 * group g of k + 1 spans P[g - 1] / P[g] (the last, P[k - 1]; the first,
 * what its strides reach). The offset splits over the pitches. Everything
 * must be constant, the strides of a group multiples of its pitch, and each
 * group must fit in the one before. Returns 0, or -1 with the reason in why. */
typedef struct Pitch {
    int64_t st[IM_MAX_RANK + 1];   /* the strides, in units of their group's pitch */
    int64_t off[IM_MAX_RANK + 1];  /* each group's share of the offset */
    int64_t ext[IM_MAX_RANK + 1];  /* each group's physical extent */
} Pitch;

static int pitched(Arena *a, const Buffer *b, Pitch *p, char *why, size_t cap)
{
    Expr **st, *off;
    int64_t v[IM_MAX_RANK + 1], shape[IM_MAX_RANK + 1], pitch[IM_MAX_RANK + 1], eoff;
    if (b->ndim > IM_MAX_RANK || buffer_strides(a, b, &st, &off) != 1 || expr_const_int(off, &eoff))
        return snprintf(why, cap, "its strides and offset are not constants"), -1;
    for (int d = 0; d < b->ndim; d++)
        if (expr_const_int(st[d], &v[d]) || v[d] < 1 || expr_const_int(b->shape[d], &shape[d]) || shape[d] < 1 ||
            v[d] > (INT64_C(1) << 40) || shape[d] > (INT64_C(1) << 40))
            return snprintf(why, cap, "its strides, offset and extents are not positive constants"), -1;
    int k = b->nsep, lo = 0;
    for (int g = 0; g <= k; g++) {
        int hi = g < k ? b->axis_sep[g] : b->ndim;
        pitch[g] = g < k ? v[hi - 1] : 1;
        for (int d = lo; d < hi; d++) {
            if (v[d] % pitch[g])
                return snprintf(why, cap, "stride %d (%lld) is not a multiple of its group's pitch %lld", d,
                                (long long)v[d], (long long)pitch[g]), -1;
            p->st[d] = v[d] / pitch[g];
        }
        lo = hi;
    }
    int64_t rem = eoff;
    lo = 0;
    for (int g = 0; g <= k; g++) {
        int hi = g < k ? b->axis_sep[g] : b->ndim;
        p->off[g] = rem / pitch[g];
        rem %= pitch[g];
        int64_t last = p->off[g];
        for (int d = lo; d < hi; d++)
            last += (shape[d] - 1) * p->st[d];
        p->ext[g] = g == 0 ? last + 1 : pitch[g - 1] / pitch[g];
        if (g > 0 && (pitch[g - 1] % pitch[g] || last >= p->ext[g]))
            return snprintf(why, cap, "its axes %d..%d span %lld elements, more than the pitch %lld of the axes "
                            "before them", lo, hi - 1, (long long)((last + 1) * pitch[g]), (long long)pitch[g - 1]), -1;
        lo = hi;
    }
    return 0;
}

/* The extents of the groups of b's axes between its separators, as
 * expressions: k + 1 of them for k separators, [1] for rank 0. */
static int flat_shape(Arena *a, const Buffer *b, Expr **out)
{
    int g = 0, lo = 0;
    Loc loc = b->loc;
    Expr **st, *off;
    Pitch p;
    char why[160];
    if (b->nsep && buffer_strides(a, b, &st, &off) == 1) {
        if (pitched(a, b, &p, why, sizeof why)) {
            out[0] = expr_int(a, 1, DT_VOID, loc);   /* flat_buffer reports it */
            return 1;
        }
        for (int q = 0; q <= b->nsep; q++)
            out[q] = expr_int(a, p.ext[q], DT_VOID, loc);
        return b->nsep + 1;
    }
    if (buffer_strides(a, b, &st, &off) == 1) {
        /* what the strides reach: off + sum (extent - 1) * stride + 1, as
         * off + sum extent * stride + k with the constants gathered in k */
        int64_t k = 1, x, y;
        Expr *e = off;
        for (int d = 0; d < b->ndim; d++) {
            int64_t t, u;
            if (expr_const_int(b->shape[d], &x) == 0 && expr_const_int(st[d], &y) == 0 &&
                !__builtin_mul_overflow(x - 1, y, &t) && !__builtin_add_overflow(k, t, &u)) {
                k = u;
                continue;
            }
            e = ix_add(a, e, ix_mul(a, b->shape[d], st[d]));
            if (expr_const_int(st[d], &y) == 0 && y > -(INT64_C(1) << 40) && y < (INT64_C(1) << 40)) {
                k -= y;
            } else {
                Expr *sub = expr_new(a, E_BIN, loc);
                sub->u.bin.op = B_SUB;
                sub->u.bin.a = e;
                sub->u.bin.b = st[d];
                e = sub;
            }
        }
        out[0] = ix_add(a, e, expr_int(a, k, DT_VOID, loc));
        return 1;
    }
    if (b->ndim == 0) {
        out[0] = expr_int(a, 1, DT_VOID, loc);
        return 1;
    }
    for (int s = 0; s <= b->nsep; s++) {
        int hi = s < b->nsep ? b->axis_sep[s] : b->ndim;
        Expr *e = NULL;
        for (int d = lo; d < hi; d++)
            e = e ? ix_mul(a, e, b->shape[d]) : b->shape[d];
        out[g++] = e;
        lo = hi;
    }
    return g;
}

/* Whether b is physical already: one axis per group, rank at least 1. */
static int is_physical(Arena *a, const Buffer *b)
{
    Expr **st, *off;
    return b->ndim >= 1 && b->ndim == b->nsep + 1 && buffer_strides(a, b, &st, &off) == 0;
}

static void renumber_separators(Arena *a, Buffer *b, int rank)
{
    b->nsep = rank - 1;
    b->axis_sep = arena_array(a, (size_t)rank, sizeof(int));
    for (int i = 0; i < b->nsep; i++)
        b->axis_sep[i] = i + 1;
}

/* The flat indices of idx into logical buffer b (its group extents flat). */
static Expr **flat_index(Flat *F, const Buffer *b, Expr *const *idx, int *n)
{
    Arena *a = &F->m->arena;
    Expr **out = arena_array(a, (size_t)b->nsep + 2, sizeof *out);
    Loc loc = b->loc;
    Expr **st, *off;
    Pitch p;
    char why[160];
    if (b->nsep && buffer_strides(a, b, &st, &off) == 1 && pitched(a, b, &p, why, sizeof why) == 0) {
        int lo = 0;
        for (int g = 0; g <= b->nsep; g++) {
            int hi = g < b->nsep ? b->axis_sep[g] : b->ndim;
            Expr *e = expr_int(a, p.off[g], DT_VOID, loc);
            for (int d = lo; d < hi; d++)
                e = ix_add(a, e, ix_mul(a, idx[d], expr_int(a, p.st[d], DT_VOID, loc)));
            out[g] = scope_simplify(&F->sc, a, F->scratch, e);
            lo = hi;
        }
        *n = b->nsep + 1;
        return out;
    }
    if (buffer_strides(a, b, &st, &off) == 1) {
        out[0] = scope_simplify(&F->sc, a, F->scratch, strided_sum(a, off, st, idx, b->ndim));
        *n = 1;
        return out;
    }
    if (b->ndim == 0) {
        out[0] = expr_int(a, 0, DT_VOID, loc);
        *n = 1;
        return out;
    }
    int g = 0, lo = 0;
    for (int s = 0; s <= b->nsep; s++) {
        int hi = s < b->nsep ? b->axis_sep[s] : b->ndim;
        Expr *e = NULL;
        for (int d = lo; d < hi; d++)
            e = e ? ix_add(a, ix_mul(a, e, b->shape[d]), idx[d]) : idx[d];
        out[g++] = scope_simplify(&F->sc, a, F->scratch, e);
        lo = hi;
    }
    *n = g;
    return out;
}

static Buffer *target(Flat *F, const Buffer *b)
{
    int i = ptrmap_get(&F->to, b, 0) - 1;
    return i >= 0 ? F->into[i] : NULL;
}

static void expr_flat(Flat *F, Expr *e);

static void access_flat(Flat *F, Buffer **buf, Expr ***idx, int *n)
{
    for (int k = 0; k < *n; k++)
        expr_flat(F, (*idx)[k]);
    Buffer *t = target(F, *buf);
    if (!t)
        return;
    *idx = flat_index(F, *buf, *idx, n);
    *buf = t;
}

static void expr_flat(Flat *F, Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD: access_flat(F, &e->u.load.buf, &e->u.load.idx, &e->u.load.n); break;
    case E_BIN: expr_flat(F, e->u.bin.a); expr_flat(F, e->u.bin.b); break;
    case E_UNARY: expr_flat(F, e->u.un.a); break;
    case E_CAST: expr_flat(F, e->u.cast.a); break;
    case E_CALL:
        for (int k = 0; k < e->u.call.nargs; k++)
            expr_flat(F, e->u.call.args[k]);
        break;
    default: break;
    }
}

/* A region's flat range per group: [flat(min), flat(max) + 1], a point
 * where the region is one element. */
static void region_flat(Flat *F, Region *r)
{
    Buffer *t = target(F, r->buf);
    if (!t)
        return;
    Arena *a = &F->m->arena;
    int n = r->n, point = 1;
    Expr **mn = arena_array(a, (size_t)n + 1, sizeof *mn), **mx = arena_array(a, (size_t)n + 1, sizeof *mx);
    for (int d = 0; d < n; d++) {
        Expr *x = r->idx[d];
        if (x->kind == E_SLICE) {
            mn[d] = x->u.slice.lo;
            mx[d] = ix_add(a, x->u.slice.hi, expr_int(a, -1, DT_VOID, x->loc));
            point = 0;
        } else {
            mn[d] = mx[d] = x;
        }
    }
    int g;
    Expr **lo = flat_index(F, r->buf, mn, &g);
    if (!point) {
        Expr **hi = flat_index(F, r->buf, mx, &g);
        for (int k = 0; k < g; k++) {
            Expr *end = scope_simplify(&F->sc, a, F->scratch, ix_add(a, hi[k], expr_int(a, 1, DT_VOID, r->loc)));
            if (expr_equal(end, ix_add(a, lo[k], expr_int(a, 1, DT_VOID, r->loc))))
                continue;   /* one element */
            Expr *s = expr_new(a, E_SLICE, r->loc);
            s->u.slice.lo = lo[k];
            s->u.slice.hi = end;
            lo[k] = s;
        }
    }
    r->idx = lo;
    r->n = g;
    r->buf = t;
}

static void stmt_flat(Flat *F, Stmt *s);

static void block_flat(Flat *F, Block *b)
{
    int mark = F->sc.n;
    for (int k = 0; k < b->niters; k++)
        scope_push(&F->sc, b->iters[k].var, b->iters[k].dom, NULL);
    for (int k = 0; k < b->nreads; k++)
        region_flat(F, &b->reads[k]);
    for (int k = 0; k < b->nwrites; k++)
        region_flat(F, &b->writes[k]);
    expr_flat(F, b->where);
    stmt_flat(F, b->init);
    stmt_flat(F, b->body);
    F->sc.n = mark;
}

/* The buffer that replaces allocation or view b: the same storage in its
 * flat shape. */
static Buffer *flat_buffer(Flat *F, const Buffer *b)
{
    Arena *a = &F->m->arena;
    Buffer *nb = arena_alloc(a, sizeof *nb);
    Expr **st, *off;
    int strided = buffer_strides(a, b, &st, &off);
    Pitch p;
    if ((strided == 1 && b->nsep && pitched(a, b, &p, F->why, sizeof F->why)) || strided < 0)
        F->bad = b;
    *nb = *b;
    buffer_drop_strides(a, nb);
    nb->shape = arena_array(a, (size_t)b->nsep + 2, sizeof *nb->shape);
    nb->ndim = flat_shape(a, b, nb->shape);
    for (int d = 0; d < nb->ndim; d++)
        nb->shape[d] = scope_simplify(&F->sc, a, F->scratch, nb->shape[d]);
    renumber_separators(a, nb, nb->ndim);
    return nb;
}

static void stmt_flat(Flat *F, Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int k = 0; k < s->u.seq.n; k++)
            stmt_flat(F, s->u.seq.items[k]);
        break;
    case S_LOWERED: break;
    case S_FOR: {
        int mark = F->sc.n;
        expr_flat(F, s->u.loop.min);
        expr_flat(F, s->u.loop.extent);
        scope_push(&F->sc, s->u.loop.var, s->u.loop.extent, s->u.loop.min);
        stmt_flat(F, s->u.loop.body);
        F->sc.n = mark;
        break;
    }
    case S_BLOCK: block_flat(F, s->u.block); break;
    case S_STORE:
        expr_flat(F, s->u.store.value);
        access_flat(F, &s->u.store.buf, &s->u.store.idx, &s->u.store.n);
        break;
    case S_IF:
        expr_flat(F, s->u.branch.cond);
        stmt_flat(F, s->u.branch.then);
        stmt_flat(F, s->u.branch.orelse);
        break;
    case S_EVAL: expr_flat(F, s->u.eval); break;
    case S_LET: expr_flat(F, s->u.let.value); break;
    case S_ALLOC: break;
    }
}

static void add_target(Flat *F, Buffer *from, Buffer *into)
{
    if (F->n == F->cap) {
        int cap = F->cap ? 2 * F->cap : 16;
        Buffer **f = arena_array(&F->m->arena, (size_t)cap, sizeof *f), **t = arena_array(&F->m->arena, (size_t)cap, sizeof *t);
        if (F->n) {
            memcpy(f, F->from, (size_t)F->n * sizeof *f);
            memcpy(t, F->into, (size_t)F->n * sizeof *t);
        }
        F->from = f;
        F->into = t;
        F->cap = cap;
    }
    F->from[F->n] = from;
    F->into[F->n++] = into;
    ptrmap_put(&F->to, from, F->n);
}

/* A view of parameter (or matched buffer) b in its flat shape. */
static Stmt *view_of(Flat *F, Buffer *b, PtrMap *names)
{
    Arena *a = &F->m->arena;
    char base[160];
    snprintf(base, sizeof base, "%.120s_1", b->name->str);
    Buffer *v = arena_zalloc(a, sizeof *v);
    v->name = fresh_name(&F->m->names, names, base);
    v->loc = b->loc;
    v->kind = BUF_ALIAS;
    v->dtype = b->dtype;
    v->scope = b->scope;
    v->base = b;
    v->axis_sep = b->axis_sep;
    v->nsep = b->nsep;
    v->shape = b->shape;
    v->ndim = b->ndim;
    v->extra_keys = b->extra_keys;   /* its strides= and elem_offset= decide the flat index */
    v->extra_vals = b->extra_vals;
    v->nextra = b->nextra;
    Buffer *lv = v;
    v = flat_buffer(F, v);
    if (F->bad == lv)
        F->bad = b;   /* the error names the parameter */
    Stmt *s = stmt_new(a, S_ALLOC, b->loc);
    s->u.alloc = v;
    add_target(F, b, v);
    return s;
}

/* Allocations and views change shape; the buffers a parameter or a match
 * stands for get a view, placed first in the body (after the match). */
static void plan(Flat *F, Stmt **slot, PtrMap *used, PtrMap *names)
{
    Stmt *s = *slot;
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ: {
        Stmt **items = arena_array(&F->m->arena, (size_t)s->u.seq.n * 2 + 1, sizeof *items);
        int n = 0;
        for (int k = 0; k < s->u.seq.n; k++) {
            Stmt *it = s->u.seq.items[k];
            plan(F, &it, used, names);
            items[n++] = it;
            if (it->kind == S_ALLOC && it->u.alloc->kind == BUF_MATCH && !is_physical(&F->m->arena, it->u.alloc) &&
                ptrmap_get(used, it->u.alloc, 0))
                items[n++] = view_of(F, it->u.alloc, names);
        }
        s->u.seq.items = items;
        s->u.seq.n = n;
        break;
    }
    case S_FOR: plan(F, &s->u.loop.body, used, names); break;
    case S_BLOCK:
        plan(F, &s->u.block->init, used, names);
        plan(F, &s->u.block->body, used, names);
        break;
    case S_IF:
        plan(F, &s->u.branch.then, used, names);
        plan(F, &s->u.branch.orelse, used, names);
        break;
    case S_ALLOC: {
        Buffer *b = s->u.alloc;
        if (b->kind != BUF_MATCH && !is_physical(&F->m->arena, b)) {
            Buffer *nb = flat_buffer(F, b);
            if (b->base)
                nb->base = target(F, b->base) ? target(F, b->base) : b->base;
            add_target(F, b, nb);
            s->u.alloc = nb;
        }
        break;
    }
    default: break;
    }
}

int pass_flatten(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    const char *only = NULL;
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i].key, "func") == 0)
            only = opts[i].val;
    if (only && !module_find(m, intern_cstr(&m->names, only))) {
        diag_error(ctx->src, (Loc){ 0, 0 }, "flatten: no function named '%s'", only);
        return -1;
    }
    Arena scratch = { 0 };
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        if (f->kind != F_PRIM || !f->body || (only && strcmp(f->name->str, only) != 0))
            continue;
        if (tir_unhandled(f)) {
            /* lowered TIR is left as it is, and said so when it was asked for */
            if (only)
                return diag_error(ctx->src, f->loc, "flatten: %s holds %s, which flatten does not rewrite",
                                  f->name->str, tir_unhandled(f));
            continue;
        }
        Flat F = { .m = m, .scratch = &scratch };
        PtrMap used = { 0 }, names = { 0 };
        prim_names(f, &names);
        prim_used_buffers(f->body, &used);
        Stmt **views = arena_array(&m->arena, (size_t)f->npparams + 1, sizeof *views);
        int nviews = 0;
        for (int p = 0; p < f->npparams; p++) {
            Buffer *b = f->pparams[p].buf;
            if (b && !is_physical(&m->arena, b) && ptrmap_get(&used, b, 0))
                views[nviews++] = view_of(&F, b, &names);
        }
        plan(&F, &f->body, &used, &names);
        if (F.bad) {
            Expr **st, *off;
            if (buffer_strides(&m->arena, F.bad, &st, &off) < 0)
                diag_error(ctx->src, F.bad->loc, "flatten: the strides of %s are not a list of %d extents, one per "
                           "dimension", F.bad->name->str, F.bad->ndim);
            else
                diag_error(ctx->src, F.bad->loc, "flatten: %s has strides and axis separators, so each group of axes "
                           "is one physical axis with the stride of its last axis as its pitch, but %s",
                           F.bad->name->str, F.why);
            ptrmap_free(&F.to);
            ptrmap_free(&used);
            ptrmap_free(&names);
            scope_free(&F.sc);
            arena_free(&scratch);
            return -1;
        }
        stmt_flat(&F, f->body);
        if (nviews) {
            Stmt *seq = stmt_new(&m->arena, S_SEQ, f->body->loc);
            seq->u.seq.items = arena_array(&m->arena, (size_t)nviews + 1, sizeof(Stmt *));
            memcpy(seq->u.seq.items, views, (size_t)nviews * sizeof *views);
            seq->u.seq.items[nviews] = f->body;
            seq->u.seq.n = nviews + 1;
            f->body = seq;
        }
        ptrmap_free(&F.to);
        ptrmap_free(&used);
        ptrmap_free(&names);
        scope_free(&F.sc);
    }
    arena_free(&scratch);
    return 0;
}
