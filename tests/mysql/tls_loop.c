/* tls_loop: many TLS connects on one loop while a 1 ms timer measures how
 * late the loop runs it (its lag). Run by tests/e2e/test_tls.py against its
 * TLS sandbox:
 *
 *   tls_loop HOST PORT CA N [MODE]     (MYSQL_PWD: sbtest's password)
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "ag_conn.h"
#include "ag_tls.h"
#include "testlib.h"

struct state {
    uv_loop_t loop;
    uv_timer_t tick;
    uint64_t expect_ns; /* when the tick is due */
    uint64_t lag_max_ns;
    uint64_t ticks;
    uint64_t t0_ns;
    uint64_t opened_ns; /* when the last open completed */
    size_t n, opened, failed, ciphers, done;
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
        call->stmt = -1;
        call->text = cipher_q;
        call->text_len = strlen(cipher_q);
        call->kind = "cipher";
        call->want = AG_WANT_RESULT;
        if (ag_conn_exec(c) < 0)
            finish_one(s);
        return;
    }
    const struct ag_result *r = ag_conn_result(c);
    if (st == AG_CONN_OK && r->ncols == 1 && r->col[0] && r->col[0][0])
        s->ciphers++;
    else if (s->ciphers + 3 > s->done)
        fprintf(stderr, "cipher: status %d, %u %s\n", (int)st, r->err_no, r->errmsg);
    finish_one(s);
}

int main(int argc, char **argv)
{
    if (argc < 5)
        TEST_SKIP("usage: tls_loop HOST PORT CA N [verify_ca|verify_identity]");
    struct state s = {0};
    s.n = (size_t)strtoul(argv[4], NULL, 10);
    const char *mode = argc > 5 ? argv[5] : "verify_ca";
    struct ag_tls_opts tls = {0};
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

    uv_loop_init(&s.loop);
    uv_timer_init(&s.loop, &s.tick);
    s.tick.data = &s;
    s.conns = calloc(s.n, sizeof *s.conns);
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
    CHECK_MSG(lag_ms < total_ms / 2, "loop lag %.1f ms >= half the %.1f ms of connects", lag_ms,
              total_ms);
    for (size_t i = 0; i < s.n; i++)
        ag_conn_destroy(&s.conns[i]);
    uv_close((uv_handle_t *)&s.tick, NULL);
    uv_run(&s.loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&s.loop) == 0);
    free(s.conns);
    return TEST_END();
}
