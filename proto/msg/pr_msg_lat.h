/* pr_msg_lat: a STATS' latency read whichever form it holds — lat (what
 * an agent builds and encodes) or lat_frozen (what pr_msg_decode() fills:
 * pr_msg.h) — so that readers need not test both. Each costs what its
 * form costs: for the frozen one, its occupied buckets, never the 186 KB
 * array. Thread: the caller's, st only read. */
#ifndef PR_MSG_LAT_H
#define PR_MSG_LAT_H

#include <stdint.h>

#include "pr_hist.h"
#include "pr_msg.h"

/* dst += st's latency, exact. */
void pr_msg_stats_lat_add(pr_hist *dst, const struct pr_msg_stats *st);
/* *dst += st's latency, kept frozen (a NULL *dst becomes a copy). */
void pr_msg_stats_lat_fold(pr_hist_frozen **dst, const struct pr_msg_stats *st);
/* acc += st's latency, exact (a running sum: pr_hist_acc). */
void pr_msg_stats_lat_acc(pr_hist_acc *acc, const struct pr_msg_stats *st);
/* A frozen copy of st's latency, the caller's. */
pr_hist_frozen *pr_msg_stats_lat_freeze(const struct pr_msg_stats *st);
/* Samples, sum (µs) and the value at percentile p of st's latency (0 for
 * none, as pr_hist's accessors). */
uint64_t pr_msg_stats_lat_count(const struct pr_msg_stats *st);
uint64_t pr_msg_stats_lat_sum(const struct pr_msg_stats *st);
uint64_t pr_msg_stats_lat_percentile(const struct pr_msg_stats *st, double p);
/* Iterate st's latency buckets (pr_hist_next / pr_hist_frozen_next). */
bool pr_msg_stats_lat_next(const struct pr_msg_stats *st, struct pr_hist_iter *it);

#endif
