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
  YYSYMBOL_WHILE = 39,                     /* "'while'"  */
  YYSYMBOL_BREAK = 40,                     /* "'break'"  */
  YYSYMBOL_CONTINUE = 41,                  /* "'continue'"  */
  YYSYMBOL_ASSERT = 42,                    /* "'assert'"  */
  YYSYMBOL_AUGASSIGN = 43,                 /* "augmented assignment"  */
  YYSYMBOL_44_ = 44,                       /* '<'  */
  YYSYMBOL_45_ = 45,                       /* '>'  */
  YYSYMBOL_46_ = 46,                       /* '+'  */
  YYSYMBOL_47_ = 47,                       /* '-'  */
  YYSYMBOL_48_ = 48,                       /* '*'  */
  YYSYMBOL_49_ = 49,                       /* '/'  */
  YYSYMBOL_50_ = 50,                       /* '%'  */
  YYSYMBOL_UMINUS = 51,                    /* UMINUS  */
  YYSYMBOL_52_ = 52,                       /* '='  */
  YYSYMBOL_53_ = 53,                       /* ':'  */
  YYSYMBOL_54_ = 54,                       /* ','  */
  YYSYMBOL_55_ = 55,                       /* '@'  */
  YYSYMBOL_56_ = 56,                       /* '('  */
  YYSYMBOL_57_ = 57,                       /* ')'  */
  YYSYMBOL_58_ = 58,                       /* '.'  */
  YYSYMBOL_59_ = 59,                       /* '['  */
  YYSYMBOL_60_ = 60,                       /* ']'  */
  YYSYMBOL_61_ = 61,                       /* '{'  */
  YYSYMBOL_62_ = 62,                       /* '}'  */
  YYSYMBOL_YYACCEPT = 63,                  /* $accept  */
  YYSYMBOL_file = 64,                      /* file  */
  YYSYMBOL_stmts = 65,                     /* stmts  */
  YYSYMBOL_stmt = 66,                      /* stmt  */
  YYSYMBOL_simple = 67,                    /* simple  */
  YYSYMBOL_compound = 68,                  /* compound  */
  YYSYMBOL_decorators = 69,                /* decorators  */
  YYSYMBOL_decorator = 70,                 /* decorator  */
  YYSYMBOL_funcdef = 71,                   /* funcdef  */
  YYSYMBOL_72_1 = 72,                      /* @1  */
  YYSYMBOL_opt_ret = 73,                   /* opt_ret  */
  YYSYMBOL_params = 74,                    /* params  */
  YYSYMBOL_param_list = 75,                /* param_list  */
  YYSYMBOL_param = 76,                     /* param  */
  YYSYMBOL_classdef = 77,                  /* classdef  */
  YYSYMBOL_78_2 = 78,                      /* $@2  */
  YYSYMBOL_79_3 = 79,                      /* $@3  */
  YYSYMBOL_for_stmt = 80,                  /* for_stmt  */
  YYSYMBOL_while_stmt = 81,                /* while_stmt  */
  YYSYMBOL_if_stmt = 82,                   /* if_stmt  */
  YYSYMBOL_elifs = 83,                     /* elifs  */
  YYSYMBOL_with_stmt = 84,                 /* with_stmt  */
  YYSYMBOL_85_4 = 85,                      /* @4  */
  YYSYMBOL_suite = 86,                     /* suite  */
  YYSYMBOL_87_5 = 87,                      /* $@5  */
  YYSYMBOL_testlist = 88,                  /* testlist  */
  YYSYMBOL_test_seq = 89,                  /* test_seq  */
  YYSYMBOL_exprlist = 90,                  /* exprlist  */
  YYSYMBOL_expr_seq = 91,                  /* expr_seq  */
  YYSYMBOL_opt_comma = 92,                 /* opt_comma  */
  YYSYMBOL_test = 93,                      /* test  */
  YYSYMBOL_lambdef = 94,                   /* lambdef  */
  YYSYMBOL_lparams = 95,                   /* lparams  */
  YYSYMBOL_expr = 96,                      /* expr  */
  YYSYMBOL_atom_expr = 97,                 /* atom_expr  */
  YYSYMBOL_args = 98,                      /* args  */
  YYSYMBOL_arglist = 99,                   /* arglist  */
  YYSYMBOL_subscripts = 100,               /* subscripts  */
  YYSYMBOL_sub_seq = 101,                  /* sub_seq  */
  YYSYMBOL_subscript = 102,                /* subscript  */
  YYSYMBOL_opt_test = 103,                 /* opt_test  */
  YYSYMBOL_dict_items = 104                /* dict_items  */
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
#define YYFINAL  74
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   723

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  63
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  42
/* YYNRULES -- Number of rules.  */
#define YYNRULES  130
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  239

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   299


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
       2,     2,     2,     2,     2,     2,     2,    50,     2,     2,
      56,    57,    48,    46,    54,    47,    58,    49,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    53,     2,
      44,    52,    45,     2,    55,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    59,     2,    60,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    61,     2,    62,     2,     2,     2,     2,
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
      35,    36,    37,    38,    39,    40,    41,    42,    43,    51
};

#if YYDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   135,   135,   136,   140,   148,   157,   158,   159,   162,
     163,   168,   174,   180,   186,   187,   188,   189,   194,   195,
     196,   199,   199,   199,   199,   200,   201,   202,   203,   206,
     207,   210,   213,   213,   230,   231,   234,   235,   238,   244,
     252,   253,   254,   255,   258,   258,   265,   265,   274,   282,
     289,   298,   299,   300,   310,   310,   320,   328,   329,   329,
     333,   334,   337,   345,   346,   349,   352,   353,   356,   357,
     360,   360,   362,   368,   375,   380,   388,   389,   390,   391,
     392,   393,   394,   395,   396,   397,   398,   399,   400,   401,
     402,   403,   404,   405,   406,   414,   432,   438,   446,   447,
     450,   451,   452,   463,   464,   472,   475,   478,   479,   482,
     483,   491,   491,   493,   494,   495,   496,   497,   498,   499,
     500,   501,   502,   503,   504,   505,   506,   507,   508,   516,
     517
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
  "'>='", "'while'", "'break'", "'continue'", "'assert'",
  "augmented assignment", "'<'", "'>'", "'+'", "'-'", "'*'", "'/'", "'%'",
  "UMINUS", "'='", "':'", "','", "'@'", "'('", "')'", "'.'", "'['", "']'",
  "'{'", "'}'", "$accept", "file", "stmts", "stmt", "simple", "compound",
  "decorators", "decorator", "funcdef", "@1", "opt_ret", "params",
  "param_list", "param", "classdef", "$@2", "$@3", "for_stmt",
  "while_stmt", "if_stmt", "elifs", "with_stmt", "@4", "suite", "$@5",
  "testlist", "test_seq", "exprlist", "expr_seq", "opt_comma", "test",
  "lambdef", "lparams", "expr", "atom_expr", "args", "arglist",
  "subscripts", "sub_seq", "subscript", "opt_test", "dict_items", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-112)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-113)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
     293,  -112,  -112,  -112,  -112,  -112,  -112,  -112,  -112,    11,
      28,   558,  -112,   592,   558,   558,     3,   592,  -112,  -112,
    -112,   558,  -112,  -112,   558,   592,   592,    19,   397,   432,
     174,    21,   293,  -112,    26,  -112,    -2,  -112,  -112,  -112,
    -112,  -112,  -112,  -112,   -23,   -10,  -112,   648,   -16,     7,
       9,  -112,    22,    -8,   648,    31,   -15,  -112,   558,   -35,
     113,    32,    17,    45,    45,    -1,  -112,    20,  -112,  -112,
      20,  -112,    34,    36,  -112,  -112,  -112,  -112,  -112,  -112,
     558,   558,   558,   558,   592,   592,   592,   592,   592,   592,
     592,   592,   592,   592,   592,   592,   592,   592,   592,   477,
      88,   558,    90,    43,    50,   558,   592,  -112,   352,   592,
    -112,  -112,   558,   103,   352,   558,  -112,   558,    53,    51,
     558,   558,    52,  -112,  -112,    61,    20,   113,   673,    45,
      45,    48,    48,    48,    48,    48,    48,    18,    18,    45,
      45,    45,    63,   558,  -112,    60,    64,  -112,    67,    62,
      70,  -112,    72,   -18,    69,    73,  -112,  -112,   352,    75,
     648,   117,   141,    40,   623,   352,  -112,  -112,  -112,  -112,
    -112,  -112,  -112,  -112,   101,  -112,   558,  -112,   558,  -112,
    -112,   512,  -112,  -112,   523,  -112,   558,   558,   558,   123,
      90,  -112,   111,  -112,   352,  -112,  -112,   558,   114,  -112,
     352,  -112,   558,  -112,  -112,   118,   558,  -112,  -112,  -112,
    -112,  -112,   124,   558,   116,  -112,   352,  -112,   293,   132,
     352,  -112,  -112,   558,  -112,   558,  -112,  -112,  -112,   234,
     352,  -112,  -112,  -112,   352,  -112,    40,  -112,  -112
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_uint8 yydefact[] =
{
       2,   113,   114,   115,   116,   122,   123,   124,     7,     0,
       0,    18,    20,     0,     0,     0,     0,     0,   117,   118,
     119,     0,    14,    15,     0,     0,     0,     0,     0,     0,
       0,     0,     3,     4,     0,     8,     0,    29,    25,    27,
      21,    24,    22,    23,     9,    60,    71,    70,    76,     0,
      44,    19,     0,    68,    66,     0,     0,    74,     0,     0,
      79,     0,    16,    93,    92,     0,   120,    68,    63,   125,
      68,   127,     0,    68,     1,     5,     6,    30,    26,    28,
       0,     0,     0,    61,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,     0,    98,
       0,   111,    36,     0,     0,     0,    69,    65,     0,     0,
      54,    73,     0,     0,     0,     0,    31,    69,     0,     0,
       0,    69,     0,    13,    10,    11,    68,    78,    77,    90,
      94,    84,    85,    81,    83,    80,    82,    86,    87,    88,
      89,    91,   113,     0,   100,     0,    68,    95,   109,     0,
      68,   107,     0,    40,     0,    68,    38,    46,     0,     0,
      67,     0,     0,    51,     0,     0,    72,    75,    49,    17,
      64,   121,   126,   129,     0,   128,     0,    62,     0,   101,
      96,    69,    99,    97,    69,   106,   111,     0,     0,    34,
      69,    37,     0,    45,     0,    58,    57,     0,     0,    50,
       0,    55,     0,    12,   103,   113,     0,   104,   108,   112,
     110,    42,    41,     0,     0,    39,     0,    48,     0,     0,
       0,    56,   130,     0,   102,     0,    35,    32,    47,     0,
       0,    52,   105,    43,     0,    59,    51,    33,    53
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
    -112,  -112,   -52,   -28,     0,  -112,  -112,   150,   151,  -112,
    -112,  -112,  -112,     1,   152,  -112,  -112,  -112,  -112,  -112,
     -46,  -112,  -112,  -111,  -112,    -4,   -24,  -112,  -112,   -34,
     -13,  -112,  -112,    47,   165,  -112,  -112,  -112,  -112,    10,
      12,  -112
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,    31,    32,    33,   162,    35,    36,    37,    38,   234,
     214,   154,   155,   156,    39,   104,   192,    40,    41,    42,
     199,    43,   165,   163,   218,    44,    67,    52,    53,   107,
      45,    46,    59,    47,    48,   145,   146,   149,   150,   151,
     152,    73
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      34,    55,    56,   168,    75,    70,    57,    51,    61,   109,
     116,    62,     9,    10,    49,    68,    68,    72,   112,   113,
      80,    74,     1,     2,     3,     4,     5,     6,     7,    81,
      82,    50,    34,   118,   187,   188,   119,    76,   110,   122,
      99,   105,   100,   101,    83,   111,   106,   193,    18,    19,
      20,    86,    87,    27,   201,    99,    58,   100,   101,   126,
      54,   197,   198,   102,    60,   103,    96,    97,    98,   125,
      68,   115,    63,    64,   117,    28,   123,   124,    29,    87,
      30,    86,    87,   217,   108,   114,   144,   120,   148,   221,
     121,   147,   177,   153,    94,    95,    96,    97,    98,   166,
     157,   159,   169,   158,   170,   228,   167,   173,   174,   231,
     171,   172,   182,   176,   175,   178,   185,   180,   181,   236,
    -112,   191,   183,   237,   184,   186,   189,   190,   194,   195,
     179,   127,   128,   129,   130,   131,   132,   133,   134,   135,
     136,   137,   138,   139,   140,   141,    86,    87,    88,    89,
      90,    91,   196,   160,   202,   213,   164,    92,    93,    94,
      95,    96,    97,    98,   216,   204,   229,   220,   207,   227,
     223,   148,   203,   209,   211,   212,   225,     1,     2,     3,
       4,     5,     6,     7,   219,   230,    77,    78,    79,   222,
     238,   215,    65,   224,   208,     0,     0,     0,   210,    16,
     226,    75,    17,    18,    19,    20,     0,     0,     0,     0,
     232,     0,   233,     0,     0,     0,     0,     0,    34,     0,
      25,    26,     0,     0,     0,     0,     0,     0,     0,    34,
      28,     0,     0,    29,     0,    30,    71,     1,     2,     3,
       4,     5,     6,     7,     8,     0,     0,   235,     9,    10,
      11,    12,    13,     0,    14,     0,     0,    15,     0,    16,
       0,     0,    17,    18,    19,    20,     0,     0,     0,     0,
       0,     0,     0,    21,    22,    23,    24,     0,     0,     0,
      25,    26,     0,     0,     0,     0,     0,     0,     0,    27,
      28,     0,     0,    29,     0,    30,     1,     2,     3,     4,
       5,     6,     7,     8,     0,     0,     0,     9,    10,    11,
      12,    13,     0,    14,     0,     0,    15,     0,    16,     0,
       0,    17,    18,    19,    20,     0,     0,     0,     0,     0,
       0,     0,    21,    22,    23,    24,     0,     0,     0,    25,
      26,     0,     0,     0,     0,     0,     0,     0,    27,    28,
       0,     0,    29,     0,    30,     1,     2,     3,     4,     5,
       6,     7,     0,   161,     0,     0,     0,     0,    11,    12,
       0,     0,     0,     0,     0,     0,     0,    16,     0,     0,
      17,    18,    19,    20,     0,     0,     0,     0,     0,     0,
       0,     0,    22,    23,    24,     0,     0,     0,    25,    26,
       1,     2,     3,     4,     5,     6,     7,     0,    28,     0,
       0,    29,     0,    30,     0,     0,     0,     0,     0,     0,
       0,     0,    16,     0,     0,    17,    18,    19,    20,     0,
       0,     0,     0,     0,     0,     1,     2,     3,     4,     5,
       6,     7,     0,    25,    26,     0,     0,     0,     0,     0,
       0,     0,     0,    28,    66,     0,    29,    16,    30,     0,
      17,    18,    19,    20,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,    25,    26,
     142,     2,     3,     4,     5,     6,     7,     0,    28,     0,
       0,    29,    69,    30,     0,     0,     0,     0,     0,     0,
       0,     0,    16,     0,     0,    17,    18,    19,    20,     0,
       0,     0,     0,     0,     0,   205,     2,     3,     4,     5,
       6,     7,     0,    25,    26,   143,     1,     2,     3,     4,
       5,     6,     7,    28,     0,     0,    29,    16,    30,     0,
      17,    18,    19,    20,     0,     0,     0,     0,    16,     0,
       0,    17,    18,    19,    20,     0,     0,     0,    25,    26,
     206,     1,     2,     3,     4,     5,     6,     7,    28,    25,
      26,    29,     0,    30,     0,     0,  -111,     0,     0,    28,
       0,     0,    29,    16,    30,     0,    17,    18,    19,    20,
       0,     0,     0,     0,     0,     1,     2,     3,     4,     5,
       6,     7,     0,     0,    25,    26,     0,     0,     0,     0,
       0,     0,     0,     0,    28,     0,     0,    29,     0,    30,
      17,    18,    19,    20,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,    25,    26,
       0,     0,     0,     0,     0,     0,     0,     0,    28,    84,
      85,    29,     0,    30,     0,     0,    86,    87,    88,    89,
      90,    91,     0,     0,     0,     0,     0,    92,    93,    94,
      95,    96,    97,    98,    84,    85,   200,     0,     0,     0,
       0,    86,    87,    88,    89,    90,    91,     0,     0,     0,
       0,     0,    92,    93,    94,    95,    96,    97,    98,    84,
       0,     0,     0,     0,     0,     0,    86,    87,    88,    89,
      90,    91,     0,     0,     0,     0,     0,    92,    93,    94,
      95,    96,    97,    98
};

static const yytype_int16 yycheck[] =
{
       0,    14,    15,   114,    32,    29,     3,    11,    21,    24,
      11,    24,    14,    15,     3,    28,    29,    30,    53,    54,
      43,     0,     3,     4,     5,     6,     7,     8,     9,    52,
      53,     3,    32,    67,    52,    53,    70,    11,    53,    73,
      56,    19,    58,    59,    54,    58,    54,   158,    29,    30,
      31,    33,    34,    55,   165,    56,    53,    58,    59,    83,
      13,    21,    22,    56,    17,    56,    48,    49,    50,    82,
      83,    54,    25,    26,    54,    56,    80,    81,    59,    34,
      61,    33,    34,   194,    53,    53,    99,    53,   101,   200,
      54,     3,   126,     3,    46,    47,    48,    49,    50,   112,
      57,   105,   115,    53,   117,   216,     3,   120,   121,   220,
      57,    60,   146,    52,    62,    52,   150,    57,    54,   230,
      53,   155,    60,   234,    54,    53,    57,    54,    53,    12,
     143,    84,    85,    86,    87,    88,    89,    90,    91,    92,
      93,    94,    95,    96,    97,    98,    33,    34,    35,    36,
      37,    38,    11,   106,    53,    32,   109,    44,    45,    46,
      47,    48,    49,    50,    53,   178,   218,    53,   181,    53,
      52,   184,   176,   186,   187,   188,    52,     3,     4,     5,
       6,     7,     8,     9,   197,    53,    36,    36,    36,   202,
     236,   190,    27,   206,   184,    -1,    -1,    -1,   186,    25,
     213,   229,    28,    29,    30,    31,    -1,    -1,    -1,    -1,
     223,    -1,   225,    -1,    -1,    -1,    -1,    -1,   218,    -1,
      46,    47,    -1,    -1,    -1,    -1,    -1,    -1,    -1,   229,
      56,    -1,    -1,    59,    -1,    61,    62,     3,     4,     5,
       6,     7,     8,     9,    10,    -1,    -1,    13,    14,    15,
      16,    17,    18,    -1,    20,    -1,    -1,    23,    -1,    25,
      -1,    -1,    28,    29,    30,    31,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    39,    40,    41,    42,    -1,    -1,    -1,
      46,    47,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    55,
      56,    -1,    -1,    59,    -1,    61,     3,     4,     5,     6,
       7,     8,     9,    10,    -1,    -1,    -1,    14,    15,    16,
      17,    18,    -1,    20,    -1,    -1,    23,    -1,    25,    -1,
      -1,    28,    29,    30,    31,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    39,    40,    41,    42,    -1,    -1,    -1,    46,
      47,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    55,    56,
      -1,    -1,    59,    -1,    61,     3,     4,     5,     6,     7,
       8,     9,    -1,    11,    -1,    -1,    -1,    -1,    16,    17,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    25,    -1,    -1,
      28,    29,    30,    31,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    40,    41,    42,    -1,    -1,    -1,    46,    47,
       3,     4,     5,     6,     7,     8,     9,    -1,    56,    -1,
      -1,    59,    -1,    61,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    25,    -1,    -1,    28,    29,    30,    31,    -1,
      -1,    -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,
       8,     9,    -1,    46,    47,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    56,    57,    -1,    59,    25,    61,    -1,
      28,    29,    30,    31,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    46,    47,
       3,     4,     5,     6,     7,     8,     9,    -1,    56,    -1,
      -1,    59,    60,    61,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    25,    -1,    -1,    28,    29,    30,    31,    -1,
      -1,    -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,
       8,     9,    -1,    46,    47,    48,     3,     4,     5,     6,
       7,     8,     9,    56,    -1,    -1,    59,    25,    61,    -1,
      28,    29,    30,    31,    -1,    -1,    -1,    -1,    25,    -1,
      -1,    28,    29,    30,    31,    -1,    -1,    -1,    46,    47,
      48,     3,     4,     5,     6,     7,     8,     9,    56,    46,
      47,    59,    -1,    61,    -1,    -1,    53,    -1,    -1,    56,
      -1,    -1,    59,    25,    61,    -1,    28,    29,    30,    31,
      -1,    -1,    -1,    -1,    -1,     3,     4,     5,     6,     7,
       8,     9,    -1,    -1,    46,    47,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    56,    -1,    -1,    59,    -1,    61,
      28,    29,    30,    31,    -1,    -1,    -1,    -1,    -1,    -1,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    46,    47,
      -1,    -1,    -1,    -1,    -1,    -1,    -1,    -1,    56,    26,
      27,    59,    -1,    61,    -1,    -1,    33,    34,    35,    36,
      37,    38,    -1,    -1,    -1,    -1,    -1,    44,    45,    46,
      47,    48,    49,    50,    26,    27,    53,    -1,    -1,    -1,
      -1,    33,    34,    35,    36,    37,    38,    -1,    -1,    -1,
      -1,    -1,    44,    45,    46,    47,    48,    49,    50,    26,
      -1,    -1,    -1,    -1,    -1,    -1,    33,    34,    35,    36,
      37,    38,    -1,    -1,    -1,    -1,    -1,    44,    45,    46,
      47,    48,    49,    50
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,     3,     4,     5,     6,     7,     8,     9,    10,    14,
      15,    16,    17,    18,    20,    23,    25,    28,    29,    30,
      31,    39,    40,    41,    42,    46,    47,    55,    56,    59,
      61,    64,    65,    66,    67,    68,    69,    70,    71,    77,
      80,    81,    82,    84,    88,    93,    94,    96,    97,     3,
       3,    88,    90,    91,    96,    93,    93,     3,    53,    95,
      96,    93,    93,    96,    96,    97,    57,    89,    93,    60,
      89,    62,    93,   104,     0,    66,    11,    70,    71,    77,
      43,    52,    53,    54,    26,    27,    33,    34,    35,    36,
      37,    38,    44,    45,    46,    47,    48,    49,    50,    56,
      58,    59,    56,    56,    78,    19,    54,    92,    53,    24,
      53,    93,    53,    54,    53,    54,    11,    54,    92,    92,
      53,    54,    92,    88,    88,    93,    89,    96,    96,    96,
      96,    96,    96,    96,    96,    96,    96,    96,    96,    96,
      96,    96,     3,    48,    93,    98,    99,     3,    93,   100,
     101,   102,   103,     3,    74,    75,    76,    57,    53,    88,
      96,    11,    67,    86,    96,    85,    93,     3,    86,    93,
      93,    57,    60,    93,    93,    62,    52,    92,    52,    93,
      57,    54,    92,    60,    54,    92,    53,    52,    53,    57,
      54,    92,    79,    86,    53,    12,    11,    21,    22,    83,
      53,    86,    53,    88,    93,     3,    48,    93,   102,    93,
     103,    93,    93,    32,    73,    76,    53,    86,    87,    93,
      53,    86,    93,    52,    93,    52,    93,    53,    86,    65,
      53,    86,    93,    93,    72,    13,    86,    86,    83
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    63,    64,    64,    65,    65,    66,    66,    66,    67,
      67,    67,    67,    67,    67,    67,    67,    67,    67,    67,
      67,    68,    68,    68,    68,    68,    68,    68,    68,    69,
      69,    70,    72,    71,    73,    73,    74,    74,    75,    75,
      76,    76,    76,    76,    78,    77,    79,    77,    80,    81,
      82,    83,    83,    83,    85,    84,    84,    86,    87,    86,
      88,    88,    88,    89,    89,    90,    91,    91,    92,    92,
      93,    93,    94,    94,    95,    95,    96,    96,    96,    96,
      96,    96,    96,    96,    96,    96,    96,    96,    96,    96,
      96,    96,    96,    96,    96,    97,    97,    97,    98,    98,
      99,    99,    99,    99,    99,    99,   100,   101,   101,   102,
     102,   103,   103,    97,    97,    97,    97,    97,    97,    97,
      97,    97,    97,    97,    97,    97,    97,    97,    97,   104,
     104
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
       3,     3,     2,     2,     3,     3,     4,     4,     0,     2,
       1,     2,     4,     3,     3,     5,     2,     1,     3,     1,
       3,     0,     1,     1,     1,     1,     1,     1,     1,     1,
       2,     4,     1,     1,     1,     2,     4,     2,     4,     3,
       5
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

  case 86: /* expr: expr '+' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_ADD, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 87: /* expr: expr '-' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_SUB, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 88: /* expr: expr '*' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_MUL, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 89: /* expr: expr '/' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_DIV, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 90: /* expr: expr "'//'" expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_FLOORDIV, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 91: /* expr: expr '%' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_MOD, (yyvsp[-2].sx), (yyvsp[0].sx), L((yylsp[-1])))); }
    break;

  case 92: /* expr: '-' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_NEG, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 93: /* expr: '+' expr  */
                                    { CHECK((yyval.sx) = binop(P, OP_POS, (yyvsp[0].sx), NULL, L((yylsp[-1])))); }
    break;

  case 94: /* expr: expr "'**'" expr  */
                    {
            diag_error(P->lx.src, L((yylsp[-1])), "'**' is not supported; write the product");
            YYABORT;
        }
    break;

  case 95: /* atom_expr: atom_expr '.' "identifier"  */
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

  case 96: /* atom_expr: atom_expr '(' args ')'  */
                                  {
            (yyval.sx) = sx_new(A, SX_CALL, L((yylsp[-3])));
            (yyval.sx)->u.call.fn = (yyvsp[-3].sx);
            (yyval.sx)->u.call.args = (yyvsp[-1].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 97: /* atom_expr: atom_expr '[' subscripts ']'  */
                                        {
            (yyval.sx) = sx_new(A, SX_INDEX, L((yylsp[-3])));
            (yyval.sx)->u.index.obj = (yyvsp[-3].sx);
            (yyval.sx)->u.index.items = (yyvsp[-1].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 98: /* args: %empty  */
                                    { memset(&(yyval.list), 0, sizeof (yyval.list)); }
    break;

  case 99: /* args: arglist opt_comma  */
                                    { (yyval.list) = (yyvsp[-1].list); }
    break;

  case 100: /* arglist: test  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 101: /* arglist: '*' test  */
                                    { Sx *s = sx_new(A, SX_STAR, L((yylsp[-1]))); s->u.bin.a = (yyvsp[0].sx); CHECK(s = deep(P, s)); (yyval.list) = list1(P, s); }
    break;

  case 102: /* arglist: arglist ',' '*' test  */
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

  case 103: /* arglist: "identifier" '=' test  */
                                    { memset(&(yyval.list), 0, sizeof (yyval.list)); sx_push(A, &(yyval.list), (yyvsp[-2].sym), (yyvsp[0].sx)); }
    break;

  case 104: /* arglist: arglist ',' test  */
                          {
            if ((yyvsp[-2].list).keys) {
                diag_error(P->lx.src, L((yylsp[0])), "positional argument follows keyword argument");
                YYABORT;
            }
            (yyval.list) = (yyvsp[-2].list);
            sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx));
        }
    break;

  case 105: /* arglist: arglist ',' "identifier" '=' test  */
                                    { (yyval.list) = (yyvsp[-4].list); sx_push(A, &(yyval.list), (yyvsp[-2].sym), (yyvsp[0].sx)); }
    break;

  case 106: /* subscripts: sub_seq opt_comma  */
                                    { (yyval.list) = (yyvsp[-1].list); }
    break;

  case 107: /* sub_seq: subscript  */
                                    { (yyval.list) = list1(P, (yyvsp[0].sx)); }
    break;

  case 108: /* sub_seq: sub_seq ',' subscript  */
                                    { (yyval.list) = (yyvsp[-2].list); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 110: /* subscript: opt_test ':' opt_test  */
                                 {
            (yyval.sx) = sx_new(A, SX_SLICE, L((yylsp[-1])));
            (yyval.sx)->u.slice.lo = (yyvsp[-2].sx);
            (yyval.sx)->u.slice.hi = (yyvsp[0].sx);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 111: /* opt_test: %empty  */
                 { (yyval.sx) = NULL; }
    break;

  case 113: /* atom_expr: "identifier"  */
                                    { (yyval.sx) = sx_new(A, SX_NAME, L((yylsp[0]))); (yyval.sx)->u.name = (yyvsp[0].sym); }
    break;

  case 114: /* atom_expr: "integer"  */
                                    { (yyval.sx) = sx_new(A, SX_INT, L((yylsp[0]))); (yyval.sx)->u.ival = (yyvsp[0].ival); }
    break;

  case 115: /* atom_expr: "number"  */
                                    { (yyval.sx) = sx_new(A, SX_FLOAT, L((yylsp[0]))); (yyval.sx)->u.fval = (yyvsp[0].fval); }
    break;

  case 116: /* atom_expr: "string"  */
                                    { (yyval.sx) = sx_new(A, SX_STR, L((yylsp[0]))); (yyval.sx)->u.str.s = (yyvsp[0].str).s; (yyval.sx)->u.str.len = (yyvsp[0].str).len; }
    break;

  case 117: /* atom_expr: "'True'"  */
                                    { (yyval.sx) = sx_new(A, SX_TRUE, L((yylsp[0]))); }
    break;

  case 118: /* atom_expr: "'False'"  */
                                    { (yyval.sx) = sx_new(A, SX_FALSE, L((yylsp[0]))); }
    break;

  case 119: /* atom_expr: "'None'"  */
                                    { (yyval.sx) = sx_new(A, SX_NONE, L((yylsp[0]))); }
    break;

  case 120: /* atom_expr: '(' ')'  */
                                    { (yyval.sx) = sx_new(A, SX_TUPLE, L((yylsp[-1]))); }
    break;

  case 121: /* atom_expr: '(' test_seq opt_comma ')'  */
                                    { CHECK((yyval.sx) = seq_or_single(P, (yyvsp[-2].list), (yyvsp[-1].flag), L((yylsp[-3])))); (yyval.sx)->paren = 1; }
    break;

  case 122: /* atom_expr: "list of numbers"  */
                                    { (yyval.sx) = sx_new(A, SX_CONST, (yyvsp[0].cst)->loc); (yyval.sx)->u.cst = (yyvsp[0].cst); }
    break;

  case 123: /* atom_expr: "tuple of integers"  */
                                    { (yyval.sx) = (yyvsp[0].sx); }
    break;

  case 124: /* atom_expr: "call"  */
                                    { (yyval.sx) = (yyvsp[0].sx); }
    break;

  case 125: /* atom_expr: '[' ']'  */
                                    { (yyval.sx) = sx_new(A, SX_LIST, L((yylsp[-1]))); }
    break;

  case 126: /* atom_expr: '[' test_seq opt_comma ']'  */
                                    { (yyval.sx) = sx_new(A, SX_LIST, L((yylsp[-3]))); (yyval.sx)->u.elems = (yyvsp[-2].list); CHECK((yyval.sx) = deep(P, (yyval.sx))); }
    break;

  case 127: /* atom_expr: '{' '}'  */
                                    { (yyval.sx) = sx_new(A, SX_DICT, L((yylsp[-1]))); }
    break;

  case 128: /* atom_expr: '{' dict_items opt_comma '}'  */
                                    {
            (yyval.sx) = sx_new(A, SX_DICT, L((yylsp[-3])));
            (yyval.sx)->u.pairs = (yyvsp[-2].list);
            CHECK((yyval.sx) = deep(P, (yyval.sx)));
        }
    break;

  case 129: /* dict_items: test ':' test  */
                                    { (yyval.list) = list1(P, (yyvsp[-2].sx)); sx_push(A, &(yyval.list), NULL, (yyvsp[0].sx)); }
    break;

  case 130: /* dict_items: dict_items ',' test ':' test  */
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
