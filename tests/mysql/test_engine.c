/* test_engine: the execution engine (ag_conn, ag_worker, ag_engine) against a
 * real MariaDB (STAMPEDE_TEST_MYSQL_*; exit 77 without): what a run counts
 * (statements, events, intervals, arrivals) against the server's counters.
 * Connections, errors and recovery are test_engine_conn's.
 *
 * Usage: test_engine [case]   (no case: all). Cases:
 *   counts    each workload ~2 s, PS and text mode: the engine's statement
 *             counts equal the server's SHOW GLOBAL STATUS deltas exactly
 *   events    --events is an exact budget across workers
 *   intervals the sum of interval stats equals the totals
 *   rate      open loop: arrivals, latency and service histograms
 *   ratemode  --rate-mode: uniform arrivals are evenly spaced, Poisson not
 *   bulk      bulk_insert: every appended row reaches the server (final flush)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <uv.h>

#include "ag_engine.h"
#include "ag_engine_test.h"
#include "ag_sb_family.h"
#include "ag_sb_load.h"
#include "ag_sb_workload.h"
#include "engine_fix.h"
#include "tdb.h"
#include "testlib.h"

static void case_counts(void)
{
    static const char *const names[] = {
        "oltp_read_write",      "oltp_read_only",        "oltp_write_only", "oltp_point_select",
        "oltp_update_index",    "oltp_update_non_index", "oltp_delete",     "oltp_insert",
        "select_random_points", "select_random_ranges",
    };
    static const char *const modes[] = {"auto", "disable"};

    for (size_t m = 0; m < 2; m++) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (strcmp(names[i], "oltp_delete") == 0 || strcmp(names[i], "oltp_insert") == 0)
                prepare_tables(); /* they drain / grow the tables */
            ag_sb_workload *wl = wl_make(names[i], modes[m], NULL, NULL);
            struct ag_engine_config cfg;
            struct run_result r;
            cfg_init(&cfg, wl, 4);
            cfg.time_ms = 2000;
            run_engine(&cfg, 500, NULL, &r);
            print_run(names[i], modes[m], &r);
            check_counts(names[i], m == 0, &r);
            CHECK(memcmp(&r.ivl_sum, &r.tot.ctr, sizeof r.ivl_sum) == 0);
            CHECK(pr_hist_equal(r.ivl_lat, r.tot.lat));
            run_free(&r);
            ag_sb_workload_destroy(&wl);
        }
    }
    prepare_tables();
}

static void case_events(void)
{
    ag_sb_workload *wl = wl_make("oltp_read_write", "auto", NULL, NULL);
    struct ag_engine_config cfg;
    struct run_result r;

    cfg_init(&cfg, wl, 8);
    cfg.workers = 3;
    cfg.events = 777;
    run_engine(&cfg, 1000, NULL, &r);
    print_run("events=777", "auto", &r);
    CHECK_EQ_U64(r.tot.ctr.transactions, 777);
    check_counts("oltp_read_write", true, &r);
    CHECK_EQ_U64(r.srv.Com_commit, 777);
    run_free(&r);
    ag_sb_workload_destroy(&wl);
}

#define INTERVALS_MIN 10

/* Stop the run once INTERVALS_MIN intervals were collected. */
static void stop_after_intervals(ag_engine *e, int k)
{
    if (k + 1 >= INTERVALS_MIN)
        ag_engine_stop(e, false);
}

/* The same, and the collect after the third loses one worker's interval
 * (ag__engine_test_lose_interval), as a lost STATS would. */
static void lose_one_interval(ag_engine *e, int k)
{
    if (k == 2)
        ag__engine_test_lose_interval(e);
    stop_after_intervals(e, k);
}

/* The collect after the third loses the first worker's interval inside
 * the worker (ag__engine_test_lose_in_worker). */
static void lose_in_worker(ag_engine *e, int k)
{
    if (k == 2)
        ag__engine_test_lose_in_worker(e);
    stop_after_intervals(e, k);
}

/* The run is stopped by count of collected intervals, not by time: each
 * collect is a round trip to every worker's loop, so on a loaded host
 * (TSan, other jobs) a timed 2 s run got as few as 5 collects, and fewer
 * would fail. --time's own bound is checked by the timeout case. */
static void case_intervals(void)
{
    ag_sb_workload *wl = wl_make("oltp_point_select", "auto", NULL, NULL);
    struct ag_engine_config cfg;
    struct run_result r;

    cfg_init(&cfg, wl, 6);
    cfg.workers = 3;
    cfg.time_ms = 120000; /* a bound: stop_after_intervals stops the run */
    run_engine(&cfg, 200, stop_after_intervals, &r);
    printf("intervals: %d collects in %.2f s, %" PRIu64 " events, loop lag max %" PRIu64
           " us, start skew %" PRId64 " us\n",
           r.intervals, r.wall_s, r.tot.ctr.transactions, r.tot.lag_max_us, r.skew_ns / 1000);
    /* Never early; late only by load (2 shared cores under TSan: bound
     * generously, the figure is printed above). */
    CHECK(r.has_skew && r.skew_ns > 0 && r.skew_ns < 5000000000LL);
    CHECK(r.intervals > INTERVALS_MIN); /* and at least the one after the stop */
    CHECK(r.tot.ctr.transactions > 0);
    /* The totals are counted by the workers apart from the intervals
     * (issue 9 item 16): these hold only when no interval went missing. */
    CHECK(memcmp(&r.ivl_sum, &r.tot.ctr, sizeof r.ivl_sum) == 0);
    CHECK_EQ_U64(r.ivl_lat_count, pr_hist_count(r.tot.lat));
    CHECK(pr_hist_equal(r.ivl_lat, r.tot.lat));
    CHECK(r.wall_s < 60);                              /* the stop, not the bound, ended it */
    CHECK_EQ_U64(r.tot.tally, r.ivl_sum.transactions); /* none lost: the tally agrees */
    run_free(&r);

    /* A lost interval: the check above must now see the difference. */
    run_engine(&cfg, 200, lose_one_interval, &r);
    printf("lost interval: intervals sum to %" PRIu64 " transactions, totals %" PRIu64 "\n",
           r.ivl_sum.transactions, r.tot.ctr.transactions);
    CHECK(!r.failed);
    CHECK_MSG(r.ivl_sum.transactions < r.tot.ctr.transactions,
              "a lost interval went unnoticed: intervals %" PRIu64 ", totals %" PRIu64,
              r.ivl_sum.transactions, r.tot.ctr.transactions);
    CHECK(r.ivl_lat_count < pr_hist_count(r.tot.lat));
    CHECK(!pr_hist_equal(r.ivl_lat, r.tot.lat));
    CHECK_EQ_U64(pr_hist_count(r.tot.lat), r.tot.ctr.transactions);
    CHECK_EQ_U64(r.tot.tally, r.tot.ctr.transactions);
    run_free(&r);

    /* An interval lost inside the worker, before the run totals fold it
     * (issue 30 §3): intervals and totals agree, only the tally, counted
     * apart from every interval buffer, can show it. */
    run_engine(&cfg, 200, lose_in_worker, &r);
    printf("lost in the worker: intervals %" PRIu64 ", totals %" PRIu64 ", tally %" PRIu64 "\n",
           r.ivl_sum.transactions, r.tot.ctr.transactions, r.tot.tally);
    CHECK(!r.failed);
    CHECK_EQ_U64(r.ivl_sum.transactions, r.tot.ctr.transactions);
    CHECK_MSG(r.tot.tally > r.tot.ctr.transactions,
              "the tally misses the loss: tally %" PRIu64 ", totals %" PRIu64, r.tot.tally,
              r.tot.ctr.transactions);
    run_free(&r);
    ag_sb_workload_destroy(&wl);
}

static void case_rate(void)
{
    ag_sb_workload *wl = wl_make("oltp_point_select", "auto", NULL, NULL);
    struct ag_engine_config cfg;
    struct run_result r;

    cfg_init(&cfg, wl, 4);
    cfg.time_ms = 2000;
    cfg.rate = 500;
    run_engine(&cfg, 500, NULL, &r);
    const struct pr_counters *c = &r.tot.ctr;
    print_run("rate=500", "auto", &r);
    printf("rate: started %" PRIu64 " queued %" PRIu64 " late %" PRIu64 " dropped %" PRIu64
           " slip max %" PRIu64 " us, svc p50 %" PRIu64 " us, lat p50 %" PRIu64 " us\n",
           c->ev_started, c->ev_queued, c->ev_late, c->ev_dropped, r.tot.slip_max_us,
           pr_hist_value_at_percentile(r.tot.svc, 50), pr_hist_value_at_percentile(r.tot.lat, 50));
    /* 1000 expected arrivals; Poisson sd ~32: allow a wide margin. */
    CHECK_MSG(c->ev_started > 850 && c->ev_started < 1150, "started %" PRIu64, c->ev_started);
    CHECK_EQ_U64(c->transactions, c->ev_started);
    CHECK_EQ_U64(pr_hist_count(r.tot.svc), c->transactions);
    CHECK(pr_hist_equal(r.ivl_svc, r.tot.svc));
    CHECK(pr_hist_equal(r.ivl_lat, r.tot.lat));
    CHECK_EQ_U64(r.srv.Com_select, c->reads);
    CHECK(pr_hist_value_at_percentile(r.tot.lat, 50) >= pr_hist_value_at_percentile(r.tot.svc, 50));
    run_free(&r);

    /* Overload: one connection, a rate it cannot serve. The backlog grows,
     * latency from the intended start grows, nothing aborts. */
    cfg_init(&cfg, wl, 1);
    cfg.workers = 1;
    cfg.time_ms = 1000;
    cfg.rate = 200000;
    run_engine(&cfg, 500, NULL, &r);
    c = &r.tot.ctr;
    printf("overload: started %" PRIu64 " queued %" PRIu64 " late %" PRIu64 " dropped %" PRIu64
           " lat p99 %" PRIu64 " us svc p99 %" PRIu64 " us\n",
           c->ev_started, c->ev_queued, c->ev_late, c->ev_dropped,
           pr_hist_value_at_percentile(r.tot.lat, 99), pr_hist_value_at_percentile(r.tot.svc, 99));
    CHECK(!r.failed);
    CHECK(c->ev_dropped > 100000);
    CHECK(c->ev_queued > 0);
    CHECK(pr_hist_value_at_percentile(r.tot.lat, 99) >
          10 * pr_hist_value_at_percentile(r.tot.svc, 99));
    CHECK_EQ_U64(r.srv.Com_select, c->reads);
    run_free(&r);
    ag_sb_workload_destroy(&wl);
}

/* Sums for the index of dispersion of the arrivals, over windows of
 * WINDOW_IVL consecutive collect intervals (RATE_IVL_MS each: ~500
 * arrivals a window): the deviation of the events started in a window from
 * rate * its length. The worker counts its starts between two swaps of its
 * statistics, which happen during the collects that end the intervals
 * before the window and its own last one; the span is read in those
 * collects too. When each of those two collects took at most COLLECT_OK_US,
 * the length is the swaps' distance give or take 2 * COLLECT_OK_US. Events
 * start in order (ag_worker_rate), so the window holds its intended
 * arrivals but for the backlog at each end: arrivals due before the
 * boundary and started after it, the oldest of which is the first event
 * started after it. When the interval that begins at each end started
 * events (one without any, every connection busy on a stalled server,
 * reports no slip) and had its worst slip within SLIP_OK_US, the started
 * count is the intended one give or take rate * SLIP_OK_US + 1. Together: within ~5 of ~500,
 * however late events started and collects ran inside the window (a loaded host stalls the worker
 * and the collector; the schedule, which is what is under test, does not move). The intervals
 * before the window and after it must have started events (the window lies inside the run, not over
 * its start or its tail). Windows do not overlap. */
#define RATE_IVL_MS   20
#define WINDOW_IVL    25
#define SLIP_OK_US    2000
#define COLLECT_OK_US 1000
struct dispersion {
    double sum, sum2, count;
    int n;
};

/* Add the run's usable windows to d; how many. */
static int dispersion_add(struct dispersion *d, const struct run_result *r, double rate)
{
    int last = r->intervals < MAX_IVL ? r->intervals - 1 : MAX_IVL - 1;
    int used = 0;
    for (int k = 1; k + WINDOW_IVL < last;) {
        int end = k + WINDOW_IVL; /* the interval after the window */
        if (r->ivl_slip_us[k] > SLIP_OK_US || r->ivl_slip_us[end] > SLIP_OK_US ||
            r->ivl_collect_us[k - 1] > COLLECT_OK_US ||
            r->ivl_collect_us[end - 1] > COLLECT_OK_US || r->ivl_started[k - 1] == 0 ||
            r->ivl_started[k] == 0 || r->ivl_started[end] == 0) {
            k++;
            continue;
        }
        double started = 0, span_s = 0;
        for (int i = k; i < end; i++) {
            started += (double)r->ivl_started[i];
            span_s += r->ivl_span_s[i];
        }
        double dev = started - rate * span_s;
        d->sum += dev;
        d->sum2 += dev * dev;
        d->count += started;
        d->n++;
        used++;
        k = end;
    }
    return used;
}

/* The variance of the deviations over the mean count: about 1 for Poisson
 * arrivals, about 0 for evenly spaced ones (only the backlog at the window
 * ends is left). -1 with fewer than 2 windows. */
static double dispersion_index(const struct dispersion *d)
{
    if (d->n < 2 || d->count <= 0)
        return -1;
    double mean = d->sum / d->n, var = (d->sum2 - d->n * mean * mean) / (d->n - 1);
    return var / (d->count / d->n);
}

/* --rate-mode (issue 9 item 7) end to end: the engine honours
 * rate_uniform, so uniform arrivals come evenly spaced and Poisson ones do
 * not (tests/unit/test_ag_arrival.c checks the schedules themselves). The
 * same rate, comfortably served, both ways, runs repeated (each Poisson one
 * with its own seed, so its windows are new samples) until MIN_WINDOWS
 * windows were usable (dispersion_add), at most MAX_RUNS runs. With 20
 * windows of ~500 arrivals a Poisson estimate below 0.2 is very unlikely
 * (chi-square with 19 degrees of freedom: 7e-5); uniform ones measure
 * ~0.001 (the bound below allows 0.1; a mode swapped gives ~1 / ~0). */
static void case_ratemode(void)
{
    enum { MIN_WINDOWS = 20, MAX_RUNS = 8 };
    ag_sb_workload *wl = wl_make("oltp_point_select", "auto", NULL, NULL);
    struct ag_engine_config cfg;
    struct run_result r;
    double disp[2];

    for (int uniform = 0; uniform < 2; uniform++) {
        struct dispersion d = {0};
        for (int run = 0; run < MAX_RUNS && d.n < MIN_WINDOWS; run++) {
            cfg_init(&cfg, wl, 4);
            cfg.seed += (uint64_t)run;
            cfg.workers = 1; /* one arrival schedule */
            cfg.time_ms = 6000;
            cfg.rate = 1000;
            cfg.rate_uniform = uniform;
            run_engine(&cfg, RATE_IVL_MS, NULL, &r);
            int used = dispersion_add(&d, &r, cfg.rate);
            printf("rate-mode %s, run %d: %" PRIu64 " started over %d intervals, late %" PRIu64
                   ", queued %" PRIu64 ", dropped %" PRIu64 ", worst slip %" PRIu64
                   " us, %d usable windows\n",
                   uniform ? "uniform" : "poisson", run + 1, r.tot.ctr.ev_started, r.intervals,
                   r.tot.ctr.ev_late, r.tot.ctr.ev_queued, r.tot.ctr.ev_dropped, r.tot.slip_max_us,
                   used);
            CHECK(!r.failed);
            /* The schedule's arrivals: those started and those a stall of
             * the host (seconds, at a load of 100+) left unstarted at the
             * end. */
            uint64_t due = r.tot.ctr.ev_started + r.tot.ctr.ev_dropped;
            CHECK_MSG(due > 5200 && due < 6800,
                      "%" PRIu64 " arrivals (started %" PRIu64 ", dropped %" PRIu64 ") of ~6000",
                      due, r.tot.ctr.ev_started, r.tot.ctr.ev_dropped);
            run_free(&r);
        }
        disp[uniform] = dispersion_index(&d);
        printf("rate-mode %s: dispersion index %.3f over %d windows of %d ms\n",
               uniform ? "uniform" : "poisson", disp[uniform], d.n, WINDOW_IVL * RATE_IVL_MS);
        CHECK_MSG(d.n >= MIN_WINDOWS, "only %d usable windows in %d runs", d.n, MAX_RUNS);
    }
    CHECK_MSG(disp[0] > 0.2, "Poisson arrivals look evenly spaced: dispersion %.3f", disp[0]);
    CHECK_MSG(disp[1] >= 0 && disp[1] < 0.1, "uniform arrivals are not even: dispersion %.3f",
              disp[1]);
    ag_sb_workload_destroy(&wl);
}

/* ---- bulk_insert: the final flush after the last event ---------------- */

static void case_bulk(void)
{
    enum { FIRST = 10, N = 4 };
    ag_sb_workload *wl = wl_make("bulk_insert", "auto", NULL, NULL);
    ag_sb_load *loads[N];
    uint32_t tables[N];
    struct pr_error perr = {0};

    for (uint32_t i = 0; i < N; i++)
        tables[i] = FIRST + i + 1;
    loads[0] = ag_sb_load_cleanup_new(wl, tables, N);
    run_load(loads, 1);
    for (uint32_t i = 0; i < N; i++) {
        struct ag_sb_load_piece p = {
            .table = tables[i], .id_lo = 1, .id_hi = 0, .create_table = true};
        loads[i] = ag_sb_load_prepare_new(wl, &p, 1, &perr);
        CHECK(loads[i] != NULL);
    }
    run_load(loads, N);

    struct ag_engine_config cfg;
    struct run_result r;
    cfg_init(&cfg, wl, N);
    cfg.conn_first = FIRST; /* global indexes 10..13: tables sbtest11..14 */
    cfg.conns_total = FIRST + N;
    cfg.time_ms = 1500;
    run_engine(&cfg, 500, NULL, &r);
    print_run("bulk_insert", "text", &r);
    const struct pr_counters *c = &r.tot.ctr;
    CHECK(!r.failed);
    CHECK(c->writes >= N); /* at least each connection's final flush */
    CHECK_EQ_U64(r.srv.Com_insert, c->writes);
    CHECK_EQ_U64(r.srv.Com_stmt_execute, 0);
    uint64_t rows = 0;
    for (uint32_t i = 0; i < N; i++) {
        char q[96];
        snprintf(q, sizeof q, "SELECT COUNT(*) FROM sbtest%u", tables[i]);
        mysql_query(db, q);
        MYSQL_RES *res = mysql_store_result(db);
        MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
        rows += row ? strtoull(row[0], NULL, 10) : 0;
        if (res)
            mysql_free_result(res);
    }
    printf("bulk rows %" PRIu64 " events %" PRIu64 "\n", rows, c->transactions);
    /* every event appended one row, and every row reached the server */
    CHECK_EQ_U64(rows, c->transactions);
    run_free(&r);
    loads[0] = ag_sb_load_cleanup_new(wl, tables, N);
    run_load(loads, 1);
    ag_sb_workload_destroy(&wl);
}

int main(int argc, char **argv)
{
    static const struct engine_case cases[] = {
        {"counts", case_counts}, {"events", case_events},     {"intervals", case_intervals},
        {"rate", case_rate},     {"ratemode", case_ratemode}, {"bulk", case_bulk},
    };

    return engine_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
