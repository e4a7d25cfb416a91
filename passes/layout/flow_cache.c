/* flow's answers, kept per call (flow_call asks here before it computes
 * one), and the operand maps of a kept answer shared in the module.
 *
 * Calls repeat across a model (a chain of elementwise calls, the blocks of
 * a ResNet), and so do the maps that flow through them, so flow_call keeps
 * flow_tir's answer for each call it looks into. The key is exactly what
 * the answer is computed from: the operator, its attributes and operand
 * types (op_call_same: what legalize already shares a PrimFunc on), or
 * call_tir's callee; the map as written (parameter names and dtypes, every
 * node and its location: the operands' maps are written from it, not from
 * its normal form); the pad value bit for bit. The flowed copy carries the
 * location of the call it was made for, so a call that takes the copy into
 * the module (not keeping its form) builds its own. LOPT_FLOW_CACHE=off in
 * the environment keeps nothing; =check recomputes each answer found and
 * stops with an internal error when the two differ (make check runs so). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../printer/print.h"
#include "flow_internal.h"
#include "../../ir/oom.h"

static int mode;   /* 0 off, 1 on, 2 check: read once, before any thread reads it */
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

static void read_cache_mode(void)
{
    const char *v = getenv("LOPT_FLOW_CACHE");
    mode = v && strcmp(v, "off") == 0 ? 0 : v && strcmp(v, "check") == 0 ? 2 : 1;
}

int flow_cache_mode(void)
{
    pthread_once(&mode_once, read_cache_mode);
    return mode;
}

static uint64_t key_mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull + (v >> 29);
}

static uint64_t loc_key(Loc l)
{
    return (uint64_t)(uint32_t)l.line << 32 | (uint32_t)l.col;
}

static int param_of(const Expr *map, const Var *v)
{
    for (int p = 0; p < map->u.map.nparams; p++)
        if (map->u.map.params[p] == v)
            return p;
    return -1;
}

/* The hash of an output of map as written; -1 for a node the key does not
 * know (the answer is then not kept). */
static int written_hash(const Expr *e, const Expr *map, uint64_t *h)
{
    *h = key_mix(key_mix(*h, (uint64_t)e->kind), loc_key(e->loc));
    switch (e->kind) {
    case E_VAR: {
        int p = param_of(map, e->u.var);
        *h = key_mix(*h, p >= 0 ? (uint64_t)p : (uint64_t)(uintptr_t)e->u.var);
        return 0;
    }
    case E_INT:
        *h = key_mix(key_mix(*h, (uint64_t)e->u.i.v), (uint64_t)e->u.i.dtype);
        return 0;
    case E_BIN:
        *h = key_mix(*h, (uint64_t)e->u.bin.op);
        return written_hash(e->u.bin.a, map, h) || written_hash(e->u.bin.b, map, h) ? -1 : 0;
    case E_UNARY:
        *h = key_mix(*h, (uint64_t)e->u.un.op);
        return written_hash(e->u.un.a, map, h);
    case E_CAST:
        *h = key_mix(*h, (uint64_t)e->u.cast.dtype);
        return written_hash(e->u.cast.a, map, h);
    default:
        return -1;
    }
}

static int same_loc(Loc a, Loc b)
{
    return a.line == b.line && a.col == b.col;
}

/* Whether outputs a (of map ma) and b (of mb) are written alike, node for
 * node, locations included, parameters by position. */
static int written_equal(const Expr *a, const Expr *ma, const Expr *b, const Expr *mb)
{
    if (a->kind != b->kind || !same_loc(a->loc, b->loc))
        return 0;
    switch (a->kind) {
    case E_VAR: {
        int p = param_of(ma, a->u.var);
        return p >= 0 ? p == param_of(mb, b->u.var) : a->u.var == b->u.var;
    }
    case E_INT:
        return a->u.i.v == b->u.i.v && a->u.i.dtype == b->u.i.dtype;
    case E_BIN:
        return a->u.bin.op == b->u.bin.op && written_equal(a->u.bin.a, ma, b->u.bin.a, mb) &&
               written_equal(a->u.bin.b, ma, b->u.bin.b, mb);
    case E_UNARY:
        return a->u.un.op == b->u.un.op && written_equal(a->u.un.a, ma, b->u.un.a, mb);
    case E_CAST:
        return a->u.cast.dtype == b->u.cast.dtype && written_equal(a->u.cast.a, ma, b->u.cast.a, mb);
    default:
        return 0;
    }
}

static int same_var_written(const Var *a, const Var *b)
{
    return a->name->len == b->name->len && memcmp(a->name->str, b->name->str, a->name->len) == 0 &&
           a->kind == b->kind && a->dtype == b->dtype && same_loc(a->loc, b->loc);
}

/* Whether two index maps are written alike (see written_equal). */
static int map_written_equal(const Expr *a, const Expr *b)
{
    if (!a || !b || a->kind != E_INDEXMAP || b->kind != E_INDEXMAP)
        return a == b;
    if (!same_loc(a->loc, b->loc) || a->u.map.nparams != b->u.map.nparams || a->u.map.nout != b->u.map.nout)
        return 0;
    for (int p = 0; p < a->u.map.nparams; p++)
        if (!same_var_written(a->u.map.params[p], b->u.map.params[p]))
            return 0;
    for (int q = 0; q < a->u.map.nout; q++)
        if (!written_equal(a->u.map.out[q], a, b->u.map.out[q], b))
            return 0;
    return 1;
}

/* The key's hash for the call e (c: its callee) and the maps that flow
 * through it, one per result (maps[k] NULL: result k not rewritten; a call
 * of one result has one); -1 when the answer is not to be kept. */
int answer_hash(const Expr *e, const Callee *c, const Expr *const *maps, int nmaps, int has_pad, double pad,
                uint64_t *h)
{
    if (!flow_cache_mode())
        return -1;
    *h = c->op ? op_call_hash(e, c->args, c->n) : (uint64_t)(uintptr_t)c->f * 0x9E3779B97F4A7C15ull;
    *h = key_mix(*h, (uint64_t)nmaps);
    for (int k = 0; k < nmaps; k++) {
        const Expr *map = maps[k];
        if (!map) {
            *h = key_mix(*h, 0x5bd1e995u);
            continue;
        }
        if (map->kind != E_INDEXMAP)
            return -1;
        *h = key_mix(key_mix(*h, (uint64_t)map->u.map.nparams), loc_key(map->loc));
        for (int p = 0; p < map->u.map.nparams; p++)
            *h = key_mix(*h, map->u.map.params[p]->name->hash);
        for (int q = 0; q < map->u.map.nout; q++)
            if (written_hash(map->u.map.out[q], map, h))
                return -1;
    }
    uint64_t bits = 0;
    if (has_pad)
        memcpy(&bits, &pad, sizeof bits);
    *h = key_mix(key_mix(*h, (uint64_t)has_pad), bits);
    return 0;
}

FlowAnswer *answer_find(const FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *const *maps,
                        int nmaps, int has_pad, double pad)
{
    for (FlowAnswer *x = C->cap ? C->slots[h & (C->cap - 1)] : NULL; x; x = x->next) {
        if (x->hash != h || x->has_pad != has_pad || (has_pad && memcmp(&x->pad, &pad, sizeof pad)))
            continue;
        if (c->op ? !x->call || x->nargs != c->n || !op_call_same(x->call, x->args, e, c->args, c->n)
                  : x->call || x->callee != c->f)
            continue;
        int same = x->nmaps == nmaps;
        for (int k = 0; same && k < nmaps; k++)
            same = map_written_equal(x->maps[k], maps[k]);
        if (same)
            return x;
    }
    return NULL;
}

/* Keeps the answer computed (in C's arena) for the call e and the maps;
 * returns it. */
FlowAnswer *answer_add(FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *const *maps, int nmaps,
                       int has_pad, double pad, int failed, const FlowTir *r, const char *why)
{
    if (2 * (C->n + 1) > C->cap) {
        size_t cap = C->cap ? 2 * C->cap : 64;
        FlowAnswer **slots = xcalloc(cap, sizeof *slots);
        if (!slots)
            oom_fail();
        for (size_t i = 0; i < C->cap; i++)
            for (FlowAnswer *x = C->slots[i], *next; x; x = next) {
                next = x->next;
                x->next = slots[x->hash & (cap - 1)];
                slots[x->hash & (cap - 1)] = x;
            }
        free(C->slots);
        C->slots = slots;
        C->cap = cap;
    }
    FlowAnswer *x = arena_zalloc(&C->a, sizeof *x);
    x->hash = h;
    if (c->op) {
        x->call = e;
        x->nargs = c->n;
        x->args = arena_array(&C->a, (size_t)c->n + 1, sizeof *x->args);
        memcpy(x->args, c->args, (size_t)c->n * sizeof *x->args);
    } else {
        x->callee = c->f;
    }
    x->nmaps = nmaps;
    x->maps = arena_array(&C->a, (size_t)nmaps + 1, sizeof *x->maps);
    for (int k = 0; k < nmaps; k++)
        x->maps[k] = maps[k] ? clone_expr(&C->a, &(Subst){ 0 }, maps[k]) : NULL;
    x->has_pad = has_pad;
    x->pad = pad;
    x->failed = failed;
    x->why = failed ? arena_strndup(&C->a, why, strlen(why)) : NULL;
    if (!failed)
        x->r = *r;
    x->next = C->slots[h & (C->cap - 1)];
    C->slots[h & (C->cap - 1)] = x;
    C->n++;
    return x;
}

void flow_cache_free(FlowCache *C)
{
    free(C->slots);
    arena_free(&C->a);
    memset(C, 0, sizeof *C);
}

static char *func_text(const Func *f, const Sym *name)
{
    Func g = *f;
    MemOut o;
    g.name = (Sym *)name;
    print_prim_func(memout_open(&o), &g);
    if (memout_close(&o))
        oom_fail();   /* a stream in memory fails only for want of it */
    return o.buf;
}

/* LOPT_FLOW_CACHE=check: the answer x found for the call e against the one
 * just computed. */
void answer_check(const FlowAnswer *x, const Expr *e, int failed, const FlowTir *r, const char *why)
{
    int same = x->failed == failed;
    if (same && failed)
        same = strcmp(x->why, why) == 0;
    const FlowTir *a = &x->r;
    if (same && !failed) {
        same = a->nargs == r->nargs && a->has_pad == r->has_pad && a->nout == r->nout &&
               (!a->has_pad || memcmp(&a->pad, &r->pad, sizeof a->pad) == 0);
        for (int k = 0; same && k < a->nargs && k < FLOW_MAX_ARGS; k++)
            same = a->padded[k] == r->padded[k] && map_written_equal(a->map[k], r->map[k]);
        for (int k = 0; same && k < a->nout; k++)
            same = a->out[k].ndim == r->out[k].ndim && a->out[k].dtype == r->out[k].dtype &&
                   memcmp(a->out[k].shape, r->out[k].shape, (size_t)a->out[k].ndim * sizeof(int64_t)) == 0;
        for (int d = 0; same && d < a->out[0].ndim && d < 16; d++)
            same = (a->yvars[d] == NULL) == (r->yvars[d] == NULL) &&
                   (!a->yvars[d] || same_var_written(a->yvars[d], r->yvars[d]));
        if (same) {
            char *ta = func_text(a->f, r->f->name), *tb = func_text(r->f, r->f->name);
            same = strcmp(ta, tb) == 0;
            free(ta);
            free(tb);
        }
    }
    if (!same) {
        fprintf(stderr, "lopt: internal error: LOPT_FLOW_CACHE=check: flow's kept answer for the call at %d:%d "
                "differs from computing it again\n", e->loc.line, e->loc.col);
        abort();
    }
}

/* A copy of an index map in a, its substitution of parameters kept on the
 * stack (a map copied per flowed call would leave it behind in a). */
Expr *map_copy(Arena *a, const Expr *map)
{
    enum { STACK_PARAMS = 2 * IM_MAX_RANK };
    const Var *from[STACK_PARAMS];
    Expr *to[STACK_PARAMS];
    Subst s = { .from = from, .to = to, .cap = STACK_PARAMS };
    return clone_expr(a, &s, map);
}

/* The operand map k of a kept answer as a map of its own (a node of its
 * own, so it is another map than any other rewrite's, as expr_equal and
 * legalize's key see maps), whose parameters and outputs, which nothing
 * changes in place, are one copy in the module shared by every call that
 * found the answer (a copy each was most of a flowed call's memory). */
Expr *map_share(Module *m, FlowAnswer *x, int k)
{
    if (!x->kept[k])
        x->kept[k] = map_copy(&m->arena, x->r.map[k]);
    Expr *e = arena_alloc(&m->arena, sizeof *e);
    *e = *x->kept[k];
    return e;
}

/* ---- flowed copies shared ----
 *
 * Calls alike take alike copies: a chain of batch_norms a rewrite flows
 * through gives each call the same PrimFunc but for its name. A call whose
 * copy prints as one an earlier call of the sweep placed in the module
 * calls that one, as TVM's block builder shares a function with one equal
 * to it, so the module holds one PrimFunc where it held one per call. The
 * copies are compared by their text printed under one name; a copy found
 * must still be in the module. It does not depend on the answers kept
 * above (LOPT_FLOW_CACHE=off shares alike). */

static uint64_t text_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void placed_grow(struct Placed *P)
{
    size_t cap = P->cap ? 2 * P->cap : 16;
    struct Placed Q = { scratch_calloc(cap, sizeof *Q.h), NULL, NULL, P->n, cap };
    Q.text = scratch_calloc(cap, sizeof *Q.text);
    Q.f = scratch_calloc(cap, sizeof *Q.f);
    oom_keep(Q.h);   /* all three had: P's from here on */
    oom_keep(Q.text);
    oom_keep(Q.f);
    for (size_t i = 0; i < P->cap; i++)
        if (P->text[i]) {
            size_t at = P->h[i] & (cap - 1);
            while (Q.text[at])
                at = (at + 1) & (cap - 1);
            Q.h[at] = P->h[i];
            Q.text[at] = P->text[i];
            Q.f[at] = P->f[i];
        }
    free(P->h);
    free(P->text);
    free(P->f);
    *P = Q;
}

Func *flow_place(Sweep *S, const Func *f, int *made)
{
    Module *m = S->m;
    char *text = func_text(f, intern_cstr(&m->names, "flowed"));
    oom_defer(free, text);   /* until it is the table's, or freed below */
    uint64_t h = text_hash(text);
    struct Placed *P = &S->placed;
    if (2 * (P->n + 1) > P->cap)
        placed_grow(P);
    size_t at = h & (P->cap - 1);
    for (; P->text[at]; at = (at + 1) & (P->cap - 1))
        if (P->h[at] == h && strcmp(P->text[at], text) == 0 && module_find(m, P->f[at]->name) == P->f[at]) {
            scratch_free(text);
            *made = 0;
            return P->f[at];
        }
    Func *g = clone_prim(&m->arena, f, f->name);
    oom_keep(text);
    P->h[at] = h;
    P->text[at] = text;
    P->f[at] = g;
    P->n++;
    *made = 1;
    return g;
}

Func *answer_placed(Module *m, const FlowAnswer *x)
{
    return x && x->placed && module_find(m, x->placed->name) == x->placed ? x->placed : NULL;
}

void flow_place_free(Sweep *S)
{
    struct Placed *P = &S->placed;
    for (size_t i = 0; i < P->cap; i++)
        free(P->text[i]);
    free(P->h);
    free(P->text);
    free(P->f);
    memset(P, 0, sizeof *P);
}
