/* co_args_sb: the sysbench options the coordinator treats specially once
 * every option is in (co_args.h): the ones it refuses or ignores, and
 * --report-checkpoints, --forced-shutdown and --validate. Part of co_args
 * (co_args_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "co_args_int.h"
#include "pr_ssl.h"

/* sysbench options stampede accepts but does not implement: those that
 * would change what a run does are refused when given a non-default value,
 * so nobody believes a run used TLS when it did not; the cosmetic ones only
 * warn. --help marks both. */
const char *const co__refused_opts[] = {NULL};
const char *const co__no_effect_opts[] = {"thread-stack-size", "debug", "db-debug", "mysql-debug",
                                          NULL};

static bool refused_is_set(const pr_opts *o, const char *name)
{
    if (pr_opts_find(name)->type == PR_OPT_BOOL)
        return pr_opts_bool(o, name);
    return *pr_opts_str(o, name) != '\0';
}

static int check_unsupported(struct co_args *a, struct pr_error *err)
{
    const pr_opts *o = a->opts;

    int rc = pr_ssl_check_opts(o, err); /* the TLS options make sense together */
    if (rc < 0)
        return rc;
    for (size_t i = 0; co__refused_opts[i]; i++)
        if (refused_is_set(o, co__refused_opts[i]))
            return pr_error_set(err, PR_EINVAL,
                                "--%s is a sysbench option not supported by stampede yet; "
                                "leave it %s",
                                co__refused_opts[i],
                                pr_opts_find(co__refused_opts[i])->type == PR_OPT_BOOL ? "off"
                                                                                       : "unset");
    for (size_t i = 0; co__no_effect_opts[i]; i++)
        if (pr_opts_is_set(o, co__no_effect_opts[i]))
            co__args_warn(a, "--%s has no effect in stampede", co__no_effect_opts[i]);
    return 0;
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
            co__args_warn(a,
                          "--report-checkpoints: %" PRIu32
                          " s is not a multiple of --report-interval=%" PRIu64
                          "; that checkpoint is taken at %" PRIu64 " s",
                          a->checkpoints[i], step, (a->checkpoints[i] / step + 1) * step);
    return 0;
}

int co__args_sysbench_rules(struct co_args *a, struct pr_error *err)
{
    uint64_t fs_ms = 0;
    int rc = check_unsupported(a, err);

    if (rc == 0)
        rc = parse_checkpoints(a, err);
    if (rc != 0)
        return rc;
    if (strcmp(pr_opts_str(a->opts, "forced-shutdown"), "off") != 0 &&
        !pr_opts_forced_shutdown_ms(a->opts, &fs_ms))
        co__args_warn(a, "--forced-shutdown has no effect with --time=0");
    if (pr_opts_bool(a->opts, "validate"))
        co__args_warn(a,
                      "--validate: the built-in workloads have nothing to validate (as in sysbench "
                      "1.0.20, whose scripts never read it)");
    return 0;
}
