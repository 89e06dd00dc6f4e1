/* ag_sb_share: the part of the data one agent's run may touch under
 * --partition (docs/design.md §5; PLAN.part and PLAN.tables in pr_msg.h), and the
 * draws that keep a connection inside it.
 *
 * - none: sysbench's access pattern. A table is
 *   sysbench.rand.uniform(1, tables), an id sysbench.rand.default(1,
 *   table_size), a range [start, start + range_size - 1]: the very draws the
 *   cursor made before partitioning existed (same stream for the same seed).
 * - tables: the table is drawn uniformly from the agent's table list (one
 *   draw, as sysbench's: uniform(1, n) picks the n-th listed table); ids as
 *   none over the whole table.
 * - rows: tables as none; every id lies in the table's slice [lo, hi]: it is
 *   sysbench.rand.default(1, hi - lo + 1) + lo - 1, so the --rand-type's
 *   shape (uniform, special, gaussian, pareto, zipfian) is kept within the
 *   slice (e.g. special's hot spot is the slice's middle). A range keeps its
 *   drawn start unless it would end past hi: then it starts at
 *   hi - range_size + 1 (same length as sysbench's range, so the last
 *   range_size - 1 starts of a slice are folded onto that one). When the slice
 *   is shorter than range_size, every range is the whole slice [lo, hi]
 *   (fewer rows than sysbench's range reads). The start is drawn in every
 *   case, so the number of RNG draws per statement is sysbench's.
 *
 * Plain data with owned arrays: init fills it, close frees it; read-only
 * (and shareable across threads) in between. The draws take the caller's
 * RNG and allocate nothing.
 */
#ifndef AG_SB_SHARE_H
#define AG_SB_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "ag_rand.h"
#include "pr_err.h"
#include "pr_msg.h"

struct ag_sb_share {
    enum pr_partition part; /* none, tables or rows */
    uint32_t tables;        /* --tables */
    uint32_t table_size;    /* --table_size */
    uint32_t *list;         /* tables: the agent's table numbers, in PLAN order; owned */
    uint32_t nlist;         /* their count (>= 1 for tables) */
    uint32_t *lo, *hi;      /* rows: slice of table t at [t], t = 1..tables; owned */
};

/* Check the plan's part and table entries against --tables and --table_size
 * and fill s (which is zeroed first). Rules: none lists no table; tables
 * lists at least one table, each in 1..tables, none twice, each whole (ids
 * 1..table_size, or 1..1 when table_size is 0); rows lists every table
 * 1..tables exactly once, each with 1 <= lo <= hi <= table_size. Returns 0,
 * or PR_EINVAL with err saying what is wrong (s then holds nothing to
 * free). t is borrowed. */
int ag_sb_share_init(struct ag_sb_share *s, enum pr_partition part, const struct pr_msg_table *t,
                     size_t n, uint32_t tables, uint32_t table_size, struct pr_error *err);

/* Free what s owns and zero it (part none). */
void ag_sb_share_close(struct ag_sb_share *s);

/* The table of a statement group: one uniform draw (see above). */
uint32_t ag_sb_share_table(const struct ag_sb_share *s, struct ag_rand *r);

/* An id of table t (1..tables) drawn with d: one sysbench.rand.default. */
int64_t ag_sb_share_id(const struct ag_sb_share *s, const struct ag_dist *d, struct ag_rand *r,
                       uint32_t t);

/* A range select's bounds on table t: *start drawn as an id, *end =
 * *start + range_size - 1, both moved into t's slice under rows (above). */
void ag_sb_share_range(const struct ag_sb_share *s, const struct ag_dist *d, struct ag_rand *r,
                       uint32_t t, uint32_t range_size, int64_t *start, int64_t *end);

#endif
