/* The playground's entry: one call that reads a module, runs a pipeline over
 * it and answers everything the page shows, as one JSON object in a string
 * (to lopt_web_free). It uses the library's API alone (api/lopt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api/lopt.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WEB_EXPORT
#endif

/* Writes s to f as a JSON string (NULL as null). */
static void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void json_field(FILE *f, const char *key, const char *value, int last)
{
    json_string(f, key);
    fputc(':', f);
    json_string(f, value);
    fputs(last ? "" : ",", f);
}

static void json_diags(FILE *f, const lopt_context *ctx)
{
    static const char *const sev[] = { "error", "warning", "note" };
    fputs("\"diagnostics\":[", f);
    for (int i = 0; i < lopt_diag_count(ctx); i++) {
        const lopt_diag *d = lopt_diag_get(ctx, i);
        fprintf(f, "%s{\"line\":%d,\"column\":%d,\"severity\":\"%s\",\"message\":", i ? "," : "", d->line,
                d->column, sev[d->severity]);
        json_string(f, d->message);
        fputs(",\"file\":", f);
        json_string(f, d->file);
        fputc('}', f);
    }
    fputs("]", f);
}

/* A context reading as the command line does, the reports kept in its buffer. */
static lopt_context *web_context(void)
{
    lopt_context *ctx = lopt_context_new();
    if (ctx)
        lopt_set_threads(ctx, 1);
    return ctx;
}

/* Reads and verifies text; NULL after recording the errors on ctx. */
static lopt_module *web_read(lopt_context *ctx, const char *text, const char *name)
{
    lopt_module *m = lopt_parse(ctx, text, strlen(text), name);
    if (m && lopt_verify(ctx, m)) {
        lopt_module_free(m);
        return NULL;
    }
    return m;
}

/* Runs pipeline over a fresh read of text with the reports one flag asks
 * for; the report text (to free), or NULL when the run failed. */
static char *web_report(const char *text, const char *name, const char *pipeline, int changed)
{
    lopt_context *ctx = web_context();
    lopt_pipeline *p = lopt_pipeline_new();
    char *out = NULL;
    if (ctx && p && !lopt_pipeline_append(ctx, p, pipeline)) {
        lopt_module *m = web_read(ctx, text, name);
        if (changed)
            lopt_set_print_changed(ctx, 1);
        else
            lopt_set_explain(ctx, 1);
        if (m && !lopt_apply(ctx, m, p))
            out = strdup(lopt_report_text(ctx));
        lopt_module_free(m);
    }
    lopt_pipeline_free(p);
    lopt_context_free(ctx);
    return out;
}

/* The answer to one Run: {"ok", "output", "explain", "changed",
 * "dot_before", "dot_after", "diagnostics": [{line, column, severity,
 * message, file}]}. A pipeline of "" runs no pass. */
WEB_EXPORT char *lopt_web_run(const char *text, const char *pipeline, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    lopt_context *ctx = web_context();
    lopt_pipeline *p = lopt_pipeline_new();
    lopt_module *m = NULL;
    char *before = NULL, *after = NULL, *output = NULL, *explain = NULL, *changed = NULL;
    int ok = ctx && p && !lopt_pipeline_append(ctx, p, pipeline);
    if (ok)
        ok = (m = web_read(ctx, text, name)) != NULL;
    if (ok)
        before = lopt_module_print(m, LOPT_STYLE_DOT);
    if (ok)
        ok = !lopt_apply(ctx, m, p);
    if (ok) {
        output = lopt_module_print(m, LOPT_STYLE_CANONICAL);
        after = lopt_module_print(m, LOPT_STYLE_DOT);
        explain = web_report(text, name, pipeline, 0);
        changed = web_report(text, name, pipeline, 1);
    }
    fprintf(f, "{\"ok\":%s,", ok ? "true" : "false");
    json_field(f, "output", output, 0);
    json_field(f, "explain", explain, 0);
    json_field(f, "changed", changed, 0);
    json_field(f, "dot_before", before, 0);
    json_field(f, "dot_after", after, 0);
    if (ctx)
        json_diags(f, ctx);
    else
        fputs("\"diagnostics\":[]", f);
    fputs("}", f);
    fclose(f);
    lopt_free(before);
    lopt_free(after);
    lopt_free(output);
    free(explain);
    free(changed);
    lopt_module_free(m);
    lopt_pipeline_free(p);
    lopt_context_free(ctx);
    return buf;
}

/* The passes and their options, as JSON: [{"name", "summary", "options": [...]}]. */
WEB_EXPORT char *lopt_web_passes(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputc('[', f);
    for (int i = 0; i < lopt_pass_count(); i++) {
        fputs(i ? ",{" : "{", f);
        json_field(f, "name", lopt_pass_name(i), 0);
        json_field(f, "summary", lopt_pass_summary(i), 0);
        fputs("\"options\":[", f);
        const char *const *o = lopt_pass_options(i);
        for (int j = 0; o && o[j]; j++) {
            fputs(j ? "," : "", f);
            json_string(f, o[j]);
        }
        fputs("]}", f);
    }
    fputc(']', f);
    fclose(f);
    return buf;
}

WEB_EXPORT void lopt_web_free(char *s)
{
    free(s);
}
