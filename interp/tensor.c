/* Tensor values: storage, conversions, .npy files, seeded data, comparison. */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../ir/indexmap.h"
#include "../ir/mem.h"
#include "../ir/outfile.h"
#include "tensor.h"
#include "../ir/oom.h"

/* A large tensor's data is mapped for it alone and unmapped when it is
 * freed, so the pages go back to the system at once. From malloc, a freed
 * tensor of a size malloc had mapped before raises malloc's threshold for
 * mapping, and later ones of that size land in the heap, whose holes stay
 * resident: the interpreter frees values as they die, and --verify-exec's
 * runs held 6 MB more on the ResNet-18 of bench/verify_exec.sh that way.
 * Under AddressSanitizer every tensor comes from malloc, which it guards. */
enum { TENSOR_MAP_BYTES = 128 * 1024 };

static void *data_new(size_t bytes, size_t *mapped)
{
    *mapped = 0;
#if !defined(__SANITIZE_ADDRESS__)
    if (bytes >= TENSOR_MAP_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        *mapped = bytes;
        return p;
    }
#endif
    return xcalloc(bytes ? bytes : 1, 1);
}

static void tensor_free_v(void *t)
{
    tensor_free(t);
}

Tensor *tensor_new(DType t, int ndim, const int64_t *shape)
{
    int64_t count = 1;
    int size = dtype_size(t);
    if (ndim < 0 || ndim > TENSOR_MAX_RANK || size == 0)
        return NULL;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0 || __builtin_mul_overflow(count, shape[i], &count) || count > (INT64_C(1) << 34))
            return NULL;
    Tensor *x = xcalloc(1, sizeof *x);
    int refused;
    x->budget = mem_charge((size_t)count * (size_t)size, 1, &refused);
    if (refused) {
        free(x);
        return NULL;
    }
    x->dtype = t;
    x->ndim = ndim;
    memcpy(x->shape, shape, (size_t)ndim * sizeof *shape);
    x->count = count;
    oom_defer(tensor_free_v, x);   /* x and its charge go if its data cannot be had */
    x->data = data_new((size_t)count * (size_t)size, &x->mapped);
    oom_keep(x);
    if (!x->data) {
        tensor_free(x);
        return NULL;
    }
    return x;
}

void tensor_free(Tensor *t)
{
    if (t) {
        mem_uncharge((size_t)t->count * (size_t)dtype_size(t->dtype), t->budget);
        if (t->mapped)
            munmap(t->data, t->mapped);
        else
            free(t->data);
        recipe_release(t->recipe);
        free(t);
    }
}

struct TensorRecipe {
    int refs;
    const void *from;
    DType dtype;
    Arena arena;          /* holds im */
    const IndexMap *im;
    int has_fill;
    double fill;
};

TensorRecipe *recipe_new(const void *from, DType dt, Arena *im_arena, const IndexMap *im, int has_fill, double fill)
{
    TensorRecipe *r = xcalloc(1, sizeof *r);
    if (!r)
        oom_fail();
    r->refs = 1;
    r->from = from;
    r->dtype = dt;
    r->arena = *im_arena;
    memset(im_arena, 0, sizeof *im_arena);
    r->im = im;
    r->has_fill = has_fill;
    r->fill = fill;
    return r;
}

TensorRecipe *recipe_hold(TensorRecipe *r)
{
    r->refs++;
    return r;
}

void recipe_release(TensorRecipe *r)
{
    if (!r || --r->refs > 0)
        return;
    arena_free(&r->arena);
    free(r);
}

void recipe_make(const TensorRecipe *r, Tensor *t)
{
    if (r->has_fill && t->count > 0) {
        tensor_setf(t, 0, r->fill);
        elem_repeat(t->data, t->count, (size_t)dtype_size(t->dtype));
    } else {
        tensor_fill_poison_all(t);
    }
    im_move(r->im, r->from, t->data, (size_t)dtype_size(t->dtype));
}

int recipe_holds(const TensorRecipe *r, const Tensor *t)
{
    if (t->dtype != r->dtype || t->ndim != r->im->nout ||
        memcmp(t->shape, r->im->obox, (size_t)t->ndim * sizeof *t->shape) != 0)
        return 0;
    Tensor *made = tensor_new(t->dtype, t->ndim, t->shape);
    if (!made)
        return 0;
    recipe_make(r, made);
    int same = memcmp(made->data, t->data, (size_t)t->count * (size_t)dtype_size(t->dtype)) == 0;
    tensor_free(made);
    return same;
}

Tensor *tensor_clone(const Tensor *t)
{
    Tensor *c = tensor_new(t->dtype, t->ndim, t->shape);
    if (c)
        memcpy(c->data, t->data, (size_t)t->count * (size_t)dtype_size(t->dtype));
    return c;
}

/* ---- element access (ir/elem.c) ---- */

double tensor_getf(const Tensor *t, int64_t i)
{
    return elem_getf(t->dtype, t->data, i);
}

int64_t tensor_geti(const Tensor *t, int64_t i)
{
    return elem_geti(t->dtype, t->data, i);
}

void tensor_setf(Tensor *t, int64_t i, double v)
{
    elem_setf(t->dtype, t->data, i, v);
}

void tensor_seti(Tensor *t, int64_t i, int64_t v)
{
    elem_seti(t->dtype, t->data, i, v);
}

/* ---- poison ---- */

#define POISON32 UINT32_C(0x7fc0dead)
#define POISON64 UINT64_C(0x7ff80000dead0000)
#define POISON16 0x7ead

void tensor_fill_poison(Tensor *t, int64_t i)
{
    char *p = (char *)t->data + i * dtype_size(t->dtype);
    switch (t->dtype) {
    case DT_FLOAT32: { uint32_t u = POISON32; memcpy(p, &u, 4); break; }
    case DT_FLOAT64: { uint64_t u = POISON64; memcpy(p, &u, 8); break; }
    case DT_FLOAT16: case DT_BFLOAT16: { uint16_t u = POISON16; memcpy(p, &u, 2); break; }
    default: memset(p, 0x5a, (size_t)dtype_size(t->dtype)); break;
    }
}

void tensor_fill_poison_all(Tensor *t)
{
    if (t->count > 0) {
        tensor_fill_poison(t, 0);
        elem_repeat(t->data, t->count, (size_t)dtype_size(t->dtype));
    }
}

int tensor_is_poison(const Tensor *t, int64_t i)
{
    const char *p = (const char *)t->data + i * dtype_size(t->dtype);
    switch (t->dtype) {
    case DT_FLOAT32: { uint32_t u; memcpy(&u, p, 4); return u == POISON32; }
    case DT_FLOAT64: { uint64_t u; memcpy(&u, p, 8); return u == POISON64; }
    case DT_FLOAT16: case DT_BFLOAT16: { uint16_t u; memcpy(&u, p, 2); return u == POISON16; }
    default:
        for (int k = 0; k < dtype_size(t->dtype); k++)
            if ((unsigned char)p[k] != 0x5a)
                return 0;
        return t->dtype != DT_BOOL;
    }
}

/* ---- seeded data ---- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static uint64_t seed_of(uint64_t seed, const char *name)
{
    uint64_t h = mix(seed + 0x9e3779b97f4a7c15u);
    for (const char *p = name; *p; p++)
        h = mix(h ^ (unsigned char)*p);
    return h;
}

void tensor_fill_seeded_below(Tensor *t, uint64_t seed, const char *name, int64_t n)
{
    uint64_t h = seed_of(seed, name);
    for (int64_t i = 0; i < t->count; i++)
        tensor_seti(t, i, (int64_t)(mix(h + (uint64_t)i) % (uint64_t)n));
}

void tensor_fill_seeded(Tensor *t, uint64_t seed, const char *name)
{
    uint64_t h = seed_of(seed, name);
    for (int64_t i = 0; i < t->count; i++) {
        uint64_t r = mix(h + (uint64_t)i);
        if (dtype_is_float(t->dtype))
            tensor_setf(t, i, ((double)(int64_t)(r % 512) - 256.0) / 256.0);
        else if (t->dtype == DT_BOOL)
            tensor_seti(t, i, (int64_t)(r & 1));
        else if (t->dtype == DT_UINT8 || t->dtype == DT_UINT16 || t->dtype == DT_UINT32 || t->dtype == DT_UINT64)
            tensor_seti(t, i, (int64_t)(r % 16));
        else
            tensor_seti(t, i, (int64_t)(r % 16) - 8);
    }
}

/* ---- .npy ---- */

static const char *npy_descr(DType t)
{
    switch (t) {
    case DT_BOOL: return "|b1";
    case DT_INT8: return "|i1";
    case DT_UINT8: return "|u1";
    case DT_INT16: return "<i2";
    case DT_UINT16: return "<u2";
    case DT_INT32: return "<i4";
    case DT_UINT32: return "<u4";
    case DT_INT64: return "<i8";
    case DT_UINT64: return "<u8";
    case DT_FLOAT16: return "<f2";
    case DT_FLOAT32: return "<f4";
    case DT_FLOAT64: return "<f8";
    default: return NULL;
    }
}

int tensor_write_npy(const Tensor *t, const char *path)
{
    const char *descr = npy_descr(t->dtype);
    if (!descr)
        return -1;
    char hdr[1024];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < t->ndim; i++)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld%s", (long long)t->shape[i],
                      t->ndim == 1 ? "," : i + 1 < t->ndim ? ", " : "");
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
    /* pad with spaces so that magic + header is a multiple of 64, then \n */
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    memset(hdr + n, ' ', (size_t)pad);
    n += pad;
    hdr[n++] = '\n';
    OutFile out;
    if (outfile_open(&out, path))
        return -1;
    FILE *f = out.f;
    unsigned char magic[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 255),
                                (unsigned char)(n >> 8) };
    int bad = fwrite(magic, 1, 10, f) != 10 || fwrite(hdr, 1, (size_t)n, f) != (size_t)n;
    size_t bytes = (size_t)t->count * (size_t)dtype_size(t->dtype);
    bad |= bytes && fwrite(t->data, 1, bytes, f) != bytes;
    if (bad) {
        int e = errno;
        outfile_discard(&out);
        errno = e ? e : EIO;
        return -1;
    }
    return outfile_commit(&out);
}

static int parse_descr(const char *s, DType *t)
{
    static const DType all[] = { DT_BOOL, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32,
                                 DT_INT64, DT_UINT64, DT_FLOAT16, DT_FLOAT32, DT_FLOAT64 };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        const char *d = npy_descr(all[i]);
        /* single-byte types may be written with '<', '>' or '|' */
        if (strcmp(s, d) == 0 || (d[0] == '|' && (s[0] == '<' || s[0] == '>') && strcmp(s + 1, d + 1) == 0)) {
            *t = all[i];
            return 0;
        }
    }
    return -1;
}

int npy_read_header(FILE *f, int64_t limit, const char *path, DType *dt, int *ndim, int64_t *shape, int64_t *count,
                    char *err, size_t errlen)
{
    unsigned char magic[10];
    char hdr[4096];
    if ((limit >= 0 && limit < 10) || fread(magic, 1, 10, f) != 10 || memcmp(magic, "\x93NUMPY", 6) != 0 || magic[6] != 1) {
        snprintf(err, errlen, "'%s' is not a version 1 .npy file", path);
        return -1;
    }
    size_t hl = magic[8] | (size_t)magic[9] << 8;
    if (hl >= sizeof hdr || (limit >= 0 && (int64_t)hl > limit - 10) || fread(hdr, 1, hl, f) != hl) {
        snprintf(err, errlen, "'%s': bad .npy header", path);
        return -1;
    }
    hdr[hl] = 0;
    char descr[16] = "";
    const char *d = strstr(hdr, "'descr'"), *fo = strstr(hdr, "'fortran_order'"), *sh = strstr(hdr, "'shape'");
    if (!d || !fo || !sh || sscanf(d, "'descr': '%15[^']'", descr) != 1) {
        snprintf(err, errlen, "'%s': bad .npy header", path);
        return -1;
    }
    if (parse_descr(descr, dt)) {
        snprintf(err, errlen, "'%s': dtype '%s' is not supported", path, descr);
        return -1;
    }
    if (strncmp(fo, "'fortran_order': False", 22) != 0) {
        snprintf(err, errlen, "'%s': Fortran-order arrays are not supported", path);
        return -1;
    }
    const char *p = strchr(sh, '(');
    *ndim = 0;
    *count = 1;
    if (!p) {
        snprintf(err, errlen, "'%s': bad .npy shape", path);
        return -1;
    }
    for (p++;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            break;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || *ndim == TENSOR_MAX_RANK) {
            snprintf(err, errlen, "'%s': bad .npy shape", path);
            return -1;
        }
        shape[(*ndim)++] = v;
        p = end;
        if (__builtin_mul_overflow(*count, (int64_t)v, count) || *count > (INT64_C(1) << 34)) {
            snprintf(err, errlen, "'%s': array too large", path);
            return -1;
        }
    }
    if (limit >= 0 && *count * dtype_size(*dt) > limit - 10 - (int64_t)hl) {
        snprintf(err, errlen, "'%s': file shorter than its header says", path);
        return -1;
    }
    return 0;
}

Tensor *tensor_read_npy_stream(FILE *f, int64_t limit, const char *path, char *err, size_t errlen)
{
    DType dt;
    int ndim;
    int64_t shape[TENSOR_MAX_RANK], count;
    if (npy_read_header(f, limit, path, &dt, &ndim, shape, &count, err, errlen))
        return NULL;
    Tensor *t = tensor_new(dt, ndim, shape);
    if (!t) {
        snprintf(err, errlen, "'%s': array too large", path);
        return NULL;
    }
    size_t bytes = (size_t)t->count * (size_t)dtype_size(dt);
    if (fread(t->data, 1, bytes, f) != bytes) {
        snprintf(err, errlen, "'%s': file shorter than its header says", path);
        tensor_free(t);
        t = NULL;
    }
    return t;
}

Tensor *tensor_read_npy(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s'", path);
        return NULL;
    }
    Tensor *t = tensor_read_npy_stream(f, -1, path, err, errlen);
    fclose(f);
    return t;
}

/* ---- summaries and comparison ---- */

void type_str(char *buf, size_t cap, const char *dtype, int ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, cap, "%s (", dtype);
    for (int d = 0; d < ndim && n < cap; d++)
        n += shape[d] < 0 ? (size_t)snprintf(buf + n, cap - n, "%s?", d ? ", " : "")
                          : (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "%s)", ndim == 1 ? "," : "");
}

void tensor_summary(FILE *out, const char *name, const Tensor *t)
{
    uint64_t h = UINT64_C(14695981039346656037);
    const unsigned char *b = t->data;
    size_t bytes = (size_t)t->count * (size_t)dtype_size(t->dtype);
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ b[i]) * UINT64_C(1099511628211);
    char ty[256];
    type_str(ty, sizeof ty, dtype_name(t->dtype), t->ndim, t->shape);
    fprintf(out, "%s: %s fnv1a %016llx:", name, ty, (unsigned long long)h);
    for (int64_t i = 0; i < t->count && i < 8; i++) {
        if (tensor_is_poison(t, i))
            fputs(" undef", out);
        else if (dtype_is_float(t->dtype) && isnan(tensor_getf(t, i)))
            fputs(" nan", out);
        else if (dtype_is_float(t->dtype))
            fprintf(out, t->dtype == DT_FLOAT64 ? " %.17g" : " %.9g", tensor_getf(t, i));
        else
            fprintf(out, " %lld", (long long)tensor_geti(t, i));
    }
    fputs(t->count > 8 ? " ...\n" : "\n", out);
}

/* Element i of a float tensor as an integer ordered like the floats, in
 * units of the last place of the tensor's own dtype: consecutive float16
 * values differ by 1 (not by the 8192 float32 units between them), and -0
 * and +0 are both 0. */
static int64_t ordered(const Tensor *t, int64_t i)
{
    const char *p = (const char *)t->data + i * dtype_size(t->dtype);
    int64_t mag, neg;
    switch (t->dtype) {
    case DT_FLOAT64: {
        uint64_t u;
        memcpy(&u, p, 8);
        mag = (int64_t)(u & ~(UINT64_C(1) << 63));
        neg = (int64_t)(u >> 63);
        break;
    }
    case DT_FLOAT32: {
        uint32_t u;
        memcpy(&u, p, 4);
        mag = u & 0x7fffffff;
        neg = u >> 31;
        break;
    }
    default: {   /* float16, bfloat16 */
        uint16_t u;
        memcpy(&u, p, 2);
        mag = u & 0x7fff;
        neg = u >> 15;
        break;
    }
    }
    return neg ? -mag : mag;
}

int tensor_compare(const Tensor *a, const Tensor *b, int64_t ulp, int64_t *at)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape))
        return 2;
    int size = dtype_size(a->dtype);
    for (int64_t i = 0; i < a->count; i++) {
        if (memcmp((const char *)a->data + i * size, (const char *)b->data + i * size, (size_t)size) == 0)
            continue;
        if (tensor_is_poison(a, i))
            continue;   /* undefined in the reference: any value refines it */
        if (ulp > 0 && dtype_is_float(a->dtype)) {
            double x = tensor_getf(a, i), y = tensor_getf(b, i);
            if (x != x && y != y)
                continue;
            int64_t d;
            if (x == x && y == y && !__builtin_sub_overflow(ordered(a, i), ordered(b, i), &d) && d != INT64_MIN &&
                (d < 0 ? -d : d) <= ulp)
                continue;
        }
        *at = i;
        return 1;
    }
    return 0;
}

void tensor_index_text(const Tensor *t, int64_t i, char *buf, size_t cap)
{
    int64_t idx[TENSOR_MAX_RANK];
    for (int d = t->ndim - 1; d >= 0; d--) {
        idx[d] = t->shape[d] ? i % t->shape[d] : 0;
        i = t->shape[d] ? i / t->shape[d] : 0;
    }
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)idx[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}
