/* --stats: what each pass of a pipeline changed, as counts of the module
 * taken before the first pass and after each (functions, bindings, calls
 * by kind, the layout rewrites and the bytes they write, constants), kept
 * in a log the driver prints as a table or writes as JSON, as LLVM's opt
 * does with -stats and -stats-json. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "../ir/oom.h"

/* The bytes of a tensor value of static shape, or 0. */
static int64_t value_bytes(const StructInfo *si)
{
    DType dt;
    int nd;
    int64_t sh[16], n = 1;
    if (!si || sinfo_shape(si, &dt, &nd, sh) || nd > 16)
        return 0;
    for (int k = 0; k < nd; k++)
        n *= sh[k];
    return n * dtype_size(dt);
}

static void count_value(const Expr *e, const Var *var, ModStats *s);

static void count_blocks(RBlock *const *blocks, int n, ModStats *s)
{
    for (int b = 0; b < n; b++)
        for (int i = 0; i < blocks[b]->nbinds; i++) {
            s->v[STAT_BINDINGS]++;
            count_value(blocks[b]->binds[i]->value, blocks[b]->binds[i]->var, s);
        }
}

static void count_operands(const Expr *e, ModStats *s)
{
    if (e->kind == E_CONST) {
        s->v[STAT_CONSTANTS]++;
        s->v[STAT_CONSTANT_BYTES] += e->u.cst.count * dtype_size(e->u.cst.dtype);
    } else if (e->kind == E_CALL) {
        for (int k = 0; k < e->u.call.nargs + e->u.call.nkw; k++)
            count_operands(e->u.call.args[k], s);
    } else if (e->kind == E_TUPLE || e->kind == E_LIST) {
        for (int k = 0; k < e->u.list.n; k++)
            count_operands(e->u.list.items[k], s);
    }
}

static void count_value(const Expr *e, const Var *var, ModStats *s)
{
    if (e->kind == E_IF) {
        count_blocks(e->u.rif.then->blocks, e->u.rif.then->nblocks, s);
        count_blocks(e->u.rif.orelse->blocks, e->u.rif.orelse->nblocks, s);
        return;
    }
    count_operands(e, s);
    if (e->kind != E_CALL || e->u.call.callee)
        return;
    if (is_layout_transform(e)) {
        s->v[STAT_REWRITES]++;
        s->v[STAT_REWRITE_BYTES] += value_bytes(var ? var->sinfo : NULL);
    } else if (!strcmp(e->u.call.op->str, "R.call_tir")) {
        s->v[STAT_CALL_TIR]++;
    } else if (!strncmp(e->u.call.op->str, "R.", 2)) {
        s->v[STAT_OPERATORS]++;
    }
}

void module_stats(const Module *m, ModStats *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < m->nfuncs; i++) {
        const Func *f = m->funcs[i];
        if (f->kind == F_PRIM) {
            s->v[STAT_PRIM_FUNCS]++;
            continue;
        }
        s->v[STAT_RELAX_FUNCS]++;
        count_blocks(f->blocks, f->nblocks, s);
    }
}

static const char *const stat_names[STAT_COUNT] = {
    [STAT_RELAX_FUNCS] = "relax_functions", [STAT_PRIM_FUNCS] = "prim_funcs", [STAT_BINDINGS] = "bindings",
    [STAT_OPERATORS] = "operator_calls", [STAT_CALL_TIR] = "call_tir", [STAT_REWRITES] = "rewrites",
    [STAT_REWRITE_BYTES] = "rewrite_bytes", [STAT_CONSTANTS] = "constants", [STAT_CONSTANT_BYTES] = "constant_bytes",
};

/* The table's column heads, shorter than the JSON keys. */
static const char *const stat_heads[STAT_COUNT] = {
    [STAT_RELAX_FUNCS] = "relax", [STAT_PRIM_FUNCS] = "prim", [STAT_BINDINGS] = "bindings",
    [STAT_OPERATORS] = "operators", [STAT_CALL_TIR] = "call_tir", [STAT_REWRITES] = "rewrites",
    [STAT_REWRITE_BYTES] = "rewrite B", [STAT_CONSTANTS] = "consts", [STAT_CONSTANT_BYTES] = "const B",
};

const char *stat_name(int k)
{
    return k >= 0 && k < STAT_COUNT ? stat_names[k] : NULL;
}

int stats_log_add(StatsLog *log, const char *module, const char *step, const Module *m)
{
    if (log->n == log->cap) {
        int cap = log->cap ? 2 * log->cap : 16;
        StatsRow *r = xrealloc(log->rows, (size_t)cap * sizeof *r);
        if (!r)
            return -1;
        log->rows = r;
        log->cap = cap;
    }
    StatsRow *r = &log->rows[log->n];
    r->module = xstrdup(module ? module : "");
    r->step = xstrdup(step);
    if (!r->module || !r->step) {
        free(r->module);
        free(r->step);
        return -1;
    }
    module_stats(m, &r->s);
    log->n++;
    return 0;
}

void stats_log_free(StatsLog *log)
{
    for (int i = 0; i < log->n; i++) {
        free(log->rows[i].module);
        free(log->rows[i].step);
    }
    free(log->rows);
    memset(log, 0, sizeof *log);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void stats_log_write(const StatsLog *log, FILE *f, int json)
{
    if (json) {
        fputs("{\n  \"steps\": [", f);
        for (int i = 0; i < log->n; i++) {
            const StatsRow *r = &log->rows[i];
            fputs(i ? ",\n    {\"module\": " : "\n    {\"module\": ", f);
            json_string(f, r->module);
            fputs(", \"step\": ", f);
            json_string(f, r->step);
            for (int k = 0; k < STAT_COUNT; k++)
                fprintf(f, ", \"%s\": %lld", stat_names[k], (long long)r->s.v[k]);
            fputc('}', f);
        }
        fputs(log->n ? "\n  ]\n}\n" : "]\n}\n", f);
        return;
    }
    /* one line per step: the counts after it, each change from the line
     * before (the same module's) in parentheses */
    fputs("===--- lopt statistics: the module before the first pass and after each ---===\n", f);
    const char *module = NULL;
    for (int i = 0; i < log->n; i++) {
        const StatsRow *r = &log->rows[i], *prev = i && !strcmp(log->rows[i - 1].module, r->module) ? r - 1 : NULL;
        if (!module || strcmp(module, r->module)) {
            module = r->module;
            fprintf(f, "%s\n  %-18s", module, "step");
            for (int k = 0; k < STAT_COUNT; k++)
                fprintf(f, " %11s", stat_heads[k]);
            fputc('\n', f);
        }
        fprintf(f, "  %-18.18s", r->step);
        for (int k = 0; k < STAT_COUNT; k++) {
            char cell[48];
            long long v = (long long)r->s.v[k], d = prev ? v - (long long)prev->s.v[k] : 0;
            if (d)
                snprintf(cell, sizeof cell, "%lld (%+lld)", v, d);
            else
                snprintf(cell, sizeof cell, "%lld", v);
            fprintf(f, " %11s", cell);
        }
        fputc('\n', f);
    }
}
