/* Which loops may run their iterations on several threads (`-j N`) and give
 * exactly what running them in order gives. A loop qualifies when its body
 * writes every buffer it writes at places that differ from one iteration to
 * the next and reads those buffers only there: some dimension of each
 * written buffer is indexed, in every store to it and every load of it, by
 * the loop's variable itself (directly or through block iterators bound to
 * it). Iterations then touch disjoint slices of what they write, and what
 * one iteration reads of them no other iteration writes. Nothing else in the
 * body may have an effect: no allocations or views of storage, no strided
 * buffers written, no calls evaluated for their effect. The test reads the syntax only; the
 * interpreter checks at run time that the buffers do not share storage. */
#include <string.h>

#include "par.h"

enum { MAX_ALIAS = 64, MAX_WRITTEN = 32 };

typedef struct Scan {
    const Var *alias[MAX_ALIAS];   /* the loop variable and block iterators bound to it */
    int nalias;
    struct {
        const Buffer *b;
        uint32_t dims;             /* dimensions indexed by the loop variable in every access so far */
    } w[MAX_WRITTEN];
    int nw;
    int ok;
    int64_t steps;                 /* loop iterations of one run of the body, at most */
} Scan;

static int is_alias(const Scan *s, const Expr *e)
{
    if (e->kind != E_VAR)
        return 0;
    for (int i = 0; i < s->nalias; i++)
        if (s->alias[i] == e->u.var)
            return 1;
    return 0;
}

/* The dimensions of an access whose index is the loop variable. */
static uint32_t loop_dims(const Scan *s, Expr *const *idx, int n)
{
    uint32_t m = 0;
    for (int d = 0; d < n && d < 32; d++)
        if (is_alias(s, idx[d]))
            m |= 1u << d;
    return m;
}

static int written(const Scan *s, const Buffer *b)
{
    for (int i = 0; i < s->nw; i++)
        if (s->w[i].b == b)
            return i;
    return -1;
}

static int has_extra(const Buffer *b, const char *key)
{
    for (int i = 0; i < b->nextra; i++)
        if (strcmp(b->extra_keys[i]->str, key) == 0)
            return 1;
    return 0;
}

/* Pass 1 collects aliases and written buffers; pass 2 (reads) narrows the
 * dimensions by the loads. */
static void expr_scan(Scan *s, const Expr *e, int reads);

static void exprs_scan(Scan *s, Expr *const *es, int n, int reads)
{
    for (int i = 0; i < n; i++)
        expr_scan(s, es[i], reads);
}

static void expr_scan(Scan *s, const Expr *e, int reads)
{
    if (!e || !s->ok)
        return;
    switch (e->kind) {
    case E_LOAD:
        if (reads) {
            int w = written(s, e->u.load.buf);
            if (w >= 0)
                s->w[w].dims &= loop_dims(s, e->u.load.idx, e->u.load.n);
        }
        exprs_scan(s, e->u.load.idx, e->u.load.n, reads);
        break;
    case E_BIN:
        expr_scan(s, e->u.bin.a, reads);
        expr_scan(s, e->u.bin.b, reads);
        break;
    case E_UNARY:
        expr_scan(s, e->u.un.a, reads);
        break;
    case E_CAST:
        expr_scan(s, e->u.cast.a, reads);
        break;
    case E_CALL:
        exprs_scan(s, e->u.call.args, e->u.call.nargs + e->u.call.nkw, reads);
        break;
    case E_TUPLE:
    case E_LIST:
        exprs_scan(s, e->u.list.items, e->u.list.n, reads);
        break;
    case E_SLICE:
        expr_scan(s, e->u.slice.lo, reads);
        expr_scan(s, e->u.slice.hi, reads);
        break;
    case E_VAR:
    case E_INT:
    case E_FLOAT:
    case E_BOOL:
    case E_STR:
    case E_NONE:
        break;
    default:
        s->ok = 0;   /* nothing else belongs in a loop body */
        break;
    }
}

static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Returns the steps bound of st (INT64_MAX when unknown). */
static int64_t stmt_scan(Scan *s, const Stmt *st, int reads)
{
    if (!st || !s->ok)
        return 0;
    switch (st->kind) {
    case S_SEQ: {
        int64_t n = 0;
        for (int i = 0; i < st->u.seq.n; i++)
            n = add_sat(n, stmt_scan(s, st->u.seq.items[i], reads));
        return n;
    }
    case S_FOR: {
        int64_t lo, ext;
        expr_scan(s, st->u.loop.min, reads);
        expr_scan(s, st->u.loop.extent, reads);
        int64_t body = stmt_scan(s, st->u.loop.body, reads);
        if (expr_const_int(st->u.loop.min, &lo) || expr_const_int(st->u.loop.extent, &ext))
            return INT64_MAX;
        return ext <= 0 ? 0 : mul_sat(ext, add_sat(1, body));
    }
    case S_BLOCK: {
        const Block *b = st->u.block;
        for (int i = 0; i < b->niters; i++) {
            expr_scan(s, b->iters[i].binding, reads);
            expr_scan(s, b->iters[i].dom, reads);
            if (!reads && is_alias(s, b->iters[i].binding)) {
                if (s->nalias == MAX_ALIAS)
                    s->ok = 0;
                else
                    s->alias[s->nalias++] = b->iters[i].var;
            }
        }
        expr_scan(s, b->where, reads);
        return add_sat(stmt_scan(s, b->init, reads), stmt_scan(s, b->body, reads));
    }
    case S_STORE: {
        const Buffer *b = st->u.store.buf;
        exprs_scan(s, st->u.store.idx, st->u.store.n, reads);
        expr_scan(s, st->u.store.value, reads);
        uint32_t m = loop_dims(s, st->u.store.idx, st->u.store.n);
        int w = written(s, b);
        if (reads) {
            s->w[w].dims &= m;
        } else if (w < 0) {
            if (s->nw == MAX_WRITTEN || b->kind == BUF_ALIAS || has_extra(b, "strides") ||
                has_extra(b, "elem_offset"))
                s->ok = 0;
            else
                s->w[s->nw].b = b, s->w[s->nw++].dims = m;
        }
        return 0;
    }
    case S_IF:
        expr_scan(s, st->u.branch.cond, reads);
        return add_sat(stmt_scan(s, st->u.branch.then, reads), stmt_scan(s, st->u.branch.orelse, reads));
    case S_EVAL:
        /* T.evaluate(0) and the like; a call may have an effect, except
         * T.attr, a hint the interpreter skips */
        if (st->u.eval->kind == E_CALL && !strcmp(st->u.eval->u.call.op->str, "T.attr"))
            return 0;
        if (st->u.eval->kind == E_CALL)
            s->ok = 0;
        expr_scan(s, st->u.eval, reads);
        return 0;
    case S_LET:
        expr_scan(s, st->u.let.value, reads);
        return 0;
    case S_LOWERED:
        if (st->u.low.k == LOW_ATTR && st->u.low.body)
            return stmt_scan(s, st->u.low.body, reads);    /* a hint over its body */
        break;
    case S_ALLOC: {
        /* an allocation in the body is made once per run and its storage
         * lives on to the next run of the loop: threads would each need
         * their own and lose that */
        if (st->u.alloc->kind != BUF_MATCH)
            s->ok = 0;
        return 0;
    }
    }
    s->ok = 0;
    return 0;
}

int par_loop_ok(const Stmt *loop, int64_t *body_steps)
{
    Scan s;
    memset(&s, 0, sizeof s);
    if (loop->kind != S_FOR)
        return 0;
    s.ok = 1;
    s.alias[s.nalias++] = loop->u.loop.var;
    s.steps = stmt_scan(&s, loop->u.loop.body, 0);
    if (!s.ok || s.nw == 0)
        return 0;
    stmt_scan(&s, loop->u.loop.body, 1);
    if (!s.ok)
        return 0;
    for (int i = 0; i < s.nw; i++)
        if (!s.w[i].dims)
            return 0;
    *body_steps = s.steps;
    return 1;
}
