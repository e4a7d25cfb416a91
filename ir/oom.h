/* Running out of memory as an error, not an abort (Lua's protected calls):
 * each public entry point of the library (api/) runs its work inside a
 * guard; an allocation that fails anywhere below calls oom_fail, which
 * unwinds to the innermost guard of the thread. What the call made is freed
 * there: the arenas and buffers registered with oom_defer while they are
 * only the call's. Outside any guard oom_fail aborts: no public call gets
 * there. */
#ifndef LOPT_OOM_H
#define LOPT_OOM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

enum { OOM_DEFERS = 64 };

typedef struct OomGuard {
    jmp_buf jb;
    struct OomGuard *outer;
    int ndefer;
    struct { void (*fn)(void *); void *p; } defer[OOM_DEFERS];
} OomGuard;

/* Enters a guard g; 0 at once, nonzero when an allocation below failed and
 * unwound to it (the deferred frees done, g left). A macro: setjmp must be
 * called in the frame that stays. */
#define OOM_ENTER(g) (oom_push(g), setjmp((g)->jb) ? (oom_unwound(g), 1) : 0)
void oom_push(OomGuard *g);
void oom_unwound(OomGuard *g);
/* Leaves g after the call ended normally; what is still registered with
 * g (oom_defer, not yet oom_keep) moves to the guard outside. */
void oom_leave(OomGuard *g);
/* Whether a guard is entered on this thread. */
int oom_guarded(void);

/* Unwinds to the innermost guard. */
_Noreturn void oom_fail(void);
/* fn(p) is called if the innermost guard unwinds before oom_keep(p); a
 * guard holds OOM_DEFERS (past that, p is freed by its owner or leaks).
 * The frees run in oom_fail, before unwinding: p may be on the stack, if
 * every way out of its frame calls oom_keep(p).
 * oom_keep looks in every guard entered, innermost first. */
void oom_defer(void (*fn)(void *), void *p);
void oom_keep(void *p);

/* Scratch blocks: malloc'd memory that a function frees before it returns
 * (scratch_free), freed by oom_fail if an allocation fails first. */
void *scratch_alloc(size_t n);
void *scratch_calloc(size_t n, size_t size);
/* p NULL or a scratch block; a block that cannot grow stays p's, freed
 * with the rest. */
void *scratch_realloc(void *p, size_t n);
void scratch_free(void *p);

/* A text written to memory: oom_fail closes the stream and frees the text
 * if an allocation fails before memout_close, which closes it and gives
 * 0 and the text in o->buf (the caller's to free), or -1 and no text. */
typedef struct MemOut {
    FILE *f;
    char *buf;
    size_t len;
} MemOut;
FILE *memout_open(MemOut *o);
int memout_close(MemOut *o);

/* malloc, calloc, realloc, strdup and open_memstream that unwind instead
 * of returning NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
FILE *xopen_memstream(char **buf, size_t *len);

#endif
