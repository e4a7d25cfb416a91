/* The guards of ir/oom.h: one chain per thread, so calls on different
 * threads unwind separately. */
#include "oom.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local OomGuard *top;

void oom_push(OomGuard *g)
{
    g->outer = top;
    g->ndefer = 0;
    top = g;
}

void oom_leave(OomGuard *g)
{
    top = g->outer;
}

void oom_unwound(OomGuard *g)
{
    top = g->outer;
    for (int i = g->ndefer - 1; i >= 0; i--)
        if (g->defer[i].fn)
            g->defer[i].fn(g->defer[i].p);
}

int oom_guarded(void)
{
    return top != NULL;
}

void oom_fail(void)
{
    if (!top)
        abort();
    longjmp(top->jb, 1);
}

void oom_defer(void (*fn)(void *), void *p)
{
    if (top && top->ndefer < OOM_DEFERS) {
        top->defer[top->ndefer].fn = fn;
        top->defer[top->ndefer].p = p;
        top->ndefer++;
    }
}

void oom_keep(void *p)
{
    if (!top)
        return;
    for (int i = top->ndefer - 1; i >= 0; i--)
        if (top->defer[i].p == p) {
            top->defer[i].fn = NULL;
            if (i == top->ndefer - 1)
                top->ndefer--;
            return;
        }
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom_fail();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom_fail();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom_fail();
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

FILE *xopen_memstream(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        oom_fail();
    return f;
}
