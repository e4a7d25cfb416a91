/* Output files for the library's callers: the command line's -o goes
 * through the same temporary-and-rename as the library's own --report and
 * --output-dir files (ir/outfile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/outfile.h"
#include "internal.h"
#include "../ir/oom.h"

struct lopt_output {
    OutFile f;
    char *name;   /* as the caller gave it, for messages */
};

static lopt_output *lopt_output_open_body(lopt_context *ctx, const char *path)
{
    lopt_output *out = xmalloc(sizeof *out);
    char *name = out ? xstrdup(path) : NULL;
    if (!name) {
        free(out);
        api_fail(ctx, "out of memory opening '%s'", path);
        return NULL;
    }
    out->name = name;
    if (outfile_open(&out->f, path) == 0)
        return out;
    api_fail(ctx, "cannot write '%s': %s", path, strerror(errno));
    free(name);
    free(out);
    return NULL;
}

lopt_output *lopt_output_open(lopt_context *ctx, const char *path)
{
    API_PROTECTED(ctx, lopt_output *, NULL, lopt_output_open_body(ctx, path));
}

FILE *lopt_output_stream(lopt_output *out)
{
    return out->f.f;
}

static int lopt_output_commit_body(lopt_context *ctx, lopt_output *out)
{
    int r = outfile_commit(&out->f) ? api_fail(ctx, "error writing '%s': %s", out->name, strerror(errno)) : 0;
    free(out->name);
    free(out);
    return r;
}

int lopt_output_commit(lopt_context *ctx, lopt_output *out)
{
    API_PROTECTED(ctx, int, -1, lopt_output_commit_body(ctx, out));
}

void lopt_output_discard(lopt_output *out)
{
    if (!out)
        return;
    outfile_discard(&out->f);
    free(out->name);
    free(out);
}

void lopt_output_remove_pending(void)
{
    outfile_remove_pending();
}

int lopt_same_file(const char *a, const char *b)
{
    return outfile_same(a, b);
}
