/* flow,fold to a fixed point (flow_fixed_point): the search flow ends with,
 * which plan shares. It needs nothing of flow's sweeps.
 *
 * Sinking (forward) and the sweep (backward) can disagree about where one
 * rewrite belongs, and the names and binding order one run makes can let the
 * next move a rewrite again, so flow,fold run twice could differ from once.
 * Flow therefore runs flow,fold from fold's form of its input until a module
 * comes back (the same up to names): the modules of that cycle are compared
 * by one cost, the bytes the rewrites left move (then their number, then
 * the number of PrimFuncs, operators left unlegalized being simpler, then a
 * hash of the module without its names, so the choice does not depend on
 * where the cycle was entered), and the cheapest is the answer: the input
 * itself when it is, else flow's first result when it is, else the module
 * as fold left it. A second flow,fold from the answer meets the same cycle
 * at the answer and keeps its input. */
#include <stdint.h>
#include <string.h>

#include "../graph.h"
#include "flow.h"

enum { FIXED_RUNS = 8 };   /* the most flow,fold runs the search takes */

typedef struct State {
    Func **funcs;         /* a copy no pass changes (NULL when not kept) */
    int nfuncs;
    uint64_t text;        /* a hash of what the printer shows */
    uint64_t shape;       /* the same without the names */
    int64_t bytes;        /* read and written by the rewrites left */
    int count;            /* the rewrites left */
    int nprim;            /* PrimFuncs: legalized operators and flowed copies */
} State;

/* Both hashes of a module are taken in one walk: text (with the names)
 * and shape (each variable by where it is bound). A variable's place is
 * kept in its mark, base + its order of definition, from a range of scope
 * stamps the walk takes for itself (no look-up in a table per use). */
typedef struct Hasher {
    unsigned base;        /* the stamp before the range */
    unsigned n;           /* the variables defined so far */
    const Expr *map;      /* the index map whose outputs are being hashed */
} Hasher;

typedef struct Hash2 {
    uint64_t text, shape;
} Hash2;

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ull;
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s, size_t n)
{
    h = mix(h, n);
    for (size_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)s[k]) * 0x100000001b3ull;
    return h;
}

static uint64_t mix_sym(uint64_t h, const Sym *s)
{
    return s ? mix_str(h, s->str, s->len) : mix(h, 0);
}

/* A name into the text hash by its interned address: one name, one Sym of
 * m's interner, so equal texts still hash alike, and the walk does not read
 * each variable's name (a line of memory apart from the variable's). Only
 * the text hash may: the shape hash orders the candidates (cheaper), and an
 * address differs from run to run. */
static uint64_t mix_name(uint64_t h, const Sym *s)
{
    h = (h ^ (uint64_t)(uintptr_t)s) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 31);
}

/* The same value into both hashes (two chains the processor runs side by side). */
static Hash2 mix2(Hash2 h, uint64_t v)
{
    for (int k = 0; k < 8; k++, v >>= 8) {
        h.text = (h.text ^ (v & 0xff)) * 0x100000001b3ull;
        h.shape = (h.shape ^ (v & 0xff)) * 0x100000001b3ull;
    }
    return h;
}

static Hash2 mix2_str(Hash2 h, const char *s, size_t n)
{
    h = mix2(h, n);
    for (size_t k = 0; k < n; k++) {
        h.text = (h.text ^ (unsigned char)s[k]) * 0x100000001b3ull;
        h.shape = (h.shape ^ (unsigned char)s[k]) * 0x100000001b3ull;
    }
    return h;
}

static Hash2 mix2_sym(Hash2 h, const Sym *s)
{
    return s ? mix2_str(h, s->str, s->len) : mix2(h, 0);
}

static Hash2 mix2_double(Hash2 h, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return mix2(h, v);
}

static void hash_define(Hasher *H, Var *v)
{
    v->mark = H->base + ++H->n;
}

/* text: the name; shape: a parameter of the map being hashed by its place,
 * else the variable by where it is bound (by its name when free). */
static Hash2 mix_var(const Hasher *H, Hash2 h, const Var *v)
{
    h.text = mix_name(h.text, v->name);
    for (int k = 0; H->map && k < H->map->u.map.nparams; k++)
        if (H->map->u.map.params[k] == v) {
            h.shape = mix(h.shape, (uint64_t)k + 1);
            return h;
        }
    unsigned at = v->mark - H->base;   /* below the range: wraps past n */
    h.shape = at >= 1 && at <= H->n ? mix(h.shape, (uint64_t)at << 20) : mix_sym(h.shape, v->name);
    return h;
}

static Hash2 mix_expr(Hasher *H, Hash2 h, const Expr *e);

/* A digest of a constant's bytes, eight at a time: a weight has millions of
 * elements, and the module is hashed after every run of flow,fold. */
static uint64_t data_digest(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static Hash2 mix_sinfo(Hasher *H, Hash2 h, const StructInfo *s)
{
    if (!s)
        return mix2(h, 0xff);
    h = mix2(mix2(mix2(h, s->kind), (uint64_t)s->ndim), s->dtype);
    for (int d = 0; s->shape && d < s->ndim; d++)
        h = mix_expr(H, h, s->shape[d]);
    h = s->vdevice ? mix2_str(h, s->vdevice, strlen(s->vdevice)) : h;
    for (int k = 0; k < s->nfields; k++)
        h = mix_sinfo(H, h, s->fields[k]);
    return h;
}

static Hash2 mix_exprs(Hasher *H, Hash2 h, Expr *const *v, int n)
{
    h = mix2(h, (uint64_t)n);
    for (int k = 0; k < n; k++)
        h = mix_expr(H, h, v[k]);
    return h;
}

static Hash2 mix_expr(Hasher *H, Hash2 h, const Expr *e)
{
    if (!e)
        return mix2(h, 0xfe);
    h = mix2(h, e->kind);
    switch (e->kind) {
    case E_VAR:
        return mix_var(H, h, e->u.var);
    case E_INT:
        return mix2(mix2(h, (uint64_t)e->u.i.v), e->u.i.dtype);
    case E_FLOAT:
        return mix2(mix2_double(h, e->u.f.v), e->u.f.dtype);
    case E_STR:
        return mix2_str(h, e->u.str.s, (size_t)e->u.str.len);
    case E_BOOL:
        return mix2(h, (uint64_t)e->u.b);
    case E_TUPLE:
    case E_LIST:
        return mix_exprs(H, h, e->u.list.items, e->u.list.n);
    case E_DICT:
        return mix_exprs(H, mix_exprs(H, h, e->u.dict.keys, e->u.dict.n), e->u.dict.vals, e->u.dict.n);
    case E_GETITEM:
        return mix2(mix_expr(H, h, e->u.get.tuple), (uint64_t)e->u.get.index);
    case E_CALL:
        h = mix_expr(H, mix2_sym(h, e->u.call.op), e->u.call.callee);
        for (int k = 0; k < e->u.call.nkw; k++)
            h = mix2_sym(h, e->u.call.kw[k]);
        return mix_exprs(H, h, e->u.call.args, e->u.call.nargs + e->u.call.nkw);
    case E_GLOBAL:
        return mix2_sym(h, e->u.global.name);
    case E_BIN:
        return mix_expr(H, mix_expr(H, mix2(h, e->u.bin.op), e->u.bin.a), e->u.bin.b);
    case E_UNARY:
        return mix_expr(H, mix2(h, e->u.un.op), e->u.un.a);
    case E_LOAD:
        return mix_exprs(H, mix2_sym(h, e->u.load.buf->name), e->u.load.idx, e->u.load.n);
    case E_CAST:
        return mix_expr(H, mix2(h, e->u.cast.dtype), e->u.cast.a);
    case E_SLICE:
        return mix_expr(H, mix_expr(H, h, e->u.slice.lo), e->u.slice.hi);
    case E_INDEXMAP: {
        const Expr *outer = H->map;
        h = mix2(h, (uint64_t)e->u.map.nparams);
        for (int k = 0; k < e->u.map.nparams; k++)
            h.text = mix_sym(h.text, e->u.map.params[k]->name);
        H->map = e;
        h = mix_exprs(H, h, e->u.map.out, e->u.map.nout);
        H->map = outer;
        return h;
    }
    case E_SINFO:
        return mix_sinfo(H, h, e->u.sinfo);
    case E_CONST:
        h = mix2(mix2(h, e->u.cst.dtype), (uint64_t)e->u.cst.ndim);
        for (int d = 0; d < e->u.cst.ndim; d++)
            h = mix2(h, (uint64_t)e->u.cst.shape[d]);
        return mix2(h, data_digest(e->u.cst.data, (size_t)e->u.cst.count * (size_t)dtype_size(e->u.cst.dtype)));
    default:
        return h;
    }
}

/* The two hashes of m's Relax functions, with their names and without
 * (the variables' marks are left stamped). */
static Hash2 hash_module(Module *m)
{
    Hasher H = { 0 };
    size_t vars = 0;   /* the stamps the walk takes: one per definition */
    for (int f = 0; f < m->nfuncs; f++) {
        if (m->funcs[f]->kind != F_RELAX)
            continue;
        vars += (size_t)m->funcs[f]->nparams;
        for (int b = 0; b < m->funcs[f]->nblocks; b++)
            vars += (size_t)m->funcs[f]->blocks[b]->nbinds;
    }
    H.base = module_stamps(m, vars);
    Hash2 h = { 0xcbf29ce484222325ull, 0xcbf29ce484222325ull };
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        h = mix2(h, fn->kind);
        if (fn->kind != F_RELAX)
            h = mix2_sym(h, fn->name);
        else
            h.text = mix_sym(h.text, fn->name);
        if (fn->kind != F_RELAX)
            continue;
        for (int k = 0; k < fn->nparams; k++) {
            hash_define(&H, fn->params[k]);
            h = mix_var(&H, h, fn->params[k]);
        }
        for (int b = 0; b < fn->nblocks; b++) {
            const RBlock *rb = fn->blocks[b];
            h = mix2(mix2(h, (uint64_t)rb->dataflow), (uint64_t)rb->nbinds);
            for (int i = 0; i < rb->nbinds; i++) {
                h = mix_expr(&H, h, rb->binds[i]->value);
                hash_define(&H, rb->binds[i]->var);
                h = mix_var(&H, h, rb->binds[i]->var);
            }
            for (int k = 0; k < rb->noutputs; k++)
                h = mix_var(&H, h, rb->outputs[k]);
        }
        h = mix_expr(&H, h, fn->result);
    }
    return h;
}

/* The elements of a static tensor type, or 0. */
static int64_t elements(const TensorType *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n = t->shape[d] > 0 && n <= INT64_MAX / t->shape[d] ? n * t->shape[d] : 0;
    return n;
}

/* m's hashes and the cost of the rewrites its Relax functions leave (a
 * rewrite of a constant costs nothing: fold evaluates it). */
static void measure(Module *m, State *s)
{
    s->funcs = NULL;
    s->nfuncs = 0;
    Hash2 h = hash_module(m);
    s->text = h.text;
    s->shape = h.shape;
    s->bytes = 0;
    s->count = 0;
    s->nprim = 0;
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        s->nprim += fn->kind == F_PRIM;
        for (int b = 0; fn->kind == F_RELAX && b < fn->nblocks; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                const Binding *bd = fn->blocks[b]->binds[i];
                TensorType in, out;
                if (!is_layout_transform(bd->value) || bd->value->u.call.args[0]->kind == E_CONST)
                    continue;
                s->count++;
                if (value_type(bd->value->u.call.args[0], &in) == 0 &&
                    sinfo_shape(bd->var->sinfo, &out.dtype, &out.ndim, out.shape) == 0 && out.ndim <= OP_MAX_RANK)
                    s->bytes += (elements(&in) + elements(&out)) * dtype_size(in.dtype);
            }
    }
}

/* Keeps a copy of m's functions that later passes leave alone. */
static void snapshot(Module *m, State *s)
{
    s->funcs = relax_clone_funcs(m, m->funcs, m->nfuncs);
    s->nfuncs = m->nfuncs;
}

static void install(Module *m, const State *s)
{
    m->funcs = arena_array(&m->arena, (size_t)s->nfuncs + 1, sizeof *m->funcs);
    memcpy(m->funcs, s->funcs, (size_t)s->nfuncs * sizeof *m->funcs);
    m->nfuncs = s->nfuncs;
}

static int cheaper(const State *a, const State *b)
{
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes;
    if (a->count != b->count)
        return a->count < b->count;
    if (a->nprim != b->nprim)
        return a->nprim < b->nprim;
    return a->shape < b->shape;
}

/* s[0]: the input as written, measured in fold's form on a copy. Returns
 * 0 when fold leaves it as it is (it is then one of the runs), else 1 (flow's
 * first run starts from the input as written, and the runs from its result). */
static int fold_form(Module *m, PassCtx *quiet, State *s0)
{
    State copy;
    uint64_t text = hash_module(m).text;
    Func **orig = arena_array(&m->arena, (size_t)m->nfuncs + 1, sizeof *orig);
    int norig = m->nfuncs;
    memcpy(orig, m->funcs, (size_t)norig * sizeof *orig);
    snapshot(m, &copy);
    install(m, &copy);
    pass_fold(m, quiet, NULL, 0);
    measure(m, s0);
    m->funcs = orig;
    m->nfuncs = norig;
    /* the input as written: the folded copy when fold left it as it was
     * (the usual case, and one copy of a large module fewer), else a copy
     * of the input, which fold's run on the other copy left alone */
    if (s0->text == text) {
        s0->funcs = copy.funcs;
        s0->nfuncs = copy.nfuncs;
        return 0;
    }
    State in;
    snapshot(m, &in);
    s0->funcs = in.funcs;
    s0->nfuncs = in.nfuncs;
    return 1;
}

/* Runs flow,fold from the input until a module of s[first..] comes back,
 * at most FIXED_RUNS times, keeping a copy of each module in s[] (for s[1],
 * flow's own result before fold). The first run's notes go to notes. Sets
 * *lo to where the cycle starts (-1: none) and returns how many of s[] are
 * measured; the last is s[*lo] again, or without a repeat the module m holds. */
static int search(Module *m, PassCtx *ctx, PassCtx *quiet, State *s, int first, Notes *notes, int *lo, FlowRound round,
                  void *data)
{
    int n = 1;   /* s[0..n) measured; m holds s[n - 1] (the input when n is 1) */
    *lo = -1;
    while (*lo < 0 && n <= FIXED_RUNS) {
        State flowed = { 0 };
        if (n == 1) {
            round(m, ctx, notes, data);
            /* flow's result stays as it is, and the runs go on with a copy:
             * the sweep left the functions' nodes in reverse order among
             * what it made and dropped, the copy has them in binding order,
             * close together, for every walk of the runs that follow */
            State work;
            snapshot(m, &work);
            flowed.funcs = m->funcs;
            flowed.nfuncs = m->nfuncs;
            install(m, &work);
        } else {
            Notes quiet_notes = { .mute = 1 };
            if (n > 2)
                snapshot(m, &s[n - 1]);
            round(m, quiet, &quiet_notes, data);
            notes_flush(&quiet_notes, quiet, "flow");
        }
        pass_fold(m, quiet, NULL, 0);
        measure(m, &s[n]);
        if (n == 1) {
            s[1].funcs = flowed.funcs;
            s[1].nfuncs = flowed.nfuncs;
        }
        for (int j = n - 1; j >= first && *lo < 0; j--)
            if (s[j].shape == s[n].shape)
                *lo = j;
        n++;
    }
    if (*lo < 0)
        snapshot(m, &s[n - 1]);
    return n;
}

/* Flow's rounds, run flow,fold after flow,fold as the comment above says.
 * --explain shows the first run's notes, and how the search ended when its
 * answer is not that run's result. */
int flow_fixed_point(Module *m, PassCtx *ctx, FlowRound round, void *data, const char *pass)
{
    const Func *main = NULL;
    for (int f = 0; f < m->nfuncs && !main; f++)
        if (m->funcs[f]->kind == F_RELAX)
            main = m->funcs[f];
    if (!main)
        return 0;
    PassCtx quiet = *ctx;
    quiet.explain = NULL;
    Notes notes = { .mute = !ctx->explain };
    State s[FIXED_RUNS + 1];
    int first = fold_form(m, &quiet, &s[0]), lo;
    int n = search(m, ctx, &quiet, s, first, &notes, &lo, round, data);
    /* the candidates: the cycle s[lo..n-1), or every run when none came back */
    int end = lo < 0 ? n : n - 1, pick = lo < 0 ? first : lo;
    for (int j = pick + 1; j < end; j++)
        if (cheaper(&s[j], &s[pick]))
            pick = j;
    if (pick == 0 && s[1].text == s[0].text)
        pick = 1;   /* flow's result folds to the input: keep it, as flow left it */
    install(m, &s[pick]);
    if (lo < 0)
        note_add(&notes, main->loc, "%s,fold changed the module on each of %d runs: kept the cheapest, whose %d "
                 "rewrites move %lld bytes (not a fixed point)", pass, n - 1, s[pick].count, (long long)s[pick].bytes);
    else if (end - lo > 1)
        note_add(&notes, main->loc, "%s,fold comes round to the same module after %d runs: kept the cheapest on "
                 "the way, %d runs of %s,fold from the input, whose %d rewrites move %lld bytes", pass, end - lo, pick,
                 pass,
                 s[pick].count, (long long)s[pick].bytes);
    else if (pick > 1)
        note_add(&notes, main->loc, "%s,fold changed its own result again: kept the module %d runs of %s,fold "
                 "reach", pass, pick, pass);
    /* what plan's first run said it leaves is not what is kept: say what is */
    if (strcmp(pass, "flow") != 0 && pick != 1 && (s[pick].bytes != s[1].bytes || s[pick].count != s[1].count))
        note_add(&notes, main->loc, "the module kept holds rewrites moving %lld bytes (%d rewrites), not the %lld "
                 "bytes (%d rewrites) of the first run of %s,fold", (long long)s[pick].bytes, s[pick].count,
                 (long long)s[1].bytes, s[1].count, pass);
    notes_emit(&notes, ctx, pass, strcmp(pass, "flow") == 0);   /* flow's table of moved and left rewrites */
    return 0;
}
