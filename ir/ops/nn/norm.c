/* Normalizations: R.nn.softmax, R.nn.log_softmax and R.nn.batch_norm (by the
 * batch's statistics, or the moving ones when training=False) along an axis,
 * R.nn.layer_norm over a set of axes, R.nn.group_norm over groups of channels
 * and a set of axes. */
#include <string.h>

#include "../internal.h"

static const char *const softmax_attrs[] = { "axis", NULL };
static const char *const bn_attrs[] = { "axis", "epsilon", "center", "scale", "momentum", "training", NULL };
static const char *const ln_attrs[] = { "axes", "epsilon", "center", "scale", NULL };
static const char *const gn_attrs[] = { "num_groups", "channel_axis", "axes", "epsilon", "center", "scale", NULL };

static int infer_softmax(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (read_axis(call, a->ndim, &p->axis, err))
        return -1;
    if (!dtype_is_float(a->dtype))
        return fail(err, call->loc, "%s takes a float tensor", o->info.name);
    p->out = *a;
    return 0;
}

static void legal_softmax(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
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
    if (o->code == 1) {
        /* log_softmax: x - max - log(sum) */
        Expr *v = bin(b, B_SUB, bin(b, B_SUB, load(b, in[0], t.x), load(b, mx, ri)),
                      intrin(b, "T.log", load(b, sm, ri), NULL));
        nest_end(b, &t, "log_softmax", NULL, store(b, out, t.x, v));
        return;
    }
    Expr *e = intrin(b, "T.exp", bin(b, B_SUB, load(b, in[0], t.x), load(b, mx, ri)), NULL);
    nest_end(b, &t, "softmax", NULL, store(b, out, t.x, bin(b, B_DIV, e, load(b, sm, ri))));
}

static int norm_attrs(const Expr *call, Plan *p, OpError *err);

int op_batch_norm_training(const Expr *call)
{
    const Expr *tr = attr(call, "training");
    return !tr || tr->kind != E_BOOL || tr->u.b;
}

static int infer_batchnorm(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const Expr *tr = attr(call, "training"), *mo = attr(call, "momentum");
    if (read_axis(call, a[0].ndim, &p->axis, err) || norm_attrs(call, p, err))
        return -1;
    int ax = p->axis;
    if (tr && tr->kind != E_BOOL)
        return fail(err, tr->loc, "training is True or False");
    p->training = op_batch_norm_training(call);
    p->scalar[0] = 0.1;
    if (mo && num_of(mo, &p->scalar[0]))
        return fail(err, mo->loc, "momentum is a number");
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
    for (int d = 0; d < a[0].ndim; d++)
        if (d != ax)
            p->list[p->nlist++] = d;
    return 0;
}

/* (x - mean) / sqrt(var + epsilon), times gamma when scale, plus beta when center */
static Expr *bn_value(B *b, const Plan *p, Buffer **in, Expr *x, Expr *mean, Expr *var, Expr **c)
{
    Expr *val = bin(b, B_DIV, bin(b, B_SUB, x, mean),
                    intrin(b, "T.sqrt", bin(b, B_ADD, var, typed(b, p->pad_value, p->out.dtype)), NULL));
    if (p->scale)
        val = bin(b, B_MUL, val, load(b, in[1], c));
    if (p->center)
        val = bin(b, B_ADD, val, load(b, in[2], c));
    return val;
}

/* training=False: the moving statistics normalize, and come out as they went in */
static void legal_bn_inference(B *b, Buffer **in, Buffer **outs, const Plan *p)
{
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    Expr *c[1] = { t.x[p->axis] };
    nest_end(b, &t, "batch_norm", NULL,
             store(b, outs[0], t.x, bn_value(b, p, in, load(b, in[0], t.x), load(b, in[3], c), load(b, in[4], c), c)));
    for (int k = 1; k < 3; k++) {
        Nest u;
        nest_begin(b, &u, 1, p->more[k - 1].shape, kinds);
        nest_end(b, &u, k == 1 ? "batch_norm_mean" : "batch_norm_var", NULL, store(b, outs[k], u.x, load(b, in[k + 2], u.x)));
    }
}

/* training: the batch's mean and (biased) variance over every dimension but
 * the channels' normalize, as layer_norm's do over its axes (the sums add in
 * dimension order); the moving statistics come out as moving * (1 -
 * momentum) + batch * momentum */
static void legal_bn_training(B *b, Buffer **in, Buffer **outs, const Plan *p)
{
    int r = p->out.ndim, ax = p->axis;
    DType dt = p->out.dtype;
    TensorType red = p->out;
    int64_t count = 1;
    int axes[OP_MAX_RANK] = { 0 };
    for (int i = 0; i < p->nlist; i++) {
        axes[p->list[i]] = 1;
        count *= red.shape[p->list[i]];
        red.shape[p->list[i]] = 1;
    }
    Buffer *sum = scratch(b, "T_sum", &red), *var = scratch(b, "T_sq_dev", &red);
    int at[OP_MAX_RANK];
    Expr *xi[OP_MAX_RANK], *ri[OP_MAX_RANK];
    for (int step = 0; step < 2; step++) {
        Nest t;
        nest_reduce(b, &t, p->out.shape, r, axes, p->list, p->nlist, at);
        for (int d = 0; d < r; d++) {
            xi[d] = t.x[at[d]];
            ri[d] = axes[d] ? num(b, 0) : t.x[at[d]];
        }
        Buffer *acc = step ? var : sum;
        Expr *x = load(b, in[0], xi);
        if (step) {
            Expr *dev[2];
            for (int k = 0; k < 2; k++)
                dev[k] = bin(b, B_SUB, load(b, in[0], xi), bin(b, B_DIV, load(b, sum, ri), typed(b, (double)count, dt)));
            x = bin(b, B_MUL, dev[0], dev[1]);
        }
        nest_end(b, &t, step ? "batch_norm_sq_dev" : "batch_norm_sum", store(b, acc, ri, typed(b, 0, dt)),
                 store(b, acc, ri, bin(b, B_ADD, load(b, acc, ri), x)));
    }
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    Nest t;
    nest_begin(b, &t, r, p->out.shape, kinds);
    Expr *c[1] = { t.x[ax] };
    for (int d = 0; d < r; d++)
        ri[d] = axes[d] ? num(b, 0) : t.x[d];
    Expr *mean = bin(b, B_DIV, load(b, sum, ri), typed(b, (double)count, dt)),
         *v = bin(b, B_DIV, load(b, var, ri), typed(b, (double)count, dt));
    nest_end(b, &t, "batch_norm", NULL, store(b, outs[0], t.x, bn_value(b, p, in, load(b, in[0], t.x), mean, v, c)));
    for (int k = 1; k < 3; k++) {
        Nest u;
        nest_begin(b, &u, 1, p->more[k - 1].shape, kinds);
        for (int d = 0; d < r; d++)
            ri[d] = d == ax ? u.x[0] : num(b, 0);
        Expr *batch = bin(b, B_DIV, load(b, k == 1 ? sum : var, ri), typed(b, (double)count, dt));
        Expr *val = bin(b, B_ADD, bin(b, B_MUL, load(b, in[k + 2], u.x), typed(b, 1.0 - p->scalar[0], dt)),
                        bin(b, B_MUL, batch, typed(b, p->scalar[0], dt)));
        nest_end(b, &u, k == 1 ? "batch_norm_mean" : "batch_norm_var", NULL, store(b, outs[k], u.x, val));
    }
}

static void legal_batchnorm(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    if (p->training)
        legal_bn_training(b, in, outs, p);
    else
        legal_bn_inference(b, in, outs, p);
}

/* epsilon (a number, default 1e-5), center and scale (True or False, default True) */
static int norm_attrs(const Expr *call, Plan *p, OpError *err)
{
    const Expr *eps = attr(call, "epsilon"), *ce = attr(call, "center"), *sc = attr(call, "scale");
    p->pad_value = 1e-5;
    if (eps && num_of(eps, &p->pad_value))
        return fail(err, eps->loc, "epsilon is a number");
    if ((ce && ce->kind != E_BOOL) || (sc && sc->kind != E_BOOL))
        return fail(err, (ce && ce->kind != E_BOOL ? ce : sc)->loc, "center and scale are True or False");
    p->center = !ce || ce->u.b;
    p->scale = !sc || sc->u.b;
    return 0;
}

/* layer_norm(x, gamma, beta, axes): x normalized by the mean and variance
 * over axes; gamma and beta have the shape of those axes, in their order. */
static int infer_layernorm(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK];
    char b1[96], b2[96];
    const Expr *axes = attr(call, "axes");
    int n = axes ? ints_of(axes, ax, OP_MAX_RANK) : -1;
    if (n <= 0)
        return fail(err, axes ? axes->loc : call->loc, "R.nn.layer_norm needs axes, an integer or a list of them");
    if (!dtype_is_float(a[0].dtype))
        return fail(err, call->loc, "R.nn.layer_norm takes a float tensor");
    TensorType g = { a[0].dtype, n, { 0 } };
    for (int i = 0; i < n; i++) {
        int64_t v = ax[i] < 0 ? ax[i] + a[0].ndim : ax[i];
        if (v < 0 || v >= a[0].ndim)
            return fail(err, axes->loc, "axis %lld is out of range for a tensor of rank %d", (long long)ax[i],
                        a[0].ndim);
        if (p->axes[v])
            return fail(err, axes->loc, "axes names dimension %lld twice", (long long)v);
        p->axes[v] = 1;
        p->list[i] = (int)v;
        g.shape[i] = a[0].shape[v];
    }
    p->nlist = n;
    for (int i = 1; i < 3; i++)
        if (a[i].dtype != g.dtype || a[i].ndim != n || memcmp(a[i].shape, g.shape, (size_t)n * sizeof *g.shape))
            return fail(err, call->loc, "R.nn.layer_norm: %s is %s %s; the normalized axes make it %s %s",
                        i == 1 ? "gamma" : "beta", dtype_name(a[i].dtype), type_text(&a[i], b1, sizeof b1),
                        dtype_name(g.dtype), type_text(&g, b2, sizeof b2));
    if (norm_attrs(call, p, err))
        return -1;
    p->out = a[0];
    return 0;
}

static void legal_layernorm(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    /* the sum over axes, the sum of squared deviations from the mean (sum /
     * count), then (x - mean) / sqrt(that / count + epsilon), times gamma,
     * plus beta; each buffer written by one block, as flow reads them */
    int r = p->out.ndim;
    DType dt = p->out.dtype;
    TensorType red = p->out;
    int64_t count = 1;
    for (int d = 0; d < r; d++)
        if (p->axes[d]) {
            count *= red.shape[d];
            red.shape[d] = 1;
        }
    Buffer *sum = scratch(b, "T_sum", &red), *var = scratch(b, "T_var", &red);
    int at[OP_MAX_RANK];
    Expr *xi[OP_MAX_RANK], *ri[OP_MAX_RANK], *gi[OP_MAX_RANK];
    for (int step = 0; step < 2; step++) {
        Nest t;
        /* the sums add in the order the call lists its axes, which flow keeps
         * when it renumbers them (model fuzzer seed 133) */
        nest_reduce(b, &t, p->out.shape, r, p->axes, p->list, p->nlist, at);
        for (int d = 0; d < r; d++) {
            xi[d] = t.x[at[d]];
            ri[d] = p->axes[d] ? num(b, 0) : t.x[at[d]];
        }
        Buffer *acc = step ? var : sum;
        Expr *x = load(b, in[0], xi);
        if (step) {
            Expr *dev[2];
            for (int k = 0; k < 2; k++)
                dev[k] = bin(b, B_SUB, load(b, in[0], xi), bin(b, B_DIV, load(b, sum, ri), typed(b, (double)count, dt)));
            x = bin(b, B_MUL, dev[0], dev[1]);
        }
        nest_end(b, &t, step ? "layer_norm_var" : "layer_norm_sum", store(b, acc, ri, typed(b, 0, dt)),
                 store(b, acc, ri, bin(b, B_ADD, load(b, acc, ri), x)));
    }
    Nest t;
    char sk[OP_MAX_RANK + 1];
    memset(sk, 'S', sizeof sk);
    nest_begin(b, &t, r, p->out.shape, sk);
    for (int d = 0; d < r; d++)
        ri[d] = p->axes[d] ? num(b, 0) : t.x[d];
    for (int i = 0; i < p->nlist; i++)
        gi[i] = t.x[p->list[i]];
    Expr *sd = intrin(b, "T.sqrt", bin(b, B_ADD, bin(b, B_DIV, load(b, var, ri), typed(b, (double)count, dt)),
                                      typed(b, p->pad_value, dt)), NULL);
    Expr *mean = bin(b, B_DIV, load(b, sum, ri), typed(b, (double)count, dt));
    Expr *val = bin(b, B_DIV, bin(b, B_SUB, load(b, in[0], t.x), mean), sd);
    if (p->scale)
        val = bin(b, B_MUL, val, load(b, in[1], gi));
    if (p->center)
        val = bin(b, B_ADD, val, load(b, in[2], gi));
    nest_end(b, &t, "layer_norm", NULL, store(b, outs[0], t.x, val));
}

/* group_norm(x, gamma, beta, num_groups, channel_axis, axes): the channels
 * in num_groups groups of C / num_groups, each normalized with the axes by
 * its own mean and variance; gamma and beta have the C channels. */
static int infer_groupnorm(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    int64_t ax[OP_MAX_RANK], g, c;
    const Expr *ng = attr(call, "num_groups"), *ca = attr(call, "channel_axis"), *axes = attr(call, "axes");
    int r = a[0].ndim, n = axes ? ints_of(axes, ax, OP_MAX_RANK) : -1;
    if (!ng || int_of(ng, &g) || !ca || int_of(ca, &c) || n < 0)
        return fail(err, call->loc, "R.nn.group_norm needs num_groups, channel_axis and axes");
    if (!dtype_is_float(a[0].dtype))
        return fail(err, call->loc, "R.nn.group_norm takes a float tensor");
    if ((c < 0 ? c += r : c) < 0 || c >= r)
        return fail(err, ca->loc, "channel_axis %lld is out of range for rank %d", (long long)c, r);
    p->axis = (int)c;
    for (int i = 0; i < n; i++) {
        int64_t v = ax[i] < 0 ? ax[i] + r : ax[i];
        if (v < 0 || v >= r || v == c || p->axes[v])
            return fail(err, axes->loc, "axes names dimensions in range, each once, not the channel axis");
        p->axes[v] = 1;
    }
    int64_t C = a[0].shape[c];
    if (g < 1 || C % g)
        return fail(err, ng->loc, "R.nn.group_norm: %lld groups do not divide the %lld channels", (long long)g,
                    (long long)C);
    p->groups = g;
    for (int i = 1; i < 3; i++)
        if (a[i].ndim != 1 || a[i].shape[0] != C || a[i].dtype != a[0].dtype)
            return fail(err, call->loc, "R.nn.group_norm: %s is not a vector of the %lld channels",
                        i == 1 ? "gamma" : "beta", (long long)C);
    if (norm_attrs(call, p, err))
        return -1;
    p->out = a[0];
    return 0;
}

/* The data index of the reduction nest's iterators (the channel is the group
 * times its size plus the channel in the group) and the statistics' index. */
static void group_index(B *b, const Plan *p, const Nest *t, const int *at, int gi, int ci, Expr **xi, Expr **ri)
{
    int64_t per = p->out.shape[p->axis] / p->groups;
    for (int d = 0; d < p->out.ndim; d++) {
        if (d == p->axis) {
            xi[d] = bin(b, B_ADD, per == 1 ? t->x[gi] : bin(b, B_MUL, t->x[gi], num(b, per)), t->x[ci]);
            ri[d] = t->x[gi];
        } else {
            xi[d] = t->x[at[d]];
            ri[d] = p->axes[d] ? num(b, 0) : t->x[at[d]];
        }
    }
}

static void legal_groupnorm(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    /* as layer_norm's, the statistics per (kept dimensions, group): loops over
     * those (spatial), then the channels of the group and the axes (reduce) */
    int r = p->out.ndim, ch = p->axis;
    DType dt = p->out.dtype;
    int64_t per = p->out.shape[ch] / p->groups, count = per;
    TensorType red = p->out;
    red.shape[ch] = p->groups;
    for (int d = 0; d < r; d++)
        if (p->axes[d]) {
            count *= red.shape[d];
            red.shape[d] = 1;
        }
    Buffer *sum = scratch(b, "T_sum", &red), *var = scratch(b, "T_var", &red);
    for (int step = 0; step < 2; step++) {
        int64_t ext[OP_MAX_RANK + 1];
        char kinds[OP_MAX_RANK + 2];
        int at[OP_MAX_RANK], n = 0, gi, ci;
        for (int d = 0; d < r; d++)
            if (d != ch && !p->axes[d]) {
                ext[n] = p->out.shape[d];
                kinds[n] = 'S';
                at[d] = n++;
            }
        ext[n] = p->groups;
        kinds[n] = 'S';
        gi = n++;
        ext[n] = per;
        kinds[n] = 'R';
        ci = n++;
        for (int d = 0; d < r; d++)
            if (p->axes[d]) {
                ext[n] = p->out.shape[d];
                kinds[n] = 'R';
                at[d] = n++;
            }
        Nest t;
        nest_begin(b, &t, n, ext, kinds);
        Expr *xi[OP_MAX_RANK], *ri[OP_MAX_RANK], *x;
        group_index(b, p, &t, at, gi, ci, xi, ri);
        Buffer *acc = step ? var : sum;
        if (step) {
            Expr *dev[2];
            for (int k = 0; k < 2; k++) {
                Expr *xk[OP_MAX_RANK], *rk[OP_MAX_RANK];
                group_index(b, p, &t, at, gi, ci, xk, rk);
                dev[k] = bin(b, B_SUB, load(b, in[0], xk), bin(b, B_DIV, load(b, sum, rk), typed(b, (double)count, dt)));
            }
            x = bin(b, B_MUL, dev[0], dev[1]);
        } else {
            x = load(b, in[0], xi);
        }
        nest_end(b, &t, step ? "group_norm_var" : "group_norm_sum", store(b, acc, ri, typed(b, 0, dt)),
                 store(b, acc, ri, bin(b, B_ADD, load(b, acc, ri), x)));
    }
    Nest t;
    char sk[OP_MAX_RANK + 1];
    memset(sk, 'S', sizeof sk);
    nest_begin(b, &t, r, p->out.shape, sk);
    Expr *si[2][OP_MAX_RANK], *c[1] = { t.x[ch] };
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < r; d++)
            si[k][d] = d == ch ? (per == 1 ? t.x[d] : bin(b, B_FLOORDIV, t.x[d], num(b, per))) : p->axes[d] ? num(b, 0) : t.x[d];
    Expr *sd = intrin(b, "T.sqrt", bin(b, B_ADD, bin(b, B_DIV, load(b, var, si[0]), typed(b, (double)count, dt)),
                                      typed(b, p->pad_value, dt)), NULL);
    Expr *val = bin(b, B_DIV, bin(b, B_SUB, load(b, in[0], t.x), bin(b, B_DIV, load(b, sum, si[1]), typed(b, (double)count, dt))), sd);
    if (p->scale)
        val = bin(b, B_MUL, val, load(b, in[1], c));
    if (p->center)
        val = bin(b, B_ADD, val, load(b, in[2], c));
    nest_end(b, &t, "group_norm", NULL, store(b, outs[0], t.x, val));
}

static const Op ops[] = {
    { { "R.nn.softmax", LAYOUT_LIGHT, 1, 1, softmax_attrs, 0, 0, "float", NULL }, infer_softmax, legal_softmax, 0, 1, -1, softmax_attrs },
    { { "R.nn.log_softmax", LAYOUT_LIGHT, 1, 1, softmax_attrs, 0, 0, "float", NULL }, infer_softmax, legal_softmax, 1, 1, -1,
      softmax_attrs },
    { { "R.nn.batch_norm", LAYOUT_LIGHT, 5, 5, bn_attrs, 0, 1, "float", NULL }, infer_batchnorm, legal_batchnorm, 0,
      AXIS_REQUIRED, 0, bn_attrs },
    { { "R.nn.layer_norm", LAYOUT_LIGHT, 3, 3, ln_attrs, 0, 0, "float", NULL }, infer_layernorm, legal_layernorm, 0, 0, 0, ln_attrs },
    { { "R.nn.group_norm", LAYOUT_LIGHT, 3, 3, gn_attrs, 0, 0, "float", NULL }, infer_groupnorm, legal_groupnorm, 0, 0, 0, gn_attrs },
};

const OpFamily op_family_norm = { ops, sizeof ops / sizeof *ops };
