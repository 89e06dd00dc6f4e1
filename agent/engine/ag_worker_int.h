/* ag_worker_int: internals shared by ag_worker.c, ag_worker_rate.c,
 * ag_worker_cmd.c and ag_worker_ctl.c. Not part of any public API. */
#ifndef AG_WORKER_INT_H
#define AG_WORKER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>
#include <uv.h>

#include "ag_arrival.h"
#include "ag_conn.h"
#include "ag_family.h"
#include "ag_worker.h"

enum ag__wc_state {
    AG__WC_CLOSED,  /* not opened yet */
    AG__WC_OPENING, /* setup: opening */
    AG__WC_IDLE,    /* open, no event */
    AG__WC_EVENT,   /* running an event */
    AG__WC_BACKOFF, /* lost connection: waiting to reopen */
    AG__WC_REOPEN,  /* reopening, then the event restarts */
    AG__WC_FINISH,  /* final statements after the last event */
    AG__WC_PIECE,   /* running a command stream */
    AG__WC_DONE,    /* closed for good */
};

/* One connection slot. What every statement touches is its first cache
 * line (w through stmt_ns; the slots are 64-byte aligned, ag_worker_new). */
struct ag__wconn {
    _Alignas(64) ag_worker *w; /* owner */
    ag_conn *conn;             /* the connection */
    struct ag_gen *gen;        /* its event generator (NULL in command mode) */
    enum ag__wc_state st;      /* what it is doing */
    uint32_t empty_events;     /* consecutive events without statements */
    uint64_t ev_start_ns;      /* event start: first send, or intended start (rate) */
    uint64_t svc_start_ns;     /* rate mode: actual start */
    uint64_t try_ns;           /* start of the event's last attempt (STATS.trx) */
    uint64_t stmt_ns;          /* start of the statement in flight (end of the previous) */
    uint32_t index;            /* global connection index */
    uint32_t backoff_ms;       /* current reconnect backoff */
    struct ag_piece *piece;    /* command stream in progress */
    uint64_t piece_rows;       /* rows the stream's statement in flight inserts */
    uint32_t piece_retries;    /* retry_locks: times the statement in flight was sent again */
    uv_timer_t timer;          /* backoff and yields */
    bool reopen_next;          /* reopening for the family (ag_call.reconnect): next() goes on */
    uint64_t fair_events;      /* events completed (loop thread; DONE.conns, fairness) */
    uint64_t fair_lat_ns;      /* their latencies summed, failed events too */
    uint64_t pub_events;       /* fair_events as of the last swap (under w->mu) */
    uint64_t pub_lat_ns;       /* fair_lat_ns as of the last swap (under w->mu) */

    /* conn's options when the family names its database (wl_conn_db);
     * otherwise conn uses sh->conn_opts */
    struct ag_conn_opts opts;
};

struct ag_worker {
    struct ag_worker_shared *sh; /* engine-owned shared state */
    uv_thread_t thread;          /* the loop thread */
    uv_loop_t loop;              /* its loop */
    uv_async_t async;            /* mailbox doorbell */
    uv_timer_t start_timer;      /* fires at t0 */
    uv_timer_t end_timer;        /* fires at the time limit */
    uv_timer_t grace_timer;      /* bounds in-flight events after stop */
    uv_timer_t lag_timer;        /* measures loop lag */
    int arrival_fd;              /* rate mode: timerfd for the next arrival (ns precise) */
    uv_poll_t arrival_poll;      /* watches arrival_fd */
    bool arrival_armed;          /* arrival_fd is set */
    struct ag__wconn *wc;        /* connection slots */
    size_t n;                    /* their number */
    uint32_t conns_total;        /* global connection count */
    struct ag_wstats *cur;       /* interval stats being filled (hot path, no lock) */
    struct ag_wstats run;        /* whole-run stats: each interval (cur) is folded in as
                                    it is handed over (never swapped), so the intervals
                                    the engine and the coordinator sum must equal them:
                                    that checks none was lost or doubled past the swap */
    size_t n_open;               /* setup: connections open */
    size_t n_done;               /* connections in AG__WC_DONE */
    size_t n_pieces_busy;        /* connections running a stream */
    bool started;                /* load began */
    bool stopping;               /* no new events */
    bool finished;               /* every connection done */
    uint64_t t0_ns;              /* intended start */
    uint64_t end_ns;             /* no event starts at or after this (UINT64_MAX: none) */
    double rate;                 /* events/s, 0: closed loop */
    uint64_t next_arrival_ns;    /* next scheduled arrival */
    struct ag_arrival arrivals;  /* rate mode: the arrival schedule */
    uint32_t *idle;              /* rate mode: free connection slots (stack) */
    size_t nidle;
    uint64_t lag_expect_ns; /* when the lag timer should fire */
    pthread_mutex_t mu;     /* guards the mailbox fields below */
    unsigned cmd;           /* posted commands */
    uint64_t cmd_t0_ns;
    bool cmd_immediate;
    struct ag_wstats *swap_in;  /* fresh buffer posted */
    struct ag_wstats *swap_out; /* filled buffer handed back */
    struct ag_wstats *swap_run; /* NULL, or where the swap copies w->run */
    bool swap_done;
    enum ag_worker_phase phase;
    struct ag_conn_error err; /* first fatal error */
    uint32_t err_index;
    uint64_t started_ns;
    uint32_t opened;    /* connections setup opened (n_open, published under mu) */
    uint64_t tally;     /* transactions, counted apart from every interval buffer (loop
                           thread): DONE.tally, so a lost interval shows (issue 30 §3) */
    uint64_t tally_pub; /* tally as of the last swap (under mu) */
    bool lose_cur;      /* test hook: the next swap drops the worker's interval */
};

enum cmd_bits {
    CMD_SETUP = 1u << 0,
    CMD_START = 1u << 1,
    CMD_STOP = 1u << 2,
    CMD_SWAP = 1u << 3,
    CMD_PIECES = 1u << 4,
    CMD_QUIT = 1u << 5,
};

#define LAG_PERIOD_MS 100 /* the lag timer's period */

/* ag_worker.c */
void ag__worker_notify(ag_worker *w);                            /* tell the engine */
void ag__worker_set_phase(ag_worker *w, enum ag_worker_phase p); /* unless failed */
void ag__worker_fatal_code(struct ag__wconn *wc, const char *what, int code);
void ag__worker_next_event(struct ag__wconn *wc);      /* closed loop: next event or end */
void ag__worker_conn_end(struct ag__wconn *wc);        /* no more events: finish, close */
void ag__worker_conn_done(struct ag__wconn *wc);       /* close for good */
void ag__worker_maybe_finished(ag_worker *w);          /* every connection done? report */
bool ag__worker_may_start(ag_worker *w, uint64_t now); /* limits; takes an event ticket */
void ag__worker_exec(struct ag__wconn *wc);            /* execute ag_conn_call(wc->conn) */
void ag__worker_record_us(pr_hist *h, uint64_t ns);
void ag__worker_count_outcome(ag_worker *w, enum ag_step step); /* an event ended */
/* The event of wc ended after ns: its family's event kind (if any) counts it. */
void ag__worker_count_event_kind(struct ag__wconn *wc, enum ag_step step, uint64_t ns);

/* step ended the event with the family's own fatal error (gen_error):
 * the run is failed with it and true returned; false otherwise. */
bool ag__worker_family_failed(struct ag__wconn *wc, enum ag_step step);
/* A command stream failed on its own (ag_piece.error): the run fails. */
void ag__worker_piece_failed(struct ag__wconn *wc, const char *why);

/* Hot-path recording: every figure goes into the interval (w->cur) only,
 * one add or histogram record, no allocation; the run (w->run) gets it when
 * the interval is swapped out (ag_wstats_fold). */
#define AG__COUNT(w, field) ((void)((w)->cur->ctr.field++))
void ag__worker_record_lat(ag_worker *w, uint64_t ns);  /* an event's latency */
void ag__worker_record_svc(ag_worker *w, uint64_t ns);  /* rate mode: its service time */
void ag__worker_record_slip(ag_worker *w, uint64_t us); /* rate mode: a start's slip */

/* ag_worker_rate.c: the open loop */
void ag__worker_rate_init(ag_worker *w, double rate, uint64_t rng_seed);
void ag__worker_rate_start(ag_worker *w);        /* at t0: first arrival, idle slots */
void ag__worker_rate_free(struct ag__wconn *wc); /* a connection finished its event */
void ag__worker_rate_drop(ag_worker *w);         /* at the end: count arrivals never started */
void ag__worker_arrival_disarm(ag_worker *w);

/* ag_worker_ctl.c: commands and run timers */
void ag__worker_async_cb(uv_async_t *a); /* the mailbox doorbell */
void ag__worker_lag_cb(uv_timer_t *t);   /* loop lag, every LAG_PERIOD_MS */
void ag__worker_do_quit(ag_worker *w);   /* close every handle: the loop ends */

/* ag_worker_cmd.c: command streams */
void ag__worker_do_pieces(ag_worker *w);
void ag__worker_piece_next(struct ag__wconn *wc);

#endif
