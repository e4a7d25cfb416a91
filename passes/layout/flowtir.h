/* Flowing a layout rewrite through a PrimFunc (seed 000, "at TIR-level"):
 * given the map on the function's result buffer, derive the maps of its
 * operand buffers from the blocks' write and read indices, and build a copy
 * of the function whose buffers and block iteration are in the new layouts. */
#ifndef LOPT_FLOWTIR_H
#define LOPT_FLOWTIR_H

#include "../../ir/ir.h"

enum { FLOW_MAX_ARGS = 16, FLOW_MAX_OUT = 16 };

typedef struct FlowOut {
    int64_t shape[16];
    int ndim;
    DType dtype;
} FlowOut;

typedef struct FlowTir {
    Func *f;                        /* the rewritten copy */
    int nargs;                      /* input buffers: the parameters before the result */
    Expr *map[FLOW_MAX_ARGS];       /* the rewrite each input now needs, NULL for none */
    int padded[FLOW_MAX_ARGS];      /* whether that map leaves padding */
    int has_pad;                    /* the inputs' padding must hold pad */
    double pad;
    FlowOut out[FLOW_MAX_OUT];      /* the results kept, in order, in their new shapes */
    int nout;
    Var *yvars[16];                 /* the first result block's new spatial iterators (for checks) */
    char why[320];                  /* when it fails: the reason, for --explain */
} FlowTir;

/* f's results are its last nout parameters; maps[k] is an E_INDEXMAP over
 * result k's shape, or NULL when nothing uses result k (the copy drops it).
 * has_pad/pad: the rewrites' pad value. The copy is named name. The
 * index-map algebra works in scratch, which is left as it was found (a pass
 * keeps one scratch arena for all its calls, so its pages are reused).
 * Returns 0 and fills r, or -1 with r->why set (nothing of m changes). */
int flow_tir(Module *m, Arena *scratch, const Func *f, int nout, const Expr *const *maps, int has_pad, double pad,
             Sym *name, FlowTir *r);

#endif
