#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

uint64_t h_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_db(struct harness *h)
{
    const char *sock = getenv("STAMPEDE_TEST_MYSQL_SOCKET");
    h->db = mysql_init(NULL);
    if (!mysql_real_connect(h->db, "localhost", "root", "", NULL, 0, sock, 0)) {
        fprintf(stderr, "harness: cannot connect as root over %s: %s\n", sock, mysql_error(h->db));
        return -1;
    }
    return 0;
}

static pid_t spawn(const char *bin, const char *endpoint, const char *const *extra)
{
    char coord[160];
    const char *argv[32] = {bin, coord, "--plaintext", "--name=harness-agent"};
    int n = 4;

    snprintf(coord, sizeof(coord), "--coordinator=%s", endpoint);
    for (; extra && *extra && n < 30; extra++)
        argv[n++] = *extra;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

int h_start(struct harness *h, const char *agent_bin, const char *const *extra)
{
    int zero = 0;

    memset(h, 0, sizeof(*h));
    h->beats = true;
    if (open_db(h) < 0)
        return -1;
    snprintf(h->endpoint, sizeof(h->endpoint), "ipc:///tmp/stampede-harness-%d.sock",
             (int)getpid());
    h->zctx = zmq_ctx_new();
    h->router = zmq_socket(h->zctx, ZMQ_ROUTER);
    zmq_setsockopt(h->router, ZMQ_LINGER, &zero, sizeof(zero));
    if (zmq_bind(h->router, h->endpoint) != 0) {
        fprintf(stderr, "harness: bind %s: %s\n", h->endpoint, zmq_strerror(errno));
        return -1;
    }
    h->agent_pid = spawn(agent_bin, h->endpoint, extra);
    if (h_recv(h, &h->hello, PR_MSG_HELLO, 10000) != 0) {
        fprintf(stderr, "harness: no HELLO from the agent within 10 s\n");
        return -1;
    }
    return 0;
}

int h_stop(struct harness *h)
{
    int st = 0, rc = -1;

    if (h->agent_pid > 0) {
        kill(h->agent_pid, SIGTERM);
        if (wait4(h->agent_pid, &st, 0, &h->agent_ru) == h->agent_pid)
            rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        h->agent_pid = 0;
    }
    pr_msg_clear(&h->hello);
    if (h->router)
        zmq_close(h->router);
    if (h->zctx)
        zmq_ctx_term(h->zctx);
    if (h->db)
        mysql_close(h->db);
    unlink(h->endpoint + 6);
    return rc;
}

int h_send(struct harness *h, struct pr_msg *m)
{
    msgpack_sbuffer sb;
    struct pr_error err = {0};
    int rc;

    m->seq = ++h->seq;
    snprintf(m->run, sizeof(m->run), "%s", h->run);
    if (m->type == PR_MSG_PLAN) {
        if (m->u.plan.plan_hash == 0 && pr_msg_plan_hash(&m->u.plan, &m->u.plan.plan_hash) < 0)
            fprintf(stderr, "harness: cannot hash the PLAN\n");
        h->plan_hash = m->u.plan.plan_hash;
    }
    msgpack_sbuffer_init(&sb);
    rc = pr_msg_encode(m, &sb, &err);
    if (rc == 0) {
        zmq_send(h->router, h->peer, h->peer_len, ZMQ_SNDMORE);
        rc = zmq_send(h->router, sb.data, sb.size, 0) < 0 ? -1 : 0;
    } else {
        fprintf(stderr, "harness: encode %s: %s\n", pr_msg_type_name(m->type), err.msg);
    }
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static void beat(struct harness *h)
{
    uint64_t now = h_now_ns();
    if (!h->beats || h->peer_len == 0 || now < h->next_beat_ns)
        return;
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_HEARTBEAT, NULL, 0);
    m.u.heartbeat.state = PR_STATE_RUNNING;
    m.u.heartbeat.clock_ns = now;
    h_send(h, &m);
    h->next_beat_ns = now + 1000000000u;
}

/* One frame pair from the router into *m; 0, 1 on timeout, -1 on bad frame. */
static int recv_one(struct harness *h, struct pr_msg *m, int wait_ms)
{
    zmq_pollitem_t it = {h->router, 0, ZMQ_POLLIN, 0};
    zmq_msg_t frame; /* any size: a STATS at 1000 connections can pass 64 KiB */
    struct pr_error err = {0};

    if (zmq_poll(&it, 1, wait_ms) <= 0)
        return 1;
    int idn = zmq_recv(h->router, h->peer, sizeof(h->peer), 0);
    h->peer_len = idn > 0 ? (size_t)idn : 0;
    zmq_msg_init(&frame);
    int n = zmq_msg_recv(&frame, h->router, 0);
    int rc = n < 0 ? -1 : pr_msg_decode(m, zmq_msg_data(&frame), zmq_msg_size(&frame), &err);
    zmq_msg_close(&frame);
    if (rc != 0) {
        fprintf(stderr, "harness: bad frame from agent (%d bytes): %s\n", n, err.msg);
        pr_msg_clear(m);
        return -1;
    }
    return 0;
}

int h_recv(struct harness *h, struct pr_msg *m, enum pr_msg_type want, int timeout_ms)
{
    uint64_t deadline = h_now_ns() + (uint64_t)timeout_ms * 1000000u;

    while (h_now_ns() < deadline) {
        beat(h);
        if (recv_one(h, m, 100) != 0)
            continue;
        if (m->type == PR_MSG_PING) {
            struct pr_msg pong;
            pr_msg_init(&pong, PR_MSG_PONG, NULL, 0);
            pong.u.pong.id = m->u.ping.id;
            pong.u.pong.ping_clock_ns = m->u.ping.clock_ns;
            pong.u.pong.peer_clock_ns = h_now_ns();
            pr_msg_clear(m);
            h_send(h, &pong);
            continue;
        }
        if (m->type == want || (want == PR_MSG_NONE && m->type != PR_MSG_HEARTBEAT &&
                                m->type != PR_MSG_PONG && m->type != PR_MSG_HELLO))
            return 0;
        if (m->type == PR_MSG_ERROR)
            fprintf(stderr, "harness: agent ERROR (%s): %s\n", pr_phase_name(m->u.error.phase),
                    m->u.error.message);
        pr_msg_clear(m);
    }
    return -1;
}

void h_plan_init(struct pr_msg *m, enum pr_plan_cmd cmd, const char *workload)
{
    static char *hosts[1];
    static uint16_t ports[1];

    hosts[0] = getenv("STAMPEDE_TEST_MYSQL_HOST");
    ports[0] = (uint16_t)atoi(getenv("STAMPEDE_TEST_MYSQL_PORT"));
    pr_msg_init(m, PR_MSG_PLAN, NULL, 0);
    struct pr_msg_plan *p = &m->u.plan;
    p->cmd = cmd;
    p->workload = (char *)workload;
    p->agent_count = 1;
    p->conns = 1;
    p->conns_total = 1;
    p->report_ms = 1000;
    p->seed = 42;
    p->lead = true;
    p->hosts = hosts;
    p->n_hosts = 1;
    p->ports = ports;
    p->n_ports = 1;
    p->user = getenv("STAMPEDE_TEST_MYSQL_USER");
    p->database = getenv("STAMPEDE_TEST_MYSQL_DB");
    p->password = getenv("STAMPEDE_TEST_MYSQL_PASSWORD");
    p->plan_hash = 0;
}

long long h_query_int(struct harness *h, const char *sql)
{
    long long v = 0;
    if (mysql_query(h->db, sql) != 0) {
        fprintf(stderr, "harness: %s: %s\n", sql, mysql_error(h->db));
        return -1;
    }
    MYSQL_RES *res = mysql_store_result(h->db);
    if (res) {
        MYSQL_ROW row = mysql_fetch_row(res);
        if (row && row[0])
            v = atoll(row[0]);
        mysql_free_result(res);
    }
    return v;
}

long long h_query_rows(struct harness *h, const char *sql)
{
    if (mysql_query(h->db, sql) != 0) {
        fprintf(stderr, "harness: %s: %s\n", sql, mysql_error(h->db));
        return -1;
    }
    MYSQL_RES *res = mysql_store_result(h->db);
    long long n = res ? (long long)mysql_num_rows(res) : 0;
    if (res)
        mysql_free_result(res);
    return n;
}

uint64_t h_status(struct harness *h, const char *name)
{
    char sql[160];
    uint64_t v = UINT64_MAX;
    snprintf(sql, sizeof(sql), "SHOW GLOBAL STATUS LIKE '%s'", name);
    if (mysql_query(h->db, sql) != 0)
        return v;
    MYSQL_RES *res = mysql_store_result(h->db);
    if (res) {
        MYSQL_ROW row = mysql_fetch_row(res);
        if (row && row[1])
            v = strtoull(row[1], NULL, 10);
        mysql_free_result(res);
    }
    return v;
}

int h_sbtest_conns(struct harness *h)
{
    return (int)h_query_int(
        h, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'sbtest'");
}

int h_sbtest_conns_settle(struct harness *h, int timeout_ms)
{
    uint64_t deadline = h_now_ns() + (uint64_t)timeout_ms * 1000000u;
    int n;
    struct pr_msg m;

    while ((n = h_sbtest_conns(h)) != 0 && h_now_ns() < deadline) {
        if (h_recv(h, &m, PR_MSG_NONE, 50) == 0)
            pr_msg_clear(&m);
    }
    return n;
}
