/* The pass manager: one registry table of passes, pipelines parsed from
 * "a,b{key=value},c", and running them with optional verification and dumps. */
#ifndef LOPT_PASS_H
#define LOPT_PASS_H

#include <signal.h>
#include <stdio.h>

#include "../ir/ir.h"

/* One option of a pipeline step, in the order given; a key may repeat
 * (weight-layout's steps: split=0:4,split=2:4). */
typedef struct PassOpt {
    const char *key, *val;
} PassOpt;

typedef struct PassCtx {
    Source *src;
    FILE *dump;           /* where `print` and --print-after-all write (stderr) */
    int verify_each;
    int print_after_all;
    unsigned print_before, print_after;   /* --print-before/--print-after: pass_bit()s */
    int print_changed;    /* --print-changed: a unified diff of the printed module after each pass */
    double *times;        /* --time-passes: wall seconds added up per pipeline step, or NULL */
    FILE *explain;        /* --explain: where passes say what they moved, folded or left */
    /* Called after each pass (after verification), as --verify-exec does;
     * a nonzero return stops the pipeline with that failure. */
    int (*after_pass)(Module *m, const char *pass, void *data);
    void *after_data;
    /* What after_pass found, in a line, for the report (it may write here;
     * the pass manager empties it before each call). */
    char after_note[200];
    /* --report: where the pass manager records the pipeline as it runs (the
     * module before and after each pass, times, --explain lines, errors and
     * after_pass's findings), or NULL. */
    struct Report *report;
    /* Reads an option's text as an index map, lambda i, j: (...), into m
     * (the reader, which passes do not link against, is the driver's);
     * NULL after reporting (where ctx->src reports), what naming the text
     * in the diagnostic. The variables of scope (n of them: a PrimFunc's
     * shape variables) may be named in the map's outputs. */
    Expr *(*read_map)(const struct PassCtx *ctx, Module *m, const char *text, const char *what, Var *const *scope,
                      int n);
    /* The pipeline stops before its next pass once *stop is nonzero (as
     * interp_set_stop says; NULL: never), and says so in stopped. */
    const volatile sig_atomic_t *stop;
    double timeout;
    int stopped;
    /* --stats: the module's counts before the first pass and after each
     * are appended here (passes/stats.h), or NULL */
    struct StatsLog *stats;
} PassCtx;

typedef struct PassInfo {
    const char *name;
    const char *summary;
    const char *const *options;   /* NULL-terminated names it accepts */
    /* Returns 0, or -1 after reporting an error through ctx->src. */
    int (*run)(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
    /* Checks the option values when the pipeline is parsed (NULL: any value):
     * returns 0, or -1 with the reason in err. */
    int (*check)(const PassOpt *opts, int nopts, char *err, size_t cap);
    /* Reads the module as it stands (print, verify); every other pass first
     * has each call written inside another value bound to a variable of its
     * own (bind_nested_calls), so that it sees every call. */
    int as_written;
} PassInfo;

typedef struct PassStep {
    const PassInfo *pass;
    PassOpt *opts;
    int nopts;
} PassStep;

typedef struct Pipeline {
    PassStep *steps;
    int n, cap;
    char *text;           /* owns the option strings */
} Pipeline;

/* The passes, one file each. */
int pass_convert_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_convert_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_choose_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_choose_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_fold(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_fold_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_hoist(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_flow(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_plan(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_plan_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_legalize(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_annotate_scope(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_annotate_scope_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_realize_vdevice(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_fold_scope_change(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_transform_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_transform_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_transform_block_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_transform_block_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_flatten(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_weight_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);
int pass_weight_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap);
int pass_test_perturb(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts);

const PassInfo *pass_registry(int *n);
const PassInfo *pass_find(const char *name);
/* The bit of a registered pass in a set of passes such as ctx->print_after. */
unsigned pass_bit(const PassInfo *p);
/* Adds the passes named in list ("fold" or "flow,fold") to *set. On an
 * unknown or empty name, writes the reason to err and returns -1. */
int pass_set_parse(unsigned *set, const char *list, char *err, size_t errcap);
/* The set of passes p runs. */
unsigned pipeline_passes(const Pipeline *p);
/* Appends the passes of text to p. On a malformed pipeline, writes the
 * reason to err and returns -1. */
int pipeline_parse(Pipeline *p, const char *text, char *err, size_t errcap);
void pipeline_free(Pipeline *p);
/* Runs each step; returns 0, or -1 when a pass or verification failed. */
int pipeline_run(const Pipeline *p, Module *m, PassCtx *ctx);

#endif
