/* The HTML report of a pipeline (--report=FILE.html): one self-contained
 * page with a summary, the input module, each pass's module as a diff
 * against the one before, the --explain lines linked to the bindings they
 * speak of, and the graph of each Relax function before and after, laid out
 * by Graphviz. The pass manager records a Report as the pipeline runs
 * (passes/pass.c); report_write turns it into the page. */
#ifndef LOPT_REPORT_H
#define LOPT_REPORT_H

#include <stdio.h>

#include "../ir/ir.h"

/* A printed line that starts a function (key "f") or a Relax binding
 * (key "f.v"), with the source location of what it prints. */
typedef struct ReportMark {
    int line;             /* 0-based, in the text */
    Loc loc;
    char *key;
} ReportMark;

/* A module as the report shows it. */
typedef struct ReportText {
    char *text;
    size_t len;
    ReportMark *marks;
    int nmarks;
    int rewrites;         /* layout rewrites in its Relax functions (dot_rewrites) */
    long long bytes;      /* and the bytes they write */
} ReportText;

enum { STEP_OK, STEP_PASS_FAILED, STEP_VERIFY_FAILED, STEP_CHECK_FAILED };

typedef struct ReportStep {
    char *name;           /* the pass and its options, as the pipeline gives them */
    double seconds;       /* in the pass */
    double check_seconds; /* in PassCtx.after_pass (--verify-exec) */
    int status;           /* STEP_* */
    int checked;          /* after_pass ran */
    char check[200];      /* what after_pass said of the pass (PassCtx.after_note) */
    ReportText mod;       /* the module after the pass (no text when the pass failed) */
    char *ops;            /* the line edit script from the module before (passes/diff.h) */
    size_t nops;
    char *explain;        /* what the pass wrote to --explain */
    size_t explain_len;
    char *diags;          /* the errors and warnings reported during the step */
    size_t diags_len;
} ReportStep;

/* A Relax function's graph (Graphviz dot text) before and after the
 * pipeline, and after each step; NULL where the function is not in that
 * module (or the step's pass failed). */
typedef struct ReportGraph {
    char *func;
    char *before, *after;
    char **at;            /* at[k]: the graph after step k (0: the input), NULL where not drawn */
    int nat;
} ReportGraph;

typedef struct Report {
    char *source;         /* the input's name */
    ReportText input;
    ReportStep *steps;
    int n, cap;
    ReportGraph *graphs;
    int ngraphs;
} Report;

/* Records m as the module before the pipeline, read from source. */
void report_input(Report *r, const Module *m, const char *source);
/* Adds a step named name (copied) and returns it, for the pass manager to fill. */
ReportStep *report_step(Report *r, const char *name);
/* Prints m into t, with its marks and rewrite counts. */
void report_text(ReportText *t, const Module *m);
/* The module text recorded last (the input's, or the last step's). */
const ReportText *report_last(const Report *r);
/* Records the graphs of m's Relax functions as the pipeline leaves them,
 * and as the last step (or the input, before any) leaves them. */
void report_graphs_after(Report *r, const Module *m);
/* Writes the page; returns 0, or -1 when writing failed. Runs Graphviz
 * (the program LOPT_DOT names, dot by default) for the graphs, and says on
 * the page when it cannot. */
int report_write(const Report *r, FILE *out);
void report_free(Report *r);

#endif
