/* plan: chooses the layout every value of a Relax dataflow block is stored
 * in, so that the rewrites left move the fewest bytes (then are fewest),
 * and realizes the choice with flow's and fold's rewrites.
 *
 * The values are the block's calls; rewrites already in the block are not
 * values of their own but views: a use of y = lt(x, M) in layout D asks for
 * x in D . M. A call's candidate layouts are the identity and the layouts
 * its uses ask for (frozen calls, rewrites, outputs), carried backwards
 * through the calls that can compute in them: what a call computing in L
 * reads of its operands is flow's answer from the legalized PrimFunc
 * (flow_probe), so plan keeps no table of operator rules. Parameters,
 * frozen and opaque calls, tuples and values of other blocks keep the
 * layout they are written in. A value pays one rewrite per distinct layout
 * asked of it other than its own (uses asking the same share it), of its
 * bytes in and out; rewrites of constants are free (fold evaluates them),
 * and so is a rewrite that only permutes the axes where a permute_dims
 * reads it or computes the value (fold composes the two). A padded layout
 * (NCHW4c on 6 channels) is a candidate with a padding of 0 where flow's
 * reading keeps it so; a padding of a crop that restores what the crop
 * dropped asks the crop's operand instead (fold's pad_of_crop), and a crop
 * nothing reads then goes.
 * plan_solve.c finds the cheapest choice; flow_realize moves the rewrites
 * and fold cancels the pairs that meet. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/indexmap.h"
#include "../../ir/ops.h"
#include "../../printer/print.h"
#include "../graph.h"
#include "flow.h"
#include "fold.h"
#include "plan_solve.h"
#include "../../ir/oom.h"

/* At most MAX_LABELS layouts a value may be stored in (as written, then the
 * candidates in the order found: the layouts asked of it, those carried from
 * its users and operands), and MAX_KEYS layouts asked of it: the exact
 * search's tables grow as the labels to the power of a value's users and one. */
enum { MAX_LABELS = 8, MAX_KEYS = 32 };

/* The cost the solver minimizes: the bytes the rewrites left read and
 * write, then their number, then the number of values moved out of the
 * layout they are written in (of two plans that move as much, the one that
 * changes less; an operator keeps its form where nothing is gained). */
#define COST_MOVE ((int64_t)1)
#define COST_REWRITE ((int64_t)1 << 12)
#define COST_BYTE ((int64_t)1 << 24)

typedef struct Key {
    IndexMap *im;         /* over the value's shape; NULL: as written */
    int has_pad;          /* its padding holds pad (else: undefined, or none) */
    double pad;
    Expr *map;            /* the same as an index map (labels only) */
    int64_t bytes;
    int absorbed;         /* asked by a permute_dims: fold composes a rewrite
                           * that only permutes the axes into the call */
    int64_t back_bytes;   /* a padded label: the padded box as written, which
                           * the rewrite back writes before the crop */
    int64_t via_bytes;    /* asked through a rewrite (a view) whose layout
                           * composed with the reader's one rewrite cannot
                           * write (fold_one_rewrite): that layout's bytes,
                           * which the value as written passes through */
} Key;

typedef struct Node {
    Var *var;
    Binding *bd;          /* its binding in the block, or NULL */
    int plannable, constant;
    int permute;          /* an R.permute_dims: fold composes a rewrite of its
                           * result that only permutes the axes into it */
    int crop_of;          /* a crop from 0 of a value that fold lets a padding
                           * read instead (pad_of_crop): 1 + that value's view */
    double cropped;       /* what the crop dropped held */
    int gone;             /* the label under which nothing reads the crop (0: none) */
    int64_t crop_bytes;   /* what the crop reads and writes */
    double *inpad[MAX_LABELS];   /* a padded label: what each operand's padding must hold (NAN: none) */
    int readable;         /* not plannable, but a one-operand call that may take reading labels */
    int absorbed;         /* a tuple call whose items are planned: its item nodes read its operands */
    int leader;           /* an item of a tuple: the node of the tuple's first item planned (itself for that one); -1 */
    int next_item;        /* an item of a tuple: the node of the tuple's next item, or -1 */
    int first_item, last_item;   /* a tuple call absorbed: its first and last items' nodes */
    const Expr *call;     /* what flow looks into: the value, or the tuple call of item */
    int item;
    TensorType t;
    Key *keys;            /* labels first; room for capkey, in the planner's arena */
    int nlab, nkey, capkey;
    int probed[MAX_LABELS], ok[MAX_LABELS];
    int store[MAX_LABELS];   /* the key label l stores the value in: l, or 0 for a reading label */
    Expr *reads[MAX_LABELS]; /* a reading label: a reduction reads its operand in this layout, its result as written */
    Expr **opmaps[MAX_LABELS];   /* [FLOW_MAX_ARGS] each, once label l is probed */
    Expr *const *items;
    int nitems;
    int own;              /* a rewrite kept as a value of its own (not a view): */
    int64_t own_bytes;    /* the bytes it reads and writes (0: of a constant) */
} Node;

/* What a variable of the block stands for: node's value seen through im
 * (NULL: as it is). */
typedef struct View {
    int node;
    IndexMap *im;
    int has_pad;          /* a rewrite on the way pads with pad */
    double pad;
    Expr *map;            /* im as written: the index map of the one rewrite of
                           * the node as written it is (fold composes a
                           * rewrite with it as written), or NULL */
} View;

/* flow's answer for a call plan probed, found again for a call of the same
 * operator on the same operand types and attributes asked the same layout:
 * a chain of calls, or the blocks of a model, ask flow the same question
 * many times, and its answer depends on nothing else (op_call_same is what
 * legalize shares a PrimFunc on). */
typedef struct Answer {
    uint64_t h;
    const Expr *call;
    TensorType *args;
    int nargs, item;
    IndexMap *im;         /* the layout asked (NULL: the identity of rank) */
    int rank;
    int has_pad;          /* a padded layout whose padding holds pad */
    double pad;
    int ok;
    Expr **opmaps;        /* [FLOW_MAX_ARGS], in the planner's arena */
    double *inpad;        /* has_pad: [FLOW_MAX_ARGS], what each operand's padding must hold */
    struct Answer *next;
} Answer;

typedef struct Answers {
    Answer **slots;
    size_t cap, n;
} Answers;

typedef struct Planner {
    Module *m;
    Func *fn;
    RBlock *rb;
    Arena a;              /* maps and keys: kept while the function is planned (its answers keep maps) */
    Arena scratch;
    Node *nodes;
    int n, cap;
    PtrMap at;            /* Var -> 1 + index in views */
    View *views;
    int nviews, capviews;
    Notes *notes;
    int64_t max_cells;    /* plan{max-cells=N} */
    Answers *answers;     /* kept across the blocks and rounds of one function */
    Arena *answer_arena;
    struct RwMemo **rw;   /* rewrite_of's answers by their two maps, in a */
    size_t rwcap, nrw;
    struct Memo **memo;   /* what the walk's rounds ask again (memo_find) */
    size_t memocap, nmemo;
    struct Twin {         /* an item read again: stored as its first read's node */
        Var *var;
        int node;
    } *twins;
    int ntwins;
    /* plan_block's tables: in the planner, which plan_func's guard frees if
     * an allocation fails while the block is planned */
    struct BlockTables {
        PtrMap uses, inreads, getitems, defined;
        struct UseList *ul;   /* nul lists; pb's uses are ul's */
        int nul;
        PlanProblem pb;
        int *as_written;
        PlanResult r;
    } bt;
} Planner;

typedef struct BlockTables BlockTables;

static int64_t tensor_bytes(const TensorType *t)
{
    int64_t n = dtype_size(t->dtype);
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static int add_view(Planner *P, Var *v, int node, IndexMap *im, int has_pad, double pad, Expr *map)
{
    if (P->nviews == P->capviews) {
        int cap = P->capviews ? 2 * P->capviews : 64;
        P->views = xrealloc(P->views, (size_t)cap * sizeof *P->views);
        P->capviews = cap;
    }
    P->views[P->nviews] = (View){ node, im, has_pad, pad, map };
    ptrmap_put(&P->at, v, ++P->nviews);
    return P->nviews - 1;
}

static int add_node(Planner *P, Var *v, Binding *bd)
{
    if (P->n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 64;
        P->nodes = xrealloc(P->nodes, (size_t)cap * sizeof *P->nodes);
        P->cap = cap;
    }
    Node *nd = &P->nodes[P->n];
    memset(nd, 0, sizeof *nd);
    nd->var = v;
    nd->bd = bd;
    nd->nlab = nd->nkey = 1;
    nd->capkey = 2;
    nd->leader = nd->next_item = nd->first_item = nd->last_item = -1;
    nd->keys = arena_array(&P->a, (size_t)nd->capkey, sizeof *nd->keys);
    for (int l = 0; l < MAX_LABELS; l++)
        nd->store[l] = l;
    if (sinfo_shape(v->sinfo, &nd->t.dtype, &nd->t.ndim, nd->t.shape) || nd->t.ndim > OP_MAX_RANK)
        nd->t.ndim = -1;
    else
        nd->keys[0].bytes = tensor_bytes(&nd->t);
    nd->constant = bd && bd->value->kind == E_CONST;
    add_view(P, v, P->n, NULL, 0, 0, NULL);
    return P->n++;
}

/* The view an operand is, or -1 (a constant written in place, or a value
 * without a static shape). */
static int view_of(Planner *P, const Expr *e)
{
    if (e->kind != E_VAR)
        return -1;
    int k = ptrmap_get(&P->at, e->u.var, 0);
    if (!k)
        return -1;
    return P->nodes[P->views[k - 1].node].t.ndim < 0 ? -1 : k - 1;
}

/* The walk over a block runs to a fixed point, up to 16 rounds, and each
 * asks again what the last computed: the same maps composed, inverted and
 * read, the same reductions tried. Their answers are kept under the
 * pointers they depend on (maps, expressions and keys are never changed
 * once made, so an answer kept is the answer computed again), in P->a. */
enum { MEMO_THROUGH, MEMO_INVERSE, MEMO_COMPOSE, MEMO_REBOX, MEMO_READING, MEMO_SHAPE, MEMO_EXPR };

typedef struct Memo {
    int tag;
    const void *k1, *k2;
    int64_t k3;
    void *v;
    int flag;
    struct Memo *next;
} Memo;

static size_t memo_slot(const Planner *P, int tag, const void *k1, const void *k2, int64_t k3)
{
    uint64_t h = ((uint64_t)(uintptr_t)k1 * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uintptr_t)k2 * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)k3 * 0x165667B19E3779F9ull) ^ (uint64_t)tag;
    return (size_t)(h ^ h >> 29) & (P->memocap - 1);
}

static Memo *memo_find(const Planner *P, int tag, const void *k1, const void *k2, int64_t k3)
{
    if (!P->memocap)
        return NULL;
    for (Memo *x = P->memo[memo_slot(P, tag, k1, k2, k3)]; x; x = x->next)
        if (x->tag == tag && x->k1 == k1 && x->k2 == k2 && x->k3 == k3)
            return x;
    return NULL;
}

static void *memo_add(Planner *P, int tag, const void *k1, const void *k2, int64_t k3, void *v, int flag)
{
    if (2 * (P->nmemo + 1) > P->memocap) {
        size_t old = P->memocap;
        Memo **slots = P->memo;
        size_t cap = old ? 2 * old : 256;
        Memo **fresh = xcalloc(cap, sizeof *fresh);
        if (!fresh)
            oom_fail();
        P->memo = fresh;   /* the old table still holds the entries: planner_free frees only this one */
        P->memocap = cap;
        for (size_t i = 0; i < old; i++)
            for (Memo *x = slots[i], *next; x; x = next) {
                next = x->next;
                size_t at = memo_slot(P, x->tag, x->k1, x->k2, x->k3);
                x->next = P->memo[at];
                P->memo[at] = x;
            }
        free(slots);
    }
    Memo *x = arena_alloc(&P->a, sizeof *x);
    size_t at = memo_slot(P, tag, k1, k2, k3);
    *x = (Memo){ tag, k1, k2, k3, v, flag, P->memo[at] };
    P->memo[at] = x;
    P->nmemo++;
    return v;
}

/* The inverse of im when it has no padding predicate, else NULL. */
static IndexMap *inverse_of(Planner *P, IndexMap *im)
{
    Memo *x = memo_find(P, MEMO_INVERSE, im, NULL, 0);
    if (x)
        return x->v;
    ImCond *pred = NULL;
    int npred = 0;
    ImError err;
    IndexMap *inv = im_inverse(&P->a, im, &pred, &npred, &err);
    return memo_add(P, MEMO_INVERSE, im, NULL, 0, inv && !npred ? inv : NULL, 0);
}

static IndexMap *compose_of(Planner *P, IndexMap *a, IndexMap *b)
{
    Memo *x = memo_find(P, MEMO_COMPOSE, a, b, 0);
    return x ? x->v : memo_add(P, MEMO_COMPOSE, a, b, 0, im_compose(&P->a, a, b), 0);
}

/* The first node of the block with node c's rank and shape: a chain's
 * values read through the same map share one answer. */
static int shape_rep(Planner *P, int c)
{
    const TensorType *t = &P->nodes[c].t;
    uint64_t h = (uint64_t)t->ndim + 1;
    for (int d = 0; d < t->ndim; d++)
        h = h * 1000003 + (uint64_t)t->shape[d];
    for (int64_t k = (int64_t)(h >> 1);; k++) {
        Memo *x = memo_find(P, MEMO_SHAPE, NULL, NULL, k);
        if (!x) {
            memo_add(P, MEMO_SHAPE, NULL, NULL, k, NULL, c);
            return c;
        }
        const TensorType *r = &P->nodes[x->flag].t;
        if (r->ndim == t->ndim && (t->ndim <= 0 || memcmp(r->shape, t->shape, (size_t)t->ndim * sizeof *t->shape) == 0))
            return x->flag;
    }
}

static IndexMap *through_map(Planner *P, const View *w, const Expr *d, int *bad);

/* d . im: a layout asked of the view's node, NULL for as written. */
static IndexMap *through(Planner *P, const View *w, const Expr *d, int *bad)
{
    *bad = 0;
    if (!d)
        return w->im;
    int rep = shape_rep(P, w->node);
    Memo *x = memo_find(P, MEMO_THROUGH, w->im, d, rep);
    if (x)
        return *bad = x->flag, x->v;
    IndexMap *c = through_map(P, w, d, bad);
    return memo_add(P, MEMO_THROUGH, w->im, d, rep, c, *bad);
}

/* im as an index map expression, one per map. */
static Expr *map_expr(Planner *P, IndexMap *im)
{
    Memo *x = memo_find(P, MEMO_EXPR, im, NULL, 0);
    return x ? x->v : memo_add(P, MEMO_EXPR, im, NULL, 0, im_to_expr(&P->a, &P->m->names, im), 0);
}

static IndexMap *through_map(Planner *P, const View *w, const Expr *d, int *bad)
{
    const Node *nd = &P->nodes[w->node];
    ImError err;
    int64_t box[IM_MAX_RANK];
    const int64_t *in = w->im ? w->im->obox : nd->t.shape;
    memcpy(box, in, (size_t)(w->im ? w->im->nout : nd->t.ndim) * sizeof *box);
    IndexMap *dm = im_from_expr(&P->a, d, box, &err);
    if (!dm)
        return *bad = 1, NULL;
    IndexMap *c = w->im ? im_compose(&P->a, dm, w->im) : dm;
    if (!c)
        *bad = 1;
    return c && im_is_identity(c) ? NULL : c;
}

/* Room for one key more in nd->keys. */
static void key_room(Planner *P, Node *nd)
{
    if (nd->nkey < nd->capkey)
        return;
    Key *k = arena_array(&P->a, (size_t)nd->capkey * 2, sizeof *k);
    memcpy(k, nd->keys, (size_t)nd->nkey * sizeof *k);
    nd->keys = k;
    nd->capkey *= 2;
}

/* A padded layout im of nd as flow_realize writes it: the bytes of the
 * padded box as written that its inverse gives, or 0 when its inverse is
 * not one to one over the padded box or does not cover the value (NCHW4c
 * on 1 channel, where c // 4 is 0). */
static int64_t padded_back(Planner *P, const Node *nd, IndexMap *im)
{
    ImCond *pred = NULL;
    int npred = 0;
    ImError err;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    IndexMap *inv = im_inverse(&P->scratch, im, &pred, &npred, &err);
    Expr *back = inv ? im_to_expr(&P->a, &P->m->names, inv) : NULL;
    IndexMap *bim = back ? im_from_expr(&P->scratch, back, im->obox, &err) : NULL;
    if (!bim || im_classify(bim, wa, wb) != IM_BIJECTIVE || bim->nout != nd->t.ndim)
        return 0;
    int64_t n = dtype_size(nd->t.dtype);
    for (int d = 0; d < nd->t.ndim; d++) {
        if (bim->obox[d] < nd->t.shape[d])
            return 0;
        n *= bim->obox[d];
    }
    return n;
}

/* The padded layout im of nd written as a map that gives its padded box
 * when read over nd's shape, or NULL. The normal form forgets a box larger
 * than its image (c % 4 over 3 channels is c, of extent 3): such an output
 * is written x % extent. */
static Expr *padded_map(Planner *P, const Node *nd, const IndexMap *im)
{
    ImError err;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    Expr *map = im_to_expr(&P->a, &P->m->names, im);
    IndexMap *rt = map && map->u.map.nparams == nd->t.ndim ? im_from_expr(&P->scratch, map, nd->t.shape, &err) : NULL;
    if (!rt || rt->nout != im->nout)
        return NULL;
    for (int q = 0; q < im->nout; q++)
        if (rt->obox[q] < im->obox[q]) {
            Expr *e = expr_new(&P->a, E_BIN, map->loc);
            e->u.bin.op = B_FLOORMOD;
            e->u.bin.a = map->u.map.out[q];
            e->u.bin.b = expr_int(&P->a, im->obox[q], DT_VOID, map->loc);
            map->u.map.out[q] = e;
        }
    rt = im_from_expr(&P->scratch, map, nd->t.shape, &err);
    if (!rt || rt->nout != im->nout || memcmp(rt->obox, im->obox, (size_t)im->nout * sizeof *im->obox) != 0 ||
        im_classify(rt, wa, wb) != IM_PADDED || !im_equal(rt, im))
        return NULL;
    return map;
}

/* Whether keys a and b name one layout, whoever asks it. */
static int key_same(const Key *a, const Key *b)
{
    if (!a->im || !b->im)
        return !a->im && !b->im;
    return a->im->nout == b->im->nout && a->has_pad == b->has_pad && (!a->has_pad || a->pad == b->pad) &&
           memcmp(a->im->obox, b->im->obox, (size_t)a->im->nout * sizeof *a->im->obox) == 0 && im_equal(a->im, b->im);
}

/* The key of im among node's, added when new (a label when as_label and
 * the map is one to one and onto, and there is room; a key apart from the
 * others when absorbed: a permute_dims asks it); -1 when full. */
static int key_of(Planner *P, Node *nd, IndexMap *im, int has_pad, double pad, int as_label, int absorbed)
{
    if (!im && !absorbed)
        return 0;
    if (has_pad && as_label && (pad != 0 || signbit(pad) || nd->item >= 0 || nd->leader >= 0))
        return -1;   /* flow_realize pads with 0 */
    const Key want = { .im = im, .has_pad = has_pad, .pad = pad };
    for (int k = 1; k < nd->nkey; k++)
        if (nd->keys[k].absorbed == absorbed && key_same(&nd->keys[k], &want))
            return k;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    if (as_label) {
        if (!nd->plannable || nd->nlab >= MAX_LABELS || nd->nkey > nd->nlab ||
            im_classify(im, wa, wb) != (has_pad ? IM_PADDED : IM_BIJECTIVE))
            return -1;
        int64_t back = has_pad ? padded_back(P, nd, im) : 0;
        if (has_pad && !back)
            return -1;
        Expr *map = has_pad ? padded_map(P, nd, im) : map_expr(P, im);
        if (!map)
            return -1;
        int64_t bytes = dtype_size(nd->t.dtype);
        for (int d = 0; d < im->nout; d++)
            bytes *= im->obox[d];
        key_room(P, nd);
        nd->keys[nd->nlab] = (Key){ im, has_pad, pad, map, bytes, 0, back, 0 };
        nd->store[nd->nlab] = nd->nlab;
        nd->nkey = ++nd->nlab;
        return nd->nlab - 1;
    }
    if (nd->nkey >= MAX_KEYS)
        return -1;
    int64_t bytes = dtype_size(nd->t.dtype);
    for (int d = 0; im && d < im->nout; d++)
        bytes *= im->obox[d];
    key_room(P, nd);
    nd->keys[nd->nkey] = (Key){ im, has_pad, pad, NULL, im ? bytes : nd->keys[0].bytes, absorbed, 0, 0 };
    return nd->nkey++;
}

static uint64_t im_key(const IndexMap *im, int rank)
{
    uint64_t h = im ? (uint64_t)im->nin * 131 + (uint64_t)im->nout : (uint64_t)rank;
    for (int d = 0; im && d < im->nout; d++)
        h = h * 1000003 + (uint64_t)im->obox[d];
    return h;
}

/* The key of a call's answer, or 0 with *nargs = -1 when it is not kept
 * (call_tir, an unknown operator, an operand without a static type). */
static uint64_t answer_key(const Expr *e, TensorType *args, int *nargs)
{
    *nargs = -1;
    if (e->kind != E_CALL || !e->u.call.op || !op_find(e->u.call.op->str) || is_call_to(e, "R.call_tir") ||
        e->u.call.nargs > OP_MAX_ARGS)
        return 0;
    int n = 0;
    for (int i = 0; i < e->u.call.nargs; i++) {
        if (e->u.call.args[i]->kind != E_VAR)
            break;   /* the operands lead; attributes follow */
        if (value_type(e->u.call.args[i], &args[n]))
            return 0;
        n++;
    }
    *nargs = n;
    return op_call_hash(e, args, n);
}

/* key->args is args, the caller's (answer_add keeps a copy). */
static Answer *answer_find(Planner *P, const Expr *e, int item, IndexMap *im, int rank, const double *pad, Answer *key,
                           TensorType *args)
{
    key->nargs = -1;
    if (!P->answers)
        return NULL;
    int nargs;
    uint64_t h = answer_key(e, args, &nargs);
    if (nargs < 0)
        return NULL;
    h = h * 31 + im_key(im, rank) + (uint64_t)(item + 1) * 0x9E3779B97F4A7C15ull + (pad ? 7 : 0);
    *key = (Answer){ .h = h, .call = e, .nargs = nargs, .item = item, .im = im, .rank = rank, .has_pad = pad != NULL,
                     .pad = pad ? *pad : 0 };
    key->args = args;
    for (Answer *x = P->answers->cap ? P->answers->slots[h & (P->answers->cap - 1)] : NULL; x; x = x->next)
        if (x->h == h && x->item == item && x->nargs == nargs && x->rank == rank && !x->im == !im &&
            x->has_pad == (pad != NULL) && (!pad || (x->pad == *pad && signbit(x->pad) == signbit(*pad))) &&
            (!im || (x->im->nin == im->nin && x->im->nout == im->nout &&
                     memcmp(x->im->obox, im->obox, (size_t)im->nout * sizeof *im->obox) == 0 && im_equal(x->im, im))) &&
            op_call_same(x->call, x->args, e, args, nargs))
            return x;
    return NULL;
}

static void answer_add(Planner *P, const Answer *key, int ok, Expr **opmaps, const double *inpad)
{
    Answers *A = P->answers;
    if (!A || key->nargs < 0)
        return;
    if (2 * (A->n + 1) > A->cap) {
        size_t cap = A->cap ? 2 * A->cap : 64;
        Answer **slots = xcalloc(cap, sizeof *slots);
        for (size_t i = 0; i < A->cap; i++)
            for (Answer *x = A->slots[i], *next; x; x = next) {
                next = x->next;
                x->next = slots[x->h & (cap - 1)];
                slots[x->h & (cap - 1)] = x;
            }
        free(A->slots);
        A->slots = slots;
        A->cap = cap;
    }
    Answer *x = arena_zalloc(P->answer_arena, sizeof *x);
    *x = *key;
    x->args = arena_array(P->answer_arena, (size_t)key->nargs + 1, sizeof *x->args);
    memcpy(x->args, key->args, (size_t)key->nargs * sizeof *x->args);
    x->ok = ok;
    x->opmaps = opmaps;
    if (inpad) {
        x->inpad = arena_array(P->answer_arena, FLOW_MAX_ARGS, sizeof *x->inpad);
        memcpy(x->inpad, inpad, FLOW_MAX_ARGS * sizeof *x->inpad);
    }
    x->next = A->slots[x->h & (A->cap - 1)];
    A->slots[x->h & (A->cap - 1)] = x;
    A->n++;
}

/* flow_probe_pad through P's answers (pad NULL: no padding asked; inpad
 * is filled when pad is not NULL). */
static int probe_call(Planner *P, const Expr *call, int item, IndexMap *im, int rank, const Expr *map, const double *pad,
                      Expr **opmaps, double *inpad, Expr *const **items, int *n, char *why, size_t cap)
{
    Answer key;
    TensorType args[OP_MAX_ARGS];
    Answer *x = answer_find(P, call, item, im, rank, pad, &key, args);
    if (x) {
        memcpy(opmaps, x->opmaps, FLOW_MAX_ARGS * sizeof *opmaps);
        if (pad && x->inpad)
            memcpy(inpad, x->inpad, FLOW_MAX_ARGS * sizeof *inpad);
        *items = call->u.call.args;
        *n = key.nargs;
        snprintf(why, cap, "%s", "as before");
        return x->ok ? 0 : -1;
    }
    if (pad)
        for (int k = 0; k < FLOW_MAX_ARGS; k++)
            inpad[k] = NAN;
    int rc = flow_probe_pad(P->m, &P->scratch, P->answer_arena, call, item, map, pad, opmaps, pad ? inpad : NULL, items,
                            n, why, cap);
    if (key.nargs >= 0 && (rc != 0 || (*n == key.nargs && *items == call->u.call.args))) {
        Expr **keep = arena_array(P->answer_arena, FLOW_MAX_ARGS, sizeof *keep);
        memcpy(keep, opmaps, FLOW_MAX_ARGS * sizeof *keep);
        answer_add(P, &key, rc == 0, keep, pad ? inpad : NULL);
    }
    return rc;
}

static int probe(Planner *P, Node *nd, int l)
{
    if (l == 0 || nd->probed[l])
        return l == 0 || nd->ok[l];
    char why[320];
    Expr *const *items;
    int n;
    nd->probed[l] = 1;
    nd->opmaps[l] = arena_array(&P->a, FLOW_MAX_ARGS, sizeof *nd->opmaps[l]);
    if (nd->keys[l].has_pad) {   /* a padded label: what keeps its padding pad, and what that asks */
        nd->inpad[l] = arena_array(&P->a, FLOW_MAX_ARGS, sizeof *nd->inpad[l]);
        nd->ok[l] = probe_call(P, nd->call, nd->item, nd->keys[l].im, nd->t.ndim, nd->keys[l].map, &nd->keys[l].pad,
                               nd->opmaps[l], nd->inpad[l], &items, &n, why, sizeof why) == 0;
    } else if (nd->store[l] == 0)   /* a unit label: its map, not its normal form, says what is read */
        nd->ok[l] = flow_probe(P->m, &P->scratch, &P->a, nd->call, nd->item, nd->keys[l].map, nd->opmaps[l], &items,
                               &n, why, sizeof why) == 0;
    else
        nd->ok[l] = probe_call(P, nd->call, nd->item, nd->keys[l].im, nd->t.ndim, nd->keys[l].map, NULL, nd->opmaps[l], NULL,
                               &items, &n, why, sizeof why) == 0;
    return nd->ok[l];
}

/* Whether a value's operands are all constants (data: the count of them, -1
 * once one is not). */
static void count_constant(Planner *P, const Expr *e, void *data)
{
    int *n = data, w = view_of(P, e);
    *n = *n < 0 || w < 0 || !P->nodes[P->views[w].node].constant ? -1 : *n + 1;
}

/* Every operand expression of a value that is not a plannable call. */
static void operands_walk(const Expr *e, void (*fn)(Planner *, const Expr *, void *), Planner *P, void *data)
{
    switch (e->kind) {
    case E_VAR:
        fn(P, e, data);
        return;
    case E_TUPLE: case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            operands_walk(e->u.list.items[i], fn, P, data);
        return;
    case E_GETITEM:
        operands_walk(e->u.get.tuple, fn, P, data);
        return;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++)
            operands_walk(e->u.call.args[i], fn, P, data);
        return;
    default:
        return;
    }
}

/* ---- the uses ---- */

typedef struct UseList {
    PlanUse *v;
    int n, cap;
} UseList;

static void use_add(Planner *P, UseList *ul, int user, const int *keys, int nk)
{
    (void)P;
    if (ul->n == ul->cap) {
        ul->cap = ul->cap ? 2 * ul->cap : 4;
        ul->v = xrealloc(ul->v, (size_t)ul->cap * sizeof *ul->v);
    }
    PlanUse *u = &ul->v[ul->n];
    u->user = user;
    u->key = xmalloc((size_t)nk * sizeof *u->key);
    memcpy(u->key, keys, (size_t)nk * sizeof *u->key);
    ul->n++;   /* counted once its key is had: block_tables_free frees the keys counted */
}

/* Frees what plan_block holds, as far as it got; each freed table is left
 * empty, so that freeing twice is harmless. */
static void block_tables_free(BlockTables *T)
{
    for (int c = 0; T->ul && c < T->nul; c++) {
        for (int u = 0; u < T->ul[c].n; u++)
            free(T->ul[c].v[u].key);
        free(T->ul[c].v);
    }
    for (int c = 0; T->pb.vars && c < T->pb.n; c++) {
        free(T->pb.vars[c].unary);
        free(T->pb.vars[c].rewrite);
        free(T->pb.vars[c].store);
        free(T->pb.vars[c].share);
    }
    free(T->pb.vars);
    free(T->ul);
    free(T->as_written);
    free(T->r.label);
    ptrmap_free(&T->uses);
    ptrmap_free(&T->inreads);
    ptrmap_free(&T->getitems);
    ptrmap_free(&T->defined);
    memset(T, 0, sizeof *T);
}

typedef struct Walk {
    UseList *uses;
    int phase;            /* 0: candidates; 1: uses */
    int changed;
} Walk;

/* A padding of a crop's result that restores what the crop dropped reads
 * the uncropped value instead (fold's pad_of_crop): the view *v asking im
 * padded with pad becomes the crop's operand's view asking its layout im
 * (one to one there). Returns 1 when redirected (*v, *im updated). */
static int past_crop(Planner *P, View *v, IndexMap **im, int has_pad, double pad)
{
    const Node *nd = &P->nodes[v->node];
    if (!nd->crop_of || !has_pad || !*im || pad != nd->cropped || signbit(pad) != signbit(nd->cropped))
        return 0;
    const View *z = &P->views[nd->crop_of - 1];
    const Node *zn = &P->nodes[z->node];
    ImError err;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK], box[IM_MAX_RANK];
    int rank = z->im ? z->im->nout : zn->t.ndim;
    memcpy(box, z->im ? z->im->obox : zn->t.shape, (size_t)rank * sizeof *box);
    Expr *map = im_to_expr(&P->a, &P->m->names, *im);
    IndexMap *zm = map && map->u.map.nparams == rank ? im_from_expr(&P->a, map, box, &err) : NULL;
    if (!zm || zm->nout != (*im)->nout || im_classify(zm, wa, wb) != IM_BIJECTIVE ||
        memcmp(zm->obox, (*im)->obox, (size_t)zm->nout * sizeof *zm->obox) != 0)
        return 0;
    int bad = 0;
    IndexMap *c = through(P, z, map, &bad);
    if (bad)
        return 0;
    *v = *z;
    *im = c;
    return 1;
}

/* A use of operand e as it is written, by a value that keeps its layout. */
static void fixed_use(Planner *P, const Expr *e, void *data)
{
    Walk *W = data;
    int w = view_of(P, e);
    if (w < 0)
        return;
    View v = P->views[w];
    IndexMap *vim = v.im;
    if (past_crop(P, &v, &vim, v.has_pad, v.pad))
        v.im = vim;
    Node *nd = &P->nodes[v.node];
    if (W->phase == 0) {
        int before = nd->nlab;
        key_of(P, nd, v.im, v.has_pad, v.pad, 1, 0);
        W->changed |= nd->nlab != before;
        return;
    }
    int k = key_of(P, nd, v.im, v.has_pad, v.pad, 0, 0);
    if (k >= nd->nlab && !nd->keys[k].map && v.map && v.im)
        nd->keys[k].map = v.map;   /* what fold composes with: the map as written */
    use_add(P, &W->uses[v.node], -1, &k, 1);
}

/* A reduction may read its operand in the layout cand (over the operand's
 * shape sh) with its axes renumbered and its result as written: a label
 * that stores as label 0 does and asks cand of the operand. Returns 1 when
 * added. */
static int reading_label(Planner *P, Node *nc, IndexMap *cand, const int64_t *sh, int rank)
{
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    if (nc->nlab >= MAX_LABELS || nc->nkey > nc->nlab || cand->nin != rank || cand->nout != rank ||
        im_classify(cand, wa, wb) != IM_BIJECTIVE)
        return 0;
    for (int l = 1; l < nc->nlab; l++)
        if (nc->reads[l] && im_equal(nc->keys[l].im ? nc->keys[l].im : cand, cand) && nc->keys[l].im)
            return 0;
    Expr *pm = im_to_expr(&P->a, &P->m->names, cand);
    TensorType pt = { .dtype = nc->t.dtype, .ndim = rank };
    memcpy(pt.shape, sh, (size_t)rank * sizeof *sh);
    if (!pm || !flow_reduce_reading(P->m, nc->call, pm, &pt, &nc->t, nc->var->loc))
        return 0;
    for (int l = 1; l < nc->nlab; l++)
        if (nc->reads[l] && expr_equal(nc->reads[l], pm))
            return 0;
    int l = nc->nlab;
    key_room(P, nc);
    nc->keys[l] = (Key){ NULL, 0, 0, NULL, nc->keys[0].bytes, 0, 0, 0 };
    nc->opmaps[l] = arena_array(&P->a, FLOW_MAX_ARGS, sizeof *nc->opmaps[l]);
    nc->store[l] = 0;
    nc->reads[l] = pm;
    nc->probed[l] = nc->ok[l] = 1;
    nc->opmaps[l][0] = pm;
    nc->nkey = ++nc->nlab;
    return 1;
}

/* A layout that is the identity on the value's box (a permutation of
 * extent-1 dimensions: any layout of a (1, 1, 1, 1) value) stores it as
 * written, yet the call computing "in" it reads its operands in that
 * layout: a label that stores as label 0 does and asks what flow says of
 * the map. Returns 1 when added. */
static int unit_label(Planner *P, Node *nc, IndexMap *cand)
{
    if (!nc->plannable || nc->nlab >= MAX_LABELS || nc->nkey > nc->nlab)
        return 0;
    Expr *map = im_to_expr(&P->a, &P->m->names, cand);
    int plain = map && map->u.map.nout == map->u.map.nparams;
    for (int q = 0; plain && q < map->u.map.nout; q++)
        plain = map->u.map.out[q]->kind == E_VAR && map->u.map.out[q]->u.var == map->u.map.params[q];
    if (!map || plain)
        return 0;   /* as written in every box */
    char text[400], other[400];
    expr_text(map, text, sizeof text);
    for (int l = 1; l < nc->nlab; l++)
        if (nc->store[l] == 0 && !nc->reads[l] && strcmp(expr_text(nc->keys[l].map, other, sizeof other), text) == 0)
            return 0;
    int l = nc->nlab;
    key_room(P, nc);
    nc->keys[l] = (Key){ cand, 0, 0, map, nc->keys[0].bytes, 0, 0, 0 };
    nc->store[l] = 0;
    nc->nkey = ++nc->nlab;
    return 1;
}

/* A call reading a crop (nd) may compute in the layouts of the crop's
 * operand padded with what the crop dropped, reading the crop's operand
 * past it (past_crop): padded candidates of nc. */
static void padded_past_crop(Planner *P, Node *nc, const Node *nd, Walk *W)
{
    const View *z = &P->views[nd->crop_of - 1];
    const Node *zn = &P->nodes[z->node];
    IndexMap *inv = NULL;
    if (z->im) {
        ImCond *pred = NULL;
        int npred = 0;
        ImError err;
        inv = im_inverse(&P->a, z->im, &pred, &npred, &err);
        if (!inv || npred)
            return;
    }
    int64_t box[IM_MAX_RANK], wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    memcpy(box, nc->t.shape, (size_t)nc->t.ndim * sizeof *box);
    for (int l = 0; l < zn->nlab; l++) {
        IndexMap *lb = zn->keys[l].im;
        if ((l && l == zn->gone) || zn->keys[l].has_pad || zn->store[l] != l)
            continue;
        IndexMap *cand = !lb ? inv : !inv ? lb : im_compose(&P->a, lb, inv);
        ImError err;
        Expr *map = cand ? im_to_expr(&P->a, &P->m->names, cand) : NULL;
        cand = map && map->u.map.nparams == nc->t.ndim ? im_from_expr(&P->a, map, box, &err) : NULL;
        if (!cand || im_classify(cand, wa, wb) != IM_PADDED)
            continue;
        int before = nc->nlab;
        key_of(P, nc, cand, 1, nd->cropped, 1, 0);
        W->changed |= nc->nlab != before;
    }
}

/* Forward candidates: a call whose result has an operand's shape may
 * compute in the layout that operand is stored in (seen through its view),
 * so that an elementwise chain after a frozen call can stay in its layout. */
static void forward_candidates(Planner *P, int c, Walk *W)
{
    Node *nc = &P->nodes[c];
    for (int s = 0; s < nc->nitems; s++) {
        int w = view_of(P, nc->items[s]);
        if (w < 0)
            continue;
        View v = P->views[w];
        Node *nd = &P->nodes[v.node];
        const int64_t *sh = v.im ? v.im->obox : nd->t.shape;
        int rank = v.im ? v.im->nout : nd->t.ndim;
        int same = rank == nc->t.ndim && memcmp(sh, nc->t.shape, (size_t)rank * sizeof *sh) == 0;
        IndexMap *inv = NULL;
        if (v.im && !(inv = inverse_of(P, v.im)))
            continue;
        for (int l = 0; l < nd->nlab; l++) {
            IndexMap *lb = nd->keys[l].im;
            int lpad = nd->keys[l].has_pad;
            if ((l && l == nd->gone) || (lpad && (v.im || !same)))
                continue;   /* a padded layout carries over the same shape only */
            IndexMap *cand = !lb ? inv : !inv ? lb : compose_of(P, lb, inv);
            /* once per candidate: reading_label tells its labels apart by
             * expr_equal, which compares index maps by identity, so asked
             * again it added the same label once more each round (a random
             * graph of 1,000 operators: 35 reading labels for 7, and the walk
             * ran 11 rounds instead of 6); the first of equal labels wins the
             * solver's ties, so the plan is the same, unless the copies filled
             * the labels a value may take, which now stay for other candidates */
            if (nc->nitems == 1 && cand && !lpad && !im_is_identity(cand) && !memo_find(P, MEMO_READING, cand, sh, c)) {
                memo_add(P, MEMO_READING, cand, sh, c, NULL, 0);
                W->changed |= reading_label(P, nc, cand, sh, rank);
            }
            if (rank != nc->t.ndim)
                continue;
            if (cand && !same) {   /* the same map read over the result's shape (a concat's parts) */
                Memo *x = memo_find(P, MEMO_REBOX, cand, NULL, c);
                if (x) {
                    cand = x->v;
                } else {
                    ImError err;
                    int64_t box[IM_MAX_RANK];
                    memcpy(box, nc->t.shape, (size_t)nc->t.ndim * sizeof *box);
                    cand = memo_add(P, MEMO_REBOX, cand, NULL, c,
                                    im_from_expr(&P->a, im_to_expr(&P->a, &P->m->names, cand), box, &err), 0);
                }
            }
            if (cand && !lpad && im_is_identity(cand) && nc->nitems > 0) {
                W->changed |= unit_label(P, nc, cand);
                continue;
            }
            if (!cand)
                continue;
            int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
            if (!lpad && !same && im_classify(cand, wa, wb) == IM_PADDED)
                lpad = 1;   /* the parts' layout pads the result: a padded candidate, padding 0 */
            int before = nc->nlab;
            key_of(P, nc, cand, lpad, lpad && nd->keys[l].has_pad ? nd->keys[l].pad : 0, 1, 0);
            W->changed |= nc->nlab != before;
        }
        if (nd->crop_of && !v.im && rank == nc->t.ndim)
            padded_past_crop(P, nc, nd, W);
    }
}

/* A label reading view v (a rewrite of v's node) in layout opmap asks the
 * node for the composite, key; where that is padded into a box one rewrite
 * cannot write (fold_one_rewrite), fold keeps v's rewrite and the one flow
 * moves onto it: the value as written passes through v's layout. */
static int64_t view_bytes(Planner *P, const View *v, const IndexMap *im);

static void via_view(Planner *P, Key *key, const View *v, const Expr *opmap)
{
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    if (key->via_bytes || !key->im || im_classify(key->im, wa, wb) != IM_PADDED ||
        fold_one_rewrite(P->m, key->im, v->map, opmap))
        return;
    key->via_bytes = view_bytes(P, v, v->im);
}

/* The uses a plannable call makes of its operands, under each of its labels. */
static void call_uses(Planner *P, int c, Walk *W)
{
    Node *nc = &P->nodes[c];
    for (int l = 0; l < nc->nlab; l++)
        probe(P, nc, l);
    for (int s = 0; s < nc->nitems; s++) {
        int w = view_of(P, nc->items[s]);
        if (w < 0)
            continue;
        /* keys: what each label asks of the operand's node; past: of the
         * node of the crop's operand, where a padding reads past a crop */
        int keys[MAX_LABELS], past[MAX_LABELS], zn = -1;
        for (int l = 0; l < nc->nlab; l++) {
            View v = P->views[w];
            keys[l] = past[l] = -1;
            if (l && (!nc->ok[l] || l == nc->gone))
                continue;
            int bad = 0, hp = v.has_pad;
            double pv = v.pad;
            IndexMap *im = l == 0 ? v.im : through(P, &v, nc->opmaps[l][s], &bad);
            int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
            if (!bad && l && nc->inpad[l] && !isnan(nc->inpad[l][s]) && im && im_classify(im, wa, wb) == IM_PADDED) {
                /* a padded label reads this operand padded with inpad */
                bad = v.has_pad;
                hp = 1;
                pv = nc->inpad[l][s];
            }
            if (bad) {
                if (nc->keys[l].has_pad)
                    nc->ok[l] = 0;
                continue;
            }
            int redirected = past_crop(P, &v, &im, hp, pv);
            if (redirected) {
                hp = v.has_pad;
                pv = v.pad;
            }
            Node *nd = &P->nodes[v.node];
            if (W->phase == 0) {
                int before = nd->nlab;
                key_of(P, nd, im, hp, pv, 1, 0);
                W->changed |= nd->nlab != before;
            } else if (redirected) {
                past[l] = key_of(P, nd, im, hp, pv, 0, 0);
                zn = v.node;
            } else {
                keys[l] = key_of(P, nd, im, hp, pv, 0, nc->permute);
                if (l == 0 && keys[l] >= nd->nlab && !nd->keys[keys[l]].map && v.map && v.im)
                    nd->keys[keys[l]].map = v.map;   /* read as written: fold composes with the map as written */
                if (l && keys[l] > 0 && v.im && im)
                    via_view(P, &nd->keys[keys[l]], &v, nc->opmaps[l][s]);
            }
        }
        if (W->phase == 1 && nc->leader >= 0 && nc->leader != c)
            continue;   /* the tuple's call reads its operands once, as its first item's label says */
        if (W->phase == 1) {
            use_add(P, &W->uses[P->views[w].node], c, keys, nc->nlab);
            if (zn >= 0)
                use_add(P, &W->uses[zn], c, past, nc->nlab);
        }
    }
}

/* How often each variable is read inside the block (operands of its bindings). */
static void count_read(Planner *P, const Expr *e, void *data)
{
    (void)P;
    PtrMap *reads = data;
    ptrmap_put(reads, e->u.var, ptrmap_get(reads, e->u.var, 0) + 1);
}

static void walk_block(Planner *P, Walk *W, const PtrMap *uses, const PtrMap *reads)
{
    RBlock *rb = P->rb;
    for (int i = 0; W->phase == 0 && i < rb->nbinds; i++) {
        int k = ptrmap_get(&P->at, rb->binds[i]->var, 0), c = P->views[k - 1].node;
        if (P->nodes[c].var == rb->binds[i]->var && (P->nodes[c].plannable || P->nodes[c].readable))
            forward_candidates(P, c, W);
    }
    for (int i = rb->nbinds - 1; i >= 0; i--) {
        Binding *bd = rb->binds[i];
        int k = ptrmap_get(&P->at, bd->var, 0);
        /* read after the block (an output, the result): as written */
        if (k && ptrmap_get(uses, bd->var, 0) > ptrmap_get(reads, bd->var, 0))
            fixed_use(P, &(Expr){ .kind = E_VAR, .u.var = bd->var }, W);
        int c = P->views[k - 1].node;
        if (P->nodes[c].var != bd->var)
            continue;   /* a view: its readers ask through it */
        if (P->nodes[c].plannable || P->nodes[c].readable)
            call_uses(P, c, W);
        else if (!P->nodes[c].absorbed)
            operands_walk(bd->value, fixed_use, P, W);
    }
}

/* ---- the plan of one block ---- */

static void outside(Planner *P, const Expr *e, void *data)
{
    if (!ptrmap_get(data, e->u.var, 0) && !ptrmap_get(&P->at, e->u.var, 0))
        add_node(P, e->u.var, NULL);
}

/* The label of nd whose layout is written as text, or -1 (0: as written). */
static int label_written(Planner *P, const Node *nd, const char *text)
{
    char buf[400];
    if (!*text)
        return 0;
    for (int l = 1; l < nd->nlab; l++)
        if (nd->store[l] == l && !nd->keys[l].has_pad && nd->keys[l].map &&
            strcmp(expr_text(nd->keys[l].map, buf, sizeof buf), text) == 0)
            return l;
    return -1;
}

/* The items of one tuple move through its call together: each takes every
 * layout another can (over its own shape), as a label. */
static void share_item_labels(Planner *P)
{
    char text[400];
    for (int c = 0; c < P->n; c++) {
        Node *nd = &P->nodes[c];
        if (nd->leader < 0)
            continue;
        for (int o = nd->leader; o >= 0; o = P->nodes[o].next_item) {
            Node *od = &P->nodes[o];
            if (o == c || od->t.ndim != nd->t.ndim)
                continue;
            for (int l = 1; l < od->nlab; l++) {
                if (od->store[l] != l || !od->keys[l].map || od->keys[l].has_pad ||
                    label_written(P, nd, expr_text(od->keys[l].map, text, sizeof text)) >= 0)
                    continue;
                ImError err;
                IndexMap *im = im_from_expr(&P->a, od->keys[l].map, nd->t.shape, &err);
                if (im && !im_is_identity(im))
                    key_of(P, nd, im, 0, 0, 1, 0);
            }
        }
    }
}

/* An item in another layout than the tuple's first item pays a rewrite
 * from that layout to its own (what moving the items together leaves): a
 * use of the item by the first item's node asking the item's label of
 * the same layout. */
static void items_together(Planner *P, UseList *ul)
{
    char text[400];
    for (int c = 0; c < P->n; c++) {
        Node *nd = &P->nodes[c];
        if (nd->leader < 0 || nd->leader == c)
            continue;
        Node *ld = &P->nodes[nd->leader];
        int keys[MAX_LABELS];
        for (int l = 0; l < ld->nlab; l++)
            keys[l] = ld->store[l] != l ? -1 : l == 0 ? 0 : label_written(P, nd, expr_text(ld->keys[l].map, text, sizeof text));
        use_add(P, &ul[c], nd->leader, keys, ld->nlab);
    }
}

/* An item left as written while its tuple's first item moves costs what
 * it would stored in the first item's layout (items_together's rewrite
 * from there), but flow moves a tuple's call only with every item it
 * reads: the item takes that layout as its label, and its rewrite is the
 * one back to as written. Whether a label changed. */
static int items_follow(Planner *P, const PlanProblem *pb, int *label)
{
    char text[400];
    int changed = 0;
    for (int c = 0; c < P->n; c++) {
        Node *nd = &P->nodes[c];
        if (nd->leader < 0 || nd->leader == c || label[c] != 0 || label[nd->leader] == 0)
            continue;
        const Node *ld = &P->nodes[nd->leader];
        int l = label[nd->leader];
        if (ld->store[l] != l || !ld->keys[l].map)
            continue;
        int k = label_written(P, nd, expr_text(ld->keys[l].map, text, sizeof text));
        if (k > 0 && k < nd->nlab && pb->vars[c].unary[k] < PLAN_INF) {
            label[c] = k;
            changed = 1;
        }
    }
    return changed;
}

static const char *layout_text(Planner *P, const Key *k, char *buf, size_t cap)
{
    if (!k->im)
        return "as written";
    return expr_text(k->map ? k->map : im_to_expr(&P->a, &P->m->names, k->im), buf, cap);
}

/* Whether im only permutes the axes: each output one whole input, none
 * twice (what fold writes as a permute_dims). */
static int only_permutes(const IndexMap *im)
{
    int seen[IM_MAX_RANK] = { 0 };
    if (im->nin != im->nout)
        return 0;
    for (int q = 0; q < im->nout; q++) {
        const ImSum *s = im->out[q];
        const ImTerm *t = s->n == 1 ? &s->t[0] : NULL;
        if (!t || s->k || t->var < 0 || t->coef != 1 || t->lo != 1 || (t->hi && t->hi < im->box[t->var]) ||
            seen[t->var]++)
            return 0;
    }
    return 1;
}

/* The map from a node's layout a to b, neither as written both, or NULL
 * when it cannot be said. */
static IndexMap *between(Planner *P, const Key *a, const Key *b)
{
    ImCond *pred = NULL;
    int npred = 0;
    ImError err;
    IndexMap *inv = a->im ? im_inverse(&P->scratch, a->im, &pred, &npred, &err) : NULL;
    if (a->im && (!inv || npred))
        return NULL;
    return !b->im ? inv : !inv ? b->im : im_compose(&P->scratch, b->im, inv);
}

/* Whether the rewrite from a to b goes in two (fold_one_rewrite), kept by
 * the two maps: the values of a model share a few layouts, and inverting
 * and composing them again for every value, label and key was a quarter of
 * plan's time on a random graph of 1,000 operators. */
typedef struct RwMemo {
    const IndexMap *a, *b;
    const Expr *bmap;
    uint64_t h;
    int two;
    struct RwMemo *next;
} RwMemo;

static uint64_t im_shape_hash(const IndexMap *im, uint64_t h)
{
    h = h * 131 + (uint64_t)im->nin * 17 + (uint64_t)im->nout;
    for (int d = 0; d < im->nin; d++)
        h = h * 1000003 + (uint64_t)im->box[d];
    for (int d = 0; d < im->nout; d++)
        h = h * 1000003 + (uint64_t)im->obox[d];
    return h;
}

static int im_same(const IndexMap *x, const IndexMap *y)
{
    return x == y || (x->nin == y->nin && x->nout == y->nout &&
                      memcmp(x->box, y->box, (size_t)x->nin * sizeof *x->box) == 0 && im_equal(x, y));
}

static int two_rewrites(Planner *P, const IndexMap *a, const IndexMap *b, const Expr *bmap)
{
    uint64_t h = im_shape_hash(b, im_shape_hash(a, 0));
    for (RwMemo *x = P->rwcap ? P->rw[h & (P->rwcap - 1)] : NULL; x; x = x->next)
        if (x->h == h && x->bmap == bmap && im_same(x->a, a) && im_same(x->b, b))
            return x->two;
    ArenaMark mark = arena_mark(&P->scratch);
    ImCond *pred = NULL;
    int npred = 0;
    ImError err;
    IndexMap *inv = im_inverse(&P->scratch, a, &pred, &npred, &err);
    IndexMap *c = inv && !npred ? im_compose(&P->scratch, b, inv) : NULL;
    int two = c && !fold_one_rewrite(P->m, c, bmap ? im_to_expr(&P->scratch, &P->m->names, inv) : NULL, bmap);
    arena_release(&P->scratch, mark);
    if (2 * (P->nrw + 1) > P->rwcap) {
        size_t cap = P->rwcap ? 2 * P->rwcap : 64;
        RwMemo **slots = xcalloc(cap, sizeof *slots);
        if (!slots)
            oom_fail();
        for (size_t i = 0; i < P->rwcap; i++)
            for (RwMemo *x = P->rw[i], *next; x; x = next) {
                next = x->next;
                x->next = slots[x->h & (cap - 1)];
                slots[x->h & (cap - 1)] = x;
            }
        free(P->rw);
        P->rw = slots;
        P->rwcap = cap;
    }
    RwMemo *x = arena_alloc(&P->a, sizeof *x);
    *x = (RwMemo){ a, b, bmap, h, two, P->rw[h & (P->rwcap - 1)] };
    P->rw[h & (P->rwcap - 1)] = x;
    P->nrw++;
    return two;
}

/* What a rewrite of nd from label l to key k leaves: none when fold
 * composes it into a permute_dims (it only permutes the axes, and a
 * permute_dims asks it or computes nd); one rewrite, or two when one value
 * cannot write the composite (fold_one_rewrite: from a stored layout to a
 * padded layout of another box), which then goes through the layout as
 * written; *bytes, what they read and write. */
static int rewrite_of(Planner *P, const Node *nd, int l, int k, int64_t *bytes)
{
    const Key *a = &nd->keys[nd->store[l]], *b = &nd->keys[k];
    *bytes = a->bytes + b->bytes;
    if (l == nd->gone && l)
        return nd->store[l] == k ? 1 : -1;   /* nothing may read a crop that is gone */
    if (a->has_pad && nd->store[l] != k) {
        /* a padded label as written: the rewrite back over the padded box,
         * then the crop; to any other layout, not modelled */
        if (b->im || b->absorbed)
            return -1;
        *bytes = a->bytes + 2 * a->back_bytes + b->bytes;
        return 2;
    }
    if ((b->absorbed || nd->permute) && !b->has_pad && nd->store[l] != k) {
        ArenaMark mark = arena_mark(&P->scratch);
        IndexMap *c = !a->im && !b->im ? NULL : between(P, a, b);
        /* the same map asked apart (a permute_dims asks its own key) moves nothing */
        int free_ = (!a->im && !b->im) || (a->im && b->im && im_same(a->im, b->im)) || (c && only_permutes(c));
        arena_release(&P->scratch, mark);
        if (free_)
            return *bytes = 0, 0;
    }
    if (!a->im && b->via_bytes && nd->store[l] != k) {
        *bytes = a->bytes + 2 * b->via_bytes + b->bytes;
        return 2;
    }
    if (!a->im || !b->im || nd->store[l] == k || !two_rewrites(P, a->im, b->im, b->map))
        return 1;
    *bytes = a->bytes + 2 * nd->keys[0].bytes + b->bytes;
    return 2;
}

/* The rewrites that are one (PlanVar's share), or NULL when none is: under
 * a label where a permute_dims' own key costs a rewrite (the map does not
 * only permute the stored axes), that rewrite is the one to the same layout
 * asked by others, and fold writes it once for all of them. */
static int *key_shares(const Node *nd, const int64_t *rewrite)
{
    int *share = NULL;
    for (int k = 1; k < nd->nkey; k++) {
        if (!nd->keys[k].absorbed)
            continue;
        int same = -1;
        for (int j = 0; j < nd->nkey && same < 0; j++)
            if (!nd->keys[j].absorbed && key_same(&nd->keys[j], &nd->keys[k]))
                same = j;
        for (int l = 0; same >= 0 && l < nd->nlab; l++) {
            if (!rewrite[l * nd->nkey + k] || rewrite[l * nd->nkey + k] >= PLAN_INF)
                continue;   /* free under l: composed into the permute_dims */
            if (!share) {
                share = xmalloc((size_t)(nd->nlab * nd->nkey) * sizeof *share);
                for (int i = 0; i < nd->nlab * nd->nkey; i++)
                    share[i] = i % nd->nkey;
            }
            share[l * nd->nkey + k] = same;
        }
    }
    return share;
}

/* The bytes of a view's node seen through im (NULL: as the view is). */
static int64_t view_bytes(Planner *P, const View *v, const IndexMap *im)
{
    const Node *nd = &P->nodes[v->node];
    if (!im)
        return nd->keys[0].bytes;
    int64_t n = dtype_size(nd->t.dtype);
    for (int d = 0; d < im->nout; d++)
        n *= im->obox[d];
    return n;
}

/* A pad or crop (a rewrite the graph holds as an operator) computed in
 * label l reads and writes its bytes in that layout: what it moves there
 * past what it moves as written (a pad into a padded layout moves more). */
static int64_t moved_more(Planner *P, Node *nd, int l)
{
    if (nd->item >= 0 || nd->nitems < 1 || !nd->opmaps[l] ||
        !(is_call_to(nd->call, "R.nn.pad") || is_call_to(nd->call, "R.pad") || is_call_to(nd->call, "R.crop")))
        return 0;
    int w = view_of(P, nd->items[0]), bad = 0;
    if (nd->items[0]->kind == E_CONST || (w >= 0 && P->nodes[P->views[w].node].constant))
        return 0;   /* of a constant: fold evaluates it */
    int64_t more = nd->keys[nd->store[l]].bytes - nd->keys[0].bytes;
    if (w >= 0) {
        View v = P->views[w];
        IndexMap *im = through(P, &v, nd->opmaps[l][0], &bad);
        if (!bad)
            more += view_bytes(P, &v, im) - view_bytes(P, &v, v.im);
    }
    return more > 0 ? more : 0;
}

/* R.crop(z, start_indices=[0, ...], cropped_value=p) of a static shape:
 * a padding with p that restores what it dropped reads z instead (fold's
 * pad_of_crop), and when every reader does, the crop goes. */
static void crop_node(Planner *P, Node *nd)
{
    const Expr *e = nd->call, *st = call_kwarg(e, "start_indices");
    double cv;
    int w = e->u.call.nargs == 1 ? view_of(P, e->u.call.args[0]) : -1;
    if (nd->item >= 0 || !is_call_to(e, "R.crop") || w < 0 || !st || (st->kind != E_LIST && st->kind != E_TUPLE) ||
        const_number(call_kwarg(e, "cropped_value"), &cv) != 1)
        return;
    for (int d = 0; d < st->u.list.n; d++) {
        int64_t v;
        if (expr_const_int(st->u.list.items[d], &v) || v != 0)
            return;
    }
    nd->crop_of = w + 1;
    nd->cropped = cv;
    nd->crop_bytes = view_bytes(P, &P->views[w], P->views[w].im) + nd->keys[0].bytes;
}

/* The label of a crop node under which nothing reads it (every reader reads
 * past it): added last, before any key, so that a remaining use finds it
 * dearer than any other. */
static void gone_label(Planner *P, Node *nd)
{
    if (!nd->crop_of || nd->gone || !(nd->plannable || nd->readable) || nd->nlab >= MAX_LABELS || nd->nkey > nd->nlab)
        return;
    int l = nd->nlab;
    key_room(P, nd);
    nd->keys[l] = (Key){ NULL, 0, 0, NULL, nd->keys[0].bytes, 0, 0, 0 };
    nd->store[l] = l;
    nd->probed[l] = nd->ok[l] = 1;
    nd->opmaps[l] = arena_array(&P->a, FLOW_MAX_ARGS, sizeof *nd->opmaps[l]);
    nd->gone = l;
    nd->nkey = ++nd->nlab;
}

static void plan_block(Planner *P, PassCtx *ctx, PtrMap *plan, PtrMap *reads, Expr ***maps, int *nmaps, int *capmaps)
{
    RBlock *rb = P->rb;
    Module *m = P->m;
    BlockTables *T = &P->bt;
    count_uses(P->fn, &T->uses);
    for (int i = 0; i < rb->nbinds; i++)   /* the items read of each tuple */
        if (rb->binds[i]->value->kind == E_GETITEM && rb->binds[i]->value->u.get.tuple->kind == E_VAR)
            ptrmap_add(&T->getitems, rb->binds[i]->value->u.get.tuple->u.var, 1);
    for (int i = 0; i < rb->nbinds; i++)
        if (!is_layout_transform(rb->binds[i]->value))
            operands_walk(rb->binds[i]->value, count_read, P, &T->inreads);
        else if (rb->binds[i]->value->u.call.args[0]->kind == E_VAR)
            count_read(P, rb->binds[i]->value->u.call.args[0], &T->inreads);
    /* parameters and values of other blocks keep their layout */
    for (int i = 0; i < rb->nbinds; i++)
        ptrmap_put(&T->defined, rb->binds[i]->var, 1);
    for (int i = 0; i < rb->nbinds; i++)
        operands_walk(rb->binds[i]->value, outside, P, &T->defined);
    ptrmap_free(&T->defined);
    /* the values and the views, in order */
    for (int i = 0; i < rb->nbinds; i++) {
        Binding *bd = rb->binds[i];
        Expr *e = bd->value;
        double pv = 0;
        int hp = is_layout_transform(e) ? const_number(call_kwarg(e, "pad_value"), &pv) : -1;
        if (hp >= 0) {   /* a rewrite: a view of its operand (padding with a number, or none) */
            int w = view_of(P, e->u.call.args[0]), bad = 1;
            IndexMap *im = w >= 0 ? through(P, &P->views[w], call_kwarg(e, "index_map"), &bad) : NULL;
            View *ow = w >= 0 ? &P->views[w] : NULL;
            if (!bad && ow && ow->has_pad && hp && ow->pad != pv)
                bad = 1;   /* two paddings with different values: a value of its own */
            int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
            int onto = !bad && (!im || im_classify(im, wa, wb) == IM_BIJECTIVE);   /* no padding: its value is moot */
            if (!bad && !onto && ow->im && !fold_one_rewrite(m, im, ow->map, call_kwarg(e, "index_map")))
                bad = 1;   /* a padded composite fold cannot write as one rewrite: it keeps this one */
            if (!bad) {
                add_view(P, bd->var, ow->node, im, !onto && (ow->has_pad || hp), ow->has_pad ? ow->pad : pv,
                         ow->im ? NULL : (Expr *)call_kwarg(e, "index_map"));
                continue;
            }
        }
        int c = add_node(P, bd->var, bd);
        Node *nd = &P->nodes[c];
        if (hp >= 0) {   /* a rewrite kept as a value of its own: what it moves, unless of a constant */
            int w = view_of(P, e->u.call.args[0]);
            nd->own_bytes = w < 0 || P->nodes[P->views[w].node].constant ? 0
                            : view_bytes(P, &P->views[w], P->views[w].im) + nd->keys[0].bytes;
            nd->own = nd->t.ndim >= 0 && w >= 0;
        }
        char why[320];
        Expr *opm[FLOW_MAX_ARGS];
        nd->call = e;
        if (e->kind == E_CALL && fold_evaluates_in(P->fn, rb->dataflow, e)) {
            /* fold evaluates it on its constants: a constant, whose rewrites fold evaluates too */
            int nconst = 0;
            operands_walk(e, count_constant, P, &nconst);
            for (int k = 0; nconst >= 0 && k < e->u.call.nargs; k++)
                nconst += e->u.call.args[k]->kind == E_CONST;
            nd->constant = nconst > 0;
        } else if (e->kind == E_GETITEM && e->u.get.tuple->kind == E_VAR) {
            /* an item of a tuple fold evaluates (a split of a constant) */
            int tc = ptrmap_get(&P->at, e->u.get.tuple->u.var, 0);
            nd->constant = tc && P->nodes[P->views[tc - 1].node].constant;
        }
        nd->item = -1;
        /* an item of a tuple that a call of the block returns and only its
         * items read (batch_norm's result, split's parts): flow looks into
         * that call, and the items move through it together */
        int tk = e->kind == E_GETITEM && e->u.get.tuple->kind == E_VAR ? ptrmap_get(&P->at, e->u.get.tuple->u.var, 0) : 0;
        Node *tn = tk ? &P->nodes[P->views[tk - 1].node] : NULL;
        int twice = -1;   /* the same item read again is the same value: a view of the first read */
        for (int o = 0; tn && tn->bd && o < c; o++)
            if (P->nodes[o].item == e->u.get.index && P->nodes[o].call == tn->bd->value)
                twice = o;
        if (twice >= 0) {
            P->n--;
            add_view(P, bd->var, twice, NULL, 0, 0, NULL);
            P->twins = xrealloc(P->twins, (size_t)(P->ntwins + 1) * sizeof *P->twins);
            P->twins[P->ntwins++] = (struct Twin){ bd->var, twice };
            continue;
        }
        if (tn && tn->bd && tn->var == e->u.get.tuple->u.var && tn->bd->value->kind == E_CALL &&
            ptrmap_get(&T->uses, tn->var, 0) == ptrmap_get(&T->getitems, tn->var, 0)) {
            nd->call = tn->bd->value;
            nd->item = e->u.get.index;
        }
        /* plannable: a call flow can move a rewrite through (probed with the identity) */
        if (nd->t.ndim > 0 && nd->call->kind == E_CALL && !is_layout_transform(nd->call) && !nd->constant) {
            Arena a = { 0 };
            arena_scratch(&a);
            int64_t box[IM_MAX_RANK];
            memcpy(box, nd->t.shape, (size_t)nd->t.ndim * sizeof *box);
            Expr *id = identity_map(&a, &m->names, nd->t.ndim, e->loc);
            nd->plannable = id && probe_call(P, nd->call, nd->item, NULL, nd->t.ndim, id, NULL, opm, NULL, &nd->items, &nd->nitems,
                                             why, sizeof why) == 0;
            arena_scratch_end(&a);
            if (!nd->plannable && nd->item < 0 && e->u.call.nargs == 1 && e->u.call.args[0]->kind == E_VAR &&
                !is_layout_transform(e)) {
                nd->items = e->u.call.args;
                nd->nitems = 1;
                nd->readable = 1;
            }
            nd->permute = nd->item < 0 && is_call_to(nd->call, "R.permute_dims");
            crop_node(P, nd);
            if (nd->plannable && nd->item >= 0) {
                tn->absorbed = 1;
                if (tn->first_item < 0)
                    tn->first_item = c;
                else
                    P->nodes[tn->last_item].next_item = c;
                tn->last_item = c;
                nd->leader = tn->first_item;
            }
        }
    }
    /* candidates, backwards to a fixed point */
    Walk W = { 0 };
    for (int round = 0; round < 16; round++) {
        W.changed = 0;
        walk_block(P, &W, &T->uses, &T->inreads);
        if (!W.changed)
            break;
    }
    share_item_labels(P);
    for (int c = 0; c < P->n; c++)
        gone_label(P, &P->nodes[c]);
    /* the problem */
    T->nul = P->n + 1;
    T->ul = xcalloc((size_t)P->n + 1, sizeof *T->ul);
    W = (Walk){ .uses = T->ul, .phase = 1 };
    walk_block(P, &W, &T->uses, &T->inreads);
    items_together(P, T->ul);
    T->pb = (PlanProblem){ xcalloc((size_t)P->n + 1, sizeof *T->pb.vars), P->n };
    int64_t offset = 0;   /* the crops as written, which the costs below count */
    for (int c = 0; c < P->n; c++) {
        Node *nd = &P->nodes[c];
        PlanVar *v = &T->pb.vars[c];
        v->nlab = nd->nlab;
        v->nkey = nd->nkey;
        v->unary = xcalloc((size_t)nd->nlab, sizeof *v->unary);
        if (nd->own)
            v->unary[0] = nd->own_bytes * COST_BYTE + COST_REWRITE;
        for (int l = 1; l < nd->nlab; l++)
            v->unary[l] = probe(P, nd, l) ? COST_MOVE + moved_more(P, nd, l) * COST_BYTE : PLAN_INF;
        if (nd->gone) {   /* a crop computed pays its bytes; the offset takes them off again */
            int64_t crop = nd->crop_bytes * COST_BYTE + COST_REWRITE;
            for (int l = 0; l < nd->nlab; l++)
                v->unary[l] = l == nd->gone ? COST_MOVE : v->unary[l] >= PLAN_INF ? PLAN_INF : v->unary[l] + crop;
            offset += crop;
        }
        v->rewrite = xcalloc((size_t)(nd->nlab * nd->nkey), sizeof *v->rewrite);
        for (int l = 0; l < nd->nlab; l++)
            for (int k = 0; k < nd->nkey; k++) {
                int64_t bytes;
                int count = rewrite_of(P, nd, l, k, &bytes);
                v->rewrite[l * nd->nkey + k] = count < 0 ? PLAN_INF : nd->constant ? 0 : bytes * COST_BYTE + count * COST_REWRITE;
            }
        v->store = xmalloc((size_t)nd->nlab * sizeof *v->store);
        memcpy(v->store, nd->store, (size_t)nd->nlab * sizeof *v->store);
        v->share = key_shares(nd, v->rewrite);
        v->uses = T->ul[c].v;
        v->nuses = T->ul[c].n;
    }
    int rc = plan_solve(&T->pb, P->max_cells, &T->r);
    T->as_written = xcalloc((size_t)P->n + 1, sizeof *T->as_written);
    int64_t before = plan_cost(&T->pb, T->as_written);
    char buf[400], buf2[400];
    if (rc == 0) {
        if (items_follow(P, &T->pb, T->r.label))
            T->r.cost = plan_cost(&T->pb, T->r.label);
        for (int c = 0; c < P->n; c++) {
            Node *nd = &P->nodes[c];
            if (T->r.label[c] == 0 || T->r.label[c] == nd->gone)
                continue;
            Expr *keep = nd->reads[T->r.label[c]] ? nd->reads[T->r.label[c]] : nd->keys[T->r.label[c]].map;
            if (*nmaps == *capmaps) {
                *capmaps = *capmaps ? 2 * *capmaps : 16;
                *maps = xrealloc(*maps, (size_t)*capmaps * sizeof **maps);
            }
            (*maps)[(*nmaps)++] = clone_expr(&m->arena, &(Subst){ 0 }, keep);
            ptrmap_put(nd->reads[T->r.label[c]] ? reads : plan, nd->var, *nmaps);
            for (int t = 0; t < P->ntwins; t++)
                if (P->twins[t].node == c)
                    ptrmap_put(nd->reads[T->r.label[c]] ? reads : plan, P->twins[t].var, *nmaps);
            if (nd->reads[T->r.label[c]])
                note_add(P->notes, nd->bd->loc, "%s reads its operand in layout %s", var_said(nd->var),
                         expr_text(keep, buf, sizeof buf));
            else
                note_add(P->notes, nd->bd->loc, "%s is stored in layout %s", var_said(nd->var),
                         layout_text(P, &nd->keys[T->r.label[c]], buf, sizeof buf));
        }
        /* the rewrites the plan leaves */
        for (int c = 0; c < P->n; c++) {
            Node *nd = &P->nodes[c];
            if (nd->own)
                note_add(P->notes, nd->bd->loc, "a rewrite kept as %s (one rewrite with the one it reads would not "
                         "give the padded shape): %lld bytes%s", var_said(nd->var), (long long)nd->own_bytes,
                         nd->own_bytes ? "" : " (of a constant: fold evaluates it)");
            char seen[MAX_KEYS] = { 0 };
            for (int u = 0; u < T->pb.vars[c].nuses; u++) {
                const PlanUse *use = &T->pb.vars[c].uses[u];
                int k = use->user < 0 ? use->key[0] : use->key[T->r.label[use->user]];
                if (k >= 0 && T->pb.vars[c].share)
                    k = T->pb.vars[c].share[T->r.label[c] * nd->nkey + k];
                if (k < 0 || k == nd->store[T->r.label[c]] || seen[k])
                    continue;
                seen[k] = 1;
                int64_t bytes;
                const Key *from = &nd->keys[nd->store[T->r.label[c]]];
                int count = rewrite_of(P, nd, T->r.label[c], k, &bytes), two = count == 2 && !nd->keys[T->r.label[c]].has_pad;
                int via = two && !from->im && nd->keys[k].via_bytes;
                if (count <= 0)
                    continue;   /* fold composes it into a permute_dims */
                note_add(P->notes, nd->bd ? nd->bd->loc : P->fn->loc, "a rewrite of %s from %s to %s: %lld bytes%s%s",
                         var_said(nd->var), layout_text(P, &nd->keys[T->r.label[c]], buf, sizeof buf),
                         layout_text(P, &nd->keys[k], buf2, sizeof buf2), nd->constant ? 0 : (long long)bytes,
                         via ? " in two, through the layout of the rewrite it reads (one would not give the padded shape)"
                         : two ? " in two, through the layout as written (one would not give the padded shape)"
                             : count == 2 ? " in two, back over the padded box and the crop" : "",
                         nd->constant ? " (a constant: fold evaluates it)" : "");
            }
        }
        note_add(P->notes, rb->loc, "the plan leaves rewrites moving %lld bytes (%lld rewrites), %s; as written: "
                 "%lld bytes (%lld rewrites); lower bound %lld bytes", (long long)(T->r.cost / COST_BYTE - offset / COST_BYTE),
                 (long long)(T->r.cost % COST_BYTE / COST_REWRITE - offset % COST_BYTE / COST_REWRITE), T->r.method == PLAN_CUT ? "the solver's optimum over its candidate layouts (a minimum cut)" : T->r.exact ? "the solver's optimum over its candidate layouts (variable elimination)" : "not proven optimal: the problem was too wide "
                 "for the exact search (plan{max-cells=N}), the best assignment local moves found is used", (long long)(before / COST_BYTE - offset / COST_BYTE),
                 (long long)(before % COST_BYTE / COST_REWRITE - offset % COST_BYTE / COST_REWRITE),
                 (long long)(T->r.bound / COST_BYTE - offset / COST_BYTE));
    }
    (void)ctx;
    block_tables_free(T);
}

/* plan{max-cells=N}: the largest table the exact search builds */
static int max_cells_of(const PassOpt *opts, int nopts, int64_t *v, char *err, size_t cap)
{
    *v = (int64_t)1 << 22;
    for (int i = 0; i < nopts; i++) {
        char *end;
        long long x = strtoll(opts[i].val, &end, 10);
        if (strcmp(opts[i].key, "max-cells") != 0)
            continue;
        if (end == opts[i].val || *end || x < 1 || x > ((long long)1 << 30))
            return snprintf(err, cap, "plan: max-cells=%s: expected a number of table cells from 1 to 2^30",
                            opts[i].val), -1;
        *v = x;
    }
    return 0;
}

/* plan{layouts="v=L w=M ..."}: the values named move to layout L of their
 * NCHW form (rank 4), with no search. */
static const char *layouts_of(const PassOpt *opts, int nopts)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i].key, "layouts") == 0)
            return opts[i].val;
    return NULL;
}

/* The next "name=LAYOUT" of spec at *pos into name and lay; 0 at the end,
 * -1 when malformed. */
static int next_assignment(const char *spec, size_t *pos, char *name, char *lay, size_t cap)
{
    while (spec[*pos] == ' ')
        (*pos)++;
    if (!spec[*pos])
        return 0;
    size_t n = strcspn(spec + *pos, " ");
    const char *eq = memchr(spec + *pos, '=', n);
    if (!eq || eq == spec + *pos || (size_t)(eq - spec - *pos) >= cap || n - (size_t)(eq - spec - *pos) > cap)
        return -1;
    memcpy(name, spec + *pos, (size_t)(eq - spec - *pos));
    name[eq - spec - *pos] = 0;
    memcpy(lay, eq + 1, n - (size_t)(eq - spec - *pos) - 1);
    lay[n - (size_t)(eq - spec - *pos) - 1] = 0;
    *pos += n;
    return 1;
}

int pass_plan_check(const PassOpt *opts, int nopts, char *err, size_t cap)
{
    int64_t v;
    if (max_cells_of(opts, nopts, &v, err, cap))
        return -1;
    const char *spec = layouts_of(opts, nopts);
    char name[64], lay[64];
    size_t pos = 0;
    for (int rc; spec && (rc = next_assignment(spec, &pos, name, lay, sizeof name)) != 0;) {
        ImError e;
        Interner names;
        Arena a = { 0 };
        arena_scratch(&a);
        intern_scratch(&names, &a);
        int bad = rc < 0 || !im_layout_map(&a, &names, "NCHW", lay, NULL, &e);
        intern_scratch_end(&names);
        arena_scratch_end(&a);
        if (bad)
            return snprintf(err, cap, "plan: layouts=%s: expected value=LAYOUT pairs (a layout of NCHW, such as NHWC "
                            "or NCHW4c) separated by spaces", spec), -1;
    }
    return 0;
}

/* Realizes the assignment spec in every plannable function of m: no search. */
static void plan_assigned(Module *m, PassCtx *ctx, const char *spec)
{
    Notes notes = { 0 };
    for (int f = 0; f < m->nfuncs; f++) {
        Func *fn = m->funcs[f];
        if (!is_plannable(fn))
            continue;
        fold_rewrites(m, fn, &notes);
        infer_types(m, fn);
        PtrMap plan = { 0 }, reads = { 0 };
        Expr **maps = NULL;
        int nmaps = 0;
        char name[64], lay[64];
        size_t pos = 0;
        while (next_assignment(spec, &pos, name, lay, sizeof name) > 0)
            for (int b = 0; b < fn->nblocks; b++)
                for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                    Var *v = fn->blocks[b]->binds[i]->var;
                    TensorType t;
                    ImError e;
                    if (strlen(name) != (size_t)v->name->len || memcmp(name, v->name->str, v->name->len) != 0 ||
                        sinfo_shape(v->sinfo, &t.dtype, &t.ndim, t.shape) || t.ndim != 4)
                        continue;
                    Expr *map = im_layout_map(&m->arena, &m->names, "NCHW", lay, NULL, &e);
                    if (!map || ptrmap_get(&plan, v, 0))
                        continue;
                    maps = xrealloc(maps, (size_t)(nmaps + 1) * sizeof *maps);
                    maps[nmaps++] = map;
                    ptrmap_put(&plan, v, nmaps);
                }
        if (nmaps)
            flow_realize(m, fn, ctx, &notes, &plan, maps, &reads);
        free(maps);
        ptrmap_free(&plan);
        ptrmap_free(&reads);
    }
    notes_emit(&notes, ctx, "plan", 0);
}

/* One run of plan over every plannable function (flow_fixed_point runs
 * plan,fold until a module comes back, as for flow). */
/* What a block's planner holds, its arena included. */
static void planner_free(Planner *P)
{
    block_tables_free(&P->bt);
    ptrmap_free(&P->at);
    free(P->rw);
    free(P->memo);
    free(P->twins);
    free(P->nodes);
    free(P->views);
    arena_free(&P->a);
    arena_free(&P->scratch);
}

/* One function's plan: a function of its own, so that the guard's frame
 * holds nothing a longjmp could clobber. */
static void plan_func(Module *m, PassCtx *ctx, Notes *notes, Func *fn, int64_t max_cells)
{
    PtrMap plan = { 0 }, reads = { 0 };
    Answers answers = { 0 };
    Arena answer_arena = { 0 }, kept = { 0 };
    struct { Expr **v; int n, cap; } maps = { NULL, 0, 0 };   /* in memory: the guard's handler reads it */
    Planner P;
    volatile int inblock = 0;   /* P holds kept's chunks and the block's own */
    OomGuard guard;
    if (OOM_ENTER(&guard)) {   /* the function's tables and the block's go before unwinding on */
        if (inblock)
            planner_free(&P);
        else
            arena_free(&kept);
        free(maps.v);
        free(answers.slots);
        arena_free(&answer_arena);
        ptrmap_free(&plan);
        ptrmap_free(&reads);
        oom_fail();
    }
    /* fold's form first: pairs that cancel and dead values cost nothing */
    fold_rewrites(m, fn, notes);
    infer_types(m, fn);
    for (int b = 0; b < fn->nblocks; b++) {
        P = (Planner){ .m = m, .fn = fn, .rb = fn->blocks[b], .a = kept, .notes = notes, .max_cells = max_cells,
                       .answers = &answers, .answer_arena = &answer_arena };
        inblock = 1;
        plan_block(&P, ctx, &plan, &reads, &maps.v, &maps.n, &maps.cap);
        Arena a = P.a;
        P.a = (Arena){ 0 };
        planner_free(&P);
        kept = a;   /* an answer of this block keeps the map it was asked, which a later block may compare */
        inblock = 0;
    }
    if (maps.n)
        flow_realize(m, fn, ctx, notes, &plan, maps.v, &reads);
    oom_leave(&guard);
    free(maps.v);
    free(answers.slots);
    arena_free(&answer_arena);
    arena_free(&kept);
    ptrmap_free(&plan);
    ptrmap_free(&reads);
}

static void plan_round(Module *m, PassCtx *ctx, Notes *notes, void *data)
{
    int64_t max_cells = *(const int64_t *)data;
    int nf = m->nfuncs;
    for (int f = 0; f < nf; f++)
        if (is_plannable(m->funcs[f]))
            plan_func(m, ctx, notes, m->funcs[f], max_cells);
}

int pass_plan(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    int64_t max_cells;
    char err[256];
    if (max_cells_of(opts, nopts, &max_cells, err, sizeof err))
        return diag_error(ctx->src, (Loc){ 0, 0 }, "%s", err);   /* the pipeline's check has refused it already */
    if (layouts_of(opts, nopts)) {
        plan_assigned(m, ctx, layouts_of(opts, nopts));
        return 0;
    }
    return flow_fixed_point(m, ctx, plan_round, &max_cells, "plan");
}
