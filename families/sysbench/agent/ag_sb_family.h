/* ag_sb_family: the sysbench family (the 11 sysbench 1.0.20 workloads of
 * ag_sb_workload, the loaders of ag_sb_load and the check of ag_sb_check) behind
 * struct ag_family. Its one registration line is in ag_registry.c.
 *
 * Retry policy: an ignorable error or a reconnect restarts the event with
 * newly drawn parameters (sysbench re-runs event()). Every event ends
 * AG_STEP_COMMITTED (sysbench has no deliberate rollback); it reads no
 * result (result op NULL), so its statements cost what they did before.
 */
#ifndef AG_SB_FAMILY_H
#define AG_SB_FAMILY_H

#include "ag_family.h"
#include "ag_sb_workload.h"

extern const struct ag_family ag_sb_family;

/* The sysbench workload behind a sysbench-family wl (borrowed). */
const ag_sb_workload *ag_sb_family_workload(const struct ag_wl *wl);

/* The cursor behind a sysbench-family generator (borrowed), e.g. to set
 * its RNG state for bit-exact comparisons. */
ag_sb_cursor *ag_sb_family_cursor(struct ag_gen *g);

#endif
