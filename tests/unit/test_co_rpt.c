/* test_co_rpt: the pieces of stampede report and the sweep that need no
 * server: version order, a sweep run's file names, --threads lists and
 * --repeat on the command line, the environment diff, and the loader's
 * refusals (each named with the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_args.h"
#include "co_rpt_draw.h"
#include "co_rpt_env.h"
#include "co_rpt_kinds.h"
#include "co_rpt_load.h"
#include "co_rpt_series.h"
#include "co_sweep.h"
#include "testlib.h"

static void test_version(void)
{
    CHECK(co_rpt_version_cmp("0.1.0", "0.1.0") == 0);
    CHECK(co_rpt_version_cmp("0.2.0", "0.1.9") > 0);
    CHECK(co_rpt_version_cmp("0.10.0", "0.9.0") > 0);
    CHECK(co_rpt_version_cmp("1", "1.0.1") < 0);
}

static void test_paths(void)
{
    char *p = co_sweep_path("out/run.json", 8, 1);
    CHECK_MSG(strcmp(p, "out/run-t8-r1.json") == 0, "%s", p);
    free(p);
    p = co_sweep_path("a.b/run", 16, 3);
    CHECK_MSG(strcmp(p, "a.b/run-t16-r3") == 0, "%s", p);
    free(p);
    p = co_sweep_path("run.json", 0, 0);
    CHECK_MSG(strcmp(p, "run-sweep.json") == 0, "%s", p);
    free(p);
    CHECK(co_sweep_path(NULL, 1, 1) == NULL);
}

static void test_args(void)
{
    char *argv[] = {"stampede",   "oltp_read_write", "--threads=8,16,32",
                    "--repeat=3", "--sweep-pause=2", "run"};
    struct co_args a;
    struct pr_error err = {0};
    int rc = co_args_parse(&a, 6, argv, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc == 0) {
        CHECK(a.n_sweep_threads == 3 && a.sweep_threads[0] == 8 && a.sweep_threads[2] == 32);
        CHECK(a.repeat == 3 && a.sweep_pause_s == 2);
        CHECK(pr_opts_int(a.opts, "threads") == 8);
        CHECK(co_sweep_is_wanted(&a));
        co_args_clear(&a);
    }
    char *bad[] = {"stampede", "oltp_read_write", "--threads=8,x", "run"};
    rc = co_args_parse(&a, 4, bad, NULL, &err);
    CHECK_MSG(rc < 0 && strstr(err.msg, "'x'") != NULL, "%s", err.msg);
    char *one[] = {"stampede", "oltp_read_write", "--threads=4", "run"};
    rc = co_args_parse(&a, 4, one, NULL, &err);
    CHECK(rc == 0 && !co_sweep_is_wanted(&a) && a.sweep_threads == NULL);
    if (rc == 0)
        co_args_clear(&a);
}

static json_t *run_with(const char *flush, const char *threads)
{
    json_t *r =
        json_pack("{s:{s:{s:s,s:{s:s,s:s,s:n},s:{s:s}}},s:{s:s}}", "environment", "server",
                  "version", "10.11", "variables", "innodb_flush_log_at_trx_commit", flush,
                  "sync_binlog", "0", "innodb_redo_log_capacity", "unread",
                  "innodb_redo_log_capacity", "unknown variable", "options", "threads", threads);
    return r;
}

static void test_env_diff(void)
{
    json_t *a = run_with("1", "4"), *b = run_with("2", "4");
    struct co_rpt_env env[2];
    co_rpt_env_read(a, &env[0]);
    co_rpt_env_read(b, &env[1]);
    CHECK(env[0].has_env);
    const char *v = co_rpt_env_get(&env[0], "innodb_redo_log_capacity");
    CHECK_MSG(v && strcmp(v, "null (unknown variable)") == 0, "%s", v ? v : "(none)");
    size_t n = 0;
    const char **keys = co_rpt_env_diff(env, 2, CO_RPT_ENV_CONFIG, &n);
    CHECK_MSG(n == 1 && strcmp(keys[0], "innodb_flush_log_at_trx_commit") == 0, "%zu keys", n);
    free(keys);
    keys = co_rpt_env_diff(env, 2, CO_RPT_ENV_DATA, &n);
    CHECK_MSG(n == 0, "%zu data keys", n);
    free(keys);
    co_rpt_env_clear(&env[0]);
    co_rpt_env_clear(&env[1]);
    /* The data set's drift is listed apart from the configuration. */
    json_object_set_new(
        json_object_get(a, "environment"), "dataset",
        json_pack("{s:i,s:[{s:s,s:i}]}", "rows", 1000, "tables", "name", "sbtest1", "rows", 1000));
    json_object_set_new(
        json_object_get(b, "environment"), "dataset",
        json_pack("{s:i,s:[{s:s,s:i}]}", "rows", 1017, "tables", "name", "sbtest1", "rows", 1017));
    co_rpt_env_read(a, &env[0]);
    co_rpt_env_read(b, &env[1]);
    keys = co_rpt_env_diff(env, 2, CO_RPT_ENV_CONFIG, &n);
    CHECK_MSG(n == 1 && strcmp(keys[0], "innodb_flush_log_at_trx_commit") == 0, "%zu keys", n);
    free(keys);
    keys = co_rpt_env_diff(env, 2, CO_RPT_ENV_DATA, &n);
    CHECK_MSG(n == 2 && strcmp(keys[0], "dataset rows") == 0 &&
                  strcmp(keys[1], "table sbtest1 rows") == 0,
              "%zu data keys: %s", n, n ? keys[0] : "-");
    free(keys);
    CHECK(co_rpt_env_part_of("option threads") == CO_RPT_ENV_CONFIG &&
          co_rpt_env_part_of("agent a1 cores") == CO_RPT_ENV_CONFIG &&
          co_rpt_env_part_of("table t data_bytes") == CO_RPT_ENV_DATA);
    co_rpt_env_clear(&env[0]);
    co_rpt_env_clear(&env[1]);
    json_t *old = json_pack("{s:{s:s}}", "options", "threads", "4");
    co_rpt_env_read(old, &env[0]);
    CHECK(!env[0].has_env && env[0].n == 1);
    co_rpt_env_clear(&env[0]);
    json_decref(a);
    json_decref(b);
    json_decref(old);
}

/* co_rpt_envs_read / co_rpt_envs_free: one environment per run, in order. */
static void test_envs(void)
{
    struct co_rpt_file a = {.root = run_with("1", "4")}, b = {.root = run_with("2", "8")};
    const struct co_rpt_file *runs[] = {&a, &b};
    struct co_rpt_env *envs = co_rpt_envs_read(runs, 2);
    const char *v0 = co_rpt_env_get(&envs[0], "option threads");
    const char *v1 = co_rpt_env_get(&envs[1], "option threads");
    CHECK_MSG(v0 && v1 && strcmp(v0, "4") == 0 && strcmp(v1, "8") == 0, "%s %s", v0 ? v0 : "-",
              v1 ? v1 : "-");
    co_rpt_envs_free(envs, 2);
    co_rpt_envs_free(NULL, 0);
    json_decref(a.root);
    json_decref(b.root);
}

/* co_rpt_draw: a series is made once, n nulls long, then filled in; a
 * figure that is not a finite number is null; a ratio cell. */
static void test_draw(void)
{
    json_t *o = json_object(), *iv = json_pack("{s:f}", "v", 2.5);
    json_t *s = co_rpt_series_at(o, "x", 3);
    json_array_set_new(s, 1, co_rpt_num_or_null(iv, "v"));
    CHECK(co_rpt_series_at(o, "x", 3) == s);
    json_array_set_new(s, 2, co_rpt_num_or_null(o, "missing"));
    char *d = json_dumps(o, JSON_COMPACT);
    CHECK_MSG(d && strcmp(d, "{\"x\":[null,2.5,null]}") == 0, "%s", d ? d : "(null)");
    free(d);
    json_decref(o);
    json_decref(iv);
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    co_rpt_td_ratio(f, 3, 2);
    co_rpt_td_ratio(f, 1, 0);
    co_rpt_td_str(f, "<a&b>");
    fclose(f);
    CHECK_MSG(strcmp(html, "<td>1.500</td><td>-</td><td>&lt;a&amp;b&gt;</td>") == 0, "%s", html);
    free(html);
}

static void load_bad(const char *text, const char *want)
{
    char path[] = "/tmp/test_co_rpt.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    struct co_rpt_file f;
    struct pr_error err = {0};
    int rc = co_rpt_load(path, &f, &err);
    CHECK_MSG(rc < 0 && strstr(err.msg, path) && strstr(err.msg, want), "want '%s': %s", want,
              err.msg);
    CHECK(f.root == NULL);
    unlink(path);
}

static void test_load(void)
{
    load_bad("nope", "not JSON");
    load_bad("{\"tool\": \"stampede\", \"version\": \"0.1.0\", \"agents\": [", "truncated");
    load_bad("{\"tool\": \"stampede\", \"version\": \"0.1.0\", \"time_s\": 0.", "truncated");
    load_bad("{\"tool\": \"other\"}", "not a stampede JSON");
    load_bad("{\"tool\": \"stampede\", \"version\": \"999.0\"}", "newer than");
    load_bad("{\"tool\": \"stampede\", \"version\": \"0.0.1\", \"agents\": []}", "\"intervals\"");
}

/* The per-kind series fill null where an interval lacks the kind; the
 * comparison shows a kind one run lacks as "-", its ratio too. */
static void test_kinds(void)
{
    struct co_rpt_file a = {.label = "a"}, b = {.label = "b"};
    a.root = json_loads("{\"intervals\": [{\"kinds\": {\"x\": {\"latency_ms\": {\"p95\": 2}}}},"
                        " {\"kinds\": {\"y\": {\"latency_ms\": {\"p99\": 7}}}}],"
                        " \"totals\": {\"kinds\": {\"x\": {\"count\": 10, \"latency_ms\":"
                        " {\"p95\": 2}}}}}",
                        0, NULL);
    b.root = json_loads("{\"totals\": {\"kinds\": {\"x\": {\"count\": 30, \"latency_ms\":"
                        " {\"p95\": 3}}, \"z\": {\"count\": 5}}}}",
                        0, NULL);
    CHECK(a.root != NULL && b.root != NULL);
    json_t *r = json_object();
    co__rpt_kinds_data(r, &a);
    char *d = json_dumps(json_object_get(r, "kinds"), JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_MSG(strcmp(d, "{\"x\":{\"p95\":[2.0,null],\"p99\":[null,null]},"
                        "\"y\":{\"p95\":[null,null],\"p99\":[null,7.0]}}") == 0,
              "%s", d);
    free(d);
    json_decref(r);
    const struct co_rpt_file *runs[] = {&a, &b};
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    co__rpt_kinds_cmp(f, runs, 2);
    fclose(f);
    CHECK_MSG(strstr(html, "<td>x</td><td>b</td><td data-k=\"count\">30</td><td>3.000</td>"), "%s",
              html);
    CHECK_MSG(strstr(html, "<td>z</td><td>a</td><td data-k=\"count\">-</td><td>-</td>"), "%s",
              html);
    CHECK_MSG(strstr(html, "tpcc-cmp-table") == NULL, "no tpcc runs, no tpmC table: %s", html);
    free(html);
    json_decref(a.root);
    json_decref(b.root);
}

/* The rate series: count / len_s, 0 where an interval has kinds but not
 * this one, null without kinds or length; tpcc types per minute; the
 * tail after the stop (printed false) makes no chart; per_agent read by
 * agent index, null where an agent's figures are missing. */
static void test_series(void)
{
    struct co_rpt_file a = {.label = "a"};
    a.root =
        json_loads("{\"tpcc\": {}, \"agents\": [{\"name\": \"g1\"}, {\"name\": \"g2\"}],"
                   " \"intervals\": ["
                   " {\"len_s\": 2, \"kinds\": {\"new_order\": {\"count\": 10, \"latency_ms\":"
                   " {\"p95\": 4}}}, \"per_agent\": [{\"tps\": 3, \"p95_ms\": 1}, null]},"
                   " {\"len_s\": 1, \"kinds\": {\"payment\": {\"count\": 3}},"
                   " \"per_agent\": [{\"tps\": 1, \"p95_ms\": null}, {\"tps\": 2, \"p95_ms\": 5}]},"
                   " {\"len_s\": 1}, {\"len_s\": 0.1, \"printed\": false, \"kinds\": {\"rollback\":"
                   " {\"count\": 1}}}]}",
                   0, NULL);
    CHECK(a.root != NULL);
    json_t *r = json_object();
    co__rpt_series_data(r, &a);
    char *d = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_MSG(strcmp(d, "{\"agent_t\":[{\"p95\":[1.0,null,null,null],\"tps\":[3.0,1.0,null,null]},"
                        "{\"p95\":[null,5.0,null,null],\"tps\":[null,2.0,null,null]}],"
                        "\"krate\":{\"new_order\":[5.0,0.0,null,0.0],\"payment\":[0.0,3.0,null,"
                        "0.0]},\"tc\":{\"new_order\":{\"p95\":[4.0,null,null,null],\"rate\":"
                        "[300.0,0.0,null,0.0]},\"payment\":{\"p95\":[null,null,null,null],"
                        "\"rate\":[0.0,180.0,null,0.0]}}}") == 0,
              "%s", d);
    free(d);
    json_decref(r);
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    co__rpt_series_run(f, &a, 0);
    co__rpt_series_agents(f, &a, 0);
    fclose(f);
    CHECK_MSG(strstr(html, "id=\"krate-0\"") && strstr(html, "id=\"tc-rate-0\"") &&
                  strstr(html, "id=\"tc-p95-0\"") && strstr(html, "id=\"agent-tps-0\""),
              "%s", html);
    free(html);
    const struct co_rpt_file *runs[] = {&a, &a};
    f = open_memstream(&html, &len);
    co__rpt_series_cmp(f, runs, 2);
    fclose(f);
    CHECK_MSG(strstr(html, "id=\"cmp-tpmc\"") && strstr(html, "data-kind=\"payment\"") &&
                  strstr(html, "rollback") == NULL,
              "one overlaid chart per kind, none for the tail's rollback: %s", html);
    free(html);
    json_decref(a.root);
}

int main(void)
{
    test_series();
    test_kinds();
    test_version();
    test_paths();
    test_args();
    test_env_diff();
    test_envs();
    test_draw();
    test_load();
    return TEST_END();
}
