/* Pooling over H and W (R.nn.max_pool2d, R.nn.avg_pool2d,
 * R.nn.adaptive_avg_pool2d) in layouts that keep H and W whole: NCHW, NHWC,
 * NCHW4c ..., the output in the out_layout (another such layout, the
 * layout when absent). */
#include <string.h>

#include "../internal.h"

static const char *const pool_attrs[] = { "pool_size", "strides", "padding", "dilation", "layout", "out_layout",
                                          "ceil_mode", "count_include_pad", NULL };
/* TVM's order of the pools' arguments */
static const char *const pool_pos[] = { "pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad",
                                        "layout", "out_layout", NULL };
static const char *const adaptive_attrs[] = { "output_size", "layout", "out_layout", NULL };

/* The output extent of a pool along k (0: height, 1: width). With ceil_mode
 * the division by the stride rounds up, as Relax infers it: the last window
 * may then run past the padded input, and only its points inside count.
 * (PyTorch also drops a last window that would start past the input and its
 * leading padding; Relax keeps it, and so does lopt: such a window takes
 * the lowest value in max_pool2d and averages to 0.) */
static int64_t pool_out(const Plan *p, int k, int64_t in, int ceil)
{
    int64_t span = in + p->pad[k] + p->pad[k + 2] - p->dil[k] * (p->pool[k] - 1) - 1;
    if (span < 0)
        return 0;
    return (span + (ceil ? p->stride[k] - 1 : 0)) / p->stride[k] + 1;
}

static int infer_pool(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (hw_layout(call, a, p, err))
        return -1;
    const Expr *ceil = attr(call, "ceil_mode"), *cip = attr(call, "count_include_pad");
    if (ceil && ceil->kind != E_BOOL)
        return fail(err, ceil->loc, "%s: ceil_mode is True or False", call->u.call.op->str);
    if (cip && cip->kind != E_BOOL)
        return fail(err, cip->loc, "%s: count_include_pad is True or False", call->u.call.op->str);
    p->keepdims = cip && cip->kind == E_BOOL && cip->u.b;   /* avg: count the padding */
    p->center = ceil && ceil->kind == E_BOOL && ceil->u.b;  /* ceil_mode */
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
    int64_t OH = pool_out(p, 0, p->dext[2], p->center), OW = pool_out(p, 1, p->dext[3], p->center);
    if (OH < 1 || OW < 1)
        return fail(err, call->loc, "the pool window is larger than the padded input");
    return hw_out(call, a, OH, OW, p, err);
}

/* Does some window of axis k (0: height, 1: width) reach a point outside
 * [lo, hi) of the padded input? */
static int window_leaves(const Plan *p, int k, int64_t extent, int64_t lo, int64_t hi)
{
    int64_t last = (extent - 1) * p->stride[k] + (p->pool[k] - 1) * p->dil[k];
    return lo > 0 || last >= hi;
}

static void legal_pool(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    /* loops over the output in its out_layout (spatial), then kh, kw
     * (reduce); H and W sit at kpos[2] and kpos[3] of the output, and every
     * other axis (N, C, a tile of C) is carried to the input's layout */
    int r = p->out.ndim, hp = p->kpos[2], wp = p->kpos[3];
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
    int64_t H = p->dext[2], W = p->dext[3], OH = ext[hp], OW = ext[wp];
    Nest t;
    nest_begin(b, &t, r + 2, ext, kinds);
    Expr *h = bin(b, B_ADD, p->stride[0] == 1 ? t.x[hp] : bin(b, B_MUL, t.x[hp], num(b, p->stride[0])),
                  p->dil[0] == 1 ? t.x[r] : bin(b, B_MUL, t.x[r], num(b, p->dil[0])));
    Expr *w = bin(b, B_ADD, p->stride[1] == 1 ? t.x[wp] : bin(b, B_MUL, t.x[wp], num(b, p->stride[1])),
                  p->dil[1] == 1 ? t.x[r + 1] : bin(b, B_MUL, t.x[r + 1], num(b, p->dil[1])));
    Expr *xi[OP_MAX_RANK];
    hw_index(b, p, t.x, p->pad[0] ? bin(b, B_SUB, h, num(b, p->pad[0])) : h,
             p->pad[1] ? bin(b, B_SUB, w, num(b, p->pad[1])) : w, xi);
    /* points outside the input: the padding, and with ceil_mode what the
     * last window reaches past it */
    int padded = p->pad[0] || p->pad[1] || p->pad[2] || p->pad[3] ||
                 window_leaves(p, 0, OH, p->pad[0], p->pad[0] + H) || window_leaves(p, 1, OW, p->pad[1], p->pad[1] + W);
    Expr *cond = padded ? bin(b, B_AND, within(b, h, p->pad[0], H + p->pad[0]), within(b, w, p->pad[1], W + p->pad[1]))
                        : NULL;
    DType dt = p->out.dtype;
    Expr *x = load(b, in[0], xi), *acc = load(b, out, t.x), *init, *val;
    if (o->code == R_MAX) {
        Expr *lowest = intrin(b, "T.min_value", str(b, dtype_name(dt)), NULL);
        init = lowest;
        val = intrin(b, "T.max", acc, cond ? select3(b, cond, x, lowest) : x);
    } else {
        init = typed(b, 0, dt);
        val = bin(b, B_ADD, acc, cond ? select3(b, cond, x, typed(b, 0, dt)) : x);
    }
    nest_end(b, &t, o->code == R_MAX ? "max_pool2d" : "avg_pool2d", store(b, out, t.x, init), store(b, out, t.x, val));
    if (o->code != R_MEAN)
        return;
    /* The divisor of a window, as TVM and PyTorch define it: its points
     * (start + j * dil, j < pool, along each axis) inside the input, or,
     * with count_include_pad, inside the input with its declared padding
     * ([-pad_before, extent + pad_after) in input coordinates; the room
     * ceil_mode adds past pad_after does not count). A constant pool size
     * when every window lies within those bounds. */
    int incl = p->keepdims;
    int64_t lo[2] = { incl ? 0 : p->pad[0], incl ? 0 : p->pad[1] };
    int64_t hi[2] = { p->pad[0] + H + (incl ? p->pad[2] : 0), p->pad[1] + W + (incl ? p->pad[3] : 0) };
    int counted = incl ? window_leaves(p, 0, OH, lo[0], hi[0]) || window_leaves(p, 1, OW, lo[1], hi[1]) : padded;
    Nest u;
    nest_begin(b, &u, r, ext, kinds);
    Expr *count;
    if (!counted) {
        count = typed(b, (double)(p->pool[0] * p->pool[1]), dt);
    } else {
        Expr *cnt[2];
        int pos[2] = { hp, wp };
        for (int k = 0; k < 2; k++) {
            Expr *start = p->stride[k] == 1 ? u.x[pos[k]] : bin(b, B_MUL, u.x[pos[k]], num(b, p->stride[k]));
            Expr *c = NULL;
            for (int64_t j = 0; j < p->pool[k]; j++) {
                Expr *at = j ? bin(b, B_ADD, start, num(b, j * p->dil[k])) : start;
                Expr *one = select3(b, within(b, at, lo[k], hi[k]), num(b, 1), num(b, 0));
                c = c ? bin(b, B_ADD, c, one) : one;
            }
            cnt[k] = c;
        }
        /* a window wholly outside counts 1 (its sum is 0, and so is its average) */
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
    p->pool[0] = n ? v[0] : p->dext[2];
    p->pool[1] = n == 2 ? v[1] : n ? v[0] : p->dext[3];
    if (p->pool[0] < 1 || p->pool[1] < 1 || p->pool[0] > (1 << 24) || p->pool[1] > (1 << 24))
        return fail(err, os->loc, "output_size is positive, at most %d", 1 << 24);
    return hw_out(call, a, p->pool[0], p->pool[1], p, err);
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
    int r = p->out.ndim, pos[2] = { p->kpos[2], p->kpos[3] };
    int64_t ext[OP_MAX_RANK + 2], ie[2], k[2];
    char kinds[OP_MAX_RANK + 3];
    for (int d = 0; d < r; d++) {
        ext[d] = p->out.shape[d];
        kinds[d] = 'S';
    }
    for (int j = 0; j < 2; j++) {
        ie[j] = p->dext[2 + j];
        k[j] = adaptive_width(ie[j], p->pool[j]);
        ext[r + j] = k[j];
        kinds[r + j] = 'R';
    }
    kinds[r + 2] = 0;
    Nest t;
    nest_begin(b, &t, r + 2, ext, kinds);
    Expr *xi[OP_MAX_RANK], *hw[2], *cond = NULL;
    for (int j = 0; j < 2; j++) {
        Expr *at = adaptive_start(b, t.x[pos[j]], ie[j], p->pool[j]);
        hw[j] = k[j] == 1 ? at : bin(b, B_ADD, at, t.x[r + j]);
        if (ie[j] % p->pool[j]) {
            Expr *c = bin(b, B_LT, hw[j], adaptive_end(b, t.x[pos[j]], ie[j], p->pool[j]));
            cond = cond ? bin(b, B_AND, cond, c) : c;
        }
    }
    hw_index(b, p, t.x, hw[0], hw[1], xi);
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
    { { "R.nn.max_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0, NULL, "N,C,H,W any order, H, W whole" }, infer_pool, legal_pool, R_MAX, 0, 0, pool_pos },
    { { "R.nn.avg_pool2d", LAYOUT_HEAVY, 1, 1, pool_attrs, 0, 0, NULL, "N,C,H,W any order, H, W whole" }, infer_pool, legal_pool, R_MEAN, 0, 0, pool_pos },
    { { "R.nn.adaptive_avg_pool2d", LAYOUT_HEAVY, 1, 1, adaptive_attrs, 0, 0, NULL, "N,C,H,W any order, H, W whole" }, infer_adaptive, legal_adaptive, 0, 0,
      0, adaptive_attrs },
};

const OpFamily op_family_pool = { ops, sizeof ops / sizeof *ops };
