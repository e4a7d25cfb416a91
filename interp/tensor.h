/* Tensor values for the interpreter: dense, row-major, in the dtype's own
 * representation (float16 as its 16 bits), with .npy reading and writing,
 * seeded filling and comparison. */
#ifndef LOPT_TENSOR_H
#define LOPT_TENSOR_H

#include <stdint.h>
#include <stdio.h>

#include "../ir/elem.h"
#include "../ir/ir.h"

enum { TENSOR_MAX_RANK = 16 };

/* How the interpreter made a tensor from a module constant's data, which no
 * one writes and which lives as long as the module: that data rewritten by
 * an index map (R.layout_transform). Its bytes can be made again instead of
 * kept (--verify-exec's call cache, interp/memo.h). */
typedef struct TensorRecipe TensorRecipe;

typedef struct Tensor {
    DType dtype;
    int ndim;
    int64_t shape[TENSOR_MAX_RANK];
    int64_t count;        /* number of elements */
    void *data;           /* count * dtype_size(dtype) bytes */
    /* the data of the module's constant this tensor was made from, which
     * no one writes and which lives as long as the module, or NULL; the
     * tensor's own bytes may have changed since (a call wrote them) */
    const void *origin;
    /* the bytes of data mapped from the system for it alone (a large
     * tensor), or 0 when data came from malloc */
    size_t mapped;
    /* how the bytes were made, when they can be made again, or NULL; the
     * tensor's own bytes may have changed since */
    TensorRecipe *recipe;
    /* the memory budget its bytes count under (ir/mem.h), or 0 */
    uint64_t budget;
} Tensor;

struct IndexMap;
/* A recipe: the constant data from (of dtype dt) moved by im, over fill
 * (the padding's value, or poison when has_fill is 0). It takes over the
 * arena im lives in. */
TensorRecipe *recipe_new(const void *from, DType dt, struct Arena *im_arena, const struct IndexMap *im,
                         int has_fill, double fill);
/* Another holder of r: r lives until each has let it go. */
TensorRecipe *recipe_hold(TensorRecipe *r);
void recipe_release(TensorRecipe *r);
/* Writes the bytes r makes into t (of the type r makes). */
void recipe_make(const TensorRecipe *r, Tensor *t);
/* Whether t holds the bytes r makes (made into a scratch tensor and compared). */
int recipe_holds(const TensorRecipe *r, const Tensor *t);


/* NULL when the shape is negative or too large, or its bytes would pass
 * the thread's memory budget (ir/mem.h; the caller reports). */
Tensor *tensor_new(DType t, int ndim, const int64_t *shape);
void tensor_free(Tensor *t);
Tensor *tensor_clone(const Tensor *t);

/* Element i as a double or an integer, and stores that round to the dtype. */
double tensor_getf(const Tensor *t, int64_t i);
int64_t tensor_geti(const Tensor *t, int64_t i);
void tensor_setf(Tensor *t, int64_t i, double v);
void tensor_seti(Tensor *t, int64_t i, int64_t v);

/* Undefined padding: a quiet NaN with a payload lopt recognises, or for
 * integer dtypes a fixed pattern. */
void tensor_fill_poison(Tensor *t, int64_t i);
int tensor_is_poison(const Tensor *t, int64_t i);
/* Every element of t poison. */
void tensor_fill_poison_all(Tensor *t);

/* Fills t from a seeded generator: floats in [-1, 1) on a 1/256 grid, ints
 * in a small range, bools 0/1. The same seed and name give the same data. */
void tensor_fill_seeded(Tensor *t, uint64_t seed, const char *name);
/* The same with the integers in [0, n): indices into an extent n. */
void tensor_fill_seeded_below(Tensor *t, uint64_t seed, const char *name, int64_t n);

/* NumPy's .npy format, version 1.0, little-endian, C order. */
int tensor_write_npy(const Tensor *t, const char *path);
/* Returns NULL and fills err on failure. */
Tensor *tensor_read_npy(const char *path, char *err, size_t errlen);
/* The header of the .npy array at f's position, which must fit in limit
 * bytes with its data (any size when limit < 0): its dtype, shape and count.
 * f is left at the data. Returns -1 with a message in err. */
int npy_read_header(FILE *f, int64_t limit, const char *path, DType *dt, int *ndim, int64_t *shape, int64_t *count,
                    char *err, size_t errlen);
/* The same from f's position, reading at most limit bytes (any when limit < 0);
 * path names the array in messages. */
Tensor *tensor_read_npy_stream(FILE *f, int64_t limit, const char *path, char *err, size_t errlen);

/* A type as the text writes it: float32 (1, 8, 5, 5), a dimension below 0
 * as ? (symbolic), a single one as (8,). */
void type_str(char *buf, size_t cap, const char *dtype, int ndim, const int64_t *shape);

/* One line: shape, dtype, checksum (FNV-1a of the bytes), first values. */
void tensor_summary(FILE *out, const char *name, const Tensor *t);

/* Compares a and b: 0 when equal (bit-exact, or within ulp units in the last
 * place for floats when ulp > 0; an undefined element of a equals anything);
 * else 1 with the first differing element's
 * flat index in *at. Shapes and dtypes must agree (else 2). */
int tensor_compare(const Tensor *a, const Tensor *b, int64_t ulp, int64_t *at);

/* Writes the multi-index of flat element i as "[a, b, c]". */
void tensor_index_text(const Tensor *t, int64_t i, char *buf, size_t cap);

#endif
