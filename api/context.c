/* Contexts: the options of the calls made with them, the diagnostics those
 * calls reported (kept as records, printed only to a stream asked for), and
 * the reports of --explain and the dumps. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ir/mem.h"
#include "internal.h"
#include "../ir/oom.h"

#ifndef LOPT_VERSION
#define LOPT_VERSION "0.1.0"
#endif

const char *lopt_version(void)
{
    return LOPT_VERSION;
}

void lopt_free(void *p)
{
    free(p);
}

char *api_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = xmalloc(n);
    if (!c)
        oom_fail();
    return memcpy(c, s, n);
}

static char *strndup_or_die(const char *s, size_t n)
{
    char *c = xmalloc(n + 1);
    if (!c)
        oom_fail();
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

lopt_context *lopt_context_new(void)
{
    lopt_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->seed = 1;
    ctx->max_steps = INTERP_DEFAULT_MAX_STEPS;
    ctx->max_memory = mem_physical();
    ctx->threads = 1;
    ctx->batch = 1;
    ctx->exec_cache = 1;
    ctx->capdiags = 8;
    if (!(ctx->diags = malloc((size_t)ctx->capdiags * sizeof *ctx->diags))) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

void lopt_context_free(lopt_context *ctx)
{
    if (!ctx)
        return;
    lopt_diag_clear(ctx);
    free(ctx->diags);
    if (ctx->report_mem)
        fclose(ctx->report_mem);
    free(ctx->report_buf);
    lopt_clear_inputs(ctx);
    free(ctx->inputs);
    free(ctx->constants);
    free(ctx->html_report);
    free(ctx->entry);
    free(ctx);
}

/* Each record is allocated by itself and never moved, so what
 * lopt_diag_get and lopt_last_error returned stays valid while more are
 * added: until lopt_diag_clear or lopt_context_free. */
/* The record of LOPT_ENOMEM: static, so that recording it allocates
 * nothing; the array of records always has a slot free for it. */
static const lopt_diag nomem = { NULL, 0, 0, LOPT_ERROR, "out of memory", "", LOPT_ENOMEM };

static void add_diag(lopt_context *ctx, const char *file, int line, int col, const char *severity,
                     const char *msg, const char *text, size_t len, int status)
{
    if (ctx->ndiags + 1 >= ctx->capdiags) {
        int cap = 2 * ctx->capdiags;
        ctx->diags = xrealloc(ctx->diags, (size_t)cap * sizeof *ctx->diags);
        ctx->capdiags = cap;
    }
    lopt_diag *d = xcalloc(1, sizeof *d);
    oom_defer(free, d);
    d->file = file ? api_strdup(file) : NULL;
    oom_defer(free, (char *)d->file);
    d->message = api_strdup(msg);
    oom_defer(free, (char *)d->message);
    d->source_line = strndup_or_die(text ? text : "", text ? len : 0);
    oom_keep((char *)d->message);
    oom_keep((char *)d->file);
    oom_keep(d);
    ctx->diags[ctx->ndiags++] = d;
    d->line = line;
    d->column = col;
    d->severity = strcmp(severity, "error") == 0 ? LOPT_ERROR : strcmp(severity, "warning") == 0 ? LOPT_WARNING
                                                                                                  : LOPT_NOTE;
    d->status = d->severity != LOPT_ERROR ? LOPT_OK : status;
    ctx->errors += d->severity == LOPT_ERROR;
}

static void diag_free(lopt_diag *d)
{
    if (d == &nomem)
        return;
    free((char *)d->file);
    free((char *)d->message);
    free((char *)d->source_line);
    free(d);
}

void api_diag_drop(lopt_context *ctx, int n)
{
    while (ctx->ndiags > n) {
        lopt_diag *d = ctx->diags[--ctx->ndiags];
        ctx->errors -= d->severity == LOPT_ERROR;
        diag_free(d);
    }
}

static void sink(void *data, const Diag *d)
{
    add_diag(data, d->file, d->loc.line, d->loc.line ? d->loc.col : 0, d->severity, d->message, d->line,
             d->line_len, LOPT_EINPUT);
}

void api_bind(lopt_context *ctx, Source *src)
{
    src->out = ctx->diag_out;
    src->sink = sink;
    src->sink_data = ctx;
    src->color = ctx->color;
}

static int vfail(lopt_context *ctx, FILE *out, int status, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    add_diag(ctx, NULL, 0, 0, "error", msg, NULL, 0, status);
    if (out)
        fprintf(out, ctx->color ? "lopt: \033[1;31merror:\033[0m \033[1m%s\033[0m\n" : "lopt: error: %s\n", msg);
    return -1;
}

int api_entry_len(const char *func)
{
    size_t n = strlen(func);
    return (int)(n > 5 && strcmp(func + n - 5, "_body") == 0 ? n - 5 : n);
}

void api_nomem(lopt_context *ctx, int depth)
{
    if (!ctx)
        return;
    while (ctx->call_depth > depth)
        api_call_end(ctx);
    if (ctx->ndiags < ctx->capdiags) {
        ctx->diags[ctx->ndiags++] = (lopt_diag *)&nomem;
        ctx->errors++;
    }
    if (ctx->diag_out)
        fprintf(ctx->diag_out, ctx->color ? "lopt: \033[1;31merror:\033[0m \033[1m%s\033[0m\n" : "lopt: error: %s\n",
                nomem.message);
}

int api_vfail(lopt_context *ctx, FILE *out, const char *fmt, va_list ap)
{
    return vfail(ctx, out, LOPT_EINPUT, fmt, ap);
}

int api_usage(lopt_context *ctx, const char *fmt, ...)
{
    if (!ctx)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vfail(ctx, ctx->diag_out, LOPT_EUSAGE, fmt, ap);
    va_end(ap);
    return -1;
}

int api_fail(lopt_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    api_vfail(ctx, ctx->diag_out, fmt, ap);
    va_end(ap);
    return -1;
}

int lopt_diag_count(const lopt_context *ctx)
{
    return ctx ? ctx->ndiags : 0;
}

const lopt_diag *lopt_diag_get(const lopt_context *ctx, int i)
{
    return ctx && i >= 0 && i < ctx->ndiags ? ctx->diags[i] : NULL;
}

int lopt_error_count(const lopt_context *ctx)
{
    return ctx ? ctx->errors : 0;
}

const char *lopt_last_error(const lopt_context *ctx)
{
    for (int i = ctx ? ctx->ndiags - 1 : -1; i >= 0; i--)
        if (ctx->diags[i]->severity == LOPT_ERROR)
            return ctx->diags[i]->message;
    return NULL;
}

void lopt_diag_clear(lopt_context *ctx)
{
    if (ctx)
        api_diag_drop(ctx, 0);
}

void lopt_set_diag_stream(lopt_context *ctx, FILE *f)
{
    if (ctx)
        ctx->diag_out = f;
}

void lopt_set_report_stream(lopt_context *ctx, FILE *f)
{
    if (ctx)
        ctx->report_out = f;
}

FILE *api_report(lopt_context *ctx)
{
    if (ctx->report_out)
        return ctx->report_out;
    if (!ctx->report_mem && !(ctx->report_mem = xopen_memstream(&ctx->report_buf, &ctx->report_len)))
        oom_fail();
    return ctx->report_mem;
}

static const char *lopt_report_text_body(lopt_context *ctx)
{
    if (!ctx || !ctx->report_mem)
        return "";
    fflush(ctx->report_mem);
    return ctx->report_buf;
}

const char *lopt_report_text(lopt_context *ctx)
{
    API_PROTECTED(ctx, const char *, "", lopt_report_text_body(ctx));
}

void lopt_report_clear(lopt_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->report_mem) {
        fclose(ctx->report_mem);
        ctx->report_mem = NULL;
    }
    free(ctx->report_buf);
    ctx->report_buf = NULL;
    ctx->report_len = 0;
}

void lopt_set_strict(lopt_context *ctx, int on) { if (ctx) ctx->strict = on; }
void lopt_set_allow_unregistered(lopt_context *ctx, int on) { if (ctx) ctx->allow_unregistered = on; }
void lopt_set_verify_each(lopt_context *ctx, int on) { if (ctx) ctx->verify_each = on; }
void lopt_set_print_after_all(lopt_context *ctx, int on) { if (ctx) ctx->print_after_all = on; }
void lopt_set_print_changed(lopt_context *ctx, int on) { if (ctx) ctx->print_changed = on; }
void lopt_set_stats(lopt_context *ctx, int on) { if (ctx) ctx->stats = on; }
void lopt_set_color(lopt_context *ctx, int on) { if (ctx) ctx->color = on; }
void lopt_set_explain(lopt_context *ctx, int on) { if (ctx) ctx->explain = on; }
void lopt_set_exec_cache(lopt_context *ctx, int on) { if (ctx) ctx->exec_cache = on; }
void lopt_set_seed(lopt_context *ctx, uint64_t seed) { if (ctx) ctx->seed = seed; }

static void lopt_set_entry_body(lopt_context *ctx, const char *entry)
{
    if (!ctx)
        return;
    free(ctx->entry);
    ctx->entry = entry ? api_strdup(entry) : NULL;
}

void lopt_set_entry(lopt_context *ctx, const char *entry)
{
    API_PROTECTED_VOID(ctx, lopt_set_entry_body(ctx, entry));
}
void lopt_set_max_steps(lopt_context *ctx, int64_t steps) { if (ctx) ctx->max_steps = steps; }
void lopt_set_interrupt(lopt_context *ctx, const volatile sig_atomic_t *flag) { if (ctx) ctx->interrupt = flag; }
void lopt_set_timeout(lopt_context *ctx, double seconds) { if (ctx) ctx->timeout = seconds > 0 ? seconds : 0; }
void lopt_set_max_memory(lopt_context *ctx, size_t bytes) { if (ctx) ctx->max_memory = bytes ? bytes : mem_physical(); }

void api_mark_limit(lopt_context *ctx)
{
    for (int i = ctx->ndiags - 1; i >= 0; i--)
        if (ctx->diags[i]->severity == LOPT_ERROR) {
            if (ctx->diags[i] != &nomem)
                ctx->diags[i]->status = LOPT_ELIMIT;
            return;
        }
}
void lopt_set_batch(lopt_context *ctx, int on) { if (ctx) ctx->batch = on; }

static void lopt_set_constants_body(lopt_context *ctx, const char *path)
{
    if (!ctx)
        return;
    free(ctx->constants);
    ctx->constants = path ? api_strdup(path) : NULL;
}

void lopt_set_constants(lopt_context *ctx, const char *path)
{
    API_PROTECTED_VOID(ctx, lopt_set_constants_body(ctx, path));
}

static void lopt_set_html_report_body(lopt_context *ctx, const char *path)
{
    if (!ctx)
        return;
    free(ctx->html_report);
    ctx->html_report = path ? api_strdup(path) : NULL;
}

void lopt_set_html_report(lopt_context *ctx, const char *path)
{
    API_PROTECTED_VOID(ctx, lopt_set_html_report_body(ctx, path));
}

void lopt_set_verify_exec(lopt_context *ctx, int on, int64_t ulp)
{
    if (!ctx)
        return;
    ctx->verify_exec = on;
    ctx->ulp = ulp;
}

static void lopt_set_threads_body(lopt_context *ctx, int threads)
{
    if (!ctx)
        return;
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
    }
    ctx->threads = threads;
}

void lopt_set_threads(lopt_context *ctx, int threads)
{
    API_PROTECTED_VOID(ctx, lopt_set_threads_body(ctx, threads));
}

static int add_print_set(lopt_context *ctx, unsigned *set, const char *passes)
{
    char err[512];
    if (pass_set_parse(set, passes, err, sizeof err))
        return api_usage(ctx, "%s", err);
    return 0;
}

static int lopt_add_print_before_body(lopt_context *ctx, const char *passes)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, passes, -1);
    return add_print_set(ctx, &ctx->print_before, passes);
}

int lopt_add_print_before(lopt_context *ctx, const char *passes)
{
    API_PROTECTED(ctx, int, -1, lopt_add_print_before_body(ctx, passes));
}

static int lopt_add_print_after_body(lopt_context *ctx, const char *passes)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, passes, -1);
    return add_print_set(ctx, &ctx->print_after, passes);
}

int lopt_add_print_after(lopt_context *ctx, const char *passes)
{
    API_PROTECTED(ctx, int, -1, lopt_add_print_after_body(ctx, passes));
}

double lopt_input_seconds(const lopt_context *ctx)
{
    return ctx ? ctx->input_seconds : 0;
}

void lopt_counters(const lopt_context *ctx, int64_t *replayed, int64_t *executed, int64_t *par_loops)
{
    if (replayed)
        *replayed = ctx ? ctx->replayed : 0;
    if (executed)
        *executed = ctx ? ctx->executed : 0;
    if (par_loops)
        *par_loops = ctx ? ctx->par_loops : 0;
}
