/* annotate-scope (seed 003): decides which tensors of a Relax function live
 * in texture memory. Each call says, per operand, whether it reads texture
 * (from its legalized PrimFunc's access pattern, or, for convolution,
 * pooling and layer_norm, from the attributes that PrimFunc records); each
 * tensor's shape says which texture it fits; the producer writes what its
 * consumers want, a copy serving the others. The decisions become
 * R.hint_on_device on the operands and vdevices on the annotations, which
 * realize-vdevice then turns into copies where they are needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/access.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../../ir/vdevice.h"
#include "../graph.h"
#include "../pass.h"
#include "../../ir/oom.h"

enum { OPENCL = 4 };

/* One tensor a function receives or computes: a parameter, a call's result,
 * or one field of a call's tuple result. */
typedef struct Slot {
    const char *name;
    int field;                /* the field of a tuple result, or -1 */
    Loc loc;
    StructInfo *si;
    int ndim;
    int64_t shape[OP_MAX_RANK];   /* -1: symbolic */
    DType dt;
    int64_t bytes;            /* -1 when the shape is not static */
    TexKind tex;              /* the texture its shape fits, or TEX_NONE */
    char shape_why[200];
    int param, output;
    int ntex, nglob;          /* consumers that want texture, global memory */
    char tex_by[96], glob_by[96];
    TexKind chosen;
    Var *hint[TEX_NCHW + 1];  /* the hint made for each scope in the current block */
    RBlock *hint_block[TEX_NCHW + 1];
} Slot;

/* What one call accepts in texture memory. */
typedef struct Demand {
    int all;                  /* every tensor operand may be a texture */
    int except;               /* an operand that may not (a weight), or -1 */
    char why[240];
} Demand;

typedef struct FnPlan {
    Func *fn;
    Slot *slots;
    int n, cap;
    PtrMap slot_of;           /* a variable: 1 + its (first) slot */
    PtrMap tuple_of;          /* a variable bound to a tuple (a, b): 1 + its index in tuples */
    const Expr **tuples;
    int ntuples;
} FnPlan;

typedef struct Annot {
    Module *m;
    PassCtx *ctx;
    Notes notes;
    int64_t S, D;
    VDevList vl;
    int vdev[TEX_NCHW + 1];   /* the vdevice of each scope, -1 until used */
    unsigned used;            /* scopes used (bits by TexKind) */
    OpTable legal;            /* legalized operators, shared among identical calls */
    PtrMap names;
    int64_t bytes_tex, bytes_glob, bytes_copied;
    int ntex, nglob, ncopies;
} Annot;

static int add_slot(FnPlan *P, const char *name, int field, Loc loc, StructInfo *si, Annot *A)
{
    if (P->n == P->cap) {
        P->cap = P->cap ? 2 * P->cap : 32;
        Slot *s = xrealloc(P->slots, (size_t)P->cap * sizeof *s);
        if (!s)
            oom_fail();
        P->slots = s;
    }
    Slot *s = &P->slots[P->n];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->field = field;
    s->loc = loc;
    s->si = si;
    s->ndim = -1;
    s->bytes = -1;
    s->tex = TEX_NONE;
    snprintf(s->shape_why, sizeof s->shape_why, "its type is not known");
    if (si && si->kind == SI_TENSOR && si->shape && si->ndim >= 0 && si->ndim <= OP_MAX_RANK) {
        s->ndim = si->ndim;
        s->dt = si->dtype;
        s->bytes = dtype_size(si->dtype);
        for (int d = 0; d < si->ndim; d++) {
            int64_t v;
            if (expr_const_int(si->shape[d], &v) || v < 0) {
                s->shape[d] = -1;
                s->bytes = -1;
            } else {
                s->shape[d] = v;
                s->bytes = s->bytes >= 0 && v && s->bytes > INT64_MAX / v ? -1 : s->bytes >= 0 ? s->bytes * v : -1;
            }
        }
        s->tex = texture_choose(s->ndim, s->shape, A->S, A->D, s->shape_why, sizeof s->shape_why);
    }
    return P->n++;
}

static Slot *slot_of(FnPlan *P, const Expr *e)
{
    int i = e && e->kind == E_VAR ? ptrmap_get(&P->slot_of, e->u.var, 0) : 0;
    return i ? &P->slots[i - 1] : NULL;
}

/* The slots of fn: parameters, then each binding's result (a tuple's fields
 * one slot each); a rebinding or a field access names the slot it reads. */
static void plan_slots(FnPlan *P, Annot *A)
{
    Func *fn = P->fn;
    for (int i = 0; i < fn->nparams; i++) {
        int k = add_slot(P, fn->params[i]->name->str, -1, fn->params[i]->loc, fn->params[i]->sinfo, A);
        P->slots[k].param = 1;
        ptrmap_put(&P->slot_of, fn->params[i], k + 1);
    }
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            const Expr *v = bd->value;
            StructInfo *si = bd->var->sinfo;
            int k = 0;
            int t = v->kind == E_GETITEM && v->u.get.tuple->kind == E_VAR ?
                ptrmap_get(&P->tuple_of, v->u.get.tuple->u.var, 0) : 0;
            if (v->kind == E_VAR)
                k = ptrmap_get(&P->slot_of, v->u.var, 0);
            else if (v->kind == E_TUPLE) {
                /* its fields are the items' tensors, not tensors of its own */
                const Expr **g = xrealloc(P->tuples, (size_t)(P->ntuples + 1) * sizeof *g);
                if (!g)
                    oom_fail();
                P->tuples = g;
                P->tuples[P->ntuples++] = v;
                ptrmap_put(&P->tuple_of, bd->var, P->ntuples);
            } else if (t) {
                const Expr *tup = P->tuples[t - 1];
                int ix = v->u.get.index;
                k = ix >= 0 && ix < tup->u.list.n && tup->u.list.items[ix]->kind == E_VAR ?
                    ptrmap_get(&P->slot_of, tup->u.list.items[ix]->u.var, 0) : 0;
            } else if (v->kind == E_GETITEM && v->u.get.tuple->kind == E_VAR &&
                     (k = ptrmap_get(&P->slot_of, v->u.get.tuple->u.var, 0)) != 0) {
                const StructInfo *ts = v->u.get.tuple->u.var->sinfo;
                int in_range = ts && ts->kind == SI_TUPLE && v->u.get.index >= 0 && v->u.get.index < ts->nfields;
                k = P->slots[k - 1].field >= 0 && in_range ? k + v->u.get.index : 0;
            }
            else if (si && si->kind == SI_TUPLE && si->nfields > 0) {
                for (int f = 0; f < si->nfields; f++) {
                    int j = add_slot(P, bd->var->name->str, f, bd->loc, si->fields[f], A);
                    k = k ? k : j + 1;
                }
            } else if (si && si->kind == SI_TENSOR)
                k = add_slot(P, bd->var->name->str, -1, bd->loc, si, A) + 1;
            if (k)
                ptrmap_put(&P->slot_of, bd->var, k);
        }
}

/* ---- what a call accepts ---- */

static const char *attr_str(const Expr *attrs, const char *key, const char *dflt)
{
    for (int i = 0; attrs && attrs->kind == E_DICT && i < attrs->u.dict.n; i++) {
        const Expr *k = attrs->u.dict.keys[i], *v = attrs->u.dict.vals[i];
        if (k->kind == E_STR && strcmp(k->u.str.s, key) == 0)
            return v->kind == E_STR ? v->u.str.s : "";
    }
    return dflt;
}

/* The tensor operands of a call: their slots in the call's argument array. */
static int operands(const Expr *e, Expr ***out)
{
    if (e->kind != E_CALL)
        return 0;
    if (call_tir_callee(e)) {
        Expr *t = e->u.call.args[1];
        return t->kind == E_TUPLE ? (*out = t->u.list.items, t->u.list.n) : 0;
    }
    const OpInfo *op = e->u.call.callee ? NULL : op_find(e->u.call.op->str);
    if (op && op->tuple_arg)
        return e->u.call.nargs && e->u.call.args[0]->kind == E_TUPLE ?
            (*out = e->u.call.args[0]->u.list.items, e->u.call.args[0]->u.list.n) : 0;
    *out = e->u.call.args;
    return op ? (op->ntensors < e->u.call.nargs ? op->ntensors : e->u.call.nargs) : e->u.call.nargs;
}

/* The PrimFunc computing a call: call_tir's callee, or the operator
 * legalized for its operands' static types; NULL with why filled. */
static Func *callee_prim(Annot *A, const Expr *e, char *why, size_t cap)
{
    Func *f = call_tir_callee(e);
    if (f)
        return f;
    const OpInfo *op = e->u.call.callee ? NULL : op_find(e->u.call.op->str);
    if (!op)
        return snprintf(why, cap, "%s is opaque: lopt cannot read what it does", e->u.call.op->str), NULL;
    TensorType args[OP_MAX_ARGS], outs[OP_MAX_ARGS];
    Expr **items = NULL;
    int n = operands(e, &items), nout;
    OpError err;
    if (n > OP_MAX_ARGS)
        return snprintf(why, cap, "%s has too many operands to read", op->name), NULL;
    for (int k = 0; k < n; k++)
        if (value_type(items[k], &args[k]))
            return snprintf(why, cap, "the operands of %s have no static shape", op->name), NULL;
    if ((f = op_table_find(&A->legal, e, args, n)))
        return f;
    if (op_infer(e, args, n, outs, &nout, &err) ||
        !(f = op_legalize(A->m, e, args, n, intern_cstr(&A->m->names, strrchr(op->name, '.') + 1), &err)))
        return snprintf(why, cap, "%.190s", err.msg), NULL;
    op_table_add(&A->legal, e, args, n, f);
    return f;
}

static void demand_of(Annot *A, const Expr *e, Demand *d)
{
    char why[200];
    Func *f = callee_prim(A, e, why, sizeof why);
    const char *op = f ? attr_str(f->attrs, "op", NULL) : NULL;
    const char *name = op ? op : f ? f->name->str : e->u.call.op->str;
    d->all = 0;
    d->except = -1;
    if (!f) {
        snprintf(d->why, sizeof d->why, "%s", why);
        return;
    }
    if (op && strcmp(op, "R.nn.conv2d") == 0) {
        const char *dl = attr_str(f->attrs, "data_layout", op_layout_default("data_layout"));
        const char *kl = attr_str(f->attrs, "kernel_layout", op_layout_default("kernel_layout"));
        d->all = strcmp(dl, "NCHW4c") == 0 && strcmp(kl, "OIHW4o") == 0;
        d->except = 1;
        snprintf(d->why, sizeof d->why, d->all ? "conv2d in NCHW4c/OIHW4o reads its data from texture, its weight "
                 "from global memory" : "conv2d in %s/%s reads global memory", dl, kl);
        return;
    }
    if (op && (strcmp(op, "R.nn.max_pool2d") == 0 || strcmp(op, "R.nn.avg_pool2d") == 0 ||
               strcmp(op, "R.nn.adaptive_avg_pool2d") == 0)) {
        const char *l = attr_str(f->attrs, "layout", op_layout_default("layout"));
        d->all = strcmp(l, "NCHW4c") == 0;
        snprintf(d->why, sizeof d->why, "%s in %s %s", op + 2, l, d->all ? "reads texture" : "reads global memory");
        return;
    }
    if (op && strcmp(op, "R.nn.layer_norm") == 0) {
        d->all = 1;
        snprintf(d->why, sizeof d->why, "layer_norm reads texture");
        return;
    }
    AccessPattern p = tir_pattern(f, why, sizeof why);
    if (op && strcmp(op, "R.layout_transform") == 0) {
        d->all = p == PAT_ELEMWISE;
        snprintf(d->why, sizeof d->why, "the layout_transform %s", d->all ? "is elementwise: it reads texture" :
                 "moves elements: it reads global memory");
        return;
    }
    d->all = p <= PAT_INJECTIVE;
    snprintf(d->why, sizeof d->why, "%s is %s: it reads %s", name, access_pattern_name(p),
             d->all ? "texture" : "global memory");
}

static int accepts(const Demand *d, int k)
{
    return d->all && k != d->except;
}

/* ---- deciding ---- */

/* The scope a constant operand takes: the texture its shape fits when its
 * consumer reads texture there, else global memory. */
static TexKind const_scope(Annot *A, const Expr *c, int accepted)
{
    TensorType t;
    char why[200];
    if (c->kind != E_CONST || op_const_type(c, &t))
        return TEX_NONE;
    return accepted ? texture_choose(t.ndim, t.shape, A->S, A->D, why, sizeof why) : TEX_NONE;
}

static void consumer_demands(FnPlan *P, Annot *A)
{
    Func *fn = P->fn;
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            Expr **items = NULL;
            int n = operands(bd->value, &items);
            if (!n)
                continue;
            Demand d;
            demand_of(A, bd->value, &d);
            note_add(&A->notes, bd->loc, "the call computing %s: %s", bd->var->name->str, d.why);
            for (int k = 0; k < n; k++) {
                Slot *s = slot_of(P, items[k]);
                if (!s) {
                    A->used |= 1u << const_scope(A, items[k], accepts(&d, k));
                    continue;
                }
                int tex = accepts(&d, k) && s->tex != TEX_NONE;
                A->used |= 1u << (tex ? s->tex : TEX_NONE);
                char *by = tex ? s->tex_by : s->glob_by;
                *(tex ? &s->ntex : &s->nglob) += 1;
                if (!*by)
                    snprintf(by, sizeof s->tex_by, "%s at line %d", bd->var->name->str, bd->loc.line);
            }
        }
    if (fn->result && fn->result->kind == E_TUPLE) {
        for (int k = 0; k < fn->result->u.list.n; k++)
            if (slot_of(P, fn->result->u.list.items[k]))
                slot_of(P, fn->result->u.list.items[k])->output = 1;
    } else if (fn->result && fn->result->kind == E_VAR) {
        int k = ptrmap_get(&P->slot_of, fn->result->u.var, 0);
        const StructInfo *si = fn->result->u.var->sinfo;
        int nf = si && si->kind == SI_TUPLE && k && P->slots[k - 1].field == 0 ? si->nfields : 1;
        for (int f = 0; k && f < nf; f++)
            P->slots[k - 1 + f].output = 1;
    }
}

/* The scope each tensor is written in. Parameters and results are the
 * caller's, in global memory. Otherwise the consumers decide: when they all
 * want global memory, or all a texture, no copy is needed; when they
 * disagree, either choice copies the tensor once (a copy serves every
 * consumer of the other scope), and the scope more of them read is kept,
 * texture on a tie. (TVM's AnnotateCustomMemoryScope means to count them
 * too, but its count never grows, so the first scope in hash order wins.) */
static void decide(FnPlan *P, Annot *A)
{
    for (int i = 0; i < P->n; i++) {
        Slot *s = &P->slots[i];
        char what[64];
        if (s->field >= 0)
            snprintf(what, sizeof what, "%s[%d]", s->name, s->field);
        else
            snprintf(what, sizeof what, "%s", s->name);
        s->chosen = s->param || s->output || !s->ntex || s->nglob > s->ntex ? TEX_NONE : s->tex;
        if (s->ndim < 0)
            continue;
        if (s->chosen != TEX_NONE) {
            A->bytes_tex += s->bytes > 0 ? s->bytes : 0;
            A->ntex++;
        } else {
            A->bytes_glob += s->bytes > 0 ? s->bytes : 0;
            A->nglob++;
        }
        A->used |= 1u << s->chosen;
        if (!s->ntex && !s->nglob && !s->output)
            continue;
        if (s->param || s->output) {
            note_add(&A->notes, s->loc, "%s: global memory: it is %s%s%s", what,
                     s->param ? "a parameter" : "a result of the function",
                     s->ntex ? "; a copy in texture serves " : "", s->ntex ? s->tex_by : "");
        } else if (s->ntex && s->chosen == TEX_NONE) {
            note_add(&A->notes, s->loc, "%s: global memory: %d consumers read it there, %d from texture (%s); the "
                     "scope more of them read is kept, and a copy in texture serves the others", what, s->nglob,
                     s->ntex, s->tex_by);
        } else if (!s->ntex) {
            note_add(&A->notes, s->loc, "%s: global memory: %s%s%s", what,
                     s->tex == TEX_NONE ? s->shape_why : "no consumer reads texture (",
                     s->tex == TEX_NONE ? "" : s->glob_by, s->tex == TEX_NONE ? "" : ")");
        } else {
            note_add(&A->notes, s->loc, "%s: %s: %s asks for texture and %s%s%s", what, texture_scope(s->tex),
                     s->tex_by, s->shape_why, s->nglob ? "; a copy in global memory serves " : "",
                     s->nglob ? s->glob_by : "");
        }
    }
}

/* ---- rewriting ---- */

static StructInfo *with_vdevice(Annot *A, const StructInfo *si, TexKind k)
{
    char name[96];
    if (A->vdev[k] < 0)
        return (StructInfo *)si;   /* not reached: every scope used has its vdevice */
    vdev_name(&A->vl, A->vdev[k], name, sizeof name);
    return sinfo_placed(&A->m->arena, si, name);
}

/* R.hint_on_device(x, R.device(dev_type=4, dev_id=0), "scope") */
static Expr *hint_new(Module *m, Expr *x, const char *scope, Loc loc)
{
    Arena *a = &m->arena;
    Expr *dev = expr_new(a, E_CALL, loc);
    dev->u.call.op = intern_cstr(&m->names, "R.device");
    dev->u.call.nkw = 2;
    dev->u.call.args = arena_array(a, 2, sizeof(Expr *));
    dev->u.call.kw = arena_array(a, 2, sizeof(Sym *));
    dev->u.call.args[0] = expr_int(a, OPENCL, DT_VOID, loc);
    dev->u.call.args[1] = expr_int(a, 0, DT_VOID, loc);
    dev->u.call.kw[0] = intern_cstr(&m->names, "dev_type");
    dev->u.call.kw[1] = intern_cstr(&m->names, "dev_id");
    Expr *h = expr_new(a, E_CALL, loc);
    h->u.call.op = intern_cstr(&m->names, "R.hint_on_device");
    h->u.call.nargs = 3;
    h->u.call.args = arena_array(a, 4, sizeof(Expr *));
    h->u.call.kw = arena_array(a, 1, sizeof(Sym *));
    h->u.call.args[0] = x;
    h->u.call.args[1] = dev;
    h->u.call.args[2] = expr_str(a, scope, loc);
    return h;
}

typedef struct Out {
    Binding **v;
    int n, cap;
} Out;

static void out_push(Out *o, Binding *bd)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 32;
        Binding **v = xrealloc(o->v, (size_t)o->cap * sizeof *v);
        if (!v)
            oom_fail();
        o->v = v;
    }
    o->v[o->n++] = bd;
}

/* The operand for a consumer that wants scope k of slot s: the hint made
 * for it in this block, or a new one bound before the consumer. */
static Expr *hinted(Annot *A, Slot *s, Expr *x, TexKind k, RBlock *rb, Out *o, Loc loc)
{
    if (s->hint[k] && s->hint_block[k] == rb)
        return var_ref(&A->m->arena, s->hint[k], loc);
    if (!s->si || s->si->kind != SI_TENSOR)
        return x;
    Binding *h = binding_fresh(A->m, &A->names, s->name, rb->dataflow, with_vdevice(A, s->si, k),
                               hint_new(A->m, x, texture_scope(k), loc), loc);
    h->annot = h->var->sinfo;
    out_push(o, h);
    s->hint[k] = h->var;
    s->hint_block[k] = rb;
    if (k != s->chosen && s->bytes > 0) {
        A->bytes_copied += s->bytes;
        A->ncopies++;
    }
    return var_ref(&A->m->arena, h->var, loc);
}

/* A constant operand is placed directly: bound once, typed with its vdevice. */
static Expr *placed_const(Annot *A, Expr *c, int accepted, RBlock *rb, Out *o, Loc loc)
{
    TensorType t;
    if (op_const_type(c, &t))
        return c;
    TexKind k = const_scope(A, c, accepted);
    int64_t bytes = dtype_size(t.dtype);
    for (int d = 0; d < t.ndim; d++)
        bytes *= t.shape[d];
    if (k == TEX_NONE) {
        A->bytes_glob += bytes;
        A->nglob++;
    } else {
        A->bytes_tex += bytes;
        A->ntex++;
    }
    StructInfo *si = with_vdevice(A, tensor_sinfo_new(&A->m->arena, t.dtype, t.ndim, t.shape, loc), k);
    Binding *bd = binding_fresh(A->m, &A->names, "c", rb->dataflow, si, c, loc);
    bd->annot = si;
    out_push(o, bd);
    return var_ref(&A->m->arena, bd->var, loc);
}

static void set_annotation(Annot *A, FnPlan *P, Binding *bd)
{
    int k = ptrmap_get(&P->slot_of, bd->var, 0);
    StructInfo *si = bd->var->sinfo;
    if (!k || !si || (bd->value->kind == E_CALL && strcmp(bd->value->u.call.op->str, "R.hint_on_device") == 0))
        return;
    if (si->kind == SI_TENSOR) {
        bd->annot = bd->var->sinfo = with_vdevice(A, si, P->slots[k - 1].chosen);
    } else if (si->kind == SI_TUPLE && si->nfields > 0 && P->slots[k - 1].field == 0) {
        StructInfo **f = arena_array(&A->m->arena, (size_t)si->nfields, sizeof *f);
        for (int i = 0; i < si->nfields; i++)
            f[i] = si->fields[i]->kind == SI_TENSOR ? with_vdevice(A, si->fields[i], P->slots[k - 1 + i].chosen) :
                si->fields[i];
        bd->annot = bd->var->sinfo = tuple_sinfo_new(&A->m->arena, f, si->nfields, bd->loc);
    }
    if (call_tir_callee(bd->value) && bd->annot->kind == SI_TENSOR) {
        Expr *o = call_kwarg(bd->value, "out_sinfo");
        if (o && o->kind == E_SINFO)
            o->u.sinfo = bd->annot;
    }
}

static void rewrite(FnPlan *P, Annot *A)
{
    Func *fn = P->fn;
    collect_names(fn, &A->names);
    for (int i = 0; i < fn->nparams; i++) {
        StructInfo *si = fn->params[i]->sinfo;
        if (si && si->kind == SI_TENSOR)
            fn->params[i]->sinfo = with_vdevice(A, si, TEX_NONE);
    }
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        Out o = { 0 };
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            Expr **items = NULL;
            int n = operands(bd->value, &items);
            Demand d = { 0, -1, "" };
            if (n)
                demand_of(A, bd->value, &d);
            for (int k = 0; k < n; k++) {
                Slot *s = slot_of(P, items[k]);
                if (s)
                    items[k] = hinted(A, s, items[k], accepts(&d, k) ? s->tex : TEX_NONE, rb, &o, bd->loc);
                else if (items[k]->kind == E_CONST)
                    items[k] = placed_const(A, items[k], accepts(&d, k), rb, &o, bd->loc);
            }
            set_annotation(A, P, bd);
            out_push(&o, bd);
        }
        rb->binds = arena_array(&A->m->arena, (size_t)o.n + 1, sizeof *rb->binds);
        if (o.n)
            memcpy(rb->binds, o.v, (size_t)o.n * sizeof *o.v);
        rb->nbinds = o.n;
        free(o.v);
    }
}

/* Whether fn places values already: then annotate-scope leaves it alone. */
static int places_values(const Func *fn)
{
    for (int i = 0; i < fn->nparams; i++)
        if (fn->params[i]->sinfo && fn->params[i]->sinfo->vdevice)
            return 1;
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            const Binding *bd = fn->blocks[b]->binds[i];
            if ((bd->annot && bd->annot->vdevice) || is_call_to(bd->value, "R.hint_on_device") ||
                is_call_to(bd->value, "R.to_vdevice"))
                return 1;
        }
    return fn->ret && fn->ret->vdevice;
}

static int opt_int(const PassOpt *opts, int nopts, const char *key, int64_t dflt, int64_t *out)
{
    *out = dflt;
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i].key, key) == 0) {
            char *end;
            long long v = strtoll(opts[i].val, &end, 10);
            if (*end || end == opts[i].val || v < 1 || v > (1LL << 40))
                return -1;
            *out = v;
        }
    return 0;
}

/* ---- a tie in rewrites goes to texture ----
 *
 * y = f(lt(a, M)) with f elementwise (its other operands scalar constants)
 * and M one to one is lt(f(a), M): one rewrite either way, of the same
 * bytes. Written the second way, a is read by f, which reads texture, where
 * the rewrite would have read it from global memory; TVM's ConvertLayout
 * computes f in the converted layout so. Done when a is no parameter (a
 * parameter stays in global memory) and fits a texture. */
static int scalar_const(const PtrMap *def, Binding **binds, const Expr *e)
{
    int i = e->kind == E_VAR ? ptrmap_get(def, e->u.var, 0) : 0;
    const Expr *c = i ? binds[i - 1]->value : e;
    return c->kind == E_CONST && c->u.cst.ndim == 0;
}

static int sink_one(Annot *A, Func *fn, RBlock *rb, int at, const PtrMap *def, Binding **binds, const PtrMap *uses,
                    const Binding **gone)
{
    Module *m = A->m;
    Binding *bd = rb->binds[at];
    Expr *e = bd->value;
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
    if (!op || op->category != LAYOUT_AGNOSTIC || op->tuple_arg || op->tuple_out || op->ntensors < 1 ||
        e->u.call.nargs < op->ntensors || !bd->var->sinfo)
        return 0;
    int k0 = -1;
    for (int k = 0; k < op->ntensors; k++) {
        const Expr *a = e->u.call.args[k];
        if (scalar_const(def, binds, a))
            continue;
        if (k0 >= 0 || a->kind != E_VAR)
            return 0;
        k0 = k;
    }
    const Expr *t = k0 >= 0 ? e->u.call.args[k0] : NULL;
    int ti = t ? ptrmap_get(def, t->u.var, 0) : 0;
    const Binding *tb = ti ? binds[ti - 1] : NULL;
    if (!tb || !is_layout_transform(tb->value) || call_kwarg(tb->value, "pad_value") ||
        ptrmap_get(uses, t->u.var, 0) != 1 || !sinfo_same_tensor(t->u.var->sinfo, bd->var->sinfo))
        return 0;
    /* the rewrite goes: it must be bound in this block, and no output of it */
    int here = 0;
    for (int i = 0; i < at; i++)
        here |= rb->binds[i] == tb;
    for (int i = 0; i < rb->noutputs; i++)
        here &= rb->outputs[i] != t->u.var;
    if (!here)
        return 0;
    Expr *a = tb->value->u.call.args[0];
    TensorType at_;
    char why[200];
    if (a->kind != E_VAR || value_type(a, &at_) ||
        texture_choose(at_.ndim, at_.shape, A->S, A->D, why, sizeof why) == TEX_NONE)
        return 0;
    for (int p = 0; p < fn->nparams; p++)
        if (fn->params[p] == a->u.var)
            return 0;
    const Expr *map = call_kwarg(tb->value, "index_map");
    Arena tmp = { 0 };
    ImError err;
    IndexMap *im = map && map->kind == E_INDEXMAP ? im_from_expr(&tmp, map, at_.shape, &err) : NULL;
    int bij = im && im_classify(im, NULL, NULL) == IM_BIJECTIVE;
    arena_free(&tmp);
    if (!bij)
        return 0;
    /* y_t = f(a, ...) in a's layout; y = lt(y_t, M) */
    Expr *c = call_with_attrs(m, e, NULL, NULL, 0);
    c->u.call.args[k0] = a;
    StructInfo *si = tensor_sinfo_new(&m->arena, bd->var->sinfo->dtype, at_.ndim, at_.shape, bd->loc);
    char nm[160];
    snprintf(nm, sizeof nm, "%.120s_t", bd->var->name->str);
    Binding *nb = binding_fresh(m, &A->names, nm, rb->dataflow, si, c, bd->loc);
    var_say(m, nb->var, "the form of ", bd->var, " in its operand's layout");
    bd->value = layout_transform_new(m, var_ref(&m->arena, nb->var, bd->loc), (Expr *)map, NULL, bd->loc);
    note_add(&A->notes, bd->loc, "sank the rewrite of %s's operand past %s: one rewrite either way, and %s can be "
             "read from texture", var_said(bd->var), op->name, var_said(a->u.var));
    /* the new binding goes before bd */
    Binding **nbinds = arena_array(&m->arena, (size_t)rb->nbinds + 2, sizeof *nbinds);
    memcpy(nbinds, rb->binds, (size_t)at * sizeof *nbinds);
    nbinds[at] = nb;
    memcpy(nbinds + at + 1, rb->binds + at, (size_t)(rb->nbinds - at) * sizeof *nbinds);
    rb->binds = nbinds;
    rb->nbinds++;
    *gone = tb;
    return 1;
}

/* Removes binding gone (the rewrite sinking left unused) from fn. */
static void drop_binding(Func *fn, const Binding *gone)
{
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        int n = 0;
        for (int i = 0; i < rb->nbinds; i++)
            if (rb->binds[i] != gone)
                rb->binds[n++] = rb->binds[i];
        rb->nbinds = n;
    }
}

typedef struct Defs {
    PtrMap def, uses;
    Binding **binds;
    int n, cap;
} Defs;

static void defs_build(Module *m, Func *fn, Defs *D)
{
    ptrmap_free(&D->def);
    ptrmap_free(&D->uses);
    D->n = 0;
    for (int b = 0; b < fn->nblocks; b++)
        for (int j = 0; j < fn->blocks[b]->nbinds; j++) {
            vec_push(&m->arena, &D->binds, &D->n, &D->cap, fn->blocks[b]->binds[j]);
            ptrmap_put(&D->def, fn->blocks[b]->binds[j]->var, D->n);
        }
    count_uses(fn, &D->uses);
}

static void sink_for_texture(Annot *A, Func *fn)
{
    infer_types(A->m, fn);
    collect_names(fn, &A->names);
    Defs D = { 0 };
    defs_build(A->m, fn, &D);
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        for (int i = 0; i < rb->nbinds; i++) {
            const Binding *gone = NULL;
            if (!sink_one(A, fn, rb, i, &D.def, D.binds, &D.uses, &gone))
                continue;
            drop_binding(fn, gone);
            defs_build(A->m, fn, &D);
            /* the same binding again: its rewrite may sink further */
            i = -1;
        }
    }
    ptrmap_free(&D.def);
    ptrmap_free(&D.uses);
}

int pass_annotate_scope_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    int64_t v;
    if (opt_int(opts, nopts, "spatial-limit", TEX_SPATIAL_LIMIT, &v) ||
        opt_int(opts, nopts, "depth-limit", TEX_DEPTH_LIMIT, &v))
        return snprintf(err, cap, "annotate-scope: spatial-limit and depth-limit are integers in [1, 2^40]"), -1;
    return 0;
}

int pass_annotate_scope(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Annot A = { .m = m, .ctx = ctx };
    Loc loc;
    char why[200];
    opt_int(opts, nopts, "spatial-limit", TEX_SPATIAL_LIMIT, &A.S);
    opt_int(opts, nopts, "depth-limit", TEX_DEPTH_LIMIT, &A.D);
    if (vdev_list(m, &A.vl, &loc, why, sizeof why))
        return diag_error(ctx->src, loc, "%s", why), -1;
    FnPlan *plans = xcalloc((size_t)m->nfuncs + 1, sizeof *plans);
    if (!plans)
        oom_fail();
    int np = 0;
    for (int i = 0; i < m->nfuncs; i++) {
        Func *fn = m->funcs[i];
        if (fn->kind != F_RELAX)
            continue;
        if (!is_plannable(fn) || places_values(fn)) {
            note_add(&A.notes, fn->loc, "%s: left as it is: %s", fn->name->str,
                     !is_plannable(fn) ? "it has control flow or effects" : "it places values on devices already");
            continue;
        }
        sink_for_texture(&A, fn);
        FnPlan *P = &plans[np++];
        A.used |= 1u << TEX_NONE;   /* parameters and results are in global memory */
        P->fn = fn;
        plan_slots(P, &A);
        consumer_demands(P, &A);
        decide(P, &A);
    }
    /* the vdevices the decisions use, in a fixed order after those declared */
    for (int k = TEX_NONE; k <= TEX_NCHW; k++) {
        A.vdev[k] = vdev_find(&A.vl, "opencl", OPENCL, 0, texture_scope(k));
        if (A.vdev[k] < 0 && (A.used >> k & 1))
            A.vdev[k] = vdev_add(m, &A.vl, "opencl", 0, texture_scope(k), m->funcs[0]->loc);
    }
    for (int i = 0; i < np; i++) {
        rewrite(&plans[i], &A);
        ptrmap_free(&plans[i].slot_of);
        ptrmap_free(&plans[i].tuple_of);
        free(plans[i].tuples);
        free(plans[i].slots);
    }
    free(plans);
    notes_emit(&A.notes, ctx, "annotate-scope", 0);
    if (ctx->explain)
        fprintf(ctx->explain, "%s: annotate-scope: %d tensors in texture (%lld bytes), %d in global memory "
                "(%lld bytes), %d copied (%lld bytes)\n", ctx->src->name, A.ntex, (long long)A.bytes_tex, A.nglob,
                (long long)A.bytes_glob, A.ncopies, (long long)A.bytes_copied);
    op_table_free(&A.legal);
    ptrmap_free(&A.names);
    return 0;
}
