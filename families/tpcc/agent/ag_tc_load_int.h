/* ag_tc_load_int: the loader's row generators, internal to ag_tc_load*.c.
 *
 * Every row is a pure function of (the load's seed, table, warehouse,
 * district, row id): its generator is seeded from those alone, so a row
 * comes out the same whichever stream, connection or agent loads it, and a
 * load with the same --rand-seed repeats (timestamps apart). The two
 * per-set draws — the 10% "original" rows of item and of each warehouse's
 * stock, and each district's o_c_id permutation — are seeded from (seed,
 * table, warehouse, district) the same way.
 *
 * The generators append SQL tuples "(v1,v2,...)" to a growing buffer;
 * strings are alphanumeric or fixed, so nothing needs escaping.
 */
#ifndef AG_TC_LOAD_INT_H
#define AG_TC_LOAD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ag_rand.h"
#include "ag_tc_rand.h"
#include "ag_tc_schema.h"

#define AG__TC_TS_LEN 19 /* "YYYY-MM-DD HH:MM:SS" */

/* What every stream of one load shares (copied into each). */
struct ag__tc_load_ctx {
    uint64_t seed;              /* PLAN.seed */
    struct ag_tc_consts k;      /* ag_tc_consts_init(0): c_last_load for Lastname */
    char ts[AG__TC_TS_LEN + 1]; /* T: local time when the agent built the load */
};

/* A growing text buffer. */
struct ag__tc_buf {
    char *p;    /* owned */
    size_t len; /* bytes used, p[len] is a NUL */
    size_t cap; /* bytes allocated */
};

void ag__tc_buf_reserve(struct ag__tc_buf *b, size_t more);
void ag__tc_buf_put(struct ag__tc_buf *b, const char *s, size_t n);
void ag__tc_buf_free(struct ag__tc_buf *b);

/* The 10% "original" rows of a 100,000-row set (item, or stock of
 * warehouse w): flags[1..100000] set for exactly 10,000 distinct ids, drawn
 * uniformly; flags has PR_TC_ITEMS + 1 bytes, all written. */
void ag__tc_orig_flags(const struct ag__tc_load_ctx *c, enum ag_tc_table t, uint32_t w,
                       uint8_t *flags);

/* A district's o_c_id column: a Sattolo shuffle (one cycle) of 1..3000,
 * as tpcc_load's InitPermutation. perm has PR_TC_ORD_PER_DIST entries. */
void ag__tc_permutation(const struct ag__tc_load_ctx *c, uint32_t w, uint32_t d, uint16_t *perm);

/* One row each, appended as "(...)" (no separator). */
void ag__tc_row_item(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t i_id,
                     bool original);
void ag__tc_row_warehouse(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w);
void ag__tc_row_district(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                         uint32_t d);
void ag__tc_row_stock(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                      uint32_t i_id, bool original);
void ag__tc_row_customer(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                         uint32_t d, uint32_t c_id);
void ag__tc_row_history(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                        uint32_t d, uint32_t c_id);
void ag__tc_row_orders(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                       uint32_t d, uint32_t o_id, uint32_t o_c_id);
void ag__tc_row_new_orders(struct ag__tc_buf *b, uint32_t w, uint32_t d, uint32_t o_id);

/* The o_ol_cnt order o_id of district (w, d) has (the same draw as its
 * orders row). */
uint32_t ag__tc_order_ol_cnt(const struct ag__tc_load_ctx *c, uint32_t w, uint32_t d,
                             uint32_t o_id);

/* All order_line rows of order o_id, "(...),(...)": returns how many. */
uint32_t ag__tc_rows_order_line(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                                uint32_t d, uint32_t o_id);

#endif
