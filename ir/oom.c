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

/* What g still has to free if a failure comes goes to the guard outside:
 * a guard nested inside a call (a run's, a Relax call's) leaves the call's
 * own registrations to the call's guard. */
void oom_leave(OomGuard *g)
{
    top = g->outer;
    if (top)
        for (int i = 0; i < g->ndefer; i++)
            if (g->defer[i].fn)
                oom_defer(g->defer[i].fn, g->defer[i].p);
}

void oom_unwound(OomGuard *g)
{
    top = g->outer;
}

int oom_guarded(void)
{
    return top != NULL;
}

/* The deferred frees run here, before the longjmp, while every frame below
 * the guard is still alive: a scratch arena on the stack can be deferred. */
void oom_fail(void)
{
    if (!top)
        abort();
    OomGuard *g = top;
    while (g->ndefer > 0) {
        g->ndefer--;
        if (g->defer[g->ndefer].fn)
            g->defer[g->ndefer].fn(g->defer[g->ndefer].p);
    }
    longjmp(g->jb, 1);
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
    for (OomGuard *g = top; g; g = g->outer)
        for (int i = g->ndefer - 1; i >= 0; i--)
            if (g->defer[i].fn && g->defer[i].p == p) {
                g->defer[i].fn = NULL;
                while (g->ndefer && !g->defer[g->ndefer - 1].fn)
                    g->ndefer--;
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

void *scratch_alloc(size_t n)
{
    void *p = xmalloc(n);
    oom_defer(free, p);
    return p;
}

void *scratch_calloc(size_t n, size_t size)
{
    void *p = xcalloc(n, size);
    oom_defer(free, p);
    return p;
}

/* The registration follows the block: the innermost one of p becomes q's. */
void *scratch_realloc(void *p, size_t n)
{
    if (!p)
        return scratch_alloc(n);
    void *q = xrealloc(p, n);
    for (OomGuard *g = top; q != p && g; g = g->outer)
        for (int i = g->ndefer - 1; i >= 0; i--)
            if (g->defer[i].fn && g->defer[i].p == p) {
                g->defer[i].p = q;
                return q;
            }
    return q;
}

void scratch_free(void *p)
{
    if (p)
        oom_keep(p);
    free(p);
}

static void memout_drop(void *p)
{
    MemOut *o = p;
    fclose(o->f);
    free(o->buf);
    o->buf = NULL;
}

FILE *memout_open(MemOut *o)
{
    o->buf = NULL;
    o->len = 0;
    o->f = xopen_memstream(&o->buf, &o->len);
    oom_defer(memout_drop, o);
    return o->f;
}

int memout_close(MemOut *o)
{
    oom_keep(o);
    if (fclose(o->f)) {
        free(o->buf);
        o->buf = NULL;
        return -1;
    }
    return 0;
}
