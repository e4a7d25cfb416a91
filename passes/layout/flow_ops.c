/* How flow keeps a registered operator's form when a rewrite moves through
 * it: the call with its attributes renumbered (reductions, softmax, pad, ...;
 * concat's and split's stacked parts), or NULL; and flow_op_form's table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../ir/indexmap.h"
#include "convert.h"
#include "flow_internal.h"

/* An elementwise operator keeps its form when the rewritten function reads
 * each operand at the new result index, aligned from the right, with
 * extent-1 dimensions read at 0: numpy broadcasting in the new layout. */
static int broadcast_reads(const Expr *e, const FlowTir *r, int *ok);

int broadcast_stmt(const Stmt *s, const FlowTir *r, int *ok)
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
int perm_of(const Expr *map, int *perm)
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

Expr *reduce_axes(Module *m, const Expr *call, const Expr *omap, const Expr *imap, int rank, Loc loc)
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
 * one-to-one map and keeps whole each dimension the operator acts on (all of
 * them, in their order, for batch_norm in training): the
 * attributes name the dimensions' new places (NHWC's softmax over C is axis
 * 3; NCHW4c's pad of H and W pads dimensions 2 and 3 of five; layer_norm's
 * axes keep their order, so its gamma and beta keep their shape). Returns
 * the new call, or NULL. */
Expr *keep_light(Module *m, Arena *scratch, const Expr *call, const Expr *omap, const Expr *imap,
                 const TensorType *in)
{
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
    ArenaMark mark = arena_mark(scratch);
    ImError err;
    IndexMap *a = im_from_expr(scratch, omap, in->shape, &err);
    IndexMap *b = a ? im_from_expr(scratch, imap, in->shape, &err) : NULL;
    int same = b && im_classify(b, NULL, NULL) == IM_BIJECTIVE && im_equal(a, b);
    arena_release(scratch, mark);
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
        /* batch_norm in training sums over the other dimensions in their
         * order: they stay whole and in order, or its sums would add in
         * another order (and round otherwise) */
        for (int p = 0, last = -1; !strcmp(op, "R.nn.batch_norm") && op_batch_norm_training(call) && p < r; p++)
            if (p != ax) {
                if (nout != r || q[p] <= last)
                    return NULL;
                last = q[p];
            }
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

/* A crop of a corner keeps its form where the rewrite of its result is that
 * of its operand on the points it keeps, one to one onto its box: the crop
 * keeps the corner of that box (NCHW4c's first 3 of 4 channels, in its last
 * dimension). Its promise of the cropped values holds where the operand's
 * rewrite adds no padding, or pads with them (fold's pad_of_crop reads it).
 * imap is the operand's rewrite flow derived (its padding: padded, has_pad,
 * pad). Returns the new call of arg, or NULL. */
Expr *keep_crop(Module *m, Arena *scratch, const Expr *call, const Expr *omap, const Expr *imap, int padded,
                int has_pad, double pad, const TensorType *in, Expr *arg)
{
    const Expr *st = call_kwarg(call, "start_indices"), *sz = call_kwarg(call, "slice_sizes");
    int r = in->ndim;
    int64_t size[IM_MAX_RANK], x;
    if (!is_call_to(call, "R.crop") || call->u.call.nargs != 1 || !imap || !st || !sz || r > IM_MAX_RANK ||
        (st->kind != E_LIST && st->kind != E_TUPLE) || (sz->kind != E_LIST && sz->kind != E_TUPLE) ||
        st->u.list.n != r || sz->u.list.n != r || omap->u.map.nparams != r || imap->u.map.nparams != r)
        return NULL;
    for (int d = 0; d < r; d++)
        if (attr_int(st->u.list.items[d], &x) || x != 0 || attr_int(sz->u.list.items[d], &size[d]) || size[d] < 1)
            return NULL;
    ArenaMark mark = arena_mark(scratch);
    ImError err;
    IndexMap *om = im_from_expr(scratch, omap, size, &err);
    IndexMap *kept = om ? im_from_expr(scratch, imap, size, &err) : NULL;
    IndexMap *whole = kept ? im_from_expr(scratch, imap, in->shape, &err) : NULL;
    int ok = whole && im_classify(om, NULL, NULL) == IM_BIJECTIVE && im_equal(om, kept) && whole->nout == om->nout;
    int64_t obox[IM_MAX_RANK];
    for (int q = 0; ok && q < om->nout; q++)
        ok = (obox[q] = om->obox[q]) <= whole->obox[q];
    int nout = ok ? om->nout : 0;
    ImKind wk = ok ? im_classify(whole, NULL, NULL) : IM_UNKNOWN;
    arena_release(scratch, mark);
    if (!ok)
        return NULL;
    double cv;
    Expr *promise = call_kwarg(call, "cropped_value");
    if (promise && (const_number(promise, &cv) != 1 ||
                    !(wk == IM_BIJECTIVE || (padded && has_pad && pad == cv && signbit(pad) == signbit(cv)))))
        promise = NULL;
    static const int64_t zeros[IM_MAX_RANK];
    static const char *const keys[] = { "start_indices", "slice_sizes", "cropped_value" };
    Expr *vals[] = { int_list(&m->arena, zeros, nout, call->loc), int_list(&m->arena, obox, nout, call->loc), promise };
    return call_new(m, "R.crop", arg, keys, vals, promise ? 3 : 2, call->loc);
}

/* The operators whose form flow keeps, attributes renumbered, where the
 * layout keeps whole the dimensions they act on: keep_light's, the
 * reductions (reduce_axes), expand_dims and squeeze (keep_unit_axes),
 * concat (flow_concat) and crop, where it keeps a corner (keep_crop). lopt --list-ops reads it through flow_op_form. */
static const char *const keeps_form[] = {
    "R.nn.softmax", "R.nn.log_softmax", "R.nn.batch_norm", "R.split", "R.flip", "R.repeat", "R.nn.pad", "R.pad",
    "R.strided_slice", "R.nn.layer_norm", "R.tile", "R.reverse_sequence", "R.sum", "R.mean", "R.max", "R.min", "R.expand_dims",
    "R.squeeze", "R.concat", "R.crop",
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
Expr *keep_unit_axes(Module *m, const Expr *call, const Expr *omap, const Expr *imap, const TensorType *in,
                     Expr *arg)
{
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

enum { STACK_MAX_POINTS = 1 << 20 };   /* the most points stacks() checks */

/* Whether the rewrite map of a whole whose parts t[0..n) lie one after the
 * other along axis k keeps each part whole along one output dimension *j,
 * in order (NHWC: the axis moves; NCHW4c: the channel blocks stack when each
 * part's channels divide the tile). Checked point by point. On success
 * pt[i] and *ot are the parts' and the whole's new types and start[i] each
 * part's offset along *j. Returns 0, or -1 with why filled. */
int stacks(Arena *scratch, const char *op, const Expr *map, const Expr *pad, const TensorType *t, int n, int k,
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
    ArenaMark mark = arena_mark(scratch);
    ImError err;
    IndexMap *whole = im_from_expr(scratch, map, yt.shape, &err), *part[FLOW_MAX_ARGS];
    int ok = whole && im_classify(whole, NULL, NULL) == IM_BIJECTIVE, j = -1, q = whole ? whole->nout : 0;
    if (!ok && whole && const_number(pad, &padv) == 1)
        snprintf(why, cap, "a padded rewrite does not flow through %s", op);
    else if (!ok)
        snprintf(why, cap, "the rewrite is not one to one and onto over %s's whole", op);
    for (int i = 0; ok && i < n; i++) {
        part[i] = im_from_expr(scratch, map, t[i].shape, &err);
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
    arena_release(scratch, mark);
    if (ok && j < 0)
        return snprintf(why, cap, "the rewrite moves %s's axis nowhere", op), -1;
    *jout = j;
    return ok ? 0 : -1;
}

/* R.split(x, ..., axis=k) whose parts all take map M is R.split(M(x), ...,
 * axis=j) when the parts stack along output dimension j (stacks): NCHW4c's
 * channel split at whole tiles splits the tile dimension. x_t is M(x); old
 * the split's tuple type. Returns the new call, or NULL. */
Expr *split_stacked(Module *m, Arena *scratch, const Expr *e, Expr *x_t, const Expr *map, const StructInfo *old,
                    int n, int rank)
{
    TensorType t[FLOW_MAX_OUT], pt[FLOW_MAX_OUT], ot;
    int64_t start[FLOW_MAX_OUT];
    int j, k;
    char why[200];
    if (n > FLOW_MAX_OUT || n > FLOW_MAX_ARGS || op_axis(e, rank, &k))
        return NULL;
    for (int i = 0; i < n; i++)
        if (sinfo_shape(old->fields[i], &t[i].dtype, &t[i].ndim, t[i].shape))
            return NULL;
    if (stacks(scratch, "R.split", map, NULL, t, n, k, &j, start, pt, &ot, why, sizeof why))
        return NULL;
    static const char *const keys[] = { "axis", "indices_or_sections" };
    Expr *c = call_with_attrs(m, e, keys,
                              (Expr *[]){ expr_int(&m->arena, j, DT_VOID, e->loc),
                                          int_list(&m->arena, start + 1, n - 1, e->loc) }, 2);
    c->u.call.args[0] = x_t;
    return c;
}

/* Appends to order the axes output o reads, the largest coefficient first
 * (c before c4 for c * 4 + c4); returns the new count. */
static int push_by_coef(const ImSum *o, int *order, int no)
{
    int used[IM_MAX_RANK] = { 0 };
    for (int k = 0; k < o->n; k++) {
        int best = -1;
        for (int j = 0; j < o->n; j++)
            if (!used[j] && (best < 0 || o->t[j].coef > o->t[best].coef))
                best = j;
        used[best] = 1;
        order[no++] = o->t[best].var;
    }
    return no;
}

/* reduce(lt(p, map), axis) where map fuses axes of p into the reduced ones
 * (NCHW4c back to NCHW under a sum over C and H) and keeps each other axis
 * whole and in order: the reduction of p over every axis the reduced ones
 * read, each fused group from its most significant axis down, so the terms
 * are added in the order they were (sum(x, axis=[1, 2]) of the NCHW form of
 * x4 is sum(x4, axis=[1, 4, 2])). The new axis list, or NULL. */
static Expr *reduce_fused(Module *m, const Expr *e, const Expr *map, const TensorType *pt, Loc loc)
{
    const Expr *ax = call_kwarg(e, "axis"), *kd = call_kwarg(e, "keepdims");
    int r = pt->ndim, n = map->u.map.nout;
    if (!is_reduction(e) || (kd && !(kd->kind == E_BOOL && !kd->u.b)) || !ax ||
        (ax->kind != E_LIST && ax->kind != E_TUPLE) || r > IM_MAX_RANK || n > IM_MAX_RANK || map->u.map.nparams != r)
        return NULL;
    int red[IM_MAX_RANK] = { 0 }, owner[IM_MAX_RANK], order[IM_MAX_RANK], no = 0;
    int64_t v;
    for (int i = 0; i < ax->u.list.n; i++) {
        if (attr_int(ax->u.list.items[i], &v) || (v < 0 ? v += n : v) < 0 || v >= n || red[v])
            return NULL;
        red[v] = 1;
    }
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    ImError err;
    IndexMap *im = im_from_expr(&tmp, map, pt->shape, &err);
    int ok = im && im->nout == n && im_classify(im, NULL, NULL) == IM_BIJECTIVE;
    for (int d = 0; d < r; d++)
        owner[d] = -1;
    /* which output reads each axis of p: one, wholly for a kept output */
    for (int q = 0; ok && q < n; q++) {
        const ImSum *o = im->out[q];
        for (int i = 0; ok && i < o->n; i++) {
            int d = o->t[i].var;
            ok = d >= 0 && owner[d] < 0;
            if (ok)
                owner[d] = q;
        }
        ok = ok && (red[q] || (o->k == 0 && o->n == 1 && o->t[0].coef == 1 && o->t[0].lo == 1 &&
                               (o->t[0].hi == 0 || o->t[0].hi >= pt->shape[o->t[0].var])));
    }
    for (int d = 0, last = -1; ok && d < r; d++) {
        ok = owner[d] >= 0;
        if (ok && !red[owner[d]]) {
            ok = owner[d] > last;   /* the kept axes in the same order */
            last = owner[d];
        }
    }
    for (int i = 0; ok && i < ax->u.list.n; i++) {
        attr_int(ax->u.list.items[i], &v);
        if (v < 0)
            v += n;
        /* the axes output v reads, the largest coefficient first */
        const ImSum *o = im->out[v];
        no = push_by_coef(o, order, no);
    }
    arena_scratch_end(&tmp);
    /* reduced outputs that read no axis of p (extent-1 dimensions, w // 4
     * of a w of 4) leave no axis to name: an empty list reads as every
     * axis, and a sum over the one element is not p itself (0.0 + -0.0) */
    if (!ok || no == 0)
        return NULL;
    int64_t list[IM_MAX_RANK];
    for (int i = 0; i < no; i++)
        list[i] = order[i];
    return int_list(&m->arena, list, no, loc);
}

/* reduce(lt(p, map), axis) where each reduced dimension of the rewrite
 * reads whole axes of p that no kept dimension reads (NCHW4c back to NCHW
 * under a sum over H and W): the reduction of p over those axes, each fused
 * group from its most significant axis down so the terms are added in the
 * order they were, then what map does to the kept axes (the rewrite of a
 * tensor the reduction made smaller). Returns the reduction (its operand
 * still e's), its result type in *rt, and in *kept the rewrite of that
 * result to e's (NULL: none is needed); NULL when that cannot be said. */
Expr *reduce_split(Module *m, Arena *scratch, const Expr *e, const Expr *map, const TensorType *pt,
                   const TensorType *yt, Expr **kept, TensorType *rt, Loc loc)
{
    const Expr *ax = call_kwarg(e, "axis"), *kd = call_kwarg(e, "keepdims");
    int r = pt->ndim, n = map->u.map.nout, keep = kd && kd->kind == E_BOOL && kd->u.b;
    if (!is_reduction(e) || (kd && kd->kind != E_BOOL) || !ax || (ax->kind != E_LIST && ax->kind != E_TUPLE) ||
        r > IM_MAX_RANK || n > IM_MAX_RANK || map->u.map.nparams != r || yt->ndim != (keep ? n : n - ax->u.list.n))
        return NULL;
    int red[IM_MAX_RANK] = { 0 }, owner[IM_MAX_RANK], order[IM_MAX_RANK], no = 0;
    int64_t v, list[IM_MAX_RANK];
    for (int i = 0; i < ax->u.list.n; i++) {
        if (attr_int(ax->u.list.items[i], &v) || (v < 0 ? v += n : v) < 0 || v >= n || red[v])
            return NULL;
        red[v] = 1;
    }
    ArenaMark mark = arena_mark(scratch);
    ImError err;
    IndexMap *im = im_from_expr(scratch, map, pt->shape, &err);
    int ok = im && im->nout == n && im_classify(im, NULL, NULL) == IM_BIJECTIVE;
    for (int d = 0; d < r; d++)
        owner[d] = -1;
    for (int q = 0; ok && q < n; q++)
        for (int i = 0; ok && i < im->out[q]->n; i++) {
            int d = im->out[q]->t[i].var;
            if ((ok = d >= 0 && owner[d] < 0))
                owner[d] = q;
        }
    for (int d = 0; ok && d < r; d++)
        ok = owner[d] >= 0;
    for (int i = 0; ok && i < ax->u.list.n; i++) {
        attr_int(ax->u.list.items[i], &v);
        const ImSum *o = im->out[v < 0 ? v + n : v];
        no = push_by_coef(o, order, no);
    }
    /* the kept map: over p's kept axes (all of them, the reduced ones of
     * extent 1, under keepdims), map's kept dimensions (all, under keepdims) */
    Var *vars[IM_MAX_RANK];
    Expr *km = ok ? expr_new(&m->arena, E_INDEXMAP, loc) : NULL;
    if (km) {
        km->u.map.params = arena_array(&m->arena, (size_t)r + 1, sizeof(Var *));
        km->u.map.out = arena_array(&m->arena, (size_t)n + 1, sizeof(Expr *));
        rt->dtype = yt->dtype;
        rt->ndim = 0;
        for (int d = 0; d < r; d++) {
            vars[d] = NULL;
            if (!keep && red[owner[d]])
                continue;
            vars[d] = var_new(&m->arena, map->u.map.params[d]->name, VAR_TIR, loc);
            vars[d]->dtype = DT_INT32;
            km->u.map.params[km->u.map.nparams++] = vars[d];
            rt->shape[rt->ndim++] = red[owner[d]] ? 1 : pt->shape[d];
        }
        for (int q = 0; q < n; q++)
            if (keep || !red[q])
                km->u.map.out[km->u.map.nout++] = im_sum_to_expr(&m->arena, im->out[q], vars);
        /* the kept map must take the reduction of p onto e's result, one to one */
        IndexMap *k = im_from_expr(scratch, km, rt->shape, &err);
        ok = k && k->nout == yt->ndim && im_classify(k, NULL, NULL) == IM_BIJECTIVE;
        for (int q = 0; ok && q < yt->ndim; q++)
            ok = k->obox[q] == yt->shape[q];
        *kept = ok && im_is_identity(k) ? NULL : km;
    }
    arena_release(scratch, mark);
    if (!ok)
        return NULL;
    for (int i = 0; i < no; i++)
        list[i] = order[i];
    Expr *axes = int_list(&m->arena, list, no, loc);
    return call_with_attrs(m, e, (const char *[]){ "axis" }, &axes, 1);
}

/* The reduction e (result type yt) reading lt(p, map) instead of p (of
 * type pt), map a permutation or a fusion into the reduced axes: e with
 * its axes renumbered, reading the rewritten operand; NULL when that
 * cannot be said. */
Expr *reduce_through(Module *m, const Expr *e, const Expr *map, const TensorType *pt, const TensorType *yt, Loc loc)
{
    int perm[16];
    if (pt->ndim > 16)
        return NULL;
    if (perm_of(map, perm)) {
        Expr *axes = reduce_fused(m, e, map, pt, loc);
        return axes ? call_with_attrs(m, e, (const char *[]){ "axis" }, &axes, 1) : NULL;
    }
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
