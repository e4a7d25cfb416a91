/* --stats and --stats-json: counts of a module, taken before a pipeline
 * and after each of its passes (passes/stats.c). */
#ifndef LOPT_STATS_H
#define LOPT_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "../ir/ir.h"

enum {
    STAT_RELAX_FUNCS, STAT_PRIM_FUNCS, STAT_BINDINGS,
    STAT_OPERATORS,       /* calls of R.* operators other than the two below */
    STAT_CALL_TIR, STAT_REWRITES,   /* R.call_tir; R.layout_transform */
    STAT_REWRITE_BYTES,   /* what the rewrites write (static shapes) */
    STAT_CONSTANTS, STAT_CONSTANT_BYTES,
    STAT_COUNT
};

typedef struct ModStats {
    int64_t v[STAT_COUNT];
} ModStats;

typedef struct StatsRow {
    char *module;         /* the module's name */
    char *step;           /* "input", or the pass as the pipeline names it */
    ModStats s;
} StatsRow;

typedef struct StatsLog {
    StatsRow *rows;
    int n, cap;
} StatsLog;

void module_stats(const Module *m, ModStats *s);
/* The JSON key of statistic k, or NULL. */
const char *stat_name(int k);
/* Appends m's counts as the row of step: 0, or -1 when memory runs out. */
int stats_log_add(StatsLog *log, const char *module, const char *step, const Module *m);
void stats_log_free(StatsLog *log);
/* The log as a table (json 0) or as JSON. */
void stats_log_write(const StatsLog *log, FILE *f, int json);

#endif
