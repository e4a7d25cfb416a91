/* T.exp of float32 lanes for the batch engine: (float)exp(x) for every
 * lane, bit for bit what the closures compute with libm's exp, several
 * lanes at a time. Relies on libm's exp being within one unit in the last
 * place (of a double) of e^x, which every libm the project runs on is. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "vexp.h"

/* A lane's exact e^x is not needed, only which float32 it rounds to. For
 * a float x with -87 < x < 87 (e^x a normal float32), y below is within
 * 2^-39.7 of e^x relatively: x = k ln2 + r with |r| <= ln2/2 + 2^-40,
 * k * LN2_HI exact (42 bits by at most 7), x - k * LN2_HI exact (the two
 * within a factor 2 of each other, or k = 0), e^r by its Taylor polynomial
 * of degree 10 (remainder below 2^-40 * e^r), each of the few dozen
 * roundings 2^-53, and the scaling by 2^k exact. That is at most 2^13.3
 * units of y's last place; libm's exp is within 1 of e^x. When y is more
 * than 2^15 units from every midpoint between two float32s, no midpoint
 * lies between y, e^x and libm's result, so all three round to the same
 * float32: y's. Otherwise (one lane in 8,192), and for every lane outside
 * the range, NaN, or a double that is no float32, the group of lanes calls
 * exp itself. `make check-exp` compares every float32 input with exp. */

#define SHIFT 0x1.8p52                /* adding it rounds to an integer */
#define LOG2E 0x1.71547652b82fep0
#define LN2_HI 0x1.62e42fefa3800p-1
#define LN2_LO 0x1.ef35793c76730p-45  /* ln 2 - LN2_HI, within 2^-101 */
#define NEAR (1u << 18)               /* 2^15 units, shifted left 3 as below */

/* W lanes as vectors: doubles, their float32 roundings, their bits, and
 * the same bits as 32-bit halves. */
#define EXP_LANES(W, VD, VF, VU, VH) \
    int64_t t = 0; \
    for (; t + W <= n; t += W) { \
        VD xv; \
        memcpy(&xv, a + t, sizeof xv); \
        VD kd = xv * LOG2E + SHIFT; \
        VU kb = (VU)kd; \
        kd -= SHIFT; \
        VD r = (xv - kd * LN2_HI) - kd * LN2_LO; \
        VD r2 = r * r, r4 = r2 * r2; \
        VD p01 = 1.0 + r, p23 = 0.5 + r * (1.0 / 6), p45 = 1.0 / 24 + r * (1.0 / 120); \
        VD p67 = 1.0 / 720 + r * (1.0 / 5040), p89 = 1.0 / 40320 + r * (1.0 / 362880); \
        VD p03 = p01 + r2 * p23, p47 = p45 + r2 * p67, p810 = p89 + r2 * (1.0 / 3628800); \
        VD y = (p03 + r4 * (p47 + r4 * p810)) * (VD)((kb + 1023) << 52); \
        /* the 29 bits below a float32's last place, in the top of each \
         * lane's high half: their distance from the midpoint 2^28 */ \
        VH h = (VH)((VU)y << 35) - (0x80000000u - NEAR); \
        VH near = h < 2 * NEAR; \
        VD f = __builtin_convertvector(__builtin_convertvector(y, VF), VD); \
        VD xf = __builtin_convertvector(__builtin_convertvector(xv, VF), VD); \
        VU bad = (VU)near | (VU)(xv <= -87.0) | (VU)(xv >= 87.0) | (VU)(xf != xv); \
        uint64_t any = 0; \
        for (int q = 0; q < W; q++) \
            any |= bad[q]; \
        memcpy(x + t, &f, sizeof f); \
        /* (not into f: gcc 12 -O2 then drops the rounding to float) */ \
        if (any) \
            for (int q = 0; q < W; q++) \
                x[t + q] = (float)exp(a[t + q]); \
    } \
    for (; t < n; t++) \
        x[t] = (float)exp(a[t]);

typedef double V2D __attribute__((vector_size(16)));
typedef float V2F __attribute__((vector_size(8)));
typedef uint64_t V2U __attribute__((vector_size(16)));
typedef uint32_t V4H __attribute__((vector_size(16)));

static void exp_f32_2(double *restrict x, const double *restrict a, int64_t n)
{
    EXP_LANES(2, V2D, V2F, V2U, V4H)
}

#if defined(__x86_64__) && defined(__GNUC__)
typedef double V4D __attribute__((vector_size(32)));
typedef float V4F __attribute__((vector_size(16)));
typedef uint64_t V4U __attribute__((vector_size(32)));
typedef uint32_t V8H __attribute__((vector_size(32)));

/* The same arithmetic four lanes at a time where the processor has AVX2
 * (no fused multiply-add: each product and sum rounds as above). */
__attribute__((target("avx2"))) static void exp_f32_4(double *restrict x, const double *restrict a, int64_t n)
{
    EXP_LANES(4, V4D, V4F, V4U, V8H)
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2") != 0;
}
#else
static void exp_f32_4(double *restrict x, const double *restrict a, int64_t n)
{
    exp_f32_2(x, a, n);
}

static int have_avx2(void)
{
    return 0;
}
#endif

int vexp_wide(void)
{
    return have_avx2();
}

void vexp_f32_with(int wide, double *x, const double *a, int64_t n)
{
    if (wide && have_avx2())
        exp_f32_4(x, a, n);
    else
        exp_f32_2(x, a, n);
}

void vexp_f32(double *x, const double *a, int64_t n)
{
    vexp_f32_with(1, x, a, n);
}
