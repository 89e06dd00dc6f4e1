/* test_co_live_cp: a checkpoint's threads fairness takes each agent's
 * per connection figures (STATS.conns) of the checkpoint's own interval,
 * even when a fast agent's next checkpoint interval came first (issue 30
 * §1). Driven through co_live as co_run drives it (co__live_stats,
 * co__live_flush) with a real co_merge; no fleet. */
#include <stdlib.h>
#include <string.h>

#include "co_fleet.h"
#include "co_live_fixture.h"
#include "testlib.h"

#define TX_A0  100 /* agent 0's transactions per interval (1 connection) */
#define TX_A1  10  /* agent 1's */
#define LAT_US 1000

/* Agent `agent`'s STATS for interval k; with conns (its one connection,
 * global index `agent`) when k is a checkpoint's interval. */
static void feed(struct run *r, uint32_t agent, uint64_t k, uint64_t tx, bool conns)
{
    struct pr_msg_stats st = {.k = k};
    struct pr_msg_conn c = {agent, tx * (k + 1), tx * (k + 1) * LAT_US};
    st.ctr.transactions = tx;
    st.lat = pr_hist_new();
    pr_hist_record(st.lat, LAT_US, tx);
    if (conns) {
        st.conns = &c;
        st.n_conns = 1;
    }
    co__live_stats(r, agent, &st);
    pr_hist_destroy(&st.lat);
}

int main(void)
{
    char prog[] = "stampede", wl[] = "oltp_read_write", cmd[] = "run", ag[] = "--agents=2",
         th[] = "--threads=2", ri[] = "--report-interval=1", tm[] = "--time=20",
         li[] = "--listen=ipc:///tmp/test_co_live_cp.sock", pl[] = "--plaintext",
         cp[] = "--report-checkpoints=2,3";
    char *argv[] = {prog, wl, cmd, ag, th, ri, tm, li, pl, cp, NULL};
    struct co_live_fixture fx;
    if (co_live_fixture_init(&fx, 10, argv) != 0)
        return 1;
    struct run *rp = &fx.r;
    struct co_result *res = &fx.res;
    /* 2.2 s into the run: intervals 0 and 1 have ended, their grace (5 s)
     * has not; interval 2 ends at 3 s. */
    rp->t0_ns = rp->first_t0_ns = co_fleet_now_ns() - 2200000000ull;

    /* Agent 0 runs ahead: its intervals 0, 1 (checkpoint 2 s) and 2
     * (checkpoint 3 s) before agent 1's interval 1. */
    feed(rp, 0, 0, TX_A0, false);
    feed(rp, 1, 0, TX_A1, false);
    feed(rp, 0, 1, TX_A0, true);
    feed(rp, 0, 2, TX_A0, true);
    co__live_flush(rp, false);
    CHECK_MSG(res->n_checkpoints == 0, "no checkpoint before agent 1's interval 1: %u",
              res->n_checkpoints);
    feed(rp, 1, 1, TX_A1, true);
    co__live_flush(rp, false);
    CHECK_MSG(res->n_checkpoints == 1, "the 2 s checkpoint once interval 1 is in: %u",
              res->n_checkpoints);
    if (res->n_checkpoints == 1) {
        const struct co_checkpoint_result *c = &res->checkpoints[0];
        /* Units: agent 0's 200 events at its interval 1 (not the 300 of
         * interval 2), agent 1's 20. */
        double avg = (2.0 * TX_A0 + 2.0 * TX_A1) / 2, sd = (2.0 * TX_A0 - 2.0 * TX_A1) / 2;
        fprintf(stderr, "checkpoint 2 s: transactions %llu, events avg/stddev %.4f/%.4f\n",
                (unsigned long long)c->ctr.transactions, c->fairness.events_avg,
                c->fairness.events_stddev);
        CHECK_EQ_U64(c->ctr.transactions, 2 * (TX_A0 + TX_A1));
        CHECK(c->fairness_per_conn);
        CHECK(c->fairness.events_avg == avg && c->fairness.events_stddev == sd);
        CHECK(c->fairness.time_avg_s == avg * LAT_US / 1e6);
    }
    /* The 3 s checkpoint: each agent's interval 2 alone. */
    feed(rp, 1, 2, TX_A1, true);
    rp->end_ns = rp->t0_ns + 3000000000ull;
    co__live_flush(rp, true);
    CHECK_MSG(res->n_checkpoints == 2, "the 3 s checkpoint at the end: %u", res->n_checkpoints);
    if (res->n_checkpoints == 2) {
        const struct co_checkpoint_result *c = &res->checkpoints[1];
        CHECK_EQ_U64(c->ctr.transactions, TX_A0 + TX_A1);
        CHECK(c->fairness_per_conn);
        CHECK(c->fairness.events_avg == (TX_A0 + TX_A1) / 2.0);
        CHECK(c->fairness.events_stddev == (TX_A0 - TX_A1) / 2.0);
    }

    co_live_fixture_clear(&fx);
    return TEST_END();
}
