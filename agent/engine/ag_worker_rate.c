/* ag_worker_rate: the open loop (--rate) of a worker.
 *
 * Arrivals are generated lazily in order (ag_arrival: Poisson as sysbench,
 * or uniform), so the backlog is simply "arrivals already due": nothing to
 * overflow, and a backlog never aborts the run (unlike sysbench's full
 * event queue). A free connection takes the oldest due arrival; when none is due it
 * waits in the idle stack for the arrival clock. Latency runs from the intended start
 * (coordinated-omission correct), service time from the actual start.
 */
#include <stdlib.h>

#include <sys/timerfd.h>
#include <unistd.h>

#include "ag_worker_int.h"

#define LATE_NS        1000000ULL /* an arrival started later than this is late */
#define DROP_COUNT_MAX 100000000ULL

static uint64_t gap_ns(ag_worker *w)
{
    return ag_arrival_gap_ns(&w->arrivals);
}

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

void ag__worker_arrival_disarm(ag_worker *w)
{
    struct itimerspec its = {0};
    if (!w->arrival_armed)
        return;
    timerfd_settime(w->arrival_fd, 0, &its, NULL);
    w->arrival_armed = false;
}

static void rate_take(struct ag__wconn *wc, uint64_t now, bool queued)
{
    ag_worker *w = wc->w;
    uint64_t intended = w->next_arrival_ns;

    w->next_arrival_ns += gap_ns(w);
    AG__COUNT(w, ev_started);
    if (queued)
        AG__COUNT(w, ev_queued);
    if (now > intended) {
        if (now - intended > LATE_NS)
            AG__COUNT(w, ev_late);
        ag__worker_record_slip(w, (now - intended) / 1000);
    }
    wc->ev_start_ns = intended;
    wc->try_ns = now;
    wc->svc_start_ns = now;
    wc->stmt_ns = now;
    wc->st = AG__WC_EVENT;
    wc->gen->fam->begin(wc->gen);
    enum ag_step step = wc->gen->fam->next(wc->gen, ag_conn_call(wc->conn));
    if (step == AG_STEP_STMT) {
        ag__worker_exec(wc);
        return;
    }
    if (ag__worker_family_failed(wc, step))
        return;
    /* An event without statements completes at once. */
    ag__worker_count_outcome(w, step);
    ag__worker_count_event_kind(wc, step, now - intended);
    ag__worker_record_lat(w, now - intended);
    ag__worker_record_svc(w, 0);
    wc->st = AG__WC_IDLE;
    w->idle[w->nidle++] = (uint32_t)(wc - w->wc);
}

static void arm_arrival(ag_worker *w);

static void end_idle(ag_worker *w)
{
    while (w->nidle > 0)
        ag__worker_conn_end(&w->wc[w->idle[--w->nidle]]);
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
        if (w->next_arrival_ns >= w->end_ns || !ag__worker_may_start(w, w->next_arrival_ns)) {
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
void ag__worker_rate_free(struct ag__wconn *wc)
{
    ag_worker *w = wc->w;
    uint64_t now = uv_hrtime();

    wc->st = AG__WC_IDLE;
    if (w->next_arrival_ns <= now && !w->stopping) {
        if (w->next_arrival_ns >= w->end_ns || !ag__worker_may_start(w, w->next_arrival_ns)) {
            ag__worker_conn_end(wc);
            return;
        }
        rate_take(wc, now, true);
        return;
    }
    w->idle[w->nidle++] = (uint32_t)(wc - w->wc);
    arm_arrival(w);
}

static void arrival_cb(uv_poll_t *p, int status, int events);

void ag__worker_rate_init(ag_worker *w, double rate, uint64_t rng_seed)
{
    w->rate = rate;
    ag_arrival_init(&w->arrivals, rate, w->sh->rate_uniform, rng_seed);
    w->arrival_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (w->arrival_fd < 0)
        abort();
    uv_poll_init(&w->loop, &w->arrival_poll, w->arrival_fd);
    w->arrival_poll.data = w;
    uv_poll_start(&w->arrival_poll, UV_READABLE, arrival_cb);
}

void ag__worker_rate_start(ag_worker *w)
{
    w->next_arrival_ns = w->t0_ns + ag_arrival_first_ns(&w->arrivals);
    w->nidle = 0;
    for (size_t i = w->n; i-- > 0;)
        if (w->wc[i].st == AG__WC_IDLE)
            w->idle[w->nidle++] = (uint32_t)i;
    arm_arrival(w);
}

void ag__worker_rate_drop(ag_worker *w)
{
    uint64_t k = 0;

    if (w->rate <= 0 || !w->started || w->end_ns == UINT64_MAX)
        return;
    /* Arrivals due before the end that never started. */
    while (w->next_arrival_ns < w->end_ns && k++ < DROP_COUNT_MAX) {
        AG__COUNT(w, ev_dropped);
        w->next_arrival_ns += gap_ns(w) + 1;
    }
}
