/* The graph view of a module's Relax functions, for Graphviz (dot). */
#ifndef LOPT_DOT_H
#define LOPT_DOT_H

#include <stdio.h>

#include "../ir/ir.h"

void print_dot(FILE *out, const Module *m);

#endif
