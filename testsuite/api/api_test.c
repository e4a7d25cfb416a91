/* The C library through its public header alone, under AddressSanitizer:
 * reading, errors as records, pipelines, runs, index maps, handles reused,
 * and two threads on two modules giving what one thread gives. Nothing may
 * be printed: the library prints only to a stream it is given. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../api/lopt.h"

static int failures;
static FILE *report;   /* the real standard error, while fd 2 is a file */

#define CHECK(c) \
    do { \
        if (!(c)) { \
            fprintf(report ? report : stderr, "api_test.c:%d: check failed: %s\n", __LINE__, #c); \
            failures++; \
        } \
    } while (0)

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "api_test: cannot open %s\n", path);
        exit(2);
    }
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static const char *ADD =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((2, 3), dtype=\"float32\"), y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
    "        gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(x, y)\n"
    "        return gv\n";

static void test_errors(lopt_context *ctx)
{
    const char *bad = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n"
                      "        return zz\n";
    lopt_module *m = lopt_parse(ctx, bad, strlen(bad), "bad.tir");
    if (m && lopt_verify(ctx, m) == 0)
        CHECK(!"an undefined name verifies");
    lopt_module_free(m);
    CHECK(lopt_error_count(ctx) >= 1);
    const lopt_diag *d = lopt_diag_get(ctx, 0);
    CHECK(d && d->severity == LOPT_ERROR);
    CHECK(d && d->file && strcmp(d->file, "bad.tir") == 0);
    CHECK(d && d->line == 5 && d->column == 16);
    CHECK(d && strstr(d->message, "zz") != NULL);
    CHECK(d && strcmp(d->source_line, "        return zz") == 0);
    CHECK(lopt_last_error(ctx) != NULL);
    lopt_diag_clear(ctx);
    CHECK(lopt_diag_count(ctx) == 0 && lopt_last_error(ctx) == NULL);

    /* a syntax error, with the same context */
    const char *syntax = "@I.ir_module\nclass Module:\n    def (:\n";
    m = lopt_parse(ctx, syntax, strlen(syntax), NULL);
    CHECK(m == NULL);
    CHECK(lopt_diag_count(ctx) >= 1 && strcmp(lopt_diag_get(ctx, 0)->file, "<string>") == 0);
    lopt_diag_clear(ctx);

    /* a pipeline error names the options the pass takes */
    lopt_pipeline *p = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, p, "fold{depth=1}") == -1);
    CHECK(strcmp(lopt_last_error(ctx), "pass 'fold' has no option 'depth'; its options: max-bytes") == 0);
    CHECK(lopt_pipeline_append(ctx, p, "nosuchpass") == -1);
    CHECK(lopt_pipeline_append(ctx, p, "legalize,fold") == 0 && lopt_pipeline_length(p) == 2);
    CHECK(strcmp(lopt_pipeline_step_name(p, 1), "fold") == 0);
    lopt_pipeline_free(p);
    lopt_diag_clear(ctx);

    /* a run error: no such function, an input of the wrong shape */
    m = lopt_parse(ctx, ADD, strlen(ADD), "add.tir");
    CHECK(m && lopt_verify(ctx, m) == 0);
    lopt_value *v = NULL;
    CHECK(lopt_run(ctx, m, "nosuch", &v) == -1 && v == NULL);
    CHECK(strcmp(lopt_last_error(ctx), "the module has no function 'nosuch' to run; it has main: name one with --entry=F") == 0);
    CHECK(lopt_diag_get(ctx, 0)->file == NULL);
    float data[4] = { 1, 2, 3, 4 };
    int64_t shape[2] = { 2, 2 };
    lopt_tensor t = { "float32", 2, shape, data, sizeof data };
    CHECK(lopt_add_input(ctx, "x", &t) == 0);
    CHECK(lopt_run(ctx, m, NULL, &v) == -1);
    CHECK(strstr(lopt_last_error(ctx), "the array holds float32 (2, 2), but main declares float32 (2, 3)") != NULL);
    t.dtype = "float33";
    CHECK(lopt_add_input(ctx, "y", &t) == -1);
    lopt_clear_inputs(ctx);
    lopt_module_free(m);
    lopt_diag_clear(ctx);
}

static void test_run(lopt_context *ctx)
{
    lopt_module *m = lopt_parse(ctx, ADD, strlen(ADD), "add.tir");
    CHECK(m != NULL);
    float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6] = { 0.5f, 0.5f, 0.5f, -1, -1, -1 };
    int64_t shape[2] = { 2, 3 };
    lopt_tensor tx = { "float32", 2, shape, x, sizeof x }, ty = { "float32", 2, shape, y, sizeof y };
    CHECK(lopt_add_input(ctx, "x", &tx) == 0 && lopt_add_input(ctx, "y", &ty) == 0);
    /* the same handles, run three times, and once after a pipeline */
    for (int round = 0; round < 4; round++) {
        if (round == 3) {
            lopt_pipeline *p = lopt_pipeline_new();
            CHECK(lopt_pipeline_append(ctx, p, "legalize") == 0);
            lopt_set_verify_exec(ctx, 1, 0);
            CHECK(lopt_apply(ctx, m, p) == 0);
            lopt_set_verify_exec(ctx, 0, 0);
            CHECK(strstr(lopt_report_text(ctx), "lopt: verify-exec: 1 pass checked, 1 output compared") != NULL);
            lopt_pipeline_free(p);
        }
        lopt_value *v = NULL;
        CHECK(lopt_run(ctx, m, "main", &v) == 0);
        lopt_tensor out;
        CHECK(v && lopt_value_kind_of(v) == LOPT_VALUE_TENSOR && lopt_value_tensor(v, &out) == 0);
        CHECK(strcmp(out.dtype, "float32") == 0 && out.ndim == 2 && out.shape[1] == 3 && out.nbytes == 24);
        const float *o = out.data;
        for (int i = 0; i < 6; i++)
            CHECK(o[i] == x[i] + y[i]);
        lopt_value_free(v);
    }
    /* the HTML report of a pipeline whose pass fails (add has no constant to perturb),
     * with the diagnostics printed nowhere */
    char page[] = "/tmp/lopt-api-test-XXXXXX";
    int fd = mkstemp(page);
    CHECK(fd >= 0);
    close(fd);
    lopt_pipeline *bad = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, bad, "test-perturb") == 0);
    lopt_set_html_report(ctx, page);
    lopt_set_verify_exec(ctx, 1, 0);
    lopt_diag_clear(ctx);
    lopt_module *copy = lopt_module_clone(ctx, m);
    CHECK(copy && lopt_apply(ctx, copy, bad) == -1);
    CHECK(lopt_last_error(ctx) && strstr(lopt_last_error(ctx), "test-perturb: main has no float constant") != NULL);
    lopt_set_verify_exec(ctx, 0, 0);
    lopt_set_html_report(ctx, NULL);
    FILE *f = fopen(page, "r");
    char head[64] = "";
    CHECK(f && fgets(head, sizeof head, f) && strstr(head, "<!DOCTYPE html>") != NULL);
    if (f)
        fclose(f);
    unlink(page);
    lopt_module_free(copy);
    lopt_pipeline_free(bad);
    lopt_diag_clear(ctx);
    lopt_report_clear(ctx);
    char *text = lopt_module_print(m, LOPT_STYLE_CANONICAL);
    CHECK(text && strstr(text, "R.call_tir(cls.add") != NULL);
    lopt_free(text);
    lopt_clear_inputs(ctx);
    lopt_report_clear(ctx);
    lopt_module_free(m);
}

static void test_maps(lopt_context *ctx)
{
    int64_t box[4] = { 1, 6, 8, 8 };
    lopt_indexmap *m = lopt_indexmap_new(ctx, "NCHW:NCHW4c", box, 4, NULL);
    CHECK(m != NULL);
    char *t = lopt_indexmap_text(m);
    CHECK(strcmp(t, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)") == 0);
    lopt_free(t);
    CHECK(lopt_indexmap_kind(m, NULL, NULL) == LOPT_MAP_PADDED);
    CHECK(lopt_indexmap_rank(m, 1) == 5 && lopt_indexmap_shape(m, 1)[1] == 2);
    char *pad = lopt_indexmap_padding(m);
    CHECK(pad && strstr(pad, "c4") != NULL);
    lopt_free(pad);
    int64_t at[4] = { 0, 5, 1, 2 }, y[5];
    CHECK(lopt_indexmap_apply(ctx, m, at, y) == 0 && y[1] == 1 && y[4] == 1);
    at[1] = 6;
    CHECK(lopt_indexmap_apply(ctx, m, at, y) == -1);
    lopt_indexmap *inv = lopt_indexmap_inverse(ctx, m);
    CHECK(inv && lopt_indexmap_rank(inv, 0) == 5 && lopt_indexmap_rank(inv, 1) == 4);
    /* NCHW4c and back is the identity, but onto a box padded to 8 channels */
    lopt_indexmap *back = lopt_indexmap_new(ctx, "NCHW4c:NCHW", lopt_indexmap_shape(m, 1), 5, NULL);
    lopt_indexmap *id = back ? lopt_indexmap_compose(ctx, m, back) : NULL;
    CHECK(id && lopt_indexmap_kind(id, NULL, NULL) == LOPT_MAP_PADDED && lopt_indexmap_shape(id, 1)[1] == 8);
    t = id ? lopt_indexmap_text(id) : NULL;
    CHECK(t && strcmp(t, "lambda n, c, h, w: (n, c, h, w)") == 0);
    lopt_free(t);
    int64_t nhwc_box[4] = { 1, 8, 2, 3 };
    lopt_indexmap *nhwc = lopt_indexmap_new(ctx, "NCHW:NHWC", nhwc_box, 4, NULL);
    lopt_indexmap *nchw = nhwc ? lopt_indexmap_new(ctx, "NHWC:NCHW", lopt_indexmap_shape(nhwc, 1), 4, NULL) : NULL;
    lopt_indexmap *same = nchw ? lopt_indexmap_compose(ctx, nhwc, nchw) : NULL;
    CHECK(same && lopt_indexmap_kind(same, NULL, NULL) == LOPT_MAP_IDENTITY);
    CHECK(lopt_indexmap_compose(ctx, nhwc, m) == NULL);   /* boxes that do not meet */
    lopt_indexmap_free(same);
    lopt_indexmap_free(nchw);
    lopt_indexmap_free(nhwc);
    int64_t small[2] = { 4, 4 };
    lopt_indexmap *dup = lopt_indexmap_new(ctx, "lambda i, j: (i + j,)", small, 2, NULL);
    int64_t a[2], b[2];
    CHECK(dup && lopt_indexmap_kind(dup, a, b) == LOPT_MAP_NOT_INJECTIVE && a[0] + a[1] == b[0] + b[1]);
    CHECK(dup && lopt_indexmap_no_inverse(dup) != NULL && lopt_indexmap_inverse(ctx, dup) == NULL);
    lopt_diag_clear(ctx);
    CHECK(lopt_indexmap_new(ctx, "lambda i: (i // 0,)", small, 1, "<map>") == NULL);
    CHECK(lopt_error_count(ctx) == 1);
    lopt_diag_clear(ctx);
    lopt_indexmap_free(dup);
    lopt_indexmap_free(id);
    lopt_indexmap_free(back);
    lopt_indexmap_free(inv);
    lopt_indexmap_free(m);
}

static void test_explain(lopt_context *ctx, const char *text, size_t len)
{
    lopt_module *m = lopt_parse(ctx, text, len, "conv.tir");
    CHECK(m && lopt_verify(ctx, m) == 0);
    lopt_module *copy = lopt_module_clone(ctx, m);
    lopt_pipeline *p = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, p, "hoist,flow,fold") == 0);
    lopt_set_explain(ctx, 1);
    CHECK(lopt_apply(ctx, copy, p) == 0);
    lopt_set_explain(ctx, 0);
    lopt_explain_record *r;
    int n = lopt_explain_parse(lopt_report_text(ctx), &r);
    CHECK(n >= 3);
    int flow = 0;
    for (int i = 0; i < n; i++)
        flow += strcmp(r[i].pass, "flow") == 0 && strcmp(r[i].file, "conv.tir") == 0;
    CHECK(flow >= 1);
    lopt_explain_free(r, n);
    lopt_report_clear(ctx);
    n = lopt_explain_parse("a table line\nf.tir:3:4: flow: left: x\nf.tir: fold: 1 moved\n", &r);
    CHECK(n == 3 && strcmp(r[0].message, "a table line") == 0 && r[0].pass[0] == 0);
    CHECK(n == 3 && r[1].line == 3 && r[1].column == 4 && strcmp(r[1].pass, "flow") == 0 &&
          strcmp(r[1].message, "left: x") == 0 && strcmp(r[1].file, "f.tir") == 0);
    CHECK(n == 3 && r[2].line == 0 && strcmp(r[2].message, "1 moved") == 0);
    lopt_explain_free(r, n);
    /* the original is untouched; the copy changed, and copies again */
    char *a = lopt_module_print(m, LOPT_STYLE_CANONICAL), *b = lopt_module_print(copy, LOPT_STYLE_CANONICAL);
    CHECK(a && b && strcmp(a, b) != 0);
    lopt_module *again = lopt_module_clone(ctx, copy);
    char *c = again ? lopt_module_print(again, LOPT_STYLE_CANONICAL) : NULL;
    CHECK(c && strcmp(b, c) == 0);
    lopt_free(a);
    lopt_free(b);
    lopt_free(c);
    lopt_module_free(again);
    lopt_module_free(copy);
    lopt_module_free(m);
    lopt_pipeline_free(p);
}

/* A copy owns what it was read with: the constants file may be gone, or
 * another one named on the context, and the copy runs on the module's own
 * weights; it is verified as the module was, so legalize lowers on it what
 * it lowers on the module (the items of a tuple among them). */
static void test_clone(lopt_context *ctx, const char *top)
{
    static const char *consts =
        "@I.ir_module\nclass Module:\n    @R.function\n"
        "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
        "        lv: R.Tensor((2, 3), dtype=\"float32\") = R.add(x, metadata[\"relax.expr.Constant\"][0])\n"
        "        return lv\n";
    char path[4096], npz[] = "/tmp/lopt-api-test-XXXXXX";
    size_t n;
    snprintf(path, sizeof path, "%s/testsuite/exec/data/consts.npz", top);
    char *data = slurp(path, &n);
    int fd = mkstemp(npz);
    CHECK(fd >= 0 && write(fd, data, n) == (ssize_t)n);
    close(fd);
    free(data);
    lopt_set_constants(ctx, npz);
    lopt_module *m = lopt_parse(ctx, consts, strlen(consts), "c.tir");
    CHECK(m && lopt_verify(ctx, m) == 0);
    unlink(npz);
    lopt_set_constants(ctx, "/nonexistent/other.npz");
    lopt_module *c = m ? lopt_module_clone(ctx, m) : NULL;
    lopt_module *cc = c ? lopt_module_clone(ctx, c) : NULL;
    lopt_set_constants(ctx, NULL);
    CHECK(c && cc && lopt_error_count(ctx) == 0);
    lopt_value *a = NULL, *b = NULL;
    lopt_tensor ta, tb;
    CHECK(m && lopt_run(ctx, m, NULL, &a) == 0 && lopt_value_tensor(a, &ta) == 0);
    CHECK(cc && lopt_run(ctx, cc, NULL, &b) == 0 && lopt_value_tensor(b, &tb) == 0);
    CHECK(a && b && ta.nbytes == 24 && tb.nbytes == 24 && memcmp(ta.data, tb.data, 24) == 0);
    lopt_value_free(a);
    lopt_value_free(b);
    lopt_module_free(cc);
    lopt_module_free(c);
    lopt_module_free(m);

    static const char *items =
        "@I.ir_module\nclass Module:\n    @R.function\n"
        "    def main(x: R.Tensor((1, 2, 3, 3), dtype=\"float32\")):\n"
        "        t = (x, x)\n        a = t[0]\n        b = R.nn.relu(a)\n        return b\n";
    m = lopt_parse(ctx, items, strlen(items), "items.tir");
    CHECK(m && lopt_verify(ctx, m) == 0);
    c = m ? lopt_module_clone(ctx, m) : NULL;
    lopt_pipeline *p = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, p, "legalize") == 0);
    CHECK(c && lopt_apply(ctx, c, p) == 0);
    char *text = c ? lopt_module_print(c, LOPT_STYLE_CANONICAL) : NULL;
    CHECK(text && strstr(text, "b = R.call_tir(cls.relu, (a,)") != NULL);
    lopt_free(text);
    lopt_pipeline_free(p);
    lopt_module_free(c);
    lopt_module_free(m);
    lopt_diag_clear(ctx);
}

/* A NULL where a handle or a string is needed is refused by the call that
 * takes it, as a usage error; nothing of it is kept to fail later. */
static void test_null_arguments(lopt_context *ctx)
{
    lopt_module *m = lopt_parse(ctx, ADD, strlen(ADD), "add.tir");
    lopt_value *v = NULL;
    CHECK(lopt_add_input_file(ctx, "x", NULL) == -1);
    const lopt_diag *d = lopt_diag_get(ctx, 0);
    CHECK(d && d->status == LOPT_EUSAGE && d->file == NULL &&
          strcmp(d->message, "lopt_add_input_file: the argument 'path' is NULL") == 0);
    CHECK(lopt_add_input_shape(ctx, "x", NULL) == -1 && lopt_add_input_shape(ctx, NULL, "2,3") == -1);
    CHECK(lopt_error_count(ctx) == 3);
    /* nothing was kept: the run seeds both inputs */
    CHECK(lopt_run(ctx, m, NULL, &v) == 0 && v != NULL);
    lopt_value_free(v);
    CHECK(lopt_parse(ctx, NULL, 0, NULL) == NULL && strstr(lopt_last_error(ctx), "'text' is NULL"));
    CHECK(lopt_parse(NULL, ADD, strlen(ADD), NULL) == NULL);
    CHECK(lopt_verify(ctx, NULL) == -1 && lopt_module_clone(ctx, NULL) == NULL);
    CHECK(lopt_run(ctx, NULL, NULL, &v) == -1 && v == NULL && lopt_run(ctx, m, NULL, NULL) == -1);
    lopt_pipeline *p = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, p, NULL) == -1 && lopt_pipeline_append(ctx, NULL, "fold") == -1);
    CHECK(lopt_apply(ctx, m, NULL) == -1 && lopt_apply(ctx, NULL, p) == -1);
    CHECK(lopt_add_input(ctx, NULL, NULL) == -1 && lopt_add_print_after(ctx, NULL) == -1);
    int64_t dims[2] = { 2, 3 };
    lopt_tensor no_data = { "float32", 2, dims, NULL, 24 };
    CHECK(lopt_add_input(ctx, "x", &no_data) == -1 &&
          strcmp(lopt_last_error(ctx), "lopt_add_input: input x: the tensor's data is NULL") == 0);
    int64_t box[2] = { 4, 4 };
    CHECK(lopt_indexmap_new(ctx, NULL, box, 2, NULL) == NULL && lopt_indexmap_new(ctx, "NCHW:NHWC", NULL, 4, NULL) == NULL);
    CHECK(lopt_indexmap_inverse(ctx, NULL) == NULL && lopt_indexmap_compose(ctx, NULL, NULL) == NULL);
    CHECK(lopt_expect_read(ctx, NULL, 0, NULL) == NULL);
    CHECK(lopt_value_report(ctx, NULL, stdout, NULL) == -1);
    int usage = 0;
    for (int i = 0; i < lopt_diag_count(ctx); i++)
        usage += lopt_diag_get(ctx, i)->status == LOPT_EUSAGE;
    CHECK(usage == lopt_error_count(ctx) && usage == 21);
    /* the functions without a context, and a NULL context, do nothing */
    CHECK(lopt_module_print(NULL, LOPT_STYLE_CANONICAL) == NULL && lopt_module_write(NULL, 0, stdout) == -1);
    CHECK(lopt_pipeline_length(NULL) == 0 && lopt_pipeline_step_name(NULL, 0) == NULL);
    CHECK(lopt_indexmap_text(NULL) == NULL && lopt_indexmap_rank(NULL, 0) == -1);
    CHECK(lopt_value_tensor(NULL, NULL) == -1 && lopt_value_tuple_item(NULL, 0) == NULL);
    CHECK(lopt_explain_parse(NULL, NULL) == -1 && lopt_parse_ints(NULL, NULL, 4, 0) == -1);
    CHECK(lopt_diag_count(NULL) == 0 && lopt_last_error(NULL) == NULL && lopt_diag_get(NULL, 0) == NULL);
    lopt_set_seed(NULL, 3);
    lopt_diag_clear(NULL);
    lopt_pipeline_free(p);
    lopt_module_free(m);
    lopt_diag_clear(ctx);
}

/* What lopt_diag_get and lopt_last_error return stays put while later
 * calls add diagnostics, until lopt_diag_clear. */
static void test_diag_lifetime(lopt_context *ctx)
{
    lopt_module *m = lopt_parse(ctx, "x", 1, "a.tir");
    const lopt_diag *d = lopt_diag_get(ctx, 0);
    const char *msg = lopt_last_error(ctx);
    CHECK(m == NULL && d && msg);
    char first[256];
    snprintf(first, sizeof first, "%s:%d:%d: %s", d->file, d->line, d->column, msg);
    for (int i = 0; i < 50; i++)
        lopt_module_free(lopt_parse(ctx, "x", 1, "b.tir"));
    char again[256];
    snprintf(again, sizeof again, "%s:%d:%d: %s", d->file, d->line, d->column, msg);
    CHECK(lopt_diag_count(ctx) >= 51 && lopt_diag_get(ctx, 0) == d && strcmp(first, again) == 0);
    lopt_diag_clear(ctx);
}

/* One thread's work on one module: read, pipeline, print, run; the outputs printed. */
typedef struct Work {
    const char *text, *pipeline;
    size_t len;
    char *result;
} Work;

static char *work(const Work *w)
{
    lopt_context *ctx = lopt_context_new();
    lopt_module *m = lopt_parse(ctx, w->text, w->len, "w.tir");
    lopt_pipeline *p = lopt_pipeline_new();
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    lopt_value *v = NULL;
    if (m && !lopt_verify(ctx, m) && !lopt_pipeline_append(ctx, p, w->pipeline) && !lopt_apply(ctx, m, p) &&
        !lopt_module_write(m, LOPT_STYLE_TVM, f) && !lopt_run(ctx, m, NULL, &v))
        lopt_value_report(ctx, v, f, NULL);
    fprintf(f, "errors: %d\n", lopt_error_count(ctx));
    fclose(f);
    lopt_value_free(v);
    lopt_pipeline_free(p);
    lopt_module_free(m);
    lopt_context_free(ctx);
    return out;
}

static void *thread_main(void *arg)
{
    Work *w = arg;
    for (int i = 0; i < 3; i++) {
        char *r = work(w);
        if (!w->result)
            w->result = r;
        else {
            CHECK(strcmp(r, w->result) == 0);
            free(r);
        }
    }
    return NULL;
}

static void test_threads(const char *t1, size_t n1, const char *t2, size_t n2)
{
    Work a = { t1, "convert-layout{conv2d=NCHW4c:OIHW4o},plan,fold", n1, NULL };
    Work b = { t2, "legalize,flow,fold", n2, NULL };
    char *ra = work(&a), *rb = work(&b);
    CHECK(strstr(ra, "errors: 0") && strstr(rb, "errors: 0"));
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.result && strcmp(a.result, ra) == 0);
    CHECK(b.result && strcmp(b.result, rb) == 0);
    free(a.result);
    free(b.result);
    free(ra);
    free(rb);
}

/* An interrupt flag set before the call stops it at its first chance: the
 * run at main's first binding, the pipeline before its first pass; both
 * errors, and a budget's, have status LOPT_ELIMIT. */
static void test_limits(lopt_context *ctx)
{
    static volatile sig_atomic_t flag = 1;
    lopt_module *m = lopt_parse(ctx, ADD, strlen(ADD), "add.tir");
    CHECK(m && lopt_verify(ctx, m) == 0);
    lopt_set_interrupt(ctx, &flag);
    lopt_value *v = NULL;
    CHECK(lopt_run(ctx, m, NULL, &v) == -1 && v == NULL);
    const lopt_diag *d = lopt_diag_get(ctx, 0);
    CHECK(d && d->status == LOPT_ELIMIT && d->line == 5 && strcmp(d->message, "the run was interrupted at this binding") == 0);
    lopt_diag_clear(ctx);
    lopt_pipeline *p = lopt_pipeline_new();
    CHECK(lopt_pipeline_append(ctx, p, "legalize,fold") == 0);
    CHECK(lopt_apply(ctx, m, p) == -1);
    d = lopt_diag_get(ctx, 0);
    CHECK(d && d->status == LOPT_ELIMIT && strcmp(d->message, "the pipeline was interrupted before pass 'legalize'") == 0);
    lopt_diag_clear(ctx);
    flag = 0;
    CHECK(lopt_apply(ctx, m, p) == 0 && lopt_run(ctx, m, NULL, &v) == 0);
    lopt_value_free(v);
    lopt_set_interrupt(ctx, NULL);
    lopt_set_max_memory(ctx, 16);
    CHECK(lopt_run(ctx, m, NULL, &v) == 0);   /* tensors under 4 kB are counted, not refused */
    lopt_value_free(v);
    lopt_set_max_memory(ctx, 0);
    lopt_set_max_steps(ctx, 1);
    CHECK(lopt_run(ctx, m, NULL, &v) == -1);
    d = lopt_diag_get(ctx, 0);
    CHECK(d && d->status == LOPT_ELIMIT && strstr(d->message, "--max-steps 1") != NULL);
    lopt_set_max_steps(ctx, 1000000000);
    lopt_diag_clear(ctx);
    lopt_pipeline_free(p);
    lopt_module_free(m);
}

int main(int argc, char **argv)
{
    const char *top = argc > 1 ? argv[1] : ".";
    char path[4096];
    size_t n1, n2;
    snprintf(path, sizeof path, "%s/examples/conv_add_conv_nchwc.tir", top);
    char *conv = slurp(path, &n1);
    snprintf(path, sizeof path, "%s/examples/conv_relu_conv_nhwc.tir", top);
    char *nhwc = slurp(path, &n2);
    /* standard error to a file: the library must write nothing to it */
    FILE *err = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    report = fdopen(dup(saved), "w");
    setvbuf(report, NULL, _IONBF, 0);
    dup2(fileno(err), 2);

    CHECK(strcmp(lopt_version(), "0.1.0") == 0);
    CHECK(lopt_pass_count() > 10 && strcmp(lopt_pass_name(0), "annotate-scope") == 0);
    char *ops = lopt_ops_table();
    CHECK(ops && strncmp(ops, "operator", 8) == 0);
    lopt_free(ops);
    lopt_context *ctx = lopt_context_new();
    test_errors(ctx);
    test_run(ctx);
    test_maps(ctx);
    test_explain(ctx, conv, n1);
    test_clone(ctx, top);
    test_null_arguments(ctx);
    test_diag_lifetime(ctx);
    test_threads(nhwc, n2, conv, n1);
    test_limits(ctx);
    lopt_context_free(ctx);

    fflush(stderr);
    long written = ftell(err) >= 0 ? (long)lseek(2, 0, SEEK_END) : -1;
    dup2(saved, 2);
    close(saved);
    fclose(report);
    report = NULL;
    if (written != 0) {
        fprintf(stderr, "api_test: the library wrote %ld bytes to standard error:\n", written);
        rewind(err);
        char buf[512];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, err)) > 0)
            fwrite(buf, 1, got, stderr);
        failures++;
    }
    fclose(err);
    free(conv);
    free(nhwc);
    if (failures)
        fprintf(stderr, "api_test: %d checks failed\n", failures);
    else
        printf("api_test: all checks passed\n");
    return failures != 0;
}
