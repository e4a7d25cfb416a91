/* The budgets of a call (lopt_run, lopt_apply), from the start of the
 * outermost call of a context to its end: its memory budget, and the stop
 * flag, which a thread sets when the caller's interrupt flag
 * (lopt_set_interrupt) is set or the --timeout deadline passes; the
 * interpreter and the pass manager read that one flag. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "../ir/mem.h"
#include "internal.h"
#include "../ir/oom.h"

/* How often the caller's flag is looked at: well within the 0.2 s a
 * Ctrl-C may take. */
enum { WATCH_POLL_NS = 10 * 1000 * 1000 };

struct Watch {
    volatile sig_atomic_t stop;
    const volatile sig_atomic_t *user;
    int timed, done;
    struct timespec deadline;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *watch(void *p)
{
    Watch *w = p;
    pthread_mutex_lock(&w->mu);
    /* a flag set before the call was seen by api_call_begin: nothing to write */
    while (!w->done && !w->stop) {
        if (w->user && *w->user) {
            w->stop = INTERP_STOP_INTERRUPT;
            break;
        }
        struct timespec now, until;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (w->timed && !before(&now, &w->deadline)) {
            w->stop = INTERP_STOP_TIMEOUT;
            break;
        }
        until = now;
        if (w->user) {
            until.tv_nsec += WATCH_POLL_NS;
            if (until.tv_nsec >= 1000000000) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000;
            }
        }
        if (w->timed && (!w->user || before(&w->deadline, &until)))
            until = w->deadline;
        pthread_cond_timedwait(&w->cv, &w->mu, &until);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int api_call_begin(lopt_context *ctx)
{
    if (ctx->call_depth++)
        return 0;
    mem_enter(&ctx->mem, ctx->max_memory);
    if (!ctx->interrupt && ctx->timeout <= 0)
        return 0;
    Watch *w = xcalloc(1, sizeof *w);
    if (!w)
        oom_fail();
    w->user = ctx->interrupt;
    if (w->user && *w->user)
        w->stop = INTERP_STOP_INTERRUPT;   /* set before the call: it stops at its first chance */
    if (ctx->timeout > 0) {
        w->timed = 1;
        clock_gettime(CLOCK_MONOTONIC, &w->deadline);
        double s = (double)w->deadline.tv_sec + (double)w->deadline.tv_nsec * 1e-9 + ctx->timeout;
        w->deadline.tv_sec = (time_t)s;
        w->deadline.tv_nsec = (long)((s - (double)w->deadline.tv_sec) * 1e9);
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->mu, NULL);
    if (pthread_create(&w->th, NULL, watch, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        ctx->call_depth--;
        mem_leave(&ctx->mem);
        return api_fail(ctx, "cannot start the thread that watches --timeout and interrupts");
    }
    ctx->watch = w;
    return 0;
}

void api_call_end(lopt_context *ctx)
{
    if (--ctx->call_depth)
        return;
    mem_leave(&ctx->mem);
    if (!ctx->watch)
        return;
    Watch *w = ctx->watch;
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    ctx->watch = NULL;
}

const volatile sig_atomic_t *api_stop_flag(const lopt_context *ctx)
{
    return ctx->watch ? &ctx->watch->stop : NULL;
}
