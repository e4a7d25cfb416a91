/* The pass registry and the pipeline runner. A pass is a row in `passes`
 * below; the pipeline string names rows and gives them options. */
#include "pass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../interp/interp.h"
#include "../ir/names.h"
#include "../printer/print.h"
#include "../printer/report.h"
#include "diff.h"
#include "graph.h"
#include "stats.h"
#include "../ir/oom.h"

static int run_verify(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    return ir_verify(m, ctx->src) ? -1 : 0;
}

static int run_print(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    print_module(ctx->dump, m);
    return 0;
}

/* The pass manager binds nested calls before every pass not as_written
 * (step, below); normalize is that step alone. */
static int run_normalize(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)m;
    (void)ctx;
    (void)opts;
    (void)nopts;
    return 0;
}

static const char *const no_options[] = { NULL };

static const char *const func_option[] = { "func", NULL };

static const char *const transform_layout_options[] = { "func", "buffer", "map", "pad-value", "assume-injective",
                                                        "axis-separators", NULL };

static const char *const block_layout_options[] = { "func", "block", "map", NULL };

static const char *const fold_options[] = { "max-bytes", NULL };
static const char *const plan_options[] = { "max-cells", "layouts", NULL };
static const char *const convert_options[] = { "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "resize2d",
                                               "conv2d_transpose", "policy", NULL };

static const char *const choose_options[] = { "conv2d", "max_pool2d", "avg_pool2d", "costs", "costs-out", "estimate",
                                              "max-cells", NULL };

static const char *const annotate_options[] = { "spatial-limit", "depth-limit", NULL };

static const char *const weight_layout_options[] = { "func", "buffer", "split", "reorder", "fuse", "keep-body",
                                                     "form", NULL };

static const PassInfo passes[] = {
    { "annotate-scope", "choose each tensor's memory scope (global, or a texture its shape fits under "
      "spatial-limit=16384 and depth-limit=2048) from what its consumers read; mark operands with "
      "R.hint_on_device and results with vdevices", annotate_options, pass_annotate_scope,
      pass_annotate_scope_check, 0 },
    { "choose-layout", "choose each conv2d and pool call's layout among candidates (conv2d=NCHW:OIHW|NCHW4c:OIHW4o, "
      "the layout as written among them) to minimize kernel plus rewrite time by a cost table (costs=FILE) or by timing "
      "each in the interpreter (costs=measure; costs-out=FILE writes the table used; "
      "estimate=bytes costs a candidate with no time by its bytes; max-cells=N as plan's), and convert each call "
      "as convert-layout does; plan then places the rewrites", choose_options, pass_choose_layout,
      pass_choose_layout_check, 0 },
    { "convert-layout", "give conv2d, conv2d_transpose, pooling and resize2d calls the desired layouts (conv2d=NHWC:HWIO, max_pool2d=NHWC; "
      "a pool not named follows its data; policy=tvm: TVM's ConvertLayout's choices where lopt's differ), with rewrites on their operands and results for flow and fold to remove", convert_options, pass_convert_layout,
      pass_convert_layout_check, 0 },
    { "flatten", "make every PrimFunc buffer physical: axes between axis separators fuse row-major (1-d without "
      "separators); parameters keep their shape and get a flat view", func_option, pass_flatten, NULL, 0 },
    { "flow", "move each layout rewrite from a call's result to its operands, through the callee's TIR",
      no_options, pass_flow, NULL, 0 },
    { "fold", "compose adjacent rewrites (permute_dims too), remove identities and pad/crop pairs, rewrite "
      "constants, evaluate R.call_tir of constants and, in dataflow blocks, operators of constants (creation "
      "operators up to max-bytes=4096), remove dead bindings and uncalled PrimFuncs", fold_options, pass_fold, pass_fold_check, 0 },
    { "fold-scope-change", "let a call whose texture result is only copied to global memory write global memory "
      "directly; PrimFunc buffers take their call sites' scopes", no_options, pass_fold_scope_change, NULL, 0 },
    { "hoist", "lift layout-rewrite blocks at a PrimFunc's start or end into R.layout_transform in the graph; "
      "mark the PrimFunc frozen", no_options, pass_hoist, NULL, 0 },
    { "legalize", "lower calls of registered operators (R.add, R.nn.conv2d, ...) to R.call_tir of generated "
      "PrimFuncs", no_options, pass_legalize, NULL, 0 },
    { "normalize", "bind every call written inside another value (an operand, a tuple's field, a result, an if's "
      "condition) to a variable of its own, lv, lv1, ..., as every pass but print and verify does first",
      no_options, run_normalize, NULL, 0 },
    { "plan", "choose every value's layout so that the rewrites left move the fewest bytes (exact), and move the "
      "rewrites there with flow's rewrites; fold then cancels the pairs that meet (max-cells=N: the largest table "
      "the exact search builds, 2^22 by default; layouts=\"v=NHWC w=NCHW4c ...\": no search, each value named is moved "
      "to that layout of its NCHW form, a padded one padding with 0, for testing the plan against every assignment)", plan_options, pass_plan, pass_plan_check, 0 },
    { "print", "print the module to standard error at this point of the pipeline", no_options, run_print, NULL, 1 },
    { "realize-vdevice", "give every value the vdevice of the values computed with it; turn each "
      "R.hint_on_device into a plain binding or an R.to_vdevice copy; PrimFunc buffers take their call sites' "
      "scopes", no_options, pass_realize_vdevice, NULL, 0 },
    { "test-perturb", "(for testing --verify-exec) move main's first float constant up by one ULP", no_options,
      pass_test_perturb, NULL, 0 },
    { "transform-block-layout", "rename a block's iterators by a bijective affine map (func=F,block=NAME,map=MAP); "
      "its loops iterate over the map's output box", block_layout_options, pass_transform_block_layout,
      pass_transform_block_layout_check, 0 },
    { "transform-layout", "rewrite a PrimFunc buffer through an index map (func=F,buffer=B,map=MAP[,pad-value=V,"
      "assume-injective=1,axis-separators=K]): shape, accesses, regions, signature and call sites",
      transform_layout_options, pass_transform_layout, pass_transform_layout_check, 0 },
    { "verify", "check the module's invariants (scopes, call_tir, ranks, block bindings)", no_options, run_verify, NULL, 1 },
    { "weight-layout", "apply schedule steps (split=AXIS:FACTOR[:PAD], reorder=P0:P1:..., fuse=AXIS) to a PrimFunc's "
      "weight buffer (func=F,buffer=W, or its \"weight_layout\" attribute) and rewrite the weight before each call",
      weight_layout_options, pass_weight_layout, pass_weight_layout_check, 0 },
};

const PassInfo *pass_registry(int *n)
{
    *n = (int)(sizeof passes / sizeof passes[0]);
    return passes;
}

const PassInfo *pass_find(const char *name)
{
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (strcmp(passes[i].name, name) == 0)
            return &passes[i];
    return NULL;
}

/* Appends " (did you mean 'x'?)" to err (of len bytes) when a pass name is
 * near the n bytes at name; returns the new length. */
static size_t pass_near(const char *name, size_t n, char *err, size_t cap, size_t len)
{
    const char *names[sizeof passes / sizeof passes[0]];
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        names[i] = passes[i].name;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < 63 ? n : 63), name);
    const char *near = n ? name_nearest_of(buf, names, (int)(sizeof names / sizeof names[0])) : NULL;
    if (near && len < cap)
        len += (size_t)snprintf(err + len, cap - len, " (did you mean '%s'?)", near);
    return len;
}

static void known_passes(char *err, size_t cap, size_t len);

unsigned pass_bit(const PassInfo *p)
{
    _Static_assert(sizeof passes / sizeof passes[0] <= 32, "a set of passes is an unsigned");
    return 1u << (p - passes);
}

int pass_set_parse(unsigned *set, const char *list, char *err, size_t cap)
{
    for (const char *s = list;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const PassInfo *p = NULL;
        for (size_t i = 0; i < sizeof passes / sizeof passes[0] && !p; i++)
            if (strlen(passes[i].name) == n && strncmp(passes[i].name, s, n) == 0)
                p = &passes[i];
        if (!p) {
            size_t len = n ? (size_t)snprintf(err, cap, "unknown pass '%.*s'", (int)n, s)
                           : (size_t)snprintf(err, cap, "empty pass name in '%s'", list);
            known_passes(err, cap, pass_near(s, n, err, cap, len));
            return -1;
        }
        *set |= pass_bit(p);
        if (!e)
            return 0;
        s = e + 1;
    }
}

unsigned pipeline_passes(const Pipeline *pl)
{
    unsigned set = 0;
    for (int i = 0; i < pl->n; i++)
        set |= pass_bit(pl->steps[i].pass);
    return set;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_';
}

static void known_passes(char *err, size_t cap, size_t len)
{
    len += (size_t)snprintf(err + len, len < cap ? cap - len : 0, "; known passes:");
    for (size_t i = 0; i < sizeof passes / sizeof passes[0] && len < cap; i++)
        len += (size_t)snprintf(err + len, cap - len, " %s", passes[i].name);
}

static int accepts(const PassInfo *p, const char *key)
{
    for (const char *const *o = p->options; *o; o++)
        if (strcmp(*o, key) == 0)
            return 1;
    return 0;
}

/* Appends to err (of len bytes so far) the options p takes, or that it takes none. */
static void known_options(const PassInfo *p, char *err, size_t cap, size_t len)
{
    if (!p->options[0]) {
        if (len < cap)
            snprintf(err + len, cap - len, ": it takes no options");
        return;
    }
    for (const char *const *o = p->options; *o && len < cap; o++)
        len += (size_t)snprintf(err + len, cap - len, "%s%s", o == p->options ? "; its options: " : ", ", *o);
}

/* Parses "{k=v,k2=v2}" at *s into step options, NUL-terminating in place. */
static int parse_options(PassStep *st, char **s, char *err, size_t cap)
{
    char *p = *s + 1;
    int optcap = 0;
    for (;;) {
        while (*p == ' ')   /* plan{max-cells=9, layouts="..."}: blanks after a comma */
            p++;
        char *key = p;
        while (name_char(*p))
            p++;
        if (p == key) {
            if (*p == '}' && st->nopts == 0) {
                *s = p + 1;
                return 0;
            }
            snprintf(err, cap, "expected an option name in the options of pass '%s'", st->pass->name);
            return -1;
        }
        if (*p != '=') {
            snprintf(err, cap, "expected '=' after option '%.*s' of pass '%s'", (int)(p - key), key, st->pass->name);
            return -1;
        }
        *p++ = 0;
        char *val = p;
        if (!strncmp(p, "lambda", 6) && !isalnum((unsigned char)p[6]) && p[6] != '_') {
            /* a lambda's commas would end the value: say to quote it */
            snprintf(err, cap, "the value of option '%s' of pass '%s' is a lambda: quote it, as in %s=\"lambda i, j: (j, i)\" "
                               "(inside the shell's single quotes)", key, st->pass->name, key);
            return -1;
        }
        if (*p == '"' || *p == '\'') {
            /* a quoted value holds commas and braces: a lambda, a layout list */
            char q = *p++;
            val = p;
            while (*p && *p != q)
                p++;
            if (!*p) {
                snprintf(err, cap, "unterminated %c in the value of option '%s' of pass '%s'", q, key, st->pass->name);
                return -1;
            }
            *p++ = 0;
            while (*p == ' ')
                p++;
            if (*p != ',' && *p != '}') {
                snprintf(err, cap, "expected ',' or '}' after the quoted value of option '%s' of pass '%s'", key,
                         st->pass->name);
                return -1;
            }
        }
        while (*p && *p != ',' && *p != '}')
            p++;
        if (!*p) {
            snprintf(err, cap, "unterminated '{' in the options of pass '%s'", st->pass->name);
            return -1;
        }
        char end = *p;
        for (char *t = p; t > val && t[-1] == ' '; t--)   /* k=v , : the value ends at its last letter */
            t[-1] = 0;
        *p++ = 0;
        if (!accepts(st->pass, key)) {
            size_t len = (size_t)snprintf(err, cap, "pass '%s' has no option '%s'", st->pass->name, key);
            int nopt = 0;
            while (st->pass->options[nopt])
                nopt++;
            const char *near = name_nearest_of(key, (const char *const *)st->pass->options, nopt);
            if (near && len < cap)
                len += (size_t)snprintf(err + len, cap - len, " (did you mean '%s'?)", near);
            known_options(st->pass, err, cap, len);
            return -1;
        }
        if (st->nopts == optcap) {
            optcap = optcap ? optcap * 2 : 4;
            PassOpt *g = xrealloc(st->opts, (size_t)optcap * sizeof *g);
            if (!g)
                oom_fail();
            st->opts = g;
        }
        st->opts[st->nopts].key = key;
        st->opts[st->nopts++].val = val;
        if (end == '}') {
            *s = p;
            return 0;
        }
    }
}

int pipeline_parse(Pipeline *pl, const char *text, char *err, size_t cap)
{
    /* The copy is kept: option keys and values point into it. Each parse
     * appends its text to a chain so earlier steps stay valid. */
    size_t n = strlen(text);
    char *copy = xmalloc(n + 1 + sizeof(char *));
    if (!copy)
        oom_fail();
    memcpy(copy, &pl->text, sizeof(char *));
    memcpy(copy + sizeof(char *), text, n + 1);
    pl->text = copy;
    char *s = copy + sizeof(char *);
    for (;;) {
        while (*s == ' ')   /* --pass='hoist, flow', as mlir-opt and opt take it */
            s++;
        char *name = s;
        while (name_char(*s))
            s++;
        if (s == name) {
            snprintf(err, cap, *s ? "unexpected '%c' in pass pipeline" : "empty pass name in pipeline", *s);
            return -1;
        }
        char sep = *s;
        *s = 0;
        const PassInfo *p = pass_find(name);
        if (!p) {
            size_t len = (size_t)snprintf(err, cap, "unknown pass '%s'", name);
            known_passes(err, cap, pass_near(name, strlen(name), err, cap, len));
            return -1;
        }
        if (pl->n == pl->cap) {
            pl->cap = pl->cap ? pl->cap * 2 : 8;
            PassStep *g = xrealloc(pl->steps, (size_t)pl->cap * sizeof *g);
            if (!g)
                oom_fail();
            pl->steps = g;
        }
        PassStep *st = &pl->steps[pl->n++];
        st->pass = p;
        st->opts = NULL;
        st->nopts = 0;
        *s = sep;
        if (*s == '{' && parse_options(st, &s, err, cap))
            return -1;
        if (p->check && p->check(st->opts, st->nopts, err, cap)) {
            if (st->nopts == 0)   /* a pass that needs options says which it takes */
                known_options(p, err, cap, strlen(err));
            return -1;
        }
        while (*s == ' ')
            s++;
        if (*s == 0)
            return 0;
        if (*s != ',') {
            snprintf(err, cap, "unexpected '%c' in pass pipeline", *s);
            return -1;
        }
        s++;
    }
}

void pipeline_free(Pipeline *pl)
{
    for (int i = 0; i < pl->n; i++)
        free(pl->steps[i].opts);
    free(pl->steps);
    char *t = pl->text;
    while (t) {
        char *next;
        memcpy(&next, t, sizeof next);
        free(t);
        t = next;
    }
    memset(pl, 0, sizeof *pl);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The module as print_module writes it, in a malloc'd buffer. */
static char *print_to_string(Module *m, size_t *len)
{
    char *buf = NULL;
    FILE *f = xopen_memstream(&buf, len);
    if (!f)
        oom_fail();
    print_module(f, m);
    if (fclose(f) != 0)
        oom_fail();
    return buf;
}

/* --print-changed: the diff from *before to the module now, which becomes *before. */
static void print_changed(Module *m, const char *pass, FILE *out, char **before, size_t *len)
{
    size_t n;
    char *after = print_to_string(m, &n);
    char from[128], to[128];
    snprintf(from, sizeof from, "before %s", pass);
    snprintf(to, sizeof to, "after %s", pass);
    if (!diff_unified(out, *before, *len, after, n, from, to))
        fprintf(out, "%s: no change\n", pass);
    free(*before);
    *before = after;
    *len = n;
}

static void dump(PassCtx *ctx, Module *m, const char *when, const char *pass)
{
    fprintf(ctx->dump, "# -----// IR %s %s //----- #\n", when, pass);
    print_module(ctx->dump, m);
}

/* Binds the calls written inside other values before pass `name`, saying
 * so under --explain. The verifier then types the bindings left without an
 * annotation, as it types the module read with them written out, and checks
 * again the calls it could not type while their operands were written in
 * place (an add of a conv2d of the wrong shape is an error now). */
static int normalize(Module *m, PassCtx *ctx, const char *name)
{
    Notes ns = { .mute = !ctx->explain };
    int made = bind_nested_calls(m, &ns);
    notes_emit(&ns, ctx, name, 0);
    if (made && ir_verify(m, ctx->src)) {
        diag_error(ctx->src, (Loc){ 0, 0 }, "the module does not verify once the calls written inside other values "
                   "are bound to variables of their own (before pass '%s')", name);
        return -1;
    }
    return 0;
}

/* Runs one step; with rs (--report), says in it how the step ended. */
static int step(const PassStep *st, int i, Module *m, PassCtx *ctx, char **before, size_t *len, ReportStep *rs)
{
    const char *name = st->pass->name;
    unsigned bit = pass_bit(st->pass);
    if (ctx->print_before & bit)
        dump(ctx, m, "before", name);
    double t0 = now();
    m->say = ctx->explain != NULL;
    if (!st->pass->as_written && normalize(m, ctx, name)) {
        if (rs)
            rs->status = STEP_VERIFY_FAILED;
        return -1;
    }
    int r = st->pass->run(m, ctx, st->opts, st->nopts);
    double t = now() - t0;
    if (ctx->times)
        ctx->times[i] += t;
    if (rs)
        rs->seconds = t;
    if (r) {
        if (rs)
            rs->status = STEP_PASS_FAILED;
        return -1;
    }
    if (ctx->verify_each && ir_verify(m, ctx->src)) {
        diag_error(ctx->src, (Loc){ 0, 0 }, "the module does not verify after pass '%s'", name);
        if (rs)
            rs->status = STEP_VERIFY_FAILED;
        return -1;
    }
    if (ctx->print_after_all || (ctx->print_after & bit))
        dump(ctx, m, "after", name);
    if (ctx->print_changed)
        print_changed(m, name, ctx->dump, before, len);
    if (ctx->after_pass) {
        ctx->after_note[0] = 0;
        t0 = now();
        r = ctx->after_pass(m, name, ctx->after_data);
        if (rs) {
            rs->check_seconds = now() - t0;
            rs->checked = 1;
            rs->status = r ? STEP_CHECK_FAILED : STEP_OK;
            snprintf(rs->check, sizeof rs->check, "%s", ctx->after_note);
        }
        if (r)
            return -1;
    }
    return 0;
}

/* The step as the pipeline string gives it: name{key=value,...}, a value
 * quoted when it holds a comma or a brace. */
static char *step_text(const PassStep *st)
{
    char *s = NULL;
    size_t n;
    FILE *f = xopen_memstream(&s, &n);
    if (!f)
        oom_fail();
    fputs(st->pass->name, f);
    for (int i = 0; i < st->nopts; i++) {
        const char *v = st->opts[i].val;
        const char *q = strpbrk(v, ",{}") ? (strchr(v, '"') ? "'" : "\"") : "";
        fprintf(f, "%c%s=%s%s%s", i ? ',' : '{', st->opts[i].key, q, v, q);
    }
    if (st->nopts)
        fputc('}', f);
    if (fclose(f) != 0)
        oom_fail();
    return s;
}

/* step, recorded in ctx->report: what the pass explains and the errors of
 * the step are kept (and still written where they go), then the module. */
static int run_step(const PassStep *st, int i, Module *m, PassCtx *ctx, char **before, size_t *len)
{
    if (!ctx->report)
        return step(st, i, m, ctx, before, len, NULL);
    char *name = step_text(st);
    ReportStep *rs = report_step(ctx->report, name);
    free(name);
    FILE *explain = ctx->explain, *out = ctx->src->out;
    ctx->explain = xopen_memstream(&rs->explain, &rs->explain_len);
    ctx->src->out = xopen_memstream(&rs->diags, &rs->diags_len);
    if (!ctx->explain || !ctx->src->out)
        oom_fail();
    int r = step(st, i, m, ctx, before, len, rs);
    if (fclose(ctx->explain) != 0 || fclose(ctx->src->out) != 0)
        oom_fail();
    ctx->explain = explain;
    ctx->src->out = out;
    if (explain)
        fwrite(rs->explain, 1, rs->explain_len, explain);
    if (out)   /* the library may print diagnostics nowhere (api/) */
        fwrite(rs->diags, 1, rs->diags_len, out);
    if (rs->status != STEP_PASS_FAILED) {
        /* a failed pass may leave the module half changed: it is not printed */
        const ReportText *last = report_last(ctx->report);
        report_text(&rs->mod, m);
        rs->ops = diff_script(last->text, last->len, rs->mod.text, rs->mod.len, &rs->nops);
        report_graphs_after(ctx->report, m);
    }
    return r;
}

/* A pass that has begun runs to its end: the flag is read between passes. */
static int stopped(PassCtx *ctx, const char *next)
{
    int stop = ctx->stop ? *ctx->stop : 0;
    if (!stop)
        return 0;
    char why[80];
    interp_stop_text(stop, ctx->timeout, "the pipeline", why, sizeof why);
    diag_error(ctx->src, (Loc){ 0, 0 }, "%s before pass '%s'", why, next);
    ctx->stopped = 1;
    return 1;
}

int pipeline_run(const Pipeline *pl, Module *m, PassCtx *ctx)
{
    size_t len = 0;
    char *before = ctx->print_changed ? print_to_string(m, &len) : NULL;
    int status = 0;
    if (ctx->report)
        report_input(ctx->report, m, ctx->src->name);
    if (ctx->stats && stats_log_add(ctx->stats, ctx->src->name, "input", m))
        oom_fail();
    for (int i = 0; i < pl->n && !status; i++) {
        status = stopped(ctx, pl->steps[i].pass->name) ? -1 : run_step(&pl->steps[i], i, m, ctx, &before, &len);
        if (!status && ctx->stats) {
            char *name = step_text(&pl->steps[i]);
            if (stats_log_add(ctx->stats, ctx->src->name, name, m))
                oom_fail();
            free(name);
        }
    }
    free(before);
    return status;
}
