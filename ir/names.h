/* Which names of the R, T and I namespaces lopt or TVM define: lopt's own
 * (the operator registry, the calls it gives a meaning, the TIR intrinsics
 * and constructs it reads), and TVM's, from the table bench/tvm-names.py
 * writes (ir/ops/tvm_names.c). The verifier refuses a call of a name in
 * neither, as TVM's parser does, and suggests the nearest. */
#ifndef LOPT_NAMES_H
#define LOPT_NAMES_H

typedef enum NameKind {
    NAME_LOPT,      /* lopt gives it a meaning */
    NAME_TVM,       /* TVM has it and lopt has no rule for it: an opaque call */
    NAME_UNKNOWN,   /* neither */
} NameKind;

/* The kind of a dotted name R.x, T.x or I.x (any other name: NAME_LOPT). */
NameKind name_kind(const char *name);
/* The known name (lopt's first, then TVM's) of the same namespace nearest
 * to name, for "did you mean": letters compare without case, and the edits
 * allowed are none, one or two as the last part of the name has under 5,
 * under 8 or more letters; failing that, a name with the same last part in
 * another namespace (R.relu: R.nn.relu). NULL when none is that near. */
const char *name_nearest(const char *name);

/* The name of names[0..n) nearest to name (letters compared without case),
 * within one edit for a name under 4 letters, two under 8, three past
 * that; NULL when none is that near. For "did you mean" on pass names and
 * options. */
const char *name_nearest_of(const char *name, const char *const *names, int n);

/* ir/ops/tvm_names.c: TVM's names, sorted. */
int tvm_name_known(const char *name);
const char *tvm_name_at(int i);   /* NULL past the last */

#endif
