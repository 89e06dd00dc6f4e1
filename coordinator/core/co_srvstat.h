/* co_srvstat: the server's side over time, interval by interval
 * (README "Environment", intervals[].server_status).
 *
 * The lead agent's SHOW GLOBAL STATUS samples (READY.srv, then STATS(k).srv
 * at the end of each interval k) become, per interval, the PR_ENV_STATUS
 * figures: a gauge's value at the interval's end, a counter's increase
 * over it (divided by the interval's len_s when written). An interval gets
 * figures only when the sample before it (STATS(k-1) or READY) came too;
 * a counter that went back (FLUSH STATUS, a restart) or that the server
 * does not have is unknown (null).
 *
 * Thread: one thread, the coordinator's run loop.
 */
#ifndef CO_SRVSTAT_H
#define CO_SRVSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "co_result.h"
#include "pr_env.h"
#include "pr_msg.h"

#define CO__SRVSTAT_COUNT(name, kind) +1
enum { CO_SRVSTAT_N = 0 PR_ENV_STATUS(CO__SRVSTAT_COUNT) };

/* One interval's figures, in PR_ENV_STATUS order. Plain data. */
struct co_srv_status {
    bool has[CO_SRVSTAT_N];       /* known */
    uint64_t value[CO_SRVSTAT_N]; /* gauge: value at the end; counter: increase */
};

typedef struct co_srvstat co_srvstat;

/* Every function but _new accepts t NULL and then does nothing. */
co_srvstat *co_srvstat_new(void);
void co_srvstat_destroy(co_srvstat **t);

/* The lead's READY sample (srv borrowed): what interval 0 starts from. */
void co_srvstat_baseline(co_srvstat *t, const struct pr_msg_stat *srv, uint32_t n);

/* The lead's STATS(k) sample: interval k's figures when the previous
 * sample was k - 1's (or the baseline, for k 0). k at or above
 * CO_MERGE_MAX_INTERVALS is ignored. */
void co_srvstat_sample(co_srvstat *t, uint64_t k, const struct pr_msg_stat *srv, uint32_t n);

/* Give each of the n intervals (in k order, iv[i].k) its figures: a heap
 * struct co_srv_status in iv[i].srv_status, which co_result_clear frees;
 * NULL when the interval has none. t keeps nothing of them. */
void co_srvstat_take(co_srvstat *t, struct co_interval_result *iv, uint32_t n);

/* Forget the figures of every interval below k (released and written:
 * README "Long runs"), so memory is bounded by the live window; a later
 * sample or take for them finds nothing. */
void co_srvstat_drop_below(co_srvstat *t, uint64_t k);

/* JSON: the member ', "server_status": {...}' (inside an interval object,
 * after its other members), or ', "server_status": null' when iv has no
 * figures or is a tail (not printed: the lead's last sample comes once the
 * connections have closed, after the interval's end). */
void co_srvstat_json(FILE *f, const struct co_interval_result *iv);

/* CSV: the header's columns (",srv_threads_running,...", lower-case
 * JSON keys with "srv_") and a row's fields (empty when unknown), both
 * without a newline. */
void co_srvstat_csv_header(FILE *f);
void co_srvstat_csv_row(FILE *f, const struct co_interval_result *iv);

#endif
