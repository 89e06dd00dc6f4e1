/* fuzz_prom: libFuzzer target for the Prometheus endpoint's request path
 * (proto/prom/pr_prom.c): the bytes an HTTP client sends, over a real loopback
 * connection, to the real endpoint (libmicrohttpd on its own thread, as
 * both programs serve it), which holds a run's figures (one agent, one
 * kind) so that a 200 renders them. Input: the request's bytes, sent as
 * they are; the answer is read to the end (or 2 s). Beyond "no crash, no
 * leak, no UB" in stampede's handler, renderer and libmicrohttpd: a
 * request is answered with a status line or closed, never hangs. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pr_prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pr_prom *prom;
static uint16_t port;

static void start(void)
{
    static const char *names[] = {"a1"};
    static char *kinds[] = {(char *)"select"};
    struct pr_prom_info info = {"oltp_read_only", "run", "fuzz-run", "0.0", NULL};
    struct pr_error err = {0};
    for (port = 20000 + (uint16_t)(getpid() % 20000); prom == NULL; port++) {
        char hp[32];
        snprintf(hp, sizeof(hp), "127.0.0.1:%u", port);
        prom = pr_prom_start(hp, "fuzz", &info, 1, names, &err);
    }
    port--;
    pr_prom_set_kinds(prom, kinds, 1);
    pr_prom_agent_state(prom, 0, true, 0);
    pr_prom_publish(prom);
}

/* A connection to the endpoint. Closed with a reset (SO_LINGER 0): tens of
 * thousands of them a minute must not use up the loopback's ports in
 * TIME_WAIT. A refusal is retried for 1 s (the endpoint's connection limit
 * may be reached for a moment); past that, abort. */
static int connect_endpoint(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    struct linger lg = {1, 0};
    int err = 0;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < 100; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0 &&
            connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            return fd;
        err = errno;
        if (fd >= 0)
            close(fd);
        usleep(10000);
    }
    fprintf(stderr, "fuzz_prom: cannot connect to the endpoint: %s\n", strerror(err));
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (prom == NULL)
        start();
    int fd = connect_endpoint();
    (void)send(fd, data, size, MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    char buf[4096];
    struct pollfd p = {fd, POLLIN, 0};
    while (poll(&p, 1, 2000) == 1 && read(fd, buf, sizeof(buf)) > 0)
        ;
    close(fd);
    return 0;
}
