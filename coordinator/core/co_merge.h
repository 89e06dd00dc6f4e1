/* co_merge: per-interval merging of the agents' STATS (docs/design.md §4, §7.2).
 *
 * Interval k covers [t0 + k*I, t0 + (k+1)*I). Each agent's STATS(k) is
 * added exactly (counters field by field, histograms bucket by bucket: the
 * latency and, in rate mode, the service time), so the merged percentiles
 * are those of every sample pooled. A line is due
 * when every live agent has reported k, or once its boundary plus the grace
 * period has passed; a STATS arriving after its line was printed is still
 * merged and marks the interval (and the agent) late. An agent declared
 * lost is no longer waited for; intervals it did not report are partial.
 *
 * Memory: an interval's merged histograms stay expanded (a pr_hist) while
 * it is open and for CO_MERGE_KEEP_EXPANDED intervals after it closed, the
 * window in which late STATS are common; older ones are frozen
 * (pr_hist_frozen, a few KB instead of a 186 KB array), and a STATS still
 * arriving for one is added to the frozen form directly. Per-agent
 * histograms (keep_agent_hists) are frozen as they arrive. Once written
 * out, an interval is released (co_merge_release): its histograms and
 * per-agent state are freed and its slot dropped, so a run of any length
 * holds only the intervals not yet final.
 *
 * Thread: one thread. The intervals are co_result's plain data, moved out
 * with co_merge_take().
 */
#ifndef CO_MERGE_H
#define CO_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "co_result.h"
#include "pr_msg.h"

/* Bound on interval indexes accepted (a bad k cannot make us allocate). */
#define CO_MERGE_MAX_INTERVALS (1u << 22)
/* Closed intervals kept expanded behind the lowest open one. */
#define CO_MERGE_KEEP_EXPANDED 3

typedef struct co_merge co_merge;

/* threads[i]: connections of agent i (for the interval's thread count).
 * keep_agent_hists: also keep each agent's own histogram per interval,
 * frozen (co_interval_result.agent_lat_frozen, for --hdr-log); otherwise
 * the interval has no per-agent array at all. */
co_merge *co_merge_new(uint32_t n_agents, const uint32_t *threads, uint32_t interval_ms,
                       bool keep_agent_hists);

/* Merge agent's STATS. Returns 0 (with *late true when its line was
 * already printed) or PR_ERANGE (k beyond the bound, or a second STATS for
 * the same k from the same agent: ignored). */
int co_merge_add(co_merge *m, uint32_t agent, const struct pr_msg_stats *st, bool *late);

/* The statement kinds' names (READY.kinds; borrowed, must outlive m and
 * the intervals taken from it): each interval's kinds (STATS.kst, merged
 * index by index) are named from them. */
void co_merge_set_kinds(co_merge *m, char *const *names, uint32_t n);
/* From now on the agent is not waited for. */
void co_merge_agent_lost(co_merge *m, uint32_t agent);

/* The lowest interval not yet printed, when it is due at elapsed_ns (time
 * since t0 on our clock) with the given grace: returns true and sets *k.
 * *early is set when every live agent reported it before its boundary (the
 * agents stopped inside it: a tail interval, not a full one). */
bool co_merge_due(co_merge *m, uint64_t elapsed_ns, uint64_t grace_ns, uint64_t *k, bool *early);

/* Mark interval k handled: printed (a line went out) or skipped (a tail);
 * len_s is its length for rates, from its start k*I, so that its end t_s
 * becomes k*I + len_s (a tail ends when its samples did, not at the
 * boundary it never reached). Later STATS for it count as late. */
void co_merge_close(co_merge *m, uint64_t k, bool printed, double len_s);

/* The run's samples ended at end_ns since t0 (the last agent's DONE: the
 * instant co_result.time_s measures). Every interval closed as a tail (not
 * printed) ends at it or at its boundary, whichever
 * comes first: t_s = max(start, min(end, boundary)), len_s = t_s - start. A tail closed early,
 * before the end was known, gets its final length this way. Call once the phase is over. */
void co_merge_end(co_merge *m, uint64_t end_ns);

/* Interval k (NULL when none arrived for it). Borrowed. Its lat is the
 * expanded histogram for an interval not yet closed or closed within the
 * last CO_MERGE_KEEP_EXPANDED; older ones have lat NULL and lat_frozen
 * set: read either with co_interval_lat(). */
const struct co_interval_result *co_merge_get(const co_merge *m, uint64_t k);

/* Number of interval slots (highest k + 1). */
uint64_t co_merge_count(const co_merge *m);

/* Live agents (not lost). */
uint32_t co_merge_live(const co_merge *m);

/* Per agent: STATS received and late ones. */
uint32_t co_merge_agent_intervals(const co_merge *m, uint32_t agent);
uint32_t co_merge_agent_late(const co_merge *m, uint32_t agent);

/* Streaming (runs of any length): the lowest interval not yet released
 * that is final enough to be written out: closed and printed (a tail waits
 * for co_merge_end), and every live agent
 * reported it, or CO_MERGE_KEEP_EXPANDED intervals closed after it (a late
 * STATS is not waited for longer), or all is true (the run is over).
 * Returns true and sets *k. Intervals are released in k order. */
bool co_merge_next_final(co_merge *m, bool all, uint64_t *k);

/* Interval k for writing out, created empty when no agent reported it;
 * NULL once released or k beyond the bound. Borrowed. */
struct co_interval_result *co_merge_slot(co_merge *m, uint64_t k);

/* Free interval k's histograms and per-agent state once it was written
 * out (k must be the one co_merge_next_final() returned; any other is
 * ignored). A STATS arriving for it later is still counted (its agent's
 * intervals and late ones, the slot's counters) and co_merge_add()
 * returns 0 with *late true, but its histograms are the caller's to keep
 * (the run's totals): the interval is on disk already. A duplicate STATS
 * for a released interval cannot be told from a late one. */
void co_merge_release(co_merge *m, uint64_t k);

/* Interval k was released. */
bool co_merge_is_released(const co_merge *m, uint64_t k);

/* The run's per-kind figures: every STATS.kst co_merge_add() accepted,
 * merged (expanded histograms), lost agents' and released intervals'
 * included (each interval's kinds are added once, as they freeze, are
 * released or taken; a STATS arriving after that is added on its own).
 * Moved to the caller (free with co_kinds_free); m keeps none. *out NULL,
 * *n 0 when no STATS had kinds. */
void co_merge_take_run_kinds(co_merge *m, struct co_kind_result **out, uint32_t *n);

/* Move the intervals not released out (ownership to the caller, who frees
 * them through co_result_clear). m keeps nothing. */
void co_merge_take(co_merge *m, struct co_interval_result **out, uint32_t *n);

void co_merge_destroy(co_merge **m);

#endif
