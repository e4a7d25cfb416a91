/* The canonical text printer: one spelling per construct, so that printing
 * what it printed, once parsed again, gives the same bytes. */
#ifndef LOPT_PRINT_H
#define LOPT_PRINT_H

#include <stdio.h>

#include "../ir/ir.h"

void print_module(FILE *out, const Module *m);
/* Where a printed line starts a function (var NULL) or a Relax binding of
 * var in func (the if of a binding made by an if), with the source location
 * of that function or binding (a pass-made one has its origin's). */
typedef struct PrintMark {
    size_t offset;
    const Func *func;
    const Var *var;
    Loc loc;
} PrintMark;

typedef struct PrintMarks {
    PrintMark *v;     /* malloc'd, in the order printed */
    int n, cap;
} PrintMarks;

/* print_module, adding to marks where each function and Relax binding starts. */
void print_module_marked(FILE *out, const Module *m, PrintMarks *marks);
/* The module as current TVM reads it (--print-style=tvm): the import header,
 * T.sblock for blocks, s_tir=True on PrimFuncs with blocks and on their
 * module, symbolic expressions in signatures as strings. lopt reads it too. */
void print_module_tvm(FILE *out, const Module *m);
void print_expr(FILE *out, const Expr *e);
/* One PrimFunc as the module printer writes it (its text identifies what it
 * computes: the interpreter keys its call cache on it). */
void print_prim_func(FILE *out, const Func *f);
/* The expression as text in buf (truncated to cap), for diagnostics. */
const char *expr_text(const Expr *e, char *buf, size_t cap);

#endif
