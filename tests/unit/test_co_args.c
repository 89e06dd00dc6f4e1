/* test_co_args: the stampede command line. Options before and after the
 * words, '-'/'_' spellings, deprecated aliases, booleans, errors that name
 * the option, what is passed through to agents, unknown options for every
 * workload, keygen, and the help texts against sysbench 1.0.20's own
 * (captured from `sysbench --help` and `sysbench oltp_read_write help`).
 * The password's sources, --config-file and the rules on stampede's own
 * and sysbench's options are in test_co_args_rules.c. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_args.h"
#include "co_args_fixture.h"
#include "pr_err.h"
#include "pr_sb_schema.h"
#include "testlib.h"

static void test_help_version(void)
{
    struct co_args a;
    struct pr_error err;

    CHECK(PARSE(&a, &err, (char *)NULL) == 0 && a.action == CO_ACTION_HELP);
    CHECK(a.opts != NULL && strcmp(a.warnings, "") == 0 && strcmp(a.password, "") == 0);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "--help") == 0 && a.action == CO_ACTION_HELP);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--threads=2", "--help") == 0);
    CHECK(a.action == CO_ACTION_HELP);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "--version") == 0 && a.action == CO_ACTION_VERSION);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "--version=on", "oltp_read_write", "run") == 0);
    CHECK(a.action == CO_ACTION_VERSION);
    co_args_clear(&a);
    /* --help=off is not a request for help. */
    CHECK(PARSE(&a, &err, "--help=off", "oltp_read_write", "run") == 0);
    CHECK(a.action == CO_ACTION_COMMAND);
    CHECK(a.n_passthrough == 0); /* help is not passed to agents */
    co_args_clear(&a);
    EXPECT_ERR("--help", "maybe", "--help=maybe");
    EXPECT_ERR("no WORKLOAD", "stampede --help", "--threads=4");

    CHECK(PARSE(&a, &err, "oltp_read_write", "help") == 0);
    CHECK(a.action == CO_ACTION_WL_HELP && a.wl == PR_WL_OLTP_READ_WRITE);
    CHECK(strcmp(a.workload, "oltp_read_write") == 0);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "--tables=2", "select_random_points.lua", "help") == 0);
    CHECK(a.action == CO_ACTION_WL_HELP && strcmp(a.workload, "select_random_points") == 0);
    co_args_clear(&a);
    co_args_clear(&a); /* safe twice */
}

/* The same options before, between and after the words. */
static void test_ordering(void)
{
    static const char *const orders[][6] = {
        {"--threads=4", "--tables=3", "oltp_read_only", "run", NULL, NULL},
        {"oltp_read_only", "--threads=4", "run", "--tables=3", NULL, NULL},
        {"oltp_read_only", "run", "--tables=3", "--threads=4", NULL, NULL},
        {"--tables=3", "oltp_read_only.lua", "run", "--threads=4", NULL, NULL},
    };

    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        char *argv[8] = {"stampede"};
        int argc = 1;
        for (int i = 0; orders[k][i]; i++)
            argv[argc++] = (char *)orders[k][i];
        struct co_args a;
        struct pr_error err = {0};
        CHECK_MSG(co_args_parse(&a, argc, argv, NULL, &err) == 0, "%s", err.msg);
        CHECK(a.action == CO_ACTION_COMMAND && a.cmd == PR_CMD_RUN);
        CHECK(a.wl == PR_WL_OLTP_READ_ONLY && strcmp(a.workload, "oltp_read_only") == 0);
        CHECK(pr_opts_int(a.opts, "threads") == 4 && pr_opts_int(a.opts, "tables") == 3);
        CHECK(pr_opts_int(a.opts, "table_size") == 10000); /* defaults filled */
        CHECK(a.n_passthrough == 2 && has_pass(&a, "threads=4") && has_pass(&a, "tables=3"));
        co_args_clear(&a);
    }

    static const char *const cmds[] = {"prepare", "run", "cleanup", "prewarm"};
    static const enum pr_plan_cmd ids[] = {PR_CMD_PREPARE, PR_CMD_RUN, PR_CMD_CLEANUP,
                                           PR_CMD_PREWARM};
    for (int i = 0; i < 4; i++) {
        struct co_args a;
        struct pr_error err;
        CHECK(PARSE(&a, &err, "oltp_insert", cmds[i]) == 0 && a.cmd == ids[i]);
        co_args_clear(&a);
    }
}

static void test_spellings_and_aliases(void)
{
    struct co_args a;
    struct pr_error err;

    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--table-size=5", "--mysql_host=db1,db2",
                "--point-selects=3", "--agent_wait=7", "--on_agent_loss=continue",
                "--rand_type=uniform") == 0);
    CHECK(pr_opts_int(a.opts, "table_size") == 5 && pr_opts_int(a.opts, "point_selects") == 3);
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-host"), "db1,db2") == 0);
    CHECK(a.agent_wait_s == 7 && a.on_loss == CO_LOSS_CONTINUE);
    /* Passed through under the schema's canonical spelling. */
    CHECK(has_pass(&a, "table_size=5") && has_pass(&a, "mysql-host=db1,db2"));
    CHECK(has_pass(&a, "point_selects=3") && has_pass(&a, "rand-type=uniform"));
    CHECK(a.n_passthrough == 4);
    CHECK(strcmp(a.warnings, "") == 0);
    co_args_clear(&a);

    CHECK(PARSE(&a, &err, "--num-threads=8", "--max-time=5", "oltp_read_write", "run",
                "--num_threads=6", "--tx-rate=10", "--max-requests=100") == 0);
    CHECK(pr_opts_int(a.opts, "threads") == 6 && pr_opts_int(a.opts, "time") == 5);
    CHECK(pr_opts_int(a.opts, "rate") == 10 && pr_opts_int(a.opts, "events") == 100);
    CHECK(has_pass(&a, "threads=6") && !has_pass(&a, "threads=8"));
    CHECK(has_pass(&a, "time=5") && has_pass(&a, "rate=10") && has_pass(&a, "events=100"));
    CHECK(a.n_passthrough == 4);
    CHECK(strcmp(a.warnings, "WARNING: --num-threads is deprecated, use --threads instead\n"
                             "WARNING: --max-time is deprecated, use --time instead\n"
                             "WARNING: --tx-rate is deprecated, use --rate instead\n"
                             "WARNING: --max-requests is deprecated, use --events instead\n") == 0);
    co_args_clear(&a);

    CHECK(PARSE(&a, &err, "--histogram", "--plaintext", "oltp_read_write", "run",
                "--listen=ipc:///tmp/x") == 0);
    CHECK(pr_opts_bool(a.opts, "histogram") && a.plaintext);
    co_args_clear(&a);

    /* A bare boolean means on; bool spellings. */
    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--histogram", "--skip_trx=true",
                "--range-selects=off") == 0);
    CHECK(pr_opts_bool(a.opts, "histogram") && pr_opts_bool(a.opts, "skip_trx"));
    CHECK(!pr_opts_bool(a.opts, "range_selects"));
    CHECK(has_pass(&a, "histogram=on") && has_pass(&a, "skip_trx=true"));
    CHECK(has_pass(&a, "range_selects=off"));
    co_args_clear(&a);
}

/* --rate-mode (issue 9 item 7): default poisson, uniform reaches the
 * plan's field, a warning without --rate. */
static void test_rate_mode(void)
{
    struct co_args a;
    struct pr_error err;

    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--rate=100") == 0);
    CHECK(a.rate_mode == PR_RATE_POISSON && strcmp(a.warnings, "") == 0);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--rate=100", "--rate-mode=uniform") == 0);
    CHECK(a.rate_mode == PR_RATE_UNIFORM && strcmp(a.warnings, "") == 0);
    CHECK(!has_pass(&a, "rate-mode=uniform")); /* stampede's own: not a workload option */
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--rate-mode=uniform") == 0);
    CHECK(strstr(a.warnings, "--rate-mode=uniform has no effect without --rate") != NULL);
    co_args_clear(&a);
}

/* One boolean parser (issue 27 §4): --histogram=yes and --plaintext=yes
 * were errors while --allow-scripts=yes worked; any other word lists the
 * spellings. */
static void test_booleans(void)
{
    static const char *const words[] = {"yes", "no", "on", "off", "true", "false", "1", "0"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char h[32], p[32];
        snprintf(h, sizeof h, "--histogram=%s", words[i]);
        snprintf(p, sizeof p, "--plaintext=%s", words[i]);
        struct co_args a;
        struct pr_error err;
        bool on = i % 2 == 0; /* --plaintext=off with --listen needs keys */
        int rc =
            on ? PARSE(&a, &err, "oltp_read_write", "run", h, p, "--listen=tcp://127.0.0.1:5555")
               : PARSE(&a, &err, "oltp_read_write", "run", h, p);
        CHECK_MSG(rc == 0, "%s %s: %s", h, p, err.msg);
        if (rc == 0)
            CHECK(a.plaintext == on);
        co_args_clear(&a);
    }
    EXPECT_ERR("--histogram: 'maybe'", "on/off, yes/no, true/false or 1/0", "oltp_read_write",
               "run", "--histogram=maybe");
    EXPECT_ERR("--plaintext: 'maybe'", "on/off, yes/no, true/false or 1/0", "oltp_read_write",
               "run", "--plaintext=maybe", "--listen=tcp://127.0.0.1:5555");
}

static void test_errors(void)
{
    EXPECT_ERR("unknown option --foo;", "see stampede --help", "oltp_read_write", "run", "--foo=1");
    EXPECT_ERR("unknown option --foo;", "stampede --help", "--foo", "oltp_read_write", "run");
    EXPECT_ERR("unknown option -t", "--help", "-t", "oltp_read_write", "run");
    EXPECT_ERR("--random_points", "oltp_read_write", "oltp_read_write", "run", "--random-points=5");
    EXPECT_ERR("--threads", "'abc'", "oltp_read_write", "run", "--threads=abc");
    EXPECT_ERR("--threads", "0", "oltp_read_write", "run", "--threads=0");
    EXPECT_ERR("--tables", "-1", "oltp_read_write", "run", "--tables=-1");
    EXPECT_ERR("--rand-type", "'bogus'", "oltp_read_write", "run", "--rand-type=bogus");
    EXPECT_ERR("--mysql-port", "0", "oltp_read_write", "run", "--mysql-port=0");
    EXPECT_ERR("--table_size", "value is required", "oltp_read_write", "run", "--table-size");
    EXPECT_ERR("--agents", "'0'", "oltp_read_write", "run", "--agents=0");
    EXPECT_ERR("--agents", "100001", "oltp_read_write", "run", "--agents=100001");
    EXPECT_ERR("--agents", "'2x'", "oltp_read_write", "run", "--agents=2x");
    EXPECT_ERR("--agents", "value is required", "oltp_read_write", "run", "--agents");
    EXPECT_ERR("--agent-wait", "'0'", "oltp_read_write", "run", "--agent-wait=0");
    EXPECT_ERR("--partition", "'diagonal'", "oltp_read_write", "run", "--partition=diagonal");
    /* The partition-fit rule (pr_sb_schema, the one copy the agent uses too). */
    EXPECT_ERR("--partition=rows cannot confine oltp_insert",
               pr_sb_partition_unfit(PR_WL_OLTP_INSERT, PR_PART_ROWS), "oltp_insert", "run",
               "--partition=rows");
    EXPECT_ERR("use --partition=none or tables", "rand.unique", "oltp_insert", "run",
               "--partition=rows");
    EXPECT_ERR("--partition=tables cannot confine bulk_insert",
               pr_sb_partition_unfit(PR_WL_BULK_INSERT, PR_PART_TABLES), "bulk_insert", "run",
               "--partition=tables");
    EXPECT_ERR("--on-agent-loss", "'maybe'", "oltp_read_write", "run", "--on-agent-loss=maybe");
    EXPECT_ERR("--report-format", "'xml' is not stampede or sysbench", "oltp_read_write", "run",
               "--report-format=xml");
    EXPECT_ERR("--rate-mode", "'gaussian' is not poisson or uniform", "oltp_read_write", "run",
               "--rate=10", "--rate-mode=gaussian");
    EXPECT_ERR("--rate-mode", "''", "oltp_read_write", "run", "--rate-mode=");
    EXPECT_ERR("--agent-weights", "'b'", "oltp_read_write", "run", "--agent-weights=a=1,b");
    EXPECT_ERR("--agent-weights", "'x'", "oltp_read_write", "run", "--agent-weights=a=x");
    EXPECT_ERR("--agent-weights", "'a' given twice", "oltp_read_write", "run",
               "--agent-weights=a=1,a=2");
    EXPECT_ERR("--agent-weights", "> 0", "oltp_read_write", "run", "--agent-weights=a=0,b=0");
    EXPECT_ERR("--listen", "'foo'", "oltp_read_write", "run", "--listen=foo");
    EXPECT_ERR("--listen", "tcp://HOST:PORT", "oltp_read_write", "run", "--listen=tcp://h");
    EXPECT_ERR("--listen", "'tcp://h:0'", "oltp_read_write", "run", "--listen=tcp://h:0");
    EXPECT_ERR("--listen", "70000", "oltp_read_write", "run", "--listen=tcp://h:70000");
    EXPECT_ERR("--listen", "ipc://PATH", "oltp_read_write", "run", "--listen=ipc://");
    EXPECT_ERR("--plaintext", "'maybe'", "oltp_read_write", "run", "--plaintext=maybe");
    EXPECT_ERR("--json", "value is required", "oltp_read_write", "run", "--json=");
    EXPECT_ERR("--grace-ms", "60001", "oltp_read_write", "run", "--grace-ms=60001");
    EXPECT_ERR("--mysql-password", "value is required", "oltp_read_write", "run",
               "--mysql-password");

    /* Words. */
    EXPECT_ERR("unknown workload 'oltp_nothing'", "oltp_read_write, oltp_read_only,",
               "oltp_nothing", "run");
    EXPECT_ERR("unknown workload 'tpcb'; valid workloads: oltp_read_write, oltp_read_only, "
               "oltp_write_only, oltp_point_select, oltp_update_index, oltp_update_non_index, "
               "oltp_insert, oltp_delete, select_random_points, select_random_ranges, bulk_insert, "
               "tpcc",
               "", "tpcb", "run");
    EXPECT_ERR("missing WORKLOAD before 'run'", "oltp_point_select", "run", "--threads=2");
    EXPECT_ERR("Command is required.", "Supported commands: prepare, prewarm, run, cleanup, help",
               "oltp_read_write");
    EXPECT_ERR("unknown command 'go'", "Supported commands", "oltp_read_write", "go");
    EXPECT_ERR("unexpected argument 'extra'", "oltp_read_write run", "oltp_read_write", "run",
               "extra");

    /* A value given as a separate word is caught, not taken as the workload. */
    EXPECT_ERR("--threads needs its value joined: --threads=4", "", "--threads", "4",
               "oltp_read_write", "run");
    EXPECT_ERR("--agents needs its value joined", "", "oltp_read_write", "run", "--agents", "3");
    /* ...but a bare boolean before the words is fine (tested below). */

    /* sysbench's own rule. */
    EXPECT_ERR("--histogram cannot be used with --percentile=0", "", "oltp_read_write", "run",
               "--histogram", "--percentile=0");
}

static void test_passthrough(void)
{
    struct co_args a;
    struct pr_error err;

    CHECK(PARSE(&a, &err, "--threads=4", "--agents=3", "--json=out.json", "oltp_read_write",
                "--mysql-password=s3cr3t", "run", "--tables=2", "--mysql-user=u", "--histogram",
                "--partition=tables", "--csv=out.csv", "--hdr-log=out.hlog", "--threads=8",
                "--agent-weights=a1=3,a2=1", "--grace-ms=250", "--agent-workers=2",
                "--agent-bin=/opt/stampede-agent") == 0);
    /* In order of first appearance; a repeated option keeps its first slot. */
    CHECK(a.n_passthrough == 4);
    CHECK(a.n_passthrough == 4 && strcmp(a.passthrough[0], "threads=8") == 0 &&
          strcmp(a.passthrough[1], "tables=2") == 0 &&
          strcmp(a.passthrough[2], "mysql-user=u") == 0 &&
          strcmp(a.passthrough[3], "histogram=on") == 0);
    CHECK(a.agents == 3 && a.part == PR_PART_TABLES && a.grace_ms == 250);
    CHECK(a.agent_workers == 2 && strcmp(a.agent_bin, "/opt/stampede-agent") == 0);
    CHECK(strcmp(a.json_path, "out.json") == 0 && strcmp(a.csv_path, "out.csv") == 0);
    CHECK(strcmp(a.hdr_log_path, "out.hlog") == 0);
    CHECK(a.n_weights == 2 && strcmp(a.weights[0].name, "a1") == 0 && a.weights[0].value == 3);
    CHECK(a.n_weights == 2 && strcmp(a.weights[1].name, "a2") == 0 && a.weights[1].value == 1);
    CHECK(strcmp(a.password, "s3cr3t") == 0);
    for (uint32_t i = 0; i < a.n_passthrough; i++)
        CHECK(strstr(a.passthrough[i], "s3cr3t") == NULL &&
              strstr(a.passthrough[i], "password") == NULL);
    CHECK(strstr(a.warnings, "s3cr3t") == NULL);
    /* opts never holds the password either. */
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-password"), "") == 0);
    CHECK(a.listen == NULL && a.secret_key_file == NULL && !a.plaintext);
    co_args_clear(&a);

    /* Defaults of stampede's own options. */
    CHECK(PARSE(&a, &err, "oltp_read_write", "run") == 0);
    CHECK(a.agents == 1 && a.agent_wait_s == 30 && a.part == PR_PART_NONE);
    CHECK(a.on_loss == CO_LOSS_ABORT && a.grace_ms == 0 && a.agent_workers == 0);
    CHECK(a.n_weights == 0 && a.weights == NULL && a.json_path == NULL && a.agent_bin == NULL);
    CHECK(a.n_passthrough == 0 && strcmp(a.warnings, "") == 0);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "oltp_read_write", "run") == 0 &&
          a.report_format == CO_REPORT_FORMAT_STAMPEDE);
    co_args_clear(&a);
    /* --report-format=sysbench is stampede's own: not passed to the agents. */
    CHECK(PARSE(&a, &err, "oltp_read_write", "run", "--report_format=sysbench") == 0);
    CHECK(a.report_format == CO_REPORT_FORMAT_SYSBENCH && a.n_passthrough == 0);
    co_args_clear(&a);

    /* bulk_insert refuses unknown options like every workload (sysbench's
     * legacy mode would keep them). */
    EXPECT_ERR("unknown option --my_knob", "", "bulk_insert", "run", "--my_knob=7");
    EXPECT_ERR("unknown option --tables for bulk_insert", "", "bulk_insert", "run", "--tables=2");
}

/* Every passthrough item names an option workload wl declares. */
static bool passthrough_known(const struct co_args *a)
{
    for (uint32_t i = 0; i < a->n_passthrough; i++) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(a->passthrough[i], "="),
                 a->passthrough[i]);
        const struct pr_opt_def *d = pr_opts_find(name);
        if (!d || (d->group == PR_OPT_SCRIPT && !(d->workloads & (1u << a->wl))))
            return false;
    }
    return true;
}

/* An unknown option is an error for every workload, bulk_insert included,
 * from argv or a config file, with the closest known option suggested; what
 * does parse passes only known names on (PLAN.opts, JSON options). */
static void test_unknown_everywhere(void)
{
    struct co_args a;
    struct pr_error err;
    char *cfg = write_file("typo.cfg", "threads=2\nmysql_pasword=x\n", 0600);
    char cfg_arg[160];

    snprintf(cfg_arg, sizeof cfg_arg, "--config-file=%s", cfg);
    for (int wl = 0; wl < PR_WL_COUNT_; wl++) {
        const char *w = pr_workload_name(wl);
        EXPECT_ERR("unknown option --thread;", "did you mean --threads?", w, "--thread=64", "run");
        EXPECT_ERR("unknown option --mysql-pasword;", "did you mean --mysql-password?", w, "run",
                   "--mysql-pasword=x");
        EXPECT_ERR("unknown option --mysql_pasword;", "did you mean --mysql-password?", w, "run",
                   cfg_arg);
        EXPECT_ERR("unknown option --agnets;", "did you mean --agents?", w, "run", "--agnets=2");
        EXPECT_ERR("unknown option --zzzzzz; see stampede --help", "", w, "run", "--zzzzzz=1");
        CHECK_MSG(PARSE(&a, &err, w, "run", "--threads=3", "--time=2", "--mysql-db=x",
                        "--max-time=3", "--agents=1") == 0,
                  "%s: %s", w, err.msg);
        /* tpcc: + the defaults it resolves for the agents (co_tc_family) */
        CHECK_MSG(passthrough_known(&a) && a.n_passthrough == (wl == PR_WL_TPCC ? 5u : 3u), "%s",
                  w);
        co_args_clear(&a);
    }
    /* A script option of another family: named with where to look. */
    EXPECT_ERR("unknown option --table_size for bulk_insert", "see stampede bulk_insert help",
               "bulk_insert", "run", "--table-size=10");
    EXPECT_ERR("unknown option --tabels;", "did you mean --tables?", "oltp_read_write", "run",
               "--tabels=4");
    EXPECT_ERR("unknown option --random_point;", "did you mean --random_points?",
               "select_random_points", "run", "--random_point=4");
    /* tables is no bulk_insert option: no suggestion of it there. */
    EXPECT_ERR("unknown option --tabels; see", "", "bulk_insert", "run", "--tabels=4");
}

static void test_keygen(void)
{
    struct co_args a;
    struct pr_error err;

    CHECK(PARSE(&a, &err, "keygen", "/etc/stampede") == 0 && a.action == CO_ACTION_KEYGEN);
    CHECK(strcmp(a.keygen_dir, "/etc/stampede") == 0 && strcmp(a.keygen_name, "stampede") == 0);
    co_args_clear(&a);
    CHECK(PARSE(&a, &err, "keygen", "keys", "agent-7") == 0 && a.action == CO_ACTION_KEYGEN);
    CHECK(strcmp(a.keygen_dir, "keys") == 0 && strcmp(a.keygen_name, "agent-7") == 0);
    CHECK(a.n_passthrough == 0 && a.workload == NULL);
    co_args_clear(&a);
    EXPECT_ERR("usage: stampede keygen DIR [NAME]", "", "keygen");
    EXPECT_ERR("usage: stampede keygen DIR [NAME]", "", "keygen", "a", "b", "c");
    EXPECT_ERR("keygen takes no options", "", "keygen", "a", "--threads=2");
    EXPECT_ERR("plain file name", "'x/y'", "keygen", "a", "x/y");
}

static void test_usage(void)
{
    static const char sysbench_mysql_block[] =
        "mysql options:\n"
        "  --mysql-host=[LIST,...]          MySQL server host [localhost]\n"
        "  --mysql-port=[LIST,...]          MySQL server port [3306]\n"
        "  --mysql-socket=[LIST,...]        MySQL socket\n"
        "  --mysql-user=STRING              MySQL user [sbtest]\n"
        "  --mysql-password=STRING          MySQL password []\n"
        "  --mysql-db=STRING                MySQL database name [sbtest]\n"
        "  --mysql-ssl=STRING               use SSL connections {off, on, preferred, required, "
        "verify_ca, verify_identity}; on: sysbench 1.0.20's client-key.pem, client-cert.pem, "
        "cacert.pem in the working directory [off]\n"
        "  --mysql-ssl-cipher=STRING        use specific cipher for SSL connections []\n"
        "  --mysql-ssl-ca=STRING            CA certificate file (PEM) the server's certificate is "
        "checked against []\n"
        "  --mysql-ssl-cert=STRING          client certificate file (PEM) []\n"
        "  --mysql-ssl-key=STRING           client private key file (PEM) []\n"
        "  --mysql-ssl-crl=STRING           certificate revocation list file (PEM) []\n"
        "  --mysql-compression[=on|off]     use compression, if available in the client library "
        "[off]\n"
        "  --mysql-debug[=on|off]           trace all client library calls (no effect in "
        "stampede) [off]\n"
        "  --mysql-ignore-errors=[LIST,...] list of errors to ignore, or \"all\" "
        "[1213,1020,1205]\n"
        "  --mysql-dry-run[=on|off]         Dry run, pretend that all MySQL client API calls are "
        "successful without executing them [off]\n"
        "\n";
    static const char sysbench_general_block[] =
        "General options:\n"
        "  --threads=N                     number of threads to use [1]\n"
        "  --events=N                      limit for total number of events [0]\n"
        "  --time=N                        limit for total execution time in seconds [10]\n"
        "  --forced-shutdown=STRING        number of seconds to wait after the --time limit "
        "before forcing shutdown, or 'off' to disable [off]\n"
        "  --thread-stack-size=SIZE        size of stack per thread (no effect in stampede) "
        "[64K]\n"
        "  --rate=N                        average transactions rate. 0 for unlimited rate [0]\n"
        "  --report-interval=N             periodically report intermediate statistics with a "
        "specified interval in seconds. 0 disables intermediate reports [0]\n"
        "  --report-checkpoints=[LIST,...] dump full statistics and reset all counters at "
        "specified points in time. The argument is a list of comma-separated values "
        "representing the amount of time in seconds elapsed from start of test when report "
        "checkpoint(s) must be performed. Report checkpoints are off by default. []\n"
        "  --debug[=on|off]                print more debugging info (no effect in stampede) "
        "[off]\n"
        "  --validate[=on|off]             perform validation checks where possible (accepted; "
        "the built-in workloads have nothing to validate, as in sysbench) [off]\n"
        "  --help[=on|off]                 print help and exit [off]\n"
        "  --version[=on|off]              print version and exit [off]\n"
        "  --config-file=FILENAME          File containing command line options\n"
        "  --tx-rate=N                     deprecated alias for --rate [0]\n"
        "  --max-requests=N                deprecated alias for --events [0]\n"
        "  --max-time=N                    deprecated alias for --time [0]\n"
        "  --num-threads=N                 deprecated alias for --threads [1]\n"
        "\n";
    static const char sysbench_log_block[] =
        "Log options:\n"
        "  --verbosity=N verbosity level {5 - debug, 0 - only critical messages} (stampede: 4 or "
        "more also prints where result files were written) [3]\n"
        "\n"
        "  --percentile=N       percentile to calculate in latency statistics (1-100). Use the "
        "special value of 0 to disable percentile calculations [95]\n"
        "  --histogram[=on|off] print latency histogram in report [off]\n"
        "\n"
        "General database options:\n"
        "\n"
        "  --db-driver=STRING  specifies database driver to use ('help' to get list of "
        "available drivers) [mysql]\n"
        "  --db-ps-mode=STRING prepared statements usage mode {auto, disable} [auto]\n"
        "  --db-debug[=on|off] print database-specific debug information (no effect in "
        "stampede) [off]\n";
    static const char sysbench_orw_help[] =
        "oltp_read_write options:\n"
        "  --auto_inc[=on|off]           Use AUTO_INCREMENT column as Primary Key (for MySQL), "
        "or its alternatives in other DBMS. When disabled, use client-generated IDs [on]\n"
        "  --create_secondary[=on|off]   Create a secondary index in addition to the PRIMARY "
        "KEY [on]\n"
        "  --delete_inserts=N            Number of DELETE/INSERT combinations per transaction "
        "[1]\n"
        "  --distinct_ranges=N           Number of SELECT DISTINCT queries per transaction [1]\n"
        "  --index_updates=N             Number of UPDATE index queries per transaction [1]\n"
        "  --mysql_storage_engine=STRING Storage engine, if MySQL is used [innodb]\n"
        "  --non_index_updates=N         Number of UPDATE non-index queries per transaction [1]\n"
        "  --order_ranges=N              Number of SELECT ORDER BY queries per transaction [1]\n"
        "  --pgsql_variant=STRING        Use this PostgreSQL variant when running with the "
        "PostgreSQL driver. The only currently supported variant is 'redshift'. When enabled, "
        "create_secondary is automatically disabled, and delete_inserts is set to 0\n"
        "  --point_selects=N             Number of point SELECT queries per transaction [10]\n"
        "  --range_selects[=on|off]      Enable/disable all range SELECT queries [on]\n"
        "  --range_size=N                Range size for range SELECT queries [100]\n"
        "  --secondary[=on|off]          Use a secondary index in place of the PRIMARY KEY "
        "[off]\n"
        "  --simple_ranges=N             Number of simple range SELECT queries per transaction "
        "[1]\n"
        "  --skip_trx[=on|off]           Don't start explicit transactions and execute all "
        "queries in the AUTOCOMMIT mode [off]\n"
        "  --sum_ranges=N                Number of SELECT SUM() queries per transaction [1]\n"
        "  --table_size=N                Number of rows per table [10000]\n"
        "  --tables=N                    Number of tables [1]\n"
        "\n";

    char *u = co_args_usage();
    CHECK(u &&
          strncmp(u, "Usage:\n  stampede [options]... WORKLOAD COMMAND [options]...\n", 58) == 0);
    CHECK(strstr(u, sysbench_general_block) != NULL);
    CHECK(strstr(u, sysbench_mysql_block) != NULL);
    CHECK(strstr(u, sysbench_log_block) != NULL);
    CHECK(strstr(u, "stampede keygen DIR [NAME]") != NULL);
    CHECK(strstr(u, "stampede tpcc_load|tpcc_start") != NULL); /* co_tc_compat */
    CHECK(strstr(u, "\nstampede options:\n") != NULL);
    static const char *const own[] = {"  --agents=N ",
                                      "  --listen=ENDPOINT ",
                                      "  --agent-wait=SECONDS ",
                                      "  --agent-weights=[NAME=W,...] ",
                                      "  --agent-bin=PATH ",
                                      "  --agent-workers=N ",
                                      "  --partition=STRING ",
                                      "  --on-agent-loss=STRING ",
                                      "  --report-format=STRING ",
                                      "  --rate-mode=STRING ",
                                      "  --json=FILE ",
                                      "  --csv=FILE ",
                                      "  --hdr-log=FILE ",
                                      "  --secret-key-file=FILE ",
                                      "  --authorized-keys=FILE ",
                                      "  --plaintext[=on|off] ",
                                      "  --grace-ms=N ",
                                      "  --mysql-password-file=FILE "};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        CHECK_MSG(strstr(u, own[i]) != NULL, "usage lacks '%s'", own[i]);
    CHECK(strstr(u, "{none,tables,rows,warehouses} [none]\n") &&
          strstr(u, "{abort,continue} [abort]\n"));
    CHECK(strstr(u, "--report-format=STRING       stdout report {stampede,sysbench}") != NULL);
    CHECK(strstr(u, "not a sysbench option {poisson,uniform} [poisson]\n") != NULL);
    for (int i = 0; i < PR_WL_COUNT_; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %s\n", pr_workload_name(i));
        CHECK(strstr(u, line) != NULL);
    }
    free(u);

    char *w = co_args_workload_usage("oltp_read_write");
    CHECK_MSG(w && strcmp(w, sysbench_orw_help) == 0, "got:\n%s", w ? w : "(null)");
    free(w);
    w = co_args_workload_usage("select_random_points.lua");
    CHECK(w && strncmp(w, "select_random_points options:\n", 30) == 0);
    CHECK(w && strstr(w, "  --random_points=N ") && !strstr(w, "--delta"));
    free(w);
    w = co_args_workload_usage("select_random_ranges");
    CHECK(w && strstr(w, "--delta=N") && strstr(w, "--number_of_ranges=N"));
    free(w);
    w = co_args_workload_usage("bulk_insert");
    CHECK(w && strstr(w, "no options of its own"));
    free(w);
    CHECK(co_args_workload_usage("nope") == NULL);
}

int main(void)
{
    if (co_args_tmpdir_make("test_co_args") != 0)
        return 1;
    test_help_version();
    test_ordering();
    test_spellings_and_aliases();
    test_rate_mode();
    test_errors();
    test_booleans();
    test_passthrough();
    test_unknown_everywhere();
    test_keygen();
    test_usage();
    rmdir(tmpdir);
    return TEST_END();
}
