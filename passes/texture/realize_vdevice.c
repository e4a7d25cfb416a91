/* realize-vdevice (seed 003): every value gets the virtual device of the
 * values it is computed together with (a call's operands and result, a
 * rebinding, a tuple and its fields), starting from what the text states:
 * vdevice annotations, R.hint_on_device, R.to_vdevice and the return
 * annotation. Placement never flows across a hint or a copy. A hint then
 * becomes a plain binding when its operand is already where it asks, else a
 * copy (R.to_vdevice); a value two stated vdevices reach is an error naming
 * both. Last, each PrimFunc's buffers take the scopes of its call sites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/vdevice.h"
#include "../graph.h"
#include "../pass.h"
#include "scope.h"
#include "../../ir/oom.h"

/* Where a placement came from, for the error that finds two. */
typedef struct Place {
    int vdev;                 /* index in the vdevice list, -1 none */
    Loc loc;
    char what[96];
} Place;

typedef struct Realize {
    Module *m;
    PassCtx *ctx;
    Notes notes;
    VDevList vl;
    Var **vars;               /* the function's Relax variables */
    int nvars;
    PtrMap index;             /* a variable: 1 + its index in vars */
    Place *known;             /* what the text states of each variable */
    int *parent;              /* union-find over the variables stated nowhere */
    Place *comp;              /* the placement each set reaches */
    int changed;
} Realize;

static int find(Realize *R, int i)
{
    while (R->parent[i] != i)
        i = R->parent[i] = R->parent[R->parent[i]];
    return i;
}

static int var_index(Realize *R, const Expr *e)
{
    return e && e->kind == E_VAR ? ptrmap_get(&R->index, e->u.var, 0) - 1 : -1;
}

static int is_tuple(const Var *v)
{
    return v->sinfo && v->sinfo->kind == SI_TUPLE;
}

/* A variable placement flows through: not a tuple, whose fields may each be
 * placed elsewhere (a tuple's field is placed by the tuple's annotation). */
static int conducts(Realize *R, const Expr *e)
{
    int i = var_index(R, e);
    return i >= 0 && !is_tuple(R->vars[i]) ? i : -1;
}

static void add_var(Realize *R, Var *v)
{
    if (ptrmap_get(&R->index, v, 0))
        return;
    R->vars[R->nvars] = v;
    R->known[R->nvars].vdev = -1;
    R->parent[R->nvars] = R->nvars;
    R->comp[R->nvars].vdev = -1;
    ptrmap_put(&R->index, v, ++R->nvars);
}

static int lookup(Realize *R, const char *s, Loc loc)
{
    int i = vdev_find_str(&R->vl, s);
    if (i < 0)
        diag_error(R->ctx->src, loc, "vdevice \"%s\" names no entry of the module's I.vdevice list", s);
    return i;
}

static const char *str_arg(const Expr *call, int i)
{
    return call->u.call.nargs > i && call->u.call.args[i]->kind == E_STR ? call->u.call.args[i]->u.str.s : NULL;
}

static const Expr *kw_or_arg(const Expr *call, const char *key, int i)
{
    const Expr *k = call_kwarg(call, key);
    return k ? k : call->u.call.nargs > i ? call->u.call.args[i] : NULL;
}

/* The vdevice a hint names: R.hint_on_device(x, R.device(type, id), scope). */
static int hint_vdevice(Realize *R, const Expr *h)
{
    const Expr *dev = h->u.call.nargs > 1 ? h->u.call.args[1] : NULL;
    const Expr *sc = kw_or_arg(h, "memory_scope", 2);
    const Expr *t = dev && dev->kind == E_CALL ? kw_or_arg(dev, "dev_type", 0) : NULL;
    const Expr *id = dev && dev->kind == E_CALL ? kw_or_arg(dev, "dev_id", 1) : NULL;
    const char *scope = sc && sc->kind == E_STR ? sc->u.str.s : "global";
    if (!t || t->kind != E_INT || (id && id->kind != E_INT))
        return diag_error(R->ctx->src, h->loc, "R.hint_on_device takes a value, R.device(dev_type, dev_id) and a "
                          "scope"), -1;
    int i = vdev_find(&R->vl, NULL, (int)t->u.i.v, id ? (int)id->u.i.v : 0, scope);
    if (i < 0)
        diag_error(R->ctx->src, h->loc, "no vdevice of the module's I.vdevice list is device %lld:%lld with scope "
                   "\"%s\"", (long long)t->u.i.v, id ? (long long)id->u.i.v : 0LL, scope);
    return i;
}

static void vname(Realize *R, int v, char *buf, size_t cap)
{
    vdev_name(&R->vl, v, buf, cap);
}

/* Records that variable i is placed on p; a second, different placement is
 * the error. */
static int place(Realize *R, Place *slot, const Place *p, const Var *at)
{
    if (slot->vdev < 0) {
        *slot = *p;
        return 0;
    }
    if (slot->vdev == p->vdev)
        return 0;
    char a[96], b[96];
    vname(R, slot->vdev, a, sizeof a);
    vname(R, p->vdev, b, sizeof b);
    return diag_error(R->ctx->src, at->loc, "'%s' is placed on two vdevices: \"%s\" by %s at line %d and \"%s\" by %s "
                      "at line %d", at->name->str, a, slot->what, slot->loc.line, b, p->what, p->loc.line);
}

static int stated(Realize *R, Var *v, const StructInfo *si, const char *what, Loc loc)
{
    if (!si || !si->vdevice)
        return 0;
    Place p = { lookup(R, si->vdevice, si->loc.line ? si->loc : loc), loc, "" };
    if (p.vdev < 0)
        return -1;
    snprintf(p.what, sizeof p.what, "%s", what);
    return place(R, &R->known[var_index(R, &(Expr){ .kind = E_VAR, .u.var = v })], &p, v);
}

/* What the text states: annotations, hints, copies, the return annotation. */
static int sources(Realize *R, Func *fn)
{
    char what[96];
    for (int i = 0; i < fn->nparams; i++) {
        snprintf(what, sizeof what, "the annotation of '%s'", fn->params[i]->name->str);
        if (stated(R, fn->params[i], fn->params[i]->sinfo, what, fn->params[i]->loc))
            return -1;
    }
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            int k = var_index(R, &(Expr){ .kind = E_VAR, .u.var = bd->var });
            snprintf(what, sizeof what, "the annotation of '%s'", bd->var->name->str);
            if (stated(R, bd->var, bd->annot, what, bd->loc))
                return -1;
            Place p = { -1, bd->loc, "" };
            const Expr *t = bd->value->kind == E_GETITEM ? bd->value->u.get.tuple : NULL;
            const StructInfo *ts = t && t->kind == E_VAR ? t->u.var->sinfo : NULL;
            if (ts && ts->kind == SI_TUPLE && bd->value->u.get.index >= 0 && bd->value->u.get.index < ts->nfields &&
                ts->fields[bd->value->u.get.index]->vdevice) {
                snprintf(what, sizeof what, "the annotation of '%s'", t->u.var->name->str);
                if (stated(R, bd->var, ts->fields[bd->value->u.get.index], what, bd->loc))
                    return -1;
                continue;
            }
            if (is_call_to(bd->value, "R.hint_on_device")) {
                p.vdev = hint_vdevice(R, bd->value);
                snprintf(p.what, sizeof p.what, "R.hint_on_device");
            } else if (is_call_to(bd->value, "R.to_vdevice")) {
                const char *s = str_arg(bd->value, 1);
                if (!s)
                    return diag_error(R->ctx->src, bd->value->loc, "R.to_vdevice takes a value and a vdevice string");
                p.vdev = lookup(R, s, bd->value->loc);
                snprintf(p.what, sizeof p.what, "R.to_vdevice");
            } else {
                continue;
            }
            if (p.vdev < 0 || place(R, &R->known[k], &p, bd->var))
                return -1;
        }
    if (fn->ret && fn->ret->vdevice && var_index(R, fn->result) >= 0) {
        Place p = { lookup(R, fn->ret->vdevice, fn->ret->loc), fn->ret->loc, "the return annotation" };
        if (p.vdev < 0 || place(R, &R->known[var_index(R, fn->result)], &p, fn->result->u.var))
            return -1;
    }
    return 0;
}

/* The variables a binding's value is computed together with. */
static int partners(Realize *R, const Expr *e, int *out, int cap)
{
    int n = 0;
    if (e->kind == E_VAR)
        out[n++] = conducts(R, e);
    else if (e->kind == E_CALL && !is_call_to(e, "R.hint_on_device") && !is_call_to(e, "R.to_vdevice"))
        for (int i = 0; i < e->u.call.nargs; i++) {
            const Expr *a = e->u.call.args[i];
            if (a->kind == E_TUPLE)
                for (int j = 0; j < a->u.list.n && n < cap; j++)
                    out[n++] = conducts(R, a->u.list.items[j]);
            else if (n < cap)
                out[n++] = conducts(R, a);
        }
    return n;
}

/* Whether v can be a texture: a 5-d tensor whose last extent is 4. */
static int texture_able(const Var *v)
{
    int64_t c;
    const StructInfo *si = v->sinfo;
    return si && si->kind == SI_TENSOR && si->ndim == 5 && si->shape && expr_const_int(si->shape[4], &c) == 0 &&
           c == 4;
}

/* A texture placement reaching a value that cannot be a texture (the
 * 4-d operand of a layout_transform into one) places it in its device's
 * global memory instead, or nowhere when the module declares none. */
static int degrade(Realize *R, int vdev, const Var *v)
{
    if (vdev < 0 || texture_kind(R->vl.v[vdev].scope) == TEX_NONE || texture_able(v))
        return vdev;
    return vdev_find(&R->vl, R->vl.v[vdev].kind, 0, R->vl.v[vdev].id, "global");
}

/* Joins the variables stated nowhere that are computed together, then
 * gives each set the placement its stated neighbours give it. */
static int spread(Realize *R, Func *fn)
{
    enum { CAP = 256 };
    int pv[CAP];
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < fn->nblocks; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                Binding *bd = fn->blocks[b]->binds[i];
                int y = var_index(R, &(Expr){ .kind = E_VAR, .u.var = bd->var });
                int n = is_tuple(bd->var) ? 0 : partners(R, bd->value, pv, CAP);
                for (int k = 0; k < n; k++) {
                    int x = pv[k];
                    if (x < 0)
                        continue;
                    int ux = R->known[x].vdev < 0, uy = R->known[y].vdev < 0;
                    if (pass == 0 && ux && uy)
                        R->parent[find(R, x)] = find(R, y);
                    else if (pass == 1 && ux != uy) {
                        int u = ux ? x : y, s = ux ? y : x;
                        Place p = R->known[s];
                        p.vdev = degrade(R, p.vdev, R->vars[u]);
                        if (p.vdev >= 0 && place(R, &R->comp[find(R, u)], &p, R->vars[u]))
                            return -1;
                    }
                }
            }
    return 0;
}

/* A set no statement reaches takes the place its hints ask for: global
 * memory when one of them asks for it, else the first. */
static void hinted_inputs(Realize *R, Func *fn)
{
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            int y = var_index(R, &(Expr){ .kind = E_VAR, .u.var = bd->var });
            int x = is_call_to(bd->value, "R.hint_on_device") ? var_index(R, bd->value->u.call.args[0]) : -1;
            if (x < 0 || R->known[x].vdev >= 0)
                continue;
            Place *c = &R->comp[find(R, x)];
            int want = R->known[y].vdev;
            if (c->vdev < 0 || (c->what[0] == '~' && strcmp(R->vl.v[c->vdev].scope, "global") != 0 &&
                                strcmp(R->vl.v[want].scope, "global") == 0)) {
                c->vdev = want;
                c->loc = bd->loc;
                snprintf(c->what, sizeof c->what, "~the hint");
            }
        }
}

static int placement(Realize *R, int i)
{
    return R->known[i].vdev >= 0 ? R->known[i].vdev : degrade(R, R->comp[find(R, i)].vdev, R->vars[i]);
}

static StructInfo *placed(Realize *R, const StructInfo *si, int v)
{
    char name[96];
    vname(R, v, name, sizeof name);
    if (si->vdevice && strcmp(si->vdevice, name) == 0)
        return (StructInfo *)si;
    R->changed = 1;
    return sinfo_placed(&R->m->arena, si, name);
}

/* Writes the placements into the types, and each hint as a binding or a copy. */
static void apply(Realize *R, Func *fn)
{
    for (int i = 0; i < fn->nparams; i++) {
        Var *p = fn->params[i];
        int v = placement(R, i);
        if (v >= 0 && p->sinfo && p->sinfo->kind == SI_TENSOR && !p->sinfo->vdevice)
            p->sinfo = placed(R, p->sinfo, v);
    }
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            int y = var_index(R, &(Expr){ .kind = E_VAR, .u.var = bd->var }), v = placement(R, y);
            StructInfo *si = bd->annot ? bd->annot : bd->var->sinfo;
            if (v >= 0 && si && si->kind == SI_TENSOR)
                bd->annot = bd->var->sinfo = placed(R, si, v);
            if (!is_call_to(bd->value, "R.hint_on_device"))
                continue;
            Expr *x = bd->value->u.call.args[0];
            int xi = var_index(R, x), xv = xi >= 0 ? placement(R, xi) : -1;
            char name[96];
            R->changed = 1;
            if (xi < 0 || xv == v) {
                bd->value = x;
                note_add(&R->notes, bd->loc, "%s: a plain binding: its operand is on the vdevice it asks for",
                         bd->var->name->str);
                continue;
            }
            vname(R, v, name, sizeof name);
            bd->value = call_new(R->m, "R.to_vdevice", x, NULL, NULL, 0, bd->loc);
            Expr **args = arena_array(&R->m->arena, 2, sizeof *args);
            args[0] = x;
            args[1] = expr_str(&R->m->arena, name, bd->loc);
            bd->value->u.call.args = args;
            bd->value->u.call.nargs = 2;
            note_add(&R->notes, bd->loc, "%s: a copy to \"%s\"", bd->var->name->str, name);
        }
}

static int realize_func(Realize *R, Func *fn)
{
    int cap = fn->nparams + 1;
    for (int b = 0; b < fn->nblocks; b++)
        cap += fn->blocks[b]->nbinds;
    R->vars = xcalloc((size_t)cap, sizeof *R->vars);
    R->known = xcalloc((size_t)cap, sizeof *R->known);
    R->comp = xcalloc((size_t)cap, sizeof *R->comp);
    R->parent = xcalloc((size_t)cap, sizeof *R->parent);
    if (!R->vars || !R->known || !R->comp || !R->parent)
        oom_fail();
    R->nvars = 0;
    for (int i = 0; i < fn->nparams; i++)
        add_var(R, fn->params[i]);
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++)
            add_var(R, fn->blocks[b]->binds[i]->var);
    int status = sources(R, fn) || spread(R, fn) ? -1 : 0;
    if (!status) {
        hinted_inputs(R, fn);
        apply(R, fn);
    }
    free(R->vars);
    free(R->known);
    free(R->comp);
    free(R->parent);
    ptrmap_free(&R->index);
    return status;
}

int pass_realize_vdevice(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Realize R = { .m = m, .ctx = ctx };
    Loc loc;
    char why[200];
    if (vdev_list(m, &R.vl, &loc, why, sizeof why))
        return diag_error(ctx->src, loc, "%s", why), -1;
    int status = 0;
    for (int i = 0; i < m->nfuncs && !status; i++) {
        Func *fn = m->funcs[i];
        if (fn->kind != F_RELAX)
            continue;
        if (has_control_flow(fn)) {
            note_add(&R.notes, fn->loc, "%s: left as it is: it has control flow", fn->name->str);
            continue;
        }
        infer_types(m, fn);
        status = realize_func(&R, fn);
    }
    if (!status)
        scope_follow_calls(m, &R.notes);
    notes_emit(&R.notes, ctx, "realize-vdevice", 0);
    return status;
}
