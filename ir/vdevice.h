/* Virtual devices and memory scopes (seed 003): the module's I.vdevice list,
 * the "kind:index:scope" strings struct info names its entries by, and the
 * texture scopes: which 5-d tensors fit one, and the image they are. */
#ifndef LOPT_VDEVICE_H
#define LOPT_VDEVICE_H

#include <stddef.h>

#include "ir.h"

enum { VDEV_MAX = 64 };

/* One I.vdevice(kind, id, scope) of the module's list. */
typedef struct VDevice {
    const char *kind;     /* the target kind: "opencl", "llvm", "cuda" */
    int id;               /* the device id */
    const char *scope;    /* the memory scope, "global" when the entry omits it */
    int index;            /* its position among the entries of the same kind */
    Loc loc;
} VDevice;

typedef struct VDevList {
    VDevice v[VDEV_MAX];
    int n;
} VDevList;

/* The entries of m's I.module_global_infos({"vdevice": [...]}) in order.
 * Returns 0, or -1 with a message in why (at *loc) when an entry is not an
 * I.vdevice(kind, id, scope) or the list is longer than VDEV_MAX. */
int vdev_list(const Module *m, VDevList *l, Loc *loc, char *why, size_t cap);
/* The entry a vdevice string "kind", "kind:i" or "kind:i:scope" names (the
 * i-th entry of that kind; when the scope is given it must be the entry's),
 * or -1. */
int vdev_find_str(const VDevList *l, const char *s);
/* The entry of that kind (or, kind NULL, device type), id and scope, or -1. */
int vdev_find(const VDevList *l, const char *kind, int devtype, int id, const char *scope);
/* "kind:index:scope", the canonical string of entry i. */
void vdev_name(const VDevList *l, int i, char *buf, size_t cap);
/* Appends I.vdevice(kind, id, scope) to m's list (creating it) and to l;
 * returns its index in l, or -1 when l is full. */
int vdev_add(Module *m, VDevList *l, const char *kind, int id, const char *scope, Loc loc);
/* A copy of the struct info si placed on vdevice (a "kind:index:scope"). */
StructInfo *sinfo_placed(Arena *a, const StructInfo *si, const char *vdevice);
/* TVM's device type code of a target kind (opencl 4, cuda 2, llvm 1, ...),
 * or -1; and a kind for a code, or NULL. */
int device_type(const char *kind);
const char *device_kind(int devtype);
/* The scope a vdevice string names: its third part, or "global". */
const char *vdev_str_scope(const char *s);

/* The texture scopes. A texture holds a 5-d tensor whose last extent is 4
 * (the four channels of a texel) as an image of rows and columns; each scope
 * groups the first four axes into rows | columns | texel differently. */
typedef enum { TEX_NONE, TEX_PLAIN, TEX_NHWC, TEX_WEIGHT, TEX_NCHW } TexKind;

enum { TEX_SPATIAL_LIMIT = 16384, TEX_DEPTH_LIMIT = 2048 };

TexKind texture_kind(const char *scope);
const char *texture_scope(TexKind k);
/* The axis separators of a texture scope on a 5-d buffer: rows end before
 * sep[0], columns before sep[1], the texel is the last axis. */
void texture_separators(TexKind k, int sep[2]);
/* Whether a 5-d shape fits texture k under the spatial limit S and depth
 * limit D (strict comparisons). When it does not, why names the axis group
 * and the limit. */
int texture_fits(TexKind k, const int64_t *shape, int64_t S, int64_t D, char *why, size_t cap);
/* The texture a tensor of this shape takes: 5-d with a last extent of 4 and
 * the first kind that fits, in the order weight, nhwc, plain; a symbolic
 * extent (shape[d] < 0) gives TEX_NCHW; TEX_NONE otherwise. why says which
 * rule or limit decided. */
TexKind texture_choose(int ndim, const int64_t *shape, int64_t S, int64_t D, char *why, size_t cap);

#endif
