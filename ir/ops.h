/* The operator registry: for each Relax operator (R.add, R.nn.conv2d, ...)
 * its argument and attribute checks, its result's shape and dtype, its layout
 * category (seed 002: agnostic, lightly or heavily layout sensitive) and its
 * legalization: a PrimFunc built for the concrete shapes of a call, whose
 * T.func_attr records the operator and its attributes. */
#ifndef LOPT_OPS_H
#define LOPT_OPS_H

#include "ir.h"

typedef enum { LAYOUT_AGNOSTIC, LAYOUT_LIGHT, LAYOUT_HEAVY } LayoutCategory;

enum { OP_MAX_RANK = 16, OP_MAX_ARGS = 64 };

/* The type of a tensor: what legalization needs of each argument. */
typedef struct TensorType {
    DType dtype;
    int ndim;
    int64_t shape[OP_MAX_RANK];
} TensorType;

typedef struct OpError {
    Loc loc;
    char msg[256];
    int unknown;           /* the call may be right, but its result's shape depends on values
                            * not known here (R.dynamic_strided_slice's bounds): verify and
                            * legalize leave it; the interpreter writes the values in first */
} OpError;

typedef struct OpInfo {
    const char *name;
    LayoutCategory category;
    int nargs;             /* positional arguments */
    int ntensors;          /* of which the first ntensors are tensors (R.reshape: 1) */
    const char *const *attrs; /* keyword attributes it accepts, NULL-terminated */
    int tuple_arg;         /* the tensors are the items of the first argument (R.concat) */
    int tuple_out;         /* the result is a tuple (R.split, R.nn.batch_norm) */
    const char *dtypes;    /* the dtypes its inference takes, as lopt --list-ops says them
                            * ("float"); NULL: every dtype */
    const char *layouts;   /* the data layouts its layout attributes take, as lopt --list-ops
                            * says them; NULL: it has none (it reads its tensors as they are) */
} OpInfo;

const OpInfo *op_find(const char *name);
/* Whether argument k (from 0) of the operator name may be a prim value, as
 * TVM takes one: an operand of a broadcasting binary operator (R.add(x, y)
 * with y: R.Prim("float32"), a 0-d tensor of its dtype) or R.take's index. */
int op_prim_operand(const char *name, int k);
/* The layout a call of a convolution or pool takes when it omits the
 * attribute key: "NCHW" for data_layout and layout, "OIHW" for
 * kernel_layout (out_layout defaults to the data layout, which the caller
 * has). The one place of these defaults: the registry, convert-layout and
 * annotate-scope read them here. NULL for another key. */
const char *op_layout_default(const char *key);
/* The attribute a call of the operator name may give as its positional
 * argument nargs + i (R.clip(x, 0, 6): min, max); NULL when there is none.
 * The reader makes such arguments keywords, so every pass reads one form. */
const char *op_positional(const char *name, int i);
/* Whether name makes a tensor from a shape and a value alone (R.zeros,
 * R.full_like, R.arange ...): fold keeps such calls when they are large. */
int op_is_creation(const char *name);

/* The type a struct info states, when it states a whole one (a dtype and a
 * constant shape of rank at most OP_MAX_RANK); -1 otherwise. */
int op_sinfo_type(const StructInfo *s, TensorType *t);
/* The type of an R.const; -1 when e is not one or its rank is too high. */
int op_const_type(const Expr *e, TensorType *t);

/* The one dimension a call of R.nn.softmax, R.nn.batch_norm, R.concat or
 * R.split acts on, in [0, rank): its axis attribute, or the operator's
 * default when the call omits it. Every reader of the attribute goes
 * through here. Returns 0, or -1 (no such operator, axis not a constant
 * in range, or omitted where there is no default: batch_norm). */
int op_axis(const Expr *call, int rank, int *axis);
/* Whether a call of R.nn.batch_norm normalizes by the batch's own mean and
 * variance (training, TVM's default) rather than by its moving statistics
 * (training=False), which makes it elementwise in its data. */
int op_batch_norm_training(const Expr *call);
const OpInfo *op_registry(int *n);

/* Checks that every keyword of a call of a registered operator is one of
 * its attributes. Returns 0 (also for calls of other names), or -1. */
int op_check_attrs(const Expr *call, OpError *err);
/* Calls of one operator on the same argument types with the same
 * attributes legalize to the same PrimFunc: op_call_same says whether a and
 * b are such calls (nargs tensors each), and op_call_hash agrees with it. */
uint64_t op_call_hash(const Expr *call, const TensorType *args, int nargs);
int op_call_same(const Expr *a, const TensorType *aargs, const Expr *b, const TensorType *bargs, int nargs);

/* The PrimFuncs made for operator calls, found again for identical calls
 * (legalize and the interpreter share what they made). Zero-initialized
 * when empty; its memory is malloc'd, released by op_table_free. */
typedef struct OpTableEntry {
    const Expr *call;
    TensorType args[OP_MAX_ARGS];
    int nargs;
    uint64_t hash;
    Func *fn;
} OpTableEntry;

typedef struct OpTable {
    OpTableEntry *items;
    int n, cap;
    int *slots;            /* open addressing over items: 1 + an index, or 0 */
    size_t capslots;
} OpTable;

Func *op_table_find(const OpTable *t, const Expr *call, const TensorType *args, int nargs);
void op_table_add(OpTable *t, const Expr *call, const TensorType *args, int nargs, Func *fn);
void op_table_free(OpTable *t);
/* Whether name is a call lopt gives a meaning outside the registry
 * (R.call_tir, R.hint_on_device, R.to_vdevice, R.device) or a Relax value
 * form it keeps (R.shape, R.prim_value, R.str, R.dtype, R.match_cast, and
 * the shape values R.shape_of, R.shape_to_tensor, R.tensor_to_shape, which
 * the verifier types and the interpreter runs). */
int op_is_special(const char *name);
/* The name of the i-th registered operator, then of the specials; NULL
 * past them (for "did you mean", ir/names.c). */
const char *op_known_name(int i);

/* Checks the call (a registered operator applied to arguments of the given
 * types) and gives the types of its results (OP_MAX_ARGS at most; one unless
 * the operator returns a tuple). Returns 0, or -1 with err filled. */
int op_infer(const Expr *call, const TensorType *args, int nargs, TensorType *outs, int *nout, OpError *err);

/* Builds the PrimFunc computing the call for these argument types, named
 * name, in m's arena (not added to m). Its parameters are the arguments'
 * buffers, then the outputs'. Returns NULL with err filled. */
Func *op_legalize(Module *m, const Expr *call, const TensorType *args, int nargs, Sym *name, OpError *err);

#endif
