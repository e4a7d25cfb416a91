/* Symbols in index maps: a map that reads a shape variable (lambda i, j:
 * (i * n + j,)) is read at values of its symbols. The normal form stays the
 * one of indexmap.c; this file binds symbols to values, reads constants
 * computed at stand-in values back as products of symbols, and checks a
 * symbolic reading at every small binding by enumeration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clone.h"
#include "indexmap.h"

/* Primes near 2^16: a product of an integer below them and their powers
 * factors one way, and an extent, coefficient or divisor the normal form
 * computes from them shows which symbols it is made of. */
static const int64_t standin[IM_MAX_SYMS] = { 65521, 65519, 65497 };

/* How far from a multiple of a stand-in a constant may lie before it is
 * taken for an expression such as n - 1 that lopt does not read back. */
enum { NEAR = 64 };

int im_sym_add(ImSyms *s, Var *v)
{
    for (int k = 0; k < s->n; k++)
        if (s->var[k] == v)
            return k;
    if (s->n == IM_MAX_SYMS)
        return -1;
    s->var[s->n] = v;
    s->val[s->n] = 0;
    return s->n++;
}

void im_sym_standins(ImSyms *s)
{
    for (int k = 0; k < s->n; k++)
        s->val[k] = standin[k];
}

Expr *im_bind(Arena *a, const Expr *e, const ImSyms *s)
{
    Subst S = { 0 };
    for (int k = 0; k < s->n; k++)
        subst_var(a, &S, s->var[k], expr_int(a, s->val[k], DT_VOID, e->loc));
    return clone_expr(a, &S, e);
}

static int sym_value(const Var *v, void *data, int64_t *out)
{
    const ImSyms *s = data;
    for (int k = 0; k < s->n; k++)
        if (s->var[k] == v)
            return *out = s->val[k], 0;
    return -1;
}

int im_sym_eval(const Expr *e, const ImSyms *s, int64_t *v)
{
    return expr_eval_int(e, sym_value, (void *)s, v);
}

/* Whether m looks like a stand-in's multiple moved by a little. */
static int near_standin(int64_t m, const ImSyms *s)
{
    for (int k = 0; k < s->n; k++) {
        int64_t r = m % standin[k];
        if (m >= standin[k] - NEAR && (r <= NEAR || r >= standin[k] - NEAR))
            return 1;
    }
    return 0;
}

static Expr *var_expr(Arena *a, Var *v, Loc loc)
{
    Expr *e = expr_new(a, E_VAR, loc);
    e->u.var = v;
    return e;
}

static Expr *mul(Arena *a, Expr *x, Expr *y, Loc loc)
{
    if (!x)
        return y;
    Expr *e = expr_new(a, E_BIN, loc);
    e->u.bin.op = B_MUL;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

/* v as c * n ** e1 * m ** e2 ..., or NULL when it does not read back. */
static Expr *unbind_int(Arena *a, int64_t v, const ImSyms *s, Loc loc)
{
    if (v == INT64_MIN)
        return NULL;
    int64_t m = v < 0 ? -v : v;
    Expr *e = NULL;
    for (int k = 0; k < s->n && m; k++)
        while (m % standin[k] == 0) {
            m /= standin[k];
            e = mul(a, e, var_expr(a, s->var[k], loc), loc);
        }
    if (near_standin(m, s))
        return NULL;
    if (!e)
        return expr_int(a, v, DT_VOID, loc);
    if (m != 1 || v < 0)
        e = mul(a, e, expr_int(a, v < 0 ? -m : m, DT_VOID, loc), loc);
    return e;
}

/* x * f, f a product read back: x * n * 32 rather than x * (n * 32). */
static Expr *mul_into(Arena *a, Expr *x, Expr *f)
{
    if (f->kind == E_BIN && f->u.bin.op == B_MUL)
        return mul(a, mul_into(a, x, f->u.bin.a), f->u.bin.b, f->loc);
    return mul(a, x, f, f->loc);
}

static Expr *unbind(Arena *a, const Expr *e, const ImSyms *s)
{
    Expr *c;
    switch (e->kind) {
    case E_INT:
        return unbind_int(a, e->u.i.v, s, e->loc);
    case E_BIN:
        if (e->u.bin.op == B_MUL && e->u.bin.b->kind == E_INT) {
            Expr *x = unbind(a, e->u.bin.a, s), *f = x ? unbind(a, e->u.bin.b, s) : NULL;
            return f ? mul_into(a, x, f) : NULL;
        }
        c = arena_alloc(a, sizeof *c);
        *c = *e;
        if (!(c->u.bin.a = unbind(a, e->u.bin.a, s)) || !(c->u.bin.b = unbind(a, e->u.bin.b, s)))
            return NULL;
        return c;
    case E_UNARY:
        c = arena_alloc(a, sizeof *c);
        *c = *e;
        return (c->u.un.a = unbind(a, e->u.un.a, s)) ? c : NULL;
    case E_CAST:
        c = arena_alloc(a, sizeof *c);
        *c = *e;
        return (c->u.cast.a = unbind(a, e->u.cast.a, s)) ? c : NULL;
    case E_INDEXMAP:
        c = arena_alloc(a, sizeof *c);
        *c = *e;
        c->u.map.out = arena_array(a, (size_t)e->u.map.nout + 1, sizeof(Expr *));
        for (int q = 0; q < e->u.map.nout; q++)
            if (!(c->u.map.out[q] = unbind(a, e->u.map.out[q], s)))
                return NULL;
        return c;
    case E_VAR:
        c = arena_alloc(a, sizeof *c);
        *c = *e;
        return c;
    default:
        return NULL;
    }
}

Expr *im_unbind(Arena *a, const Expr *e, const ImSyms *s)
{
    return unbind(a, e, s);
}

/* ---- the check at small bindings ---- */

static int text_binding(const ImSyms *s, char *buf, size_t cap)
{
    int len = 0;
    for (int k = 0; k < s->n && len < (int)cap; k++)
        len += snprintf(buf + len, cap - (size_t)len, "%s%s = %lld", k ? ", " : "", s->var[k]->name->str,
                        (long long)s->val[k]);
    return len;
}

static int text_point(const int64_t *x, int n, char *buf, size_t cap)
{
    int len = 0;
    for (int d = 0; d < n && len < (int)cap; d++)
        len += snprintf(buf + len, cap - (size_t)len, "%s%lld", d ? ", " : "", (long long)x[d]);
    return len;
}

/* The largest box a binding is enumerated over. */
#define CHECK_MAX (INT64_C(1) << 22)

static int eval_box(Expr *const *ext, int n, const ImSyms *s, int64_t *box, int64_t *vol)
{
    *vol = 1;
    for (int d = 0; d < n; d++)
        if (im_sym_eval(ext[d], s, &box[d]) || box[d] < 1 || __builtin_mul_overflow(*vol, box[d], vol) ||
            *vol > CHECK_MAX)
            return -1;
    return 0;
}

/* e at the values x of the parameters of lam and the symbols of b, with
 * comparisons and logic giving 0 or 1; -1 when it reads anything else. */
static int eval_pt(const Expr *e, const Expr *lam, const int64_t *x, const ImSyms *b, int64_t *v)
{
    int64_t l, r;
    if (e->kind == E_VAR)
        for (int p = 0; p < lam->u.map.nparams; p++)
            if (lam->u.map.params[p] == e->u.var)
                return *v = x[p], 0;
    if (e->kind == E_CAST)
        return eval_pt(e->u.cast.a, lam, x, b, v);
    if (e->kind != E_BIN)
        return im_sym_eval(e, b, v);
    if (eval_pt(e->u.bin.a, lam, x, b, &l) || eval_pt(e->u.bin.b, lam, x, b, &r))
        return -1;
    switch (e->u.bin.op) {
    case B_LT: return *v = l < r, 0;
    case B_LE: return *v = l <= r, 0;
    case B_GT: return *v = l > r, 0;
    case B_GE: return *v = l >= r, 0;
    case B_EQ: return *v = l == r, 0;
    case B_NE: return *v = l != r, 0;
    case B_AND: return *v = l && r, 0;
    case B_OR: return *v = l || r, 0;
    default: break;
    }
    /* the arithmetic, on the two values */
    Expr x2 = *e, ea = { .kind = E_INT }, eb = { .kind = E_INT };
    ea.u.i.v = l;
    eb.u.i.v = r;
    x2.u.bin.a = &ea;
    x2.u.bin.b = &eb;
    return im_sym_eval(&x2, b, v);
}

/* The padding predicate pred (lambda over the new indices) holds exactly
 * where seen (the image over the new box nbox, nvol points) has no point. */
static int pred_check(const Expr *pred, const ImSyms *b, const int64_t *nbox, const unsigned char *seen, int64_t nvol,
                      const char *at, ImError *err)
{
    int n = pred->u.map.nparams;
    int64_t y[IM_MAX_RANK], v;
    char py[160];
    for (int64_t r = 0; r < nvol; r++) {
        for (int64_t rem = r, q = n - 1; q >= 0; q--) {
            y[q] = rem % nbox[q];
            rem /= nbox[q];
        }
        if (eval_pt(pred->u.map.out[0], pred, y, b, &v) == 0 && (v != 0) == !seen[r])
            continue;
        text_point(y, n, py, sizeof py);
        snprintf(err->msg, sizeof err->msg, "at %.40s the padding predicate is %s at (%.50s), which %s", at,
                 v ? "true" : "false or unknown", py, seen[r] ? "the map reaches" : "is padding");
        return -1;
    }
    return 0;
}

/* One binding: 1 when checked, 0 when too large to enumerate, -1 on a failure. */
static int check_at(Arena *scratch, const Expr *map, Expr *const *old, Expr *const *new, const Expr *inv,
                    const Expr *pred, const ImSyms *b, int pads, ImError *err)
{
    int nin = map->u.map.nparams, nout = map->u.map.nout;
    int64_t box[IM_MAX_RANK], nbox[IM_MAX_RANK], vol, nvol = 1;
    if (eval_box(old, nin, b, box, &vol))
        return 0;
    char at[96], px[160], py[160];
    text_binding(b, at, sizeof at);
    IndexMap *m = im_from_expr(scratch, im_bind(scratch, map, b), box, err);
    if (!m)
        goto fail;
    int same = 1;
    for (int q = 0; q < nout; q++) {
        if (pred && im_sym_eval(new[q], b, &nbox[q]) == 0 && nbox[q] < 1) {
            snprintf(err->msg, sizeof err->msg, "at %.40s the new extent of axis %d is %lld", at, q,
                     (long long)nbox[q]);
            return -1;
        }
        if (im_sym_eval(new[q], b, &nbox[q]) || nbox[q] < 1 || __builtin_mul_overflow(nvol, nbox[q], &nvol))
            return 0;
        /* a map that pads by a symbol may leave the image short of the
         * new extent (i % n over 16 points when n > 16) */
        same &= pred ? nbox[q] >= m->obox[q] : nbox[q] == m->obox[q];
    }
    if (!same) {
        /* the extent read back at the stand-ins is a constant or product that
         * holds there only: n // 2, n + 1 and the like are not read back */
        text_point(m->obox, nout, px, sizeof px);
        snprintf(err->msg, sizeof err->msg, "at %.40s the new shape is (%.50s): an extent that is not a product of "
                 "integers and shape variables, which is all lopt writes", at, px);
        return -1;
    }
    if (nvol > CHECK_MAX)
        return 0;
    IndexMap *iv = inv ? im_from_expr(scratch, im_bind(scratch, inv, b), nbox, err) : NULL;
    if (inv && !iv)
        goto fail;
    unsigned char *seen = arena_zalloc(scratch, (size_t)nvol);
    int64_t x[IM_MAX_RANK] = { 0 }, y[IM_MAX_RANK], z[IM_MAX_RANK];
    for (int64_t r = 0; r < vol; r++) {
        for (int64_t rem = r, d = nin - 1; d >= 0; d--) {
            x[d] = rem % box[d];
            rem /= box[d];
        }
        im_apply(m, x, y);
        int64_t at_y = 0;
        int out = 0;
        for (int q = 0; q < nout; q++) {
            out |= y[q] < 0 || y[q] >= nbox[q];
            at_y = at_y * nbox[q] + y[q];
        }
        text_point(x, nin, px, sizeof px);
        text_point(y, nout, py, sizeof py);
        if (out) {
            snprintf(err->msg, sizeof err->msg, "at %.40s the map sends (%.50s) to (%.50s), outside the new shape", at,
                     px, py);
            return -1;
        }
        if (seen[at_y]) {
            snprintf(err->msg, sizeof err->msg, "at %.40s the map is not one to one: (%.50s) goes to (%.50s), where "
                     "another point goes", at, px, py);
            return -1;
        }
        seen[at_y] = 1;
        if (iv) {
            im_apply(iv, y, z);
            if (memcmp(z, x, (size_t)nin * sizeof *x)) {
                snprintf(err->msg, sizeof err->msg, "at %.40s the inverse does not send (%.50s) back to (%.50s)", at,
                         py, px);
                return -1;
            }
        }
    }
    if (pred && pred_check(pred, b, nbox, seen, nvol, at, err))
        return -1;
    if (vol != nvol && !pads) {
        snprintf(err->msg, sizeof err->msg, "at %.40s the map pads: %lld points onto a new shape of %lld", at,
                 (long long)vol, (long long)nvol);
        return -1;
    }
    return 1;
fail:;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(err->msg, sizeof err->msg, "at %.40s: %.190s", at, msg);
    return -1;
}

/* check_at at every binding of the symbols of s to the values val. */
static int check_all(Arena *scratch, const Expr *map, Expr *const *old, Expr *const *new, const Expr *inv,
                     const Expr *pred, const ImSyms *s, int pads, const int64_t *val, int nval, ImError *err)
{
    ImSyms b = *s;
    int total = 1, checked = 0;
    err->loc = map->loc;
    for (int k = 0; k < s->n; k++)
        total *= nval;
    for (int i = 0; i < total; i++) {
        for (int k = 0, r = i; k < s->n; k++, r /= nval)
            b.val[k] = val[r % nval];
        int rc = check_at(scratch, map, old, new, inv, pred, &b, pads, err);
        if (rc < 0)
            return -1;
        checked += rc;
    }
    if (!checked) {
        snprintf(err->msg, sizeof err->msg, "the shapes are too large to check the map at small values of its "
                 "symbols");
        return -1;
    }
    return 0;
}

int im_sym_check(Arena *scratch, const Expr *map, Expr *const *old, Expr *const *new, const Expr *inv,
                 const ImSyms *s, int pads, ImError *err)
{
    int64_t val[IM_SYM_CHECK];
    for (int v = 0; v < IM_SYM_CHECK; v++)
        val[v] = v + 1;
    return check_all(scratch, map, old, new, inv, NULL, s, pads, val, IM_SYM_CHECK, err);
}

/* The values a map that pads by a symbol is checked at, beyond 1 .. IM_SYM_CHECK:
 * around and past the largest constant extent c of the old shape (a symbol
 * that divides it, one that does not, one larger than it). */
static int pad_values(Expr *const *old, int n, int64_t *val)
{
    int64_t c = 1, x;
    for (int d = 0; d < n; d++)
        if (expr_const_int(old[d], &x) == 0 && x > c && x <= 1024)
            c = x;
    int k = 0;
    for (int64_t v = 1; v <= IM_SYM_CHECK; v++)
        val[k++] = v;
    const int64_t more[] = { IM_SYM_CHECK + 1, c - 1, c, c + 1, 2 * c + 3 };
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= val[j] == more[i];
        if (!dup && more[i] > 0)
            val[k++] = more[i];
    }
    return k;
}

int im_sym_check_pad(Arena *scratch, const Expr *map, Expr *const *old, Expr *const *new, const Expr *inv,
                     const Expr *pred, const ImSyms *s, ImError *err)
{
    int64_t val[IM_SYM_CHECK + 5];
    int nval = pad_values(old, map->u.map.nparams, val);
    return check_all(scratch, map, old, new, inv, pred, s, 1, val, nval, err);
}

static Expr *bin_new(Arena *a, BinOp op, Expr *x, Expr *y, Loc loc)
{
    Expr *e = expr_new(a, E_BIN, loc);
    e->u.bin.op = op;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

/* Whether e reads variable v. */
static int reads(const Expr *e, const Var *v)
{
    switch (e->kind) {
    case E_VAR: return e->u.var == v;
    case E_CAST: return reads(e->u.cast.a, v);
    case E_UNARY: return reads(e->u.un.a, v);
    case E_BIN: return reads(e->u.bin.a, v) || reads(e->u.bin.b, v);
    case E_INT: return 0;
    default: return 1;
    }
}

/* The extent of output out of a map over the box old, where out is x // d
 * or x % d, x an input (plus a constant c >= 0) and d an expression of the
 * symbols alone: (E + c + d - 1) // d and d. NULL for any other form. */
Expr *im_sym_extent(Arena *a, const Expr *map, const Expr *out, Expr *const *old)
{
    if (out->kind != E_BIN || (out->u.bin.op != B_FLOORDIV && out->u.bin.op != B_FLOORMOD))
        return NULL;
    const Expr *x = out->u.bin.a, *d = out->u.bin.b;
    for (int p = 0; p < map->u.map.nparams; p++)
        if (reads(d, map->u.map.params[p]))
            return NULL;
    int64_t c = 0;
    if (x->kind == E_BIN && x->u.bin.op == B_ADD && expr_const_int(x->u.bin.b, &c) == 0 && c >= 0)
        x = x->u.bin.a;
    int p = 0;
    while (p < map->u.map.nparams && !(x->kind == E_VAR && x->u.var == map->u.map.params[p]))
        p++;
    if (p == map->u.map.nparams)
        return NULL;
    Loc loc = out->loc;
    Subst S = { 0 };
    if (out->u.bin.op == B_FLOORMOD)
        return clone_expr(a, &S, d);
    Expr *e = old[p];
    int64_t k;
    if (expr_const_int(e, &k) == 0) {
        e = expr_int(a, k + c, DT_VOID, loc);
    } else if (c) {
        e = bin_new(a, B_ADD, e, expr_int(a, c, DT_VOID, loc), loc);
    }
    e = bin_new(a, B_SUB, bin_new(a, B_ADD, e, clone_expr(a, &S, d), loc), expr_int(a, 1, DT_VOID, loc), loc);
    return bin_new(a, B_FLOORDIV, e, clone_expr(a, &S, d), loc);
}
