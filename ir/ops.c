/* The operator registry and its legalizations: each operator checks its
 * call, infers its result's type, and builds a PrimFunc (loops, one block
 * per step, T.init for reductions) for concrete shapes. */
#include <stdarg.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "indexmap.h"
#include "ops.h"

/* ---- the table ---- */

static const char *const no_attrs[] = { NULL };
static const char *const reduce_attrs[] = { "axis", "keepdims", NULL };
static const char *const permute_attrs[] = { "axes", NULL };
static const char *const matmul_attrs[] = { "out_dtype", NULL };
static const char *const pad_attrs[] = { "pad_width", "pad_value", "pad_mode", NULL };
static const char *const pool_attrs[] = { "pool_size", "strides", "padding", "dilation", "layout", "out_layout",
                                          "ceil_mode", "count_include_pad", NULL };
static const char *const softmax_attrs[] = { "axis", NULL };
static const char *const slice_attrs[] = { "axes", "begin", "end", "strides", "assume_inbound", NULL };
static const char *const concat_attrs[] = { "axis", NULL };
static const char *const lt_attrs[] = { "index_map", "pad_value", "axis_separators", "input_axis_separators", NULL };
static const char *const split_attrs[] = { "indices_or_sections", "axis", NULL };
static const char *const bn_attrs[] = { "axis", "epsilon", "center", "scale", "momentum", "training", NULL };
static const char *const crop_attrs[] = { "start_indices", "slice_sizes", "cropped_value", NULL };
static const char *const conv_attrs[] = { "strides", "padding", "dilation", "groups", "data_layout", "kernel_layout",
                                          "out_layout", "out_dtype", "channels", "kernel_size", NULL };

typedef enum {
    K_BINARY, K_UNARY, K_REDUCE, K_PERMUTE, K_RESHAPE, K_MATMUL, K_CONV2D, K_PAD, K_POOL, K_SOFTMAX, K_SLICE, K_CONCAT, K_LAYOUT, K_SPLIT, K_BATCHNORM, K_CROP
} Kind;

typedef struct Op {
    OpInfo info;
    Kind kind;
    int code;              /* BinOp, or which unary or reduction */
} Op;

enum { U_RELU, U_EXP, U_SIGMOID, U_TANH, U_SQRT, U_NEGATIVE };
enum { R_SUM, R_MEAN, R_MAX, R_MIN };

static const Op ops[] = {
    { { "R.add", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_ADD },
    { { "R.subtract", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_SUB },
    { { "R.multiply", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_MUL },
    { { "R.divide", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_DIV },
    { { "R.maximum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_GT },
    { { "R.minimum", LAYOUT_AGNOSTIC, 2, 2, no_attrs, 0, 0 }, K_BINARY, B_LT },
    { { "R.nn.relu", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_RELU },
    { { "R.exp", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_EXP },
    { { "R.sigmoid", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_SIGMOID },
    { { "R.tanh", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_TANH },
    { { "R.sqrt", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_SQRT },
    { { "R.negative", LAYOUT_AGNOSTIC, 1, 1, no_attrs, 0, 0 }, K_UNARY, U_NEGATIVE },
    { { "R.sum", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0 }, K_REDUCE, R_SUM },
    { { "R.mean", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0 }, K_REDUCE, R_MEAN },
    { { "R.max", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0 }, K_REDUCE, R_MAX },
    { { "R.min", LAYOUT_LIGHT, 1, 1, reduce_attrs, 0, 0 }, K_REDUCE, R_MIN },
    { { "R.permute_dims", LAYOUT_LIGHT, 1, 1, permute_attrs, 0, 0 }, K_PERMUTE, 0 },
    { { "R.reshape", LAYOUT_HEAVY, 2, 1, no_attrs, 0, 0 }, K_RESHAPE, 0 },
    { { "R.matmul", LAYOUT_HEAVY, 2, 2, matmul_attrs, 0, 0 }, K_MATMUL, 0 },
    { { "R.nn.conv2d", LAYOUT_HEAVY, 2, 2, conv_attrs, 0, 0 }, K_CONV2D, 0 },
    { { "R.nn.pad", LAYOUT_LIGHT, 1, 1, pad_attrs, 0, 0 }, K_PAD, 0 },
    { { "R.nn.max_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0 }, K_POOL, R_MAX },
    { { "R.nn.avg_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0 }, K_POOL, R_MEAN },
    { { "R.nn.softmax", LAYOUT_LIGHT, 1, 1, softmax_attrs, 0, 0 }, K_SOFTMAX, 0 },
    { { "R.strided_slice", LAYOUT_LIGHT, 1, 1, slice_attrs, 0, 0 }, K_SLICE, 0 },
    { { "R.concat", LAYOUT_LIGHT, 1, 0, concat_attrs, 1, 0 }, K_CONCAT, 0 },
    { { "R.layout_transform", LAYOUT_HEAVY, 1, 1, lt_attrs, 0, 0 }, K_LAYOUT, 0 },
    { { "R.split", LAYOUT_LIGHT, 1, 1, split_attrs, 0, 1 }, K_SPLIT, 0 },
    { { "R.nn.batch_norm", LAYOUT_LIGHT, 5, 5, bn_attrs, 0, 1 }, K_BATCHNORM, 0 },
    { { "R.pad", LAYOUT_LIGHT, 1, 1, pad_attrs, 0, 0 }, K_PAD, 0 },
    { { "R.crop", LAYOUT_LIGHT, 1, 1, crop_attrs, 0, 0 }, K_CROP, 0 },
};

enum { NOPS = sizeof ops / sizeof *ops };

const OpInfo *op_registry(int *n)
{
    static OpInfo infos[NOPS];
    for (int i = 0; i < NOPS; i++)
        infos[i] = ops[i].info;
    *n = NOPS;
    return infos;
}

static const Op *find_op(const char *name)
{
    for (int i = 0; i < NOPS; i++)
        if (strcmp(ops[i].info.name, name) == 0)
            return &ops[i];
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

const OpInfo *op_find(const char *name)
{
    const Op *o = find_op(name);
    return o ? &o->info : NULL;
}

/* ---- reading attributes ---- */

static int fail(OpError *err, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int fail(OpError *err, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->loc = loc;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static const Expr *attr(const Expr *call, const char *name)
{
    for (int i = 0; i < call->u.call.nkw; i++)
        if (strcmp(call->u.call.kw[i]->str, name) == 0)
            return call_kwv(call)[i];
    return NULL;
}

static int int_of(const Expr *e, int64_t *v)
{
    if (e->kind == E_INT) {
        *v = e->u.i.v;
        return 0;
    }
    if (e->kind == E_UNARY && e->u.un.op == U_NEG && e->u.un.a->kind == E_INT) {
        *v = -e->u.un.a->u.i.v;
        return 0;
    }
    return -1;
}

/* An int or a list/tuple of ints (at most max); returns the count or -1. */
static int ints_of(const Expr *e, int64_t *v, int max)
{
    if (!e)
        return 0;
    if (int_of(e, v) == 0)
        return 1;
    if (e->kind != E_LIST && e->kind != E_TUPLE)
        return -1;
    if (e->u.list.n > max)
        return -1;
    for (int i = 0; i < e->u.list.n; i++)
        if (int_of(e->u.list.items[i], &v[i]))
            return -1;
    return e->u.list.n;
}

static const char *str_of(const Expr *e, const char *dflt)
{
    return e && e->kind == E_STR ? e->u.str.s : dflt;
}

/* The axis an operator acts on when the call does not say: R.nn.softmax
 * the last dimension, R.nn.batch_norm the channels (1), R.concat and
 * R.split the first. One place, read by shape inference and by every pass
 * that renumbers or inspects the attribute. */
static int axis_default(const Op *o, int64_t *v)
{
    switch (o->kind) {
    case K_SOFTMAX: *v = -1; return 0;
    case K_BATCHNORM: *v = 1; return 0;
    case K_CONCAT: case K_SPLIT: *v = 0; return 0;
    default: return -1;
    }
}

/* The axis attribute in [0, rank), or the default. */
static int read_axis(const Expr *call, int rank, int *axis, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    int64_t v;
    if (!o || axis_default(o, &v))
        return fail(err, call->loc, "%s has no axis", call->u.call.op->str);
    const Expr *e = attr(call, "axis");
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
            ok |= strcmp(*a, k) == 0;
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
        OpTableEntry *g = realloc(t->items, (size_t)t->cap * sizeof *g);
        if (!g)
            abort();
        t->items = g;
    }
    if (2 * ((size_t)t->n + 1) > t->capslots) {
        size_t cap = t->capslots ? 2 * t->capslots : 64;
        int *slots = calloc(cap, sizeof *slots);
        if (!slots)
            abort();
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

/* Edit distance of a and b, letters compared without case, up to cap (the
 * answer is min(distance, cap)). */
static int distance(const char *a, const char *b, int cap)
{
    enum { MAXN = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b), row[MAXN + 1];
    if (la > MAXN || lb > MAXN)
        return cap;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int d = diag + !same;
            d = up + 1 < d ? up + 1 : d;
            d = row[j - 1] + 1 < d ? row[j - 1] + 1 : d;
            row[j] = d;
            diag = up;
            best = d < best ? d : best;
        }
        if (best >= cap)
            return cap;
    }
    return row[lb] < cap ? row[lb] : cap;
}

/* the calls lopt gives a meaning outside the registry, and the Relax
 * value forms it keeps as they are */
static const char *const special[] = { "R.call_tir", "R.hint_on_device", "R.to_vdevice", "R.device",
                                       "R.shape", "R.prim_value", "R.str", "R.dtype", "R.match_cast" };
enum { NSPECIAL = sizeof special / sizeof *special };

const char *op_nearest(const char *name)
{
    /* edits allowed grow with the last part of the name: gelu is not a
     * misspelt relu, but sigmod is sigmoid and conv2D is conv2d */
    const char *last = strrchr(name, '.');
    int len = (int)strlen(last ? last + 1 : name), cap = (len < 5 ? 0 : len < 8 ? 1 : 2) + 1, best = cap;
    const char *near = NULL;
    for (int i = 0; i < NOPS + NSPECIAL; i++) {
        const char *k = i < NOPS ? ops[i].info.name : special[i - NOPS];
        int d = distance(name, k, best);
        if (d < best) {
            best = d;
            near = k;
        }
    }
    return near;
}

int op_is_special(const char *name)
{
    for (int i = 0; i < NSPECIAL; i++)
        if (strcmp(name, special[i]) == 0)
            return 1;
    return 0;
}

/* ---- type inference, one function per kind; it also fills the plan that
 * legalization follows ---- */

/* A layout such as NCHW4c over four primal axes (N C H W, or O I H W): for
 * each buffer axis its primal axis and whether it is the inner split. */
typedef struct Lay {
    int n;
    int prim[OP_MAX_RANK];
    int inner[OP_MAX_RANK];
    int64_t split[4];          /* the factor a primal axis is split by, or 0 */
} Lay;

static int lay_parse(const char *s, const char *prims, Lay *l)
{
    memset(l, 0, sizeof *l);
    int seen[4] = { 0 };
    int64_t f = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            f = f * 10 + (*s - '0');
            if (f > (1 << 20))
                return -1;
            continue;
        }
        const char *at = strchr(prims, *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
        int lower = *s >= 'a' && *s <= 'z';
        if (!at || !*s || l->n == OP_MAX_RANK || (lower ? f < 1 || l->split[at - prims] : f != 0 || seen[at - prims]))
            return -1;
        int k = (int)(at - prims);
        l->prim[l->n] = k;
        l->inner[l->n++] = lower;
        if (lower)
            l->split[k] = f;
        else
            seen[k] = 1;
        f = 0;
    }
    if (f || !seen[0] || !seen[1] || !seen[2] || !seen[3])
        return -1;
    return 0;
}

/* The logical extents of the four primal axes of a tensor in layout l. */
static void lay_logical(const Lay *l, const int64_t *shape, int64_t *ext)
{
    for (int j = 0; j < l->n; j++)
        if (!l->inner[j])
            ext[l->prim[j]] = shape[j] * (l->split[l->prim[j]] ? l->split[l->prim[j]] : 1);
}

/* The buffer shape for logical extents; -1 when a split does not divide. */
static int lay_shape(const Lay *l, const int64_t *ext, int64_t *shape)
{
    for (int j = 0; j < l->n; j++) {
        int64_t f = l->split[l->prim[j]], e = ext[l->prim[j]];
        if (f && e % f)
            return -1;
        shape[j] = !f ? e : l->inner[j] ? f : e / f;
    }
    return 0;
}

static int lay_logical_checked(const Lay *l, const TensorType *t, int64_t *ext)
{
    if (t->ndim != l->n)
        return -1;
    for (int j = 0; j < l->n; j++)
        if (l->inner[j] && t->shape[j] != l->split[l->prim[j]])
            return -1;
    lay_logical(l, t->shape, ext);
    return 0;
}

typedef struct Plan {
    TensorType out;
    int axes[OP_MAX_RANK];     /* permute: out dim d reads input dim axes[d]; reduce: reduced dims flagged */
    int keepdims;
    int64_t stride[2], pad[4], dil[2], groups;
    int dpos[4], kpos[4];      /* pooling: positions of N C H W in the layout */
    Lay dl, kl, ol;            /* conv2d: data, kernel and output layouts */
    int64_t dext[4], kext[4];  /* conv2d: logical N C H W and O I H W */
    int64_t before[OP_MAX_RANK], step[OP_MAX_RANK];   /* pad: leading pads; slice: begin and stride */
    int64_t pool[2];
    double pad_value;
    int axis;
    int center, scale;         /* batch_norm: add beta, multiply by gamma */
    int nout;                  /* outputs: out, then more[0], more[1], ... */
    TensorType more[OP_MAX_ARGS];
} Plan;

static const char *type_text(const TensorType *t, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < t->ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, t->ndim == 1 ? ",)" : ")");
    return buf;
}

static int infer_binary(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    char b1[96], b2[96];
    if (x->dtype != y->dtype)
        return fail(err, call->loc, "%s of %s and %s tensors", call->u.call.op->str, dtype_name(x->dtype),
                    dtype_name(y->dtype));
    int r = x->ndim > y->ndim ? x->ndim : y->ndim;
    p->out.ndim = r;
    p->out.dtype = x->dtype;
    for (int d = 0; d < r; d++) {
        int dx = d - (r - x->ndim), dy = d - (r - y->ndim);
        int64_t ex = dx >= 0 ? x->shape[dx] : 1, ey = dy >= 0 ? y->shape[dy] : 1;
        if (ex != ey && ex != 1 && ey != 1)
            return fail(err, call->loc, "%s cannot broadcast shapes %s and %s", call->u.call.op->str,
                        type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2));
        p->out.shape[d] = ex == 1 ? ey : ex;
    }
    return 0;
}

static int infer_reduce(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK];
    const Expr *axis = attr(call, "axis"), *keep = attr(call, "keepdims");
    int n = axis && axis->kind == E_NONE ? 0 : ints_of(axis, ax, OP_MAX_RANK);
    if (n < 0)
        return fail(err, axis->loc, "axis is an integer or a list of integers");
    memset(p->axes, 0, sizeof p->axes);
    for (int i = 0; i < n; i++) {
        int64_t v = ax[i] < 0 ? ax[i] + a->ndim : ax[i];
        if (v < 0 || v >= a->ndim)
            return fail(err, axis->loc, "axis %lld is out of range for a tensor of rank %d", (long long)ax[i], a->ndim);
        p->axes[v] = 1;
    }
    if (n == 0)
        for (int d = 0; d < a->ndim; d++)
            p->axes[d] = 1;
    p->keepdims = keep && keep->kind == E_BOOL && keep->u.b;
    p->out.dtype = a->dtype;
    p->out.ndim = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!p->axes[d])
            p->out.shape[p->out.ndim++] = a->shape[d];
        else if (p->keepdims)
            p->out.shape[p->out.ndim++] = 1;
    if (p->out.ndim == 0)
        return fail(err, call->loc, "%s to a scalar is not supported yet; use keepdims=True", call->u.call.op->str);
    return 0;
}

static int infer_permute(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK];
    const Expr *axes = attr(call, "axes");
    int n = axes && axes->kind == E_NONE ? 0 : ints_of(axes, ax, OP_MAX_RANK);
    if (n < 0 || (n && n != a->ndim))
        return fail(err, axes->loc, "axes lists each of the %d dimensions once", a->ndim);
    int seen[OP_MAX_RANK] = { 0 };
    for (int d = 0; d < a->ndim; d++) {
        int64_t v = n ? (ax[d] < 0 ? ax[d] + a->ndim : ax[d]) : a->ndim - 1 - d;
        if (v < 0 || v >= a->ndim || seen[v]++)
            return fail(err, axes->loc, "axes lists each of the %d dimensions once", a->ndim);
        p->axes[d] = (int)v;
        p->out.shape[d] = a->shape[v];
    }
    p->out.ndim = a->ndim;
    p->out.dtype = a->dtype;
    return 0;
}

static int infer_reshape(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t s[OP_MAX_RANK];
    const Expr *shape = call->u.call.nargs > 1 ? call->u.call.args[1] : NULL;
    int n = shape ? ints_of(shape, s, OP_MAX_RANK) : -1;
    if (n <= 0)
        return fail(err, call->loc, "R.reshape takes a tensor and a shape of constants, as in (2, 3)");
    int64_t in = 1, out = 1;
    int infer = -1;
    for (int d = 0; d < a->ndim; d++)
        in *= a->shape[d];
    for (int d = 0; d < n; d++) {
        if (s[d] == -1 && infer < 0) {
            infer = d;
            continue;
        }
        if (s[d] < 0)
            return fail(err, shape->loc, "a reshape dimension is positive, or -1 once");
        out *= s[d];
    }
    if (infer >= 0)
        s[infer] = out ? in / out : 0;
    if (infer >= 0)
        out *= s[infer];
    if (out != in)
        return fail(err, shape->loc, "cannot reshape %lld elements into %lld", (long long)in, (long long)out);
    p->out.ndim = n;
    p->out.dtype = a->dtype;
    memcpy(p->out.shape, s, (size_t)n * sizeof *s);
    return 0;
}

/* out_dtype: the result's dtype, to which matmul and conv2d cast their operands
 * before multiplying and accumulating (as TVM does); absent, "" or "void" keeps
 * the operands' dtype. */
static int out_dtype(const Expr *call, DType in, DType *out, OpError *err)
{
    const Expr *e = attr(call, "out_dtype");
    *out = in;
    if (!e || e->kind == E_NONE)
        return 0;
    if (e->kind != E_STR)
        return fail(err, e->loc, "out_dtype is a dtype string, such as \"float32\"");
    if (!*e->u.str.s || strcmp(e->u.str.s, "void") == 0)
        return 0;
    DType t;
    if (dtype_parse(e->u.str.s, &t) || t == DT_VOID)
        return fail(err, e->loc, "out_dtype \"%s\" is not a dtype", e->u.str.s);
    if (dtype_is_float(in) && !dtype_is_float(t))
        return fail(err, e->loc, "out_dtype %s: float operands give a float result", e->u.str.s);
    *out = t;
    return 0;
}

static int infer_matmul(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *y = &a[1];
    char b1[96], b2[96];
    if (x->dtype != y->dtype || x->ndim < 2 || x->ndim != y->ndim || x->shape[x->ndim - 1] != y->shape[y->ndim - 2])
        return fail(err, call->loc, "R.matmul of %s and %s: ranks at least 2 and equal, inner dimensions equal",
                    type_text(x, b1, sizeof b1), type_text(y, b2, sizeof b2));
    for (int d = 0; d + 2 < x->ndim; d++)
        if (x->shape[d] != y->shape[d])
            return fail(err, call->loc, "R.matmul batch dimensions differ: %s and %s", type_text(x, b1, sizeof b1),
                        type_text(y, b2, sizeof b2));
    p->out = *x;
    p->out.shape[x->ndim - 1] = y->shape[y->ndim - 1];
    return out_dtype(call, x->dtype, &p->out.dtype, err);
}

/* The sliding window of conv2d and the pools: strides and dilation (1 or 2
 * integers) and padding (1, 2 or 4: top, left, bottom, right). */
static int window_attrs(const Expr *call, Plan *p, OpError *err)
{
    int64_t v[4];
    int n = ints_of(attr(call, "strides"), v, 2);
    p->stride[0] = n >= 1 ? v[0] : 1;
    p->stride[1] = n >= 2 ? v[1] : p->stride[0];
    n = ints_of(attr(call, "dilation"), v, 2);
    p->dil[0] = n >= 1 ? v[0] : 1;
    p->dil[1] = n >= 2 ? v[1] : p->dil[0];
    n = ints_of(attr(call, "padding"), v, 4);
    if (n < 0)
        return fail(err, call->loc, "padding is 1, 2 or 4 integers");
    for (int i = 0; i < 4; i++)
        p->pad[i] = n == 0 ? 0 : n == 1 ? v[0] : n == 2 ? v[i % 2] : v[i];
    return 0;
}

/* The output extent along spatial axis k (0: height, 1: width) of a window of size kext. */
static int64_t window_out(const Plan *p, int k, int64_t in, int64_t kext)
{
    return (in + p->pad[k] + p->pad[k + 2] - p->dil[k] * (kext - 1) - 1) / p->stride[k] + 1;
}

static int infer_conv2d(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *w = &a[1];
    const char *dl = str_of(attr(call, "data_layout"), "NCHW"), *kl = str_of(attr(call, "kernel_layout"), "OIHW"),
               *ol = str_of(attr(call, "out_layout"), dl);
    if (lay_parse(dl, "NCHW", &p->dl) || lay_parse(kl, "OIHW", &p->kl) || lay_parse(ol, "NCHW", &p->ol))
        return fail(err, call->loc, "R.nn.conv2d: layouts %s / %s / %s are not data, kernel and output layouts of "
                    "the axes NCHW and OIHW", dl, kl, ol);
    if (x->dtype != w->dtype)
        return fail(err, call->loc, "R.nn.conv2d takes data and kernel of one dtype");
    if (lay_logical_checked(&p->dl, x, p->dext) || lay_logical_checked(&p->kl, w, p->kext))
        return fail(err, call->loc, "R.nn.conv2d: the data or kernel shape does not fit its layout (%s, %s)", dl, kl);
    if (window_attrs(call, p, err))
        return -1;
    p->groups = 1;
    if (attr(call, "groups") && int_of(attr(call, "groups"), &p->groups))
        return fail(err, attr(call, "groups")->loc, "groups is an integer");
    int64_t N = p->dext[0], C = p->dext[1], H = p->dext[2], W = p->dext[3];
    int64_t O = p->kext[0], I = p->kext[1], KH = p->kext[2], KW = p->kext[3];
    if (p->groups < 1 || C % p->groups || O % p->groups || I * p->groups != C)
        return fail(err, call->loc, "R.nn.conv2d: %lld input channels, %lld kernel input channels and groups=%lld "
                    "do not agree", (long long)C, (long long)I, (long long)p->groups);
    for (int i = 0; i < 2; i++)
        if (p->stride[i] < 1 || p->dil[i] < 1)
            return fail(err, call->loc, "strides and dilation are positive");
    int64_t OH = window_out(p, 0, H, KH), OW = window_out(p, 1, W, KW);
    if (OH < 1 || OW < 1)
        return fail(err, call->loc, "R.nn.conv2d: the kernel is larger than the padded input");
    if (out_dtype(call, x->dtype, &p->out.dtype, err))
        return -1;
    p->out.ndim = p->ol.n;
    int64_t o[4] = { N, O, OH, OW };
    if (lay_shape(&p->ol, o, p->out.shape))
        return fail(err, call->loc, "R.nn.conv2d: %lld output channels do not split by out_layout %s", (long long)O, ol);
    return 0;
}

static int num_of(const Expr *e, double *v)
{
    int64_t i;
    if (e->kind == E_FLOAT) {
        *v = e->u.f.v;
        return 0;
    }
    if (e->kind == E_UNARY && e->u.un.op == U_NEG && e->u.un.a->kind == E_FLOAT) {
        *v = -e->u.un.a->u.f.v;
        return 0;
    }
    if (int_of(e, &i) == 0) {
        *v = (double)i;
        return 0;
    }
    return -1;
}

static int infer_pad(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t w[2 * OP_MAX_RANK];
    const Expr *pw = attr(call, "pad_width"), *pv = attr(call, "pad_value"), *mode = attr(call, "pad_mode");
    int n = pw ? ints_of(pw, w, 2 * OP_MAX_RANK) : -1;
    if (n != 2 * a->ndim)
        return fail(err, pw ? pw->loc : call->loc, "pad_width lists a before and an after pad for each of the %d "
                    "dimensions", a->ndim);
    if (mode && strcmp(str_of(mode, ""), "constant") != 0)
        return fail(err, mode->loc, "only pad_mode=\"constant\" is supported");
    p->pad_value = 0;
    if (pv && num_of(pv, &p->pad_value))
        return fail(err, pv->loc, "pad_value is a number");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        if (w[2 * d] < 0 || w[2 * d + 1] < 0)
            return fail(err, pw->loc, "pads are not negative");
        p->before[d] = w[2 * d];
        p->out.shape[d] = a->shape[d] + w[2 * d] + w[2 * d + 1];
    }
    return 0;
}

static int infer_pool(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const char *lay = str_of(attr(call, "layout"), "NCHW"), *ol = str_of(attr(call, "out_layout"), lay);
    Lay l;
    const char *op = call->u.call.op->str;
    if (lay_parse(lay, "NCHW", &l) || l.split[2] || l.split[3])
        return fail(err, call->loc, "%s: %s is not a layout of the axes N, C, H, W with H and W whole (such as "
                    "NCHW, NHWC or NCHW4c)", op, lay);
    if (l.n != a->ndim)
        return fail(err, call->loc, "%s: layout %s has %d dimensions, the input %d", op, lay, l.n, a->ndim);
    if (strcmp(lay, ol) != 0)
        return fail(err, call->loc, "%s: an out_layout (%s) other than the layout (%s) is not supported", op, ol,
                    lay);
    for (int j = 0; j < l.n; j++)
        if (!l.inner[j] && (l.prim[j] == 2 || l.prim[j] == 3))
            p->dpos[l.prim[j]] = j;
    const Expr *ceil = attr(call, "ceil_mode"), *cip = attr(call, "count_include_pad");
    if (ceil && ceil->kind == E_BOOL && ceil->u.b)
        return fail(err, ceil->loc, "ceil_mode=True is not supported yet");
    p->keepdims = cip && cip->kind == E_BOOL && cip->u.b;   /* avg: count the padding */
    int64_t v[4];
    int n = ints_of(attr(call, "pool_size"), v, 2);
    if (n < 1)
        return fail(err, call->loc, "%s needs pool_size", call->u.call.op->str);
    p->pool[0] = v[0];
    p->pool[1] = n == 2 ? v[1] : v[0];
    if (window_attrs(call, p, err))
        return -1;
    for (int i = 0; i < 2; i++)
        if (p->pool[i] < 1 || p->stride[i] < 1 || p->dil[i] < 1)
            return fail(err, call->loc, "pool_size, strides and dilation are positive");
    int64_t H = a->shape[p->dpos[2]], W = a->shape[p->dpos[3]];
    int64_t OH = window_out(p, 0, H, p->pool[0]), OW = window_out(p, 1, W, p->pool[1]);
    if (OH < 1 || OW < 1)
        return fail(err, call->loc, "the pool window is larger than the padded input");
    p->out = *a;
    p->out.shape[p->dpos[2]] = OH;
    p->out.shape[p->dpos[3]] = OW;
    return 0;
}

static int infer_softmax(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    if (read_axis(call, a->ndim, &p->axis, err))
        return -1;
    if (!dtype_is_float(a->dtype))
        return fail(err, call->loc, "R.nn.softmax takes a float tensor");
    p->out = *a;
    return 0;
}

static int infer_slice(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK], be[OP_MAX_RANK], en[OP_MAX_RANK], st[OP_MAX_RANK];
    const Expr *axes = attr(call, "axes"), *begin = attr(call, "begin"), *end = attr(call, "end"),
               *strides = attr(call, "strides");
    int n = ints_of(axes, ax, OP_MAX_RANK), nb = ints_of(begin, be, OP_MAX_RANK), ne = ints_of(end, en, OP_MAX_RANK),
        ns = strides && strides->kind != E_NONE ? ints_of(strides, st, OP_MAX_RANK) : 0;
    if (n <= 0 || nb != n || ne != n || (ns && ns != n))
        return fail(err, call->loc, "R.strided_slice takes axes, begin and end (and strides) of one length");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        p->before[d] = 0;
        p->step[d] = 1;
    }
    for (int i = 0; i < n; i++) {
        int64_t d = ax[i] < 0 ? ax[i] + a->ndim : ax[i], e = a->shape[d >= 0 && d < a->ndim ? d : 0];
        if (d < 0 || d >= a->ndim)
            return fail(err, axes->loc, "axis %lld is out of range", (long long)ax[i]);
        int64_t s = ns ? st[i] : 1, b = be[i] < 0 ? be[i] + e : be[i], f = en[i] < 0 ? en[i] + e : en[i];
        if (s <= 0)
            return fail(err, strides->loc, "only positive strides are supported");
        b = b < 0 ? 0 : b > e ? e : b;
        f = f < 0 ? 0 : f > e ? e : f;
        p->before[d] = b;
        p->step[d] = s;
        p->out.shape[d] = f > b ? (f - b + s - 1) / s : 0;
        if (p->out.shape[d] == 0)
            return fail(err, call->loc, "the slice of axis %lld is empty", (long long)d);
    }
    return 0;
}

/* Whether the output has more elements than the input (then it has padding). */
static int volume_differs(const TensorType *a, const TensorType *b)
{
    int64_t x = 1, y = 1;
    for (int i = 0; i < a->ndim; i++)
        x *= a->shape[i];
    for (int i = 0; i < b->ndim; i++)
        y *= b->shape[i];
    return x != y;
}

static int infer_concat(const Expr *call, const TensorType *a, int n, Plan *p, OpError *err)
{
    if (read_axis(call, a[0].ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    p->out = a[0];
    p->out.shape[ax] = 0;
    for (int i = 0; i < n; i++) {
        if (a[i].dtype != a[0].dtype || a[i].ndim != a[0].ndim)
            return fail(err, call->loc, "R.concat joins tensors of one dtype and rank");
        for (int d = 0; d < a[0].ndim; d++)
            if (d != ax && a[i].shape[d] != a[0].shape[d])
                return fail(err, call->loc, "R.concat: tensor %d differs in dimension %d", i + 1, d);
        p->before[i] = p->out.shape[ax];
        p->out.shape[ax] += a[i].shape[ax];
    }
    return 0;
}

static int infer_layout(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const Expr *map = attr(call, "index_map"), *pv = attr(call, "pad_value");
    if (!map || map->kind != E_INDEXMAP)
        return fail(err, call->loc, "R.layout_transform needs index_map=T.index_map(...)");
    if (map->u.map.nparams != a->ndim)
        return fail(err, map->loc, "the index map takes %d ind%s; the tensor has rank %d", map->u.map.nparams,
                    map->u.map.nparams == 1 ? "ex" : "ices", a->ndim);
    p->keepdims = pv && pv->kind != E_NONE;
    if (p->keepdims && num_of(pv, &p->pad_value))
        return fail(err, pv->loc, "pad_value is a number");
    Arena ar = { 0 };
    ImError ierr;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    IndexMap *im = im_from_expr(&ar, map, a->shape, &ierr);
    int r = 0;
    if (!im) {
        r = fail(err, ierr.loc.line ? ierr.loc : map->loc, "%s", ierr.msg);
    } else if (im->nout > OP_MAX_RANK) {
        r = fail(err, map->loc, "the index map has more than %d outputs", OP_MAX_RANK);
    } else {
        ImKind k = im_classify(im, wa, wb);
        if (k == IM_NOT_INJECTIVE || k == IM_UNKNOWN)
            r = fail(err, map->loc, "the index map of R.layout_transform is %s on the tensor's shape",
                     k == IM_UNKNOWN ? "not known to be injective" : "not injective");
        p->out.dtype = a->dtype;
        p->out.ndim = im->nout;
        memcpy(p->out.shape, im->obox, (size_t)im->nout * sizeof *im->obox);
        p->axis = volume_differs(a, &p->out);
    }
    arena_free(&ar);
    return r;
}

static int infer_split(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t v[OP_MAX_ARGS];
    const Expr *ios = attr(call, "indices_or_sections");
    if (read_axis(call, a->ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    int64_t e = a->shape[ax], starts[OP_MAX_ARGS + 1];
    int n;
    if (ios && int_of(ios, &v[0]) == 0) {
        if (v[0] < 1 || v[0] > OP_MAX_ARGS || e % v[0])
            return fail(err, ios->loc, "%lld sections do not divide the extent %lld (at most %d sections)",
                        (long long)v[0], (long long)e, OP_MAX_ARGS);
        n = (int)v[0];
        for (int i = 0; i <= n; i++)
            starts[i] = e / n * i;
    } else {
        int k = ios ? ints_of(ios, v, OP_MAX_ARGS - 1) : -1;
        if (k < 0)
            return fail(err, ios ? ios->loc : call->loc, "indices_or_sections is a count or a list of split points");
        n = k + 1;
        starts[0] = 0;
        for (int i = 0; i < k; i++) {
            starts[i + 1] = v[i] < 0 ? 0 : v[i] > e ? e : v[i];
            if (starts[i + 1] < starts[i])
                return fail(err, ios->loc, "split points must increase");
        }
        starts[n] = e;
    }
    p->nout = n;
    for (int i = 0; i < n; i++) {
        TensorType *t = i ? &p->more[i - 1] : &p->out;
        *t = *a;
        t->shape[ax] = starts[i + 1] - starts[i];
        p->before[i] = starts[i];
        if (t->shape[ax] == 0)
            return fail(err, call->loc, "R.split: section %d is empty", i);
    }
    return 0;
}

static int infer_batchnorm(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const Expr *eps = attr(call, "epsilon"), *tr = attr(call, "training"), *ce = attr(call, "center"),
               *sc = attr(call, "scale");
    if (read_axis(call, a[0].ndim, &p->axis, err))
        return -1;
    int ax = p->axis;
    if (tr && tr->kind == E_BOOL && tr->u.b)
        return fail(err, tr->loc, "R.nn.batch_norm runs in inference mode only");
    p->pad_value = 1e-5;
    if (eps && num_of(eps, &p->pad_value))
        return fail(err, eps->loc, "epsilon is a number");
    if ((ce && ce->kind != E_BOOL) || (sc && sc->kind != E_BOOL))
        return fail(err, (ce && ce->kind != E_BOOL ? ce : sc)->loc, "center and scale are True or False");
    p->center = !ce || ce->u.b;
    p->scale = !sc || sc->u.b;
    for (int i = 1; i < 5; i++)
        if (a[i].ndim != 1 || a[i].shape[0] != a[0].shape[ax] || a[i].dtype != a[0].dtype)
            return fail(err, call->loc, "R.nn.batch_norm: argument %d is not a vector of the %lld channels", i + 1,
                        (long long)a[0].shape[ax]);
    if (!dtype_is_float(a[0].dtype))
        return fail(err, call->loc, "R.nn.batch_norm takes float tensors");
    p->out = a[0];
    p->nout = 3;
    p->more[0] = a[3];
    p->more[1] = a[4];
    return 0;
}

static int infer_crop(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    int64_t st[OP_MAX_RANK], sz[OP_MAX_RANK];
    const Expr *s = attr(call, "start_indices"), *z = attr(call, "slice_sizes");
    if (!s || !z || ints_of(s, st, OP_MAX_RANK) != a->ndim || ints_of(z, sz, OP_MAX_RANK) != a->ndim)
        return fail(err, call->loc, "R.crop takes start_indices and slice_sizes, one per dimension");
    p->out = *a;
    for (int d = 0; d < a->ndim; d++) {
        if (st[d] < 0 || sz[d] < 1 || st[d] + sz[d] > a->shape[d])
            return fail(err, call->loc, "R.crop: dimension %d: [%lld, %lld) is not inside [0, %lld)", d,
                        (long long)st[d], (long long)(st[d] + sz[d]), (long long)a->shape[d]);
        p->before[d] = st[d];
        p->step[d] = 1;
        p->out.shape[d] = sz[d];
    }
    return 0;
}

static int plan(const Op *o, const Expr *call, const TensorType *args, int nargs, Plan *p, OpError *err)
{
    memset(p, 0, sizeof *p);
    p->nout = 1;
    if ((o->info.tuple_arg ? nargs < 1 || nargs > OP_MAX_ARGS : nargs != o->info.ntensors) ||
        call->u.call.nargs != o->info.nargs)
        return fail(err, call->loc, "%s takes %d argument%s", o->info.name, o->info.nargs, o->info.nargs == 1 ? "" : "s");
    if (check_attrs(o, call, err))
        return -1;
    for (int i = 0; i < nargs; i++)
        if (args[i].ndim > OP_MAX_RANK)
            return fail(err, call->loc, "%s: rank above %d", o->info.name, OP_MAX_RANK);
    switch (o->kind) {
    case K_BINARY: return infer_binary(call, args, p, err);
    case K_UNARY:
        p->out = args[0];
        if (!dtype_is_float(args[0].dtype) && o->code != U_RELU && o->code != U_NEGATIVE)
            return fail(err, call->loc, "%s takes a float tensor", o->info.name);
        return 0;
    case K_REDUCE: return infer_reduce(call, args, p, err);
    case K_PERMUTE: return infer_permute(call, args, p, err);
    case K_RESHAPE: return infer_reshape(call, args, p, err);
    case K_MATMUL: return infer_matmul(call, args, p, err);
    case K_CONV2D: return infer_conv2d(call, args, p, err);
    case K_PAD: return infer_pad(call, args, p, err);
    case K_POOL: return infer_pool(call, args, p, err);
    case K_SOFTMAX: return infer_softmax(call, args, p, err);
    case K_SLICE: return infer_slice(call, args, p, err);
    case K_CONCAT: return infer_concat(call, args, nargs, p, err);
    case K_LAYOUT: return infer_layout(call, args, p, err);
    case K_SPLIT: return infer_split(call, args, p, err);
    case K_BATCHNORM: return infer_batchnorm(call, args, p, err);
    case K_CROP: return infer_crop(call, args, p, err);
    }
    return -1;
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

/* ---- building TIR ---- */

typedef struct B {
    Module *m;
    Arena *a;
    Loc loc;
    Stmt **stmts;
    int n, cap;
} B;

static Expr *num(B *b, int64_t v)
{
    return expr_int(b->a, v, DT_VOID, b->loc);
}

static Expr *ref(B *b, Var *v)
{
    Expr *e = expr_new(b->a, E_VAR, b->loc);
    e->u.var = v;
    return e;
}

static Expr *bin(B *b, BinOp op, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_BIN, b->loc);
    e->u.bin.op = op;
    e->u.bin.a = x;
    e->u.bin.b = y;
    return e;
}

static Expr *typed(B *b, double v, DType t)
{
    Expr *e;
    if (dtype_is_float(t)) {
        e = expr_float(b->a, v, t, b->loc);
    } else {
        e = expr_int(b->a, (int64_t)v, t, b->loc);
    }
    return e;
}

static Expr *intrin(B *b, const char *op, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_CALL, b->loc);
    e->u.call.op = intern_cstr(&b->m->names, op);
    e->u.call.nargs = y ? 2 : 1;
    e->u.call.args = arena_array(b->a, 2, sizeof(Expr *));
    e->u.call.args[0] = x;
    e->u.call.args[1] = y;
    return e;
}

static Expr *str(B *b, const char *s)
{
    Expr *e = expr_new(b->a, E_STR, b->loc);
    e->u.str.s = arena_strndup(b->a, s, strlen(s));
    e->u.str.len = (int)strlen(s);
    return e;
}

static Buffer *buffer(B *b, const char *name, const TensorType *t, BufKind kind)
{
    Buffer *x = arena_zalloc(b->a, sizeof *x);
    x->name = intern_cstr(&b->m->names, name);
    x->loc = b->loc;
    x->kind = kind;
    x->dtype = t->dtype;
    x->ndim = t->ndim;
    x->shape = arena_array(b->a, (size_t)t->ndim + 1, sizeof *x->shape);
    for (int i = 0; i < t->ndim; i++)
        x->shape[i] = num(b, t->shape[i]);
    return x;
}

static Expr *load(B *b, Buffer *buf, Expr **idx)
{
    Expr *e = expr_new(b->a, E_LOAD, b->loc);
    e->u.load.buf = buf;
    e->u.load.n = buf->ndim;
    e->u.load.idx = arena_array(b->a, (size_t)buf->ndim + 1, sizeof *idx);
    memcpy(e->u.load.idx, idx, (size_t)buf->ndim * sizeof *idx);
    return e;
}

static Stmt *store(B *b, Buffer *buf, Expr **idx, Expr *value)
{
    Stmt *s = stmt_new(b->a, S_STORE, b->loc);
    s->u.store.buf = buf;
    s->u.store.n = buf->ndim;
    s->u.store.idx = arena_array(b->a, (size_t)buf->ndim + 1, sizeof *idx);
    memcpy(s->u.store.idx, idx, (size_t)buf->ndim * sizeof *idx);
    s->u.store.value = value;
    return s;
}

/* A loop nest with one block inside, its iterators remapped from the loops. */
typedef struct Nest {
    int n;
    Var *loop[2 * OP_MAX_RANK], *iv[2 * OP_MAX_RANK];
    Expr *x[2 * OP_MAX_RANK];   /* the block iterators as expressions */
    int64_t ext[2 * OP_MAX_RANK];
    char kind[2 * OP_MAX_RANK];
} Nest;

static void nest_begin(B *b, Nest *t, int n, const int64_t *ext, const char *kinds)
{
    t->n = n;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", i);
        t->loop[i] = var_new(b->a, intern_cstr(&b->m->names, name), VAR_TIR, b->loc);
        snprintf(name, sizeof name, "v%d", i);
        t->iv[i] = var_new(b->a, intern_cstr(&b->m->names, name), VAR_TIR, b->loc);
        t->x[i] = ref(b, t->iv[i]);
        t->ext[i] = ext[i];
        t->kind[i] = kinds[i];
    }
}

static void emit(B *b, Stmt *s)
{
    vec_push(b->a, &b->stmts, &b->n, &b->cap, s);
}

static void nest_end(B *b, Nest *t, const char *name, Stmt *init, Stmt *body)
{
    Block *blk = arena_zalloc(b->a, sizeof *blk);
    blk->name = intern_cstr(&b->m->names, name);
    blk->niters = t->n;
    blk->iters = arena_array(b->a, (size_t)t->n + 1, sizeof *blk->iters);
    for (int i = 0; i < t->n; i++) {
        BlockIter *it = &blk->iters[i];
        it->var = t->iv[i];
        it->kind = t->kind[i];
        it->dom = num(b, t->ext[i]);
        it->binding = ref(b, t->loop[i]);
        it->loc = b->loc;
    }
    blk->init = init;
    blk->body = body;
    Stmt *s = stmt_new(b->a, S_BLOCK, b->loc);
    s->u.block = blk;
    for (int i = t->n - 1; i >= 0; i--) {
        Stmt *f = stmt_new(b->a, S_FOR, b->loc);
        f->u.loop.var = t->loop[i];
        f->u.loop.fk = FOR_SERIAL;
        f->u.loop.min = num(b, 0);
        f->u.loop.extent = num(b, t->ext[i]);
        f->u.loop.body = s;
        t->loop[i]->loop = f;
        s = f;
    }
    emit(b, s);
}

/* ---- legalizations ---- */

static void legal_binary(B *b, const Op *o, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *v[2];
    for (int k = 0; k < 2; k++) {
        Expr *idx[OP_MAX_RANK];
        int off = p->out.ndim - in[k]->ndim;
        for (int d = 0; d < in[k]->ndim; d++) {
            int64_t e;
            expr_const_int(in[k]->shape[d], &e);
            idx[d] = e == 1 && p->out.shape[d + off] != 1 ? num(b, 0) : t.x[d + off];
        }
        v[k] = load(b, in[k], idx);
    }
    Expr *val = o->code == B_GT ? intrin(b, "T.max", v[0], v[1]) : o->code == B_LT ? intrin(b, "T.min", v[0], v[1])
                                                                                  : bin(b, (BinOp)o->code, v[0], v[1]);
    nest_end(b, &t, o->info.name + 2, NULL, store(b, out, t.x, val));
}

static void legal_unary(B *b, const Op *o, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *x = load(b, in[0], t.x), *val;
    switch (o->code) {
    case U_RELU: val = intrin(b, "T.max", x, typed(b, 0, p->out.dtype)); break;
    case U_EXP: val = intrin(b, "T.exp", x, NULL); break;
    case U_SIGMOID: val = intrin(b, "T.sigmoid", x, NULL); break;
    case U_TANH: val = intrin(b, "T.tanh", x, NULL); break;
    case U_SQRT: val = intrin(b, "T.sqrt", x, NULL); break;
    default:
        val = expr_new(b->a, E_UNARY, b->loc);
        val->u.un.op = U_NEG;
        val->u.un.a = x;
        break;
    }
    const char *name = strrchr(o->info.name, '.') + 1;
    nest_end(b, &t, name, NULL, store(b, out, t.x, val));
}

static void legal_reduce(B *b, const Op *o, Buffer **in, Buffer *out, const Plan *p)
{
    /* loops: the kept dimensions (spatial), then the reduced ones */
    Nest t;
    int64_t ext[2 * OP_MAX_RANK];
    char kinds[2 * OP_MAX_RANK];
    int n = 0, nd = in[0]->ndim, at[OP_MAX_RANK];
    for (int d = 0; d < nd; d++)
        if (!p->axes[d]) {
            expr_const_int(in[0]->shape[d], &ext[n]);
            kinds[n] = 'S';
            at[d] = n++;
        }
    for (int d = 0; d < nd; d++)
        if (p->axes[d]) {
            expr_const_int(in[0]->shape[d], &ext[n]);
            kinds[n] = 'R';
            at[d] = n++;
        }
    nest_begin(b, &t, n, ext, kinds);
    Expr *iidx[OP_MAX_RANK], *oidx[OP_MAX_RANK];
    int k = 0;
    for (int d = 0; d < nd; d++) {
        iidx[d] = t.x[at[d]];
        if (!p->axes[d])
            oidx[k++] = t.x[at[d]];
        else if (p->keepdims)
            oidx[k++] = num(b, 0);
    }
    Expr *acc = load(b, out, oidx), *x = load(b, in[0], iidx), *val, *init;
    DType dt = p->out.dtype;
    if (o->code == R_MAX || o->code == R_MIN) {
        init = intrin(b, o->code == R_MAX ? "T.min_value" : "T.max_value", str(b, dtype_name(dt)), NULL);
        val = intrin(b, o->code == R_MAX ? "T.max" : "T.min", acc, x);
    } else {
        init = typed(b, 0, dt);
        val = bin(b, B_ADD, acc, x);
    }
    const char *name = strrchr(o->info.name, '.') + 1;
    nest_end(b, &t, name, store(b, out, oidx, init), store(b, out, oidx, val));
    if (o->code == R_MEAN) {
        int64_t count = 1;
        for (int d = 0; d < nd; d++)
            if (p->axes[d]) {
                int64_t e;
                expr_const_int(in[0]->shape[d], &e);
                count *= e;
            }
        Nest u;
        char sk[OP_MAX_RANK + 1];
        memset(sk, 'S', sizeof sk);
        nest_begin(b, &u, p->out.ndim, p->out.shape, sk);
        nest_end(b, &u, "mean_divide", NULL, store(b, out, u.x, bin(b, B_DIV, load(b, out, u.x), typed(b, (double)count, dt))));
    }
}

static void legal_permute(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *idx[OP_MAX_RANK];
    for (int d = 0; d < p->out.ndim; d++)
        idx[p->axes[d]] = t.x[d];
    nest_end(b, &t, "permute_dims", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

static void legal_reshape(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    /* flat = the output index in row-major order; the input index from it */
    Expr *flat = NULL;
    for (int d = 0; d < p->out.ndim; d++)
        flat = flat ? bin(b, B_ADD, bin(b, B_MUL, flat, num(b, p->out.shape[d])), t.x[d]) : t.x[d];
    Expr *idx[OP_MAX_RANK];
    int64_t stride = 1;
    for (int d = in[0]->ndim - 1; d >= 0; d--) {
        int64_t e;
        expr_const_int(in[0]->shape[d], &e);
        Expr *v = stride > 1 ? bin(b, B_FLOORDIV, flat, num(b, stride)) : flat;
        idx[d] = d > 0 ? bin(b, B_FLOORMOD, v, num(b, e)) : v;
        stride *= e;
    }
    nest_end(b, &t, "reshape", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

/* x (of dtype from) as dtype to: a T.Cast when they differ. */
static Expr *to_dtype(B *b, Expr *x, DType from, DType to)
{
    if (from == to)
        return x;
    Expr *c = expr_new(b->a, E_CAST, b->loc);
    c->u.cast.dtype = to;
    c->u.cast.a = x;
    return c;
}

static void legal_matmul(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    int r = p->out.ndim;
    int64_t ext[OP_MAX_RANK + 1];
    char kinds[OP_MAX_RANK + 1];
    memcpy(ext, p->out.shape, (size_t)r * sizeof *ext);
    memset(kinds, 'S', (size_t)r);
    expr_const_int(in[0]->shape[r - 1], &ext[r]);
    kinds[r] = 'R';
    Nest t;
    nest_begin(b, &t, r + 1, ext, kinds);
    Expr *ai[OP_MAX_RANK], *bi[OP_MAX_RANK];
    for (int d = 0; d + 2 < r; d++)
        ai[d] = bi[d] = t.x[d];
    ai[r - 2] = t.x[r - 2];
    ai[r - 1] = t.x[r];
    bi[r - 2] = t.x[r];
    bi[r - 1] = t.x[r - 1];
    Expr *val = bin(b, B_ADD, load(b, out, t.x), bin(b, B_MUL, to_dtype(b, load(b, in[0], ai), in[0]->dtype, p->out.dtype),
                                                     to_dtype(b, load(b, in[1], bi), in[1]->dtype, p->out.dtype)));
    nest_end(b, &t, "matmul", store(b, out, t.x, typed(b, 0, p->out.dtype)), store(b, out, t.x, val));
}

/* The indices of a buffer in layout l from the four logical indices. */
static void lay_index(B *b, const Lay *l, Expr *const *logical, Expr **idx)
{
    for (int j = 0; j < l->n; j++) {
        int64_t f = l->split[l->prim[j]];
        Expr *v = logical[l->prim[j]];
        idx[j] = !f ? v : bin(b, l->inner[j] ? B_FLOORMOD : B_FLOORDIV, v, num(b, f));
    }
}

static void legal_conv2d(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    /* loops n, o, oh, ow (spatial) then ic, kh, kw (reduce), over logical axes */
    int64_t O = p->kext[0], IC = p->kext[1], H = p->dext[2], W = p->dext[3];
    int64_t OH = window_out(p, 0, H, p->kext[2]), OW = window_out(p, 1, W, p->kext[3]);
    int64_t ext[7] = { p->dext[0], O, OH, OW, IC, p->kext[2], p->kext[3] };
    Nest t;
    nest_begin(b, &t, 7, ext, "SSSSRRR");
    Expr *n = t.x[0], *o = t.x[1], *oh = t.x[2], *ow = t.x[3], *ic = t.x[4], *kh = t.x[5], *kw = t.x[6];
    /* the input channel: group of o, then ic within it */
    Expr *c = p->groups == 1 ? ic : bin(b, B_ADD, bin(b, B_MUL, bin(b, B_FLOORDIV, o, num(b, O / p->groups)), num(b, IC)), ic);
    Expr *h = bin(b, B_ADD, p->stride[0] == 1 ? oh : bin(b, B_MUL, oh, num(b, p->stride[0])),
                  p->dil[0] == 1 ? kh : bin(b, B_MUL, kh, num(b, p->dil[0])));
    Expr *w = bin(b, B_ADD, p->stride[1] == 1 ? ow : bin(b, B_MUL, ow, num(b, p->stride[1])),
                  p->dil[1] == 1 ? kw : bin(b, B_MUL, kw, num(b, p->dil[1])));
    Expr *xl[4] = { n, c, p->pad[0] ? bin(b, B_SUB, h, num(b, p->pad[0])) : h,
                    p->pad[1] ? bin(b, B_SUB, w, num(b, p->pad[1])) : w };
    Expr *wl[4] = { o, ic, kh, kw }, *yl[4] = { n, o, oh, ow };
    Expr *xi[OP_MAX_RANK], *wi[OP_MAX_RANK], *yi[OP_MAX_RANK];
    lay_index(b, &p->dl, xl, xi);
    lay_index(b, &p->kl, wl, wi);
    lay_index(b, &p->ol, yl, yi);
    Expr *x = load(b, in[0], xi);
    if (p->pad[0] || p->pad[1] || p->pad[2] || p->pad[3]) {
        /* reads outside the input are the zero padding */
        Expr *cond = bin(b, B_AND,
                         bin(b, B_AND, bin(b, B_LE, num(b, p->pad[0]), h), bin(b, B_LT, h, num(b, H + p->pad[0]))),
                         bin(b, B_AND, bin(b, B_LE, num(b, p->pad[1]), w), bin(b, B_LT, w, num(b, W + p->pad[1]))));
        Expr *sel = expr_new(b->a, E_CALL, b->loc);
        sel->u.call.op = intern_cstr(&b->m->names, "T.if_then_else");
        sel->u.call.nargs = 3;
        sel->u.call.args = arena_array(b->a, 3, sizeof(Expr *));
        sel->u.call.args[0] = cond;
        sel->u.call.args[1] = x;
        sel->u.call.args[2] = typed(b, 0, in[0]->dtype);
        x = sel;
    }
    Expr *val = bin(b, B_ADD, load(b, out, yi), bin(b, B_MUL, to_dtype(b, x, in[0]->dtype, p->out.dtype),
                                                     to_dtype(b, load(b, in[1], wi), in[1]->dtype, p->out.dtype)));
    nest_end(b, &t, "conv2d", store(b, out, yi, typed(b, 0, p->out.dtype)), store(b, out, yi, val));
}

static Expr *select3(B *b, Expr *cond, Expr *x, Expr *y)
{
    Expr *e = expr_new(b->a, E_CALL, b->loc);
    e->u.call.op = intern_cstr(&b->m->names, "T.if_then_else");
    e->u.call.nargs = 3;
    e->u.call.args = arena_array(b->a, 3, sizeof(Expr *));
    e->u.call.args[0] = cond;
    e->u.call.args[1] = x;
    e->u.call.args[2] = y;
    return e;
}

/* lo <= e < hi */
static Expr *within(B *b, Expr *e, int64_t lo, int64_t hi)
{
    return bin(b, B_AND, bin(b, B_LE, num(b, lo), e), bin(b, B_LT, e, num(b, hi)));
}

static void legal_pad(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *idx[OP_MAX_RANK], *cond = NULL;
    for (int d = 0; d < p->out.ndim; d++) {
        int64_t e;
        expr_const_int(in[0]->shape[d], &e);
        idx[d] = p->before[d] ? bin(b, B_SUB, t.x[d], num(b, p->before[d])) : t.x[d];
        if (p->out.shape[d] != e) {
            Expr *c = within(b, t.x[d], p->before[d], p->before[d] + e);
            cond = cond ? bin(b, B_AND, cond, c) : c;
        }
    }
    Expr *x = load(b, in[0], idx);
    Expr *val = cond ? select3(b, cond, x, typed(b, p->pad_value, p->out.dtype)) : x;
    nest_end(b, &t, "pad", NULL, store(b, out, t.x, val));
}

static void legal_slice(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *idx[OP_MAX_RANK];
    for (int d = 0; d < p->out.ndim; d++) {
        Expr *v = p->step[d] != 1 ? bin(b, B_MUL, t.x[d], num(b, p->step[d])) : t.x[d];
        idx[d] = p->before[d] ? bin(b, B_ADD, v, num(b, p->before[d])) : v;
    }
    nest_end(b, &t, "strided_slice", NULL, store(b, out, t.x, load(b, in[0], idx)));
}

static void legal_pool(B *b, const Op *o, Buffer **in, Buffer *out, const Plan *p)
{
    /* loops over the output in its layout (spatial), then kh, kw (reduce); H and W
     * sit at dpos[2] and dpos[3], every other axis (N, C, a tile of C) is carried */
    int r = p->out.ndim, hp = p->dpos[2], wp = p->dpos[3];
    int64_t ext[2 * OP_MAX_RANK];
    char kinds[2 * OP_MAX_RANK + 1];
    for (int d = 0; d < r; d++) {
        ext[d] = p->out.shape[d];
        kinds[d] = 'S';
    }
    ext[r] = p->pool[0];
    ext[r + 1] = p->pool[1];
    kinds[r] = kinds[r + 1] = 'R';
    kinds[r + 2] = 0;
    int64_t H, W;
    expr_const_int(in[0]->shape[hp], &H);
    expr_const_int(in[0]->shape[wp], &W);
    Nest t;
    nest_begin(b, &t, r + 2, ext, kinds);
    Expr *h = bin(b, B_ADD, p->stride[0] == 1 ? t.x[hp] : bin(b, B_MUL, t.x[hp], num(b, p->stride[0])),
                  p->dil[0] == 1 ? t.x[r] : bin(b, B_MUL, t.x[r], num(b, p->dil[0])));
    Expr *w = bin(b, B_ADD, p->stride[1] == 1 ? t.x[wp] : bin(b, B_MUL, t.x[wp], num(b, p->stride[1])),
                  p->dil[1] == 1 ? t.x[r + 1] : bin(b, B_MUL, t.x[r + 1], num(b, p->dil[1])));
    Expr *xi[OP_MAX_RANK], *yi[OP_MAX_RANK];
    for (int d = 0; d < r; d++)
        xi[d] = yi[d] = t.x[d];
    xi[hp] = p->pad[0] ? bin(b, B_SUB, h, num(b, p->pad[0])) : h;
    xi[wp] = p->pad[1] ? bin(b, B_SUB, w, num(b, p->pad[1])) : w;
    int padded = p->pad[0] || p->pad[1] || p->pad[2] || p->pad[3];
    Expr *cond = padded ? bin(b, B_AND, within(b, h, p->pad[0], H + p->pad[0]), within(b, w, p->pad[1], W + p->pad[1]))
                        : NULL;
    DType dt = p->out.dtype;
    Expr *x = load(b, in[0], xi), *acc = load(b, out, yi), *init, *val;
    if (o->code == R_MAX) {
        Expr *lowest = intrin(b, "T.min_value", str(b, dtype_name(dt)), NULL);
        init = lowest;
        val = intrin(b, "T.max", acc, cond ? select3(b, cond, x, lowest) : x);
    } else {
        init = typed(b, 0, dt);
        val = bin(b, B_ADD, acc, cond ? select3(b, cond, x, typed(b, 0, dt)) : x);
    }
    nest_end(b, &t, o->code == R_MAX ? "max_pool2d" : "avg_pool2d", store(b, out, yi, init), store(b, out, yi, val));
    if (o->code != R_MEAN)
        return;
    /* divide by the window's size, or by the number of its points inside the input */
    Nest u;
    nest_begin(b, &u, r, ext, kinds);
    Expr *count;
    if (!padded || p->keepdims) {
        count = typed(b, (double)(p->pool[0] * p->pool[1]), dt);
    } else {
        Expr *cnt[2];
        int64_t ext_hw[2] = { H, W };
        int pos[2] = { hp, wp };
        for (int k = 0; k < 2; k++) {
            /* points of start + j * dil (j < pool) inside [pad, pad + extent) */
            Expr *start = p->stride[k] == 1 ? u.x[pos[k]] : bin(b, B_MUL, u.x[pos[k]], num(b, p->stride[k]));
            Expr *c = NULL;
            for (int64_t j = 0; j < p->pool[k]; j++) {
                Expr *at = j ? bin(b, B_ADD, start, num(b, j * p->dil[k])) : start;
                Expr *one = select3(b, within(b, at, p->pad[k], ext_hw[k] + p->pad[k]), num(b, 1), num(b, 0));
                c = c ? bin(b, B_ADD, c, one) : one;
            }
            cnt[k] = c;
        }
        /* a window wholly in the padding counts 1 (its sum is 0, and so is its average) */
        Expr *cs = expr_new(b->a, E_CAST, b->loc);
        cs->u.cast.dtype = dt;
        cs->u.cast.a = intrin(b, "T.max", bin(b, B_MUL, cnt[0], cnt[1]), num(b, 1));
        count = cs;
    }
    nest_end(b, &u, "avg_pool2d_divide", NULL, store(b, out, u.x, bin(b, B_DIV, load(b, out, u.x), count)));
}

static Buffer *scratch(B *b, const char *name, const TensorType *t)
{
    Buffer *x = buffer(b, name, t, BUF_ALLOC);
    Stmt *s = stmt_new(b->a, S_ALLOC, b->loc);
    s->u.alloc = x;
    emit(b, s);
    return x;
}

static void legal_softmax(B *b, Buffer **in, Buffer *out, const Plan *p)
{
    /* max along the axis, the sum of exp(x - max), then exp(x - max) / sum */
    int r = p->out.ndim, ax = p->axis;
    TensorType red = p->out;
    red.shape[ax] = 1;
    Buffer *mx = scratch(b, "T_max", &red), *sm = scratch(b, "T_sum", &red);
    int64_t ext[OP_MAX_RANK + 1];
    char kinds[OP_MAX_RANK + 1];
    for (int step = 0; step < 2; step++) {
        /* loops over the kept dimensions then the axis (reduce) */
        int n = 0, at[OP_MAX_RANK];
        for (int d = 0; d < r; d++)
            if (d != ax) {
                ext[n] = p->out.shape[d];
                kinds[n] = 'S';
                at[d] = n++;
            }
        ext[n] = p->out.shape[ax];
        kinds[n] = 'R';
        at[ax] = n++;
        Nest t;
        nest_begin(b, &t, n, ext, kinds);
        Expr *xi[OP_MAX_RANK], *ri[OP_MAX_RANK];
        for (int d = 0; d < r; d++) {
            xi[d] = t.x[at[d]];
            ri[d] = d == ax ? num(b, 0) : t.x[at[d]];
        }
        Expr *x = load(b, in[0], xi);
        if (step == 0)
            nest_end(b, &t, "softmax_max", store(b, mx, ri, intrin(b, "T.min_value", str(b, dtype_name(p->out.dtype)), NULL)),
                     store(b, mx, ri, intrin(b, "T.max", load(b, mx, ri), x)));
        else
            nest_end(b, &t, "softmax_sum", store(b, sm, ri, typed(b, 0, p->out.dtype)),
                     store(b, sm, ri, bin(b, B_ADD, load(b, sm, ri),
                                          intrin(b, "T.exp", bin(b, B_SUB, x, load(b, mx, ri)), NULL))));
    }
    Nest t;
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, r, p->out.shape, kinds);
    Expr *ri[OP_MAX_RANK];
    for (int d = 0; d < r; d++)
        ri[d] = d == ax ? num(b, 0) : t.x[d];
    Expr *e = intrin(b, "T.exp", bin(b, B_SUB, load(b, in[0], t.x), load(b, mx, ri)), NULL);
    nest_end(b, &t, "softmax", NULL, store(b, out, t.x, bin(b, B_DIV, e, load(b, sm, ri))));
}

static void legal_concat(B *b, Buffer **in, int nin, Buffer *out, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    /* the last input, then each earlier one where the index is below its end */
    Expr *val = NULL;
    for (int k = nin - 1; k >= 0; k--) {
        Expr *idx[OP_MAX_RANK];
        for (int d = 0; d < p->out.ndim; d++)
            idx[d] = d == p->axis && p->before[k] ? bin(b, B_SUB, t.x[d], num(b, p->before[k])) : t.x[d];
        Expr *x = load(b, in[k], idx);
        if (!val) {
            val = x;
        } else {
            int64_t e;
            expr_const_int(in[k]->shape[p->axis], &e);
            val = select3(b, bin(b, B_LT, t.x[p->axis], num(b, p->before[k] + e)), x, val);
        }
    }
    nest_end(b, &t, "concat", NULL, store(b, out, t.x, val));
}

static void legal_split(B *b, Buffer **in, Buffer **outs, const Plan *p)
{
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    for (int k = 0; k < p->nout; k++) {
        const TensorType *t = k ? &p->more[k - 1] : &p->out;
        Nest n;
        nest_begin(b, &n, t->ndim, t->shape, kinds);
        Expr *idx[OP_MAX_RANK];
        for (int d = 0; d < t->ndim; d++)
            idx[d] = d == p->axis && p->before[k] ? bin(b, B_ADD, n.x[d], num(b, p->before[k])) : n.x[d];
        char name[32];
        snprintf(name, sizeof name, "split%d", k);
        nest_end(b, &n, name, NULL, store(b, outs[k], n.x, load(b, in[0], idx)));
    }
}

static void legal_batchnorm(B *b, Buffer **in, Buffer **outs, const Plan *p)
{
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *c[1] = { t.x[p->axis] };
    DType dt = p->out.dtype;
    /* (x - mean) / sqrt(var + epsilon), times gamma when scale, plus beta when center */
    Expr *val = bin(b, B_DIV, bin(b, B_SUB, load(b, in[0], t.x), load(b, in[3], c)),
                    intrin(b, "T.sqrt", bin(b, B_ADD, load(b, in[4], c), typed(b, p->pad_value, dt)), NULL));
    if (p->scale)
        val = bin(b, B_MUL, val, load(b, in[1], c));
    if (p->center)
        val = bin(b, B_ADD, val, load(b, in[2], c));
    nest_end(b, &t, "batch_norm", NULL, store(b, outs[0], t.x, val));
    for (int k = 1; k < 3; k++) {
        Nest u;
        nest_begin(b, &u, 1, p->more[k - 1].shape, kinds);
        nest_end(b, &u, k == 1 ? "batch_norm_mean" : "batch_norm_var", NULL, store(b, outs[k], u.x, load(b, in[k + 2], u.x)));
    }
}

/* A copy of a map's output expression over the block's iterators. */
static Expr *subst(B *b, const Expr *e, const Expr *map, Expr *const *to)
{
    switch (e->kind) {
    case E_VAR:
        for (int i = 0; i < map->u.map.nparams; i++)
            if (map->u.map.params[i] == e->u.var)
                return to[i];
        return (Expr *)e;
    case E_BIN:
        return bin(b, e->u.bin.op, subst(b, e->u.bin.a, map, to), subst(b, e->u.bin.b, map, to));
    case E_UNARY: {
        Expr *x = expr_new(b->a, E_UNARY, b->loc);
        x->u.un.op = e->u.un.op;
        x->u.un.a = subst(b, e->u.un.a, map, to);
        return x;
    }
    default:
        return (Expr *)e;
    }
}

static void legal_layout(B *b, const Expr *call, Buffer **in, Buffer *out, const Plan *p)
{
    const Expr *map = attr(call, "index_map");
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    if (p->keepdims && p->axis) {
        /* the padding: every point first, then the image over it */
        Nest f;
        nest_begin(b, &f, p->out.ndim, p->out.shape, kinds);
        nest_end(b, &f, "layout_transform_pad", NULL, store(b, out, f.x, typed(b, p->pad_value, p->out.dtype)));
    }
    Nest t;
    int64_t ext[OP_MAX_RANK];
    for (int d = 0; d < in[0]->ndim; d++)
        expr_const_int(in[0]->shape[d], &ext[d]);
    nest_begin(b, &t, in[0]->ndim, ext, kinds);
    Expr *oi[OP_MAX_RANK];
    for (int k = 0; k < map->u.map.nout; k++)
        oi[k] = subst(b, map->u.map.out[k], map, t.x);
    nest_end(b, &t, "layout_transform", NULL, store(b, out, oi, load(b, in[0], t.x)));
}

Func *op_legalize(Module *m, const Expr *call, const TensorType *args, int nargs, Sym *name, OpError *err)
{
    const Op *o = find_op(call->u.call.op->str);
    Plan p;
    if (!o)
        return fail(err, call->loc, "%s is not a registered operator", call->u.call.op->str), NULL;
    if (plan(o, call, args, nargs, &p, err))
        return NULL;
    B b = { m, &m->arena, call->loc, NULL, 0, 0 };
    Func *f = arena_zalloc(b.a, sizeof *f);
    f->kind = F_PRIM;
    f->name = name;
    f->loc = call->loc;
    f->npparams = nargs + 1;
    f->pparams = arena_array(b.a, (size_t)nargs + 2, sizeof *f->pparams);
    Buffer *in[OP_MAX_ARGS], *out;
    static const char *names[] = { "A", "B", "C", "D", "E", "F", "G", "H" };
    for (int i = 0; i < nargs; i++) {
        in[i] = buffer(&b, names[i], &args[i], BUF_PARAM);
        f->pparams[i] = (PParam){ NULL, in[i] };
    }
    Buffer *outs[OP_MAX_ARGS];
    f->npparams = nargs + p.nout;
    f->pparams = arena_array(b.a, (size_t)(nargs + p.nout + 1), sizeof *f->pparams);
    for (int i = 0; i < nargs; i++)
        f->pparams[i] = (PParam){ NULL, in[i] };
    for (int k = 0; k < p.nout; k++) {
        char oname[32];
        snprintf(oname, sizeof oname, k ? "T_out%d" : "T_out", k);
        outs[k] = buffer(&b, oname, k ? &p.more[k - 1] : &p.out, BUF_PARAM);
        f->pparams[nargs + k] = (PParam){ NULL, outs[k] };
    }
    out = outs[0];
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
    switch (o->kind) {
    case K_BINARY: legal_binary(&b, o, in, out, &p); break;
    case K_UNARY: legal_unary(&b, o, in, out, &p); break;
    case K_REDUCE: legal_reduce(&b, o, in, out, &p); break;
    case K_PERMUTE: legal_permute(&b, in, out, &p); break;
    case K_RESHAPE: legal_reshape(&b, in, out, &p); break;
    case K_MATMUL: legal_matmul(&b, in, out, &p); break;
    case K_CONV2D: legal_conv2d(&b, in, out, &p); break;
    case K_PAD: legal_pad(&b, in, out, &p); break;
    case K_POOL: legal_pool(&b, o, in, out, &p); break;
    case K_SOFTMAX: legal_softmax(&b, in, out, &p); break;
    case K_SLICE: legal_slice(&b, in, out, &p); break;
    case K_CONCAT: legal_concat(&b, in, nargs, out, &p); break;
    case K_LAYOUT: legal_layout(&b, call, in, out, &p); break;
    case K_SPLIT: legal_split(&b, in, outs, &p); break;
    case K_BATCHNORM: legal_batchnorm(&b, in, outs, &p); break;
    case K_CROP: legal_slice(&b, in, out, &p); break;
    }
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
