/* cm_ir: --ir, the merge alone (no simulator, no sockets) for callgrind's
 * instruction counts (cm.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "co_fleet.h"
#include "co_merge.h"

/* Interval k's STATS from the n agents as the run loop handles them
 * (pr_msg_decode, co__live_stats, pr_msg_clear; ZeroMQ and co_fleet's
 * peer lookup left out), then the co__live_flush that prints, closes and
 * releases it (stampede's path: keep_closed false). Not inlined, so that
 * `valgrind --tool=callgrind --toggle-collect=ir_interval` counts exactly
 * this. The clock is set back so that k is due, its line not a tail. */
static __attribute__((noinline)) void ir_interval(struct run *r, const msgpack_sbuffer *sb,
                                                  uint32_t n, uint64_t k, uint32_t *bad)
{
    struct pr_msg m;
    for (uint32_t i = 0; i < n; i++) {
        if (pr_msg_decode(&m, sb[i].data, sb[i].size, NULL) == 0 && m.type == PR_MSG_STATS)
            co__live_stats(r, i, &m.u.stats);
        else
            (*bad)++;
        pr_msg_clear(&m);
    }
    r->t0_ns = co_fleet_now_ns() - ((k + 1) * (uint64_t)r->interval_ms + 100u) * 1000000u;
    co__live_flush(r, false);
}

/* --ir: n agents' STATS for k_count intervals, made here (no simulator, no
 * sockets) and handled by ir_interval; prints the STATS' size and the
 * thread CPU per STATS. The Ir per STATS is callgrind's count of
 * ir_interval divided by the STATS handled (printed). */
int cm_ir_main(struct coord *c, uint64_t seed)
{
    struct co_result *res = &c->res;
    struct run *r = &c->r;
    uint32_t n = c->n, *threads = pr_xcalloc(n, sizeof(*threads)), bad = 0;
    msgpack_sbuffer *sb = pr_xcalloc(n, sizeof(*sb));
    pr_hist *h = pr_hist_new();
    struct pr_counters ctr;
    size_t off, koff, bytes = 0, bytes_max = 0;
    uint64_t cpu = 0, released = 0;

    if (cm_make_args(c, "ipc:///nonexistent/coordinator-merge-ir") != 0)
        return 1;
    *r = (struct run){.a = &c->args, .res = res, .n = n, .interval_ms = INTERVAL_MS};
    r->out = open_memstream(&c->out_buf, &c->out_len);
    res->n_agents = n;
    res->agents = pr_xcalloc(n + 1, sizeof(*res->agents));
    r->agents = pr_xcalloc(n, sizeof(*r->agents));
    for (uint32_t i = 0; i < n; i++)
        threads[i] = res->agents[i].threads = THREADS_PER_AGENT;
    r->merge = co_merge_new(n, threads, INTERVAL_MS, c->keep_hists);
    cm_lead_baseline(r);
    for (uint32_t i = 0; i < n; i++)
        msgpack_sbuffer_init(&sb[i]);
    for (uint64_t k = 0; k < c->k_count; k++) {
        for (uint32_t i = 0; i < n; i++) {
            msgpack_sbuffer_clear(&sb[i]);
            cm_gen_interval(seed, i + 1, k, h, &ctr);
            if (cm_encode_stats(k, h, &ctr, i == 0, &sb[i], &off, &koff) != 0)
                return 1;
            bytes += sb[i].size;
            bytes_max = sb[i].size > bytes_max ? sb[i].size : bytes_max;
        }
        uint64_t t = cm_thread_cpu_ns();
        ir_interval(r, sb, n, k, &bad);
        cpu += cm_thread_cpu_ns() - t;
    }
    for (uint64_t k = 0; k < c->k_count; k++)
        released += co_merge_is_released(r->merge, k);
    uint64_t stats = (uint64_t)n * c->k_count;
    printf("coordinator-merge --ir: %u agents x %u intervals = %" PRIu64 " STATS of %.0f bytes "
           "mean, %zu max (%u kinds), %s; %" PRIu64 " of %u intervals released, %u STATS "
           "refused\n",
           n, c->k_count, stats, (double)bytes / (double)stats, bytes_max, cm_n_kinds,
           c->keep_hists ? "per-agent histograms kept (--hdr-log)" : "no --hdr-log", released,
           c->k_count, bad);
    printf("  decode + co__live_stats + clear, and each interval's flush and release: %.2f us "
           "thread CPU per STATS\n",
           (double)cpu / 1e3 / (double)stats);
    printf("  instructions: valgrind --tool=callgrind --toggle-collect=ir_interval; "
           "Ir / %" PRIu64 " = Ir per STATS\n",
           stats);
    for (uint32_t i = 0; i < n; i++)
        msgpack_sbuffer_destroy(&sb[i]);
    free(sb);
    free(threads);
    pr_hist_destroy(&h);
    return bad == 0 && released == c->k_count ? 0 : 1;
}

/* --ir's run state freed, as main's; returns rc. */
int cm_ir_cleanup(struct coord *c, int rc)
{
    struct run *r = &c->r;
    co_merge_destroy(&r->merge);
    for (uint32_t i = 0; r->agents && i < r->n; i++)
        pr_hist_acc_destroy(&r->agents[i].lat_acc);
    pr_hist_destroy(&r->scratch);
    pr_hist_destroy(&r->tot_lat);
    pr_hist_destroy(&r->tot_svc);
    pr_hist_destroy(&r->cp_lat);
    free(r->agents);
    co__srv_copy(&r->srv0, &r->n_srv0, NULL, 0);
    co__srv_copy(&r->srv_last, &r->n_srv_last, NULL, 0);
    free(r->srv0);
    free(r->srv_last);
    free(r->srv_qps);
    co_result_clear(&c->res);
    co_args_clear(&c->args);
    if (r->out != NULL)
        fclose(r->out);
    free(c->out_buf);
    return rc;
}
