/* Builders and small queries over the IR: dtypes, node constructors,
 * structural equality of expressions, and the dtype of TIR expressions. */
#include "ir.h"
#include "oom.h"

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[DT_COUNT] = {
    [DT_VOID] = "void", [DT_BOOL] = "bool", [DT_INT8] = "int8", [DT_INT16] = "int16",
    [DT_INT32] = "int32", [DT_INT64] = "int64", [DT_UINT8] = "uint8",
    [DT_UINT16] = "uint16", [DT_UINT32] = "uint32", [DT_UINT64] = "uint64",
    [DT_FLOAT16] = "float16", [DT_BFLOAT16] = "bfloat16", [DT_FLOAT32] = "float32",
    [DT_FLOAT64] = "float64", [DT_HANDLE] = "handle",
};

const char *dtype_name(DType t)
{
    return t < DT_COUNT ? dtype_names[t] : "?";
}

int dtype_parse(const char *s, DType *out)
{
    for (int t = 1; t < DT_COUNT; t++)
        if (s[0] == dtype_names[t][0] && streq(s, dtype_names[t])) {   /* read on every annotation */
            *out = (DType)t;
            return 0;
        }
    return -1;
}

int dtype_size(DType t)
{
    switch (t) {
    case DT_BOOL: case DT_INT8: case DT_UINT8: return 1;
    case DT_INT16: case DT_UINT16: case DT_FLOAT16: case DT_BFLOAT16: return 2;
    case DT_INT32: case DT_UINT32: case DT_FLOAT32: return 4;
    case DT_INT64: case DT_UINT64: case DT_FLOAT64: return 8;
    default: return 0;
    }
}

int64_t floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q;
}

int64_t floormod64(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

static const char *const bitop_names[] = {
    [B_BITAND] = "T.bitwise_and", [B_BITOR] = "T.bitwise_or", [B_BITXOR] = "T.bitwise_xor",
    [B_SHL] = "T.shift_left", [B_SHR] = "T.shift_right",
};

const char *bitop_name(BinOp op)
{
    return op >= B_BITAND && op <= B_SHR ? bitop_names[op] : NULL;
}

int bitop_of_name(const char *name)
{
    for (int op = B_BITAND; op <= B_SHR; op++)
        if (strcmp(name, bitop_names[op]) == 0)
            return op;
    return -1;
}

int shift_ok(DType t, int64_t k)
{
    return k >= 0 && k < 8 * (int64_t)(dtype_size(t) ? dtype_size(t) : 4);
}

int dtype_is_int(DType t)
{
    return t >= DT_INT8 && t <= DT_UINT64;
}

int dtype_is_float(DType t)
{
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT32 || t == DT_FLOAT64;
}

static void loan_return(void *p)
{
    ModuleLoan *l = p;
    l->m->names = l->sm->names;
    l->m->stamp = l->sm->stamp;
    *l->arena = l->sm->arena;
}

void module_lend(ModuleLoan *l, Module *m, Module *sm, Arena *arena)
{
    *sm = *m;
    sm->arena = *arena;
    *l = (ModuleLoan){ m, sm, arena };
    oom_defer(loan_return, l);
}

void module_give_back(ModuleLoan *l)
{
    oom_keep(l);
    loan_return(l);
}

static void module_free_v(void *m)
{
    module_free(m);
}

Module *module_new(void)
{
    Module *m = xcalloc(1, sizeof *m);
    oom_defer(module_free_v, m);   /* if its names cannot be had */
    intern_init(&m->names, &m->arena);
    m->name = intern_cstr(&m->names, "Module");
    oom_keep(m);
    return m;
}

void module_free(Module *m)
{
    if (!m)
        return;
    intern_free(&m->names);
    arena_free(&m->arena);
    free(m->index.keys);
    free(m->index.pos);
    free(m->fresh.keys);
    free(m->fresh.next);
    free(m);
}

/* ---- scope stamps ----
 *
 * A walk that marks variables (Var.mark) takes a range of stamps no mark
 * left by an earlier walk lies in, and tells a variable it marked from one
 * it did not by whether its mark falls in the range. The counter is 32
 * bits: a module passed through flow,fold a few thousand times in one
 * process (the library, the Python module) would wrap it, and a range
 * handed out after that could hold marks left long before. So before the
 * counter wraps, every mark in the module is cleared and counting starts
 * again from 0. */

static void clear_blocks(RBlock *const *blocks, int nblocks)
{
    for (int b = 0; b < nblocks; b++)
        for (int i = 0; i < blocks[b]->nbinds; i++)
            blocks[b]->binds[i]->var->mark = 0;
}

static void clear_func(Func *f)
{
    for (int k = 0; k < f->nparams; k++)
        f->params[k]->mark = 0;
    for (int k = 0; k < f->nsyms; k++)
        f->syms[k]->mark = 0;
    clear_blocks(f->blocks, f->nblocks);
}

static int clear_marks(const Expr *e, void *data)
{
    (void)data;
    if (e->kind == E_VAR)
        e->u.var->mark = 0;
    else if (e->kind == E_FUNC)
        clear_func(e->u.global.fn);
    else if (e->kind == E_IF) {
        clear_blocks(e->u.rif.then->blocks, e->u.rif.then->nblocks);
        clear_blocks(e->u.rif.orelse->blocks, e->u.rif.orelse->nblocks);
    }
    return 0;
}

static void clear_var(Var *v)
{
    if (v)
        v->mark = 0;
}

static void clear_buffer(Buffer *b)
{
    b->mark = 0;
    clear_var(b->data);
    clear_var(b->handle);
    for (int i = 0; i < b->ndefs; i++)
        clear_var(b->defs[i]);
}

/* A PrimFunc's marks: of every variable and buffer its statements define. */
static void clear_stmt(Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            clear_stmt(s->u.seq.items[i]);
        break;
    case S_FOR:
        clear_var(s->u.loop.var);
        clear_stmt(s->u.loop.body);
        break;
    case S_BLOCK:
        for (int i = 0; i < s->u.block->niters; i++)
            clear_var(s->u.block->iters[i].var);
        clear_stmt(s->u.block->init);
        clear_stmt(s->u.block->body);
        break;
    case S_IF:
        clear_stmt(s->u.branch.then);
        clear_stmt(s->u.branch.orelse);
        break;
    case S_ALLOC:
        clear_buffer(s->u.alloc);
        break;
    case S_LET:
        clear_var(s->u.let.var);
        break;
    case S_LOWERED:
        if (s->u.low.k == LOW_IDS)
            for (int i = 0; i < s->u.low.args[1]->u.list.n; i++)
                clear_var(s->u.low.args[1]->u.list.items[i]->u.var);
        clear_stmt(s->u.low.body);
        break;
    default:
        break;
    }
}

unsigned module_stamps(Module *m, size_t n)
{
    if (n > (size_t)(UINT_MAX - m->stamp)) {
        for (int i = 0; i < m->nfuncs; i++) {
            Func *f = m->funcs[i];
            if (f->kind != F_RELAX) {
                for (int k = 0; k < f->npparams; k++) {
                    clear_var(f->pparams[k].var);
                    if (f->pparams[k].buf)
                        clear_buffer(f->pparams[k].buf);
                }
                clear_stmt(f->body);
                continue;
            }
            clear_func(f);
            relax_walk_blocks(f->blocks, f->nblocks, clear_marks, NULL);
            relax_walk(f->result, clear_marks, NULL);
        }
        m->stamp = 0;
        if (n > UINT_MAX)
            abort();
    }
    unsigned base = m->stamp;
    m->stamp += (unsigned)n;
    return base;
}

static size_t index_slot(const Module *m, const Sym *name)
{
    size_t mask = m->index.cap - 1, i = ((uintptr_t)name >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (m->index.keys[i] && m->index.keys[i] != name)
        i = (i + 1) & mask;
    return i;
}

/* Enters funcs[i] unless an earlier function has its name (the first wins). */
static void index_put(Module *m, int i)
{
    size_t at = index_slot(m, m->funcs[i]->name);
    if (!m->index.keys[at]) {
        m->index.keys[at] = m->funcs[i]->name;
        m->index.pos[at] = i;
    }
}

static void index_build(Module *m, size_t want)
{
    size_t cap = 16;
    while (cap < 2 * want)
        cap *= 2;
    if (cap != m->index.cap) {
        free(m->index.keys);
        free(m->index.pos);
        m->index.keys = xmalloc(cap * sizeof *m->index.keys);
        m->index.pos = xmalloc(cap * sizeof *m->index.pos);
        if (!m->index.keys || !m->index.pos)
            oom_fail();
        m->index.cap = cap;
    }
    memset(m->index.keys, 0, cap * sizeof *m->index.keys);
    for (int i = 0; i < m->nfuncs; i++)
        index_put(m, i);
    m->index.funcs = m->funcs;
    m->index.nfuncs = m->nfuncs;
    m->index.gen++;
}

Func *module_find(Module *m, Sym *name)
{
    if (m->index.funcs != m->funcs || m->index.nfuncs != m->nfuncs || !m->index.cap)
        index_build(m, (size_t)m->nfuncs);
    size_t at = index_slot(m, name);
    return m->index.keys[at] ? m->funcs[m->index.pos[at]] : NULL;
}

void module_add(Module *m, Func *f)
{
    int current = m->index.cap && m->index.funcs == m->funcs && m->index.nfuncs == m->nfuncs;
    if (m->funcs_room != m->funcs)
        m->funcs_cap = m->nfuncs;   /* an array a pass made: no room known past its count */
    vec_push(&m->arena, &m->funcs, &m->nfuncs, &m->funcs_cap, f);
    m->funcs_room = m->funcs;
    if (!current) {
        m->index.gen++;
        return;
    }
    if (2 * (size_t)m->nfuncs > m->index.cap) {
        index_build(m, (size_t)m->nfuncs);
        return;
    }
    index_put(m, m->nfuncs - 1);
    m->index.funcs = m->funcs;
    m->index.nfuncs = m->nfuncs;
}

void vec_push(Arena *a, void *itemsp, int *n, int *cap, void *item)
{
    void ***items = itemsp;
    if (*n == *cap) {
        int ncap = *cap ? *cap * 2 : 4;
        void **grown = arena_alloc(a, (size_t)ncap * sizeof *grown);
        if (*n)
            memcpy(grown, *items, (size_t)*n * sizeof *grown);
        *items = grown;
        *cap = ncap;
    }
    (*items)[(*n)++] = item;
}

/* The bytes of a new expression of kind k: a variable, a function of the
 * module, a tuple or list and struct info as a value, which a large module
 * holds several of per binding, end with their member of the union (24 to
 * 32 bytes instead of 56). See struct Expr. Under AddressSanitizer every
 * expression is whole: a short one copied whole (*c = *e) reads past its
 * end, into a block the sanitizer may hold poisoned. */
static size_t expr_size(ExprKind k)
{
#if !defined(__SANITIZE_ADDRESS__)
    switch (k) {
    case E_VAR: return offsetof(Expr, u) + sizeof(((Expr *)0)->u.var);
    case E_SINFO: return offsetof(Expr, u) + sizeof(((Expr *)0)->u.sinfo);
    case E_GLOBAL: return offsetof(Expr, u) + sizeof(((Expr *)0)->u.global);
    case E_TUPLE: case E_LIST: return offsetof(Expr, u) + sizeof(((Expr *)0)->u.list);
    default: break;
    }
#endif
    (void)k;
    return sizeof(Expr);
}

Expr *expr_new(Arena *a, ExprKind k, Loc loc)
{
    Expr *e = arena_zalloc(a, expr_size(k));
    e->kind = k;
    e->loc = loc;
    return e;
}

Expr *expr_copy(Arena *a, const Expr *e)
{
    size_t n = expr_size(e->kind);
    Expr *c = arena_alloc(a, n);
    memcpy(c, e, n);
    return c;
}

Expr *expr_int(Arena *a, int64_t v, DType dt, Loc loc)
{
    Expr *e = expr_new(a, E_INT, loc);
    e->u.i.v = v;
    e->u.i.dtype = dt;
    return e;
}

Expr *expr_float(Arena *a, double v, DType dt, Loc loc)
{
    Expr *e = expr_new(a, E_FLOAT, loc);
    e->u.f.v = v;
    e->u.f.dtype = dt;
    return e;
}

Expr *expr_str(Arena *a, const char *s, Loc loc)
{
    Expr *e = expr_new(a, E_STR, loc);
    size_t n = strlen(s);
    e->u.str.s = arena_strndup(a, s, n);
    e->u.str.len = (int)n;
    return e;
}

Stmt *stmt_new(Arena *a, StmtKind k, Loc loc)
{
    Stmt *s = arena_zalloc(a, sizeof *s);
    s->kind = k;
    s->loc = loc;
    return s;
}

/* The bytes of a variable of kind k: a Relax one ends before `loop`, a
 * brief one before `said` (see struct Var), except under AddressSanitizer,
 * where each is whole. */
static size_t var_size(VarKind k, int brief)
{
#if !defined(__SANITIZE_ADDRESS__)
    if (brief)
        return offsetof(Var, said);
    if (k == VAR_RELAX)
        return offsetof(Var, loop);
#endif
    (void)k;
    (void)brief;
    return sizeof(Var);
}

Var *var_copy(Arena *a, const Var *v)
{
    Var *c = arena_zalloc(a, sizeof *c);
    memcpy(c, v, var_size(v->kind, v->brief));
    c->brief = 0;
    return c;
}

static Var *make_var(Arena *a, Sym *name, VarKind k, Loc loc, int brief)
{
    Var *v = arena_zalloc(a, var_size(k, brief));
    v->name = name;
    v->kind = k;
    v->loc = loc;
    v->dtype = k == VAR_RELAX ? DT_VOID : DT_INT32;
    v->brief = brief != 0;
    return v;
}

Var *var_new(Arena *a, Sym *name, VarKind k, Loc loc)
{
    return make_var(a, name, k, loc, 0);
}

Var *var_read(Arena *a, Sym *name, Loc loc)
{
    return make_var(a, name, VAR_RELAX, loc, 1);
}

static int exprs_equal(Expr *const *a, Expr *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!expr_equal(a[i], b[i]))
            return 0;
    return 1;
}

int expr_equal(const Expr *a, const Expr *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case E_VAR: return a->u.var == b->u.var;
    case E_INT: return a->u.i.v == b->u.i.v && a->u.i.dtype == b->u.i.dtype;
    case E_FLOAT:
        return memcmp(&a->u.f.v, &b->u.f.v, sizeof(double)) == 0 && a->u.f.dtype == b->u.f.dtype;
    case E_STR: return a->u.str.len == b->u.str.len && memcmp(a->u.str.s, b->u.str.s, (size_t)a->u.str.len) == 0;
    case E_BOOL: return a->u.b == b->u.b;
    case E_NONE: return 1;
    case E_TUPLE:
    case E_LIST:
        return a->u.list.n == b->u.list.n && exprs_equal(a->u.list.items, b->u.list.items, a->u.list.n);
    case E_BIN:
        return a->u.bin.op == b->u.bin.op && expr_equal(a->u.bin.a, b->u.bin.a) && expr_equal(a->u.bin.b, b->u.bin.b);
    case E_UNARY: return a->u.un.op == b->u.un.op && expr_equal(a->u.un.a, b->u.un.a);
    case E_LOAD:
        return a->u.load.buf == b->u.load.buf && a->u.load.n == b->u.load.n &&
               exprs_equal(a->u.load.idx, b->u.load.idx, a->u.load.n);
    case E_CAST: return a->u.cast.dtype == b->u.cast.dtype && expr_equal(a->u.cast.a, b->u.cast.a);
    case E_SLICE: return expr_equal(a->u.slice.lo, b->u.slice.lo) && expr_equal(a->u.slice.hi, b->u.slice.hi);
    case E_GLOBAL: return a->u.global.name == b->u.global.name;
    case E_GETITEM: return a->u.get.index == b->u.get.index && expr_equal(a->u.get.tuple, b->u.get.tuple);
    case E_CALL:
        if (a->u.call.op != b->u.call.op || !expr_equal(a->u.call.callee, b->u.call.callee) || a->u.call.nargs != b->u.call.nargs || a->u.call.nkw != b->u.call.nkw)
            return 0;
        for (int i = 0; i < a->u.call.nkw; i++)
            if (a->u.call.kw[i] != b->u.call.kw[i])
                return 0;
        return exprs_equal(a->u.call.args, b->u.call.args, a->u.call.nargs + a->u.call.nkw);
    default:
        return 0;   /* maps, struct info, dicts, constants: compared by identity */
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

uint64_t expr_hash(const Expr *e)
{
    if (!e)
        return 0x51;
    uint64_t h = mix(0xCBF29CE484222325ull, (uint64_t)e->kind);
    switch (e->kind) {
    case E_VAR: return mix(h, (uint64_t)(uintptr_t)e->u.var);
    case E_INT: return mix(mix(h, (uint64_t)e->u.i.v), (uint64_t)e->u.i.dtype);
    case E_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &e->u.f.v, sizeof bits);
        return mix(mix(h, bits), (uint64_t)e->u.f.dtype);
    }
    case E_STR:
        for (int i = 0; i < e->u.str.len; i++)
            h = mix(h, (unsigned char)e->u.str.s[i]);
        return h;
    case E_BOOL: return mix(h, (uint64_t)e->u.b);
    case E_NONE: return h;
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            h = mix(h, expr_hash(e->u.list.items[i]));
        return h;
    case E_BIN: return mix(mix(mix(h, (uint64_t)e->u.bin.op), expr_hash(e->u.bin.a)), expr_hash(e->u.bin.b));
    case E_UNARY: return mix(mix(h, (uint64_t)e->u.un.op), expr_hash(e->u.un.a));
    case E_LOAD:
        h = mix(h, (uint64_t)(uintptr_t)e->u.load.buf);
        for (int i = 0; i < e->u.load.n; i++)
            h = mix(h, expr_hash(e->u.load.idx[i]));
        return h;
    case E_CAST: return mix(mix(h, (uint64_t)e->u.cast.dtype), expr_hash(e->u.cast.a));
    case E_SLICE: return mix(mix(h, expr_hash(e->u.slice.lo)), expr_hash(e->u.slice.hi));
    case E_GLOBAL: return mix(h, (uint64_t)(uintptr_t)e->u.global.name);
    case E_GETITEM: return mix(mix(h, (uint64_t)e->u.get.index), expr_hash(e->u.get.tuple));
    case E_CALL:
        h = mix(mix(h, (uint64_t)(uintptr_t)e->u.call.op), expr_hash(e->u.call.callee));
        for (int i = 0; i < e->u.call.nkw; i++)
            h = mix(h, (uint64_t)(uintptr_t)e->u.call.kw[i]);
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            h = mix(h, expr_hash(e->u.call.args[i]));
        return h;
    default:
        return mix(h, (uint64_t)(uintptr_t)e);   /* compared by identity */
    }
}

DType tir_dtype(const Expr *e)
{
    switch (e->kind) {
    case E_INT: return e->u.i.dtype == DT_VOID ? DT_INT32 : e->u.i.dtype;
    case E_FLOAT: return e->u.f.dtype == DT_VOID ? DT_FLOAT32 : e->u.f.dtype;
    case E_BOOL: return DT_BOOL;
    case E_VAR: return e->u.var->dtype;
    case E_LOAD: return e->u.load.buf->dtype;
    case E_CAST: return e->u.cast.dtype;
    case E_UNARY: return e->u.un.op == U_NOT ? DT_BOOL : tir_dtype(e->u.un.a);
    case E_BIN:
        if (e->u.bin.op >= B_LT)
            return DT_BOOL;
        if (e->u.bin.a->kind == E_INT && e->u.bin.a->u.i.dtype == DT_VOID)
            return tir_dtype(e->u.bin.b);
        return tir_dtype(e->u.bin.a);
    case E_CALL: {
        const char *op = e->u.call.op->str;
        DType t;
        if ((streq(op, "T.if_then_else") || streq(op, "T.Select")) && e->u.call.nargs == 3)
            return tir_dtype(e->u.call.args[1]);
        if (e->u.call.nargs > 0 && e->u.call.args[0]->kind == E_STR && dtype_parse(e->u.call.args[0]->u.str.s, &t) == 0)
            return t;   /* T.call_extern("float32", ...) and friends */
        if (e->u.call.nargs > 0)
            return tir_dtype(e->u.call.args[0]);
        return DT_INT32;
    }
    default: return DT_INT32;
    }
}

int expr_const_int(const Expr *e, int64_t *out)
{
    if (e->kind != E_INT)
        return -1;
    *out = e->u.i.v;
    return 0;
}

int expr_eval_int(const Expr *e, VarValue value, void *data, int64_t *out)
{
    int64_t x, y;
    switch (e->kind) {
    case E_INT:
        *out = e->u.i.v;
        return 0;
    case E_VAR:
        return value(e->u.var, data, out) ? -1 : 0;
    case E_CAST:
        return expr_eval_int(e->u.cast.a, value, data, out);
    case E_UNARY:
        if (e->u.un.op != U_NEG || expr_eval_int(e->u.un.a, value, data, &x) || x == INT64_MIN)
            return -1;
        *out = -x;
        return 0;
    case E_BIN:
        if (expr_eval_int(e->u.bin.a, value, data, &x) || expr_eval_int(e->u.bin.b, value, data, &y))
            return -1;
        switch (e->u.bin.op) {
        case B_ADD: return __builtin_add_overflow(x, y, out) ? -1 : 0;
        case B_SUB: return __builtin_sub_overflow(x, y, out) ? -1 : 0;
        case B_MUL: return __builtin_mul_overflow(x, y, out) ? -1 : 0;
        case B_FLOORDIV:
        case B_FLOORMOD:
            if (y == 0 || (y == -1 && x == INT64_MIN))
                return -1;
            *out = e->u.bin.op == B_FLOORDIV ? floordiv64(x, y) : floormod64(x, y);
            return 0;
        case B_BITAND: *out = x & y; return 0;
        case B_BITOR: *out = x | y; return 0;
        case B_BITXOR: *out = x ^ y; return 0;
        case B_SHL:
        case B_SHR:
            /* int64 here: a shift that leaves the value's own width is not one to fold */
            if (y < 0 || y >= 63 || (e->u.bin.op == B_SHL && (x < 0 || x > (INT64_MAX >> y))))
                return -1;
            *out = e->u.bin.op == B_SHL ? x << y : x >> y;
            return 0;
        default: return -1;
        }
    default: return -1;
    }
}

StructInfo *tensor_sinfo_new(Arena *a, DType dt, int ndim, const int64_t *shape, Loc loc)
{
    StructInfo *s = arena_zalloc(a, sizeof *s);
    s->kind = SI_TENSOR;
    s->loc = loc;
    s->ndim = ndim;
    s->dtype = dt;
    s->shape = arena_array(a, (size_t)ndim + 1, sizeof *s->shape);
    for (int i = 0; i < ndim; i++)
        s->shape[i] = expr_int(a, shape[i], DT_VOID, loc);
    return s;
}

void relax_walk_blocks(struct RBlock *const *blocks, int nblocks, ExprVisit visit, void *data)
{
    for (int b = 0; b < nblocks; b++)
        for (int i = 0; i < blocks[b]->nbinds; i++)
            relax_walk(blocks[b]->binds[i]->value, visit, data);
}

void relax_walk(const Expr *e, ExprVisit visit, void *data)
{
    if (!e || visit(e, data))
        return;
    switch (e->kind) {
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            relax_walk(e->u.list.items[i], visit, data);
        break;
    case E_DICT:
        for (int i = 0; i < e->u.dict.n; i++)
            relax_walk(e->u.dict.vals[i], visit, data);
        break;
    case E_GETITEM:
        relax_walk(e->u.get.tuple, visit, data);
        break;
    case E_CALL:
        relax_walk(e->u.call.callee, visit, data);
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            relax_walk(e->u.call.args[i], visit, data);
        break;
    case E_IF: {
        const RSeq *q[2] = { e->u.rif.then, e->u.rif.orelse };
        relax_walk(e->u.rif.cond, visit, data);
        for (int k = 0; k < 2; k++) {
            relax_walk_blocks(q[k]->blocks, q[k]->nblocks, visit, data);
            relax_walk(q[k]->result, visit, data);
        }
        break;
    }
    case E_FUNC:
        relax_walk_blocks(e->u.global.fn->blocks, e->u.global.fn->nblocks, visit, data);
        relax_walk(e->u.global.fn->result, visit, data);
        break;
    default:
        break;
    }
}

/* ---- what the passes and the interpreter leave alone ---- */

static const char *expr_unhandled(const Expr *e)
{
    if (!e)
        return NULL;
    const char *r = NULL;
    switch (e->kind) {
    case E_VAR:
        if (e->u.var->kind == VAR_RELAX || !e->u.var->data_of)
            return NULL;
        return e->u.var->dtype == DT_HANDLE ? "B.data" : "B.elem_offset or B.strides[i] as a variable";
    case E_BIN:
        return (r = expr_unhandled(e->u.bin.a)) ? r : expr_unhandled(e->u.bin.b);
    case E_UNARY: return expr_unhandled(e->u.un.a);
    case E_CAST: return expr_unhandled(e->u.cast.a);
    case E_LOAD:
        for (int i = 0; i < e->u.load.n && !r; i++)
            r = expr_unhandled(e->u.load.idx[i]);
        return r;
    case E_CALL:
        if (streq(e->u.call.op->str, "T.comm_reducer"))
            return "T.comm_reducer";
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw && !r; i++)
            r = expr_unhandled(e->u.call.args[i]);
        return r;
    case E_TUPLE: case E_LIST:
        for (int i = 0; i < e->u.list.n && !r; i++)
            r = expr_unhandled(e->u.list.items[i]);
        return r;
    default: return NULL;
    }
}

static const char *stmt_unhandled(const Stmt *s, int run)
{
    static const char *const low[] = {
        [LOW_ATTR] = "T.attr", [LOW_WHILE] = "while", [LOW_ASSERT] = "assert",
        [LOW_BREAK] = "break", [LOW_CONTINUE] = "continue", [LOW_IDS] = "a scope id such as T.cta_id",
    };
    const char *r = NULL;
    if (!s)
        return NULL;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n && !r; i++)
            r = stmt_unhandled(s->u.seq.items[i], run);
        return r;
    case S_FOR:
        if (s->u.loop.step)
            return "a loop with step=";
        return (r = expr_unhandled(s->u.loop.extent)) ? r : stmt_unhandled(s->u.loop.body, run);
    case S_BLOCK: {
        const Block *b = s->u.block;
        if ((r = stmt_unhandled(b->init, run)))
            return r;
        return stmt_unhandled(b->body, run);
    }
    case S_STORE:
        for (int i = 0; i < s->u.store.n && !r; i++)
            r = expr_unhandled(s->u.store.idx[i]);
        return r ? r : expr_unhandled(s->u.store.value);
    case S_IF:
        if ((r = expr_unhandled(s->u.branch.cond)) || (r = stmt_unhandled(s->u.branch.then, run)))
            return r;
        return stmt_unhandled(s->u.branch.orelse, run);
    case S_EVAL: return expr_unhandled(s->u.eval);
    case S_ALLOC: return s->u.alloc->region && !run ? "T.match_buffer of a region" : NULL;
    case S_LET: return expr_unhandled(s->u.let.value);
    case S_LOWERED:
        /* with T.attr(...): a hint the interpreter runs through; the passes
         * leave a function holding one as it is */
        if (run && s->u.low.k == LOW_ATTR && s->u.low.body)
            return stmt_unhandled(s->u.low.body, run);
        return low[s->u.low.k];
    }
    return NULL;
}

const char *tir_unhandled(const Func *f)
{
    return f->kind == F_PRIM ? stmt_unhandled(f->body, 0) : NULL;
}

const char *tir_unrunnable(const Func *f)
{
    return f->kind == F_PRIM ? stmt_unhandled(f->body, 1) : NULL;
}

int func_force_pure(const Func *f)
{
    const Expr *d = f->attrs;
    if (!d || d->kind != E_DICT)
        return 0;
    for (int i = 0; i < d->u.dict.n; i++)
        if (d->u.dict.keys[i]->kind == E_STR && streq(d->u.dict.keys[i]->u.str.s, "relax.force_pure"))
            return d->u.dict.vals[i]->kind == E_BOOL ? d->u.dict.vals[i]->u.b
                 : d->u.dict.vals[i]->kind == E_INT && d->u.dict.vals[i]->u.i.v != 0;
    return 0;
}

Buffer *prim_param_buffer(const Func *f, int i)
{
    const PParam *p = &f->pparams[i];
    if (p->buf)
        return p->buf;
    const Stmt *b = f->body;
    int n = b->kind == S_SEQ ? b->u.seq.n : 1;
    for (int k = 0; k < n; k++) {
        const Stmt *s = b->kind == S_SEQ ? b->u.seq.items[k] : b;
        if (s->kind == S_ALLOC && s->u.alloc->handle == p->var)
            return s->u.alloc;
    }
    return NULL;
}
