/* Flowing a layout rewrite through a PrimFunc (seed 000, "at TIR-level"):
 * given the map on the function's result buffer, derive the maps of its
 * operand buffers from the blocks' write and read indices, and build a copy
 * of the function whose buffers and block iteration are in the new layouts. */
#ifndef LOPT_FLOWTIR_H
#define LOPT_FLOWTIR_H

#include "../ir/ir.h"

enum { FLOW_MAX_ARGS = 16 };

typedef struct FlowTir {
    Func *f;                        /* the rewritten copy */
    int nargs;                      /* input buffers: the parameters before the result */
    Expr *map[FLOW_MAX_ARGS];       /* the rewrite each input now needs, NULL for none */
    int padded[FLOW_MAX_ARGS];      /* whether that map leaves padding */
    int has_pad;                    /* the inputs' padding must hold pad */
    double pad;
    int64_t oshape[16];             /* the result's new shape */
    int ondim;
    DType odtype;
    Var *yvars[16];                 /* the result block's new spatial iterators (for checks) */
    char why[320];                  /* when it fails: the reason, for --explain */
} FlowTir;

/* f's result is its last parameter. map is an E_INDEXMAP over the result's
 * shape; has_pad/pad the rewrite's pad value. The copy is named name. The
 * index-map algebra works in scratch, which is left as it was found (a pass
 * keeps one scratch arena for all its calls, so its pages are reused).
 * Returns 0 and fills r, or -1 with r->why set (nothing of m changes). */
int flow_tir(Module *m, Arena *scratch, const Func *f, const Expr *map, int has_pad, double pad, Sym *name,
             FlowTir *r);

#endif
