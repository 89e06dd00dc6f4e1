/* delayproxy: a TCP proxy that delays every byte by a fixed time in each
 * direction, standing in for netem (this kernel has none; see
 * docs/design.md §12). Test-only tool of the multihost suite.
 *
 *   delayproxy --listen=ADDR:PORT --connect=ADDR:PORT --delay-ms=N
 *              [--up-delay-ms=N] [--down-delay-ms=N] [--bind=ADDR]
 *
 * Each accepted client gets its own upstream connection. Whatever is read
 * from one side is stamped with "now + delay" and written to the other side
 * once that instant has passed, in order; an EOF travels the same way (as a
 * shutdown of the write side), so a request/response exchange through the
 * proxy takes about 2 x delay more than without it. A reset or error on either
 * side closes both at once. One thread, one epoll set, a timerfd for the next
 * release, a signalfd for SIGTERM/SIGINT. On start it prints
 * "delayproxy: listening on ADDR:PORT" (the real port when PORT was 0) on
 * stdout. Every connection and the byte counts are logged on stderr at exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define DP_CHUNK_MAX  65536      /* bytes read at once */
#define DP_QUEUE_MAX  (8u << 20) /* stop reading a side when this much waits */
#define DP_MAX_EVENTS 64

enum dp_tag { DP_TAG_LISTEN, DP_TAG_TIMER, DP_TAG_SIGNAL, DP_TAG_SIDE };

/* A run of bytes (or an EOF when eof is set) due to be written at due_ns. */
struct dp_chunk {
    struct dp_chunk *next;
    uint64_t due_ns; /* release instant, CLOCK_MONOTONIC */
    size_t len;      /* bytes in data */
    size_t off;      /* bytes already written */
    bool eof;        /* shut the write side down instead of writing */
    char data[];
};

struct dp_pair;

/* One socket of a pair and the queue of what is to be written to it. */
struct dp_side {
    enum dp_tag tag;       /* DP_TAG_SIDE: first, so epoll data can point here */
    struct dp_pair *pair;  /* owner */
    int fd;                /* the socket */
    uint32_t events;       /* epoll interest currently registered */
    bool read_eof;         /* no more reads from this socket */
    bool write_shut;       /* SHUT_WR done on this socket */
    bool blocked;          /* the socket was full: waiting for EPOLLOUT */
    struct dp_chunk *head; /* oldest chunk to write to this socket */
    struct dp_chunk *tail; /* newest */
    size_t queued;         /* bytes waiting in the queue */
    uint64_t bytes_in;     /* read from this socket */
    uint64_t bytes_out;    /* written to this socket */
};

/* A client and its upstream connection. side[0] = client, side[1] = upstream. */
struct dp_pair {
    struct dp_side side[2];
    bool connecting;       /* upstream connect() in progress */
    bool dead;             /* closed; freed after the current event batch */
    struct dp_pair *next;  /* all live pairs, or the dead list */
    struct dp_pair **prev; /* the pointer that points here (live list) */
    unsigned id;           /* connection number, for the log */
};

struct dp_proxy {
    enum dp_tag listen_tag;       /* epoll data for the listening socket */
    enum dp_tag timer_tag;        /* for the timerfd */
    enum dp_tag signal_tag;       /* for the signalfd */
    int ep, lfd, tfd, sfd;        /* epoll, listener, timer, signals */
    struct sockaddr_in upstream;  /* --connect */
    struct sockaddr_in bind_addr; /* --bind (port 0), or family 0 */
    uint64_t delay_ns[2];         /* [0] toward the client, [1] toward upstream */
    struct dp_pair *pairs;        /* live pairs */
    struct dp_pair *dead;         /* closed pairs, freed after the batch */
    unsigned accepted;            /* connections accepted so far */
    bool stop;                    /* a signal arrived */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fputs("delayproxy: out of memory\n", stderr);
        abort();
    }
    return p;
}

/* Parse "A.B.C.D:PORT" into sa. 0 or -1. */
static int parse_addr(const char *s, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof(host))
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    char *end;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || port > 65535)
        return -1;
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

/* Parse a delay in milliseconds (0..600000) into ns. 0 or -1. */
static int parse_delay(const char *s, uint64_t *out_ns)
{
    char *end;
    errno = 0;
    double ms = strtod(s, &end);
    if (errno || *end || end == s || !(ms >= 0 && ms <= 600000))
        return -1;
    *out_ns = (uint64_t)(ms * 1e6);
    return 0;
}

/* Change a side's epoll interest when it differs from what is registered. */
static void set_events(struct dp_proxy *p, struct dp_side *s, uint32_t want)
{
    if (want == s->events)
        return;
    struct epoll_event ev = {.events = want, .data.ptr = s};
    if (epoll_ctl(p->ep, EPOLL_CTL_MOD, s->fd, &ev) == 0)
        s->events = want;
}

/* Interest of side idx: read while the other side's queue has room and this
 * socket has not ended; write when its head is due but the socket was full. */
static void update_interest(struct dp_proxy *p, struct dp_pair *pr, int idx, bool want_write)
{
    struct dp_side *s = &pr->side[idx], *o = &pr->side[1 - idx];
    uint32_t want = 0;
    if (s->read_eof && s->write_shut) {
        /* Nothing more to read or write here: stop watching, or EPOLLHUP
         * would wake the loop until the other direction is finished. */
        if (s->events != UINT32_MAX)
            epoll_ctl(p->ep, EPOLL_CTL_DEL, s->fd, NULL);
        s->events = UINT32_MAX;
        return;
    }
    if (!s->read_eof && o->queued < DP_QUEUE_MAX && !(idx == 1 && pr->connecting))
        want |= EPOLLIN;
    if (want_write || (idx == 1 && pr->connecting))
        want |= EPOLLOUT;
    set_events(p, s, want);
}

static void free_queue(struct dp_side *s)
{
    while (s->head) {
        struct dp_chunk *c = s->head;
        s->head = c->next;
        free(c);
    }
    s->tail = NULL;
    s->queued = 0;
}

/* Close both sockets of a pair; abort (RST) them when hard is set. */
static void pair_close(struct dp_proxy *p, struct dp_pair *pr, bool hard, const char *why)
{
    fprintf(stderr, "delayproxy: #%u closed (%s): up %" PRIu64 " bytes, down %" PRIu64 " bytes\n",
            pr->id, why, pr->side[1].bytes_out, pr->side[0].bytes_out);
    for (int i = 0; i < 2; i++) {
        struct dp_side *s = &pr->side[i];
        if (hard) {
            struct linger lg = {.l_onoff = 1, .l_linger = 0};
            setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        }
        if (s->events != UINT32_MAX)
            epoll_ctl(p->ep, EPOLL_CTL_DEL, s->fd, NULL);
        close(s->fd);
        free_queue(s);
    }
    *pr->prev = pr->next;
    if (pr->next)
        pr->next->prev = pr->prev;
    pr->dead = true;
    pr->next = p->dead;
    p->dead = pr;
}

/* Append a chunk for side dst (len bytes of data, or an EOF). */
static void enqueue(struct dp_side *dst, const char *data, size_t len, bool eof, uint64_t due_ns)
{
    struct dp_chunk *c = xcalloc(1, sizeof(*c) + len);
    if (len)
        memcpy(c->data, data, len);
    c->len = len;
    c->eof = eof;
    c->due_ns = due_ns;
    if (dst->tail)
        dst->tail->next = c;
    else
        dst->head = c;
    dst->tail = c;
    dst->queued += len;
}

/* Read what side idx has and queue it for the other side. 0, or -1 when the
 * pair must be reset. */
static int side_read(struct dp_proxy *p, struct dp_pair *pr, int idx)
{
    static char buf[DP_CHUNK_MAX];
    struct dp_side *s = &pr->side[idx], *o = &pr->side[1 - idx];
    ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    uint64_t due = now_ns() + p->delay_ns[1 - idx];
    if (n == 0) {
        s->read_eof = true;
        enqueue(o, NULL, 0, true, due);
        return 0;
    }
    s->bytes_in += (uint64_t)n;
    enqueue(o, buf, (size_t)n, false, due);
    return 0;
}

/* Write every due chunk of side idx. Sets *blocked when the socket is full.
 * 0, or -1 when the pair must be reset. */
static int side_flush(struct dp_side *s, uint64_t now, bool *blocked)
{
    *blocked = false;
    while (s->head && s->head->due_ns <= now) {
        struct dp_chunk *c = s->head;
        if (c->eof) {
            shutdown(s->fd, SHUT_WR);
            s->write_shut = true;
        } else {
            while (c->off < c->len) {
                ssize_t n = send(s->fd, c->data + c->off, c->len - c->off, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0 && errno == EAGAIN) {
                    *blocked = true;
                    return 0;
                }
                if (n < 0)
                    return -1;
                c->off += (size_t)n;
                s->bytes_out += (uint64_t)n;
                s->queued -= (size_t)n;
            }
        }
        s->head = c->next;
        if (!s->head)
            s->tail = NULL;
        free(c);
    }
    return 0;
}

/* Flush both directions of a pair, close it when both ends are finished,
 * refresh its epoll interest. Returns false when the pair is gone. */
static bool pair_service(struct dp_proxy *p, struct dp_pair *pr, uint64_t now)
{
    for (int i = 0; i < 2; i++) {
        if (i == 1 && pr->connecting)
            continue;
        if (side_flush(&pr->side[i], now, &pr->side[i].blocked) != 0) {
            pair_close(p, pr, true, "write error");
            return false;
        }
    }
    if (pr->side[0].write_shut && pr->side[1].write_shut) {
        pair_close(p, pr, false, "both ends closed");
        return false;
    }
    update_interest(p, pr, 0, pr->side[0].blocked);
    update_interest(p, pr, 1, pr->side[1].blocked);
    return true;
}

/* The upstream connect finished: 0, or -1 (the pair is reset). */
static int upstream_connected(struct dp_pair *pr)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(pr->side[1].fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        fprintf(stderr, "delayproxy: #%u upstream connect failed: %s\n", pr->id,
                strerror(err ? err : errno));
        return -1;
    }
    pr->connecting = false;
    return 0;
}

static int nonblocking_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    return fd;
}

static int add_fd(struct dp_proxy *p, int fd, uint32_t events, void *tag)
{
    struct epoll_event ev = {.events = events, .data.ptr = tag};
    return epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Start the upstream connection for a freshly accepted client. */
static void pair_open(struct dp_proxy *p, int cfd)
{
    int ufd = nonblocking_socket();
    if (ufd < 0) {
        close(cfd);
        return;
    }
    if (p->bind_addr.sin_family &&
        bind(ufd, (struct sockaddr *)&p->bind_addr, sizeof(p->bind_addr)) != 0)
        fprintf(stderr, "delayproxy: bind upstream source: %s\n", strerror(errno));
    int rc = connect(ufd, (struct sockaddr *)&p->upstream, sizeof(p->upstream));
    if (rc != 0 && errno != EINPROGRESS) {
        fprintf(stderr, "delayproxy: connect upstream: %s\n", strerror(errno));
        close(ufd);
        close(cfd);
        return;
    }
    struct dp_pair *pr = xcalloc(1, sizeof(*pr));
    pr->id = ++p->accepted;
    pr->connecting = rc != 0;
    int fds[2] = {cfd, ufd};
    for (int i = 0; i < 2; i++) {
        pr->side[i].tag = DP_TAG_SIDE;
        pr->side[i].pair = pr;
        pr->side[i].fd = fds[i];
    }
    pr->next = p->pairs;
    if (p->pairs)
        p->pairs->prev = &pr->next;
    pr->prev = &p->pairs;
    p->pairs = pr;
    add_fd(p, cfd, 0, &pr->side[0]);
    add_fd(p, ufd, 0, &pr->side[1]);
    update_interest(p, pr, 0, false);
    update_interest(p, pr, 1, false);
}

static void accept_all(struct dp_proxy *p)
{
    for (;;) {
        int cfd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0)
            return;
        int one = 1;
        setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        pair_open(p, cfd);
    }
}

/* Arm the timer for the earliest queue head that is not waiting for
 * EPOLLOUT (0 disarms). A head already due (it became due after its pair was
 * serviced) fires at once: an absolute time in the past expires immediately. */
static void arm_timer(struct dp_proxy *p)
{
    uint64_t next = 0;
    for (struct dp_pair *pr = p->pairs; pr; pr = pr->next)
        for (int i = 0; i < 2; i++) {
            struct dp_chunk *c = pr->side[i].head;
            if (c && !pr->side[i].blocked && !(i == 1 && pr->connecting) &&
                (next == 0 || c->due_ns < next))
                next = c->due_ns;
        }
    struct itimerspec its = {0};
    if (next) {
        its.it_value.tv_sec = (time_t)(next / 1000000000u);
        its.it_value.tv_nsec = (long)(next % 1000000000u);
    }
    timerfd_settime(p->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* One readiness event on a pair's socket. */
static void side_event(struct dp_proxy *p, struct dp_side *s, uint32_t events)
{
    struct dp_pair *pr = s->pair;
    int idx = s == &pr->side[0] ? 0 : 1;
    if (pr->dead)
        return;
    if (idx == 1 && pr->connecting) {
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (upstream_connected(pr) != 0) {
            pair_close(p, pr, true, "upstream connect failed");
            return;
        }
    }
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !s->read_eof && side_read(p, pr, idx) != 0) {
        pair_close(p, pr, true, "read error");
        return;
    }
    /* Hang-up while our write side is still open: the peer reset. */
    if ((events & EPOLLERR) || ((events & EPOLLHUP) && !s->write_shut && s->read_eof)) {
        pair_close(p, pr, true, "reset");
        return;
    }
    pair_service(p, pr, now_ns());
}

/* Service every pair whose queue head is due (timer expiry). */
static void release_due(struct dp_proxy *p)
{
    uint64_t ticks;
    if (read(p->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
        return;
    uint64_t now = now_ns();
    struct dp_pair *pr = p->pairs;
    while (pr) {
        struct dp_pair *next = pr->next;
        pair_service(p, pr, now);
        pr = next;
    }
}

static int run(struct dp_proxy *p)
{
    struct epoll_event evs[DP_MAX_EVENTS];
    while (!p->stop) {
        int n = epoll_wait(p->ep, evs, DP_MAX_EVENTS, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("delayproxy: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            enum dp_tag *tag = evs[i].data.ptr;
            if (*tag == DP_TAG_LISTEN)
                accept_all(p);
            else if (*tag == DP_TAG_TIMER)
                release_due(p);
            else if (*tag == DP_TAG_SIGNAL)
                p->stop = true;
            else
                side_event(p, (struct dp_side *)tag, evs[i].events);
        }
        /* Pairs closed in this batch may still have been named by a later
         * event of it (they are marked dead): free them only now. */
        while (p->dead) {
            struct dp_pair *pr = p->dead;
            p->dead = pr->next;
            free(pr);
        }
        arm_timer(p);
    }
    while (p->pairs)
        pair_close(p, p->pairs, false, "proxy stopping");
    while (p->dead) {
        struct dp_pair *pr = p->dead;
        p->dead = pr->next;
        free(pr);
    }
    return 0;
}

static int listen_on(struct dp_proxy *p, const struct sockaddr_in *sa)
{
    p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (p->lfd < 0 || bind(p->lfd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 ||
        listen(p->lfd, 1024) != 0) {
        perror("delayproxy: listen");
        return -1;
    }
    struct sockaddr_in real;
    socklen_t len = sizeof(real);
    getsockname(p->lfd, (struct sockaddr *)&real, &len);
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &real.sin_addr, host, sizeof(host));
    printf("delayproxy: listening on %s:%u\n", host, ntohs(real.sin_port));
    fflush(stdout);
    return 0;
}

static int setup(struct dp_proxy *p, const struct sockaddr_in *listen_addr)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    p->listen_tag = DP_TAG_LISTEN;
    p->timer_tag = DP_TAG_TIMER;
    p->signal_tag = DP_TAG_SIGNAL;
    p->ep = epoll_create1(EPOLL_CLOEXEC);
    p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    p->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (p->ep < 0 || p->tfd < 0 || p->sfd < 0) {
        perror("delayproxy: setup");
        return -1;
    }
    if (listen_on(p, listen_addr) != 0)
        return -1;
    if (add_fd(p, p->lfd, EPOLLIN, &p->listen_tag) != 0 ||
        add_fd(p, p->tfd, EPOLLIN, &p->timer_tag) != 0 ||
        add_fd(p, p->sfd, EPOLLIN, &p->signal_tag) != 0) {
        perror("delayproxy: epoll_ctl");
        return -1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: delayproxy --listen=ADDR:PORT --connect=ADDR:PORT --delay-ms=N\n"
          "                  [--up-delay-ms=N] [--down-delay-ms=N] [--bind=ADDR]\n"
          "Forwards TCP with a fixed one-way delay each way (client->upstream is\n"
          "'up', upstream->client is 'down'); --delay-ms sets both.\n",
          f);
}

/* Apply one --name=value option. 0, or -1 with a message. */
static int apply_opt(struct dp_proxy *p, const char *arg, struct sockaddr_in *listen_addr,
                     bool *have_listen, bool *have_connect)
{
    const char *eq = strchr(arg, '=');
    const char *v = eq ? eq + 1 : "";
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    int rc = -1;
    if (!strncmp(arg, "--listen", nlen) && nlen == 8) {
        rc = parse_addr(v, listen_addr);
        *have_listen = true;
    } else if (!strncmp(arg, "--connect", nlen) && nlen == 9) {
        rc = parse_addr(v, &p->upstream);
        *have_connect = true;
    } else if (!strncmp(arg, "--bind", nlen) && nlen == 6) {
        char buf[80];
        snprintf(buf, sizeof(buf), "%s:0", v);
        rc = parse_addr(buf, &p->bind_addr);
    } else if (!strncmp(arg, "--delay-ms", nlen) && nlen == 10) {
        rc = parse_delay(v, &p->delay_ns[0]);
        p->delay_ns[1] = p->delay_ns[0];
    } else if (!strncmp(arg, "--up-delay-ms", nlen) && nlen == 13) {
        rc = parse_delay(v, &p->delay_ns[1]);
    } else if (!strncmp(arg, "--down-delay-ms", nlen) && nlen == 15) {
        rc = parse_delay(v, &p->delay_ns[0]);
    }
    if (rc != 0 || !eq)
        fprintf(stderr, "delayproxy: bad option '%s'\n", arg);
    return rc != 0 || !eq ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct dp_proxy p = {0};
    struct sockaddr_in listen_addr;
    bool have_listen = false, have_connect = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (apply_opt(&p, argv[i], &listen_addr, &have_listen, &have_connect) != 0) {
            usage(stderr);
            return 2;
        }
    }
    if (!have_listen || !have_connect) {
        fputs("delayproxy: --listen and --connect are required\n", stderr);
        usage(stderr);
        return 2;
    }
    if (setup(&p, &listen_addr) != 0)
        return 1;
    fprintf(stderr, "delayproxy: delay up %.3f ms, down %.3f ms\n", p.delay_ns[1] / 1e6,
            p.delay_ns[0] / 1e6);
    int rc = run(&p);
    fprintf(stderr, "delayproxy: stopped after %u connections\n", p.accepted);
    return rc;
}
