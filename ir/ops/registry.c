/* The operator registry: the families' tables, finding an operator by name,
 * checking a call and inferring its result, legalizing it to a PrimFunc, and
 * the table of PrimFuncs made for calls. An operator lives in the file of its
 * family (elementwise.c, reduce.c, nn/conv.c ...); adding one touches that
 * file alone. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "../oom.h"

static const OpFamily *const families[] = {
    &op_family_elementwise, &op_family_reduce, &op_family_manipulate, &op_family_index,
    &op_family_linalg, &op_family_conv, &op_family_pool, &op_family_norm, &op_family_creation,
    &op_family_image,
};
enum { NFAMILIES = sizeof families / sizeof *families, OP_MAX_OPS = 256 };

/* The registry's tables are filled once, before any thread reads them
 * (pthread_once): two modules may be verified on two threads at once. */
static OpInfo infos[OP_MAX_OPS];
static int ninfos;
static pthread_once_t infos_once = PTHREAD_ONCE_INIT;

static void fill_infos(void)
{
    for (int f = 0; f < NFAMILIES; f++)
        for (int i = 0; i < families[f]->n && ninfos < OP_MAX_OPS; i++)
            infos[ninfos++] = families[f]->ops[i].info;
}

const OpInfo *op_registry(int *n)
{
    pthread_once(&infos_once, fill_infos);
    *n = ninfos;
    return infos;
}

/* Operators by name: an open-addressing table over the families' entries,
 * filled at the first lookup (passes ask for every call of every sweep). */
enum { OP_SLOTS = 2 * OP_MAX_OPS };   /* never full: at most half the slots hold an operator */

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static const Op *slot[OP_SLOTS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void fill_slots(void)
{
    for (int f = 0; f < NFAMILIES; f++)
        for (int i = 0; i < families[f]->n; i++) {
            uint32_t h = name_hash(families[f]->ops[i].info.name) % OP_SLOTS;
            while (slot[h])
                h = (h + 1) % OP_SLOTS;
            slot[h] = &families[f]->ops[i];
        }
}

static const Op *find_op(const char *name)
{
    pthread_once(&slots_once, fill_slots);
    /* Passes ask by interned names, the same few pointers over and over (a
     * chain alternating R.nn.relu and R.negative asks for both in turn): a
     * small table per thread, by the name's address, is looked in first,
     * its operator's name compared in case the address now holds another. */
    enum { RECENT = 32 };
    static _Thread_local struct { const char *name; const Op *op; } recent[RECENT];
    unsigned r = (unsigned)(((uintptr_t)name >> 3) ^ ((uintptr_t)name >> 9)) % RECENT;
    if (recent[r].name == name && streq(recent[r].op->info.name, name))
        return recent[r].op;
    for (uint32_t h = name_hash(name) % OP_SLOTS; slot[h]; h = (h + 1) % OP_SLOTS)
        if (streq(slot[h]->info.name, name)) {
            recent[r].name = name;
            recent[r].op = slot[h];
            return slot[h];
        }
    return NULL;
}

int op_sinfo_type(const StructInfo *s, TensorType *t)
{
    if (!s || s->kind != SI_TENSOR || !s->shape || s->dtype == DT_VOID || s->ndim < 0 || s->ndim > OP_MAX_RANK)
        return -1;
    memset(t, 0, sizeof *t);
    t->dtype = s->dtype;
    t->ndim = s->ndim;
    for (int i = 0; i < s->ndim; i++)
        if (expr_const_int(s->shape[i], &t->shape[i]))
            return -1;
    return 0;
}

int op_const_type(const Expr *e, TensorType *t)
{
    if (e->kind != E_CONST || e->u.cst.ndim > OP_MAX_RANK)
        return -1;
    memset(t, 0, sizeof *t);
    t->dtype = e->u.cst.dtype;
    t->ndim = e->u.cst.ndim;
    memcpy(t->shape, e->u.cst.shape, (size_t)t->ndim * sizeof *t->shape);
    return 0;
}

const char *op_positional(const char *name, int i)
{
    const Op *o = find_op(name);
    if (!o || !o->positional || i < 0)
        return NULL;
    for (int k = 0; o->positional[k]; k++)
        if (k == i)
            return o->positional[k];
    return NULL;
}

int op_is_creation(const char *name)
{
    const Op *o = find_op(name);
    return o && o >= op_family_creation.ops && o < op_family_creation.ops + op_family_creation.n;
}

int op_prim_operand(const char *name, int k)
{
    const Op *o = find_op(name);
    return o && ((op_is_binary(o) && k < 2) || (strcmp(name, "R.take") == 0 && k == 1));
}

const OpInfo *op_find(const char *name)
{
    const Op *o = find_op(name);
    return o ? &o->info : NULL;
}

/* The axis attribute in [0, rank), or the default its table entry gives
 * (R.nn.softmax the last dimension, R.concat and R.split the first;
 * R.nn.batch_norm has none, as in TVM). One place, read by shape inference
 * and by every pass that renumbers or inspects the attribute. */
int read_axis(const Expr *call, int rank, int *axis, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    int64_t v;
    if (!o || !o->has_axis)
        return fail(err, call->loc, "%s has no axis", call->u.call.op->str);
    v = o->axis;
    const Expr *e = attr(call, "axis");
    if (!e && o->has_axis == AXIS_REQUIRED)
        return fail(err, call->loc, "%s needs axis=, the dimension of the channels (it has no default)", o->info.name);
    if (e && int_of(e, &v))
        return fail(err, e->loc, "axis is an integer");
    if (v < 0)
        v += rank;
    if (v < 0 || v >= rank)
        return fail(err, e ? e->loc : call->loc, "axis is out of range for a tensor of rank %d", rank);
    *axis = (int)v;
    return 0;
}

int op_axis(const Expr *call, int rank, int *axis)
{
    OpError err;
    return call->kind == E_CALL ? read_axis(call, rank, axis, &err) : -1;
}

static int check_attrs(const Op *o, const Expr *call, OpError *err)
{
    for (int i = 0; i < call->u.call.nkw; i++) {
        const char *k = call->u.call.kw[i]->str;
        int ok = 0;
        for (const char *const *a = o->info.attrs; *a; a++)
            ok |= streq(*a, k);
        if (!ok)
            return fail(err, call_kwv(call)[i]->loc, "%s has no attribute '%s'", o->info.name, k);
    }
    return 0;
}

int op_check_attrs(const Expr *call, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    return o ? check_attrs(o, call, err) : 0;
}

/* The operands of a call that are not its tensors: its attributes. */
static int attrs_from(const Op *o, int ntensors)
{
    return o->info.tuple_arg ? 1 : ntensors;
}

uint64_t op_call_hash(const Expr *call, const TensorType *args, int nargs)
{
    const Op *o = find_op(call->u.call.op->str);
    uint64_t h = (uint64_t)(uintptr_t)call->u.call.op * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < nargs; i++) {
        h = h * 31 + (uint64_t)args[i].dtype;
        h = h * 31 + (uint64_t)args[i].ndim;
        for (int d = 0; d < args[i].ndim; d++)
            h = h * 1000003 + (uint64_t)args[i].shape[d];
    }
    for (int i = o ? attrs_from(o, nargs) : 0; i < call->u.call.nargs; i++)
        h = h * 1000003 + expr_hash(call->u.call.args[i]);
    for (int i = 0; i < call->u.call.nkw; i++)
        h = h * 1000003 + (uint64_t)(uintptr_t)call->u.call.kw[i] + expr_hash(call_kwv(call)[i]);
    return h;
}

static int same_types(const TensorType *a, const TensorType *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i].dtype != b[i].dtype || a[i].ndim != b[i].ndim)
            return 0;
        for (int d = 0; d < a[i].ndim; d++)
            if (a[i].shape[d] != b[i].shape[d])
                return 0;
    }
    return 1;
}

int op_call_same(const Expr *a, const TensorType *aargs, const Expr *b, const TensorType *bargs, int nargs)
{
    const Op *o = find_op(a->u.call.op->str);
    if (!o || a->u.call.op != b->u.call.op || !same_types(aargs, bargs, nargs) ||
        a->u.call.nargs != b->u.call.nargs || a->u.call.nkw != b->u.call.nkw)
        return 0;
    for (int i = attrs_from(o, nargs); i < a->u.call.nargs; i++)
        if (!expr_equal(a->u.call.args[i], b->u.call.args[i]))
            return 0;
    for (int i = 0; i < a->u.call.nkw; i++)
        if (a->u.call.kw[i] != b->u.call.kw[i] || !expr_equal(call_kwv(a)[i], call_kwv(b)[i]))
            return 0;
    return 1;
}

Func *op_table_find(const OpTable *t, const Expr *call, const TensorType *args, int nargs)
{
    if (!t->capslots)
        return NULL;
    uint64_t h = op_call_hash(call, args, nargs);
    for (size_t i = (size_t)h & (t->capslots - 1); t->slots[i]; i = (i + 1) & (t->capslots - 1)) {
        const OpTableEntry *x = &t->items[t->slots[i] - 1];
        if (x->hash == h && x->nargs == nargs && op_call_same(x->call, x->args, call, args, nargs))
            return x->fn;
    }
    return NULL;
}

static void table_slot(int *slots, size_t cap, uint64_t h, int index)
{
    size_t i = (size_t)h & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = index + 1;
}

void op_table_add(OpTable *t, const Expr *call, const TensorType *args, int nargs, Func *fn)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        OpTableEntry *g = xrealloc(t->items, (size_t)t->cap * sizeof *g);
        if (!g)
            oom_fail();
        t->items = g;
    }
    if (2 * ((size_t)t->n + 1) > t->capslots) {
        size_t cap = t->capslots ? 2 * t->capslots : 64;
        int *slots = xcalloc(cap, sizeof *slots);
        if (!slots)
            oom_fail();
        for (int k = 0; k < t->n; k++)
            table_slot(slots, cap, t->items[k].hash, k);
        free(t->slots);
        t->slots = slots;
        t->capslots = cap;
    }
    OpTableEntry *x = &t->items[t->n];
    memset(x, 0, sizeof *x);
    x->call = call;
    memcpy(x->args, args, (size_t)nargs * sizeof *args);
    x->nargs = nargs;
    x->hash = op_call_hash(call, args, nargs);
    x->fn = fn;
    table_slot(t->slots, t->capslots, x->hash, t->n++);
}

void op_table_free(OpTable *t)
{
    free(t->items);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* the calls lopt gives a meaning outside the registry, and the Relax
 * value forms it keeps as they are */
static const char *const special[] = { "R.call_tir", "R.hint_on_device", "R.to_vdevice", "R.device",
                                       "R.shape", "R.prim_value", "R.str", "R.dtype", "R.match_cast",
                                       "R.shape_of", "R.shape_to_tensor", "R.tensor_to_shape" };
enum { NSPECIAL = sizeof special / sizeof *special };

const char *op_known_name(int i)
{
    for (int f = 0; f < NFAMILIES; f++) {
        if (i < families[f]->n)
            return families[f]->ops[i].info.name;
        i -= families[f]->n;
    }
    return i < NSPECIAL ? special[i] : NULL;
}

int op_is_special(const char *name)
{
    for (int i = 0; i < NSPECIAL; i++)
        if (streq(name, special[i]))
            return 1;
    return 0;
}

/* The number of elements of t, or -1 when it exceeds int64. */
static int64_t elements(const TensorType *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (__builtin_mul_overflow(n, t->shape[d], &n))
            return -1;
    return n;
}

/* Checks what every operator's call shares (its argument count, attribute
 * names and ranks), then the operator's own inference fills the plan. */
/* A shape whose values are known when the call runs only: a variable of
 * shape type (R.shape_of(x)), or R.shape([n * 3]) on symbolic variables. */
static int runtime_shape(const Expr *x)
{
    int64_t v;
    if (x->kind == E_VAR)
        return x->u.var->kind == VAR_RELAX && x->u.var->sinfo && x->u.var->sinfo->kind == SI_SHAPE;
    if (x->kind != E_CALL || x->u.call.callee)
        return 0;
    if (streq(x->u.call.op->str, "R.shape_of") || streq(x->u.call.op->str, "R.tensor_to_shape"))
        return 1;   /* written in place: R.reshape(x, R.shape_of(y)) */
    if (strcmp(x->u.call.op->str, "R.shape") || x->u.call.nargs != 1)
        return 0;
    const Expr *l = x->u.call.args[0];
    for (int d = 0; (l->kind == E_LIST || l->kind == E_TUPLE) && d < l->u.list.n; d++)
        if (expr_const_int(l->u.list.items[d], &v))
            return 1;
    return 0;
}

static int plan(const Op *o, const Expr *call, const TensorType *args, int nargs, Plan *p, OpError *err)
{
    /* more[] (8 kB, the last member) is written whole for each output the
     * plan has and read no further, so it is not cleared for every call */
    memset(p, 0, offsetof(Plan, more));
    p->nout = 1;
    if (o->info.tuple_arg && nargs > OP_MAX_ARGS)
        return fail(err, call->loc, "%s joins at most %d tensors, not %d", o->info.name, OP_MAX_ARGS, nargs);
    if ((o->info.tuple_arg ? nargs < 1 || nargs > OP_MAX_ARGS : nargs != o->info.ntensors) ||
        call->u.call.nargs != o->info.nargs)
        return fail(err, call->loc, "%s takes %d argument%s", o->info.name, o->info.nargs, o->info.nargs == 1 ? "" : "s");
    if (check_attrs(o, call, err))
        return -1;
    /* the interpreter writes such a shape into the call as constants when
     * it runs it; until then the result's type is unknown, and verify and
     * legalize leave the call */
    for (int i = attrs_from(o, nargs); i < call->u.call.nargs + call->u.call.nkw; i++)
        if (runtime_shape(call->u.call.args[i])) {
            fail(err, call->u.call.args[i]->loc, "%s: the shape is a value known only at run time", o->info.name);
            err->unknown = 1;
            return -1;
        }
    for (int i = 0; i < nargs; i++)
        if (args[i].ndim > OP_MAX_RANK)
            return fail(err, call->loc, "%s: rank above %d", o->info.name, OP_MAX_RANK);
    /* every count a builder forms (a mean's divisor, a flat index) is at most an element count */
    for (int i = 0; i < nargs; i++)
        if (elements(&args[i]) < 0)
            return fail(err, call->loc, "%s: argument %d has more than 2^63 elements", o->info.name, i + 1);
    if (o->infer(o, call, args, nargs, p, err))
        return -1;
    for (int k = 0; k < p->nout; k++)
        if (elements(k ? &p->more[k - 1] : &p->out) < 0)
            return fail(err, call->loc, "%s: the result has more than 2^63 elements", o->info.name);
    return 0;
}

int op_infer(const Expr *call, const TensorType *args, int nargs, TensorType *outs, int *nout, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    Plan p;
    if (!o)
        return fail(err, call->loc, "%s is not a registered operator", call->u.call.op->str);
    if (plan(o, call, args, nargs, &p, err))
        return -1;
    outs[0] = p.out;
    for (int i = 1; i < p.nout; i++)
        outs[i] = p.more[i - 1];
    *nout = p.nout;
    return 0;
}

Func *op_legalize(Module *m, const Expr *call, const TensorType *args, int nargs, Sym *name, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    Plan p;
    if (!o)
        return fail(err, call->loc, "%s is not a registered operator", call->u.call.op->str), NULL;
    if (plan(o, call, args, nargs, &p, err))
        return NULL;
    B b = { m, &m->arena, call->loc, NULL, 0, 0, { 0 } };
    arena_scratch(&b.scratch);
    Func *f = arena_zalloc(b.a, sizeof *f);
    f->kind = F_PRIM;
    f->name = name;
    f->loc = call->loc;
    f->npparams = nargs + 1;
    f->pparams = arena_array(b.a, (size_t)nargs + 2, sizeof *f->pparams);
    Buffer *in[OP_MAX_ARGS];
    for (int i = 0; i < nargs; i++) {
        /* A, B, ... Z, then A26, A27, ... (a concat of many tensors) */
        char iname[16];
        snprintf(iname, sizeof iname, i < 26 ? "%c" : "A%d", i < 26 ? 'A' + i : i);
        in[i] = buffer(&b, iname, &args[i], BUF_PARAM);
        f->pparams[i] = (PParam){ NULL, in[i], NULL };
    }
    Buffer *outs[OP_MAX_ARGS];
    f->npparams = nargs + p.nout;
    f->pparams = arena_array(b.a, (size_t)(nargs + p.nout + 1), sizeof *f->pparams);
    for (int i = 0; i < nargs; i++)
        f->pparams[i] = (PParam){ NULL, in[i], NULL };
    for (int k = 0; k < p.nout; k++) {
        char oname[32];
        snprintf(oname, sizeof oname, k ? "T_out%d" : "T_out", k);
        outs[k] = buffer(&b, oname, k ? &p.more[k - 1] : &p.out, BUF_PARAM);
        f->pparams[nargs + k] = (PParam){ NULL, outs[k], NULL };
    }
    /* T.func_attr({"op": "R.add", ...the call's attributes}) */
    Expr *d = expr_new(b.a, E_DICT, b.loc);
    int na = call->u.call.nkw + 1;
    d->u.dict.n = na;
    d->u.dict.keys = arena_array(b.a, (size_t)na, sizeof(Expr *));
    d->u.dict.vals = arena_array(b.a, (size_t)na, sizeof(Expr *));
    d->u.dict.keys[0] = str(&b, "op");
    d->u.dict.vals[0] = str(&b, o->info.name);
    for (int i = 0; i < call->u.call.nkw; i++) {
        d->u.dict.keys[i + 1] = str(&b, call->u.call.kw[i]->str);
        d->u.dict.vals[i + 1] = call_kwv(call)[i];
    }
    f->attrs = d;
    o->legal(&b, o, call, in, nargs, outs, &p);
    arena_scratch_end(&b.scratch);
    if (b.n == 1) {
        f->body = b.stmts[0];
    } else {
        Stmt *s = stmt_new(b.a, S_SEQ, b.loc);
        s->u.seq.items = b.stmts;
        s->u.seq.n = b.n;
        f->body = s;
    }
    return f;
}

