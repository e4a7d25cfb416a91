/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

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

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 2

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1





# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

#include "parser.h"
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_NAME = 3,                       /* "identifier"  */
  YYSYMBOL_INT = 4,                        /* "integer"  */
  YYSYMBOL_FLOAT = 5,                      /* "number"  */
  YYSYMBOL_STRING = 6,                     /* "string"  */
  YYSYMBOL_CONST_DATA = 7,                 /* "list of numbers"  */
  YYSYMBOL_INT_TUPLE = 8,                  /* "tuple of integers"  */
  YYSYMBOL_SIMPLE_CALL = 9,                /* "call"  */
  YYSYMBOL_BINDING = 10,                   /* "binding"  */
  YYSYMBOL_NEWLINE = 11,                   /* "end of line"  */
  YYSYMBOL_INDENT = 12,                    /* "indented block"  */
  YYSYMBOL_DEDENT = 13,                    /* "dedent"  */
  YYSYMBOL_DEF = 14,                       /* "'def'"  */
  YYSYMBOL_CLASS = 15,                     /* "'class'"  */
  YYSYMBOL_RETURN = 16,                    /* "'return'"  */
  YYSYMBOL_PASS = 17,                      /* "'pass'"  */
  YYSYMBOL_FOR = 18,                       /* "'for'"  */
  YYSYMBOL_IN = 19,                        /* "'in'"  */
  YYSYMBOL_IF = 20,                        /* "'if'"  */
  YYSYMBOL_ELIF = 21,                      /* "'elif'"  */
  YYSYMBOL_ELSE = 22,                      /* "'else'"  */
  YYSYMBOL_WITH = 23,                      /* "'with'"  */
  YYSYMBOL_AS = 24,                        /* "'as'"  */
  YYSYMBOL_LAMBDA = 25,                    /* "'lambda'"  */
  YYSYMBOL_AND = 26,                       /* "'and'"  */
  YYSYMBOL_OR = 27,                        /* "'or'"  */
  YYSYMBOL_NOT = 28,                       /* "'not'"  */
  YYSYMBOL_TRUE = 29,                      /* "'True'"  */
  YYSYMBOL_FALSE = 30,                     /* "'False'"  */
  YYSYMBOL_NONE = 31,                      /* "'None'"  */
  YYSYMBOL_ARROW = 32,                     /* "'->'"  */
  YYSYMBOL_FLOORDIV = 33,                  /* "'//'"  */
  YYSYMBOL_POW = 34,                       /* "'**'"  */
  YYSYMBOL_EQ = 35,                        /* "'=='"  */
  YYSYMBOL_NE = 36,                        /* "'!='"  */
  YYSYMBOL_LE = 37,                        /* "'<='"  */
  YYSYMBOL_GE = 38,                        /* "'>='"  */
  YYSYMBOL_SHL = 39,                       /* "'<<'"  */
  YYSYMBOL_SHR = 40,                       /* "'>>'"  */
  YYSYMBOL_WHILE = 41,                     /* "'while'"  */
  YYSYMBOL_BREAK = 42,                     /* "'break'"  */
  YYSYMBOL_CONTINUE = 43,                  /* "'continue'"  */
  YYSYMBOL_ASSERT = 44,                    /* "'assert'"  */
  YYSYMBOL_AUGASSIGN = 45,                 /* "augmented assignment"  */
  YYSYMBOL_46_ = 46,                       /* '<'  */
  YYSYMBOL_47_ = 47,                       /* '>'  */
  YYSYMBOL_48_ = 48,                       /* '|'  */
  YYSYMBOL_49_ = 49,                       /* '^'  */
  YYSYMBOL_50_ = 50,                       /* '&'  */
  YYSYMBOL_51_ = 51,                       /* '+'  */
  YYSYMBOL_52_ = 52,                       /* '-'  */
  YYSYMBOL_53_ = 53,                       /* '*'  */
  YYSYMBOL_54_ = 54,                       /* '/'  */
  YYSYMBOL_55_ = 55,                       /* '%'  */
  YYSYMBOL_UMINUS = 56,                    /* UMINUS  */
  YYSYMBOL_57_ = 57,                       /* '='  */
  YYSYMBOL_58_ = 58,                       /* ':'  */
  YYSYMBOL_59_ = 59,                       /* ','  */
  YYSYMBOL_60_ = 60,                       /* '@'  */
  YYSYMBOL_61_ = 61,                       /* '('  */
  YYSYMBOL_62_ = 62,                       /* ')'  */
  YYSYMBOL_63_ = 63,                       /* '~'  */
  YYSYMBOL_64_ = 64,                       /* '.'  */
  YYSYMBOL_65_ = 65,                       /* '['  */
  YYSYMBOL_66_ = 66,                       /* ']'  */
  YYSYMBOL_67_ = 67,                       /* '{'  */
  YYSYMBOL_68_ = 68,                       /* '}'  */
  YYSYMBOL_YYACCEPT = 69,                  /* $accept  */
  YYSYMBOL_file = 70,                      /* file  */
  YYSYMBOL_stmts = 71,                     /* stmts  */
  YYSYMBOL_stmt = 72,                      /* stmt  */
  YYSYMBOL_simple = 73,                    /* simple  */
  YYSYMBOL_compound = 74,                  /* compound  */
  YYSYMBOL_decorators = 75,                /* decorators  */
  YYSYMBOL_decorator = 76,                 /* decorator  */
  YYSYMBOL_funcdef = 77,                   /* funcdef  */
  YYSYMBOL_78_1 = 78,                      /* @1  */
  YYSYMBOL_opt_ret = 79,                   /* opt_ret  */
  YYSYMBOL_params = 80,                    /* params  */
  YYSYMBOL_param_list = 81,                /* param_list  */
  YYSYMBOL_param = 82,                     /* param  */
  YYSYMBOL_classdef = 83,                  /* classdef  */
  YYSYMBOL_84_2 = 84,                      /* $@2  */
  YYSYMBOL_85_3 = 85,                      /* $@3  */
  YYSYMBOL_for_stmt = 86,                  /* for_stmt  */
  YYSYMBOL_while_stmt = 87,                /* while_stmt  */
  YYSYMBOL_if_stmt = 88,                   /* if_stmt  */
  YYSYMBOL_elifs = 89,                     /* elifs  */
  YYSYMBOL_with_stmt = 90,                 /* with_stmt  */
  YYSYMBOL_91_4 = 91,                      /* @4  */
  YYSYMBOL_suite = 92,                     /* suite  */
  YYSYMBOL_93_5 = 93,                      /* $@5  */
  YYSYMBOL_testlist = 94,                  /* testlist  */
  YYSYMBOL_test_seq = 95,                  /* test_seq  */
  YYSYMBOL_exprlist = 96,                  /* exprlist  */
  YYSYMBOL_expr_seq = 97,                  /* expr_seq  */
  YYSYMBOL_opt_comma = 98,                 /* opt_comma  */
  YYSYMBOL_test = 99,                      /* test  */
  YYSYMBOL_lambdef = 100,                  /* lambdef  */
  YYSYMBOL_lparams = 101,                  /* lparams  */
  YYSYMBOL_expr = 102,                     /* expr  */
  YYSYMBOL_atom_expr = 103,                /* atom_expr  */
  YYSYMBOL_args = 104,                     /* args  */
  YYSYMBOL_arglist = 105,                  /* arglist  */
  YYSYMBOL_subscripts = 106,               /* subscripts  */
  YYSYMBOL_sub_seq = 107,                  /* sub_seq  */
  YYSYMBOL_subscript = 108,                /* subscript  */
  YYSYMBOL_opt_test = 109,                 /* opt_test  */
  YYSYMBOL_dict_items = 110                /* dict_items  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */

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


#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_uint8 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_USE_ALLOCA
#  if YYSTACK_USE_ALLOCA
#   ifdef __GNUC__
#    define YYSTACK_ALLOC __builtin_alloca
#   elif defined __BUILTIN_VA_ARG_INCR
#    include <alloca.h> /* INFRINGES ON USER NAME SPACE */
#   elif defined _AIX
#    define YYSTACK_ALLOC __alloca
#   elif defined _MSC_VER
#    include <malloc.h> /* INFRINGES ON USER NAME SPACE */
#    define alloca _alloca
#   else
#    define YYSTACK_ALLOC alloca
#    if ! defined _ALLOCA_H && ! defined EXIT_SUCCESS
#     include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
      /* Use EXIT_SUCCESS as a witness for stdlib.h.  */
#     ifndef EXIT_SUCCESS
#      define EXIT_SUCCESS 0
#     endif
#    endif
#   endif
#  endif
# endif

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL \
             && defined YYSTYPE_IS_TRIVIAL && YYSTYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  76
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   854

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  69
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  42
/* YYNRULES -- Number of rules.  */
#define YYNRULES  136
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  251

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   301


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,    55,    50,     2,
      61,    62,    53,    51,    59,    52,    64,    54,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    58,     2,
      46,    57,    47,     2,    60,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    65,     2,    66,    49,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    67,    48,    68,    63,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      35,    36,    37,    38,    39,    40,    41,    42,    43,    44,
      45,    56
};

#if YYDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   140,   140,   141,   145,   153,   162,   163,   164,   167,
     168,   173,   179,   185,   191,   192,   193,   194,   199,   200,
     201,   204,   204,   204,   204,   205,   206,   207,   208,   211,
     212,   215,   218,   218,   235,   236,   239,   240,   243,   249,
     257,   258,   259,   260,   263,   263,   270,   270,   279,   287,
     294,   303,   304,   305,   315,   315,   325,   333,   334,   334,
     338,   339,   342,   350,   351,   354,   357,   358,   361,   362,
     365,   365,   367,   373,   380,   385,   393,   394,   395,   396,
     397,   398,   399,   400,   401,   402,   403,   404,   405,   406,
     407,   408,   409,   410,   411,   412,   413,   414,   415,   416,
     417,   425,   443,   449,   457,   458,   461,   462,   463,   474,
     475,   483,   486,   489,   490,   493,   494,   502,   502,   504,
     505,   506,   507,   508,   509,   510,   511,   512,   513,   514,
     515,   516,   517,   518,   519,   527,   528
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "identifier", "integer",
  "number", "string", "list of numbers", "tuple of integers", "call",
  "binding", "end of line", "indented block", "dedent", "'def'", "'class'",
  "'return'", "'pass'", "'for'", "'in'", "'if'", "'elif'", "'else'",
  "'with'", "'as'", "'lambda'", "'and'", "'or'", "'not'", "'True'",
  "'False'", "'None'", "'->'", "'//'", "'**'", "'=='", "'!='", "'<='",
  "'>='", "'<<'", "'>>'", "'while'", "'break'", "'continue'", "'assert'",
  "augmented assignment", "'<'", "'>'", "'|'", "'^'", "'&'", "'+'", "'-'",
  "'*'", "'/'", "'%'", "UMINUS", "'='", "':'", "','", "'@'", "'('", "')'",
  "'~'", "'.'", "'['", "']'", "'{'", "'}'", "$accept", "file", "stmts",
  "stmt", "simple", "compound", "decorators", "decorator", "funcdef", "@1",
  "opt_ret", "params", "param_list", "param", "classdef", "$@2", "$@3",
  "for_stmt", "while_stmt", "if_stmt", "elifs", "with_stmt", "@4", "suite",
  "$@5", "testlist", "test_seq", "exprlist", "expr_seq", "opt_comma",
  "test", "lambdef", "lparams", "expr", "atom_expr", "args", "arglist",
  "subscripts", "sub_seq", "subscript", "opt_test", "dict_items", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-117)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-119)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
     316,  -117,  -117,  -117,  -117,  -117,  -117,  -117,  -117,     4,
      11,   591,  -117,   620,   591,   591,     7,   620,  -117,  -117,
    -117,   591,  -117,  -117,   591,   620,   620,    33,   410,   620,
     451,   185,    16,   316,  -117,     8,  -117,     6,  -117,  -117,
    -117,  -117,  -117,  -117,  -117,   -32,   -37,  -117,   692,   -17,
     -16,    -6,  -117,     5,    14,   692,    22,   -15,  -117,   591,
     -24,   745,    23,    25,    51,    51,    -5,  -117,    28,  -117,
      51,  -117,    28,  -117,    31,    32,  -117,  -117,  -117,  -117,
    -117,  -117,   591,   591,   591,   591,   620,   620,   620,   620,
     620,   620,   620,   620,   620,   620,   620,   620,   620,   620,
     620,   620,   620,   620,   620,   620,   480,    89,   591,    94,
      37,    43,   591,   620,  -117,   381,   620,  -117,  -117,   591,
      99,   381,   591,  -117,   591,    41,    38,   591,   591,    39,
    -117,  -117,    53,    28,   745,   722,    51,    51,    85,    85,
      85,    85,    -2,    -2,    85,    85,   768,   776,   799,    24,
      24,    51,    51,    51,    63,   591,  -117,    46,    62,  -117,
      65,    61,    69,  -117,    71,   -29,    70,    72,  -117,  -117,
     381,    83,   692,   151,   153,    47,   662,   381,  -117,  -117,
    -117,  -117,  -117,  -117,  -117,  -117,   107,  -117,   591,  -117,
     591,  -117,  -117,   521,  -117,  -117,   550,  -117,   591,   591,
     591,   134,    94,  -117,   109,  -117,   381,  -117,  -117,   591,
     110,  -117,   381,  -117,   591,  -117,  -117,   112,   591,  -117,
    -117,  -117,  -117,  -117,   114,   591,   116,  -117,   381,  -117,
     316,   117,   381,  -117,  -117,   591,  -117,   591,  -117,  -117,
    -117,   251,   381,  -117,  -117,  -117,   381,  -117,    47,  -117,
    -117
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_uint8 yydefact[] =
{
       2,   119,   120,   121,   122,   128,   129,   130,     7,     0,
       0,    18,    20,     0,     0,     0,     0,     0,   123,   124,
     125,     0,    14,    15,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     3,     4,     0,     8,     0,    29,    25,
      27,    21,    24,    22,    23,     9,    60,    71,    70,    76,
       0,    44,    19,     0,    68,    66,     0,     0,    74,     0,
       0,    79,     0,    16,    98,    97,     0,   126,    68,    63,
      99,   131,    68,   133,     0,    68,     1,     5,     6,    30,
      26,    28,     0,     0,     0,    61,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,   104,     0,   117,    36,
       0,     0,     0,    69,    65,     0,     0,    54,    73,     0,
       0,     0,     0,    31,    69,     0,     0,     0,    69,     0,
      13,    10,    11,    68,    78,    77,    95,   100,    84,    85,
      81,    83,    89,    90,    80,    82,    86,    87,    88,    91,
      92,    93,    94,    96,   119,     0,   106,     0,    68,   101,
     115,     0,    68,   113,     0,    40,     0,    68,    38,    46,
       0,     0,    67,     0,     0,    51,     0,     0,    72,    75,
      49,    17,    64,   127,   132,   135,     0,   134,     0,    62,
       0,   107,   102,    69,   105,   103,    69,   112,   117,     0,
       0,    34,    69,    37,     0,    45,     0,    58,    57,     0,
       0,    50,     0,    55,     0,    12,   109,   119,     0,   110,
     114,   118,   116,    42,    41,     0,     0,    39,     0,    48,
       0,     0,     0,    56,   136,     0,   108,     0,    35,    32,
      47,     0,     0,    52,   111,    43,     0,    59,    51,    33,
      53
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
    -117,  -117,   -58,   -30,     0,  -117,  -117,   139,   141,  -117,
    -117,  -117,  -117,   -23,   145,  -117,  -117,  -117,  -117,  -117,
     -64,  -117,  -117,  -116,  -117,    -7,   -18,  -117,  -117,   -45,
     -13,  -117,  -117,    57,   168,  -117,  -117,  -117,  -117,     1,
       2,  -117
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,    32,    33,    34,   174,    36,    37,    38,    39,   246,
     226,   166,   167,   168,    40,   111,   204,    41,    42,    43,
     211,    44,   177,   175,   230,    45,    68,    53,    54,   114,
      46,    47,    60,    48,    49,   157,   158,   161,   162,   163,
     164,    75
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      35,    56,    57,    77,    52,   180,   123,    50,    62,   116,
      58,    63,    72,    82,    51,    69,    76,    69,    74,    78,
       9,    10,    85,   125,   112,    83,    84,   126,   199,   200,
     129,    88,    89,    35,   119,   120,     1,     2,     3,     4,
       5,     6,     7,   117,   106,   109,   118,   107,   108,   101,
     102,   103,   104,   105,   205,   110,   106,    88,    89,   107,
     108,   213,    18,    19,    20,    59,    27,   133,   209,   210,
      55,   132,    69,   113,    61,   130,   131,   103,   104,   105,
     115,   121,    64,    65,   122,    89,    70,   124,   189,   127,
     229,   128,   159,   156,    28,   160,   233,   165,    30,   169,
      31,   170,   179,   183,   184,   171,   178,   187,   192,   181,
     188,   182,   240,   194,   185,   186,   243,   197,    88,    89,
     190,   193,   203,  -118,    94,    95,   248,   195,   196,   198,
     249,   202,   201,    98,    99,   100,   101,   102,   103,   104,
     105,   206,   191,   134,   135,   136,   137,   138,   139,   140,
     141,   142,   143,   144,   145,   146,   147,   148,   149,   150,
     151,   152,   153,   207,   208,   214,   225,   228,   232,   235,
     172,   237,   241,   176,   239,   242,    79,   216,    80,   227,
     219,   215,    81,   160,   250,   221,   223,   224,     1,     2,
       3,     4,     5,     6,     7,    66,   231,   220,     0,     0,
     222,   234,     0,     0,     0,   236,     0,     0,     0,     0,
      16,    77,   238,    17,    18,    19,    20,     0,     0,     0,
       0,     0,   244,     0,   245,     0,     0,     0,     0,     0,
      35,     0,     0,     0,     0,     0,    25,    26,     0,     0,
       0,    35,     0,     0,     0,     0,    28,     0,    29,     0,
      30,     0,    31,    73,     1,     2,     3,     4,     5,     6,
       7,     8,     0,     0,   247,     9,    10,    11,    12,    13,
       0,    14,     0,     0,    15,     0,    16,     0,     0,    17,
      18,    19,    20,     0,     0,     0,     0,     0,     0,     0,
       0,     0,    21,    22,    23,    24,     0,     0,     0,     0,
       0,     0,    25,    26,     0,     0,     0,     0,     0,     0,
       0,    27,    28,     0,    29,     0,    30,     0,    31,     1,
       2,     3,     4,     5,     6,     7,     8,     0,     0,     0,
       9,    10,    11,    12,    13,     0,    14,     0,     0,    15,
       0,    16,     0,     0,    17,    18,    19,    20,     0,     0,
       0,     0,     0,     0,     0,     0,     0,    21,    22,    23,
      24,     0,     0,     0,     0,     0,     0,    25,    26,     0,
       0,     0,     0,     0,     0,     0,    27,    28,     0,    29,
       0,    30,     0,    31,     1,     2,     3,     4,     5,     6,
       7,     0,   173,     0,     0,     0,     0,    11,    12,     0,
       0,     0,     0,     0,     0,     0,    16,     0,     0,    17,
      18,    19,    20,     1,     2,     3,     4,     5,     6,     7,
       0,     0,     0,    22,    23,    24,     0,     0,     0,     0,
       0,     0,    25,    26,     0,    16,     0,     0,    17,    18,
      19,    20,    28,     0,    29,     0,    30,     0,    31,     0,
       0,     0,     0,     0,     1,     2,     3,     4,     5,     6,
       7,    25,    26,     0,     0,     0,     0,     0,     0,     0,
       0,    28,    67,    29,     0,    30,    16,    31,     0,    17,
      18,    19,    20,   154,     2,     3,     4,     5,     6,     7,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,    25,    26,     0,    16,     0,     0,    17,    18,
      19,    20,    28,     0,    29,     0,    30,    71,    31,     0,
       0,     0,     0,     0,   217,     2,     3,     4,     5,     6,
       7,    25,    26,   155,     0,     0,     0,     0,     0,     0,
       0,    28,     0,    29,     0,    30,    16,    31,     0,    17,
      18,    19,    20,     1,     2,     3,     4,     5,     6,     7,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,    25,    26,   218,    16,     0,     0,    17,    18,
      19,    20,    28,     0,    29,     0,    30,     0,    31,     0,
       0,     0,     0,     0,     1,     2,     3,     4,     5,     6,
       7,    25,    26,     0,     0,     0,     0,     0,  -117,     0,
       0,    28,     0,    29,     0,    30,    16,    31,     0,    17,
      18,    19,    20,     1,     2,     3,     4,     5,     6,     7,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,     0,    25,    26,     0,     0,     0,     0,    17,    18,
      19,    20,    28,     0,    29,     0,    30,     0,    31,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
       0,    25,    26,     0,     0,     0,     0,     0,     0,     0,
       0,    28,     0,    29,     0,    30,     0,    31,    86,    87,
       0,     0,     0,     0,     0,    88,    89,    90,    91,    92,
      93,    94,    95,     0,     0,     0,     0,     0,    96,    97,
      98,    99,   100,   101,   102,   103,   104,   105,    86,    87,
     212,     0,     0,     0,     0,    88,    89,    90,    91,    92,
      93,    94,    95,     0,     0,     0,     0,     0,    96,    97,
      98,    99,   100,   101,   102,   103,   104,   105,    86,     0,
       0,     0,     0,     0,     0,    88,    89,    90,    91,    92,
      93,    94,    95,     0,     0,     0,     0,     0,    96,    97,
      98,    99,   100,   101,   102,   103,   104,   105,    88,    89,
      90,    91,    92,    93,    94,    95,     0,     0,     0,     0,
       0,    96,    97,    98,    99,   100,   101,   102,   103,   104,
     105,    88,    89,     0,     0,     0,     0,    94,    95,    88,
      89,     0,     0,     0,     0,    94,    95,    99,   100,   101,
     102,   103,   104,   105,     0,     0,   100,   101,   102,   103,
     104,   105,    88,    89,     0,     0,     0,     0,    94,    95,
       0,     0,     0,     0,     0,     0,     0,     0,     0,     0,
     101,   102,   103,   104,   105
};

static const yytype_int16 yycheck[] =
{
       0,    14,    15,    33,    11,   121,    11,     3,    21,    24,
       3,    24,    30,    45,     3,    28,     0,    30,    31,    11,
      14,    15,    59,    68,    19,    57,    58,    72,    57,    58,
      75,    33,    34,    33,    58,    59,     3,     4,     5,     6,
       7,     8,     9,    58,    61,    61,    59,    64,    65,    51,
      52,    53,    54,    55,   170,    61,    61,    33,    34,    64,
      65,   177,    29,    30,    31,    58,    60,    85,    21,    22,
      13,    84,    85,    59,    17,    82,    83,    53,    54,    55,
      58,    58,    25,    26,    59,    34,    29,    59,   133,    58,
     206,    59,     3,   106,    61,   108,   212,     3,    65,    62,
      67,    58,     3,    62,    66,   112,   119,    68,    62,   122,
      57,   124,   228,   158,   127,   128,   232,   162,    33,    34,
      57,    59,   167,    58,    39,    40,   242,    66,    59,    58,
     246,    59,    62,    48,    49,    50,    51,    52,    53,    54,
      55,    58,   155,    86,    87,    88,    89,    90,    91,    92,
      93,    94,    95,    96,    97,    98,    99,   100,   101,   102,
     103,   104,   105,    12,    11,    58,    32,    58,    58,    57,
     113,    57,   230,   116,    58,    58,    37,   190,    37,   202,
     193,   188,    37,   196,   248,   198,   199,   200,     3,     4,
       5,     6,     7,     8,     9,    27,   209,   196,    -1,    -1,
     198,   214,    -1,    -1,    -1,   218,    -1,    -1,    -1,    -1,
      25,   241,   225,    28,    29,    30,    31,    -1,    -1,    -1,
      -1,    -1,   235,    -1,   237,    -1,    -1,    -1,    -1,    -1,
     230,    -1,    -1,    -1,    -1,    -1,    51,    52,    -1,    -1,
      -1,   241,    -1,    -1,    -1,    -1,    61,    -1,    63,    -1,
      65,    -1,    67,    68,     3,     4,     5,     6,     7,     8,
       9,    10,    -1,    -1,    13,    14,    15,    16,    17,    18,
      -1,    20,    -1,    -1,    23,    -1,    25,    -1,    -1,    28,
      29,    30,    31,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    41,    42,    43,    44,    -1,    -1,    -1,    -1,
      -1,    -1,    51,    52,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    60,    61,    -1,    63,    -1,    65,    -1,    67,     3,
       4,     5,     6,     7,     8,     9,    10,    -1,    -1,    -1,
      14,    15,    16,    17,    18,    -1,    20,    -1,    -1,    23,
      -1,    25,    -1,    -1,    28,    29,    30,    31,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    41,    42,    43,
      44,    -1,    -1,    -1,    -1,    -1,    -1,    51,    52,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    60,    61,    -1,    63,
      -1,    65,    -1,    67,     3,     4,     5,     6,     7,     8,
       9,    -1,    11,    -1,    -1,    -1,    -1,    16,    17,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    25,    -1,    -1,    28,
      29,    30,    31,     3,     4,     5,     6,     7,     8,     9,
      -1,    -1,    -1,    42,    43,    44,    -1,    -1,    -1,    -1,
      -1,    -1,    51,    52,    -1,    25,    -1,    -1,    28,    29,
      30,    31,    61,    -1,    63,    -1,    65,    -1,    67,    -1,
      -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,     8,
       9,    51,    52,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    61,    62,    63,    -1,    65,    25,    67,    -1,    28,
      29,    30,    31,     3,     4,     5,     6,     7,     8,     9,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    51,    52,    -1,    25,    -1,    -1,    28,    29,
      30,    31,    61,    -1,    63,    -1,    65,    66,    67,    -1,
      -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,     8,
       9,    51,    52,    53,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    61,    -1,    63,    -1,    65,    25,    67,    -1,    28,
      29,    30,    31,     3,     4,     5,     6,     7,     8,     9,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    51,    52,    53,    25,    -1,    -1,    28,    29,
      30,    31,    61,    -1,    63,    -1,    65,    -1,    67,    -1,
      -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,     8,
       9,    51,    52,    -1,    -1,    -1,    -1,    -1,    58,    -1,
      -1,    61,    -1,    63,    -1,    65,    25,    67,    -1,    28,
      29,    30,    31,     3,     4,     5,     6,     7,     8,     9,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    51,    52,    -1,    -1,    -1,    -1,    28,    29,
      30,    31,    61,    -1,    63,    -1,    65,    -1,    67,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    51,    52,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    61,    -1,    63,    -1,    65,    -1,    67,    26,    27,
      -1,    -1,    -1,    -1,    -1,    33,    34,    35,    36,    37,
      38,    39,    40,    -1,    -1,    -1,    -1,    -1,    46,    47,
      48,    49,    50,    51,    52,    53,    54,    55,    26,    27,
      58,    -1,    -1,    -1,    -1,    33,    34,    35,    36,    37,
      38,    39,    40,    -1,    -1,    -1,    -1,    -1,    46,    47,
      48,    49,    50,    51,    52,    53,    54,    55,    26,    -1,
      -1,    -1,    -1,    -1,    -1,    33,    34,    35,    36,    37,
      38,    39,    40,    -1,    -1,    -1,    -1,    -1,    46,    47,
      48,    49,    50,    51,    52,    53,    54,    55,    33,    34,
      35,    36,    37,    38,    39,    40,    -1,    -1,    -1,    -1,
      -1,    46,    47,    48,    49,    50,    51,    52,    53,    54,
      55,    33,    34,    -1,    -1,    -1,    -1,    39,    40,    33,
      34,    -1,    -1,    -1,    -1,    39,    40,    49,    50,    51,
      52,    53,    54,    55,    -1,    -1,    50,    51,    52,    53,
      54,    55,    33,    34,    -1,    -1,    -1,    -1,    39,    40,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,
      51,    52,    53,    54,    55
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,     3,     4,     5,     6,     7,     8,     9,    10,    14,
      15,    16,    17,    18,    20,    23,    25,    28,    29,    30,
      31,    41,    42,    43,    44,    51,    52,    60,    61,    63,
      65,    67,    70,    71,    72,    73,    74,    75,    76,    77,
      83,    86,    87,    88,    90,    94,    99,   100,   102,   103,
       3,     3,    94,    96,    97,   102,    99,    99,     3,    58,
     101,   102,    99,    99,   102,   102,   103,    62,    95,    99,
     102,    66,    95,    68,    99,   110,     0,    72,    11,    76,
      77,    83,    45,    57,    58,    59,    26,    27,    33,    34,
      35,    36,    37,    38,    39,    40,    46,    47,    48,    49,
      50,    51,    52,    53,    54,    55,    61,    64,    65,    61,
      61,    84,    19,    59,    98,    58,    24,    58,    99,    58,
      59,    58,    59,    11,    59,    98,    98,    58,    59,    98,
      94,    94,    99,    95,   102,   102,   102,   102,   102,   102,
     102,   102,   102,   102,   102,   102,   102,   102,   102,   102,
     102,   102,   102,   102,     3,    53,    99,   104,   105,     3,
      99,   106,   107,   108,   109,     3,    80,    81,    82,    62,
      58,    94,   102,    11,    73,    92,   102,    91,    99,     3,
      92,    99,    99,    62,    66,    99,    99,    68,    57,    98,
      57,    99,    62,    59,    98,    66,    59,    98,    58,    57,
      58,    62,    59,    98,    85,    92,    58,    12,    11,    21,
      22,    89,    58,    92,    58,    94,    99,     3,    53,    99,
     108,    99,   109,    99,    99,    32,    79,    82,    58,    92,
      93,    99,    58,    92,    99,    57,    99,    57,    99,    58,
      92,    71,    58,    92,    99,    99,    78,    13,    92,    92,
      89
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    69,    70,    70,    71,    71,    72,    72,    72,    73,
      73,    73,    73,    73,    73,    73,    73,    73,    73,    73,
      73,    74,    74,    74,    74,    74,    74,    74,    74,    75,
      75,    76,    78,    77,    79,    79,    80,    80,    81,    81,
      82,    82,    82,    82,    84,    83,    85,    83,    86,    87,
      88,    89,    89,    89,    91,    90,    90,    92,    93,    92,
      94,    94,    94,    95,    95,    96,    97,    97,    98,    98,
      99,    99,   100,   100,   101,   101,   102,   102,   102,   102,
     102,   102,   102,   102,   102,   102,   102,   102,   102,   102,
     102,   102,   102,   102,   102,   102,   102,   102,   102,   102,
     102,   103,   103,   103,   104,   104,   105,   105,   105,   105,
     105,   105,   106,   107,   107,   108,   108,   109,   109,   103,
     103,   103,   103,   103,   103,   103,   103,   103,   103,   103,
     103,   103,   103,   103,   103,   110,   110
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     0,     1,     1,     2,     2,     1,     1,     1,
       3,     3,     5,     3,     1,     1,     2,     4,     1,     2,
       1,     1,     1,     1,     1,     1,     2,     1,     2,     1,
       2,     3,     0,     9,     0,     2,     0,     2,     1,     3,
       1,     3,     3,     5,     0,     5,     0,     7,     6,     4,
       5,     0,     3,     5,     0,     5,     6,     2,     0,     5,
       1,     2,     4,     1,     3,     2,     1,     3,     0,     1,
       1,     1,     4,     3,     1,     3,     1,     3,     3,     2,
       3,     3,     3,     3,     3,     3,     3,     3,     3,     3,
       3,     3,     3,     3,     3,     3,     3,     2,     2,     2,
       3,     3,     4,     4,     0,     2,     1,     2,     4,     3,
       3,     5,     2,     1,     3,     1,     3,     0,     1,     1,
       1,     1,     1,     1,     1,     1,     2,     4,     1,     1,
       1,     2,     4,     2,     4,     3,     5
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = YYEMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == YYEMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (&yylloc, P, YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use YYerror or YYUNDEF. */
#define YYERRCODE YYUNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if YYDEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location, P); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, Parser *P)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  YY_USE (P);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, Parser *P)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp, P);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule, Parser *P)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]), P);
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule, P); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !YYDEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !YYDEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;
  int yyn = yypact[+*yyctx->yyssp];
  if (!yypact_value_is_default (yyn))
    {
      /* Start YYX at -YYN if negative to avoid negative indexes in
         YYCHECK.  In other words, skip the first -YYN actions for
         this state because they are default actions.  */
      int yyxbegin = yyn < 0 ? -yyn : 0;
      /* Stay within bounds of both yycheck and yytname.  */
      int yychecklim = YYLAST - yyn + 1;
      int yyxend = yychecklim < YYNTOKENS ? yychecklim : YYNTOKENS;
      int yyx;
      for (yyx = yyxbegin; yyx < yyxend; ++yyx)
        if (yycheck[yyx + yyn] == yyx && yyx != YYSYMBOL_YYerror
            && !yytable_value_is_error (yytable[yyx + yyn]))
          {
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = YY_CAST (yysymbol_kind_t, yyx);
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx, Parser *P);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp, Parser *P)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  YY_USE (P);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}






/*----------.
| yyparse.  |
`----------*/

int
yyparse (Parser *P)
{
/* Lookahead token kind.  */
int yychar;


/* The semantic value of the lookahead symbol.  */
/* Default value used for initialization, for pacifying older GCCs
   or non-GCC compilers.  */
YY_INITIAL_VALUE (static YYSTYPE yyval_default;)
YYSTYPE yylval YY_INITIAL_VALUE (= yyval_default);

/* Location data for the lookahead symbol.  */
static YYLTYPE yyloc_default
# if defined YYLTYPE_IS_TRIVIAL && YYLTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
YYLTYPE yylloc = yyloc_default;

    /* Number of syntax errors so far.  */
    int yynerrs = 0;

    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = YYEMPTY; /* Cause a token to be read.  */

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == YYEMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex (&yylval, &yylloc, P);
    }

  if (yychar <= YYEOF)
    {
      yychar = YYEOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == YYerror)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = YYUNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    goto yydefault;
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = YYEMPTY;
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  switch (yyn)
    {
  case 2: /* file: %empty  */
                        { P->file.body.n = 0; }
    break;

  case 3: /* file: stmts  */
                        { P->file.body = (yyvsp[0].stl); }
    break;

  case 4: /* stmts: stmt  */
            {
            StList l = { 0 };
            int r = stream_stmt(P, (yyvsp[0].st));
            CHECK(r >= 0);
            if (r == 0)
                st_push(A, &l, (yyvsp[0].st));
            (yyval.stl) = l;
        }
    break;

  case 5: /* stmts: stmts stmt  */
                  {
            (yyval.stl) = (yyvsp[-1].stl);
            int r = stream_stmt(P, (yyvsp[0].st));
            CHECK(r >= 0);
            if (r == 0)
                st_push(A, &(yyval.stl), (yyvsp[0].st));
        }
    break;

  case 6: /* stmt: simple "end of line"  */
                        { (yyval.st) = (yyvsp[-1].st); }
    break;

  case 7: /* stmt: "binding"  */
                        { (yyval.st) = (yyvsp[0].st); }
    break;

  case 8: /* stmt: compound  */
                        { (yyval.st) = (yyvsp[0].st); }
    break;

  case 9: /* simple: testlist  */
                        { (yyval.st) = st_new(A, ST_EXPR, L((yylsp[0]))); (yyval.st)->u.expr = (yyvsp[0].sx); }
    break;

  case 10: /* simple: testlist '=' testlist  */
                              {
            (yyval.st) = st_new(A, ST_ASSIGN, L((yylsp[-2])));
            (yyval.st)->u.assign.target = (yyvsp[-2].sx);
            (yyval.st)->u.assign.value = (yyvsp[0].sx);
        }
    break;

  case 11: /* simple: testlist ':' test  */
                          {
            /* x: T.float32, TVM's declaration of a mutable scalar */
            (yyval.st) = st_new(A, ST_DECLARE, L((yylsp[-2])));
            (yyval.st)->u.assign.target = (yyvsp[-2].sx);
            (yyval.st)->u.assign.annot = (yyvsp[0].sx);
        }
    break;

  case 12: /* simple: testlist ':' test '=' testlist  */
                                       {
            (yyval.st) = st_new(A, ST_ASSIGN, L((yylsp[-4])));
            (yyval.st)->u.assign.target = (yyvsp[-4].sx);
            (yyval.st)->u.assign.annot = (yyvsp[-2].sx);
            (yyval.st)->u.assign.value = (yyvsp[0].sx);
        }
    break;

  case 13: /* simple: testlist "augmented assignment" testlist  */
                                    {
            /* B[i] += x is B[i] = B[i] + x */
            (yyval.st) = st_new(A, ST_ASSIGN, L((yylsp[-2])));
            (yyval.st)->u.assign.target = (yyvsp[-2].sx);
            CHECK((yyval.st)->u.assign.value = binop(P, (yyvsp[-1].op), (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1]))));
        }
    break;

  case 14: /* simple: "'break'"  */
                        { (yyval.st) = st_new(A, ST_BREAK, L((yylsp[0]))); }
    break;

  case 15: /* simple: "'continue'"  */
                        { (yyval.st) = st_new(A, ST_CONTINUE, L((yylsp[0]))); }
    break;

  case 16: /* simple: "'assert'" test  */
                        { (yyval.st) = st_new(A, ST_ASSERT, L((yylsp[-1]))); (yyval.st)->u.assign.target = (yyvsp[0].sx); }
    break;

  case 17: /* simple: "'assert'" test ',' test  */
                             {
            (yyval.st) = st_new(A, ST_ASSERT, L((yylsp[-3])));
            (yyval.st)->u.assign.target = (yyvsp[-2].sx);
            (yyval.st)->u.assign.value = (yyvsp[0].sx);
        }
    break;

  case 18: /* simple: "'return'"  */
                        { (yyval.st) = st_new(A, ST_RETURN, L((yylsp[0]))); }
    break;

  case 19: /* simple: "'return'" testlist  */
                        { (yyval.st) = st_new(A, ST_RETURN, L((yylsp[-1]))); (yyval.st)->u.expr = (yyvsp[0].sx); }
    break;

  case 20: /* simple: "'pass'"  */
                        { (yyval.st) = st_new(A, ST_PASS, L((yylsp[0]))); }
    break;

  case 25: /* compound: funcdef  */
                                    { (yyval.st) = (yyvsp[0].st); }
    break;

  case 26: /* compound: decorators funcdef  */
                                    { (yyval.st) = (yyvsp[0].st); (yyval.st)->u.def.decorators = (yyvsp[-1].list); (yyval.st)->loc = L((yylsp[-1])); }
    break;

  case 27: /* compound: classdef  */
                                    { (yyval.st) = (yyvsp[0].st); }
    break;

  case 28: /* compound: decorators classdef  */
                                    { (yyval.st) = (yyvsp[0].st); (yyval.st)->u.def.decorators = (yyvsp[-1].list); (yyval.st)->loc = L((yylsp[-1])); }
    break;

  case 29: /* decorators: decorator  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); P->decos = (yyval.list); P->decos_loc = L((yylsp[0])); }
    break;

  case 30: /* decorators: decorators decorator  */
                                    { (yyval.list) = (yyvsp[-1].list); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); P->decos = (yyval.list); }
    break;

  case 31: /* decorator: '@' atom_expr "end of line"  */
                                    { (yyval.sx) = (yyvsp[-1].sx); }
    break;

  case 32: /* @1: %empty  */
                                             {
            St *h = st_new(A, ST_DEF, P->decos.n ? P->decos_loc : L((yylsp[-6])));
            h->u.def.decorators = P->decos;
            h->u.def.name = (yyvsp[-5].sym);
            h->u.def.name_loc = L((yylsp[-5]));
            h->u.def.params = (yyvsp[-3].params).items;
            h->u.def.nparams = (yyvsp[-3].params).n;
            h->u.def.ret = (yyvsp[-1].sx);
            memset(&P->decos, 0, sizeof P->decos);
            CHECK(stream_def_begin(P, h) == 0);
            (yyval.st) = h;
        }
    break;

  case 33: /* funcdef: "'def'" "identifier" '(' params ')' opt_ret ':' @1 suite  */
                {
            (yyval.st) = (yyvsp[-1].st);
            CHECK(stream_def_end(P, (yyval.st), &(yyvsp[0].stl)) == 0);
        }
    break;

  case 34: /* opt_ret: %empty  */
                        { (yyval.sx) = NULL; }
    break;

  case 35: /* opt_ret: "'->'" test  */
                        { (yyval.sx) = (yyvsp[0].sx); }
    break;

  case 36: /* params: %empty  */
                                    { (yyval.params).items = NULL; (yyval.params).n = (yyval.params).cap = 0; }
    break;

  case 37: /* params: param_list opt_comma  */
                                    { (yyval.params) = (yyvsp[-1].params); }
    break;

  case 38: /* param_list: param  */
                  {
                (yyval.params).items = NULL; (yyval.params).n = (yyval.params).cap = 0;
                SxParam *p = arena_alloc(A, sizeof *p);
                *p = (yyvsp[0].param);
                vec_push(A, &(yyval.params).items, &(yyval.params).n, &(yyval.params).cap, p);
            }
    break;

  case 39: /* param_list: param_list ',' param  */
                                 {
                (yyval.params) = (yyvsp[-2].params);
                SxParam *p = arena_alloc(A, sizeof *p);
                *p = (yyvsp[0].param);
                vec_push(A, &(yyval.params).items, &(yyval.params).n, &(yyval.params).cap, p);
            }
    break;

  case 40: /* param: "identifier"  */
                            { (yyval.param).name = (yyvsp[0].sym); (yyval.param).loc = L((yylsp[0])); (yyval.param).annot = NULL; (yyval.param).dflt = NULL; }
    break;

  case 41: /* param: "identifier" ':' test  */
                            { (yyval.param).name = (yyvsp[-2].sym); (yyval.param).loc = L((yylsp[-2])); (yyval.param).annot = (yyvsp[0].sx); (yyval.param).dflt = NULL; }
    break;

  case 42: /* param: "identifier" '=' test  */
                            { (yyval.param).name = (yyvsp[-2].sym); (yyval.param).loc = L((yylsp[-2])); (yyval.param).annot = NULL; (yyval.param).dflt = (yyvsp[0].sx); }
    break;

  case 43: /* param: "identifier" ':' test '=' test  */
                              { (yyval.param).name = (yyvsp[-4].sym); (yyval.param).loc = L((yylsp[-4])); (yyval.param).annot = (yyvsp[-2].sx); (yyval.param).dflt = (yyvsp[0].sx); }
    break;

  case 44: /* $@2: %empty  */
                     { CHECK(stream_class(P, (yyvsp[0].sym)) == 0); }
    break;

  case 45: /* classdef: "'class'" "identifier" $@2 ':' suite  */
                                                                    {
            (yyval.st) = st_new(A, ST_CLASS, L((yylsp[-4])));
            (yyval.st)->u.def.name = (yyvsp[-3].sym);
            (yyval.st)->u.def.name_loc = L((yylsp[-3]));
            (yyval.st)->u.def.body = (yyvsp[0].stl);
            CHECK(stream_class(P, NULL) == 0);
        }
    break;

  case 46: /* $@3: %empty  */
                             { CHECK(stream_class(P, (yyvsp[-2].sym)) == 0); }
    break;

  case 47: /* classdef: "'class'" "identifier" '(' ')' $@3 ':' suite  */
                                                                            {
            (yyval.st) = st_new(A, ST_CLASS, L((yylsp[-6])));
            (yyval.st)->u.def.name = (yyvsp[-5].sym);
            (yyval.st)->u.def.name_loc = L((yylsp[-5]));
            (yyval.st)->u.def.body = (yyvsp[0].stl);
            CHECK(stream_class(P, NULL) == 0);
        }
    break;

  case 48: /* for_stmt: "'for'" exprlist "'in'" testlist ':' suite  */
                                             {
            (yyval.st) = st_new(A, ST_FOR, L((yylsp[-5])));
            (yyval.st)->u.loop.target = (yyvsp[-4].sx);
            (yyval.st)->u.loop.iter = (yyvsp[-2].sx);
            (yyval.st)->u.loop.body = (yyvsp[0].stl);
        }
    break;

  case 49: /* while_stmt: "'while'" test ':' suite  */
                                 {
            (yyval.st) = st_new(A, ST_WHILE, L((yylsp[-3])));
            (yyval.st)->u.loop.iter = (yyvsp[-2].sx);
            (yyval.st)->u.loop.body = (yyvsp[0].stl);
        }
    break;

  case 50: /* if_stmt: "'if'" test ':' suite elifs  */
                                 {
            (yyval.st) = st_new(A, ST_IF, L((yylsp[-4])));
            (yyval.st)->u.branch.cond = (yyvsp[-3].sx);
            (yyval.st)->u.branch.then = (yyvsp[-1].stl);
            (yyval.st)->u.branch.orelse = (yyvsp[0].stl);
        }
    break;

  case 51: /* elifs: %empty  */
                                { memset(&(yyval.stl), 0, sizeof (yyval.stl)); }
    break;

  case 52: /* elifs: "'else'" ':' suite  */
                                { (yyval.stl) = (yyvsp[0].stl); }
    break;

  case 53: /* elifs: "'elif'" test ':' suite elifs  */
                                 {
            St *s = st_new(A, ST_IF, L((yylsp[-4])));
            s->u.branch.cond = (yyvsp[-3].sx);
            s->u.branch.then = (yyvsp[-1].stl);
            s->u.branch.orelse = (yyvsp[0].stl);
            memset(&(yyval.stl), 0, sizeof (yyval.stl));
            st_push(A, &(yyval.stl), s);
        }
    break;

  case 54: /* @4: %empty  */
                         {
            St *h = st_new(A, ST_WITH, L((yylsp[-2])));
            h->u.with.ctx = (yyvsp[-1].sx);
            CHECK(stream_with_begin(P, h) == 0);
            (yyval.st) = h;
        }
    break;

  case 55: /* with_stmt: "'with'" test ':' @4 suite  */
                {
            (yyval.st) = (yyvsp[-1].st);
            (yyval.st)->u.with.body = (yyvsp[0].stl);
            CHECK(stream_with_end(P, (yyval.st), &(yyvsp[0].stl)) == 0);
        }
    break;

  case 56: /* with_stmt: "'with'" test "'as'" expr ':' suite  */
                                       {
            (yyval.st) = st_new(A, ST_WITH, L((yylsp[-5])));
            (yyval.st)->u.with.ctx = (yyvsp[-4].sx);
            (yyval.st)->u.with.as = (yyvsp[-2].sx);
            (yyval.st)->u.with.body = (yyvsp[0].stl);
        }
    break;

  case 57: /* suite: simple "end of line"  */
                                    { StList l = { 0 }; st_push(A, &l, (yyvsp[-1].st)); (yyval.stl) = l; }
    break;

  case 58: /* $@5: %empty  */
                      { P->depth++; }
    break;

  case 59: /* suite: "end of line" "indented block" $@5 stmts "dedent"  */
                                                   { P->depth--; (yyval.stl) = (yyvsp[-1].stl); }
    break;

  case 61: /* testlist: test ','  */
                   {
            CHECK((yyval.sx) = seq_or_single(P, list1(P, (yyvsp[-1].sx)), 1, L((yylsp[-1]))));
        }
    break;

  case 62: /* testlist: test ',' test_seq opt_comma  */
                                      {
            SxList l = list1(P, (yyvsp[-3].sx));
            for (int i = 0; i < (yyvsp[-1].list).n; i++)
                sx_push(A, &l, NULL, (yyvsp[-1].list).items[i]);
            CHECK((yyval.sx) = seq_or_single(P, l, 1, L((yylsp[-3]))));
        }
    break;

  case 63: /* test_seq: test  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 64: /* test_seq: test_seq ',' test  */
                                    { (yyval.list) = (yyvsp[-2].list); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 65: /* exprlist: expr_seq opt_comma  */
                                    { CHECK((yyval.sx) = seq_or_single(P, (yyvsp[-1].list), (yyvsp[0].flag), L((yylsp[-1])))); }
    break;

  case 66: /* expr_seq: expr  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 67: /* expr_seq: expr_seq ',' expr  */
                                    { (yyval.list) = (yyvsp[-2].list); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 68: /* opt_comma: %empty  */
                    { (yyval.flag) = 0; }
    break;

  case 69: /* opt_comma: ','  */
                    { (yyval.flag) = 1; }
    break;

  case 72: /* lambdef: "'lambda'" lparams ':' test  */
                                 {
            (yyval.sx) = sx_new(A, SX_LAMBDA, L((yylsp[-3])));
            (yyval.sx)->u.lambda.params = (yyvsp[-2].list);
            (yyval.sx)->u.lambda.body = (yyvsp[0].sx);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 73: /* lambdef: "'lambda'" ':' test  */
                         {
            (yyval.sx) = sx_new(A, SX_LAMBDA, L((yylsp[-2])));
            (yyval.sx)->u.lambda.body = (yyvsp[0].sx);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 74: /* lparams: "identifier"  */
              {
            Sx *n = sx_new(A, SX_NAME, L((yylsp[0])));
            n->u.name = (yyvsp[0].sym);
            (yyval.list) = list1(P, n);
        }
    break;

  case 75: /* lparams: lparams ',' "identifier"  */
                          {
            Sx *n = sx_new(A, SX_NAME, L((yylsp[0])));
            n->u.name = (yyvsp[0].sym);
            (yyval.list) = (yyvsp[-2].list);
            sx_push(A, &(yyval.list), NULL, n);
        }
    break;

  case 77: /* expr: expr "'or'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_OR, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 78: /* expr: expr "'and'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_AND, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 79: /* expr: "'not'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_NOT, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 80: /* expr: expr '<' expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_LT, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 81: /* expr: expr "'<='" expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_LE, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 82: /* expr: expr '>' expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_GT, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 83: /* expr: expr "'>='" expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_GE, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 84: /* expr: expr "'=='" expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_EQ, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 85: /* expr: expr "'!='" expr  */
                                    { CHECK((yyval.sx) = compare(P, OP_NE, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 86: /* expr: expr '|' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_BITOR, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 87: /* expr: expr '^' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_BITXOR, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 88: /* expr: expr '&' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_BITAND, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 89: /* expr: expr "'<<'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_SHL, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 90: /* expr: expr "'>>'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_SHR, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 91: /* expr: expr '+' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_ADD, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 92: /* expr: expr '-' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_SUB, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 93: /* expr: expr '*' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_MUL, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 94: /* expr: expr '/' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_DIV, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 95: /* expr: expr "'//'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_FLOORDIV, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 96: /* expr: expr '%' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_MOD, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 97: /* expr: '-' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_NEG, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 98: /* expr: '+' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_POS, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 99: /* expr: '~' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_INVERT, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 100: /* expr: expr "'**'" expr  */
                    {
            diag_error(P->lx.src, L((yylsp[-1])), "'**' is not supported; write the product");
            YYABORT;
        }
    break;

  case 101: /* atom_expr: atom_expr '.' "identifier"  */
                              {
            if ((yyvsp[-2].sx)->kind == SX_NAME) {
                /* A dotted name such as R.nn.conv2d is one name. */
                char buf[256];
                int n = snprintf(buf, sizeof buf, "%s.%s", (yyvsp[-2].sx)->u.name->str, (yyvsp[0].sym)->str);
                if (n >= (int)sizeof buf) {
                    diag_error(P->lx.src, L((yylsp[-2])), "dotted name too long");
                    YYABORT;
                }
                (yyvsp[-2].sx)->u.name = intern(P->lx.names, buf, (size_t)n);
                (yyval.sx) = (yyvsp[-2].sx);
                break;
            }
            (yyval.sx) = sx_new(A, SX_ATTR, L((yylsp[-2])));
            (yyval.sx)->u.attr.obj = (yyvsp[-2].sx);
            (yyval.sx)->u.attr.name = (yyvsp[0].sym);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 102: /* atom_expr: atom_expr '(' args ')'  */
                                  {
            (yyval.sx) = sx_new(A, SX_CALL, L((yylsp[-3])));
            (yyval.sx)->u.call.fn = (yyvsp[-3].sx);
            (yyval.sx)->u.call.args = (yyvsp[-1].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 103: /* atom_expr: atom_expr '[' subscripts ']'  */
                                        {
            (yyval.sx) = sx_new(A, SX_INDEX, L((yylsp[-3])));
            (yyval.sx)->u.index.obj = (yyvsp[-3].sx);
            (yyval.sx)->u.index.items = (yyvsp[-1].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 104: /* args: %empty  */
                                    { memset(&(yyval.list), 0, sizeof (yyval.list)); }
    break;

  case 105: /* args: arglist opt_comma  */
                                    { (yyval.list) = (yyvsp[-1].list); }
    break;

  case 106: /* arglist: test  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 107: /* arglist: '*' test  */
                                    { Sx *s = sx_new(A, SX_STAR, L((yylsp[-1]))); s->u.bin.a = (yyvsp[0].sx); CHECK(s = deep(P, s)); (yyval.list) = list1(P, s); }
    break;

  case 108: /* arglist: arglist ',' '*' test  */
                              {
            if ((yyvsp[-3].list).keys) {
                diag_error(P->lx.src, L((yylsp[-1])), "positional argument follows keyword argument");
                YYABORT;
            }
            Sx *s = sx_new(A, SX_STAR, L((yylsp[-1])));
            s->u.bin.a = (yyvsp[0].sx);
            CHECK(s = deep(P, s));
            (yyval.list) = (yyvsp[-3].list);
            sx_push(A, &(yyval.list), NULL, s);
        }
    break;

  case 109: /* arglist: "identifier" '=' test  */
                                    { memset(&(yyval.list), 0, sizeof (yyval.list)); sx_push(A, &(yyval.list), (yyvsp[-2].sym), (yyvsp[0].sx)); }
    break;

  case 110: /* arglist: arglist ',' test  */
                          {
            if ((yyvsp[-2].list).keys) {
                diag_error(P->lx.src, L((yylsp[0])), "positional argument follows keyword argument");
                YYABORT;
            }
            (yyval.list) = (yyvsp[-2].list);
            sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx));
        }
    break;

  case 111: /* arglist: arglist ',' "identifier" '=' test  */
                                    { (yyval.list) = (yyvsp[-4].list); sx_push(A, &(yyval.list), (yyvsp[-2].sym), (yyvsp[0].sx)); }
    break;

  case 112: /* subscripts: sub_seq opt_comma  */
                                    { (yyval.list) = (yyvsp[-1].list); }
    break;

  case 113: /* sub_seq: subscript  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 114: /* sub_seq: sub_seq ',' subscript  */
                                    { (yyval.list) = (yyvsp[-2].list); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 116: /* subscript: opt_test ':' opt_test  */
                                 {
            (yyval.sx) = sx_new(A, SX_SLICE, L((yylsp[-1])));
            (yyval.sx)->u.slice.lo = (yyvsp[-2].sx);
            (yyval.sx)->u.slice.hi = (yyvsp[0].sx);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 117: /* opt_test: %empty  */
                 { (yyval.sx) = NULL; }
    break;

  case 119: /* atom_expr: "identifier"  */
                                    { (yyval.sx) = sx_new(A, SX_NAME, L((yylsp[0]))); (yyval.sx)->u.name = (yyvsp[0].sym); }
    break;

  case 120: /* atom_expr: "integer"  */
                                    { (yyval.sx) = sx_new(A, SX_INT, L((yylsp[0]))); (yyval.sx)->u.ival = (yyvsp[0].ival); }
    break;

  case 121: /* atom_expr: "number"  */
                                    { (yyval.sx) = sx_new(A, SX_FLOAT, L((yylsp[0]))); (yyval.sx)->u.fval = (yyvsp[0].fval); }
    break;

  case 122: /* atom_expr: "string"  */
                                    { (yyval.sx) = sx_new(A, SX_STR, L((yylsp[0]))); (yyval.sx)->u.str.s = (yyvsp[0].str).s; (yyval.sx)->u.str.len = (yyvsp[0].str).len; }
    break;

  case 123: /* atom_expr: "'True'"  */
                                    { (yyval.sx) = sx_new(A, SX_TRUE, L((yylsp[0]))); }
    break;

  case 124: /* atom_expr: "'False'"  */
                                    { (yyval.sx) = sx_new(A, SX_FALSE, L((yylsp[0]))); }
    break;

  case 125: /* atom_expr: "'None'"  */
                                    { (yyval.sx) = sx_new(A, SX_NONE, L((yylsp[0]))); }
    break;

  case 126: /* atom_expr: '(' ')'  */
                                    { (yyval.sx) = sx_new(A, SX_TUPLE, L((yylsp[-1]))); }
    break;

  case 127: /* atom_expr: '(' test_seq opt_comma ')'  */
                                    { CHECK((yyval.sx) = seq_or_single(P, (yyvsp[-2].list), (yyvsp[-1].flag), L((yylsp[-3])))); (yyval.sx)->paren = 1; }
    break;

  case 128: /* atom_expr: "list of numbers"  */
                                    { (yyval.sx) = sx_new(A, SX_CONST, (yyvsp[0].cst)->loc); (yyval.sx)->u.cst = (yyvsp[0].cst); }
    break;

  case 129: /* atom_expr: "tuple of integers"  */
                                    { (yyval.sx) = (yyvsp[0].sx); }
    break;

  case 130: /* atom_expr: "call"  */
                                    { (yyval.sx) = (yyvsp[0].sx); }
    break;

  case 131: /* atom_expr: '[' ']'  */
                                    { (yyval.sx) = sx_new(A, SX_LIST, L((yylsp[-1]))); }
    break;

  case 132: /* atom_expr: '[' test_seq opt_comma ']'  */
                                    { (yyval.sx) = sx_new(A, SX_LIST, L((yylsp[-3]))); (yyval.sx)->u.elems = (yyvsp[-2].list); CHECK((yyval.sx) = deep(P, (yyval.sx))); }
    break;

  case 133: /* atom_expr: '{' '}'  */
                                    { (yyval.sx) = sx_new(A, SX_DICT, L((yylsp[-1]))); }
    break;

  case 134: /* atom_expr: '{' dict_items opt_comma '}'  */
                                    {
            (yyval.sx) = sx_new(A, SX_DICT, L((yylsp[-3])));
            (yyval.sx)->u.pairs = (yyvsp[-2].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 135: /* dict_items: test ':' test  */
                                    { (yyval.list) = list1(P, (yyvsp[-2].sx)); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 136: /* dict_items: dict_items ',' test ':' test  */
                                         { (yyval.list) = (yyvsp[-4].list); sx_push(A, &(yyval.list), NULL, (yyvsp[-2].sx)); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;



      default: break;
    }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == YYEMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yytoken, &yylloc};
        if (yyreport_syntax_error (&yyctx, P) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= YYEOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == YYEOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc, P);
          yychar = YYEMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp, P);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (&yylloc, P, YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != YYEMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc, P);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp, P);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif

  return yyresult;
}



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
