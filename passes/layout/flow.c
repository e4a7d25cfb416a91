/* flow: moves each layout rewrite from a call's result to its operands
 * (seed 000's backward flow), in one sweep from the last binding to the
 * first. A rewrite y = R.layout_transform(x, M) whose x comes from a call,
 * with every use of x a rewrite by the same M, replaces that call by a call
 * of the callee rewritten through M (flowtir.c); the operands get the
 * rewrites the callee's reads demand, and the sweep meets those rewrites
 * again when it reaches the operands' producers. Rewrites of a tuple's items
 * (t = split(x); a = t[0]; lt(a, M)) wait for the sweep to reach t's call and
 * flow through it together. A move that would leave more rewrites than it
 * removes, judging by the graph's shape, is not made (left_behind). Before
 * the sweep, rewrites sink forward past elementwise calls (sink_block).
 * Those local choices can disagree, so flow ends by running flow,fold on a
 * copy until the module comes back, and answers the cheapest module of that
 * cycle: flow,fold run again then changes nothing (pass_flow). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../interp/tensor.h"
#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../../printer/print.h"
#include "../graph.h"
#include "convert.h"
#include "flow.h"
#include "flowtir.h"
#include "fold.h"

typedef struct Demand {
    Expr *map;
    const Expr *pad;
    int count;            /* rewrites of the value seen so far */
    int conflict;
    int *slots;           /* their places in the output list */
    int nslots, cap;
} Demand;

/* A rewrite of item k of a tuple some call returns (a = t[k]; b = lt(a, M)),
 * waiting for the sweep to reach that call. */
typedef struct ItemDem {
    Binding *get;         /* a = t[k] */
    int slot;             /* its place in the output list */
    int item;
    Expr *map;
    const Expr *pad;
    int *slots;           /* the rewrites of a */
    int nslots;
    struct ItemDem *next;
} ItemDem;

/* Flow's answer for one call (flow_tir's, before anything of the module
 * changes), kept under an exact key: see answer_find. */
typedef struct FlowAnswer {
    uint64_t hash;
    const Expr *call;          /* an operator call: its attributes are the key's */
    TensorType *args;          /* and its operand types, nargs of them */
    int nargs;
    const Func *callee;        /* call_tir's callee */
    Expr *map;                 /* a copy of the map that flowed */
    int has_pad;
    double pad;
    int failed;
    char *why;                 /* when it failed */
    FlowTir r;                 /* r.f and r.map live in the cache's arena */
    Expr *kept[FLOW_MAX_ARGS]; /* r.map copied into the module once, for map_share */
    struct FlowAnswer *next;
} FlowAnswer;

typedef struct FlowCache {
    Arena a;
    FlowAnswer **slots;        /* chains by hash */
    size_t cap, n;
} FlowCache;

typedef struct Sweep {
    Module *m;
    Func *fn;
    PassCtx *ctx;
    Notes *notes;
    PtrMap uses;          /* Var -> uses in fn */
    PtrMap def;           /* Var -> 1 + index of its binding in the block */
    PtrMap names;
    RBlock *rb;           /* the block being swept */
    int *memo;            /* per binding index: left_behind's answer in guess memo_gen */
    struct Producer *prod;   /* per binding index: what left_behind reads of its value */
    int *defs;            /* the places of the producers' operands */
    int *nuses;           /* per binding index: its variable's uses (S->uses, kept alike) */
    int *memo_gen, gen;
    PtrMap inputs;        /* left_behind: the graph inputs one guess has counted */
    PtrMap sunk;          /* the rewrites y_t that sinking made */
    int64_t size;         /* left_behind: the elements of the value whose rewrite moves */
    Demand *dem;          /* per binding index */
    ItemDem **items;      /* per binding index: the rewrites of its tuple's items */
    Binding **out;        /* the new bindings, last first */
    char *dead;
    int nout, cap;
    int moved;
    Arena scratch;        /* the index-map algebra's working memory, reused call after call */
    Arena stage;          /* legalized operators and flowed copies until they are kept */
    FlowCache cache;      /* flow_call's answers, for the calls of this sweep */
    StructInfo *last_sinfo;   /* the type of the last rewrite made (rewrite_sinfo) */
    const PtrMap *plan;   /* realizing a plan: the calls to move through, and no others */
} Sweep;

static int push_out(Sweep *S, Binding *b)
{
    if (S->nout == S->cap) {
        int cap = S->cap ? 2 * S->cap : 64;
        Binding **o = realloc(S->out, (size_t)cap * sizeof *o);
        char *d = realloc(S->dead, (size_t)cap);
        if (!o || !d) {
            free(o ? o : S->out);
            free(d ? d : S->dead);
            S->out = NULL;
            S->dead = NULL;
            fprintf(stderr, "lopt: out of memory\n");
            abort();
        }
        S->out = o;
        S->dead = d;
        S->cap = cap;
    }
    S->out[S->nout] = b;
    S->dead[S->nout] = 0;
    return S->nout++;
}

static void demand_add(Sweep *S, Var *x, Expr *map, const Expr *pad, int slot)
{
    int d = ptrmap_get(&S->def, x, 0) - 1;
    if (d < 0)
        return;
    Demand *D = &S->dem[d];
    if (D->count == 0) {
        D->map = map;
        D->pad = pad;
    } else if (!same_pad(D->pad, pad) || !same_rewrite(&S->scratch, D->map, map, x->sinfo)) {
        D->conflict = 1;
    }
    D->count++;
    if (D->nslots == D->cap) {
        D->cap = D->cap ? 2 * D->cap : 4;
        int *s = realloc(D->slots, (size_t)D->cap * sizeof *s);
        if (!s)
            abort();
        D->slots = s;
    }
    D->slots[D->nslots++] = slot;
}

/* An elementwise operator keeps its form when the rewritten function reads
 * each operand at the new result index, aligned from the right, with
 * extent-1 dimensions read at 0: numpy broadcasting in the new layout. */
static int broadcast_reads(const Expr *e, const FlowTir *r, int *ok);

static int broadcast_stmt(const Stmt *s, const FlowTir *r, int *ok)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            broadcast_stmt(s->u.seq.items[i], r, ok);
        break;
    case S_FOR:
        broadcast_stmt(s->u.loop.body, r, ok);
        break;
    case S_BLOCK:
        broadcast_stmt(s->u.block->init, r, ok);
        broadcast_stmt(s->u.block->body, r, ok);
        if (s->u.block->where)
            *ok = 0;
        break;
    case S_STORE:
        broadcast_reads(s->u.store.value, r, ok);
        break;
    default:
        *ok = 0;
    }
    return 0;
}

static int broadcast_reads(const Expr *e, const FlowTir *r, int *ok)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case E_LOAD: {
        const Buffer *b = e->u.load.buf;
        int n = e->u.load.n, off = r->out[0].ndim - n;
        if (off < 0)
            *ok = 0;
        for (int d = 0; d < n && *ok; d++) {
            const Expr *x = e->u.load.idx[d];
            int64_t c, ext;
            if (x->kind == E_VAR && x->u.var == r->yvars[d + off])
                continue;
            if (expr_const_int(x, &c) == 0 && c == 0 && expr_const_int(b->shape[d], &ext) == 0 && ext == 1)
                continue;
            *ok = 0;
        }
        break;
    }
    case E_BIN:
        broadcast_reads(e->u.bin.a, r, ok);
        broadcast_reads(e->u.bin.b, r, ok);
        break;
    case E_UNARY:
        broadcast_reads(e->u.un.a, r, ok);
        break;
    case E_CAST:
        broadcast_reads(e->u.cast.a, r, ok);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            broadcast_reads(e->u.call.args[i], r, ok);
        break;
    default:
        break;
    }
    return 0;
}

/* Whether each output of map is a parameter, no two the same (a map that
 * moves dimensions and may drop some): perm[q] is output q's parameter. */
static int picks_of(const Expr *map, int *perm)
{
    for (int q = 0; q < map->u.map.nout; q++) {
        const Expr *o = map->u.map.out[q];
        perm[q] = -1;
        for (int p = 0; o->kind == E_VAR && p < map->u.map.nparams; p++)
            if (map->u.map.params[p] == o->u.var)
                perm[q] = p;
        for (int k = 0; k < q && perm[q] >= 0; k++)
            if (perm[k] == perm[q])
                perm[q] = -1;
        if (perm[q] < 0)
            return -1;
    }
    return 0;
}

/* The permutation a map is, perm[q] = the input at output q; -1 otherwise. */
static int perm_of(const Expr *map, int *perm)
{
    return map->u.map.nout == map->u.map.nparams ? picks_of(map, perm) : -1;
}

/* An integer written in an attribute, -1 as well as 1. */
static int attr_int(const Expr *e, int64_t *v)
{
    if (expr_const_int(e, v) == 0)
        return 0;
    if (e->kind == E_UNARY && e->u.un.op == U_NEG && expr_const_int(e->u.un.a, v) == 0) {
        *v = -*v;
        return 0;
    }
    return -1;
}

/* A reduction keeps its form under permutations: sum(axis=[2]) over NCHW is
 * sum(axis=[1]) over NHWC when the kept axes come out in the result's new
 * order. Returns the new axis list, or NULL. */
/* R.sum, R.mean, R.max, R.min: the reductions whose axes reduce_axes
 * renumbers. */
static int is_reduction(const Expr *call)
{
    static const char *const names[] = { "R.sum", "R.mean", "R.max", "R.min" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (is_call_to(call, names[i]))
            return 1;
    return 0;
}

static Expr *reduce_axes(Module *m, const Expr *call, const Expr *omap, const Expr *imap, int rank, Loc loc)
{
    if (!is_reduction(call))
        return NULL;
    int pi[16], sigma[16], red[16] = { 0 }, kappa[16], nk = 0;
    if (rank > 16 || perm_of(omap, pi))
        return NULL;
    if (imap ? perm_of(imap, sigma) || imap->u.map.nparams != rank : 0)
        return NULL;
    for (int q = 0; !imap && q < rank; q++)
        sigma[q] = q;
    const Expr *ax = call_kwarg(call, "axis"), *kd = call_kwarg(call, "keepdims");
    int keep = kd && kd->kind == E_BOOL && kd->u.b;
    int64_t v;
    if (!ax || ax->kind == E_NONE)
        return NULL;
    if (ax->kind == E_LIST || ax->kind == E_TUPLE) {
        for (int i = 0; i < ax->u.list.n; i++) {
            if (attr_int(ax->u.list.items[i], &v))
                return NULL;
            if (v < 0)
                v += rank;
            if (v < 0 || v >= rank)
                return NULL;
            red[v] = 1;
        }
    } else {
        return NULL;
    }
    /* original output dimension k is input dimension kappa[k] */
    for (int d = 0; d < rank; d++)
        if (keep || !red[d])
            kappa[nk++] = d;
    if (omap->u.map.nparams != nk)
        return NULL;
    int k = 0;
    for (int q = 0; q < rank; q++) {
        if (!keep && red[sigma[q]])
            continue;
        if (k >= nk || kappa[pi[k]] != sigma[q])
            return NULL;
        k++;
    }
    /* the new list names the same axes in the same order, so the sum adds
     * its terms in the order it did (the legalized loops follow the list) */
    int at[16];
    for (int q = 0; q < rank; q++)
        at[sigma[q]] = q;
    Expr *l = expr_new(&m->arena, E_LIST, loc);
    l->u.list.items = arena_array(&m->arena, (size_t)rank + 1, sizeof(Expr *));
    for (int i = 0; i < ax->u.list.n; i++) {
        attr_int(ax->u.list.items[i], &v);
        if (v < 0)
            v += rank;
        if (red[v] == 1)
            l->u.list.items[l->u.list.n++] = expr_int(&m->arena, at[v], DT_VOID, loc);
        red[v] = 2;
    }
    return l;
}


/* softmax, log_softmax, batch_norm, split, pad, strided_slice, layer_norm, flip, repeat
 * (along an axis), tile and reverse_sequence keep their form when the rewrite of the result and of the operand is the same
 * one-to-one map and keeps whole each dimension the operator acts on: the
 * attributes name the dimensions' new places (NHWC's softmax over C is axis
 * 3; NCHW4c's pad of H and W pads dimensions 2 and 3 of five; layer_norm's
 * axes keep their order, so its gamma and beta keep their shape). Returns
 * the new call, or NULL. */
static Expr *keep_light(Sweep *S, const Expr *call, const Expr *omap, const Expr *imap, const TensorType *in)
{
    Module *m = S->m;
    const char *op = call->u.call.op->str;
    int sm = !strcmp(op, "R.nn.softmax") || !strcmp(op, "R.nn.log_softmax") || !strcmp(op, "R.nn.batch_norm") ||
             !strcmp(op, "R.split") ||
             !strcmp(op, "R.flip") || (!strcmp(op, "R.repeat") && call_kwarg(call, "axis") &&
                                       call_kwarg(call, "axis")->kind != E_NONE),
        pad = !strcmp(op, "R.nn.pad") || !strcmp(op, "R.pad"),
        sl = !strcmp(op, "R.strided_slice") || !strcmp(op, "R.nn.layer_norm"), tl = !strcmp(op, "R.tile"),
        rs = !strcmp(op, "R.reverse_sequence");
    int r = in->ndim;
    if (!(sm || pad || sl || tl || rs) || !imap || r > IM_MAX_RANK || omap->u.map.nparams != r || imap->u.map.nparams != r ||
        omap->u.map.nout != imap->u.map.nout)
        return NULL;
    ArenaMark mark = arena_mark(&S->scratch);
    ImError err;
    IndexMap *a = im_from_expr(&S->scratch, omap, in->shape, &err);
    IndexMap *b = a ? im_from_expr(&S->scratch, imap, in->shape, &err) : NULL;
    int same = b && im_classify(b, NULL, NULL) == IM_BIJECTIVE && im_equal(a, b);
    arena_release(&S->scratch, mark);
    if (!same)
        return NULL;
    int q[IM_MAX_RANK], nout = omap->u.map.nout;
    for (int p = 0; p < r; p++)
        if ((q[p] = whole_dim(omap, p)) != whole_dim(imap, p))
            return NULL;
    const char *keys[4];
    Expr *vals[4];
    int nset = 0, ax;
    if (sm) {
        if (op_axis(call, r, &ax) || q[ax] < 0)
            return NULL;
        keys[nset] = "axis";
        vals[nset++] = expr_int(&m->arena, q[ax], DT_VOID, call->loc);
    }
    if (rs) {
        /* both axes, written out (their defaults, 1 and 0, may move) */
        static const char *const rkeys[2] = { "seq_axis", "batch_axis" };
        for (int i = 0; i < 2; i++) {
            const Expr *v = call_kwarg(call, rkeys[i]);
            int64_t x = 1 - i;
            if ((v && attr_int(v, &x)) || (x < 0 ? x += r : x) < 0 || x >= r || q[x] < 0)
                return NULL;
            keys[nset] = rkeys[i];
            vals[nset++] = expr_int(&m->arena, q[x], DT_VOID, call->loc);
        }
    }
    for (int k = 0; k < call->u.call.nkw && nset < 4; k++) {
        const char *key = call->u.call.kw[k]->str;
        Expr *v = call->u.call.args[call->u.call.nargs + k], *nv = NULL;
        int64_t x;
        if (sl && !strcmp(key, "axes")) {
            /* a list, or (layer_norm) one integer */
            int one = v->kind != E_LIST && v->kind != E_TUPLE, n = one ? 1 : v->u.list.n;
            if (one && attr_int(v, &x))
                return NULL;
            nv = expr_new(&m->arena, E_LIST, v->loc);
            nv->u.list.items = arena_array(&m->arena, (size_t)n + 1, sizeof(Expr *));
            for (int i = 0; i < n; i++) {
                if ((!one && attr_int(v->u.list.items[i], &x)) || (x < 0 ? x += r : x) < 0 || x >= r || q[x] < 0)
                    return NULL;
                nv->u.list.items[nv->u.list.n++] = expr_int(&m->arena, q[x], DT_VOID, v->loc);
            }
        } else if (tl && !strcmp(key, "repeats")) {
            /* one count per dimension, moved with it; a dimension not kept whole repeats once */
            if ((v->kind != E_LIST && v->kind != E_TUPLE) || v->u.list.n != r)
                return NULL;
            nv = expr_new(&m->arena, E_LIST, v->loc);
            nv->u.list.n = nout;
            nv->u.list.items = arena_array(&m->arena, (size_t)nout + 1, sizeof(Expr *));
            for (int i = 0; i < nout; i++)
                nv->u.list.items[i] = expr_int(&m->arena, 1, DT_VOID, v->loc);
            for (int p = 0; p < r; p++) {
                if (attr_int(v->u.list.items[p], &x) || (x != 1 && q[p] < 0))
                    return NULL;
                if (q[p] >= 0)
                    nv->u.list.items[q[p]] = v->u.list.items[p];
            }
        } else if (pad && !strcmp(key, "pad_width")) {
            if ((v->kind != E_LIST && v->kind != E_TUPLE) || v->u.list.n != 2 * r)
                return NULL;
            nv = expr_new(&m->arena, E_LIST, v->loc);
            nv->u.list.n = 2 * nout;
            nv->u.list.items = arena_array(&m->arena, (size_t)(2 * nout) + 1, sizeof(Expr *));
            for (int i = 0; i < 2 * nout; i++)
                nv->u.list.items[i] = expr_int(&m->arena, 0, DT_VOID, v->loc);
            for (int p = 0; p < r; p++)
                for (int s = 0; s < 2; s++) {
                    if (attr_int(v->u.list.items[2 * p + s], &x))
                        return NULL;
                    if (x != 0 && q[p] < 0)
                        return NULL;
                    if (q[p] >= 0)
                        nv->u.list.items[2 * q[p] + s] = v->u.list.items[2 * p + s];
                }
        }
        if (nv) {
            keys[nset] = key;
            vals[nset++] = nv;
        }
    }
    if ((sl && !call_kwarg(call, "axes")) || (tl && nset == 0))
        return NULL;
    return call_with_attrs(m, call, keys, vals, nset);
}

/* The operators whose form flow keeps, attributes renumbered, where the
 * layout keeps whole the dimensions they act on: keep_light's, the
 * reductions (reduce_axes), expand_dims and squeeze (keep_unit_axes) and
 * concat (flow_concat). lopt --list-ops reads it through flow_op_form. */
static const char *const keeps_form[] = {
    "R.nn.softmax", "R.nn.log_softmax", "R.nn.batch_norm", "R.split", "R.flip", "R.repeat", "R.nn.pad", "R.pad",
    "R.strided_slice", "R.nn.layer_norm", "R.tile", "R.reverse_sequence", "R.sum", "R.mean", "R.max", "R.min", "R.expand_dims",
    "R.squeeze", "R.concat",
};

const char *flow_op_form(const OpInfo *op)
{
    if (op->category == LAYOUT_AGNOSTIC)
        return "keeps form";
    if (op->category == LAYOUT_HEAVY)
        return convert_layout_knows(op->name) ? "convert-layout" : "stops";
    for (size_t i = 0; i < sizeof keeps_form / sizeof *keeps_form; i++)
        if (strcmp(op->name, keeps_form[i]) == 0)
            return "renumbers";
    return "call_tir";
}

/* expand_dims and squeeze under a permutation: y = expand_dims(x, axis=A)
 * rewritten by the permutation omap is expand_dims(x', axis=A'), x' = arg
 * the operand's rewrite imap (a permutation of x that may drop dimensions
 * of extent 1, or x itself when NULL), when the kept dimensions come out of
 * omap in x''s order; A' is where omap puts the dimensions x' lacks. squeeze
 * the other way round. With nothing left to insert or remove the value is
 * x' itself. NULL when that cannot be said. */
static Expr *keep_unit_axes(Sweep *S, const Expr *call, const Expr *omap, const Expr *imap, const TensorType *in,
                            Expr *arg)
{
    Module *m = S->m;
    int expand = is_call_to(call, "R.expand_dims");
    if (!expand && !is_call_to(call, "R.squeeze"))
        return NULL;
    int r = in->ndim, R = omap->u.map.nparams, perm[16], sigma[16], pos[16], unit[16] = { 0 };
    int rp = imap ? imap->u.map.nout : r;   /* x''s rank */
    int Rp = omap->u.map.nout;              /* the rewritten result's rank: omap may drop dimensions of extent 1 */
    if (r > 16 || R > 16 || Rp > R || (imap && (imap->u.map.nparams != r || rp > r)) || picks_of(omap, perm))
        return NULL;
    for (int d = 0; d < r; d++)
        pos[d] = imap ? -1 : d;
    for (int j = 0; j < rp; j++) {
        const Expr *o = imap ? imap->u.map.out[j] : NULL;
        sigma[j] = imap ? -1 : j;
        for (int p = 0; o && o->kind == E_VAR && p < r; p++)
            if (imap->u.map.params[p] == o->u.var)
                sigma[j] = p;
        if (sigma[j] < 0 || (imap && pos[sigma[j]] >= 0))
            return NULL;
        pos[sigma[j]] = j;
    }
    for (int d = 0; d < r; d++)
        if (pos[d] < 0 && in->shape[d] != 1)
            return NULL;   /* x' drops only dimensions of extent 1 */
    /* unit[]: the new dimensions of the result (expand), or the squeezed ones of x */
    int full = expand ? R : r, nax = 0;
    const Expr *ax = call_kwarg(call, "axis");
    if (ax && ax->kind != E_NONE) {
        int one = ax->kind != E_LIST && ax->kind != E_TUPLE, n = one ? 1 : ax->u.list.n;
        for (int i = 0; i < n; i++) {
            int64_t x;
            if (attr_int(one ? ax : ax->u.list.items[i], &x) || (x < 0 ? x += full : x) < 0 || x >= full)
                return NULL;
            unit[x] = 1;
            nax++;
        }
    }
    if (!expand && nax == 0)
        for (int d = 0; d < r; d++)
            unit[d] = in->shape[d] == 1;
    int64_t axes[16];
    int na = 0, j = 0, q = 0;
    if (expand) {
        /* result dimension d is x dimension xd[d], or new (-1) */
        int xd[16];
        for (int d = 0, k = 0; d < R; d++)
            xd[d] = unit[d] ? -1 : k++;
        for (q = 0; q < Rp; q++) {
            int d = xd[perm[q]];
            if (d < 0 || pos[d] < 0)
                axes[na++] = q;
            else if (pos[d] != j++)
                return NULL;
        }
        if (j != rp)
            return NULL;   /* x' keeps a dimension the rewritten result drops */
    } else {
        /* result dimension e is x dimension kept[e] */
        int kept[16], nk = 0;
        for (int d = 0; d < r; d++)
            if (!unit[d])
                kept[nk++] = d;
        if (nk != R)
            return NULL;
        for (j = 0; j < rp; j++) {
            if (unit[sigma[j]])
                axes[na++] = j;
            else if (q >= Rp || kept[perm[q++]] != sigma[j])
                return NULL;
        }
        if (q != Rp)
            return NULL;
    }
    if (na == 0)
        return arg;
    Expr *list = int_list(&m->arena, axes, na, call->loc);
    Expr *c = call_with_attrs(m, call, (const char *[]){ "axis" }, &list, 1);
    c->u.call.args[0] = arg;
    c->loc = call->loc;
    return c;
}

/* The end of a successful flow: y = value (typed ot unless y has a type)
 * replaces the rewrite, and the operands' rewrites pre[] (made in operand
 * order) go out before it, each a demand on its operand. */
static void commit_flow(Sweep *S, Binding *bd, Var *y, Expr *value, const TensorType *ot, Binding **pre, int npre,
                        Loc loc)
{
    Module *m = S->m;
    Binding *nb = arena_zalloc(&m->arena, sizeof *nb);
    nb->loc = bd->loc;
    nb->var = y;
    nb->annot = y->sinfo ? y->sinfo : tensor_sinfo_new(&m->arena, ot->dtype, ot->ndim, ot->shape, loc);
    y->sinfo = nb->annot;
    nb->value = value;
    push_out(S, nb);
    for (int k = npre - 1; k >= 0; k--) {
        int slot = push_out(S, pre[k]);
        Expr *x = pre[k]->value->u.call.args[0];
        if (x->kind == E_VAR)
            demand_add(S, x->u.var, call_kwarg(pre[k]->value, "index_map"), call_kwarg(pre[k]->value, "pad_value"),
                       slot);
    }
}

enum { STACK_MAX_POINTS = 1 << 20 };   /* the most points stacks() checks */

/* Whether the rewrite map of a whole whose parts t[0..n) lie one after the
 * other along axis k keeps each part whole along one output dimension *j,
 * in order (NHWC: the axis moves; NCHW4c: the channel blocks stack when each
 * part's channels divide the tile). Checked point by point. On success
 * pt[i] and *ot are the parts' and the whole's new types and start[i] each
 * part's offset along *j. Returns 0, or -1 with why filled. */
static int stacks(Sweep *S, const char *op, const Expr *map, const Expr *pad, const TensorType *t, int n, int k,
                  int *jout, int64_t *start, TensorType *pt, TensorType *ot, char *why, size_t cap)
{
    double padv;
    int r = t[0].ndim;
    if (k < 0 || k >= r || map->u.map.nparams != r || r > IM_MAX_RANK)
        return snprintf(why, cap, "the rewrite does not fit %s's parts", op), -1;
    TensorType yt = t[0];
    yt.shape[k] = 0;
    for (int i = 0; i < n; i++)
        yt.shape[k] += t[i].shape[k];
    int64_t points = 1;
    for (int d = 0; d < r; d++)
        points *= yt.shape[d];
    if (points > STACK_MAX_POINTS)
        return snprintf(why, cap, "%s is too large to check the rewrite point by point", op), -1;
    why[0] = 0;
    ArenaMark mark = arena_mark(&S->scratch);
    ImError err;
    IndexMap *whole = im_from_expr(&S->scratch, map, yt.shape, &err), *part[FLOW_MAX_ARGS];
    int ok = whole && im_classify(whole, NULL, NULL) == IM_BIJECTIVE, j = -1, q = whole ? whole->nout : 0;
    if (!ok && whole && const_number(pad, &padv) == 1)
        snprintf(why, cap, "a padded rewrite does not flow through %s", op);
    else if (!ok)
        snprintf(why, cap, "the rewrite is not one to one and onto over %s's whole", op);
    for (int i = 0; ok && i < n; i++) {
        part[i] = im_from_expr(&S->scratch, map, t[i].shape, &err);
        ok = part[i] && part[i]->nout == q && im_classify(part[i], NULL, NULL) == IM_BIJECTIVE;
    }
    /* the parts stack along the one output dimension where the first is shorter than the whole */
    for (int d = 0; ok && d < q; d++)
        if (part[0]->obox[d] != whole->obox[d])
            ok = j < 0, j = d;
    int64_t off = 0, stacked = 0;
    for (int i = 0; ok && j >= 0 && i < n; i++) {
        int64_t x[IM_MAX_RANK] = { 0 }, a[IM_MAX_RANK], b[IM_MAX_RANK], count = 1;
        for (int d = 0; d < r; d++)
            count *= t[i].shape[d];
        for (int d = 0; ok && d < q; d++)
            ok = d == j || part[i]->obox[d] == whole->obox[d];
        for (int64_t c = 0; ok && c < count; c++) {
            im_apply(part[i], x, a);
            x[k] += off;
            im_apply(whole, x, b);
            x[k] -= off;
            for (int d = 0; ok && d < q; d++)
                ok = b[d] - a[d] == (d == j ? stacked : 0);
            for (int d = r - 1; d >= 0 && ++x[d] == t[i].shape[d]; d--)
                x[d] = 0;
        }
        start[i] = stacked;
        off += t[i].shape[k];
        stacked += part[i]->obox[j];
    }
    if (!ok && !why[0])
        snprintf(why, cap, "the rewrite does not keep %s's parts whole along one dimension", op);
    for (int i = 0; ok && i < n; i++) {
        pt[i] = t[i];
        pt[i].ndim = q;
        memcpy(pt[i].shape, part[i]->obox, (size_t)q * sizeof(int64_t));
    }
    *ot = yt;
    if (ok) {
        ot->ndim = q;
        memcpy(ot->shape, whole->obox, (size_t)q * sizeof(int64_t));
    }
    arena_release(&S->scratch, mark);
    if (ok && j < 0)
        return snprintf(why, cap, "the rewrite moves %s's axis nowhere", op), -1;
    *jout = j;
    return ok ? 0 : -1;
}

/* y = concat((a, b, ...), axis=k) rewritten by M is concat((M(a), M(b), ...),
 * axis=j) when the parts stack along output dimension j (stacks). */
static int flow_concat(Sweep *S, Binding *bd, Var *y, Expr *map, const Expr *pad, Loc loc, char *why, size_t cap)
{
    Module *m = S->m;
    Expr *e = bd->value;
    const Expr *tup = e->u.call.args[0];
    int k;
    if (tup->kind != E_TUPLE || tup->u.list.n < 1 || tup->u.list.n > FLOW_MAX_ARGS)
        return snprintf(why, cap, "R.concat's operands are not a tuple written in place"), -1;
    int n = tup->u.list.n, j;
    TensorType t[FLOW_MAX_ARGS], pt[FLOW_MAX_ARGS], ot;
    int64_t start[FLOW_MAX_ARGS];
    for (int i = 0; i < n; i++)
        if (value_type(tup->u.list.items[i], &t[i]))
            return snprintf(why, cap, "the operands of R.concat have no static shape"), -1;
    if (op_axis(e, t[0].ndim, &k))
        return snprintf(why, cap, "R.concat's axis is not a constant"), -1;
    if (stacks(S, "R.concat", map, pad, t, n, k, &j, start, pt, &ot, why, cap))
        return -1;
    Expr *nt = expr_new(&m->arena, E_TUPLE, tup->loc);
    nt->u.list.n = n;
    nt->u.list.items = arena_array(&m->arena, (size_t)n + 1, sizeof(Expr *));
    Binding *pre[FLOW_MAX_ARGS];
    for (int i = 0; i < n; i++) {
        Expr *x = tup->u.list.items[i];
        char nm[160];
        snprintf(nm, sizeof nm, "%.120s_t", x->kind == E_VAR ? x->u.var->name->str : "c");
        pre[i] = binding_fresh(m, &S->names, nm, y->dataflow,
                               tensor_sinfo_new(&m->arena, pt[i].dtype, pt[i].ndim, pt[i].shape, loc),
                               layout_transform_new(m, x, map, NULL, loc), loc);
        var_say(m, pre[i]->var, "the rewrite of ", x->kind == E_VAR ? x->u.var : NULL, "");
        nt->u.list.items[i] = var_ref(&m->arena, pre[i]->var, loc);
    }
    Expr *c = call_with_attrs(m, e, (const char *[]){ "axis" }, (Expr *[]){ expr_int(&m->arena, j, DT_VOID, loc) }, 1);
    c->u.call.args[0] = nt;
    commit_flow(S, bd, y, c, &ot, pre, n, loc);
    return 0;
}

/* R.split(x, ..., axis=k) whose parts all take map M is R.split(M(x), ...,
 * axis=j) when the parts stack along output dimension j (stacks): NCHW4c's
 * channel split at whole tiles splits the tile dimension. x_t is M(x); old
 * the split's tuple type. Returns the new call, or NULL. */
static Expr *split_stacked(Sweep *S, const Expr *e, Expr *x_t, const Expr *map, const StructInfo *old, int n, int rank)
{
    Module *m = S->m;
    TensorType t[FLOW_MAX_OUT], pt[FLOW_MAX_OUT], ot;
    int64_t start[FLOW_MAX_OUT];
    int j, k;
    char why[200];
    if (n > FLOW_MAX_OUT || n > FLOW_MAX_ARGS || op_axis(e, rank, &k))
        return NULL;
    for (int i = 0; i < n; i++)
        if (sinfo_shape(old->fields[i], &t[i].dtype, &t[i].ndim, t[i].shape))
            return NULL;
    if (stacks(S, "R.split", map, NULL, t, n, k, &j, start, pt, &ot, why, sizeof why))
        return NULL;
    static const char *const keys[] = { "axis", "indices_or_sections" };
    Expr *c = call_with_attrs(m, e, keys,
                              (Expr *[]){ expr_int(&m->arena, j, DT_VOID, e->loc),
                                          int_list(&m->arena, start + 1, n - 1, e->loc) }, 2);
    c->u.call.args[0] = x_t;
    return c;
}

/* What a call computes with, before anything is built: call_tir's callee,
 * or an operator on operands of static types (legalized by callee_build).
 * items/n: its tensor operands; nout: its results (tuple: the call returns
 * a tuple). */
typedef struct Callee {
    Func *f;              /* call_tir's callee, or the legalized operator once built */
    const OpInfo *op;     /* an operator call */
    TensorType args[OP_MAX_ARGS];
    Expr *const *items;
    int n, nout;
} Callee;

/* Fills c for the call e, or returns -1 with why filled when flow cannot
 * look inside. */
static int callee_find(const Expr *e, int tuple, Callee *c, char *why, size_t cap)
{
    Func *f = call_tir_callee(e);
    const OpInfo *op = NULL;
    c->f = NULL;
    c->op = NULL;
    if (f) {
        const Expr *si = call_kwarg(e, "out_sinfo");
        if (!si || si->kind != (tuple ? E_LIST : E_SINFO) || e->u.call.args[1]->kind != E_TUPLE)
            return snprintf(why, cap, "the call of %s does not return %s", f->name->str,
                            tuple ? "a tuple of tensors" : "one tensor"), -1;
        if (func_is_frozen(f))
            return snprintf(why, cap, "%s is frozen", f->name->str), -1;
        c->items = e->u.call.args[1]->u.list.items;
        c->n = e->u.call.args[1]->u.list.n;
        c->nout = tuple ? si->u.list.n : 1;
        if (f->npparams != c->n + c->nout)
            return snprintf(why, cap, "%s takes %d parameters, not %d and %d result%s", f->name->str, f->npparams,
                            c->n, c->nout, c->nout == 1 ? "" : "s"), -1;
        c->f = f;
        return 0;
    }
    if (e->kind == E_CALL && !e->u.call.callee && (op = op_find(e->u.call.op->str)) && !op->tuple_arg &&
        op->tuple_out == tuple) {
        TensorType outs[OP_MAX_ARGS];
        OpError err;
        if (op->category == LAYOUT_HEAVY)
            return snprintf(why, cap, "%s is heavily layout sensitive: its layouts are attributes, chosen by "
                            "convert-layout", op->name), -1;
        int n = op->ntensors;
        for (int k = 0; k < n; k++)
            if (k >= e->u.call.nargs || value_type(e->u.call.args[k], &c->args[k]))
                return snprintf(why, cap, "the operands of %s have no static shape", op->name), -1;
        if (op_infer(e, c->args, n, outs, &c->nout, &err))
            return snprintf(why, cap, "%s", err.msg), -1;
        c->op = op;
        c->items = e->u.call.args;
        c->n = n;
        return 0;
    }
    const char *what = e->kind == E_CALL ? e->u.call.op->str : "this value";
    return snprintf(why, cap, "%s is opaque to flow", what), -1;
}

/* The name of the function c computes with (a legalized operator is named
 * after the operator). */
static const char *callee_name(const Callee *c)
{
    return c->op ? strrchr(c->op->name, '.') + 1 : c->f->name->str;
}

/* c's function: an operator is legalized in m's arena. NULL with why
 * filled when it cannot be. */
static Func *callee_build(Module *m, const Expr *e, Callee *c, char *why, size_t cap)
{
    OpError err;
    if (c->op && !c->f && !(c->f = op_legalize(m, e, c->args, c->n, intern_cstr(&m->names, callee_name(c)), &err)))
        snprintf(why, cap, "%s", err.msg);
    return c->f;
}

/* The PrimFunc a call computes with: call_tir's callee, or the legalized
 * operator. items/n: its tensor operands; nout: its results (tuple: the
 * call returns a tuple). A legalized operator is built in m's arena. NULL
 * with why filled when flow cannot look inside. */
static Func *callee_of(Module *m, const Expr *e, int tuple, const OpInfo **opp, Expr *const **itemsp, int *np,
                       int *noutp, char *why, size_t cap)
{
    Callee c;
    *opp = NULL;
    if (callee_find(e, tuple, &c, why, cap) || !callee_build(m, e, &c, why, cap))
        return NULL;
    *opp = c.op;
    *itemsp = c.items;
    *np = c.n;
    *noutp = c.nout;
    return c.f;
}

/* ---- flow's answers, kept per call ----
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
enum { ANSWERS_MAX_BYTES = 64 << 20 };   /* the cache stops growing there */

static int mode;   /* 0 off, 1 on, 2 check: read once, before any thread reads it */
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

static void read_cache_mode(void)
{
    const char *v = getenv("LOPT_FLOW_CACHE");
    mode = v && strcmp(v, "off") == 0 ? 0 : v && strcmp(v, "check") == 0 ? 2 : 1;
}

static int cache_mode(void)
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

/* The key's hash for the call e (c: its callee) and the map; -1 when the
 * answer is not to be kept. */
static int answer_hash(const Expr *e, const Callee *c, const Expr *map, int has_pad, double pad, uint64_t *h)
{
    if (!cache_mode() || map->kind != E_INDEXMAP)
        return -1;
    *h = c->op ? op_call_hash(e, c->args, c->n) : (uint64_t)(uintptr_t)c->f * 0x9E3779B97F4A7C15ull;
    *h = key_mix(key_mix(*h, (uint64_t)map->u.map.nparams), loc_key(map->loc));
    for (int p = 0; p < map->u.map.nparams; p++)
        *h = key_mix(*h, map->u.map.params[p]->name->hash);
    for (int q = 0; q < map->u.map.nout; q++)
        if (written_hash(map->u.map.out[q], map, h))
            return -1;
    uint64_t bits = 0;
    if (has_pad)
        memcpy(&bits, &pad, sizeof bits);
    *h = key_mix(key_mix(*h, (uint64_t)has_pad), bits);
    return 0;
}

static FlowAnswer *answer_find(const FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *map,
                               int has_pad, double pad)
{
    for (FlowAnswer *x = C->cap ? C->slots[h & (C->cap - 1)] : NULL; x; x = x->next) {
        if (x->hash != h || x->has_pad != has_pad || (has_pad && memcmp(&x->pad, &pad, sizeof pad)))
            continue;
        if (c->op ? !x->call || x->nargs != c->n || !op_call_same(x->call, x->args, e, c->args, c->n)
                  : x->call || x->callee != c->f)
            continue;
        if (map_written_equal(x->map, map))
            return x;
    }
    return NULL;
}

/* Keeps the answer computed (in C's arena) for the call e and the map. */
static void answer_add(FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *map, int has_pad,
                       double pad, int failed, const FlowTir *r, const char *why)
{
    if (2 * (C->n + 1) > C->cap) {
        size_t cap = C->cap ? 2 * C->cap : 64;
        FlowAnswer **slots = calloc(cap, sizeof *slots);
        if (!slots)
            abort();
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
    x->map = clone_expr(&C->a, &(Subst){ 0 }, map);
    x->has_pad = has_pad;
    x->pad = pad;
    x->failed = failed;
    x->why = failed ? arena_strndup(&C->a, why, strlen(why)) : NULL;
    if (!failed)
        x->r = *r;
    x->next = C->slots[h & (C->cap - 1)];
    C->slots[h & (C->cap - 1)] = x;
    C->n++;
}

static void cache_free(FlowCache *C)
{
    free(C->slots);
    arena_free(&C->a);
    memset(C, 0, sizeof *C);
}

static char *func_text(const Func *f, const Sym *name)
{
    Func g = *f;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    g.name = (Sym *)name;
    print_prim_func(out, &g);
    fclose(out);
    return text;
}

/* LOPT_FLOW_CACHE=check: the answer x found for the call e against the one
 * just computed. */
static void answer_check(const FlowAnswer *x, const Expr *e, int failed, const FlowTir *r, const char *why)
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

/* Legalizes c's operator (when it is one) and flows maps through its
 * function, both built in arena a (m's names, a fresh name for the copy).
 * Returns 0 and fills r, or -1 with why filled. */
static int flow_compute(Module *m, Arena *a, Arena *scratch, const Expr *e, const Callee *c, int nout,
                        const Expr *const *maps, int has_pad, double pad, FlowTir *r, char *why, size_t cap)
{
    Module sm = *m;
    sm.arena = *a;
    Callee built = *c;
    if (c->op)
        built.f = NULL;
    Func *f = callee_build(&sm, e, &built, why, cap);
    /* the names and scope stamps are m's, in one place at a time */
    m->names = sm.names;
    m->stamp = sm.stamp;
    Sym *fname = f ? fresh_func(m, f->name->str) : NULL;
    sm.names = m->names;
    sm.stamp = m->stamp;
    int failed = !f || flow_tir(&sm, scratch, f, nout, maps, has_pad, pad, fname, r);
    *a = sm.arena;
    m->names = sm.names;
    m->stamp = sm.stamp;
    if (failed && f)
        snprintf(why, cap, "%s", r->why);
    return failed ? -1 : 0;
}

/* The type of a rewrite's result: the one made last when it is the same
 * (types are never changed in place, and bindings share them already; a
 * chain of calls flowed through makes the same one over and over). */
static StructInfo *rewrite_sinfo(Sweep *S, DType dt, int nd, const int64_t *sh, Loc loc)
{
    const StructInfo *l = S->last_sinfo;
    int same = l && l->dtype == dt && l->ndim == nd && l->loc.line == loc.line && l->loc.col == loc.col;
    for (int d = 0; same && d < nd; d++)
        same = l->shape[d]->kind == E_INT && l->shape[d]->u.i.dtype == DT_VOID && l->shape[d]->u.i.v == sh[d] &&
               l->shape[d]->loc.line == loc.line && l->shape[d]->loc.col == loc.col;
    if (!same)
        S->last_sinfo = tensor_sinfo_new(&S->m->arena, dt, nd, sh, loc);
    return S->last_sinfo;
}

/* The operands' rewrites a flowed function demands: args[k] is the operand
 * to pass (items[k] or its rewrite), pre[] the new rewrite bindings in
 * operand order. Returns how many. */
static int operand_rewrites(Sweep *S, const FlowTir *r, Expr *const *items, int n, int dataflow, Loc loc, Expr **args,
                            Binding **pre)
{
    Module *m = S->m;
    int npre = 0;
    for (int k = 0; k < n; k++) {
        args[k] = items[k];
        if (!r->map[k])
            continue;
        Expr *lpad = r->padded[k] && r->has_pad ? expr_float(&m->arena, r->pad, DT_VOID, loc) : NULL;
        const char *base = items[k]->kind == E_VAR ? items[k]->u.var->name->str : "c";
        char nm[160];
        snprintf(nm, sizeof nm, "%.120s_t", base);
        int64_t sh[16];
        DType dt = DT_FLOAT32;
        int nd = 0;
        ArenaMark mark = arena_mark(&S->scratch);
        TensorType tt;
        if (value_type(items[k], &tt) == 0) {
            ImError err;
            IndexMap *im = im_from_expr(&S->scratch, r->map[k], tt.shape, &err);
            if (im) {
                nd = im->nout;
                memcpy(sh, im->obox, (size_t)nd * sizeof *sh);
                dt = tt.dtype;
            }
        }
        arena_release(&S->scratch, mark);
        StructInfo *si = nd ? rewrite_sinfo(S, dt, nd, sh, loc) : NULL;
        Binding *nb = binding_fresh(m, &S->names, nm, dataflow, si,
                                    layout_transform_new(m, items[k], r->map[k], lpad, loc), loc);
        var_say(m, nb->var, "the rewrite of ", items[k]->kind == E_VAR ? items[k]->u.var : NULL, "");
        pre[npre++] = nb;
        args[k] = var_ref(&m->arena, nb->var, loc);
    }
    return npre;
}

/* A copy of an index map in a, its substitution of parameters kept on the
 * stack (a map copied per flowed call would leave it behind in a). */
static Expr *map_copy(Arena *a, const Expr *map)
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
static Expr *map_share(Module *m, FlowAnswer *x, int k)
{
    if (!x->kept[k])
        x->kept[k] = map_copy(&m->arena, x->r.map[k]);
    Expr *e = arena_alloc(&m->arena, sizeof *e);
    *e = *x->kept[k];
    return e;
}

/* Flows the rewrite (map, pad) of the value bd computes through bd's call.
 * On success bd's value becomes the new call (result var y) and the operands'
 * rewrites are pushed. Returns 0, or -1 with why filled. */
static int flow_call(Sweep *S, Binding *bd, Var *y, Expr *map, const Expr *pad, Loc loc, char *why, size_t cap)
{
    Module *m = S->m;
    Expr *e = bd->value;
    double padv = 0;
    int has_pad = const_number(pad, &padv) == 1;
    if (is_call_to(e, "R.concat"))
        return flow_concat(S, bd, y, map, pad, loc, why, cap);
    Callee ce;
    if (callee_find(e, 0, &ce, why, cap))
        return -1;
    const OpInfo *op = ce.op;
    Expr *const *items = ce.items;
    int n = ce.n;
    /* The legalized operator and its flowed copy are built in the staging
     * arena (a module that shares m's names), or in the cache's when the
     * answer is kept: when the operator keeps its form, or the flow fails,
     * they are simply dropped; a call_tir of the copy takes a copy of it
     * into m. */
    ArenaMark smark = arena_mark(&S->stage);
    FlowTir r, fresh;
    const Expr *maps[1] = { map };
    uint64_t h = 0;
    int keyed = answer_hash(e, &ce, map, has_pad, padv, &h) == 0;
    FlowAnswer *hit = keyed ? answer_find(&S->cache, h, e, &ce, map, has_pad, padv) : NULL;
    int failed = 0, computed = !hit || cache_mode() == 2;
    if (computed) {
        int store = keyed && !hit && S->cache.a.used < ANSWERS_MAX_BYTES;
        failed = flow_compute(m, store ? &S->cache.a : &S->stage, &S->scratch, e, &ce, 1, maps, has_pad, padv, &fresh,
                              why, cap);
        if (hit)
            answer_check(hit, e, failed, &fresh, why);
        else if (store)
            answer_add(&S->cache, h, e, &ce, map, has_pad, padv, failed, &fresh, why);
        r = fresh;
    }
    if (hit) {
        failed = hit->failed;
        if (failed)
            snprintf(why, cap, "%s", hit->why);
        else
            r = hit->r;
    }
    if (failed) {
        arena_release(&S->stage, smark);
        return -1;
    }
    for (int k = 0; k < n && k < FLOW_MAX_ARGS; k++)
        if (r.map[k])
            r.map[k] = hit ? map_share(m, hit, k) : map_copy(&m->arena, r.map[k]);
    Expr **args = arena_array(&m->arena, (size_t)n + 1, sizeof *args);
    Binding *pre[FLOW_MAX_ARGS];
    int npre = operand_rewrites(S, &r, items, n, y->dataflow, loc, args, pre);
    int keep = 0;
    Expr *axes = NULL, *light = NULL;
    TensorType it;
    if (op && op->category == LAYOUT_AGNOSTIC) {
        /* the call keeps its form when every operand takes a rewrite: an
         * operand the PrimFunc never reads (zeros_like's, full_like's) still
         * gives the result its shape, so kept unrewritten it would give the
         * old one (model fuzzer seed 121); the rewritten PrimFunc is called
         * instead */
        TensorType yt, kt;
        keep = 1;
        for (int k = 0; k < n; k++)
            if (!r.map[k] && value_type(items[k], &kt) == 0 && kt.ndim > 0 &&
                sinfo_shape(bd->var->sinfo, &yt.dtype, &yt.ndim, yt.shape) == 0 && yt.ndim == kt.ndim &&
                memcmp(yt.shape, kt.shape, (size_t)kt.ndim * sizeof *kt.shape) == 0)
                keep = 0;   /* not read, yet of the result's shape */
        broadcast_stmt(r.f->body, &r, &keep);
    } else if (op && n == 1 && value_type(items[0], &it) == 0) {
        keep = (axes = reduce_axes(m, e, map, r.map[0], it.ndim, e->loc)) != NULL;
        if (!keep && !has_pad && (light = keep_light(S, e, map, r.map[0], &it)) != NULL) {
            light->u.call.args[0] = args[0];
            light->loc = e->loc;
        } else if (!keep && !has_pad) {
            light = keep_unit_axes(S, e, map, r.map[0], &it, args[0]);
        }
    } else if (((is_call_to(e, "R.nn.layer_norm") && n == 3) ||
                (is_call_to(e, "R.reverse_sequence") && n == 2 && !r.map[1])) &&
               r.map[0] && !has_pad && value_type(items[0], &it) == 0 &&
               (light = keep_light(S, e, map, r.map[0], &it)) != NULL) {
        /* gamma and beta (the lengths) stay as they are: only the data's rewrite (pre[0]) goes out */
        light->u.call.args[0] = args[0];
        light->loc = e->loc;
        npre = 1;
    }
    if (light) {
        bd->value = light;
    } else if (keep) {
        Expr *c = call_with_attrs(m, e, (const char *[]){ "axis" }, &axes, axes != NULL);
        memcpy(c->u.call.args, args, (size_t)n * sizeof(Expr *));
        bd->value = c;
    } else {
        /* the copy goes into m: one made for another call carries that
         * call's location, so this call's is built */
        if (!computed && flow_compute(m, &S->stage, &S->scratch, e, &ce, 1, maps, has_pad, padv, &fresh, why, cap)) {
            fprintf(stderr, "lopt: internal error: flow's kept answer for the call at %d:%d fails when computed "
                    "again\n", e->loc.line, e->loc.col);
            abort();
        }
        Func *g = clone_prim(&m->arena, fresh.f, fresh.f->name);
        module_add_func(m, g);
        Expr *si = expr_new(&m->arena, E_SINFO, e->loc);
        si->u.sinfo = tensor_sinfo_new(&m->arena, r.out[0].dtype, r.out[0].ndim, r.out[0].shape, e->loc);
        bd->value = call_tir_new(m, g, args, n, si, e->loc);
    }
    arena_release(&S->stage, smark);
    TensorType ot = { .dtype = r.out[0].dtype, .ndim = r.out[0].ndim };
    memcpy(ot.shape, r.out[0].shape, (size_t)ot.ndim * sizeof(int64_t));
    Expr *nv = bd->value;
    bd->value = e;
    commit_flow(S, bd, y, nv, &ot, pre, npre, loc);
    return 0;
}

/* Whether operand x is a constant or a variable of this block bound to one. */
static int is_constant(const Sweep *S, const Expr *x)
{
    if (x->kind == E_CONST)
        return 1;
    int d = x->kind == E_VAR ? ptrmap_get(&S->def, x->u.var, 0) : 0;
    return d && S->rb->binds[d - 1]->value->kind == E_CONST;
}

/* Whether the call e reads constants only: fold evaluates it, rewrite and
 * all, so the rewrite stays with it (in a dataflow block: fold evaluates
 * nothing outside one). */
static int from_constants(const Sweep *S, const Expr *e)
{
    const OpInfo *op;
    Expr *const *items;
    int n;
    if (!S->rb->dataflow || e->kind != E_CALL || e->u.call.callee)
        return 0;
    if (is_call_to(e, "R.call_tir")) {
        const Func *f = call_tir_callee(e);
        if (!f || func_is_frozen(f) || e->u.call.nargs != 2 || e->u.call.args[1]->kind != E_TUPLE ||
            call_kwarg(e, "tir_vars"))
            return 0;
        items = e->u.call.args[1]->u.list.items;
        n = e->u.call.args[1]->u.list.n;
    } else if ((op = op_find(e->u.call.op->str)) && !op_is_creation(op->name)) {
        /* a creation operator is folded only when small: fold{max-bytes} */
        if (op->tuple_arg && (e->u.call.nargs < 1 || e->u.call.args[0]->kind != E_TUPLE))
            return 0;
        if (!op->tuple_arg && e->u.call.nargs < op->ntensors)
            return 0;
        items = op->tuple_arg ? e->u.call.args[0]->u.list.items : e->u.call.args;
        n = op->tuple_arg ? e->u.call.args[0]->u.list.n : op->ntensors;
    } else {
        return 0;
    }
    for (int k = 0; k < n; k++)
        if (!is_constant(S, items[k]))
            return 0;
    return n > 0;
}

static const char *producer_kind(const Sweep *S, const Expr *e)
{
    if (e->kind == E_CONST)
        return "a constant (fold rewrites it)";
    if (from_constants(S, e))
        return "computed from constants (fold evaluates it and its rewrite)";
    if (is_layout_transform(e))
        return "a rewrite (fold composes the two)";
    return NULL;
}

static void items_free(ItemDem *it)
{
    while (it) {
        ItemDem *next = it->next;
        free(it->slots);
        free(it);
        it = next;
    }
}

/* The index of the binding of t in the block when a = t[k] reads a tuple
 * that a call of this block returns; else -1. */
static int tuple_producer(Sweep *S, const Expr *e)
{
    if (e->kind != E_GETITEM || e->u.get.tuple->kind != E_VAR)
        return -1;
    return ptrmap_get(&S->def, e->u.get.tuple->u.var, 0) - 1;
}

/* Binding bd (t = a call returning a tuple) has every use an item whose
 * rewrites wait in S->items[i]: flows them all through the call at once.
 * Results nothing reads are dropped from the rewritten function. */
static int flow_tuple(Sweep *S, Binding *bd, int i, char *why, size_t cap)
{
    Module *m = S->m;
    Expr *e = bd->value;
    const OpInfo *op;
    Expr *const *items;
    int n, nout, count = 0;
    Func *f = callee_of(m, e, 1, &op, &items, &n, &nout, why, cap);
    if (!f)
        return -1;
    const Expr *maps[FLOW_MAX_OUT] = { 0 }, *pad = NULL;
    if (nout > FLOW_MAX_OUT)
        return snprintf(why, cap, "%s returns more than %d results", f->name->str, FLOW_MAX_OUT), -1;
    for (ItemDem *it = S->items[i]; it; it = it->next, count++) {
        if (it->item < 0 || it->item >= nout)
            return snprintf(why, cap, "%s has no item %d", bd->var->name->str, it->item), -1;
        if (maps[it->item])
            return snprintf(why, cap, "item %d of %s is read twice", it->item, bd->var->name->str), -1;
        if (count && !same_pad(pad, it->pad))
            return snprintf(why, cap, "the rewrites of %s's items pad with different values", bd->var->name->str), -1;
        maps[it->item] = it->map;
        pad = it->pad;
    }
    int uses = ptrmap_get(&S->uses, bd->var, 0);
    if (uses != count)
        return snprintf(why, cap, "%s has %d other consumer%s", bd->var->name->str, uses - count,
                        uses - count == 1 ? "" : "s"), -1;
    double padv = 0;
    int has_pad = const_number(pad, &padv) == 1;
    FlowTir r;
    if (flow_tir(m, &S->scratch, f, nout, maps, has_pad, padv, fresh_func(m, f->name->str), &r))
        return snprintf(why, cap, "%s", r.why), -1;
    Loc loc = bd->loc;
    Expr **args = arena_array(&m->arena, (size_t)n + 1, sizeof *args);
    Binding *pre[FLOW_MAX_ARGS];
    int npre = operand_rewrites(S, &r, items, n, bd->var->dataflow, loc, args, pre);
    Expr *si = expr_new(&m->arena, E_LIST, e->loc);
    si->u.list.n = r.nout;
    si->u.list.items = arena_array(&m->arena, (size_t)r.nout + 1, sizeof(Expr *));
    StructInfo *fields[FLOW_MAX_OUT];
    for (int k = 0; k < r.nout; k++) {
        fields[k] = tensor_sinfo_new(&m->arena, r.out[k].dtype, r.out[k].ndim, r.out[k].shape, loc);
        Expr *x = expr_new(&m->arena, E_SINFO, e->loc);
        x->u.sinfo = fields[k];
        si->u.list.items[k] = x;
    }
    StructInfo *tup = tuple_sinfo_new(&m->arena, fields, r.nout, loc);
    Expr *call = call_tir_new(m, r.f, args, n, si, e->loc);
    /* the operator itself, when its attributes can say the new layout:
     * batch_norm's (C,) operands keep theirs, split's parts share one map */
    TensorType in0;
    const StructInfo *old = bd->var->sinfo;
    int light = 0, same = op && maps[0] && old && old->kind == SI_TUPLE && old->nfields == nout &&
                               items[0]->kind == E_VAR;
    for (int k = 1; same && k < n; k++)
        same = r.map[k] == NULL;
    for (int k = 1; same && k < nout; k++)
        same = maps[k] ? same_rewrite(&S->scratch, maps[k], maps[0], items[0]->u.var->sinfo)
                       : is_call_to(e, "R.nn.batch_norm");
    if (same && !has_pad && value_type(items[0], &in0) == 0) {
        Expr *c = keep_light(S, e, maps[0], r.map[0], &in0);
        if (c) {
            memcpy(c->u.call.args, args, (size_t)n * sizeof *args);
            c->loc = e->loc;
            call = c;
            light = 1;
            for (int k = 0, j = 0; k < nout; k++)
                fields[k] = maps[k] ? tup->fields[j++] : old->fields[k];
            tup = tuple_sinfo_new(&m->arena, fields, nout, loc);
        } else if (is_call_to(e, "R.split") && r.nout == nout && same_rewrite(&S->scratch, r.map[0], maps[0], items[0]->u.var->sinfo)) {
            c = split_stacked(S, e, args[0], maps[0], old, nout, in0.ndim);
            if (c) {
                call = c;
                light = 1;
            }
        }
    }
    /* each item's first rewrite now reads the new tuple; the others alias it */
    for (ItemDem *it = S->items[i]; it; it = it->next) {
        int at = 0;
        for (int k = 0; k < it->item; k++)
            at += light || maps[k] != NULL;
        Binding *first = S->out[it->slots[it->nslots - 1]];
        Binding *nb = arena_zalloc(&m->arena, sizeof *nb);
        nb->loc = first->loc;
        nb->var = first->var;
        nb->annot = first->var->sinfo ? first->var->sinfo : tup->fields[at];
        first->var->sinfo = nb->annot;
        nb->value = expr_new(&m->arena, E_GETITEM, it->get->value->loc);
        nb->value->u.get.tuple = var_ref(&m->arena, bd->var, it->get->value->loc);
        nb->value->u.get.index = at;
        S->out[it->slot] = nb;
        for (int k = 0; k < it->nslots; k++) {
            Binding *b = S->out[it->slots[k]];
            if (b == first) {
                S->dead[it->slots[k]] = 1;
            } else {
                Binding *alias = arena_zalloc(&m->arena, sizeof *alias);
                *alias = *b;
                alias->value = var_ref(&m->arena, first->var, b->loc);
                S->out[it->slots[k]] = alias;
            }
        }
    }
    if (!light)
        module_add_func(m, r.f);
    bd->var->sinfo = tup;
    TensorType unused = { 0 };
    commit_flow(S, bd, bd->var, call, &unused, pre, npre, loc);
    return 0;
}

/* The tensor operands of a call flow can look into (none: it stops there). */
static int operands_of(const Expr *e, Expr *const **items)
{
    const OpInfo *op;
    if (e->kind != E_CALL || e->u.call.callee)
        return 0;
    if (call_tir_callee(e) && func_is_frozen(call_tir_callee(e)))
        return 0;
    if (call_tir_callee(e) && e->u.call.nargs >= 2 && e->u.call.args[1]->kind == E_TUPLE) {
        *items = e->u.call.args[1]->u.list.items;
        return e->u.call.args[1]->u.list.n;
    }
    if (!(op = op_find(e->u.call.op->str)) || op->category == LAYOUT_HEAVY)
        return 0;
    if (op->tuple_arg) {
        if (e->u.call.nargs < 1 || e->u.call.args[0]->kind != E_TUPLE)
            return 0;
        *items = e->u.call.args[0]->u.list.items;
        return e->u.call.args[0]->u.list.n;
    }
    *items = e->u.call.args;
    return e->u.call.nargs < op->ntensors ? e->u.call.nargs : op->ntensors;
}

/* How many rewrites a rewrite of x would leave behind inside the graph, at
 * a guess that looks only at its shape: none for a constant, a rewrite (fold
 * composes) or a value computed from constants; one where it may stop (a
 * parameter, where it reaches the graph's inputs as flow means it to, but
 * two parameters rewritten cost twice one rewrite of their product; a value
 * with other consumers); HARD where it must (a heavily layout-sensitive,
 * frozen or opaque call); through any other call, what its operands would leave. */
enum { HARD = 1 << 16 };
static int left_behind(Sweep *S, const Expr *x, int d, int occ, int depth, int *memo);

/* The place of x in the block: 1 + its binding's index, or 0. */
static int def_of(const Sweep *S, const Expr *x)
{
    return x->kind == E_VAR ? ptrmap_get(&S->def, x->u.var, 0) : 0;
}

/* left_behind summed over a call's operands, each value once (concat((a, a))
 * rewrites a once); defs[k], when given, is def_of(items[k]). */
static int operands_left(Sweep *S, Expr *const *items, const int *defs, int n, int depth, int *memo)
{
    int cost = 0;
    for (int k = 0; k < n; k++) {
        int occ = 1, seen = 0;
        for (int j = 0; j < n; j++)
            if (j != k && items[j]->kind == E_VAR && items[k]->kind == E_VAR && items[j]->u.var == items[k]->u.var) {
                occ++;
                seen |= j < k;
            }
        if (!seen)
            cost += left_behind(S, items[k], defs ? defs[k] : def_of(S, items[k]), occ, depth, memo);
    }
    return cost;
}

/* A graph input (or a value of an earlier block) the rewrite would reach:
 * one rewrite left on it, counted once per guess, unless it is smaller than
 * the value (a broadcast bias), whose rewrite costs less than the value's. */
static int input_left(Sweep *S, const Expr *x)
{
    DType dt;
    int nd;
    int64_t sh[16], n = 1;
    if (x->kind != E_VAR || ptrmap_get(&S->inputs, x->u.var, 0))
        return 0;
    ptrmap_put(&S->inputs, x->u.var, 1);
    if (sinfo_shape(x->u.var->sinfo, &dt, &nd, sh) == 0 && nd <= 16) {
        for (int k = 0; k < nd; k++)
            n *= sh[k];
        if (n < S->size)
            return 0;
    }
    return 1;
}

/* What left_behind reads of a binding's value. The sweep changes a binding
 * only when it visits it, and left_behind looks only at bindings before the
 * one visited, so this is read once per block (producers_read), not once
 * per binding of every guess; so are the places of the operands. */
enum { PROD_FREE, PROD_ITEM, PROD_STOP, PROD_CALL };

typedef struct Producer {
    int kind;             /* free: a constant, a rewrite, computed from constants; an item of a tuple;
                           * a call flow stops at; a call it looks through */
    int n;
    Expr *const *items;   /* PROD_CALL: the operands */
    int *defs;            /* PROD_CALL: def_of each operand; PROD_ITEM: of the tuple */
} Producer;

static Producer producer_of(const Sweep *S, const Expr *e)
{
    Producer p = { PROD_STOP, 0, NULL, NULL };
    if (e->kind == E_CONST || is_layout_transform(e) || from_constants(S, e))
        p.kind = PROD_FREE;
    else if (e->kind == E_GETITEM && e->u.get.tuple->kind == E_VAR)
        p.kind = PROD_ITEM;
    else if ((p.n = operands_of(e, &p.items)) > 0)
        p.kind = PROD_CALL;
    return p;
}

/* The places the producers' operands (or tuples) are bound at, in S->defs. */
static void producers_read(Sweep *S, const RBlock *rb)
{
    size_t total = 0;
    for (int i = 0; i < rb->nbinds; i++) {
        S->prod[i] = producer_of(S, rb->binds[i]->value);
        total += S->prod[i].kind == PROD_CALL ? (size_t)S->prod[i].n : S->prod[i].kind == PROD_ITEM;
    }
    S->defs = malloc((total + 1) * sizeof *S->defs);
    if (!S->defs)
        abort();
    int *at = S->defs;
    for (int i = 0; i < rb->nbinds; i++) {
        Producer *p = &S->prod[i];
        if (p->kind == PROD_ITEM) {
            p->defs = at++;
            p->defs[0] = def_of(S, rb->binds[i]->value->u.get.tuple);
        } else if (p->kind == PROD_CALL) {
            p->defs = at;
            at += p->n;
            for (int k = 0; k < p->n; k++)
                p->defs[k] = def_of(S, p->items[k]);
        }
    }
}

/* LOPT_FLOW_CACHE=check: what left_behind read once against the graph now. */
static void check_producer(const Sweep *S, const Expr *x, int d)
{
    const Expr *e = S->rb->binds[d - 1]->value;
    const Producer *p = &S->prod[d - 1];
    Producer q = producer_of(S, e);
    int same = q.kind == p->kind && q.n == p->n && q.items == p->items && d == def_of(S, x) &&
               S->nuses[d - 1] == ptrmap_get(&S->uses, x->u.var, 0);
    for (int k = 0; same && p->kind == PROD_CALL && k < p->n; k++)
        same = p->defs[k] == def_of(S, p->items[k]);
    if (same && p->kind == PROD_ITEM)
        same = p->defs[0] == def_of(S, e->u.get.tuple);
    if (!same) {
        fprintf(stderr, "lopt: internal error: LOPT_FLOW_CACHE=check: the producer of %s changed during the "
                "sweep\n", x->u.var->name->str);
        abort();
    }
}

/* d: def_of(x). */
static int left_behind(Sweep *S, const Expr *x, int d, int occ, int depth, int *memo)
{
    if (x->kind == E_CONST)
        return 0;
    if (!d)
        return input_left(S, x);
    if (S->memo_gen[d - 1] == S->gen)
        return memo[d - 1];
    const Producer *p = &S->prod[d - 1];
    int cost = 0;
    if (cache_mode() == 2)
        check_producer(S, x, d);
    if (p->kind == PROD_FREE)
        cost = 0;
    else if (S->nuses[d - 1] > occ || depth > 64)
        cost = 1;   /* the other consumers may want the same rewrite */
    else if (p->kind == PROD_ITEM && p->defs[0] && S->nuses[p->defs[0] - 1] == 1)
        cost = left_behind(S, S->rb->binds[d - 1]->value->u.get.tuple, p->defs[0], 1, depth + 1, memo);
    else if (p->kind != PROD_CALL)
        cost = HARD;   /* it stops here for good */
    else
        cost = operands_left(S, p->items, p->defs, p->n, depth + 1, memo);
    if (cost > 1 << 28)
        cost = 1 << 28;
    memo[d - 1] = cost;
    S->memo_gen[d - 1] = S->gen;
    return cost;
}

/* What moving a rewrite through the call e would leave behind (see
 * left_behind): more than one rewrite where there was one is worse. */
static int worse(Sweep *S, const Binding *bd)
{
    Expr *const *items = NULL;
    int n = operands_of(bd->value, &items), nd;
    DType dt;
    int64_t sh[16];
    S->size = 1;
    if (sinfo_shape(bd->var->sinfo, &dt, &nd, sh) == 0 && nd <= 16)
        for (int k = 0; k < nd; k++)
            S->size *= sh[k];
    ptrmap_free(&S->inputs);
    S->gen++;   /* a guess of its own: inputs are counted once in it */
    int cost = operands_left(S, items, NULL, n, 0, S->memo);
    ptrmap_free(&S->inputs);
    return cost;
}

/* y = lt(x, M1) read only by rewrites lt(y, M2) (its demand D): each reader
 * becomes the one value fold would make of the pair (rewrite_compose), so
 * neither rewrite of a pair that composes moves alone; a composed rewrite of
 * x is a demand on x. Returns 1 when done (y is then dead), 0 when some pair
 * does not compose (nothing changed). */
static int compose_demand(Sweep *S, Binding *bd, Demand *D)
{
    const Expr *y = bd->value;
    Expr *x = y->u.call.args[0];
    DType dt;
    int nd, id[64];
    int64_t sh[16];
    Expr *r[64];
    char why[120];
    if (x->kind != E_VAR || D->nslots > 64 || sinfo_shape(x->u.var->sinfo, &dt, &nd, sh) || nd > 16)
        return 0;
    /* sinking wrote y0, y_t = lt(y0, B^-1), lt(y_t, B) for the sweep to
     * carry B^-1 back into y0's call: y_t is not composed away */
    if (ptrmap_get(&S->sunk, bd->var, 0))
        return 0;
    for (int k = 0; k < D->nslots; k++)
        if (!(r[k] = rewrite_compose(S->m, y, S->out[D->slots[k]]->value, sh, nd, &id[k], why, sizeof why)))
            return 0;
    /* y's one read of x becomes one per reader: x's other consumers are
     * counted against its demands, so the count must follow (seed 513082:
     * x also read by a tuple lost its binding when two readers of y made
     * two demands on x and its two uses looked all rewritten) */
    ptrmap_put(&S->uses, x->u.var, ptrmap_get(&S->uses, x->u.var, 0) - 1 + D->nslots);
    if (def_of(S, x))
        S->nuses[def_of(S, x) - 1] = ptrmap_get(&S->uses, x->u.var, 0);
    for (int k = 0; k < D->nslots; k++) {
        Binding *b = arena_zalloc(&S->m->arena, sizeof *b);
        *b = *S->out[D->slots[k]];
        b->value = id[k] ? var_ref(&S->m->arena, x->u.var, b->loc) : r[k];
        S->out[D->slots[k]] = b;
        if (!id[k] && is_layout_transform(r[k]))
            demand_add(S, x->u.var, call_kwarg(r[k], "index_map"), call_kwarg(r[k], "pad_value"), D->slots[k]);
    }
    note_add(S->notes, bd->loc, "composed %s with the rewrite%s that read%s it", var_said(bd->var),
             D->nslots == 1 ? "" : "s", D->nslots == 1 ? "s" : "");
    return 1;
}

/* Visits binding i (the sweep goes backwards). */
static void visit(Sweep *S, Binding *bd, int i)
{
    Demand *D = &S->dem[i];
    int uses = ptrmap_get(&S->uses, bd->var, 0), left = 0;
    char why[400];
    ItemDem *waiting = NULL;
    if (S->items[i]) {
        int planned = 1;
        for (ItemDem *it = S->items[i]; S->plan && it; it = it->next)
            planned &= ptrmap_get(S->plan, it->get->var, 0) != 0;
        int ok = planned && flow_tuple(S, bd, i, why, sizeof why) == 0;
        if (!planned)
            snprintf(why, sizeof why, "the plan keeps its items as they are");
        Loc at = S->out[S->items[i]->slots[S->items[i]->nslots - 1]]->loc;
        if (ok) {
            S->moved++;
            note_add(S->notes, at, "moved the rewrites of %s's items through %s", var_said(bd->var),
                     call_tir_callee(bd->value) ? call_tir_callee(bd->value)->name->str : bd->value->u.call.op->str);
        } else {
            note_add(S->notes, at, "flow stopped at %s: %s", var_said(bd->var), why);
        }
        items_free(S->items[i]);
        S->items[i] = NULL;
        if (ok) {
            free(D->slots);
            return;
        }
    }
    if (D->count) {
        Binding *first = S->out[D->slots[D->nslots - 1]];   /* the earliest rewrite */
        Loc at = first->loc;
        const char *pk = producer_kind(S, bd->value);
        if (D->conflict)
            note_add(S->notes, at, "flow stopped: %s has %d consumers with different layouts", var_said(bd->var),
                     uses);
        else if (D->count < uses)
            note_add(S->notes, at, "flow stopped: %s has %d other consumer%s", var_said(bd->var), uses - D->count,
                     uses - D->count == 1 ? "" : "s");
        else if (is_layout_transform(bd->value) && compose_demand(S, bd, D)) {
            free(D->slots);
            return;
        } else if (pk)
            note_add(S->notes, at, "left: %s is %s", var_said(bd->var), pk);
        else if (tuple_producer(S, bd->value) >= 0) {
            /* a = t[k]: the rewrites wait for t's call */
            int t = tuple_producer(S, bd->value);
            waiting = calloc(1, sizeof *waiting);
            if (!waiting)
                abort();
            *waiting = (ItemDem){ bd, -1, bd->value->u.get.index, call_kwarg(first->value, "index_map"),
                                  call_kwarg(first->value, "pad_value"), D->slots, D->nslots, S->items[t] };
            S->items[t] = waiting;
            D->slots = NULL;
        } else if (S->plan && !ptrmap_get(S->plan, bd->var, 0)) {
            note_add(S->notes, at, "left: the plan keeps %s as it is written", var_said(bd->var));
        } else if (!S->plan && (left = worse(S, bd)) >= HARD) {
            note_add(S->notes, at, "flow stopped at %s: further up the rewrite would only stop at a heavily layout "
                     "sensitive, frozen or opaque call", var_said(bd->var));
        } else if (!S->plan && left > 1) {
            note_add(S->notes, at, "flow stopped at %s: the rewrite would stay on %d of its operands' producers "
                     "instead of one here", var_said(bd->var), left);
        } else if (flow_call(S, bd, first->var, call_kwarg(first->value, "index_map"), call_kwarg(first->value, "pad_value"), at, why, sizeof why) == 0) {
            for (int k = 0; k < D->nslots; k++) {
                Binding *b = S->out[D->slots[k]];
                if (b == first) {
                    S->dead[D->slots[k]] = 1;
                } else {
                    /* another rewrite by the same map: the same value */
                    Binding *alias = arena_zalloc(&S->m->arena, sizeof *alias);
                    *alias = *b;
                    alias->value = var_ref(&S->m->arena, first->var, b->loc);
                    S->out[D->slots[k]] = alias;
                }
            }
            S->moved++;
            note_add(S->notes, at, "moved the rewrite of %s through %s", var_said(bd->var),
                     bd->value->kind == E_CALL && call_tir_callee(bd->value) ? call_tir_callee(bd->value)->name->str
                     : bd->value->kind == E_CALL ? bd->value->u.call.op->str : "its producer");
            free(D->slots);
            return;
        } else {
            note_add(S->notes, at, "flow stopped at %s: %s", var_said(bd->var), why);
        }
    }
    free(D->slots);
    int slot = push_out(S, bd);
    if (waiting)
        waiting->slot = slot;
    Expr *e = bd->value;
    if (is_layout_transform(e)) {
        Expr *x = e->u.call.args[0];
        if (x->kind == E_VAR && ptrmap_get(&S->def, x->u.var, 0))
            demand_add(S, x->u.var, call_kwarg(e, "index_map"), call_kwarg(e, "pad_value"), slot);
        else if (x->kind == E_VAR)
            note_add(S->notes, bd->loc, "left: %s is %s", var_said(x->u.var),
                     x->u.var->dataflow ? "defined in another block" : "a parameter of the function");
        else
            note_add(S->notes, bd->loc, "left: its operand is a constant (fold rewrites it)");
    }
}

static void sweep_block(Sweep *S, RBlock *rb)
{
    ptrmap_free(&S->def);
    ptrmap_reserve(&S->def, (size_t)rb->nbinds);
    for (int i = 0; i < rb->nbinds; i++)
        ptrmap_put(&S->def, rb->binds[i]->var, i + 1);
    S->rb = rb;
    S->memo = malloc(((size_t)rb->nbinds + 1) * sizeof *S->memo);
    S->memo_gen = calloc((size_t)rb->nbinds + 1, sizeof *S->memo_gen);
    S->gen = 1;
    S->dem = calloc((size_t)rb->nbinds + 1, sizeof *S->dem);
    S->items = calloc((size_t)rb->nbinds + 1, sizeof *S->items);
    S->prod = malloc(((size_t)rb->nbinds + 1) * sizeof *S->prod);
    S->nuses = malloc(((size_t)rb->nbinds + 1) * sizeof *S->nuses);
    if (!S->dem || !S->items || !S->memo || !S->memo_gen || !S->prod || !S->nuses)
        abort();
    for (int i = 0; i < rb->nbinds; i++)
        S->nuses[i] = ptrmap_get(&S->uses, rb->binds[i]->var, 0);
    producers_read(S, rb);
    S->nout = 0;
    for (int i = rb->nbinds - 1; i >= 0; i--)
        visit(S, rb->binds[i], i);
    int n = 0;
    for (int k = 0; k < S->nout; k++)
        n += !S->dead[k];
    Binding **nb = arena_array(&S->m->arena, (size_t)n + 1, sizeof *nb);
    int j = 0;
    for (int k = S->nout - 1; k >= 0; k--)
        if (!S->dead[k])
            nb[j++] = S->out[k];
    rb->binds = nb;
    rb->nbinds = n;
    free(S->dem);
    free(S->items);
    free(S->memo);
    free(S->memo_gen);
    free(S->prod);
    free(S->defs);
    free(S->nuses);
    S->prod = NULL;
    S->defs = NULL;
    S->nuses = NULL;
    S->memo = NULL;
    S->memo_gen = NULL;
    S->dem = NULL;
    S->items = NULL;
}

/* ---- sinking: a rewrite moves forward past an elementwise operator ----
 *
 * y = g(lt(p, B), lt(q, B), c) with every rewrite used only here and every
 * other operand a constant is the same as lt(g'(p, q, c'), B). Sinking writes
 * it as y0 = g(...); y_t = lt(y0, B^-1); y = lt(y_t, B): the backward sweep
 * then carries B^-1 into g, where it meets the operands' B and fold cancels
 * them. Two rewrites become one, and a rewrite that meets its inverse
 * further on (the next convolution's) cancels there. */

static int sink_operands(Sweep *S, const PtrMap *def, Binding **binds, const PtrMap *uses, const PtrMap *rwuses,
                         const Expr *e, const OpInfo *op, const Expr **map, const Expr **inner)
{
    int nrw = 0;
    for (int k = 0; k < op->ntensors; k++) {
        const Expr *a = e->u.call.args[k];
        if (a->kind == E_CONST)
            continue;
        if (a->kind != E_VAR)
            return 0;
        int i = ptrmap_get(def, a->u.var, 0);
        const Binding *b = i ? binds[i - 1] : NULL;
        if (b && b->value->kind == E_CONST)
            continue;
        /* its other uses, if any, are rewrites, which fold composes with it */
        if (!b || !is_layout_transform(b->value) ||
            ptrmap_get(uses, a->u.var, 0) != 1 + ptrmap_get(rwuses, a->u.var, 0))
            return 0;
        const Expr *m = call_kwarg(b->value, "index_map"), *p = b->value->u.call.args[0];
        if (p->kind != E_VAR || !a->u.var->sinfo || !p->u.var->sinfo)
            return 0;
        if (nrw && !(same_rewrite(&S->scratch, *map, m, p->u.var->sinfo) &&
                     sinfo_same_tensor((*inner)->u.var->sinfo, p->u.var->sinfo)))
            return 0;
        *map = m;
        *inner = p;
        nrw++;
    }
    return nrw;
}

/* mean(lt(p, B), axis) with B a permutation is mean(p, axis') when the kept
 * axes come out in the same order: the rewrite disappears into the reduction
 * (NHWC's mean over axes [1, 2] gives the same (N, C) as NCHW's over [2, 3]). */
/* The reduction e (result type yt) reading lt(p, map) instead of p (of
 * type pt), map a permutation: e with its axes renumbered, reading the
 * rewritten operand; NULL when that cannot be said. */
static Expr *reduce_through(Module *m, const Expr *e, const Expr *map, const TensorType *pt, const TensorType *yt,
                            Loc loc)
{
    int perm[16];
    if (pt->ndim > 16 || perm_of(map, perm))
        return NULL;
    /* the inverse permutation, as the map from the rewritten operand back to p */
    Expr *inv = expr_new(&m->arena, E_INDEXMAP, loc);
    inv->u.map.nparams = inv->u.map.nout = pt->ndim;
    inv->u.map.params = arena_array(&m->arena, (size_t)pt->ndim + 1, sizeof(Var *));
    inv->u.map.out = arena_array(&m->arena, (size_t)pt->ndim + 1, sizeof(Expr *));
    /* the rewrite's dimension q is p's dimension perm[q] */
    for (int q = 0; q < pt->ndim; q++) {
        Var *v = var_new(&m->arena, map->u.map.params[q]->name, VAR_TIR, loc);
        v->dtype = DT_INT32;
        inv->u.map.params[q] = v;
    }
    for (int q = 0; q < pt->ndim; q++)
        inv->u.map.out[perm[q]] = var_ref(&m->arena, inv->u.map.params[q], loc);
    Expr *id = identity_map(&m->arena, &m->names, yt->ndim, loc);
    Expr *axes = reduce_axes(m, e, id, inv, pt->ndim, loc);
    return axes ? call_with_attrs(m, e, (const char *[]){ "axis" }, &axes, 1) : NULL;
}

static int sink_reduce(Sweep *S, Binding *bd, const Expr *map, const Expr *inner)
{
    Module *m = S->m;
    Expr *e = bd->value;
    TensorType pt, yt;
    if (value_type(inner, &pt) || sinfo_shape(bd->var->sinfo, &yt.dtype, &yt.ndim, yt.shape))
        return 0;
    Expr *c = reduce_through(m, e, map, &pt, &yt, bd->loc);
    if (!c)
        return 0;
    c->u.call.args[0] = (Expr *)inner;
    bd->value = c;
    note_add(S->notes, bd->loc, "sank the rewrite of %s's operand into %s", var_said(bd->var), e->u.call.op->str);
    return 2;
}

/* What sinking looks ahead on: the block's bindings as written, where each
 * value is bound, who reads it (a list per binding: first[i], then next[]),
 * and what is known of each binding. */
typedef struct Ahead {
    const RBlock *rb;
    PtrMap at;             /* var -> 1 + index of its binding */
    int *first, *next, *who, nlinks, caplinks;
    signed char *pays;     /* per binding: -1 unknown, 0 or 1 */
} Ahead;

static void ahead_link(Ahead *A, int i, int j)
{
    if (A->nlinks == A->caplinks) {
        A->caplinks = A->caplinks ? 2 * A->caplinks : 64;
        A->next = realloc(A->next, (size_t)A->caplinks * sizeof *A->next);
        A->who = realloc(A->who, (size_t)A->caplinks * sizeof *A->who);
        if (!A->next || !A->who)
            abort();
    }
    A->who[A->nlinks] = j;
    A->next[A->nlinks] = A->first[i];
    A->first[i] = A->nlinks++;
}

static void ahead_init(Ahead *A, const RBlock *rb)
{
    int n = rb->nbinds;
    A->rb = rb;
    A->pays = malloc((size_t)n + 1);
    A->first = malloc(((size_t)n + 1) * sizeof *A->first);
    if (!A->pays || !A->first)
        abort();
    memset(A->pays, -1, (size_t)n + 1);
    ptrmap_reserve(&A->at, (size_t)n);
    for (int j = 0; j < n; j++) {
        A->first[j] = -1;
        const Expr *e = rb->binds[j]->value;
        if (e->kind == E_GETITEM)
            e = e->u.get.tuple;
        int na = e->kind == E_CALL ? e->u.call.nargs : e->kind == E_VAR ? 1 : 0;
        for (int k = 0; k < na; k++) {
            const Expr *a = e->kind == E_VAR ? e : e->u.call.args[k];
            int d = a->kind == E_VAR ? ptrmap_get(&A->at, a->u.var, 0) - 1 : -1;
            if (d >= 0 && (A->first[d] < 0 || A->who[A->first[d]] != j))
                ahead_link(A, d, j);
        }
        ptrmap_put(&A->at, rb->binds[j]->var, j + 1);
    }
}

static void ahead_free(Ahead *A)
{
    ptrmap_free(&A->at);
    free(A->first);
    free(A->next);
    free(A->who);
    free(A->pays);
}

/* Whether reader e of y, rewritten by map, takes the rewrite somewhere
 * better: a rewrite composes with it; an elementwise call with another
 * operand rewritten by the same map merges the two (1); one of y and
 * constants carries it on (2, ask that call's readers); anything else keeps
 * it (0). */
static int sink_reader(Sweep *S, const Ahead *A, const PtrMap *uses, const PtrMap *rwuses, const Var *y,
                       const Expr *e, const Expr *map, const StructInfo *si)
{
    if (is_layout_transform(e))
        return 1;
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
    int perm[16];
    if (op && op->category == LAYOUT_LIGHT && op->ntensors == 1 && map->u.map.nparams <= 16 && !perm_of(map, perm))
        return 1;   /* a light operator carries a permutation: a reduction in its axes
                     * (sink_reduce), the others in renumbered attributes (keep_light) */
    if (!op || op->category != LAYOUT_AGNOSTIC || op->tuple_arg || op->tuple_out || e->u.call.nargs < op->ntensors)
        return 0;
    int merge = 0;
    for (int k = 0; k < op->ntensors; k++) {
        const Expr *a = e->u.call.args[k];
        if (a->kind == E_CONST || (a->kind == E_VAR && a->u.var == y))
            continue;
        int d = a->kind == E_VAR ? ptrmap_get(&A->at, a->u.var, 0) - 1 : -1;
        const Expr *v = d >= 0 ? A->rb->binds[d]->value : NULL;
        if (v && v->kind == E_CONST)
            continue;
        if (!v || !is_layout_transform(v) || ptrmap_get(uses, a->u.var, 0) != 1 + ptrmap_get(rwuses, a->u.var, 0) ||
            !same_rewrite(&S->scratch, call_kwarg(v, "index_map"), map, si))
            return 0;
        merge = 1;
    }
    return merge ? 1 : 2;
}

/* Whether a rewrite by map sunk past binding i ends anywhere better: one of
 * its readers composes or merges it, or carries it on to where that pays.
 * One rewrite moved forward past a call is one still, which the backward
 * sweep would carry back up on the next run: sinking it would make
 * flow,fold toggle. */
static int sink_pays(Sweep *S, Ahead *A, const PtrMap *uses, const PtrMap *rwuses, int i, const Expr *map,
                     const StructInfo *si, int depth)
{
    if (A->pays[i] >= 0)
        return A->pays[i];
    int r = 0;
    for (int l = A->first[i]; l >= 0 && !r && depth < 64; l = A->next[l]) {
        int j = A->who[l];
        int k = sink_reader(S, A, uses, rwuses, A->rb->binds[i]->var, A->rb->binds[j]->value, map, si);
        r = k == 1 || (k == 2 && sink_pays(S, A, uses, rwuses, j, map, si, depth + 1));
    }
    if (depth < 64)
        A->pays[i] = (signed char)r;
    return r;
}

static int sink(Sweep *S, const PtrMap *def, Binding **binds, const PtrMap *uses, const PtrMap *rwuses, Binding *bd,
                const RBlock *rb, Binding **made, Ahead *A, int at)
{
    Module *m = S->m;
    Expr *e = bd->value, *call = e;
    if (e->kind == E_GETITEM && e->u.get.index == 0 && e->u.get.tuple->kind == E_VAR &&
        ptrmap_get(def, e->u.get.tuple->u.var, 0) && ptrmap_get(uses, e->u.get.tuple->u.var, 0) == 1) {
        /* y = bn(lt(p, B), constants)[0]: batch_norm is elementwise in its
         * data, per channel in the rest, which fold rewrites */
        call = binds[ptrmap_get(def, e->u.get.tuple->u.var, 0) - 1]->value;
        if (!is_call_to(call, "R.nn.batch_norm"))
            return 0;
    }
    const OpInfo *op = call->kind == E_CALL && !call->u.call.callee ? op_find(call->u.call.op->str) : NULL;
    if (!op || op->tuple_arg || (op->tuple_out && call == e) || call->u.call.nargs < op->ntensors)
        return 0;
    const Expr *map = NULL, *inner = NULL;
    if (op->category == LAYOUT_LIGHT && op->ntensors == 1 &&
        sink_operands(S, def, binds, uses, rwuses, e, op, &map, &inner))
        return sink_reduce(S, bd, map, inner);
    int nrw;
    if ((op->category != LAYOUT_AGNOSTIC && call == e) ||
        !(nrw = sink_operands(S, def, binds, uses, rwuses, call, op, &map, &inner)))
        return 0;
    if (nrw == 1 && !sink_pays(S, A, uses, rwuses, at, map, inner->u.var->sinfo, 0))
        return 0;
    TensorType pt, yt;
    if (!bd->var->sinfo || value_type(inner, &pt) || sinfo_shape(bd->var->sinfo, &yt.dtype, &yt.ndim, yt.shape))
        return 0;
    /* the result must have the shape of the rewritten operands (no broadcast up) */
    const Expr *a0 = NULL;
    for (int k = 0; k < op->ntensors && !a0; k++)
        if (call->u.call.args[k]->kind == E_VAR && ptrmap_get(def, call->u.call.args[k]->u.var, 0) &&
            is_layout_transform(binds[ptrmap_get(def, call->u.call.args[k]->u.var, 0) - 1]->value))
            a0 = call->u.call.args[k];
    if (!a0 || !sinfo_same_tensor(a0->u.var->sinfo, bd->var->sinfo))
        return 0;
    ArenaMark mark = arena_mark(&S->scratch);
    ImError err;
    IndexMap *im = im_from_expr(&S->scratch, map, pt.shape, &err);
    ImCond *pred;
    int npred = 0;
    IndexMap *inv = im && im_classify(im, NULL, NULL) == IM_BIJECTIVE
                        ? im_inverse(&S->scratch, im, &pred, &npred, &err) : NULL;
    Expr *back = inv ? im_to_expr(&m->arena, &m->names, inv) : NULL;
    arena_release(&S->scratch, mark);
    if (!back)
        return 0;
    char nm[160];
    snprintf(nm, sizeof nm, "%.120s_s", bd->var->name->str);
    made[0] = binding_fresh(m, &S->names, nm, rb->dataflow, bd->var->sinfo, e, bd->loc);
    var_say(m, made[0]->var, "the form of ", bd->var, " in its operands' layout");
    snprintf(nm, sizeof nm, "%.120s_t", bd->var->name->str);
    made[1] = binding_fresh(m, &S->names, nm, rb->dataflow, inner->u.var->sinfo,
                            layout_transform_new(m, var_ref(&m->arena, made[0]->var, bd->loc), back, NULL, bd->loc),
                            bd->loc);
    var_say(m, made[1]->var, "the form of ", bd->var, " before its rewrite");
    bd->value = layout_transform_new(m, var_ref(&m->arena, made[1]->var, bd->loc), (Expr *)map, NULL, bd->loc);
    note_add(S->notes, bd->loc, "sank the rewrite of the operands of %s past %s", var_said(bd->var), op->name);
    return 1;
}

static void sink_block(Sweep *S, RBlock *rb)
{
    PtrMap uses = { 0 }, def = { 0 }, rwuses = { 0 };
    count_uses(S->fn, &uses);
    for (int i = 0; i < rb->nbinds; i++) {
        const Expr *e = rb->binds[i]->value;
        if (is_layout_transform(e) && e->u.call.args[0]->kind == E_VAR)
            ptrmap_put(&rwuses, e->u.call.args[0]->u.var, ptrmap_get(&rwuses, e->u.call.args[0]->u.var, 0) + 1);
    }
    Binding **out = NULL;
    int n = 0, cap = 0;
    Ahead A = { 0 };
    ahead_init(&A, rb);
    ptrmap_reserve(&def, (size_t)rb->nbinds);
    for (int i = 0; i < rb->nbinds; i++) {
        Binding *bd = rb->binds[i], *made[2];
        if (sink(S, &def, out, &uses, &rwuses, bd, rb, made, &A, i) == 1) {
            ptrmap_put(&S->sunk, made[1]->var, 1);
            for (int k = 0; k < 2; k++) {
                vec_push(&S->m->arena, &out, &n, &cap, made[k]);
                ptrmap_put(&def, made[k]->var, n);
            }
        }
        vec_push(&S->m->arena, &out, &n, &cap, bd);
        ptrmap_put(&def, bd->var, n);
    }
    ahead_free(&A);
    rb->binds = out;
    rb->nbinds = n;
    ptrmap_free(&uses);
    ptrmap_free(&def);
    ptrmap_free(&rwuses);
}

/* A note that says why a rewrite stayed, not what moved. */
static int is_stop(const char *text)
{
    return strncmp(text, "left:", 5) == 0 || strncmp(text, "flow stopped", 12) == 0 ||
           strncmp(text, "kept:", 5) == 0;
}

/* The rewrites left in fn: R.layout_transform bindings. */
static int count_rewrites(const Func *fn)
{
    int n = 0;
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++)
            n += is_layout_transform(fn->blocks[b]->binds[i]->value);
    return n;
}

/* What a sweep holds between its blocks. */
static void sweep_free(Sweep *S)
{
    ptrmap_free(&S->uses);
    ptrmap_free(&S->sunk);
    ptrmap_free(&S->def);
    ptrmap_free(&S->names);
    free(S->out);
    free(S->dead);
    arena_free(&S->scratch);
    arena_free(&S->stage);
    cache_free(&S->cache);
}

/* One round over fn: fold's cancelling part, sinking, the backward sweep.
 * Returns how many notes it wrote that say it changed something. */
static int flow_round(Module *m, Func *fn, PassCtx *ctx, Notes *notes, int sink)
{
    Sweep S = { .m = m, .fn = fn, .ctx = ctx, .notes = notes };
    /* a dead consumer must not stop a rewrite, nor may one of a pair
     * that cancels move alone */
    fold_rewrites(m, fn, notes);
    infer_types(m, fn);
    collect_names(fn, &S.names);
    for (int b = 0; sink && b < fn->nblocks; b++)
        sink_block(&S, fn->blocks[b]);
    count_uses(fn, &S.uses);
    for (int b = 0; b < fn->nblocks; b++)
        sweep_block(&S, fn->blocks[b]);
    sweep_free(&S);
    int acts = 0;
    for (int i = 0; i < notes->n; i++)
        acts += !is_stop(notes->v[i].text);
    return acts;
}

/* Rounds until one changes nothing (a rewrite a round moved may let another
 * move, or a pair it made cancel); a round sinks only when the one before
 * left fewer rewrites than it found (sinking and the sweep could trade a
 * rewrite back and forth). --explain shows every round's moves and the last
 * round's stops. */
static void flow_funcs(Module *m, PassCtx *ctx, Notes *all)
{
    int nf = m->nfuncs;
    for (int f = 0; f < nf; f++) {
        Func *fn = m->funcs[f];
        if (!is_plannable(fn))
            continue;
        int before = count_rewrites(fn), sink = 1;
        for (int round = 0; round < 8; round++) {
            Notes notes = { 0 };
            int acts = flow_round(m, fn, ctx, &notes, sink);
            int after = count_rewrites(fn);
            sink = after < before;   /* sinking again only while rewrites go */
            before = after;
            for (int i = 0; i < notes.n; i++) {
                if (!acts || round == 7 || !is_stop(notes.v[i].text))
                    note_add(all, notes.v[i].loc, "%s", notes.v[i].text);
                free(notes.v[i].text);
            }
            free(notes.v);
            if (!acts)
                break;
        }
    }
}

/* ---- flow,fold to a fixed point ----
 *
 * Sinking (forward) and the sweep (backward) can disagree about where one
 * rewrite belongs, and the names and binding order one run makes can let the
 * next move a rewrite again, so flow,fold run twice could differ from once.
 * Flow therefore runs flow,fold from fold's form of its input until a module
 * comes back (the same up to names): the modules of that cycle are compared
 * by one cost, the bytes the rewrites left move (then their number, then
 * the number of PrimFuncs, operators left unlegalized being simpler, then a
 * hash of the module without its names, so the choice does not depend on
 * where the cycle was entered), and the cheapest is the answer: the input
 * itself when it is, else flow's first result when it is, else the module
 * as fold left it. A second flow,fold from the answer meets the same cycle
 * at the answer and keeps its input. */

enum { FIXED_RUNS = 8 };   /* the most flow,fold runs the search takes */

typedef struct State {
    Func **funcs;         /* a copy no pass changes (NULL when not kept) */
    int nfuncs;
    uint64_t text;        /* a hash of what the printer shows */
    uint64_t shape;       /* the same without the names */
    int64_t bytes;        /* read and written by the rewrites left */
    int count;            /* the rewrites left */
    int nprim;            /* PrimFuncs: legalized operators and flowed copies */
} State;

/* Both hashes of a module are taken in one walk: text (with the names)
 * and shape (each variable by where it is bound). */
typedef struct Hasher {
    PtrMap at;            /* Relax var -> order of definition */
    int n;
    const Expr *map;      /* the index map whose outputs are being hashed */
} Hasher;

typedef struct Hash2 {
    uint64_t text, shape;
} Hash2;

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ull;
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s, size_t n)
{
    h = mix(h, n);
    for (size_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)s[k]) * 0x100000001b3ull;
    return h;
}

static uint64_t mix_sym(uint64_t h, const Sym *s)
{
    return s ? mix_str(h, s->str, s->len) : mix(h, 0);
}

/* The same value into both hashes (two chains the processor runs side by side). */
static Hash2 mix2(Hash2 h, uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8) {
        h.text = (h.text ^ (v & 0xff)) * 0x100000001b3ull;
        h.shape = (h.shape ^ (v & 0xff)) * 0x100000001b3ull;
    }
    return h;
}

static Hash2 mix2_str(Hash2 h, const char *s, size_t n)
{
    h = mix2(h, n);
    for (size_t k = 0; k < n; k++) {
        h.text = (h.text ^ (unsigned char)s[k]) * 0x100000001b3ull;
        h.shape = (h.shape ^ (unsigned char)s[k]) * 0x100000001b3ull;
    }
    return h;
}

static Hash2 mix2_sym(Hash2 h, const Sym *s)
{
    return s ? mix2_str(h, s->str, s->len) : mix2(h, 0);
}

static Hash2 mix2_double(Hash2 h, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return mix2(h, v);
}

static void hash_define(Hasher *H, const Var *v)
{
    ptrmap_put(&H->at, v, ++H->n);
}

/* text: the name; shape: a parameter of the map being hashed by its place,
 * else the variable by where it is bound (by its name when free). */
static Hash2 mix_var(const Hasher *H, Hash2 h, const Var *v)
{
    h.text = mix_sym(h.text, v->name);
    for (int k = 0; H->map && k < H->map->u.map.nparams; k++)
        if (H->map->u.map.params[k] == v) {
            h.shape = mix(h.shape, (uint64_t)k + 1);
            return h;
        }
    int at = ptrmap_get(&H->at, v, 0);
    h.shape = at ? mix(h.shape, (uint64_t)at << 20) : mix_sym(h.shape, v->name);
    return h;
}

static Hash2 mix_expr(Hasher *H, Hash2 h, const Expr *e);

/* A digest of a constant's bytes, eight at a time: a weight has millions of
 * elements, and the module is hashed after every run of flow,fold. */
static uint64_t data_digest(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static Hash2 mix_sinfo(Hasher *H, Hash2 h, const StructInfo *s)
{
    if (!s)
        return mix2(h, 0xff);
    h = mix2(mix2(mix2(h, s->kind), (uint64_t)s->ndim), s->dtype);
    for (int d = 0; s->shape && d < s->ndim; d++)
        h = mix_expr(H, h, s->shape[d]);
    h = s->vdevice ? mix2_str(h, s->vdevice, strlen(s->vdevice)) : h;
    for (int k = 0; k < s->nfields; k++)
        h = mix_sinfo(H, h, s->fields[k]);
    return h;
}

static Hash2 mix_exprs(Hasher *H, Hash2 h, Expr *const *v, int n)
{
    h = mix2(h, (uint64_t)n);
    for (int k = 0; k < n; k++)
        h = mix_expr(H, h, v[k]);
    return h;
}

static Hash2 mix_expr(Hasher *H, Hash2 h, const Expr *e)
{
    if (!e)
        return mix2(h, 0xfe);
    h = mix2(h, e->kind);
    switch (e->kind) {
    case E_VAR:
        return mix_var(H, h, e->u.var);
    case E_INT:
        return mix2(mix2(h, (uint64_t)e->u.i.v), e->u.i.dtype);
    case E_FLOAT:
        return mix2(mix2_double(h, e->u.f.v), e->u.f.dtype);
    case E_STR:
        return mix2_str(h, e->u.str.s, (size_t)e->u.str.len);
    case E_BOOL:
        return mix2(h, (uint64_t)e->u.b);
    case E_TUPLE:
    case E_LIST:
        return mix_exprs(H, h, e->u.list.items, e->u.list.n);
    case E_DICT:
        return mix_exprs(H, mix_exprs(H, h, e->u.dict.keys, e->u.dict.n), e->u.dict.vals, e->u.dict.n);
    case E_GETITEM:
        return mix2(mix_expr(H, h, e->u.get.tuple), (uint64_t)e->u.get.index);
    case E_CALL:
        h = mix_expr(H, mix2_sym(h, e->u.call.op), e->u.call.callee);
        for (int k = 0; k < e->u.call.nkw; k++)
            h = mix2_sym(h, e->u.call.kw[k]);
        return mix_exprs(H, h, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
    case E_GLOBAL:
        return mix2_sym(h, e->u.global.name);
    case E_BIN:
        return mix_expr(H, mix_expr(H, mix2(h, e->u.bin.op), e->u.bin.a), e->u.bin.b);
    case E_UNARY:
        return mix_expr(H, mix2(h, e->u.un.op), e->u.un.a);
    case E_LOAD:
        return mix_exprs(H, mix2_sym(h, e->u.load.buf->name), e->u.load.idx, e->u.load.n);
    case E_CAST:
        return mix_expr(H, mix2(h, e->u.cast.dtype), e->u.cast.a);
    case E_SLICE:
        return mix_expr(H, mix_expr(H, h, e->u.slice.lo), e->u.slice.hi);
    case E_INDEXMAP: {
        const Expr *outer = H->map;
        h = mix2(h, (uint64_t)e->u.map.nparams);
        for (int k = 0; k < e->u.map.nparams; k++)
            h.text = mix_sym(h.text, e->u.map.params[k]->name);
        H->map = e;
        h = mix_exprs(H, h, e->u.map.out, e->u.map.nout);
        H->map = outer;
        return h;
    }
    case E_SINFO:
        return mix_sinfo(H, h, e->u.sinfo);
    case E_CONST:
        h = mix2(mix2(h, e->u.cst.dtype), (uint64_t)e->u.cst.ndim);
        for (int d = 0; d < e->u.cst.ndim; d++)
            h = mix2(h, (uint64_t)e->u.cst.shape[d]);
        return mix2(h, data_digest(e->u.cst.data, (size_t)e->u.cst.count * (size_t)dtype_size(e->u.cst.dtype)));
    default:
        return h;
    }
}

/* The two hashes of m's Relax functions, with their names and without. */
static Hash2 hash_module(const Module *m)
{
    Hasher H = { 0 };
    size_t vars = 0;   /* room for every variable at once */
    for (int f = 0; f < m->nfuncs; f++)
        for (int b = 0; m->funcs[f]->kind == F_RELAX && b < m->funcs[f]->nblocks; b++)
            vars += (size_t)m->funcs[f]->blocks[b]->nbinds;
    ptrmap_reserve(&H.at, vars);
    Hash2 h = { 0xcbf29ce484222325ull, 0xcbf29ce484222325ull };
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        h = mix2(h, fn->kind);
        if (fn->kind != F_RELAX)
            h = mix2_sym(h, fn->name);
        else
            h.text = mix_sym(h.text, fn->name);
        if (fn->kind != F_RELAX)
            continue;
        for (int k = 0; k < fn->nparams; k++) {
            hash_define(&H, fn->params[k]);
            h = mix_var(&H, h, fn->params[k]);
        }
        for (int b = 0; b < fn->nblocks; b++) {
            const RBlock *rb = fn->blocks[b];
            h = mix2(mix2(h, (uint64_t)rb->dataflow), (uint64_t)rb->nbinds);
            for (int i = 0; i < rb->nbinds; i++) {
                h = mix_expr(&H, h, rb->binds[i]->value);
                hash_define(&H, rb->binds[i]->var);
                h = mix_var(&H, h, rb->binds[i]->var);
            }
            for (int k = 0; k < rb->noutputs; k++)
                h = mix_var(&H, h, rb->outputs[k]);
        }
        h = mix_expr(&H, h, fn->result);
    }
    ptrmap_free(&H.at);
    return h;
}

/* The elements of a static tensor type, or 0. */
static int64_t elements(const TensorType *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n = t->shape[d] > 0 && n <= INT64_MAX / t->shape[d] ? n * t->shape[d] : 0;
    return n;
}

/* m's hashes and the cost of the rewrites its Relax functions leave (a
 * rewrite of a constant costs nothing: fold evaluates it). */
static void measure(const Module *m, State *s)
{
    s->funcs = NULL;
    s->nfuncs = 0;
    Hash2 h = hash_module(m);
    s->text = h.text;
    s->shape = h.shape;
    s->bytes = 0;
    s->count = 0;
    s->nprim = 0;
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        s->nprim += fn->kind == F_PRIM;
        for (int b = 0; fn->kind == F_RELAX && b < fn->nblocks; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                const Binding *bd = fn->blocks[b]->binds[i];
                TensorType in, out;
                if (!is_layout_transform(bd->value) || bd->value->u.call.args[0]->kind == E_CONST)
                    continue;
                s->count++;
                if (value_type(bd->value->u.call.args[0], &in) == 0 &&
                    sinfo_shape(bd->var->sinfo, &out.dtype, &out.ndim, out.shape) == 0 && out.ndim <= OP_MAX_RANK)
                    s->bytes += (elements(&in) + elements(&out)) * dtype_size(in.dtype);
            }
    }
}

/* Keeps a copy of m's functions that later passes leave alone. */
static void snapshot(Module *m, State *s)
{
    s->funcs = arena_array(&m->arena, (size_t)m->nfuncs + 1, sizeof *s->funcs);
    for (int f = 0; f < m->nfuncs; f++)
        s->funcs[f] = is_plannable(m->funcs[f]) ? relax_clone(m, m->funcs[f]) : m->funcs[f];   /* flow leaves the others */
    s->nfuncs = m->nfuncs;
}

static void install(Module *m, const State *s)
{
    m->funcs = arena_array(&m->arena, (size_t)s->nfuncs + 1, sizeof *m->funcs);
    memcpy(m->funcs, s->funcs, (size_t)s->nfuncs * sizeof *m->funcs);
    m->nfuncs = s->nfuncs;
}

static int cheaper(const State *a, const State *b)
{
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes;
    if (a->count != b->count)
        return a->count < b->count;
    if (a->nprim != b->nprim)
        return a->nprim < b->nprim;
    return a->shape < b->shape;
}

/* s[0]: the input as written, measured in fold's form on a copy. Returns
 * 0 when fold leaves it as it is (it is then one of the runs), else 1 (flow's
 * first run starts from the input as written, and the runs from its result). */
static int fold_form(Module *m, PassCtx *quiet, State *s0)
{
    State in, copy;
    uint64_t text = hash_module(m).text;
    Func **orig = arena_array(&m->arena, (size_t)m->nfuncs + 1, sizeof *orig);
    int norig = m->nfuncs;
    memcpy(orig, m->funcs, (size_t)norig * sizeof *orig);
    snapshot(m, &in);
    snapshot(m, &copy);
    install(m, &copy);
    pass_fold(m, quiet, NULL, 0);
    measure(m, s0);
    s0->funcs = in.funcs;
    s0->nfuncs = in.nfuncs;
    m->funcs = orig;
    m->nfuncs = norig;
    return s0->text == text ? 0 : 1;
}

/* Runs flow,fold from the input until a module of s[first..] comes back,
 * at most FIXED_RUNS times, keeping a copy of each module in s[] (for s[1],
 * flow's own result before fold). The first run's notes go to notes. Sets
 * *lo to where the cycle starts (-1: none) and returns how many of s[] are
 * measured; the last is s[*lo] again, or without a repeat the module m holds. */
static int search(Module *m, PassCtx *ctx, PassCtx *quiet, State *s, int first, Notes *notes, int *lo, FlowRound round,
                  void *data)
{
    int n = 1;   /* s[0..n) measured; m holds s[n - 1] (the input when n is 1) */
    *lo = -1;
    while (*lo < 0 && n <= FIXED_RUNS) {
        State flowed = { 0 };
        if (n == 1) {
            round(m, ctx, notes, data);
            snapshot(m, &flowed);
        } else {
            Notes quiet_notes = { 0 };
            if (n > 2)
                snapshot(m, &s[n - 1]);
            round(m, quiet, &quiet_notes, data);
            notes_flush(&quiet_notes, quiet, "flow");
        }
        pass_fold(m, quiet, NULL, 0);
        measure(m, &s[n]);
        if (n == 1) {
            s[1].funcs = flowed.funcs;
            s[1].nfuncs = flowed.nfuncs;
        }
        for (int j = n - 1; j >= first && *lo < 0; j--)
            if (s[j].shape == s[n].shape)
                *lo = j;
        n++;
    }
    if (*lo < 0)
        snapshot(m, &s[n - 1]);
    return n;
}

/* Flow's rounds, run flow,fold after flow,fold as the comment above says.
 * --explain shows the first run's notes, and how the search ended when its
 * answer is not that run's result. */
int flow_fixed_point(Module *m, PassCtx *ctx, FlowRound round, void *data, const char *pass)
{
    const Func *main = NULL;
    for (int f = 0; f < m->nfuncs && !main; f++)
        if (m->funcs[f]->kind == F_RELAX)
            main = m->funcs[f];
    if (!main)
        return 0;
    PassCtx quiet = *ctx;
    quiet.explain = NULL;
    Notes notes = { 0 };
    State s[FIXED_RUNS + 1];
    int first = fold_form(m, &quiet, &s[0]), lo;
    int n = search(m, ctx, &quiet, s, first, &notes, &lo, round, data);
    /* the candidates: the cycle s[lo..n-1), or every run when none came back */
    int end = lo < 0 ? n : n - 1, pick = lo < 0 ? first : lo;
    for (int j = pick + 1; j < end; j++)
        if (cheaper(&s[j], &s[pick]))
            pick = j;
    if (pick == 0 && s[1].text == s[0].text)
        pick = 1;   /* flow's result folds to the input: keep it, as flow left it */
    install(m, &s[pick]);
    if (lo < 0)
        note_add(&notes, main->loc, "%s,fold changed the module on each of %d runs: kept the cheapest, whose %d "
                 "rewrites move %lld bytes (not a fixed point)", pass, n - 1, s[pick].count, (long long)s[pick].bytes);
    else if (end - lo > 1)
        note_add(&notes, main->loc, "%s,fold comes round to the same module after %d runs: kept the cheapest on "
                 "the way, %d runs of %s,fold from the input, whose %d rewrites move %lld bytes", pass, end - lo, pick,
                 pass,
                 s[pick].count, (long long)s[pick].bytes);
    else if (pick > 1)
        note_add(&notes, main->loc, "%s,fold changed its own result again: kept the module %d runs of %s,fold "
                 "reach", pass, pick, pass);
    notes_emit(&notes, ctx, pass, strcmp(pass, "flow") == 0);   /* flow's table of moved and left rewrites */
    return 0;
}

static void flow_round_all(Module *m, PassCtx *ctx, Notes *notes, void *data)
{
    (void)data;
    flow_funcs(m, ctx, notes);
}

int pass_flow(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    return flow_fixed_point(m, ctx, flow_round_all, NULL, "flow");
}

/* ---- what plan asks of flow (plan.c) ---- */

/* concat: every part takes the map, when the parts stack (stacks) */
static int probe_concat(Module *m, Arena *scratch, Arena *keep, const Expr *e, const Expr *map, Expr **opmaps,
                        Expr *const **items, int *n, char *why, size_t cap)
{
    const Expr *tup = e->u.call.args[0];
    if (tup->kind != E_TUPLE || tup->u.list.n < 1 || tup->u.list.n > FLOW_MAX_ARGS)
        return snprintf(why, cap, "R.concat's operands are not a tuple written in place"), -1;
    TensorType t[FLOW_MAX_ARGS], pt[FLOW_MAX_ARGS], ot;
    int64_t start[FLOW_MAX_ARGS];
    int k, j;
    *items = tup->u.list.items;
    *n = tup->u.list.n;
    for (int i = 0; i < *n; i++)
        if (value_type(tup->u.list.items[i], &t[i]))
            return snprintf(why, cap, "the operands of R.concat have no static shape"), -1;
    if (op_axis(e, t[0].ndim, &k))
        return snprintf(why, cap, "R.concat's axis is not a constant"), -1;
    TensorType yt = t[0];
    for (int i = 1; i < *n; i++)
        yt.shape[k] += t[i].shape[k];
    ImError err;
    ArenaMark mark = arena_mark(scratch);
    IndexMap *whole = k >= 0 && k < yt.ndim ? im_from_expr(scratch, map, yt.shape, &err) : NULL;
    int ident = whole && im_is_identity(whole);
    arena_release(scratch, mark);
    if (ident) {   /* as written: the parts are read as they are */
        for (int i = 0; i < *n; i++)
            opmaps[i] = NULL;
        return 0;
    }
    Sweep S = { .m = m, .scratch = *scratch };
    int rc = stacks(&S, "R.concat", map, NULL, t, *n, k, &j, start, pt, &ot, why, cap);
    *scratch = S.scratch;
    for (int i = 0; rc == 0 && i < *n; i++)
        opmaps[i] = clone_expr(keep, &(Subst){ 0 }, map);
    return rc;
}

int flow_probe(Module *m, Arena *scratch, Arena *keep, const Expr *e, int item, const Expr *map, Expr **opmaps,
               Expr *const **items, int *n, char *why, size_t cap)
{
    if (item < 0 && is_call_to(e, "R.concat"))
        return probe_concat(m, scratch, keep, e, map, opmaps, items, n, why, cap);
    Arena stage = { 0 };
    Module sm = *m;
    sm.arena = stage;
    const OpInfo *op = NULL;
    int nout;
    FlowTir r;
    const Expr *maps[FLOW_MAX_OUT] = { 0 };
    Func *f = callee_of(&sm, e, item >= 0, &op, items, n, &nout, why, cap);
    if (f && (item >= 0 ? item >= nout || nout > FLOW_MAX_OUT : nout != 1)) {
        snprintf(why, cap, "%s has no result %d", f->name->str, item);
        f = NULL;
    }
    if (f)
        maps[item >= 0 ? item : 0] = map;
    m->names = sm.names;
    m->stamp = sm.stamp;
    Sym *fname = f ? fresh_func(m, f->name->str) : NULL;
    sm.names = m->names;
    sm.stamp = m->stamp;
    int failed = !f || *n > FLOW_MAX_ARGS || flow_tir(&sm, scratch, f, nout, maps, 0, 0, fname, &r);
    m->names = sm.names;
    m->stamp = sm.stamp;
    if (failed && f)
        snprintf(why, cap, "%s", *n > FLOW_MAX_ARGS ? "too many operands" : r.why);
    for (int k = 0; !failed && k < *n; k++)
        opmaps[k] = r.map[k] ? clone_expr(keep, &(Subst){ 0 }, r.map[k]) : NULL;
    arena_free(&sm.arena);
    return failed ? -1 : 0;
}

Expr *flow_reduce_reading(Module *m, const Expr *e, const Expr *pmap, const TensorType *pt, const TensorType *yt,
                          Loc loc)
{
    Arena tmp = { 0 };
    ImError err;
    ImCond *pred = NULL;
    int npred = 0;
    IndexMap *im = im_from_expr(&tmp, pmap, pt->shape, &err);
    IndexMap *inv = im ? im_inverse(&tmp, im, &pred, &npred, &err) : NULL;
    Expr *back = inv && !npred ? im_to_expr(&m->arena, &m->names, inv) : NULL;
    arena_free(&tmp);
    return back && e->kind == E_CALL && e->u.call.nargs == 1 ? reduce_through(m, e, back, pt, yt, loc) : NULL;
}

void flow_realize(Module *m, Func *fn, PassCtx *ctx, Notes *notes, const PtrMap *plan, Expr *const *maps,
                  const PtrMap *reads)
{
    PtrMap moved = { 0 };
    Sweep S = { .m = m, .fn = fn, .ctx = ctx, .notes = notes, .plan = &moved };
    infer_types(m, fn);
    collect_names(fn, &S.names);
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        Binding **out = NULL;
        int n = 0, cap = 0;
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            int k = ptrmap_get(plan, bd->var, 0), rk = ptrmap_get(reads, bd->var, 0);
            TensorType t, pt;
            if (rk && bd->value->kind == E_CALL && bd->value->u.call.nargs == 1 &&
                value_type(bd->value->u.call.args[0], &pt) == 0 &&
                sinfo_shape(bd->var->sinfo, &t.dtype, &t.ndim, t.shape) == 0) {
                /* a reduction that reads its operand in the layout maps[rk - 1] */
                Expr *x = bd->value->u.call.args[0];
                Expr *c = flow_reduce_reading(m, bd->value, maps[rk - 1], &pt, &t, bd->loc);
                ImError err;
                ArenaMark mark = arena_mark(&S.scratch);
                IndexMap *pm = c ? im_from_expr(&S.scratch, maps[rk - 1], pt.shape, &err) : NULL;
                StructInfo *xs = pm ? tensor_sinfo_new(&m->arena, pt.dtype, pm->nout, pm->obox, bd->loc) : NULL;
                arena_release(&S.scratch, mark);
                if (xs) {
                    Binding *bx = binding_fresh(m, &S.names, x->kind == E_VAR ? x->u.var->name->str : "c",
                                                bd->var->dataflow || rb->dataflow, xs,
                                                layout_transform_new(m, x, maps[rk - 1], NULL, bd->loc), bd->loc);
                    var_say(m, bx->var, "the planned layout of ", x->kind == E_VAR ? x->u.var : NULL, "");
                    c->u.call.args[0] = var_ref(&m->arena, bx->var, bd->loc);
                    Binding *nb = arena_zalloc(&m->arena, sizeof *nb);
                    *nb = *bd;
                    nb->value = c;
                    vec_push(&m->arena, &out, &n, &cap, bx);
                    vec_push(&m->arena, &out, &n, &cap, nb);
                    note_add(notes, bd->loc, "%s reads its operand in the planned layout", var_said(bd->var));
                    continue;
                }
            }
            ImError err;
            ImCond *pred = NULL;
            int npred = 0;
            ArenaMark mark = arena_mark(&S.scratch);
            IndexMap *im = k && sinfo_shape(bd->var->sinfo, &t.dtype, &t.ndim, t.shape) == 0
                               ? im_from_expr(&S.scratch, maps[k - 1], t.shape, &err) : NULL;
            IndexMap *inv = im ? im_inverse(&S.scratch, im, &pred, &npred, &err) : NULL;
            if (!inv || npred) {
                arena_release(&S.scratch, mark);
                vec_push(&m->arena, &out, &n, &cap, bd);
                continue;
            }
            /* v = f(...) becomes v0 = f(...); v_p = lt(v0, L); v = lt(v_p, L^-1):
             * the sweep moves L through f, and fold cancels what meets */
            Var *v = bd->var;
            Binding *b0 = binding_fresh(m, &S.names, v->name->str, v->dataflow || rb->dataflow, v->sinfo, bd->value,
                                        bd->loc);
            var_say(m, b0->var, "the value of ", v, "");
            StructInfo *ps = tensor_sinfo_new(&m->arena, t.dtype, im->nout, im->obox, bd->loc);
            char nm[160];
            snprintf(nm, sizeof nm, "%.120s_p", v->name->str);
            Binding *bp = binding_fresh(m, &S.names, nm, v->dataflow || rb->dataflow, ps,
                                        layout_transform_new(m, var_ref(&m->arena, b0->var, bd->loc), maps[k - 1], NULL,
                                                             bd->loc), bd->loc);
            var_say(m, bp->var, "the planned layout of ", v, "");
            Expr *back = im_to_expr(&m->arena, &m->names, inv);
            arena_release(&S.scratch, mark);
            Binding *bv = arena_zalloc(&m->arena, sizeof *bv);
            *bv = *bd;
            bv->value = layout_transform_new(m, var_ref(&m->arena, bp->var, bd->loc), back, NULL, bd->loc);
            ptrmap_put(&S.sunk, bp->var, 1);
            ptrmap_put(&moved, b0->var, 1);
            vec_push(&m->arena, &out, &n, &cap, b0);
            vec_push(&m->arena, &out, &n, &cap, bp);
            vec_push(&m->arena, &out, &n, &cap, bv);
        }
        rb->binds = out;
        rb->nbinds = n;
    }
    count_uses(fn, &S.uses);
    for (int b = 0; b < fn->nblocks; b++)
        sweep_block(&S, fn->blocks[b]);
    sweep_free(&S);
    ptrmap_free(&moved);
    fold_rewrites(m, fn, notes);
}
