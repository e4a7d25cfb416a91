/* What fold promises the other layout passes (fold.c): cancelling and
 * composing rewrites in place, so a pass that moves rewrites never moves
 * one of a pair fold would cancel. */
#ifndef LOPT_FOLD_H
#define LOPT_FOLD_H

#include "../graph.h"

/* Composes adjacent rewrites of fn, removes identities and pad/crop pairs,
 * then dead bindings; notes what it did. */
void fold_rewrites(Module *m, Func *fn, Notes *notes);
/* lt(lt(x, M1, p1), M2, p2), y the inner and e the outer rewrite, x of shape
 * xsh, as one value: lt(x, M2 . M1, p) (the padding of either survives;
 * where both pad, the values must agree; *ident, when not NULL, says
 * whether it is the identity), or the R.nn.pad of x when the composite keeps
 * every point in a larger box. NULL, with why filled, when one value cannot
 * write it (why empty when y and e are not both one-to-one rewrites). */
Expr *rewrite_compose(Module *m, const Expr *y, const Expr *e, const int64_t *xsh, int xnd, int *ident, char *why,
                      size_t cap);
/* Whether one value writes the composite rewrite c: a rewrite whose map
 * reaches c's box, or the R.nn.pad of a composite that keeps every point
 * where it is in a larger box (rewrite_compose's test); else fold leaves
 * two. */
/* Whether fold evaluates a call like e, its operands all constants, in a
 * block of fn (dataflow or not): as TVM's FoldConstant, an R.call_tir in any
 * block of a pure function (of an impure one inside dataflow blocks only),
 * an operator inside dataflow blocks only. */
int fold_evaluates_in(const Func *fn, int dataflow, const Expr *e);
struct IndexMap;
int fold_one_rewrite(Module *m, const struct IndexMap *c, const Expr *m1, const Expr *m2);

#endif
