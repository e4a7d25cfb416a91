/* The graph view: each Relax function as a Graphviz digraph cluster.
 * Parameters and constants are ellipses, calls boxes (frozen ones orange),
 * layout rewrites green, and each edge carries the tensor's shape, so the
 * seed's diagrams can be drawn from lopt's own output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot.h"
#include "print.h"
#include "../ir/vdevice.h"
#include "../ir/oom.h"

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

/* Text for inside a quoted Graphviz label: quotes and backslashes escaped. */
static void label_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
}

/* The bytes a tensor of struct info s holds, or -1 when its shape is not known. */
static long long tensor_bytes(const StructInfo *s)
{
    int64_t v;
    long long n = 1;
    if (!s || s->kind != SI_TENSOR || !s->shape || dtype_size(s->dtype) == 0)
        return -1;
    for (int i = 0; i < s->ndim; i++) {
        if (expr_const_int(s->shape[i], &v) || v < 0 || __builtin_mul_overflow(n, (long long)v, &n))
            return -1;
    }
    return __builtin_mul_overflow(n, (long long)dtype_size(s->dtype), &n) ? -1 : n;
}

/* A map as a brief label shows it (DOT_BRIEF): "T.index_map(lambda n, c:
 * (c, n))" as its result "(c, n)", cut after BRIEF_MAP characters. */
enum { BRIEF_MAP = 24 };

static void brief_text(FILE *out, const char *map)
{
    const char *s = map, *colon = strstr(map, ": ");
    size_t n = strlen(map);
    if (strncmp(map, "T.index_map(lambda", 18) == 0 && colon && n && map[n - 1] == ')') {
        s = colon + 2;
        n = (size_t)(map + n - 1 - s);
    }
    char buf[BRIEF_MAP + 8];
    size_t k = n;
    if (k > BRIEF_MAP) {
        k = BRIEF_MAP;
        while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
            k--;   /* not inside a UTF-8 sequence */
    }
    snprintf(buf, sizeof buf, "%.*s%s", (int)k, s, k < n ? "\xe2\x80\xa6" : "");
    label_text(out, buf);
}

/* What a rewrite does: its index map (or pad widths), and the bytes it
 * writes. Brief: the map shortened (brief_text), and whole in *tip. */
static void rewrite_label(FILE *out, const Expr *e, const StructInfo *result, int brief, const Expr **tip)
{
    char buf[256];
    for (int i = 0; i < e->u.call.nkw; i++)
        if (strcmp(e->u.call.kw[i]->str, "index_map") == 0 || strcmp(e->u.call.kw[i]->str, "pad_width") == 0) {
            const Expr *map = e->u.call.args[e->u.call.nargs + i];
            fputs("\\n", out);
            if (brief) {
                brief_text(out, expr_text(map, buf, sizeof buf));
                *tip = map;
            } else {
                label_text(out, expr_text(map, buf, sizeof buf));
            }
        }
    long long b = tensor_bytes(result);
    if (b >= 0)
        fprintf(out, b >= 10240 ? "\\n%.1f KiB" : "\\n%.0f B", b >= 10240 ? (double)b / 1024 : (double)b);
}

static int is_rewrite(const Expr *e)
{
    if (e->kind != E_CALL || e->u.call.callee)
        return 0;
    const char *op = e->u.call.op->str;
    return strcmp(op, "R.layout_transform") == 0 || strcmp(op, "R.pad") == 0 || strcmp(op, "R.crop") == 0;
}

/* A value read by more than MANY_USES bindings is drawn again beside each
 * of its uses past the first: dot's layout grows with the number of edges
 * that span many ranks times their length (a parameter read by each of
 * 100 bindings in a chain took it 90 s), and the copies keep every edge
 * short. The uses of each variable are counted first, in a sorted array. */
enum { MANY_USES = 8 };

typedef struct UseCount {
    const Var *v;
    int total, drawn;
} UseCount;

typedef struct Graph {
    UseCount *u;
    int n, cap;
    int counting;   /* the first walk: record the uses, draw nothing */
    int copies;     /* copies drawn so far, for their ids */
} Graph;

static int by_var(const void *a, const void *b)
{
    const Var *x = ((const UseCount *)a)->v, *y = ((const UseCount *)b)->v;
    return x < y ? -1 : x > y;
}

static void use_record(Graph *G, const Var *v)
{
    if (G->n == G->cap) {
        int cap = G->cap ? 2 * G->cap : 64;
        UseCount *u = xrealloc(G->u, (size_t)cap * sizeof *u);
        if (!u)
            return;   /* an uncounted use is drawn as an edge like any other */
        G->u = u;
        G->cap = cap;
    }
    G->u[G->n++] = (UseCount){ v, 1, 0 };
}

/* Sorts the recorded uses and merges each variable's into one count. */
static void uses_merge(Graph *G)
{
    qsort(G->u, (size_t)G->n, sizeof *G->u, by_var);
    int k = 0;
    for (int i = 0; i < G->n; i++)
        if (k && G->u[k - 1].v == G->u[i].v)
            G->u[k - 1].total++;
        else
            G->u[k++] = G->u[i];
    G->n = k;
    G->counting = 0;
}

static UseCount *uses_of(Graph *G, const Var *v)
{
    UseCount key = { v, 0, 0 };
    return G->n ? bsearch(&key, G->u, (size_t)G->n, sizeof *G->u, by_var) : NULL;
}

/* Edges from every variable or constant e mentions to node "FN.TO" (ids
 * written out whole, never formatted into a buffer, so names of any length
 * keep their quotes). */
static void edges(FILE *out, const Func *fn, const Expr *e, const char *to, int *nconst, Graph *G)
{
    if (!e)
        return;
    switch (e->kind) {
    case E_VAR: {
        const Var *v = e->u.var;
        if (G->counting) {
            use_record(G, v);
            break;
        }
        UseCount *u = uses_of(G, v);
        if (u && u->total > MANY_USES && u->drawn++ > 0) {
            fprintf(out, "    \"%s.%s@%d\" [label=\"%s\", shape=ellipse, style=dotted, tooltip=\"%s: one of its %d uses\"];\n",
                    fn->name->str, v->name->str, G->copies, v->name->str, v->name->str, u->total);
            fprintf(out, "    \"%s.%s@%d\" -> \"%s.%s\" [label=\"", fn->name->str, v->name->str, G->copies++,
                    fn->name->str, to);
        } else {
            fprintf(out, "    \"%s.%s\" -> \"%s.%s\" [label=\"", fn->name->str, v->name->str, fn->name->str, to);
        }
        shape_label(out, v->sinfo);
        fputs("\"];\n", out);
        break;
    }
    case E_CONST:
        if (G->counting)
            break;
        fprintf(out, "    \"%s.const%d\" [label=\"const\", shape=ellipse, style=dashed];\n", fn->name->str, *nconst);
        fprintf(out, "    \"%s.const%d\" -> \"%s.%s\";\n", fn->name->str, (*nconst)++, fn->name->str, to);
        break;
    case E_TUPLE:
    case E_LIST:
        for (int i = 0; i < e->u.list.n; i++)
            edges(out, fn, e->u.list.items[i], to, nconst, G);
        break;
    case E_GETITEM:
        edges(out, fn, e->u.get.tuple, to, nconst, G);
        break;
    case E_CALL:
        for (int i = 0; i < e->u.call.nargs; i++)
            edges(out, fn, e->u.call.args[i], to, nconst, G);
        break;
    default:
        break;
    }
}

/* Values in texture memory are outlined in their scope's colour and named
 * in their label; values in global memory are drawn as before. */
static void scope_style(FILE *out, const StructInfo *s)
{
    static const char *const colour[] = {
        [TEX_PLAIN] = "#1f77b4", [TEX_NHWC] = "#9467bd", [TEX_WEIGHT] = "#8c564b", [TEX_NCHW] = "#17becf",
    };
    TexKind k = s && s->kind == SI_TENSOR && s->vdevice ? texture_kind(vdev_str_scope(s->vdevice)) : TEX_NONE;
    if (k != TEX_NONE)
        fprintf(out, ", color=\"%s\", penwidth=3", colour[k]);
}

static void scope_label(FILE *out, const StructInfo *s)
{
    if (s && s->kind == SI_TENSOR && s->vdevice && texture_kind(vdev_str_scope(s->vdevice)) != TEX_NONE)
        fprintf(out, "\\n%s", vdev_str_scope(s->vdevice));
}

/* Values coloured by layout: a rewrite's result is in the layout its map
 * names, a call's result in the layout of its first operand of the same
 * rank, a parameter as written (no colour). Each distinct map gets the next
 * colour of the palette, and a legend node says which. */
typedef struct Layouts {
    const Var **var;
    int *which;           /* -1: as written, else an index into text */
    int n, cap;
    char **text;
    int ntext, captext;
} Layouts;

static const char *const palette[] = { "#fdd49e", "#c7e9c0", "#c6dbef", "#fcc5c0", "#dadaeb", "#fee391",
                                       "#d9f0d3", "#f2f0f7" };

static int layout_of(const Layouts *L, const Expr *e)
{
    if (!e || e->kind != E_VAR)
        return -1;
    for (int i = L->n - 1; i >= 0; i--)
        if (L->var[i] == e->u.var)
            return L->which[i];
    return -1;
}

static int var_rank(const StructInfo *s)
{
    return s && s->kind == SI_TENSOR ? s->ndim : -1;
}

static int layout_add(Layouts *L, const Var *v, const Expr *e)
{
    int which = -1;
    char buf[256];
    if (e->kind == E_CALL && is_rewrite(e) && strcmp(e->u.call.op->str, "R.layout_transform") == 0) {
        for (int i = 0; i < e->u.call.nkw; i++)
            if (strcmp(e->u.call.kw[i]->str, "index_map") == 0)
                expr_text(e->u.call.args[e->u.call.nargs + i], buf, sizeof buf);
        for (int k = 0; k < L->ntext && which < 0; k++)
            if (strcmp(L->text[k], buf) == 0)
                which = k;
        if (which < 0) {
            if (L->ntext == L->captext) {
                L->captext = L->captext ? 2 * L->captext : 8;
                L->text = xrealloc(L->text, (size_t)L->captext * sizeof *L->text);
            }
            L->text[L->ntext] = xstrdup(buf);
            which = L->ntext++;
        }
    } else if (e->kind == E_CALL) {
        const Expr *args = e->u.call.nargs >= 2 && e->u.call.args[0]->kind == E_GLOBAL ? e->u.call.args[1] : NULL;
        int n = args ? (args->kind == E_TUPLE ? args->u.list.n : 0) : e->u.call.nargs;
        for (int i = 0; i < n && which < 0; i++) {
            const Expr *a = args ? args->u.list.items[i] : e->u.call.args[i];
            if (a->kind == E_VAR && var_rank(a->u.var->sinfo) == var_rank(v->sinfo))
                which = layout_of(L, a);
        }
    }
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 64;
        L->var = xrealloc(L->var, (size_t)L->cap * sizeof *L->var);
        L->which = xrealloc(L->which, (size_t)L->cap * sizeof *L->which);
    }
    L->var[L->n] = v;
    L->which[L->n++] = which;
    return which;
}

/* What the node of binding value e reads (the edges into it): a call_tir's
 * arguments, an if's condition (its branches are not drawn: the node stands
 * for the whole if), nothing for a constant or a local function. */
static const Expr *drawn_args(const Expr *e)
{
    if (e->kind == E_CALL && e->u.call.nargs >= 2 && e->u.call.args[0]->kind == E_GLOBAL)
        return e->u.call.args[1];
    if (e->kind == E_CONST || e->kind == E_FUNC)
        return NULL;
    return e->kind == E_IF ? e->u.rif.cond : e;
}

/* The uses the graph of fn draws, counted (Graph). */
static void count_drawn_uses(const Func *fn, Graph *G)
{
    int nconst = 0;
    G->counting = 1;
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++)
            edges(NULL, fn, drawn_args(fn->blocks[b]->binds[i]->value), NULL, &nconst, G);
    edges(NULL, fn, fn->result, NULL, &nconst, G);
    uses_merge(G);
}

static void func_graph(FILE *out, const Func *fn, int flags)
{
    int brief = flags & DOT_BRIEF;
    int nconst = 0;
    Layouts L = { 0 };
    Graph G = { 0 };
    count_drawn_uses(fn, &G);
    fprintf(out, "  subgraph \"cluster_%s\" {\n    label=\"%s\";\n", fn->name->str, fn->name->str);
    for (int i = 0; i < fn->nparams; i++)
    {
        fprintf(out, "    \"%s.%s\" [label=\"%s", fn->name->str, fn->params[i]->name->str, fn->params[i]->name->str);
        scope_label(out, fn->params[i]->sinfo);
        fputs("\", shape=ellipse", out);
        scope_style(out, fn->params[i]->sinfo);
        fputs("];\n", out);
    }
    for (int b = 0; b < fn->nblocks; b++)
        for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
            const Binding *bd = fn->blocks[b]->binds[i];
            const Expr *e = bd->value;
            const char *what = "", *style = "shape=box";
            if (e->kind == E_CALL && e->u.call.nargs >= 2 && e->u.call.args[0]->kind == E_GLOBAL) {
                const Func *g = e->u.call.args[0]->u.global.fn;
                what = e->u.call.args[0]->u.global.name->str;
                if (frozen(g))
                    style = "shape=box, style=filled, fillcolor=\"#ff9966\", penwidth=3";
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
            } else if (e->kind == E_IF) {
                what = "if";
                style = "shape=diamond";
            }
            int lay = layout_add(&L, bd->var, e);
            const Expr *tip = NULL;
            fprintf(out, "    \"%s.%s\" [label=\"%s\\n%s", fn->name->str, bd->var->name->str, bd->var->name->str, what);
            if (e->kind == E_CALL && is_rewrite(e))
                rewrite_label(out, e, bd->var->sinfo ? bd->var->sinfo : bd->annot, brief, &tip);
            const StructInfo *si = bd->annot ? bd->annot : bd->var->sinfo;
            if (brief && lay >= 0)
                fprintf(out, "\\nin L%d", lay + 1);   /* the legend's name of its layout */
            scope_label(out, si);
            fprintf(out, "\", %s", style);
            if (lay >= 0 && strcmp(style, "shape=box") == 0)
                fprintf(out, ", style=filled, fillcolor=\"%s\"", palette[lay % 8]);
            else if (lay >= 0 && strstr(style, "fillcolor") && !strstr(style, "16b522"))
                fprintf(out, ", color=\"%s\"", palette[lay % 8]);
            scope_style(out, si);
            if (tip) {
                char buf[256];
                fputs(", tooltip=\"", out);
                label_text(out, expr_text(tip, buf, sizeof buf));
                fputc('"', out);
            }
            fputs("];\n", out);
            edges(out, fn, drawn_args(e), bd->var->name->str, &nconst, &G);
        }
    fprintf(out, "    \"%s.result\" [label=\"result\", shape=doublecircle];\n", fn->name->str);
    edges(out, fn, fn->result, "result", &nconst, &G);
    free(G.u);
    for (int k = 0; k < L.ntext; k++) {
        fprintf(out, "    \"%s.layout%d\" [label=\"layout ", fn->name->str, k);
        if (brief) {
            fprintf(out, "L%d: ", k + 1);
            brief_text(out, L.text[k]);
            fputs("\", tooltip=\"layout ", out);
        }
        label_text(out, L.text[k]);
        fprintf(out, "\", shape=note, style=filled, fillcolor=\"%s\"];\n", palette[k % 8]);
        free(L.text[k]);
    }
    free(L.text);
    free(L.var);
    free(L.which);
    fputs("  }\n", out);
}

/* top to bottom: a deep model grows downwards, as a page scrolls */
static const char graph_head[] = "digraph lopt {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";

void print_dot(FILE *out, const Module *m)
{
    fputs(graph_head, out);
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_RELAX)
            func_graph(out, m->funcs[i], 0);
    fputs("}\n", out);
}

void print_dot_func(FILE *out, const Func *fn, int flags)
{
    fputs(graph_head, out);
    func_graph(out, fn, flags);
    fputs("}\n", out);
}

int dot_rewrites(const Module *m, long long *bytes)
{
    int n = 0;
    *bytes = 0;
    for (int f = 0; f < m->nfuncs; f++) {
        const Func *fn = m->funcs[f];
        for (int b = 0; fn->kind == F_RELAX && b < fn->nblocks; b++)
            for (int i = 0; i < fn->blocks[b]->nbinds; i++) {
                const Binding *bd = fn->blocks[b]->binds[i];
                if (!is_rewrite(bd->value))
                    continue;
                long long k = tensor_bytes(bd->var->sinfo ? bd->var->sinfo : bd->annot);
                n++;
                *bytes += k > 0 ? k : 0;
            }
    }
    return n;
}
