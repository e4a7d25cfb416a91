/* Data layouts such as NCHW4c (a buffer's axes over the primal axes N C H W or
 * O I H W, some split) and the sliding window of convolution and pooling. */
#include <string.h>

#include "internal.h"

int lay_parse(const char *s, const char *prims, Lay *l)
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
void lay_logical(const Lay *l, const int64_t *shape, int64_t *ext)
{
    for (int j = 0; j < l->n; j++)
        if (!l->inner[j])
            ext[l->prim[j]] = shape[j] * (l->split[l->prim[j]] ? l->split[l->prim[j]] : 1);
}

/* The buffer shape for logical extents; -1 when a split does not divide. */
int lay_shape(const Lay *l, const int64_t *ext, int64_t *shape)
{
    for (int j = 0; j < l->n; j++) {
        int64_t f = l->split[l->prim[j]], e = ext[l->prim[j]];
        if (f && e % f)
            return -1;
        shape[j] = !f ? e : l->inner[j] ? f : e / f;
    }
    return 0;
}

int lay_logical_checked(const Lay *l, const TensorType *t, int64_t *ext)
{
    if (t->ndim != l->n)
        return -1;
    for (int j = 0; j < l->n; j++)
        if (l->inner[j] && t->shape[j] != l->split[l->prim[j]])
            return -1;
    lay_logical(l, t->shape, ext);
    return 0;
}

/* The indices of a buffer in layout l from the four logical indices. A
 * logical axis the loops already visit as outer and inner (sp, may be NULL)
 * indexes an axis split by the same factor with them directly, so the
 * indices stay affine; otherwise x // f and x % f. */
void lay_index(B *b, const Lay *l, Expr *const *logical, const LaySplit *sp, Expr **idx)
{
    for (int j = 0; j < l->n; j++) {
        int a = l->prim[j];
        int64_t f = l->split[a];
        Expr *v = logical[a];
        if (f && sp && sp->f[a] == f)
            idx[j] = l->inner[j] ? sp->inner[a] : sp->outer[a];
        else
            idx[j] = !f ? v : bin(b, l->inner[j] ? B_FLOORMOD : B_FLOORDIV, v, num(b, f));
    }
}

/* The sliding window of conv2d and the pools: strides and dilation (1 or 2
 * integers) and padding (1, 2 or 4: top, left, bottom, right). */
int window_attrs(const Expr *call, Plan *p, OpError *err)
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
int64_t window_out(const Plan *p, int k, int64_t in, int64_t kext)
{
    return (in + p->pad[k] + p->pad[k + 2] - p->dil[k] * (kext - 1) - 1) / p->stride[k] + 1;
}

const char *op_layout_default(const char *key)
{
    if (strcmp(key, "data_layout") == 0 || strcmp(key, "layout") == 0)
        return "NCHW";
    return strcmp(key, "kernel_layout") == 0 ? "OIHW" : NULL;
}

/* The layout (and out_layout, the same) of a pool or a resize: a layout of
 * N, C, H, W with H and W whole; their places go to dpos[2] and dpos[3]. */
int hw_layout(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const char *lay = str_of(attr(call, "layout"), op_layout_default("layout")), *ol = str_of(attr(call, "out_layout"), lay);
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
    return 0;
}
