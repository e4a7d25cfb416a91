/* lopt as a library: read a TVMScript-like module, verify it, run layout
 * passes over it, print it, run it, and answer index-map questions. This is
 * the one public header: every handle is opaque, every name starts with
 * lopt_ (LOPT_ for constants), and the library keeps no state of its own
 * between calls, so handles on different threads do not meet.
 *
 * Errors are diagnostics, kept as records on the context (file, line,
 * column, severity, message, source line) and printed only to a stream the
 * caller names. A function that fails returns NULL or a nonzero status. A
 * context, and the modules used with it, belong to one thread at a time.
 *
 * Arguments: a handle or a string a function needs may not be NULL; the
 * comments say where NULL is allowed and what it means. A NULL where one is
 * needed is refused by the call that takes it: it returns its failure (-1,
 * NULL) with an error of status LOPT_EUSAGE recorded on the context (none
 * when the context itself is NULL), and keeps nothing. A function without a
 * context given a NULL handle returns NULL, -1 or 0 and does nothing; the
 * _free functions take NULL.
 *
 * Lifetimes: a string or record the library returns as const belongs to the
 * handle it came from and lives as long as the comment says; a string
 * returned as char * is the caller's, to lopt_free. */
#ifndef LOPT_API_H
#define LOPT_API_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LOPT_API __attribute__((visibility("default")))
#else
#define LOPT_API
#endif

/* Statuses of errors (lopt_diag.status). LOPT_EINPUT: the input is wrong;
 * LOPT_EUSAGE: the library was called wrong; LOPT_ELIMIT: a budget was
 * reached (--max-steps, --timeout, --max-memory) or an interrupt stopped
 * the call; LOPT_ENOMEM: an allocation failed. The command line exits 1
 * for each but LOPT_EUSAGE (2).
 *
 * The error contract: the library never aborts and never prints unless
 * the caller named a stream (lopt_set_diag_stream, lopt_set_report_stream,
 * a FILE argument). Every entry point runs as a protected call: an
 * allocation that fails anywhere below unwinds to it, which frees what the
 * call made, records one error "out of memory" of status LOPT_ENOMEM (the
 * record needs no allocation of its own) and returns its failure (-1,
 * NULL). A module that lopt_apply was changing when memory ran out is left
 * half-changed: it may only be freed (later calls with it are refused with
 * LOPT_EUSAGE). Entry points without a context return their failure
 * alone. */
enum { LOPT_OK = 0, LOPT_EINPUT = 1, LOPT_EUSAGE = 2, LOPT_ELIMIT = 3, LOPT_ENOMEM = 4 };

typedef struct lopt_context lopt_context;
typedef struct lopt_module lopt_module;
typedef struct lopt_pipeline lopt_pipeline;
typedef struct lopt_value lopt_value;
typedef struct lopt_indexmap lopt_indexmap;
typedef struct lopt_expect lopt_expect;

/* "0.1.0" */
LOPT_API const char *lopt_version(void);
/* Frees a string the library returned. */
LOPT_API void lopt_free(void *p);

/* ---- contexts: options, diagnostics, reports ---- */

typedef enum { LOPT_ERROR, LOPT_WARNING, LOPT_NOTE } lopt_severity;

typedef struct lopt_diag {
    const char *file;          /* the name the text was read under; NULL for an error about
                                  the call as a whole (no input, a run that failed) */
    int line, column;          /* 1-based; 0 when the diagnostic has no place */
    lopt_severity severity;
    const char *message;
    const char *source_line;   /* the line it points into, "" when it has no place */
    int status;                /* an error's LOPT_EUSAGE (how the library was called: a NULL
                                  argument, a pipeline or pass list that does not read),
                                  LOPT_EINPUT (the input), LOPT_ELIMIT (a budget or an
                                  interrupt stopped the call) or LOPT_ENOMEM (an allocation
                                  failed); LOPT_OK for a warning or a note */
} lopt_diag;

LOPT_API lopt_context *lopt_context_new(void);
LOPT_API void lopt_context_free(lopt_context *ctx);

/* The diagnostics reported since the context was made or last cleared.
 * The record lopt_diag_get returns (NULL for i out of range), its strings,
 * and the message lopt_last_error returns stay valid and unchanged while
 * later calls add diagnostics: until lopt_diag_clear or lopt_context_free. */
LOPT_API int lopt_diag_count(const lopt_context *ctx);
LOPT_API const lopt_diag *lopt_diag_get(const lopt_context *ctx, int i);
LOPT_API int lopt_error_count(const lopt_context *ctx);
/* The message of the last error, or NULL. */
LOPT_API const char *lopt_last_error(const lopt_context *ctx);
LOPT_API void lopt_diag_clear(lopt_context *ctx);
/* Prints the diagnostics (as the command line does: file:line:col: error:
 * message, the line and a caret) to f as well, from now on (NULL: not). */
LOPT_API void lopt_set_diag_stream(lopt_context *ctx, FILE *f);
/* Where the reports go that --explain, --print-changed, --print-after,
 * --verify-exec's summary print: f, or (NULL, the default) a buffer that
 * lopt_report_text returns. */
LOPT_API void lopt_set_report_stream(lopt_context *ctx, FILE *f);
/* The reports written to the buffer since the last lopt_report_clear ("" when
 * none): valid until the next call with ctx that reports, lopt_report_clear
 * or lopt_context_free. */
LOPT_API const char *lopt_report_text(lopt_context *ctx);
LOPT_API void lopt_report_clear(lopt_context *ctx);

/* Options of reading (strict: warnings are errors; allow_unregistered: a
 * call of a name neither lopt nor TVM defines is kept as an opaque call,
 * with a warning, instead of refused; constants: the .npz or directory
 * TVM's metadata constants are read from, NULL for none: read by
 * lopt_parse, once, into the module it makes). A NULL ctx is ignored by
 * these and the other lopt_set_ functions. */
LOPT_API void lopt_set_strict(lopt_context *ctx, int on);
LOPT_API void lopt_set_allow_unregistered(lopt_context *ctx, int on);
LOPT_API void lopt_set_constants(lopt_context *ctx, const char *path);

/* Options of running a pipeline: each as the command-line option of its name. */
LOPT_API void lopt_set_verify_each(lopt_context *ctx, int on);
LOPT_API void lopt_set_print_after_all(lopt_context *ctx, int on);
LOPT_API void lopt_set_print_changed(lopt_context *ctx, int on);
/* --stats: each lopt_apply records the module's counts (functions,
 * bindings, calls by kind, rewrites and their bytes, constants) before the
 * first pass and after each, in the pipeline (lopt_pipeline_stats). */
LOPT_API void lopt_set_stats(lopt_context *ctx, int on);
/* --color: diagnostics written to the diag stream carry ANSI colours. */
LOPT_API void lopt_set_color(lopt_context *ctx, int on);
LOPT_API void lopt_set_explain(lopt_context *ctx, int on);
/* --print-before / --print-after: adds the passes named in a list "a,b";
 * returns -1 (an error recorded) for an unknown or empty name. */
LOPT_API int lopt_add_print_before(lopt_context *ctx, const char *passes);
LOPT_API int lopt_add_print_after(lopt_context *ctx, const char *passes);
/* --report=FILE.html: each lopt_apply also writes one self-contained HTML
 * page of its pipeline to path (NULL: none). */
LOPT_API void lopt_set_html_report(lopt_context *ctx, const char *path);
/* --verify-exec[=ulp:N]: run main before the pipeline and after every pass */
LOPT_API void lopt_set_verify_exec(lopt_context *ctx, int on, int64_t ulp);
LOPT_API void lopt_set_exec_cache(lopt_context *ctx, int on);

/* Options of running a function (lopt_run, and --verify-exec's runs). */
LOPT_API void lopt_set_seed(lopt_context *ctx, uint64_t seed);
/* --entry=F: the function --verify-exec runs before and after the passes
 * (NULL: main); lopt_run takes its own. */
LOPT_API void lopt_set_entry(lopt_context *ctx, const char *entry);
LOPT_API void lopt_set_max_steps(lopt_context *ctx, int64_t steps);

/* Budgets and interrupts. Each stops lopt_run and lopt_apply (and
 * --verify-exec's runs inside it) with an error of status LOPT_ELIMIT that
 * names where the run was: at a loop iteration, a batch of them or a Relax
 * binding of a run, or before the next pass of a pipeline (a pass that has
 * begun runs to its end). Parsing, printing and verifying are not bounded.
 *
 * lopt_set_interrupt: the call stops within about 10 ms once *flag is
 * nonzero (set it from a SIGINT handler or another thread; the library
 * only reads it, and never clears it). NULL, the default: no flag.
 * lopt_set_timeout (--timeout): the wall seconds from the start of the
 * call, lopt_run's or lopt_apply's as a whole; 0 (the default): none.
 * While either is set, each call runs a thread of its own that watches them.
 * lopt_set_max_memory (--max-memory): the bytes a run may hold at once in
 * tensors (inputs, values, buffers) and in the interpreter's arenas, by
 * lopt's own count: a tensor that would pass it is refused with the error,
 * so tensors that each fit but together do not stop the run there and are
 * not left to the system's OOM killer. 0: the default, the machine's
 * physical memory. */
LOPT_API void lopt_set_interrupt(lopt_context *ctx, const volatile sig_atomic_t *flag);
LOPT_API void lopt_set_timeout(lopt_context *ctx, double seconds);
LOPT_API void lopt_set_max_memory(lopt_context *ctx, size_t bytes);
LOPT_API void lopt_set_threads(lopt_context *ctx, int threads);   /* 0: the machine's cores */
LOPT_API void lopt_set_batch(lopt_context *ctx, int on);

/* A tensor as the caller holds it: dtype by name ("float32", "int8", ...),
 * shape, and data, row-major, ndim..shape elements of the dtype. */
typedef struct lopt_tensor {
    const char *dtype;
    int ndim;
    const int64_t *shape;
    const void *data;
    size_t nbytes;
} lopt_tensor;

/* The inputs of a run, by parameter name; the parameters not given are
 * filled from the seed. The tensor's data is copied. spec is what messages
 * name it by ("x", or "x=file.npy" as --input gives it). Returns -1 (an
 * error recorded) for a dtype lopt does not have or a size that disagrees. */
LOPT_API int lopt_add_input(lopt_context *ctx, const char *name, const lopt_tensor *t);
/* An input read from a .npy file when the run starts (--input NAME=FILE):
 * 0, or -1 (a usage error recorded) for a NULL name or path. */
LOPT_API int lopt_add_input_file(lopt_context *ctx, const char *name, const char *path);
/* The shape of a seeded input, "D,D,..." ("" for rank 0; --shape
 * NAME=D,D,...): 0, or -1 (a usage error recorded) for a NULL name or dims. */
LOPT_API int lopt_add_input_shape(lopt_context *ctx, const char *name, const char *dims);
LOPT_API void lopt_clear_inputs(lopt_context *ctx);

/* What the runs of the context counted: PrimFunc calls --verify-exec
 * replayed from its cache and executed, loops run on threads. */
LOPT_API void lopt_counters(const lopt_context *ctx, int64_t *replayed, int64_t *executed, int64_t *par_loops);
/* Seconds the runs of the context spent making seeded inputs (part of the
 * time lopt_run takes). */
LOPT_API double lopt_input_seconds(const lopt_context *ctx);

/* ---- modules ---- */

enum {
    LOPT_PARSE_BORROW = 1,   /* the text outlives the module and has a NUL at text[len]: not copied */
    LOPT_PARSE_MAPPED = 2,   /* ... and is a private read-only file mapping whose pages may be given back */
};

/* Reads a module from text (len bytes, not NULL even when len is 0), naming
 * it name in diagnostics ("<string>" when NULL). Text that is not UTF-8 is
 * refused at its first bad byte. The constants lopt_set_constants names are
 * read once, here: the module keeps their data. NULL after reporting errors. */
LOPT_API lopt_module *lopt_parse(lopt_context *ctx, const char *text, size_t len, const char *name);
LOPT_API lopt_module *lopt_parse_ex(lopt_context *ctx, const char *text, size_t len, const char *name,
                                    unsigned flags);
LOPT_API void lopt_module_free(lopt_module *m);
/* The verifier (with the context's strictness): 0, or -1 after reporting. */
LOPT_API int lopt_verify(lopt_context *ctx, lopt_module *m);
/* A module equal to m, sharing nothing with it, and verified when m was (as
 * m was: a pipeline does on the copy what it does on m). It reads no file:
 * m's text is read again with the constants m kept (the context's
 * lopt_set_constants plays no part), or, once a pipeline changed m or when
 * m was read with LOPT_PARSE_MAPPED, its printed text, which holds every
 * constant's data; diagnostics then point into that text. NULL after
 * reporting. */
LOPT_API lopt_module *lopt_module_clone(lopt_context *ctx, const lopt_module *m);

/* The name m was read under (lopt_parse's name); valid while m lives. */
LOPT_API const char *lopt_module_name(const lopt_module *m);
/* m's functions, Relax and TIR, in the module's order: their count, and
 * the name of the i-th (NULL out of range); valid while m lives. */
LOPT_API int lopt_module_function_count(const lopt_module *m);
LOPT_API const char *lopt_module_function_name(const lopt_module *m, int i);
/* The dtype ("float32") Relax function func declares for its parameter
 * param (a tensor's or a prim value's), or NULL when it declares none or has
 * no such parameter: what an input for it must hold. A static string. */
LOPT_API const char *lopt_module_param_dtype(const lopt_module *m, const char *func, const char *param);

typedef enum { LOPT_STYLE_CANONICAL, LOPT_STYLE_TVM, LOPT_STYLE_DOT } lopt_style;
/* Prints m to f; 0, or -1 when f reports an error. */
LOPT_API int lopt_module_write(const lopt_module *m, lopt_style style, FILE *f);
/* m printed, as a string to lopt_free (NULL when memory runs out). */
LOPT_API char *lopt_module_print(const lopt_module *m, lopt_style style);

/* ---- pipelines ---- */

/* The passes: name and one-line summary of the i-th, for i < lopt_pass_count(). */
LOPT_API int lopt_pass_count(void);
LOPT_API const char *lopt_pass_name(int i);
LOPT_API const char *lopt_pass_summary(int i);
/* The table of operators --list-ops prints, as a string to lopt_free. */
LOPT_API char *lopt_ops_table(void);

LOPT_API lopt_pipeline *lopt_pipeline_new(void);
LOPT_API void lopt_pipeline_free(lopt_pipeline *p);
/* Appends the steps of text, "a,b{key=value},c": 0, or -1 with the
 * reason recorded on ctx (lopt_last_error). */
LOPT_API int lopt_pipeline_append(lopt_context *ctx, lopt_pipeline *p, const char *text);
LOPT_API int lopt_pipeline_length(const lopt_pipeline *p);
/* What lopt_set_stats recorded over every run of p, as the table --stats
 * prints (json 0) or as the JSON --stats-json writes; a string to
 * lopt_free, NULL when memory runs out. */
LOPT_API char *lopt_pipeline_stats(const lopt_pipeline *p, int json);
/* The options pass i accepts, NULL-terminated. */
LOPT_API const char *const *lopt_pass_options(int i);
LOPT_API const char *lopt_pipeline_step_name(const lopt_pipeline *p, int i);
/* Wall seconds spent in step i over every run of p. */
LOPT_API double lopt_pipeline_step_time(const lopt_pipeline *p, int i);
/* Whether p runs the pass named; the first pass of the list named in
 * lopt_add_print_before/after that p does not run, or NULL. */
LOPT_API const char *lopt_pipeline_missing(const lopt_context *ctx, const lopt_pipeline *p, int after);

/* Runs p on m in place, with the context's options (verification, dumps,
 * --explain, --verify-exec): 0, or -1 after reporting. */
LOPT_API int lopt_apply(lopt_context *ctx, lopt_module *m, lopt_pipeline *p);

/* --explain's records: each line it wrote, split into its parts (a line
 * of another form is kept whole as the message, with file and pass ""). */
typedef struct lopt_explain_record {
    const char *file;
    int line, column;          /* 0: about the pass as a whole */
    const char *pass;
    const char *message;
} lopt_explain_record;
/* Parses the --explain text (as lopt_report_text gives it) into records:
 * returns their count, the array in *out (to lopt_explain_free), or -1. */
LOPT_API int lopt_explain_parse(const char *text, lopt_explain_record **out);
/* The same for the lines about the module read under the name file (as
 * lopt_module_name gives it): they are split after the name, so a name
 * holding ": " or ":N:N" is kept whole. */
LOPT_API int lopt_explain_parse_file(const char *text, const char *file, lopt_explain_record **out);
LOPT_API void lopt_explain_free(lopt_explain_record *r, int n);

/* ---- running ---- */

typedef enum { LOPT_VALUE_TENSOR, LOPT_VALUE_TUPLE, LOPT_VALUE_SHAPE, LOPT_VALUE_PRIM } lopt_value_kind;

/* Runs the function entry ("main" when NULL): a Relax function on the
 * context's inputs (the others seeded), or a PrimFunc alone on seeded
 * buffers, its result the buffers it writes. 0 and the result in *out (to
 * lopt_value_free), or -1 after reporting. */
LOPT_API int lopt_run(lopt_context *ctx, lopt_module *m, const char *entry, lopt_value **out);
LOPT_API void lopt_value_free(lopt_value *v);
LOPT_API lopt_value_kind lopt_value_kind_of(const lopt_value *v);
LOPT_API int lopt_value_tuple_size(const lopt_value *v);
LOPT_API const lopt_value *lopt_value_tuple_item(const lopt_value *v, int i);
/* The tensor of a tensor, shape (its dimensions, int64) or prim value
 * (rank 0): pointers into v. */
LOPT_API int lopt_value_tensor(const lopt_value *v, lopt_tensor *t);
/* What --run prints of v (shape, dtype, checksum, first values), and with
 * dir, the outputs written as DIR/NAME.npy: 0, or -1 after reporting. */
LOPT_API int lopt_value_report(lopt_context *ctx, const lopt_value *v, FILE *f, const char *dir);

/* ---- index maps ---- */

typedef enum {
    LOPT_MAP_IDENTITY, LOPT_MAP_BIJECTIVE, LOPT_MAP_PADDED, LOPT_MAP_NOT_INJECTIVE, LOPT_MAP_UNKNOWN
} lopt_map_kind;

/* Reads a map, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)" or two layouts
 * "NCHW:NCHW4c", over the box shape[0..rank), naming it what in diagnostics
 * ("<map>" when NULL). NULL after reporting. */
LOPT_API lopt_indexmap *lopt_indexmap_new(lopt_context *ctx, const char *text, const int64_t *shape, int rank,
                                          const char *what);
LOPT_API void lopt_indexmap_free(lopt_indexmap *m);
/* second after first (second over first's output box). NULL after reporting. */
LOPT_API lopt_indexmap *lopt_indexmap_compose(lopt_context *ctx, const lopt_indexmap *first,
                                              const lopt_indexmap *second);
/* The inverse map, over the output box; NULL (an error recorded, as
 * lopt_indexmap_no_inverse says) when there is none. */
LOPT_API lopt_indexmap *lopt_indexmap_inverse(lopt_context *ctx, const lopt_indexmap *m);
/* Why the map has no inverse, or NULL when it has one. */
LOPT_API const char *lopt_indexmap_no_inverse(const lopt_indexmap *m);
LOPT_API int lopt_indexmap_rank(const lopt_indexmap *m, int out);
LOPT_API const int64_t *lopt_indexmap_shape(const lopt_indexmap *m, int out);
/* The name of input i (n, c, h, w for NCHW). */
LOPT_API const char *lopt_indexmap_input_name(const lopt_indexmap *m, int i);
/* "lambda n, c, h, w: (n, c // 4, h, w, c % 4)" (to lopt_free) */
LOPT_API char *lopt_indexmap_text(const lopt_indexmap *m);
/* The kind; for LOPT_MAP_NOT_INJECTIVE, two indices with one image in a and b (may be NULL). */
LOPT_API lopt_map_kind lopt_indexmap_kind(const lopt_indexmap *m, int64_t *a, int64_t *b);
/* The predicate on the output indices that holds on padding, as text (to
 * lopt_free); for an inverse, on its inputs. NULL when nothing is padding. */
LOPT_API char *lopt_indexmap_padding(const lopt_indexmap *m);
/* The image of index (rank inputs) in out: 0, or -1 (an error recorded)
 * when index is outside the box. */
LOPT_API int lopt_indexmap_apply(lopt_context *ctx, const lopt_indexmap *m, const int64_t *index, int64_t *out);

/* Reads s, integers separated by commas ("1,6,8,8": the form of a shape or
 * an index on the command line), into v: their count, or -1 when s is not
 * such a list, holds more than max, or an integer below min. */
LOPT_API int lopt_parse_ints(const char *s, int64_t *v, int max, int64_t min);

/* ---- cost tables ---- */

/* Converts the tuning log at path (format "autotvm": an AutoTVM JSON log)
 * into choose-layout's cost table, written to out: the best time of each
 * x86 conv2d workload and layout. counts (or NULL) gets the records read,
 * those imported, those skipped as a layout lopt cannot express, and
 * those of other operators or failed runs. 0, or -1 after reporting. */
LOPT_API int lopt_import_costs(lopt_context *ctx, const char *format, const char *path, FILE *out, int counts[4]);

/* ---- output files ---- */

/* A file that appears whole or not at all, as the library writes its own
 * (--report, --output-dir): the text goes to a temporary file in the
 * target's folder, renamed over the target (keeping its permissions) only
 * by lopt_output_commit, so a run that fails, a full disk or Ctrl-C leaves
 * the target as it was. A target that exists and is not a regular file (a
 * terminal, a pipe, /dev/null) is written directly. A symbolic link keeps
 * pointing where it did: the file it points to is replaced. */
typedef struct lopt_output lopt_output;
/* NULL after reporting (the folder cannot be written, ...). */
LOPT_API lopt_output *lopt_output_open(lopt_context *ctx, const char *path);
LOPT_API FILE *lopt_output_stream(lopt_output *out);
/* Flushes, syncs and renames the file into place: 0, or -1 after
 * reporting, the target untouched. Frees out. */
LOPT_API int lopt_output_commit(lopt_context *ctx, lopt_output *out);
/* Removes the temporary file, the target untouched; frees out (NULL: nothing). */
LOPT_API void lopt_output_discard(lopt_output *out);
/* Removes the temporary files of every output of this process not yet
 * committed or discarded. Async-signal-safe (it calls unlink(2) alone):
 * for a SIGINT handler, which then ends the process. */
LOPT_API void lopt_output_remove_pending(void);
/* 1 when paths a and b name one file: the same device and inode, or, for
 * a file not there yet, the same name in the same folder. */
LOPT_API int lopt_same_file(const char *a, const char *b);

/* ---- expected diagnostics (--verify-diagnostics) ---- */

/* Reads the comments `# expected-error@+1 {{text}}` of text. NULL after reporting. */
LOPT_API lopt_expect *lopt_expect_read(lopt_context *ctx, const char *text, size_t len, const char *name);
/* Matches the diagnostics in log (as printed to a diagnostic stream) against
 * those expected; reports each unexpected or missing one and returns their count. */
LOPT_API int lopt_expect_check(lopt_context *ctx, lopt_expect *e, const char *log, size_t len);
LOPT_API void lopt_expect_free(lopt_expect *e);

#ifdef __cplusplus
}
#endif

#endif
