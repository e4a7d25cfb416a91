/* Index maps: the mathematics under every layout rewrite.
 *
 * A map such as lambda n, c, h, w: (n, c // 4, h, w, c % 4) is read over a
 * box of input extents and kept in a normal form: each output is a constant
 * plus a sum of terms coef * ((x // lo) % (hi / lo)), a run of the mixed-radix
 * digits of one input x between the places lo and hi (hi == 0: all digits
 * from lo up, x // lo). A floordiv or floormod that does not fall on digit
 * boundaries stays an opaque term over its (normalized) argument.
 *
 * The normal form is built over the box, so c // 4 * 4 + c % 4 becomes c and
 * c // 4 becomes 0 when c < 4. Equal maps in the split/fuse/permute class
 * have equal normal forms; that is how identity is proved.
 *
 * All memory comes from the caller's arena. */
#ifndef LOPT_INDEXMAP_H
#define LOPT_INDEXMAP_H

#include "ir.h"

enum { IM_MAX_RANK = 16 };

typedef struct ImSum ImSum;

typedef struct ImTerm {
    int64_t coef;
    int var;               /* input position, or -1 for an opaque term */
    int64_t lo, hi;        /* var term: (x // lo) % (hi / lo); x // lo when hi == 0 */
    const ImSum *arg;      /* opaque term: arg // div or arg % div */
    int64_t div;
    BinOp op;              /* B_FLOORDIV or B_FLOORMOD */
} ImTerm;

struct ImSum {
    int64_t k;
    int n;
    const ImTerm *t;
};

typedef struct IndexMap {
    int nin, nout;
    Sym **in_names, **out_names;
    int64_t *box;          /* the input extents the map is read over */
    int64_t *obox;         /* the output extents: the box that holds the image */
    const ImSum **out;
} IndexMap;

typedef enum {
    IM_BIJECTIVE,          /* one to one and onto the output box */
    IM_PADDED,             /* one to one; the output box has points outside the image */
    IM_NOT_INJECTIVE,      /* two inputs share an output */
    IM_UNKNOWN             /* outside the class lopt decides, and too large to enumerate */
} ImKind;

typedef struct ImError {
    Loc loc;
    char msg[256];
} ImError;

/* One condition of a padding predicate: lhs OP rhs, where OP is B_GE, B_LT or B_NE. */
typedef struct ImCond {
    const ImSum *lhs;
    BinOp op;
    const ImSum *rhs;
} ImCond;

/* Reads an E_INDEXMAP expression over the input extents box (nparams of
 * them, each at least 1). Returns NULL and fills err when the map is not an
 * affine map of the allowed form, or an output can be negative. */
IndexMap *im_from_expr(Arena *a, const Expr *map, const int64_t *box, ImError *err);

/* The map between two layouts ("NCHW" -> "NCHW4c"), as an E_INDEXMAP whose
 * parameters are named after the axes of from (n, c, h, w) and whose outputs
 * follow to. The names of the outputs (n, c, h, w, c4) go to out_names when
 * it is not NULL (IM_MAX_RANK entries). Returns NULL and fills err when a
 * layout is malformed or the two do not have the same primal axes. */
Expr *im_layout_map(Arena *a, Interner *names, const char *from, const char *to, Sym **out_names, ImError *err);

/* The map of a row-major reshape from shape in to shape out (the same
 * number of elements): each point goes where its offset lands in out. Its
 * parameters are i0, i1, ... NULL when the volumes differ or a rank is not
 * in 1..IM_MAX_RANK. (The normal form is exact for the tile family:
 * reshapes that split or fuse whole axes.) */
Expr *im_reshape_map(Arena *a, Interner *names, const int64_t *in, int nin, const int64_t *out, int nout);

/* Checks a shape against a layout: the same rank, and each split axis (4c)
 * as long as its factor. */
int im_layout_check(const char *layout, const int64_t *shape, int rank, ImError *err);

/* out = map(in), for in anywhere (floor division semantics). */
void im_apply(const IndexMap *m, const int64_t *in, int64_t *out);
int64_t im_eval_sum(const ImSum *s, const int64_t *in);

/* Whether s reads input v. */
int im_sum_reads(const ImSum *s, int v);

/* Moves each element (size bytes) of src, row-major over m->box, to where m
 * sends it in dst, row-major over m->obox: what a loop over the inputs with
 * im_apply does, in the same order, with m evaluated only where the image
 * does not move by a constant step (once per row or per block of rows). */
void im_move(const IndexMap *m, const void *src, void *dst, size_t size);

/* Whether the map is the identity on its box, onto a box of the same
 * extents (decided on the normal form). */
int im_is_identity(const IndexMap *m);

/* Decides the kind of the map. For IM_NOT_INJECTIVE, wa and wb (nin entries
 * each, may be NULL) receive two inputs with the same output. Maps outside the
 * digit class are decided by enumeration when their box is small enough. */
ImKind im_classify(const IndexMap *m, int64_t *wa, int64_t *wb);

/* The same without enumeration: IM_UNKNOWN outside the digit class. */
ImKind im_classify_symbolic(const IndexMap *m, int64_t *wa, int64_t *wb);

/* g after f: (g . f)(x) = g(f(x)), over f's box, into g's output box (which
 * may be larger than the image: f's padding carried through g). g must have
 * been read over f's output box. NULL when they do not chain. */
IndexMap *im_compose(Arena *a, const IndexMap *g, const IndexMap *f);

/* The inverse of an injective map in the digit class, read over the output
 * box, and the padding predicate: the conditions (any of which holds) that
 * are true exactly on the output points outside the image. Returns NULL and
 * fills err when the map is not injective or its inverse is not derived. */
IndexMap *im_inverse(Arena *a, const IndexMap *m, ImCond **pred, int *npred, ImError *err);

/* Whether the padding predicate holds at the output point y. */
int im_pred_eval(const ImCond *pred, int npred, const int64_t *y);

/* Structural equality of normal forms. */
int im_sum_equal(const ImSum *a, const ImSum *b);
/* Whether two maps have the same outputs in normal form (the same map on a box). */
int im_equal(const IndexMap *a, const IndexMap *b);

/* The map and predicate as IR expressions, for printing or for a module. */
Expr *im_to_expr(Arena *a, Interner *names, const IndexMap *m);
Expr *im_pred_to_expr(Arena *a, Interner *names, const IndexMap *over, const ImCond *pred, int npred);
/* e simplified as an index over the variables vars, each ranging over
 * [0, ext[i]): its normal form as an expression (c // 4 * 4 + c % 4 is c),
 * or e itself when it mentions anything else or is not affine. The algebra
 * works in scratch, which is left as it was found. */
Expr *im_simplify(Arena *a, Arena *scratch, Expr *e, Var *const *vars, const int64_t *ext, int n);

/* One normal-form sum as an expression over the given variables (one per input). */
Expr *im_sum_to_expr(Arena *a, const ImSum *s, Var *const *vars);

/* ---- symbols ----
 * A map may read variables other than its parameters: a shape variable n of
 * the PrimFunc, as in lambda i, j: (i * n + j,). The algebra works over
 * integers, so a symbol is read at a value. A symbolic map is derived at a
 * stand-in value per symbol (a prime near 2^16, so that the coefficients,
 * divisors and extents the normal form computes factor back into products of
 * an integer and the symbols) and then checked at every binding of its
 * symbols to 1 .. IM_SYM_CHECK by enumeration. Compose, inverse and classify
 * take maps read at values; a map with an unbound symbol is refused where it
 * is read (im_from_expr names the variable). */
enum { IM_MAX_SYMS = 3, IM_SYM_CHECK = 6 };

typedef struct ImSyms {
    int n;
    Var *var[IM_MAX_SYMS];
    int64_t val[IM_MAX_SYMS];
} ImSyms;

/* Adds v to s unless it is there: its index, or -1 when s is full. */
int im_sym_add(ImSyms *s, Var *v);
/* Gives each symbol its stand-in value. */
void im_sym_standins(ImSyms *s);
/* e (an index map, a shape or an index) with each symbol replaced by its
 * value in s. */
Expr *im_bind(Arena *a, const Expr *e, const ImSyms *s);
/* The value of an integer expression of constants and the symbols of s,
 * with floor division; -1 when e reads anything else. */
int im_sym_eval(const Expr *e, const ImSyms *s, int64_t *v);
/* e, computed at the stand-ins, with each constant read back as a product
 * of an integer and powers of the symbols (2096672 -> n * 32); NULL when a
 * constant looks like a stand-in off by a little (n - 1), which lopt does
 * not read back. */
Expr *im_unbind(Arena *a, const Expr *e, const ImSyms *s);
/* Checks a symbolic map at every binding of the symbols of s to
 * 1 .. IM_SYM_CHECK: over the box old (rank map's inputs, expressions of the
 * symbols) map is one to one into the box new (its outputs) and its output
 * box is new (the image fills it unless pads), and inv (an index map from
 * new to old, or NULL) sends each image back. 0, or -1 with err saying at
 * which binding and point it fails. */
int im_sym_check(Arena *scratch, const Expr *map, Expr *const *old, Expr *const *new, const Expr *inv,
                 const ImSyms *s, int pads, ImError *err);

#endif
