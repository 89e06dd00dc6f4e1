/* connector_floor: the cheapest client of stampede's agent's shape, what
 * any Connector/C client of that shape pays per point select
 * (agent-vs-sysbench --floor).
 *
 *   connector_floor HOST PORT USER PASSWORD DB TABLES TABLE_SIZE CONNS SECONDS
 *                   [--warmup=S]
 *
 * One thread, one raw epoll loop (level triggered, as libuv's uv_poll),
 * CONNS connections. Each does what the agent's connection does for
 * sysbench's oltp_point_select (agent/engine/ag_conn.c, ag_conn_exec.c): the
 * options MYSQL_OPT_NONBLOCK and the agent's default connect/read/write
 * timeouts, connect with CLIENT_MULTI_STATEMENTS, one prepared
 * "SELECT c FROM sbtest<t> WHERE id=?" per table; per query
 * mysql_stmt_execute_start (with the agent's own ag_pvio_skip_read: no
 * EAGAIN read right after the send), mysql_stmt_store_result_start and
 * mysql_stmt_free_result_start, each resumed with its _cont from the loop,
 * then the next query on the same connection at once (a closed loop). The
 * table and id come from one xorshift; no statistics, no histogram, no
 * timers (the library's timeout is never armed), no allocation beyond the
 * library's. Connects and prepares run before the loop, then SECONDS of
 * the loop are measured after a warm-up (default 2 s).
 *
 * Prints one line: queries and QPS in the measured window, user and
 * system microseconds per query of the thread (getrusage RUSAGE_THREAD),
 * epoll_wait and epoll_ctl calls and skipped reads per query, and
 * queries_all (every query the process ran, warm-up and drain included:
 * per-query figures of the whole process, e.g. the server's CPU, divide by
 * that). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mysql.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ag_pvio.h"

#define FLOOR_MAX_TABLES 64
#define FLOOR_MAX_EVENTS 1024

/* The agent's defaults (agent/engine/ag_engine.c) for these options. */
#define FLOOR_CONNECT_TIMEOUT_S 10
#define FLOOR_READ_TIMEOUT_S    600
#define FLOOR_WRITE_TIMEOUT_S   60

enum floor_op { FLOOR_IDLE, FLOOR_EXEC, FLOOR_STORE, FLOOR_FREE };

struct floor_conn {
    MYSQL *mysql;                       /* the library's handle */
    MYSQL_STMT *stmt[FLOOR_MAX_TABLES]; /* one prepared point select per table */
    MYSQL_BIND bind[FLOOR_MAX_TABLES];  /* each statement's one parameter: id */
    MYSQL_STMT *cur;                    /* the statement in flight */
    enum floor_op op;                   /* the library operation in flight */
    int ret_int;                        /* execute/store result */
    my_bool ret_bool;                   /* free_result result */
    long long id;                       /* the bound parameter */
    int fd;                             /* the connection's socket */
    uint32_t events;                    /* what epoll watches for it now */
};

/* The run's state: one loop, so plain file-scope counters. */
static int ep = -1;
static bool running = true; /* false: finish in-flight queries, start none */
static unsigned long long queries, epoll_ctls;
static unsigned tables;
static unsigned long long table_size;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + t.tv_usec / 1e6;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "connector_floor: %s: %s\n", what, msg);
    exit(1);
}

/* Setup only: wait with poll() for what the library asked. */
static int setup_wait(int fd, int status)
{
    struct pollfd p = {.fd = fd, .events = 0};
    if (status & MYSQL_WAIT_READ)
        p.events |= POLLIN;
    if (status & MYSQL_WAIT_WRITE)
        p.events |= POLLOUT;
    if (poll(&p, 1, 1000 * FLOOR_CONNECT_TIMEOUT_S) <= 0)
        return MYSQL_WAIT_TIMEOUT;
    return (p.revents & POLLIN ? MYSQL_WAIT_READ : 0) |
           (p.revents & (POLLOUT | POLLERR | POLLHUP) ? MYSQL_WAIT_WRITE : 0);
}

/* Connect and prepare on the non-blocking API, waiting in place. */
static void conn_setup(struct floor_conn *c, char **argv)
{
    unsigned ct = FLOOR_CONNECT_TIMEOUT_S, rt = FLOOR_READ_TIMEOUT_S, wt = FLOOR_WRITE_TIMEOUT_S;
    MYSQL *ret = NULL;

    c->mysql = mysql_init(NULL);
    if (c->mysql == NULL)
        die("mysql_init", "out of memory");
    mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, 0);
    mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
    mysql_options(c->mysql, MYSQL_OPT_READ_TIMEOUT, &rt);
    mysql_options(c->mysql, MYSQL_OPT_WRITE_TIMEOUT, &wt);
    int s = mysql_real_connect_start(&ret, c->mysql, argv[1], argv[3], argv[4], argv[5],
                                     (unsigned)atoi(argv[2]), NULL, CLIENT_MULTI_STATEMENTS);
    while (s)
        s = mysql_real_connect_cont(&ret, c->mysql, setup_wait((int)mysql_get_socket(c->mysql), s));
    if (ret == NULL)
        die("connect", mysql_error(c->mysql));
    c->fd = (int)mysql_get_socket(c->mysql);
    for (unsigned t = 0; t < tables; t++) {
        char sql[64];
        int len = snprintf(sql, sizeof sql, "SELECT c FROM sbtest%u WHERE id=?", t + 1);
        int rc = 0;
        c->stmt[t] = mysql_stmt_init(c->mysql);
        if (c->stmt[t] == NULL)
            die("mysql_stmt_init", "out of memory");
        s = mysql_stmt_prepare_start(&rc, c->stmt[t], sql, (unsigned long)len);
        while (s)
            s = mysql_stmt_prepare_cont(&rc, c->stmt[t], setup_wait(c->fd, s));
        if (rc)
            die("prepare", mysql_stmt_error(c->stmt[t]));
        c->bind[t] = (MYSQL_BIND){.buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &c->id};
        if (mysql_stmt_bind_param(c->stmt[t], &c->bind[t]))
            die("bind", mysql_stmt_error(c->stmt[t]));
    }
}

/* Start the next point select on c: the library's status. */
static int start_query(struct floor_conn *c)
{
    uint64_t r = xorshift();
    c->cur = c->stmt[r % tables];
    c->id = (long long)(1 + (r >> 16) % table_size);
    c->op = FLOOR_EXEC;
    ag_pvio_skip_read(c->mysql); /* the reply is not there yet (agent/engine/ag_pvio.h) */
    int s = mysql_stmt_execute_start(&c->ret_int, c->cur);
    ag_pvio_skip_clear();
    return s;
}

/* The operation in flight finished: the next one's status, or 0 when the
 * connection goes idle (the loop is stopping). */
static int next_op(struct floor_conn *c)
{
    switch (c->op) {
    case FLOOR_EXEC:
        if (c->ret_int)
            die("execute", mysql_stmt_error(c->cur));
        c->op = FLOOR_STORE;
        return mysql_stmt_store_result_start(&c->ret_int, c->cur);
    case FLOOR_STORE:
        if (c->ret_int)
            die("store_result", mysql_stmt_error(c->cur));
        c->op = FLOOR_FREE;
        return mysql_stmt_free_result_start(&c->ret_bool, c->cur);
    case FLOOR_FREE:
        if (c->ret_bool)
            die("free_result", mysql_stmt_error(c->cur));
        queries++;
        if (running)
            return start_query(c);
        c->op = FLOOR_IDLE;
        return 0;
    case FLOOR_IDLE:
        break;
    }
    return 0;
}

/* Run c's chain until the library waits, then watch what it waits for
 * (epoll_ctl only when that changes, as the agent's uv_poll_start). */
static void step(struct floor_conn *c, uint32_t idx, int status)
{
    while (status == 0 && c->op != FLOOR_IDLE)
        status = next_op(c);
    uint32_t ev =
        (status & MYSQL_WAIT_READ ? EPOLLIN : 0u) | (status & MYSQL_WAIT_WRITE ? EPOLLOUT : 0u);
    if (ev == c->events)
        return;
    struct epoll_event e = {.events = ev, .data.u32 = idx};
    if (epoll_ctl(ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &e) < 0)
        die("epoll_ctl", strerror(errno));
    epoll_ctls++;
    c->events = ev;
}

static int op_cont(struct floor_conn *c, int ws)
{
    switch (c->op) {
    case FLOOR_EXEC:
        return mysql_stmt_execute_cont(&c->ret_int, c->cur, ws);
    case FLOOR_STORE:
        return mysql_stmt_store_result_cont(&c->ret_int, c->cur, ws);
    case FLOOR_FREE:
        return mysql_stmt_free_result_cont(&c->ret_bool, c->cur, ws);
    case FLOOR_IDLE:
        break;
    }
    return 0;
}

/* One pass of the loop: one epoll_wait, then each ready connection's _cont. */
static void loop_once(struct floor_conn *cs)
{
    struct epoll_event evs[FLOOR_MAX_EVENTS];
    int n = epoll_wait(ep, evs, FLOOR_MAX_EVENTS, 100);
    for (int k = 0; k < n; k++) {
        uint32_t i = evs[k].data.u32;
        int ws = (evs[k].events & EPOLLIN ? MYSQL_WAIT_READ : 0) |
                 (evs[k].events & (EPOLLOUT | EPOLLERR | EPOLLHUP) ? MYSQL_WAIT_WRITE : 0);
        if (cs[i].op != FLOOR_IDLE)
            step(&cs[i], i, op_cont(&cs[i], ws));
    }
}

/* Loop until SECS seconds from now; the epoll_wait calls made. */
static unsigned long long loop_for(struct floor_conn *cs, double secs)
{
    unsigned long long waits = 0;
    double end = now_s() + secs;
    do { /* the clock every pass: a vDSO call against dozens of queries per pass */
        loop_once(cs);
        waits++;
    } while (now_s() < end);
    return waits;
}

int main(int argc, char **argv)
{
    double warmup = 2;
    if (argc == 11 && strncmp(argv[10], "--warmup=", 9) == 0)
        warmup = atof(argv[10] + 9);
    else if (argc != 10) {
        fprintf(stderr, "usage: connector_floor HOST PORT USER PASSWORD DB TABLES TABLE_SIZE "
                        "CONNS SECONDS [--warmup=S]\n");
        return 2;
    }
    tables = (unsigned)atoi(argv[6]);
    table_size = strtoull(argv[7], NULL, 10);
    int conns = atoi(argv[8]);
    double secs = atof(argv[9]);
    if (tables < 1 || tables > FLOOR_MAX_TABLES || table_size < 1 || conns < 1 || secs <= 0 ||
        warmup < 0) {
        fprintf(stderr,
                "connector_floor: TABLES 1..%d, TABLE_SIZE, CONNS and SECONDS positive, "
                "--warmup not negative\n",
                FLOOR_MAX_TABLES);
        return 2;
    }
    struct floor_conn *cs = calloc((size_t)conns, sizeof *cs);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (cs == NULL || ep < 0)
        die("setup", strerror(errno));
    for (int i = 0; i < conns; i++)
        conn_setup(&cs[i], argv);
    for (int i = 0; i < conns; i++)
        step(&cs[i], (uint32_t)i, start_query(&cs[i]));
    loop_for(cs, warmup);

    struct rusage r0, r1;
    unsigned long long q0 = queries, c0 = epoll_ctls, k0 = ag_pvio_skipped();
    getrusage(RUSAGE_THREAD, &r0);
    double t0 = now_s();
    unsigned long long waits = loop_for(cs, secs);
    double t1 = now_s();
    getrusage(RUSAGE_THREAD, &r1);
    unsigned long long q = queries - q0, ctls = epoll_ctls - c0, skipped = ag_pvio_skipped() - k0;

    running = false; /* drain: every connection ends idle, then closes */
    for (bool busy = true; busy;) {
        loop_once(cs);
        busy = false;
        for (int i = 0; i < conns && !busy; i++)
            busy = cs[i].op != FLOOR_IDLE;
    }
    for (int i = 0; i < conns; i++) {
        for (unsigned t = 0; t < tables; t++)
            mysql_stmt_close(cs[i].stmt[t]);
        mysql_close(cs[i].mysql);
    }
    double d = (double)(q ? q : 1);
    printf("conns=%d tables=%u queries=%llu queries_all=%llu secs=%.3f qps=%.0f user_us=%.3f "
           "sys_us=%.3f epoll_waits=%.4f epoll_ctls=%.4f skipped_reads=%.4f\n",
           conns, tables, q, queries, t1 - t0, (double)q / (t1 - t0),
           (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) / d * 1e6,
           (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) / d * 1e6, (double)waits / d, (double)ctls / d,
           (double)skipped / d);
    free(cs);
    close(ep);
    return 0;
}
