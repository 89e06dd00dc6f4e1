/* co_sb_args: the sysbench family's option rules once every option is in
 * (co_family.h's check_options; contract: co_sb_args.h): the TLS options,
 * the ones stampede refuses or ignores (co_args.h), --report-checkpoints,
 * --forced-shutdown and --validate. */
#include "co_sb_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "pr_ssl.h"

/* The TLS options make sense together; the options stampede does not
 * implement (co_args.h) are refused or warned about. */
static int check_unsupported(struct co_args *a, struct pr_error *err)
{
    int rc = pr_ssl_check_opts(a->opts, err);
    if (rc == 0)
        rc = co_args_refuse_unsupported(a, err);
    if (rc == 0)
        co_args_warn_no_effect(a);
    return rc;
}

/* --report-checkpoints (pr_opts_checkpoints); each is taken at the first
 * report boundary at or after it. */
static int parse_checkpoints(struct co_args *a, struct pr_error *err)
{
    int64_t ri = pr_opts_int(a->opts, "report-interval");
    uint64_t step = ri > 0 ? (uint64_t)ri : 1;
    free(a->checkpoints);
    int rc = pr_opts_checkpoints(a->opts, &a->checkpoints, &a->n_checkpoints, err);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < a->n_checkpoints; i++)
        if (a->checkpoints[i] % step)
            co_args_warn(a,
                         "--report-checkpoints: %" PRIu32
                         " s is not a multiple of --report-interval=%" PRIu64
                         "; that checkpoint is taken at %" PRIu64 " s",
                         a->checkpoints[i], step, (a->checkpoints[i] / step + 1) * step);
    return 0;
}

int co_sb_args_check(struct co_args *a, struct pr_error *err)
{
    uint64_t fs_ms = 0;
    int rc = check_unsupported(a, err);

    if (rc == 0)
        rc = parse_checkpoints(a, err);
    if (rc != 0)
        return rc;
    if (strcmp(pr_opts_str(a->opts, "forced-shutdown"), "off") != 0 &&
        !pr_opts_forced_shutdown_ms(a->opts, &fs_ms))
        co_args_warn(a, "--forced-shutdown has no effect with --time=0");
    if (pr_opts_bool(a->opts, "validate"))
        co_args_warn(a,
                     "--validate: the built-in workloads have nothing to validate (as in sysbench "
                     "1.0.20, whose scripts never read it)");
    return 0;
}
