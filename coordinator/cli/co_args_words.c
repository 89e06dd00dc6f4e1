/* co_args_words: the positional words (WORKLOAD, command, keygen, a
 * family's own word) and the rules between options once all are in; see
 * co_args_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_args_int.h"
#include "co_family.h"
#include "pr_endpoint.h"

#define COMMANDS_MSG "Supported commands: prepare, prewarm, run, cleanup, help"

static int workload_list(char *buf, size_t cap)
{
    size_t off = 0;

    buf[0] = '\0';
    for (int i = 0; i < PR_WL_COUNT_ && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "", pr_workload_name(i));
    return 0;
}

static int parse_command(const char *word, enum pr_plan_cmd *cmd)
{
    for (int i = 0; i < PR_CMD_COUNT_; i++)
        if (strcmp(word, pr_plan_cmd_name((enum pr_plan_cmd)i)) == 0)
            return *cmd = (enum pr_plan_cmd)i, 0;
    return -1;
}

int co__args_parse_keygen(struct co_args *a, char **argv, const struct co__args_scan *s,
                          struct pr_error *err)
{
    if (s->npos < 2 || s->npos > 3)
        return pr_error_set(err, PR_EINVAL, "usage: stampede keygen DIR [NAME]");
    if (s->nopts > 0)
        return pr_error_set(err, PR_EINVAL,
                            "keygen takes no options; usage: stampede keygen DIR "
                            "[NAME]");
    a->action = CO_ACTION_KEYGEN;
    a->keygen_dir = pr_xstrdup(argv[s->pos[1]]);
    a->keygen_name = pr_xstrdup(s->npos == 3 ? argv[s->pos[2]] : "stampede");
    if (!*a->keygen_dir || !*a->keygen_name || strchr(a->keygen_name, '/'))
        return pr_error_set(err, PR_EINVAL, "keygen: NAME must be a plain file name, not '%s'",
                            a->keygen_name);
    return 0;
}

/* WORKLOAD and command from the positional words. */
int co__args_parse_words(struct co_args *a, char **argv, const struct co__args_scan *s,
                         struct pr_error *err)
{
    const char *w = argv[s->pos[0]];
    char list[256];
    enum pr_plan_cmd cmd;

    /* a family's own word first (a script's name) */
    int lrc = co_registry_parse_word(a, w, s->npos > 1 ? argv[s->pos[1]] : NULL, err);
    if (lrc < 0)
        return lrc;
    a->wl = lrc ? -1 : pr_workload_from_name(w);
    if (a->wl < 0 && lrc == 0) {
        workload_list(list, sizeof list);
        if (parse_command(w, &cmd) == 0 || strcmp(w, "help") == 0)
            return pr_error_set(err, PR_EINVAL, "missing WORKLOAD before '%s'; workloads: %s", w,
                                list);
        return pr_error_set(err, PR_EINVAL, "unknown workload '%s'; valid workloads: %s", w, list);
    }
    if (lrc == 0)
        a->workload = pr_xstrdup(pr_workload_name(a->wl));
    if (s->npos < 2)
        return pr_error_set(err, PR_EINVAL, "Command is required. " COMMANDS_MSG);
    const char *c = argv[s->pos[1]];
    const struct co_family *fam = co_registry_find(a->workload);
    if (strcmp(c, "help") == 0)
        a->action = CO_ACTION_WL_HELP;
    else if (fam && fam->custom_command && fam->custom_command(a)) /* the family's own command */
        a->cmd = PR_CMD_CHECK;
    else if (parse_command(c, &a->cmd) < 0)
        return pr_error_set(err, PR_EINVAL, "unknown command '%s'. " COMMANDS_MSG, c);
    if (s->npos > 2)
        return pr_error_set(err, PR_EINVAL, "unexpected argument '%s' after '%s %s'",
                            argv[s->pos[2]], w, c);
    return 0;
}

/* Rules between options, once all are in. */
/* --warmup: a run's, judged on its intervals; not with a family that has
 * its own warm-up and totals (tpcc: --warmup-time), nor with checkpoints
 * (their final report is the window since the last one). */
static int check_warmup(const struct co_args *a, struct pr_error *err)
{
    if (a->warmup.mode == CO_WARMUP_OFF)
        return 0;
    const struct co_family *fam = co_registry_find(a->workload);
    long long iv = pr_opts_int(a->opts, "report-interval");
    if (!(a->action == CO_ACTION_COMMAND && a->cmd == PR_CMD_RUN))
        return pr_error_set(err, PR_EINVAL,
                            "--warmup leaves the start of a run out of its totals: it goes with "
                            "the run command only (drop it here)");
    if (fam != NULL && fam->summary != NULL)
        return pr_error_set(err, PR_EINVAL,
                            "--warmup: %s keeps its own warm-up out of its figures; use its "
                            "--warmup-time instead",
                            a->workload);
    if (iv <= 0)
        return pr_error_set(err, PR_EINVAL,
                            "--warmup cuts the run at an interval boundary: give "
                            "--report-interval=N (N >= 1)");
    if (a->warmup.mode == CO_WARMUP_FIXED && a->warmup.s % iv != 0)
        return pr_error_set(err, PR_EINVAL,
                            "--warmup=%u is not a multiple of --report-interval=%lld: the cut "
                            "falls on an interval boundary; give e.g. --warmup=%lld",
                            a->warmup.s, iv, (a->warmup.s / iv + 1) * iv);
    if (pr_opts_str(a->opts, "report-checkpoints")[0] != '\0')
        return pr_error_set(err, PR_EINVAL,
                            "--warmup and --report-checkpoints: the final report after a "
                            "checkpoint covers only the time since it; use one or the other");
    return 0;
}

/* Workloads a partition cannot confine (the agents would refuse the plan):
 * select_random_* and bulk_insert pick rows or tables their own way, and
 * oltp_insert's ids are fresh, not drawn from a range. */
static int check_partition(const struct co_args *a, struct pr_error *err)
{
    const struct co_family *f = co_registry_find(a->workload);
    if (a->part == PR_PART_NONE || f == NULL)
        return 0;
    const char *why = f->partition_unfit(a, a->part);
    if (why == NULL)
        return 0;
    /* oltp_insert: tables fits where rows does not */
    bool tables_fit = a->part != PR_PART_TABLES && f->partition_unfit(a, PR_PART_TABLES) == NULL;
    return pr_error_set(
        err, PR_EINVAL, "--partition=%s cannot confine %s: %s; use --partition=none%s",
        pr_partition_name(a->part), a->workload, why, tables_fit ? " or tables" : "");
}

int co__args_check(struct co_args *a, struct pr_error *err)
{
    const struct co_family *fam = co_registry_find(a->workload);
    if (a->opts && a->action == CO_ACTION_COMMAND && fam) {
        int urc = fam->check_options(a, err);
        if (urc != 0)
            return urc;
    }
    if (a->rate_mode != PR_RATE_POISSON && a->opts && pr_opts_int(a->opts, "rate") == 0 &&
        !a->find_capacity)
        co_args_warn(a, "--rate-mode=%s has no effect without --rate",
                     pr_rate_mode_name(a->rate_mode));
    bool keys = a->secret_key_file || a->authorized_keys;

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t local_max = (uint32_t)(cores > 0 ? cores : 1) * CO_LOCAL_AGENTS_PER_CORE;
    if (!a->listen && a->agents > local_max)
        return pr_error_set(err, PR_EINVAL,
                            "--agents=%u: this machine holds at most %u local agents (%ld "
                            "cores x %d); for more, start stampede-agent on other machines "
                            "and use --listen",
                            a->agents, local_max, cores > 0 ? cores : 1, CO_LOCAL_AGENTS_PER_CORE);
    if (a->plaintext && keys)
        return pr_error_set(err, PR_EINVAL,
                            "--plaintext cannot be combined with --secret-key-file or "
                            "--authorized-keys");
    if (a->plaintext && !a->listen)
        return pr_error_set(err, PR_EINVAL,
                            "--plaintext applies only with --listen: local agents always use "
                            "fresh CURVE keys on a private ipc endpoint; drop --plaintext");
    if (a->listen && a->plaintext && !pr_endpoint_is_local(a->listen))
        return pr_error_set(err, PR_EINVAL,
                            "--plaintext with --listen=%s: plain text is allowed only on a "
                            "literal loopback address (127.x.x.x, [::1]) or ipc://; use keys "
                            "(--secret-key-file, --authorized-keys)",
                            a->listen);
    if (a->listen && !a->plaintext && (!a->secret_key_file || !a->authorized_keys))
        return pr_error_set(err, PR_EINVAL,
                            "--listen needs --secret-key-file and --authorized-keys (see "
                            "stampede keygen), or --plaintext on a loopback address");
    if (!a->listen && keys)
        co_args_warn(a, "--secret-key-file and --authorized-keys apply only with --listen; local "
                        "agents use fresh keys");
    if (a->listen && (a->agent_bin || a->agent_workers))
        co_args_warn(a, "--agent-bin and --agent-workers apply only to local agents (no --listen)");
    if (pr_opts_bool(a->opts, "histogram") && pr_opts_int(a->opts, "percentile") == 0)
        return pr_error_set(err, PR_EINVAL, "--histogram cannot be used with --percentile=0");
    int rc = check_partition(a, err);
    if (rc != 0)
        return rc;
    if (a->n_thresholds > 0 && !(a->action == CO_ACTION_COMMAND && a->cmd == PR_CMD_RUN))
        return pr_error_set(err, PR_EINVAL,
                            "--threshold checks a run's figures: it goes with the run command "
                            "only (drop it here)");
    if (a->abort_on_threshold_s > 0 && a->n_thresholds == 0)
        return pr_error_set(err, PR_EINVAL,
                            "--abort-on-threshold stops a run when a --threshold is crossed: "
                            "give one, e.g. --threshold='p99<20ms'");
    if (a->abort_on_threshold_s > 0 && pr_opts_int(a->opts, "report-interval") == 0)
        return pr_error_set(err, PR_EINVAL,
                            "--abort-on-threshold judges the figures at each interval line: "
                            "give --report-interval=N (N >= 1)");
    rc = check_warmup(a, err);
    if (rc == 0)
        rc = co__args_capacity_check(a, err);
    if (rc != 0)
        return rc;
    if (a->action == CO_ACTION_COMMAND && a->cmd == PR_CMD_RUN &&
        pr_opts_int(a->opts, "time") == 0 && pr_opts_int(a->opts, "events") == 0)
        co_args_warn(a, "Both event and time limits are disabled, running an endless test");
    return 0;
}
