/* lopt_import_costs: a tuning log converted into choose-layout's cost table
 * (passes/layout/costs.h), with no module. */
#include <stdlib.h>
#include <string.h>

#include "../ir/oom.h"
#include "../passes/layout/costs.h"
#include "internal.h"

int lopt_import_costs(lopt_context *ctx, const char *format, const char *path, FILE *out, int counts[4])
{
    API_NEED(ctx, format, -1);
    API_NEED(ctx, path, -1);
    API_NEED(ctx, out, -1);
    if (strcmp(format, "autotvm") != 0)
        return api_usage(ctx, "--import-costs takes autotvm (an AutoTVM JSON log), not '%s'", format);
    Source src = { 0 };
    api_bind(ctx, &src);
    size_t len;
    char *text = costs_slurp(path, &src, &len);
    if (!text)
        return -1;
    CostTable t = { 0 };
    CostImport n;
    int rc = costs_import_autotvm(path, text, len, &src, &t, &n);
    free(text);
    if (rc == 0) {
        costs_write(out, &t);
        if (counts) {
            counts[0] = n.records;
            counts[1] = n.imported;
            counts[2] = n.inexpressible;
            counts[3] = n.other;
        }
    }
    costs_free(&t);
    return rc;
}
