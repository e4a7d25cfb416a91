/* What the files of the flow pass share (flow.c, flow_call.c, flow_ops.c,
 * flow_cache.c, flow_sink.c): the sweep's state and the answer cache's types.
 * Nothing outside flow includes it; what flow promises plan is flow.h. */
#ifndef LOPT_FLOW_INTERNAL_H
#define LOPT_FLOW_INTERNAL_H

#include "../graph.h"
#include "flow.h"
#include "flowtir.h"

/* What a call computes with, before anything is built: call_tir's callee,
 * or an operator on operands of static types (legalized by callee_build).
 * items/n: its tensor operands; nout: its results (tuple: the call returns
 * a tuple). */
typedef struct Callee {
    Func *f;              /* call_tir's callee, or the legalized operator once built */
    const OpInfo *op;     /* an operator call */
    TensorType args[OP_MAX_ARGS];
    Expr *const *items;
    int n, nout;
} Callee;

/* Flow's answer for one call (flow_tir's, before anything of the module
 * changes), kept under an exact key: see answer_find. */
typedef struct FlowAnswer {
    uint64_t hash;
    const Expr *call;          /* an operator call: its attributes are the key's */
    TensorType *args;          /* and its operand types, nargs of them */
    int nargs;
    const Func *callee;        /* call_tir's callee */
    Expr **maps;               /* copies of the maps that flowed, one per result (NULL: not rewritten) */
    int nmaps;
    int has_pad;
    double pad;
    int failed;
    char *why;                 /* when it failed */
    FlowTir r;                 /* r.f and r.map live in the cache's arena */
    Expr *kept[FLOW_MAX_ARGS]; /* r.map copied into the module once, for map_share */
    Func *placed;              /* the module's function a call of this answer took (flow_place's), if any */
    struct FlowAnswer *next;
} FlowAnswer;

typedef struct FlowCache {
    Arena a;
    FlowAnswer **slots;        /* chains by hash */
    size_t cap, n;
} FlowCache;

enum { ANSWERS_MAX_BYTES = 64 << 20 };   /* the cache stops growing there */

/* The rewrites of one value the sweep has met, waiting for it to reach the
 * value's binding. */
typedef struct Demand {
    Expr *map;
    const Expr *pad;
    int count;            /* rewrites of the value seen so far */
    int conflict;
    int *slots;           /* their places in the output list */
    int nslots, cap;
} Demand;

/* A rewrite of item k of a tuple some call returns (a = t[k]; b = lt(a, M)),
 * waiting for the sweep to reach that call. */
typedef struct ItemDem {
    Binding *get;         /* a = t[k] */
    int slot;             /* its place in the output list */
    int item;
    Expr *map;
    const Expr *pad;
    int *slots;           /* the rewrites of a */
    int nslots;
    struct ItemDem *next;
} ItemDem;

typedef struct Sweep {
    Module *m;
    Func *fn;
    PassCtx *ctx;
    Notes *notes;
    PtrMap uses;          /* Var -> uses in fn */
    unsigned def_base;    /* a variable bound at index i of the block has mark def_base + i + 1 (def_at) */
    int def_n;            /* the block's bindings, the marks def_base + 1 .. def_base + def_n */
    PtrMap names;
    RBlock *rb;           /* the block being swept */
    int *memo;            /* per binding index: left_behind's answer in guess memo_gen */
    struct Producer *prod;   /* per binding index: what left_behind reads of its value */
    int *defs;            /* the places of the producers' operands */
    int *nuses;           /* per binding index: its variable's uses (S->uses, kept alike) */
    int *memo_gen, gen;
    int link_gen;         /* left_behind's runs of links (Producer.links) hold while it is unchanged */
    int jump;             /* left_behind crosses a run of links at once (not while checking that) */
    int check;            /* LOPT_FLOW_CACHE=check (flow_cache_mode() == 2) */
    PtrMap inputs;        /* left_behind: the graph inputs one guess has counted */
    PtrMap sunk;          /* the rewrites y_t that sinking made */
    int64_t size;         /* left_behind: the elements of the value whose rewrite moves */
    Demand *dem;          /* per binding index */
    ItemDem **items;      /* per binding index: the rewrites of its tuple's items */
    int ntabs;            /* the binding indices dem and items hold */
    Binding **out;        /* the new bindings, last first */
    char *dead;
    int nout, cap;
    int moved;
    int rewrites;         /* the rewrites the swept blocks keep (count_rewrites of the function after them) */
    Arena scratch;        /* the index-map algebra's working memory, reused call after call */
    Arena stage;          /* legalized operators and flowed copies until they are kept */
    FlowCache cache;      /* flow_call's and flow_tuple's answers, for the calls of this sweep */
    struct Placed {       /* the flowed copies this sweep put into the module (flow_place) */
        uint64_t *h;
        char **text;
        Func **f;
        size_t n, cap;
    } placed;
    StructInfo *last_sinfo;   /* the type of the last rewrite made (rewrite_sinfo) */
    const PtrMap *plan;   /* realizing a plan: the calls to move through, and no others */
} Sweep;

/* The sweep's output list and the demands on a value's producer (flow.c). */
int push_out(Sweep *S, Binding *b);
void demand_add(Sweep *S, Var *x, Expr *map, const Expr *pad, int slot);

/* Moving a rewrite through one call (flow_call.c): the rewrite (map, pad)
 * of the value bd computes, or the waiting rewrites of the items of the
 * tuple binding i computes; 0, or -1 with why filled. callee_of: the
 * PrimFunc a call computes with (a legalized operator is built in m). */
int flow_call(Sweep *S, Binding *bd, Var *y, Expr *map, const Expr *pad, Loc loc, char *why, size_t cap);
int flow_tuple(Sweep *S, Binding *bd, int i, char *why, size_t cap);
Func *callee_of(Module *m, const Expr *e, int tuple, const OpInfo **opp, Expr *const **itemsp, int *np, int *noutp,
                char *why, size_t cap);

/* The operators that keep their form, attributes renumbered (flow_ops.c). */
int broadcast_stmt(const Stmt *s, const FlowTir *r, int *ok);
int perm_of(const Expr *map, int *perm);
Expr *reduce_axes(Module *m, const Expr *call, const Expr *omap, const Expr *imap, int rank, Loc loc);
Expr *reduce_through(Module *m, const Expr *e, const Expr *map, const TensorType *pt, const TensorType *yt, Loc loc);
Expr *reduce_split(Module *m, Arena *scratch, const Expr *e, const Expr *map, const TensorType *pt,
                   const TensorType *yt, Expr **kept, TensorType *rt, Loc loc);
Expr *keep_light(Module *m, Arena *scratch, const Expr *call, const Expr *omap, const Expr *imap,
                 const TensorType *in);
Expr *keep_unit_axes(Module *m, const Expr *call, const Expr *omap, const Expr *imap, const TensorType *in,
                     Expr *arg);
Expr *keep_crop(Module *m, Arena *scratch, const Expr *call, const Expr *omap, const Expr *imap, int padded,
                int has_pad, double pad, const TensorType *in, Expr *arg);
int stacks(Arena *scratch, const char *op, const Expr *map, const Expr *pad, const TensorType *t, int n, int k,
           int *jout, int64_t *start, TensorType *pt, TensorType *ot, char *why, size_t cap);
Expr *split_stacked(Module *m, Arena *scratch, const Expr *e, Expr *x_t, const Expr *map, const StructInfo *old,
                    int n, int rank);

/* flow_call's and flow_tuple's answers, kept per call (flow_cache.c). flow_cache_mode: 0
 * off, 1 on, 2 check (LOPT_FLOW_CACHE). */
int flow_cache_mode(void);
int answer_hash(const Expr *e, const Callee *c, const Expr *const *maps, int nmaps, int has_pad, double pad,
                uint64_t *h);
FlowAnswer *answer_find(const FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *const *maps,
                        int nmaps, int has_pad, double pad);
FlowAnswer *answer_add(FlowCache *C, uint64_t h, const Expr *e, const Callee *c, const Expr *const *maps, int nmaps,
                       int has_pad, double pad, int failed, const FlowTir *r, const char *why);
/* The function of the module the answer's copy went into, while it is
 * still there (a call that finds it takes it, as flow_place would). */
Func *answer_placed(Module *m, const FlowAnswer *x);
void answer_check(const FlowAnswer *x, const Expr *e, int failed, const FlowTir *r, const char *why);
void flow_cache_free(FlowCache *C);
Expr *map_copy(Arena *a, const Expr *map);
Expr *map_share(Module *m, FlowAnswer *x, int k);
/* The PrimFunc of the module a call is to take for the flowed copy f: one
 * this sweep placed before that prints as f does (*made 0), else a copy of
 * f in the module's arena, for the caller to add (*made 1). */
Func *flow_place(Sweep *S, const Func *f, int *made);
void flow_place_free(Sweep *S);

/* Rewrites sink forward past elementwise calls before the sweep
 * (flow_sink.c), judged by the uses S->uses counts (counted before, left as
 * they were); returns how many bindings changed, after which the uses are
 * to be counted again. */
int sink_block(Sweep *S, RBlock *rb);
/* A rewrite read only by a reduction or a slice moves past it, onto the
 * smaller result (flow.c asks when the sweep would leave it where it is). */
int sink_smaller(Sweep *S, RBlock *rb, int i, int j);

#endif
