/* co_lua: a user's sysbench Lua script on the coordinator. It finds the
 * script as sysbench does, reads it and every module it requires, runs it
 * once in the sandbox (pr_lua) only to read sysbench.cmdline.options and
 * the commands, checks the sysbench API names it uses against what the
 * agents implement, and puts the sources (with their hash) into each PLAN.
 * Nothing here talks to a database. */
#ifndef CO_LUA_H
#define CO_LUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"

typedef struct co_lua co_lua;

/* Whether word names a Lua script rather than a built-in workload: a path
 * ending in ".lua" with a '/', a bare name that is not built in, or any
 * name when forced (--lua). */
bool co_lua_wants(const char *word, bool builtin, bool forced);

/* The script word names: word itself when it has a '/' or ends in .lua
 * and exists; else NAME.lua in ./, then each directory of $SYSBENCH_PATH
 * (':' separated), then /usr/share/sysbench. NULL when none exists.
 * Caller frees. */
char *co_lua_find(const char *word);

/* Read and load the script at path for command cmd ("run", "help", ...).
 * NULL with err (PR_EINVAL: unreadable, a missing module, a syntax or
 * runtime error as FILE:LINE: ..., a sysbench API stampede lacks, named)
 * on failure. Caller owns. */
co_lua *co_lua_load(const char *path, const char *cmd, struct pr_error *err);
void co_lua_destroy(co_lua **l);

/* "lua:NAME": the workload name of the PLAN. Borrowed. */
const char *co_lua_workload(const co_lua *l);

/* The script's option `name` (any '-'/'_' spelling): 1 when declared and
 * value fits its default's type, with *canon its '_' spelling (borrowed);
 * 0 when the script does not declare it; PR_EINVAL with err when the
 * value does not fit. */
int co_lua_option(const co_lua *l, const char *name, const char *value, const char **canon,
                  struct pr_error *err);

/* Fill err for an option neither stampede nor the script knows. */
int co_lua_unknown_option(const co_lua *l, const char *name, struct pr_error *err);

/* Whether command cmd runs in every thread (PARALLEL_COMMAND); false when
 * the script has no such command (co_lua_has_command). */
bool co_lua_cmd_parallel(const co_lua *l);
bool co_lua_has_command(const co_lua *l);

/* The script's own command it was loaded for, when that is none of
 * stampede's (prepare, run, cleanup, prewarm, check, help) and the script
 * has it (sysbench.cmdline.commands): it runs as PR_CMD_CHECK does, the
 * PLAN naming it (PLAN.script_cmd). Else NULL. Borrowed. */
const char *co_lua_custom_command(const co_lua *l);
/* Copy the sources into pl (PLAN.script_*), with their hash (and script_cmd). */
void co_lua_plan_fill(const co_lua *l, struct pr_msg_plan *pl);

/* Set sysbench.opt in the kept state (for the report hook): the general
 * options and the given "name=value" pairs (the script's typed by its
 * defaults). 0, or PR_EINVAL with the script's message. */
int co_lua_set_options(co_lua *l, const pr_opts *general, char *const *given, size_t n,
                       struct pr_error *err);

/* One interval, as sysbench's report hooks see it (sb_stat_t). */
struct co_lua_stat {
    uint32_t threads_running;
    double time_interval; /* s */
    double time_total;    /* s */
    double latency_pct_s; /* --percentile latency, seconds */
    uint64_t events, reads, writes, other, errors, reconnects, queue_length, concurrency;
    /* the whole run's (report_cumulative only; else 0): seconds */
    double latency_min_s, latency_avg_s, latency_max_s, latency_sum_s;
};

/* s's events, reads, writes, other, errors and reconnects from c. */
struct pr_counters;
void co_lua_stat_counters(struct co_lua_stat *s, const struct pr_counters *c);

/* Run the script's sysbench.hooks.report_intermediate with s (it prints
 * to stdout): 1 when it ran, 0 when the script has none (print the
 * default line), -1 when it failed (message on stderr; print the default
 * line). */
int co_lua_report_intermediate(co_lua *l, const struct co_lua_stat *s);

/* The same for sysbench.hooks.report_cumulative, once after a run, with
 * the merged totals of the whole run: 1 ran, 0 none, -1 failed. */
int co_lua_report_cumulative(co_lua *l, const struct co_lua_stat *s);

/* The script's init() before a run's agents set up, and its done() after
 * the run, when it has them, in the kept state: the coordinator is the
 * run's main thread, as sysbench's runs them, once. A query there goes to
 * a blocking connection of its own (pr_lua_db.h) to target's first server,
 * with the TLS options of o (dry_run, --mysql-dry-run: none; every query
 * is answered empty). init: 0, or a negative code with err "NAME.lua
 * init(): script error: FILE:LINE: ..."; done: 0, or negative with the
 * message printed on stderr. */
int co_lua_init(co_lua *l, const pr_opts *o, bool dry_run, const struct pr_msg_plan *target,
                struct pr_error *err);
int co_lua_done(co_lua *l, const pr_opts *o, bool dry_run, const struct pr_msg_plan *target);

/* co_lua_summary.c: after a run's summary, the script's report_cumulative
 * with the merged result res (nothing when it has none), then done(): 0,
 * or -1 when either failed. */
struct co_args;
struct co_result;
int co_lua_summary_final(co_lua *l, const struct co_args *a, const struct co_result *res,
                         const struct pr_msg_plan *target);

/* "NAME.lua help": the script's options with their defaults. Caller frees. */
char *co_lua_usage(const co_lua *l);

#endif
