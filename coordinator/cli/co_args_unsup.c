/* co_args_unsup: the sysbench options stampede accepts but does not
 * implement (contract: co_args.h, the lists in co_args_int.h): those that
 * would change what a run does are refused when given a non-default value,
 * so nobody believes a run used TLS when it did not; the cosmetic ones only
 * warn. --help marks both (co_usage.c). The families whose options include
 * sysbench's general ones apply them in their check_options. */
#include <stdbool.h>
#include <stddef.h>

#include "co_args.h"
#include "co_args_int.h"
#include "pr_opts.h"

const char *const co__refused_opts[] = {NULL};
const char *const co__no_effect_opts[] = {"thread-stack-size", "debug", "db-debug", "mysql-debug",
                                          NULL};

static bool refused_is_set(const pr_opts *o, const char *name)
{
    if (pr_opts_find(name)->type == PR_OPT_BOOL)
        return pr_opts_bool(o, name);
    return *pr_opts_str(o, name) != '\0';
}

int co_args_refuse_unsupported(const struct co_args *a, struct pr_error *err)
{
    for (size_t i = 0; co__refused_opts[i]; i++)
        if (refused_is_set(a->opts, co__refused_opts[i]))
            return pr_error_set(err, PR_EINVAL,
                                "--%s is a sysbench option not supported by stampede yet; "
                                "leave it %s",
                                co__refused_opts[i],
                                pr_opts_find(co__refused_opts[i])->type == PR_OPT_BOOL ? "off"
                                                                                       : "unset");
    return 0;
}

void co_args_warn_no_effect(struct co_args *a)
{
    for (size_t i = 0; co__no_effect_opts[i]; i++)
        if (pr_opts_is_set(a->opts, co__no_effect_opts[i]))
            co_args_warn(a, "--%s has no effect in stampede", co__no_effect_opts[i]);
}
