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

/* The output extent along spatial axis k (0: height, 1: width) of a window
 * of size kext; 0 when the window is larger than the padded input (C's
 * division rounds a negative span toward 0, which would give 1). */
int64_t window_out(const Plan *p, int k, int64_t in, int64_t kext)
{
    int64_t span = in + p->pad[k] + p->pad[k + 2] - p->dil[k] * (kext - 1) - 1;
    return span < 0 ? 0 : span / p->stride[k] + 1;
}

const char *op_layout_default(const char *key)
{
    if (strcmp(key, "data_layout") == 0 || strcmp(key, "layout") == 0)
        return "NCHW";
    return strcmp(key, "kernel_layout") == 0 ? "OIHW" : NULL;
}

/* One layout of a pool or a resize: the axes N, C, H, W with H and W whole
 * (NCHW, NHWC, NCHW4c ...); the places of H and W go to pos[2] and pos[3]. */
static int hw_parse(const Expr *call, const char *key, const char *s, Lay *l, int *pos, OpError *err)
{
    if (lay_parse(s, "NCHW", l) || l->split[2] || l->split[3])
        return fail(err, call->loc, "%s: the %s %s does not lay out the axes N, C, H, W with H and W whole (such as "
                    "NCHW, NHWC or NCHW4c)", call->u.call.op->str, key, s);
    for (int j = 0; j < l->n; j++)
        if (!l->inner[j] && (l->prim[j] == 2 || l->prim[j] == 3))
            pos[l->prim[j]] = j;
    return 0;
}

/* The layout and out_layout (the layout when absent) of a pool or a resize:
 * the input's layout to p->dl, its logical N C H W extents to p->dext and the
 * places of its H and W to dpos[2] and dpos[3]; the output's layout to p->ol
 * and its H and W places to kpos[2] and kpos[3]. */
int hw_layout(const Expr *call, const TensorType *a, Plan *p, OpError *err)
{
    const char *lay = str_of(attr(call, "layout"), op_layout_default("layout")), *ol = str_of(attr(call, "out_layout"), lay);
    const char *op = call->u.call.op->str;
    char buf[96];
    if (hw_parse(call, "layout", lay, &p->dl, p->dpos, err) || hw_parse(call, "out_layout", ol, &p->ol, p->kpos, err))
        return -1;
    if (p->dl.n != a->ndim)
        return fail(err, call->loc, "%s: layout %s has %d dimensions, the input %d", op, lay, p->dl.n, a->ndim);
    if (lay_logical_checked(&p->dl, a, p->dext))
        return fail(err, call->loc, "%s: the input %s does not fit the layout %s", op, type_text(a, buf, sizeof buf), lay);
    return 0;
}

/* The output of a pool or a resize: the input's N and C with H and W of
 * extents oh and ow, in the out_layout. */
int hw_out(const Expr *call, const TensorType *a, int64_t oh, int64_t ow, Plan *p, OpError *err)
{
    int64_t ext[4] = { p->dext[0], p->dext[1], oh, ow };
    p->out = *a;
    p->out.ndim = p->ol.n;
    if (lay_shape(&p->ol, ext, p->out.shape))
        return fail(err, call->loc, "%s: the %lld channels do not split into the out_layout %s",
                    call->u.call.op->str, (long long)ext[1], str_of(attr(call, "out_layout"), ""));
    return 0;
}

/* The input indices of a pool or a resize whose loops run over the output
 * (iterators x, in the out_layout): N and C follow the output's, H and W are
 * h and w. A channel tiled alike in both layouts indexes by the same two
 * iterators, so the indices stay affine. */
void hw_index(B *b, const Plan *p, Expr *const *x, Expr *h, Expr *w, Expr **idx)
{
    Expr *logical[4] = { NULL, NULL, h, w };
    LaySplit sp = { { 0 }, { NULL }, { NULL } };
    for (int j = 0; j < p->ol.n; j++) {
        int a = p->ol.prim[j];
        if (a >= 2)
            continue;
        if (!p->ol.split[a]) {
            logical[a] = x[j];
        } else if (p->ol.inner[j]) {
            sp.f[a] = p->ol.split[a];
            sp.inner[a] = x[j];
        } else {
            sp.outer[a] = x[j];
        }
    }
    for (int a = 0; a < 2; a++)
        if (sp.f[a])
            logical[a] = bin(b, B_ADD, bin(b, B_MUL, sp.outer[a], num(b, sp.f[a])), sp.inner[a]);
    lay_index(b, &p->dl, logical, &sp, idx);
}
