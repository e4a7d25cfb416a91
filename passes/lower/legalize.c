/* legalize: each call of a registered operator whose argument shapes are
 * known becomes R.call_tir of a PrimFunc built for those shapes (ir/ops/),
 * added to the module under the operator's name (add, conv2d, add1, ...).
 * Calls of one operator on the same types with the same attributes share
 * one PrimFunc, found through a hash of the call's structure; the pass is
 * linear in the number of bindings. */
#include <stdio.h>
#include <string.h>

#include "../../ir/ops.h"
#include "../graph.h"
#include "../pass.h"
#include "../texture/scope.h"

typedef struct Env {
    const Var **vars;
    TensorType *types;
    int n, cap;
    PtrMap index;          /* var -> 1 + its latest entry in vars */
} Env;

/* Everything one run of the pass shares across functions. */
typedef struct Legal {
    OpTable made;          /* the PrimFuncs made, by the calls they serve */
    PtrMap taken;          /* function names in use */
    PtrMap next;           /* operator base name -> the next suffix to try */
} Legal;

static int type_of(const Env *E, const Expr *e, TensorType *t)
{
    if (e->kind == E_CONST)
        return op_const_type(e, t);
    if (e->kind != E_VAR)
        return -1;
    int i = ptrmap_get(&E->index, e->u.var, 0) - 1;
    if (i >= 0) {
        *t = E->types[i];
        return 0;
    }
    return op_sinfo_type(e->u.var->sinfo, t);
}

static void remember(Module *m, Env *E, const Var *v, const TensorType *t)
{
    if (E->n == E->cap) {
        int cap = E->cap ? 2 * E->cap : 32;
        const Var **nv = arena_array(&m->arena, (size_t)cap, sizeof *nv);
        TensorType *nt = arena_array(&m->arena, (size_t)cap, sizeof *nt);
        if (E->n) {
            memcpy(nv, E->vars, (size_t)E->n * sizeof *nv);
            memcpy(nt, E->types, (size_t)E->n * sizeof *nt);
        }
        E->vars = nv;
        E->types = nt;
        E->cap = cap;
    }
    E->vars[E->n] = v;
    E->types[E->n++] = *t;
    ptrmap_put(&E->index, v, E->n);
}

/* add, conv2d, ...: the last part of the operator's name, unused in m
 * (suffixes are tried from where the last search for the base stopped). */
static Sym *op_func_name(Module *m, Legal *L, const char *op)
{
    const char *base = strrchr(op, '.') + 1;
    Sym *bs = intern_cstr(&m->names, base);
    char buf[128];
    for (int k = ptrmap_get(&L->next, bs, 0);; k++) {
        if (k)
            snprintf(buf, sizeof buf, "%.100s%d", base, k);
        else
            snprintf(buf, sizeof buf, "%s", base);
        Sym *s = intern_cstr(&m->names, buf);
        if (!ptrmap_get(&L->taken, s, 0)) {
            ptrmap_put(&L->taken, s, 1);
            ptrmap_put(&L->next, bs, k + 1);
            return s;
        }
    }
}

/* The PrimFunc for call on args: one made before for an identical call, or
 * a new one added to m. NULL with err filled when the operator refuses. */
static Func *primfunc_for(Module *m, Legal *L, const Expr *call, const OpInfo *op, const TensorType *args, int n,
                          OpError *err)
{
    Func *f = op_table_find(&L->made, call, args, n);
    if (f)
        return f;
    if (!(f = op_legalize(m, call, args, n, op_func_name(m, L, op->name), err)))
        return NULL;
    module_add(m, f);
    op_table_add(&L->made, call, args, n, f);
    return f;
}

static StructInfo *tensor_sinfo(Module *m, const TensorType *t, Loc loc)
{
    return tensor_sinfo_new(&m->arena, t->dtype, t->ndim, t->shape, loc);
}

static StructInfo *tuple_sinfo(Module *m, const TensorType *outs, int n, Loc loc)
{
    StructInfo *s = arena_zalloc(&m->arena, sizeof *s);
    s->kind = SI_TUPLE;
    s->loc = loc;
    s->ndim = -1;
    s->nfields = n;
    s->fields = arena_array(&m->arena, (size_t)n + 1, sizeof *s->fields);
    for (int i = 0; i < n; i++)
        s->fields[i] = tensor_sinfo(m, &outs[i], loc);
    return s;
}

/* R.call_tir(cls.f, (args), out_sinfo=...): one tensor, or a list of them
 * when the operator returns a tuple (ntuple > 0). */
static Expr *call_tir(Module *m, Func *f, Expr *const *items, int ntensors, const TensorType *out, int ntuple,
                      Loc loc)
{
    Arena *a = &m->arena;
    Expr *si;
    if (ntuple) {
        si = expr_new(a, E_LIST, loc);
        si->u.list.n = ntuple;
        si->u.list.items = arena_array(a, (size_t)ntuple + 1, sizeof(Expr *));
        for (int i = 0; i < ntuple; i++) {
            Expr *x = expr_new(a, E_SINFO, loc);
            x->u.sinfo = tensor_sinfo(m, &out[i], loc);
            si->u.list.items[i] = x;
        }
    } else {
        si = expr_new(a, E_SINFO, loc);
        si->u.sinfo = tensor_sinfo(m, out, loc);
    }
    return call_tir_new(m, f, items, ntensors, si, loc);
}

static int legalize_func(Module *m, Legal *L, Func *fn, PassCtx *ctx)
{
    Env E = { 0 };
    int status = 0;
    for (int i = 0; i < fn->nparams; i++) {
        TensorType t;
        if (op_sinfo_type(fn->params[i]->sinfo, &t) == 0)
            remember(m, &E, fn->params[i], &t);
    }
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            Binding *bd = fn->blocks[b]->binds[i];
            Expr *e = bd->value;
            TensorType t;
            const OpInfo *op = e->kind == E_CALL && !e->u.call.callee ? op_find(e->u.call.op->str) : NULL;
            if (!op) {
                /* what is known of other values: annotations, constants,
                 * call_tir's out_sinfo */
                const Expr *out = NULL;
                if (e->kind == E_CALL && strcmp(e->u.call.op->str, "R.call_tir") == 0)
                    for (int k = 0; k < e->u.call.nkw; k++)
                        if (strcmp(e->u.call.kw[k]->str, "out_sinfo") == 0)
                            out = call_kwv(e)[k];
                if (op_sinfo_type(bd->var->sinfo, &t) == 0 || type_of(&E, e, &t) == 0 ||
                    (out && out->kind == E_SINFO && op_sinfo_type(out->u.sinfo, &t) == 0))
                    remember(m, &E, bd->var, &t);
                continue;
            }
            TensorType args[OP_MAX_ARGS];
            Expr *const *items = e->u.call.args;
            int n = op->ntensors;
            if (op->tuple_arg) {
                /* R.concat((a, b)): the items of a tuple written in place */
                if (e->u.call.nargs < 1 || e->u.call.args[0]->kind != E_TUPLE || e->u.call.args[0]->u.list.n > OP_MAX_ARGS)
                    continue;
                items = e->u.call.args[0]->u.list.items;
                n = e->u.call.args[0]->u.list.n;
            }
            int known = op->tuple_arg || e->u.call.nargs >= n;
            for (int k = 0; k < n && known; k++)
                known = type_of(&E, items[k], &args[k]) == 0;
            if (!known)
                continue;   /* shapes unknown here: the call stays */
            OpError err;
            Func *f = NULL;
            TensorType outs[OP_MAX_ARGS];
            int nout = 0;
            if (op_infer(e, args, n, outs, &nout, &err) == 0)
                f = primfunc_for(m, L, e, op, args, n, &err);
            else if (err.unknown)
                continue;   /* its shape depends on values: the call stays */
            if (!f) {
                status = diag_error(ctx->src, err.loc.line ? err.loc : e->loc, "%s", err.msg);
                goto done;
            }
            bd->value = call_tir(m, f, items, n, outs, op->tuple_out ? nout : 0, e->loc);
            if (!bd->var->sinfo)
                bd->var->sinfo = op->tuple_out ? tuple_sinfo(m, outs, nout, e->loc) : tensor_sinfo(m, &outs[0], e->loc);
            if (!op->tuple_out)
                remember(m, &E, bd->var, &outs[0]);
        }
done:
    ptrmap_free(&E.index);
    return status;
}

int pass_legalize(Module *m, PassCtx *ctx, const PassOpt *opts, int nopts)
{
    (void)opts;
    (void)nopts;
    int n = m->nfuncs, status = 0;
    Legal L = { 0 };
    for (int i = 0; i < n; i++)
        ptrmap_put(&L.taken, m->funcs[i]->name, 1);
    for (int i = 0; i < n && !status; i++)
        if (is_plannable(m->funcs[i]))
            status = legalize_func(m, &L, m->funcs[i], ctx);
    if (m->nfuncs > n)
        m->bare = 0;
    if (!status) {
        /* calls of placed values: the new PrimFuncs' buffers take their scopes */
        Notes notes = { 0 };
        scope_follow_calls(m, &notes);
        notes_emit(&notes, ctx, "legalize", 0);
    }
    op_table_free(&L.made);
    ptrmap_free(&L.taken);
    ptrmap_free(&L.next);
    return status;
}
