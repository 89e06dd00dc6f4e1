/* ag_engine: the agent's execution engine, the C API its control side uses.
 *
 * An engine runs one PLAN's share of connections over W worker loops
 * (ag_worker), each owning up to AG_ENGINE_MAX_CONNS_PER_LOOP connections.
 * Connections rotate over --mysql-host x --mysql-port (port fastest) or the
 * --mysql-socket list by GLOBAL connection index, so several agents with
 * consecutive index ranges spread exactly as one sysbench would.
 *
 * Lifecycle (all calls from one control thread; calls may block; once
 * setup has returned, ag_engine_stop and ag_engine_error may also be called
 * from another thread):
 *   ag_engine_new -> ag_engine_setup (connect + prepare everything; first
 *   fatal error reported with errno, sqlstate, message) -> ag_engine_start(t0)
 *   -> ag_engine_collect at each interval boundary -> ag_engine_wait until
 *   the time/event limit ends the run (or ag_engine_stop) -> ag_engine_collect
 *   (the last partial interval) -> ag_engine_totals -> ag_engine_destroy.
 * Or, for prepare/cleanup/prewarm: new (wl = NULL) -> setup ->
 *   ag_engine_start_pieces -> ag_engine_collect at each boundary (progress)
 *   -> ag_engine_wait -> ag_engine_totals -> destroy; or
 *   ag_engine_run_pieces, which starts and waits in one call.
 *
 * Errors and reconnects (docs/design.md §6.3; sysbench's rules: §13.1). Ignorable
 * errors (default 1213, 1020, 1205, or all) restart the event and count as
 * errors. A lost connection (2013, 2006, 2011, 2055; also the server's
 * 1053 shutdown, 1927 connection killed, 4031 idle timeout, which arrive
 * just before it closes the socket) closes the connection,
 * reconnects to the same target with backoff (10 ms doubling to 1 s),
 * re-prepares, counts a reconnect and restarts the event. DEVIATION from
 * sysbench 1.0.20: we reconnect on a lost connection whether or not its code
 * is in the ignore list (sysbench makes it fatal unless listed), so a server
 * restart does not kill a run. Any other error is fatal: the engine stops
 * starting events everywhere and ag_engine_error() reports it.
 *
 * Passwords are copied, never logged, and wiped at destroy.
 */
#ifndef AG_ENGINE_H
#define AG_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ag_conn.h"
#include "ag_family.h"
#include "ag_worker.h"
#include "pr_counters.h"
#include "pr_err.h"
#include "pr_hist.h"

#define AG_ENGINE_MAX_CONNS_PER_LOOP 900

/* Everything an engine needs. Strings and arrays are copied by _new. */
struct ag_engine_config {
    const struct ag_wl *wl;     /* borrowed, must outlive the engine; NULL: command mode */
    const char *const *hosts;   /* --mysql-host list (names are resolved at setup) */
    size_t nhosts;              /* 0: "localhost" */
    const uint16_t *ports;      /* --mysql-port list */
    size_t nports;              /* 0: 3306 */
    const char *const *sockets; /* --mysql-socket list; when nsockets > 0 hosts/ports are unused */
    size_t nsockets;
    const char *user; /* NULL: "sbtest" */
    const char *password;
    const char *db;             /* NULL: "sbtest" */
    unsigned connect_timeout_s; /* 0: 10 */
    unsigned read_timeout_s;    /* 0: 600 (a statement may run that long) */
    unsigned write_timeout_s;   /* 0: 60 */
    const char *ignore_errors;  /* --mysql-ignore-errors: "1213,1020,1205" (NULL), "all", "" */
    uint32_t conns;             /* connections of this agent */
    uint64_t conn_first;        /* global index of the first */
    uint64_t conns_total;       /* global count (0: conns) */
    uint32_t workers;           /* loops; 0: usable CPUs, ag_cpus.h (raised for the per-loop cap) */
    uint64_t time_ms;           /* run length, 0: none */
    uint64_t events;            /* event budget of this agent, 0: none */
    double rate;                /* events/s for this agent, 0: closed loop */
    bool rate_uniform;          /* uniform arrivals instead of Poisson */
    uint64_t seed;              /* run seed: global connection g's cursor is seeded with
                                   pr_split_seed(seed, 0, g) */
    uint32_t stop_grace_ms;     /* bound on in-flight events at the end, 0: 5000 */
    bool dry_run;               /* --mysql-dry-run: connections pretend (ag_conn_opts) */

    const struct pr_tls_opts *tls; /* TLS and compression (copied); NULL: plain */
};

/* A fatal error for a report. */
struct ag_engine_error {
    int code;            /* negative: PR_E* / -errno; see msg */
    unsigned err_no;     /* MySQL error number (0 if none) */
    char sqlstate[6];    /* "28000" ... */
    char msg[256];       /* the server's or library's message */
    char what[64];       /* "connect", "prepare point_selects", "execute inserts" ... */
    uint64_t conn_index; /* global connection index */
    char target[160];    /* "127.0.0.1:3306" or the socket path */
};

/* Statistics of an interval (or the whole run). lat, svc: caller-owned
 * histograms (or NULL), reset and filled. */
struct ag_engine_stats {
    struct pr_counters ctr;
    pr_hist *lat;             /* latency, µs (intended start in rate mode) */
    pr_hist *svc;             /* rate mode: service time, µs */
    double cpu_pct;           /* process user+sys CPU over the span, % of one core */
    uint64_t lag_max_us;      /* event-loop lag, max over workers */
    uint64_t lag_p99_us;      /* event-loop lag, p99 of all samples */
    uint64_t slip_max_us;     /* rate mode: worst start slip */
    uint64_t span_ns;         /* wall time the stats cover */
    uint64_t rows;            /* command streams: rows the INSERTs carried */
    struct pr_msg_kstat *kst; /* caller-owned, or NULL: per statement kind (the family's
                                 wl_kinds order), n_kst entries filled, each lat (µs,
                                 caller-owned) reset and filled */
    uint32_t n_kst;
    struct pr_msg_trx *trx; /* ag_engine_collect: the interval's recorded events
                               (wl_record_kinds), the caller's to free; NULL: none */
    uint32_t n_trx;
    uint64_t trx_lost; /* records dropped beyond PR_MSG_MAX_TRX */
    uint64_t end_ns;   /* ag_engine_totals: the last event's end after t0 (0: no event) */
    uint64_t tally;    /* ag_engine_totals: transactions counted apart from the intervals */
};

typedef struct ag_engine ag_engine;

/* Validate and copy cfg, start the worker threads (no connection yet).
 * NULL with err filled on a bad config (bad ignore list, no connections...). */
ag_engine *ag_engine_new(const struct ag_engine_config *cfg, struct pr_error *err);

/* The informational lines the command's streams gave (struct ag_piece
 * note), in the order they came; *notes (NULL when none) and its strings
 * are the caller's. Any thread; the engine keeps none after. */
size_t ag_engine_take_notes(ag_engine *e, char ***notes);

/* Stop immediately if running, join workers, free; *e = NULL. */
void ag_engine_destroy(ag_engine **e);

/* Resolve hosts, open every connection and prepare the statement set.
 * Blocks. Returns 0, or a negative code with err filled from the first
 * failure (wrong password, unreachable host, missing database, timeout). */
int ag_engine_setup(ag_engine *e, struct ag_engine_error *err);

/* Start load at t0_ns (CLOCK_MONOTONIC, uv_hrtime() scale). 0 or -EINVAL
 * (not set up, or already started). */
int ag_engine_start(ag_engine *e, uint64_t t0_ns);

/* Swap every worker's interval stats and merge them into *out (counters,
 * histograms, lag) plus CPU use since the previous collect. Blocks for one
 * loop turn of each worker. */
int ag_engine_collect(ag_engine *e, struct ag_engine_stats *out);

/* Wait up to timeout_ms (-1: forever) for the run (or pieces) to end.
 * Returns 1 when every worker is finished, 0 on timeout. */
int ag_engine_wait(ag_engine *e, int timeout_ms);

/* Stop: graceful (no new events, in-flight ones finish within the grace
 * period, connections close) or immediate (close every DB connection now,
 * e.g. lease expired). Returns at once; use ag_engine_wait. */
void ag_engine_stop(ag_engine *e, bool immediate);

/* Whole-run totals, counted by each worker apart from its interval
 * buffers (at record time), so they equal the sum of every collect only
 * when no interval was lost or counted twice. Call after the run ended and
 * its last interval was collected. */
int ag_engine_totals(ag_engine *e, struct ag_engine_stats *out);
/* After ag_engine_totals: every connection's whole-run events and latency
 * sum (DONE.conns), a new array in *out (the caller's to free); how many
 * (0 and NULL when more than PR_MSG_MAX_CONNS or none). */
size_t ag_engine_conn_figures(ag_engine *e, struct pr_msg_conn **out);

/* True (and *err filled when not NULL) once a fatal error occurred. */
bool ag_engine_error(ag_engine *e, struct ag_engine_error *err);

/* Actual start skew of the run: true with *skew_ns the latest worker's
 * start minus t0 once every worker has started; false (unknown, *skew_ns
 * untouched) before that or when the run never started. */
bool ag_engine_start_skew_ns(ag_engine *e, int64_t *skew_ns);

/* Connections setup opened (and prepared) over every worker: after a
 * successful ag_engine_setup, what READY reports. */
uint32_t ag_engine_conns_open(ag_engine *e);

/* Command mode: start running the text streams pieces[0..n) in parallel,
 * one stream per connection at a time, each on a single connection in
 * order; returns at once (0, or -EINVAL when not set up or already
 * started). Every connection closes when no stream is left for it, so
 * ag_engine_wait() tells the end; a failed statement stops every stream
 * (ag_engine_error), ag_engine_stop() closes the connections now.
 * ag_engine_collect() counts each statement as struct ag_piece says and the
 * rows inserted. pieces must stay valid until the engine has finished. */
int ag_engine_start_pieces(ag_engine *e, struct ag_piece *pieces, size_t n);

/* True when every stream of ag_engine_start_pieces ran to its end (none
 * failed or was cut short by a stop). */
bool ag_engine_pieces_complete(ag_engine *e);

/* ag_engine_start_pieces, then wait until all are done or one fails (0 or
 * negative with err filled). pieces must stay valid until return. */
int ag_engine_run_pieces(ag_engine *e, struct ag_piece *pieces, size_t n,
                         struct ag_engine_error *err);

#endif
