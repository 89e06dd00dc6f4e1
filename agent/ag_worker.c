/* ag_worker: a loop thread driving its connections (see ag_worker.h). */
#include "ag_worker.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <uv.h>

#include "pr_err.h"

#define LAG_PERIOD_MS      100
#define BACKOFF_FIRST_MS   10
#define BACKOFF_MAX_MS     1000
#define EMPTY_EVENTS_YIELD 256        /* events without statements before yielding to the loop */
#define LATE_NS            1000000ULL /* an arrival started later than this is late */
#define DROP_COUNT_MAX     100000000ULL

enum cmd_bits {
    CMD_SETUP = 1u << 0,
    CMD_START = 1u << 1,
    CMD_STOP = 1u << 2,
    CMD_SWAP = 1u << 3,
    CMD_PIECES = 1u << 4,
    CMD_QUIT = 1u << 5,
};

enum wc_state {
    WC_CLOSED,  /* not opened yet */
    WC_OPENING, /* setup: opening */
    WC_IDLE,    /* open, no event */
    WC_EVENT,   /* running an event */
    WC_BACKOFF, /* lost connection: waiting to reopen */
    WC_REOPEN,  /* reopening, then the event restarts */
    WC_FINISH,  /* final statements after the last event */
    WC_PIECE,   /* running a command stream */
    WC_DONE,    /* closed for good */
};

/* One connection slot. */
struct wconn {
    ag_worker *w;           /* owner */
    ag_conn *conn;          /* the connection */
    ag_cursor *cur;         /* its event generator (NULL in command mode) */
    enum wc_state st;       /* what it is doing */
    uint32_t index;         /* global connection index */
    uint64_t ev_start_ns;   /* event start: first send, or intended start (rate) */
    uint64_t svc_start_ns;  /* rate mode: actual start */
    uint32_t backoff_ms;    /* current reconnect backoff */
    uint32_t empty_events;  /* consecutive events without statements */
    struct ag_piece *piece; /* command stream in progress */
    uv_timer_t timer;       /* backoff and yields */
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
    struct wconn *wc;            /* connection slots */
    size_t n;                    /* their number */
    uint32_t conns_total;        /* global connection count */
    struct ag_wstats *cur;       /* interval stats being filled (hot path, no lock) */
    size_t n_open;               /* setup: connections open */
    size_t n_done;               /* connections in WC_DONE */
    size_t n_pieces_busy;        /* connections running a stream */
    bool started;                /* load began */
    bool stopping;               /* no new events */
    bool finished;               /* every connection done */
    uint64_t t0_ns;              /* intended start */
    uint64_t end_ns;             /* no event starts at or after this (UINT64_MAX: none) */
    double rate;                 /* events/s, 0: closed loop */
    double gap_mean_ns;          /* 1e9 / rate */
    uint64_t next_arrival_ns;    /* next scheduled arrival */
    uint64_t rng[2];             /* xoroshiro128+ for arrivals */
    uint32_t *idle;              /* rate mode: free connection slots (stack) */
    size_t nidle;
    uint64_t lag_expect_ns; /* when the lag timer should fire */
    pthread_mutex_t mu;     /* guards the mailbox fields below */
    unsigned cmd;           /* posted commands */
    uint64_t cmd_t0_ns;
    bool cmd_immediate;
    struct ag_wstats *swap_in;  /* fresh buffer posted */
    struct ag_wstats *swap_out; /* filled buffer handed back */
    bool swap_done;
    enum ag_worker_phase phase;
    struct ag_conn_error err; /* first fatal error */
    uint32_t err_index;
    uint64_t started_ns;
};

static void next_event(struct wconn *wc);
static void conn_end(struct wconn *wc);
static void piece_next(struct wconn *wc);

void ag_wstats_init(struct ag_wstats *s)
{
    memset(s, 0, sizeof *s);
    s->lat = pr_hist_new();
    s->svc = pr_hist_new();
    s->lag = pr_hist_new();
}

void ag_wstats_close(struct ag_wstats *s)
{
    pr_hist_destroy(&s->lat);
    pr_hist_destroy(&s->svc);
    pr_hist_destroy(&s->lag);
}

void ag_wstats_reset(struct ag_wstats *s)
{
    memset(&s->ctr, 0, sizeof s->ctr);
    pr_hist_reset(s->lat);
    pr_hist_reset(s->svc);
    pr_hist_reset(s->lag);
    s->slip_max_us = 0;
}

void ag_wstats_add(struct ag_wstats *dst, const struct ag_wstats *src)
{
    pr_counters_add(&dst->ctr, &src->ctr);
    pr_hist_add(dst->lat, src->lat);
    pr_hist_add(dst->svc, src->svc);
    pr_hist_add(dst->lag, src->lag);
    if (src->slip_max_us > dst->slip_max_us)
        dst->slip_max_us = src->slip_max_us;
}

/* ---- small helpers ---------------------------------------------------- */

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static double rng_double(ag_worker *w)
{
    uint64_t s0 = w->rng[0], s1 = w->rng[1], r = s0 + s1;
    s1 ^= s0;
    w->rng[0] = rotl(s0, 55) ^ s1 ^ (s1 << 14);
    w->rng[1] = rotl(s1, 36);
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t gap_ns(ag_worker *w)
{
    if (w->sh->rate_uniform)
        return (uint64_t)w->gap_mean_ns;
    return (uint64_t)(-w->gap_mean_ns * log(1.0 - rng_double(w)));
}

static void notify(ag_worker *w)
{
    w->sh->notify(w->sh->notify_arg);
}

static void set_phase(ag_worker *w, enum ag_worker_phase p)
{
    pthread_mutex_lock(&w->mu);
    if (w->phase != AG_WORKER_FAILED)
        w->phase = p;
    pthread_mutex_unlock(&w->mu);
    notify(w);
}

static void record_us(pr_hist *h, uint64_t ns)
{
    uint64_t us = (ns + 500) / 1000;
    pr_hist_record(h, us ? us : 1, 1);
}

/* ---- the arrival clock ------------------------------------------------ */

/* uv timers have millisecond resolution on a cached loop time: arrivals
 * would start up to ~2 ms late, which an open-loop latency (measured from
 * the intended start) would then include. A timerfd on CLOCK_MONOTONIC (the
 * clock of uv_hrtime) fires at the nanosecond instant instead. */
static void arrival_set(ag_worker *w, uint64_t at_ns)
{
    struct itimerspec its = {0};
    its.it_value.tv_sec = (time_t)(at_ns / 1000000000ULL);
    its.it_value.tv_nsec = (long)(at_ns % 1000000000ULL);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
        its.it_value.tv_nsec = 1; /* 0 would disarm */
    timerfd_settime(w->arrival_fd, TFD_TIMER_ABSTIME, &its, NULL);
    w->arrival_armed = true;
}

static void arrival_disarm(ag_worker *w)
{
    struct itimerspec its = {0};
    if (!w->arrival_armed)
        return;
    timerfd_settime(w->arrival_fd, 0, &its, NULL);
    w->arrival_armed = false;
}

/* ---- lifecycle of connections ----------------------------------------- */

static void maybe_finished(ag_worker *w)
{
    if (w->finished || w->n_done < w->n)
        return;
    w->finished = true;
    uv_timer_stop(&w->grace_timer);
    uv_timer_stop(&w->end_timer);
    arrival_disarm(w);
    if (w->rate > 0 && w->started && w->end_ns != UINT64_MAX) {
        /* Arrivals due before the end that never started. */
        uint64_t k = 0;
        while (w->next_arrival_ns < w->end_ns && k++ < DROP_COUNT_MAX) {
            w->cur->ctr.ev_dropped++;
            w->next_arrival_ns += gap_ns(w) + 1;
        }
    }
    set_phase(w, AG_WORKER_FINISHED);
}

static void conn_done(struct wconn *wc)
{
    if (wc->st == WC_DONE)
        return;
    uv_timer_stop(&wc->timer);
    ag_conn_close(wc->conn);
    wc->st = WC_DONE;
    wc->w->n_done++;
    maybe_finished(wc->w);
}

/* A fatal error: record the first one, stop every worker from starting
 * events, and close this worker's connections now. */
static void fatal(struct wconn *wc, const struct ag_conn_error *e)
{
    ag_worker *w = wc->w;

    pthread_mutex_lock(&w->mu);
    if (w->phase != AG_WORKER_FAILED) {
        w->phase = AG_WORKER_FAILED;
        w->err = *e;
        w->err_index = wc->index;
    }
    pthread_mutex_unlock(&w->mu);
    atomic_store(&w->sh->abort, true);
    w->stopping = true;
    for (size_t i = 0; i < w->n; i++)
        conn_done(&w->wc[i]);
    notify(w);
}

static void fatal_code(struct wconn *wc, const char *what, int code)
{
    struct ag_conn_error e = {0};
    snprintf(e.sqlstate, sizeof e.sqlstate, "HY000");
    snprintf(e.msg, sizeof e.msg, "%s", pr_strerror(code));
    snprintf(e.what, sizeof e.what, "%s", what);
    fatal(wc, &e);
}

static bool may_start(ag_worker *w, uint64_t now)
{
    if (w->stopping || now >= w->end_ns ||
        atomic_load_explicit(&w->sh->abort, memory_order_relaxed))
        return false;
    if (w->sh->events &&
        atomic_fetch_add_explicit(&w->sh->tickets, 1, memory_order_relaxed) >= w->sh->events)
        return false;
    return true;
}

static void count_ok(ag_worker *w, ag_conn *c)
{
    switch (ag_conn_class(c)) {
    case AG_CONN_READ:
        w->cur->ctr.reads++;
        break;
    case AG_CONN_WRITE:
        w->cur->ctr.writes++;
        break;
    case AG_CONN_OTHER:
        w->cur->ctr.other++;
        break;
    }
}

static void exec(struct wconn *wc)
{
    int rc = ag_conn_exec(wc->conn);
    if (rc < 0)
        fatal_code(wc, "execute", rc);
}

/* ---- closed and open loop --------------------------------------------- */

static void yield_cb(uv_timer_t *t)
{
    struct wconn *wc = t->data;
    if (wc->st == WC_IDLE)
        next_event(wc);
}

static void rate_take(struct wconn *wc, uint64_t now, bool queued)
{
    ag_worker *w = wc->w;
    uint64_t intended = w->next_arrival_ns;

    w->next_arrival_ns += gap_ns(w);
    w->cur->ctr.ev_started++;
    if (queued)
        w->cur->ctr.ev_queued++;
    if (now > intended) {
        if (now - intended > LATE_NS)
            w->cur->ctr.ev_late++;
        if ((now - intended) / 1000 > w->cur->slip_max_us)
            w->cur->slip_max_us = (now - intended) / 1000;
    }
    wc->ev_start_ns = intended;
    wc->svc_start_ns = now;
    wc->st = WC_EVENT;
    ag_cursor_begin(wc->cur);
    struct ag_call *call = ag_conn_call(wc->conn);
    if (ag_cursor_next(wc->cur, call)) {
        exec(wc);
        return;
    }
    /* An event without statements completes at once. */
    w->cur->ctr.transactions++;
    record_us(w->cur->lat, now - intended);
    record_us(w->cur->svc, 0);
    wc->st = WC_IDLE;
    w->idle[w->nidle++] = (uint32_t)(wc - w->wc);
}

static void arm_arrival(ag_worker *w);

static void end_idle(ag_worker *w)
{
    while (w->nidle > 0)
        conn_end(&w->wc[w->idle[--w->nidle]]);
}

static void arrival_cb(uv_poll_t *p, int status, int events)
{
    ag_worker *w = p->data;
    uint64_t expirations;
    uint64_t now = uv_hrtime();

    if (read(w->arrival_fd, &expirations, sizeof expirations) < 0 || !w->arrival_armed)
        return; /* nothing expired, or disarmed since */
    w->arrival_armed = false;

    while (w->nidle > 0 && w->next_arrival_ns <= now) {
        if (w->next_arrival_ns >= w->end_ns || !may_start(w, w->next_arrival_ns)) {
            end_idle(w);
            return;
        }
        rate_take(&w->wc[w->idle[--w->nidle]], now, false);
    }
    arm_arrival(w);
}

static void arm_arrival(ag_worker *w)
{
    if (w->nidle == 0 || w->finished)
        return;
    if (w->stopping || w->next_arrival_ns >= w->end_ns) {
        end_idle(w);
        return;
    }
    arrival_set(w, w->next_arrival_ns);
}

/* Rate mode: a connection became free. Take a due arrival (backlog) or wait. */
static void rate_free(struct wconn *wc)
{
    ag_worker *w = wc->w;
    uint64_t now = uv_hrtime();

    wc->st = WC_IDLE;
    if (w->next_arrival_ns <= now && !w->stopping) {
        if (w->next_arrival_ns >= w->end_ns || !may_start(w, w->next_arrival_ns)) {
            conn_end(wc);
            return;
        }
        rate_take(wc, now, true);
        return;
    }
    w->idle[w->nidle++] = (uint32_t)(wc - w->wc);
    arm_arrival(w);
}

static void event_done(struct wconn *wc)
{
    ag_worker *w = wc->w;
    uint64_t now = uv_hrtime();

    w->cur->ctr.transactions++;
    record_us(w->cur->lat, now - wc->ev_start_ns);
    if (w->rate > 0) {
        record_us(w->cur->svc, now - wc->svc_start_ns);
        rate_free(wc);
        return;
    }
    wc->st = WC_IDLE;
    next_event(wc);
}

static void next_stmt(struct wconn *wc)
{
    if (!ag_cursor_next(wc->cur, ag_conn_call(wc->conn))) {
        event_done(wc);
        return;
    }
    exec(wc);
}

/* Closed loop: begin the next event on an idle connection, or end it. */
static void next_event(struct wconn *wc)
{
    ag_worker *w = wc->w;

    for (;;) {
        uint64_t now = uv_hrtime();
        if (!may_start(w, now)) {
            conn_end(wc);
            return;
        }
        wc->ev_start_ns = now;
        wc->st = WC_EVENT;
        ag_cursor_begin(wc->cur);
        if (ag_cursor_next(wc->cur, ag_conn_call(wc->conn))) {
            wc->empty_events = 0;
            exec(wc);
            return;
        }
        /* No statement this event (bulk_insert buffering): it is complete. */
        w->cur->ctr.transactions++;
        record_us(w->cur->lat, uv_hrtime() - now);
        wc->st = WC_IDLE;
        if (++wc->empty_events >= EMPTY_EVENTS_YIELD) {
            wc->empty_events = 0;
            uv_timer_start(&wc->timer, yield_cb, 0, 0);
            return;
        }
    }
}

/* No more events for this connection: final statements, then close. */
static void conn_end(struct wconn *wc)
{
    if (wc->st == WC_DONE)
        return;
    if (wc->cur && !atomic_load(&wc->w->sh->abort) && wc->st != WC_BACKOFF &&
        ag_conn_is_open(wc->conn) && ag_cursor_finish(wc->cur, ag_conn_call(wc->conn))) {
        wc->st = WC_FINISH;
        exec(wc);
        return;
    }
    conn_done(wc);
}

/* ---- connection callbacks --------------------------------------------- */

static void backoff_cb(uv_timer_t *t)
{
    struct wconn *wc = t->data;
    ag_worker *w = wc->w;

    if (w->stopping || uv_hrtime() >= w->end_ns || atomic_load(&w->sh->abort)) {
        conn_done(wc); /* the event in flight is abandoned */
        return;
    }
    wc->st = WC_REOPEN;
    if (ag_conn_open(wc->conn) < 0)
        conn_done(wc);
}

static void backoff(struct wconn *wc)
{
    wc->st = WC_BACKOFF;
    wc->backoff_ms = wc->backoff_ms ? wc->backoff_ms * 2 : BACKOFF_FIRST_MS;
    if (wc->backoff_ms > BACKOFF_MAX_MS)
        wc->backoff_ms = BACKOFF_MAX_MS;
    uv_timer_start(&wc->timer, backoff_cb, wc->backoff_ms, 0);
}

static void on_open(struct wconn *wc, enum ag_conn_status st)
{
    ag_worker *w = wc->w;

    if (wc->st == WC_OPENING) {
        if (st != AG_CONN_OK) {
            fatal(wc, ag_conn_error(wc->conn));
            return;
        }
        wc->st = WC_IDLE;
        if (++w->n_open == w->n)
            set_phase(w, AG_WORKER_READY);
        return;
    }
    /* WC_REOPEN: a reconnect. Any failure retries until the run ends. */
    if (w->stopping || atomic_load(&w->sh->abort)) {
        conn_done(wc); /* the event in flight is abandoned */
        return;
    }
    if (st != AG_CONN_OK) {
        backoff(wc);
        return;
    }
    w->cur->ctr.reconnects++;
    wc->backoff_ms = 0;
    wc->st = WC_EVENT;
    ag_cursor_begin(wc->cur); /* the event restarts from its beginning */
    next_stmt(wc);
}

static void on_event_result(struct wconn *wc, enum ag_conn_status st)
{
    ag_worker *w = wc->w;

    switch (st) {
    case AG_CONN_OK:
        count_ok(w, wc->conn);
        next_stmt(wc);
        return;
    case AG_CONN_IGNORED:
        w->cur->ctr.errors++;
        ag_cursor_begin(wc->cur); /* restart the event, timer not reset */
        next_stmt(wc);
        return;
    case AG_CONN_LOST:
        backoff(wc);
        return;
    case AG_CONN_FATAL:
        fatal(wc, ag_conn_error(wc->conn));
        return;
    }
}

static void conn_cb(ag_conn *c, enum ag_conn_status st, void *data)
{
    struct wconn *wc = data;

    switch (wc->st) {
    case WC_OPENING:
    case WC_REOPEN:
        on_open(wc, st);
        return;
    case WC_EVENT:
        on_event_result(wc, st);
        return;
    case WC_FINISH:
        if (st == AG_CONN_OK) {
            count_ok(wc->w, c);
            if (ag_cursor_finish(wc->cur, ag_conn_call(c))) {
                exec(wc);
                return;
            }
        } else if (st == AG_CONN_FATAL) {
            fatal(wc, ag_conn_error(c));
            return;
        } else {
            wc->w->cur->ctr.errors++;
        }
        conn_done(wc);
        return;
    case WC_PIECE:
        if (st != AG_CONN_OK) {
            fatal(wc, ag_conn_error(c));
            return;
        }
        count_ok(wc->w, c);
        piece_next(wc);
        return;
    default:
        return;
    }
}

/* ---- command streams -------------------------------------------------- */

static bool piece_take(struct wconn *wc)
{
    struct ag_worker_shared *sh = wc->w->sh;
    size_t i = atomic_fetch_add(&sh->next_piece, 1);

    if (i >= sh->npieces || atomic_load(&sh->abort))
        return false;
    wc->piece = &sh->pieces[i];
    return true;
}

static void piece_next(struct wconn *wc)
{
    ag_worker *w = wc->w;
    struct ag_call *call = ag_conn_call(wc->conn);
    const char *sql;
    size_t len;

    while (wc->piece) {
        if (wc->piece->next(wc->piece->it, &sql, &len)) {
            call->stmt = -1;
            call->text = sql;
            call->text_len = len;
            call->nparams = 0;
            call->kind = "command";
            exec(wc);
            return;
        }
        if (!piece_take(wc))
            wc->piece = NULL;
    }
    wc->st = WC_IDLE;
    if (--w->n_pieces_busy == 0) {
        for (size_t i = 0; i < w->n; i++)
            conn_done(&w->wc[i]);
        if (w->n == 0)
            maybe_finished(w);
    }
}

static void do_pieces(ag_worker *w)
{
    w->n_pieces_busy = w->n;
    for (size_t i = 0; i < w->n; i++) {
        struct wconn *wc = &w->wc[i];
        wc->piece = NULL;
        if (wc->st != WC_IDLE) {
            w->n_pieces_busy--;
            continue;
        }
        wc->st = WC_PIECE;
        if (!piece_take(wc)) {
            wc->st = WC_IDLE;
            w->n_pieces_busy--;
            continue;
        }
        piece_next(wc);
    }
    if (w->n_pieces_busy == 0) {
        for (size_t i = 0; i < w->n; i++)
            conn_done(&w->wc[i]);
        maybe_finished(w);
    }
}

/* ---- commands --------------------------------------------------------- */

static void lag_cb(uv_timer_t *t)
{
    ag_worker *w = t->data;
    uint64_t now = uv_hrtime();

    record_us(w->cur->lag, now > w->lag_expect_ns ? now - w->lag_expect_ns : 0);
    w->lag_expect_ns = now + LAG_PERIOD_MS * 1000000ULL;
    uv_timer_start(&w->lag_timer, lag_cb, LAG_PERIOD_MS, 0);
}

static void do_setup(ag_worker *w)
{
    set_phase(w, AG_WORKER_SETUP);
    if (w->n == 0) {
        set_phase(w, AG_WORKER_READY);
        return;
    }
    for (size_t i = 0; i < w->n; i++) {
        struct wconn *wc = &w->wc[i];
        wc->st = WC_OPENING;
        if (ag_conn_open(wc->conn) < 0) {
            fatal_code(wc, "connect", -EBUSY);
            return;
        }
    }
}

/* Graceful stop from now: no new event; in-flight ones get the grace. */
static void begin_stop(ag_worker *w)
{
    if (w->stopping)
        return;
    w->stopping = true;
    uint64_t now = uv_hrtime();
    if (now < w->end_ns)
        w->end_ns = now;
    for (size_t i = 0; i < w->n; i++) {
        struct wconn *wc = &w->wc[i];
        if (wc->st == WC_IDLE || wc->st == WC_CLOSED || wc->st == WC_OPENING)
            conn_end(wc);
        else if (wc->st == WC_BACKOFF)
            conn_done(wc);
    }
    w->nidle = 0;
    maybe_finished(w);
}

static void stop_now(ag_worker *w)
{
    w->stopping = true;
    arrival_disarm(w);
    w->nidle = 0;
    for (size_t i = 0; i < w->n; i++)
        conn_done(&w->wc[i]);
    maybe_finished(w);
}

static void grace_cb(uv_timer_t *t)
{
    stop_now(t->data);
}

static void end_cb(uv_timer_t *t)
{
    ag_worker *w = t->data;
    begin_stop(w);
    if (!w->finished)
        uv_timer_start(&w->grace_timer, grace_cb, w->sh->stop_grace_ms, 0);
}

static void start_cb(uv_timer_t *t)
{
    ag_worker *w = t->data;
    uint64_t now = uv_hrtime();

    if (now < w->t0_ns) { /* loop time lags real time: never start early */
        uv_timer_start(&w->start_timer, start_cb, (w->t0_ns - now + 999999) / 1000000, 0);
        return;
    }
    w->started = true;
    pthread_mutex_lock(&w->mu);
    w->started_ns = now;
    pthread_mutex_unlock(&w->mu);
    if (w->sh->time_ns) {
        w->end_ns = w->t0_ns + w->sh->time_ns;
        uint64_t left = w->end_ns > now ? (w->end_ns - now + 999999) / 1000000 : 0;
        uv_timer_start(&w->end_timer, end_cb, left, 0);
    }
    if (w->rate > 0) {
        w->next_arrival_ns = w->t0_ns + gap_ns(w);
        w->nidle = 0;
        for (size_t i = w->n; i-- > 0;)
            if (w->wc[i].st == WC_IDLE)
                w->idle[w->nidle++] = (uint32_t)i;
        arm_arrival(w);
        return;
    }
    for (size_t i = 0; i < w->n; i++)
        if (w->wc[i].st == WC_IDLE)
            next_event(&w->wc[i]);
}

static void do_start(ag_worker *w, uint64_t t0_ns)
{
    uint64_t now = uv_hrtime();

    if (w->started || w->stopping)
        return;
    set_phase(w, AG_WORKER_RUNNING);
    w->t0_ns = t0_ns;
    uv_timer_start(&w->start_timer, start_cb, t0_ns > now ? (t0_ns - now + 999999) / 1000000 : 0,
                   0);
}

static void close_walk_cb(uv_handle_t *h, void *arg)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void do_quit(ag_worker *w)
{
    w->stopping = true;
    for (size_t i = 0; i < w->n; i++) {
        struct wconn *wc = &w->wc[i];
        uv_timer_stop(&wc->timer);
        ag_conn_destroy(&wc->conn);
    }
    uv_walk(&w->loop, close_walk_cb, NULL);
}

static void async_cb(uv_async_t *a)
{
    ag_worker *w = a->data;

    pthread_mutex_lock(&w->mu);
    unsigned cmd = w->cmd;
    w->cmd = 0;
    uint64_t t0 = w->cmd_t0_ns;
    bool immediate = w->cmd_immediate;
    struct ag_wstats *fresh = w->swap_in;
    if (cmd & CMD_SWAP) {
        w->swap_out = w->cur;
        w->cur = fresh;
        w->swap_done = true;
    }
    pthread_mutex_unlock(&w->mu);
    if (cmd & CMD_SWAP)
        notify(w);
    if (cmd & CMD_QUIT) {
        do_quit(w);
        return;
    }
    if (cmd & CMD_SETUP)
        do_setup(w);
    if (cmd & CMD_PIECES)
        do_pieces(w);
    if (cmd & CMD_START)
        do_start(w, t0);
    if (cmd & CMD_STOP) {
        if (immediate || !w->started)
            stop_now(w);
        else
            end_cb(&w->end_timer);
    }
}

/* ---- thread and public API -------------------------------------------- */

static void worker_main(void *arg)
{
    ag_worker *w = arg;
    uv_run(&w->loop, UV_RUN_DEFAULT);
}

static void init_timer(ag_worker *w, uv_timer_t *t)
{
    uv_timer_init(&w->loop, t);
    t->data = w;
}

static void init_conns(ag_worker *w, const struct ag_worker_conn *conns)
{
    struct ag_worker_shared *sh = w->sh;

    for (size_t i = 0; i < w->n; i++) {
        struct wconn *wc = &w->wc[i];
        wc->w = w;
        wc->index = conns[i].index;
        wc->conn = ag_conn_new(&w->loop, conns[i].target, sh->conn_opts, sh->wl, conn_cb, wc);
        if (sh->wl)
            wc->cur = ag_cursor_new(sh->wl, conns[i].seed, conns[i].index, w->conns_total);
        uv_timer_init(&w->loop, &wc->timer);
        wc->timer.data = wc;
    }
}

ag_worker *ag_worker_new(struct ag_worker_shared *sh, const struct ag_worker_conn *conns, size_t n,
                         uint32_t conns_total, double rate, uint64_t rng_seed,
                         struct ag_wstats *stats)
{
    ag_worker *w = pr_xcalloc(1, sizeof *w);

    w->sh = sh;
    w->n = n;
    w->conns_total = conns_total;
    w->cur = stats;
    w->rate = rate;
    w->gap_mean_ns = rate > 0 ? 1e9 / rate : 0;
    w->rng[0] = splitmix(&rng_seed);
    w->rng[1] = splitmix(&rng_seed) | 1;
    w->end_ns = UINT64_MAX;
    w->phase = AG_WORKER_IDLE;
    pthread_mutex_init(&w->mu, NULL);
    uv_loop_init(&w->loop);
    uv_async_init(&w->loop, &w->async, async_cb);
    w->async.data = w;
    init_timer(w, &w->start_timer);
    init_timer(w, &w->end_timer);
    init_timer(w, &w->grace_timer);
    init_timer(w, &w->lag_timer);
    w->arrival_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (w->arrival_fd < 0)
        abort();
    uv_poll_init(&w->loop, &w->arrival_poll, w->arrival_fd);
    w->arrival_poll.data = w;
    uv_poll_start(&w->arrival_poll, UV_READABLE, arrival_cb);
    w->wc = pr_xcalloc(n ? n : 1, sizeof *w->wc);
    w->idle = pr_xcalloc(n ? n : 1, sizeof *w->idle);
    init_conns(w, conns);
    w->lag_expect_ns = uv_hrtime() + LAG_PERIOD_MS * 1000000ULL;
    uv_timer_start(&w->lag_timer, lag_cb, LAG_PERIOD_MS, 0);
    if (uv_thread_create(&w->thread, worker_main, w) != 0) {
        do_quit(w);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        uv_loop_close(&w->loop);
        close(w->arrival_fd);
        for (size_t i = 0; i < n; i++)
            ag_cursor_destroy(&w->wc[i].cur);
        pthread_mutex_destroy(&w->mu);
        free(w->wc);
        free(w->idle);
        free(w);
        return NULL;
    }
    return w;
}

static void post(ag_worker *w, unsigned bits)
{
    pthread_mutex_lock(&w->mu);
    w->cmd |= bits;
    pthread_mutex_unlock(&w->mu);
    uv_async_send(&w->async);
}

void ag_worker_destroy(ag_worker **wp)
{
    if (!wp || !*wp)
        return;
    ag_worker *w = *wp;
    *wp = NULL;
    post(w, CMD_QUIT);
    uv_thread_join(&w->thread);
    uv_loop_close(&w->loop);
    close(w->arrival_fd);
    for (size_t i = 0; i < w->n; i++)
        ag_cursor_destroy(&w->wc[i].cur);
    pthread_mutex_destroy(&w->mu);
    free(w->wc);
    free(w->idle);
    free(w);
}

void ag_worker_post_setup(ag_worker *w)
{
    post(w, CMD_SETUP);
}

void ag_worker_post_start(ag_worker *w, uint64_t t0_ns)
{
    pthread_mutex_lock(&w->mu);
    w->cmd_t0_ns = t0_ns;
    pthread_mutex_unlock(&w->mu);
    post(w, CMD_START);
}

void ag_worker_post_stop(ag_worker *w, bool immediate)
{
    pthread_mutex_lock(&w->mu);
    w->cmd_immediate = w->cmd_immediate || immediate;
    pthread_mutex_unlock(&w->mu);
    post(w, CMD_STOP);
}

void ag_worker_post_pieces(ag_worker *w)
{
    post(w, CMD_PIECES);
}

void ag_worker_post_swap(ag_worker *w, struct ag_wstats *fresh)
{
    pthread_mutex_lock(&w->mu);
    w->swap_in = fresh;
    w->swap_done = false;
    w->swap_out = NULL;
    pthread_mutex_unlock(&w->mu);
    post(w, CMD_SWAP);
}

bool ag_worker_take_swap(ag_worker *w, struct ag_wstats **old)
{
    pthread_mutex_lock(&w->mu);
    bool done = w->swap_done;
    if (done) {
        *old = w->swap_out;
        w->swap_done = false;
        w->swap_out = NULL;
    }
    pthread_mutex_unlock(&w->mu);
    return done;
}

enum ag_worker_phase ag_worker_phase(ag_worker *w, struct ag_conn_error *err, uint32_t *conn_index)
{
    pthread_mutex_lock(&w->mu);
    enum ag_worker_phase p = w->phase;
    if (p == AG_WORKER_FAILED) {
        if (err)
            *err = w->err;
        if (conn_index)
            *conn_index = w->err_index;
    }
    pthread_mutex_unlock(&w->mu);
    return p;
}

uint64_t ag_worker_started_ns(ag_worker *w)
{
    pthread_mutex_lock(&w->mu);
    uint64_t t = w->started_ns;
    pthread_mutex_unlock(&w->mu);
    return t;
}
