/* The canonical text printer: one spelling per construct, so that printing
 * what it printed, once parsed again, gives the same bytes. */
#ifndef LOPT_PRINT_H
#define LOPT_PRINT_H

#include <stdio.h>

#include "../ir/ir.h"

void print_module(FILE *out, const Module *m);
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
