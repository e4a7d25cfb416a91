/* Imports an AutoTVM tuning log (one JSON record a line) into a cost table:
 * the x86 conv2d records (conv2d_NCHWc.x86), their layout NCHW[x]c from
 * tile_ic and tile_oc, the best time per workload and layout. The JSON
 * reader here reads what such a log holds (objects, arrays, strings,
 * numbers, true, false, null), within stated depth and size limits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"

enum { JSON_MAX_DEPTH = 64 };

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JKind;

typedef struct Json {
    JKind kind;
    double num;
    char *str;            /* J_STR; J_OBJ: the keys in keys */
    struct Json *items;
    char **keys;
    int n;
} Json;

typedef struct JReader {
    const char *p, *end, *bol;
    const char *err;
    const char *at;
} JReader;

static void jfree(Json *j)
{
    for (int i = 0; i < j->n; i++) {
        jfree(&j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
}

static void skip_ws(JReader *R)
{
    while (R->p < R->end && (*R->p == ' ' || *R->p == '\t' || *R->p == '\r'))
        R->p++;
}

static int jfail(JReader *R, const char *msg)
{
    if (!R->err) {
        R->err = msg;
        R->at = R->p;
    }
    return -1;
}

static int jstring(JReader *R, char **out)
{
    R->p++;   /* the quote */
    const char *s = R->p;
    while (R->p < R->end && *R->p != '"') {
        if (*R->p == '\\' && R->p + 1 < R->end)
            R->p++;
        R->p++;
    }
    if (R->p >= R->end)
        return jfail(R, "an unterminated string");
    size_t n = (size_t)(R->p - s);
    *out = malloc(n + 1);
    if (!*out)
        return jfail(R, "out of memory");
    memcpy(*out, s, n);   /* escapes are kept as written: the names read here have none */
    (*out)[n] = 0;
    R->p++;
    return 0;
}

static int jvalue(JReader *R, Json *j, int depth);

static int jlist(JReader *R, Json *j, int depth, char close, int obj)
{
    R->p++;
    skip_ws(R);
    if (R->p < R->end && *R->p == close) {
        R->p++;
        return 0;
    }
    for (int cap = 0;;) {
        if (j->n == cap) {
            cap = cap ? 2 * cap : 4;
            Json *g = realloc(j->items, (size_t)cap * sizeof *g);
            char **k = obj ? realloc(j->keys, (size_t)cap * sizeof *k) : NULL;
            if (g)
                j->items = g;
            if (k)
                j->keys = k;
            if (!g || (obj && !k))
                return jfail(R, "out of memory");
        }
        skip_ws(R);
        char *key = NULL;
        if (obj) {
            if (R->p >= R->end || *R->p != '"')
                return jfail(R, "expected a key in quotes");
            if (jstring(R, &key))
                return -1;
            skip_ws(R);
            if (R->p >= R->end || *R->p != ':') {
                free(key);
                return jfail(R, "expected ':' after the key");
            }
            R->p++;
        }
        memset(&j->items[j->n], 0, sizeof j->items[0]);
        if (obj)
            j->keys[j->n] = key;
        j->n++;
        if (jvalue(R, &j->items[j->n - 1], depth + 1))
            return -1;
        skip_ws(R);
        if (R->p < R->end && *R->p == ',') {
            R->p++;
            continue;
        }
        if (R->p < R->end && *R->p == close) {
            R->p++;
            return 0;
        }
        return jfail(R, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
    }
}

static int jvalue(JReader *R, Json *j, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return jfail(R, "nested more than 64 deep");
    skip_ws(R);
    if (R->p >= R->end)
        return jfail(R, "expected a value");
    char c = *R->p;
    if (c == '{')
        return j->kind = J_OBJ, jlist(R, j, depth, '}', 1);
    if (c == '[')
        return j->kind = J_ARR, jlist(R, j, depth, ']', 0);
    if (c == '"')
        return j->kind = J_STR, jstring(R, &j->str);
    static const char *const words[] = { "true", "false", "null" };
    for (int w = 0; w < 3; w++) {
        size_t n = strlen(words[w]);
        if ((size_t)(R->end - R->p) >= n && memcmp(R->p, words[w], n) == 0) {
            R->p += n;
            j->kind = w == 2 ? J_NULL : J_BOOL;
            j->num = w == 0;
            return 0;
        }
    }
    char buf[64];
    size_t n = 0;
    while (R->p + n < R->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", R->p[n]))
        n++;
    memcpy(buf, R->p, n);
    buf[n] = 0;
    char *e;
    j->num = strtod(buf, &e);
    if (n == 0 || *e)
        return jfail(R, "expected a value");
    j->kind = J_NUM;
    R->p += n;
    return 0;
}

static const Json *jget(const Json *j, const char *key)
{
    for (int i = 0; j && j->kind == J_OBJ && i < j->n; i++)
        if (strcmp(j->keys[i], key) == 0)
            return &j->items[i];
    return NULL;
}

static const Json *jat(const Json *j, int i)
{
    return j && j->kind == J_ARR && i < j->n ? &j->items[i] : NULL;
}

static int jints(const Json *j, int64_t *v, int max)
{
    if (!j || j->kind != J_ARR || j->n > max)
        return -1;
    for (int i = 0; i < j->n; i++) {
        if (j->items[i].kind != J_NUM || j->items[i].num != floor(j->items[i].num) || fabs(j->items[i].num) > 1e9)
            return -1;
        v[i] = (int64_t)j->items[i].num;
    }
    return j->n;
}

/* The tile factor entity name holds ([name, "sp", [-1, f]]): f, or 0. */
static int64_t tile_of(const Json *entity, const char *name)
{
    for (int i = 0; entity && entity->kind == J_ARR && i < entity->n; i++) {
        const Json *e = &entity->items[i], *nm = jat(e, 0), *sp = jat(e, 2);
        int64_t v[8];
        int n = jints(sp, v, 8);
        if (nm && nm->kind == J_STR && strcmp(nm->str, name) == 0 && n >= 2)
            return v[n - 1];
    }
    return 0;
}

/* One record: 1 imported, 0 skipped as another operator or a failed run,
 * 2 skipped as a layout lopt cannot express, -1 malformed (R->err). */
static int import_record(const Json *rec, CostTable *t)
{
    const Json *in = jget(rec, "input"), *res = jget(rec, "result"), *cfg = jget(rec, "config");
    const Json *task = jat(in, 1), *args = jat(in, 2), *costs = jat(res, 0), *errno_ = jat(res, 1);
    if (!task || task->kind != J_STR || !args || !costs || costs->kind != J_ARR || !errno_)
        return -1;
    if (strcmp(task->str, "conv2d_NCHWc.x86") != 0 || errno_->kind != J_NUM || errno_->num != 0 || costs->n == 0)
        return 0;
    int64_t d[4], k[4], s[2], p[4], dl[2];
    const Json *dt = jat(jat(args, 0), 2);
    int np = jints(jat(args, 3), p, 4);
    if (jints(jat(jat(args, 0), 1), d, 4) != 4 || jints(jat(jat(args, 1), 1), k, 4) != 4 || jints(jat(args, 2), s, 2) != 2 ||
        (np != 2 && np != 4) || jints(jat(args, 4), dl, 2) != 2 || !dt || dt->kind != J_STR)
        return -1;
    const Json *layout = jat(args, 5), *out_layout = jat(args, 6);
    if (!layout || layout->kind != J_STR || strcmp(layout->str, "NCHW") != 0 || !out_layout ||
        out_layout->kind != J_STR || strcmp(out_layout->str, "NCHW") != 0)
        return 2;
    if (np == 2)
        p[2] = p[0], p[3] = p[1];
    const Json *entity = jget(cfg, "entity");
    int64_t ic = tile_of(entity, "tile_ic"), oc = tile_of(entity, "tile_oc");
    /* lopt converts a call to one data layout, its result's too: NCHW[x]c
     * in and out, the kernel OIHW[x]i[x]o, so tile_ic must equal tile_oc */
    if (ic <= 0 || oc <= 0 || ic != oc || d[1] % ic || k[0] % oc)
        return 2;
    double sum = 0;
    for (int i = 0; i < costs->n; i++) {
        if (costs->items[i].kind != J_NUM || !(costs->items[i].num >= 0))
            return -1;
        sum += costs->items[i].num;
    }
    char wl[512], lay[96];
    snprintf(wl, sizeof wl, "conv2d(%lldx%lldx%lldx%lld,%lldx%lldx%lldx%lld,%.16s,strides=%lldx%lld,padding=%lldx%lldx%lldx%lld,"
             "dilation=%lldx%lld,groups=1)", (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3],
             (long long)k[0], (long long)k[1], (long long)k[2], (long long)k[3], dt->str, (long long)s[0],
             (long long)s[1], (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3], (long long)dl[0],
             (long long)dl[1]);
    if (ic == 1)
        snprintf(lay, sizeof lay, "NCHW:OIHW");
    else
        snprintf(lay, sizeof lay, "NCHW%lldc:OIHW%lldi%lldo", (long long)ic, (long long)ic, (long long)oc);
    double ns = sum / costs->n * 1e9;
    if (ns > 1e12)
        return -1;
    if (strlen(wl) >= sizeof t->k[0].workload)
        return 2;
    return costs_add_kernel(t, wl, lay, ns, COST_IMPORTED) ? -1 : 1;
}

int costs_import_autotvm(const char *name, const char *text, size_t len, const Source *like, CostTable *t,
                         CostImport *counts)
{
    Source src = *like;
    src.name = name;
    src.text = text;
    src.len = len;
    src.errors = 0;
    src.mapped = 0;
    memset(counts, 0, sizeof *counts);
    const char *p = text;
    for (int line = 1; p < text + len; line++) {
        const char *eol = memchr(p, '\n', (size_t)(text + len - p));
        const char *end = eol ? eol : text + len;
        JReader R = { p, end, p, NULL, NULL };
        skip_ws(&R);
        if (R.p < end && *R.p != '#') {
            Json rec = { 0 };
            int rc = jvalue(&R, &rec, 0);
            skip_ws(&R);
            if (rc == 0 && R.p < end)
                rc = jfail(&R, "expected the end of the line after the record");
            if (rc == 0 && (rc = import_record(&rec, t)) < 0)
                R.at = p, R.err = "not an AutoTVM record (input, config, result)";
            jfree(&rec);
            if (rc < 0)
                return diag_error(&src, (Loc){ line, loc_col(R.at - p + 1) }, "%s", R.err);
            counts->records++;
            counts->imported += rc == 1;
            counts->inexpressible += rc == 2;
            counts->other += rc == 0;
        }
        p = eol ? eol + 1 : text + len;
    }
    return 0;
}
