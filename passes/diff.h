/* A line diff of two texts, written as a unified diff; --print-changed uses it
 * to show what a pass did to the printed module. */
#ifndef LOPT_DIFF_H
#define LOPT_DIFF_H

#include <stdio.h>

/* Writes to out the unified diff (three lines of context) that turns text a
 * into text b, under the headers "--- from" and "+++ to". Returns 0, writing
 * nothing, when the texts are equal; 1 when it wrote a diff. */
int diff_unified(FILE *out, const char *a, size_t alen, const char *b, size_t blen, const char *from,
                 const char *to);

/* The line edit script that turns text a into text b: one op per line in
 * order, '=' a line of both, '-' a line of a only, '+' a line of b only
 * (the script diff_unified writes), as a malloc'd string of *len ops. A
 * last line without a newline counts as a line. */
char *diff_script(const char *a, size_t alen, const char *b, size_t blen, size_t *len);

#endif
