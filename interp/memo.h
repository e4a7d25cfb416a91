/* The call cache of --verify-exec. Between two runs of main, a pass changes
 * part of the graph; a PrimFunc called on the same buffers as before (the
 * same text, the same bytes in every buffer it is given, outputs included)
 * leaves them as it did before, so the second run replays the first run's
 * effect instead of executing the loops again. The key is exact: the text of
 * the PrimFunc (its name left out, so a legalized operator named add_1 in one
 * run and add in the next is one function) and a copy of every buffer as
 * the call found it, compared byte for byte; a hash only finds the slot.
 * Copies of the same bytes are one copy; bytes R.layout_transform made of a
 * module constant (Tensor.recipe) are not copied but made again to compare.
 * The cache holds at most max_bytes of tensors and then stops growing; it
 * keeps only the calls the last run of main made or replayed (a pass rarely
 * brings back what the pass before it changed), so it holds about one run. */
#ifndef LOPT_MEMO_H
#define LOPT_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "tensor.h"

typedef struct Memo Memo;
typedef struct MemoCall MemoCall;

Memo *memo_new(size_t max_bytes);
void memo_free(Memo *mc);

/* The effect of a call of the PrimFunc printed as text on args: when known,
 * writes it into args and returns 1; else 0. */
int memo_replay(Memo *mc, const char *text, Tensor **args, int n);

/* Copies of args as a call is about to find them, or NULL when the cache is
 * full (the call is then not recorded). A copy is shared with every entry
 * that holds the same bytes (another call's output, a fresh buffer's
 * poison), and counts against max_bytes once; a module constant's bytes as
 * they were made (Tensor.origin) are read in place, neither copied nor
 * counted (no pass writes a constant's data, and the module outlives the
 * cache). */
MemoCall *memo_before(Memo *mc, Tensor *const *args, int n);

/* Records the call's effect: call (from memo_before, taken over) and args
 * as the call left them. ok 0 (the call failed) drops call instead, and so
 * does a call whose loops took fewer steps than its buffers hold elements
 * (an elementwise operator): replaying it, which hashes and compares its
 * inputs and copies its outputs, would cost about what running it again
 * does, and keeping it would cost a copy of its output. */
void memo_record(Memo *mc, const char *text, MemoCall *call, Tensor *const *args, int n, int ok, int64_t steps);

/* A run of main begins: the calls the run before it neither made nor
 * replayed go. */
void memo_new_run(Memo *mc);

/* Calls replayed and calls executed (and recorded or not) so far. */
void memo_counts(const Memo *mc, int64_t *hits, int64_t *misses);

#endif
