/* test-perturb: for testing --verify-exec. Moves the first element of the
 * first float constant of main one unit in the last place up, so that a
 * bit-exact comparison fails and a comparison within a few ULP passes. Like
 * mlir-opt's test passes, it exists only to exercise the tool itself. */
#include <math.h>
#include <string.h>

#include "../ir/elem.h"
#include "pass.h"

/* Element 0 of the float constant c, one unit in the last place of its
 * dtype up: float16 and bfloat16 step their 16 bits. The data is copied
 * first: a constant's data is never written once made, as copies of the
 * module, fold's rewritten constants and --verify-exec's call cache share it. */
static void const_next_up(Module *m, Expr *c)
{
    DType dt = c->u.cst.dtype;
    size_t bytes = (size_t)c->u.cst.count * (size_t)dtype_size(dt);
    void *data = arena_alloc(&m->arena, bytes);
    memcpy(data, c->u.cst.data, bytes);
    c->u.cst.data = data;
    double v = elem_getf(dt, c->u.cst.data, 0);
    if (dt == DT_FLOAT32) {
        elem_setf(dt, c->u.cst.data, 0, nextafterf((float)v, INFINITY));
    } else if (dt == DT_FLOAT64) {
        elem_setf(dt, c->u.cst.data, 0, nextafter(v, INFINITY));
    } else {
        uint16_t *bits = c->u.cst.data;
        if (isnan(v) || (isinf(v) && v > 0))
            return;
        *bits = (*bits & 0x7fff) == 0 ? 1 : *bits & 0x8000 ? *bits - 1 : *bits + 1;
    }
}

static Expr *first_const(Expr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case E_CONST:
        return dtype_is_float(e->u.cst.dtype) && e->u.cst.count > 0 ? e : NULL;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs + e->u.call.nkw; i++) {
            Expr *c = first_const(e->u.call.args[i]);
            if (c)
                return c;
        }
        return NULL;
    case E_TUPLE: case E_LIST:
        for (int i = 0; i < e->u.list.n; i++) {
            Expr *c = first_const(e->u.list.items[i]);
            if (c)
                return c;
        }
        return NULL;
    default:
        return NULL;
    }
}

int pass_test_perturb(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    for (int i = 0; i < m->nfuncs; i++) {
        Func *f = m->funcs[i];
        if (f->kind != F_RELAX || strcmp(f->name->str, "main") != 0)
            continue;
        for (int b = 0; b < f->nblocks; b++)
            for (int k = 0; k < f->blocks[b]->nbinds; k++) {
                Expr *c = first_const(f->blocks[b]->binds[k]->value);
                if (!c)
                    continue;
                const_next_up(m, c);
                return 0;
            }
    }
    return diag_error(ctx->src, (Loc){ 0, 0 }, "test-perturb: main has no float constant to perturb");
}
