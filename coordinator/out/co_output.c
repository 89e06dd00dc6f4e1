/* co_output: the files a run writes (--json, --csv, --hdr-log) from its co_result (contract:
 * co_output.h). */
#include "co_output.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"
#include "co_kinds_out.h"

/* Where each file went is an informational message (sysbench's level 4):
 * a successful run at the default --verbosity=3 keeps stderr empty, as
 * PerfKitBenchmarker and other wrappers take any stderr for a failure. */
static int report(int rc, bool info, const char *what, const char *path, const struct pr_error *err)
{
    if (rc != 0)
        fprintf(stderr, "stampede: cannot write the %s: %s\n", what, err->msg);
    else if (info)
        fprintf(stderr, "stampede: %s written to %s\n", what, path);
    return rc == 0 ? 0 : -1;
}

int co_output_write(const struct co_args *a, const struct co_result *res, co_stream *stream)
{
    struct pr_error err = {0};
    int bad = 0;
    bool info = a->cfg.verbosity >= CO_OUTPUT_VERBOSITY_INFO;

    if (stream != NULL) /* a run: its intervals were written as they closed */
        return co_stream_finish(stream, res, info);
    if (a->json_path && strcmp(a->json_path, "-") == 0) {
        int rc = co_json_write(res, stdout);
        err.code = rc;
        snprintf(err.msg, sizeof(err.msg), "stdout: %s", pr_strerror(rc));
        bad |= report(rc, false, "JSON results", "-", &err);
    } else if (a->json_path)
        bad |= report(co_json_write_file(res, a->json_path, &err), info, "JSON results",
                      a->json_path, &err);
    if (a->csv_path)
        bad |= report(co_csv_write_file(res, a->csv_path, &err), info, "CSV intervals", a->csv_path,
                      &err);
    if (a->csv_kinds_path)
        bad |= report(co_kinds_out_csv_file(res, a->csv_kinds_path, &err), info,
                      "CSV per statement kind", a->csv_kinds_path, &err);
    if (a->hdr_log_path)
        bad |= report(co_hdrout_write_file(res, res->start_unix_ms, a->hdr_log_path, &err), info,
                      "HdrHistogram log", a->hdr_log_path, &err);
    return bad ? -1 : 0;
}
