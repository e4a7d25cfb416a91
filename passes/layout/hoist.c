/* hoist: lifts layout-rewrite blocks out of PrimFuncs into the graph (seed
 * 000, appendix). A rewrite block copies a parameter into an allocated
 * buffer at the function's start, or an allocated buffer into the result at
 * its end, through an index map; it is found by the annotation
 * meta_schedule.layout_rewrite_preproc or by that shape. The function then
 * takes (or returns) the rewritten buffer, is marked frozen, and every call
 * site gets the rewrite as R.layout_transform. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../graph.h"

enum { MAXP = 16 };

typedef struct Lift {
    int param;            /* the parameter rewritten */
    Buffer *to;           /* the buffer it becomes */
    Expr *map;            /* E_INDEXMAP from the old buffer's indices to the new one's, or NULL */
    Func *rw;             /* otherwise the PrimFunc that does the rewrite */
    Buffer *from;         /* the parameter's buffer before the lift */
} Lift;

static Block *nest_block(Stmt *s)
{
    s = stmt_single(s);
    while (s && s->kind == S_FOR)
        s = stmt_single(s->u.loop.body);
    return s && s->kind == S_BLOCK ? s->u.block : NULL;
}

static int annotated(const Block *b)
{
    const Expr *d = b->attrs;
    for (int i = 0; d && d->kind == E_DICT && i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i];
        if (k->kind == E_STR && k->u.str.len == 36 && memcmp(k->u.str.s, "meta_schedule.layout_rewrite_preproc", 36) == 0)
            return 1;
    }
    return 0;
}

/* dst[f(v)] = src[v0, v1, ...]: the map v -> f(v) as an E_INDEXMAP over
 * src's indices, or NULL when the block is not such a copy. */
static Expr *copy_map(Module *m, const Block *b, Buffer **src, Buffer **dst)
{
    Stmt *st = stmt_single(b->body);
    if (!st || st->kind != S_STORE || b->init || b->where || st->u.store.value->kind != E_LOAD)
        return NULL;
    const Expr *ld = st->u.store.value;
    if (ld->u.load.n != b->niters || ld->u.load.n > IM_MAX_RANK)
        return NULL;
    Subst S = { 0 };
    Expr *map = expr_new(&m->arena, E_INDEXMAP, b->iters ? b->iters[0].loc : st->loc);
    map->u.map.nparams = ld->u.load.n;
    map->u.map.params = arena_array(&m->arena, (size_t)ld->u.load.n + 1, sizeof(Var *));
    for (int j = 0; j < ld->u.load.n; j++) {
        const Expr *x = ld->u.load.idx[j];
        if (x->kind != E_VAR || b->iters[j].var != x->u.var || b->iters[j].kind != 'S')
            return NULL;
        Var *p = var_new(&m->arena, x->u.var->name, VAR_TIR, x->loc);
        p->dtype = DT_INT32;
        map->u.map.params[j] = p;
        subst_var(&m->arena, &S, x->u.var, var_ref(&m->arena, p, x->loc));
    }
    map->u.map.nout = st->u.store.n;
    map->u.map.out = arena_array(&m->arena, (size_t)st->u.store.n + 1, sizeof(Expr *));
    for (int k = 0; k < st->u.store.n; k++)
        map->u.map.out[k] = clone_expr(&m->arena, &S, st->u.store.idx[k]);
    *src = ld->u.load.buf;
    *dst = st->u.store.buf;
    return map;
}

static int shape_of(const Buffer *b, int64_t *sh)
{
    for (int i = 0; i < b->ndim; i++)
        if (expr_const_int(b->shape[i], &sh[i]))
            return -1;
    return 0;
}

/* The buffers a statement loads and stores (in reads, writes, loads and
 * stores). `other` is set for what a plain nest does not hold (allocations)
 * and when there are more buffers than fit, so that callers stay safe. */
enum { ACC_LOAD = 1, ACC_STORE = 2, ACC_MAX = 8 };

typedef struct Access {
    Buffer *buf[ACC_MAX];
    char how[ACC_MAX];
    int n, other;
} Access;

static void access_add(Access *A, Buffer *b, int how)
{
    for (int i = 0; i < A->n; i++)
        if (A->buf[i] == b) {
            A->how[i] |= (char)how;
            return;
        }
    if (A->n == ACC_MAX) {
        A->other = 1;
        return;
    }
    A->buf[A->n] = b;
    A->how[A->n++] = (char)how;
}

static void access_expr(const Expr *e, Access *A)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        access_add(A, e->u.load.buf, ACC_LOAD);
        for (int i = 0; i < e->u.load.n; i++)
            access_expr(e->u.load.idx[i], A);
        return;
    case E_BIN:
        access_expr(e->u.bin.a, A);
        access_expr(e->u.bin.b, A);
        return;
    case E_UNARY:
        access_expr(e->u.un.a, A);
        return;
    case E_CAST:
        access_expr(e->u.cast.a, A);
        return;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            access_expr(e->u.call.args[i], A);
        return;
    default:
        return;
    }
}

static void access_stmt(const Stmt *s, Access *A)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            access_stmt(s->u.seq.items[i], A);
        return;
    case S_FOR:
        access_expr(s->u.loop.min, A);
        access_expr(s->u.loop.extent, A);
        access_stmt(s->u.loop.body, A);
        return;
    case S_BLOCK:
        for (int i = 0; i < s->u.block->nreads; i++)
            access_add(A, s->u.block->reads[i].buf, ACC_LOAD);
        for (int i = 0; i < s->u.block->nwrites; i++)
            access_add(A, s->u.block->writes[i].buf, ACC_STORE);
        for (int i = 0; i < s->u.block->niters; i++)
            access_expr(s->u.block->iters[i].binding, A);
        access_expr(s->u.block->where, A);
        access_stmt(s->u.block->init, A);
        access_stmt(s->u.block->body, A);
        return;
    case S_STORE:
        access_add(A, s->u.store.buf, ACC_STORE);
        for (int i = 0; i < s->u.store.n; i++)
            access_expr(s->u.store.idx[i], A);
        access_expr(s->u.store.value, A);
        return;
    case S_IF:
        access_expr(s->u.branch.cond, A);
        access_stmt(s->u.branch.then, A);
        access_stmt(s->u.branch.orelse, A);
        return;
    case S_EVAL:
        access_expr(s->u.eval, A);
        return;
    case S_LET:
        access_expr(s->u.let.value, A);
        return;
    default:
        A->other = 1;
        return;
    }
}

static int mentions_buf(const Stmt *s, const Buffer *b)
{
    Access A = { 0 };
    access_stmt(s, &A);
    for (int i = 0; i < A.n; i++)
        if (A.buf[i] == b)
            return 1;
    return A.n == ACC_MAX && A.other;   /* too many to tell: assume it does */
}

static int param_index(const Func *f, const Buffer *b)
{
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf == b)
            return i;
    return -1;
}

/* Whether a statement of seq other than item skip (allocations aside)
 * accesses b as how says (ACC_LOAD, ACC_STORE), or may: when a statement
 * holds too many buffers to tell, it is assumed to. */
static int elsewhere(Stmt *seq, int skip, const Buffer *b, int how)
{
    for (int i = 0; i < seq->u.seq.n; i++) {
        if (i == skip || seq->u.seq.items[i]->kind == S_ALLOC)
            continue;
        Access A = { 0 };
        access_stmt(seq->u.seq.items[i], &A);
        for (int k = 0; k < A.n; k++)
            if (A.buf[k] == b && (A.how[k] & how))
                return 1;
        if (A.n == ACC_MAX && A.other)
            return 1;
    }
    return 0;
}

/* The lift must leave a function that still computes its result from its
 * parameters. A prologue (param -> dst) goes only when a statement that
 * stays reads dst and none writes it (dst becomes an input); an epilogue
 * (src -> result) only when a statement that stays writes src, which is
 * still an allocated buffer (not the new input of a prologue lifted before:
 * a function that is only two copies, there and back, keeps one of them).
 * NULL when it may go, else why not. */
static const char *prologue_stays(Stmt *seq, int i, const Buffer *dst)
{
    if (!elsewhere(seq, i, dst, ACC_LOAD))
        return "nothing that stays reads what it writes";
    if (elsewhere(seq, i, dst, ACC_STORE))
        return "another statement also writes what it writes";
    return NULL;
}

static const char *epilogue_stays(Stmt *seq, int i, const Buffer *src, const Lift *lifts, int n)
{
    for (int k = 0; k < n; k++)
        if (lifts[k].to == src)
            return "what it reads is lifted into an input already";
    if (!elsewhere(seq, i, src, ACC_STORE))
        return "nothing that stays writes what it reads";
    return NULL;
}

/* Whether the statements of seq other than item skip mention b. */
static int only_here(Stmt *seq, int skip, const Buffer *b)
{
    for (int i = 0; i < seq->u.seq.n; i++)
        if (i != skip && seq->u.seq.items[i]->kind != S_ALLOC && mentions_buf(seq->u.seq.items[i], b))
            return 0;
    return 1;
}

static void drop_item(Stmt *seq, int i)
{
    memmove(&seq->u.seq.items[i], &seq->u.seq.items[i + 1], (size_t)(seq->u.seq.n - i - 1) * sizeof(Stmt *));
    seq->u.seq.n--;
}

/* Removes the T.alloc_buffer of b from seq. */
static void drop_alloc(Stmt *seq, const Buffer *b)
{
    for (int i = 0; i < seq->u.seq.n; i++)
        if (seq->u.seq.items[i]->kind == S_ALLOC && seq->u.seq.items[i]->u.alloc == b) {
            drop_item(seq, i);
            return;
        }
}

static int is_mapped(const Expr *map, const Buffer *src)
{
    int64_t sh[IM_MAX_RANK];
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    ImError err;
    int ok = src->ndim <= IM_MAX_RANK && shape_of(src, sh) == 0;
    IndexMap *im = ok ? im_from_expr(&tmp, map, sh, &err) : NULL;
    ImKind k = im ? im_classify(im, NULL, NULL) : IM_UNKNOWN;
    ok = k == IM_BIJECTIVE || k == IM_PADDED;
    arena_scratch_end(&tmp);
    return ok;
}

static int all_buffer_params(const Func *f)
{
    for (int i = 0; i < f->npparams; i++)
        if (!f->pparams[i].buf || f->pparams[i].buf->kind != BUF_PARAM)
            return 0;
    return 1;
}

/* Drops the layout-rewrite annotation from the blocks of a lifted nest. */
static void strip_annotation(Stmt *s)
{
    Block *b = nest_block(s);
    Expr *d = b ? b->attrs : NULL;
    for (int i = 0; d && d->kind == E_DICT && i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i];
        if (k->kind == E_STR && k->u.str.len == 36 && memcmp(k->u.str.s, "meta_schedule.layout_rewrite_preproc", 36) == 0) {
            memmove(&d->u.dict.keys[i], &d->u.dict.keys[i + 1], (size_t)(d->u.dict.n - i - 1) * sizeof(Expr *));
            memmove(&d->u.dict.vals[i], &d->u.dict.vals[i + 1], (size_t)(d->u.dict.n - i - 1) * sizeof(Expr *));
            d->u.dict.n--;
            i--;
        }
    }
    if (d && d->kind == E_DICT && d->u.dict.n == 0)
        b->attrs = NULL;
}

/* The nest as a PrimFunc of its own, (src, dst) -> dst, named after its block. */
static Func *rewrite_func(Module *m, const Block *b, Stmt *nest, Buffer *src, Buffer *dst)
{
    Subst S = { 0 };
    Func *g = arena_zalloc(&m->arena, sizeof *g);
    g->kind = F_PRIM;
    g->name = fresh_func(m, b->name->str);
    g->loc = b->iters ? b->iters[0].loc : nest->loc;
    g->npparams = 2;
    g->pparams = arena_array(&m->arena, 3, sizeof *g->pparams);
    g->pparams[0].buf = clone_buffer(&m->arena, &S, src);
    g->pparams[1].buf = clone_buffer(&m->arena, &S, dst);
    g->pparams[0].buf->kind = g->pparams[1].buf->kind = BUF_PARAM;
    g->body = clone_stmt(&m->arena, &S, nest);
    strip_annotation(g->body);
    module_add_func(m, g);
    return g;
}

/* An annotated rewrite nest that is not an index-map copy: item i of seq,
 * loading only src and storing only dst, one of them a parameter used
 * nowhere else and the other an allocated buffer. Returns the index of the
 * parameter it rewrites (and sets *alloc), or -1. */
static int rewrite_nest(const Func *f, Stmt *seq, int i, const Lift *lifts, int nl, Buffer **alloc, Buffer **param,
                        char *why, size_t cap)
{
    Access A = { 0 };
    int64_t sh[IM_MAX_RANK];
    access_stmt(seq->u.seq.items[i], &A);
    struct { Buffer *st, *ld; } t = { NULL, NULL };
    for (int k = 0; k < A.n; k++)
        if (A.how[k] == ACC_STORE)
            t.st = A.buf[k];
        else if (A.how[k] == ACC_LOAD)
            t.ld = A.buf[k];
    if (A.other || A.n != 2 || !t.st || !t.ld)
        return snprintf(why, cap, "it does not read exactly one buffer into another"), -1;
    if (!all_buffer_params(f))
        return snprintf(why, cap, "%s has parameters that are not buffers", f->name->str), -1;
    if (t.st->ndim > IM_MAX_RANK || t.ld->ndim > IM_MAX_RANK || shape_of(t.st, sh) || shape_of(t.ld, sh))
        return snprintf(why, cap, "its buffers do not have constant shapes"), -1;
    int p = param_index(f, t.ld), o = param_index(f, t.st);
    const char *w;
    if (p >= 0 && p < f->npparams - 1 && buf_allocates(t.st->kind)) {
        if (!only_here(seq, i, t.ld))
            return snprintf(why, cap, "its input %s is also used elsewhere in %s", t.ld->name->str, f->name->str), -1;
        if ((w = prologue_stays(seq, i, t.st)))
            return snprintf(why, cap, "%s (%s)", w, t.st->name->str), -1;
        *alloc = t.st;
        *param = t.ld;
        return p;
    }
    if (o == f->npparams - 1 && buf_allocates(t.ld->kind)) {
        if (i != seq->u.seq.n - 1)
            return snprintf(why, cap, "it writes the result but is not the last statement of %s", f->name->str), -1;
        if (!only_here(seq, i, t.st))
            return snprintf(why, cap, "the result %s is also written elsewhere in %s", t.st->name->str, f->name->str), -1;
        if ((w = epilogue_stays(seq, i, t.ld, lifts, nl)))
            return snprintf(why, cap, "%s (%s)", w, t.ld->name->str), -1;
        *alloc = t.ld;
        *param = t.st;
        return o;
    }
    return snprintf(why, cap, "it neither copies a parameter into an allocated buffer nor an allocated buffer into the result"), -1;
}

/* The names a PrimFunc body declares (loop and block variables, buffers). */
static void tir_names(const Stmt *s, PtrMap *names)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            tir_names(s->u.seq.items[i], names);
        return;
    case S_FOR:
        ptrmap_put(names, s->u.loop.var->name, 1);
        tir_names(s->u.loop.body, names);
        return;
    case S_BLOCK:
        for (int i = 0; i < s->u.block->niters; i++)
            ptrmap_put(names, s->u.block->iters[i].var->name, 1);
        tir_names(s->u.block->init, names);
        tir_names(s->u.block->body, names);
        return;
    case S_IF:
        tir_names(s->u.branch.then, names);
        tir_names(s->u.branch.orelse, names);
        return;
    case S_ALLOC:
        ptrmap_put(names, s->u.alloc->name, 1);
        return;
    case S_LET:
        ptrmap_put(names, s->u.let.var->name, 1);
        return;
    default:
        return;
    }
}

/* A lifted buffer may share its name with a parameter (an allocation that
 * shadows an input nothing reads): each parameter gets a name of its own. */
static void distinct_param_names(Module *m, Func *f)
{
    PtrMap names = { 0 };
    int dup = 0;
    for (int i = 0; i < f->npparams; i++) {
        Sym *s = f->pparams[i].buf ? f->pparams[i].buf->name : f->pparams[i].var ? f->pparams[i].var->name : NULL;
        if (s && ptrmap_get(&names, s, 0))
            dup = 1;
        if (s)
            ptrmap_put(&names, s, 1);
    }
    if (dup) {
        PtrMap seen = { 0 };
        tir_names(f->body, &names);
        for (int i = 0; i < f->npparams; i++) {
            Buffer *b = f->pparams[i].buf;
            if (!b)
                continue;
            if (ptrmap_get(&seen, b->name, 0))
                b->name = fresh_name(&m->names, &names, b->name->str);
            ptrmap_put(&seen, b->name, 1);
        }
        ptrmap_free(&seen);
    }
    ptrmap_free(&names);
}

/* Finds and removes f's rewrite blocks; fills lifts (prologue ones first,
 * then at most one for the result, param == npparams - 1). */
static int find_lifts(Module *m, Func *f, Lift *lifts, Notes *notes)
{
    Stmt *seq = f->body;
    int n = 0;
    if (!seq || seq->kind != S_SEQ || f->npparams < 2)
        return 0;
    for (int i = 0; i < seq->u.seq.n && n < MAXP - 1; i++) {
        Block *b = nest_block(seq->u.seq.items[i]);
        Buffer *src, *dst;
        Expr *map = b ? copy_map(m, b, &src, &dst) : NULL;
        if (!map) {
            Buffer *alloc, *param;
            char why[200];
            int p = b && annotated(b) ? rewrite_nest(f, seq, i, lifts, n, &alloc, &param, why, sizeof why) : -1;
            if (p < 0) {
                if (b && annotated(b))
                    note_add(notes, b->iters ? b->iters[0].loc : f->loc,
                             "left: block %s is annotated as a layout rewrite but %s", b->name->str, why);
                continue;
            }
            int res = p == f->npparams - 1;
            Func *g = res ? rewrite_func(m, b, seq->u.seq.items[i], alloc, param)
                          : rewrite_func(m, b, seq->u.seq.items[i], param, alloc);
            lifts[n++] = (Lift){ p, alloc, NULL, g, param };
            note_add(notes, f->loc, "lifted block %s into PrimFunc %s: %s now %s %s", b->name->str, g->name->str,
                     f->name->str, res ? "returns" : "takes", alloc->name->str);
            drop_item(seq, i);
            drop_alloc(seq, alloc);
            if (res)
                break;
            i = -1;
            continue;
        }
        int p = param_index(f, src);
        const char *w = NULL;
        if (p >= 0 && p < f->npparams - 1 && buf_allocates(dst->kind) && only_here(seq, i, src) &&
            is_mapped(map, src) && !(w = prologue_stays(seq, i, dst))) {
            lifts[n++] = (Lift){ p, dst, map, NULL, src };
            note_add(notes, f->loc, "lifted block %s: %s now takes %s", b->name->str, f->name->str, dst->name->str);
            drop_item(seq, i);
            drop_alloc(seq, dst);
            i = -1;   /* the sequence changed: look again */
            continue;
        }
        int o = param_index(f, dst);
        if (o == f->npparams - 1 && buf_allocates(src->kind) && i == seq->u.seq.n - 1 && only_here(seq, i, dst) &&
            is_mapped(map, src) && !(w = epilogue_stays(seq, i, src, lifts, n))) {
            lifts[n++] = (Lift){ o, src, map, NULL, dst };
            note_add(notes, f->loc, "lifted block %s: %s now returns %s", b->name->str, f->name->str, src->name->str);
            drop_item(seq, i);
            drop_alloc(seq, src);
            break;
        }
        if (w)
            note_add(notes, b->iters ? b->iters[0].loc : f->loc, "left: block %s is a layout copy but %s (%s)",
                     b->name->str, w, (p >= 0 ? dst : src)->name->str);
    }
    for (int k = 0; k < n; k++) {
        Buffer *b = lifts[k].to;
        b->kind = BUF_PARAM;
        f->pparams[lifts[k].param].buf = b;
    }
    if (n)
        distinct_param_names(m, f);
    return n;
}

typedef struct Out {
    Binding **v;
    int n, cap;
} Out;

static void out_push(Module *m, Out *o, Binding *b)
{
    vec_push(&m->arena, &o->v, &o->n, &o->cap, b);
}

static StructInfo *buffer_sinfo(Module *m, const Buffer *b, Loc loc)
{
    int64_t sh[IM_MAX_RANK];
    if (b->ndim > IM_MAX_RANK || shape_of(b, sh))
        return NULL;
    return tensor_sinfo_new(&m->arena, b->dtype, b->ndim, sh, loc);
}

/* The rewrite of x in the graph: R.layout_transform, or a call of the lifted PrimFunc giving a tensor like to. */
static Expr *lift_call(Module *m, const Lift *l, Expr *x, const Buffer *to, Loc loc)
{
    if (l->map)
        return layout_transform_new(m, x, l->map, NULL, loc);
    Expr *si = expr_new(&m->arena, E_SINFO, loc);
    si->u.sinfo = buffer_sinfo(m, to, loc);
    return call_tir_new(m, l->rw, &x, 1, si, loc);
}

/* Rewrites the call sites of f in fn. */
static void rewrite_calls(Module *m, Func *fn, const Func *f, const Lift *lifts, int nl, PtrMap *names)
{
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        Out o = { 0 };
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            Expr *e = bd->value;
            if (call_tir_callee(e) != f || e->u.call.args[1]->kind != E_TUPLE) {
                out_push(m, &o, bd);
                continue;
            }
            Expr *args = arena_alloc(&m->arena, sizeof *args);
            *args = *e->u.call.args[1];
            args->u.list.items = arena_array(&m->arena, (size_t)args->u.list.n + 1, sizeof(Expr *));
            memcpy(args->u.list.items, e->u.call.args[1]->u.list.items, (size_t)args->u.list.n * sizeof(Expr *));
            Expr *c = arena_alloc(&m->arena, sizeof *c);
            *c = *e;
            c->u.call.args = arena_array(&m->arena, (size_t)(e->u.call.nargs + e->u.call.nkw) + 1, sizeof(Expr *));
            memcpy(c->u.call.args, e->u.call.args, (size_t)(e->u.call.nargs + e->u.call.nkw) * sizeof(Expr *));
            c->u.call.args[1] = args;
            const Lift *res = NULL;
            for (int k = 0; k < nl; k++) {
                if (lifts[k].param == f->npparams - 1) {
                    res = &lifts[k];
                    continue;
                }
                if (lifts[k].param >= args->u.list.n)
                    continue;
                Expr *x = args->u.list.items[lifts[k].param];
                char nm[160];
                snprintf(nm, sizeof nm, "%.120s_t", x->kind == E_VAR ? x->u.var->name->str : "c");
                Binding *nb = binding_fresh(m, names, nm, rb->dataflow, buffer_sinfo(m, lifts[k].to, bd->loc),
                                            lift_call(m, &lifts[k], x, lifts[k].to, bd->loc), bd->loc);
                var_say(m, nb->var, "the rewrite of ", x->kind == E_VAR ? x->u.var : NULL, "");
                out_push(m, &o, nb);
                args->u.list.items[lifts[k].param] = var_ref(&m->arena, nb->var, bd->loc);
            }
            if (res) {
                Expr *si = expr_new(&m->arena, E_SINFO, bd->loc);
                si->u.sinfo = buffer_sinfo(m, res->to, bd->loc);
                for (int k = 0; k < c->u.call.nkw; k++)
                    if (strcmp(c->u.call.kw[k]->str, "out_sinfo") == 0)
                        c->u.call.args[c->u.call.nargs + k] = si;
                char nm[160];
                snprintf(nm, sizeof nm, "%.120s_r", bd->var->name->str);
                Binding *rbd = binding_fresh(m, names, nm, rb->dataflow, si->u.sinfo, c, bd->loc);
                var_say(m, rbd->var, "the form of ", bd->var, " before the lifted rewrite");
                out_push(m, &o, rbd);
                Binding *nb = arena_alloc(&m->arena, sizeof *nb);
                *nb = *bd;
                nb->value = lift_call(m, res, var_ref(&m->arena, rbd->var, bd->loc), res->from, bd->loc);
                out_push(m, &o, nb);
            } else {
                Binding *nb = arena_alloc(&m->arena, sizeof *nb);
                *nb = *bd;
                nb->value = c;
                out_push(m, &o, nb);
            }
        }
        rb->binds = o.v;
        rb->nbinds = o.n;
    }
}

int pass_hoist(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    Notes notes = { 0 };
    /* hoist rewrites no call site inside a branch, no direct call and no
     * call with tir_vars: the PrimFuncs called so keep their signature */
    PtrMap branchy = { 0 };
    mark_fixed_signatures(m, &branchy);
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        Lift lifts[MAXP];
        if (f->kind != F_PRIM || ptrmap_get(&branchy, f, 0) || tir_unhandled(f))
            continue;
        int nl = find_lifts(m, f, lifts, &notes);
        if (!nl)
            continue;
        func_set_frozen(m, f);
        for (int k = 0; k < m->nfuncs; k++)
            if (m->funcs[k]->kind == F_RELAX) {
                PtrMap names = { 0 };
                collect_names(m->funcs[k], &names);
                rewrite_calls(m, m->funcs[k], f, lifts, nl, &names);
                ptrmap_free(&names);
            }
    }
    ptrmap_free(&branchy);
    notes_flush(&notes, ctx, "hoist");
    return 0;
}
