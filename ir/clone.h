/* Deep copies of TIR with substitution: passes that rewrite a PrimFunc work
 * on a copy (the original may have other callers). Variables a statement
 * defines (loops, block iterators, lets, allocated buffers) get fresh copies;
 * free variables and buffers are replaced where the substitution says so. */
#ifndef LOPT_CLONE_H
#define LOPT_CLONE_H

#include "ir.h"

typedef struct Subst {
    const Var **from;
    Expr **to;
    int n, cap;
    const Buffer **bfrom;
    Buffer **bto;
    int nb, bcap;
} Subst;

void subst_var(Arena *a, Subst *s, const Var *from, Expr *to);
void subst_buf(Arena *a, Subst *s, const Buffer *from, Buffer *to);
Buffer *subst_find_buf(const Subst *s, const Buffer *b);

Expr *clone_expr(Arena *a, Subst *s, const Expr *e);
Stmt *clone_stmt(Arena *a, Subst *s, const Stmt *st);
Buffer *clone_buffer(Arena *a, Subst *s, const Buffer *b);
/* A copy of PrimFunc f named name, sharing nothing mutable with f. */
Func *clone_prim(Arena *a, const Func *f, Sym *name);

#endif
