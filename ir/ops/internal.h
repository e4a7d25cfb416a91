/* What the files of the operator registry share, and nothing outside ir/ops/
 * includes: an operator's table entry, the plan its shape inference fills and
 * its legalization follows, the attribute readers, data layouts and sliding
 * windows, and the builder of TIR loop nests. */
#ifndef LOPT_OPS_INTERNAL_H
#define LOPT_OPS_INTERNAL_H

#include "../ops.h"

/* ---- the plan: what inference finds and legalization follows ---- */

/* A layout such as NCHW4c over four primal axes (N C H W, or O I H W): for
 * each buffer axis its primal axis and whether it is the inner split. */
typedef struct Lay {
    int n;
    int prim[OP_MAX_RANK];
    int inner[OP_MAX_RANK];
    int64_t split[4];          /* the factor a primal axis is split by, or 0 */
} Lay;

typedef struct Plan {
    TensorType out;
    int axes[OP_MAX_RANK];     /* permute: out dim d reads input dim axes[d]; reduce: reduced dims flagged */
    int keepdims;              /* reduce: keep the dims; avg pool: count_include_pad; resize: cubic_exclude */
    int64_t stride[2], pad[4], dil[2], groups;
    int dpos[4], kpos[4];      /* pooling, resize: positions of H and W in the layout and out_layout */
    Lay dl, kl, ol;            /* conv2d: data, kernel and output layouts */
    int64_t dext[4], kext[4];  /* conv2d: logical N C H W and O I H W */
    /* pad: leading pads; slice: begin and stride; concat and split: where
     * each input or output starts along the axis (as many as arguments) */
    int64_t before[OP_MAX_ARGS > OP_MAX_RANK ? OP_MAX_ARGS : OP_MAX_RANK], step[OP_MAX_RANK];
    int64_t pool[2];
    double pad_value;          /* pad, layout_transform: the pad value; norms: epsilon; fills: the value */
    double scalar[2];          /* arange: start and step; clip: min and max; resize: cubic_alpha;
                                * batch_norm: momentum */
    int axis;
    int center, scale;         /* batch_norm, layer_norm: add beta, multiply by gamma; pools: center is ceil_mode */
    int training;              /* batch_norm: normalize by the batch's statistics */
    int list[OP_MAX_RANK], nlist;   /* layer_norm: the normalized axes in the call's order */
    int mode[3];               /* resize2d: method, coordinate transformation, rounding */
    int nout;                  /* outputs: out, then more[0], more[1], ... */
    TensorType more[OP_MAX_ARGS];
} Plan;

/* The PrimFunc being built: its statements in order, and an arena for the
 * index algebra that nest_end frees as it goes. */
typedef struct B {
    Module *m;
    Arena *a;
    Loc loc;
    Stmt **stmts;
    int n, cap;
    Arena scratch;
} B;

/* ---- an operator's table entry ---- */

typedef struct Op Op;

/* Checks a call and fills the plan (p->out and, for tuples, p->nout and
 * p->more); 0, or -1 with err filled. The plan arrives zeroed, nout 1. */
typedef int OpInferFn(const Op *o, const Expr *call, const TensorType *args, int nargs, Plan *p, OpError *err);
/* Emits the loop nests computing the call from in[0..nin) into outs[0..p->nout). */
typedef void OpLegalFn(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p);

struct Op {
    OpInfo info;
    OpInferFn *infer;
    OpLegalFn *legal;
    int code;              /* which member of a shared builder: a BinOp, a U_ or an R_ code */
    int has_axis;          /* the call has one axis attribute, axis when omitted (-1: the last);
                            * AXIS_REQUIRED: the call must give it */
    int axis;
    const char *const *positional;   /* attributes a call may give positionally after its
                                      * info.nargs arguments, in order (NULL: none) */
};

enum { AXIS_REQUIRED = 2 };

/* One file's operators; registry.c lists the families. */
typedef struct OpFamily {
    const Op *ops;
    int n;
} OpFamily;

extern const OpFamily op_family_elementwise, op_family_reduce, op_family_manipulate, op_family_index,
    op_family_linalg, op_family_conv, op_family_pool, op_family_norm, op_family_creation, op_family_image;

enum {
    U_RELU, U_EXP, U_SIGMOID, U_TANH, U_SQRT, U_NEGATIVE, U_GELU, U_GELU_TANH, U_SILU, U_LOG, U_ABS, U_RSQRT, U_FLOOR,
    U_CEIL, U_ROUND, U_SIN, U_COS, U_SQUARE, U_SIGN, U_ERF, U_LOGICAL_NOT
};
enum { BIN_POWER = 100 };   /* a binary code past the BinOps: T.pow */
enum { BIN_BOOL = 200 };    /* BIN_BOOL + a comparison or B_AND, B_OR: a bool result */
enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_PROD };

/* ---- reading attributes (attrs.c, and read_axis in registry.c) ---- */

int fail(OpError *err, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);
const Expr *attr(const Expr *call, const char *name);
int int_of(const Expr *e, int64_t *v);
/* An int or a list/tuple of ints (at most max); returns the count or -1. */
int ints_of(const Expr *e, int64_t *v, int max);
const char *str_of(const Expr *e, const char *dflt);
int num_of(const Expr *e, double *v);
/* The axis attribute in [0, rank), or the operator's default. */
int read_axis(const Expr *call, int rank, int *axis, OpError *err);
const char *type_text(const TensorType *t, char *buf, size_t cap);
int out_dtype(const Expr *call, DType in, DType *out, OpError *err);
int shape_of(const Expr *e, int64_t *v, int max);
int scalar_of(const Expr *e, double *v);
int dtype_attr(const Expr *call, const char *name, DType dflt, DType *dt, OpError *err);

/* ---- data layouts and sliding windows (layout.c) ---- */

int lay_parse(const char *s, const char *prims, Lay *l);
void lay_logical(const Lay *l, const int64_t *shape, int64_t *ext);
int lay_shape(const Lay *l, const int64_t *ext, int64_t *shape);
int lay_logical_checked(const Lay *l, const TensorType *t, int64_t *ext);
/* Logical axes the loops visit split (f nonzero): outer * f + inner. */
typedef struct LaySplit {
    int64_t f[4];
    Expr *outer[4], *inner[4];
} LaySplit;
void lay_index(B *b, const Lay *l, Expr *const *logical, const LaySplit *sp, Expr **idx);
int hw_layout(const Expr *call, const TensorType *a, Plan *p, OpError *err);
int hw_out(const Expr *call, const TensorType *a, int64_t oh, int64_t ow, Plan *p, OpError *err);
void hw_index(B *b, const Plan *p, Expr *const *x, Expr *h, Expr *w, Expr **idx);
int window_attrs(const Expr *call, Plan *p, OpError *err);
int64_t window_out(const Plan *p, int k, int64_t in, int64_t kext);

/* ---- building TIR (build.c) ---- */

/* A loop nest with one block inside, its iterators remapped from the loops. */
typedef struct Nest {
    int n;
    Var *loop[2 * OP_MAX_RANK], *iv[2 * OP_MAX_RANK];
    Expr *x[2 * OP_MAX_RANK];   /* the block iterators as expressions */
    int64_t ext[2 * OP_MAX_RANK];
    char kind[2 * OP_MAX_RANK];
} Nest;

Expr *num(B *b, int64_t v);
Expr *ref(B *b, Var *v);
Expr *bin(B *b, BinOp op, Expr *x, Expr *y);
Expr *typed(B *b, double v, DType t);
Expr *intrin(B *b, const char *op, Expr *x, Expr *y);
Expr *str(B *b, const char *s);
Buffer *buffer(B *b, const char *name, const TensorType *t, BufKind kind);
Expr *load(B *b, Buffer *buf, Expr **idx);
Stmt *store(B *b, Buffer *buf, Expr **idx, Expr *value);
/* n loops over ext, their block iterators of kinds ('S', 'R'; NULL: all spatial) */
void nest_begin(B *b, Nest *t, int n, const int64_t *ext, const char *kinds);
void emit(B *b, Stmt *s);
void nest_end(B *b, Nest *t, const char *name, Stmt *init, Stmt *body);
Expr *to_dtype(B *b, Expr *x, DType from, DType to);
Expr *select3(B *b, Expr *cond, Expr *x, Expr *y);
Expr *within(B *b, Expr *e, int64_t lo, int64_t hi);
Buffer *scratch(B *b, const char *name, const TensorType *t);
/* Begins a nest over shape's dimensions, those flagged in red reduced (R,
 * innermost) and the others spatial (S), in order; at[d] is the loop of
 * dimension d. */
/* Loops over shape: the kept dimensions, then the reduced ones (red[d])
 * in the order order[0..norder) names them (NULL: dimension order), which
 * is the order a sum adds in. */
void nest_reduce(B *b, Nest *t, const int64_t *shape, int rank, const int *red, const int *order, int norder, int *at);

/* Whether o is a broadcasting binary operator (R.add, R.less, ...). */
int op_is_binary(const Op *o);
#endif
