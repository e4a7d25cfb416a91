/* libFuzzer harness for the reader, verifier and printer: no input may crash,
 * leak or trip a sanitizer, and whatever is accepted must round-trip:
 * print(parse(print(parse(x)))) == print(parse(x)). Build with `make fuzz`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grammar/reader.h"
#include "../../printer/print.h"

static FILE *sink;

static char *print_to_string(const Module *m, size_t *len)
{
    char *s = NULL;
    FILE *f = open_memstream(&s, len);
    if (!f)
        abort();
    print_module(f, m);
    fclose(f);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    Source src = { "<fuzz>", text, size, 0, sink };
    Module *m = read_module(&src);
    if (m && ir_verify(m, &src) == 0) {
        size_t n1, n2;
        char *p1 = print_to_string(m, &n1);
        Source src2 = { "<printed>", p1, n1, 0, sink };
        Module *m2 = read_module(&src2);
        if (!m2 || ir_verify(m2, &src2) != 0) {
            fprintf(stderr, "lopt rejects its own output:\n%s\n", p1);
            abort();
        }
        char *p2 = print_to_string(m2, &n2);
        if (n1 != n2 || memcmp(p1, p2, n1) != 0) {
            fprintf(stderr, "round trip is not stable:\n--- first\n%s\n--- second\n%s\n", p1, p2);
            abort();
        }
        free(p1);
        free(p2);
        module_free(m2);
    }
    module_free(m);
    free(text);
    return 0;
}
