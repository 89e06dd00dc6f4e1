/* test_co_merge: interval merging is exact, due rules, late and lost. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"
#include "co_kinds.h"
#include "co_kinds_res.h"
#include "co_merge.h"
#include "testlib.h"

#define SEC 1000000000ull

static struct pr_msg_stats stats(uint64_t k, uint64_t tx, uint64_t lat_us, uint64_t n)
{
    struct pr_msg_stats st = {.k = k};
    st.ctr.transactions = tx;
    st.ctr.reads = tx * 14;
    st.lat = pr_hist_new();
    for (uint64_t i = 0; i < n; i++)
        pr_hist_record(st.lat, lat_us + i, 1);
    return st;
}

/* Merged counters and histogram equal the pooled samples. */
static void test_exact(void)
{
    uint32_t threads[3] = {4, 4, 2};
    co_merge *m = co_merge_new(3, threads, 1000, true);
    pr_hist *pooled = pr_hist_new();
    bool late = true;

    for (uint32_t a = 0; a < 3; a++) {
        struct pr_msg_stats st = stats(0, 10 + a, 1000 * (a + 1), 500);
        pr_hist_add(pooled, st.lat);
        CHECK(co_merge_add(m, a, &st, &late) == 0);
        CHECK(!late);
        CHECK(co_merge_add(m, a, &st, &late) == PR_ERANGE); /* a resend is not counted */
        pr_hist_destroy(&st.lat);
    }
    const struct co_interval_result *iv = co_merge_get(m, 0);
    CHECK(iv != NULL);
    CHECK_EQ_U64(iv->ctr.transactions, 33);
    CHECK_EQ_U64(iv->ctr.reads, 33 * 14);
    CHECK_EQ_U64(iv->threads, 10);
    CHECK_EQ_U64(iv->agents_reporting, 3);
    CHECK(pr_hist_equal(iv->lat, pooled));
    pr_hist *scratch = pr_hist_new();
    CHECK(iv->agent_lat == NULL && iv->agent_lat_frozen != NULL); /* frozen as they come */
    const pr_hist *a1 = co_interval_agent_lat(iv, 1, scratch);
    CHECK(a1 != NULL && pr_hist_count(a1) == 500 && pr_hist_min(a1) == 2000);
    pr_hist_destroy(&scratch);
    CHECK_EQ_U64(pr_hist_value_at_percentile(iv->lat, 99.0),
                 pr_hist_value_at_percentile(pooled, 99.0));
    pr_hist_destroy(&pooled);
    co_merge_destroy(&m);
}

/* Due when all live agents reported, or at boundary + grace; late after. */
static void test_due_late_lost(void)
{
    co_merge *m = co_merge_new(2, NULL, 1000, false);
    uint64_t k = 99;
    bool early = true, late = false;

    struct pr_msg_stats a0 = stats(0, 5, 100, 10), b0 = stats(0, 7, 100, 10);
    CHECK(co_merge_add(m, 0, &a0, &late) == 0);
    CHECK(!co_merge_due(m, SEC + 1000, SEC / 2, &k, &early)); /* waiting for agent 1 */
    CHECK(co_merge_due(m, SEC + SEC / 2, SEC / 2, &k, &early) && k == 0 && !early);
    co_merge_close(m, 0, true, 1.0);
    CHECK(co_merge_add(m, 1, &b0, &late) == 0 && late); /* after its line: late */
    CHECK(co_merge_get(m, 0)->late);
    CHECK_EQ_U64(co_merge_get(m, 0)->ctr.transactions, 12); /* still merged */
    CHECK_EQ_U64(co_merge_agent_late(m, 1), 1);
    CHECK(co_merge_get(m, 0)->agent_lat_frozen == NULL); /* not kept without hdr-log */
    CHECK(co_interval_agent_lat(co_merge_get(m, 0), 0, NULL) == NULL);

    /* Agent 1 lost: interval 1 is due with agent 0 alone, and partial. */
    struct pr_msg_stats a1 = stats(1, 3, 100, 10);
    CHECK(co_merge_add(m, 0, &a1, &late) == 0);
    CHECK(!co_merge_due(m, 2 * SEC, SEC / 2, &k, &early));
    co_merge_agent_lost(m, 1);
    CHECK_EQ_U64(co_merge_live(m), 1);
    CHECK(co_merge_due(m, 2 * SEC, SEC / 2, &k, &early) && k == 1 && !early);
    co_merge_close(m, 1, true, 1.0);
    CHECK(co_merge_get(m, 1)->partial);

    /* A report before its boundary is a tail (the agents stopped early). */
    struct pr_msg_stats a2 = stats(2, 1, 100, 1);
    CHECK(co_merge_add(m, 0, &a2, &late) == 0);
    CHECK(co_merge_due(m, 2 * SEC + SEC / 4, SEC / 2, &k, &early) && k == 2 && early);
    CHECK(co_merge_add(m, 0, &(struct pr_msg_stats){.k = CO_MERGE_MAX_INTERVALS, .lat = a2.lat},
                       &late) == PR_ERANGE);

    struct co_interval_result *ivs = NULL;
    uint32_t n = 0;
    co_merge_take(m, &ivs, &n);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_U64(ivs[1].ctr.transactions, 3);
    struct co_result r = {.intervals = ivs, .n_intervals = n, .n_agents = 2};
    co_result_clear(&r);
    pr_hist_destroy(&a0.lat);
    pr_hist_destroy(&b0.lat);
    pr_hist_destroy(&a1.lat);
    pr_hist_destroy(&a2.lat);
    co_merge_destroy(&m);
}

/* Old intervals are frozen, KEEP_EXPANDED recent ones are not; a STATS late
 * by many intervals still merges exactly; writers read either form. */
static void test_frozen(void)
{
    enum { N = 20, LATE_K = 2 };
    co_merge *m = co_merge_new(2, NULL, 1000, true);
    pr_hist *pooled[N], *scratch = pr_hist_new();
    struct pr_msg_stats held = {0};
    uint64_t k;
    bool late, early;

    for (uint64_t i = 0; i < N; i++) {
        pooled[i] = pr_hist_new();
        for (uint32_t a = 0; a < 2; a++) {
            struct pr_msg_stats st = stats(i, 1, 100 * (i + 1) + 7 * a, 50 + 10 * a);
            pr_hist_add(pooled[i], st.lat);
            if (a == 1 && i == LATE_K) {
                held = st; /* agent 1's STATS(LATE_K) comes at the end */
                continue;
            }
            CHECK(co_merge_add(m, a, &st, &late) == 0 && !late);
            pr_hist_destroy(&st.lat);
        }
        CHECK(co_merge_due(m, (i + 2) * SEC, SEC / 2, &k, &early) && k == i);
        co_merge_close(m, i, true, 1.0);
    }
    for (uint64_t i = 0; i < N; i++) {
        const struct co_interval_result *iv = co_merge_get(m, i);
        bool old = i + CO_MERGE_KEEP_EXPANDED < N;
        CHECK_MSG((iv->lat == NULL) == old && (iv->lat_frozen != NULL) == old, "k %" PRIu64, i);
        if (i != LATE_K)
            CHECK(pr_hist_equal(co_interval_lat(iv, scratch), pooled[i]));
    }
    CHECK(co_merge_add(m, 1, &held, &late) == 0 && late);
    const struct co_interval_result *iv = co_merge_get(m, LATE_K);
    CHECK(iv->lat == NULL && iv->late); /* still frozen, now with it */
    CHECK(pr_hist_equal(co_interval_lat(iv, scratch), pooled[LATE_K]));
    CHECK(pr_hist_equal(co_interval_agent_lat(iv, 1, scratch), held.lat));

    struct co_interval_result *ivs = NULL;
    uint32_t n = 0;
    co_merge_take(m, &ivs, &n);
    CHECK_EQ_U64(n, N);
    for (uint32_t i = 0; i < n; i++)
        CHECK(pr_hist_equal(co_interval_lat(&ivs[i], scratch), pooled[i]));
    struct co_interval_result none = {0}; /* nothing at all: empty */
    CHECK(co_interval_lat(&none, scratch) == scratch && pr_hist_count(scratch) == 0);
    struct co_result r = {.intervals = ivs, .n_intervals = n, .n_agents = 2};
    co_result_clear(&r);
    for (int i = 0; i < N; i++)
        pr_hist_destroy(&pooled[i]);
    pr_hist_destroy(&held.lat);
    pr_hist_destroy(&scratch);
    co_merge_destroy(&m);
}

/* The last line of text (without its newline) in buf, copied into out. */
static void last_line(const char *buf, char *out, size_t out_len)
{
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    size_t b = n;
    while (b > 0 && buf[b - 1] != '\n')
        b--;
    snprintf(out, out_len, "%.*s", (int)(n - b), buf + b);
}

/* What one writer made of r, as a string (the caller's). */
static char *written(int (*fn)(const struct co_result *, FILE *), const struct co_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL && fn(r, f) == 0);
    fclose(f);
    return buf;
}

static int hdrout(const struct co_result *r, FILE *f)
{
    return co_hdrout_write(r, 1700000000000ull, f);
}

/* A run that ended at 30.07 s with 5 s intervals: the tail (k = 6) ends at
 * 30.07, not at its boundary 35, in the merge and in JSON, CSV and the
 * HdrHistogram log alike; a tail closed early gets the run's end too. */
static void test_tail_time(void)
{
    co_merge *m = co_merge_new(1, (uint32_t[]){2}, 5000, true);
    bool late = false;

    for (uint64_t k = 0; k <= 6; k++) {
        struct pr_msg_stats st = stats(k, 10, 1000, 10);
        CHECK(co_merge_add(m, 0, &st, &late) == 0);
        pr_hist_destroy(&st.lat);
        if (k < 6)
            co_merge_close(m, k, true, 5.0);
    }
    /* Closed early, at 30.02 s, before the last DONE (30.07 s) came. */
    co_merge_close(m, 6, false, 0.02);
    CHECK(fabs(co_merge_get(m, 6)->t_s - 30.02) < 1e-9);
    co_merge_end(m, 30070000000ull);
    const struct co_interval_result *tail = co_merge_get(m, 6), *full = co_merge_get(m, 5);
    CHECK(fabs(tail->t_s - 30.07) < 1e-9);
    CHECK(fabs(tail->len_s - 0.07) < 1e-9);
    CHECK(fabs(full->t_s - 30.0) < 1e-9 && fabs(full->len_s - 5.0) < 1e-9); /* printed: kept */

    struct co_result r = {.version = pr_xstrdup("0"),
                          .workload = pr_xstrdup("oltp_read_only"),
                          .command = pr_xstrdup("run"),
                          .n_agents = 1};
    r.agents = pr_xcalloc(1, sizeof(*r.agents));
    r.agents[0].name = pr_xstrdup("a0");
    co_merge_take(m, &r.intervals, &r.n_intervals);
    CHECK_EQ_U64(r.n_intervals, 7);

    char line[4096], *buf = written(hdrout, &r);
    last_line(buf, line, sizeof(line));
    CHECK(strncmp(line, "Tag=a0,30.000,0.070,", 20) == 0);
    CHECK(strstr(buf, "\n30.000,0.070,") != NULL); /* the merged line */
    CHECK(strstr(buf, "34.9") == NULL && strstr(buf, ",35.000,") == NULL);
    free(buf);

    buf = written(co_csv_write, &r);
    last_line(buf, line, sizeof(line));
    CHECK(strncmp(line, "30.07,0.07,", 11) == 0);
    free(buf);

    buf = written(co_json_write, &r);
    CHECK(strstr(buf, "\"k\": 6, \"t_s\": 30.07, \"len_s\": 0.07,") != NULL);
    CHECK(strstr(buf, "\"t_s\": 35") == NULL);
    free(buf);
    co_result_clear(&r);
    co_merge_destroy(&m);

    /* An early tail inside interval 1 of a run that ended at 7.5 s. */
    m = co_merge_new(1, NULL, 5000, false);
    for (uint64_t k = 0; k <= 1; k++) {
        struct pr_msg_stats st = stats(k, 1, 100, 1);
        CHECK(co_merge_add(m, 0, &st, &late) == 0);
        pr_hist_destroy(&st.lat);
    }
    co_merge_close(m, 0, true, 5.0);
    co_merge_close(m, 1, false, 2.2);
    co_merge_end(m, 7500000000ull);
    CHECK(fabs(co_merge_get(m, 1)->t_s - 7.5) < 1e-9);
    CHECK(fabs(co_merge_get(m, 1)->len_s - 2.5) < 1e-9);
    co_merge_destroy(&m);
}

/* Rate mode's service time (issue 9 item 6) merges like the latency:
 * pooled exactly, absent when no STATS had one, frozen with the latency,
 * and a STATS arriving after its interval was frozen still adds in. */
static void test_service(void)
{
    enum { N = 8, LATE_K = 1 };
    co_merge *m = co_merge_new(2, NULL, 1000, false);
    pr_hist *pooled[N], *scratch = pr_hist_new();
    struct pr_msg_stats held = {0};
    uint64_t k;
    bool late, early;

    struct pr_msg_stats closed = stats(N, 1, 100, 10); /* closed loop: no svc */
    CHECK(co_merge_add(m, 0, &closed, &late) == 0);
    CHECK(co_interval_svc(co_merge_get(m, N), scratch) == NULL);
    pr_hist_destroy(&closed.lat);
    for (uint64_t i = 0; i < N; i++) {
        pooled[i] = pr_hist_new();
        for (uint32_t a = 0; a < 2; a++) {
            struct pr_msg_stats st = stats(i, 5, 2000, 40);
            st.svc = pr_hist_new();
            for (uint64_t j = 0; j < 40; j++)
                pr_hist_record(st.svc, 100 * (a + 1) + 3 * i + j, 1);
            pr_hist_add(pooled[i], st.svc);
            if (a == 1 && i == LATE_K) {
                held = st;
                continue;
            }
            CHECK(co_merge_add(m, a, &st, &late) == 0);
            pr_hist_destroy(&st.lat);
            pr_hist_destroy(&st.svc);
        }
        CHECK(co_merge_due(m, (i + 2) * SEC, SEC / 2, &k, &early) && k == i);
        co_merge_close(m, i, true, 1.0);
    }
    for (uint64_t i = 0; i < N; i++) {
        const struct co_interval_result *iv = co_merge_get(m, i);
        bool old = i + CO_MERGE_KEEP_EXPANDED < N;
        CHECK_MSG((iv->svc == NULL) == old && (iv->svc_frozen != NULL) == old, "k %" PRIu64, i);
        const pr_hist *got = co_interval_svc(iv, scratch);
        CHECK(got != NULL);
        if (i != LATE_K && got != NULL) {
            CHECK(pr_hist_equal(got, pooled[i]));
            uint64_t svc_p50 = pr_hist_value_at_percentile(got, 50);
            CHECK(svc_p50 < pr_hist_min(co_interval_lat(iv, scratch))); /* scratch reused */
        }
    }
    CHECK(co_merge_add(m, 1, &held, &late) == 0 && late);
    const struct co_interval_result *iv = co_merge_get(m, LATE_K);
    CHECK(iv->svc == NULL && pr_hist_equal(co_interval_svc(iv, scratch), pooled[LATE_K]));
    for (int i = 0; i < N; i++)
        pr_hist_destroy(&pooled[i]);
    pr_hist_destroy(&held.lat);
    pr_hist_destroy(&held.svc);
    pr_hist_destroy(&scratch);
    co_merge_destroy(&m);
}

/* Release (runs of any length): an interval is final once closed and
 * complete, or CO_MERGE_KEEP_EXPANDED intervals later; a tail only at the
 * end; a late STATS for a released interval is counted late; thousands of
 * intervals leave only the live window's slots. */
static void test_release(void)
{
    co_merge *m = co_merge_new(2, NULL, 1000, false);
    uint64_t k = 99;
    bool late = false, early = false;
    for (uint64_t i = 0; i < 5000; i++) {
        for (uint32_t a = 0; a < 2; a++) {
            struct pr_msg_stats st = stats(i, 1, 100, 1);
            CHECK(co_merge_add(m, a, &st, &late) == 0 && !late);
            pr_hist_destroy(&st.lat);
        }
        CHECK(co_merge_due(m, i * SEC, 0, &k, &early) && k == i);
        co_merge_close(m, i, true, 1.0);
        CHECK(co_merge_next_final(m, false, &k) && k == i);
        co_merge_release(m, k);
        CHECK(co_merge_is_released(m, i) && co_merge_get(m, i) == NULL);
    }
    CHECK(!co_merge_next_final(m, true, &k));
    CHECK_EQ_U64(co_merge_count(m), 5000);
    /* A STATS for a released interval: counted, late. */
    struct pr_msg_stats st = stats(10, 1, 100, 1);
    CHECK(co_merge_add(m, 0, &st, &late) == 0 && late);
    CHECK_EQ_U64(co_merge_agent_intervals(m, 0), 5001);
    CHECK_EQ_U64(co_merge_agent_late(m, 0), 1);
    pr_hist_destroy(&st.lat);
    /* Interval 5000 closed with agent 1 missing: not final until 3 more
     * closed; 5001..5003 complete behind it wait for it. */
    for (uint64_t i = 5000; i < 5004; i++) {
        for (uint32_t a = 0; a < 2; a++) {
            if (i == 5000 && a == 1)
                continue;
            struct pr_msg_stats s2 = stats(i, 1, 100, 1);
            co_merge_add(m, a, &s2, &late);
            pr_hist_destroy(&s2.lat);
        }
        co_merge_close(m, i, true, 1.0);
        bool fin = co_merge_next_final(m, false, &k);
        CHECK_MSG(fin == (i == 5003) && (!fin || k == 5000), "interval %llu: final %d k %llu",
                  (unsigned long long)i, fin, (unsigned long long)k);
    }
    co_merge_release(m, 5000);
    /* A tail (closed, not printed) waits for the end. */
    CHECK(co_merge_next_final(m, false, &k) && k == 5001);
    co_merge_release(m, 5001);
    co_merge_release(m, 5003); /* out of order: ignored */
    CHECK(co_merge_is_released(m, 5001) && !co_merge_is_released(m, 5003));
    struct pr_msg_stats t = stats(5004, 1, 100, 1);
    co_merge_add(m, 0, &t, &late);
    co_merge_add(m, 1, &t, &late);
    pr_hist_destroy(&t.lat);
    co_merge_close(m, 5004, false, 0.5);
    CHECK(co_merge_next_final(m, false, &k) && k == 5002);
    co_merge_release(m, 5002);
    co_merge_release(m, 5003);
    CHECK(!co_merge_next_final(m, false, &k));
    CHECK(co_merge_next_final(m, true, &k) && k == 5004);
    struct co_interval_result *ivs = NULL;
    uint32_t n = 0;
    co_merge_take(m, &ivs, &n); /* only the unreleased one */
    CHECK(n == 1 && ivs[0].k == 5004 && ivs[0].ctr.transactions == 2);
    struct co_result res = {.intervals = ivs, .n_intervals = n, .n_agents = 2};
    co_result_clear(&res);
    co_merge_destroy(&m);
}

/* Per-kind figures merge exactly, by index, named from READY's list; a
 * kind's histogram freezes with the interval's and a late STATS for an old
 * interval still lands in it; the pooled percentiles are the merged ones. */
static void test_kinds(void)
{
    enum { NK = 3, N = 8 };
    char *names[NK] = {(char *)"point_selects", (char *)"begin", (char *)"commit"};
    co_merge *m = co_merge_new(2, NULL, 1000, false);
    pr_hist *pooled[NK], *scratch = pr_hist_new();
    uint64_t k;
    bool late, early;

    co_merge_set_kinds(m, names, NK);
    for (int i = 0; i < NK; i++)
        pooled[i] = pr_hist_new();
    for (uint64_t iv = 0; iv < N; iv++) {
        for (uint32_t a = 0; a < 2; a++) {
            struct pr_msg_stats st = stats(iv, 1, 100, 10);
            struct pr_msg_kstat kst[NK];
            memset(kst, 0, sizeof(kst));
            for (int i = 0; i < NK; i++) {
                kst[i].count = 10 * (uint64_t)(i + 1) + a;
                kst[i].errors = (uint64_t)i * a;
                kst[i].lat = pr_hist_new();
                for (uint64_t v = 0; v < kst[i].count; v++)
                    pr_hist_record(kst[i].lat, 50 + 37 * v * (uint64_t)(i + 1) + 1000 * a, 1);
                if (iv == 0)
                    pr_hist_add(pooled[i], kst[i].lat);
            }
            st.kst = kst;
            st.n_kst = NK;
            if (!(iv == 0 && a == 1)) /* agent 1's STATS(0) comes last, late */
                CHECK(co_merge_add(m, a, &st, &late) == 0 && !late);
            else
                st.kst = NULL;
            if (iv == N - 1 && a == 1) {
                struct pr_msg_stats late0 = stats(0, 1, 100, 10);
                for (int i = 0; i < NK; i++) { /* the same figures as above */
                    kst[i].count = 10 * (uint64_t)(i + 1) + 1;
                    kst[i].errors = (uint64_t)i;
                    pr_hist_reset(kst[i].lat);
                    for (uint64_t v = 0; v < kst[i].count; v++)
                        pr_hist_record(kst[i].lat, 50 + 37 * v * (uint64_t)(i + 1) + 1000, 1);
                }
                late0.kst = kst;
                late0.n_kst = NK;
                int lrc = co_merge_add(m, 1, &late0, &late);
                CHECK_MSG(lrc == 0 && late, "rc %d late %d", lrc, late);
                pr_hist_destroy(&late0.lat);
            }
            for (int i = 0; i < NK; i++)
                pr_hist_destroy(&kst[i].lat);
            pr_hist_destroy(&st.lat);
        }
        if (co_merge_due(m, (iv + 2) * SEC, SEC / 2, &k, &early))
            co_merge_close(m, k, true, 1.0);
    }
    const struct co_interval_result *iv0 = co_merge_get(m, 0);
    CHECK(iv0 != NULL && iv0->n_kinds == NK && iv0->kinds[0].lat == NULL); /* frozen */
    for (int i = 0; i < NK; i++) {
        const struct co_kind_result *kr = &iv0->kinds[i];
        CHECK(kr->name != NULL && strcmp(kr->name, names[i]) == 0);
        CHECK_EQ_U64(kr->count, 20 * (uint64_t)(i + 1) + 1);
        CHECK_EQ_U64(kr->errors, (uint64_t)i);
        const pr_hist *h = co_kind_lat(kr, scratch);
        CHECK(pr_hist_equal(h, pooled[i]));
        CHECK_EQ_U64(pr_hist_value_at_percentile(h, 99.0),
                     pr_hist_value_at_percentile(pooled[i], 99.0));
        pr_hist_destroy(&pooled[i]);
    }
    const struct co_interval_result *ivl = co_merge_get(m, N - 1);
    CHECK(ivl != NULL && ivl->kinds != NULL && ivl->kinds[2].lat != NULL); /* still open */
    CHECK_EQ_U64(ivl->kinds[2].count, 61);
    /* the run's sums: every STATS once, agent 1's late STATS(0) included
     * (it arrived after interval 0 froze: added on its own) */
    struct co_kind_result *run = NULL;
    uint32_t n_run = 0;
    co_merge_take_run_kinds(m, &run, &n_run);
    CHECK(run != NULL && n_run == NK);
    for (uint32_t i = 0; run != NULL && i < n_run; i++) {
        uint64_t want = N * (20 * (uint64_t)(i + 1) + 1);
        CHECK_MSG(run[i].count == want && pr_hist_count(run[i].lat) == want &&
                      run[i].errors == N * (uint64_t)i,
                  "run kind %u: count %" PRIu64 ", %" PRIu64 " samples, want %" PRIu64, i,
                  run[i].count, run[i].lat ? pr_hist_count(run[i].lat) : 0, want);
    }
    co_kinds_free(&run, &n_run);
    pr_hist_destroy(&scratch);
    co_merge_destroy(&m);
}

/* STATS(k) of agent a with NK kinds, through the wire (encoded, decoded:
 * its kinds frozen, as co_run hands them over) into *out; pooled[i] +=
 * kind i's samples, *cnt / *err_sum its counts. */
enum { RK_NK = 2 };
static void wire_stats(uint64_t k, uint32_t a, struct pr_msg *out, pr_hist **pooled, uint64_t *cnt,
                       uint64_t *err_sum)
{
    struct pr_msg m;
    struct pr_msg_kstat kst[RK_NK];
    msgpack_sbuffer sb;
    memset(kst, 0, sizeof(kst));
    pr_msg_init(&m, PR_MSG_STATS, "run-rk", 1 + k);
    m.u.stats = stats(k, 3, 200, 5);
    for (int i = 0; i < RK_NK; i++) {
        kst[i].count = 5 + k + a + (uint64_t)i;
        kst[i].errors = a + (uint64_t)i;
        kst[i].lat = pr_hist_new();
        for (uint64_t v = 0; v < kst[i].count; v++)
            pr_hist_record(kst[i].lat, 100 + 997 * v * (a + 1) + 31 * k + 7000 * (uint64_t)i, 1);
        pr_hist_add(pooled[i], kst[i].lat);
        cnt[i] += kst[i].count;
        err_sum[i] += kst[i].errors;
    }
    m.u.stats.kst = kst;
    m.u.stats.n_kst = RK_NK;
    msgpack_sbuffer_init(&sb);
    CHECK(pr_msg_encode(&m, &sb, NULL) == 0);
    CHECK(pr_msg_decode(out, sb.data, sb.size, NULL) == 0);
    CHECK(out->u.stats.kst != NULL && out->u.stats.kst[0].lat_frozen != NULL);
    msgpack_sbuffer_destroy(&sb);
    for (int i = 0; i < RK_NK; i++)
        pr_hist_destroy(&kst[i].lat);
    pr_hist_destroy(&m.u.stats.lat);
}

/* k[0..RK_NK) equal count / errors / the pooled samples. */
static void check_kinds(const char *what, const struct co_kind_result *k, uint32_t n,
                        pr_hist **pooled, const uint64_t *cnt, const uint64_t *err_sum)
{
    pr_hist *scratch = pr_hist_new();
    CHECK_MSG(k != NULL && n == RK_NK, "%s: %u kinds", what, n);
    for (uint32_t i = 0; k != NULL && i < n && i < RK_NK; i++) {
        const pr_hist *h = co_kind_lat(&k[i], scratch);
        CHECK_MSG(k[i].count == cnt[i] && k[i].errors == err_sum[i],
                  "%s: kind %u count %" PRIu64 " (want %" PRIu64 "), errors %" PRIu64
                  " (want %" PRIu64 ")",
                  what, i, k[i].count, cnt[i], k[i].errors, err_sum[i]);
        CHECK_MSG(h != NULL && pr_hist_equal(h, pooled[i]),
                  "%s: kind %u: %" PRIu64 " samples, p99 %" PRIu64 "; pooled %" PRIu64
                  ", p99 %" PRIu64,
                  what, i, h ? pr_hist_count(h) : 0, h ? pr_hist_value_at_percentile(h, 99) : 0,
                  pr_hist_count(pooled[i]), pr_hist_value_at_percentile(pooled[i], 99));
    }
    pr_hist_destroy(&scratch);
}

/* A lost agent's per-kind figures up to its loss stay in the run's
 * totals: co_merge sums every STATS.kst it accepts (a late one for a
 * released interval too, a duplicate never), and co_kinds_res_finish takes
 * that sum when an agent sent no DONE; with every DONE in, the DONE sums
 * stay. */
static void test_run_kinds_lost(void)
{
    char *names[RK_NK] = {(char *)"point_selects", (char *)"commit"};
    pr_hist *pooled[RK_NK], *done_pooled[RK_NK];
    uint64_t cnt[RK_NK] = {0}, errs[RK_NK] = {0}, dcnt[RK_NK] = {0}, derrs[RK_NK] = {0};
    co_merge *m = co_merge_new(2, NULL, 1000, false);
    struct pr_msg out;
    bool late, early;
    uint64_t k;

    co_merge_set_kinds(m, names, RK_NK);
    for (int i = 0; i < RK_NK; i++) {
        pooled[i] = pr_hist_new();
        done_pooled[i] = pr_hist_new();
    }
    for (uint64_t iv = 0; iv < 4; iv++) {
        for (uint32_t a = 0; a < 2; a++) {
            if (a == 1 && iv >= 2)
                continue; /* agent 1 is lost after its STATS(1) */
            wire_stats(iv, a, &out, pooled, cnt, errs);
            if (a == 0) { /* agent 0's DONE.kst: the sum of its STATS */
                for (int i = 0; i < RK_NK; i++) {
                    pr_hist_add_frozen(done_pooled[i], out.u.stats.kst[i].lat_frozen);
                    dcnt[i] += out.u.stats.kst[i].count;
                    derrs[i] += out.u.stats.kst[i].errors;
                }
            }
            CHECK(co_merge_add(m, a, &out.u.stats, &late) == 0);
            if (iv == 1 && a == 0) /* a duplicate is refused, never summed */
                CHECK(co_merge_add(m, a, &out.u.stats, &late) == PR_ERANGE);
            pr_msg_clear(&out);
        }
        if (iv == 1)
            co_merge_agent_lost(m, 1);
        if (co_merge_due(m, (iv + 2) * SEC, SEC / 2, &k, &early))
            co_merge_close(m, k, true, 1.0);
        if (co_merge_next_final(m, false, &k))
            co_merge_release(m, k);
    }
    CHECK(co_merge_is_released(m, 0));
    /* a STATS of agent 1's for interval 0, arriving after it was written
     * out: late, its kinds summed all the same */
    wire_stats(0, 1, &out, pooled, cnt, errs);
    out.u.stats.k = 0;
    CHECK(co_merge_add(m, 1, &out.u.stats, &late) == 0 && late);
    pr_msg_clear(&out);

    struct co_kind_result *run = NULL;
    uint32_t n_run = 0;
    co_merge_take_run_kinds(m, &run, &n_run);
    check_kinds("co_merge's run sums", run, n_run, pooled, cnt, errs);

    /* the run's end: agent 0 sent DONE, agent 1 did not */
    struct co_agent_result agents[2] = {{.done = true}, {.done = false}};
    struct co_result res = {.agents = agents, .n_agents = 2, .kind_names = names, .n_kinds = RK_NK};
    struct pr_msg_kstat dk[RK_NK];
    memset(dk, 0, sizeof(dk));
    for (int i = 0; i < RK_NK; i++)
        dk[i] = (struct pr_msg_kstat){.count = dcnt[i], .errors = derrs[i], .lat = done_pooled[i]};
    struct pr_msg_done d = {.kst = dk, .n_kst = RK_NK};
    co_kinds_res_done(&res, &d);
    check_kinds("DONE sums alone", res.kinds, res.n_kinds, done_pooled, dcnt, derrs);
    co_kinds_res_finish(&res, &run, &n_run);
    CHECK(run == NULL && n_run == 0);
    check_kinds("totals with the lost agent", res.kinds, res.n_kinds, pooled, cnt, errs);
    CHECK(res.kinds != NULL && res.kinds[1].name != NULL &&
          strcmp(res.kinds[1].name, "commit") == 0);

    /* every agent done: the DONE sums stay */
    uint32_t n = res.n_kinds;
    co_kinds_free(&res.kinds, &n);
    co_kinds_res_done(&res, &d);
    agents[1].done = true;
    co_merge_take_run_kinds(m, &run, &n_run); /* taken already: none */
    CHECK(run == NULL);
    struct co_kind_result *again = pr_xcalloc(RK_NK, sizeof(*again));
    uint32_t n_again = RK_NK;
    for (int i = 0; i < RK_NK; i++)
        again[i].lat = pr_hist_new();
    co_kinds_res_finish(&res, &again, &n_again);
    CHECK(again == NULL);
    check_kinds("every DONE in", res.kinds, res.n_kinds, done_pooled, dcnt, derrs);
    n = res.n_kinds;
    co_kinds_free(&res.kinds, &n);
    for (int i = 0; i < RK_NK; i++) {
        pr_hist_destroy(&pooled[i]);
        pr_hist_destroy(&done_pooled[i]);
    }
    co_merge_destroy(&m);
}

int main(void)
{
    test_release();
    test_kinds();
    test_run_kinds_lost();
    test_tail_time();
    test_exact();
    test_service();
    test_due_late_lost();
    test_frozen();
    return TEST_END();
}
