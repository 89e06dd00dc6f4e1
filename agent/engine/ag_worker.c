/* ag_worker: a loop thread driving its connections (see ag_worker.h): the
 * closed loop, connection callbacks and the public API. The open loop lives
 * in ag_worker_rate.c, command streams in ag_worker_cmd.c, the mailbox and
 * run timers in ag_worker_ctl.c, the interval figures (ag_wstats) in
 * ag_worker_stats.c. */
#include "ag_worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>
#include <unistd.h>
#include <uv.h>

#include "ag_worker_int.h"
#include "pr_err.h"

#define BACKOFF_FIRST_MS   10
#define BACKOFF_MAX_MS     1000
#define EMPTY_EVENTS_YIELD 256 /* events without statements before yielding to the loop */

/* ---- small helpers ---------------------------------------------------- */

void ag__worker_notify(ag_worker *w)
{
    w->sh->notify(w->sh->notify_arg);
}

void ag__worker_set_phase(ag_worker *w, enum ag_worker_phase p)
{
    pthread_mutex_lock(&w->mu);
    if (w->phase != AG_WORKER_FAILED)
        w->phase = p;
    pthread_mutex_unlock(&w->mu);
    ag__worker_notify(w);
}

void ag__worker_record_us(pr_hist *h, uint64_t ns)
{
    uint64_t us = (ns + 500) / 1000;
    pr_hist_record(h, us ? us : 1, 1);
}

void ag__worker_record_lat(ag_worker *w, uint64_t ns)
{
    ag__worker_record_us(w->cur->lat, ns);
}

void ag__worker_record_svc(ag_worker *w, uint64_t ns)
{
    ag__worker_record_us(w->cur->svc, ns);
}

void ag__worker_record_slip(ag_worker *w, uint64_t us)
{
    if (us > w->cur->slip_max_us)
        w->cur->slip_max_us = us;
}

/* ---- lifecycle of connections ----------------------------------------- */

void ag__worker_maybe_finished(ag_worker *w)
{
    if (w->finished || w->n_done < w->n)
        return;
    w->finished = true;
    uv_timer_stop(&w->grace_timer);
    uv_timer_stop(&w->end_timer);
    ag__worker_arrival_disarm(w);
    ag__worker_rate_drop(w);
    ag__worker_set_phase(w, AG_WORKER_FINISHED);
}

void ag__worker_conn_done(struct ag__wconn *wc)
{
    if (wc->st == AG__WC_DONE)
        return;
    uv_timer_stop(&wc->timer);
    ag_conn_close(wc->conn);
    wc->st = AG__WC_DONE;
    wc->w->n_done++;
    ag__worker_maybe_finished(wc->w);
}

/* A fatal error: record the first one, stop every worker from starting
 * events, and close this worker's connections now. */
static void fatal(struct ag__wconn *wc, const struct ag_conn_error *e)
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
        ag__worker_conn_done(&w->wc[i]);
    ag__worker_notify(w);
}

void ag__worker_fatal_code(struct ag__wconn *wc, const char *what, int code)
{
    struct ag_conn_error e = {0};
    snprintf(e.sqlstate, sizeof e.sqlstate, "HY000");
    snprintf(e.msg, sizeof e.msg, "%s", pr_strerror(code));
    snprintf(e.what, sizeof e.what, "%s", what);
    fatal(wc, &e);
}

void ag__worker_piece_failed(struct ag__wconn *wc, const char *why)
{
    struct ag_conn_error e = {.err_no = 0, .sqlstate = "HY000"};
    snprintf(e.msg, sizeof e.msg, "%s", why);
    snprintf(e.what, sizeof e.what, "script");
    fatal(wc, &e);
}

bool ag__worker_family_failed(struct ag__wconn *wc, enum ag_step step)
{
    const char *why = NULL;
    if (step == AG_STEP_FAILED && wc->gen->fam->gen_error)
        why = wc->gen->fam->gen_error(wc->gen);
    if (why == NULL)
        return false;
    struct ag_conn_error e = {0};
    snprintf(e.sqlstate, sizeof e.sqlstate, "HY000");
    snprintf(e.msg, sizeof e.msg, "%s", why);
    snprintf(e.what, sizeof e.what, "script");
    fatal(wc, &e);
    return true;
}

bool ag__worker_may_start(ag_worker *w, uint64_t now)
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
        AG__COUNT(w, reads);
        break;
    case AG_CONN_WRITE:
        AG__COUNT(w, writes);
        break;
    case AG_CONN_OTHER:
        AG__COUNT(w, other);
        break;
    }
}

/* A command stream's statement succeeded (see struct ag_piece). */
static void count_piece(struct ag__wconn *wc)
{
    ag_worker *w = wc->w;

    if (wc->piece_rows > 0) {
        AG__COUNT(w, writes);
        w->cur->rows += wc->piece_rows;
        return;
    }
    count_ok(wc->w, wc->conn);
}

static void backoff_cb(uv_timer_t *t);

void ag__worker_exec(struct ag__wconn *wc)
{
    struct ag_call *call = ag_conn_call(wc->conn);
    if (call->reconnect) { /* the family's (ag_family.h): in an event only */
        call->reconnect = false;
        call->event_clock_start = false;
        if (wc->st != AG__WC_EVENT) {
            ag__worker_fatal_code(wc, "reconnect outside an event", -EINVAL);
            return;
        }
        ag_conn_close(wc->conn);
        wc->reopen_next = true;
        uv_timer_start(&wc->timer, backoff_cb, 0, 0); /* reopens on the next turn */
        return;
    }
    if (call->event_clock_start) { /* what came before was setup (ag_family.h) */
        uint64_t now = uv_hrtime();
        call->event_clock_start = false;
        if (wc->w->rate <= 0)
            wc->ev_start_ns = now; /* rate mode: the intended start stays */
        wc->svc_start_ns = now;
        wc->try_ns = now;
    }
    int rc = ag_conn_exec(wc->conn);
    if (rc < 0)
        ag__worker_fatal_code(wc, "execute", rc);
}

/* ---- closed and open loop --------------------------------------------- */

static void yield_cb(uv_timer_t *t)
{
    struct ag__wconn *wc = t->data;
    if (wc->st == AG__WC_IDLE)
        ag__worker_next_event(wc);
}

void ag__worker_count_outcome(ag_worker *w, enum ag_step step)
{
    if (step == AG_STEP_FAILED)
        AG__COUNT(w, errors); /* the family gave the event up */
    else
        AG__COUNT(w, transactions); /* committed, or rolled back on purpose */
    if (step == AG_STEP_FAILED)     /* the outcomes apart (pr_counters.h, optional keys) */
        AG__COUNT(w, failed);
    else if (step == AG_STEP_ROLLED_BACK)
        AG__COUNT(w, rolled_back);
}

/* STATS.trx: the event that just ended (ns long) as one record. Its last
 * attempt began at try_ns (the event's start when it had no retry). */
static void record_trx(struct ag__wconn *wc, uint16_t k, enum ag_step step, uint64_t ns)
{
    ag_worker *w = wc->w;
    uint64_t now = uv_hrtime();
    uint64_t try_ns = wc->try_ns > wc->ev_start_ns ? wc->try_ns : wc->ev_start_ns;
    struct timespec rt;

    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t end_rt = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    uint64_t last = now > try_ns ? now - try_ns : 0;
    struct pr_msg_trx t = {
        .conn = wc->index,
        .kind = k,
        .flags = step == AG_STEP_ROLLED_BACK ? PR_TRX_ROLLED_BACK : 0,
        .end_us = now > w->t0_ns ? (now - w->t0_ns) / 1000 : 0,
        .rt_us = ns / 1000,
        .start_rt_ns = end_rt > last ? end_rt - last : 0,
        .end_rt_ns = end_rt,
    };
    ag_wstats_add_trx(w->cur, &t);
}

void ag__worker_count_event_kind(struct ag__wconn *wc, enum ag_step step, uint64_t ns)
{
    ag_worker *w = wc->w;

    if (wc->gen->fam->event_errors != NULL) { /* the family's own (ag_family.h) */
        uint32_t n = wc->gen->fam->event_errors(wc->gen);
        w->cur->ctr.errors += n;
    }
    if (wc->gen->fam->event_kind == NULL)
        return;
    uint16_t k = wc->gen->fam->event_kind(wc->gen);
    if (k >= w->run.nk)
        return;
    if (step == AG_STEP_FAILED) {
        w->cur->kst[k].errors++;
        return;
    }
    w->cur->kst[k].count++;
    w->cur->kst[k].late += ns >= w->sh->limit_ns[k]; /* exact, unlike the histogram's buckets */
    ag__worker_record_us(w->cur->kst[k].lat, ns);
    if ((w->sh->record_kinds >> k) & 1u)
        record_trx(wc, k, step, ns);
}

static void next_event_at(struct ag__wconn *wc, uint64_t now);

/* The event ended with its last statement (or the reopen before it): at
 * wc->stmt_ns, the clock read that ended the statement, so an event costs
 * no clock read of its own. */
static void event_done(struct ag__wconn *wc, enum ag_step step)
{
    ag_worker *w = wc->w;
    uint64_t now = wc->stmt_ns;

    ag__worker_count_outcome(w, step);
    ag__worker_count_event_kind(wc, step, now - wc->ev_start_ns);
    ag__worker_record_lat(w, now - wc->ev_start_ns);
    if (now > w->cur->last_end_ns) /* the run's true end (DONE.end) */
        w->cur->last_end_ns = now;
    wc->fair_events += step != AG_STEP_FAILED; /* as ctr.transactions counts it */
    w->tally += step != AG_STEP_FAILED;        /* apart from w->cur and w->run */
    wc->fair_lat_ns += now - wc->ev_start_ns;
    if (w->rate > 0) {
        ag__worker_record_svc(w, now - wc->svc_start_ns);
        ag__worker_rate_free(wc);
        return;
    }
    wc->st = AG__WC_IDLE;
    next_event_at(wc, now); /* the instant that ends this event begins the next */
}

/* The family's next statement of the event in flight. wc->stmt_ns is now:
 * every caller has just ended a statement (record_stmt) or reopened. */
static void next_stmt(struct ag__wconn *wc)
{
    enum ag_step step = wc->gen->fam->next(wc->gen, ag_conn_call(wc->conn));
    if (step != AG_STEP_STMT) {
        if (ag__worker_family_failed(wc, step))
            return;
        event_done(wc, step);
        return;
    }
    ag__worker_exec(wc);
}

/* The event's statement failed with an ignorable error, or its connection
 * was lost and is back: the family's retry policy goes on or gives up. */
static void retry_event(struct ag__wconn *wc)
{
    if (wc->gen->fam->retry(wc->gen, ag_conn_result(wc->conn))) {
        wc->try_ns = wc->stmt_ns; /* a new attempt of the same event (STATS.trx) */
        next_stmt(wc);
    } else if (!ag__worker_family_failed(wc, AG_STEP_FAILED))
        event_done(wc, AG_STEP_FAILED);
}

/* Closed loop: begin the next event on an idle connection, or end it. */
void ag__worker_next_event(struct ag__wconn *wc)
{
    next_event_at(wc, uv_hrtime());
}

/* ag__worker_next_event with the clock already read (now). */
static void next_event_at(struct ag__wconn *wc, uint64_t now)
{
    ag_worker *w = wc->w;

    for (;; now = uv_hrtime()) {
        if (!ag__worker_may_start(w, now)) {
            ag__worker_conn_end(wc);
            return;
        }
        wc->ev_start_ns = now;
        wc->try_ns = now;
        wc->stmt_ns = now;
        wc->st = AG__WC_EVENT;
        wc->gen->fam->begin(wc->gen);
        enum ag_step step = wc->gen->fam->next(wc->gen, ag_conn_call(wc->conn));
        if (step == AG_STEP_STMT) {
            wc->empty_events = 0;
            ag__worker_exec(wc);
            return;
        }
        if (ag__worker_family_failed(wc, step))
            return;
        /* No statement this event (bulk_insert buffering): it is complete. */
        ag__worker_count_outcome(w, step);
        ag__worker_count_event_kind(wc, step, uv_hrtime() - now);
        ag__worker_record_lat(w, uv_hrtime() - now);
        wc->st = AG__WC_IDLE;
        if (++wc->empty_events >= EMPTY_EVENTS_YIELD) {
            wc->empty_events = 0;
            uv_timer_start(&wc->timer, yield_cb, 0, 0);
            return;
        }
    }
}

/* No more events for this connection: final statements, then close. */
void ag__worker_conn_end(struct ag__wconn *wc)
{
    if (wc->st == AG__WC_DONE)
        return;
    if (wc->gen && !atomic_load(&wc->w->sh->abort) && wc->st != AG__WC_BACKOFF &&
        ag_conn_is_open(wc->conn) && wc->gen->fam->finish(wc->gen, ag_conn_call(wc->conn))) {
        wc->st = AG__WC_FINISH;
        wc->stmt_ns = uv_hrtime();
        ag__worker_exec(wc);
        return;
    }
    ag__worker_conn_done(wc);
}

/* ---- connection callbacks --------------------------------------------- */

static void backoff_cb(uv_timer_t *t)
{
    struct ag__wconn *wc = t->data;
    ag_worker *w = wc->w;

    if (w->stopping || uv_hrtime() >= w->end_ns || atomic_load(&w->sh->abort)) {
        ag__worker_conn_done(wc); /* the event in flight is abandoned */
        return;
    }
    wc->st = AG__WC_REOPEN;
    if (ag_conn_open(wc->conn) < 0)
        ag__worker_conn_done(wc);
}

static void backoff(struct ag__wconn *wc)
{
    wc->st = AG__WC_BACKOFF;
    wc->backoff_ms = wc->backoff_ms ? wc->backoff_ms * 2 : BACKOFF_FIRST_MS;
    if (wc->backoff_ms > BACKOFF_MAX_MS)
        wc->backoff_ms = BACKOFF_MAX_MS;
    uv_timer_start(&wc->timer, backoff_cb, wc->backoff_ms, 0);
}

static void on_open(struct ag__wconn *wc, enum ag_conn_status st)
{
    ag_worker *w = wc->w;

    if (wc->st == AG__WC_OPENING) {
        if (st != AG_CONN_OK) {
            fatal(wc, ag_conn_error(wc->conn));
            return;
        }
        wc->st = AG__WC_IDLE;
        pthread_mutex_lock(&w->mu);
        w->opened = (uint32_t)++w->n_open;
        pthread_mutex_unlock(&w->mu);
        if (w->n_open == w->n)
            ag__worker_set_phase(w, AG_WORKER_READY);
        return;
    }
    /* AG__WC_REOPEN: a reconnect. Any failure retries until the run ends. */
    if (w->stopping || atomic_load(&w->sh->abort)) {
        ag__worker_conn_done(wc); /* the event in flight is abandoned */
        return;
    }
    if (st != AG_CONN_OK) {
        backoff(wc);
        return;
    }
    AG__COUNT(w, reconnects);
    wc->backoff_ms = 0;
    wc->stmt_ns = uv_hrtime();
    wc->st = AG__WC_EVENT;
    if (wc->reopen_next) { /* the family asked for it: its event goes on */
        wc->reopen_next = false;
        next_stmt(wc);
        return;
    }
    retry_event(wc); /* the family restarts the event (sysbench: from its beginning) */
}

/* A statement of an event ended: its kind's count (or error) and latency,
 * with one clock read (the end of one statement starts the next). */
static void record_stmt(struct ag__wconn *wc, bool ok)
{
    ag_worker *w = wc->w;
    uint16_t k = ag_conn_call(wc->conn)->kind_id;
    uint64_t now = uv_hrtime();

    if (k < w->run.nk) {
        if (ok) {
            w->cur->kst[k].count++;
            ag__worker_record_us(w->cur->kst[k].lat, now - wc->stmt_ns);
        } else {
            w->cur->kst[k].errors++;
        }
    }
    wc->stmt_ns = now;
}

static void on_event_result(struct ag__wconn *wc, enum ag_conn_status st)
{
    ag_worker *w = wc->w;

    if (st == AG_CONN_OK || st == AG_CONN_IGNORED)
        record_stmt(wc, st == AG_CONN_OK);
    switch (st) {
    case AG_CONN_OK:
        count_ok(w, wc->conn);
        if (wc->gen->fam->result)
            wc->gen->fam->result(wc->gen, ag_conn_result(wc->conn));
        next_stmt(wc);
        return;
    case AG_CONN_IGNORED:
        AG__COUNT(w, errors);
        retry_event(wc); /* the event timer is not reset */
        return;
    case AG_CONN_LOST:
        backoff(wc);
        return;
    case AG_CONN_FATAL:
        if (wc->gen->fam->retry_fatal && /* a script's sql_error_ignorable hook */
            wc->gen->fam->retry_fatal(wc->gen, ag_conn_result(wc->conn))) {
            record_stmt(wc, false);
            AG__COUNT(w, errors);
            next_stmt(wc);
            return;
        }
        fatal(wc, ag_conn_error(wc->conn));
        return;
    }
}

/* A retry_locks stream's statement failed: send it again when the server
 * rolled it back for a deadlock or a lock wait (its text is the stream's,
 * unchanged until the next next()). True when it was sent again. */
static bool piece_retry(struct ag__wconn *wc, enum ag_conn_status st)
{
    unsigned e = ag_conn_error(wc->conn)->err_no;

    if (!wc->piece->retry_locks || (st != AG_CONN_IGNORED && st != AG_CONN_FATAL) ||
        (e != 1213 && e != 1205) || wc->piece_retries >= AG_PIECE_RETRIES ||
        atomic_load(&wc->w->sh->abort))
        return false;
    wc->piece_retries++;
    AG__COUNT(wc->w, errors);
    ag__worker_exec(wc);
    return true;
}

/* A stream's informational line, kept for DONE.notes (any worker). */
static void add_note(struct ag_worker_shared *sh, const char *note)
{
    pthread_mutex_lock(&sh->notes_mu);
    if (sh->n_notes < PR_MSG_MAX_NOTES) {
        sh->notes = pr_xrealloc(sh->notes, (sh->n_notes + 1) * sizeof *sh->notes);
        sh->notes[sh->n_notes++] = pr_xstrdup(note);
    }
    pthread_mutex_unlock(&sh->notes_mu);
}

static void conn_cb(ag_conn *c, enum ag_conn_status st, void *data)
{
    struct ag__wconn *wc = data;

    switch (wc->st) {
    case AG__WC_OPENING:
    case AG__WC_REOPEN:
        on_open(wc, st);
        return;
    case AG__WC_EVENT:
        on_event_result(wc, st);
        return;
    case AG__WC_FINISH:
        if (st == AG_CONN_OK || st == AG_CONN_IGNORED)
            record_stmt(wc, st == AG_CONN_OK);
        if (st == AG_CONN_OK) {
            count_ok(wc->w, c);
            if (wc->gen->fam->finish(wc->gen, ag_conn_call(c))) {
                ag__worker_exec(wc);
                return;
            }
        } else if (st == AG_CONN_FATAL) {
            fatal(wc, ag_conn_error(c));
            return;
        } else {
            AG__COUNT(wc->w, errors);
        }
        ag__worker_conn_done(wc);
        return;
    case AG__WC_PIECE:
        if (st != AG_CONN_OK && piece_retry(wc, st))
            return;
        if ((st == AG_CONN_IGNORED || st == AG_CONN_FATAL) && wc->piece->failed &&
            !atomic_load(&wc->w->sh->abort) &&
            wc->piece->failed(wc->piece->it, ag_conn_result(c))) {
            AG__COUNT(wc->w, errors); /* the stream took it (ag_family.h) */
            ag__worker_piece_next(wc);
            return;
        }
        if (st != AG_CONN_OK) {
            fatal(wc, ag_conn_error(c));
            return;
        }
        wc->piece_retries = 0;
        if (wc->piece->result) {
            const char *why = wc->piece->result(wc->piece->it, ag_conn_result(c));
            const char *note = !why && wc->piece->note ? wc->piece->note(wc->piece->it) : NULL;
            if (note)
                add_note(wc->w->sh, note);
            if (why) {
                struct ag_conn_error e = {.err_no = 0, .sqlstate = "HY000"};
                snprintf(e.msg, sizeof e.msg, "%s", why);
                snprintf(e.what, sizeof e.what, "result");
                fatal(wc, &e);
                return;
            }
        }
        count_piece(wc);
        ag__worker_piece_next(wc);
        return;
    default:
        return;
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

static void gen_destroy(struct ag__wconn *wc)
{
    if (wc->gen)
        wc->gen->fam->gen_destroy(&wc->gen);
}

static void init_conns(ag_worker *w, const struct ag_worker_conn *conns)
{
    struct ag_worker_shared *sh = w->sh;

    for (size_t i = 0; i < w->n; i++) {
        struct ag__wconn *wc = &w->wc[i];
        wc->w = w;
        wc->index = conns[i].index;
        const struct ag_conn_opts *co = sh->conn_opts;
        const char *db = sh->wl && sh->wl->fam->wl_conn_db
                             ? sh->wl->fam->wl_conn_db(sh->wl, conns[i].index)
                             : NULL;
        if (db) { /* its own database (tpcc_start -m/-o) */
            wc->opts = *sh->conn_opts;
            wc->opts.db = db;
            co = &wc->opts;
        }
        wc->conn = ag_conn_new(&w->loop, conns[i].target, co, sh->wl, conn_cb, wc);
        if (sh->wl)
            wc->gen = sh->wl->fam->gen_new(sh->wl, conns[i].seed, conns[i].index, w->conns_total);
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
    ag_wstats_init(&w->run, sh->nkinds);
    w->end_ns = UINT64_MAX;
    w->phase = AG_WORKER_IDLE;
    pthread_mutex_init(&w->mu, NULL);
    uv_loop_init(&w->loop);
    uv_async_init(&w->loop, &w->async, ag__worker_async_cb);
    w->async.data = w;
    init_timer(w, &w->start_timer);
    init_timer(w, &w->end_timer);
    init_timer(w, &w->grace_timer);
    init_timer(w, &w->lag_timer);
    ag__worker_rate_init(w, rate, rng_seed);
    /* 64-byte aligned slots: each one's hot head is one cache line */
    w->wc = pr_xcalloc_aligned(n, sizeof *w->wc, _Alignof(struct ag__wconn));
    w->idle = pr_xcalloc(n ? n : 1, sizeof *w->idle);
    init_conns(w, conns);
    w->lag_expect_ns = uv_hrtime() + LAG_PERIOD_MS * 1000000ULL;
    uv_timer_start(&w->lag_timer, ag__worker_lag_cb, LAG_PERIOD_MS, 0);
    if (uv_thread_create(&w->thread, worker_main, w) != 0) {
        ag__worker_do_quit(w);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        uv_loop_close(&w->loop);
        close(w->arrival_fd);
        for (size_t i = 0; i < n; i++)
            gen_destroy(&w->wc[i]);
        pthread_mutex_destroy(&w->mu);
        ag_wstats_close(&w->run);
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
        gen_destroy(&w->wc[i]);
    pthread_mutex_destroy(&w->mu);
    ag_wstats_close(&w->run);
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

void ag_worker_post_swap(ag_worker *w, struct ag_wstats *fresh, struct ag_wstats *run)
{
    pthread_mutex_lock(&w->mu);
    w->swap_in = fresh;
    w->swap_run = run;
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

uint32_t ag_worker_conns_open(ag_worker *w)
{
    pthread_mutex_lock(&w->mu);
    uint32_t n = w->opened;
    pthread_mutex_unlock(&w->mu);
    return n;
}

uint64_t ag_worker_tally(ag_worker *w)
{
    pthread_mutex_lock(&w->mu);
    uint64_t t = w->tally_pub;
    pthread_mutex_unlock(&w->mu);
    return t;
}

void ag__worker_test_lose_cur(ag_worker *w)
{
    pthread_mutex_lock(&w->mu);
    w->lose_cur = true;
    pthread_mutex_unlock(&w->mu);
}

size_t ag_worker_conn_figures(ag_worker *w, struct pr_msg_conn *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < w->n && n < cap; i++, n++)
        out[n] = (struct pr_msg_conn){.index = w->wc[i].index,
                                      .events = w->wc[i].pub_events,
                                      .lat_us = w->wc[i].pub_lat_ns / 1000u};
    pthread_mutex_unlock(&w->mu);
    return n;
}

uint64_t ag_worker_started_ns(ag_worker *w)
{
    pthread_mutex_lock(&w->mu);
    uint64_t t = w->started_ns;
    pthread_mutex_unlock(&w->mu);
    return t;
}
