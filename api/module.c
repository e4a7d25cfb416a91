/* Modules and pipelines: reading a module from text, verifying, copying and
 * printing it, and running a pipeline of passes over it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../grammar/reader.h"
#include "../interp/npz.h"
#include "../ir/outfile.h"
#include "../passes/layout/flow.h"
#include "../printer/dot.h"
#include "../printer/print.h"
#include "../printer/report.h"
#include "internal.h"
#include "../ir/oom.h"

/* While a module is read, each metadata constant it names is loaded from
 * where (the --constants file, or the module a clone is made of) and kept:
 * the module owns its constants from then on, so a clone reads no file. */
typedef struct Keeping {
    const Constants *where;
    lopt_module *mod;
} Keeping;

static int keep_load(void *data, int64_t i, Arena *a, Expr *c, char *err, size_t errlen)
{
    Keeping *k = data;
    if (k->where->load(k->where->ctx, i, a, c, err, errlen))
        return -1;
    k->mod->consts[i] = c;
    return 0;
}

/* Constants.load of a module's kept constants: a copy in the new module's arena. */
static int kept_load(void *data, int64_t i, Arena *a, Expr *c, char *err, size_t errlen)
{
    const lopt_module *from = data;
    const Expr *o = from->consts[i];
    if (!o) {
        /* the text is the one from was read from, so it names the constants from read */
        snprintf(err, errlen, "constant %lld was not read with the module", (long long)i);
        return -1;
    }
    size_t bytes = (size_t)o->u.cst.count * (size_t)dtype_size(o->u.cst.dtype);
    c->u.cst = o->u.cst;
    c->u.cst.shape = arena_array(a, (size_t)o->u.cst.ndim + 1, sizeof(int64_t));
    memcpy(c->u.cst.shape, o->u.cst.shape, (size_t)o->u.cst.ndim * sizeof(int64_t));
    c->u.cst.data = arena_array(a, (size_t)o->u.cst.count + 1, (size_t)dtype_size(o->u.cst.dtype));
    memcpy(c->u.cst.data, o->u.cst.data, bytes);
    return 0;
}

static void free_module(void *mod)
{
    lopt_module_free(mod);
}

/* Reads text into a new module whose metadata constants come from k (NULL: none). */
static lopt_module *parse_with(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags,
                               const Constants *k)
{
    lopt_module *mod = xcalloc(1, sizeof *mod);
    oom_defer(free_module, mod);
    mod->name = api_strdup(name ? name : "<string>");
    if (!(flags & (LOPT_PARSE_BORROW | LOPT_PARSE_MAPPED))) {
        mod->text = xmalloc(len + 1);
        memcpy(mod->text, text, len);
        mod->text[len] = 0;
        text = mod->text;
    }
    mod->src = (Source){ .name = mod->name, .text = text, .len = len, .mapped = (flags & LOPT_PARSE_MAPPED) != 0 };
    api_bind(ctx, &mod->src);
    Keeping keeping = { k, mod };
    Constants kept = { NULL, 0, keep_load, &keeping };
    if (k) {
        mod->constants = api_strdup(k->path);
        mod->nconsts = k->count;
        mod->consts = xcalloc((size_t)k->count + 1, sizeof *mod->consts);
        kept.path = k->path;
        kept.count = k->count;
    }
    mod->m = read_module_with(&mod->src, k ? &kept : NULL);
    oom_keep(mod);
    if (!mod->m) {
        lopt_module_free(mod);
        return NULL;
    }
    return mod;
}

static lopt_module *parse(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags)
{
    if (!ctx->constants)
        return parse_with(ctx, text, len, name, flags, NULL);
    Constants k = { NULL, 0, NULL, NULL };
    char err[1400];
    if (constants_open(&k, ctx->constants, err, sizeof err)) {
        constants_close(&k);
        api_fail(ctx, "%s", err);
        return NULL;
    }
    lopt_module *mod = parse_with(ctx, text, len, name, flags, &k);
    constants_close(&k);
    return mod;
}

static lopt_module *lopt_parse_ex_body(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, text, NULL);
    return parse(ctx, text, len, name, flags);
}

lopt_module *lopt_parse_ex(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags)
{
    API_PROTECTED(ctx, lopt_module *, NULL, lopt_parse_ex_body(ctx, text, len, name, flags));
}

lopt_module *lopt_parse(lopt_context *ctx, const char *text, size_t len, const char *name)
{
    return lopt_parse_ex(ctx, text, len, name, 0);
}

void lopt_module_free(lopt_module *mod)
{
    if (!mod)
        return;
    module_free(mod->m);
    free(mod->text);
    free(mod->name);
    free(mod->constants);
    free(mod->consts);
    free(mod);
}

static int lopt_verify_body(lopt_context *ctx, lopt_module *mod)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, mod, -1);
    API_LIVE(ctx, mod, -1);
    api_bind(ctx, &mod->src);
    if (ir_verify_input(mod->m, &mod->src, ctx->strict, ctx->allow_unregistered))
        return -1;
    mod->verified = 1;
    mod->strict = ctx->strict;
    mod->allow_unregistered = ctx->allow_unregistered;
    return 0;
}

int lopt_verify(lopt_context *ctx, lopt_module *mod)
{
    API_PROTECTED(ctx, int, -1, lopt_verify_body(ctx, mod));
}

/* The copy reads no file: the text mod was read from (borrowed text the
 * caller keeps; a mapped file's pages may be read again from the file, so
 * not that) with the constants mod kept, or once a pipeline changed mod,
 * its printed text, which holds every constant's data. It is verified as
 * mod was, so a pipeline lowers on it what it lowers on mod: the verifier
 * completes what passes read (the types of tuple items among them). */
static lopt_module *lopt_module_clone_body(lopt_context *ctx, const lopt_module *mod)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, mod, NULL);
    API_LIVE(ctx, mod, NULL);
    char *text = NULL;
    lopt_module *c = NULL;
    int n0 = lopt_diag_count(ctx);
    if (!mod->changed && !mod->src.mapped) {
        Constants kept = { mod->constants, mod->nconsts, kept_load, (void *)mod };
        c = parse_with(ctx, mod->src.text, mod->src.len, mod->name, 0, mod->constants ? &kept : NULL);
    } else if (!(text = lopt_module_print(mod, LOPT_STYLE_CANONICAL))) {
        api_fail(ctx, "out of memory printing '%s' to copy it", mod->name);
    } else if ((c = parse_with(ctx, text, strlen(text), mod->name, 0, NULL))) {
        c->changed = 1;
    }
    free(text);
    if (c && mod->verified) {
        int strict = ctx->strict, allow = ctx->allow_unregistered;
        ctx->strict = mod->strict;
        ctx->allow_unregistered = mod->allow_unregistered;
        int bad = lopt_verify(ctx, c);
        ctx->strict = strict;
        ctx->allow_unregistered = allow;
        if (bad) {
            lopt_module_free(c);
            return NULL;
        }
    }
    /* the copy's warnings are mod's, given when mod was read */
    if (c)
        api_diag_drop(ctx, n0);
    return c;
}

lopt_module *lopt_module_clone(lopt_context *ctx, const lopt_module *mod)
{
    API_PROTECTED(ctx, lopt_module *, NULL, lopt_module_clone_body(ctx, mod));
}

const char *lopt_module_name(const lopt_module *mod)
{
    return mod ? mod->name : NULL;
}

/* The module's functions, in its order, local functions left out. */
static const Func *nth_func(const lopt_module *mod, int i)
{
    for (int k = 0; mod && k < mod->m->nfuncs; k++)
        if (!mod->m->funcs[k]->is_local && i-- == 0)
            return mod->m->funcs[k];
    return NULL;
}

int lopt_module_function_count(const lopt_module *mod)
{
    int n = 0;
    while (nth_func(mod, n))
        n++;
    return n;
}

const char *lopt_module_function_name(const lopt_module *mod, int i)
{
    const Func *f = i >= 0 ? nth_func(mod, i) : NULL;
    return f ? f->name->str : NULL;
}

const char *lopt_module_param_dtype(const lopt_module *mod, const char *func, const char *param)
{
    const Func *f = NULL;
    for (int i = 0; func && param && (f = nth_func(mod, i)); i++)
        if (strcmp(f->name->str, func) == 0)
            break;
    if (!f || f->kind != F_RELAX)
        return NULL;
    for (int i = 0; i < f->nparams; i++) {
        const StructInfo *s = f->params[i]->sinfo;
        if (strcmp(f->params[i]->name->str, param) == 0)
            return s && (s->kind == SI_TENSOR || s->kind == SI_PRIM) && s->dtype != DT_VOID ? dtype_name(s->dtype)
                                                                                            : NULL;
    }
    return NULL;
}

static int lopt_module_write_body(const lopt_module *mod, lopt_style style, FILE *f)
{
    if (!mod || !f)
        return -1;
    if (style == LOPT_STYLE_DOT)
        print_dot(f, mod->m);
    else if (style == LOPT_STYLE_TVM)
        print_module_tvm(f, mod->m);
    else
        print_module(f, mod->m);
    return ferror(f) ? -1 : 0;
}

int lopt_module_write(const lopt_module *mod, lopt_style style, FILE *f)
{
    API_PROTECTED((lopt_context *)NULL, int, -1, lopt_module_write_body(mod, style, f));
}

static char *lopt_module_print_body(const lopt_module *mod, lopt_style style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mod ? xopen_memstream(&buf, &len) : NULL;
    if (!f)
        return NULL;
    int bad = lopt_module_write(mod, style, f);
    if (fclose(f) || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *lopt_module_print(const lopt_module *mod, lopt_style style)
{
    API_PROTECTED((lopt_context *)NULL, char *, NULL, lopt_module_print_body(mod, style));
}

/* ---- passes and pipelines ---- */

int lopt_pass_count(void)
{
    int n;
    pass_registry(&n);
    return n;
}

const char *lopt_pass_name(int i)
{
    int n;
    const PassInfo *p = pass_registry(&n);
    return i >= 0 && i < n ? p[i].name : NULL;
}

const char *lopt_pass_summary(int i)
{
    int n;
    const PassInfo *p = pass_registry(&n);
    return i >= 0 && i < n ? p[i].summary : NULL;
}

const char *const *lopt_pass_options(int i)
{
    int n;
    const PassInfo *p = pass_registry(&n);
    return i >= 0 && i < n ? p[i].options : NULL;
}

/* The operator table, from the registry: each operator's layout category,
 * the dtypes its inference takes, what flow does with it and the data
 * layouts its layout attributes take. The manual's table (man/lopt.1,
 * OPERATORS) is this text, checked by make check. */
static char *lopt_ops_table_body(void)
{
    static const char *const cat[] = { "agnostic", "light", "heavy" };
    char *buf = NULL;
    size_t len = 0;
    FILE *out = xopen_memstream(&buf, &len);
    if (!out)
        return NULL;
    int n;
    const OpInfo *ops = op_registry(&n);
    fprintf(out, "%-26s %-9s %-20s %-15s %s\n", "operator", "layout", "dtypes", "flow", "layouts");
    for (int i = 0; i < n; i++)
        fprintf(out, "%-26s %-9s %-20s %-15s %s\n", ops[i].name, cat[ops[i].category],
                ops[i].dtypes ? ops[i].dtypes : "any", flow_op_form(&ops[i]), ops[i].layouts ? ops[i].layouts : "-");
    if (fclose(out)) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *lopt_ops_table(void)
{
    API_PROTECTED((lopt_context *)NULL, char *, NULL, lopt_ops_table_body());
}

static lopt_pipeline *lopt_pipeline_new_body(void)
{
    return xcalloc(1, sizeof(lopt_pipeline));
}

lopt_pipeline *lopt_pipeline_new(void)
{
    API_PROTECTED((lopt_context *)NULL, lopt_pipeline *, NULL, lopt_pipeline_new_body());
}

void lopt_pipeline_free(lopt_pipeline *p)
{
    if (!p)
        return;
    pipeline_free(&p->p);
    free(p->times);
    stats_log_free(&p->stats);
    free(p);
}

static int lopt_pipeline_append_body(lopt_context *ctx, lopt_pipeline *p, const char *text)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, p, -1);
    API_NEED(ctx, text, -1);
    char err[1024];
    int n = p->p.n;
    if (pipeline_parse(&p->p, text, err, sizeof err)) {
        /* the pipeline stays as it was */
        for (int i = n; i < p->p.n; i++)
            free(p->p.steps[i].opts);
        p->p.n = n;
        return api_usage(ctx, "%s", err);
    }
    double *t = xrealloc(p->times, ((size_t)p->p.n + 1) * sizeof *t);
    if (!t)
        oom_fail();
    for (int i = p->ntimes; i <= p->p.n; i++)
        t[i] = 0;
    p->times = t;
    p->ntimes = p->p.n;
    return 0;
}

int lopt_pipeline_append(lopt_context *ctx, lopt_pipeline *p, const char *text)
{
    API_PROTECTED(ctx, int, -1, lopt_pipeline_append_body(ctx, p, text));
}

static char *lopt_pipeline_stats_body(const lopt_pipeline *p, int json)
{
    if (!p)
        return NULL;
    char *buf = NULL;
    size_t n;
    FILE *f = xopen_memstream(&buf, &n);
    if (!f)
        return NULL;
    stats_log_write(&p->stats, f, json);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *lopt_pipeline_stats(const lopt_pipeline *p, int json)
{
    API_PROTECTED((lopt_context *)NULL, char *, NULL, lopt_pipeline_stats_body(p, json));
}

int lopt_pipeline_length(const lopt_pipeline *p)
{
    return p ? p->p.n : 0;
}

const char *lopt_pipeline_step_name(const lopt_pipeline *p, int i)
{
    return p && i >= 0 && i < p->p.n ? p->p.steps[i].pass->name : NULL;
}

double lopt_pipeline_step_time(const lopt_pipeline *p, int i)
{
    return p && i >= 0 && i < p->ntimes ? p->times[i] : 0;
}

static const char *lopt_pipeline_missing_body(const lopt_context *ctx, const lopt_pipeline *p, int after)
{
    if (!ctx || !p)
        return NULL;
    int n;
    const PassInfo *info = pass_registry(&n);
    unsigned missing = (after ? ctx->print_after : ctx->print_before) & ~pipeline_passes(&p->p);
    for (int i = 0; i < n; i++)
        if (missing & pass_bit(&info[i]))
            return info[i].name;
    return NULL;
}

const char *lopt_pipeline_missing(const lopt_context *ctx, const lopt_pipeline *p, int after)
{
    API_PROTECTED((lopt_context *)NULL, const char *, NULL, lopt_pipeline_missing_body(ctx, p, after));
}

/* PassCtx.read_map: a pass option's lambda, diagnosed against its own text
 * where the module's diagnostics go. */
static Expr *read_option_map(const PassCtx *pc, Module *m, const char *text, const char *what, Var *const *scope,
                             int n)
{
    Source src = { .name = what, .text = text, .len = strlen(text), .out = pc->src->out,
                   .sink = pc->src->sink, .sink_data = pc->src->sink_data };
    return read_index_map_in(&src, m, scope, n);
}

/* --report: the page of what the pass manager recorded, written once the pipeline ran. */
static int write_html_report(lopt_context *ctx, PassCtx *pc)
{
    if (!pc->report)
        return 0;
    OutFile out;
    if (outfile_open(&out, ctx->html_report))
        return api_fail(ctx, "cannot write the report '%s': %s", ctx->html_report, strerror(errno));
    if (report_write(pc->report, out.f)) {
        outfile_discard(&out);
        return api_fail(ctx, "cannot write the report '%s'", ctx->html_report);
    }
    if (outfile_commit(&out))
        return api_fail(ctx, "cannot write the report '%s': %s", ctx->html_report, strerror(errno));
    return 0;
}

/* --report's file may not be one the module was read from. */
static int report_clobbers(lopt_context *ctx, const lopt_module *mod)
{
    const char *r = ctx->html_report;
    if (mod->name && outfile_same(r, mod->name))
        return api_fail(ctx, "--report=%s would write over the input", r);
    if (mod->constants && outfile_same(r, mod->constants))
        return api_fail(ctx, "--report=%s would write over the constants file", r);
    return 0;
}

static int lopt_apply_body(lopt_context *ctx, lopt_module *mod, lopt_pipeline *p)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, mod, -1);
    API_NEED(ctx, p, -1);
    API_LIVE(ctx, mod, -1);
    api_bind(ctx, &mod->src);
    if (ctx->html_report && report_clobbers(ctx, mod))
        return -1;
    FILE *dump = api_report(ctx);
    Report report = { 0 };
    PassCtx pc = { .src = &mod->src, .dump = dump, .verify_each = ctx->verify_each,
                   .print_after_all = ctx->print_after_all, .print_before = ctx->print_before,
                   .print_after = ctx->print_after, .print_changed = ctx->print_changed,
                   .times = p->times, .explain = ctx->explain ? dump : NULL, .read_map = read_option_map,
                   .report = ctx->html_report ? &report : NULL, .timeout = ctx->timeout,
                   .stats = ctx->stats ? &p->stats : NULL };
    if (api_call_begin(ctx))
        return -1;
    pc.stop = api_stop_flag(ctx);
    mod->changed = 1;
    mod->busy = 1;
    int r;
    if (ctx->verify_exec) {
        r = api_apply_checked(ctx, mod, &pc, p, write_html_report);
    } else {
        r = pipeline_run(&p->p, mod->m, &pc) ? -1 : 0;
        r = write_html_report(ctx, &pc) || r ? -1 : 0;
    }
    if (pc.stopped)
        api_mark_limit(ctx);
    api_call_end(ctx);
    report_free(&report);
    mod->busy = 0;
    return r;
}

int lopt_apply(lopt_context *ctx, lopt_module *mod, lopt_pipeline *p)
{
    API_PROTECTED(ctx, int, -1, lopt_apply_body(ctx, mod, p));
}

/* ---- --explain's records ---- */

/* Splits the PASS: MSG after a line's place into r, which has the rest. */
static int explain_tail(const char *place_end, lopt_explain_record *r, const char *file, size_t flen)
{
    const char *pass = place_end, *msg = strstr(pass, ": ");
    if (!msg)
        return -1;
    char *f = xmalloc(flen + 1), *p = xmalloc((size_t)(msg - pass) + 1);
    if (!f || !p)
        oom_fail();
    memcpy(f, file, flen);
    f[flen] = 0;
    memcpy(p, pass, (size_t)(msg - pass));
    p[msg - pass] = 0;
    r->file = f;
    r->pass = p;
    r->message = api_strdup(msg + 2);
    return 0;
}

/* ":L:C: " at s: the place, and past it in *end. */
static int explain_place(const char *s, int *line, int *col, const char **end)
{
    char *e;
    if (s[0] != ':' || !(s[1] >= '0' && s[1] <= '9'))
        return -1;
    long l = strtol(s + 1, &e, 10);
    if (e[0] != ':' || !(e[1] >= '0' && e[1] <= '9'))
        return -1;
    long c = strtol(e + 1, &e, 10);
    if (e[0] != ':' || e[1] != ' ')
        return -1;
    *line = (int)l;
    *col = (int)c;
    *end = e + 2;
    return 0;
}

/* Splits "FILE:L:C: PASS: MSG" or "FILE: PASS: MSG" into r. With the file's
 * name known the line is split after it, whatever it holds; without, FILE
 * ends at the first ": " and the two trailing numbers before are the place. */
static int explain_line(const char *s, size_t n, const char *file, lopt_explain_record *r)
{
    char *line = xmalloc(n + 1);
    if (!line)
        oom_fail();
    memcpy(line, s, n);
    line[n] = 0;
    r->line = r->column = 0;
    size_t flen = file ? strlen(file) : 0;
    const char *end;
    if (file && strncmp(line, file, flen) == 0) {
        const char *rest = line + flen;
        int ok = explain_place(rest, &r->line, &r->column, &end) == 0
                     ? explain_tail(end, r, file, flen)
                     : rest[0] == ':' && rest[1] == ' ' ? explain_tail(rest + 2, r, file, flen) : -1;
        if (ok == 0) {
            free(line);
            return 0;
        }
        r->line = r->column = 0;
    }
    char *sep = strstr(line, ": ");
    int r_ = -1;
    if (sep) {
        /* FILE:L:C: the two trailing numbers are the place */
        char *c2 = NULL, *c1 = NULL;
        for (char *p = line; p < sep; p++)
            if (*p == ':') {
                c1 = c2;
                c2 = p;
            }
        if (c1 && explain_place(c1, &r->line, &r->column, &end) == 0 && end == sep + 2)
            r_ = explain_tail(end, r, line, (size_t)(c1 - line));
        else
            r_ = explain_tail(sep + 2, r, line, (size_t)(sep - line));
    }
    free(line);
    return r_;
}

static int lopt_explain_parse_file_body(const char *text, const char *file, lopt_explain_record **out)
{
    if (!text || !out)
        return -1;
    int n = 0, cap = 0;
    lopt_explain_record *v = NULL;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lopt_explain_record r;
        if (len && explain_line(p, len, file, &r) != 0) {
            /* a line of another form is kept whole, as its message */
            char *msg = xmalloc(len + 1);
            if (!msg)
                oom_fail();
            memcpy(msg, p, len);
            msg[len] = 0;
            r = (lopt_explain_record){ api_strdup(""), 0, 0, api_strdup(""), msg };
        }
        if (len) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                lopt_explain_record *g = xrealloc(v, (size_t)cap * sizeof *g);
                if (!g)
                    oom_fail();
                v = g;
            }
            v[n++] = r;
        }
        p += len + (e != NULL);
    }
    *out = v;
    return n;
}

int lopt_explain_parse_file(const char *text, const char *file, lopt_explain_record **out)
{
    API_PROTECTED((lopt_context *)NULL, int, -1, lopt_explain_parse_file_body(text, file, out));
}

int lopt_explain_parse(const char *text, lopt_explain_record **out)
{
    return lopt_explain_parse_file(text, NULL, out);
}

void lopt_explain_free(lopt_explain_record *r, int n)
{
    for (int i = 0; i < n; i++) {
        free((char *)r[i].file);
        free((char *)r[i].pass);
        free((char *)r[i].message);
    }
    free(r);
}
