/* The cost table choose-layout reads and writes (costs.c): kernel times
 * per (workload, layout), rewrite times per (value, from, to), in the
 * text format lopt(1) documents under COST TABLES. */
#ifndef LOPT_COSTS_H
#define LOPT_COSTS_H

#include <stdio.h>

#include "../../ir/diag.h"

enum { COST_GIVEN, COST_MEASURED, COST_IMPORTED, COST_ESTIMATED, COST_NSOURCES };

extern const char *const cost_source_names[COST_NSOURCES];

typedef struct CostKernel {
    char workload[256];   /* conv2d(1x3x32x32,8x3x3x3,float32,strides=1x1,...) */
    char layout[64];      /* NCHW4c:OIHW4o, or NCHW4c for a pool */
    double ns;
    int source;
    int used;             /* matched a call of the module */
} CostKernel;

typedef struct CostRewrite {
    char value[160];      /* float32[1x8x32x32]: dtype and shape as NCHW (or OIHW) */
    char from[32], to[32];
    double ns;
    int source;
    int used;
} CostRewrite;

typedef struct CostTable {
    CostKernel *k;
    int nk, capk;
    CostRewrite *r;
    int nr, capr;
    double ns_per_byte;   /* the price of a rewrite with no line, per byte read and written (0: none given) */
} CostTable;

/* Reads the table at path; on bad input reports file:line:col through a
 * Source like like (its out and sink) and returns -1. */
int costs_read(const char *path, const Source *like, CostTable *t);
/* The whole file at path, NUL-terminated (its length in *len), malloc'd;
 * NULL after reporting as costs_read does. */
char *costs_slurp(const char *path, const Source *like, size_t *len);
/* Reads text (named name) as a table; the same. */
int costs_parse(const char *name, const char *text, size_t len, const Source *like, CostTable *t);
/* Writes t in the format costs_read reads. */
void costs_write(FILE *f, const CostTable *t);
/* The line for workload in layout, or NULL. */
CostKernel *costs_kernel(CostTable *t, const char *workload, const char *layout);
CostRewrite *costs_rewrite(CostTable *t, const char *value, const char *from, const char *to);
/* Adds or replaces a line (the smaller time stays, as a best-of). */
int costs_add_kernel(CostTable *t, const char *workload, const char *layout, double ns, int source);
int costs_add_rewrite(CostTable *t, const char *value, const char *from, const char *to, double ns, int source);
void costs_free(CostTable *t);
/* What an import read: its records, those imported, those skipped as a
 * layout lopt cannot express, and those of other operators or failed runs. */
typedef struct CostImport {
    int records, imported, inexpressible, other;
} CostImport;

/* Reads an AutoTVM log (text, named name) into t: the best time of each
 * x86 conv2d workload and layout; -1 after reporting a malformed line. */
int costs_import_autotvm(const char *name, const char *text, size_t len, const Source *like, CostTable *t,
                         CostImport *counts);

/* Whether op (conv2d, max_pool2d, avg_pool2d) is one the table costs. */
int costs_knows_op(const char *op, size_t n);
/* A time as the table writes it (12.5us). */
const char *costs_time(double ns, char *buf, size_t cap);

#endif
