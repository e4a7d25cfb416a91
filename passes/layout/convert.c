/* convert-layout: gives heavily layout-sensitive calls the layouts the user
 * desires (seed 002). `convert-layout{conv2d=NHWC:HWIO,max_pool2d=NHWC}`
 * (also avg_pool2d, adaptive_avg_pool2d, resize2d and conv2d_transpose)
 * rewrites each such call in place: its operands get R.layout_transform into
 * the desired layouts, its layout attributes change, and its result is
 * rewritten back to the layout it had. Nothing else moves here: `flow` then
 * carries the rewrites up through the calls that can adapt and `fold`
 * cancels what meets, which leaves only the rewrites that cannot go. The
 * converted calls keep their layouts because flow does not pass through
 * heavily layout-sensitive operators.
 *
 * Channels that do not divide the tile (C = 3 to NCHW4c) are padded with 0:
 * the data through the rewrite's pad value, the kernel's input channels by
 * R.nn.pad, so the padded channels add nothing to the convolution. */
#include <stdio.h>
#include <string.h>

#include "../../ir/indexmap.h"
#include "../../ir/oom.h"
#include "../../ir/ops.h"
#include "../graph.h"
#include "convert.h"
#include "fold.h"

enum { CONV, MAXPOOL, AVGPOOL, ADAPTIVEPOOL, RESIZE, CONVT, NKINDS };

static const char *const op_names[NKINDS] = { "R.nn.conv2d", "R.nn.max_pool2d", "R.nn.avg_pool2d",
                                              "R.nn.adaptive_avg_pool2d", "R.image.resize2d",
                                              "R.nn.conv2d_transpose" };
static const char *const opt_names[NKINDS] = { "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
                                               "resize2d", "conv2d_transpose" };

/* The calls with a kernel (and a kernel layout): conv2d and conv2d_transpose,
 * whose kernel is I, O, H, W as written by default (TVM's IOHW). */
static int has_kernel(int kind)
{
    return kind == CONV || kind == CONVT;
}

int convert_layout_knows(const char *name)
{
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(name, op_names[k]) == 0)
            return 1;
    return 0;
}

typedef ConvertTo Want;

typedef struct Conv {
    Module *m;
    Func *fn;
    PtrMap names;
    Notes *notes;
    const Want *want;
    Binding **out;
    int nout, cap;
    /* rewrites made so far in this block, reused for the same rewrite (map,
     * padding) of the same operand: the layout it comes from is part of it */
    struct Made { const Var *x; const Expr *value; Expr *v; } *made;
    int nmade, capmade;
    /* the values computed in a converted layout and rewritten back (a
     * converted call's, and an elementwise call's of one): 1 + the index of
     * the layout in layouts, which a pool the user did not name follows */
    PtrMap in_layout;
    Want layouts[NKINDS];
    ConvertPick pick;     /* when set, it alone says which calls convert to what */
    void *pick_data;
    int tvm;              /* policy=tvm: TVM's choices where lopt's differ (see convert_symbolic, convert) */
    PtrMap rw_at;         /* a rewrite bound in this block: its variable -> 1 + its index in out */
} Conv;

static void emit(Conv *C, Binding *b)
{
    vec_push(&C->m->arena, &C->out, &C->nout, &C->cap, b);
}

/* The kernel layout that goes with a data layout when the user says
 * `default`: the data's axes N, C, H, W become O, I, H, W and a tiled
 * channel (4c) becomes a tile of the output channels (4o), so NCHW gives
 * OIHW, NHWC gives HWIO and NCHW4c gives OIHW4o. */
static int default_kernel(const char *data, char *out, size_t cap)
{
    if (strcmp(data, "NHWC") == 0)
        return snprintf(out, cap, "HWIO"), 0;
    size_t n = 0;
    for (const char *s = data; *s && n + 1 < cap; s++) {
        char c = *s;
        c = c == 'N' ? 'O' : c == 'C' ? 'I' : c == 'c' ? 'o' : c == 'n' ? 'o' : c;
        out[n++] = c;
    }
    out[n] = 0;
    return 0;
}

/* Whether l is a layout over the primal axes prims; why says what is wrong. */
static int check_layout(const char *prims, const char *l, char *why, size_t cap)
{
    ImError err;
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    Interner names;
    intern_scratch(&names, &tmp);
    Expr *map = im_layout_map(&tmp, &names, prims, l, NULL, &err);
    if (!map)
        snprintf(why, cap, "%s", err.msg);
    intern_scratch_end(&names);
    arena_scratch_end(&tmp);
    return map ? 0 : -1;
}

/* policy=lopt (the default) or policy=tvm into *tvm (0 or 1). */
static int parse_options(const PassOpt *opts, int nopts, Want *want, int *tvm, char *err, size_t cap)
{
    char why[256];
    for (int i = 0; i < nopts; i++) {
        if (strcmp(opts[i].key, "policy") == 0) {
            if (strcmp(opts[i].val, "lopt") && strcmp(opts[i].val, "tvm"))
                return snprintf(err, cap, "convert-layout: policy=%s: expected policy=lopt (the default) or "
                                  "policy=tvm", opts[i].val), -1;
            if (tvm)
                *tvm = strcmp(opts[i].val, "tvm") == 0;
            continue;
        }
        int k = 0;
        while (k < NKINDS && strcmp(opts[i].key, opt_names[k]) != 0)
            k++;
        if (k == NKINDS)
            continue;   /* the pass manager has already refused unknown names */
        Want *w = &want[k];
        const char *colon = strchr(opts[i].val, ':');
        size_t dn = colon ? (size_t)(colon - opts[i].val) : strlen(opts[i].val);
        if (dn == 0 || dn >= sizeof w->data)
            return snprintf(err, cap, "convert-layout: %s=%s: expected a data layout such as NHWC "
                              "or NCHW4c", opts[i].key, opts[i].val), -1;
        memcpy(w->data, opts[i].val, dn);
        w->data[dn] = 0;
        if (check_layout("NCHW", w->data, why, sizeof why))
            return snprintf(err, cap, "convert-layout: %s=%s: '%s' is not a layout of the axes "
                              "N, C, H, W (such as NHWC or NCHW4c): %s", opts[i].key, opts[i].val, w->data, why), -1;
        if (!has_kernel(k)) {
            if (colon)
                return snprintf(err, cap, "convert-layout: %s=%s: %s takes one layout, not a "
                                  "kernel layout", opts[i].key, opts[i].val, opts[i].key), -1;
        } else if (!colon || strcmp(colon + 1, "default") == 0) {
            default_kernel(w->data, w->kernel, sizeof w->kernel);
        } else {
            if (strlen(colon + 1) >= sizeof w->kernel)
                snprintf(why, sizeof why, "it is too long");
            if (strlen(colon + 1) >= sizeof w->kernel || check_layout("OIHW", colon + 1, why, sizeof why))
                return snprintf(err, cap, "convert-layout: %s=%s: '%s' is not a kernel layout of "
                                  "the axes O, I, H, W (such as HWIO or OIHW4o) or default: %s", opts[i].key,
                                  opts[i].val, colon + 1, why), -1;
            snprintf(w->kernel, sizeof w->kernel, "%s", colon + 1);
        }
        w->set = 1;
    }
    return 0;
}

static const char *str_attr(const Expr *call, const char *key, const char *dflt, char *buf, size_t cap)
{
    const Expr *v = call_kwarg(call, key);
    if (!v || v->kind != E_STR)
        return dflt;
    snprintf(buf, cap, "%.*s", v->u.str.len, v->u.str.s);
    return buf;
}

/* Binds value to a new variable named after base, typed as t. */
static Expr *bind_new(Conv *C, const RBlock *rb, const char *base, Expr *value, const TensorType *t, Loc loc)
{
    Module *m = C->m;
    Binding *b = binding_fresh(m, &C->names, base, rb->dataflow,
                               tensor_sinfo_new(&m->arena, t->dtype, t->ndim, t->shape, loc), value, loc);
    emit(C, b);
    return var_ref(&m->arena, b->var, loc);
}

/* The map from layout `from` to `to` over a tensor of type t: its result
 * type in *out, and whether it pads (*padded). NULL when the map is not an
 * index map over that shape. */
static Expr *layout_map(Conv *C, const char *from, const char *to, const TensorType *t, TensorType *out, int *padded)
{
    ImError err;
    Expr *map = im_layout_map(&C->m->arena, &C->m->names, from, to, NULL, &err);
    if (!map || map->u.map.nparams != t->ndim)
        return NULL;
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    IndexMap *im = im_from_expr(&tmp, map, t->shape, &err);
    ImKind kind = im ? im_classify(im, NULL, NULL) : IM_NOT_INJECTIVE;
    if (im) {
        out->dtype = t->dtype;
        out->ndim = im->nout;
        memcpy(out->shape, im->obox, (size_t)im->nout * sizeof(int64_t));
    }
    arena_scratch_end(&tmp);
    if (!im || (kind != IM_BIJECTIVE && kind != IM_PADDED))
        return NULL;
    *padded = kind != IM_BIJECTIVE;
    return map;
}

/* R.nn.pad(w, pad_width=...) adding more[d] entries after each axis d. */
static int64_t groups_of(const Expr *call)
{
    int64_t g = 1;
    const Expr *ge = call_kwarg(call, "groups");
    if (ge && expr_const_int(ge, &g))
        g = 0;
    return g;
}

/* Whether two rewrites of x are one: the same map on x's shape and the
 * same padding, or the same expression. */
static int same_value(const Expr *x, const Expr *a, const Expr *b)
{
    if (!is_layout_transform(a) || !is_layout_transform(b))
        return expr_equal(a, b);
    Arena tmp = { 0 };
    arena_scratch(&tmp);
    int same = same_pad(call_kwarg(a, "pad_value"), call_kwarg(b, "pad_value")) &&
               same_rewrite(&tmp, call_kwarg(a, "index_map"), call_kwarg(b, "index_map"), x->u.var->sinfo);
    arena_scratch_end(&tmp);
    return same;
}

/* The rewrite of operand x (given as value) into layout, made once per
 * block: an operand read in two layouts gets two rewrites. --explain calls
 * it pre, x, post. */
static Expr *rewrite_operand(Conv *C, const RBlock *rb, Expr *x, Expr *value, const char *layout, const char *pre,
                             const char *post, const TensorType *t, Loc loc)
{
    for (int i = 0; x->kind == E_VAR && i < C->nmade; i++)
        if (C->made[i].x == x->u.var && same_value(x, C->made[i].value, value))
            return C->made[i].v;
    char nm[160];
    snprintf(nm, sizeof nm, "%.100s_%.30s", x->kind == E_VAR ? x->u.var->name->str : "c", layout);
    Expr *v = bind_new(C, rb, nm, value, t, loc);
    var_say(C->m, v->u.var, pre, x->kind == E_VAR ? x->u.var : NULL, post);
    if (x->kind == E_VAR) {
        struct Made mk = { x->u.var, value, v };
        if (C->nmade == C->capmade) {
            C->capmade = C->capmade ? 2 * C->capmade : 16;
            struct Made *g = arena_array(&C->m->arena, (size_t)C->capmade, sizeof *g);
            if (C->nmade)
                memcpy(g, C->made, (size_t)C->nmade * sizeof *g);
            C->made = g;
        }
        C->made[C->nmade++] = mk;
    }
    return v;
}

/* ---- operands without static shapes ----
 *
 * A layout change needs no extents when it only permutes axes (NCHW to
 * NHWC): the shapes, symbolic or unknown, move with their axes. A split
 * (NCHW4c) needs the split axis's extent to be a multiple of the factor,
 * which lopt sees in the extent as written: a constant, or a product with a
 * constant factor (C4 * 4, from a match_cast or the signature). */

/* A layout as its axes: an upper-case letter is a primal axis, a
 * lower-case one with its factor the inner part of a split. */
typedef LayoutAxes Axes;

int layout_axes_parse(const char *l, LayoutAxes *A)
{
    A->n = 0;
    for (const char *s = l; *s; s++) {
        if (A->n == 16)
            return -1;
        int64_t f = 0;
        while (*s >= '0' && *s <= '9' && f < 1000000)
            f = f * 10 + (*s++ - '0');
        if (!*s || (*s >= '0' && *s <= '9'))
            return -1;
        A->ax[A->n] = *s;
        A->fac[A->n++] = f;
    }
    return 0;
}

static int axis_at(const Axes *A, char c)
{
    for (int i = 0; i < A->n; i++)
        if (A->ax[i] == c)
            return i;
    return -1;
}

static int has_split(const Axes *A)
{
    for (int i = 0; i < A->n; i++)
        if (A->fac[i])
            return 1;
    return 0;
}

static Expr *sym_mul(Arena *a, Expr *e, int64_t f, Loc loc)
{
    int64_t v;
    if (f == 1)
        return e;
    if (expr_const_int(e, &v) == 0)
        return expr_int(a, v * f, DT_VOID, loc);
    Expr *r = expr_new(a, E_BIN, loc);
    r->u.bin.op = B_MUL;
    r->u.bin.a = e;
    r->u.bin.b = expr_int(a, f, DT_VOID, loc);
    return r;
}

/* e / f where e is provably a multiple of f, or NULL. */
static Expr *sym_div(Arena *a, Expr *e, int64_t f, Loc loc)
{
    int64_t v;
    if (expr_const_int(e, &v) == 0)
        return v % f == 0 ? expr_int(a, v / f, DT_VOID, loc) : NULL;
    if (e->kind != E_BIN || e->u.bin.op != B_MUL)
        return NULL;
    for (int k = 0; k < 2; k++) {
        Expr *c = k ? e->u.bin.b : e->u.bin.a, *o = k ? e->u.bin.a : e->u.bin.b;
        if (expr_const_int(c, &v) == 0 && v % f == 0)
            return sym_mul(a, o, v / f, loc);
        Expr *d = sym_div(a, c, f, loc);
        if (d) {
            Expr *r = expr_new(a, E_BIN, loc);
            r->u.bin.op = B_MUL;
            r->u.bin.a = k ? o : d;
            r->u.bin.b = k ? d : o;
            return r;
        }
    }
    return NULL;
}

/* The shape in layout `to` of a tensor of shape in (n extents, or NULL
 * when only the rank is known) in layout `from`: *out (NULL for an unknown
 * shape). -1, with why, when it cannot be said. */
static int sym_layout(Arena *a, const char *from, const char *to, int n, Expr **in, Expr ***out, Loc loc,
                      char *why, size_t cap)
{
    Axes F, T;
    if (layout_axes_parse(from, &F) || layout_axes_parse(to, &T) || F.n != n)
        return snprintf(why, cap, "%s is not a layout of its rank", from), -1;
    *out = NULL;
    if (!in) {
        if (has_split(&F) || has_split(&T))
            return snprintf(why, cap, "only its rank is known, and %s splits an axis", has_split(&T) ? to : from), -1;
        return 0;
    }
    Expr **o = arena_array(a, (size_t)T.n + 1, sizeof *o);
    for (int i = 0; i < T.n; i++) {
        char c = T.ax[i];
        if (T.fac[i]) {
            o[i] = expr_int(a, T.fac[i], DT_VOID, loc);
            continue;
        }
        int at = axis_at(&F, c), inner = axis_at(&F, (char)(c - 'A' + 'a'));
        if (at < 0)
            return snprintf(why, cap, "%s has no axis %c", from, c), -1;
        Expr *e = inner >= 0 ? sym_mul(a, in[at], F.fac[inner], loc) : in[at];
        int tin = axis_at(&T, (char)(c - 'A' + 'a'));
        int64_t v;
        if (tin >= 0 && expr_const_int(e, &v) == 0 && v % T.fac[tin])
            return snprintf(why, cap, "its %c extent %lld is not a multiple of %lld, and padding it needs static "
                            "shapes", c, (long long)v, (long long)T.fac[tin]), -1;
        if (tin >= 0 && !(e = sym_div(a, e, T.fac[tin], loc)))
            return snprintf(why, cap, "its %c extent is symbolic and nothing proves it a multiple of %lld (a "
                            "match_cast to a shape such as %c4 * %lld would)", c, (long long)T.fac[tin], c,
                            (long long)T.fac[tin]), -1;
        o[i] = e;
    }
    *out = o;
    return 0;
}

static StructInfo *sym_sinfo(Arena *a, DType dt, int nd, Expr **shape, Loc loc)
{
    StructInfo *si = arena_zalloc(a, sizeof *si);
    si->kind = SI_TENSOR;
    si->loc = loc;
    si->ndim = nd;
    si->shape = shape;
    si->dtype = dt;
    return si;
}

static Expr *sym_bind(Conv *C, const RBlock *rb, const char *base, Expr *value, StructInfo *si, Loc loc)
{
    Binding *b = binding_fresh(C->m, &C->names, base, rb->dataflow, si, value, loc);
    emit(C, b);
    return var_ref(&C->m->arena, b->var, loc);
}

/* ---- policy=tvm: a split assumed, and stated ----
 *
 * TVM's ConvertLayout splits the channels of operands known only by their
 * rank, or of a symbolic count nothing proves a multiple of the factor. Under
 * policy=tvm convert-layout does too, and says what it assumes: an operand
 * known by its rank is first cast to a shape of fresh symbolic variables
 * (R.match_cast(x, R.Tensor((n, c, h, w)))), the data's channels and the
 * kernel's input channels one variable; then each split extent e is cast to
 * e // f * f, which the run checks: a count that does not divide fails
 * there, where the cast is, not in the converted call. */

static Var *tvm_sym(Conv *C, const char *base, Loc loc)
{
    Var *v = var_new(&C->m->arena, fresh_name(&C->m->names, &C->names, base), VAR_SYM, loc);
    v->dtype = DT_INT64;
    int cap = C->fn->nsyms;
    vec_push(&C->m->arena, &C->fn->syms, &C->fn->nsyms, &cap, v);
    return v;
}

static Expr *tvm_cast(Conv *C, const RBlock *rb, Expr *x, StructInfo *si, const char *base, const char *said, Loc loc)
{
    Module *m = C->m;
    Expr *ann = expr_new(&m->arena, E_SINFO, loc);
    ann->u.sinfo = si;
    Expr *mc = call_new(m, "R.match_cast", x, NULL, NULL, 0, loc);
    mc->u.call.nargs = 2;
    mc->u.call.args[1] = ann;
    Expr *r = sym_bind(C, rb, base, mc, si, loc);
    var_say(m, r->u.var, said, x->u.var, "");
    return r;
}

/* The operands xs[0..nt) of a call converted from layouts from[] to to[],
 * each replaced by its casts where the split needs them. */
static void tvm_assume(Conv *C, const RBlock *rb, const Expr *e, int nt, const char *const *from,
                       const char *const *to, Expr **xs, Loc loc)
{
    Arena *a = &C->m->arena;
    Var *chan = NULL;   /* the data's channels, which the kernel's input channels are */
    int share = nt == 2 && groups_of(e) == 1;
    for (int k = 0; k < nt; k++) {
        Expr *x = xs[k];
        const StructInfo *si = x && x->kind == E_VAR ? x->u.var->sinfo : NULL;
        Axes F, T;
        if (!si || si->kind != SI_TENSOR || si->ndim < 0 || si->dtype == DT_VOID || layout_axes_parse(from[k], &F) ||
            layout_axes_parse(to[k], &T) || F.n != si->ndim || has_split(&F) || !has_split(&T))
            continue;
        Expr **sh = si->shape;
        char base[160];
        if (!sh) {
            sh = arena_array(a, (size_t)F.n + 1, sizeof *sh);
            for (int i = 0; i < F.n; i++) {
                char c = F.ax[i], nm[4] = { (char)(c - 'A' + 'a'), 0, 0, 0 };
                if (k == 1 && (c == 'H' || c == 'W'))
                    nm[0] = 'k', nm[1] = (char)(c - 'A' + 'a');
                Var *v = share && k == 1 && c == 'I' && chan ? chan : tvm_sym(C, nm, loc);
                if (share && k == 0 && c == 'C')
                    chan = v;
                sh[i] = var_ref(a, v, loc);
            }
            snprintf(base, sizeof base, "%.100s_shape", x->u.var->name->str);
            x = tvm_cast(C, rb, x, sym_sinfo(a, si->dtype, F.n, sh, loc), base, "the shape of ", loc);
        }
        Expr **dv = arena_array(a, (size_t)F.n + 1, sizeof *dv);
        memcpy(dv, sh, (size_t)F.n * sizeof *dv);
        int changed = 0;
        for (int i = 0; i < T.n; i++) {
            int at = T.fac[i] ? axis_at(&F, (char)(T.ax[i] - 'a' + 'A')) : -1;
            int64_t v;
            if (at < 0 || expr_const_int(dv[at], &v) == 0 || sym_div(a, dv[at], T.fac[i], loc))
                continue;
            Expr *q = expr_new(a, E_BIN, loc);
            q->u.bin.op = B_FLOORDIV;
            q->u.bin.a = dv[at];
            q->u.bin.b = expr_int(a, T.fac[i], DT_VOID, loc);
            dv[at] = sym_mul(a, q, T.fac[i], loc);
            changed = 1;
        }
        if (changed) {
            snprintf(base, sizeof base, "%.100s_checked", xs[k]->u.var->name->str);
            char said[64];
            snprintf(said, sizeof said, "the assumption that %.30s divides ", to[k]);
            x = tvm_cast(C, rb, x, sym_sinfo(a, si->dtype, F.n, dv, loc), base, said, loc);
        }
        xs[k] = x;
    }
}

static int convert_symbolic_of(Conv *C, const RBlock *rb, Binding *bd, int kind, const Want *w, const char *dl,
                               const char *kl, const char *ol, Expr **xs);

/* convert() for operands whose shapes are symbolic or unknown: the same
 * rewrites, typed by moving the extents with their axes. 1 when converted,
 * 0 with a note why not. */
static int convert_symbolic(Conv *C, const RBlock *rb, Binding *bd, int kind, const Want *w, const char *dl,
                            const char *kl, const char *ol)
{
    Expr *e = bd->value, *xs[2] = { NULL, NULL };
    int nt = has_kernel(kind) ? 2 : 1, nout = C->nout;
    for (int k = 0; k < nt && k < e->u.call.nargs; k++)
        xs[k] = e->u.call.args[k];
    if (C->tvm)
        tvm_assume(C, rb, e, nt, (const char *[]){ dl, kl }, (const char *[]){ w->data, w->kernel }, xs, bd->loc);
    if (convert_symbolic_of(C, rb, bd, kind, w, dl, kl, ol, xs))
        return 1;
    C->nout = nout;   /* the casts go with the conversion they were for */
    return 0;
}

static int convert_symbolic_of(Conv *C, const RBlock *rb, Binding *bd, int kind, const Want *w, const char *dl,
                               const char *kl, const char *ol, Expr **xs)
{
    Module *m = C->m;
    Arena *a = &m->arena;
    Expr *e = bd->value;
    Loc loc = bd->loc;
    const char *y = var_said(bd->var);
    int conv = has_kernel(kind), nt = conv ? 2 : 1;
    const char *from[2] = { dl, kl }, *to[2] = { w->data, w->kernel };
    Expr *newx[2];
    char why[200];
    for (int k = 0; k < nt; k++) {
        Expr *x = xs[k];
        const StructInfo *si = x && x->kind == E_VAR ? x->u.var->sinfo : NULL;
        if (!si || si->kind != SI_TENSOR || si->ndim < 0 || si->dtype == DT_VOID)
            return note_add(C->notes, loc, "left %s: the operands of %s have no rank or dtype", y, op_names[kind]), 0;
        Expr **sh;
        if (sym_layout(a, from[k], to[k], si->ndim, si->shape, &sh, loc, why, sizeof why))
            return note_add(C->notes, loc, "left %s: %s %s: %s", y, k ? "its kernel" : "its data",
                            var_said(x->u.var), why), 0;
        ImError err;
        Expr *map = im_layout_map(a, &m->names, from[k], to[k], NULL, &err);
        if (!map)
            return note_add(C->notes, loc, "left %s: %s does not map to %s", y, from[k], to[k]), 0;
        char nm[160];
        snprintf(nm, sizeof nm, "%.100s_%.30s", x->u.var->name->str, to[k]);
        Axes T;
        layout_axes_parse(to[k], &T);
        newx[k] = sym_bind(C, rb, nm, layout_transform_new(m, x, map, NULL, loc),
                           sym_sinfo(a, si->dtype, T.n, sh, loc), loc);
        char post[48];
        snprintf(post, sizeof post, " to %.30s", to[k]);
        var_say(m, newx[k]->u.var, "the rewrite of ", x->u.var, post);
    }
    /* the result: its declared type, its extents moved to the new layout */
    const StructInfo *ys = bd->var->sinfo;
    Axes YT;
    layout_axes_parse(w->data, &YT);
    Expr **ysh = NULL;
    if (ys && ys->kind == SI_TENSOR && ys->ndim >= 0 && !(C->tvm && !ys->shape) &&
        sym_layout(a, ol, w->data, ys->ndim, ys->shape, &ysh, loc, why, sizeof why))
        return note_add(C->notes, loc, "left %s: its result: %s", y, why), 0;
    ImError err;
    Expr *omap = im_layout_map(a, &m->names, w->data, ol, NULL, &err);
    if (!omap)
        return note_add(C->notes, loc, "left %s: the result does not map back from %s to %s", y, w->data, ol), 0;
    Expr *vals[3] = { expr_str(a, w->data, loc), expr_str(a, conv ? w->kernel : w->data, loc), expr_str(a, w->data, loc) };
    static const char *const conv_keys[3] = { "data_layout", "kernel_layout", "out_layout" };
    static const char *const pool_keys[2] = { "layout", "out_layout" };
    Expr *nc = conv ? call_with_attrs(m, e, conv_keys, vals, 3)
                    : call_with_attrs(m, e, pool_keys, (Expr *[]){ vals[0], vals[2] }, kind == RESIZE ? 1 : 2);
    for (int k = 0; k < nt; k++)
        nc->u.call.args[k] = newx[k];
    char nm[160];
    snprintf(nm, sizeof nm, "%.100s_%.30s", y, w->data);
    DType ydt = ys && ys->kind == SI_TENSOR ? ys->dtype : newx[0]->u.var->sinfo->dtype;
    Expr *r = sym_bind(C, rb, nm, nc, sym_sinfo(a, ydt, YT.n, ysh, loc), loc);
    char form[64];
    snprintf(form, sizeof form, "the %.30s form of ", w->data);
    var_say(m, r->u.var, form, bd->var, "");
    bd->value = layout_transform_new(m, r, omap, NULL, loc);
    if (!ys) {
        /* its rank and dtype are known now, for the calls that read it */
        Axes OL;
        layout_axes_parse(ol, &OL);
        bd->var->sinfo = sym_sinfo(a, ydt, OL.n, NULL, loc);
    }
    emit(C, bd);
    note_add(C->notes, loc, "converted %s: %s to %s%s%s (its shapes not static: the extents move with their axes)%s",
             y, op_names[kind], w->data, conv ? "/" : "", conv ? w->kernel : "",
             !C->pick && w != &C->want[kind] ? ", the layout of its data" : "");
    return 1;
}

/* Converts the call bd computes; returns 1 when it did (its new bindings
 * emitted), 0 when it left it (with a note why). */
static int convert(Conv *C, const RBlock *rb, Binding *bd, int kind, const Want *w)
{
    Module *m = C->m;
    Expr *e = bd->value;
    Loc loc = bd->loc;
    const char *y = var_said(bd->var);
    char b1[32], b2[32], b3[32], nm[160];
    int conv = has_kernel(kind);
    const char *dkey = conv ? "data_layout" : "layout";
    const char *dl = str_attr(e, dkey, op_layout_default(dkey), b1, sizeof b1);
    const char *kl = conv ? str_attr(e, "kernel_layout", kind == CONVT ? "IOHW" : op_layout_default("kernel_layout"),
                                     b2, sizeof b2) : "";
    const char *ol = str_attr(e, "out_layout", dl, b3, sizeof b3);
    if (strcmp(dl, w->data) == 0 && strcmp(ol, w->data) == 0 && (!conv || strcmp(kl, w->kernel) == 0))
        return note_add(C->notes, loc, "left %s: %s is already in %s%s%s", y, op_names[kind], w->data,
                        conv ? "/" : "", conv ? w->kernel : ""), 0;
    int nt = conv ? 2 : 1;
    TensorType in[2], xt, wt = { 0 }, yt;   /* wt: the kernel's, for a convolution */
    for (int k = 0; k < nt; k++)
        if (k >= e->u.call.nargs || value_type(e->u.call.args[k], &in[k]))
            return convert_symbolic(C, rb, bd, kind, w, dl, kl, ol);
    int xpad = 0, wpad = 0, opad = 0;
    Expr *xmap = layout_map(C, dl, w->data, &in[0], &xt, &xpad);
    if (!xmap)
        return note_add(C->notes, loc, "left %s: %s does not map to %s over %s's shape", y, dl, w->data, y), 0;
    if (xpad && !conv)
        return note_add(C->notes, loc, "left %s: %s needs padding, which pools do not take", y, w->data), 0;
    Expr *wval = conv ? e->u.call.args[1] : NULL, *wmap = NULL;
    TensorType wsrc = in[conv ? 1 : 0];
    int64_t cin = 0, cpad = 0, more[OP_MAX_RANK] = { 0 };   /* a TensorType has at most OP_MAX_RANK dimensions */
    if (conv && xpad) {
        /* the data's channels grow from C to Cp: the kernel's input channels follow, with zeros */
        if (groups_of(e) != 1)
            return note_add(C->notes, loc, "left %s: padding the channels of a grouped convolution is not "
                            "supported", y), 0;
        const char *ipos = strchr(kl, 'I');
        TensorType before, after;
        int lp = 0;
        if (!ipos || strchr(kl, 'i') || !layout_map(C, dl, "NCHW", &in[0], &before, &lp) ||
            !layout_map(C, w->data, "NCHW", &xt, &after, &lp))
            return note_add(C->notes, loc, "left %s: the kernel layout %s cannot take padded input channels", y,
                            kl), 0;
        cin = before.shape[1];
        cpad = after.shape[1] - cin;
        more[ipos - kl] = cpad;
        wsrc.shape[ipos - kl] += cpad;
    }
    int64_t oc = 0, opadn = 0;
    int cpos = (int)(strchr(ol, 'C') ? strchr(ol, 'C') - ol : -1);
    if (conv) {
        wmap = layout_map(C, kl, w->kernel, &wsrc, &wt, &wpad);
        const char *opos = strchr(kl, 'O');
        TensorType back;
        int lp = 0;
        if (wmap && wpad && opos && !strchr(kl, 'o') && cpos >= 0 && !strchr(ol, 'c') && groups_of(e) == 1 &&
            layout_map(C, w->kernel, kl, &wt, &back, &lp)) {
            /* output channels that do not divide the tile: the kernel gets
             * zero filters, and the result is cropped back (the extra
             * channels are 0, which the crop says) */
            oc = wsrc.shape[opos - kl];
            opadn = back.shape[opos - kl] - oc;
            more[opos - kl] = opadn;
            wsrc.shape[opos - kl] += opadn;
            wmap = layout_map(C, kl, w->kernel, &wsrc, &wt, &wpad);
        }
        if (!wmap || wpad)
            return note_add(C->notes, loc, "left %s: the kernel does not split evenly into %s", y, w->kernel), 0;
        if (cpad || opadn)
            wval = pad_high(m, wval, wsrc.ndim, more, NULL, loc);
    }
    if (C->tvm && (cpad || opadn))
        return note_add(C->notes, loc, "left %s: policy=tvm: its %s channels (%lld) do not divide into %s, and "
                        "TVM's ConvertLayout leaves such a call (policy=lopt pads them)", y, cpad ? "input" : "output",
                        (long long)(cpad ? cin : oc), cpad ? w->data : w->kernel), 0;
    /* the converted call, checked by the operator's own inference */
    Expr *vals[3] = { expr_str(&m->arena, w->data, loc), expr_str(&m->arena, conv ? w->kernel : w->data, loc),
                      expr_str(&m->arena, w->data, loc) };
    static const char *const conv_keys[3] = { "data_layout", "kernel_layout", "out_layout" };
    static const char *const pool_keys[2] = { "layout", "out_layout" };
    /* resize2d has a layout and no out_layout */
    Expr *nc = conv ? call_with_attrs(m, e, conv_keys, vals, 3)
                    : call_with_attrs(m, e, pool_keys, (Expr *[]){ vals[0], vals[2] }, kind == RESIZE ? 1 : 2);
    TensorType args[2] = { xt, wt }, outs[OP_MAX_ARGS];
    int nout;
    OpError err;
    if (op_infer(nc, args, nt, outs, &nout, &err))
        return note_add(C->notes, loc, "left %s: %s", y, err.msg), 0;
    Expr *omap = layout_map(C, w->data, ol, &outs[0], &yt, &opad);
    if (!omap || opad)
        return note_add(C->notes, loc, "left %s: the result does not map back from %s to %s", y, w->data, ol), 0;
    /* commit: operands, call, result */
    char to_data[48], to_kernel[48], by[48];
    snprintf(to_data, sizeof to_data, " to %.30s", w->data);
    snprintf(to_kernel, sizeof to_kernel, " to %.30s", conv ? w->kernel : w->data);
    nc->u.call.args[0] = rewrite_operand(C, rb, e->u.call.args[0],
                                         layout_transform_new(m, e->u.call.args[0], xmap,
                                                              xpad ? expr_float(&m->arena, 0, DT_VOID, loc) : NULL, loc),
                                         w->data, "the rewrite of ", to_data, &xt, loc);
    if (conv) {
        Expr *k = e->u.call.args[1];
        if (cpad || opadn) {
            char padded[48];
            snprintf(padded, sizeof padded, "pad%lld", (long long)(cpad ? cpad : opadn));
            snprintf(by, sizeof by, " by %lld channel%s", (long long)(cpad ? cpad : opadn),
                     (cpad ? cpad : opadn) == 1 ? "" : "s");
            wval = rewrite_operand(C, rb, k, wval, padded, "the padding of ", by, &wsrc, loc);
        }
        nc->u.call.args[1] = rewrite_operand(C, rb, cpad || opadn ? wval : k,
                                             layout_transform_new(m, wval, wmap, NULL, loc), w->kernel,
                                             "the rewrite of ", to_kernel, &wt, loc);
    }
    snprintf(nm, sizeof nm, "%.100s_%.30s", y, w->data);
    Expr *r = bind_new(C, rb, nm, nc, &outs[0], loc);
    char form[64];
    snprintf(form, sizeof form, "the %.30s form of ", w->data);
    var_say(m, r->u.var, form, bd->var, "");
    if (opadn) {
        snprintf(nm, sizeof nm, "%.100s_%.30s", y, ol);
        Expr *full = bind_new(C, rb, nm, layout_transform_new(m, r, omap, NULL, loc), &yt, loc);
        snprintf(form, sizeof form, "the padded %.30s form of ", ol);
        var_say(m, full->u.var, form, bd->var, "");
        TensorType ct = yt;
        ct.shape[cpos] = oc;
        bd->value = crop_new(m, full, &ct, loc);
    } else {
        bd->value = layout_transform_new(m, r, omap, NULL, loc);
    }
    emit(C, bd);
    char extra[160] = "";
    if (cpad)
        snprintf(extra, sizeof extra, ", input channels padded from %lld to %lld with 0", (long long)cin,
                 (long long)(cin + cpad));
    if (opadn)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                 ", output channels padded from %lld to %lld with zero filters and cropped back", (long long)oc,
                 (long long)(oc + opadn));
    if (!C->pick && w != &C->want[kind])
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", the layout of its data (%s is not named)",
                 opt_names[kind]);
    note_add(C->notes, loc, "converted %s: %s to %s%s%s%s", y, op_names[kind], w->data, conv ? "/" : "",
             conv ? w->kernel : "", extra);
    return 1;
}

/* The layout a pool, resize or adaptive pool the user did not name takes:
 * its data's, when a converted call computes it in a converted layout (TVM's
 * ConvertLayout has such an operator follow its producer); NULL otherwise. */
static const Want *follows(Conv *C, const Expr *e)
{
    const Expr *x = e->u.call.nargs ? e->u.call.args[0] : NULL;
    int i = x && x->kind == E_VAR ? ptrmap_get(&C->in_layout, x->u.var, 0) : 0;
    return i ? &C->layouts[i - 1] : NULL;
}

static int layout_index(const Conv *C, const Want *w)
{
    int j = 0;
    while (j + 1 < NKINDS && strcmp(C->layouts[j].data, w->data) != 0)
        j++;
    return j;
}

/* An elementwise call (a layout-agnostic operator) of a value in a
 * converted layout computes in that layout once flow has moved the rewrite
 * back past it: a pool after it follows that layout too. */
static void carry_layout(Conv *C, const Binding *bd)
{
    const Expr *e = bd->value;
    if (is_layout_transform(e) && e->u.call.nargs == 1 && e->u.call.args[0]->kind == E_VAR) {
        /* the second of a pair of rewrites that cancel is its first's operand again */
        int j = ptrmap_get(&C->rw_at, e->u.call.args[0]->u.var, 0);
        const Expr *y = j ? C->out[j - 1]->value : NULL, *x = y ? y->u.call.args[0] : NULL;
        int i = x && x->kind == E_VAR ? ptrmap_get(&C->in_layout, x->u.var, 0) : 0;
        DType dt;
        int nd, ident = 0;
        int64_t sh[IM_MAX_RANK];
        char why[120];
        if (i && !sinfo_shape(x->u.var->sinfo, &dt, &nd, sh) && nd <= IM_MAX_RANK &&
            rewrite_compose(C->m, y, e, sh, nd, &ident, why, sizeof why) && ident)
            ptrmap_put(&C->in_layout, bd->var, i);
        ptrmap_put(&C->rw_at, bd->var, C->nout);
        return;
    }
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
    if (!op || op->category != LAYOUT_AGNOSTIC || ptrmap_get(&C->in_layout, bd->var, 0))
        return;
    for (int k = 0; k < op->ntensors && k < e->u.call.nargs; k++) {
        const Expr *a = e->u.call.args[k];
        int i = a->kind == E_VAR ? ptrmap_get(&C->in_layout, a->u.var, 0) : 0;
        if (i) {
            ptrmap_put(&C->in_layout, bd->var, i);
            return;
        }
    }
}

int pass_convert_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    if (nopts == 0) {
        snprintf(err, cap, "convert-layout needs the layouts to convert to, as in convert-layout{conv2d=NCHW4c:OIHW4o}");
        return -1;
    }
    Want want[NKINDS];
    memset(want, 0, sizeof want);
    if (parse_options(opts, nopts, want, NULL, err, cap))
        return -1;
    for (int k = 0; k < NKINDS; k++)
        if (want[k].set)
            return 0;
    snprintf(err, cap, "convert-layout needs the layouts to convert to, as in convert-layout{conv2d=NCHW4c:OIHW4o}");
    return -1;
}

/* The kind of operator e calls (NKINDS: none convert-layout knows). */
static int kind_of(const Expr *e)
{
    int k = 0;
    if (e->kind != E_CALL || e->u.call.callee)
        return NKINDS;
    while (k < NKINDS && strcmp(e->u.call.op->str, op_names[k]) != 0)
        k++;
    return k;
}

/* Converts the calls of fn: those pick names when it is set, else those
 * want names and the pools that follow them. */
/* The tables a conversion keeps across its blocks. */
static void conv_free(void *p)
{
    Conv *C = p;
    ptrmap_free(&C->names);
    ptrmap_free(&C->in_layout);
    ptrmap_free(&C->rw_at);
}

static void convert_calls(Module *m, Func *fn, Notes *notes, const Want *want, ConvertPick pick, void *data, int tvm)
{
    Conv C = { m, fn, { 0 }, notes, want, NULL, 0, 0, NULL, 0, 0, { 0 }, { { 0 } }, pick, data, tvm, { 0 } };
    oom_defer(conv_free, &C);   /* its tables go if an allocation fails */
    memcpy(C.layouts, want, sizeof C.layouts);
    /* a followed pool takes the data layout of the first call the user named */
    for (int k = 0; k < NKINDS; k++)
        if (!C.layouts[k].set)
            for (int j = 0; j < NKINDS && !C.layouts[k].set; j++)
                if (want[j].set) {
                    C.layouts[k] = want[j];
                    C.layouts[k].kernel[0] = 0;
                }
    infer_types(m, fn);
    collect_names(fn, &C.names);
    if (tvm)   /* the symbolic variables its match_casts introduce take names of their own */
        for (int i = 0; i < fn->nsyms; i++)
            ptrmap_put(&C.names, fn->syms[i]->name, 1);
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        C.out = NULL;
        C.nout = C.cap = 0;
        C.nmade = 0;
        ptrmap_free(&C.rw_at);
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            int k = kind_of(bd->value);
            const Want *w = pick ? (k < NKINDS ? pick(data, bd) : NULL)
                            : k < NKINDS && want[k].set ? &want[k] : k < NKINDS && !has_kernel(k) ? follows(&C, bd->value) : NULL;
            if (!w || !convert(&C, rb, bd, k, w))
                emit(&C, bd);
            else if (!pick)
                ptrmap_put(&C.in_layout, bd->var, 1 + layout_index(&C, w));
            if (!pick)
                carry_layout(&C, bd);
        }
        rb->binds = C.out;
        rb->nbinds = C.nout;
    }
    oom_keep(&C);
    conv_free(&C);
}

void convert_func(Module *m, Func *fn, Notes *notes, ConvertPick pick, void *data)
{
    Want want[NKINDS];
    memset(want, 0, sizeof want);
    convert_calls(m, fn, notes, want, pick, data, 0);
}

int convert_parse_layout(const char *op, const char *text, ConvertTo *to, char *err, size_t cap)
{
    Want want[NKINDS];
    memset(want, 0, sizeof want);
    PassOpt o = { op, text };
    if (parse_options(&o, 1, want, NULL, err, cap))
        return -1;
    for (int k = 0; k < NKINDS; k++)
        if (want[k].set) {
            *to = want[k];
            return 0;
        }
    return snprintf(err, cap, "%s: not an operator convert-layout converts", op), -1;
}

int pass_convert_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Want want[NKINDS];
    char err[256];
    int tvm = 0;
    memset(want, 0, sizeof want);
    if (parse_options(opts, nopts, want, &tvm, err, sizeof err))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "%s", err);   /* the pipeline's check has refused it already */
    Notes notes = { 0 };
    for (int f = 0; f < m->nfuncs; f++)
        if (is_plannable(m->funcs[f]))
            convert_calls(m, m->funcs[f], &notes, want, NULL, NULL, tvm);
    notes_flush(&notes, ctx, "convert-layout");
    return 0;
}
