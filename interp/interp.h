/* The interpreter: runs a module's Relax main on tensors, and PrimFuncs on
 * buffers. PrimFuncs are compiled once per run into a tree of typed closures
 * (interp/tir.c), whose innermost loop bands also run as batches of vector
 * operations; Relax bindings are executed in order (interp/relax.c).
 * Every runtime error (an out-of-bounds access, a division by zero, a shape
 * that does not match) is reported with the source location; none crashes. */
#ifndef LOPT_INTERP_H
#define LOPT_INTERP_H

#include <signal.h>

#include "../ir/ir.h"
#include "../ir/ops.h"
#include "tensor.h"

typedef struct InterpError {
    Loc loc;
    char msg[512];
    int limit;            /* a budget or an interrupt stopped the run, not its input */
} InterpError;

/* A shape value (R.shape_of, R.tensor_to_shape, R.shape([n * 3])) holds its
 * dimensions as a 1-d int64 tensor, one element a dimension; a prim value
 * (R.prim_value(n * 2)) its scalar as a rank-0 tensor of its dtype. */
typedef enum { VAL_TENSOR, VAL_TUPLE, VAL_SHAPE, VAL_PRIM } ValKind;

typedef struct Value {
    ValKind kind;
    Tensor *t;            /* VAL_TENSOR, VAL_SHAPE, VAL_PRIM */
    struct Value **items;
    int n;
} Value;

Value *value_tensor(Tensor *t);
Value *value_tuple(Value **items, int n);
/* A shape of n dimensions (NULL when memory runs out). */
Value *value_shape(const int64_t *dims, int n);
/* A shape value as the text writes it: R.shape([2, 3]). */
void value_shape_text(const Value *v, char *buf, size_t cap);
/* An integer prim value of dtype t (NULL when t is not one lopt has). */
Value *value_prim_int(DType t, int64_t v);
/* A prim value as the text writes it: R.prim_value(T.int64(3)). */
void value_prim_text(const Value *v, char *buf, size_t cap);
/* A copy sharing nothing with v; NULL when memory or the memory budget runs out. */
Value *value_clone(const Value *v);
void value_free(Value *v);

typedef struct Interp Interp;

Interp *interp_new(Module *m);
void interp_free(Interp *in);

/* A run's work is bounded: every loop iteration of every PrimFunc it calls
 * is a step, every call of a Relax function by another counts as
 * INTERP_RELAX_CALL_STEPS (what such a call costs in time next to a loop
 * iteration in batches), and the run stops with an error at max_steps; so
 * a recursion that doubles at every level, with no loop at all, stops too.
 * The default is about three times what the largest model measured needs
 * (bench/gen-models.py resnet50 64 224, 9.3e9 steps, 10 s; TVM's ResNet at
 * 224, 2.6e9): in batches a run reaches it in about 45 s, a loop nest that
 * runs one iteration at a time in about 30 min (a batch adds its steps at
 * once, and leaves a tile that would pass the budget to the closures,
 * which stop at the exact step). Relax calls nest at most
 * INTERP_MAX_RELAX_DEPTH deep. */
enum { INTERP_MAX_RELAX_DEPTH = 100, INTERP_RELAX_CALL_STEPS = 4000 };
#define INTERP_DEFAULT_MAX_STEPS ((int64_t)30000000000)
void interp_set_max_steps(Interp *in, int64_t max_steps);
/* A run stops, with an error naming where it was, once *flag is nonzero:
 * the interpreter reads it at every loop iteration, batch tile and Relax
 * binding, so it stops within microseconds of the flag being set (by a
 * signal handler or another thread). INTERP_STOP_TIMEOUT says the
 * --timeout of timeout seconds ran out; any other value, an interrupt.
 * NULL (the default): never. */
enum { INTERP_STOP_INTERRUPT = 1, INTERP_STOP_TIMEOUT = 2 };
void interp_set_stop(Interp *in, const volatile sig_atomic_t *flag, double timeout);
/* Why what ("the run", "the pipeline") stopped with that flag value, as
 * the errors say it: "the run was interrupted", "the run reached --timeout
 * 0.5 s". */
void interp_stop_text(int flag, double timeout, const char *what, char *buf, size_t cap);
/* When the flag is set: -1 with err filled at loc ("<why> <where>"), else 0. */
int interp_stopped(const Interp *in, InterpError *err, Loc loc, const char *where);
/* Loops whose iterations are proven independent (interp/par.h) run on up to
 * this many threads, with the results of running them in order; 1 (the
 * default) runs everything on the calling thread. */
void interp_set_threads(Interp *in, int threads);
/* How many runs of loops the interpreter split over threads. */
int64_t interp_par_loops(const Interp *in);
/* Whether loop bands run as batches (the default) or every loop one
 * iteration at a time (--no-batch), with the same results. */
void interp_set_batches(Interp *in, int on);

/* Runs of PrimFuncs replay what the cache (interp/memo.h) knows and record
 * what it does not; the cache outlives the interpreter (NULL: none). */
struct Memo;
void interp_set_memo(Interp *in, struct Memo *memo);
/* When each Relax function's values die (interp/relax.c), worked out on
 * the function's first call and kept by the interpreter. */
struct RelaxPlans;
struct RelaxPlans **interp_plans(Interp *in);
void relax_plans_free(struct RelaxPlans *plans);
/* The module in runs. */
Module *interp_module(const Interp *in);
int64_t interp_steps(const Interp *in);
int64_t interp_max_steps(const Interp *in);
/* Counts a call of a Relax function against the budget: 0, or -1 (nothing
 * counted) when it would pass max_steps. */
int interp_count_relax_call(Interp *in);

/* Runs the PrimFunc f on args (one per parameter: buffers as tensors, in
 * order). Returns 0, or -1 with err filled. */
int interp_call_prim(Interp *in, Func *f, Tensor **args, int nargs, InterpError *err);

/* Runs the Relax function f on args (one per parameter). On success returns
 * 0 and the result in *out (owned by the caller). */
int interp_call_relax(Interp *in, Func *f, Value **args, int nargs, Value **out, InterpError *err);

/* The PrimFunc a registered operator's call legalizes to for these argument
 * types, built in the interpreter's own module once for all calls of the
 * operator on these types with the same attributes. */
Func *interp_legalized(Interp *in, const Expr *call, const TensorType *args, int nargs, OpError *err);
/* An arena living as long as the interpreter: calls rewritten at run time
 * (a shape value written into a call as constants) live there, since the
 * table of legalized calls keeps them. */
Arena *interp_arena(Interp *in);

/* A tensor holding an E_CONST's values (owned by the caller), or NULL when
 * its rank is beyond TENSOR_MAX_RANK or memory runs out. */
Tensor *interp_const_tensor(const Expr *e);

/* The shape and dtype a Relax parameter declares, for generating inputs.
 * Returns -1 when it is not a tensor of known constant shape. */
int interp_param_shape(const Var *v, DType *dt, int *ndim, int64_t *shape);

/* A dimension of a parameter of f that nothing binds (no input nor --shape
 * gives it) is drawn from the seed and its name: the multiples of m in
 * [2, max(8, 2m)], where m is the least multiple of every constant that
 * divides v in f's types (a // 2 and b % 3 make them even and a multiple of
 * 3; m is 1 when they would pass INTERP_DRAWN_EXTENT_MAX); 2 to 8 when v is
 * NULL (a dimension of a type that gives only its rank). Not 1, where a
 * broadcast would hide what the function does with the dimension. */
enum { INTERP_DRAWN_EXTENT_MAX = 64 };
int64_t interp_draw_extent(const Func *f, const Var *v, const char *name, uint64_t seed);
/* The one extent every drawn extent takes when independent draws do not run
 * a function: 4, or the least multiple of every constant that divides v
 * (as interp_draw_extent's) when 4 is not one of them. */
int64_t interp_even_extent(const Func *f, const Var *v);
/* The first R.match_cast of the parameter p itself in f's bindings to a
 * tensor type with a shape, or NULL: what it requires of the dimensions
 * lopt draws for p. */
const Expr *interp_param_cast(const Func *f, const Var *p);
/* Fills t, the input for parameter i of the Relax function f, from the
 * seed: as tensor_fill_seeded does, except that integers which f's calls
 * read as indices (found in the PrimFuncs the values reach, legalized for a
 * registered operator: R.take, R.gather_elements, R.scatter_nd ...) are
 * drawn in [0, the least extent they index); dims gives the values of f's
 * symbolic dimensions (given or drawn), which those extents may be. */
void interp_fill_param(const Func *f, int i, Tensor *t, uint64_t seed, VarValue dims, void *data);
/* The seeded input for parameter i of f when it is a tuple (of tensors of
 * constant shape, or of shapes dims gives, or tuples of them): item k of p
 * is filled as "p[k]". NULL with err filled otherwise. */
Value *interp_seed_tuple(const Func *f, int i, uint64_t seed, VarValue dims, void *data, char *err, size_t cap);
/* Runs the PrimFunc f alone: each buffer it reads seeded (indices in their
 * extent, as above), each it only writes undefined; *out is the buffer it
 * writes, or the tuple of them in parameter order. Returns 0, or -1 with
 * err filled (a scalar parameter, a shape not constant, nothing written). */
int interp_run_prim_seeded(Interp *in, Func *f, uint64_t seed, Value **out, InterpError *err);

#endif
