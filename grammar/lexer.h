/* The lexer's state: a cursor over the NUL-terminated source, the stack of
 * indentation columns, and the open brackets (no INDENT/DEDENT inside them). */
#ifndef LOPT_LEXER_H
#define LOPT_LEXER_H

#include "syntax.h"

enum { LEX_MAX_BRACKETS = 200 };

typedef struct Lexer {
    Source *src;
    Arena *arena;
    Interner *names;
    const unsigned char *cur, *lim, *tok, *marker, *line_start;
    int line;
    int indents[SX_MAX_INDENT + 1];
    int nindents;
    int pending_dedents;
    int at_bol;           /* at the beginning of a logical line */
    int last;             /* the last token returned, 0 before any */
    char brackets[LEX_MAX_BRACKETS];
    Loc bracket_locs[LEX_MAX_BRACKETS];
    int depth;
    const char **headers;
    int nheaders, capheaders;
    int seen_code;        /* headers are only kept before the first token */
} Lexer;

typedef struct Parser {
    Lexer lx;
    SyntaxFile file;
} Parser;

void lexer_init(Lexer *lx, Source *src, Arena *a, Interner *names);

#endif
