/* The lexer (re2c): Python-style tokens with INDENT/DEDENT computed from
 * leading spaces outside brackets, every token carrying its line:column.
 * Errors are reported here and handed to the parser as YYerror. */
#include "lexer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

void lexer_init(Lexer *lx, Source *src, Arena *a, Interner *names)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->arena = a;
    lx->names = names;
    lx->cur = (const unsigned char *)src->text;
    lx->lim = lx->cur + src->len;
    lx->line_start = lx->cur;
    lx->line = 1;
    lx->nindents = 1;
    lx->at_bol = 1;
}

static Loc here(Lexer *lx, const unsigned char *p)
{
    Loc l = { lx->line, (int)(p - lx->line_start) + 1 };
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

static int scan_string(Lexer *lx, YYSTYPE *val, unsigned char quote)
{
    Loc start = here(lx, lx->tok);
    const unsigned char *p = lx->cur;
    if (p[0] == quote && p[1] == quote)
        return lex_error(lx, start, "triple-quoted strings are not supported");
    size_t cap = 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    for (;;) {
        unsigned char c = *p;
        if (c == quote)
            break;
        if (c == '\n' || c == '\r' || (c == 0 && p >= lx->lim)) {
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
                free(buf);
                return lex_error(lx, here(lx, p), "unknown escape sequence '\\%c' in string", p[1] >= 32 && p[1] < 127 ? p[1] : '?');
            }
            p++;
        }
        if (n + 1 >= cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb)
                abort();
            buf = nb;
        }
        buf[n++] = (char)c;
        p++;
    }
    lx->cur = p + 1;
    val->str.s = arena_strndup(lx->arena, buf, n);
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

static int scan_int(Lexer *lx, YYSTYPE *val)
{
    int64_t v = 0;
    for (const unsigned char *p = lx->tok; p < lx->cur; p++) {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return lex_error(lx, here(lx, lx->tok), "integer literal too large");
        v = v * 10 + (*p - '0');
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
        dec = [0-9]+;
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
        id ("." id)* {
            /* R.nn.conv2d is one name, as the parser would make it anyway. */
            val->sym = intern(lx->names, (const char *)lx->tok, (size_t)(lx->cur - lx->tok));
            return NAME;
        }
        dec { return scan_int(lx, val); }
        flt { return scan_float(lx, val); }
        ["'] { return scan_string(lx, val, lx->tok[0]); }
        "->" { return ARROW; }
        "//" { return FLOORDIV; }
        "**" { return POW; }
        "==" { return EQ; }
        "!=" { return NE; }
        "<=" { return LE; }
        ">=" { return GE; }
        [([{] { return open_bracket(lx, (char)lx->tok[0]); }
        [)\]}] { return close_bracket(lx, (char)lx->tok[0]); }
        [,:.=+\-*/%<>@] { return lx->tok[0]; }
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
    if (lx->last != 0 && lx->last != NEWLINE && lx->last != DEDENT)
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
    Loc l = here(lx, lx->tok);
    if (t == NEWLINE) {
        /* The line counter has moved on; the newline belongs to the line it ends. */
        l.line = lx->line - 1;
        l.col = loc->last_column + 1;
    }
    loc->first_line = loc->last_line = l.line;
    loc->first_column = l.col;
    loc->last_column = l.col + (int)(lx->cur - lx->tok) - 1;
    return t;
}

int yylex(YYSTYPE *val, YYLTYPE *loc, Parser *P)
{
    Lexer *lx = &P->lx;
    int t = next_token(lx, val, loc);
    if (t != YYEOF && t != YYerror)
        lx->seen_code = 1;
    lx->last = t;
    return t;
}
