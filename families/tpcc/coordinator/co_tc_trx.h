/* co_tc_trx: tpcc_start's -f and -t files (`stampede tpcc run
 * --report-file=FILE --trx-file=FILE`), written from the New-Order records
 * the agents send in STATS.trx (proto/msg/pr_msg_trx.h) as their STATS arrive.
 *
 * Formats (docs/design.md §13.2; tpcc-mysql's driver.c / neword.c):
 *   -f  "<time_count> <rt_ms>\n" (%d %.3f) per completed New-Order, the 1%
 *       rolled back on purpose included, ramp-up and wind-down included;
 *       time_count is tpcc_start's: 0 until the end of the first interval
 *       after the ramp-up, then i, 2i, ... (-i), at most floor(-l / i) * i.
 *   -t  "t_num: N finish: S NS start: S NS\n" per committed New-Order: the
 *       connection's global index and CLOCK_REALTIME at the end and at the
 *       start of its last attempt, in the run's common epoch: the
 *       coordinator's wall clock (co_tc_trx_set_epoch), so that lines of
 *       agents whose host clocks differ order and compare.
 * Lines come in global end order, as tpcc_start writes them: records are
 * held here and written once no agent can still send an earlier one
 * (co_tc_trx_flush's watermark: the lowest interval end over the live
 * agents), all of them at the end. Memory is bounded: past
 * CO_TC_TRX_MAX_HELD held records the oldest are written ahead of the
 * watermark (a warning says the order may then be off).
 * Thread: the coordinator's one thread. */
#ifndef CO_TC_TRX_H
#define CO_TC_TRX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pr_err.h"
#include "pr_msg.h"

typedef struct co_tc_trx co_tc_trx;

#define CO_TC_TRX_MAX_HELD (1u << 20) /* records held for ordering (~48 MB) */

/* What the files need to know of the run. */
struct co_tc_trx_cfg {
    const char *report_path; /* -f, or NULL / "": not written (borrowed) */
    const char *trx_path;    /* -t, or NULL / "" */
    uint32_t warmup_s;       /* --warmup-time (-r) */
    uint32_t time_s;         /* --time (-l) */
    uint32_t interval_s;     /* --report-interval (-i); 0: time_count stays 0 */
};

/* Check that the files can be written: each is created (truncated, as
 * tpcc_start's "w+") and closed. 0, or PR_EINVAL with err naming the
 * option, the path and the system's reason. */
int co_tc_trx_check(const struct co_tc_trx_cfg *cfg, struct pr_error *err);

/* Open the files (truncated). NULL when neither is asked for; NULL too with
 * a message on stderr when one cannot be opened. Caller owns. */
co_tc_trx *co_tc_trx_new(const struct co_tc_trx_cfg *cfg);

/* From now on, write the -t stamps in the coordinator's wall clock: finish
 * = t0_unix_ns (its CLOCK_REALTIME at the run's t0) + the record's end_us
 * (µs since t0 in the common epoch, the agents' monotonic clocks aligned
 * to ours), start = finish - the last attempt's length (its end_rt_ns -
 * start_rt_ns on the agent). Any agent host clock's own offset drops out.
 * 0: the agents' stamps as they sent them. Records held are converted too
 * (they are converted as they are written). NULL t: nothing. */
void co_tc_trx_set_epoch(co_tc_trx *t, uint64_t t0_unix_ns);

/* Take s's records of kind `kind` (New-Order's index in READY.kinds): held
 * until a flush writes them. NULL t: nothing. */
void co_tc_trx_stats(co_tc_trx *t, const struct pr_msg_stats *s, int kind);

/* Write the held records that ended before upto_us (µs since t0;
 * UINT64_MAX: all), in end order (ties: connection, then arrival). */
void co_tc_trx_flush(co_tc_trx *t, uint64_t upto_us);

/* Records held, not yet written. */
uint32_t co_tc_trx_held(const co_tc_trx *t);

/* Lines written so far to the -f and -t files. */
uint64_t co_tc_trx_report_lines(const co_tc_trx *t);
uint64_t co_tc_trx_trx_lines(const co_tc_trx *t);

/* tpcc_start's time_count of a New-Order that ended end_us after t0. */
uint32_t co_tc_trx_time_count(const struct co_tc_trx_cfg *cfg, uint64_t end_us);

/* Write every held record, flush and close the files, free; *t = NULL. 0, or a negative code with
 * a message on stderr naming the file when a write failed. NULL: 0. */
int co_tc_trx_destroy(co_tc_trx **t);

#endif
