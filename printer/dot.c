/* The graph view: each Relax function as a Graphviz digraph cluster.
 * Parameters and constants are ellipses, calls boxes (frozen ones orange),
 * layout rewrites green, and each edge carries the tensor's shape, so the
 * seed's diagrams can be drawn from lopt's own output. */
#include <stdio.h>
#include <string.h>

#include "dot.h"

static int frozen(const Func *f)
{
    const Expr *d = f ? f->attrs : NULL;
    for (int i = 0; d && d->kind == E_DICT && i < d->u.dict.n; i++) {
        const Expr *k = d->u.dict.keys[i], *v = d->u.dict.vals[i];
        if (k->kind == E_STR && k->u.str.len == 13 && memcmp(k->u.str.s, "frozen_layout", 13) == 0)
            return v->kind != E_BOOL || v->u.b;
    }
    return 0;
}

static void shape_label(FILE *out, const StructInfo *s)
{
    int64_t v;
    if (!s || s->kind != SI_TENSOR || !s->shape)
        return;
    fputc('(', out);
    for (int i = 0; i < s->ndim; i++)
        if (expr_const_int(s->shape[i], &v) == 0)
            fprintf(out, "%s%lld", i ? ", " : "", (long long)v);
        else
            fprintf(out, "%s?", i ? ", " : "");
    fputc(')', out);
}

static int is_rewrite(const Expr *e)
{
    if (e->kind != E_CALL || e->u.call.callee)
        return 0;
    const char *op = e->u.call.op->str;
    return strcmp(op, "R.layout_transform") == 0 || strcmp(op, "R.pad") == 0 || strcmp(op, "R.crop") == 0;
}

/* Edges from every variable or constant e mentions to node to. */
static void edges(FILE *out, const Func *fn, const Expr *e, const char *to, int *nconst)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_VAR:
        fprintf(out, "    \"%s.%s\" -> %s [label=\"", fn->name->str, e->u.var->name->str, to);
        shape_label(out, e->u.var->sinfo);
        fputs("\"];\n", out);
        break;
    case E_CONST:
        fprintf(out, "    \"%s.const%d\" [label=\"const\", shape=ellipse, style=dashed];\n", fn->name->str, *nconst);
        fprintf(out, "    \"%s.const%d\" -> %s;\n", fn->name->str, (*nconst)++, to);
        break;
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            edges(out, fn, e->u.list.items[i], to, nconst);
        break;
    case E_GETITEM:
        edges(out, fn, e->u.get.tuple, to, nconst);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            edges(out, fn, e->u.call.args[i], to, nconst);
        break;
    default:
        break;
    }
}

static void func_graph(FILE *out, const Func *fn)
{
    int nconst = 0;
    char id[300];
    fprintf(out, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n", fn->name->str, fn->name->str);
    for (int i = 0; i < fn->nparams; i++)
        fprintf(out, "    \"%s.%s\" [label=\"%s\", shape=ellipse];\n", fn->name->str, fn->params[i]->name->str,
                fn->params[i]->name->str);
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            const Binding *bd = fn->blocks[b]->binds[i];
            const Expr *e = bd->value;
            snprintf(id, sizeof id, "\"%s.%s\"", fn->name->str, bd->var->name->str);
            const char *what = "", *style = "shape=box";
            const Expr *args = e;
            if (e->kind == E_CALL && e->u.call.nargs >= 2 && e->u.call.args[0]->kind == E_GLOBAL) {
                const Func *g = e->u.call.args[0]->u.global.fn;
                what = e->u.call.args[0]->u.global.name->str;
                if (frozen(g))
                    style = "shape=box, style=filled, fillcolor=\"#ff9966\", penwidth=3";
                args = e->u.call.args[1];
            } else if (e->kind == E_CALL && is_rewrite(e)) {
                what = e->u.call.op->str;
                style = "shape=box, style=filled, fillcolor=\"#16b522\", fontcolor=white";
            } else if (e->kind == E_CALL) {
                what = e->u.call.op->str;
            } else if (e->kind == E_CONST) {
                what = "const";
                style = "shape=ellipse, style=dashed";
            } else if (e->kind == E_FUNC) {
                what = "function";
                style = "shape=box, style=rounded";
                args = NULL;
            } else if (e->kind == E_IF) {
                /* the branches are not drawn: the node stands for the whole if */
                what = "if";
                style = "shape=diamond";
                args = e->u.rif.cond;
            }
            fprintf(out, "    %s [label=\"%s\\n%s\", %s];\n", id, bd->var->name->str, what, style);
            if (e->kind != E_CONST)
                edges(out, fn, args, id, &nconst);
        }
    snprintf(id, sizeof id, "\"%s.result\"", fn->name->str);
    fprintf(out, "    %s [label=\"result\", shape=doublecircle];\n", id);
    edges(out, fn, fn->result, id, &nconst);
    fputs("  }\n", out);
}

void print_dot(FILE *out, const Module *m)
{
    fputs("digraph lopt {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n", out);
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_RELAX)
            func_graph(out, m->funcs[i]);
    fputs("}\n", out);
}
