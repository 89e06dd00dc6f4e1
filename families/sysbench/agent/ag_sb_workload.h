/* ag_sb_workload: sysbench 1.0.20's OLTP workloads as a pure statement generator.
 *
 * No I/O here: the engine (ag_conn/ag_worker) executes what the cursor yields.
 * An ag_sb_workload is the parsed, immutable description of one workload
 * (options, the per-connection prepared-statement set in sysbench's prepare
 * order); an ag_sb_cursor is one connection's event generator (its RNG and text
 * buffers). Workloads: oltp_read_write, oltp_read_only, oltp_write_only,
 * oltp_point_select, oltp_update_index, oltp_update_non_index, oltp_insert,
 * oltp_delete, select_random_points, select_random_ranges, bulk_insert.
 *
 * What is reproduced exactly (docs/design.md §13.1):
 * statement texts (incl. select_random_* whitespace), statement order per
 * event, the prepared-statement set and its order, parameter draws in
 * sysbench's RNG draw order (one table per statement group, drawn even when
 * the group's count is 0; id/k draws with --rand-type; c/pad strings),
 * --db-ps-mode=disable rendering (integers %lld, strings quoted and not
 * escaped), oltp_insert's text protocol, bulk_insert's 512 KiB buffer.
 * Verified: loaded with the RNG state sysbench derives from srandom(seed),
 * a cursor yields the very statements the real sysbench 1.0.20 sent to
 * MariaDB (general log) for every workload here, in both ps modes
 * (tests/unit/test_ag_sb_workload.c keeps a golden excerpt).
 *
 * Deliberate deviations from sysbench 1.0.20 (README material):
 * - Seeding. Each connection's xoroshiro128+ is seeded from a 64-bit seed via
 *   splitmix64 (the engine derives it from --rand-seed and the global
 *   connection index with pr_split_seed, so it does not depend on how the
 *   connections are split over agents), not from libc random() in racy
 *   thread order, so a run with a given --rand-seed and split is
 *   reproducible (sysbench issue #524).
 *   Streams therefore differ from sysbench's for the same --rand-seed.
 * - No hidden per-event RNG draw for the histogram slot (sysbench draws one
 *   uint64 per event when --percentile>0), so a cursor's stream matches
 *   sysbench's --percentile=0 stream.
 * - rand.unique() (oltp_insert with --auto_inc=off) is seeded from the run's
 *   --rand-seed option (the coordinator passes the effective seed, never 0,
 *   so each run gets a fresh sequence) instead of unseeded libc random()
 *   (issue #414: duplicate keys on every second run). All connections share
 *   the permutation and each draws from its own slice of the 2^32 input
 *   space (by global connection index), so ids never repeat within a run.
 * - --rand-type=zipfian and --rand-zipfian-exp (default 0.8) are accepted,
 *   as in sysbench master; 1.0.20 rejects them.
 * - Numeric script options (tables, table_size, ...) must be integers
 *   (1e4 is accepted, 10.5 is an error); sysbench takes any Lua number.
 *   Options are range-checked (e.g. --threads >= 1, --percentile 0..100,
 *   random_points 1..128, number_of_ranges 1..64) where sysbench is silent.
 * - An event restarted after an ignorable error draws new parameters, as
 *   sysbench does; bulk_insert re-sends its pending flush instead of
 *   failing.
 * - Prepare data is seeded (ag_sb_load.h), and a table split across
 *   connections is loaded with explicit ids.
 * Note: bulk_insert's table is sbtest<conn_index+1> and select_random_*'s k
 * segment uses conn_index / conns_total: with GLOBAL indexes that is
 * sysbench's thread id and --threads, so agents never share a segment.
 */
#ifndef AG_SB_WORKLOAD_H
#define AG_SB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ag_family.h"
#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"

/* Immutable once its first cursor exists (after _new and, for a run,
 * ag_sb_workload_set_share); then shared read-only by threads. */
typedef struct ag_sb_workload ag_sb_workload;

/* Parse options (sysbench names, '-' and '_' equivalent, defaults as sysbench
 * 1.0.20) for a workload name ("oltp_read_write", ...). Options of the general,
 * mysql and this workload's script sets are accepted, nothing else (not even
 * for bulk_insert, which sysbench runs in legacy mode). Returns NULL and fills err (code
 * PR_EINVAL and a message naming the option) on an unknown workload or a bad
 * option. The caller owns the result; opts are copied. Thread-safe.
 * fam is the family the workload and its cursors answer to in their struct
 * ag_wl / ag_gen (&ag_sb_family, ag_sb_family.h): passed in, so that this
 * module, below the family, needs nothing of it. */
ag_sb_workload *ag_sb_workload_new(const struct ag_family *fam, const char *name,
                                   const struct ag_kv *opts, size_t nopts, struct pr_error *err);

/* The workload as the sysbench family's struct ag_wl (same object, for
 * the engine): borrowed. */
const struct ag_wl *ag_sb_workload_wl(const ag_sb_workload *wl);

/* Free the workload and NULL *wl. Every cursor made from it must be gone. */
void ag_sb_workload_destroy(ag_sb_workload **wl);

/* True when --db-ps-mode=auto and the workload has prepared statements. */
bool ag_sb_workload_uses_ps(const ag_sb_workload *wl);

/* Size of each connection's PS set (0 for oltp_insert and bulk_insert). The
 * set is defined even with --db-ps-mode=disable (for reports). */
size_t ag_sb_workload_nstmts(const ag_sb_workload *wl);

/* Statement i (< nstmts) of the PS set; borrowed, valid for wl's lifetime. */
const struct ag_stmt_def *ag_sb_workload_stmt(const ag_sb_workload *wl, size_t i);

/* The canonical workload name ("oltp_read_write"); static string. */
const char *ag_sb_workload_name(const ag_sb_workload *wl);

/* The parsed option set behind the workload (general, mysql and script
 * options with defaults filled): borrowed, read-only, valid for wl's life. */
const pr_opts *ag_sb_workload_opts(const ag_sb_workload *wl);

/* Confine the workload's cursors to this agent's share of the data
 * (--partition; PLAN.part and PLAN.tables, docs/design.md §5): part none is
 * sysbench's access pattern (the default, and the same statement stream as
 * before partitioning existed); tables draws each statement group's table
 * from the listed tables only; rows draws every id (point selects, range
 * starts, updates, deletes and the inserts that follow them) inside each
 * table's listed [lo, hi] with --rand-type's shape kept within the slice,
 * and keeps ranges inside it (ag_sb_share.h has the exact draws and the case of
 * a slice shorter than --range_size). k values stay drawn over
 * 1..table_size. Returns 0, or PR_EINVAL with err saying why: an
 * inconsistent plan (ag_sb_share_init: no table for part=tables, a table above
 * --tables or listed twice, an id range outside 1..--table_size, a table
 * missing under rows) or a workload the partition cannot confine
 * (select_random_*, bulk_insert: any partition; oltp_insert: rows). On
 * error the workload is unchanged. t is borrowed (copied). Call before any
 * cursor is made; not thread-safe. */
int ag_sb_workload_set_share(ag_sb_workload *wl, enum pr_partition part,
                             const struct pr_msg_table *t, size_t n, struct pr_error *err);

/* The run's seed (PLAN.seed: --rand-seed, or the coordinator's choice when
 * that is 0) seeds rand.unique()'s permutation, so two runs without
 * --rand-seed draw different unique ids (sysbench issue #414). Call before
 * any cursor is made; not thread-safe. */
void ag_sb_workload_set_run_seed(ag_sb_workload *wl, uint64_t seed);

/* struct ag_call, struct ag_stmt_def, struct ag_kv: ag_family.h. */

/* Per-connection event generator: owns the connection's RNG (xoroshiro128+
 * as sysbench, seeded from `seed` via splitmix64) and text buffers. Allocated
 * once per connection; no allocation per event or per statement. conn_index /
 * conns_total are the connection's GLOBAL index and the global connection
 * count (sysbench's thread id / --threads: used by select_random_* segments
 * and bulk_insert's table). The caller owns the cursor; wl must outlive it.
 * A cursor is used by one thread at a time. */
typedef struct ag_sb_cursor ag_sb_cursor;
ag_sb_cursor *ag_sb_cursor_new(const ag_sb_workload *wl, uint64_t seed, uint32_t conn_index,
                               uint32_t conns_total);

/* Replace the cursor's RNG state (s0, s1 not both 0), e.g. with the state
 * sysbench derives from libc random(), for bit-exact comparisons. */
void ag_sb_cursor_set_rng(ag_sb_cursor *c, uint64_t s0, uint64_t s1);

/* Free the cursor and NULL *c. */
void ag_sb_cursor_destroy(ag_sb_cursor **c);

/* Start an event; also called again to restart the event after an ignorable
 * error (new random parameters, as sysbench re-runs event()). */
void ag_sb_cursor_begin(ag_sb_cursor *c);

/* Fill *call with the next statement of the current event; false when the
 * event is complete (call untouched). */
bool ag_sb_cursor_next(ag_sb_cursor *c, struct ag_call *call);

/* At the end of the run: a final statement to execute outside any event
 * (bulk_insert's last flush); false if none. Call until it returns false. */
bool ag_sb_cursor_finish(ag_sb_cursor *c, struct ag_call *call);

#endif
