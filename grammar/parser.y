/* The parser (Bison, pure, with locations): the Python subset TVMScript is
 * written in, as a syntax tree (syntax.h). grammar/lower.c gives it meaning,
 * called from the actions below as functions and statements complete. */
%code requires {
#include "syntax.h"
typedef struct Parser Parser;
}

%code {
#include <string.h>

#include "lexer.h"

int yylex(YYSTYPE *val, YYLTYPE *loc, Parser *P);
static void yyerror(YYLTYPE *loc, Parser *P, const char *msg);

#define A (&P->syn)

static Loc L(YYLTYPE l)
{
    Loc r = { l.first_line, loc_col(l.first_column) };
    return r;
}

/* Sets the depth of a new node and refuses nesting beyond the limit, so the
 * recursive walks over the tree stay within the stack. */
static Sx *deep(Parser *P, Sx *e)
{
    e->depth = sx_depth(e);
    if (e->depth > SX_MAX_DEPTH) {
        diag_error(P->lx.src, e->loc, "expression more than %d levels deep (each operator in a chain such as a + b + c, "
                   "and each bracket, is a level)", SX_MAX_DEPTH);
        return NULL;
    }
    return e;
}

#define CHECK(x) do { if (!(x)) YYABORT; } while (0)

static Sx *binop(Parser *P, SxOp op, Sx *a, Sx *b, Loc loc)
{
    Sx *e = sx_new(A, b ? SX_BINOP : SX_UNARY, loc);
    e->u.bin.op = op;
    e->u.bin.a = a;
    e->u.bin.b = b;
    return deep(P, e);
}

/* Python chains a < b < c; lopt does not, and says so rather than misread it. */
static Sx *compare(Parser *P, SxOp op, Sx *a, Sx *b, Loc loc)
{
    if (a->kind == SX_BINOP && a->u.bin.op >= OP_LT && a->u.bin.op <= OP_NE && !a->paren) {
        diag_error(P->lx.src, loc, "chained comparisons are not supported; write a < b and b < c");
        return NULL;
    }
    return binop(P, op, a, b, loc);
}

static Sx *seq_or_single(Parser *P, SxList l, int comma, Loc loc)
{
    if (l.n == 1 && !comma)
        return l.items[0];
    Sx *e = sx_new(A, SX_TUPLE, loc);
    e->u.elems = l;
    return deep(P, e);
}

static SxList list1(Parser *P, Sx *e)
{
    SxList l = { 0 };
    sx_push(A, &l, NULL, e);
    return l;
}
}

%define api.pure full
%locations
%define parse.error custom
%param { Parser *P }

%union {
    Sx *sx;
    St *st;
    Sym *sym;
    int64_t ival;
    double fval;
    struct { const char *s; int len; } str;
    SxConst *cst;
    SxList list;
    StList stl;
    struct { SxParam **items; int n, cap; } params;
    SxParam param;
    SxOp op;
    int flag;
}

%token <sym> NAME "identifier"
%token <ival> INT "integer"
%token <fval> FLOAT "number"
%token <str> STRING "string"
%token <cst> CONST_DATA "list of numbers"
%token <sx> INT_TUPLE "tuple of integers"
%token <sx> SIMPLE_CALL "call"
%token <st> BINDING "binding"
%token NEWLINE "end of line" INDENT "indented block" DEDENT "dedent"
%token DEF "'def'" CLASS "'class'" RETURN "'return'" PASS "'pass'" FOR "'for'" IN "'in'"
%token IF "'if'" ELIF "'elif'" ELSE "'else'" WITH "'with'" AS "'as'" LAMBDA "'lambda'"
%token AND "'and'" OR "'or'" NOT "'not'" TRUE "'True'" FALSE "'False'" NONE "'None'"
%token ARROW "'->'" FLOORDIV "'//'" POW "'**'" EQ "'=='" NE "'!='" LE "'<='" GE "'>='"
%token SHL "'<<'" SHR "'>>'"
%token WHILE "'while'" BREAK "'break'" CONTINUE "'continue'" ASSERT "'assert'"
%token <op> AUGASSIGN "augmented assignment"

%type <sx> test expr atom_expr
%type <sx> testlist exprlist lambdef subscript opt_test opt_ret decorator
%type <list> test_seq expr_seq args arglist subscripts sub_seq dict_items lparams decorators
%type <st> stmt simple compound funcdef classdef for_stmt if_stmt with_stmt while_stmt
%type <stl> stmts suite elifs
%type <params> params param_list
%type <param> param
%type <flag> opt_comma

/* One expression nonterminal with Python's precedences, so an atom reaches
 * `expr` in one reduction instead of climbing a rule per level. */
%left OR
%left AND
%precedence NOT
%left '<' LE '>' GE EQ NE
%left '|'
%left '^'
%left '&'
%left SHL SHR
%left '+' '-'
%left '*' '/' FLOORDIV '%'
%precedence UMINUS
%right POW

%%

file: %empty            { P->file.body.n = 0; }
    | stmts             { P->file.body = $1; }
    ;

/* A statement the reader lowers as it arrives is not kept. */
stmts: stmt {
            StList l = { 0 };
            int r = stream_stmt(P, $1);
            CHECK(r >= 0);
            if (r == 0)
                st_push(A, &l, $1);
            $$ = l;
        }
     | stmts stmt {
            $$ = $1;
            int r = stream_stmt(P, $2);
            CHECK(r >= 0);
            if (r == 0)
                st_push(A, &$$, $2);
        }
     ;

stmt: simple NEWLINE    { $$ = $1; }
    | BINDING           { $$ = $1; }
    | compound          { $$ = $1; }
    ;

simple: testlist        { $$ = st_new(A, ST_EXPR, L(@1)); $$->u.expr = $1; }
      | testlist '=' testlist {
            $$ = st_new(A, ST_ASSIGN, L(@1));
            $$->u.assign.target = $1;
            $$->u.assign.value = $3;
        }
      | testlist ':' test {
            /* x: T.float32, TVM's declaration of a mutable scalar */
            $$ = st_new(A, ST_DECLARE, L(@1));
            $$->u.assign.target = $1;
            $$->u.assign.annot = $3;
        }
      | testlist ':' test '=' testlist {
            $$ = st_new(A, ST_ASSIGN, L(@1));
            $$->u.assign.target = $1;
            $$->u.assign.annot = $3;
            $$->u.assign.value = $5;
        }
      | testlist AUGASSIGN testlist {
            /* B[i] += x is B[i] = B[i] + x */
            $$ = st_new(A, ST_ASSIGN, L(@1));
            $$->u.assign.target = $1;
            CHECK($$->u.assign.value = binop(P, $2, $1, $3, L(@2)));
        }
      | BREAK           { $$ = st_new(A, ST_BREAK, L(@1)); }
      | CONTINUE        { $$ = st_new(A, ST_CONTINUE, L(@1)); }
      | ASSERT test     { $$ = st_new(A, ST_ASSERT, L(@1)); $$->u.assign.target = $2; }
      | ASSERT test ',' test {
            $$ = st_new(A, ST_ASSERT, L(@1));
            $$->u.assign.target = $2;
            $$->u.assign.value = $4;
        }
      | RETURN          { $$ = st_new(A, ST_RETURN, L(@1)); }
      | RETURN testlist { $$ = st_new(A, ST_RETURN, L(@1)); $$->u.expr = $2; }
      | PASS            { $$ = st_new(A, ST_PASS, L(@1)); }
      ;

compound: for_stmt | if_stmt | with_stmt | while_stmt
        | funcdef                   { $$ = $1; }
        | decorators funcdef        { $$ = $2; $$->u.def.decorators = $1; $$->loc = L(@1); }
        | classdef                  { $$ = $1; }
        | decorators classdef       { $$ = $2; $$->u.def.decorators = $1; $$->loc = L(@1); }
        ;

decorators: decorator               { $$ = list1(P, $1); P->decos = $$; P->decos_loc = L(@1); }
          | decorators decorator    { $$ = $1; sx_push(A, &$$, NULL, $2); P->decos = $$; }
          ;

decorator: '@' atom_expr NEWLINE    { $$ = $2; }
         ;

funcdef: DEF NAME '(' params ')' opt_ret ':' {
            St *h = st_new(A, ST_DEF, P->decos.n ? P->decos_loc : L(@1));
            h->u.def.decorators = P->decos;
            h->u.def.name = $2;
            h->u.def.name_loc = L(@2);
            h->u.def.params = $4.items;
            h->u.def.nparams = $4.n;
            h->u.def.ret = $6;
            memset(&P->decos, 0, sizeof P->decos);
            CHECK(stream_def_begin(P, h) == 0);
            $<st>$ = h;
        } suite {
            $$ = $<st>8;
            CHECK(stream_def_end(P, $$, &$9) == 0);
        }
       ;

opt_ret: %empty         { $$ = NULL; }
       | ARROW test     { $$ = $2; }
       ;

params: %empty                      { $$.items = NULL; $$.n = $$.cap = 0; }
      | param_list opt_comma        { $$ = $1; }
      ;

param_list: param {
                $$.items = NULL; $$.n = $$.cap = 0;
                SxParam *p = arena_alloc(A, sizeof *p);
                *p = $1;
                vec_push(A, &$$.items, &$$.n, &$$.cap, p);
            }
          | param_list ',' param {
                $$ = $1;
                SxParam *p = arena_alloc(A, sizeof *p);
                *p = $3;
                vec_push(A, &$$.items, &$$.n, &$$.cap, p);
            }
          ;

param: NAME                 { $$.name = $1; $$.loc = L(@1); $$.annot = NULL; $$.dflt = NULL; }
     | NAME ':' test        { $$.name = $1; $$.loc = L(@1); $$.annot = $3; $$.dflt = NULL; }
     | NAME '=' test        { $$.name = $1; $$.loc = L(@1); $$.annot = NULL; $$.dflt = $3; }
     | NAME ':' test '=' test { $$.name = $1; $$.loc = L(@1); $$.annot = $3; $$.dflt = $5; }
     ;

classdef: CLASS NAME { CHECK(stream_class(P, $2) == 0); } ':' suite {
            $$ = st_new(A, ST_CLASS, L(@1));
            $$->u.def.name = $2;
            $$->u.def.name_loc = L(@2);
            $$->u.def.body = $5;
            CHECK(stream_class(P, NULL) == 0);
        }
        | CLASS NAME '(' ')' { CHECK(stream_class(P, $2) == 0); } ':' suite {
            $$ = st_new(A, ST_CLASS, L(@1));
            $$->u.def.name = $2;
            $$->u.def.name_loc = L(@2);
            $$->u.def.body = $7;
            CHECK(stream_class(P, NULL) == 0);
        }
        ;

for_stmt: FOR exprlist IN testlist ':' suite {
            $$ = st_new(A, ST_FOR, L(@1));
            $$->u.loop.target = $2;
            $$->u.loop.iter = $4;
            $$->u.loop.body = $6;
        }
        ;

while_stmt: WHILE test ':' suite {
            $$ = st_new(A, ST_WHILE, L(@1));
            $$->u.loop.iter = $2;
            $$->u.loop.body = $4;
        }
          ;

if_stmt: IF test ':' suite elifs {
            $$ = st_new(A, ST_IF, L(@1));
            $$->u.branch.cond = $2;
            $$->u.branch.then = $4;
            $$->u.branch.orelse = $5;
        }
       ;

/* An else branch is a suite; an elif is an if statement in a branch of its own. */
elifs: %empty                   { memset(&$$, 0, sizeof $$); }
     | ELSE ':' suite           { $$ = $3; }
     | ELIF test ':' suite elifs {
            St *s = st_new(A, ST_IF, L(@1));
            s->u.branch.cond = $2;
            s->u.branch.then = $4;
            s->u.branch.orelse = $5;
            memset(&$$, 0, sizeof $$);
            st_push(A, &$$, s);
        }
     ;

with_stmt: WITH test ':' {
            St *h = st_new(A, ST_WITH, L(@1));
            h->u.with.ctx = $2;
            CHECK(stream_with_begin(P, h) == 0);
            $<st>$ = h;
        } suite {
            $$ = $<st>4;
            $$->u.with.body = $5;
            CHECK(stream_with_end(P, $$, &$5) == 0);
        }
         | WITH test AS expr ':' suite {
            $$ = st_new(A, ST_WITH, L(@1));
            $$->u.with.ctx = $2;
            $$->u.with.as = $4;
            $$->u.with.body = $6;
        }
         ;

suite: simple NEWLINE               { StList l = { 0 }; st_push(A, &l, $1); $$ = l; }
     | NEWLINE INDENT { P->depth++; } stmts DEDENT { P->depth--; $$ = $4; }
     ;

/* A single expression, the common case, builds no list. */
testlist: test
        | test ',' {
            CHECK($$ = seq_or_single(P, list1(P, $1), 1, L(@1)));
        }
        | test ',' test_seq opt_comma {
            SxList l = list1(P, $1);
            for (int i = 0; i < $3.n; i++)
                sx_push(A, &l, NULL, $3.items[i]);
            CHECK($$ = seq_or_single(P, l, 1, L(@1)));
        }
        ;

test_seq: test                      { $$ = list1(P, $1); }
        | test_seq ',' test         { $$ = $1; sx_push(A, &$$, NULL, $3); }
        ;

exprlist: expr_seq opt_comma        { CHECK($$ = seq_or_single(P, $1, $2, L(@1))); }
        ;

expr_seq: expr                      { $$ = list1(P, $1); }
        | expr_seq ',' expr         { $$ = $1; sx_push(A, &$$, NULL, $3); }
        ;

opt_comma: %empty   { $$ = 0; }
         | ','      { $$ = 1; }
         ;

test: expr | lambdef ;

lambdef: LAMBDA lparams ':' test {
            $$ = sx_new(A, SX_LAMBDA, L(@1));
            $$->u.lambda.params = $2;
            $$->u.lambda.body = $4;
            CHECK($$ = deep(P, $$));
        }
       | LAMBDA ':' test {
            $$ = sx_new(A, SX_LAMBDA, L(@1));
            $$->u.lambda.body = $3;
            CHECK($$ = deep(P, $$));
        }
       ;

lparams: NAME {
            Sx *n = sx_new(A, SX_NAME, L(@1));
            n->u.name = $1;
            $$ = list1(P, n);
        }
       | lparams ',' NAME {
            Sx *n = sx_new(A, SX_NAME, L(@3));
            n->u.name = $3;
            $$ = $1;
            sx_push(A, &$$, NULL, n);
        }
       ;

expr: atom_expr
    | expr OR expr                  { CHECK($$ = binop(P, OP_OR, $1, $3, L(@2))); }
    | expr AND expr                 { CHECK($$ = binop(P, OP_AND, $1, $3, L(@2))); }
    | NOT expr                      { CHECK($$ = binop(P, OP_NOT, $2, NULL, L(@1))); }
    | expr '<' expr                 { CHECK($$ = compare(P, OP_LT, $1, $3, L(@2))); }
    | expr LE expr                  { CHECK($$ = compare(P, OP_LE, $1, $3, L(@2))); }
    | expr '>' expr                 { CHECK($$ = compare(P, OP_GT, $1, $3, L(@2))); }
    | expr GE expr                  { CHECK($$ = compare(P, OP_GE, $1, $3, L(@2))); }
    | expr EQ expr                  { CHECK($$ = compare(P, OP_EQ, $1, $3, L(@2))); }
    | expr NE expr                  { CHECK($$ = compare(P, OP_NE, $1, $3, L(@2))); }
    | expr '|' expr                 { CHECK($$ = binop(P, OP_BITOR, $1, $3, L(@2))); }
    | expr '^' expr                 { CHECK($$ = binop(P, OP_BITXOR, $1, $3, L(@2))); }
    | expr '&' expr                 { CHECK($$ = binop(P, OP_BITAND, $1, $3, L(@2))); }
    | expr SHL expr                 { CHECK($$ = binop(P, OP_SHL, $1, $3, L(@2))); }
    | expr SHR expr                 { CHECK($$ = binop(P, OP_SHR, $1, $3, L(@2))); }
    | expr '+' expr                 { CHECK($$ = binop(P, OP_ADD, $1, $3, L(@2))); }
    | expr '-' expr                 { CHECK($$ = binop(P, OP_SUB, $1, $3, L(@2))); }
    | expr '*' expr                 { CHECK($$ = binop(P, OP_MUL, $1, $3, L(@2))); }
    | expr '/' expr                 { CHECK($$ = binop(P, OP_DIV, $1, $3, L(@2))); }
    | expr FLOORDIV expr            { CHECK($$ = binop(P, OP_FLOORDIV, $1, $3, L(@2))); }
    | expr '%' expr                 { CHECK($$ = binop(P, OP_MOD, $1, $3, L(@2))); }
    | '-' expr %prec UMINUS         { CHECK($$ = binop(P, OP_NEG, $2, NULL, L(@1))); }
    | '+' expr %prec UMINUS         { CHECK($$ = binop(P, OP_POS, $2, NULL, L(@1))); }
    | '~' expr %prec UMINUS         { CHECK($$ = binop(P, OP_INVERT, $2, NULL, L(@1))); }
    | expr POW expr {
            diag_error(P->lx.src, L(@2), "'**' is not supported; write the product");
            YYABORT;
        }
    ;

/* An atom is an atom_expr alternative of its own (no unit reduction from
 * atom to atom_expr for every name and number). */
atom_expr: atom_expr '.' NAME {
            if ($1->kind == SX_NAME) {
                /* A dotted name such as R.nn.conv2d is one name. */
                char buf[256];
                int n = snprintf(buf, sizeof buf, "%s.%s", $1->u.name->str, $3->str);
                if (n >= (int)sizeof buf) {
                    diag_error(P->lx.src, L(@1), "dotted name too long");
                    YYABORT;
                }
                $1->u.name = intern(P->lx.names, buf, (size_t)n);
                $$ = $1;
                break;
            }
            $$ = sx_new(A, SX_ATTR, L(@1));
            $$->u.attr.obj = $1;
            $$->u.attr.name = $3;
            CHECK($$ = deep(P, $$));
        }
         | atom_expr '(' args ')' {
            $$ = sx_new(A, SX_CALL, L(@1));
            $$->u.call.fn = $1;
            $$->u.call.args = $3;
            CHECK($$ = deep(P, $$));
        }
         | atom_expr '[' subscripts ']' {
            $$ = sx_new(A, SX_INDEX, L(@1));
            $$->u.index.obj = $1;
            $$->u.index.items = $3;
            CHECK($$ = deep(P, $$));
        }
         ;

args: %empty                        { memset(&$$, 0, sizeof $$); }
    | arglist opt_comma             { $$ = $1; }
    ;

arglist: test                       { $$ = list1(P, $1); }
       | '*' test                   { Sx *s = sx_new(A, SX_STAR, L(@1)); s->u.bin.a = $2; CHECK(s = deep(P, s)); $$ = list1(P, s); }
       | arglist ',' '*' test {
            if ($1.keys) {
                diag_error(P->lx.src, L(@3), "positional argument follows keyword argument");
                YYABORT;
            }
            Sx *s = sx_new(A, SX_STAR, L(@3));
            s->u.bin.a = $4;
            CHECK(s = deep(P, s));
            $$ = $1;
            sx_push(A, &$$, NULL, s);
        }
       | NAME '=' test              { memset(&$$, 0, sizeof $$); sx_push(A, &$$, $1, $3); }
       | arglist ',' test {
            if ($1.keys) {
                diag_error(P->lx.src, L(@3), "positional argument follows keyword argument");
                YYABORT;
            }
            $$ = $1;
            sx_push(A, &$$, NULL, $3);
        }
       | arglist ',' NAME '=' test  { $$ = $1; sx_push(A, &$$, $3, $5); }
       ;

subscripts: sub_seq opt_comma       { $$ = $1; }
          ;

sub_seq: subscript                  { $$ = list1(P, $1); }
       | sub_seq ',' subscript      { $$ = $1; sx_push(A, &$$, NULL, $3); }
       ;

subscript: test
         | opt_test ':' opt_test {
            $$ = sx_new(A, SX_SLICE, L(@2));
            $$->u.slice.lo = $1;
            $$->u.slice.hi = $3;
            CHECK($$ = deep(P, $$));
        }
         ;

opt_test: %empty { $$ = NULL; } | test ;

atom_expr: NAME                     { $$ = sx_new(A, SX_NAME, L(@1)); $$->u.name = $1; }
    | INT                           { $$ = sx_new(A, SX_INT, L(@1)); $$->u.ival = $1; }
    | FLOAT                         { $$ = sx_new(A, SX_FLOAT, L(@1)); $$->u.fval = $1; }
    | STRING                        { $$ = sx_new(A, SX_STR, L(@1)); $$->u.str.s = $1.s; $$->u.str.len = $1.len; }
    | TRUE                          { $$ = sx_new(A, SX_TRUE, L(@1)); }
    | FALSE                         { $$ = sx_new(A, SX_FALSE, L(@1)); }
    | NONE                          { $$ = sx_new(A, SX_NONE, L(@1)); }
    | '(' ')'                       { $$ = sx_new(A, SX_TUPLE, L(@1)); }
    | '(' test_seq opt_comma ')'    { CHECK($$ = seq_or_single(P, $2, $3, L(@1))); $$->paren = 1; }
    | CONST_DATA                    { $$ = sx_new(A, SX_CONST, $1->loc); $$->u.cst = $1; }
    | INT_TUPLE                     { $$ = $1; }
    | SIMPLE_CALL                   { $$ = $1; }
    | '[' ']'                       { $$ = sx_new(A, SX_LIST, L(@1)); }
    | '[' test_seq opt_comma ']'    { $$ = sx_new(A, SX_LIST, L(@1)); $$->u.elems = $2; CHECK($$ = deep(P, $$)); }
    | '{' '}'                       { $$ = sx_new(A, SX_DICT, L(@1)); }
    | '{' dict_items opt_comma '}'  {
            $$ = sx_new(A, SX_DICT, L(@1));
            $$->u.pairs = $2;
            CHECK($$ = deep(P, $$));
        }
    ;

/* Keys and values alternate in one list. */
dict_items: test ':' test           { $$ = list1(P, $1); sx_push(A, &$$, NULL, $3); }
          | dict_items ',' test ':' test { $$ = $1; sx_push(A, &$$, NULL, $3); sx_push(A, &$$, NULL, $5); }
          ;

%%

static void yyerror(YYLTYPE *loc, Parser *P, const char *msg)
{
    diag_error(P->lx.src, L(*loc), "%s", msg);
}

/* Token names as a user reads them: the aliases above without Bison's quotes. */
static void put_name(char *buf, size_t cap, size_t *len, yysymbol_kind_t sym)
{
    const char *name = yysymbol_name(sym);
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        name++;
        n -= 2;
    }
    if (sym == YYSYMBOL_YYEOF) {
        name = "end of file";
        n = strlen(name);
    }
    if (*len + n + 1 < cap) {
        memcpy(buf + *len, name, n);
        *len += n;
        buf[*len] = 0;
    }
}

static void put_str(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 < cap) {
        memcpy(buf + *len, s, n);
        *len += n;
        buf[*len] = 0;
    }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, Parser *P)
{
    enum { MAX_EXPECTED = 5 };
    char buf[512];
    size_t len = 0;
    buf[0] = 0;
    yysymbol_kind_t got = yypcontext_token(ctx);
    /* A SIMPLE_CALL or a BINDING is the lexer's shortcut for a name and
     * the rest of a call or a statement: it is reported as the name it
     * starts with, and wherever it is expected an identifier is too, so it
     * is not listed. */
    if (got == YYSYMBOL_SIMPLE_CALL || got == YYSYMBOL_BINDING)
        got = YYSYMBOL_NAME;
    yysymbol_kind_t all[YYNTOKENS], expected[MAX_EXPECTED];
    int nall = yypcontext_expected_tokens(ctx, all, YYNTOKENS), n = 0;
    for (int i = 0; i < nall && n <= MAX_EXPECTED; i++)
        if (all[i] != YYSYMBOL_SIMPLE_CALL && all[i] != YYSYMBOL_BINDING) {
            if (n < MAX_EXPECTED)
                expected[n] = all[i];
            n++;
        }
    if (n > MAX_EXPECTED)
        n = 0;   /* too many to list, as yypcontext_expected_tokens says */
    if (got == YYSYMBOL_INDENT) {
        put_str(buf, sizeof buf, &len, "unexpected indent");
    } else {
        put_str(buf, sizeof buf, &len, "unexpected ");
        put_name(buf, sizeof buf, &len, got);
    }
    if (n > 0) {
        put_str(buf, sizeof buf, &len, ", expected ");
        for (int i = 0; i < n; i++) {
            if (i > 0)
                put_str(buf, sizeof buf, &len, i == n - 1 ? " or " : ", ");
            put_name(buf, sizeof buf, &len, expected[i]);
        }
    }
    diag_error(P->lx.src, L(*yypcontext_location(ctx)), "%s", buf);
    return 0;
}
