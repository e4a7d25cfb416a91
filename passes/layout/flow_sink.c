/* flow's sinking: before the backward sweep, a rewrite moves forward past
 * an elementwise operator (or into a reduction, its axes renumbered).
 *
 * y = g(lt(p, B), lt(q, B), c) with every rewrite used only here and every
 * other operand a constant is the same as lt(g'(p, q, c'), B). Sinking writes
 * it as y0 = g(...); y_t = lt(y0, B^-1); y = lt(y_t, B): the backward sweep
 * then carries B^-1 into g, where it meets the operands' B and fold cancels
 * them. Two rewrites become one, and a rewrite that meets its inverse
 * further on (the next convolution's) cancels there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/indexmap.h"
#include "flow_internal.h"
#include "../../ir/oom.h"

/* What sinking looks ahead on: the block's bindings as written, where each
 * value is bound, who reads it (a list per binding: first[i], then next[]),
 * and what is known of each binding; and where the bindings went in the
 * block sinking writes out. The variable of binding j has mark base + j + 1
 * (a range of scope stamps sink_block takes): a look-up in a table as large
 * as the block, per operand, was out of cache at 100,000 bindings. */
typedef struct Ahead {
    const RBlock *rb;
    unsigned base;
    int *first, *next, *who, nlinks, caplinks;
    signed char *pays;     /* per binding: -1 unknown, 0 or 1 */
    int now;               /* the binding sinking is at */
    int *out;              /* per binding before it: 1 + its place among those written out */
    PtrMap made;           /* the variables sinking made -> 1 + their place */
} Ahead;

/* 1 + the index of v's binding in the block as written, or 0. */
static int bound_at(const Ahead *A, const Var *v)
{
    unsigned at = v->mark - A->base;   /* below the range: wraps past nbinds */
    return at - 1 < (unsigned)A->rb->nbinds ? (int)at : 0;
}

/* 1 + the place of v's binding among those written out so far, or 0. */
static int written_at(const Ahead *A, const Var *v)
{
    int j = bound_at(A, v);
    if (j && j - 1 < A->now)
        return A->out[j - 1];
    return A->made.n ? ptrmap_get(&A->made, v, 0) : 0;
}

static int sink_operands(Sweep *S, const Ahead *A, Binding **binds, const PtrMap *uses, const PtrMap *rwuses,
                         const Expr *e, const OpInfo *op, const Expr **map, const Expr **inner)
{
    int nrw = 0;
    for (int k = 0; k < op->ntensors; k++) {
        const Expr *a = e->u.call.args[k];
        if (a->kind == E_CONST)
            continue;
        if (a->kind != E_VAR)
            return 0;
        int i = written_at(A, a->u.var);
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

static void ahead_link(Ahead *A, int i, int j)
{
    if (A->nlinks == A->caplinks) {
        A->caplinks = A->caplinks ? 2 * A->caplinks : 64;
        A->next = xrealloc(A->next, (size_t)A->caplinks * sizeof *A->next);
        A->who = xrealloc(A->who, (size_t)A->caplinks * sizeof *A->who);
        if (!A->next || !A->who)
            oom_fail();
    }
    A->who[A->nlinks] = j;
    A->next[A->nlinks] = A->first[i];
    A->first[i] = A->nlinks++;
}

static void ahead_init(Ahead *A, const RBlock *rb)
{
    int n = rb->nbinds;
    A->rb = rb;
    A->pays = xmalloc((size_t)n + 1);
    A->first = xmalloc(((size_t)n + 1) * sizeof *A->first);
    if (!A->pays || !A->first)
        oom_fail();
    memset(A->pays, -1, (size_t)n + 1);
    for (int j = 0; j < n; j++)
        rb->binds[j]->var->mark = A->base + (unsigned)j + 1;
    for (int j = 0; j < n; j++) {
        A->first[j] = -1;
        const Expr *e = rb->binds[j]->value;
        if (e->kind == E_GETITEM)
            e = e->u.get.tuple;
        int na = e->kind == E_CALL ? e->u.call.nargs : e->kind == E_VAR ? 1 : 0;
        for (int k = 0; k < na; k++) {
            const Expr *a = e->kind == E_VAR ? e : e->u.call.args[k];
            int d = a->kind == E_VAR ? bound_at(A, a->u.var) - 1 : -1;   /* bound before j */
            if (d >= 0 && d < j && (A->first[d] < 0 || A->who[A->first[d]] != j))
                ahead_link(A, d, j);
        }
    }
}

static void ahead_free(Ahead *A)
{
    ptrmap_free(&A->made);
    free(A->out);
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
        int d = a->kind == E_VAR ? bound_at(A, a->u.var) - 1 : -1;
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

static int sink(Sweep *S, Binding **binds, const PtrMap *uses, const PtrMap *rwuses, Binding *bd,
                const RBlock *rb, Binding **made, Ahead *A, int at)
{
    Module *m = S->m;
    Expr *e = bd->value, *call = e;
    if (e->kind == E_GETITEM && e->u.get.index == 0 && e->u.get.tuple->kind == E_VAR &&
        written_at(A, e->u.get.tuple->u.var) && ptrmap_get(uses, e->u.get.tuple->u.var, 0) == 1) {
        /* y = bn(lt(p, B), constants)[0]: batch_norm with training=False is
         * elementwise in its data, per channel in the rest, which fold
         * rewrites (training, it reads the whole batch for each channel) */
        call = binds[written_at(A, e->u.get.tuple->u.var) - 1]->value;
        if (!is_call_to(call, "R.nn.batch_norm") || op_batch_norm_training(call))
            return 0;
    }
    const OpInfo *op = call->kind == E_CALL && !call->u.call.callee ? op_find(call->u.call.op->str) : NULL;
    if (!op || op->tuple_arg || (op->tuple_out && call == e) || call->u.call.nargs < op->ntensors)
        return 0;
    const Expr *map = NULL, *inner = NULL;
    if (op->category == LAYOUT_LIGHT && op->ntensors == 1 &&
        sink_operands(S, A, binds, uses, rwuses, e, op, &map, &inner))
        return sink_reduce(S, bd, map, inner);
    int nrw;
    if ((op->category != LAYOUT_AGNOSTIC && call == e) ||
        !(nrw = sink_operands(S, A, binds, uses, rwuses, call, op, &map, &inner)))
        return 0;
    if (nrw == 1 && !sink_pays(S, A, uses, rwuses, at, map, inner->u.var->sinfo, 0))
        return 0;
    TensorType pt, yt;
    if (!bd->var->sinfo || value_type(inner, &pt) || sinfo_shape(bd->var->sinfo, &yt.dtype, &yt.ndim, yt.shape))
        return 0;
    /* the result must have the shape of the rewritten operands (no broadcast up) */
    const Expr *a0 = NULL;
    for (int k = 0; k < op->ntensors && !a0; k++)
        if (call->u.call.args[k]->kind == E_VAR && written_at(A, call->u.call.args[k]->u.var) &&
            is_layout_transform(binds[written_at(A, call->u.call.args[k]->u.var) - 1]->value))
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

int sink_block(Sweep *S, RBlock *rb)
{
    PtrMap rwuses = { 0 };
    const PtrMap *uses = &S->uses;
    int changed = 0;
    for (int i = 0; i < rb->nbinds; i++) {
        const Expr *e = rb->binds[i]->value;
        if (is_layout_transform(e) && e->u.call.args[0]->kind == E_VAR)
            ptrmap_put(&rwuses, e->u.call.args[0]->u.var, ptrmap_get(&rwuses, e->u.call.args[0]->u.var, 0) + 1);
    }
    /* the bindings as they come out, with what sinking makes: in the
     * module only when something sank (a sweep usually sinks nothing, and
     * the block's array then stays) */
    int n = 0, cap = rb->nbinds + 16;
    Binding **out = xmalloc((size_t)cap * sizeof *out);
    if (!out)
        oom_fail();
    Ahead A = { .base = module_stamps(S->m, (size_t)rb->nbinds) };
    ahead_init(&A, rb);
    A.out = xmalloc(((size_t)rb->nbinds + 1) * sizeof *A.out);
    if (!A.out)
        oom_fail();
    for (int i = 0; i < rb->nbinds; i++) {
        Binding *bd = rb->binds[i], *made[2];
        if (n + 3 > cap) {
            cap *= 2;
            Binding **o = xrealloc(out, (size_t)cap * sizeof *out);
            if (!o)
                oom_fail();
            out = o;
        }
        A.now = i;
        int did = sink(S, out, uses, &rwuses, bd, rb, made, &A, i);
        changed += did != 0;
        if (did == 1) {
            ptrmap_put(&S->sunk, made[1]->var, 1);
            for (int k = 0; k < 2; k++) {
                out[n++] = made[k];
                ptrmap_put(&A.made, made[k]->var, n);
            }
        }
        out[n++] = bd;
        A.out[i] = n;
    }
    ahead_free(&A);
    if (n != rb->nbinds) {   /* else out holds rb's bindings as they were */
        rb->binds = arena_array(&S->m->arena, (size_t)n + 1, sizeof *rb->binds);
        memcpy(rb->binds, out, (size_t)n * sizeof *out);
        rb->nbinds = n;
    }
    free(out);
    ptrmap_free(&rwuses);
    return changed;
}

/* s = op(lt(p, B)) for a light operator whose result is smaller than its
 * operand (strided_slice) and that keeps its form under B's inverse
 * (keep_light): op'(p) in p's layout, of type *rt, and B after it (*kept).
 * NULL when that cannot be said. */
static Expr *slice_split(Sweep *S, const Expr *e, const Expr *map, const TensorType *pt, const TensorType *st,
                         Expr **kept, TensorType *rt)
{
    Module *m = S->m;
    TensorType yt;
    int64_t np = 1, ns = 1;
    for (int d = 0; d < pt->ndim; d++)
        np *= pt->shape[d];
    for (int d = 0; d < st->ndim; d++)
        ns *= st->shape[d];
    if (ns >= np || value_type(e->u.call.args[0], &yt))
        return NULL;
    ArenaMark mark = arena_mark(&S->scratch);
    ImError err;
    ImCond *pred = NULL;
    int npred = 0;
    IndexMap *im = im_from_expr(&S->scratch, map, pt->shape, &err);
    IndexMap *inv = im && im_classify(im, NULL, NULL) == IM_BIJECTIVE
                        ? im_inverse(&S->scratch, im, &pred, &npred, &err) : NULL;
    Expr *back = inv && !npred ? im_to_expr(&m->arena, &m->names, inv) : NULL;
    Expr *c = back ? keep_light(m, &S->scratch, e, back, back, &yt) : NULL;
    IndexMap *r = c ? im_from_expr(&S->scratch, back, st->shape, &err) : NULL;
    IndexMap *k = r && im_classify(r, NULL, NULL) == IM_BIJECTIVE ? im_from_expr(&S->scratch, map, r->obox, &err)
                                                                   : NULL;
    int ok = k && k->nout == st->ndim && im_classify(k, NULL, NULL) == IM_BIJECTIVE;
    for (int q = 0; ok && q < st->ndim; q++)
        ok = k->obox[q] == st->shape[q];
    if (ok) {
        rt->dtype = st->dtype;
        rt->ndim = r->nout;
        memcpy(rt->shape, r->obox, (size_t)r->nout * sizeof *rt->shape);
        *kept = (Expr *)map;
    }
    arena_release(&S->scratch, mark);
    return ok ? c : NULL;
}

/* y = lt(p, B) at binding i, read only by s = op(y) at binding j, a
 * reduction that keeps the reduced dimensions whole under B (reduce_split)
 * or a slice that keeps its form (slice_split): y's binding becomes
 * y_s = op'(p) and s's s = lt(y_s, B'), a rewrite of the smaller tensor
 * (TVM's sum over H and W of an NCHW4c convolution's result rewritten to
 * NCHW, its strided_slice of an NHWC one). Returns 1 when done. */
int sink_smaller(Sweep *S, RBlock *rb, int i, int j)
{
    Module *m = S->m;
    Binding *s = rb->binds[j];
    const Expr *rw = rb->binds[i]->value;
    Expr *e = s->value, *kept = NULL, *p = rw->u.call.args[0], *map = call_kwarg(rw, "index_map");
    TensorType pt, yt, rt;
    if (call_kwarg(rw, "pad_value") || value_type(p, &pt) ||
        sinfo_shape(s->var->sinfo, &yt.dtype, &yt.ndim, yt.shape))
        return 0;
    Expr *c = reduce_split(m, &S->scratch, e, map, &pt, &yt, &kept, &rt, s->loc);
    if (!c)
        c = slice_split(S, e, map, &pt, &yt, &kept, &rt);
    if (!c || !kept)   /* B into the reduction whole: sink_block's (reduce_through) */
        return 0;
    c->u.call.args[0] = p;
    char nm[160];
    snprintf(nm, sizeof nm, "%.120s_s", s->var->name->str);
    Binding *ys = binding_fresh(m, &S->names, nm, rb->binds[i]->var->dataflow || rb->dataflow,
                                tensor_sinfo_new(&m->arena, rt.dtype, rt.ndim, rt.shape, s->loc), c, s->loc);
    var_say(m, ys->var, "the form of ", s->var, " in its operand's layout");
    rb->binds[i] = ys;
    s->value = layout_transform_new(m, var_ref(&m->arena, ys->var, s->loc), kept, NULL, s->loc);
    note_add(S->notes, s->loc, "sank the rewrite of %s's operand past %s", var_said(s->var), e->u.call.op->str);
    return 1;
}
