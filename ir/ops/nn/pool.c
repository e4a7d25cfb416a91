/* Pooling over H and W (R.nn.max_pool2d, R.nn.avg_pool2d,
 * R.nn.adaptive_avg_pool2d) in layouts that keep H and W whole: NCHW, NHWC,
 * NCHW4c ... */
#include <string.h>

#include "../internal.h"

static const char *const pool_attrs[] = { "pool_size", "strides", "padding", "dilation", "layout", "out_layout",
                                          "ceil_mode", "count_include_pad", NULL };
/* TVM's order of the pools' arguments */
static const char *const pool_pos[] = { "pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad",
                                        "layout", "out_layout", NULL };
static const char *const adaptive_attrs[] = { "output_size", "layout", "out_layout", NULL };

static int infer_pool(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (hw_layout(call, a, p, err))
        return -1;
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

static void legal_pool(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
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

/* adaptive_avg_pool2d(x, output_size): output row i averages the input rows
 * [floor(i H / OH), ceil((i + 1) H / OH)), and so for columns; no
 * output_size keeps H and W. */
static int infer_adaptive(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (hw_layout(call, a, p, err))
        return -1;
    const Expr *os = attr(call, "output_size");
    int64_t v[2];
    int n = os && os->kind != E_NONE ? ints_of(os, v, 2) : 0;
    if (n < 0 || (os && os->kind != E_NONE && n == 0))
        return fail(err, os->loc, "output_size is one or two integers");
    p->pool[0] = n ? v[0] : a->shape[p->dpos[2]];
    p->pool[1] = n == 2 ? v[1] : n ? v[0] : a->shape[p->dpos[3]];
    if (p->pool[0] < 1 || p->pool[1] < 1 || p->pool[0] > (1 << 24) || p->pool[1] > (1 << 24))
        return fail(err, os->loc, "output_size is positive, at most %d", 1 << 24);
    p->out = *a;
    p->out.shape[p->dpos[2]] = p->pool[0];
    p->out.shape[p->dpos[3]] = p->pool[1];
    return 0;
}

/* The widest window of an adaptive pool from in to out points. */
static int64_t adaptive_width(int64_t in, int64_t out)
{
    int64_t k = 0;
    for (int64_t i = 0; i < out; i++) {
        int64_t w = ((i + 1) * in + out - 1) / out - i * in / out;
        k = w > k ? w : k;
    }
    return k;
}

/* floor(i * in / out) and ceil((i + 1) * in / out) over the iterator i. */
static Expr *adaptive_start(B *b, Expr *i, int64_t in, int64_t out)
{
    if (in % out == 0)
        return in == out ? i : bin(b, B_MUL, i, num(b, in / out));
    return bin(b, B_FLOORDIV, bin(b, B_MUL, i, num(b, in)), num(b, out));
}

static Expr *adaptive_end(B *b, Expr *i, int64_t in, int64_t out)
{
    if (in % out == 0)
        return bin(b, B_MUL, bin(b, B_ADD, i, num(b, 1)), num(b, in / out));
    return bin(b, B_FLOORDIV, bin(b, B_ADD, bin(b, B_MUL, i, num(b, in)), num(b, in + out - 1)), num(b, out));
}

static void legal_adaptive(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    /* loops over the output (spatial), then the widest window (reduce); where
     * windows differ in width the points past a window's end add nothing.
     * The sums go to a buffer of their own: one block writes each buffer. */
    Buffer *out = outs[0], *sum = scratch(b, "T_sum", &p->out);
    int r = p->out.ndim, pos[2] = { p->dpos[2], p->dpos[3] };
    int64_t ext[OP_MAX_RANK + 2], ie[2], k[2];
    char kinds[OP_MAX_RANK + 3];
    for (int d = 0; d < r; d++) {
        ext[d] = p->out.shape[d];
        kinds[d] = 'S';
    }
    for (int j = 0; j < 2; j++) {
        expr_const_int(in[0]->shape[pos[j]], &ie[j]);
        k[j] = adaptive_width(ie[j], p->pool[j]);
        ext[r + j] = k[j];
        kinds[r + j] = 'R';
    }
    kinds[r + 2] = 0;
    Nest t;
    nest_begin(b, &t, r + 2, ext, kinds);
    Expr *xi[OP_MAX_RANK], *cond = NULL;
    for (int d = 0; d < r; d++)
        xi[d] = t.x[d];
    for (int j = 0; j < 2; j++) {
        Expr *at = adaptive_start(b, t.x[pos[j]], ie[j], p->pool[j]);
        xi[pos[j]] = k[j] == 1 ? at : bin(b, B_ADD, at, t.x[r + j]);
        if (ie[j] % p->pool[j]) {
            Expr *c = bin(b, B_LT, xi[pos[j]], adaptive_end(b, t.x[pos[j]], ie[j], p->pool[j]));
            cond = cond ? bin(b, B_AND, cond, c) : c;
        }
    }
    DType dt = p->out.dtype;
    Expr *x = load(b, in[0], xi);
    Expr *val = bin(b, B_ADD, load(b, sum, t.x), cond ? select3(b, cond, x, typed(b, 0, dt)) : x);
    nest_end(b, &t, "adaptive_pool_sum", store(b, sum, t.x, typed(b, 0, dt)), store(b, sum, t.x, val));
    Nest u;
    nest_begin(b, &u, r, ext, kinds);
    Expr *cnt[2];
    for (int j = 0; j < 2; j++)
        cnt[j] = ie[j] % p->pool[j] ? bin(b, B_SUB, adaptive_end(b, u.x[pos[j]], ie[j], p->pool[j]),
                                          adaptive_start(b, u.x[pos[j]], ie[j], p->pool[j]))
                                    : NULL;
    Expr *count;
    if (!cnt[0] && !cnt[1]) {
        count = typed(b, (double)(k[0] * k[1]), dt);
    } else {
        Expr *c = !cnt[0] ? bin(b, B_MUL, cnt[1], num(b, k[0])) : !cnt[1] ? bin(b, B_MUL, cnt[0], num(b, k[1]))
                                                                        : bin(b, B_MUL, cnt[0], cnt[1]);
        count = to_dtype(b, c, DT_INT32, dt);
    }
    nest_end(b, &u, "adaptive_pool_divide", NULL, store(b, out, u.x, bin(b, B_DIV, load(b, sum, u.x), count)));
}

static const Op ops[] = {
    { { "R.nn.max_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0 }, infer_pool, legal_pool, R_MAX, 0, 0, pool_pos },
    { { "R.nn.avg_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0 }, infer_pool, legal_pool, R_MEAN, 0, 0, pool_pos },
    { { "R.nn.adaptive_avg_pool2d", LAYOUT_HEAVY, 1, 1, adaptive_attrs, 0, 0 }, infer_adaptive, legal_adaptive, 0, 0,
      0, adaptive_attrs },
};

const OpFamily op_family_pool = { ops, sizeof ops / sizeof *ops };
