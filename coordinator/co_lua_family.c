/* co_lua_family: users' Lua scripts on the coordinator (workload
 * "lua:NAME"): the general options' rules as for sysbench, no partition
 * (a script picks its own rows). The script's own options are checked by
 * co_lua as they are parsed. */
#include <string.h>

#include "co_args_int.h"
#include "co_family.h"
#include "co_lua.h"

static bool lua_has_workload(const char *name)
{
    return strncmp(name, "lua:", 4) == 0 && name[4] != '\0';
}

static int lua_check_options(struct co_args *a, struct pr_error *err)
{
    if (a->lua && !co_lua_has_command(a->lua) && a->cmd != PR_CMD_RUN)
        return pr_error_set(err, PR_EINVAL,
                            "%s has no '%s' command (sysbench.cmdline.commands or a global "
                            "function of that name)",
                            a->workload + 4, pr_plan_cmd_name(a->cmd));
    if (a->lua && co_lua_set_options(a->lua, a->opts, a->passthrough, a->n_passthrough, err) < 0)
        return PR_EINVAL;
    return co__args_sysbench_rules(a, err);
}

static const char *lua_partition_unfit(const struct co_args *a, enum pr_partition part)
{
    (void)a, (void)part;
    return "a Lua script picks its own tables and rows";
}

const struct co_family co_lua_family = {
    .name = "lua",
    .has_workload = lua_has_workload,
    .check_options = lua_check_options,
    .partition_unfit = lua_partition_unfit,
};
