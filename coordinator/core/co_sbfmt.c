/* co_sbfmt: sysbench 1.0.20's text format, from merged stampede figures.
 * The format strings are sysbench's own (checked against the strings of the
 * 1.0.20 binary); see co_sbfmt.h for what differs and why. */
#include "co_sbfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "pr_err.h"

/* sysbench's histogram geometry (sb_histogram_init(h, 1024, 0.001, 1e5)). */
#define SB_BUCKETS 1024
#define SB_MIN_MS  0.001
#define SB_MAX_MS  100000.0

static const char stars[] = "****************************************";

/* Status after writing: a stream error is the only way printing fails. */
static int stream_status(FILE *out)
{
    return ferror(out) ? -EIO : 0;
}

static double per_sec(uint64_t n, double seconds)
{
    return seconds > 0 ? (double)n / seconds : 0.0;
}

/* The percentile-th percentile of hist in ms; 0 when disabled or empty. */
static double percentile_ms(const pr_hist *hist, uint32_t percentile)
{
    if (percentile == 0)
        return 0.0;
    return (double)pr_hist_value_at_percentile(hist, percentile) / 1000.0;
}

int co_sbfmt_banner(FILE *out, bool strict)
{
    if (!out)
        return PR_EINVAL;
    /* sysbench's header message ends with its own "\n": hence the blank line. */
    if (strict)
        fprintf(out, "sysbench 1.0.20 (using stampede %s)\n\n", STAMPEDE_VERSION);
    else
        fprintf(out, "stampede %s (sysbench 1.0.20 compatible)\n\n", STAMPEDE_VERSION);
    return stream_status(out);
}

int co_sbfmt_header(FILE *out, const struct co_sbfmt_opts *opts)
{
    if (!out || !opts || opts->percentile > 100)
        return PR_EINVAL;
    co_sbfmt_banner(out, opts->strict);
    fprintf(out, "Running the test with following options:\n");
    fprintf(out, "Number of threads: %" PRIu32 "\n", opts->threads);
    if (opts->rate > 0)
        fprintf(out, "Target transaction rate: %" PRIu64 "/sec\n", opts->rate);
    if (opts->report_interval_s > 0)
        fprintf(out, "Report intermediate results every %" PRIu32 " second(s)\n",
                opts->report_interval_s);
    if (opts->n_checkpoints > 0) {
        fprintf(out, "Report checkpoint(s) at ");
        for (uint32_t i = 0; i < opts->n_checkpoints; i++)
            fprintf(out, "%s%" PRIu32, i ? ", " : "", opts->checkpoints[i]);
        fprintf(out, " seconds\n");
    }
    if (opts->seed != 0)
        fprintf(out, "Initializing random number generator from seed (%" PRIu64 ").\n\n",
                opts->seed);
    else
        fprintf(out, "Initializing random number generator from current time\n\n");
    if (opts->forced_shutdown)
        fprintf(out, "Forcing shutdown in %" PRIu64 " seconds\n", opts->forced_shutdown_s);
    fprintf(out, "\nInitializing worker threads...\n\n");
    return stream_status(out);
}

int co_sbfmt_started(FILE *out)
{
    if (!out)
        return PR_EINVAL;
    fprintf(out, "Threads started!\n\n");
    return stream_status(out);
}

int co_sbfmt_interval(FILE *out, const struct co_sbfmt_opts *opts,
                      const struct co_sbfmt_interval *iv)
{
    if (!out || !opts || !iv || !iv->hist || opts->percentile > 100)
        return PR_EINVAL;
    const struct pr_counters *c = &iv->counters;
    double secs = iv->interval_s;
    fprintf(out,
            "[ %.0fs ] thds: %" PRIu32 " tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f)"
            " lat (ms,%" PRIu32 "%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
            iv->time_s, iv->threads_running, per_sec(c->transactions, secs),
            per_sec(pr_counters_queries(c), secs), per_sec(c->reads, secs),
            per_sec(c->writes, secs), per_sec(c->other, secs), opts->percentile,
            percentile_ms(iv->hist, opts->percentile), per_sec(c->errors, secs),
            per_sec(c->reconnects, secs));
    if ((iv->marks & CO_SBFMT_LATE) && !opts->strict)
        fputs(" [late]", out);
    if ((iv->marks & CO_SBFMT_PARTIAL) && !opts->strict)
        fputs(" [partial]", out);
    fputc('\n', out);
    if (opts->rate > 0)
        fprintf(out, "[ %.0fs ] queue length: %" PRIu64 ", concurrency: %" PRIu64 "\n", iv->time_s,
                iv->queue_len, iv->concurrency);
    return stream_status(out);
}

/* Fold hist onto sysbench's buckets: sb[i] receives every sample of our
 * buckets whose midpoint falls in sysbench bucket i. */
static void fold_onto_sysbench(const pr_hist *hist, uint64_t sb[SB_BUCKETS], double deduct,
                               double mult)
{
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    while (pr_hist_next(hist, &it)) {
        double mid_ms = ((double)it.lowest_us + (double)it.value_us) / 2.0 / 1000.0;
        double idx = floor((log(mid_ms) - deduct) * mult + 0.5);
        size_t i = idx < 0 ? 0 : idx >= SB_BUCKETS ? SB_BUCKETS - 1 : (size_t)idx;
        sb[i] += it.count;
    }
}

int co_sbfmt_histogram(FILE *out, const pr_hist *hist)
{
    if (!out || !hist)
        return PR_EINVAL;
    /* Computed as sysbench does, so bucket values match to the last bit. */
    const double deduct = log(SB_MIN_MS);
    const double mult = (SB_BUCKETS - 1) / (log(SB_MAX_MS) - deduct);
    uint64_t sb[SB_BUCKETS] = {0};
    uint64_t max_count = 0;

    fold_onto_sysbench(hist, sb, deduct, mult);
    for (size_t i = 0; i < SB_BUCKETS; i++)
        max_count = sb[i] > max_count ? sb[i] : max_count;

    fprintf(out, "Latency histogram (values are in milliseconds)\n");
    if (max_count > 0)
        fprintf(out, "       value  ------------- distribution ------------- count\n");
    for (size_t i = 0; i < SB_BUCKETS && max_count > 0; i++) {
        if (sb[i] == 0)
            continue;
        int width = (int)floor((double)sb[i] * 40.0 / (double)max_count + 0.5);
        fprintf(out, "%12.3f |%-40.*s %" PRIu64 "\n", exp((double)i / mult + deduct), width, stars,
                sb[i]);
    }
    fprintf(out, " \n");
    return stream_status(out);
}

static void print_sql_stats(FILE *out, const struct co_sbfmt_final *fin)
{
    const struct pr_counters *c = &fin->counters;
    double secs = fin->rate_time_s > 0 ? fin->rate_time_s : fin->total_time_s;
    uint64_t queries = pr_counters_queries(c);

    fprintf(out, "SQL statistics:\n");
    fprintf(out, "    queries performed:\n");
    fprintf(out, "        read:                            %" PRIu64 "\n", c->reads);
    fprintf(out, "        write:                           %" PRIu64 "\n", c->writes);
    fprintf(out, "        other:                           %" PRIu64 "\n", c->other);
    fprintf(out, "        total:                           %" PRIu64 "\n", queries);
    fprintf(out, "    transactions:                        %-6" PRIu64 " (%.2f per sec.)\n",
            c->transactions, per_sec(c->transactions, secs));
    fprintf(out, "    queries:                             %-6" PRIu64 " (%.2f per sec.)\n",
            queries, per_sec(queries, secs));
    fprintf(out, "    ignored errors:                      %-6" PRIu64 " (%.2f per sec.)\n",
            c->errors, per_sec(c->errors, secs));
    fprintf(out, "    reconnects:                          %-6" PRIu64 " (%.2f per sec.)\n\n",
            c->reconnects, per_sec(c->reconnects, secs));
}

static void print_latency(FILE *out, uint32_t percentile, const pr_hist *hist)
{
    fprintf(out, "Latency (ms):\n");
    fprintf(out, "         min: %39.2f\n", (double)pr_hist_min(hist) / 1000.0);
    fprintf(out, "         avg: %39.2f\n", pr_hist_mean(hist) / 1000.0);
    fprintf(out, "         max: %39.2f\n", (double)pr_hist_max(hist) / 1000.0);
    if (percentile > 0)
        fprintf(out, "        %3" PRIu32 "th percentile: %27.2f\n", percentile,
                percentile_ms(hist, percentile));
    else
        fprintf(out, "         percentile stats:               disabled\n");
    fprintf(out, "         sum: %39.2f\n\n", (double)pr_hist_sum(hist) / 1000.0);
}

void co_sbfmt_fairness_of(const struct co_sbfmt_unit *units, size_t n,
                          struct co_sbfmt_fairness *out)
{
    double ev_sum = 0, time_sum = 0, ev_var = 0, time_var = 0;

    if (n == 0) { /* no unit measured (every agent's checkpoint STATS late) */
        *out = (struct co_sbfmt_fairness){0};
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ev_sum += (double)units[i].events;
        time_sum += (double)units[i].lat_sum_us / 1e6;
    }
    double ev_avg = ev_sum / (double)n, time_avg = time_sum / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d_ev = ev_avg - (double)units[i].events;
        double d_time = time_avg - (double)units[i].lat_sum_us / 1e6;
        ev_var += d_ev * d_ev;
        time_var += d_time * d_time;
    }
    *out = (struct co_sbfmt_fairness){ev_avg, sqrt(ev_var / (double)n), time_avg,
                                      sqrt(time_var / (double)n)};
}

static void print_fairness(FILE *out, const struct co_sbfmt_unit *units, size_t n)
{
    struct co_sbfmt_fairness f;
    co_sbfmt_fairness_of(units, n, &f);
    fprintf(out, "Threads fairness:\n");
    fprintf(out, "    events (avg/stddev):           %.4f/%3.2f\n", f.events_avg, f.events_stddev);
    fprintf(out, "    execution time (avg/stddev):   %.4f/%3.2f\n\n", f.time_avg_s,
            f.time_stddev_s);
}

int co_sbfmt_final(FILE *out, const struct co_sbfmt_opts *opts, const struct co_sbfmt_final *fin)
{
    if (!out || !opts || !fin || !fin->hist || !fin->units || fin->n_units == 0 ||
        opts->percentile > 100)
        return PR_EINVAL;
    if (opts->histogram) {
        int rc = co_sbfmt_histogram(out, fin->hist);
        if (rc < 0)
            return rc;
    }
    print_sql_stats(out, fin);
    if (fin->unfinished > 0)
        fprintf(out, "Number of unfinished transactions on forced shutdown: %" PRIu64 "\n\n",
                fin->unfinished);
    fprintf(out, "General statistics:\n");
    fprintf(out, "    total time:                          %.4fs\n", fin->total_time_s);
    fprintf(out, "    total number of events:              %" PRIu64 "\n\n",
            fin->counters.transactions);
    print_latency(out, opts->percentile, fin->hist);
    print_fairness(out, fin->units, fin->n_units);
    return stream_status(out);
}
