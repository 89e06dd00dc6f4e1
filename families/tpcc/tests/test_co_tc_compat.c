/* test_co_tc_compat: tpcc_load / tpcc_start command lines become the tpcc
 * family's, every option and tpcc-mysql's defaults; and the result parses
 * (co_args) to the values tpcc-mysql would use. */
#include "co_args.h"
#include "co_tc_compat.h"
#include "pr_tc_opts.h"
#include "testlib.h"

static int translate(const char *const *argv, struct co_tc_argv *out, struct pr_error *err)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(err, 0, sizeof *err);
    return co_tc_compat_translate(argc, (char **)argv, "alice", out, err);
}

/* The translated words as one line, for messages and searches. */
static void joined(const struct co_tc_argv *t, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0; i < t->argc; i++) {
        size_t off = strlen(buf);
        snprintf(buf + off, cap - off, "%s%s", i ? " " : "", t->argv[i]);
    }
}

/* argv translates to exactly want (space separated words). */
static void translates(const char *const *argv, const char *want)
{
    struct co_tc_argv t;
    struct pr_error err;
    char got[2048];
    int rc = translate(argv, &t, &err);
    CHECK_MSG(rc == 1, "%s: rc %d: %s", argv[1], rc, err.msg);
    if (rc != 1)
        return;
    joined(&t, got, sizeof got);
    CHECK_MSG(strcmp(got, want) == 0, "\n got  %s\n want %s", got, want);
    CHECK(t.argv[t.argc] == NULL);
    co_tc_compat_free(&t);
}

static void refused(const char *const *argv, const char *want)
{
    struct co_tc_argv t;
    struct pr_error err;
    int rc = translate(argv, &t, &err);
    CHECK_MSG(rc == PR_EINVAL, "%s %s: accepted (wanted '%s')", argv[1], argv[2], want);
    CHECK_MSG(rc != PR_EINVAL || strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
    CHECK(t.which != NULL && t.argv == NULL);
    if (rc == 1)
        co_tc_compat_free(&t);
}

static void test_not_compat(void)
{
    struct co_tc_argv t;
    struct pr_error err;
    CHECK(translate((const char *[]){"stampede", "tpcc", "run", NULL}, &t, &err) == 0);
    CHECK(t.argv == NULL && t.which == NULL);
    CHECK(translate((const char *[]){"stampede", NULL}, &t, &err) == 0);
    CHECK(translate((const char *[]){"/usr/bin/stampede", "oltp_read_write", "run", NULL}, &t,
                    &err) == 0);
}

static void test_load(void)
{
    /* Defaults: port 3306, db tpcc, -w 1, the login user; no host given. */
    translates((const char *[]){"stampede", "tpcc_load", NULL},
               "stampede tpcc prepare --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1");
    /* Every option; -h l is localhost; joined values as getopt takes them. */
    translates((const char *[]){"stampede", "tpcc_load", "-h", "l", "-P3307", "-d", "db2", "-u",
                                "bob", "-p", "pw", "-w", "4", NULL},
               "stampede tpcc prepare --mysql-host=localhost --mysql-port=3307 --mysql-db=db2 "
               "--mysql-user=bob --mysql-password=pw --warehouses=4");
    translates((const char *[]){"stampede", "tpcc_load", "-h", "10.0.0.5", "-w", "8", "-l", "3",
                                "-m", "2", "-n", "5", "--agents=2", "--threads=6", NULL},
               "stampede tpcc prepare --mysql-host=10.0.0.5 --mysql-port=3306 --mysql-db=tpcc "
               "--mysql-user=alice --warehouses=8 --load-parts=customer --warehouse-first=2 "
               "--warehouse-last=5 --agents=2 --threads=6");
    translates((const char *[]){"stampede", "tpcc_load", "-l", "2", NULL},
               "stampede tpcc prepare --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --load-parts=warehouse --warehouse-first=1");
    translates((const char *[]){"stampede", "tpcc_load", "-l", "4", "-m", "3", NULL},
               "stampede tpcc prepare --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --load-parts=orders --warehouse-first=3");
    /* Part 1 ignores the range, as tpcc_load. */
    translates((const char *[]){"stampede", "tpcc_load", "-l", "1", "-m", "3", "-n", "4", NULL},
               "stampede tpcc prepare --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --load-parts=items");
    /* Invoked as tpcc_load itself. */
    translates((const char *[]){"/opt/bin/tpcc_load", "-w", "2", NULL},
               "stampede tpcc prepare --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=2");
    refused((const char *[]){"stampede", "tpcc_load", "-x", "1", NULL}, "unknown option -x");
    refused((const char *[]){"stampede", "tpcc_load", "-c", "1", NULL}, "unknown option -c");
    refused((const char *[]){"stampede", "tpcc_load", "-l", "5", NULL}, "integer in 1..4");
    refused((const char *[]){"stampede", "tpcc_load", "-w", "0", NULL}, "-w '0'");
    refused((const char *[]){"stampede", "tpcc_load", "-w", "two", NULL}, "-w 'two'");
    refused((const char *[]){"stampede", "tpcc_load", "-m", "2", "-n", "3", NULL}, "needs -l");
    refused((const char *[]){"stampede", "tpcc_load", "-w", NULL}, "-w: a value is required");
    refused((const char *[]){"stampede", "tpcc_load", "extra", NULL}, "unexpected argument");
    refused((const char *[]){"stampede", "tpcc_load", "-h", "", NULL}, "empty");
}

static void test_start(void)
{
    /* tpcc_start's defaults: -w 1 -c 10 -r 10 -l 20; limits left to the
     * family (5,5,5,80,20) when none is given, so that the header echoes
     * none; -i left to the family (10, or -l when shorter). */
    translates((const char *[]){"stampede", "tpcc_start", NULL},
               "stampede tpcc run --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --threads=10 --warmup-time=10 --time=20");
    translates(
        (const char *[]){
            "stampede", "tpcc_start", "-h", "127.0.0.1", "-P",         "3310",
            "-d",       "t2",         "-u", "root",      "-p",         "",
            "-w",       "3",          "-c", "4",         "-r",         "2",
            "-l",       "30",         "-i", "5",         "-S",         "/tmp/my.sock",
            "-0",       "7",          "-1", "8",         "-2",         "9",
            "-3",       "100",        "-4", "30",        "--agents=3", "--json=out.json",
            NULL},
        "stampede tpcc run --mysql-host=127.0.0.1 --mysql-port=3310 --mysql-db=t2 "
        "--mysql-user=root --mysql-password= --warehouses=3 --threads=4 --warmup-time=2 "
        "--time=30 --report-interval=5 --mysql-socket=/tmp/my.sock "
        "--rt-limits=7,8,9,100,30 --agents=3 --json=out.json");
    /* Some limits only: the others left empty (their defaults); the last
     * -c wins. */
    translates(
        (const char *[]){"stampede", "tpcc_start", "-hl", "-3", "1", "-c", "2", "-c", "3", NULL},
        "stampede tpcc run --mysql-host=localhost --mysql-port=3306 --mysql-db=tpcc "
        "--mysql-user=alice --warehouses=1 --threads=3 --warmup-time=10 --time=20 "
        "--rt-limits=,,,1,");
    translates((const char *[]){"tpcc_start", "-w", "2", NULL},
               "stampede tpcc run --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=2 --threads=10 --warmup-time=10 --time=20");
    /* -f / -t: stampede's --report-file / --trx-file (co_tc_trx.h). */
    translates((const char *[]){"stampede", "tpcc_start", "-f", "rt.log", "-ttrx.log", NULL},
               "stampede tpcc run --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --threads=10 --warmup-time=10 --time=20 --report-file=rt.log "
               "--trx-file=trx.log");
    refused((const char *[]){"stampede", "tpcc_start", "-f", "", NULL}, "-f: the report file");
    refused((const char *[]){"stampede", "tpcc_start", "-t", NULL}, "-t: a value is required");
    /* -m / -o: --multi-schema / --multi-schema-offset. */
    translates((const char *[]){"stampede", "tpcc_start", "-m", "2", "-o1", NULL},
               "stampede tpcc run --mysql-port=3306 --mysql-db=tpcc --mysql-user=alice "
               "--warehouses=1 --threads=10 --warmup-time=10 --time=20 --multi-schema=2 "
               "--multi-schema-offset=1");
    refused((const char *[]){"stampede", "tpcc_start", "-m", "x", NULL}, "-m 'x'");
    refused((const char *[]){"stampede", "tpcc_start", "-m", "10001", NULL}, "0..10000");
    refused((const char *[]){"stampede", "tpcc_start", "-o", "-1", NULL}, "-o '-1'");
    refused((const char *[]){"stampede", "tpcc_start", "-n", "1", NULL}, "unknown option -n");
    refused((const char *[]){"stampede", "tpcc_start", "-c", "0", NULL}, "-c '0'");
    refused((const char *[]){"stampede", "tpcc_start", "-l", "0", NULL}, "-l '0'");
    refused((const char *[]){"stampede", "tpcc_start", "-S", "", NULL}, "empty");
    refused((const char *[]){"stampede", "tpcc_start", "-0", "x", NULL}, "-0 'x'");

    struct co_tc_argv t;
    struct pr_error err;
    CHECK(translate((const char *[]){"stampede", "tpcc_start", "--help", NULL}, &t, &err) == 1);
    CHECK(t.help && strcmp(t.which, "tpcc_start") == 0);
    CHECK(strstr(co_tc_compat_usage(t.which), "tpcc_start -h"));
    CHECK(strstr(co_tc_compat_usage("tpcc_load"), "tpcc_load -h"));
    co_tc_compat_free(&t);
    co_tc_compat_free(&t); /* safe twice */
}

/* The translation parses, with tpcc-mysql's values; a -p password gives
 * --mysql-password's warning. */
static void test_parses(void)
{
    struct co_tc_argv t;
    struct pr_error err;
    struct co_args a;
    if (translate((const char *[]){"stampede", "tpcc_start", "-h", "l", "-p", "pw", "-w", "2", "-l",
                                   "5", NULL},
                  &t, &err) != 1)
        return;
    int rc = co_args_parse(&a, t.argc, t.argv, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        CHECK(a.action == CO_ACTION_COMMAND && a.cmd == PR_CMD_RUN);
        CHECK(strcmp(a.workload, "tpcc") == 0);
        CHECK_EQ_U64(pr_opts_int(a.opts, "threads"), 10);
        CHECK_EQ_U64(pr_opts_int(a.opts, "warehouses"), 2);
        CHECK_EQ_U64(pr_opts_int(a.opts, "report-interval"), 5); /* -l 5 < 10 */
        CHECK(strcmp(pr_opts_str(a.opts, "mysql-host"), "localhost") == 0);
        CHECK(!pr_opts_is_set(a.opts, "mysql-socket"));
        CHECK(strcmp(a.password, "pw") == 0);
        CHECK(strstr(a.warnings, "--mysql-password puts the password in the process list"));
        co_args_clear(&a);
    }
    co_tc_compat_free(&t);

    if (translate((const char *[]){"stampede", "tpcc_load", "-w", "3", "-l", "4", "-m", "2", "-n",
                                   "3", NULL},
                  &t, &err) != 1)
        return;
    rc = co_args_parse(&a, t.argc, t.argv, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        CHECK(a.cmd == PR_CMD_PREPARE);
        CHECK(strcmp(pr_opts_str(a.opts, "load-parts"), "orders") == 0);
        CHECK_EQ_U64(pr_opts_int(a.opts, "warehouse-first"), 2);
        CHECK_EQ_U64(pr_opts_int(a.opts, "warehouse-last"), 3);
        co_args_clear(&a);
    }
    co_tc_compat_free(&t);
}

/* argv (translated, or stampede's own when not tpcc-mysql's) parses, or
 * is refused by co_args with a message holding want. */
static int parse_words(const char *const *argv, struct co_args *a, const char *want)
{
    struct co_tc_argv t;
    struct pr_error err;
    int rc = translate(argv, &t, &err);
    CHECK_MSG(rc >= 0, "%s", err.msg);
    if (rc < 0)
        return rc;
    int n = 0;
    while (rc == 0 && argv[n])
        n++;
    memset(&err, 0, sizeof err);
    int prc = rc ? co_args_parse(a, t.argc, t.argv, NULL, &err)
                 : co_args_parse(a, n, (char **)argv, NULL, &err);
    if (want)
        CHECK_MSG(prc != 0 && strstr(err.msg, want), "rc %d, message '%s' lacks '%s'", prc, err.msg,
                  want);
    else
        CHECK_MSG(prc == 0, "%s", err.msg);
    if (rc)
        co_tc_compat_free(&t);
    if (prc == 0 && want)
        co_args_clear(a);
    return prc;
}

/* -m/-o parse to the tpcc options; -o alone, a schema name beyond MySQL's
 * 64 characters are refused with the reason; prepare, check and cleanup
 * take --multi-schema. */
static void test_multi_schema(void)
{
    struct co_args a;
    if (parse_words(
            (const char *[]){"stampede", "tpcc_start", "-d", "db", "-m", "3", "-o", "7", NULL}, &a,
            NULL) == 0) {
        struct pr_tc_opts o;
        struct pr_error err = {0};
        CHECK(pr_tc_opts_get(a.opts, &o, &err) == 0);
        CHECK_EQ_U64(o.schemas, 3);
        CHECK_EQ_U64(o.schema_offset, 7);
        char name[32];
        CHECK(pr_tc_schema_db("db", &o, 0, name, sizeof name) == 4 && strcmp(name, "db_7") == 0);
        CHECK(pr_tc_schema_db("db", &o, 5, name, sizeof name) == 4 && strcmp(name, "db_9") == 0);
        CHECK(pr_tc_schema_db("db", &o, 6, name, sizeof name) == 4 && strcmp(name, "db_7") == 0);
        CHECK(pr_tc_schema_db("db", &o, 6, name, 3) == 4 && strcmp(name, "db") == 0);
        co_args_clear(&a);
    }
    parse_words((const char *[]){"stampede", "tpcc_start", "-o", "1", NULL}, &a,
                "needs --multi-schema");
    parse_words((const char *[]){"stampede", "tpcc_start", "-m", "0", "-o", "1", NULL}, &a,
                "needs --multi-schema");
    parse_words((const char *[]){"stampede", "tpcc_start", "-m", "2", "-d",
                                 "a123456789b123456789c123456789d123456789e123456789f123456789012",
                                 NULL},
                &a, "longer than MySQL's 64");
    /* prepare, check and cleanup loop over the schemas (co_tc_plan). */
    static const char *const cmds[] = {"prepare", "check", "cleanup"};
    for (int i = 0; i < 3; i++)
        if (parse_words((const char *[]){"stampede", "tpcc", cmds[i], "--multi-schema=2",
                                         "--mysql-db=x", NULL},
                        &a, NULL) == 0)
            co_args_clear(&a);
    parse_words((const char *[]){"stampede", "tpcc", "cleanup", "--multi-schema=2",
                                 "--mysql-db="
                                 "a123456789b123456789c123456789d123456789e123456789f123456789012",
                                 NULL},
                &a, "longer than MySQL's 64");
}

int main(void)
{
    test_not_compat();
    test_load();
    test_start();
    test_parses();
    test_multi_schema();
    return TEST_END();
}
