/* test_co_env: the JSON's environment (co_env) and the per-interval server
 * status (co_srvstat).
 *
 * co_env: a lead agent's READY env (a variable it could not read, a
 * version comment with a byte that is not UTF-8, a data set) and a second
 * agent that sent none (an older stampede-agent) are written through
 * co_json_write and read back with jansson: the lead's facts verbatim,
 * the unread ones null with the reason, the silent agent present with
 * every fact null and the reason, the JSON valid. Without any READY the
 * server section is null with the reason too.
 *
 * co_srvstat: a baseline and samples with a gap, a counter going back and
 * a missing counter become per-interval figures; the JSON gives gauges as
 * values and counters per second over len_s, null where unknown and for a
 * tail interval; the CSV cells match. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "co_env.h"
#include "co_json.h"
#include "co_result.h"
#include "co_srvstat.h"
#include "testlib.h"

static struct pr_msg_opt lead_vars[] = {{(char *)"innodb_flush_log_at_trx_commit", (char *)"2"},
                                        {(char *)"sync_binlog", (char *)"0"}};
static struct pr_msg_opt lead_unread[] = {
    {(char *)"innodb_redo_log_capacity", (char *)"no such variable on this server"}};
static struct pr_msg_opt host_unread[] = {{(char *)"cpu_model", (char *)"no model name line"}};
static struct pr_msg_env_table lead_tabs[] = {{(char *)"sbtest1", 10000, 2637824, 16384}};

static void lead_ready(struct pr_msg_ready *rd)
{
    memset(rd, 0, sizeof(*rd));
    rd->has_env = true;
    struct pr_msg_env *e = &rd->env;
    e->hostname = (char *)"client-1";
    e->kernel = (char *)"Linux 6.1.0 x86_64";
    e->cpu_model = (char *)"";
    e->cores = 8;
    e->memory_bytes = 34359738368ULL;
    e->connector = (char *)"3.3.8";
    e->version = (char *)"0.1.0";
    e->git_commit = (char *)"abc1234";
    e->unread = host_unread;
    e->n_unread = 1;
    e->has_server = true;
    e->server.version = (char *)"10.11.6-MariaDB";
    e->server.version_comment = (char *)"Deb\xff";
    e->server.vars = lead_vars;
    e->server.n_vars = 2;
    e->server.unread = lead_unread;
    e->server.n_unread = 1;
    e->server.schema = (char *)"sbtest";
    e->server.tables = lead_tabs;
    e->server.n_tables = 1;
    e->server.table_count = 1;
    e->server.rows = 10000;
    e->server.data_bytes = 2637824;
    e->server.index_bytes = 16384;
}

/* r written by co_json_write, read back by jansson (NULL: invalid). */
static json_t *roundtrip(const struct co_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_error_t jerr;

    CHECK(co_json_write(r, f) == 0);
    fclose(f);
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    CHECK_MSG(j != NULL, "line %d: %s", jerr.line, jerr.text);
    free(buf);
    return j;
}

static const char *str_at(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void result_of(struct co_result *r, uint32_t n)
{
    memset(r, 0, sizeof(*r));
    r->n_agents = n;
    r->agents = calloc(n, sizeof(*r->agents));
    r->agents[0].name = strdup("lead");
    if (n > 1)
        r->agents[1].name = strdup("old");
    r->env = co_env_new(n);
}

static void test_env(void)
{
    struct co_result r;
    struct pr_msg_ready rd;

    result_of(&r, 2);
    lead_ready(&rd);
    co_env_ready(r.env, 0, &rd);
    co_env_ready(r.env, 7, &rd); /* out of range: ignored */
    json_t *j = roundtrip(&r);
    json_t *env = json_object_get(j, "environment");
    json_t *srv = json_object_get(env, "server"), *vars = json_object_get(srv, "variables");
    CHECK(strcmp(str_at(srv, "version"), "10.11.6-MariaDB") == 0);
    CHECK(strcmp(str_at(srv, "version_comment"), "Deb\xef\xbf\xbd") == 0); /* U+FFFD */
    CHECK(strcmp(str_at(vars, "innodb_flush_log_at_trx_commit"), "2") == 0);
    CHECK(strcmp(str_at(vars, "sync_binlog"), "0") == 0);
    CHECK(json_is_null(json_object_get(vars, "innodb_redo_log_capacity")));
    CHECK(strcmp(str_at(json_object_get(srv, "unread"), "innodb_redo_log_capacity"),
                 "no such variable on this server") == 0);
    /* A listed variable the lead did not send at all is null too. */
    CHECK(json_is_null(json_object_get(vars, "binlog_format")));
    CHECK(str_at(json_object_get(srv, "unread"), "binlog_format") != NULL);
    json_t *ds = json_object_get(env, "dataset");
    CHECK(strcmp(str_at(ds, "schema"), "sbtest") == 0);
    CHECK_EQ_U64(json_integer_value(json_object_get(ds, "data_bytes")), 2637824);
    json_t *t0 = json_array_get(json_object_get(ds, "tables"), 0);
    CHECK(strcmp(str_at(t0, "name"), "sbtest1") == 0);
    CHECK_EQ_U64(json_integer_value(json_object_get(t0, "index_bytes")), 16384);
    CHECK(json_is_null(json_object_get(ds, "unread")));
    json_t *agents = json_object_get(env, "agents");
    CHECK_EQ_U64(json_array_size(agents), 2);
    json_t *a0 = json_array_get(agents, 0), *a1 = json_array_get(agents, 1);
    CHECK(strcmp(str_at(a0, "name"), "lead") == 0 && json_is_true(json_object_get(a0, "reported")));
    CHECK_EQ_U64(json_integer_value(json_object_get(a0, "memory_bytes")), 34359738368ULL);
    CHECK(strcmp(str_at(a0, "git_commit"), "abc1234") == 0);
    CHECK(json_is_null(json_object_get(a0, "cpu_model")));
    CHECK(strcmp(str_at(json_object_get(a0, "unread"), "cpu_model"), "no model name line") == 0);
    CHECK(strcmp(str_at(a1, "name"), "old") == 0 && json_is_false(json_object_get(a1, "reported")));
    CHECK(json_is_null(json_object_get(a1, "hostname")) &&
          json_is_null(json_object_get(a1, "cores")));
    CHECK(strstr(str_at(json_object_get(a1, "unread"), "hostname"), "did not report") != NULL);
    json_decref(j);
    co_result_clear(&r);

    /* Nobody reported: the server's facts are null with the reason. */
    result_of(&r, 1);
    j = roundtrip(&r);
    srv = json_object_get(json_object_get(j, "environment"), "server");
    CHECK(json_is_null(json_object_get(srv, "version")));
    CHECK(strstr(str_at(json_object_get(srv, "unread"), "version"), "did not report") != NULL);
    ds = json_object_get(json_object_get(j, "environment"), "dataset");
    CHECK(json_is_null(json_object_get(ds, "rows")) && str_at(ds, "unread") != NULL);
    json_decref(j);
    co_result_clear(&r);

    /* No env at all (the run failed before any plan): null. */
    memset(&r, 0, sizeof(r));
    j = roundtrip(&r);
    CHECK(json_is_null(json_object_get(j, "environment")));
    json_decref(j);
}

static struct pr_msg_stat st_base[] = {{(char *)"Threads_running", 1},
                                       {(char *)"Innodb_buffer_pool_read_requests", 1000},
                                       {(char *)"Innodb_row_lock_time", 50}};
static struct pr_msg_stat st_k0[] = {{(char *)"Threads_running", 4},
                                     {(char *)"Innodb_buffer_pool_read_requests", 3000},
                                     {(char *)"Innodb_row_lock_time", 40}}; /* went back */
static struct pr_msg_stat st_k1[] = {{(char *)"Threads_running", 5},
                                     {(char *)"Innodb_buffer_pool_read_requests", 3500},
                                     {(char *)"Innodb_row_lock_time", 100}};
static struct pr_msg_stat st_k3[] = {{(char *)"Threads_running", 2},
                                     {(char *)"Innodb_buffer_pool_read_requests", 9000}};

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void test_srvstat(void)
{
    struct co_result r;
    memset(&r, 0, sizeof(r));
    r.n_intervals = 5;
    r.intervals = calloc(5, sizeof(*r.intervals));
    for (uint32_t k = 0; k < 5; k++)
        r.intervals[k] = (struct co_interval_result){.k = k, .len_s = 2.0, .printed = k < 4};
    r.intervals[4].len_s = 0.5; /* the tail */

    co_srvstat *t = co_srvstat_new();
    co_srvstat_baseline(t, st_base, 3);
    co_srvstat_sample(t, 0, st_k0, 3);
    co_srvstat_sample(t, 1, st_k1, 3);
    co_srvstat_sample(t, 3, st_k3, 2); /* 2 missing: 3 has no start */
    co_srvstat_sample(t, 4, st_k3, 2);
    co_srvstat_take(t, r.intervals, r.n_intervals);
    co_srvstat_destroy(&t);
    CHECK(t == NULL);
    CHECK(r.intervals[0].srv_status && r.intervals[1].srv_status);
    CHECK(r.intervals[2].srv_status == NULL && r.intervals[3].srv_status == NULL);
    CHECK(r.intervals[4].srv_status != NULL);

    json_t *j = roundtrip(&r), *ivs = json_object_get(j, "intervals");
    json_t *s0 = json_object_get(json_array_get(ivs, 0), "server_status");
    json_t *s1 = json_object_get(json_array_get(ivs, 1), "server_status");
    CHECK(num(s0, "Threads_running") == 4.0);
    CHECK(num(s0, "Innodb_buffer_pool_read_requests_s") == 1000.0);        /* 2000 over 2 s */
    CHECK(json_is_null(json_object_get(s0, "Innodb_row_lock_time_ms_s"))); /* went back */
    CHECK(json_is_null(json_object_get(s0, "Innodb_log_waits_s")));        /* not sampled */
    CHECK(num(s1, "Threads_running") == 5.0);
    CHECK(num(s1, "Innodb_buffer_pool_read_requests_s") == 250.0);
    CHECK(num(s1, "Innodb_row_lock_time_ms_s") == 30.0);
    for (int k = 2; k < 5; k++) /* gap, after the gap, tail */
        CHECK(json_is_null(json_object_get(json_array_get(ivs, (size_t)k), "server_status")));
    json_decref(j);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    co_srvstat_csv_header(f);
    fputc('\n', f);
    co_srvstat_csv_row(f, &r.intervals[1]);
    fputc('\n', f);
    co_srvstat_csv_row(f, &r.intervals[4]);
    fclose(f);
    CHECK(strncmp(buf, ",srv_threads_running,srv_threads_connected,", 43) == 0);
    CHECK(strstr(buf, ",srv_innodb_row_lock_time_ms_s,") != NULL);
    char *row1 = strchr(buf, '\n') + 1, *row2 = strchr(row1, '\n') + 1;
    CHECK(strncmp(row1, ",5,,,,250,", 10) == 0);
    CHECK(row2[strspn(row2, ",")] == '\0'); /* tail: every cell empty */
    free(buf);
    co_result_clear(&r);
}

int main(void)
{
    test_env();
    test_srvstat();
    return TEST_END();
}
