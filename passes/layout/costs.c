/* The cost table: reading it (errors at file:line:col), finding lines,
 * writing it back. One line per kernel time or rewrite time; the format
 * is lopt(1)'s COST TABLES. */
#include "../../ir/oom.h"
#include "costs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/indexmap.h"

const char *const cost_source_names[COST_NSOURCES] = { "given", "measured", "imported", "estimated" };

static const char *const known_ops[] = { "conv2d", "max_pool2d", "avg_pool2d" };

int costs_knows_op(const char *op, size_t n)
{
    for (size_t i = 0; i < sizeof known_ops / sizeof known_ops[0]; i++)
        if (strlen(known_ops[i]) == n && memcmp(known_ops[i], op, n) == 0)
            return 1;
    return 0;
}

/* Whether l is a layout of the primal axes prims. */
static int is_layout(const char *prims, const char *l)
{
    Arena a = { 0 };
    arena_scratch(&a);
    Interner names;
    ImError e;
    intern_scratch(&names, &a);
    Expr *map = *l ? im_layout_map(&a, &names, prims, l, NULL, &e) : NULL;
    intern_scratch_end(&names);
    arena_scratch_end(&a);
    return map != NULL;
}

typedef struct Reader {
    Source src;
    CostTable *t;
    int line;
    const char *bol, *p;   /* the line's start, the next token */
} Reader;

static int fail(Reader *R, const char *at, const char *fmt, const char *arg)
{
    return diag_error(&R->src, (Loc){ R->line, loc_col(at - R->bol + 1) }, fmt, arg);
}

/* The next blank-separated token of the line: [*s, *s + n). */
static size_t token(Reader *R, const char **s)
{
    while (*R->p == ' ' || *R->p == '\t')
        R->p++;
    *s = R->p;
    while (*R->p && *R->p != ' ' && *R->p != '\t' && *R->p != '\n' && *R->p != '\r' && *R->p != '#')
        R->p++;
    return (size_t)(R->p - *s);
}

static int copy_tok(Reader *R, const char *s, size_t n, char *out, size_t cap, const char *what)
{
    if (n == 0)
        return fail(R, s, "expected %s", what);
    if (n >= cap)
        return fail(R, s, "%s is too long", what);
    memcpy(out, s, n);
    out[n] = 0;
    return 0;
}

static int read_time(Reader *R, double *ns)
{
    const char *s;
    size_t n = token(R, &s);
    char buf[64];
    if (copy_tok(R, s, n, buf, sizeof buf, "a time such as 12.5us"))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    double unit = strcmp(end, "ns") == 0 ? 1 : strcmp(end, "us") == 0 ? 1e3 : strcmp(end, "ms") == 0 ? 1e6
                  : strcmp(end, "s") == 0 ? 1e9 : 0;
    if (end == buf || errno || unit == 0 || !(v >= 0) || !isfinite(v * unit) || v * unit > 1e12)
        return fail(R, s, "'%s' is not a time: expected a number of ns, us, ms or s, such as 12.5us", buf);
    *ns = v * unit;
    return 0;
}

/* The optional source after the time, then the end of the line. */
static int read_tail(Reader *R, int *source)
{
    const char *s;
    size_t n = token(R, &s);
    char buf[32];
    *source = COST_GIVEN;
    if (n) {
        if (copy_tok(R, s, n, buf, sizeof buf, "a source"))
            return -1;
        int k = 0;
        while (k < COST_NSOURCES && strcmp(buf, cost_source_names[k]) != 0)
            k++;
        if (k == COST_NSOURCES)
            return fail(R, s, "unknown source '%s' (expected given, measured, imported or estimated)", buf);
        *source = k;
    }
    n = token(R, &s);
    if (n) {
        snprintf(buf, sizeof buf, "%.*s", (int)(n < 24 ? n : 24), s);
        return fail(R, s, "unexpected '%s' at the end of the line", buf);
    }
    return 0;
}

static int read_kernel(Reader *R)
{
    const char *ws, *ls;
    size_t wn = token(R, &ws);
    char wl[256], lay[64];
    if (copy_tok(R, ws, wn, wl, sizeof wl, "a workload such as conv2d(1x3x32x32,8x3x3x3,float32,...)"))
        return -1;
    const char *paren = strchr(wl, '(');
    size_t opn = paren ? (size_t)(paren - wl) : strlen(wl);
    if (!costs_knows_op(wl, opn)) {
        char op[64];
        snprintf(op, sizeof op, "%.*s", (int)(opn < 60 ? opn : 60), wl);
        return fail(R, ws, "unknown operator '%s' (expected conv2d, max_pool2d or avg_pool2d)", op);
    }
    if (!paren || wl[strlen(wl) - 1] != ')') {
        wl[opn] = 0;
        return fail(R, ws + opn, "expected the workload's operands and attributes in parentheses after '%s'", wl);
    }
    size_t ln = token(R, &ls);
    if (copy_tok(R, ls, ln, lay, sizeof lay, "a layout after the workload"))
        return -1;
    int conv = opn == 6;
    char *colon = strchr(lay, ':');
    int ok = conv ? colon && (*colon = 0, is_layout("NCHW", lay) && is_layout("OIHW", colon + 1))
                  : !colon && is_layout("NCHW", lay);
    if (colon)
        *colon = ':';
    if (!ok)
        return fail(R, ls, conv ? "'%s' is not a layout of conv2d: expected DATA:KERNEL over N, C, H, W and "
                                  "O, I, H, W, such as NCHW4c:OIHW4o"
                                : "'%s' is not a layout of a pool: expected one over N, C, H, W, such as NCHW4c",
                    lay);
    double ns;
    int source;
    if (read_time(R, &ns) || read_tail(R, &source))
        return -1;
    return costs_add_kernel(R->t, wl, lay, ns, source);
}

static int read_rewrite(Reader *R)
{
    const char *vs, *fs, *ts;
    char value[160], from[32], to[32];
    size_t vn = token(R, &vs);
    if (copy_tok(R, vs, vn, value, sizeof value, "a value such as float32[1x8x32x32]"))
        return -1;
    const char *br = strchr(value, '[');
    if (!br || br == value || value[strlen(value) - 1] != ']')
        return fail(R, vs, "'%s' is not a value: expected its dtype and NCHW shape, such as float32[1x8x32x32]",
                    value);
    size_t fn = token(R, &fs);
    if (copy_tok(R, fs, fn, from, sizeof from, "the layout the rewrite is from"))
        return -1;
    if (!is_layout("NCHW", from) && !is_layout("OIHW", from))
        return fail(R, fs, "'%s' is not a layout of N, C, H, W or O, I, H, W", from);
    size_t tn = token(R, &ts);
    if (copy_tok(R, ts, tn, to, sizeof to, "the layout the rewrite is to"))
        return -1;
    if (!is_layout("NCHW", to) && !is_layout("OIHW", to))
        return fail(R, ts, "'%s' is not a layout of N, C, H, W or O, I, H, W", to);
    double ns;
    int source;
    if (read_time(R, &ns) || read_tail(R, &source))
        return -1;
    return costs_add_rewrite(R->t, value, from, to, ns, source);
}

static int read_line(Reader *R)
{
    const char *s;
    size_t n = token(R, &s);
    if (n == 0)
        return 0;
    if (n == 6 && memcmp(s, "kernel", 6) == 0)
        return read_kernel(R);
    if (n == 7 && memcmp(s, "rewrite", 7) == 0)
        return read_rewrite(R);
    if (n == 11 && memcmp(s, "ns-per-byte", 11) == 0) {
        const char *vs;
        size_t vn = token(R, &vs);
        char buf[64], *end;
        if (copy_tok(R, vs, vn, buf, sizeof buf, "a number of ns per byte"))
            return -1;
        double v = strtod(buf, &end);
        if (end == buf || *end || !(v >= 0) || v > 1e9)
            return fail(R, vs, "'%s' is not a number of ns per byte", buf);
        R->t->ns_per_byte = v;
        if ((vn = token(R, &vs)) != 0) {
            snprintf(buf, sizeof buf, "%.*s", (int)(vn < 24 ? vn : 24), vs);
            return fail(R, vs, "unexpected '%s' at the end of the line", buf);
        }
        return 0;
    }
    char w[40];
    snprintf(w, sizeof w, "%.*s", (int)(n < 32 ? n : 32), s);
    return fail(R, s, "unknown line '%s' (expected kernel, rewrite or ns-per-byte)", w);
}

int costs_parse(const char *name, const char *text, size_t len, const Source *like, CostTable *t)
{
    Reader R = { .t = t };
    R.src = *like;
    R.src.name = name;
    R.src.text = text;
    R.src.len = len;
    R.src.errors = 0;
    R.src.mapped = 0;
    const char *p = text;
    for (R.line = 1; p < text + len; R.line++) {
        const char *eol = memchr(p, '\n', (size_t)(text + len - p));
        if (memchr(p, 0, (size_t)((eol ? eol : text + len) - p)))
            return diag_error(&R.src, (Loc){ R.line, 1 }, "a NUL byte in the cost table");
        R.bol = R.p = p;
        if (read_line(&R))
            return -1;
        p = eol ? eol + 1 : text + len;
    }
    return 0;
}

char *costs_slurp(const char *path, const Source *like, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    Source s = *like;
    s.name = path;
    s.text = NULL;
    s.len = 0;
    if (!f)
        return diag_error(&s, (Loc){ 0, 0 }, "cannot read this file: %s", strerror(errno)), NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *g = cap > ((size_t)256 << 20) ? NULL : xrealloc(buf, cap);
            if (!g) {
                free(buf);
                fclose(f);
                return diag_error(&s, (Loc){ 0, 0 }, "%s", cap > ((size_t)256 << 20) ? "larger than 256 MB"
                                  : "out of memory reading it"), NULL;
            }
            buf = g;
        }
        size_t got = fread(buf + len, 1, 4096, f);
        len += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    buf[len] = 0;
    *lenp = len;
    return buf;
}

int costs_read(const char *path, const Source *like, CostTable *t)
{
    size_t len;
    char *buf = costs_slurp(path, like, &len);
    if (!buf)
        return -1;
    int rc = costs_parse(path, buf, len, like, t);
    free(buf);
    return rc;
}

const char *costs_time(double ns, char *buf, size_t cap)
{
    if (ns < 1e3)
        snprintf(buf, cap, "%.6gns", ns);
    else if (ns < 1e6)
        snprintf(buf, cap, "%.6gus", ns / 1e3);
    else
        snprintf(buf, cap, "%.6gms", ns / 1e6);
    return buf;
}

void costs_write(FILE *f, const CostTable *t)
{
    char b[64];
    fprintf(f, "# lopt cost table: kernel WORKLOAD LAYOUT TIME SOURCE, rewrite VALUE FROM TO TIME SOURCE\n");
    if (t->ns_per_byte > 0)
        fprintf(f, "ns-per-byte %.6g\n", t->ns_per_byte);
    for (int i = 0; i < t->nk; i++)
        fprintf(f, "kernel %s %s %s %s\n", t->k[i].workload, t->k[i].layout, costs_time(t->k[i].ns, b, sizeof b),
                cost_source_names[t->k[i].source]);
    for (int i = 0; i < t->nr; i++)
        fprintf(f, "rewrite %s %s %s %s %s\n", t->r[i].value, t->r[i].from, t->r[i].to,
                costs_time(t->r[i].ns, b, sizeof b), cost_source_names[t->r[i].source]);
}

CostKernel *costs_kernel(CostTable *t, const char *workload, const char *layout)
{
    for (int i = 0; i < t->nk; i++)
        if (strcmp(t->k[i].workload, workload) == 0 && strcmp(t->k[i].layout, layout) == 0)
            return &t->k[i];
    return NULL;
}

CostRewrite *costs_rewrite(CostTable *t, const char *value, const char *from, const char *to)
{
    for (int i = 0; i < t->nr; i++)
        if (strcmp(t->r[i].value, value) == 0 && strcmp(t->r[i].from, from) == 0 && strcmp(t->r[i].to, to) == 0)
            return &t->r[i];
    return NULL;
}

static void *grow(void *p, int n, int *cap, size_t size)
{
    if (n < *cap)
        return p;
    int nc = *cap ? 2 * *cap : 16;
    void *g = xrealloc(p, (size_t)nc * size);
    if (g)
        *cap = nc;
    return g;
}

int costs_add_kernel(CostTable *t, const char *workload, const char *layout, double ns, int source)
{
    CostKernel *k = costs_kernel(t, workload, layout);
    if (k) {
        if (ns < k->ns)
            k->ns = ns, k->source = source;
        return 0;
    }
    CostKernel *g = grow(t->k, t->nk, &t->capk, sizeof *g);
    if (!g)
        return -1;
    t->k = g;
    k = &t->k[t->nk++];
    memset(k, 0, sizeof *k);
    snprintf(k->workload, sizeof k->workload, "%s", workload);
    snprintf(k->layout, sizeof k->layout, "%s", layout);
    k->ns = ns;
    k->source = source;
    return 0;
}

int costs_add_rewrite(CostTable *t, const char *value, const char *from, const char *to, double ns, int source)
{
    CostRewrite *r = costs_rewrite(t, value, from, to);
    if (r) {
        if (ns < r->ns)
            r->ns = ns, r->source = source;
        return 0;
    }
    CostRewrite *g = grow(t->r, t->nr, &t->capr, sizeof *g);
    if (!g)
        return -1;
    t->r = g;
    r = &t->r[t->nr++];
    memset(r, 0, sizeof *r);
    snprintf(r->value, sizeof r->value, "%s", value);
    snprintf(r->from, sizeof r->from, "%s", from);
    snprintf(r->to, sizeof r->to, "%s", to);
    r->ns = ns;
    r->source = source;
    return 0;
}

void costs_free(CostTable *t)
{
    free(t->k);
    free(t->r);
    memset(t, 0, sizeof *t);
}
