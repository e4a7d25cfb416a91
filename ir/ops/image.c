/* R.image.resize2d: H and W resized to size, in layouts that keep them whole
 * (NCHW, NHWC, NCHW4c ...), by the nearest input point or bilinearly. An
 * output coordinate maps to an input one by the coordinate transformation
 * mode, computed in float32 with the scale in/out held as a float32. */
#include <string.h>

#include "internal.h"

static const char *const resize_attrs[] = { "size", "roi", "layout", "method", "coordinate_transformation_mode",
                                            "rounding_method", "cubic_alpha", "cubic_exclude", "extrapolation_value",
                                            "out_dtype", NULL };

enum { M_NEAREST, M_LINEAR };
enum { C_HALF_PIXEL, C_PYTORCH_HALF_PIXEL, C_ALIGN_CORNERS, C_ASYMMETRIC, C_TF_HALF_PIXEL_NN };
enum { R_ROUND, R_FLOOR, R_CEIL, R_PREFER_FLOOR, R_PREFER_CEIL };

static const char *const methods[] = { "nearest_neighbor", "linear", NULL };
static const char *const coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                      "tf_half_pixel_for_nn", NULL };
static const char *const roundings[] = { "round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", NULL };

/* The index in names of the string attribute key (dflt when absent or ""). */
static int choice(const Expr *call, const char *key, const char *const *names, int dflt, int *v, OpError *err)
{
    const Expr *e = attr(call, key);
    *v = dflt;
    if (!e || e->kind == E_NONE || (e->kind == E_STR && !*e->u.str.s))
        return 0;
    for (int i = 0; e->kind == E_STR && names[i]; i++)
        if (strcmp(e->u.str.s, names[i]) == 0)
            return *v = i, 0;
    char list[200];
    size_t n = 0;
    for (int i = 0; names[i] && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s\"%s\"", i ? ", " : "", names[i]);
    return fail(err, e->loc, "R.image.resize2d: %s is one of %s", key, list);
}

static int infer_resize(const Op *o, const Expr *call, const TensorType *a, int nargs, Plan *p, OpError *err)
{
    if (hw_layout(call, a, p, err))
        return -1;
    const Expr *size = attr(call, "size");
    int64_t v[2];
    int n = size ? shape_of(size, v, 2) : -1;
    if (n < 0 && size && int_of(size, &v[0]) == 0)
        n = 1;
    if (n < 1)
        return fail(err, size ? size->loc : call->loc, "R.image.resize2d takes a size of one or two integers, as in "
                    "R.shape([16, 16])");
    p->pool[0] = v[0];
    p->pool[1] = n == 2 ? v[1] : v[0];
    if (p->pool[0] < 1 || p->pool[1] < 1 || p->pool[0] > (1 << 24) || p->pool[1] > (1 << 24))
        return fail(err, size->loc, "R.image.resize2d: the size is positive, at most %d", 1 << 24);
    const Expr *m = attr(call, "method");
    if (m && m->kind == E_STR && strcmp(m->u.str.s, "cubic") == 0)
        return fail(err, m->loc, "R.image.resize2d: method \"cubic\" is not supported yet");
    const Expr *c = attr(call, "coordinate_transformation_mode");
    if (c && c->kind == E_STR && strcmp(c->u.str.s, "tf_crop_and_resize") == 0)
        return fail(err, c->loc, "R.image.resize2d: coordinate_transformation_mode \"tf_crop_and_resize\" is not "
                    "supported yet");
    if (choice(call, "method", methods, M_LINEAR, &p->mode[0], err) ||
        choice(call, "coordinate_transformation_mode", coords, C_HALF_PIXEL, &p->mode[1], err) ||
        choice(call, "rounding_method", roundings, R_ROUND, &p->mode[2], err))
        return -1;
    p->out = *a;
    if (dtype_attr(call, "out_dtype", a->dtype, &p->out.dtype, err))
        return -1;
    if (p->mode[0] == M_LINEAR && (!dtype_is_float(a->dtype) || !dtype_is_float(p->out.dtype)))
        return fail(err, call->loc, "R.image.resize2d: method \"linear\" takes and gives float tensors");
    p->out.shape[p->dpos[2]] = p->pool[0];
    p->out.shape[p->dpos[3]] = p->pool[1];
    return 0;
}

static Expr *f32(B *b, double v)
{
    return typed(b, v, DT_FLOAT32);
}

/* The input coordinate of output index x, in float32, for in and out points. */
static Expr *in_coord(B *b, const Plan *p, Expr *x, int64_t in, int64_t out)
{
    Expr *xf = to_dtype(b, x, DT_INT64, DT_FLOAT32);
    switch (p->mode[1]) {
    case C_ALIGN_CORNERS:
        return out > 1 ? bin(b, B_MUL, xf, f32(b, (double)(in - 1) / (double)(out - 1))) : f32(b, 0);
    case C_ASYMMETRIC:
        return bin(b, B_MUL, xf, f32(b, (double)in / (double)out));
    case C_TF_HALF_PIXEL_NN:
        return bin(b, B_MUL, bin(b, B_ADD, xf, f32(b, 0.5)), f32(b, (double)in / (double)out));
    case C_PYTORCH_HALF_PIXEL:
        if (out == 1)
            return f32(b, 0);
        /* fall through */
    default:
        return bin(b, B_SUB, bin(b, B_MUL, bin(b, B_ADD, xf, f32(b, 0.5)), f32(b, (double)in / (double)out)),
                   f32(b, 0.5));
    }
}

/* An integer index from a float32 coordinate, inside [0, in). */
static Expr *clamp_index(B *b, Expr *f, int64_t delta, int64_t in)
{
    Expr *i = to_dtype(b, f, DT_FLOAT32, DT_INT64);
    if (delta)
        i = bin(b, B_ADD, i, typed(b, (double)delta, DT_INT64));
    return intrin(b, "T.min", intrin(b, "T.max", i, typed(b, 0, DT_INT64)), typed(b, (double)(in - 1), DT_INT64));
}

static Expr *nearest(B *b, const Plan *p, Expr *x)
{
    switch (p->mode[2]) {
    case R_FLOOR: return intrin(b, "T.floor", x, NULL);
    case R_CEIL: return intrin(b, "T.ceil", x, NULL);
    case R_PREFER_FLOOR: return intrin(b, "T.ceil", bin(b, B_SUB, x, f32(b, 0.5)), NULL);
    case R_PREFER_CEIL: return intrin(b, "T.floor", bin(b, B_ADD, x, f32(b, 0.5)), NULL);
    default: return intrin(b, "T.round", x, NULL);
    }
}

/* Built afresh at each use: no subtree is shared between two places. */
static Expr *coord(B *b, const Plan *p, const Nest *t, int j, const int64_t *ie)
{
    int pos = p->dpos[2 + j];
    return in_coord(b, p, t->x[pos], ie[j], p->pool[j]);
}

static Expr *frac(B *b, const Plan *p, const Nest *t, int j, const int64_t *ie)
{
    return bin(b, B_SUB, coord(b, p, t, j, ie), intrin(b, "T.floor", coord(b, p, t, j, ie), NULL));
}

/* The input point r rows and k columns past the one below the coordinate, in float32. */
static Expr *tap(B *b, const Plan *p, const Nest *t, Buffer *in, const int64_t *ie, int r, int k)
{
    Expr *idx[OP_MAX_RANK];
    memcpy(idx, t->x, (size_t)p->out.ndim * sizeof *idx);
    for (int j = 0; j < 2; j++)
        idx[p->dpos[2 + j]] = clamp_index(b, intrin(b, "T.floor", coord(b, p, t, j, ie), NULL), j ? k : r, ie[j]);
    return to_dtype(b, load(b, in, idx), in->dtype, DT_FLOAT32);
}

static void legal_resize(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    Nest t;
    char kinds[OP_MAX_RANK + 1];
    memset(kinds, 'S', sizeof kinds);
    nest_begin(b, &t, p->out.ndim, p->out.shape, kinds);
    int64_t ie[2];
    for (int j = 0; j < 2; j++)
        expr_const_int(in[0]->shape[p->dpos[2 + j]], &ie[j]);
    DType dt = p->out.dtype;
    Expr *val;
    if (p->mode[0] == M_NEAREST) {
        Expr *idx[OP_MAX_RANK];
        memcpy(idx, t.x, (size_t)p->out.ndim * sizeof *idx);
        for (int j = 0; j < 2; j++)
            idx[p->dpos[2 + j]] = clamp_index(b, nearest(b, p, coord(b, p, &t, j, ie)), 0, ie[j]);
        val = to_dtype(b, load(b, in[0], idx), in[0]->dtype, dt);
    } else {
        /* (1 - fh) ((1 - fw) a00 + fw a01) + fh ((1 - fw) a10 + fw a11), in float32 */
        Expr *row[2];
        for (int r = 0; r < 2; r++)
            row[r] = bin(b, B_ADD, bin(b, B_MUL, bin(b, B_SUB, f32(b, 1), frac(b, p, &t, 1, ie)), tap(b, p, &t, in[0], ie, r, 0)),
                         bin(b, B_MUL, frac(b, p, &t, 1, ie), tap(b, p, &t, in[0], ie, r, 1)));
        val = bin(b, B_ADD, bin(b, B_MUL, bin(b, B_SUB, f32(b, 1), frac(b, p, &t, 0, ie)), row[0]),
                  bin(b, B_MUL, frac(b, p, &t, 0, ie), row[1]));
        val = to_dtype(b, val, DT_FLOAT32, dt);
    }
    nest_end(b, &t, "resize2d", NULL, store(b, outs[0], t.x, val));
}

static const Op ops[] = {
    { { "R.image.resize2d", LAYOUT_HEAVY, 1, 1, resize_attrs, 0, 0 }, infer_resize, legal_resize, 0, 0, 0,
      resize_attrs },
};

const OpFamily op_family_image = { ops, sizeof ops / sizeof *ops };
