/* fold-scope-change (seed 003): a texture that a call writes only to copy
 * it to global memory is written in global memory directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/vdevice.h"
#include "../graph.h"
#include "../pass.h"
#include "scope.h"
#include "../../ir/oom.h"

static int texture_valued(const StructInfo *si)
{
    return texture_kind(sinfo_scope(si)) != TEX_NONE;
}

/* y = call(...) in texture, z = R.to_vdevice(y, global), z y's only use:
 * z = call(...) writing global memory. */
static void fold_func(Module *m, Func *fn, Notes *notes)
{
    PtrMap uses = { 0 };
    count_uses(fn, &uses);
    for (int b = 0; b < fn->nblocks; b++) {
        RBlock *rb = fn->blocks[b];
        PtrMap at = { 0 };
        int kept = 0;
        char *gone = xcalloc((size_t)rb->nbinds + 1, 1);
        if (!gone)
            oom_fail();
        for (int i = 0; i < rb->nbinds; i++) {
            Binding *bd = rb->binds[i];
            ptrmap_put(&at, bd->var, i + 1);
            const Expr *y = is_call_to(bd->value, "R.to_vdevice") && bd->value->u.call.nargs ?
                bd->value->u.call.args[0] : NULL;
            int j = y && y->kind == E_VAR ? ptrmap_get(&at, y->u.var, 0) - 1 : -1;
            if (j < 0 || ptrmap_get(&uses, y->u.var, 0) != 1 || texture_valued(bd->annot) ||
                !texture_valued(rb->binds[j]->annot) || rb->binds[j]->value->kind != E_CALL ||
                is_call_to(rb->binds[j]->value, "R.hint_on_device") || is_call_to(rb->binds[j]->value, "R.to_vdevice"))
                continue;
            Binding *yb = rb->binds[j];
            if (!bd->annot)
                bd->annot = bd->var->sinfo;
            bd->value = yb->value;
            Expr *o = call_tir_callee(bd->value) ? call_kwarg(bd->value, "out_sinfo") : NULL;
            if (o && o->kind == E_SINFO && bd->annot)
                o->u.sinfo = bd->annot;
            gone[j] = 1;
            note_add(notes, bd->loc, "%s: the call of line %d writes global memory directly: its texture result "
                     "'%s' was only copied here", bd->var->name->str, yb->loc.line, yb->var->name->str);
        }
        for (int i = 0; i < rb->nbinds; i++)
            if (!gone[i])
                rb->binds[kept++] = rb->binds[i];
        rb->nbinds = kept;
        free(gone);
        ptrmap_free(&at);
    }
    ptrmap_free(&uses);
}

int pass_fold_scope_change(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    Notes notes = { 0 };
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_RELAX && !has_control_flow(m->funcs[i]))
            fold_func(m, m->funcs[i], &notes);
    scope_follow_calls(m, &notes);
    notes_emit(&notes, ctx, "fold-scope-change", 0);
    return 0;
}
