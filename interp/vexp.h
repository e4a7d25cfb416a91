/* T.exp of float32 lanes (interp/vexp.c): x[t] = (float)exp(a[t]) for
 * t < n, bit for bit, several lanes at a time. */
#ifndef LOPT_VEXP_H
#define LOPT_VEXP_H

#include <stdint.h>

void vexp_f32(double *x, const double *a, int64_t n);
/* The same by the two-lane code, or (wide) the four-lane one where the
 * processor has it; and whether it has (for make check-exp). */
void vexp_f32_with(int wide, double *x, const double *a, int64_t n);
int vexp_wide(void);

#endif
