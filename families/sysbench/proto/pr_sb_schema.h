/* pr_sb_schema: the sysbench family's schema, shared by coordinator and
 * agent (docs/design.md §8.2): its statement kinds and its plan rule for
 * --partition. The option schema itself is pr_opts (sysbench 1.0.20's
 * option sets). Bytes only, no I/O. */
#ifndef PR_SB_SCHEMA_H
#define PR_SB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "pr_msg.h"

/* The sysbench family's statement kinds, in a fixed order (their index is
 * the kind id a sysbench agent declares in READY). */
#define PR_SB_KINDS(X)                                                                             \
    X(POINT, "point_selects")                                                                      \
    X(SIMPLE, "simple_ranges")                                                                     \
    X(SUM, "sum_ranges")                                                                           \
    X(ORDER, "order_ranges")                                                                       \
    X(DISTINCT, "distinct_ranges")                                                                 \
    X(INDEX, "index_updates")                                                                      \
    X(NONINDEX, "non_index_updates")                                                               \
    X(DELETE, "deletes")                                                                           \
    X(INSERT, "inserts")                                                                           \
    X(BEGIN, "begin")                                                                              \
    X(COMMIT, "commit")                                                                            \
    X(RPOINTS, "random_points")                                                                    \
    X(RRANGES, "random_ranges")                                                                    \
    X(BULK, "bulk_insert")

enum pr_sb_kind {
#define PR__SB_KIND_ENUM(id, name) PR_SB_K_##id,
    PR_SB_KINDS(PR__SB_KIND_ENUM)
#undef PR__SB_KIND_ENUM
        PR_SB_K_COUNT_
};

/* True when workload `name` is one of the family's 11 built-in scripts
 * (pr_opts' PR_WL_* up to PR_WL_SB_LAST_). */
bool pr_sb_has_workload(const char *name);

/* Name of kind k (< PR_SB_K_COUNT_): static string. */
const char *pr_sb_kind_name(enum pr_sb_kind k);

/* The partition-fit rule, the one place it lives: why --partition=part
 * cannot confine sysbench workload wl (a pr_workload id), or NULL when it
 * can (always for PR_PART_NONE). Static string. */
const char *pr_sb_partition_unfit(int wl, enum pr_partition part);

#endif
