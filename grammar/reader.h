/* Reading a module: lex, parse and lower the text of src into a new Module.
 * Returns NULL after reporting the first errors through src. */
#ifndef LOPT_READER_H
#define LOPT_READER_H

#include "../ir/ir.h"

Module *read_module(Source *src);

/* Reads the text of src as one index map, lambda i, j: (...), into m's
 * arena and names. Returns NULL after reporting errors through src. */
Expr *read_index_map(Source *src, Module *m);

#endif
