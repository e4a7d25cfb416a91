/* What the buffer-layout passes (seed 001: flatten, transform-layout,
 * transform-block-layout) share: the variables in scope with their ranges,
 * index arithmetic that folds constants, and walks over a PrimFunc's names
 * and buffers. */
#ifndef LOPT_PHYSICAL_H
#define LOPT_PHYSICAL_H

#include "../../ir/ir.h"
#include "../graph.h"

/* The loop variables and block iterators around a statement; ext[i] is the
 * extent of a variable that ranges over [0, ext[i]), or -1 when unknown. */
typedef struct Scope {
    Var **vars;
    int64_t *ext;
    const Expr **extx;     /* the extent as written, for a variable from 0; else NULL */
    int n, cap;
    /* Shape variables to read at their stand-ins (NULL: none): a symbolic
     * extent counts at its stand-in value, and scope_simplify keeps a
     * simplified index only where it equals the index as written at every
     * small value of them (im_sym_check's bindings). */
    const struct ImSyms *syms;
} Scope;

/* Pushes v ranging from min (NULL: 0) over extent; pop by resetting n. */
void scope_push(Scope *sc, Var *v, const Expr *extent, const Expr *min);
void scope_free(Scope *sc);
/* e simplified as an index over the variables in scope (im_simplify). */
Expr *scope_simplify(const Scope *sc, Arena *a, Arena *scratch, Expr *e);

/* x + y and x * y, folding constants and the identities 0 and 1. */
Expr *ix_add(Arena *a, Expr *x, Expr *y);
Expr *ix_mul(Arena *a, Expr *x, Expr *y);

/* for v in range(extent): body (serial), v's loop set to it. */
Stmt *loop_serial(Arena *a, Var *v, int64_t extent, Stmt *body);

/* Records the names of f's parameters, buffers and variables (for fresh_name). */
void prim_names(const Func *f, PtrMap *names);
/* The variables the shapes of f's buffers read (its shape variables, n of
 * T.match_buffer(a, (n, 64))), at most cap of them, into out; their count. */
int prim_shape_syms(const Func *f, Var **out, int cap);
/* Adds the variables e reads to out[0 .. n) (at most cap); the new count. */
int expr_syms(const Expr *e, Var **out, int cap, int n);
/* Marks (value 1) every buffer s loads, stores or names in a region. */
void prim_used_buffers(const Stmt *s, PtrMap *used);

/* The layout of a buffer declared with strides= or a nonzero elem_offset=
 * (TVM's spellings): *st gets its ndim strides (row-major ones when only an
 * offset is given) and *off its offset. Returns 1 for such a buffer, 0 for a
 * row-major one (no strides, or constant strides equal to the row-major
 * ones, offset 0), -1 when strides= is not a list of ndim extents. */
int buffer_strides(Arena *a, const Buffer *b, Expr ***st, Expr **off);
/* Removes strides= and elem_offset= from b's options (b owns its arrays). */
void buffer_drop_strides(Arena *a, Buffer *b);

#endif
