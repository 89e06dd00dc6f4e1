/* co_lua_family: users' Lua scripts on the coordinator (workload
 * "lua:NAME"): the general options' rules as for sysbench, no partition
 * (a script picks its own rows). The script's own options are checked by
 * co_lua as they are parsed. The generic code reaches the script only
 * through these ops (co_family.h); the script is a->fam_args. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "co_family.h"
#include "co_lua.h"
#include "co_sb_args.h"
#include "co_sbfmt.h"
#include "pr_hist.h"

static void lua_free(void *p)
{
    co_lua *l = p;
    co_lua_destroy(&l);
}

static co_lua *script_of(const struct co_args *a)
{
    return a->fam_args_free == lua_free ? a->fam_args : NULL;
}

static bool lua_has_workload(const char *name)
{
    return strncmp(name, "lua:", 4) == 0 && name[4] != '\0';
}

static int lua_check_options(struct co_args *a, struct pr_error *err)
{
    co_lua *l = script_of(a);
    if (l && !co_lua_has_command(l) && a->cmd != PR_CMD_RUN)
        return pr_error_set(err, PR_EINVAL,
                            "%s has no '%s' command (sysbench.cmdline.commands or a global "
                            "function of that name)",
                            a->workload + 4, pr_plan_cmd_name(a->cmd));
    if (l && co_lua_set_options(l, a->opts, a->passthrough, a->n_passthrough, err) < 0)
        return PR_EINVAL;
    return co_sb_args_check(a, err);
}

static const char *lua_partition_unfit(const struct co_args *a, enum pr_partition part)
{
    (void)a, (void)part;
    return "a Lua script picks its own tables and rows";
}

/* The script WORKLOAD names (co_lua_find), loaded for the command word
 * c: 1 when a script is to run, 0 for a built-in workload (or the unknown
 * workload's message), else an error. */
static int lua_parse_word(struct co_args *a, const char *w, const char *c, struct pr_error *err)
{
    bool builtin = pr_workload_from_name(w) >= 0;
    if (!co_lua_wants(w, builtin, a->script_forced) || strcmp(w, "help") == 0)
        return 0;
    for (int i = 0; i < PR_CMD_COUNT_; i++)
        if (strcmp(w, pr_plan_cmd_name((enum pr_plan_cmd)i)) == 0)
            return 0; /* a command word: the missing WORKLOAD's message */
    char *path = co_lua_find(w);
    if (path == NULL) {
        size_t n = strlen(w);
        if (builtin || strchr(w, '/') || (n > 4 && strcmp(w + n - 4, ".lua") == 0))
            return pr_error_set(err, PR_EINVAL,
                                "script %s not found (looked for %s%s in ./, $SYSBENCH_PATH and "
                                "/usr/share/sysbench)",
                                w, w, strchr(w, '/') || strstr(w, ".lua") ? "" : ".lua");
        return 0;
    }
    co_lua *l = co_lua_load(path, c && strcmp(c, "help") ? c : "help", err);
    free(path);
    if (l == NULL)
        return PR_EINVAL;
    a->fam_args = l;
    a->fam_args_free = lua_free;
    a->wl = -1;
    a->workload = pr_xstrdup(co_lua_workload(l));
    return 1;
}

/* The script's own options, checked against its declarations; an option
 * neither stampede nor the script knows is the script's error. */
static int lua_option(const struct co_args *a, const char *name, const char *value, bool general,
                      const char **canon, struct pr_error *err)
{
    co_lua *l = script_of(a);
    if (l == NULL)
        return 0;
    int rc = co_lua_option(l, name, value, canon, err);
    if (rc != 0)
        return rc;
    return general ? 0 : co_lua_unknown_option(l, name, err);
}

static const char *lua_custom_command(const struct co_args *a)
{
    co_lua *l = script_of(a);
    return l ? co_lua_custom_command(l) : NULL;
}

static bool lua_cmd_parallel(const struct co_args *a)
{
    co_lua *l = script_of(a);
    return l && co_lua_cmd_parallel(l);
}

static char *lua_usage(const struct co_args *a)
{
    co_lua *l = script_of(a);
    return l ? co_lua_usage(l) : NULL;
}

static void lua_plan_fill(const struct co_args *a, struct pr_msg_plan *pl)
{
    co_lua *l = script_of(a);
    if (l)
        co_lua_plan_fill(l, pl);
}

static void lua_phase_line(FILE *out, const struct co_args *a, const char *phase, uint32_t busy,
                           const char *agent0)
{
    (void)agent0;
    const char *own = lua_custom_command(a);
    fprintf(out, "Running %s's %s command through %u agent(s)...\n", a->workload + 4,
            own ? own : phase, busy);
}

/* sysbench.hooks.report_intermediate in place of the line. */
static int lua_live_line(const struct co_args *a, const struct co_sbfmt_interval *v, uint32_t pct)
{
    co_lua *l = script_of(a);
    if (l == NULL)
        return 0;
    struct co_lua_stat s = {
        .threads_running = v->threads_running,
        .time_interval = v->interval_s,
        .time_total = v->time_s,
        .latency_pct_s = pct ? (double)pr_hist_value_at_percentile(v->hist, pct) / 1e6 : 0.0,
        .queue_length = v->queue_len,
        .concurrency = v->concurrency,
    };
    co_lua_stat_counters(&s, &v->counters);
    return co_lua_report_intermediate(l, &s);
}

static int lua_before_run(const struct co_args *a, const struct pr_msg_plan *target,
                          struct pr_error *err)
{
    co_lua *l = script_of(a);
    return l ? co_lua_init(l, a->opts, a->cfg.mysql_dry_run, target, err) : 0;
}

static int lua_summary_after(const struct co_args *a, const struct co_result *res,
                             const struct pr_msg_plan *target)
{
    return co_lua_summary_final(script_of(a), a, res, target);
}

const struct co_family co_lua_family = {
    .name = "lua",
    .has_workload = lua_has_workload,
    .check_options = lua_check_options,
    .partition_unfit = lua_partition_unfit,
    .phase_line = lua_phase_line,
    .parse_word = lua_parse_word,
    .option = lua_option,
    .custom_command = lua_custom_command,
    .cmd_parallel = lua_cmd_parallel,
    .usage = lua_usage,
    .plan_fill = lua_plan_fill,
    .live_line = lua_live_line,
    .before_run = lua_before_run,
    .summary_after = lua_summary_after,
};
