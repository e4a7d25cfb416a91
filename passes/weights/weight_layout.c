/* weight-layout: a weight layout found while scheduling a PrimFunc (seed
 * 004). Schedule steps on a parameter buffer (split an axis by a factor,
 * padding it up; reorder the axes; fuse two adjacent axes) rewrite the
 * buffer's shape and every access through their composed index map; each
 * step also has its exact graph-level equivalent (R.nn.pad and R.reshape,
 * R.permute_dims, R.reshape) and its reverse (R.reshape and
 * R.strided_slice, R.permute_dims), and the simplified forward chain goes
 * before every call, where fold turns it into the constant weight in its new
 * layout. The index-map algebra checks that the chain, the composed map and
 * the reverse chain agree (by normal forms, or on every point of a small
 * weight). Only free weights (constants and function
 * parameters) are rewritten. keep-body=1 leaves the PrimFunc and calls it
 * through a Relax function that applies the reverse chain. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../../printer/print.h"
#include "../graph.h"
#include "../../ir/oom.h"

/* A weight padded by the steps may grow at most MAX_GROWTH times: what a
 * schedule tiles is not mostly padding. */
enum { MAX_STEPS = 16, MAX_LINKS = 3 * MAX_STEPS, MAX_FACTOR = 1 << 30, MAX_GROWTH = 16 };

typedef enum { ST_SPLIT, ST_REORDER, ST_FUSE } StepKind;

typedef struct Step {
    StepKind kind;
    int axis;
    int64_t factor;
    double pad;           /* split: the value of the padding */
    int perm[OP_MAX_RANK];
    int nperm;
} Step;

typedef struct Steps {
    Step v[MAX_STEPS];
    int n;
    int keep_body;
    int one_transform;    /* form=layout-transform: one R.layout_transform, not the chain */
} Steps;

/* ---- reading the steps: options and the weight_layout attribute ---- */

static const char *step_names[] = { "split", "reorder", "fuse" };

/* Numbers separated by ':' in s (at most max) into v, INT64_MIN for one that
 * is not an integer, the last also into *last; returns how many, or -1. */
static int colon_ints(const char *s, int64_t *v, int max, double *last)
{
    int n = 0;
    for (const char *p = s;;) {
        char *end;
        if (n == max)
            return -1;
        double d = strtod(p, &end);
        if (end == p || d != d)
            return -1;
        v[n++] = (double)(int64_t)d == d && d > -1e15 && d < 1e15 ? (int64_t)d : INT64_MIN;
        *last = d;
        if (!*end)
            return n;
        if (*end != ':')
            return -1;
        p = end + 1;
    }
}

/* One step from its numbers (the pad value of a split may be fractional). */
static int step_make(StepKind k, const int64_t *v, int n, double last, Step *st, char *err, size_t cap)
{
    memset(st, 0, sizeof *st);
    st->kind = k;
    for (int i = 0; i < n; i++)
        if (v[i] == INT64_MIN && !(k == ST_SPLIT && i == 2))
            return snprintf(err, cap, "the numbers must be integers"), -1;
    switch (k) {
    case ST_SPLIT:
        if (n < 2 || n > 3)
            return snprintf(err, cap, "AXIS:FACTOR or AXIS:FACTOR:PADVALUE is expected"), -1;
        if (v[1] < 1 || v[1] > MAX_FACTOR)
            return snprintf(err, cap, "the factor must be between 1 and %d", MAX_FACTOR), -1;
        st->axis = (int)(v[0] < 0 || v[0] > OP_MAX_RANK ? -1 : v[0]);
        st->factor = v[1];
        st->pad = n == 3 ? last : 0;
        break;
    case ST_REORDER:
        if (n < 1 || n > OP_MAX_RANK)
            return snprintf(err, cap, "a permutation of at most %d axes, P0:P1:..., is expected", OP_MAX_RANK), -1;
        st->nperm = n;
        for (int i = 0; i < n; i++) {
            st->perm[i] = (int)(v[i] < 0 || v[i] >= n ? -1 : v[i]);
            for (int j = 0; j < i; j++)
                if (st->perm[j] == st->perm[i])
                    st->perm[i] = -1;
            if (st->perm[i] < 0)
                return snprintf(err, cap, "not a permutation of 0..%d", n - 1),
                       -1;
        }
        break;
    case ST_FUSE:
        if (n != 1)
            return snprintf(err, cap, "one AXIS (fused with the next) is expected"), -1;
        st->axis = (int)(v[0] < 0 || v[0] > OP_MAX_RANK ? -1 : v[0]);
        break;
    }
    if (st->axis < 0)
        return snprintf(err, cap, "axis %lld is out of range", (long long)v[0]), -1;
    return 0;
}

static int step_kind(const char *s, StepKind *k)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, step_names[i]) == 0)
            return *k = (StepKind)i, 0;
    return -1;
}

/* The options of one pipeline step; func and buffer (when given) go to *func, *buf. */
static int steps_from_opts(const PassOpt *opts, int nopts, Steps *S, const char **func, const char **buf, char *err,
                           size_t cap)
{
    memset(S, 0, sizeof *S);
    *func = *buf = NULL;
    for (int i = 0; i < nopts; i++) {
        const char *k = opts[i].key, *v = opts[i].val;
        StepKind sk;
        if (strcmp(k, "func") == 0) {
            *func = v;
        } else if (strcmp(k, "buffer") == 0) {
            *buf = v;
        } else if (strcmp(k, "keep-body") == 0) {
            if (strcmp(v, "0") && strcmp(v, "1"))
                return snprintf(err, cap, "weight-layout: keep-body is 0 or 1, not '%s'", v), -1;
            S->keep_body = v[0] == '1';
        } else if (strcmp(k, "form") == 0) {
            if (strcmp(v, "chain") && strcmp(v, "layout-transform"))
                return snprintf(err, cap, "weight-layout: form is chain or layout-transform, not '%s'", v), -1;
            S->one_transform = v[0] == 'l';
        } else if (step_kind(k, &sk) == 0) {
            int64_t nums[OP_MAX_RANK + 1];
            double last;
            int n = colon_ints(v, nums, OP_MAX_RANK + 1, &last);
            char why[160];
            if (S->n == MAX_STEPS)
                return snprintf(err, cap, "weight-layout: at most %d steps", MAX_STEPS), -1;
            if (n < 0)
                return snprintf(err, cap, "weight-layout: %s=%s: expected numbers joined by ':'", k, v), -1;
            if (step_make(sk, nums, n, last, &S->v[S->n], why, sizeof why))
                return snprintf(err, cap, "weight-layout: %s=%s: %s", k, v, why), -1;
            S->n++;
        }
    }
    if (!*func != !*buf)
        return snprintf(err, cap, "weight-layout: func and buffer go together"), -1;
    if (*func && S->n == 0)
        return snprintf(err, cap, "weight-layout: func=%s has no steps (split, reorder, fuse)", *func), -1;
    if (!*func && S->n)
        return snprintf(err, cap, "weight-layout: steps need func=F,buffer=W"), -1;
    return 0;
}

int pass_weight_layout_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    Steps S;
    const char *f, *b;
    return steps_from_opts(opts, nopts, &S, &f, &b, err, cap);
}

/* ["split", 0, 4], ["split", 2, 4, 0], ["reorder", 0, 2, 1, 3], ["fuse", 0] */
static int steps_from_attr(Source *src, const Expr *list, Steps *S)
{
    memset(S, 0, sizeof *S);
    if (list->kind != E_LIST && list->kind != E_TUPLE)
        return diag_error(src, list->loc, "weight_layout: the steps of a buffer are a list of [\"split\", AXIS, "
                          "FACTOR(, PADVALUE)], [\"reorder\", P0, P1, ...] and [\"fuse\", AXIS]");
    for (int i = 0; i < list->u.list.n; i++) {
        const Expr *s = list->u.list.items[i];
        StepKind k;
        char name[16] = "";
        if ((s->kind == E_LIST || s->kind == E_TUPLE) && s->u.list.n > 0 && s->u.list.items[0]->kind == E_STR)
            snprintf(name, sizeof name, "%.*s", s->u.list.items[0]->u.str.len, s->u.list.items[0]->u.str.s);
        if (!name[0] || step_kind(name, &k))
            return diag_error(src, s->loc, "weight_layout: a step is [\"split\", ...], [\"reorder\", ...] or "
                              "[\"fuse\", ...]");
        if (S->n == MAX_STEPS)
            return diag_error(src, s->loc, "weight_layout: at most %d steps", MAX_STEPS);
        int64_t nums[OP_MAX_RANK + 1];
        double last = 0;
        int n = s->u.list.n - 1;
        if (n > OP_MAX_RANK + 1)
            return diag_error(src, s->loc, "weight_layout: too many numbers in a step");
        for (int j = 0; j < n; j++) {
            double d;
            if (const_number(s->u.list.items[j + 1], &d) != 1)
                return diag_error(src, s->u.list.items[j + 1]->loc, "weight_layout: expected a number");
            nums[j] = (double)(int64_t)d == d && d > -1e15 && d < 1e15 ? (int64_t)d : INT64_MIN;
            last = d;
        }
        char why[160];
        if (step_make(k, nums, n, last, &S->v[S->n], why, sizeof why))
            return diag_error(src, s->loc, "weight_layout: %s: %s", name, why);
        S->n++;
    }
    if (S->n == 0)
        return diag_error(src, list->loc, "weight_layout: no steps");
    return 0;
}

/* ---- shapes and maps ---- */

/* The shape after each step: shapes[k] before step k, shapes[n] the result.
 * Returns 0, or -1 with why filled. */
static int step_shapes(const Steps *S, const int64_t *in, int nd, int64_t sh[][OP_MAX_RANK], int *nds, char *why,
                       size_t cap)
{
    memcpy(sh[0], in, (size_t)nd * sizeof *in);
    nds[0] = nd;
    for (int k = 0; k < S->n; k++) {
        const Step *st = &S->v[k];
        const int64_t *a = sh[k];
        int64_t *b = sh[k + 1];
        int n = nds[k], m = 0;
        switch (st->kind) {
        case ST_SPLIT:
            if (st->axis >= n || n + 1 > OP_MAX_RANK)
                return snprintf(why, cap, "step %d (split of axis %d): %s", k + 1, st->axis,
                                st->axis >= n ? "the buffer has fewer axes at that point" : "too many axes"), -1;
            if (st->factor > a[st->axis] && st->factor > MAX_GROWTH)
                return snprintf(why, cap, "step %d (split of axis %d by %lld): the factor is larger than the axis (%lld) "
                                "and than %d", k + 1, st->axis, (long long)st->factor, (long long)a[st->axis],
                                MAX_GROWTH), -1;
            for (int i = 0; i < n; i++) {
                if (i == st->axis) {
                    b[m++] = (a[i] + st->factor - 1) / st->factor;
                    b[m++] = st->factor;
                } else {
                    b[m++] = a[i];
                }
            }
            break;
        case ST_REORDER:
            if (st->nperm != n)
                return snprintf(why, cap, "step %d (reorder): the permutation has %d axes, the buffer %d at that point",
                                k + 1, st->nperm, n), -1;
            for (int i = 0; i < n; i++)
                b[m++] = a[st->perm[i]];
            break;
        case ST_FUSE:
            if (st->axis + 1 >= n)
                return snprintf(why, cap, "step %d (fuse of axes %d and %d): the buffer has %d axes at that point",
                                k + 1, st->axis, st->axis + 1, n), -1;
            for (int i = 0; i < n; i++) {
                if (i == st->axis)
                    b[m++] = a[i] * a[i + 1], i++;
                else
                    b[m++] = a[i];
            }
            break;
        }
        nds[k + 1] = m;
        int64_t vol = 1, vol0 = 1;
        for (int i = 0; i < nd; i++)
            vol0 *= in[i];
        for (int i = 0; i < m; i++)
            if (__builtin_mul_overflow(vol, b[i], &vol) || vol > ((int64_t)1 << 40))
                return snprintf(why, cap, "step %d: the buffer grows beyond 2^40 elements", k + 1), -1;
        if (vol > MAX_GROWTH * vol0)
            return snprintf(why, cap, "step %d: the padding makes the buffer more than %d times larger", k + 1,
                            MAX_GROWTH), -1;
    }
    return 0;
}

/* A map over nin fresh inputs, its outputs for the caller to fill. */
static Expr *map_new(Module *m, int nin, int nout, Expr **vars)
{
    Arena *a = &m->arena;
    Loc none = { 0, 0 };
    Expr *e = expr_new(a, E_INDEXMAP, none);
    e->u.map.nparams = nin;
    e->u.map.params = arena_array(a, (size_t)nin + 1, sizeof(Var *));
    for (int i = 0; i < nin; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "i%d", i);
        e->u.map.params[i] = var_new(a, intern_cstr(&m->names, buf), VAR_TIR, none);
        e->u.map.params[i]->dtype = DT_INT64;
        vars[i] = var_ref(a, e->u.map.params[i], none);
    }
    e->u.map.nout = nout;
    e->u.map.out = arena_array(a, (size_t)nout + 1, sizeof(Expr *));
    return e;
}

static Expr *binop(Arena *a, BinOp op, Expr *l, int64_t r)
{
    Loc none = { 0, 0 };
    Expr *e = expr_new(a, E_BIN, none);
    e->u.bin.op = op;
    e->u.bin.a = l;
    e->u.bin.b = expr_int(a, r, DT_VOID, none);
    return e;
}

/* The map of one step over shape sh (nd axes), as the schedule states it:
 * a split is x // f, x % f; a fuse x * n + y. */
static Expr *step_map(Module *m, const Step *st, const int64_t *sh, int nd)
{
    Arena *a = &m->arena;
    Expr *v[OP_MAX_RANK];
    int nout = st->kind == ST_SPLIT ? nd + 1 : st->kind == ST_FUSE ? nd - 1 : nd;
    Expr *e = map_new(m, nd, nout, v);
    int q = 0;
    for (int i = 0; i < nd; i++) {
        if (st->kind == ST_REORDER) {
            e->u.map.out[q++] = v[st->perm[i]];
        } else if (i != st->axis) {
            e->u.map.out[q++] = v[i];
        } else if (st->kind == ST_SPLIT) {
            e->u.map.out[q++] = binop(a, B_FLOORDIV, v[i], st->factor);
            e->u.map.out[q++] = binop(a, B_FLOORMOD, v[i], st->factor);
        } else {
            Loc none = { 0, 0 };
            Expr *s = expr_new(a, E_BIN, none);
            s->u.bin.op = B_ADD;
            s->u.bin.a = binop(a, B_MUL, v[i], sh[i + 1]);
            s->u.bin.b = v[i + 1];
            e->u.map.out[q++] = s;
            i++;
        }
    }
    return e;
}

/* Reads map over box and gives it the output box obox, which holds the
 * image (a padded split's box is larger than its image) unless the map
 * crops (a slice keeps part of its operand). */
static IndexMap *read_map(Arena *a, const Expr *map, const int64_t *box, const int64_t *obox, int nout, int crops)
{
    ImError err;
    IndexMap *im = im_from_expr(a, map, box, &err);
    if (!im || im->nout != nout)
        return NULL;
    for (int k = 0; k < nout; k++) {
        if (im->obox[k] > obox[k] && !crops)
            return NULL;
        im->obox[k] = obox[k];
    }
    return im;
}

/* ---- the graph-level chain ---- */

typedef enum { L_RESHAPE, L_PAD, L_PERMUTE, L_SLICE } LinkKind;

typedef struct Link {
    LinkKind kind;
    int nd;
    int64_t shape[OP_MAX_RANK];  /* the result's */
    int axes[OP_MAX_RANK];       /* permute */
    int axis;                    /* pad, slice */
    double value;                /* pad */
} Link;

typedef struct Chain {
    int nin;
    int64_t in[OP_MAX_RANK];
    Link v[MAX_LINKS];
    int n;
} Chain;

static void link_push(Chain *c, Link l)
{
    c->v[c->n++] = l;
}

static const int64_t *link_input(const Chain *c, int i, int *nd)
{
    *nd = i ? c->v[i - 1].nd : c->nin;
    return i ? c->v[i - 1].shape : c->in;
}

static Link shaped(LinkKind k, const int64_t *sh, int nd)
{
    Link l;
    memset(&l, 0, sizeof l);
    l.kind = k;
    l.nd = nd;
    memcpy(l.shape, sh, (size_t)nd * sizeof *sh);
    return l;
}

/* Step by step, as seed 004 lists them: a split is R.reshape (after
 * R.nn.pad of the axis when the factor does not divide it), a reorder
 * R.permute_dims, a fuse R.reshape. */
static void forward_chain(const Steps *S, int64_t sh[][OP_MAX_RANK], const int *nds, Chain *c)
{
    c->nin = nds[0];
    memcpy(c->in, sh[0], (size_t)nds[0] * sizeof sh[0][0]);
    c->n = 0;
    for (int k = 0; k < S->n; k++) {
        const Step *st = &S->v[k];
        if (st->kind == ST_SPLIT && sh[k][st->axis] % st->factor) {
            Link p = shaped(L_PAD, sh[k], nds[k]);
            p.axis = st->axis;
            p.shape[st->axis] = sh[k + 1][st->axis] * st->factor;
            p.value = st->pad;
            link_push(c, p);
        }
        Link l = shaped(st->kind == ST_REORDER ? L_PERMUTE : L_RESHAPE, sh[k + 1], nds[k + 1]);
        if (st->kind == ST_REORDER)
            memcpy(l.axes, st->perm, sizeof l.axes);
        link_push(c, l);
    }
}

/* The reverse, last step first: a reorder's inverse permutation; a split's
 * R.reshape back (and R.strided_slice of the padding away); a fuse's R.reshape. */
static void reverse_chain(const Steps *S, int64_t sh[][OP_MAX_RANK], const int *nds, Chain *c)
{
    c->nin = nds[S->n];
    memcpy(c->in, sh[S->n], (size_t)nds[S->n] * sizeof sh[0][0]);
    c->n = 0;
    for (int k = S->n - 1; k >= 0; k--) {
        const Step *st = &S->v[k];
        if (st->kind == ST_REORDER) {
            Link l = shaped(L_PERMUTE, sh[k], nds[k]);
            for (int i = 0; i < st->nperm; i++)
                l.axes[st->perm[i]] = i;
            link_push(c, l);
            continue;
        }
        Link l = shaped(L_RESHAPE, sh[k], nds[k]);
        int padded = st->kind == ST_SPLIT && sh[k][st->axis] % st->factor;
        if (padded)
            l.shape[st->axis] = sh[k + 1][st->axis] * st->factor;
        link_push(c, l);
        if (padded) {
            Link s = shaped(L_SLICE, sh[k], nds[k]);
            s.axis = st->axis;
            link_push(c, s);
        }
    }
}

/* Consecutive reshapes merge, a permutation of a permutation composes, and
 * what leaves its operand as it was goes. */
static void simplify(Chain *c)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < c->n; i++) {
            Link *l = &c->v[i];
            int nd;
            const int64_t *in = link_input(c, i, &nd);
            int same = nd == l->nd && memcmp(in, l->shape, (size_t)nd * sizeof *in) == 0;
            int drop = -1;
            if (l->kind == L_RESHAPE && same)
                drop = i;
            if (l->kind == L_PERMUTE) {
                int id = 1;
                for (int d = 0; d < l->nd; d++)
                    id &= l->axes[d] == d;
                if (id)
                    drop = i;
            }
            if (drop < 0 && i + 1 < c->n && l->kind == c->v[i + 1].kind &&
                (l->kind == L_RESHAPE || l->kind == L_PERMUTE)) {
                Link *n = &c->v[i + 1];
                if (l->kind == L_PERMUTE) {
                    int ax[OP_MAX_RANK];
                    for (int d = 0; d < n->nd; d++)
                        ax[d] = l->axes[n->axes[d]];
                    memcpy(n->axes, ax, sizeof ax);
                }
                drop = i;
            }
            if (drop >= 0) {
                memmove(&c->v[drop], &c->v[drop + 1], (size_t)(c->n - drop - 1) * sizeof *c->v);
                c->n--;
                changed = 1;
                break;
            }
        }
    }
}

/* The map of a link over its operand's shape. */
static Expr *link_map(Module *m, const Chain *c, int i)
{
    const Link *l = &c->v[i];
    int nd;
    const int64_t *in = link_input(c, i, &nd);
    if (l->kind == L_RESHAPE)
        return im_reshape_map(&m->arena, &m->names, in, nd, l->shape, l->nd);
    Expr *v[OP_MAX_RANK];
    Expr *e = map_new(m, nd, l->nd, v);
    for (int d = 0; d < l->nd; d++)
        e->u.map.out[d] = v[l->kind == L_PERMUTE ? l->axes[d] : d];
    return e;
}

/* The chain's composed map, link by link (NULL when a link does not read). */
static IndexMap *chain_map(Module *m, Arena *a, const Chain *c)
{
    IndexMap *acc = NULL;
    for (int i = 0; i < c->n; i++) {
        int nd;
        const int64_t *in = link_input(c, i, &nd);
        Expr *e = link_map(m, c, i);
        IndexMap *im = e ? read_map(a, e, in, c->v[i].shape, c->v[i].nd, c->v[i].kind == L_SLICE) : NULL;
        if (!im)
            return NULL;
        acc = acc ? im_compose(a, im, acc) : im;
        if (!acc)
            return NULL;
    }
    return acc;
}

/* ---- applying: the PrimFunc ---- */

typedef struct Apply {
    Module *m;
    Buffer *buf;
    Expr *map;            /* the composed map, normal form */
    int nd;               /* the new rank */
    const int64_t *shape; /* the new shape */
    int stores;           /* stores to buf, regions writing it */
    PtrMap done;          /* the loads rewritten already (a node shared by two places goes once) */
} Apply;

static void count_writes(Apply *A, const Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            count_writes(A, s->u.seq.items[i]);
        break;
    case S_FOR:
        count_writes(A, s->u.loop.body);
        break;
    case S_BLOCK:
        for (int i = 0; i < s->u.block->nwrites; i++)
            A->stores += s->u.block->writes[i].buf == A->buf;
        count_writes(A, s->u.block->init);
        count_writes(A, s->u.block->body);
        break;
    case S_STORE:
        A->stores += s->u.store.buf == A->buf;
        break;
    case S_IF:
        count_writes(A, s->u.branch.then);
        count_writes(A, s->u.branch.orelse);
        break;
    case S_ALLOC:
        A->stores += s->u.alloc->kind == BUF_MATCH && s->u.alloc == A->buf;
        break;
    default:
        break;
    }
}

/* The indices idx (old rank) through the map. */
static Expr **map_indices(Apply *A, Expr *const *idx)
{
    Arena *a = &A->m->arena;
    Subst S = { 0 };
    for (int i = 0; i < A->map->u.map.nparams; i++)
        subst_var(a, &S, A->map->u.map.params[i], idx[i]);
    Expr **out = arena_array(a, (size_t)A->nd + 1, sizeof *out);
    for (int k = 0; k < A->nd; k++)
        out[k] = clone_expr(a, &S, A->map->u.map.out[k]);
    return out;
}

static void rw_expr(Apply *A, Expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_BIN:
        rw_expr(A, e->u.bin.a);
        rw_expr(A, e->u.bin.b);
        break;
    case E_UNARY:
        rw_expr(A, e->u.un.a);
        break;
    case E_CAST:
        rw_expr(A, e->u.cast.a);
        break;
    case E_SLICE:
        rw_expr(A, e->u.slice.lo);
        rw_expr(A, e->u.slice.hi);
        break;
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            rw_expr(A, e->u.list.items[i]);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            rw_expr(A, e->u.call.args[i]);
        break;
    case E_LOAD:
        for (int i = 0; i < e->u.load.n; i++)
            rw_expr(A, e->u.load.idx[i]);
        if (e->u.load.buf == A->buf && !ptrmap_get(&A->done, e, 0)) {
            ptrmap_put(&A->done, e, 1);
            e->u.load.idx = map_indices(A, e->u.load.idx);
            e->u.load.n = A->nd;
        }
        break;
    default:
        break;
    }
}

/* A region of buf: points go through the map, a range becomes the whole buffer. */
static void rw_region(Apply *A, Region *r)
{
    for (int i = 0; i < r->n; i++)
        rw_expr(A, r->idx[i]);
    if (r->buf != A->buf)
        return;
    int points = 1;
    for (int i = 0; i < r->n; i++)
        points &= r->idx[i]->kind != E_SLICE;
    Arena *a = &A->m->arena;
    if (points) {
        r->idx = map_indices(A, r->idx);
    } else {
        r->idx = arena_array(a, (size_t)A->nd + 1, sizeof *r->idx);
        for (int k = 0; k < A->nd; k++) {
            Expr *s = expr_new(a, E_SLICE, r->loc);
            s->u.slice.lo = expr_int(a, 0, DT_VOID, r->loc);
            s->u.slice.hi = expr_int(a, A->shape[k], DT_VOID, r->loc);
            r->idx[k] = s;
        }
    }
    r->n = A->nd;
}

static void rw_stmt(Apply *A, Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            rw_stmt(A, s->u.seq.items[i]);
        break;
    case S_FOR:
        rw_expr(A, s->u.loop.min);
        rw_expr(A, s->u.loop.extent);
        rw_stmt(A, s->u.loop.body);
        break;
    case S_BLOCK: {
        Block *b = s->u.block;
        for (int i = 0; i < b->niters; i++) {
            rw_expr(A, b->iters[i].dom);
            rw_expr(A, b->iters[i].binding);
        }
        for (int i = 0; i < b->nreads; i++)
            rw_region(A, &b->reads[i]);
        for (int i = 0; i < b->nwrites; i++)
            rw_region(A, &b->writes[i]);
        rw_expr(A, b->where);
        rw_stmt(A, b->init);
        rw_stmt(A, b->body);
        break;
    }
    case S_STORE:
        for (int i = 0; i < s->u.store.n; i++)
            rw_expr(A, s->u.store.idx[i]);
        rw_expr(A, s->u.store.value);
        break;
    case S_IF:
        rw_expr(A, s->u.branch.cond);
        rw_stmt(A, s->u.branch.then);
        rw_stmt(A, s->u.branch.orelse);
        break;
    case S_EVAL:
        rw_expr(A, s->u.eval);
        break;
    case S_LET:
        rw_expr(A, s->u.let.value);
        break;
    default:
        break;
    }
}

/* ---- applying: the call sites ---- */

typedef struct Site {
    Func *fn;             /* the Relax function */
    RBlock *rb;
    Binding *bd;          /* x = R.call_tir(f, (..., w, ...)) */
    Expr *w;              /* the weight argument */
} Site;

/* Why the weight argument w of a call in fn is not free, or NULL: a
 * constant, a parameter of fn, or a variable bound to either is free. */
static const char *not_free(const Func *fn, const Expr *w, char *why, size_t cap)
{
    for (int guard = 0; guard < 1024; guard++) {
        if (w->kind == E_CONST)
            return NULL;
        if (w->kind != E_VAR)
            return snprintf(why, cap, "it is not a variable or a constant"), why;
        for (int i = 0; i < fn->nparams; i++)
            if (fn->params[i] == w->u.var)
                return NULL;
        const Binding *def = NULL;
        for (int b = 0; b < fn->nblocks && !def; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds && !def; i++)
                if (fn->blocks[b]->binds[i]->var == w->u.var)
                    def = fn->blocks[b]->binds[i];
        if (!def)
            return snprintf(why, cap, "%s is not bound in %s", w->u.var->name->str, fn->name->str), why;
        if (def->value->kind != E_VAR && def->value->kind != E_CONST) {
            const Expr *v = def->value;
            return snprintf(why, cap, "%s is computed by %s at line %d, not a constant or a parameter",
                            w->u.var->name->str, v->kind == E_CALL ? v->u.call.op->str : "an expression",
                            def->loc.line), why;
        }
        w = def->value;
    }
    return snprintf(why, cap, "too many copies"), why;
}

typedef struct Refs {
    const Func *f;
    int n;
} Refs;

static int count_ref(const Expr *e, void *data)
{
    Refs *r = data;
    r->n += e->kind == E_GLOBAL && e->u.global.fn == r->f;
    return 0;
}

/* How many times the Relax functions of m name f. */
static int references(const Module *m, const Func *f)
{
    Refs r = { f, 0 };
    for (int k = 0; k < m->nfuncs; k++) {
        const Func *fn = m->funcs[k];
        if (fn->kind != F_RELAX)
            continue;
        relax_walk_blocks(fn->blocks, fn->nblocks, count_ref, &r);
        relax_walk(fn->result, count_ref, &r);
    }
    return r.n;
}

static int find_sites(Module *m, const Func *f, int p, Site **sites, int *n, int *cap, char *why, size_t wcap)
{
    int refs = references(m, f);
    for (int k = 0; k < m->nfuncs; k++) {
        Func *fn = m->funcs[k];
        if (fn->kind != F_RELAX)
            continue;
        for (int b = 0; b < fn->nblocks; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                Binding *bd = fn->blocks[b]->binds[i];
                if (call_tir_callee(bd->value) != f)
                    continue;
                const Expr *args = bd->value->u.call.args[1];
                if (!is_plannable(fn))
                    return snprintf(why, wcap, "it is called at line %d in %s, which has control flow or effects",
                                    bd->loc.line, fn->name->str), -1;
                if (args->kind != E_TUPLE || p >= args->u.list.n)
                    return snprintf(why, wcap, "the call at line %d does not pass it as an argument", bd->loc.line),
                           -1;
                char w[200];
                TensorType t;
                const Buffer *buf = f->pparams[p].buf;
                int same = value_type(args->u.list.items[p], &t) == 0 && t.dtype == buf->dtype && t.ndim == buf->ndim;
                for (int d = 0; same && d < t.ndim; d++) {
                    int64_t ext;
                    same = expr_const_int(buf->shape[d], &ext) == 0 && ext == t.shape[d];
                }
                if (!same)
                    return snprintf(why, wcap, "the weight of the call at line %d has no static type that matches %s",
                                    bd->loc.line, buf->name->str), -1;
                if (not_free(fn, args->u.list.items[p], w, sizeof w))
                    return snprintf(why, wcap, "the weight of the call at line %d is not free: %s", bd->loc.line, w),
                           -1;
                if (*n == *cap) {
                    *cap = *cap ? 2 * *cap : 8;
                    Site *g = xrealloc(*sites, (size_t)*cap * sizeof *g);
                    if (!g)
                        oom_fail();
                    *sites = g;
                }
                (*sites)[(*n)++] = (Site){ fn, fn->blocks[b], bd, args->u.list.items[p] };
            }
    }
    if (refs != *n)
        return snprintf(why, wcap, "the PrimFunc is named other than as the callee of an R.call_tir binding"), -1;
    return 0;
}

static Expr *number(Module *m, double v, DType dt, Loc loc)
{
    if (dtype_is_int(dt) || dt == DT_BOOL)
        return expr_int(&m->arena, (int64_t)v, DT_VOID, loc);
    return expr_float(&m->arena, v, DT_VOID, loc);
}

static Expr *link_call(Module *m, const Chain *c, int i, Expr *x, DType dt, Loc loc)
{
    Arena *a = &m->arena;
    const Link *l = &c->v[i];
    int nd;
    const int64_t *in = link_input(c, i, &nd);
    switch (l->kind) {
    case L_RESHAPE: {
        Expr *e = call_new(m, "R.reshape", x, NULL, NULL, 0, loc);
        Expr **args = arena_array(a, 3, sizeof *args);
        args[0] = x;
        args[1] = int_list(a, l->shape, l->nd, loc);
        args[1]->kind = E_TUPLE;
        e->u.call.args = args;
        e->u.call.nargs = 2;
        return e;
    }
    case L_PAD: {
        int64_t more[OP_MAX_RANK] = { 0 };
        more[l->axis] = l->shape[l->axis] - in[l->axis];
        return pad_high(m, x, l->nd, more, number(m, l->value, dt, loc), loc);
    }
    case L_PERMUTE: {
        int64_t ax[OP_MAX_RANK];
        for (int d = 0; d < l->nd; d++)
            ax[d] = l->axes[d];
        static const char *const keys[] = { "axes" };
        return call_new(m, "R.permute_dims", x, keys, (Expr *[]){ int_list(a, ax, l->nd, loc) }, 1, loc);
    }
    case L_SLICE: {
        int64_t ax = l->axis, b = 0, e = l->shape[l->axis];
        static const char *const keys[] = { "axes", "begin", "end" };
        return call_new(m, "R.strided_slice", x, keys,
                        (Expr *[]){ int_list(a, &ax, 1, loc), int_list(a, &b, 1, loc), int_list(a, &e, 1, loc) }, 3,
                        loc);
    }
    }
    return NULL;
}

typedef struct Out {
    Binding **v;
    int n, cap;
} Out;

/* Binds each link of c in turn, starting from x; returns the last value. */
static Expr *emit_chain(Module *m, Out *o, PtrMap *names, const Chain *c, Expr *x, const char *base, DType dt,
                        int dataflow, Loc loc)
{
    for (int i = 0; i < c->n; i++) {
        const Link *l = &c->v[i];
        Binding *b = binding_fresh(m, names, base, dataflow, tensor_sinfo_new(&m->arena, dt, l->nd, l->shape, loc),
                                   link_call(m, c, i, x, dt, loc), loc);
        vec_push(&m->arena, &o->v, &o->n, &o->cap, b);
        x = var_ref(&m->arena, b->var, loc);
    }
    return x;
}

/* ---- the pass ---- */

typedef struct Plan {
    Func *f;
    int p;                /* the parameter */
    Buffer *buf;
    DType dt;
    int64_t sh[MAX_STEPS + 1][OP_MAX_RANK];
    int nds[MAX_STEPS + 1];
    Chain fwd, rev;
    Expr *map;            /* the composed map (old index -> new), normal form over the old shape */
    Expr *lt;             /* the same as written by the steps, for one R.layout_transform (its
                             output box the padded shape, which the normal form loses) */
    int pads;             /* a split pads */
    double pad;
    int mixed_pads;       /* two splits pad with different values */
    int one;              /* one R.layout_transform by lt gives the new shape */
} Plan;

enum { MAX_ENUMERATED = 1 << 22 };

/* Calls visit on every point of the box of m (at most MAX_ENUMERATED); 0
 * when visit held everywhere. */
static int every_point(const IndexMap *m, int (*visit)(const IndexMap *, const IndexMap *, const int64_t *),
                       const IndexMap *other)
{
    int64_t n = 1, x[IM_MAX_RANK] = { 0 };
    for (int d = 0; d < m->nin; d++)
        if ((n *= m->box[d]) > MAX_ENUMERATED)
            return -1;
    for (int64_t i = 0; i < n; i++) {
        if (!visit(m, other, x))
            return -1;
        for (int d = m->nin - 1; d >= 0 && ++x[d] == m->box[d]; d--)
            x[d] = 0;
    }
    return 0;
}

static int same_at(const IndexMap *a, const IndexMap *b, const int64_t *x)
{
    int64_t ya[IM_MAX_RANK], yb[IM_MAX_RANK];
    im_apply(a, x, ya);
    im_apply(b, x, yb);
    return memcmp(ya, yb, (size_t)a->nout * sizeof *ya) == 0;
}

static int fixed_at(const IndexMap *a, const IndexMap *unused, const int64_t *x)
{
    (void)unused;
    int64_t y[IM_MAX_RANK];
    im_apply(a, x, y);
    return memcmp(y, x, (size_t)a->nin * sizeof *y) == 0;
}

/* Whether a and b are the same map onto the same box: their normal forms
 * are equal or, where the normal form does not decide, every point of a
 * box small enough says so. */
static int same_map(const IndexMap *a, const IndexMap *b)
{
    if (!a || !b || a->nin != b->nin || a->nout != b->nout ||
        memcmp(a->box, b->box, (size_t)a->nin * sizeof *a->box) != 0 ||
        memcmp(a->obox, b->obox, (size_t)a->nout * sizeof *a->obox) != 0)
        return 0;
    return im_equal(a, b) || every_point(a, same_at, b) == 0;
}

/* Whether a is the identity onto its own box, decided the same way. */
static int is_identity(const IndexMap *a)
{
    if (!a || a->nin != a->nout || memcmp(a->box, a->obox, (size_t)a->nin * sizeof *a->box) != 0)
        return 0;
    return im_is_identity(a) || every_point(a, fixed_at, NULL) == 0;
}

/* Composes the steps' maps; checks the forward chain gives the same map and
 * the reverse chain undoes it. Returns 0, or -1 with why filled. */
static int plan_maps(Module *m, Plan *P, const Steps *S, char *why, size_t cap)
{
    Arena tmp = { 0 };
    IndexMap *acc = NULL;
    int ok = 1;
    Subst sub = { 0 };
    for (int k = 0; k < S->n && ok; k++) {
        Expr *e = step_map(m, &S->v[k], P->sh[k], P->nds[k]);
        if (!P->lt) {
            P->lt = e;
        } else {
            /* e after lt, by substitution: the steps' own expressions */
            Expr *c = map_new(m, P->lt->u.map.nparams, e->u.map.nout, (Expr *[OP_MAX_RANK]){ 0 });
            c->u.map.params = P->lt->u.map.params;
            sub.n = 0;
            for (int i = 0; i < e->u.map.nparams; i++)
                subst_var(&m->arena, &sub, e->u.map.params[i], P->lt->u.map.out[i]);
            for (int q = 0; q < e->u.map.nout; q++)
                c->u.map.out[q] = clone_expr(&m->arena, &sub, e->u.map.out[q]);
            P->lt = c;
        }
        IndexMap *im = read_map(&tmp, e, P->sh[k], P->sh[k + 1], P->nds[k + 1], 0);
        acc = im ? (acc ? im_compose(&tmp, im, acc) : im) : NULL;
        ok = acc != NULL;
    }
    if (!ok) {
        arena_free(&tmp);
        return snprintf(why, cap, "the index-map algebra does not compose the steps"), -1;
    }
    if (!S->n || im_classify(acc, NULL, NULL) == IM_NOT_INJECTIVE) {
        arena_free(&tmp);
        return snprintf(why, cap, "the steps do not give a one-to-one layout"), -1;
    }
    P->map = im_to_expr(&m->arena, &m->names, acc);
    IndexMap *fm = P->fwd.n ? chain_map(m, &tmp, &P->fwd) : NULL;
    int agree = P->fwd.n ? same_map(fm, acc) : is_identity(acc);
    ImError ierr;
    IndexMap *lm = im_from_expr(&tmp, P->lt, P->sh[0], &ierr);
    P->one = same_map(lm, acc);
    IndexMap *rm = P->rev.n ? chain_map(m, &tmp, &P->rev) : NULL;
    int back = P->rev.n ? is_identity(rm ? im_compose(&tmp, rm, acc) : NULL) : is_identity(acc);
    arena_free(&tmp);
    if (!agree)
        return snprintf(why, cap, "the graph-level chain and the composed map do not agree"), -1;
    if (!back)
        return snprintf(why, cap, "the reverse chain does not undo the layout"), -1;
    return 0;
}

/* Whether v is a value of dtype dt (an integer in its range, for integers). */
static int pad_fits(double v, DType dt)
{
    if (dtype_is_float(dt))
        return 1;
    if (dt == DT_BOOL)
        return v == 0 || v == 1;
    int bits = 8 * dtype_size(dt);
    int uns = dt == DT_UINT8 || dt == DT_UINT16 || dt == DT_UINT32 || dt == DT_UINT64;
    double lo = uns ? 0 : -ldexp(1, bits - 1), hi = uns ? ldexp(1, bits) : ldexp(1, bits - 1);
    return v == (double)(int64_t)v && v >= lo && v < hi;
}

static int plan(Module *m, Func *f, const char *bufname, const Steps *S, Plan *P, Loc *where, char *why, size_t cap)
{
    memset(P, 0, sizeof *P);
    P->f = f;
    P->p = -1;
    for (int i = 0; i < f->npparams; i++)
        if (f->pparams[i].buf && strcmp(f->pparams[i].buf->name->str, bufname) == 0)
            P->p = i;
    *where = f->loc;
    if (P->p < 0)
        return snprintf(why, cap, "%s has no buffer parameter %s", f->name->str, bufname), -2;
    Buffer *b = P->buf = f->pparams[P->p].buf;
    *where = b->loc;
    P->dt = b->dtype;
    if (b->ndim < 1 || b->ndim > OP_MAX_RANK)
        return snprintf(why, cap, "%s has %d axes (1 to %d are rewritten)", bufname, b->ndim, OP_MAX_RANK), -1;
    int64_t in[OP_MAX_RANK];
    for (int i = 0; i < b->ndim; i++)
        if (expr_const_int(b->shape[i], &in[i]) || in[i] < 1)
            return snprintf(why, cap, "%s has no static shape", bufname), -1;
    if (step_shapes(S, in, b->ndim, P->sh, P->nds, why, cap))
        return -2;
    forward_chain(S, P->sh, P->nds, &P->fwd);
    reverse_chain(S, P->sh, P->nds, &P->rev);
    simplify(&P->fwd);
    simplify(&P->rev);
    for (int k = 0; k < S->n; k++)
        if (S->v[k].kind == ST_SPLIT && P->sh[k][S->v[k].axis] % S->v[k].factor) {
            if (!pad_fits(S->v[k].pad, P->dt))
                return snprintf(why, cap, "step %d (split of axis %d): the pad value %g does not fit %s", k + 1,
                                S->v[k].axis, S->v[k].pad, dtype_name(P->dt)), -2;
            P->mixed_pads |= P->pads && S->v[k].pad != P->pad;
            P->pads = 1;
            P->pad = S->v[k].pad;
        }
    return plan_maps(m, P, S, why, cap);
}

static const char *shape_text(const int64_t *sh, int nd, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < nd && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)sh[i]);
    if (at < cap)
        snprintf(buf + at, cap - at, ")");
    return buf;
}

/* A call of the Relax function g with the items of the tuple args. */
static Expr *call_relax_new(Module *m, Func *g, const Expr *args, Loc loc)
{
    Arena *a = &m->arena;
    Expr *c = expr_new(a, E_CALL, loc);
    c->u.call.op = g->name;
    c->u.call.callee = expr_new(a, E_GLOBAL, loc);
    c->u.call.callee->u.global.fn = g;
    c->u.call.callee->u.global.name = g->name;
    c->u.call.nargs = args->u.list.n;
    c->u.call.args = arena_array(a, (size_t)args->u.list.n + 1, sizeof(Expr *));
    memcpy(c->u.call.args, args->u.list.items, (size_t)args->u.list.n * sizeof(Expr *));
    return c;
}

/* Inserts the chain before each call and passes its result, to the
 * PrimFunc or (keep-body=1) to its wrapper; a weight rewritten already in
 * the block is used again (*reused counts those). */
static void rewrite_sites(Module *m, const Plan *P, const Steps *S, Site *sites, int nsites, Func *wrapper,
                          int *reused)
{
    for (int k = 0; k < m->nfuncs; k++) {
        Func *fn = m->funcs[k];
        PtrMap names = { 0 };
        int any = 0;
        for (int s = 0; s < nsites; s++)
            any |= sites[s].fn == fn;
        if (!any)
            continue;
        collect_names(fn, &names);
        for (int b = 0; b < fn->nblocks; b++) {
            RBlock *rb = fn->blocks[b];
            Out o = { 0 };
            PtrMap done = { 0 };   /* a weight already rewritten in this block: Var -> binding index + 1 */
            Binding **made = NULL;
            int nmade = 0, capmade = 0;
            for (int i = 0; i < rb->nbinds; i++) {
                Binding *bd = rb->binds[i];
                const Site *site = NULL;
                for (int s = 0; s < nsites && !site; s++)
                    if (sites[s].bd == bd)
                        site = &sites[s];
                if (!site) {
                    vec_push(&m->arena, &o.v, &o.n, &o.cap, bd);
                    continue;
                }
                Expr *w = site->w, *nw = NULL;
                int before = o.n;
                char base[160];
                snprintf(base, sizeof base, "%.120s_wl", w->kind == E_VAR ? w->u.var->name->str : "w");
                int seen = w->kind == E_VAR ? ptrmap_get(&done, w->u.var, 0) : 0;
                if (seen) {
                    nw = var_ref(&m->arena, made[seen - 1]->var, bd->loc);
                    (*reused)++;
                } else if (S->one_transform && !P->mixed_pads && P->one) {
                    Binding *nb = binding_fresh(m, &names, base, rb->dataflow,
                                                tensor_sinfo_new(&m->arena, P->dt, P->nds[S->n], P->sh[S->n], bd->loc),
                                                layout_transform_new(m, w, P->lt,
                                                                     P->pads ? number(m, P->pad, P->dt, bd->loc) : NULL,
                                                                     bd->loc), bd->loc);
                    vec_push(&m->arena, &o.v, &o.n, &o.cap, nb);
                    nw = var_ref(&m->arena, nb->var, bd->loc);
                } else {
                    nw = emit_chain(m, &o, &names, &P->fwd, w, base, P->dt, rb->dataflow, bd->loc);
                }
                if (!seen && w->kind == E_VAR && o.n > before) {
                    vec_push(&m->arena, &made, &nmade, &capmade, o.v[o.n - 1]);
                    ptrmap_put(&done, w->u.var, nmade);
                }
                Expr *args = arena_alloc(&m->arena, sizeof *args);
                const Expr *old = bd->value->u.call.args[1];
                *args = *old;
                args->u.list.items = arena_array(&m->arena, (size_t)old->u.list.n + 1, sizeof(Expr *));
                memcpy(args->u.list.items, old->u.list.items, (size_t)old->u.list.n * sizeof(Expr *));
                args->u.list.items[P->p] = nw;
                if (wrapper) {
                    bd->value = call_relax_new(m, wrapper, args, bd->loc);
                } else {
                    Expr *c = call_with_attrs(m, bd->value, NULL, NULL, 0);
                    c->u.call.args[1] = args;
                    bd->value = c;
                }
                vec_push(&m->arena, &o.v, &o.n, &o.cap, bd);
            }
            rb->binds = o.v;
            rb->nbinds = o.n;
            ptrmap_free(&done);
        }
        ptrmap_free(&names);
    }
}

/* keep-body=1: the Relax function f_packed(inputs..., W packed) whose body
 * unpacks W by the reverse chain and calls f as it is (seed 004's
 * workaround: the actual weight is rewritten before the call, the formal
 * one reversed inside the callee's body). The calls must agree on their
 * inputs and their one output. NULL with why filled when they do not. */
static Func *packed_wrapper(Module *m, const Plan *P, const Steps *S, const Site *sites, int nsites, char *why,
                            size_t cap)
{
    Arena *a = &m->arena;
    Func *f = P->f;
    const Expr *c0 = sites[0].bd->value, *os = call_kwarg(c0, "out_sinfo");
    int nin = c0->u.call.args[1]->u.list.n;
    for (int s = 1; s < nsites; s++) {
        const Expr *c = sites[s].bd->value, *o = call_kwarg(c, "out_sinfo");
        if (c->u.call.args[1]->u.list.n != nin || !o || !os || o->kind != E_SINFO || os->kind != E_SINFO ||
            !sinfo_same_tensor(o->u.sinfo, os->u.sinfo))
            return snprintf(why, cap, "its calls at lines %d and %d differ in their arguments or result",
                            sites[0].bd->loc.line, sites[s].bd->loc.line), NULL;
    }
    if (!os || os->kind != E_SINFO || os->u.sinfo->kind != SI_TENSOR || nin + 1 != f->npparams || nin > 64)
        return snprintf(why, cap, "keep-body=1 wraps a PrimFunc with one output"), NULL;
    Func *g = arena_zalloc(a, sizeof *g);
    g->kind = F_RELAX;
    g->loc = f->loc;
    char name[160];
    snprintf(name, sizeof name, "%.120s_packed", f->name->str);
    g->name = fresh_func(m, name);
    g->nparams = nin;
    g->params = arena_array(a, (size_t)nin + 1, sizeof(Var *));
    PtrMap names = { 0 };
    for (int i = 0; i < nin; i++) {
        const Buffer *b = f->pparams[i].buf;
        int64_t sh[OP_MAX_RANK];
        int ok = b && b->ndim <= OP_MAX_RANK;
        for (int d = 0; ok && d < b->ndim; d++)
            ok = expr_const_int(b->shape[d], &sh[d]) == 0;
        if (!ok) {
            ptrmap_free(&names);
            return snprintf(why, cap, "keep-body=1 needs the PrimFunc's inputs to be buffers of static shapes"), NULL;
        }
        Var *v = var_new(a, fresh_name(&m->names, &names, b->name->str), VAR_RELAX, f->loc);
        v->sinfo = i == P->p ? tensor_sinfo_new(a, P->dt, P->nds[S->n], P->sh[S->n], f->loc)
                             : tensor_sinfo_new(a, b->dtype, b->ndim, sh, f->loc);
        g->params[i] = v;
    }
    RBlock *rb = arena_zalloc(a, sizeof *rb);
    rb->loc = f->loc;
    rb->dataflow = 1;
    Out o = { 0 };
    char base[160];
    snprintf(base, sizeof base, "%.120s_unpacked", g->params[P->p]->name->str);
    Expr *items[64];
    for (int i = 0; i < nin && i < 64; i++)
        items[i] = var_ref(a, g->params[i], f->loc);
    items[P->p] = emit_chain(m, &o, &names, &P->rev, items[P->p], base, P->dt, 1, f->loc);
    Binding *gv = binding_fresh(m, &names, "gv", 0, os->u.sinfo, call_tir_new(m, f, items, nin, (Expr *)os, f->loc),
                                f->loc);
    vec_push(a, &o.v, &o.n, &o.cap, gv);
    ptrmap_free(&names);
    rb->binds = o.v;
    rb->nbinds = o.n;
    rb->outputs = arena_array(a, 2, sizeof(Var *));
    rb->outputs[0] = gv->var;
    rb->noutputs = 1;
    g->blocks = arena_array(a, 2, sizeof(RBlock *));
    g->blocks[0] = rb;
    g->nblocks = 1;
    g->ret = os->u.sinfo;
    g->result = var_ref(a, gv->var, f->loc);
    return g;
}

/* Why the steps cannot be applied to P's buffer (NULL when they can): the
 * calls go to *sites, and with keep-body=1 the wrapper to *wrapper. */
static const char *left_because(Module *m, const Plan *P, const Steps *S, Site **sites, int *nsites, Func **wrapper,
                                char *why, size_t cap)
{
    Apply A = { m, P->buf, P->map, 0, NULL, 0, { 0 } };
    if (!S->keep_body) {
        count_writes(&A, P->f->body);
        if (A.stores)
            return "the PrimFunc writes it (a weight is only read)";
    }
    PtrMap fixed = { 0 };
    mark_fixed_signatures(m, &fixed);
    int is_fixed = ptrmap_get(&fixed, P->f, 0);
    ptrmap_free(&fixed);
    if (is_fixed)
        return "its signature must stay (a call with tir_vars, or from a function with control flow)";
    int capsites = 0;
    if (find_sites(m, P->f, P->p, sites, nsites, &capsites, why, cap))
        return why;
    if (S->keep_body && *nsites && !(*wrapper = packed_wrapper(m, P, S, *sites, *nsites, why, cap)))
        return why;
    return NULL;
}

/* The PrimFunc's buffer takes the new shape, and every access goes through the map. */
static void rewrite_body(Module *m, const Plan *P, const Steps *S)
{
    Apply A = { m, P->buf, P->map, P->nds[S->n], P->sh[S->n], 0, { 0 } };
    Buffer *buf = P->buf;
    rw_stmt(&A, P->f->body);
    ptrmap_free(&A.done);
    buf->ndim = A.nd;
    buf->shape = arena_array(&m->arena, (size_t)A.nd + 1, sizeof *buf->shape);
    for (int k = 0; k < A.nd; k++)
        buf->shape[k] = expr_int(&m->arena, A.shape[k], DT_VOID, buf->loc);
    func_set_frozen(m, P->f);
}

static void note_converted(Notes *notes, Loc where, const Plan *P, const Steps *S, int nsites, int reused)
{
    char a[128], b[128], map[512];
    const char *chain = !S->one_transform || (!P->mixed_pads && P->one) ? ""
                        : P->mixed_pads ? "; the chain, not one R.layout_transform: the splits pad with different "
                                              "values"
                        : "; the chain, not one R.layout_transform: the composed map would not give the new shape "
                          "(the steps pad without tiling)";
    note_add(notes, where, "converted %s of %s: %s -> %s%s, at %d call%s (%d weight%s rewritten); the chain (%d "
             "operator%s) and the composed map %s agree, and the reverse chain undoes it%s", P->buf->name->str,
             P->f->name->str, shape_text(P->sh[0], P->nds[0], a, sizeof a),
             shape_text(P->sh[S->n], P->nds[S->n], b, sizeof b),
             S->keep_body ? " (the body kept: each call goes through a Relax function that reverses it)" : "", nsites,
             nsites == 1 ? "" : "s", nsites - reused, nsites - reused == 1 ? "" : "s", P->fwd.n,
             P->fwd.n == 1 ? "" : "s", expr_text(P->lt, map, sizeof map), chain);
}

/* Applies the steps to buffer bufname of f. Returns 0 (done or left, with
 * the reason in the notes), or -1 after reporting a user error at attr (or
 * at the buffer when attr is NULL). */
static int apply(Module *m, PassCtx *ctx, Func *f, const char *bufname, const Steps *S, const Expr *attr,
                 Notes *notes)
{
    Plan *P = xmalloc(sizeof *P);
    if (!P)
        oom_fail();
    char why[300];
    Loc where;
    int r = plan(m, f, bufname, S, P, &where, why, sizeof why);
    if (r == -2) {
        free(P);
        return diag_error(ctx->src, attr ? attr->loc : where, "weight-layout: %s", why);
    }
    Site *sites = NULL;
    int nsites = 0, reused = 0;
    Func *wrapper = NULL;
    const char *left = r ? why : left_because(m, P, S, &sites, &nsites, &wrapper, why, sizeof why);
    if (left) {
        note_add(notes, where, "left %s of %s: %s", bufname, f->name->str, left);
    } else if (!P->fwd.n && !S->keep_body) {
        note_add(notes, where, "removed: the steps on %s of %s compose to the identity; nothing to rewrite", bufname,
                 f->name->str);
    } else {
        if (!S->keep_body)
            rewrite_body(m, P, S);
        rewrite_sites(m, P, S, sites, nsites, wrapper, &reused);
        if (wrapper)
            module_add_func(m, wrapper);
        note_converted(notes, where, P, S, nsites, reused);
    }
    free(sites);
    free(P);
    return 0;
}

/* The "weight_layout" entry of f's attributes, or -1. */
static int attr_index(const Func *f)
{
    const Expr *d = f->attrs;
    for (int i = 0; d && d->kind == E_DICT && i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i];
        if (k->kind == E_STR && k->u.str.len == 13 && memcmp(k->u.str.s, "weight_layout", 13) == 0)
            return i;
    }
    return -1;
}

static void attr_remove(Func *f, int i)
{
    Expr *d = f->attrs;
    for (int j = i; j + 1 < d->u.dict.n; j++) {
        d->u.dict.keys[j] = d->u.dict.keys[j + 1];
        d->u.dict.vals[j] = d->u.dict.vals[j + 1];
    }
    if (--d->u.dict.n == 0)
        f->attrs = NULL;
}

/* T.func_attr({"weight_layout": {"W": [["split", 0, 4], ...]}}): applied, then removed. */
static int apply_attr(Module *m, PassCtx *ctx, Func *f, const Steps *opts, Notes *notes)
{
    int i = attr_index(f);
    if (i < 0)
        return 0;
    const Expr *d = f->attrs->u.dict.vals[i];
    if (d->kind != E_DICT)
        return diag_error(ctx->src, d->loc, "weight_layout: expected a dict from buffer names to lists of steps");
    attr_remove(f, i);
    for (int k = 0; k < d->u.dict.n; k++) {
        const Expr *key = d->u.dict.keys[k];
        Steps S;
        if (key->kind != E_STR)
            return diag_error(ctx->src, key->loc, "weight_layout: a key is a buffer name, as a string");
        if (steps_from_attr(ctx->src, d->u.dict.vals[k], &S))
            return -1;
        S.keep_body = opts->keep_body;
        S.one_transform = opts->one_transform;
        char name[128];
        snprintf(name, sizeof name, "%.*s", key->u.str.len, key->u.str.s);
        if (apply(m, ctx, f, name, &S, d->u.dict.vals[k], notes))
            return -1;
    }
    return 0;
}

int pass_weight_layout(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Steps S;
    const char *fname, *bname;
    char err[256];
    Notes notes = { 0 };
    int r = 0;
    if (steps_from_opts(opts, nopts, &S, &fname, &bname, err, sizeof err))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "%s", err);
    if (fname) {
        Func *f = module_find(m, intern_cstr(&m->names, fname));
        if (!f || f->kind != F_PRIM)
            r = diag_error(ctx->src, (Loc){ 0, 0 }, "weight-layout: no PrimFunc named '%s'", fname);
        else if (tir_unhandled(f))
            r = diag_error(ctx->src, f->loc, "weight-layout: %s holds %s, which weight-layout does not rewrite", fname,
                           tir_unhandled(f));
        else
            r = apply(m, ctx, f, bname, &S, NULL, &notes);
    } else {
        int n = m->nfuncs;
        for (int i = 0; i < n && !r; i++)
            if (m->funcs[i]->kind == F_PRIM && !tir_unhandled(m->funcs[i]))
                r = apply_attr(m, ctx, m->funcs[i], &S, &notes);
    }
    notes_flush(&notes, ctx, "weight-layout");
    return r;
}
