/* PrimFunc buffers take the memory scopes of their call sites: what the
 * scope passes (annotate-scope, realize-vdevice, fold-scope-change) and
 * legalize share, through scope.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/clone.h"
#include "../../ir/vdevice.h"
#include "../graph.h"
#include "scope.h"
#include "../../ir/oom.h"

enum { SIG_MAX = 32 };

/* The scopes a call site gives its callee's parameters, and the PrimFunc
 * that has them. */
typedef struct Sig {
    Func *orig, *fn;
    const char *scope[SIG_MAX];
    int n;
} Sig;

const char *sinfo_scope(const StructInfo *si)
{
    return si && si->kind == SI_TENSOR && si->vdevice ? vdev_str_scope(si->vdevice) : NULL;
}

/* The scopes of a call_tir's operands and results; 0 when it places none. */
static int call_sig(const Binding *bd, Func *f, Sig *s)
{
    const Expr *e = bd->value, *t = e->u.call.args[1], *o = call_kwarg(e, "out_sinfo");
    int placed = 0, nout = o && o->kind == E_LIST ? o->u.list.n : 1;
    if (t->kind != E_TUPLE || !o || t->u.list.n + nout != f->npparams || f->npparams > SIG_MAX)
        return 0;
    s->orig = f;
    s->n = f->npparams;
    for (int i = 0; i < t->u.list.n; i++) {
        const Expr *a = t->u.list.items[i];
        s->scope[i] = a->kind == E_VAR ? sinfo_scope(a->u.var->sinfo) : NULL;
    }
    for (int i = 0; i < nout; i++) {
        const StructInfo *si = o->kind == E_LIST ? o->u.list.items[i]->u.sinfo : o->u.sinfo;
        if (o->kind != E_LIST && bd->annot && bd->annot->kind == SI_TENSOR)
            si = bd->annot;
        s->scope[t->u.list.n + i] = sinfo_scope(si);
    }
    for (int i = 0; i < s->n; i++) {
        placed |= s->scope[i] != NULL;
        if (!s->scope[i])
            s->scope[i] = "global";
    }
    return placed;
}

static int same_sig(const Sig *a, const Sig *b)
{
    if (a->orig != b->orig || a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->scope[i], b->scope[i]) != 0)
            return 0;
    return 1;
}

/* The T.match_buffer of handle h in s, or NULL. */
static Buffer *match_of(Stmt *s, const Var *h)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++) {
            Buffer *b = match_of(s->u.seq.items[i], h);
            if (b)
                return b;
        }
        return NULL;
    case S_ALLOC:
        return s->u.alloc->kind == BUF_MATCH && s->u.alloc->handle == h ? s->u.alloc : NULL;
    case S_BLOCK:
        return s->u.block->niters == 0 ? match_of(s->u.block->body, h) : NULL;
    default:
        return NULL;
    }
}

static void give_scopes(Module *m, Func *f, const Sig *s)
{
    for (int i = 0; i < f->npparams; i++) {
        Buffer *b = f->pparams[i].buf ? f->pparams[i].buf : match_of(f->body, f->pparams[i].var);
        if (!b)
            continue;
        TexKind k = texture_kind(s->scope[i]);
        if (k == TEX_NONE && texture_kind(b->scope) != TEX_NONE) {
            b->axis_sep = NULL;   /* the separators were the texture's */
            b->nsep = 0;
        }
        b->scope = strcmp(s->scope[i], "global") == 0 ? NULL : s->scope[i];
        if (k != TEX_NONE && b->ndim == 5) {
            b->axis_sep = arena_array(&m->arena, 2, sizeof *b->axis_sep);
            texture_separators(k, b->axis_sep);
            b->nsep = 2;
        }
    }
}

void scope_follow_calls(Module *m, Notes *notes)
{
    Sig *sigs = NULL;
    int n = 0, cap = 0, nf = m->nfuncs;
    /* copies are made of the callees as they were, before any takes scopes */
    for (int i = 0; i < nf; i++) {
        Func *fn = m->funcs[i];
        for (int b = 0; fn->kind == F_RELAX && b < fn->nblocks; b++)
            for (int k = 0; k < fn->blocks[b]->nbinds; k++) {
                Binding *bd = fn->blocks[b]->binds[k];
                Func *f = call_tir_callee(bd->value);
                Sig s;
                if (!f || !call_sig(bd, f, &s))
                    continue;
                int j = 0, first = 1;
                for (; j < n && !same_sig(&sigs[j], &s); j++)
                    first &= sigs[j].orig != f;
                if (j == n) {
                    if (n == cap) {
                        cap = cap ? 2 * cap : 16;
                        Sig *g = xrealloc(sigs, (size_t)cap * sizeof *g);
                        if (!g)
                            oom_fail();
                        sigs = g;
                    }
                    s.fn = first ? f : clone_prim(&m->arena, f, fresh_func(m, f->name->str));
                    if (!first) {
                        module_add_func(m, s.fn);
                        note_add(notes, bd->loc, "%s: a copy of %s, whose other call sites place its buffers "
                                 "differently", s.fn->name->str, f->name->str);
                    }
                    sigs[n++] = s;
                }
                if (sigs[j].fn != f) {
                    Expr *g = expr_new(&m->arena, E_GLOBAL, bd->value->u.call.args[0]->loc);
                    g->u.global.fn = sigs[j].fn;
                    g->u.global.name = sigs[j].fn->name;
                    bd->value->u.call.args[0] = g;
                }
            }
    }
    for (int j = 0; j < n; j++)
        give_scopes(m, sigs[j].fn, &sigs[j]);
    free(sigs);
}
