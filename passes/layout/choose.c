/* choose-layout: chooses the layout each conv2d and pool call computes in
 * among candidates, by a table of kernel and rewrite times, jointly with
 * the rewrites between them, and converts each call as convert-layout
 * would (convert_func); plan then places the rewrites.
 *
 * The problem is plan_solve's: every 4-d value of a function is a variable
 * whose labels are layouts. A candidate call's labels are its candidates
 * (label 0: as written), each with its kernel's time as unary cost; a
 * layout-agnostic call (elementwise) may compute in any candidate data
 * layout for free, and asks its operands in it; every other use asks the
 * value as written. A value pays one rewrite per distinct layout asked of
 * it, by the table's rewrite line or its bytes read and written times
 * ns-per-byte. Costs are in picoseconds. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../ir/oom.h"
#include "../../interp/interp.h"
#include "../../interp/tensor.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../../ir/outfile.h"
#include "../graph.h"
#include "convert.h"
#include "costs.h"
#include "plan_solve.h"

enum { NOPS = 3, MAX_CANDS = 8, MAX_FREE = 8, MAX_ASKED = 32 };

static const char *const op_keys[NOPS] = { "conv2d", "max_pool2d", "avg_pool2d" };
static const char *const op_calls[NOPS] = { "R.nn.conv2d", "R.nn.max_pool2d", "R.nn.avg_pool2d" };

/* ns per byte read and written for a rewrite the table has no line for */
#define DEFAULT_NS_PER_BYTE 0.25

typedef struct Cand {
    ConvertTo to;
    char text[64];        /* NCHW4c:OIHW4o, or NCHW4c */
} Cand;

typedef struct Options {
    Cand cand[NOPS][MAX_CANDS];
    int ncand[NOPS];
    const char *costs, *costs_out;
    int measure;          /* costs=measure: time each candidate in the interpreter */
    int estimate_bytes;
    int64_t max_cells;
} Options;

static int parse_cands(const char *key, const char *val, Cand *out, int *n, char *err, size_t cap)
{
    const char *p = val;
    *n = 0;
    for (;;) {
        size_t len = strcspn(p, "|");
        char one[64];
        if (len == 0 || len >= sizeof one)
            return snprintf(err, cap, "choose-layout: %s=%s: expected candidate layouts separated by '|', such as "
                            "NCHW:OIHW|NCHW4c:OIHW4o", key, val), -1;
        if (*n == MAX_CANDS)
            return snprintf(err, cap, "choose-layout: %s=%s: at most %d candidates", key, val, MAX_CANDS), -1;
        memcpy(one, p, len);
        one[len] = 0;
        Cand *c = &out[*n];
        char why[256];
        if (convert_parse_layout(key, one, &c->to, why, sizeof why))
            return snprintf(err, cap, "choose-layout: %s", why + (strncmp(why, "convert-layout: ", 16) ? 0 : 16)), -1;
        if (strcmp(key, "conv2d") == 0)
            snprintf(c->text, sizeof c->text, "%s:%s", c->to.data, c->to.kernel);
        else
            snprintf(c->text, sizeof c->text, "%s", c->to.data);
        int dup = 0;
        for (int i = 0; i < *n; i++)
            dup |= strcmp(out[i].text, c->text) == 0;
        *n += !dup;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

static int parse_options(const PassOpt *opts, int nopts, Options *o, char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->max_cells = (int64_t)1 << 22;
    for (int i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].val;
        int op = 0;
        while (op < NOPS && strcmp(k, op_keys[op]) != 0)
            op++;
        if (op < NOPS) {
            if (parse_cands(k, v, o->cand[op], &o->ncand[op], err, cap))
                return -1;
        } else if (strcmp(k, "costs") == 0) {
            o->costs = v;
            o->measure = strcmp(v, "measure") == 0;
        } else if (strcmp(k, "costs-out") == 0) {
            o->costs_out = v;
        } else if (strcmp(k, "estimate") == 0) {
            if (strcmp(v, "bytes") != 0)
                return snprintf(err, cap, "choose-layout: estimate=%s: the only estimate is bytes", v), -1;
            o->estimate_bytes = 1;
        } else if (strcmp(k, "max-cells") == 0) {
            char *end;
            long long x = strtoll(v, &end, 10);
            if (end == v || *end || x < 1 || x > ((long long)1 << 30))
                return snprintf(err, cap, "choose-layout: max-cells=%s: expected a number of table cells from 1 "
                                "to 2^30", v), -1;
            o->max_cells = x;
        }
    }
    int any = 0;
    for (int op = 0; op < NOPS; op++)
        any |= o->ncand[op] > 0;
    if (!any)
        return snprintf(err, cap, "choose-layout needs candidate layouts, as in "
                        "choose-layout{conv2d=NCHW:OIHW|NCHW4c:OIHW4o,costs=FILE}"), -1;
    if (!o->costs)
        return snprintf(err, cap, "choose-layout needs costs=FILE (a cost table, lopt(1) COST TABLES) or costs=measure"), -1;
    return 0;
}

int pass_choose_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    Options o;
    return parse_options(opts, nopts, &o, err, cap);
}

/* ---- layouts over shapes ---- */

typedef LayoutAxes Axes;

/* The primal shape (over prims, such as NCHW) of a tensor of shape sh in
 * layout l; -1 when sh is not in l. */
static int primal_shape(const char *prims, const char *l, const TensorType *t, int64_t *out)
{
    Axes A;
    if (layout_axes_parse(l, &A) || A.n != t->ndim)
        return -1;
    for (int p = 0; p < 4; p++) {
        out[p] = 0;
        int64_t f = 1;
        for (int i = 0; i < A.n; i++) {
            if (A.ax[i] == prims[p])
                out[p] = t->shape[i];
            else if (A.ax[i] == prims[p] - 'A' + 'a')
                f = A.fac[i] > 0 ? A.fac[i] : 1;
        }
        if (out[p] <= 0)
            return -1;
        out[p] *= f;
    }
    return 0;
}

/* The bytes of a tensor of primal shape prim (over prims) in layout l, with
 * the padding a split that does not divide takes. */
static double layout_bytes(const char *prims, const char *l, const int64_t *prim, DType dt)
{
    Axes A;
    if (layout_axes_parse(l, &A))
        return 0;
    double n = dtype_size(dt);
    for (int i = 0; i < A.n; i++) {
        char up = A.ax[i] >= 'a' ? (char)(A.ax[i] - 'a' + 'A') : A.ax[i];
        const char *at = strchr(prims, up);
        int64_t e = at ? prim[at - prims] : 1;
        if (A.ax[i] >= 'a') {
            e = A.fac[i];
        } else {
            for (int j = 0; j < A.n; j++)
                if (A.ax[j] == A.ax[i] - 'A' + 'a' && A.fac[j] > 0)
                    e = (e + A.fac[j] - 1) / A.fac[j];
        }
        n *= (double)e;
    }
    return n;
}

/* ---- the function's values ---- */

typedef struct Val {
    Var *v;
    TensorType t;
    char written[32];     /* its layout as written ("" unknown) */
    const char *prims;    /* NCHW, or OIHW for a kernel */
    int64_t prim[4];
    int ok;               /* its shape is known in its layout */
    int call;             /* index in calls, or -1 */
    int agnostic;
    int constant;         /* bound to a constant: fold evaluates its rewrites */
    char keys[MAX_ASKED][32];
    int nkeys;
} Val;

typedef struct Call {
    Binding *bd;
    int op, val;
    Cand cand[MAX_CANDS + 1];   /* [0]: as written */
    int ncand;
    double ns[MAX_CANDS + 1];   /* < 0: no time */
    int source[MAX_CANDS + 1];
    char workload[256];
    int chosen;
} Call;

typedef struct Chooser {
    Module *m;
    Func *fn;
    PassCtx *ctx;
    Notes *notes;
    const Options *o;
    CostTable *t;
    PtrMap at;            /* Var -> 1 + index in vals */
    Val *vals;
    int nvals;
    Call *calls;
    int ncalls;
    char free_lay[MAX_FREE][32];   /* the data layouts an agnostic call may take */
    int nfree;
    int nsources[COST_NSOURCES];   /* the costs used, by source */
    PlanProblem pb;
    Interp *in;           /* costs=measure: where kernels and rewrites are timed */
} Chooser;

static int val_of(Chooser *S, const Expr *e)
{
    if (!e || e->kind != E_VAR)
        return -1;
    return ptrmap_get(&S->at, e->u.var, 0) - 1;
}

static void add_val(Chooser *S, Var *v)
{
    TensorType t;
    if (ptrmap_get(&S->at, v, 0) || !v->sinfo || sinfo_shape(v->sinfo, &t.dtype, &t.ndim, t.shape) ||
        t.ndim < 4 || t.ndim > 6)
        return;
    Val *g = xrealloc(S->vals, (size_t)(S->nvals + 1) * sizeof *g);
    if (!g)
        return;
    S->vals = g;
    Val *x = &S->vals[S->nvals];
    memset(x, 0, sizeof *x);
    x->v = v;
    x->t = t;
    x->call = -1;
    x->prims = "NCHW";
    ptrmap_put(&S->at, v, ++S->nvals);
}

/* Gives value i the layout l (over prims) as written, when it has none. */
static void set_written(Chooser *S, int i, const char *l, const char *prims)
{
    if (i < 0 || S->vals[i].written[0])
        return;
    Val *x = &S->vals[i];
    snprintf(x->written, sizeof x->written, "%s", l);
    x->prims = prims;
    x->ok = primal_shape(prims, l, &x->t, x->prim) == 0;
}

static const char *str_kw(const Expr *call, const char *key, const char *dflt, char *buf, size_t cap)
{
    const Expr *v = call_kwarg(call, key);
    if (!v || v->kind != E_STR)
        return dflt;
    snprintf(buf, cap, "%.*s", v->u.str.len, v->u.str.s);
    return buf;
}

/* An attribute of integers as AxBx..., n of them (a shorter list repeats
 * as TVM's does: padding (p) is p on all four sides, (a, b) is a, b, a, b). */
static void ints_kw(const Expr *call, const char *key, int n, int64_t dflt, char *out, size_t cap)
{
    int64_t v[4];
    int got = 0;
    const Expr *e = call_kwarg(call, key);
    if (e && (e->kind == E_TUPLE || e->kind == E_LIST)) {
        for (int i = 0; i < e->u.list.n && got < 4; i++)
            if (expr_const_int(e->u.list.items[i], &v[got]) == 0)
                got++;
    } else if (e && expr_const_int(e, &v[0]) == 0) {
        got = 1;
    } else if (e && e->kind == E_BOOL) {
        v[0] = e->u.b;
        got = 1;
    }
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        int64_t x = got == 0 ? dflt : got == 1 ? v[0] : got == 2 && n == 4 ? v[i % 2] : i < got ? v[i] : dflt;
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%lld", i ? "x" : "", (long long)x);
    }
}

static const char *dims(const int64_t *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lldx%lldx%lldx%lld", (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3]);
    return buf;
}

/* The workload of a call: what fixes its kernel, as lopt(1) spells it. */
static int workload_of(Chooser *S, const Call *c, char *out, size_t cap)
{
    const Expr *e = c->bd->value;
    int d = val_of(S, e->u.call.nargs ? e->u.call.args[0] : NULL);
    if (d < 0 || !S->vals[d].ok)
        return -1;
    char a[64], b[64], s[32], p[48], dl[32], g[32], pool[32];
    const char *dt = dtype_name(S->vals[d].t.dtype);
    ints_kw(e, "strides", 2, 1, s, sizeof s);
    ints_kw(e, "padding", 4, 0, p, sizeof p);
    ints_kw(e, "dilation", 2, 1, dl, sizeof dl);
    if (c->op == 0) {
        int k = val_of(S, e->u.call.nargs > 1 ? e->u.call.args[1] : NULL);
        TensorType kt;
        int64_t kp[4];
        if (k >= 0 ? !S->vals[k].ok : value_type(e->u.call.args[1], &kt) != 0)
            return -1;
        if (k >= 0)
            memcpy(kp, S->vals[k].prim, sizeof kp);
        else if (primal_shape("OIHW", c->cand[0].to.kernel, &kt, kp))
            return -1;
        ints_kw(e, "groups", 1, 1, g, sizeof g);
        char w[640];
        snprintf(w, sizeof w, "conv2d(%s,%s,%s,strides=%s,padding=%s,dilation=%s,groups=%s)",
                 dims(S->vals[d].prim, a, sizeof a), dims(kp, b, sizeof b), dt, s, p, dl, g);
        return strlen(w) < cap ? (memcpy(out, w, strlen(w) + 1), 0) : -1;
    }
    ints_kw(e, "pool_size", 2, 1, pool, sizeof pool);
    ints_kw(e, "ceil_mode", 1, 0, g, sizeof g);
    char cip[16] = "";
    if (c->op == 2)
        ints_kw(e, "count_include_pad", 1, 0, cip, sizeof cip);
    char w[640];
    snprintf(w, sizeof w, "%s(%s,%s,pool_size=%s,strides=%s,padding=%s,dilation=%s,ceil_mode=%s%s%s)", op_keys[c->op],
             dims(S->vals[d].prim, a, sizeof a), dt, pool, s, p, dl, g, c->op == 2 ? ",count_include_pad=" : "", cip);
    return strlen(w) < cap ? (memcpy(out, w, strlen(w) + 1), 0) : -1;
}

static int op_index(const Expr *e)
{
    if (e->kind != E_CALL || e->u.call.callee)
        return -1;
    for (int k = 0; k < NOPS; k++)
        if (strcmp(e->u.call.op->str, op_calls[k]) == 0)
            return k;
    return -1;
}

static int is_agnostic(const Expr *e)
{
    const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
    return op && op->category == LAYOUT_AGNOSTIC && !op->tuple_arg && !op->tuple_out;
}

/* The bytes a kernel reads and writes in candidate c, for estimate=bytes. */
static double kernel_bytes(Chooser *S, const Call *c, const Cand *cd)
{
    const Expr *e = c->bd->value;
    int d = val_of(S, e->u.call.args[0]);
    Val *y = &S->vals[c->val];
    double n = layout_bytes("NCHW", cd->to.data, S->vals[d].prim, S->vals[d].t.dtype);
    if (y->ok)
        n += layout_bytes("NCHW", cd->to.data, y->prim, y->t.dtype);
    int k = c->op == 0 ? val_of(S, e->u.call.args[1]) : -1;
    if (k >= 0 && S->vals[k].ok)
        n += layout_bytes("OIHW", cd->to.kernel, S->vals[k].prim, S->vals[k].t.dtype);
    return n;
}

static double ns_per_byte(const Chooser *S)
{
    return S->t->ns_per_byte > 0 ? S->t->ns_per_byte : DEFAULT_NS_PER_BYTE;
}

/* ---- costs=measure ---- */

enum { MEASURE_RUNS = 5 };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The type of a tensor of primal shape prim (over prims) in layout l, a
 * split that does not divide padded; -1 when l is not a layout of prims. */
static int layout_type(const char *prims, const char *l, const int64_t *prim, DType dt, TensorType *t)
{
    Axes A;
    if (layout_axes_parse(l, &A))
        return -1;
    t->dtype = dt;
    t->ndim = A.n;
    for (int i = 0; i < A.n; i++) {
        char up = A.ax[i] >= 'a' ? (char)(A.ax[i] - 'a' + 'A') : A.ax[i];
        const char *at = strchr(prims, up);
        if (!at)
            return -1;
        int64_t e = prim[at - prims];
        if (A.ax[i] >= 'a')
            e = A.fac[i];
        else
            for (int j = 0; j < A.n; j++)
                if (A.ax[j] == A.ax[i] - 'A' + 'a' && A.fac[j] > 0)
                    e = (e + A.fac[j] - 1) / A.fac[j];
        t->shape[i] = e;
    }
    return 0;
}

/* The median time of MEASURE_RUNS runs of the PrimFunc f on zeroed inputs
 * of types args and an output of type out, in ns; -1 when it does not run. */
static double time_prim(Chooser *S, Func *f, const TensorType *args, int nargs, const TensorType *out)
{
    Tensor *t[OP_MAX_ARGS + 1] = { 0 };
    double runs[MEASURE_RUNS], ns = -1;
    int n = 0, ok = 1;
    for (; n < nargs + 1; n++) {
        const TensorType *ty = n < nargs ? &args[n] : out;
        if (!(t[n] = tensor_new(ty->dtype, ty->ndim, ty->shape))) {
            ok = 0;
            break;
        }
        memset(t[n]->data, 0, (size_t)t[n]->count * (size_t)dtype_size(ty->dtype));
    }
    for (int r = 0; ok && r < MEASURE_RUNS; r++) {
        InterpError err;
        double t0 = now_ns();
        if (interp_call_prim(S->in, f, t, nargs + 1, &err))
            ok = 0;
        runs[r] = now_ns() - t0;
    }
    if (ok) {
        qsort(runs, MEASURE_RUNS, sizeof runs[0], cmp_double);
        ns = runs[MEASURE_RUNS / 2];
    }
    for (int i = 0; i < n; i++)
        tensor_free(t[i]);
    return ns;
}

static int measure_ready(Chooser *S)
{
    if (!S->in && (S->in = interp_new(S->m)) != NULL)
        interp_set_max_steps(S->in, (int64_t)1 << 50);
    return S->in != NULL;
}

/* Times the kernel of call c in candidate cd: ns, or -1. */
static double measure_kernel(Chooser *S, const Call *c, const Cand *cd)
{
    const Expr *e = c->bd->value;
    int d = val_of(S, e->u.call.args[0]);
    int k = c->op == 0 ? val_of(S, e->u.call.args[1]) : -1;
    if (!measure_ready(S) || d < 0 || (c->op == 0 && (k < 0 || !S->vals[k].ok)))
        return -1;
    TensorType a[2], outs[OP_MAX_ARGS];
    if (layout_type("NCHW", cd->to.data, S->vals[d].prim, S->vals[d].t.dtype, &a[0]))
        return -1;
    int nt = 1;
    if (c->op == 0) {
        int64_t kp[4];
        memcpy(kp, S->vals[k].prim, sizeof kp);
        TensorType padded;
        int64_t dp[4];
        /* input channels padded to the tile: the kernel's follow */
        if (layout_type("NCHW", cd->to.data, S->vals[d].prim, S->vals[d].t.dtype, &padded) == 0 &&
            strchr(cd->to.data, 'c')) {
            memcpy(dp, S->vals[d].prim, sizeof dp);
            Axes A;
            layout_axes_parse(cd->to.data, &A);
            for (int i = 0; i < A.n; i++)
                if (A.ax[i] == 'c' && A.fac[i] > 0 && kp[1] == dp[1])
                    kp[1] = (dp[1] + A.fac[i] - 1) / A.fac[i] * A.fac[i];
        }
        if (layout_type("OIHW", cd->to.kernel, kp, S->vals[k].t.dtype, &a[1]))
            return -1;
        nt = 2;
    }
    Module *m = S->m;
    Loc loc = c->bd->loc;
    Expr *vals[3] = { expr_str(&m->arena, cd->to.data, loc), expr_str(&m->arena, c->op == 0 ? cd->to.kernel : cd->to.data, loc),
                      expr_str(&m->arena, cd->to.data, loc) };
    static const char *const conv_keys[3] = { "data_layout", "kernel_layout", "out_layout" };
    static const char *const pool_keys[2] = { "layout", "out_layout" };
    Expr *nc = c->op == 0 ? call_with_attrs(m, e, conv_keys, vals, 3)
                          : call_with_attrs(m, e, pool_keys, (Expr *[]){ vals[0], vals[2] }, 2);
    int nout;
    OpError err;
    if (op_infer(nc, a, nt, outs, &nout, &err) || nout != 1)
        return -1;
    Func *f = interp_legalized(S->in, nc, a, nt, &err);
    return f ? time_prim(S, f, a, nt, &outs[0]) : -1;
}

/* Times the rewrite of value i from layout from to layout to: ns, or -1. */
static double measure_rewrite(Chooser *S, int i, const char *from, const char *to)
{
    Val *x = &S->vals[i];
    Module *m = S->m;
    TensorType a, outs[OP_MAX_ARGS];
    ImError ie;
    if (!measure_ready(S) || layout_type(x->prims, from, x->prim, x->t.dtype, &a))
        return -1;
    Expr *map = im_layout_map(&m->arena, &m->names, from, to, NULL, &ie);
    if (!map)
        return -1;
    Loc loc = { 0, 0 };
    Expr *call = layout_transform_new(m, var_ref(&m->arena, x->v, loc), map, expr_float(&m->arena, 0, DT_VOID, loc), loc);
    int nout;
    OpError err;
    if (op_infer(call, &a, 1, outs, &nout, &err) || nout != 1)
        return -1;
    Func *f = interp_legalized(S->in, call, &a, 1, &err);
    return f ? time_prim(S, f, &a, 1, &outs[0]) : -1;
}

/* The candidates of a call and their times. */
static void cost_call(Chooser *S, Call *c)
{
    const Expr *e = c->bd->value;
    char b1[32], b2[32];
    const char *dkey = c->op == 0 ? "data_layout" : "layout";
    const char *dl = str_kw(e, dkey, op_layout_default(dkey), b1, sizeof b1);
    Cand *w = &c->cand[0];
    memset(w, 0, sizeof *w);
    w->to.set = 1;
    snprintf(w->to.data, sizeof w->to.data, "%s", dl);
    if (c->op == 0) {
        snprintf(w->to.kernel, sizeof w->to.kernel, "%s",
                 str_kw(e, "kernel_layout", op_layout_default("kernel_layout"), b2, sizeof b2));
        snprintf(w->text, sizeof w->text, "%s:%s", w->to.data, w->to.kernel);
    } else {
        snprintf(w->text, sizeof w->text, "%s", dl);
    }
    c->ncand = 1;
    for (int i = 0; i < S->o->ncand[c->op]; i++)
        if (strcmp(S->o->cand[c->op][i].text, w->text) != 0)
            c->cand[c->ncand++] = S->o->cand[c->op][i];
    int have = workload_of(S, c, c->workload, sizeof c->workload) == 0;
    for (int l = 0; l < c->ncand; l++) {
        CostKernel *k = have ? costs_kernel(S->t, c->workload, c->cand[l].text) : NULL;
        double ns;
        if (!k && have && S->o->measure && (ns = measure_kernel(S, c, &c->cand[l])) >= 0 &&
            costs_add_kernel(S->t, c->workload, c->cand[l].text, ns, COST_MEASURED) == 0)
            k = costs_kernel(S->t, c->workload, c->cand[l].text);
        c->ns[l] = -1;
        if (k) {
            k->used = 1;
            c->ns[l] = k->ns;
            c->source[l] = k->source;
        } else if (have && S->o->estimate_bytes) {
            c->ns[l] = kernel_bytes(S, c, &c->cand[l]) * ns_per_byte(S);
            c->source[l] = COST_ESTIMATED;
        }
    }
}

/* Reads the function: its 4-d values, the calls to choose for, the
 * layouts as written. */
static void read_func(Chooser *S)
{
    Func *fn = S->fn;
    for (int i = 0; i < fn->nparams; i++)
        add_val(S, fn->params[i]);
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            add_val(S, bd->var);
            if (bd->value->kind == E_CONST && ptrmap_get(&S->at, bd->var, 0))
                S->vals[ptrmap_get(&S->at, bd->var, 0) - 1].constant = 1;
            int y = ptrmap_get(&S->at, bd->var, 0) - 1;
            const Expr *e = bd->value;
            int op = op_index(e);
            if (y >= 0 && op >= 0 && S->o->ncand[op] && e->u.call.nargs >= (op == 0 ? 2 : 1)) {
                char b1[32], b2[32], b3[32];
                const char *dkey = op == 0 ? "data_layout" : "layout";
                const char *dl = str_kw(e, dkey, op_layout_default(dkey), b1, sizeof b1);
                set_written(S, val_of(S, e->u.call.args[0]), dl, "NCHW");
                if (op == 0)
                    set_written(S, val_of(S, e->u.call.args[1]),
                                str_kw(e, "kernel_layout", op_layout_default("kernel_layout"), b2, sizeof b2), "OIHW");
                set_written(S, y, str_kw(e, "out_layout", dl, b3, sizeof b3), "NCHW");
                Call *g = xrealloc(S->calls, (size_t)(S->ncalls + 1) * sizeof *g);
                if (!g)
                    continue;
                S->calls = g;
                Call *c = &S->calls[S->ncalls];
                memset(c, 0, sizeof *c);
                c->bd = bd;
                c->op = op;
                c->val = y;
                S->vals[y].call = S->ncalls++;
            } else if (y >= 0 && is_agnostic(e)) {
                S->vals[y].agnostic = 1;
                for (int k = 0; k < e->u.call.nargs; k++) {
                    int x = val_of(S, e->u.call.args[k]);
                    if (x >= 0 && S->vals[x].written[0] && S->vals[x].t.ndim == S->vals[y].t.ndim) {
                        set_written(S, y, S->vals[x].written, S->vals[x].prims);
                        break;
                    }
                }
            }
        }
    for (int i = 0; i < S->nvals; i++)
        if (!S->vals[i].written[0] && S->vals[i].t.ndim == 4)
            set_written(S, i, "NCHW", "NCHW");
    for (int c = 0; c < S->ncalls; c++)
        cost_call(S, &S->calls[c]);
    /* the layouts an agnostic call may compute in: the candidates' data layouts */
    for (int c = 0; c < S->ncalls; c++)
        for (int l = 0; l < S->calls[c].ncand; l++) {
            const char *d = S->calls[c].cand[l].to.data;
            int seen = 0;
            for (int j = 0; j < S->nfree; j++)
                seen |= strcmp(S->free_lay[j], d) == 0;
            if (!seen && S->nfree < MAX_FREE)
                snprintf(S->free_lay[S->nfree++], sizeof S->free_lay[0], "%s", d);
        }
}

/* ---- the problem ---- */

static int64_t ps_of(double ns)
{
    double ps = ns * 1000.0;
    return ps >= (double)(PLAN_INF / 1024) ? PLAN_INF / 1024 : (int64_t)llround(ps);
}

/* The key of value i for layout l, added when new; -1 when full. */
static int key_of(Chooser *S, int i, const char *l)
{
    Val *x = &S->vals[i];
    for (int k = 0; k < x->nkeys; k++)
        if (strcmp(x->keys[k], l) == 0)
            return k;
    if (x->nkeys == MAX_ASKED)
        return -1;
    snprintf(x->keys[x->nkeys], sizeof x->keys[0], "%s", l);
    return x->nkeys++;
}

/* The time of rewriting value i from layout a to b, in ns (< 0: impossible). */
static double rewrite_ns(Chooser *S, int i, const char *a, const char *b, int count)
{
    Val *x = &S->vals[i];
    if (strcmp(a, b) == 0 || x->constant)
        return 0;
    if (!x->ok || a[0] == '#' || b[0] == '#')
        return -1;
    char value[160], d[64];
    snprintf(value, sizeof value, "%s[%s]", dtype_name(x->t.dtype), dims(x->prim, d, sizeof d));
    CostRewrite *r = costs_rewrite(S->t, value, a, b);
    double ns;
    if (!r && S->o->measure && (ns = measure_rewrite(S, i, a, b)) >= 0 &&
        costs_add_rewrite(S->t, value, a, b, ns, COST_MEASURED) == 0)
        r = costs_rewrite(S->t, value, a, b);
    if (r) {
        r->used = 1;
        S->nsources[r->source] += count;
        return r->ns;
    }
    double n = layout_bytes(x->prims, a, x->prim, x->t.dtype) + layout_bytes(x->prims, b, x->prim, x->t.dtype);
    if (n <= 0)
        return -1;
    S->nsources[COST_ESTIMATED] += count;
    return n * ns_per_byte(S);
}

static int add_use(Chooser *S, int i, int user, const int *keys, int n)
{
    PlanVar *pv = &S->pb.vars[i];
    for (int l = 0; l < n; l++)
        if (keys[l] < 0)
            return -1;
    PlanUse *g = xrealloc(pv->uses, (size_t)(pv->nuses + 1) * sizeof *g);
    int *k = xmalloc((size_t)n * sizeof *k);
    if (!g || !k) {
        free(k);
        if (g)
            pv->uses = g;
        return -1;
    }
    pv->uses = g;
    memcpy(k, keys, (size_t)n * sizeof *k);
    pv->uses[pv->nuses++] = (PlanUse){ user, k };
    return 0;
}

/* The layout label l of value i stands for. */
static const char *label_text(Chooser *S, int i, int l)
{
    return S->vals[i].keys[l];
}

/* Every value e reads as it is written (a use no label decides). */
static void fixed_uses(Chooser *S, const Expr *e, int depth)
{
    if (!e || depth > 4)
        return;
    int x = val_of(S, e);
    if (x >= 0) {
        int k = 0;
        add_use(S, x, -1, &k, 1);
        return;
    }
    if (e->kind == E_CALL)
        for (int a = 0; a < e->u.call.nargs; a++)
            fixed_uses(S, e->u.call.args[a], depth + 1);
    else if (e->kind == E_TUPLE || e->kind == E_LIST)
        for (int a = 0; a < e->u.list.n; a++)
            fixed_uses(S, e->u.list.items[a], depth + 1);
}

static int build(Chooser *S)
{
    S->pb.n = S->nvals;
    S->pb.vars = xcalloc((size_t)(S->nvals ? S->nvals : 1), sizeof *S->pb.vars);
    if (!S->pb.vars)
        return -1;
    /* labels */
    for (int i = 0; i < S->nvals; i++) {
        Val *x = &S->vals[i];
        PlanVar *pv = &S->pb.vars[i];
        key_of(S, i, x->written);
        pv->nlab = 1;
        if (x->call >= 0) {
            Call *c = &S->calls[x->call];
            int any = 0;
            for (int l = 0; l < c->ncand; l++)
                any |= c->ns[l] >= 0;
            if (any)
                for (int l = 1; l < c->ncand; l++)
                    key_of(S, i, c->cand[l].to.data);
            pv->nlab = any ? c->ncand : 1;
        } else if (x->agnostic && x->ok && strcmp(x->prims, "NCHW") == 0) {
            for (int j = 0; j < S->nfree; j++)
                if (S->vals[i].nkeys < MAX_FREE + 1)
                    key_of(S, i, S->free_lay[j]);
            pv->nlab = x->nkeys;
        }
        pv->unary = xcalloc((size_t)pv->nlab, sizeof *pv->unary);
        if (!pv->unary)
            return -1;
        if (x->call >= 0 && pv->nlab > 1)
            for (int l = 0; l < pv->nlab; l++)
                pv->unary[l] = S->calls[x->call].ns[l] >= 0 ? ps_of(S->calls[x->call].ns[l]) : PLAN_INF;
        /* two candidates of one data layout (NCHW with OIHW or HWIO) store alike */
        pv->store = xmalloc((size_t)pv->nlab * sizeof *pv->store);
        if (!pv->store)
            return -1;
        for (int l = 0; l < pv->nlab; l++)
            pv->store[l] = x->call >= 0 && l > 0 ? key_of(S, i, S->calls[x->call].cand[l].to.data) : l;
        /* the solver takes at least as many keys as labels (two candidates
         * of one data layout store alike): the rest are never asked */
        while (x->nkeys < pv->nlab && x->nkeys < MAX_ASKED) {
            snprintf(x->keys[x->nkeys], sizeof x->keys[0], "#%d", x->nkeys);
            x->nkeys++;
        }
    }
    /* uses */
    for (int b = 0; b < S->fn->nblocks; b++)
        for (int j = 0; j < S->fn->blocks[b]->nbinds; j++) {
            Binding *bd = S->fn->blocks[b]->binds[j];
            const Expr *e = bd->value;
            int y = ptrmap_get(&S->at, bd->var, 0) - 1;
            int nl = y >= 0 ? S->pb.vars[y].nlab : 1;
            int keys[MAX_CANDS + MAX_FREE + 2];
            if (y >= 0 && S->vals[y].call >= 0) {
                Call *c = &S->calls[S->vals[y].call];
                int d = val_of(S, e->u.call.args[0]);
                int k = c->op == 0 ? val_of(S, e->u.call.args[1]) : -1;
                for (int l = 0; d >= 0 && l < nl; l++)
                    keys[l] = key_of(S, d, c->cand[l].to.data);
                if (d >= 0 && add_use(S, d, nl > 1 ? y : -1, keys, nl))
                    return -1;
                for (int l = 0; k >= 0 && l < nl; l++)
                    keys[l] = key_of(S, k, c->cand[l].to.kernel);
                if (k >= 0 && add_use(S, k, nl > 1 ? y : -1, keys, nl))
                    return -1;
                for (int a = c->op == 0 ? 2 : 1; a < e->u.call.nargs; a++)
                    fixed_uses(S, e->u.call.args[a], 0);
            } else if (y >= 0 && nl > 1) {
                for (int a = 0; a < e->u.call.nargs; a++) {
                    int x = val_of(S, e->u.call.args[a]);
                    if (x < 0 || S->vals[x].t.ndim != S->vals[y].t.ndim || !S->vals[x].ok) {
                        fixed_uses(S, e->u.call.args[a], 0);
                        continue;
                    }
                    for (int l = 0; l < nl; l++)
                        keys[l] = key_of(S, x, label_text(S, y, l));
                    if (add_use(S, x, y, keys, nl))
                        return -1;
                }
            } else {
                fixed_uses(S, e, 0);
            }
        }
    fixed_uses(S, S->fn->result, 0);
    /* rewrites */
    for (int i = 0; i < S->nvals; i++) {
        PlanVar *pv = &S->pb.vars[i];
        Val *x = &S->vals[i];
        pv->nkey = x->nkeys;
        pv->rewrite = xcalloc((size_t)pv->nlab * (size_t)pv->nkey, sizeof *pv->rewrite);
        if (!pv->rewrite)
            return -1;
        for (int l = 0; l < pv->nlab; l++)
            for (int k = 0; k < pv->nkey; k++) {
                double ns = rewrite_ns(S, i, x->keys[pv->store[l]], x->keys[k], 0);
                pv->rewrite[l * pv->nkey + k] = ns < 0 ? PLAN_INF : ps_of(ns);
            }
    }
    return 0;
}

static void free_problem(PlanProblem *pb)
{
    for (int i = 0; i < pb->n; i++) {
        for (int u = 0; u < pb->vars[i].nuses; u++)
            free(pb->vars[i].uses[u].key);
        free(pb->vars[i].uses);
        free(pb->vars[i].unary);
        free(pb->vars[i].rewrite);
        free(pb->vars[i].store);
    }
    free(pb->vars);
}

/* Solves with each call c whose force[c] >= 0 held to that label; -1 when
 * no assignment has a finite cost. */
static int solve_forced(Chooser *S, const int *force, PlanResult *r)
{
    int64_t *saved = xmalloc((size_t)(S->ncalls ? S->ncalls : 1) * (MAX_CANDS + 1) * sizeof *saved);
    if (!saved)
        return -1;
    for (int c = 0; c < S->ncalls; c++) {
        PlanVar *pv = &S->pb.vars[S->calls[c].val];
        for (int l = 0; l < pv->nlab; l++) {
            saved[c * (MAX_CANDS + 1) + l] = pv->unary[l];
            if (force && force[c] >= 0 && l != force[c] && pv->nlab > 1)
                pv->unary[l] = PLAN_INF;
        }
    }
    int rc = plan_solve(&S->pb, S->o->max_cells, r);
    for (int c = 0; c < S->ncalls; c++) {
        PlanVar *pv = &S->pb.vars[S->calls[c].val];
        for (int l = 0; l < pv->nlab; l++)
            pv->unary[l] = saved[c * (MAX_CANDS + 1) + l];
    }
    free(saved);
    if (rc == 0 && r->cost >= PLAN_INF) {
        free(r->label);
        r->label = NULL;
        return -1;
    }
    return rc;
}

static const char *ps_text(int64_t ps, char *buf, size_t cap)
{
    return costs_time((double)ps / 1000.0, buf, cap);
}

/* ---- what it says ---- */

static void explain_call(Chooser *S, Call *c)
{
    char buf[1024], t[32];
    size_t n = 0;
    PlanVar *pv = &S->pb.vars[c->val];
    const char *y = var_said(c->bd->var);
    if (pv->nlab == 1 && c->ns[0] < 0 && c->ncand > 1) {
        note_add(S->notes, c->bd->loc, "left %s as written (%s): none of its candidates has a time for %s", y,
                 c->cand[0].text, c->workload[0] ? c->workload : "its workload (its shapes are not static)");
        return;
    }
    for (int l = 0; l < c->ncand && n < sizeof buf; l++) {
        if (c->ns[l] < 0)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s no time", l ? ", " : "", c->cand[l].text);
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %s %s", l ? ", " : "", c->cand[l].text,
                                  costs_time(c->ns[l], t, sizeof t), cost_source_names[c->source[l]]);
    }
    note_add(S->notes, c->bd->loc, "chose %s for %s, %s: %s (as written: %s)", c->cand[c->chosen].text, y,
             c->workload, buf, c->cand[0].text);
}

static void total_text(Chooser *S, const int *force, char *buf, size_t cap)
{
    PlanResult r = { 0 };
    char t[32];
    if (solve_forced(S, force, &r))
        snprintf(buf, cap, "no time");
    else
        snprintf(buf, cap, "%s", ps_text(r.cost, t, sizeof t));
    free(r.label);
}

static void explain_totals(Chooser *S, const PlanResult *best)
{
    char line[1024], t1[32], t2[32], t3[32], one[64];
    int64_t kern = 0;
    for (int c = 0; c < S->ncalls; c++)
        if (S->pb.vars[S->calls[c].val].nlab > 1)
            kern += S->pb.vars[S->calls[c].val].unary[S->calls[c].chosen];
    /* as written: every value in its layout */
    int *zero = xcalloc((size_t)S->nvals + 1, sizeof *zero);
    int64_t written = zero ? plan_cost(&S->pb, zero) : PLAN_INF;
    free(zero);
    size_t n = (size_t)snprintf(line, sizeof line, "%s: predicted %s (kernels %s, rewrites %s) against %s as written",
                                S->fn->name->str, ps_text(best->cost, t1, sizeof t1), ps_text(kern, t2, sizeof t2),
                                ps_text(best->cost - kern, t3, sizeof t3),
                                written >= PLAN_INF ? "no time" : ps_text(written, one, sizeof one));
    int *force = xmalloc((size_t)(S->ncalls ? S->ncalls : 1) * sizeof *force);
    if (!force)
        return;
    for (int j = 0; j < S->nfree && n < sizeof line; j++) {
        for (int c = 0; c < S->ncalls; c++) {
            force[c] = 0;
            for (int l = 0; l < S->calls[c].ncand; l++)
                if (strcmp(S->calls[c].cand[l].to.data, S->free_lay[j]) == 0) {
                    force[c] = l;
                    break;
                }
        }
        char tot[32];
        total_text(S, force, tot, sizeof tot);
        n += (size_t)snprintf(line + n, sizeof line - n, ", uniform %s %s", S->free_lay[j], tot);
    }
    for (int c = 0; c < S->ncalls; c++) {
        PlanVar *pv = &S->pb.vars[S->calls[c].val];
        force[c] = 0;
        for (int l = 1; l < pv->nlab; l++)
            if (pv->unary[l] < pv->unary[force[c]])
                force[c] = l;
    }
    char tot[32];
    total_text(S, force, tot, sizeof tot);
    free(force);
    if (n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, ", greedy %s; lower bound %s", tot,
                              ps_text(best->bound, t1, sizeof t1));
    if (n < sizeof line) {
        if (best->exact)
            snprintf(line + n, sizeof line - n, " (exact)");
        else
            snprintf(line + n, sizeof line - n, " (not proven optimal past max-cells=%lld: the gap to the bound is %s)",
                     (long long)S->o->max_cells, ps_text(best->cost - best->bound, t2, sizeof t2));
    }
    note_add(S->notes, S->fn->loc, "%s", line);
}

static const ConvertTo *pick(void *data, const Binding *bd)
{
    Chooser *S = data;
    for (int c = 0; c < S->ncalls; c++)
        if (S->calls[c].bd == bd)
            return S->calls[c].chosen ? &S->calls[c].cand[S->calls[c].chosen].to : NULL;
    return NULL;
}

static int choose_func(Module *m, Func *fn, PassCtx *ctx, Notes *notes, const Options *o, CostTable *t)
{
    Chooser S = { .m = m, .fn = fn, .ctx = ctx, .notes = notes, .o = o, .t = t };
    infer_types(m, fn);
    read_func(&S);
    int rc = 0;
    if (S.ncalls && build(&S) == 0) {
        PlanResult r = { 0 };
        if (solve_forced(&S, NULL, &r) == 0) {
            for (int c = 0; c < S.ncalls; c++) {
                S.calls[c].chosen = S.pb.vars[S.calls[c].val].nlab > 1 ? r.label[S.calls[c].val] : 0;
                for (int l = 0; l < S.calls[c].ncand; l++)
                    if (S.calls[c].ns[l] >= 0)
                        S.nsources[S.calls[c].source[l]]++;
            }
            for (int c = 0; c < S.ncalls; c++)
                explain_call(&S, &S.calls[c]);
            /* the rewrites the choice pays, by source */
            for (int i = 0; i < S.nvals; i++) {
                Val *x = &S.vals[i];
                PlanVar *pv = &S.pb.vars[i];
                int l = r.label[i];
                for (int u = 0; u < pv->nuses; u++) {
                    PlanUse *pu = &pv->uses[u];
                    int k = pu->user >= 0 ? pu->key[r.label[pu->user]] : pu->key[0];
                    if (k != pv->store[l])
                        rewrite_ns(&S, i, x->keys[pv->store[l]], x->keys[k], 1);
                }
            }
            explain_totals(&S, &r);
            note_add(notes, fn->loc, "%s: costs: %d given, %d measured, %d imported, %d estimated", fn->name->str,
                     S.nsources[COST_GIVEN], S.nsources[COST_MEASURED], S.nsources[COST_IMPORTED],
                     S.nsources[COST_ESTIMATED]);
            convert_func(m, fn, notes, pick, &S);
        } else {
            note_add(notes, fn->loc, "left %s as written: no choice has a finite cost", fn->name->str);
        }
        free(r.label);
    } else if (S.ncalls) {
        rc = -1;
    }
    free_problem(&S.pb);
    if (S.in)
        interp_free(S.in);
    free(S.vals);
    free(S.calls);
    ptrmap_free(&S.at);
    return rc;
}

/* costs-out=FILE: the table as the pass used it, measured times included;
 * -2 after reporting. */
static int write_table(PassCtx *ctx, const char *path, const CostTable *t)
{
    OutFile of;
    if (outfile_open(&of, path))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "choose-layout: costs-out=%s: cannot write it: %s", path, strerror(errno)), -2;
    costs_write(of.f, t);
    if (outfile_commit(&of))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "choose-layout: costs-out=%s: cannot write it: %s", path, strerror(errno)), -2;
    return 0;
}

int pass_choose_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Options o;
    char err[256];
    if (parse_options(opts, nopts, &o, err, sizeof err))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "%s", err);   /* the pipeline's check has refused it already */
    CostTable t = { 0 };
    if (!o.measure && costs_read(o.costs, ctx->src, &t))
        return -1;
    Notes notes = { 0 };
    int rc = 0;
    Loc first = { 0, 0 };
    for (int f = 0; f < m->nfuncs && rc == 0; f++)
        if (is_plannable(m->funcs[f])) {
            if (!first.line)
                first = m->funcs[f]->loc;
            rc = choose_func(m, m->funcs[f], ctx, &notes, &o, &t);
        }
    int unk = 0, unr = 0;
    for (int i = 0; i < t.nk; i++)
        unk += !t.k[i].used;
    for (int i = 0; i < t.nr; i++)
        unr += !t.r[i].used;
    if (unk || unr)
        note_add(&notes, first, "%d kernel line%s and %d rewrite line%s of %s matched no call", unk, unk == 1 ? "" : "s",
                 unr, unr == 1 ? "" : "s", o.costs);
    notes_emit(&notes, ctx, "choose-layout", 0);
    if (rc == 0 && o.costs_out)
        rc = write_table(ctx, o.costs_out, &t);
    costs_free(&t);
    if (rc == -2)
        return -1;
    if (rc)
        return diag_error(ctx->src, (Loc){ 0, 0 }, "choose-layout: out of memory");
    return 0;
}
