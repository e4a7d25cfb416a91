/* The passes' normal form: a call written inside another value is bound to
 * a variable of its own first (graph.h, bind_nested_calls), with graph.c's
 * fresh names and types. The pass manager calls it before every pass that
 * changes the module; the reader and the printer keep the module as written. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "../ir/oom.h"

/* The bindings made for the values of one block (or a result), in order;
 * malloc'd. */
typedef struct Emit {
    Binding **v;
    int n, cap;
    int dataflow;
} Emit;

typedef struct Norm {
    Module *m;
    const Func *top;      /* the function of the module being normalized */
    PtrMap names;         /* its names, every scope's (collected at the first binding made) */
    int named;
    Notes *ns;
    /* where the value being normalized stands, for the note: in, then in_name */
    const char *in;
    const char *in_name;
    int made;
} Norm;

static void emit(Emit *E, Binding *b)
{
    if (E->n == E->cap) {
        E->cap = E->cap ? 2 * E->cap : 8;
        E->v = scratch_realloc(E->v, (size_t)E->cap * sizeof *E->v);   /* freed if the pass unwinds */
    }
    E->v[E->n++] = b;
}

static void collect_blocks(PtrMap *names, RBlock *const *blocks, int n);

static int collect_value(const Expr *e, void *names)
{
    if (e->kind == E_IF) {
        collect_blocks(names, e->u.rif.then->blocks, e->u.rif.then->nblocks);
        collect_blocks(names, e->u.rif.orelse->blocks, e->u.rif.orelse->nblocks);
    } else if (e->kind == E_FUNC) {
        const Func *f = e->u.global.fn;
        for (int i = 0; i < f->nparams; i++)
            ptrmap_put(names, f->params[i]->name, 1);
        collect_blocks(names, f->blocks, f->nblocks);
    }
    return 0;
}

/* The names bound in blocks, in the branches and local functions inside them too. */
static void collect_blocks(PtrMap *names, RBlock *const *blocks, int n)
{
    for (int b = 0; b < n; b++)
        for (int i = 0; i < blocks[b]->nbinds; i++) {
            ptrmap_put(names, blocks[b]->binds[i]->var->name, 1);
            relax_walk(blocks[b]->binds[i]->value, collect_value, names);
        }
}

/* A new name must be new in every scope of the function (a branch's or a
 * local function's name printed again in the function would shadow it), and
 * not a shape variable's. */
static void collect_all(Norm *N)
{
    const Func *f = N->top;
    collect_names(f, &N->names);
    for (int i = 0; i < f->nsyms; i++)
        ptrmap_put(&N->names, f->syms[i]->name, 1);
    collect_blocks(&N->names, f->blocks, f->nblocks);
    N->named = 1;
}

/* Whether e is a call that computes a value. R.shape, R.prim_value,
 * R.str, R.dtype and R.device write a value out (TVM's leaves, as a
 * constant is), and a call not of R.* nor of a function is TIR written
 * in an attribute. */
static int is_value_call(const Expr *e)
{
    if (e->kind != E_CALL)
        return 0;
    if (e->u.call.callee)
        return 1;
    const char *op = e->u.call.op->str;
    return strncmp(op, "R.", 2) == 0 && !streq(op, "R.shape") && !streq(op, "R.prim_value") && !streq(op, "R.str") &&
           !streq(op, "R.dtype") && !streq(op, "R.device");
}

/* What the note calls the value bound. */
static void what_text(const Expr *e, char *buf, size_t cap)
{
    if (e->kind == E_GETITEM)
        snprintf(buf, cap, "an item of a tuple");
    else if (e->u.call.callee && e->u.call.callee->kind == E_GLOBAL)
        snprintf(buf, cap, "the call of cls.%s", e->u.call.callee->u.global.name->str);
    else if (e->u.call.callee && e->u.call.callee->kind == E_VAR)
        snprintf(buf, cap, "the call of %s", e->u.call.callee->u.var->name->str);
    else
        snprintf(buf, cap, "the %s call", e->u.call.op->str);
}

/* v, its operands already variables, as a new binding in E; a reference to it. */
static Expr *bind(Norm *N, Emit *E, Expr *v)
{
    Module *m = N->m;
    if (!N->named)
        collect_all(N);
    Binding *b = binding_fresh(m, &N->names, "lv", E->dataflow, infer_value(m, v), v, v->loc);
    emit(E, b);
    N->made++;
    char what[200] = "";
    if (!N->ns->mute)
        what_text(v, what, sizeof what);
    note_add(N->ns, v->loc, "bound %s written inside %s%s to a variable of its own, %s", what, N->in, N->in_name,
             b->var->name->str);
    return var_ref(&m->arena, b->var, v->loc);
}

static Expr *norm_value(Norm *N, Emit *E, Expr *e);

/* A value in an operand's place: a variable, a constant or a value written
 * out stay, a tuple stays with its fields in this form, and anything else
 * is bound. */
static Expr *norm_arg(Norm *N, Emit *E, Expr *e)
{
    if (e->kind == E_TUPLE)
        return norm_value(N, E, e);
    if (!is_value_call(e) && e->kind != E_GETITEM)
        return e;
    return bind(N, E, norm_value(N, E, e));
}

/* The n items from items as operands: the same array when none changed, else a new one. */
static Expr **norm_items(Norm *N, Emit *E, Expr **items, int n, int extra)
{
    Expr **out = items;
    for (int i = 0; i < n; i++) {
        Expr *x = norm_arg(N, E, items[i]);
        if (x != items[i] && out == items) {
            out = arena_array(&N->m->arena, (size_t)(n + extra) + 1, sizeof *out);
            memcpy(out, items, (size_t)(n + extra) * sizeof *out);
        }
        out[i] = x;
    }
    return out;
}

static void norm_blocks(Norm *N, RBlock **blocks, int nblocks);
static void norm_func(Norm *N, Func *f);

/* Appends the bindings of E to *blocks: to the last block when it is not
 * a dataflow block (the result reads them outside any), else as a new one. */
static void append_result_bindings(Norm *N, RBlock ***blocks, int *nblocks, const Emit *E, Loc loc)
{
    if (!E->n)
        return;
    Arena *a = &N->m->arena;
    RBlock *last = *nblocks ? (*blocks)[*nblocks - 1] : NULL;
    if (!last || last->dataflow) {
        RBlock **g = arena_array(a, (size_t)*nblocks + 2, sizeof *g);
        if (*nblocks)
            memcpy(g, *blocks, (size_t)*nblocks * sizeof *g);
        last = arena_zalloc(a, sizeof *last);
        last->loc = loc;
        last->out_loc = loc;
        g[(*nblocks)++] = last;
        *blocks = g;
    }
    Binding **b = arena_array(a, (size_t)(last->nbinds + E->n) + 1, sizeof *b);
    if (last->nbinds)
        memcpy(b, last->binds, (size_t)last->nbinds * sizeof *b);
    memcpy(b + last->nbinds, E->v, (size_t)E->n * sizeof *b);
    last->binds = b;
    last->nbinds += E->n;
}

/* A sequence's blocks, then its result: a function's as an operand (TVM
 * returns a variable), a branch's as a binding's value (the branch's last
 * line, y = value, is the value of the if's variable). */
static Expr *norm_seq(Norm *N, RBlock ***blocks, int *nblocks, Expr *result, const char *in, const char *name,
                      int branch)
{
    norm_blocks(N, *blocks, *nblocks);
    if (!result)
        return NULL;
    Emit E = { 0 };
    N->in = in;
    N->in_name = name;
    Expr *r = branch ? norm_value(N, &E, result) : norm_arg(N, &E, result);
    append_result_bindings(N, blocks, nblocks, &E, result->loc);
    scratch_free(E.v);
    return r;
}

/* e as a binding's value: its operands made variables (or constants, or
 * tuples of them), the bindings for them in E, then e's new form. */
static Expr *norm_value(Norm *N, Emit *E, Expr *e)
{
    switch (e->kind) {
    case E_CALL: {
        if (!is_value_call(e))
            return e;
        Expr **args = norm_items(N, E, e->u.call.args, e->u.call.nargs, e->u.call.nkw);
        if (args == e->u.call.args)
            return e;
        Expr *c = expr_copy(&N->m->arena, e);
        c->u.call.args = args;
        return c;
    }
    case E_TUPLE: {
        Expr **items = norm_items(N, E, e->u.list.items, e->u.list.n, 0);
        if (items == e->u.list.items)
            return e;
        Expr *c = expr_copy(&N->m->arena, e);
        c->u.list.items = items;
        return c;
    }
    case E_GETITEM: {
        Expr *t = norm_arg(N, E, e->u.get.tuple);
        if (t == e->u.get.tuple)
            return e;
        Expr *c = expr_copy(&N->m->arena, e);
        c->u.get.tuple = t;
        return c;
    }
    case E_IF: {
        const char *name = N->in_name;
        N->in = "the condition of the if giving ";
        e->u.rif.cond = norm_arg(N, E, e->u.rif.cond);
        RSeq *q[2] = { e->u.rif.then, e->u.rif.orelse };
        for (int k = 0; k < 2; k++)
            q[k]->result = norm_seq(N, &q[k]->blocks, &q[k]->nblocks, q[k]->result, "a branch of the value of ", name, 1);
        return e;
    }
    case E_FUNC:
        norm_func(N, e->u.global.fn);
        return e;
    default:
        return e;
    }
}

static void norm_blocks(Norm *N, RBlock **blocks, int nblocks)
{
    for (int b = 0; b < nblocks; b++) {
        RBlock *rb = blocks[b];
        Emit E = { .dataflow = rb->dataflow };
        int made = 0;
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            N->in = "the value of ";
            N->in_name = bd->var->name->str;
            int before = E.n;
            Expr *v = norm_value(N, &E, bd->value);
            if (E.n > before) {
                bd->value = v;
                /* typed now that its operands are, so that the calls
                 * bound after it that read it are typed too */
                if (!bd->annot && !bd->var->sinfo)
                    bd->var->sinfo = infer_value(N->m, v);
                made = 1;
            }
            emit(&E, bd);
        }
        if (made) {
            rb->binds = arena_array(&N->m->arena, (size_t)E.n + 1, sizeof *rb->binds);
            memcpy(rb->binds, E.v, (size_t)E.n * sizeof *rb->binds);
            rb->nbinds = E.n;
        }
        scratch_free(E.v);
    }
}

static void norm_func(Norm *N, Func *f)
{
    f->result = norm_seq(N, &f->blocks, &f->nblocks, f->result, "the result of ",
                         f->name ? f->name->str : "a local function", 0);
}

int bind_nested_calls(Module *m, Notes *ns)
{
    int made = 0;
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        if (f->kind != F_RELAX)
            continue;
        Norm N = { .m = m, .top = f, .ns = ns };
        oom_defer(ptrmap_free_v, &N.names);
        norm_func(&N, f);
        oom_keep(&N.names);
        ptrmap_free(&N.names);
        made += N.made;
    }
    return made;
}
