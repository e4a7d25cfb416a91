/* Running a module's Relax function: its inputs (given, read from .npy
 * files, or seeded, with the symbolic dimensions they bind), the run, the
 * outputs as values, and --verify-exec's runs after every pass. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../interp/memo.h"
#include "internal.h"
#include "../ir/oom.h"

/* The most memory --verify-exec's call cache takes (tensors it keeps). */
#define EXEC_CACHE_BYTES ((size_t)1 << 30)

/* One call's runs: the module's source for diagnostics, the inputs made
 * once, and --verify-exec's reference outputs and cache. */
typedef struct Exec {
    lopt_context *ctx;
    Source *src;
    const char *entry;
    Value **inputs;
    int ninputs;
    Value *reference;     /* --verify-exec: the outputs before the pipeline */
    int quiet;            /* a trial run (run_drawn): no notes, no errors */
    int even;             /* draw every extent as one value (interp_even_extent) */
    int drew;             /* make_inputs drew an extent */
    int ran;              /* the trial's make_inputs succeeded, so its error is the run's */
    InterpError trial;    /* the error a trial run ended with */
    int checked;          /* --verify-exec: passes after which the outputs matched */
    int outputs;          /* tensors compared after each */
    int inexact;          /* some matched within the ulp tolerance only */
    Memo *memo;           /* --verify-exec: calls of earlier runs, replayed (interp/memo.h) */
    char *note;           /* where check_exec says what it compared (PassCtx.after_note), or NULL */
    size_t note_cap;
} Exec;

/* An error about the run as a whole, where the module's diagnostics go. */
static int fail(Exec *x, const char *fmt, ...) LOPT_PRINTF(2, 3);
static int fail(Exec *x, const char *fmt, ...)
{
    if (x->quiet)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    api_vfail(x->ctx, x->src->out, fmt, ap);
    va_end(ap);
    return -1;
}

/* A tensor the memory budget refused, which the run reported at loc as
 * one it could not make. */
static int over_memory(Exec *x, Loc loc)
{
    if (x->quiet)
        return -1;
    const MemBudget *b = &x->ctx->mem;
    const char *fmt = "the run reached --max-memory %zu bytes: a tensor of %zu bytes does not fit beside the %zu "
                      "it holds in tensors and arenas";
    if (loc.line)
        diag_error(x->src, loc, fmt, b->max, b->refused, b->held);
    else
        fail(x, fmt, b->max, b->refused, b->held);
    api_mark_limit(x->ctx);
    return -1;
}

/* ---- inputs ---- */

static Input *new_input(lopt_context *ctx, InputKind kind, const char *name, const char *arg)
{
    if (ctx->ninputs == ctx->capinputs) {
        ctx->capinputs = ctx->capinputs ? 2 * ctx->capinputs : 4;
        Input *g = xrealloc(ctx->inputs, (size_t)ctx->capinputs * sizeof *g);
        if (!g)
            oom_fail();
        ctx->inputs = g;
    }
    Input *in = &ctx->inputs[ctx->ninputs++];
    size_t n = strlen(name) + (arg ? strlen(arg) : 0) + 2;
    in->kind = kind;
    in->name = api_strdup(name);
    in->arg = arg ? api_strdup(arg) : NULL;
    if (!(in->spec = xmalloc(n)))
        oom_fail();
    snprintf(in->spec, n, arg ? "%s=%s" : "%s", name, arg);
    in->t = NULL;
    return in;
}

static int lopt_add_input_body(lopt_context *ctx, const char *name, const lopt_tensor *t)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, name, -1);
    API_NEED(ctx, t, -1);
    API_NEED(ctx, t->dtype, -1);
    if ((!t->shape && t->ndim > 0) || (!t->data && t->nbytes > 0))
        return api_usage(ctx, "lopt_add_input: input %s: the tensor's %s is NULL", name, t->data ? "shape" : "data");
    DType dt;
    if (dtype_parse(t->dtype, &dt) || dtype_size(dt) == 0)
        return api_fail(ctx, "input %s: lopt has no dtype '%s'", name, t->dtype);
    if (t->ndim < 0 || t->ndim > TENSOR_MAX_RANK)
        return api_fail(ctx, "input %s: rank %d is above the limit of %d", name, t->ndim, TENSOR_MAX_RANK);
    Tensor *x = tensor_new(dt, t->ndim, t->shape);
    if (!x)
        return api_fail(ctx, "input %s is too large", name);
    if ((size_t)x->count * (size_t)dtype_size(dt) != t->nbytes) {
        tensor_free(x);
        return api_fail(ctx, "input %s: %zu bytes of data for %lld elements of %s", name, t->nbytes,
                        (long long)x->count, t->dtype);
    }
    if (t->nbytes)
        memcpy(x->data, t->data, t->nbytes);
    new_input(ctx, IN_TENSOR, name, NULL)->t = x;
    return 0;
}

int lopt_add_input(lopt_context *ctx, const char *name, const lopt_tensor *t)
{
    API_PROTECTED(ctx, int, -1, lopt_add_input_body(ctx, name, t));
}

static int lopt_add_input_file_body(lopt_context *ctx, const char *name, const char *path)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, name, -1);
    API_NEED(ctx, path, -1);
    new_input(ctx, IN_FILE, name, path);
    return 0;
}

int lopt_add_input_file(lopt_context *ctx, const char *name, const char *path)
{
    API_PROTECTED(ctx, int, -1, lopt_add_input_file_body(ctx, name, path));
}

static int lopt_add_input_shape_body(lopt_context *ctx, const char *name, const char *dims)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, name, -1);
    API_NEED(ctx, dims, -1);
    new_input(ctx, IN_SHAPE, name, dims);
    return 0;
}

int lopt_add_input_shape(lopt_context *ctx, const char *name, const char *dims)
{
    API_PROTECTED(ctx, int, -1, lopt_add_input_shape_body(ctx, name, dims));
}

void lopt_clear_inputs(lopt_context *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->ninputs; i++) {
        free(ctx->inputs[i].name);
        free(ctx->inputs[i].spec);
        free(ctx->inputs[i].arg);
        tensor_free(ctx->inputs[i].t);
    }
    ctx->ninputs = 0;
}

static const char *what_of(const Input *in)
{
    return in->kind == IN_FILE ? "--input" : in->kind == IN_SHAPE ? "--shape" : "input";
}

/* The input of kind (IN_SHAPE, or a file or tensor) for parameter name, or NULL. */
static const Input *input_for(const lopt_context *ctx, int shape, const char *name)
{
    for (int k = 0; k < ctx->ninputs; k++)
        if ((ctx->inputs[k].kind == IN_SHAPE) == shape && strcmp(ctx->inputs[k].name, name) == 0)
            return &ctx->inputs[k];
    return NULL;
}

static Func *find_func(Module *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i]->name->str, name) == 0)
            return m->funcs[i];
    return NULL;
}

int lopt_parse_ints(const char *s, int64_t *v, int max, int64_t min)
{
    if (!s || !v)
        return -1;
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        if (n == max || !(*s >= '0' && *s <= '9'))
            return -1;
        long long x = strtoll(s, &end, 10);
        if (errno || x < min)
            return -1;
        v[n++] = x;
        if (*end == 0)
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

/* The symbolic dimensions of the parameters bound so far, from the shapes
 * of the inputs given and of --shape options. */
typedef struct Dims {
    const Var *var[64];
    int64_t val[64];
    const char *from[64];     /* the parameter that bound it */
    const Var *drawn[64];     /* the parameter lopt drew it for, or NULL (given) */
    const Expr *cast[64];     /* the R.match_cast whose constant it is, or NULL (drawn from the seed) */
    int n;
    int even;                 /* every extent drawn is one value (interp_even_extent) */
    int drew;                 /* some extent was drawn */
} Dims;

static int dims_value(const Var *v, void *data, int64_t *out)
{
    const Dims *D = data;
    for (int i = 0; i < D->n; i++)
        if (D->var[i] == v)
            return *out = D->val[i], 0;
    return -1;
}

static void dims_bind(Dims *D, const Var *v, int64_t val, const Var *p, const Expr *cast)
{
    if (D->n == 64)
        return;
    D->var[D->n] = v;
    D->val[D->n] = val;
    D->from[D->n] = p->name->str;
    D->drawn[D->n] = p;
    D->cast[D->n++] = cast;
}

/* The value of a dimension of a declared shape: an integer, a bound
 * symbolic variable, or arithmetic on them; -1 (with *unbound the first
 * variable not bound) otherwise. */
static int dim_of(const Dims *D, const Expr *e, int64_t *v, const Var **unbound)
{
    int64_t a, b;
    switch (e->kind) {
    case E_INT: *v = e->u.i.v; return 0;
    case E_VAR:
        for (int i = 0; i < D->n; i++)
            if (D->var[i] == e->u.var)
                return *v = D->val[i], 0;
        if (!*unbound)
            *unbound = e->u.var;
        return -1;
    case E_BIN:
        if (dim_of(D, e->u.bin.a, &a, unbound) || dim_of(D, e->u.bin.b, &b, unbound))
            return -1;
        switch (e->u.bin.op) {
        case B_ADD: return __builtin_add_overflow(a, b, v) ? -1 : 0;
        case B_SUB: return __builtin_sub_overflow(a, b, v) ? -1 : 0;
        case B_MUL: return __builtin_mul_overflow(a, b, v) ? -1 : 0;
        case B_FLOORDIV: return b > 0 && a >= 0 ? (*v = a / b, 0) : -1;
        default: return -1;
        }
    default: return -1;
    }
}

/* Every input given names a parameter of f (those of shapes second). */
static int names_params(Exec *x, const Func *f, int shapes)
{
    for (int k = 0; k < x->ctx->ninputs; k++) {
        const Input *in = &x->ctx->inputs[k];
        if ((in->kind == IN_SHAPE) != shapes)
            continue;
        int found = 0;
        for (int i = 0; i < f->nparams; i++)
            found |= strcmp(f->params[i]->name->str, in->name) == 0;
        if (!found)
            return fail(x, "%s %s: %s has no parameter '%s'", what_of(in), in->spec, x->entry, in->name);
    }
    return 0;
}

/* Binds the symbolic dimensions of p's declared shape to shape (what an
 * input or --shape gave), checking the constant ones and those bound already. */
static int bind_shape(Exec *x, Dims *D, const Var *p, const char *what, int nd, const int64_t *shape)
{
    Source *src = x->src;
    const StructInfo *s = p->sinfo;
    char have[160];
    size_t len = (size_t)snprintf(have, sizeof have, "(");
    for (int d = 0; d < nd && len < sizeof have; d++)
        len += (size_t)snprintf(have + len, sizeof have - len, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (len < sizeof have)
        snprintf(have + len, sizeof have - len, "%s)", nd == 1 ? "," : "");
    if (!s || s->kind != SI_TENSOR || !s->shape)
        return 0;
    if (s->ndim != nd)
        return diag_error(src, p->loc, "%s %s: the shape %s has rank %d, but %s declares '%s' of rank %d", what,
                          p->name->str, have, nd, x->entry, p->name->str, s->ndim);
    for (int d = 0; d < nd; d++) {
        const Expr *e = s->shape[d];
        const Var *unbound = NULL;
        int64_t v;
        if (dim_of(D, e, &v, &unbound) == 0) {
            if (v != shape[d]) {
                const char *from = NULL;
                for (int i = 0; e->kind == E_VAR && i < D->n; i++)
                    if (D->var[i] == e->u.var)
                        from = D->from[i];
                if (from)
                    return diag_error(src, p->loc, "%s %s: dimension %d is %lld, but %s is %lld (from '%s')", what,
                                      p->name->str, d, (long long)shape[d], e->u.var->name->str, (long long)v, from);
                return diag_error(src, p->loc, "%s %s: dimension %d is %lld, but %s declares %lld there", what,
                                  p->name->str, d, (long long)shape[d], x->entry, (long long)v);
            }
        } else if (e->kind == E_VAR && e->u.var->kind == VAR_SYM && D->n < 64) {
            D->var[D->n] = e->u.var;
            D->val[D->n] = shape[d];
            D->drawn[D->n] = NULL;
            D->from[D->n++] = p->name->str;
        }
    }
    return 0;
}

/* A given tensor (from a file or the caller) for parameter p, checked
 * against p's declared type; NULL after reporting. */
static Tensor *given_tensor(Exec *x, const Var *p, const Input *in)
{
    Tensor *t;
    if (in->kind == IN_FILE) {
        char err[512];
        if (!(t = tensor_read_npy(in->arg, err, sizeof err))) {
            fail(x, "--input %s: %s", p->name->str, err);
            return NULL;
        }
    } else if (!(t = tensor_clone(in->t))) {
        fail(x, "out of memory");
        return NULL;
    }
    DType dt;
    int nd;
    int64_t shape[TENSOR_MAX_RANK];
    int known = interp_param_shape(p, &dt, &nd, shape) == 0;
    if ((known && (t->ndim != nd || memcmp(t->shape, shape, (size_t)nd * sizeof *shape))) ||
        (p->sinfo && p->sinfo->kind == SI_TENSOR && p->sinfo->dtype != DT_VOID && t->dtype != p->sinfo->dtype)) {
        char have[160], want[160];
        type_str(have, sizeof have, dtype_name(t->dtype), t->ndim, t->shape);
        if (known)
            type_str(want, sizeof want, dtype_name(dt), nd, shape);
        else
            snprintf(want, sizeof want, "%s", dtype_name(p->sinfo->dtype));
        fail(x, "%s %s: the %s holds %s, but %s declares %s", what_of(in), p->name->str,
                 in->kind == IN_FILE ? "file" : "array", have, x->entry, want);
        tensor_free(t);
        return NULL;
    }
    return t;
}

/* Draws each symbolic variable of e that nothing has bound, for p. */
static void draw_vars(Dims *D, const Func *f, const Var *p, const Expr *e, uint64_t seed, int depth)
{
    int64_t v;
    if (!e || depth > 32)
        return;
    if (e->kind == E_VAR && e->u.var->kind == VAR_SYM && dims_value(e->u.var, D, &v)) {
        dims_bind(D, e->u.var, D->even ? interp_even_extent(f, e->u.var)
                                       : interp_draw_extent(f, e->u.var, e->u.var->name->str, seed), p, NULL);
        D->drew = 1;
    } else if (e->kind == E_BIN) {
        draw_vars(D, f, p, e->u.bin.a, seed, depth + 1);
        draw_vars(D, f, p, e->u.bin.b, seed, depth + 1);
    } else if (e->kind == E_UNARY || e->kind == E_CAST)
        draw_vars(D, f, p, e->kind == E_UNARY ? e->u.un.a : e->u.cast.a, seed, depth + 1);
}

/* The shape lopt makes p's input with when no input nor --shape gives it:
 * its declared shape, or (a type that gives only its rank) the shape of
 * p's R.match_cast, else one drawn from the seed. */
static const StructInfo *seed_shape_of(const Func *f, const Var *p, const Expr **cast)
{
    const StructInfo *s = p->sinfo;
    *cast = interp_param_cast(f, p);
    if (*cast && s->ndim >= 0 && (*cast)->u.call.args[1]->u.sinfo->ndim != s->ndim)
        *cast = NULL;
    return s->shape ? s : *cast ? (*cast)->u.call.args[1]->u.sinfo : NULL;
}

/* Binds the symbolic dimensions of p that nothing gave: first to what p's
 * R.match_cast requires of them (a constant where p's type names a
 * variable), then drawn from the seed (interp_draw_extent), so that every
 * input's shape is known before any is filled (an index's bound may be a
 * dimension of another). */
static void seed_fields(Exec *x, Dims *D, const Func *f, const Var *p, const StructInfo *s, int depth)
{
    for (int k = 0; s && s->kind == SI_TUPLE && k < s->nfields && depth < 16; k++) {
        const StructInfo *t = s->fields[k];
        for (int d = 0; t && t->kind == SI_TENSOR && t->shape && d < t->ndim; d++)
            draw_vars(D, f, p, t->shape[d], x->ctx->seed, 0);
        seed_fields(x, D, f, p, t, depth + 1);
    }
}

static void seed_dims(Exec *x, Dims *D, const Func *f, const Var *p)
{
    const StructInfo *s = p->sinfo;
    if (s && s->kind == SI_TUPLE)
        seed_fields(x, D, f, p, s, 0);
    if (!s || s->kind != SI_TENSOR || s->ndim > TENSOR_MAX_RANK)
        return;
    const Expr *cast;
    const StructInfo *from = seed_shape_of(f, p, &cast);
    int64_t v, k;
    for (int d = 0; cast && s->shape && d < s->ndim; d++) {
        const Expr *e = s->shape[d];
        if (e->kind == E_VAR && e->u.var->kind == VAR_SYM && dims_value(e->u.var, D, &v) &&
            expr_const_int(cast->u.call.args[1]->u.sinfo->shape[d], &k) == 0 && k >= 0)
            dims_bind(D, e->u.var, k, p, cast);
    }
    for (int d = 0; from && d < from->ndim; d++)
        draw_vars(D, f, p, from->shape[d], x->ctx->seed, 0);
}

/* The note that says what lopt chose for p's input: each dimension it
 * drew or took from a match_cast, and float32 for a type without a dtype. */
static void seed_note(Exec *x, const Dims *D, const Var *p, const Tensor *t, int unnamed, int dtype, int rank)
{
    if (x->quiet)
        return;
    char text[600], type[160] = "a tuple";
    size_t len = 0;
    /* the constants of the match_cast first, then what the seed drew */
    for (int cast = 1; cast >= 0; cast--) {
        size_t at = len;
        unsigned line = 0;
        for (int i = 0; i < D->n && len < sizeof text - 120; i++) {
            if (D->drawn[i] != p || !D->cast[i] != !cast)
                continue;
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s = %lld", len == at ? (at ? "; " : "") : ", ",
                                    D->var[i]->name->str, (long long)D->val[i]);
            line = D->cast[i] ? D->cast[i]->loc.line : 0;
        }
        if (len > at && len < sizeof text - 120)
            len += cast ? (size_t)snprintf(text + len, sizeof text - len, " as the R.match_cast at line %u requires", line)
                        : D->even ? (size_t)snprintf(text + len, sizeof text - len, " drawn equal (the seed's draws "
                                                     "do not run %s)", x->entry)
                                  : (size_t)snprintf(text + len, sizeof text - len, " drawn by the seed");
    }
    if (unnamed && len < sizeof text - 120)
        len += D->even ? (size_t)snprintf(text + len, sizeof text - len, "%sits type gives only the rank, every "
                                          "extent drawn equal (the seed's draws do not run %s)", len ? "; " : "",
                                          x->entry)
                       : (size_t)snprintf(text + len, sizeof text - len, "%sits type gives only the rank, the shape "
                                          "drawn by the seed", len ? "; " : "");
    if (rank && len < sizeof text - 120)
        len += (size_t)snprintf(text + len, sizeof text - len, "%sits type gives no rank: a scalar, which broadcasts "
                                "against any shape", len ? "; " : "");
    if (dtype && len < sizeof text - 120)
        len += (size_t)snprintf(text + len, sizeof text - len, "%sits type gives no dtype", len ? "; " : "");
    if (!len)
        return;
    if (t)
        type_str(type, sizeof type, dtype_name(t->dtype), t->ndim, t->shape);
    if (t)
        diag_note(x->src, p->loc, "'%s' is seeded as %s: %s (--shape %s=D,... gives the shape)", p->name->str, type,
                  text, p->name->str);
    else
        diag_note(x->src, p->loc, "'%s' is seeded as %s: %s", p->name->str, type, text);
}

/* The inputs of f: given, of the --shape given, else of the declared
 * shape, whose symbolic dimensions the given ones and --shape bind. */
static int make_inputs(Exec *x, Func *f)
{
    lopt_context *ctx = x->ctx;
    Dims D = { .n = 0, .even = x->even };
    x->inputs = xcalloc((size_t)f->nparams + 1, sizeof *x->inputs);
    if (!x->inputs)
        oom_fail();
    x->ninputs = f->nparams;   /* once the slots exist: exec_done frees them on a failure below */
    if (names_params(x, f, 0) || names_params(x, f, 1))
        return -1;
    /* the inputs given and the --shape options first: they bind the dimensions */
    for (int i = 0; i < f->nparams; i++) {
        const Var *p = f->params[i];
        const Input *in = input_for(ctx, 0, p->name->str), *given = input_for(ctx, 1, p->name->str);
        if (in && given)
            return fail(x, "--shape %s=%s: '%s' is read from a file with --input already", p->name->str,
                            given->arg, p->name->str);
        if (in) {
            Tensor *t = given_tensor(x, p, in);
            if (!t)
                return -1;
            x->inputs[i] = value_tensor(t);
            if (bind_shape(x, &D, p, what_of(in), t->ndim, t->shape))
                return -1;
        } else if (given) {
            int64_t shape[TENSOR_MAX_RANK];
            int nd = strcmp(given->arg, "") == 0 ? 0 : lopt_parse_ints(given->arg, shape, TENSOR_MAX_RANK, 0);
            if (nd < 0)
                return fail(x, "--shape %s=%s: expected up to %d extents separated by commas, as in 2,3,8,8",
                                p->name->str, given->arg, TENSOR_MAX_RANK);
            if (bind_shape(x, &D, p, "--shape", nd, shape))
                return -1;
        }
    }
    for (int i = 0; i < f->nparams; i++)
        if (!x->inputs[i] && !input_for(ctx, 1, f->params[i]->name->str))
            seed_dims(x, &D, f, f->params[i]);
    for (int i = 0; i < f->nparams; i++) {
        const Var *p = f->params[i];
        const StructInfo *s = p->sinfo;
        if (x->inputs[i])
            continue;
        if (s && s->kind == SI_TENSOR && s->ndim > TENSOR_MAX_RANK)
            return diag_error(x->src, p->loc, "cannot make an input for '%s': its rank %d is above the limit of %d",
                              p->name->str, s->ndim, TENSOR_MAX_RANK);
        if (s && s->kind == SI_PRIM && s->value && !dtype_is_float(s->dtype)) {
            /* R.Prim(value=n): n's value, from what the tensors' shapes bound */
            int64_t v;
            const Var *unbound = NULL;
            if (dim_of(&D, s->value, &v, &unbound))
                return diag_error(x->src, p->loc, "cannot make an input for '%s': its value %s is not bound by the "
                                  "other inputs' shapes", p->name->str, unbound ? unbound->name->str : "expression");
            if (!(x->inputs[i] = value_prim_int(s->dtype == DT_VOID ? DT_INT64 : s->dtype, v)))
                return diag_error(x->src, p->loc, "cannot make an input for '%s'", p->name->str);
            continue;
        }
        char why[320];
        if (s && s->kind == SI_TUPLE) {
            if (!(x->inputs[i] = interp_seed_tuple(f, i, ctx->seed, dims_value, &D, why, sizeof why)))
                return diag_error(x->src, p->loc, "cannot make an input for '%s': %s", p->name->str, why);
            seed_note(x, &D, p, NULL, 0, 0, 0);
            continue;
        }
        if (!s || s->kind != SI_TENSOR || s->ndim > TENSOR_MAX_RANK)
            return diag_error(x->src, p->loc, "cannot make an input for '%s': it needs a tensor type "
                              "(or give it with --input)", p->name->str);
        int64_t shape[TENSOR_MAX_RANK];
        const Input *given = input_for(ctx, 1, p->name->str);
        const Expr *cast;
        const StructInfo *from = seed_shape_of(f, p, &cast);
        /* a type of no rank and no R.match_cast: a scalar */
        int nd = from ? from->ndim : s->ndim < 0 ? 0 : s->ndim;
        if (given) {
            nd = strcmp(given->arg, "") == 0 ? 0 : lopt_parse_ints(given->arg, shape, TENSOR_MAX_RANK, 0);
        } else {
            for (int d = 0; d < nd; d++) {
                const Var *unbound = NULL;
                if (!from) {
                    char name[300];
                    snprintf(name, sizeof name, "%s.shape[%d]", p->name->str, d);
                    shape[d] = D.even ? interp_even_extent(f, NULL) : interp_draw_extent(f, NULL, name, ctx->seed);
                    D.drew = 1;
                } else if (dim_of(&D, from->shape[d], &shape[d], &unbound) || shape[d] < 0) {
                    if (unbound)
                        return diag_error(x->src, p->loc, "cannot make an input for '%s': its dimension %s is not "
                                          "bound; give --shape %s=D,D,... or --input %s=FILE.npy", p->name->str,
                                          unbound->name->str, p->name->str, p->name->str);
                    return diag_error(x->src, p->loc, "cannot make an input for '%s': dimension %d has no value",
                                      p->name->str, d);
                }
            }
        }
        Tensor *t = tensor_new(s->dtype == DT_VOID ? DT_FLOAT32 : s->dtype, nd, shape);
        if (!t)
            return x->ctx->mem.refused ? over_memory(x, p->loc)
                                       : diag_error(x->src, p->loc, "input '%s' is too large to make", p->name->str);
        seed_note(x, &D, p, t, !from && !given && nd > 0, s->dtype == DT_VOID, !from && !given && s->ndim < 0);
        interp_fill_param(f, i, t, ctx->seed, dims_value, &D);
        x->inputs[i] = value_tensor(t);
    }
    x->drew = D.drew;
    return 0;
}

static int run_entry(Exec *x, Module *m, Value **out);
static int run_failed(Exec *x, const InterpError *err);

static void free_inputs(Exec *x)
{
    for (int i = 0; i < x->ninputs; i++)
        value_free(x->inputs[i]);
    free(x->inputs);
    x->inputs = NULL;
    x->ninputs = 0;
}

/* A trial of f on inputs made as x->even says, saying nothing; 0 with
 * its outputs in *out when it runs. */
static int run_trial(Exec *x, Module *m, Func *f, Value **out)
{
    Source *src = x->src;
    FILE *o = src->out;
    void (*sink)(void *, const Diag *) = src->sink;
    int errors = src->errors;
    x->quiet = 1;
    src->out = NULL;
    src->sink = NULL;
    x->ran = 0;
    int r = make_inputs(x, f) || (x->ran = 1, run_entry(x, m, out)) ? -1 : 0;
    x->quiet = 0;
    src->out = o;
    src->sink = sink;
    src->errors = errors;
    free_inputs(x);
    return r;
}

/* The first run of f, which makes its inputs. When the extents the seed
 * draws (independently, each its own) do not run f, as where f needs two
 * of them equal (a convolution's channels, a kernel no larger than its
 * input, a broadcast) and nothing says so, every extent drawn is drawn as
 * one value (interp_even_extent) instead, when that runs f; the inputs'
 * notes say so. Otherwise f runs on the seed's draws, and its error is
 * said. */
static void trial_value_free(void *v)
{
    value_free(v);
}

static int run_drawn(Exec *x, Module *m, Func *f, Value **out)
{
    Value *v = NULL;
    int r = run_trial(x, m, f, &v);
    if (r && x->ran && (!x->drew || x->trial.limit || x->ctx->mem.refused)) {
        /* nothing to draw again, or a limit reached: the run's error is the
         * trial's (a run again would take as long, and a timeout is spent) */
        InterpError err = x->trial;
        return make_inputs(x, f) ? -1 : run_failed(x, &err);
    }
    if (r && x->drew) {
        x->even = 1;
        if ((r = run_trial(x, m, f, &v)))
            x->even = 0;
    }
    if (v)
        oom_defer(trial_value_free, v);   /* the trial's outputs go if the inputs cannot be made again */
    int bad = make_inputs(x, f);
    if (v)
        oom_keep(v);
    if (bad) {
        value_free(v);
        return -1;
    }
    if (!r) {
        *out = v;
        return 0;
    }
    return run_entry(x, m, out);
}

static int run_entry(Exec *x, Module *m, Value **out)
{
    Func *f = find_func(m, x->entry);
    if (!f) {
        /* name what there is to run, as --entry takes it */
        char names[512];
        size_t len = 0;
        int shown = 0;
        names[0] = 0;
        for (int i = 0; i < m->nfuncs && len < sizeof names; i++) {
            if (m->funcs[i]->is_local)
                continue;
            if (shown == 8) {
                len += (size_t)snprintf(names + len, sizeof names - len, ", ...");
                break;
            }
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", shown++ ? ", " : "", m->funcs[i]->name->str);
        }
        if (!shown)
            return fail(x, "the module has no function '%s' to run: it holds no function", x->entry);
        return fail(x, "the module has no function '%s' to run; it has %s: name one with --entry=F", x->entry, names);
    }
    if (f->kind == F_PRIM && x->ctx->ninputs)
        return fail(x, "'%s' is a PrimFunc, which runs on seeded buffers: inputs and --shape go with a Relax function",
                    x->entry);
    if (x->memo)
        memo_new_run(x->memo);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (f->kind == F_RELAX && !x->inputs && !x->quiet)
        return run_drawn(x, m, f, out);
    if (f->kind == F_RELAX && !x->inputs && make_inputs(x, f))
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    x->ctx->input_seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    Interp *in = interp_new(m);
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the interpreter's arenas and plans go before unwinding on */
        interp_free(in);
        oom_fail();
    }
    interp_set_max_steps(in, x->ctx->max_steps);
    interp_set_stop(in, api_stop_flag(x->ctx), x->ctx->timeout);
    interp_set_threads(in, x->ctx->threads);
    interp_set_batches(in, x->ctx->batch);
    interp_set_memo(in, x->memo);
    InterpError err = { { 0, 0 }, "", 0 };
    int r = f->kind == F_PRIM ? interp_run_prim_seeded(in, f, x->ctx->seed, out, &err)
                              : interp_call_relax(in, f, x->inputs, x->ninputs, out, &err);
    x->ctx->par_loops += interp_par_loops(in);
    oom_leave(&guard);
    interp_free(in);
    if (r && x->quiet)
        x->trial = err;
    if (r && !x->quiet)
        return run_failed(x, &err);
    return r;
}

/* Says the error a run ended with; -1. */
static int run_failed(Exec *x, const InterpError *err)
{
    if (x->ctx->mem.refused)
        return over_memory(x, err->loc);
    if (err->loc.line)
        diag_error(x->src, err->loc, "%s", err->msg);
    else
        fail(x, "%s", err->msg);
    if (err->limit)
        api_mark_limit(x->ctx);
    return -1;
}

static void exec_done(Exec *x)
{
    if (x->memo) {
        int64_t hits, misses;
        memo_counts(x->memo, &hits, &misses);
        x->ctx->replayed += hits;
        x->ctx->executed += misses;
        memo_free(x->memo);
    }
    for (int i = 0; x->inputs && i < x->ninputs; i++)
        value_free(x->inputs[i]);
    free(x->inputs);
    value_free(x->reference);
    x->memo = NULL;
    x->inputs = NULL;
    x->ninputs = 0;
    x->reference = NULL;
}

/* ---- values ---- */

static lopt_value *wrap(lopt_value *w, Value *v)
{
    w->v = v;
    w->items = NULL;
    if (v->kind == VAL_TUPLE && v->n) {
        if (!(w->items = xcalloc((size_t)v->n, sizeof *w->items)))
            oom_fail();
        for (int i = 0; i < v->n; i++)
            wrap(&w->items[i], v->items[i]);
    }
    return w;
}

static void unwrap(lopt_value *w)
{
    if (w->items)
        for (int i = 0; i < w->v->n; i++)
            unwrap(&w->items[i]);
    free(w->items);
}

static int lopt_run_body(lopt_context *ctx, lopt_module *mod, const char *entry, lopt_value **out)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, out, -1);
    *out = NULL;
    API_NEED(ctx, mod, -1);
    API_LIVE(ctx, mod, -1);
    api_bind(ctx, &mod->src);
    Exec x = { .ctx = ctx, .src = &mod->src, .entry = entry ? entry : "main" };
    Value *v = NULL;
    if (api_call_begin(ctx))
        return -1;
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the inputs and the cache go before unwinding on */
        exec_done(&x);
        oom_fail();
    }
    int r = run_entry(&x, mod->m, &v);
    oom_leave(&guard);
    exec_done(&x);
    api_call_end(ctx);
    *out = NULL;
    if (r)
        return -1;
    lopt_value *w = xmalloc(sizeof *w);
    if (!w)
        oom_fail();
    wrap(w, v)->owned = 1;
    *out = w;
    return 0;
}

int lopt_run(lopt_context *ctx, lopt_module *mod, const char *entry, lopt_value **out)
{
    API_PROTECTED(ctx, int, -1, lopt_run_body(ctx, mod, entry, out));
}

void lopt_value_free(lopt_value *w)
{
    if (!w)
        return;
    Value *v = w->v;
    unwrap(w);
    value_free(v);
    free(w);
}

lopt_value_kind lopt_value_kind_of(const lopt_value *w)
{
    if (!w)
        return (lopt_value_kind)-1;
    switch (w->v->kind) {
    case VAL_TUPLE: return LOPT_VALUE_TUPLE;
    case VAL_SHAPE: return LOPT_VALUE_SHAPE;
    case VAL_PRIM: return LOPT_VALUE_PRIM;
    default: return LOPT_VALUE_TENSOR;
    }
}

int lopt_value_tuple_size(const lopt_value *w)
{
    return w && w->v->kind == VAL_TUPLE ? w->v->n : 0;
}

static const lopt_value *lopt_value_tuple_item_body(const lopt_value *w, int i)
{
    return w && w->v->kind == VAL_TUPLE && i >= 0 && i < w->v->n ? &w->items[i] : NULL;
}

const lopt_value *lopt_value_tuple_item(const lopt_value *w, int i)
{
    API_PROTECTED((lopt_context *)NULL, const lopt_value *, NULL, lopt_value_tuple_item_body(w, i));
}

static int lopt_value_tensor_body(const lopt_value *w, lopt_tensor *t)
{
    if (!w || !t)
        return -1;
    const Tensor *x = w->v->kind == VAL_TUPLE ? NULL : w->v->t;
    if (!x)
        return -1;
    t->dtype = dtype_name(x->dtype);
    t->ndim = x->ndim;
    t->shape = x->shape;
    t->data = x->data;
    t->nbytes = (size_t)x->count * (size_t)dtype_size(x->dtype);
    return 0;
}

int lopt_value_tensor(const lopt_value *w, lopt_tensor *t)
{
    API_PROTECTED((lopt_context *)NULL, int, -1, lopt_value_tensor_body(w, t));
}

/* The tensors of a result, flattened, named output, output0, output1, ...
 * (a shape as the int64 tensor of its dimensions); the values they are of
 * go to leaves when it is not NULL. */
static int flatten_leaves(Value *v, Tensor **ts, const Value **leaves, int n, int cap)
{
    if (v->kind != VAL_TUPLE) {
        if (n < cap) {
            ts[n] = v->t;
            if (leaves)
                leaves[n] = v;
        }
        return n + 1;
    }
    for (int i = 0; i < v->n; i++)
        n = flatten_leaves(v->items[i], ts, leaves, n, cap);
    return n;
}

/* The tensors of v in order, as many as it has (malloc'd; NULL when out of
 * memory), their count in *n; with leaves, the values they are of (malloc'd
 * too). */
static Tensor **flat_tensors(Value *v, int *n, const Value ***leaves)
{
    *n = flatten_leaves(v, NULL, NULL, 0, 0);
    Tensor **ts = xmalloc(((size_t)*n + 1) * sizeof *ts);
    const Value **ls = leaves ? xmalloc(((size_t)*n + 1) * sizeof *ls) : NULL;
    if (!ts || (leaves && !ls)) {
        free(ts);
        free(ls);
        return NULL;
    }
    flatten_leaves(v, ts, ls, 0, *n);
    if (leaves)
        *leaves = ls;
    return ts;
}

/* A tensor result is output; the tensors of a tuple result, even of one,
 * are output0, output1, ... */
static void output_name(char *buf, size_t cap, int i, const Value *v)
{
    if (v->kind != VAL_TUPLE)
        snprintf(buf, cap, "output");
    else
        snprintf(buf, cap, "output%d", i);
}

/* mkdir -p: dir and the directories above it that do not exist. */
static int make_dirs(const char *dir)
{
    char path[4096];
    if (!dir[0]) {
        errno = ENOENT;
        return -1;
    }
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static int lopt_value_report_body(lopt_context *ctx, const lopt_value *w, FILE *f, const char *dir)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, w, -1);
    API_NEED(ctx, f, -1);
    Value *v = w->v;
    if (dir && make_dirs(dir))
        return api_fail(ctx, "cannot create the directory '%s': %s", dir, strerror(errno));
    int n;
    const Value **leaves;
    Tensor **ts = flat_tensors(v, &n, &leaves);
    if (!ts)
        return api_fail(ctx, "out of memory");
    for (int i = 0; i < n; i++) {
        char name[32];
        output_name(name, sizeof name, i, v);
        const Value *l = leaves[i];
        char text[512];
        if ((l->kind == VAL_SHAPE || l->kind == VAL_PRIM)) {
            if (l->kind == VAL_SHAPE)
                value_shape_text(l, text, sizeof text);
            else
                value_prim_text(l, text, sizeof text);
            if (f)
                fprintf(f, "%s: %s\n", name, text);
        } else if (f) {
            tensor_summary(f, name, ts[i]);
        }
        if (dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.npy", dir, name);
            if (tensor_write_npy(ts[i], path)) {
                api_fail(ctx, "cannot write '%s': %s", path,
                         ts[i]->dtype == DT_BFLOAT16 ? "NumPy has no bfloat16" : strerror(errno));
                free(ts);
                free(leaves);
                return -1;
            }
        }
    }
    free(ts);
    free(leaves);
    return 0;
}

int lopt_value_report(lopt_context *ctx, const lopt_value *w, FILE *f, const char *dir)
{
    API_PROTECTED(ctx, int, -1, lopt_value_report_body(ctx, w, f, dir));
}

/* ---- --verify-exec ---- */

/* After each pass, main's outputs must equal the reference. */
static int check_exec(Module *m, const char *pass, void *data)
{
    Exec *x = data;
    Value *volatile now = NULL;
    Tensor **volatile a = NULL, **volatile b = NULL;
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* this run's outputs go before unwinding on */
        free(a);
        free(b);
        value_free(now);
        oom_fail();
    }
    Value *got = NULL;
    int ran = run_entry(x, m, &got);
    now = got;
    if (ran) {
        oom_leave(&guard);
        return fail(x, "%s no longer runs after pass '%s'", x->entry, pass);
    }
    int na, nb;
    a = flat_tensors(x->reference, &na, NULL);
    b = flat_tensors(now, &nb, NULL);
    int status = 0, inexact = 0;
    if (!a || !b)
        status = fail(x, "out of memory");
    else if (na != nb)
        status = fail(x, "pass '%s' changed the number of outputs of %s from %d to %d", pass, x->entry, na, nb);
    for (int i = 0; i < na && !status; i++) {
        int64_t at = 0;
        char name[32], idx[256];
        output_name(name, sizeof name, i, x->reference);
        int r = tensor_compare(a[i], b[i], 0, &at);
        if (r == 1 && x->ctx->ulp > 0 && tensor_compare(a[i], b[i], x->ctx->ulp, &at) == 0) {
            r = 0;
            x->inexact = inexact = 1;
        }
        if (r == 2) {
            status = fail(x, "pass '%s' changed the shape or dtype of %s", pass, name);
        } else if (r == 1) {
            tensor_index_text(a[i], at, idx, sizeof idx);
            status = fail(x, "pass '%s' changed %s%s: %.9g before, %.9g after%s", pass, name, idx,
                              tensor_getf(a[i], at), tensor_getf(b[i], at),
                              tensor_is_poison(b[i], at) ? " (undefined padding)" : "");
        }
    }
    oom_leave(&guard);
    free(a);
    free(b);
    value_free(now);
    if (!status) {
        x->checked++;
        x->outputs = na;
        if (x->note && inexact)
            snprintf(x->note, x->note_cap, "%d output%s, within %lld ULP", na, na == 1 ? "" : "s",
                     (long long)x->ctx->ulp);
        else if (x->note)
            snprintf(x->note, x->note_cap, "%d output%s, bit-exact", na, na == 1 ? "" : "s");
    }
    return status;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* --verify-exec's last word on success: what was compared, how, and how long it took. */
static void exec_summary(const Exec *x, FILE *f, double t0)
{
    char how[64];
    if (x->inexact)
        snprintf(how, sizeof how, "within %lld ULP", (long long)x->ctx->ulp);
    else
        snprintf(how, sizeof how, "bit-exact");
    fprintf(f, "lopt: verify-exec: %d pass%s checked, %d output%s compared after each, %s, in %.3f s\n",
            x->checked, x->checked == 1 ? "" : "es", x->outputs, x->outputs == 1 ? "" : "s", how, seconds() - t0);
}

int api_apply_checked(lopt_context *ctx, lopt_module *mod, PassCtx *pc, lopt_pipeline *p,
                      int (*finish)(lopt_context *ctx, PassCtx *pc))
{
    Exec x = { .ctx = ctx, .src = &mod->src, .entry = ctx->entry ? ctx->entry : "main", .note = pc->after_note,
               .note_cap = sizeof pc->after_note };
    double t0 = seconds();
    pc->after_pass = check_exec;
    pc->after_data = &x;
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the reference outputs, the inputs and the cache go before unwinding on */
        exec_done(&x);
        oom_fail();
    }
    if (ctx->exec_cache)
        x.memo = memo_new(EXEC_CACHE_BYTES);
    int r = -1;
    if (!run_entry(&x, mod->m, &x.reference)) {
        r = pipeline_run(&p->p, mod->m, pc) ? -1 : 0;
        x.note = NULL;
        r = finish(ctx, pc) || r ? -1 : 0;
    }
    if (!r) {
        Tensor *ts[1];
        x.outputs = flatten_leaves(x.reference, ts, NULL, 0, 1);
        exec_summary(&x, pc->dump, t0);
    }
    oom_leave(&guard);
    exec_done(&x);
    return r;
}
