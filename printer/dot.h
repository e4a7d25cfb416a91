/* The graph view of a module's Relax functions, for Graphviz (dot). */
#ifndef LOPT_DOT_H
#define LOPT_DOT_H

#include <stdio.h>

#include "../ir/ir.h"

void print_dot(FILE *out, const Module *m);
enum {
    DOT_BRIEF = 1,   /* index maps in labels shortened to their result, whole in the tooltip (the report) */
};
/* The graph of one Relax function, as a digraph of its own; flags: DOT_*. */
void print_dot_func(FILE *out, const Func *fn, int flags);
/* The layout rewrites the graph draws green (R.layout_transform, R.pad,
 * R.crop) in the module's Relax functions, and in *bytes what they write
 * (those of unknown shape count none). */
int dot_rewrites(const Module *m, long long *bytes);

#endif
