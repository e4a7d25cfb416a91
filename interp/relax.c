/* Running Relax functions: bindings in order, tuples, constants, calls of
 * PrimFuncs through R.call_tir (outputs allocated from out_sinfo), calls of
 * other Relax functions, the layout rewrites R.layout_transform (padding
 * filled with pad_value, or with poison when it is absent), shape values
 * (R.shape, R.shape_of, R.shape_to_tensor, R.tensor_to_shape) and
 * R.match_cast, which binds the symbolic variables of its annotation. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/indexmap.h"
#include "../ir/vdevice.h"
#include "../printer/print.h"
#include "interp.h"
#include "../ir/oom.h"

static void value_free_v(void *v)
{
    value_free(v);
}

static void tensor_free_v(void *t)
{
    tensor_free(t);
}

Value *value_tensor(Tensor *t)
{
    oom_defer(tensor_free_v, t);   /* t is the value's: it goes if the value cannot be made */
    Value *v = xcalloc(1, sizeof *v);
    oom_keep(t);
    v->kind = VAL_TENSOR;
    v->t = t;
    return v;
}

Value *value_tuple(Value **items, int n)
{
    Value *v = xcalloc(1, sizeof *v);
    if (!v)
        oom_fail();
    v->kind = VAL_TUPLE;
    v->n = n;
    v->items = xcalloc((size_t)n + 1, sizeof *v->items);
    if (!v->items)
        oom_fail();
    memcpy(v->items, items, (size_t)n * sizeof *items);
    return v;
}

Value *value_shape(const int64_t *dims, int n)
{
    int64_t len = n;
    Tensor *t = tensor_new(DT_INT64, 1, &len);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++)
        tensor_seti(t, i, dims[i]);
    Value *v = value_tensor(t);
    v->kind = VAL_SHAPE;
    return v;
}

Value *value_prim_int(DType t, int64_t v)
{
    int64_t none = 0;
    Tensor *x = tensor_new(t, 0, &none);
    if (!x)
        return NULL;
    tensor_seti(x, 0, v);
    Value *p = value_tensor(x);
    p->kind = VAL_PRIM;
    return p;
}

Value *value_clone(const Value *v)
{
    if (v->kind != VAL_TUPLE) {
        Tensor *t = tensor_clone(v->t);
        if (!t)
            return NULL;
        Value *c = value_tensor(t);
        c->kind = v->kind;
        return c;
    }
    Value *c = value_tuple(v->items, v->n);
    int ok = 1;
    for (int i = 0; i < v->n; i++)
        ok &= (c->items[i] = value_clone(v->items[i])) != NULL;
    if (!ok) {
        value_free(c);
        return NULL;
    }
    return c;
}

void value_free(Value *v)
{
    if (!v)
        return;
    if (v->kind != VAL_TUPLE) {
        tensor_free(v->t);
    } else {
        for (int i = 0; i < v->n; i++)
            value_free(v->items[i]);
        free(v->items);
    }
    free(v);
}

int interp_param_shape(const Var *v, DType *dt, int *ndim, int64_t *shape)
{
    const StructInfo *s = v->sinfo;
    if (!s || s->kind != SI_TENSOR || !s->shape || s->ndim < 0 || s->ndim > TENSOR_MAX_RANK || s->dtype == DT_VOID)
        return -1;
    for (int i = 0; i < s->ndim; i++)
        if (expr_const_int(s->shape[i], &shape[i]) || shape[i] < 0)
            return -1;
    *dt = s->dtype;
    *ndim = s->ndim;
    return 0;
}

/* ---- when a function's values die: computed once per function ---- */

/* The last top-level binding of f that reads each variable (nbind for the
 * result, its own binding for one never read), and the variables whose
 * last reader each binding is. A value dies after the last binding that
 * reads a variable holding it, so a run keeps the values still to be read,
 * not every value it made. */
struct RelaxPlan {
    const Func *fn;
    int nbind;
    const Var **keys;     /* open addressing over cap slots */
    int *last;
    size_t cap;
    int *dies;            /* dies[dstart[i] .. dstart[i + 1]): vars last read at binding i */
    const Var **dvars;
};

/* The plans of the functions run so far, open addressing by function. */
struct RelaxPlans {
    struct RelaxPlan **slots;
    size_t n, cap;
};

static size_t plan_slot(const struct RelaxPlan *P, const Var *k)
{
    size_t mask = P->cap - 1, i = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (P->keys[i] && P->keys[i] != k)
        i = (i + 1) & mask;
    return i;
}

/* The last binding that reads v (nbind: the result), or -1 when f binds
 * and reads it nowhere at top level (a branch's own variable). */
static int plan_last(const struct RelaxPlan *P, const Var *v)
{
    size_t at = plan_slot(P, v);
    return P->keys[at] ? P->last[at] : -1;
}

typedef struct PlanWalk {
    struct RelaxPlan *P;
    int at;
    int count;            /* 1: count variable references only */
    int nrefs;
} PlanWalk;

static void plan_note(struct RelaxPlan *P, const Var *v, int at)
{
    size_t i = plan_slot(P, v);
    if (!P->keys[i]) {
        P->keys[i] = v;
        P->last[i] = at;
    } else if (P->last[i] < at) {
        P->last[i] = at;
    }
}

static int plan_visit(const Expr *e, void *data)
{
    PlanWalk *w = data;
    if (e->kind == E_VAR) {
        if (w->count)
            w->nrefs++;
        else
            plan_note(w->P, e->u.var, w->at);
    }
    return 0;
}

/* Fills P, already in its table (so relax_plans_free frees what is built
 * when an allocation below fails: each array set once it exists). */
static void plan_fill(struct RelaxPlan *P, const Func *f)
{
    PlanWalk w = { .P = P, .count = 1 };
    relax_walk_blocks(f->blocks, f->nblocks, plan_visit, &w);
    relax_walk(f->result, plan_visit, &w);
    for (int b = 0; b < f->nblocks; b++)
        P->nbind += f->blocks[b]->nbinds;
    size_t need = (size_t)w.nrefs + (size_t)P->nbind + 1;
    size_t cap = 16;
    while (cap < 2 * need)
        cap *= 2;
    if (!(P->keys = xcalloc(cap, sizeof *P->keys)) || !(P->last = xcalloc(cap, sizeof *P->last)))
        oom_fail();
    P->cap = cap;
    w.count = 0;
    int i = 0;
    for (int b = 0; b < f->nblocks; b++)
        for (int k = 0; k < f->blocks[b]->nbinds; k++, i++) {
            w.at = i;
            plan_note(P, f->blocks[b]->binds[k]->var, i);
            relax_walk(f->blocks[b]->binds[k]->value, plan_visit, &w);
        }
    w.at = P->nbind;
    relax_walk(f->result, plan_visit, &w);
    /* the variables dying at each binding, grouped by binding */
    if (!(P->dies = xcalloc((size_t)P->nbind + 2, sizeof *P->dies)) ||
        !(P->dvars = xcalloc(P->cap + 1, sizeof *P->dvars)))
        oom_fail();
    for (size_t s = 0; s < P->cap; s++)
        if (P->keys[s] && P->last[s] < P->nbind)
            P->dies[P->last[s] + 1]++;
    for (int j = 0; j < P->nbind; j++)
        P->dies[j + 1] += P->dies[j];
    int *fill = xcalloc((size_t)P->nbind + 1, sizeof *fill);
    if (!fill)
        oom_fail();
    for (size_t s = 0; s < P->cap; s++)
        if (P->keys[s] && P->last[s] < P->nbind) {
            int j = P->last[s];
            P->dvars[P->dies[j] + fill[j]++] = P->keys[s];
        }
    free(fill);
}

void relax_plans_free(struct RelaxPlans *T)
{
    if (!T)
        return;
    for (size_t i = 0; i < T->cap; i++) {
        struct RelaxPlan *P = T->slots[i];
        if (P) {
            free(P->keys);
            free(P->last);
            free(P->dies);
            free(P->dvars);
            free(P);
        }
    }
    free(T->slots);
    free(T);
}

static size_t plans_slot(const struct RelaxPlans *T, const Func *f)
{
    size_t mask = T->cap - 1, i = ((uintptr_t)f >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (T->slots[i] && T->slots[i]->fn != f)
        i = (i + 1) & mask;
    return i;
}

/* f's plan, made on its first call in this interpreter. */
static const struct RelaxPlan *plan_of(Interp *in, const Func *f)
{
    struct RelaxPlans **tp = interp_plans(in), *T = *tp;
    if (!T && !(T = *tp = xcalloc(1, sizeof *T)))
        oom_fail();
    if (T->cap) {
        size_t at = plans_slot(T, f);
        if (T->slots[at])
            return T->slots[at];
    }
    if (2 * (T->n + 1) > T->cap) {
        /* the new table is made before T changes: a failure leaves T whole */
        struct RelaxPlan **old = T->slots, **slots;
        size_t ocap = T->cap, cap = ocap ? 2 * ocap : 16;
        if (!(slots = xcalloc(cap, sizeof *slots)))
            oom_fail();
        T->slots = slots;
        T->cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i])
                T->slots[plans_slot(T, old[i]->fn)] = old[i];
        free(old);
    }
    struct RelaxPlan *P = xcalloc(1, sizeof *P);
    if (!P)
        oom_fail();
    P->fn = f;
    T->slots[plans_slot(T, f)] = P;
    T->n++;
    plan_fill(P, f);
    return P;
}

/* ---- the environment: the values made during a call, each freed after
 * the last binding that reads it ---- */

typedef struct Env {
    Interp *in;
    Func *fn;
    const struct Env *caller;  /* the Relax call this one runs inside, or NULL */
    int depth;                 /* Relax calls from main to here */
    const Var **keys;  /* each variable's latest value, open addressing over cap slots */
    Value **vals;      /* borrowed from owned or from the arguments; NULL once dead */
    size_t n, cap;
    Value **owned;     /* NULL once freed */
    int *death;        /* the binding after which owned[i] is freed */
    int nowned, capowned;
    const struct RelaxPlan *plan;
    int cur;           /* the top-level binding running (plan->nbind: the result) */
    int *dying;        /* dying[j]: the first node of a list of entries that may die after binding j */
    int *node_entry, *node_next;  /* the lists' nodes: an entry, the next node or -1 */
    int nnodes, capnodes;
    const Value **okeys;  /* owned values and their items: which entry holds each */
    int *oval;         /* the entry, or -1 once freed */
    size_t on, ocap;
    const Var *syms[64];       /* symbolic dimensions bound from the arguments' shapes */
    int64_t symv[64];
    int nsyms;
    InterpError *err;
} Env;

static size_t owner_slot(const Env *E, const Value *v)
{
    size_t mask = E->ocap - 1, i = ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (E->okeys[i] && E->okeys[i] != v)
        i = (i + 1) & mask;
    return i;
}

/* Records that entry k holds v and the items inside it (k -1: none does). */
static void set_owner(Env *E, const Value *v, int k)
{
    if (2 * (E->on + 1) > E->ocap) {
        const Value **ok = E->okeys;
        int *ov = E->oval;
        size_t ocap = E->ocap, cap = ocap ? 2 * ocap : 64;
        const Value **nk = xcalloc(cap, sizeof *nk);
        oom_defer(free, nk);   /* env_free frees E's tables, not one made halfway */
        int *nv = xmalloc(cap * sizeof *nv);
        oom_keep(nk);
        E->okeys = nk;
        E->oval = nv;
        E->ocap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (ok[i]) {
                size_t at = owner_slot(E, ok[i]);
                E->okeys[at] = ok[i];
                E->oval[at] = ov[i];
            }
        free(ok);
        free(ov);
    }
    size_t at = owner_slot(E, v);
    if (!E->okeys[at]) {
        E->okeys[at] = v;
        E->on++;
    }
    E->oval[at] = k;
    if (v->kind == VAL_TUPLE)
        for (int i = 0; i < v->n; i++)
            set_owner(E, v->items[i], k);
}

/* Entry k may die after binding j. */
static void die_after(Env *E, int k, int j)
{
    E->death[k] = j;
    if (!E->dying || j >= E->plan->nbind)
        return;
    if (E->nnodes == E->capnodes) {
        /* each array kept as soon as it moved: realloc freed the old one */
        int cap = E->capnodes ? 2 * E->capnodes : 32;
        E->node_entry = xrealloc(E->node_entry, (size_t)cap * sizeof *E->node_entry);
        E->node_next = xrealloc(E->node_next, (size_t)cap * sizeof *E->node_next);
        E->capnodes = cap;
    }
    E->node_entry[E->nnodes] = k;
    E->node_next[E->nnodes] = E->dying[j];
    E->dying[j] = E->nnodes++;
}

static Value *own(Env *E, Value *v)
{
    if (E->nowned == E->capowned) {
        /* each array kept as soon as it moved: realloc freed the old one */
        int cap = E->capowned ? 2 * E->capowned : 16;
        oom_defer(value_free_v, v);   /* v is not owned yet */
        E->owned = xrealloc(E->owned, (size_t)cap * sizeof *E->owned);
        E->death = xrealloc(E->death, (size_t)cap * sizeof *E->death);
        oom_keep(v);
        E->capowned = cap;
    }
    int k = E->nowned++;
    E->owned[k] = v;
    set_owner(E, v, k);
    die_after(E, k, E->cur);
    return v;
}

/* The entry holding v, or -1 (an argument, or one of its items). */
static int owner_of(const Env *E, const Value *v)
{
    if (!E->ocap)
        return -1;
    size_t at = owner_slot(E, v);
    return E->okeys[at] ? E->oval[at] : -1;
}

/* Variable x now holds v: v lives until x's last reader. */
static void keep_for(Env *E, const Var *x, const Value *v)
{
    int k = owner_of(E, v), last = E->plan ? plan_last(E->plan, x) : -1;
    if (k >= 0 && last > E->death[k])
        die_after(E, k, last);
}

/* After binding j: the values no binding after it reads are freed, and the
 * variables last read there forget them. */
static void release(Env *E, int j);

static size_t slot(const Env *E, const Var *k)
{
    size_t mask = E->cap - 1, i = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15u & mask;
    while (E->keys[i] && E->keys[i] != k)
        i = (i + 1) & mask;
    return i;
}

static void bind(Env *E, const Var *k, Value *v)
{
    if (2 * (E->n + 1) > E->cap) {
        const Var **ok = E->keys;
        Value **ov = E->vals;
        size_t ocap = E->cap, cap = ocap ? 2 * ocap : 32;
        const Var **nk = xcalloc(cap, sizeof *nk);
        oom_defer(free, nk);   /* env_free frees E's tables, not one made halfway */
        Value **nv = xmalloc(cap * sizeof *nv);
        oom_keep(nk);
        E->keys = nk;
        E->vals = nv;
        E->cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (ok[i]) {
                size_t at = slot(E, ok[i]);
                E->keys[at] = ok[i];
                E->vals[at] = ov[i];
            }
        free(ok);
        free(ov);
    }
    size_t at = slot(E, k);
    if (!E->keys[at]) {
        E->keys[at] = k;
        E->n++;
    }
    E->vals[at] = v;
    keep_for(E, k, v);
}

static void free_entry(Env *E, int k)
{
    set_owner(E, E->owned[k], -1);
    value_free(E->owned[k]);
    E->owned[k] = NULL;
}

static void release(Env *E, int j)
{
    const struct RelaxPlan *P = E->plan;
    for (int d = P->dies[j]; d < P->dies[j + 1]; d++) {
        size_t at = slot(E, P->dvars[d]);
        if (E->keys[at])
            E->vals[at] = NULL;
    }
    for (int node = E->dying[j]; node >= 0; node = E->node_next[node]) {
        int k = E->node_entry[node];
        if (E->death[k] == j && E->owned[k])
            free_entry(E, k);
    }
    E->dying[j] = -1;
}

static int rerr(Env *E, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int rerr(Env *E, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    E->err->loc = loc;
    vsnprintf(E->err->msg, sizeof E->err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static const Expr *kwarg(const Expr *e, const char *name)
{
    for (int i = 0; i < e->u.call.nkw; i++)
        if (strcmp(e->u.call.kw[i]->str, name) == 0)
            return call_kwv(e)[i];
    return NULL;
}

static Value *eval(Env *E, const Expr *e);
static Value *run_if(Env *E, const Expr *e);
static int call_relax(Interp *in, const Env *caller, Func *f, Value **args, int nargs, Value **out,
                      InterpError *err);

/* A symbolic variable's value, bound from the arguments' shapes. */
static int sym_bound(const Var *v, void *data, int64_t *out)
{
    const Env *E = data;
    for (int i = 0; i < E->nsyms; i++)
        if (E->syms[i] == v) {
            *out = E->symv[i];
            return 0;
        }
    return -1;
}

/* The value of a dimension: an integer, or arithmetic on symbolic
 * variables bound from the arguments' shapes. -1 when unknown. */
static int dim_value(const Env *E, const Expr *e, int64_t *v)
{
    return expr_eval_int(e, sym_bound, (void *)E, v);
}

/* Binds the symbolic dimensions of a parameter's type to its argument's
 * shape; a dimension already known must agree. */
static int bind_type_dims(Env *E, const Var *p, const StructInfo *s, const Tensor *t);

/* A tuple argument binds the dimensions of its items' types. */
static int bind_tuple_dims(Env *E, const Var *p, const StructInfo *s, const Value *v, int depth)
{
    if (!s || s->kind != SI_TUPLE || v->kind != VAL_TUPLE || s->nfields != v->n || depth > 16)
        return 0;
    for (int k = 0; k < v->n; k++) {
        int r = v->items[k]->kind == VAL_TENSOR ? bind_type_dims(E, p, s->fields[k], v->items[k]->t)
                                                : bind_tuple_dims(E, p, s->fields[k], v->items[k], depth + 1);
        if (r)
            return r;
    }
    return 0;
}

static int bind_dims(Env *E, const Var *p, const Tensor *t)
{
    return bind_type_dims(E, p, p->sinfo, t);
}

static int bind_type_dims(Env *E, const Var *p, const StructInfo *s, const Tensor *t)
{
    if (!s || s->kind != SI_TENSOR || !s->shape || s->ndim != t->ndim)
        return 0;
    for (int d = 0; d < s->ndim; d++) {
        const Expr *x = s->shape[d];
        int64_t v;
        if (x->kind == E_VAR && x->u.var->kind == VAR_SYM && dim_value(E, x, &v) && E->nsyms < 64) {
            E->syms[E->nsyms] = x->u.var;
            E->symv[E->nsyms++] = t->shape[d];
        } else if (dim_value(E, x, &v) == 0 && v != t->shape[d]) {
            return rerr(E, p->loc, "argument '%s' has %lld in dimension %d where its type says %lld", p->name->str,
                        (long long)t->shape[d], d, (long long)v);
        }
    }
    return 0;
}

static Tensor *alloc_from_sinfo(Env *E, const StructInfo *s, Loc loc)
{
    int64_t shape[TENSOR_MAX_RANK];
    if (!s || s->kind != SI_TENSOR || !s->shape || s->dtype == DT_VOID || s->ndim > TENSOR_MAX_RANK) {
        rerr(E, loc, "the interpreter needs out_sinfo with a shape and a dtype");
        return NULL;
    }
    for (int i = 0; i < s->ndim; i++)
        if (dim_value(E, s->shape[i], &shape[i]) || shape[i] < 0) {
            rerr(E, s->shape[i]->loc, "the interpreter needs output shapes it can compute from the arguments' shapes");
            return NULL;
        }
    Tensor *t = tensor_new(s->dtype, s->ndim, shape);
    if (!t) {
        rerr(E, loc, "cannot allocate an output of this shape");
        return NULL;
    }
    /* what the PrimFunc does not write stays undefined, and shows */
    tensor_fill_poison_all(t);
    return t;
}

/* A tensor placed in a texture scope must be one the device can hold: the
 * interpreter checks Adreno's limits, so a wrong placement fails --run. */
static int texture_ok(Env *E, Loc loc, const char *what, const Tensor *t, const char *scope)
{
    TexKind k = texture_kind(scope);
    char why[160];
    if (k == TEX_NONE)
        return 0;
    if (t->ndim != 5)
        return rerr(E, loc, "%s is in %s, but a texture holds 5-d tensors and it is %d-d", what, scope, t->ndim);
    if (!texture_fits(k, t->shape, TEX_SPATIAL_LIMIT, TEX_DEPTH_LIMIT, why, sizeof why))
        return rerr(E, loc, "%s is in %s, but %s", what, scope, why);
    return 0;
}

/* texture_ok for a value of type s, field by field. */
static int placed_ok(Env *E, Loc loc, const char *what, const Value *v, const StructInfo *s)
{
    if (!s)
        return 0;
    if (s->kind == SI_TUPLE && v->kind == VAL_TUPLE) {
        for (int i = 0; i < v->n && i < s->nfields; i++)
            if (placed_ok(E, loc, what, v->items[i], s->fields[i]))
                return -1;
        return 0;
    }
    if (s->kind != SI_TENSOR || !s->vdevice || v->kind != VAL_TENSOR)
        return 0;
    return texture_ok(E, loc, what, v->t, vdev_str_scope(s->vdevice));
}

/* Whether s stores into buffer b (or, h not NULL, the T.match_buffer of h). */
static int stores_to(const Stmt *s, const Buffer *b, const Var *h)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            if (stores_to(s->u.seq.items[i], b, h))
                return 1;
        return 0;
    case S_FOR:
        return stores_to(s->u.loop.body, b, h);
    case S_BLOCK:
        return stores_to(s->u.block->init, b, h) || stores_to(s->u.block->body, b, h);
    case S_IF:
        return stores_to(s->u.branch.then, b, h) || stores_to(s->u.branch.orelse, b, h);
    case S_STORE:
        return s->u.store.buf == b || (h && s->u.store.buf->kind == BUF_MATCH && s->u.store.buf->handle == h);
    default:
        return 0;
    }
}

/* call_tir's operands are values: a PrimFunc that writes the buffer of one
 * works on a copy, so every other reader of the value (main's inputs in the
 * next run of --verify-exec included) sees it unchanged. */
static int writes_operand(const Func *f, int i)
{
    return i < f->npparams && stores_to(f->body, f->pparams[i].buf, f->pparams[i].buf ? NULL : f->pparams[i].var);
}

static const char *kind_text(const Value *v);

/* call_tir's operands copied and outputs not handed over: res[i] holds
 * output i once made, ts[nin + i] its tensor once res does. */
static void call_tir_free(Tensor **ts, Value **res, char *copied, int nin, int nout, int nvars, const Value *result)
{
    if (ts && res)
        for (int i = 0; i < nout; i++) {
            if (res[i])
                value_free(res[i]);
            else if (ts[nin + i] && !result)
                tensor_free(ts[nin + i]);
        }
    if (ts && copied)
        for (int i = 0; i < nin; i++)
            if (copied[i])
                tensor_free(ts[i]);
    if (ts)
        for (int i = 0; i < nvars; i++)
            tensor_free(ts[nin + nout + i]);
    free(copied);
    free(ts);
    free(res);
}

static Value *call_tir(Env *E, const Expr *e)
{
    const Expr *fn = e->u.call.args[0], *args = e->u.call.args[1];
    const Expr *volatile out = kwarg(e, "out_sinfo");   /* read after the guard's setjmp below */
    if (e->u.call.nargs < 2 || fn->kind != E_GLOBAL || args->kind != E_TUPLE || !out ||
        (out->kind != E_SINFO && out->kind != E_LIST))
        return rerr(E, e->loc, "R.call_tir takes cls.f, a tuple of arguments and out_sinfo"), NULL;
    /* tir_vars=R.shape([n]): the PrimFunc's integer scalar parameters,
     * which follow its inputs and outputs */
    const Expr *tv = kwarg(e, "tir_vars");
    const Value *tvv = NULL;
    if (tv) {
        if (!(tvv = eval(E, tv)))
            return NULL;
        if (tvv->kind != VAL_SHAPE)
            return rerr(E, tv->loc, "tir_vars of R.call_tir is a shape, as in R.shape([n])"), NULL;
    }
    const StructInfo *o = out->kind == E_SINFO ? out->u.sinfo : NULL;
    const StructInfo *const *outs = &o;
    const StructInfo *from_list[64];
    int nout = 1, tuple = 0;
    if (!o) {
        nout = out->u.list.n;
        if (nout > 64)
            return rerr(E, out->loc, "R.call_tir has at most 64 outputs"), NULL;
        for (int i = 0; i < nout; i++) {
            if (out->u.list.items[i]->kind != E_SINFO)
                return rerr(E, out->loc, "out_sinfo lists struct infos"), NULL;
            from_list[i] = out->u.list.items[i]->u.sinfo;
        }
        outs = from_list;
        tuple = 1;
    } else if (o->kind == SI_TUPLE) {
        outs = (const StructInfo *const *)o->fields;
        nout = o->nfields;
        tuple = 1;
    }
    int nin = args->u.list.n, nvars = tvv ? (int)tvv->t->shape[0] : 0, n = nin + nout + nvars;
    const Func *callee = fn->u.global.fn;
    if (callee->kind == F_PRIM && n != callee->npparams)
        return rerr(E, tv ? tv->loc : e->loc, "%s takes %d parameters; R.call_tir passes %d inputs, %d outputs and "
                    "%d tir_vars", callee->name->str, callee->npparams, nin, nout, nvars), NULL;
    Tensor **volatile ts = NULL;
    Value **volatile res = NULL;
    char *volatile copied = NULL;
    Value *volatile result = NULL;
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the operands copied and the outputs made go before unwinding on */
        call_tir_free(ts, res, copied, nin, nout, nvars, result);
        oom_fail();
    }
    ts = xcalloc((size_t)n + 1, sizeof *ts);
    res = xcalloc((size_t)nout + 1, sizeof *res);
    copied = xcalloc((size_t)nin + 1, 1);
    for (int i = 0; i < nin; i++) {
        Value *v = eval(E, args->u.list.items[i]);
        if (!v)
            goto done;
        /* a prim value goes to an integer scalar parameter */
        int scalar = v->kind == VAL_PRIM && callee->kind == F_PRIM && i < callee->npparams &&
                     !prim_param_buffer(callee, i) && !callee->pparams[i].buf;
        if (v->kind != VAL_TENSOR && !scalar) {
            rerr(E, args->u.list.items[i]->loc, "argument %d of R.call_tir is %s, not a tensor", i + 1, kind_text(v));
            goto done;
        }
        ts[i] = v->t;
        if (writes_operand(fn->u.global.fn, i)) {
            if (!(ts[i] = tensor_clone(v->t))) {
                rerr(E, args->u.list.items[i]->loc, "cannot copy argument %d of R.call_tir", i + 1);
                goto done;
            }
            copied[i] = 1;
        }
    }
    for (int i = 0; i < nout; i++) {
        Tensor *t = alloc_from_sinfo(E, outs[i], out->loc);
        if (!t)
            goto done;
        res[i] = value_tensor(t);   /* frees t if it fails: ts holds t only once res does */
        ts[nin + i] = t;
    }
    for (int i = 0; i < nvars; i++) {
        const Var *p = callee->pparams[nin + nout + i].var;
        int64_t none = 0;
        if (!(ts[nin + nout + i] = tensor_new(p && dtype_is_int(p->dtype) ? p->dtype : DT_INT64, 0, &none))) {
            rerr(E, tv->loc, "cannot allocate tir_vars of R.call_tir");
            goto done;
        }
        tensor_seti(ts[nin + nout + i], 0, tensor_geti(tvv->t, i));
    }
    for (int i = 0; i < n && i < fn->u.global.fn->npparams; i++) {
        const Buffer *b = fn->u.global.fn->pparams[i].buf;
        char what[160];
        snprintf(what, sizeof what, "buffer %s of %s", b ? b->name->str : "?", fn->u.global.fn->name->str);
        if (b && b->scope && texture_ok(E, e->loc, what, ts[i], b->scope))
            goto done;
    }
    if (interp_call_prim(E->in, fn->u.global.fn, ts, n, E->err) == 0) {
        Value *v = tuple ? value_tuple(res, nout) : res[0];
        /* v holds the outputs now; own frees v if it fails */
        memset(res, 0, (size_t)nout * sizeof *res);
        memset(ts + nin, 0, (size_t)nout * sizeof *ts);
        result = own(E, v);
    }
done:
    oom_leave(&guard);
    call_tir_free(ts, res, copied, nin, nout, nvars, result);
    return result;
}

static int scalar(const Expr *e, double *v)
{
    if (e->kind == E_FLOAT)
        *v = e->u.f.v;
    else if (e->kind == E_INT)
        *v = (double)e->u.i.v;
    else if (e->kind == E_UNARY && e->u.un.op == U_NEG && scalar(e->u.un.a, v))
        *v = -*v;
    else
        return 0;
    return 1;
}

static Value *layout_transform(Env *E, const Expr *e)
{
    const Expr *map = kwarg(e, "index_map"), *pad = kwarg(e, "pad_value");
    if (e->u.call.nargs != 1 || !map || map->kind != E_INDEXMAP)
        return rerr(E, e->loc, "R.layout_transform takes a tensor and index_map=T.index_map(...)"), NULL;
    double padv = 0;
    int has_pad = pad && pad->kind != E_NONE;
    if (has_pad && !scalar(pad, &padv))
        return rerr(E, pad->loc, "pad_value must be a number"), NULL;
    Value *x = eval(E, e->u.call.args[0]);
    if (!x)
        return NULL;
    if (x->kind != VAL_TENSOR)
        return rerr(E, e->loc, "R.layout_transform rewrites a tensor, not a tuple"), NULL;
    const Tensor *t = x->t;
    if (map->u.map.nparams != t->ndim)
        return rerr(E, map->loc, "the index map takes %d ind%s; the tensor has rank %d", map->u.map.nparams,
                    map->u.map.nparams == 1 ? "ex" : "ices", t->ndim), NULL;
    Arena a = { 0 };
    ImError ierr;
    Value *result = NULL;
    Tensor *volatile made = NULL;   /* o until the value holding it is made */
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the map's arena and the result go before unwinding on */
        tensor_free(made);
        arena_free(&a);
        oom_fail();
    }
    IndexMap *im = im_from_expr(&a, map, t->shape, &ierr);
    if (!im) {
        rerr(E, ierr.loc.line ? ierr.loc : map->loc, "%s", ierr.msg);
        goto done;
    }
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    ImKind kind = im_classify(im, wa, wb);
    if (kind == IM_NOT_INJECTIVE || kind == IM_UNKNOWN) {
        rerr(E, map->loc, "the index map of R.layout_transform is %s on the tensor's shape",
             kind == IM_UNKNOWN ? "not known to be injective" : "not injective");
        goto done;
    }
    Tensor *o = tensor_new(t->dtype, im->nout, im->obox);
    if (!o) {
        rerr(E, e->loc, "cannot allocate the result of R.layout_transform");
        goto done;
    }
    made = o;
    /* from a module constant as it was made, o keeps how it was made:
     * --verify-exec's call cache then need not keep its bytes */
    int from_const = t->origin && memcmp(t->data, t->origin, (size_t)t->count * (size_t)dtype_size(t->dtype)) == 0;
    TensorRecipe *r = recipe_new(from_const ? t->origin : t->data, t->dtype, &a, im, has_pad, padv);
    recipe_make(r, o);
    if (from_const)
        o->recipe = r;
    else
        recipe_release(r);
    made = NULL;   /* value_tensor frees o if it fails, own the value */
    result = own(E, value_tensor(o));
done:
    oom_leave(&guard);
    arena_free(&a);
    return result;
}

Tensor *interp_const_tensor(const Expr *e)
{
    if (e->u.cst.ndim > TENSOR_MAX_RANK)
        return NULL;
    Tensor *t = tensor_new(e->u.cst.dtype, e->u.cst.ndim, e->u.cst.shape);
    if (t)
        memcpy(t->data, e->u.cst.data, (size_t)t->count * (size_t)dtype_size(t->dtype));
    return t;
}

static Value *constant(Env *E, const Expr *e)
{
    Tensor *t = interp_const_tensor(e);
    if (!t)
        return rerr(E, e->loc, "cannot make this constant"), NULL;
    /* a constant of the module (not one the interpreter wrote in its own
     * arena): --verify-exec's call cache reads its data in place */
    if (arena_holds(&interp_module(E->in)->arena, e->u.cst.data))
        t->origin = e->u.cst.data;
    return own(E, value_tensor(t));
}


/* ---- shape values ---- */

/* The value of the argument i of call e, which must be a shape (R.shape
 * written in place, or a value that is one); its dimensions in *dims. */
static const Value *shape_arg(Env *E, const Expr *e, int i, const char *op)
{
    if (e->u.call.nargs <= i)
        return rerr(E, e->loc, "%s takes a shape", op), NULL;
    const Value *v = eval(E, e->u.call.args[i]);
    if (v && v->kind != VAL_SHAPE)
        return rerr(E, e->u.call.args[i]->loc, "%s takes a shape; this is %s", op,
                    v->kind == VAL_TUPLE ? "a tuple" : "a tensor"), NULL;
    return v;
}

static const Value *tensor_arg(Env *E, const Expr *e, const char *op)
{
    if (e->u.call.nargs < 1)
        return rerr(E, e->loc, "%s takes a tensor", op), NULL;
    const Value *v = eval(E, e->u.call.args[0]);
    if (v && v->kind != VAL_TENSOR)
        return rerr(E, e->u.call.args[0]->loc, "%s takes a tensor; this is %s", op,
                    v->kind == VAL_TUPLE ? "a tuple" : "a shape"), NULL;
    return v;
}

static Value *shape_value(Env *E, const int64_t *dims, int n, Loc loc)
{
    Value *v = value_shape(dims, n);
    if (!v)
        return rerr(E, loc, "cannot allocate a shape of %d dimensions", n), NULL;
    return own(E, v);
}

/* R.shape([2, n * 3]): its dimensions, the symbolic ones from what the
 * arguments' shapes and R.match_cast bound. */
static Value *shape_literal(Env *E, const Expr *e)
{
    const Expr *l = e->u.call.nargs == 1 ? e->u.call.args[0] : NULL;
    if (!l || (l->kind != E_LIST && l->kind != E_TUPLE) || l->u.list.n > TENSOR_MAX_RANK)
        return rerr(E, e->loc, "R.shape takes a list of at most %d dimensions, as in R.shape([2, n])",
                    TENSOR_MAX_RANK), NULL;
    int64_t dims[TENSOR_MAX_RANK];
    for (int d = 0; d < l->u.list.n; d++)
        if (dim_value(E, l->u.list.items[d], &dims[d])) {
            char text[128];
            return rerr(E, l->u.list.items[d]->loc, "dimension %d of R.shape (%s) has no value here: a symbolic "
                        "variable in it is not bound", d, expr_text(l->u.list.items[d], text, sizeof text)), NULL;
        }
    return shape_value(E, dims, l->u.list.n, e->loc);
}

/* R.prim_value(x): an integer (T.int32(3) keeps its dtype, a bare one is
 * int64) or an expression of bound symbolic variables, a float (float32
 * unless typed), or a boolean. Kept out of eval's frame: eval recurses
 * through nested tuples (err_relax_recursion_nested). */
LOPT_NOINLINE static Value *prim_value(Env *E, const Expr *e)
{
    const Expr *x = e->u.call.nargs == 1 && !e->u.call.nkw ? e->u.call.args[0] : NULL;
    int64_t n, none = 0;   /* the shape of rank 0 */
    char text[128];
    Tensor *t = NULL;
    if (!x)
        return rerr(E, e->loc, "R.prim_value takes one value, as in R.prim_value(n * 2)"), NULL;
    if (x->kind == E_FLOAT) {
        if ((t = tensor_new(x->u.f.dtype == DT_VOID ? DT_FLOAT32 : x->u.f.dtype, 0, &none)) != NULL)
            tensor_setf(t, 0, x->u.f.v);
    } else if (x->kind == E_BOOL) {
        if ((t = tensor_new(DT_BOOL, 0, &none)) != NULL)
            tensor_seti(t, 0, x->u.b);
    } else if (dim_value(E, x, &n) == 0) {
        if ((t = tensor_new(x->kind == E_INT && x->u.i.dtype != DT_VOID ? x->u.i.dtype : DT_INT64, 0, &none)) != NULL)
            tensor_seti(t, 0, n);
    } else {
        return rerr(E, x->loc, "R.prim_value(%s) has no value here: a symbolic variable in it is not bound",
                    expr_text(x, text, sizeof text)), NULL;
    }
    if (!t)
        return rerr(E, e->loc, "cannot allocate a prim value"), NULL;
    Value *v = value_tensor(t);
    v->kind = VAL_PRIM;
    return own(E, v);
}

/* A symbolic variable where a Relax value goes (R.call_tir(cls.f, (x, n),
 * ...) passes n to a scalar parameter): its value, as R.prim_value(n). */
LOPT_NOINLINE static Value *sym_prim(Env *E, const Expr *e)
{
    int64_t n, none = 0;
    if (dim_value(E, e, &n))
        return rerr(E, e->loc, "'%s' has no value: the symbolic variable is not bound here", e->u.var->name->str),
               NULL;
    Tensor *t = tensor_new(e->u.var->dtype == DT_VOID ? DT_INT64 : e->u.var->dtype, 0, &none);
    if (!t)
        return rerr(E, e->loc, "cannot allocate a prim value"), NULL;
    tensor_seti(t, 0, n);
    Value *v = value_tensor(t);
    v->kind = VAL_PRIM;
    return own(E, v);
}

static Value *shape_of_op(Env *E, const Expr *e)
{
    const Value *v = tensor_arg(E, e, "R.shape_of");
    return v ? shape_value(E, v->t->shape, v->t->ndim, e->loc) : NULL;
}

static Value *shape_to_tensor(Env *E, const Expr *e)
{
    const Value *v = shape_arg(E, e, 0, "R.shape_to_tensor");
    if (!v)
        return NULL;
    Tensor *t = tensor_clone(v->t);
    if (!t)
        return rerr(E, e->loc, "cannot allocate the result of R.shape_to_tensor"), NULL;
    return own(E, value_tensor(t));
}

static Value *tensor_to_shape(Env *E, const Expr *e)
{
    const Value *v = tensor_arg(E, e, "R.tensor_to_shape");
    char ty[160];
    if (!v)
        return NULL;
    type_str(ty, sizeof ty, dtype_name(v->t->dtype), v->t->ndim, v->t->shape);
    if (v->t->ndim != 1 || v->t->dtype != DT_INT64)
        return rerr(E, e->u.call.args[0]->loc, "R.tensor_to_shape takes a 1-d int64 tensor; this one is %s", ty), NULL;
    if (v->t->count > TENSOR_MAX_RANK)
        return rerr(E, e->u.call.args[0]->loc, "R.tensor_to_shape: a shape has at most %d dimensions; this tensor "
                    "holds %lld", TENSOR_MAX_RANK, (long long)v->t->count), NULL;
    int64_t dims[TENSOR_MAX_RANK];
    for (int d = 0; d < v->t->count; d++)
        if ((dims[d] = tensor_geti(v->t, d)) < 0)
            return rerr(E, e->u.call.args[0]->loc, "R.tensor_to_shape: element %d is %lld; a dimension is not "
                        "negative", d, (long long)dims[d]), NULL;
    return shape_value(E, dims, (int)v->t->count, e->loc);
}

/* ---- R.match_cast ---- */

static int bind_sym(Env *E, const Var *x, int64_t v, Loc loc)
{
    if (E->nsyms == 64)
        return rerr(E, loc, "a function binds at most 64 symbolic variables");
    E->syms[E->nsyms] = x;
    E->symv[E->nsyms++] = v;
    return 0;
}

/* The dimensions dims[0..n) of a value against those of an annotation: an
 * unbound symbolic variable standing alone is bound to its dimension (the
 * first time it appears), every other dimension must equal its value. */
static int match_dims(Env *E, const char *who, const char *what, const int64_t *dims, int n, Expr *const *want, Loc loc)
{
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < n; d++) {
            const Expr *x = want[d];
            int64_t v;
            char text[128];
            if (dim_value(E, x, &v) == 0) {
                if (v == dims[d])
                    continue;
                if (x->kind == E_INT || expr_const_int(x, &v) == 0)
                    return rerr(E, loc, "%s: dimension %d of %s is %lld, but the annotation says %lld", who, d,
                                what, (long long)dims[d], (long long)v);
                return rerr(E, loc, "%s: dimension %d of %s is %lld, but the annotation says %s = %lld", who, d,
                            what, (long long)dims[d], expr_text(x, text, sizeof text), (long long)v);
            }
            if (x->kind == E_VAR && x->u.var->kind == VAR_SYM) {
                if (bind_sym(E, x->u.var, dims[d], loc))
                    return -1;
            } else if (pass == 1) {
                /* n * 2 where nothing binds n */
                return rerr(E, x->loc, "%s: dimension %d of the annotation (%s) has a symbolic variable "
                            "nothing binds", who, d, expr_text(x, text, sizeof text));
            }
        }
    return 0;
}

static const char *kind_text(const Value *v)
{
    return v->kind == VAL_TUPLE ? "a tuple" : v->kind == VAL_SHAPE ? "a shape" : v->kind == VAL_PRIM ? "a prim value" :
           "a tensor";
}

/* A prim value against R.Prim(dtype, value=...): the dtype agrees, and the
 * value, an unbound symbolic variable alone, is bound to it; any other
 * value must equal it. */
static int match_prim(Env *E, const char *who, const Value *v, const StructInfo *s, const char *what, Loc loc)
{
    DType dt = v->t->dtype;
    if (s->dtype != DT_VOID && s->dtype != dt)
        return rerr(E, loc, "%s: %s has dtype %s, but the annotation says %s", who, what, dtype_name(dt),
                    dtype_name(s->dtype));
    if (!s->value)
        return 0;
    if (dtype_is_float(dt))
        return rerr(E, loc, "%s: %s is a %s; a value in R.Prim is an integer", who, what, dtype_name(dt));
    int64_t have = tensor_geti(v->t, 0), want;
    char text[128];
    if (dim_value(E, s->value, &want) == 0) {
        if (want == have)
            return 0;
        return rerr(E, loc, "%s: %s is %lld, but the annotation says %s = %lld", who, what, (long long)have,
                    expr_text(s->value, text, sizeof text), (long long)want);
    }
    if (s->value->kind == E_VAR && s->value->u.var->kind == VAR_SYM)
        return bind_sym(E, s->value->u.var, have, loc);
    return rerr(E, s->value->loc, "%s: the annotation's value (%s) has a symbolic variable nothing binds", who,
                expr_text(s->value, text, sizeof text));
}

/* Whether v matches s, binding the symbolic variables s introduces; an
 * error that says where it does not. */
static int match_sinfo(Env *E, const char *who, const Value *v, const StructInfo *s, const char *what, Loc loc)
{
    char sub[64];
    switch (s->kind) {
    case SI_TUPLE:
        if (v->kind != VAL_TUPLE)
            return rerr(E, loc, "%s: %s is %s, but the annotation says a tuple", who, what, kind_text(v));
        if (s->nfields < 0)
            return 0;
        if (v->n != s->nfields)
            return rerr(E, loc, "%s: %s is a tuple of %d, but the annotation says %d", who, what, v->n, s->nfields);
        for (int i = 0; i < v->n; i++) {
            snprintf(sub, sizeof sub, "field %d of %s", i, what);
            if (match_sinfo(E, who, v->items[i], s->fields[i], sub, loc))
                return -1;
        }
        return 0;
    case SI_TENSOR:
        if (v->kind != VAL_TENSOR)
            return rerr(E, loc, "%s: %s is %s, but the annotation says a tensor", who, what, kind_text(v));
        if (s->dtype != DT_VOID && s->dtype != v->t->dtype)
            return rerr(E, loc, "%s: %s has dtype %s, but the annotation says %s", who, what,
                        dtype_name(v->t->dtype), dtype_name(s->dtype));
        break;
    case SI_SHAPE:
        if (v->kind != VAL_SHAPE)
            return rerr(E, loc, "%s: %s is %s, but the annotation says a shape", who, what, kind_text(v));
        break;
    default:
        if (s->kind == SI_OBJECT)
            return 0;
        if (v->kind == VAL_PRIM)
            return match_prim(E, who, v, s, what, loc);
        return rerr(E, loc, "%s: %s is %s, but the annotation says a prim value", who, what, kind_text(v));
    }

    /* a tensor's dimensions, or a shape's values */
    int n = v->kind == VAL_SHAPE ? (int)v->t->count : v->t->ndim;
    int64_t dims[TENSOR_MAX_RANK];
    for (int d = 0; d < n; d++)
        dims[d] = v->kind == VAL_SHAPE ? tensor_geti(v->t, d) : v->t->shape[d];
    if (s->ndim >= 0 && s->ndim != n)
        return rerr(E, loc, "%s: %s has %d dimensions, but the annotation says %d", who, what, n, s->ndim);
    return s->shape ? match_dims(E, who, what, dims, n, s->shape, loc) : 0;
}

static Value *match_cast(Env *E, const Expr *e)
{
    if (e->u.call.nargs != 2 || e->u.call.args[1]->kind != E_SINFO)
        return rerr(E, e->loc, "R.match_cast takes a value and a struct info, as in R.match_cast(x, R.Tensor((n, 3), "
                    "dtype=\"float32\"))"), NULL;
    Value *v = eval(E, e->u.call.args[0]);
    if (!v || match_sinfo(E, "R.match_cast", v, e->u.call.args[1]->u.sinfo, "the value", e->loc))
        return NULL;
    return v;
}

static Expr *tensor_const(Arena *a, const Tensor *t, Loc loc)
{
    Expr *c = expr_new(a, E_CONST, loc);
    size_t bytes = (size_t)t->count * (size_t)dtype_size(t->dtype);
    c->u.cst.dtype = t->dtype;
    c->u.cst.ndim = t->ndim;
    c->u.cst.shape = arena_array(a, (size_t)t->ndim + 1, sizeof *c->u.cst.shape);
    memcpy(c->u.cst.shape, t->shape, (size_t)t->ndim * sizeof *t->shape);
    c->u.cst.count = t->count;
    c->u.cst.data = arena_alloc(a, bytes ? bytes : 1);
    memcpy(c->u.cst.data, t->data, bytes);
    return c;
}

/* A shape written as a tuple of dimensions, (a // 2, b * 2), with a
 * symbolic variable among them: the list of their values, or NULL when it
 * is not one or some variable has no value here. */
static Expr *bare_shape(Env *E, const Expr *x)
{
    int64_t v;
    int symbolic = 0;
    if ((x->kind != E_TUPLE && x->kind != E_LIST) || x->u.list.n > TENSOR_MAX_RANK)
        return NULL;
    for (int d = 0; d < x->u.list.n; d++) {
        if (expr_const_int(x->u.list.items[d], &v) == 0)
            continue;
        if (dim_value(E, x->u.list.items[d], &v))
            return NULL;
        symbolic = 1;
    }
    if (!symbolic)
        return NULL;
    Arena *a = interp_arena(E->in);
    Expr *l = expr_new(a, E_LIST, x->loc);
    l->u.list.n = x->u.list.n;
    l->u.list.items = arena_array(a, (size_t)l->u.list.n + 1, sizeof *l->u.list.items);
    for (int d = 0; d < l->u.list.n; d++) {
        dim_value(E, x->u.list.items[d], &v);
        l->u.list.items[d] = expr_int(a, v, DT_VOID, x->loc);
    }
    return l;
}

/* A registered operator's call with the shape values among its attributes
 * (R.reshape(x, s), R.zeros(R.shape([n, 3]), "float32"), a tuple of
 * symbolic dimensions R.reshape(x, (a // 2, b * 2))) and the tensors
 * (R.dynamic_strided_slice's bounds) written in as constants, as
 * legalization reads them: the call itself when it has none.
 * The rewritten call lives in the interpreter's arena. */
static const Expr *with_shapes(Env *E, const Expr *e, int ntensors, const Expr **out)
{
    int total = e->u.call.nargs + e->u.call.nkw;
    Expr **args = NULL;
    for (int i = ntensors; i < total; i++) {
        const Expr *x = e->u.call.args[i];
        int literal = x->kind == E_CALL && !x->u.call.callee && strcmp(x->u.call.op->str, "R.shape") == 0;
        Expr *bare = bare_shape(E, x);
        if (bare) {
            if (!args) {
                args = arena_array(interp_arena(E->in), (size_t)total, sizeof *args);
                memcpy(args, e->u.call.args, (size_t)total * sizeof *args);
            }
            args[i] = bare;
            continue;
        }
        if (literal) {
            /* R.shape([2, 3]) reads as it is; R.shape([n * 3]) needs n's value */
            const Expr *l = x->u.call.nargs == 1 ? x->u.call.args[0] : NULL;
            int all = l && (l->kind == E_LIST || l->kind == E_TUPLE);
            int64_t v;
            for (int d = 0; all && d < l->u.list.n; d++)
                all = expr_const_int(l->u.list.items[d], &v) == 0;
            if (all)
                continue;
        } else if (!(x->kind == E_VAR && x->u.var->kind == VAR_RELAX) &&
                   !(x->kind == E_CALL && !x->u.call.callee && (strcmp(x->u.call.op->str, "R.shape_of") == 0 ||
                                                                strcmp(x->u.call.op->str, "R.tensor_to_shape") == 0))) {
            continue;
        }
        const Value *v = eval(E, x);
        if (!v)
            return NULL;
        if (v->kind != VAL_SHAPE && v->kind != VAL_TENSOR)
            continue;
        Arena *a = interp_arena(E->in);
        if (!args) {
            args = arena_array(a, (size_t)total, sizeof *args);
            memcpy(args, e->u.call.args, (size_t)total * sizeof *args);
        }
        if (v->kind == VAL_TENSOR) {
            /* a tensor computed by the run (dynamic_strided_slice's bounds,
             * a fill value): a constant of its value */
            args[i] = tensor_const(a, v->t, x->loc);
            continue;
        }
        Expr *l = expr_new(a, E_LIST, x->loc);
        l->u.list.n = (int)v->t->count;
        l->u.list.items = arena_array(a, (size_t)l->u.list.n + 1, sizeof *l->u.list.items);
        for (int d = 0; d < l->u.list.n; d++)
            l->u.list.items[d] = expr_int(a, tensor_geti(v->t, d), DT_VOID, x->loc);
        args[i] = l;
    }
    if (!args) {
        *out = e;
        return e;
    }
    Expr *c = arena_alloc(interp_arena(E->in), sizeof *c);
    *c = *e;
    c->u.call.args = args;
    *out = c;
    return c;
}

/* A registered operator: its legalized PrimFunc on the argument tensors. */
static Value *run_op(Env *E, const Expr *e, const OpInfo *info)
{
    TensorType types[OP_MAX_ARGS];
    Tensor *ts[OP_MAX_ARGS];
    Value *tuple = NULL;
    int n = info->ntensors;
    if (e->u.call.nargs < (info->tuple_arg ? 1 : n))
        return rerr(E, e->loc, "%s takes %d argument%s", info->name, info->nargs, info->nargs == 1 ? "" : "s"), NULL;
    if (info->tuple_arg) {
        /* R.concat((a, b), axis=1): the tensors are the tuple's items */
        if (!(tuple = eval(E, e->u.call.args[0])))
            return NULL;
        if (tuple->kind != VAL_TUPLE || tuple->n < 1 || tuple->n > OP_MAX_ARGS)
            return rerr(E, e->u.call.args[0]->loc, "%s takes a tuple of 1 to %d tensors", info->name, OP_MAX_ARGS), NULL;
        n = tuple->n;
    }
    for (int i = 0; i < n; i++) {
        Value *v = tuple ? tuple->items[i] : eval(E, e->u.call.args[i]);
        if (!v)
            return NULL;
        /* a prim value where TVM takes one (R.add(x, y), y: R.Prim) is its 0-d tensor */
        int prim = v->kind == VAL_PRIM && !tuple && op_prim_operand(info->name, i);
        if ((v->kind != VAL_TENSOR && !prim) || v->t->ndim > OP_MAX_RANK)
            return rerr(E, e->u.call.args[i]->loc, "argument %d of %s is not a tensor of rank at most %d", i + 1,
                        info->name, OP_MAX_RANK), NULL;
        memset(&types[i], 0, sizeof types[i]);
        types[i].dtype = v->t->dtype;
        types[i].ndim = v->t->ndim;
        memcpy(types[i].shape, v->t->shape, (size_t)v->t->ndim * sizeof *v->t->shape);
        ts[i] = v->t;
    }
    OpError oerr;
    const Expr *call;
    if (!with_shapes(E, e, info->tuple_arg ? 1 : info->ntensors, &call))
        return NULL;
    Func *f = interp_legalized(E->in, call, types, n, &oerr);
    if (!f)
        return rerr(E, oerr.loc.line ? oerr.loc : e->loc, "%s", oerr.msg), NULL;
    int nout = f->npparams - n;
    Tensor *all[2 * OP_MAX_ARGS + 1];
    Value *vals[OP_MAX_ARGS];
    memcpy(all, ts, (size_t)n * sizeof *ts);
    for (int k = 0; k < nout; k++) {
        const Buffer *ob = f->pparams[n + k].buf;
        int64_t shape[TENSOR_MAX_RANK];
        for (int d = 0; d < ob->ndim; d++)
            expr_const_int(ob->shape[d], &shape[d]);
        Tensor *out = tensor_new(ob->dtype, ob->ndim, shape);
        if (!out) {
            for (int j = k - 1; j >= 0; j--) {
                oom_keep(all[n + j]);
                tensor_free(all[n + j]);
            }
            return rerr(E, e->loc, "cannot allocate the result of %s", info->name), NULL;
        }
        oom_defer(tensor_free_v, out);   /* until the call has run */
        tensor_fill_poison_all(out);
        all[n + k] = out;
    }
    int failed = interp_call_prim(E->in, f, all, n + nout, E->err);
    for (int k = nout - 1; k >= 0; k--)
        oom_keep(all[n + k]);
    if (failed) {
        /* f is shared by identical calls and carries the first one's place */
        E->err->loc = e->loc;
        for (int k = 0; k < nout; k++)
            tensor_free(all[n + k]);
        return NULL;
    }
    for (int k = 0; k < nout; k++)
        vals[k] = value_tensor(all[n + k]);
    return own(E, info->tuple_out ? value_tuple(vals, nout) : vals[0]);
}

/* The chain of calls from main to f, written until it first repeats a
 * function, which names the cycle of an unbounded recursion. */
static int too_deep(Env *E, const Expr *call, Func *f)
{
    const Func *chain[INTERP_MAX_RELAX_DEPTH + 2];
    int n = 0;
    chain[n++] = f;
    for (const Env *c = E; c; c = c->caller)
        chain[n++] = c->fn;
    char text[400];
    size_t len = 0;
    int repeat = 0;
    for (int i = n - 1; i >= 0 && !repeat && len < sizeof text - 80; i--) {
        for (int j = n - 1; j > i; j--)
            repeat |= chain[j] == chain[i];
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i == n - 1 ? "" : " -> ", chain[i]->name->str);
    }
    if (len >= sizeof text - 80 || repeat)
        snprintf(text + len, sizeof text - len, " -> ...");
    return rerr(E, call->loc, "Relax calls nest deeper than %d: %s", INTERP_MAX_RELAX_DEPTH, text);
}

static int out_of_steps(Env *E, const Expr *call, const Func *f)
{
    E->err->limit = 1;   /* a budget: LOPT_ELIMIT, as the loops' --max-steps */
    return rerr(E, call->loc, "the run reached --max-steps %lld at this call of '%s' (a step is one loop iteration; "
                "a call of a Relax function counts as %d)", (long long)interp_max_steps(E->in), f->name->str,
                INTERP_RELAX_CALL_STEPS);
}

static Value *eval(Env *E, const Expr *e)
{
    switch (e->kind) {
    case E_VAR:
        if (E->cap) {
            size_t at = slot(E, e->u.var);
            /* a variable is forgotten after its last reader (release) */
            assert(!E->keys[at] || E->vals[at]);
            if (E->keys[at])
                return E->vals[at];
        }
        if (e->u.var->kind == VAR_SYM)
            return sym_prim(E, e);
        return rerr(E, e->loc, "'%s' has no value", e->u.var->name->str), NULL;
    case E_TUPLE: {
        Value **items = xcalloc((size_t)e->u.list.n + 1, sizeof *items);
        if (!items)
            oom_fail();
        for (int i = 0; i < e->u.list.n; i++)
            if (!(items[i] = eval(E, e->u.list.items[i]))) {
                free(items);
                return NULL;
            }
        /* the tuple borrows its items: own a shell that does not free them */
        Value *v = value_tuple(items, e->u.list.n);
        free(items);
        int ok = 1;
        for (int i = 0; i < v->n; i++)
            ok &= (v->items[i] = value_clone(v->items[i])) != NULL;
        if (!ok) {
            value_free(v);
            return rerr(E, e->loc, "cannot make the tuple"), NULL;
        }
        return own(E, v);
    }
    case E_GETITEM: {
        Value *t = eval(E, e->u.get.tuple);
        if (!t)
            return NULL;
        if (t->kind != VAL_TUPLE || e->u.get.index < 0 || e->u.get.index >= t->n)
            return rerr(E, e->loc, "index %d is outside the tuple", e->u.get.index), NULL;
        return t->items[e->u.get.index];
    }
    case E_CONST:
        return constant(E, e);
    case E_IF:
        return run_if(E, e);
    case E_FUNC:
        return rerr(E, e->loc, "--run does not execute a function defined inside a function (%s) yet", e->u.global.name->str), NULL;
    case E_GLOBAL:
        return rerr(E, e->loc, "--run does not hold a function in a value (%s) yet; call it as cls.%s(...)",
                    e->u.global.name->str, e->u.global.name->str), NULL;
    case E_CALL: {
        const char *op = e->u.call.op->str;
        if (e->u.call.callee && e->u.call.callee->kind != E_GLOBAL)
            return rerr(E, e->loc, "--run does not call a function held in a value (a local function) yet"), NULL;
        if (e->u.call.callee) {
            Func *f = e->u.call.callee->u.global.fn;
            if (f->kind != F_RELAX)
                return rerr(E, e->loc, "--run does not execute a direct call of prim_func '%s' (a call for its effect "
                                       "on its arguments); call it with R.call_tir", f->name->str), NULL;
            Value **args = xcalloc((size_t)e->u.call.nargs + 1, sizeof *args);
            if (!args)
                oom_fail();
            for (int i = 0; i < e->u.call.nargs; i++)
                if (!(args[i] = eval(E, e->u.call.args[i]))) {
                    free(args);
                    return NULL;
                }
            Value *out = NULL;
            int r = E->depth == INTERP_MAX_RELAX_DEPTH ? too_deep(E, e, f) :
                interp_count_relax_call(E->in) ? out_of_steps(E, e, f) :
                call_relax(E->in, E, f, args, e->u.call.nargs, &out, E->err);
            free(args);
            return r ? NULL : own(E, out);
        }
        if (strcmp(op, "R.call_tir") == 0)
            return call_tir(E, e);
        if (strcmp(op, "R.layout_transform") == 0)
            return layout_transform(E, e);
        if (strcmp(op, "R.hint_on_device") == 0 || strcmp(op, "R.to_vdevice") == 0) {
            if (e->u.call.nargs < 1)
                return rerr(E, e->loc, "%s takes a tensor", op), NULL;
            return eval(E, e->u.call.args[0]);   /* placement does not change values */
        }
        if (strcmp(op, "R.shape") == 0)
            return shape_literal(E, e);
        if (strcmp(op, "R.shape_of") == 0)
            return shape_of_op(E, e);
        if (strcmp(op, "R.prim_value") == 0)
            return prim_value(E, e);
        if (strcmp(op, "R.shape_to_tensor") == 0)
            return shape_to_tensor(E, e);
        if (strcmp(op, "R.tensor_to_shape") == 0)
            return tensor_to_shape(E, e);
        if (strcmp(op, "R.match_cast") == 0)
            return match_cast(E, e);
        if (op_find(op))
            return run_op(E, e, op_find(op));
        return rerr(E, e->loc, "the interpreter does not run %s yet", op), NULL;
    }
    default:
        return rerr(E, e->loc, "the interpreter cannot evaluate this Relax expression"), NULL;
    }
}

/* A shape value as the text writes it: R.shape([2, 3]). */
static void shape_str(const Tensor *t, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "R.shape([");
    for (int64_t i = 0; i < t->count && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)tensor_geti(t, i));
    if (len < cap)
        snprintf(buf + len, cap - len, "])");
}

/* A value's type as the text writes it (type_str). */
static void value_str(const Value *v, char *buf, size_t cap)
{
    if (v->kind == VAL_TUPLE)
        snprintf(buf, cap, "a tuple of %d", v->n);
    else if (v->kind == VAL_SHAPE)
        shape_str(v->t, buf, cap);
    else if (v->kind == VAL_PRIM)
        value_prim_text(v, buf, cap);
    else
        type_str(buf, cap, dtype_name(v->t->dtype), v->t->ndim, v->t->shape);
}

void value_shape_text(const Value *v, char *buf, size_t cap)
{
    shape_str(v->t, buf, cap);
}

void value_prim_text(const Value *v, char *buf, size_t cap)
{
    DType dt = v->t->dtype;
    if (dt == DT_BOOL)
        snprintf(buf, cap, "R.prim_value(%s)", tensor_geti(v->t, 0) ? "True" : "False");
    else if (dtype_is_float(dt))
        snprintf(buf, cap, "R.prim_value(T.%s(%.9g))", dtype_name(dt), tensor_getf(v->t, 0));
    else
        snprintf(buf, cap, "R.prim_value(T.%s(%lld))", dtype_name(dt), (long long)tensor_geti(v->t, 0));
}

/* A dimension's value: a constant, or from the symbolic variables bound. */
static int dim_known(const Env *E, const Expr *x, int64_t *v)
{
    return expr_const_int(x, v) == 0 || dim_value(E, x, v) == 0 ? 0 : -1;
}

/* Whether v fits what s says of it (what s leaves open, such as a symbolic
 * dimension with no value yet, fits anything). */
static int value_fits(const Env *E, const Value *v, const StructInfo *s)
{
    if (!s)
        return 1;
    if (s->kind == SI_TUPLE) {
        if (v->kind != VAL_TUPLE || (s->nfields >= 0 && v->n != s->nfields))
            return 0;
        if (s->nfields < 0)
            return 1;
        for (int i = 0; i < v->n; i++)
            if (!value_fits(E, v->items[i], s->fields[i]))
                return 0;
        return 1;
    }
    if (s->kind == SI_SHAPE) {
        if (v->kind != VAL_SHAPE || (s->ndim >= 0 && s->ndim != v->t->count))
            return 0;
        for (int d = 0; s->shape && d < s->ndim; d++) {
            int64_t e;
            if (dim_known(E, s->shape[d], &e) == 0 && e != tensor_geti(v->t, d))
                return 0;
        }
        return 1;
    }
    if (s->kind == SI_PRIM) {
        int64_t e;
        if (v->kind != VAL_PRIM || (s->dtype != DT_VOID && s->dtype != v->t->dtype))
            return 0;
        return !s->value || dtype_is_float(v->t->dtype) || dim_known(E, s->value, &e) || e == tensor_geti(v->t, 0);
    }
    if (s->kind != SI_TENSOR)
        return 1;
    if (v->kind != VAL_TENSOR)
        return 0;
    if ((s->dtype != DT_VOID && s->dtype != v->t->dtype) || (s->ndim >= 0 && s->ndim != v->t->ndim))
        return 0;
    for (int d = 0; s->shape && d < s->ndim; d++) {
        int64_t e;
        if (dim_known(E, s->shape[d], &e) == 0 && e != v->t->shape[d])
            return 0;
    }
    return 1;
}

/* What s says, its symbolic dimensions by their values where bound (else ?). */
static void sinfo_str(const Env *E, const StructInfo *s, char *buf, size_t cap)
{
    int64_t dims[TENSOR_MAX_RANK];
    if (s->kind == SI_SHAPE) {
        size_t len = (size_t)snprintf(buf, cap, s->shape ? "R.shape([" : "a shape of %d dimensions", s->ndim);
        for (int d = 0; s->shape && d < s->ndim && len < cap; d++)
            len += (size_t)(dim_known(E, s->shape[d], &dims[0]) ?
                snprintf(buf + len, cap - len, "%s?", d ? ", " : "") :
                snprintf(buf + len, cap - len, "%s%lld", d ? ", " : "", (long long)dims[0]));
        if (s->shape && len < cap)
            snprintf(buf + len, cap - len, "])");
        if (s->ndim < 0)
            snprintf(buf, cap, "a shape");
        return;
    }
    if (s->kind != SI_TENSOR || !s->shape || s->ndim < 0 || s->ndim > TENSOR_MAX_RANK) {
        if (s->kind == SI_TUPLE && s->nfields >= 0)
            snprintf(buf, cap, "a tuple of %d", s->nfields);
        else
            snprintf(buf, cap, s->kind == SI_TUPLE ? "a tuple" : "another kind of value");
        return;
    }
    for (int d = 0; d < s->ndim; d++)
        if (dim_known(E, s->shape[d], &dims[d]) || dims[d] < 0)
            dims[d] = -1;
    type_str(buf, cap, s->dtype == DT_VOID ? "any" : dtype_name(s->dtype), s->ndim, dims);
}

static int misfit(Env *E, Loc loc, const char *what, const Value *v, const StructInfo *s)
{
    char got[160], want[160];
    value_str(v, got, sizeof got);
    sinfo_str(E, s, want, sizeof want);
    return rerr(E, loc, "%s is %s, but its annotation says %s", what, got, want);
}

/* The bindings of blocks in order, each value bound to its variable. */
static int run_blocks(Env *E, RBlock *const *blocks, int nblocks, int top)
{
    for (int b = 0; b < nblocks; b++)
        for (int i = 0; i < blocks[b]->nbinds; i++) {
            const Binding *bd = blocks[b]->binds[i];
            if (interp_stopped(E->in, E->err, bd->loc, "at this binding"))
                return -1;
            Value *v = eval(E, bd->value);
            char what[160];
            snprintf(what, sizeof what, "'%s'", bd->var->name->str);
            if (!v)
                return -1;
            if (!value_fits(E, v, bd->annot))
                return misfit(E, bd->loc, what, v, bd->annot);
            if (placed_ok(E, bd->loc, what, v, bd->annot))
                return -1;
            bind(E, bd->var, v);
            if (top)
                release(E, E->cur++);
        }
    return 0;
}

/* if/else: the condition is a boolean scalar; the branch taken runs. */
static Value *run_if(Env *E, const Expr *e)
{
    Value *c = eval(E, e->u.rif.cond);
    if (!c)
        return NULL;
    if (c->kind != VAL_TENSOR || c->t->ndim != 0)
        return rerr(E, e->u.rif.cond->loc, "the condition of an if is a scalar tensor"), NULL;
    const RSeq *q = tensor_getf(c->t, 0) != 0 ? e->u.rif.then : e->u.rif.orelse;
    if (run_blocks(E, q->blocks, q->nblocks, 0))
        return NULL;
    return eval(E, q->result);
}

/* The result r of the call, for the caller: the value itself when the call
 * made it (nothing reads it after), else a copy. */
static Value *take(Env *E, Value *r)
{
    int k = owner_of(E, r);
    if (k < 0 || E->owned[k] != r)
        return value_clone(r);
    E->owned[k] = NULL;
    return r;
}

/* What a call made, freed when it ends or an allocation under it fails:
 * each array is set only once it exists, each count only once its array
 * holds it. */
static void env_free(Env *E)
{
    for (int i = 0; E->owned && i < E->nowned; i++)
        value_free(E->owned[i]);
    free(E->owned);
    free(E->death);
    free(E->node_entry);
    free(E->node_next);
    free(E->dying);
    free(E->okeys);
    free(E->oval);
    free(E->keys);
    free(E->vals);
}

int interp_call_relax(Interp *in, Func *f, Value **args, int nargs, Value **out, InterpError *err)
{
    return call_relax(in, NULL, f, args, nargs, out, err);
}

static int call_relax(Interp *in, const Env *caller, Func *f, Value **args, int nargs, Value **out,
                      InterpError *err)
{
    if (f->kind != F_RELAX || nargs != f->nparams) {
        err->loc = f->loc;
        snprintf(err->msg, sizeof err->msg, "%s takes %d arguments; it was given %d", f->name->str, f->nparams, nargs);
        return -1;
    }
    Env E = { .in = in, .fn = f, .caller = caller, .depth = caller ? caller->depth + 1 : 0, .err = err,
              .plan = plan_of(in, f) };
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the values this call made go before unwinding on */
        env_free(&E);
        oom_fail();
    }
    E.dying = xmalloc(((size_t)E.plan->nbind + 1) * sizeof *E.dying);
    if (!E.dying)
        oom_fail();
    for (int j = 0; j <= E.plan->nbind; j++)
        E.dying[j] = -1;
    int status = 0;
    for (int i = 0; i < nargs; i++) {
        DType dt;
        int nd;
        int64_t shape[TENSOR_MAX_RANK];
        if (args[i]->kind == VAL_TENSOR && interp_param_shape(f->params[i], &dt, &nd, shape) == 0 &&
            (args[i]->t->dtype != dt || args[i]->t->ndim != nd ||
             memcmp(args[i]->t->shape, shape, (size_t)nd * sizeof *shape) != 0)) {
            status = rerr(&E, f->params[i]->loc, "argument '%s' does not have the declared shape and dtype",
                          f->params[i]->name->str);
            break;
        }
        if (args[i]->kind == VAL_TENSOR && (status = bind_dims(&E, f->params[i], args[i]->t)) != 0)
            break;
        if ((status = bind_tuple_dims(&E, f->params[i], f->params[i]->sinfo, args[i], 0)) != 0)
            break;
        /* a shape parameter, R.Shape([n, m]), binds n and m as R.match_cast
         * does; a prim parameter R.Prim(value=n) binds or checks n */
        char what[160];
        snprintf(what, sizeof what, "argument '%s'", f->params[i]->name->str);
        if (((args[i]->kind == VAL_SHAPE && f->params[i]->sinfo && f->params[i]->sinfo->kind == SI_SHAPE) ||
             (args[i]->kind == VAL_PRIM && f->params[i]->sinfo && f->params[i]->sinfo->kind == SI_PRIM)) &&
            (status = match_sinfo(&E, f->name->str, args[i], f->params[i]->sinfo, what, f->params[i]->loc)) != 0)
            break;
        if ((status = placed_ok(&E, f->params[i]->loc, what, args[i], f->params[i]->sinfo)) != 0)
            break;
        bind(&E, f->params[i], args[i]);
    }
    if (!status)
        status = run_blocks(&E, f->blocks, f->nblocks, 1);
    if (!status) {
        Value *r = f->result ? eval(&E, f->result) : NULL;
        char what[160];
        snprintf(what, sizeof what, "the result of %s", f->name->str);
        if (!r)
            status = f->result ? -1 : rerr(&E, f->loc, "%s returns nothing", f->name->str);
        else if (!value_fits(&E, r, f->ret))
            status = misfit(&E, f->ret->loc.line ? f->ret->loc : f->result->loc, what, r, f->ret);
        else if (!(*out = take(&E, r)))
            status = rerr(&E, f->result->loc, "cannot copy %s", what);
    }
    oom_leave(&guard);
    env_free(&E);
    return status;
}
