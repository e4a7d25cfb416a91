/* The batch engine: a band of innermost loops whose body is one store also
 * compiles into vector operations over all its iterations at once. It reads
 * the closure tree interp/tir.c compiled (through tir_internal.h), and falls
 * back to those closures for whatever a batch cannot do. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tir_internal.h"
#include "vexp.h"
#include "../ir/oom.h"

/* ---- batches ----
 *
 * A band of perfectly nested innermost loops with constant bounds, whose
 * body is one store (in a block whose iterators are the loops' variables),
 * also runs as a batch: the closure tree of the store's value is compiled
 * once more into a list of vector operations, each of which evaluates one
 * closure node for every iteration of the band (a lane) at once, so a node
 * costs one indirect call per band instead of one per iteration. An op
 * computes exactly what its closure node computes, lane by lane, with the
 * same rounding. Lanes are the band's iterations (the outermost loop is
 * cut into tiles of at most BATCH_MAX lanes, FUSED_MAX for a fold that
 * takes its loads from memory); an affine index is an offset computed from
 * the outer loops once per tile plus a per-lane offset computed once at
 * compile time.
 *
 * A tile never writes before it knows it will finish: every op that can
 * fail (a load whose bounds were not proven, a division, T.assume) reports
 * failure instead, and the closures then run the loop from that tile on,
 * giving the error with its location exactly as before; so do they when
 * the step budget would run out inside the tile. Loads under a condition
 * (T.if_then_else, and/or) read only the lanes where it holds. A value
 * may read the stored buffer only at the element it writes.
 *
 * A store whose address does not depend on the band is a reduction: its
 * value, C[...] + e (or T.max, T.min), is folded over the lanes in order,
 * in a register for float32, so every rounding happens as before. When the
 * address moves with the outermost loop only (C[i, j] over j, k), a tile
 * holds T reductions, folded interleaved, each in its own order. The state
 * of a run (registers, accumulators) lives in its Frame. */

enum { BATCH_MAX = 4096, BATCH_MIN = 8, BATCH_LOOPS = 8, FUSED_MAX = 32768 };

typedef struct VOp VOp;

typedef struct VRun {
    Frame *fr;
    int64_t n;
    unsigned char *reg;    /* register r: lanes at reg + r * n * 8 */
} VRun;

typedef int (*VFn)(const VOp *, const VRun *);

struct VOp {
    VFn run;
    int out, a, b, c, m;   /* registers (-1: none); m holds the active lanes */
    const Node *n;         /* the closure node it evaluates */
    /* an affine value: k + sum ocoef * iv[ovar] over outer slots, + rel[lane] */
    int64_t k;
    int nov;
    int ovar[8];
    int64_t ocoef[8];
    const int64_t *rel;    /* NULL: the same for every lane */
    int unit;              /* rel[t] = rel[0] + t */
    int64_t runlen;        /* else rel constant over runs of this many lanes (0: not so, or runs too short) */
    int *dreg;             /* a load not proven in bounds: its index registers */
    int nd;
    /* a conjunction of comparisons of affine indices with constants: per
     * group of identical terms (in sub, whose k is 0), the interval
     * [glo, ghi] the terms' value must lie in */
    const struct VOp *sub;
    const int64_t *glo, *ghi;
    int ng;
    const struct TAcc *ta; /* an access checked once per tile (v_ld_tile, a store) */
};

/* An access whose every index is an affine function of the lanes, or a
 * value the same for every lane of a tile (c // 4 over an outer loop's c):
 * checked against the buffer once per tile from the range of each index
 * over the lanes, its flat offset a per-tile base plus a per-lane part. */
typedef struct TAcc {
    int nd;
    VOp *dim;              /* per index: its affine part (k, outer terms, rel) */
    const Node **uni;      /* per index: the value the same for every lane, or NULL */
    int64_t *rmin, *rmax;  /* per index: the range of rel over the lanes */
    int64_t *shape, *stride;   /* the buffer as declared */
    int64_t *flat;         /* per lane: sum of stride * rel */
} TAcc;

struct Batch {
    /* the band's loops, outermost first; the outermost runs in tiles of
     * T iterations (all of them when they fit), the others entirely:
     * a tile has n = T * K lanes */
    int nloop;
    int slot[BATCH_LOOPS];
    int64_t lo[BATCH_LOOPS], ext[BATCH_LOOPS];
    int64_t T, K, n, steps;   /* steps: the loop iterations of one tile */
    /* lanes in loop order, or (inter) the outermost loop varying fastest:
     * lane r * T + s is iteration s of the tile at position r of the others */
    int inter;
    /* inter, but lanes in loop order (s * K + r): when the value is more
     * than the loads a fused fold takes, its loads then run along memory */
    int blocked;
    VOp *ops;
    int nops, cap, nregs;
    const SNode *st;       /* the store */
    VOp addr;              /* its address when proven (affine), else dreg */
    int proven;
    int val;               /* the value's register; a reduction's e */
    int e2;                /* a float32 a + b * c reduction: c's register, else -1 */
    const Node *root;      /* a reduction's combining node, or NULL */
    int acc;               /* inter: the register of the T accumulators */
    /* inter, float32, its e (and c) float32 loads proven in bounds: folded
     * from memory, lane r * T + s of a load at base + c0 * s + R[r] */
    int fused;
    struct FLoad {
        const VOp *op;
        int64_t c0;
        int64_t *R;
        /* a padding guard's load (v_ld_f32_guard): its two groups of
         * terms, each at gc0 * s + GR[r] from the tile's base, and the
         * value where the guard fails */
        int guarded;
        int64_t gc0[2], *GR[2];
        float pad;
    } fl[2];
    const SNode *init;
    int init_const;        /* a float32 T.init storing a constant: init_value, so written */
    float init_value;
    int64_t *initlanes;    /* lanes where the band's reduction iterators are all 0 */
    int ninit;
    int orslot[16];        /* reduction iterators outside the band */
    int norslot;
    int lslot[32];         /* buffers the value reads, checked for overlap */
    int nl;
    /* each loop's value per lane (the outermost's offset in its tile) */
    int64_t *lane[BATCH_LOOPS];
};

#define VREG(R, r) ((double *)(void *)((R)->reg + (size_t)(r) * (size_t)(R)->n * 8))
#define VINT(R, r) ((int64_t *)(void *)((R)->reg + (size_t)(r) * (size_t)(R)->n * 8))
#define ACTIVE(M, t) (!(M) || (M)[t])

/* Runs STMT for every lane t below n: in groups of eight first, which cc
 * vectorizes at -O2 (a loop of a known count over restrict registers). */
#define EACH_LANE(n, STMT) \
    do { \
        int64_t t0_ = 0, n_ = (n); \
        for (; t0_ + 8 <= n_; t0_ += 8) \
            for (int q_ = 0; q_ < 8; q_++) { \
                int64_t t = t0_ + q_; \
                STMT; \
            } \
        for (int64_t t = t0_; t < n_; t++) { \
            STMT; \
        } \
    } while (0)

static int64_t vbase(const VOp *o, const Frame *fr)
{
    uint64_t v = (uint64_t)o->k;
    for (int j = 0; j < o->nov; j++)
        v += (uint64_t)o->ocoef[j] * (uint64_t)fr->iv[o->ovar[j]];
    return (int64_t)v;
}

/* ---- vector ops ---- */

static int v_iaff(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out), base = vbase(o, R->fr);
    if (!o->rel)
        for (int64_t t = 0; t < R->n; t++)
            x[t] = base;
    else
        for (int64_t t = 0; t < R->n; t++)
            x[t] = W((uint64_t)base + (uint64_t)o->rel[t]);
    return 0;
}

#define V_AFFCMP(name, test) \
    static int name(const VOp *o, const VRun *R) \
    { \
        int64_t *x = VINT(R, o->out), base = vbase(o, R->fr); \
        for (int64_t t = 0; t < R->n; t++) { \
            int64_t v = W((uint64_t)base + (uint64_t)(o->rel ? o->rel[t] : 0)); \
            x[t] = v test 0; \
        } \
        return 0; \
    }
V_AFFCMP(v_aff_lt, <)
V_AFFCMP(v_aff_le, <=)
V_AFFCMP(v_aff_gt, >)
V_AFFCMP(v_aff_ge, >=)
V_AFFCMP(v_aff_eq, ==)
V_AFFCMP(v_aff_ne, !=)

static int v_ffill(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out), v = o->n->f == f_var ? R->fr->fv[o->n->slot] : o->n->d;
    for (int64_t t = 0; t < R->n; t++)
        x[t] = v;
    return 0;
}

/* the active lanes of a branch: m and (not) a */
static int v_mask(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out);
    const int64_t *a = VINT(R, o->a), *m = o->m >= 0 ? VINT(R, o->m) : NULL;
    int neg = (int)o->k;
    for (int64_t t = 0; t < R->n; t++)
        x[t] = ACTIVE(m, t) && (neg ? !a[t] : a[t] != 0);
    return 0;
}

#define V_IBIN(name, expr) \
    static void name##_lanes(int64_t *restrict x, const int64_t *restrict A, const int64_t *restrict B, int64_t n) \
    { \
        EACH_LANE(n, int64_t a = A[t]; int64_t b = B[t]; x[t] = (expr)); \
    } \
    static int name(const VOp *o, const VRun *R) \
    { \
        name##_lanes(VINT(R, o->out), VINT(R, o->a), VINT(R, o->b), R->n); \
        return 0; \
    }
V_IBIN(v_iadd, W((uint64_t)a + (uint64_t)b))
V_IBIN(v_isub, W((uint64_t)a - (uint64_t)b))
V_IBIN(v_imul, W((uint64_t)a * (uint64_t)b))
V_IBIN(v_imin, a < b ? a : b)
V_IBIN(v_imax, a > b ? a : b)
V_IBIN(v_ilt, a < b)
V_IBIN(v_ile, a <= b)
V_IBIN(v_igt, a > b)
V_IBIN(v_ige, a >= b)
V_IBIN(v_ieq, a == b)
V_IBIN(v_ine, a != b)
V_IBIN(v_iand, (a != 0) & (b != 0))
V_IBIN(v_ior, (a != 0) | (b != 0))

#define V_FCMP(name, test) \
    static void name##_lanes(int64_t *restrict x, const double *restrict A, const double *restrict B, int64_t n) \
    { \
        EACH_LANE(n, x[t] = A[t] test B[t]); \
    } \
    static int name(const VOp *o, const VRun *R) \
    { \
        name##_lanes(VINT(R, o->out), VREG(R, o->a), VREG(R, o->b), R->n); \
        return 0; \
    }
V_FCMP(v_flt, <)
V_FCMP(v_fle, <=)
V_FCMP(v_fgt, >)
V_FCMP(v_fge, >=)
V_FCMP(v_feq, ==)
V_FCMP(v_fne, !=)

#define V_IUN(name, expr) \
    static int name(const VOp *o, const VRun *R) \
    { \
        int64_t *x = VINT(R, o->out); \
        const int64_t *A = VINT(R, o->a); \
        const Node *n = o->n; \
        (void)n; \
        for (int64_t t = 0; t < R->n; t++) { \
            int64_t a = A[t]; \
            x[t] = (expr); \
        } \
        return 0; \
    }
V_IUN(v_inot, !a)
V_IUN(v_ineg, W(0 - (uint64_t)a))
V_IUN(v_iwrap, wrap(n->dt, a))

static int v_ifromf(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out);
    const double *A = VREG(R, o->a);
    for (int64_t t = 0; t < R->n; t++) {
        double v = A[t];
        x[t] = !(v > -9.2e18 && v < 9.2e18) ? 0 : wrap(o->n->dt, (int64_t)v);
    }
    return 0;
}

static int v_iselect(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out);
    const int64_t *C = VINT(R, o->a), *A = VINT(R, o->b), *B = VINT(R, o->c);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = C[t] ? A[t] : B[t];
    return 0;
}

/* integer division and T.assume can fail: a lane that would is left to the closures */
static int v_idiv(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out);
    const int64_t *A = VINT(R, o->a), *B = VINT(R, o->b), *m = o->m >= 0 ? VINT(R, o->m) : NULL;
    for (int64_t t = 0; t < R->n; t++) {
        int64_t a = A[t], b = B[t];
        if (!ACTIVE(m, t)) {
            x[t] = 0;
            continue;
        }
        if (b == 0)
            return -1;
        if (b == -1)
            x[t] = o->n->k == B_FLOORDIV || o->n->k == B_DIV ? W(0 - (uint64_t)a) : 0;
        else
            switch (o->n->k) {
            case B_FLOORDIV: x[t] = floordiv64(a, b); break;
            case B_FLOORMOD: x[t] = floormod64(a, b); break;
            case B_DIV: x[t] = a / b; break;
            default: x[t] = a % b; break;
            }
    }
    return 0;
}

static int v_assume(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out);
    const int64_t *A = VINT(R, o->a), *m = o->m >= 0 ? VINT(R, o->m) : NULL;
    for (int64_t t = 0; t < R->n; t++) {
        if (ACTIVE(m, t) && !A[t])
            return -1;
        x[t] = 1;
    }
    return 0;
}

#define V_FBIN(name, expr) \
    static void name##_lanes(double *restrict x, const double *restrict A, const double *restrict B, int64_t len, \
                             const Node *n) \
    { \
        (void)n; \
        EACH_LANE(len, double a = A[t]; double b = B[t]; x[t] = (expr)); \
    } \
    static int name(const VOp *o, const VRun *R) \
    { \
        name##_lanes(VREG(R, o->out), VREG(R, o->a), VREG(R, o->b), R->n, o->n); \
        return 0; \
    }
V_FBIN(v_fadd32, (float)(a + b))
V_FBIN(v_fsub32, (float)(a - b))
V_FBIN(v_fmul32, (float)(a * b))
V_FBIN(v_fdiv32, (float)(a / b))
V_FBIN(v_fadd, rnd(n, a + b))
V_FBIN(v_fsub, rnd(n, a - b))
V_FBIN(v_fmul, rnd(n, a * b))
V_FBIN(v_fdiv, rnd(n, a / b))
V_FBIN(v_fmin, a < b ? a : b)
V_FBIN(v_fmax, a > b ? a : b)
V_FBIN(v_fpow, rnd(n, pow(a, b)))
V_FBIN(v_ffloordiv, rnd(n, floor(a / b)))
V_FBIN(v_ffloormod, rnd(n, a - floor(a / b) * b))

static void muladd32_lanes(double *restrict x, const double *restrict A, const double *restrict B,
                           const double *restrict C, int64_t n)
{
    EACH_LANE(n, x[t] = (float)(A[t] + (float)(B[t] * C[t])));
}

static int v_fmuladd32(const VOp *o, const VRun *R)
{
    muladd32_lanes(VREG(R, o->out), VREG(R, o->a), VREG(R, o->b), VREG(R, o->c), R->n);
    return 0;
}

#define V_FUN(name, expr) \
    static int name(const VOp *o, const VRun *R) \
    { \
        double *x = VREG(R, o->out); \
        const double *A = VREG(R, o->a); \
        const Node *n = o->n; \
        (void)n; \
        for (int64_t t = 0; t < R->n; t++) { \
            double a = A[t]; \
            x[t] = (expr); \
        } \
        return 0; \
    }
V_FUN(v_fneg, -a)
V_FUN(v_fround, rnd(n, a))
V_FUN(v_fmath1, rnd(n, ((Math1)(uintptr_t)n->k)(a)))

/* T.exp into float32: as v_fmath1 computes it, faster (interp/vexp.c) */
static int v_fexp32(const VOp *o, const VRun *R)
{
    vexp_f32(VREG(R, o->out), VREG(R, o->a), R->n);
    return 0;
}

static int v_ffromi(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out);
    const int64_t *A = VINT(R, o->a);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = rnd(o->n, (double)A[t]);
    return 0;
}

static void fselect_lanes(double *restrict x, const int64_t *restrict C, const double *restrict A,
                          const double *restrict B, int64_t n)
{
    EACH_LANE(n, x[t] = C[t] ? A[t] : B[t]);
}

static int v_fselect(const VOp *o, const VRun *R)
{
    fselect_lanes(VREG(R, o->out), VINT(R, o->a), VREG(R, o->b), VREG(R, o->c), R->n);
    return 0;
}

/* T.if_then_else(c, X[...], k) with X's access proven where c holds: the
 * load touches only the lanes where c holds */
static int v_ld_f32_sel(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out), k = o->n->c->d;
    const int64_t *C = VINT(R, o->a), *m = o->m >= 0 ? VINT(R, o->m) : NULL;
    const float *d = R->fr->buf[o->n->b->slot]->data;
    int64_t base = vbase(o, R->fr);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = ACTIVE(m, t) && C[t] ? d[base + (o->rel ? o->rel[t] : 0)] : k;
    return 0;
}

/* the same with the guard's comparisons (v_guard's fields) made inline */
static int v_ld_f32_guard(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out), k = o->n->c->d;
    const int64_t *m = o->m >= 0 ? VINT(R, o->m) : NULL, *rel = o->rel, *r0 = o->sub[0].rel, *r1 = o->sub[1].rel;
    const float *d = R->fr->buf[o->n->b->slot]->data;
    int64_t base = vbase(o, R->fr);
    uint64_t lo0 = (uint64_t)o->glo[0] - (uint64_t)vbase(&o->sub[0], R->fr), span0 = (uint64_t)o->ghi[0] - (uint64_t)o->glo[0];
    uint64_t lo1 = (uint64_t)o->glo[1] - (uint64_t)vbase(&o->sub[1], R->fr), span1 = (uint64_t)o->ghi[1] - (uint64_t)o->glo[1];
    for (int64_t t = 0; t < R->n; t++)
        x[t] = ACTIVE(m, t) && (uint64_t)r0[t] - lo0 <= span0 && (uint64_t)r1[t] - lo1 <= span1 ? d[base + rel[t]] : k;
    return 0;
}

static void gather_f32(double *restrict x, const float *restrict d, const int64_t *restrict rel, int64_t n)
{
    EACH_LANE(n, x[t] = d[rel[t]]);
}

static void widen_f32(double *restrict x, const float *restrict d, int64_t n)
{
    EACH_LANE(n, x[t] = d[t]);
}

static void fill_f64(double *restrict x, double v, int64_t n)
{
    EACH_LANE(n, x[t] = v);
}

/* a load proven in bounds (where its mask holds) */
static int v_ld_aff(const VOp *o, const VRun *R)
{
    const Tensor *tn = R->fr->buf[o->n->slot];
    int64_t base = vbase(o, R->fr);
    const int64_t *m = o->m >= 0 ? VINT(R, o->m) : NULL, *rel = o->rel;
    if (o->n->f == ld_f32_aff) {
        double *x = VREG(R, o->out);
        const float *d = tn->data;
        if (!m && o->unit)
            widen_f32(x, d + base + rel[0], R->n);
        else if (!m && o->runlen)
            for (int64_t t = 0; t < R->n; t += o->runlen)
                fill_f64(x + t, d[base + rel[t]], o->runlen);
        else if (!m && rel)
            gather_f32(x, d + base, rel, R->n);
        else
            for (int64_t t = 0; t < R->n; t++)
                x[t] = ACTIVE(m, t) ? d[base + (rel ? rel[t] : 0)] : 0;
    } else if (o->n->f) {
        double *x = VREG(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = ACTIVE(m, t) ? tensor_getf(tn, base + (rel ? rel[t] : 0)) : 0;
    } else {
        int64_t *x = VINT(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = ACTIVE(m, t) ? tensor_geti(tn, base + (rel ? rel[t] : 0)) : 0;
    }
    return 0;
}

/* the flat offsets of an access checked lane by lane, into x (-1: inactive);
 * -1 when an active lane is outside the buffer */
static int checked_offsets(const VOp *o, const VRun *R, const Tensor *tn, int64_t *x)
{
    const int64_t *m = o->m >= 0 ? VINT(R, o->m) : NULL;
    for (int64_t t = 0; t < R->n; t++) {
        if (!ACTIVE(m, t)) {
            x[t] = -1;
            continue;
        }
        int64_t off = 0;
        for (int d = 0; d < o->nd; d++) {
            int64_t v = VINT(R, o->dreg[d])[t];
            if ((uint64_t)v >= (uint64_t)tn->shape[d])
                return -1;
            off = off * tn->shape[d] + v;
        }
        x[t] = off;
    }
    return 0;
}

static int v_ld_checked(const VOp *o, const VRun *R)
{
    const Tensor *tn = R->fr->buf[o->n->slot];
    int64_t *off = VINT(R, o->c);
    if (checked_offsets(o, R, tn, off))
        return -1;
    if (o->n->f) {
        double *x = VREG(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = off[t] < 0 ? 0 : tn->dtype == DT_FLOAT32 ? ((const float *)tn->data)[off[t]] : tensor_getf(tn, off[t]);
    } else {
        int64_t *x = VINT(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = off[t] < 0 ? 0 : tensor_geti(tn, off[t]);
    }
    return 0;
}

/* a padding guard, 1 <= y + ky and y + ky < 57 and ...: each group of
 * terms tested against its interval with one unsigned comparison */
static int v_guard(const VOp *o, const VRun *R)
{
    int64_t *x = VINT(R, o->out), lo[8];
    uint64_t span[8];
    const int64_t *rel[8];
    for (int g = 0; g < o->ng; g++) {
        int64_t base = vbase(&o->sub[g], R->fr);
        /* terms = base + rel in [glo, ghi]: rel - (glo - base) <= ghi - glo, unsigned */
        lo[g] = W((uint64_t)o->glo[g] - (uint64_t)base);
        span[g] = (uint64_t)o->ghi[g] - (uint64_t)o->glo[g];
        rel[g] = o->sub[g].rel;
    }
    for (int g = 0; g < o->ng; g++)
        if (o->glo[g] > o->ghi[g]) {     /* never holds */
            for (int64_t t = 0; t < R->n; t++)
                x[t] = 0;
            return 0;
        }
    if (o->ng == 2 && rel[0] && rel[1]) {
        for (int64_t t = 0; t < R->n; t++)
            x[t] = ((uint64_t)rel[0][t] - (uint64_t)lo[0] <= span[0]) & ((uint64_t)rel[1][t] - (uint64_t)lo[1] <= span[1]);
        return 0;
    }
    for (int64_t t = 0; t < R->n; t++) {
        int64_t ok = 1;
        for (int g = 0; g < o->ng; g++)
            ok &= (uint64_t)(rel[g] ? rel[g][t] : 0) - (uint64_t)lo[g] <= span[g];
        x[t] = ok;
    }
    return 0;
}

/* The flat offset of a tile access at the tile's first lane, or -1 when
 * some lane would fall outside the buffer (or it is not as declared). */
static int tile_base(const TAcc *ta, Frame *fr, const Tensor *tn, int64_t *base)
{
    if (!tn || tn->ndim != ta->nd)
        return -1;
    int64_t off = 0;
    for (int d = 0; d < ta->nd; d++) {
        int64_t v = ta->uni[d] ? I(ta->uni[d]) : vbase(&ta->dim[d], fr), vs;
        if (tn->shape[d] != ta->shape[d] || v < -(INT64_C(1) << 40) || v > (INT64_C(1) << 40) ||
            v + ta->rmin[d] < 0 || v + ta->rmax[d] >= ta->shape[d] || __builtin_mul_overflow(v, ta->stride[d], &vs) ||
            __builtin_add_overflow(off, vs, &off))
            return -1;
    }
    *base = off;
    return 0;
}

static int v_ld_tile(const VOp *o, const VRun *R)
{
    const Tensor *tn = R->fr->buf[o->n->slot];
    int64_t base;
    if (tile_base(o->ta, R->fr, tn, &base))
        return -1;
    const int64_t *flat = o->ta->flat;
    if (o->n->f == ld_f32 && tn->dtype == DT_FLOAT32) {
        double *x = VREG(R, o->out);
        const float *d = (const float *)tn->data + base;
        for (int64_t t = 0; t < R->n; t++)
            x[t] = d[flat[t]];
    } else if (o->n->f) {
        double *x = VREG(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = tensor_getf(tn, base + flat[t]);
    } else {
        int64_t *x = VINT(R, o->out);
        for (int64_t t = 0; t < R->n; t++)
            x[t] = tensor_geti(tn, base + flat[t]);
    }
    return 0;
}

/* ---- compiling a band ---- */

static int is_load(const Node *n)
{
    return n->f == ld_f32 || n->f == ld_f64 || n->f == ld_fany || n->i == ld_i32 || n->i == ld_i8 ||
           n->i == ld_iany || n->f == ld_f32_aff || n->f == ld_fany_aff || n->i == ld_iany_aff;
}

static int is_aff_load(const Node *n)
{
    return n->f == ld_f32_aff || n->f == ld_fany_aff || n->i == ld_iany_aff;
}

/* whether evaluating n can fail or touch memory, so that it must run only
 * on the lanes where its conditions hold */
static int fallible(const Node *n)
{
    if (!n)
        return 0;
    if (is_load(n) || n->i == i_div || n->i == i_assume)
        return 1;
    return fallible(n->a) || fallible(n->b) || fallible(n->c);
}

static int band_loop(const Batch *b, int slot)
{
    for (int j = 0; j < b->nloop; j++)
        if (b->slot[j] == slot)
            return j;
    return -1;
}

static VOp *vop(Compiled *c, Batch *b, VFn run, const Node *n, int m)
{
    if (b->nops == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        VOp *v = arena_array(&c->arena, (size_t)cap, sizeof *v);
        if (b->nops)
            memcpy(v, b->ops, (size_t)b->nops * sizeof *v);
        b->ops = v;
        b->cap = cap;
    }
    VOp *o = &b->ops[b->nops++];
    memset(o, 0, sizeof *o);
    o->run = run;
    o->n = n;
    o->out = b->nregs++;
    o->a = o->b = o->c = -1;
    o->m = m;
    return o;
}

/* Whether the lanes of o's per-lane part lie one after another in memory,
 * or in runs of equal offsets (a value indexed by an outer loop of the
 * band only), which loads and stores then take without an index each. */
static void rel_shape(const Batch *b, VOp *o)
{
    const int64_t *rel = o->rel;
    o->unit = 0;
    o->runlen = 0;
    if (!rel)
        return;
    int64_t t = 1, len;
    while (t < b->n && rel[t] == W((uint64_t)rel[0] + (uint64_t)t))
        t++;
    if (t == b->n) {
        o->unit = 1;
        return;
    }
    for (len = 1; len < b->n && rel[len] == rel[0]; len++)
        ;
    if (len < BATCH_MIN || b->n % len)
        return;
    for (t = 0; t < b->n; t++)
        if (rel[t] != rel[t - t % len])
            return;
    o->runlen = len;
}

/* Splits k + sum coef * slot into the part outside the band (in o) and the
 * per-lane part (o->rel, NULL when no band loop appears). */
static int split_aff(Compiled *c, Batch *b, VOp *o, int64_t k, int n, const int *var, const int64_t *coef)
{
    o->k = k;
    o->nov = 0;
    o->rel = NULL;
    int64_t *rel = NULL;
    for (int j = 0; j < n; j++) {
        int l = band_loop(b, var[j]);
        if (l <= 0) {     /* the outermost loop's tile starts at iv[slot] */
            if (o->nov == 8)
                return -1;
            o->ovar[o->nov] = var[j];
            o->ocoef[o->nov++] = coef[j];
            if (l < 0)
                continue;
        }
        if (!rel)
            rel = arena_array(&c->arena, (size_t)b->n, sizeof *rel);
        for (int64_t t = 0; t < b->n; t++)
            rel[t] = W((uint64_t)rel[t] + (uint64_t)coef[j] * (uint64_t)b->lane[l][t]);
    }
    o->rel = rel;
    rel_shape(b, o);
    return 0;
}

static int vnode(Compiled *c, Batch *b, const Node *n, int m);

static int aff_reads_band(const Batch *b, const Node *n)
{
    for (int j = 0; j < n->naff; j++)
        if (band_loop(b, n->aff_var[j]) >= 0 && n->aff_coef[j])
            return 1;
    return 0;
}

/* Whether n is integer arithmetic that reads no loop of the band and
 * cannot fail (a division by a nonzero constant): its value is the same at
 * every lane of a tile, and evaluating it once there is harmless. */
static int uniform(const Batch *b, const Node *n, int depth)
{
    if (!n || depth > 32)
        return 0;
    if (n->i == i_const)
        return 1;
    if (n->i == i_var)
        return band_loop(b, n->slot) < 0;
    if (n->i == i_aff || n->i == i_aff1)
        return !aff_reads_band(b, n);
    if (n->i == i_div)
        return n->b->i == i_const && n->b->k != 0 && uniform(b, n->a, depth + 1);
    if (n->i == i_add || n->i == i_sub || n->i == i_mul || n->i == i_min || n->i == i_max)
        return uniform(b, n->a, depth + 1) && uniform(b, n->b, depth + 1);
    if (n->i == i_neg || n->i == i_wrap)
        return uniform(b, n->a, depth + 1);
    return 0;
}

/* Whether n is integer arithmetic that cannot fail over the band's loops
 * alone, each with the same values at every tile (the outermost only when
 * one tile covers it): its value at each lane is known when compiling. */
static int lane_only(const Batch *b, const Node *n, int depth)
{
    if (!n || depth > 32)
        return 0;
    if (n->i == i_const)
        return 1;
    if (n->i == i_var) {
        int l = band_loop(b, n->slot);
        return l > 0 || (l == 0 && b->T == b->ext[0]);
    }
    if (n->i == i_aff || n->i == i_aff1) {
        for (int j = 0; j < n->naff; j++) {
            int l = band_loop(b, n->aff_var[j]);
            if (n->aff_coef[j] && !(l > 0 || (l == 0 && b->T == b->ext[0])))
                return 0;
        }
        return 1;
    }
    if (n->i == i_div)
        return n->b->i == i_const && n->b->k != 0 && lane_only(b, n->a, depth + 1);
    if (n->i == i_add || n->i == i_sub || n->i == i_mul || n->i == i_min || n->i == i_max)
        return lane_only(b, n->a, depth + 1) && lane_only(b, n->b, depth + 1);
    if (n->i == i_neg || n->i == i_wrap)
        return lane_only(b, n->a, depth + 1);
    return 0;
}

/* n's value at lane t, where lane_only(b, n) holds. */
static int64_t lane_value(const Batch *b, const Node *n, int64_t t)
{
    if (n->i == i_const)
        return n->k;
    if (n->i == i_var) {
        int l = band_loop(b, n->slot);
        return b->lane[l][t] + (l ? 0 : b->lo[0]);
    }
    if (n->i == i_aff || n->i == i_aff1) {
        uint64_t v = (uint64_t)n->k;
        for (int j = 0; j < n->naff; j++) {
            int l = band_loop(b, n->aff_var[j]);
            if (l >= 0)
                v += (uint64_t)n->aff_coef[j] * (uint64_t)(b->lane[l][t] + (l ? 0 : b->lo[0]));
        }
        return (int64_t)v;
    }
    int64_t x = lane_value(b, n->a, t), y = n->b ? lane_value(b, n->b, t) : 0;
    if (n->i == i_div) {
        if (y == -1)
            return n->k == B_FLOORDIV || n->k == B_DIV ? W(0 - (uint64_t)x) : 0;
        switch (n->k) {
        case B_FLOORDIV: return floordiv64(x, y);
        case B_FLOORMOD: return floormod64(x, y);
        case B_DIV: return x / y;
        default: return x % y;
        }
    }
    if (n->i == i_add)
        return W((uint64_t)x + (uint64_t)y);
    if (n->i == i_sub)
        return W((uint64_t)x - (uint64_t)y);
    if (n->i == i_mul)
        return W((uint64_t)x * (uint64_t)y);
    if (n->i == i_min)
        return x < y ? x : y;
    if (n->i == i_max)
        return x > y ? x : y;
    if (n->i == i_neg)
        return W(0 - (uint64_t)x);
    return wrap(n->dt, x);
}

static int const_shape(const Buffer *decl, int nd, int64_t *shape)
{
    if (!decl || decl->ndim != nd)
        return -1;
    for (int d = 0; d < nd; d++)
        if (expr_const_int(decl->shape[d], &shape[d]) || shape[d] <= 0 || shape[d] > (INT64_C(1) << 40))
            return -1;
    return 0;
}

/* The indices idx of an access to decl as a tile access, or NULL when one
 * is neither affine nor uniform, or the buffer's shape is not constant. */
static const TAcc *tile_access(Compiled *c, Batch *b, const Node *const *idx, int nd, const Buffer *decl)
{
    if (nd < 1 || nd > TENSOR_MAX_RANK)
        return NULL;
    TAcc *ta = arena_zalloc(&c->arena, sizeof *ta);
    ta->nd = nd;
    ta->dim = arena_array(&c->arena, (size_t)nd, sizeof *ta->dim);
    ta->uni = arena_array(&c->arena, (size_t)nd, sizeof *ta->uni);
    ta->rmin = arena_array(&c->arena, (size_t)nd, sizeof *ta->rmin);
    ta->rmax = arena_array(&c->arena, (size_t)nd, sizeof *ta->rmax);
    ta->shape = arena_array(&c->arena, (size_t)nd, sizeof *ta->shape);
    ta->stride = arena_array(&c->arena, (size_t)nd, sizeof *ta->stride);
    ta->flat = arena_array(&c->arena, (size_t)b->n, sizeof *ta->flat);
    if (const_shape(decl, nd, ta->shape))
        return NULL;
    int64_t st = 1;
    for (int d = nd - 1; d >= 0; d--) {
        ta->stride[d] = st;
        if (__builtin_mul_overflow(st, ta->shape[d], &st) || st > (INT64_C(1) << 40))
            return NULL;
    }
    for (int d = 0; d < nd; d++) {
        const Node *x = idx[d];
        VOp *o = &ta->dim[d];
        ta->uni[d] = NULL;
        if (x->i == i_const || x->i == i_var || x->i == i_aff || x->i == i_aff1) {
            int ok = x->i == i_const ? split_aff(c, b, o, x->k, 0, NULL, NULL)
                   : x->i == i_var ? split_aff(c, b, o, 0, 1, &x->slot, &(int64_t){ 1 })
                   : split_aff(c, b, o, x->k, x->naff, x->aff_var, x->aff_coef);
            if (ok)
                return NULL;
        } else if (uniform(b, x, 0)) {
            ta->uni[d] = x;
            o->rel = NULL;
        } else if (lane_only(b, x, 0)) {
            int64_t *rel = arena_array(&c->arena, (size_t)b->n, sizeof *rel);
            for (int64_t t = 0; t < b->n; t++)
                rel[t] = lane_value(b, x, t);
            memset(o, 0, sizeof *o);
            o->rel = rel;
        } else {
            return NULL;
        }
        int64_t lo = 0, hi = 0;
        for (int64_t t = 0; o->rel && t < b->n; t++) {
            lo = o->rel[t] < lo || t == 0 ? o->rel[t] : lo;
            hi = o->rel[t] > hi || t == 0 ? o->rel[t] : hi;
        }
        if (lo < -(INT64_C(1) << 40) || hi > (INT64_C(1) << 40))
            return NULL;
        ta->rmin[d] = lo;
        ta->rmax[d] = hi;
        for (int64_t t = 0; o->rel && t < b->n; t++) {
            int64_t part;
            if (__builtin_mul_overflow(o->rel[t], ta->stride[d], &part) ||
                __builtin_add_overflow(ta->flat[t], part, &ta->flat[t]))
                return NULL;
        }
    }
    return ta;
}

static int vbin(Compiled *c, Batch *b, VFn run, const Node *n, int m)
{
    int a = vnode(c, b, n->a, m), x = a < 0 ? -1 : vnode(c, b, n->b, m);
    if (x < 0)
        return -1;
    VOp *o = vop(c, b, run, n, m);
    o->a = a;
    o->b = x;
    return o->out;
}

static int vun(Compiled *c, Batch *b, VFn run, const Node *n, int m)
{
    int a = vnode(c, b, n->a, m);
    if (a < 0)
        return -1;
    VOp *o = vop(c, b, run, n, m);
    o->a = a;
    return o->out;
}

/* the lanes of m where register a holds (neg: does not hold) */
static int vmask(Compiled *c, Batch *b, int m, int a, int neg)
{
    VOp *o = vop(c, b, v_mask, NULL, m);
    o->a = a;
    o->k = neg;
    return o->out;
}

static int vload(Compiled *c, Batch *b, const Node *n, int m)
{
    if (b->nl == 32)
        return -1;
    b->lslot[b->nl++] = n->slot;
    if (is_aff_load(n)) {
        VOp *o = vop(c, b, v_ld_aff, n, m);
        return split_aff(c, b, o, n->k, n->naff, n->aff_var, n->aff_coef) ? -1 : o->out;
    }
    if (n->st || n->nidx > TENSOR_MAX_RANK)
        return -1;
    const TAcc *ta = m < 0 ? tile_access(c, b, n->idx, n->nidx, n->decl) : NULL;
    if (ta) {
        VOp *o = vop(c, b, v_ld_tile, n, m);
        o->ta = ta;
        return o->out;
    }
    int *dreg = arena_array(&c->arena, (size_t)n->nidx + 1, sizeof *dreg);
    for (int d = 0; d < n->nidx; d++)
        if ((dreg[d] = vnode(c, b, n->idx[d], m)) < 0)
            return -1;
    VOp *o = vop(c, b, v_ld_checked, n, m);
    o->dreg = dreg;
    o->nd = n->nidx;
    o->c = b->nregs++;     /* the offsets */
    return o->out;
}

static int vselect(Compiled *c, Batch *b, const Node *n, int m)
{
    int cond = vnode(c, b, n->a, m);
    if (cond < 0)
        return -1;
    if (n->f == f_select && n->b->f == ld_f32_aff && n->c->f == f_const) {
        /* the padding guard of a convolution, in one op */
        if (b->nl == 32)
            return -1;
        const VOp *g = &b->ops[b->nops - 1];
        if (g->out == cond && g->run == v_guard && g->ng == 2 && g->sub[0].rel && g->sub[1].rel && g->m == m &&
            g->glo[0] <= g->ghi[0] && g->glo[1] <= g->ghi[1]) {
            /* and its comparisons with it, when they vary with the lanes */
            VOp gv = *g;
            b->nops--;
            b->lslot[b->nl++] = n->b->slot;
            VOp *o = vop(c, b, v_ld_f32_guard, n, m);
            o->sub = gv.sub;
            o->glo = gv.glo;
            o->ghi = gv.ghi;
            o->ng = 2;
            if (split_aff(c, b, o, n->b->k, n->b->naff, n->b->aff_var, n->b->aff_coef) || !o->rel)
                return -1;
            return o->out;
        }
        b->lslot[b->nl++] = n->b->slot;
        VOp *o = vop(c, b, v_ld_f32_sel, n, m);
        o->a = cond;
        return split_aff(c, b, o, n->b->k, n->b->naff, n->b->aff_var, n->b->aff_coef) ? -1 : o->out;
    }
    int mb = fallible(n->b) ? vmask(c, b, m, cond, 0) : m;
    int x = vnode(c, b, n->b, mb);
    int mc = x >= 0 && fallible(n->c) ? vmask(c, b, m, cond, 1) : m;
    int y = x < 0 ? -1 : vnode(c, b, n->c, mc);
    if (y < 0)
        return -1;
    VOp *o = vop(c, b, n->f ? v_fselect : v_iselect, n, m);
    o->a = cond;
    o->b = x;
    o->c = y;
    return o->out;
}

/* a && b, a || b: b runs only where a leaves the answer open */
static int vlogic(Compiled *c, Batch *b, const Node *n, int m)
{
    int a = vnode(c, b, n->a, m);
    if (a < 0)
        return -1;
    int mb = fallible(n->b) ? vmask(c, b, m, a, n->i == i_or) : m;
    int x = vnode(c, b, n->b, mb);
    if (x < 0)
        return -1;
    VOp *o = vop(c, b, n->i == i_and ? v_iand : v_ior, n, m);
    o->a = a;
    o->b = x;
    return o->out;
}

/* the comparisons of a tree of ands, when all compare affine terms with a
 * constant (as an interval), into leaves; -1 otherwise */
static int guard_leaves(const Node *n, const Node **leaf, int *nleaf)
{
    if (n->i == i_and)
        return guard_leaves(n->a, leaf, nleaf) || guard_leaves(n->b, leaf, nleaf) ? -1 : 0;
    if (n->i != i_aff_lt && n->i != i_aff_le && n->i != i_aff_gt && n->i != i_aff_ge && n->i != i_aff_eq)
        return -1;
    if (*nleaf == 8)
        return -1;
    leaf[(*nleaf)++] = n;
    return 0;
}

/* a && b && ... over affine comparisons in one op (-2: not that form) */
static int vguard(Compiled *c, Batch *b, const Node *n, int m)
{
    const Node *leaf[8];
    int nleaf = 0;
    if (guard_leaves(n, leaf, &nleaf))
        return -2;
    VOp *sub = arena_array(&c->arena, 8, sizeof *sub);
    int64_t *glo = arena_array(&c->arena, 8, sizeof *glo), *ghi = arena_array(&c->arena, 8, sizeof *ghi);
    const Node *terms[8];
    int ng = 0;
    for (int i = 0; i < nleaf; i++) {
        const Node *l = leaf[i];
        int g = 0;
        while (g < ng && !(terms[g]->naff == l->naff &&
                           memcmp(terms[g]->aff_var, l->aff_var, (size_t)l->naff * sizeof *l->aff_var) == 0 &&
                           memcmp(terms[g]->aff_coef, l->aff_coef, (size_t)l->naff * sizeof *l->aff_coef) == 0))
            g++;
        if (g == ng) {
            if (split_aff(c, b, &sub[g], 0, l->naff, l->aff_var, l->aff_coef))
                return -1;
            terms[ng++] = l;
            glo[g] = INT64_MIN / 4;
            ghi[g] = INT64_MAX / 4;
        }
        /* k + terms op 0, with |k| < 2^40 */
        int64_t lo = INT64_MIN / 4, hi = INT64_MAX / 4, k = -l->k;
        if (l->i == i_aff_lt)
            hi = k - 1;
        else if (l->i == i_aff_le)
            hi = k;
        else if (l->i == i_aff_gt)
            lo = k + 1;
        else if (l->i == i_aff_ge)
            lo = k;
        else
            lo = hi = k;
        if (lo > glo[g])
            glo[g] = lo;
        if (hi < ghi[g])
            ghi[g] = hi;
    }
    VOp *o = vop(c, b, v_guard, n, m);
    o->sub = sub;
    o->glo = glo;
    o->ghi = ghi;
    o->ng = ng;
    return o->out;
}

static int vnode(Compiled *c, Batch *b, const Node *n, int m)
{
    static const struct { IFn fn; VFn v; } ibin[] = {
        { i_add, v_iadd }, { i_sub, v_isub }, { i_mul, v_imul }, { i_min, v_imin }, { i_max, v_imax },
        { i_lt, v_ilt }, { i_le, v_ile }, { i_gt, v_igt }, { i_ge, v_ige }, { i_eq, v_ieq }, { i_ne, v_ine },
        { f_lt, v_flt }, { f_le, v_fle }, { f_gt, v_fgt }, { f_ge, v_fge }, { f_eq, v_feq }, { f_ne, v_fne },
        { i_div, v_idiv },
    };
    static const struct { IFn fn; VFn v; } affcmp[] = {
        { i_aff_lt, v_aff_lt }, { i_aff_le, v_aff_le }, { i_aff_gt, v_aff_gt },
        { i_aff_ge, v_aff_ge }, { i_aff_eq, v_aff_eq }, { i_aff_ne, v_aff_ne },
    };
    static const struct { IFn fn; VFn v; } iun[] = {
        { i_not, v_inot }, { i_neg, v_ineg }, { i_wrap, v_iwrap }, { i_from_f, v_ifromf }, { i_assume, v_assume },
    };
    static const struct { FFn fn; VFn v; } fbin[] = {
        { f_add32, v_fadd32 }, { f_sub32, v_fsub32 }, { f_mul32, v_fmul32 }, { f_div32, v_fdiv32 },
        { f_add, v_fadd }, { f_sub, v_fsub }, { f_mul, v_fmul }, { f_div, v_fdiv }, { f_min, v_fmin },
        { f_max, v_fmax }, { f_pow, v_fpow }, { f_floordiv, v_ffloordiv }, { f_floormod, v_ffloormod },
    };
    static const struct { FFn fn; VFn v; } fun[] = {
        { f_neg, v_fneg }, { f_round, v_fround }, { f_math1, v_fmath1 }, { f_from_i, v_ffromi },
    };
    if (!n)
        return -1;
    if (is_load(n))
        return vload(c, b, n, m);
    if (n->i == i_const || n->i == i_var || n->i == i_aff || n->i == i_aff1) {
        VOp *o = vop(c, b, v_iaff, n, m);
        if (n->i == i_const)
            return split_aff(c, b, o, n->k, 0, NULL, NULL) ? -1 : o->out;
        if (n->i == i_var)
            return split_aff(c, b, o, 0, 1, &n->slot, &(int64_t){ 1 }) ? -1 : o->out;
        return split_aff(c, b, o, n->k, n->naff, n->aff_var, n->aff_coef) ? -1 : o->out;
    }
    for (size_t i = 0; i < sizeof affcmp / sizeof *affcmp; i++)
        if (n->i == affcmp[i].fn) {
            VOp *o = vop(c, b, affcmp[i].v, n, m);
            return split_aff(c, b, o, n->k, n->naff, n->aff_var, n->aff_coef) ? -1 : o->out;
        }
    if (n->f == f_const || n->f == f_var)
        return vop(c, b, v_ffill, n, m)->out;
    if (n->i == i_select || n->f == f_select)
        return vselect(c, b, n, m);
    if (n->i == i_and) {
        int g = vguard(c, b, n, m);
        if (g != -2)
            return g;
    }
    if (n->i == i_and || n->i == i_or)
        return vlogic(c, b, n, m);
    for (size_t i = 0; i < sizeof ibin / sizeof *ibin; i++)
        if (n->i == ibin[i].fn)
            return vbin(c, b, ibin[i].v, n, m);
    for (size_t i = 0; i < sizeof iun / sizeof *iun; i++)
        if (n->i == iun[i].fn)
            return vun(c, b, iun[i].v, n, m);
    for (size_t i = 0; i < sizeof fbin / sizeof *fbin; i++)
        if (n->f == fbin[i].fn)
            return vbin(c, b, fbin[i].v, n, m);
    if (n->f == f_math1 && (Math1)(uintptr_t)n->k == exp && n->dt == DT_FLOAT32)
        return vun(c, b, v_fexp32, n, m);
    for (size_t i = 0; i < sizeof fun / sizeof *fun; i++)
        if (n->f == fun[i].fn)
            return vun(c, b, fun[i].v, n, m);
    if (n->f == f_muladd32) {
        int a = vnode(c, b, n->a, m), x = a < 0 ? -1 : vnode(c, b, n->b, m), y = x < 0 ? -1 : vnode(c, b, n->c, m);
        if (y < 0)
            return -1;
        VOp *o = vop(c, b, v_fmuladd32, n, m);
        o->a = a;
        o->b = x;
        o->c = y;
        return o->out;
    }
    return -1;
}

/* ---- running a band ---- */

static int is_store(const SNode *s)
{
    return s->run == st_f32_aff || s->run == st_fany_aff || s->run == st_iany_aff || s->run == st_f32 ||
           s->run == st_fany || s->run == st_iany;
}

static int is_aff_store(const SNode *s)
{
    return s->run == st_f32_aff || s->run == st_fany_aff || s->run == st_iany_aff;
}

static int same_aff(const Node *x, const Node *y)
{
    if (x->k != y->k || x->naff != y->naff)
        return 0;
    for (int j = 0; j < x->naff; j++)
        if (x->aff_var[j] != y->aff_var[j] || x->aff_coef[j] != y->aff_coef[j])
            return 0;
    return 1;
}

static int overlaps(const Tensor *a, const Tensor *b)
{
    const char *p = a->data, *q = b->data;
    return p < q + b->count * dtype_size(b->dtype) && q < p + a->count * dtype_size(a->dtype);
}

/* the init runs at lane t: the band's variables take their values there */
static void batch_init(const Batch *b, Frame *fr, int64_t t)
{
    int64_t start = fr->iv[b->slot[0]];
    for (int j = 0; j < b->nloop; j++)
        fr->iv[b->slot[j]] = b->lane[j][t] + (j ? 0 : start);
    b->init->run(b->init, fr);
    fr->iv[b->slot[0]] = start;
}

static int init_runs(const Batch *b, const Frame *fr)
{
    if (!b->init || !b->ninit)
        return 0;
    for (int i = 0; i < b->norslot; i++)
        if (fr->iv[b->orslot[i]] != 0)
            return 0;
    return 1;
}

/* The lanes [t, end) of a float32 reduction in a register: a float32 sum
 * of a float32 value rounds as the double sum rounded to float32 does. */
static float fold_f32(const Batch *b, const VRun *R, float acc, int64_t t, int64_t end)
{
    const double *e = VREG(R, b->val);
    FFn op = b->root->f;
    if (op == f_muladd32) {
        const double *e2 = VREG(R, b->e2);
        for (; t < end; t++)
            acc = acc + (float)(e[t] * e2[t]);
    } else if (op == f_add32) {
        for (; t < end; t++) {
            double p = e[t];
            float q = (float)p;
            acc = (double)q == p ? acc + q : (float)(acc + p);
        }
    } else if (op == f_max) {
        for (; t < end; t++)
            acc = (float)(acc > e[t] ? (double)acc : e[t]);
    } else {
        for (; t < end; t++)
            acc = (float)(acc < e[t] ? (double)acc : e[t]);
    }
    return acc;
}

/* The same over T interleaved reductions, lane r * T + s into acc[s]:
 * each keeps its own order, and T chains of additions overlap. */
static void fold_f32_inter(const Batch *b, const VRun *R, float *acc)
{
    const double *e = VREG(R, b->val);
    int64_t T = b->T;
    FFn op = b->root->f;
    if (op == f_muladd32) {
        const double *e2 = VREG(R, b->e2);
        int64_t s = 0;
        for (; s + 4 <= T; s += 4) {     /* four chains in registers */
            float a0 = acc[s], a1 = acc[s + 1], a2 = acc[s + 2], a3 = acc[s + 3];
            for (int64_t t = s; t < R->n; t += T) {
                a0 = a0 + (float)(e[t] * e2[t]);
                a1 = a1 + (float)(e[t + 1] * e2[t + 1]);
                a2 = a2 + (float)(e[t + 2] * e2[t + 2]);
                a3 = a3 + (float)(e[t + 3] * e2[t + 3]);
            }
            acc[s] = a0;
            acc[s + 1] = a1;
            acc[s + 2] = a2;
            acc[s + 3] = a3;
        }
        for (int64_t t = 0; s < T && t < R->n; t += T)
            for (int64_t q = s; q < T; q++)
                acc[q] = acc[q] + (float)(e[t + q] * e2[t + q]);
        return;
    }
    if (op == f_max) {
        for (int64_t s = 0; s < T; s++) {
            float a = acc[s];
            for (int64_t t = s; t < R->n; t += T)
                a = (float)(a > e[t] ? (double)a : e[t]);
            acc[s] = a;
        }
        return;
    }
    if (op == f_min) {
        for (int64_t s = 0; s < T; s++) {
            float a = acc[s];
            for (int64_t t = s; t < R->n; t += T)
                a = (float)(a < e[t] ? (double)a : e[t]);
            acc[s] = a;
        }
        return;
    }
    for (int64_t s = 0; s < T; s++) {
        float a = acc[s];
        for (int64_t t = s; t < R->n; t += T) {
            double p = e[t];
            float q = (float)p;
            a = (double)q == p ? a + q : (float)(a + p);
        }
        acc[s] = a;
    }
}

/* fold_f32_inter with the loads folded in: for each position r of the
 * inner loops, the T reductions take one element each, in the same order
 * as the lanes (r * T + s), without a register in between. Eight (or one)
 * reductions at a time, in locals, so their chains of additions overlap. */
#define FOLD_CHAINS(W, STEP) \
    for (; s + W <= T; s += W) { \
        float a[W]; \
        for (int q = 0; q < W; q++) \
            a[q] = acc[s + q]; \
        for (int64_t r = 0; r < K; r++) { \
            const float *p = px + x->R[r] + cx * s, *u = py + (two ? y->R[r] + cy * s : 0); \
            (void)u; \
            for (int q = 0; q < W; q++) \
                a[q] = STEP(a[q], p[cx * q], u[cy * q]); \
        } \
        for (int q = 0; q < W; q++) \
            acc[s + q] = a[q]; \
    }
#define MULADD(a, p, u) ((a) + (p) * (u))
#define FMAX(a, p, u) ((a) > (p) ? (a) : (p))
#define FMIN(a, p, u) ((a) < (p) ? (a) : (p))
#define FADD(a, p, u) ((a) + (p))

/* A guarded load's guard over the lanes s of a tile, for each position r:
 * per group of terms, glo <= base + gc * s + GR[r] <= ghi, that is
 * A - GR[r] <= gc * s <= Z - GR[r], with the tile's part in locals. */
typedef struct GSpan {
    int64_t A[2], Z[2], C[2], T;
    const int64_t *GR[2];
} GSpan;

static GSpan guard_tile(const Batch *b, const struct FLoad *f, const int64_t *base)
{
    GSpan g = { .T = b->T, .GR = { f->GR[0], f->GR[1] } };
    for (int i = 0; i < 2; i++) {
        g.A[i] = f->op->glo[i] - base[i];
        g.Z[i] = f->op->ghi[i] - base[i];
        g.C[i] = f->gc0[i];
    }
    return g;
}

/* The lanes s in [0, T) of position r where the guard holds: [*from, *to). */
static inline void guard_span(const GSpan *g, int64_t r, int64_t *from, int64_t *to)
{
    int64_t lo = 0, hi = g->T;   /* s in [lo, hi) */
    if (g->C[0] == 0 && g->C[1] == 1) {
        /* a convolution of stride 1: the rows' terms do not move with s */
        int64_t a = g->A[1] - g->GR[1][r], z = g->Z[1] - g->GR[1][r] + 1;
        int row = g->A[0] - g->GR[0][r] <= 0 && g->Z[0] - g->GR[0][r] >= 0;
        lo = a > 0 ? a : 0;
        hi = z < hi ? z : hi;
        hi = row && hi > lo ? hi : lo;
        *from = lo;
        *to = hi;
        return;
    }
    for (int i = 0; i < 2; i++) {
        int64_t a = g->A[i] - g->GR[i][r], z = g->Z[i] - g->GR[i][r], c = g->C[i];
        if (c == 0) {
            if (a > 0 || z < 0)
                hi = lo;
            continue;
        }
        if (c < 0) {
            int64_t t = -z;
            z = -a;
            a = t;
            c = -c;
        }
        /* a <= c * s <= z (c = 1, a convolution's stride, without the
         * divisions, which cost more than a short row's products) */
        int64_t s0 = a <= 0 ? 0 : c == 1 ? a : (a + c - 1) / c, s1 = z < 0 ? -1 : c == 1 ? z : z / c;
        if (s0 > lo)
            lo = s0;
        if (s1 + 1 < hi)
            hi = s1 + 1;
    }
    *from = lo;
    *to = hi > lo ? hi : lo;
}

typedef float V4F __attribute__((vector_size(16)));

typedef int32_t V4I __attribute__((vector_size(16)));

/* Eight lanes of a load at p, stride c, all of whose elements lie in the
 * buffer (off is p's offset in it): a stride of 1 or 2 in whole vectors
 * (2: sixteen floats, their even lanes) where those lie in it too. */
static inline void load8(const float *p, int64_t c, int64_t off, int64_t count, V4F *v0, V4F *v1)
{
    if (c == 1) {
        memcpy(v0, p, sizeof *v0);
        memcpy(v1, p + 4, sizeof *v1);
    } else if (c == 2 && off >= 0 && off + 16 <= count) {
        V4F w0, w1, w2, w3;
        memcpy(&w0, p, sizeof w0);
        memcpy(&w1, p + 4, sizeof w1);
        memcpy(&w2, p + 8, sizeof w2);
        memcpy(&w3, p + 12, sizeof w3);
        *v0 = (V4F){ w0[0], w0[2], w1[0], w1[2] };
        *v1 = (V4F){ w2[0], w2[2], w3[0], w3[2] };
    } else {
        *v0 = (V4F){ p[0], p[c], p[2 * c], p[3 * c] };
        *v1 = (V4F){ p[4 * c], p[5 * c], p[6 * c], p[7 * c] };
    }
}

/* A float32 a + b * c reduction whose b is a guarded load. The lanes s
 * where the guard holds at position r, [from, to), are found once per
 * tile; then eight reductions at a time take every position in order, in
 * two vectors, each lane rounding the product and then the sum as MULADD
 * does (the pad value where the guard fails): a short row, as a 7x7
 * image's, keeps its chains in registers, not in memory. Where all eight
 * lanes' elements lie in the buffer they are read whatever the guard
 * says and the guard's lanes then take pad, without a branch a lane. */
static void fold_f32_guarded(const Batch *b, Frame *fr, const VRun *R, float *acc)
{
    int64_t T = b->T, K = b->K;
    const struct FLoad *x = &b->fl[0], *y = &b->fl[1];
    const Tensor *tx = fr->buf[x->op->n->b->slot];
    int64_t bx = vbase(x->op, fr), cx = x->c0, cy = y->c0;
    const float *px = (const float *)tx->data + bx;
    const float *py = (const float *)fr->buf[y->op->n->slot]->data + vbase(y->op, fr);
    int64_t base[2] = { vbase(&x->op->sub[0], fr), vbase(&x->op->sub[1], fr) };
    int64_t span = 7 * cx, first = span < 0 ? span : 0, last = span > 0 ? span : 0;
    int64_t *from = VINT(R, b->val), *to = VINT(R, b->e2);     /* K <= n lanes each */
    float pad = x->pad;
    V4F k = { pad, pad, pad, pad };
    V4I q0 = { 0, 1, 2, 3 }, q1 = { 4, 5, 6, 7 };
    GSpan g = guard_tile(b, x, base);
    /* more than eight reductions: the spans once, not once a group of eight */
    for (int64_t r = 0; T > 8 && r < K; r++)
        guard_span(&g, r, &from[r], &to[r]);
    for (int64_t s = 0; s < T; s += 8) {
        int64_t w = T - s < 8 ? T - s : 8;
        float a[8] = { 0 }, u[8] = { 0 }, v[8];
        memcpy(a, acc + s, (size_t)w * sizeof *a);
        V4F a0, a1, u0, u1, v0, v1;
        memcpy(&a0, a, sizeof a0);
        memcpy(&a1, a + 4, sizeof a1);
        for (int64_t r = 0; r < K; r++) {
            const float *p = px + x->R[r] + cx * s, *q = py + y->R[r] + cy * s;
            int64_t lo, hi, off = bx + x->R[r] + cx * s;
            if (T > 8) {
                lo = from[r] - s;
                hi = to[r] - s;
            } else {
                guard_span(&g, r, &lo, &hi);
            }
            int inbuf = off + first >= 0 && off + last < tx->count;
            if (lo <= 0 && hi >= w && (w == 8 || inbuf)) {
                /* every lane the guard holds (past w, any element of the buffer) */
                load8(p, cx, off, tx->count, &v0, &v1);
            } else if (hi <= lo || hi <= 0 || lo >= 8) {
                v0 = v1 = k;
            } else if (inbuf) {
                load8(p, cx, off, tx->count, &v0, &v1);
                V4I l = { (int32_t)lo, (int32_t)lo, (int32_t)lo, (int32_t)lo };
                V4I h = { (int32_t)hi, (int32_t)hi, (int32_t)hi, (int32_t)hi };
                V4I m0 = (q0 >= l) & (q0 < h), m1 = (q1 >= l) & (q1 < h);
                v0 = (V4F)(((V4I)v0 & m0) | ((V4I)k & ~m0));
                v1 = (V4F)(((V4I)v1 & m1) | ((V4I)k & ~m1));
            } else {
                for (int l = 0; l < 8; l++)
                    v[l] = l >= lo && l < hi ? p[cx * l] : pad;
                memcpy(&v0, v, sizeof v0);
                memcpy(&v1, v + 4, sizeof v1);
            }
            if (cy == 0) {
                u0 = u1 = (V4F){ *q, *q, *q, *q };
            } else {
                for (int l = 0; l < 8; l++)
                    u[l] = l < w ? q[cy * l] : 0;
                memcpy(&u0, u, sizeof u0);
                memcpy(&u1, u + 4, sizeof u1);
            }
            V4F m0 = v0 * u0, m1 = v1 * u1;     /* apart: no compiler may fuse them into one rounding */
            a0 = a0 + m0;
            a1 = a1 + m1;
        }
        memcpy(a, &a0, sizeof a0);
        memcpy(a + 4, &a1, sizeof a1);
        memcpy(acc + s, a, (size_t)w * sizeof *a);
    }
}

/* MULADD over eight reductions at a time whose product is one value of
 * their position r (w, stride 0) by consecutive elements (u, stride 1), as
 * matmul's A[i, k] * B[k, j] over j: the eight chains in two vectors, each
 * lane rounding the product and then the sum as MULADD does. Returns the
 * first reduction left to FOLD_CHAINS. */
static int64_t fold_f32_bcast(int64_t T, int64_t K, const float *pw, const int64_t *Rw, const float *pu,
                              const int64_t *Ru, float *acc)
{
    int64_t s = 0;
    for (; s + 8 <= T; s += 8) {
        V4F a0, a1;
        memcpy(&a0, acc + s, sizeof a0);
        memcpy(&a1, acc + s + 4, sizeof a1);
        for (int64_t r = 0; r < K; r++) {
            float w = pw[Rw[r]];
            V4F u0, u1;
            memcpy(&u0, pu + Ru[r] + s, sizeof u0);
            memcpy(&u1, pu + Ru[r] + s + 4, sizeof u1);
            V4F m0 = w * u0, m1 = w * u1;     /* apart: no compiler may fuse them into one rounding */
            a0 = a0 + m0;
            a1 = a1 + m1;
        }
        memcpy(acc + s, &a0, sizeof a0);
        memcpy(acc + s + 4, &a1, sizeof a1);
    }
    return s;
}

static void fold_f32_fused(const Batch *b, Frame *fr, const VRun *R, float *acc)
{
    if (b->fl[0].guarded) {
        fold_f32_guarded(b, fr, R, acc);
        return;
    }
    int64_t T = b->T, K = b->K, s = 0;
    FFn op = b->root->f;
    const struct FLoad *x = &b->fl[0], *y = &b->fl[1];
    int two = op == f_muladd32;
    const float *px = (const float *)fr->buf[x->op->n->slot]->data + vbase(x->op, fr);
    const float *py = two ? (const float *)fr->buf[y->op->n->slot]->data + vbase(y->op, fr) : px;
    int64_t cx = x->c0, cy = two ? y->c0 : 0;
    if (op == f_muladd32) {
        if (cx == 0 && cy == 1)
            s = fold_f32_bcast(T, K, px, x->R, py, y->R, acc);
        else if (cx == 1 && cy == 0)     /* (a product of two floats is the same either way round) */
            s = fold_f32_bcast(T, K, py, y->R, px, x->R, acc);
        FOLD_CHAINS(8, MULADD)
        FOLD_CHAINS(1, MULADD)
    } else if (op == f_max) {
        FOLD_CHAINS(8, FMAX)
        FOLD_CHAINS(1, FMAX)
    } else if (op == f_min) {
        FOLD_CHAINS(8, FMIN)
        FOLD_CHAINS(1, FMIN)
    } else {
        FOLD_CHAINS(8, FADD)
        FOLD_CHAINS(1, FADD)
    }
}

/* One lane of a reduction kept in memory, as the closures run it. */
static void fold_cell(const Batch *b, const VRun *R, Tensor *out, int64_t off, int64_t t)
{
    const Node *r = b->root;
    if (b->st->run == st_iany_aff) {
        int64_t a = tensor_geti(out, off), e = VINT(R, b->val)[t];
        int64_t v = r->i == i_add ? W((uint64_t)a + (uint64_t)e) : r->i == i_max ? (a > e ? a : e) : (a < e ? a : e);
        tensor_seti(out, off, v);
        return;
    }
    double a = b->st->run == st_f32_aff ? ((const float *)out->data)[off] : tensor_getf(out, off), e = VREG(R, b->val)[t], v;
    if (r->f == f_muladd32)
        v = (float)(a + (float)(e * VREG(R, b->e2)[t]));
    else if (r->f == f_add32)
        v = (float)(a + e);
    else if (r->f == f_add)
        v = rnd(r, a + e);
    else if (r->f == f_max)
        v = a > e ? a : e;
    else
        v = a < e ? a : e;
    if (b->st->run == st_f32_aff)
        ((float *)out->data)[off] = (float)v;
    else
        tensor_setf(out, off, v);
}

/* The same over blocked lanes: reduction s takes lanes s * K .. s * K + K - 1,
 * four reductions at a time so that their chains overlap. */
#define BLOCK_CHAINS(STEP) \
    for (; s + 4 <= T; s += 4) { \
        float a0 = acc[s], a1 = acc[s + 1], a2 = acc[s + 2], a3 = acc[s + 3]; \
        for (int64_t t = s * K; t < s * K + K; t++) { \
            a0 = STEP(a0, t); \
            a1 = STEP(a1, t + K); \
            a2 = STEP(a2, t + 2 * K); \
            a3 = STEP(a3, t + 3 * K); \
        } \
        acc[s] = a0; \
        acc[s + 1] = a1; \
        acc[s + 2] = a2; \
        acc[s + 3] = a3; \
    }
#define B_MULADD(a, t) ((a) + (float)(e[t] * e2[t]))
#define B_ADD(a, t) ((double)(float)e[t] == e[t] ? (a) + (float)e[t] : (float)((a) + e[t]))
#define B_MAX(a, t) ((float)((a) > e[t] ? (double)(a) : e[t]))
#define B_MIN(a, t) ((float)((a) < e[t] ? (double)(a) : e[t]))

static void fold_f32_blocked(const Batch *b, const VRun *R, float *acc)
{
    const double *e = VREG(R, b->val), *e2 = b->e2 >= 0 ? VREG(R, b->e2) : NULL;
    int64_t T = b->T, K = b->K, s = 0;
    FFn op = b->root->f;
    if (op == f_muladd32) {
        BLOCK_CHAINS(B_MULADD)
    } else if (op == f_add32) {
        BLOCK_CHAINS(B_ADD)
    } else if (op == f_max) {
        BLOCK_CHAINS(B_MAX)
    } else {
        BLOCK_CHAINS(B_MIN)
    }
    for (; s < T; s++)
        acc[s] = fold_f32(b, R, acc[s], s * K, s * K + K);
}

/* the first lane of reduction s */
static int64_t red_lane(const Batch *b, int64_t s)
{
    return b->blocked ? s * b->K : s;
}

/* T reductions at once (inter): their T distinct elements are folded lane
 * r * T + s (blocked: s * K + r) into element s, each in its own order;
 * T.init, which writes only its own element, runs first for each. */
static void reduce_inter(const Batch *b, Frame *fr, const VRun *R)
{
    Tensor *out = fr->buf[b->st->slot];
    int64_t base = vbase(&b->addr, fr), T = b->T;
    if (init_runs(b, fr) && !(b->init_const && b->st->run == st_f32_aff && b->root->f != f_add))
        for (int64_t s = 0; s < T; s++)
            batch_init(b, fr, red_lane(b, s));
    if (b->st->run == st_f32_aff && b->root->f != f_add) {
        float *acc = (float *)VREG(R, b->acc), *d = out->data;
        if (b->init_const && init_runs(b, fr))
            for (int64_t s = 0; s < T; s++)
                acc[s] = b->init_value;
        else
            for (int64_t s = 0; s < T; s++)
                acc[s] = d[base + b->addr.rel[red_lane(b, s)]];
        if (b->fused)
            fold_f32_fused(b, fr, R, acc);
        else if (b->blocked)
            fold_f32_blocked(b, R, acc);
        else
            fold_f32_inter(b, R, acc);
        for (int64_t s = 0; s < T; s++)
            d[base + b->addr.rel[red_lane(b, s)]] = acc[s];
        return;
    }
    for (int64_t t = 0; t < R->n; t++)
        fold_cell(b, R, out, base + b->addr.rel[t], t);
}

static void reduce(const Batch *b, Frame *fr, const VRun *R)
{
    if (b->inter) {
        reduce_inter(b, fr, R);
        return;
    }
    Tensor *out = fr->buf[b->st->slot];
    int64_t off = vbase(&b->addr, fr), k = 0, t = 0;
    int init = init_runs(b, fr), reg = b->st->run == st_f32_aff && b->root->f != f_add;
    while (t < R->n) {
        if (init && k < b->ninit && b->initlanes[k] == t) {
            batch_init(b, fr, t);
            k++;
        }
        int64_t end = init && k < b->ninit ? b->initlanes[k] : R->n;
        if (reg) {
            float *cell = (float *)out->data + off;
            *cell = fold_f32(b, R, *cell, t, end);
            t = end;
        } else {
            for (; t < end; t++)
                fold_cell(b, R, out, off, t);
        }
    }
}

static void narrow_f32(float *restrict d, const double *restrict v, int64_t n)
{
    EACH_LANE(n, d[t] = (float)v[t]);
}

static void scatter_f32(float *restrict d, const int64_t *restrict flat, const double *restrict v, int64_t n)
{
    EACH_LANE(n, d[flat[t]] = (float)v[t]);
}

/* An elementwise store: every lane's offset is checked before any is written. */
static int scatter(const Batch *b, Frame *fr, const VRun *R)
{
    Tensor *out = fr->buf[b->st->slot];
    int64_t *off = VINT(R, b->addr.c);
    if (b->proven && b->addr.unit && b->st->run == st_f32_aff) {
        narrow_f32((float *)out->data + vbase(&b->addr, fr) + b->addr.rel[0], VREG(R, b->val), R->n);
        return 0;
    }
    if (b->proven) {
        int64_t base = vbase(&b->addr, fr);
        for (int64_t t = 0; t < R->n; t++)
            off[t] = base + (b->addr.rel ? b->addr.rel[t] : 0);
    } else if (b->addr.ta) {
        int64_t base;
        if (tile_base(b->addr.ta, fr, out, &base))
            return -1;
        if (b->st->run == st_f32) {     /* checked whole: no offset per lane to keep */
            scatter_f32((float *)out->data + base, b->addr.ta->flat, VREG(R, b->val), R->n);
            return 0;
        }
        for (int64_t t = 0; t < R->n; t++)
            off[t] = base + b->addr.ta->flat[t];
    } else if (checked_offsets(&b->addr, R, out, off)) {
        return -1;
    }
    SFn run = b->st->run;
    if (run == st_f32_aff || run == st_f32) {
        const double *v = VREG(R, b->val);
        float *d = out->data;
        for (int64_t t = 0; t < R->n; t++)
            d[off[t]] = (float)v[t];
    } else if (run == st_fany_aff || run == st_fany) {
        const double *v = VREG(R, b->val);
        for (int64_t t = 0; t < R->n; t++)
            tensor_setf(out, off[t], v[t]);
    } else {
        const int64_t *v = VINT(R, b->val);
        for (int64_t t = 0; t < R->n; t++)
            tensor_seti(out, off[t], v[t]);
    }
    return 0;
}

/* Runs one tile of the band (the outermost loop's variable holds the
 * tile's first value); -1, having written nothing, when the closures must
 * run it instead: the step budget, overlapping buffers, or a lane that
 * would fail. */
static int run_batch(const Batch *b, Frame *fr)
{
    if (*fr->steps > fr->max_steps - b->steps || *fr->stop)
        return -1;
    const Tensor *out = fr->buf[b->st->slot];
    if (!out)
        return -1;
    for (int i = 0; i < b->nl; i++) {
        const Tensor *t = fr->buf[b->lslot[i]];
        if (!t || (b->lslot[i] != b->st->slot && overlaps(t, out)))
            return -1;
    }
    size_t need = (size_t)b->nregs * (size_t)b->n * 8;
    if (fr->vcap < need) {
        free(fr->vreg);
        if (!(fr->vreg = xmalloc(need)))
            oom_fail();
        fr->vcap = need;
    }
    VRun R = { fr, b->n, fr->vreg };
    for (int i = 0; i < b->nops && !b->fused; i++)
        if (b->ops[i].run(&b->ops[i], &R))
            return -1;
    if (b->root)
        reduce(b, fr, &R);
    else if (scatter(b, fr, &R))
        return -1;
    *fr->steps += b->steps;
    return 0;
}

int64_t batch_tiles(const SNode *s, Frame *fr, int64_t from, int64_t to)
{
    const Batch *b = s->batch;
    int64_t v = from;
    for (; to - v >= b->T; v += b->T) {
        fr->iv[s->slot] = v;
        if (run_batch(b, fr))
            break;
    }
    return v;
}

/* The loop in tiles; from the first tile that cannot run as a batch (and
 * for the iterations no whole tile covers) the closures run the rest. */
void s_for_batch(const SNode *s, Frame *fr)
{
    const Batch *b = s->batch;
    int64_t lo = b->lo[0], end = lo + b->ext[0];
    if (par_pays(s, fr, lo, b->ext[0])) {
        run_par(s, fr, lo, b->ext[0]);
        return;
    }
    int64_t v = batch_tiles(s, fr, lo, end);
    if (v < end)
        for_range(s, fr, v, lo, b->ext[0]);
}

/* C[...] = C[...] + e (T.max, T.min): the combining node, or NULL */
static const Node *reduction_root(const SNode *st)
{
    const Node *r = st->value;
    static const FFn froots[] = { f_add32, f_muladd32, f_add, f_max, f_min };
    static const IFn iroots[] = { i_add, i_max, i_min };
    int ok = 0;
    for (size_t i = 0; i < sizeof froots / sizeof *froots; i++)
        ok |= r->f == froots[i] && st->run != st_iany_aff;
    for (size_t i = 0; i < sizeof iroots / sizeof *iroots; i++)
        ok |= r->i == iroots[i] && st->run == st_iany_aff;
    if (!ok || !r->a || !is_aff_load(r->a) || r->a->slot != st->slot || !same_aff(r->a, st->idx[0]))
        return NULL;
    return r;
}

/* whether the band reaches a different element at every lane */
static int injective(Compiled *c, const Batch *b, const int64_t *rel)
{
    if (!rel)
        return b->n == 1;
    int64_t *v = arena_array(&c->arena, (size_t)b->n, sizeof *v);
    memcpy(v, rel, (size_t)b->n * sizeof *v);
    for (int64_t i = 1; i < b->n; i++) {     /* insertion sort of a few thousand: compile time only */
        int64_t x = v[i], j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    for (int64_t i = 1; i < b->n; i++)
        if (v[i] == v[i - 1])
            return 0;
    return 1;
}

/* whether n reads buffer slot */
static int reads(const Node *n, int slot)
{
    if (!n)
        return 0;
    if (is_load(n) && n->slot == slot)
        return 1;
    for (int d = 0; is_load(n) && !is_aff_load(n) && d < n->nidx; d++)
        if (reads(n->idx[d], slot))
            return 1;
    return reads(n->a, slot) || reads(n->b, slot) || reads(n->c, slot);
}

/* which of the band's loops the proven store's address depends on */
static unsigned addr_loops(const Batch *b, const SNode *st)
{
    unsigned mask = 0;
    const Node *a = st->idx[0];
    for (int j = 0; j < a->naff; j++) {
        int l = band_loop(b, a->aff_var[j]);
        if (l >= 0 && a->aff_coef[j])
            mask |= 1u << l;
    }
    return mask;
}

static void fill_lanes(Compiled *c, Batch *b)
{
    for (int j = 0; j < b->nloop; j++) {
        int64_t *v = b->lane[j] = arena_array(&c->arena, (size_t)b->n, sizeof *v);
        int64_t inner = 1;
        for (int i = j + 1; i < b->nloop; i++)
            inner *= b->ext[i];
        for (int64_t t = 0; t < b->n; t++) {
            int il = b->inter && !b->blocked;
            int64_t s = il ? t % b->T : t / b->K, r = il ? t / b->T : t % b->K;
            v[t] = j == 0 ? s : b->lo[j] + r / inner % b->ext[j];
        }
    }
}

/* T.init runs where every reduction iterator is 0: at the lanes of a tile
 * where the band's are, when the others are (checked as it runs) */
static int batch_inits(Compiled *c, Batch *b, const SNode *blk, int red)
{
    if (!blk || !blk->init)
        return 0;
    b->initlanes = arena_array(&c->arena, (size_t)b->n, sizeof *b->initlanes);
    for (int i = 0; i < blk->nidx; i++) {
        int l = band_loop(b, blk->rslot[i]);
        if (l < 0) {
            if (b->norslot == 16)
                return -1;
            b->orslot[b->norslot++] = blk->rslot[i];
        } else if (l == 0 && (b->T != b->ext[0] || b->inter)) {
            return -1;     /* the outermost loop's value differs from tile to tile */
        }
    }
    for (int64_t t = 0; t < b->n; t++) {
        int zero = 1;
        for (int i = 0; i < blk->nidx && zero; i++) {
            int l = band_loop(b, blk->rslot[i]);
            zero = l < 0 || b->lane[l][t] + (l ? 0 : b->lo[0]) == 0;
        }
        if (zero)
            b->initlanes[b->ninit++] = t;
    }
    if (!b->ninit)
        return 0;
    const SNode *in = blk->init, *x = b->st;
    if (!red || !is_aff_store(in) || in->slot != x->slot || !same_aff(in->idx[0], x->idx[0]) || reads(in->value, x->slot))
        return -1;
    /* interleaved reductions start together: T.init only at their first lanes */
    if (b->inter && b->ninit != b->T)
        return -1;
    for (int64_t s = 0; b->inter && s < b->T; s++)
        if (b->initlanes[s] != red_lane(b, s))
            return -1;
    b->init = in;
    if (in->run == st_f32_aff && in->value->f == f_const) {
        /* interleaved float32 reductions start in their registers */
        b->init_const = 1;
        b->init_value = (float)in->value->d;
    }
    return 0;
}

/* The lanes of a proven float32 load as base + c0 * s + R[r] (lane r * T + s). */
static int lanes_2d(Compiled *c, const Batch *b, const int64_t *rel, int64_t *c0, int64_t **R)
{
    *c0 = b->T > 1 ? rel[1] - rel[0] : 0;
    *R = arena_array(&c->arena, (size_t)b->K, sizeof **R);
    for (int64_t r = 0; r < b->K; r++) {
        (*R)[r] = rel[r * b->T];
        for (int64_t s = 0; s < b->T; s++)
            if (rel[r * b->T + s] != (*R)[r] + *c0 * s)
                return -1;
    }
    return 0;
}

static int fused_load(Compiled *c, const Batch *b, const VOp *o, struct FLoad *f, int guard_ok)
{
    if (!o || o->m >= 0 || !o->rel)
        return -1;
    f->op = o;
    if (o->run == v_ld_f32_guard && guard_ok) {
        double k = o->n->c->d;
        if ((double)(float)k != k || lanes_2d(c, b, o->sub[0].rel, &f->gc0[0], &f->GR[0]) ||
            lanes_2d(c, b, o->sub[1].rel, &f->gc0[1], &f->GR[1]) || o->glo[0] > o->ghi[0] || o->glo[1] > o->ghi[1])
            return -1;
        f->guarded = 1;
        f->pad = (float)k;
        return lanes_2d(c, b, o->rel, &f->c0, &f->R);
    }
    if (o->run != v_ld_aff || o->n->f != ld_f32_aff)
        return -1;
    return lanes_2d(c, b, o->rel, &f->c0, &f->R);
}

/* Whether a reduction's value has the shape fuse_loads takes: a load (or
 * a padding guard's select of one), or a product of two. */
static int may_fuse(const Node *root)
{
    const Node *e = root->b;
    if (!is_load(e) && e->f != f_select)
        return 0;
    return root->f != f_muladd32 || is_load(root->c);
}

/* Whether an interleaved float32 reduction folds its loads from memory:
 * its value a load, or (a + b * c) a product of two, and nothing else. */
static void fuse_loads(Compiled *c, Batch *b)
{
    int two = b->root->f == f_muladd32;
    if (!b->inter || b->blocked || b->st->run != st_f32_aff || b->root->f == f_add || b->nops != 1 + two)
        return;
    const VOp *x = &b->ops[0], *y = two ? &b->ops[1] : NULL;
    if (x->out != b->val || (two && y->out != b->e2) || fused_load(c, b, x, &b->fl[0], two) ||
        (two && fused_load(c, b, y, &b->fl[1], 0)))
        return;
    b->fused = 1;
}

static const Batch *band_compile(Compiled *c, const SNode *s, int64_t cap, int *big)
{
    Batch *b = arena_zalloc(&c->arena, sizeof *b);
    *big = 0;
    const SNode *x = s;
    b->K = 1;
    for (; x->run == s_for || x->run == s_for_batch; x = x->body) {
        if (b->nloop == BATCH_LOOPS || x->lo->i != i_const || x->ext->i != i_const || band_loop(b, x->slot) >= 0)
            return NULL;
        int64_t lo = x->lo->k, ext = x->ext->k;
        if (ext <= 0 || lo < -(1 << 30) || lo > (1 << 30) || ext > (1 << 30) ||
            (b->nloop && (ext > cap || b->K * ext > cap)))
            return NULL;
        if (b->nloop)
            b->K *= ext;
        b->slot[b->nloop] = x->slot;
        b->lo[b->nloop] = lo;
        b->ext[b->nloop++] = ext;
    }
    const SNode *blk = NULL;
    if (x->run == s_block_plain) {
        blk = x;
        x = x->body;
    }
    if (!is_store(x) || x->st)
        return NULL;
    b->st = x;
    b->proven = is_aff_store(x);
    /* a reduction: the address depends on no loop of the band, or only on
     * the outermost, whose iterations then interleave */
    const Node *root = b->proven ? reduction_root(x) : NULL;
    unsigned loops = b->proven ? addr_loops(b, x) : ~0u;
    if (root && loops == 1 && b->nloop > 1) {
        b->inter = 1;
        b->blocked = !may_fuse(root);
    } else if (loops != 0) {
        root = NULL;
    }
    /* a fold that takes its loads from memory keeps no lanes in registers:
     * its tiles may be longer, each position r set up for more reductions */
    int64_t max = BATCH_MAX;
    if (cap > BATCH_MAX && b->inter && !b->blocked && x->run == st_f32_aff && root->f != f_add)
        max = cap;
    *big = max > BATCH_MAX;
    b->T = b->ext[0] < max / b->K ? b->ext[0] : max / b->K;
    b->n = b->T * b->K;
    if (b->n < BATCH_MIN)
        return NULL;
    int64_t per = 1, prod = 1;     /* loop iterations per iteration of the outermost */
    for (int j = 1; j < b->nloop; j++)
        per += prod *= b->ext[j];
    b->steps = b->T * per;
    fill_lanes(c, b);
    b->addr.m = -1;
    if (b->proven) {
        const Node *a = x->idx[0];
        if (split_aff(c, b, &b->addr, a->k, a->naff, a->aff_var, a->aff_coef))
            return NULL;
    }
    if (root) {
        b->root = root;
        b->e2 = -1;
        if ((b->val = vnode(c, b, root->b, -1)) < 0 ||
            (root->f == f_muladd32 && (b->e2 = vnode(c, b, root->c, -1)) < 0))
            return NULL;
        b->acc = b->nregs++;
        fuse_loads(c, b);
    } else {
        if ((b->val = vnode(c, b, x->value, -1)) < 0)
            return NULL;
        if (!b->proven && !(b->addr.ta = tile_access(c, b, x->idx, x->nidx, x->decl))) {
            b->addr.dreg = arena_array(&c->arena, (size_t)x->nidx + 1, sizeof *b->addr.dreg);
            b->addr.nd = x->nidx;
            for (int d = 0; d < x->nidx; d++)
                if ((b->addr.dreg[d] = vnode(c, b, x->idx[d], -1)) < 0)
                    return NULL;
        }
        b->addr.c = b->nregs++;
    }
    /* what the value reads of the stored buffer: for an elementwise store
     * only the element it writes, a different one at every lane of the loop */
    for (int i = 0; i < b->nops; i++) {
        const VOp *o = &b->ops[i];
        int sel = o->run == v_ld_f32_sel || o->run == v_ld_f32_guard;
        const Node *ld = sel ? o->n->b : o->n;
        if ((o->run == v_ld_aff || o->run == v_ld_checked || o->run == v_ld_tile || sel) && ld->slot == x->slot &&
            (root || o->run != v_ld_aff || !b->proven || !same_aff(ld, x->idx[0]) || b->T != b->ext[0] ||
             !injective(c, b, b->addr.rel)))
            return NULL;
    }
    if (batch_inits(c, b, blk, root != NULL))
        return NULL;
    return b;
}

/* A band's batch, with tiles up to FUSED_MAX lanes when its fold takes its
 * loads from memory, else (or when it turns out not to) BATCH_MAX. */
const Batch *batch_compile(Compiled *c, const SNode *s)
{
    int big;
    const Batch *b = band_compile(c, s, FUSED_MAX, &big);
    if (big && !(b && b->fused))
        b = band_compile(c, s, BATCH_MAX, &big);
    return b;
}
