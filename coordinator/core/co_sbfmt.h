/* co_sbfmt: sysbench 1.0.20's text format — an output format like CSV,
 * used by every family that prints sysbench's format (live lines and
 * summary).
 *
 * Writes to a FILE * the labels, spacing and number formats of sysbench
 * 1.0.20 (docs/design.md §13.1, Output), byte for byte, so
 * scripts that parse sysbench output keep working. The inputs are plain data
 * the coordinator has already merged over its agents: struct pr_counters, a
 * pr_hist of latencies in microseconds, times in seconds, options. Nothing
 * here keeps state or allocates; every function only reads its arguments.
 *
 * Where we differ from sysbench, on purpose (unless opts->strict):
 * - The first line is "stampede <version> (sysbench 1.0.20 compatible)";
 *   strict (--report-format=sysbench): "sysbench 1.0.20 (using stampede
 *   <version>)", as sysbench names its Lua ("using system LuaJIT ...").
 * - Percentiles come from pr_hist (HdrHistogram layout, within 0.1% of the
 *   true value, rank ceil(p/100 * N), see pr_hist.h), not from sysbench's
 *   1024 log buckets (1.8% steps, rank floor(N * p/100 + 0.5), 100 s
 *   ceiling). min, avg, max and sum are exact in both.
 * - The --histogram block folds our buckets onto sysbench's 1024 buckets, so
 *   it has sysbench's rows and values (co_sbfmt_histogram()).
 * - An interval line may end with markers (CO_SBFMT_LATE, ...); strict:
 *   never.
 * - A rate whose time denominator is not positive prints 0.00 (sysbench
 *   would print inf or nan).
 * - No --debug lines.
 *
 * Errors: every function returns 0, PR_EINVAL for bad arguments (checked
 * before anything is written) or -EIO when the stream reports an error after
 * writing (ferror()). Thread: none of its own; the caller owns the FILE.
 */
#ifndef CO_SBFMT_H
#define CO_SBFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pr_counters.h"
#include "pr_hist.h"

/* The run options the report shows (sysbench's names in quotes). */
struct co_sbfmt_opts {
    uint32_t threads;            /* connections over all agents ("--threads") */
    uint64_t rate;               /* target events/s over all agents; 0: closed loop */
    uint32_t report_interval_s;  /* "--report-interval"; 0: no interval lines */
    uint64_t seed;               /* "--rand-seed"; 0: seeded from the current time */
    uint32_t percentile;         /* "--percentile", 0..100; 0 disables percentiles */
    bool histogram;              /* "--histogram": co_sbfmt_final() prints the block */
    bool strict;                 /* --report-format=sysbench: sysbench's banner, no markers */
    const uint32_t *checkpoints; /* "--report-checkpoints" (s, ascending), n_checkpoints */
    uint32_t n_checkpoints;
    bool forced_shutdown;       /* "--forced-shutdown" in force ... */
    uint64_t forced_shutdown_s; /* ... at this many seconds: --time + its delay */
};

/* Interval markers, appended after "reconn/s: X.XX" so that sysbench
 * regexes (which match fields, not the end of line) still parse the line. */
#define CO_SBFMT_LATE    0x1u /* " [late]": some agent's figures came after the deadline */
#define CO_SBFMT_PARTIAL 0x2u /* " [partial]": some agent's figures are missing (lost) */

/* One interval line (sysbench's report_intermediate). */
struct co_sbfmt_interval {
    double time_s;               /* run time at the report, printed "[ %.0fs ]" */
    double interval_s;           /* seconds the interval covers: denominator of the rates */
    uint32_t threads_running;    /* connections running ("thds:") */
    struct pr_counters counters; /* what happened during the interval */
    const pr_hist *hist;         /* latencies of the interval only (borrowed) */
    uint64_t queue_len;          /* rate mode: arrivals waiting for a connection */
    uint64_t concurrency;        /* rate mode: events in flight */
    unsigned marks;              /* CO_SBFMT_LATE | CO_SBFMT_PARTIAL, or 0 */
};

/* One unit of "Threads fairness": a connection (as sysbench's threads) or,
 * when only per-agent totals are known, an agent. */
struct co_sbfmt_unit {
    uint64_t events;     /* events it completed */
    uint64_t lat_sum_us; /* sum of their latencies */
};

/* "Threads fairness" over n >= 1 units: averages and population standard
 * deviations, as sysbench computes them over its threads (events, and
 * latency sums in seconds). */
struct co_sbfmt_fairness {
    double events_avg, events_stddev;
    double time_avg_s, time_stddev_s;
};
void co_sbfmt_fairness_of(const struct co_sbfmt_unit *units, size_t n,
                          struct co_sbfmt_fairness *out);

/* The final report (sysbench's report_cumulative). */
struct co_sbfmt_final {
    struct pr_counters counters;       /* the whole run */
    const pr_hist *hist;               /* latencies of the whole run (borrowed) */
    double total_time_s;               /* printed as "total time" */
    double rate_time_s;                /* denominator of "per sec."; <= 0: total_time_s */
    const struct co_sbfmt_unit *units; /* fairness units (borrowed), n_units >= 1 */
    size_t n_units;
    uint64_t unfinished; /* > 0: "Number of unfinished transactions on forced shutdown" */
};

/* The version line and its blank line: stampede's, or sysbench's when
 * strict (co_sbfmt_opts.strict). Every command's output starts with it. */
int co_sbfmt_banner(FILE *out, bool strict);

/* The run header, from the version line down to "Initializing worker
 * threads..." and its blank line: options, target rate when opts->rate > 0,
 * report interval when set, "Report checkpoint(s) at 10, 20 seconds" when
 * opts->n_checkpoints, seed line, and "Forcing shutdown in N seconds" with
 * opts->forced_shutdown. */
int co_sbfmt_header(FILE *out, const struct co_sbfmt_opts *opts);

/* "Threads started!" and its blank line: print when the load starts. */
int co_sbfmt_started(FILE *out);

/* One interval line "[ Ns ] thds: ... reconn/s: X.XX" plus its markers, and
 * in rate mode (opts->rate > 0) the "[ Ns ] queue length: Q, concurrency: C"
 * line. lat is the opts->percentile-th percentile of iv->hist in ms (0.00
 * when the percentile is 0 or the interval is empty). */
int co_sbfmt_interval(FILE *out, const struct co_sbfmt_opts *opts,
                      const struct co_sbfmt_interval *iv);

/* The --histogram block: the title, one row per non-empty sysbench bucket
 * ("%12.3f |%-40.*s %lu", stars scaled to the fullest row) and the " " line.
 * Mapping: each of our buckets goes, whole, into the sysbench bucket (1024
 * log buckets over 0.001 .. 100000 ms, index floor(ln(v / 0.001 ms) * M +
 * 0.5), M = 1023 / ln(1e8)) of its midpoint v; our buckets are at most 0.1%
 * wide, so only a value within 0.05% of a sysbench boundary can land one row
 * off. Each row shows sysbench's value for its bucket, 0.001 * e^(i/M) ms.
 * An empty histogram prints only the title and the " " line, as sysbench. */
int co_sbfmt_histogram(FILE *out, const pr_hist *hist);

/* The final report (and, after "[ Ns ] Checkpoint report:", a checkpoint's):
 * the --histogram block first when opts->histogram, then
 * "SQL statistics" (with fin->unfinished > 0, "Number of unfinished
 * transactions on forced shutdown: K" and a blank line after it, where
 * sysbench 1.0.20 prints it), "General statistics", "Latency (ms)" (min/avg/max/sum
 * exact from fin->hist, the percentile from it too, or "percentile stats:
 * disabled" when opts->percentile is 0) and "Threads fairness" (averages
 * over fin->n_units units, population standard deviations), each section
 * followed by a blank line. PR_EINVAL when fin->n_units is 0. */
int co_sbfmt_final(FILE *out, const struct co_sbfmt_opts *opts, const struct co_sbfmt_final *fin);

#endif
