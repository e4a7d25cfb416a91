/* What the library's files share behind api/lopt.h: the handles' structs
 * and the helpers that report through a context. */
#ifndef LOPT_API_INTERNAL_H
#define LOPT_API_INTERNAL_H

#include <signal.h>
#include <stdarg.h>

#include "../interp/interp.h"
#include "../ir/mem.h"
#include "../ir/oom.h"
#include "../passes/pass.h"
#include "../passes/stats.h"
#include "lopt.h"

/* An input of a run, by parameter name: a tensor given, a file read when
 * the run starts (--input), or the shape of a seeded input (--shape). */
typedef enum { IN_TENSOR, IN_FILE, IN_SHAPE } InputKind;

typedef struct Input {
    InputKind kind;
    char *name;
    char *spec;           /* how messages name it: "x=file.npy", "x=1,3" or "x" */
    char *arg;            /* IN_FILE: the path; IN_SHAPE: "D,D,..." */
    Tensor *t;            /* IN_TENSOR */
} Input;

struct lopt_context {
    lopt_diag **diags;    /* each record allocated alone: it stays put as more are added */
    int ndiags, capdiags, errors;
    FILE *diag_out;
    FILE *report_out;     /* NULL: report_mem */
    FILE *report_mem;
    char *report_buf;
    size_t report_len;

    int strict, allow_unregistered;
    char *constants;
    char *html_report;    /* --report=FILE.html, or NULL */
    int verify_each, print_after_all, print_changed, explain, stats, color;
    unsigned print_before, print_after;
    int verify_exec, exec_cache;
    int64_t ulp;

    uint64_t seed;
    char *entry;          /* --entry: the function --verify-exec runs (NULL: main) */
    int64_t max_steps;
    const volatile sig_atomic_t *interrupt;   /* lopt_set_interrupt, or NULL */
    double timeout;       /* --timeout in seconds; 0: none */
    size_t max_memory;    /* --max-memory in bytes */
    struct Watch *watch;  /* while a call watches the two (api/watch.c) */
    MemBudget mem;        /* while a call runs */
    int call_depth;
    int threads, batch;
    Input *inputs;
    int ninputs, capinputs;

    int64_t replayed, executed, par_loops;
    double input_seconds;
};

struct lopt_module {
    Module *m;
    Source src;
    char *text;           /* owned (NULL when borrowed) */
    char *name;
    char *constants;      /* the path of the constants it was read with, for messages, or NULL */
    int64_t nconsts;      /* metadata constants 0 .. nconsts - 1 of that file */
    const Expr **consts;  /* constant i as read, in m's arena (NULL: not referenced) */
    int changed;          /* a pipeline ran on it */
    int verified, strict, allow_unregistered; /* lopt_verify passed, and with which options */
    int busy;             /* lopt_apply is changing it: still set after it ran out of memory */
};

struct lopt_pipeline {
    Pipeline p;
    double *times;        /* per step, grown with p */
    int ntimes;
    StatsLog stats;       /* --stats: the counts of each run of p (passes/stats.h) */
};

struct lopt_value {
    Value *v;
    int owned;            /* the root owns the Value tree */
    struct lopt_value *items;
};

/* The sink of diagnostics for src (ir/diag.h), and where they print. */
void api_bind(lopt_context *ctx, Source *src);
/* An error about the call as a whole ("lopt: error: ..."); returns -1. */
int api_fail(lopt_context *ctx, const char *fmt, ...) LOPT_PRINTF(2, 3);
/* An error in how the library was called (LOPT_EUSAGE): a NULL argument
 * among them. ctx may be NULL (then nothing is recorded); returns -1. */
int api_usage(lopt_context *ctx, const char *fmt, ...) LOPT_PRINTF(2, 3);
/* The length of the entry point's name in the name of the function that
 * does its work inside the protected call (lopt_apply_body: lopt_apply). */
int api_entry_len(const char *func);
/* The contract of every entry point: a NULL where a handle or a string is
 * needed is refused by the call that takes it, which returns ret. */
#define API_NEED(ctx, arg, ret) \
    do { \
        if (!(arg)) { \
            api_usage(ctx, "%.*s: the argument '%s' is NULL", api_entry_len(__func__), __func__, #arg); \
            return ret; \
        } \
    } while (0)
/* The protected call of every entry point that allocates (ir/oom.h): the
 * statement `TYPE r = call;` runs inside a guard, and when an allocation
 * below fails, the budgets and watch the call entered are left, the error
 * LOPT_ENOMEM is recorded on ctx (which may be NULL) and the entry point
 * returns fail. A call made from inside another entry point's guard is
 * protected by that one. */
#define API_PROTECTED(ctx, TYPE, fail, call) \
    do { \
        OomGuard guard_; \
        int outer_ = oom_guarded(), depth_ = (ctx) ? (ctx)->call_depth : 0; \
        if (!outer_ && OOM_ENTER(&guard_)) { \
            api_nomem(ctx, depth_); \
            return fail; \
        } \
        TYPE r_ = call; \
        if (!outer_) \
            oom_leave(&guard_); \
        return r_; \
    } while (0)
#define API_PROTECTED_VOID(ctx, call) \
    do { \
        OomGuard guard_; \
        int outer_ = oom_guarded(), depth_ = (ctx) ? (ctx)->call_depth : 0; \
        if (!outer_ && OOM_ENTER(&guard_)) { \
            api_nomem(ctx, depth_); \
            return; \
        } \
        call; \
        if (!outer_) \
            oom_leave(&guard_); \
    } while (0)
/* After an unwind: leaves the calls entered past depth, records "out of
 * memory" (LOPT_ENOMEM) without allocating, and prints it to the diag
 * stream if one was named. */
void api_nomem(lopt_context *ctx, int depth);
/* A module that lopt_apply left half-changed when memory ran out may only
 * be freed: the calls that take it refuse it. */
#define API_LIVE(ctx, mod, ret) \
    do { \
        if ((mod)->busy) { \
            api_usage(ctx, "%.*s: the module was left half-changed by a call that ran out of memory", \
                      api_entry_len(__func__), __func__); \
            return ret; \
        } \
    } while (0)
/* The same, printed to out (a module's Source.out, which the pass manager
 * takes for its report during a step) rather than the context's stream. */
int api_vfail(lopt_context *ctx, FILE *out, const char *fmt, va_list ap);
/* Forgets the diagnostics past the first n (warnings a copy repeats). */
void api_diag_drop(lopt_context *ctx, int n);
/* Where reports go: the caller's stream or the context's buffer. */
FILE *api_report(lopt_context *ctx);
char *api_strdup(const char *s);
/* Around lopt_run and lopt_apply, from the outermost call to its end: the
 * memory budget (ctx->mem), and the stop flag the interpreter and the pass
 * manager read (api_stop_flag; NULL when neither an interrupt flag nor a
 * timeout is set). begin: 0, or -1 after reporting. */
typedef struct Watch Watch;
int api_call_begin(lopt_context *ctx);
void api_call_end(lopt_context *ctx);
const volatile sig_atomic_t *api_stop_flag(const lopt_context *ctx);
/* Gives the last error recorded the status LOPT_ELIMIT: a budget or an
 * interrupt stopped the call, not its input. */
void api_mark_limit(lopt_context *ctx);
/* Runs the pipeline with --verify-exec's runs (in run.c); finish is called
 * after the pipeline, before the summary: 0, or -1 after reporting. */
int api_apply_checked(lopt_context *ctx, lopt_module *m, PassCtx *pc, lopt_pipeline *p,
                      int (*finish)(lopt_context *ctx, PassCtx *pc));

#endif
