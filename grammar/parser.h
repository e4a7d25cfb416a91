/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_YY_GRAMMAR_PARSER_H_INCLUDED
# define YY_YY_GRAMMAR_PARSER_H_INCLUDED
/* Debug traces.  */
#ifndef YYDEBUG
# define YYDEBUG 0
#endif
#if YYDEBUG
extern int yydebug;
#endif
/* "%code requires" blocks.  */

#include "syntax.h"
typedef struct Parser Parser;


/* Token kinds.  */
#ifndef YYTOKENTYPE
# define YYTOKENTYPE
  enum yytokentype
  {
    YYEMPTY = -2,
    YYEOF = 0,                     /* "end of file"  */
    YYerror = 256,                 /* error  */
    YYUNDEF = 257,                 /* "invalid token"  */
    NAME = 258,                    /* "identifier"  */
    INT = 259,                     /* "integer"  */
    FLOAT = 260,                   /* "number"  */
    STRING = 261,                  /* "string"  */
    CONST_DATA = 262,              /* "list of numbers"  */
    INT_TUPLE = 263,               /* "tuple of integers"  */
    SIMPLE_CALL = 264,             /* "call"  */
    BINDING = 265,                 /* "binding"  */
    NEWLINE = 266,                 /* "end of line"  */
    INDENT = 267,                  /* "indented block"  */
    DEDENT = 268,                  /* "dedent"  */
    DEF = 269,                     /* "'def'"  */
    CLASS = 270,                   /* "'class'"  */
    RETURN = 271,                  /* "'return'"  */
    PASS = 272,                    /* "'pass'"  */
    FOR = 273,                     /* "'for'"  */
    IN = 274,                      /* "'in'"  */
    IF = 275,                      /* "'if'"  */
    ELIF = 276,                    /* "'elif'"  */
    ELSE = 277,                    /* "'else'"  */
    WITH = 278,                    /* "'with'"  */
    AS = 279,                      /* "'as'"  */
    LAMBDA = 280,                  /* "'lambda'"  */
    AND = 281,                     /* "'and'"  */
    OR = 282,                      /* "'or'"  */
    NOT = 283,                     /* "'not'"  */
    TRUE = 284,                    /* "'True'"  */
    FALSE = 285,                   /* "'False'"  */
    NONE = 286,                    /* "'None'"  */
    ARROW = 287,                   /* "'->'"  */
    FLOORDIV = 288,                /* "'//'"  */
    POW = 289,                     /* "'**'"  */
    EQ = 290,                      /* "'=='"  */
    NE = 291,                      /* "'!='"  */
    LE = 292,                      /* "'<='"  */
    GE = 293,                      /* "'>='"  */
    SHL = 294,                     /* "'<<'"  */
    SHR = 295,                     /* "'>>'"  */
    WHILE = 296,                   /* "'while'"  */
    BREAK = 297,                   /* "'break'"  */
    CONTINUE = 298,                /* "'continue'"  */
    ASSERT = 299,                  /* "'assert'"  */
    AUGASSIGN = 300,               /* "augmented assignment"  */
    UMINUS = 301                   /* UMINUS  */
  };
  typedef enum yytokentype yytoken_kind_t;
#endif

/* Value type.  */
#if ! defined YYSTYPE && ! defined YYSTYPE_IS_DECLARED
union YYSTYPE
{

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


};
typedef union YYSTYPE YYSTYPE;
# define YYSTYPE_IS_TRIVIAL 1
# define YYSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
#if ! defined YYLTYPE && ! defined YYLTYPE_IS_DECLARED
typedef struct YYLTYPE YYLTYPE;
struct YYLTYPE
{
  int first_line;
  int first_column;
  int last_line;
  int last_column;
};
# define YYLTYPE_IS_DECLARED 1
# define YYLTYPE_IS_TRIVIAL 1
#endif




int yyparse (Parser *P);


#endif /* !YY_YY_GRAMMAR_PARSER_H_INCLUDED  */
