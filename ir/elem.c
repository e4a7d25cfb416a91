/* Elements of a dtype in its own representation, read and written as
 * doubles or integers: float16 and bfloat16 rounding, integer wrapping. */
#include "elem.h"

#include <math.h>
#include <string.h>

/* ---- float16 and bfloat16 ---- */

static double half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(m + 1024, e - 25);
    return s ? -v : v;
}

/* Round to nearest even, with overflow to infinity and subnormals. */
static uint16_t double_to_half(double v)
{
    uint16_t s = signbit(v) ? 0x8000 : 0;
    if (isnan(v))
        return 0x7e00;
    v = fabs(v);
    if (v >= 65520.0)
        return s | 0x7c00;
    if (v < ldexp(1, -25))
        return s | (v > ldexp(1, -25) ? 1 : 0);
    int e;
    frexp(v, &e);                 /* v = f * 2^e, f in [0.5, 1) */
    int exp = e - 1 + 15;         /* biased exponent of 1.f form */
    double scaled;
    if (exp <= 0)                 /* subnormal: units of 2^-24 */
        scaled = ldexp(v, 24);
    else
        scaled = ldexp(v, 10 - (e - 1));
    double r = nearbyint(scaled); /* ties to even under the default rounding mode */
    if (exp <= 0)
        return s | (uint16_t)r;   /* may round up into the smallest normal: still right */
    if (r >= 2048) {
        r /= 2;
        exp++;
        if (exp >= 31)
            return s | 0x7c00;
    }
    return s | (uint16_t)(exp << 10) | ((uint16_t)r & 1023);
}

static double bf16_to_double(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t double_to_bf16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return 0x7fc0;
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

double round_to(DType t, double v)
{
    switch (t) {
    case DT_FLOAT32: return (float)v;
    case DT_FLOAT16: return half_to_double(double_to_half(v));
    case DT_BFLOAT16: return bf16_to_double(double_to_bf16(v));
    default: return v;
    }
}

/* ---- element access ---- */

double elem_getf(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_FLOAT32: return ((const float *)data)[i];
    case DT_FLOAT64: return ((const double *)data)[i];
    case DT_FLOAT16: return half_to_double(((const uint16_t *)data)[i]);
    case DT_BFLOAT16: return bf16_to_double(((const uint16_t *)data)[i]);
    default: return (double)elem_geti(t, data, i);
    }
}

int64_t elem_geti(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_BOOL: case DT_UINT8: return ((const uint8_t *)data)[i];
    case DT_INT8: return ((const int8_t *)data)[i];
    case DT_INT16: return ((const int16_t *)data)[i];
    case DT_UINT16: return ((const uint16_t *)data)[i];
    case DT_INT32: return ((const int32_t *)data)[i];
    case DT_UINT32: return ((const uint32_t *)data)[i];
    case DT_INT64: return ((const int64_t *)data)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)data)[i];
    default: {
        double v = elem_getf(t, data, i);
        return v != v || v >= 9.2e18 || v <= -9.2e18 ? 0 : (int64_t)v;
    }
    }
}

void elem_setf(DType t, void *data, int64_t i, double v)
{
    switch (t) {
    case DT_FLOAT32: ((float *)data)[i] = (float)v; break;
    case DT_FLOAT64: ((double *)data)[i] = v; break;
    case DT_FLOAT16: ((uint16_t *)data)[i] = double_to_half(v); break;
    case DT_BFLOAT16: ((uint16_t *)data)[i] = double_to_bf16(v); break;
    default: elem_seti(t, data, i, v != v || v >= 9.2e18 || v <= -9.2e18 ? 0 : (int64_t)v); break;
    }
}

void elem_repeat(void *data, int64_t count, size_t size)
{
    /* doubling copies: a few memcpy calls instead of one store per element */
    size_t total = (size_t)count * size, done = count > 0 ? size : total;
    while (done < total) {
        size_t n = done < total - done ? done : total - done;
        memcpy((char *)data + done, data, n);
        done += n;
    }
}

void elem_seti(DType t, void *data, int64_t i, int64_t v)
{
    switch (t) {
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case DT_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case DT_INT8: ((int8_t *)data)[i] = (int8_t)v; break;
    case DT_INT16: ((int16_t *)data)[i] = (int16_t)v; break;
    case DT_UINT16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    case DT_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case DT_UINT32: ((uint32_t *)data)[i] = (uint32_t)v; break;
    case DT_INT64: ((int64_t *)data)[i] = v; break;
    case DT_UINT64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    default: elem_setf(t, data, i, (double)v); break;
    }
}

int elem_int_fits(DType t, int64_t v)
{
    switch (t) {
    case DT_BOOL: return v == 0 || v == 1;
    case DT_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case DT_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case DT_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case DT_UINT8: return v >= 0 && v <= UINT8_MAX;
    case DT_UINT16: return v >= 0 && v <= UINT16_MAX;
    case DT_UINT32: return v >= 0 && v <= UINT32_MAX;
    case DT_UINT64: return v >= 0;
    default: return 1;
    }
}
