/* Index maps as handles: read from a lambda or two layouts over a box,
 * composed, inverted, classified and applied (ir/indexmap.c's algebra).
 * A handle owns a module of its own for its arena and names; one made from
 * others (a composition, an inverse) reads their texts again into it. */
#include <stdlib.h>
#include <string.h>

#include "../grammar/reader.h"
#include "../ir/indexmap.h"
#include "../printer/print.h"
#include "internal.h"
#include "../ir/oom.h"

struct lopt_indexmap {
    Module *m;
    IndexMap *im;
    ImKind kind;
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK];
    IndexMap *inv;            /* the inverse of im, or NULL (why says why) */
    const IndexMap *over;     /* the map whose inputs pred speaks of */
    ImCond *pred;             /* where the outputs are padding */
    int npred;
    char why[256];
    /* how to make it again: texts read one over the other's output box, then inverted or not */
    char **texts, **whats;
    int ntexts;
    int64_t box[IM_MAX_RANK];
    int rank, inverted;
};

/* FROM:TO names two layouts; anything that is not a lambda and has one colon. */
static int is_layout_pair(const char *s)
{
    while (*s == ' ')
        s++;
    const char *colon = strchr(s, ':');
    return strncmp(s, "lambda", 6) != 0 && colon && !strchr(colon + 1, ':') && !strchr(s, '\n');
}

static void map_error(lopt_context *ctx, Source *src, const ImError *err)
{
    if (err->loc.line)
        diag_error(src, err->loc, "%s", err->msg);
    else
        api_fail(ctx, "%s", err->msg);
}

/* Reads text over box (rank inputs) into m. NULL after reporting. */
static IndexMap *read_map(lopt_context *ctx, Module *m, const char *text, const char *what, const int64_t *box,
                          int rank)
{
    ImError err = { { 0, 0 }, "" };
    Source src = { .name = what, .text = text, .len = strlen(text) };
    api_bind(ctx, &src);
    Sym *names[IM_MAX_RANK];
    Expr *e;
    int pair = is_layout_pair(text);
    if (pair) {
        char from[64], to[64];
        const char *colon = strchr(text, ':');
        if (strlen(text) > 100) {
            api_fail(ctx, "layout names longer than 50 characters");
            return NULL;
        }
        snprintf(from, sizeof from, "%.*s", (int)(colon - text), text);
        snprintf(to, sizeof to, "%s", colon + 1);
        e = im_layout_map(&m->arena, &m->names, from, to, names, &err);
        if (e && im_layout_check(from, box, rank, &err))
            e = NULL;
    } else if (!(e = read_index_map(&src, m))) {
        return NULL;
    }
    if (!e) {
        map_error(ctx, &src, &err);
        return NULL;
    }
    if (e->u.map.nparams != rank) {
        api_fail(ctx, "%s has %d input%s but the shape has %d extent%s", what, e->u.map.nparams,
                 e->u.map.nparams == 1 ? "" : "s", rank, rank == 1 ? "" : "s");
        return NULL;
    }
    IndexMap *im = im_from_expr(&m->arena, e, box, &err);
    if (!im) {
        map_error(ctx, &src, &err);
        return NULL;
    }
    if (pair)
        memcpy(im->out_names, names, (size_t)im->nout * sizeof *names);
    return im;
}

static IndexMap *inverse_of(lopt_indexmap *h, const IndexMap *im, ImKind kind)
{
    ImError err = { { 0, 0 }, "" };
    IndexMap *inv = kind == IM_BIJECTIVE || kind == IM_PADDED ?
        im_inverse(&h->m->arena, im, &h->pred, &h->npred, &err) : NULL;
    if (!inv)
        snprintf(h->why, sizeof h->why, "%s", kind == IM_BIJECTIVE || kind == IM_PADDED ? err.msg :
                 kind == IM_NOT_INJECTIVE ? "the map is not injective" : "the map's kind is not known");
    return inv;
}

static lopt_indexmap *build(lopt_context *ctx, char **texts, char **whats, int n, const int64_t *box, int rank,
                            int inverted)
{
    lopt_indexmap *h = xcalloc(1, sizeof *h);
    if (!h)
        oom_fail();
    h->m = module_new();
    h->texts = texts;
    h->whats = whats;
    h->ntexts = n;
    h->rank = rank;
    h->inverted = inverted;
    memcpy(h->box, box, (size_t)rank * sizeof *box);
    IndexMap *im = NULL;
    for (int i = 0; i < n; i++) {
        IndexMap *g = read_map(ctx, h->m, texts[i], whats[i], im ? im->obox : box, im ? im->nout : rank);
        if (!g)
            goto fail;
        if (im && !(g = im_compose(&h->m->arena, g, im))) {
            api_fail(ctx, "index map arithmetic overflows 2^60 in the composition");
            goto fail;
        }
        im = g;
    }
    ImKind kind = im_classify(im, h->wa, h->wb);
    IndexMap *inv = inverse_of(h, im, kind);
    h->over = inv;
    if (inverted) {
        if (!inv) {
            api_fail(ctx, "%s", h->why);
            goto fail;
        }
        ImCond *pred = h->pred;
        int npred = h->npred;
        im = inv;
        kind = im_classify(im, h->wa, h->wb);
        h->inv = inverse_of(h, im, kind);
        h->pred = pred;
        h->npred = npred;
    } else {
        h->inv = inv;
    }
    h->im = im;
    h->kind = im_is_identity(im) && (kind == IM_BIJECTIVE || kind == IM_PADDED) ? (ImKind)-1 : kind;
    return h;
fail:
    lopt_indexmap_free(h);
    return NULL;
}

static char **copy_strings(char *const *s, int n, char *const *t, int m)
{
    char **c = xmalloc(((size_t)n + (size_t)m + 1) * sizeof *c);
    if (!c)
        oom_fail();
    for (int i = 0; i < n; i++)
        c[i] = api_strdup(s[i]);
    for (int i = 0; i < m; i++)
        c[n + i] = api_strdup(t[i]);
    return c;
}

static lopt_indexmap *lopt_indexmap_new_body(lopt_context *ctx, const char *text, const int64_t *shape, int rank, const char *what)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, text, NULL);
    API_NEED(ctx, shape, NULL);
    if (rank < 1 || rank > IM_MAX_RANK) {
        api_fail(ctx, "an index map has 1 to %d inputs; not %d", IM_MAX_RANK, rank);
        return NULL;
    }
    char *t = (char *)text, *w = (char *)(what ? what : "<map>");
    return build(ctx, copy_strings(&t, 1, NULL, 0), copy_strings(&w, 1, NULL, 0), 1, shape, rank, 0);
}

lopt_indexmap *lopt_indexmap_new(lopt_context *ctx, const char *text, const int64_t *shape, int rank, const char *what)
{
    API_PROTECTED(ctx, lopt_indexmap *, NULL, lopt_indexmap_new_body(ctx, text, shape, rank, what));
}

void lopt_indexmap_free(lopt_indexmap *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->ntexts; i++) {
        free(h->texts[i]);
        free(h->whats[i]);
    }
    free(h->texts);
    free(h->whats);
    module_free(h->m);
    free(h);
}

static lopt_indexmap *lopt_indexmap_compose_body(lopt_context *ctx, const lopt_indexmap *f, const lopt_indexmap *g)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, f, NULL);
    API_NEED(ctx, g, NULL);
    if (f->inverted || g->inverted) {
        api_fail(ctx, "an inverse cannot be composed; compose the maps, then invert");
        return NULL;
    }
    if (g->rank != f->im->nout || memcmp(g->box, f->im->obox, (size_t)g->rank * sizeof *g->box)) {
        api_fail(ctx, "the second map's input box is not the first one's output box");
        return NULL;
    }
    return build(ctx, copy_strings(f->texts, f->ntexts, g->texts, g->ntexts),
                 copy_strings(f->whats, f->ntexts, g->whats, g->ntexts), f->ntexts + g->ntexts, f->box, f->rank, 0);
}

lopt_indexmap *lopt_indexmap_compose(lopt_context *ctx, const lopt_indexmap *f, const lopt_indexmap *g)
{
    API_PROTECTED(ctx, lopt_indexmap *, NULL, lopt_indexmap_compose_body(ctx, f, g));
}

static lopt_indexmap *lopt_indexmap_inverse_body(lopt_context *ctx, const lopt_indexmap *h)
{
    API_NEED(ctx, ctx, NULL);
    API_NEED(ctx, h, NULL);
    if (h->inverted) {
        api_fail(ctx, "the inverse of an inverse is the map itself");
        return NULL;
    }
    if (!h->inv) {
        api_fail(ctx, "%s", h->why);
        return NULL;
    }
    return build(ctx, copy_strings(h->texts, h->ntexts, NULL, 0), copy_strings(h->whats, h->ntexts, NULL, 0),
                 h->ntexts, h->box, h->rank, 1);
}

lopt_indexmap *lopt_indexmap_inverse(lopt_context *ctx, const lopt_indexmap *h)
{
    API_PROTECTED(ctx, lopt_indexmap *, NULL, lopt_indexmap_inverse_body(ctx, h));
}

const char *lopt_indexmap_no_inverse(const lopt_indexmap *h)
{
    return !h ? "no map was given" : h->inv ? NULL : h->why;
}

int lopt_indexmap_rank(const lopt_indexmap *h, int out)
{
    return !h ? -1 : out ? h->im->nout : h->im->nin;
}

const int64_t *lopt_indexmap_shape(const lopt_indexmap *h, int out)
{
    return !h ? NULL : out ? h->im->obox : h->im->box;
}

const char *lopt_indexmap_input_name(const lopt_indexmap *h, int i)
{
    return h && i >= 0 && i < h->im->nin ? h->im->in_names[i]->str : NULL;
}

static char *expr_string(const Expr *e, const char *prefix)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&buf, &len);
    if (!f)
        oom_fail();
    fputs(prefix, f);
    print_expr(f, e);
    fclose(f);
    return buf;
}

static char *lopt_indexmap_text_body(const lopt_indexmap *h)
{
    if (!h)
        return NULL;
    Module *m = h->m;
    const IndexMap *im = h->im;
    Expr *e = im_to_expr(&m->arena, &m->names, im);
    Loc none = { 0, 0 };
    Expr *t = expr_new(&m->arena, E_TUPLE, none);
    t->u.list.items = e->u.map.out;
    t->u.list.n = e->u.map.nout;
    /* the head as long as the names make it: a map's text reads back whole */
    char *head = NULL;
    size_t len = 0;
    FILE *f = xopen_memstream(&head, &len);
    if (!f)
        return NULL;
    fputs("lambda ", f);
    for (int i = 0; i < im->nin; i++)
        fprintf(f, "%s%s", i ? ", " : "", im->in_names[i]->str);
    fputs(": ", f);
    if (fclose(f)) {
        free(head);
        return NULL;
    }
    char *r = expr_string(t, head);
    free(head);
    return r;
}

char *lopt_indexmap_text(const lopt_indexmap *h)
{
    API_PROTECTED((lopt_context *)NULL, char *, NULL, lopt_indexmap_text_body(h));
}

lopt_map_kind lopt_indexmap_kind(const lopt_indexmap *h, int64_t *a, int64_t *b)
{
    if (!h)
        return LOPT_MAP_UNKNOWN;
    if (a)
        memcpy(a, h->wa, (size_t)h->im->nin * sizeof *a);
    if (b)
        memcpy(b, h->wb, (size_t)h->im->nin * sizeof *b);
    switch ((int)h->kind) {
    case -1: return LOPT_MAP_IDENTITY;
    case IM_BIJECTIVE: return LOPT_MAP_BIJECTIVE;
    case IM_PADDED: return LOPT_MAP_PADDED;
    case IM_NOT_INJECTIVE: return LOPT_MAP_NOT_INJECTIVE;
    default: return LOPT_MAP_UNKNOWN;
    }
}

static char *lopt_indexmap_padding_body(const lopt_indexmap *h)
{
    if (!h || !h->over || h->npred == 0)
        return NULL;
    return expr_string(im_pred_to_expr(&h->m->arena, &h->m->names, h->over, h->pred, h->npred), "");
}

char *lopt_indexmap_padding(const lopt_indexmap *h)
{
    API_PROTECTED((lopt_context *)NULL, char *, NULL, lopt_indexmap_padding_body(h));
}

static int lopt_indexmap_apply_body(lopt_context *ctx, const lopt_indexmap *h, const int64_t *index, int64_t *out)
{
    API_NEED(ctx, ctx, -1);
    API_NEED(ctx, h, -1);
    API_NEED(ctx, index, -1);
    API_NEED(ctx, out, -1);
    for (int i = 0; i < h->im->nin; i++)
        if (index[i] < 0 || index[i] >= h->im->box[i])
            return api_fail(ctx, "index %lld of '%s' is outside its extent %lld", (long long)index[i],
                            h->im->in_names[i]->str, (long long)h->im->box[i]);
    im_apply(h->im, index, out);
    return 0;
}

int lopt_indexmap_apply(lopt_context *ctx, const lopt_indexmap *h, const int64_t *index, int64_t *out)
{
    API_PROTECTED(ctx, int, -1, lopt_indexmap_apply_body(ctx, h, index, out));
}
