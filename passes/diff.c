/* A line diff by Myers' greedy O((N+M)D) algorithm, on the lines left after
 * the common prefix and suffix are set aside (a pass usually changes a few
 * lines of a long module). The trace of the search takes (D+1)^2 ints; past
 * a budget the middle is written as all removed, then all added: still a
 * correct diff, only not the shortest. */
#include "diff.h"
#include "../ir/oom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CONTEXT = 3, TRACE_BUDGET = 1 << 22 };

typedef struct Line {
    const char *p;
    size_t n;        /* without the newline */
    uint64_t hash;
} Line;

static Line *split_lines(const char *t, size_t len, int *count)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    if (len && t[len - 1] != '\n')
        n++;
    Line *v = xmalloc(((size_t)n + 1) * sizeof *v);
    if (!v)
        oom_fail();
    const char *p = t, *end = t + len;
    for (int i = 0; i < n; i++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        uint64_t h = 1469598103934665603u;   /* FNV-1a */
        for (const char *q = p; q < e; q++)
            h = (h ^ (unsigned char)*q) * 1099511628211u;
        v[i] = (Line){ p, (size_t)(e - p), h };
        p = e + 1;
    }
    *count = n;
    return v;
}

static int same(const Line *a, const Line *b)
{
    return a->hash == b->hash && a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* The edit script turning a[0..n) into b[0..m) as '=', '-', '+' into ops
 * (room for n + m); returns its length. */
static size_t myers(const Line *a, int n, const Line *b, int m, char *ops)
{
    int dmax = n + m;
    while (dmax > 0 && (int64_t)(dmax + 1) * (dmax + 1) > TRACE_BUDGET)
        dmax /= 2;
    int *v = xmalloc((2 * (size_t)dmax + 3) * sizeof *v);
    int *trace = xmalloc(((size_t)dmax + 1) * ((size_t)dmax + 1) * sizeof *trace);
    if (!v || !trace)
        oom_fail();
    int *V = v + dmax + 1;   /* V[k]: the furthest x reached on diagonal k = x - y */
    int found = -1;
    V[1] = 0;
    for (int d = 0; d <= dmax && found < 0; d++) {
        for (int k = -d; k <= d; k += 2) {
            int x = k == -d || (k != d && V[k - 1] < V[k + 1]) ? V[k + 1] : V[k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && same(&a[x], &b[y]))
                x++, y++;
            V[k] = x;
            if (x >= n && y >= m)
                found = d;
        }
        memcpy(trace + (size_t)d * d, V - d, (2 * (size_t)d + 1) * sizeof *V);
    }
    size_t len = 0;
    if (found < 0) {
        memset(ops, '-', (size_t)n);
        memset(ops + n, '+', (size_t)m);
        len = (size_t)n + (size_t)m;
    } else {
        /* walk back from (n, m), writing the script in reverse */
        int x = n, y = m;
        for (int d = found; d > 0; d--) {
            const int *P = trace + (size_t)(d - 1) * (d - 1) + (d - 1);   /* V after step d - 1 */
            int k = x - y;
            int pk = k == -d || (k != d && P[k - 1] < P[k + 1]) ? k + 1 : k - 1;
            int px = P[pk], py = px - pk;
            int sx = pk == k + 1 ? px : px + 1;   /* where the snake of step d starts */
            for (; x > sx; x--, y--)
                ops[len++] = '=';
            ops[len++] = pk == k + 1 ? '+' : '-';
            x = px;
            y = py;
        }
        for (; x > 0; x--)
            ops[len++] = '=';
        for (size_t i = 0; i < len / 2; i++) {
            char c = ops[i];
            ops[i] = ops[len - 1 - i];
            ops[len - 1 - i] = c;
        }
    }
    free(v);
    free(trace);
    return len;
}

/* The lines of a and of b that ops[0..to) consumes. */
static void advance(const char *ops, size_t from, size_t to, int *ai, int *bi)
{
    for (size_t i = from; i < to; i++) {
        *ai += ops[i] != '+';
        *bi += ops[i] != '-';
    }
}

static void range(FILE *out, char sign, int start, int count)
{
    fprintf(out, "%c%d", sign, count ? start + 1 : start);
    if (count != 1)
        fprintf(out, ",%d", count);
}

static void hunk(FILE *out, const char *ops, size_t s, size_t e, const Line *a, int ai, const Line *b, int bi)
{
    int na = 0, nb = 0;
    advance(ops, s, e, &na, &nb);
    fputs("@@ ", out);
    range(out, '-', ai, na);
    fputc(' ', out);
    range(out, '+', bi, nb);
    fputs(" @@\n", out);
    for (size_t i = s; i < e; i++) {
        const Line *l = ops[i] == '+' ? &b[bi] : &a[ai];
        fprintf(out, "%c%.*s\n", ops[i] == '=' ? ' ' : ops[i], (int)l->n, l->p);
        ai += ops[i] != '+';
        bi += ops[i] != '-';
    }
}

static void write_hunks(FILE *out, const char *ops, size_t len, const Line *a, const Line *b)
{
    size_t i = 0;
    int ai = 0, bi = 0;
    while (i < len) {
        size_t c = i;
        while (c < len && ops[c] == '=')
            c++;
        if (c == len)
            break;
        size_t s = c >= i + CONTEXT ? c - CONTEXT : i;
        size_t e = c;
        for (;;) {
            while (e < len && ops[e] != '=')
                e++;
            size_t j = e;
            while (j < len && ops[j] == '=')
                j++;
            if (j == len || j - e > 2 * CONTEXT)
                break;
            e = j;
        }
        e = e + CONTEXT < len ? e + CONTEXT : len;
        advance(ops, i, s, &ai, &bi);
        hunk(out, ops, s, e, a, ai, b, bi);
        advance(ops, s, e, &ai, &bi);
        i = e;
    }
}

/* The edit script of lines a[0..n) to b[0..m), in a malloc'd string of *len ops. */
static char *script(const Line *a, int n, const Line *b, int m, size_t *len)
{
    int pre = 0, suf = 0;
    while (pre < n && pre < m && same(&a[pre], &b[pre]))
        pre++;
    while (suf < n - pre && suf < m - pre && same(&a[n - 1 - suf], &b[m - 1 - suf]))
        suf++;
    char *ops = xmalloc((size_t)n + (size_t)m + 1);
    if (!ops)
        oom_fail();
    memset(ops, '=', (size_t)pre);
    *len = (size_t)pre;
    *len += myers(a + pre, n - pre - suf, b + pre, m - pre - suf, ops + *len);
    memset(ops + *len, '=', (size_t)suf);
    *len += (size_t)suf;
    ops[*len] = 0;
    return ops;
}

char *diff_script(const char *at, size_t alen, const char *bt, size_t blen, size_t *len)
{
    int n, m;
    Line *a = split_lines(at, alen, &n), *b = split_lines(bt, blen, &m);
    char *ops = script(a, n, b, m, len);
    free(a);
    free(b);
    return ops;
}

int diff_unified(FILE *out, const char *at, size_t alen, const char *bt, size_t blen, const char *from,
                 const char *to)
{
    if (alen == blen && memcmp(at, bt, alen) == 0)
        return 0;
    int n, m;
    size_t len;
    Line *a = split_lines(at, alen, &n), *b = split_lines(bt, blen, &m);
    char *ops = script(a, n, b, m, &len);
    fprintf(out, "--- %s\n+++ %s\n", from, to);
    write_hunks(out, ops, len, a, b);
    free(ops);
    free(a);
    free(b);
    return 1;
}
