/* co_kinds: per statement kind figures (co_kind_result, held by co_result),
 * merged exactly: counts added, histograms added bucket by bucket, so each
 * kind's merged percentiles are those of every agent's samples pooled.
 * The merge knows no family: kinds are names and indexes (READY.kinds). */
#ifndef CO_KINDS_H
#define CO_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_hist.h"
#include "pr_msg.h"

/* One statement kind's figures (READY.kinds, STATS.kst, DONE.kst), merged
 * exactly over the agents. Its latency is held expanded (lat) while the
 * interval's is, else frozen (lat_frozen); read it with co_kind_lat()
 * (below). name is borrowed from co_result.kind_names. */
struct co_kind_result {
    const char *name;
    uint64_t count;             /* statements that succeeded */
    uint64_t errors;            /* statements that failed (ignored errors) */
    pr_hist *lat;               /* latency µs, or NULL when frozen */
    pr_hist_frozen *lat_frozen; /* the same frozen, or NULL */
    uint64_t late;              /* of count, events at or over the kind's response-time
                                   limit (pr_msg_kstat.late; tpcc's lt), exact */
};

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

/* Free the array and its histograms; *k NULL, *n 0. */
void co_kinds_free(struct co_kind_result **k, uint32_t *n);

/* k's latency for reading: k->lat, or k->lat_frozen thawed into scratch,
 * or scratch emptied (NULL when scratch is NULL and k is not expanded).
 * Valid until scratch is next written. */
const pr_hist *co_kind_lat(const struct co_kind_result *k, pr_hist *scratch);

#endif
