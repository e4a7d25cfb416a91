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
 * cycle: flow,fold run again then changes nothing (pass_flow). Here: the
 * sweep, the rounds and what plan asks (flow.h); one call is moved through
 * in flow_call.c, operators keep their form in flow_ops.c, answers are kept
 * in flow_cache.c, sinking is flow_sink.c, the search flow_fixpoint.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "fold.h"
#include "flow_internal.h"
#include "../../ir/oom.h"

int push_out(Sweep *S, Binding *b)
{
    if (S->nout == S->cap) {
        int cap = S->cap ? 2 * S->cap : 64;
        /* each kept as soon as it moved: realloc freed the old one, and
         * sweep_free frees what S holds if the second cannot grow */
        S->out = xrealloc(S->out, (size_t)cap * sizeof *S->out);
        S->dead = xrealloc(S->dead, (size_t)cap);
        S->cap = cap;
    }
    S->out[S->nout] = b;
    S->dead[S->nout] = 0;
    return S->nout++;
}

/* 1 + the index of v's binding in the block swept, or 0: sweep_block
 * stamps each variable it binds with a mark of its own range (a look-up in
 * a table per use touched a table as large as the block, out of cache at
 * 100,000 bindings; the variable is read beside its binding). */
static int def_at(const Sweep *S, const Var *v)
{
    unsigned at = v->mark - S->def_base;   /* below the range: wraps past def_n */
    return at - 1 < (unsigned)S->def_n ? (int)at : 0;
}

static void def_set(Sweep *S, Var *v, int i)
{
    v->mark = S->def_base + (unsigned)i + 1;
}

/* A demand answered: its list of slots goes. */
static void demand_done(Demand *D)
{
    free(D->slots);
    D->slots = NULL;
}

void demand_add(Sweep *S, Var *x, Expr *map, const Expr *pad, int slot)
{
    int d = def_at(S, x) - 1;
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
        int *s = xrealloc(D->slots, (size_t)D->cap * sizeof *s);
        if (!s)
            oom_fail();
        D->slots = s;
    }
    D->slots[D->nslots++] = slot;
}

/* Whether operand x is a constant or a variable of this block bound to one. */
static int is_constant(const Sweep *S, const Expr *x)
{
    if (x->kind == E_CONST)
        return 1;
    int d = x->kind == E_VAR ? def_at(S, x->u.var) : 0;
    return d && S->rb->binds[d - 1]->value->kind == E_CONST;
}

/* Whether the call e reads constants only and fold evaluates it there,
 * rewrite and all (fold_evaluates_in), so the rewrite stays with it. */
static int from_constants(const Sweep *S, const Expr *e)
{
    const OpInfo *op;
    Expr *const *items;
    int n;
    if (e->kind != E_CALL || e->u.call.callee || !fold_evaluates_in(S->fn, S->rb->dataflow, e))
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
    return def_at(S, e->u.get.tuple->u.var) - 1;
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
    return x->kind == E_VAR ? def_at(S, x->u.var) : 0;
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
    /* when this binding is a link (is_link) and link_gen is the sweep's:
     * the links from it on, up to and including it (at most LINKS_MAX),
     * and the operand the last one reads, at end_d (see links_from) */
    int link_gen, links, end_d;
    const Expr *end_x;
} Producer;

static Producer producer_of(const Sweep *S, const Expr *e)
{
    Producer p = { PROD_STOP, 0, NULL, NULL, 0, 0, 0, NULL };
    if (e->kind == E_CONST || is_layout_transform(e) || from_constants(S, e))
        p.kind = PROD_FREE;
    else if (e->kind == E_GETITEM && e->u.get.tuple->kind == E_VAR)
        p.kind = PROD_ITEM;
    else if ((p.n = operands_of(e, &p.items)) > 0)
        p.kind = PROD_CALL;
    return p;
}

/* Reads again what left_behind reads of binding i, after sinking changed
 * it while the producers read before stay in use (sink_to_smaller): its
 * operands' places go in the module's arena, a few words per sinking. */
static void producer_reread(Sweep *S, int i)
{
    const Expr *e = S->rb->binds[i]->value;
    Producer *p = &S->prod[i];
    *p = producer_of(S, e);
    if (p->kind == PROD_ITEM) {
        p->defs = arena_alloc(&S->m->arena, sizeof *p->defs);
        p->defs[0] = def_of(S, e->u.get.tuple);
    } else if (p->kind == PROD_CALL) {
        p->defs = arena_array(&S->m->arena, (size_t)p->n, sizeof *p->defs);
        for (int k = 0; k < p->n; k++)
            p->defs[k] = def_of(S, p->items[k]);
    }
    S->nuses[i] = ptrmap_get(&S->uses, S->rb->binds[i]->var, 0);
}

/* The places the producers' operands (or tuples) are bound at, in S->defs. */
static void producers_read(Sweep *S, const RBlock *rb)
{
    size_t total = 0;
    for (int i = 0; i < rb->nbinds; i++) {
        S->prod[i] = producer_of(S, rb->binds[i]->value);
        total += S->prod[i].kind == PROD_CALL ? (size_t)S->prod[i].n : S->prod[i].kind == PROD_ITEM;
    }
    S->defs = xmalloc((total + 1) * sizeof *S->defs);
    if (!S->defs)
        oom_fail();
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

/* A link of a chain (y = relu(negative(x))): a call of one operand that only
 * one call reads. left_behind passes through it to its operand one level
 * deeper, and reaches it only from that reader, so at most once per guess. */
static int is_link(const Sweep *S, int d)
{
    const Producer *p = &S->prod[d - 1];
    return p->kind == PROD_CALL && p->n == 1 && S->nuses[d - 1] == 1;
}

/* Past 64 levels left_behind stops (one rewrite left): a run of that many
 * links ends the same however long it goes on. */
enum { LINKS_MAX = 65 };

/* The links from d (a link) on, at most LINKS_MAX, and what the last one
 * reads (*xe, bound at *de): so left_behind crosses a chain in one step
 * instead of one level per link, per binding the sweep visits (a chain of n
 * calls cost 64 n steps). Kept in the producers until a use count changes. */
static int links_from(Sweep *S, int d, const Expr **xe, int *de)
{
    int path[LINKS_MAX], np = 0, e = d;
    while (np < LINKS_MAX && e && S->prod[e - 1].link_gen != S->link_gen && is_link(S, e)) {
        path[np++] = e;
        e = S->prod[e - 1].defs[0];
    }
    /* e: known already, not a link (or not of this block), or past the most counted */
    int capped = np == LINKS_MAX && e && S->prod[e - 1].link_gen != S->link_gen && is_link(S, e);
    for (int j = np - 1; j >= 0; j--) {
        Producer *p = &S->prod[path[j] - 1];
        int next = p->defs[0];
        const Producer *q = next ? &S->prod[next - 1] : NULL;
        if (q && q->link_gen == S->link_gen && q->links) {
            p->links = q->links + 1 > LINKS_MAX ? LINKS_MAX : q->links + 1;
            p->end_x = q->end_x;
            p->end_d = q->end_d;
        } else {
            p->links = capped && j == np - 1 ? LINKS_MAX : 1;
            p->end_x = p->items[0];
            p->end_d = next;
        }
        p->link_gen = S->link_gen;
    }
    const Producer *p = &S->prod[d - 1];
    *xe = p->end_x;
    *de = p->end_d;
    return p->links;
}

/* left_behind of the link d at depth: the first link past 64 levels leaves
 * one rewrite, else it is what the run's last link reads leaves. The links
 * are not memoized: each is reached once per guess (is_link). */
static int chain_left(Sweep *S, int d, int depth, int *memo)
{
    if (S->memo_gen[d - 1] == S->gen)
        return memo[d - 1];
    const Expr *xe;
    int de, n = links_from(S, d, &xe, &de);
    return depth + n - 1 > 64 ? 1 : left_behind(S, xe, de, 1, depth + n, memo);
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
    if (S->check)
        check_producer(S, x, d);
    if (p->kind == PROD_FREE)
        cost = 0;
    else if (S->nuses[d - 1] > occ || depth > 64)
        cost = 1;   /* the other consumers may want the same rewrite */
    else if (p->kind == PROD_ITEM && p->defs[0] && S->nuses[p->defs[0] - 1] == 1)
        cost = left_behind(S, S->rb->binds[d - 1]->value->u.get.tuple, p->defs[0], 1, depth + 1, memo);
    else if (p->kind != PROD_CALL)
        cost = HARD;   /* it stops here for good */
    else if (p->n == 1 && p->defs[0] && p->items[0]->kind == E_VAR && S->jump && is_link(S, p->defs[0]))
        cost = chain_left(S, p->defs[0], depth + 1, memo);
    else
        cost = operands_left(S, p->items, p->defs, p->n, depth + 1, memo);
    if (cost > 1 << 28)
        cost = 1 << 28;
    memo[d - 1] = cost;
    S->memo_gen[d - 1] = S->gen;
    return cost;
}

/* One guess: left_behind summed over the operands of a call whose value
 * has S->size elements. */
static int guess(Sweep *S, Expr *const *items, int n)
{
    ptrmap_free(&S->inputs);
    S->gen++;   /* a guess of its own: inputs are counted once in it */
    int cost = operands_left(S, items, NULL, n, 0, S->memo);
    ptrmap_free(&S->inputs);
    if (S->check) {   /* LOPT_FLOW_CACHE=check: the same guess one level at a time */
        S->jump = 0;
        S->gen++;
        int walked = operands_left(S, items, NULL, n, 0, S->memo);
        ptrmap_free(&S->inputs);
        S->jump = 1;
        if (walked != cost) {
            fprintf(stderr, "lopt: internal error: LOPT_FLOW_CACHE=check: a guess across runs of calls leaves %d "
                    "rewrites, one call at a time %d\n", cost, walked);
            abort();
        }
    }
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
    return guess(S, items, n);
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
    if (def_of(S, x)) {
        S->nuses[def_of(S, x) - 1] = ptrmap_get(&S->uses, x->u.var, 0);
        S->link_gen++;   /* x may have become a link, or stopped being one */
    }
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
    int uses = S->nuses[i], left = 0;   /* kept alike with S->uses: no look-up in a table per binding */
    if (S->check && uses != ptrmap_get(&S->uses, bd->var, 0)) {
        fprintf(stderr, "lopt: internal error: LOPT_FLOW_CACHE=check: the uses of %s kept for the sweep are %d, "
                "not %d\n", bd->var->name->str, uses, ptrmap_get(&S->uses, bd->var, 0));
        abort();
    }
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
            demand_done(D);
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
            demand_done(D);
            return;
        } else if (pk)
            note_add(S->notes, at, "left: %s is %s", var_said(bd->var), pk);
        else if (tuple_producer(S, bd->value) >= 0) {
            /* a = t[k]: the rewrites wait for t's call */
            int t = tuple_producer(S, bd->value);
            waiting = xcalloc(1, sizeof *waiting);
            if (!waiting)
                oom_fail();
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
            demand_done(D);
            return;
        } else {
            note_add(S->notes, at, "flow stopped at %s: %s", var_said(bd->var), why);
        }
    }
    demand_done(D);
    int slot = push_out(S, bd);
    if (waiting)
        waiting->slot = slot;
    Expr *e = bd->value;
    if (is_layout_transform(e)) {
        Expr *x = e->u.call.args[0];
        if (x->kind == E_VAR && def_at(S, x->u.var))
            demand_add(S, x->u.var, call_kwarg(e, "index_map"), call_kwarg(e, "pad_value"), slot);
        else if (x->kind == E_VAR)
            note_add(S->notes, bd->loc, "left: %s is %s", var_said(x->u.var),
                     x->u.var->dataflow ? "defined in another block" : "a parameter of the function");
        else
            note_add(S->notes, bd->loc, "left: its operand is a constant (fold rewrites it)");
    }
}

/* Before the visits: a rewrite y = lt(p, B) that only a reduction or a
 * slice reads, and that the sweep would leave where it is (further up it
 * would stay on more than one producer, or stop for good at a convolution),
 * moves past the call onto its smaller result (sink_smaller). Where it could go up
 * and cancel, or stay on one producer (a parameter, a value others read),
 * the sweep decides as before: a rewrite sunk there would be carried back up.
 * Returns how many moved. */
static int sink_to_smaller(Sweep *S, RBlock *rb)
{
    int moved = 0;
    for (int j = 0; j < rb->nbinds; j++) {
        const Expr *e = rb->binds[j]->value;
        if (e->kind != E_CALL || e->u.call.callee || e->u.call.nargs < 1)
            continue;
        int i = def_of(S, e->u.call.args[0]) - 1;
        const Expr *rw = i >= 0 ? rb->binds[i]->value : NULL;
        if (!rw || !is_layout_transform(rw) || S->nuses[i] != 1 || !def_of(S, rw->u.call.args[0]))
            continue;
        DType dt;
        int nd;
        int64_t sh[16];
        S->size = 1;
        if (sinfo_shape(rb->binds[j]->var->sinfo, &dt, &nd, sh) == 0 && nd <= 16)
            for (int k = 0; k < nd; k++)
                S->size *= sh[k];
        int left = guess(S, rw->u.call.args, 1);
        Var *y = rb->binds[i]->var;
        if (left <= 1 || !sink_smaller(S, rb, i, j))
            continue;
        moved++;
        if (rb->binds[i]->var != y) {   /* y_s took y's place */
            def_set(S, rb->binds[i]->var, i);
            ptrmap_put(&S->uses, rb->binds[i]->var, 1);
        }
        /* the guesses of later bindings may reach i and j (seed 700030:
         * a reshape of s read s's producer as the rewrite it was) */
        producer_reread(S, i);
        producer_reread(S, j);
        S->link_gen++;
    }
    return moved;
}

/* What a sweep holds for one block; also freed with the sweep, should an
 * allocation fail while the block is swept. */
static void sweep_block_free(Sweep *S)
{
    for (int i = 0; i < S->ntabs; i++) {
        if (S->dem)
            demand_done(&S->dem[i]);
        if (S->items) {
            items_free(S->items[i]);
            S->items[i] = NULL;
        }
    }
    S->ntabs = 0;
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

static void sweep_block(Sweep *S, RBlock *rb)
{
    S->def_base = module_stamps(S->m, (size_t)rb->nbinds);
    S->def_n = rb->nbinds;
    for (int i = 0; i < rb->nbinds; i++)
        def_set(S, rb->binds[i]->var, i);
    S->rb = rb;
    S->memo = xmalloc(((size_t)rb->nbinds + 1) * sizeof *S->memo);
    S->memo_gen = xcalloc((size_t)rb->nbinds + 1, sizeof *S->memo_gen);
    S->gen = 1;
    S->link_gen = 1;   /* the producers read below know no runs of links */
    S->dem = xcalloc((size_t)rb->nbinds + 1, sizeof *S->dem);
    S->items = xcalloc((size_t)rb->nbinds + 1, sizeof *S->items);
    S->ntabs = rb->nbinds;
    S->prod = xmalloc(((size_t)rb->nbinds + 1) * sizeof *S->prod);
    S->nuses = xmalloc(((size_t)rb->nbinds + 1) * sizeof *S->nuses);
    if (!S->dem || !S->items || !S->memo || !S->memo_gen || !S->prod || !S->nuses)
        oom_fail();
    for (int i = 0; i < rb->nbinds; i++)
        S->nuses[i] = ptrmap_get(&S->uses, rb->binds[i]->var, 0);
    producers_read(S, rb);
    if (!S->plan && sink_to_smaller(S, rb)) {
        free(S->defs);
        S->defs = NULL;
        producers_read(S, rb);
    }
    S->nout = 0;
    for (int i = rb->nbinds - 1; i >= 0; i--)
        visit(S, rb->binds[i], i);
    int n = 0;
    for (int k = 0; k < S->nout; k++)
        n += !S->dead[k];
    Binding **nb = arena_array(&S->m->arena, (size_t)n + 1, sizeof *nb);
    int j = 0;
    for (int k = S->nout - 1; k >= 0; k--)
        if (!S->dead[k]) {
            nb[j++] = S->out[k];
            S->rewrites += is_layout_transform(S->out[k]->value);
        }
    rb->binds = nb;
    rb->nbinds = n;
    sweep_block_free(S);
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
    sweep_block_free(S);
    ptrmap_free(&S->uses);
    ptrmap_free(&S->sunk);
    ptrmap_free(&S->names);
    free(S->out);
    free(S->dead);
    arena_free(&S->scratch);
    arena_free(&S->stage);
    flow_cache_free(&S->cache);
    flow_place_free(S);
}

static void sweep_free_v(void *S)
{
    sweep_free(S);
}

/* One round over fn: fold's cancelling part, sinking, the backward sweep.
 * Returns how many notes it wrote that say it changed something, and sets
 * *rewrites to the rewrites it leaves (count_rewrites, read as the sweep
 * puts the bindings back). */
static int flow_round(Module *m, Func *fn, PassCtx *ctx, Notes *notes, int sink, int *rewrites)
{
    Sweep S = { .m = m, .fn = fn, .ctx = ctx, .notes = notes, .jump = 1, .check = flow_cache_mode() == 2 };
    oom_defer(sweep_free_v, &S);
    int acts = notes->acts;
    /* a dead consumer must not stop a rewrite, nor may one of a pair
     * that cancels move alone */
    fold_rewrites(m, fn, notes);
    infer_types(m, fn);
    collect_names(fn, &S.names);
    int stale = 1;   /* S.uses is to be counted: sinking changed a binding since */
    for (int b = 0; sink && b < fn->nblocks; b++) {
        if (stale) {
            ptrmap_free(&S.uses);
            count_uses(fn, &S.uses);
        }
        stale = sink_block(&S, fn->blocks[b]) != 0;
    }
    if (stale) {
        ptrmap_free(&S.uses);
        count_uses(fn, &S.uses);
    }
    for (int b = 0; b < fn->nblocks; b++)
        sweep_block(&S, fn->blocks[b]);
    oom_keep(&S);
    sweep_free(&S);
    *rewrites = S.rewrites;
    return notes->acts - acts;
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
            Notes notes = { .mute = all->mute };
            int after;
            int acts = flow_round(m, fn, ctx, &notes, sink, &after);
            sink = after < before;   /* sinking again only while rewrites go */
            before = after;
            for (int i = 0; i < notes.n; i++) {
                if (!acts || round == 7 || !note_is_stop(notes.v[i].text))
                    note_add(all, notes.v[i].loc, "%s", notes.v[i].text);
                free(notes.v[i].text);
            }
            free(notes.v);
            if (!acts)
                break;
        }
    }
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
    int rc = stacks(scratch, "R.concat", map, NULL, t, *n, k, &j, start, pt, &ot, why, cap);
    for (int i = 0; rc == 0 && i < *n; i++)
        opmaps[i] = clone_expr(keep, &(Subst){ 0 }, map);
    return rc;
}

int flow_probe(Module *m, Arena *scratch, Arena *keep, const Expr *e, int item, const Expr *map, Expr **opmaps,
               Expr *const **items, int *n, char *why, size_t cap)
{
    return flow_probe_pad(m, scratch, keep, e, item, map, NULL, opmaps, NULL, items, n, why, cap);
}

int flow_probe_pad(Module *m, Arena *scratch, Arena *keep, const Expr *e, int item, const Expr *map,
                   const double *pad, Expr **opmaps, double *inpad, Expr *const **items, int *n, char *why, size_t cap)
{
    if (item < 0 && is_call_to(e, "R.concat")) {
        if (pad)
            return snprintf(why, cap, "R.concat into a padded layout"), -1;
        return probe_concat(m, scratch, keep, e, map, opmaps, items, n, why, cap);
    }
    Arena stage = { 0 };
    arena_scratch(&stage);
    Module sm;
    ModuleLoan loan;
    module_lend(&loan, m, &sm, &stage);
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
    int failed = !f || *n > FLOW_MAX_ARGS || flow_tir(&sm, scratch, f, nout, maps, pad != NULL, pad ? *pad : 0, fname, &r);
    if (failed && f)
        snprintf(why, cap, "%s", *n > FLOW_MAX_ARGS ? "too many operands" : r.why);
    for (int k = 0; !failed && k < *n; k++) {
        opmaps[k] = r.map[k] ? clone_expr(keep, &(Subst){ 0 }, r.map[k]) : NULL;
        if (inpad)   /* NAN: operand k is read with no padding */
            inpad[k] = r.map[k] && r.padded[k] && r.has_pad ? r.pad : NAN;
    }
    module_give_back(&loan);   /* m's names as flow_tir grew them; stage as sm grew it */
    arena_scratch_end(&stage);
    return failed ? -1 : 0;
}

Expr *flow_reduce_reading(Module *m, const Expr *e, const Expr *pmap, const TensorType *pt, const TensorType *yt,
                          Loc loc)
{
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    ImError err;
    ImCond *pred = NULL;
    int npred = 0;
    IndexMap *im = im_from_expr(&tmp, pmap, pt->shape, &err);
    IndexMap *inv = im ? im_inverse(&tmp, im, &pred, &npred, &err) : NULL;
    Expr *back = inv && !npred ? im_to_expr(&m->arena, &m->names, inv) : NULL;
    arena_scratch_end(&tmp);
    return back && e->kind == E_CALL && e->u.call.nargs == 1 ? reduce_through(m, e, back, pt, yt, loc) : NULL;
}

void flow_realize(Module *m, Func *fn, PassCtx *ctx, Notes *notes, const PtrMap *plan, Expr *const *maps,
                  const PtrMap *reads)
{
    PtrMap moved = { 0 };
    Sweep S = { .m = m, .fn = fn, .ctx = ctx, .notes = notes, .plan = &moved, .jump = 1,
                .check = flow_cache_mode() == 2 };
    oom_defer(ptrmap_free_v, &moved);
    oom_defer(sweep_free_v, &S);
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
            int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
            int padded = inv && npred && im_classify(im, wa, wb) == IM_PADDED;
            if (!inv || (npred && !padded)) {
                arena_release(&S.scratch, mark);
                vec_push(&m->arena, &out, &n, &cap, bd);
                continue;
            }
            Expr *back = im_to_expr(&m->arena, &m->names, inv);
            IndexMap *bim = padded ? im_from_expr(&S.scratch, back, im->obox, &err) : NULL;
            int back_ok = bim && im_classify(bim, wa, wb) == IM_BIJECTIVE && bim->nout == t.ndim;
            for (int d = 0; back_ok && d < t.ndim; d++)
                back_ok = bim->obox[d] >= t.shape[d];
            if (padded && !back_ok) {   /* the inverse holds only on the image (C < 4 folds c // 4 to 0) */
                arena_release(&S.scratch, mark);
                vec_push(&m->arena, &out, &n, &cap, bd);
                continue;
            }
            /* v = f(...) becomes v0 = f(...); v_p = lt(v0, L); v = lt(v_p, L^-1):
             * the sweep moves L through f, and fold cancels what meets; a
             * padded L (NCHW4c on 6 channels) pads with 0 and comes back as
             * L^-1 over the padded box, then the crop to v's shape */
            Var *v = bd->var;
            Binding *b0 = binding_fresh(m, &S.names, v->name->str, v->dataflow || rb->dataflow, v->sinfo, bd->value,
                                        bd->loc);
            var_say(m, b0->var, "the value of ", v, "");
            StructInfo *ps = tensor_sinfo_new(&m->arena, t.dtype, im->nout, im->obox, bd->loc);
            char nm[160];
            snprintf(nm, sizeof nm, "%.120s_p", v->name->str);
            Binding *bp = binding_fresh(m, &S.names, nm, v->dataflow || rb->dataflow, ps,
                                        layout_transform_new(m, var_ref(&m->arena, b0->var, bd->loc), maps[k - 1],
                                                             padded ? expr_float(&m->arena, 0, DT_VOID, bd->loc) : NULL,
                                                             bd->loc), bd->loc);
            var_say(m, bp->var, "the planned layout of ", v, "");
            Binding *bb = NULL;
            if (bim) {   /* the padded form as written, which the crop cuts to v */
                snprintf(nm, sizeof nm, "%.120s_b", v->name->str);
                bb = binding_fresh(m, &S.names, nm, v->dataflow || rb->dataflow,
                                   tensor_sinfo_new(&m->arena, t.dtype, bim->nout, bim->obox, bd->loc),
                                   layout_transform_new(m, var_ref(&m->arena, bp->var, bd->loc), back, NULL, bd->loc),
                                   bd->loc);
                var_say(m, bb->var, "the padded form of ", v, "");
            }
            arena_release(&S.scratch, mark);
            Binding *bv = arena_zalloc(&m->arena, sizeof *bv);
            *bv = *bd;
            bv->value = bb ? crop_new(m, var_ref(&m->arena, bb->var, bd->loc), &t, bd->loc)
                           : layout_transform_new(m, var_ref(&m->arena, bp->var, bd->loc), back, NULL, bd->loc);
            ptrmap_put(&S.sunk, bp->var, 1);
            ptrmap_put(&moved, b0->var, 1);
            vec_push(&m->arena, &out, &n, &cap, b0);
            vec_push(&m->arena, &out, &n, &cap, bp);
            if (bb)
                vec_push(&m->arena, &out, &n, &cap, bb);
            vec_push(&m->arena, &out, &n, &cap, bv);
        }
        rb->binds = out;
        rb->nbinds = n;
    }
    count_uses(fn, &S.uses);
    for (int b = 0; b < fn->nblocks; b++)
        sweep_block(&S, fn->blocks[b]);
    oom_keep(&S);
    sweep_free(&S);
    oom_keep(&moved);
    ptrmap_free(&moved);
    fold_rewrites(m, fn, notes);
}
