/* --verify-diagnostics: the errors, warnings and notes a test file expects,
 * written in its comments, checked against those lopt reported. */
#ifndef LOPT_EXPECT_H
#define LOPT_EXPECT_H

#include "../ir/diag.h"

typedef struct Expected {
    const char *kind;     /* "error", "warning" or "note" */
    int line;             /* the line it refers to; 0: a diagnostic with no place */
    Loc at;               /* where the comment is */
    const char *text;     /* what the message must contain (into the source) */
    int textlen;
    int seen;
} Expected;

typedef struct ExpectSet {
    Expected *v;
    int n, cap;
} ExpectSet;

/* Reads the comments `# expected-KIND[@WHERE] {{TEXT}}` of src's text into
 * set. Returns 0, or -1 after reporting a malformed one through src. */
int expect_read(ExpectSet *set, Source *src);
/* Matches the diagnostics in log (as diag.c writes them for src, and the
 * "lopt: KIND: ..." lines of errors without a place) against
 * set; reports each unexpected or missing one through src and returns their
 * count. */
int expect_check(ExpectSet *set, Source *src, const char *log, size_t len);
void expect_free(ExpectSet *set);

#endif
