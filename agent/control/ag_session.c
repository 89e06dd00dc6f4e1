/* ag_session: one PLAN carried out on its own thread: setup, READY, START, the interval STATS and
 * DONE (contract: ag_session.h). */
#include "ag_session.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "ag_run.h"
#include "pr_msg_trx.h"

/* An outgoing message waiting for the control thread. */
struct outmsg {
    struct pr_msg msg; /* owned: the control thread takes it in _pop */
    struct outmsg *next;
};

struct ag_session {
    pthread_t thread;           /* runs session_main */
    pthread_mutex_t mu;         /* guards everything below except plan_msg */
    pthread_cond_t cv;          /* signals go/stop to the session thread */
    struct pr_msg plan_msg;     /* our own deep copy of the PLAN */
    int workers;                /* event loops requested (0 = cores) */
    int pipe_fd[2];             /* [0] readable while the outbox is non-empty */
    struct outmsg *head, *tail; /* outbox, oldest first */
    enum pr_agent_state state;  /* for HEARTBEAT */
    bool go;                    /* START received */
    uint64_t t0_ns;             /* start instant, our monotonic clock */
    uint32_t interval_ms;       /* report interval */
    bool stop, immediate;       /* stop requested, and how */
    bool finished;              /* the thread has posted its last message */
    ag_run *run;                /* the engine-facing run, while it exists */
};

/* Deep copy through the codec: what decodes is exactly what was sent. */
static int copy_plan(struct pr_msg *dst, const struct pr_msg_plan *plan)
{
    struct pr_msg m;
    msgpack_sbuffer sb;
    struct pr_error err = {0};
    int rc;

    pr_msg_init(&m, PR_MSG_PLAN, NULL, 0);
    m.u.plan = *plan;
    msgpack_sbuffer_init(&sb);
    rc = pr_msg_encode(&m, &sb, &err);
    if (rc == 0)
        rc = pr_msg_decode(dst, sb.data, sb.size, &err);
    pr_msg_sbuffer_scrub(&sb); /* it held the password */
    return rc;
}

/* Append *m (taken) to the outbox; s->mu held. */
static void enqueue(ag_session *s, struct pr_msg *m)
{
    struct outmsg *o = pr_xcalloc(1, sizeof(*o));

    o->msg = *m;
    memset(m, 0, sizeof(*m));
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
}

static void wake(ag_session *s)
{
    char b = 1;
    if (write(s->pipe_fd[1], &b, 1) < 0 && errno != EAGAIN)
        return;
}

/* Session thread: queue a message for the control thread (takes *m). */
static void post(ag_session *s, struct pr_msg *m)
{
    pthread_mutex_lock(&s->mu);
    enqueue(s, m);
    pthread_mutex_unlock(&s->mu);
    wake(s);
}

/* Session thread, at its very end: queue the last message (DONE or ERROR)
 * and mark the session finished in one step, so the control thread that
 * sends it also sees the session finished and reaps it: a coordinator
 * that answers DONE with the next PLAN at once never finds us busy. */
static void post_last(ag_session *s, struct pr_msg *last)
{
    pthread_mutex_lock(&s->mu);
    if (last->type != PR_MSG_NONE)
        enqueue(s, last);
    s->state = PR_STATE_DONE;
    s->finished = true;
    pthread_mutex_unlock(&s->mu);
    wake(s);
}

static void set_state(ag_session *s, enum pr_agent_state st)
{
    pthread_mutex_lock(&s->mu);
    s->state = st;
    pthread_mutex_unlock(&s->mu);
}

/* Wait for START or a stop; true when started. */
static bool wait_go(ag_session *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->go && !s->stop)
        pthread_cond_wait(&s->cv, &s->mu);
    bool go = s->go && !s->stop;
    pthread_mutex_unlock(&s->mu);
    return go;
}

/* Sleep until monotonic deadline_ns or a stop request; true when stopped. */
static bool sleep_until(ag_session *s, uint64_t deadline_ns)
{
    struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT)
            break;
    }
    bool stopped = s->stop;
    pthread_mutex_unlock(&s->mu);
    return stopped;
}

static void make_error(struct pr_msg *m, const struct ag_run_error *e)
{
    pr_msg_init(m, PR_MSG_ERROR, NULL, 0);
    m->u.error.code = e->code;
    m->u.error.phase = e->phase;
    m->u.error.db_errno = e->db_errno;
    snprintf(m->u.error.sqlstate, sizeof(m->u.error.sqlstate), "%s", e->sqlstate);
    m->u.error.message = pr_xstrdup(e->message);
    m->u.error.stmt_kind = pr_xstrdup(e->stmt_kind);
}

static void post_stats(ag_session *s, uint64_t k, struct ag_run_interval *iv)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_STATS, NULL, 0);
    m.u.stats.k = k;
    m.u.stats.ctr = iv->ctr;
    m.u.stats.lat = iv->lat;
    m.u.stats.svc = iv->svc;
    iv->lat = iv->svc = NULL; /* ownership moves to the message */
    m.u.stats.cpu_pct = iv->cpu_pct;
    m.u.stats.lag_max_us = iv->lag_max_us;
    m.u.stats.lag_p99_us = iv->lag_p99_us;
    m.u.stats.slip_us = iv->slip_us;
    m.u.stats.srv = iv->srv;
    m.u.stats.n_srv = iv->n_srv;
    m.u.stats.rows = iv->rows;
    m.u.stats.kst = iv->kst;
    m.u.stats.n_kst = iv->n_kst;
    iv->kst = NULL; /* moves to the message too */
    iv->n_kst = 0;
    m.u.stats.trx = iv->trx;
    m.u.stats.n_trx = iv->n_trx;
    m.u.stats.trx_lost = iv->trx_lost; /* the coordinator warns and counts it */
    iv->trx = NULL;
    iv->n_trx = 0;
    m.u.stats.conns = iv->conns; /* moves too */
    m.u.stats.n_conns = iv->n_conns;
    iv->conns = NULL;
    iv->n_conns = 0;
    if (iv->trx_lost)
        fprintf(stderr,
                "stampede-agent: interval %" PRIu64 ": %" PRIu64 " transaction records "
                "dropped (more than %u in one interval): the -f/-t files miss them\n",
                k, iv->trx_lost, PR_MSG_MAX_TRX);
    iv->srv = NULL;
    iv->n_srv = 0;
    post(s, &m);
}

static void make_done(ag_session *s, struct pr_msg *m, uint64_t intervals)
{
    struct ag_run_error e = {0};

    pr_msg_init(m, PR_MSG_DONE, NULL, 0);
    m->u.done.lat = pr_hist_new();
    m->u.done.svc = ag_run_is_rate(s->run) ? pr_hist_new() : NULL;
    ag_run_totals(s->run, &m->u.done.ctr, &m->u.done.rows, m->u.done.lat, m->u.done.svc, &e);
    m->u.done.intervals = intervals;
    m->u.done.status = e.code;
    m->u.done.reason = pr_xstrdup(e.code ? e.message : "");
    m->u.done.has_start_skew = ag_run_start_skew_us(s->run, &m->u.done.start_skew_us);
    m->u.done.has_end = ag_run_end_us(s->run, &m->u.done.end_us);
    m->u.done.has_tally = ag_run_tally(s->run, &m->u.done.tally);
    ag_run_take_conns(s->run, &m->u.done.conns, &m->u.done.n_conns);
    ag_run_take_kind_totals(s->run, &m->u.done.kst, &m->u.done.n_kst);
    ag_run_take_notes(s->run, &m->u.done.notes, &m->u.done.n_notes);
}

static bool counters_zero(const struct pr_counters *c)
{
    static const struct pr_counters zero;
    return memcmp(c, &zero, sizeof(zero)) == 0;
}

/* Interval loop: STATS(k) at every boundary until the run ends. */
static uint64_t run_intervals(ag_session *s)
{
    uint64_t k = 0, ivl_ns = (uint64_t)s->interval_ms * 1000000u;
    struct ag_run_interval iv = {0};

    for (;;) {
        uint64_t boundary = s->t0_ns + (k + 1) * ivl_ns;
        bool ended = false;
        /* Wake at least every 50 ms to notice the run ending by itself. */
        while (!ended && ag_run_now_ns() < boundary) {
            uint64_t step = ag_run_now_ns() + 50000000u;
            if (sleep_until(s, step < boundary ? step : boundary))
                ended = true;
            if (ag_run_is_finished(s->run))
                ended = true;
        }
        if (ended) {
            pthread_mutex_lock(&s->mu);
            bool immediate = s->immediate;
            pthread_mutex_unlock(&s->mu);
            set_state(s, PR_STATE_STOPPING);
            ag_run_stop(s->run, immediate);
            ag_run_settle(s->run);
        }
        ag_run_collect(s->run, &iv);
        ag_run_checkpoint_conns(s->run, k, &iv);
        /* The tail after the stop goes out when it holds anything, so the
         * STATS add up to DONE; the lead's always does, for its server
         * sample taken once every connection has closed (pr_msg.h, READY). */
        if (!ended || !counters_zero(&iv.ctr) || iv.n_srv > 0)
            post_stats(s, k++, &iv);
        ag_run_interval_clear(&iv);
        if (ended)
            return k;
    }
}

/* READY; the lead adds its server baseline, sampled now that the pool is
 * open and prepared (pr_msg.h, READY). */
static void post_ready(ag_session *s)
{
    struct pr_msg ready;

    pr_msg_init(&ready, PR_MSG_READY, NULL, 0);
    ready.u.ready.plan_hash = s->plan_msg.u.plan.plan_hash;
    ready.u.ready.has_db_rtt = ag_run_db_rtt_us(s->run, &ready.u.ready.db_rtt_us);
    ready.u.ready.conns = ag_run_conns_open(s->run);
    ag_run_env(s->run, &ready.u.ready.env); /* before the baseline: not in the cross-check */
    ready.u.ready.has_env = true;
    ag_run_sample_srv(s->run, &ready.u.ready.srv, &ready.u.ready.n_srv);
    ready.u.ready.n_kinds = ag_run_kinds(s->run, &ready.u.ready.kinds);
    set_state(s, PR_STATE_READY);
    post(s, &ready);
}

static void *session_main(void *arg)
{
    ag_session *s = arg;
    struct ag_run_error e = {0};
    struct pr_msg last = {0}; /* DONE or ERROR, posted after the run is gone */
    uint64_t intervals = 0;

    set_state(s, PR_STATE_CONNECTING);
    ag_run *r = ag_run_new(&s->plan_msg.u.plan, s->workers, &e);
    if (r == NULL) {
        make_error(&last, &e);
        goto out;
    }
    pthread_mutex_lock(&s->mu);
    s->run = r;
    if (s->stop) /* a stop that came before the run existed */
        ag_run_cancel(r, s->immediate);
    pthread_mutex_unlock(&s->mu);
    if (ag_run_setup(s->run, &e) < 0) {
        make_error(&last, &e);
        goto out;
    }
    post_ready(s);
    if (!wait_go(s))
        goto done;
    set_state(s, PR_STATE_RUNNING);
    ag_run_start(s->run, s->t0_ns);
    intervals = run_intervals(s);
done:
    ag_run_stop(s->run, false);
    make_done(s, &last, intervals);
out:
    pthread_mutex_lock(&s->mu);
    r = s->run;
    s->run = NULL;
    pthread_mutex_unlock(&s->mu);
    ag_run_destroy(&r);
    post_last(s, &last);
    return NULL;
}

ag_session *ag_session_new(const struct pr_msg_plan *plan, int workers)
{
    ag_session *s = pr_xcalloc(1, sizeof(*s));

    if (copy_plan(&s->plan_msg, plan) != 0 || pipe2(s->pipe_fd, O_CLOEXEC | O_NONBLOCK) != 0) {
        pr_msg_clear(&s->plan_msg);
        free(s);
        return NULL;
    }
    s->workers = workers;
    s->state = PR_STATE_CONNECTING;
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    /* The session thread and the loops it starts run with every signal
     * blocked, so SIGINT/SIGTERM reach the control thread's handler only. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, session_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(s->pipe_fd[0]);
        close(s->pipe_fd[1]);
        pr_msg_clear(&s->plan_msg);
        free(s);
        return NULL;
    }
    return s;
}

void ag_session_go(ag_session *s, uint64_t t0_local_ns, uint32_t interval_ms)
{
    pthread_mutex_lock(&s->mu);
    if (s->state == PR_STATE_READY && !s->go) {
        s->go = true;
        s->t0_ns = t0_local_ns;
        s->interval_ms = interval_ms ? interval_ms : 1000;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

void ag_session_stop(ag_session *s, bool immediate)
{
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    s->immediate = s->immediate || immediate;
    pthread_cond_broadcast(&s->cv);
    /* A setup or command in progress notices through the run's own flag. */
    if (s->run)
        ag_run_cancel(s->run, immediate);
    pthread_mutex_unlock(&s->mu);
}

int ag_session_fd(const ag_session *s)
{
    return s->pipe_fd[0];
}

bool ag_session_pop(ag_session *s, struct pr_msg *out)
{
    char buf[64];
    while (read(s->pipe_fd[0], buf, sizeof(buf)) > 0)
        ;
    pthread_mutex_lock(&s->mu);
    struct outmsg *o = s->head;
    if (o) {
        s->head = o->next;
        if (s->head == NULL)
            s->tail = NULL;
    }
    pthread_mutex_unlock(&s->mu);
    if (o == NULL)
        return false;
    *out = o->msg;
    free(o);
    return true;
}

enum pr_agent_state ag_session_state(const ag_session *s)
{
    ag_session *m = (ag_session *)s;
    pthread_mutex_lock(&m->mu);
    enum pr_agent_state st = m->state;
    pthread_mutex_unlock(&m->mu);
    return st;
}

bool ag_session_is_finished(const ag_session *s)
{
    ag_session *m = (ag_session *)s;
    pthread_mutex_lock(&m->mu);
    bool done = m->finished && m->head == NULL;
    pthread_mutex_unlock(&m->mu);
    return done;
}

void ag_session_destroy(ag_session **sp)
{
    ag_session *s = sp ? *sp : NULL;
    struct pr_msg m;

    if (s == NULL)
        return;
    ag_session_stop(s, true);
    pthread_join(s->thread, NULL);
    while (ag_session_pop(s, &m))
        pr_msg_clear(&m);
    close(s->pipe_fd[0]);
    close(s->pipe_fd[1]);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    pr_msg_clear(&s->plan_msg);
    free(s);
    *sp = NULL;
}
