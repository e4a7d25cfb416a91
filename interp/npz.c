/* Constants from a side file (--constants): a directory of .npy files named
 * by index, or an .npz archive read here from its zip central directory.
 * Only stored (uncompressed) members are read, which is what np.savez
 * writes; np.savez_compressed's deflated members are refused with a hint,
 * so lopt needs no zlib. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npz.h"
#include "tensor.h"
#include "../ir/oom.h"

typedef struct Member {
    int64_t index;       /* the constant it holds, from its name */
    int64_t offset;      /* of its local file header */
    int64_t size;
    char name[64];
} Member;

typedef struct ConstFile {
    char *path;
    int dir;             /* a directory of N.npy */
    FILE *f;             /* the archive */
    int64_t size;        /* of the archive */
    Member *members;     /* by index: members[i] holds constant i */
} ConstFile;

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* "arr_12.npy" (np.savez's positional names) or "12.npy" gives 12; else -1. */
static int64_t member_index(const char *name, size_t len)
{
    if (len > 4 && memcmp(name, "arr_", 4) == 0)
        name += 4, len -= 4;
    if (len < 5 || len > 22 || memcmp(name + len - 4, ".npy", 4) != 0 || (name[0] == '0' && len > 5))
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i + 4 < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        v = v * 10 + (name[i] - '0');
    }
    return v;
}

static int read_at(FILE *f, int64_t off, void *buf, size_t n)
{
    return fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n ? 0 : -1;
}

#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -1)

/* Finds the central directory through the end record (and its zip64 form,
 * which archives of more than 65535 members or 4 GB use). */
static int find_directory(ConstFile *c, int64_t *entries, int64_t *dir_off, int64_t *dir_size, char *err, size_t errlen)
{
    if (fseeko(c->f, 0, SEEK_END) != 0)
        return BAD("cannot read '%s'", c->path);
    int64_t end = c->size = (int64_t)ftello(c->f);
    int64_t tail = end < 22 + 65535 ? end : 22 + 65535;
    unsigned char *buf = xmalloc((size_t)tail + 1);
    if (!buf)
        return BAD("out of memory reading '%s'", c->path);
    int64_t at = -1;
    if (tail >= 22 && read_at(c->f, end - tail, buf, (size_t)tail) == 0)
        for (int64_t i = tail - 22; i >= 0 && at < 0; i--)
            if (le32(buf + i) == 0x06054b50)
                at = i;
    if (at < 0) {
        free(buf);
        return BAD("'%s' is not an .npz archive: no zip directory at its end", c->path);
    }
    *entries = le16(buf + at + 10);
    *dir_size = le32(buf + at + 12);
    *dir_off = le32(buf + at + 16);
    int64_t eocd = end - tail + at;
    free(buf);
    if (*entries == 0xffff || *dir_off == 0xffffffff || *dir_size == 0xffffffff) {
        unsigned char loc[20], z[56];
        if (eocd < 20 || read_at(c->f, eocd - 20, loc, 20) || le32(loc) != 0x07064b50 ||
            read_at(c->f, (int64_t)le64(loc + 8), z, 56) || le32(z) != 0x06064b50)
            return BAD("'%s': bad zip64 directory", c->path);
        *entries = (int64_t)le64(z + 32);
        *dir_size = (int64_t)le64(z + 40);
        *dir_off = (int64_t)le64(z + 48);
    }
    /* each member takes at least 46 bytes of the directory: a count that
     * claims more is refused before anything is allocated for it */
    if (*entries < 0 || *dir_off < 0 || *dir_size < 0 || *dir_off > end || *dir_size > end - *dir_off ||
        *entries > *dir_size / 46)
        return BAD("'%s': bad zip directory", c->path);
    return 0;
}

/* Reads the central directory: each member's name, method and size. */
static int read_archive(ConstFile *c, int64_t *count, char *err, size_t errlen)
{
    int64_t entries, off, size;
    if (find_directory(c, &entries, &off, &size, err, errlen))
        return -1;
    unsigned char *d = xmalloc((size_t)size + 1);
    if (!d)
        return BAD("out of memory reading '%s'", c->path);
    if (read_at(c->f, off, d, (size_t)size)) {
        free(d);
        return BAD("'%s': bad zip directory", c->path);
    }
    Member *all = xcalloc((size_t)(entries ? entries : 1), sizeof *all);
    if (!all) {
        free(d);
        return BAD("out of memory reading '%s'", c->path);
    }
    int64_t p = 0;
    int bad = 0;
    for (int64_t e = 0; e < entries && !bad; e++) {
        if (p + 46 > size || le32(d + p) != 0x02014b50) {
            bad = BAD("'%s': bad zip directory", c->path);
            break;
        }
        const unsigned char *h = d + p;
        uint32_t flags = le16(h + 8), method = le16(h + 10), nlen = le16(h + 28), xlen = le16(h + 30);
        int64_t csize = le32(h + 20), usize = le32(h + 24), local = le32(h + 42);
        if (p + 46 + nlen + xlen + le16(h + 32) > size) {
            bad = BAD("'%s': bad zip directory", c->path);
            break;
        }
        const char *name = (const char *)h + 46;
        /* zip64: the sizes and offset that do not fit 32 bits follow in an extra field */
        for (const unsigned char *x = h + 46 + nlen, *xe = x + xlen; x + 4 <= xe; x += 4 + le16(x + 2)) {
            if (le16(x) != 1)
                continue;
            const unsigned char *v = x + 4, *ve = x + 4 + le16(x + 2);
            if (ve > xe)
                break;
            if (usize == 0xffffffff && v + 8 <= ve)
                usize = (int64_t)le64(v), v += 8;
            if (csize == 0xffffffff && v + 8 <= ve)
                csize = (int64_t)le64(v), v += 8;
            if (local == 0xffffffff && v + 8 <= ve)
                local = (int64_t)le64(v);
        }
        p += 46 + nlen + xlen + le16(h + 32);
        char shown[64];
        snprintf(shown, sizeof shown, "%.*s", (int)(nlen < 60 ? nlen : 60), name);
        if (method == 8)
            bad = BAD("'%s': member '%s' is compressed (deflate), which lopt does not read; "
                      "write the archive with np.savez, not np.savez_compressed, or give a directory of .npy files",
                      c->path, shown);
        else if (method != 0)
            bad = BAD("'%s': member '%s' uses zip compression method %u; lopt reads stored members, as np.savez writes",
                      c->path, shown, method);
        else if (flags & 1)
            bad = BAD("'%s': member '%s' is encrypted", c->path, shown);
        else if (csize != usize || csize < 0 || local < 0 || local > c->size)
            bad = BAD("'%s': bad zip directory", c->path);
        int64_t i = member_index(name, nlen);
        if (bad || i < 0)
            continue;
        if (i >= entries)   /* a gap: the constants end before it anyway */
            continue;
        Member *m = &all[i];
        if (m->name[0])
            bad = BAD("'%s': constant %lld is in two members, '%s' and '%s'", c->path, (long long)i, m->name, shown);
        m->index = i;
        m->offset = local;
        m->size = usize;
        snprintf(m->name, sizeof m->name, "%s", shown);
    }
    free(d);
    if (bad) {
        free(all);
        return -1;
    }
    /* the constants are 0 .. count-1: the members up to the first missing index */
    int64_t k = 0;
    while (k < entries && all[k].name[0])
        k++;
    c->members = all;
    *count = k;
    return 0;
}

/* Reads constant i straight into the module's arena: its bytes are held
 * once, not in a tensor and then a copy. */
static int load(void *ctx, int64_t i, Arena *a, Expr *x, char *err, size_t errlen)
{
    ConstFile *c = ctx;
    char what[1200];
    FILE *f = c->f;
    int64_t limit = -1;
    if (c->dir) {
        snprintf(what, sizeof what, "%s/%lld.npy", c->path, (long long)i);
        struct stat st;
        if (!(f = fopen(what, "rb")))
            return BAD("cannot open '%s'", what);
        /* the header's shape is checked against the file's size before the data is allocated */
        limit = fstat(fileno(f), &st) == 0 ? (int64_t)st.st_size : 0;
    } else {
        const Member *m = &c->members[i];
        unsigned char h[30];
        snprintf(what, sizeof what, "%s:%s", c->path, m->name);
        if (read_at(f, m->offset, h, 30) || le32(h) != 0x04034b50 ||
            fseeko(f, (off_t)(m->offset + 30 + le16(h + 26) + le16(h + 28)), SEEK_SET) != 0)
            return BAD("'%s': bad zip member header", what);
        limit = m->size;
        /* compared without adding: a size near 2^63 must not wrap around */
        int64_t data = m->offset + 30 + le16(h + 26) + le16(h + 28);
        if (data > c->size || limit > c->size - data)
            return BAD("'%s': the member runs past the end of the archive", what);
    }
    int64_t shape[TENSOR_MAX_RANK], count;
    int ndim, r = npy_read_header(f, limit, what, &x->u.cst.dtype, &ndim, shape, &count, err, errlen);
    if (r == 0) {
        size_t bytes = (size_t)count * (size_t)dtype_size(x->u.cst.dtype);
        x->u.cst.ndim = ndim;
        x->u.cst.count = count;
        x->u.cst.shape = arena_array(a, (size_t)ndim + 1, sizeof(int64_t));
        memcpy(x->u.cst.shape, shape, (size_t)ndim * sizeof(int64_t));
        x->u.cst.data = arena_array(a, (size_t)count + 1, (size_t)dtype_size(x->u.cst.dtype));
        if (fread(x->u.cst.data, 1, bytes, f) != bytes)
            r = BAD("'%s': file shorter than its header says", what);
    }
    if (c->dir)
        fclose(f);
    return r;
}

int constants_open(Constants *k, const char *path, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    struct stat st;
    if (stat(path, &st) != 0)
        return BAD("cannot open the constants file '%s'", path);
    ConstFile *c = xcalloc(1, sizeof *c);
    if (!c || !(c->path = xstrdup(path))) {
        free(c);
        return BAD("out of memory reading '%s'", path);
    }
    k->path = c->path;
    k->load = load;
    k->ctx = c;
    if (S_ISDIR(st.st_mode)) {
        c->dir = 1;
        size_t len = strlen(path) + 32;
        char *p = xmalloc(len);
        if (!p)
            return BAD("out of memory reading '%s'", path);
        for (;; k->count++) {
            snprintf(p, len, "%s/%lld.npy", path, (long long)k->count);
            if (access(p, F_OK) != 0)
                break;
        }
        free(p);
        return 0;
    }
    unsigned char sig[4];
    if (!(c->f = fopen(path, "rb")))
        return BAD("cannot open the constants file '%s'", path);
    if (fread(sig, 1, 4, c->f) != 4 || le32(sig) != 0x04034b50)
        return BAD("'%s' is neither a directory of .npy files nor an .npz archive", path);
    return read_archive(c, &k->count, err, errlen);
}

void constants_close(Constants *k)
{
    ConstFile *c = k->ctx;
    if (c) {
        if (c->f)
            fclose(c->f);
        free(c->members);
        free(c->path);
        free(c);
    }
    memset(k, 0, sizeof *k);
}
