/* ag_worker_ctl: a worker's commands on its loop thread (see ag_worker.h):
 * the mailbox (setup, start, stop, swap, pieces, quit) and the timers that
 * start, end and bound a run, and measure the loop's lag. */
#include <stdatomic.h>

#include <pthread.h>
#include <uv.h>

#include "ag_worker_int.h"

/* ---- commands --------------------------------------------------------- */

void ag__worker_lag_cb(uv_timer_t *t)
{
    ag_worker *w = t->data;
    uint64_t now = uv_hrtime();

    uint64_t lag = now > w->lag_expect_ns ? now - w->lag_expect_ns : 0;
    ag__worker_record_us(w->cur->lag, lag);
    w->lag_expect_ns = now + LAG_PERIOD_MS * 1000000ULL;
    uv_timer_start(&w->lag_timer, ag__worker_lag_cb, LAG_PERIOD_MS, 0);
}

static void do_setup(ag_worker *w)
{
    ag__worker_set_phase(w, AG_WORKER_SETUP);
    if (w->n == 0) {
        ag__worker_set_phase(w, AG_WORKER_READY);
        return;
    }
    for (size_t i = 0; i < w->n; i++) {
        struct ag__wconn *wc = &w->wc[i];
        wc->st = AG__WC_OPENING;
        if (ag_conn_open(wc->conn) < 0) {
            ag__worker_fatal_code(wc, "connect", -EBUSY);
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
        struct ag__wconn *wc = &w->wc[i];
        if (wc->st == AG__WC_IDLE || wc->st == AG__WC_CLOSED || wc->st == AG__WC_OPENING)
            ag__worker_conn_end(wc);
        else if (wc->st == AG__WC_BACKOFF)
            ag__worker_conn_done(wc);
    }
    w->nidle = 0;
    ag__worker_maybe_finished(w);
}

/* Every connection closes now; an event it was in the middle of (running,
 * or waiting to reopen and restart) is counted as unfinished. */
static void stop_now(ag_worker *w)
{
    w->stopping = true;
    ag__worker_arrival_disarm(w);
    w->nidle = 0;
    for (size_t i = 0; i < w->n; i++) {
        enum ag__wc_state st = w->wc[i].st;
        if (st == AG__WC_EVENT || st == AG__WC_BACKOFF || st == AG__WC_REOPEN)
            AG__COUNT(w, unfinished);
        ag__worker_conn_done(&w->wc[i]);
    }
    ag__worker_maybe_finished(w);
}

static void grace_cb(uv_timer_t *t)
{
    stop_now(t->data);
}

static void stop_gracefully(ag_worker *w)
{
    begin_stop(w);
    /* A second stop (the coordinator's ABORT after --time) keeps the first
     * one's deadline. */
    if (!w->finished && !uv_is_active((uv_handle_t *)&w->grace_timer))
        uv_timer_start(&w->grace_timer, grace_cb, w->sh->stop_grace_ms, 0);
}

static void end_cb(uv_timer_t *t)
{
    ag_worker *w = t->data;
    uint64_t now = uv_hrtime();

    /* libuv's timers count whole milliseconds from a loop time that lags
     * real time, so this can fire up to ~1 ms before --time is up: the run
     * then ended short of it (total time 4.9997 s for --time=5). */
    if (!w->stopping && now < w->end_ns) {
        uv_timer_start(&w->end_timer, end_cb, (w->end_ns - now + 999999) / 1000000, 0);
        return;
    }
    stop_gracefully(w);
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
        ag__worker_rate_start(w);
        return;
    }
    for (size_t i = 0; i < w->n; i++)
        if (w->wc[i].st == AG__WC_IDLE)
            ag__worker_next_event(&w->wc[i]);
}

static void do_start(ag_worker *w, uint64_t t0_ns)
{
    uint64_t now = uv_hrtime();

    if (w->started || w->stopping)
        return;
    ag__worker_set_phase(w, AG_WORKER_RUNNING);
    w->t0_ns = t0_ns;
    uv_timer_start(&w->start_timer, start_cb, t0_ns > now ? (t0_ns - now + 999999) / 1000000 : 0,
                   0);
}

static void close_walk_cb(uv_handle_t *h, void *arg)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void ag__worker_do_quit(ag_worker *w)
{
    w->stopping = true;
    for (size_t i = 0; i < w->n; i++) {
        struct ag__wconn *wc = &w->wc[i];
        uv_timer_stop(&wc->timer);
        ag_conn_destroy(&wc->conn);
    }
    uv_walk(&w->loop, close_walk_cb, NULL);
}

void ag__worker_async_cb(uv_async_t *a)
{
    ag_worker *w = a->data;

    pthread_mutex_lock(&w->mu);
    unsigned cmd = w->cmd;
    w->cmd = 0;
    uint64_t t0 = w->cmd_t0_ns;
    bool immediate = w->cmd_immediate;
    struct ag_wstats *fresh = w->swap_in;
    if (cmd & CMD_SWAP) {
        if (w->lose_cur) { /* test hook: lost before it left the worker */
            ag_wstats_reset(w->cur);
            w->lose_cur = false;
        }
        w->tally_pub = w->tally;
        ag_wstats_fold(&w->run, w->cur); /* the run = the intervals handed over */
        w->swap_out = w->cur;
        w->cur = fresh;
        if (w->swap_run != NULL) { /* the run's totals, copied on this thread */
            ag_wstats_reset(w->swap_run);
            ag_wstats_add(w->swap_run, &w->run);
        }
        for (size_t i = 0; i < w->n; i++) { /* per connection, for DONE.conns */
            w->wc[i].pub_events = w->wc[i].fair_events;
            w->wc[i].pub_lat_ns = w->wc[i].fair_lat_ns;
        }
        w->swap_done = true;
    }
    pthread_mutex_unlock(&w->mu);
    if (cmd & CMD_SWAP)
        ag__worker_notify(w);
    if (cmd & CMD_QUIT) {
        ag__worker_do_quit(w);
        return;
    }
    if (cmd & CMD_SETUP)
        do_setup(w);
    if (cmd & CMD_PIECES)
        ag__worker_do_pieces(w);
    if (cmd & CMD_START)
        do_start(w, t0);
    if (cmd & CMD_STOP) {
        if (immediate || !w->started)
            stop_now(w);
        else
            stop_gracefully(w);
    }
}
