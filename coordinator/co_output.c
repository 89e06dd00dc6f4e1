#include "co_output.h"

#include <stdio.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"

static int report(int rc, const char *what, const char *path, const struct pr_error *err)
{
    if (rc == 0)
        fprintf(stderr, "stampede: %s written to %s\n", what, path);
    else
        fprintf(stderr, "stampede: cannot write the %s: %s\n", what, err->msg);
    return rc == 0 ? 0 : -1;
}

int co_output_write(const struct co_args *a, const struct co_result *res)
{
    struct pr_error err = {0};
    int bad = 0;

    if (a->json_path)
        bad |=
            report(co_json_write_file(res, a->json_path, &err), "JSON results", a->json_path, &err);
    if (a->csv_path)
        bad |=
            report(co_csv_write_file(res, a->csv_path, &err), "CSV intervals", a->csv_path, &err);
    if (a->hdr_log_path)
        bad |= report(co_hdrout_write_file(res, res->start_unix_ms, a->hdr_log_path, &err),
                      "HdrHistogram log", a->hdr_log_path, &err);
    return bad ? -1 : 0;
}
