/* Taking a box of elements: R.strided_slice (strides of either sign, empty
 * results too, as NumPy's slices) and R.crop. */
#include <string.h>

#include "internal.h"

static const char *const slice_attrs[] = { "axes", "begin", "end", "strides", "assume_inbound", NULL };
static const char *const crop_attrs[] = { "start_indices", "slice_sizes", "cropped_value", NULL };

static int infer_slice(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
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
        if (s == 0 || s == INT64_MIN)
            return fail(err, strides->loc, "strides are not 0");
        /* as NumPy: forward from b up to f, or backward from b down to f (-1: past the first) */
        int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? e : e - 1;
        b = b < lo ? lo : b > hi ? hi : b;
        f = f < lo ? lo : f > hi ? hi : f;
        p->before[d] = b;
        p->step[d] = s;
        p->out.shape[d] = s > 0 ? (f > b ? (f - b + s - 1) / s : 0) : (b > f ? (b - f - s - 1) / -s : 0);
    }
    return 0;
}

static int infer_crop(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
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

static void legal_slice(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Buffer *out = outs[0];
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

static const Op ops[] = {
    { { "R.strided_slice", LAYOUT_LIGHT, 1, 1, slice_attrs, 0, 0 }, infer_slice, legal_slice, 0, 0, 0, slice_attrs },
    { { "R.crop", LAYOUT_LIGHT, 1, 1, crop_attrs, 0, 0 }, infer_crop, legal_slice, 0, 0, 0, NULL },
};

const OpFamily op_family_index = { ops, sizeof ops / sizeof *ops };
