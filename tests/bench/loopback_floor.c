/* loopback_floor: what the kernel alone charges a client per query on this
 * machine, for the pattern every MySQL client here pays: per query one
 * send of a small request over loopback TCP that wakes a server thread
 * blocked in recv, and one receive of its small reply.
 *
 *   loopback_floor CONNS SECONDS [SERVER_CPU CLIENT_CPU]
 *
 * The "server" is one thread per connection (as mariadbd's default
 * thread-per-connection), each a blocking recv() of the request and a
 * send() of a 100-byte reply, pinned to SERVER_CPU. The client is one
 * thread on CLIENT_CPU with an epoll loop over CONNS sockets: on readable,
 * one recv() of the reply and one send() of the next request; no
 * protocol, no parsing, no allocation. Prints user and system
 * microseconds per query of the client thread (getrusage RUSAGE_THREAD),
 * system calls per query and QPS: a lower bound for any client doing one
 * send and one receive per query through epoll. */
#include <errno.h>
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

static int server_cpu = -1;

static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
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
        if (send(fd, reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply)
            break;
    }
    close(fd);
    return NULL;
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: loopback_floor CONNS SECONDS [SERVER_CPU CLIENT_CPU]\n");
        return 2;
    }
    int conns = atoi(argv[1]);
    double secs = atof(argv[2]);
    server_cpu = argc > 3 ? atoi(argv[3]) : -1;
    int client_cpu = argc > 4 ? atoi(argv[4]) : -1;
    if (conns <= 0 || secs <= 0) {
        fprintf(stderr, "loopback_floor: CONNS and SECONDS must be positive\n");
        return 2;
    }
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 4096) < 0 ||
        getsockname(ls, (struct sockaddr *)&a, &al) < 0) {
        perror("loopback_floor: listen");
        return 1;
    }
    int *fds = calloc((size_t)conns, sizeof *fds);
    int ep = epoll_create1(0);
    for (int i = 0; i < conns; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fds[i], (struct sockaddr *)&a, sizeof a) < 0) {
            perror("loopback_floor: connect");
            return 1;
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
            return 1;
        }
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
    double q = (double)(queries ? queries : 1);
    printf("conns=%d queries=%llu qps=%.0f user_us=%.3f sys_us=%.3f syscalls=%.3f "
           "epoll_waits=%.4f\n",
           conns, queries, queries / (t1 - t0), (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) / q * 1e6,
           (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) / q * 1e6, (2.0 * queries + waits) / q,
           waits / q);
    for (int i = 0; i < conns; i++)
        shutdown(fds[i], SHUT_RDWR);
    return 0;
}
