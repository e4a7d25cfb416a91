/* Unit tests for what is easier to check by enumeration than by example:
 * interning, float printing that reads back exactly, the printer's
 * minimal parentheses (random expressions keep their value through
 * print -> parse), and constants' elements read by the lexer and printed
 * by the fast shortest-digits path against printf and strtod, and fold
 * across the wrap of the scope-stamp counter. Seeded, so failures
 * reproduce. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grammar/reader.h"
#include "../../ir/elem.h"
#include "../../passes/pass.h"
#include "../../printer/print.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "unit: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_intern(void)
{
    Arena a = { 0 };
    Interner in;
    intern_init(&in, &a);
    char buf[32];
    Sym *first[1000];
    for (int i = 0; i < 100000; i++) {
        snprintf(buf, sizeof buf, "name%d", i % 5000);
        Sym *s = intern_cstr(&in, buf);
        if (i < 1000)
            first[i] = s;
        else if (i % 5000 < 1000)
            CHECK(s == first[i % 5000], "interning %s twice gave two symbols", buf);
        CHECK(strcmp(s->str, buf) == 0, "symbol text %s != %s", s->str, buf);
    }
    CHECK(in.count == 5000, "expected 5000 symbols, have %zu", in.count);
    /* Names differing only in their trailing number hash to neighbouring
     * slots, and lv1 and lv01 alike: all stay distinct names. */
    static const char *const alike[] = { "lv1", "lv01", "lv001", "lv1234567890", "lv234567890", "1", "01", "" };
    Sym *seen[8];
    intern_reserve(&in, 100000);
    for (int i = 0; i < 8; i++) {
        seen[i] = intern_cstr(&in, alike[i]);
        CHECK(strcmp(seen[i]->str, alike[i]) == 0, "symbol text %s != %s", seen[i]->str, alike[i]);
        for (int j = 0; j < i; j++)
            CHECK(seen[i] != seen[j], "%s and %s gave one symbol", alike[i], alike[j]);
    }
    for (int i = 0; i < 8; i++)
        CHECK(intern_cstr(&in, alike[i]) == seen[i], "interning %s again gave another symbol", alike[i]);
    CHECK(intern_cstr(&in, "name42") == first[42], "name42 was lost when the table was resized");
    /* Numbered runs whose slots overlap (the table is open: a name whose
     * first slot is taken steps away by a stride): every name found again. */
    static const char *const runs[] = { "lvx", "v", "conv", "lv_" };
    enum { RUN = 30000 };
    Sym **run = calloc(4 * RUN, sizeof *run);
    size_t before = in.count;
    for (int i = 0; i < RUN; i++)
        for (int r = 0; r < 4; r++) {
            snprintf(buf, sizeof buf, "%s%d", runs[r], i);
            run[r * RUN + i] = intern_cstr(&in, buf);
        }
    CHECK(in.count == before + 4 * RUN, "expected %zu symbols, have %zu", before + 4 * RUN, in.count);
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < RUN; i++) {
            snprintf(buf, sizeof buf, "%s%d", runs[r], i);
            Sym *s = intern_cstr(&in, buf);
            if (s != run[r * RUN + i] || strcmp(s->str, buf) != 0) {
                CHECK(0, "interning %s again gave another symbol", buf);
                r = 4;
                break;
            }
        }
    /* The same with characters after the number (v1_t, v2_t, ... as flow
     * names rewrites), which hash by the number too: runs that differ only
     * there, or in where the digits end, stay distinct and are found again. */
    static const char *const pre[] = { "v", "v", "v", "lv", "w1" }, *const post[] = { "_t", "_s", "_t1", "_t", "_t" };
    before = in.count;
    for (int i = 0; i < RUN; i++)
        for (int r = 0; r < 5; r++) {
            snprintf(buf, sizeof buf, "%s%d%s", pre[r], i, post[r]);
            (void)intern_cstr(&in, buf);
        }
    CHECK(in.count == before + 5 * RUN, "expected %zu symbols, have %zu", before + 5 * RUN, in.count);
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < RUN; i++) {
            snprintf(buf, sizeof buf, "%s%d%s", pre[r], i, post[r]);
            Sym *s = intern_cstr(&in, buf);
            if (strcmp(s->str, buf) != 0 || intern_cstr(&in, buf) != s) {
                CHECK(0, "interning %s again gave another symbol", buf);
                r = 5;
                break;
            }
        }
    static const char *const after[] = { "lv1_t", "lv01_t", "lv1_t1", "lv1_t01", "1_t", "01_t", "_t", "lv1__t__" };
    Sym *got[8];
    for (int i = 0; i < 8; i++) {
        got[i] = intern_cstr(&in, after[i]);
        CHECK(strcmp(got[i]->str, after[i]) == 0, "symbol text %s != %s", got[i]->str, after[i]);
        for (int j = 0; j < i; j++)
            CHECK(got[i] != got[j], "%s and %s gave one symbol", after[i], after[j]);
    }
    for (int i = 0; i < 8; i++)
        CHECK(intern_cstr(&in, after[i]) == got[i], "interning %s again gave another symbol", after[i]);
    free(run);
    CHECK(arena_array(&a, SIZE_MAX / 4, 8) == NULL, "arena_array did not refuse an overflowing size");
    intern_free(&in);
    arena_free(&a);
}

static void test_floats(void)
{
    Arena a = { 0 };
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        double v;
        uint64_t bits = next();
        if (i % 2) {
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v))
                continue;
        } else {
            v = (float)((double)(int64_t)(bits % 2000001) / 1000.0 - 1000.0);
        }
        Expr *e = expr_new(&a, E_FLOAT, (Loc){ 0, 0 });
        e->u.f.v = v;
        expr_text(e, buf, sizeof buf);
        double back = strtod(buf, NULL);
        CHECK(memcmp(&back, &v, sizeof v) == 0, "%.17g printed as %s reads back as %.17g", v, buf, back);
        CHECK(strpbrk(buf, ".e") != NULL, "%s does not read back as a float", buf);
    }
    arena_free(&a);
}

/* ---- random expressions, fully parenthesized, against their printed form ---- */

static const char *const ops[] = { "+", "-", "*", "//", "%", "<", "<=", "==", "!=", "and", "or" };

static void gen(char *out, size_t cap, int depth)
{
    size_t len = strlen(out);
    uint64_t r = next();
    if (depth == 0 || r % 4 == 0) {
        static const char *const leaves[] = { "i", "j", "k", "3", "7", "-2" };
        snprintf(out + len, cap - len, "%s", leaves[r / 4 % 6]);
        return;
    }
    if (r % 11 == 1) {
        snprintf(out + len, cap - len, r % 2 ? "(-" : "(not ");
        gen(out, cap, depth - 1);
        len = strlen(out);
        snprintf(out + len, cap - len, ")");
        return;
    }
    snprintf(out + len, cap - len, "(");
    gen(out, cap, depth - 1);
    len = strlen(out);
    snprintf(out + len, cap - len, " %s ", ops[r / 16 % 11]);
    gen(out, cap, depth - 1);
    len = strlen(out);
    snprintf(out + len, cap - len, ")");
}

static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Integer semantics with Python's truth values; division by zero yields 0. */
static int64_t eval(const Expr *e, const int64_t *env)
{
    switch (e->kind) {
    case E_INT: return e->u.i.v;
    case E_VAR: return env[e->u.var->name->str[0] - 'i'];
    case E_UNARY: {
        int64_t a = eval(e->u.un.a, env);
        return e->u.un.op == U_NEG ? -a : !a;
    }
    case E_BIN: {
        int64_t a = eval(e->u.bin.a, env), b = eval(e->u.bin.b, env);
        switch (e->u.bin.op) {
        case B_ADD: return a + b;
        case B_SUB: return a - b;
        case B_MUL: return a * b;
        case B_FLOORDIV: return b ? fdiv(a, b) : 0;
        case B_FLOORMOD: return b ? a - fdiv(a, b) * b : 0;
        case B_LT: return a < b;
        case B_LE: return a <= b;
        case B_EQ: return a == b;
        case B_NE: return a != b;
        case B_AND: return a && b;
        case B_OR: return a || b;
        default: return 0;
        }
    }
    default: return 0;
    }
}

static Module *parse_text(const char *text)
{
    Source src = { .name = "<unit>", .text = text, .len = strlen(text), .out = stderr };
    return read_module(&src);
}

static const Expr *stored(const Module *m)
{
    const Stmt *s = m->funcs[0]->body;
    while (s->kind == S_FOR)
        s = s->u.loop.body;
    return s->u.store.value;
}

static void test_parentheses(void)
{
    static char expr[8192], text[16384];
    char *printed = NULL;
    size_t plen = 0;
    for (int n = 0; n < 3000; n++) {
        expr[0] = 0;
        gen(expr, sizeof expr, 5);
        snprintf(text, sizeof text,
                 "@T.prim_func\ndef f(A: T.Buffer((1,), \"int32\")):\n"
                 "    for i, j, k in T.grid(4, 4, 4):\n        A[0] = %s\n", expr);
        Module *m1 = parse_text(text);
        CHECK(m1 != NULL, "generated expression did not parse: %s", expr);
        if (!m1)
            continue;
        FILE *f = open_memstream(&printed, &plen);
        print_module(f, m1);
        fclose(f);
        Module *m2 = parse_text(printed);
        CHECK(m2 != NULL, "printed expression did not parse: %s", printed);
        for (int t = 0; m2 && t < 8; t++) {
            int64_t env[3] = { (int64_t)(next() % 9) - 4, (int64_t)(next() % 9) - 4, (int64_t)(next() % 9) - 4 };
            int64_t a = eval(stored(m1), env), b = eval(stored(m2), env);
            CHECK(a == b, "%s and its printed form differ (%lld vs %lld):\n%s", expr, (long long)a, (long long)b, printed);
        }
        module_free(m1);
        module_free(m2);
        free(printed);
        printed = NULL;
    }
}

/* The reference the printer's fast path must agree with, by plain search:
 * the fewest significant digits (%.{p-1}e) that strtod reads back as v in
 * dt, written as Python's repr writes a float: positional with a point when
 * the decimal exponent is from -4 to 15, else d.ddde+XX. */
static void reference_float(char *buf, size_t cap, double v, DType dt)
{
    char e[64], dig[32];
    int prec = 1;
    for (; prec < 9; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (round_to(dt, strtod(e, NULL)) == v)
            break;
    }
    snprintf(e, sizeof e, "%.*e", prec - 1, v);
    int nd = 0, x = atoi(strchr(e, 'e') + 1);
    for (const char *c = e; *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            dig[nd++] = *c;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    size_t len = 0;
    if (v < 0 || (v == 0 && signbit(v)))
        buf[len++] = '-';
    if (x < -4 || x >= 16) {
        buf[len++] = dig[0];
        if (nd > 1) {
            buf[len++] = '.';
            memcpy(buf + len, dig + 1, (size_t)nd - 1);
            len += (size_t)nd - 1;
        }
        snprintf(buf + len, cap - len, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
        return;
    }
    if (x < 0) {
        len += (size_t)snprintf(buf + len, cap - len, "0.");
        for (int k = -1; k > x; k--)
            buf[len++] = '0';
        memcpy(buf + len, dig, (size_t)nd);
        len += (size_t)nd;
    } else {
        for (int k = 0; k <= x; k++)
            buf[len++] = k < nd ? dig[k] : '0';
        buf[len++] = '.';
        if (nd > x + 1) {
            memcpy(buf + len, dig + x + 1, (size_t)(nd - x - 1));
            len += (size_t)(nd - x - 1);
        } else
            buf[len++] = '0';
    }
    buf[len] = 0;
}

/* A constant of n values of dt, written with enough digits to read back
 * exactly, is read (by the lexer's list reader) and printed; each printed
 * element must be the reference's. */
static void const_round_trip(DType dt, const double *vals, int n)
{
    size_t cap = (size_t)n * 32 + 256, len = 0;
    char *text = malloc(cap), *printed = NULL, ref[64];
    len += (size_t)snprintf(text + len, cap - len, "@R.function\ndef main():\n    c = R.const([");
    for (int i = 0; i < n; i++) {
        /* a float literal: -0 would be the integer zero */
        char num[40];
        snprintf(num, sizeof num, "%.17g", vals[i]);
        len += (size_t)snprintf(text + len, cap - len, "%s%s%s", i ? ", " : "", num, strpbrk(num, ".e") ? "" : ".0");
    }
    snprintf(text + len, cap - len, "], \"%s\")\n    return c\n", dtype_name(dt));
    Module *m = parse_text(text);
    CHECK(m != NULL, "a constant of %d %s values did not parse", n, dtype_name(dt));
    size_t plen = 0;
    FILE *f = open_memstream(&printed, &plen);
    if (m)
        print_module(f, m);
    fclose(f);
    const char *p = strstr(printed, "R.const([");
    CHECK(p != NULL || !m, "no constant in the printed module");
    for (int i = 0; p && i < n; i++) {
        p += i ? 2 : 9;
        size_t k = strcspn(p, ",]");
        reference_float(ref, sizeof ref, round_to(dt, vals[i]), dt);
        CHECK(strlen(ref) == k && memcmp(ref, p, k) == 0, "%s element %.17g printed as %.*s, the reference gives %s",
              dtype_name(dt), vals[i], (int)k, p, ref);
        p += k;
    }
    module_free(m);
    free(printed);
    free(text);
}

static void test_const_floats(void)
{
    enum { N = 65536 };
    double *v = malloc(N * sizeof *v);
    int n = 0;
    /* every finite float16 and bfloat16 */
    static const DType halves[] = { DT_FLOAT16, DT_BFLOAT16 };
    for (int t = 0; t < 2; t++) {
        DType dt = halves[t];
        n = 0;
        for (uint32_t h = 0; h < 65536; h++) {
            uint16_t x = (uint16_t)h;
            double d = elem_getf(dt, &x, 0);
            if (isfinite(d))
                v[n++] = d;
        }
        const_round_trip(dt, v, n);
    }
    /* float32: random bit patterns, and the short decimals weights have */
    for (int round = 0; round < 4; round++) {
        n = 0;
        while (n < N) {
            uint32_t bits = (uint32_t)next();
            float f;
            memcpy(&f, &bits, 4);
            if (round % 2 && isfinite(f))
                v[n++] = f;
            else if (!(round % 2))
                v[n++] = (float)((double)(int64_t)(next() % 2000001 - 1000000) / pow(10, (double)(next() % 12)));
        }
        const_round_trip(DT_FLOAT32, v, n);
    }
    /* float32 at the ends of its binades, where the unit in the last place
     * below is half the one above (the printer passes over digits further
     * from the value than half the one above), and the subnormals' edge */
    n = 0;
    for (int b = -149; b <= 127; b++) {
        float f = ldexpf(1.0f, b);
        v[n++] = f;
        v[n++] = nextafterf(f, 0);
        v[n++] = nextafterf(f, INFINITY);
        v[n++] = -nextafterf(nextafterf(f, 0), 0);
        v[n++] = nextafterf(nextafterf(f, INFINITY), INFINITY);
    }
    v[n++] = FLT_MAX;
    v[n++] = FLT_MIN;
    v[n++] = nextafterf(FLT_MIN, 0);
    const_round_trip(DT_FLOAT32, v, n);
    free(v);
}

static void keep_diag(void *data, const Diag *d)
{
    if (!((Diag *)data)->message)
        *(Diag *)data = *d;
}

/* A location keeps a column of 24 bits: one past that, in a line longer
 * than 16 MB, is reported as the largest, not wrapped to a small one. */
static void test_long_line_column(void)
{
    static const char head[] = "@R.function\ndef main(x: R.Tensor((2,), \"float32\")):\n    return x";
    size_t pad = (size_t)LOC_COL_MAX + 100, n = sizeof head - 1;
    char *text = malloc(n + pad + 3);
    if (!text)
        abort();
    memcpy(text, head, n);
    memset(text + n, ' ', pad);
    memcpy(text + n + pad, "$\n", 3);
    Diag got = { 0 };
    Source src = { .name = "<unit>", .text = text, .len = n + pad + 2, .sink = keep_diag, .sink_data = &got };
    Module *m = read_module(&src);
    CHECK(!m && got.message, "a '$' past column 2^24 read without an error");
    CHECK(got.loc.line == 3 && got.loc.col == LOC_COL_MAX, "the error past column 2^24 is at %d:%d, not 3:%d",
          got.loc.line, (int)got.loc.col, LOC_COL_MAX);
    if (m)
        module_free(m);
    free(text);
    Loc l = { 1, loc_col(-1) }, r = { 1, loc_col((long)LOC_COL_MAX + 1) };
    CHECK(l.col == 0 && r.col == LOC_COL_MAX, "loc_col keeps -1 as %d and 2^24 as %d", (int)l.col, (int)r.col);
}

/* Scope stamps (module_stamps) across the 32-bit counter's wrap. Reading
 * leaves the verifier's mark (stamp 1) on main's parameters; fold then takes
 * a range of stamps for the bindings. Had the range wrapped without the
 * marks cleared, it would run UINT_MAX + 1 .. 4, x's mark would read as
 * the second binding's, and fold would compose e = x's transpose with b =
 * a's transpose into e = a. The module printed after fold must be the one
 * fold gives with the counter far from its end, at each start near it. */
static void test_stamps_wrap(void)
{
    static const char text[] =
        "@R.function\n"
        "def main(x: R.Tensor((2, 2), \"float32\"), y: R.Tensor((2, 2), \"float32\")):\n"
        "    with R.dataflow():\n"
        "        a = R.add(y, y)\n"
        "        b = R.layout_transform(a, index_map=T.index_map(lambda i, j: (j, i)))\n"
        "        c = R.add(b, b)\n"
        "        e = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i)))\n"
        "        gv = (c, e)\n"
        "        R.output(gv)\n"
        "    return gv\n";
    char *want = NULL, *got = NULL;
    size_t wlen = 0, glen = 0;
    for (unsigned back = 0; back <= 8; back++) {
        Module *m = parse_text(text);
        CHECK(m != NULL, "stamps: the module did not read");
        if (!m)
            return;
        if (back)
            m->stamp = UINT_MAX - (back - 1);
        unsigned before = m->stamp;
        Source src = { .name = "<unit>", .text = text, .len = strlen(text), .out = stderr };
        PassCtx ctx = { .src = &src };
        CHECK(pass_fold(m, &ctx, NULL, 0) == 0, "stamps: fold failed");
        CHECK(!back || m->stamp < before, "stamps: from %u the counter did not start again (%u)", before, m->stamp);
        FILE *f = open_memstream(back ? &got : &want, back ? &glen : &wlen);
        print_module(f, m);
        fclose(f);
        CHECK(!back || strcmp(want, got) == 0, "stamps: fold from stamp %u printed\n%s\nnot\n%s", before, got, want);
        module_free(m);
        if (back) {
            free(got);
            got = NULL;
        }
    }
    free(want);
}

int main(void)
{
    test_long_line_column();
    test_intern();
    test_floats();
    test_parentheses();
    test_const_floats();
    test_stamps_wrap();
    if (failures) {
        fprintf(stderr, "unit: %d failures\n", failures);
        return 1;
    }
    printf("unit: all passed\n");
    return 0;
}
