/* Modules and pipelines: reading a module from text, verifying, copying and
 * printing it, and running a pipeline of passes over it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../grammar/reader.h"
#include "../interp/npz.h"
#include "../passes/layout/flow.h"
#include "../printer/dot.h"
#include "../printer/print.h"
#include "../printer/report.h"
#include "internal.h"

static lopt_module *parse(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags)
{
    lopt_module *mod = calloc(1, sizeof *mod);
    if (!mod)
        return NULL;
    mod->name = api_strdup(name ? name : "<string>");
    mod->constants = ctx->constants ? api_strdup(ctx->constants) : NULL;
    if (!(flags & (LOPT_PARSE_BORROW | LOPT_PARSE_MAPPED))) {
        if (!(mod->text = malloc(len + 1)))
            abort();
        memcpy(mod->text, text, len);
        mod->text[len] = 0;
        text = mod->text;
    }
    mod->src = (Source){ .name = mod->name, .text = text, .len = len, .mapped = (flags & LOPT_PARSE_MAPPED) != 0 };
    api_bind(ctx, &mod->src);
    Constants k = { NULL, 0, NULL, NULL };
    char err[1400];
    if (ctx->constants && constants_open(&k, ctx->constants, err, sizeof err)) {
        constants_close(&k);
        api_fail(ctx, "%s", err);
        lopt_module_free(mod);
        return NULL;
    }
    mod->m = read_module_with(&mod->src, ctx->constants ? &k : NULL);
    constants_close(&k);
    if (!mod->m) {
        lopt_module_free(mod);
        return NULL;
    }
    return mod;
}

lopt_module *lopt_parse_ex(lopt_context *ctx, const char *text, size_t len, const char *name, unsigned flags)
{
    return parse(ctx, text, len, name, flags);
}

lopt_module *lopt_parse(lopt_context *ctx, const char *text, size_t len, const char *name)
{
    return parse(ctx, text, len, name, 0);
}

void lopt_module_free(lopt_module *mod)
{
    if (!mod)
        return;
    module_free(mod->m);
    free(mod->text);
    free(mod->name);
    free(mod->constants);
    free(mod);
}

int lopt_verify(lopt_context *ctx, lopt_module *mod)
{
    api_bind(ctx, &mod->src);
    return ir_verify_input(mod->m, &mod->src, ctx->strict, ctx->allow_unregistered) ? -1 : 0;
}

lopt_module *lopt_module_clone(lopt_context *ctx, const lopt_module *mod)
{
    /* read again as it was read, with its constants; or its printed text,
     * which holds every constant's data */
    char *mine = ctx->constants, *text = NULL;
    lopt_module *c = NULL;
    ctx->constants = mod->changed ? NULL : mod->constants;
    if (!mod->changed)
        c = parse(ctx, mod->src.text, mod->src.len, mod->name, 0);
    else if ((text = lopt_module_print(mod, LOPT_STYLE_CANONICAL)) &&
             (c = parse(ctx, text, strlen(text), mod->name, 0)))
        c->changed = 1;
    ctx->constants = mine;
    free(text);
    return c;
}

int lopt_module_write(const lopt_module *mod, lopt_style style, FILE *f)
{
    if (style == LOPT_STYLE_DOT)
        print_dot(f, mod->m);
    else if (style == LOPT_STYLE_TVM)
        print_module_tvm(f, mod->m);
    else
        print_module(f, mod->m);
    return ferror(f) ? -1 : 0;
}

char *lopt_module_print(const lopt_module *mod, lopt_style style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int bad = lopt_module_write(mod, style, f);
    if (fclose(f) || bad) {
        free(buf);
        return NULL;
    }
    return buf;
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

/* The operator table, from the registry: each operator's layout category,
 * the dtypes its inference takes, what flow does with it and the data
 * layouts its layout attributes take. The manual's table (man/lopt.1,
 * OPERATORS) is this text, checked by make check. */
char *lopt_ops_table(void)
{
    static const char *const cat[] = { "agnostic", "light", "heavy" };
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
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

lopt_pipeline *lopt_pipeline_new(void)
{
    return calloc(1, sizeof(lopt_pipeline));
}

void lopt_pipeline_free(lopt_pipeline *p)
{
    if (!p)
        return;
    pipeline_free(&p->p);
    free(p->times);
    free(p);
}

int lopt_pipeline_append(lopt_context *ctx, lopt_pipeline *p, const char *text)
{
    char err[1024];
    int n = p->p.n;
    if (pipeline_parse(&p->p, text, err, sizeof err)) {
        /* the pipeline stays as it was */
        for (int i = n; i < p->p.n; i++)
            free(p->p.steps[i].opts);
        p->p.n = n;
        return api_fail(ctx, "%s", err);
    }
    double *t = realloc(p->times, ((size_t)p->p.n + 1) * sizeof *t);
    if (!t)
        abort();
    for (int i = p->ntimes; i <= p->p.n; i++)
        t[i] = 0;
    p->times = t;
    p->ntimes = p->p.n;
    return 0;
}

int lopt_pipeline_length(const lopt_pipeline *p)
{
    return p->p.n;
}

const char *lopt_pipeline_step_name(const lopt_pipeline *p, int i)
{
    return i >= 0 && i < p->p.n ? p->p.steps[i].pass->name : NULL;
}

double lopt_pipeline_step_time(const lopt_pipeline *p, int i)
{
    return i >= 0 && i < p->ntimes ? p->times[i] : 0;
}

const char *lopt_pipeline_missing(const lopt_context *ctx, const lopt_pipeline *p, int after)
{
    int n;
    const PassInfo *info = pass_registry(&n);
    unsigned missing = (after ? ctx->print_after : ctx->print_before) & ~pipeline_passes(&p->p);
    for (int i = 0; i < n; i++)
        if (missing & pass_bit(&info[i]))
            return info[i].name;
    return NULL;
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
    FILE *f = fopen(ctx->html_report, "w");
    int bad = !f || report_write(pc->report, f);
    if ((f && fclose(f)) || bad)
        return api_fail(ctx, "cannot write the report '%s': %s", ctx->html_report, strerror(errno));
    return 0;
}

int lopt_apply(lopt_context *ctx, lopt_module *mod, lopt_pipeline *p)
{
    api_bind(ctx, &mod->src);
    FILE *dump = api_report(ctx);
    Report report = { 0 };
    PassCtx pc = { .src = &mod->src, .dump = dump, .verify_each = ctx->verify_each,
                   .print_after_all = ctx->print_after_all, .print_before = ctx->print_before,
                   .print_after = ctx->print_after, .print_changed = ctx->print_changed,
                   .times = p->times, .explain = ctx->explain ? dump : NULL, .read_map = read_option_map,
                   .report = ctx->html_report ? &report : NULL };
    mod->changed = 1;
    int r;
    if (ctx->verify_exec) {
        r = api_apply_checked(ctx, mod, &pc, p, write_html_report);
    } else {
        r = pipeline_run(&p->p, mod->m, &pc) ? -1 : 0;
        r = write_html_report(ctx, &pc) || r ? -1 : 0;
    }
    report_free(&report);
    return r;
}

/* ---- --explain's records ---- */

/* Splits "FILE:L:C: PASS: MSG" or "FILE: PASS: MSG" (FILE without ": ") into r. */
static int explain_line(const char *s, size_t n, lopt_explain_record *r)
{
    char *line = malloc(n + 1);
    if (!line)
        abort();
    memcpy(line, s, n);
    line[n] = 0;
    char *sep = strstr(line, ": ");
    if (!sep) {
        free(line);
        return -1;
    }
    *sep = 0;
    char *pass = sep + 2, *msg = strstr(pass, ": ");
    if (!msg) {
        free(line);
        return -1;
    }
    *msg = 0;
    msg += 2;
    r->line = r->column = 0;
    /* FILE:L:C: the two trailing numbers are the place */
    char *c2 = strrchr(line, ':');
    if (c2 && c2[1] >= '0' && c2[1] <= '9') {
        *c2 = 0;
        char *c1 = strrchr(line, ':');
        if (c1 && c1[1] >= '0' && c1[1] <= '9') {
            *c1 = 0;
            r->line = atoi(c1 + 1);
            r->column = atoi(c2 + 1);
        } else {
            *c2 = ':';
        }
    }
    r->file = api_strdup(line);
    r->pass = api_strdup(pass);
    r->message = api_strdup(msg);
    free(line);
    return 0;
}

int lopt_explain_parse(const char *text, lopt_explain_record **out)
{
    int n = 0, cap = 0;
    lopt_explain_record *v = NULL;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lopt_explain_record r;
        if (len && explain_line(p, len, &r) != 0) {
            /* a line of another form is kept whole, as its message */
            char *msg = malloc(len + 1);
            if (!msg)
                abort();
            memcpy(msg, p, len);
            msg[len] = 0;
            r = (lopt_explain_record){ api_strdup(""), 0, 0, api_strdup(""), msg };
        }
        if (len) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                lopt_explain_record *g = realloc(v, (size_t)cap * sizeof *g);
                if (!g)
                    abort();
                v = g;
            }
            v[n++] = r;
        }
        p += len + (e != NULL);
    }
    *out = v;
    return n;
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
