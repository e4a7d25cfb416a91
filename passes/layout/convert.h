/* What convert-layout shares (convert.c): which operators it chooses
 * layouts for, where flow stops and leaves the choice to it, and the
 * conversion of chosen calls, which choose-layout drives. */
#ifndef LOPT_CONVERT_H
#define LOPT_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "../graph.h"

/* Whether convert-layout chooses layouts for calls of the operator name. */
int convert_layout_knows(const char *name);

/* A layout a call converts to: its data's (and out_layout), and a
 * convolution's kernel's. */
typedef struct ConvertTo {
    int set;
    char data[32], kernel[32];
} ConvertTo;

/* Reads text as convert-layout reads op=text (op: conv2d, max_pool2d, ...;
 * a kernel layout after ':' or the default one); -1 with the reason in err. */
int convert_parse_layout(const char *op, const char *text, ConvertTo *to, char *err, size_t cap);

/* A layout string's axes in order, with each one's factor (NCHW4c: N C H W
 * of factor 0, then c of factor 4). */
typedef struct LayoutAxes {
    int n;
    char ax[16];
    int64_t fac[16];
} LayoutAxes;

/* Reads l into A; -1 when it has more than 16 axes, a factor of a million
 * or more, or ends in a number. */
int layout_axes_parse(const char *l, LayoutAxes *A);

/* The layout the call bd computes is to convert to, or NULL to leave it. */
typedef const ConvertTo *(*ConvertPick)(void *data, const Binding *bd);

/* Converts each call of fn's blocks that pick names, as convert-layout
 * converts a call (rewrites on its operands and result); notes say what
 * it did and what it left. */
void convert_func(Module *m, Func *fn, Notes *notes, ConvertPick pick, void *data);

#endif
