/* Loops whose iterations may run on several threads (interp/par.c). */
#ifndef LOPT_PAR_H
#define LOPT_PAR_H

#include "../ir/ir.h"

/* 1 when the iterations of the S_FOR loop write disjoint parts of what they
 * write and read nothing another iteration writes, so that running them at
 * the same time gives what running them in order gives; then *body_steps is
 * an upper bound of the loop iterations one run of its body makes
 * (INT64_MAX when inner extents are not constants). */
int par_loop_ok(const Stmt *loop, int64_t *body_steps);

#endif
