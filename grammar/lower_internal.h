/* What the three parts of lowering share: lower.c (scopes, names, arguments,
 * literal values, the module and the parser's stream_* hooks), lower_tir.c
 * and lower_relax.c. Internal to grammar/; reader.h is the public face. */
#ifndef LOPT_LOWER_INTERNAL_H
#define LOPT_LOWER_INTERNAL_H

#include "reader.h"
#include "syntax.h"

/* What a name is bound to in the scope being read (Sym.bind_kind). */
/* BK_ENV: a name given by v = T.env_thread("threadIdx.x"), bound to the
 * thread's name until T.launch_thread(v, n) makes it a thread loop's variable */
/* BK_ITERS: the one name of `for iters in T.grid(4, 8)`, bound to the
 * E_TUPLE of its loops' variables (iters_0, iters_1, as TVM names them) */
enum { BK_NONE, BK_RVAR, BK_TVAR, BK_BUF, BK_SYM, BK_LOCAL, BK_META, BK_ENV, BK_ITERS };

enum { SHAPE_CACHE = 64 };

typedef struct Reader {
    Expr **shapes[SHAPE_CACHE];   /* recent constant Relax shapes, shared */
    int shape_n[SHAPE_CACHE];
    StructInfo *tensors[SHAPE_CACHE];  /* recent tensor annotations, shared */
    Source *src;
    Module *m;
    Arena *a;
    Func *fn;
    Expr **fixups;                /* cls.f references read before f was */
    int nfixups, capfixups;
    struct Ctx *ctx;              /* functions and dataflow blocks being read */
    int nctx;
    int in_class;
    /* How to undo the bindings of the scopes being read, most recent last:
     * a name that was unbound is one word, the Sym (a large function binds
     * a fresh name per binding); one that was bound is three, its previous
     * binding and kind, then the Sym with its low bit set (bind_sym). A
     * scope's mark is the number of words when it began. A binding directly
     * in a Relax function's body or dataflow block of a name that was
     * unbound takes no word: the function's end unbinds its bindings' names
     * (bind_top, unbind_relax). */
    uintptr_t *undo;
    int nundo, capundo;
    const Constants *consts;      /* --constants: what metadata[...] references read */
    Arena *syn;                   /* the parser's syntax nodes, released statement by statement */
    Sym **kws[8];                 /* keyword lists of calls read lately, shared (lower_call) */
    int nkws[8];
    struct { const char *s; Sym *sym; } names[32];   /* S()'s names met lately, by address */
    Sym *dotted_in, *global_out;  /* global_name's last answer */
    /* The lexer's kept R.Tensor calls (lexer.re: tensor_seen), whose copies
     * share one argument list: the last two such lists read as a constant
     * tensor type (an annotation and an out_sinfo), and the struct info
     * each gave */
    const Arena *keep;
    Sx *const *tensor_items[2];
    StructInfo *tensor_sinfo[2];
} Reader;

static const Loc NOWHERE = { 0, 0 };

#define ERR(R, loc, ...) diag_error((R)->src, (loc), __VA_ARGS__)

/* What is being read: a function, or a dataflow block inside a Relax function.
 * Statements at `depth` belong to it and are lowered as the parser reduces them. */
enum { CTX_RELAX, CTX_PRIM, CTX_DATAFLOW, MAX_CTX = 4 };

typedef struct Ctx {
    int kind;
    int depth;
    ArenaMark mark;       /* the syntax arena just after the header */
    int undo;             /* the scope when it began */
    Func *f;
    const St *header;
    int params_done;
    RBlock *block;        /* the open block: plain bindings, or the dataflow block */
    int cap;
    int closed;           /* the dataflow block has seen R.output */
} Ctx;

/* Positional and keyword arguments of a call, looked up by position or name. */
enum { MAX_CALL_ARGS = 64 };
typedef struct Args {
    Sx *pos[MAX_CALL_ARGS];
    int npos;
    Sym *kw[MAX_CALL_ARGS];
    Sx *kwv[MAX_CALL_ARGS];
    int nkw;
    int used[MAX_CALL_ARGS];
} Args;

typedef Expr *(*LowerFn)(Reader *R, const Sx *e);

/* ---- lower.c: names and scopes ---- */

void bind_sym(Reader *R, Sym *s, int kind, void *p);
/* bind_sym for a binding directly in a Relax function's body or dataflow
 * block, which records nothing for a name that was unbound. */
void bind_top(Reader *R, Sym *s, int kind, void *p);
void unbind_to(Reader *R, int mark);
/* After unbind_to at the end of Relax function f: unbinds the names of the
 * bindings bind_top did not record. */
void unbind_relax(Func *f);
Sym *S(Reader *R, const char *s);
const char *dotted(Reader *R, const Sx *e);
int is_call_of(Reader *R, const Sx *e, const char *name);
int is_docstring(const St *st);
const char *call_name(Reader *R, const Sx *e);
Sym *global_name(Reader *R, const Sx *e);

/* ---- lower.c: call arguments ---- */

int split_args(Reader *R, const Sx *call, Args *out);
Sx *kwarg(Args *a, const char *name);
Sx *arg(Args *a, int i, const char *name);
int check_kwargs(Reader *R, Args *a, const char *what);
int want_args(Reader *R, const Sx *call, Args *a, int lo, int hi, const char *what);
const char *string_arg(Reader *R, const Sx *e, const char *what);
int dtype_arg(Reader *R, const Sx *e, DType *out);
int dtype_of_ctor(const char *name, DType *out);

/* ---- lower.c: values both dialects read ---- */

Expr *lower_literal(Reader *R, const Sx *e);
Expr *lower_seq(Reader *R, const Sx *e, ExprKind k, LowerFn f);
Expr *lower_dict(Reader *R, const Sx *e, LowerFn f);
Expr *lower_call(Reader *R, const Sx *e, const char *name, LowerFn f);
int special_float(const char *s, double *d);
Expr *typed_literal(Reader *R, const Sx *e, DType t, const Sx *v);
Expr *lower_arith(Reader *R, const Sx *e, LowerFn f);
Expr **lower_shape(Reader *R, const Sx *e, int *ndim, LowerFn f);

/* ---- lower.c: declarations of symbolic and meta variables ---- */

Var *sym_var(Reader *R, Sym *name, Loc loc, DType t);
int is_decl(Reader *R, const St *st);
int lower_decl(Reader *R, const St *st);
Expr *meta_use(Reader *R, const Sym *s, Loc loc);

/* ---- lower_tir.c ---- */

Expr *lower_texpr(Reader *R, const Sx *e);
Expr *lower_index_map(Reader *R, const Sx *lam);
Expr *index_map_call(Reader *R, const Sx *e);
Expr *lower_attr_value(Reader *R, const Sx *e);
Expr *lower_attr_dict(Reader *R, const Sx *call, const char *what);
int lower_prim_func(Reader *R, Func *f, const St *def);

/* ---- lower_relax.c ---- */

RBlock *new_block(Reader *R, Func *f, int dataflow, Loc loc);
void df_begin(Reader *R, Ctx *d, Func *f, Loc loc);
int df_stmt(Reader *R, Ctx *d, const St *x);
void df_end(Reader *R, Ctx *d);
int relax_params(Reader *R, Ctx *c);
int relax_stmt(Reader *R, Ctx *c, const St *st);
int relax_end(Reader *R, Ctx *c);

#endif
