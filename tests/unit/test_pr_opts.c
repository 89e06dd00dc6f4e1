/* test_pr_opts: sysbench 1.0.20's option schema (docs/design.md
 * §13.1, Options) and the parser. */
#include <stdint.h>

#include "pr_opts.h"
#include "testlib.h"

/* sysbench 1.0.20's defaults (as `sysbench --help` gives them). */
static void test_defaults(void)
{
    pr_opts *o = pr_opts_new(PR_WL_OLTP_READ_WRITE);

    CHECK(pr_opts_int(o, "threads") == 1);
    CHECK(pr_opts_int(o, "events") == 0);
    CHECK(pr_opts_int(o, "time") == 10);
    CHECK(strcmp(pr_opts_str(o, "forced-shutdown"), "off") == 0);
    CHECK(strcmp(pr_opts_str(o, "thread-stack-size"), "64K") == 0);
    CHECK(pr_opts_int(o, "rate") == 0);
    CHECK(pr_opts_int(o, "report-interval") == 0);
    CHECK(strcmp(pr_opts_str(o, "report-checkpoints"), "") == 0);
    CHECK(pr_opts_int(o, "verbosity") == 3);
    CHECK(pr_opts_int(o, "percentile") == 95);
    CHECK(!pr_opts_bool(o, "histogram"));
    CHECK(strcmp(pr_opts_str(o, "rand-type"), "special") == 0);
    CHECK(pr_opts_int(o, "rand-spec-iter") == 12);
    CHECK(pr_opts_int(o, "rand-spec-pct") == 1);
    CHECK(pr_opts_int(o, "rand-spec-res") == 75);
    CHECK(pr_opts_int(o, "rand-seed") == 0);
    CHECK(pr_opts_double(o, "rand-pareto-h") == 0.2);
    CHECK(pr_opts_double(o, "rand-zipfian-exp") == 0.8);
    CHECK(strcmp(pr_opts_str(o, "db-driver"), "mysql") == 0);
    CHECK(strcmp(pr_opts_str(o, "db-ps-mode"), "auto") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-host"), "localhost") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-port"), "3306") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-socket"), "") == 0 && !pr_opts_is_set(o, "mysql-socket"));
    CHECK(strcmp(pr_opts_str(o, "mysql-user"), "sbtest") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-password"), "") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-db"), "sbtest") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-ignore-errors"), "1213,1020,1205") == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-ssl"), "off") == 0 && !pr_opts_bool(o, "mysql-dry-run"));
    CHECK(!pr_opts_bool(o, "mysql-compression") && !pr_opts_is_set(o, "mysql-ssl-ca"));
    CHECK(pr_opts_int(o, "tables") == 1);
    CHECK(pr_opts_int(o, "table_size") == 10000);
    CHECK(pr_opts_int(o, "range_size") == 100);
    CHECK(pr_opts_int(o, "point_selects") == 10);
    CHECK(pr_opts_int(o, "simple_ranges") == 1 && pr_opts_int(o, "sum_ranges") == 1);
    CHECK(pr_opts_int(o, "order_ranges") == 1 && pr_opts_int(o, "distinct_ranges") == 1);
    CHECK(pr_opts_int(o, "index_updates") == 1 && pr_opts_int(o, "non_index_updates") == 1);
    CHECK(pr_opts_int(o, "delete_inserts") == 1);
    CHECK(pr_opts_bool(o, "range_selects") && pr_opts_bool(o, "auto_inc"));
    CHECK(!pr_opts_bool(o, "skip_trx") && !pr_opts_bool(o, "secondary"));
    CHECK(pr_opts_bool(o, "create_secondary"));
    CHECK(strcmp(pr_opts_str(o, "mysql_storage_engine"), "innodb") == 0);
    CHECK(!pr_opts_is_set(o, "tables"));
    pr_opts_destroy(&o);
    CHECK(o == NULL);

    o = pr_opts_new(PR_WL_SELECT_RANDOM_RANGES);
    CHECK(pr_opts_int(o, "number_of_ranges") == 10 && pr_opts_int(o, "delta") == 5);
    pr_opts_destroy(&o);
    o = pr_opts_new(PR_WL_SELECT_RANDOM_POINTS);
    CHECK(pr_opts_int(o, "random_points") == 10);
    pr_opts_destroy(&o);
}

static void test_schema(void)
{
    size_t n;
    const struct pr_opt_def *s = pr_opts_schema(&n);
    int aliases = 0;

    CHECK(n > 50);
    for (size_t i = 0; i < n; i++) {
        CHECK(s[i].name && s[i].help && *s[i].help);
        CHECK(pr_opts_find(s[i].name) == &s[i]);
        if (s[i].alias_of) {
            aliases++;
            CHECK(pr_opts_find(s[i].alias_of) && !pr_opts_find(s[i].alias_of)->alias_of);
        }
        if (s[i].group == PR_OPT_SCRIPT)
            CHECK(s[i].workloads != 0 && !(s[i].workloads & (1u << PR_WL_BULK_INSERT)));
    }
    CHECK(aliases == 4);
    CHECK(pr_opts_find("--table-size") == pr_opts_find("table_size"));
    CHECK(pr_opts_find("mysql_ignore_errors") == pr_opts_find("--mysql-ignore-errors"));
    /* not in sysbench 1.0.20: only the tpcc family declares it */
    CHECK(pr_opts_find("warmup-time") &&
          pr_opts_find("warmup-time")->workloads == 1u << PR_WL_TPCC);
    CHECK(pr_workload_from_name("tpcc") == PR_WL_TPCC);
    CHECK(pr_opts_find("create_table_options") == NULL);
    CHECK(pr_workload_from_name("oltp_read_write") == PR_WL_OLTP_READ_WRITE);
    CHECK(pr_workload_from_name("bulk_insert.lua") == PR_WL_BULK_INSERT);
    CHECK(pr_workload_from_name("oltp_read") == -1);
    CHECK(strcmp(pr_workload_name(PR_WL_SELECT_RANDOM_RANGES), "select_random_ranges") == 0);
    CHECK(pr_workload_name(PR_WL_COUNT_) == NULL);
}

static void test_parse(void)
{
    pr_opts *o = pr_opts_new(PR_WL_OLTP_READ_WRITE);
    struct pr_error err = {0};

    CHECK(pr_opts_parse_arg(o, "--table-size=1e6", &err) == 0);
    CHECK(pr_opts_int(o, "table_size") == 1000000 && pr_opts_is_set(o, "table-size"));
    CHECK(pr_opts_parse_arg(o, "tables=32", &err) == 0 && pr_opts_int(o, "tables") == 32);
    CHECK(pr_opts_parse_arg(o, "--skip_trx", &err) == 0 && pr_opts_bool(o, "skip-trx"));
    for (size_t i = 0; i < 6; i++) {
        static const char *const v[] = {"on", "off", "true", "false", "1", "0"};
        CHECK(pr_opts_set(o, "range_selects", v[i], &err) == 0);
        CHECK(pr_opts_bool(o, "range_selects") == (i % 2 == 0));
    }
    CHECK(pr_opts_parse_arg(o, "--rand-pareto-h=0.35", &err) == 0);
    CHECK(pr_opts_double(o, "rand_pareto_h") == 0.35);
    CHECK(pr_opts_parse_arg(o, "--mysql-host=a,b,c", &err) == 0);
    CHECK(strcmp(pr_opts_str(o, "mysql-host"), "a,b,c") == 0);
    CHECK(pr_opts_parse_arg(o, "--mysql-password=", &err) == 0);
    CHECK(pr_opts_parse_arg(o, "--report-checkpoints=10,20", &err) == 0);
    CHECK(pr_opts_parse_arg(o, "--forced-shutdown=5%", &err) == 0);
    CHECK(pr_opts_parse_arg(o, "--rand-type=zipfian", &err) == 0);
    CHECK(strcmp(pr_opts_deprecated(o), "") == 0);

    /* deprecated aliases set their canonical option and are reported */
    CHECK(pr_opts_parse_arg(o, "--num-threads=8", &err) == 0 && pr_opts_int(o, "threads") == 8);
    CHECK(pr_opts_parse_arg(o, "--max-requests=100", &err) == 0);
    CHECK(pr_opts_int(o, "events") == 100);
    CHECK(pr_opts_parse_arg(o, "--max-time=30", &err) == 0 && pr_opts_int(o, "time") == 30);
    CHECK(pr_opts_parse_arg(o, "--tx-rate=50", &err) == 0 && pr_opts_int(o, "rate") == 50);
    CHECK(strcmp(pr_opts_deprecated(o), "--num-threads,--max-requests,--max-time,--tx-rate") == 0);
    pr_opts_destroy(&o);
}

static void expect_err(pr_opts *o, const char *arg, const char *needle)
{
    struct pr_error err = {0};
    int rc = pr_opts_parse_arg(o, arg, &err);

    CHECK_MSG(rc == PR_EINVAL && err.code == PR_EINVAL, "%s accepted", arg);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "%s: '%s' lacks '%s'", arg, err.msg, needle);
}

static void test_errors(void)
{
    pr_opts *o = pr_opts_new(PR_WL_OLTP_READ_WRITE);
    struct pr_error err = {0};

    expect_err(o, "--tables=abc", "tables");
    expect_err(o, "--table-size=10.5", "table_size");
    expect_err(o, "--skip_trx=maybe", "skip_trx");
    expect_err(o, "--nonsense=1", "nonsense");
    expect_err(o, "--random_points=3", "random_points"); /* select_random_points only */
    expect_err(o, "--threads=0", "threads");
    expect_err(o, "--percentile=101", "percentile");
    expect_err(o, "--rand-type=normal", "rand-type");
    expect_err(o, "--db-ps-mode=always", "db-ps-mode");
    expect_err(o, "--db-driver=pgsql", "db-driver");
    expect_err(o, "--mysql-ignore-errors=1213,abc", "mysql-ignore-errors");
    expect_err(o, "--mysql-port=70000", "mysql-port");
    expect_err(o, "--report-checkpoints=10,x", "report-checkpoints");
    expect_err(o, "--rand-pareto-h=", "rand-pareto-h");
    expect_err(o, "--tables", "tables"); /* a value is required */
    expect_err(o, "--=3", "missing option name");
    /* the failed sets left the values alone */
    CHECK(pr_opts_int(o, "tables") == 1 && !pr_opts_is_set(o, "tables"));
    CHECK(strcmp(pr_opts_str(o, "mysql-ignore-errors"), "1213,1020,1205") == 0);
    pr_opts_destroy(&o);

    o = pr_opts_new(-1); /* coordinator-only set: no script options */
    expect_err(o, "--tables=2", "tables");
    CHECK(pr_opts_parse_arg(o, "--threads=4", &err) == 0);
    pr_opts_destroy(&o);

    o = pr_opts_new(PR_WL_BULK_INSERT); /* no legacy mode: unknown names refused */
    expect_err(o, "--anything=1", "--anything: unknown option for bulk_insert");
    expect_err(o, "--thread=64", "did you mean --threads?");
    expect_err(o, "--tables=2", "--tables: unknown option for bulk_insert");
    expect_err(o, "--threads=x", "threads");
    CHECK(pr_opts_parse_arg(o, "--threads=4", &err) == 0 && pr_opts_int(o, "threads") == 4);
    pr_opts_destroy(&o);
    o = pr_opts_new(PR_WL_OLTP_READ_WRITE);
    expect_err(o, "--mysql-pasword=x", "did you mean --mysql-password?");
    expect_err(o, "--num-thread=2", "did you mean --threads?"); /* an alias: its target */
    pr_opts_destroy(&o);
    CHECK(pr_opts_distance("thread", 6, "threads") == 1);
    CHECK(pr_opts_distance("table_size", 10, "table-size") == 0);
    CHECK(pr_opts_distance("abc", 3, "xyz") == 3);
    CHECK(pr_opts_suggest(-1, "zzzzzz", 6, NULL, 0) == NULL);
    const char *own[] = {"agents"};
    CHECK(strcmp(pr_opts_suggest(-1, "agnets", 6, own, 1), "agents") == 0);
}

static void test_ignore_errors(void)
{
    struct pr_ignore_errors ie;
    struct pr_error err = {0};

    CHECK(pr_ignore_errors_parse("1213,1020,1205", &ie, &err) == 0);
    CHECK(ie.n == 3 && !ie.all && ie.codes[1] == 1020);
    CHECK(pr_ignore_errors_has(&ie, 1205) && !pr_ignore_errors_has(&ie, 2013));
    CHECK(pr_ignore_errors_parse("all", &ie, &err) == 0 && ie.all);
    CHECK(pr_ignore_errors_has(&ie, 2013));
    CHECK(pr_ignore_errors_parse("", &ie, &err) == 0 && ie.n == 0 && !ie.all);
    CHECK(!pr_ignore_errors_has(&ie, 1213));
    CHECK(pr_ignore_errors_parse("12,,3", &ie, &err) == PR_EINVAL);
    CHECK(pr_ignore_errors_parse("-5", &ie, &err) == PR_EINVAL);
}

/* --report-checkpoints as both programs read it, and the interval each is
 * taken at (the first report boundary at or after it). */
static void test_checkpoints(void)
{
    struct pr_error err;
    pr_opts *o = pr_opts_new(0);
    uint32_t *at = NULL, n = 9;

    CHECK(pr_opts_checkpoints(o, &at, &n, &err) == 0 && at == NULL && n == 0);
    CHECK(pr_opts_parse_arg(o, "--report-checkpoints=30,10,20,10", &err) == 0);
    CHECK(pr_opts_checkpoints(o, &at, &n, &err) == 0);
    CHECK(n == 3 && at && at[0] == 10 && at[1] == 20 && at[2] == 30);
    free(at);
    CHECK(pr_opts_set(o, "report-checkpoints", "4294967295,0", &err) == 0);
    CHECK(pr_opts_checkpoints(o, &at, &n, &err) == 0);
    CHECK(n == 2 && at && at[0] == 0 && at[1] == UINT32_MAX);
    free(at);
    pr_opts_destroy(&o);

    CHECK(pr_checkpoint_interval(2, 1000) == 1); /* the boundary at 2 s ends interval 1 */
    CHECK(pr_checkpoint_interval(0, 1000) == 0); /* the first boundary */
    CHECK(pr_checkpoint_interval(3, 2000) == 1); /* 3 s: taken at 4 s */
    CHECK(pr_checkpoint_interval(4, 2000) == 1); /* on a boundary */
    CHECK(pr_checkpoint_interval(5, 2000) == 2); /* 6 s */
    CHECK(pr_checkpoint_interval(1, 250) == 3);  /* sub-second intervals */
    CHECK(pr_checkpoint_interval(UINT32_MAX, 1000) == (uint64_t)UINT32_MAX - 1);
}

int main(void)
{
    test_defaults();
    test_schema();
    test_parse();
    test_errors();
    test_ignore_errors();
    test_checkpoints();
    return TEST_END();
}
