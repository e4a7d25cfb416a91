/* What the closure compiler (interp/tir.c) and the batch engine
 * (interp/batch.c) share: the closure trees and the frame they run in, the
 * closures a batch recognizes by their run functions, and the loop hooks
 * each side calls in the other. Internal to interp/. */
#ifndef LOPT_TIR_INTERNAL_H
#define LOPT_TIR_INTERNAL_H

#include <setjmp.h>

#include "interp.h"

typedef struct Frame {
    int64_t *iv;
    double *fv;
    Tensor **buf;
    InterpError *err;
    jmp_buf jb;
    /* the run's loop iterations so far and its budget (--max-steps) */
    int64_t *steps;
    int64_t max_steps;
    const volatile sig_atomic_t *stop;   /* nonzero: stop (interp_set_stop); never NULL */
    double timeout;
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
typedef struct Batch Batch;
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
    const Batch *batch;    /* a loop that also runs as a batch */
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
    int *param_int;        /* an integer scalar parameter's slot, or -1 */
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

#define I(n) ((n)->i((n), fr))
#define F(n) ((n)->f((n), fr))
#define W(x) ((int64_t)(uint64_t)(x))

/* Wraps an integer to the width of its dtype, as a cast or store does. */
static inline int64_t wrap(DType t, int64_t v)
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

static inline double rnd(const Node *n, double v)
{
    return n->dt == DT_FLOAT32 ? (double)(float)v : n->dt == DT_FLOAT64 ? v : round_to(n->dt, v);
}

typedef double (*Math1)(double);

/* The closures a batch recognizes by their run functions (interp/tir.c). */
typedef int64_t INodeFn(const Node *, Frame *);
typedef double FNodeFn(const Node *, Frame *);
typedef void SNodeFn(const SNode *, Frame *);
INodeFn i_const, i_var, i_add, i_sub, i_mul, i_neg, i_min, i_max, i_lt, i_le, i_gt, i_ge, i_eq, i_ne, i_and,
    i_or, i_not, i_bits, i_bitnot, i_select, i_assume, i_div, i_wrap, i_aff, i_aff_lt, i_aff_le, i_aff_gt, i_aff_ge, i_aff_eq,
    i_aff_ne, i_aff1, i_from_f, f_lt, f_le, f_gt, f_ge, f_eq, f_ne, ld_i32, ld_i8, ld_iany, ld_iany_aff;
FNodeFn f_const, f_var, f_add32, f_sub32, f_mul32, f_div32, f_add, f_muladd32, f_sub, f_mul, f_div, f_neg,
    f_min, f_max, f_select, f_from_i, f_round, f_floordiv, f_floormod, f_math1, f_pow, ld_f32, ld_f64, ld_fany,
    ld_f32_aff, ld_fany_aff;
SNodeFn st_f32, st_f32_aff, st_fany_aff, st_iany_aff, st_fany, st_iany, s_block_plain, s_for;

/* A loop's iterations from..lo+n, one at a time (interp/tir.c). */
void for_range(const SNode *s, Frame *fr, int64_t from, int64_t lo, int64_t n);
/* Whether a loop runs on threads now, and running it so (interp/tir.c). */
int par_pays(const SNode *s, const Frame *fr, int64_t lo, int64_t n);
void run_par(const SNode *s, Frame *fr, int64_t lo, int64_t n);

/* The batch engine (interp/batch.c): a loop's band compiled as a batch, or
 * NULL; the loop that runs it; and its whole tiles in [from, to), which
 * returns where the closures must take over. */
const Batch *batch_compile(Compiled *c, const SNode *s);
SNodeFn s_for_batch;
int64_t batch_tiles(const SNode *s, Frame *fr, int64_t from, int64_t to);

#endif
