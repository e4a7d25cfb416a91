/* interp/vexp.c against libm: (float)exp(x) bit for bit on float32 inputs,
 * every one of them (`build/unit-exp`, in make check-slow, about a minute
 * per width) or every STEP-th bit pattern (`build/unit-exp STEP`, in make
 * check), through both the two-lane and (where the processor has it) the
 * four-lane code; and on doubles that are no float32, in runs of every
 * length up to 9 so that each tail is taken. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../interp/vexp.h"

enum { CHUNK = 4096 };

static long failures;

static void compare(int wide, const double *a, int64_t n)
{
    double x[CHUNK];
    vexp_f32_with(wide, x, a, n);
    for (int64_t i = 0; i < n; i++) {
        double want = (float)exp(a[i]);
        if (memcmp(&x[i], &want, sizeof want) != 0 && failures++ < 10)
            fprintf(stderr, "unit-exp: %s lanes: exp(%a) gave %a, libm %a\n", wide ? "four" : "two", a[i], x[i],
                    want);
    }
}

int main(int argc, char **argv)
{
    uint64_t step = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    if (step == 0)
        step = 1;
    double a[CHUNK];
    for (int wide = 0; wide <= vexp_wide(); wide++) {
        int64_t n = 0, inputs = 0;
        for (uint64_t u = 0; u <= UINT32_MAX; u += step) {
            uint32_t bits = (uint32_t)u;
            float f;
            memcpy(&f, &bits, sizeof f);
            a[n++] = f;
            if (n == CHUNK) {
                compare(wide, a, n);
                inputs += n;
                n = 0;
            }
        }
        compare(wide, a, n);
        inputs += n;
        /* doubles between float32s, and every tail length */
        for (int len = 1; len <= 9; len++) {
            for (int i = 0; i < len; i++)
                a[i] = -2.0 + i * 0.3 + (i % 2 ? 0x1p-40 : 0);
            compare(wide, a, len);
            inputs += len;
        }
        printf("unit-exp: %s lanes: %lld inputs\n", wide ? "four" : "two", (long long)inputs);
    }
    if (failures) {
        fprintf(stderr, "unit-exp: %ld differ from libm\n", failures);
        return 1;
    }
    return 0;
}
