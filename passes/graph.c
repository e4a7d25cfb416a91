/* Helpers the layout passes share (graph.h): pointer maps, uses, names,
 * building rewrites, and the --explain notes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/indexmap.h"
#include "../ir/ops.h"
#include "graph.h"
#include "../ir/oom.h"

/* The address in 16-byte units, plus its bits above the table's scattered:
 * keys allocated one after another take slots one after another (a few
 * apart), and each span of addresses as large as the table starts at a
 * slot of its own, so the spans do not pile up in one run of slots. */
static size_t slot_of(const PtrMap *m, const void *k)
{
    size_t x = (size_t)((uintptr_t)k >> 4);
    size_t i = (x + (x >> m->bits) * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
    while (m->slots[i].key && m->slots[i].key != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int ptrmap_get(const PtrMap *m, const void *k, int dflt)
{
    if (!m->cap)
        return dflt;
    size_t i = slot_of(m, k);
    return m->slots[i].key ? m->slots[i].val : dflt;
}

/* Rehashes m into cap slots (a power of two above twice its entries). */
static void ptrmap_grow(PtrMap *m, size_t cap)
{
    PtrMap g = { xcalloc(cap, sizeof(PtrSlot)), cap, 0, 0 };
    if (!g.slots) {
        oom_fail();
    }
    while (((size_t)1 << g.bits) < cap)
        g.bits++;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key) {
            g.slots[slot_of(&g, m->slots[i].key)] = m->slots[i];
            g.n++;
        }
    free(m->slots);
    *m = g;
}

void ptrmap_reserve(PtrMap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 64;
    while (2 * (n + 1) > cap)
        cap *= 2;
    if (cap > m->cap)
        ptrmap_grow(m, cap);
}

void ptrmap_put(PtrMap *m, const void *k, int v)
{
    if (2 * (m->n + 1) > m->cap)
        ptrmap_grow(m, m->cap ? 2 * m->cap : 64);
    size_t i = slot_of(m, k);
    if (!m->slots[i].key) {
        m->slots[i].key = k;
        m->n++;
    }
    m->slots[i].val = v;
}

int ptrmap_add(PtrMap *m, const void *k, int delta)
{
    if (m->cap) {
        size_t i = slot_of(m, k);
        if (m->slots[i].key)
            return m->slots[i].val += delta;
    }
    ptrmap_put(m, k, delta);
    return delta;
}

void ptrmap_free(PtrMap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

void ptrmap_free_v(void *m)
{
    ptrmap_free(m);
}

Expr *call_kwarg(const Expr *call, const char *name)
{
    for (int k = 0; k < call->u.call.nkw; k++)
        if (strcmp(call->u.call.kw[k]->str, name) == 0)
            return call_kwv(call)[k];
    return NULL;
}

int is_call_to(const Expr *e, const char *op)
{
    if (!e || e->kind != E_CALL || e->u.call.callee)
        return 0;
    size_t n = strlen(op);   /* the interned length first: most calls differ there, without reading their name */
    return e->u.call.op->len == n && memcmp(e->u.call.op->str, op, n) == 0;
}

int is_layout_transform(const Expr *e)
{
    if (!is_call_to(e, "R.layout_transform") || e->u.call.nargs != 1)
        return 0;
    const Expr *m = call_kwarg(e, "index_map");
    return m && m->kind == E_INDEXMAP;
}

Func *call_tir_callee(const Expr *e)
{
    /* with tir_vars the PrimFunc takes scalars too: the passes leave such a call as it is */
    if (!is_call_to(e, "R.call_tir") || e->u.call.nargs < 2 || e->u.call.args[0]->kind != E_GLOBAL ||
        call_kwarg(e, "tir_vars"))
        return NULL;
    Func *f = e->u.call.args[0]->u.global.fn;
    return f && f->kind == F_PRIM ? f : NULL;
}

int func_is_frozen(const Func *f)
{
    const Expr *d = f->attrs;
    if (!d || d->kind != E_DICT)
        return 0;
    for (int i = 0; i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i], *v = d->u.dict.vals[i];
        if (k->kind == E_STR && k->u.str.len == 13 && memcmp(k->u.str.s, "frozen_layout", 13) == 0)
            return v->kind == E_BOOL ? v->u.b : 1;
    }
    return 0;
}

void func_set_frozen(Module *m, Func *f)
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

static int count_var(const Expr *e, void *uses)
{
    if (e->kind == E_VAR && e->u.var->kind == VAR_RELAX)
        ptrmap_add(uses, e->u.var, 1);
    return 0;
}

/* The variables fn binds: its parameters and bindings. */
static size_t bound_vars(const Func *fn)
{
    size_t n = (size_t)fn->nparams;
    for (int b = 0; b < fn->nblocks; b++)
        n += (size_t)fn->blocks[b]->nbinds;
    return n;
}

void count_uses(const Func *fn, PtrMap *uses)
{
    ptrmap_reserve(uses, uses->n + bound_vars(fn));   /* about one entry per variable: no rehashing on the way */
    relax_walk_blocks(fn->blocks, fn->nblocks, count_var, uses);
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->noutputs; i++)
            ptrmap_add(uses, fn->blocks[b]->outputs[i], 1);
    relax_walk(fn->result, count_var, uses);
}

int has_control_flow(const Func *fn)
{
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            const Expr *v = fn->blocks[b]->binds[i]->value;
            if (v->kind == E_IF || v->kind == E_FUNC || (v->kind == E_CALL && v->u.call.callee && v->u.call.callee->kind != E_GLOBAL))
                return 1;
        }
    return 0;
}

int is_plannable(const Func *fn)
{
    return fn->kind == F_RELAX && !fn->is_impure && !has_control_flow(fn);
}

static int mark_global(const Expr *e, void *used)
{
    if (e->kind == E_GLOBAL)
        ptrmap_put(used, e->u.global.fn, 1);
    return 0;
}

void mark_globals(const Expr *e, PtrMap *used)
{
    relax_walk(e, mark_global, used);
}

static void mark_fixed_calls(const Expr *e, PtrMap *fixed)
{
    if (is_call_to(e, "R.call_tir") && call_kwarg(e, "tir_vars"))
        mark_globals(e, fixed);
}

void mark_fixed_signatures(const Module *m, PtrMap *fixed)
{
    for (int i = 0; i < m->nfuncs; i++) {
        const Func *fn = m->funcs[i];
        if (fn->kind != F_RELAX)
            continue;
        if (!is_plannable(fn)) {
            mark_func_globals(fn, fixed);
            continue;
        }
        for (int b = 0; b < fn->nblocks; b++)
            for (int k = 0; k < fn->blocks[b]->nbinds; k++)
                mark_fixed_calls(fn->blocks[b]->binds[k]->value, fixed);
    }
}

void mark_func_globals(const Func *fn, PtrMap *used)
{
    relax_walk_blocks(fn->blocks, fn->nblocks, mark_global, used);
    relax_walk(fn->result, mark_global, used);
}

/* Removes bindings no one uses, last first so chains go in one sweep. An
 * R.match_cast stays: it checks its value at run time (a shape that does
 * not match is an error), as TVM's FoldConstant keeps it
 * (test_fold_mixed_case), and what it binds reads the same. */
void remove_dead(Func *fn)
{
    PtrMap uses = { 0 };
    oom_defer(ptrmap_free_v, &uses);
    count_uses(fn, &uses);
    for (int b = fn->nblocks - 1; b >= 0; b--) {
        RBlock *rb = fn->blocks[b];
        char *keep = scratch_calloc((size_t)rb->nbinds + 1, 1);
        for (int i = rb->nbinds - 1; i >= 0; i--) {
            Binding *bd = rb->binds[i];
            keep[i] = ptrmap_get(&uses, bd->var, 0) > 0 || is_call_to(bd->value, "R.match_cast");
            if (!keep[i]) {
                PtrMap sub = { 0 };
                oom_defer(ptrmap_free_v, &sub);
                Func one = { 0 };
                RBlock ob = { 0 };
                RBlock *obp = &ob;
                Binding *bp = bd;
                ob.binds = &bp;
                ob.nbinds = 1;
                one.blocks = &obp;
                one.nblocks = 1;
                count_uses(&one, &sub);
                for (size_t s = 0; s < sub.cap; s++)
                    if (sub.slots[s].key)
                        ptrmap_add(&uses, sub.slots[s].key, -sub.slots[s].val);
                oom_keep(&sub);
                ptrmap_free(&sub);
            }
        }
        int k = 0;
        for (int i = 0; i < rb->nbinds; i++)
            if (keep[i])
                rb->binds[k++] = rb->binds[i];
        rb->nbinds = k;
        scratch_free(keep);
    }
    oom_keep(&uses);
    ptrmap_free(&uses);
}

void collect_names(const Func *fn, PtrMap *names)
{
    ptrmap_reserve(names, names->n + bound_vars(fn));
    for (int i = 0; i < fn->nparams; i++)
        ptrmap_put(names, fn->params[i]->name, 1);
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++)
            ptrmap_put(names, fn->blocks[b]->binds[i]->var->name, 1);
}

/* names only grows, so once base1 .. base(k-1) are taken they stay taken:
 * base's own entry keeps that k (at least 1), where the next search for
 * base starts instead of at 1 (a pass asking for the same base n times
 * made n^2 / 2 candidate names, each interned for good). */
Sym *fresh_name(Interner *in, PtrMap *names, const char *base)
{
    char buf[160];
    size_t n = strnlen(base, 120);   /* at most 120 bytes of base, as below */
    Sym *b = intern(in, base, n);
    int k = ptrmap_get(names, b, 0);
    if (!k) {
        ptrmap_put(names, b, 1);
        return b;
    }
    for (;; k++) {
        snprintf(buf, sizeof buf, "%.120s%d", base, k);
        Sym *s = intern_cstr(in, buf);
        if (!ptrmap_get(names, s, 0)) {
            ptrmap_put(names, s, 1);
            ptrmap_put(names, b, k + 1);
            return s;
        }
    }
}

Expr *var_ref(Arena *a, Var *v, Loc loc)
{
    Expr *e = expr_new(a, E_VAR, loc);
    e->u.var = v;
    return e;
}


int sinfo_shape(const StructInfo *s, DType *dt, int *ndim, int64_t *shape)
{
    if (!s || s->kind != SI_TENSOR || !s->shape || s->ndim < 0 || s->ndim > 16)
        return -1;
    for (int i = 0; i < s->ndim; i++)
        if (expr_const_int(s->shape[i], &shape[i]))
            return -1;
    *dt = s->dtype;
    *ndim = s->ndim;
    return 0;
}

int sinfo_same_tensor(const StructInfo *a, const StructInfo *b)
{
    DType da, db;
    int na, nb;
    int64_t sa[16], sb[16];
    if (sinfo_shape(a, &da, &na, sa) || sinfo_shape(b, &db, &nb, sb) || da != db || na != nb)
        return 0;
    return memcmp(sa, sb, (size_t)na * sizeof *sa) == 0;
}

Expr *call_new(Module *m, const char *op, Expr *x, const char *const *keys, Expr *const *vals, int nkw, Loc loc)
{
    Arena *a = &m->arena;
    Expr *e = expr_new(a, E_CALL, loc);
    e->u.call.op = intern_cstr(&m->names, op);
    e->u.call.nargs = 1;
    e->u.call.nkw = nkw;
    e->u.call.args = arena_array(a, (size_t)nkw + 2, sizeof(Expr *));
    e->u.call.kw = arena_array(a, (size_t)nkw + 1, sizeof(Sym *));
    e->u.call.args[0] = x;
    for (int k = 0; k < nkw; k++) {
        e->u.call.args[1 + k] = vals[k];
        e->u.call.kw[k] = intern_cstr(&m->names, keys[k]);
    }
    return e;
}

Expr *call_with_attrs(Module *m, const Expr *call, const char *const *keys, Expr *const *vals, int n)
{
    Arena *a = &m->arena;
    Expr *c = arena_alloc(a, sizeof *c);
    *c = *call;
    int nkw = call->u.call.nkw, na = call->u.call.nargs;
    c->u.call.args = arena_array(a, (size_t)(na + nkw + n) + 1, sizeof(Expr *));
    c->u.call.kw = arena_array(a, (size_t)(nkw + n) + 1, sizeof(Sym *));
    memcpy(c->u.call.args, call->u.call.args, (size_t)(na + nkw) * sizeof(Expr *));
    if (nkw)
        memcpy(c->u.call.kw, call->u.call.kw, (size_t)nkw * sizeof(Sym *));
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < c->u.call.nkw && strcmp(c->u.call.kw[k]->str, keys[i]) != 0)
            k++;
        if (k == c->u.call.nkw) {
            c->u.call.kw[k] = intern_cstr(&m->names, keys[i]);
            c->u.call.nkw++;
        }
        c->u.call.args[na + k] = vals[i];
    }
    return c;
}

Expr *pad_high(Module *m, Expr *x, int rank, const int64_t *more, Expr *value, Loc loc)
{
    int64_t pw[2 * OP_MAX_RANK] = { 0 };
    for (int d = 0; d < rank && d < OP_MAX_RANK; d++)
        pw[2 * d + 1] = more[d];
    static const char *const keys[] = { "pad_width", "pad_value" };
    return call_new(m, "R.nn.pad", x, keys,
                    (Expr *[]){ int_list(&m->arena, pw, 2 * rank, loc),
                                value ? value : expr_float(&m->arena, 0, DT_VOID, loc) }, 2, loc);
}

/* The output of map that is input dimension p itself when no other output
 * mentions p (the dimension is kept whole), else -1. */
int whole_dim(const Expr *map, int p)
{
    int q = -1;
    const Var *v = map->u.map.params[p];
    for (int k = 0; k < map->u.map.nout; k++) {
        const Expr *o = map->u.map.out[k];
        if (o->kind == E_VAR && o->u.var == v && q < 0)
            q = k;
        else if (expr_mentions(o, v))
            return -1;
    }
    return q;
}

Expr *int_list(Arena *a, const int64_t *v, int n, Loc loc)
{
    Expr *l = expr_new(a, E_LIST, loc);
    l->u.list.n = n;
    l->u.list.items = arena_array(a, (size_t)n + 1, sizeof(Expr *));
    for (int i = 0; i < n; i++)
        l->u.list.items[i] = expr_int(a, v[i], DT_VOID, loc);
    return l;
}

Expr *layout_transform_new(Module *m, Expr *x, Expr *map, Expr *pad, Loc loc)
{
    static const char *const keys[] = { "index_map", "pad_value" };
    return call_new(m, "R.layout_transform", x, keys, (Expr *[]){ map, pad }, pad ? 2 : 1, loc);
}

/* R.crop(x, start_indices=[0, ...], slice_sizes=t's shape, cropped_value=0.0). */
Expr *crop_new(Module *m, Expr *x, const TensorType *t, Loc loc)
{
    static const int64_t zeros[OP_MAX_RANK];
    static const char *const keys[] = { "start_indices", "slice_sizes", "cropped_value" };
    Expr *vals[] = { int_list(&m->arena, zeros, t->ndim, loc), int_list(&m->arena, t->shape, t->ndim, loc),
                     expr_float(&m->arena, 0, DT_VOID, loc) };
    return call_new(m, "R.crop", x, keys, vals, 3, loc);
}

int note_is_stop(const char *text)
{
    return strncmp(text, "left:", 5) == 0 || strncmp(text, "flow stopped", 12) == 0 ||
           strncmp(text, "kept:", 5) == 0;
}

void note_add(Notes *ns, Loc loc, const char *fmt, ...)
{
    if (ns->mute) {
        ns->acts += !note_is_stop(fmt);
        return;
    }
    if (ns->n == ns->cap) {
        int cap = ns->cap ? 2 * ns->cap : 16;
        Note *v = xrealloc(ns->v, (size_t)cap * sizeof *v);
        if (!v)
            return;
        ns->v = v;
        ns->cap = cap;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    Note *n = &ns->v[ns->n];
    n->loc = loc;
    n->seq = ns->n;
    n->text = xstrdup(buf);
    n->again = 0;
    if (n->text) {
        ns->n++;
        ns->acts += !note_is_stop(buf);
    }
}

const char *var_said(const Var *v)
{
    return !v->brief && v->said ? v->said->str : v->name->str;
}

void var_say(Module *m, Var *v, const char *pre, const Var *of, const char *post)
{
    if (!m->say || v->brief)
        return;   /* a phrase interned per made variable, which no one would read; a variable
                   * the reader made (var_read) stands for itself */
    char buf[400];
    snprintf(buf, sizeof buf, "%s%s%s", pre, of ? var_said(of) : "a constant", post);
    v->said = intern_cstr(&m->names, buf);
}

static int note_cmp(const void *pa, const void *pb)
{
    const Note *a = pa, *b = pb;
    if (a->loc.line != b->loc.line)
        return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col)
        return a->loc.col < b->loc.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* By place, then text, then order: a note equal to the one before it was said already. */
static int note_text_cmp(const void *pa, const void *pb)
{
    const Note *a = pa, *b = pb;
    if (a->loc.line != b->loc.line || a->loc.col != b->loc.col)
        return note_cmp(pa, pb);
    int c = strcmp(a->text, b->text);
    return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* What a note says happened, from its first word: a rewrite moved (moved,
 * sank, lifted, converted), folded away (composed, folded, evaluated,
 * removed) or left where it is (anything else). */
static int note_kind(const char *t)
{
    static const char *const moved[] = { "moved", "sank", "lifted", "converted" };
    static const char *const folded[] = { "composed", "folded", "evaluated", "removed" };
    size_t n = strcspn(t, " :");
    for (size_t i = 0; i < 4; i++) {
        if (strlen(moved[i]) == n && strncmp(t, moved[i], n) == 0)
            return 0;
        if (strlen(folded[i]) == n && strncmp(t, folded[i], n) == 0)
            return 1;
    }
    return 2;
}

/* Why a rewrite was left: the note's text after its first ": ", where a
 * reason about one value ("w3 is a constant", or a pass-made value named by
 * what it stands for, "the rewrite of w3 to OIHW4o has 2 other consumers")
 * reads as about any value ("a value is a constant"), so that equal reasons
 * count together. */
static const char *note_why(const char *t, char *buf, size_t cap)
{
    const char *c = strstr(t, ": ");
    const char *r = c ? c + 2 : t;
    size_t n = 0;
    while (r[n] == '_' || ((r[n] | 32) >= 'a' && (r[n] | 32) <= 'z') || (n && r[n] >= '0' && r[n] <= '9'))
        n++;
    if (strncmp(r, "the ", 4) == 0) {   /* var_say's phrases: no '.' or ':' before the verb */
        const char *is = strstr(r, " is "), *has = strstr(r, " has "), *v = is && (!has || is < has) ? is : has;
        n = v && !memchr(r, '.', (size_t)(v - r)) && !memchr(r, ':', (size_t)(v - r)) ? (size_t)(v - r) : n;
    }
    if (n && (strncmp(r + n, " is ", 4) == 0 || strncmp(r + n, " has ", 5) == 0)) {
        snprintf(buf, cap, "a value%s", r + n);
        return buf;
    }
    return r;
}

static int why_cmp(const void *pa, const void *pb)
{
    const Note *const *a = pa, *const *b = pb;
    char ba[512], bb[512];
    return strcmp(note_why((*a)->text, ba, sizeof ba), note_why((*b)->text, bb, sizeof bb));
}

/* The table --explain ends each pass with: how many rewrites it moved,
 * folded and left, and the reasons it left them, most frequent first. */
static void notes_summary(const Notes *ns, PassCtx *ctx, const char *pass)
{
    int count[3] = { 0, 0, 0 }, nleft = 0;
    const Note **left = xmalloc((size_t)ns->n * sizeof *left + 1);
    if (!left)
        oom_fail();
    for (int i = 0; i < ns->n; i++)
        if (!ns->v[i].again) {
            int k = note_kind(ns->v[i].text);
            count[k]++;
            if (k == 2)
                left[nleft++] = &ns->v[i];
        }
    fprintf(ctx->explain, "%s: %s: %d moved, %d folded, %d left\n", ctx->src->name, pass, count[0], count[1], count[2]);
    qsort(left, (size_t)nleft, sizeof *left, why_cmp);
    /* runs of one reason, printed by size (then text), at most eight */
    typedef struct { char why[512]; int n; } Why;
    Why *w = xmalloc((size_t)nleft * sizeof *w + 1);
    int nw = 0;
    if (!w)
        oom_fail();
    for (int i = 0; i < nleft; i++) {
        char buf[512];
        const char *why = note_why(left[i]->text, buf, sizeof buf);
        if (nw && strcmp(w[nw - 1].why, why) == 0) {
            w[nw - 1].n++;
        } else {
            snprintf(w[nw].why, sizeof w[nw].why, "%s", why);
            w[nw++].n = 1;
        }
    }
    for (int shown = 0; shown < 8 && shown < nw; shown++) {
        int best = shown;
        for (int i = shown + 1; i < nw; i++)
            if (w[i].n > w[best].n)
                best = i;
        Why t = w[shown];
        w[shown] = w[best];
        w[best] = t;
        fprintf(ctx->explain, "%s: %s:   left %d: %s\n", ctx->src->name, pass, w[shown].n, w[shown].why);
    }
    if (nw > 8)
        fprintf(ctx->explain, "%s: %s:   (and %d other reasons)\n", ctx->src->name, pass, nw - 8);
    free(w);
    free(left);
}

void notes_flush(Notes *ns, PassCtx *ctx, const char *pass)
{
    notes_emit(ns, ctx, pass, 1);
}

void notes_emit(Notes *ns, PassCtx *ctx, const char *pass, int table)
{
    if (ctx->explain && ns->n) {
        /* two sorts, not a search per note: a sweep may leave thousands of
         * notes at one place (every step of a rewrite moved up a chain) */
        qsort(ns->v, (size_t)ns->n, sizeof *ns->v, note_text_cmp);
        for (int i = 1; i < ns->n; i++)
            ns->v[i].again = ns->v[i].loc.line == ns->v[i - 1].loc.line && ns->v[i].loc.col == ns->v[i - 1].loc.col &&
                             strcmp(ns->v[i].text, ns->v[i - 1].text) == 0;
        qsort(ns->v, (size_t)ns->n, sizeof *ns->v, note_cmp);
        for (int i = 0; i < ns->n; i++)
            if (!ns->v[i].again)
                fprintf(ctx->explain, "%s:%d:%d: %s: %s\n", ctx->src->name, ns->v[i].loc.line, ns->v[i].loc.col, pass,
                        ns->v[i].text);
    }
    if (ctx->explain && table)
        notes_summary(ns, ctx, pass);
    for (int i = 0; i < ns->n; i++)
        free(ns->v[i].text);
    free(ns->v);
    memset(ns, 0, sizeof *ns);
}

int value_type(const Expr *e, TensorType *t)
{
    DType dt;
    int nd;
    int64_t sh[16];
    if (e->kind == E_CONST)
        return op_const_type(e, t);
    if (e->kind != E_VAR || sinfo_shape(e->u.var->sinfo, &dt, &nd, sh) || nd > OP_MAX_RANK)
        return -1;
    t->dtype = dt;
    t->ndim = nd;
    memcpy(t->shape, sh, (size_t)nd * sizeof *sh);
    return 0;
}

StructInfo *tuple_sinfo_new(Arena *a, StructInfo **fields, int n, Loc loc)
{
    StructInfo *s = arena_zalloc(a, sizeof *s);
    s->kind = SI_TUPLE;
    s->loc = loc;
    s->ndim = -1;
    s->nfields = n;
    s->fields = arena_array(a, (size_t)n + 1, sizeof *s->fields);
    memcpy(s->fields, fields, (size_t)n * sizeof *fields);
    return s;
}

static StructInfo *infer_one(Module *m, const Expr *e)
{
    TensorType args[OP_MAX_ARGS], outs[OP_MAX_ARGS];
    StructInfo *fields[OP_MAX_ARGS];
    const OpInfo *op;
    if (e->kind == E_VAR)
        return e->u.var->sinfo;
    if (e->kind == E_CONST)
        return tensor_sinfo_new(&m->arena, e->u.cst.dtype, e->u.cst.ndim, e->u.cst.shape, e->loc);
    if (e->kind == E_GETITEM) {
        const StructInfo *t = e->u.get.tuple->kind == E_VAR ? e->u.get.tuple->u.var->sinfo : NULL;
        return t && t->kind == SI_TUPLE && e->u.get.index >= 0 && e->u.get.index < t->nfields
                   ? t->fields[e->u.get.index] : NULL;
    }
    if (e->kind == E_TUPLE && e->u.list.n > 0 && e->u.list.n <= OP_MAX_ARGS) {
        for (int k = 0; k < e->u.list.n; k++)
            if (e->u.list.items[k]->kind != E_VAR || !(fields[k] = e->u.list.items[k]->u.var->sinfo))
                return NULL;
        return tuple_sinfo_new(&m->arena, fields, e->u.list.n, e->loc);
    }
    if (e->kind != E_CALL || e->u.call.callee)
        return NULL;
    if ((is_call_to(e, "R.hint_on_device") || is_call_to(e, "R.to_vdevice")) && e->u.call.nargs &&
        e->u.call.args[0]->kind == E_VAR && e->u.call.args[0]->u.var->sinfo) {
        /* the operand's type; where it is placed is realize-vdevice's to say */
        StructInfo *s = arena_alloc(&m->arena, sizeof *s);
        *s = *e->u.call.args[0]->u.var->sinfo;
        s->vdevice = NULL;
        return s;
    }
    if (call_tir_callee(e)) {
        const Expr *si = call_kwarg(e, "out_sinfo");
        if (si && si->kind == E_LIST && si->u.list.n <= OP_MAX_ARGS) {
            for (int k = 0; k < si->u.list.n; k++)
                if (si->u.list.items[k]->kind != E_SINFO || !(fields[k] = si->u.list.items[k]->u.sinfo))
                    return NULL;
            return tuple_sinfo_new(&m->arena, fields, si->u.list.n, e->loc);
        }
        return si && si->kind == E_SINFO ? si->u.sinfo : NULL;
    }
    if (is_layout_transform(e)) {
        if (value_type(e->u.call.args[0], &args[0]))
            return NULL;
        Arena tmp = { 0 };
        arena_scratch(&tmp);
        ImError err;
        IndexMap *im = im_from_expr(&tmp, call_kwarg(e, "index_map"), args[0].shape, &err);
        StructInfo *s = im && call_kwarg(e, "index_map")->u.map.nparams == args[0].ndim
                            ? tensor_sinfo_new(&m->arena, args[0].dtype, im->nout, im->obox, e->loc) : NULL;
        arena_scratch_end(&tmp);
        return s;
    }
    if (!(op = op_find(e->u.call.op->str)) || e->u.call.nargs < (op->tuple_arg ? 1 : op->ntensors))
        return NULL;
    /* R.concat((a, b), axis=1): the tensors are the items of a tuple written in place */
    const Expr *tup = op->tuple_arg ? e->u.call.args[0] : NULL;
    if (tup && (tup->kind != E_TUPLE || tup->u.list.n < 1 || tup->u.list.n > OP_MAX_ARGS))
        return NULL;
    int n = tup ? tup->u.list.n : op->ntensors;
    for (int k = 0; k < n; k++)
        if (value_type(tup ? tup->u.list.items[k] : e->u.call.args[k], &args[k]))
            return NULL;
    int nout;
    OpError err;
    if (op_infer(e, args, n, outs, &nout, &err))
        return NULL;
    if (op->tuple_out) {
        for (int k = 0; k < nout && k < OP_MAX_ARGS; k++)
            fields[k] = tensor_sinfo_new(&m->arena, outs[k].dtype, outs[k].ndim, outs[k].shape, e->loc);
        return tuple_sinfo_new(&m->arena, fields, nout < OP_MAX_ARGS ? nout : OP_MAX_ARGS, e->loc);
    }
    return tensor_sinfo_new(&m->arena, outs[0].dtype, outs[0].ndim, outs[0].shape, e->loc);
}

StructInfo *infer_value(Module *m, const Expr *e)
{
    return infer_one(m, e);
}

void infer_types(Module *m, Func *fn)
{
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            StructInfo *s = bd->var->sinfo;
            if (!s) {
                bd->var->sinfo = infer_one(m, bd->value);
            } else if (s->kind == SI_TENSOR && s->dtype == DT_VOID) {
                /* a shape without its dtype (the reader's type of
                 * R.broadcast_to(c, R.shape(...)) on a constant it had not
                 * typed): the dtype the operator gives, so that the bytes
                 * the value holds are known */
                StructInfo *t = infer_one(m, bd->value);
                if (t && t->kind == SI_TENSOR && t->dtype != DT_VOID && t->ndim == s->ndim) {
                    StructInfo *c = arena_alloc(&m->arena, sizeof *c);
                    *c = *s;
                    c->dtype = t->dtype;
                    bd->var->sinfo = c;
                }
            }
        }
}

int const_number(const Expr *e, double *v)
{
    if (!e || e->kind == E_NONE)
        return 0;
    if (e->kind == E_FLOAT)
        *v = e->u.f.v;
    else if (e->kind == E_INT)
        *v = (double)e->u.i.v;
    else if (e->kind == E_UNARY && e->u.un.op == U_NEG && const_number(e->u.un.a, v) == 1)
        *v = -*v;
    else
        return -1;
    return 1;
}

Stmt *stmt_single(Stmt *s)
{
    while (s && s->kind == S_SEQ && s->u.seq.n == 1)
        s = s->u.seq.items[0];
    return s;
}

int same_pad(const Expr *a, const Expr *b)
{
    double x = 0, y = 0;
    int ha = const_number(a, &x), hb = const_number(b, &y);
    /* bit for bit: a pad of -0.0 is not one of 0.0 (min(0, -0.0) is -0.0) */
    return ha == hb && (ha != 1 || (x == y && signbit(x) == signbit(y)) || (x != x && y != y));
}

int same_rewrite(Arena *scratch, const Expr *a, const Expr *b, const StructInfo *si)
{
    DType dt;
    int nd;
    int64_t sh[16];
    if (!a || !b || a->kind != E_INDEXMAP || b->kind != E_INDEXMAP)
        return 0;
    if (sinfo_shape(si, &dt, &nd, sh) || a->u.map.nparams != nd || b->u.map.nparams != nd)
        return expr_equal(a, b);
    ArenaMark mark = arena_mark(scratch);
    ImError err;
    IndexMap *x = im_from_expr(scratch, a, sh, &err), *y = x ? im_from_expr(scratch, b, sh, &err) : NULL;
    int eq = x && y && im_equal(x, y);
    arena_release(scratch, mark);
    return eq;
}

Binding *binding_fresh(Module *m, PtrMap *names, const char *base, int dataflow, StructInfo *si, Expr *value,
                       Loc loc)
{
    Var *v = var_new(&m->arena, fresh_name(&m->names, names, base), VAR_RELAX, loc);
    v->dataflow = dataflow != 0;
    v->sinfo = si;
    Binding *b = arena_zalloc(&m->arena, sizeof *b);
    b->loc = loc;
    b->var = v;
    b->annot = si;
    b->value = value;
    return b;
}

/* The slot of base in m's table of fresh_func's searches, emptied first
 * when functions went since it was filled (it holds only while the names
 * taken only grow); NULL when base has none. */
static size_t fresh_slot(Module *m, Sym *base, int grow)
{
    if (m->fresh.gen != m->index.gen || (grow && 2 * (m->fresh.n + 1) > m->fresh.cap)) {
        size_t cap = m->fresh.cap ? m->fresh.cap : 16;
        while (2 * (m->fresh.n + 1) > cap)
            cap *= 2;
        Sym **keys = m->fresh.keys;
        int *next = m->fresh.next;
        size_t old = m->fresh.cap;
        int keep = m->fresh.gen == m->index.gen;
        Sym **nk = scratch_calloc(cap, sizeof *nk);   /* m keeps its tables if the second cannot be had */
        int *nn = xmalloc(cap * sizeof *nn);
        oom_keep(nk);
        m->fresh.keys = nk;
        m->fresh.next = nn;
        m->fresh.cap = cap;
        m->fresh.n = 0;
        m->fresh.gen = m->index.gen;
        for (size_t i = 0; keep && i < old; i++)
            if (keys[i]) {
                size_t at = fresh_slot(m, keys[i], 0);
                m->fresh.keys[at] = keys[i];
                m->fresh.next[at] = next[i];
                m->fresh.n++;
            }
        free(keys);
        free(next);
    }
    size_t mask = m->fresh.cap - 1, i = ((uintptr_t)base >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (m->fresh.keys[i] && m->fresh.keys[i] != base)
        i = (i + 1) & mask;
    return i;
}

/* A name asked for again starts where the last search for its base ended
 * (base_k was free then, and base_1 .. base_(k-1) taken): a pass naming n
 * copies of one callee made n^2 / 2 names before. */
Sym *fresh_func(Module *m, const char *base)
{
    char buf[160];
    Sym *b = intern_cstr(&m->names, base), *s = b;
    if (!module_find(m, s))
        return s;
    size_t at = fresh_slot(m, b, 1);
    int k = m->fresh.keys[at] ? m->fresh.next[at] : 1;
    for (;; k++) {
        snprintf(buf, sizeof buf, "%.120s_%d", base, k);
        s = intern_cstr(&m->names, buf);
        if (!module_find(m, s))
            break;
    }
    at = fresh_slot(m, b, 1);
    if (!m->fresh.keys[at]) {
        m->fresh.keys[at] = b;
        m->fresh.n++;
    }
    m->fresh.next[at] = k;
    return s;
}

void module_add_func(Module *m, Func *f)
{
    module_add(m, f);
    m->bare = 0;
}

Expr *call_tir_new(Module *m, Func *f, Expr *const *items, int n, Expr *out_sinfo, Loc loc)
{
    Arena *a = &m->arena;
    Expr *g = expr_new(a, E_GLOBAL, loc);
    g->u.global.fn = f;
    g->u.global.name = f->name;
    Expr *args = expr_new(a, E_TUPLE, loc);
    args->u.list.n = n;
    args->u.list.items = arena_array(a, (size_t)n + 1, sizeof(Expr *));
    memcpy(args->u.list.items, items, (size_t)n * sizeof(Expr *));
    Expr *e = expr_new(a, E_CALL, loc);
    e->u.call.op = intern_cstr(&m->names, "R.call_tir");
    e->u.call.nargs = 2;
    e->u.call.nkw = 1;
    e->u.call.args = arena_array(a, 3, sizeof(Expr *));
    e->u.call.args[0] = g;
    e->u.call.args[1] = args;
    e->u.call.args[2] = out_sinfo;
    e->u.call.kw = arena_array(a, 1, sizeof(Sym *));
    e->u.call.kw[0] = intern_cstr(&m->names, "out_sinfo");
    return e;
}

int expr_mentions(const Expr *e, const Var *v)
{
    switch (e->kind) {
    case E_VAR:
        return e->u.var == v;
    case E_BIN:
        return expr_mentions(e->u.bin.a, v) || expr_mentions(e->u.bin.b, v);
    case E_UNARY:
        return expr_mentions(e->u.un.a, v);
    default:
        return 0;
    }
}

/* ---- copies of Relax functions that the passes can change freely ---- */

typedef struct Clone {
    Arena *a;
    PtrMap at;            /* old Var -> 1 + index into vars */
    Var **vars;           /* the copies (malloc'd: the module keeps only the variables) */
    int n, cap;
    const PtrMap *funcs;  /* old Func -> 1 + index into copies, for the functions copied together */
    Func *const *copies;
} Clone;

static Var *clone_var(Clone *C, Var *v)
{
    Var *c = var_copy(C->a, v);
    if (C->n == C->cap) {
        C->cap = C->cap ? 2 * C->cap : 64;
        Var **vars = xrealloc(C->vars, (size_t)C->cap * sizeof *vars);
        if (!vars)
            oom_fail();
        C->vars = vars;
    }
    C->vars[C->n++] = c;
    ptrmap_put(&C->at, v, C->n);
    return c;
}

static Var *cloned(const Clone *C, Var *v)
{
    int i = ptrmap_get(&C->at, v, 0);
    return i ? C->vars[i - 1] : v;
}

static Expr *clone_value(Clone *C, const Expr *e);
static void clone_body(Clone *C, Func *c, const Func *fn);

static Expr **clone_values(Clone *C, Expr *const *items, int n)
{
    Expr **out = arena_array(C->a, (size_t)n + 1, sizeof *out);
    for (int i = 0; i < n; i++)
        out[i] = clone_value(C, items[i]);
    return out;
}

static RBlock **clone_blocks(Clone *C, RBlock *const *blocks, int n)
{
    RBlock **out = arena_array(C->a, (size_t)n + 1, sizeof *out);
    for (int b = 0; b < n; b++) {
        const RBlock *rb = blocks[b];
        RBlock *nb = arena_alloc(C->a, sizeof *nb);
        *nb = *rb;
        nb->binds = arena_array(C->a, (size_t)rb->nbinds + 1, sizeof *nb->binds);
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = arena_alloc(C->a, sizeof *bd);
            *bd = *rb->binds[i];
            bd->var = clone_var(C, bd->var);   /* first: a local function may call itself */
            bd->value = clone_value(C, bd->value);
            nb->binds[i] = bd;
        }
        nb->outputs = arena_array(C->a, (size_t)rb->noutputs + 1, sizeof *nb->outputs);
        for (int i = 0; i < rb->noutputs; i++)
            nb->outputs[i] = cloned(C, rb->outputs[i]);
        out[b] = nb;
    }
    return out;
}

static RSeq *clone_seq(Clone *C, const RSeq *q)
{
    RSeq *c = arena_alloc(C->a, sizeof *c);
    *c = *q;
    c->blocks = clone_blocks(C, q->blocks, q->nblocks);
    c->result = clone_value(C, q->result);
    return c;
}

/* The nodes a pass may change in place are new, and so is a reference to a
 * function copied together with this one, which then names the copy; the
 * rest (literals, index maps, constants, struct info) is shared. */
static Expr *clone_value(Clone *C, const Expr *e)
{
    if (!e)
        return NULL;
    Expr *c;
    switch (e->kind) {
    case E_VAR:
    case E_TUPLE:
    case E_LIST:
    case E_DICT:
    case E_GETITEM:
    case E_CALL:
    case E_IF:
    case E_FUNC:
        c = expr_copy(C->a, e);   /* a variable's reference short, as the reader makes it */
        break;
    case E_GLOBAL: {
        int to = C->funcs ? ptrmap_get(C->funcs, e->u.global.fn, 0) : 0;
        if (!to)
            return (Expr *)e;
        c = expr_copy(C->a, e);
        c->u.global.fn = C->copies[to - 1];
        return c;
    }
    default:
        return (Expr *)e;
    }
    switch (e->kind) {
    case E_VAR:
        c->u.var = cloned(C, e->u.var);
        break;
    case E_TUPLE:
    case E_LIST:
        c->u.list.items = clone_values(C, e->u.list.items, e->u.list.n);
        break;
    case E_DICT:
        c->u.dict.keys = clone_values(C, e->u.dict.keys, e->u.dict.n);
        c->u.dict.vals = clone_values(C, e->u.dict.vals, e->u.dict.n);
        break;
    case E_GETITEM:
        c->u.get.tuple = clone_value(C, e->u.get.tuple);
        break;
    case E_IF:
        c->u.rif.cond = clone_value(C, e->u.rif.cond);
        c->u.rif.then = clone_seq(C, e->u.rif.then);
        c->u.rif.orelse = clone_seq(C, e->u.rif.orelse);
        break;
    case E_FUNC:
        c->u.global.fn = arena_alloc(C->a, sizeof *c->u.global.fn);
        clone_body(C, c->u.global.fn, e->u.global.fn);
        break;
    default:
        c->u.call.callee = clone_value(C, e->u.call.callee);
        c->u.call.args = clone_values(C, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
        c->u.call.kw = arena_array(C->a, (size_t)e->u.call.nkw + 1, sizeof *c->u.call.kw);
        if (e->u.call.nkw)
            memcpy(c->u.call.kw, e->u.call.kw, (size_t)e->u.call.nkw * sizeof *c->u.call.kw);
        break;
    }
    return c;
}

static void clone_body(Clone *C, Func *c, const Func *fn)
{
    *c = *fn;
    c->params = arena_array(C->a, (size_t)fn->nparams + 1, sizeof *c->params);
    for (int i = 0; i < fn->nparams; i++)
        c->params[i] = clone_var(C, fn->params[i]);
    c->blocks = clone_blocks(C, fn->blocks, fn->nblocks);
    c->result = clone_value(C, fn->result);
}

static void clone_free(void *p)
{
    Clone *C = p;
    ptrmap_free(&C->at);
    free(C->vars);
}

static void clone_into(Module *m, Func *c, const Func *fn, const PtrMap *funcs, Func *const *copies)
{
    Clone C = { .a = &m->arena, .funcs = funcs, .copies = copies };
    oom_defer(clone_free, &C);   /* its tables go if an allocation fails */
    ptrmap_reserve(&C.at, bound_vars(fn));
    clone_body(&C, c, fn);
    oom_keep(&C);
    clone_free(&C);
}

Func **relax_clone_funcs(Module *m, Func *const *funcs, int n)
{
    Func **out = arena_array(&m->arena, (size_t)n + 1, sizeof *out);
    PtrMap copies = { 0 };
    oom_defer(ptrmap_free_v, &copies);
    for (int f = 0; f < n; f++) {
        out[f] = funcs[f]->kind == F_RELAX ? arena_alloc(&m->arena, sizeof *out[f]) : funcs[f];
        if (out[f] != funcs[f])
            ptrmap_put(&copies, funcs[f], f + 1);
    }
    for (int f = 0; f < n; f++)
        if (out[f] != funcs[f])
            clone_into(m, out[f], funcs[f], &copies, out);
    oom_keep(&copies);
    ptrmap_free(&copies);
    return out;
}

Expr *identity_map(Arena *a, Interner *names, int rank, Loc loc)
{
    Expr *id = expr_new(a, E_INDEXMAP, loc);
    id->u.map.nparams = id->u.map.nout = rank;
    id->u.map.params = arena_array(a, (size_t)rank + 1, sizeof(Var *));
    id->u.map.out = arena_array(a, (size_t)rank + 1, sizeof(Expr *));
    for (int q = 0; q < rank; q++) {
        char nm[16];
        snprintf(nm, sizeof nm, "i%d", q);
        id->u.map.params[q] = var_new(a, intern_cstr(names, nm), VAR_TIR, loc);
        id->u.map.params[q]->dtype = DT_INT32;
        id->u.map.out[q] = var_ref(a, id->u.map.params[q], loc);
    }
    return id;
}
