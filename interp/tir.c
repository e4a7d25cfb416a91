/* Running PrimFuncs. Each function is compiled once into a tree of typed
 * closures: an expression node computes an integer (int64, also for bools)
 * or a float (double, rounded to the node's dtype after every operation, so
 * float32 arithmetic gives float32 results); a statement node runs. Buffer
 * accesses check every index against the buffer's extent; a runtime error
 * leaves through longjmp with a message naming the buffer, the indices and
 * the line. Bands of innermost loops also run as batches (see "batches"). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../printer/print.h"
#include "interp.h"
#include "memo.h"
#include "par.h"

typedef struct Frame {
    int64_t *iv;
    double *fv;
    Tensor **buf;
    InterpError *err;
    jmp_buf jb;
    /* the run's loop iterations so far and its budget (--max-steps) */
    int64_t *steps;
    int64_t max_steps;
    const char *fname;
    int threads;           /* -j: loops proven parallel may use this many */
    int in_par;            /* running inside a loop split over threads */
    int niv, nfv, nbuf;    /* the sizes of iv, fv and buf */
    int64_t *par_loops;    /* counts the loops run on threads */
    /* the registers of batched loops (see "batches") */
    unsigned char *vreg;
    size_t vcap;
} Frame;

typedef struct Node Node;
typedef int64_t (*IFn)(const Node *, Frame *);
typedef double (*FFn)(const Node *, Frame *);

struct Node {
    IFn i;                 /* integer-valued nodes (ints and bools) */
    FFn f;                 /* float-valued nodes */
    const Node *a, *b, *c;
    int64_t k;
    double d;
    int slot;
    DType dt;
    const Node **idx;      /* a load's indices */
    int nidx;
    const Node **st;       /* a strided buffer's strides (nidx of them), or NULL */
    const Node *eoff;      /* and its elem_offset */
    Loc loc;
    const Buffer *decl;
    /* an access proven in bounds: offset k + sum coef[j] * iv[var[j]] */
    int naff;
    int aff_var[8];
    int64_t aff_coef[8];
};

typedef struct SNode SNode;
typedef void (*SFn)(const SNode *, Frame *);

/* An integer expression as k + sum coef * slot. */
typedef struct Aff {
    int64_t k;
    int n;
    int var[8];
    int64_t coef[8];
} Aff;

struct SNode {
    SFn run;
    const SNode **items;
    int n;
    const SNode *body, *init, *orelse;
    const Node *cond, *lo, *ext, *value;
    int slot;
    const Node **idx;
    int nidx;
    int *iter_slot;        /* block iterators */
    const Node **bind;
    int64_t *dom;
    const Node **domn;     /* a block iterator's domain known only at run time (symbolic), or NULL */
    char *kind;
    int niter;
    DType dt;
    Loc loc;
    const Buffer *decl;
    const Node **shape;    /* alloc_buffer */
    int nshape;
    const Node **st;       /* a strided buffer's strides (store, alloc_buffer, view), or NULL */
    const Node *eoff;      /* and its elem_offset */
    int *rslot;            /* a block's reduction iterators (nidx of them) */
    const Var *var;        /* a loop's variable, for messages */
    int64_t body_steps;    /* a parallel loop: the steps one run of its body makes, at most */
    int par;               /* par_loop_ok proves its iterations independent */
    const struct Batch *batch;   /* a loop that also runs as a batch */
};

typedef struct Slot {
    const void *key;
    int slot;
} Slot;

typedef struct Compiled {
    Func *fn;
    Arena arena;
    int niv, nfv, nbuf;
    const SNode *body;
    /* per parameter: its buffer slot (or -1) and, for handles, the slot the
     * matched buffer takes */
    int *param_buf;
    int *allocs;           /* buffer slots that alloc_buffer fills */
    int nallocs;
    int *views;            /* buffer slots of views (T.Buffer(..., data=B.data)): freed, not their data */
    int nviews;
    /* while compiling */
    Slot *vars, *fvars, *bufs;
    int nvars, nfvars, nbufs, cap;
    InterpError *err;
    int failed;
    /* the range of each integer slot where it is known: loop variables with
     * constant bounds, block iterators inside their block */
    int64_t *rlo, *rhi;
    int nrange;
    /* facts a T.if_then_else condition gives its then-branch: lo <= sum <= hi */
    struct Fact { Aff a; int64_t lo, hi; } facts[16];
    int nfacts;
    SNode **par;           /* loops par_loop_ok accepts: plain loops again when the function has views */
    int npar;
    int batches;           /* loop bands also compile into batches */
} Compiled;

/* ---- runtime errors ---- */

static void fail(Frame *fr, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static void fail(Frame *fr, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fr->err->loc = loc;
    vsnprintf(fr->err->msg, sizeof fr->err->msg, fmt, ap);
    va_end(ap);
    longjmp(fr->jb, 1);
}


/* ---- integer nodes ---- */

#define I(n) ((n)->i((n), fr))
#define F(n) ((n)->f((n), fr))
#define W(x) ((int64_t)(uint64_t)(x))

static int64_t i_const(const Node *n, Frame *fr) { (void)fr; return n->k; }
static int64_t i_var(const Node *n, Frame *fr) { return fr->iv[n->slot]; }
static int64_t i_add(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) + (uint64_t)I(n->b)); }
static int64_t i_sub(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) - (uint64_t)I(n->b)); }
static int64_t i_mul(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) * (uint64_t)I(n->b)); }
static int64_t i_neg(const Node *n, Frame *fr) { return W(0 - (uint64_t)I(n->a)); }
static int64_t i_min(const Node *n, Frame *fr) { int64_t a = I(n->a), b = I(n->b); return a < b ? a : b; }
static int64_t i_max(const Node *n, Frame *fr) { int64_t a = I(n->a), b = I(n->b); return a > b ? a : b; }
static int64_t i_lt(const Node *n, Frame *fr) { return I(n->a) < I(n->b); }
static int64_t i_le(const Node *n, Frame *fr) { return I(n->a) <= I(n->b); }
static int64_t i_gt(const Node *n, Frame *fr) { return I(n->a) > I(n->b); }
static int64_t i_ge(const Node *n, Frame *fr) { return I(n->a) >= I(n->b); }
static int64_t i_eq(const Node *n, Frame *fr) { return I(n->a) == I(n->b); }
static int64_t i_ne(const Node *n, Frame *fr) { return I(n->a) != I(n->b); }
static int64_t i_and(const Node *n, Frame *fr) { return I(n->a) && I(n->b); }
static int64_t i_or(const Node *n, Frame *fr) { return I(n->a) || I(n->b); }
static int64_t i_not(const Node *n, Frame *fr) { return !I(n->a); }
static int64_t i_select(const Node *n, Frame *fr) { return I(n->a) ? I(n->b) : I(n->c); }

/* T.assume(c): a fact the function states about its inputs (transform-layout
 * states what an input's padding holds); a run that breaks it stops. */
static int64_t i_assume(const Node *n, Frame *fr)
{
    if (!I(n->a))
        fail(fr, n->loc, "the assumption T.assume does not hold here (in %s)", fr->fname);
    return 1;
}
static int64_t f_lt(const Node *n, Frame *fr) { return F(n->a) < F(n->b); }
static int64_t f_le(const Node *n, Frame *fr) { return F(n->a) <= F(n->b); }
static int64_t f_gt(const Node *n, Frame *fr) { return F(n->a) > F(n->b); }
static int64_t f_ge(const Node *n, Frame *fr) { return F(n->a) >= F(n->b); }
static int64_t f_eq(const Node *n, Frame *fr) { return F(n->a) == F(n->b); }
static int64_t f_ne(const Node *n, Frame *fr) { return F(n->a) != F(n->b); }

static int64_t i_div(const Node *n, Frame *fr)
{
    int64_t a = I(n->a), b = I(n->b);
    if (b == 0)
        fail(fr, n->loc, "division by zero");
    if (b == -1)   /* INT64_MIN / -1 wraps; any remainder by -1 is 0 */
        return n->k == B_FLOORDIV || n->k == B_DIV ? W(0 - (uint64_t)a) : 0;
    switch (n->k) {
    case B_FLOORDIV: return floordiv64(a, b);
    case B_FLOORMOD: return floormod64(a, b);
    case B_DIV: return a / b;
    default: return a % b;     /* truncmod */
    }
}

/* Wraps an integer to the width of its dtype, as a cast or store does. */
static int64_t wrap(DType t, int64_t v)
{
    switch (t) {
    case DT_BOOL: return v != 0;
    case DT_INT8: return (int8_t)v;
    case DT_UINT8: return (uint8_t)v;
    case DT_INT16: return (int16_t)v;
    case DT_UINT16: return (uint16_t)v;
    case DT_INT32: return (int32_t)v;
    case DT_UINT32: return (uint32_t)v;
    default: return v;
    }
}

static int64_t i_wrap(const Node *n, Frame *fr) { return wrap(n->dt, I(n->a)); }

/* k + sum coef * var: index arithmetic in one node */
static int64_t i_aff(const Node *n, Frame *fr)
{
    uint64_t v = (uint64_t)n->k;
    for (int j = 0; j < n->naff; j++)
        v += (uint64_t)n->aff_coef[j] * (uint64_t)fr->iv[n->aff_var[j]];
    return (int64_t)v;
}

/* k + sum coef * var compared with 0: a comparison of an index with a constant */
#define AFF_CMP(name, test) \
    static int64_t name(const Node *n, Frame *fr) { int64_t v = i_aff(n, fr); return v test 0; }
AFF_CMP(i_aff_lt, <)
AFF_CMP(i_aff_le, <=)
AFF_CMP(i_aff_gt, >)
AFF_CMP(i_aff_ge, >=)
AFF_CMP(i_aff_eq, ==)
AFF_CMP(i_aff_ne, !=)

static int64_t i_aff1(const Node *n, Frame *fr)
{
    return (int64_t)((uint64_t)n->k + (uint64_t)n->aff_coef[0] * (uint64_t)fr->iv[n->aff_var[0]]);
}

/* float -> int: truncation; NaN and out-of-range values give 0 (C leaves them undefined). */
static int64_t i_from_f(const Node *n, Frame *fr)
{
    double v = F(n->a);
    if (!(v > -9.2e18 && v < 9.2e18))
        return 0;
    return wrap(n->dt, (int64_t)v);
}

/* ---- float nodes ---- */

static double rnd(const Node *n, double v)
{
    return n->dt == DT_FLOAT32 ? (double)(float)v : n->dt == DT_FLOAT64 ? v : round_to(n->dt, v);
}

static double f_const(const Node *n, Frame *fr) { (void)fr; return n->d; }
static double f_var(const Node *n, Frame *fr) { return fr->fv[n->slot]; }
static double f_add32(const Node *n, Frame *fr) { return (float)(F(n->a) + F(n->b)); }
static double f_sub32(const Node *n, Frame *fr) { return (float)(F(n->a) - F(n->b)); }
static double f_mul32(const Node *n, Frame *fr) { return (float)(F(n->a) * F(n->b)); }
static double f_div32(const Node *n, Frame *fr) { return (float)(F(n->a) / F(n->b)); }
static double f_add(const Node *n, Frame *fr) { return rnd(n, F(n->a) + F(n->b)); }
/* a + b * c in float32, rounded after the product and after the sum */
static double f_muladd32(const Node *n, Frame *fr)
{
    double a = F(n->a);
    return (float)(a + (float)(F(n->b) * F(n->c)));
}
static double f_sub(const Node *n, Frame *fr) { return rnd(n, F(n->a) - F(n->b)); }
static double f_mul(const Node *n, Frame *fr) { return rnd(n, F(n->a) * F(n->b)); }
static double f_div(const Node *n, Frame *fr) { return rnd(n, F(n->a) / F(n->b)); }
static double f_neg(const Node *n, Frame *fr) { return -F(n->a); }
static double f_min(const Node *n, Frame *fr) { double a = F(n->a), b = F(n->b); return a < b ? a : b; }
static double f_max(const Node *n, Frame *fr) { double a = F(n->a), b = F(n->b); return a > b ? a : b; }
static double f_select(const Node *n, Frame *fr) { return I(n->a) ? F(n->b) : F(n->c); }
static double f_from_i(const Node *n, Frame *fr) { return rnd(n, (double)I(n->a)); }
static double f_round(const Node *n, Frame *fr) { return rnd(n, F(n->a)); }
static double f_floordiv(const Node *n, Frame *fr) { return rnd(n, floor(F(n->a) / F(n->b))); }
static double f_floormod(const Node *n, Frame *fr)
{
    double a = F(n->a), b = F(n->b);
    return rnd(n, a - floor(a / b) * b);
}

typedef double (*Math1)(double);
typedef double (*Math2)(double, double);

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double rsqrt(double x) { return 1.0 / sqrt(x); }

static double f_math1(const Node *n, Frame *fr) { return rnd(n, ((Math1)(uintptr_t)n->k)(F(n->a))); }

static double f_pow(const Node *n, Frame *fr) { return rnd(n, pow(F(n->a), F(n->b))); }

/* ---- loads and stores ---- */

static void oob(const Node *acc, const Tensor *t, Frame *fr, const Node **idx, int nidx, const char *what)
{
    char buf[256];
    size_t at = 0;
    int bad = -1;
    int64_t badv = 0;
    for (int d = 0; d < nidx; d++) {
        int64_t v = I(idx[d]);
        if (bad < 0 && (v < 0 || v >= t->shape[d])) {
            bad = d;
            badv = v;
        }
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%lld", d ? ", " : "", (long long)v);
        if (at >= sizeof buf)
            at = sizeof buf - 1;
    }
    fail(fr, acc->loc, "out-of-bounds %s %s[%s]: index %lld of dimension %d is outside [0, %lld)", what,
         acc->decl->name->str, buf, (long long)badv, bad, (long long)t->shape[bad]);
}

/* A buffer declared with strides= (and elem_offset=) is a strided view of
 * its storage: each index stays within its dimension, and the element
 * elem_offset + sum index * stride within the storage the tensor reaches
 * (its count). */
static int64_t strided_offset(const Node *n, Frame *fr, const Tensor *t, const Node **idx, int nidx,
                              const Node *const *st, const Node *eoff, const char *what)
{
    uint64_t off = (uint64_t)I(eoff);
    for (int d = 0; d < nidx; d++) {
        int64_t v = I(idx[d]);
        if ((uint64_t)v >= (uint64_t)t->shape[d])
            oob(n, t, fr, idx, nidx, what);
        off += (uint64_t)v * (uint64_t)I(st[d]);
    }
    if ((int64_t)off < 0 || (int64_t)off >= t->count)
        fail(fr, n->loc, "out-of-bounds %s %s: its strides reach element %lld of a storage of %lld elements", what,
             n->decl->name->str, (long long)(int64_t)off, (long long)t->count);
    return (int64_t)off;
}

static int64_t offset(const Node *n, Frame *fr, const Tensor *t, const Node **idx, int nidx, const char *what)
{
    if (n->st)
        return strided_offset(n, fr, t, idx, nidx, n->st, n->eoff, what);
    int64_t off = 0;
    for (int d = 0; d < nidx; d++) {
        int64_t v = I(idx[d]);
        if ((uint64_t)v >= (uint64_t)t->shape[d])
            oob(n, t, fr, idx, nidx, what);
        off = off * t->shape[d] + v;
    }
    return off;
}

#define LOAD_OFF(n) (offset((n), fr, fr->buf[(n)->slot], (n)->idx, (n)->nidx, "read of"))

static double ld_f32(const Node *n, Frame *fr) { return ((const float *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
static double ld_f64(const Node *n, Frame *fr) { return ((const double *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
static double ld_fany(const Node *n, Frame *fr) { return tensor_getf(fr->buf[n->slot], LOAD_OFF(n)); }
static int64_t ld_i32(const Node *n, Frame *fr) { return ((const int32_t *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
static int64_t ld_i8(const Node *n, Frame *fr) { return ((const int8_t *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
static int64_t ld_iany(const Node *n, Frame *fr) { return tensor_geti(fr->buf[n->slot], LOAD_OFF(n)); }

static inline int64_t aff_off(const Node *n, const Frame *fr)
{
    int64_t off = n->k;
    for (int j = 0; j < n->naff; j++)
        off += n->aff_coef[j] * fr->iv[n->aff_var[j]];
    return off;
}

static double ld_f32_aff(const Node *n, Frame *fr) { return ((const float *)fr->buf[n->slot]->data)[aff_off(n, fr)]; }
static double ld_fany_aff(const Node *n, Frame *fr) { return tensor_getf(fr->buf[n->slot], aff_off(n, fr)); }
static int64_t ld_iany_aff(const Node *n, Frame *fr) { return tensor_geti(fr->buf[n->slot], aff_off(n, fr)); }

/* Statement nodes keep their access in an expression node for messages. */
static int64_t store_off(const SNode *s, Frame *fr)
{
    Node acc = { 0 };
    acc.loc = s->loc;
    acc.decl = s->decl;
    acc.st = s->st;
    acc.eoff = s->eoff;
    return offset(&acc, fr, fr->buf[s->slot], s->idx, s->nidx, "write of");
}

static void st_f32(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    ((float *)fr->buf[s->slot]->data)[store_off(s, fr)] = (float)v;
}

/* A store proven in bounds keeps its offset in the node at value->... no:
 * in an expression node hung on idx[0]. */
static void st_f32_aff(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    ((float *)fr->buf[s->slot]->data)[aff_off(s->idx[0], fr)] = (float)v;
}

static void st_fany_aff(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    tensor_setf(fr->buf[s->slot], aff_off(s->idx[0], fr), v);
}

static void st_iany_aff(const SNode *s, Frame *fr)
{
    int64_t v = I(s->value);
    tensor_seti(fr->buf[s->slot], aff_off(s->idx[0], fr), v);
}

static void st_fany(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    tensor_setf(fr->buf[s->slot], store_off(s, fr), v);
}

static void st_iany(const SNode *s, Frame *fr)
{
    int64_t v = I(s->value);
    tensor_seti(fr->buf[s->slot], store_off(s, fr), v);
}

/* ---- statements ---- */

static void s_seq(const SNode *s, Frame *fr)
{
    for (int i = 0; i < s->n; i++)
        s->items[i]->run(s->items[i], fr);
}

static void out_of_steps(const SNode *s, Frame *fr, int64_t v, int64_t lo, int64_t n)
{
    fail(fr, s->loc, "the run reached --max-steps %lld (a step is one loop iteration) in prim_func '%s', "
         "at %s = %lld of this loop's range [%lld, %lld)", (long long)fr->max_steps, fr->fname,
         s->var->name->str, (long long)v, (long long)lo, (long long)lo + n);
}

/* iterations from..lo+n of a loop over [lo, lo + n) */
static void for_range(const SNode *s, Frame *fr, int64_t from, int64_t lo, int64_t n)
{
    const SNode *body = s->body;
    for (int64_t v = from; v < lo + n; v++) {
        if (++*fr->steps > fr->max_steps)
            out_of_steps(s, fr, v, lo, n);
        fr->iv[s->slot] = v;
        body->run(body, fr);
    }
}

/* A block whose iterators are all aliases and that has no predicate; the
 * tail of every block: T.init on the first reduction step, then the body. */
static void s_block_plain(const SNode *s, Frame *fr)
{
    if (s->init) {
        int first = 1;
        for (int i = 0; i < s->nidx && first; i++)
            if (fr->iv[s->rslot[i]] != 0)
                first = 0;
        if (first)
            s->init->run(s->init, fr);
    }
    s->body->run(s->body, fr);
}

static void s_block(const SNode *s, Frame *fr)
{
    for (int i = 0; i < s->niter; i++)
        if (s->bind[i])    /* else an alias of a loop variable proven inside the domain */
            fr->iv[s->iter_slot[i]] = I(s->bind[i]);
    /* T.where first: an instance it excludes (a split's tail) may lie outside the domain */
    if (s->cond && !I(s->cond))
        return;
    for (int i = 0; i < s->niter; i++) {
        int64_t v = fr->iv[s->iter_slot[i]], d = s->domn && s->domn[i] ? I(s->domn[i]) : s->dom[i];
        if (s->bind[i] && (v < 0 || v >= d))
            fail(fr, s->loc, "block iterator %d is bound to %lld, outside its domain [0, %lld)", i, (long long)v,
                 (long long)d);
    }
    s_block_plain(s, fr);
}

static void s_if(const SNode *s, Frame *fr)
{
    if (I(s->cond))
        s->body->run(s->body, fr);
    else if (s->orelse)
        s->orelse->run(s->orelse, fr);
}

static void s_eval(const SNode *s, Frame *fr)
{
    if (s->value->f)
        (void)F(s->value);
    else
        (void)I(s->value);
}

/* x = value: the statements after it in its sequence see x. */
static void s_let_i(const SNode *s, Frame *fr)
{
    fr->iv[s->slot] = I(s->value);
}

static void s_let_f(const SNode *s, Frame *fr)
{
    fr->fv[s->slot] = F(s->value);
}

/* The elements a strided buffer of this shape spans from the start of its
 * storage: elem_offset + sum (extent - 1) * stride + 1 (elem_offset when
 * an extent is 0); its strides and offset are not negative. */
static int64_t strided_span(const SNode *s, Frame *fr, const int64_t *shape)
{
    int64_t off = I(s->eoff), span = 1;
    if (off < 0)
        fail(fr, s->loc, "buffer %s has elem_offset %lld; it must not be negative", s->decl->name->str,
             (long long)off);
    for (int d = 0; d < s->nshape; d++) {
        int64_t st = I(s->st[d]), far;
        if (st < 0)
            fail(fr, s->loc, "stride %d of buffer %s is %lld; strides must not be negative", d, s->decl->name->str,
                 (long long)st);
        if (shape[d] <= 0)
            return off;
        if (__builtin_mul_overflow(shape[d] - 1, st, &far) || __builtin_add_overflow(span, far, &span))
            fail(fr, s->loc, "buffer %s spans more elements than int64 counts", s->decl->name->str);
    }
    if (__builtin_add_overflow(span, off, &span))
        fail(fr, s->loc, "buffer %s spans more elements than int64 counts", s->decl->name->str);
    return span;
}

static void s_alloc(const SNode *s, Frame *fr)
{
    if (fr->buf[s->slot])
        return;
    int64_t shape[TENSOR_MAX_RANK];
    for (int d = 0; d < s->nshape; d++)
        shape[d] = I(s->shape[d]);
    Tensor *t;
    if (s->st) {
        /* the storage it spans, seen under the buffer's own shape */
        int64_t span = strided_span(s, fr, shape);
        if ((t = tensor_new(s->dt, 1, &span))) {
            t->ndim = s->nshape;
            memcpy(t->shape, shape, (size_t)s->nshape * sizeof *shape);
        }
    } else {
        t = tensor_new(s->dt, s->nshape, shape);
    }
    if (!t)
        fail(fr, s->loc, "cannot allocate buffer %s", s->decl->name->str);
    tensor_fill_poison_all(t);   /* reading it before writing shows */
    fr->buf[s->slot] = t;
}

/* A view shares its base's storage under its own shape (flatten's aliases). */
static void s_alias(const SNode *s, Frame *fr)
{
    if (fr->buf[s->slot])
        return;
    const Tensor *base = fr->buf[s->n];
    if (!base)
        fail(fr, s->loc, "buffer %s has no storage here", s->decl->base->name->str);
    /* filled before it is allocated, so that a failure leaks nothing */
    Tensor v = { 0 };
    v.dtype = s->dt;
    v.ndim = s->nshape;
    v.count = 1;
    for (int d = 0; d < s->nshape; d++) {
        v.shape[d] = I(s->shape[d]);
        if (v.shape[d] < 0 || __builtin_mul_overflow(v.count, v.shape[d], &v.count))
            v.count = INT64_MAX;
    }
    if (s->st) {
        /* a strided view reaches all of its base's storage; each access
         * checks the element its strides name */
        int64_t span = strided_span(s, fr, v.shape);
        if (span > base->count)
            fail(fr, s->loc, "the strided view %s reaches element %lld but %s holds %lld", s->decl->name->str,
                 (long long)span - 1, s->decl->base->name->str, (long long)base->count);
        v.count = base->count;
    } else if (v.count > base->count) {
        fail(fr, s->loc, "the view %s holds %lld elements but %s holds %lld", s->decl->name->str, (long long)v.count,
             s->decl->base->name->str, (long long)base->count);
    }
    Tensor *t = malloc(sizeof *t);
    if (!t)
        abort();
    *t = v;
    t->data = base->data;
    fr->buf[s->slot] = t;
}

static void s_nop(const SNode *s, Frame *fr)
{
    (void)s;
    (void)fr;
}

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
 * cut into tiles of at most BATCH_MAX lanes); an affine index is an offset
 * computed from the outer loops once per tile plus a per-lane offset
 * computed once at compile time.
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

enum { BATCH_MAX = 4096, BATCH_MIN = 8, BATCH_LOOPS = 8 };

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
    int *dreg;             /* a load not proven in bounds: its index registers */
    int nd;
    /* a conjunction of comparisons of affine indices with constants: per
     * group of identical terms (in sub, whose k is 0), the interval
     * [glo, ghi] the terms' value must lie in */
    const struct VOp *sub;
    const int64_t *glo, *ghi;
    int ng;
};

typedef struct Batch {
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
    VOp *ops;
    int nops, cap, nregs;
    const SNode *st;       /* the store */
    VOp addr;              /* its address when proven (affine), else dreg */
    int proven;
    int val;               /* the value's register; a reduction's e */
    int e2;                /* a float32 a + b * c reduction: c's register, else -1 */
    const Node *root;      /* a reduction's combining node, or NULL */
    int acc;               /* inter: the register of the T accumulators */
    const SNode *init;
    int64_t *initlanes;    /* lanes where the band's reduction iterators are all 0 */
    int ninit;
    int orslot[16];        /* reduction iterators outside the band */
    int norslot;
    int lslot[32];         /* buffers the value reads, checked for overlap */
    int nl;
    /* each loop's value per lane (the outermost's offset in its tile) */
    int64_t *lane[BATCH_LOOPS];
} Batch;

#define VREG(R, r) ((double *)(void *)((R)->reg + (size_t)(r) * (size_t)(R)->n * 8))
#define VINT(R, r) ((int64_t *)(void *)((R)->reg + (size_t)(r) * (size_t)(R)->n * 8))
#define ACTIVE(M, t) (!(M) || (M)[t])

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
    static int name(const VOp *o, const VRun *R) \
    { \
        int64_t *x = VINT(R, o->out); \
        const int64_t *A = VINT(R, o->a), *B = VINT(R, o->b); \
        for (int64_t t = 0; t < R->n; t++) { \
            int64_t a = A[t], b = B[t]; \
            x[t] = (expr); \
        } \
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
    static int name(const VOp *o, const VRun *R) \
    { \
        int64_t *x = VINT(R, o->out); \
        const double *A = VREG(R, o->a), *B = VREG(R, o->b); \
        for (int64_t t = 0; t < R->n; t++) \
            x[t] = A[t] test B[t]; \
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
    static int name(const VOp *o, const VRun *R) \
    { \
        double *x = VREG(R, o->out); \
        const double *A = VREG(R, o->a), *B = VREG(R, o->b); \
        const Node *n = o->n; \
        (void)n; \
        for (int64_t t = 0; t < R->n; t++) { \
            double a = A[t], b = B[t]; \
            x[t] = (expr); \
        } \
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

static int v_fmuladd32(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out);
    const double *A = VREG(R, o->a), *B = VREG(R, o->b), *C = VREG(R, o->c);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = (float)(A[t] + (float)(B[t] * C[t]));
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

static int v_ffromi(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out);
    const int64_t *A = VINT(R, o->a);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = rnd(o->n, (double)A[t]);
    return 0;
}

static int v_fselect(const VOp *o, const VRun *R)
{
    double *x = VREG(R, o->out);
    const int64_t *C = VINT(R, o->a);
    const double *A = VREG(R, o->b), *B = VREG(R, o->c);
    for (int64_t t = 0; t < R->n; t++)
        x[t] = C[t] ? A[t] : B[t];
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

/* a load proven in bounds (where its mask holds) */
static int v_ld_aff(const VOp *o, const VRun *R)
{
    const Tensor *tn = R->fr->buf[o->n->slot];
    int64_t base = vbase(o, R->fr);
    const int64_t *m = o->m >= 0 ? VINT(R, o->m) : NULL, *rel = o->rel;
    if (o->n->f == ld_f32_aff) {
        double *x = VREG(R, o->out);
        const float *d = tn->data;
        if (!m && rel)
            for (int64_t t = 0; t < R->n; t++)
                x[t] = d[base + rel[t]];
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
    return 0;
}

static int vnode(Compiled *c, Batch *b, const Node *n, int m);

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
    for (int64_t s = 0; s < T; s++) {
        float a = acc[s];
        for (int64_t t = s; t < R->n; t += T) {
            double p = e[t];
            float q = (float)p;
            if (op == f_add32)
                a = (double)q == p ? a + q : (float)(a + p);
            else if (op == f_max)
                a = (float)(a > p ? (double)a : p);
            else
                a = (float)(a < p ? (double)a : p);
        }
        acc[s] = a;
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

/* T reductions at once (inter): their T distinct elements are folded lane
 * r * T + s into element s, each in its own order; T.init, which writes
 * only its own element, runs first for each. */
static void reduce_inter(const Batch *b, Frame *fr, const VRun *R)
{
    Tensor *out = fr->buf[b->st->slot];
    int64_t base = vbase(&b->addr, fr), T = b->T;
    if (init_runs(b, fr))
        for (int64_t s = 0; s < T; s++)
            batch_init(b, fr, s);
    if (b->st->run == st_f32_aff && b->root->f != f_add) {
        float *acc = (float *)VREG(R, b->acc), *d = out->data;
        for (int64_t s = 0; s < T; s++)
            acc[s] = d[base + b->addr.rel[s]];
        fold_f32_inter(b, R, acc);
        for (int64_t s = 0; s < T; s++)
            d[base + b->addr.rel[s]] = acc[s];
        return;
    }
    for (int64_t t = 0; t < R->n; t++)
        fold_cell(b, R, out, base + b->addr.rel[t % T], t);
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

/* An elementwise store: every lane's offset is checked before any is written. */
static int scatter(const Batch *b, Frame *fr, const VRun *R)
{
    Tensor *out = fr->buf[b->st->slot];
    int64_t *off = VINT(R, b->addr.c);
    if (b->proven) {
        int64_t base = vbase(&b->addr, fr);
        for (int64_t t = 0; t < R->n; t++)
            off[t] = base + (b->addr.rel ? b->addr.rel[t] : 0);
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
    if (*fr->steps > fr->max_steps - b->steps)
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
        if (!(fr->vreg = malloc(need)))
            abort();
        fr->vcap = need;
    }
    VRun R = { fr, b->n, fr->vreg };
    for (int i = 0; i < b->nops; i++)
        if (b->ops[i].run(&b->ops[i], &R))
            return -1;
    if (b->root)
        reduce(b, fr, &R);
    else if (scatter(b, fr, &R))
        return -1;
    *fr->steps += b->steps;
    return 0;
}

/* The loop in tiles; from the first tile that cannot run as a batch (and
 * for the iterations no whole tile covers) the closures run the rest. */
static void s_for_batch(const SNode *s, Frame *fr);

/* Loops that run on threads: at least this many steps of work each, so
 * that starting the threads costs little beside it. */
enum { PAR_MIN_STEPS = 1 << 16, PAR_MAX_THREADS = 64 };

typedef struct Chunk {
    const SNode *s;
    Frame fr;
    int64_t from, to, steps;
    InterpError err;
    int failed;            /* written by the chunk's thread */
    int started;           /* written by the calling thread */
} Chunk;

/* A chunk's iterations: as batches when the loop is a band's outermost
 * (whole tiles inside the chunk, then one at a time), else one at a time. */
static void *run_chunk(void *p)
{
    Chunk *k = p;
    Frame *fr = &k->fr;
    const SNode *s = k->s;
    if (setjmp(fr->jb) != 0) {
        k->failed = 1;
        return NULL;
    }
    int64_t v = k->from;
    for (; s->run == s_for_batch && k->to - v >= s->batch->T; v += s->batch->T) {
        fr->iv[s->slot] = v;
        if (run_batch(s->batch, fr))
            break;
    }
    for (; v < k->to; v++) {
        k->steps++;
        fr->iv[s->slot] = v;
        s->body->run(s->body, fr);
    }
    return NULL;
}

/* No two buffers of the run share storage (a call may pass one tensor as
 * two arguments): the disjointness par_loop_ok proves is per buffer. */
static int distinct_storage(const Frame *fr)
{
    for (int i = 0; i < fr->nbuf; i++)
        for (int j = i + 1; fr->buf[i] && j < fr->nbuf; j++)
            if (fr->buf[j] && fr->buf[i]->data == fr->buf[j]->data)
                return 0;
    return 1;
}

/* Whether a loop par_loop_ok proves independent runs on threads: not when
 * threads would not pay, nor when its steps could reach --max-steps (the
 * error must name the iteration the ordered run stops at). */
static int par_pays(const SNode *s, const Frame *fr, int64_t lo, int64_t n)
{
    int64_t work;
    return s->par && !fr->in_par && fr->threads >= 2 && n >= 2 && !__builtin_add_overflow(s->body_steps, 1, &work) &&
           !__builtin_mul_overflow(work, n, &work) && work >= PAR_MIN_STEPS && lo <= INT64_MAX - n &&
           work <= fr->max_steps - *fr->steps && distinct_storage(fr);
}

/* The loop split into one contiguous chunk per thread, each with a frame
 * of its own. A failing chunk's error is the one the ordered run meets
 * first when every chunk before it succeeded, so the lowest failing
 * chunk's error is reported. */
static void run_par(const SNode *s, Frame *fr, int64_t lo, int64_t n)
{
    int t = fr->threads < PAR_MAX_THREADS ? fr->threads : PAR_MAX_THREADS;
    ++*fr->par_loops;
    if (t > n)
        t = (int)n;
    Chunk *k = calloc((size_t)t, sizeof *k);
    pthread_t *th = calloc((size_t)t, sizeof *th);
    if (!k || !th)
        abort();
    for (int i = 0; i < t; i++) {
        k[i].s = s;
        k[i].from = lo + n / t * i + (i < n % t ? i : n % t);
        k[i].to = k[i].from + n / t + (i < n % t);
        k[i].fr = *fr;
        k[i].fr.iv = malloc(((size_t)fr->niv + 1) * sizeof *fr->iv);
        k[i].fr.fv = malloc(((size_t)fr->nfv + 1) * sizeof *fr->fv);
        if (!k[i].fr.iv || !k[i].fr.fv)
            abort();
        memcpy(k[i].fr.iv, fr->iv, (size_t)fr->niv * sizeof *fr->iv);
        memcpy(k[i].fr.fv, fr->fv, (size_t)fr->nfv * sizeof *fr->fv);
        k[i].fr.err = &k[i].err;
        k[i].fr.steps = &k[i].steps;
        k[i].fr.max_steps = INT64_MAX;
        k[i].fr.in_par = 1;
        k[i].fr.vreg = NULL;     /* batch registers are per thread */
        k[i].fr.vcap = 0;
    }
    /* the calling thread runs chunk 0; a thread that cannot start leaves
     * its chunk to the calling thread too */
    for (int i = 1; i < t; i++)
        k[i].started = pthread_create(&th[i], NULL, run_chunk, &k[i]) == 0;
    run_chunk(&k[0]);
    for (int i = 1; i < t; i++) {
        if (k[i].started)
            pthread_join(th[i], NULL);
        else
            run_chunk(&k[i]);
    }
    int bad = -1;
    for (int i = 0; i < t; i++) {
        *fr->steps += k[i].steps;
        if (bad < 0 && k[i].failed)
            bad = i;
        free(k[i].fr.iv);
        free(k[i].fr.fv);
        free(k[i].fr.vreg);
    }
    if (bad >= 0)
        *fr->err = k[bad].err;
    free(k);
    free(th);
    if (bad >= 0)
        longjmp(fr->jb, 1);
}

static void s_for(const SNode *s, Frame *fr)
{
    int64_t lo = I(s->lo), n = I(s->ext);
    if (n <= 0)
        return;
    if (par_pays(s, fr, lo, n)) {
        run_par(s, fr, lo, n);
        return;
    }
    if (lo > INT64_MAX - n)
        fail(fr, s->loc, "the loop over %s runs past the largest int64 (from %lld, %lld times)", s->var->name->str,
             (long long)lo, (long long)n);
    for_range(s, fr, lo, lo, n);
}

static void s_for_batch(const SNode *s, Frame *fr)
{
    const Batch *b = s->batch;
    int64_t lo = b->lo[0], end = lo + b->ext[0], v = lo;
    if (par_pays(s, fr, lo, b->ext[0])) {
        run_par(s, fr, lo, b->ext[0]);
        return;
    }
    for (; end - v >= b->T; v += b->T) {
        fr->iv[s->slot] = v;
        if (run_batch(b, fr))
            break;
    }
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
            int64_t s = b->inter ? t % b->T : t / b->K, r = b->inter ? t / b->T : t % b->K;
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
    if (b->inter && (b->ninit != b->T || b->initlanes[b->T - 1] != b->T - 1))
        return -1;
    b->init = in;
    return 0;
}

static const Batch *batch_compile(Compiled *c, const SNode *s)
{
    Batch *b = arena_zalloc(&c->arena, sizeof *b);
    const SNode *x = s;
    b->K = 1;
    for (; x->run == s_for || x->run == s_for_batch; x = x->body) {
        if (b->nloop == BATCH_LOOPS || x->lo->i != i_const || x->ext->i != i_const || band_loop(b, x->slot) >= 0)
            return NULL;
        int64_t lo = x->lo->k, ext = x->ext->k;
        if (ext <= 0 || lo < -(1 << 30) || lo > (1 << 30) || ext > (1 << 30) ||
            (b->nloop && (ext > BATCH_MAX || b->K * ext > BATCH_MAX)))
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
    b->T = b->ext[0] < BATCH_MAX / b->K ? b->ext[0] : BATCH_MAX / b->K;
    b->n = b->T * b->K;
    if (b->n < BATCH_MIN)
        return NULL;
    int64_t per = 1, prod = 1;     /* loop iterations per iteration of the outermost */
    for (int j = 1; j < b->nloop; j++)
        per += prod *= b->ext[j];
    b->steps = b->T * per;
    /* a reduction: the address depends on no loop of the band, or only on
     * the outermost, whose iterations then interleave */
    const Node *root = b->proven ? reduction_root(x) : NULL;
    unsigned loops = b->proven ? addr_loops(b, x) : ~0u;
    if (root && loops == 1 && b->nloop > 1)
        b->inter = 1;
    else if (loops != 0)
        root = NULL;
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
    } else {
        if ((b->val = vnode(c, b, x->value, -1)) < 0)
            return NULL;
        if (!b->proven) {
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
        if ((o->run == v_ld_aff || o->run == v_ld_checked || sel) && ld->slot == x->slot &&
            (root || o->run != v_ld_aff || !b->proven || !same_aff(ld, x->idx[0]) || b->T != b->ext[0] ||
             !injective(c, b, b->addr.rel)))
            return NULL;
    }
    if (batch_inits(c, b, blk, root != NULL))
        return NULL;
    return b;
}

/* ---- compiling ---- */

static int cerr(Compiled *c, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int cerr(Compiled *c, Loc loc, const char *fmt, ...)
{
    if (c->failed++)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    c->err->loc = loc;
    vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static int find(const Slot *s, int n, const void *key)
{
    for (int i = n - 1; i >= 0; i--)
        if (s[i].key == key)
            return s[i].slot;
    return -1;
}

static int add_slot(Compiled *c, Slot **s, int *n, const void *key, int *counter)
{
    if (*n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        Slot *v = arena_array(&c->arena, (size_t)cap, sizeof *v), *f = arena_array(&c->arena, (size_t)cap, sizeof *f),
             *b = arena_array(&c->arena, (size_t)cap, sizeof *b);
        if (c->cap) {
            memcpy(v, c->vars, (size_t)c->nvars * sizeof *v);
            memcpy(f, c->fvars, (size_t)c->nfvars * sizeof *f);
            memcpy(b, c->bufs, (size_t)c->nbufs * sizeof *b);
        }
        c->vars = v;
        c->fvars = f;
        c->bufs = b;
        c->cap = cap;
    }
    (*s)[*n] = (Slot){ key, (*counter)++ };
    return (*s)[(*n)++].slot;
}

static int int_var(Compiled *c, const Var *v)
{
    int s = find(c->vars, c->nvars, v);
    return s >= 0 ? s : add_slot(c, &c->vars, &c->nvars, v, &c->niv);
}

static Node *node(Compiled *c, Loc loc)
{
    Node *n = arena_zalloc(&c->arena, sizeof *n);
    n->loc = loc;
    return n;
}

static Node *iconst(Compiled *c, int64_t k)
{
    Loc none = { 0, 0 };
    Node *n = node(c, none);
    n->i = i_const;
    n->k = k;
    n->dt = DT_INT64;
    return n;
}

static const Node *expr(Compiled *c, const Expr *e);

/* The expression as an integer node, converting a float one. */
static const Node *as_int(Compiled *c, const Node *n, DType t)
{
    if (!n || n->i)
        return n;
    Node *x = node(c, n->loc);
    x->i = i_from_f;
    x->a = n;
    x->dt = t;
    return x;
}

static const Node *as_float(Compiled *c, const Node *n, DType t)
{
    if (!n || n->f)
        return n;
    Node *x = node(c, n->loc);
    x->f = f_from_i;
    x->a = n;
    x->dt = t;
    return x;
}

static int is_float(DType t)
{
    return dtype_is_float(t);
}

static int affine(Compiled *c, const Expr *e, Aff *a);

static const Node *bin(Compiled *c, const Expr *e)
{
    Aff af;
    BinOp op0 = e->u.bin.op;
    if ((op0 == B_ADD || op0 == B_SUB || op0 == B_MUL) && !is_float(tir_dtype(e)) && affine(c, e, &af) == 0 &&
        af.n > 0) {
        Node *x = node(c, e->loc);
        x->k = af.k;
        for (int j = 0; j < af.n; j++)
            if (af.coef[j]) {
                x->aff_var[x->naff] = af.var[j];
                x->aff_coef[x->naff++] = af.coef[j];
            }
        x->i = x->naff == 1 ? i_aff1 : i_aff;
        x->dt = tir_dtype(e);
        return x;
    }
    if (op0 >= B_LT && op0 <= B_NE && !is_float(tir_dtype(e->u.bin.a)) && !is_float(tir_dtype(e->u.bin.b))) {
        /* index op constant (or constant op index) in one node */
        int64_t k;
        const Expr *side = NULL;
        BinOp op = op0;
        if (expr_const_int(e->u.bin.b, &k) == 0) {
            side = e->u.bin.a;
        } else if (expr_const_int(e->u.bin.a, &k) == 0) {
            side = e->u.bin.b;
            op = op == B_LT ? B_GT : op == B_LE ? B_GE : op == B_GT ? B_LT : op == B_GE ? B_LE : op;
        }
        if (side && affine(c, side, &af) == 0 && af.n > 0 && k < (INT64_C(1) << 40) && k > -(INT64_C(1) << 40)) {
            static const IFn cmp[] = { i_aff_lt, i_aff_le, i_aff_gt, i_aff_ge, i_aff_eq, i_aff_ne };
            Node *x = node(c, e->loc);
            x->k = af.k - k;
            for (int j = 0; j < af.n; j++)
                if (af.coef[j]) {
                    x->aff_var[x->naff] = af.var[j];
                    x->aff_coef[x->naff++] = af.coef[j];
                }
            x->i = cmp[op - B_LT];
            x->dt = DT_BOOL;
            return x;
        }
    }
    const Node *a = expr(c, e->u.bin.a), *b = expr(c, e->u.bin.b);
    if (!a || !b)
        return NULL;
    BinOp op = e->u.bin.op;
    Node *n = node(c, e->loc);
    if (op == B_AND || op == B_OR) {
        n->a = as_int(c, a, DT_BOOL);
        n->b = as_int(c, b, DT_BOOL);
        n->i = op == B_AND ? i_and : i_or;
        n->dt = DT_BOOL;
        return n;
    }
    int fl = a->f || b->f;
    DType t = fl ? (a->f ? a->dt : b->dt) : DT_INT64;
    if (op != B_AND && op != B_OR && fl) {
        a = as_float(c, a, t);
        b = as_float(c, b, t);
    }
    n->a = a;
    n->b = b;
    if (op >= B_LT) {
        static const IFn ints[] = { i_lt, i_le, i_gt, i_ge, i_eq, i_ne };
        static const IFn flts[] = { f_lt, f_le, f_gt, f_ge, f_eq, f_ne };
        n->i = (fl ? flts : ints)[op - B_LT];
        n->dt = DT_BOOL;
        return n;
    }
    n->dt = fl ? t : tir_dtype(e);
    if (!fl) {
        switch (op) {
        case B_ADD: n->i = i_add; break;
        case B_SUB: n->i = i_sub; break;
        case B_MUL: n->i = i_mul; break;
        default: n->i = i_div; n->k = op; break;
        }
        return n;
    }
    int f32 = t == DT_FLOAT32;
    if (f32 && op == B_ADD && b->f == f_mul32) {
        n->b = b->a;
        n->c = b->b;
        n->f = f_muladd32;
        return n;
    }
    switch (op) {
    case B_ADD: n->f = f32 ? f_add32 : f_add; break;
    case B_SUB: n->f = f32 ? f_sub32 : f_sub; break;
    case B_MUL: n->f = f32 ? f_mul32 : f_mul; break;
    case B_DIV: n->f = f32 ? f_div32 : f_div; break;
    case B_FLOORDIV: n->f = f_floordiv; break;
    default: n->f = f_floormod; break;
    }
    return n;
}

static void set_range(Compiled *c, int slot, int64_t lo, int64_t hi)
{
    if (slot >= c->nrange) {
        int n = slot + 32;
        int64_t *l = arena_array(&c->arena, (size_t)n, sizeof *l), *h = arena_array(&c->arena, (size_t)n, sizeof *h);
        for (int i = 0; i < n; i++) {
            l[i] = i < c->nrange ? c->rlo[i] : 1;
            h[i] = i < c->nrange ? c->rhi[i] : 0;   /* lo > hi: unknown */
        }
        c->rlo = l;
        c->rhi = h;
        c->nrange = n;
    }
    c->rlo[slot] = lo;
    c->rhi[slot] = hi;
}

static int range_of(const Compiled *c, int slot, int64_t *lo, int64_t *hi)
{
    if (slot >= c->nrange || c->rlo[slot] > c->rhi[slot])
        return -1;
    *lo = c->rlo[slot];
    *hi = c->rhi[slot];
    return 0;
}



/* e as k + sum coef * slot over integer slots with small constants, or -1. */
static int affine(Compiled *c, const Expr *e, Aff *a)
{
    memset(a, 0, sizeof *a);
    switch (e->kind) {
    case E_INT:
        if (e->u.i.v > (1 << 30) || e->u.i.v < -(1 << 30))
            return -1;
        a->k = e->u.i.v;
        return 0;
    case E_VAR: {
        int s = find(c->vars, c->nvars, e->u.var);
        if (s < 0 || find(c->fvars, c->nfvars, e->u.var) >= 0)
            return -1;
        a->n = 1;
        a->var[0] = s;
        a->coef[0] = 1;
        return 0;
    }
    case E_UNARY:
        if (e->u.un.op != U_NEG || affine(c, e->u.un.a, a))
            return -1;
        a->k = -a->k;
        for (int i = 0; i < a->n; i++)
            a->coef[i] = -a->coef[i];
        return 0;
    case E_BIN: {
        Aff x, y;
        BinOp op = e->u.bin.op;
        if ((op != B_ADD && op != B_SUB && op != B_MUL) || affine(c, e->u.bin.a, &x) || affine(c, e->u.bin.b, &y))
            return -1;
        if (op == B_MUL) {
            if (x.n && y.n)
                return -1;
            Aff *v = x.n ? &x : &y;
            int64_t m = x.n ? y.k : x.k;
            if (m > (1 << 20) || m < -(1 << 20))
                return -1;
            *a = *v;
            a->k *= m;
            for (int i = 0; i < a->n; i++)
                a->coef[i] *= m;
            return 0;
        }
        int sg = op == B_ADD ? 1 : -1;
        *a = x;
        a->k += sg * y.k;
        for (int j = 0; j < y.n; j++) {
            int i = 0;
            while (i < a->n && a->var[i] != y.var[j])
                i++;
            if (i == a->n) {
                if (a->n == 8)
                    return -1;
                a->var[a->n] = y.var[j];
                a->coef[a->n++] = 0;
            }
            a->coef[i] += sg * y.coef[j];
        }
        return 0;
    }
    default:
        return -1;
    }
}

static int same_terms(const Aff *x, const Aff *y)
{
    if (x->n != y->n)
        return 0;
    for (int i = 0; i < x->n; i++) {
        int j = 0;
        while (j < y->n && !(y->var[j] == x->var[i] && y->coef[j] == x->coef[i]))
            j++;
        if (j == y->n)
            return 0;
    }
    return 1;
}

/* Records what cond (a conjunction of comparisons of affine indices with
 * constants) says while the then-branch runs. */
static void add_facts(Compiled *c, const Expr *cond)
{
    if (cond->kind != E_BIN)
        return;
    BinOp op = cond->u.bin.op;
    if (op == B_AND) {
        add_facts(c, cond->u.bin.a);
        add_facts(c, cond->u.bin.b);
        return;
    }
    if (op != B_LT && op != B_LE && op != B_GT && op != B_GE)
        return;
    const Expr *l = cond->u.bin.a, *r = cond->u.bin.b;
    int64_t k;
    Aff a;
    int const_left = expr_const_int(l, &k) == 0;
    if (!const_left && expr_const_int(r, &k))
        return;
    if (affine(c, const_left ? r : l, &a) || a.n == 0)
        return;
    /* as lo <= a <= hi, with the constant of a moved to the bounds */
    int64_t lo = INT64_MIN / 4, hi = INT64_MAX / 4;
    if (const_left)
        op = op == B_LT ? B_GT : op == B_LE ? B_GE : op == B_GT ? B_LT : B_LE;   /* k op a  ==  a op' k */
    if (k > (INT64_C(1) << 40) || k < -(INT64_C(1) << 40))
        return;
    switch (op) {
    case B_LT: hi = k - 1; break;
    case B_LE: hi = k; break;
    case B_GT: lo = k + 1; break;
    default: lo = k; break;
    }
    lo -= a.k;
    hi -= a.k;
    a.k = 0;
    for (int i = 0; i < c->nfacts; i++)
        if (same_terms(&c->facts[i].a, &a)) {
            if (lo > c->facts[i].lo)
                c->facts[i].lo = lo;
            if (hi < c->facts[i].hi)
                c->facts[i].hi = hi;
            return;
        }
    if (c->nfacts < 16)
        c->facts[c->nfacts++] = (struct Fact){ a, lo, hi };
}

/* Builds a node that computes the flat offset of an access when every index
 * is affine over slots of known range and stays inside the buffer's constant
 * extents; NULL otherwise (the access then checks at run time). */
static Node *proven_access(Compiled *c, const Buffer *b, Expr *const *idx, int n, Loc loc)
{
    Aff total = { 0 };
    int64_t stride = 1;
    for (int d = n - 1; d >= 0; d--) {
        int64_t ext, lo, hi;
        Aff a;
        if (expr_const_int(b->shape[d], &ext) || idx[d]->kind == E_SLICE || affine(c, idx[d], &a))
            return NULL;
        lo = hi = a.k;
        int known = 1;
        for (int j = 0; j < a.n && known; j++) {
            int64_t rl, rh;
            if (range_of(c, a.var[j], &rl, &rh)) {
                known = 0;
                break;
            }
            lo += a.coef[j] >= 0 ? a.coef[j] * rl : a.coef[j] * rh;
            hi += a.coef[j] >= 0 ? a.coef[j] * rh : a.coef[j] * rl;
        }
        if (!known) {
            lo = INT64_MIN / 4;
            hi = INT64_MAX / 4;
        }
        for (int f = 0; f < c->nfacts; f++)
            if (same_terms(&c->facts[f].a, &a)) {
                if (c->facts[f].lo + a.k > lo)
                    lo = c->facts[f].lo + a.k;
                if (c->facts[f].hi + a.k < hi)
                    hi = c->facts[f].hi + a.k;
            }
        if (lo < 0 || hi >= ext || stride > (INT64_C(1) << 32))
            return NULL;
        total.k += a.k * stride;
        for (int j = 0; j < a.n; j++) {
            int i = 0;
            while (i < total.n && total.var[i] != a.var[j])
                i++;
            if (i == total.n) {
                if (total.n == 8)
                    return NULL;
                total.var[total.n] = a.var[j];
                total.coef[total.n++] = 0;
            }
            total.coef[i] += a.coef[j] * stride;
        }
        stride *= ext;
    }
    Node *x = node(c, loc);
    x->k = total.k;
    x->naff = 0;
    for (int j = 0; j < total.n; j++)
        if (total.coef[j]) {
            x->aff_var[x->naff] = total.var[j];
            x->aff_coef[x->naff++] = total.coef[j];
        }
    return x;
}

static const Expr *extra_opt(const Buffer *b, const char *key)
{
    for (int i = 0; i < b->nextra; i++)
        if (strcmp(b->extra_keys[i]->str, key) == 0)
            return b->extra_vals[i];
    return NULL;
}

/* The strides and elem_offset of a buffer declared with strides= or a
 * nonzero elem_offset= (an offset alone keeps row-major strides); *st stays
 * NULL for a plain row-major buffer. Returns -1 after an error. */
static int strides_of(Compiled *c, const Buffer *b, const Node ***st, const Node **eoff)
{
    const Expr *se = extra_opt(b, "strides"), *oe = extra_opt(b, "elem_offset");
    int64_t k;
    *st = NULL;
    *eoff = NULL;
    if (se && se->kind == E_NONE)
        se = NULL;
    if (oe && (oe->kind == E_NONE || (expr_const_int(oe, &k) == 0 && k == 0)))
        oe = NULL;
    if (!se && !oe)
        return 0;
    if (se && ((se->kind != E_LIST && se->kind != E_TUPLE) || se->u.list.n != b->ndim))
        return cerr(c, se->loc, "strides of %s must be a list of %d extents, one per dimension", b->name->str,
                    b->ndim);
    if (!oe) {
        /* constant row-major strides (TVM writes them out): a plain buffer,
         * whose accesses can be proven in bounds */
        int64_t want = 1, got, ext;
        int d = b->ndim - 1;
        for (; d >= 0; d--) {
            if (expr_const_int(se->u.list.items[d], &got) || got != want)
                break;
            if (d > 0 && (expr_const_int(b->shape[d], &ext) || __builtin_mul_overflow(want, ext, &want)))
                break;
        }
        if (d < 0)
            return 0;
    }
    const Node **v = arena_array(&c->arena, (size_t)b->ndim + 1, sizeof *v);
    for (int d = b->ndim - 1; d >= 0; d--) {
        if (se) {
            v[d] = as_int(c, expr(c, se->u.list.items[d]), DT_INT64);
        } else if (d == b->ndim - 1) {
            v[d] = iconst(c, 1);
        } else {
            Node *m = node(c, b->loc);
            m->i = i_mul;
            m->a = v[d + 1];
            m->b = as_int(c, expr(c, b->shape[d + 1]), DT_INT64);
            m->dt = DT_INT64;
            v[d] = m->b ? m : NULL;
        }
        if (!v[d])
            return -1;
    }
    *eoff = oe ? as_int(c, expr(c, oe), DT_INT64) : iconst(c, 0);
    if (!*eoff)
        return -1;
    *st = v;
    return 0;
}

static const Node *load(Compiled *c, const Expr *e)
{
    const Buffer *b = e->u.load.buf;
    int s = find(c->bufs, c->nbufs, b);
    if (s < 0)
        return cerr(c, e->loc, "buffer %s is not bound here", b->name->str), NULL;
    Node *n = node(c, e->loc);
    n->slot = s;
    n->decl = b;
    n->dt = b->dtype;
    if (strides_of(c, b, &n->st, &n->eoff))
        return NULL;
    Node *p = n->st ? NULL : proven_access(c, b, e->u.load.idx, e->u.load.n, e->loc);
    if (p && (b->dtype == DT_FLOAT32 || dtype_size(b->dtype))) {
        p->slot = s;
        p->decl = b;
        p->dt = b->dtype;
        if (b->dtype == DT_FLOAT32)
            p->f = ld_f32_aff;
        else if (is_float(b->dtype))
            p->f = ld_fany_aff;
        else
            p->i = ld_iany_aff;
        return p;
    }
    n->nidx = e->u.load.n;
    n->idx = arena_array(&c->arena, (size_t)n->nidx + 1, sizeof *n->idx);
    for (int i = 0; i < n->nidx; i++) {
        if (e->u.load.idx[i]->kind == E_SLICE)
            return cerr(c, e->u.load.idx[i]->loc, "the interpreter reads single elements, not slices"), NULL;
        if (!(n->idx[i] = as_int(c, expr(c, e->u.load.idx[i]), DT_INT64)))
            return NULL;
    }
    switch (b->dtype) {
    case DT_FLOAT32: n->f = ld_f32; break;
    case DT_FLOAT64: n->f = ld_f64; break;
    case DT_FLOAT16: case DT_BFLOAT16: n->f = ld_fany; break;
    case DT_INT32: n->i = ld_i32; break;
    case DT_INT8: n->i = ld_i8; break;
    default:
        if (dtype_size(b->dtype) == 0)
            return cerr(c, e->loc, "cannot read buffer %s of dtype %s", b->name->str, dtype_name(b->dtype)), NULL;
        n->i = ld_iany;
        break;
    }
    return n;
}

static const Node *cast(Compiled *c, DType t, const Node *a, Loc loc)
{
    if (!a)
        return NULL;
    Node *n = node(c, loc);
    n->a = a;
    n->dt = t;
    if (is_float(t))
        n->f = a->f ? f_round : f_from_i;
    else
        n->i = a->f ? i_from_f : i_wrap;
    return n;
}

static const Node *call(Compiled *c, const Expr *e)
{
    const char *op = e->u.call.op->str;
    int na = e->u.call.nargs;
    const Node *a[3] = { 0 };
    if (strcmp(op, "T.max_value") == 0 || strcmp(op, "T.min_value") == 0) {
        DType t;
        if (na != 1 || e->u.call.args[0]->kind != E_STR || dtype_parse(e->u.call.args[0]->u.str.s, &t))
            return cerr(c, e->loc, "%s takes a dtype string", op), NULL;
        int mx = op[2] == 'm' && op[3] == 'a';
        Node *n = node(c, e->loc);
        n->dt = t;
        if (is_float(t)) {
            double v = t == DT_FLOAT32 ? 3.4028234663852886e38 : t == DT_FLOAT16 ? 65504.0 : 1.7976931348623157e308;
            n->f = f_const;
            n->d = mx ? v : -v;
        } else {
            n->i = i_const;
            int bits = dtype_size(t) * 8;
            int uns = t == DT_UINT8 || t == DT_UINT16 || t == DT_UINT32 || t == DT_UINT64 || t == DT_BOOL;
            n->k = mx ? (uns ? (bits == 64 ? -1 : (INT64_C(1) << bits) - 1) : (int64_t)((UINT64_C(1) << (bits - 1)) - 1))
                      : (uns ? 0 : (int64_t)(UINT64_C(0) - (UINT64_C(1) << (bits - 1))));
        }
        return n;
    }
    if (na > 3)
        return cerr(c, e->loc, "the interpreter does not know %s with %d arguments", op, na), NULL;
    int select = (strcmp(op, "T.if_then_else") == 0 || strcmp(op, "T.Select") == 0) && na == 3;
    for (int i = 0; i < na; i++) {
        int saved = c->nfacts;
        if (select && i == 1)
            add_facts(c, e->u.call.args[0]);   /* the then-branch runs only where the condition holds */
        a[i] = expr(c, e->u.call.args[i]);
        c->nfacts = saved;
        if (!a[i])
            return NULL;
    }
    Node *n = node(c, e->loc);
    n->a = a[0];
    n->b = a[1];
    n->c = a[2];
    if ((strcmp(op, "T.if_then_else") == 0 || strcmp(op, "T.Select") == 0) && na == 3) {
        n->a = as_int(c, a[0], DT_BOOL);
        if (a[1]->f || a[2]->f) {
            n->dt = a[1]->f ? a[1]->dt : a[2]->dt;
            n->b = as_float(c, a[1], n->dt);
            n->c = as_float(c, a[2], n->dt);
            n->f = f_select;
        } else {
            n->dt = a[1]->dt;
            n->i = i_select;
        }
        return n;
    }
    if ((strcmp(op, "T.max") == 0 || strcmp(op, "T.min") == 0) && na == 2) {
        int mx = strcmp(op, "T.max") == 0;
        if (a[0]->f || a[1]->f) {
            n->dt = a[0]->f ? a[0]->dt : a[1]->dt;
            n->a = as_float(c, a[0], n->dt);
            n->b = as_float(c, a[1], n->dt);
            n->f = mx ? f_max : f_min;
        } else {
            n->dt = a[0]->dt;
            n->i = mx ? i_max : i_min;
        }
        return n;
    }
    if ((strcmp(op, "T.likely") == 0) && na == 1)
        return a[0];
    if (strcmp(op, "T.assume") == 0 && na == 1) {
        n->a = as_int(c, a[0], DT_BOOL);
        n->dt = DT_BOOL;
        n->i = i_assume;
        return n;
    }
    static const struct { const char *name; BinOp op; } idiv[] = {
        { "T.floordiv", B_FLOORDIV }, { "T.floormod", B_FLOORMOD }, { "T.truncdiv", B_DIV }, { "T.truncmod", B_LT },
    };
    for (size_t i = 0; i < sizeof idiv / sizeof *idiv; i++)
        if (strcmp(op, idiv[i].name) == 0 && na == 2) {
            if (a[0]->f || a[1]->f)
                return cerr(c, e->loc, "%s takes integers", op), NULL;
            n->i = i_div;
            n->k = idiv[i].op;
            n->dt = a[0]->dt;
            return n;
        }
    static const struct { const char *name; Math1 fn; } m1[] = {
        { "T.exp", exp }, { "T.log", log }, { "T.sqrt", sqrt }, { "T.rsqrt", rsqrt }, { "T.tanh", tanh },
        { "T.sigmoid", sigmoid }, { "T.fabs", fabs }, { "T.floor", floor }, { "T.ceil", ceil },
        { "T.round", nearbyint }, { "T.erf", erf }, { "T.exp2", exp2 }, { "T.log2", log2 }, { "T.trunc", trunc },
        { "T.sin", sin }, { "T.cos", cos },
    };
    for (size_t i = 0; i < sizeof m1 / sizeof *m1; i++)
        if (strcmp(op, m1[i].name) == 0 && na == 1) {
            n->dt = a[0]->f ? a[0]->dt : DT_FLOAT32;
            n->a = as_float(c, a[0], n->dt);
            n->f = f_math1;
            n->k = (int64_t)(uintptr_t)m1[i].fn;
            return n;
        }
    if (strcmp(op, "T.abs") == 0 && na == 1) {
        if (a[0]->f) {
            n->dt = a[0]->dt;
            n->f = f_math1;
            n->k = (int64_t)(uintptr_t)fabs;
            return n;
        }
        Node *z = iconst(c, 0);
        Node *neg = node(c, e->loc);
        neg->i = i_sub;
        neg->a = z;
        neg->b = a[0];
        n->i = i_max;
        n->b = neg;
        n->dt = a[0]->dt;
        return n;
    }
    if (strcmp(op, "T.pow") == 0 && na == 2) {
        n->dt = a[0]->f ? a[0]->dt : DT_FLOAT32;
        n->a = as_float(c, a[0], n->dt);
        n->b = as_float(c, a[1], n->dt);
        n->f = f_pow;
        return n;
    }
    return cerr(c, e->loc, "the interpreter does not know %s", op), NULL;
}

static const Node *expr(Compiled *c, const Expr *e)
{
    Node *n;
    switch (e->kind) {
    case E_INT:
        n = iconst(c, e->u.i.v);
        n->dt = tir_dtype(e);
        if (is_float(n->dt))
            return as_float(c, n, n->dt);
        return n;
    case E_BOOL:
        n = iconst(c, e->u.b);
        n->dt = DT_BOOL;
        return n;
    case E_FLOAT:
        n = node(c, e->loc);
        n->dt = tir_dtype(e);
        n->f = f_const;
        n->d = round_to(n->dt, e->u.f.v);
        if (!is_float(n->dt))
            return as_int(c, n, n->dt);
        return n;
    case E_VAR: {
        int s = find(c->fvars, c->nfvars, e->u.var);
        n = node(c, e->loc);
        if (s >= 0) {
            n->f = f_var;
            n->slot = s;
            n->dt = e->u.var->dtype;
            return n;
        }
        s = find(c->vars, c->nvars, e->u.var);
        if (s < 0)
            return cerr(c, e->loc, "'%s' has no value here", e->u.var->name->str), NULL;
        n->i = i_var;
        n->slot = s;
        n->dt = e->u.var->dtype;
        return n;
    }
    case E_BIN:
        return bin(c, e);
    case E_UNARY: {
        const Node *a = expr(c, e->u.un.a);
        if (!a)
            return NULL;
        n = node(c, e->loc);
        n->a = a;
        n->dt = a->dt;
        if (e->u.un.op == U_NOT) {
            n->a = as_int(c, a, DT_BOOL);
            n->i = i_not;
            n->dt = DT_BOOL;
        } else if (a->f) {
            n->f = f_neg;
        } else {
            n->i = i_neg;
        }
        return n;
    }
    case E_LOAD:
        return load(c, e);
    case E_CAST:
        return cast(c, e->u.cast.dtype, expr(c, e->u.cast.a), e->loc);
    case E_CALL:
        return call(c, e);
    default:
        return cerr(c, e->loc, "the interpreter cannot evaluate this expression in TIR"), NULL;
    }
}

static SNode *snode(Compiled *c, SFn run, Loc loc)
{
    SNode *s = arena_zalloc(&c->arena, sizeof *s);
    s->run = run;
    s->loc = loc;
    return s;
}

static const SNode *stmt(Compiled *c, const Stmt *st);

static const SNode *block(Compiled *c, const Stmt *st)
{
    const Block *b = st->u.block;
    SNode *s = snode(c, s_block, st->loc);
    s->niter = b->niters;
    s->iter_slot = arena_array(&c->arena, (size_t)b->niters + 1, sizeof *s->iter_slot);
    s->bind = arena_array(&c->arena, (size_t)b->niters + 1, sizeof *s->bind);
    s->dom = arena_array(&c->arena, (size_t)b->niters + 1, sizeof *s->dom);
    s->kind = arena_array(&c->arena, (size_t)b->niters + 1, 1);
    for (int i = 0; i < b->niters; i++) {
        const BlockIter *it = &b->iters[i];
        if (!it->binding)
            return cerr(c, it->loc, "block iterator '%s' has no binding", it->var->name->str), NULL;
        if (expr_const_int(it->dom, &s->dom[i])) {
            /* a symbolic domain, as T.axis.spatial(n, i) over n = T.int64(): checked as it runs */
            if (!s->domn)
                s->domn = arena_array(&c->arena, (size_t)b->niters + 1, sizeof *s->domn);
            if (!(s->domn[i] = as_int(c, expr(c, it->dom), DT_INT64)))
                return NULL;
            s->dom[i] = INT64_MAX;
        }
        s->kind[i] = it->kind;
        /* bound to a loop variable whose range is inside the domain: the
         * iterator shares the loop variable's slot, with nothing to check */
        int64_t lo, hi;
        int ls = it->binding->kind == E_VAR ? find(c->vars, c->nvars, it->binding->u.var) : -1;
        if (ls >= 0 && find(c->vars, c->nvars, it->var) < 0 && range_of(c, ls, &lo, &hi) == 0 && lo >= 0 &&
            hi < s->dom[i] && !(s->domn && s->domn[i])) {
            s->bind[i] = NULL;
            s->iter_slot[i] = ls;
            continue;
        }
        if (!(s->bind[i] = as_int(c, expr(c, it->binding), DT_INT64)))
            return NULL;
        s->iter_slot[i] = int_var(c, it->var);
    }
    /* the iterators are seen only from here on: alias them now, after all
     * bindings (which read the enclosing loops' variables) are compiled */
    for (int i = 0; i < b->niters; i++) {
        if (!s->bind[i])
            add_slot(c, &c->vars, &c->nvars, b->iters[i].var, &(int){ 0 }), c->vars[c->nvars - 1].slot = s->iter_slot[i];
        else
            set_range(c, s->iter_slot[i], 0, s->dom[i] - 1);
    }
    s->rslot = arena_array(&c->arena, (size_t)b->niters + 1, sizeof *s->rslot);
    int plain = 1;
    for (int i = 0; i < b->niters; i++) {
        if (s->kind[i] == 'R')
            s->rslot[s->nidx++] = s->iter_slot[i];
        plain &= !s->bind[i];
    }
    if (plain && !b->where)
        s->run = s_block_plain;
    /* alloc_buffer inside the block is compiled with the body */
    if (b->where && !(s->cond = as_int(c, expr(c, b->where), DT_BOOL)))
        return NULL;
    if (b->init && !(s->init = stmt(c, b->init)))
        return NULL;
    if (!(s->body = stmt(c, b->body)))
        return NULL;
    return s;
}

static const SNode *store(Compiled *c, const Stmt *st)
{
    const Buffer *b = st->u.store.buf;
    int slot = find(c->bufs, c->nbufs, b);
    if (slot < 0)
        return cerr(c, st->loc, "buffer %s is not bound here", b->name->str), NULL;
    SNode *s = snode(c, NULL, st->loc);
    s->slot = slot;
    s->decl = b;
    if (strides_of(c, b, &s->st, &s->eoff))
        return NULL;
    Node *p = s->st ? NULL : proven_access(c, b, st->u.store.idx, st->u.store.n, st->loc);
    if (p) {
        s->nidx = 1;
        s->idx = arena_array(&c->arena, 1, sizeof *s->idx);
        s->idx[0] = p;
    } else {
        s->nidx = st->u.store.n;
        s->idx = arena_array(&c->arena, (size_t)s->nidx + 1, sizeof *s->idx);
        for (int i = 0; i < s->nidx; i++)
            if (!(s->idx[i] = as_int(c, expr(c, st->u.store.idx[i]), DT_INT64)))
                return NULL;
    }
    const Node *v = expr(c, st->u.store.value);
    if (!v)
        return NULL;
    if (is_float(b->dtype)) {
        s->value = as_float(c, v, b->dtype);
        s->run = p ? (b->dtype == DT_FLOAT32 ? st_f32_aff : st_fany_aff) : b->dtype == DT_FLOAT32 ? st_f32 : st_fany;
    } else {
        s->value = as_int(c, v, b->dtype);
        s->run = p ? st_iany_aff : st_iany;
    }
    return s;
}

static const SNode *stmt(Compiled *c, const Stmt *st)
{
    SNode *s;
    switch (st->kind) {
    case S_SEQ:
        s = snode(c, s_seq, st->loc);
        s->n = st->u.seq.n;
        s->items = arena_array(&c->arena, (size_t)s->n + 1, sizeof *s->items);
        for (int i = 0; i < s->n; i++)
            if (!(s->items[i] = stmt(c, st->u.seq.items[i])))
                return NULL;
        return s;
    case S_FOR:
        s = snode(c, s_for, st->loc);
        s->var = st->u.loop.var;
        if (!(s->lo = as_int(c, expr(c, st->u.loop.min), DT_INT64)) ||
            !(s->ext = as_int(c, expr(c, st->u.loop.extent), DT_INT64)))
            return NULL;
        s->slot = int_var(c, st->u.loop.var);
        {
            int64_t lo, ext;
            if (expr_const_int(st->u.loop.min, &lo) == 0 && expr_const_int(st->u.loop.extent, &ext) == 0 && ext > 0 &&
                lo > -(1 << 30) && lo < (1 << 30) && ext < (1 << 30))
                set_range(c, s->slot, lo, lo + ext - 1);
        }
        if (!(s->body = stmt(c, st->u.loop.body)))
            return NULL;
        if (c->batches && (s->batch = batch_compile(c, s)))
            s->run = s_for_batch;
        /* a flag, not a run function of its own: batch_compile reads
         * s_for and s_for_batch as the loops of a band */
        if (par_loop_ok(st, &s->body_steps)) {
            SNode **g = arena_array(&c->arena, (size_t)c->npar + 1, sizeof *g);
            if (c->npar)
                memcpy(g, c->par, (size_t)c->npar * sizeof *g);
            g[c->npar++] = s;
            c->par = g;
            s->par = 1;
        }
        return s;
    case S_BLOCK:
        return block(c, st);
    case S_STORE:
        return store(c, st);
    case S_IF:
        s = snode(c, s_if, st->loc);
        if (!(s->cond = as_int(c, expr(c, st->u.branch.cond), DT_BOOL)) || !(s->body = stmt(c, st->u.branch.then)))
            return NULL;
        if (st->u.branch.orelse && !(s->orelse = stmt(c, st->u.branch.orelse)))
            return NULL;
        return s;
    case S_EVAL:
        s = snode(c, s_eval, st->loc);
        return (s->value = expr(c, st->u.eval)) ? s : NULL;
    case S_LET: {
        const Node *v = expr(c, st->u.let.value);
        if (!v)
            return NULL;
        s = snode(c, v->f ? s_let_f : s_let_i, st->loc);
        s->value = v;
        s->slot = v->f ? add_slot(c, &c->fvars, &c->nfvars, st->u.let.var, &c->nfv) : int_var(c, st->u.let.var);
        return s;
    }
    case S_ALLOC: {
        const Buffer *b = st->u.alloc;
        if (b->kind == BUF_MATCH) {
            /* bound at the call, from the handle parameter */
            return snode(c, s_nop, st->loc);
        }
        int base = -1;
        if (b->kind == BUF_ALIAS && (base = find(c->bufs, c->nbufs, b->base)) < 0)
            return cerr(c, st->loc, "buffer %s is not bound here", b->base->name->str), NULL;
        s = snode(c, b->kind == BUF_ALIAS ? s_alias : s_alloc, st->loc);
        s->n = base;
        s->decl = b;
        s->dt = b->dtype;
        s->nshape = b->ndim;
        s->shape = arena_array(&c->arena, (size_t)b->ndim + 1, sizeof *s->shape);
        for (int d = 0; d < b->ndim; d++)
            if (!(s->shape[d] = as_int(c, expr(c, b->shape[d]), DT_INT64)))
                return NULL;
        if (strides_of(c, b, &s->st, &s->eoff))
            return NULL;
        s->slot = add_slot(c, &c->bufs, &c->nbufs, b, &c->nbuf);
        int **list = b->kind == BUF_ALIAS ? &c->views : &c->allocs, *n = b->kind == BUF_ALIAS ? &c->nviews : &c->nallocs;
        int *g = arena_array(&c->arena, (size_t)*n + 1, sizeof *g);
        if (*n)
            memcpy(g, *list, (size_t)*n * sizeof *g);
        g[(*n)++] = s->slot;
        *list = g;
        return s;
    }
    }
    return cerr(c, st->loc, "the interpreter cannot run this statement"), NULL;
}

/* Declares the buffers a function sees before its body: parameters, and the
 * buffers matched to handle parameters anywhere in the body. */
static void declare_matches(Compiled *c, const Stmt *st)
{
    if (!st)
        return;
    switch (st->kind) {
    case S_SEQ:
        for (int i = 0; i < st->u.seq.n; i++)
            declare_matches(c, st->u.seq.items[i]);
        break;
    case S_ALLOC:
        if (st->u.alloc->kind == BUF_MATCH && find(c->bufs, c->nbufs, st->u.alloc) < 0) {
            const Func *f = c->fn;
            for (int i = 0; i < f->npparams; i++)
                if (f->pparams[i].var && f->pparams[i].var == st->u.alloc->handle) {
                    c->param_buf[i] = add_slot(c, &c->bufs, &c->nbufs, st->u.alloc, &c->nbuf);
                    break;
                }
        }
        break;
    case S_FOR: declare_matches(c, st->u.loop.body); break;
    case S_BLOCK: declare_matches(c, st->u.block->body); break;
    default: break;
    }
}

static Compiled *compile(Func *f, int batches, InterpError *err)
{
    Compiled *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->fn = f;
    c->batches = batches;
    c->err = err;
    c->param_buf = arena_array(&c->arena, (size_t)f->npparams + 1, sizeof *c->param_buf);
    for (int i = 0; i < f->npparams; i++) {
        c->param_buf[i] = -1;
        if (f->pparams[i].buf)
            c->param_buf[i] = add_slot(c, &c->bufs, &c->nbufs, f->pparams[i].buf, &c->nbuf);
    }
    declare_matches(c, f->body);
    /* symbolic extents of parameter buffers get integer slots, bound at the call */
    for (int i = 0; i < c->nbufs; i++) {
        const Buffer *b = c->bufs[i].key;
        for (int d = 0; d < b->ndim; d++)
            if (b->shape[d]->kind == E_VAR)
                int_var(c, b->shape[d]->u.var);
        /* and so do symbolic strides and offsets (strides=[s, 1]) */
        const Expr *se = extra_opt(b, "strides"), *oe = extra_opt(b, "elem_offset");
        for (int d = 0; se && (se->kind == E_LIST || se->kind == E_TUPLE) && d < se->u.list.n; d++)
            if (se->u.list.items[d]->kind == E_VAR)
                int_var(c, se->u.list.items[d]->u.var);
        if (oe && oe->kind == E_VAR)
            int_var(c, oe->u.var);
    }
    for (int i = 0; i < f->npparams; i++)
        if (c->param_buf[i] < 0)
            cerr(c, f->pparams[i].var ? f->pparams[i].var->loc : f->loc,
                 "the interpreter passes buffers only; parameter %d of %s is a scalar", i, f->name->str);
    if (!c->failed)
        c->body = f->body ? stmt(c, f->body) : snode(c, s_nop, f->loc);
    if (c->failed || !c->body) {
        arena_free(&c->arena);
        free(c);
        return NULL;
    }
    /* a view shares a buffer's storage under another name, which
     * par_loop_ok's per-buffer proof does not see */
    for (int i = 0; c->nviews && i < c->npar; i++)
        c->par[i]->par = 0;
    return c;
}

static void compiled_free(Compiled *c)
{
    if (c) {
        arena_free(&c->arena);
        free(c);
    }
}

/* ---- calls ---- */

typedef struct Cache {
    Func *fn;
    Compiled *c;
    char *text;            /* the call cache's key: f printed without its name */
} Cache;

struct Interp {
    Module *m;
    Cache *cache;
    int ncache, capcache;
    Module *scratch;       /* PrimFuncs of legalized operator calls */
    OpTable legal;         /* the calls they serve */
    int64_t steps, max_steps;
    Memo *memo;            /* --verify-exec's call cache, or NULL */
    int threads;           /* -j */
    int64_t par_loops;     /* runs of loops split over threads */
    int no_batches;        /* --no-batch */
};

Func *interp_legalized(Interp *in, const Expr *call, const TensorType *args, int nargs, OpError *err)
{
    if (nargs > OP_MAX_ARGS) {
        err->loc = call->loc;
        snprintf(err->msg, sizeof err->msg, "too many arguments");
        return NULL;
    }
    Func *f = op_table_find(&in->legal, call, args, nargs);
    if (f)
        return f;
    if (!in->scratch)
        in->scratch = module_new();
    char name[32];
    snprintf(name, sizeof name, "legalized%d", in->legal.n);
    if (!(f = op_legalize(in->scratch, call, args, nargs, intern_cstr(&in->scratch->names, name), err)))
        return NULL;
    op_table_add(&in->legal, call, args, nargs, f);
    return f;
}

Arena *interp_arena(Interp *in)
{
    if (!in->scratch)
        in->scratch = module_new();
    return &in->scratch->arena;
}

Interp *interp_new(Module *m)
{
    Interp *in = calloc(1, sizeof *in);
    if (!in)
        abort();
    in->m = m;
    in->max_steps = INTERP_DEFAULT_MAX_STEPS;
    return in;
}

void interp_set_max_steps(Interp *in, int64_t max_steps)
{
    in->max_steps = max_steps;
}

void interp_set_threads(Interp *in, int threads)
{
    in->threads = threads;
}

int64_t interp_par_loops(const Interp *in)
{
    return in->par_loops;
}

void interp_set_batches(Interp *in, int on)
{
    in->no_batches = !on;
}

int64_t interp_steps(const Interp *in)
{
    return in->steps;
}

void interp_free(Interp *in)
{
    if (!in)
        return;
    for (int i = 0; i < in->ncache; i++) {
        compiled_free(in->cache[i].c);
        free(in->cache[i].text);
    }
    free(in->cache);
    op_table_free(&in->legal);
    if (in->scratch)
        module_free(in->scratch);
    free(in);
}

static Compiled *compiled(Interp *in, Func *f, InterpError *err)
{
    for (int i = 0; i < in->ncache; i++)
        if (in->cache[i].fn == f)
            return in->cache[i].c;
    Compiled *c = compile(f, !in->no_batches, err);
    if (!c)
        return NULL;
    if (in->ncache == in->capcache) {
        in->capcache = in->capcache ? 2 * in->capcache : 8;
        Cache *g = realloc(in->cache, (size_t)in->capcache * sizeof *g);
        if (!g)
            abort();
        in->cache = g;
    }
    in->cache[in->ncache++] = (Cache){ f, c, NULL };
    return c;
}

void interp_set_memo(Interp *in, Memo *memo)
{
    in->memo = memo;
}

/* f's text for the call cache, printed once per run: the PrimFunc without
 * its name (legalized operators are named in the order a run meets them). */
static const char *func_text(Interp *in, const Func *f)
{
    Cache *k = NULL;
    for (int i = 0; i < in->ncache && !k; i++)
        if (in->cache[i].fn == f)
            k = &in->cache[i];
    if (!k)
        return NULL;
    if (!k->text) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        if (!out)
            return NULL;
        print_prim_func(out, f);
        if (fclose(out)) {
            free(buf);
            return NULL;
        }
        char *def = strstr(buf, "def ");
        char *paren = def ? strchr(def, '(') : NULL;
        if (paren)
            memmove(def + 4, paren, strlen(paren) + 1);
        k->text = buf;
    }
    return k->text;
}

/* Binds symbolic v to value, or checks the value it has. */
static int bind_var(Compiled *c, Frame *fr, const Var *v, int64_t value, const Buffer *b, const char *what, int d,
                    InterpError *err)
{
    int s = find(c->vars, c->nvars, v);
    if (fr->iv[s] == INT64_MIN)
        fr->iv[s] = value;
    if (fr->iv[s] == value)
        return 0;
    err->loc = b->loc;
    if (d >= 0)
        snprintf(err->msg, sizeof err->msg, "%s %d of %s is %s = %lld; the call passes a compact tensor, whose %s "
                 "there is %lld", what, d, b->name->str, v->name->str, (long long)fr->iv[s], what, (long long)value);
    else
        snprintf(err->msg, sizeof err->msg, "%s of %s is %s = %lld; the call passes a tensor at offset %lld", what,
                 b->name->str, v->name->str, (long long)fr->iv[s], (long long)value);
    return -1;
}

static int bind_shape(Compiled *c, Frame *fr, const Buffer *b, const Tensor *t, InterpError *err)
{
    if (t->dtype != b->dtype || t->ndim != b->ndim) {
        err->loc = b->loc;
        snprintf(err->msg, sizeof err->msg, "%s is a %dd %s buffer; the call passes a %dd %s tensor", b->name->str,
                 b->ndim, dtype_name(b->dtype), t->ndim, dtype_name(t->dtype));
        return -1;
    }
    for (int d = 0; d < b->ndim; d++) {
        int64_t want;
        if (expr_const_int(b->shape[d], &want) == 0) {
            if (want == t->shape[d])
                continue;
        } else if (b->shape[d]->kind == E_VAR) {
            int s = find(c->vars, c->nvars, b->shape[d]->u.var);
            if (fr->iv[s] == INT64_MIN)
                fr->iv[s] = t->shape[d];
            if (fr->iv[s] == t->shape[d])
                continue;
            want = fr->iv[s];
        } else {
            err->loc = b->shape[d]->loc;
            snprintf(err->msg, sizeof err->msg, "the interpreter needs constant or symbolic extents in %s",
                     b->name->str);
            return -1;
        }
        err->loc = b->loc;
        snprintf(err->msg, sizeof err->msg, "dimension %d of %s is %lld; the call passes %lld", d, b->name->str,
                 (long long)want, (long long)t->shape[d]);
        return -1;
    }
    /* a symbolic stride or offset takes the argument's own: a tensor the
     * call passes is compact (row-major strides, offset 0) */
    const Expr *se = extra_opt(b, "strides"), *oe = extra_opt(b, "elem_offset");
    int64_t stride = 1;
    for (int d = b->ndim - 1; se && (se->kind == E_LIST || se->kind == E_TUPLE) && se->u.list.n == b->ndim && d >= 0;
         d--) {
        const Expr *x = se->u.list.items[d];
        if (x->kind == E_VAR && bind_var(c, fr, x->u.var, stride, b, "stride", d, err))
            return -1;
        if (__builtin_mul_overflow(stride, t->shape[d], &stride))
            stride = INT64_MAX;
    }
    if (oe && oe->kind == E_VAR && bind_var(c, fr, oe->u.var, 0, b, "elem_offset", -1, err))
        return -1;
    return 0;
}

/* Runtime errors come back here. */
static int run_body(const SNode *body, Frame *fr)
{
    if (setjmp(fr->jb) != 0)
        return -1;
    body->run(body, fr);
    return 0;
}

int interp_call_prim(Interp *in, Func *f, Tensor **args, int nargs, InterpError *err)
{
    if (f->kind != F_PRIM) {
        err->loc = f->loc;
        snprintf(err->msg, sizeof err->msg, "%s is not a prim_func", f->name->str);
        return -1;
    }
    if (nargs != f->npparams) {
        err->loc = f->loc;
        snprintf(err->msg, sizeof err->msg, "%s takes %d buffers; the call passes %d", f->name->str, f->npparams,
                 nargs);
        return -1;
    }
    Compiled *c = compiled(in, f, err);
    if (!c)
        return -1;
    const char *text = in->memo ? func_text(in, f) : NULL;
    if (text && memo_replay(in->memo, text, args, nargs))
        return 0;
    Tensor **before = text ? memo_before(in->memo, args, nargs) : NULL;
    Frame *fr = calloc(1, sizeof *fr);
    if (!fr)
        abort();
    fr->iv = calloc((size_t)c->niv + 1, sizeof *fr->iv);
    fr->fv = calloc((size_t)c->nfv + 1, sizeof *fr->fv);
    fr->buf = calloc((size_t)c->nbuf + 1, sizeof *fr->buf);
    fr->err = err;
    fr->steps = &in->steps;
    fr->max_steps = in->max_steps;
    fr->fname = f->name->str;
    fr->threads = in->threads;
    fr->par_loops = &in->par_loops;
    fr->niv = c->niv;
    fr->nfv = c->nfv;
    fr->nbuf = c->nbuf;
    if (!fr->iv || !fr->fv || !fr->buf)
        abort();
    for (int i = 0; i < c->niv; i++)
        fr->iv[i] = INT64_MIN;
    int status = 0;
    for (int i = 0; i < nargs && !status; i++) {
        fr->buf[c->param_buf[i]] = args[i];
        status = bind_shape(c, fr, c->bufs[c->param_buf[i]].key, args[i], err);
    }
    if (!status)
        status = run_body(c->body, fr);
    for (int i = 0; i < c->nallocs; i++)
        tensor_free(fr->buf[c->allocs[i]]);
    for (int i = 0; i < c->nviews; i++)
        free(fr->buf[c->views[i]]);
    free(fr->iv);
    free(fr->fv);
    free(fr->buf);
    free(fr->vreg);
    free(fr);
    if (before)
        memo_record(in->memo, text, before, args, nargs, status == 0);
    return status;
}
