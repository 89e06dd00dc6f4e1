/* loopback_floor: what the kernel alone charges a client per query on this
 * machine, for the pattern every MySQL client here pays: per query one
 * send of a small request over loopback TCP that wakes a server thread
 * blocked in recv, and one receive of its small reply.
 *
 *   loopback_floor CONNS SECONDS [SERVER_CPU CLIENT_CPU]
 *                  [--service-us=US] [--client=epoll|threads|both]
 *
 * The "server" is one thread per connection (as mariadbd's default
 * thread-per-connection), each a blocking recv() of the request and a
 * send() of a 100-byte reply, pinned to SERVER_CPU. With --service-us=US
 * each request first costs the server US microseconds of its own CPU
 * (busy, measured on the thread's CPU clock): mariadbd's CPU per
 * statement, so that with every server thread on one CPU the server is
 * the bottleneck, as against mariadbd, and the client sleeps and wakes
 * once per reply (or a few) instead of always finding one ready.
 *
 * Clients (--client, default epoll), on CLIENT_CPU:
 *   epoll    one thread with an epoll loop over CONNS sockets (stampede's
 *            agent: one event loop): on readable, one recv() of the reply
 *            and one send() of the next request; no protocol, no parsing,
 *            no allocation.
 *   threads  CONNS threads, each a blocking send() and recv() per query
 *            (tpcc_start: one thread per connection, libmariadb's blocking
 *            calls).
 *   both     epoll, then threads, on fresh connections.
 * Prints one line per client: user and system microseconds per query of
 * the client threads (getrusage RUSAGE_THREAD over the measured window,
 * summed over the threads), system calls per query, epoll_wait calls per
 * query (epoll) and QPS: a lower bound for any client of that shape. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define REQ_LEN   64
#define REPLY_LEN 100

static int server_cpu = -1, client_cpu = -1;
static double service_us; /* server CPU per request (--service-us) */

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + t.tv_usec / 1e6;
}

/* Burn us microseconds of this thread's own CPU time. */
static void serve_busy(double us)
{
    if (us <= 0)
        return;
    double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + us / 1e6;
    while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
        ;
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[REQ_LEN], reply[REPLY_LEN];

    pin(server_cpu);
    memset(reply, 'r', sizeof reply);
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        serve_busy(service_us);
        if (send(fd, reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply)
            break;
    }
    close(fd);
    return NULL;
}

/* CONNS connected client sockets, each served by its own server thread. */
static int connect_all(int ls, const struct sockaddr_in *a, int conns, int *fds)
{
    int one = 1;
    for (int i = 0; i < conns; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fds[i], (const struct sockaddr *)a, sizeof *a) < 0) {
            perror("loopback_floor: connect");
            return -1;
        }
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int s = accept(ls, NULL, NULL);
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 64 * 1024);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &at, serve, (void *)(intptr_t)s) != 0) {
            fprintf(stderr, "loopback_floor: cannot start server thread %d\n", i);
            return -1;
        }
    }
    return 0;
}

static void report(const char *client, int conns, unsigned long long queries, double secs,
                   double user_s, double sys_s, double syscalls, double waits)
{
    double q = (double)(queries ? queries : 1);
    printf("client=%s conns=%d service_us=%.1f queries=%llu qps=%.0f user_us=%.3f sys_us=%.3f "
           "syscalls=%.3f epoll_waits=%.4f\n",
           client, conns, service_us, queries, queries / secs, user_s / q * 1e6, sys_s / q * 1e6,
           syscalls / q, waits / q);
    fflush(stdout);
}

static void run_epoll(int conns, int *fds, double secs)
{
    int ep = epoll_create1(0);
    for (int i = 0; i < conns; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
    }
    pin(client_cpu);
    char req[REQ_LEN], buf[REPLY_LEN * 4];
    memset(req, 'q', sizeof req);
    for (int i = 0; i < conns; i++)
        send(fds[i], req, sizeof req, MSG_NOSIGNAL);
    struct rusage r0, r1;
    unsigned long long queries = 0, waits = 0;
    struct epoll_event evs[1024];
    getrusage(RUSAGE_THREAD, &r0);
    double t0 = now_s(), t1 = t0;
    while (t1 - t0 < secs) {
        int n = epoll_wait(ep, evs, 1024, 1000);
        waits++;
        for (int k = 0; k < n; k++) {
            int fd = fds[evs[k].data.u32];
            if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0)
                continue;
            send(fd, req, sizeof req, MSG_NOSIGNAL);
            queries++;
        }
        if ((waits & 63) == 0 || n == 0)
            t1 = now_s();
    }
    t1 = now_s();
    getrusage(RUSAGE_THREAD, &r1);
    report("epoll", conns, queries, t1 - t0, tv_s(r1.ru_utime) - tv_s(r0.ru_utime),
           tv_s(r1.ru_stime) - tv_s(r0.ru_stime), 2.0 * queries + waits, (double)waits);
    close(ep);
}

/* The thread client: one blocking connection per thread. */
struct tclient {
    int fd;
    pthread_barrier_t *start;
    atomic_bool *stop;
    unsigned long long queries;
    double user_s, sys_s;
};

static void *tclient_main(void *arg)
{
    struct tclient *c = arg;
    char req[REQ_LEN], buf[REPLY_LEN];
    struct rusage r0, r1;

    pin(client_cpu);
    memset(req, 'q', sizeof req);
    pthread_barrier_wait(c->start);
    getrusage(RUSAGE_THREAD, &r0);
    while (!atomic_load_explicit(c->stop, memory_order_relaxed)) {
        if (send(c->fd, req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req)
            break;
        size_t got = 0;
        while (got < sizeof buf) { /* the whole reply, as mysql_real_query reads it */
            ssize_t n = recv(c->fd, buf + got, sizeof buf - got, 0);
            if (n <= 0)
                goto out;
            got += (size_t)n;
        }
        c->queries++;
    }
out:
    getrusage(RUSAGE_THREAD, &r1);
    c->user_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
    c->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
    return NULL;
}

static int run_threads(int conns, int *fds, double secs)
{
    struct tclient *cs = calloc((size_t)conns, sizeof *cs);
    pthread_t *ts = calloc((size_t)conns, sizeof *ts);
    pthread_barrier_t start;
    atomic_bool stop = false;

    pthread_barrier_init(&start, NULL, (unsigned)conns + 1);
    for (int i = 0; i < conns; i++) {
        cs[i] = (struct tclient){.fd = fds[i], .start = &start, .stop = &stop};
        if (pthread_create(&ts[i], NULL, tclient_main, &cs[i]) != 0) {
            fprintf(stderr, "loopback_floor: cannot start client thread %d\n", i);
            return -1;
        }
    }
    pthread_barrier_wait(&start);
    double t0 = now_s();
    struct timespec d = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    nanosleep(&d, NULL);
    atomic_store(&stop, true);
    double t1 = now_s();
    unsigned long long queries = 0;
    double user_s = 0, sys_s = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(ts[i], NULL);
        queries += cs[i].queries;
        user_s += cs[i].user_s;
        sys_s += cs[i].sys_s;
    }
    report("threads", conns, queries, t1 - t0, user_s, sys_s, 2.0 * queries, 0);
    free(cs);
    free(ts);
    return 0;
}

int main(int argc, char **argv)
{
    const char *pos[4] = {0}, *client = "epoll";
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--service-us=", 13) == 0)
            service_us = atof(argv[i] + 13);
        else if (strncmp(argv[i], "--client=", 9) == 0)
            client = argv[i] + 9;
        else if (npos < 4)
            pos[npos++] = argv[i];
    }
    if (npos < 2 ||
        (strcmp(client, "epoll") && strcmp(client, "threads") && strcmp(client, "both"))) {
        fprintf(stderr, "usage: loopback_floor CONNS SECONDS [SERVER_CPU CLIENT_CPU] "
                        "[--service-us=US] [--client=epoll|threads|both]\n");
        return 2;
    }
    int conns = atoi(pos[0]);
    double secs = atof(pos[1]);
    server_cpu = npos > 2 ? atoi(pos[2]) : -1;
    client_cpu = npos > 3 ? atoi(pos[3]) : -1;
    if (conns <= 0 || secs <= 0 || service_us < 0) {
        fprintf(stderr, "loopback_floor: CONNS and SECONDS must be positive, --service-us not "
                        "negative\n");
        return 2;
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 4096) < 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) < 0) {
        perror("loopback_floor: listen");
        return 1;
    }
    int *fds = calloc((size_t)conns, sizeof *fds);
    bool both = strcmp(client, "both") == 0;
    if (both || strcmp(client, "epoll") == 0) {
        if (connect_all(ls, &a, conns, fds) < 0)
            return 1;
        run_epoll(conns, fds, secs);
        for (int i = 0; i < conns; i++)
            shutdown(fds[i], SHUT_RDWR), close(fds[i]);
    }
    if (both || strcmp(client, "threads") == 0) {
        if (connect_all(ls, &a, conns, fds) < 0)
            return 1;
        if (run_threads(conns, fds, secs) < 0)
            return 1;
        for (int i = 0; i < conns; i++)
            shutdown(fds[i], SHUT_RDWR), close(fds[i]);
    }
    free(fds);
    return 0;
}
