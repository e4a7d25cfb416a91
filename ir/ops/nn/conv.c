/* R.nn.conv2d in any layout of N C H W and O I H W (NCHW, NHWC, NCHW4c,
 * OIHW4i4o ...), grouped, strided, dilated and padded; R.nn.conv2d_transpose
 * (its gradient with respect to the data) likewise, its kernel I O H W. */
#include <string.h>

#include "../internal.h"

static const char *const conv_attrs[] = { "strides", "padding", "dilation", "groups", "data_layout", "kernel_layout",
                                          "out_layout", "out_dtype", "channels", "kernel_size", NULL };

static const char *const convt_attrs[] = { "strides", "padding", "output_padding", "dilation", "groups",
                                           "data_layout", "kernel_layout", "out_layout", "out_dtype", NULL };

static int infer_conv2d(const Op *op, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *w = &a[1];
    const char *dl = str_of(attr(call, "data_layout"), op_layout_default("data_layout")),
               *kl = str_of(attr(call, "kernel_layout"), op_layout_default("kernel_layout")),
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

/* The factor both tensors that tile a logical axis split it by (0 when
 * neither does, or they disagree, or it does not divide the extent). */
static int64_t common_split(int64_t a, int64_t b, int64_t extent)
{
    int64_t f = a ? a : b;
    return f && (!a || !b || a == b) && extent % f == 0 ? f : 0;
}

static void legal_conv2d(B *b, const Op *op, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
    /* loops n, o, oh, ow (spatial) then ic, kh, kw (reduce), over logical
     * axes; an output or input channel axis that the tiled layouts split by
     * one factor f is two loops, outer and inner, in the same order (the sum
     * over ic adds in the same order), so every index is affine */
    int64_t O = p->kext[0], IC = p->kext[1], H = p->dext[2], W = p->dext[3];
    int64_t OH = window_out(p, 0, H, p->kext[2]), OW = window_out(p, 1, W, p->kext[3]);
    int64_t fo = common_split(p->ol.split[1], p->kl.split[0], O);
    int64_t fi = common_split(p->groups == 1 ? p->dl.split[1] : 0, p->kl.split[1], IC);
    if (p->groups != 1 && p->dl.split[1])
        fi = 0;   /* the data's channel is not ic alone: it would divide anyway */
    int64_t ext[9];
    char kinds[10];
    int k = 0, at_o, at_ic;
    ext[k] = p->dext[0], kinds[k++] = 'S';
    at_o = k;
    if (fo)
        ext[k] = O / fo, kinds[k++] = 'S', ext[k] = fo, kinds[k++] = 'S';
    else
        ext[k] = O, kinds[k++] = 'S';
    ext[k] = OH, kinds[k++] = 'S';
    ext[k] = OW, kinds[k++] = 'S';
    at_ic = k;
    if (fi)
        ext[k] = IC / fi, kinds[k++] = 'R', ext[k] = fi, kinds[k++] = 'R';
    else
        ext[k] = IC, kinds[k++] = 'R';
    ext[k] = p->kext[2], kinds[k++] = 'R';
    ext[k] = p->kext[3], kinds[k++] = 'R';
    kinds[k] = 0;
    Nest t;
    nest_begin(b, &t, k, ext, kinds);
    int j = at_o + (fo ? 2 : 1);
    Expr *n = t.x[0], *oh = t.x[j], *ow = t.x[j + 1];
    j = at_ic + (fi ? 2 : 1);
    Expr *kh = t.x[j], *kw = t.x[j + 1];
    Expr *o = fo ? bin(b, B_ADD, bin(b, B_MUL, t.x[at_o], num(b, fo)), t.x[at_o + 1]) : t.x[at_o];
    Expr *ic = fi ? bin(b, B_ADD, bin(b, B_MUL, t.x[at_ic], num(b, fi)), t.x[at_ic + 1]) : t.x[at_ic];
    /* the input channel: group of o, then ic within it */
    Expr *c = p->groups == 1 ? ic : bin(b, B_ADD, bin(b, B_MUL, bin(b, B_FLOORDIV, o, num(b, O / p->groups)), num(b, IC)), ic);
    Expr *h = bin(b, B_ADD, p->stride[0] == 1 ? oh : bin(b, B_MUL, oh, num(b, p->stride[0])),
                  p->dil[0] == 1 ? kh : bin(b, B_MUL, kh, num(b, p->dil[0])));
    Expr *w = bin(b, B_ADD, p->stride[1] == 1 ? ow : bin(b, B_MUL, ow, num(b, p->stride[1])),
                  p->dil[1] == 1 ? kw : bin(b, B_MUL, kw, num(b, p->dil[1])));
    Expr *xl[4] = { n, c, p->pad[0] ? bin(b, B_SUB, h, num(b, p->pad[0])) : h,
                    p->pad[1] ? bin(b, B_SUB, w, num(b, p->pad[1])) : w };
    Expr *wl[4] = { o, ic, kh, kw }, *yl[4] = { n, o, oh, ow };
    /* which logical axis of each tensor is o or ic */
    LaySplit sx = { { 0, p->groups == 1 ? fi : 0, 0, 0 }, { NULL, fi ? t.x[at_ic] : NULL, NULL, NULL },
                    { NULL, fi ? t.x[at_ic + 1] : NULL, NULL, NULL } };
    LaySplit sw = { { fo, fi, 0, 0 }, { fo ? t.x[at_o] : NULL, fi ? t.x[at_ic] : NULL, NULL, NULL },
                    { fo ? t.x[at_o + 1] : NULL, fi ? t.x[at_ic + 1] : NULL, NULL, NULL } };
    LaySplit sy = { { 0, fo, 0, 0 }, { NULL, fo ? t.x[at_o] : NULL, NULL, NULL },
                    { NULL, fo ? t.x[at_o + 1] : NULL, NULL, NULL } };
    Expr *xi[OP_MAX_RANK], *wi[OP_MAX_RANK], *yi[OP_MAX_RANK];
    lay_index(b, &p->dl, xl, &sx, xi);
    lay_index(b, &p->kl, wl, &sw, wi);
    lay_index(b, &p->ol, yl, &sy, yi);
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

/* conv2d_transpose(x, w): each input element spreads x[n, c, h, w] * w[c,
 * o, kh, kw] to output row h * stride + kh * dilation - pad_top (and so for
 * the columns); the kernel is I O H W with O the output channels of one
 * group. The output is (H - 1) * stride - pad_top - pad_bottom + dilation *
 * (KH - 1) + output_padding + 1 high, output_padding (below the stride)
 * adding rows at the bottom that only the padding reaches. */
static int infer_conv2d_transpose(const Op *op, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    const TensorType *x = &a[0], *w = &a[1];
    const char *dl = str_of(attr(call, "data_layout"), "NCHW"), *kl = str_of(attr(call, "kernel_layout"), "IOHW"),
               *ol = str_of(attr(call, "out_layout"), dl);
    if (lay_parse(dl, "NCHW", &p->dl) || lay_parse(kl, "IOHW", &p->kl) || lay_parse(ol, "NCHW", &p->ol))
        return fail(err, call->loc, "R.nn.conv2d_transpose: layouts %s / %s / %s are not data, kernel and output "
                    "layouts of the axes NCHW and IOHW", dl, kl, ol);
    if (x->dtype != w->dtype)
        return fail(err, call->loc, "R.nn.conv2d_transpose takes data and kernel of one dtype");
    if (lay_logical_checked(&p->dl, x, p->dext) || lay_logical_checked(&p->kl, w, p->kext))
        return fail(err, call->loc, "R.nn.conv2d_transpose: the data or kernel shape does not fit its layout (%s, %s)",
                    dl, kl);
    if (window_attrs(call, p, err))
        return -1;
    int64_t op_[2], v[2];
    int n = ints_of(attr(call, "output_padding"), v, 2);
    if (n < 0)
        return fail(err, attr(call, "output_padding")->loc, "output_padding is 1 or 2 integers");
    op_[0] = n >= 1 ? v[0] : 0;
    op_[1] = n >= 2 ? v[1] : op_[0];
    p->groups = 1;
    if (attr(call, "groups") && int_of(attr(call, "groups"), &p->groups))
        return fail(err, attr(call, "groups")->loc, "groups is an integer");
    int64_t N = p->dext[0], C = p->dext[1], H = p->dext[2], W = p->dext[3];
    int64_t I = p->kext[0], OG = p->kext[1], KH = p->kext[2], KW = p->kext[3];
    if (p->groups < 1 || C % p->groups || I != C)
        return fail(err, call->loc, "R.nn.conv2d_transpose: %lld input channels, %lld kernel input channels and "
                    "groups=%lld do not agree", (long long)C, (long long)I, (long long)p->groups);
    for (int i = 0; i < 2; i++) {
        if (p->stride[i] < 1 || p->dil[i] < 1)
            return fail(err, call->loc, "strides and dilation are positive");
        if (op_[i] < 0 || op_[i] >= p->stride[i])
            return fail(err, call->loc, "R.nn.conv2d_transpose: output_padding (%lld) is at least 0 and below the "
                        "stride (%lld)", (long long)op_[i], (long long)p->stride[i]);
    }
    for (int i = 0; i < 4; i++)
        if (p->pad[i] < 0)
            return fail(err, call->loc, "padding is not negative");
    int64_t ext[2] = { H, W }, k[2] = { KH, KW }, o[4] = { N, OG * p->groups, 0, 0 };
    for (int i = 0; i < 2; i++) {
        o[2 + i] = (ext[i] - 1) * p->stride[i] - p->pad[i] - p->pad[i + 2] + p->dil[i] * (k[i] - 1) + op_[i] + 1;
        if (o[2 + i] < 1)
            return fail(err, call->loc, "R.nn.conv2d_transpose: the padding (%lld + %lld) leaves no output along %s",
                        (long long)p->pad[i], (long long)p->pad[i + 2], i ? "the width" : "the height");
    }
    if (out_dtype(call, x->dtype, &p->out.dtype, err))
        return -1;
    p->pool[0] = o[2];
    p->pool[1] = o[3];
    p->out.ndim = p->ol.n;
    if (lay_shape(&p->ol, o, p->out.shape))
        return fail(err, call->loc, "R.nn.conv2d_transpose: %lld output channels do not split by out_layout %s",
                    (long long)o[1], ol);
    return 0;
}

/* The input row (or column) an output one oh reads with kernel tap kh:
 * (oh + pad - kh * dil) / stride, when that divides and lands inside [0,
 * ext); *ok is that condition. */
static Expr *transposed_index(B *b, Expr *oh, Expr *kh, int64_t pad, int64_t dil, int64_t stride, int64_t ext,
                              Expr **ok)
{
    Expr *t = pad ? bin(b, B_ADD, oh, num(b, pad)) : oh;
    t = bin(b, B_SUB, t, dil == 1 ? kh : bin(b, B_MUL, kh, num(b, dil)));
    Expr *q = stride == 1 ? t : bin(b, B_FLOORDIV, t, num(b, stride));
    Expr *c = bin(b, B_AND, bin(b, B_LE, num(b, 0), t), bin(b, B_LT, q, num(b, ext)));
    if (stride != 1)
        c = bin(b, B_AND, c, bin(b, B_EQ, bin(b, B_FLOORMOD, t, num(b, stride)), num(b, 0)));
    *ok = c;
    return q;
}

static void legal_conv2d_transpose(B *b, const Op *op, const Expr *call, Buffer **in, int nin, Buffer **outs,
                                   const Plan *p)
{
    /* loops n, o, oh, ow (spatial) then ic within the group, kh, kw
     * (reduce): each output element gathers the input elements that spread
     * to it, so every output is written by its own iterations */
    int64_t C = p->dext[1], OG = p->kext[1], IG = C / p->groups;
    int64_t ext[7] = { p->dext[0], OG * p->groups, p->pool[0], p->pool[1], IG, p->kext[2], p->kext[3] };
    Nest t;
    nest_begin(b, &t, 7, ext, "SSSSRRR");
    Expr *n = t.x[0], *o = t.x[1], *ic = t.x[4], *kh = t.x[5], *kw = t.x[6], *okh, *okw;
    Expr *grp = bin(b, B_FLOORDIV, o, num(b, OG));
    Expr *c = p->groups == 1 ? ic : bin(b, B_ADD, IG == 1 ? grp : bin(b, B_MUL, grp, num(b, IG)), ic);
    Expr *og = p->groups == 1 ? o : bin(b, B_FLOORMOD, o, num(b, OG));
    Expr *h = transposed_index(b, t.x[2], kh, p->pad[0], p->dil[0], p->stride[0], p->dext[2], &okh);
    Expr *w = transposed_index(b, t.x[3], kw, p->pad[1], p->dil[1], p->stride[1], p->dext[3], &okw);
    Expr *xl[4] = { n, c, h, w }, *wl[4] = { c, og, kh, kw }, *yl[4] = { n, o, t.x[2], t.x[3] };
    Expr *xi[OP_MAX_RANK], *wi[OP_MAX_RANK], *yi[OP_MAX_RANK];
    lay_index(b, &p->dl, xl, NULL, xi);
    lay_index(b, &p->kl, wl, NULL, wi);
    lay_index(b, &p->ol, yl, NULL, yi);
    Expr *x = select3(b, bin(b, B_AND, okh, okw), load(b, in[0], xi), typed(b, 0, in[0]->dtype));
    Expr *val = bin(b, B_ADD, load(b, outs[0], yi), bin(b, B_MUL, to_dtype(b, x, in[0]->dtype, p->out.dtype),
                                                         to_dtype(b, load(b, in[1], wi), in[1]->dtype, p->out.dtype)));
    nest_end(b, &t, "conv2d_transpose", store(b, outs[0], yi, typed(b, 0, p->out.dtype)), store(b, outs[0], yi, val));
}

static const Op ops[] = {
    { { "R.nn.conv2d", LAYOUT_HEAVY, 2, 2, conv_attrs, 0, 0, NULL, "N,C,H,W / O,I,H,W any order, tiled" }, infer_conv2d, legal_conv2d, 0, 0, 0, conv_attrs },
    { { "R.nn.conv2d_transpose", LAYOUT_HEAVY, 2, 2, convt_attrs, 0, 0, NULL, "N,C,H,W / I,O,H,W any order, tiled" }, infer_conv2d_transpose, legal_conv2d_transpose,
      0, 0, 0, convt_attrs },
};

const OpFamily op_family_conv = { ops, sizeof ops / sizeof *ops };
