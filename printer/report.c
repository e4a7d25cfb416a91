/* The HTML report of a pipeline: what the pass manager recorded (report.h),
 * written as one page that needs nothing outside itself. Every text from
 * the module goes through html(); the page's script and style are constant
 * and read no data but the page's own elements. Graphviz lays out the
 * graphs (printer/dot.c writes them); without it the page says so. */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dot.h"
#include "print.h"
#include "../ir/oom.h"

extern char **environ;

enum {
    CONTEXT = 3,          /* unchanged lines shown around a change */
    LONG_LINE = 320,      /* characters of a line shown before "more" (constants run to megabytes) */
    OPEN_LINES = 400,     /* a module view longer than this starts collapsed */
    OPEN_NOTES = 60,      /* so does a longer list of --explain lines */
    OPEN_GRAPH = 80,      /* and the graph of a function of more nodes */
    MAX_GRAPH = 1200,     /* a graph of more nodes is not laid out (a chain of 2000 takes dot 18 s) */
    DOT_SECONDS = 25,     /* dot's time for all of a page's graphs, so that the page is written within 30 s */
};

static char *dup_str(const char *s)
{
    char *d = xstrdup(s);
    if (!d)
        oom_fail();
    return d;
}

static void *grow(void *p, size_t n, size_t size)
{
    void *g = xrealloc(p, n * size + 1);
    if (!g)
        oom_fail();
    return g;
}

/* ---- recording ---- */

static char *mark_key(const PrintMark *k)
{
    const char *f = k->func ? k->func->name->str : "";
    size_t n = strlen(f) + (k->var ? strlen(k->var->name->str) + 1 : 0) + 1;
    char *s = xmalloc(n);
    if (!s)
        oom_fail();
    if (k->var)
        snprintf(s, n, "%s.%s", f, k->var->name->str);
    else
        snprintf(s, n, "%s", f);
    return s;
}

void report_text(ReportText *t, const Module *m)
{
    PrintMarks pm = { NULL, 0, 0 };
    FILE *f = xopen_memstream(&t->text, &t->len);
    if (!f)
        oom_fail();
    print_module_marked(f, m, &pm);
    if (fclose(f) != 0)
        oom_fail();
    t->marks = xmalloc((size_t)pm.n * sizeof *t->marks + 1);
    if (!t->marks)
        oom_fail();
    size_t at = 0;
    int line = 0;
    for (int i = 0; i < pm.n; i++) {
        for (; at < pm.v[i].offset && at < t->len; at++)
            line += t->text[at] == '\n';
        t->marks[i] = (ReportMark){ line, pm.v[i].loc, mark_key(&pm.v[i]) };
    }
    t->nmarks = pm.n;
    free(pm.v);
    t->rewrites = dot_rewrites(m, &t->bytes);
}

static void text_free(ReportText *t)
{
    for (int i = 0; i < t->nmarks; i++)
        free(t->marks[i].key);
    free(t->marks);
    free(t->text);
    memset(t, 0, sizeof *t);
}

static char *func_dot(const Func *fn)
{
    char *s = NULL;
    size_t n;
    FILE *f = xopen_memstream(&s, &n);
    if (!f)
        oom_fail();
    print_dot_func(f, fn, DOT_BRIEF);
    if (fclose(f) != 0)
        oom_fail();
    return s;
}

void report_input(Report *r, const Module *m, const char *source)
{
    r->source = dup_str(source);
    report_text(&r->input, m);
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_RELAX) {
            r->graphs = grow(r->graphs, (size_t)r->ngraphs + 1, sizeof *r->graphs);
            r->graphs[r->ngraphs++] = (ReportGraph){ dup_str(m->funcs[i]->name->str), func_dot(m->funcs[i]), NULL, NULL, 0 };
        }
    report_graphs_after(r, m);
}

void report_graphs_after(Report *r, const Module *m)
{
    for (int g = 0; g < r->ngraphs; g++) {
        free(r->graphs[g].after);
        r->graphs[g].after = NULL;
    }
    for (int i = 0; i < m->nfuncs; i++) {
        const Func *fn = m->funcs[i];
        if (fn->kind != F_RELAX)
            continue;
        int g = 0;
        while (g < r->ngraphs && strcmp(r->graphs[g].func, fn->name->str) != 0)
            g++;
        if (g == r->ngraphs) {
            r->graphs = grow(r->graphs, (size_t)r->ngraphs + 1, sizeof *r->graphs);
            r->graphs[r->ngraphs++] = (ReportGraph){ dup_str(fn->name->str), NULL, NULL, NULL, 0 };
        }
        r->graphs[g].after = func_dot(fn);
    }
    for (int g = 0; g < r->ngraphs; g++) {
        ReportGraph *G = &r->graphs[g];
        G->at = grow(G->at, (size_t)r->n + 1, sizeof *G->at);
        while (G->nat <= r->n)
            G->at[G->nat++] = NULL;
        free(G->at[r->n]);
        G->at[r->n] = G->after ? dup_str(G->after) : NULL;
    }
}

ReportStep *report_step(Report *r, const char *name)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->steps = grow(r->steps, (size_t)r->cap, sizeof *r->steps);
    }
    ReportStep *s = &r->steps[r->n++];
    memset(s, 0, sizeof *s);
    s->name = dup_str(name);
    return s;
}

const ReportText *report_last(const Report *r)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (r->steps[i].mod.text)
            return &r->steps[i].mod;
    return &r->input;
}

void report_free(Report *r)
{
    for (int i = 0; i < r->n; i++) {
        ReportStep *s = &r->steps[i];
        free(s->name);
        text_free(&s->mod);
        free(s->ops);
        free(s->explain);
        free(s->diags);
    }
    free(r->steps);
    for (int g = 0; g < r->ngraphs; g++) {
        free(r->graphs[g].func);
        free(r->graphs[g].before);
        free(r->graphs[g].after);
        for (int k = 0; k < r->graphs[g].nat; k++)
            free(r->graphs[g].at[k]);
        free(r->graphs[g].at);
    }
    free(r->graphs);
    text_free(&r->input);
    free(r->source);
    memset(r, 0, sizeof *r);
}

/* ---- what the writer looks up ---- */

typedef struct Line {
    const char *p;
    size_t n;
    int mark;             /* the ReportMark of this line, or -1 */
    int first;            /* the first line of its key in the text (it carries the id) */
} Line;

/* A text split into lines, with its keys sorted for look-up. */
typedef struct View {
    const ReportText *t;
    Line *lines;
    int n;
    const ReportMark **by_key;
} View;

/* One --explain line: of step (1-based), at loc (line 0: no place), about key. */
typedef struct Note {
    int step;
    Loc loc;
    const char *key;
    const char *text;
    size_t len;
} Note;

typedef struct W {
    FILE *out;
    const Report *r;
    View *views;          /* 0: the input; k: after step k (t NULL when the pass failed) */
    Note *notes;
    int nnotes;
    const char **note_keys;   /* the notes' keys, sorted */
    int nkeys;
    const ReportMark **by_loc;   /* the input's marks, by source location */
    int dot_missing;
    int graphs;           /* SVGs drawn so far */
    double dot_budget;    /* seconds for all of the page's graphs: DOT_SECONDS, or LOPT_DOT_SECONDS */
    double dot_left;      /* of which not yet spent */
} W;

static int mark_key_cmp(const void *a, const void *b)
{
    const ReportMark *const *x = a, *const *y = b;
    int c = strcmp((*x)->key, (*y)->key);
    return c ? c : (*x)->line - (*y)->line;
}

static int key_mark_cmp(const void *k, const void *m)
{
    return strcmp(k, (*(const ReportMark *const *)m)->key);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first line of text that prints key, or -1. */
static int view_find(const View *v, const char *key)
{
    if (!v->t || !key)
        return -1;
    const ReportMark **m = bsearch(key, v->by_key, (size_t)v->t->nmarks, sizeof *v->by_key, key_mark_cmp);
    if (!m)
        return -1;
    while (m > v->by_key && strcmp(m[-1]->key, key) == 0)
        m--;
    return (*m)->line;
}

static void view_open(View *v, const ReportText *t)
{
    memset(v, 0, sizeof *v);
    if (!t || !t->text)
        return;
    v->t = t;
    int n = 0;
    for (size_t i = 0; i < t->len; i++)
        n += t->text[i] == '\n';
    if (t->len && t->text[t->len - 1] != '\n')
        n++;
    v->lines = xmalloc((size_t)n * sizeof *v->lines + 1);
    v->by_key = xmalloc((size_t)t->nmarks * sizeof *v->by_key + 1);
    if (!v->lines || !v->by_key)
        oom_fail();
    const char *p = t->text, *end = t->text + t->len;
    for (int i = 0; i < n; i++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        v->lines[i] = (Line){ p, (size_t)(e - p), -1, 0 };
        p = e + 1;
    }
    v->n = n;
    for (int i = 0; i < t->nmarks; i++) {
        v->by_key[i] = &t->marks[i];
        if (t->marks[i].line < n && v->lines[t->marks[i].line].mark < 0)
            v->lines[t->marks[i].line].mark = i;
    }
    qsort(v->by_key, (size_t)t->nmarks, sizeof *v->by_key, mark_key_cmp);
    for (int i = 0; i < t->nmarks; i++)
        if ((i == 0 || strcmp(v->by_key[i - 1]->key, v->by_key[i]->key) != 0) && v->by_key[i]->line < n)
            v->lines[v->by_key[i]->line].first = 1;
}

static int loc_cmp(const void *a, const void *b)
{
    const ReportMark *const *x = a, *const *y = b;
    if ((*x)->loc.line != (*y)->loc.line)
        return (*x)->loc.line < (*y)->loc.line ? -1 : 1;
    if ((*x)->loc.col != (*y)->loc.col)
        return (*x)->loc.col < (*y)->loc.col ? -1 : 1;
    return (*x)->line - (*y)->line;
}

/* The key of the input's function or binding at loc (by_loc: the input's
 * marks sorted by loc): the one written there, else the first on its line. */
static const char *input_key(const ReportMark *const *by_loc, int n, Loc loc)
{
    int lo = 0, hi = n;
    while (lo < hi) {   /* the first mark at or after the line's start */
        int mid = (lo + hi) / 2;
        if (by_loc[mid]->loc.line < loc.line)
            lo = mid + 1;
        else
            hi = mid;
    }
    const char *first = lo < n && by_loc[lo]->loc.line == loc.line ? by_loc[lo]->key : NULL;
    for (int i = lo; i < n && by_loc[i]->loc.line == loc.line; i++)
        if (by_loc[i]->loc.col == loc.col)
            return by_loc[i]->key;
    return first;
}

/* Parses step k's --explain text: "SOURCE:L:C: PASS: text" or "SOURCE: PASS: text". */
static void read_notes(W *w, int k, const char *pass)
{
    const ReportStep *s = &w->r->steps[k - 1];
    const char *p = s->explain, *end = p ? p + s->explain_len : NULL;
    size_t src = strlen(w->r->source), np = strlen(pass);
    while (p && p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        Note n = { k, { 0, 0 }, NULL, p, (size_t)(e - p) };
        const char *q = p;
        if ((size_t)(e - q) > src && memcmp(q, w->r->source, src) == 0 && q[src] == ':') {
            q += src + 1;
            char *after;
            long line = strtol(q, &after, 10);
            if (after > q && *after == ':') {
                long col = strtol(after + 1, &after, 10);
                if (*after == ':' && line > 0 && col > 0 && line < (1L << 30) && col < (1L << 30)) {
                    n.loc = (Loc){ (int)line, (int)col };
                    q = after + 1;
                }
            }
            while (q < e && *q == ' ')
                q++;
            if ((size_t)(e - q) > np + 1 && memcmp(q, pass, np) == 0 && q[np] == ':')
                for (q += np + 1; q < e && *q == ' ';)
                    q++;
            n.text = q;
            n.len = (size_t)(e - q);
        }
        if (n.loc.line)
            n.key = input_key(w->by_loc, w->r->input.nmarks, n.loc);
        w->notes = grow(w->notes, (size_t)w->nnotes + 1, sizeof *w->notes);
        w->notes[w->nnotes++] = n;
        p = e + 1;
    }
}

/* The number of notes about key. */
static int notes_about(const W *w, const char *key)
{
    const char **k = bsearch(&key, w->note_keys, (size_t)w->nkeys, sizeof *w->note_keys, str_cmp);
    if (!k)
        return 0;
    const char **a = k, **b = k;
    while (a > w->note_keys && strcmp(a[-1], key) == 0)
        a--;
    while (b + 1 < w->note_keys + w->nkeys && strcmp(b[1], key) == 0)
        b++;
    return (int)(b - a) + 1;
}

/* ---- writing ---- */

/* Text as HTML (in an element or a quoted attribute): every character that
 * could end either escaped. */
static void html(FILE *out, const char *s, size_t n)
{
    const char *run = s;
    for (const char *p = s; p < s + n; p++) {
        const char *ent;
        switch (*p) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        case '\0': ent = "\xef\xbf\xbd"; break;
        default: continue;
        }
        fwrite(run, 1, (size_t)(p - run), out);
        fputs(ent, out);
        run = p + 1;
    }
    fwrite(run, 1, (size_t)(s + n - run), out);
}

static void html_str(FILE *out, const char *s)
{
    html(out, s, strlen(s));
}

static void bytes_text(FILE *out, long long b)
{
    if (b >= 1024 * 1024)
        fprintf(out, "%.1f MiB", (double)b / (1024 * 1024));
    else if (b >= 10 * 1024)
        fprintf(out, "%.1f KiB", (double)b / 1024);
    else
        fprintf(out, "%lld B", b);
}

/* One line of a module view: kind ' ' (kept), '+' (added) or '-' (removed). */
static void write_line(W *w, int k, const View *v, int i, int number, char kind)
{
    FILE *out = w->out;
    const Line *l = &v->lines[i];
    const char *key = l->mark >= 0 ? v->t->marks[l->mark].key : NULL;
    fprintf(out, "<div class=\"l%s%s\"", kind == '+' ? " a" : kind == '-' ? " d" : "", l->n > LONG_LINE ? " long" : "");
    if (key && kind != '-' && l->first) {
        fprintf(out, " id=\"s%d:", k);
        html_str(out, key);
        fputc('"', out);
    }
    if (key) {
        fputs(" data-b=\"", out);
        html_str(out, key);
        fputc('"', out);
    }
    fprintf(out, "><span class=\"n\">%d</span>", number + 1);
    size_t shown = l->n;
    if (shown > LONG_LINE) {
        shown = LONG_LINE;
        while (shown > 0 && ((unsigned char)l->p[shown] & 0xc0) == 0x80)
            shown--;   /* not inside a UTF-8 sequence */
    }
    html(out, l->p, shown);
    if (shown < l->n) {
        fputs("<span class=\"more\">", out);
        html(out, l->p + shown, l->n - shown);
        fprintf(out, "</span><button type=\"button\" class=\"mb\">&#8230; %zu more characters</button>", l->n - shown);
    }
    int notes = key ? notes_about(w, key) : 0;
    if (notes)
        fprintf(out, "<span class=\"k\" title=\"--explain lines about this binding: click the line\">%d</span>",
                notes);
    fputs("</div>\n", out);
}

/* Lines [from, to) of v, all kept. */
static void write_lines(W *w, int k, const View *v, int from, int to)
{
    for (int i = from; i < to; i++)
        write_line(w, k, v, i, i, ' ');
}

static void fold_begin(FILE *out, int n)
{
    fprintf(out, "<details class=\"fold\"><summary>%d unchanged line%s</summary>\n", n, n == 1 ? "" : "s");
}

/* Step k's module as a diff against the one before: changes with CONTEXT
 * kept lines around them, longer runs of kept lines folded. */
static void write_diff(W *w, int k, const View *a, const View *b, const char *ops, size_t nops)
{
    FILE *out = w->out;
    int ai = 0, bi = 0;
    size_t i = 0;
    while (i < nops) {
        if (ops[i] != '=') {
            if (ops[i] == '-')
                write_line(w, k, a, ai, ai, '-'), ai++;
            else
                write_line(w, k, b, bi, bi, '+'), bi++;
            i++;
            continue;
        }
        size_t e = i;
        while (e < nops && ops[e] == '=')
            e++;
        int run = (int)(e - i), lead = i ? CONTEXT : 0, trail = e < nops ? CONTEXT : 0;
        if (run > lead + trail + 2) {
            write_lines(w, k, b, bi, bi + lead);
            fold_begin(out, run - lead - trail);
            write_lines(w, k, b, bi + lead, bi + run - trail);
            fputs("</details>\n", out);
            write_lines(w, k, b, bi + run - trail, bi + run);
        } else {
            write_lines(w, k, b, bi, bi + run);
        }
        ai += run;
        bi += run;
        i = e;
    }
}

static void write_module(W *w, int k, const char *what)
{
    FILE *out = w->out;
    const View *v = &w->views[k];
    const ReportStep *s = k ? &w->r->steps[k - 1] : NULL;
    int added = 0, removed = 0;
    for (size_t i = 0; s && i < s->nops; i++) {
        added += s->ops[i] == '+';
        removed += s->ops[i] == '-';
    }
    fprintf(out, "<details class=\"module\"%s><summary>%s (%d line%s", v->n <= OPEN_LINES ? " open" : "", what,
            v->n, v->n == 1 ? "" : "s");
    if (s)
        fprintf(out, "; %d added, %d removed", added, removed);
    fputs(")</summary>\n<div class=\"code\">\n", out);
    if (!s) {
        write_lines(w, k, v, 0, v->n);
    } else if (!added && !removed) {
        fputs("<p class=\"same\">no change</p>\n", out);
        fold_begin(out, v->n);
        write_lines(w, k, v, 0, v->n);
        fputs("</details>\n", out);
    } else {
        const View *a = &w->views[k - 1];
        write_diff(w, k, a, v, s->ops, s->nops);
    }
    fputs("</div>\n</details>\n", out);
}

/* The view a note of step k about key links to: the latest module up to
 * step k's that prints key. */
static int note_target(const W *w, int k, const char *key)
{
    for (; k >= 0; k--)
        if (view_find(&w->views[k], key) >= 0)
            return k;
    return -1;
}

static void write_notes(W *w, int k)
{
    FILE *out = w->out;
    int n = 0;
    for (int i = 0; i < w->nnotes; i++)
        n += w->notes[i].step == k;
    if (!n)
        return;
    fprintf(out, "<details class=\"notes\"%s><summary>--explain: %d line%s</summary>\n", n <= OPEN_NOTES ? " open" : "",
            n, n == 1 ? "" : "s");
    for (int i = 0; i < w->nnotes; i++) {
        const Note *x = &w->notes[i];
        if (x->step != k)
            continue;
        int at = x->key ? note_target(w, k, x->key) : -1;
        fputs(x->loc.line ? "<div class=\"x\"" : "<div class=\"x t\"", out);   /* t: the pass's table */
        if (x->key) {
            fputs(" data-b=\"", out);
            html_str(out, x->key);
            fputc('"', out);
        }
        fputc('>', out);
        if (at >= 0) {
            /* the binding's name: the input module is shown as printed, not as written */
            const char *dot = strchr(x->key, '.');
            fprintf(out, "<a href=\"#s%d:", at);
            html_str(out, x->key);
            fprintf(out, "\" title=\"%s, input line %d, column %d\">", at == k ? "in this module" :
                    at ? "in an earlier module" : "in the input module", x->loc.line, x->loc.col);
            html_str(out, dot ? dot + 1 : x->key);
            fputs("</a> ", out);
        } else if (x->loc.line) {
            fprintf(out, "<span class=\"loc\">%d:%d</span> ", x->loc.line, x->loc.col);
        }
        html(out, x->text, x->len);
        fputs("</div>\n", out);
    }
    fputs("</details>\n", out);
}

static void write_step(W *w, int k)
{
    FILE *out = w->out;
    const ReportStep *s = &w->r->steps[k - 1];
    fprintf(out, "<section class=\"step\" id=\"s%d\" data-title=\"%d. ", k, k);
    html_str(out, s->name);
    fprintf(out, "\">\n<h2>%d. ", k);
    html_str(out, s->name);
    fprintf(out, " <small>%.3f ms</small></h2>\n", s->seconds * 1e3);
    if (s->diags_len) {
        fputs("<pre class=\"diag\">", out);
        html(out, s->diags, s->diags_len);
        fputs("</pre>\n", out);
    }
    write_notes(w, k);
    if (s->mod.text) {
        char what[64];
        snprintf(what, sizeof what, "the module after pass %d", k);
        write_module(w, k, what);
    } else {
        fputs("<p class=\"bad\">The pass failed; the pipeline stopped here.</p>\n", out);
    }
    fputs("</section>\n", out);
}

static const char *const status_text[] = {
    [STEP_OK] = "", [STEP_PASS_FAILED] = "the pass failed", [STEP_VERIFY_FAILED] = "the module does not verify",
    [STEP_CHECK_FAILED] = "",
};

/* The first line of the step's diagnostics, without "lopt: error: ". */
static void first_diag(FILE *out, const ReportStep *s)
{
    const char *p = s->diags, *e = p ? memchr(p, '\n', s->diags_len) : NULL;
    if (!p)
        return;
    if (!e)
        e = p + s->diags_len;
    if ((size_t)(e - p) > 13 && memcmp(p, "lopt: error: ", 13) == 0)
        p += 13;
    fputs(": ", out);
    html(out, p, (size_t)(e - p));
}

/* What --verify-exec (PassCtx.after_pass) said of step s, in its summary row. */
static void check_cell(FILE *out, const ReportStep *s)
{
    if (s->status == STEP_CHECK_FAILED) {
        fputs("<span class=\"bad\">failed</span>", out);
        first_diag(out, s);
    } else if (s->status != STEP_OK) {
        fprintf(out, "<span class=\"bad\">%s</span>", status_text[s->status]);
        first_diag(out, s);
    } else if (s->checked) {
        fputs("<span class=\"good\">same outputs</span>", out);
        if (s->check[0]) {
            fputs(": ", out);
            html_str(out, s->check);
        }
        fprintf(out, " (%.3f ms)", s->check_seconds * 1e3);
    } else {
        fputs("not run", out);
    }
}

static void summary_row(W *w, int k)
{
    FILE *out = w->out;
    const ReportStep *s = &w->r->steps[k - 1];
    int added = 0, removed = 0, notes = 0;
    for (size_t i = 0; i < s->nops; i++) {
        added += s->ops[i] == '+';
        removed += s->ops[i] == '-';
    }
    for (int i = 0; i < w->nnotes; i++)
        notes += w->notes[i].step == k;
    fprintf(out, "<tr class=\"%s\"><td>%d</td><td><a href=\"#s%d\">", s->status ? "bad" : "ok", k, k);
    html_str(out, s->name);
    fprintf(out, "</a></td><td>%.3f ms</td>", s->seconds * 1e3);
    if (s->mod.text) {
        fprintf(out, "<td>%d</td><td>", s->mod.rewrites);
        bytes_text(out, s->mod.bytes);
        fprintf(out, "</td><td>+%d &#8722;%d</td>", added, removed);
    } else {
        fputs("<td></td><td></td><td></td>", out);
    }
    fprintf(out, "<td>%d</td><td>", notes);
    check_cell(out, s);
    fputs("</td></tr>\n", out);
}

/* The summary's first paragraph: passes, total time, rewrites before and after, the outcome. */
static void summary_headline(W *w)
{
    FILE *out = w->out;
    const Report *r = w->r;
    double total = 0;
    int checked = 0, failed = -1;
    for (int k = 1; k <= r->n; k++) {
        total += r->steps[k - 1].seconds;
        checked += r->steps[k - 1].checked;
        if (r->steps[k - 1].status != STEP_OK && failed < 0)
            failed = k;
    }
    const ReportText *last = report_last(r);
    fprintf(out, "<p>%d pass%s in %.3f ms. Layout rewrites: %d (", r->n, r->n == 1 ? "" : "es", total * 1e3,
            r->input.rewrites);
    bytes_text(out, r->input.bytes);
    fprintf(out, ") before, %d (", last->rewrites);
    bytes_text(out, last->bytes);
    fputs(") after. ", out);
    if (failed > 0)
        fprintf(out, "<span class=\"bad\">The pipeline stopped at pass %d.</span>", failed);
    else if (checked)
        fputs("--verify-exec: the outputs of main stayed the same after every pass.", out);
    else
        fputs("--verify-exec did not run.", out);
    fputs("</p>\n", out);
}

static void write_summary(W *w)
{
    FILE *out = w->out;
    const Report *r = w->r;
    fputs("<section id=\"summary\"><h2>Summary</h2>\n", out);
    summary_headline(w);
    fputs("<table class=\"sum\"><thead><tr><th>#</th><th>pass</th><th>time</th><th>rewrites</th>"
          "<th>bytes rewritten</th><th>lines</th><th>--explain</th><th>--verify-exec</th></tr></thead><tbody>\n", out);
    fprintf(out, "<tr><td>0</td><td><a href=\"#s0\">input</a></td><td></td><td>%d</td><td>", r->input.rewrites);
    bytes_text(out, r->input.bytes);
    fprintf(out, "</td><td>%d</td><td></td><td></td></tr>\n", w->views[0].n);
    for (int k = 1; k <= r->n; k++)
        summary_row(w, k);
    fputs("</tbody></table>\n</section>\n", out);
}

/* DOT_SECONDS, or the positive number of seconds LOPT_DOT_SECONDS gives. */
static double dot_budget(void)
{
    const char *s = getenv("LOPT_DOT_SECONDS");
    char *end;
    double v = s && *s ? strtod(s, &end) : 0;
    return s && *s && !*end && v > 0 && v <= 86400 ? v : DOT_SECONDS;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs Graphviz on a graph; returns the SVG (malloc'd), or NULL, with
 * *missing set when the program could not be started at all. The SVG's
 * element ids start with id (Graphviz prefixes the graph's id; set last,
 * so that the clusters do not take it too), so that the page's graphs do
 * not share ids. *slow is set when dot was stopped after *left seconds;
 * the time it took is taken from *left. */
static char *run_dot(const char *graph, const char *id, int *missing, int *slow, double *left)
{
    const char *dot = getenv("LOPT_DOT"), *tmp = getenv("TMPDIR");
    char in[4096], outp[4096];
    if (!dot || !*dot)
        dot = "dot";
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(in, sizeof in, "%s/lopt-report-XXXXXX", tmp);
    snprintf(outp, sizeof outp, "%s/lopt-report-XXXXXX", tmp);
    int fi = mkstemp(in), fo = fi < 0 ? -1 : mkstemp(outp);
    char *svg = NULL;
    if (fo < 0)
        goto done;
    const char *end = strrchr(graph, '}');
    size_t len = end ? (size_t)(end - graph) : strlen(graph);
    char tail[64];
    int nt = snprintf(tail, sizeof tail, "  id=\"%s\";\n}\n", id);
    if (write(fi, graph, len) != (ssize_t)len || write(fi, tail, (size_t)nt) != nt || lseek(fi, 0, SEEK_SET) != 0)
        goto done;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fi, 0);
    posix_spawn_file_actions_adddup2(&fa, fo, 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = { (char *)dot, (char *)"-Tsvg", NULL };
    pid_t pid;
#ifdef __EMSCRIPTEN__
    /* WebAssembly starts no programs: the page lays out graphs itself */
    int rc = ENOSYS, st = 0;
    pid = 0;
    (void)argv;
#else
    int rc = posix_spawnp(&pid, dot, &fa, NULL, argv, environ), st = 0;
#endif
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        *missing = 1;
        goto done;
    }
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    double start = now();
    for (pid_t got = 0; got == 0 || (got < 0 && errno == EINTR);) {
        got = waitpid(pid, &st, WNOHANG);
        if (got == 0 && now() - start >= *left) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            *slow = 1;
            *left = 0;
            goto done;
        }
        if (got == 0)
            nanosleep(&tick, NULL);
    }
    *left -= now() - start;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        *missing = WIFEXITED(st) && WEXITSTATUS(st) == 127;
        goto done;
    }
    off_t n = lseek(fo, 0, SEEK_END);
    if (n <= 0 || lseek(fo, 0, SEEK_SET) != 0 || !(svg = xmalloc((size_t)n + 1)))
        goto done;
    if (read(fo, svg, (size_t)n) != (ssize_t)n) {
        free(svg);
        svg = NULL;
        goto done;
    }
    svg[n] = 0;
done:
    if (fi >= 0) {
        close(fi);
        unlink(in);
    }
    if (fo >= 0) {
        close(fo);
        unlink(outp);
    }
    return svg;
}

/* The nodes of a graph print_dot_func wrote: the lines with a label and no edge. */
static int graph_nodes(const char *graph)
{
    int n = 0, label = 0, edge = 0;
    for (const char *p = graph; p && *p; p++) {
        if (*p == '\n') {
            n += label && !edge;
            label = edge = 0;
        }
        label |= strncmp(p, " [label=", 8) == 0;
        edge |= !label && strncmp(p, " -> ", 4) == 0;
    }
    return n;
}

/* The buttons of a group of graphs drawn at one scale (class zg: the
 * element after the bar); the page's script sets the scale. */
static const char zoom_bar[] =
    "<div class=\"zbar\"><button type=\"button\" class=\"z\" data-d=\"-1\" title=\"smaller\">&#8722;</button>"
    "<button type=\"button\" class=\"z\" data-d=\"1\" title=\"larger\">+</button>"
    "<button type=\"button\" class=\"z\" data-d=\"0\" title=\"the default size\">reset</button>"
    "<button type=\"button\" class=\"z\" data-d=\"2\" title=\"shrink to the width (labels may get small)\">fit"
    "</button><span class=\"zl\"></span> drag a graph to pan it; Ctrl+wheel zooms</div>\n";

/* svg (from "<svg") with the ids Graphviz gave it, from its id "g<from>"
 * (its elements' "g<from>_..." and their links' "a_g<from>_..."), made
 * to start with "g<to>". */
static void svg_renamed(FILE *out, const char *svg, int from, int to)
{
    char old[32];
    int n = snprintf(old, sizeof old, "g%d", from);
    for (const char *p = svg; *p;) {
        const char *q = strstr(p, old);
        if (!q) {
            fputs(p, out);
            break;
        }
        int is_id = (q[n] == '"' || q[n] == '_') && ((q - svg >= 4 && memcmp(q - 4, "id=\"", 4) == 0) ||
                                                     (q - svg >= 6 && memcmp(q - 6, "id=\"a_", 6) == 0));
        fwrite(p, 1, (size_t)(q - p), out);
        if (is_id)
            fprintf(out, "g%d", to);
        else
            fwrite(q, 1, (size_t)n, out);
        p = q + n;
    }
}

/* A graph laid out into the page (the div of its SVG), or the line that
 * says why it is not. keep: the SVG is kept there (with its id number in
 * *keep_id) for the page to show again. */
static void draw_svg(W *w, const char *graph, int k, char **keep, int *keep_id)
{
    FILE *out = w->out;
    int nodes = graph_nodes(graph);
    if (nodes > MAX_GRAPH) {
        fprintf(out, "<p class=\"bad\">not drawn: %d nodes, more than the %d Graphviz lays out in a report (lopt "
                "--emit=dot writes the graph)</p>", nodes, MAX_GRAPH);
        return;
    }
    char id[32];
    if (keep_id)
        *keep_id = w->graphs;
    snprintf(id, sizeof id, "g%d", w->graphs++);
    int slow = 0;
    if (w->dot_left <= 0 && !w->dot_missing) {
        fprintf(out, "<p class=\"bad\">not drawn: the page's %g s for Graphviz went to the graphs above (lopt "
                "--emit=dot writes this one)</p>", w->dot_budget);
        return;
    }
    char *svg = w->dot_missing ? NULL : run_dot(graph, id, &w->dot_missing, &slow, &w->dot_left);
    const char *start = svg ? strstr(svg, "<svg") : NULL;
    if (start) {
        fprintf(out, "<div class=\"svg\" data-s=\"%d\">", k);
        fputs(start, out);
        fputs("</div>", out);
    } else {
        if (slow)
            fprintf(out, "<p class=\"bad\">not drawn: Graphviz did not finish within what was left of the page's %g s "
                    "for graphs (lopt --emit=dot writes this one)</p>", w->dot_budget);
        else
            fputs(w->dot_missing ? "<p class=\"bad\">not drawn: Graphviz is not installed</p>" :
                  "<p class=\"bad\">not drawn: Graphviz's dot failed on this graph</p>", out);
    }
    if (keep && start)
        *keep = svg;
    else
        free(svg);
}

static void write_svg(W *w, const char *graph, int k, const char *what, char **keep, int *keep_id)
{
    FILE *out = w->out;
    fprintf(out, "<figure><figcaption>%s</figcaption>", what);
    if (graph)
        draw_svg(w, graph, k, keep, keep_id);
    else
        fputs("<p class=\"same\">not in this module</p>", out);
    fputs("</figure>\n", out);
}

/* ---- the graph after each pass, marked against the one before ---- */

/* A node line of a graph print_dot_func wrote ("ID" [...];) or an edge line
 * ("A" -> "B" ...;), keyed by its quoted id or its two. */
typedef struct GLine {
    const char *p;        /* the line, without its newline */
    size_t n;
    size_t key;           /* the key: the first key bytes of the line */
    int edge;
    int pair;             /* the matching line of the other graph, or -1 */
} GLine;

static int gline_parse(const char *p, size_t n, GLine *l)
{
    if (n < 8 || memcmp(p, "    \"", 5) != 0)
        return 0;
    const char *q = memchr(p + 5, '"', n - 5);
    if (!q)
        return 0;
    q++;
    *l = (GLine){ p, n, 0, 0, -1 };
    size_t rest = (size_t)(p + n - q);
    if (rest > 5 && memcmp(q, " -> \"", 5) == 0) {
        const char *e = memchr(q + 5, '"', rest - 5);
        if (!e)
            return 0;
        q = e + 1;
        l->edge = 1;
    }
    l->key = (size_t)(q - p);
    return 1;
}

/* The node and edge lines of a graph, in their order. */
static GLine *glines(const char *g, int *n)
{
    GLine *v = NULL;
    int k = 0;
    for (const char *p = g; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        GLine l;
        if (gline_parse(p, len, &l)) {
            v = grow(v, (size_t)k + 1, sizeof *v);
            v[k++] = l;
        }
        p += len + (e != NULL);
    }
    *n = k;
    return v;
}

static int gline_cmp(const void *a, const void *b)
{
    const GLine *x = *(const GLine *const *)a, *y = *(const GLine *const *)b;
    size_t n = x->key < y->key ? x->key : y->key;
    int c = memcmp(x->p, y->p, n);
    if (c || x->key != y->key)
        return c ? c : x->key < y->key ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;   /* repeated edges pair in their order */
}

/* Pairs the lines of a and b of one key (sorted merge): sets each pair's index. */
static void gline_pair(GLine *a, int na, GLine *b, int nb)
{
    GLine **sa = xmalloc((size_t)na * sizeof *sa + 1), **sb = xmalloc((size_t)nb * sizeof *sb + 1);
    if (!sa || !sb)
        oom_fail();
    for (int i = 0; i < na; i++)
        sa[i] = &a[i];
    for (int i = 0; i < nb; i++)
        sb[i] = &b[i];
    qsort(sa, (size_t)na, sizeof *sa, gline_cmp);
    qsort(sb, (size_t)nb, sizeof *sb, gline_cmp);
    for (int i = 0, j = 0; i < na && j < nb;) {
        size_t n = sa[i]->key < sb[j]->key ? sa[i]->key : sb[j]->key;
        int c = memcmp(sa[i]->p, sb[j]->p, n);
        c = c ? c : sa[i]->key == sb[j]->key ? 0 : sa[i]->key < sb[j]->key ? -1 : 1;
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            sa[i]->pair = (int)(sb[j] - b);
            sb[j]->pair = (int)(sa[i] - a);
            i++, j++;
        }
    }
    free(sa);
    free(sb);
}

/* What a pass changed in a graph: nodes and edges added, removed, changed. */
typedef struct GDiff {
    int add[2], del[2], chg[2];   /* [0] nodes, [1] edges */
} GDiff;

/* A cost a pass's --explain lines put on a node ("a rewrite of x from ...: N bytes"). */
typedef struct Cost {
    char key[160];        /* the node's id, func.var */
    long long bytes;
    char text[96];        /* or, when not empty, choose-layout's choice and its candidates' costs */
} Cost;

static const char *const mark_attrs[3][2] = {
    { "class=\"add\"", "class=\"add\", color=\"#1a7f37\", fontcolor=\"#1a7f37\", penwidth=2.5" },
    { "class=\"chg\"", "class=\"chg\", color=\"#bf8700\", fontcolor=\"#9a6700\", penwidth=2.5" },
    { "class=\"del\", style=dashed, color=\"#8c959f\", fontcolor=\"#8c959f\", penwidth=1",
      "class=\"del\", style=dashed, color=\"#8c959f\", fontcolor=\"#8c959f\"" },
};

/* A graph line with attrs added (NULL: none) and the costs of its node added
 * to its label. */
static void gline_write(FILE *out, const GLine *l, const char *attrs, const Cost *cost, int ncost)
{
    const char *p = l->p, *end = l->p + l->n;
    const char *label = l->edge ? NULL : strstr(p, " [label=\"");
    if (label && label < end) {
        const char *q = label + 9;
        while (q < end && *q != '"')
            q += *q == '\\' ? 2 : 1;
        if (q < end) {
            fwrite(p, 1, (size_t)(q - p), out);
            for (int i = 0; i < ncost; i++)
                if (strlen(cost[i].key) == l->key - 6 && memcmp(cost[i].key, l->p + 5, l->key - 6) == 0) {
                    if (cost[i].text[0]) {
                        fprintf(out, "\\n%s", cost[i].text);
                        continue;
                    }
                    fputs("\\ncost ", out);
                    bytes_text(out, cost[i].bytes);
                }
            p = q;
        }
    }
    if (!attrs) {
        fwrite(p, 1, (size_t)(end - p), out);
    } else if (l->n >= 2 && end[-2] == ']' && end[-1] == ';') {
        fwrite(p, 1, (size_t)(end - 2 - p), out);
        fprintf(out, ", %s];", attrs);
    } else {
        fwrite(p, 1, (size_t)(end - p > 0 && end[-1] == ';' ? end - 1 - p : end - p), out);
        fprintf(out, " [%s];", attrs);
    }
    fputc('\n', out);
}

/* Graph cur marked against prev: its nodes and edges that prev lacks (add)
 * or draws otherwise (chg), and prev's that it lacks drawn dashed and grey
 * (del); costs on their nodes' labels. Returns the graph (malloc'd). */
static char *mark_graph(const char *prev, const char *cur, const Cost *cost, int ncost, GDiff *d)
{
    int na = 0, nb = 0;
    GLine *a = prev ? glines(prev, &na) : NULL, *b = glines(cur, &nb);
    gline_pair(a, na, b, nb);
    memset(d, 0, sizeof *d);
    char *s = NULL;
    size_t len;
    FILE *out = xopen_memstream(&s, &len);
    if (!out)
        oom_fail();
    const char *close = strstr(cur, "\n  }\n");
    int j = 0;
    for (const char *p = cur; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (close && p == close + 1) {   /* the cluster's end: prev's lines cur lacks go before it */
            for (int pass = 0; pass < 2; pass++)
                for (int i = 0; i < na; i++)
                    if (a[i].pair < 0 && a[i].edge == pass) {
                        gline_write(out, &a[i], mark_attrs[2][pass], NULL, 0);
                        d->del[pass]++;
                    }
        }
        if (j < nb && b[j].p == p) {
            const GLine *l = &b[j++];
            int m = !prev ? -1 : l->pair < 0 ? 0 : a[l->pair].n != l->n || memcmp(a[l->pair].p, l->p, l->n) ? 1 : -1;
            if (m == 0)
                d->add[l->edge]++;
            else if (m == 1)
                d->chg[l->edge]++;
            gline_write(out, l, m >= 0 ? mark_attrs[m][l->edge] : NULL, cost, ncost);
        } else {
            fwrite(p, 1, n, out);
            fputc('\n', out);
        }
        p += n + (e != NULL);
    }
    if (fclose(out) != 0)
        oom_fail();
    free(a);
    free(b);
    return s;
}

/* choose-layout's "chose L for v, WORKLOAD: L1 50us given, ... (as written: L1)"
 * as a label line, "chose L: L1 50us, ...", kept to what a label may hold
 * unescaped and cut to fit. Whether t is such a line. */
static int choice_cost(const char *t, size_t len, Cost *c)
{
    const char *end = t + len, *cands = NULL;
    if (len < 12 || memcmp(t, "chose ", 6) != 0)
        return 0;
    const char *lay = t + 6, *sp = memchr(lay, ' ', len - 6);
    for (const char *q = sp; q && q + 2 < end && !cands; q++)
        if (q[0] == ')' && q[1] == ':' && q[2] == ' ')
            cands = q + 3;
    if (!sp || !cands)
        return 0;
    int n = snprintf(c->text, sizeof c->text, "chose %.*s: ", (int)(sp - lay), lay);
    if (n < 0 || (size_t)n >= sizeof c->text)
        return 0;
    for (const char *q = cands; q < end && *q != '(' && (size_t)n + 1 < sizeof c->text; q++)
        c->text[n++] = isalnum((unsigned char)*q) || (*q && strchr(" ,:._", *q)) ? *q : ' ';
    while (n > 0 && c->text[n - 1] == ' ')
        n--;
    c->text[n] = 0;
    return 1;
}

/* The costs step k's --explain lines give rewrites of the values of function
 * fn, and the layouts choose-layout chose for them. */
static int step_costs(const W *w, int k, const char *fn, Cost *cost, int max)
{
    int n = 0;
    size_t nf = strlen(fn);
    for (int i = 0; i < w->nnotes && n < max; i++) {
        const Note *x = &w->notes[i];
        if (x->step != k || !x->key || strncmp(x->key, fn, nf) != 0 || (x->key[nf] && x->key[nf] != '.'))
            continue;
        const char *t = x->text, *end = x->text + x->len;
        if (choice_cost(t, x->len, &cost[n])) {
            const char *v = memchr(t, ' ', x->len);
            v = v ? memchr(v + 1, ' ', (size_t)(end - v - 1)) : NULL;   /* "chose L for v," */
            const char *comma = v && v + 5 < end ? memchr(v + 5, ',', (size_t)(end - v - 5)) : NULL;
            if (comma && memcmp(v, " for ", 5) == 0 && (size_t)(comma - v - 5) + nf + 2 <= sizeof cost->key) {
                snprintf(cost[n].key, sizeof cost[n].key, "%s.%.*s", fn, (int)(comma - v - 5), v + 5);
                n++;
            }
            continue;
        }
        cost[n].text[0] = 0;
        if (x->len < 20 || memcmp(t, "a rewrite of ", 13) != 0 || memcmp(end - 6, " bytes", 6) != 0)
            continue;
        const char *name = t + 13, *sp = memchr(name, ' ', (size_t)(end - name));
        const char *num = end - 6;
        while (num > name && num[-1] >= '0' && num[-1] <= '9')
            num--;
        if (!sp || num == end - 6 || num[-1] != ' ' || (size_t)(sp - name) + nf + 2 > sizeof cost->key)
            continue;
        snprintf(cost[n].key, sizeof cost[n].key, "%s.%.*s", fn, (int)(sp - name), name);
        cost[n++].bytes = strtoll(num, NULL, 10);
    }
    return n;
}

static void diff_count(FILE *out, const char *what, int add, int del, int chg)
{
    fprintf(out, "%s: <span class=\"ga\">+%d</span> <span class=\"gd\">&#8722;%d</span> "
            "<span class=\"gc\">~%d</span>", what, add, del, chg);
}

enum { MAX_COSTS = 256 };

/* Function G's graph as the input and after each step, one slide each,
 * each marked against the one before. */
static void write_deck(W *w, const ReportGraph *G, const char *input_svg, int input_id)
{
    FILE *out = w->out;
    const Report *r = w->r;
    int nodes = graph_nodes(G->after ? G->after : G->before);
    fprintf(out, "<details class=\"graph\"%s><summary>", nodes <= OPEN_GRAPH ? " open" : "");
    html_str(out, G->func);
    fprintf(out, " after each pass (%d slides)</summary>\n%s<div class=\"deck zg\" data-f=\"", G->nat, zoom_bar);
    html_str(out, G->func);
    fputs("\">\n<div class=\"dnav\"><button type=\"button\" class=\"dp\" title=\"the graph before (left arrow)\">"
          "&#9664;</button> <button type=\"button\" class=\"dn\" title=\"the graph after (right arrow)\">&#9654;"
          "</button> <span class=\"dt\"></span></div>\n", out);
    Cost *cost = xmalloc(MAX_COSTS * sizeof *cost);
    if (!cost)
        oom_fail();
    for (int k = 0; k < G->nat; k++) {
        fprintf(out, "<figure class=\"slide\" data-k=\"%d\"><figcaption>", k);
        if (k) {
            fprintf(out, "%d. after ", k);
            html_str(out, r->steps[k - 1].name);
        } else {
            fputs("0. the input", out);
        }
        fputs("</figcaption>", out);
        const char *g = G->at[k], *prev = k ? G->at[k - 1] : NULL;
        int ncost = g && k ? step_costs(w, k, G->func, cost, MAX_COSTS) : 0;
        if (!g) {
            fputs(k && !r->steps[k - 1].mod.text ? "<p class=\"bad\">the pass failed: no graph after it</p>" :
                  "<p class=\"same\">not in this module</p>", out);
        } else if (!k && input_svg) {   /* the input's graph, drawn above: shown again, not laid out again */
            fprintf(out, "<div class=\"svg\" data-s=\"0\">");
            svg_renamed(out, strstr(input_svg, "<svg"), input_id, w->graphs++);
            fputs("</div>", out);
        } else if (prev && strcmp(prev, g) == 0 && !ncost) {
            fputs("<p class=\"same dsum\">the pass did not change this graph</p>", out);
        } else {
            GDiff d;
            char *marked = mark_graph(prev, g, cost, ncost, &d);
            if (k) {
                fputs("<p class=\"dsum\">", out);
                diff_count(out, "nodes", d.add[0], d.del[0], d.chg[0]);
                fputs("; ", out);
                diff_count(out, "edges", d.add[1], d.del[1], d.chg[1]);
                if (ncost)
                    fprintf(out, "; %d cost%s on the nodes", ncost, ncost == 1 ? "" : "s");
                fputs("</p>", out);
            }
            draw_svg(w, marked, k, NULL, NULL);
            free(marked);
        }
        fputs("</figure>\n", out);
    }
    free(cost);
    fputs("</div>\n</details>\n", out);
}

static void write_graphs(W *w)
{
    FILE *out = w->out;
    const Report *r = w->r;
    fputs("<section id=\"graphs\"><h2>Graphs</h2>\n", out);
    fputs("<p>Each Relax function before and after the pipeline, laid out by Graphviz: layout rewrites are green "
          "boxes labelled with their map and the bytes they write, frozen calls orange, values filled by layout "
          "(the legend's notes) and outlined by texture scope. Click a node to see its binding.</p>\n", out);
    int missing_said = 0, last = r->n;
    while (last > 0 && !r->steps[last - 1].mod.text)
        last--;
    char **kept = xcalloc((size_t)r->ngraphs + 1, sizeof *kept);   /* the input's SVGs, for the slides */
    int *kept_id = xcalloc((size_t)r->ngraphs + 1, sizeof *kept_id);
    if (!kept || !kept_id)
        oom_fail();
    for (int g = 0; g < r->ngraphs; g++) {
        const ReportGraph *G = &r->graphs[g];
        int nodes = graph_nodes(G->after ? G->after : G->before);
        fprintf(out, "<details class=\"graph\"%s><summary>", nodes <= OPEN_GRAPH ? " open" : "");
        html_str(out, G->func);
        fprintf(out, " (%d nodes after)</summary>\n%s<div class=\"pair zg\">\n", nodes, zoom_bar);
        write_svg(w, G->before, 0, "before", &kept[g], &kept_id[g]);
        write_svg(w, G->after, last, "after", NULL, NULL);
        fputs("</div>\n</details>\n", out);
        if (w->dot_missing && !missing_said) {
            fputs("<p class=\"bad\" id=\"nodot\">Graphviz's dot (or the program LOPT_DOT names) could not be run, so "
                  "the graphs are not drawn; install graphviz to see them. The rest of the report is complete.</p>\n",
                  out);
            missing_said = 1;
        }
    }
    if (!r->ngraphs)
        fputs("<p>The module has no Relax function.</p>\n", out);
    if (r->ngraphs && r->n) {
        /* drawn after the input's and the result's, with what is left of dot's time: main's first */
        fputs("<h3 id=\"passes\">After each pass</h3>\n<p>Each function's graph as the input and after each pass, "
              "one slide each (the buttons, or the left and right arrow keys, step through them): what the pass "
              "added glows <span class=\"ga\">green</span>, what it changed <span class=\"gc\">orange</span>, and "
              "what it removed is drawn <span class=\"gd\">dashed and grey</span>; the costs a pass's --explain "
              "lines give a rewrite, and choose-layout's choice for a call, are on the node they concern.</p>\n", out);
        for (int g = 0; g < r->ngraphs; g++)
            if (strcmp(r->graphs[g].func, "main") == 0)
                write_deck(w, &r->graphs[g], kept[g], kept_id[g]);
        for (int g = 0; g < r->ngraphs; g++)
            if (strcmp(r->graphs[g].func, "main") != 0)
                write_deck(w, &r->graphs[g], kept[g], kept_id[g]);
    }
    for (int g = 0; g < r->ngraphs; g++)
        free(kept[g]);
    free(kept);
    free(kept_id);
    fputs("</section>\n", out);
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}"
    "header{position:sticky;top:0;z-index:5;background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:6px 16px}"
    "header h1{font-size:17px;margin:0 12px 0 0;display:inline}"
    "header .src{font-family:monospace}"
    "header input{width:18em;margin-left:12px}"
    "#results{max-height:40vh;overflow:auto;font-family:monospace;font-size:12px}"
    "#results div{cursor:pointer;padding:1px 4px}#results div:hover{background:#ddf4ff}"
    "main{padding:0 16px 40vh}"
    "nav a{margin-right:10px}"
    "h2{font-size:16px;border-bottom:1px solid #d0d7de;padding-bottom:3px;margin-top:26px}"
    "h2 small{color:#59636e;font-weight:normal}"
    "table.sum{border-collapse:collapse}table.sum td,table.sum th{border:1px solid #d0d7de;padding:2px 8px;"
    "text-align:left}table.sum td:nth-child(n+3):nth-child(-n+7){text-align:right}"
    ".bad{color:#cf222e}.good{color:#1a7f37}.same{color:#59636e;margin:2px 0}"
    "summary{cursor:pointer;color:#0550ae}"
    ".code{font:12px/1.45 monospace;border:1px solid #d0d7de;overflow-x:auto}"
    ".l{white-space:pre;padding-right:8px;cursor:default}.l[data-b]{cursor:pointer}"
    ".l .n{display:inline-block;width:4.5em;color:#8c959f;text-align:right;padding-right:1em;user-select:none}"
    ".l.a{background:#dafbe1}.l.d{background:#ffebe9}.l.a .n::after{content:'+'}.l.d .n::after{content:'-'}"
    ".l:target,.l.hit{background:#fff8c5;outline:1px solid #d4a72c}"
    ".l .k{background:#0969da;color:#fff;border-radius:8px;padding:0 5px;margin-left:8px;font-size:10px}"
    ".l.long{white-space:pre-wrap;word-break:break-all}.more{display:none}.l.open .more{display:inline}.l.open .mb{display:none}"
    ".mb{font-size:10px;margin-left:4px;padding:0 4px}"
    "details.fold{background:#f6f8fa}details.fold>summary{font-style:italic;padding-left:5.5em;color:#59636e}"
    ".notes .x{font:12px/1.5 monospace;white-space:pre-wrap}.x.t{color:#59636e}"
    ".x a,.loc{display:inline-block;min-width:5em}"
    "pre.diag{background:#ffebe9;padding:6px;white-space:pre-wrap}"
    ".pair{display:flex;gap:12px;align-items:flex-start}"
    "figure{margin:0;flex:1;min-width:0}figcaption{font-weight:bold}"
    ".svg{max-height:80vh;overflow:auto;border:1px solid #d0d7de;cursor:grab}.svg svg{display:block}"
    ".zbar{font-size:12px;color:#59636e;margin:4px 0}.zbar button{min-width:2.2em;margin-right:3px}"
    ".svg g.node.add{filter:drop-shadow(0 0 3px #1a7f37) drop-shadow(0 0 2px #1a7f37)}"
    ".svg g.node.chg{filter:drop-shadow(0 0 3px #bf8700) drop-shadow(0 0 2px #bf8700)}"
    ".ga{color:#1a7f37;font-weight:bold}.gc{color:#9a6700;font-weight:bold}.gd{color:#6e7781;font-weight:bold}"
    ".dnav{margin:4px 0}.dnav button{min-width:3em}.dt{font-weight:bold;margin-left:6px}.dsum{margin:2px 0}"
    ".zl{display:inline-block;min-width:4em;font-variant-numeric:tabular-nums}"
    ".svg g.node{cursor:pointer}"
    "#pop{position:fixed;right:12px;bottom:12px;width:46em;max-width:90vw;max-height:45vh;overflow:auto;"
    "background:#fff;border:1px solid #8c959f;box-shadow:0 4px 12px #0003;padding:6px 10px;display:none;z-index:9}"
    "#pop.on{display:block}#pop h3{font-size:13px;margin:2px 0 6px}#pop .x{font:12px/1.5 monospace}";

/* Constant: it reads only the page's elements and their data-b keys. */
static const char script[] =
    "(function(){\n"
    "function openTo(el){for(var p=el.parentElement;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;}\n"
    "var lit=null;\n"
    "function show(el){openTo(el);if(lit)lit.classList.remove('hit');lit=el;el.classList.add('hit');"
    "el.scrollIntoView({block:'center'});}\n"

    "var pop=document.getElementById('pop');\n"
    "function notes(key){pop.textContent='';var h=document.createElement('h3');"
    "var xs=[].filter.call(document.querySelectorAll('.x[data-b]'),function(x){return x.dataset.b===key;});"
    "h.textContent=xs.length+' --explain line'+(xs.length===1?'':'s')+' about '+key+' (Esc closes)';"
    "pop.appendChild(h);xs.forEach(function(x){var c=x.cloneNode(true);"
    "var sec=x.closest('section');var t=document.createElement('span');"
    "t.textContent=(sec?sec.dataset.title:'')+': ';c.insertBefore(t,c.firstChild);pop.appendChild(c);});"
    "pop.classList.add('on');}\n"
    "document.addEventListener('keydown',function(e){if(e.key==='Escape')pop.classList.remove('on');});\n"
    /* the slides of a function's graph after each pass: the arrow keys step the deck last clicked, or the first in view */
    "var deck=null,decks=[].slice.call(document.querySelectorAll('.deck'));\n"
    "function slide(d,k){var s=d.querySelectorAll('.slide');if(!s.length)return;"
    "k=Math.max(0,Math.min(s.length-1,k||0));d.dataset.k=k;"
    "[].forEach.call(s,function(x,i){x.hidden=i!==k;});"
    "var b=s[k].querySelector('.svg');if(b&&!b.dataset.c){b.dataset.c=1;b.scrollLeft=(b.scrollWidth-b.clientWidth)/2;}"
    "d.querySelector('.dt').textContent=(k+1)+' of '+s.length+': '+s[k].querySelector('figcaption').textContent;}\n"
    "decks.forEach(function(d){slide(d,0);});\n"
    "function inView(d){var r=d.getBoundingClientRect();return r.height>0&&r.bottom>0&&r.top<innerHeight;}\n"
    "document.addEventListener('keydown',function(e){if(e.key!=='ArrowLeft'&&e.key!=='ArrowRight')return;"
    "var t=e.target;if(t&&(t.tagName==='INPUT'||t.tagName==='TEXTAREA'))return;"
    "var d=deck&&inView(deck)?deck:decks.filter(inView)[0];if(!d)return;e.preventDefault();"
    "slide(d,+d.dataset.k+(e.key==='ArrowRight'?1:-1));});\n"
    "document.addEventListener('click',function(e){var t=e.target;"
    "if(t.classList&&t.classList.contains('mb')){t.parentElement.classList.add('open');return;}"
    "var dk=t.closest('.deck');if(dk){deck=dk;if(t.closest('.dp')){slide(dk,+dk.dataset.k-1);return;}"
    "if(t.closest('.dn')){slide(dk,+dk.dataset.k+1);return;}}"
    "if(t.classList&&t.classList.contains('z')){zoomBy(t.parentElement.nextElementSibling,+t.dataset.d);return;}"
    "if(!t.closest('#pop'))pop.classList.remove('on');"
    "if(t.closest('a'))return;var l=t.closest('.l[data-b]');if(l){if(lit)lit.classList.remove('hit');"
    "lit=l;l.classList.add('hit');notes(l.dataset.b);return;}"
    "var g=t.closest('g.node');var box=t.closest('.svg');if(g&&box){var ti=g.querySelector('title');"
    "var el=ti&&document.getElementById('s'+box.dataset.s+':'+ti.textContent);if(el)show(el);}});\n"
    /* the graphs of a group (.zg) at one scale: Graphviz's points times z in CSS pixels,
     * its 14 pt labels 14 px high at the default z */
    "var Z0=0.75;\n"
    "function setZ(g,z){z=Math.max(0.1,Math.min(4,z));g.dataset.z=z;"
    "[].forEach.call(g.querySelectorAll('.svg>svg'),function(v){"
    "var w=parseFloat(v.getAttribute('width')),h=parseFloat(v.getAttribute('height'));"
    "if(w>0&&h>0){v.style.width=(w*4/3*z)+'px';v.style.height=(h*4/3*z)+'px';}});"
    "var l=g.previousElementSibling&&g.previousElementSibling.querySelector('.zl');"
    "if(l)l.textContent=Math.round(z/Z0*100)+'%';}\n"
    "function zoomBy(g,d){if(!g)return;var z=+g.dataset.z||Z0;if(d===0)z=Z0;else if(d===2){var m=0;"
    "[].forEach.call(g.querySelectorAll('.svg'),function(b){var v=b.firstElementChild;"
    "var w=v&&parseFloat(v.getAttribute('width'))*4/3;if(w>0&&b.clientWidth>0)"
    "m=Math.max(m,w/(b.clientWidth-4));});if(m>0)z=1/m;}else z*=d>0?1.25:0.8;setZ(g,z);}\n"
    "[].forEach.call(document.querySelectorAll('.zg'),function(g){setZ(g,Z0);"
    "[].forEach.call(g.querySelectorAll('.svg'),function(b){b.scrollLeft=(b.scrollWidth-b.clientWidth)/2;});});\n"
    "var drag=null;\n"
    "document.addEventListener('mousedown',function(e){var b=e.target.closest&&e.target.closest('.svg');"
    "if(b&&e.button===0&&!e.target.closest('g.node')){drag={b:b,x:e.clientX,y:e.clientY,l:b.scrollLeft,"
    "t:b.scrollTop};e.preventDefault();}});\n"
    "document.addEventListener('mousemove',function(e){if(drag){drag.b.scrollLeft=drag.l-(e.clientX-drag.x);"
    "drag.b.scrollTop=drag.t-(e.clientY-drag.y);}});\n"
    "document.addEventListener('mouseup',function(){drag=null;});\n"
    "document.addEventListener('wheel',function(e){var b=e.ctrlKey&&e.target.closest&&e.target.closest('.svg');"
    "var g=b&&b.closest('.zg');if(g){e.preventDefault();zoomBy(g,e.deltaY<0?1:-1);}},{passive:false});\n"
    "var q=document.getElementById('q'),res=document.getElementById('results');\n"
    "var lines=[].slice.call(document.querySelectorAll('.l[data-b]:not(.d)'));\n"
    "function find(){var s=q.value.trim().toLowerCase();res.textContent='';if(!s)return;var n=0;"
    "for(var i=0;i<lines.length&&n<200;i++){var l=lines[i];if(l.dataset.b.toLowerCase().indexOf(s)<0)continue;"
    "n++;var d=document.createElement('div');var sec=l.closest('section');"
    "d.textContent=l.dataset.b+'  ('+(sec?sec.dataset.title:'')+', line '+l.firstChild.textContent+')';"
    "d.onclick=(function(x){return function(){show(x);};})(l);res.appendChild(d);}"
    "if(!n)res.textContent='no binding named so';}\n"
    "q.addEventListener('input',find);\n"
    "q.addEventListener('keydown',function(e){if(e.key==='Enter'&&res.firstChild&&res.firstChild.onclick)"
    "res.firstChild.onclick();});\n"
    /* #s2:main.lv2 shows a binding, #find=lv2 searches, #notes=main.lv2 lists its explanations */
    "function go(){var id=decodeURIComponent(location.hash.slice(1));"
    "if(id.indexOf('find=')===0){q.value=id.slice(5);find();return;}"
    "if(id.indexOf('notes=')===0){notes(id.slice(6));return;}"
    "var el=id&&document.getElementById(id);if(el)show(el);}\n"
    "window.addEventListener('hashchange',go);go();\n"
    "function all(open){[].forEach.call(document.querySelectorAll('details'),function(d){d.open=open;});}\n"
    "document.getElementById('expand').onclick=function(){all(true);};\n"
    "document.getElementById('collapse').onclick=function(){all(false);};\n"
    "})();\n";

/* Splits the texts into lines and sorts what the writer looks up. */
static void w_open(W *w)
{
    const Report *r = w->r;
    w->views = xmalloc(((size_t)r->n + 1) * sizeof *w->views);
    w->by_loc = xmalloc((size_t)r->input.nmarks * sizeof *w->by_loc + 1);
    if (!w->views || !w->by_loc)
        oom_fail();
    for (int i = 0; i < r->input.nmarks; i++)
        w->by_loc[i] = &r->input.marks[i];
    qsort(w->by_loc, (size_t)r->input.nmarks, sizeof *w->by_loc, loc_cmp);
    view_open(&w->views[0], &r->input);
    for (int k = 1; k <= r->n; k++) {
        view_open(&w->views[k], &r->steps[k - 1].mod);
        const char *name = r->steps[k - 1].name;
        char pass[128];
        snprintf(pass, sizeof pass, "%.*s", (int)strcspn(name, "{"), name);
        read_notes(w, k, pass);
    }
    w->note_keys = xmalloc((size_t)w->nnotes * sizeof *w->note_keys + 1);
    if (!w->note_keys)
        oom_fail();
    for (int i = 0; i < w->nnotes; i++)
        if (w->notes[i].key)
            w->note_keys[w->nkeys++] = w->notes[i].key;
    qsort(w->note_keys, (size_t)w->nkeys, sizeof *w->note_keys, str_cmp);
}

static void w_close(W *w)
{
    for (int k = 0; k <= w->r->n; k++) {
        free(w->views[k].lines);
        free(w->views[k].by_key);
    }
    free(w->views);
    free(w->by_loc);
    free(w->notes);
    free(w->note_keys);
}

/* The head, and the header that stays at the top: the search box and the sections. */
static void write_head(W *w)
{
    FILE *out = w->out;
    const Report *r = w->r;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width\">\n<title>lopt report: ", out);
    html_str(out, r->source);
    fprintf(out, "</title>\n<style>%s</style>\n</head><body>\n<header><h1>lopt report</h1><span class=\"src\">", style);
    html_str(out, r->source);
    fputs("</span> <input id=\"q\" type=\"search\" placeholder=\"find a binding (main.lv2, lv2)\" "
          "aria-label=\"find a binding\"> <button id=\"expand\" type=\"button\">expand all</button> "
          "<button id=\"collapse\" type=\"button\">collapse all</button>\n<nav><a href=\"#summary\">summary</a>"
          "<a href=\"#graphs\">graphs</a><a href=\"#s0\">input</a>", out);
    for (int k = 1; k <= r->n; k++) {
        fprintf(out, "<a href=\"#s%d\">%d. ", k, k);
        html(out, r->steps[k - 1].name, strcspn(r->steps[k - 1].name, "{"));
        fputs("</a>", out);
    }
    fputs("</nav><div id=\"results\"></div></header>\n", out);
}

int report_write(const Report *r, FILE *out)
{
    W w = { out, r, NULL, NULL, 0, NULL, 0, NULL, 0, 0, dot_budget(), 0 };
    w.dot_left = w.dot_budget;
    w_open(&w);
    write_head(&w);
    fputs("<main>\n<p class=\"same\">pipeline: <code>", out);
    for (int k = 1; k <= r->n; k++) {
        if (k > 1)
            fputc(',', out);
        html_str(out, r->steps[k - 1].name);
    }
    fputs(r->n ? "</code></p>\n" : "(none)</code></p>\n", out);
    write_summary(&w);
    write_graphs(&w);
    fputs("<section class=\"step\" id=\"s0\" data-title=\"input\">\n<h2>0. the input module</h2>\n", out);
    write_module(&w, 0, "the input module");
    fputs("</section>\n", out);
    for (int k = 1; k <= r->n; k++)
        write_step(&w, k);
    fprintf(out, "</main>\n<div id=\"pop\" role=\"dialog\"></div>\n<script>\n%s</script>\n</body></html>\n", script);
    w_close(&w);
    return ferror(out) ? -1 : 0;
}
