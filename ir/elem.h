/* Elements of a dtype in its own representation (float16 and bfloat16 as
 * their 16 bits, bool as a byte), read and written as doubles or integers.
 * The interpreter's tensors and the IR's constants share this storage. */
#ifndef LOPT_ELEM_H
#define LOPT_ELEM_H

#include <stdint.h>

#include "ir.h"

double elem_getf(DType t, const void *data, int64_t i);
int64_t elem_geti(DType t, const void *data, int64_t i);
/* Stores that round to the dtype: a float to nearest even (float16 and
 * bfloat16 too), an integer by truncation and wrapping. */
void elem_setf(DType t, void *data, int64_t i, double v);
void elem_seti(DType t, void *data, int64_t i, int64_t v);

/* Copies the first element (size bytes) of data over all count of them. */
void elem_repeat(void *data, int64_t count, size_t size);

/* The value a float dtype rounds v to (float32: (float)v; float16: half). */
double round_to(DType t, double v);

/* Whether the integer v is a value of the integer dtype t. */
int elem_int_fits(DType t, int64_t v);

#endif
