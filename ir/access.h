/* Access-pattern analysis of a PrimFunc (seed 003's "analysis feedback"):
 * from the indices its blocks read and write, whether each output element
 * is computed from the inputs at the same point (elementwise), at a
 * projection of it (broadcast), at some other function of it (injective),
 * or by reducing over other points. */
#ifndef LOPT_ACCESS_H
#define LOPT_ACCESS_H

#include <stddef.h>

#include "ir.h"

typedef enum { PAT_ELEMWISE, PAT_BROADCAST, PAT_INJECTIVE, PAT_REDUCE, PAT_OPAQUE } AccessPattern;

const char *access_pattern_name(AccessPattern p);
/* The least general pattern covering every block of f. why (may be NULL)
 * names the block and access that made it what it is. */
AccessPattern tir_pattern(const Func *f, char *why, size_t cap);

#endif
