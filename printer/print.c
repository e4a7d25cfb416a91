/* Prints a module in lopt's canonical spelling of TVMScript: T.Buffer((..)),
 * T.block, T.grid for perfectly nested serial loops, shortest round-trip
 * floats, parentheses only where precedence needs them. */
#include "print.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/elem.h"
#include "../ir/oom.h"

/* Output goes through a buffer of our own: the printer writes many small
 * fragments, and stdio takes a lock for each. */
typedef struct Printer {
    FILE *out;
    int indent;
    int tvm;          /* --print-style=tvm: the spellings current TVM reads */
    const Module *m;  /* the module being printed (local functions need its name) */
    const Func *func; /* the Relax function being printed */
    size_t len;
    size_t flushed;   /* bytes written to out before buf */
    PrintMarks *marks;   /* print_module_marked: where bindings and functions start */
    unsigned long flushes;
    const StructInfo *si_last;   /* the last tensor type printed, whose text is si_text */
    size_t si_len;
    char si_text[128];
    char buf[1 << 15];
    /* the spelling of float constant elements met lately, by value and
     * dtype: weights repeat values, and finding the shortest digits costs */
    struct {
        uint64_t bits;
        DType dt;
        unsigned char len;   /* 0: empty */
        char s[30];
    } seen[256];
} Printer;

static void flush(Printer *p)
{
    fwrite(p->buf, 1, p->len, p->out);
    p->flushed += p->len;
    p->len = 0;
    p->flushes++;
}

static void put_n(Printer *p, const char *s, size_t n)
{
    if (p->len + n > sizeof p->buf) {
        flush(p);
        if (n > sizeof p->buf) {
            fwrite(s, 1, n, p->out);
            p->flushed += n;
            return;
        }
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
}

static void put(Printer *p, const char *s)
{
    put_n(p, s, strlen(s));
}

/* A name, whose length the interner knows (no strlen per name printed). */
static void put_sym(Printer *p, const Sym *s)
{
    put_n(p, s->str, s->len);
}

static void put_c(Printer *p, char c)
{
    if (p->len == sizeof p->buf)
        flush(p);
    p->buf[p->len++] = c;
}

/* The rare formatted fragments. */
static void putf(Printer *p, const char *fmt, ...) LOPT_PRINTF(2, 3);

static void putf(Printer *p, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    put_n(p, tmp, n < 0 ? 0 : (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_int(Printer *p, long long v)
{
    char buf[24], *q = buf + sizeof buf;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    *--q = 0;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--q = '-';
    put(p, q);
}

static void line(Printer *p)
{
    for (int i = 0; i < p->indent; i++)
        put_n(p, "    ", 4);
}

/* print_module_marked: the line about to be written starts f (var NULL) or
 * binds var, written at loc in the input. */
static void mark(Printer *p, const Func *f, const Var *var, Loc loc)
{
    PrintMarks *k = p->marks;
    if (!k)
        return;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        PrintMark *g = xrealloc(k->v, (size_t)k->cap * sizeof *g);
        if (!g)
            oom_fail();
        k->v = g;
    }
    k->v[k->n++] = (PrintMark){ p->flushed + p->len, f, var, loc };
}

static void print_str(Printer *out, const char *s, int len)
{
    put_c(out, '"');
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': put(out, "\\\""); break;
        case '\\': put(out, "\\\\"); break;
        case '\n': put(out, "\\n"); break;
        case '\t': put(out, "\\t"); break;
        case '\r': put(out, "\\r"); break;
        case 0: put(out, "\\0"); break;
        default: put_c(out, (char)c); break;
        }
    }
    put_c(out, '"');
}

static int g_format(char *buf, int neg, uint64_t q, int p, int x);

/* The shortest decimal that reads back as v through back (the identity for
 * a double, the rounding to a narrower dtype for a constant's element),
 * written by g_format. */
static int shortest_decimal(char *buf, double v, DType dt, int maxprec)
{
    char e[40];
    int prec = 1;
    for (; prec < maxprec; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        double r = strtod(e, NULL);
        if ((dt == DT_VOID ? r : round_to(dt, r)) == v)
            break;
    }
    snprintf(e, sizeof e, "%.*e", prec - 1, v);
    const char *c = e;
    int neg = *c == '-';
    c += neg;
    uint64_t q = 0;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            q = q * 10 + (uint64_t)(*c - '0');
    return g_format(buf, neg, q, prec, *c == 'e' ? atoi(c + 1) : 0);
}

static void print_double(Printer *out, double v)
{
    char buf[48];
    shortest_decimal(buf, v, DT_VOID, 17);
    put(out, buf);
}

static int prec_of(const Expr *e)
{
    switch (e->kind) {
    case E_BIN:
        switch (e->u.bin.op) {
        case B_BITAND: case B_BITOR: case B_BITXOR: case B_SHL: case B_SHR: return 8;   /* a call */
        case B_OR: return 1;
        case B_AND: return 2;
        case B_LT: case B_LE: case B_GT: case B_GE: case B_EQ: case B_NE: return 4;
        case B_ADD: case B_SUB: return 5;
        default: return 6;
        }
    case E_UNARY: return e->u.un.op == U_NOT ? 3 : e->u.un.op == U_BITNOT ? 8 : 7;
    case E_INT: return e->u.i.dtype == DT_VOID && e->u.i.v < 0 ? 7 : 8;
    case E_FLOAT: return e->u.f.dtype == DT_VOID && e->u.f.v < 0 ? 7 : 8;
    default: return 8;
    }
}

static const char *const binop_text[] = {
    [B_ADD] = " + ", [B_SUB] = " - ", [B_MUL] = " * ", [B_DIV] = " / ", [B_FLOORDIV] = " // ",
    [B_FLOORMOD] = " % ", [B_LT] = " < ", [B_LE] = " <= ", [B_GT] = " > ", [B_GE] = " >= ",
    [B_EQ] = " == ", [B_NE] = " != ", [B_AND] = " and ", [B_OR] = " or ",
};

static void expr(Printer *p, const Expr *e, int ctx);

static void exprs(Printer *p, Expr *const *items, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            put(p, ", ");
        expr(p, items[i], 0);
    }
}

static void tuple(Printer *p, Expr *const *items, int n)
{
    put(p, "(");
    exprs(p, items, n);
    put(p, n == 1 ? ",)" : ")");
}

static void typed(Printer *p, DType t)
{
    put(p, "T.");
    put(p, dtype_name(t));
    put(p, "(");
}

static void float_lit(Printer *p, double v, DType t)
{
    if (t != DT_VOID)
        typed(p, t);
    if (isnan(v))
        put(p, "\"nan\"");
    else if (isinf(v))
        put(p, v < 0 ? "\"-inf\"" : "\"inf\"");
    else
        print_double(p, v);
    if (t != DT_VOID)
        put(p, ")");
}

/* ---- the shortest digits of a float constant's element ---- */

__extension__ typedef unsigned __int128 U128;

/* 5^i, and 10^n as the double nearest it for n in -P10_LOW .. P10_HIGH,
 * filled once (pthread_once) before any thread reads them */
enum { P10_LOW = 30, P10_HIGH = 70 };
static U128 five[51];
static double p10_near[P10_LOW + P10_HIGH + 1];
static pthread_once_t five_once = PTHREAD_ONCE_INIT;

static void init_five(void)
{
    five[0] = 1;
    for (int i = 1; i < 51; i++)
        five[i] = five[i - 1] * 5;
    for (int n = -P10_LOW; n <= P10_HIGH; n++) {
        char e[16];
        snprintf(e, sizeof e, "1e%d", n);
        p10_near[n + P10_LOW] = strtod(e, NULL);
    }
}

static const uint64_t pow10_u64[] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull,
};

/* The first 19 significant digits of a = m * 2^e > 0 (m < 2^24: a float32,
 * float16 or bfloat16 value), exactly: a * 10^(18 - x) as the integer *d
 * of 19 digits and whether anything nonzero follows (*sticky), computed in
 * 128-bit integers. Returns -1 when they do not hold it, 1 when
 * a >= 10^(x+1) and 2 when a < 10^x (x is not the power of a's first digit). */
static int first_digits(uint64_t m, int e, int x, uint64_t *d, int *sticky)
{
    int s = 18 - x;
    U128 num = m, den = 1, r, rest;
    if (s >= 0) {
        /* m * 5^s * 2^(s + e); a power of two below, a shift */
        if (s > 40)
            return -1;
        num *= five[s];
        if (s + e >= 0) {
            if (s + e > 120 || num > ((U128)-1 >> (s + e + 1)))
                return -1;
            r = num << (s + e);
            rest = 0;
        } else {
            int shift = -(s + e);
            if (shift > 120)
                return -1;
            r = num >> shift;
            rest = num & ((((U128)1) << shift) - 1);
        }
    } else {
        /* a >= 10^19: m * 2^e / 10^-s */
        if (-s > 19 || e < 0 || e > 100 || num > ((U128)-1 >> (e + 1)))
            return -1;
        num <<= e;
        den = pow10_u64[-s];
        r = num / den;
        rest = num % den;
    }
    if (r >= pow10_u64[19])
        return 1;
    if (r < pow10_u64[18])
        return 2;
    *d = (uint64_t)r;
    *sticky = rest != 0;
    return 0;
}

/* %.{p}g's p digits of a from its first 19 (d, sticky; lead[p] = d's first
 * p digits): to nearest, ties to even, as printf rounds the exact value.
 * Returns them, the power of ten of the first in *qx, and in *err a lower
 * bound of the distance from them to a, in units of d's last digit. */
static uint64_t round_digits(uint64_t d, const uint64_t *lead, int sticky, int p, int x, int *qx, uint64_t *err)
{
    uint64_t unit = pow10_u64[19 - p], q = lead[p], rest = d - q * unit, half = unit / 2;
    *err = rest;
    if (rest > half || (rest == half && (sticky || (q & 1)))) {
        q++;
        *err = unit - rest - 1;
    }
    *qx = x;
    if (q == pow10_u64[p]) {     /* 9.99 rounded up to 10.0 */
        q /= 10;
        ++*qx;
    }
    return q;
}

/* Writes the p digits q with the first at power x as %.{p}g writes them:
 * trailing zeros dropped, an exponent of two digits or more when x < -4 or
 * x >= p. Returns the length. */
static int g_format(char *buf, int neg, uint64_t q, int p, int x)
{
    char d[24];
    int n = 0, len = 0;
    for (int i = p - 1; i >= 0; i--) {
        d[i] = (char)('0' + (int)(q % 10));
        q /= 10;
    }
    n = p;
    while (n > 1 && d[n - 1] == '0')
        n--;
    if (neg)
        buf[len++] = '-';
    if (x < -4 || x >= 16) {
        buf[len++] = d[0];
        if (n > 1) {
            buf[len++] = '.';
            for (int i = 1; i < n; i++)
                buf[len++] = d[i];
        }
        buf[len++] = 'e';
        buf[len++] = x < 0 ? '-' : '+';
        int a = x < 0 ? -x : x;
        if (a >= 100)
            buf[len++] = (char)('0' + a / 100);
        buf[len++] = (char)('0' + a / 10 % 10);
        buf[len++] = (char)('0' + a % 10);
    } else if (x < 0) {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = -1; i > x; i--)
            buf[len++] = '0';
        for (int i = 0; i < n; i++)
            buf[len++] = d[i];
    } else {
        for (int i = 0; i <= x; i++)
            buf[len++] = i < n ? d[i] : '0';
        buf[len++] = '.';
        if (n > x + 1)
            for (int i = x + 1; i < n; i++)
                buf[len++] = d[i];
        else
            buf[len++] = '0';
    }
    buf[len] = 0;
    return len;
}

/* The value of the decimal q * 10^k (q < 2^53) as strtod reads it: one
 * exact operation when 10^|k| is an exact double. */
static int decimal_value(uint64_t q, int k, double *v)
{
    static const double p10[] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    if (q >= ((uint64_t)1 << 53) || k < -22 || k > 22)
        return -1;
    *v = k < 0 ? (double)q / p10[-k] : (double)q * p10[k];
    return 0;
}

/* const_float's search, for the common element: the shortest %.{p}g of v
 * that reads back as v in dt. Returns the length written to buf, or 0 to
 * leave v to the search by snprintf and strtod. */
static int shortest_digits(char *buf, double v, DType dt)
{
    int neg = v < 0;
    double a = neg ? -v : v;
    if (!(a > 0) || isinf(a))
        return 0;
    /* a = m * 2^e, from the fields of the double (a subnormal one is no
     * narrower float's value) */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int field = (int)(bits >> 52) & 0x7ff;
    if (field == 0)
        return 0;
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e = field - 1075;
    int z = __builtin_ctzll(m);             /* m > 0 */
    m >>= z;
    e += z;
    if (m >> 24)
        return 0;                            /* not a float32 (or narrower) value */
    /* the power of ten of a's first digit, from its power of two
     * (2^b <= a < 2^(b+1)): floor(b log10(2)), or one more */
    int b = e + 63 - __builtin_clzll(m), x = (int)(((int64_t)b * 78913) >> 18), r;
    pthread_once(&five_once, init_five);
    uint64_t d;
    int sticky;
    for (int tries = 0; (r = first_digits(m, e, x, &d, &sticky)) != 0; tries++) {
        if (r < 0 || tries == 2)
            return 0;
        x += r == 1 ? 1 : -1;
    }
    /* d's first p digits, each a division by a constant of its own (a
     * multiplication), none waiting for another */
    uint64_t lead[10];
    lead[1] = d / 1000000000000000000ull;
    lead[2] = d / 100000000000000000ull;
    lead[3] = d / 10000000000000000ull;
    lead[4] = d / 1000000000000000ull;
    lead[5] = d / 100000000000000ull;
    lead[6] = d / 10000000000000ull;
    lead[7] = d / 1000000000000ull;
    lead[8] = d / 100000000000ull;
    lead[9] = d / 10000000000ull;
    /* A normal float32 a in [2^b, 2^(b+1)) is what reads back from within
     * half its unit in the last place above, 2^(b-24), of it, and the
     * decimal's rounding to a double moves it by far less (2^(b-52)). So
     * digits further from a than that, in units of d's last digit (10^(x-18)):
     * 2^(b-24) * 10^(18-x), with room for the double's error, cannot read
     * back, and are passed over without the double operations. */
    double far = -1;
    if (dt == DT_FLOAT32 && b >= -126 && 18 - x >= -P10_LOW && 18 - x <= P10_HIGH) {
        uint64_t two_bits = (uint64_t)(b - 24 + 1023) << 52;   /* 2^(b-24), a normal double */
        double two;
        memcpy(&two, &two_bits, sizeof two);
        far = p10_near[18 - x + P10_LOW] * two * (1 + 1e-6);
    }
    for (int p = 1; p <= 9; p++) {
        int qx;
        double back;
        uint64_t err, q = round_digits(d, lead, sticky, p, x, &qx, &err);
        if (far >= 0 && (double)err > far)
            continue;
        if (decimal_value(q, qx - p + 1, &back))
            return 0;
        if (round_to(dt, neg ? -back : back) == v)
            return g_format(buf, neg, q, p, qx);
    }
    return 0;
}

/* An element of a float constant: the fewest digits that read back as the
 * same value of its dtype (float32 needs at most 9, float16 5, bfloat16 4;
 * float64 as any double). */
static void const_float(Printer *p, double v, DType dt)
{
    if (p->tvm && (isnan(v) || isinf(v))) {
        /* TVM reads Python: float("inf") */
        put(p, isnan(v) ? "float(\"nan\")" : v < 0 ? "float(\"-inf\")" : "float(\"inf\")");
        return;
    }
    if (dt == DT_FLOAT64 || isnan(v) || isinf(v)) {
        float_lit(p, v, DT_VOID);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned slot = (unsigned)(((bits ^ (uint64_t)dt) * 0x9e3779b97f4a7c15ull) >> 56);
    if (p->seen[slot].len && p->seen[slot].bits == bits && p->seen[slot].dt == dt) {
        put_n(p, p->seen[slot].s, p->seen[slot].len);
        return;
    }
    char buf[48];
    int n = shortest_digits(buf, v, dt);
    if (!n)
        n = shortest_decimal(buf, v, dt, 9);
    put_n(p, buf, (size_t)n);
    if ((size_t)n <= sizeof p->seen[slot].s) {
        p->seen[slot].bits = bits;
        p->seen[slot].dt = dt;
        p->seen[slot].len = (unsigned char)n;
        memcpy(p->seen[slot].s, buf, (size_t)n);
    }
}

static int mentions_var(const Expr *e)
{
    switch (e->kind) {
    case E_VAR: return 1;
    case E_BIN: return mentions_var(e->u.bin.a) || mentions_var(e->u.bin.b);
    case E_UNARY: return mentions_var(e->u.un.a);
    case E_CAST: return mentions_var(e->u.cast.a);
    default: return 0;
    }
}

/* Relax shape dimensions: a symbolic variable alone is written as a string;
 * in TVM's style so is an expression of them ("c + 1"), which TVM reads in
 * a signature before the body declares c. */
static void dim(Printer *p, const Expr *e)
{
    if (e->kind == E_VAR && e->u.var->kind == VAR_SYM) {
        putf(p, "\"%s\"", e->u.var->name->str);
    } else if (p->tvm && mentions_var(e)) {
        put(p, "\"");
        expr(p, e, 0);
        put(p, "\"");
    } else {
        expr(p, e, 0);
    }
}

static void dims(Printer *p, Expr *const *d, int n)
{
    put(p, "(");
    for (int i = 0; i < n; i++) {
        if (i)
            put(p, ", ");
        dim(p, d[i]);
    }
    put(p, n == 1 ? ",)" : ")");
}

static void sinfo(Printer *p, const StructInfo *s)
{
    switch (s->kind) {
    case SI_TENSOR: {
        /* Bindings share one annotation (grammar/lower.c): its text, when
         * it has constant dimensions only, depends on nothing else. */
        if (s == p->si_last) {
            put_n(p, p->si_text, p->si_len);
            break;
        }
        int constant = 1;
        for (int i = 0; s->shape && i < s->ndim; i++)
            constant &= s->shape[i]->kind == E_INT;
        size_t start = p->len;
        unsigned long flushes = p->flushes;
        int any = 0;
        put(p, "R.Tensor(");
        if (s->shape) {
            dims(p, s->shape, s->ndim);
            any = 1;
        }
        if (s->dtype != DT_VOID) {
            put(p, any ? ", dtype=\"" : "dtype=\"");
            put(p, dtype_name(s->dtype));
            put(p, "\"");
            any = 1;
        }
        if (!s->shape && s->ndim >= 0) {
            putf(p, "%sndim=%d", any ? ", " : "", s->ndim);
            any = 1;
        }
        if (s->vdevice) {
            putf(p, "%svdevice=", any ? ", " : "");
            print_str(p, s->vdevice, (int)strlen(s->vdevice));
        }
        put(p, ")");
        if (constant && p->flushes == flushes && p->len - start <= sizeof p->si_text) {
            p->si_last = s;
            p->si_len = p->len - start;
            memcpy(p->si_text, p->buf + start, p->si_len);
        }
        break;
    }
    case SI_TUPLE:
        if (s->nfields < 0) {
            put(p, "R.Tuple");
            break;
        }
        put(p, "R.Tuple(");
        for (int i = 0; i < s->nfields; i++) {
            if (i)
                put(p, ", ");
            sinfo(p, s->fields[i]);
        }
        put(p, ")");
        break;
    case SI_SHAPE:
        put(p, "R.Shape(");
        if (s->shape) {
            put(p, "[");
            for (int i = 0; i < s->ndim; i++) {
                if (i)
                    put(p, ", ");
                dim(p, s->shape[i]);
            }
            put(p, "]");
        } else if (s->ndim >= 0) {
            putf(p, "ndim=%d", s->ndim);
        }
        put(p, ")");
        break;
    case SI_PRIM:
        if (!s->value) {
            putf(p, "R.Prim(\"%s\")", dtype_name(s->dtype));
            break;
        }
        if (s->dtype != DT_INT64)
            putf(p, "R.Prim(\"%s\", value=", dtype_name(s->dtype));
        else
            put(p, "R.Prim(value=");
        dim(p, s->value);
        put(p, ")");
        break;
    case SI_OBJECT:
        if (s->written)
            expr(p, s->written, 0);
        else
            put(p, p->tvm ? "R.Any" : "R.Object");
        break;
    }
}

static void const_elem(Printer *p, const Expr *e, int64_t i)
{
    DType dt = e->u.cst.dtype;
    if (dtype_is_float(dt))
        const_float(p, elem_getf(dt, e->u.cst.data, i), dt);
    else if (dt == DT_BOOL)
        put(p, elem_geti(dt, e->u.cst.data, i) ? "True" : "False");
    else if (dt == DT_UINT64)
        putf(p, "%llu", (unsigned long long)elem_geti(dt, e->u.cst.data, i));
    else
        put_int(p, (long long)elem_geti(dt, e->u.cst.data, i));
}

static void const_data(Printer *p, const Expr *e, int d, int64_t *at)
{
    if (d == e->u.cst.ndim) {
        const_elem(p, e, (*at)++);
        return;
    }
    put_c(p, '[');
    for (int64_t i = 0; i < e->u.cst.shape[d]; i++) {
        if (i)
            put_n(p, ", ", 2);
        if (d + 1 == e->u.cst.ndim)
            const_elem(p, e, (*at)++);
        else
            const_data(p, e, d + 1, at);
    }
    put_c(p, ']');
}

/* lambda x, y: x + y, as T.comm_reducer takes its combiner */
static void lambda(Printer *p, const Expr *m)
{
    put(p, "lambda ");
    for (int i = 0; i < m->u.map.nparams; i++)
        putf(p, "%s%s", i ? ", " : "", m->u.map.params[i]->name->str);
    put(p, ": ");
    if (m->u.map.nout == 1)
        expr(p, m->u.map.out[0], 0);
    else
        tuple(p, m->u.map.out, m->u.map.nout);
}

static const Expr *call_kw(const Expr *e, const char *key)
{
    for (int i = 0; i < e->u.call.nkw; i++)
        if (streq(e->u.call.kw[i]->str, key))
            return call_kwv(e)[i];
    return NULL;
}

static int int_items(const Expr *l, int64_t *v, int max)
{
    if (!l || (l->kind != E_LIST && l->kind != E_TUPLE) || l->u.list.n > max)
        return -1;
    for (int i = 0; i < l->u.list.n; i++) {
        if (l->u.list.items[i]->kind != E_INT)
            return -1;
        v[i] = l->u.list.items[i]->u.i.v;
    }
    return l->u.list.n;
}

static void int_list_text(Printer *p, const char *key, const int64_t *v, int n)
{
    putf(p, ", %s=[", key);
    for (int i = 0; i < n; i++) {
        if (i)
            put(p, ", ");
        put_int(p, v[i]);
    }
    put(p, "]");
}

/* TVM has no R.crop: the same computation in its spelling is a strided
 * slice of every axis from start to start + size (the cropped values,
 * which lopt records for fold, are not part of the result). */
static int tvm_crop(Printer *p, const Expr *e)
{
    int64_t st[64], sz[64], ax[64], en[64];
    int n = int_items(call_kw(e, "start_indices"), st, 64);
    if (e->u.call.nargs != 1 || n < 0 || int_items(call_kw(e, "slice_sizes"), sz, 64) != n)
        return 0;
    for (int d = 0; d < n; d++) {
        ax[d] = d;
        en[d] = st[d] + sz[d];
    }
    put(p, "R.strided_slice(");
    expr(p, e->u.call.args[0], 0);
    int_list_text(p, "axes", ax, n);
    int_list_text(p, "begin", st, n);
    int_list_text(p, "end", en, n);
    put(p, ")");
    return 1;
}

/* TVM has no R.pad: R.nn.pad is the same operator, with pad_mode "edge"
 * spelled "replicate". */
static void tvm_pad(Printer *p, const Expr *e)
{
    put(p, "R.nn.pad(");
    exprs(p, e->u.call.args, e->u.call.nargs);
    for (int i = 0; i < e->u.call.nkw; i++) {
        const Expr *v = call_kwv(e)[i];
        putf(p, "%s%s=", i || e->u.call.nargs ? ", " : "", e->u.call.kw[i]->str);
        if (streq(e->u.call.kw[i]->str, "pad_mode") && v->kind == E_STR && v->u.str.len == 4 &&
            !memcmp(v->u.str.s, "edge", 4))
            put(p, "\"replicate\"");
        else
            expr(p, v, 0);
    }
    put(p, ")");
}

static void call(Printer *p, const Expr *e)
{
    int first = 0;
    if (p->tvm && !e->u.call.callee && streq(e->u.call.op->str, "R.crop") && tvm_crop(p, e))
        return;
    if (p->tvm && !e->u.call.callee && streq(e->u.call.op->str, "R.pad")) {
        tvm_pad(p, e);
        return;
    }
    if (e->u.call.callee) {
        expr(p, e->u.call.callee, 8);
    } else if (streq(e->u.call.op->str, "T.access_ptr") && e->u.call.nargs > 0 && e->u.call.args[0]->kind == E_VAR &&
               e->u.call.args[0]->u.var->kind != VAR_RELAX && e->u.call.args[0]->u.var->data_of &&
               e->u.call.args[0]->u.var->dtype == DT_HANDLE) {
        /* B.access_ptr("r"): the method of buffer B, held as its data */
        putf(p, "%s.access_ptr", e->u.call.args[0]->u.var->data_of->name->str);
        first = 1;
    } else {
        put_sym(p, e->u.call.op);
    }
    put(p, "(");
    if (first == 0 && e->u.call.nargs > 0 && e->u.call.args[0]->kind == E_INDEXMAP &&
        streq(e->u.call.op->str, "T.comm_reducer")) {
        lambda(p, e->u.call.args[0]);
        first = 1;
        if (e->u.call.nargs > 1)
            put(p, ", ");
    }
    exprs(p, e->u.call.args + first, e->u.call.nargs - first);
    /* TVM names R.call_tir's output types out_ty */
    int out_ty = p->tvm && !e->u.call.callee && streq(e->u.call.op->str, "R.call_tir");
    for (int i = 0; i < e->u.call.nkw; i++) {
        if (i || e->u.call.nargs > first)
            put(p, ", ");
        put(p, out_ty && streq(e->u.call.kw[i]->str, "out_sinfo") ? "out_ty" : e->u.call.kw[i]->str);
        put(p, "=");
        expr(p, call_kwv(e)[i], 0);
    }
    put(p, ")");
}

/* Whether b is a mutable scalar as lopt-format writes one (x: T.float32,
 * read as x): a local buffer of one element the reader made so, and
 * whether idx indexes its element. */
static int is_scalar(const Buffer *b)
{
    return b->scalar && b->ndim == 1 && b->shape[0]->kind == E_INT && b->shape[0]->u.i.v == 1 && b->scope &&
           !strcmp(b->scope, "local") && b->kind == BUF_ALLOC;
}

static int scalar_at(const Buffer *b, Expr *const *idx, int n)
{
    return is_scalar(b) && n == 1 && idx[0]->kind == E_INT && idx[0]->u.i.v == 0;
}

static void expr(Printer *p, const Expr *e, int ctx)
{
    int prec = prec_of(e), paren = prec < ctx;
    if (paren)
        put(p, "(");
    switch (e->kind) {
    case E_IF: put(p, "<if>"); break;   /* a binding's value only; binding() writes it */
    case E_FUNC: put_sym(p, e->u.global.name); break;
    case E_VAR: put_sym(p, e->u.var->name); break;
    case E_INT:
        if (e->u.i.dtype == DT_BOOL) {   /* as the reader gives it back, and as TVM prints it */
            put(p, e->u.i.v ? "True" : "False");
            break;
        }
        if (e->u.i.dtype != DT_VOID)
            typed(p, e->u.i.dtype);
        put_int(p, e->u.i.v);
        if (e->u.i.dtype != DT_VOID)
            put(p, ")");
        break;
    case E_FLOAT: float_lit(p, e->u.f.v, e->u.f.dtype); break;
    case E_STR: print_str(p, e->u.str.s, e->u.str.len); break;
    case E_BOOL: put(p, e->u.b ? "True" : "False"); break;
    case E_NONE: put(p, "None"); break;
    case E_TUPLE: tuple(p, e->u.list.items, e->u.list.n); break;
    case E_LIST:
        put(p, "[");
        exprs(p, e->u.list.items, e->u.list.n);
        put(p, "]");
        break;
    case E_DICT:
        put(p, "{");
        for (int i = 0; i < e->u.dict.n; i++) {
            if (i)
                put(p, ", ");
            expr(p, e->u.dict.keys[i], 0);
            put(p, ": ");
            expr(p, e->u.dict.vals[i], 0);
        }
        put(p, "}");
        break;
    case E_GETITEM:
        expr(p, e->u.get.tuple, 8);
        putf(p, "[%d]", e->u.get.index);
        break;
    case E_CALL: call(p, e); break;
    case E_GLOBAL:
        put(p, "cls.");
        put_sym(p, e->u.global.name);
        break;
    case E_BIN: {
        if (bitop_name(e->u.bin.op)) {
            /* as TVM prints its builtin calls */
            putf(p, "%s(", bitop_name(e->u.bin.op));
            expr(p, e->u.bin.a, 0);
            put(p, ", ");
            expr(p, e->u.bin.b, 0);
            put(p, ")");
            break;
        }
        int cmp = prec == 4;
        expr(p, e->u.bin.a, cmp ? prec + 1 : prec);
        put(p, binop_text[e->u.bin.op]);
        expr(p, e->u.bin.b, prec + 1);
        break;
    }
    case E_UNARY:
        if (e->u.un.op == U_BITNOT) {
            put(p, BITNOT_NAME "(");
            expr(p, e->u.un.a, 0);
            put(p, ")");
            break;
        }
        put(p, e->u.un.op == U_NOT ? "not " : "-");
        expr(p, e->u.un.a, prec);
        break;
    case E_LOAD:
        if (scalar_at(e->u.load.buf, e->u.load.idx, e->u.load.n)) {
            put(p, e->u.load.buf->name->str);
            break;
        }
        putf(p, "%s[", e->u.load.buf->name->str);
        if (e->u.load.n == 0)
            put(p, "()");
        exprs(p, e->u.load.idx, e->u.load.n);
        put(p, "]");
        break;
    case E_CAST:
        putf(p, "T.Cast(\"%s\", ", dtype_name(e->u.cast.dtype));
        expr(p, e->u.cast.a, 0);
        put(p, ")");
        break;
    case E_SLICE:
        expr(p, e->u.slice.lo, 0);
        put(p, ":");
        expr(p, e->u.slice.hi, 0);
        break;
    case E_INDEXMAP:
        put(p, "T.index_map(lambda ");
        for (int i = 0; i < e->u.map.nparams; i++)
            putf(p, "%s%s", i ? ", " : "", e->u.map.params[i]->name->str);
        put(p, ": ");
        tuple(p, e->u.map.out, e->u.map.nout);
        put(p, ")");
        break;
    case E_SINFO: sinfo(p, e->u.sinfo); break;
    case E_CONST: {
        int64_t at = 0;
        put(p, "R.const(");
        const_data(p, e, 0, &at);
        putf(p, ", \"%s\")", dtype_name(e->u.cst.dtype));
        break;
    }
    }
    if (paren)
        put(p, ")");
}

/* ---- TIR ---- */

static void buffer_opts(Printer *p, const Buffer *b)
{
    tuple(p, b->shape, b->ndim);
    putf(p, ", \"%s\"", dtype_name(b->dtype));
    if (b->kind == BUF_ALIAS)
        putf(p, ", data=%s.data", b->base->name->str);
    else if (b->kind == BUF_MATCH && b->decl)
        putf(p, ", data=%s", b->handle->name->str);
    if (b->scope && b->kind != BUF_LOCAL) {
        put(p, ", scope=");
        print_str(p, b->scope, (int)strlen(b->scope));
    }
    if (b->layout_none)
        put(p, ", layout=None");
    if (b->nsep) {
        put(p, ", axis_separators=[");
        for (int i = 0; i < b->nsep; i++)
            putf(p, "%s%d", i ? ", " : "", b->axis_sep[i]);
        put(p, "]");
    }
    for (int i = 0; i < b->nextra; i++) {
        putf(p, ", %s=", b->extra_keys[i]->str);
        expr(p, b->extra_vals[i], 0);
    }
}

static void stmt(Printer *p, const Stmt *s);

static void body(Printer *p, const Stmt *s)
{
    p->indent++;
    if (s->kind == S_SEQ && s->u.seq.n == 0) {
        line(p);
        put(p, "pass\n");
    } else {
        stmt(p, s);
    }
    p->indent--;
}

static int is_zero(const Expr *e)
{
    return e->kind == E_INT && e->u.i.v == 0;
}

static int grid_step(const Stmt *s)
{
    return s->kind == S_FOR && s->u.loop.fk == FOR_SERIAL && is_zero(s->u.loop.min) && !s->u.loop.annot &&
           !s->u.loop.step && !s->u.loop.launch;
}

/* The end of a loop's range as written: min + extent. */
static void loop_end(Printer *p, const Stmt *s)
{
    const Expr *lo = s->u.loop.min, *ext = s->u.loop.extent;
    int64_t a, b;
    if (expr_const_int(lo, &a) == 0 && expr_const_int(ext, &b) == 0)
        putf(p, "%lld", (long long)(a + b));
    else if (ext->kind == E_BIN && ext->u.bin.op == B_SUB && expr_equal(ext->u.bin.b, lo))
        expr(p, ext->u.bin.a, 0);
    else {
        expr(p, lo, 5);
        put(p, " + ");
        expr(p, ext, 6);
    }
}

/* The annotation a serial loop's unroll= stands for, when it is its only
 * one, as TVM prints it: "pragma_unroll" True or a positive count, or
 * "disable_unroll" True (unroll=False); else NULL. */
static const Expr *unroll_annot(const Stmt *s, int *disable)
{
    const Expr *d = s->u.loop.annot;
    if (s->u.loop.fk != FOR_SERIAL || !d || d->kind != E_DICT || d->u.dict.n != 1 || d->u.dict.keys[0]->kind != E_STR)
        return NULL;
    const Expr *k = d->u.dict.keys[0], *v = d->u.dict.vals[0];
    *disable = k->u.str.len == 14 && memcmp(k->u.str.s, "disable_unroll", 14) == 0;
    if (!*disable && !(k->u.str.len == 13 && memcmp(k->u.str.s, "pragma_unroll", 13) == 0))
        return NULL;
    int one = v->kind == E_BOOL && v->u.b;
    return one || (!*disable && v->kind == E_INT && v->u.i.dtype == DT_VOID && v->u.i.v >= 1) ? v : NULL;
}

/* The loop's keywords past its range: thread=, step=, annotations= (or unroll=). */
static void loop_opts(Printer *p, const Stmt *s)
{
    int disable;
    const Expr *un = unroll_annot(s, &disable);
    if (s->u.loop.fk == FOR_THREAD) {
        put(p, ", thread=");
        print_str(p, s->u.loop.thread, (int)strlen(s->u.loop.thread));
    }
    if (s->u.loop.step) {
        put(p, ", step=");
        expr(p, s->u.loop.step, 0);
    }
    if (un) {
        put(p, ", unroll=");
        if (disable)
            put(p, "False");
        else
            expr(p, un, 0);
    } else if (s->u.loop.annot) {
        put(p, ", annotations=");
        expr(p, s->u.loop.annot, 0);
    }
}

static void loop(Printer *p, const Stmt *s, int scoped)
{
    static const char *const kinds[] = {
        [FOR_SERIAL] = "range", [FOR_PARALLEL] = "T.parallel", [FOR_VECTORIZED] = "T.vectorized",
        [FOR_UNROLLED] = "T.unroll", [FOR_THREAD] = "T.thread_binding",
    };
    line(p);
    if (s->u.loop.launch) {
        /* tx = T.launch_thread("threadIdx.x", 64): the statements after it
         * are its body; with T.launch_thread("threadIdx.x", 64) as tx: when
         * statements follow the launch (scoped) */
        if (scoped)
            put(p, "with T.launch_thread(");
        else
            putf(p, "%s = T.launch_thread(", s->u.loop.var->name->str);
        print_str(p, s->u.loop.thread, (int)strlen(s->u.loop.thread));
        put(p, ", ");
        expr(p, s->u.loop.extent, 0);
        if (scoped) {
            putf(p, ") as %s:\n", s->u.loop.var->name->str);
            body(p, s->u.loop.body);
        } else {
            put(p, ")\n");
            stmt(p, s->u.loop.body);
        }
        return;
    }
    if (grid_step(s) && grid_step(s->u.loop.body)) {
        const Stmt *l = s;
        put(p, "for ");
        for (l = s; grid_step(l); l = l->u.loop.body)
            putf(p, "%s%s", l == s ? "" : ", ", l->u.loop.var->name->str);
        put(p, " in T.grid(");
        for (l = s; grid_step(l); l = l->u.loop.body) {
            if (l != s)
                put(p, ", ");
            expr(p, l->u.loop.extent, 0);
        }
        put(p, "):\n");
        body(p, l);
        return;
    }
    int serial_opts = s->u.loop.fk == FOR_SERIAL && (s->u.loop.annot || s->u.loop.step);
    putf(p, "for %s in %s(", s->u.loop.var->name->str, serial_opts ? "T.serial" : kinds[s->u.loop.fk]);
    if (is_zero(s->u.loop.min)) {
        expr(p, s->u.loop.extent, 0);
    } else {
        expr(p, s->u.loop.min, 0);
        put(p, ", ");
        loop_end(p, s);
    }
    loop_opts(p, s);
    put(p, "):\n");
    body(p, s->u.loop.body);
}

static int remappable(const Block *b)
{
    if (b->niters == 0)
        return 0;
    for (int i = 0; i < b->niters; i++) {
        const BlockIter *it = &b->iters[i];
        if (it->kind == 'O' || it->binding->kind != E_VAR || it->binding->u.var->kind == VAR_RELAX || !it->binding->u.var->loop)
            return 0;
        const Stmt *l = it->binding->u.var->loop;
        if (!is_zero(l->u.loop.min) || !expr_equal(l->u.loop.extent, it->dom))
            return 0;
    }
    return 1;
}

static void region(Printer *p, const Region *r)
{
    putf(p, "%s[", r->buf->name->str);
    if (r->n == 0)
        put(p, "()");
    exprs(p, r->idx, r->n);
    put(p, "]");
}

static void regions(Printer *p, const char *what, const Region *r, int n)
{
    line(p);
    putf(p, "%s(", what);
    for (int i = 0; i < n; i++) {
        if (i)
            put(p, ", ");
        region(p, &r[i]);
    }
    put(p, ")\n");
}

static void block(Printer *p, const Stmt *s)
{
    const Block *b = s->u.block;
    line(p);
    put(p, p->tvm ? "with T.sblock(" : "with T.block(");
    print_str(p, b->name->str, (int)b->name->len);
    put(p, "):\n");
    p->indent++;
    if (remappable(b)) {
        line(p);
        for (int i = 0; i < b->niters; i++)
            putf(p, "%s%s", i ? ", " : "", b->iters[i].var->name->str);
        put(p, " = T.axis.remap(\"");
        for (int i = 0; i < b->niters; i++)
            put_c(p, b->iters[i].kind);
        put(p, "\", [");
        for (int i = 0; i < b->niters; i++)
            putf(p, "%s%s", i ? ", " : "", b->iters[i].binding->u.var->name->str);
        put(p, "])\n");
    } else {
        for (int i = 0; i < b->niters; i++) {
            const BlockIter *it = &b->iters[i];
            line(p);
            putf(p, "%s = T.axis.%s(", it->var->name->str,
                    it->kind == 'S' ? "spatial" : it->kind == 'R' ? "reduce" : "opaque");
            expr(p, it->dom, 0);
            put(p, ", ");
            expr(p, it->binding, 0);
            put(p, ")\n");
        }
    }
    if (b->where) {
        line(p);
        put(p, "T.where(");
        expr(p, b->where, 0);
        put(p, ")\n");
    }
    if (b->has_reads)
        regions(p, "T.reads", b->reads, b->nreads);
    if (b->has_writes)
        regions(p, "T.writes", b->writes, b->nwrites);
    if (b->attrs) {
        line(p);
        put(p, p->tvm ? "T.sblock_attr(" : "T.block_attr(");
        expr(p, b->attrs, 0);
        put(p, ")\n");
    }
    if (b->init) {
        line(p);
        put(p, "with T.init():\n");
        body(p, b->init);
    }
    p->indent--;
    int empty = b->body->kind == S_SEQ && b->body->u.seq.n == 0;
    if (!empty || (!b->init && !b->niters && !b->has_reads && !b->has_writes && !b->attrs && !b->where))
        body(p, b->body);
}

static void branch(Printer *p, const Stmt *s, int elif)
{
    line(p);
    put(p, elif ? "elif " : "if ");
    expr(p, s->u.branch.cond, 0);
    put(p, ":\n");
    body(p, s->u.branch.then);
    const Stmt *e = s->u.branch.orelse;
    if (!e)
        return;
    if (e->kind == S_IF) {
        branch(p, e, 1);
        return;
    }
    line(p);
    put(p, "else:\n");
    body(p, e);
}

static void lowered(Printer *p, const Stmt *s)
{
    line(p);
    switch (s->u.low.k) {
    case LOW_ATTR:
        put(p, "with T.attr(");
        exprs(p, s->u.low.args, s->u.low.nargs);
        put(p, "):\n");
        body(p, s->u.low.body);
        return;
    case LOW_WHILE:
        put(p, "while ");
        expr(p, s->u.low.args[0], 0);
        put(p, ":\n");
        body(p, s->u.low.body);
        return;
    case LOW_ASSERT:
        put(p, "assert ");
        exprs(p, s->u.low.args, s->u.low.nargs);
        break;
    case LOW_BREAK: put(p, "break"); break;
    case LOW_IDS:
        for (int i = 0; i < s->u.low.args[1]->u.list.n; i++)
            putf(p, "%s%s", i ? ", " : "", s->u.low.args[1]->u.list.items[i]->u.var->name->str);
        /* wg, = T.warpgroup_id([1]): a tuple of one, as written (wg = ...
         * reads as a scalar) */
        put(p, s->u.low.args[1]->u.list.n == 1 ? ", = " : " = ");
        expr(p, s->u.low.args[0], 0);
        break;
    case LOW_CONTINUE: put(p, "continue"); break;
    }
    put(p, "\n");
}

/* x: T.float32 = e, a scalar's declaration and its first store */
static int scalar_decl(Printer *p, const Stmt *s, const Stmt *next)
{
    const Buffer *b = s->u.alloc;
    if (!is_scalar(b))
        return 0;
    line(p);
    putf(p, "%s: T.%s", b->name->str, dtype_name(b->dtype));
    int both = next && next->kind == S_STORE && next->u.store.buf == b &&
               scalar_at(b, next->u.store.idx, next->u.store.n);
    if (both) {
        put(p, " = ");
        expr(p, next->u.store.value, 0);
    }
    put(p, "\n");
    return 1 + both;
}

static void stmt(Printer *p, const Stmt *s)
{
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++) {
            const Stmt *x = s->u.seq.items[i];
            int k = x->kind == S_ALLOC ? scalar_decl(p, x, i + 1 < s->u.seq.n ? s->u.seq.items[i + 1] : NULL) : 0;
            if (k)
                i += k - 1;
            else if (x->kind == S_FOR && i + 1 < s->u.seq.n)
                loop(p, x, 1);
            else
                stmt(p, x);
        }
        break;
    case S_FOR: loop(p, s, 0); break;
    case S_BLOCK: block(p, s); break;
    case S_STORE:
        line(p);
        if (scalar_at(s->u.store.buf, s->u.store.idx, s->u.store.n)) {
            putf(p, "%s = ", s->u.store.buf->name->str);
            expr(p, s->u.store.value, 0);
            put(p, "\n");
            break;
        }
        putf(p, "%s[", s->u.store.buf->name->str);
        if (s->u.store.n == 0)
            put(p, "()");
        exprs(p, s->u.store.idx, s->u.store.n);
        put(p, "] = ");
        expr(p, s->u.store.value, 0);
        put(p, "\n");
        break;
    case S_IF: branch(p, s, 0); break;
    case S_EVAL:
        line(p);
        if (s->u.eval->kind == E_CALL) {
            expr(p, s->u.eval, 0);
        } else {
            put(p, "T.evaluate(");
            expr(p, s->u.eval, 0);
            put(p, ")");
        }
        put(p, "\n");
        break;
    case S_ALLOC: {
        const Buffer *b = s->u.alloc;
        if (scalar_decl(p, s, NULL))
            break;
        line(p);
        if (b->kind == BUF_MATCH && b->region) {
            putf(p, "%s = T.match_buffer(", b->name->str);
            region(p, b->region);
            put(p, ", ");
        } else if (b->kind == BUF_MATCH && !b->decl) {
            putf(p, "%s = T.match_buffer(%s, ", b->name->str, b->handle->name->str);
        } else if (b->kind == BUF_ALIAS && !b->decl) {
            putf(p, "%s = T.Buffer(", b->name->str);
        } else {
            /* a view of a handle's or a buffer's storage is T.decl_buffer or T.Buffer as written */
            static const char *const ctor[] = {
                [BUF_ALLOC] = "T.alloc_buffer", [BUF_SBLOCK] = "T.sblock_alloc_buffer", [BUF_DECL] = "T.decl_buffer",
                [BUF_LOCAL] = "T.alloc_local",
                [BUF_MATCH] = "T.Buffer", [BUF_ALIAS] = "T.Buffer", [BUF_PARAM] = "T.Buffer",
            };
            putf(p, "%s = %s(", b->name->str, b->decl == 1 ? "T.decl_buffer" : ctor[b->kind]);
        }
        buffer_opts(p, b);
        put(p, ")\n");
        break;
    }
    case S_LET:
        line(p);
        /* TVM writes a let statement v: T.let[T.float32] = ... */
        putf(p, "%s: T.let[", s->u.let.var->name->str);
        if (s->u.let.handle_type)
            expr(p, s->u.let.handle_type, 0);
        else
            putf(p, "T.%s", dtype_name(s->u.let.var->dtype));
        put(p, "] = ");
        expr(p, s->u.let.value, 0);
        put(p, "\n");
        break;
    case S_LOWERED: lowered(p, s); break;
    }
}

/* Whether a statement holds a block: TVM marks such PrimFuncs s_tir=True. */
static int has_block(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case S_BLOCK: return 1;
    case S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            if (has_block(s->u.seq.items[i]))
                return 1;
        return 0;
    case S_FOR: return has_block(s->u.loop.body);
    case S_IF: return has_block(s->u.branch.then) || has_block(s->u.branch.orelse);
    default: return 0;
    }
}

static int module_has_block(const Module *m)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_PRIM && has_block(m->funcs[i]->body))
            return 1;
    return 0;
}

static void decorator(Printer *p, const char *name, const Func *f)
{
    /* a function of blocks is schedulable TIR to lopt: its own style says
     * s_tir=True only where nothing else shows it */
    int stir = f->kind == F_PRIM && (p->tvm ? f->s_tir || has_block(f->body) : f->s_tir && !has_block(f->body));
    const char *opts[4];
    int n = 0;
    if (f->is_private)
        opts[n++] = "private=True";
    if (f->is_impure)
        opts[n++] = "pure=False";
    if (stir)
        opts[n++] = "s_tir=True";
    if (f->no_wf_check)
        opts[n++] = "check_well_formed=False";
    line(p);
    putf(p, "@%s", name);
    for (int i = 0; i < n; i++)
        putf(p, "%s%s", i ? ", " : "(", opts[i]);
    put(p, n ? ")\n" : "\n");
}

static void attrs(Printer *p, const char *what, const Expr *a)
{
    if (!a)
        return;
    line(p);
    putf(p, "%s(", what);
    expr(p, a, 0);
    put(p, ")\n");
}

/* The symbolic variables a function declares, n = T.int64(), first in its body. */
static void sym_decls(Printer *p, const Func *f)
{
    for (int i = 0; i < f->nsyms; i++) {
        line(p);
        putf(p, "%s = T.%s()\n", f->syms[i]->name->str, dtype_name(f->syms[i]->dtype));
    }
}

static void prim_func(Printer *p, const Func *f)
{
    decorator(p, "T.prim_func", f);
    mark(p, f, NULL, f->loc);
    line(p);
    putf(p, "def %s(", f->name->str);
    for (int i = 0; i < f->npparams; i++) {
        const PParam *pp = &f->pparams[i];
        if (i)
            put(p, ", ");
        if (pp->buf) {
            putf(p, "%s: T.Buffer(", pp->buf->name->str);
            buffer_opts(p, pp->buf);
            put(p, ")");
        } else if (pp->handle_type) {
            putf(p, "%s: ", pp->var->name->str);
            expr(p, pp->handle_type, 0);
        } else {
            putf(p, "%s: T.%s", pp->var->name->str, dtype_name(pp->var->dtype));
        }
    }
    put(p, ")");
    if (f->tret != DT_VOID)
        putf(p, " -> T.%s", dtype_name(f->tret));
    put(p, ":\n");
    p->indent++;
    attrs(p, "T.func_attr", f->attrs);
    sym_decls(p, f);
    if ((!f->attrs && !f->nsyms) || f->body->kind != S_SEQ || f->body->u.seq.n != 0) {
        p->indent--;
        body(p, f->body);
        p->indent++;
    }
    p->indent--;
}

/* ---- Relax ---- */

/* Whether a function refers to another of the module (and so says cls =
 * Module); a local function inside it says so itself. */
static int find_global(const Expr *e, void *found)
{
    if (e->kind == E_GLOBAL)
        *(int *)found = 1;
    return e->kind == E_FUNC || *(int *)found;
}

static int func_uses_global(const Func *f)
{
    int found = 0;
    relax_walk_blocks(f->blocks, f->nblocks, find_global, &found);
    relax_walk(f->result, find_global, &found);
    return found;
}

static void binding(Printer *p, const Binding *b);

/* name: annot = value */
static void binding_line(Printer *p, const Var *v, const StructInfo *annot, const Expr *value)
{
    line(p);
    put_sym(p, v->name);
    if (annot) {
        put(p, ": ");
        sinfo(p, annot);
    }
    put(p, " = ");
    expr(p, value, 0);
    put(p, "\n");
}

/* A branch of a Relax if: its bindings, then `y = value`, unless the branch
 * ends with an if that binds y itself (an elif chain). */
static void branch_seq(Printer *p, const Binding *b, const RSeq *q)
{
    p->indent++;
    const Binding *lastb = NULL;
    for (int i = 0; i < q->nblocks; i++)
        for (int k = 0; k < q->blocks[i]->nbinds; k++)
            binding(p, lastb = q->blocks[i]->binds[k]);
    if (!(lastb && lastb->value->kind == E_IF && q->result->kind == E_VAR && q->result->u.var == lastb->var &&
          lastb->var->name == b->var->name))
        binding_line(p, b->var, b->annot, q->result);
    p->indent--;
}

static void relax_func(Printer *p, const Module *m, const Func *f);

static void binding(Printer *p, const Binding *b)
{
    if (b->value->kind != E_FUNC)
        mark(p, p->func, b->var, b->loc);
    if (b->value->kind == E_FUNC) {
        /* a local function: its definition binds its name */
        relax_func(p, p->m, b->value->u.global.fn);
        put(p, "\n");
        return;
    }
    if (b->value->kind == E_IF) {
        line(p);
        put(p, "if ");
        expr(p, b->value->u.rif.cond, 0);
        put(p, ":\n");
        branch_seq(p, b, b->value->u.rif.then);
        line(p);
        put(p, "else:\n");
        branch_seq(p, b, b->value->u.rif.orelse);
        return;
    }
    binding_line(p, b->var, b->annot, b->value);
}

static void relax_func(Printer *p, const Module *m, const Func *f)
{
    const Func *outer = p->func;
    decorator(p, "R.function", f);
    mark(p, f, NULL, f->loc);
    p->func = f;
    line(p);
    putf(p, "def %s(", f->name->str);
    for (int i = 0; i < f->nparams; i++) {
        putf(p, "%s%s: ", i ? ", " : "", f->params[i]->name->str);
        sinfo(p, f->params[i]->sinfo);
    }
    put(p, ")");
    if (f->ret) {
        put(p, " -> ");
        sinfo(p, f->ret);
    }
    put(p, ":\n");
    p->indent++;
    attrs(p, "R.func_attr", f->attrs);
    sym_decls(p, f);
    if (func_uses_global(f)) {
        line(p);
        putf(p, "cls = %s\n", m->name->str);
    }
    for (int i = 0; i < f->nblocks; i++) {
        const RBlock *b = f->blocks[i];
        if (!b->dataflow) {
            for (int k = 0; k < b->nbinds; k++)
                binding(p, b->binds[k]);
            continue;
        }
        line(p);
        put(p, "with R.dataflow():\n");
        p->indent++;
        for (int k = 0; k < b->nbinds; k++)
            binding(p, b->binds[k]);
        line(p);
        put(p, "R.output(");
        for (int k = 0; k < b->noutputs; k++)
            putf(p, "%s%s", k ? ", " : "", b->outputs[k]->name->str);
        put(p, ")\n");
        p->indent--;
    }
    line(p);
    put(p, "return ");
    expr(p, f->result, 0);
    put(p, "\n");
    p->indent--;
    p->func = outer;
}

static void func(Printer *p, const Module *m, const Func *f)
{
    if (f->kind == F_RELAX)
        relax_func(p, m, f);
    else
        prim_func(p, f);
}

/* Whether a Relax expression is written with T.: a typed literal
 * (T.int64(4)), an index map, a cast. */
static int spelled_with_t(const Expr *e, void *found)
{
    if ((e->kind == E_INT && e->u.i.dtype != DT_VOID) || (e->kind == E_FLOAT && e->u.f.dtype != DT_VOID) ||
        e->kind == E_INDEXMAP || e->kind == E_CAST || (e->kind == E_CALL && !e->u.call.callee &&
                                                       strncmp(e->u.call.op->str, "T.", 2) == 0))
        *(int *)found = 1;
    return *(int *)found;
}

/* Which of TVM's script modules the module's text names: I, T, R. */
static void modules_used(const Module *m, int *ir, int *tir, int *relax)
{
    *ir = !(m->bare && m->nfuncs == 1 && !m->global_infos && !m->module_attrs);
    *tir = *relax = 0;
    for (int i = 0; i < m->nfuncs; i++) {
        const Func *f = m->funcs[i];
        if (f->kind == F_PRIM) {
            *tir = 1;
            continue;
        }
        *relax = 1;
        *tir |= f->nsyms > 0;
        relax_walk_blocks(f->blocks, f->nblocks, spelled_with_t, tir);
        relax_walk(f->result, spelled_with_t, tir);
        if (f->attrs)
            relax_walk(f->attrs, spelled_with_t, tir);
    }
}

static void print_module_to(Printer *p, const Module *m)
{
    p->m = m;
    if (p->tvm) {
        /* TVM's printer writes the imports its parser needs; its TIR
         * script module is tirx */
        int ir, tir, relax;
        modules_used(m, &ir, &tir, &relax);
        if (ir)
            put(p, "# from tvm.script import ir as I\n");
        if (tir)
            put(p, "# from tvm.script import tirx as T\n");
        if (relax)
            put(p, "# from tvm.script import relax as R\n");
        if (ir || tir || relax)
            put(p, "\n");
    } else {
        for (int i = 0; i < m->nheaders; i++) {
            put(p, m->headers[i]);
            put_c(p, '\n');
        }
        if (m->nheaders)
            put(p, "\n");
    }
    if (m->bare && m->nfuncs == 1 && !m->global_infos && !m->module_attrs) {
        func(p, m, m->funcs[0]);
        return;
    }
    int stir = p->tvm ? m->s_tir || module_has_block(m) : m->s_tir && !module_has_block(m);
    putf(p, "@I.ir_module%s%s%s\nclass %s:\n", stir || m->no_wf_check ? "(" : "", stir ? "s_tir=True" : "",
         m->no_wf_check ? (stir ? ", check_well_formed=False)" : "check_well_formed=False)") : stir ? ")" : "",
         m->name->str);
    p->indent = 1;
    attrs(p, "I.module_global_infos", m->global_infos);
    attrs(p, "I.module_attrs", m->module_attrs);
    for (int i = 0; i < m->nfuncs; i++) {
        if (i || m->global_infos || m->module_attrs)
            put(p, "\n");
        func(p, m, m->funcs[i]);
    }
    if (m->nfuncs == 0 && !m->global_infos && !m->module_attrs) {
        line(p);
        put(p, "pass\n");
    }
}

static Printer *printer_new(FILE *out)
{
    Printer *p = xmalloc(sizeof *p);
    if (!p)
        oom_fail();
    p->out = out;
    p->tvm = 0;
    p->m = NULL;
    p->indent = 0;
    p->len = 0;
    p->flushed = 0;
    p->marks = NULL;
    p->func = NULL;
    p->flushes = 0;
    p->si_last = NULL;
    for (size_t i = 0; i < sizeof p->seen / sizeof p->seen[0]; i++)
        p->seen[i].len = 0;
    return p;
}

static void printer_done(Printer *p)
{
    flush(p);
    free(p);
}

void print_module(FILE *out, const Module *m)
{
    Printer *p = printer_new(out);
    print_module_to(p, m);
    printer_done(p);
}

void print_module_marked(FILE *out, const Module *m, PrintMarks *marks)
{
    Printer *p = printer_new(out);
    p->marks = marks;
    print_module_to(p, m);
    printer_done(p);
}

void print_module_tvm(FILE *out, const Module *m)
{
    Printer *p = printer_new(out);
    p->tvm = 1;
    print_module_to(p, m);
    printer_done(p);
}

void print_prim_func(FILE *out, const Func *f)
{
    Printer *p = printer_new(out);
    prim_func(p, f);
    printer_done(p);
}

void print_expr(FILE *out, const Expr *e)
{
    Printer *p = printer_new(out);
    expr(p, e, 0);
    printer_done(p);
}

const char *expr_text(const Expr *e, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (!f) {
        snprintf(buf, cap, "?");
        return buf;
    }
    setvbuf(f, NULL, _IONBF, 0);
    print_expr(f, e);
    fclose(f);
    buf[cap - 1] = 0;
    return buf;
}
