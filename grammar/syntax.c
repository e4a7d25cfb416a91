/* Constructors for the syntax tree the parser builds; all storage is in the
 * module's arena and dies with it. */
#include "syntax.h"

Sx *sx_new(Arena *a, SxKind k, Loc loc)
{
    Sx *e = arena_zalloc(a, sizeof *e);
    e->kind = k;
    e->loc = loc;
    e->depth = 1;
    return e;
}

void sx_push(Arena *a, SxList *l, Sym *key, Sx *item)
{
    int n = l->n;
    vec_push(a, &l->items, &l->n, &l->cap, item);
    if (key && !l->keys) {
        /* The first keyword: the positional items before it get NULL keys. */
        l->kcap = l->cap;
        l->keys = arena_array(a, (size_t)l->kcap, sizeof *l->keys);
    }
    if (l->keys) {
        int kn = n;
        vec_push(a, &l->keys, &kn, &l->kcap, key);
    }
}

St *st_new(Arena *a, StKind k, Loc loc)
{
    St *s = arena_zalloc(a, sizeof *s);
    s->kind = k;
    s->loc = loc;
    return s;
}

void st_push(Arena *a, StList *l, St *item)
{
    vec_push(a, &l->items, &l->n, &l->cap, item);
}

static int list_depth(const SxList *l)
{
    int d = 0;
    for (int i = 0; i < l->n; i++)
        if (l->items[i] && l->items[i]->depth > d)
            d = l->items[i]->depth;
    return d;
}

int sx_depth(const Sx *e)
{
    int d = 0;
    switch (e->kind) {
    case SX_ATTR: d = e->u.attr.obj->depth; break;
    case SX_CALL: d = list_depth(&e->u.call.args); if (e->u.call.fn->depth > d) d = e->u.call.fn->depth; break;
    case SX_INDEX: d = list_depth(&e->u.index.items); if (e->u.index.obj->depth > d) d = e->u.index.obj->depth; break;
    case SX_SLICE:
        if (e->u.slice.lo) d = e->u.slice.lo->depth;
        if (e->u.slice.hi && e->u.slice.hi->depth > d) d = e->u.slice.hi->depth;
        break;
    case SX_TUPLE: case SX_LIST: d = list_depth(&e->u.elems); break;
    case SX_DICT: d = list_depth(&e->u.pairs); break;
    case SX_BINOP: d = e->u.bin.a->depth; if (e->u.bin.b && e->u.bin.b->depth > d) d = e->u.bin.b->depth; break;
    case SX_UNARY: case SX_STAR: d = e->u.bin.a->depth; break;
    case SX_LAMBDA: d = e->u.lambda.body->depth; break;
    default: break;
    }
    return d + 1;
}
