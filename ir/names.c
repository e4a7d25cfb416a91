/* Known names: lopt's (the operator registry, its special calls, and the
 * TIR names the reader, the passes and the interpreter give a meaning) and
 * TVM's (ir/ops/tvm_names.c), and the nearest known name to a misspelt one. */
#include <ctype.h>
#include <string.h>

#include "ir.h"
#include "names.h"
#include "ops.h"

/* The T.* names lopt reads as constructs of their own (lopt-format(5)) or
 * computes with (the interpreter's intrinsics), besides the dtype
 * constructors (T.float32, T.int64x4, ...). */
static const char *const lopt_tir[] = {
    "T.Buffer", "T.Cast", "T.Select", "T.abs", "T.access_ptr", "T.alloc_buffer", "T.alloc_local", "T.allocate",
    "T.assume", "T.attr", "T.axis.R", "T.axis.S", "T.axis.opaque", "T.axis.reduce", "T.axis.remap",
    "T.axis.spatial", "T.axis_separator", "T.block", "T.block_attr", "T.ceil", "T.comm_reducer", "T.cos",
    "T.decl_buffer", "T.env_thread", "T.erf", "T.evaluate", "T.exp", "T.exp2", "T.fabs", "T.floor",
    "T.floordiv", "T.floormod", "T.func_attr", "T.grid", "T.handle", "T.if_then_else", "T.index_map", "T.init",
    "T.launch_thread", "T.let", "T.likely", "T.log", "T.log2", "T.match_buffer", "T.max", "T.max_value",
    "T.meta_var", "T.min", "T.min_value", "T.parallel", "T.pow", "T.prim_func", "T.reads", "T.ret",
    "T.round", "T.rsqrt", "T.sblock", "T.sblock_alloc_buffer", "T.sblock_attr", "T.serial", "T.sigmoid",
    "T.sin", "T.sqrt", "T.tanh", "T.thread_binding", "T.trunc", "T.truncdiv", "T.truncmod", "T.unroll",
    "T.vectorized", "T.where", "T.writes",
};
enum { NLOPT_TIR = sizeof lopt_tir / sizeof *lopt_tir };

/* The I.* and R.* names lopt reads as constructs of their own. */
static const char *const lopt_relax[] = {
    "I.ir_module", "I.module_attrs", "I.module_global_infos", "I.vdevice", "I.meta_var", "R.const",
    "R.dataflow", "R.output", "R.func_attr", "R.function", "R.tuple", "R.Tensor", "R.Tuple", "R.Shape",
    "R.Prim", "R.Object", "R.Callable", "R.meta_var",
};
enum { NLOPT_RELAX = sizeof lopt_relax / sizeof *lopt_relax };

static int in(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (streq(name, names[i]))
            return 1;
    return 0;
}

static int lopt_knows(const char *name)
{
    DType t;
    if (name[0] == 'T')
        return in(name, lopt_tir, NLOPT_TIR) || dtype_parse(name + 2, &t) == 0;
    return op_find(name) || op_is_special(name) || in(name, lopt_relax, NLOPT_RELAX);
}

NameKind name_kind(const char *name)
{
    if ((name[0] != 'R' && name[0] != 'T' && name[0] != 'I') || name[1] != '.')
        return NAME_LOPT;
    if (lopt_knows(name))
        return NAME_LOPT;
    return tvm_name_known(name) ? NAME_TVM : NAME_UNKNOWN;
}

/* Edit distance of a and b, letters compared without case, up to cap (the
 * answer is min(distance, cap)). */
static int distance(const char *a, const char *b, int cap)
{
    enum { MAXN = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b), row[MAXN + 1];
    if (la > MAXN || lb > MAXN)
        return cap;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int d = diag + !same;
            d = up + 1 < d ? up + 1 : d;
            d = row[j - 1] + 1 < d ? row[j - 1] + 1 : d;
            row[j] = d;
            diag = up;
            best = d < best ? d : best;
        }
        if (best >= cap)
            return cap;
    }
    return row[lb] < cap ? row[lb] : cap;
}

const char *name_nearest_of(const char *name, const char *const *names, int n)
{
    int len = (int)strlen(name), best = (len < 4 ? 1 : len < 8 ? 2 : 3) + 1;
    const char *near = NULL;
    for (int i = 0; i < n; i++) {
        int d = distance(name, names[i], best);
        if (d < best) {
            best = d;
            near = names[i];
        }
    }
    return near;
}

/* The i-th name "did you mean" may offer after the registry's: lopt's
 * own others, then TVM's; NULL past them. */
static const char *other_name(int i)
{
    if (i < NLOPT_TIR)
        return lopt_tir[i];
    i -= NLOPT_TIR;
    if (i < NLOPT_RELAX)
        return lopt_relax[i];
    return tvm_name_at(i - NLOPT_RELAX);
}

static const char *known_name(int i, int nops)
{
    return i < nops ? op_known_name(i) : other_name(i - nops);
}

static const char *last_part(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

const char *name_nearest(const char *name)
{
    /* edits allowed grow with the last part of the name: gelu is not a
     * misspelt relu, but sigmod is sigmoid and conv2D is conv2d */
    int len = (int)strlen(last_part(name)), cap = (len < 5 ? 0 : len < 8 ? 1 : 2) + 1, best = cap, nops = 0;
    const char *near = NULL, *k;
    while (op_known_name(nops))
        nops++;
    for (int i = 0; (k = known_name(i, nops)) != NULL; i++) {
        if (k[0] != name[0])
            continue;
        int d = distance(name, k, best);
        if (d < best) {
            best = d;
            near = k;
        }
    }
    for (int i = 0; !near && (k = known_name(i, nops)) != NULL; i++)
        if (k[0] == name[0] && strcmp(k, name) && distance(last_part(name), last_part(k), 1) == 0)
            near = k;
    return near;
}
