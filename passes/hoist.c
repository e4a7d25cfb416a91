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

#include "../ir/clone.h"
#include "../ir/indexmap.h"
#include "graph.h"

enum { MAXP = 16 };

typedef struct Lift {
    int param;            /* the parameter rewritten */
    Buffer *to;           /* the buffer it becomes */
    Expr *map;            /* E_INDEXMAP from the old buffer's indices to the new one's */
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

static int mentions_buf(const Stmt *s, const Buffer *b);

static int expr_mentions(const Expr *e, const Buffer *b)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case E_LOAD:
        if (e->u.load.buf == b)
            return 1;
        for (int i = 0; i < e->u.load.n; i++)
            if (expr_mentions(e->u.load.idx[i], b))
                return 1;
        return 0;
    case E_BIN:
        return expr_mentions(e->u.bin.a, b) || expr_mentions(e->u.bin.b, b);
    case E_UNARY:
        return expr_mentions(e->u.un.a, b);
    case E_CAST:
        return expr_mentions(e->u.cast.a, b);
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            if (expr_mentions(e->u.call.args[i], b))
                return 1;
        return 0;
    default:
        return 0;
    }
}

static int mentions_buf(const Stmt *s, const Buffer *b)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            if (mentions_buf(s->u.seq.items[i], b))
                return 1;
        return 0;
    case S_FOR:
        return mentions_buf(s->u.loop.body, b);
    case S_BLOCK:
        for (int i = 0; i < s->u.block->nreads; i++)
            if (s->u.block->reads[i].buf == b)
                return 1;
        for (int i = 0; i < s->u.block->nwrites; i++)
            if (s->u.block->writes[i].buf == b)
                return 1;
        return expr_mentions(s->u.block->where, b) || mentions_buf(s->u.block->init, b) ||
               mentions_buf(s->u.block->body, b);
    case S_STORE:
        if (s->u.store.buf == b)
            return 1;
        for (int i = 0; i < s->u.store.n; i++)
            if (expr_mentions(s->u.store.idx[i], b))
                return 1;
        return expr_mentions(s->u.store.value, b);
    case S_IF:
        return expr_mentions(s->u.branch.cond, b) || mentions_buf(s->u.branch.then, b) ||
               mentions_buf(s->u.branch.orelse, b);
    case S_EVAL:
        return expr_mentions(s->u.eval, b);
    case S_LET:
        return expr_mentions(s->u.let.value, b);
    default:
        return 0;
    }
}

static int param_index(const Func *f, const Buffer *b)
{
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf == b)
            return i;
    return -1;
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
    ImError err;
    int ok = src->ndim <= IM_MAX_RANK && shape_of(src, sh) == 0;
    IndexMap *im = ok ? im_from_expr(&tmp, map, sh, &err) : NULL;
    ok = im && im_classify(im, NULL, NULL) == IM_BIJECTIVE;
    arena_free(&tmp);
    return ok;
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
            if (b && annotated(b))
                note_add(notes, b->iters ? b->iters[0].loc : f->loc,
                         "left: block %s is annotated as a layout rewrite but is not a copy through an index map",
                         b->name->str);
            continue;
        }
        int p = param_index(f, src);
        if (p >= 0 && p < f->npparams - 1 && dst->kind == BUF_ALLOC && only_here(seq, i, src) &&
            is_mapped(map, src)) {
            lifts[n++] = (Lift){ p, dst, map };
            note_add(notes, f->loc, "lifted block %s: %s now takes %s", b->name->str, f->name->str, dst->name->str);
            drop_item(seq, i);
            drop_alloc(seq, dst);
            i = -1;   /* the sequence changed: look again */
            continue;
        }
        int o = param_index(f, dst);
        if (o == f->npparams - 1 && src->kind == BUF_ALLOC && i == seq->u.seq.n - 1 && only_here(seq, i, dst) &&
            is_mapped(map, src)) {
            lifts[n++] = (Lift){ o, src, map };
            note_add(notes, f->loc, "lifted block %s: %s now returns %s", b->name->str, f->name->str, src->name->str);
            drop_item(seq, i);
            drop_alloc(seq, src);
            break;
        }
    }
    for (int k = 0; k < n; k++) {
        Buffer *b = lifts[k].to;
        b->kind = BUF_PARAM;
        f->pparams[lifts[k].param].buf = b;
    }
    return n;
}

static void set_frozen(Module *m, Func *f)
{
    Arena *a = &m->arena;
    Expr *d = f->attrs;
    Expr *k = expr_new(a, E_STR, f->loc);
    k->u.str.s = "frozen_layout";
    k->u.str.len = 13;
    Expr *v = expr_new(a, E_BOOL, f->loc);
    v->u.b = 1;
    if (func_is_frozen(f))
        return;
    if (!d || d->kind != E_DICT) {
        d = expr_new(a, E_DICT, f->loc);
        f->attrs = d;
    }
    Expr **keys = arena_array(a, (size_t)d->u.dict.n + 2, sizeof *keys);
    Expr **vals = arena_array(a, (size_t)d->u.dict.n + 2, sizeof *vals);
    if (d->u.dict.n) {
        memcpy(keys, d->u.dict.keys, (size_t)d->u.dict.n * sizeof *keys);
        memcpy(vals, d->u.dict.vals, (size_t)d->u.dict.n * sizeof *vals);
    }
    keys[d->u.dict.n] = k;
    vals[d->u.dict.n] = v;
    d->u.dict.keys = keys;
    d->u.dict.vals = vals;
    d->u.dict.n++;
}

typedef struct Out {
    Binding **v;
    int n, cap;
} Out;

static void out_push(Module *m, Out *o, Binding *b)
{
    vec_push(&m->arena, &o->v, &o->n, &o->cap, b);
}

static Binding *binding_new(Module *m, Var *v, Expr *value, Loc loc)
{
    Binding *b = arena_zalloc(&m->arena, sizeof *b);
    b->loc = loc;
    b->var = v;
    b->annot = v->sinfo;
    b->value = value;
    return b;
}

static StructInfo *buffer_sinfo(Module *m, const Buffer *b, Loc loc)
{
    int64_t sh[IM_MAX_RANK];
    if (b->ndim > IM_MAX_RANK || shape_of(b, sh))
        return NULL;
    return tensor_sinfo_new(&m->arena, b->dtype, b->ndim, sh, loc);
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
                Var *v = var_new(&m->arena, fresh_name(&m->names, names, nm), VAR_RELAX, bd->loc);
                v->dataflow = rb->dataflow;
                v->sinfo = buffer_sinfo(m, lifts[k].to, bd->loc);
                out_push(m, &o, binding_new(m, v, layout_transform_new(m, x, lifts[k].map, NULL, bd->loc), bd->loc));
                args->u.list.items[lifts[k].param] = var_ref(&m->arena, v, bd->loc);
            }
            if (res) {
                Expr *si = expr_new(&m->arena, E_SINFO, bd->loc);
                si->u.sinfo = buffer_sinfo(m, res->to, bd->loc);
                for (int k = 0; k < c->u.call.nkw; k++)
                    if (strcmp(c->u.call.kw[k]->str, "out_sinfo") == 0)
                        c->u.call.args[c->u.call.nargs + k] = si;
                char nm[160];
                snprintf(nm, sizeof nm, "%.120s_r", bd->var->name->str);
                Var *v = var_new(&m->arena, fresh_name(&m->names, names, nm), VAR_RELAX, bd->loc);
                v->dataflow = rb->dataflow;
                v->sinfo = si->u.sinfo;
                out_push(m, &o, binding_new(m, v, c, bd->loc));
                Binding *nb = arena_alloc(&m->arena, sizeof *nb);
                *nb = *bd;
                nb->value = layout_transform_new(m, var_ref(&m->arena, v, bd->loc), res->map, NULL, bd->loc);
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
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        Lift lifts[MAXP];
        if (f->kind != F_PRIM)
            continue;
        int nl = find_lifts(m, f, lifts, &notes);
        if (!nl)
            continue;
        set_frozen(m, f);
        for (int k = 0; k < m->nfuncs; k++)
            if (m->funcs[k]->kind == F_RELAX) {
                PtrMap names = { 0 };
                collect_names(m->funcs[k], &names);
                rewrite_calls(m, m->funcs[k], f, lifts, nl, &names);
                ptrmap_free(&names);
            }
    }
    notes_flush(&notes, ctx, "hoist");
    return 0;
}
