/* co_tc_family: the tpcc family on the coordinator (tpcc-mysql's TPC-C):
 * its option rules and defaults, which --partition fits, its PLANs
 * (co_tc_plan.c), the lines before a phase and its help text. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "co_family.h"
#include "co_rpt_family.h"
#include "co_tc_args.h"
#include "co_tc_compat.h"
#include "co_tc_fmt.h"
#include "co_tc_plan.h"
#include "co_tc_rpt.h"
#include "co_tc_trx.h"
#include "pr_ssl.h"
#include "pr_tc_opts.h"

#define REPORT_INTERVAL_S 10 /* tpcc_start -i's default */

static void tc_args_free(void *p)
{
    struct co_tc_args *t = p;
    free(t->report_file);
    free(t->trx_file);
    free(t->load_parts);
    free(t);
}

const struct co_tc_args *co_tc_args_of(const struct co_args *a)
{
    return a->fam_args_free == tc_args_free ? a->fam_args : NULL;
}

void co_tc_args_keep(struct co_args *a, const struct pr_tc_opts *o)
{
    struct co_tc_args *t = pr_xcalloc(1, sizeof(*t));
    t->o = *o;
    t->report_file = pr_xstrdup(pr_opts_str(a->opts, "report-file"));
    t->trx_file = pr_xstrdup(pr_opts_str(a->opts, "trx-file"));
    t->load_parts = pr_xstrdup(pr_opts_str(a->opts, "load-parts"));
    if (a->fam_args && a->fam_args_free)
        a->fam_args_free(a->fam_args);
    a->fam_args = t;
    a->fam_args_free = tc_args_free;
}

static bool tc_has_workload(const char *name)
{
    return pr_workload_from_name(name) == PR_WL_TPCC;
}

/* General options that only mean something to the sysbench scripts or
 * their report: tpcc draws its inputs as tpcc-mysql does (uniform and
 * NURand) and runs for --warmup-time + --time. Refused when given, so
 * nobody believes they shaped a TPC-C run. */
static const char *const sysbench_only[][2] = {
    {"events", "a tpcc run lasts --warmup-time + --time (tpcc_start -r, -l)"},
    {"report-checkpoints", "tpcc reports its measured window only, as tpcc_start"},
    {"rand-type", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"rand-spec-iter", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"rand-spec-pct", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"rand-spec-res", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"rand-pareto-h", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"rand-zipfian-exp", "tpcc draws uniform and NURand inputs as tpcc-mysql does"},
    {"validate", "use `stampede tpcc check` (the TPC-C consistency conditions)"},
};

static int refuse_sysbench_only(const struct co_args *a, struct pr_error *err)
{
    for (size_t i = 0; i < sizeof sysbench_only / sizeof sysbench_only[0]; i++)
        if (pr_opts_is_set(a->opts, sysbench_only[i][0]))
            return pr_error_set(err, PR_EINVAL, "--%s is a sysbench option tpcc does not take: %s",
                                sysbench_only[i][0], sysbench_only[i][1]);
    return 0;
}

/* run: a measured window of floor(time / interval) * interval seconds
 * (tpcc_start), never empty. --report-interval defaults to 10 s, or to
 * --time when that is shorter. */
static int run_timing(struct co_args *a, struct pr_error *err)
{
    int64_t t = pr_opts_int(a->opts, "time");
    char buf[24];

    if (t <= 0)
        return pr_error_set(err, PR_EINVAL,
                            "--time=%lld: tpcc measures for --time seconds after --warmup-time "
                            "(tpcc_start -l); give --time=1 or more",
                            (long long)t);
    snprintf(buf, sizeof buf, "%lld", (long long)(t < REPORT_INTERVAL_S ? t : REPORT_INTERVAL_S));
    int rc = co_args_set_default(a, "report-interval", buf, err);
    int64_t ri = pr_opts_int(a->opts, "report-interval");
    if (rc == 0 && ri <= 0)
        rc = pr_error_set(err, PR_EINVAL,
                          "--report-interval=%lld: tpcc measures whole intervals of "
                          "--report-interval seconds (tpcc_start -i); give 1 or more",
                          (long long)ri);
    if (rc == 0 && ri > t)
        rc = pr_error_set(err, PR_EINVAL,
                          "--report-interval=%lld is longer than --time=%lld: tpcc measures "
                          "floor(time / interval) whole intervals, here none; lower "
                          "--report-interval or raise --time",
                          (long long)ri, (long long)t);
    return rc;
}

/* The family's rules once every option is in (co_family.h). Defaults it
 * resolves and sends to the agents: --mysql-db=tpcc (tpcc-mysql's -d),
 * --mysql-ignore-errors=all (every server error rolls back and retries the
 * transaction, as tpcc_start), and for run --report-interval=10
 * (tpcc_start -i) or --time when shorter. */
/* --report-file / --trx-file (tpcc_start -f / -t): run only, created now
 * so that a bad path fails before anything runs. */
static int check_trx_files(struct co_args *a, const struct pr_tc_opts *o, struct pr_error *err)
{
    static const char *const names[] = {"report-file", "trx-file"};
    if (a->cmd != PR_CMD_RUN) {
        for (int i = 0; i < 2; i++)
            if (pr_opts_is_set(a->opts, names[i]))
                co_args_warn(a, "--%s applies to run only; %s writes no such file", names[i],
                             pr_plan_cmd_name(a->cmd));
        return 0;
    }
    int64_t ri = pr_opts_int(a->opts, "report-interval");
    struct co_tc_trx_cfg cfg = {pr_opts_str(a->opts, "report-file"),
                                pr_opts_str(a->opts, "trx-file"), o->warmup_s,
                                (uint32_t)pr_opts_int(a->opts, "time"), ri > 0 ? (uint32_t)ri : 0};
    return co_tc_trx_check(&cfg, err);
}

/* tpcc_start -m/-o (--multi-schema, --multi-schema-offset): an offset only
 * with schemas, and every schema's name within MySQL's 64. run: connection
 * t in schema (t % N) + K; prepare, check and cleanup: every schema, one
 * after the other (tpcc_load -d loads one schema; stampede loops). */
static int check_schemas(const struct co_args *a, const struct pr_tc_opts *o, struct pr_error *err)
{
    char last[256];
    const char *db =
        pr_opts_is_set(a->opts, "mysql-db") ? pr_opts_str(a->opts, "mysql-db") : "tpcc";

    if (o->schemas == 0 && pr_opts_is_set(a->opts, "multi-schema-offset"))
        return pr_error_set(err, PR_EINVAL,
                            "--multi-schema-offset (tpcc_start -o) needs --multi-schema=N "
                            "(tpcc_start -m N) too; tpcc_start ignores -o without -m");
    if (o->schemas == 0)
        return 0;
    int len = pr_tc_schema_db(db, o, o->schemas - 1, last, sizeof last);
    if (len > 64)
        return pr_error_set(err, PR_EINVAL,
                            "--multi-schema: the database name '%.*s' is longer than MySQL's 64 "
                            "characters; use a shorter --mysql-db (tpcc_start -d)",
                            (int)(len < (int)sizeof last ? len : (int)sizeof last - 1), last);
    return 0;
}

static int tc_check_options(struct co_args *a, struct pr_error *err)
{
    struct pr_tc_opts o;
    int rc = pr_tc_opts_get(a->opts, &o, err);

    if (rc == 0)
        rc = pr_ssl_check_opts(a->opts, err);
    if (rc == 0)
        rc = refuse_sysbench_only(a, err);
    if (rc != 0)
        return rc;
    co_args_warn_no_effect(a); /* as for sysbench (co_sb_args.c) */
    if (a->cmd == PR_CMD_PREWARM)
        return pr_error_set(err, PR_EINVAL,
                            "tpcc has no prewarm; its commands are prepare, run, check and "
                            "cleanup");
    if (a->cmd == PR_CMD_PREPARE && o.wh_last > o.warehouses)
        co_args_warn(a,
                     "--warehouse-last=%u is beyond --warehouses=%u: those warehouses are loaded "
                     "too (tpcc_load does not clamp -n either)",
                     o.wh_last, o.warehouses);
    if (a->part != PR_PART_NONE && a->cmd != PR_CMD_RUN)
        co_args_warn(a,
                     "--partition applies to run only; %s splits the warehouses over the agents "
                     "anyway",
                     pr_plan_cmd_name(a->cmd));
    rc = check_trx_files(a, &o, err);
    if (rc == 0)
        rc = check_schemas(a, &o, err);
    if (rc != 0)
        return rc;
    rc = co_args_set_default(a, "mysql-db", "tpcc", err);
    if (rc == 0)
        rc = co_args_set_default(a, "mysql-ignore-errors", "all", err);
    if (rc == 0 && a->cmd == PR_CMD_RUN)
        rc = run_timing(a, err);
    if (rc == 0)
        co_tc_args_keep(a, &o); /* parsed once: the code after parsing reads these */
    return rc;
}

static const char *tc_partition_unfit(const struct co_args *a, enum pr_partition part)
{
    static _Thread_local char why[160];
    const struct co_tc_args *t = co_tc_args_of(a); /* check_options ran first */

    if (part == PR_PART_NONE)
        return NULL;
    if (part != PR_PART_WAREHOUSES)
        return "its data is split by warehouse, not by sysbench table or row (use "
               "--partition=warehouses for home warehouses per agent)";
    if (a->cmd != PR_CMD_RUN)
        return NULL; /* only run has home warehouses (check_options warns) */
    if (t == NULL)
        return NULL; /* check_options reports the option itself */
    if (t->o.warehouses >= a->agents)
        return NULL;
    snprintf(why, sizeof why,
             "--warehouses=%u is fewer than the %u agents, and every agent needs at least one "
             "home warehouse (raise --warehouses or lower --agents)",
             t->o.warehouses, a->agents);
    return why;
}

static void tc_phase_line(FILE *out, const struct co_args *a, const char *phase, uint32_t busy,
                          const char *agent0)
{
    const struct co_tc_args *t = co_tc_args_of(a);
    const char *db = a->cfg.mysql_db;

    if (t == NULL)
        return;
    const struct pr_tc_opts *o = &t->o;
    if (o->schemas > 0 && strcmp(phase, "run") != 0) {
        char first[256], last[256];
        pr_tc_schema_db(db, o, 0, first, sizeof first);
        pr_tc_schema_db(db, o, o->schemas - 1, last, sizeof last);
        fprintf(out, "%s: %u schemas, %s..%s (--multi-schema), one after the other:\n", phase,
                o->schemas, first, last);
    }
    if (strcmp(phase, "create") == 0)
        fprintf(out, "create: the 9 TPC-C tables in '%s' through agent %s...\n", db, agent0);
    else if (strcmp(phase, "load") == 0 && (o->parts & ~PR_TC_PART_ITEMS))
        fprintf(out, "load: warehouses %u..%u (%s) over %u agent(s)...\n", o->wh_first, o->wh_last,
                t->load_parts, busy);
    else if (strcmp(phase, "load") == 0)
        fprintf(out, "load: the %u items through agent %s...\n", PR_TC_ITEMS, agent0);
    else if (strcmp(phase, "index") == 0)
        fprintf(out, "index: add_fkey_idx.sql's indexes and foreign keys through agent %s...\n",
                agent0);
    else if (a->cmd == PR_CMD_CLEANUP)
        fprintf(out, "Dropping the 9 TPC-C tables of '%s' through agent %s...\n", db, agent0);
    else if (a->cmd == PR_CMD_CHECK)
        fprintf(out,
                "Checking TPC-C consistency conditions %s for warehouses 1..%u over %u "
                "agent(s)...\n",
                o->check_all ? "1-12" : "1-4", o->warehouses, busy);
}

static const char tc_help[] =
    "tpcc's own defaults for general options (stampede --help lists them):\n"
    "  --mysql-db=tpcc              (tpcc-mysql's -d)\n"
    "  --mysql-ignore-errors=all    every server error rolls back and retries the transaction\n"
    "  --report-interval=10         tpcc_start -i; --time when that is shorter\n"
    "  prepare: --threads           connections for the load; default min(3 * warehouses + 1, "
    "8)\n"
    "\n"
    "Commands: prepare (create, load, index), run, check, cleanup.\n"
    "  --partition=warehouses      run: each agent its own range of home warehouses\n"
    "\n"
    "tpcc-mysql's command lines work too:\n"
    "  stampede tpcc_load -h HOST -P PORT -d DB -u USER -p PASS -w W [-l PART -m MIN -n MAX]\n"
    "  stampede tpcc_start -h HOST -P PORT -d DB -u USER -p PASS -w W -c C -r R -l L -i I\n"
    "                      [-S SOCKET] [-0..-4 LIMIT_MS] [-m SCHEMAS -o OFFSET]\n"
    "  run --multi-schema=N --multi-schema-offset=K (-m/-o): connection t uses database\n"
    "                      <mysql-db>_<(t % N) + K>\n"
    "  prepare|check|cleanup --multi-schema=N --multi-schema-offset=K: each of the\n"
    "                      databases <mysql-db>_<K>..<mysql-db>_<K + N - 1> (they must exist)\n";

static void tc_argv_free(struct co_family_argv *fa)
{
    struct co_tc_argv *t = fa->st;
    if (t != NULL)
        co_tc_compat_free(t);
    free(t);
}

/* tpcc_load / tpcc_start command lines: the tpcc family's words. */
static int tc_argv_translate(int argc, char **argv, struct co_family_argv *out,
                             struct pr_error *err)
{
    struct co_tc_argv *t = pr_xcalloc(1, sizeof *t);
    int rc = co_tc_compat_translate(argc, argv, NULL, t, err);
    *out = (struct co_family_argv){.argc = t->argc,
                                   .argv = t->argv,
                                   .help = t->help,
                                   .usage = t->which ? co_tc_compat_usage(t->which) : NULL,
                                   .st = t,
                                   .free_fn = tc_argv_free};
    if (rc == 0)
        co_family_argv_free(out);
    return rc;
}

/* The capacity search's SLO without --slo: TPC-C's response-time
 * constraints, "new_order.p90<=5s,...". */
static char *tc_capacity_slo(const struct co_args *a)
{
    (void)a;
    char buf[256];
    size_t n = 0;
    for (int x = 0; x < (int)PR_TC_TXN_COUNT_; x++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s.p90<=%" PRIu32 "s", x ? "," : "",
                              pr_tc_kind_name((enum pr_tc_kind)x), co_tc_spec_p90_ms[x] / 1000);
    return pr_xstrdup(buf);
}

const struct co_family co_tc_family = {
    .name = "tpcc",
    .has_workload = tc_has_workload,
    .check_options = tc_check_options,
    .partition_unfit = tc_partition_unfit,
    .plan = co_tc_plan_build,
    .phase_line = tc_phase_line,
    .help_text = tc_help,
    .kinds_title = "Latency by kind (ms): the five transactions (first attempt to success), "
                   "their statements (<txn>_stmt), COMMIT and ROLLBACK:",
    .summary = &co_tc_family_summary,
    .argv_translate = tc_argv_translate,
    .capacity_slo = tc_capacity_slo,
    .capacity_warmup_opt = "warmup-time",
    .rpt = &co_tc_rpt_family,
};
