/* Formats diagnostics with the offending source line and a caret under the
 * column, as C compilers do. */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

enum { SHOW_WIDTH = 120 };   /* longer lines show a window around the caret */

/* The length of the valid UTF-8 character at p (before end), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    int n = *p >= 0xF0 && *p <= 0xF4 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 && *p < 0xE0 ? 2 : 0;
    if (n == 0 || end - p < n)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* One shown character of a source line: its bytes, and how wide it shows
 * (a byte that is not text shows as \xNN). */
static int unit_len(const unsigned char *p, const unsigned char *end, int *width)
{
    int n = *p >= 0x80 ? utf8_len(p, end) : 0;
    if (n) {
        *width = 1;
        return n;
    }
    *width = *p == '\t' || (*p >= 0x20 && *p < 0x7F) ? 1 : 4;
    return 1;
}

static void put_unit(FILE *out, const unsigned char *p, int n, int width)
{
    if (width == 4)
        fprintf(out, "\\x%02X", *p);
    else
        fwrite(p, 1, (size_t)n, out);
}

static void show_line(Source *src, Loc loc)
{
    if (!src->text || loc.line <= 0)
        return;
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    const unsigned char *b = (const unsigned char *)p, *le = (const unsigned char *)e;
    const unsigned char *at = b + (loc.col > 1 ? loc.col - 1 : 0);
    if (at > le)
        at = le;
    /* the display columns of the line, and of the caret */
    long total = 0, caret = -1;
    for (const unsigned char *q = b; q < le;) {
        int w, n = unit_len(q, le, &w);
        if (caret < 0 && q + n > at)
            caret = total;
        total += w;
        q += n;
    }
    if (caret < 0)
        caret = total;
    long lo = 0, hi = total;
    if (total > SHOW_WIDTH) {
        lo = caret - SHOW_WIDTH / 2 > 0 ? caret - SHOW_WIDTH / 2 : 0;
        hi = lo + SHOW_WIDTH < total ? lo + SHOW_WIDTH : total;
        if (hi - lo < SHOW_WIDTH)
            lo = hi - SHOW_WIDTH;
    }
    /* the text between display columns lo and hi, then the caret line */
    long col = 0, shown = lo > 0 ? 3 : 0;
    fputs(lo > 0 ? "..." : "", src->out);
    for (const unsigned char *q = b; q < le;) {
        int w, n = unit_len(q, le, &w);
        if (col >= lo && col + w <= hi)
            put_unit(src->out, q, n, w);
        col += w;
        q += n;
    }
    fputs(hi < total ? "...\n" : "\n", src->out);
    col = 0;
    for (int i = 0; i < shown; i++)
        fputc(' ', src->out);
    for (const unsigned char *q = b; q < le && col < caret;) {
        int w, n = unit_len(q, le, &w);
        if (col >= lo)
            for (int i = 0; i < w; i++)
                fputc(*q == '\t' ? '\t' : ' ', src->out);
        col += w;
        q += n;
    }
    fputs(src->color ? "\033[1;32m^\033[0m\n" : "^\n", src->out);
}

/* The text of line `line` of src, its length in *len; NULL when there is none. */
static const char *line_text(const Source *src, int line, size_t *len)
{
    if (!src->text || line <= 0)
        return NULL;
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    *len = (size_t)(e - p);
    return p;
}

static void report(Source *src, Loc loc, const char *kind, const char *fmt, va_list ap)
{
    if (src->sink) {
        char msg[2048];
        va_list aq;
        va_copy(aq, ap);
        vsnprintf(msg, sizeof msg, fmt, aq);
        va_end(aq);
        Diag d = { src->name, loc, kind, msg, NULL, 0 };
        if (loc.line > 0)
            d.line = line_text(src, loc.line, &d.line_len);
        src->sink(src->sink_data, &d);
    }
    if (!src->out)
        return;
    /* as compilers colour them: the place bold, the kind in its colour */
    const char *on = "", *k = "", *off = "";
    if (src->color) {
        on = "\033[1m";
        k = kind[0] == 'e' ? "\033[1;31m" : kind[0] == 'w' ? "\033[1;35m" : "\033[1;36m";
        off = "\033[0m";
    }
    if (loc.line > 0)
        fprintf(src->out, "%s%s:%d:%d: %s%s:%s%s ", on, src->name, loc.line, loc.col, k, kind, off, on);
    else
        fprintf(src->out, "%s%s: %s%s:%s%s ", on, src->name, k, kind, off, on);
    vfprintf(src->out, fmt, ap);
    fputs(off, src->out);
    fputc('\n', src->out);
    show_line(src, loc);
}

int diag_verror(Source *src, Loc loc, const char *fmt, va_list ap)
{
    report(src, loc, "error", fmt, ap);
    src->errors++;
    return -1;
}

int diag_error(Source *src, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(src, loc, fmt, ap);
    va_end(ap);
    return -1;
}

void diag_note(Source *src, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(src, loc, "note", fmt, ap);
    va_end(ap);
}

int diag_warning(Source *src, int strict, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (strict)
        diag_verror(src, loc, fmt, ap);
    else
        report(src, loc, "warning", fmt, ap);
    va_end(ap);
    return strict ? -1 : 0;
}
