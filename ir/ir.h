/* The IR of a module: Relax graph functions and TIR PrimFuncs, all nodes in
 * the module's arena, names interned. The reader (grammar/lower.c) builds it,
 * passes transform it, the printer and the verifier read it. */
#ifndef LOPT_IR_H
#define LOPT_IR_H

#include <stdint.h>

#include "arena.h"
#include "diag.h"

typedef enum {
    DT_VOID, DT_BOOL, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
    DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,
    DT_FLOAT16, DT_BFLOAT16, DT_FLOAT32, DT_FLOAT64, DT_HANDLE, DT_COUNT
} DType;

const char *dtype_name(DType t);
/* Returns 0 and sets *out when s names a dtype, else -1. */
int dtype_parse(const char *s, DType *out);
int dtype_is_float(DType t);
int dtype_is_int(DType t);    /* signed or unsigned integers, not bool */
int dtype_size(DType t);      /* bytes of one element; 0 for void and handle */
/* a // b and a % b rounding toward negative infinity, as TIR's floordiv and
 * floormod (b != 0; INT64_MIN // -1 is the caller's to avoid) */
int64_t floordiv64(int64_t a, int64_t b);
int64_t floormod64(int64_t a, int64_t b);

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Func Func;
typedef struct StructInfo StructInfo;

typedef enum { VAR_RELAX, VAR_TIR, VAR_SYM } VarKind;

typedef struct Var {
    /* No padding: 56 bytes, of which a Relax variable is given the 40
     * before `loop` (var_new), and one the reader binds (a large module
     * holds one per binding) the 32 before `said` (var_read, `brief` set);
     * its kind never changes, `said` is read only of a variable not brief,
     * `loop` and `data_of` only of a TIR variable, and a copy is made by
     * var_copy. */
    Sym *name;
    StructInfo *sinfo;    /* Relax vars: declared or inferred, may be NULL */
    Loc loc;
    VarKind kind : 8;
    DType dtype : 8;      /* TIR and symbolic vars */
    unsigned dataflow : 1;  /* bound inside a dataflow block */
    unsigned brief : 1;   /* made by var_read: no room for `said` and what follows */
    unsigned mark;        /* scope stamp, owned by whoever walks scopes */
    Sym *said;            /* made by a pass: what it stands for, in the input's names (--explain) */
    /* VAR_TIR and VAR_SYM only: */
    Stmt *loop;           /* the For that defines a loop variable */
    struct Buffer *data_of;  /* B.data: the handle of buffer B's storage (named "B.data") */
} Var;

/* BUF_ALIAS: A_1 = T.Buffer((256,), "float32", data=A.data), another view of
 * the storage of buffer `base` (flatten gives parameters such a flat alias).
 * Three allocations, one meaning to lopt, kept apart as TVM keeps them:
 * BUF_ALLOC T.alloc_buffer (a statement: the buffer lives to the end of the
 * statements around it), BUF_SBLOCK T.sblock_alloc_buffer (owned by the
 * block it opens, or the function's root block), BUF_DECL T.decl_buffer
 * without data= (an allocation and its declaration), and BUF_LOCAL
 * T.alloc_local (T.alloc_buffer in scope "local", which its scope holds). */
typedef enum { BUF_PARAM, BUF_ALLOC, BUF_MATCH, BUF_ALIAS, BUF_SBLOCK, BUF_DECL, BUF_LOCAL } BufKind;

/* Whether a buffer of this kind is storage of its own that a statement allocates. */
static inline int buf_allocates(BufKind k)
{
    return k == BUF_ALLOC || k == BUF_SBLOCK || k == BUF_DECL || k == BUF_LOCAL;
}

typedef struct Buffer {
    Sym *name;
    Loc loc;
    BufKind kind;
    DType dtype;
    int ndim;
    Expr **shape;
    const char *scope;    /* NULL means "global" */
    int *axis_sep;
    int nsep;
    Sym **extra_keys;     /* other keyword options, kept and printed as given */
    Expr **extra_vals;
    int nextra;
    Var *handle;          /* BUF_MATCH: the handle parameter it matches */
    struct Buffer *base;  /* BUF_ALIAS: the buffer whose storage it views */
    struct Region *region;  /* BUF_MATCH of a region, A_sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16)) */
    int decl;             /* a view spelled T.decl_buffer(..., data=...) (1), or a BUF_MATCH over a
                           * handle spelled T.Buffer(..., data=h) (2); 0 as T.match_buffer or T.Buffer */
    Var *data;            /* B.data once read, else NULL */
    Var **defs;           /* the variables B defines besides B.data, once read: B.elem_offset
                           * (elem_offset= given as a name, or offset_factor= without it) and
                           * B.strides[i] (strides= given as names), each named so, like B.data */
    int ndefs;
    int layout_none;      /* layout=None as written: the plain row-major layout, which TVM spells
                           * so in a function it reads as TIRx (no s_tir), where a buffer without
                           * it gets a TileLayout; printed back as read */
    int scalar;           /* a prim_func's mutable scalar (x: T.float32, or x = e of a number): a
                           * local buffer of shape (1,), read as x and written by x = e, as TVM's
                           * T.local_scalar */
    unsigned mark;
} Buffer;

typedef enum { SI_TENSOR, SI_TUPLE, SI_SHAPE, SI_PRIM, SI_OBJECT } SInfoKind;

struct StructInfo {
    SInfoKind kind;
    Loc loc;
    int ndim;             /* -1: unknown rank */
    Expr **shape;         /* NULL when only the rank (or nothing) is known */
    DType dtype;          /* DT_VOID: unknown */
    const char *vdevice;
    StructInfo **fields;  /* SI_TUPLE */
    int nfields;          /* -1: a tuple of unknown fields (a bare R.Tuple) */
    Expr *value;          /* SI_PRIM: the value when known, R.Prim(value="n"), or NULL */
    Expr *written;        /* SI_OBJECT: R.Callable(...) or R.DTensor(...) as written (a call),
                           * kept and printed, and checked as an object; NULL for R.Object */
};

typedef enum {
    E_VAR, E_INT, E_FLOAT, E_STR, E_BOOL, E_NONE,
    E_TUPLE, E_LIST, E_DICT,
    E_GETITEM,    /* Relax tuple access t[i] */
    E_CALL,       /* an operator or intrinsic by dotted name: R.add, T.max */
    E_GLOBAL,     /* cls.f: a function of the module */
    E_BIN, E_UNARY,
    E_LOAD,       /* TIR buffer load A[i, j] */
    E_CAST,
    E_SLICE,      /* lo:hi inside a buffer region */
    E_INDEXMAP,   /* T.index_map(lambda i, j: (...)) */
    E_SINFO,      /* struct info used as a value: out_sinfo=R.Tensor(...) */
    E_CONST,      /* R.const(value, dtype): a tensor constant */
    E_IF,         /* Relax if/else: each branch a sequence of bindings and a result */
    E_FUNC        /* a Relax function defined inside another (u.global: not in the module) */
} ExprKind;

/* A branch of a Relax if: its bindings, then the value the branch gives. */
typedef struct RSeq {
    struct RBlock **blocks;
    int nblocks;
    Expr *result;
    Loc loc;
    Loc at;               /* where the branch binds the if's value (y = value, or a nested if) */
    StructInfo *annot;    /* that binding's annotation as written, or NULL; the if's binding
                           * holds one of its branches' (the first's) */
} RSeq;

/* The bitwise ops are TVM's builtins T.bitwise_and, ... (both spellings,
 * a & b and the call, read as one), on integers or bools (the shifts on
 * integers only); they come before B_LT, as every op from B_LT on gives a
 * bool. */
typedef enum {
    B_ADD, B_SUB, B_MUL, B_DIV, B_FLOORDIV, B_FLOORMOD,
    B_BITAND, B_BITOR, B_BITXOR, B_SHL, B_SHR,
    B_LT, B_LE, B_GT, B_GE, B_EQ, B_NE, B_AND, B_OR
} BinOp;

typedef enum { U_NEG, U_NOT, U_BITNOT } UnOp;

/* The builtin a bitwise op is and prints as (T.bitwise_and for B_BITAND,
 * ...), or NULL for any other op; T.bitwise_not is U_BITNOT's. */
const char *bitop_name(BinOp op);
#define BITNOT_NAME "T.bitwise_not"
/* The bitwise op the builtin name is, or -1. */
int bitop_of_name(const char *name);
/* An integer shift count a value of dtype t allows: 0 <= k < its bits. */
int shift_ok(DType t, int64_t k);

/* expr_new makes an E_VAR, E_SINFO, E_GLOBAL, E_TUPLE or E_LIST only as long
 * as its member of u (a large module holds several per binding): an
 * expression's kind never changes in place, no member of u but its kind's is
 * read, and a whole Expr is written only over one allocated whole
 * (arena_alloc(sizeof(Expr)), as copies made field by field are; expr_copy
 * makes a short one of a short kind). A whole copy of a short one reads
 * past its end, which the arena's chunks leave room for (ARENA_TAIL). The
 * kind and the location take the first eight bytes (a Loc is seven): an
 * E_VAR is 16 bytes, an E_CALL 48. */
struct Expr {
    ExprKind kind : 8;    /* with loc, eight bytes before u */
    Loc loc;
    union {
        Var *var;
        struct { int64_t v; DType dtype; } i;             /* INT; dtype DT_VOID = bare literal */
        struct { double v; DType dtype; } f;              /* FLOAT */
        struct { const char *s; int len; } str;
        int b;                                            /* BOOL */
        struct { Expr **items; int n; } list;             /* TUPLE, LIST */
        struct { Expr **keys, **vals; int n; } dict;
        struct { Expr *tuple; int index; } get;
        struct {
            Sym *op;
            Expr *callee;         /* cls.f when calling a function of the module, else NULL */
            Expr **args;          /* nargs positional values, then the nkw keyword values */
            Sym **kw;             /* the nkw keywords */
            int nargs, nkw;
        } call;
        struct { Func *fn; Sym *name; } global;
        struct { BinOp op; Expr *a, *b; } bin;
        struct { UnOp op; Expr *a; } un;
        struct { struct Buffer *buf; Expr **idx; int n; } load;
        struct { DType dtype; Expr *a; } cast;
        struct { Expr *lo, *hi; } slice;
        struct { Var **params; int nparams; Expr **out; int nout; } map;
        StructInfo *sinfo;
        struct { DType dtype; int ndim; int64_t *shape; void *data; int64_t count; } cst;  /* data: typed (ir/elem.h) */
        struct { Expr *cond; RSeq *then, *orelse; } rif;
    } u;
};

typedef enum { FOR_SERIAL, FOR_PARALLEL, FOR_VECTORIZED, FOR_UNROLLED, FOR_THREAD } ForKind;

typedef struct BlockIter {
    Var *var;
    char kind;            /* 'S' spatial, 'R' reduce, 'O' opaque */
    Expr *dom;
    Expr *binding;
    Loc loc;
} BlockIter;

typedef struct Region Region;
struct Region {
    Buffer *buf;
    Expr **idx;           /* points or E_SLICE ranges */
    int n;
    Loc loc;
};

typedef struct Block {
    Sym *name;
    BlockIter *iters;
    int niters;
    Region *reads, *writes;
    int nreads, nwrites;
    int has_reads, has_writes;
    Expr *attrs;          /* E_DICT or NULL */
    Expr *where;          /* predicate or NULL */
    Stmt *init;           /* NULL when there is no T.init() */
    Stmt *body;
} Block;

/* S_LOWERED: the statements of lowered TIR, which lopt reads and prints but
 * whose meaning its passes and interpreter leave alone (tir_lowered_stmt). */
typedef enum { S_SEQ, S_FOR, S_BLOCK, S_STORE, S_IF, S_EVAL, S_ALLOC, S_LET, S_LOWERED } StmtKind;

typedef enum {
    LOW_ATTR,       /* with T.attr(node, "key", value): body */
    LOW_WHILE,      /* while cond: body */
    LOW_ASSERT,     /* assert cond, "message" */
    LOW_BREAK, LOW_CONTINUE,
    LOW_IDS         /* bx, by = T.cta_id([2, 2]): args[0] the call, args[1] the E_TUPLE of the E_VARs it defines */
} LowKind;

struct Stmt {
    StmtKind kind;
    Loc loc;
    union {
        struct { Stmt **items; int n; } seq;
        struct {
            Var *var;
            ForKind fk;
            Expr *min, *extent;
            const char *thread;   /* FOR_THREAD */
            Stmt *body;
            Expr *annot;          /* annotations={...} (E_DICT), or NULL */
            Expr *step;           /* step=..., or NULL for 1 */
            int launch;           /* v = T.launch_thread("threadIdx.x", n): the rest of the statements are its body */
        } loop;
        Block *block;
        struct { Buffer *buf; Expr **idx; int n; Expr *value; } store;
        struct { Expr *cond; Stmt *then, *orelse; } branch;
        Expr *eval;
        Buffer *alloc;            /* T.alloc_buffer, or T.match_buffer when kind is BUF_MATCH */
        struct { Var *var; Expr *value; Expr *handle_type; } let;   /* handle_type: x: T.let[T.handle("int32")], as written, or NULL */
        struct { LowKind k; Expr *args[3]; int nargs; Stmt *body; } low;
    } u;
};

typedef struct Binding {
    Loc loc;
    Var *var;
    StructInfo *annot;    /* as written, or NULL */
    Expr *value;
} Binding;

typedef struct RBlock {
    Loc loc;
    int dataflow;
    Binding **binds;
    int nbinds;
    Var **outputs;        /* R.output(...) of a dataflow block */
    int noutputs;
    Loc out_loc;
} RBlock;

typedef struct PParam {
    Var *var;             /* scalar or handle parameter */
    Buffer *buf;          /* buffer parameter */
    Expr *handle_type;    /* a typed pointer, T.handle("float32", "global"), as written; else NULL */
} PParam;

typedef enum { F_RELAX, F_PRIM } FuncKind;

struct Func {
    FuncKind kind;
    Sym *name;
    Loc loc;
    int is_private;
    int is_impure;        /* @R.function(pure=False): bindings may have effects */
    int is_local;         /* defined inside another Relax function (E_FUNC) */
    int s_tir;            /* @T.prim_func(s_tir=True) as written: TVM reads the function as
                           * schedulable TIR (buffers without a TileLayout); printed as read,
                           * and in TVM's style also for a function holding blocks */
    int no_wf_check;      /* check_well_formed=False as written: printed back, since TVM
                           * would check the function on reading without it */
    Expr *attrs;          /* R.func_attr / T.func_attr dict, or NULL */
    /* Relax */
    Var **params;
    int nparams;
    StructInfo *ret;
    Var **syms;           /* symbolic shape variables */
    int nsyms;
    RBlock **blocks;
    int nblocks;
    Expr *result;
    /* TIR */
    PParam *pparams;
    int npparams;
    DType tret;           /* -> T.float32: the scalar a PrimFunc returns (T.ret), or DT_VOID */
    Stmt *body;
};

typedef struct Module {
    Arena arena;
    Interner names;
    Sym *name;            /* the class name, "Module" by default */
    int bare;             /* the file held a single function, no class */
    int s_tir;            /* @I.ir_module(s_tir=True) as written */
    int no_wf_check;      /* @I.ir_module(check_well_formed=False) as written */
    int say;              /* a pass explains (--explain, --report): var_say names what pass-made variables
                           * stand for; else nothing would print it, and it is not made */
    const char **headers; /* kept `# from tvm.script import` lines */
    int nheaders;
    Expr *global_infos;   /* I.module_global_infos({...}) or NULL */
    Expr *module_attrs;   /* I.module_attrs({...}) or NULL */
    Func **funcs;
    int nfuncs;
    unsigned stamp;       /* the last scope stamp handed out (see Var.mark) */
    /* module_find's index: the position of each name in funcs as it was
     * when indexed (funcs, nfuncs), rebuilt when they differ; module_add
     * keeps it current, and funcs_cap is the room of funcs_room's array */
    struct {
        Sym **keys;
        int *pos;
        size_t cap;
        Func **funcs;
        int nfuncs;
        unsigned gen;     /* counts the rebuilds and the changes module_add did not follow */
    } index;
    /* fresh_func's search (passes/graph.c): per base name, the suffix below
     * which every name is taken, while index.gen is gen (functions only
     * added since); malloc'd, open addressing */
    struct {
        Sym **keys;
        int *next;
        size_t cap, n;
        unsigned gen;
    } fresh;
    Func **funcs_room;
    int funcs_cap;
    /* the constants fold rewrote (passes/layout/fold.c), found by the data
     * read and the map: the same rewrite of the same data again (flow's
     * search folds copies of the module) shares the data written the first
     * time. Open addressing over the data pointer, in the arena. */
    struct ConstFold **folds;
    size_t folds_cap, nfolds;
} Module;

Module *module_new(void);
void module_free(Module *m);

/* A working copy sm of m over another arena (*arena: a scratch arena, or
 * one m's owner frees) that shares m's names and stamps: module_give_back
 * writes the names, the stamp and the arena as sm grew them back, and so
 * does oom_fail if an allocation fails before, so that their owners free
 * what the copy grew (an interner's table moves when it grows). */
typedef struct ModuleLoan {
    Module *m, *sm;
    Arena *arena;
} ModuleLoan;
void module_lend(ModuleLoan *l, Module *m, Module *sm, Arena *arena);
void module_give_back(ModuleLoan *l);
/* Takes n scope stamps for a walk that marks variables: its marks are
 * base + 1 .. base + n, base returned, and no mark set before lies in that
 * range (when the counter would wrap, every mark in the module is cleared
 * first and it starts again from 0). So a walk takes no stamps, nor calls
 * anything that does, while it still reads the marks of its own range: the
 * verifier, flow's and fold's sweeps, sinking and the module hash each run
 * to their end before the next takes its range. */
unsigned module_stamps(Module *m, size_t n);
/* The first function named name, or NULL; constant time over an index that a
 * pass editing m->funcs by hand (a new array or a new count) makes stale, and
 * the next look-up rebuilds. A pass that puts another function in place of
 * one, with the same count in the same array, names the same function. */
Func *module_find(Module *m, Sym *name);
/* Appends f to m->funcs (amortized constant time, the index kept current). */
void module_add(Module *m, Func *f);
/* The buffer PrimFunc f's parameter i stands for: the buffer itself, or the
 * buffer its handle is matched to at the top of the body; NULL for a scalar. */
Buffer *prim_param_buffer(const Func *f, int i);

/* Grows an arena array of pointers by one: *items has room for *cap. */
void vec_push(Arena *a, void *itemsp, int *n, int *cap, void *item);

/* The keyword values of a call, in the order of its keywords. */
static inline Expr **call_kwv(const Expr *e)
{
    return e->u.call.args + e->u.call.nargs;
}

Expr *expr_new(Arena *a, ExprKind k, Loc loc);
/* A copy of e in a, as long as expr_new makes one of its kind. */
Expr *expr_copy(Arena *a, const Expr *e);
Expr *expr_int(Arena *a, int64_t v, DType dt, Loc loc);
/* dt DT_VOID: a bare literal (0.5), else a typed one (T.float32(0.5)). */
Expr *expr_float(Arena *a, double v, DType dt, Loc loc);
/* A string literal holding a copy of s. */
Expr *expr_str(Arena *a, const char *s, Loc loc);
Stmt *stmt_new(Arena *a, StmtKind k, Loc loc);
Var *var_new(Arena *a, Sym *name, VarKind k, Loc loc);
/* A Relax variable the reader binds: var_new's, brief (no `said`). */
Var *var_read(Arena *a, Sym *name, Loc loc);
/* A copy of v in a, whole (fields a short Relax variable lacks are zero). */
Var *var_copy(Arena *a, const Var *v);

int expr_equal(const Expr *a, const Expr *b);
/* A hash that agrees with expr_equal (equal expressions hash alike); for
 * lookups only, never for an order that shows in the output. */
uint64_t expr_hash(const Expr *e);
/* The dtype a TIR expression evaluates to. */
DType tir_dtype(const Expr *e);
/* Constant value of an integer expression, or -1 when it is not constant. */
int expr_const_int(const Expr *e, int64_t *out);
/* The value of an integer expression of constants, casts, negation and + - * // %
 * (TIR's floor division) over variables whose values value gives (nonzero
 * when it has none); -1 when it reads anything else, overflows or divides
 * by zero. One rule for every extent computed from symbols: the index-map
 * algebra's stand-ins, transform-layout's checks, the interpreters' shapes (TIR
 * extents, Relax dimensions). */
typedef int (*VarValue)(const Var *v, void *data, int64_t *out);
int expr_eval_int(const Expr *e, VarValue value, void *data, int64_t *out);

/* Checks the module's invariants, reporting each violation through src.
 * Returns the number of errors. */
/* Visits e and, unless visit returns nonzero for it, every expression inside
 * it: tuple and list items, dict values, a call's callee and arguments, an
 * if's condition and its branches' binding values and results, and a local
 * function's binding values and result. Relax expressions only. */
typedef int (*ExprVisit)(const Expr *e, void *data);
void relax_walk(const Expr *e, ExprVisit visit, void *data);
/* relax_walk over the binding values of blocks. */
void relax_walk_blocks(struct RBlock *const *blocks, int nblocks, ExprVisit visit, void *data);

/* R.Tensor(shape, dtype) with a constant shape, in a. */
StructInfo *tensor_sinfo_new(Arena *a, DType dt, int ndim, const int64_t *shape, Loc loc);

/* The first construct in a PrimFunc's body that the layout passes and the
 * interpreter do not handle (lowered TIR: "T.attr", "while", "assert", a
 * loop with step=, B.data, a match_buffer of a region, ...), as its
 * TVMScript spelling, or NULL. */
const char *tir_unhandled(const Func *f);
/* The same for the interpreter, which runs a match_buffer of a region. */
const char *tir_unrunnable(const Func *f);
/* Whether a Relax function says R.func_attr({"relax.force_pure": True}):
 * pure to its callers, though it may call for effects inside (a PrimFunc
 * called directly on its outputs, a call not bound). */
int func_force_pure(const Func *f);

int ir_verify(Module *m, Source *src);
/* ir_verify, and the checks of an input: a call of a name neither lopt
 * nor TVM defines is an error (allow_unregistered: a warning, the call kept
 * opaque); warnings are errors when strict. */
int ir_verify_input(Module *m, Source *src, int strict, int allow_unregistered);

/* strcmp(a, b) == 0 as a loop the compiler inlines: names compared on
 * every binding are a few bytes long, shorter than strcmp's setup. */
static inline int streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

#endif
