/* Running PrimFuncs. Each function is compiled once into a tree of typed
 * closures: an expression node computes an integer (int64, also for bools)
 * or a float (double, rounded to the node's dtype after every operation, so
 * float32 arithmetic gives float32 results); a statement node runs. Buffer
 * accesses check every index against the buffer's extent; a runtime error
 * leaves through longjmp with a message naming the buffer, the indices and
 * the line. Loops may run on threads (-j, proven by par.c), and bands of
 * innermost loops also run as batches (interp/batch.c); the types both
 * files share are in tir_internal.h. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../printer/print.h"
#include "memo.h"
#include "par.h"
#include "tir_internal.h"
#include "../ir/oom.h"

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


int64_t i_const(const Node *n, Frame *fr) { (void)fr; return n->k; }
int64_t i_var(const Node *n, Frame *fr) { return fr->iv[n->slot]; }
int64_t i_add(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) + (uint64_t)I(n->b)); }
int64_t i_sub(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) - (uint64_t)I(n->b)); }
int64_t i_mul(const Node *n, Frame *fr) { return W((uint64_t)I(n->a) * (uint64_t)I(n->b)); }
int64_t i_neg(const Node *n, Frame *fr) { return W(0 - (uint64_t)I(n->a)); }
int64_t i_min(const Node *n, Frame *fr) { int64_t a = I(n->a), b = I(n->b); return a < b ? a : b; }
int64_t i_max(const Node *n, Frame *fr) { int64_t a = I(n->a), b = I(n->b); return a > b ? a : b; }
int64_t i_lt(const Node *n, Frame *fr) { return I(n->a) < I(n->b); }
int64_t i_le(const Node *n, Frame *fr) { return I(n->a) <= I(n->b); }
int64_t i_gt(const Node *n, Frame *fr) { return I(n->a) > I(n->b); }
int64_t i_ge(const Node *n, Frame *fr) { return I(n->a) >= I(n->b); }
int64_t i_eq(const Node *n, Frame *fr) { return I(n->a) == I(n->b); }
int64_t i_ne(const Node *n, Frame *fr) { return I(n->a) != I(n->b); }
int64_t i_and(const Node *n, Frame *fr) { return I(n->a) && I(n->b); }
int64_t i_or(const Node *n, Frame *fr) { return I(n->a) || I(n->b); }
int64_t i_not(const Node *n, Frame *fr) { return !I(n->a); }

/* a & b, a | b, a ^ b, a << b, a >> b (n->k the op) on n->dt: a shift count
 * outside the width is TVM's error, checked when it runs; << wraps to the
 * width as a store would, so that the value compares as the width's. */
int64_t i_bits(const Node *n, Frame *fr)
{
    int64_t a = I(n->a), b = I(n->b);
    switch (n->k) {
    case B_BITAND: return a & b;
    case B_BITOR: return a | b;
    case B_BITXOR: return a ^ b;
    default:
        if (!shift_ok(n->dt, b))
            fail(fr, n->loc, "%s by %lld: the count must be at least 0 and less than %s's %d bits",
                 bitop_name((BinOp)n->k), (long long)b, dtype_name(n->dt), 8 * dtype_size(n->dt));
        if (n->k == B_SHL)
            return wrap(n->dt, W((uint64_t)a << b));
        return n->dt == DT_UINT64 ? W((uint64_t)a >> b) : a >> b;
    }
}

/* ~a: a bool's not, an integer's complement in its width */
int64_t i_bitnot(const Node *n, Frame *fr) { return n->dt == DT_BOOL ? !I(n->a) : wrap(n->dt, ~I(n->a)); }
int64_t i_select(const Node *n, Frame *fr) { return I(n->a) ? I(n->b) : I(n->c); }

/* T.assume(c): a fact the function states about its inputs (transform-layout
 * states what an input's padding holds); a run that breaks it stops. */
int64_t i_assume(const Node *n, Frame *fr)
{
    if (!I(n->a))
        fail(fr, n->loc, "the assumption T.assume does not hold here (in %s)", fr->fname);
    return 1;
}
int64_t f_lt(const Node *n, Frame *fr) { return F(n->a) < F(n->b); }
int64_t f_le(const Node *n, Frame *fr) { return F(n->a) <= F(n->b); }
int64_t f_gt(const Node *n, Frame *fr) { return F(n->a) > F(n->b); }
int64_t f_ge(const Node *n, Frame *fr) { return F(n->a) >= F(n->b); }
int64_t f_eq(const Node *n, Frame *fr) { return F(n->a) == F(n->b); }
int64_t f_ne(const Node *n, Frame *fr) { return F(n->a) != F(n->b); }

int64_t i_div(const Node *n, Frame *fr)
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

int64_t i_wrap(const Node *n, Frame *fr) { return wrap(n->dt, I(n->a)); }

/* k + sum coef * var: index arithmetic in one node */
int64_t i_aff(const Node *n, Frame *fr)
{
    uint64_t v = (uint64_t)n->k;
    for (int j = 0; j < n->naff; j++)
        v += (uint64_t)n->aff_coef[j] * (uint64_t)fr->iv[n->aff_var[j]];
    return (int64_t)v;
}

/* k + sum coef * var compared with 0: a comparison of an index with a constant */
#define AFF_CMP(name, test) \
    int64_t name(const Node *n, Frame *fr) { int64_t v = i_aff(n, fr); return v test 0; }
AFF_CMP(i_aff_lt, <)
AFF_CMP(i_aff_le, <=)
AFF_CMP(i_aff_gt, >)
AFF_CMP(i_aff_ge, >=)
AFF_CMP(i_aff_eq, ==)
AFF_CMP(i_aff_ne, !=)

int64_t i_aff1(const Node *n, Frame *fr)
{
    return (int64_t)((uint64_t)n->k + (uint64_t)n->aff_coef[0] * (uint64_t)fr->iv[n->aff_var[0]]);
}

/* float -> int: truncation; NaN and out-of-range values give 0 (C leaves them undefined). */
int64_t i_from_f(const Node *n, Frame *fr)
{
    double v = F(n->a);
    if (!(v > -9.2e18 && v < 9.2e18))
        return 0;
    return wrap(n->dt, (int64_t)v);
}

/* ---- float nodes ---- */

double f_const(const Node *n, Frame *fr) { (void)fr; return n->d; }
double f_var(const Node *n, Frame *fr) { return fr->fv[n->slot]; }
double f_add32(const Node *n, Frame *fr) { return (float)(F(n->a) + F(n->b)); }
double f_sub32(const Node *n, Frame *fr) { return (float)(F(n->a) - F(n->b)); }
double f_mul32(const Node *n, Frame *fr) { return (float)(F(n->a) * F(n->b)); }
double f_div32(const Node *n, Frame *fr) { return (float)(F(n->a) / F(n->b)); }
double f_add(const Node *n, Frame *fr) { return rnd(n, F(n->a) + F(n->b)); }
/* a + b * c in float32, rounded after the product and after the sum */
double f_muladd32(const Node *n, Frame *fr)
{
    double a = F(n->a);
    return (float)(a + (float)(F(n->b) * F(n->c)));
}
double f_sub(const Node *n, Frame *fr) { return rnd(n, F(n->a) - F(n->b)); }
double f_mul(const Node *n, Frame *fr) { return rnd(n, F(n->a) * F(n->b)); }
double f_div(const Node *n, Frame *fr) { return rnd(n, F(n->a) / F(n->b)); }
double f_neg(const Node *n, Frame *fr) { return -F(n->a); }
double f_min(const Node *n, Frame *fr) { double a = F(n->a), b = F(n->b); return a < b ? a : b; }
double f_max(const Node *n, Frame *fr) { double a = F(n->a), b = F(n->b); return a > b ? a : b; }
double f_select(const Node *n, Frame *fr) { return I(n->a) ? F(n->b) : F(n->c); }
double f_from_i(const Node *n, Frame *fr) { return rnd(n, (double)I(n->a)); }
double f_round(const Node *n, Frame *fr) { return rnd(n, F(n->a)); }
double f_floordiv(const Node *n, Frame *fr) { return rnd(n, floor(F(n->a) / F(n->b))); }
double f_floormod(const Node *n, Frame *fr)
{
    double a = F(n->a), b = F(n->b);
    return rnd(n, a - floor(a / b) * b);
}

typedef double (*Math2)(double, double);

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double rsqrt(double x) { return 1.0 / sqrt(x); }

double f_math1(const Node *n, Frame *fr) { return rnd(n, ((Math1)(uintptr_t)n->k)(F(n->a))); }

double f_pow(const Node *n, Frame *fr) { return rnd(n, pow(F(n->a), F(n->b))); }

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

double ld_f32(const Node *n, Frame *fr) { return ((const float *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
double ld_f64(const Node *n, Frame *fr) { return ((const double *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
double ld_fany(const Node *n, Frame *fr) { return tensor_getf(fr->buf[n->slot], LOAD_OFF(n)); }
int64_t ld_i32(const Node *n, Frame *fr) { return ((const int32_t *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
int64_t ld_i8(const Node *n, Frame *fr) { return ((const int8_t *)fr->buf[n->slot]->data)[LOAD_OFF(n)]; }
int64_t ld_iany(const Node *n, Frame *fr) { return tensor_geti(fr->buf[n->slot], LOAD_OFF(n)); }

static inline int64_t aff_off(const Node *n, const Frame *fr)
{
    int64_t off = n->k;
    for (int j = 0; j < n->naff; j++)
        off += n->aff_coef[j] * fr->iv[n->aff_var[j]];
    return off;
}

double ld_f32_aff(const Node *n, Frame *fr) { return ((const float *)fr->buf[n->slot]->data)[aff_off(n, fr)]; }
double ld_fany_aff(const Node *n, Frame *fr) { return tensor_getf(fr->buf[n->slot], aff_off(n, fr)); }
int64_t ld_iany_aff(const Node *n, Frame *fr) { return tensor_geti(fr->buf[n->slot], aff_off(n, fr)); }

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

void st_f32(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    ((float *)fr->buf[s->slot]->data)[store_off(s, fr)] = (float)v;
}

/* A store proven in bounds keeps its offset in the node at value->... no:
 * in an expression node hung on idx[0]. */
void st_f32_aff(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    ((float *)fr->buf[s->slot]->data)[aff_off(s->idx[0], fr)] = (float)v;
}

void st_fany_aff(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    tensor_setf(fr->buf[s->slot], aff_off(s->idx[0], fr), v);
}

void st_iany_aff(const SNode *s, Frame *fr)
{
    int64_t v = I(s->value);
    tensor_seti(fr->buf[s->slot], aff_off(s->idx[0], fr), v);
}

void st_fany(const SNode *s, Frame *fr)
{
    double v = F(s->value);
    tensor_setf(fr->buf[s->slot], store_off(s, fr), v);
}

void st_iany(const SNode *s, Frame *fr)
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
    fr->err->limit = 1;
    int stop = *fr->stop;
    if (stop) {
        char why[80];
        interp_stop_text(stop, fr->timeout, "the run", why, sizeof why);
        fail(fr, s->loc, "%s in prim_func '%s', at %s = %lld of this loop's range [%lld, %lld)", why, fr->fname,
             s->var->name->str, (long long)v, (long long)lo, (long long)lo + n);
    }
    fail(fr, s->loc, "the run reached --max-steps %lld (a step is one loop iteration) in prim_func '%s', "
         "at %s = %lld of this loop's range [%lld, %lld)", (long long)fr->max_steps, fr->fname,
         s->var->name->str, (long long)v, (long long)lo, (long long)lo + n);
}

/* iterations from..lo+n of a loop over [lo, lo + n) */
void for_range(const SNode *s, Frame *fr, int64_t from, int64_t lo, int64_t n)
{
    const SNode *body = s->body;
    for (int64_t v = from; v < lo + n; v++) {
        if (++*fr->steps > fr->max_steps || *fr->stop)
            out_of_steps(s, fr, v, lo, n);
        fr->iv[s->slot] = v;
        body->run(body, fr);
    }
}

/* A block whose iterators are all aliases and that has no predicate; the
 * tail of every block: T.init on the first reduction step, then the body. */
void s_block_plain(const SNode *s, Frame *fr)
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
/* The buffer whose storage a view shares. */
static const Buffer *view_base(const Buffer *b)
{
    return b->region ? b->region->buf : b->base;
}

static void s_alias(const SNode *s, Frame *fr)
{
    if (fr->buf[s->slot])
        return;
    const Tensor *base = fr->buf[s->n];
    if (!base)
        fail(fr, s->loc, "buffer %s has no storage here", view_base(s->decl)->name->str);
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
                 (long long)span - 1, view_base(s->decl)->name->str, (long long)base->count);
        v.count = base->count;
    } else if (v.count > base->count) {
        fail(fr, s->loc, "the view %s holds %lld elements but %s holds %lld", s->decl->name->str, (long long)v.count,
             view_base(s->decl)->name->str, (long long)base->count);
    }
    Tensor *t = xmalloc(sizeof *t);
    if (!t)
        oom_fail();
    *t = v;
    t->data = base->data;
    fr->buf[s->slot] = t;
}

static void s_nop(const SNode *s, Frame *fr)
{
    (void)s;
    (void)fr;
}

/* Loops that run on threads: at least this many steps of work each, so
 * that starting the threads costs little beside it. */
enum { PAR_MIN_STEPS = 1 << 16, PAR_MAX_THREADS = 64 };

typedef struct Chunk {
    const SNode *s;
    Frame fr;
    int64_t from, to, steps;
    InterpError err;
    int failed;            /* written by the chunk's thread */
    int oom;               /* an allocation failed in the chunk (its thread's own guard caught it) */
    int started;           /* written by the calling thread */
} Chunk;

/* A chunk's iterations: as batches when the loop is a band's outermost
 * (whole tiles inside the chunk, then one at a time), else one at a time. */
static void *run_chunk(void *p)
{
    Chunk *k = p;
    Frame *fr = &k->fr;
    const SNode *s = k->s;
    /* a guard of the chunk's own: a thread started here has none, and an
     * allocation failing outside any guard aborts; the calling thread
     * raises it again once every chunk has ended (run_par) */
    OomGuard g;
    if (OOM_ENTER(&g)) {
        k->failed = k->oom = 1;
        return NULL;
    }
    if (setjmp(fr->jb) != 0) {
        oom_leave(&g);
        k->failed = 1;
        return NULL;
    }
    int64_t v = s->run == s_for_batch ? batch_tiles(s, fr, k->from, k->to) : k->from;
    for (; v < k->to; v++) {
        if (*fr->stop)
            out_of_steps(s, fr, v, k->from, k->to - k->from);
        k->steps++;
        fr->iv[s->slot] = v;
        s->body->run(s->body, fr);
    }
    oom_leave(&g);
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
int par_pays(const SNode *s, const Frame *fr, int64_t lo, int64_t n)
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
typedef struct Chunks {
    Chunk *k;
    int t;
    pthread_t *th;
} Chunks;

static void chunks_free(void *p)
{
    Chunks *C = p;
    for (int i = 0; C->k && i < C->t; i++) {
        free(C->k[i].fr.iv);
        free(C->k[i].fr.fv);
    }
    free(C->k);
    free(C->th);
}

void run_par(const SNode *s, Frame *fr, int64_t lo, int64_t n)
{
    int t = fr->threads < PAR_MAX_THREADS ? fr->threads : PAR_MAX_THREADS;
    ++*fr->par_loops;
    if (t > n)
        t = (int)n;
    Chunks C = { xcalloc((size_t)t, sizeof *C.k), t, NULL };
    oom_defer(chunks_free, &C);   /* the chunks made so far go if one cannot be made */
    Chunk *k = C.k;
    pthread_t *th = xcalloc((size_t)t, sizeof *th);
    C.th = th;
    for (int i = 0; i < t; i++) {
        k[i].s = s;
        k[i].from = lo + n / t * i + (i < n % t ? i : n % t);
        k[i].to = k[i].from + n / t + (i < n % t);
        k[i].fr = *fr;
        k[i].fr.iv = NULL;   /* the chunk's own from here */
        k[i].fr.fv = NULL;
        k[i].fr.vreg = NULL;
        k[i].fr.iv = xmalloc(((size_t)fr->niv + 1) * sizeof *fr->iv);
        k[i].fr.fv = xmalloc(((size_t)fr->nfv + 1) * sizeof *fr->fv);
        memcpy(k[i].fr.iv, fr->iv, (size_t)fr->niv * sizeof *fr->iv);
        memcpy(k[i].fr.fv, fr->fv, (size_t)fr->nfv * sizeof *fr->fv);
        k[i].fr.err = &k[i].err;
        k[i].fr.steps = &k[i].steps;
        k[i].fr.max_steps = INT64_MAX;
        k[i].fr.in_par = 1;
        k[i].fr.vreg = NULL;     /* batch registers are per thread */
        k[i].fr.vcap = 0;
    }
    oom_keep(&C);   /* each chunk runs in a guard of its own (run_chunk) */
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
    int bad = -1, oom = 0;
    for (int i = 0; i < t; i++) {
        *fr->steps += k[i].steps;
        if (bad < 0 && k[i].failed)
            bad = i;
        oom |= k[i].oom;
        free(k[i].fr.iv);
        free(k[i].fr.fv);
        free(k[i].fr.vreg);
    }
    if (bad >= 0)
        *fr->err = k[bad].err;
    free(k);
    free(th);
    if (oom)
        oom_fail();   /* to the run's guard, on this thread */
    if (bad >= 0)
        longjmp(fr->jb, 1);
}

void s_for(const SNode *s, Frame *fr)
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
    if (bitop_name(op)) {
        if (a->f || b->f)
            return cerr(c, e->loc, "%s takes integers", bitop_name(op)), NULL;
        n->a = a;
        n->b = b;
        n->i = i_bits;
        n->k = op;
        n->dt = tir_dtype(e);
        return n;
    }
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
static int strides_of(Compiled *c, const Buffer *b, const Node ***st, const Node **eoff);

static Node *int_op(Compiled *c, Loc loc, int64_t (*op)(const Node *, Frame *), const Node *a, const Node *b)
{
    Node *m = node(c, loc);
    m->i = op;
    m->a = a;
    m->b = b;
    m->dt = DT_INT64;
    return m;
}

/* A_sub = T.match_buffer(A[lo0:hi0, lo1], (n,)): a strided view of A whose
 * dimensions are the region's ranges (its points dropped when the view has
 * fewer dimensions), at offset sum lo * stride in A's storage. */
static int region_strides(Compiled *c, const Buffer *b, const Node ***st, const Node **eoff)
{
    const Region *r = b->region;
    const Buffer *a = r->buf;
    const Node **ast, *aoff;
    int nslice = 0;
    for (int d = 0; d < r->n; d++)
        nslice += r->idx[d]->kind == E_SLICE;
    if (r->n != a->ndim || (b->ndim != r->n && b->ndim != nslice))
        return cerr(c, b->loc, "the interpreter runs a match_buffer of a region with one dimension per range of it; "
                    "%s has %d for %d ranges", b->name->str, b->ndim, nslice);
    if (strides_of(c, a, &ast, &aoff))
        return -1;
    const Node **v = arena_array(&c->arena, (size_t)a->ndim + 1, sizeof *v);
    /* the row-major strides of a plain base */
    for (int d = a->ndim - 1; d >= 0; d--)
        v[d] = ast ? ast[d] : d == a->ndim - 1 ? iconst(c, 1)
             : int_op(c, b->loc, i_mul, v[d + 1], as_int(c, expr(c, a->shape[d + 1]), DT_INT64));
    const Node *off = ast ? aoff : iconst(c, 0);
    const Node **bs = arena_array(&c->arena, (size_t)b->ndim + 1, sizeof *bs);
    for (int d = 0, k = 0; d < r->n; d++) {
        const Expr *lo = r->idx[d]->kind == E_SLICE ? r->idx[d]->u.slice.lo : r->idx[d];
        const Node *l = as_int(c, expr(c, lo), DT_INT64);
        if (!l || !v[d])
            return -1;
        off = int_op(c, b->loc, i_add, off, int_op(c, b->loc, i_mul, l, v[d]));
        if (b->ndim == r->n || r->idx[d]->kind == E_SLICE)
            bs[k++] = v[d];
    }
    *st = bs;
    *eoff = off;
    return 0;
}

static int strides_of(Compiled *c, const Buffer *b, const Node ***st, const Node **eoff)
{
    if (b->region)
        return region_strides(c, b, st, eoff);
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
        } else if (e->u.un.op == U_BITNOT) {
            if (a->f)
                return cerr(c, e->loc, BITNOT_NAME " takes integers"), NULL;
            n->i = i_bitnot;
            n->dt = tir_dtype(e);
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
        /* T.attr(node, key, value), as TVM prints an attribute over the
         * statements after it: a hint to a compiler, no value to compute */
        if (st->u.eval->kind == E_CALL && !strcmp(st->u.eval->u.call.op->str, "T.attr"))
            return snode(c, s_nop, st->loc);
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
        if (b->kind == BUF_MATCH && !b->region) {
            /* bound at the call, from the handle parameter */
            return snode(c, s_nop, st->loc);
        }
        /* a view: of a buffer's storage (B.data), or of a region of it */
        const Buffer *of = b->region ? b->region->buf : b->kind == BUF_ALIAS ? b->base : NULL;
        int base = -1;
        if (of && (base = find(c->bufs, c->nbufs, of)) < 0)
            return cerr(c, st->loc, "buffer %s is not bound here", of->name->str), NULL;
        s = snode(c, of ? s_alias : s_alloc, st->loc);
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
        int **list = of ? &c->views : &c->allocs, *n = of ? &c->nviews : &c->nallocs;
        int *g = arena_array(&c->arena, (size_t)*n + 1, sizeof *g);
        if (*n)
            memcpy(g, *list, (size_t)*n * sizeof *g);
        g[(*n)++] = s->slot;
        *list = g;
        return s;
    }
    case S_LOWERED:
        /* with T.attr(node, key, value): a hint to a compiler over its
         * body, which runs as it is; the other lowered statements are
         * refused before compiling (tir_unrunnable) */
        if (st->u.low.k == LOW_ATTR && st->u.low.body)
            return stmt(c, st->u.low.body);
        break;
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

static void compiled_free(Compiled *c)
{
    if (c) {
        arena_free(&c->arena);
        free(c);
    }
}

static void compiled_free_v(void *c)
{
    compiled_free(c);
}

static Compiled *compile(Func *f, int batches, InterpError *err)
{
    Compiled *c = xcalloc(1, sizeof *c);
    oom_defer(compiled_free_v, c);   /* until it is the cache's (compiled) */
    c->fn = f;
    c->batches = batches;
    c->err = err;
    c->param_buf = arena_array(&c->arena, (size_t)f->npparams + 1, sizeof *c->param_buf);
    c->param_int = arena_array(&c->arena, (size_t)f->npparams + 1, sizeof *c->param_int);
    for (int i = 0; i < f->npparams; i++) {
        c->param_buf[i] = c->param_int[i] = -1;
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
    /* an integer scalar parameter (n: T.int32) is an integer variable the
     * call binds: R.call_tir's tir_vars, or --entry's seeded value */
    for (int i = 0; i < f->npparams; i++) {
        const Var *v = f->pparams[i].var;
        if (c->param_buf[i] >= 0)
            continue;
        if (v && !f->pparams[i].handle_type && dtype_is_int(v->dtype))
            c->param_int[i] = int_var(c, v);
        else
            cerr(c, v ? v->loc : f->loc, "the interpreter passes buffers and integer scalars only; parameter %d of %s "
                 "is %s", i, f->name->str, v && v->dtype == DT_HANDLE ? "a handle no T.match_buffer reads" :
                 "a scalar that is not an integer");
    }
    const char *what = tir_unrunnable(f);
    if (what)
        cerr(c, f->loc, "the interpreter does not run %s (in %s); lopt reads and prints it", what, f->name->str);
    if (!c->failed)
        c->body = f->body ? stmt(c, f->body) : snode(c, s_nop, f->loc);
    if (c->failed || !c->body) {
        oom_keep(c);
        compiled_free(c);
        return NULL;
    }
    /* a view shares a buffer's storage under another name, which
     * par_loop_ok's per-buffer proof does not see */
    for (int i = 0; c->nviews && i < c->npar; i++)
        c->par[i]->par = 0;
    return c;
}


/* ---- calls ---- */

typedef struct Cache {
    Func *fn;
    Compiled *c;
    char *text;            /* the call cache's key: f printed without its name */
} Cache;

static const volatile sig_atomic_t never;

struct Interp {
    Module *m;
    Cache *cache;
    int ncache, capcache;
    Module *scratch;       /* PrimFuncs of legalized operator calls */
    OpTable legal;         /* the calls they serve */
    int64_t steps, max_steps;
    const volatile sig_atomic_t *stop;
    double timeout;
    Memo *memo;            /* --verify-exec's call cache, or NULL */
    int threads;           /* -j */
    int64_t par_loops;     /* runs of loops split over threads */
    int no_batches;        /* --no-batch */
    struct RelaxPlans *plans;  /* when the values of each Relax function die */
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
    Interp *in = xcalloc(1, sizeof *in);
    if (!in)
        oom_fail();
    in->m = m;
    in->max_steps = INTERP_DEFAULT_MAX_STEPS;
    in->stop = &never;
    return in;
}

void interp_set_stop(Interp *in, const volatile sig_atomic_t *flag, double timeout)
{
    in->stop = flag ? flag : &never;
    in->timeout = timeout;
}

void interp_stop_text(int flag, double timeout, const char *what, char *buf, size_t cap)
{
    if (flag == INTERP_STOP_TIMEOUT)
        snprintf(buf, cap, "%s reached --timeout %g s", what, timeout);
    else
        snprintf(buf, cap, "%s was interrupted", what);
}

int interp_stopped(const Interp *in, InterpError *err, Loc loc, const char *where)
{
    int stop = *in->stop;
    if (!stop)
        return 0;
    char why[80];
    interp_stop_text(stop, in->timeout, "the run", why, sizeof why);
    err->loc = loc;
    err->limit = 1;
    snprintf(err->msg, sizeof err->msg, "%s %s", why, where);
    return -1;
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

struct RelaxPlans **interp_plans(Interp *in)
{
    return &in->plans;
}

int64_t interp_steps(const Interp *in)
{
    return in->steps;
}

int interp_count_relax_call(Interp *in)
{
    if (in->steps > in->max_steps - INTERP_RELAX_CALL_STEPS)
        return -1;
    in->steps += INTERP_RELAX_CALL_STEPS;
    return 0;
}

int64_t interp_max_steps(const Interp *in)
{
    return in->max_steps;
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
    relax_plans_free(in->plans);
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
        Cache *g = xrealloc(in->cache, (size_t)in->capcache * sizeof *g);
        if (!g)
            oom_fail();
        in->cache = g;
    }
    in->cache[in->ncache++] = (Cache){ f, c, NULL };
    oom_keep(c);
    return c;
}

Module *interp_module(const Interp *in)
{
    return in->m;
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
        MemOut o;
        print_prim_func(memout_open(&o), f);
        if (memout_close(&o))
            return NULL;
        char *buf = o.buf, *def = strstr(buf, "def ");
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

typedef struct Bound {
    Compiled *c;
    Frame *fr;
} Bound;

static int bound_value(const Var *v, void *data, int64_t *out)
{
    const Bound *b = data;
    int s = find(b->c->vars, b->c->nvars, v);
    if (s < 0 || b->fr->iv[s] == INT64_MIN)
        return -1;
    *out = b->fr->iv[s];
    return 0;
}

/* The value of an extent over the shape variables bound so far (n * m, as
 * transform-layout writes a fused symbolic axis); -1 when it reads one not
 * yet bound or anything else. */
static int shape_eval(Compiled *c, Frame *fr, const Expr *e, int64_t *v)
{
    Bound b = { c, fr };
    return expr_eval_int(e, bound_value, &b, v);
}

/* Binds the shape variables b's extents name alone; an extent computed from
 * them (n * m) is checked once every parameter is bound (last set). */
static int bind_shape(Compiled *c, Frame *fr, const Buffer *b, const Tensor *t, int last, InterpError *err)
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
        } else if (last) {
            if (b->shape[d]->kind == E_VAR)
                continue;
            if (shape_eval(c, fr, b->shape[d], &want)) {
                err->loc = b->shape[d]->loc;
                snprintf(err->msg, sizeof err->msg, "the interpreter needs extents of %s that are constants, "
                         "variables or computed from variables other extents bind", b->name->str);
                return -1;
            }
            if (want == t->shape[d])
                continue;
        } else if (b->shape[d]->kind != E_VAR) {
            continue;
        } else {
            int s = find(c->vars, c->nvars, b->shape[d]->u.var);
            if (fr->iv[s] == INT64_MIN)
                fr->iv[s] = t->shape[d];
            if (fr->iv[s] == t->shape[d])
                continue;
            want = fr->iv[s];
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

/* An integer scalar parameter takes the call's value: a rank-0 tensor, as
 * Relax holds a prim value, one element of tir_vars. */
static int bind_scalar(const Func *f, int i, Frame *fr, int slot, const Tensor *t, InterpError *err)
{
    const Var *v = f->pparams[i].var;
    if (t->ndim != 0 || !dtype_is_int(t->dtype)) {
        err->loc = v->loc;
        snprintf(err->msg, sizeof err->msg, "%s is an integer scalar parameter of %s; the call passes a %dd %s tensor",
                 v->name->str, f->name->str, t->ndim, dtype_name(t->dtype));
        return -1;
    }
    fr->iv[slot] = tensor_geti(t, 0);
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

/* A call's frame and what its body allocated; fr may be half-built (its
 * arrays NULL until made). */
static void frame_free(const Compiled *c, Frame *fr)
{
    if (!fr)
        return;
    if (fr->buf) {
        for (int i = 0; i < c->nallocs; i++)
            tensor_free(fr->buf[c->allocs[i]]);
        for (int i = 0; i < c->nviews; i++)
            free(fr->buf[c->views[i]]);
    }
    free(fr->iv);
    free(fr->fv);
    free(fr->buf);
    free(fr->vreg);
    free(fr);
}

/* The call of f's compiled body c in a frame of its own, freed when the
 * body ends or an allocation under it fails. */
static int run_frame(Interp *in, const Func *f, Compiled *c, Tensor **args, int nargs, InterpError *err)
{
    Frame *volatile made = NULL;
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the frame and the buffers the body allocated go before unwinding on */
        frame_free(c, made);
        oom_fail();
    }
    Frame *fr = xcalloc(1, sizeof *fr);
    if (!fr)
        oom_fail();
    made = fr;
    fr->iv = xcalloc((size_t)c->niv + 1, sizeof *fr->iv);
    fr->fv = xcalloc((size_t)c->nfv + 1, sizeof *fr->fv);
    fr->buf = xcalloc((size_t)c->nbuf + 1, sizeof *fr->buf);
    fr->err = err;
    fr->steps = &in->steps;
    fr->max_steps = in->max_steps;
    fr->stop = in->stop;
    fr->timeout = in->timeout;
    fr->fname = f->name->str;
    fr->threads = in->threads;
    fr->par_loops = &in->par_loops;
    fr->niv = c->niv;
    fr->nfv = c->nfv;
    fr->nbuf = c->nbuf;
    if (!fr->iv || !fr->fv || !fr->buf)
        oom_fail();
    for (int i = 0; i < c->niv; i++)
        fr->iv[i] = INT64_MIN;
    int status = 0;
    /* scalars first: an extent written with one ((16 + n - 1) // n) is
     * checked against the value the call passes */
    for (int i = 0; i < nargs && !status; i++)
        if (c->param_int[i] >= 0)
            status = bind_scalar(f, i, fr, c->param_int[i], args[i], err);
    for (int i = 0; i < nargs && !status; i++) {
        if (c->param_buf[i] < 0)
            continue;
        fr->buf[c->param_buf[i]] = args[i];
        status = bind_shape(c, fr, c->bufs[c->param_buf[i]].key, args[i], 0, err);
    }
    for (int i = 0; i < nargs && !status; i++)
        if (c->param_buf[i] >= 0)
            status = bind_shape(c, fr, c->bufs[c->param_buf[i]].key, args[i], 1, err);
    if (!status)
        status = run_body(c->body, fr);
    oom_leave(&guard);
    frame_free(c, fr);
    return status;
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
    MemoCall *before = text ? memo_before(in->memo, args, nargs) : NULL;
    int64_t steps0 = in->steps;
    int status = run_frame(in, f, c, args, nargs, err);
    if (before)
        memo_record(in->memo, text, before, args, nargs, status == 0, in->steps - steps0);
    return status;
}
