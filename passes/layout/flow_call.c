/* Moving a rewrite through one call (flow_call; a tuple's items at once:
 * flow_tuple): flow_tir's answer for the callee, the operands' rewrites, and
 * the new call, the operator kept when flow_ops.c allows, else a call_tir. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "flow_internal.h"

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
    if (stacks(&S->scratch, "R.concat", map, pad, t, n, k, &j, start, pt, &ot, why, cap))
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
Func *callee_of(Module *m, const Expr *e, int tuple, const OpInfo **opp, Expr *const **itemsp, int *np,
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

/* Legalizes c's operator (when it is one) and flows maps through its
 * function, both built in arena a (m's names, a fresh name for the copy).
 * Returns 0 and fills r, or -1 with why filled. */
static int flow_compute(Module *m, Arena *a, Arena *scratch, const Expr *e, const Callee *c, int nout,
                        const Expr *const *maps, int has_pad, double pad, FlowTir *r, char *why, size_t cap)
{
    Module sm;
    ModuleLoan loan;
    module_lend(&loan, m, &sm, a);
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
    module_give_back(&loan);
    if (failed && f)
        snprintf(why, cap, "%s", r->why);
    return failed ? -1 : 0;
}

/* flow_tir's answer for the call e of callee ce and the maps of its nmaps
 * results: the one kept in the cache (*hit), else computed, and kept when
 * the cache has room (*ans: the answer kept, hit or new, or NULL); the
 * operands' maps copied into the module. 0 and r filled, or -1 with why
 * filled. Under LOPT_FLOW_CACHE=check an answer found is computed again and
 * compared. */
static int flow_answer(Sweep *S, const Expr *e, const Callee *ce, const Expr *const *maps, int nmaps, int has_pad,
                       double padv, FlowTir *r, FlowAnswer **hitp, FlowAnswer **ansp, char *why, size_t cap)
{
    Module *m = S->m;
    FlowTir fresh;
    uint64_t h = 0;
    int keyed = answer_hash(e, ce, maps, nmaps, has_pad, padv, &h) == 0;
    FlowAnswer *hit = keyed ? answer_find(&S->cache, h, e, ce, maps, nmaps, has_pad, padv) : NULL, *ans = hit;
    int failed = 0;
    if (!hit || flow_cache_mode() == 2) {
        int store = keyed && !hit && S->cache.a.used < ANSWERS_MAX_BYTES;
        failed = flow_compute(m, store ? &S->cache.a : &S->stage, &S->scratch, e, ce, nmaps, maps, has_pad, padv,
                              &fresh, why, cap);
        if (hit)
            answer_check(hit, e, failed, &fresh, why);
        else if (store)
            ans = answer_add(&S->cache, h, e, ce, maps, nmaps, has_pad, padv, failed, &fresh, why);
        *r = fresh;
    }
    if (hit) {
        failed = hit->failed;
        if (failed)
            snprintf(why, cap, "%s", hit->why);
        else
            *r = hit->r;
    }
    *hitp = hit;
    *ansp = ans;
    if (failed)
        return -1;
    for (int k = 0; k < ce->n && k < FLOW_MAX_ARGS; k++)
        if (r->map[k])
            r->map[k] = hit ? map_share(m, hit, k) : map_copy(&m->arena, r->map[k]);
    return 0;
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

/* Flows the rewrite (map, pad) of the value bd computes through bd's call.
 * On success bd's value becomes the new call (result var y) and the operands'
 * rewrites are pushed. Returns 0, or -1 with why filled. */
int flow_call(Sweep *S, Binding *bd, Var *y, Expr *map, const Expr *pad, Loc loc, char *why, size_t cap)
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
    FlowTir r;
    const Expr *maps[1] = { map };
    FlowAnswer *hit, *ans;
    if (flow_answer(S, e, &ce, maps, 1, has_pad, padv, &r, &hit, &ans, why, cap)) {
        arena_release(&S->stage, smark);
        return -1;
    }
    int computed = !hit || flow_cache_mode() == 2;
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
        if (!keep && !has_pad && (light = keep_light(S->m, &S->scratch, e, map, r.map[0], &it)) != NULL) {
            light->u.call.args[0] = args[0];
            light->loc = e->loc;
        } else if (!keep && !has_pad) {
            light = keep_unit_axes(S->m, e, map, r.map[0], &it, args[0]);
        }
        if (!keep && !light)
            light = keep_crop(S->m, &S->scratch, e, map, r.map[0], r.padded[0], r.has_pad, r.pad, &it, args[0]);
    } else if (((is_call_to(e, "R.nn.layer_norm") && n == 3) ||
                (is_call_to(e, "R.reverse_sequence") && n == 2 && !r.map[1])) &&
               r.map[0] && !has_pad && value_type(items[0], &it) == 0 &&
               (light = keep_light(S->m, &S->scratch, e, map, r.map[0], &it)) != NULL) {
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
        /* the copy goes into m, or one the sweep placed that prints alike
         * (flow_place): a kept answer's copy carries the location of the
         * call it was made for, so this call's is built and compared,
         * unless a call of the same answer took one still in the module
         * (which flow_place would find) */
        Func *g = answer_placed(m, ans);
        if (!g) {
            FlowTir fresh = r;
            if (!computed && flow_compute(m, &S->stage, &S->scratch, e, &ce, 1, maps, has_pad, padv, &fresh, why, cap)) {
                fprintf(stderr, "lopt: internal error: flow's kept answer for the call at %d:%d fails when computed "
                        "again\n", e->loc.line, e->loc.col);
                abort();
            }
            int made;
            g = flow_place(S, fresh.f, &made);
            if (made)
                module_add_func(m, g);
            if (ans)
                ans->placed = g;
        }
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

/* The maps of the items of the tuple binding i computes (bd, through a
 * callee named name of nout results) that wait in S->items[i], with the
 * identity for batch_norm's statistics read as they are (*others of them):
 * 0 and kept[] filled (NULL: a result nothing reads), *pad the items' pad
 * value, or -1 with why filled. */
static int tuple_maps(Sweep *S, Binding *bd, int i, const char *name, int nout, const Expr **kept, const Expr **padp,
                      int *others, char *why, size_t cap)
{
    Module *m = S->m;
    const Expr *maps[FLOW_MAX_OUT] = { 0 }, *pad = NULL;
    int count = 0;
    if (nout > FLOW_MAX_OUT)
        return snprintf(why, cap, "%s returns more than %d results", name, FLOW_MAX_OUT), -1;
    for (ItemDem *it = S->items[i]; it; it = it->next, count++) {
        if (it->item < 0 || it->item >= nout)
            return snprintf(why, cap, "%s has no item %d", bd->var->name->str, it->item), -1;
        if (maps[it->item] && !(same_pad(pad, it->pad) &&
                                same_rewrite(&S->scratch, maps[it->item], it->map, it->get->var->sinfo)))
            return snprintf(why, cap, "item %d of %s is read twice in two layouts", it->item, bd->var->name->str), -1;
        if (count && !same_pad(pad, it->pad))
            return snprintf(why, cap, "the rewrites of %s's items pad with different values", bd->var->name->str), -1;
        maps[it->item] = it->map;
        pad = it->pad;
    }
    int uses = ptrmap_get(&S->uses, bd->var, 0);
    /* batch_norm's statistics read as they are stay where they are
     * (keep_light keeps the call's form; flow_tuple checks it does) */
    *others = 0;
    for (int k = 0; uses > count && is_call_to(bd->value, "R.nn.batch_norm") && k < S->rb->nbinds; k++) {
        const Expr *g = S->rb->binds[k]->value;
        if (g->kind == E_GETITEM && g->u.get.tuple->kind == E_VAR && g->u.get.tuple->u.var == bd->var &&
            g->u.get.index > 0 && g->u.get.index < nout && !maps[g->u.get.index]) {
            (*others)++;
            /* read as it is: the flowed copy keeps it, in its layout */
            const StructInfo *si = bd->var->sinfo;
            int rank = si && si->kind == SI_TUPLE && g->u.get.index < si->nfields &&
                               si->fields[g->u.get.index]->kind == SI_TENSOR ? si->fields[g->u.get.index]->ndim : -1;
            if (rank < 1 || !(maps[g->u.get.index] = identity_map(&S->scratch, &m->names, rank, g->loc)))
                return snprintf(why, cap, "%s has %d other consumer%s", bd->var->name->str, uses - count,
                                uses - count == 1 ? "" : "s"), -1;
        }
    }
    if (uses != count + *others)
        return snprintf(why, cap, "%s has %d other consumer%s", bd->var->name->str, uses - count,
                        uses - count == 1 ? "" : "s"), -1;
    memcpy(kept, maps, sizeof maps);
    *padp = pad;
    return 0;
}

/* The items of t read as they are (batch_norm's statistics, beside a
 * result that moves), already swept into S->out, now read the flowed
 * copy: their index counts the results it keeps before them. */
static void renumber_others(Sweep *S, Var *t, const Expr *const *kept, int nout, int single)
{
    for (int k = 0; k < S->nout; k++) {
        Binding *b = S->out[k];
        const Expr *g = b->value;
        if (S->dead[k] || g->kind != E_GETITEM || g->u.get.tuple->kind != E_VAR || g->u.get.tuple->u.var != t ||
            g->u.get.index < 0 || g->u.get.index >= nout)
            continue;
        int at = 0;
        for (int j = 0; j < g->u.get.index; j++)
            at += kept[j] != NULL;
        if (at == g->u.get.index && !single)
            continue;
        Binding *nb = arena_zalloc(&S->m->arena, sizeof *nb);
        *nb = *b;
        if (single) {
            nb->value = var_ref(&S->m->arena, t, g->loc);
        } else {
            nb->value = expr_new(&S->m->arena, E_GETITEM, g->loc);
            nb->value->u.get.tuple = var_ref(&S->m->arena, t, g->loc);
            nb->value->u.get.index = at;
        }
        S->out[k] = nb;
    }
}

/* Binding bd (t = a call returning a tuple) has every use an item whose
 * rewrites wait in S->items[i]: flows them all through the call at once.
 * Results nothing reads are dropped from the rewritten function. */
int flow_tuple(Sweep *S, Binding *bd, int i, char *why, size_t cap)
{
    Module *m = S->m;
    Expr *e = bd->value;
    Callee ce;
    if (callee_find(e, 1, &ce, why, cap))
        return -1;
    const OpInfo *op = ce.op;
    Expr *const *items = ce.items;
    int n = ce.n, nout = ce.nout, others;
    const Expr *kept[FLOW_MAX_OUT] = { 0 }, *ipad;   /* the results the flowed copy keeps: read items, with others' */
    if (tuple_maps(S, bd, i, callee_name(&ce), nout, kept, &ipad, &others, why, cap))
        return -1;
    double ipadv = 0;
    int ihas_pad = const_number(ipad, &ipadv) == 1;
    /* the legalized operator and its flowed copy are built in the staging
     * arena, as flow_call's (or the cache's, when the answer is kept): only
     * the copy a call_tir keeps goes into m */
    ArenaMark smark = arena_mark(&S->stage);
    FlowTir r;
    FlowAnswer *hit, *ans;
    if (flow_answer(S, e, &ce, kept, nout, ihas_pad, ipadv, &r, &hit, &ans, why, cap)) {
        arena_release(&S->stage, smark);
        return -1;
    }
    const Expr *maps[FLOW_MAX_OUT] = { 0 }, *pad = NULL;
    for (ItemDem *it = S->items[i]; it; it = it->next) {
        maps[it->item] = it->map;
        pad = it->pad;
    }
    double padv = 0;
    int has_pad = const_number(pad, &padv) == 1;
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
    int typed = same && !has_pad && value_type(items[0], &in0) == 0;
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
    Expr *call = NULL;
    if (typed) {
        Expr *c = keep_light(S->m, &S->scratch, e, maps[0], r.map[0], &in0);
        if (c) {
            memcpy(c->u.call.args, args, (size_t)n * sizeof *args);
            c->loc = e->loc;
            call = c;
            light = 1;
            for (int k = 0, j = 0; k < nout; k++)
                fields[k] = maps[k] ? tup->fields[j++] : old->fields[k];
            tup = tuple_sinfo_new(&m->arena, fields, nout, loc);
        } else if (is_call_to(e, "R.split") && r.nout == nout && same_rewrite(&S->scratch, r.map[0], maps[0], items[0]->u.var->sinfo)) {
            c = split_stacked(S->m, &S->scratch, e, args[0], maps[0], old, nout, in0.ndim);
            if (c) {
                call = c;
                light = 1;
            }
        }
    }
    Func *g = NULL;
    int made = 0;
    if (!light) {
        if (!(g = answer_placed(m, ans))) {
            g = flow_place(S, r.f, &made);
            if (ans)
                ans->placed = g;
        }
        call = call_tir_new(m, g, args, n, si, e->loc);
    }
    arena_release(&S->stage, smark);
    /* One result left is the tensor itself, as in TVM, where out_sinfo=[X]
     * is X: no call_tir returns a tuple of one. */
    int single = !light && r.nout == 1;
    if (single) {
        call->u.call.args[2] = si->u.list.items[0];
        tup = fields[0];
    }
    /* each item's first rewrite now reads the new tuple (or the one result);
     * the others alias it */
    for (ItemDem *it = S->items[i]; it; it = it->next) {
        int at = 0;
        for (int k = 0; k < it->item; k++)
            at += light || kept[k] != NULL;
        Binding *first = S->out[it->slots[it->nslots - 1]];
        Binding *nb = arena_zalloc(&m->arena, sizeof *nb);
        nb->loc = first->loc;
        nb->var = first->var;
        nb->annot = first->var->sinfo ? first->var->sinfo : tup->fields[at];
        first->var->sinfo = nb->annot;
        if (single) {
            nb->value = var_ref(&m->arena, bd->var, it->get->value->loc);
        } else {
            nb->value = expr_new(&m->arena, E_GETITEM, it->get->value->loc);
            nb->value->u.get.tuple = var_ref(&m->arena, bd->var, it->get->value->loc);
            nb->value->u.get.index = at;
        }
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
    if (others && !light)
        renumber_others(S, bd->var, kept, nout, single);
    if (made)
        module_add_func(m, g);
    bd->var->sinfo = tup;
    TensorType unused = { 0 };
    commit_flow(S, bd, bd->var, call, &unused, pre, npre, loc);
    return 0;
}
