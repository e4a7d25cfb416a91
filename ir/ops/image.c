/* R.image.resize2d: H and W resized to size, in layouts that keep them whole
 * (NCHW, NHWC, NCHW4c ...), by the nearest input point, bilinearly or
 * bicubically. An output coordinate maps to an input one by the coordinate
 * transformation mode, computed in float32 with the scale in/out held as a
 * float32. */
#include <string.h>

#include "internal.h"

static const char *const resize_attrs[] = { "size", "roi", "layout", "method", "coordinate_transformation_mode",
                                            "rounding_method", "cubic_alpha", "cubic_exclude", "extrapolation_value",
                                            "out_dtype", NULL };

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { C_HALF_PIXEL, C_PYTORCH_HALF_PIXEL, C_ALIGN_CORNERS, C_ASYMMETRIC, C_TF_HALF_PIXEL_NN };
enum { R_ROUND, R_FLOOR, R_CEIL, R_PREFER_FLOOR, R_PREFER_CEIL };

static const char *const methods[] = { "nearest_neighbor", "linear", "cubic", NULL };
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
    if (p->mode[0] != M_NEAREST && (!dtype_is_float(a->dtype) || !dtype_is_float(p->out.dtype)))
        return fail(err, call->loc, "R.image.resize2d: method \"%s\" takes and gives float tensors", methods[p->mode[0]]);
    /* cubic: the spline's alpha (TVM's default -0.75) and whether the taps
     * outside the input are excluded (their weights 0, the others scaled to
     * sum to 1) rather than clamped to its edge */
    const Expr *ca = attr(call, "cubic_alpha"), *ce = attr(call, "cubic_exclude");
    p->scalar[0] = -0.75;
    if (ca && ca->kind != E_NONE && num_of(ca, &p->scalar[0]))
        return fail(err, ca->loc, "R.image.resize2d: cubic_alpha is a number, such as -0.5");
    int64_t ex = 0;
    if (ce && ce->kind == E_BOOL)
        ex = ce->u.b;
    else if (ce && ce->kind != E_NONE && (int_of(ce, &ex) || (ex != 0 && ex != 1)))
        return fail(err, ce->loc, "R.image.resize2d: cubic_exclude is 0 or 1");
    p->keepdims = (int)ex;
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

/* ---- bicubic ---- */

/* The weight of tap i (0 to 3, the taps at floor(x) - 1 ... floor(x) + 2)
 * for the fraction t of coordinate x, with a = alpha, as the cubic
 * convolution kernel gives it (the operations and their order are those of
 * TVM's resize, in float32):
 *   w0 = a (t^3 - 2 t^2 + t)
 *   w1 = (a + 2) t^3 - (3 + a) t^2 + 1
 *   w2 = -(a + 2) t^3 + (3 + 2 a) t^2 - a t
 *   w3 = -a t^3 + a t^2
 * t is a load, built afresh at each use. */
static Expr *cubic_weight(B *b, int i, double a, Buffer *tb, Expr *h)
{
#define T_ (load(b, tb, (Expr *[]){ h }))
#define T2 (bin(b, B_MUL, T_, T_))
#define T3 (bin(b, B_MUL, bin(b, B_MUL, T_, T_), T_))
    switch (i) {
    case 0:
        return bin(b, B_MUL, f32(b, a), bin(b, B_ADD, bin(b, B_SUB, T3, bin(b, B_MUL, f32(b, 2), T2)), T_));
    case 1:
        return bin(b, B_ADD, bin(b, B_SUB, bin(b, B_MUL, f32(b, a + 2), T3), bin(b, B_MUL, f32(b, 3 + a), T2)),
                   f32(b, 1));
    case 2:
        return bin(b, B_SUB, bin(b, B_ADD, bin(b, B_MUL, f32(b, -(a + 2)), T3), bin(b, B_MUL, f32(b, 3 + 2 * a), T2)),
                   bin(b, B_MUL, f32(b, a), T_));
    default:
        return bin(b, B_ADD, bin(b, B_MUL, f32(b, -a), T3), bin(b, B_MUL, f32(b, a), T2));
    }
#undef T_
#undef T2
#undef T3
}

/* The scratch buffers of one axis of a bicubic resize. */
typedef struct CubicAxis {
    Buffer *frac, *floor, *weight, *norm;
} CubicAxis;

static void cubic_alloc(B *b, const Plan *p, int j, CubicAxis *c)
{
    static const char *const names[2][4] = { { "T_frac_h", "T_floor_h", "T_weight_h", "T_weight_norm_h" },
                                             { "T_frac_w", "T_floor_w", "T_weight_w", "T_weight_norm_w" } };
    int64_t n = p->pool[j];
    TensorType t1 = { DT_FLOAT32, 1, { n } }, f1 = { DT_INT64, 1, { n } }, t4 = { DT_FLOAT32, 2, { n, 4 } };
    c->frac = scratch(b, names[j][0], &t1);
    c->floor = scratch(b, names[j][1], &f1);
    c->weight = scratch(b, names[j][2], &t4);
    c->norm = p->keepdims ? scratch(b, names[j][3], &t4) : NULL;
}

/* The bicubic weights along axis j (0: H, 1: W), a buffer (out extent, 4)
 * of float32, and the floors of the coordinates, of int64: the fraction, the
 * floor, the four weights (0 for an excluded tap), then with cubic_exclude
 * the weights over their sum. Returns the weights' buffer. */
static Buffer *cubic_axis(B *b, const Plan *p, int j, int64_t in, const CubicAxis *c)
{
    int64_t n = p->pool[j], e4[2] = { n, 4 };
    Nest u;
    nest_begin(b, &u, 1, &n, "S");
    Expr *x = in_coord(b, p, u.x[0], in, n);
    nest_end(b, &u, "resize_frac", NULL,
             store(b, c->frac, u.x, bin(b, B_SUB, x, intrin(b, "T.floor", in_coord(b, p, u.x[0], in, n), NULL))));
    nest_begin(b, &u, 1, &n, "S");
    nest_end(b, &u, "resize_floor", NULL,
             store(b, c->floor, u.x, to_dtype(b, intrin(b, "T.floor", in_coord(b, p, u.x[0], in, n), NULL), DT_FLOAT32, DT_INT64)));
    nest_begin(b, &u, 2, e4, "SS");
    Expr *w = cubic_weight(b, 3, p->scalar[0], c->frac, u.x[0]);
    for (int i = 2; i >= 0; i--)
        w = select3(b, bin(b, B_EQ, u.x[1], num(b, i)), cubic_weight(b, i, p->scalar[0], c->frac, u.x[0]), w);
    if (p->keepdims) {
        /* the tap floor + i - 1 outside [0, in) weighs 0 */
        Expr *at = bin(b, B_SUB, bin(b, B_ADD, load(b, c->floor, u.x), u.x[1]), typed(b, 1, DT_INT64));
        w = select3(b, bin(b, B_AND, bin(b, B_LE, typed(b, 0, DT_INT64), at), bin(b, B_LT, at, typed(b, (double)in, DT_INT64))),
                    w, f32(b, 0));
    }
    nest_end(b, &u, "resize_weight", NULL, store(b, c->weight, u.x, w));
    if (!p->keepdims)
        return c->weight;
    nest_begin(b, &u, 2, e4, "SS");
    Expr *sum = NULL;
    for (int i = 0; i < 4; i++) {
        Expr *wi = load(b, c->weight, (Expr *[]){ u.x[0], num(b, i) });
        sum = sum ? bin(b, B_ADD, sum, wi) : wi;
    }
    nest_end(b, &u, "resize_weight_norm", NULL, store(b, c->norm, u.x, bin(b, B_DIV, load(b, c->weight, u.x), sum)));
    return c->norm;
}

/* Bicubic: along W, each of the four rows around the coordinate sums its
 * four taps by their weights (((p0 w0 + p1 w1) + p2 w2) + p3 w3, in float32,
 * the taps clamped into the input); along H, the four row sums so. */
static void legal_cubic(B *b, const Plan *p, Buffer *in, Buffer *out, const int64_t *ie)
{
    int r = p->out.ndim, hp = p->dpos[2], wp = p->dpos[3];
    TensorType rt = p->out;
    rt.dtype = DT_FLOAT32;
    rt.ndim = r + 1;
    rt.shape[r] = 4;
    CubicAxis ax[2];
    cubic_alloc(b, p, 0, &ax[0]);
    cubic_alloc(b, p, 1, &ax[1]);
    Buffer *rows = scratch(b, "T_rows", &rt), *wb[2], *fb[2] = { ax[0].floor, ax[1].floor };
    for (int j = 0; j < 2; j++)
        wb[j] = cubic_axis(b, p, j, ie[j], &ax[j]);
    char kinds[OP_MAX_RANK + 2];
    memset(kinds, 'S', sizeof kinds);
    Nest t;
    nest_begin(b, &t, r + 1, rt.shape, kinds);
    Expr *val = NULL;
    for (int i = 0; i < 4; i++) {
        Expr *idx[OP_MAX_RANK];
        memcpy(idx, t.x, (size_t)r * sizeof *idx);
        Expr *at[2] = { bin(b, B_SUB, bin(b, B_ADD, load(b, fb[0], (Expr *[]){ t.x[hp] }), t.x[r]), typed(b, 1, DT_INT64)),
                        bin(b, B_ADD, load(b, fb[1], (Expr *[]){ t.x[wp] }), typed(b, (double)(i - 1), DT_INT64)) };
        for (int j = 0; j < 2; j++)
            idx[p->dpos[2 + j]] = intrin(b, "T.min", intrin(b, "T.max", at[j], typed(b, 0, DT_INT64)),
                                         typed(b, (double)(ie[j] - 1), DT_INT64));
        Expr *term = bin(b, B_MUL, to_dtype(b, load(b, in, idx), in->dtype, DT_FLOAT32),
                         load(b, wb[1], (Expr *[]){ t.x[wp], num(b, i) }));
        val = val ? bin(b, B_ADD, val, term) : term;
    }
    nest_end(b, &t, "resize_rows", NULL, store(b, rows, t.x, val));
    nest_begin(b, &t, r, p->out.shape, kinds);
    val = NULL;
    for (int k = 0; k < 4; k++) {
        Expr *ri[OP_MAX_RANK + 1];
        memcpy(ri, t.x, (size_t)r * sizeof *ri);
        ri[r] = num(b, k);
        Expr *term = bin(b, B_MUL, load(b, rows, ri), load(b, wb[0], (Expr *[]){ t.x[hp], num(b, k) }));
        val = val ? bin(b, B_ADD, val, term) : term;
    }
    nest_end(b, &t, "resize2d", NULL, store(b, out, t.x, to_dtype(b, val, DT_FLOAT32, p->out.dtype)));
}

static void legal_resize(B *b, const Op *o, const Expr *call, Buffer **in, int nin, Buffer **outs, const Plan *p)
{
    int64_t ie[2];
    for (int j = 0; j < 2; j++)
        expr_const_int(in[0]->shape[p->dpos[2 + j]], &ie[j]);
    if (p->mode[0] == M_CUBIC) {
        legal_cubic(b, p, in[0], outs[0], ie);
        return;
    }
    Nest t;
    nest_begin(b, &t, p->out.ndim, p->out.shape, NULL);
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
    { { "R.image.resize2d", LAYOUT_HEAVY, 1, 1, resize_attrs, 0, 0, "float, any (nearest)", "N,C,H,W any order, H, W whole" }, infer_resize, legal_resize, 0, 0, 0,
      resize_attrs },
};

const OpFamily op_family_image = { ops, sizeof ops / sizeof *ops };
