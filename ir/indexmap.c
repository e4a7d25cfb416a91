/* Index maps: normal form, apply, compose, classify, invert; layout strings.
 *
 * The normal form (see indexmap.h) is an affine sum over the mixed-radix
 * digits of the inputs. Every operation keeps the value on the box it is
 * read over; the arithmetic of division is the only place that needs care:
 *
 *   S // d and S % d, with S = k + sum coef_j * digit_j, split S into a high
 *   part whose coefficients are multiples of d and a low part whose value
 *   stays in [0, d). Then S // d = high / d and S % d = low. When the low part
 *   can reach d, a digit run whose coefficient divides d is split at the place
 *   where its coefficient reaches d (x[lo:hi] = x[lo:m] + (m/lo) * x[m:hi]),
 *   and the test is made again. When no split helps, the division stays an
 *   opaque term.
 *
 * Within a sum, terms of one input are refined at each other's places, equal
 * digits are added, and adjacent runs whose coefficients continue each other
 * are merged back (c // 4 * 4 + c % 4 -> c), so that the form is canonical. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "indexmap.h"
#include "oom.h"

/* Magnitudes beyond BIG are treated as unbounded; constants stay below it. */
#define BIG (INT64_C(1) << 60)

typedef struct Ctx {
    Arena *a;
    int n;
    const int64_t *ext;    /* extents of the inputs; 0 means unbounded */
    int overflow;
} Ctx;

typedef struct TVec {
    ImTerm *t;
    int n, cap;
} TVec;


static int64_t cadd(Ctx *c, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > BIG || r < -BIG) {
        c->overflow = 1;
        return 0;
    }
    return r;
}

static int64_t cmul(Ctx *c, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || r > BIG || r < -BIG) {
        c->overflow = 1;
        return 0;
    }
    return r;
}

/* Saturating arithmetic for bounds. */
static int64_t sat(int64_t r)
{
    return r > BIG ? BIG : r < -BIG ? -BIG : r;
}

static int64_t sadd(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? BIG : -BIG;
    return sat(r);
}

static int64_t smul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a > 0) == (b > 0) ? BIG : -BIG;
    return sat(r);
}

/* Wrapping arithmetic for evaluation at arbitrary points: never undefined. */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static void tv_push(Arena *a, TVec *v, ImTerm t)
{
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 8;
        ImTerm *g = arena_array(a, (size_t)cap, sizeof *g);
        if (v->n)
            memcpy(g, v->t, (size_t)v->n * sizeof *g);
        v->t = g;
        v->cap = cap;
    }
    v->t[v->n++] = t;
}

/* ---- order and equality ---- */

static int cmp64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_sum(const ImSum *a, const ImSum *b);

/* Compares what a term is, not its coefficient. */
static int cmp_key(const ImTerm *a, const ImTerm *b)
{
    if ((a->var < 0) != (b->var < 0))
        return a->var < 0 ? 1 : -1;
    if (a->var >= 0) {
        int r = a->var != b->var ? cmp64(a->var, b->var) : cmp64(a->lo, b->lo);
        return r ? r : cmp64(a->hi ? a->hi : INT64_MAX, b->hi ? b->hi : INT64_MAX);
    }
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if (a->div != b->div)
        return cmp64(a->div, b->div);
    return cmp_sum(a->arg, b->arg);
}

static int cmp_term(const void *pa, const void *pb)
{
    const ImTerm *a = pa, *b = pb;
    int r = cmp_key(a, b);
    return r ? r : cmp64(a->coef, b->coef);
}

static int cmp_sum(const ImSum *a, const ImSum *b)
{
    if (a->k != b->k)
        return cmp64(a->k, b->k);
    if (a->n != b->n)
        return cmp64(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        int r = cmp_term(&a->t[i], &b->t[i]);
        if (r)
            return r;
    }
    return 0;
}

int im_sum_equal(const ImSum *a, const ImSum *b)
{
    return cmp_sum(a, b) == 0;
}

int im_equal(const IndexMap *a, const IndexMap *b)
{
    if (a->nout != b->nout)
        return 0;
    for (int k = 0; k < a->nout; k++)
        if (!im_sum_equal(a->out[k], b->out[k]) || a->obox[k] != b->obox[k])
            return 0;
    return 1;
}

/* ---- bounds ---- */

/* The largest value of (x // lo) % (hi / lo) on the box. */
static int64_t digit_max(const Ctx *c, const ImTerm *t)
{
    int64_t e = c->ext[t->var];
    int64_t m = e ? (e - 1) / t->lo : BIG;
    if (t->hi && t->hi / t->lo - 1 < m)
        m = t->hi / t->lo - 1;
    return m;
}

static void sum_bounds(const Ctx *c, const ImSum *s, int64_t *mn, int64_t *mx);

static void term_bounds(const Ctx *c, const ImTerm *t, int64_t *mn, int64_t *mx)
{
    int64_t lo = 0, hi;
    if (t->var >= 0) {
        hi = digit_max(c, t);
    } else {
        int64_t al, ah;
        sum_bounds(c, t->arg, &al, &ah);
        if (t->op == B_FLOORDIV) {
            lo = al <= -BIG ? -BIG : floordiv64(al, t->div);
            hi = ah >= BIG ? BIG : floordiv64(ah, t->div);
        } else if (al >= 0 && ah < t->div) {
            lo = al;
            hi = ah;
        } else {
            hi = t->div - 1;
        }
    }
    if (t->coef >= 0) {
        *mn = smul(lo, t->coef);
        *mx = smul(hi, t->coef);
    } else {
        *mn = smul(hi, t->coef);
        *mx = smul(lo, t->coef);
    }
}

static void sum_bounds(const Ctx *c, const ImSum *s, int64_t *mn, int64_t *mx)
{
    *mn = *mx = s->k;
    for (int i = 0; i < s->n; i++) {
        int64_t l, h;
        term_bounds(c, &s->t[i], &l, &h);
        *mn = sadd(*mn, l);
        *mx = sadd(*mx, h);
    }
}

/* ---- the canonical form ---- */

/* Drops a term that is zero on the box and drops a modulus that cannot bite.
 * Returns 0 for a zero term. */
static int norm_term(const Ctx *c, ImTerm *t)
{
    if (t->coef == 0)
        return 0;
    if (t->var < 0)
        return 1;
    int64_t e = c->ext[t->var];
    /* An input of extent 1 is 0, but kept where it stands whole (n in
     * NCHW), so that maps read as written. */
    if (t->hi == t->lo || (e && t->lo >= e && t->lo > 1))
        return 0;
    if (e && t->hi && t->hi >= e)
        t->hi = 0;
    return 1;
}

static int cmp_i64(const void *a, const void *b)
{
    return cmp64(*(const int64_t *)a, *(const int64_t *)b);
}

/* Splits each digit run of input x at the places where other runs of x
 * start or end, when the places divide evenly. */
static int refine(Ctx *c, const TVec *in, TVec *out)
{
    int splits = 0;
    int64_t *pts = arena_array(c->a, (size_t)(2 * in->n + 1), sizeof *pts);
    for (int x = 0; x < c->n; x++) {
        int np = 0;
        for (int i = 0; i < in->n; i++)
            if (in->t[i].var == x) {
                pts[np++] = in->t[i].lo;
                if (in->t[i].hi)
                    pts[np++] = in->t[i].hi;
            }
        if (np == 0)
            continue;
        qsort(pts, (size_t)np, sizeof *pts, cmp_i64);
        for (int i = 0; i < in->n; i++) {
            ImTerm t = in->t[i];
            if (t.var != x)
                continue;
            for (int p = 0; p < np; p++) {
                int64_t m = pts[p];
                if (m <= t.lo || (t.hi && m >= t.hi) || m % t.lo || (t.hi && t.hi % m))
                    continue;
                ImTerm low = t;
                low.hi = m;
                if (norm_term(c, &low))
                    tv_push(c->a, out, low);
                t.coef = cmul(c, t.coef, m / t.lo);
                t.lo = m;
                splits++;
            }
            if (norm_term(c, &t))
                tv_push(c->a, out, t);
        }
    }
    for (int i = 0; i < in->n; i++)
        if (in->t[i].var < 0)
            tv_push(c->a, out, in->t[i]);
    return splits;
}

/* Sorts, adds equal terms, drops zeros. */
static void combine(Ctx *c, TVec *v)
{
    if (v->n == 0)
        return;
    qsort(v->t, (size_t)v->n, sizeof *v->t, cmp_term);
    int n = 0;
    for (int i = 0; i < v->n; i++) {
        if (n && cmp_key(&v->t[n - 1], &v->t[i]) == 0)
            v->t[n - 1].coef = cadd(c, v->t[n - 1].coef, v->t[i].coef);
        else
            v->t[n++] = v->t[i];
        if (v->t[n - 1].coef == 0)
            n--;
    }
    v->n = n;
}

/* Whether place m bounds a run of x other than runs i and j. */
static int is_boundary(const TVec *r, int x, int64_t m, int i, int j)
{
    for (int k = 0; k < r->n; k++)
        if (k != i && k != j && r->t[k].coef && r->t[k].var == x && (r->t[k].lo == m || r->t[k].hi == m))
            return 1;
    return 0;
}

/* Merges x[lo:m] * a + x[m:hi] * a*(m/lo) into x[lo:hi] * a, where m
 * bounds no other run of x. Returns the number of merges. */
static int merge(Ctx *c, TVec *r)
{
    int merges = 0;
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < r->n; i++)
            for (int j = 0; j < r->n; j++) {
                ImTerm *p = &r->t[i], *t = &r->t[j];
                int64_t step;
                if (i == j || !p->coef || !t->coef || p->var < 0 || p->var != t->var || !p->hi ||
                    p->hi != t->lo || __builtin_mul_overflow(p->coef, p->hi / p->lo, &step) ||
                    step != t->coef || is_boundary(r, p->var, p->hi, i, j))
                    continue;
                p->hi = t->hi;
                if (!norm_term(c, p))
                    p->coef = 0;
                t->coef = 0;     /* dropped by combine */
                again = 1;
                merges++;
            }
    }
    combine(c, r);
    return merges;
}

static const ImSum *canon(Ctx *c, const TVec *v, int64_t k)
{
    TVec r = { 0 };
    for (int i = 0; i < v->n; i++) {
        ImTerm t = v->t[i];
        if (norm_term(c, &t))
            tv_push(c->a, &r, t);
    }
    /* Refine runs at each other's places, add equal digits, merge runs that
     * continue each other; a merged run may be refined again by a run it
     * now contains, so repeat while anything changes (a few rounds). */
    for (int round = 0; round < 8; round++) {
        TVec w = { 0 };
        int splits = refine(c, &r, &w);
        combine(c, &w);
        int merges = merge(c, &w);
        r = w;
        if (round > 0 && !splits && !merges)
            break;
    }
    /* (S // d) * d * a + (S % d) * a is S * a. */
    for (int i = 0; i < r.n; i++)
        for (int j = 0; j < r.n; j++) {
            const ImTerm *q = &r.t[i], *m = &r.t[j];
            int64_t step;
            if (q->var >= 0 || m->var >= 0 || q->op != B_FLOORDIV || m->op != B_FLOORMOD || q->div != m->div ||
                __builtin_mul_overflow(m->coef, m->div, &step) || step != q->coef || !im_sum_equal(q->arg, m->arg))
                continue;
            TVec w2 = { 0 };
            for (int t = 0; t < r.n; t++)
                if (t != i && t != j)
                    tv_push(c->a, &w2, r.t[t]);
            for (int t = 0; t < m->arg->n; t++) {
                ImTerm u = m->arg->t[t];
                u.coef = cmul(c, u.coef, m->coef);
                tv_push(c->a, &w2, u);
            }
            return canon(c, &w2, cadd(c, k, cmul(c, m->arg->k, m->coef)));
        }
    ImSum *s = arena_zalloc(c->a, sizeof *s);
    s->k = k;
    s->n = r.n;
    s->t = r.t;
    return s;
}

static const ImSum *s_const(Ctx *c, int64_t k)
{
    ImSum *s = arena_zalloc(c->a, sizeof *s);
    s->k = k;
    return s;
}

static const ImSum *s_var(Ctx *c, int x)
{
    TVec v = { 0 };
    ImTerm t = { .coef = 1, .var = x, .lo = 1 };
    tv_push(c->a, &v, t);
    return canon(c, &v, 0);
}

/* ca * a + cb * b (b may be NULL). */
static const ImSum *s_lin(Ctx *c, const ImSum *a, int64_t ca, const ImSum *b, int64_t cb)
{
    TVec v = { 0 };
    int64_t k = cmul(c, a->k, ca);
    for (int i = 0; i < a->n; i++) {
        ImTerm t = a->t[i];
        t.coef = cmul(c, t.coef, ca);
        tv_push(c->a, &v, t);
    }
    if (b) {
        k = cadd(c, k, cmul(c, b->k, cb));
        for (int i = 0; i < b->n; i++) {
            ImTerm t = b->t[i];
            t.coef = cmul(c, t.coef, cb);
            tv_push(c->a, &v, t);
        }
    }
    return canon(c, &v, k);
}

static const ImSum *s_opaque(Ctx *c, const ImSum *arg, int64_t d, BinOp op)
{
    TVec v = { 0 };
    ImTerm t = { .coef = 1, .var = -1, .arg = arg, .div = d, .op = op };
    tv_push(c->a, &v, t);
    return canon(c, &v, 0);
}

/* s // d or s % d for a constant d > 0. */
static const ImSum *s_divmod(Ctx *c, const ImSum *s, int64_t d, BinOp op)
{
    if (d == 1)
        return op == B_FLOORDIV ? s : s_const(c, 0);
    /* Inputs of extent 1 are 0: they are kept whole, not divided. */
    for (int i = 0; i < s->n; i++)
        if (s->t[i].var >= 0 && c->ext[s->t[i].var] == 1) {
            TVec v = { 0 };
            for (int j = 0; j < s->n; j++)
                if (!(s->t[j].var >= 0 && c->ext[s->t[j].var] == 1))
                    tv_push(c->a, &v, s->t[j]);
            return s_divmod(c, canon(c, &v, s->k), d, op);
        }
    int64_t mn, mx;
    sum_bounds(c, s, &mn, &mx);
    if (mn > -BIG && mx < BIG && floordiv64(mn, d) == floordiv64(mx, d)) {
        int64_t q = floordiv64(mn, d);
        if (op == B_FLOORDIV)
            return s_const(c, q);
        return s_lin(c, s, 1, s_const(c, cmul(c, q, d)), -1);
    }
    for (int i = 0; i < s->n; i++)
        if (s->t[i].coef < 0)
            return s_opaque(c, s, d, op);
    /* s = d * h + r, with every coefficient of r and its constant in [0, d). */
    TVec hv = { 0 }, v = { 0 };
    for (int i = 0; i < s->n; i++) {
        ImTerm t = s->t[i];
        if (t.coef >= d) {
            ImTerm u = t;
            u.coef = t.coef / d;
            tv_push(c->a, &hv, u);
        }
        t.coef %= d;
        if (t.coef)
            tv_push(c->a, &v, t);
    }
    const ImSum *h = canon(c, &hv, floordiv64(s->k, d));
    const ImSum *r = canon(c, &v, floormod64(s->k, d));
    if (hv.n || r->k != s->k) {
        /* Taken only when the rest resolves: (x * 6 + 150) % 5 is x % 5, but
         * (a * 3 + b) // 2 stays whole rather than a + (a + b) // 2. */
        const ImSum *rd = s_divmod(c, r, d, op);
        for (int i = 0; i < rd->n; i++)
            if (rd->t[i].var < 0)
                return s_opaque(c, s, d, op);
        return op == B_FLOORDIV ? s_lin(c, h, 1, rd, 1) : rd;
    }
    sum_bounds(c, r, &mn, &mx);
    if (mn >= 0 && mx < d)
        return op == B_FLOORDIV ? s_const(c, 0) : r;
    for (int i = 0; i < r->n; i++)
        if (r->t[i].var < 0)
            return s_opaque(c, r, d, op);
    /* Split digit runs until the low part stays below d. */
    int64_t k = r->k;
    v.n = 0;
    for (int i = 0; i < r->n; i++)
        tv_push(c->a, &v, r->t[i]);
    for (;;) {
        int64_t low = k;
        for (int i = 0; i < v.n; i++)
            if (v.t[i].coef % d)
                low = sadd(low, smul(v.t[i].coef, digit_max(c, &v.t[i])));
        if (low < d)
            break;
        int split = -1;
        int64_t m = 0;
        for (int i = 0; i < v.n && split < 0; i++) {
            ImTerm *t = &v.t[i];
            if (t->coef % d == 0 || d % t->coef)
                continue;
            if (__builtin_mul_overflow(t->lo, d / t->coef, &m) || m > BIG)
                continue;
            if (t->hi == 0 || (m < t->hi && t->hi % m == 0))
                split = i;
        }
        if (split < 0)
            return s_opaque(c, r, d, op);
        ImTerm high = v.t[split];
        v.t[split].hi = m;
        high.lo = m;
        high.coef = d;
        if (norm_term(c, &high))
            tv_push(c->a, &v, high);
    }
    TVec part = { 0 };
    for (int i = 0; i < v.n; i++) {
        ImTerm t = v.t[i];
        if ((t.coef % d == 0) == (op == B_FLOORDIV)) {
            if (op == B_FLOORDIV)
                t.coef /= d;
            tv_push(c->a, &part, t);
        }
    }
    return canon(c, &part, op == B_FLOORDIV ? 0 : k);
}

/* The value of s with each input x replaced by env[x]. */
static const ImSum *subst(Ctx *c, const ImSum *s, const ImSum *const *env)
{
    const ImSum *r = s_const(c, s->k);
    for (int i = 0; i < s->n; i++) {
        const ImTerm *t = &s->t[i];
        const ImSum *e;
        if (t->var >= 0) {
            e = env[t->var];
            if (t->lo > 1)
                e = s_divmod(c, e, t->lo, B_FLOORDIV);
            if (t->hi)
                e = s_divmod(c, e, t->hi / t->lo, B_FLOORMOD);
        } else {
            e = s_divmod(c, subst(c, t->arg, env), t->div, t->op);
        }
        r = s_lin(c, r, 1, e, t->coef);
    }
    return r;
}

/* ---- evaluation ---- */

int64_t im_eval_sum(const ImSum *s, const int64_t *in)
{
    int64_t r = s->k;
    for (int i = 0; i < s->n; i++) {
        const ImTerm *t = &s->t[i];
        int64_t v;
        if (t->var >= 0) {
            v = floordiv64(in[t->var], t->lo);
            if (t->hi)
                v = floormod64(v, t->hi / t->lo);
        } else {
            v = im_eval_sum(t->arg, in);
            v = t->op == B_FLOORDIV ? floordiv64(v, t->div) : floormod64(v, t->div);
        }
        r = wadd(r, wmul(t->coef, v));
    }
    return r;
}

void im_apply(const IndexMap *m, const int64_t *in, int64_t *out)
{
    for (int k = 0; k < m->nout; k++)
        out[k] = im_eval_sum(m->out[k], in);
}

/* Whether s reads input v other than as a plain coef * v term. */
static int reads_var_nonlinearly(const ImSum *s, int v)
{
    for (int i = 0; i < s->n; i++) {
        const ImTerm *t = &s->t[i];
        if (t->var == v ? t->lo != 1 || t->hi != 0 : t->var < 0 && im_sum_reads(t->arg, v))
            return 1;
    }
    return 0;
}

int im_sum_reads(const ImSum *s, int v)
{
    for (int i = 0; i < s->n; i++)
        if (s->t[i].var == v || (s->t[i].var < 0 && im_sum_reads(s->t[i].arg, v)))
            return 1;
    return 0;
}

/* The change of the row-major offset in m->obox of m's image when input v
 * grows by one, in *step; 0 when that change is the same everywhere (v
 * enters every output as a plain coef * v), else -1. */
static int offset_step(const IndexMap *m, int v, int64_t *step)
{
    int64_t s = 0, stride = 1;
    for (int k = m->nout - 1; k >= 0; k--) {
        if (reads_var_nonlinearly(m->out[k], v))
            return -1;
        int64_t c = 0;
        for (int i = 0; i < m->out[k]->n; i++)
            if (m->out[k]->t[i].var == v)
                c = wadd(c, m->out[k]->t[i].coef);
        s = wadd(s, wmul(c, stride));
        stride = wmul(stride, m->obox[k]);
    }
    *step = s;
    return 0;
}

void im_move(const IndexMap *m, const void *src, void *dst, size_t size)
{
    /* the inputs from `inner` on move the image by a constant step each:
     * m is evaluated once per point of the outer ones, the rest is a walk */
    int64_t step[IM_MAX_RANK];
    int inner = m->nin;
    while (inner > 0 && offset_step(m, inner - 1, &step[inner - 1]) == 0)
        inner--;
    int64_t idx[IM_MAX_RANK] = { 0 }, y[IM_MAX_RANK];
    int64_t count = 1;
    for (int d = 0; d < m->nin; d++)
        count *= m->box[d];
    const char *from = src;
    char *to = dst;
    for (int64_t i = 0; i < count;) {
        im_apply(m, idx, y);
        int64_t off = 0;
        for (int k = 0; k < m->nout; k++)
            off = off * m->obox[k] + y[k];
        /* the walk over inputs inner.. from idx (all zero there) */
        do {
            switch (size) {   /* a copy of constant length is a move */
            case 4: memcpy(to + off * 4, from + i * 4, 4); break;
            case 8: memcpy(to + off * 8, from + i * 8, 8); break;
            case 2: memcpy(to + off * 2, from + i * 2, 2); break;
            default: memcpy(to + off * (int64_t)size, from + i * (int64_t)size, size); break;
            }
            i++;
            int d = m->nin - 1;
            for (; d >= inner && ++idx[d] == m->box[d]; d--) {
                idx[d] = 0;
                off -= (m->box[d] - 1) * step[d];
            }
            if (d < inner) {
                for (; d >= 0 && ++idx[d] == m->box[d]; d--)
                    idx[d] = 0;
                break;
            }
            off += step[d];
        } while (i < count);
    }
}

/* ---- reading a map ---- */

static void set_err(ImError *err, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static void set_err(ImError *err, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->loc = loc;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

static int is_const(const ImSum *s)
{
    return s->n == 0;
}

static const ImSum *lower_bin(Ctx *c, BinOp op, const Expr *x, const Expr *y, Loc loc, const Expr *map,
                              const ImSum *const *env, ImError *err);

/* Whether e is T.floordiv(a, b) or T.floormod(a, b), TVMScript's spellings
 * of a // b and a % b (which TVM prints where the operands are not both
 * int32); *op gets the operator. */
static int floor_call(const Expr *e, BinOp *op)
{
    if (e->kind != E_CALL || e->u.call.nargs != 2)
        return 0;
    if (strcmp(e->u.call.op->str, "T.floordiv") == 0)
        return *op = B_FLOORDIV, 1;
    if (strcmp(e->u.call.op->str, "T.floormod") == 0)
        return *op = B_FLOORMOD, 1;
    return 0;
}

static const ImSum *lower(Ctx *c, const Expr *e, const Expr *map, const ImSum *const *env, ImError *err)
{
    switch (e->kind) {
    case E_INT:
        if (e->u.i.v > BIG || e->u.i.v < -BIG)
            return set_err(err, e->loc, "index map constant %lld is too large", (long long)e->u.i.v), NULL;
        return s_const(c, e->u.i.v);
    case E_VAR:
        for (int i = 0; i < map->u.map.nparams; i++)
            if (map->u.map.params[i] == e->u.var)
                return env[i];
        return set_err(err, e->loc, "'%s' is not a parameter of the index map; a symbol such as a shape "
                       "variable is read only by transform-layout and transform-block-layout", e->u.var->name->str), NULL;
    case E_UNARY:
        if (e->u.un.op == U_NEG) {
            const ImSum *a = lower(c, e->u.un.a, map, env, err);
            return a ? s_lin(c, a, -1, NULL, 0) : NULL;
        }
        break;
    case E_CALL: {
        BinOp op;
        if (floor_call(e, &op))
            return lower_bin(c, op, e->u.call.args[0], e->u.call.args[1], e->loc, map, env, err);
        break;
    }
    case E_BIN: {
        BinOp op = e->u.bin.op;
        if (op == B_DIV)
            return set_err(err, e->loc, "index maps divide with // (floor division), not /"), NULL;
        if (op != B_ADD && op != B_SUB && op != B_MUL && op != B_FLOORDIV && op != B_FLOORMOD)
            break;
        return lower_bin(c, op, e->u.bin.a, e->u.bin.b, e->loc, map, env, err);
    }
    default:
        break;
    }
    return set_err(err, e->loc, "index maps are built from indices, integer constants, +, -, *, // and %%"), NULL;
}

/* x OP y for OP one of +, -, *, // and %. */
static const ImSum *lower_bin(Ctx *c, BinOp op, const Expr *x, const Expr *y, Loc loc, const Expr *map,
                              const ImSum *const *env, ImError *err)
{
    const ImSum *a = lower(c, x, map, env, err);
    const ImSum *b = a ? lower(c, y, map, env, err) : NULL;
    if (!b)
        return NULL;
    if (op == B_ADD || op == B_SUB)
        return s_lin(c, a, 1, b, op == B_ADD ? 1 : -1);
    if (op == B_MUL) {
        if (is_const(a))
            return s_lin(c, b, a->k, NULL, 0);
        if (is_const(b))
            return s_lin(c, a, b->k, NULL, 0);
        return set_err(err, loc, "index map is not affine: a product of two indices"), NULL;
    }
    if (!is_const(b))
        return set_err(err, loc, "index map divides by an index; divisors must be constants"), NULL;
    if (b->k <= 0)
        return set_err(err, loc, "index map divides by %lld; divisors must be positive", (long long)b->k), NULL;
    return s_divmod(c, a, b->k, op);
}

static int lower_all(Ctx *c, const Expr *map, const ImSum **out, ImError *err)
{
    const ImSum **env = arena_array(c->a, (size_t)c->n + 1, sizeof *env);
    for (int i = 0; i < c->n; i++)
        env[i] = s_var(c, i);
    for (int k = 0; k < map->u.map.nout; k++) {
        out[k] = lower(c, map->u.map.out[k], map, env, err);
        if (!out[k])
            return -1;
        if (c->overflow) {
            set_err(err, map->u.map.out[k]->loc, "index map arithmetic overflows 2^60");
            return -1;
        }
    }
    return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The places at which each input is split, as the lcm of the places. */
static void places(const ImSum *s, int64_t *lcm)
{
    for (int i = 0; i < s->n; i++) {
        const ImTerm *t = &s->t[i];
        if (t->var < 0) {
            places(t->arg, lcm);
            continue;
        }
        int64_t p[2] = { t->lo, t->hi };
        for (int j = 0; j < 2; j++) {
            int64_t l = lcm[t->var], r;
            if (p[j] <= 1 || __builtin_mul_overflow(l / gcd64(l, p[j]), p[j], &r) || r > (INT64_C(1) << 40))
                continue;
            lcm[t->var] = r;
        }
    }
}

/* The names of a map's outputs, i0, i1, ...: the first IM_MAX_RANK are
 * shared (no one interns or binds them; the array is the map's own), since
 * a map read again from the memo otherwise printed them anew each time. */
static Sym *output_names[IM_MAX_RANK];
static pthread_once_t output_names_once = PTHREAD_ONCE_INIT;

/* Made once for the process (threads may read maps at once), never freed. */
static void make_output_names(void)
{
    for (int i = 0; i < IM_MAX_RANK; i++) {
        Sym *s = xcalloc(1, sizeof *s + 4);
        if (!s)
            oom_fail();
        s->len = (uint32_t)snprintf(s->str, 4, "i%d", i);
        output_names[i] = s;
    }
}

static Sym **default_names(Arena *a, int n, const char *prefix)
{
    Sym **s = arena_array(a, (size_t)n + 1, sizeof *s);
    for (int i = 0; i < n; i++) {
        if (i < IM_MAX_RANK && strcmp(prefix, "i") == 0) {
            pthread_once(&output_names_once, make_output_names);
            s[i] = output_names[i];
            continue;
        }
        char buf[32];
        int len = snprintf(buf, sizeof buf, "%s%d", prefix, i);
        s[i] = sym_new(a, buf, (size_t)len);
    }
    return s;
}

/* ---- the normal forms already computed ----
 *
 * A model repeats its maps: every binding of a chain flows the same NCHW4c
 * rewrite. im_from_expr keeps the normal form of each map it has read
 * successfully, keyed by the map's text with its parameters numbered (so
 * lambda n, c: ... and lambda a, b: ... of the same shape are one) and the
 * box, and answers a repeat from it. The sums are immutable (const), so the
 * kept ones are shared; the cache lives as long as the process and stops
 * growing at MEMO_MAX entries. It is the library's one state shared by its
 * handles: a pure function's answers, behind a lock, so no result depends
 * on what another thread or module did. */

enum { MEMO_SLOTS = 4096, MEMO_MAX = 1 << 16, KEY_MAX = 512 };

typedef struct MemoMap {
    struct MemoMap *next;
    uint64_t hash;
    int nkey;
    int64_t *key;
    int nin, nout;
    int64_t *obox;
    const ImSum **out;
} MemoMap;

static struct {
    MemoMap *slot[MEMO_SLOTS];
    int count;
    Arena arena;
    pthread_mutex_t lock;   /* modules read on several threads share the cache */
} memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The map and box as integers: tokens of the expression in prefix order,
 * parameters by position. Returns the length, or -1 when it does not fit. */
static int key_expr(const Expr *e, const Expr *map, int64_t *k, int n)
{
    if (n + 3 > KEY_MAX)
        return -1;
    switch (e->kind) {
    case E_INT:
        k[n++] = 1;
        k[n++] = e->u.i.v;
        return n;
    case E_VAR:
        for (int i = 0; i < map->u.map.nparams; i++)
            if (map->u.map.params[i] == e->u.var) {
                k[n++] = 2;
                k[n++] = i;
                return n;
            }
        return -1;
    case E_UNARY:
        k[n++] = 3;
        k[n++] = e->u.un.op;
        return key_expr(e->u.un.a, map, k, n);
    case E_BIN:
        k[n++] = 4;
        k[n++] = e->u.bin.op;
        n = key_expr(e->u.bin.a, map, k, n);
        return n < 0 ? -1 : key_expr(e->u.bin.b, map, k, n);
    default:
        return -1;
    }
}

static int map_key(const Expr *map, const int64_t *box, int64_t *k)
{
    int n = 0, nin = map->u.map.nparams;
    if (nin + 2 > KEY_MAX)
        return -1;
    k[n++] = nin;
    for (int i = 0; i < nin; i++)
        k[n++] = box[i];
    k[n++] = map->u.map.nout;
    for (int q = 0; q < map->u.map.nout && n >= 0; q++)
        n = key_expr(map->u.map.out[q], map, k, n);
    return n;
}

static uint64_t key_hash(const int64_t *k, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)k[i]) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

static const ImSum *sum_copy(Arena *a, const ImSum *s)
{
    ImSum *c = arena_alloc(a, sizeof *c);
    ImTerm *t = arena_array(a, (size_t)s->n + 1, sizeof *t);
    for (int i = 0; i < s->n; i++) {
        t[i] = s->t[i];
        if (t[i].arg)
            t[i].arg = sum_copy(a, t[i].arg);
    }
    c->k = s->k;
    c->n = s->n;
    c->t = t;
    return c;
}

static IndexMap *from_expr(Arena *a, const Expr *map, const int64_t *box, ImError *err);
static void memo_keep(const IndexMap *m, const int64_t *key, int nk, uint64_t h);

IndexMap *im_from_expr(Arena *a, const Expr *map, const int64_t *box, ImError *err)
{
    int64_t key[KEY_MAX];
    int nin = map->u.map.nparams, nout = map->u.map.nout;
    int nk = nin <= IM_MAX_RANK && nout <= IM_MAX_RANK ? map_key(map, box, key) : -1;
    if (nk < 0)
        return from_expr(a, map, box, err);
    uint64_t h = key_hash(key, nk);
    pthread_mutex_lock(&memo.lock);
    MemoMap *e = memo.slot[h % MEMO_SLOTS];
    while (e && (e->hash != h || e->nkey != nk || memcmp(e->key, key, (size_t)nk * sizeof *key)))
        e = e->next;
    pthread_mutex_unlock(&memo.lock);
    if (e) {
        IndexMap *m = arena_zalloc(a, sizeof *m);
        m->nin = nin;
        m->nout = nout;
        m->box = arena_array(a, (size_t)nin + 1, sizeof *m->box);
        memcpy(m->box, box, (size_t)nin * sizeof *box);
        m->obox = arena_array(a, (size_t)nout + 1, sizeof *m->obox);
        memcpy(m->obox, e->obox, (size_t)nout * sizeof *m->obox);
        m->out = arena_array(a, (size_t)nout + 1, sizeof *m->out);
        memcpy(m->out, e->out, (size_t)nout * sizeof *m->out);
        m->in_names = arena_array(a, (size_t)nin + 1, sizeof *m->in_names);
        for (int i = 0; i < nin; i++)
            m->in_names[i] = map->u.map.params[i]->name;
        m->out_names = default_names(a, nout, "i");
        return m;
    }
    IndexMap *m = from_expr(a, map, box, err);
    if (m)
        memo_keep(m, key, nk, h);
    return m;
}

/* Keeps m's normal form under key (another thread may have kept it first:
 * then there are two equal entries, and the first found answers). */
static void memo_keep(const IndexMap *m, const int64_t *key, int nk, uint64_t h)
{
    int nin = m->nin, nout = m->nout;
    pthread_mutex_lock(&memo.lock);
    if (memo.count >= MEMO_MAX) {
        pthread_mutex_unlock(&memo.lock);
        return;
    }
    MemoMap *e = arena_zalloc(&memo.arena, sizeof *e);
    e->hash = h;
    e->nkey = nk;
    e->key = arena_array(&memo.arena, (size_t)nk, sizeof *e->key);
    memcpy(e->key, key, (size_t)nk * sizeof *key);
    e->nin = nin;
    e->nout = nout;
    e->obox = arena_array(&memo.arena, (size_t)nout + 1, sizeof *e->obox);
    memcpy(e->obox, m->obox, (size_t)nout * sizeof *e->obox);
    e->out = arena_array(&memo.arena, (size_t)nout + 1, sizeof *e->out);
    for (int q = 0; q < nout; q++)
        e->out[q] = sum_copy(&memo.arena, m->out[q]);
    e->next = memo.slot[h % MEMO_SLOTS];
    memo.slot[h % MEMO_SLOTS] = e;
    memo.count++;
    pthread_mutex_unlock(&memo.lock);
}

static IndexMap *from_expr(Arena *a, const Expr *map, const int64_t *box, ImError *err)
{
    int nin = map->u.map.nparams, nout = map->u.map.nout;
    if (nin > IM_MAX_RANK || nout > IM_MAX_RANK)
        return set_err(err, map->loc, "index maps have at most %d inputs and outputs", IM_MAX_RANK), NULL;
    for (int i = 0; i < nin; i++)
        if (box[i] < 1 || box[i] > BIG)
            return set_err(err, map->loc, "index map extent %lld of '%s' must be between 1 and 2^60",
                           (long long)box[i], map->u.map.params[i]->name->str), NULL;
    IndexMap *m = arena_zalloc(a, sizeof *m);
    m->nin = nin;
    m->nout = nout;
    m->box = arena_array(a, (size_t)nin + 1, sizeof *m->box);
    memcpy(m->box, box, (size_t)nin * sizeof *box);
    m->obox = arena_array(a, (size_t)nout + 1, sizeof *m->obox);
    m->out = arena_array(a, (size_t)nout + 1, sizeof *m->out);
    m->in_names = arena_array(a, (size_t)nin + 1, sizeof *m->in_names);
    for (int i = 0; i < nin; i++)
        m->in_names[i] = map->u.map.params[i]->name;
    m->out_names = default_names(a, nout, "i");

    /* 1: unbounded inputs, to learn where each is split. 2: each input padded
     * up to a multiple of its places, for the output box (c % 4 spans 4 even
     * when c < 3). 3: the box itself, for the normal form. */
    int64_t *unb = arena_zalloc(a, ((size_t)nin + 1) * sizeof *unb);
    int64_t *lcm = arena_array(a, (size_t)nin + 1, sizeof *lcm);
    int64_t *pad = arena_array(a, (size_t)nin + 1, sizeof *pad);
    for (int i = 0; i < nin; i++)
        lcm[i] = 1;
    Ctx c = { a, nin, unb, 0 };
    if (lower_all(&c, map, m->out, err))
        return NULL;
    for (int k = 0; k < nout; k++)
        places(m->out[k], lcm);
    for (int i = 0; i < nin; i++)
        pad[i] = (box[i] + lcm[i] - 1) / lcm[i] * lcm[i];
    c.ext = pad;
    if (lower_all(&c, map, m->out, err))
        return NULL;
    for (int k = 0; k < nout; k++) {
        int64_t mn, mx;
        sum_bounds(&c, m->out[k], &mn, &mx);
        if (mx >= BIG - 1)
            return set_err(err, map->u.map.out[k]->loc, "this output of the index map is unbounded"), NULL;
        m->obox[k] = mx < 0 ? 1 : mx + 1;
    }
    c.ext = m->box;
    if (lower_all(&c, map, m->out, err))
        return NULL;
    for (int k = 0; k < nout; k++) {
        int64_t mn, mx;
        sum_bounds(&c, m->out[k], &mn, &mx);
        if (mn < 0)
            return set_err(err, map->u.map.out[k]->loc,
                           "this output of the index map can be negative (down to %lld on the box)",
                           (long long)mn), NULL;
    }
    return m;
}

/* ---- identity, classification ---- */

/* Whether a and b are equal, up to the inputs of extent 1 (which are 0). */
static int same_value(const int64_t *ext, const ImSum *a, const ImSum *b)
{
    if (a->k != b->k)
        return 0;
    int i = 0, j = 0;
    for (;;) {
        while (i < a->n && a->t[i].var >= 0 && ext[a->t[i].var] == 1)
            i++;
        while (j < b->n && b->t[j].var >= 0 && ext[b->t[j].var] == 1)
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (cmp_term(&a->t[i], &b->t[j]) != 0)
            return 0;
        i++;
        j++;
    }
}

static int64_t volume(const int64_t *ext, int n);
static void unrank(int64_t r, const int64_t *ext, int n, int64_t *x);
enum { ENUM_LIMIT = 1 << 20 };

int im_is_identity(const IndexMap *m)
{
    if (m->nin != m->nout)
        return 0;
    for (int i = 0; i < m->nin; i++)
        if (m->box[i] != m->obox[i])
            return 0;
    int proved = 1;
    for (int i = 0; i < m->nin && proved; i++) {
        ImTerm whole = { .coef = 1, .var = i, .lo = 1 };
        ImSum x = { 0, m->box[i] > 1, &whole };
        proved = same_value(m->box, m->out[i], &x);
    }
    if (proved)
        return 1;
    /* The normal form misses identities that hold by coincidence of the
     * bounds, (x + 1) // 2 for x < 2; small boxes are enumerated. */
    int64_t vol = volume(m->box, m->nin), x[IM_MAX_RANK], y[IM_MAX_RANK];
    if (vol > ENUM_LIMIT)
        return 0;
    for (int64_t r = 0; r < vol; r++) {
        unrank(r, m->box, m->nin, x);
        im_apply(m, x, y);
        if (memcmp(x, y, (size_t)m->nin * sizeof *x) != 0)
            return 0;
    }
    return 1;
}

/* The digit view of a map in the digit class. Every output is a sum, with
 * positive coefficients, of distinct elementary digits of the inputs and of
 * fused iterators: a floordiv or floormod of k0 * a + k1 * b + ... whose
 * digits form one mixed-radix number (a * 6 + b with b < 6), standing for
 * that number. An input inside a fused iterator is used nowhere else. */
typedef struct Piece {
    int64_t coef;
    int var;               /* an input, or nin + f for the fused iterator f */
    int64_t lo, hi, range; /* range: the number of values the digit takes */
    int owner;             /* output k, or nout + f for the digits of fused iterator f */
} Piece;

enum { MAX_VARS = 2 * IM_MAX_RANK };

typedef struct Digits {
    int nin, nout, nv;
    int64_t ext[MAX_VARS];
    const ImSum *fused[MAX_VARS];
    int infuse[IM_MAX_RANK];   /* the fused iterator holding an input, or -1 */
    Piece *p[MAX_VARS];        /* per owner, sorted by coefficient */
    int np[MAX_VARS];
    int64_t *pts[MAX_VARS];    /* per variable: its places, ascending, from 1 */
    int npts[MAX_VARS];
} Digits;

static int cmp_piece(const void *pa, const void *pb)
{
    const Piece *a = pa, *b = pb;
    return cmp64(a->coef, b->coef);
}

static void digits_free(Digits *d)
{
    for (int i = 0; i < MAX_VARS; i++) {
        free(d->p[i]);
        free(d->pts[i]);
    }
}

/* Refines the raw runs of variable v at all of v's places into elementary
 * digits, appended to their owners. Returns -1 when a run does not divide. */
static int refine_var(Digits *d, const Piece *raw, int nraw, int v)
{
    int64_t *p = d->pts[v] = xcalloc((size_t)(2 * nraw + 1), sizeof *p);
    int n = 0;
    p[n++] = 1;
    for (int i = 0; i < nraw; i++)
        if (raw[i].var == v) {
            p[n++] = raw[i].lo;
            if (raw[i].hi)
                p[n++] = raw[i].hi;
        }
    qsort(p, (size_t)n, sizeof *p, cmp_i64);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!u || p[u - 1] != p[i])
            p[u++] = p[i];
    d->npts[v] = u;
    int64_t e = d->ext[v];
    for (int i = 0; i < nraw; i++) {
        const Piece *t = &raw[i];
        if (t->var != v)
            continue;
        int j = 0;
        while (p[j] != t->lo)
            j++;
        int64_t coef = t->coef;
        for (;;) {
            int64_t lo = p[j], hi = j + 1 < u ? p[j + 1] : 0;
            if ((hi && hi % lo) || (t->hi && !hi))
                return -1;
            int64_t range = (e - 1) / lo + 1;
            if (hi && hi / lo < range)
                range = hi / lo;
            if (range > 1)  /* an input of extent 1 has no digits */
                d->p[t->owner][d->np[t->owner]++] = (Piece){ coef, v, lo, hi, range, t->owner };
            if (hi == t->hi)
                break;
            if (__builtin_mul_overflow(coef, hi / lo, &coef))
                return -1;
            j++;
        }
    }
    return 0;
}

/* Returns 0 and fills d when the map is in the digit class. */
static int digits_body(const IndexMap *m, Digits *d);

static void digits_free_v(void *d)
{
    digits_free(d);
}

/* d's arrays are set each once it exists: an allocation failing below frees
 * what is built and unwinds on, the caller's d left empty. */
static int digits(const IndexMap *m, Digits *d)
{
    memset(d, 0, sizeof *d);
    OomGuard guard;
    if (OOM_ENTER(&guard)) {
        digits_free(d);
        memset(d, 0, sizeof *d);
        oom_fail();
    }
    int r = digits_body(m, d);
    oom_leave(&guard);
    oom_defer(digits_free_v, d);   /* the caller's until digits_done */
    return r;
}

static void digits_done(Digits *d)
{
    oom_keep(d);
    digits_free(d);
}

static int digits_body(const IndexMap *m, Digits *d)
{
    memset(d, 0, sizeof *d);
    d->nin = d->nv = m->nin;
    d->nout = m->nout;
    for (int x = 0; x < m->nin; x++) {
        d->ext[x] = m->box[x];
        d->infuse[x] = -1;
    }
    int total = 0;
    for (int k = 0; k < m->nout; k++)
        for (int i = 0; i < m->out[k]->n; i++) {
            const ImTerm *t = &m->out[k]->t[i];
            total += 1 + (t->var < 0 ? t->arg->n : 0);
        }
    Piece *raw = xcalloc((size_t)total, sizeof *raw);
    oom_defer(free, raw);
    int nraw = 0, fail = 0;
    for (int k = 0; k < m->nout && !fail; k++)
        for (int i = 0; i < m->out[k]->n && !fail; i++) {
            const ImTerm *t = &m->out[k]->t[i];
            if (t->coef <= 0) {
                fail = 1;
                break;
            }
            if (t->var >= 0) {
                raw[nraw++] = (Piece){ t->coef, t->var, t->lo, t->hi, 0, k };
                continue;
            }
            const ImSum *arg = t->arg;
            int v = m->nin;
            while (v < d->nv && !im_sum_equal(d->fused[v], arg))
                v++;
            if (v == d->nv) {
                if (arg->k != 0 || arg->n == 0 || d->nv == MAX_VARS) {
                    fail = 1;
                    break;
                }
                d->fused[d->nv++] = arg;
                for (int j = 0; j < arg->n; j++) {
                    const ImTerm *u = &arg->t[j];
                    if (u->var < 0 || u->coef <= 0 || (d->infuse[u->var] >= 0 && d->infuse[u->var] != v)) {
                        fail = 1;
                        break;
                    }
                    d->infuse[u->var] = v;
                    raw[nraw++] = (Piece){ u->coef, u->var, u->lo, u->hi, 0, m->nout + v - m->nin };
                }
            }
            raw[nraw++] = t->op == B_FLOORDIV ? (Piece){ t->coef, v, t->div, 0, 0, k } :
                                                (Piece){ t->coef, v, 1, t->div, 0, k };
        }
    for (int i = 0; i < nraw && !fail; i++)
        if (raw[i].owner < m->nout && raw[i].var < m->nin && d->infuse[raw[i].var] >= 0)
            fail = 1;
    for (int o = 0; o < m->nout + d->nv - m->nin && !fail; o++)
        d->p[o] = xcalloc((size_t)(nraw * (2 * nraw + 1)), sizeof(Piece));
    for (int x = 0; x < m->nin && !fail; x++)
        fail = refine_var(d, raw, nraw, x) != 0;
    /* A fused iterator is one mixed-radix number over whole digits. */
    for (int v = m->nin; v < d->nv && !fail; v++) {
        int o = m->nout + v - m->nin;
        Piece *pc = d->p[o];
        qsort(pc, (size_t)d->np[o], sizeof *pc, cmp_piece);
        int64_t next = 1;
        for (int i = 0; i < d->np[o] && !fail; i++) {
            if (pc[i].coef != next || (pc[i].hi == 0 && pc[i].lo * pc[i].range != m->box[pc[i].var]) ||
                __builtin_mul_overflow(next, pc[i].range, &next))
                fail = 1;
        }
        d->ext[v] = next;
    }
    for (int v = m->nin; v < d->nv && !fail; v++)
        fail = refine_var(d, raw, nraw, v) != 0;
    oom_keep(raw);
    free(raw);
    /* In each output, every coefficient divides the next and exceeds the
     * largest value of the digits below it, so that each digit is read back
     * as (y // coef) % (next / coef). */
    for (int k = 0; k < m->nout && !fail; k++) {
        Piece *pc = d->p[k];
        int n = d->np[k];
        qsort(pc, (size_t)n, sizeof *pc, cmp_piece);
        int64_t low = 0;
        for (int i = 0; i + 1 < n && !fail; i++) {
            low = sadd(low, smul(pc[i].coef, pc[i].range - 1));
            if (pc[i + 1].coef % pc[i].coef || pc[i + 1].coef <= low)
                fail = 1;
        }
    }
    return fail ? -1 : 0;
}

/* Whether the digit of v at place lo is read: by an output, or by the fused
 * iterator that holds v. */
static int digit_used(const Digits *d, int v, int64_t lo)
{
    int first = 0, last = d->nout;
    if (v < d->nin && d->infuse[v] >= 0)
        first = last = d->nout + d->infuse[v] - d->nin, last++;
    for (int o = first; o < last; o++)
        for (int i = 0; i < d->np[o]; i++)
            if (d->p[o][i].var == v && d->p[o][i].lo == lo)
                return 1;
    return 0;
}

/* The inputs at which variable v is lo and every other digit is 0. */
static void point_at(const Digits *d, int v, int64_t lo, int64_t *x)
{
    memset(x, 0, (size_t)d->nin * sizeof *x);
    if (v < d->nin) {
        x[v] = lo;
        return;
    }
    int o = d->nout + v - d->nin;
    for (int i = 0; i < d->np[o]; i++) {
        const Piece *pc = &d->p[o][i];
        x[pc->var] += (lo / pc->coef) % pc->range * pc->lo;
    }
}

static int64_t volume(const int64_t *ext, int n);

static ImKind onto(const IndexMap *m);

ImKind im_classify_symbolic(const IndexMap *m, int64_t *wa, int64_t *wb)
{
    Digits d;
    if (digits(m, &d)) {
        digits_done(&d);
        return IM_UNKNOWN;
    }
    ImKind kind = IM_UNKNOWN;
    int doubt = 0;
    for (int v = 0; v < d.nv && kind == IM_UNKNOWN && !doubt; v++)
        for (int j = 0; j < d.npts[v]; j++) {
            int64_t lo = d.pts[v][j];
            if (lo >= d.ext[v] || digit_used(&d, v, lo))
                continue;
            /* Two points that differ only in a digit nothing reads. */
            int64_t a[IM_MAX_RANK], b[IM_MAX_RANK], ya[IM_MAX_RANK], yb[IM_MAX_RANK];
            point_at(&d, v, 0, a);
            point_at(&d, v, lo, b);
            im_apply(m, a, ya);
            im_apply(m, b, yb);
            if (memcmp(ya, yb, (size_t)m->nout * sizeof *ya) != 0) {
                doubt = 1; /* cannot happen; stay undecided rather than claim it */
                break;
            }
            if (wa && wb) {
                memcpy(wa, a, (size_t)m->nin * sizeof *a);
                memcpy(wb, b, (size_t)m->nin * sizeof *b);
            }
            kind = IM_NOT_INJECTIVE;
            break;
        }
    digits_done(&d);
    return doubt ? IM_UNKNOWN : kind == IM_UNKNOWN ? onto(m) : kind;
}

static int64_t volume(const int64_t *ext, int n)
{
    int64_t v = 1;
    for (int i = 0; i < n; i++)
        v = smul(v, ext[i]);
    return v;
}

static ImKind onto(const IndexMap *m)
{
    int64_t a = volume(m->box, m->nin), b = volume(m->obox, m->nout);
    return a == b && a < BIG ? IM_BIJECTIVE : IM_PADDED;
}

/* Enumeration, for maps outside the digit class on small boxes. */

static uint64_t hash_point(const int64_t *y, int n)
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)y[i];
        h *= 1099511628211u;
        h ^= h >> 29;
    }
    return h;
}

static void unrank(int64_t r, const int64_t *ext, int n, int64_t *x)
{
    for (int i = n - 1; i >= 0; i--) {
        x[i] = r % ext[i];
        r /= ext[i];
    }
}

static ImKind enumerate(const IndexMap *m, int64_t *wa, int64_t *wb)
{
    int64_t vol = volume(m->box, m->nin);
    if (vol > ENUM_LIMIT || vol * (m->nout + 1) > 4 * ENUM_LIMIT)
        return IM_UNKNOWN;
    size_t cap = 1;
    while (cap < (size_t)vol * 2)
        cap *= 2;
    int64_t *slot = xcalloc(cap, sizeof *slot);       /* 1 + input rank, 0: empty */
    int64_t *ys = xcalloc((size_t)vol * (size_t)(m->nout + 1), sizeof *ys);
    int64_t x[IM_MAX_RANK];
    ImKind kind = IM_UNKNOWN;
    for (int64_t r = 0; r < vol && kind == IM_UNKNOWN; r++) {
        unrank(r, m->box, m->nin, x);
        int64_t *y = ys + r * m->nout;
        im_apply(m, x, y);
        size_t h = (size_t)hash_point(y, m->nout) & (cap - 1);
        for (; slot[h]; h = (h + 1) & (cap - 1)) {
            const int64_t *z = ys + (slot[h] - 1) * m->nout;
            if (memcmp(z, y, (size_t)m->nout * sizeof *y) == 0) {
                if (wa && wb) {
                    unrank(slot[h] - 1, m->box, m->nin, wa);
                    memcpy(wb, x, (size_t)m->nin * sizeof *x);
                }
                kind = IM_NOT_INJECTIVE;
                break;
            }
        }
        if (kind == IM_UNKNOWN)
            slot[h] = r + 1;
    }
    free(slot);
    free(ys);
    return kind == IM_UNKNOWN ? onto(m) : kind;
}

ImKind im_classify(const IndexMap *m, int64_t *wa, int64_t *wb)
{
    ImKind k = im_classify_symbolic(m, wa, wb);
    return k == IM_UNKNOWN ? enumerate(m, wa, wb) : k;
}

/* ---- compose and invert ---- */

IndexMap *im_compose(Arena *a, const IndexMap *g, const IndexMap *f)
{
    if (g->nin != f->nout)
        return NULL;
    for (int i = 0; i < g->nin; i++)
        if (g->box[i] != f->obox[i])
            return NULL;
    IndexMap *m = arena_zalloc(a, sizeof *m);
    *m = (IndexMap){ f->nin, g->nout, f->in_names, g->out_names, f->box, g->obox, NULL };
    const ImSum **out = arena_array(a, (size_t)g->nout + 1, sizeof *out);
    Ctx c = { a, f->nin, f->box, 0 };
    for (int k = 0; k < g->nout; k++)
        out[k] = subst(&c, g->out[k], f->out);
    if (c.overflow)
        return NULL;
    m->out = out;
    /* The codomain is g's output box even where the composite's image is
     * smaller: that part of the box is padding (f's, carried through g). */
    return m;
}

IndexMap *im_inverse(Arena *a, const IndexMap *m, ImCond **pred, int *npred, ImError *err)
{
    Loc none = { 0, 0 };
    Digits d;
    if (digits(m, &d)) {
        digits_done(&d);
        return set_err(err, none, "the inverse is derived for maps whose outputs are sums of distinct "
                       "digits of the inputs (splits, fusions, permutations, padding); this map is not"), NULL;
    }
    IndexMap *inv = arena_zalloc(a, sizeof *inv);
    *inv = (IndexMap){ m->nout, m->nin, m->out_names, m->in_names, m->obox, m->box, NULL };
    const ImSum **out = arena_array(a, (size_t)m->nin + 1, sizeof *out);
    const ImSum **y = arena_array(a, (size_t)m->nout + 1, sizeof *y);
    Ctx c = { a, m->nout, m->obox, 0 };
    for (int k = 0; k < m->nout; k++)
        y[k] = s_var(&c, k);
    /* Each variable from its digits, each digit from the first output that
     * holds it; fused iterators first, then the inputs. */
    const ImSum *val[MAX_VARS] = { 0 };
    for (int v = d.nv - 1; v >= 0; v--) {
        const ImSum *sv = s_const(&c, 0);
        if (v < m->nin && d.infuse[v] >= 0) {
            int o = m->nout + d.infuse[v] - m->nin;
            for (int i = 0; i < d.np[o]; i++) {
                const Piece *p = &d.p[o][i];
                if (p->var != v)
                    continue;
                const ImSum *dig = s_divmod(&c, val[d.infuse[v]], p->coef, B_FLOORDIV);
                if (i + 1 < d.np[o])
                    dig = s_divmod(&c, dig, p->range, B_FLOORMOD);
                sv = s_lin(&c, sv, 1, dig, p->lo);
            }
            val[v] = sv;
            continue;
        }
        /* An input of extent 1 comes back from an output that is just it. */
        for (int k = 0; k < m->nout && v < m->nin && d.ext[v] == 1; k++) {
            const ImSum *o = m->out[k];
            if (o->k == 0 && o->n == 1 && o->t[0].var == v && o->t[0].coef == 1) {
                sv = y[k];
                break;
            }
        }
        for (int j = 0; j < d.npts[v]; j++) {
            int64_t lo = d.pts[v][j];
            if (lo >= d.ext[v])
                continue;
            const ImSum *dig = NULL;
            for (int k = 0; k < m->nout && !dig; k++)
                for (int i = 0; i < d.np[k]; i++) {
                    const Piece *p = &d.p[k][i];
                    if (p->var != v || p->lo != lo)
                        continue;
                    dig = s_lin(&c, y[k], 1, s_const(&c, m->out[k]->k), -1);
                    dig = s_divmod(&c, dig, p->coef, B_FLOORDIV);
                    if (i + 1 < d.np[k])
                        dig = s_divmod(&c, dig, d.p[k][i + 1].coef / p->coef, B_FLOORMOD);
                    break;
                }
            if (!dig) {
                digits_done(&d);
                return set_err(err, none, "the map is not injective, so it has no inverse"), NULL;
            }
            sv = s_lin(&c, sv, 1, dig, lo);
        }
        val[v] = sv;
    }
    for (int x = 0; x < m->nin; x++)
        out[x] = val[x];
    digits_done(&d);
    inv->out = out;

    /* y is padding exactly when x(y) leaves the box or m(x(y)) != y. */
    ImCond *conds = arena_array(a, (size_t)(2 * m->nin + m->nout + 1), sizeof *conds);
    int n = 0;
    for (int x = 0; x < m->nin; x++) {
        int64_t mn, mx;
        sum_bounds(&c, out[x], &mn, &mx);
        if (mx >= m->box[x])
            conds[n++] = (ImCond){ out[x], B_GE, s_const(&c, m->box[x]) };
        if (mn < 0)
            conds[n++] = (ImCond){ out[x], B_LT, s_const(&c, 0) };
    }
    for (int k = 0; k < m->nout; k++) {
        const ImSum *back = subst(&c, m->out[k], out);
        int64_t l0, l1, r0, r1;
        sum_bounds(&c, y[k], &l0, &l1);
        sum_bounds(&c, back, &r0, &r1);
        if (!same_value(m->obox, back, y[k]) && !(l0 == l1 && r0 == r1 && l0 == r0))
            conds[n++] = (ImCond){ y[k], B_NE, back };
    }
    if (c.overflow)
        return set_err(err, none, "index map arithmetic overflows 2^60"), NULL;
    *pred = conds;
    *npred = n;
    return inv;
}

int im_pred_eval(const ImCond *pred, int npred, const int64_t *y)
{
    for (int i = 0; i < npred; i++) {
        int64_t l = im_eval_sum(pred[i].lhs, y), r = im_eval_sum(pred[i].rhs, y);
        if (pred[i].op == B_GE ? l >= r : pred[i].op == B_LT ? l < r : l != r)
            return 1;
    }
    return 0;
}

/* ---- back to expressions ---- */

static Expr *bin(Arena *a, BinOp op, Expr *l, Expr *r)
{
    Loc none = { 0, 0 };
    Expr *e = expr_new(a, E_BIN, none);
    e->u.bin.op = op;
    e->u.bin.a = l;
    e->u.bin.b = r;
    return e;
}

static Expr *lit(Arena *a, int64_t v)
{
    Loc none = { 0, 0 };
    return expr_int(a, v, DT_VOID, none);
}

static Expr *sum_expr(Arena *a, const ImSum *s, Var **vars);

static Expr *term_expr(Arena *a, const ImTerm *t, int64_t mag, Var **vars)
{
    Expr *e;
    if (t->var >= 0) {
        Loc none = { 0, 0 };
        e = expr_new(a, E_VAR, none);
        e->u.var = vars[t->var];
        /* A run in the middle is x % hi // lo, the modulus first, as TVM's
         * canonical simplifier writes it (not x // lo % (hi / lo)): both
         * constants are places of x, so the digits of one input read alike. */
        if (t->hi)
            e = bin(a, B_FLOORMOD, e, lit(a, t->hi));
        if (t->lo > 1)
            e = bin(a, B_FLOORDIV, e, lit(a, t->lo));
    } else {
        e = bin(a, t->op, sum_expr(a, t->arg, vars), lit(a, t->div));
    }
    return mag == 1 ? e : bin(a, B_MUL, e, lit(a, mag));
}

/* Larger coefficients first, then by input, outer digits first. */
static int cmp_print(const void *pa, const void *pb)
{
    const ImTerm *a = pa, *b = pb;
    if (a->coef != b->coef)
        return a->coef > b->coef ? -1 : 1;
    if ((a->var < 0) != (b->var < 0))
        return a->var < 0 ? 1 : -1;
    if (a->var != b->var)
        return a->var < b->var ? -1 : 1;
    return cmp64(b->lo, a->lo);
}

static Expr *sum_expr(Arena *a, const ImSum *s, Var **vars)
{
    ImTerm *t = arena_array(a, (size_t)s->n + 1, sizeof *t);
    if (s->n)
        memcpy(t, s->t, (size_t)s->n * sizeof *t);
    qsort(t, (size_t)s->n, sizeof *t, cmp_print);
    /* A positive constant leads when every term is negative: 7 - i. */
    int lead = s->k > 0 && (s->n == 0 || t[0].coef < 0);
    Expr *e = lead || s->n == 0 ? lit(a, s->k) : NULL;
    for (int i = 0; i < s->n; i++) {
        int neg = t[i].coef < 0;
        Expr *x = term_expr(a, &t[i], neg ? -t[i].coef : t[i].coef, vars);
        if (!e && neg) {
            Loc none = { 0, 0 };
            e = expr_new(a, E_UNARY, none);
            e->u.un.op = U_NEG;
            e->u.un.a = x;
        } else {
            e = e ? bin(a, neg ? B_SUB : B_ADD, e, x) : x;
        }
    }
    if (s->k && !lead && s->n)
        e = bin(a, s->k > 0 ? B_ADD : B_SUB, e, lit(a, s->k > 0 ? s->k : -s->k));
    return e;
}

static Var **make_vars(Arena *a, Interner *names, Sym **syms, int n)
{
    Loc none = { 0, 0 };
    Var **v = arena_array(a, (size_t)n + 1, sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = var_new(a, intern(names, syms[i]->str, (size_t)syms[i]->len), VAR_TIR, none);
    return v;
}

Expr *im_sum_to_expr(Arena *a, const ImSum *s, Var *const *vars)
{
    return sum_expr(a, s, (Var **)vars);
}

/* Adds the variables of e to used (found in vars), or returns -1 when e is
 * not integer arithmetic over them. */
static int used_vars(const Expr *e, Var *const *vars, int n, int *used, int depth)
{
    if (depth > 200)
        return -1;
    switch (e->kind) {
    case E_INT: return 0;
    case E_VAR:
        for (int i = 0; i < n; i++)
            if (vars[i] == e->u.var) {
                used[i] = 1;
                return 0;
            }
        return -1;
    case E_UNARY: return e->u.un.op == U_NEG ? used_vars(e->u.un.a, vars, n, used, depth + 1) : -1;
    case E_BIN:
        return used_vars(e->u.bin.a, vars, n, used, depth + 1) || used_vars(e->u.bin.b, vars, n, used, depth + 1)
                   ? -1 : 0;
    case E_CALL: {
        BinOp op;
        return floor_call(e, &op) && !used_vars(e->u.call.args[0], vars, n, used, depth + 1) &&
                       !used_vars(e->u.call.args[1], vars, n, used, depth + 1)
                   ? 0 : -1;
    }
    default: return -1;
    }
}

/* s without its terms in inputs of extent 1, which are 0, unless s is such
 * an input alone. A map keeps them where they stand whole (n in NCHW), so
 * that it reads as written; an index is simplified as TVM's simplifier
 * does it, which drops them (x * n * 32 + y * n + w with x < 1 is y * n + w). */
static const ImSum *without_unit_inputs(Arena *a, const ImSum *s, const int64_t *box)
{
    if (s->n == 1 && s->k == 0 && s->t[0].coef == 1)
        return s;
    ImSum *r = arena_zalloc(a, sizeof *r);
    ImTerm *t = arena_array(a, (size_t)s->n + 1, sizeof *t);
    *r = *s;
    r->n = 0;
    r->t = t;
    for (int i = 0; i < s->n; i++)
        if (!(s->t[i].var >= 0 && box[s->t[i].var] == 1))
            t[r->n++] = s->t[i];
    return r;
}

Expr *im_simplify(Arena *a, Arena *scratch, Expr *e, Var *const *vars, const int64_t *ext, int n)
{
    ArenaMark mark = arena_mark(scratch);
    int *used = arena_zalloc(scratch, ((size_t)n + 1) * sizeof *used);
    Expr *r = e;
    if (used_vars(e, vars, n, used, 0) == 0) {
        Var *v[IM_MAX_RANK];
        int64_t box[IM_MAX_RANK];
        int k = 0;
        for (int i = 0; i < n && k <= IM_MAX_RANK; i++)
            if (used[i] && k++ < IM_MAX_RANK) {
                v[k - 1] = vars[i];
                box[k - 1] = ext[i];
            }
        if (k <= IM_MAX_RANK) {
            Expr map = { .kind = E_INDEXMAP, .loc = e->loc };
            map.u.map.params = v;
            map.u.map.nparams = k;
            map.u.map.out = &r;
            map.u.map.nout = 1;
            ImError err;
            IndexMap *im = im_from_expr(scratch, &map, box, &err);
            if (im) {
                r = sum_expr(a, without_unit_inputs(scratch, im->out[0], box), v);
                r->loc = e->loc;
            }
        }
    }
    arena_release(scratch, mark);
    return r;
}

Expr *im_to_expr(Arena *a, Interner *names, const IndexMap *m)
{
    Loc none = { 0, 0 };
    Expr *e = expr_new(a, E_INDEXMAP, none);
    e->u.map.nparams = m->nin;
    e->u.map.params = make_vars(a, names, m->in_names, m->nin);
    e->u.map.nout = m->nout;
    e->u.map.out = arena_array(a, (size_t)m->nout + 1, sizeof *e->u.map.out);
    for (int k = 0; k < m->nout; k++)
        e->u.map.out[k] = sum_expr(a, m->out[k], e->u.map.params);
    return e;
}

Expr *im_pred_to_expr(Arena *a, Interner *names, const IndexMap *over, const ImCond *pred, int npred)
{
    Var **vars = make_vars(a, names, over->in_names, over->nin);
    Expr *e = NULL;
    for (int i = 0; i < npred; i++) {
        Expr *c = bin(a, pred[i].op, sum_expr(a, pred[i].lhs, vars), sum_expr(a, pred[i].rhs, vars));
        e = e ? bin(a, B_OR, e, c) : c;
    }
    if (!e) {
        Loc none = { 0, 0 };
        e = expr_new(a, E_BOOL, none);
    }
    return e;
}

/* ---- layout strings ---- */

typedef struct Layout {
    int n;
    char axis[IM_MAX_RANK];     /* 'A'-'Z' primal, 'a'-'z' a split of the primal */
    int64_t factor[IM_MAX_RANK];
} Layout;

static int parse_layout(const char *s, Layout *l, ImError *err)
{
    Loc none = { 0, 0 };
    memset(l, 0, sizeof *l);
    if (!*s)
        return set_err(err, none, "empty layout; write one like NCHW or NCHW4c"), -1;
    int64_t f = 0;
    int digits = 0;
    for (const char *p = s; *p; p++) {
        char ch = *p;
        if (ch >= '0' && ch <= '9') {
            if (__builtin_mul_overflow(f, 10, &f) || __builtin_add_overflow(f, ch - '0', &f) || f > BIG)
                return set_err(err, none, "layout \"%s\": factor too large", s), -1;
            digits = 1;
            continue;
        }
        int upper = ch >= 'A' && ch <= 'Z', lower = ch >= 'a' && ch <= 'z';
        if (!upper && !lower)
            return set_err(err, none, "layout \"%s\": unexpected '%c'; a layout is upper-case axes and "
                           "factors with lower-case axes, as in NCHW4c", s, ch), -1;
        if (upper && digits)
            return set_err(err, none, "layout \"%s\": a factor is followed by a lower-case axis, "
                           "as in 4c, not by '%c'", s, ch), -1;
        if (lower && !digits)
            return set_err(err, none, "layout \"%s\": the split axis '%c' needs a factor, as in 4%c", s, ch, ch), -1;
        if (lower && f == 0)
            return set_err(err, none, "layout \"%s\": the factor of '%c' must be positive", s, ch), -1;
        for (int i = 0; i < l->n; i++)
            if (l->axis[i] == ch)
                return set_err(err, none, "layout \"%s\": axis '%c' appears twice", s, ch), -1;
        if (l->n == IM_MAX_RANK)
            return set_err(err, none, "layout \"%s\" has more than %d axes", s, IM_MAX_RANK), -1;
        l->axis[l->n] = ch;
        l->factor[l->n++] = lower ? f : 0;
        f = 0;
        digits = 0;
    }
    if (digits)
        return set_err(err, none, "layout \"%s\" ends with a factor; add its axis, as in 4c", s), -1;
    for (int i = 0; i < l->n; i++) {
        if (l->factor[i] == 0)
            continue;
        int found = 0;
        for (int j = 0; j < l->n; j++)
            found |= l->axis[j] == l->axis[i] - 'a' + 'A';
        if (!found)
            return set_err(err, none, "layout \"%s\": the split axis '%c' has no primal axis '%c'",
                           s, l->axis[i], l->axis[i] - 'a' + 'A'), -1;
    }
    return 0;
}

int im_layout_check(const char *layout, const int64_t *shape, int rank, ImError *err)
{
    Layout l;
    Loc none = { 0, 0 };
    if (parse_layout(layout, &l, err))
        return -1;
    if (l.n != rank)
        return set_err(err, none, "layout \"%s\" has %d axes but the shape has %d extents", layout, l.n, rank), -1;
    for (int i = 0; i < l.n; i++)
        if (l.factor[i] && shape[i] != l.factor[i])
            return set_err(err, none, "layout \"%s\": the split axis %c%lld has extent %lld in the shape; "
                           "it must be its factor, %lld", layout, l.axis[i], (long long)l.factor[i],
                           (long long)shape[i], (long long)l.factor[i]), -1;
    return 0;
}

static int find_axis(const Layout *l, char ch)
{
    for (int i = 0; i < l->n; i++)
        if (l->axis[i] == ch)
            return i;
    return -1;
}

static Sym *axis_name(Arena *a, Interner *names, const Layout *l, int i)
{
    char buf[32];
    if (l->factor[i])
        snprintf(buf, sizeof buf, "%c%lld", l->axis[i], (long long)l->factor[i]);
    else
        snprintf(buf, sizeof buf, "%c", l->axis[i] - 'A' + 'a');
    (void)a;
    return intern_cstr(names, buf);
}

Expr *im_layout_map(Arena *a, Interner *names, const char *from, const char *to, Sym **out_names, ImError *err)
{
    Loc none = { 0, 0 };
    Layout A, B;
    if (parse_layout(from, &A, err) || parse_layout(to, &B, err))
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        const Layout *x = pass ? &B : &A, *y = pass ? &A : &B;
        const char *xs = pass ? to : from, *ys = pass ? from : to;
        for (int i = 0; i < x->n; i++)
            if (!x->factor[i] && find_axis(y, x->axis[i]) < 0)
                return set_err(err, none, "layouts \"%s\" and \"%s\" do not have the same primal axes: "
                               "%c is in \"%s\" but not in \"%s\"", from, to, x->axis[i], xs, ys), NULL;
    }
    Expr *e = expr_new(a, E_INDEXMAP, none);
    e->u.map.nparams = A.n;
    e->u.map.params = arena_array(a, (size_t)A.n + 1, sizeof *e->u.map.params);
    for (int i = 0; i < A.n; i++)
        e->u.map.params[i] = var_new(a, axis_name(a, names, &A, i), VAR_TIR, none);
    /* The full value of each primal axis of A: outer * factor + inner. */
    Expr *full[26] = { 0 };
    for (int i = 0; i < A.n; i++) {
        if (A.factor[i])
            continue;
        Expr *v = expr_new(a, E_VAR, none);
        v->u.var = e->u.map.params[i];
        int s = find_axis(&A, (char)(A.axis[i] - 'A' + 'a'));
        if (s >= 0) {
            Expr *in = expr_new(a, E_VAR, none);
            in->u.var = e->u.map.params[s];
            v = bin(a, B_ADD, bin(a, B_MUL, v, lit(a, A.factor[s])), in);
        }
        full[A.axis[i] - 'A'] = v;
    }
    e->u.map.nout = B.n;
    e->u.map.out = arena_array(a, (size_t)B.n + 1, sizeof *e->u.map.out);
    for (int i = 0; i < B.n; i++) {
        if (B.factor[i]) {
            e->u.map.out[i] = bin(a, B_FLOORMOD, full[B.axis[i] - 'a'], lit(a, B.factor[i]));
        } else {
            int s = find_axis(&B, (char)(B.axis[i] - 'A' + 'a'));
            Expr *v = full[B.axis[i] - 'A'];
            e->u.map.out[i] = s >= 0 ? bin(a, B_FLOORDIV, v, lit(a, B.factor[s])) : v;
        }
        if (out_names)
            out_names[i] = axis_name(a, names, &B, i);
    }
    return e;
}

/* ---- reshapes ---- */

Expr *im_reshape_map(Arena *a, Interner *names, const int64_t *in, int nin, const int64_t *out, int nout)
{
    Loc none = { 0, 0 };
    if (nin < 1 || nout < 1 || nin > IM_MAX_RANK || nout > IM_MAX_RANK)
        return NULL;
    int64_t vin = 1, vout = 1;
    for (int i = 0; i < nin; i++)
        if (in[i] < 1 || __builtin_mul_overflow(vin, in[i], &vin) || vin > BIG)
            return NULL;
    for (int i = 0; i < nout; i++)
        if (out[i] < 1 || __builtin_mul_overflow(vout, out[i], &vout) || vout > BIG)
            return NULL;
    if (vin != vout)
        return NULL;
    Expr *e = expr_new(a, E_INDEXMAP, none);
    e->u.map.nparams = nin;
    e->u.map.params = arena_array(a, (size_t)nin + 1, sizeof *e->u.map.params);
    /* the offset of a point, row-major */
    Expr *off = NULL;
    int64_t stride = 1;
    for (int i = nin - 1; i >= 0; i--) {
        char buf[32];
        snprintf(buf, sizeof buf, "i%d", i);
        e->u.map.params[i] = var_new(a, intern_cstr(names, buf), VAR_TIR, none);
        e->u.map.params[i]->dtype = DT_INT64;
        Expr *v = expr_new(a, E_VAR, none);
        v->u.var = e->u.map.params[i];
        Expr *t = stride == 1 ? v : bin(a, B_MUL, v, lit(a, stride));
        off = off ? bin(a, B_ADD, t, off) : t;
        stride *= in[i];
    }
    e->u.map.nout = nout;
    e->u.map.out = arena_array(a, (size_t)nout + 1, sizeof *e->u.map.out);
    stride = 1;
    for (int k = nout - 1; k >= 0; k--) {
        Expr *o = stride == 1 ? off : bin(a, B_FLOORDIV, off, lit(a, stride));
        e->u.map.out[k] = k == 0 ? o : bin(a, B_FLOORMOD, o, lit(a, out[k]));
        stride *= out[k];
    }
    return e;
}
