/* --verify-diagnostics: reads what a test file expects from its comments and
 * matches it against the diagnostics lopt wrote, read back from their text
 * (file:line:col: kind: message), as a diagnostic stream shows them. */
#include "expect.h"
#include "internal.h"
#include "../ir/oom.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = { "error", "warning", "note" };

/* The kind named at p ("error" ...) followed by a character that ends a word, or NULL. */
static const char *kind_at(const char *p, const char **end)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i]);
        if (strncmp(p, kinds[i], n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '-' && p[n] != '_') {
            *end = p + n;
            return kinds[i];
        }
    }
    return NULL;
}

static void add(ExpectSet *set, Expected e)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 8;
        Expected *g = xrealloc(set->v, (size_t)set->cap * sizeof *g);
        if (!g)
            oom_fail();
        set->v = g;
    }
    set->v[set->n++] = e;
}

/* Reads "@+N", "@-N", "@N", "@above", "@below" or "@unknown" at *p (line is the
 * comment's); sets *target. Returns 0, 1 for @unknown, or -1 when malformed. */
static int where(const char **p, int line, int *target)
{
    const char *s = *p + 1;
    static const struct { const char *word; int delta; } words[] = { { "above", -1 }, { "below", 1 } };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strncmp(s, words[i].word, strlen(words[i].word)) == 0) {
            *target = line + words[i].delta;
            *p = s + strlen(words[i].word);
            return 0;
        }
    if (strncmp(s, "unknown", 7) == 0) {
        *target = 0;
        *p = s + 7;
        return 1;
    }
    int sign = *s == '+' ? 1 : *s == '-' ? -1 : 0;
    if (sign)
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)*s) && v < 100000000)   /* so that line + v fits an int */
        v = v * 10 + (*s++ - '0');
    if (isdigit((unsigned char)*s))
        return -1;
    *target = sign ? line + sign * (int)v : (int)v;
    *p = s;
    return 0;
}

/* The first t in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *t)
{
    size_t m = strlen(t);
    for (; p + m <= end; p++)
        if (memcmp(p, t, m) == 0)
            return p;
    return NULL;
}

/* Reads the directives in the comment of one line, [p, end). */
static int read_line(ExpectSet *set, Source *src, const char *start, const char *end, int line, int nlines)
{
    const char *p = memchr(start, '#', (size_t)(end - start));
    while (p) {
        const char *d = find(p, end, "expected-");
        if (!d)
            return 0;
        const char *q;
        const char *kind = kind_at(d + 9, &q);
        p = d + 9;
        if (!kind)
            continue;
        Loc at = { line, loc_col(d - start + 1) };
        int target = line, placed = *q == '@' ? where(&q, line, &target) : 0;
        if (placed < 0)
            return diag_error(src, at, "after '@' in expected-%s comes +N, -N, N, above, below or unknown", kind);
        if (!placed && (target < 1 || target > nlines))
            return diag_error(src, at, "expected-%s refers to line %d, outside the input (lines 1 to %d)", kind,
                              target, nlines);
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        const char *close = q + 2 <= end && strncmp(q, "{{", 2) == 0 ? find(q + 2, end, "}}") : NULL;
        if (!close)
            return diag_error(src, at, "expected-%s needs its message in {{...}} on the same line", kind);
        add(set, (Expected){ kind, target, at, q + 2, (int)(close - q - 2), 0 });
        p = close + 2;
    }
    return 0;
}

int expect_read(ExpectSet *set, Source *src)
{
    int nlines = 0;
    for (size_t i = 0; i < src->len; i++)
        nlines += src->text[i] == '\n';
    if (src->len && src->text[src->len - 1] != '\n')
        nlines++;
    const char *p = src->text, *end = src->text + src->len;
    for (int line = 1; p < end; line++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (read_line(set, src, p, e, line, nlines))
            return -1;
        p = e + 1;
    }
    return 0;
}

static int contains(const char *s, size_t n, const char *t, size_t m)
{
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, t, m) == 0)
            return 1;
    return 0;
}

/* The prefix of a diagnostic in [p, e) that names src (or lopt itself, for
 * errors about the run as a whole), up to its ':'; or NULL. */
static const char *who(const Source *src, const char *p, const char *e)
{
    const char *names[] = { src->name, "lopt" };
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(names[i]);
        if ((size_t)(e - p) > n && strncmp(p, names[i], n) == 0 && p[n] == ':')
            return p + n + 1;
    }
    return NULL;
}

/* Parses "NAME:L:C: KIND: MSG", "NAME: KIND: MSG" or "lopt: KIND: MSG" in
 * [p, e) (the last two have no place: line 0); returns the kind, or NULL. */
static const char *header(const Source *src, const char *p, const char *e, Loc *loc, const char **msg)
{
    const char *s = who(src, p, e);
    if (!s)
        return NULL;
    *loc = (Loc){ 0, 0 };
    if (isdigit((unsigned char)*s)) {
        char *t;
        loc->line = (int)strtol(s, &t, 10);
        if (*t != ':' || !isdigit((unsigned char)t[1]))
            return NULL;
        loc->col = loc_col(strtol(t + 1, &t, 10));
        if (*t != ':')
            return NULL;
        s = t + 1;
    }
    if (*s++ != ' ')
        return NULL;
    const char *k;
    const char *kind = kind_at(s, &k);
    if (!kind || k[0] != ':' || k[1] != ' ')
        return NULL;
    *msg = k + 2;
    return *msg <= e ? kind : NULL;
}

static int match(ExpectSet *set, const char *kind, int line, const char *msg, size_t n)
{
    for (int i = 0; i < set->n; i++) {
        Expected *x = &set->v[i];
        if (!x->seen && x->kind == kind && x->line == line && contains(msg, n, x->text, (size_t)x->textlen)) {
            x->seen = 1;
            return 1;
        }
    }
    return 0;
}

int expect_check(ExpectSet *set, Source *src, const char *log, size_t len)
{
    int bad = 0;
    const char *p = log, *end = log + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        Loc loc;
        const char *msg;
        const char *kind = header(src, p, e, &loc, &msg);
        if (kind && !match(set, kind, loc.line, msg, (size_t)(e - msg))) {
            diag_error(src, loc, "unexpected %s: %.*s", kind, (int)(e - msg), msg);
            bad++;
        }
        p = e + 1;
    }
    for (int i = 0; i < set->n; i++) {
        const Expected *x = &set->v[i];
        if (x->seen)
            continue;
        if (x->line)
            diag_error(src, x->at, "expected %s on line %d was not reported: %.*s", x->kind, x->line, x->textlen,
                       x->text);
        else
            diag_error(src, x->at, "expected %s without a place was not reported: %.*s", x->kind, x->textlen,
                       x->text);
        bad++;
    }
    return bad;
}

void expect_free(ExpectSet *set)
{
    free(set->v);
    memset(set, 0, sizeof *set);
}

/* ---- the library's handle ---- */

struct lopt_expect {
    ExpectSet set;
    Source src;
    char *text, *name;
};

static lopt_expect *lopt_expect_read_body(lopt_context *ctx, const char *text, size_t len, const char *name)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, text, NULL);
    lopt_expect *e = xcalloc(1, sizeof *e);
    if (!e || !(e->text = xmalloc(len + 1)))
        oom_fail();
    memcpy(e->text, text, len);
    e->text[len] = 0;
    e->name = api_strdup(name ? name : "<string>");
    e->src = (Source){ .name = e->name, .text = e->text, .len = len };
    api_bind(ctx, &e->src);
    if (expect_read(&e->set, &e->src)) {
        lopt_expect_free(e);
        return NULL;
    }
    return e;
}

lopt_expect *lopt_expect_read(lopt_context *ctx, const char *text, size_t len, const char *name)
{
    API_PROTECTED(ctx, lopt_expect *, NULL, lopt_expect_read_body(ctx, text, len, name));
}

static int lopt_expect_check_body(lopt_context *ctx, lopt_expect *e, const char *log, size_t len)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, e, -1);
    API_NEED(ctx, log, -1);
    api_bind(ctx, &e->src);
    return expect_check(&e->set, &e->src, log, len);
}

int lopt_expect_check(lopt_context *ctx, lopt_expect *e, const char *log, size_t len)
{
    API_PROTECTED(ctx, int, -1, lopt_expect_check_body(ctx, e, log, len));
}

void lopt_expect_free(lopt_expect *e)
{
    if (!e)
        return;
    expect_free(&e->set);
    free(e->text);
    free(e->name);
    free(e);
}
