/* The syntax tree the parser builds: a small Python subset (expressions,
 * assignments, for/if/with/def/class). grammar/lower.c, lower_tir.c and
 * lower_relax.c give it meaning as IR. */
#ifndef LOPT_SYNTAX_H
#define LOPT_SYNTAX_H

#include <stdint.h>

#include "../ir/ir.h"

typedef enum {
    SX_NAME, SX_INT, SX_FLOAT, SX_STR, SX_TRUE, SX_FALSE, SX_NONE,
    SX_ATTR,      /* a.name */
    SX_CALL,      /* f(args, key=value) */
    SX_INDEX,     /* a[items] */
    SX_SLICE,     /* lo:hi inside a subscript */
    SX_TUPLE, SX_LIST, SX_DICT,
    SX_BINOP, SX_UNARY, SX_LAMBDA,
    SX_CONST,     /* the list of numbers of R.const([...], "dtype"), already typed */
    SX_STAR       /* *a, an argument unpacked (u.bin.a) */
} SxKind;

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD,
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR,
    OP_BITAND, OP_BITOR, OP_BITXOR, OP_SHL, OP_SHR,   /* & | ^ << >> */
    OP_NEG, OP_POS, OP_NOT, OP_INVERT                 /* OP_INVERT: ~ */
} SxOp;

/* The elements of a constant's (nested) list, which the lexer reads straight
 * into storage of the constant's dtype in the module's arena (ir/elem.h), so
 * a large constant costs no syntax node per element. */
typedef struct SxConst {
    DType dtype;
    int ndim;
    int64_t *shape;   /* in the module's arena */
    void *data;       /* count elements, and one more that is zero */
    int64_t count;
    Loc loc;          /* of the opening bracket */
} SxConst;

typedef struct Sx Sx;
typedef struct SxList {
    Sx **items;
    Sym **keys;       /* keyword names for calls (NULL entries: positional) */
    int n, cap, kcap;
} SxList;

struct Sx {
    SxKind kind;
    Loc loc;
    short depth;      /* nesting depth, bounded to keep recursion safe */
    short paren;      /* written in parentheses */
    union {
        Sym *name;                                   /* NAME */
        int64_t ival;                                /* INT */
        double fval;                                 /* FLOAT */
        struct { const char *s; int len; } str;      /* STR */
        struct { Sx *obj; Sym *name; } attr;         /* ATTR */
        struct { Sx *fn; SxList args; } call;        /* CALL */
        struct { Sx *obj; SxList items; } index;     /* INDEX */
        struct { Sx *lo, *hi; } slice;               /* SLICE */
        SxList elems;                                /* TUPLE, LIST */
        SxList pairs;                                /* DICT: key, value, key, value, ... */
        struct { SxOp op; Sx *a, *b; } bin;          /* BINOP, UNARY (a) */
        struct { SxList params; Sx *body; } lambda;  /* LAMBDA */
        SxConst *cst;                                /* CONST */
    } u;
};

typedef enum {
    ST_EXPR, ST_ASSIGN, ST_RETURN, ST_PASS, ST_FOR, ST_IF, ST_WITH, ST_DEF, ST_CLASS,
    ST_WHILE,         /* u.loop: iter is the condition */
    ST_BREAK, ST_CONTINUE,
    ST_ASSERT,        /* u.assign: target is the condition, value the message or NULL */
    ST_DECLARE,       /* u.assign without a value: x: T.float32, a prim_func's mutable scalar */
    ST_LOWERED        /* a def or with the reader has already lowered */
} StKind;

typedef struct St St;
typedef struct StList {
    St **items;
    int n, cap;
} StList;

typedef struct SxParam {
    Sym *name;
    Loc loc;
    Sx *annot;     /* may be NULL */
    Sx *dflt;      /* may be NULL */
} SxParam;

struct St {
    StKind kind;
    Loc loc;
    union {
        Sx *expr;                                           /* EXPR, RETURN (may be NULL) */
        struct { Sx *target, *annot, *value; } assign;      /* value may be NULL */
        struct { Sx *target, *iter; StList body; } loop;
        struct { Sx *cond; StList then, orelse; } branch;
        struct { Sx *ctx, *as; StList body; } with;
        struct {
            SxList decorators;
            Sym *name;
            Loc name_loc;
            SxParam **params;
            int nparams;
            Sx *ret;
            StList body;
        } def;                                              /* DEF and CLASS */
    } u;
};

/* What the parser hands back: the statements of the file. (The kept
 * `# from tvm.script import ...` lines are the lexer's.) */
typedef struct SyntaxFile {
    StList body;
} SyntaxFile;

enum { SX_MAX_DEPTH = 1000, SX_MAX_INDENT = 100 };

Sx *sx_new(Arena *a, SxKind k, Loc loc);
void sx_push(Arena *a, SxList *l, Sym *key, Sx *item);
St *st_new(Arena *a, StKind k, Loc loc);
void st_push(Arena *a, StList *l, St *item);
/* The deepest nesting among an expression's children, plus one. */
int sx_depth(const Sx *e);

#endif
