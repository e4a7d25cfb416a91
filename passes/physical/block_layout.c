/* transform-block-layout (seed 001): renames a block's iterators by a
 * bijective affine map. The block must sit in a nest of loops that each bind
 * one of its iterators, in order; the nest becomes loops over the map's
 * output box, the block's iterators the new ones (spatial where an output
 * depends on spatial iterators only, reduce where on reduce ones only), and
 * the old iterators inside the block are the inverse map of the new. */
#include <stdio.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../printer/print.h"
#include "../graph.h"
#include "../pass.h"
#include "physical.h"

typedef struct BL {
    Module *m;
    PassCtx *ctx;
    Arena *a, *scratch;
    Func *f;
    Block *b;
    Stmt **slot;           /* where the nest around the block hangs */
    PtrMap names;
} BL;

static int err(BL *L, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int err(BL *L, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(L->ctx->src, loc, fmt, ap);
    va_end(ap);
    return -1;
}

/* Finds the block named name: *slot is the outermost of the loops that hold
 * nothing but the loops and the block. */
static Block *find_block(Stmt **slot, Sym *name, Stmt ***nest)
{
    Stmt *s = *slot;
    if (!s)
        return NULL;
    Block *b = NULL;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n && !b; i++)
            b = find_block(&s->u.seq.items[i], name, nest);
        return b;
    case S_FOR: {
        Stmt *in = stmt_single(s->u.loop.body);
        while (in && in->kind == S_FOR)
            in = stmt_single(in->u.loop.body);
        if (in && in->kind == S_BLOCK && in->u.block->name == name) {
            *nest = slot;
            return in->u.block;
        }
        return find_block(&s->u.loop.body, name, nest);
    }
    case S_BLOCK:
        if (s->u.block->name == name) {
            *nest = slot;
            return s->u.block;
        }
        if ((b = find_block(&s->u.block->init, name, nest)))
            return b;
        return find_block(&s->u.block->body, name, nest);
    case S_IF:
        if ((b = find_block(&s->u.branch.then, name, nest)))
            return b;
        return find_block(&s->u.branch.orelse, name, nest);
    default: return NULL;
    }
}

/* The loops of the nest bind the block's iterators one to one, in order;
 * a symbolic domain (sym[k]; dom[k] is set later, at the stand-ins) must be
 * the loop's extent as written. */
static int check_nest(BL *L, int64_t *dom, Expr **sym)
{
    Stmt *s = *L->slot;
    Block *b = L->b;
    for (int k = 0; k < b->niters; k++) {
        int64_t ext = 0, lo;
        s = stmt_single(s);
        sym[k] = NULL;
        int bound = s->kind == S_FOR && b->iters[k].binding->kind == E_VAR &&
                    b->iters[k].binding->u.var == s->u.loop.var && expr_const_int(s->u.loop.min, &lo) == 0 &&
                    lo == 0 && b->iters[k].kind != 'O';
        if (bound && expr_const_int(b->iters[k].dom, &dom[k])) {
            sym[k] = b->iters[k].dom;
            dom[k] = ext = 1;
            bound = expr_equal(s->u.loop.extent, b->iters[k].dom);
        } else if (bound) {
            bound = expr_const_int(s->u.loop.extent, &ext) == 0 && dom[k] == ext;
        }
        if (!bound)
            return err(L, b->iters[k].loc, "transform-block-layout: the loops around block %s must bind its iterators "
                       "one to one, in order, over their domains", b->name->str);
        s = s->u.loop.body;
    }
    s = stmt_single(s);
    if (s->kind != S_BLOCK || s->u.block != b || b->where)
        return err(L, L->b->iters[0].loc, "transform-block-layout: block %s has loops or a T.where the map cannot "
                   "carry", b->name->str);
    return 0;
}

/* 'S' or 'R' when output s depends only on iterators of that kind (or none:
 * 'S'); 0 when it mixes them. */
static char out_kind(const Block *b, const ImSum *s)
{
    char k = 0;
    for (int i = 0; i < s->n; i++) {
        char t;
        if (s->t[i].var >= 0)
            t = b->iters[s->t[i].var].kind;
        else
            t = out_kind(b, s->t[i].arg);
        if (!t || (k && t != k))
            return 0;
        k = t;
    }
    return k ? k : 'S';
}

static Expr *tvar(Arena *a, Var *v)
{
    Expr *e = expr_new(a, E_VAR, v->loc);
    e->u.var = v;
    return e;
}

/* The symbols of the domains and the map (n in lambda i, j: (i * n + j,)),
 * at their stand-ins; dom[k] of a symbolic domain its value there. */
static int read_symbols(BL *L, const Expr *M, Expr *const *sym, int64_t *dom, ImSyms *s)
{
    Var *v[IM_MAX_SYMS * 4];
    int n = 0;
    Loc at = L->b->iters[0].loc;
    for (int k = 0; k < L->b->niters; k++)
        if (sym[k])
            n = expr_syms(sym[k], v, IM_MAX_SYMS * 4, n);
    for (int q = 0; q < M->u.map.nout; q++)
        n = expr_syms(M->u.map.out[q], v, IM_MAX_SYMS * 4, n);
    for (int i = 0; i < n; i++) {
        int param = 0;
        for (int p = 0; p < M->u.map.nparams; p++)
            param |= M->u.map.params[p] == v[i];
        if (!param && im_sym_add(s, v[i]) < 0)
            return err(L, at, "transform-block-layout of block %s: the domains and the map read more than %d symbols",
                       L->b->name->str, IM_MAX_SYMS);
    }
    im_sym_standins(s);
    for (int k = 0; k < L->b->niters; k++) {
        char ext[120];
        if (sym[k] && (im_sym_eval(sym[k], s, &dom[k]) || dom[k] < 1))
            return err(L, L->b->iters[k].loc, "transform-block-layout of block %s: the domain of %s (%s) is not a "
                       "product of integers and shape variables", L->b->name->str, L->b->iters[k].var->name->str,
                       expr_text(sym[k], ext, sizeof ext));
    }
    return 0;
}

/* The new extents and the old iterators in terms of the new ones (y), read
 * back from the stand-ins as products of the symbols, then checked at every
 * small binding: the map is one to one onto the new extents and the inverse
 * sends each point back. Without symbols, the inverse as it is. */
static int symbolic(BL *L, const Expr *M, Expr *const *sym, const ImSyms *s, const IndexMap *im,
                    const IndexMap *inv, Var *const *y, Expr **next, Expr **back)
{
    Loc at = L->b->iters[0].loc;
    for (int p = 0; p < im->nin; p++)
        back[p] = im_sum_to_expr(L->a, inv->out[p], y);
    if (!s->n)
        return 0;
    Expr *old[IM_MAX_RANK], *nw[IM_MAX_RANK];
    for (int q = 0; q < im->nout; q++) {
        Expr *x = im_unbind(L->a, expr_int(L->scratch, im->obox[q], DT_VOID, at), s);
        if (!x)
            return err(L, at, "transform-block-layout of block %s: the new extent of axis %d is not a product of "
                       "integers and the shape variables, which is all lopt writes", L->b->name->str, q);
        next[q] = x->kind == E_INT ? NULL : x;
        nw[q] = x;
    }
    Expr *invmap = expr_new(L->scratch, E_INDEXMAP, at);
    invmap->u.map.nparams = im->nout;
    invmap->u.map.params = (Var **)y;
    invmap->u.map.nout = im->nin;
    invmap->u.map.out = back;
    for (int p = 0; p < im->nin; p++) {
        old[p] = L->b->iters[p].dom;
        if (!(back[p] = im_unbind(L->a, back[p], s)))
            return err(L, at, "transform-block-layout of block %s: the inverse of the map reads a constant lopt "
                       "cannot write as a product of the shape variables", L->b->name->str);
    }
    ImError e;
    if (im_sym_check(L->scratch, M, old, nw, invmap, s, 0, &e))
        return err(L, at, "transform-block-layout of block %s: %s", L->b->name->str, e.msg);
    return 0;
}

/* ---- the indices, simplified over the new iterators ---- */

/* The block's indices read the inverse map (h * 2 + rh, with h and rh
 * digits of the new iterators): each is simplified over the new box, so
 * that digits that continue each other merge and a quotient that the new
 * extents fix folds (co // 64 is 0 when co < 64), as TVM's simplifier does
 * after the same rewrite. */
static void simp_expr(BL *L, const Scope *sc, Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        for (int k = 0; k < e->u.load.n; k++) {
            simp_expr(L, sc, e->u.load.idx[k]);
            e->u.load.idx[k] = scope_simplify(sc, L->a, L->scratch, e->u.load.idx[k]);
        }
        break;
    case E_BIN: simp_expr(L, sc, e->u.bin.a); simp_expr(L, sc, e->u.bin.b); break;
    case E_UNARY: simp_expr(L, sc, e->u.un.a); break;
    case E_CAST: simp_expr(L, sc, e->u.cast.a); break;
    case E_CALL:
        for (int k = 0; k < e->u.call.nargs; k++)
            simp_expr(L, sc, e->u.call.args[k]);
        break;
    default: break;
    }
}

static void simp_stmt(BL *L, Scope *sc, Stmt *s)
{
    if (!s)
        return;
    int mark = sc->n;
    switch (s->kind) {
    case S_SEQ:
        for (int k = 0; k < s->u.seq.n; k++)
            simp_stmt(L, sc, s->u.seq.items[k]);
        break;
    case S_FOR:
        scope_push(sc, s->u.loop.var, s->u.loop.extent, s->u.loop.min);
        simp_stmt(L, sc, s->u.loop.body);
        break;
    case S_STORE:
        for (int k = 0; k < s->u.store.n; k++) {
            simp_expr(L, sc, s->u.store.idx[k]);
            s->u.store.idx[k] = scope_simplify(sc, L->a, L->scratch, s->u.store.idx[k]);
        }
        simp_expr(L, sc, s->u.store.value);
        break;
    case S_IF:
        simp_expr(L, sc, s->u.branch.cond);
        simp_stmt(L, sc, s->u.branch.then);
        simp_stmt(L, sc, s->u.branch.orelse);
        break;
    case S_EVAL: simp_expr(L, sc, s->u.eval); break;
    case S_LET: simp_expr(L, sc, s->u.let.value); break;
    default: break;          /* an inner block keeps its own indices */
    }
    sc->n = mark;
}

/* The same for a region's point indices (a slice keeps its bounds). */
static void simp_region(BL *L, const Scope *sc, Region *r)
{
    for (int d = 0; d < r->n; d++)
        if (r->idx[d]->kind != E_SLICE)
            r->idx[d] = scope_simplify(sc, L->a, L->scratch, r->idx[d]);
}

static void simplify_block(BL *L, Block *nb, const ImSyms *syms)
{
    Scope sc = { .syms = syms->n ? syms : NULL };
    for (int q = 0; q < nb->niters; q++)
        scope_push(&sc, nb->iters[q].var, nb->iters[q].dom, NULL);
    for (int k = 0; k < nb->nreads; k++)
        simp_region(L, &sc, &nb->reads[k]);
    for (int k = 0; k < nb->nwrites; k++)
        simp_region(L, &sc, &nb->writes[k]);
    simp_stmt(L, &sc, nb->init);
    simp_stmt(L, &sc, nb->body);
    scope_free(&sc);
}

static int run(BL *L, const PassOpt *opts, int nopts)
{
    const char *func = NULL, *block = NULL, *map = NULL;
    for (int i = 0; i < nopts; i++) {
        if (strcmp(opts[i].key, "func") == 0)
            func = opts[i].val;
        else if (strcmp(opts[i].key, "block") == 0)
            block = opts[i].val;
        else if (strcmp(opts[i].key, "map") == 0)
            map = opts[i].val;
    }
    L->f = module_find(L->m, intern_cstr(&L->m->names, func));
    if (!L->f || L->f->kind != F_PRIM || !L->f->body)
        return err(L, (Loc){ 0, 0 }, "transform-block-layout: no prim_func named '%s'", func);
    if (tir_unhandled(L->f))
        return err(L, L->f->loc, "transform-block-layout: %s holds %s, which it does not rewrite", func,
                   tir_unhandled(L->f));
    Stmt **nest = NULL;
    L->b = find_block(&L->f->body, intern_cstr(&L->m->names, block), &nest);
    if (!L->b)
        return err(L, L->f->loc, "transform-block-layout: %s has no block named '%s'", func, block);
    L->slot = nest;
    Block *b = L->b;
    if (b->niters < 1 || b->niters > IM_MAX_RANK)
        return err(L, b->iters ? b->iters[0].loc : L->f->loc,
                   "transform-block-layout: block %s has %d iterators (1 to %d are handled)", block, b->niters,
                   IM_MAX_RANK);
    int64_t dom[IM_MAX_RANK];
    Expr *sym[IM_MAX_RANK], *next[IM_MAX_RANK] = { 0 };
    if (check_nest(L, dom, sym))
        return -1;
    Var *scope[IM_MAX_SYMS * 4];
    int nscope = prim_shape_syms(L->f, scope, IM_MAX_SYMS * 4);
    for (int k = 0; k < b->niters; k++)
        if (sym[k])
            nscope = expr_syms(sym[k], scope, IM_MAX_SYMS * 4, nscope);
    Expr *M = L->ctx->read_map ? L->ctx->read_map(L->ctx, L->m, map, "transform-block-layout map", scope, nscope)
                               : NULL;
    if (!M)
        return -1;
    Loc at = b->iters[0].loc;
    if (M->u.map.nparams != b->niters)
        return err(L, at, "transform-block-layout: the map takes %d indices but block %s has %d iterators",
                   M->u.map.nparams, block, b->niters);
    ImSyms syms = { 0 };
    if (read_symbols(L, M, sym, dom, &syms))
        return -1;
    Expr *bm = syms.n ? im_bind(L->scratch, M, &syms) : M;
    ImError e;
    IndexMap *im = im_from_expr(L->scratch, bm, dom, &e);
    if (!im)
        return err(L, at, "transform-block-layout of block %s: the map is not affine: %s", block, e.msg);
    if (im_classify(im, NULL, NULL) != IM_BIJECTIVE)
        return err(L, at, "transform-block-layout of block %s: the map is not a bijection of the iteration box onto "
                   "its output box", block);
    ImCond *pred;
    int npred;
    IndexMap *inv = im_inverse(L->scratch, im, &pred, &npred, &e);
    if (!inv)
        return err(L, at, "transform-block-layout of block %s: %s", block, e.msg);
    int n = im->nout;
    char kind[IM_MAX_RANK];
    for (int q = 0; q < n; q++)
        if (!(kind[q] = out_kind(b, im->out[q])))
            return err(L, at, "transform-block-layout of block %s: output %d of the map mixes spatial and reduce "
                       "iterators", block, q);
    prim_names(L->f, &L->names);
    Var *y[IM_MAX_RANK], *lv[IM_MAX_RANK];
    BlockIter *it = arena_array(L->a, (size_t)n + 1, sizeof *it);
    char nm[32];
    for (int q = 0; q < n; q++) {
        snprintf(nm, sizeof nm, "ax%d", q);
        lv[q] = var_new(L->a, fresh_name(&L->m->names, &L->names, nm), VAR_TIR, at);
        lv[q]->dtype = DT_INT32;
        snprintf(nm, sizeof nm, "v_ax%d", q);
        y[q] = var_new(L->a, fresh_name(&L->m->names, &L->names, nm), VAR_TIR, at);
        y[q]->dtype = DT_INT32;
    }
    Expr *back[IM_MAX_RANK];
    if (symbolic(L, M, sym, &syms, im, inv, y, next, back))
        return -1;
    for (int q = 0; q < n; q++)
        it[q] = (BlockIter){ y[q], kind[q], next[q] ? next[q] : expr_int(L->a, im->obox[q], DT_VOID, at),
                             tvar(L->a, lv[q]), at };
    Subst S = { 0 };
    for (int p = 0; p < b->niters; p++)
        subst_var(L->a, &S, b->iters[p].var, back[p]);
    Block *nb = arena_alloc(L->a, sizeof *nb);
    *nb = *b;
    nb->iters = it;
    nb->niters = n;
    nb->body = clone_stmt(L->a, &S, b->body);
    nb->init = b->init ? clone_stmt(L->a, &S, b->init) : NULL;
    nb->reads = arena_array(L->a, (size_t)b->nreads + 1, sizeof *nb->reads);
    nb->writes = arena_array(L->a, (size_t)b->nwrites + 1, sizeof *nb->writes);
    for (int k = 0; k < b->nreads + b->nwrites; k++) {
        const Region *r = k < b->nreads ? &b->reads[k] : &b->writes[k - b->nreads];
        Region *o = k < b->nreads ? &nb->reads[k] : &nb->writes[k - b->nreads];
        *o = *r;
        o->idx = arena_array(L->a, (size_t)r->n + 1, sizeof *o->idx);
        for (int d = 0; d < r->n; d++)
            o->idx[d] = clone_expr(L->a, &S, r->idx[d]);
    }
    simplify_block(L, nb, &syms);
    Stmt *s = stmt_new(L->a, S_BLOCK, (*L->slot)->loc);
    s->u.block = nb;
    for (int q = n - 1; q >= 0; q--) {
        s = loop_serial(L->a, lv[q], im->obox[q], s);
        if (next[q])
            s->u.loop.extent = next[q];
    }
    *L->slot = s;
    return 0;
}

int pass_transform_block_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Arena scratch = { 0 };
    BL L = { .m = m, .ctx = ctx, .a = &m->arena, .scratch = &scratch };
    int rc = run(&L, opts, nopts);
    ptrmap_free(&L.names);
    arena_free(&scratch);
    return rc;
}

int pass_transform_block_layout_check(const PassOpt *opts, int nopts, char *errbuf, size_t cap)
{
    static const char *const need[] = { "func", "block", "map" };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        int found = 0;
        for (int k = 0; k < nopts; k++)
            found |= strcmp(opts[k].key, need[i]) == 0;
        if (!found) {
            snprintf(errbuf, cap, "pass 'transform-block-layout' needs the option '%s'", need[i]);
            return -1;
        }
    }
    return 0;
}
