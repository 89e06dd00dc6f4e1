/* test_co_live_late: a STATS more than CO_MERGE_KEEP_EXPANDED intervals
 * late (README "Long runs", issue 14 item 3). Its interval was written out
 * (the CSV row) and freed before it came: the row keeps the figures it had,
 * while the run's latency, the agent's own sums and its late count take
 * the STATS in. Driven through co_live as co_run drives it (co_run_int.h:
 * co__live_stats, co__live_flush, co__live_sum_intervals) with a real
 * co_merge, co_stream and CSV file; no fleet (the clock is moved instead:
 * t0 is set in the past). */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_fleet.h"
#include "co_live_fixture.h"
#include "testlib.h"

#define SEC         1000000000ull
#define N_IVL       10
#define TX_A0       100 /* agent 0's transactions per interval */
#define TX_A1       10  /* agent 1's */
#define LAT_A0_US   1000
#define LAT_LATE_US 50000 /* agent 1's late interval 0: far above anything else */
#define N_LATE      7     /* its samples */

static struct pr_msg_stats stats(uint64_t k, uint64_t tx, uint64_t lat_us, uint64_t n)
{
    struct pr_msg_stats st = {.k = k};
    st.ctr.transactions = tx;
    st.lat = pr_hist_new();
    for (uint64_t i = 0; i < n; i++)
        pr_hist_record(st.lat, lat_us + i, 1);
    return st;
}

/* The CSV's row whose t_s is t (0 when absent): its tps and lat_max_ms. */
static int csv_row_at(const char *path, double t, double *tps, double *lat_max_ms)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    while (!found && fgets(line, sizeof(line), f)) {
        double v[12];
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) == 12 &&
            v[0] > t - 0.001 && v[0] < t + 0.001) {
            *tps = v[3];
            *lat_max_ms = v[11];
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void feed(struct run *r, uint32_t agent, uint64_t k, uint64_t tx, uint64_t lat_us,
                 uint64_t n)
{
    struct pr_msg_stats st = stats(k, tx, lat_us, n);
    co__live_stats(r, agent, &st);
    pr_hist_destroy(&st.lat);
}

int main(void)
{
    char csv[] = "/tmp/test_co_live_late_XXXXXX";
    int fd = mkstemp(csv);
    CHECK(fd >= 0);
    close(fd);
    char csv_opt[64];
    snprintf(csv_opt, sizeof(csv_opt), "--csv=%s", csv);
    char prog[] = "stampede", wl[] = "oltp_read_write", cmd[] = "run", ag[] = "--agents=2",
         th[] = "--threads=2", ri[] = "--report-interval=1", tm[] = "--time=20",
         li[] = "--listen=ipc:///tmp/test_co_live_late.sock", pl[] = "--plaintext";
    char *argv[] = {prog, wl, cmd, ag, th, ri, tm, li, pl, csv_opt, NULL};
    struct co_live_fixture fx;
    if (co_live_fixture_init(&fx, 10, argv) != 0)
        return 1;
    struct run *rp = &fx.r;
    struct co_result *res = &fx.res;
    /* Intervals 0..N_IVL-1 past their boundary and grace (0.5 s), the next
     * one not yet (0.4 s either side; a line for interval N_IVL printed on
     * a stalled machine changes nothing checked below). */
    rp->t0_ns = rp->first_t0_ns = co_fleet_now_ns() - (N_IVL * 1000u + 600u) * 1000000ull;

    for (uint64_t k = 0; k < N_IVL; k++) {
        feed(rp, 0, k, TX_A0, LAT_A0_US, TX_A0);
        if (k > 0) /* agent 1's interval 0 held back */
            feed(rp, 1, k, TX_A1, LAT_A0_US, TX_A1);
    }
    co__live_flush(rp, false);
    CHECK_MSG(co_merge_is_released(rp->merge, 0),
              "interval 0 is written out once %d intervals closed after it",
              CO_MERGE_KEEP_EXPANDED);
    double tps = -1, lat_max = -1;
    CHECK(csv_row_at(csv, 1.0, &tps, &lat_max));
    fprintf(stderr, "row t_s=1 before the late STATS: tps %.2f, lat_max_ms %.3f\n", tps, lat_max);
    CHECK(tps > TX_A0 - 0.01 && tps < TX_A0 + 0.01); /* agent 0's only */

    /* Agent 1's interval 0, N_IVL - 1 intervals late. */
    feed(rp, 1, 0, TX_A1, LAT_LATE_US, N_LATE);
    CHECK_EQ_U64(co_merge_agent_late(rp->merge, 1), 1);
    CHECK_EQ_U64(co_merge_agent_intervals(rp->merge, 1), N_IVL);
    CHECK_EQ_U64(rp->agents[1].sum.transactions, (uint64_t)TX_A1 * N_IVL); /* its sums: in */

    rp->end_ns = rp->t0_ns + N_IVL * SEC;
    co__live_flush(rp, true);
    co_merge_take(rp->merge, &res->intervals, &res->n_intervals);
    for (uint32_t i = 0; i < 2; i++)
        res->agents[i].done = true;
    co__live_sum_intervals(rp);
    /* The run's latency: every sample sent, the late ones too. */
    uint64_t want = (uint64_t)TX_A0 * N_IVL + (uint64_t)TX_A1 * (N_IVL - 1) + N_LATE;
    CHECK_EQ_U64(pr_hist_count(res->lat), want);
    CHECK(pr_hist_max(res->lat) >= LAT_LATE_US);
    /* Its interval's row: as written before it came. */
    tps = lat_max = -1;
    CHECK(csv_row_at(csv, 1.0, &tps, &lat_max));
    fprintf(stderr, "row t_s=1 at the end: tps %.2f, lat_max_ms %.3f; run max %.3f ms\n", tps,
            lat_max, pr_hist_max(res->lat) / 1e3);
    CHECK(tps > TX_A0 - 0.01 && tps < TX_A0 + 0.01);
    CHECK(lat_max < LAT_LATE_US / 1e3 / 2);

    co_live_fixture_clear(&fx);
    unlink(csv);
    return TEST_END();
}
