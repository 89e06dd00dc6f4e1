/* ag_ctl: the agent's control loop: the ZeroMQ DEALER, HELLO, clock sync, the lease, and the
 * session it runs (contract: ag_ctl.h). */
#include "ag_ctl.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <zmq.h>

#include "ag_cpus.h"
#include "ag_prom.h"
#include "ag_registry.h"
#include "ag_session.h"
#include "pr_clock.h"
#include "pr_msg.h"

#define PINGS_PER_ROUND 5
/* After SIGTERM/SIGINT, how long the run may take to stop before the
 * daemon exits without it: a thread stuck in a blocking call (a server
 * that accepts but never answers holds mysql_real_connect for its 10 s
 * timeout) must not hold the daemon past 2 s (issue 27 §2). */
#define STOP_GRACE_MS 1500
/* After the run was told to stop (ABORT, BYE, the lease), how long it may
 * take to end before the daemon restarts itself without it: past every
 * bound of a healthy stop (in-flight events 5 s, the lead's last sample
 * 6 s) and past the coordinator's own wait (10 s), so the run was already
 * ended there, the agent declared lost. A thread stuck in a blocking call
 * (a server that trickles bytes keeps mysql_real_connect reading) would
 * otherwise keep the daemon from every later run (issue 27 §2). */
#define STUCK_RESTART_MS 15000

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

struct ctl {
    const struct ag_config *cfg;
    void *zctx;                  /* ZeroMQ context */
    void *sock;                  /* DEALER to the coordinator */
    void *mon;                   /* PAIR reading the DEALER's handshake events */
    uint64_t redial_ns;          /* when to recreate the DEALER, 0 = no need */
    uint64_t refused_logged_ns;  /* last "key refused" log line */
    ag_session *session;         /* the current run, or NULL */
    char run[PR_RUN_ID_MAX + 1]; /* current run id, "" when idle */
    uint64_t seq;                /* last seq we sent */
    struct pr_seq_track in;      /* duplicate filter for the coordinator */
    uint64_t last_heard_ns;      /* monotonic time of the last valid message */
    uint64_t next_beat_ns;       /* next HEARTBEAT (or HELLO while unanswered) */
    bool joined;                 /* the coordinator has spoken since our HELLO */
    bool bye_heard;              /* it said BYE while a run was still winding down */
    bool lease_expired;          /* a run ended because the lease lapsed */
    uint64_t stop_asked_ns;      /* when the current run was told to stop, 0: not */
    bool run_failed;             /* a run ended with a non-zero status, an ERROR or an ABORT */
    bool over;                   /* the coordinator is done with us: its BYE while idle
                                    or after a run, or its quiet (--once exits then) */
    int runs_done;               /* sessions that finished */
    bool after_run;              /* a run finished and no PLAN came since: the
                                    coordinator's quiet is its end, not a loss */
    uint64_t ping_id;            /* last PING id we sent */
    struct pr_clock_sync clock;  /* coordinator clock - ours, lowest-RTT PONG */
    uint64_t bad_frames;         /* malformed or unexpected frames dropped */
    ag_prom *prom;               /* our own /metrics (cfg->prometheus), or NULL */
};

static void logf_(const struct ctl *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void logf_(const struct ctl *c, int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    va_list ap;
    char line[1024];
    if (level > c->cfg->log_level)
        return;
    /* One write per line: local agents share the coordinator's stderr, and
     * a line written in pieces interleaves with the coordinator's own. */
    int n = snprintf(line, sizeof(line), "stampede-agent[%s] %s: ", c->cfg->name, names[level]);
    if (n < 0 || (size_t)n >= sizeof(line) - 1)
        n = 0;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2; /* truncated */
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}

/* No coordinator from now on: HELLO until the next one answers. */
static void unjoin(struct ctl *c)
{
    c->joined = false;
    c->bye_heard = false;
    memset(&c->in, 0, sizeof(c->in));
    c->clock.rtt_ns = 0; /* the next PONG sets a fresh estimate */
}

/* Encode and send m with the next seq; m is only read. */
static void send_msg(struct ctl *c, struct pr_msg *m)
{
    msgpack_sbuffer sb;
    struct pr_error err = {0};

    m->seq = ++c->seq;
    snprintf(m->run, sizeof(m->run), "%s", c->run);
    msgpack_sbuffer_init(&sb);
    if (pr_msg_encode(m, &sb, &err) == 0) {
        if (zmq_send(c->sock, sb.data, sb.size, ZMQ_DONTWAIT) < 0 && errno != EAGAIN)
            logf_(c, 1, "send %s: %s", pr_msg_type_name(m->type), zmq_strerror(errno));
    } else {
        logf_(c, 0, "cannot encode %s: %s", pr_msg_type_name(m->type), err.msg);
    }
    msgpack_sbuffer_destroy(&sb);
}

static void send_hello(struct ctl *c)
{
    struct pr_msg m;
    char host[256] = "";

    gethostname(host, sizeof(host) - 1);
    pr_msg_init(&m, PR_MSG_HELLO, NULL, 0);
    m.u.hello.name = c->cfg->name;
    m.u.hello.version = STAMPEDE_VERSION;
    m.u.hello.cores = ag_cpus_usable(); /* what the default loops follow (ag_cpus.h) */
    m.u.hello.hostname = host;
    m.u.hello.region = c->cfg->region;
    snprintf(m.u.hello.pubkey, sizeof(m.u.hello.pubkey), "%s", c->cfg->public_key);
    send_msg(c, &m);
}

static void send_pings(struct ctl *c)
{
    for (int i = 0; i < PINGS_PER_ROUND; i++) {
        struct pr_msg m;
        pr_msg_init(&m, PR_MSG_PING, NULL, 0);
        m.u.ping.id = ++c->ping_id;
        m.u.ping.clock_ns = pr_clock_now_ns();
        send_msg(c, &m);
    }
}

static void send_heartbeat(struct ctl *c)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_HEARTBEAT, NULL, 0);
    m.u.heartbeat.state = c->session ? ag_session_state(c->session) : PR_STATE_IDLE;
    m.u.heartbeat.clock_ns = pr_clock_now_ns();
    send_msg(c, &m);
}

static void send_error(struct ctl *c, enum pr_phase phase, int code, const char *msg)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_ERROR, NULL, 0);
    m.u.error.code = code;
    m.u.error.phase = phase;
    m.u.error.message = (char *)msg;
    m.u.error.stmt_kind = "";
    c->run_failed = true;
    send_msg(c, &m);
}

/* Watch our own handshakes: a refused key is worth saying (the agent
 * would otherwise only keep dialing), and after a protocol failure libzmq
 * does not redial, so the DEALER is recreated. */
static int open_monitor(struct ctl *c)
{
    char ep[64];
    snprintf(ep, sizeof(ep), "inproc://ag-ctl-monitor-%p", c->sock);
    int events = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                 ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (zmq_socket_monitor(c->sock, ep, events) != 0)
        return -errno;
    c->mon = zmq_socket(c->zctx, ZMQ_PAIR);
    if (c->mon == NULL || zmq_connect(c->mon, ep) != 0)
        return -errno;
    return 0;
}

static void close_socket(struct ctl *c)
{
    if (c->sock) {
        zmq_socket_monitor(c->sock, NULL, 0);
        zmq_close(c->sock);
    }
    if (c->mon)
        zmq_close(c->mon);
    c->sock = c->mon = NULL;
}

static int open_socket(struct ctl *c)
{
    const struct ag_config *cfg = c->cfg;
    int zero = 0, one = 1, ivl = 100, ivl_max = 1000;

    if (c->zctx == NULL)
        c->zctx = zmq_ctx_new();
    c->sock = zmq_socket(c->zctx, ZMQ_DEALER);
    if (c->sock == NULL)
        return -errno;
    zmq_setsockopt(c->sock, ZMQ_LINGER, &zero, sizeof(zero));
    /* Queue nothing for a coordinator that is not there: stale HELLOs and
     * STATS must not reach the next one. */
    zmq_setsockopt(c->sock, ZMQ_IMMEDIATE, &one, sizeof(one));
    zmq_setsockopt(c->sock, ZMQ_RECONNECT_IVL, &ivl, sizeof(ivl));
    zmq_setsockopt(c->sock, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof(ivl_max));
    if (!cfg->plaintext) {
        if (zmq_setsockopt(c->sock, ZMQ_CURVE_SERVERKEY, cfg->coordinator_key, 40) != 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_PUBLICKEY, cfg->public_key, 40) != 0 ||
            zmq_setsockopt(c->sock, ZMQ_CURVE_SECRETKEY, cfg->secret_key, 40) != 0)
            return -errno;
    }
    int rc = open_monitor(c);
    if (rc < 0)
        return rc;
    if (zmq_connect(c->sock, cfg->coordinator) != 0)
        return -errno;
    return 0;
}

static void read_monitor(struct ctl *c)
{
    uint8_t buf[16];
    char addr[256];
    uint64_t now = pr_clock_now_ns();

    while (c->mon && zmq_recv(c->mon, buf, sizeof(buf), ZMQ_DONTWAIT) >= 2) {
        uint16_t event;
        memcpy(&event, buf, sizeof(event));
        zmq_recv(c->mon, addr, sizeof(addr), 0);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            c->redial_ns = 0; /* a later handshake worked: nothing to repair */
        } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
            if (now - c->refused_logged_ns > 10000000000ull || c->refused_logged_ns == 0) {
                logf_(c, 0,
                      "the coordinator at %s refused this agent's key %s: add it to the "
                      "coordinator's --authorized-keys (or check --coordinator-key)",
                      c->cfg->coordinator, c->cfg->public_key);
                c->refused_logged_ns = now;
            }
        } else if (c->redial_ns == 0) {
            /* On a private ipc:// endpoint (a local agent) the peer can only
             * be its own coordinator going away: not worth a warning. */
            bool local = strncmp(c->cfg->coordinator, "ipc://", 6) == 0;
            logf_(c, local ? 3 : 1,
                  "handshake with %s failed (not a stampede coordinator?); redialing",
                  c->cfg->coordinator);
            c->redial_ns = now + 1000000000u;
        }
    }
}

/* Recreate the DEALER after a protocol failure (see open_monitor). */
static void redial(struct ctl *c)
{
    if (c->joined) /* a coordinator answers us: never drop a working link */
        c->redial_ns = 0;
    if (c->redial_ns == 0 || pr_clock_now_ns() < c->redial_ns)
        return;
    c->redial_ns = 0;
    close_socket(c);
    int rc = open_socket(c);
    if (rc < 0)
        logf_(c, 0, "cannot redial %s: %s", c->cfg->coordinator, zmq_strerror(-rc));
}

/* Lowest-RTT offset estimate from our own PINGs (NTP style). */
static void on_pong(struct ctl *c, const struct pr_msg_pong *p)
{
    pr_clock_sync_pong(&c->clock, p->ping_clock_ns, p->peer_clock_ns, pr_clock_now_ns());
}

static void drain_session(struct ctl *c);

static void on_plan(struct ctl *c, const struct pr_msg *m)
{
    const struct pr_msg_plan *p = &m->u.plan;

    /* The previous run may have sent DONE but not been reaped yet. */
    drain_session(c);
    if (c->session != NULL) {
        send_error(c, PR_PHASE_PLAN, PR_EINVAL, "agent is busy with another run");
        return;
    }
    snprintf(c->run, sizeof(c->run), "%s", m->run);
    c->after_run = false;
    struct pr_error herr = {0};
    if (pr_msg_plan_verify(p, &herr) < 0) {
        logf_(c, 0, "run %s: %s", c->run, herr.msg);
        send_error(c, PR_PHASE_PLAN, herr.code, herr.msg);
        return;
    }
    const struct ag_family *fam = ag_registry_find(p->workload);
    const char *script = fam && fam->plan_script ? fam->plan_script(p) : NULL;
    if (script != NULL && !c->cfg->allow_scripts) { /* the family's script (ag_family.h) */
        char why[512];
        snprintf(why, sizeof(why),
                 "agent %s refuses Lua scripts (%s.lua): its config does not say "
                 "allow-scripts = yes",
                 c->cfg->name, script);
        logf_(c, 1, "run %s: %s", c->run, why);
        send_error(c, PR_PHASE_PLAN, PR_EINVAL, why);
        return;
    }
    for (uint32_t i = 0; i < p->n_hosts; i++) {
        if (p->n_sockets == 0 && !ag_config_db_host_allowed(c->cfg, p->hosts[i])) {
            char why[512];
            snprintf(why, sizeof(why),
                     "database host %s is not in this agent's --allow-db-hosts list", p->hosts[i]);
            send_error(c, PR_PHASE_PLAN, PR_EINVAL, why);
            return;
        }
    }
    logf_(c, 2, "run %s: %s %s, %u connections", c->run, pr_plan_cmd_name(p->cmd), p->workload,
          p->conns);
    c->session = ag_session_new(p, c->cfg->workers);
    if (c->session == NULL)
        send_error(c, PR_PHASE_PLAN, -errno, "cannot start the run thread");
    else
        ag_prom_plan(c->prom, p, c->run);
}

static void on_start(struct ctl *c, const struct pr_msg_start *s)
{
    if (c->session == NULL) {
        c->bad_frames++;
        return;
    }
    /* t0 is on the coordinator's clock; ours = t0 - offset. */
    uint64_t t0 = (uint64_t)((int64_t)s->t0_ns - c->clock.offset_ns);
    ag_session_go(c->session, t0, s->interval_ms);
}

/* Tell the run to stop, and note when (STUCK_RESTART_MS counts from the
 * first request). */
static void stop_session(struct ctl *c, bool immediate)
{
    ag_session_stop(c->session, immediate);
    if (c->stop_asked_ns == 0)
        c->stop_asked_ns = pr_clock_now_ns();
}

static void dispatch(struct ctl *c, struct pr_msg *m)
{
    struct pr_msg reply;

    switch (m->type) {
    case PR_MSG_PING:
        pr_msg_init_pong(&reply, &m->u.ping, pr_clock_now_ns());
        send_msg(c, &reply);
        break;
    case PR_MSG_PONG:
        on_pong(c, &m->u.pong);
        break;
    case PR_MSG_PLAN:
        on_plan(c, m);
        break;
    case PR_MSG_START:
        on_start(c, &m->u.start);
        break;
    case PR_MSG_ABORT:
    case PR_MSG_BYE:
        logf_(c, m->type == PR_MSG_BYE ? 2 : 1, "coordinator: %s: %s", pr_msg_type_name(m->type),
              m->u.abort.reason);
        if (m->type == PR_MSG_ABORT)
            c->run_failed = true;
        if (c->session) { /* ABORT "now": --forced-shutdown, in-flight events are cut off */
            stop_session(c, m->type == PR_MSG_ABORT && m->u.abort.now);
            /* Its DONE may be out already while the session winds down:
             * once it has, the quiet that follows is not a lost lease. */
            c->bye_heard = c->bye_heard || m->type == PR_MSG_BYE;
        } else if (m->type == PR_MSG_BYE) { /* done with us: wait for the next one, quietly */
            unjoin(c);
            c->over = true;
        }
        break;
    case PR_MSG_HEARTBEAT:
        break;
    default:
        c->bad_frames++;
        logf_(c, 3, "ignoring %s from the coordinator", pr_msg_type_name(m->type));
        break;
    }
}

static void read_socket(struct ctl *c)
{
    for (;;) {
        zmq_msg_t frame;
        struct pr_msg m;
        struct pr_error err = {0};
        int more = 0;
        size_t more_len = sizeof(more);

        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, c->sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&frame);
            return;
        }
        zmq_getsockopt(c->sock, ZMQ_RCVMORE, &more, &more_len);
        int rc = pr_msg_decode(&m, zmq_msg_data(&frame), zmq_msg_size(&frame), &err);
        explicit_bzero(zmq_msg_data(&frame), zmq_msg_size(&frame)); /* a PLAN holds the password */
        zmq_msg_close(&frame);
        while (more) { /* we speak single-frame messages: drop the rest */
            zmq_msg_init(&frame);
            zmq_msg_recv(&frame, c->sock, 0);
            zmq_getsockopt(c->sock, ZMQ_RCVMORE, &more, &more_len);
            zmq_msg_close(&frame);
            rc = rc ? rc : PR_ETRAILING;
        }
        if (rc != 0) {
            c->bad_frames++;
            logf_(c, 1, "dropped a malformed frame (%s): %s", pr_errname(rc), err.msg);
        } else if (pr_seq_accept(&c->in, &m)) {
            c->last_heard_ns = pr_clock_now_ns();
            c->joined = true;
            dispatch(c, &m);
        }
        pr_msg_clear(&m);
    }
}

static void drain_session(struct ctl *c)
{
    struct pr_msg m;

    while (c->session && ag_session_pop(c->session, &m)) {
        if ((m.type == PR_MSG_DONE && m.u.done.status != 0) || m.type == PR_MSG_ERROR)
            c->run_failed = true;
        ag_prom_msg(c->prom, &m, c->clock.offset_ns);
        send_msg(c, &m);
        pr_msg_clear(&m);
    }
    if (c->session && ag_session_is_finished(c->session)) {
        ag_session_destroy(&c->session);
        c->stop_asked_ns = 0;
        c->runs_done++;
        c->after_run = true;
        logf_(c, 2, "run %s finished", c->run);
        c->run[0] = '\0';
        if (c->bye_heard) {
            unjoin(c);
            c->over = true;
        }
    }
}

/* Timers: heartbeat (or HELLO until a coordinator answers) and the lease. */
static void tick(struct ctl *c, uint64_t now)
{
    if (c->joined && now - c->last_heard_ns > (uint64_t)AG_CTL_LEASE_MS * 1000000u) {
        /* After a finished run the coordinator going quiet is its normal
         * end (its BYE is the usual word, and can come too late or not at
         * all from a coordinator on a loaded box): said at info level. */
        if (c->session == NULL && c->after_run)
            logf_(c, 2,
                  "the coordinator has been quiet for %d ms since the run ended: waiting "
                  "for the next run",
                  AG_CTL_LEASE_MS);
        else
            logf_(c, 1, "no word from the coordinator for %d ms: %s", AG_CTL_LEASE_MS,
                  c->session ? "stopping the run and closing every DB connection" : "waiting");
        /* A coordinator that went quiet before any run finished lost it. */
        if (c->session || !c->after_run)
            c->lease_expired = true;
        if (c->session)
            stop_session(c, true);
        unjoin(c);
        c->over = true;
    }
    if (now >= c->next_beat_ns) {
        c->next_beat_ns = now + (uint64_t)AG_CTL_HEARTBEAT_MS * 1000000u;
        if (c->joined) {
            send_heartbeat(c);
        } else if (c->session == NULL) {
            send_hello(c);
            send_pings(c);
        }
    }
}

/* BYE to the coordinator (when joined) before the process leaves without
 * its run: given 50 ms to go out on ZeroMQ's I/O thread; stdio flushed. */
static void bye_before_leaving(struct ctl *c, const char *reason)
{
    if (c->joined) {
        struct pr_msg bye;
        pr_msg_init(&bye, PR_MSG_BYE, NULL, 0);
        bye.u.bye.reason = (char *)reason; /* encoded, never freed here */
        send_msg(c, &bye);
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    fflush(NULL);
}

/* The run did not stop within STOP_GRACE_MS of a signal: a thread of it is
 * stuck in a blocking call. Say so, say BYE, and leave without it (its
 * threads cannot be joined; nothing on disk needs cleaning). */
static void exit_stuck(struct ctl *c)
{
    logf_(c, 1,
          "the run did not stop within %d ms of the signal (a thread is stuck in a "
          "blocking call: a server that does not answer?); exiting without it",
          STOP_GRACE_MS);
    bye_before_leaving(c, "agent stopped by signal");
    _exit(1);
}

/* Every descriptor past stderr closes at exec (ZeroMQ's, libmicrohttpd's
 * and Connector/C's sockets): the new image starts with none of them. */
static void cloexec_all(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != dirfd(d))
            fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    }
    if (d != NULL)
        closedir(d);
}

/* The run did not end STUCK_RESTART_MS after it was told to stop: a thread
 * of it is stuck in a blocking call and cannot be joined. Say so and BYE,
 * then start again as a new process (the same pid and command line, so a
 * supervisor or the coordinator that spawned us sees nothing change), or
 * with --once, exit 1. */
static void restart_stuck(struct ctl *c)
{
    logf_(c, 1,
          "the run did not end %d ms after it was told to stop (a thread is stuck in a "
          "blocking call: a server that does not answer?); %s",
          STUCK_RESTART_MS, c->cfg->once ? "exiting" : "restarting the daemon without it");
    bye_before_leaving(c, "agent restarting: a run's thread was stuck");
    if (!c->cfg->once && c->cfg->argv != NULL) {
        cloexec_all();
        execv("/proc/self/exe", c->cfg->argv);
        logf_(c, 0, "cannot restart (%s): exiting", strerror(errno));
    }
    _exit(1);
}

static bool loop_done(const struct ctl *c)
{
    if (stop_signal && c->session == NULL)
        return true;
    /* --once serves one coordinator's command, which may hold several runs
     * (tpcc prepare: the tables through one agent, then the load through
     * all): it ends when that coordinator is done with us, not at the
     * first finished run. */
    return c->cfg->once && c->session == NULL && c->over;
}

int ag_ctl_run(const struct ag_config *cfg)
{
    struct ctl c = {.cfg = cfg};
    bool stopping = false;
    uint64_t stop_ns = 0;
    int rc;

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    if (cfg->prometheus != NULL) {
        struct pr_error err = {0};
        char prefix[96]; /* libmicrohttpd's messages: at log level debug */
        snprintf(prefix, sizeof prefix, "stampede-agent[%s] debug:", cfg->name);
        c.prom =
            ag_prom_start(cfg->prometheus, cfg->name, cfg->log_level >= 3 ? prefix : NULL, &err);
        if (c.prom == NULL) {
            fprintf(stderr, "stampede-agent: %s\n", err.msg);
            rc = err.code ? err.code : PR_EINVAL;
            goto out;
        }
        logf_(&c, 2, "metrics at http://%s/metrics", cfg->prometheus);
    }
    rc = open_socket(&c);
    if (rc < 0) {
        fprintf(stderr, "stampede-agent: cannot connect to %s: %s\n", cfg->coordinator,
                zmq_strerror(-rc));
        goto out;
    }
    logf_(&c, 2, "dialing %s (%s)", cfg->coordinator,
          cfg->plaintext ? "PLAINTEXT, loopback only" : "CURVE");
    while (!loop_done(&c)) {
        zmq_pollitem_t items[3] = {
            {c.sock, 0, ZMQ_POLLIN, 0}, {c.mon, 0, ZMQ_POLLIN, 0}, {NULL, -1, ZMQ_POLLIN, 0}};
        int n = 2;
        if (c.session) {
            items[2].fd = ag_session_fd(c.session);
            n = 3;
        }
        if (stop_signal && !stopping && c.session) {
            stop_session(&c, true);
            stopping = true;
            stop_ns = pr_clock_now_ns();
        }
        if (stopping && c.session && pr_clock_now_ns() - stop_ns > STOP_GRACE_MS * 1000000ull)
            exit_stuck(&c);
        if (c.session && c.stop_asked_ns &&
            pr_clock_now_ns() - c.stop_asked_ns > STUCK_RESTART_MS * 1000000ull)
            restart_stuck(&c);
        if (zmq_poll(items, n, 50) < 0 && errno != EINTR)
            break;
        read_monitor(&c);
        read_socket(&c);
        drain_session(&c);
        tick(&c, pr_clock_now_ns());
        redial(&c);
    }
    if (c.joined) {
        struct pr_msg bye;
        pr_msg_init(&bye, PR_MSG_BYE, NULL, 0);
        bye.u.bye.reason = stop_signal ? "agent stopped by signal" : "agent exiting";
        send_msg(&c, &bye);
    }
    if (c.bad_frames)
        logf_(&c, 1, "%llu malformed or unexpected frames were dropped",
              (unsigned long long)c.bad_frames);
    rc = (cfg->once && (c.lease_expired || c.run_failed)) ? PR_EINVAL : 0;
out:
    ag_session_destroy(&c.session);
    ag_prom_stop(&c.prom);
    close_socket(&c);
    if (c.zctx)
        zmq_ctx_term(c.zctx);
    return rc;
}
