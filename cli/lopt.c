/* lopt: reads a module, verifies it, runs a pass pipeline, prints the result.
 * Exit status: 0 success, 1 bad input, 2 bad usage. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../grammar/reader.h"
#include "../interp/interp.h"
#include "../interp/memo.h"
#include "../interp/npz.h"
#include "../ir/indexmap.h"
#include "../passes/graph.h"
#include "../passes/layout/flow.h"
#include "../passes/pass.h"
#include "../printer/dot.h"
#include "../printer/print.h"
#include "expect.h"

#ifndef LOPT_VERSION
#define LOPT_VERSION "0.1.0"
#endif

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };
enum { MAX_INPUT = 1 << 30 };

typedef struct Options {
    const char *input;
    const char *output;
    Pipeline pipeline;
    int verify_each;
    int strict;               /* --strict: warnings are errors */
    int print_after_all;
    int print_changed;        /* --print-changed: what each pass changed, as a diff */
    unsigned print_before, print_after;   /* --print-before/--print-after: sets of passes */
    int time_passes;          /* --time-passes: a table of wall times at the end */
    int split_input;          /* --split-input-file: modules separated by "# -----" lines */
    int verify_diagnostics;   /* --verify-diagnostics: check the diagnostics the comments expect */
    const char *map;          /* --map: the index-map calculator instead of a module */
    const char *shape;
    const char *compose;
    const char *apply;
    int inverse;
    int dot;                  /* --emit=dot: the graph instead of the text */
    int tvm_style;            /* --print-style=tvm */
    int emit_given;
    int explain;              /* --explain: passes say what they moved, folded or left */
    int run;                  /* --run: execute main instead of printing */
    int verify_exec;          /* --verify-exec[=ulp:N] */
    int no_exec_cache;        /* --no-exec-cache: every run of main executes every call */
    int no_batch;             /* --no-batch: every loop one iteration at a time */
    int64_t ulp;
    uint64_t seed;
    int seed_given, steps_given, jobs_given;
    int64_t max_steps;        /* --max-steps: loop iterations per run of main */
    int jobs;                 /* -j: threads for loops proven parallel (0: the machine's cores) */
    const char *output_dir;
    const char *entry;        /* --entry=F: run F, not main */
    const char *constants;    /* --constants=PATH: TVM's metadata constants */
    const char **inputs;      /* --input name=file.npy */
    int ninputs;
    char usage_error[4096];    /* the first usage error, reported once the line is read */
    const char **shapes;      /* --shape name=d,d,...: a seeded input's shape */
    int nshapes;
} Options;

/* The operator table, from the registry: each operator's layout category,
 * the dtypes its inference takes, what flow does with it and the data
 * layouts its layout attributes take. The manual's
 * table (man/lopt.1, OPERATORS) is this output, checked by make check. */
static void list_ops(FILE *out)
{
    static const char *const cat[] = { "agnostic", "light", "heavy" };
    int n;
    const OpInfo *ops = op_registry(&n);
    fprintf(out, "%-26s %-9s %-20s %-15s %s\n", "operator", "layout", "dtypes", "flow", "layouts");
    for (int i = 0; i < n; i++)
        fprintf(out, "%-26s %-9s %-20s %-15s %s\n", ops[i].name, cat[ops[i].category],
                ops[i].dtypes ? ops[i].dtypes : "any", flow_op_form(&ops[i]), ops[i].layouts ? ops[i].layouts : "-");
}

static void help(FILE *out)
{
    int n;
    const PassInfo *p = pass_registry(&n);
    fputs("usage: lopt [options] [file | -]\n"
          "\n"
          "Reads a TVMScript-like module (Relax functions calling TIR prim_funcs),\n"
          "verifies it, runs the pass pipeline and prints the result canonically.\n"
          "Reads standard input when the file is '-' or absent.\n"
          "\n"
          "options:\n"
          "  -o FILE             write the module to FILE instead of standard output\n"
          "  --pass=PIPELINE     run passes in order: a,b{key=value,...},c (repeatable);\n"
          "                      a value may be quoted, \"...\" or '...', to hold commas\n"
          "  --verify-each       verify the module after every pass\n"
          "  --strict            treat warnings (such as an unknown R.* operator) as errors\n"
          "  --print-after-all   print the module to standard error after every pass\n"
          "  --print-before=PASS,...  print the module to standard error before each run\n"
          "                      of the passes named (repeatable)\n"
          "  --print-after=PASS,...   the same, after each run of the passes named\n"
          "  --time-passes       at the end, print to standard error the wall time spent\n"
          "                      reading, in each step of the pipeline, and printing\n"
          "  --split-input-file  the input holds modules separated by lines '# -----': read,\n"
          "                      process and print each on its own (outputs separated by the\n"
          "                      same line; line numbers are the whole file's; exit status\n"
          "                      the worst of theirs)\n"
          "  --verify-diagnostics  check that the errors, warnings and notes reported are\n"
          "                      exactly those the input's comments expect, as in\n"
          "                      '# expected-error@+1 {{text}}', or '@unknown' for one with\n"
          "                      no place (no main, --run, --input, --verify-exec, and\n"
          "                      usage errors, then checked, not fatal); exit 1 if not\n"
          "  --constants=PATH    read the constants TVM prints as\n"
          "                      metadata[\"relax.expr.Constant\"][i] from PATH, an .npz\n"
          "                      archive (np.savez) or a directory of 0.npy, 1.npy, ...\n"
          "  --print-changed     after every pass, print to standard error what it changed\n"
          "                      as a unified diff of the printed module (or 'PASS: no\n"
          "                      change'); needs --pass\n"
          "  --emit=FORMAT       print the result as 'text' (the default) or as 'dot', the\n"
          "                      graph of each Relax function for Graphviz\n"
          "  --print-style=STYLE print the module in lopt's 'canonical' spelling (the\n"
          "                      default) or in the spelling current 'tvm' reads (T.sblock,\n"
          "                      s_tir=True, the import header)\n"
          "  --explain           the layout passes print to standard error, for every\n"
          "                      rewrite they moved, folded or left, where and why\n"
          "  --run               run main (after the passes) and print its outputs\n"
          "                      (shape, dtype, checksum, first values) instead of the module\n"
          "  --seed N            seed for the inputs that --input does not give (default 1)\n"
          "  --input NAME=FILE   read main's parameter NAME from a .npy file (repeatable);\n"
          "                      its shape binds the symbolic dimensions its type names\n"
          "  --shape NAME=D,D,...  the shape of the seeded input NAME, binding its symbolic\n"
          "                      dimensions (repeatable)\n"
          "  --output-dir DIR    with --run, also write each output as DIR/NAME.npy\n"
          "  --entry=F           with --run or --verify-exec: run the function F, not main\n"
          "                      (a PrimFunc runs on seeded buffers; its outputs are the\n"
          "                      buffers it writes)\n"
          "  --max-steps N       with --run or --verify-exec: stop a run of main with an\n"
          "                      error after N loop iterations (default 1000000000)\n"
          "  -j N, --jobs=N      with --run or --verify-exec: run the iterations of loops\n"
          "                      proven independent on N threads (default: the machine's\n"
          "                      cores); the outputs are those of running them in order\n"
          "  --no-batch          with --run or --verify-exec: run every loop one iteration\n"
          "                      at a time, not in batches (the same results, slower)\n"
          "  --verify-exec[=ulp:N]  run main on seeded inputs before the pipeline and after\n"
          "                      every pass; stop at the first pass that changes an output\n"
          "                      (bit-exact, or within N units in the last place)\n"
          "  --no-exec-cache     with --verify-exec, execute every PrimFunc call of every\n"
          "                      run of main (by default a call on the same function and\n"
          "                      the same bytes as in an earlier run replays its result)\n"
          "\n"
          "index maps (no module is read):\n"
          "  --map MAP           MAP is 'lambda n, c, h, w: (n, c // 4, h, w, c % 4)' or\n"
          "                      two layouts, 'NCHW:NCHW4c'; prints its normal form, output\n"
          "                      shape, kind, inverse and padding predicate\n"
          "  --shape D,D,...     the extents of the map's inputs (required with --map)\n"
          "  --inverse           print the inverse map and its padding predicate instead\n"
          "  --compose MAP2      apply MAP2 after MAP and report on the composition\n"
          "  --apply I,I,...     also print the image of one index\n"
          "  --help              show this help and exit\n"
          "  --version           show the version and exit\n"
          "  --list-ops          list the registered operators (layout category, dtypes,\n"
          "                      what flow does with them, data layouts) and exit\n"
          "\n"
          "passes:\n", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-19s %s\n", p[i].name, p[i].summary);
    fputs("\nexit status: 0 success, 1 bad input, 2 bad usage\n", out);
}

/* Records the first usage error (fmt has one %s, for arg); main reports it. */
static int usage(Options *o, const char *fmt, const char *arg)
{
    if (!o->usage_error[0])
        snprintf(o->usage_error, sizeof o->usage_error, fmt, arg);
    return EXIT_USAGE;
}

static int usage_report(const Options *o)
{
    fprintf(stderr, "lopt: %s\nTry 'lopt --help' for more information.\n", o->usage_error);
    return EXIT_USAGE;
}

/* PassCtx.read_map: a pass option's lambda, diagnosed against its own text. */
static Expr *read_option_map(Module *m, const char *text, const char *what)
{
    Source src = { what, text, strlen(text), 0, stderr, 0 };
    return read_index_map(&src, m);
}

static int add_pipeline(Options *o, const char *text)
{
    char err[512];
    if (pipeline_parse(&o->pipeline, text, err, sizeof err))
        return usage(o, "%s", err);
    return 0;
}

/* Matches --name VALUE and --name=VALUE; leaves *i at argc when the value is missing. */
static int map_option(const char *a, const char *name, const char **val, int argc, char **argv, int *i)
{
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != 0 && a[n] != '='))
        return 0;
    if (a[n] == '=')
        *val = a + n + 1;
    else if (++*i < argc)
        *val = argv[*i];
    return 1;
}

/* -j's default: the cores this process may run on. */
static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* The name of a pass in set that the pipeline does not run, or NULL. */
static const char *not_run(unsigned set, const Options *o)
{
    int n;
    const PassInfo *p = pass_registry(&n);
    unsigned missing = set & ~pipeline_passes(&o->pipeline);
    for (int i = 0; i < n; i++)
        if (missing & pass_bit(&p[i]))
            return p[i].name;
    return NULL;
}

/* Reads argv[*i] and the value it takes; returns -1 to go on, 0 to exit
 * (--help, --version), or EXIT_USAGE once usage() has recorded why. */
static int parse_arg(int argc, char **argv, int *i, int *files, Options *o)
{
    const char *seed = NULL, *input = NULL, *steps = NULL, *list = NULL, *jobs = NULL;
    const char *a = argv[*i];
    if (o->usage_error[0] && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "--version") == 0 ||
                              strcmp(a, "--list-ops") == 0))
        return EXIT_USAGE;   /* the error comes first, as it did when it ended the reading */
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        help(stdout);
        return 0;
    }
    if (strcmp(a, "--version") == 0) {
        printf("lopt %s\n", LOPT_VERSION);
        return 0;
    }
    if (strcmp(a, "--list-ops") == 0) {
        list_ops(stdout);
        return 0;
    }
    if (strcmp(a, "-o") == 0) {
        if (++*i == argc)
            return usage(o, "%s", "-o needs a file name");
        o->output = argv[*i];
    } else if (strncmp(a, "--pass=", 7) == 0) {
        if (add_pipeline(o, a + 7))
            return EXIT_USAGE;
    } else if (strcmp(a, "--pass") == 0) {
        if (++*i == argc)
            return usage(o, "%s", "--pass needs a pipeline, as in --pass=verify,print");
        if (add_pipeline(o, argv[*i]))
            return EXIT_USAGE;
    } else if (a[0] == '-' && a[1] == 'j' && a[2] >= '0' && a[2] <= '9') {
        /* -j4, as make spells it */
        char *end;
        long v = strtol(a + 2, &end, 10);
        if (*end || v < 1 || v > 1024)
            return usage(o, "-j takes a number of threads from 1 to 1024; not '%s'", a + 2);
        o->jobs = (int)v;
        o->jobs_given = 1;
    } else if (strcmp(a, "--inverse") == 0) {
        o->inverse = 1;
    } else if (map_option(a, "--map", &o->map, argc, argv, i) ||
               map_option(a, "--shape", &o->shape, argc, argv, i) ||
               map_option(a, "--compose", &o->compose, argc, argv, i) ||
               map_option(a, "--apply", &o->apply, argc, argv, i)) {
        if (*i == argc)
            return usage(o, "%s needs a value", a);
        if (o->shape && strchr(o->shape, '=')) {
            /* --shape NAME=d,d,...: for --run, not --map */
            if (o->shape[0] == '=')
                return usage(o, "--shape takes NAME=D,D,... (or D,D,... with --map); not '%s'", o->shape);
            o->shapes[o->nshapes++] = o->shape;
            o->shape = NULL;
        }
    } else if (strcmp(a, "--run") == 0) {
        o->run = 1;
    } else if (strcmp(a, "--no-batch") == 0) {
        o->no_batch = 1;
    } else if (strcmp(a, "--no-exec-cache") == 0) {
        o->no_exec_cache = 1;
    } else if (strcmp(a, "--verify-exec") == 0) {
        o->verify_exec = 1;
    } else if (strncmp(a, "--verify-exec=", 14) == 0) {
        char *end;
        long long u = strncmp(a + 14, "ulp:", 4) == 0 ? strtoll(a + 18, &end, 10) : -1;
        if (u < 0 || strncmp(a + 14, "ulp:", 4) != 0 || end == a + 18 || *end)
            return usage(o, "--verify-exec takes ulp:N with N >= 0, as in --verify-exec=ulp:4; not '%s'", a + 14);
        o->verify_exec = 1;
        o->ulp = u;
    } else if (map_option(a, "--seed", &seed, argc, argv, i) ||
               map_option(a, "--output-dir", &o->output_dir, argc, argv, i) ||
               map_option(a, "--entry", &o->entry, argc, argv, i) ||
               map_option(a, "--input", &input, argc, argv, i) ||
               map_option(a, "--max-steps", &steps, argc, argv, i) ||
               map_option(a, "--jobs", &jobs, argc, argv, i) || map_option(a, "-j", &jobs, argc, argv, i)) {
        if (*i == argc)
            return usage(o, "%s needs a value", a);
        if (seed) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(seed, &end, 10);
            if (errno || end == seed || *end || seed[0] == '-')
                return usage(o, "--seed takes a non-negative integer; not '%s'", seed);
            o->seed = v;
            o->seed_given = 1;
        }
        if (steps) {
            char *end;
            errno = 0;
            long long v = strtoll(steps, &end, 10);
            if (errno || end == steps || *end || v < 1)
                return usage(o, "--max-steps takes a positive integer; not '%s'", steps);
            o->max_steps = v;
            o->steps_given = 1;
        }
        if (jobs) {
            char *end;
            errno = 0;
            long v = strtol(jobs, &end, 10);
            if (errno || end == jobs || *end || v < 1 || v > 1024)
                return usage(o, "-j takes a number of threads from 1 to 1024; not '%s'", jobs);
            o->jobs = (int)v;
            o->jobs_given = 1;
        }
        if (input) {
            if (!strchr(input, '=') || input[0] == '=')
                return usage(o, "--input takes NAME=FILE.npy; not '%s'", input);
            o->inputs[o->ninputs++] = input;
        }
    } else if (map_option(a, "--constants", &o->constants, argc, argv, i)) {
        if (*i == argc || !o->constants[0])
            return usage(o, "%s", "--constants needs a path: an .npz archive or a directory of .npy files");
    } else if (strcmp(a, "--verify-each") == 0) {
        o->verify_each = 1;
    } else if (strcmp(a, "--strict") == 0) {
        o->strict = 1;
    } else if (strcmp(a, "--print-after-all") == 0) {
        o->print_after_all = 1;
    } else if (strcmp(a, "--print-changed") == 0) {
        o->print_changed = 1;
    } else if (map_option(a, "--print-before", &list, argc, argv, i) ||
               map_option(a, "--print-after", &list, argc, argv, i)) {
        char err[512];
        if (*i == argc)
            return usage(o, "%s needs the names of passes, as in --print-after=fold", a);
        if (pass_set_parse(a[8] == 'b' ? &o->print_before : &o->print_after, list, err, sizeof err)) {
            char msg[600];
            snprintf(msg, sizeof msg, "%.*s: %s", a[8] == 'b' ? 14 : 13, a, err);
            return usage(o, "%s", msg);
        }
    } else if (strcmp(a, "--time-passes") == 0) {
        o->time_passes = 1;
    } else if (strcmp(a, "--split-input-file") == 0) {
        o->split_input = 1;
    } else if (strcmp(a, "--verify-diagnostics") == 0) {
        o->verify_diagnostics = 1;
    } else if (strcmp(a, "--emit=text") == 0 || strcmp(a, "--emit=dot") == 0) {
        o->dot = a[7] == 'd';
        o->emit_given = 1;
    } else if (strcmp(a, "--print-style=canonical") == 0 || strcmp(a, "--print-style=tvm") == 0) {
        o->tvm_style = a[14] == 't';
    } else if (strncmp(a, "--print-style", 13) == 0) {
        return usage(o, "--print-style takes canonical or tvm, as in --print-style=tvm; not '%s'", a);
    } else if (strncmp(a, "--emit", 6) == 0) {
        return usage(o, "--emit takes text or dot, as in --emit=dot; not '%s'", a);
    } else if (strcmp(a, "--explain") == 0) {
        o->explain = 1;
    } else if (a[0] == '-' && a[1] != 0) {
        return usage(o, "unknown option '%s'", a);
    } else {
        if ((*files)++)
            return usage(o, "%s", "only one input file can be given");
        o->input = a;
    }
    return -1;
}

/* Returns -1 to continue, or an exit status. A usage error stops nothing:
 * the rest of the line is read, so that --verify-diagnostics can find the
 * file that expects the error. */
static int parse_args(int argc, char **argv, Options *o)
{
    int files = 0;
    o->seed = 1;
    o->max_steps = INTERP_DEFAULT_MAX_STEPS;
    o->jobs = default_jobs();
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    o->shapes = calloc((size_t)argc + 1, sizeof *o->shapes);
    if (!o->inputs || !o->shapes)
        abort();
    for (int i = 1; i < argc; i++) {
        int r = parse_arg(argc, argv, &i, &files, o);
        if (r == 0)
            return 0;
    }
    if (o->usage_error[0])
        return EXIT_USAGE;
    if (o->map) {
        if (files || o->output || o->pipeline.n || o->verify_each || o->print_after_all || o->print_changed ||
            o->print_before || o->print_after || o->time_passes || o->explain)
            return usage(o, "%s", "--map reads no module: it takes no file, -o or pass options");
        if (o->split_input || o->verify_diagnostics)
            return usage(o, "%s", "--map reads no module: --split-input-file and --verify-diagnostics need one");
        if (!o->shape)
            return usage(o, "%s", "--map needs --shape, the extents of its inputs, as in --shape 1,3,8,8");
        if (o->inverse && o->compose)
            return usage(o, "%s", "--inverse and --compose cannot be combined");
    } else if (o->shape || o->inverse || o->compose || o->apply) {
        return usage(o, "%s", "--shape, --inverse, --compose and --apply go with --map");
    }
    if (o->map && (o->run || o->verify_exec || o->ninputs || o->output_dir))
        return usage(o, "%s", "--map reads no module: it cannot be combined with --run or --verify-exec");
    const char *unrun = not_run(o->print_before, o);
    if (unrun)
        return usage(o, "--print-before names '%s', which the pipeline (--pass) does not run", unrun);
    if ((unrun = not_run(o->print_after, o)))
        return usage(o, "--print-after names '%s', which the pipeline (--pass) does not run", unrun);
    if (o->split_input && o->output_dir)
        return usage(o, "%s", "--output-dir cannot be combined with --split-input-file: every module would write "
                     "the same files");
    if (!o->map && o->print_changed && !o->pipeline.n)
        return usage(o, "%s", "--print-changed shows what passes change: it needs a pipeline, as in --pass=fold");
    if (o->output_dir && !o->run)
        return usage(o, "%s", "--output-dir goes with --run");
    if (o->no_exec_cache && !o->verify_exec)
        return usage(o, "%s", "--no-exec-cache goes with --verify-exec");
    if (o->run && o->emit_given)
        return usage(o, "%s", "--run prints outputs, not the module: --emit cannot be combined with it");
    if (!o->run && !o->verify_exec && (o->seed_given || o->ninputs || o->nshapes || o->steps_given || o->jobs_given))
        return usage(o, "%s", "--seed, --input, --shape NAME=..., --max-steps and -j go with --run or --verify-exec");
    if ((o->no_batch || o->entry) && !o->run && !o->verify_exec)
        return usage(o, "%s goes with --run or --verify-exec", o->entry ? "--entry" : "--no-batch");
    if (o->run && o->output)
        return usage(o, "%s", "--run prints outputs, not the module: -o cannot be combined with it");
    if (!o->input)
        o->input = "-";
    return -1;
}

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    struct stat st;
    /* A regular file is read into one buffer of its size (plus the NUL and
     * one byte to see the end), not grown by doubling. */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 && st.st_size < MAX_INPUT)
        cap = (size_t)st.st_size + 2;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= MAX_INPUT) {
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            char *g = realloc(buf, cap);
            if (!g)
                abort();
            buf = g;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* A regular file whose size is not a whole number of pages is mapped rather
 * than read: the kernel fills the rest of the last page with zeros, which
 * is the NUL the lexer stops at. Returns NULL when it cannot be mapped. */
static char *map_file(FILE *f, size_t *len)
{
    struct stat st;
    long page = sysconf(_SC_PAGESIZE);
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size >= MAX_INPUT ||
        page <= 0 || st.st_size % page == 0)
        return NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (p == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return p;
}

/* Reports an error about the module as a whole, which has no place in it
 * (main is missing, a run-time error, --input, --verify-exec), where src's
 * diagnostics go, so that --verify-diagnostics sees it; returns -1. */
static int fail(Source *src, const char *fmt, ...) LOPT_PRINTF(2, 3);
static int fail(Source *src, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("lopt: error: ", src->out);
    vfprintf(src->out, fmt, ap);
    fputc('\n', src->out);
    va_end(ap);
    src->errors++;
    return -1;
}

/* ---- running main ---- */

/* The most memory --verify-exec's call cache takes (tensors it keeps). */
#define EXEC_CACHE_BYTES ((size_t)1 << 30)

typedef struct Exec {
    Options *o;
    Source *src;
    Value **inputs;
    int ninputs;
    Value *reference;     /* --verify-exec: main's outputs before the pipeline */
    int checked;          /* --verify-exec: passes after which the outputs matched */
    int outputs;          /* tensors compared after each */
    int inexact;          /* some matched within the ulp tolerance only */
    Memo *memo;           /* --verify-exec: calls of earlier runs, replayed (interp/memo.h) */
    int64_t par_loops;    /* loops the runs split over threads (-j) */
} Exec;

static Func *find_main(Module *m)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i]->kind == F_RELAX && strcmp(m->funcs[i]->name->str, "main") == 0)
            return m->funcs[i];
    return NULL;
}

static int parse_ints(const char *s, int64_t *v, int max, int64_t min);

/* The symbolic dimensions of main's parameters bound so far, from the
 * shapes of --input files and --shape options. */
typedef struct Dims {
    const Var *var[64];
    int64_t val[64];
    const char *from[64];     /* the parameter that bound it */
    int n;
} Dims;

/* The value of a dimension of a declared shape: an integer, a bound
 * symbolic variable, or arithmetic on them; -1 (with *unbound the first
 * variable not bound) otherwise. */
static int dim_of(const Dims *D, const Expr *e, int64_t *v, const Var **unbound)
{
    int64_t a, b;
    switch (e->kind) {
    case E_INT: *v = e->u.i.v; return 0;
    case E_VAR:
        for (int i = 0; i < D->n; i++)
            if (D->var[i] == e->u.var)
                return *v = D->val[i], 0;
        if (!*unbound)
            *unbound = e->u.var;
        return -1;
    case E_BIN:
        if (dim_of(D, e->u.bin.a, &a, unbound) || dim_of(D, e->u.bin.b, &b, unbound))
            return -1;
        switch (e->u.bin.op) {
        case B_ADD: return __builtin_add_overflow(a, b, v) ? -1 : 0;
        case B_SUB: return __builtin_sub_overflow(a, b, v) ? -1 : 0;
        case B_MUL: return __builtin_mul_overflow(a, b, v) ? -1 : 0;
        case B_FLOORDIV: return b > 0 && a >= 0 ? (*v = a / b, 0) : -1;
        default: return -1;
        }
    default: return -1;
    }
}

/* The value of option opt (NAME=...) for parameter name, or NULL. */
static const char *option_for(const char *const *opts, int n, const char *name)
{
    for (int k = 0; k < n; k++) {
        const char *eq = strchr(opts[k], '=');
        if (strlen(name) == (size_t)(eq - opts[k]) && strncmp(name, opts[k], (size_t)(eq - opts[k])) == 0)
            return eq + 1;
    }
    return NULL;
}

static int names_params(Source *src, const char *const *opts, int n, const char *what, const Func *f)
{
    for (int k = 0; k < n; k++) {
        const char *eq = strchr(opts[k], '=');
        int found = 0;
        for (int i = 0; i < f->nparams; i++)
            found |= strlen(f->params[i]->name->str) == (size_t)(eq - opts[k]) &&
                     strncmp(f->params[i]->name->str, opts[k], (size_t)(eq - opts[k])) == 0;
        if (!found) {
            fail(src, "%s %s: main has no parameter '%.*s'", what, opts[k], (int)(eq - opts[k]),
                    opts[k]);
            return -1;
        }
    }
    return 0;
}

/* Binds the symbolic dimensions of p's declared shape to shape (what
 * --input or --shape gave), checking the constant ones and those bound
 * already. */
static int bind_shape(Source *src, Dims *D, const Var *p, const char *what, int nd, const int64_t *shape)
{
    const StructInfo *s = p->sinfo;
    char have[160];
    size_t len = (size_t)snprintf(have, sizeof have, "(");
    for (int d = 0; d < nd && len < sizeof have; d++)
        len += (size_t)snprintf(have + len, sizeof have - len, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (len < sizeof have)
        snprintf(have + len, sizeof have - len, "%s)", nd == 1 ? "," : "");
    if (!s || s->kind != SI_TENSOR || !s->shape)
        return 0;
    if (s->ndim != nd) {
        return diag_error(src, p->loc, "%s %s: the shape %s has rank %d, but main declares '%s' of rank %d", what,
                          p->name->str, have, nd, p->name->str, s->ndim);
    }
    for (int d = 0; d < nd; d++) {
        const Expr *e = s->shape[d];
        const Var *unbound = NULL;
        int64_t v;
        if (dim_of(D, e, &v, &unbound) == 0) {
            if (v != shape[d]) {
                const char *from = NULL;
                for (int i = 0; e->kind == E_VAR && i < D->n; i++)
                    if (D->var[i] == e->u.var)
                        from = D->from[i];
                if (from)
                    return diag_error(src, p->loc, "%s %s: dimension %d is %lld, but %s is %lld (from '%s')", what,
                                      p->name->str, d, (long long)shape[d], e->u.var->name->str, (long long)v, from);
                return diag_error(src, p->loc, "%s %s: dimension %d is %lld, but main declares %lld there", what,
                                  p->name->str, d, (long long)shape[d], (long long)v);
            }
        } else if (e->kind == E_VAR && e->u.var->kind == VAR_SYM && D->n < 64) {
            D->var[D->n] = e->u.var;
            D->val[D->n] = shape[d];
            D->from[D->n++] = p->name->str;
        }
    }
    return 0;
}

/* The inputs of main: from --input files, of the --shape given, else of the
 * declared shape, whose symbolic dimensions the files and --shape bind. */
static int make_inputs(Exec *x, Func *f)
{
    const Options *o = x->o;
    Dims D = { .n = 0 };
    x->ninputs = f->nparams;
    x->inputs = calloc((size_t)f->nparams + 1, sizeof *x->inputs);
    if (!x->inputs)
        abort();
    if (names_params(x->src, o->inputs, o->ninputs, "--input", f) ||
        names_params(x->src, o->shapes, o->nshapes, "--shape", f))
        return -1;
    /* the files and the --shape options first: they bind the dimensions */
    for (int i = 0; i < f->nparams; i++) {
        const Var *p = f->params[i];
        const char *file = option_for(o->inputs, o->ninputs, p->name->str);
        const char *given = option_for(o->shapes, o->nshapes, p->name->str);
        if (file && given) {
            fail(x->src, "--shape %s=%s: '%s' is read from a file with --input already",
                    p->name->str, given, p->name->str);
            return -1;
        }
        if (file) {
            char err[512];
            Tensor *t = tensor_read_npy(file, err, sizeof err);
            if (!t) {
                fail(x->src, "--input %s: %s", p->name->str, err);
                return -1;
            }
            x->inputs[i] = value_tensor(t);
            DType dt;
            int nd;
            int64_t shape[TENSOR_MAX_RANK];
            int known = interp_param_shape(p, &dt, &nd, shape) == 0;
            if ((known && (t->ndim != nd || memcmp(t->shape, shape, (size_t)nd * sizeof *shape))) ||
                (p->sinfo && p->sinfo->kind == SI_TENSOR && p->sinfo->dtype != DT_VOID && t->dtype != p->sinfo->dtype)) {
                char have[160], want[160];
                type_str(have, sizeof have, dtype_name(t->dtype), t->ndim, t->shape);
                if (known)
                    type_str(want, sizeof want, dtype_name(dt), nd, shape);
                else
                    snprintf(want, sizeof want, "%s", dtype_name(p->sinfo->dtype));
                fail(x->src, "--input %s: the file holds %s, but main declares %s", p->name->str,
                        have, want);
                return -1;
            }
            if (bind_shape(x->src, &D, p, "--input", t->ndim, t->shape))
                return -1;
        } else if (given) {
            int64_t shape[TENSOR_MAX_RANK];
            int nd = strcmp(given, "") == 0 ? 0 : parse_ints(given, shape, TENSOR_MAX_RANK, 0);
            if (nd < 0) {
                fail(x->src, "--shape %s=%s: expected up to %d extents separated by commas, as in "
                        "2,3,8,8", p->name->str, given, TENSOR_MAX_RANK);
                return -1;
            }
            if (bind_shape(x->src, &D, p, "--shape", nd, shape))
                return -1;
        }
    }
    for (int i = 0; i < f->nparams; i++) {
        const Var *p = f->params[i];
        const StructInfo *s = p->sinfo;
        if (x->inputs[i])
            continue;
        if (s && s->kind == SI_TENSOR && s->ndim > TENSOR_MAX_RANK) {
            diag_error(x->src, p->loc, "cannot make an input for '%s': its rank %d is above the limit of %d",
                       p->name->str, s->ndim, TENSOR_MAX_RANK);
            return -1;
        }
        if (s && s->kind == SI_PRIM && s->value && !dtype_is_float(s->dtype)) {
            /* R.Prim(value=n): n's value, from what the tensors' shapes bound */
            int64_t v;
            const Var *unbound = NULL;
            if (dim_of(&D, s->value, &v, &unbound)) {
                diag_error(x->src, p->loc, "cannot make an input for '%s': its value %s is not bound by the other "
                           "inputs' shapes", p->name->str, unbound ? unbound->name->str : "expression");
                return -1;
            }
            if (!(x->inputs[i] = value_prim_int(s->dtype == DT_VOID ? DT_INT64 : s->dtype, v))) {
                diag_error(x->src, p->loc, "cannot make an input for '%s'", p->name->str);
                return -1;
            }
            continue;
        }
        char why[320];
        if (s && s->kind == SI_TUPLE && !(x->inputs[i] = interp_seed_tuple(f, i, o->seed, why, sizeof why)))
            return diag_error(x->src, p->loc, "cannot make an input for '%s': %s", p->name->str, why), -1;
        if (x->inputs[i])
            continue;
        if (!s || s->kind != SI_TENSOR || !s->shape || s->dtype == DT_VOID || s->ndim > TENSOR_MAX_RANK) {
            diag_error(x->src, p->loc, "cannot make an input for '%s': it needs a tensor type with a shape and a "
                       "dtype (or give it with --input)", p->name->str);
            return -1;
        }
        int64_t shape[TENSOR_MAX_RANK];
        const char *given = option_for(o->shapes, o->nshapes, p->name->str);
        int nd = s->ndim;
        if (given) {
            nd = strcmp(given, "") == 0 ? 0 : parse_ints(given, shape, TENSOR_MAX_RANK, 0);
        } else {
            for (int d = 0; d < nd; d++) {
                const Var *unbound = NULL;
                if (dim_of(&D, s->shape[d], &shape[d], &unbound) || shape[d] < 0) {
                    if (unbound)
                        diag_error(x->src, p->loc, "cannot make an input for '%s': its dimension %s is not bound; "
                                   "give --shape %s=D,D,... or --input %s=FILE.npy", p->name->str,
                                   unbound->name->str, p->name->str, p->name->str);
                    else
                        diag_error(x->src, p->loc, "cannot make an input for '%s': dimension %d has no value",
                                   p->name->str, d);
                    return -1;
                }
            }
        }
        Tensor *t = tensor_new(s->dtype, nd, shape);
        if (!t) {
            diag_error(x->src, p->loc, "input '%s' is too large to make", p->name->str);
            return -1;
        }
        interp_fill_param(f, i, t, o->seed);
        x->inputs[i] = value_tensor(t);
    }
    return 0;
}

static int run_main(Exec *x, Module *m, Value **out)
{
    Func *f = x->o->entry ? module_find(m, intern_cstr(&m->names, x->o->entry)) : find_main(m);
    if (!f || (f->kind == F_PRIM && (x->o->ninputs || x->o->nshapes))) {
        fail(x->src, !f && x->o->entry ? "--entry: the module has no function '%s'" : !f ?
             "the module has no Relax function 'main' to run" : "--entry: '%s' is a PrimFunc, which runs on seeded "
             "buffers: --input and --shape go with a Relax function", x->o->entry);
        return -1;
    }
    if (f->kind == F_RELAX && !x->inputs && make_inputs(x, f))
        return -1;
    Interp *in = interp_new(m);
    interp_set_max_steps(in, x->o->max_steps);
    interp_set_threads(in, x->o->jobs);
    interp_set_batches(in, !x->o->no_batch);
    interp_set_memo(in, x->memo);
    InterpError err = { { 0, 0 }, "" };
    int r = f->kind == F_PRIM ? interp_run_prim_seeded(in, f, x->o->seed, out, &err)
                              : interp_call_relax(in, f, x->inputs, x->ninputs, out, &err);
    x->par_loops += interp_par_loops(in);
    interp_free(in);
    if (r) {
        if (err.loc.line)
            diag_error(x->src, err.loc, "%s", err.msg);
        else
            fail(x->src, "%s", err.msg);
    }
    return r;
}

/* The tensors of a result, flattened, named output, output0, output1, ...
 * (a shape as the int64 tensor of its dimensions) */
static int flatten(Value *v, Tensor **ts, int n, int cap)
{
    if (v->kind != VAL_TUPLE) {
        if (n < cap)
            ts[n] = v->t;
        return n + 1;
    }
    for (int i = 0; i < v->n; i++)
        n = flatten(v->items[i], ts, n, cap);
    return n;
}

/* The tensors of v in order, as many as it has (malloc'd; NULL when out of
 * memory), their count in *n. */
static Tensor **flat_tensors(Value *v, int *n)
{
    *n = flatten(v, NULL, 0, 0);
    Tensor **ts = malloc(((size_t)*n + 1) * sizeof *ts);
    if (ts)
        flatten(v, ts, 0, *n);
    return ts;
}

/* A tensor result is output; the tensors of a tuple result, even of one,
 * are output0, output1, ... */
static void output_name(char *buf, size_t cap, int i, const Value *v)
{
    if (v->kind != VAL_TUPLE)
        snprintf(buf, cap, "output");
    else
        snprintf(buf, cap, "output%d", i);
}

/* The i-th value flattened (the order of flatten), or NULL. */
static const Value *leaf(const Value *v, int *i)
{
    if (v->kind != VAL_TUPLE)
        return (*i)-- == 0 ? v : NULL;
    for (int k = 0; k < v->n; k++) {
        const Value *l = leaf(v->items[k], i);
        if (l)
            return l;
    }
    return NULL;
}

static int print_outputs(Exec *x, Value *v)
{
    int n;
    Tensor **ts = flat_tensors(v, &n);
    if (!ts) {
        fail(x->src, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char name[32];
        output_name(name, sizeof name, i, v);
        int at = i;
        const Value *l = leaf(v, &at);
        char text[512];
        if (l && (l->kind == VAL_SHAPE || l->kind == VAL_PRIM)) {
            if (l->kind == VAL_SHAPE)
                value_shape_text(l, text, sizeof text);
            else
                value_prim_text(l, text, sizeof text);
            printf("%s: %s\n", name, text);
        } else {
            tensor_summary(stdout, name, ts[i]);
        }
        if (x->o->output_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.npy", x->o->output_dir, name);
            if (tensor_write_npy(ts[i], path)) {
                fail(x->src, "cannot write '%s': %s", path, ts[i]->dtype == DT_BFLOAT16 ?
                        "NumPy has no bfloat16" : strerror(errno));
                free(ts);
                return -1;
            }
        }
    }
    free(ts);
    return 0;
}

/* mkdir -p: dir and the directories above it that do not exist. */
static int make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* --verify-exec: after each pass, main's outputs must equal the reference. */
static int check_exec(Module *m, const char *pass, void *data)
{
    Exec *x = data;
    Value *now = NULL;
    if (run_main(x, m, &now)) {
        fail(x->src, "%s no longer runs after pass '%s'", x->o->entry ? x->o->entry : "main", pass);
        return -1;
    }
    int na, nb;
    Tensor **a = flat_tensors(x->reference, &na), **b = flat_tensors(now, &nb);
    int status = 0;
    if (!a || !b) {
        fail(x->src, "out of memory");
        status = -1;
    } else if (na != nb) {
        fail(x->src, "pass '%s' changed the number of outputs of main from %d to %d", pass, na, nb);
        status = -1;
    }
    for (int i = 0; i < na && !status; i++) {
        int64_t at = 0;
        char name[32], idx[256];
        output_name(name, sizeof name, i, x->reference);
        int r = tensor_compare(a[i], b[i], 0, &at);
        if (r == 1 && x->o->ulp > 0 && tensor_compare(a[i], b[i], x->o->ulp, &at) == 0) {
            r = 0;
            x->inexact = 1;
        }
        if (r == 2) {
            fail(x->src, "pass '%s' changed the shape or dtype of %s", pass, name);
            status = -1;
        } else if (r == 1) {
            tensor_index_text(a[i], at, idx, sizeof idx);
            fail(x->src, "pass '%s' changed %s%s: %.9g before, %.9g after%s", pass, name, idx,
                    tensor_getf(a[i], at), tensor_getf(b[i], at),
                    tensor_is_poison(b[i], at) ? " (undefined padding)" : "");
            status = -1;
        }
    }
    free(a);
    free(b);
    value_free(now);
    if (!status) {
        x->checked++;
        x->outputs = na;
    }
    return status;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* --verify-exec's last word on success: what was compared, how, and how long it took. */
static void exec_summary(const Exec *x, double t0)
{
    char how[64];
    if (x->inexact)
        snprintf(how, sizeof how, "within %lld ULP", (long long)x->o->ulp);
    else
        snprintf(how, sizeof how, "bit-exact");
    fprintf(stderr, "lopt: verify-exec: %d pass%s checked, %d output%s compared after each, %s, in %.3f s\n",
            x->checked, x->checked == 1 ? "" : "es", x->outputs, x->outputs == 1 ? "" : "s", how, seconds() - t0);
}

/* Wall time spent on each part of the work, over all the modules of the input (--time-passes). */
typedef struct Timing {
    double start, read, output;
    double *steps;        /* per pipeline step */
    int64_t replayed, executed;   /* --verify-exec's PrimFunc calls */
    int64_t par_loops;    /* loops run on threads (-j) */
} Timing;

/* The stream modules and outputs go to: standard output, or -o's file opened at first use. */
static FILE *output(Options *o, FILE **out)
{
    if (!*out && !(*out = o->output ? fopen(o->output, "w") : stdout))
        fprintf(stderr, "lopt: cannot write '%s': %s\n", o->output, strerror(errno));
    return *out;
}

/* Runs the pipeline on m, checking main's outputs after each pass with --verify-exec. */
static int run_pipeline(Options *o, Source *src, Module *m, Exec *x, Timing *tm)
{
    PassCtx ctx = { .src = src, .dump = stderr, .verify_each = o->verify_each,
                    .print_after_all = o->print_after_all, .print_before = o->print_before,
                    .print_after = o->print_after, .print_changed = o->print_changed,
                    .times = tm->steps, .explain = o->explain ? stderr : NULL, .read_map = read_option_map };
    double t0 = seconds();
    if (o->verify_exec) {
        ctx.after_pass = check_exec;
        ctx.after_data = x;
        if (!o->no_exec_cache)
            x->memo = memo_new(EXEC_CACHE_BYTES);
        if (run_main(x, m, &x->reference))
            return EXIT_INPUT;
    }
    if (pipeline_run(&o->pipeline, m, &ctx))
        return EXIT_INPUT;
    if (o->verify_exec) {
        Tensor *ts[1];
        x->outputs = flatten(x->reference, ts, 0, 1);
        exec_summary(x, t0);
    }
    return 0;
}

/* The call cache's counts go to --time-passes; its memory goes. */
static void exec_cache_done(Exec *x, Timing *tm)
{
    if (!x->memo)
        return;
    int64_t hits, misses;
    memo_counts(x->memo, &hits, &misses);
    tm->replayed += hits;
    tm->executed += misses;
    memo_free(x->memo);
    x->memo = NULL;
}

/* After the passes: run main and print its outputs, or print the module. */
static int emit(Options *o, Exec *x, Module *m, FILE **out)
{
    if (o->run) {
        if (o->output_dir && make_dirs(o->output_dir)) {
            fail(x->src, "cannot create the directory '%s': %s", o->output_dir, strerror(errno));
            return EXIT_INPUT;
        }
        Value *v = NULL;
        int bad = run_main(x, m, &v) || print_outputs(x, v);
        value_free(v);
        return bad ? EXIT_INPUT : 0;
    }
    FILE *f = output(o, out);
    if (!f)
        return EXIT_INPUT;
    if (o->dot)
        print_dot(f, m);
    else if (o->tvm_style)
        print_module_tvm(f, m);
    else
        print_module(f, m);
    return 0;
}

/* Reads, verifies, transforms and prints (or runs) the module in src. */
static int process(Options *o, Source *src, Timing *tm, FILE **out)
{
    double t = seconds();
    Constants k = { NULL, 0, NULL, NULL };
    char err[1400];
    if (o->constants && constants_open(&k, o->constants, err, sizeof err)) {
        constants_close(&k);
        fail(src, "%s", err);
        return EXIT_INPUT;
    }
    Module *m = read_module_with(src, o->constants ? &k : NULL);
    constants_close(&k);
    int status = !m || ir_verify_input(m, src, o->strict) ? EXIT_INPUT : 0;
    tm->read += seconds() - t;
    Exec x = { o, src, NULL, 0, NULL, 0, 0, 0, NULL, 0 };
    if (!status)
        status = run_pipeline(o, src, m, &x, tm);
    exec_cache_done(&x, tm);
    t = seconds();
    if (!status)
        status = emit(o, &x, m, out);
    tm->output += seconds() - t;
    tm->par_loops += x.par_loops;
    for (int i = 0; i < x.ninputs; i++)
        value_free(x.inputs[i]);
    free(x.inputs);
    value_free(x.reference);
    module_free(m);
    return status;
}

/* --verify-diagnostics: process src with its diagnostics caught, then match
 * them against the comments that expect them. */
static int process_checked(Options *o, Source *src, Timing *tm, FILE **out)
{
    ExpectSet want = { NULL, 0, 0 };
    if (expect_read(&want, src)) {
        expect_free(&want);
        return EXIT_INPUT;
    }
    char *log = NULL;
    size_t len = 0;
    src->out = open_memstream(&log, &len);
    if (!src->out)
        abort();
    int errors = src->errors;
    int status = o->usage_error[0] ? (fail(src, "%s", o->usage_error), EXIT_USAGE) : process(o, src, tm, out);
    errors = src->errors - errors;
    fclose(src->out);
    src->out = stderr;
    int bad = expect_check(&want, src, log, len);
    if (status && errors == 0) {
        fprintf(stderr, "lopt: error: --verify-diagnostics: '%s' failed with an error that is not a "
                "diagnostic (above), which no comment can expect\n", src->name);
        bad++;
    }
    free(log);
    expect_free(&want);
    return bad ? EXIT_INPUT : 0;
}

/* A line "# -----" (trailing blanks aside) separates modules (--split-input-file). */
static int is_separator(const char *p, const char *e)
{
    if (e - p < 7 || memcmp(p, "# -----", 7) != 0)
        return 0;
    for (p += 7; p < e; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r')
            return 0;
    return 1;
}

/* The module of lines [first, ...) at text, up to end: a copy in which the
 * lines before it are empty, so that diagnostics count lines in the whole file. */
static int process_part(Options *o, const char *name, int first, const char *text, const char *end, Timing *tm,
                        FILE **out)
{
    size_t n = (size_t)(end - text), pad = (size_t)first - 1;
    char *buf = malloc(pad + n + 1);
    if (!buf)
        abort();
    memset(buf, '\n', pad);
    memcpy(buf + pad, text, n);
    buf[pad + n] = 0;
    Source src = { name, buf, pad + n, 0, stderr, 0 };
    int status = o->verify_diagnostics ? process_checked(o, &src, tm, out) : process(o, &src, tm, out);
    free(buf);
    return status;
}

/* --split-input-file: each part in turn, their outputs separated by "# -----". */
static int process_parts(Options *o, const char *name, const char *text, size_t len, Timing *tm, FILE **out)
{
    const char *p = text, *end = text + len, *part = text;
    int line = 1, first = 1, status = 0, parts = 0;
    for (;;) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        int sep = is_separator(p, e);
        if (sep || (e == end && (part < end || !parts))) {
            if (parts++ && output(o, out))
                fputs("# -----\n", *out);
            int r = process_part(o, name, first, part, sep ? p : end, tm, out);
            status = r > status ? r : status;
            first = line + 1;
            part = e < end ? e + 1 : end;
        }
        if (e == end)
            return status;
        p = e + 1;
        line++;
    }
}

static void time_report(const Options *o, const Timing *tm)
{
    double total = seconds() - tm->start, rest = total - tm->read - tm->output;
    fprintf(stderr, "lopt: time-passes: wall time in seconds\n");
    fprintf(stderr, "  %10.6f  reading and verifying the input\n", tm->read);
    for (int i = 0; i < o->pipeline.n; i++) {
        fprintf(stderr, "  %10.6f  %d. %s\n", tm->steps[i], i + 1, o->pipeline.steps[i].pass->name);
        rest -= tm->steps[i];
    }
    fprintf(stderr, "  %10.6f  %s\n", tm->output, o->run ? "running main" : "printing the result");
    fprintf(stderr, "  %10.6f  the rest (verification, dumps, --verify-exec)\n", rest > 0 ? rest : 0);
    fprintf(stderr, "  %10.6f  total\n", total);
    if (o->verify_exec && !o->no_exec_cache)
        fprintf(stderr, "lopt: time-passes: --verify-exec replayed %lld PrimFunc calls from its cache and "
                "executed %lld\n", (long long)tm->replayed, (long long)tm->executed);
    if ((o->run || o->verify_exec) && o->jobs_given)
        fprintf(stderr, "lopt: time-passes: -j %d: loops run on threads: %lld\n", o->jobs, (long long)tm->par_loops);
}

static int run(Options *o)
{
    Timing tm = { seconds(), 0, 0, calloc((size_t)o->pipeline.n + 1, sizeof(double)), 0, 0, 0 };
    if (!tm.steps)
        abort();
    int stdin_input = strcmp(o->input, "-") == 0;
    FILE *in = stdin_input ? stdin : fopen(o->input, "rb");
    if (!in) {
        fprintf(stderr, "lopt: cannot open '%s': %s\n", o->input, strerror(errno));
        free(tm.steps);
        return EXIT_INPUT;
    }
    size_t len = 0;
    char *mapped = stdin_input ? NULL : map_file(in, &len);
    char *text = mapped ? mapped : read_all(in, &len);
    int err = errno;
    if (!stdin_input)
        fclose(in);
    if (!text) {
        fprintf(stderr, "lopt: cannot read '%s': %s\n", o->input, strerror(err));
        free(tm.steps);
        return EXIT_INPUT;
    }
    const char *name = stdin_input ? "<stdin>" : o->input;
    Source src = { name, text, len, 0, stderr, mapped != NULL };
    FILE *out = NULL;
    int status;
    if (o->split_input)
        status = process_parts(o, name, text, len, &tm, &out);
    else
        status = o->verify_diagnostics ? process_checked(o, &src, &tm, &out) : process(o, &src, &tm, &out);
    if (o->run && fflush(stdout) != 0)
        status = EXIT_INPUT;
    if (out) {
        int bad = ferror(out);
        bad |= o->output ? fclose(out) != 0 : fflush(out) != 0;
        if (bad) {
            fprintf(stderr, "lopt: error writing '%s'\n", o->output ? o->output : "<stdout>");
            status = EXIT_INPUT;
        }
    }
    if (o->time_passes)
        time_report(o, &tm);
    free(tm.steps);
    if (mapped)
        munmap(mapped, len);
    else
        free(text);
    return status;
}

/* ---- the index-map calculator ---- */

/* Parses D,D,... into v; returns the count, or -1. */
static int parse_ints(const char *s, int64_t *v, int max, int64_t min)
{
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        if (n == max || !(*s >= '0' && *s <= '9'))
            return -1;
        long long x = strtoll(s, &end, 10);
        if (errno || x < min)
            return -1;
        v[n++] = x;
        if (*end == 0)
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

/* FROM:TO names two layouts; anything that is not a lambda and has one colon. */
static int is_layout_pair(const char *s)
{
    while (*s == ' ')
        s++;
    const char *colon = strchr(s, ':');
    return strncmp(s, "lambda", 6) != 0 && colon && !strchr(colon + 1, ':') && !strchr(s, '\n');
}

static int map_error(Source *src, const ImError *err)
{
    if (err->loc.line)
        diag_error(src, err->loc, "%s", err->msg);
    else
        fprintf(stderr, "lopt: error: %s\n", err->msg);
    return EXIT_INPUT;
}

/* Reads MAP over box (rank inputs). Returns NULL after reporting. */
static IndexMap *read_map(Module *m, const char *text, const char *what, const int64_t *box, int rank,
                          int *status)
{
    ImError err = { { 0, 0 }, "" };
    Source src = { what, text, strlen(text), 0, stderr, 0 };
    Sym *names[IM_MAX_RANK];
    Expr *e;
    *status = EXIT_INPUT;
    if (is_layout_pair(text)) {
        char from[64], to[64];
        const char *colon = strchr(text, ':');
        snprintf(from, sizeof from, "%.*s", (int)(colon - text), text);
        snprintf(to, sizeof to, "%s", colon + 1);
        if (strlen(text) > 100) {
            fprintf(stderr, "lopt: error: layout names longer than 50 characters\n");
            return NULL;
        }
        e = im_layout_map(&m->arena, &m->names, from, to, names, &err);
        if (e && im_layout_check(from, box, rank, &err))
            e = NULL;
    } else {
        e = read_index_map(&src, m);
        if (!e)
            return NULL;
    }
    if (!e) {
        map_error(&src, &err);
        return NULL;
    }
    if (e->u.map.nparams != rank) {
        fprintf(stderr, "lopt: error: %s has %d input%s but the shape has %d extent%s\n", what,
                e->u.map.nparams, e->u.map.nparams == 1 ? "" : "s", rank, rank == 1 ? "" : "s");
        return NULL;
    }
    IndexMap *im = im_from_expr(&m->arena, e, box, &err);
    if (!im) {
        map_error(&src, &err);
        return NULL;
    }
    if (is_layout_pair(text))
        memcpy(im->out_names, names, (size_t)im->nout * sizeof *names);
    *status = 0;
    return im;
}

static void print_lambda(Module *m, const char *label, const IndexMap *im)
{
    Expr *e = im_to_expr(&m->arena, &m->names, im);
    Loc none = { 0, 0 };
    Expr *t = expr_new(&m->arena, E_TUPLE, none);
    t->u.list.items = e->u.map.out;
    t->u.list.n = e->u.map.nout;
    printf("%s: lambda ", label);
    for (int i = 0; i < im->nin; i++)
        printf("%s%s", i ? ", " : "", im->in_names[i]->str);
    printf(": ");
    print_expr(stdout, t);
    printf("\n");
}

static void print_tuple(FILE *f, const int64_t *v, int n)
{
    fputc('(', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputs(n == 1 ? ",)" : ")", f);
}

static void print_shape(const IndexMap *im)
{
    printf("shape: ");
    print_tuple(stdout, im->box, im->nin);
    printf(" -> ");
    print_tuple(stdout, im->obox, im->nout);
    printf("\n");
}

static void print_pred(Module *m, const IndexMap *over, const ImCond *pred, int npred)
{
    printf("padding: ");
    if (npred == 0) {
        printf("none\n");
        return;
    }
    print_expr(stdout, im_pred_to_expr(&m->arena, &m->names, over, pred, npred));
    printf("\n");
}

static int map_report(Options *o)
{
    int64_t box[IM_MAX_RANK], at[IM_MAX_RANK];
    int rank = parse_ints(o->shape, box, IM_MAX_RANK, 1);
    if (rank < 0)
        return usage(o, "--shape expects 1 to 16 positive integers separated by commas, as in 1,3,8,8; not '%s'",
                     o->shape);
    int napply = o->apply ? parse_ints(o->apply, at, IM_MAX_RANK, 0) : 0;
    if (napply < 0)
        return usage(o, "--apply expects non-negative integers separated by commas, as in 0,2,3,4; not '%s'",
                     o->apply);
    Module *m = module_new();
    int status;
    IndexMap *im = read_map(m, o->map, "<map>", box, rank, &status);
    if (im && o->compose) {
        IndexMap *g = read_map(m, o->compose, "<compose>", im->obox, im->nout, &status);
        im = g ? im_compose(&m->arena, g, im) : NULL;
        if (g && !im) {
            fprintf(stderr, "lopt: error: index map arithmetic overflows 2^60 in the composition\n");
            status = EXIT_INPUT;
        }
    }
    if (!im)
        goto done;
    if (o->apply && napply != im->nin) {
        fprintf(stderr, "lopt: error: --apply has %d indices but the map has %d inputs\n", napply, im->nin);
        status = EXIT_INPUT;
        goto done;
    }
    for (int i = 0; i < napply; i++)
        if (at[i] >= im->box[i]) {
            fprintf(stderr, "lopt: error: --apply index %lld of '%s' is outside its extent %lld\n",
                    (long long)at[i], im->in_names[i]->str, (long long)im->box[i]);
            status = EXIT_INPUT;
            goto done;
        }
    int64_t wa[IM_MAX_RANK], wb[IM_MAX_RANK], y[IM_MAX_RANK];
    ImKind kind = im_classify(im, wa, wb);
    ImCond *pred = NULL;
    int npred = 0;
    ImError err = { { 0, 0 }, "" };
    IndexMap *inv = kind == IM_BIJECTIVE || kind == IM_PADDED ?
        im_inverse(&m->arena, im, &pred, &npred, &err) : NULL;
    if (o->inverse && inv) {
        print_lambda(m, "map", inv);
        print_shape(inv);
        print_pred(m, inv, pred, npred);
        goto done;
    }
    print_lambda(m, "map", im);
    print_shape(im);
    if (o->apply) {
        im_apply(im, at, y);
        printf("apply: ");
        print_tuple(stdout, at, im->nin);
        printf(" -> ");
        print_tuple(stdout, y, im->nout);
        printf("\n");
    }
    if (kind == IM_NOT_INJECTIVE) {
        printf("kind: not injective\n");
        fflush(stdout);
        im_apply(im, wa, y);
        fprintf(stderr, "lopt: error: the map is not injective, so it is not a layout rewrite: ");
        print_tuple(stderr, wa, im->nin);
        fputs(" and ", stderr);
        print_tuple(stderr, wb, im->nin);
        fputs(" both map to ", stderr);
        print_tuple(stderr, y, im->nout);
        fputc('\n', stderr);
        status = EXIT_INPUT;
        goto done;
    }
    if (kind == IM_UNKNOWN) {
        printf("kind: unknown\n");
        fflush(stdout);
        fprintf(stderr, "lopt: error: cannot decide whether the map is injective: its outputs are not sums of "
                "distinct digits of its inputs and its box is too large to enumerate\n");
        status = EXIT_INPUT;
        goto done;
    }
    if (im_is_identity(im))
        printf("kind: identity\n");
    else if (kind == IM_BIJECTIVE)
        printf("kind: bijective\n");
    else
        printf("kind: injective with padding\n");
    if (!inv) {
        printf("inverse: not derived (%s)\n", err.msg);
        if (o->inverse) {
            fflush(stdout);
            fprintf(stderr, "lopt: error: %s\n", err.msg);
            status = EXIT_INPUT;
        }
        goto done;
    }
    print_lambda(m, "inverse", inv);
    print_pred(m, inv, pred, npred);
done:
    module_free(m);
    return status;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    Options o;
    memset(&o, 0, sizeof o);
    int status = parse_args(argc, argv, &o);
    /* with --verify-diagnostics, the file's comments may expect a usage error */
    if (status < 0 || (status == EXIT_USAGE && o.verify_diagnostics && o.input && !o.map))
        status = o.map ? map_report(&o) : run(&o);
    if (status == EXIT_USAGE)
        usage_report(&o);
    pipeline_free(&o.pipeline);
    free(o.inputs);
    free(o.shapes);
    return status;
}
