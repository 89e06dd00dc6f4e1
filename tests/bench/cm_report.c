/* cm_report: what the bench prints: the run's figures, the RESULT line,
 * the long run's table (cm.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cm.h"
#include "co_merge.h"
#include "co_sbfmt.h"

/* Bytes co_merge holds for interval k's histograms (merged and per agent;
 * an expanded one counts its whole struct). */
static size_t iv_hist_bytes(const struct co_interval_result *iv, uint32_t n_agents)
{
    size_t b = iv->lat != NULL ? (size_t)pr_hist_counts_len() * 8 : 0;
    b += iv->lat_frozen != NULL ? pr_hist_frozen_size(iv->lat_frozen) : 0;
    for (uint32_t a = 0; iv->agent_lat_frozen != NULL && a < n_agents; a++)
        b += iv->agent_lat_frozen[a] != NULL ? pr_hist_frozen_size(iv->agent_lat_frozen[a]) : 0;
    return b;
}

/* Samples merged into iv, expanded or frozen. */
static uint64_t iv_samples(const struct co_interval_result *iv)
{
    return iv->lat != NULL          ? pr_hist_count(iv->lat)
           : iv->lat_frozen != NULL ? pr_hist_frozen_count(iv->lat_frozen)
                                    : 0;
}

bool cm_read_report(int fd, struct sim_report *rep)
{
    char *p = (char *)rep;
    size_t left = sizeof(*rep);
    while (left > 0) {
        ssize_t r = read(fd, p, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        left -= (size_t)r;
    }
    return true;
}

static const char *last_line(const char *buf, size_t len, size_t *line_len)
{
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    *line_len = len - start;
    return buf + start;
}

/* Interval k was printed with every agent merged, its totals are what the
 * simulator sent, and no STATS came after its line. */
static bool exact_at_print(const struct coord *c, const struct sim_report *rep, uint32_t k)
{
    const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
    return iv && iv->printed && !iv->late && c->reporting_at_print[k] == c->n &&
           iv->ctr.transactions == rep->expect_tx[k] && iv_samples(iv) == rep->expect_samples[k];
}

/* STATS co_merge refused (co__live_stats drops them silently), tail
 * intervals closed without a line, intervals whose server QPS (from the
 * lead's samples) is not the 10^6 the simulator's counters make. */
static void tally(const struct coord *c, uint32_t *rejected, uint32_t *tails, uint32_t *bad_qps)
{
    const struct run *r = &c->r;
    uint32_t accepted = 0;
    uint64_t last_printed = 0;
    for (uint32_t i = 0; i < c->n; i++)
        accepted += co_merge_agent_intervals(r->merge, i);
    *rejected = c->stats_events - accepted;
    for (uint64_t k = 0; k < co_merge_count(r->merge); k++) {
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        if (iv && iv->printed)
            last_printed = k + 1;
    }
    *tails = 0;
    for (uint64_t k = 0; k < last_printed; k++) {
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        *tails += iv == NULL || !iv->printed;
    }
    *bad_qps = 0;
    for (uint32_t k = 0; k < c->printed; k++)
        *bad_qps += co__srv_qps_get(r, k) != 1e6;
}

/* The thread's CPU per STATS handled: over all intervals, and the worst
 * interval's (its CPU over the STATS handled in it). */
static void stats_us(const struct coord *c, double *mean, double *max)
{
    uint64_t cpu = 0, n = 0;
    *max = 0;
    for (uint32_t k = 0; k < c->printed; k++) {
        uint64_t dc = c->cpu_thread[k + 1] - c->cpu_thread[k];
        uint64_t dn = c->stats_at[k + 1] - c->stats_at[k];
        cpu += dc;
        n += dn;
        double us = dn ? (double)dc / 1e3 / (double)dn : 0.0;
        *max = us > *max ? us : *max;
    }
    *mean = n ? (double)cpu / 1e3 / (double)n : 0.0;
}

/* The CPU per interval (ms, mean and worst): the coordinator thread's
 * and the process's; and the intervals exact when printed. */
struct ivl_cpu {
    double mean, max, pmean, pmax;
    uint32_t complete;
};

static struct ivl_cpu ivl_cpu(const struct coord *c, const struct sim_report *rep)
{
    struct ivl_cpu r = {0};
    uint32_t kk = c->printed;
    for (uint32_t k = 0; k < kk; k++) {
        double ms = (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]) / 1e6;
        double pms = (double)(c->cpu_proc[k + 1] - c->cpu_proc[k]) / 1e6;
        r.mean += ms / kk;
        r.pmean += pms / kk;
        r.max = ms > r.max ? ms : r.max;
        r.pmax = pms > r.pmax ? pms : r.pmax;
        r.complete += exact_at_print(c, rep, k);
    }
    return r;
}

void cm_report(struct coord *c, const struct sim_report *rep, const struct micro *mb,
               uint64_t join_cpu_ns, double join_s, long rss_join_kb, long rss_end_kb, long peak_kb)
{
    uint32_t kk = c->printed, rejected, tails, bad_qps;
    struct ivl_cpu ic = ivl_cpu(c, rep);
    double mean = ic.mean, max = ic.max, pmean = ic.pmean, pmax = ic.pmax;
    uint32_t complete = ic.complete;

    tally(c, &rejected, &tails, &bad_qps);
    double span_s = kk ? (double)(c->wall[kk] - c->wall[0]) / 1e9 : 0.0;
    double per_ivl = kk ? 1.0 / kk : 0.0;
    double window_s = (double)kk * INTERVAL_MS / 1000.0;
    double in_s = window_s > 0 ? (double)(rep->sent_window + rep->stats_sent) / window_s : 0.0;
    double out_s = window_s > 0 ? (double)rep->recv_window / window_s : 0.0;

    printf("coordinator-merge: %u agents, %u intervals of %d ms, plain-text ipc, %s\n", c->n, kk,
           INTERVAL_MS, c->keep_hists ? "--hdr-log (per-agent histograms kept)" : "no --hdr-log");
    printf("  STATS per agent-interval: %.0f samples (%" PRIu64 "..%" PRIu64
           "), log-normal median 2..20 ms per agent, "
           "sigma %.1f, %.1f%% tail x3..x30: %.0f occupied buckets (%u..%u), %.1f KB encoded (max "
           "%.1f KB); generated in %.1f s\n",
           rep->samples_mean, cm_min_samples, cm_max_samples, SIGMA, TAIL_PER_MILLE / 10.0,
           rep->buckets_mean, rep->buckets_min, rep->buckets_max, rep->bytes_mean / 1024.0,
           rep->bytes_max / 1024.0, rep->gen_s);
    printf("  coordinator thread CPU per interval: mean %.2f ms, max %.2f ms = %.2f%% (max %.2f%%) "
           "of one core; goal for 1000 agents: < 10%%\n",
           mean, max, mean / INTERVAL_MS * 100.0, max / INTERVAL_MS * 100.0);
    double us_mean = 0, us_max = 0;
    stats_us(c, &us_mean, &us_max);
    printf("  coordinator thread CPU per STATS handled (all of the thread's work, heartbeats "
           "included): mean %.2f us, worst interval %.2f us; load average at START %s, at the "
           "last line %s\n",
           us_mean, us_max, c->load_start, c->load_end);
    printf("  process CPU per interval (with ZeroMQ's I/O thread): mean %.2f ms, max %.2f ms = "
           "%.2f%% of one core\n",
           pmean, pmax, pmean / INTERVAL_MS * 100.0);
    printf("  messages: %.0f/s in (STATS, HEARTBEAT), %.0f/s out (HEARTBEAT) over the %.0f s of "
           "the intervals; %u STATS handled; %u lines over %.2f s wall\n",
           in_s, out_s, window_s, c->stats_events, kk, span_s);
    printf("  intervals complete: %u/%u (every agent merged before the line, totals equal to what "
           "was sent, none late); lost %u, refused %u, STATS co_merge refused %u, tails %u; "
           "server QPS from the lead's samples wrong in %u\n",
           complete, c->k_count, c->lost, c->refused, rejected, tails, bad_qps);
    printf("  waiting for a CPU while runnable (busy machine) per interval: coordinator thread "
           "%.1f ms; simulator thread %.1f ms (its CPU %.1f ms; %" PRIu64 " of %u STATS bursts "
           "began > 50 ms late)\n",
           c->wait_ns / 1e6 * per_ivl, rep->window_wait_ns / 1e6 / c->k_count,
           rep->window_cpu_ns / 1e6 / c->k_count, rep->late_sends, c->k_count);
    size_t hist_bytes = 0;
    for (uint32_t k = 0; k < kk; k++) {
        const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
        hist_bytes += iv ? iv_hist_bytes(iv, c->n) : 0;
    }
    printf("  interval histograms held by co_merge: %.1f KB, %.1f KB per interval\n",
           hist_bytes / 1024.0, kk ? hist_bytes / 1024.0 / kk : 0.0);
    printf("  coordinator thread's minor page faults (fresh pages first touched): %.0f per "
           "interval\n",
           c->minflt * per_ivl);
    printf("  RSS: %.1f MB after join, %.1f MB at the end, peak %.1f MB; growth %.1f KB per "
           "interval\n",
           rss_join_kb / 1024.0, rss_end_kb / 1024.0, peak_kb / 1024.0,
           kk ? (double)(rss_end_kb - rss_join_kb) / kk : 0.0);
    if (c->heap_end == 0) /* a sanitizer's allocator: mallinfo2 knows nothing */
        printf("  malloc'ed and in use: unknown (not glibc's allocator)\n");
    else
        printf("  malloc'ed and in use (mallinfo2, all arenas): %.1f MB after join, %.1f MB at "
               "the end; growth %.1f KB per interval (RSS growing faster: pages first touched, "
               "or freed but kept by the allocator)\n",
               c->heap_join / 1048576.0, c->heap_end / 1048576.0,
               kk ? ((double)c->heap_end - (double)c->heap_join) / 1024.0 / kk : 0.0);
    printf("  loop sections per interval (thread CPU): co_fleet_next %.2f ms, handle_event -> "
           "co__live_stats %.2f ms, co_fleet_event_clear %.2f ms, co__live_flush %.2f ms (%" PRIu64
           " loop turns; ~%.2f ms of it is the section clocks)\n",
           c->sec.next / 1e6 * per_ivl, c->sec.handle / 1e6 * per_ivl, c->sec.clear / 1e6 * per_ivl,
           c->sec.flush / 1e6 * per_ivl, c->sec.loops,
           (double)c->sec.loops * per_ivl * 5 * mb->clock_read_us / 1e3);
    printf("  per STATS (isolated, %d typical STATS): pr_msg_decode+clear %.1f us (of which "
           "its \"lat\" read sparse %.1f us; read whole, as before, would be %.1f us), "
           "co__live_stats %.1f us (co_merge_add alone %.1f us); x %u agents = %.2f ms per "
           "interval\n",
           MICRO_STATS, mb->decode_us, mb->hist_read_us, mb->hist_alloc_us, mb->live_stats_us,
           mb->merge_add_us, c->n, (mb->decode_us + mb->live_stats_us) * c->n / 1e3);
    double calls = (double)c->sec.loops * per_ivl;
    double n_stats = (double)c->stats_events * per_ivl;
    double n_beats = window_s > 0 ? (double)rep->sent_window / window_s * INTERVAL_MS / 1000.0 : 0;
    double part_stats = mb->decode_us * n_stats / 1e3,
           part_beats = mb->beat_decode_us * n_beats / 1e3;
    double part_calls = c->idle_next_us * calls / 1e3;
    printf("  co_fleet_next per interval, estimated: %.0f STATS decodes %.2f ms + %.0f HEARTBEAT "
           "decodes (%.2f us each) %.2f ms + %.0f calls x %.2f us fixed cost at %u peers "
           "(timers' scan, empty reads) %.2f ms; rest (ZeroMQ recv/send, heartbeats out, peer "
           "lookup) %.2f ms\n",
           n_stats, part_stats, n_beats, mb->beat_decode_us, part_beats, calls, c->idle_next_us,
           c->n, part_calls, c->sec.next / 1e6 * per_ivl - part_stats - part_beats - part_calls);
    printf("  join: %u agents (HELLO + %d clock pings each) in %.2f s wall, %.1f ms coordinator "
           "thread CPU\n",
           c->n, CO_FLEET_PINGS, join_s, join_cpu_ns / 1e6);
    printf("  per agent's running sum (co__live_stats', pr_hist_acc, isolated, %d agents x 20 "
           "STATS): %.2f us per STATS\n",
           MICRO_STATS, mb->fold_us);
    printf("  per interval: k, thread CPU ms, with I/O thread ms, agents merged when the line was "
           "printed, line printed after the boundary (ms), exact and on time, STATS handled, "
           "thread CPU us per STATS, the thread's minor page faults\n");
    for (uint32_t k = 0; k < kk; k++) {
        const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
        int64_t delay =
            (int64_t)c->wall[k + 1] - (int64_t)(c->r.t0_ns + (k + 1) * INTERVAL_MS * 1000000ull);
        uint64_t dn = c->stats_at[k + 1] - c->stats_at[k];
        double dc = (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]);
        printf("    %3u %9.2f %9.2f %6u %8.1f  %-16s %6" PRIu64 " %7.2f %6ld\n", k,
               (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]) / 1e6,
               (double)(c->cpu_proc[k + 1] - c->cpu_proc[k]) / 1e6, c->reporting_at_print[k],
               (double)delay / 1e6,
               exact_at_print(c, rep, k) ? "yes"
               : iv && iv->late          ? "no (late STATS)"
                                         : "no",
               dn, dn ? dc / 1e3 / (double)dn : 0.0, c->minflt_at[k + 1] - c->minflt_at[k]);
    }
    size_t ll = 0;
    const char *line = last_line(c->out_buf, c->out_len, &ll);
    printf("  last interval line: %.*s\n", (int)ll, line);
}

/* The run's end (sum_intervals) and the "RESULT key=value ..." line. */
void cm_result_line(struct coord *c, const struct sim_report *rep, const struct micro *mb,
                    long rss_join_kb, long rss_end_kb, long peak_kb)
{
    uint32_t kk = c->printed;
    struct ivl_cpu ic = ivl_cpu(c, rep);
    double mean = ic.mean, max = ic.max, pmean = ic.pmean, pmax = ic.pmax;
    uint32_t complete = ic.complete;
    uint64_t expect = 0, got = 0;

    for (uint32_t k = 0; k < c->k_count; k++)
        expect += rep->expect_samples[k];
    double growth = kk ? (double)(rss_end_kb - rss_join_kb) / kk : 0.0;
    double window_s = (double)kk * INTERVAL_MS / 1000.0;
    double in_s = window_s > 0 ? (double)(rep->sent_window + rep->stats_sent) / window_s : 0.0;
    double out_s = window_s > 0 ? (double)rep->recv_window / window_s : 0.0;
    double sum_ms = cm_sum_intervals(c, &got); /* moves the intervals out of co_merge: last */
    double us_mean = 0, us_max = 0;
    stats_us(c, &us_mean, &us_max);
    printf("  end of run: co_merge_take + co__live_sum_intervals (run latency from %u "
           "intervals) %.2f ms thread CPU; %" PRIu64 " samples, %s what was sent\n",
           c->res.n_intervals, sum_ms, got, got == expect ? "equal to" : "NOT equal to");
    printf(
        "RESULT agents=%u intervals=%u hdr_log=%d cpu_ms_mean=%.2f cpu_ms_max=%.2f "
        "core_pct=%.2f core_pct_max=%.2f proc_core_pct=%.2f proc_core_pct_max=%.2f "
        "msgs_in_s=%.0f msgs_out_s=%.0f "
        "complete=%u/%u peak_rss_mb=%.1f rss_growth_kb=%.1f decode_us=%.1f sum_intervals_ms=%.2f "
        "cpu_wait_ms=%.1f stats_us_mean=%.2f stats_us_max=%.2f fold_us=%.2f stats_bytes_mean=%.0f "
        "stats_bytes_max=%u\n",
        c->n, kk, c->keep_hists, mean, max, mean / INTERVAL_MS * 100.0, max / INTERVAL_MS * 100.0,
        pmean / INTERVAL_MS * 100.0, pmax / INTERVAL_MS * 100.0, in_s, out_s, complete, c->k_count,
        peak_kb / 1024.0, growth, mb->decode_us, sum_ms, kk ? c->wait_ns / 1e6 / kk : 0.0, us_mean,
        us_max, mb->fold_us, rep->bytes_mean, rep->bytes_max);
}

/* The simulated agents' own lateness over intervals [k0, k1): the mean
 * and max delay of their STATS bursts after the boundary, ms. */
static void send_lag(const struct sim_report *rep, uint32_t k0, uint32_t k1, double *mean,
                     double *max)
{
    double sum = 0;
    *max = 0;
    for (uint32_t k = k0; k < k1 && k < MAX_INTERVALS; k++) {
        double ms = rep->send_lag_us[k] / 1e3;
        sum += ms;
        *max = ms > *max ? ms : *max;
    }
    *mean = k1 > k0 ? sum / (k1 - k0) : 0;
}

/* --interval-ms: one row per LONG_STEP_K intervals after the first
 * LONG_FIRST_K (from the samples taken every LONG_SAMPLE_K lines): RSS and
 * its growth, the heap in use and obtained, the most intervals co_merge
 * held, the most STATS queued (sent, not handled), how late the STATS
 * were when handled and when the simulator sent them. Then the growth per
 * LONG_STEP_K, and whether the run kept up. */
void cm_long_report(const struct coord *c, const struct sim_report *rep, long rss_join_kb,
                    long rss_end_kb, long peak_kb)
{
    uint32_t complete = 0;
    uint64_t kk = c->printed < MAX_INTERVALS ? c->printed : MAX_INTERVALS;
    for (uint64_t k = 0; k < kk; k++)
        complete += c->reporting_at_print[k] == c->n;
    double cpu_ms = kk ? (double)(c->cpu_thread[kk] - c->cpu_thread[0]) / 1e6 / (double)kk : 0;
    printf("coordinator-merge long run: %u agents, %u intervals of %u ms (STATS from a pool of %d "
           "per agent, %.0f samples and %.0f buckets each on average)\n",
           c->n, c->printed, cm_long_ivl_ms, LONG_POOL, rep->samples_mean, rep->buckets_mean);
    printf("  lines printed %u of %u, complete when printed %u; coordinator thread CPU %.3f ms "
           "per interval (%.1f%% of a core); waiting for a CPU %.3f ms per interval\n",
           c->printed, c->k_count, complete, cpu_ms, cpu_ms / cm_long_ivl_ms * 100.0,
           kk ? c->wait_ns / 1e6 / (double)kk : 0.0);
    printf("  RSS: %.1f MB after join, %.1f MB at the end, peak %.1f MB\n", rss_join_kb / 1024.0,
           rss_end_kb / 1024.0, peak_kb / 1024.0);
    printf("  %6s %7s %8s %7s %8s %7s %7s %5s %7s %7s %7s %7s %7s %7s | %6s %7s %8s %7s %8s\n",
           "at k", "RSS MB", "dRSS KB", "heap MB", "dheap KB", "sys MB", "acc KB", "live", "queued",
           "q max", "rcv ms", "rcv max", "snd ms", "snd max", "quiet", "RSS MB", "dRSS KB",
           "heap MB", "dheap KB");
    /* rows: the first sample at or after LONG_FIRST_K + j * LONG_STEP_K */
    int row[LONG_SAMPLES], n_row = 0;
    for (uint32_t i = 0; i < c->n_ls; i++)
        if (c->ls[i].k >= LONG_FIRST_K + (uint32_t)n_row * LONG_STEP_K)
            row[n_row++] = (int)i;
    double worst = 0, worst_heap = 0, q_worst = 0, q_worst_heap = 0;
    uint64_t backlog_all = 0, live_all = 0;
    const struct long_sample *q_first = NULL, *q_prev = NULL, *q_last = NULL;
    for (int j = 0; j < n_row; j++) {
        const struct long_sample *x = &c->ls[row[j]];
        const struct long_sample *p = j ? &c->ls[row[j - 1]] : NULL;
        uint64_t live = 0, backlog = 0, n = 0;
        double lag_max = 0, lag_sum = 0, s_mean, s_max;
        for (int i = j ? row[j - 1] + 1 : 0; i <= row[j]; i++) {
            const struct long_sample *y = &c->ls[i];
            live = y->live_max > live ? y->live_max : live;
            backlog = y->backlog_max > backlog ? y->backlog_max : backlog;
            lag_max = y->recv_lag_max_ms > lag_max ? y->recv_lag_max_ms : lag_max;
            lag_sum += y->recv_lag_sum_ms;
            n += y->recv_n;
        }
        send_lag(rep, p ? p->k : 0, x->k, &s_mean, &s_max);
        double d = p ? (double)(x->rss_kb - p->rss_kb) : 0;
        double dh = p ? ((double)x->heap_used - (double)p->heap_used) / 1024.0 : 0;
        printf("  %6u %7.1f %+8.0f %7.2f %+8.0f %7.1f %7.1f %5" PRIu64 " %7" PRIu64 " %7" PRIu64
               " %7.1f %7.1f %7.1f %7.1f |",
               x->k, x->rss_kb / 1024.0, d, x->heap_used / 1048576.0, dh, x->heap_sys / 1048576.0,
               x->acc_bytes / 1024.0, live, x->backlog_now, backlog, n ? lag_sum / (double)n : 0.0,
               lag_max, s_mean, s_max);
        if (x->quiet_k) {
            double qd = q_prev ? (double)(x->quiet_rss_kb - q_prev->quiet_rss_kb) : 0;
            double qdh =
                q_prev ? ((double)x->quiet_heap_used - (double)q_prev->quiet_heap_used) / 1024.0
                       : 0;
            printf(" %6u %7.1f %+8.0f %7.2f %+8.0f\n", x->quiet_k, x->quiet_rss_kb / 1024.0, qd,
                   x->quiet_heap_used / 1048576.0, qdh);
            if (q_prev) {
                double per_k = (double)LONG_STEP_K / (double)(x->quiet_k - q_prev->quiet_k);
                q_worst = qd * per_k > q_worst ? qd * per_k : q_worst;
                q_worst_heap = qdh * per_k > q_worst_heap ? qdh * per_k : q_worst_heap;
            }
            q_first = q_first ? q_first : x;
            q_prev = q_last = x;
        } else {
            printf(" %6s (never at most %d STATS queued before the next mark)\n", "-",
                   QUIET_BACKLOG);
        }
        if (p == NULL)
            continue;
        double per_k = (double)LONG_STEP_K / (double)(x->k - p->k);
        worst = d * per_k > worst ? d * per_k : worst;
        worst_heap = dh * per_k > worst_heap ? dh * per_k : worst_heap;
        backlog_all = backlog > backlog_all ? backlog : backlog_all;
        live_all = live > live_all ? live : live_all;
    }
    double span = n_row > 1 ? (double)(c->ls[row[n_row - 1]].k - c->ls[row[0]].k) / LONG_STEP_K : 0;
    double per =
        span > 0 ? (double)(c->ls[row[n_row - 1]].rss_kb - c->ls[row[0]].rss_kb) / span : 0;
    double per_heap =
        span > 0 ? ((double)c->ls[row[n_row - 1]].heap_used - (double)c->ls[row[0]].heap_used) /
                       1024.0 / span
                 : 0;
    printf("  (acc: the bytes of the agents' own latency accumulators, co_live's per-agent "
           "lat_acc; live: intervals co_merge held, max; queued: STATS sent by the simulated "
           "agents and "
           "not yet handled, when RSS and heap were read, and q max the most since the row "
           "before; rcv: a STATS's delay after its interval's boundary when handled, mean and "
           "max; snd: the agents' delay in sending it; quiet: the same reads at the first loop "
           "turn after the mark with at most %d STATS queued)\n",
           QUIET_BACKLOG);
    printf("  growth per %d intervals after the first %d: RSS %.0f KB mean, %.0f KB worst; heap "
           "in use %.0f KB mean, %.0f KB worst; most STATS queued %" PRIu64
           " (%.1f intervals' worth), most intervals held %" PRIu64 "\n",
           LONG_STEP_K, LONG_FIRST_K, per, worst, per_heap, worst_heap, backlog_all,
           (double)backlog_all / c->n, live_all);
    double q_span = q_first && q_last != q_first
                        ? (double)(q_last->quiet_k - q_first->quiet_k) / LONG_STEP_K
                        : 0;
    double q_per = q_span > 0 ? (double)(q_last->quiet_rss_kb - q_first->quiet_rss_kb) / q_span : 0;
    double q_per_heap =
        q_span > 0
            ? ((double)q_last->quiet_heap_used - (double)q_first->quiet_heap_used) / 1024.0 / q_span
            : 0;
    if (q_span > 0)
        printf("  without a queue (quiet reads, intervals %u..%u): RSS %.0f KB, heap in use %.0f "
               "KB per %d intervals (worst step %.0f KB, %.0f KB); goal: RSS <= 1024 KB -> %s\n",
               q_first->quiet_k, q_last->quiet_k, q_per, q_per_heap, LONG_STEP_K, q_worst,
               q_worst_heap, q_per <= 1024 ? "met" : "NOT met");
    else
        printf("  no two quiet reads (the queue never drained): the growth above is the "
               "backlog's; use a longer --interval-ms or fewer agents\n");
    printf(
        "RESULT agents=%u intervals=%u interval_ms=%u complete=%u rss_growth_per_1000_kb=%.0f "
        "rss_growth_worst_kb=%.0f heap_growth_per_1000_kb=%.0f quiet_rss_growth_per_1000_kb=%.0f "
        "quiet_heap_growth_per_1000_kb=%.0f backlog_max=%" PRIu64 " live_max=%" PRIu64
        " peak_rss_mb=%.1f\n",
        c->n, c->printed, cm_long_ivl_ms, complete, per, worst, per_heap, q_per, q_per_heap,
        backlog_all, live_all, peak_kb / 1024.0);
}
