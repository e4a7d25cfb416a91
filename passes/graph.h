/* What the layout passes share: recognising layout rewrites in a Relax
 * function, counting uses, fresh names, and the --explain notes. */
#ifndef LOPT_GRAPH_H
#define LOPT_GRAPH_H

#include "../ir/ir.h"
#include "../ir/ops.h"
#include "pass.h"

/* A pointer-keyed hash map to ints (malloc'd; free with ptrmap_free). Its
 * keys are mostly nodes of one arena, looked up in the order they were
 * allocated (a sweep over a block's bindings): the slot of a key follows its
 * address (graph.c), so such a walk reads the table front to back, each key
 * beside its value, instead of one cache miss per look-up once the table no
 * longer fits the cache. */
typedef struct PtrSlot {
    const void *key;
    int val;
} PtrSlot;

typedef struct PtrMap {
    PtrSlot *slots;
    size_t cap, n;
    int bits;             /* cap is 1 << bits */
} PtrMap;

int ptrmap_get(const PtrMap *m, const void *k, int dflt);
void ptrmap_put(PtrMap *m, const void *k, int v);
/* Makes room for n entries at once. */
void ptrmap_reserve(PtrMap *m, size_t n);
/* Adds delta to k's value (0 when absent) with one look-up; returns the sum. */
int ptrmap_add(PtrMap *m, const void *k, int delta);
void ptrmap_free(PtrMap *m);
/* ptrmap_free for oom_defer: a map a function frees before it returns. */
void ptrmap_free_v(void *m);

/* The keyword argument name of a call, or NULL. */
Expr *call_kwarg(const Expr *call, const char *name);
int is_call_to(const Expr *e, const char *op);
/* y = R.layout_transform(x, index_map=T.index_map(...), pad_value=p) */
int is_layout_transform(const Expr *e);
/* The function a R.call_tir calls, or NULL. */
Func *call_tir_callee(const Expr *e);
int func_is_frozen(const Func *f);
/* Adds "frozen_layout": True to f's attributes (the passes keep its layouts). */
void func_set_frozen(Module *m, Func *f);

/* Counts, for every Relax variable, its uses in fn (bindings, outputs,
 * result, and inside the branches of its ifs). */
void count_uses(const Func *fn, PtrMap *uses);
/* Whether fn holds a Relax if, a local function or a call of a function
 * value. The layout passes leave such a function as it is: they do not move
 * rewrites into, out of or across branches or functions. */
int has_control_flow(const Func *fn);
/* A pure Relax function without control flow: one the layout passes change. */
int is_plannable(const Func *fn);
/* Marks (value 1) every function of the module e refers to, branches included. */
void mark_globals(const Expr *e, PtrMap *used);
void mark_func_globals(const Func *fn, PtrMap *used);
/* Marks the PrimFuncs whose signature must stay: those a function with
 * control flow or effects refers to, and those called with tir_vars. */
void mark_fixed_signatures(const Module *m, PtrMap *fixed);
/* Removes the bindings of fn whose values nothing uses (Relax values have
 * no effects), last first so a dead chain goes in one sweep. */
void remove_dead(Func *fn);
/* Records every variable name of fn so fresh_name can avoid them. */
void collect_names(const Func *fn, PtrMap *names);
Sym *fresh_name(Interner *in, PtrMap *names, const char *base);

Expr *var_ref(Arena *a, Var *v, Loc loc);
/* base = value, as a new binding of a fresh variable named after base
 * (avoiding names), typed si (may be NULL), in a block that is dataflow or not.
 * Its name is in neither the input nor, often, the output: var_say tells
 * --explain what it stands for. */
Binding *binding_fresh(Module *m, PtrMap *names, const char *base, int dataflow, StructInfo *si, Expr *value,
                       Loc loc);
StructInfo *tuple_sinfo_new(Arena *a, StructInfo **fields, int n, Loc loc);
/* The static shape of a tensor struct info; -1 when not known. */
int sinfo_shape(const StructInfo *s, DType *dt, int *ndim, int64_t *shape);
/* Whether two tensor struct infos have the same known dtype and static shape. */
int sinfo_same_tensor(const StructInfo *a, const StructInfo *b);
/* Gives the variables of fn without struct info the type their value has,
 * where it is known (call_tir's out_sinfo, operators, rewrites, constants),
 * and a tensor type without a dtype the dtype its value has. */
void infer_types(Module *m, Func *fn);
/* The type infer_types gives a binding of value e (NULL when not known). */
StructInfo *infer_value(Module *m, const Expr *e);
/* Whether two pad values (NULL or None: undefined) are the same. */
int same_pad(const Expr *a, const Expr *b);

/* Whether index expression e (a map's output) mentions v. */
int expr_mentions(const Expr *e, const Var *v);
/* Whether two index maps are the same map over a tensor of type si (their
 * normal forms are equal; without a static shape, the same text). The
 * algebra works in scratch, which is left as it was found. */
int same_rewrite(Arena *scratch, const Expr *a, const Expr *b, const StructInfo *si);
/* base when no function of m has that name, else base_1, base_2, ... */
Sym *fresh_func(Module *m, const char *base);
/* The n functions with each Relax one copied into m's arena: its variables,
 * blocks, bindings and values (branches and local functions too) are its
 * own, so a pass can change it without touching the original, and a
 * reference to another of the n names that one's copy, so the copies make a
 * module (a copy calling the original would call a function not in it).
 * What passes never change in place (index maps, constants, struct info,
 * PrimFuncs) is shared. */
Func **relax_clone_funcs(Module *m, Func *const *funcs, int n);
/* Appends f to m (which then prints as a class). */
void module_add_func(Module *m, Func *f);
/* R.call_tir(cls.f, (items...), out_sinfo=out_sinfo) */
Expr *call_tir_new(Module *m, Func *f, Expr *const *items, int n, Expr *out_sinfo, Loc loc);
/* R.op(x, key=val, ...): one positional operand and nkw keyword arguments. */
Expr *call_new(Module *m, const char *op, Expr *x, const char *const *keys, Expr *const *vals, int nkw, Loc loc);
/* The output of map that is its parameter p itself, when no other output
 * mentions p (the dimension is kept whole), else -1. */
int whole_dim(const Expr *map, int p);
/* R.nn.pad(x) adding more[d] at the high end of each of rank dimensions,
 * with value (0.0 when NULL). */
Expr *pad_high(Module *m, Expr *x, int rank, const int64_t *more, Expr *value, Loc loc);

/* A copy of call whose keyword arguments keys are set to vals (added when
 * absent); its argument array is its own, so operands can be replaced. */
Expr *call_with_attrs(Module *m, const Expr *call, const char *const *keys, Expr *const *vals, int n);

/* [v0, v1, ...] as an E_LIST of integers. */
Expr *int_list(Arena *a, const int64_t *v, int n, Loc loc);

Expr *layout_transform_new(Module *m, Expr *x, Expr *map, Expr *pad, Loc loc);
/* R.crop(x, start_indices=[0, ...], slice_sizes=t's shape, cropped_value=0.0). */
struct TensorType;
Expr *crop_new(Module *m, Expr *x, const struct TensorType *t, Loc loc);
/* lambda i0, i1, ...: (i0, i1, ...) of rank dimensions, in a. */
Expr *identity_map(Arena *a, Interner *names, int rank, Loc loc);

/* The static type of a value (a variable with a known shape, or a constant); -1 when unknown. */
struct TensorType;
int value_type(const Expr *e, struct TensorType *t);
/* A number written as a literal (or its negation): 1 and *v set; 0 when e is
 * absent or None; -1 when it is something else. */
int const_number(const Expr *e, double *v);
/* s without the sequences of one statement around it. */
Stmt *stmt_single(Stmt *s);

/* --explain: notes collected during a pass and printed in source order. */
typedef struct Note {
    Loc loc;
    int seq;
    char *text;
    int again;            /* said already at this place (a pass that sweeps again) */
} Note;

typedef struct Notes {
    Note *v;
    int n, cap;
    int mute;             /* nothing will print them (no --explain): counted, not kept */
    int acts;             /* the notes added that say something changed (not note_is_stop) */
} Notes;

/* A note that says why a rewrite stayed ("left:", "flow stopped", "kept:"),
 * not what changed. */
int note_is_stop(const char *text);
/* A note at loc; a muted ns only counts it (by fmt's first words, which
 * every note spells out before any argument). */
void note_add(Notes *ns, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);
/* How --explain names a Relax variable: a pass-made one by what it stands
 * for ("the rewrite of lv2 to NCHW4c"), which names only values of the
 * input, else by its name. */
const char *var_said(const Var *v);
/* Sets what v, made by a pass, stands for: pre, then how --explain names of
 * (or "a constant" when of is NULL), then post; pre starts with "the " (so
 * that --explain's table reads the phrase as one value). Only while a pass
 * explains (m->say, set by the pass manager): a pass run without --explain
 * leaves its variables to be named by their names. */
void var_say(Module *m, Var *v, const char *pre, const Var *of, const char *post);
/* Prints the notes to ctx->explain (when set) as file:line:col: pass: text, and frees them. */
void notes_flush(Notes *ns, PassCtx *ctx, const char *pass);
/* notes_flush, with the table of moved, folded and left rewrites or without
 * it (a pass that does not move rewrites). */
void notes_emit(Notes *ns, PassCtx *ctx, const char *pass, int table);

/* Binds every call written inside another value of m's Relax functions (an
 * operand, a tuple's field, a function's or a branch's result, an if's
 * condition) to a variable of its own, named lv, lv1, ... by fresh_name
 * and typed by infer_value, placed before the value that reads it, as
 * TVM's block builder normalizes: the passes read operands as variables,
 * so every call stands where they look. A note in ns says what was bound.
 * Returns the number of bindings made (0: m is as it was); the caller
 * then has the verifier type what is left unannotated (the pass manager
 * does), as it types the module read with these bindings written out. */
int bind_nested_calls(Module *m, Notes *ns);

#endif
