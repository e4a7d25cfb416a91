/* Helpers of the buffer-layout passes (physical.h). */
#include "physical.h"

#include <stdlib.h>
#include <string.h>

#include "../../ir/indexmap.h"
#include "../../ir/oom.h"

void scope_push(Scope *sc, Var *v, const Expr *extent, const Expr *min)
{
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? 2 * sc->cap : 16;
        Var **nv = xrealloc(sc->vars, (size_t)sc->cap * sizeof *nv);
        sc->vars = nv ? nv : sc->vars;
        int64_t *ne = nv ? xrealloc(sc->ext, (size_t)sc->cap * sizeof *ne) : NULL;
        sc->ext = ne ? ne : sc->ext;
        const Expr **nx = ne ? xrealloc(sc->extx, (size_t)sc->cap * sizeof *nx) : NULL;
        if (!nv || !ne || !nx)
            oom_fail();
        sc->extx = nx;
    }
    int64_t lo = 0, ext;
    int from0 = !min || (expr_const_int(min, &lo) == 0 && lo == 0);
    if (!from0 || ((expr_const_int(extent, &ext) || ext < 1) &&
                   (!sc->syms || im_sym_eval(extent, sc->syms, &ext) || ext < 1)))
        ext = -1;
    sc->vars[sc->n] = v;
    sc->extx[sc->n] = from0 ? extent : NULL;
    sc->ext[sc->n++] = ext;
}

void scope_free(Scope *sc)
{
    free(sc->vars);
    free(sc->ext);
    free(sc->extx);
    memset(sc, 0, sizeof *sc);
}

/* The values of the variables vars, then the symbols of s. */
typedef struct At {
    Var *const *vars;
    const int64_t *vals;
    int n;
    const ImSyms *s;
} At;

static int value_at(const Var *v, void *data, int64_t *out)
{
    const At *at = data;
    for (int i = 0; i < at->n; i++)
        if (at->vars[i] == v)
            return *out = at->vals[i], 0;
    for (int k = 0; k < at->s->n; k++)
        if (at->s->var[k] == v)
            return *out = at->s->val[k], 0;
    return -1;
}

/* Whether a and b agree at every point of the variables in scope they read,
 * at every binding of the symbols to 1 .. IM_SYM_CHECK. */
static int agree(const Scope *sc, const Expr *a, const Expr *b)
{
    Var *used[IM_MAX_RANK * 2];
    int64_t x[IM_MAX_RANK * 2], ext[IM_MAX_RANK * 2];
    const Expr *extx[IM_MAX_RANK * 2];
    int n = 0;
    for (int i = sc->n - 1; i >= 0; i--) {
        if (!expr_mentions(a, sc->vars[i]) && !expr_mentions(b, sc->vars[i]))
            continue;
        if (!sc->extx[i] || n == IM_MAX_RANK * 2)
            return 0;
        used[n] = sc->vars[i];
        extx[n++] = sc->extx[i];
    }
    ImSyms bd = *sc->syms;
    int total = 1, checked = 0;
    for (int k = 0; k < bd.n; k++)
        total *= IM_SYM_CHECK;
    for (int t = 0; t < total; t++) {
        for (int k = 0, r = t; k < bd.n; k++, r /= IM_SYM_CHECK)
            bd.val[k] = 1 + r % IM_SYM_CHECK;
        int64_t vol = 1;
        int ok = 1;
        for (int i = 0; i < n && ok; i++)
            ok = im_sym_eval(extx[i], &bd, &ext[i]) == 0 && ext[i] >= 1 &&
                 !__builtin_mul_overflow(vol, ext[i], &vol) && vol <= (1 << 16);
        if (!ok)
            continue;
        for (int64_t r = 0; r < vol; r++) {
            for (int64_t rem = r, i = n - 1; i >= 0; i--) {
                x[i] = rem % ext[i];
                rem /= ext[i];
            }
            int64_t va, vb;
            At at = { used, x, n, &bd };
            if (expr_eval_int(a, value_at, &at, &va) || expr_eval_int(b, value_at, &at, &vb) || va != vb)
                return 0;
        }
        checked = 1;
    }
    return checked;
}

Expr *scope_simplify(const Scope *sc, Arena *a, Arena *scratch, Expr *e)
{
    ArenaMark mark = arena_mark(scratch);
    Var **v = arena_array(scratch, (size_t)sc->n + 1, sizeof *v);
    int64_t *ext = arena_array(scratch, (size_t)sc->n + 1, sizeof *ext);
    int n = 0;
    for (int i = 0; i < sc->n; i++)
        if (sc->ext[i] > 0) {
            v[n] = sc->vars[i];
            ext[n++] = sc->ext[i];
        }
    if (!sc->syms || !sc->syms->n) {
        Expr *r = im_simplify(a, scratch, e, v, ext, n);
        arena_release(scratch, mark);
        return r;
    }
    /* at the stand-ins, read back, and kept where it holds at small values */
    Expr *b = im_bind(scratch, e, sc->syms);
    Expr *r = im_simplify(a, scratch, b, v, ext, n);
    Expr *u = r != b ? im_unbind(a, r, sc->syms) : NULL;
    if (!u || !agree(sc, e, u))
        u = e;
    arena_release(scratch, mark);
    return u;
}

static Expr *ix_bin(Arena *a, BinOp op, Expr *x, Expr *y)
{
    Expr *e = expr_new(a, E_BIN, x->loc);
    e->u.bin.op = op;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

Expr *ix_add(Arena *a, Expr *x, Expr *y)
{
    int64_t u, v, r;
    int cu = expr_const_int(x, &u) == 0, cv = expr_const_int(y, &v) == 0;
    if (cu && cv && !__builtin_add_overflow(u, v, &r))
        return expr_int(a, r, DT_VOID, x->loc);
    if (cu && u == 0)
        return y;
    if (cv && v == 0)
        return x;
    /* (x + c) + v and (x - c) + v fold their constants */
    if (cv && x->kind == E_BIN && (x->u.bin.op == B_ADD || x->u.bin.op == B_SUB) &&
        expr_const_int(x->u.bin.b, &u) == 0 && u > -(INT64_C(1) << 40) && u < (INT64_C(1) << 40) &&
        v > -(INT64_C(1) << 40) && v < (INT64_C(1) << 40))
        return ix_add(a, x->u.bin.a, expr_int(a, (x->u.bin.op == B_ADD ? u : -u) + v, DT_VOID, y->loc));
    if (cv && v < 0 && v > INT64_MIN)
        return ix_bin(a, B_SUB, x, expr_int(a, -v, DT_VOID, y->loc));
    return ix_bin(a, B_ADD, x, y);
}

Expr *ix_mul(Arena *a, Expr *x, Expr *y)
{
    int64_t u, v, r;
    int cu = expr_const_int(x, &u) == 0, cv = expr_const_int(y, &v) == 0;
    if (cu && cv && !__builtin_mul_overflow(u, v, &r))
        return expr_int(a, r, DT_VOID, x->loc);
    if ((cu && u == 0) || (cv && v == 1))
        return x;
    if ((cv && v == 0) || (cu && u == 1))
        return y;
    return ix_bin(a, B_MUL, x, y);
}

Stmt *loop_serial(Arena *a, Var *v, int64_t extent, Stmt *body)
{
    Loc none = { 0, 0 };
    Stmt *s = stmt_new(a, S_FOR, none);
    s->u.loop.var = v;
    s->u.loop.fk = FOR_SERIAL;
    s->u.loop.min = expr_int(a, 0, DT_VOID, none);
    s->u.loop.extent = expr_int(a, extent, DT_VOID, none);
    s->u.loop.body = body;
    v->loop = s;
    return s;
}

static void names_stmt(const Stmt *s, PtrMap *names);

static void names_buffer(const Buffer *b, PtrMap *names)
{
    ptrmap_put(names, b->name, 1);
}

static void names_stmt(const Stmt *s, PtrMap *names)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            names_stmt(s->u.seq.items[i], names);
        break;
    case S_FOR:
        ptrmap_put(names, s->u.loop.var->name, 1);
        names_stmt(s->u.loop.body, names);
        break;
    case S_BLOCK:
        if (s->u.block->name)
            ptrmap_put(names, s->u.block->name, 1);
        for (int i = 0; i < s->u.block->niters; i++)
            ptrmap_put(names, s->u.block->iters[i].var->name, 1);
        names_stmt(s->u.block->init, names);
        names_stmt(s->u.block->body, names);
        break;
    case S_IF:
        names_stmt(s->u.branch.then, names);
        names_stmt(s->u.branch.orelse, names);
        break;
    case S_ALLOC: names_buffer(s->u.alloc, names); break;
    case S_LET: ptrmap_put(names, s->u.let.var->name, 1); break;
    default: break;
    }
}

void prim_names(const Func *f, PtrMap *names)
{
    ptrmap_put(names, f->name, 1);
    for (int i = 0; i < f->npparams; i++) {
        if (f->pparams[i].buf)
            names_buffer(f->pparams[i].buf, names);
        if (f->pparams[i].var)
            ptrmap_put(names, f->pparams[i].var->name, 1);
    }
    names_stmt(f->body, names);
}

static void used_expr(const Expr *e, PtrMap *used)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_LOAD:
        ptrmap_put(used, e->u.load.buf, 1);
        for (int i = 0; i < e->u.load.n; i++)
            used_expr(e->u.load.idx[i], used);
        break;
    case E_BIN: used_expr(e->u.bin.a, used); used_expr(e->u.bin.b, used); break;
    case E_UNARY: used_expr(e->u.un.a, used); break;
    case E_CAST: used_expr(e->u.cast.a, used); break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            used_expr(e->u.call.args[i], used);
        break;
    default: break;
    }
}

void prim_used_buffers(const Stmt *s, PtrMap *used)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            prim_used_buffers(s->u.seq.items[i], used);
        break;
    case S_FOR: prim_used_buffers(s->u.loop.body, used); break;
    case S_BLOCK: {
        const Block *b = s->u.block;
        for (int i = 0; i < b->nreads; i++)
            ptrmap_put(used, b->reads[i].buf, 1);
        for (int i = 0; i < b->nwrites; i++)
            ptrmap_put(used, b->writes[i].buf, 1);
        used_expr(b->where, used);
        prim_used_buffers(b->init, used);
        prim_used_buffers(b->body, used);
        break;
    }
    case S_STORE:
        ptrmap_put(used, s->u.store.buf, 1);
        used_expr(s->u.store.value, used);
        for (int i = 0; i < s->u.store.n; i++)
            used_expr(s->u.store.idx[i], used);
        break;
    case S_IF:
        used_expr(s->u.branch.cond, used);
        prim_used_buffers(s->u.branch.then, used);
        prim_used_buffers(s->u.branch.orelse, used);
        break;
    case S_EVAL: used_expr(s->u.eval, used); break;
    case S_LET: used_expr(s->u.let.value, used); break;
    default: break;
    }
}

static Expr *extra_opt(const Buffer *b, const char *key)
{
    for (int i = 0; i < b->nextra; i++)
        if (strcmp(b->extra_keys[i]->str, key) == 0)
            return b->extra_vals[i];
    return NULL;
}

int buffer_strides(Arena *a, const Buffer *b, Expr ***st, Expr **off)
{
    Expr *se = extra_opt(b, "strides"), *oe = extra_opt(b, "elem_offset");
    int64_t k;
    if (se && se->kind == E_NONE)
        se = NULL;
    if (oe && (oe->kind == E_NONE || (expr_const_int(oe, &k) == 0 && k == 0)))
        oe = NULL;
    if (!se && !oe)
        return 0;
    if (se && ((se->kind != E_LIST && se->kind != E_TUPLE) || se->u.list.n != b->ndim))
        return -1;
    Loc loc = b->loc;
    Expr **v = arena_array(a, (size_t)b->ndim + 1, sizeof *v);
    int compact = !oe;
    int64_t want = 1, ext, got;
    for (int d = b->ndim - 1; d >= 0; d--) {
        if (se)
            v[d] = se->u.list.items[d];
        else
            v[d] = d == b->ndim - 1 ? expr_int(a, 1, DT_VOID, loc) : ix_mul(a, v[d + 1], b->shape[d + 1]);
        /* the outermost extent does not change what row-major strides are */
        if (compact && (expr_const_int(v[d], &got) || got != want ||
                        (d > 0 && (expr_const_int(b->shape[d], &ext) || __builtin_mul_overflow(want, ext, &want)))))
            compact = 0;
    }
    if (compact)
        return 0;
    *st = v;
    *off = oe ? oe : expr_int(a, 0, DT_VOID, loc);
    return 1;
}

void buffer_drop_strides(Arena *a, Buffer *b)
{
    Sym **k = arena_array(a, (size_t)b->nextra + 1, sizeof *k);
    Expr **v = arena_array(a, (size_t)b->nextra + 1, sizeof *v);
    int n = 0;
    for (int i = 0; i < b->nextra; i++)
        if (strcmp(b->extra_keys[i]->str, "strides") != 0 && strcmp(b->extra_keys[i]->str, "elem_offset") != 0) {
            k[n] = b->extra_keys[i];
            v[n++] = b->extra_vals[i];
        }
    b->extra_keys = k;
    b->extra_vals = v;
    b->nextra = n;
}

static void syms_expr(const Expr *e, Var **out, int cap, int *n)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_VAR:
        for (int i = 0; i < *n; i++)
            if (out[i] == e->u.var)
                return;
        if (*n < cap)
            out[(*n)++] = e->u.var;
        break;
    case E_BIN: syms_expr(e->u.bin.a, out, cap, n); syms_expr(e->u.bin.b, out, cap, n); break;
    case E_UNARY: syms_expr(e->u.un.a, out, cap, n); break;
    case E_CAST: syms_expr(e->u.cast.a, out, cap, n); break;
    default: break;
    }
}

static void syms_buffer(const Buffer *b, Var **out, int cap, int *n)
{
    for (int d = 0; d < b->ndim; d++)
        syms_expr(b->shape[d], out, cap, n);
}

static void syms_stmt(const Stmt *s, Var **out, int cap, int *n)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            syms_stmt(s->u.seq.items[i], out, cap, n);
        break;
    case S_FOR: syms_stmt(s->u.loop.body, out, cap, n); break;
    case S_BLOCK:
        syms_stmt(s->u.block->init, out, cap, n);
        syms_stmt(s->u.block->body, out, cap, n);
        break;
    case S_IF:
        syms_stmt(s->u.branch.then, out, cap, n);
        syms_stmt(s->u.branch.orelse, out, cap, n);
        break;
    case S_ALLOC: syms_buffer(s->u.alloc, out, cap, n); break;
    default: break;
    }
}

int prim_shape_syms(const Func *f, Var **out, int cap)
{
    int n = 0;
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf)
            syms_buffer(f->pparams[i].buf, out, cap, &n);
    syms_stmt(f->body, out, cap, &n);
    return n;
}

int expr_syms(const Expr *e, Var **out, int cap, int n)
{
    syms_expr(e, out, cap, &n);
    return n;
}
