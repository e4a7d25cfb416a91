/* Virtual devices: reading and extending the module's I.vdevice list, the
 * strings that name its entries, and the texture scopes' rules. */
#include "vdevice.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *kind;
    int type;
} kinds[] = {
    { "llvm", 1 }, { "c", 1 }, { "cpu", 1 }, { "cuda", 2 }, { "nvptx", 2 }, { "opencl", 4 },
    { "vulkan", 7 }, { "metal", 8 }, { "rocm", 10 }, { "webgpu", 15 }, { "hexagon", 16 },
};

int device_type(const char *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, kind) == 0)
            return kinds[i].type;
    return -1;
}

const char *device_kind(int devtype)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].type == devtype)
            return kinds[i].kind;
    return NULL;
}

static const char *str_of(const Expr *e)
{
    return e && e->kind == E_STR ? e->u.str.s : NULL;
}

/* The "vdevice" list of m's global infos, or NULL. */
static Expr *vdev_items(const Module *m)
{
    const Expr *g = m->global_infos;
    if (!g || g->kind != E_DICT)
        return NULL;
    for (int i = 0; i < g->u.dict.n; i++) {
        const char *k = str_of(g->u.dict.keys[i]);
        if (k && strcmp(k, "vdevice") == 0)
            return g->u.dict.vals[i];
    }
    return NULL;
}

/* The target kind of I.vdevice's first argument: a string, or a dict with
 * a "kind" entry. */
static const char *target_kind(const Expr *t)
{
    if (str_of(t))
        return str_of(t);
    if (t && t->kind == E_DICT)
        for (int i = 0; i < t->u.dict.n; i++) {
            const char *k = str_of(t->u.dict.keys[i]);
            if (k && strcmp(k, "kind") == 0)
                return str_of(t->u.dict.vals[i]);
        }
    return NULL;
}

static int entry(const Expr *e, VDevice *v, char *why, size_t cap)
{
    if (e->kind != E_CALL || strcmp(e->u.call.op->str, "I.vdevice") != 0 || e->u.call.nkw > 0 ||
        e->u.call.nargs < 1 || e->u.call.nargs > 3)
        return snprintf(why, cap, "a vdevice is I.vdevice(target, id, scope)"), -1;
    Expr *const *a = e->u.call.args;
    v->kind = target_kind(a[0]);
    v->id = 0;
    v->scope = "global";
    v->loc = e->loc;
    if (!v->kind)
        return snprintf(why, cap, "the target of a vdevice is a kind (\"opencl\") or a dict with a \"kind\""), -1;
    if (e->u.call.nargs > 1) {
        if (a[1]->kind != E_INT || a[1]->u.i.v < 0 || a[1]->u.i.v > 65535)
            return snprintf(why, cap, "the id of a vdevice is an integer in [0, 65535]"), -1;
        v->id = (int)a[1]->u.i.v;
    }
    if (e->u.call.nargs > 2 && !(v->scope = str_of(a[2])))
        return snprintf(why, cap, "the scope of a vdevice is a string (\"global\")"), -1;
    return 0;
}

int vdev_list(const Module *m, VDevList *l, Loc *loc, char *why, size_t cap)
{
    const Expr *items = vdev_items(m);
    l->n = 0;
    if (!items)
        return 0;
    *loc = items->loc;
    if (items->kind != E_LIST && items->kind != E_TUPLE)
        return snprintf(why, cap, "the \"vdevice\" global info is a list of I.vdevice"), -1;
    if (items->u.list.n > VDEV_MAX)
        return snprintf(why, cap, "a module declares at most %d vdevices", VDEV_MAX), -1;
    for (int i = 0; i < items->u.list.n; i++) {
        VDevice *v = &l->v[l->n];
        *loc = items->u.list.items[i]->loc;
        if (entry(items->u.list.items[i], v, why, cap))
            return -1;
        v->index = 0;
        for (int j = 0; j < l->n; j++)
            v->index += strcmp(l->v[j].kind, v->kind) == 0;
        l->n++;
    }
    return 0;
}

int vdev_find_str(const VDevList *l, const char *s)
{
    const char *c1 = strchr(s, ':');
    size_t klen = c1 ? (size_t)(c1 - s) : strlen(s);
    long index = 0;
    const char *scope = NULL;
    if (c1) {
        char *end;
        index = strtol(c1 + 1, &end, 10);
        if (end == c1 + 1 || index < 0 || (*end && *end != ':'))
            return -1;
        scope = *end == ':' ? end + 1 : NULL;
    }
    for (int i = 0; i < l->n; i++) {
        const VDevice *v = &l->v[i];
        if (strlen(v->kind) == klen && strncmp(v->kind, s, klen) == 0 && v->index == index)
            return scope && strcmp(scope, v->scope) != 0 ? -1 : i;
    }
    return -1;
}

int vdev_find(const VDevList *l, const char *kind, int devtype, int id, const char *scope)
{
    for (int i = 0; i < l->n; i++) {
        const VDevice *v = &l->v[i];
        if ((kind ? strcmp(v->kind, kind) == 0 : device_type(v->kind) == devtype) && v->id == id &&
            strcmp(v->scope, scope) == 0)
            return i;
    }
    return -1;
}

void vdev_name(const VDevList *l, int i, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s:%d:%s", l->v[i].kind, l->v[i].index, l->v[i].scope);
}

const char *vdev_str_scope(const char *s)
{
    const char *c1 = strchr(s, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    return c2 ? c2 + 1 : "global";
}

StructInfo *sinfo_placed(Arena *a, const StructInfo *si, const char *vdevice)
{
    StructInfo *c = arena_alloc(a, sizeof *c);
    *c = *si;
    c->vdevice = arena_strndup(a, vdevice, strlen(vdevice));
    return c;
}

int vdev_add(Module *m, VDevList *l, const char *kind, int id, const char *scope, Loc loc)
{
    Arena *a = &m->arena;
    if (l->n == VDEV_MAX)
        return -1;
    Expr *items = vdev_items(m);
    if (!items) {
        Expr *g = m->global_infos;
        if (!g) {
            g = m->global_infos = expr_new(a, E_DICT, loc);
            g->u.dict.keys = g->u.dict.vals = NULL;
        }
        Expr **keys = arena_array(a, (size_t)g->u.dict.n + 1, sizeof *keys);
        Expr **vals = arena_array(a, (size_t)g->u.dict.n + 1, sizeof *vals);
        if (g->u.dict.n) {
            memcpy(keys, g->u.dict.keys, (size_t)g->u.dict.n * sizeof *keys);
            memcpy(vals, g->u.dict.vals, (size_t)g->u.dict.n * sizeof *vals);
        }
        keys[g->u.dict.n] = expr_str(a, "vdevice", loc);
        vals[g->u.dict.n] = items = expr_new(a, E_LIST, loc);
        g->u.dict.keys = keys;
        g->u.dict.vals = vals;
        g->u.dict.n++;
    }
    Expr *c = expr_new(a, E_CALL, loc);
    c->u.call.op = intern_cstr(&m->names, "I.vdevice");
    c->u.call.nargs = 3;
    c->u.call.args = arena_array(a, 3, sizeof *c->u.call.args);
    c->u.call.args[0] = expr_str(a, kind, loc);
    c->u.call.args[1] = expr_int(a, id, DT_VOID, loc);
    c->u.call.args[2] = expr_str(a, scope, loc);
    Expr **grown = arena_array(a, (size_t)items->u.list.n + 1, sizeof *grown);
    if (items->u.list.n)
        memcpy(grown, items->u.list.items, (size_t)items->u.list.n * sizeof *grown);
    grown[items->u.list.n++] = c;
    items->u.list.items = grown;
    VDevice *v = &l->v[l->n];
    v->kind = c->u.call.args[0]->u.str.s;
    v->id = id;
    v->scope = c->u.call.args[2]->u.str.s;
    v->loc = loc;
    v->index = 0;
    for (int j = 0; j < l->n; j++)
        v->index += strcmp(l->v[j].kind, kind) == 0;
    return l->n++;
}

/* ---- texture scopes ---- */

static const char *const tex_names[] = {
    [TEX_NONE] = "global", [TEX_PLAIN] = "global.texture", [TEX_NHWC] = "global.texture-nhwc",
    [TEX_WEIGHT] = "global.texture-weight", [TEX_NCHW] = "global.texture-nchw",
};

TexKind texture_kind(const char *scope)
{
    for (int k = TEX_PLAIN; k <= TEX_NCHW; k++)
        if (scope && strcmp(scope, tex_names[k]) == 0)
            return (TexKind)k;
    return TEX_NONE;
}

const char *texture_scope(TexKind k)
{
    return tex_names[k];
}

void texture_separators(TexKind k, int sep[2])
{
    sep[0] = k == TEX_WEIGHT ? 1 : k == TEX_NHWC ? 2 : 3;
    sep[1] = 4;
}

/* a * b, saturating at INT64_MAX (extents are not negative). */
static int64_t mul_sat(int64_t a, int64_t b)
{
    return b && a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* One group of axes checked against a limit. */
static int below(int64_t v, int64_t limit, const char *what, const char *axes, char *why, size_t cap)
{
    if (v < limit)
        return 1;
    snprintf(why, cap, "%s %s = %lld is not below the %s limit %lld", what, axes, (long long)v,
             strcmp(what, "depth") == 0 ? "depth" : "spatial", (long long)limit);
    return 0;
}

int texture_fits(TexKind k, const int64_t *a, int64_t S, int64_t D, char *why, size_t cap)
{
    if (a[4] != 4)
        return snprintf(why, cap, "the last extent is %lld, not the 4 channels of a texel", (long long)a[4]), 0;
    switch (k) {
    case TEX_WEIGHT:
        return below(a[0], S, "rows", "a0", why, cap) &&
               below(mul_sat(mul_sat(a[1], a[2]), a[3]), S, "columns", "a1*a2*a3", why, cap);
    case TEX_NHWC:
        return below(a[0], D, "depth", "a0", why, cap) && below(a[1], S, "rows", "a1", why, cap) &&
               below(mul_sat(a[2], a[3]), S, "columns", "a2*a3", why, cap);
    case TEX_PLAIN:
    case TEX_NCHW:
        return below(mul_sat(a[0], a[1]), D, "depth", "a0*a1", why, cap) && below(a[2], S, "rows", "a2", why, cap) &&
               below(a[3], S, "columns", "a3", why, cap);
    default:
        return snprintf(why, cap, "global memory is not a texture"), 0;
    }
}

TexKind texture_choose(int ndim, const int64_t *shape, int64_t S, int64_t D, char *why, size_t cap)
{
    if (ndim != 5)
        return snprintf(why, cap, "a texture holds 5-d tensors; this one is %d-d", ndim), TEX_NONE;
    if (shape[4] < 0)
        return snprintf(why, cap, "the last extent is symbolic, not the 4 channels of a texel"), TEX_NONE;
    if (shape[4] != 4)
        return snprintf(why, cap, "the last extent is %lld, not the 4 channels of a texel", (long long)shape[4]),
               TEX_NONE;
    for (int d = 0; d < 4; d++)
        if (shape[d] < 0)
            return snprintf(why, cap, "extent a%d is symbolic: the limits are checked when it runs", d), TEX_NCHW;
    static const TexKind order[] = { TEX_WEIGHT, TEX_NHWC, TEX_PLAIN };
    char each[3][128];
    for (int i = 0; i < 3; i++)
        if (texture_fits(order[i], shape, S, D, each[i], sizeof each[i])) {
            int at = snprintf(why, cap, "%s fits", tex_names[order[i]]);
            for (int j = 0; j < i && at > 0 && (size_t)at < cap; j++)
                at += snprintf(why + at, cap - (size_t)at, "%s%s does not (%s)", j ? ", " : " where ",
                               tex_names[order[j]] + 7, each[j]);
            return order[i];
        }
    snprintf(why, cap, "no texture fits: weight: %s; nhwc: %s; texture: %s", each[0], each[1], each[2]);
    return TEX_NONE;
}
