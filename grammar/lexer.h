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
    Arena *syn;           /* the parser's syntax nodes (an INT_TUPLE's) */
    Sym *const_name;      /* R.const */
    Sym *last_name;       /* the last NAME returned */
    int const_paren;      /* the last '(' opened R.const's arguments */
    int no_calls;         /* in a def, class or lambda header: no SIMPLE_CALL */
    const unsigned char *kept;  /* a mapped source's pages from here on are resident */
    Loc multi_loc;        /* where a string that spans lines started */
    int multi;            /* the last string spanned lines */
    /* Names and short strings met lately (lexer.re: lex_intern, lex_string):
     * a large module writes R.Tensor, dtype and "float32" on every line. */
    Sym *recent[64];
    const char *recent_str[16];
    int recent_len[16];
    /* R.Tensor(...) calls read whole by the fast path (lexer.re: tensor_seen):
     * their text and their nodes, kept in `keep` to the end of the input */
    Sym *tensor_name;
    Arena keep;
    int nseen;
    struct { const char *text; int len, level; Sx *e; } seen[64][4];
} Lexer;

struct Reader;

/* The parser's state. Syntax nodes live in `syn`, which the reader releases
 * statement by statement as it lowers them (see the stream_* hooks). */
typedef struct Parser {
    Lexer lx;
    SyntaxFile file;
    Arena syn;
    struct Reader *R;
    int depth;            /* indented suites entered */
    SxList decos;         /* the decorators of the def being parsed */
    Loc decos_loc;
} Parser;

/* Hooks the grammar calls so functions are lowered while they are parsed.
 * Each returns 0, or -1 after reporting an error. stream_stmt returns 1
 * when it lowered the statement (which must then not be kept). */
int stream_class(Parser *P, Sym *name);
int stream_def_begin(Parser *P, St *header);
int stream_def_end(Parser *P, St *header, StList *body);
int stream_with_begin(Parser *P, St *header);
int stream_with_end(Parser *P, St *header, StList *body);
int stream_stmt(Parser *P, St *st);

void lexer_init(Lexer *lx, Source *src, Arena *a, Interner *names);
/* Refuses text that is not UTF-8 at its first bad byte (file:line:col):
 * 0, or -1 after reporting. */
int lexer_check_utf8(Lexer *lx);
/* Frees what lx keeps for itself (not the nodes it made in the arena it was given). */
void lexer_done(Lexer *lx);
/* What the arena lx reads into may take still (Arena.expect), as lx's data. */
size_t lex_expect(const void *data);

#endif
