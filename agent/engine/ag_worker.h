/* ag_worker: one worker thread with its own libuv loop, owning a share of the
 * agent's connections, their cursors, counters and histograms (docs/design.md §6).
 *
 * Nothing is shared on the hot path: the worker fills its current struct
 * ag_wstats without locks. The engine (ag_engine) talks to it by posting
 * commands (a small mailbox under a mutex + uv_async_send) and reads replies
 * after its notify callback fires:
 *   setup  open every connection and prepare the statement set;
 *   start  begin load at a CLOCK_MONOTONIC instant;
 *   swap   hand back the filled interval stats and continue with a fresh
 *          buffer the engine supplies;
 *   stop   graceful (no new events, in-flight ones finish, bounded by the
 *          grace period) or immediate (close every DB connection now);
 *   pieces run text command streams (prepare/cleanup/prewarm), one stream
 *          per connection at a time.
 *
 * Closed loop: each connection runs events back to back; latency is from the
 * first statement sent to the last result read, restarts included. Open loop
 * (rate > 0): Poisson (or uniform) arrivals are generated lazily in order, so
 * a backlog is just "arrivals already due" and never overflows; latency runs
 * from the intended start (coordinated-omission correct), service time from
 * the actual start.
 *
 * Thread: every function here is for the engine's (control) thread.
 */
#ifndef AG_WORKER_H
#define AG_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "ag_conn.h"
#include "ag_family.h"
#include "pr_counters.h"
#include "pr_hist.h"
#include "pr_msg.h"
#include "pr_msg_trx.h"

/* One interval's statistics of one worker. Histograms are owned. */
struct ag_wstats {
    struct pr_counters ctr;   /* counters (pr_counters.h) */
    pr_hist *lat;             /* event latency, µs */
    pr_hist *svc;             /* rate mode: service time, µs */
    pr_hist *lag;             /* event-loop lag samples, µs */
    uint64_t slip_max_us;     /* rate mode: worst actual - intended start, µs */
    uint64_t rows;            /* command streams: rows the INSERTs carried */
    struct pr_msg_kstat *kst; /* per statement kind: count, errors, latency µs (owned) */
    size_t nk;                /* kinds (the family's wl_kinds; 0 in command mode) */
    struct pr_msg_trx *trx;   /* recorded events (wl_record_kinds), owned, or NULL */
    uint32_t n_trx, cap_trx;  /* used / allocated */
    uint64_t trx_lost;        /* records beyond PR_MSG_MAX_TRX in one interval, dropped */
    uint64_t last_end_ns;     /* the latest event end (uv_hrtime), 0: none; folded by max */
};

/* Allocate the histograms (nk kinds) / free them / empty everything /
 * dst += src (kinds: the first min(dst->nk, src->nk); records appended,
 * up to PR_MSG_MAX_TRX, the rest counted in trx_lost). */
void ag_wstats_init(struct ag_wstats *s, size_t nk);
void ag_wstats_close(struct ag_wstats *s);
void ag_wstats_reset(struct ag_wstats *s);
void ag_wstats_add(struct ag_wstats *dst, const struct ag_wstats *src);
/* dst += src without the event records (trx, trx_lost): an interval into
 * its worker's run totals. */
void ag_wstats_fold(struct ag_wstats *dst, const struct ag_wstats *src);
/* Append one record (copied) to s (dropped into trx_lost when full). */
void ag_wstats_add_trx(struct ag_wstats *s, const struct pr_msg_trx *t);

/* A text command stream (struct ag_piece, ag_family.h): next() yields the
 * statements to run in order on one connection (false at the end), each
 * with the rows it inserts (0 when it is not an INSERT). Used by one thread
 * at a time. A statement inserting rows counts as a write and adds its
 * rows; any other counts by its result (read with a result set, else
 * other). A stream with a result op gets each statement's result (its
 * first row) and may fail the command with a message. */

/* State shared by all workers of an engine. Owned by the engine; read-only
 * for workers except the atomics. */
struct ag_worker_shared {
    const struct ag_wl *wl;               /* NULL: command mode (text only, no generators) */
    size_t nkinds;                        /* wl's statement kinds (0: command mode) */
    uint64_t record_kinds;                /* kinds whose events are recorded (STATS.trx) */
    uint64_t limit_ns[PR_MSG_MAX_KINDS];  /* per kind: an event's latency at or above it is
                                             late (wl_kind_limit_ns), UINT64_MAX: none */
    const struct ag_conn_opts *conn_opts; /* credentials, timeouts, ignore list */
    uint64_t time_ns;                     /* run length, 0 = none */
    uint64_t events;                      /* event budget of the agent, 0 = none */
    atomic_uint_fast64_t tickets;         /* events begun (the budget's ticket counter) */
    atomic_bool abort;                    /* a fatal error somewhere: stop starting events */
    bool rate_uniform;                    /* uniform instead of Poisson arrivals */
    uint32_t stop_grace_ms;               /* bound on in-flight events at stop */
    struct ag_piece *pieces;              /* command mode streams */
    size_t npieces;
    atomic_size_t next_piece;  /* next stream to hand out */
    atomic_size_t pieces_done; /* streams run to their end */
    pthread_mutex_t notes_mu;  /* guards notes (rare: a command's informational lines) */
    char **notes;              /* struct ag_piece note() lines, owned, n_notes of them */
    size_t n_notes;            /* <= PR_MSG_MAX_NOTES; the rest are dropped */
    void (*notify)(void *arg); /* called (from a worker thread) on any reply */
    void *notify_arg;
};

/* One connection of a worker. */
struct ag_worker_conn {
    const struct ag_conn_target *target; /* borrowed */
    uint64_t seed;                       /* cursor seed */
    uint32_t index;                      /* global connection index */
};

enum ag_worker_phase {
    AG_WORKER_IDLE,     /* created */
    AG_WORKER_SETUP,    /* opening connections */
    AG_WORKER_READY,    /* all open and prepared */
    AG_WORKER_RUNNING,  /* start posted */
    AG_WORKER_FINISHED, /* run (or pieces) over, connections closed */
    AG_WORKER_FAILED,   /* a fatal error: see ag_worker_error */
};

typedef struct ag_worker ag_worker;

/* Start a worker thread for conns[0..n) (copied). conns_total is the global
 * connection count (for cursors); rate is this worker's events/s (0: closed
 * loop); rng_seed seeds its arrival schedule; stats is its first interval
 * buffer (ownership stays with the caller, who gets it back from swaps).
 * NULL if the thread cannot be created. */
ag_worker *ag_worker_new(struct ag_worker_shared *sh, const struct ag_worker_conn *conns, size_t n,
                         uint32_t conns_total, double rate, uint64_t rng_seed,
                         struct ag_wstats *stats);

/* Close everything, stop and join the thread, free; *w = NULL. */
void ag_worker_destroy(ag_worker **w);

void ag_worker_post_setup(ag_worker *w);
void ag_worker_post_start(ag_worker *w, uint64_t t0_ns);
void ag_worker_post_stop(ag_worker *w, bool immediate);
void ag_worker_post_pieces(ag_worker *w);
/* Give the worker a fresh (empty) buffer; its filled one comes back through
 * ag_worker_take_swap once the notify callback has fired. When run is not
 * NULL, the worker also copies its whole-run stats into it (counted apart
 * from the interval buffers, at record time) in the same step. */
void ag_worker_post_swap(ag_worker *w, struct ag_wstats *fresh, struct ag_wstats *run);
/* True and *old set when the swap posted last has been done. */
bool ag_worker_take_swap(ag_worker *w, struct ag_wstats **old);

/* Current phase; when FAILED and err is not NULL, the first fatal error,
 * with *conn_index its global connection index. */
enum ag_worker_phase ag_worker_phase(ag_worker *w, struct ag_conn_error *err, uint32_t *conn_index);
/* Connections its setup opened so far. */
uint32_t ag_worker_conns_open(ag_worker *w);
/* Actual start instant (CLOCK_MONOTONIC ns), 0 before start. */
uint64_t ag_worker_started_ns(ag_worker *w);
/* Each of its connections' events and latency sum as of the last swap
 * (DONE.conns), up to cap into out; how many. Any thread. */
size_t ag_worker_conn_figures(ag_worker *w, struct pr_msg_conn *out, size_t cap);
/* Its transactions as of the last swap, counted apart from the interval
 * buffers (DONE.tally). Any thread. */
uint64_t ag_worker_tally(ag_worker *w);
/* Test hook: its next swap drops the interval in progress, as a loss inside
 * the worker would (the tally still counts it). */
void ag__worker_test_lose_cur(ag_worker *w);

#endif
