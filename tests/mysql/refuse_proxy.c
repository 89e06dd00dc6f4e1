/* refuse_proxy: see refuse_proxy.h. */
#include "refuse_proxy.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PAIRS    64
#define COM_PREPARE  0x16
#define COM_PING     0x0e
#define ER_UNSUP_PS  1295
#define PKT_HDR      4
#define BUF_INIT_LEN 65536

/* One client and its server connection. */
struct pair {
    int cfd, sfd; /* client side, server side; -1 when unused */
    uint8_t *buf; /* client bytes not yet relayed (an incomplete packet) */
    size_t len;   /* bytes in buf */
    size_t cap;   /* its size */
};

struct refuse_proxy {
    pthread_t thread;           /* runs proxy_main */
    int lfd;                    /* listening socket */
    int stop_fd[2];             /* a byte on [1] stops the thread */
    uint16_t port;              /* where we listen */
    struct sockaddr_in backend; /* the real server */
    const char *const *refuse;  /* substrings to refuse */
    size_t nrefuse;
    struct pair pairs[MAX_PAIRS];
    atomic_uint_fast64_t refused; /* PREPAREs answered with 1295 */
    atomic_bool refuse_ping;      /* answer COM_PING with an error too */
    atomic_uint_fast64_t pings;   /* COM_PINGs so answered */
};

static int write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void pair_close(struct pair *pr)
{
    if (pr->cfd >= 0)
        close(pr->cfd);
    if (pr->sfd >= 0)
        close(pr->sfd);
    free(pr->buf);
    memset(pr, 0, sizeof(*pr));
    pr->cfd = pr->sfd = -1;
}

static bool is_refused(const refuse_proxy *p, const uint8_t *sql, size_t len)
{
    for (size_t i = 0; i < p->nrefuse; i++) {
        size_t n = strlen(p->refuse[i]);
        for (size_t at = 0; n <= len && at <= len - n; at++)
            if (memcmp(sql + at, p->refuse[i], n) == 0)
                return true;
    }
    return false;
}

/* The ERR packet a server sends for a statement it cannot prepare. */
static int send_unsupported(int cfd)
{
    static const char msg[] = "This command is not supported in the prepared statement "
                              "protocol yet";
    uint8_t pkt[PKT_HDR + 9 + sizeof(msg)];
    size_t len = 0;
    uint8_t *pl = pkt + PKT_HDR;

    pl[len++] = 0xff;
    pl[len++] = ER_UNSUP_PS & 0xff;
    pl[len++] = ER_UNSUP_PS >> 8;
    memcpy(pl + len, "#HY000", 6);
    len += 6;
    memcpy(pl + len, msg, sizeof(msg) - 1);
    len += sizeof(msg) - 1;
    pkt[0] = (uint8_t)(len & 0xff);
    pkt[1] = (uint8_t)(len >> 8);
    pkt[2] = 0;
    pkt[3] = 1; /* the reply to a command packet (seq 0) */
    return write_all(cfd, pkt, PKT_HDR + len);
}

/* Relay the complete packets in pr->buf to the server, answering refused
 * PREPAREs ourselves; keep a trailing partial packet. */
static int relay_client(refuse_proxy *p, struct pair *pr)
{
    size_t off = 0;

    while (pr->len - off >= PKT_HDR) {
        const uint8_t *h = pr->buf + off;
        size_t plen = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16;
        if (pr->len - off < PKT_HDR + plen)
            break;
        const uint8_t *pl = h + PKT_HDR;
        int rc;
        if (h[3] == 0 && plen > 0 && pl[0] == COM_PREPARE && is_refused(p, pl + 1, plen - 1)) {
            atomic_fetch_add(&p->refused, 1);
            rc = send_unsupported(pr->cfd);
        } else if (h[3] == 0 && plen == 1 && pl[0] == COM_PING && atomic_load(&p->refuse_ping)) {
            atomic_fetch_add(&p->pings, 1);
            rc = send_unsupported(pr->cfd);
        } else {
            rc = write_all(pr->sfd, h, PKT_HDR + plen);
        }
        if (rc < 0)
            return -1;
        off += PKT_HDR + plen;
    }
    memmove(pr->buf, pr->buf + off, pr->len - off);
    pr->len -= off;
    return 0;
}

static int on_client(refuse_proxy *p, struct pair *pr)
{
    if (pr->cap - pr->len < 4096) {
        pr->cap *= 2;
        pr->buf = realloc(pr->buf, pr->cap);
        if (pr->buf == NULL)
            abort();
    }
    ssize_t n = read(pr->cfd, pr->buf + pr->len, pr->cap - pr->len);
    if (n <= 0)
        return -1;
    pr->len += (size_t)n;
    return relay_client(p, pr);
}

static int on_server(struct pair *pr)
{
    uint8_t buf[65536];
    ssize_t n = read(pr->sfd, buf, sizeof(buf));
    return n <= 0 ? -1 : write_all(pr->cfd, buf, (size_t)n);
}

static void on_accept(refuse_proxy *p)
{
    int cfd = accept(p->lfd, NULL, NULL);
    if (cfd < 0)
        return;
    int sfd = socket(AF_INET, SOCK_STREAM, 0);
    if (sfd < 0 || connect(sfd, (struct sockaddr *)&p->backend, sizeof(p->backend)) != 0) {
        close(cfd);
        if (sfd >= 0)
            close(sfd);
        return;
    }
    for (size_t i = 0; i < MAX_PAIRS; i++) {
        if (p->pairs[i].cfd < 0) {
            p->pairs[i].cfd = cfd;
            p->pairs[i].sfd = sfd;
            p->pairs[i].cap = BUF_INIT_LEN;
            p->pairs[i].buf = malloc(BUF_INIT_LEN);
            if (p->pairs[i].buf == NULL)
                abort();
            return;
        }
    }
    close(cfd); /* full */
    close(sfd);
}

static void *proxy_main(void *arg)
{
    refuse_proxy *p = arg;
    struct pollfd fds[2 + 2 * MAX_PAIRS];

    for (;;) {
        size_t n = 0;
        fds[n++] = (struct pollfd){.fd = p->stop_fd[0], .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = p->lfd, .events = POLLIN};
        for (size_t i = 0; i < MAX_PAIRS; i++) {
            fds[n++] = (struct pollfd){.fd = p->pairs[i].cfd, .events = POLLIN};
            fds[n++] = (struct pollfd){.fd = p->pairs[i].sfd, .events = POLLIN};
        }
        if (poll(fds, n, -1) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            break;
        if (fds[1].revents & POLLIN)
            on_accept(p);
        for (size_t i = 0; i < MAX_PAIRS; i++) {
            struct pair *pr = &p->pairs[i];
            short cev = fds[2 + 2 * i].revents, sev = fds[3 + 2 * i].revents;
            if (pr->cfd < 0)
                continue;
            if (((cev & (POLLIN | POLLHUP | POLLERR)) && on_client(p, pr) < 0) ||
                ((sev & (POLLIN | POLLHUP | POLLERR)) && on_server(pr) < 0))
                pair_close(pr);
        }
    }
    return NULL;
}

refuse_proxy *refuse_proxy_start(const char *host, uint16_t port, const char *const *refuse,
                                 size_t n)
{
    refuse_proxy *p = calloc(1, sizeof(*p));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);

    if (p == NULL)
        abort();
    for (size_t i = 0; i < MAX_PAIRS; i++)
        p->pairs[i].cfd = p->pairs[i].sfd = -1;
    p->refuse = refuse;
    p->nrefuse = n;
    p->backend.sin_family = AF_INET;
    p->backend.sin_port = htons(port);
    p->lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (inet_pton(AF_INET, host, &p->backend.sin_addr) != 1 || p->lfd < 0 ||
        bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(p->lfd, 64) != 0 ||
        getsockname(p->lfd, (struct sockaddr *)&a, &alen) != 0 || pipe(p->stop_fd) != 0) {
        fprintf(stderr, "refuse_proxy: cannot listen (backend %s:%u): %s\n", host, port,
                strerror(errno));
        if (p->lfd >= 0)
            close(p->lfd);
        free(p);
        return NULL;
    }
    p->port = ntohs(a.sin_port);
    if (pthread_create(&p->thread, NULL, proxy_main, p) != 0)
        abort();
    return p;
}

uint16_t refuse_proxy_port(const refuse_proxy *p)
{
    return p->port;
}

void refuse_proxy_refuse_pings(refuse_proxy *p, bool on)
{
    atomic_store(&p->refuse_ping, on);
}

uint64_t refuse_proxy_pings_refused(refuse_proxy *p)
{
    return atomic_load(&p->pings);
}

uint64_t refuse_proxy_refused(refuse_proxy *p)
{
    return atomic_load(&p->refused);
}

void refuse_proxy_stop(refuse_proxy **pp)
{
    refuse_proxy *p = *pp;
    char b = 1;

    if (p == NULL)
        return;
    if (write(p->stop_fd[1], &b, 1) != 1)
        abort();
    pthread_join(p->thread, NULL);
    for (size_t i = 0; i < MAX_PAIRS; i++)
        pair_close(&p->pairs[i]);
    close(p->lfd);
    close(p->stop_fd[0]);
    close(p->stop_fd[1]);
    free(p);
    *pp = NULL;
}
