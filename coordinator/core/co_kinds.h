/* co_kinds: per statement kind figures (co_kind_result, co_result.h),
 * merged exactly: counts added, histograms added bucket by bucket, so each
 * kind's merged percentiles are those of every agent's samples pooled.
 * The merge knows no family: kinds are names and indexes (READY.kinds). */
#ifndef CO_KINDS_H
#define CO_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "co_result.h"
#include "pr_msg.h"

/* *dst (n entries, allocated on first use with n_src entries, names from
 * names[0..n_names) or NULL) += src[0..n_src). Expanded histograms when
 * expanded, else frozen ones. Entries beyond the shorter list are left. */
void co_kinds_add(struct co_kind_result **dst, uint32_t *n, const struct pr_msg_kstat *src,
                  uint32_t n_src, char *const *names, uint32_t n_names, bool expanded);

/* k's latency (expanded or frozen) += src's (lat, else lat_frozen as
 * decoded; neither: nothing added). Cost: src's buckets when src is
 * frozen. */
void co_kind_add_lat(struct co_kind_result *k, const struct pr_msg_kstat *src);

/* *dst (expanded, allocated on first use with n_src entries) += src[0..n_src)
 * (merged figures, either form), names taken where not named yet. */
void co_kinds_sum(struct co_kind_result **dst, uint32_t *n, const struct co_kind_result *src,
                  uint32_t n_src);

/* Name the entries from names (borrowed) where not named yet. */
void co_kinds_name(struct co_kind_result *k, uint32_t n, char *const *names, uint32_t n_names);

/* Freeze every expanded histogram (an old interval). */
void co_kinds_freeze(struct co_kind_result *k, uint32_t n);

/* READY: the first agent declaring kinds sets res->kind_names; every
 * other must declare the same list: else PR_EINVAL with err saying so. */
int co_kinds_ready(struct co_result *res, const struct pr_msg_ready *rd, struct pr_error *err);

/* DONE: res->kinds (whole run) += d->kst. */
void co_kinds_done(struct co_result *res, const struct pr_msg_done *d);

/* At the run's end, *run (n_run entries: every STATS.kst merged,
 * co_merge_take_run_kinds(), moved in) decides the per-kind totals when an
 * agent sent no DONE (lost): res->kinds, the sum of the DONE.kst received,
 * misses that agent, so it is replaced by *run (res->n_kinds entries, names
 * set), which holds the lost agent's figures up to its loss, as the run's
 * latency does (the sum of the intervals). When every agent sent DONE
 * res->kinds stays. *run is consumed either way (NULL, *n_run 0). */
void co_kinds_finish(struct co_result *res, struct co_kind_result **run, uint32_t *n_run);

/* Free the array and its histograms; *k NULL, *n 0. */
void co_kinds_free(struct co_kind_result **k, uint32_t *n);

/* k's latency for reading: k->lat, or k->lat_frozen thawed into scratch,
 * or scratch emptied (NULL when scratch is NULL and k is not expanded).
 * Valid until scratch is next written. */
const pr_hist *co_kind_lat(const struct co_kind_result *k, pr_hist *scratch);

#endif
