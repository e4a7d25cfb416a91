/* libFuzzer harness for the reader, verifier and printer: no input may crash,
 * leak or trip a sanitizer, and whatever is accepted must round-trip:
 * print(parse(print(parse(x)))) == print(parse(x)), also through the printer's
 * TVM style. Build with `make fuzz`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grammar/reader.h"
#include "../../printer/print.h"

static FILE *sink;

static char *print_to_string(const Module *m, size_t *len, int tvm)
{
    char *s = NULL;
    FILE *f = open_memstream(&s, len);
    if (!f)
        abort();
    if (tvm)
        print_module_tvm(f, m);
    else
        print_module(f, m);
    fclose(f);
    return s;
}

/* The text after the kept `# from tvm.script import` lines and the blank
 * line that follows them. */
static const char *past_headers(const char *s)
{
    while (strncmp(s, "# from tvm.script import", 24) == 0 && strchr(s, '\n'))
        s = strchr(s, '\n') + 1;
    while (*s == '\n')
        s++;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    Source src = { .name = "<fuzz>", .text = text, .len = size, .out = sink };
    Module *m = read_module(&src);
    if (m && ir_verify(m, &src) == 0) {
        size_t n1, n2;
        char *p1 = print_to_string(m, &n1, 0);
        Source src2 = { "<printed>", p1, n1, 0, sink };
        Module *m2 = read_module(&src2);
        if (!m2 || ir_verify(m2, &src2) != 0) {
            fprintf(stderr, "lopt rejects its own output:\n%s\n", p1);
            abort();
        }
        char *p2 = print_to_string(m2, &n2, 0);
        if (n1 != n2 || memcmp(p1, p2, n1) != 0) {
            fprintf(stderr, "round trip is not stable:\n--- first\n%s\n--- second\n%s\n", p1, p2);
            abort();
        }
        /* TVM's style reads back as the same module */
        size_t n3, n4;
        char *p3 = print_to_string(m, &n3, 1);
        Source src3 = { "<tvm style>", p3, n3, 0, sink };
        Module *m3 = read_module(&src3);
        if (!m3 || ir_verify(m3, &src3) != 0) {
            fprintf(stderr, "lopt rejects its own output in TVM's style:\n%s\n", p3);
            abort();
        }
        char *p4 = print_to_string(m3, &n4, 0);
        if (strcmp(past_headers(p1), past_headers(p4)) != 0) {
            fprintf(stderr, "TVM's style reads back as another module:\n--- canonical\n%s\n--- through TVM's style\n%s\n", p1, p4);
            abort();
        }
        free(p1);
        free(p2);
        free(p3);
        free(p4);
        module_free(m2);
        module_free(m3);
    }
    module_free(m);
    free(text);
    return 0;
}
