/* Diagnostics: every error a user can cause is reported as
 * file:line:col: error: message, then the source line and a caret. */
#ifndef LOPT_DIAG_H
#define LOPT_DIAG_H

#include <stdio.h>

/* 1-based; line 0 means "no location". Seven bytes, so that a node can
 * keep its kind in one byte beside it (struct Expr): a column past
 * LOC_COL_MAX, in a line longer than 16 MB, is kept as LOC_COL_MAX
 * (loc_col). */
typedef struct __attribute__((packed)) Loc {
    int line;
    unsigned col : 24;
} Loc;

enum { LOC_COL_MAX = (1 << 24) - 1 };

/* A column as a location keeps it. */
static inline unsigned loc_col(long col)
{
    return col > LOC_COL_MAX ? LOC_COL_MAX : col < 0 ? 0 : (unsigned)col;
}

/* One diagnostic as a record, for a sink that keeps it (the library's
 * handles): the message formatted, and the source line it points into
 * (not NUL-terminated; NULL without a location). */
typedef struct Diag {
    const char *file;
    Loc loc;
    const char *severity;   /* "error", "warning" or "note" */
    const char *message;
    const char *line;
    size_t line_len;
} Diag;

typedef struct Source {
    const char *name;   /* as given on the command line, "<stdin>" for - */
    const char *text;   /* NUL-terminated copy of the whole input */
    size_t len;
    int errors;         /* count of errors reported */
    FILE *out;          /* where diagnostics go (stderr) */
    int mapped;         /* text is a read-only private mapping of the file, whose
                           pages the lexer may give back once read (they read
                           back from the file) */
    /* When set, each diagnostic is also handed to sink as a record; out
     * may then be NULL, and nothing is printed. */
    void (*sink)(void *data, const Diag *d);
    void *sink_data;
    int color;          /* --color: the place, the kind and the caret in ANSI colours */
} Source;

#if defined(__GNUC__)
#define LOPT_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* a helper of a recursive function kept out of its stack frame */
#define LOPT_NOINLINE __attribute__((noinline))
#else
#define LOPT_PRINTF(a, b)
#define LOPT_NOINLINE
#endif

/* Reports an error at loc and returns -1, so callers can `return diag_error(...)`. */
int diag_error(Source *src, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);
#include <stdarg.h>
int diag_verror(Source *src, Loc loc, const char *fmt, va_list ap);
void diag_note(Source *src, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);
/* Reports a warning, or an error when strict (--strict); returns 0, or -1 for an error. */
int diag_warning(Source *src, int strict, Loc loc, const char *fmt, ...) LOPT_PRINTF(4, 5);

#endif
