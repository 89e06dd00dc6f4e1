/* cm_micro: per-STATS costs of the pieces (decode, its histogram read,
 * co_merge_add, co__live_stats, the per-agent fold), measured on the same
 * kind of STATS as the run (cm.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "co_merge.h"
#include "pr_msg_lat.h"

static double per_op_us(uint64_t t0, uint64_t ops)
{
    return (double)(cm_thread_cpu_ns() - t0) / 1e3 / (double)ops;
}

/* co__live_stats on a run of MICRO_STATS agents, as the bench's run (same
 * args) but without a fleet. */
static double micro_live_stats(const struct coord *c, struct pr_msg *msgs, int reps)
{
    struct co_result res = {0};
    struct run r = {.a = &c->args,
                    .res = &res,
                    .n = MICRO_STATS,
                    .interval_ms = INTERVAL_MS,
                    .keep_closed = true};
    uint32_t threads[MICRO_STATS];

    for (uint32_t i = 0; i < MICRO_STATS; i++)
        threads[i] = THREADS_PER_AGENT;
    res.n_agents = MICRO_STATS;
    res.agents = pr_xcalloc(MICRO_STATS + 1, sizeof(*res.agents));
    r.agents = pr_xcalloc(MICRO_STATS, sizeof(*r.agents));
    r.merge = co_merge_new(MICRO_STATS, threads, INTERVAL_MS, c->keep_hists);
    uint64_t t = cm_thread_cpu_ns();
    for (int k = 0; k < reps; k++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            msgs[i].u.stats.k = (uint64_t)k;
            co__live_stats(&r, i, &msgs[i].u.stats);
        }
    double us = per_op_us(t, (uint64_t)reps * MICRO_STATS);
    co_merge_destroy(&r.merge);
    for (uint32_t i = 0; i < MICRO_STATS; i++)
        pr_hist_acc_destroy(&r.agents[i].lat_acc);
    pr_hist_destroy(&r.scratch);
    free(r.agents);
    co__srv_copy(&r.srv0, &r.n_srv0, NULL, 0);
    co__srv_copy(&r.srv_last, &r.n_srv_last, NULL, 0);
    free(r.srv0);
    free(r.srv_last);
    free(r.srv_qps);
    co_result_clear(&res);
    return us;
}

void cm_micro_bench(const struct coord *c, uint64_t seed, struct micro *mb)
{
    msgpack_sbuffer sb[MICRO_STATS], hb[MICRO_STATS];
    struct pr_msg msgs[MICRO_STATS];
    pr_hist *h = pr_hist_new();
    struct pr_counters ctr;
    size_t off, koff;
    int reps = 20;

    for (uint32_t i = 0; i < MICRO_STATS; i++) {
        msgpack_packer pk;
        msgpack_sbuffer_init(&sb[i]);
        msgpack_sbuffer_init(&hb[i]);
        cm_gen_interval(seed, i + 1, 0, h, &ctr);
        msgpack_packer_init(&pk, &hb[i], msgpack_sbuffer_write);
        if (cm_encode_stats(0, h, &ctr, false, &sb[i], &off, &koff) != 0 ||
            pr_hist_pack(h, &pk) != 0)
            exit(1);
        cm_patch_seq((uint8_t *)sb[i].data, off, 1);
    }
    uint64_t t = cm_thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_msg_decode(&msgs[0], sb[i].data, sb[i].size, NULL);
            pr_msg_clear(&msgs[0]);
        }
    mb->decode_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    /* the "lat" value of those STATS, the bytes pr_msg_decode hands to
     * pr_hist_unpack_raw_frozen, read sparse (and freed) */
    t = cm_thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_hist_frozen *f = NULL;
            if (pr_hist_unpack_raw_frozen(&f, hb[i].data, hb[i].size, NULL) != 0)
                exit(1);
            pr_hist_frozen_destroy(&f);
        }
    mb->hist_read_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    /* the same bytes into a whole histogram, as STATS were decoded before
     * (a 186 KB pr_hist made, filled and freed each time) */
    t = cm_thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_hist *x = pr_hist_new();
            if (pr_hist_unpack_raw(x, hb[i].data, hb[i].size, NULL) != 0)
                exit(1);
            pr_hist_destroy(&x);
        }
    mb->hist_alloc_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    for (uint32_t i = 0; i < MICRO_STATS; i++)
        pr_msg_decode(&msgs[i], sb[i].data, sb[i].size, NULL);
    co_merge *m = co_merge_new(MICRO_STATS, NULL, INTERVAL_MS, c->keep_hists);
    t = cm_thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            bool late;
            msgs[i].u.stats.k = (uint64_t)r;
            co_merge_add(m, i, &msgs[i].u.stats, &late);
        }
    mb->merge_add_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);
    co_merge_destroy(&m);
    mb->live_stats_us = micro_live_stats(c, msgs, reps);

    /* the per-agent running sum (co__live_stats'), each of the 64 agents'
     * STATS reps times (each rep its own interval) */
    {
        pr_hist_acc *sum[MICRO_STATS];
        for (uint32_t i = 0; i < MICRO_STATS; i++)
            sum[i] = pr_hist_acc_new();
        struct pr_msg one[1];
        uint64_t spent = 0;
        for (int r = 0; r < reps; r++) {
            for (uint32_t i = 0; i < MICRO_STATS; i++) {
                cm_gen_interval(seed, i + 1, (uint64_t)r, h, &ctr);
                if (cm_encode_stats((uint64_t)r, h, &ctr, false, &sb[i], &off, &koff) != 0)
                    exit(1);
            }
            for (uint32_t i = 0; i < MICRO_STATS; i++) {
                pr_msg_decode(&one[0], sb[i].data, sb[i].size, NULL);
                uint64_t t1 = cm_thread_cpu_ns();
                pr_msg_stats_lat_acc(sum[i], &one[0].u.stats);
                spent += cm_thread_cpu_ns() - t1;
                pr_msg_clear(&one[0]);
                msgpack_sbuffer_clear(&sb[i]);
            }
        }
        mb->fold_us = (double)spent / 1e3 / ((double)reps * MICRO_STATS);
        for (uint32_t i = 0; i < MICRO_STATS; i++)
            pr_hist_acc_destroy(&sum[i]);
    }

    t = cm_thread_cpu_ns();
    for (int r = 0; r < 100000; r++)
        (void)cm_thread_cpu_ns();
    mb->clock_read_us = per_op_us(t, 100000);

    msgpack_sbuffer beat_sb;
    struct pr_msg beat;
    msgpack_sbuffer_init(&beat_sb);
    pr_msg_init(&beat, PR_MSG_HEARTBEAT, NULL, 12345);
    beat.u.heartbeat.state = PR_STATE_RUNNING;
    beat.u.heartbeat.clock_ns = cm_mono_ns();
    pr_msg_encode(&beat, &beat_sb, NULL);
    t = cm_thread_cpu_ns();
    for (int r = 0; r < 20000; r++) {
        pr_msg_decode(&beat, beat_sb.data, beat_sb.size, NULL);
        pr_msg_clear(&beat);
    }
    mb->beat_decode_us = per_op_us(t, 20000);
    msgpack_sbuffer_destroy(&beat_sb);

    for (uint32_t i = 0; i < MICRO_STATS; i++) {
        pr_msg_clear(&msgs[i]);
        msgpack_sbuffer_destroy(&sb[i]);
        msgpack_sbuffer_destroy(&hb[i]);
    }
    pr_hist_destroy(&h);
}
