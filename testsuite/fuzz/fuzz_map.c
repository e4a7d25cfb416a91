/* libFuzzer harness for the index-map algebra: any text given to --map may
 * be rejected, but must not crash, leak or trip a sanitizer, and every map
 * lopt accepts must pass the enumeration checks of testsuite/unit/maps.c
 * (apply, output box, kind, inverse and padding predicate, identity, compose,
 * normal form read back). Build with `make fuzz-map`. */
#define IMCHECK_NO_MAIN
#include "../unit/maps.c"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        sink = fopen("/dev/null", "w");
    if (size > 512)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    Module *m = module_new();
    Source src = { .name = "<fuzz>", .text = text, .len = size, .out = sink };
    Expr *e = read_index_map(&src, m);
    if (e && e->u.map.nparams <= 6) {
        /* extents 1-9 from the input's bytes, at most 4096 points */
        int64_t box[IM_MAX_RANK], vol = 1;
        uint64_t h = 14695981039346656037u;
        for (size_t i = 0; i < size; i++)
            h = (h ^ data[i]) * 1099511628211u;
        for (int i = 0; i < e->u.map.nparams; i++) {
            box[i] = (int64_t)(h % 9) + 1;
            h /= 9;
            if (vol * box[i] > 4096)
                box[i] = 1;
            vol *= box[i];
        }
        Stats st = { 0 };
        check(m, e, box, 0, &st);
        if (failures) {
            fprintf(stderr, "fuzz_map: the check failed on %s\n", text);
            abort();
        }
    }
    module_free(m);
    free(text);
    return 0;
}
