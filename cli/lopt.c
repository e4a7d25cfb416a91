/* lopt: reads a module, verifies it, runs a pass pipeline, prints the result.
 * The command line over the library (api/lopt.h), which it uses alone: it
 * reads the arguments and the input file, and says what the library found.
 * Exit status: 0 success, 1 bad input, 2 bad usage. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../api/lopt.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };
enum { MAX_INPUT = 1 << 30 };
enum { MAX_RANK = 16 };   /* of an index map's inputs and outputs */

typedef struct Options {
    lopt_context *ctx;
    lopt_pipeline *pipeline;
    const char *input;
    const char *output;
    int print_changed;        /* --print-changed: what each pass changed, as a diff */
    double running;           /* --run: seconds in lopt_run (--time-passes) */
    int time_passes;          /* --time-passes: a table of wall times at the end */
    int stats;                /* --stats: what each pass changed, a table at the end */
    const char *stats_json;   /* --stats-json=FILE: the same as JSON */
    int color;                /* --color: -1 auto (the default), 0 never, 1 always */
    int split_input;          /* --split-input-file: modules separated by "# -----" lines */
    int verify_diagnostics;   /* --verify-diagnostics: check the diagnostics the comments expect */
    int reads_module;         /* an option that reads a module (not --map) was given */
    const char *map;          /* --map: the index-map calculator instead of a module */
    const char *import_costs; /* --import-costs=FORMAT: a tuning log into a cost table instead of a module */
    const char *shape;
    const char *compose;
    const char *apply;
    int inverse;
    lopt_style style;         /* --emit=dot, --print-style=tvm */
    const char *report;       /* --report=FILE.html: the page of the pipeline */
    int emit_given;
    int run;                  /* --run: execute main instead of printing */
    int verify_exec;          /* --verify-exec[=ulp:N] */
    int no_exec_cache;
    int no_batch, memory_given;
    int seed_given, steps_given, jobs_given, ninputs, nshapes;
    int jobs;
    const char *output_dir;
    const char *entry;        /* --entry=F: run F, not main */
    lopt_output *out_file;    /* -o's file, renamed into place once everything succeeded */
    const char **reads;       /* the files read besides the input: --constants, --input's */
    const char **read_what;   /* how the usage error names each */
    int nreads;
    char usage_error[4096];   /* the first usage error, reported once the line is read */
} Options;

static void help(FILE *out)
{
    fputs("usage: lopt [options] [file | -]\n"
          "\n"
          "Reads a TVMScript-like module (Relax functions calling TIR prim_funcs),\n"
          "verifies it, runs the pass pipeline and prints the result canonically.\n"
          "Reads standard input when the file is '-' or absent.\n"
          "\n"
          "options (a value follows '=' or comes as the next argument: --pass=fold,\n"
          "--pass fold; --report and --verify-exec take theirs after '=' only):\n"
          "  -o FILE             write the module to FILE instead of standard output\n"
          "                      ('-': standard output); FILE is replaced only when\n"
          "                      everything succeeded, and may not be a file lopt reads\n"
          "  --pass=PIPELINE     run passes in order: a,b{key=value,...},c (repeatable);\n"
          "                      a value may be quoted, \"...\" or '...', to hold commas\n"
          "  --verify-each       verify the module after every pass\n"
          "  --strict            treat warnings as errors\n"
          "  --allow-unregistered  keep a call of a name neither lopt nor TVM defines as an\n"
          "                      opaque call, with a warning, instead of refusing it\n"
          "  --print-after-all   print the module to standard error after every pass\n"
          "  --print-before=PASS,...  print the module to standard error before each run\n"
          "                      of the passes named (repeatable)\n"
          "  --print-after=PASS,...   the same, after each run of the passes named\n"
          "  --time-passes       at the end, print to standard error the wall time spent\n"
          "                      reading, in each step of the pipeline, and printing\n"
          "  --stats             at the end, print to standard error what each pass changed:\n"
          "                      the module's functions, bindings, calls, rewrites and their\n"
          "                      bytes, and constants, before the first pass and after each\n"
          "  --stats-json=FILE   write the same as JSON to FILE\n"
          "  --color[=WHEN]      colour diagnostics: 'auto' (the default: when standard\n"
          "                      error is a terminal, TERM is not 'dumb' and NO_COLOR is\n"
          "                      unset), 'always' (--color alone) or 'never'\n"
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
          "  --report=FILE.html  also write one self-contained HTML page of the pipeline:\n"
          "                      times, rewrites, each pass's module as a diff, --explain\n"
          "                      lines linked to bindings, --verify-exec results, and the\n"
          "                      graphs before and after (drawn when Graphviz is installed)\n"
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
          "                      error after N steps: a loop iteration is one, a call of\n"
          "                      a Relax function 4000 (default 30000000000)\n"
          "  -j N, --jobs=N      with --run or --verify-exec: run the iterations of loops\n"
          "                      proven independent on N threads (default: the machine's\n"
          "                      cores); the outputs are those of running them in order\n"
          "  --no-batch          with --run or --verify-exec: run every loop one iteration\n"
          "                      at a time, not in batches (the same results, slower)\n"
          "  --timeout=SECONDS   stop the pipeline (before its next pass) and the runs with\n"
          "                      an error once SECONDS of wall time have passed (default:\n"
          "                      none)\n"
          "  --max-memory=BYTES  with --run or --verify-exec: stop a run with an error at the\n"
          "                      tensor that would make the tensors and arenas it holds pass\n"
          "                      BYTES (K, M, G: powers of 1024; default: the machine's\n"
          "                      physical memory)\n"
          "  --verify-exec[=ulp:N]  run main on seeded inputs before the pipeline and after\n"
          "                      every pass; stop at the first pass that changes an output\n"
          "                      (bit-exact, or within N units in the last place)\n"
          "  --no-exec-cache     with --verify-exec, execute every PrimFunc call of every\n"
          "                      run of main (by default a call on the same function and\n"
          "                      the same bytes as in an earlier run replays its result)\n"
          "\n"
          "cost tables (no module is read):\n"
          "  --import-costs=autotvm LOG\n"
          "                      convert an AutoTVM JSON log (x86 conv2d records) into\n"
          "                      choose-layout's cost table (lopt(1) COST TABLES), written\n"
          "                      to -o FILE or standard output\n"
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
          "  --list-passes       list the passes with their options and exit\n"
          "\n"
          "passes:\n", out);
    for (int i = 0; i < lopt_pass_count(); i++)
        fprintf(out, "  %-19s %s\n", lopt_pass_name(i), lopt_pass_summary(i));
    fputs("\nexit status: 0 success, 1 bad input, 2 bad usage\n", out);
}

/* --list-passes: each pass, its options and what it does. */
static void list_passes(FILE *out)
{
    for (int i = 0; i < lopt_pass_count(); i++) {
        const char *const *opt = lopt_pass_options(i);
        fprintf(out, "%s", lopt_pass_name(i));
        for (int k = 0; opt && opt[k]; k++)
            fprintf(out, "%s%s=...", k ? "," : "{", opt[k]);
        fprintf(out, "%s\n    %s\n", opt && opt[0] ? "}" : "", lopt_pass_summary(i));
    }
}

/* Records the first usage error (fmt has one %s, for arg); main reports it. */
static int usage(Options *o, const char *fmt, const char *arg)
{
    if (!o->usage_error[0])
        snprintf(o->usage_error, sizeof o->usage_error, fmt, arg);
    return EXIT_USAGE;
}

/* An option whose reading ran out of memory (a pipeline, a name kept) is
 * not a usage error: the library's error says so, exit status 1. */
static int out_of_memory(const Options *o)
{
    for (int i = 0; i < lopt_diag_count(o->ctx); i++)
        if (lopt_diag_get(o->ctx, i)->status == LOPT_ENOMEM)
            return 1;
    return 0;
}

static int usage_report(const Options *o)
{
    if (out_of_memory(o)) {
        fputs("lopt: error: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    fprintf(stderr, "lopt: %s\nTry 'lopt --help' for more information.\n", o->usage_error);
    return EXIT_USAGE;
}

/* Matches --name VALUE and --name=VALUE; leaves *i at argc when the value is missing. */
static int value_option(const char *a, const char *name, const char **val, int argc, char **argv, int *i)
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

/* Parses a whole decimal number from s within [lo, hi]; 0, or -1. */
static int whole_number(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

static int set_timeout(Options *o, const char *v)
{
    char *end;
    errno = 0;
    double t = strtod(v, &end);
    if (errno || end == v || *end || !(t > 0) || t > 1e9)
        return usage(o, "--timeout takes a number of seconds above 0, as in --timeout=2.5; not '%s'", v);
    lopt_set_timeout(o->ctx, t);
    return 0;
}

/* BYTES, or with a suffix K, M or G (powers of 1024). */
static int set_max_memory(Options *o, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = !*end ? 0 : strcmp(end, "K") == 0 ? 10 : strcmp(end, "M") == 0 ? 20 : strcmp(end, "G") == 0 ? 30 : -1;
    if (errno || end == v || v[0] == '-' || shift < 0 || n == 0 || n > (SIZE_MAX >> shift))
        return usage(o, "--max-memory takes a number of bytes above 0, or with K, M or G, as in --max-memory=2G; "
                     "not '%s'", v);
    lopt_set_max_memory(o->ctx, (size_t)n << shift);
    o->memory_given = 1;
    return 0;
}

static int set_jobs(Options *o, const char *v)
{
    long long n;
    if (whole_number(v, 1, 1024, &n))
        return usage(o, "-j takes a number of threads from 1 to 1024; not '%s'", v);
    o->jobs = (int)n;
    o->jobs_given = 1;
    return 0;
}

/* NAME=VALUE with a name before the '='. */
static const char *named(const char *v)
{
    const char *eq = strchr(v, '=');
    return eq && eq != v ? eq : NULL;
}

/* An option with a value: returns -1 when a is none, else 0 or EXIT_USAGE. */
static int parse_value(int argc, char **argv, int *i, Options *o)
{
    const char *a = argv[*i], *v = NULL;
    static const char *const names[] = { "-o", "--pass", "--print-before", "--print-after", "--constants",
                                         "--emit", "--print-style", "--seed", "--input", "--shape", "--output-dir", "--entry",
                                         "--max-steps", "--jobs", "-j", "--map", "--compose", "--apply",
                                         "--timeout", "--max-memory", "--import-costs" };
    size_t k = 0;
    while (k < sizeof names / sizeof *names && !value_option(a, names[k], &v, argc, argv, i))
        k++;
    if (k == sizeof names / sizeof *names)
        return -1;
    const char *name = names[k];
    if (*i == argc) {
        if (strcmp(name, "-o") == 0)
            return usage(o, "%s", "-o needs a file name");
        if (strcmp(name, "--pass") == 0)
            return usage(o, "%s", "--pass needs a pipeline, as in --pass=verify,print");
        if (strcmp(name, "--print-before") == 0 || strcmp(name, "--print-after") == 0)
            return usage(o, "%s needs the names of passes, as in --print-after=fold", name);
        if (strcmp(name, "--constants") == 0)
            return usage(o, "%s", "--constants needs a path: an .npz archive or a directory of .npy files");
        return usage(o, "%s needs a value", name);
    }
    long long n;
    if (strcmp(name, "-o") == 0) {
        o->output = v;
    } else if (strcmp(name, "--import-costs") == 0) {
        if (strcmp(v, "autotvm") != 0)
            return usage(o, "--import-costs takes autotvm (an AutoTVM JSON log), not '%s'", v);
        o->import_costs = v;
    } else if (strcmp(name, "--pass") == 0) {
        if (lopt_pipeline_append(o->ctx, o->pipeline, v))
            return usage(o, "%s", lopt_last_error(o->ctx));
    } else if (strcmp(name, "--print-before") == 0 || strcmp(name, "--print-after") == 0) {
        int after = name[8] == 'a';
        o->reads_module = 1;
        if (after ? lopt_add_print_after(o->ctx, v) : lopt_add_print_before(o->ctx, v)) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: %s", name, lopt_last_error(o->ctx));
            return usage(o, "%s", msg);
        }
    } else if (strcmp(name, "--constants") == 0) {
        if (!v[0])
            return usage(o, "%s", "--constants needs a path: an .npz archive or a directory of .npy files");
        lopt_set_constants(o->ctx, v);
        o->reads[o->nreads] = v;
        o->read_what[o->nreads++] = "the constants file";
    } else if (strcmp(name, "--emit") == 0) {
        if (strcmp(v, "text") != 0 && strcmp(v, "dot") != 0)
            return usage(o, "--emit takes text or dot, as in --emit=dot; not '%s'", v);
        o->style = v[0] == 'd' ? LOPT_STYLE_DOT : o->style == LOPT_STYLE_DOT ? LOPT_STYLE_CANONICAL : o->style;
        o->emit_given = 1;
    } else if (strcmp(name, "--print-style") == 0) {
        if (strcmp(v, "canonical") != 0 && strcmp(v, "tvm") != 0)
            return usage(o, "--print-style takes canonical or tvm, as in --print-style=tvm; not '%s'", v);
        if (o->style != LOPT_STYLE_DOT)
            o->style = v[0] == 't' ? LOPT_STYLE_TVM : LOPT_STYLE_CANONICAL;
    } else if (strcmp(name, "--seed") == 0) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-')
            return usage(o, "--seed takes a non-negative integer; not '%s'", v);
        lopt_set_seed(o->ctx, s);
        o->seed_given = 1;
    } else if (strcmp(name, "--max-steps") == 0) {
        if (whole_number(v, 1, INT64_MAX, &n))
            return usage(o, "--max-steps takes a positive integer; not '%s'", v);
        lopt_set_max_steps(o->ctx, n);
        o->steps_given = 1;
    } else if (strcmp(name, "--timeout") == 0) {
        return set_timeout(o, v);
    } else if (strcmp(name, "--max-memory") == 0) {
        return set_max_memory(o, v);
    } else if (strcmp(name, "--jobs") == 0 || strcmp(name, "-j") == 0) {
        return set_jobs(o, v);
    } else if (strcmp(name, "--input") == 0) {
        const char *eq = named(v);
        if (!eq)
            return usage(o, "--input takes NAME=FILE.npy; not '%s'", v);
        char param[4096];
        snprintf(param, sizeof param, "%.*s", (int)(eq - v), v);
        lopt_add_input_file(o->ctx, param, eq + 1);
        o->reads[o->nreads] = eq + 1;
        o->read_what[o->nreads++] = "a file of --input";
        o->ninputs++;
    } else if (strcmp(name, "--output-dir") == 0) {
        if (!v[0])
            return usage(o, "%s", "--output-dir needs a directory, as in --output-dir=out");
        o->output_dir = v;
    } else if (strcmp(name, "--entry") == 0) {
        o->entry = v;
        lopt_set_entry(o->ctx, v);
    } else if (strcmp(name, "--shape") == 0) {
        if (!strchr(v, '=')) {
            o->shape = v;   /* D,D,...: the box of --map */
        } else {
            /* --shape NAME=D,D,...: for --run, not --map */
            const char *eq = named(v);
            if (!eq)
                return usage(o, "--shape takes NAME=D,D,... (or D,D,... with --map); not '%s'", v);
            char param[4096];
            snprintf(param, sizeof param, "%.*s", (int)(eq - v), v);
            lopt_add_input_shape(o->ctx, param, eq + 1);
            o->nshapes++;
        }
    } else if (strcmp(name, "--map") == 0) {
        o->map = v;
    } else if (strcmp(name, "--compose") == 0) {
        o->compose = v;
    } else {
        o->apply = v;
    }
    return 0;
}

/* Reads argv[*i] and the value it takes; returns -1 to go on, 0 to exit
 * (--help, --version), or EXIT_USAGE once usage() has recorded why. */
static int parse_arg(int argc, char **argv, int *i, int *files, Options *o)
{
    const char *a = argv[*i];
    if (o->usage_error[0] && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "--version") == 0 ||
                              strcmp(a, "--list-ops") == 0 || strcmp(a, "--list-passes") == 0))
        return EXIT_USAGE;   /* the error comes first, as it did when it ended the reading */
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        help(stdout);
        return 0;
    }
    if (strcmp(a, "--version") == 0) {
        printf("lopt %s\n", lopt_version());
        return 0;
    }
    if (strcmp(a, "--list-passes") == 0) {
        list_passes(stdout);
        return 0;
    }
    if (strcmp(a, "--list-ops") == 0) {
        char *t = lopt_ops_table();
        fputs(t ? t : "", stdout);
        lopt_free(t);
        return 0;
    }
    int r = a[0] == '-' && a[1] == 'j' && a[2] >= '0' && a[2] <= '9' ? set_jobs(o, a + 2)   /* -j4, as make spells it */
                                                                    : parse_value(argc, argv, i, o);
    if (r >= 0)
        return r ? EXIT_USAGE : -1;
    if (strcmp(a, "--inverse") == 0) {
        o->inverse = 1;
    } else if (strcmp(a, "--run") == 0) {
        o->run = 1;
    } else if (strcmp(a, "--no-batch") == 0) {
        o->no_batch = 1;
        lopt_set_batch(o->ctx, 0);
    } else if (strcmp(a, "--no-exec-cache") == 0) {
        o->no_exec_cache = 1;
        lopt_set_exec_cache(o->ctx, 0);
    } else if (strcmp(a, "--verify-exec") == 0) {
        o->verify_exec = 1;
        lopt_set_verify_exec(o->ctx, 1, 0);
    } else if (strncmp(a, "--verify-exec=", 14) == 0) {
        char *end;
        long long u = strncmp(a + 14, "ulp:", 4) == 0 ? strtoll(a + 18, &end, 10) : -1;
        if (u < 0 || strncmp(a + 14, "ulp:", 4) != 0 || end == a + 18 || *end)
            return usage(o, "--verify-exec takes ulp:N with N >= 0, as in --verify-exec=ulp:4; not '%s'", a + 14);
        o->verify_exec = 1;
        lopt_set_verify_exec(o->ctx, 1, u);
    } else if (strcmp(a, "--verify-each") == 0) {
        o->reads_module = 1;
        lopt_set_verify_each(o->ctx, 1);
    } else if (strcmp(a, "--strict") == 0) {
        lopt_set_strict(o->ctx, 1);
    } else if (strcmp(a, "--allow-unregistered") == 0) {
        lopt_set_allow_unregistered(o->ctx, 1);
    } else if (strcmp(a, "--print-after-all") == 0) {
        o->reads_module = 1;
        lopt_set_print_after_all(o->ctx, 1);
    } else if (strcmp(a, "--print-changed") == 0) {
        o->print_changed = 1;
        lopt_set_print_changed(o->ctx, 1);
    } else if (strcmp(a, "--time-passes") == 0) {
        o->time_passes = 1;
    } else if (strcmp(a, "--stats") == 0) {
        o->stats = 1;
    } else if (strncmp(a, "--stats-json", 12) == 0 && (a[12] == '=' || a[12] == 0)) {
        o->stats_json = a[12] ? a + 13 : "";
        if (!o->stats_json[0])
            return usage(o, "%s", "--stats-json needs a file name after '=', as in --stats-json=stats.json");
    } else if (strcmp(a, "--color") == 0) {
        o->color = 1;
    } else if (strncmp(a, "--color=", 8) == 0) {
        if (strcmp(a + 8, "always") == 0)
            o->color = 1;
        else if (strcmp(a + 8, "never") == 0)
            o->color = 0;
        else if (strcmp(a + 8, "auto") == 0)
            o->color = -1;
        else
            return usage(o, "--color takes auto, always or never, as in --color=never; not '%s'", a + 8);
    } else if (strcmp(a, "--split-input-file") == 0) {
        o->split_input = 1;
    } else if (strcmp(a, "--verify-diagnostics") == 0) {
        o->verify_diagnostics = 1;
    } else if (strcmp(a, "--explain") == 0) {
        o->reads_module = 1;
        lopt_set_explain(o->ctx, 1);
    } else if (strncmp(a, "--report", 8) == 0 && (a[8] == '=' || a[8] == 0)) {
        /* only --report=FILE: "--report model.tir" must not write over the model */
        o->report = a[8] ? a + 9 : "";
        if (!o->report[0])
            return usage(o, "%s", "--report needs a file name after '=', as in --report=pipeline.html");
        lopt_set_html_report(o->ctx, o->report);
    } else if (a[0] == '-' && a[1] != 0) {
        return usage(o, "unknown option '%s'", a);
    } else {
        if ((*files)++)
            return usage(o, "%s", "only one input file can be given");
        o->input = a;
    }
    return -1;
}

/* A usage error when the output named opt (as "-o FILE") is a file the
 * run reads; files are compared by identity, so ./in.tir, a link to it or
 * its absolute path are the input as much as in.tir. */
static int clobbers(Options *o, const char *path, const char *opt)
{
    char msg[2048];
    if (strcmp(o->input, "-") != 0 && lopt_same_file(path, o->input)) {
        snprintf(msg, sizeof msg, "%s would write over the input", opt);
        return usage(o, "%s", msg);
    }
    for (int i = 0; i < o->nreads; i++)
        if (lopt_same_file(path, o->reads[i])) {
            snprintf(msg, sizeof msg, "%s would write over %s", opt, o->read_what[i]);
            return usage(o, "%s", msg);
        }
    return 0;
}

/* Whether base is a name --output-dir writes: output.npy, output0.npy, ... */
static int output_npy_name(const char *base)
{
    if (strncmp(base, "output", 6) != 0)
        return 0;
    base += 6;
    while (*base >= '0' && *base <= '9')
        base++;
    return strcmp(base, ".npy") == 0;
}

/* A usage error when one of the files --output-dir writes is one the run reads. */
static int output_dir_clobbers(Options *o)
{
    for (int i = -1; i < o->nreads; i++) {
        const char *f = i < 0 ? o->input : o->reads[i];
        const char *slash = strrchr(f, '/');
        if (!output_npy_name(slash ? slash + 1 : f))
            continue;
        char dir[4096];
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            snprintf(dir, sizeof dir, "%.*s", slash == f ? 1 : (int)(slash - f), f);
        if (lopt_same_file(dir, o->output_dir)) {
            char msg[2048];
            snprintf(msg, sizeof msg, "--output-dir=%s would write over %s", o->output_dir,
                     i < 0 ? "the input" : o->read_what[i]);
            return usage(o, "%s", msg);
        }
    }
    return 0;
}

/* Refuses outputs that are the input, a file read, or one another. */
static int check_outputs(Options *o)
{
    char opt[1024];
    if (o->output && strcmp(o->output, "-") != 0) {
        snprintf(opt, sizeof opt, "-o %s", o->output);
        if (clobbers(o, o->output, opt))
            return EXIT_USAGE;
    }
    if (o->report) {
        snprintf(opt, sizeof opt, "--report=%s", o->report);
        if (clobbers(o, o->report, opt))
            return EXIT_USAGE;
        if (o->output && strcmp(o->output, "-") != 0 && lopt_same_file(o->report, o->output))
            return usage(o, "--report=%s would write over -o's file", o->report);
    }
    if (o->stats_json) {
        snprintf(opt, sizeof opt, "--stats-json=%s", o->stats_json);
        if (clobbers(o, o->stats_json, opt))
            return EXIT_USAGE;
        if (o->output && strcmp(o->output, "-") != 0 && lopt_same_file(o->stats_json, o->output))
            return usage(o, "--stats-json=%s would write over -o's file", o->stats_json);
        if (o->report && lopt_same_file(o->stats_json, o->report))
            return usage(o, "--stats-json=%s would write over --report's file", o->stats_json);
    }
    if (o->output_dir && output_dir_clobbers(o))
        return EXIT_USAGE;
    return -1;
}

/* Returns -1 to continue, or an exit status. A usage error stops nothing:
 * the rest of the line is read, so that --verify-diagnostics can find the
 * file that expects the error. */
static int parse_args(int argc, char **argv, Options *o)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        int r = parse_arg(argc, argv, &i, &files, o);
        if (r == 0)
            return 0;
    }
    if (o->usage_error[0])
        return EXIT_USAGE;
    int passes = lopt_pipeline_length(o->pipeline);
    if (o->map) {
        if (files || o->output || passes || o->reads_module || o->print_changed || o->time_passes)
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
    if (o->import_costs && (o->map || passes || o->reads_module || o->run || o->verify_exec || o->split_input ||
                            o->report || files > 1))
        return usage(o, "%s", "--import-costs reads one tuning log, not a module: it takes the log and -o, "
                     "no pass, --map or run options");
    if (o->import_costs && !files)
        return usage(o, "%s", "--import-costs needs the log to read, as in lopt --import-costs=autotvm tuning.log "
                     "-o table.costs");
    if (o->map && (o->run || o->verify_exec || o->ninputs || o->output_dir))
        return usage(o, "%s", "--map reads no module: it cannot be combined with --run or --verify-exec");
    const char *unrun = lopt_pipeline_missing(o->ctx, o->pipeline, 0);
    if (unrun)
        return usage(o, "--print-before names '%s', which the pipeline (--pass) does not run", unrun);
    if ((unrun = lopt_pipeline_missing(o->ctx, o->pipeline, 1)))
        return usage(o, "--print-after names '%s', which the pipeline (--pass) does not run", unrun);
    if (o->report && (o->map || o->split_input))
        return usage(o, "%s", o->map ? "--report shows a pipeline: --map reads no module" :
                     "--report cannot be combined with --split-input-file: it shows one module's pipeline");
    if (o->split_input && o->output_dir)
        return usage(o, "%s", "--output-dir cannot be combined with --split-input-file: every module would write "
                     "the same files");
    if (!o->map && o->print_changed && !passes)
        return usage(o, "%s", "--print-changed shows what passes change: it needs a pipeline, as in --pass=fold");
    if (o->output_dir && !o->run)
        return usage(o, "%s", "--output-dir goes with --run");
    if (o->no_exec_cache && !o->verify_exec)
        return usage(o, "%s", "--no-exec-cache goes with --verify-exec");
    if (o->run && o->emit_given)
        return usage(o, "%s", "--run prints outputs, not the module: --emit cannot be combined with it");
    if (!o->run && !o->verify_exec && (o->seed_given || o->ninputs || o->nshapes || o->steps_given || o->jobs_given))
        return usage(o, "%s", "--seed, --input, --shape NAME=..., --max-steps and -j go with --run or --verify-exec");
    if (o->memory_given && !o->run && !o->verify_exec)
        return usage(o, "%s", "--max-memory goes with --run or --verify-exec");
    if ((o->no_batch || o->entry) && !o->run && !o->verify_exec)
        return usage(o, "%s goes with --run or --verify-exec", o->entry ? "--entry" : "--no-batch");
    if (o->run && o->output)
        return usage(o, "%s", "--run prints outputs, not the module: -o cannot be combined with it");
    if (!o->input)
        o->input = "-";
    return check_outputs(o);
}

/* ---- reading the input ---- */

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

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wall time spent reading and printing, over all the modules of the input (--time-passes). */
typedef struct Timing {
    double start, read, output;
} Timing;

/* One module of the input: its text and how the library may hold it. */
typedef struct Text {
    const char *name, *text;
    size_t len;
    unsigned flags;
} Text;

/* The stream modules and outputs go to: standard output (also for -o -),
 * or -o's file opened at first use. */
static int to_file(const Options *o)
{
    return o->output && strcmp(o->output, "-") != 0;
}

static FILE *output(Options *o, FILE **out)
{
    if (*out)
        return *out;
    if (!to_file(o))
        return *out = stdout;
    if (!o->out_file && !(o->out_file = lopt_output_open(o->ctx, o->output)))
        return NULL;
    return *out = lopt_output_stream(o->out_file);
}

/* After the passes: run main and print its outputs, or print the module. */
static int emit(Options *o, lopt_module *m, FILE **out)
{
    if (o->run) {
        lopt_value *v = NULL;
        double start = seconds();
        int bad = lopt_run(o->ctx, m, o->entry, &v);
        o->running += seconds() - start;
        bad = bad || lopt_value_report(o->ctx, v, stdout, o->output_dir);
        lopt_value_free(v);
        return bad ? EXIT_INPUT : 0;
    }
    FILE *f = output(o, out);
    if (!f)
        return EXIT_INPUT;
    /* a write error is reported when the output is closed; what else fails is memory */
    if (lopt_module_write(m, o->style, f) && !ferror(f)) {
        fputs("lopt: error: out of memory\n", stderr);
        return EXIT_INPUT;
    }
    return 0;
}

/* Reads, verifies, transforms and prints (or runs) the module of t. */
static int process(Options *o, const Text *t, Timing *tm, FILE **out)
{
    double start = seconds();
    lopt_module *m = lopt_parse_ex(o->ctx, t->text, t->len, t->name, t->flags);
    int status = !m || lopt_verify(o->ctx, m) ? EXIT_INPUT : 0;
    tm->read += seconds() - start;
    if (!status && lopt_apply(o->ctx, m, o->pipeline))
        status = EXIT_INPUT;
    start = seconds();
    if (!status)
        status = emit(o, m, out);
    tm->output += seconds() - start;
    lopt_module_free(m);
    return status;
}

/* --verify-diagnostics: process t with its diagnostics caught, then match
 * them against the comments that expect them. */
static int process_checked(Options *o, const Text *t, Timing *tm, FILE **out)
{
    lopt_expect *want = lopt_expect_read(o->ctx, t->text, t->len, t->name);
    if (!want)
        return EXIT_INPUT;
    char *log = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&log, &len);
    if (!mem)
        abort();
    lopt_set_diag_stream(o->ctx, mem);
    int errors = lopt_error_count(o->ctx), status, usage_errors = 0;
    if (o->usage_error[0]) {
        fprintf(mem, "lopt: error: %s\n", o->usage_error);
        usage_errors = 1;
        status = EXIT_USAGE;
    } else {
        status = process(o, t, tm, out);
    }
    errors = lopt_error_count(o->ctx) - errors + usage_errors;
    fclose(mem);
    lopt_set_diag_stream(o->ctx, stderr);
    int bad = lopt_expect_check(o->ctx, want, log, len);
    if (status && errors == 0) {
        fprintf(stderr, "lopt: error: --verify-diagnostics: '%s' failed with an error that is not a "
                "diagnostic (above), which no comment can expect\n", t->name);
        bad++;
    }
    free(log);
    lopt_expect_free(want);
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

static int process_one(Options *o, const Text *t, Timing *tm, FILE **out)
{
    return o->verify_diagnostics ? process_checked(o, t, tm, out) : process(o, t, tm, out);
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
    Text t = { name, buf, pad + n, LOPT_PARSE_BORROW };
    int status = process_one(o, &t, tm, out);
    free(buf);
    return status;
}

/* --stats and --stats-json, once every module has run: 0, or -1 when the
 * JSON file cannot be written (said on standard error). */
static int stats_report(Options *o)
{
    if (o->stats) {
        char *t = lopt_pipeline_stats(o->pipeline, 0);
        fputs(t ? t : "lopt: error: out of memory\n", stderr);
        lopt_free(t);
    }
    if (!o->stats_json)
        return 0;
    char *t = lopt_pipeline_stats(o->pipeline, 1);
    lopt_output *f = t ? lopt_output_open(o->ctx, o->stats_json) : NULL;
    int bad = !f || fputs(t, lopt_output_stream(f)) < 0;
    if (f && (bad ? (lopt_output_discard(f), 1) : lopt_output_commit(o->ctx, f) != 0))
        bad = 1;
    lopt_free(t);
    return bad ? -1 : 0;
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
    for (int i = 0; i < lopt_pipeline_length(o->pipeline); i++) {
        double t = lopt_pipeline_step_time(o->pipeline, i);
        fprintf(stderr, "  %10.6f  %d. %s\n", t, i + 1, lopt_pipeline_step_name(o->pipeline, i));
        rest -= t;
    }
    if (o->run) {
        double making = lopt_input_seconds(o->ctx);
        fprintf(stderr, "  %10.6f  making the inputs\n", making);
        fprintf(stderr, "  %10.6f  running main\n", o->running - making);
        fprintf(stderr, "  %10.6f  printing the outputs\n", tm->output - o->running);
    } else {
        fprintf(stderr, "  %10.6f  printing the result\n", tm->output);
    }
    fprintf(stderr, "  %10.6f  the rest (verification, dumps, --verify-exec)\n", rest > 0 ? rest : 0);
    fprintf(stderr, "  %10.6f  total\n", total);
    int64_t replayed, executed, par_loops;
    lopt_counters(o->ctx, &replayed, &executed, &par_loops);
    if (o->verify_exec && !o->no_exec_cache)
        fprintf(stderr, "lopt: time-passes: --verify-exec replayed %lld PrimFunc calls from its cache and "
                "executed %lld\n", (long long)replayed, (long long)executed);
    if ((o->run || o->verify_exec) && o->jobs_given)
        fprintf(stderr, "lopt: time-passes: -j %d: loops run on threads: %lld\n", o->jobs, (long long)par_loops);
}

static int run(Options *o)
{
    Timing tm = { seconds(), 0, 0 };
    int stdin_input = strcmp(o->input, "-") == 0;
    FILE *in = stdin_input ? stdin : fopen(o->input, "rb");
    if (!in) {
        fprintf(stderr, "lopt: cannot open '%s': %s\n", o->input, strerror(errno));
        return EXIT_INPUT;
    }
    size_t len = 0;
    char *mapped = stdin_input || o->split_input ? NULL : map_file(in, &len);
    char *text = mapped ? mapped : read_all(in, &len);
    int err = errno;
    if (!stdin_input)
        fclose(in);
    if (!text) {
        fprintf(stderr, "lopt: cannot read '%s': %s\n", o->input, strerror(err));
        return EXIT_INPUT;
    }
    const char *name = stdin_input ? "<stdin>" : o->input;
    FILE *out = NULL;
    int status;
    if (o->split_input) {
        status = process_parts(o, name, text, len, &tm, &out);
    } else {
        Text t = { name, text, len, mapped ? LOPT_PARSE_MAPPED : LOPT_PARSE_BORROW };
        status = process_one(o, &t, &tm, &out);
    }
    if (o->run && fflush(stdout) != 0)
        status = EXIT_INPUT;
    if (o->out_file) {
        /* -o's file replaces the target only when every module succeeded */
        if (status)
            lopt_output_discard(o->out_file);
        else if (lopt_output_commit(o->ctx, o->out_file))
            status = EXIT_INPUT;
        o->out_file = NULL;
    } else if (out && (ferror(out) || fflush(out) != 0)) {
        fprintf(stderr, "lopt: error writing '<stdout>'\n");
        status = EXIT_INPUT;
    }
    if (o->time_passes)
        time_report(o, &tm);
    if ((o->stats || o->stats_json) && stats_report(o))
        status = status ? status : EXIT_INPUT;
    if (mapped)
        munmap(mapped, len);
    else
        free(text);
    return status;
}

/* ---- the index-map calculator ---- */

static void print_tuple(FILE *f, const int64_t *v, int n)
{
    fputc('(', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputs(n == 1 ? ",)" : ")", f);
}

static void print_map(const char *label, const lopt_indexmap *m)
{
    char *t = lopt_indexmap_text(m);
    printf("%s: %s\n", label, t);
    lopt_free(t);
}

static void print_shape(const lopt_indexmap *m)
{
    printf("shape: ");
    print_tuple(stdout, lopt_indexmap_shape(m, 0), lopt_indexmap_rank(m, 0));
    printf(" -> ");
    print_tuple(stdout, lopt_indexmap_shape(m, 1), lopt_indexmap_rank(m, 1));
    printf("\n");
}

static void print_padding(const lopt_indexmap *m)
{
    char *p = lopt_indexmap_padding(m);
    printf("padding: %s\n", p ? p : "none");
    lopt_free(p);
}

/* What --apply asks, checked against the map's box; 0, or EXIT_INPUT after saying why. */
static int check_apply(const lopt_indexmap *m, const int64_t *at, int napply)
{
    int rank = lopt_indexmap_rank(m, 0);
    const int64_t *box = lopt_indexmap_shape(m, 0);
    if (napply != rank) {
        fprintf(stderr, "lopt: error: --apply has %d indices but the map has %d inputs\n", napply, rank);
        return EXIT_INPUT;
    }
    for (int i = 0; i < napply; i++)
        if (at[i] >= box[i]) {
            fprintf(stderr, "lopt: error: --apply index %lld of '%s' is outside its extent %lld\n", (long long)at[i],
                    lopt_indexmap_input_name(m, i), (long long)box[i]);
            return EXIT_INPUT;
        }
    return 0;
}

/* The kind of the map, and the error when it is no layout rewrite. */
static int print_kind(Options *o, const lopt_indexmap *m)
{
    int64_t wa[MAX_RANK], wb[MAX_RANK], y[MAX_RANK];
    int rank = lopt_indexmap_rank(m, 0);
    switch (lopt_indexmap_kind(m, wa, wb)) {
    case LOPT_MAP_NOT_INJECTIVE:
        printf("kind: not injective\n");
        fflush(stdout);
        lopt_indexmap_apply(o->ctx, m, wa, y);
        fprintf(stderr, "lopt: error: the map is not injective, so it is not a layout rewrite: ");
        print_tuple(stderr, wa, rank);
        fputs(" and ", stderr);
        print_tuple(stderr, wb, rank);
        fputs(" both map to ", stderr);
        print_tuple(stderr, y, lopt_indexmap_rank(m, 1));
        fputc('\n', stderr);
        return EXIT_INPUT;
    case LOPT_MAP_UNKNOWN:
        printf("kind: unknown\n");
        fflush(stdout);
        fprintf(stderr, "lopt: error: cannot decide whether the map is injective: its outputs are not sums of "
                "distinct digits of its inputs and its box is too large to enumerate\n");
        return EXIT_INPUT;
    case LOPT_MAP_IDENTITY: printf("kind: identity\n"); return 0;
    case LOPT_MAP_BIJECTIVE: printf("kind: bijective\n"); return 0;
    default: printf("kind: injective with padding\n"); return 0;
    }
}

static int map_report(Options *o)
{
    int64_t box[MAX_RANK], at[MAX_RANK], y[MAX_RANK];
    int rank = lopt_parse_ints(o->shape, box, MAX_RANK, 1);
    if (rank < 0)
        return usage(o, "--shape expects 1 to 16 positive integers separated by commas, as in 1,3,8,8; not '%s'",
                     o->shape);
    int napply = o->apply ? lopt_parse_ints(o->apply, at, MAX_RANK, 0) : 0;
    if (napply < 0)
        return usage(o, "--apply expects non-negative integers separated by commas, as in 0,2,3,4; not '%s'",
                     o->apply);
    lopt_set_diag_stream(o->ctx, stderr);
    lopt_indexmap *m = lopt_indexmap_new(o->ctx, o->map, box, rank, "<map>"), *g = NULL, *inv = NULL;
    int status = EXIT_INPUT;
    if (m && o->compose) {
        g = lopt_indexmap_new(o->ctx, o->compose, lopt_indexmap_shape(m, 1), lopt_indexmap_rank(m, 1), "<compose>");
        lopt_indexmap *c = g ? lopt_indexmap_compose(o->ctx, m, g) : NULL;
        lopt_indexmap_free(m);
        m = c;
    }
    if (!m || (o->apply && check_apply(m, at, napply)))
        goto done;
    const char *why = lopt_indexmap_no_inverse(m);
    int invertible = lopt_indexmap_kind(m, NULL, NULL) <= LOPT_MAP_PADDED;
    if (o->inverse && invertible && !why && (inv = lopt_indexmap_inverse(o->ctx, m))) {
        print_map("map", inv);
        print_shape(inv);
        print_padding(inv);
        status = 0;
        goto done;
    }
    print_map("map", m);
    print_shape(m);
    if (o->apply) {
        lopt_indexmap_apply(o->ctx, m, at, y);
        printf("apply: ");
        print_tuple(stdout, at, napply);
        printf(" -> ");
        print_tuple(stdout, y, lopt_indexmap_rank(m, 1));
        printf("\n");
    }
    if (print_kind(o, m))
        goto done;
    status = 0;
    if (why) {
        printf("inverse: not derived (%s)\n", why);
        if (o->inverse) {
            fflush(stdout);
            fprintf(stderr, "lopt: error: %s\n", why);
            status = EXIT_INPUT;
        }
        goto done;
    }
    print_map("inverse", (inv = lopt_indexmap_inverse(o->ctx, m)));
    print_padding(m);
done:
    lopt_indexmap_free(m);
    lopt_indexmap_free(g);
    lopt_indexmap_free(inv);
    return status;
}

/* Ctrl-C (or a kill) leaves no partial output: the temporary files of
 * -o, --report and --output-dir go, the targets stay as they were. */
static void on_signal(int sig)
{
    lopt_output_remove_pending();
    _exit(128 + sig);
}

static void catch_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* --import-costs=FORMAT LOG [-o TABLE]: the table, then what was skipped. */
static int import_costs(Options *o)
{
    lopt_output *out = o->output && strcmp(o->output, "-") != 0 ? lopt_output_open(o->ctx, o->output) : NULL;
    if (o->output && strcmp(o->output, "-") != 0 && !out)
        return EXIT_INPUT;
    int n[4] = { 0 };
    if (lopt_import_costs(o->ctx, o->import_costs, o->input, out ? lopt_output_stream(out) : stdout, n)) {
        lopt_output_discard(out);
        return EXIT_INPUT;
    }
    if (out && lopt_output_commit(o->ctx, out))
        return EXIT_INPUT;
    fflush(stdout);
    fprintf(stderr, "lopt: import-costs: %d record%s read, %d imported; skipped: %d whose layouts lopt cannot express "
            "(tile_ic unlike tile_oc, or a data layout other than NCHW), %d of other operators or failed runs\n", n[0],
            n[0] == 1 ? "" : "s", n[1], n[2], n[3]);
    return 0;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    catch_signals();
    Options o;
    memset(&o, 0, sizeof o);
    o.ctx = lopt_context_new();
    o.pipeline = lopt_pipeline_new();
    o.reads = calloc((size_t)argc, sizeof *o.reads);
    o.read_what = calloc((size_t)argc, sizeof *o.read_what);
    if (!o.ctx || !o.pipeline || !o.reads || !o.read_what) {
        fprintf(stderr, "lopt: error: out of memory\n");
        lopt_context_free(o.ctx);
        lopt_pipeline_free(o.pipeline);
        free(o.reads);
        free(o.read_what);
        return EXIT_INPUT;
    }
    o.color = -1;
    int status = parse_args(argc, argv, &o);
    if (o.color < 0) {
        const char *term = getenv("TERM");
        o.color = isatty(STDERR_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
    }
    lopt_set_color(o.ctx, o.color);
    lopt_set_stats(o.ctx, o.stats || o.stats_json);
    lopt_set_threads(o.ctx, o.jobs_given ? o.jobs : 0);
    lopt_set_diag_stream(o.ctx, stderr);
    lopt_set_report_stream(o.ctx, stderr);
    /* with --verify-diagnostics, the file's comments may expect a usage error */
    if (status < 0 || (status == EXIT_USAGE && o.verify_diagnostics && o.input && !o.map))
        status = o.map ? map_report(&o) : o.import_costs ? import_costs(&o) : run(&o);
    if (status == EXIT_USAGE)
        status = usage_report(&o);
    lopt_pipeline_free(o.pipeline);
    lopt_context_free(o.ctx);
    free(o.reads);
    free(o.read_what);
    return status;
}
