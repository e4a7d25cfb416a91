/* transform-layout (seed 001): rewrites one buffer of a PrimFunc through an
 * index map. The buffer takes the map's image of its shape (rounded up where
 * the map pads) and any axis separators the map marks; every load, store and
 * point region of it goes through the map, simplified over the loops around
 * it (a range region becomes the box around its image, or the whole new
 * extent where the map is not affine enough to tell).
 * A parameter (or the buffer T.match_buffer matches to a handle parameter)
 * changes the signature, so each R.call_tir of the function gets
 * R.layout_transform on that operand, or the inverse (and a crop, where the
 * map pads) on that result, taken out of the call's tuple when the call has
 * several results. Where the map pads, a pad value says what the
 * padding holds: an in-order writer is re-iterated over the new shape and
 * stores T.if_then_else(pad, V, value); an input gets a stated assumption
 * (T.assume, checked when it runs); any other writer is followed by a block
 * that writes V under T.where(pad). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../printer/print.h"
#include "../graph.h"
#include "../pass.h"
#include "physical.h"

typedef struct TL {
    Module *m;
    PassCtx *ctx;
    Arena *a, *scratch;
    Func *f;
    Buffer *B;
    int param;                 /* B's parameter position, or -1 for an allocation */
    Expr *map;                 /* without separators */
    int sep[IM_MAX_RANK], nsep;
    IndexMap *im, *inv;
    IndexMap *binv;            /* the inverse for the way back from the new shape (a result) */
    ImCond *pred;
    int npred;
    int padded;
    int back;                  /* the inverse is one to one on the new shape: a result can be rewritten back */
    Expr *pad;                 /* the pad value: a constant, or NULL */
    Expr *rpad;                /* the same as a Relax literal (pad_value=0.0) */
    Expr *padmap;              /* a pad value of the new indices (lambda), or NULL */
    int padreads;              /* padmap reads B itself (in its new layout): a padding block after the writer */
    int64_t old[IM_MAX_RANK];
    int64_t shift[IM_MAX_RANK];  /* a map of i + c pads c points before the data: c per old axis */
    Expr *sym[IM_MAX_RANK];    /* a symbolic old extent (old[] then holds its value at the stand-ins), or NULL */
    Expr *next[IM_MAX_RANK];   /* a symbolic new extent, or NULL */
    int nsym;                  /* symbols read by the shape or the map */
    ImSyms syms;               /* the shape variables the shape and the map read, at their stand-ins */
    int msym;                  /* the map reads a symbol (lambda i, j: (i * n + j,)) */
    int spad;                  /* the map pads by a symbol: next[] read from its form, inv and pred at the stand-ins */
    Expr *bmap;                /* the map at the stand-ins */
    Expr **oshape;             /* B's shape as written */
    int oldn;
    Scope sc;
    PtrMap names;
    const Expr *found;         /* what called_in_result finds */
} TL;

static const char *opt(const PassOpt *o, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(o[i].key, key) == 0)
            return o[i].val;
    return NULL;
}

static int err(TL *T, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int err(TL *T, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(T->ctx->src, loc, fmt, ap);
    va_end(ap);
    return -1;
}

/* FROM:TO names two layouts: no lambda, one colon. */
static int layout_pair(const char *s)
{
    while (*s == ' ')
        s++;
    const char *colon = strchr(s, ':');
    return strncmp(s, "lambda", 6) != 0 && colon && !strchr(colon + 1, ':');
}

/* ---- reading the options ---- */

static Expr *read_map(TL *T, const char *text)
{
    ImError e = { { 0, 0 }, "" };
    if (!layout_pair(text)) {
        /* the shape variables and the integer scalar parameters (TVM's
         * lambda i: (i // n, i % n) with n: T.int32) */
        Var *scope[IM_MAX_SYMS * 4 + 8];
        int n = prim_shape_syms(T->f, scope, IM_MAX_SYMS * 4);
        for (int i = 0; i < T->f->npparams && n < IM_MAX_SYMS * 4 + 8; i++) {
            Var *v = T->f->pparams[i].buf ? NULL : T->f->pparams[i].var;
            if (v && dtype_is_int(v->dtype))
                scope[n++] = v;
        }
        return T->ctx->read_map ? T->ctx->read_map(T->ctx, T->m, text, "transform-layout map", scope, n) : NULL;
    }
    char from[64], to[64];
    const char *colon = strchr(text, ':');
    if (colon - text >= 60 || strlen(colon + 1) >= 60)
        return err(T, T->B->loc, "transform-layout: layout names longer than 60 characters"), NULL;
    snprintf(from, sizeof from, "%.*s", (int)(colon - text), text);
    snprintf(to, sizeof to, "%s", colon + 1);
    Expr *x = im_layout_map(T->a, &T->m->names, from, to, NULL, &e);
    if (x && im_layout_check(from, T->old, T->oldn, &e))
        x = NULL;
    if (!x)
        err(T, T->B->loc, "transform-layout of %s: %s", T->B->name->str, e.msg);
    return x;
}

static int is_separator(const Expr *e)
{
    return e->kind == E_CALL && strcmp(e->u.call.op->str, "T.axis_separator") == 0 && e->u.call.nargs == 0;
}

/* Takes the T.axis_separator() marks out of the map's outputs. */
static void take_separators(TL *T, Expr *map)
{
    int k = 0;
    for (int q = 0; q < map->u.map.nout; q++) {
        if (is_separator(map->u.map.out[q])) {
            if (T->nsep < IM_MAX_RANK)
                T->sep[T->nsep++] = k;
            continue;
        }
        map->u.map.out[k++] = map->u.map.out[q];
    }
    map->u.map.nout = k;
}

static int read_separators(TL *T, const char *text)
{
    for (const char *s = text; *s;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || (*end && *end != ','))
            return err(T, T->B->loc, "transform-layout: axis-separators is a list of integers, as 1 or \"1,3\""), -1;
        if (T->nsep == IM_MAX_RANK)
            return err(T, T->B->loc, "transform-layout: more than %d axis separators", IM_MAX_RANK), -1;
        T->sep[T->nsep++] = (int)(v > 1000 ? 1000 : v < -1000 ? -1000 : v);
        s = *end ? end + 1 : end;
    }
    return 0;
}

static int check_separators(TL *T)
{
    int rank = T->map->u.map.nout;
    for (int i = 0; i < T->nsep; i++)
        if (T->sep[i] < 1 || T->sep[i] >= rank || (i && T->sep[i] <= T->sep[i - 1])) {
            char list[128];
            int len = 0;
            for (int k = 0; k < T->nsep && len < 100; k++)
                len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", k ? ", " : "", T->sep[k]);
            return err(T, T->B->loc,
                       "transform-layout of %s: axis separators [%s] out of order or range: they must increase and "
                       "lie between 1 and %d",
                       T->B->name->str, list, rank - 1);
        }
    return 0;
}

/* The buffer named name among f's parameters and allocations. */
static Buffer *find_alloc(Stmt *s, Sym *name)
{
    if (!s)
        return NULL;
    Buffer *b = NULL;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n && !b; i++)
            b = find_alloc(s->u.seq.items[i], name);
        return b;
    case S_FOR: return find_alloc(s->u.loop.body, name);
    case S_BLOCK: return find_alloc(s->u.block->body, name);
    case S_IF: return (b = find_alloc(s->u.branch.then, name)) ? b : find_alloc(s->u.branch.orelse, name);
    case S_ALLOC: return s->u.alloc->name == name ? s->u.alloc : NULL;
    default: return NULL;
    }
}

/* A view of B declared in s, or NULL. */
static const Buffer *view_of(const Stmt *s, const Buffer *B)
{
    if (!s)
        return NULL;
    const Buffer *v = NULL;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n && !v; i++)
            v = view_of(s->u.seq.items[i], B);
        return v;
    case S_FOR: return view_of(s->u.loop.body, B);
    case S_BLOCK: return view_of(s->u.block->body, B);
    case S_IF: return (v = view_of(s->u.branch.then, B)) ? v : view_of(s->u.branch.orelse, B);
    case S_ALLOC: return s->u.alloc->kind == BUF_ALIAS && s->u.alloc->base == B ? s->u.alloc : NULL;
    default: return NULL;
    }
}

/* Whether text reads a buffer of f: a name followed by '['. */
static const Buffer *reads_buffer(TL *T, const char *text)
{
    for (const char *s = text; *s; s++) {
        const char *p = s;
        while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
            p++;
        if (p > s && *p == '[') {
            Sym *name = intern(&T->m->names, s, (size_t)(p - s));
            for (int i = 0; i < T->f->npparams; i++)
                if (T->f->pparams[i].buf && T->f->pparams[i].buf->name == name)
                    return T->f->pparams[i].buf;
            const Buffer *b = find_alloc(T->f->body, name);
            if (b)
                return b;
        }
        if (p > s)
            s = p - 1;
    }
    return NULL;
}

static Expr **map_index(TL *T, Expr *const *idx);

/* A pad value that repeats an element of the buffer itself, in its new
 * layout, or in its old one through the map (TVM's pad_value=lambda io, ii: B[io, 0]): lambda PARAMS: B[ARGS]
 * read as the index map lambda PARAMS: (ARGS), and padmap the load of B
 * there. Every padding point must read a point that is no padding. 1 when
 * text is such a lambda, -1 on error, 0 when it is not one. */
static int read_pad_load(TL *T, const char *text)
{
    const char *colon = strncmp(text, "lambda", 6) == 0 ? strchr(text, ':') : NULL;
    if (!colon)
        return 0;
    const char *b = colon + 1;
    while (*b == ' ')
        b++;
    size_t nl = strlen(T->B->name->str), len = strlen(text);
    if (strncmp(b, T->B->name->str, nl) != 0 || b[nl] != '[' || len < 2 || text[len - 1] != ']' ||
        memchr(b + nl + 1, '[', (size_t)(text + len - 1 - (b + nl + 1))))
        return 0;
    char *mt = arena_alloc(T->scratch, len + 4);
    int n = snprintf(mt, len + 4, "%.*s(%.*s)", (int)(b - text), text, (int)(text + len - 1 - (b + nl + 1)), b + nl + 1);
    (void)n;
    Expr *x = T->ctx->read_map ? T->ctx->read_map(T->ctx, T->m, mt, "transform-layout pad-value", NULL, 0) : NULL;
    if (!x)
        return -1;
    int nn = T->map->u.map.nout;
    if (x->u.map.nparams == nn && x->u.map.nout == T->oldn && T->oldn != nn) {
        /* B indexed in its old layout (TVM's lambda i, j: A[(4 * i + j) % 14]): read through the map */
        x->u.map.out = map_index(T, x->u.map.out);
        x->u.map.nout = nn;
    }
    if (x->u.map.nparams != nn || x->u.map.nout != nn)
        return err(T, T->B->loc, "transform-layout of %s: a pad value %s[...] is a lambda of the %d new indices "
                   "that indexes %s with %d", T->B->name->str, T->B->name->str, nn, T->B->name->str, nn);
    /* each padding point reads a point of the data, inside the new shape */
    ImError e;
    IndexMap *f = im_from_expr(T->scratch, x, T->im->obox, &e);
    int64_t vol = 1, y[IM_MAX_RANK], z[IM_MAX_RANK];
    for (int q = 0; q < nn && vol <= INT64_C(1) << 22; q++)
        vol *= T->im->obox[q];
    if (!f)
        return err(T, T->B->loc, "transform-layout of %s: where the pad value reads %s: %s", T->B->name->str,
                   T->B->name->str, e.msg);
    if (vol > INT64_C(1) << 22)
        return err(T, T->B->loc, "transform-layout of %s: the new shape is too large for lopt to check where the pad "
                   "value reads %s", T->B->name->str, T->B->name->str);
    for (int64_t i = 0; i < vol; i++) {
        int64_t r = i;
        for (int q = nn - 1; q >= 0; q--) {
            y[q] = r % T->im->obox[q];
            r /= T->im->obox[q];
        }
        if (!im_pred_eval(T->pred, T->npred, y))
            continue;
        im_apply(f, y, z);
        int bad = im_pred_eval(T->pred, T->npred, z);
        for (int q = 0; q < nn; q++)
            bad |= z[q] < 0 || z[q] >= T->im->obox[q];
        if (bad)
            return err(T, T->B->loc, "transform-layout of %s: the pad value reads %s at padding or outside it "
                       "(from the padding point %lld of the new shape, row-major)", T->B->name->str,
                       T->B->name->str, (long long)i);
    }
    Expr *ld = expr_new(T->a, E_LOAD, T->B->loc);
    ld->u.load.buf = T->B;
    ld->u.load.n = nn;
    ld->u.load.idx = x->u.map.out;
    x->u.map.nout = 1;
    x->u.map.out = arena_array(T->a, 2, sizeof(Expr *));
    x->u.map.out[0] = ld;
    T->padmap = x;
    T->padreads = 1;
    return 1;
}

static int read_pad(TL *T, const char *text)
{
    /* a load of B as pad value is checked over the new shape at the
     * stand-ins, which a map padding by a symbol does not read */
    int pl = T->padded && !T->spad ? read_pad_load(T, text) : 0;
    if (pl)
        return pl < 0 ? -1 : 0;
    const Buffer *r = reads_buffer(T, text);
    if (r == T->B && T->spad)
        return err(T, T->B->loc, "transform-layout of %s: the pad value reads %s, and the map pads by a variable of "
                   "the function; lopt checks such a pad value only over a shape of constant extents",
                   T->B->name->str, r->name->str);
    if (r)
        return err(T, T->B->loc, "transform-layout of %s: the pad value reads buffer %s; it may use only the new indices",
                   T->B->name->str, r->name->str);
    DType dt = T->B->dtype;
    if (strncmp(text, "lambda", 6) == 0) {
        Expr *x = T->ctx->read_map ? T->ctx->read_map(T->ctx, T->m, text, "transform-layout pad-value", NULL, 0) : NULL;
        if (!x)
            return -1;
        if (x->u.map.nparams != T->map->u.map.nout || x->u.map.nout != 1)
            return err(T, T->B->loc,
                       "transform-layout of %s: the pad value is a lambda of the %d new indices giving one value",
                       T->B->name->str, T->map->u.map.nout);
        DType vt = tir_dtype(x->u.map.out[0]);
        if (vt != dt && !(dtype_is_float(dt) && dtype_is_int(vt)))
            return err(T, T->B->loc, "transform-layout of %s: the pad value is %s but %s holds %s", T->B->name->str,
                       dtype_name(vt), T->B->name->str, dtype_name(dt));
        if (vt != dt) {
            Expr *c = expr_new(T->a, E_CAST, x->loc);
            c->u.cast.dtype = dt;
            c->u.cast.a = x->u.map.out[0];
            x->u.map.out[0] = c;
        }
        T->padmap = x;
        return 0;
    }
    const char *num = text;
    size_t len = strlen(text);
    const char *open = strncmp(text, "T.", 2) == 0 ? strchr(text, '(') : NULL;
    if (open && text[len - 1] == ')' && open - text < 24) {
        /* T.int32(0): a typed value, which must be of B's dtype, as TVM requires (a number takes B's dtype) */
        char name[24];
        DType vt;
        snprintf(name, sizeof name, "%.*s", (int)(open - text - 2), text + 2);
        if (dtype_parse(name, &vt) == 0 && vt != dt)
            return err(T, T->B->loc, "transform-layout of %s: the pad value %s is %s but %s holds %s; write the number "
                       "alone to take %s's dtype", T->B->name->str, text, dtype_name(vt), T->B->name->str,
                       dtype_name(dt), T->B->name->str);
        if (dtype_parse(name, &vt) == 0) {
            char *inner = arena_alloc(T->scratch, len);
            snprintf(inner, len, "%.*s", (int)(len - (size_t)(open - text) - 2), open + 1);
            num = inner;
        }
    }
    char *end;
    double v = strtod(num, &end);
    if (end == num || *end)
        return err(T, T->B->loc, "transform-layout of %s: pad-value is a number or a lambda of the new indices, not '%s'",
                   T->B->name->str, text);
    if ((dtype_is_int(dt) || dt == DT_BOOL) && (!(v > -9e18 && v < 9e18) || v != (double)(int64_t)v || strpbrk(num, ".eEn")))
        return err(T, T->B->loc, "transform-layout of %s: the pad value %s is not a value of dtype %s, which %s holds",
                   T->B->name->str, text, dtype_name(dt), T->B->name->str);
    T->pad = dtype_is_float(dt) ? expr_float(T->a, v, dt, T->B->loc) : expr_int(T->a, (int64_t)v, dt, T->B->loc);
    T->rpad = dtype_is_float(dt) ? expr_float(T->a, v, DT_VOID, T->B->loc)
                                 : expr_int(T->a, (int64_t)v, DT_VOID, T->B->loc);
    return 0;
}

/* ---- rewriting the accesses ---- */

static Expr **map_index(TL *T, Expr *const *idx)
{
    const Expr *M = T->map;
    Subst S = { 0 };
    for (int p = 0; p < M->u.map.nparams; p++)
        subst_var(T->a, &S, M->u.map.params[p], idx[p]);
    Expr **out = arena_array(T->a, (size_t)M->u.map.nout + 1, sizeof *out);
    for (int q = 0; q < M->u.map.nout; q++)
        out[q] = scope_simplify(&T->sc, T->a, T->scratch, clone_expr(T->a, &S, M->u.map.out[q]));
    return out;
}

static void rw_expr(TL *T, Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        for (int k = 0; k < e->u.load.n; k++)
            rw_expr(T, e->u.load.idx[k]);
        if (e->u.load.buf == T->B) {
            e->u.load.idx = map_index(T, e->u.load.idx);
            e->u.load.n = T->map->u.map.nout;
        }
        break;
    case E_BIN: rw_expr(T, e->u.bin.a); rw_expr(T, e->u.bin.b); break;
    case E_UNARY: rw_expr(T, e->u.un.a); break;
    case E_CAST: rw_expr(T, e->u.cast.a); break;
    case E_CALL:
        for (int k = 0; k < e->u.call.nargs; k++)
            rw_expr(T, e->u.call.args[k]);
        break;
    default: break;
    }
}

static Expr *bin(TL *T, BinOp op, Expr *x, Expr *y);

/* The bounds [*lo, *hi] (inclusive, as expressions) of map output e when
 * each parameter p ranges over [plo[p], phi[p]]: interval arithmetic over
 * +, -, * by a constant, // and % by a positive constant (a % c keeps its
 * range only where both ends provably lie in one block of c). Exact for an
 * affine output whose parameters appear once. Returns -1 for anything else. */
static int out_bounds(TL *T, const Expr *e, Expr *const *plo, Expr *const *phi, Expr **lo, Expr **hi)
{
    const Expr *M = T->map;
    int64_t k;
    switch (e->kind) {
    case E_INT:
        *lo = *hi = expr_int(T->a, e->u.i.v, DT_VOID, e->loc);
        return 0;
    case E_VAR:
        for (int p = 0; p < M->u.map.nparams; p++)
            if (M->u.map.params[p] == e->u.var) {
                *lo = plo[p];
                *hi = phi[p];
                return 0;
            }
        return -1;
    case E_BIN: {
        Expr *alo, *ahi, *blo, *bhi;
        BinOp op = e->u.bin.op;
        if (out_bounds(T, e->u.bin.a, plo, phi, &alo, &ahi))
            return -1;
        if (op == B_ADD || op == B_SUB) {
            if (out_bounds(T, e->u.bin.b, plo, phi, &blo, &bhi))
                return -1;
            *lo = op == B_ADD ? ix_add(T->a, alo, blo) : bin(T, B_SUB, alo, bhi);
            *hi = op == B_ADD ? ix_add(T->a, ahi, bhi) : bin(T, B_SUB, ahi, blo);
            return 0;
        }
        if (expr_const_int(e->u.bin.b, &k))
            return -1;
        Expr *c = expr_int(T->a, k, DT_VOID, e->loc);
        switch (op) {
        case B_MUL:
            *lo = ix_mul(T->a, k >= 0 ? alo : ahi, c);
            *hi = ix_mul(T->a, k >= 0 ? ahi : alo, c);
            return 0;
        case B_FLOORDIV:
            if (k <= 0)
                return -1;
            *lo = bin(T, B_FLOORDIV, alo, c);
            *hi = bin(T, B_FLOORDIV, ahi, c);
            return 0;
        case B_FLOORMOD: {
            if (k <= 0)
                return -1;
            Expr *ql = scope_simplify(&T->sc, T->a, T->scratch, bin(T, B_FLOORDIV, alo, c));
            Expr *qh = scope_simplify(&T->sc, T->a, T->scratch, bin(T, B_FLOORDIV, ahi, c));
            if (expr_equal(ql, qh)) {
                *lo = bin(T, B_FLOORMOD, alo, c);
                *hi = bin(T, B_FLOORMOD, ahi, c);
            } else {
                *lo = expr_int(T->a, 0, DT_VOID, e->loc);
                *hi = expr_int(T->a, k - 1, DT_VOID, e->loc);
            }
            return 0;
        }
        default: return -1;
        }
    }
    default: return -1;
    }
}

/* A region of B: points go through the map; a range becomes, per output
 * axis, the smallest range that holds the map's image of the region where
 * out_bounds can tell (the image of a box need not be a box, so this is the
 * box around it), and the whole new extent elsewhere. */
static Expr *new_extent(TL *T, int q, Loc loc)
{
    return T->next[q] ? T->next[q] : expr_int(T->a, T->im->obox[q], DT_VOID, loc);
}

static void rw_region(TL *T, Region *r)
{
    if (r->buf != T->B)
        return;
    int slice = 0;
    for (int d = 0; d < r->n; d++)
        slice |= r->idx[d]->kind == E_SLICE;
    if (!slice) {
        r->idx = map_index(T, r->idx);
        r->n = T->map->u.map.nout;
        return;
    }
    Expr *plo[IM_MAX_RANK], *phi[IM_MAX_RANK];
    for (int d = 0; d < r->n && d < IM_MAX_RANK; d++) {
        Expr *x = r->idx[d];
        plo[d] = x->kind == E_SLICE ? x->u.slice.lo : x;
        phi[d] = x->kind == E_SLICE ? ix_add(T->a, x->u.slice.hi, expr_int(T->a, -1, DT_VOID, x->loc)) : x;
    }
    int n = T->map->u.map.nout;
    r->idx = arena_array(T->a, (size_t)n + 1, sizeof *r->idx);
    for (int q = 0; q < n; q++) {
        Expr *lo, *hi;
        Expr *s = expr_new(T->a, E_SLICE, r->loc);
        if (out_bounds(T, T->map->u.map.out[q], plo, phi, &lo, &hi) == 0) {
            lo = scope_simplify(&T->sc, T->a, T->scratch, lo);
            hi = scope_simplify(&T->sc, T->a, T->scratch, hi);
            if (expr_equal(lo, hi)) {
                r->idx[q] = lo;   /* one index */
                continue;
            }
            s->u.slice.lo = lo;
            s->u.slice.hi = scope_simplify(&T->sc, T->a, T->scratch, ix_add(T->a, hi, expr_int(T->a, 1, DT_VOID, r->loc)));
        } else {
            s->u.slice.lo = expr_int(T->a, 0, DT_VOID, r->loc);
            s->u.slice.hi = new_extent(T, q, r->loc);
        }
        r->idx[q] = s;
    }
    r->n = n;
}

static void rw_stmt(TL *T, Stmt *s)
{
    if (!s)
        return;
    int mark = T->sc.n;
    switch (s->kind) {
    case S_SEQ:
        for (int k = 0; k < s->u.seq.n; k++)
            rw_stmt(T, s->u.seq.items[k]);
        break;
    case S_FOR:
        scope_push(&T->sc, s->u.loop.var, s->u.loop.extent, s->u.loop.min);
        rw_stmt(T, s->u.loop.body);
        break;
    case S_BLOCK: {
        Block *b = s->u.block;
        for (int k = 0; k < b->niters; k++)
            scope_push(&T->sc, b->iters[k].var, b->iters[k].dom, NULL);
        for (int k = 0; k < b->nreads; k++)
            rw_region(T, &b->reads[k]);
        for (int k = 0; k < b->nwrites; k++)
            rw_region(T, &b->writes[k]);
        rw_expr(T, b->where);
        rw_stmt(T, b->init);
        rw_stmt(T, b->body);
        break;
    }
    case S_STORE:
        for (int k = 0; k < s->u.store.n; k++)
            rw_expr(T, s->u.store.idx[k]);
        rw_expr(T, s->u.store.value);
        if (s->u.store.buf == T->B) {
            s->u.store.idx = map_index(T, s->u.store.idx);
            s->u.store.n = T->map->u.map.nout;
        }
        break;
    case S_IF:
        rw_expr(T, s->u.branch.cond);
        rw_stmt(T, s->u.branch.then);
        rw_stmt(T, s->u.branch.orelse);
        break;
    case S_EVAL: rw_expr(T, s->u.eval); break;
    case S_LET: rw_expr(T, s->u.let.value); break;
    case S_ALLOC: break;
    case S_LOWERED: break;
    }
    T->sc.n = mark;
}

/* ---- padding ---- */

static Expr *tvar(TL *T, Var *v)
{
    Expr *e = expr_new(T->a, E_VAR, v->loc);
    e->u.var = v;
    return e;
}

static Var *fresh_tvar(TL *T, const char *base)
{
    Loc none = { 0, 0 };
    Var *v = var_new(T->a, fresh_name(&T->m->names, &T->names, base), VAR_TIR, none);
    v->dtype = DT_INT32;
    return v;
}

static Expr *bin(TL *T, BinOp op, Expr *x, Expr *y)
{
    Expr *e = expr_new(T->a, E_BIN, x->loc);
    e->u.bin.op = op;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

/* A sum of the normal form over y, its constants read back as products of
 * the symbols where the map reads any (65521 -> n). */
static Expr *sum_expr(TL *T, const ImSum *s, Var *const *y)
{
    Expr *x = im_sum_to_expr(T->a, s, y), *u = T->nsym ? im_unbind(T->a, x, &T->syms) : NULL;
    return u ? u : x;
}

/* The padding predicate over the new indices y: true exactly on padding. */
static Expr *pad_pred(TL *T, Var *const *y)
{
    Expr *e = NULL;
    for (int i = 0; i < T->npred; i++) {
        Expr *c = bin(T, T->pred[i].op, sum_expr(T, T->pred[i].lhs, y), sum_expr(T, T->pred[i].rhs, y));
        e = e ? bin(T, B_OR, e, c) : c;
    }
    return e;
}

static Expr *pad_value(TL *T, Var *const *y)
{
    if (!T->padmap)
        return T->pad;
    Subst S = { 0 };
    for (int q = 0; q < T->padmap->u.map.nparams; q++)
        subst_var(T->a, &S, T->padmap->u.map.params[q], tvar(T, y[q]));
    return clone_expr(T->a, &S, T->padmap->u.map.out[0]);
}

static Expr *select(TL *T, Expr *cond, Expr *then, Expr *orelse)
{
    Expr *e = expr_new(T->a, E_CALL, then->loc);
    e->u.call.op = intern_cstr(&T->m->names, "T.if_then_else");
    e->u.call.nargs = 3;
    e->u.call.args = arena_array(T->a, 4, sizeof(Expr *));
    e->u.call.args[0] = cond;
    e->u.call.args[1] = then;
    e->u.call.args[2] = orelse;
    return e;
}

/* Loops ax0.. over the new shape around a block named name whose spatial
 * iterators v_ax0.. (returned in y) follow them. */
static Stmt *nest_new(TL *T, const char *name, Var **y, Block **out)
{
    int n = T->map->u.map.nout;
    Var *lv[IM_MAX_RANK];
    Block *b = arena_zalloc(T->a, sizeof *b);
    b->name = fresh_name(&T->m->names, &T->names, name);
    b->niters = n;
    b->iters = arena_array(T->a, (size_t)n + 1, sizeof *b->iters);
    char nm[32];
    for (int q = 0; q < n; q++) {
        snprintf(nm, sizeof nm, "ax%d", q);
        lv[q] = fresh_tvar(T, nm);
        snprintf(nm, sizeof nm, "v_ax%d", q);
        y[q] = fresh_tvar(T, nm);
        b->iters[q] = (BlockIter){ y[q], 'S', new_extent(T, q, T->B->loc), tvar(T, lv[q]), T->B->loc };
    }
    b->has_reads = b->has_writes = 1;
    Stmt *s = stmt_new(T->a, S_BLOCK, T->B->loc);
    s->u.block = b;
    for (int q = n - 1; q >= 0; q--) {
        s = loop_serial(T->a, lv[q], T->im->obox[q], s);
        s->u.loop.extent = new_extent(T, q, T->B->loc);
    }
    *out = b;
    return s;
}

static Region *point_region(TL *T, Var *const *y)
{
    Region *r = arena_zalloc(T->a, sizeof *r);
    r->buf = T->B;
    r->n = T->map->u.map.nout;
    r->idx = arena_array(T->a, (size_t)r->n + 1, sizeof *r->idx);
    for (int q = 0; q < r->n; q++)
        r->idx[q] = tvar(T, y[q]);
    r->loc = T->B->loc;
    return r;
}

/* A block writing the pad value where the predicate holds. */
static Stmt *pad_block(TL *T)
{
    Var *y[IM_MAX_RANK];
    Block *b;
    char nm[160];
    snprintf(nm, sizeof nm, "%.120s_pad", T->B->name->str);
    Stmt *s = nest_new(T, nm, y, &b);
    b->where = pad_pred(T, y);
    b->writes = point_region(T, y);
    b->nwrites = 1;
    Stmt *st = stmt_new(T->a, S_STORE, T->B->loc);
    st->u.store.buf = T->B;
    st->u.store.idx = b->writes->idx;
    st->u.store.n = b->writes->n;
    st->u.store.value = pad_value(T, y);
    b->body = st;
    if (T->padreads) {
        Region *r = arena_zalloc(T->a, sizeof *r);
        r->buf = T->B;
        r->n = st->u.store.value->u.load.n;
        r->idx = st->u.store.value->u.load.idx;
        r->loc = T->B->loc;
        b->reads = r;
        b->nreads = 1;
    }
    return s;
}

/* A block stating that the padding of input B holds the pad value. */
static Stmt *assume_block(TL *T)
{
    Var *y[IM_MAX_RANK];
    Block *b;
    char nm[160];
    snprintf(nm, sizeof nm, "%.120s_assume", T->B->name->str);
    Stmt *s = nest_new(T, nm, y, &b);
    b->where = pad_pred(T, y);
    b->reads = point_region(T, y);
    b->nreads = 1;
    Expr *ld = expr_new(T->a, E_LOAD, T->B->loc);
    ld->u.load.buf = T->B;
    ld->u.load.idx = b->reads->idx;
    ld->u.load.n = b->reads->n;
    Expr *eq = bin(T, B_EQ, ld, pad_value(T, y));
    Expr *call = expr_new(T->a, E_CALL, T->B->loc);
    call->u.call.op = intern_cstr(&T->m->names, "T.assume");
    call->u.call.nargs = 1;
    call->u.call.args = arena_array(T->a, 2, sizeof(Expr *));
    call->u.call.args[0] = eq;
    Stmt *ev = stmt_new(T->a, S_EVAL, T->B->loc);
    ev->u.eval = call;
    b->body = ev;
    return s;
}

static int stores_to(const Stmt *s, const Buffer *B)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            if (stores_to(s->u.seq.items[i], B))
                return 1;
        return 0;
    case S_FOR: return stores_to(s->u.loop.body, B);
    case S_BLOCK: return stores_to(s->u.block->init, B) || stores_to(s->u.block->body, B);
    case S_IF: return stores_to(s->u.branch.then, B) || stores_to(s->u.branch.orelse, B);
    case S_STORE: return s->u.store.buf == B;
    default: return 0;
    }
}

/* The block of a nest of loops that each bind one of its spatial iterators
 * in order, over B's old shape, and whose body (and init) store B at exactly
 * those iterators: a writer in order, which can run over the new shape. */
static Block *in_order_writer(TL *T, Stmt *s)
{
    int loops = 0;
    while (s && s->kind == S_FOR) {
        s = stmt_single(s->u.loop.body);
        loops++;
    }
    if (!s || s->kind != S_BLOCK)
        return NULL;
    Block *b = s->u.block;
    /* the loops go: each must feed one iterator, and nothing else */
    if (loops != b->niters)
        return NULL;
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].binding->kind != E_VAR || !b->iters[k].binding->u.var->loop)
            return NULL;
    Stmt *st = stmt_single(b->body), *in = b->init ? stmt_single(b->init) : NULL;
    if (!st || st->kind != S_STORE || st->u.store.buf != T->B || b->where || (in && (in->kind != S_STORE || in->u.store.buf != T->B)))
        return NULL;
    int ns = 0;
    for (int k = 0; k < b->niters; k++) {
        int64_t d = 0;
        if (b->iters[k].kind == 'O' || (expr_const_int(b->iters[k].dom, &d) && !(ns < T->oldn && T->sym[ns])))
            return NULL;
        if (b->iters[k].kind != 'S')
            continue;
        if (ns >= T->oldn || (T->sym[ns] ? !expr_equal(b->iters[k].dom, T->sym[ns]) : d != T->old[ns]) ||
            st->u.store.idx[ns]->kind != E_VAR ||
            st->u.store.idx[ns]->u.var != b->iters[k].var)
            return NULL;
        if (in && !expr_equal(in->u.store.idx[ns], st->u.store.idx[ns]))
            return NULL;
        ns++;
    }
    return ns == T->oldn ? b : NULL;
}

/* Re-iterates writer b over the new shape: spatial iterators y over it (the
 * old ones become the inverse map of y), reductions kept; the stores write
 * B[y] with the pad value where y is padding. Runs before the accesses are
 * rewritten, so B's stores still hold the old iterators. */
static Stmt *reiterate(TL *T, Block *b)
{
    int m = T->map->u.map.nout, nred = 0;
    for (int k = 0; k < b->niters; k++)
        nred += b->iters[k].kind == 'R';
    Var *y[IM_MAX_RANK];
    Block *nb;
    Stmt *s = nest_new(T, b->name->str, y, &nb);
    Block *shell = nb;
    nb = arena_alloc(T->a, sizeof *nb);
    *nb = *b;
    nb->niters = m + nred;
    nb->iters = arena_array(T->a, (size_t)(m + nred) + 1, sizeof *nb->iters);
    memcpy(nb->iters, shell->iters, (size_t)m * sizeof *nb->iters);
    /* the reduction loops go inside the new spatial ones */
    Stmt *inner = s;
    while (inner->kind == S_FOR && inner->u.loop.body->kind == S_FOR)
        inner = inner->u.loop.body;
    int q = m;
    Subst S = { 0 };
    int sp = 0;
    for (int k = 0; k < b->niters; k++) {
        if (b->iters[k].kind == 'S') {
            subst_var(T->a, &S, b->iters[k].var, sum_expr(T, T->inv->out[sp++], y));
            continue;
        }
        char nm[32];
        snprintf(nm, sizeof nm, "ax%d", q);
        Var *lv = fresh_tvar(T, nm);
        int64_t d = 0;
        expr_const_int(b->iters[k].dom, &d);
        nb->iters[q] = b->iters[k];
        nb->iters[q].binding = tvar(T, lv);
        Stmt *blk = inner->u.loop.body;
        inner->u.loop.body = loop_serial(T->a, lv, d, blk);
        inner = inner->u.loop.body;
        q++;
    }
    Stmt *body = clone_stmt(T->a, &S, b->body), *init = b->init ? clone_stmt(T->a, &S, b->init) : NULL;
    Expr *pred = pad_pred(T, y);
    Stmt *stores[2] = { stmt_single(body), init ? stmt_single(init) : NULL };
    for (int i = 0; i < 2; i++) {
        Stmt *st = stores[i];
        if (!st)
            continue;
        st->u.store.value = select(T, pred, pad_value(T, y), st->u.store.value);
    }
    nb->body = body;
    nb->init = init;
    nb->reads = arena_array(T->a, (size_t)b->nreads + 1, sizeof *nb->reads);
    nb->writes = arena_array(T->a, (size_t)b->nwrites + 1, sizeof *nb->writes);
    for (int k = 0; k < b->nreads + b->nwrites; k++) {
        const Region *r = k < b->nreads ? &b->reads[k] : &b->writes[k - b->nreads];
        Region *o = k < b->nreads ? &nb->reads[k] : &nb->writes[k - b->nreads];
        *o = *r;
        o->idx = arena_array(T->a, (size_t)r->n + 1, sizeof *o->idx);
        for (int d = 0; d < r->n; d++)
            o->idx[d] = clone_expr(T->a, &S, r->idx[d]);
    }
    Stmt *blk = stmt_new(T->a, S_BLOCK, T->B->loc);
    blk->u.block = nb;
    inner->u.loop.body = blk;
    return s;
}

/* After the accesses are rewritten: B's stores in the re-iterated block are
 * M(inverse(y)); write them as y. */
static void store_at(TL *T, Stmt *st, Var *const *y)
{
    st = stmt_single(st);
    if (!st || st->kind != S_STORE || st->u.store.buf != T->B)
        return;
    for (int q = 0; q < st->u.store.n; q++)
        st->u.store.idx[q] = tvar(T, y[q]);
}

typedef struct Padding {
    Block *writer;         /* the re-iterated writer, or NULL */
    Var *y[IM_MAX_RANK];
    Stmt *extra;           /* a padding or assumption block, placed after the accesses change */
    int at;                /* its place among the body's statements */
} Padding;

/* Puts P->extra at its place in the body. */
static void pad_place(TL *T, const Padding *P)
{
    Stmt *body = T->f->body;
    int n = body->kind == S_SEQ ? body->u.seq.n : 1;
    Stmt **items = body->kind == S_SEQ ? body->u.seq.items : &T->f->body;
    Stmt *seq = stmt_new(T->a, S_SEQ, body->loc);
    seq->u.seq.items = arena_array(T->a, (size_t)n + 2, sizeof(Stmt *));
    memcpy(seq->u.seq.items, items, (size_t)P->at * sizeof(Stmt *));
    seq->u.seq.items[P->at] = P->extra;
    memcpy(seq->u.seq.items + P->at + 1, items + P->at, (size_t)(n - P->at) * sizeof(Stmt *));
    seq->u.seq.n = n + 1;
    T->f->body = seq;
}

/* Plans the padding before the accesses change: returns -1 on error. */
static int pad_plan(TL *T, Padding *P)
{
    memset(P, 0, sizeof *P);
    Stmt *body = T->f->body;
    int n = body->kind == S_SEQ ? body->u.seq.n : 1;
    Stmt **items = body->kind == S_SEQ ? body->u.seq.items : &T->f->body;
    int last = -1, count = 0;
    for (int i = 0; i < n; i++)
        if (stores_to(items[i], T->B)) {
            last = i;
            count++;
        }
    if (count == 0) {
        if (T->param < 0)
            return err(T, T->B->loc, "transform-layout of %s: nothing writes the buffer", T->B->name->str);
        /* an input: its padding is stated, and checked when it runs (after
         * the match that declares a matched buffer) */
        P->extra = assume_block(T);
        P->at = 0;
        if (T->B->kind == BUF_MATCH) {
            while (P->at < n && !(items[P->at]->kind == S_ALLOC && items[P->at]->u.alloc == T->B))
                P->at++;
            if (P->at++ == n)
                return err(T, T->B->loc, "transform-layout of %s: its T.match_buffer is not a statement of the body "
                           "itself, where the assumption on its padding goes", T->B->name->str);
        }
        return 0;
    }
    Block *w = count == 1 && !T->padreads ? in_order_writer(T, stmt_single(items[last])) : NULL;
    if (w) {
        Stmt *s = reiterate(T, w);
        Stmt *in = s;
        while (in->kind == S_FOR)
            in = in->u.loop.body;
        P->writer = in->u.block;
        for (int q = 0; q < T->map->u.map.nout; q++)
            P->y[q] = P->writer->iters[q].var;
        items[last] = s;
        return 0;
    }
    P->extra = pad_block(T);
    P->at = last + 1;
    return 0;
}

/* ---- call sites ---- */

/* The type the call gives parameter i of T->f: an operand's, or a result's
 * in out_sinfo; NULL when it does not say. */
static const StructInfo *param_sinfo(const Expr *call, int i)
{
    const Expr *args = call->u.call.args[1], *os = call_kwarg(call, "out_sinfo");
    int nin = args->u.list.n;
    if (i < nin)
        return args->u.list.items[i]->kind == E_VAR ? args->u.list.items[i]->u.var->sinfo : NULL;
    i -= nin;
    if (os && (os->kind == E_LIST || os->kind == E_TUPLE))
        return i < os->u.list.n && os->u.list.items[i]->kind == E_SINFO ? os->u.list.items[i]->u.sinfo : NULL;
    if (!os || os->kind != E_SINFO)
        return NULL;
    if (os->u.sinfo->kind == SI_TUPLE)
        return i < os->u.sinfo->nfields ? os->u.sinfo->fields[i] : NULL;
    return i == 0 ? os->u.sinfo : NULL;
}

/* Binds the symbols a buffer's extents name alone to the call's extents. */
static void bind_from(TL *T, ImSyms *b, unsigned *known, const Buffer *buf, Expr **shape, const StructInfo *si)
{
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK];
    if (!si || si->ndim != buf->ndim || si->ndim > IM_MAX_RANK || sinfo_shape(si, &dt, &nd, sh))
        return;
    for (int d = 0; d < buf->ndim; d++)
        for (int k = 0; k < b->n; k++)
            if (shape[d]->kind == E_VAR && shape[d]->u.var == b->var[k] && !(*known & 1u << k)) {
                b->val[k] = sh[d];
                *known |= 1u << k;
            }
}

/* The map at a call site: where it reads a shape variable, that variable
 * bound to the extent the call gives it (B's own tensor first, then the
 * other operands and results of the call). NULL after an error when the
 * call does not give it a value. */
static Expr *site_map(TL *T, const Expr *call, const StructInfo *old, Loc loc)
{
    if (!T->msym)
        return T->map;
    ImSyms b = T->syms;
    unsigned known = 0;
    bind_from(T, &b, &known, T->B, T->oshape, old);
    for (int i = 0; i < T->f->npparams; i++) {
        Buffer *p = prim_param_buffer(T->f, i);
        if (p && i != T->param)
            bind_from(T, &b, &known, p, p->shape, param_sinfo(call, i));
    }
    for (int k = 0; k < b.n; k++)
        if (!(known & 1u << k))
            return err(T, loc, "transform-layout of %s: the map at this call of %s needs a value of %s (which the map "
                       "or the shapes read), and no tensor of known shape here gives one", T->B->name->str,
                       T->f->name->str, b.var[k]->name->str), NULL;
    Expr *M = im_bind(T->a, T->map, &b);
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK], ext;
    ImError e;
    IndexMap *im;
    if (!T->spad)
        return M;
    /* R.layout_transform pads to the box that holds the image, which falls
     * short of the new shape where the symbol exceeds the data (n > 16) */
    if (!old || old->ndim != T->oldn || sinfo_shape(old, &dt, &nd, sh) || !(im = im_from_expr(T->scratch, M, sh, &e)))
        return err(T, loc, "transform-layout of %s: the map pads by a variable of the function, and this call does "
                   "not give %s a static shape to pad", T->B->name->str, T->B->name->str), NULL;
    for (int q = 0; q < im->nout; q++) {
        char x[100];
        if (im_sym_eval(new_extent(T, q, loc), &b, &ext) || ext != im->obox[q])
            return err(T, loc, "transform-layout of %s: at this call the new extent %s of axis %d is %lld, but the map "
                       "sends the operand into %lld there; lopt pads a call's operand only where they agree",
                       T->B->name->str, expr_text(new_extent(T, q, loc), x, sizeof x), q, (long long)ext,
                       (long long)im->obox[q]), NULL;
    }
    return M;
}

/* The type of a call site's operand or result of type old in the new
 * layout, M the map there: over old's own shape where it is static (a
 * symbolic buffer called on a tensor of known shape), else the new shape
 * with B's shape variables replaced by old's extents. */
static StructInfo *new_sinfo(TL *T, const Expr *M, const StructInfo *old, Loc loc)
{
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK];
    if (!T->nsym)
        return tensor_sinfo_new(T->a, T->B->dtype, T->map->u.map.nout, T->im->obox, loc);
    ImError e;
    IndexMap *im = old && old->ndim == T->oldn && old->ndim <= IM_MAX_RANK && sinfo_shape(old, &dt, &nd, sh) == 0
                       ? im_from_expr(T->scratch, M, sh, &e) : NULL;
    if (im)
        return tensor_sinfo_new(T->a, T->B->dtype, im->nout, im->obox, loc);
    StructInfo *si = tensor_sinfo_new(T->a, T->B->dtype, T->map->u.map.nout, T->im->obox, loc);
    Subst S = { 0 };
    for (int d = 0; old && old->shape && d < old->ndim && d < T->oldn; d++)
        if (T->oshape[d]->kind == E_VAR)
            subst_var(T->a, &S, T->oshape[d]->u.var, old->shape[d]);
    for (int q = 0; q < T->map->u.map.nout; q++)
        if (T->next[q])
            si->shape[q] = clone_expr(T->a, &S, T->next[q]);
    return si;
}

/* The rewrite back from the new layout of a result: the inverse map, then
 * a crop to the old shape where the map pads. */
static Expr *back_value(TL *T, const Expr *M, const StructInfo *old, Expr *x, StructInfo **mid, Loc loc)
{
    DType dt;
    int nd;
    int64_t sh[IM_MAX_RANK];
    ImError er;
    *mid = NULL;
    if (T->msym) {
        /* the map at this call, one to one onto its new shape (new_symbolic) */
        IndexMap *im = sinfo_shape(old, &dt, &nd, sh) == 0 ? im_from_expr(T->scratch, M, sh, &er) : NULL;
        ImCond *pred;
        int npred;
        IndexMap *inv = im ? im_inverse(T->scratch, im, &pred, &npred, &er) : NULL;
        if (!inv)
            return err(T, loc, "transform-layout of %s: the map at this call has no inverse: %s", T->B->name->str,
                       im ? er.msg : "the call's result has no static shape"), NULL;
        return layout_transform_new(T->m, x, im_to_expr(T->a, &T->m->names, inv), NULL, loc);
    }
    Expr *inv = im_to_expr(T->a, &T->m->names, T->binv);
    Expr *e = layout_transform_new(T->m, x, inv, NULL, loc);
    /* the inverse's image of the new shape: larger than the old shape where
     * the map pads (the padding lands past its end) */
    IndexMap *img = im_from_expr(T->scratch, inv, T->im->obox, &er);
    int crop = 0;
    for (int d = 0; img && d < T->oldn; d++)
        crop |= img->obox[d] != T->old[d] || T->shift[d];
    if (!crop)
        return e;
    *mid = tensor_sinfo_new(T->a, T->B->dtype, T->oldn, img->obox, loc);
    return e;
}

static Expr *crop_value(TL *T, Expr *x, Loc loc)
{
    static const char *const keys[] = { "start_indices", "slice_sizes" };
    Expr *vals[2] = { int_list(T->a, T->shift, T->oldn, loc), int_list(T->a, T->old, T->oldn, loc) };
    return call_new(T->m, "R.crop", x, keys, vals, 2, loc);
}

/* Rewrites the call sites of T->f in block rb; returns -1 on error. */
static int fix_block(TL *T, RBlock *rb, PtrMap *names)
{
    /* a call becomes at most four bindings and one per result */
    int cap = rb->nbinds * 4 + 1, n = 0;
    for (int i = 0; i < rb->nbinds; i++) {
        const Expr *v = rb->binds[i]->value, *os = v->kind == E_CALL ? call_kwarg(v, "out_sinfo") : NULL;
        cap += os && (os->kind == E_LIST || os->kind == E_TUPLE) ? os->u.list.n : 1;
    }
    Binding **out = arena_array(T->a, (size_t)cap, sizeof *out);
    for (int i = 0; i < rb->nbinds; i++) {
        Binding *bd = rb->binds[i];
        Expr *call = bd->value;
        if (call->kind != E_CALL || !is_call_to(call, "R.call_tir") || call->u.call.nargs < 2 ||
            call->u.call.args[0]->kind != E_GLOBAL || call->u.call.args[0]->u.global.fn != T->f) {
            out[n++] = bd;
            continue;
        }
        if (call_kwarg(call, "tir_vars") || call->u.call.args[1]->kind != E_TUPLE)
            return err(T, call->loc, "transform-layout: this call of %s passes tir_vars or no tuple of operands",
                       T->f->name->str);
        int nin = call->u.call.args[1]->u.list.n;
        Expr *c = call_with_attrs(T->m, call, NULL, NULL, 0);
        char base[160];
        if (T->param < nin) {
            Expr *tup = expr_new(T->a, E_TUPLE, call->u.call.args[1]->loc);
            tup->u.list.n = nin;
            tup->u.list.items = arena_array(T->a, (size_t)nin + 1, sizeof(Expr *));
            memcpy(tup->u.list.items, call->u.call.args[1]->u.list.items, (size_t)nin * sizeof(Expr *));
            if (T->padmap && T->padded)
                return err(T, call->loc, "transform-layout of %s: R.layout_transform takes a constant pad value, "
                           "not a lambda of the indices", T->B->name->str);
            Expr *x = tup->u.list.items[T->param];
            const StructInfo *xs = x->kind == E_VAR ? x->u.var->sinfo : NULL;
            Expr *M = site_map(T, call, xs, call->loc);
            if (!M)
                return -1;
            snprintf(base, sizeof base, "%.120s_%s", x->kind == E_VAR ? x->u.var->name->str : "arg",
                     T->B->name->str);
            Binding *lt = binding_fresh(T->m, names, base, rb->dataflow, new_sinfo(T, M, xs, call->loc),
                                        layout_transform_new(T->m, x, M, T->padded ? T->rpad : NULL,
                                                             call->loc),
                                        call->loc);
            out[n++] = lt;
            tup->u.list.items[T->param] = var_ref(T->a, lt->var, call->loc);
            c->u.call.args[1] = tup;
            bd->value = c;
            out[n++] = bd;
            continue;
        }
        Expr *os = call_kwarg(call, "out_sinfo");
        /* the results: a list of tensors, R.Tuple(...), or one tensor */
        int r = T->param - nin, list = os && (os->kind == E_LIST || os->kind == E_TUPLE);
        int situp = os && os->kind == E_SINFO && os->u.sinfo->kind == SI_TUPLE && os->u.sinfo->nfields >= 0;
        int tuple = list || situp, nres = list ? os->u.list.n : situp ? os->u.sinfo->nfields : 1;
        StructInfo **res = arena_array(T->a, (size_t)nres + 1, sizeof *res);
        for (int j = 0; os && j < nres; j++)
            res[j] = list ? (os->u.list.items[j]->kind == E_SINFO ? os->u.list.items[j]->u.sinfo : NULL)
                          : situp ? os->u.sinfo->fields[j] : os->u.sinfo;
        if (!os || (!list && os->kind != E_SINFO) || r >= nres || !res[r] || res[r]->kind != SI_TENSOR)
            return err(T, call->loc, "transform-layout: this call of %s does not declare its result %s (%d of %d) "
                       "as a tensor in out_sinfo", T->f->name->str, T->B->name->str, r, nres);
        if (!T->back)
            return err(T, call->loc, "transform-layout of %s: the inverse of the map is not one to one on the new "
                       "shape, so this call's result cannot be rewritten back", T->B->name->str);
        Expr *ns = expr_new(T->a, E_SINFO, os->loc);
        if (T->nsym && (T->padded || T->shift[0]))
            return err(T, call->loc, "transform-layout of %s: a result with a symbolic shape comes back only "
                       "through a map that does not pad", T->B->name->str);
        Expr *M = site_map(T, call, res[r], call->loc);
        if (!M)
            return -1;
        ns->u.sinfo = new_sinfo(T, M, res[r], os->loc);
        StructInfo *callsi = ns->u.sinfo;
        if (tuple) {
            /* the same results with result r in its new layout, spelled as given */
            StructInfo **fields = arena_array(T->a, (size_t)nres + 1, sizeof *fields);
            memcpy(fields, res, (size_t)nres * sizeof *fields);
            fields[r] = ns->u.sinfo;
            callsi = tuple_sinfo_new(T->a, fields, nres, os->loc);
            if (list) {
                Expr *l = expr_new(T->a, os->kind, os->loc);
                l->u.list.n = nres;
                l->u.list.items = arena_array(T->a, (size_t)nres + 1, sizeof(Expr *));
                memcpy(l->u.list.items, os->u.list.items, (size_t)nres * sizeof(Expr *));
                l->u.list.items[r] = ns;
                ns = l;
            } else {
                ns->u.sinfo = callsi;
            }
        }
        static const char *const key[] = { "out_sinfo" };
        c = call_with_attrs(T->m, call, key, &ns, 1);
        snprintf(base, sizeof base, "%.120s_%s", bd->var->name->str, T->B->name->str);
        Binding *nb = binding_fresh(T->m, names, base, rb->dataflow, callsi, c, call->loc);
        out[n++] = nb;
        Expr *from = var_ref(T->a, nb->var, call->loc);
        if (tuple) {
            /* result r alone, taken out of the tuple: b_B_r = b_B[r] */
            Expr *g = expr_new(T->a, E_GETITEM, call->loc);
            g->u.get.tuple = from;
            g->u.get.index = r;
            snprintf(base, sizeof base, "%.120s_%s_%d", bd->var->name->str, T->B->name->str, r);
            Binding *item = binding_fresh(T->m, names, base, rb->dataflow, new_sinfo(T, M, res[r], call->loc), g,
                                          call->loc);
            out[n++] = item;
            from = var_ref(T->a, item->var, call->loc);
        }
        StructInfo *mid;
        Expr *back = back_value(T, M, res[r], from, &mid, call->loc);
        if (!back)
            return -1;
        if (mid) {
            snprintf(base, sizeof base, "%.120s_full", bd->var->name->str);
            Binding *full = binding_fresh(T->m, names, base, rb->dataflow, mid, back, call->loc);
            out[n++] = full;
            back = crop_value(T, var_ref(T->a, full->var, call->loc), call->loc);
        }
        if (tuple) {
            /* the old tuple again: the other results as they come, result r
             * rewritten back, each bound to a variable (tuple fields are leaves) */
            Expr *t = expr_new(T->a, E_TUPLE, call->loc);
            t->u.list.n = nres;
            t->u.list.items = arena_array(T->a, (size_t)nres + 1, sizeof(Expr *));
            for (int j = 0; j < nres; j++) {
                Expr *v = back;
                StructInfo *fsi = res[j];
                if (j != r) {
                    v = expr_new(T->a, E_GETITEM, call->loc);
                    v->u.get.tuple = var_ref(T->a, nb->var, call->loc);
                    v->u.get.index = j;
                }
                snprintf(base, sizeof base, "%.120s_%d", bd->var->name->str, j);
                Binding *fb = binding_fresh(T->m, names, base, rb->dataflow, fsi, v, call->loc);
                out[n++] = fb;
                t->u.list.items[j] = var_ref(T->a, fb->var, call->loc);
            }
            back = t;
        }
        bd->value = back;
        out[n++] = bd;
    }
    rb->binds = out;
    rb->nbinds = n;
    return 0;
}

static int fix_calls(TL *T)
{
    for (int i = 0; i < T->m->nfuncs; i++) {
        Func *g = T->m->funcs[i];
        if (g->kind != F_RELAX)
            continue;
        PtrMap names = { 0 };
        collect_names(g, &names);
        for (int b = 0; b < g->nblocks; b++)
            if (fix_block(T, g->blocks[b], &names)) {
                ptrmap_free(&names);
                return -1;
            }
        ptrmap_free(&names);
    }
    return 0;
}

/* Direct calls, calls with tir_vars and references from control flow stay
 * outside what fix_calls rewrites. */
static int called_plainly(TL *T)
{
    PtrMap fixed = { 0 };
    mark_fixed_signatures(T->m, &fixed);
    int ok = !ptrmap_get(&fixed, T->f, 0);
    ptrmap_free(&fixed);
    return ok;
}

/* A call of T->f in a dataflow or plain block of a Relax function that
 * passes tir_vars, or NULL. */
static const Expr *tir_vars_call(TL *T)
{
    for (int i = 0; i < T->m->nfuncs; i++) {
        const Func *g = T->m->funcs[i];
        if (g->kind != F_RELAX)
            continue;
        for (int b = 0; b < g->nblocks; b++)
            for (int k = 0; k < g->blocks[b]->nbinds; k++) {
                const Expr *c = g->blocks[b]->binds[k]->value;
                if (c->kind == E_CALL && is_call_to(c, "R.call_tir") && c->u.call.nargs >= 1 &&
                    c->u.call.args[0]->kind == E_GLOBAL && c->u.call.args[0]->u.global.fn == T->f &&
                    call_kwarg(c, "tir_vars"))
                    return c;
            }
    }
    return NULL;
}

static int refers_to(const Expr *e, void *data)
{
    if (e->kind == E_GLOBAL && e->u.global.fn == ((TL *)data)->f)
        ((TL *)data)->found = e;
    return 0;
}

/* A reference to T->f in the result of a Relax function (a call there is
 * not a binding fix_calls could rewrite), or NULL. */
static const Expr *called_in_result(TL *T, const Func **where)
{
    T->found = NULL;
    for (int i = 0; i < T->m->nfuncs && !T->found; i++) {
        const Func *g = T->m->funcs[i];
        if (g->kind == F_RELAX && g->result) {
            relax_walk(g->result, refers_to, T);
            *where = g;
        }
    }
    return T->found;
}

/* ---- the pass ---- */

/* Adds the variables e reads to T->syms and gives them their stand-ins. */
static int add_syms(TL *T, const Expr *e, Loc loc)
{
    Var *v[IM_MAX_SYMS * 4];
    int n = expr_syms(e, v, IM_MAX_SYMS * 4, 0);
    for (int i = 0; i < n; i++)
        if (im_sym_add(&T->syms, v[i]) < 0)
            return err(T, loc, "transform-layout of %s: the shape and the map read more than %d symbols",
                       T->B->name->str, IM_MAX_SYMS);
    im_sym_standins(&T->syms);
    T->nsym = T->syms.n;
    return 0;
}

/* The symbolic extents of B read at the stand-ins of their variables. */
static int shape_syms(TL *T)
{
    for (int d = 0; d < T->oldn; d++)
        if (T->sym[d] && add_syms(T, T->sym[d], T->B->loc))
            return -1;
    for (int d = 0; d < T->oldn; d++) {
        char ext[120];
        if (T->sym[d] && (im_sym_eval(T->sym[d], &T->syms, &T->old[d]) || T->old[d] < 1))
            return err(T, T->B->loc, "transform-layout of %s: dimension %d (%s) is not a product of integers and "
                       "shape variables", T->B->name->str, d, expr_text(T->sym[d], ext, sizeof ext));
    }
    return 0;
}

static int find_buffer(TL *T, const char *func, const char *buf)
{
    Func *f = module_find(T->m, intern_cstr(&T->m->names, func));
    if (!f || f->kind != F_PRIM || !f->body)
        return err(T, (Loc){ 0, 0 }, "transform-layout: no prim_func named '%s'", func);
    if (tir_unhandled(f))
        return err(T, f->loc, "transform-layout: %s holds %s, which transform-layout does not rewrite", func,
                   tir_unhandled(f));
    T->f = f;
    Sym *name = intern_cstr(&T->m->names, buf);
    T->param = -1;
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf && f->pparams[i].buf->name == name) {
            T->B = f->pparams[i].buf;
            T->param = i;
        }
    if (!T->B)
        T->B = find_alloc(f->body, name);
    if (!T->B)
        return err(T, f->loc, "transform-layout: %s has no buffer parameter or allocation named '%s'", func, buf);
    if (T->B->kind == BUF_MATCH) {
        /* the buffer of a T.handle parameter: transformed as that parameter,
         * the handle staying as it is and the match taking the new shape */
        for (int i = 0; i < f->npparams; i++)
            if (f->pparams[i].var && f->pparams[i].var == T->B->handle)
                T->param = i;
        if (T->param < 0)
            return err(T, T->B->loc, "transform-layout: %s matches no parameter of %s", buf, func);
    }
    if (T->B->kind == BUF_ALIAS)
        return err(T, T->B->loc, "transform-layout: %s is a view of the storage of %s; a view is not transformed", buf,
                   T->B->base->name->str);
    const Buffer *v = view_of(f->body, T->B);
    if (v)
        return err(T, v->loc, "transform-layout: %s is reached through the view %s (the function is flattened); "
                   "transform it before flatten", buf, v->name->str);
    Expr **st, *off;
    if (buffer_strides(T->a, T->B, &st, &off))
        return err(T, T->B->loc, "transform-layout: %s is laid out by strides= or elem_offset=; a map would not "
                   "move its storage", buf);
    if (T->B->ndim > IM_MAX_RANK)
        return err(T, T->B->loc, "transform-layout: %s has more than %d dimensions", buf, IM_MAX_RANK);
    T->oldn = T->B->ndim;
    for (int d = 0; d < T->oldn; d++) {
        if (expr_const_int(T->B->shape[d], &T->old[d]) == 0) {
            if (T->old[d] < 1)
                return err(T, T->B->loc, "transform-layout: %s needs a shape of positive extents", buf);
            continue;
        }
        T->sym[d] = T->B->shape[d];
    }
    T->oshape = T->B->shape;
    return shape_syms(T);
}

/* Whether inverse inv, read over the new shape, is one to one there: the
 * way back from a result then loses nothing. */
static int back_injective(TL *T, const IndexMap *inv)
{
    ImError e;
    IndexMap *img = im_from_expr(T->scratch, im_to_expr(T->scratch, &T->m->names, inv), T->im->obox, &e);
    ImKind ik = img ? im_classify(img, NULL, NULL) : IM_UNKNOWN;
    return ik == IM_BIJECTIVE || ik == IM_PADDED;
}

/* The inverse of the map read over a box as large as the new shape's
 * volume on every axis. Over the old shape an axis of extent 1 makes c % 4
 * the constant 0, and the inverse then forgets the tile's lanes; over the
 * wider box the map keeps its form and its inverse sends each padded point
 * past the old shape, where the crop drops it. NULL when none is found. */
static IndexMap *wide_inverse(TL *T)
{
    int64_t box[IM_MAX_RANK], vol = 1;
    for (int q = 0; q < T->im->nout; q++)
        if (T->im->obox[q] > 0 && vol <= INT64_C(1) << 20)
            vol *= T->im->obox[q];
    for (int d = 0; d < T->oldn; d++)
        box[d] = T->old[d] > vol ? T->old[d] : vol;
    ImError e;
    IndexMap *w = im_from_expr(T->scratch, T->bmap, box, &e);
    if (!w || im_classify(w, NULL, NULL) == IM_NOT_INJECTIVE)
        return NULL;
    ImCond *pred;
    int npred;
    IndexMap *inv = im_inverse(T->scratch, w, &pred, &npred, &e);
    if (!inv)
        return NULL;
    /* read again over the new shape, where it is used */
    return im_from_expr(T->scratch, im_to_expr(T->scratch, &T->m->names, inv), T->im->obox, &e);
}

/* The offset of input v in the map's normal form: c when the map reads v
 * as (v + c) // d or (v + c) % d, padding c points before the data. */
static int64_t offset_of(const IndexMap *im, int v)
{
    for (int o = 0; o < im->nout; o++)
        for (int i = 0; i < im->out[o]->n; i++) {
            const ImTerm *t = &im->out[o]->t[i];
            const ImSum *a = t->var < 0 ? t->arg : NULL;
            if (a && a->k > 0 && a->n == 1 && a->t[0].var == v && a->t[0].coef == 1 && a->t[0].lo == 1 &&
                a->t[0].hi == 0)
                return a->k;
        }
    return 0;
}

/* The inverse of a map that shifts its inputs before splitting them,
 * lambda i: ((i + 1) // 8, (i + 1) % 8): the map of i' = i + 1 over the
 * shifted box is a split, whose inverse less the shift is the inverse, and
 * whose points before the shift are padding too. The way back from a result
 * is the split's inverse, then a crop from the shift. 1 when derived. */
static int shifted_inverse(TL *T)
{
    int64_t box[IM_MAX_RANK];
    int any = 0;
    Subst S = { 0 };
    for (int d = 0; d < T->oldn; d++) {
        T->shift[d] = offset_of(T->im, d);
        box[d] = T->old[d] + T->shift[d];
        any |= T->shift[d] != 0;
        Var *x = T->bmap->u.map.params[d];
        subst_var(T->a, &S, x, bin(T, B_SUB, tvar(T, x), expr_int(T->a, T->shift[d], DT_VOID, T->B->loc)));
    }
    if (!any)
        return 0;
    Expr *w = arena_alloc(T->a, sizeof *w);
    *w = *T->bmap;
    w->u.map.out = arena_array(T->a, (size_t)T->bmap->u.map.nout + 1, sizeof(Expr *));
    for (int q = 0; q < T->bmap->u.map.nout; q++)
        w->u.map.out[q] = clone_expr(T->a, &S, T->bmap->u.map.out[q]);
    ImError e;
    ImCond *pred;
    int npred;
    IndexMap *sm = im_from_expr(T->scratch, w, box, &e), *inv = sm ? im_inverse(T->scratch, sm, &pred, &npred, &e) : NULL;
    if (!inv || memcmp(sm->obox, T->im->obox, (size_t)sm->nout * sizeof *sm->obox)) {
        memset(T->shift, 0, sizeof T->shift);
        return 0;
    }
    IndexMap *un = arena_alloc(T->scratch, sizeof *un);
    *un = *inv;
    un->box = T->im->obox;
    un->obox = T->old;
    un->out = arena_array(T->scratch, (size_t)T->oldn + 1, sizeof *un->out);
    ImCond *conds = arena_array(T->scratch, (size_t)(npred + T->oldn + 1), sizeof *conds);
    memcpy(conds, pred, (size_t)npred * sizeof *conds);
    for (int d = 0; d < T->oldn; d++) {
        ImSum *o = arena_alloc(T->scratch, sizeof *o), *c = arena_zalloc(T->scratch, sizeof *c);
        *o = *inv->out[d];
        o->k -= T->shift[d];
        un->out[d] = o;
        c->k = T->shift[d];
        if (T->shift[d])
            conds[npred++] = (ImCond){ inv->out[d], B_LT, c };
    }
    T->inv = un;
    T->binv = inv;
    T->pred = conds;
    T->npred = npred;
    return 1;
}

/* The map's symbols, its reading at the stand-ins, and the new extents
 * read back from there as products of the symbols (n * 5 for a fused axis);
 * the reading is then checked at every small binding. */
static int read_symbols(TL *T)
{
    int nin = T->map->u.map.nparams;
    for (int q = 0; q < T->map->u.map.nout; q++) {
        Var *v[IM_MAX_SYMS * 4];
        int n = expr_syms(T->map->u.map.out[q], v, IM_MAX_SYMS * 4, 0);
        for (int i = 0; i < n; i++) {
            int param = 0;
            for (int p = 0; p < nin; p++)
                param |= T->map->u.map.params[p] == v[i];
            if (param)
                continue;
            Expr *x = expr_new(T->scratch, E_VAR, T->map->u.map.out[q]->loc);
            x->u.var = v[i];
            if (add_syms(T, x, T->B->loc))
                return -1;
            T->msym = 1;
        }
    }
    T->bmap = T->nsym ? im_bind(T->a, T->map, &T->syms) : T->map;
    return 0;
}

/* A map that pads by a symbol (TVM's lambda i: (i // n, i % n) over 16
 * points): at the stand-ins 16 points fit in one row, so the new extents
 * are read from the map's form instead ((16 + n - 1) // n and n,
 * im_sym_extent), the inverse from a reading over a box as many times wider
 * as the stand-ins' product (where the map splits whole rows: y0 * n + y1),
 * and the padding is where the inverse leaves the old shape, or where the
 * wide reading pads; all three are checked at small and larger values of
 * the symbols (im_sym_check_pad). */
static int pad_symbolic(TL *T)
{
    int nin = T->oldn, nout = T->map->u.map.nout;
    int64_t p = 1, box[IM_MAX_RANK];
    for (int k = 0; k < T->syms.n; k++)
        for (int q = 0; q < nout; q++)
            if (expr_mentions(T->map->u.map.out[q], T->syms.var[k])) {
                p *= T->syms.val[k];
                break;
            }
    for (int d = 0; d < nin; d++)
        if (__builtin_mul_overflow(T->old[d], p, &box[d]) || box[d] > INT64_C(1) << 50)
            return err(T, T->B->loc, "transform-layout of %s: the map pads by a variable of the function, and its "
                       "shape is too large for lopt to read the map there", T->B->name->str);
    for (int q = 0; q < nout; q++) {
        Expr *x = im_sym_extent(T->a, T->map, T->map->u.map.out[q], T->oshape);
        int sym = 0;
        for (int k = 0; k < T->syms.n; k++)
            sym |= expr_mentions(T->map->u.map.out[q], T->syms.var[k]);
        if (!x && !sym)
            x = im_unbind(T->a, expr_int(T->scratch, T->im->obox[q], DT_VOID, T->B->loc), &T->syms);
        if (!x)
            return err(T, T->B->loc, "transform-layout of %s: the map pads by a variable of the function, and its "
                       "output %d is not an input divided (//) or reduced (%%) by the variables, whose new extent lopt "
                       "writes", T->B->name->str, q);
        T->next[q] = x->kind == E_INT ? NULL : x;
    }
    ImError e;
    ImCond *pred;
    int npred;
    IndexMap *w = im_from_expr(T->scratch, T->bmap, box, &e);
    IndexMap *inv = w ? im_inverse(T->scratch, w, &pred, &npred, &e) : NULL;
    if (!inv)
        return err(T, T->B->loc, "transform-layout of %s: the map pads by a variable of the function: %s",
                   T->B->name->str, e.msg);
    /* the padding: the wide reading's, and where the inverse leaves the old shape */
    ImCond *conds = arena_array(T->scratch, (size_t)(npred + nin + 1), sizeof *conds);
    memcpy(conds, pred, (size_t)npred * sizeof *conds);
    for (int d = 0; d < nin; d++) {
        /* an axis the map keeps whole (y1 of a constant extent 3) never leaves it */
        const ImSum *o = inv->out[d];
        int q = o->n == 1 && o->k == 0 && o->t[0].var >= 0 && o->t[0].coef == 1 && o->t[0].lo == 1 &&
                o->t[0].hi == 0 ? o->t[0].var : -1;
        if (q >= 0 && !T->next[q] && T->im->obox[q] <= T->old[d])
            continue;
        ImSum *c = arena_zalloc(T->scratch, sizeof *c);
        c->k = T->old[d];
        conds[npred++] = (ImCond){ o, B_GE, c };
    }
    T->inv = T->binv = inv;
    T->pred = conds;
    T->npred = npred;
    T->padded = T->spad = 1;
    /* a result of symbolic shape is refused where it is called (fix_block) */
    T->back = 1;
    /* the inverse and the predicate written with the symbols, and checked */
    Expr *ix = im_to_expr(T->scratch, &T->m->names, inv);
    Expr *px = arena_alloc(T->scratch, sizeof *px);
    *px = *ix;
    px->u.map.nout = 1;
    px->u.map.out = arena_array(T->scratch, 2, sizeof(Expr *));
    px->u.map.out[0] = pad_pred(T, ix->u.map.params);
    Expr *iu = im_unbind(T->scratch, ix, &T->syms), *nw[IM_MAX_RANK];
    if (!iu)
        return err(T, T->B->loc, "transform-layout of %s: the map pads by a variable of the function and its inverse "
                   "is not written with products of integers and the variables", T->B->name->str);
    for (int q = 0; q < nout; q++)
        nw[q] = new_extent(T, q, T->B->loc);
    if (im_sym_check_pad(T->scratch, T->map, T->oshape, nw, iu, px, &T->syms, &e))
        return err(T, T->B->loc, "transform-layout of %s: %s", T->B->name->str, e.msg);
    return 0;
}

static int new_symbolic(TL *T)
{
    Expr *nw[IM_MAX_RANK];
    ImError e;
    int product = 1;
    for (int q = 0; q < T->im->nout; q++) {
        Expr *x = im_unbind(T->a, expr_int(T->scratch, T->im->obox[q], DT_VOID, T->B->loc), &T->syms);
        if (!x && !T->msym)
            return err(T, T->B->loc, "transform-layout of %s: the new extent of axis %d is not a product of integers "
                       "and the shape variables, which is all lopt writes", T->B->name->str, q);
        product &= x != NULL;
        T->next[q] = !x || x->kind == E_INT ? NULL : x;
    }
    if (product && !(T->msym && T->padded)) {
        for (int q = 0; q < T->im->nout; q++)
            nw[q] = new_extent(T, q, T->B->loc);
        if (im_sym_check(T->scratch, T->map, T->oshape, nw, NULL, &T->syms, T->padded, &e) == 0)
            return 0;
        if (!T->msym)
            return err(T, T->B->loc, "transform-layout of %s: %s", T->B->name->str, e.msg);
    }
    /* the reading at the stand-ins does not hold at small values: the map
     * pads by a symbol */
    memset(T->next, 0, sizeof T->next);
    return pad_symbolic(T);
}

static int classify(TL *T, int assume)
{
    ImError e;
    if (T->map->u.map.nparams != T->oldn)
        return err(T, T->B->loc, "transform-layout: the map takes %d indices but %s has %d dimensions",
                   T->map->u.map.nparams, T->B->name->str, T->oldn);
    if (read_symbols(T))
        return -1;
    if (!(T->im = im_from_expr(T->scratch, T->bmap, T->old, &e)))
        return err(T, T->B->loc, "transform-layout of %s: %s", T->B->name->str, e.msg);
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK], y[IM_MAX_RANK];
    ImKind k = im_classify(T->im, wa, wb);
    if (k == IM_NOT_INJECTIVE) {
        char sa[160] = "", sb[160] = "", sy[160] = "";
        int la = 0, lb = 0, ly = 0;
        im_apply(T->im, wa, y);
        for (int d = 0; d < T->oldn; d++) {
            la += snprintf(sa + la, sizeof sa - (size_t)la, "%s%lld", d ? ", " : "", (long long)wa[d]);
            lb += snprintf(sb + lb, sizeof sb - (size_t)lb, "%s%lld", d ? ", " : "", (long long)wb[d]);
            if (la > 120 || lb > 120)
                break;
        }
        for (int q = 0; q < T->im->nout && ly < 120; q++)
            ly += snprintf(sy + ly, sizeof sy - (size_t)ly, "%s%lld", q ? ", " : "", (long long)y[q]);
        return err(T, T->B->loc, "transform-layout of %s: the map is not injective: (%s) and (%s) both go to (%s)",
                   T->B->name->str, sa, sb, sy);
    }
    if (k == IM_UNKNOWN && !assume)
        return err(T, T->B->loc, "transform-layout of %s: lopt cannot decide whether the map is injective; "
                   "give assume-injective=1 to take it as such", T->B->name->str);
    T->padded = k == IM_PADDED;
    if (T->nsym && new_symbolic(T))
        return -1;
    if (T->spad)
        return 0;
    if (T->padded || k == IM_BIJECTIVE) {
        if (!(T->inv = im_inverse(T->scratch, T->im, &T->pred, &T->npred, &e)) && !shifted_inverse(T))
            return err(T, T->B->loc, "transform-layout of %s: %s", T->B->name->str, e.msg);
        if (T->binv)
            return T->back = back_injective(T, T->binv), 0;
        /* the inverse is simplified over the old shape, so on the padding it
         * may send two points to one (i % 3 of a 1-long axis is i) */
        T->binv = T->inv;
        T->back = back_injective(T, T->inv);
        if (!T->back && (T->binv = wide_inverse(T)))
            T->back = back_injective(T, T->binv);
    }
    return 0;
}

/* One transformation: of buffer in func, by the map's text or an index map
 * of the module (a layout_transform_map entry). */
typedef struct Request {
    const char *func, *buffer;
    const char *mtext;
    const Expr *map;
    const char *ptext, *stext;
    int assume;
    int recorded;              /* from layout_transform_map: the error says how to give a pad value there */
} Request;

static int transform(TL *T, const Request *r)
{
    const char *ptext = r->ptext;
    int assume = r->assume;
    if (find_buffer(T, r->func, r->buffer))
        return -1;
    if (r->map) {
        /* a copy whose outputs take_separators may change */
        Expr *x = arena_alloc(T->a, sizeof *x);
        *x = *r->map;
        x->u.map.out = arena_array(T->a, (size_t)r->map->u.map.nout + 1, sizeof(Expr *));
        memcpy(x->u.map.out, r->map->u.map.out, (size_t)r->map->u.map.nout * sizeof(Expr *));
        T->map = x;
    } else if (!(T->map = read_map(T, r->mtext))) {
        return -1;
    }
    const char *stext = r->stext;
    take_separators(T, T->map);
    if (stext && read_separators(T, stext))
        return -1;
    if (check_separators(T) || classify(T, assume))
        return -1;
    if (T->nsym)
        T->sc.syms = &T->syms;
    int nout = T->map->u.map.nout;
    if (T->B->scope && strncmp(T->B->scope, "global.texture", 14) == 0 &&
        (nout != T->oldn || T->im->obox[nout - 1] != T->old[T->oldn - 1]))
        return err(T, T->B->loc, "transform-layout of %s: it lives in %s memory, whose texels hold its last axis "
                   "(%lld long); a map there must keep the rank and the last extent", T->B->name->str, T->B->scope,
                   (long long)T->old[T->oldn - 1]);
    prim_names(T->f, &T->names);
    if (T->padded && !ptext && !assume) {
        char pred[200];
        Expr *p = im_pred_to_expr(T->a, &T->m->names, T->inv, T->pred, T->npred);
        Expr *u = T->nsym ? im_unbind(T->a, p, &T->syms) : NULL;
        p = u ? u : p;
        char shape[120], ext[100];
        int len = 0;
        for (int q = 0; q < T->map->u.map.nout && len < 100; q++)
            len += snprintf(shape + len, sizeof shape - (size_t)len, "%s%s", q ? ", " : "",
                            expr_text(new_extent(T, q, T->B->loc), ext, sizeof ext));
        if (r->recorded)
            return err(T, T->B->loc,
                       "transform-layout of %s: the map pads it to (%s); the padding is where %s; record the map "
                       "with its pad value in layout_transform_map, as (T.index_map(...), V)",
                       T->B->name->str, shape, expr_text(p, pred, sizeof pred));
        return err(T, T->B->loc,
                   "transform-layout of %s: the map pads it to (%s); the padding is where %s; give pad-value=V "
                   "(or assume-injective=1 to leave it undefined)",
                   T->B->name->str, shape, expr_text(p, pred, sizeof pred));
    }
    if (ptext && read_pad(T, ptext))
        return -1;
    const Expr *tv = T->param >= 0 ? tir_vars_call(T) : NULL;
    if (tv)
        return err(T, tv->loc, "transform-layout: this call of %s passes tir_vars, which transform-layout does "
                   "not rewrite; transform %s in a function called without them",
                   T->f->name->str, T->B->name->str);
    const Func *rf = NULL;
    const Expr *rc = T->param >= 0 ? called_in_result(T, &rf) : NULL;
    if (rc)
        return err(T, rc->loc, "transform-layout: %s is named in the result of %s, not called in a binding of its own; its "
                   "signature must stay", T->f->name->str, rf->name->str);
    if (T->param >= 0 && !called_plainly(T))
        return err(T, T->B->loc, "transform-layout: %s is called directly, with tir_vars or from control flow; its "
                   "signature must stay", T->f->name->str);
    if (T->param >= 0 && fix_calls(T))
        return -1;
    Padding P = { 0 };
    if (T->padded && (T->pad || T->padmap) && pad_plan(T, &P))
        return -1;
    rw_stmt(T, T->f->body);
    if (P.extra)
        pad_place(T, &P);
    if (P.writer) {
        store_at(T, P.writer->body, P.y);
        store_at(T, P.writer->init, P.y);
        for (int k = 0; k < P.writer->nwrites; k++)
            if (P.writer->writes[k].buf == T->B)
                P.writer->writes[k] = *point_region(T, P.y);
    }
    Buffer *B = T->B;
    B->ndim = T->map->u.map.nout;
    B->shape = arena_array(T->a, (size_t)B->ndim + 1, sizeof *B->shape);
    for (int q = 0; q < B->ndim; q++)
        B->shape[q] = new_extent(T, q, B->loc);
    B->nsep = T->nsep;
    B->axis_sep = arena_array(T->a, (size_t)T->nsep + 1, sizeof(int));
    memcpy(B->axis_sep, T->sep, (size_t)T->nsep * sizeof(int));
    return 0;
}

static int run_request(Module *m, PassCtx *ctx, const Request *r)
{
    Arena scratch = { 0 };
    TL T = { .m = m, .ctx = ctx, .a = &m->arena, .scratch = &scratch };
    int rc = transform(&T, r);
    scope_free(&T.sc);
    ptrmap_free(&T.names);
    arena_free(&scratch);
    return rc;
}

static int is_key(const Expr *k, const char *s)
{
    return k->kind == E_STR && (size_t)k->u.str.len == strlen(s) && memcmp(k->u.str.s, s, (size_t)k->u.str.len) == 0;
}

/* An entry of layout_transform_map that is a map with its pad value,
 * (T.index_map(...), V): V a number or a string holding a lambda of the new
 * indices. Returns 1 and sets *map and *pad (text for read_pad), 0 when e
 * is not such a pair. */
static int map_pad_pair(Module *m, const Expr *e, const Expr **map, const char **pad)
{
    if (e->kind != E_TUPLE || e->u.list.n != 2 || e->u.list.items[0]->kind != E_INDEXMAP ||
        e->u.list.items[1]->kind == E_INDEXMAP)
        return 0;
    const Expr *v = e->u.list.items[1];
    double x;
    char buf[64];
    *map = e->u.list.items[0];
    if (v->kind == E_STR) {
        *pad = arena_strndup(&m->arena, v->u.str.s, (size_t)v->u.str.len);
        return 1;
    }
    if (!const_number(v, &x))
        return 0;
    /* an integer literal stays one, so that an integer buffer accepts it */
    int64_t k;
    if (expr_const_int(v, &k) == 0 || (v->kind == E_UNARY && expr_const_int(v->u.un.a, &k) == 0 && (k = -k, 1)))
        snprintf(buf, sizeof buf, "%lld", (long long)k);
    else
        snprintf(buf, sizeof buf, "%.17g%s", x, x == (double)(int64_t)x && x > -1e15 && x < 1e15 ? ".0" : "");
    *pad = arena_strndup(&m->arena, buf, strlen(buf));
    return 1;
}

/* The transformations f records in T.func_attr({"layout_transform_map":
 * {"B": entry, ...}}), an entry being T.index_map(...), a map with its pad
 * value (T.index_map(...), V), or a list of those, applied in order; the
 * entry goes, so a second run changes nothing. */
static int run_recorded(Module *m, PassCtx *ctx, Func *f)
{
    Expr *d = f->attrs;
    if (!d || d->kind != E_DICT || tir_unhandled(f))
        return 0;
    int at = -1;
    for (int i = 0; i < d->u.dict.n; i++)
        if (is_key(d->u.dict.keys[i], "layout_transform_map"))
            at = i;
    if (at < 0)
        return 0;
    Expr *ltm = d->u.dict.vals[at];
    if (ltm->kind != E_DICT)
        return diag_error(ctx->src, ltm->loc, "layout_transform_map is a dict from buffer names to index maps");
    for (int i = 0; i < ltm->u.dict.n; i++) {
        Expr *k = ltm->u.dict.keys[i], *v = ltm->u.dict.vals[i];
        if (k->kind != E_STR)
            return diag_error(ctx->src, k->loc, "layout_transform_map is keyed by buffer names (strings)");
        char *name = arena_strndup(&m->arena, k->u.str.s, (size_t)k->u.str.len);
        const Expr *pm;
        const char *pad;
        /* a map and something else than a map is a pair, whose pad value
         * must then be right */
        int pair = v->kind == E_TUPLE && v->u.list.n == 2 && v->u.list.items[0]->kind == E_INDEXMAP &&
                   v->u.list.items[1]->kind != E_INDEXMAP;
        int one = (v->kind != E_LIST && v->kind != E_TUPLE) || pair || map_pad_pair(m, v, &pm, &pad);
        int n = one ? 1 : v->u.list.n;
        for (int j = 0; j < n; j++) {
            const Expr *map = one ? v : v->u.list.items[j];
            pad = NULL;
            if (map_pad_pair(m, map, &pm, &pad))
                map = pm;
            else if (map->kind == E_TUPLE && map->u.list.n == 2 && map->u.list.items[0]->kind == E_INDEXMAP)
                return diag_error(ctx->src, map->u.list.items[1]->loc, "layout_transform_map of '%s': a pad value "
                                  "is a number or a string holding a lambda of the new indices", name);
            if (map->kind != E_INDEXMAP)
                return diag_error(ctx->src, map->loc, "layout_transform_map of '%s' must hold T.index_map(...) maps "
                                  "or (T.index_map(...), pad value) pairs", name);
            Request r = { .func = f->name->str, .buffer = name, .map = map, .ptext = pad, .recorded = 1 };
            if (run_request(m, ctx, &r))
                return -1;
        }
    }
    for (int i = at + 1; i < d->u.dict.n; i++) {
        d->u.dict.keys[i - 1] = d->u.dict.keys[i];
        d->u.dict.vals[i - 1] = d->u.dict.vals[i];
    }
    if (--d->u.dict.n == 0)
        f->attrs = NULL;
    return 0;
}

int pass_transform_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    const char *a = opt(opts, nopts, "assume-injective"), *func = opt(opts, nopts, "func");
    if (opt(opts, nopts, "buffer")) {
        Request r = { func, opt(opts, nopts, "buffer"), opt(opts, nopts, "map"), NULL,
                      opt(opts, nopts, "pad-value"), opt(opts, nopts, "axis-separators"), a && strcmp(a, "1") == 0, 0 };
        return run_request(m, ctx, &r);
    }
    if (func && !module_find(m, intern_cstr(&m->names, func)))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "transform-layout: no prim_func named '%s'", func);
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_PRIM && (!func || strcmp(m->funcs[i]->name->str, func) == 0) &&
            run_recorded(m, ctx, m->funcs[i]))
            return -1;
    return 0;
}

int pass_transform_layout_check(const PassOpt *opts, int nopts, char *errbuf, size_t cap)
{
    /* without buffer=, the pass applies the maps the functions record */
    static const char *const need[] = { "func", "buffer", "map" };
    int given = opt(opts, nopts, "buffer") || opt(opts, nopts, "map") || opt(opts, nopts, "pad-value") ||
                opt(opts, nopts, "axis-separators");
    for (size_t i = 0; given && i < sizeof need / sizeof need[0]; i++)
        if (!opt(opts, nopts, need[i])) {
            snprintf(errbuf, cap, "pass 'transform-layout' needs the option '%s'", need[i]);
            return -1;
        }
    const char *a = opt(opts, nopts, "assume-injective");
    if (a && strcmp(a, "0") != 0 && strcmp(a, "1") != 0) {
        snprintf(errbuf, cap, "assume-injective of pass 'transform-layout' is 0 or 1, not '%s'", a);
        return -1;
    }
    return 0;
}
