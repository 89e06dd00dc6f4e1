/* ag_run: one PLAN turned into work for the engine, with blocking calls
 * meant for the session thread (ag_session).
 *
 * It parses the workload and its options from the plan, builds the engine's
 * configuration (DB targets, credentials, this agent's connections and their
 * global indexes, limits, seeds), opens and prepares the pool, starts at an
 * instant, hands out per-interval statistics, and runs prepare / cleanup /
 * prewarm for the plan's table pieces. Setup failures carry the server's
 * errno, sqlstate and message and the phase, for an ERROR message.
 */
#ifndef AG_RUN_H
#define AG_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_clock.h"
#include "pr_msg.h"

typedef struct ag_run ag_run;

/* Why a run could not be set up or how it ended. Plain data. */
struct ag_run_error {
    int code;            /* 0, or a negative PR_E* / -errno code */
    enum pr_phase phase; /* where it happened */
    unsigned db_errno;   /* server or client errno, 0 if none */
    char sqlstate[6];    /* "" if none */
    char message[512];   /* what happened and what to do; never a password */
    char stmt_kind[64];  /* statement kind, "" if none */
};

/* Statistics of one interval. Histograms are allocated by ag_run_collect
 * when NULL and owned by whoever holds the struct. */
struct ag_run_interval {
    struct pr_counters ctr;
    pr_hist *lat;            /* latency, µs */
    pr_hist *svc;            /* service time (rate mode), µs; NULL otherwise */
    double cpu_pct;          /* process user+sys CPU over the interval, % of a core */
    uint64_t lag_max_us;     /* worst event-loop lag over the workers */
    uint64_t lag_p99_us;     /* p99 of event-loop lag samples */
    uint64_t slip_us;        /* rate mode: worst send slip */
    struct pr_msg_stat *srv; /* lead agent: SHOW GLOBAL STATUS sample, or NULL */
    uint32_t n_srv;
    uint64_t rows;            /* prepare: rows inserted */
    struct pr_msg_kstat *kst; /* per statement kind (ag_run_kinds order), or NULL */
    uint32_t n_kst;
    struct pr_msg_trx *trx; /* recorded events (STATS.trx), owned, or NULL */
    uint32_t n_trx;
    uint64_t trx_lost;         /* records dropped (more than PR_MSG_MAX_TRX) */
    struct pr_msg_conn *conns; /* a --report-checkpoints interval: per connection
                                  figures since the start (STATS.conns), owned, or NULL */
    uint32_t n_conns;
};

/* Monotonic clock, ns: pr_clock_now_ns(), the one clock both programs use. */
static inline uint64_t ag_run_now_ns(void)
{
    return pr_clock_now_ns();
}

/* Parse plan (borrowed; must outlive the run) into a run. NULL with *e set
 * (phase PLAN) on an unknown workload or bad option. */
ag_run *ag_run_new(const struct pr_msg_plan *plan, int workers, struct ag_run_error *e);
/* Open every connection and prepare statements (run), or check that the
 * database is reachable (prepare/cleanup/prewarm). Blocks; 0 or negative
 * with *e set (phase CONNECT or PREPARE). */
int ag_run_setup(ag_run *r, struct ag_run_error *e);
/* Baseline DB round trip, lowest of the probe's pings: true with *us set,
 * false when every ping failed (unknown). */
bool ag_run_db_rtt_us(const ag_run *r, uint64_t *us);
/* Connections setup really opened (a command's: its engine's pool). */
uint32_t ag_run_conns_open(const ag_run *r);
/* Start at t0_ns and return: a run's workers start themselves at t0; a
 * command (prepare, cleanup, prewarm) waits here for t0 (or a stop) and
 * starts its statement streams, which ag_run_collect then reports on as
 * they go (statements and rows per interval). Returns 0. */
int64_t ag_run_start(ag_run *r, uint64_t t0_ns);
/* Actual start minus t0, µs: for a run, the latest worker's start once
 * every worker has started; for a command, when its streams started.
 * False (unknown) when it never started. */
bool ag_run_start_skew_us(ag_run *r, int64_t *us);
/* A run's last event's end after t0, µs (DONE.end), once ag_run_totals
 * ran; false for a command or a run without an event. */
bool ag_run_end_us(const ag_run *r, int64_t *us);
/* A run's transactions counted apart from its intervals (DONE.tally), once
 * ag_run_totals ran; false for a command. */
bool ag_run_tally(const ag_run *r, uint64_t *tally);
/* After ag_run_totals: the run's per connection figures (DONE.conns), now
 * the caller's (NULL, 0: none). */
void ag_run_take_conns(ag_run *r, struct pr_msg_conn **out, uint32_t *n);
/* True once the run (or command) has ended by itself or by a stop. */
bool ag_run_is_finished(ag_run *r);
/* Request a stop from any thread; does not wait. */
void ag_run_cancel(ag_run *r, bool immediate);
/* Stop and wait until every worker has stopped and closed its connections. */
void ag_run_stop(ag_run *r, bool immediate);
/* Lead agent (PLAN.lead): one SHOW GLOBAL STATUS sample of the server
 * counters (the list STATS.srv carries) into *srv, owned by the caller (free
 * each name, then the array), or NULL and 0 when this agent is not the lead
 * or the query failed. Blocks for one round trip on the probe connection.
 * Session thread. */
void ag_run_sample_srv(ag_run *r, struct pr_msg_stat **srv, uint32_t *n_srv);
/* READY.env: this host's facts, and for the lead agent the server's
 * (ag_env.h), read on the probe connection. e starts zeroed; what it gets
 * is freed with the message (pr_msg_clear). Call before the READY baseline
 * (ag_run_sample_srv). Blocks. Session thread. */
void ag_run_env(ag_run *r, struct pr_msg_env *e);
/* Lead agent, after its own stop (ag_run_stop) and before the last
 * collect of a run: wait until no other session of the plan's user is left
 * on the server (the other agents close their pools and probes once their
 * runs are over), at most 6 s (their in-flight events get 5 s), so the
 * last server sample counts every agent's statements (pr_msg.h, READY).
 * No-op for other agents, commands and an immediate stop. Blocks; polls
 * SHOW PROCESSLIST every 20 ms. Session thread. */
void ag_run_settle(ag_run *r);
/* Statistics since the previous collect (allocating iv's histograms), with
 * (lead) a server sample taken after the workers' counters were swapped. */
void ag_run_collect(ag_run *r, struct ag_run_interval *iv);
/* When interval k ends a --report-checkpoints window (pr_checkpoint_interval),
 * each connection's figures from the start through k's collect into
 * iv->conns (STATS.conns); otherwise nothing. Call after ag_run_collect. */
void ag_run_checkpoint_conns(ag_run *r, uint64_t k, struct ag_run_interval *iv);
/* Free what iv owns and zero it. */
void ag_run_interval_clear(struct ag_run_interval *iv);
/* Whole-run totals (exact, counted by the workers apart from the
 * intervals), the rows a prepare inserted, and how the run ended
 * (status->code 0 = ok; a command stopped before its streams all ended is
 * -ECANCELED). lat is filled; svc (may be NULL) gets the service times,
 * empty unless the plan is a rate-mode run. */
void ag_run_totals(ag_run *r, struct pr_counters *ctr, uint64_t *rows, pr_hist *lat, pr_hist *svc,
                   struct ag_run_error *status);
/* The run's statement kinds for READY.kinds: a heap copy (*names and each
 * name the caller's), how many; 0 and NULL for a command. */
uint32_t ag_run_kinds(const ag_run *r, char ***names);
/* After ag_run_totals: its per-kind totals (DONE.kst), moved to the caller
 * (free each lat, then the array); NULL and 0 for a command. */
void ag_run_take_kind_totals(ag_run *r, struct pr_msg_kstat **kst, uint32_t *n);
/* The command's informational lines (ag_engine_take_notes), for DONE.notes:
 * *notes and its strings move to the caller (NULL, 0: none). */
void ag_run_take_notes(ag_run *r, char ***notes, uint32_t *n);
/* True when the plan is an open-loop run (rate > 0): STATS and DONE carry
 * service times. */
bool ag_run_is_rate(const ag_run *r);
/* Free the run (stopping it first); *r becomes NULL. */
void ag_run_destroy(ag_run **r);

#endif
