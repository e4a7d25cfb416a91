/* Fault injection for build/lopt-fail (make build/lopt-fail): linked with
 * -Wl,--wrap for each allocation function, so every allocation lopt's own
 * code makes comes here. LOPT_FAIL_AT=n makes the n-th fail (once, as
 * SQLite's test harness does; LOPT_FAIL_TRACE=1 prints where); LOPT_FAIL_COUNT=1 prints the number made to
 * stderr at exit, for testsuite/fault/sweep.sh. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
FILE *__real_open_memstream(char **buf, size_t *len);

static atomic_long made;
static long fail_at = -2;

static int fails(void)
{
    if (fail_at == -2) {
        const char *e = getenv("LOPT_FAIL_AT");
        fail_at = e ? atol(e) : -1;
    }
    int fail = atomic_fetch_add(&made, 1) + 1 == fail_at;
    if (fail && getenv("LOPT_FAIL_TRACE"))   /* where it fails, to find a failure handled wrong */
        __sanitizer_print_stack_trace();
    return fail;
}

void *__wrap_malloc(size_t n) { return fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fails() ? NULL : __real_realloc(p, n); }
int __wrap_posix_memalign(void **p, size_t align, size_t n) { return fails() ? 12 : __real_posix_memalign(p, align, n); }
char *__wrap_strdup(const char *s) { return fails() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fails() ? NULL : __real_strndup(s, n); }
FILE *__wrap_open_memstream(char **buf, size_t *len) { return fails() ? NULL : __real_open_memstream(buf, len); }

__attribute__((destructor)) static void report(void)
{
    if (getenv("LOPT_FAIL_COUNT"))
        fprintf(stderr, "lopt-fail: %ld allocations\n", (long)atomic_load(&made));
}
