/* Formats diagnostics with the offending source line and a caret under the
 * column, as C compilers do. */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

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
    fprintf(src->out, "%.*s\n", (int)(e - p), p);
    for (int c = 1; c < loc.col && p + c - 1 < e; c++)
        fputc(p[c - 1] == '\t' ? '\t' : ' ', src->out);
    fputs("^\n", src->out);
}

static void report(Source *src, Loc loc, const char *kind, const char *fmt, va_list ap)
{
    if (loc.line > 0)
        fprintf(src->out, "%s:%d:%d: %s: ", src->name, loc.line, loc.col, kind);
    else
        fprintf(src->out, "%s: %s: ", src->name, kind);
    vfprintf(src->out, fmt, ap);
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

int diag_warning(Source *src, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (src->strict)
        diag_verror(src, loc, fmt, ap);
    else
        report(src, loc, "warning", fmt, ap);
    va_end(ap);
    return src->strict ? -1 : 0;
}
