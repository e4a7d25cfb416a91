/* What flow promises the passes that use its rewriting (flow.c): plan asks
 * it whether a rewrite moves through a call and what the call's operands
 * are then asked for (flow_probe), has it realize a chosen placement
 * (flow_realize), and shares its search for a fixed point; the command line
 * asks what it does with each operator. Nothing else of flow is visible. */
#ifndef LOPT_FLOW_H
#define LOPT_FLOW_H

#include "../graph.h"
#include "flowtir.h"

/* Whether flow can move the rewrite map (over e's result, or its result
 * item when item >= 0) through the call e, and the rewrite it then asks of
 * each operand (opmaps[k], in keep; NULL: read as written) of the operands
 * *items[0..*n); why says why not. */
int flow_probe(Module *m, Arena *scratch, Arena *keep, const Expr *e, int item, const Expr *map, Expr **opmaps,
               Expr *const **items, int *n, char *why, size_t cap);
/* The same for a padded map whose padding must hold *pad (pad NULL: no
 * padding asked); inpad[k], when not NULL, is the value operand k's padding
 * must then hold, or NAN when it is read with no padding. */
int flow_probe_pad(Module *m, Arena *scratch, Arena *keep, const Expr *e, int item, const Expr *map,
                   const double *pad, Expr **opmaps, double *inpad, Expr *const **items, int *n, char *why, size_t cap);
/* Moves a rewrite to the layout maps[k - 1] through each call whose
 * variable plan maps to k, and lets fold cancel what meets; a reduction
 * whose variable reads maps to k reads its operand in layout maps[k - 1]. */
void flow_realize(Module *m, Func *fn, PassCtx *ctx, Notes *notes, const PtrMap *plan, Expr *const *maps,
                  const PtrMap *reads);
/* The reduction e (result type yt) reading its operand (type pt) through
 * the permutation pmap, its axes renumbered and its result as it was; NULL
 * when it cannot. */
struct TensorType;
Expr *flow_reduce_reading(Module *m, const Expr *e, const Expr *pmap, const struct TensorType *pt,
                          const struct TensorType *yt, Loc loc);

/* One run of a planning pass over m (flow's sweeps, plan's choice). */
typedef void (*FlowRound)(Module *m, PassCtx *ctx, Notes *notes, void *data);
/* Runs round,fold from fold's form of m until a module comes back and
 * keeps the cheapest of that cycle, so that pass,fold run again changes
 * nothing; pass names it in notes. */
int flow_fixed_point(Module *m, PassCtx *ctx, FlowRound round, void *data, const char *pass);

/* What flow does with a call of a registered operator, in a word (lopt
 * --list-ops): "keeps form" (layout agnostic: moves through, the operator
 * kept), "renumbers" (moves through, the operator kept with renumbered
 * attributes where the layout keeps whole the dimensions it acts on, else a
 * call_tir of its rewritten PrimFunc), "call_tir" (moves through as a
 * call_tir of its rewritten PrimFunc, where its reads allow), and for the
 * heavily layout sensitive ones "convert-layout" (flow stops there;
 * convert-layout chooses its layouts) or "stops". */
const char *flow_op_form(const OpInfo *op);

#endif
