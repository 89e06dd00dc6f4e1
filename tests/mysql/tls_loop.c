/* tls_loop: many TLS connects on one loop while a 1 ms timer measures how
 * late the loop runs it (its lag). Run by tests/e2e/test_tls.py against its
 * TLS sandbox:
 *
 *   tls_loop HOST PORT CA N [MODE [Q]]     (MYSQL_PWD: sbtest's password)
 *
 * MODE is verify_ca (default) or verify_identity (HOST is then a name the
 * library resolves itself, see ag_tlsconn.h). Opens N ag_conn connections
 * as user sbtest with TLS checked against CA, all at once, then asks each
 * for its session's Ssl_cipher over the non-blocking path. Prints the
 * figures; passes when every connection opened, every session shows a
 * cipher and the loop's worst lag stayed under half the time all the
 * connects took: a handshake blocking the loop makes the lag about that
 * whole time (200 connects: 1165 ms of 1211 ms), as the N handshakes run
 * one after the other inside it; off the loop, the lag is the box's
 * scheduling noise (tens of ms when loaded). Give N large enough (200) for
 * the whole to dwarf that noise.
 *
 * With Q > 0 each connection then runs Q more queries (SELECT 1), and the
 * test counts the loop thread's read(2) calls on sockets, and those that
 * fail with EAGAIN (OpenSSL reads the socket with read(); this
 * executable's read() wins over libc's for libcrypto's calls and passes
 * each to the real one). Measured, 200 connections x 20 queries: without
 * the read skip (ag_pvio.h) 3.008 reads per query, 0.908 of them EAGAIN;
 * with the skip 2.099 and 0.000; with the skip and read-ahead 1.050 and
 * 0.000. The test wants under 0.2 EAGAIN reads, at least 0.9 skipped reads
 * (ag_pvio_skipped) and under 1.5 reads per query, and prints all three.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "ag_conn.h"
#include "ag_pvio.h"
#include "pr_tls.h"
#include "testlib.h"

/* read(2) calls on sockets made by the loop's thread (not the pool threads'
 * handshakes), and of those the ones that failed with EAGAIN. */
static _Atomic unsigned long sock_reads, sock_eagain;
static pthread_t loop_thread;

ssize_t read(int fd, void *buf, size_t len)
{
    typedef ssize_t (*read_fn)(int, void *, size_t);
    static _Atomic(read_fn) real_read; /* the pool threads read too */

    read_fn real = atomic_load_explicit(&real_read, memory_order_acquire);
    if (real == NULL) {
        *(void **)&real = dlsym(RTLD_NEXT, "read");
        atomic_store_explicit(&real_read, real, memory_order_release);
    }
    ssize_t r = real(fd, buf, len);
    int e = errno;
    struct stat st;
    if (pthread_equal(pthread_self(), loop_thread) && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) {
        sock_reads++;
        if (r < 0 && (e == EAGAIN || e == EWOULDBLOCK))
            sock_eagain++;
    }
    errno = e;
    return r;
}

struct state {
    uv_loop_t loop;
    uv_timer_t tick;
    uint64_t expect_ns; /* when the tick is due */
    uint64_t lag_max_ns;
    uint64_t ticks;
    uint64_t t0_ns;
    uint64_t opened_ns; /* when the last open completed */
    size_t n, opened, failed, ciphers, done;
    size_t q_each;         /* queries after the cipher, per connection */
    size_t q_done, q_bad;  /* of those: completed, wrong or failed */
    size_t *q_sent;        /* per connection: its queries so far */
    unsigned long eagain0; /* sock_eagain when the first query started */
    unsigned long reads0;  /* sock_reads then */
    unsigned long long skipped0;
    ag_conn **conns;
};

#define TICK_MS 1

static void tick_cb(uv_timer_t *t)
{
    struct state *s = t->data;
    uint64_t now = uv_hrtime();

    if (now > s->expect_ns && now - s->expect_ns > s->lag_max_ns)
        s->lag_max_ns = now - s->expect_ns;
    s->ticks++;
    s->expect_ns = now + TICK_MS * 1000000ULL;
}

static const char cipher_q[] = "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS "
                               "WHERE VARIABLE_NAME='Ssl_cipher'";
static const char one_q[] = "SELECT 1";

static size_t conn_index(const struct state *s, const ag_conn *c)
{
    size_t i = 0;
    while (i + 1 < s->n && s->conns[i] != c)
        i++;
    return i;
}

/* Send c's next query (text q); false when it could not start. */
static bool send_q(ag_conn *c, const char *q, const char *kind)
{
    struct ag_call *call = ag_conn_call(c);
    call->stmt = -1;
    call->text = q;
    call->text_len = strlen(q);
    call->kind = kind;
    call->want = AG_WANT_RESULT;
    return ag_conn_exec(c) == 0;
}

static void finish_one(struct state *s)
{
    if (++s->done == s->n) {
        uv_timer_stop(&s->tick);
        uv_stop(&s->loop); /* idle connections keep their polls */
    }
}

static void conn_cb(ag_conn *c, enum ag_conn_status st, void *data)
{
    struct state *s = data;

    if (!ag_conn_is_open(c) && st != AG_CONN_OK) { /* the open failed */
        if (s->failed++ < 3)
            fprintf(stderr, "open: %s: %u %s\n", ag_conn_error(c)->what, ag_conn_error(c)->err_no,
                    ag_conn_error(c)->msg);
        finish_one(s);
        return;
    }
    struct ag_call *call = ag_conn_call(c);
    if (call->text == NULL) { /* the open completed: ask for the cipher */
        s->opened++;
        s->opened_ns = uv_hrtime();
        if (!send_q(c, cipher_q, "cipher"))
            finish_one(s);
        return;
    }
    const struct ag_result *r = ag_conn_result(c);
    if (call->text == one_q) { /* one of the Q queries */
        size_t i = conn_index(s, c);
        if (st != AG_CONN_OK || r->ncols != 1 || !r->col[0] || strcmp(r->col[0], "1") != 0)
            s->q_bad++;
        s->q_done++;
        if (st == AG_CONN_OK && ++s->q_sent[i] < s->q_each && send_q(c, one_q, "one"))
            return;
        finish_one(s);
        return;
    }
    if (st == AG_CONN_OK && r->ncols == 1 && r->col[0] && r->col[0][0])
        s->ciphers++;
    else if (s->ciphers + 3 > s->done)
        fprintf(stderr, "cipher: status %d, %u %s\n", (int)st, r->err_no, r->errmsg);
    if (s->q_each > 0 && st == AG_CONN_OK) {
        if (s->q_done == 0 && s->eagain0 == 0) { /* counted from the first query */
            s->eagain0 = sock_eagain;
            s->reads0 = sock_reads;
            s->skipped0 = ag_pvio_skipped();
        }
        if (send_q(c, one_q, "one"))
            return;
    }
    finish_one(s);
}

int main(int argc, char **argv)
{
    if (argc < 5)
        TEST_SKIP("usage: tls_loop HOST PORT CA N [verify_ca|verify_identity]");
    struct state s = {0};
    s.n = (size_t)strtoul(argv[4], NULL, 10);
    const char *mode = argc > 5 ? argv[5] : "verify_ca";
    s.q_each = argc > 6 ? (size_t)strtoul(argv[6], NULL, 10) : 0;
    struct pr_tls_opts tls = {0};
    if (pr_ssl_mode_parse(mode, &tls.mode) < 0)
        TEST_SKIP("unknown mode");
    tls.ca = argv[3];
    struct pr_ignore_errors ignore = {0};
    struct ag_conn_target target = {
        .host = argv[1], .port = (unsigned)strtoul(argv[2], NULL, 10), .name = argv[1]};
    struct ag_conn_opts opts = {.user = "sbtest",
                                .password = getenv("MYSQL_PWD"),
                                .db = "sbtest",
                                .connect_timeout_s = 30,
                                .read_timeout_s = 30,
                                .write_timeout_s = 30,
                                .ignore = &ignore,
                                .tls = &tls};

    loop_thread = pthread_self();
    uv_loop_init(&s.loop);
    uv_timer_init(&s.loop, &s.tick);
    s.tick.data = &s;
    s.conns = calloc(s.n, sizeof *s.conns);
    s.q_sent = calloc(s.n, sizeof *s.q_sent);
    s.t0_ns = uv_hrtime();
    s.expect_ns = s.t0_ns + TICK_MS * 1000000ULL;
    uv_timer_start(&s.tick, tick_cb, TICK_MS, TICK_MS);
    for (size_t i = 0; i < s.n; i++) {
        s.conns[i] = ag_conn_new(&s.loop, &target, &opts, NULL, conn_cb, &s);
        CHECK(ag_conn_open(s.conns[i]) == 0);
    }
    uv_run(&s.loop, UV_RUN_DEFAULT);
    double total_ms = (double)(s.opened_ns - s.t0_ns) / 1e6;
    double lag_ms = (double)s.lag_max_ns / 1e6;
    printf("%s: %zu TLS connects on one loop: %zu opened, %zu failed, %zu with an Ssl_cipher; "
           "all opened in %.1f ms; loop lag max %.1f ms over %llu ticks of %d ms\n",
           mode, s.n, s.opened, s.failed, s.ciphers, total_ms, lag_ms, (unsigned long long)s.ticks,
           TICK_MS);
    CHECK_MSG(s.opened == s.n && s.ciphers == s.n, "%zu opened, %zu ciphers of %zu", s.opened,
              s.ciphers, s.n);
    if (s.q_each > 0) {
        double per_q = s.q_done ? (double)(sock_eagain - s.eagain0) / (double)s.q_done : 99;
        double reads_q = s.q_done ? (double)(sock_reads - s.reads0) / (double)s.q_done : 99;
        double skip_q = s.q_done ? (double)(ag_pvio_skipped() - s.skipped0) / (double)s.q_done : 0;
        printf("%zu queries over TLS (%zu wrong): %.3f socket reads per query, %.3f of them "
               "EAGAIN; %.3f reads skipped per query\n",
               s.q_done, s.q_bad, reads_q, per_q, skip_q);
        CHECK_MSG(s.q_done == s.q_each * s.n && s.q_bad == 0, "%zu of %zu queries, %zu wrong",
                  s.q_done, s.q_each * s.n, s.q_bad);
        CHECK_MSG(per_q < 0.2, "%.3f EAGAIN reads per TLS query (the skip removes ~1)", per_q);
        CHECK_MSG(skip_q >= 0.9, "%.3f skipped reads per TLS query", skip_q);
        CHECK_MSG(reads_q < 1.5, "%.3f socket reads per TLS query (read ahead: ~1; without: 2)",
                  reads_q);
    }
    CHECK_MSG(lag_ms < total_ms / 2, "loop lag %.1f ms >= half the %.1f ms of connects", lag_ms,
              total_ms);
    for (size_t i = 0; i < s.n; i++)
        ag_conn_destroy(&s.conns[i]);
    uv_close((uv_handle_t *)&s.tick, NULL);
    uv_run(&s.loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&s.loop) == 0);
    free(s.conns);
    free(s.q_sent);
    return TEST_END();
}
