/* test_co_tc_fmt: tpcc_start's output from synthetic merged intervals.
 *
 * Two agents report 1-second intervals of real pr_hist histograms with
 * known samples: two warm-up seconds (1,000 slow New-Orders that must not
 * count anywhere), four seconds of the measured window (--time=5,
 * --report-interval=2: window floor(5/2)*2 = 4 s) and one second after it
 * (500 New-Orders that must not count either). Each interval is handed to
 * the report as co_live does (the merged interval at release, each agent's
 * STATS as it arrives) and the whole output is compared byte for byte with
 * text written here by hand from tpcc_start's format (docs/design.md §13.2; spacing,
 * "95%:", " [NG] *"), with the figures worked out by hand below. Then: the
 * analyze.sh-style parse (split on [,():], sum field 2 between MEASURING
 * START and STOPPING THREADS) gives the window's New-Orders; a value exactly
 * at its limit is late; the JSON parses (jansson) and its tpmC equals the
 * text's; a late STATS after its interval was released counts in the
 * totals, not in the line; the server cross-check formula; the header's
 * option lines and the masked password from a parsed command line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <unistd.h>

#include "co_args.h"
#include "co_json.h"
#include "co_result.h"
#include "co_summary.h"
#include "co_tc_fmt.h"
#include "co_tc_fmt_int.h"
#include "pr_msg_trx.h"
#include "tc_fmt_expected.h"
#include "testlib.h"

#define NK     PR_TC_K_COUNT_
#define NAG    2
#define NIVL   7
#define IVL_MS 1000u

static struct pr_msg_kstat kst[NIVL][NAG][NK];

/* cfg_of()'s --rt-limits in µs: at or over them an agent counts late. */
static const uint64_t limits_us[PR_TC_TXN_COUNT_] = {5000, 5000, 5000, 80000, 20000};

static void build_stats(void)
{
    for (int k = 0; k < NIVL; k++)
        for (int a = 0; a < NAG; a++)
            for (int i = 0; i < NK; i++)
                kst[k][a][i] = (struct pr_msg_kstat){.count = 0, .errors = 0, .lat = pr_hist_new()};
    for (size_t s = 0; s < sizeof(samples) / sizeof(samples[0]); s++) {
        const struct sample *x = &samples[s];
        kst[x->k][x->agent][x->kind].count += x->n;
        if (x->kind < (int)PR_TC_TXN_COUNT_ && x->value_us >= limits_us[x->kind])
            kst[x->k][x->agent][x->kind].late += x->n; /* as the agent counts them */
        pr_hist_record(kst[x->k][x->agent][x->kind].lat, x->value_us, x->n);
    }
    for (size_t s = 0; s < sizeof(errors) / sizeof(errors[0]); s++)
        kst[errors[s].k][errors[s].agent][errors[s].kind].errors += errors[s].n;
}

static void free_stats(void)
{
    for (int k = 0; k < NIVL; k++)
        for (int a = 0; a < NAG; a++)
            for (int i = 0; i < NK; i++)
                pr_hist_destroy(&kst[k][a][i].lat);
}

/* Interval k merged over the agents, as co_merge holds it. */
static void merged(struct co_interval_result *iv, uint64_t k, struct co_kind_result *kinds)
{
    memset(iv, 0, sizeof(*iv));
    iv->k = k;
    iv->t_s = (double)(k + 1);
    iv->len_s = 1.0;
    for (int i = 0; i < NK; i++) {
        kinds[i] = (struct co_kind_result){.name = pr_tc_kind_name((enum pr_tc_kind)i),
                                           .lat = pr_hist_new()};
        for (int a = 0; a < NAG; a++) {
            kinds[i].count += kst[k][a][i].count;
            kinds[i].errors += kst[k][a][i].errors;
            kinds[i].late += kst[k][a][i].late;
            pr_hist_add(kinds[i].lat, kst[k][a][i].lat);
        }
    }
    iv->kinds = kinds;
    iv->n_kinds = NK;
}

static void free_kinds(struct co_kind_result *kinds)
{
    for (int i = 0; i < NK; i++)
        pr_hist_destroy(&kinds[i].lat);
}

static void stats_of(struct pr_msg_stats *st, uint64_t k, int agent)
{
    memset(st, 0, sizeof(*st));
    st->k = k;
    st->kst = kst[k][agent];
    st->n_kst = NK;
}

/* A result naming the tpcc kinds and two agents. */
static void result(struct co_result *res)
{
    memset(res, 0, sizeof(*res));
    res->n_kinds = NK;
    res->kind_names = pr_xcalloc(NK, sizeof(char *));
    for (int i = 0; i < NK; i++)
        res->kind_names[i] = pr_xstrdup(pr_tc_kind_name((enum pr_tc_kind)i));
    res->n_agents = NAG;
    res->agents = pr_xcalloc(NAG, sizeof(*res->agents));
    res->agents[0].name = pr_xstrdup("agent-a");
    res->agents[1].name = pr_xstrdup("agent-b");
}

static void cfg_of(struct co_tc_fmt_cfg *c)
{
    static const struct co_tc_optline lines[] = {
        {'h', "127.0.0.1"}, {'w', "2"}, {'c', "3"}, {'r', "2"}, {'l', "5"}, {'i', "2"}, {'3', NULL},
    };
    *c = (struct co_tc_fmt_cfg){
        .host = "127.0.0.1",
        .port = "3306",
        .db = "tpcc",
        .user = "root",
        .password_set = true,
        .warehouses = 2,
        .threads = 3,
        .warmup_s = 2,
        .time_s = 5,
        .interval_s = 2,
        .rt_limit_ms = {5, 5, 5, 80, 20},
        .optlines = lines,
        .n_optlines = sizeof(lines) / sizeof(lines[0]),
    };
}

/* Run the whole timeline into a string. */
static char *run_fmt(co_tc_fmt *t)
{
    struct cap c;
    FILE *f = cap_open(&c);
    co_tc_fmt_header(t, f);
    co_tc_fmt_started(t, f);
    for (uint64_t k = 0; k < NIVL; k++) {
        struct pr_msg_stats st;
        for (int a = 0; a < NAG; a++) {
            stats_of(&st, k, a);
            co_tc_fmt_stats(t, (uint32_t)a, &st, false, IVL_MS);
        }
        struct co_interval_result iv;
        struct co_kind_result kinds[NK];
        merged(&iv, k, kinds);
        co_tc_fmt_interval(t, f, &iv, IVL_MS);
        free_kinds(kinds);
    }
    co_tc_fmt_final(t, f, t->res);
    return cap_text(&c);
}

/* Where the two texts first differ, for the failure message. */
static size_t first_diff(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

/* scripts/analyze.sh's way: the lines between MEASURING START and
 * STOPPING THREADS, split on [,():], field 2 (0-based: the trx count). */
static uint64_t analyze_sum(const char *text, int *lines)
{
    uint64_t sum = 0;
    bool on = false;
    char *copy = pr_xstrdup(text), *save = NULL;
    *lines = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strstr(l, "MEASURING START"))
            on = true;
        else if (strstr(l, "STOPPING THREADS"))
            on = false;
        else if (on) {
            /* fields separated by any of , ( ) : (empty ones kept) */
            int field = 0;
            const char *p = l, *start = l;
            for (;; p++) {
                if (*p == '\0' || strchr(",():", *p)) {
                    if (field == 2)
                        sum += strtoull(start, NULL, 10);
                    field++;
                    start = p + 1;
                    if (*p == '\0')
                        break;
                }
            }
            (*lines)++;
        }
    }
    free(copy);
    return sum;
}

/* A co_tc_fmt, with cfg_of()'s configuration, over result()'s run (*res). */
static co_tc_fmt *fmt_of(struct co_result *res)
{
    struct co_tc_fmt_cfg cfg;
    result(res);
    cfg_of(&cfg);
    return co_tc_fmt_new(&cfg, res);
}

static void test_timeline(void)
{
    struct co_result res;
    co_tc_fmt *t = fmt_of(&res);
    char *out = run_fmt(t);
    if (getenv("TC_SHOW"))
        fputs(out, stdout);

    /* The tpcc_start part, byte for byte; then the stampede section. */
    size_t n = strlen(expected);
    CHECK_MSG(strncmp(out, expected, n) == 0, "differs at byte %zu:\n--- got ---\n%s",
              first_diff(out, expected), out);
    const char *sect = out + n;
    CHECK(strncmp(sect, "\nTPC-C transactions in the measured window (4 s after a 2 s warm-up)",
                  68) == 0);
    /* New-Order merged and per agent: agent-a 5+1+12+4 = 22 (1000x5,
     * 7003, 2000x12, 1234x4), agent-b 3+1+8+1 = 13. */
    CHECK(strstr(sect, "    New-Order     (all)                        35 ") != NULL);
    CHECK(strstr(sect, "                  agent-a                      22 ") != NULL);
    CHECK(strstr(sect, "                  agent-b                      13 ") != NULL);
    /* whole-run counts come from res->kinds (none here) */
    CHECK(strstr(sect, "whole run (warm-up included): 0 New-Orders") != NULL);
    CHECK(strstr(sect, "WARNING") == NULL);

    int lines = 0;
    CHECK_EQ_U64(analyze_sum(out, &lines), 35);
    CHECK(lines == 2);

    struct co_tc_txn_figures f;
    CHECK(co_tc_fmt_figures(t, -1, PR_TC_NEW_ORDER, &f));
    CHECK_EQ_U64(f.sc, 32);
    CHECK_EQ_U64(f.lt, 3);
    CHECK(f.max_ms == 30.0);
    CHECK(f.p90_ms == 4.999); /* rank ceil(31.5) = 32 of 35: 1000x5 2000x20 1234x4 4999x3 */
    CHECK(co_tc_fmt_figures(t, 1, PR_TC_NEW_ORDER, &f));
    CHECK_EQ_U64(f.sc, 11); /* agent-b: 4999x3, 2000x8 below; 5000, 30000 late */
    CHECK_EQ_U64(f.lt, 2);
    CHECK(!co_tc_fmt_figures(t, 2, PR_TC_NEW_ORDER, &f));
    CHECK(co_tc_fmt_tpmc(t) == 525.0);

    /* JSON: valid, and tpmC is the text's number. */
    char *js = NULL;
    size_t jl = 0;
    FILE *jf = open_memstream(&js, &jl);
    co_tc_fmt_json(jf, t, &res);
    fclose(jf);
    json_error_t jerr;
    json_t *root = json_loads(js, 0, &jerr);
    CHECK_MSG(root != NULL, "%s: %s", jerr.text, js);
    if (root) {
        const char *tp = strstr(out, "<TpmC>\n");
        double text_tpmc = tp ? strtod(tp + 7, NULL) : -1;
        CHECK(json_real_value(json_object_get(root, "tpmC")) == text_tpmc);
        CHECK(json_integer_value(json_object_get(root, "new_orders")) == 35);
        CHECK(json_integer_value(json_object_get(root, "window_s")) == 4);
        CHECK(json_integer_value(json_object_get(root, "warmup_s")) == 2);
        json_t *no = json_object_get(json_object_get(root, "transactions"), "new_order");
        CHECK(json_integer_value(json_object_get(no, "sc")) == 32);
        CHECK(json_integer_value(json_object_get(no, "lt")) == 3);
        CHECK(json_integer_value(json_object_get(no, "rt")) == 2);
        CHECK(json_integer_value(json_object_get(no, "fl")) == 1);
        CHECK(json_number_value(json_object_get(no, "p99_ms")) == 30.0);
        json_t *d = json_object_get(json_object_get(root, "transactions"), "delivery");
        CHECK(json_integer_value(json_object_get(d, "rt")) == 4);
        json_t *c = json_object_get(root, "constraints");
        CHECK(json_is_true(json_object_get(
            json_object_get(json_object_get(c, "transaction_percentage"), "payment"), "ok")));
        CHECK(json_is_false(json_object_get(
            json_object_get(json_object_get(c, "response_time"), "delivery"), "ok")));
        CHECK(json_is_false(json_object_get(c, "all_ok")));
        json_t *ag = json_object_get(root, "agents");
        CHECK(json_array_size(ag) == 2);
        CHECK(strcmp(json_string_value(json_object_get(json_array_get(ag, 1), "name")),
                     "agent-b") == 0);
        json_decref(root);
    }
    free(js);
    free(out);
    co_tc_fmt_destroy(&t);
    CHECK(t == NULL);
    co_result_clear(&res);
}

/* A STATS that comes after its interval was released counts in the
 * window's totals (and its agent's), not in the line already printed. */
static void test_late_stats(void)
{
    struct co_result res;
    co_tc_fmt *t = fmt_of(&res);
    struct cap c;
    FILE *f = cap_open(&c);
    for (uint64_t k = 0; k < NIVL; k++) {
        struct pr_msg_stats st;
        stats_of(&st, k, 0); /* agent 0 in time */
        co_tc_fmt_stats(t, 0, &st, false, IVL_MS);
        struct co_interval_result iv;
        struct co_kind_result kinds[NK];
        merged(&iv, k, kinds);
        /* the merged interval holds agent 0 only */
        for (int i = 0; i < NK; i++) {
            pr_hist_reset(kinds[i].lat);
            pr_hist_add(kinds[i].lat, kst[k][0][i].lat);
            kinds[i].count = kst[k][0][i].count;
            kinds[i].errors = kst[k][0][i].errors;
            kinds[i].late = kst[k][0][i].late;
        }
        co_tc_fmt_interval(t, f, &iv, IVL_MS);
        free_kinds(kinds);
        stats_of(&st, k, 1); /* agent 1 late: after the release */
        co_tc_fmt_stats(t, 1, &st, true, IVL_MS);
    }
    char *buf = cap_text(&c);
    /* line 1 has agent 0's New-Orders only: 5 + 1 + 12 = 18 */
    CHECK_MSG(strstr(buf, "   2, trx: 18, ") != NULL, "%s", buf);
    struct co_tc_txn_figures x;
    co_tc_fmt_figures(t, -1, PR_TC_NEW_ORDER, &x);
    CHECK_EQ_U64(x.sc + x.lt, 35);
    CHECK_EQ_U64(x.rt, 2);
    co_tc_fmt_figures(t, -1, PR_TC_DELIVERY, &x);
    CHECK_EQ_U64(x.rt, 4); /* agent 1's late statement errors */
    CHECK(co_tc_fmt_tpmc(t) == 525.0);
    free(buf);
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

/* A run that ends inside the window (an agent failed, an interrupt): the
 * final block still comes, STOPPING THREADS included, with a warning. */
static void test_early_end(void)
{
    struct co_result res;
    co_tc_fmt *t = fmt_of(&res);
    struct cap c;
    FILE *f = cap_open(&c);
    for (uint64_t k = 0; k < 4; k++) { /* up to the first line only */
        struct co_interval_result iv;
        struct co_kind_result kinds[NK];
        merged(&iv, k, kinds);
        co_tc_fmt_interval(t, f, &iv, IVL_MS);
        free_kinds(kinds);
    }
    co_tc_fmt_final(t, f, &res);
    char *buf = cap_text(&c);
    CHECK(strstr(buf, "   2, trx: 31, ") != NULL);
    CHECK(strstr(buf, "\n   4, trx:") == NULL);
    CHECK(strstr(buf, "\nSTOPPING THREADS...\n\n<Raw Results>\n") != NULL);
    CHECK(strstr(buf, "WARNING: the run ended after 1 of the window's 2 interval lines") != NULL);
    CHECK(strstr(buf, "                 465.000 TpmC\n") != NULL); /* 31 * 60 / 4 */
    free(buf);
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

static void test_window(void)
{
    struct co_tc_fmt_cfg c = {.time_s = 5, .interval_s = 2};
    CHECK(co_tc_fmt_window_s(&c) == 4);
    c.time_s = 20, c.interval_s = 10;
    CHECK(co_tc_fmt_window_s(&c) == 20);
    c.time_s = 29;
    CHECK(co_tc_fmt_window_s(&c) == 20);
    c.time_s = 3;
    CHECK(co_tc_fmt_window_s(&c) == 0);
    c.interval_s = 0;
    CHECK(co_tc_fmt_window_s(&c) == 3);
    /* An empty window: TpmC 0, not a division by zero. */
    struct co_result res;
    result(&res);
    struct co_tc_fmt_cfg cfg;
    cfg_of(&cfg);
    cfg.time_s = 1; /* < --report-interval */
    co_tc_fmt *t = co_tc_fmt_new(&cfg, &res);
    CHECK(co_tc_fmt_tpmc(t) == 0.0);
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

/* sc and lt are the agents' counts (pr_msg_kstat.late), not the
 * histogram's split: fl and rt beside them. */
static void test_limits(void)
{
    pr_hist *h = pr_hist_new();
    pr_hist_record(h, 79999, 2);
    pr_hist_record(h, 80000, 3);
    pr_hist_record(h, 80001, 1);
    struct co_tc_txn_figures f;
    co__tc_figures(0, 0, 4, h, &f);
    CHECK_EQ_U64(f.sc, 2);
    CHECK_EQ_U64(f.lt, 4);
    pr_hist_reset(h);
    pr_hist_record(h, 4999, 1);
    pr_hist_record(h, 5000, 1);
    co__tc_figures(3, 2, 1, h, &f);
    CHECK_EQ_U64(f.sc, 1);
    CHECK_EQ_U64(f.lt, 1);
    CHECK_EQ_U64(f.fl, 3);
    CHECK_EQ_U64(f.rt, 0);          /* fewer statement errors than failures: 0, not negative */
    co__tc_figures(0, 0, 9, h, &f); /* never more late than completions */
    CHECK(f.sc == 0 && f.lt == 2);
    pr_hist_destroy(&h);
}

/* A limit that is not a histogram bucket boundary (issue 30 §6): 17 ms,
 * in 16 µs buckets there, so 16995 (sc), 17000 and 17005 µs (lt) share the
 * bucket [16992, 17007]. Handed in as the agents send them (each
 * completion compared with the limit as it ended: late), sc + lt splits
 * exactly in the window, per agent, in <Raw Results>, <Raw Results2> and
 * the JSON. The histogram alone cannot: it put all 6 on one side. */
static void test_limit_off_boundary(void)
{
    struct co_result res;
    struct co_tc_fmt_cfg cfg;
    result(&res);
    cfg_of(&cfg);
    cfg.rt_limit_ms[PR_TC_NEW_ORDER] = 17;
    cfg.interval_s = 0; /* no interval lines: the final block only */
    co_tc_fmt *t = co_tc_fmt_new(&cfg, &res);
    struct pr_msg_kstat ks[NAG][NK];
    static const uint64_t us[NAG][3] = {{16995, 16995, 17005}, {17000, 17005, 17007}};
    for (int a = 0; a < NAG; a++)
        for (int i = 0; i < NK; i++)
            ks[a][i] = (struct pr_msg_kstat){.lat = pr_hist_new()};
    for (int a = 0; a < NAG; a++)
        for (int j = 0; j < 3; j++) {
            ks[a][PR_TC_K_NEW_ORDER].count++;
            ks[a][PR_TC_K_NEW_ORDER].late += us[a][j] >= 17000; /* the agent's count */
            pr_hist_record(ks[a][PR_TC_K_NEW_ORDER].lat, us[a][j], 1);
        }
    CHECK(pr_hist_lowest_equivalent(17000) == 16992 && pr_hist_highest_equivalent(17000) == 17007);
    struct co_kind_result kinds[NK];
    struct co_interval_result iv = {.k = 2, .kinds = kinds, .n_kinds = NK};
    for (int i = 0; i < NK; i++) {
        kinds[i] = (struct co_kind_result){.name = pr_tc_kind_name((enum pr_tc_kind)i),
                                           .lat = pr_hist_new()};
        for (int a = 0; a < NAG; a++) {
            struct pr_msg_stats st = {.k = 2, .kst = ks[a], .n_kst = NK};
            if (i == 0)
                co_tc_fmt_stats(t, (uint32_t)a, &st, false, IVL_MS);
            kinds[i].count += ks[a][i].count;
            kinds[i].late += ks[a][i].late;
            pr_hist_add(kinds[i].lat, ks[a][i].lat);
        }
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    co_tc_fmt_interval(t, f, &iv, IVL_MS);
    struct co_tc_txn_figures x;
    co_tc_fmt_figures(t, -1, PR_TC_NEW_ORDER, &x);
    CHECK_MSG(x.sc == 2 && x.lt == 4, "window: sc %" PRIu64 " lt %" PRIu64, x.sc, x.lt);
    co_tc_fmt_figures(t, 0, PR_TC_NEW_ORDER, &x);
    CHECK_MSG(x.sc == 2 && x.lt == 1, "agent 0: sc %" PRIu64 " lt %" PRIu64, x.sc, x.lt);
    co_tc_fmt_figures(t, 1, PR_TC_NEW_ORDER, &x);
    CHECK_MSG(x.sc == 0 && x.lt == 3, "agent 1: sc %" PRIu64 " lt %" PRIu64, x.sc, x.lt);
    co_tc_fmt_final(t, f, &res);
    co_tc_fmt_json(f, t, &res);
    fclose(f);
    CHECK_MSG(strstr(buf, "  [0] sc:2 lt:4  rt:0  fl:0 avg_rt: 17.0 (17)\n") != NULL, "%s", buf);
    CHECK_MSG(strstr(buf, "  [0] sc:2  lt:4  rt:0  fl:0 \n") != NULL, "%s", buf);
    CHECK_MSG(strstr(buf, "New-Order: 33.33%  [NG] *") != NULL, "%s", buf);
    CHECK_MSG(strstr(buf, "\"new_order\": {\"sc\": 2, \"lt\": 4, ") != NULL, "%s", buf);
    free(buf);
    for (int i = 0; i < NK; i++) {
        pr_hist_destroy(&kinds[i].lat);
        for (int a = 0; a < NAG; a++)
            pr_hist_destroy(&ks[a][i].lat);
    }
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

static void server(struct co_result *r, uint64_t commits, uint64_t rollbacks, bool with_rollback)
{
    r->server = pr_xcalloc(2, sizeof(*r->server));
    r->server[r->n_server++] =
        (struct co_server_delta){pr_xstrdup("Com_commit"), 100, 100 + commits};
    if (with_rollback)
        r->server[r->n_server++] =
            (struct co_server_delta){pr_xstrdup("Com_rollback"), 7, 7 + rollbacks};
}

static void test_server_check(void)
{
    struct co_result res;
    result(&res);
    res.kinds = pr_xcalloc(NK, sizeof(*res.kinds));
    for (int i = 0; i < NK; i++)
        res.kinds[i].name = res.kind_names[i];
    res.kinds[PR_TC_K_COMMIT].count = 1000;
    res.kinds[PR_TC_K_COMMIT].errors = 2;
    res.kinds[PR_TC_K_ROLLBACK].count = 10;
    res.kinds[PR_TC_K_RETRY_ROLLBACK].count = 5;
    res.kinds[PR_TC_K_NEW_ORDER].count = 400; /* not a COMMIT or ROLLBACK */
    res.kinds[PR_TC_K_NEW_ORDER_STMT].count = 9999;
    uint64_t client = 0, srv = 0;
    CHECK(!co_tc_fmt_server_check(&res, &client, &srv)); /* no counters */
    server(&res, 1002, 14, false);
    CHECK(!co_tc_fmt_server_check(&res, &client, &srv)); /* no Com_rollback */
    CHECK_EQ_U64(client, 1017);
    for (uint32_t i = 0; i < res.n_server; i++)
        free(res.server[i].name);
    free(res.server);
    res.server = NULL, res.n_server = 0;
    server(&res, 1002, 15, true);
    CHECK(co_tc_fmt_server_check(&res, &client, &srv));
    CHECK_EQ_U64(client, 1017);
    CHECK_EQ_U64(srv, 1017);
    co_result_clear(&res);
}

/* The family's hooks in the generic outputs: co_summary_totals takes its
 * formula, the stampede section says which, --json carries "tpcc" (and
 * the server's "formula") and stays valid JSON. */
static void test_hooks(void)
{
    struct co_result res;
    struct co_tc_fmt_cfg cfg;
    result(&res);
    for (int a = 0; a < NAG; a++) {
        res.agents[a].host = pr_xstrdup("h");
        res.agents[a].region = pr_xstrdup("");
        res.agents[a].reason = pr_xstrdup("");
        res.agents[a].lat = pr_hist_new();
    }
    res.kinds = pr_xcalloc(NK, sizeof(*res.kinds));
    for (int i = 0; i < NK; i++)
        res.kinds[i] = (struct co_kind_result){.name = res.kind_names[i], .lat = pr_hist_new()};
    res.kinds[PR_TC_K_COMMIT].count = 300;
    res.kinds[PR_TC_K_ROLLBACK].count = 3;
    res.total.reads = 5000; /* sysbench's formula would compare these */
    server(&res, 300, 3, true);
    cfg_of(&cfg);
    res.fam_summary = &co_tc_family_summary;
    res.fam_state = co_tc_fmt_new(&cfg, &res);
    char *out = run_fmt(res.fam_state); /* fills the window */
    free(out);
    co_summary_totals(&res);
    CHECK(res.server_checked);
    CHECK_EQ_U64(res.client_statements, 303);
    CHECK(res.server_match);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    co_summary_print_agents(f, &res);
    fclose(f);
    CHECK_MSG(strstr(buf, "statements:  client 303, server 303 (Com_commit+Com_rollback vs "
                          "commit+rollback+retry_rollback): match\n") != NULL,
              "%s", buf);
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(co_json_write(&res, f) == 0);
    fclose(f);
    json_error_t jerr;
    json_t *root = json_loads(buf, 0, &jerr);
    CHECK_MSG(root != NULL, "%s", jerr.text);
    json_t *tp = json_object_get(root, "tpcc");
    CHECK(json_number_value(json_object_get(tp, "tpmC")) == 525.0);
    CHECK(json_is_true(json_object_get(json_object_get(tp, "server_check"), "match")));
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(root, "server"), "formula")),
                 co_tc_family_summary.server_formula) == 0);
    json_decref(root);
    free(buf);
    co_result_clear(&res); /* frees the state through the family's destroy */
    CHECK(res.fam_state == NULL);
}

/* The report header from a command line (argc words): a new string, or
 * NULL when the line does not parse; cfg the config it gave. */
static char *header_of(int argc, char **argv, struct co_tc_fmt_cfg *cfg)
{
    struct co_args a;
    struct pr_error err = {0};
    int rc = co_args_parse(&a, argc, argv, NULL, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc != 0)
        return NULL;
    struct co_tc_optline *lines = NULL;
    co_tc_fmt_cfg_from_args(&a, cfg, &lines);
    co_tc_fmt *t = co_tc_fmt_new(cfg, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    co_tc_fmt_header(t, f);
    fclose(f);
    co_tc_fmt_destroy(&t);
    free(lines);
    co_args_clear(&a);
    return buf;
}

/* tpcc_start -3 1 (translated as --rt-limits=,,,1,): one limit line, for
 * the limit given, as tpcc_start echoes only the -0..-4 it got; the
 * others keep their defaults. */
static void test_header_some_limits(void)
{
    char *argv[] = {"stampede", "tpcc", "run", "--rt-limits=,,,1,"};
    struct co_tc_fmt_cfg cfg;
    char *buf = header_of((int)(sizeof(argv) / sizeof(argv[0])), argv, &cfg);
    if (buf == NULL)
        return;
    CHECK(cfg.rt_limit_ms[0] == 5 && cfg.rt_limit_ms[3] == 1 && cfg.rt_limit_ms[4] == 20);
    CHECK_MSG(strstr(buf, "option 3 (response time limit for transaction 3) '1'\n") != NULL,
              "got:\n%s", buf);
    CHECK_MSG(strstr(buf, "transaction 0") == NULL && strstr(buf, "transaction 4") == NULL,
              "got:\n%s", buf);
    free(buf);
}

/* The header from a parsed command line: tpcc_start's letters in the
 * order given, rt-limits as -0..-4, the password never shown. */
static void test_header_from_args(void)
{
    char *argv[] = {"stampede",
                    "tpcc",
                    "run",
                    "--mysql-host=10.0.0.5",
                    "--warehouses=7",
                    "--threads=16",
                    "--rt-limits=5,6,7,80,20",
                    "--mysql-password=Sekr1t",
                    "--warmup-time=30",
                    "--time=600",
                    "--mysql-db=tpcc7"};
    struct co_tc_fmt_cfg cfg;
    char *buf = header_of((int)(sizeof(argv) / sizeof(argv[0])), argv, &cfg);
    if (buf == NULL)
        return;
    const char *want = "option h with value '10.0.0.5'\n"
                       "option w with value '7'\n"
                       "option c with value '16'\n"
                       "option 0 (response time limit for transaction 0) '5'\n"
                       "option 1 (response time limit for transaction 1) '6'\n"
                       "option 2 (response time limit for transaction 2) '7'\n"
                       "option 3 (response time limit for transaction 3) '80'\n"
                       "option 4 (response time limit for transaction 4) '20'\n"
                       "option r with value '30'\n"
                       "option l with value '600'\n"
                       "option d with value 'tpcc7'\n"
                       "<Parameters>\n"
                       "     [server]: 10.0.0.5\n"
                       "     [port]: 3306\n"
                       "     [DBname]: tpcc7\n"
                       "       [user]: sbtest\n"
                       "       [pass]: *****\n"
                       "  [warehouse]: 7\n"
                       " [connection]: 16\n"
                       "     [rampup]: 30 (sec.)\n"
                       "    [measure]: 600 (sec.)\n";
    CHECK_MSG(strstr(buf, want) != NULL, "got:\n%s", buf);
    CHECK(strstr(buf, "Sekr1t") == NULL);
    free(buf);
}

/* The -f file's watermark: a record is written once every live agent with
 * connections has sent a later interval; a lost agent stops holding it
 * back; the end writes the rest. */
static void test_trx_watermark(void)
{
    char path[] = "/tmp/test_co_tc_fmt_trx.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    struct co_result res;
    struct co_tc_fmt_cfg cfg;
    result(&res);
    res.agents[0].threads = res.agents[1].threads = 1;
    cfg_of(&cfg);
    co_tc_fmt *t = co_tc_fmt_new(&cfg, &res);
    struct co_tc_trx_cfg tc = {path, NULL, cfg.warmup_s, cfg.time_s, cfg.interval_s};
    t->trx = co_tc_trx_new(&tc);
    CHECK(t->trx != NULL);
    struct pr_msg_trx r = {.kind = PR_TC_K_NEW_ORDER, .rt_us = 1000};
    struct pr_msg_stats st = {.trx = &r, .n_trx = 1};

    r.conn = 0, r.end_us = 500000, r.rt_us = 5000, st.k = 0; /* agent 0, interval 0 */
    co_tc_fmt_stats(t, 0, &st, false, IVL_MS);
    CHECK_EQ_U64(co_tc_trx_report_lines(t->trx), 0); /* agent 1 may still send earlier */
    r.conn = 1, r.end_us = 300000, r.rt_us = 3000;   /* agent 1, interval 0 */
    co_tc_fmt_stats(t, 1, &st, false, IVL_MS);
    CHECK_EQ_U64(co_tc_trx_report_lines(t->trx), 2); /* both before 1 s: written */
    r.conn = 0, r.end_us = 1200000, r.rt_us = 12000, st.k = 1;
    co_tc_fmt_stats(t, 0, &st, false, IVL_MS);
    CHECK_EQ_U64(co_tc_trx_held(t->trx), 1); /* agent 1 is at 1 s */
    res.agents[1].lost = true;
    r.conn = 0, r.end_us = 2100000, r.rt_us = 21000, st.k = 2;
    co_tc_fmt_stats(t, 0, &st, false, IVL_MS);
    CHECK_EQ_U64(co_tc_trx_report_lines(t->trx), 4); /* agent 1 lost: up to 3 s */
    st.trx_lost = 7;
    st.n_trx = 0;
    co_tc_fmt_stats(t, 0, &st, false, IVL_MS);
    CHECK_EQ_U64(t->trx_lost, 7);
    CHECK(co_tc_trx_destroy(&t->trx) == 0);
    FILE *f = fopen(path, "r");
    char buf[256] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    /* end order: 0.3 s (agent 1) before 0.5 s (agent 0) */
    CHECK_MSG(strcmp(buf, "0 3.000\n0 5.000\n0 12.000\n0 21.000\n") == 0, "%s", buf);
    unlink(path);
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

int main(void)
{
    build_stats();
    test_trx_watermark();
    test_timeline();
    test_late_stats();
    test_early_end();
    test_window();
    test_limits();
    test_limit_off_boundary();
    test_server_check();
    test_hooks();
    test_header_from_args();
    test_header_some_limits();
    free_stats();
    return TEST_END();
}
