/* Reading a module: lex, parse and lower the text of src into a new Module.
 * Returns NULL after reporting the first errors through src. */
#ifndef LOPT_READER_H
#define LOPT_READER_H

#include "../ir/ir.h"

Module *read_module(Source *src);

/* Where TVM's metadata["relax.expr.Constant"][i] finds constant i (the file
 * --constants names). load fills the E_CONST c (dtype, rank, shape, count,
 * data in the arena a) and returns 0, or returns -1 with a message in err. */
typedef struct Constants {
    const char *path;    /* as given, for messages */
    int64_t count;       /* constants 0 .. count - 1 */
    int (*load)(void *ctx, int64_t i, Arena *a, Expr *c, char *err, size_t errlen);
    void *ctx;
} Constants;

/* read_module, with metadata references read from k (NULL: none given). */
Module *read_module_with(Source *src, const Constants *k);

/* Reads the text of src as one index map, lambda i, j: (...), into m's
 * arena and names. Returns NULL after reporting errors through src. */
Expr *read_index_map(Source *src, Module *m);
/* The same where the variables of scope (n of them) may be named in the
 * map's outputs, as symbols (lambda i, j: (i * n + j,)). */
Expr *read_index_map_in(Source *src, Module *m, Var *const *scope, int n);

#endif
