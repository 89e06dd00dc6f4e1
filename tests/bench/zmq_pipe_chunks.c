/* zmq_pipe_chunks: what a ZeroMQ ROUTER's heap does as messages pass
 * through its peers' pipes (tests/bench/zmq-pipe-chunks, issue 30 §5).
 *
 * The coordinator's heap grew ~16 KB per agent in the first 1,000
 * intervals of a long run and little after. The suspect is libzmq's pipe
 * queue (yqueue): it holds messages in chunks of 256 message slots, takes a
 * second chunk when its first fills, and from then on keeps one in use and
 * one spare, so each pipe grows one chunk once, at its 256th message, and
 * never again. This program shows it apart from stampede: a ROUTER bound
 * on loopback TCP in this process, a forked child with N DEALERs sending
 * messages of a STATS-like size in lock step, and after every `step`
 * messages per peer the ROUTER side's heap in use (mallinfo2, all arenas)
 * and its growth, per peer. Prints figures, asserts nothing.
 *
 *   zmq_pipe_chunks [peers=100] [messages per peer=2048] [size=600] [step=64]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* The child: n DEALERs, each sends m messages of size bytes, one round of
 * all peers at a time, waiting for the ROUTER's go (one byte) after each
 * step so the parent reads its heap with no message in flight. */
static int run_peers(const char *ep, int n, int m, size_t size, int step)
{
    void *ctx = zmq_ctx_new();
    void **d = calloc((size_t)n, sizeof *d);
    char *buf = calloc(1, size);
    for (int i = 0; i < n; i++) {
        d[i] = zmq_socket(ctx, ZMQ_DEALER);
        int linger = 0;
        zmq_setsockopt(d[i], ZMQ_LINGER, &linger, sizeof linger);
        if (zmq_connect(d[i], ep) != 0)
            return 1;
    }
    for (int k = 0; k < m; k++) {
        for (int i = 0; i < n; i++)
            zmq_send(d[i], buf, size, 0);
        if ((k + 1) % step == 0) { /* the parent's go comes back on peer 0 */
            char go;
            if (zmq_recv(d[0], &go, 1, 0) < 0)
                return 1;
        }
    }
    for (int i = 0; i < n; i++)
        zmq_close(d[i]);
    zmq_ctx_term(ctx);
    free(buf);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int m = argc > 2 ? atoi(argv[2]) : 2048;
    size_t size = argc > 3 ? (size_t)atol(argv[3]) : 600;
    int step = argc > 4 ? atoi(argv[4]) : 64;
    char ep[64];

    if (n < 1 || m < 1 || step < 1 || size < 1) {
        fprintf(stderr, "usage: zmq_pipe_chunks [peers] [messages per peer] [size] [step]\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *r = zmq_socket(ctx, ZMQ_ROUTER);
    if (zmq_bind(r, "tcp://127.0.0.1:*") != 0) {
        fprintf(stderr, "bind: %s\n", zmq_strerror(errno));
        return 1;
    }
    size_t len = sizeof ep;
    zmq_getsockopt(r, ZMQ_LAST_ENDPOINT, ep, &len);
    pid_t pid = fork();
    if (pid == 0)
        _exit(run_peers(ep, n, m, size, step));

    char id[256], *body = malloc(size + 1);
    uint8_t *first = calloc(1, 1); /* peer 0's routing id, for the go */
    size_t first_len = 0;
    size_t base = 0, prev = 0;
    printf("# %d peers, %d messages each of %zu bytes; ROUTER side heap in use (mallinfo2)\n", n, m,
           size);
    printf("%10s %14s %14s %16s\n", "msgs/peer", "heap KB", "step KB", "step per peer KB");
    for (int k = 1; k <= m; k++) {
        for (int i = 0; i < n; i++) {
            int idl = zmq_recv(r, id, sizeof id, 0);
            if (idl < 0 || zmq_recv(r, body, size + 1, 0) < 0) {
                fprintf(stderr, "recv: %s\n", zmq_strerror(errno));
                return 1;
            }
            if (k == 1 && i == 0) {
                first = realloc(first, (size_t)idl);
                memcpy(first, id, (size_t)idl);
                first_len = (size_t)idl;
            }
        }
        if (k % step == 0) {
            size_t now = heap_in_use();
            if (k == step)
                base = prev = now;
            printf("%10d %14.1f %14.1f %16.2f\n", k, (double)now / 1024,
                   ((double)now - (double)prev) / 1024, ((double)now - (double)prev) / 1024 / n);
            fflush(stdout);
            prev = now;
            zmq_send(r, first, first_len, ZMQ_SNDMORE);
            zmq_send(r, "g", 1, 0);
        }
    }
    printf("# growth after the first %d messages per peer: %.1f KB (%.2f KB per peer)\n", step,
           ((double)prev - (double)base) / 1024, ((double)prev - (double)base) / 1024 / n);
    int st = 0;
    waitpid(pid, &st, 0);
    zmq_close(r);
    zmq_ctx_term(ctx);
    free(body);
    free(first);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
