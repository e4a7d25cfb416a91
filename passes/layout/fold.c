/* fold: removes the rewrites that flow brought together (seed 000, "Folding
 * layout rewrites"). Adjacent R.layout_transforms compose into one; a rewrite
 * proven the identity on its domain goes; R.crop after R.pad always cancels,
 * R.pad after R.crop only when the cropped values equal the pad value; a
 * rewrite of a constant becomes the rewritten constant. Then copies are
 * propagated, dead bindings removed, and PrimFuncs no one calls dropped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../interp/interp.h"
#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../graph.h"
#include "fold.h"
#include "../../ir/oom.h"

typedef struct Fold {
    Module *m;
    Notes *notes;
    unsigned base;        /* the variable of defs[i] has mark base + i + 1 (def_of) */
    Binding **defs;
    int ndefs, cap;
    PtrMap last_rw;       /* Var x -> index + 1 into defs of the last rewrite of x */
    int *prev_rw;         /* per defs index: index + 1 of the rewrite of the same value before it */
    Arena scratch;        /* the index-map algebra's working memory */
    Interp *in;           /* evaluates operators over constants; made when first needed */
    int64_t max_bytes;    /* the largest result of a creation operator folded */
    int cancel_only;      /* compose only pairs that cancel (the first phase) */
    Func *fn;             /* the function swept */
    PtrMap uses;          /* Var -> its uses, counted when a permute_dims first asks (have_uses) */
    int have_uses;
} Fold;

static Binding *def_of(const Fold *F, const Expr *e)
{
    if (!e || e->kind != E_VAR)
        return NULL;
    unsigned at = e->u.var->mark - F->base;   /* below the range: wraps past ndefs */
    return at - 1 < (unsigned)F->ndefs ? F->defs[at - 1] : NULL;
}

/* The variable a binding rewrites (x in lt(x, M)), or NULL. */
static const Var *rewritten(const Binding *b)
{
    if (!is_layout_transform(b->value) || b->value->u.call.args[0]->kind != E_VAR)
        return NULL;
    return b->value->u.call.args[0]->u.var;
}

/* A binding's value is final once added (the rules change the binding they
 * look at), so the rewrites of each value are chained as they come. */
static void def_add(Fold *F, Binding *b)
{
    if (F->ndefs == F->cap) {
        /* each array kept as soon as it moved (realloc freed the old one):
         * fold_done frees them when an allocation fails */
        int cap = F->cap ? 2 * F->cap : 64;
        F->defs = xrealloc(F->defs, (size_t)cap * sizeof *F->defs);
        F->prev_rw = xrealloc(F->prev_rw, (size_t)cap * sizeof *F->prev_rw);
        F->cap = cap;
    }
    const Var *x = rewritten(b);
    F->prev_rw[F->ndefs] = x ? ptrmap_get(&F->last_rw, x, 0) : 0;
    F->defs[F->ndefs++] = b;
    b->var->mark = F->base + (unsigned)F->ndefs;
    if (x)
        ptrmap_put(&F->last_rw, x, F->ndefs);
}

/* The value behind a variable bound to a constant, or the constant itself. */
static const Expr *const_of(const Fold *F, const Expr *e)
{
    if (e->kind == E_CONST)
        return e;
    const Binding *b = def_of(F, e);
    return b && b->value->kind == E_CONST ? b->value : NULL;
}

static int shape_of(const Fold *F, const Expr *e, DType *dt, int *nd, int64_t *sh)
{
    const Expr *c = const_of(F, e);
    if (c) {
        if (c->u.cst.ndim > IM_MAX_RANK)
            return -1;
        *dt = c->u.cst.dtype;
        *nd = c->u.cst.ndim;
        memcpy(sh, c->u.cst.shape, (size_t)*nd * sizeof *sh);
        return 0;
    }
    return e->kind == E_VAR ? sinfo_shape(e->u.var->sinfo, dt, nd, sh) : -1;
}

/* The map of rewrite lt over an operand of shape sh, when it is one to one. */
static IndexMap *rw_map(Arena *a, const Expr *lt, const int64_t *sh, int nd, ImKind *kind)
{
    const Expr *map = call_kwarg(lt, "index_map");
    ImError err;
    if (!map || map->kind != E_INDEXMAP || nd != map->u.map.nparams)
        return NULL;
    IndexMap *im = im_from_expr(a, map, sh, &err);
    if (im)
        *kind = im_classify(im, NULL, NULL);
    return im && (*kind == IM_BIJECTIVE || *kind == IM_PADDED) ? im : NULL;
}

static IndexMap *map_of(Arena *a, const Fold *F, const Expr *lt, ImKind *kind)
{
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK];
    return shape_of(F, lt->u.call.args[0], &dt, &nd, sh) ? NULL : rw_map(a, lt, sh, nd, kind);
}

/* Whether c keeps every point where it is, in a box at least as large: the
 * identity followed by padding at the high end of each dimension. */
static int pads_only(const IndexMap *c)
{
    if (c->nin != c->nout)
        return 0;
    for (int d = 0; d < c->nin; d++)
        if (c->obox[d] < c->box[d])
            return 0;
    IndexMap same = *c;
    same.obox = c->box;
    return im_is_identity(&same);
}

/* Whether one rewrite by cm (c written out) over the shape xsh gives the
 * box c reaches (a map's outputs reach a box of their own). */
static int rewrite_fills(const Expr *cm, const IndexMap *c, const int64_t *xsh)
{
    ImError err;
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    IndexMap *back = im_from_expr(&tmp, cm, xsh, &err);
    int fills = back && back->nout == c->nout && memcmp(back->obox, c->obox, (size_t)c->nout * sizeof *c->obox) == 0;
    arena_scratch_end(&tmp);
    return fills;
}

/* The map of z = lt(lt(x, M1), M2) written as M2's outputs over M1's: the
 * bounds a padded output reads (w // 4 of a w below 2 still spans a box of
 * 4 in w % 4) stay as the maps say them, where the composite written out
 * from its IndexMap is simplified over the smaller box it reaches. NULL
 * when the maps do not chain. */
static Expr *map_substituted(Arena *a, const Expr *m1, const Expr *m2)
{
    if (!m1 || !m2 || m1->kind != E_INDEXMAP || m2->kind != E_INDEXMAP || m1->u.map.nout != m2->u.map.nparams)
        return NULL;
    Expr *first = clone_expr(a, &(Subst){ 0 }, m1);
    Subst s = { 0 };
    for (int i = 0; i < m2->u.map.nparams; i++)
        subst_var(a, &s, m2->u.map.params[i], first->u.map.out[i]);
    Expr *c = arena_alloc(a, sizeof *c);
    *c = *first;
    c->u.map.out = arena_array(a, (size_t)m2->u.map.nout + 1, sizeof(Expr *));
    for (int j = 0; j < m2->u.map.nout; j++)
        c->u.map.out[j] = clone_expr(a, &s, m2->u.map.out[j]);
    c->u.map.nout = m2->u.map.nout;
    return c;
}

int fold_one_rewrite(Module *m, const IndexMap *c, const Expr *m1, const Expr *m2)
{
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    Expr *cm = im_to_expr(&tmp, &m->names, c), *cs = m1 && m2 ? map_substituted(&tmp, m1, m2) : NULL;
    int one = cm && (rewrite_fills(cm, c, c->box) || (cs && rewrite_fills(cs, c, c->box)) || pads_only(c));
    arena_scratch_end(&tmp);
    return one;
}

Expr *rewrite_compose(Module *m, const Expr *y, const Expr *e, const int64_t *xsh, int xnd, int *ident, char *why,
                      size_t cap)
{
    Arena *a = &m->arena;
    Expr *x = y->u.call.args[0];
    ImKind k1, k2;
    IndexMap *m1 = rw_map(a, y, xsh, xnd, &k1), *m2 = m1 ? rw_map(a, e, m1->obox, m1->nout, &k2) : NULL;
    if (!m2)
        return snprintf(why, cap, "%s", ""), NULL;   /* not a pair of one-to-one rewrites: nothing to say */
    double p1 = 0, p2 = 0;
    int h1 = const_number(call_kwarg(y, "pad_value"), &p1) == 1, h2 = const_number(call_kwarg(e, "pad_value"), &p2) == 1;
    const Expr *pad = NULL;
    if (k1 == IM_PADDED && k2 == IM_PADDED && h1 && h2 && p1 != p2)
        return snprintf(why, cap, "would need two pad values"), NULL;
    if (k1 == IM_PADDED && h1)
        pad = call_kwarg(y, "pad_value");
    if (k2 == IM_PADDED && h2)
        pad = call_kwarg(e, "pad_value");
    IndexMap *c = im_compose(a, m2, m1);
    Expr *cm = c ? im_to_expr(a, &m->names, c) : NULL;
    if (!cm)
        return snprintf(why, cap, "the maps do not chain"), NULL;
    int fills = rewrite_fills(cm, c, xsh);
    if (!fills && (cm = map_substituted(a, call_kwarg(y, "index_map"), call_kwarg(e, "index_map"))) != NULL)
        fills = rewrite_fills(cm, c, xsh);   /* written out, the composite was simplified to a smaller box */
    if (ident)
        *ident = fills && im_is_identity(c);
    if (fills)
        return layout_transform_new(m, x, cm, (Expr *)pad, e->loc);
    if (!pads_only(c))
        return snprintf(why, cap, "one rewrite would not give the padded shape"), NULL;
    /* the points stay where they are, in a larger box: a pad */
    int64_t more[IM_MAX_RANK];
    for (int d = 0; d < c->nin; d++)
        more[d] = c->obox[d] - c->box[d];
    return pad_high(m, x, c->nin, more, (Expr *)pad, e->loc);
}

static int ints(const Expr *e, int64_t *v, int max);

/* R.permute_dims(x, axes) as the rewrite it is: R.layout_transform of x by
 * lambda i0, i1, ...: (i[axes[0]], i[axes[1]], ...) (no axes: reversed).
 * NULL when e is not one, or x's rank or the axes are not known. */
static Expr *perm_as_rewrite(const Fold *F, const Expr *e)
{
    if (!is_call_to(e, "R.permute_dims") || e->u.call.nargs < 1)
        return NULL;
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK], axes[IM_MAX_RANK];
    if (shape_of(F, e->u.call.args[0], &dt, &nd, sh))
        return NULL;
    const Expr *ax = call_kwarg(e, "axes");
    if (ax && ax->kind != E_NONE) {
        if (ints(ax, axes, IM_MAX_RANK) != nd)
            return NULL;
    } else {
        for (int d = 0; d < nd; d++)
            axes[d] = nd - 1 - d;
    }
    int seen[IM_MAX_RANK] = { 0 };
    for (int d = 0; d < nd; d++) {
        if (axes[d] < 0)
            axes[d] += nd;
        if (axes[d] < 0 || axes[d] >= nd || seen[axes[d]]++)
            return NULL;
    }
    Arena *a = &F->m->arena;
    Expr *map = identity_map(a, &F->m->names, nd, e->loc);
    for (int d = 0; d < nd; d++)
        map->u.map.out[d] = var_ref(a, map->u.map.params[axes[d]], e->loc);
    return layout_transform_new(F->m, e->u.call.args[0], map, NULL, e->loc);
}

/* A composite that only permutes the axes, written as TVM writes it:
 * R.permute_dims(x, axes=[...]). r itself otherwise. */
static Expr *as_permute(Module *m, Expr *r)
{
    const Expr *map = is_layout_transform(r) ? call_kwarg(r, "index_map") : NULL;
    if (!map || map->kind != E_INDEXMAP || map->u.map.nout != map->u.map.nparams || call_kwarg(r, "pad_value"))
        return r;
    int64_t axes[IM_MAX_RANK];
    for (int q = 0; q < map->u.map.nout; q++) {
        const Expr *o = map->u.map.out[q];
        int k = 0;
        while (k < map->u.map.nparams && !(o->kind == E_VAR && o->u.var == map->u.map.params[k]))
            k++;
        if (k == map->u.map.nparams)
            return r;
        axes[q] = k;
    }
    static const char *const key[] = { "axes" };
    Expr *v = int_list(&m->arena, axes, map->u.map.nout, r->loc);
    return call_new(m, "R.permute_dims", r->u.call.args[0], key, &v, 1, r->loc);
}

/* The permutation map is (each output a parameter, none twice, as many as
 * the parameters): perm[q] = the parameter at output q. -1 otherwise. */
static int map_perm(const Expr *map, int *perm)
{
    if (!map || map->kind != E_INDEXMAP || map->u.map.nout != map->u.map.nparams || map->u.map.nout > IM_MAX_RANK)
        return -1;
    int seen[IM_MAX_RANK] = { 0 };
    for (int q = 0; q < map->u.map.nout; q++) {
        const Expr *o = map->u.map.out[q];
        perm[q] = -1;
        for (int p = 0; o->kind == E_VAR && p < map->u.map.nparams; p++)
            if (map->u.map.params[p] == o->u.var)
                perm[q] = p;
        if (perm[q] < 0 || seen[perm[q]]++)
            return -1;
    }
    return 0;
}

/* Two permutations compose without the extents (a value of symbolic or
 * unknown shape): e's permutation of y's, the identity when they cancel. */
static int compose_perms(Fold *F, Binding *bd, const Binding *yb, const Expr *y, const Expr *e)
{
    int p1[IM_MAX_RANK], p2[IM_MAX_RANK], c[IM_MAX_RANK];
    const Expr *m1 = call_kwarg(y, "index_map"), *m2 = call_kwarg(e, "index_map");
    if (call_kwarg(y, "pad_value") || call_kwarg(e, "pad_value") || map_perm(m1, p1) || map_perm(m2, p2) ||
        m1->u.map.nout != m2->u.map.nparams)
        return 0;
    int n = m2->u.map.nout, ident = 1;
    for (int q = 0; q < n; q++) {
        c[q] = p1[p2[q]];
        ident &= c[q] == q;
    }
    Arena *a = &F->m->arena;
    Expr *x = y->u.call.args[0];
    if (ident) {
        bd->value = x;
        note_add(F->notes, bd->loc, "composed with %s at line %d: the identity", var_said(yb->var), yb->loc.line);
        return 1;
    }
    if (F->cancel_only)
        return 0;
    Expr *map = identity_map(a, &F->m->names, n, bd->loc);
    for (int q = 0; q < n; q++)
        map->u.map.out[q] = var_ref(a, map->u.map.params[c[q]], bd->loc);
    Expr *r = layout_transform_new(F->m, x, map, NULL, bd->loc);
    bd->value = is_call_to(e, "R.permute_dims") || is_call_to(y, "R.permute_dims") ? as_permute(F->m, r) : r;
    note_add(F->notes, bd->loc, "composed with %s at line %d", var_said(yb->var), yb->loc.line);
    return 1;
}

/* Whether a layout_transform of the function reads v. */
static int read_by_rewrite(const Fold *F, const Var *v)
{
    for (int b = 0; F->fn && b < F->fn->nblocks; b++)
        for (int i = 0; i < F->fn->blocks[b]->nbinds; i++) {
            const Expr *e = F->fn->blocks[b]->binds[i]->value;
            if (is_layout_transform(e) && e->u.call.nargs >= 1 && e->u.call.args[0]->kind == E_VAR &&
                e->u.call.args[0]->u.var == v)
                return 1;
        }
    return 0;
}

/* z = lt(y, M2, p2) with y = lt(x, M1, p1): z = lt(x, M2 . M1, p) (see
 * rewrite_compose). A permute_dims on either side is the rewrite it is, and
 * two permutations give a permute_dims. */
static int compose(Fold *F, Binding *bd)
{
    Expr *e = bd->value, *pe = perm_as_rewrite(F, e);
    if (pe)
        e = pe;
    const Binding *yb = def_of(F, e->u.call.args[0]);
    Expr *py = yb ? perm_as_rewrite(F, yb->value) : NULL;
    if (!yb || (!is_layout_transform(yb->value) && !py))
        return 0;
    const Expr *y = py ? py : yb->value;
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK];
    char why[120];
    if (shape_of(F, y->u.call.args[0], &dt, &nd, sh))
        return compose_perms(F, bd, yb, y, e);
    int ident = 0;
    Expr *r = rewrite_compose(F->m, y, e, sh, nd, &ident, why, sizeof why);
    if (F->cancel_only && r && !ident && is_layout_transform(r))
        return 0;   /* a real rewrite: left for the second phase (the arena keeps r, unused) */
    if (F->cancel_only && r && ident && py && !pe && read_by_rewrite(F, bd->var))
        return 0;   /* a rewrite reads it back: that pair cancels first, and the permute_dims stays one */
    if (!r) {
        if (why[0] && !F->cancel_only)
            note_add(F->notes, bd->loc, "kept: composed with %s, %s", var_said(yb->var), why);
        return 0;
    }
    if (!ident && (pe || py))
        r = as_permute(F->m, r);
    if (pe && !py && !ident && !is_call_to(r, "R.permute_dims")) {
        /* a permute_dims of a rewrite that others read too stays one: composed,
         * it would be a rewrite of its own beside the rewrite its other
         * readers keep (plan counts a permute_dims reading a rewrite free) */
        if (!F->have_uses) {
            count_uses(F->fn, &F->uses);
            F->have_uses = 1;
        }
        if (ptrmap_get(&F->uses, yb->var, 0) > 1)
            return 0;
        ptrmap_put(&F->uses, yb->var, 0);
        if (y->u.call.args[0]->kind == E_VAR)
            ptrmap_put(&F->uses, y->u.call.args[0]->u.var, ptrmap_get(&F->uses, y->u.call.args[0]->u.var, 0) + 1);
    }
    bd->value = r;
    note_add(F->notes, bd->loc, "composed with %s at line %d%s", var_said(yb->var), yb->loc.line,
             is_call_to(r, "R.nn.pad") || is_call_to(r, "R.pad") ? ": a pad" : "");
    return 1;
}

static int identity(Fold *F, Binding *bd)
{
    ImKind k;
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    IndexMap *im = map_of(&tmp, F, bd->value, &k);
    int id = im && k == IM_BIJECTIVE && im_is_identity(im);
    arena_scratch_end(&tmp);
    if (!id)
        return 0;
    bd->value = bd->value->u.call.args[0];
    note_add(F->notes, bd->loc, "removed: the rewrite is the identity on its domain");
    return 1;
}

/* A constant of the given type holding data, or when data is NULL its count
 * values for the caller to fill (not zeroed first: weights are large, and
 * every caller writes them all). */
static Expr *const_new(Module *m, DType dt, int ndim, const int64_t *shape, int64_t count, void *data, Loc loc)
{
    Expr *r = expr_new(&m->arena, E_CONST, loc);
    r->u.cst.dtype = dt;
    r->u.cst.ndim = ndim;
    r->u.cst.shape = arena_array(&m->arena, (size_t)ndim + 1, sizeof(int64_t));
    memcpy(r->u.cst.shape, shape, (size_t)ndim * sizeof(int64_t));
    r->u.cst.count = count;
    size_t size = (size_t)dtype_size(dt);
    r->u.cst.data = data;
    if (!data) {
        r->u.cst.data = arena_alloc(&m->arena, ((size_t)count + 1) * size);
        memset((char *)r->u.cst.data + (size_t)count * size, 0, size);
    }
    return r;
}

/* A rewritten constant: src's data under im with padding pad gave data. */
struct ConstFold {
    const void *src;
    const IndexMap *im;
    double pad;
    void *data;
};

static size_t fold_slot(const Module *m, const void *src)
{
    return ((uintptr_t)src >> 4) * 0x9E3779B97F4A7C15u & (m->folds_cap - 1);
}

static int same_fold(const struct ConstFold *f, const void *src, const IndexMap *im, double pad)
{
    return f->src == src && f->im->nin == im->nin &&
           memcmp(f->im->box, im->box, (size_t)im->nin * sizeof *im->box) == 0 && im_equal(f->im, im) &&
           memcmp(&f->pad, &pad, sizeof pad) == 0;
}

/* The data an earlier fold wrote for src under im, or NULL. */
static void *fold_found(const Module *m, const void *src, const IndexMap *im, double pad)
{
    if (!m->nfolds)
        return NULL;
    for (size_t i = fold_slot(m, src); m->folds[i]; i = (i + 1) & (m->folds_cap - 1))
        if (same_fold(m->folds[i], src, im, pad))
            return m->folds[i]->data;
    return NULL;
}

static void fold_put(Module *m, struct ConstFold *f)
{
    if (2 * (m->nfolds + 1) > m->folds_cap) {
        struct ConstFold **old = m->folds;
        size_t cap = m->folds_cap;
        m->folds_cap = cap ? 2 * cap : 16;
        m->folds = arena_array(&m->arena, m->folds_cap, sizeof *m->folds);
        memset(m->folds, 0, m->folds_cap * sizeof *m->folds);
        for (size_t i = 0; i < cap; i++)
            if (old[i]) {
                size_t j = fold_slot(m, old[i]->src);
                while (m->folds[j])
                    j = (j + 1) & (m->folds_cap - 1);
                m->folds[j] = old[i];
            }
    }
    size_t j = fold_slot(m, f->src);
    while (m->folds[j])
        j = (j + 1) & (m->folds_cap - 1);
    m->folds[j] = f;
    m->nfolds++;
}

static int rewrite_const(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    const Expr *c = const_of(F, e->u.call.args[0]);
    ImKind k;
    IndexMap *im = c ? map_of(&F->m->arena, F, e, &k) : NULL;
    if (!im)
        return 0;
    double pad = 0;
    const_number(call_kwarg(e, "pad_value"), &pad);   /* undefined padding may hold anything: 0 */
    int64_t count = 1;
    for (int d = 0; d < im->nout; d++)
        count *= im->obox[d];
    void *data = fold_found(F->m, c->u.cst.data, im, pad);
    Expr *r = const_new(F->m, c->u.cst.dtype, im->nout, im->obox, count, data, e->loc);
    if (!data) {
        DType dt = c->u.cst.dtype;
        size_t size = (size_t)dtype_size(dt);
        if (count > 0) {
            elem_setf(dt, r->u.cst.data, 0, pad);
            elem_repeat(r->u.cst.data, count, size);
        }
        im_move(im, c->u.cst.data, r->u.cst.data, size);
        struct ConstFold *f = arena_alloc(&F->m->arena, sizeof *f);
        *f = (struct ConstFold){ c->u.cst.data, im, pad, r->u.cst.data };
        fold_put(F->m, f);
    }
    bd->value = r;
    note_add(F->notes, bd->loc, "folded into the constant");
    return 1;
}

static int ints(const Expr *e, int64_t *v, int max)
{
    if (!e || (e->kind != E_LIST && e->kind != E_TUPLE) || e->u.list.n > max)
        return -1;
    for (int i = 0; i < e->u.list.n; i++)
        if (expr_const_int(e->u.list.items[i], &v[i]))
            return -1;
    return e->u.list.n;
}

/* A pad with a constant (pad_mode "constant", the default): the rules
 * below know what its padding holds; reflect and edge copy the input. */
static int is_pad(const Expr *e)
{
    if (!is_call_to(e, "R.pad") && !is_call_to(e, "R.nn.pad"))
        return 0;
    const Expr *m = call_kwarg(e, "pad_mode");
    return !m || (m->kind == E_STR && strcmp(m->u.str.s, "constant") == 0);
}

/* The promise of a crop that goes (x's values outside the region are
 * value) holds for every crop of x (or of same, the binding that becomes x)
 * over the same region: the crops that do
 * not say it get cropped_value too, so a rewrite that pads them again can
 * read x instead (pad_of_crop). A crop the user wrote next to one
 * convert-layout made kept a rewrite otherwise (model fuzzer seed 501095). */
static void promise_crops(Fold *F, const Expr *x, const Var *same, Expr *value, const int64_t *st,
                          const int64_t *sz, int nd)
{
    if (x->kind != E_VAR || !F->fn)
        return;
    for (int b = 0; b < F->fn->nblocks; b++)
        for (int i = 0; i < F->fn->blocks[b]->nbinds; i++) {
            Binding *bd = F->fn->blocks[b]->binds[i];
            Expr *e = bd->value;
            int64_t s2[16], z2[16];
            if (!is_call_to(e, "R.crop") || e->u.call.nargs != 1 || e->u.call.args[0]->kind != E_VAR ||
                (e->u.call.args[0]->u.var != x->u.var && e->u.call.args[0]->u.var != same) ||
                call_kwarg(e, "cropped_value") ||
                ints(call_kwarg(e, "start_indices"), s2, 16) != nd || ints(call_kwarg(e, "slice_sizes"), z2, 16) != nd ||
                memcmp(s2, st, (size_t)nd * sizeof *st) || memcmp(z2, sz, (size_t)nd * sizeof *sz))
                continue;
            const char *key = "cropped_value";
            bd->value = call_with_attrs(F->m, e, &key, &value, 1);
            double v = 0;
            const_number(value, &v);
            note_add(F->notes, bd->loc, "folded cropped_value=%g into the crop, the promise of the crop it repeats", v);
        }
}

/* R.crop(R.pad(x)) and R.pad(R.crop(x)) over the same region give x back. */
static int pad_crop(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    int crop = is_call_to(e, "R.crop"), pad = is_pad(e);
    if ((!crop && !pad) || e->u.call.nargs != 1)
        return 0;
    const Binding *ib = def_of(F, e->u.call.args[0]);
    const Expr *in = ib ? ib->value : NULL;
    if (!in || in->u.call.nargs != 1 ||
        !(crop ? is_pad(in) : is_call_to(in, "R.crop")))
        return 0;
    const Expr *pe = crop ? in : e, *ce = crop ? e : in;
    int64_t pw[32], st[16], sz[16], sh[16];
    DType dt;
    int nd;
    int np = ints(call_kwarg(pe, "pad_width"), pw, 32);
    int ns = ints(call_kwarg(ce, "start_indices"), st, 16), nz = ints(call_kwarg(ce, "slice_sizes"), sz, 16);
    const Expr *x = crop ? in->u.call.args[0] : in->u.call.args[0];
    if (shape_of(F, x, &dt, &nd, sh) || np != 2 * nd || ns != nd || nz != nd)
        return 0;
    for (int d = 0; d < nd; d++) {
        int64_t full = crop ? sh[d] + pw[2 * d] + pw[2 * d + 1] : sh[d];
        int64_t inner = crop ? sh[d] : full - pw[2 * d] - pw[2 * d + 1];
        if (st[d] != pw[2 * d] || sz[d] != inner || (!crop && pw[2 * d] + sz[d] + pw[2 * d + 1] != full))
            return note_add(F->notes, bd->loc, "kept: the %s and the %s do not cover the same region",
                            crop ? "crop" : "pad", crop ? "pad" : "crop"), 0;
    }
    if (pad) {
        double pv = 0, cv = 0;
        const_number(call_kwarg(pe, "pad_value"), &pv);
        if (const_number(call_kwarg(ce, "cropped_value"), &cv) != 1 || cv != pv)
            return note_add(F->notes, bd->loc, "kept: pad after crop, and the cropped values are not known to "
                            "equal the pad value %g", pv), 0;
        promise_crops(F, x, bd->var, call_kwarg(ce, "cropped_value"), st, sz, nd);
    }
    bd->value = (Expr *)x;
    note_add(F->notes, bd->loc, "removed: %s after %s", crop ? "crop" : "pad", crop ? "pad" : "crop");
    return 1;
}

/* lt(R.crop(z), M, pad_value=p), the crop keeping a corner of z whose
 * cropped values are p, is lt(z, M) when M over z's shape is one to one and
 * onto the same box: the cropped points are exactly the rewrite's padding,
 * and they hold p either way. (A convolution's channels padded to the tile
 * and cropped back, then padded again for the next one.) */
static int pad_of_crop(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    const Expr *map = call_kwarg(e, "index_map"), *pv = call_kwarg(e, "pad_value");
    const Binding *cb = def_of(F, e->u.call.args[0]);
    double p, cv;
    if (!cb || !is_call_to(cb->value, "R.crop") || cb->value->u.call.nargs != 1 || const_number(pv, &p) != 1 ||
        const_number(call_kwarg(cb->value, "cropped_value"), &cv) != 1 || cv != p)
        return 0;
    const Expr *z = cb->value->u.call.args[0];
    int64_t st[16], sz[16], sh[16];
    DType dt;
    int nd;
    int ns = ints(call_kwarg(cb->value, "start_indices"), st, 16), nz = ints(call_kwarg(cb->value, "slice_sizes"), sz, 16);
    if (shape_of(F, z, &dt, &nd, sh) || ns != nd || nz != nd || nd != map->u.map.nparams)
        return 0;
    for (int d = 0; d < nd; d++)
        if (st[d] != 0)
            return 0;
    ArenaMark mark = arena_mark(&F->scratch);
    ImError err;
    IndexMap *a = im_from_expr(&F->scratch, map, sz, &err), *b = a ? im_from_expr(&F->scratch, map, sh, &err) : NULL;
    int ok = b && a->nout == b->nout && im_classify(b, NULL, NULL) == IM_BIJECTIVE;
    for (int q = 0; ok && q < a->nout; q++)
        ok = a->obox[q] == b->obox[q];
    arena_release(&F->scratch, mark);
    if (!ok)
        return 0;
    bd->value = layout_transform_new(F->m, (Expr *)z, (Expr *)map, NULL, e->loc);
    note_add(F->notes, bd->loc, "the padding restores what the crop at line %d dropped: the rewrite reads %s",
             cb->loc.line, z->kind == E_VAR ? var_said(z->u.var) : "the uncropped value");
    return 1;
}

/* ---- copies, dead bindings, unused functions ---- */

static Expr *resolve(const PtrMap *alias, Binding **defs, Expr *e)
{
    for (int guard = 0; e && e->kind == E_VAR && guard < 1 << 20; guard++) {
        int i = ptrmap_get(alias, e->u.var, 0);
        if (!i)
            break;
        e = defs[i - 1]->value;
    }
    return e;
}

static Expr *subst_uses(const PtrMap *alias, Binding **defs, Expr *e)
{
    if (!e)
        return e;
    switch (e->kind) {
    case E_VAR:
        return resolve(alias, defs, e);
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            e->u.list.items[i] = subst_uses(alias, defs, e->u.list.items[i]);
        break;
    case E_GETITEM:
        e->u.get.tuple = subst_uses(alias, defs, e->u.get.tuple);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            e->u.call.args[i] = subst_uses(alias, defs, e->u.call.args[i]);
        break;
    default:
        break;
    }
    return e;
}

static int is_output(const RBlock *rb, const Var *v)
{
    for (int i = 0; i < rb->noutputs; i++)
        if (rb->outputs[i] == v)
            return 1;
    return 0;
}

/* y = x: later uses of y read x, unless y leaves its dataflow block. */
/* Substitutes the copies of fn (a binding that is a copy of another
 * variable, not a block's output: call it only when there is one). */
static void propagate(Fold *F, Func *fn)
{
    PtrMap alias = { 0 };
    oom_defer(ptrmap_free_v, &alias);
    Binding **defs = NULL;
    int n = 0, cap = 0;
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            bd->value = subst_uses(&alias, defs, bd->value);
            if (bd->value->kind == E_VAR && !is_output(rb, bd->var)) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 32;
                    defs = scratch_realloc(defs, (size_t)cap * sizeof *defs);
                }
                defs[n++] = bd;
                ptrmap_put(&alias, bd->var, n);
            }
        }
    }
    fn->result = subst_uses(&alias, defs, fn->result);
    oom_keep(&alias);
    ptrmap_free(&alias);
    scratch_free(defs);
    (void)F;
}

/* PrimFuncs that no Relax function calls go, when the module has a Relax function. */
static void drop_unused(Module *m, Notes *notes)
{
    PtrMap used = { 0 };
    int relax = 0;
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        if (fn->kind != F_RELAX)
            continue;
        relax = 1;
        mark_func_globals(fn, &used);
    }
    if (relax) {
        int k = 0;
        for (int f = 0; f < m->nfuncs; f++) {
            Func *fn = m->funcs[f];
            if (fn->kind == F_PRIM && !ptrmap_get(&used, fn, 0))
                note_add(notes, fn->loc, "removed %s: no one calls it", fn->name->str);
            else
                m->funcs[k++] = fn;
        }
        m->nfuncs = k;
    }
    ptrmap_free(&used);
}

/* Whether rewrite e's map is onto its result: no padding, so its pad value
 * is never written. */
static int onto(Fold *F, const Expr *e)
{
    ImKind k;
    ArenaMark mark = arena_mark(&F->scratch);
    IndexMap *im = map_of(&F->scratch, F, e, &k);
    int yes = im && k == IM_BIJECTIVE;
    arena_release(&F->scratch, mark);
    return yes;
}

/* A rewrite equal to an earlier one of the same value (the same map, and
 * the same pad value unless the map pads nothing) becomes a copy of it;
 * copy propagation then removes it. */
static int same_as_earlier(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    const Expr *x = e->u.call.args[0];
    if (x->kind != E_VAR)
        return 0;
    for (int i = ptrmap_get(&F->last_rw, x->u.var, 0); i; i = F->prev_rw[i - 1]) {
        Binding *o = F->defs[i - 1];
        if (o == bd)
            continue;
        const Expr *ov = o->value;
        if (!same_rewrite(&F->scratch, call_kwarg(ov, "index_map"), call_kwarg(e, "index_map"), x->u.var->sinfo) ||
            (!same_pad(call_kwarg(ov, "pad_value"), call_kwarg(e, "pad_value")) && !onto(F, e)))
            continue;
        bd->value = var_ref(&F->m->arena, o->var, bd->loc);
        note_add(F->notes, bd->loc, "removed: the same rewrite as %s", var_said(o->var));
        return 1;
    }
    return 0;
}

/* A registered operator (other than a rewrite) whose tensor operands are
 * all constants becomes the constant it computes, evaluated by the
 * interpreter on the operator's own legalized PrimFunc; so does an
 * R.call_tir of constants, on its PrimFunc. A call returning a tuple
 * becomes a tuple of constants, and an item of one the constant. This is
 * how a kernel padded by convert-layout (R.nn.pad of a weight) ends up a
 * constant. As TVM's FoldConstant, an R.call_tir in any block of a pure
 * function (of an impure one only inside dataflow blocks, since a call
 * outside may write a constant through a parameter), an operator only inside
 * dataflow blocks (TVM's test_do_not_fold_ops_outside_dataflow keeps R.add
 * of constants there), and a creation operator (R.zeros, R.full_like ...) only
 * when its result takes at most max_bytes: it is cheaper to run than to
 * store. */
enum { FOLD_MAX_ELEMS = 1 << 22, FOLD_MAX_BYTES_DEFAULT = 4096 };

/* The tensors of a call's results as constants: one, or a tuple of them. */
static Expr *consts_of(Module *m, Tensor **ts, int n, int tuple, Loc loc)
{
    Expr *items[OP_MAX_ARGS];
    for (int k = 0; k < n; k++) {
        Tensor *t = ts[k];
        items[k] = const_new(m, t->dtype, t->ndim, t->shape, t->count, NULL, loc);
        memcpy(items[k]->u.cst.data, t->data, (size_t)t->count * (size_t)dtype_size(t->dtype));
    }
    if (!tuple)
        return items[0];
    Expr *r = expr_new(&m->arena, E_TUPLE, loc);
    r->u.list.n = n;
    r->u.list.items = arena_array(&m->arena, (size_t)n + 1, sizeof(Expr *));
    memcpy(r->u.list.items, items, (size_t)n * sizeof *items);
    return r;
}

/* Runs f on the constants cs (nin of them) into new tensors of the types
 * outs; replaces bd's value by the results. 1 when it did. */
static int run_on_consts(Fold *F, Binding *bd, Func *f, const Expr *const *cs, int nin, const TensorType *outs,
                         int nout, int tuple)
{
    Tensor *args[2 * OP_MAX_ARGS + 1] = { 0 };
    int ok = f != NULL;
    for (int k = 0; ok && k < nin; k++)
        ok = (args[k] = interp_const_tensor(cs[k])) != NULL;
    for (int k = 0; ok && k < nout; k++) {
        ok = (args[nin + k] = tensor_new(outs[k].dtype, outs[k].ndim, outs[k].shape)) != NULL;
        if (ok)
            tensor_fill_poison_all(args[nin + k]);
    }
    InterpError ierr;
    if (ok)
        ok = interp_call_prim(F->in, f, args, nin + nout, &ierr) == 0;
    /* a result the function leaves unwritten is no constant */
    for (int k = 0; ok && k < nout; k++)
        for (int64_t i = 0; ok && i < args[nin + k]->count; i++)
            ok = !tensor_is_poison(args[nin + k], i);
    if (ok)
        bd->value = consts_of(F->m, args + nin, nout, tuple, bd->value->loc);
    for (int k = 0; k < nin + nout; k++)
        if (args[k])
            tensor_free(args[k]);
    return ok;
}

/* Whether results of these types may become constants: at most
 * FOLD_MAX_ELEMS elements in all, and max_bytes for a creation operator. */
static int small_enough(const Fold *F, const TensorType *outs, int nout, int creation)
{
    int64_t count = 0, bytes = 0;
    for (int k = 0; k < nout; k++) {
        int64_t c = 1;
        for (int d = 0; d < outs[k].ndim && c <= FOLD_MAX_ELEMS; d++)
            c = outs[k].shape[d] > FOLD_MAX_ELEMS ? FOLD_MAX_ELEMS + 1 : c * outs[k].shape[d];
        if (c > FOLD_MAX_ELEMS)
            return 0;
        count += c;
        bytes += c * dtype_size(outs[k].dtype);
    }
    return count <= FOLD_MAX_ELEMS && (!creation || bytes <= F->max_bytes);
}

/* The tuple an operand is, written in place or bound to a variable, or NULL. */
static const Expr *tuple_of(const Fold *F, const Expr *e)
{
    if (e->kind == E_TUPLE)
        return e;
    const Binding *b = def_of(F, e);
    return b && b->value->kind == E_TUPLE ? b->value : NULL;
}

/* The dimensions of an R.shape([...]) of integers, written in place or
 * bound to a variable: their count, or -1. */
static int shape_dims(const Fold *F, const Expr *e, int64_t *dims, int cap)
{
    if (e->kind == E_VAR) {
        const Binding *b = def_of(F, e);
        e = b ? b->value : e;
    }
    if (!is_call_to(e, "R.shape") || e->u.call.nargs != 1 || e->u.call.args[0]->kind != E_LIST ||
        e->u.call.args[0]->u.list.n > cap)
        return -1;
    const Expr *l = e->u.call.args[0];
    for (int k = 0; k < l->u.list.n; k++) {
        if (l->u.list.items[k]->kind != E_INT)
            return -1;
        dims[k] = l->u.list.items[k]->u.i.v;
    }
    return l->u.list.n;
}

/* Shape computations on constants, as TVM's FoldConstant folds them:
 * R.shape_to_tensor of a shape of integers is an int64 constant, and
 * R.tensor_to_shape of a 1-d int64 constant a shape, R.shape([16, 16]),
 * which the operators reading it then see in place (an R.reshape gets its
 * result's shape). */
static int eval_shape(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    int64_t dims[TENSOR_MAX_RANK];
    if (is_call_to(e, "R.shape_to_tensor") && e->u.call.nargs == 1) {
        int n = shape_dims(F, e->u.call.args[0], dims, TENSOR_MAX_RANK);
        if (n < 0)
            return 0;
        int64_t len = n;
        bd->value = const_new(F->m, DT_INT64, 1, &len, n, NULL, e->loc);
        memcpy(bd->value->u.cst.data, dims, (size_t)n * sizeof *dims);
        note_add(F->notes, bd->loc, "evaluated R.shape_to_tensor of a shape");
        return 1;
    }
    if (!is_call_to(e, "R.tensor_to_shape") || e->u.call.nargs != 1)
        return 0;
    const Expr *c = const_of(F, e->u.call.args[0]);
    if (!c || c->u.cst.dtype != DT_INT64 || c->u.cst.ndim != 1 || c->u.cst.count > TENSOR_MAX_RANK)
        return 0;
    const int64_t *v = c->u.cst.data;
    for (int64_t k = 0; k < c->u.cst.count; k++)
        if (v[k] < 0)
            return 0;   /* no shape: the run's error stays where it is */
    Expr *l = expr_new(&F->m->arena, E_LIST, e->loc);
    l->u.list.n = (int)c->u.cst.count;
    l->u.list.items = arena_array(&F->m->arena, (size_t)l->u.list.n + 1, sizeof(Expr *));
    for (int k = 0; k < l->u.list.n; k++)
        l->u.list.items[k] = expr_int(&F->m->arena, v[k], DT_VOID, e->loc);
    bd->value = call_new(F->m, "R.shape", l, NULL, NULL, 0, e->loc);
    note_add(F->notes, bd->loc, "evaluated R.tensor_to_shape of a constant");
    return 1;
}

/* An operand that is a variable bound to a shape of integers reads the
 * shape in place (R.reshape(x, R.shape([16, 16]))), as TVM writes it once
 * folded: the operator's result then has that shape. */
static int shapes_in_place(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    if (e->kind != E_CALL || e->u.call.callee || !op_find(e->u.call.op->str))
        return 0;
    int fired = 0;
    int64_t dims[TENSOR_MAX_RANK];
    for (int k = 0; k < e->u.call.nargs + e->u.call.nkw; k++) {
        Expr *a = e->u.call.args[k];
        const Binding *b = a->kind == E_VAR ? def_of(F, a) : NULL;
        if (b && shape_dims(F, a, dims, TENSOR_MAX_RANK) >= 0) {
            e->u.call.args[k] = b->value;
            fired = 1;
        }
    }
    if (fired)
        bd->var->sinfo = NULL;   /* typed again from the shape now in place */
    return fired;
}

static int eval_op(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
    if (!op || is_layout_transform(e) || e->u.call.nargs < (op->tuple_arg ? 1 : op->ntensors) ||
        op->ntensors > OP_MAX_ARGS)
        return 0;
    const Expr *cs[OP_MAX_ARGS];
    TensorType types[OP_MAX_ARGS], outs[OP_MAX_ARGS];
    Expr *const *operands = e->u.call.args;
    int n = op->ntensors;
    if (op->tuple_arg) {   /* R.concat((a, b)): the tuple's items, each a constant */
        const Expr *t = tuple_of(F, e->u.call.args[0]);
        if (!t || t->u.list.n < 1 || t->u.list.n > OP_MAX_ARGS)
            return 0;
        operands = t->u.list.items;
        n = t->u.list.n;
    }
    for (int k = 0; k < n; k++)
        if (!(cs[k] = const_of(F, operands[k])) || value_type(cs[k], &types[k]))
            return 0;
    int nout;
    OpError oerr;
    if (op_infer(e, types, n, outs, &nout, &oerr) || !small_enough(F, outs, nout, op_is_creation(op->name)))
        return 0;
    for (int k = 0; k < nout; k++)
        if (outs[k].ndim > TENSOR_MAX_RANK)
            return 0;
    if (!F->in)
        F->in = interp_new(F->m);
    Func *f = F->in ? interp_legalized(F->in, e, types, n, &oerr) : NULL;
    if (!run_on_consts(F, bd, f, cs, n, outs, nout, op->tuple_out))
        return 0;
    note_add(F->notes, bd->loc, n ? "evaluated %s on constants" : "evaluated %s", op->name);
    return 1;
}

/* R.call_tir(cls.f, (constants...), out_sinfo=...) with every output's shape known */
static int eval_call_tir(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    Func *f = call_tir_callee(e);
    const Expr *args = e->u.call.nargs == 2 ? e->u.call.args[1] : NULL, *out = call_kwarg(e, "out_sinfo");
    if (!f || !args || args->kind != E_TUPLE || args->u.list.n > OP_MAX_ARGS || !out || call_kwarg(e, "tir_vars") ||
        func_is_frozen(f))
        return 0;
    const Expr *cs[OP_MAX_ARGS];
    int nin = args->u.list.n;
    for (int k = 0; k < nin; k++)
        if (!(cs[k] = const_of(F, args->u.list.items[k])) || cs[k]->u.cst.ndim > TENSOR_MAX_RANK)
            return 0;
    TensorType outs[OP_MAX_ARGS];
    const StructInfo *si[OP_MAX_ARGS];
    int nout = 1, tuple = out->kind == E_LIST;
    if (out->kind == E_SINFO && out->u.sinfo->kind == SI_TENSOR) {
        si[0] = out->u.sinfo;
    } else if (tuple && out->u.list.n <= OP_MAX_ARGS) {
        nout = out->u.list.n;
        for (int k = 0; k < nout; k++)
            if (out->u.list.items[k]->kind != E_SINFO || (si[k] = out->u.list.items[k]->u.sinfo)->kind != SI_TENSOR)
                return 0;
    } else {
        return 0;
    }
    for (int k = 0; k < nout; k++)
        if (si[k]->ndim > TENSOR_MAX_RANK || sinfo_shape(si[k], &outs[k].dtype, &outs[k].ndim, outs[k].shape))
            return 0;
    if (!small_enough(F, outs, nout, 0))
        return 0;
    if (!F->in)
        F->in = interp_new(F->m);
    if (!F->in || !run_on_consts(F, bd, f, cs, nin, outs, nout, tuple))
        return 0;
    note_add(F->notes, bd->loc, "evaluated %s on constants", f->name->str);
    return 1;
}

/* t[k] of a tuple of constants: the constant */
static int item_of_consts(Fold *F, Binding *bd)
{
    Expr *e = bd->value;
    const Binding *t = e->kind == E_GETITEM ? def_of(F, e->u.get.tuple) : NULL;
    const Expr *tup = t ? t->value : e->kind == E_GETITEM ? e->u.get.tuple : NULL;
    if (!tup || tup->kind != E_TUPLE || e->u.get.index < 0 || e->u.get.index >= tup->u.list.n ||
        tup->u.list.items[e->u.get.index]->kind != E_CONST)
        return 0;
    bd->value = tup->u.list.items[e->u.get.index];
    return 1;
}

int fold_evaluates_in(const Func *fn, int dataflow, const Expr *e)
{
    if (is_call_to(e, "R.call_tir"))
        return dataflow || !fn->is_impure;
    return dataflow;
}

static int eval_const(Fold *F, Binding *bd, int dataflow)
{
    if (!dataflow && F->fn->is_impure)
        return 0;
    if (item_of_consts(F, bd))
        return 1;
    if (!fold_evaluates_in(F->fn, dataflow, bd->value))
        return 0;
    if (eval_shape(F, bd) || shapes_in_place(F, bd))
        return 1;
    return is_call_to(bd->value, "R.call_tir") ? eval_call_tir(F, bd) : eval_op(F, bd);
}

/* What a sweep made, freed when it ends or an allocation under it fails. */
static void fold_done(Fold *F)
{
    ptrmap_free(&F->last_rw);
    ptrmap_free(&F->uses);
    free(F->defs);
    free(F->prev_rw);
    arena_free(&F->scratch);
    if (F->in)
        interp_free(F->in);
}

/* One sweep of the rules over fn's bindings in order; all: also constants
 * and common rewrites, else only what cancels or composes rewrites
 * (compose, identity, pad and crop), which flow runs first. Returns how many
 * rules fired. *clean and *typed (0 before the first sweep) say what the
 * sweeps before found settled: no dead binding, no type left to infer. */
static int fold_sweep(Module *m, Func *fn, Notes *notes, int all, int64_t max_bytes, int cancel_only, int *clean,
                      int *typed)
{
    if (!*typed)
        infer_types(m, fn);
    /* the marks of the bindings' variables, a range of scope stamps: the
     * rules change a binding's value, never add one */
    size_t nbinds = 0;
    for (int b = 0; b < fn->nblocks; b++)
        nbinds += (size_t)fn->blocks[b]->nbinds;
    Fold F = { m, notes, module_stamps(m, nbinds), NULL, 0, 0, { 0 }, NULL, { 0 }, NULL, max_bytes, cancel_only, fn, { 0 }, 0 };
    OomGuard og;
    if (OOM_ENTER(&og)) {   /* the sweep's tables go before unwinding on */
        fold_done(&F);
        oom_fail();
    }
    unsigned range = (unsigned)nbinds;
    all = all && !cancel_only;
    int fired = 0, copies = 0;
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            for (int guard = 0; guard < 64; guard++) {
                if (is_layout_transform(bd->value)) {
                    if (compose(&F, bd) || identity(&F, bd) || (!cancel_only && pad_of_crop(&F, bd)) ||
                        (all && (rewrite_const(&F, bd) || same_as_earlier(&F, bd)))) {
                        fired++;
                        continue;
                    }
                } else if ((is_call_to(bd->value, "R.permute_dims") && compose(&F, bd)) || pad_crop(&F, bd) ||
                           (all && eval_const(&F, bd, fn->blocks[b]->dataflow))) {
                    fired++;
                    continue;
                }
                break;
            }
            def_add(&F, bd);
            /* a binding's value is final once added (promise_crops changes
             * a crop into a crop): whether a copy is left, read here where
             * the value was just read, not in a walk of its own */
            copies = copies || (bd->value->kind == E_VAR && !is_output(fn->blocks[b], bd->var));
        }
    if ((unsigned)F.ndefs > range) {
        fprintf(stderr, "lopt: internal error: fold added bindings during a sweep\n");
        abort();
    }
    oom_leave(&og);
    fold_done(&F);
    if (copies)
        propagate(&F, fn);
    /* *clean: an earlier sweep removed the dead bindings, and nothing changed
     * since (no rule fired, no copy to propagate): none is dead */
    if (!*clean || fired || copies)
        remove_dead(fn);
    *clean = 1;
    *typed = !fired && !copies;   /* no value changed: infer_types would find nothing to add */
    return fired;
}

/* Sweeps until one fires nothing: copies are propagated between sweeps, so
 * two rewrites that became the same through an alias (x_t1 the same as
 * x_t) are seen to be the same in the next. Repeated notes print once.
 * The first phase composes only pairs that cancel (their composite is the
 * identity or a pad, which a crop then removes): a sweep in program order
 * would otherwise compose a chain's first two rewrites into one that no
 * longer cancels with the third (x -> A -> tile -> untile -> crop keeps
 * three rewrites where A alone is the answer; model fuzzer seed 511321). */
static void fold_func(Module *m, Func *fn, Notes *notes, int all, int64_t max_bytes)
{
    int clean = 0, typed = 0;
    for (int k = 0; k < 8 && fold_sweep(m, fn, notes, all, max_bytes, 1, &clean, &typed); k++)
        ;
    for (int k = 0; k < 8 && fold_sweep(m, fn, notes, all, max_bytes, 0, &clean, &typed); k++)
        ;
}

void fold_rewrites(Module *m, Func *fn, Notes *notes)
{
    fold_func(m, fn, notes, 0, FOLD_MAX_BYTES_DEFAULT);
}

/* fold{max-bytes=N}: N a non-negative integer */
static int max_bytes_of(const PassOpt *opts, int nopts, int64_t *v, char *err, size_t cap)
{
    *v = FOLD_MAX_BYTES_DEFAULT;
    for (int i = 0; i < nopts; i++) {
        char *end;
        long long x = strtoll(opts[i].val, &end, 10);
        if (strcmp(opts[i].key, "max-bytes") != 0)
            continue;
        if (end == opts[i].val || *end || x < 0 || opts[i].val[0] == '-' || x > ((long long)1 << 40))
            return snprintf(err, cap, "fold: max-bytes=%s: expected a number of bytes from 0 to 2^40",
                            opts[i].val), -1;
        *v = x;
    }
    return 0;
}

int pass_fold_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    int64_t v;
    return max_bytes_of(opts, nopts, &v, err, cap);
}

int pass_fold(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    int64_t max_bytes;
    char err[256];
    if (max_bytes_of(opts, nopts, &max_bytes, err, sizeof err))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "%s", err);   /* the pipeline's check has refused it already */
    Notes notes = { .mute = !ctx->explain };
    for (int f = 0; f < m->nfuncs; f++) {
        Func *fn = m->funcs[f];
        if (!is_plannable(fn))
            continue;
        fold_func(m, fn, &notes, 1, max_bytes);
    }
    drop_unused(m, &notes);
    notes_flush(&notes, ctx, "fold");
    return 0;
}
