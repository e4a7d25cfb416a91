/* The lexer (re2c): Python-style tokens with INDENT/DEDENT computed from
 * leading spaces outside brackets, every token carrying its line:column.
 * Errors are reported here and handed to the parser as YYerror. */
#define _DEFAULT_SOURCE   /* madvise */
#include "lexer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../ir/elem.h"
#include "../ir/ops.h"
#include "parser.h"
#include "../ir/oom.h"

/* The bytes the arena may take still while the rest of the input is read,
 * at the rate the part read took them (Arena.expect); as good as unbounded
 * before the first 64 kB. */
size_t lex_expect(const void *data)
{
    const Lexer *lx = data;
    size_t done = (size_t)(lx->cur - (const unsigned char *)lx->src->text), left = (size_t)(lx->lim - lx->cur);
    if (done < 65536)
        return SIZE_MAX;
    return (size_t)((double)left * ((double)lx->arena->used / (double)done));
}

void lexer_init(Lexer *lx, Source *src, Arena *a, Interner *names)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->arena = a;
    lx->names = names;
    lx->cur = (const unsigned char *)src->text;
    lx->lim = lx->cur + src->len;
    /* a UTF-8 byte-order mark, as some editors start a file with */
    if (src->len >= 3 && lx->cur[0] == 0xef && lx->cur[1] == 0xbb && lx->cur[2] == 0xbf)
        lx->cur += 3;
    lx->line_start = lx->cur;
    lx->line = 1;
    lx->nindents = 1;
    lx->at_bol = 1;
    /* A binding of a large module takes some 60 to 100 bytes and defines a
     * name: sized ahead, the table is not rehashed as it fills. */
    intern_reserve(names, src->len / 64);
    lx->const_name = intern_cstr(names, "R.const");
    lx->tensor_name = intern_cstr(names, "R.Tensor");
    lx->kept = lx->cur;
}

void lexer_done(Lexer *lx)
{
    arena_free(&lx->keep);
}

static Loc here(Lexer *lx, const unsigned char *p)
{
    Loc l = { lx->line, loc_col(p - lx->line_start + 1) };
    return l;
}

static int lex_error(Lexer *lx, Loc loc, const char *fmt, ...) LOPT_PRINTF(3, 4);

static int lex_error(Lexer *lx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(lx->src, loc, fmt, ap);
    va_end(ap);
    return YYerror;
}

static void keep_header(Lexer *lx, const unsigned char *p, const unsigned char *e)
{
    static const char prefix[] = "# from tvm.script import";
    size_t n = (size_t)(e - p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r'))
        n--;
    if (lx->seen_code || n < sizeof prefix - 1 || memcmp(p, prefix, sizeof prefix - 1) != 0)
        return;
    vec_push(lx->arena, &lx->headers, &lx->nheaders, &lx->capheaders,
             arena_strndup(lx->arena, (const char *)p, n));
}

/* Whether the line at p (column 0) is a Python import, `import tvm` or
 * `from tvm.script import relax as R`, as a file pasted from Python starts
 * with: names, dots, commas and `as`, nothing else. Returns its end. */
static const unsigned char *import_line(const unsigned char *p)
{
    int from = strncmp((const char *)p, "from ", 5) == 0;
    if (!from && strncmp((const char *)p, "import ", 7) != 0)
        return NULL;
    const unsigned char *e = p;
    int seen_import = !from;
    while (*e != '\n' && *e != 0 && *e != '#') {
        if (strncmp((const char *)e, " import ", 8) == 0)
            seen_import = 1;
        unsigned char c = *e++;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == ',' || c == ' ' || c == '\r' || c == '*'))
            return NULL;
    }
    return seen_import ? e : NULL;
}

/* Skips blank and comment-only lines, then turns the indentation of the next
 * line into INDENT, DEDENTs or nothing. Returns a token, or 0 for none. */
static int indentation(Lexer *lx, YYLTYPE *loc)
{
    for (;;) {
        const unsigned char *p = lx->cur;
        while (*p == ' ')
            p++;
        int col = (int)(p - lx->cur);
        if (*p == '#') {
            const unsigned char *e = p;
            while (*e != '\n' && *e != 0)
                e++;
            if (*e == 0 && e < lx->lim)
                return lex_error(lx, here(lx, e), "NUL byte in input");
            if (col == 0)
                keep_header(lx, p, e);
            p = e;
        } else if (col == 0 && lx->nindents == 1 && import_line(p)) {
            p = import_line(p);
            while (*p != '\n' && *p != 0)
                p++;
        }
        if (*p == '\r' && p[1] == '\n')
            p++;
        if (*p == '\n') {
            lx->cur = p + 1;
            lx->line++;
            lx->line_start = lx->cur;
            continue;
        }
        lx->cur = p;
        if (*p == 0 && p >= lx->lim)
            return 0;   /* end of input: the caller closes the indentation */
        lx->at_bol = 0;
        Loc l = here(lx, p);
        loc->first_line = loc->last_line = l.line;
        loc->first_column = loc->last_column = l.col;
        if (*p == '\t' || *p == '\f')
            return lex_error(lx, l, "tab in indentation; indent with spaces");
        int top = lx->indents[lx->nindents - 1];
        if (col > top) {
            if (lx->nindents > SX_MAX_INDENT)
                return lex_error(lx, l, "too many levels of indentation (limit %d)", SX_MAX_INDENT);
            lx->indents[lx->nindents++] = col;
            return INDENT;
        }
        int n = 0;
        while (col < lx->indents[lx->nindents - 1]) {
            lx->nindents--;
            n++;
        }
        if (col != lx->indents[lx->nindents - 1])
            return lex_error(lx, l, "unindent does not match any outer indentation level");
        if (n > 0) {
            lx->pending_dedents = n - 1;
            return DEDENT;
        }
        return 0;
    }
}

static const char *lex_string(Lexer *lx, const char *p, size_t n);

static int scan_string(Lexer *lx, YYSTYPE *val, unsigned char quote)
{
    Loc start = here(lx, lx->tok);
    const unsigned char *p = lx->cur;
    int triple = p[0] == quote && p[1] == quote;
    if (triple)
        p += 2;
    size_t cap = 16, n = 0;
    char *buf = xmalloc(cap);
    if (!buf)
        oom_fail();
    for (;;) {
        unsigned char c = *p;
        if (c == quote && (!triple || (p[1] == quote && p[2] == quote)))
            break;
        if (triple && c == '\n') {
            /* a docstring's lines */
            lx->line++;
            lx->line_start = p + 1;
            lx->multi_loc = start;
            lx->multi = 1;
        } else if ((c == '\n' && !triple) || (c == '\r' && !triple) || (c == 0 && p >= lx->lim)) {
            free(buf);
            return lex_error(lx, start, "unterminated string");
        }
        if (c == '\\') {
            switch (p[1]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '0': c = 0; break;
            case '\\': case '\'': case '"': c = p[1]; break;
            default:
                if (triple) {   /* a docstring keeps what it does not escape */
                    p--;
                    break;
                }
                free(buf);
                return lex_error(lx, here(lx, p), "unknown escape sequence '\\%c' in string", p[1] >= 32 && p[1] < 127 ? p[1] : '?');
            }
            p++;
        }
        if (n + 1 >= cap) {
            cap *= 2;
            char *nb = xrealloc(buf, cap);
            if (!nb)
                oom_fail();
            buf = nb;
        }
        buf[n++] = (char)c;
        p++;
    }
    lx->cur = p + (triple ? 3 : 1);
    val->str.s = lex_string(lx, buf, n);
    val->str.len = (int)n;
    free(buf);
    return STRING;
}

static int open_bracket(Lexer *lx, char c)
{
    if (lx->depth >= LEX_MAX_BRACKETS)
        return lex_error(lx, here(lx, lx->tok), "brackets nested too deeply (limit %d)", LEX_MAX_BRACKETS);
    lx->brackets[lx->depth] = c;
    lx->bracket_locs[lx->depth] = here(lx, lx->tok);
    lx->depth++;
    return (unsigned char)c;
}

static int close_bracket(Lexer *lx, char c)
{
    char want = c == ')' ? '(' : c == ']' ? '[' : '{';
    Loc l = here(lx, lx->tok);
    if (lx->depth == 0)
        return lex_error(lx, l, "unmatched '%c'", c);
    if (lx->brackets[lx->depth - 1] != want) {
        Loc o = lx->bracket_locs[lx->depth - 1];
        diag_error(lx->src, l, "'%c' does not match '%c' opened at line %d, column %d",
                   c, lx->brackets[lx->depth - 1], o.line, o.col);
        return YYerror;
    }
    lx->depth--;
    return (unsigned char)c;
}

/* Python's integer literals: 1_000, 0xFF, 0o17, 0b101. */
static int scan_int(Lexer *lx, YYSTYPE *val)
{
    int64_t v = 0;
    int base = 10;
    const unsigned char *p = lx->tok;
    if (p[0] == '0' && p + 1 < lx->cur && ((p[1] | 32) == 'x' || (p[1] | 32) == 'o' || (p[1] | 32) == 'b')) {
        base = (p[1] | 32) == 'x' ? 16 : (p[1] | 32) == 'o' ? 8 : 2;
        p += 2;
    }
    for (; p < lx->cur; p++) {
        if (*p == '_')
            continue;
        int d = *p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10;
        if (v > (INT64_MAX - d) / base)
            return lex_error(lx, here(lx, lx->tok), "integer literal too large");
        v = v * base + d;
    }
    val->ival = v;
    return INT;
}

static int scan_float(Lexer *lx, YYSTYPE *val)
{
    char buf[128];
    size_t n = (size_t)(lx->cur - lx->tok);
    if (n >= sizeof buf)
        return lex_error(lx, here(lx, lx->tok), "number literal too long");
    memcpy(buf, lx->tok, n);
    buf[n] = 0;
    errno = 0;
    val->fval = strtod(buf, NULL);
    if (errno == ERANGE && (val->fval > 1 || val->fval < -1))
        return lex_error(lx, here(lx, lx->tok), "number literal out of range");
    return FLOAT;
}

/* ---- the list of numbers of R.const([...], "dtype") ----
 *
 * A constant of a model may hold millions of numbers. Read as tokens, each
 * would cost a syntax node and a parser step; instead, when '[' opens the
 * first argument of R.const, the lexer reads the whole list itself, straight
 * into storage of the constant's dtype (which follows the list, so a first
 * pass finds the list's end), as one CONST_DATA token. It takes only what it
 * reads exactly as the tokens would be read and lowered: plain numbers (an
 * optional '-' before them), True and False, "nan", "inf" and "-inf", in a
 * rectangular list. Anything else (a ragged list, a number out of range, an
 * expression, a comment) leaves the list to the ordinary tokens, which give
 * the error or the value. */

/* Past the pages of a mapped source the lexer has read, in steps of 256 kB
 * (now: at once), at the end of each logical line and inside a constant's
 * list: they read back from the file if a diagnostic (or a string token
 * still pointing into them) needs them again, so a large module costs its
 * IR rather than its text too, and a large constant its typed bytes. */
static void give_back(Lexer *lx, const unsigned char *p, int now)
{
    if (!lx->src->mapped || p - lx->kept < (now ? 1 : 1 << 18))
        return;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)lx->kept + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t to = (uintptr_t)p & ~((uintptr_t)page - 1);
    if (page > 0 && to > from)
        madvise((void *)from, to - from, MADV_DONTNEED);
    lx->kept = p;
}

/* The length of the UTF-8 character at p (before lim), 0 when the bytes
 * are not one: a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF, or cut short. */
static int utf8_char(const unsigned char *p, const unsigned char *lim)
{
    unsigned c = p[0], lo = 0x80, hi = 0xbf;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n == 0 || lim - p < n || p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

int lexer_check_utf8(Lexer *lx)
{
    const unsigned char *p = lx->cur, *lim = lx->lim;
    while (p < lim) {
        /* eight ASCII bytes at a time; a mapped source's pages given back as they are read */
        const unsigned char *chunk = lim - p > (1 << 18) ? p + (1 << 18) : lim;
        while (p < chunk) {
            uint64_t w;
            if (chunk - p >= 8 && (memcpy(&w, p, 8), (w & 0x8080808080808080ull) == 0)) {
                p += 8;
            } else if (*p < 0x80) {
                p++;
            } else {
                int n = utf8_char(p, lim);
                if (n == 0)
                    goto bad;
                p += n;
            }
        }
        give_back(lx, p, 0);
    }
    give_back(lx, p, 1);
    lx->kept = lx->cur;
    return 0;
bad:
    lx->kept = lx->cur;
    for (const unsigned char *q = lx->cur; q < p; q++)
        if (*q == '\n') {
            lx->line++;
            lx->line_start = q + 1;
        }
    lex_error(lx, here(lx, p), "the text is not UTF-8: byte 0x%02x %s", *p,
              *p <= 0xbf ? "continues no character" : *p < 0xc2 || *p > 0xf4 ? "starts no character"
                                                    : "starts a character the bytes after it do not complete");
    lx->line = 1;
    lx->line_start = lx->cur;
    return -1;
}

static const unsigned char *skip_blanks(Lexer *lx, const unsigned char *p)
{
    for (;;) {
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
        } else if (*p == '\n') {
            lx->line++;
            lx->line_start = ++p;
        } else {
            return p;
        }
    }
}

/* The first pass: from just after the opening '[', the end of the list (just
 * after its ']'), and its number of commas, which bounds its elements. NULL
 * when it holds a character no number is written with. */
static const unsigned char *list_end(Lexer *lx, const unsigned char *p, int64_t *commas)
{
    int depth = 1;
    int64_t n = 0;
    for (;; p++) {
        switch (*p) {
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        case ' ': case '.': case '-': case '+': case '"': case '\n': case '\r':
            break;
        case ',':
            n++;
            if ((n & 0x3fff) == 0)
                give_back(lx, p, 0);
            break;
        case '[':
            depth++;
            break;
        case ']':
            if (--depth == 0) {
                *commas = n;
                return p + 1;
            }
            break;
        default:
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                return NULL;   /* the NUL at the end of the input too */
        }
    }
}

/* The dtype after the list: `, "float32")`, `, dtype="float32")` (a comma
 * before the ')' allowed), or `)` alone for float32, R.const's default for a
 * list. -1 for anything else, left to the parser. */
static int list_dtype(const unsigned char *p, DType *dt)
{
    while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
    *dt = DT_FLOAT32;
    if (*p == ')')
        return 0;
    if (*p++ != ',')
        return -1;
    while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
    if (strncmp((const char *)p, "dtype", 5) == 0) {
        p += 5;
        while (*p == ' ')
            p++;
        if (*p++ != '=')
            return -1;
        while (*p == ' ')
            p++;
    }
    unsigned char q = *p++;
    if (q != '"' && q != '\'')
        return -1;
    char name[32];
    size_t n = 0;
    while (((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) && n + 1 < sizeof name)
        name[n++] = (char)*p++;
    name[n] = 0;
    if (*p++ != q || dtype_parse(name, dt) != 0 || *dt == DT_HANDLE || dtype_size(*dt) == 0)
        return -1;
    while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
    if (*p == ',') {
        p++;
        while (*p == ' ' || *p == '\n' || *p == '\r')
            p++;
    }
    return *p == ')' ? 0 : -1;
}

static const double powers_of_ten[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* One number as the lexer's rules read it (dec, or flt: digits with a '.'
 * or an exponent), without its sign. Returns the end, or NULL when it is not
 * one number or is one the tokens would refuse (too large, too long). A
 * float is rounded as strtod rounds it: exactly by one operation when its
 * digits and power of ten are exact doubles (the common case), else by
 * strtod itself. */
static const unsigned char *list_number(const unsigned char *p, int *is_float, int64_t *iv, double *fv)
{
    const unsigned char *s = p;
    uint64_t m = 0;
    int digits = 0, frac = 0, exact = 1, any = 0, dot = 0;
    for (;; p++) {
        if (*p == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (!is_digit(*p))
            break;
        any = 1;
        if (digits < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            digits += m != 0;
            frac += dot;
        } else {
            exact = 0;
        }
    }
    if (!any)
        return NULL;
    int64_t e = 0;
    int exp = 0;
    if (*p == 'e' || *p == 'E') {
        const unsigned char *x = p + 1;
        int neg = *x == '-';
        if (*x == '-' || *x == '+')
            x++;
        if (is_digit(*x)) {
            exp = 1;
            for (; is_digit(*x); x++)
                if (e < 100000)
                    e = e * 10 + (*x - '0');
            e = neg ? -e : e;
            p = x;
        }
    }
    if (!dot && !exp) {
        /* dec: an integer, refused past int64 as scan_int refuses it */
        int64_t v = 0;
        for (const unsigned char *q = s; q < p; q++) {
            if (v > (INT64_MAX - (*q - '0')) / 10)
                return NULL;
            v = v * 10 + (*q - '0');
        }
        *is_float = 0;
        *iv = v;
        return p;
    }
    *is_float = 1;
    if (exact && m < ((uint64_t)1 << 53) && e - frac >= -22 && e - frac <= 22) {
        int64_t k = e - frac;
        *fv = k < 0 ? (double)m / powers_of_ten[-k] : (double)m * powers_of_ten[k];
        return p;
    }
    char buf[128];
    size_t n = (size_t)(p - s);
    if (n >= sizeof buf)
        return NULL;   /* "number literal too long" */
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    *fv = strtod(buf, NULL);
    if (errno == ERANGE && (*fv > 1 || *fv < -1))
        return NULL;   /* "number literal out of range" */
    return p;
}

/* One element: a number with its sign, True or False, or "nan", "inf" or
 * "-inf", stored as element i of c the way lower.c stores a literal: a
 * float rounds to the dtype; an integer must be a value of an integer dtype.
 * Returns the end, or NULL to leave the list to the tokens. */
static const unsigned char *list_element(const unsigned char *p, SxConst *c, int64_t i)
{
    int is_float = 0;
    int64_t iv = 0;
    double fv = 0;
    if (*p == '"') {
        const unsigned char *q = p + 1;
        if (strncmp((const char *)q, "nan\"", 4) == 0)
            fv = NAN, q += 4;
        else if (strncmp((const char *)q, "inf\"", 4) == 0)
            fv = INFINITY, q += 4;
        else if (strncmp((const char *)q, "-inf\"", 5) == 0)
            fv = -INFINITY, q += 5;
        else
            return NULL;
        elem_setf(c->dtype, c->data, i, fv);
        return q;
    }
    if ((*p == 'T' && strncmp((const char *)p, "True", 4) == 0) ||
        (*p == 'F' && strncmp((const char *)p, "False", 5) == 0)) {
        iv = *p == 'T';
        p += iv ? 4 : 5;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || is_digit(*p) || *p == '_')
            return NULL;
    } else {
        int neg = *p == '-';
        if (!(p = list_number(p + neg, &is_float, &iv, &fv)))
            return NULL;
        if (is_float)
            fv = neg ? -fv : fv;
        else
            iv = neg ? -iv : iv;
    }
    if (is_float || dtype_is_float(c->dtype)) {
        elem_setf(c->dtype, c->data, i, is_float ? fv : (double)iv);
        return p;
    }
    if (!elem_int_fits(c->dtype, iv) && c->dtype != DT_BOOL)
        return NULL;   /* "N is not a value of DTYPE" */
    elem_seti(c->dtype, c->data, i, iv);
    return p;
}

/* The second pass: the elements from just after the opening '[' into c,
 * at most cap of them, checking the list is rectangular. Returns the end
 * (just after the closing ']'), or NULL. */
static const unsigned char *list_fill(Lexer *lx, const unsigned char *p, SxConst *c, int64_t cap)
{
    int64_t items[OP_MAX_RANK], n = 0;
    int depth = 1;
    c->ndim = -1;
    items[0] = 0;
    for (int d = 0; d < OP_MAX_RANK; d++)
        c->shape[d] = -1;
    for (;;) {
        p = skip_blanks(lx, p);
        if (*p == '[') {
            if (depth >= OP_MAX_RANK || (c->ndim >= 0 && depth >= c->ndim))
                return NULL;
            items[depth - 1]++;
            items[depth++] = 0;
            p++;
            continue;
        }
        if (*p != ']') {
            if ((c->ndim >= 0 && depth != c->ndim) || n >= cap)
                return NULL;
            c->ndim = depth;
            if (!(p = list_element(p, c, n++)))
                return NULL;
            if ((n & 0x3fff) == 0)
                give_back(lx, p, 0);
            items[depth - 1]++;
        } else {
            /* a list closes: not empty, and as long as the others at its depth */
            int64_t k = items[depth - 1];
            if (k == 0 || (c->shape[depth - 1] >= 0 && c->shape[depth - 1] != k))
                return NULL;
            c->shape[depth - 1] = k;
            p++;
            if (--depth == 0) {
                c->count = n;
                return p;
            }
        }
        /* after an element or a list: a comma, or the ']' of the list around it */
        p = skip_blanks(lx, p);
        if (*p == ',')
            p++;
        else if (*p != ']')
            return NULL;
    }
}

/* At the '[' that opens R.const's first argument: the CONST_DATA token, or
 * 0 with the lexer where it was, for the ordinary tokens to read the list. */
static int scan_const(Lexer *lx, YYSTYPE *val)
{
    int64_t commas;
    const unsigned char *start = lx->cur, *line_start = lx->line_start, *end;
    int line = lx->line;
    DType dt;
    Loc loc = here(lx, lx->tok);
    if (!(end = list_end(lx, start, &commas)) || list_dtype(end, &dt))
        return 0;
    give_back(lx, end, 1);
    if (lx->kept > start)
        lx->kept = start;   /* the second pass reads the list again */
    ArenaMark mark = arena_mark(lx->arena);
    SxConst *c = arena_zalloc(lx->arena, sizeof *c);
    c->dtype = dt;
    c->loc = loc;
    c->shape = arena_array(lx->arena, OP_MAX_RANK, sizeof *c->shape);
    size_t size = (size_t)dtype_size(dt);
    c->data = arena_alloc(lx->arena, (size_t)(commas + 2) * size);
    if (list_fill(lx, start, c, commas + 1) != end) {
        arena_release(lx->arena, mark);
        lx->line = line;
        lx->line_start = line_start;
        return 0;
    }
    /* the element past the end is zero, as lower.c allocates it */
    memset((char *)c->data + (size_t)c->count * size, 0, (size_t)(commas + 2 - c->count) * size);
    give_back(lx, end, 1);
    lx->cur = end;
    val->cst = c;
    return CONST_DATA;
}

/* x * 10 + d into x, or -1 when it passes INT64_MAX (x is left as it was). */
static int add_digit(int64_t *x, int d)
{
    if (*x >= INT64_MAX / 10 && (*x > INT64_MAX / 10 || d > INT64_MAX % 10))
        return -1;
    *x = *x * 10 + d;
    return 0;
}

/* ---- tuples of integers ----
 *
 * Shapes, (1, 64, 56, 56), are on nearly every line of a model. Where '('
 * opens a parenthesized expression (not a call), the lexer reads a tuple of
 * plain integers itself and hands the parser the syntax node it would have
 * built, as one INT_TUPLE token instead of one per number and comma. Any
 * other content (a sign, a name, a line break) is left to the tokens. */

/* Whether the token t ends an expression, so that '(' after it is a call. */
static int ends_operand(int t)
{
    return t == NAME || t == INT || t == FLOAT || t == STRING || t == ')' || t == ']' || t == '}' ||
           t == TRUE || t == FALSE || t == NONE || t == CONST_DATA || t == INT_TUPLE || t == SIMPLE_CALL;
}

/* The node the parser would build for a parenthesized tuple of plain
 * integers whose '(' is at `open`, with *end just past its ')'; NULL when
 * the text is anything else, left to the tokens. */
static Sx *int_tuple_at(Lexer *lx, const unsigned char *open, const unsigned char **end)
{
    enum { MAX_ITEMS = 64 };
    int64_t v[MAX_ITEMS];
    int col[MAX_ITEMS], n = 0, comma = 0;
    const unsigned char *p = open + 1;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')' && n > 0)
            break;
        if (!is_digit(*p) || n == MAX_ITEMS)
            return NULL;
        col[n] = (int)(p - lx->line_start) + 1;
        int64_t x = 0;
        for (; is_digit(*p); p++)
            if (add_digit(&x, *p - '0'))
                return NULL;   /* "integer literal too large", from the tokens */
        if (*p == '.' || *p == 'e' || *p == 'E' || *p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
            return NULL;
        v[n++] = x;
        while (*p == ' ')
            p++;
        comma = *p == ',';
        if (comma)
            p++;
        else if (*p != ')')
            return NULL;
    }
    Loc at = here(lx, open);
    Sx *items[MAX_ITEMS];
    for (int i = 0; i < n; i++) {
        Loc l = { lx->line, loc_col(col[i]) };
        items[i] = sx_new(lx->syn, SX_INT, l);
        items[i]->u.ival = v[i];
    }
    Sx *e = items[0];
    if (n > 1 || comma) {
        e = sx_new(lx->syn, SX_TUPLE, at);
        for (int i = 0; i < n; i++)
            sx_push(lx->syn, &e->u.elems, NULL, items[i]);
        e->depth = 2;
    }
    e->paren = 1;
    *end = p + 1;
    return e;
}

static int scan_int_tuple(Lexer *lx, YYSTYPE *val)
{
    Sx *e = int_tuple_at(lx, lx->tok, &lx->cur);
    if (!e)
        return 0;
    val->sx = e;
    return INT_TUPLE;
}

/* The characters of names: 1 where one may start, 2 where one goes on. */
static const unsigned char id_chars[256] = {
    ['_'] = 3,
    ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
    ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3,
    ['j'] = 3, ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3,
    ['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3, ['z'] = 3,
    ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3, ['I'] = 3,
    ['J'] = 3, ['K'] = 3, ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3,
    ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3,
};

static int is_id_start(unsigned char c)
{
    return id_chars[c] & 1;
}

static int is_id_char(unsigned char c)
{
    return id_chars[c] != 0;
}

/* The end of a name as the lexer's NAME rule reads it (R.nn.conv2d), or p
 * itself when none starts there. */
static const unsigned char *name_end(const unsigned char *p)
{
    if (!is_id_start(*p))
        return p;
    for (;;) {
        while (is_id_char(*p))
            p++;
        if (p[0] != '.' || !is_id_start(p[1]))
            return p;
        p++;
    }
}

/* Whether the n characters at p (a name as name_end reads it, in the
 * source) are a keyword: the keyword rules of scan() below, run on them. */
static int is_keyword(const unsigned char *p, size_t n)
{
    const unsigned char *c = p, *m = p;
    /*!local:re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = c;
    re2c:define:YYMARKER = m;
    re2c:yyfill:enable = 0;

    "def" | "class" | "return" | "pass" | "for" | "in" | "if" | "elif" | "else" | "with" | "as" |
    "lambda" | "and" | "or" | "not" | "True" | "False" | "None" | "while" | "break" | "continue" |
    "assert" { return c == p + n; }
    * { return 0; }
    */
}

/* A name interned, through the names met lately: most of a large module's
 * names are ones its previous lines wrote (R.Tensor, R.add, dtype, x). */
static Sym *lex_intern(Lexer *lx, const unsigned char *p, size_t n)
{
    unsigned k = ((unsigned)n * 7 + p[0] * 31 + p[n - 1] * 17) & 63;
    Sym *s = lx->recent[k];
    if (s && s->len == n) {
        size_t i = 0;
        while (i < n && (unsigned char)s->str[i] == p[i])
            i++;
        if (i == n)
            return s;
    }
    return lx->recent[k] = intern(lx->names, (const char *)p, n);
}

/* A string's characters in the module's arena, a copy shared with an equal
 * string met lately ("float32" on every line costs its bytes once). */
static const char *lex_string(Lexer *lx, const char *p, size_t n)
{
    if (n == 0 || n > 64)
        return arena_strndup(lx->arena, p, n);
    unsigned k = ((unsigned)n * 7 + (unsigned char)p[0] * 31 + (unsigned char)p[n - 1] * 17) & 15;
    if (lx->recent_str[k] && lx->recent_len[k] == (int)n && memcmp(lx->recent_str[k], p, n) == 0)
        return lx->recent_str[k];
    lx->recent_len[k] = (int)n;
    return lx->recent_str[k] = arena_strndup(lx->arena, p, n);
}

/* The fast path reads calls, tuples and lists nested this deep at most. */
enum { SIMPLE_NEST = 6, SIMPLE_ITEMS = 64 };

static Sx *simple_arg(Lexer *lx, const unsigned char *p, const unsigned char **end, int level, int in_const);
static Sx *call_at(Lexer *lx, const unsigned char *name, const unsigned char *open, const unsigned char **end, int level);

/* The list a bracketed sequence or a call's arguments makes, its arrays
 * allocated once at their size (the parser's grow as items come). */
static void simple_list(Lexer *lx, SxList *l, Sx **items, Sym **keys, int n, int nkw)
{
    memset(l, 0, sizeof *l);
    if (n == 0)
        return;
    l->items = arena_alloc(lx->syn, (size_t)n * sizeof *l->items);
    memcpy(l->items, items, (size_t)n * sizeof *items);
    l->n = l->cap = n;
    if (nkw > 0) {
        l->keys = arena_alloc(lx->syn, (size_t)n * sizeof *l->keys);
        memcpy(l->keys, keys, (size_t)n * sizeof *keys);
        l->kcap = n;
    }
}

/* The items of a tuple or list whose bracket opens at `open` and closes with
 * `close`: simple arguments, commas between them and one allowed after the
 * last; *comma says whether one was written. The count, or -1. */
static int simple_seq(Lexer *lx, const unsigned char *open, unsigned char close, const unsigned char **end,
                      int level, Sx **items, int *comma)
{
    const unsigned char *p = open + 1;
    int n = 0;
    *comma = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == close)
            break;
        if (n == SIMPLE_ITEMS || (n > 0 && !*comma))
            return -1;
        if (!(items[n++] = simple_arg(lx, p, &p, level + 1, 0)))
            return -1;
        while (*p == ' ')
            p++;
        *comma = *p == ',';
        if (*comma)
            p++;
        else if (*p != close)
            return -1;
    }
    *end = p + 1;
    return n;
}

/* One argument of a simple call at p: a name, a plain integer, a string
 * without escapes, a simple call, or a tuple or list of such arguments, as
 * the node the parser would make of its tokens; NULL for anything else. A
 * list as an argument of R.const (in_const) is the lexer's CONST_DATA, not
 * read here. */
static Sx *simple_arg(Lexer *lx, const unsigned char *p, const unsigned char **end, int level, int in_const)
{
    Loc l = here(lx, p);
    if (*p == '(' || *p == '[') {
        Sx *items[SIMPLE_ITEMS];
        int comma, n;
        if (level >= SIMPLE_NEST || lx->depth + level + 2 >= LEX_MAX_BRACKETS || (*p == '[' && in_const) ||
            (n = simple_seq(lx, p, *p == '(' ? ')' : ']', end, level, items, &comma)) < 0)
            return NULL;
        Sx *e;
        if (*p == '(') {
            if (n == 0)
                return NULL;   /* (), which the parser does not mark parenthesized */
            if (n == 1 && !comma) {
                e = items[0];
            } else {
                e = sx_new(lx->syn, SX_TUPLE, l);
                simple_list(lx, &e->u.elems, items, NULL, n, 0);
                e->depth = (short)sx_depth(e);
            }
            e->paren = 1;
        } else {
            e = sx_new(lx->syn, SX_LIST, l);
            simple_list(lx, &e->u.elems, items, NULL, n, 0);
            e->depth = (short)sx_depth(e);
        }
        return e;
    }
    if (is_digit(*p)) {
        int64_t x = 0;
        for (; is_digit(*p); p++)
            if (add_digit(&x, *p - '0'))
                return NULL;
        if (*p == '.' || *p == 'e' || *p == 'E' || is_id_char(*p))
            return NULL;
        Sx *e = sx_new(lx->syn, SX_INT, l);
        e->u.ival = x;
        *end = p;
        return e;
    }
    if (*p == '"' || *p == '\'') {
        const unsigned char *q = p + 1;
        while (*q != *p && *q != '\\' && *q != '\n' && *q != '\r' && *q != 0)
            q++;
        if (*q != *p || q == p + 1)
            return NULL;   /* escapes, an empty or unterminated string: the tokens */
        Sx *e = sx_new(lx->syn, SX_STR, l);
        e->u.str.s = lex_string(lx, (const char *)p + 1, (size_t)(q - p - 1));
        e->u.str.len = (int)(q - p - 1);
        *end = q + 1;
        return e;
    }
    const unsigned char *q = name_end(p);
    if (q == p || is_keyword(p, (size_t)(q - p)))
        return NULL;
    if (*q == '(') {
        if (level >= SIMPLE_NEST || lx->depth + level + 2 >= LEX_MAX_BRACKETS)
            return NULL;
        return call_at(lx, p, q, end, level + 1);
    }
    Sx *e = sx_new(lx->syn, SX_NAME, l);
    e->u.name = lex_intern(lx, p, (size_t)(q - p));
    *end = q;
    return e;
}

/* The R.Tensor(...) annotations of a large module repeat line after line,
 * R.Tensor((1, 64, 56, 56), dtype="float32"), and as R.call_tir's
 * out_sinfo: the first 256 different ones of constants (constant_args) that
 * call_at reads outside brackets are kept with their text, and the same
 * text (from its '(' at open, `level` deep) gives a copy of the kept call
 * node at l, whose arguments' nodes are shared (no one writes into the
 * nodes under a call; their locations are the first one's, as those of the
 * shape they make, which grammar/lower_relax.c shares, are). */
static unsigned seen_slot(const unsigned char *open)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < 24 && open[i] && open[i] != '\n'; i++)
        h = (h ^ open[i]) * 16777619u;
    return (h >> 7) % 64;
}

static Sx *tensor_seen(Lexer *lx, const unsigned char *open, const unsigned char **end, int level, Loc l)
{
    unsigned s = seen_slot(open);
    for (int w = 0; w < 4 && lx->seen[s][w].e; w++) {
        int n = lx->seen[s][w].len;
        if (lx->lim - open >= n && memcmp(open, lx->seen[s][w].text, (size_t)n) == 0 && lx->seen[s][w].level == level) {
            Sx *e = sx_new(lx->syn, SX_CALL, l);
            *e = *lx->seen[s][w].e;
            e->loc = l;
            *end = open + n;
            return e;
        }
    }
    return NULL;
}

/* Whether the arguments under a call are constants: integers, strings, and
 * tuples and lists of them. A name (a symbolic dimension) makes an
 * expression of its own wherever it is read, at its own place, which the
 * copies of a kept call would not have. */
static int constant_args(const SxList *l)
{
    for (int i = 0; i < l->n; i++) {
        const Sx *a = l->items[i];
        if (a->kind == SX_TUPLE || a->kind == SX_LIST) {
            if (!constant_args(&a->u.elems))
                return 0;
        } else if (a->kind != SX_INT && a->kind != SX_STR) {
            return 0;
        }
    }
    return 1;
}

static void keep_tensor(Lexer *lx, const unsigned char *name, const unsigned char *open, const unsigned char *end,
                        const Sx *read, int level)
{
    if (!constant_args(&read->u.call.args))
        return;
    unsigned s = seen_slot(open);
    int w = 0;
    while (w < 4 && lx->seen[s][w].e)
        w++;
    if (w == 4 || lx->nseen == 256 || end - open > 200)
        return;
    Arena *syn = lx->syn;
    const unsigned char *kend;
    lx->syn = &lx->keep;
    Sx *e = call_at(lx, name, open, &kend, level);
    lx->syn = syn;
    if (!e || kend != end)
        return;
    lx->seen[s][w].text = arena_strndup(&lx->keep, (const char *)open, (size_t)(end - open));
    lx->seen[s][w].len = (int)(end - open);
    lx->seen[s][w].level = level;
    lx->seen[s][w].e = e;
    lx->nseen++;
}

/* A call such as R.add(lv0, x) or R.call_tir(cls.relu, (lv1,),
 * out_sinfo=R.Tensor((1, 64), dtype="float32")) on one line, whose arguments
 * are simple (simple_arg), positional ones first and no trailing comma, as
 * the node the parser would build from its tokens; the callee's name runs
 * from name to its '(' at open, `level` brackets inside the outermost call.
 * NULL for anything else, left to the tokens, which report its errors as
 * before. */
static Sx *call_at(Lexer *lx, const unsigned char *name, const unsigned char *open, const unsigned char **end, int level)
{
    enum { MAX_ARGS = 16 };
    Sx *args[MAX_ARGS];
    Sym *keys[MAX_ARGS];
    int n = 0, nkw = 0;
    Loc l = here(lx, name);
    Sym *fname = lex_intern(lx, name, (size_t)(open - name));
    int tensor = fname == lx->tensor_name && level <= 1 && lx->depth == 0 && lx->syn != &lx->keep;
    if (tensor) {
        Sx *e = tensor_seen(lx, open, end, level, l);
        if (e)
            return e;
    }
    const unsigned char *p = open + 1;
    while (*p == ' ')
        p++;
    if (*p != ')') {
        for (;;) {
            if (n == MAX_ARGS)
                return NULL;
            Sym *key = NULL;
            const unsigned char *q = name_end(p), *r = q;
            while (*r == ' ')
                r++;
            if (q != p && r[0] == '=' && r[1] != '=') {
                if (is_keyword(p, (size_t)(q - p)))
                    return NULL;
                key = lex_intern(lx, p, (size_t)(q - p));
                p = r + 1;
                while (*p == ' ')
                    p++;
                nkw++;
            } else if (nkw > 0) {
                return NULL;   /* "positional argument follows keyword argument" */
            }
            Sx *a = simple_arg(lx, p, &p, level, fname == lx->const_name);
            if (!a)
                return NULL;
            args[n] = a;
            keys[n++] = key;
            while (*p == ' ')
                p++;
            if (*p == ')')
                break;
            if (*p != ',')
                return NULL;
            p++;
            while (*p == ' ')
                p++;
        }
    }
    Sx *fn = sx_new(lx->syn, SX_NAME, l);
    fn->u.name = fname;
    Sx *e = sx_new(lx->syn, SX_CALL, l);
    e->u.call.fn = fn;
    simple_list(lx, &e->u.call.args, args, keys, n, nkw);
    e->depth = (short)sx_depth(e);
    *end = p + 1;
    if (tensor)
        keep_tensor(lx, name, open, *end, e, level);
    return e;
}

/* Such a call as one SIMPLE_CALL token (a bulk of the bindings of a large
 * module is such calls); lx->cur is at the '(' after the callee's name. */
static int scan_call(Lexer *lx, YYSTYPE *val)
{
    Sx *e = call_at(lx, lx->tok, lx->cur, &lx->cur, 0);
    if (!e)
        return 0;
    val->sx = e;
    return SIMPLE_CALL;
}

/* A simple call at p (see call_at), or NULL. */
static Sx *call_here(Lexer *lx, const unsigned char *p, const unsigned char **end)
{
    const unsigned char *q = name_end(p);
    if (q == p || *q != '(' || is_keyword(p, (size_t)(q - p)))
        return NULL;
    return call_at(lx, p, q, end, 0);
}

/* A statement `name: call = call` or `name = call` making up a line, with
 * calls as call_at reads them, at the start of a line outside brackets: one
 * BINDING token carrying the statement the parser would build, its newline
 * included (each binding of a large function costs one token, not six and
 * a dozen reductions). lx->cur is past the name. */
static int scan_binding(Lexer *lx, YYSTYPE *val)
{
    const unsigned char *p = lx->cur;
    Sx *annot = NULL, *value;
    while (*p == ' ')
        p++;
    if (*p == ':') {
        p++;
        while (*p == ' ')
            p++;
        if (!(annot = call_here(lx, p, &p)))
            return 0;
        while (*p == ' ')
            p++;
    }
    if (p[0] != '=' || p[1] == '=')
        return 0;
    p++;
    while (*p == ' ')
        p++;
    if (!(value = call_here(lx, p, &p)))
        return 0;
    while (*p == ' ')
        p++;
    if (p[0] == '\r' && p[1] == '\n')
        p++;
    if (*p != '\n')
        return 0;
    Loc l = here(lx, lx->tok);
    Sx *target = sx_new(lx->syn, SX_NAME, l);
    target->u.name = lex_intern(lx, lx->tok, (size_t)(lx->cur - lx->tok));
    St *st = st_new(lx->syn, ST_ASSIGN, l);
    st->u.assign.target = target;
    st->u.assign.annot = annot;
    st->u.assign.value = value;
    /* the newline, as the NEWLINE rule takes it */
    lx->cur = p + 1;
    lx->line++;
    lx->line_start = lx->cur;
    lx->at_bol = 1;
    give_back(lx, lx->cur, 0);
    val->st = st;
    return BINDING;
}

static int scan(Lexer *lx, YYSTYPE *val)
{
    for (;;) {
        lx->tok = lx->cur;
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYCURSOR = lx->cur;
        re2c:define:YYMARKER = lx->marker;
        re2c:yyfill:enable = 0;

        id = [a-zA-Z_][a-zA-Z0-9_]*;
        dec = [0-9]+ ("_" [0-9]+)*;
        based = "0" [xX] ("_"? [0-9a-fA-F])+ | "0" [oO] ("_"? [0-7])+ | "0" [bB] ("_"? [01])+;
        exp = [eE] [+-]? [0-9]+;
        flt = [0-9]+ "." [0-9]* exp? | "." [0-9]+ exp? | [0-9]+ exp;

        "\x00" {
            if (lx->tok < lx->lim)
                return lex_error(lx, here(lx, lx->tok), "NUL byte in input");
            lx->cur = lx->tok;
            return YYEOF;
        }
        [ \t\f]+ { continue; }
        "#" [^\n\x00]* { continue; }
        "\\" "\r"? "\n" { lx->line++; lx->line_start = lx->cur; continue; }
        "\r"? "\n" {
            lx->line++;
            lx->line_start = lx->cur;
            if (lx->depth > 0)
                continue;
            lx->at_bol = 1;
            give_back(lx, lx->cur, 0);
            return NEWLINE;
        }
        "\r" { continue; }
        "def" { return DEF; }
        "class" { return CLASS; }
        "return" { return RETURN; }
        "pass" { return PASS; }
        "for" { return FOR; }
        "in" { return IN; }
        "if" { return IF; }
        "elif" { return ELIF; }
        "else" { return ELSE; }
        "with" { return WITH; }
        "as" { return AS; }
        "lambda" { return LAMBDA; }
        "and" { return AND; }
        "or" { return OR; }
        "not" { return NOT; }
        "True" { return TRUE; }
        "False" { return FALSE; }
        "None" { return NONE; }
        "while" { return WHILE; }
        "break" { return BREAK; }
        "continue" { return CONTINUE; }
        "assert" { return ASSERT; }
        id ("." id)* {
            if (lx->depth == 0 && !lx->no_calls &&
                (lx->last == 0 || lx->last == NEWLINE || lx->last == BINDING || lx->last == INDENT ||
                 lx->last == DEDENT)) {
                int t = scan_binding(lx, val);
                if (t)
                    return t;
            }
            if (*lx->cur == '(' && !lx->no_calls && lx->last != '.' && lx->depth + 2 < LEX_MAX_BRACKETS) {
                int t = scan_call(lx, val);
                if (t)
                    return t;
            }
            /* R.nn.conv2d is one name, as the parser would make it anyway. */
            val->sym = lex_intern(lx, lx->tok, (size_t)(lx->cur - lx->tok));
            return NAME;
        }
        dec | based { return scan_int(lx, val); }
        flt { return scan_float(lx, val); }
        ["'] { return scan_string(lx, val, lx->tok[0]); }
        "->" { return ARROW; }
        "+=" { val->op = OP_ADD; return AUGASSIGN; }
        "-=" { val->op = OP_SUB; return AUGASSIGN; }
        "*=" { val->op = OP_MUL; return AUGASSIGN; }
        "/=" { val->op = OP_DIV; return AUGASSIGN; }
        "//=" { val->op = OP_FLOORDIV; return AUGASSIGN; }
        "%=" { val->op = OP_MOD; return AUGASSIGN; }
        "//" { return FLOORDIV; }
        "**" { return POW; }
        "<<" { return SHL; }
        ">>" { return SHR; }
        "==" { return EQ; }
        "!=" { return NE; }
        "<=" { return LE; }
        ">=" { return GE; }
        "[" {
            if (lx->last == '(' && lx->const_paren && lx->depth + OP_MAX_RANK <= LEX_MAX_BRACKETS) {
                int t = scan_const(lx, val);
                if (t)
                    return t;
            }
            return open_bracket(lx, '[');
        }
        "(" {
            if (!ends_operand(lx->last) && lx->depth < LEX_MAX_BRACKETS) {
                int t = scan_int_tuple(lx, val);
                if (t)
                    return t;
            }
            return open_bracket(lx, '(');
        }
        "{" { return open_bracket(lx, '{'); }
        [)\]}] { return close_bracket(lx, (char)lx->tok[0]); }
        [,:.=+\-*/%<>@&|^~] { return lx->tok[0]; }
        * {
            unsigned char c = lx->tok[0];
            if (c >= 32 && c < 127)
                return lex_error(lx, here(lx, lx->tok), "unexpected character '%c'", c);
            return lex_error(lx, here(lx, lx->tok), "unexpected byte 0x%02x", c);
        }
        */
    }
}

static int at_end(Lexer *lx, YYLTYPE *loc)
{
    Loc l = here(lx, lx->cur);
    loc->first_line = loc->last_line = l.line;
    loc->first_column = loc->last_column = l.col;
    if (lx->depth > 0) {
        Loc o = lx->bracket_locs[lx->depth - 1];
        return lex_error(lx, o, "'%c' is never closed", lx->brackets[lx->depth - 1]);
    }
    if (lx->last != 0 && lx->last != NEWLINE && lx->last != DEDENT && lx->last != BINDING)
        return NEWLINE;
    if (lx->nindents > 1) {
        lx->nindents--;
        return DEDENT;
    }
    return YYEOF;
}

static int next_token(Lexer *lx, YYSTYPE *val, YYLTYPE *loc)
{
    if (lx->pending_dedents > 0) {
        lx->pending_dedents--;
        return DEDENT;
    }
    if (lx->at_bol && lx->depth == 0) {
        int t = indentation(lx, loc);
        if (t)
            return t;
        if (lx->at_bol)
            return at_end(lx, loc);
    }
    int t = scan(lx, val);
    if (t == YYEOF)
        return at_end(lx, loc);
    if (t == BINDING) {
        /* The line counter has moved past the statement's newline. */
        loc->first_line = loc->last_line = val->st->loc.line;
        loc->first_column = loc->last_column = val->st->loc.col;
        return t;
    }
    Loc l = t == CONST_DATA ? val->cst->loc : here(lx, lx->tok);
    if (t == STRING && lx->multi) {
        /* a string over several lines is where it started */
        l = lx->multi_loc;
        lx->multi = 0;
    }
    if (t == NEWLINE) {
        /* The line counter has moved on; the newline belongs to the line it ends. */
        l.line = lx->line - 1;
        l.col = loc_col(loc->last_column + 1);
    }
    loc->first_line = loc->last_line = l.line;
    loc->first_column = l.col;
    loc->last_column = l.col + (int)(lx->cur - lx->tok) - 1;
    return t;
}

int yylex(YYSTYPE *val, YYLTYPE *loc, Parser *P)
{
    Lexer *lx = &P->lx;
    lx->syn = &P->syn;
    int t = next_token(lx, val, loc);
    if (t != YYEOF && t != YYerror)
        lx->seen_code = 1;
    if (t == '(')
        lx->const_paren = lx->last == NAME && lx->last_name == lx->const_name;
    else if (t == NAME)
        lx->last_name = val->sym;
    /* In a def or class header and a lambda's parameters a name is not an
     * expression: no SIMPLE_CALL there until the line ends. */
    if (t == DEF || t == CLASS || t == LAMBDA)
        lx->no_calls = 1;
    else if (t == NEWLINE || t == BINDING)
        lx->no_calls = 0;
    lx->last = t;
    return t;
}
