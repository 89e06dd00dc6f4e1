/* ag_run: one PLAN's run or command on this agent: its workload, engine, probe
 * connection, intervals and totals (contract: ag_run.h). */
#include "ag_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mysql.h>
#include <pthread.h>

#include "ag_engine.h"
#include "ag_env.h"
#include "ag_registry.h"
#include "pr_split.h"
#include "pr_tls.h"

/* Server counters the lead agent samples before READY and at every
 * boundary (docs/design.md §7.5; the cross-check formula is in pr_msg.h, READY). */
static const char status_sql[] =
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions','Com_select','Com_insert',"
    "'Com_update','Com_delete','Com_begin','Com_commit','Com_rollback','Com_stmt_execute',"
    "'Com_stmt_prepare','Threads_running','Threads_connected','Innodb_rows_read',"
    "'Innodb_rows_inserted','Innodb_rows_updated','Innodb_rows_deleted'" AG_ENV_STATUS_NAMES ")";

#define PROBE_PINGS    5
#define SETTLE_MS      6000 /* lead: longest wait for the other agents' sessions to end */
#define SETTLE_POLL_MS 20

enum run_phase { RUN_NEW, RUN_SETUP, RUN_LIVE, RUN_OVER };

struct ag_run {
    const struct pr_msg_plan *plan; /* borrowed from the session */
    struct ag_wl *wl;               /* parsed workload and options (its family's) */
    ag_engine *engine;              /* connections and loops */
    MYSQL *probe;                   /* blocking connection: RTT probe, status samples */
    struct pr_tls_opts tls;         /* --mysql-ssl*, --mysql-compression (owned) */
    uint64_t db_rtt_us;             /* lowest of PROBE_PINGS pings, 0: none answered */
    uint64_t cmd_t0_ns;             /* command mode: the t0 it waited for */
    uint64_t end_ns;                /* a run: its last event's end after t0 (ag_run_totals) */
    uint64_t tally;                 /* a run: transactions counted apart (ag_run_totals) */
    struct pr_msg_conn *conns;      /* a run: per connection figures (ag_run_totals), owned */
    size_t n_conns;
    uint64_t cmd_started_ns;    /* command mode: when its streams started, 0: never */
    pthread_mutex_t mu;         /* guards phase, cancelled */
    enum run_phase phase;       /* RUN_LIVE: the engine may be stopped from any thread */
    bool cancelled, immediate;  /* a stop was requested */
    bool finished;              /* the command or run has ended */
    struct ag_run_error end;    /* how the run ended */
    struct ag_piece *pieces;    /* command mode streams (the family's loaders) */
    void (**destroy)(void *it); /* and how to free each */
    size_t npieces;
    struct pr_msg_kstat *tot_kst; /* per-kind totals of ag_run_totals, until taken */
    uint32_t n_tot_kst;
    uint32_t *cp_at; /* a run: --report-checkpoints, s ascending (STATS.conns) */
    uint32_t n_cp_at;
};

static void set_error(struct ag_run_error *e, int code, enum pr_phase phase, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_error(struct ag_run_error *e, int code, enum pr_phase phase, const char *fmt, ...)
{
    va_list ap;
    memset(e, 0, sizeof(*e));
    e->code = code;
    e->phase = phase;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
}

/* What to do about a setup error, by server/client errno. */
static const char *advice(unsigned err_no)
{
    switch (err_no) {
    case 1045:
        return "check --mysql-user and the password (MYSQL_PWD or --mysql-password), and "
               "--mysql-ssl for a user created REQUIRE SSL";
    case 1044:
    case 1049:
        return "create the database or name another with --mysql-db";
    case 1040:
        return "raise the server's max_connections or lower --threads";
    case 1146:
        return "run the workload's prepare command first";
    case 1461:
        return "raise the server's max_prepared_stmt_count or use --db-ps-mode=disable";
    case 2002:
    case 2003:
    case 2005:
        return "check --mysql-host/--mysql-port/--mysql-socket and that the server is up";
    case 2013:
        return "the server accepted but did not answer in time: check it is a MySQL server";
    default:
        return "see the server's message";
    }
}

/* The TLS options' hint for a connect error, else advice(). */
static const char *hint(const ag_run *r, unsigned err_no, const char *msg)
{
    const char *h = pr_tls_hint(&r->tls, err_no, msg);
    if (h == NULL && r->wl && r->wl->fam->wl_error_hint)
        h = r->wl->fam->wl_error_hint(r->wl, err_no); /* the family's own words */
    return h ? h : advice(err_no);
}

static void from_engine(const ag_run *r, struct ag_run_error *e, const struct ag_engine_error *ee)
{
    bool connecting = strncmp(ee->what, "connect", 7) == 0;
    enum pr_phase ph = connecting ? PR_PHASE_CONNECT : PR_PHASE_PREPARE;
    if (ee->err_no == 0) /* the family refused a result (check): its message says it all */
        set_error(e, ee->code ? ee->code : PR_EINVAL, ph, "%s (connection %llu): %s", ee->target,
                  (unsigned long long)ee->conn_index, ee->msg);
    else
        set_error(e, ee->code ? ee->code : PR_EINVAL, ph,
                  "%s %s (connection %llu): error %u: %s; %s", ee->what, ee->target,
                  (unsigned long long)ee->conn_index, ee->err_no, ee->msg,
                  hint(r, ee->err_no, ee->msg));
    e->db_errno = ee->err_no;
    snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", ee->sqlstate);
    snprintf(e->stmt_kind, sizeof(e->stmt_kind), "%s", ee->what);
}

static struct ag_wl *parse_workload(const struct pr_msg_plan *p, struct ag_run_error *e)
{
    struct ag_kv *kv = pr_xcalloc(p->n_opts + 1, sizeof(*kv));
    struct pr_error err = {0};

    for (uint32_t i = 0; i < p->n_opts; i++)
        kv[i] = (struct ag_kv){p->opts[i].name, p->opts[i].value};
    struct ag_wl *wl = ag_registry_wl_new(p->workload, kv, p->n_opts, &err);
    free(kv);
    if (wl)
        wl->fam->wl_set_run_seed(wl, p->seed);
    if (wl && wl->fam->wl_set_plan && wl->fam->wl_set_plan(wl, p, &err) < 0)
        wl->fam->wl_destroy(&wl);
    if (wl == NULL)
        set_error(e, err.code, PR_PHASE_PLAN, "%s", err.msg);
    /* A run is confined to the plan's share (--partition); prepare's tables
     * are pieces to load instead (build_pieces). */
    if (wl && p->cmd == PR_CMD_RUN &&
        wl->fam->wl_set_share(wl, p->part, p->tables, p->n_tables, &err) < 0) {
        set_error(e, err.code, PR_PHASE_PLAN, "%s", err.msg);
        wl->fam->wl_destroy(&wl);
    }
    return wl;
}

/* With --forced-shutdown the coordinator decides when in-flight events are
 * cut off (ABORT "now" at --time + the delay): the agent's own bound on them
 * waits a little longer, for a coordinator that cannot be reached. Without
 * it, the engine's default bound. */
static uint32_t stop_grace_ms(const pr_opts *o)
{
    uint64_t fs_ms = 0;
    if (!pr_opts_forced_shutdown_ms(o, &fs_ms))
        return 0;
    fs_ms += 2000;
    return fs_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)fs_ms;
}

/* Connections the command opens on this agent. */
static uint32_t engine_conns(const ag_run *r)
{
    const struct pr_msg_plan *p = r->plan;
    uint32_t n = p->conns ? p->conns : 1;
    if (p->cmd != PR_CMD_RUN && r->wl->fam->cmd_conns != NULL) {
        uint32_t c = r->wl->fam->cmd_conns(r->wl, p);
        n = c == 0 ? 1 : c < n ? c : n;
    }
    return n;
}

static ag_engine *make_engine(ag_run *r, int workers, struct ag_run_error *e)
{
    const struct pr_msg_plan *p = r->plan;
    const pr_opts *o = r->wl->fam->wl_opts(r->wl);
    struct pr_error err = {0};
    struct ag_engine_config c = {
        .wl = p->cmd == PR_CMD_RUN ? r->wl : NULL,
        .hosts = (const char *const *)p->hosts,
        .nhosts = p->n_hosts,
        .ports = p->ports,
        .nports = p->n_ports,
        .sockets = (const char *const *)p->sockets,
        .nsockets = p->n_sockets,
        .user = p->user,
        .password = p->password,
        .db = p->database,
        .ignore_errors = pr_opts_str(o, "mysql-ignore-errors"),
        .conns = engine_conns(r),
        .conn_first = p->conn_first,
        .conns_total = p->conns_total,
        .workers = (uint32_t)workers,
        .time_ms = p->time_s * 1000u,
        .events = p->events,
        .rate = (double)p->rate,
        .rate_uniform = p->rate_mode == PR_RATE_UNIFORM,
        .seed = p->seed,
        .dry_run = pr_opts_bool(o, "mysql-dry-run"),
        .stop_grace_ms = stop_grace_ms(o),
        .tls = &r->tls,
    };
    ag_engine *eng = ag_engine_new(&c, &err);
    if (eng == NULL)
        set_error(e, err.code, PR_PHASE_PLAN, "%s", err.msg);
    return eng;
}

ag_run *ag_run_new(const struct pr_msg_plan *plan, int workers, struct ag_run_error *e)
{
    ag_run *r = pr_xcalloc(1, sizeof(*r));

    memset(e, 0, sizeof(*e));
    r->plan = plan;
    pthread_mutex_init(&r->mu, NULL);
    r->wl = parse_workload(plan, e);
    if (r->wl) {
        struct pr_error err = {0};
        const pr_opts *o = r->wl->fam->wl_opts(r->wl);
        if (pr_tls_opts_from(&r->tls, o, &err) < 0 ||
            (plan->cmd == PR_CMD_RUN && pr_opts_checkpoints(o, &r->cp_at, &r->n_cp_at, &err) < 0))
            set_error(e, err.code, PR_PHASE_PLAN, "%s", err.msg);
        else
            r->engine = make_engine(r, workers, e);
    }
    if (r->engine == NULL) {
        ag_run_destroy(&r);
        return NULL;
    }
    return r;
}

/* A blocking connection for the RTT probe and (lead) status samples; it
 * lives on the session thread, never on a loop. */
static int open_probe(ag_run *r, struct ag_run_error *e)
{
    const struct pr_msg_plan *p = r->plan;
    unsigned timeout = 10;
    const char *host = p->n_hosts ? p->hosts[0] : "localhost";
    unsigned port = p->n_ports ? p->ports[0] : 3306;
    const char *sock = p->n_sockets ? p->sockets[0] : NULL;

    if (pr_opts_bool(r->wl->fam->wl_opts(r->wl), "mysql-dry-run"))
        return 0; /* no server to probe: no RTT, no status samples */
    r->probe = mysql_init(NULL);
    mysql_options(r->probe, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(r->probe, MYSQL_OPT_READ_TIMEOUT, &timeout);
    mysql_options(r->probe, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
    struct pr_error te = {0};
    if (pr_tls_apply(r->probe, &r->tls, &te) < 0) {
        set_error(e, PR_EINVAL, PR_PHASE_CONNECT, "connect %s: %s", sock ? sock : host, te.msg);
        return e->code;
    }
    if (!mysql_real_connect(r->probe, sock ? "localhost" : host, p->user, p->password, p->database,
                            port, sock, 0)) {
        unsigned n = mysql_errno(r->probe);
        set_error(e, PR_EINVAL, PR_PHASE_CONNECT, "connect %s:%u: error %u: %s; %s",
                  sock ? sock : host, sock ? 0 : port, n, mysql_error(r->probe),
                  hint(r, n, mysql_error(r->probe)));
        e->db_errno = n;
        snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", mysql_sqlstate(r->probe));
        snprintf(e->stmt_kind, sizeof(e->stmt_kind), "connect");
        return e->code;
    }
    if (pr_tls_check_conn(r->probe, &r->tls, &te) < 0) {
        set_error(e, PR_EINVAL, PR_PHASE_CONNECT, "connect %s:%u: %s", sock ? sock : host,
                  sock ? 0 : port, te.msg);
        e->db_errno = 2026;
        snprintf(e->stmt_kind, sizeof(e->stmt_kind), "connect");
        return e->code;
    }
    for (int i = 0; i < PROBE_PINGS; i++) {
        uint64_t t = pr_clock_now_ns();
        if (mysql_ping(r->probe) != 0)
            break;
        uint64_t us = (pr_clock_now_ns() - t) / 1000u;
        if (r->db_rtt_us == 0 || us < r->db_rtt_us)
            r->db_rtt_us = us ? us : 1;
    }
    return 0;
}

static void set_phase(ag_run *r, enum run_phase ph)
{
    pthread_mutex_lock(&r->mu);
    r->phase = ph;
    bool stop = r->cancelled && ph == RUN_LIVE;
    bool imm = r->immediate;
    pthread_mutex_unlock(&r->mu);
    if (stop) /* a cancel that arrived during setup */
        ag_engine_stop(r->engine, imm);
}

int ag_run_setup(ag_run *r, struct ag_run_error *e)
{
    struct ag_engine_error ee = {0};
    int rc;

    memset(e, 0, sizeof(*e));
    set_phase(r, RUN_SETUP);
    struct pr_error fe = {0};
    if (pr_tls_check_files(&r->tls, &fe) < 0) {
        set_error(e, fe.code, PR_PHASE_CONNECT, "%s", fe.msg);
        return e->code;
    }
    rc = open_probe(r, e);
    if (rc < 0)
        return rc;
    rc = ag_engine_setup(r->engine, &ee);
    if (rc < 0) {
        from_engine(r, e, &ee);
        return rc;
    }
    return 0;
}

bool ag_run_db_rtt_us(const ag_run *r, uint64_t *us)
{
    if (r->db_rtt_us == 0)
        return false;
    *us = r->db_rtt_us;
    return true;
}

uint32_t ag_run_conns_open(const ag_run *r)
{
    return ag_engine_conns_open(r->engine);
}

static enum pr_phase cmd_phase(enum pr_plan_cmd cmd);

/* The family's loader sink: one piece per stream. */
static void add_piece(void *ctx, struct ag_piece piece, void (*destroy)(void *it))
{
    ag_run *r = ctx;

    r->pieces = pr_xrealloc(r->pieces, (r->npieces + 1) * sizeof(*r->pieces));
    r->destroy = pr_xrealloc(r->destroy, (r->npieces + 1) * sizeof(*r->destroy));
    r->pieces[r->npieces] = piece;
    r->destroy[r->npieces] = destroy;
    r->npieces++;
}

/* Command mode: the family's streams for this plan's command. */
static int build_pieces(ag_run *r, struct ag_run_error *e)
{
    struct pr_error err = {0};
    int rc = r->wl->fam->loads(r->wl, r->plan, add_piece, r, &err);

    if (rc < 0)
        set_error(e, err.code, cmd_phase(r->plan->cmd), "%s", err.msg);
    return rc;
}

/* The phase a failure of this plan's command belongs to. */
static enum pr_phase cmd_phase(enum pr_plan_cmd cmd)
{
    switch (cmd) {
    case PR_CMD_PREPARE:
        return PR_PHASE_PREPARE;
    case PR_CMD_CLEANUP:
        return PR_PHASE_CLEANUP;
    case PR_CMD_PREWARM:
        return PR_PHASE_PREWARM;
    case PR_CMD_CHECK:
        return PR_PHASE_CHECK;
    default:
        return PR_PHASE_RUN;
    }
}

static bool is_cancelled(ag_run *r)
{
    pthread_mutex_lock(&r->mu);
    bool c = r->cancelled;
    pthread_mutex_unlock(&r->mu);
    return c;
}

/* Command mode: wait for t0 (a stop ends the wait), build the statement
 * streams and start them. Any failure ends the command at once (r->end). */
static void start_command(ag_run *r, uint64_t t0_ns)
{
    const char *cmd = pr_plan_cmd_name(r->plan->cmd);

    while (pr_clock_now_ns() < t0_ns && !is_cancelled(r))
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (is_cancelled(r))
        set_error(&r->end, -ECANCELED, cmd_phase(r->plan->cmd),
                  "%s stopped before it started: nothing was done", cmd);
    else if (build_pieces(r, &r->end) == 0 &&
             ag_engine_start_pieces(r->engine, r->pieces, r->npieces) < 0)
        set_error(&r->end, PR_EINVAL, cmd_phase(r->plan->cmd), "%s: engine not ready", cmd);
    else if (r->end.code == 0)
        r->cmd_started_ns = ag_run_now_ns();
    r->cmd_t0_ns = t0_ns;
    if (r->end.code != 0) {
        pthread_mutex_lock(&r->mu);
        r->finished = true;
        pthread_mutex_unlock(&r->mu);
        return;
    }
    set_phase(r, RUN_LIVE);
}

int64_t ag_run_start(ag_run *r, uint64_t t0_ns)
{
    if (r->plan->cmd == PR_CMD_RUN) {
        ag_engine_start(r->engine, t0_ns);
        set_phase(r, RUN_LIVE);
        return 0; /* known once every worker has started: ag_run_start_skew_us */
    }
    start_command(r, t0_ns);
    return 0;
}

bool ag_run_start_skew_us(ag_run *r, int64_t *us)
{
    int64_t ns = 0;
    if (r->plan->cmd != PR_CMD_RUN) {
        if (r->cmd_started_ns == 0)
            return false;
        ns = (int64_t)r->cmd_started_ns - (int64_t)r->cmd_t0_ns;
    } else if (!ag_engine_start_skew_ns(r->engine, &ns)) {
        return false;
    }
    *us = ns / 1000;
    return true;
}

void ag_run_take_conns(ag_run *r, struct pr_msg_conn **out, uint32_t *n)
{
    *out = r->conns;
    *n = (uint32_t)r->n_conns;
    r->conns = NULL;
    r->n_conns = 0;
}

bool ag_run_tally(const ag_run *r, uint64_t *tally)
{
    if (r->plan->cmd != PR_CMD_RUN || r->engine == NULL)
        return false;
    *tally = r->tally;
    return true;
}

bool ag_run_end_us(const ag_run *r, int64_t *us)
{
    if (r->end_ns == 0)
        return false;
    *us = (int64_t)(r->end_ns / 1000u);
    return true;
}

bool ag_run_is_finished(ag_run *r)
{
    pthread_mutex_lock(&r->mu);
    bool f = r->finished; /* a command that could not start */
    pthread_mutex_unlock(&r->mu);
    return f || ag_engine_wait(r->engine, 0) == 1;
}

void ag_run_cancel(ag_run *r, bool immediate)
{
    if (r == NULL)
        return;
    pthread_mutex_lock(&r->mu);
    r->cancelled = true;
    r->immediate = r->immediate || immediate;
    if (r->phase == RUN_LIVE)
        ag_engine_stop(r->engine, immediate);
    pthread_mutex_unlock(&r->mu);
}

void ag_run_stop(ag_run *r, bool immediate)
{
    pthread_mutex_lock(&r->mu);
    bool live = r->phase == RUN_LIVE;
    pthread_mutex_unlock(&r->mu);
    if (!live)
        return;
    ag_engine_stop(r->engine, immediate);
    ag_engine_wait(r->engine, -1);
}

/* Sessions of the plan's user on the server other than our probe (SHOW
 * PROCESSLIST, which the cross-check formulas leave out), -1 on error. */
static int other_sessions(ag_run *r)
{
    unsigned long self = mysql_thread_id(r->probe);
    const char *user = r->plan->user && r->plan->user[0] ? r->plan->user : "sbtest";
    int n = 0;

    if (mysql_query(r->probe, "SHOW PROCESSLIST") != 0)
        return -1;
    MYSQL_RES *res = mysql_store_result(r->probe);
    if (res == NULL)
        return -1;
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(res)) != NULL)
        if (row[0] && row[1] && strcmp(row[1], user) == 0 && strtoul(row[0], NULL, 10) != self)
            n++;
    mysql_free_result(res);
    return n;
}

void ag_run_settle(ag_run *r)
{
    uint64_t deadline = pr_clock_now_ns() + SETTLE_MS * 1000000ULL;

    if (!r->plan->lead || r->plan->cmd != PR_CMD_RUN || r->probe == NULL)
        return;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        bool immediate = r->immediate;
        pthread_mutex_unlock(&r->mu);
        if (immediate || other_sessions(r) <= 0 || pr_clock_now_ns() >= deadline)
            return;
        nanosleep(&(struct timespec){0, SETTLE_POLL_MS * 1000000L}, NULL);
    }
}

void ag_run_env(ag_run *r, struct pr_msg_env *e)
{
    ag_env_host(e);
    if (r->plan->lead)
        ag_env_server(e, r->probe, r->plan->database,
                      "--mysql-dry-run: the agent opened no server connection");
}

void ag_run_sample_srv(ag_run *r, struct pr_msg_stat **srv, uint32_t *n_srv)
{
    *srv = NULL;
    *n_srv = 0;
    if (!r->plan->lead || r->probe == NULL || mysql_query(r->probe, status_sql) != 0)
        return;
    MYSQL_RES *res = mysql_store_result(r->probe);
    if (res == NULL)
        return;
    uint64_t n = mysql_num_rows(res);
    if (n > PR_MSG_MAX_STATS)
        n = PR_MSG_MAX_STATS;
    *srv = pr_xcalloc(n + 1, sizeof(**srv));
    MYSQL_ROW row;
    while (*n_srv < n && (row = mysql_fetch_row(res)) != NULL) {
        (*srv)[*n_srv].name = pr_xstrdup(row[0]);
        (*srv)[*n_srv].value = strtoull(row[1] ? row[1] : "0", NULL, 10);
        (*n_srv)++;
    }
    mysql_free_result(res);
}

static uint32_t run_nkinds(const ag_run *r)
{
    const char *const *names;
    if (r->plan->cmd != PR_CMD_RUN || r->wl->fam->wl_kinds == NULL)
        return 0;
    return (uint32_t)r->wl->fam->wl_kinds(r->wl, &names);
}

uint32_t ag_run_kinds(const ag_run *r, char ***names)
{
    const char *const *src;
    uint32_t n = run_nkinds(r);

    *names = NULL;
    if (n == 0)
        return 0;
    r->wl->fam->wl_kinds(r->wl, &src);
    *names = pr_xcalloc(n, sizeof(**names));
    for (uint32_t i = 0; i < n; i++)
        (*names)[i] = pr_xstrdup(src[i]);
    return n;
}

static struct pr_msg_kstat *kst_new(uint32_t n)
{
    struct pr_msg_kstat *k = pr_xcalloc(n ? n : 1, sizeof(*k));
    for (uint32_t i = 0; i < n; i++)
        k[i].lat = pr_hist_new();
    return k;
}

static void kst_free(struct pr_msg_kstat **k, uint32_t n)
{
    for (uint32_t i = 0; *k && i < n; i++)
        pr_hist_destroy(&(*k)[i].lat);
    free(*k);
    *k = NULL;
}

void ag_run_take_notes(ag_run *r, char ***notes, uint32_t *n)
{
    *notes = NULL;
    *n = r->engine ? (uint32_t)ag_engine_take_notes(r->engine, notes) : 0;
}

void ag_run_take_kind_totals(ag_run *r, struct pr_msg_kstat **kst, uint32_t *n)
{
    *kst = r->tot_kst;
    *n = r->n_tot_kst;
    r->tot_kst = NULL;
    r->n_tot_kst = 0;
}

void ag_run_collect(ag_run *r, struct ag_run_interval *iv)
{
    struct ag_engine_stats st = {0};
    uint32_t nk = run_nkinds(r);

    if (iv->kst == NULL && nk > 0) {
        iv->kst = kst_new(nk);
        iv->n_kst = nk;
    }
    st.kst = iv->kst;
    st.n_kst = iv->n_kst;

    if (iv->lat == NULL)
        iv->lat = pr_hist_new();
    if (iv->svc == NULL && r->plan->rate > 0)
        iv->svc = pr_hist_new();
    st.lat = iv->lat;
    st.svc = iv->svc;
    if (ag_engine_collect(r->engine, &st) == 0) {
        iv->ctr = st.ctr;
        iv->rows = st.rows;
        iv->cpu_pct = st.cpu_pct;
        iv->lag_max_us = st.lag_max_us;
        iv->lag_p99_us = st.lag_p99_us;
        iv->slip_us = st.slip_max_us;
        free(iv->trx);
        iv->trx = st.trx;
        iv->n_trx = st.n_trx;
        iv->trx_lost = st.trx_lost;
    }
    ag_run_sample_srv(r, &iv->srv, &iv->n_srv);
}

void ag_run_checkpoint_conns(ag_run *r, uint64_t k, struct ag_run_interval *iv)
{
    for (uint32_t i = 0; i < r->n_cp_at; i++) {
        if (pr_checkpoint_interval(r->cp_at[i], r->plan->report_ms) != k)
            continue;
        free(iv->conns);
        struct pr_msg_conn *c = NULL;
        iv->n_conns = (uint32_t)ag_engine_conn_figures(r->engine, &c);
        iv->conns = c;
        return;
    }
}

void ag_run_interval_clear(struct ag_run_interval *iv)
{
    free(iv->conns);
    pr_hist_destroy(&iv->lat);
    pr_hist_destroy(&iv->svc);
    kst_free(&iv->kst, iv->n_kst);
    free(iv->trx);
    for (uint32_t i = 0; i < iv->n_srv; i++)
        free(iv->srv[i].name);
    free(iv->srv);
    memset(iv, 0, sizeof(*iv));
}

bool ag_run_is_rate(const ag_run *r)
{
    return r->plan->cmd == PR_CMD_RUN && r->plan->rate > 0;
}

void ag_run_totals(ag_run *r, struct pr_counters *ctr, uint64_t *rows, pr_hist *lat, pr_hist *svc,
                   struct ag_run_error *status)
{
    struct ag_engine_stats st = {0};
    struct ag_engine_error ee = {0};
    enum pr_plan_cmd cmd = r->plan->cmd;

    memset(ctr, 0, sizeof(*ctr));
    *rows = 0;
    *status = r->end;
    st.lat = lat;
    st.svc = svc;
    kst_free(&r->tot_kst, r->n_tot_kst);
    r->n_tot_kst = run_nkinds(r);
    r->tot_kst = r->n_tot_kst ? kst_new(r->n_tot_kst) : NULL;
    st.kst = r->tot_kst;
    st.n_kst = r->n_tot_kst;
    if (ag_engine_totals(r->engine, &st) == 0) {
        *ctr = st.ctr;
        *rows = st.rows;
        r->end_ns = cmd == PR_CMD_RUN ? st.end_ns : 0;
        r->tally = st.tally;
        free(r->conns);
        r->conns = NULL;
        r->n_conns = cmd == PR_CMD_RUN ? ag_engine_conn_figures(r->engine, &r->conns) : 0;
    }
    if (status->code == 0 && ag_engine_error(r->engine, &ee)) {
        from_engine(r, status, &ee);
        status->phase = cmd_phase(cmd);
    } else if (status->code == 0 && cmd != PR_CMD_RUN && !ag_engine_pieces_complete(r->engine)) {
        set_error(status, -ECANCELED, cmd_phase(cmd),
                  "%s stopped before it finished: tables may be partly %s", pr_plan_cmd_name(cmd),
                  cmd == PR_CMD_PREPARE ? "loaded; run cleanup, then prepare again" : "done");
    }
}

void ag_run_destroy(ag_run **rp)
{
    ag_run *r = rp ? *rp : NULL;
    if (r == NULL)
        return;
    ag_engine_destroy(&r->engine);
    free(r->conns);
    free(r->cp_at);
    if (r->probe)
        mysql_close(r->probe);
    for (size_t i = 0; i < r->npieces; i++)
        if (r->destroy[i])
            r->destroy[i](r->pieces[i].it);
    free(r->destroy);
    kst_free(&r->tot_kst, r->n_tot_kst);
    free(r->pieces);
    if (r->wl)
        r->wl->fam->wl_destroy(&r->wl);
    pr_tls_opts_clear(&r->tls);
    pthread_mutex_destroy(&r->mu);
    free(r);
    *rp = NULL;
}
