/* co_tc_fmt: the tpcc family's output format — tpcc_start's output, byte
 * for byte in its format (docs/design.md §13.2), then stampede's own
 * section — computed from the agents' merged per-kind figures
 * (families/tpcc/proto/pr_tc_opts.h: the kinds and what they count).
 *
 * Timeline (tpcc_start's): the header (banner, "option X with value '...'" for the
 * options given, <Parameters>), "RAMP-UP TIME.(r sec.)" when the load
 * starts, "MEASURING START." once the intervals up to --warmup-time are
 * final, one interval line per --report-interval seconds of the measured
 * window [warmup, warmup + floor(time / i) * i), "STOPPING THREADS" and a
 * '.' per connection once the window is over, then the final block
 * (<Raw Results> ... <TpmC>) and the stampede section.
 *
 * Accounting (tpcc_start's; the deviations are fixes, README "TPC-C output"):
 * every figure comes from the intervals inside the window (an interval
 * belongs to the window when its start does), summed exactly as they become
 * final; nothing of the warm-up or of the time after the window counts. Per
 * transaction type t: lt = completions whose response time (retries in,
 * ns) was at or over limit_ms[t], as the agents counted each when it ended
 * (tpcc_start's `rt < limit` is sc: exact for any limit, not only at the
 * histogram's bucket boundaries), sc = the other completions, fl = t's errors (given up after
 * --max-retries), rt = failed attempts that were retried (t_stmt errors -
 * fl, as tpcc_start counts them), avg_rt = the window's mean; TpmC =
 * New-Order completions (the 1% rolled back on purpose included) * 60 /
 * window. <Raw Results2(sum ver.)> is the same accounting summed agent by
 * agent from their STATS (equal unless an agent's figures went missing).
 *
 * Memory: the window's five merged histograms, one for the interval line
 * being built, and five compact (frozen) ones per agent; never the
 * intervals.
 *
 * Thread: the coordinator's one thread.
 */
#ifndef CO_TC_FMT_H
#define CO_TC_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "co_family.h"
#include "co_result.h"
#include "pr_msg.h"
#include "pr_tc_opts.h"

/* The family's output ops (co_family_summary.h) for the tpcc family's struct
 * co_family (.summary = &co_tc_family_summary). */
extern const struct co_family_summary co_tc_family_summary;

/* One "option X with value '...'" line of the header, as tpcc_start
 * prints them: opt is its letter ('h', 'P', 'd', 'u', 'w', 'c', 'r', 'l',
 * 'i', 'S', 'f', 't', '0'..'4'), value borrowed. */
struct co_tc_optline {
    char opt;
    const char *value;
};

/* What the output shows and how it counts. Strings are borrowed (they
 * must outlive the co_tc_fmt). */
struct co_tc_fmt_cfg {
    const char *host, *port, *db, *user; /* <Parameters> */
    bool password_set;                   /* [pass] shows "*****" (never the password) */
    uint32_t warehouses;
    uint32_t threads;    /* connections over all agents */
    uint32_t warmup_s;   /* --warmup-time (tpcc_start -r) */
    uint32_t time_s;     /* --time (-l) */
    uint32_t interval_s; /* --report-interval (-i); 0: no interval lines, window = time */
    uint32_t rt_limit_ms[PR_TC_TXN_COUNT_];
    const struct co_tc_optline *optlines; /* the header's option lines, in order */
    uint32_t n_optlines;
    uint32_t schemas, schema_offset; /* tpcc_start -m/-o (pr_tc_opts); schemas 0: off */
};

typedef struct co_tc_fmt co_tc_fmt;

/* The output state of one run; res (borrowed, outlives it) names the kinds and
 * agents once the run has them. Never NULL. */
co_tc_fmt *co_tc_fmt_new(const struct co_tc_fmt_cfg *cfg, struct co_result *res);
void co_tc_fmt_destroy(co_tc_fmt **t);

/* The cfg of a run from its command line; the strings point into a and
 * into *lines_buf, an array the caller frees (free) after the run. */
void co_tc_fmt_cfg_from_args(const struct co_args *a, struct co_tc_fmt_cfg *cfg,
                             struct co_tc_optline **lines_buf);

/* The measured window in seconds: floor(time / i) * i (time when i = 0). */
uint32_t co_tc_fmt_window_s(const struct co_tc_fmt_cfg *cfg);

/* The ops, callable directly (tests): see struct co_family_summary. */
void co_tc_fmt_header(co_tc_fmt *t, FILE *out);
void co_tc_fmt_started(co_tc_fmt *t, FILE *out);
void co_tc_fmt_interval(co_tc_fmt *t, FILE *out, const struct co_interval_result *iv,
                        uint32_t interval_ms);
void co_tc_fmt_stats(co_tc_fmt *t, uint32_t agent, const struct pr_msg_stats *st, bool released,
                     uint32_t interval_ms);
/* The final block and the stampede section (co_tc_fmt_final.c). */
void co_tc_fmt_final(co_tc_fmt *t, FILE *out, const struct co_result *res);
/* --json's "tpcc" value (co_tc_fmt_final.c). */
void co_tc_fmt_json(FILE *f, const co_tc_fmt *t, const struct co_result *res);

/* The window's figures of one transaction type (merged, or one agent's). */
struct co_tc_txn_figures {
    uint64_t sc, lt, rt, fl;
    double avg_ms, p90_ms, p95_ms, p99_ms, max_ms; /* of the completions; 0 when none */
};
/* Transaction type x merged over the agents (agent < 0) or of agent
 * `agent` (its STATS). False when there is no such agent. */
bool co_tc_fmt_figures(const co_tc_fmt *t, int agent, enum pr_tc_txn x,
                       struct co_tc_txn_figures *out);
/* TPC-C's response-time constraints (clause 5.2.5.4): the 90th percentile
 * of each transaction type's response time, in ms, in pr_tc_txn order:
 * New-Order, Payment, Order-Status 5 s; Delivery 80 s (its deferred
 * execution's bound: stampede, as tpcc_start, runs the whole Delivery
 * while the terminal waits, so that is what is measured); Stock-Level
 * 20 s. The run report checks them (co_tc_fmt_final) and they are a tpcc
 * capacity search's SLO without --slo (co_tc_family). */
extern const uint32_t co_tc_spec_p90_ms[PR_TC_TXN_COUNT_];

/* TpmC: New-Order completions in the window * 60 / window, rounded to the
 * 3 decimals the text prints (what --json says too); 0 when the window is
 * empty. */
double co_tc_fmt_tpmc(const co_tc_fmt *t);

/* The server cross-check (co_family_summary.server_check): client =
 * commit + rollback + retry_rollback statements (count and errors: the
 * server counts a failed COMMIT too) over the run (res->kinds, the agents'
 * DONE), server = delta(Com_commit) + delta(Com_rollback). */
bool co_tc_fmt_server_check(const struct co_result *res, uint64_t *client, uint64_t *server);

#endif
