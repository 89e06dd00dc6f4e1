/* ag_engine: workers, targets and statistics merge (see ag_engine.h). */
#include "ag_engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <errmsg.h>
#include <mysql.h>
#include <netdb.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#include <uv.h>

#include "ag_cpus.h"
#include "ag_engine_test.h"
#include "pr_opts.h"
#include "pr_split.h"
#include "pr_tls.h"

#define DEFAULT_IGNORE "1213,1020,1205"

/* Seeds come from pr_split_seed(--rand-seed, domain, global index): its
 * "agent" argument is used as a domain, so a connection's cursor stream
 * (README: from --rand-seed and the global connection index) and a
 * worker's arrival schedule (from the global index of its first
 * connection, so no two workers of a run share one, whatever the agent)
 * never share a seed, and neither depends on how connections are split
 * over agents or workers. */
#define SEED_CONN     0u
#define SEED_ARRIVALS 1u

struct ag_engine {
    struct ag_worker_shared sh;     /* shared with the workers */
    struct ag_conn_opts opts;       /* connection options (points into owned copies) */
    char *user, *password, *db;     /* owned copies */
    struct pr_ignore_errors ignore; /* --mysql-ignore-errors, parsed */
    struct pr_tls_opts tls;         /* owned copy of the TLS options */
    char **hosts;                   /* owned copies of the host names */
    size_t nhosts;
    uint16_t *ports; /* owned */
    size_t nports;
    char **sockets; /* owned */
    size_t nsockets;
    struct ag_conn_target *targets;    /* one per (host, port) pair or socket */
    char (*numeric)[INET6_ADDRSTRLEN]; /* resolved address per host */
    size_t ntargets;
    uint32_t conns;          /* this agent's connections */
    uint64_t conn_first;     /* global index of the first */
    uint64_t conns_total;    /* global count */
    uint64_t seed;           /* run seed */
    double rate;             /* agent rate */
    size_t nworkers;         /* loops */
    ag_worker **workers;     /* worker handles, created at setup */
    struct ag_wstats *buf;   /* two stats buffers per worker: one lent, one spare */
    struct ag_wstats **lent; /* buffer each worker fills now */
    struct ag_wstats *runs;  /* per worker: its whole-run stats, copied at totals */
    struct ag_wstats total;  /* whole-run sums of the workers' own run stats */
    struct ag_wstats merge;  /* scratch for one collect */
    bool lose_next;          /* test hook: the next collect loses a worker's interval */
    pthread_mutex_t mu;      /* guards the condition below */
    pthread_cond_t cv;       /* signalled by workers on any reply */
    bool set_up;             /* setup succeeded */
    bool started;            /* start posted */
    uint64_t t0_ns;          /* start instant */
    uint64_t last_cpu_ns;    /* rusage at the previous collect */
    uint64_t last_wall_ns;   /* uv_hrtime at the previous collect */
    uint64_t run_cpu_ns;     /* rusage at start */
};

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_init(void)
{
    /* mysql_init() would do this lazily, which is not thread-safe. */
    mysql_library_init(0, NULL, NULL);
}

static void engine_notify(void *arg)
{
    ag_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

static char **copy_strv(const char *const *v, size_t n)
{
    char **out = pr_xcalloc(n ? n : 1, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = pr_xstrdup(v[i]);
    return out;
}

static void copy_targets(ag_engine *e, const struct ag_engine_config *cfg)
{
    static const char *const localhost[] = {"localhost"};
    static const uint16_t port3306[] = {3306};

    e->nhosts = cfg->nhosts ? cfg->nhosts : 1;
    e->hosts = copy_strv(cfg->nhosts ? cfg->hosts : localhost, e->nhosts);
    e->nports = cfg->nports ? cfg->nports : 1;
    e->ports = pr_xcalloc(e->nports, sizeof *e->ports);
    memcpy(e->ports, cfg->nports ? cfg->ports : port3306, e->nports * sizeof *e->ports);
    e->nsockets = cfg->nsockets;
    e->sockets = copy_strv(cfg->sockets, cfg->nsockets);
    e->ntargets = e->nsockets ? e->nsockets : e->nhosts * e->nports;
    e->targets = pr_xcalloc(e->ntargets, sizeof *e->targets);
    e->numeric = pr_xcalloc(e->nhosts, sizeof *e->numeric);
}

static size_t pick_workers(const struct ag_engine_config *cfg)
{
    size_t w = cfg->workers;
    if (w == 0)
        w = ag_cpus_usable(); /* affinity mask and cgroup quota, not the online count */
    size_t need = (cfg->conns + AG_ENGINE_MAX_CONNS_PER_LOOP - 1) / AG_ENGINE_MAX_CONNS_PER_LOOP;
    if (w < need)
        w = need;
    if (w > cfg->conns)
        w = cfg->conns;
    return w ? w : 1;
}

ag_engine *ag_engine_new(const struct ag_engine_config *cfg, struct pr_error *err)
{
    if (cfg->conns == 0) {
        pr_error_set(err, PR_EINVAL, "no connections");
        return NULL;
    }
    pthread_once(&lib_once, lib_init);
    ag_engine *e = pr_xcalloc(1, sizeof *e);
    if (pr_ignore_errors_parse(cfg->ignore_errors ? cfg->ignore_errors : DEFAULT_IGNORE, &e->ignore,
                               err) < 0) {
        free(e);
        return NULL;
    }
    e->user = pr_xstrdup(cfg->user ? cfg->user : "sbtest");
    e->password = pr_xstrdup(cfg->password ? cfg->password : "");
    e->db = pr_xstrdup(cfg->db ? cfg->db : "sbtest");
    e->opts.user = e->user;
    e->opts.password = e->password;
    e->opts.db = e->db;
    e->opts.connect_timeout_s = cfg->connect_timeout_s ? cfg->connect_timeout_s : 10;
    e->opts.read_timeout_s = cfg->read_timeout_s ? cfg->read_timeout_s : 600;
    e->opts.write_timeout_s = cfg->write_timeout_s ? cfg->write_timeout_s : 60;
    e->opts.ignore = &e->ignore;
    e->opts.dry_run = cfg->dry_run;
    if (cfg->tls) {
        pr_tls_opts_copy(&e->tls, cfg->tls);
        e->opts.tls = &e->tls;
    }
    copy_targets(e, cfg);
    e->conns = cfg->conns;
    e->conn_first = cfg->conn_first;
    e->conns_total = cfg->conns_total ? cfg->conns_total : cfg->conn_first + cfg->conns;
    e->seed = cfg->seed;
    e->rate = cfg->rate > 0 ? cfg->rate : 0;
    e->sh.wl = cfg->wl;
    if (cfg->wl && cfg->wl->fam->wl_kinds) {
        const char *const *names;
        e->sh.nkinds = cfg->wl->fam->wl_kinds(cfg->wl, &names);
    }
    if (cfg->wl && cfg->wl->fam->wl_record_kinds)
        e->sh.record_kinds = cfg->wl->fam->wl_record_kinds(cfg->wl);
    for (size_t k = 0; k < PR_MSG_MAX_KINDS; k++) /* late: only below the kind's limit */
        e->sh.limit_ns[k] = k < e->sh.nkinds && cfg->wl->fam->wl_kind_limit_ns
                                ? cfg->wl->fam->wl_kind_limit_ns(cfg->wl, (uint16_t)k)
                                : UINT64_MAX;
    e->sh.conn_opts = &e->opts;
    e->sh.time_ns = cfg->time_ms * 1000000ULL;
    e->sh.events = cfg->events;
    e->sh.rate_uniform = cfg->rate_uniform;
    e->sh.stop_grace_ms = cfg->stop_grace_ms ? cfg->stop_grace_ms : 5000;
    e->sh.notify = engine_notify;
    e->sh.notify_arg = e;
    atomic_init(&e->sh.tickets, 0);
    atomic_init(&e->sh.abort, false);
    atomic_init(&e->sh.next_piece, 0);
    atomic_init(&e->sh.pieces_done, 0);
    e->nworkers = pick_workers(cfg);
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t
        ca; /* deadlines on the monotonic clock: a wall-clock step cannot move them */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&e->sh.notes_mu, NULL);
    ag_wstats_init(&e->total, e->sh.nkinds);
    ag_wstats_init(&e->merge, e->sh.nkinds);
    return e;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void ag_engine_destroy(ag_engine **ep)
{
    if (!ep || !*ep)
        return;
    ag_engine *e = *ep;
    *ep = NULL;
    for (size_t i = 0; e->workers && i < e->nworkers; i++)
        ag_worker_destroy(&e->workers[i]);
    if (e->buf)
        for (size_t i = 0; i < 2 * e->nworkers; i++)
            ag_wstats_close(&e->buf[i]);
    if (e->runs)
        for (size_t i = 0; i < e->nworkers; i++)
            ag_wstats_close(&e->runs[i]);
    free(e->runs);
    free(e->buf);
    free(e->lent);
    free(e->workers);
    ag_wstats_close(&e->total);
    ag_wstats_close(&e->merge);
    free_strv(e->hosts, e->nhosts);
    free_strv(e->sockets, e->nsockets);
    free(e->ports);
    free(e->targets);
    free(e->numeric);
    pr_tls_opts_clear(&e->tls);
    free(e->user);
    explicit_bzero(e->password, strlen(e->password));
    free(e->password);
    free(e->db);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    for (size_t i = 0; i < e->sh.n_notes; i++)
        free(e->sh.notes[i]);
    free(e->sh.notes);
    pthread_mutex_destroy(&e->sh.notes_mu);
    free(e);
}

size_t ag_engine_take_notes(ag_engine *e, char ***notes)
{
    pthread_mutex_lock(&e->sh.notes_mu);
    size_t n = e->sh.n_notes;
    *notes = e->sh.notes;
    e->sh.notes = NULL;
    e->sh.n_notes = 0;
    pthread_mutex_unlock(&e->sh.notes_mu);
    return n;
}

/* Numeric address for each host (connect must not resolve: trap 2). */
static int resolve(ag_engine *e, struct ag_engine_error *err)
{
    for (size_t i = 0; i < e->nhosts && !e->nsockets; i++) {
        if (strcmp(e->hosts[i], "localhost") == 0) {
            snprintf(e->numeric[i], sizeof e->numeric[i], "localhost");
            continue;
        }
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
        int rc = getaddrinfo(e->hosts[i], NULL, &hints, &res);
        if (rc != 0 || !res) {
            err->code = PR_EINVAL;
            err->err_no = CR_UNKNOWN_HOST;
            snprintf(err->sqlstate, sizeof err->sqlstate, "HY000");
            snprintf(err->msg, sizeof err->msg, "Unknown server host '%s' (%s)", e->hosts[i],
                     gai_strerror(rc));
            snprintf(err->what, sizeof err->what, "resolve");
            snprintf(err->target, sizeof err->target, "%s", e->hosts[i]);
            return err->code;
        }
        const void *a = res->ai_family == AF_INET6
                            ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                            : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
        inet_ntop(res->ai_family, a, e->numeric[i], sizeof e->numeric[i]);
        freeaddrinfo(res);
    }
    for (size_t t = 0; t < e->ntargets; t++) {
        if (e->nsockets) {
            e->targets[t].socket = e->sockets[t];
            continue;
        }
        e->targets[t].host = e->numeric[t / e->nports];
        e->targets[t].name = e->hosts[t / e->nports];
        e->targets[t].port = e->ports[t % e->nports];
    }
    return 0;
}

static void target_name(const ag_engine *e, uint64_t g, char *buf, size_t len)
{
    const struct ag_conn_target *t = &e->targets[g % e->ntargets];
    if (t->socket)
        snprintf(buf, len, "%s", t->socket);
    else
        snprintf(buf, len, "%s:%u", t->host, t->port);
}

static void start_workers(ag_engine *e)
{
    size_t n = e->nworkers;
    struct ag_worker_conn *wc = pr_xcalloc(e->conns, sizeof *wc);

    e->workers = pr_xcalloc(n, sizeof *e->workers);
    e->buf = pr_xcalloc(2 * n, sizeof *e->buf);
    e->lent = pr_xcalloc(n, sizeof *e->lent);
    e->runs = pr_xcalloc(n, sizeof *e->runs);
    for (size_t i = 0; i < 2 * n; i++)
        ag_wstats_init(&e->buf[i], e->sh.nkinds);
    for (size_t i = 0; i < n; i++)
        ag_wstats_init(&e->runs[i], e->sh.nkinds);
    for (uint32_t c = 0; c < e->conns; c++) {
        uint64_t g = e->conn_first + c;
        wc[c].target = &e->targets[g % e->ntargets];
        wc[c].seed = pr_split_seed(e->seed, SEED_CONN, (uint32_t)g);
        wc[c].index = (uint32_t)g;
    }
    size_t first = 0;
    for (size_t k = 0; k < n; k++) {
        size_t cnt = e->conns / n + (k < e->conns % n ? 1 : 0);
        double rate = e->rate * (double)cnt / (double)e->conns;
        e->lent[k] = &e->buf[2 * k];
        uint64_t arrivals =
            pr_split_seed(e->seed, SEED_ARRIVALS, (uint32_t)(e->conn_first + first));
        e->workers[k] = ag_worker_new(&e->sh, wc + first, cnt, (uint32_t)e->conns_total, rate,
                                      arrivals, e->lent[k]);
        if (!e->workers[k])
            abort();
        first += cnt;
    }
    free(wc);
}

/* Wait (engine mutex held) until pred(e) or the deadline. */
static bool wait_until(ag_engine *e, bool (*pred)(ag_engine *), int timeout_ms)
{
    struct timespec dl; /* e->cv waits on CLOCK_MONOTONIC */
    clock_gettime(CLOCK_MONOTONIC, &dl);
    if (timeout_ms >= 0) {
        dl.tv_sec += timeout_ms / 1000;
        dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
    }
    while (!pred(e)) {
        if (timeout_ms < 0)
            pthread_cond_wait(&e->cv, &e->mu);
        else if (pthread_cond_timedwait(&e->cv, &e->mu, &dl) == ETIMEDOUT)
            return pred(e);
    }
    return true;
}

static bool any_failed(ag_engine *e)
{
    for (size_t i = 0; i < e->nworkers; i++)
        if (ag_worker_phase(e->workers[i], NULL, NULL) == AG_WORKER_FAILED)
            return true;
    return false;
}

static bool setup_over(ag_engine *e)
{
    if (any_failed(e))
        return true;
    for (size_t i = 0; i < e->nworkers; i++)
        if (ag_worker_phase(e->workers[i], NULL, NULL) != AG_WORKER_READY)
            return false;
    return true;
}

static bool all_finished(ag_engine *e)
{
    for (size_t i = 0; i < e->nworkers; i++) {
        enum ag_worker_phase p = ag_worker_phase(e->workers[i], NULL, NULL);
        if (p != AG_WORKER_FINISHED && p != AG_WORKER_FAILED)
            return false;
    }
    return true;
}

bool ag_engine_error(ag_engine *e, struct ag_engine_error *err)
{
    for (size_t i = 0; e->workers && i < e->nworkers; i++) {
        struct ag_conn_error ce;
        uint32_t idx = 0;
        if (ag_worker_phase(e->workers[i], &ce, &idx) != AG_WORKER_FAILED)
            continue;
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = PR_EINVAL;
            err->err_no = ce.err_no;
            memcpy(err->sqlstate, ce.sqlstate, sizeof err->sqlstate);
            memcpy(err->msg, ce.msg, sizeof err->msg);
            memcpy(err->what, ce.what, sizeof err->what);
            err->conn_index = idx;
            target_name(e, idx, err->target, sizeof err->target);
        }
        return true;
    }
    return false;
}

int ag_engine_setup(ag_engine *e, struct ag_engine_error *err)
{
    struct ag_engine_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    if (e->workers)
        return -EINVAL;
    int rc = resolve(e, err);
    if (rc < 0)
        return rc;
    start_workers(e);
    for (size_t i = 0; i < e->nworkers; i++)
        ag_worker_post_setup(e->workers[i]);
    pthread_mutex_lock(&e->mu);
    wait_until(e, setup_over, -1);
    pthread_mutex_unlock(&e->mu);
    if (ag_engine_error(e, err))
        return err->code;
    e->set_up = true;
    return 0;
}

static uint64_t cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

int ag_engine_start(ag_engine *e, uint64_t t0_ns)
{
    if (!e->set_up || e->started)
        return -EINVAL;
    e->started = true;
    e->t0_ns = t0_ns;
    e->last_wall_ns = t0_ns;
    e->last_cpu_ns = cpu_ns();
    e->run_cpu_ns = e->last_cpu_ns;
    for (size_t i = 0; i < e->nworkers; i++)
        ag_worker_post_start(e->workers[i], t0_ns);
    return 0;
}

static bool swaps_done(ag_engine *e)
{
    for (size_t i = 0; i < e->nworkers; i++)
        if (e->lent[i] == NULL)
            return false;
    return true;
}

/* Swap every worker's buffer; leave the merge of the filled ones in e->merge
 * and, when runs, each worker's whole-run stats in e->runs. */
static void swap_all(ag_engine *e, bool runs)
{
    bool lose = e->lose_next;
    struct ag_wstats **got = pr_xcalloc(e->nworkers, sizeof *got);

    ag_wstats_reset(&e->merge);
    for (size_t i = 0; i < e->nworkers; i++) {
        /* the spare buffer is the one of the pair not lent out */
        struct ag_wstats *spare =
            e->lent[i] == &e->buf[2 * i] ? &e->buf[2 * i + 1] : &e->buf[2 * i];
        ag_wstats_reset(spare);
        ag_worker_post_swap(e->workers[i], spare, runs ? &e->runs[i] : NULL);
        got[i] = spare;
        e->lent[i] = NULL;
    }
    pthread_mutex_lock(&e->mu);
    for (;;) {
        for (size_t i = 0; i < e->nworkers; i++) {
            struct ag_wstats *old;
            if (!e->lent[i] && ag_worker_take_swap(e->workers[i], &old)) {
                if (lose && i == 0)
                    e->lose_next = false; /* test hook: as if this interval were lost */
                else
                    ag_wstats_add(&e->merge, old);
                e->lent[i] = got[i];
            }
        }
        if (swaps_done(e))
            break;
        pthread_cond_wait(&e->cv, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    free(got);
}

static void fill_stats(const ag_engine *e, const struct ag_wstats *s, struct ag_engine_stats *out)
{
    out->ctr = s->ctr;
    if (out->lat)
        pr_hist_copy(out->lat, s->lat);
    if (out->svc)
        pr_hist_copy(out->svc, s->svc);
    out->lag_max_us = pr_hist_max(s->lag);
    out->lag_p99_us = pr_hist_value_at_percentile(s->lag, 99.0);
    out->slip_max_us = s->slip_max_us;
    out->rows = s->rows;
    for (size_t i = 0; out->kst && i < out->n_kst; i++) {
        const struct pr_msg_kstat *k = i < s->nk ? &s->kst[i] : NULL;
        out->kst[i].count = k ? k->count : 0;
        out->kst[i].errors = k ? k->errors : 0;
        out->kst[i].late = k ? k->late : 0;
        if (out->kst[i].lat && k)
            pr_hist_copy(out->kst[i].lat, k->lat);
        else if (out->kst[i].lat)
            pr_hist_reset(out->kst[i].lat);
    }
}

int ag_engine_collect(ag_engine *e, struct ag_engine_stats *out)
{
    if (!e->workers)
        return -EINVAL;
    swap_all(e, false);
    fill_stats(e, &e->merge, out);
    out->trx = e->merge.trx; /* the records move to the caller */
    out->n_trx = e->merge.n_trx;
    out->trx_lost = e->merge.trx_lost;
    e->merge.trx = NULL;
    e->merge.n_trx = e->merge.cap_trx = 0;
    uint64_t now = uv_hrtime(), cpu = cpu_ns();
    uint64_t wall = now > e->last_wall_ns ? now - e->last_wall_ns : 0;
    out->span_ns = wall;
    out->cpu_pct = wall ? 100.0 * (double)(cpu - e->last_cpu_ns) / (double)wall : 0;
    e->last_wall_ns = now;
    e->last_cpu_ns = cpu;
    return 0;
}

int ag_engine_totals(ag_engine *e, struct ag_engine_stats *out)
{
    if (!e->workers)
        return -EINVAL;
    /* Not the sum of the intervals: each worker's own run counts (and
     * whatever its last interval holds stays uncollected). */
    swap_all(e, true);
    ag_wstats_reset(&e->total);
    for (size_t i = 0; i < e->nworkers; i++)
        ag_wstats_add(&e->total, &e->runs[i]);
    fill_stats(e, &e->total, out);
    out->end_ns = e->total.last_end_ns > e->t0_ns ? e->total.last_end_ns - e->t0_ns : 0;
    out->tally = 0;
    for (size_t i = 0; i < e->nworkers; i++)
        out->tally += ag_worker_tally(e->workers[i]);
    uint64_t now = uv_hrtime();
    out->span_ns = e->started && now > e->t0_ns ? now - e->t0_ns : 0;
    out->cpu_pct =
        out->span_ns ? 100.0 * (double)(cpu_ns() - e->run_cpu_ns) / (double)out->span_ns : 0;
    return 0;
}

size_t ag_engine_conn_figures(ag_engine *e, struct pr_msg_conn **out)
{
    size_t n = 0, cap = PR_MSG_MAX_CONNS;
    *out = NULL;
    if (!e->workers)
        return 0;
    struct pr_msg_conn *c = pr_xcalloc(cap, sizeof *c);
    for (size_t i = 0; i < e->nworkers; i++) {
        size_t got = ag_worker_conn_figures(e->workers[i], c + n, cap - n);
        n += got;
        if (n == cap && i + 1 < e->nworkers) { /* more than a DONE carries */
            free(c);
            return 0;
        }
    }
    if (n == 0) {
        free(c);
        return 0;
    }
    *out = pr_xrealloc(c, n * sizeof *c);
    return n;
}

int ag_engine_wait(ag_engine *e, int timeout_ms)
{
    if (!e->workers)
        return 1;
    pthread_mutex_lock(&e->mu);
    bool done = wait_until(e, all_finished, timeout_ms);
    pthread_mutex_unlock(&e->mu);
    return done ? 1 : 0;
}

void ag_engine_stop(ag_engine *e, bool immediate)
{
    for (size_t i = 0; e->workers && i < e->nworkers; i++)
        ag_worker_post_stop(e->workers[i], immediate);
}

void ag__engine_test_lose_interval(ag_engine *e)
{
    e->lose_next = true;
}

void ag__engine_test_lose_in_worker(ag_engine *e)
{
    if (e->workers && e->nworkers > 0)
        ag__worker_test_lose_cur(e->workers[0]);
}

bool ag_engine_start_skew_ns(ag_engine *e, int64_t *skew_ns)
{
    uint64_t latest = 0;
    if (!e->started || e->workers == NULL)
        return false;
    for (size_t i = 0; i < e->nworkers; i++) {
        uint64_t t = ag_worker_started_ns(e->workers[i]);
        if (t == 0)
            return false; /* not every worker has started (yet) */
        if (t > latest)
            latest = t;
    }
    *skew_ns = (int64_t)latest - (int64_t)e->t0_ns;
    return true;
}

uint32_t ag_engine_conns_open(ag_engine *e)
{
    uint32_t n = 0;
    for (size_t i = 0; e->workers && i < e->nworkers; i++)
        n += ag_worker_conns_open(e->workers[i]);
    return n;
}

int ag_engine_start_pieces(ag_engine *e, struct ag_piece *pieces, size_t n)
{
    if (!e->set_up || e->started)
        return -EINVAL;
    e->started = true;
    e->t0_ns = uv_hrtime();
    e->last_wall_ns = e->t0_ns;
    e->last_cpu_ns = cpu_ns();
    e->run_cpu_ns = e->last_cpu_ns;
    e->sh.pieces = pieces;
    e->sh.npieces = n;
    atomic_store(&e->sh.next_piece, 0);
    atomic_store(&e->sh.pieces_done, 0);
    for (size_t i = 0; i < e->nworkers; i++)
        ag_worker_post_pieces(e->workers[i]);
    return 0;
}

bool ag_engine_pieces_complete(ag_engine *e)
{
    return e->started && atomic_load(&e->sh.pieces_done) == e->sh.npieces;
}

int ag_engine_run_pieces(ag_engine *e, struct ag_piece *pieces, size_t n,
                         struct ag_engine_error *err)
{
    struct ag_engine_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    int rc = ag_engine_start_pieces(e, pieces, n);
    if (rc < 0)
        return rc;
    ag_engine_wait(e, -1);
    if (ag_engine_error(e, err))
        return err->code;
    return 0;
}
