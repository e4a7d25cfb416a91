/* Access patterns: each block of a PrimFunc is classified by comparing the
 * indices of its store with those of its loads; the function takes the most
 * general of its blocks. */
#include "access.h"

#include <stdio.h>

static const char *const names[] = {
    [PAT_ELEMWISE] = "elementwise", [PAT_BROADCAST] = "broadcast", [PAT_INJECTIVE] = "injective",
    [PAT_REDUCE] = "a reduction", [PAT_OPAQUE] = "opaque",
};

const char *access_pattern_name(AccessPattern p)
{
    return names[p];
}

typedef struct Scan {
    AccessPattern pat;
    char *why;
    size_t cap;
} Scan;

static void worse(Scan *S, AccessPattern p, const char *fmt, const char *a, const char *b)
{
    if (p <= S->pat)
        return;
    S->pat = p;
    if (S->why)
        snprintf(S->why, S->cap, fmt, a, b);
}

/* The position of v in the store's indices, or -1. */
static int index_of(const Expr *const *idx, int n, const Var *v)
{
    for (int i = 0; i < n; i++)
        if (idx[i]->kind == E_VAR && idx[i]->u.var == v)
            return i;
    return -1;
}

/* How a load reads relative to the store at sidx: the same point, a
 * projection (each index a constant or a store index, in order), or other. */
static AccessPattern load_pattern(const Expr *load, Expr *const *sidx, int sn)
{
    const Expr *const *li = (const Expr *const *)load->u.load.idx;
    int ln = load->u.load.n, same = ln == sn, last = -1;
    for (int i = 0; same && i < ln; i++)
        same = expr_equal(li[i], sidx[i]);
    if (same)
        return PAT_ELEMWISE;
    for (int i = 0; i < ln; i++) {
        int64_t c;
        if (expr_const_int(li[i], &c) == 0)
            continue;
        int at = li[i]->kind == E_VAR ? index_of((const Expr *const *)sidx, sn, li[i]->u.var) : -1;
        if (at <= last)
            return PAT_INJECTIVE;
        last = at;
    }
    return PAT_BROADCAST;
}

static void scan_loads(Scan *S, const Expr *e, const Block *b, Expr *const *sidx, int sn)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        worse(S, load_pattern(e, sidx, sn), "block %s reads %s at other points than it writes", b->name->str,
              e->u.load.buf->name->str);
        for (int i = 0; i < e->u.load.n; i++)
            scan_loads(S, e->u.load.idx[i], b, sidx, sn);
        break;
    case E_BIN:
        scan_loads(S, e->u.bin.a, b, sidx, sn);
        scan_loads(S, e->u.bin.b, b, sidx, sn);
        break;
    case E_UNARY:
        scan_loads(S, e->u.un.a, b, sidx, sn);
        break;
    case E_CAST:
        scan_loads(S, e->u.cast.a, b, sidx, sn);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            scan_loads(S, e->u.call.args[i], b, sidx, sn);
        break;
    default:
        break;
    }
}

/* Whether every store index is a distinct iterator of b. */
static int plain_store(const Block *b, Expr *const *idx, int n)
{
    for (int i = 0; i < n; i++) {
        int it = -1;
        for (int k = 0; idx[i]->kind == E_VAR && k < b->niters; k++)
            if (b->iters[k].var == idx[i]->u.var)
                it = k;
        if (it < 0 || index_of((const Expr *const *)idx, i, idx[i]->u.var) >= 0)
            return 0;
    }
    return 1;
}

static void scan_block(Scan *S, const Block *b)
{
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].kind != 'S')
            return worse(S, b->iters[k].kind == 'R' ? PAT_REDUCE : PAT_OPAQUE, "block %s has %s iterators",
                         b->name->str, b->iters[k].kind == 'R' ? "reduction" : "opaque");
    const Stmt *st = b->body;
    while (st && st->kind == S_SEQ && st->u.seq.n == 1)
        st = st->u.seq.items[0];
    if (!st || st->kind != S_STORE || b->init)
        return worse(S, PAT_OPAQUE, "block %s does not store one value%s", b->name->str, "");
    if (b->where)
        worse(S, PAT_INJECTIVE, "block %s writes under a predicate%s", b->name->str, "");
    if (!plain_store(b, st->u.store.idx, st->u.store.n))
        worse(S, PAT_INJECTIVE, "block %s writes %s through an index map", b->name->str, st->u.store.buf->name->str);
    scan_loads(S, st->u.store.value, b, st->u.store.idx, st->u.store.n);
}

static void scan_stmt(Scan *S, const Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            scan_stmt(S, s->u.seq.items[i]);
        break;
    case S_FOR:
        scan_stmt(S, s->u.loop.body);
        break;
    case S_BLOCK:
        if (s->u.block->niters == 0 && s->u.block->body && s->u.block->body->kind != S_STORE)
            scan_stmt(S, s->u.block->body);   /* the root block around the nests */
        else
            scan_block(S, s->u.block);
        break;
    case S_ALLOC:
        break;
    default:
        worse(S, PAT_OPAQUE, "it computes outside blocks%s%s", "", "");
        break;
    }
}

AccessPattern tir_pattern(const Func *f, char *why, size_t cap)
{
    Scan S = { PAT_ELEMWISE, why, cap };
    if (why && cap)
        snprintf(why, cap, "every block reads its operands at the point it writes");
    if (f->kind != F_PRIM)
        return PAT_OPAQUE;
    scan_stmt(&S, f->body);
    return S.pat;
}
