/* lopt: reads a module, verifies it, runs a pass pipeline, prints the result.
 * Exit status: 0 success, 1 bad input, 2 bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grammar/reader.h"
#include "../passes/pass.h"
#include "../printer/print.h"

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
    int print_after_all;
} Options;

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
          "  --pass=PIPELINE     run passes in order: a,b{key=value,...},c (repeatable)\n"
          "  --verify-each       verify the module after every pass\n"
          "  --print-after-all   print the module to standard error after every pass\n"
          "  --help              show this help and exit\n"
          "  --version           show the version and exit\n"
          "\n"
          "passes:\n", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-19s %s\n", p[i].name, p[i].summary);
    fputs("\nexit status: 0 success, 1 bad input, 2 bad usage\n", out);
}

static int usage(const char *fmt, const char *arg)
{
    fputs("lopt: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'lopt --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static int add_pipeline(Options *o, const char *text)
{
    char err[512];
    if (pipeline_parse(&o->pipeline, text, err, sizeof err))
        return usage("%s", err);
    return 0;
}

/* Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("lopt %s\n", LOPT_VERSION);
            return 0;
        }
        if (strcmp(a, "-o") == 0) {
            if (++i == argc)
                return usage("%s", "-o needs a file name");
            o->output = argv[i];
        } else if (strncmp(a, "--pass=", 7) == 0) {
            if (add_pipeline(o, a + 7))
                return EXIT_USAGE;
        } else if (strcmp(a, "--pass") == 0) {
            if (++i == argc)
                return usage("%s", "--pass needs a pipeline, as in --pass=verify,print");
            if (add_pipeline(o, argv[i]))
                return EXIT_USAGE;
        } else if (strcmp(a, "--verify-each") == 0) {
            o->verify_each = 1;
        } else if (strcmp(a, "--print-after-all") == 0) {
            o->print_after_all = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            return usage("unknown option '%s'", a);
        } else {
            if (files++)
                return usage("%s", "only one input file can be given");
            o->input = a;
        }
    }
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

static int run(Options *o)
{
    int stdin_input = strcmp(o->input, "-") == 0;
    FILE *in = stdin_input ? stdin : fopen(o->input, "rb");
    if (!in) {
        fprintf(stderr, "lopt: cannot open '%s': %s\n", o->input, strerror(errno));
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
        return EXIT_INPUT;
    }
    Source src = { stdin_input ? "<stdin>" : o->input, text, len, 0, stderr };
    Module *m = read_module(&src);
    int status = 0;
    if (!m || ir_verify(m, &src)) {
        status = EXIT_INPUT;
    } else {
        PassCtx ctx = { &src, stderr, o->verify_each, o->print_after_all };
        if (pipeline_run(&o->pipeline, m, &ctx))
            status = EXIT_INPUT;
    }
    if (status == 0) {
        FILE *out = o->output ? fopen(o->output, "w") : stdout;
        if (!out) {
            fprintf(stderr, "lopt: cannot write '%s': %s\n", o->output, strerror(errno));
            status = EXIT_INPUT;
        } else {
            print_module(out, m);
            int bad = ferror(out);
            bad |= o->output ? fclose(out) != 0 : fflush(out) != 0;
            if (bad) {
                fprintf(stderr, "lopt: error writing '%s'\n", o->output ? o->output : "<stdout>");
                status = EXIT_INPUT;
            }
        }
    }
    module_free(m);
    if (mapped)
        munmap(mapped, len);
    else
        free(text);
    return status;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    Options o;
    memset(&o, 0, sizeof o);
    int status = parse_args(argc, argv, &o);
    if (status < 0)
        status = run(&o);
    pipeline_free(&o.pipeline);
    return status;
}
