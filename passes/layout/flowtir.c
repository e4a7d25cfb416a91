/* Flowing a rewrite through a PrimFunc (flowtir.h). The function is copied,
 * then read as a sequence of loop nests, each holding one block that stores
 * to one buffer. Starting from the result buffer, each buffer given a map has
 * its writer block re-iterated over the new layout (old spatial iterators
 * become the inverse map of the new ones), and the writer's reads give the
 * maps of the buffers it reads: an index that is a spatial iterator follows
 * the result dimension it names, a constant 0 on an extent-1 dimension is a
 * broadcast, and an index of reduction iterators only is carried as it is.
 * Every access to a mapped buffer is then rewritten and simplified. Several
 * results may carry maps (a split's parts); a result with none is dropped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../interp/tensor.h"
#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../graph.h"
#include "flowtir.h"
#include "../../ir/oom.h"

enum { MAXB = 32, MAXN = 64, MAXW = 4 };

typedef struct Nest {
    Stmt **slot;          /* where the nest's outermost statement sits */
    Block *blk;
    Buffer *out;          /* the buffer its block stores to */
    int wit[IM_MAX_RANK]; /* the writer's iterator per dimension (writer_shape), once planned */
} Nest;

typedef struct Plan {
    Module *m;
    Arena *a;
    Func *f;
    Nest nest[MAXN];
    int nnest;
    Buffer *buf[MAXB];
    Expr *map[MAXB];
    IndexMap *im[MAXB];
    ImKind kind[MAXB];
    int writer[MAXB];     /* the first writer's nest index, or -1 */
    int writers[MAXB][MAXW];   /* every nest that writes the buffer, in order (the sum, then the division in place) */
    int nwriters[MAXB];
    int nb;
    char *why;
    Arena *scratch;       /* the index-map algebra's working memory, released at the end */
} Plan;

#define FAIL(P, ...) fail_at((P)->why, snprintf((P)->why, 320, __VA_ARGS__))

static int fail_at(char *why, int len)
{
    (void)why;
    (void)len;
    return -1;
}

static Var *tir_var(Plan *P, const char *name)
{
    Loc none = { 0, 0 };
    Var *v = var_new(P->a, intern_cstr(&P->m->names, name), VAR_TIR, none);
    v->dtype = DT_INT32;
    return v;
}

static Expr *var_ref_tir(Arena *a, Var *v)
{
    Loc none = { 0, 0 };
    Expr *e = expr_new(a, E_VAR, none);
    e->u.var = v;
    return e;
}

static int find_buf(const Plan *P, const Buffer *b)
{
    for (int i = 0; i < P->nb; i++)
        if (P->buf[i] == b)
            return i;
    return -1;
}

static int buf_shape(const Buffer *b, int64_t *shape)
{
    for (int i = 0; i < b->ndim; i++)
        if (expr_const_int(b->shape[i], &shape[i]) || shape[i] < 1)
            return -1;
    return 0;
}

/* ---- reading the function ---- */

static int add_nest(Plan *P, Stmt **slot)
{
    Stmt *s = stmt_single(*slot);
    if (s->kind == S_ALLOC && s->u.alloc->kind == BUF_ALIAS)
        return FAIL(P, "%s reaches buffer %s through a view (it is flattened)", P->f->name->str,
                    s->u.alloc->base->name->str);
    if (s->kind == S_ALLOC)
        return 0;
    while (s->kind == S_FOR)
        s = stmt_single(s->u.loop.body);
    if (s->kind != S_BLOCK)
        return FAIL(P, "%s is not a sequence of loop nests each holding one block", P->f->name->str);
    if (P->nnest == MAXN)
        return FAIL(P, "%s has more than %d blocks", P->f->name->str, MAXN);
    Block *b = s->u.block;
    Stmt *body = stmt_single(b->body);
    if (!body || body->kind != S_STORE)
        return FAIL(P, "block %s does not store one value", b->name->str);
    Stmt *init = stmt_single(b->init);
    if (init && (init->kind != S_STORE || init->u.store.buf != body->u.store.buf))
        return FAIL(P, "block %s initializes another buffer than it writes", b->name->str);
    Nest *n = &P->nest[P->nnest++];
    n->slot = slot;
    n->blk = b;
    n->out = body->u.store.buf;
    return 0;
}

static int read_nests(Plan *P)
{
    Stmt *body = P->f->body;
    if (body && body->kind == S_SEQ) {
        for (int i = 0; i < body->u.seq.n; i++)
            if (add_nest(P, &body->u.seq.items[i]))
                return -1;
        return 0;
    }
    return body ? add_nest(P, &P->f->body) : 0;
}

/* For a block to be re-iterated: iterators spatial or reduce over constant
 * domains, and a store whose indices are its spatial iterators, each once,
 * or 0 on a dimension of extent 1 (a reduction that keeps its dimensions).
 * wit[p] is the iterator at write dimension p, or -2 for such a unit. */
static int writer_shape(Plan *P, const Nest *n, int *wit)
{
    const Block *b = n->blk;
    Stmt *st = stmt_single(b->body);
    int nspatial = 0;
    for (int i = 0; i < b->niters; i++) {
        int64_t d;
        if (b->iters[i].kind == 'O' || expr_const_int(b->iters[i].dom, &d))
            return FAIL(P, "block %s has an opaque iterator or a symbolic domain", b->name->str);
        nspatial += b->iters[i].kind == 'S';
    }
    int64_t oshape[IM_MAX_RANK], c;
    if (st->u.store.n > IM_MAX_RANK || buf_shape(n->out, oshape))
        return FAIL(P, "buffer %s has a symbolic shape", n->out->name->str);
    for (int p = 0; p < st->u.store.n; p++) {
        const Expr *e = st->u.store.idx[p];
        wit[p] = -1;
        if (oshape[p] == 1 && expr_const_int(e, &c) == 0 && c == 0) {
            wit[p] = -2;
            nspatial++;
            continue;
        }
        for (int i = 0; e->kind == E_VAR && i < b->niters; i++)
            if (b->iters[i].var == e->u.var && b->iters[i].kind == 'S')
                wit[p] = i;
        for (int q = 0; q < p && wit[p] >= 0; q++)
            if (wit[q] == wit[p])
                wit[p] = -1;
        if (wit[p] < 0)
            return FAIL(P, "block %s writes %s with indices that are not its spatial iterators", b->name->str,
                        n->out->name->str);
    }
    if (st->u.store.n != nspatial)
        return FAIL(P, "block %s writes %s with indices that are not its spatial iterators", b->name->str,
                    n->out->name->str);
    return 0;
}

static int iter_of(const Block *b, const Var *v)
{
    for (int i = 0; i < b->niters; i++)
        if (b->iters[i].var == v)
            return i;
    return -1;
}

/* Whether e mentions only reduction iterators of b (and constants). */
static int reduce_only(const Block *b, const Expr *e)
{
    switch (e->kind) {
    case E_INT:
        return 1;
    case E_VAR: {
        int i = iter_of(b, e->u.var);
        return i >= 0 && b->iters[i].kind == 'R';
    }
    case E_BIN:
        return reduce_only(b, e->u.bin.a) && reduce_only(b, e->u.bin.b);
    case E_UNARY:
        return reduce_only(b, e->u.un.a);
    default:
        return 0;
    }
}

/* ---- maps ---- */

static IndexMap *read_map(Plan *P, Expr *map, const Buffer *b, ImKind *kind)
{
    int64_t shape[IM_MAX_RANK];
    ImError err;
    if (b->ndim > IM_MAX_RANK || buf_shape(b, shape))
        return FAIL(P, "buffer %s has a symbolic shape", b->name->str), NULL;
    IndexMap *im = im_from_expr(P->scratch, map, shape, &err);
    if (!im)
        return FAIL(P, "the map for %s: %s", b->name->str, err.msg), NULL;
    *kind = im_classify(im, NULL, NULL);
    if (*kind == IM_NOT_INJECTIVE || *kind == IM_UNKNOWN)
        return FAIL(P, "the map for %s is not known to be injective", b->name->str), NULL;
    return im;
}

/* Gives b the map; a second, different map for the same buffer is a conflict. */
static int plan_add(Plan *P, Buffer *b, Expr *map)
{
    /* axis separators fix how the buffer's axes fall into physical memory;
     * a new logical shape would need new separators no one has chosen */
    if (b->nsep)
        return FAIL(P, "%s has axis separators, which fix its physical layout", b->name->str);
    ImKind kind;
    IndexMap *im = read_map(P, map, b, &kind);
    if (!im)
        return -1;
    int i = find_buf(P, b);
    if (i >= 0)
        return im_equal(P->im[i], im) ? 0 : FAIL(P, "%s would need two different layouts", b->name->str);
    if (P->nb == MAXB)
        return FAIL(P, "more than %d buffers change layout", MAXB);
    P->buf[P->nb] = b;
    P->map[P->nb] = map;
    P->im[P->nb] = im;
    P->kind[P->nb] = kind;
    P->writer[P->nb] = -1;
    P->nwriters[P->nb] = 0;
    P->nb++;
    return 0;
}

static int mentions(const ImSum *s, int var)
{
    for (int i = 0; i < s->n; i++)
        if (s->t[i].var == var || (s->t[i].var < 0 && mentions(s->t[i].arg, var)))
            return 1;
    return 0;
}

static int uses_any(const Expr *e, Var *const *v, int n)
{
    switch (e->kind) {
    case E_VAR:
        for (int i = 0; i < n; i++)
            if (v[i] == e->u.var)
                return 1;
        return 0;
    case E_BIN:
        return uses_any(e->u.bin.a, v, n) || uses_any(e->u.bin.b, v, n);
    case E_UNARY:
        return uses_any(e->u.un.a, v, n);
    default:
        return 0;
    }
}

/* The write dimension p when e is an expression of the one spatial iterator
 * wit[p] (and constants) and M only moves dimension p (one output is its
 * parameter, no other output mentions it); else -1. */
static int one_iter(const Block *b, const Expr *e, int *it)
{
    switch (e->kind) {
    case E_INT:
        return 1;
    case E_VAR: {
        int i = iter_of(b, e->u.var);
        if (i < 0 || b->iters[i].kind != 'S' || (*it >= 0 && *it != i))
            return 0;
        *it = i;
        return 1;
    }
    case E_BIN:
        return one_iter(b, e->u.bin.a, it) && one_iter(b, e->u.bin.b, it);
    case E_UNARY:
        return one_iter(b, e->u.un.a, it);
    case E_CAST:
        return one_iter(b, e->u.cast.a, it);
    case E_LOAD:
        /* a value read elsewhere (reverse_sequence's length at the batch
         * index): its own indices are a read the plan derives, and the
         * rewritten block reads it where the old one did */
        return 1;
    case E_CALL:
        if (e->u.call.callee || (strcmp(e->u.call.op->str, "T.min") && strcmp(e->u.call.op->str, "T.max") &&
                                 strcmp(e->u.call.op->str, "T.if_then_else")))
            return 0;
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!one_iter(b, e->u.call.args[i], it))
                return 0;
        return 1;
    default:
        return 0;
    }
}

static int moved_dim(const Block *b, const int *wit, int wdim, const Expr *M, const Expr *e)
{
    int it = -1, p = -1;
    if (!one_iter(b, e, &it) || it < 0)
        return -1;
    for (int q = 0; q < wdim; q++)
        if (wit[q] == it)
            p = q;
    if (p < 0 || p >= M->u.map.nparams)
        return -1;
    int whole = 0;
    for (int q = 0; q < M->u.map.nout; q++) {
        const Expr *o = M->u.map.out[q];
        if (o->kind == E_VAR && o->u.var == M->u.map.params[p])
            whole++;
        else if (expr_mentions(o, M->u.map.params[p]))
            return -1;
    }
    return whole == 1 ? p : -1;
}

/* The write dimension of the spatial iterator in e = iterator + constant. */
static int offset_dim(const Block *b, const int *wit, int wdim, const Expr *e)
{
    int64_t c;
    if (e->kind != E_BIN || (e->u.bin.op != B_ADD && e->u.bin.op != B_SUB) || e->u.bin.a->kind != E_VAR ||
        expr_const_int(e->u.bin.b, &c))
        return -1;
    int it = iter_of(b, e->u.bin.a->u.var);
    for (int q = 0; it >= 0 && b->iters[it].kind == 'S' && q < wdim; q++)
        if (wit[q] == it)
            return q;
    return -1;
}

/* A legalized operator's T.func_attr lists the call's attributes (axis,
 * pad_width) in its old layout; the copy keeps only which operator it was. */
static void keep_op_only(Func *f)
{
    Expr *d = f->attrs;
    for (int i = 0; d && d->kind == E_DICT && i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i];
        if (k->kind == E_STR && k->u.str.len == 2 && memcmp(k->u.str.s, "op", 2) == 0) {
            d->u.dict.keys[0] = d->u.dict.keys[i];
            d->u.dict.vals[0] = d->u.dict.vals[i];
            d->u.dict.n = 1;
            return;
        }
    }
}

/* M with its one constant-0 output made its parameter p, when p appears in
 * no output (a unit dimension a broadcast read gave 0), else NULL. */
static const Expr *unit_to_param(Plan *P, const Expr *M, int p)
{
    int zero = -1;
    int64_t c;
    if (p >= M->u.map.nparams)
        return NULL;
    for (int q = 0; q < M->u.map.nout; q++) {
        if (expr_mentions(M->u.map.out[q], M->u.map.params[p]))
            return NULL;
        if (expr_const_int(M->u.map.out[q], &c) == 0 && c == 0) {
            if (zero >= 0)
                return NULL;
            zero = q;
        }
    }
    if (zero < 0)
        return NULL;
    Expr *n = arena_alloc(P->a, sizeof *n);
    *n = *M;
    n->u.map.out = arena_array(P->a, (size_t)M->u.map.nout + 1, sizeof(Expr *));
    memcpy(n->u.map.out, M->u.map.out, (size_t)M->u.map.nout * sizeof(Expr *));
    Expr *v = expr_new(P->a, E_VAR, M->u.map.out[zero]->loc);
    v->u.var = M->u.map.params[p];
    n->u.map.out[zero] = v;
    return n;
}


/* The map of a buffer read as R[idx] in block b, whose store's dimension p is
 * iterator wit[p] and carries map M. *out is NULL when R keeps its layout. */
static int derive(Plan *P, const Block *b, const int *wit, const Buffer *W, const Expr *M, int bij, const Expr *load,
                  Expr **out)
{
    const Buffer *R = load->u.load.buf;
    int r = load->u.load.n, link[IM_MAX_RANK], kind[IM_MAX_RANK];
    const Expr *unit = NULL;
    int64_t rshape[IM_MAX_RANK], wshape[IM_MAX_RANK];
    *out = NULL;
    if (r > IM_MAX_RANK || buf_shape(R, rshape) || buf_shape(W, wshape))
        return FAIL(P, "buffer %s has a symbolic shape", R->name->str);
    for (int j = 0; j < r; j++) {
        const Expr *e = load->u.load.idx[j];
        int64_t c;
        link[j] = -1;
        if (e->kind == E_VAR) {
            int it = iter_of(b, e->u.var);
            for (int p = 0; it >= 0 && p < W->ndim; p++)
                if (wit[p] == it)
                    link[j] = p;
        }
        if (link[j] >= 0) {
            for (int k = 0; k < j; k++)
                if (link[k] == link[j])
                    return FAIL(P, "block %s reads %s on a diagonal", b->name->str, R->name->str);
            if (rshape[j] != wshape[link[j]] && !bij)
                return FAIL(P, "block %s reads %s dimension %d (extent %lld) along %s dimension %d (extent %lld)",
                            b->name->str, R->name->str, j, (long long)rshape[j], W->name->str, link[j],
                            (long long)wshape[link[j]]);
            kind[j] = 'L';
        } else if (expr_const_int(e, &c) == 0 && c == 0 && rshape[j] == 1) {
            kind[j] = 'U';
        } else if (e->kind == E_VAR && reduce_only(b, e) && r == W->ndim && wit[j] == -2 &&
                   (whole_dim(M, j) >= 0 || (unit = unit_to_param(P, M, j)) != NULL)) {
            if (unit)
                M = unit;
            /* a reduction that keeps its dimensions: the reduced dimension
             * goes where the map puts the unit it is written to (NHWC's max
             * over H with keepdims reads x in NHWC) */
            link[j] = j;
            kind[j] = 'L';
        } else if (reduce_only(b, e)) {
            kind[j] = 'R';
        } else if ((link[j] = moved_dim(b, wit, W->ndim, M, e)) >= 0) {
            /* i * 2 + 1, i - 1 (strided_slice, pad): the dimension only moves, so it keeps its index */
            for (int k = 0; k < j; k++)
                if (link[k] == link[j])
                    return FAIL(P, "block %s reads %s on a diagonal", b->name->str, R->name->str);
            kind[j] = 'L';
        } else if (bij && (link[j] = offset_dim(b, wit, W->ndim, e)) >= 0) {
            /* i + 4 (split's second part): under a one-to-one map the read
             * goes through the same map over R's shape */
            for (int k = 0; k < j; k++)
                if (link[k] == link[j])
                    return FAIL(P, "block %s reads %s on a diagonal", b->name->str, R->name->str);
            kind[j] = 'L';
        } else {
            return FAIL(P, "block %s reads %s with index %d not a plain iterator, a broadcast or a reduction",
                        b->name->str, R->name->str, j);
        }
    }
    /* the linked outputs of M, over R's dimensions */
    Var **params = arena_array(P->a, (size_t)r + 1, sizeof *params);
    char name[64];
    Subst S = { 0 };
    Loc none = { 0, 0 };
    for (int j = 0; j < r; j++) {
        if (kind[j] == 'L')
            snprintf(name, sizeof name, "%s", M->u.map.params[link[j]]->name->str);
        else
            snprintf(name, sizeof name, "d%d", j);
        for (int p = 0; p < M->u.map.nparams; p++)
            if (kind[j] != 'L' && strcmp(M->u.map.params[p]->name->str, name) == 0)
                snprintf(name, sizeof name, "d%d_", j);
        params[j] = tir_var(P, name);
    }
    for (int p = 0; p < M->u.map.nparams; p++) {
        Expr *to = expr_int(P->a, 0, DT_VOID, none);
        for (int j = 0; j < r; j++)
            if (link[j] == p)
                to = expr_new(P->a, E_VAR, none), to->u.var = params[j];
        subst_var(P->a, &S, M->u.map.params[p], to);
    }
    Expr *tmp = expr_new(P->a, E_INDEXMAP, none);
    tmp->u.map.params = params;
    tmp->u.map.nparams = r;
    tmp->u.map.nout = M->u.map.nout;
    tmp->u.map.out = arena_array(P->a, (size_t)M->u.map.nout + 1, sizeof(Expr *));
    for (int q = 0; q < M->u.map.nout; q++)
        tmp->u.map.out[q] = clone_expr(P->a, &S, M->u.map.out[q]);
    ImError err;
    IndexMap *im = im_from_expr(P->scratch, tmp, rshape, &err);
    if (!im)
        return FAIL(P, "the map for %s: %s", R->name->str, err.msg);
    /* leading outputs that are always 0 come from dimensions R lacks (at
     * most as many as it lacks: a map of R's own may write a 0 first) */
    int first = 0;
    while (first < im->nout && first < M->u.map.nparams - r && im->out[first]->n == 0 && im->out[first]->k == 0 &&
           !uses_any(tmp->u.map.out[first], params, r))
        first++;
    int units = 0;
    for (int j = 0; j < r; j++)
        units += kind[j] == 'U';
    Expr **outs = arena_array(P->a, (size_t)(im->nout + r) + 1, sizeof *outs);
    int n = 0;
    int placed[IM_MAX_RANK] = { 0 };
    for (int j = 0; j < r; j++) {
        if (kind[j] != 'R')
            continue;
        /* before the first output that mentions the nearest linked dimension
         * after j (NCHW -> NHWC keeps H before W); failing that, after the
         * first output that mentions the nearest one before j (NCHW4c keeps
         * the 4c innermost) */
        int prev = -1, next = -1;
        for (int k = j - 1; k >= 0 && prev < 0; k--)
            if (kind[k] == 'L')
                prev = k;
        for (int k = j + 1; k < r && next < 0; k++)
            if (kind[k] == 'L')
                next = k;
        placed[j] = first - 1;
        for (int q = first; next >= 0 && q < im->nout; q++)
            if (mentions(im->out[q], next)) {
                placed[j] = q - 1;
                break;
            }
        for (int q = first; next < 0 && prev >= 0 && q < im->nout; q++)
            if (mentions(im->out[q], prev)) {
                placed[j] = q;
                break;
            }
    }
    for (int j = 0; j < r; j++)
        if (kind[j] == 'R' && placed[j] == first - 1)
            outs[n++] = var_ref_tir(P->a, params[j]);
    for (int q = first; q < im->nout; q++) {
        /* when R has no broadcast dimensions, an output that is always 0
         * comes from a dimension R lacks (batch_norm's (C,) under NCHW4c is
         * (C // 4, C % 4)); a (C, 1, 1) bias keeps its form for broadcasting */
        int lacks = 0, linked = 0;
        for (int p = 0; p < M->u.map.nparams; p++)
            if (expr_mentions(M->u.map.out[q], M->u.map.params[p])) {
                int l = 0;
                for (int j = 0; j < r; j++)
                    l |= link[j] == p;
                linked |= l;
                lacks |= !l;
            }
        if (units || !lacks || linked || im->out[q]->n || im->out[q]->k || uses_any(tmp->u.map.out[q], params, r))
            outs[n++] = tmp->u.map.out[q];   /* as the user wrote it, for reading */
        for (int j = 0; j < r; j++)
            if (kind[j] == 'R' && placed[j] == q)
                outs[n++] = var_ref_tir(P->a, params[j]);
    }
    Expr *map = expr_new(P->a, E_INDEXMAP, none);
    map->u.map.params = params;
    map->u.map.nparams = r;
    map->u.map.out = outs;
    map->u.map.nout = n;
    if (n == 0)
        return 0;
    IndexMap *fin = im_from_expr(P->scratch, map, rshape, &err);
    if (!fin)
        return FAIL(P, "the map for %s: %s", R->name->str, err.msg);
    if (im_is_identity(fin))
        return 0;
    *out = map;
    return 0;
}

/* ---- planning: which buffers change layout ---- */

typedef struct LoadList {
    const Expr *v[64];
    int n;
} LoadList;

static void loads_expr(const Expr *e, LoadList *L)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        if (L->n < 64)
            L->v[L->n++] = e;
        for (int i = 0; i < e->u.load.n; i++)
            loads_expr(e->u.load.idx[i], L);
        break;
    case E_BIN:
        loads_expr(e->u.bin.a, L);
        loads_expr(e->u.bin.b, L);
        break;
    case E_UNARY:
        loads_expr(e->u.un.a, L);
        break;
    case E_CAST:
        loads_expr(e->u.cast.a, L);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            loads_expr(e->u.call.args[i], L);
        break;
    default:
        break;
    }
}

static int block_loads(Plan *P, const Block *b, LoadList *L)
{
    L->n = 0;
    loads_expr(stmt_single(b->body)->u.store.value, L);
    if (b->init)
        loads_expr(stmt_single(b->init)->u.store.value, L);
    loads_expr(b->where, L);
    return L->n == 64 ? FAIL(P, "block %s reads more than 64 values", b->name->str) : 0;
}

/* Whether the spatial iterators of nest n's block run over the whole of
 * the buffer it writes (a later writer that wrote a part would, re-iterated
 * over the new layout, write the whole). */
static int writes_whole(const Nest *n, const int *wit)
{
    const Block *b = n->blk;
    int64_t shape[IM_MAX_RANK], d;
    if (buf_shape(n->out, shape))
        return 0;
    for (int p = 0; p < n->out->ndim; p++)
        if (wit[p] >= 0 && (expr_const_int(b->iters[wit[p]].dom, &d) || d != shape[p]))
            return 0;
    return 1;
}

/* Derives the maps of what writer w of buffer i reads. */
static int plan_reads(Plan *P, int i, int w)
{
    Buffer *B = P->buf[i];
    const Block *b = P->nest[w].blk;
    int *wit = P->nest[w].wit;
    LoadList L;
    if (block_loads(P, b, &L))
        return -1;
    const Stmt *st = stmt_single(b->body);
    for (int k = 0; k < L.n; k++) {
        const Expr *ld = L.v[k];
        if (ld->u.load.buf == B) {
            for (int d = 0; d < ld->u.load.n; d++)
                if (!expr_equal(ld->u.load.idx[d], st->u.store.idx[d]))
                    return FAIL(P, "block %s reads %s elsewhere than it writes", b->name->str, B->name->str);
            continue;
        }
        Expr *map;
        int j = find_buf(P, ld->u.load.buf);
        /* A read through any one-to-one map is a correct read: a buffer
         * that already has a bijective map keeps it when this block is
         * unpadded (the softmax's reductions read its input in the layout
         * its last block chose). */
        if (j >= 0 && P->kind[j] == IM_BIJECTIVE && P->kind[i] != IM_PADDED)
            continue;
        if (derive(P, b, wit, B, P->map[i], P->kind[i] == IM_BIJECTIVE, ld, &map))
            return -1;
        if (map && plan_add(P, ld->u.load.buf, map))
            return -1;
    }
    return 0;
}

/* Gives the writers of buffer i their place in the plan and derives their
 * reads. Blocks that write the buffer one after another (a mean's sum,
 * then its division in place) are each re-iterated over the new layout. */
static int plan_writer(Plan *P, int i)
{
    Buffer *B = P->buf[i];
    int nw = 0;
    for (int k = 0; k < P->nnest; k++)
        if (P->nest[k].out == B) {
            if (nw == MAXW)
                return FAIL(P, "%s is written by more than %d blocks", B->name->str, MAXW);
            P->writers[i][nw++] = k;
        }
    if (!nw)
        return 0;
    P->writer[i] = P->writers[i][0];
    P->nwriters[i] = nw;
    if (B->ndim > IM_MAX_RANK)
        return FAIL(P, "buffer %s has more than %d dimensions", B->name->str, IM_MAX_RANK);
    for (int k = 0; k < nw; k++) {
        Nest *n = &P->nest[P->writers[i][k]];
        if (writer_shape(P, n, n->wit))
            return -1;
        if (nw > 1 && !writes_whole(n, n->wit))
            return FAIL(P, "block %s writes a part of %s, which other blocks also write", n->blk->name->str,
                        B->name->str);
    }
    if (P->kind[i] == IM_PADDED) {
        ImCond *pred;
        int npred;
        ImError err;
        IndexMap *inv = im_inverse(P->scratch, P->im[i], &pred, &npred, &err);
        if (!inv)
            return FAIL(P, "the map for %s: %s", B->name->str, err.msg);
        IndexMap *round = im_compose(P->scratch, P->im[i], inv);
        if (!round || !im_is_identity(round))
            return FAIL(P, "the padding of %s does not lie outside the image of its map", B->name->str);
    }
    for (int k = 0; k < nw; k++)
        if (plan_reads(P, i, P->writers[i][k]))
            return -1;
    return 0;
}

/* ---- what the padding holds ---- */

typedef struct PadEval {
    Plan *P;
    const Buffer *self;
    double acc, q;
    int depth;
} PadEval;

static int pad_of(Plan *P, int i, double q, int depth, double *out);

/* Whether an element of dtype t holds the number q exactly (NaN in floats) */
static int holds(DType t, double q)
{
    if (dtype_is_float(t))
        return isnan(q) || (round_to(t, q) == q);
    if (t == DT_BOOL)
        return q == 0 || q == 1;
    return q == trunc(q);
}

static int peval(PadEval *c, const Expr *e, double *v)
{
    double a, b;
    switch (e->kind) {
    case E_FLOAT:
        *v = e->u.f.v;
        return 0;
    case E_INT:
        *v = (double)e->u.i.v;
        return 0;
    case E_BOOL:
        *v = e->u.b;
        return 0;
    case E_LOAD: {
        if (e->u.load.buf == c->self) {
            *v = c->acc;
            return 0;
        }
        int i = find_buf(c->P, e->u.load.buf);
        if (i < 0 || c->P->kind[i] != IM_PADDED)
            return -1;
        if (e->u.load.buf->kind == BUF_PARAM) {
            /* the input's padding holds q only if its dtype holds q: 1.5
             * padding a bool input would be True, read back as 1 */
            if (!holds(e->u.load.buf->dtype, c->q))
                return -1;
            *v = c->q;
            return 0;
        }
        return pad_of(c->P, i, c->q, c->depth + 1, v);
    }
    case E_CAST:
        if (peval(c, e->u.cast.a, &a))
            return -1;
        *v = dtype_is_float(e->u.cast.dtype) ? round_to(e->u.cast.dtype, a) : trunc(a);
        return 0;
    case E_UNARY:
        if (e->u.un.op == U_BITNOT || peval(c, e->u.un.a, &a))
            return -1;
        *v = e->u.un.op == U_NEG ? -a : !a;
        return 0;
    case E_BIN:
        if (peval(c, e->u.bin.a, &a) || peval(c, e->u.bin.b, &b))
            return -1;
        switch (e->u.bin.op) {
        case B_ADD: *v = a + b; break;
        case B_SUB: *v = a - b; break;
        case B_MUL: *v = a * b; break;
        case B_DIV: *v = a / b; break;
        case B_LT: *v = a < b; break;
        case B_LE: *v = a <= b; break;
        case B_GT: *v = a > b; break;
        case B_GE: *v = a >= b; break;
        case B_EQ: *v = a == b; break;
        case B_NE: *v = a != b; break;
        case B_AND: *v = a && b; break;
        case B_OR: *v = a || b; break;
        default: return -1;
        }
        if (dtype_is_float(tir_dtype(e)))
            *v = round_to(tir_dtype(e), *v);
        return 0;
    case E_CALL: {
        const char *op = e->u.call.op->str;
        int n = e->u.call.nargs;
        if (n == 3 && strcmp(op, "T.if_then_else") == 0) {
            if (peval(c, e->u.call.args[0], &a) == 0)
                return peval(c, e->u.call.args[a ? 1 : 2], v);
            /* a condition on the iterators (a pad's border): the padding
             * holds one value when both branches give it */
            if (peval(c, e->u.call.args[1], &a) || peval(c, e->u.call.args[2], &b) || a != b)
                return -1;
            *v = a;
            return 0;
        }
        if (n < 1 || n > 2 || peval(c, e->u.call.args[0], &a) || (n == 2 && peval(c, e->u.call.args[1], &b)))
            return -1;
        if (n == 2 && strcmp(op, "T.max") == 0)
            *v = a > b ? a : b;
        else if (n == 2 && strcmp(op, "T.min") == 0)
            *v = a < b ? a : b;
        else if (n == 1 && strcmp(op, "T.exp") == 0)
            *v = exp(a);
        else if (n == 1 && strcmp(op, "T.sqrt") == 0)
            *v = sqrt(a);
        else if (n == 1 && strcmp(op, "T.tanh") == 0)
            *v = tanh(a);
        else if (n == 1 && strcmp(op, "T.sigmoid") == 0)
            *v = 1 / (1 + exp(-a));
        else if (n == 1 && (strcmp(op, "T.fabs") == 0 || strcmp(op, "T.abs") == 0))
            *v = fabs(a);
        else
            return -1;
        DType dt = tir_dtype(e);
        if (dtype_is_float(dt))
            *v = round_to(dt, *v);
        return 0;
    }
    default:
        return -1;
    }
}

/* The value the padding of buffer i holds when every padded input holds q:
 * its writers in order, each reading what the one before left. */
static int pad_of(Plan *P, int i, double q, int depth, double *out)
{
    if (P->writer[i] < 0 || depth > MAXB)
        return -1;
    PadEval c = { P, P->buf[i], 0, q, depth };
    DType dt = P->buf[i]->dtype;
    for (int w = 0; w < P->nwriters[i]; w++) {
        const Block *b = P->nest[P->writers[i][w]].blk;
        int64_t steps = 1, d;
        for (int k = 0; k < b->niters; k++)
            if (b->iters[k].kind == 'R' && expr_const_int(b->iters[k].dom, &d) == 0)
                steps *= d;
        if (steps > (1 << 20) || b->where)
            return -1;
        if (b->init && peval(&c, stmt_single(b->init)->u.store.value, &c.acc))
            return -1;
        if (!b->init)
            steps = 1;
        for (int64_t s = 0; s < steps; s++) {
            if (peval(&c, stmt_single(b->body)->u.store.value, &c.acc))
                return -1;
            if (dtype_is_float(dt))
                c.acc = round_to(dt, c.acc);
        }
    }
    *out = c.acc;
    return 0;
}

/* ---- rewriting ---- */

typedef struct RW {
    Plan *P;
    Var **vars;           /* the enclosing block's iterators */
    int64_t *ext;
    int n;
} RW;

/* idx of buffer i, through its map, simplified over the block's iterators. */
static Expr **map_index(RW *w, int i, Expr *const *idx)
{
    Plan *P = w->P;
    const Expr *M = P->map[i];
    Subst S = { 0 };
    for (int p = 0; p < M->u.map.nparams; p++)
        subst_var(P->a, &S, M->u.map.params[p], idx[p]);
    Expr **out = arena_array(P->a, (size_t)M->u.map.nout + 1, sizeof *out);
    for (int q = 0; q < M->u.map.nout; q++)
        out[q] = clone_expr(P->a, &S, M->u.map.out[q]);
    if (w->n) {
        Loc none = { 0, 0 };
        Expr tmp = { .kind = E_INDEXMAP, .loc = none };
        tmp.u.map.params = w->vars;
        tmp.u.map.nparams = w->n;
        tmp.u.map.out = out;
        tmp.u.map.nout = M->u.map.nout;
        ImError err;
        IndexMap *im = im_from_expr(P->scratch, &tmp, w->ext, &err);
        for (int q = 0; im && q < M->u.map.nout; q++)
            out[q] = im_sum_to_expr(P->a, im->out[q], w->vars);
    }
    return out;
}

static void rw_stmt(RW *w, Stmt *s);

static void rw_expr(RW *w, Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD: {
        for (int k = 0; k < e->u.load.n; k++)
            rw_expr(w, e->u.load.idx[k]);
        int i = find_buf(w->P, e->u.load.buf);
        if (i >= 0) {
            e->u.load.idx = map_index(w, i, e->u.load.idx);
            e->u.load.n = w->P->map[i]->u.map.nout;
        }
        break;
    }
    case E_BIN:
        rw_expr(w, e->u.bin.a);
        rw_expr(w, e->u.bin.b);
        break;
    case E_UNARY:
        rw_expr(w, e->u.un.a);
        break;
    case E_CAST:
        rw_expr(w, e->u.cast.a);
        break;
    case E_CALL:
        for (int k = 0; k < e->u.call.nargs; k++)
            rw_expr(w, e->u.call.args[k]);
        break;
    default:
        break;
    }
}

static void rw_regions(RW *w, Region *r, int n, int *has)
{
    for (int k = 0; k < n; k++) {
        int i = find_buf(w->P, r[k].buf);
        if (i < 0)
            continue;
        for (int d = 0; d < r[k].n; d++)
            if (r[k].idx[d]->kind == E_SLICE)
                *has = 0;   /* a range through a map is not a range: let readers infer it */
        if (*has) {
            r[k].idx = map_index(w, i, r[k].idx);
            r[k].n = w->P->map[i]->u.map.nout;
        }
    }
}

static void rw_block(RW *outer, Block *b)
{
    Var *vars[32];
    int64_t ext[32];
    RW w = { outer->P, vars, ext, b->niters <= 32 ? b->niters : 0 };
    for (int k = 0; k < w.n; k++) {
        vars[k] = b->iters[k].var;
        if (expr_const_int(b->iters[k].dom, &ext[k]) || ext[k] < 1)
            w.n = 0;
    }
    rw_regions(&w, b->reads, b->nreads, &b->has_reads);
    rw_regions(&w, b->writes, b->nwrites, &b->has_writes);
    rw_expr(&w, b->where);
    rw_stmt(&w, b->init);
    rw_stmt(&w, b->body);
}

static void rw_stmt(RW *w, Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int k = 0; k < s->u.seq.n; k++)
            rw_stmt(w, s->u.seq.items[k]);
        break;
    case S_FOR:
        rw_stmt(w, s->u.loop.body);
        break;
    case S_BLOCK:
        rw_block(w, s->u.block);
        break;
    case S_STORE: {
        for (int k = 0; k < s->u.store.n; k++)
            rw_expr(w, s->u.store.idx[k]);
        rw_expr(w, s->u.store.value);
        int i = find_buf(w->P, s->u.store.buf);
        if (i >= 0) {
            s->u.store.idx = map_index(w, i, s->u.store.idx);
            s->u.store.n = w->P->map[i]->u.map.nout;
        }
        break;
    }
    case S_IF:
        rw_expr(w, s->u.branch.cond);
        rw_stmt(w, s->u.branch.then);
        rw_stmt(w, s->u.branch.orelse);
        break;
    case S_EVAL:
        rw_expr(w, s->u.eval);
        break;
    case S_LET:
        rw_expr(w, s->u.let.value);
        break;
    default:
        break;
    }
}

static Stmt *loop_new(Plan *P, Var *v, int64_t extent, Stmt *body)
{
    Loc none = { 0, 0 };
    Stmt *s = stmt_new(P->a, S_FOR, none);
    s->u.loop.var = v;
    s->u.loop.fk = FOR_SERIAL;
    s->u.loop.min = expr_int(P->a, 0, DT_VOID, none);
    s->u.loop.extent = expr_int(P->a, extent, DT_VOID, none);
    s->u.loop.body = body;
    v->loop = s;
    return s;
}

static Region *subst_regions(Plan *P, Subst *S, const Region *r, int n)
{
    Region *out = arena_array(P->a, (size_t)n + 1, sizeof *out);
    for (int k = 0; k < n; k++) {
        out[k] = r[k];
        out[k].idx = arena_array(P->a, (size_t)r[k].n + 1, sizeof(Expr *));
        for (int d = 0; d < r[k].n; d++)
            out[k].idx[d] = clone_expr(P->a, S, r[k].idx[d]);
    }
    return out;
}

/* Replaces the nest of buffer i's writer w by loops over the new layout
 * (then the reduction iterators); old spatial iterators become the inverse
 * map. */
static Var **reiterate(Plan *P, int i, int w)
{
    Nest *n = &P->nest[w];
    Block *b = n->blk;
    const IndexMap *M = P->im[i];
    ImCond *pred;
    int npred;
    const int *wit = n->wit;
    ImError err;
    IndexMap *inv = im_inverse(P->scratch, M, &pred, &npred, &err);
    int nred = 0;
    for (int k = 0; k < b->niters; k++)
        nred += b->iters[k].kind == 'R';
    int m = M->nout, total = m + nred;
    Var **y = arena_array(P->a, (size_t)total + 1, sizeof *y);
    Var **lv = arena_array(P->a, (size_t)total + 1, sizeof *lv);
    int64_t *ext = arena_array(P->a, (size_t)total + 1, sizeof *ext);
    char name[32];
    Block *nb = arena_alloc(P->a, sizeof *nb);
    *nb = *b;
    nb->niters = total;
    nb->iters = arena_array(P->a, (size_t)total + 1, sizeof *nb->iters);
    Loc none = { 0, 0 };
    for (int q = 0; q < m; q++) {
        snprintf(name, sizeof name, "ax%d", q);
        lv[q] = tir_var(P, name);
        snprintf(name, sizeof name, "v_ax%d", q);
        y[q] = tir_var(P, name);
        ext[q] = M->obox[q];
        nb->iters[q] = (BlockIter){ y[q], 'S', expr_int(P->a, ext[q], DT_VOID, none), var_ref_tir(P->a, lv[q]), none };
    }
    int q = m;
    for (int k = 0; k < b->niters; k++) {
        if (b->iters[k].kind != 'R')
            continue;
        snprintf(name, sizeof name, "ax%d", q);
        lv[q] = tir_var(P, name);
        y[q] = b->iters[k].var;
        expr_const_int(b->iters[k].dom, &ext[q]);
        nb->iters[q] = b->iters[k];
        nb->iters[q].binding = var_ref_tir(P->a, lv[q]);
        q++;
    }
    Subst S = { 0 };
    for (int p = 0; p < M->nin; p++)
        if (wit[p] >= 0)
            subst_var(P->a, &S, b->iters[wit[p]].var, im_sum_to_expr(P->a, inv->out[p], y));
    nb->body = clone_stmt(P->a, &S, b->body);
    nb->init = clone_stmt(P->a, &S, b->init);
    nb->where = clone_expr(P->a, &S, b->where);
    nb->reads = subst_regions(P, &S, b->reads, b->nreads);
    nb->writes = subst_regions(P, &S, b->writes, b->nwrites);
    Stmt *s = stmt_new(P->a, S_BLOCK, none);
    s->u.block = nb;
    for (int k = total - 1; k >= 0; k--)
        s = loop_new(P, lv[k], ext[k], s);
    *n->slot = s;
    n->blk = nb;
    return y;
}

/* Drops output buffer B (no rewrite wants it, nothing uses it): its writer
 * goes, and so does its parameter. */
static int drop_output(Plan *P, Buffer *B, char *gone)
{
    for (int k = 0; k < P->nnest; k++) {
        LoadList L;
        if (P->nest[k].out == B) {
            gone[k] = 1;
            continue;
        }
        if (block_loads(P, P->nest[k].blk, &L))
            return -1;
        for (int i = 0; i < L.n; i++)
            if (L.v[i]->u.load.buf == B)
                return FAIL(P, "block %s reads the result %s", P->nest[k].blk->name->str, B->name->str);
    }
    return 0;
}

static int flow_plan(Plan *P, Module *m, const Func *f0, int nout, const Expr *const *maps, int has_pad, double pad,
                     Sym *name, FlowTir *r)
{
    P->m = m;
    P->a = &m->arena;
    P->why = r->why;
    int nin = f0->npparams - nout;
    const char *low = tir_unhandled(f0);
    if (low)
        return FAIL(P, "%s holds %s, which flow does not read", f0->name->str, low);
    if (nout < 1 || nout > FLOW_MAX_OUT || nin < 1 || nin > FLOW_MAX_ARGS)
        return FAIL(P, "%s takes %d parameters", f0->name->str, f0->npparams);
    for (int k = 0; k < f0->npparams; k++)
        if (!f0->pparams[k].buf)
            return FAIL(P, "%s takes a scalar parameter", f0->name->str);
    P->f = clone_prim(P->a, f0, name);
    keep_op_only(P->f);
    if (read_nests(P))
        return -1;
    char gone[MAXN] = { 0 };
    Buffer *outs[FLOW_MAX_OUT];
    int nplan = 0;
    for (int k = 0; k < nout; k++) {
        outs[k] = P->f->pparams[nin + k].buf;
        if (maps[k] ? plan_add(P, outs[k], (Expr *)maps[k]) : drop_output(P, outs[k], gone))
            return -1;
        nplan += maps[k] != NULL;
    }
    if (!nplan)
        return FAIL(P, "no result of %s is rewritten", f0->name->str);
    for (int i = 0; i < P->nb; i++)   /* plan_writer may append buffers */
        if (plan_writer(P, i))
            return -1;
    for (int i = 0; i < nplan; i++)
        if (P->writer[i] < 0)
            return FAIL(P, "no block of %s writes its result %s", f0->name->str, P->buf[i]->name->str);
    for (int k = 0; k < P->nb; k++)
        if (P->buf[k]->kind == BUF_PARAM && k >= nplan && P->writer[k] >= 0)
            return FAIL(P, "%s writes its input %s", f0->name->str, P->buf[k]->name->str);
    for (int i = 0; i < nplan; i++) {
        if (P->kind[i] != IM_PADDED || !has_pad)
            continue;
        /* the same value bit for bit: -0.0 is not 0.0 (negative of a zero pad) */
        static const double cand[] = { 0, 1, -0.0 };
        double q = r->has_pad ? r->pad : pad, v;
        int found = pad_of(P, i, q, 0, &v) == 0 && v == pad && signbit(v) == signbit(pad);
        for (int k = 0; !found && !r->has_pad && k < 3; k++) {
            q = cand[k];
            found = pad_of(P, i, q, 0, &v) == 0 && v == pad && signbit(v) == signbit(pad);
        }
        if (!found)
            return FAIL(P, "no pad value of its inputs makes the padding of %s hold %g", f0->name->str, pad);
        r->has_pad = 1;
        r->pad = q;
    }
    /* rewrite: shapes, re-iterated writers, then every access */
    for (int k = 0; k < P->nb; k++) {
        Buffer *b = P->buf[k];
        b->ndim = P->im[k]->nout;
        b->shape = arena_array(P->a, (size_t)b->ndim + 1, sizeof *b->shape);
        for (int d = 0; d < b->ndim; d++)
            b->shape[d] = expr_int(P->a, P->im[k]->obox[d], DT_VOID, b->loc);
    }
    for (int k = 0; k < P->nb; k++)
        for (int w = P->nwriters[k] - 1; w >= 0; w--) {
            Var **y = reiterate(P, k, P->writers[k][w]);
            if (k == 0 && w == 0)
                for (int d = 0; d < P->im[0]->nout && d < 16; d++)
                    r->yvars[d] = y[d];
        }
    RW w = { P, NULL, NULL, 0 };
    rw_stmt(&w, P->f->body);
    /* the dropped outputs' nests and parameters go */
    Stmt *body = P->f->body;
    if (body && body->kind == S_SEQ) {
        int j = 0;
        for (int i = 0; i < body->u.seq.n; i++) {
            int drop = 0;
            for (int k = 0; k < P->nnest; k++)
                drop |= gone[k] && P->nest[k].slot == &body->u.seq.items[i];
            if (!drop)
                body->u.seq.items[j++] = body->u.seq.items[i];
        }
        body->u.seq.n = j;
    }
    int j = nin;
    for (int k = 0; k < nout; k++)
        if (maps[k])
            P->f->pparams[j++] = P->f->pparams[nin + k];
    P->f->npparams = j;
    r->f = P->f;
    r->nargs = nin;
    for (int k = 0; k < nin; k++) {
        int i = find_buf(P, P->f->pparams[k].buf);
        if (i >= 0) {
            r->map[k] = P->map[i];
            r->padded[k] = P->kind[i] == IM_PADDED;
        }
    }
    r->nout = nplan;
    for (int i = 0; i < nplan; i++) {
        r->out[i].ndim = P->im[i]->nout;
        r->out[i].dtype = P->buf[i]->dtype;
        memcpy(r->out[i].shape, P->im[i]->obox, (size_t)r->out[i].ndim * sizeof(int64_t));
    }
    return 0;
}

int flow_tir(Module *m, Arena *scratch, const Func *f0, int nout, const Expr *const *maps, int has_pad, double pad,
             Sym *name, FlowTir *r)
{
    memset(r, 0, sizeof *r);
    Plan *P = scratch_calloc(1, sizeof *P);
    ArenaMark mark = arena_mark(scratch);
    P->scratch = scratch;
    int rc = flow_plan(P, m, f0, nout, maps, has_pad, pad, name, r);
    arena_release(scratch, mark);
    scratch_free(P);
    return rc;
}
