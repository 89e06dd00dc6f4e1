/* test_ag_pvio: the receive skipped after a statement's send (ag_pvio.h),
 * on Connector/C's real non-blocking path against the sandbox MariaDB
 * (STAMPEDE_TEST_MYSQL_*; exit 77 without).
 *
 * The test counts the library's recv() calls by defining recv() itself
 * (the executable's symbol wins over libc's for libmariadb's calls) and
 * passing each to the real one. It checks, for N text queries and N
 * prepared executes: without the skip, the immediate receive after the
 * send fails with EAGAIN (what the skip removes; printed); with it, every
 * _start yields MYSQL_WAIT_READ, the library makes no EAGAIN receive, one
 * receive per statement, every result is right; a reply already waiting
 * when the skipped read happens is still read; compressed connections
 * too; no connection, no skip. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <mysql.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ag_pvio.h"
#include "testlib.h"

#define N_STMTS 200

static unsigned long n_recv, n_eagain;

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    static ssize_t (*real)(int, void *, size_t, int);

    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "recv");
    ssize_t r = real(fd, buf, len, flags);
    n_recv++;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        n_eagain++;
    return r;
}

/* Wait for what status asks (poll(), 10 s) and return the events seen. */
static int wait_once(MYSQL *m, int status)
{
    struct pollfd p = {.fd = (int)mysql_get_socket(m)};

    if (status & MYSQL_WAIT_READ)
        p.events |= POLLIN;
    if (status & MYSQL_WAIT_WRITE)
        p.events |= POLLOUT;
    int n = poll(&p, 1, 10000);
    if (n <= 0)
        return MYSQL_WAIT_TIMEOUT;
    int ev = 0;
    if (p.revents & (POLLIN | POLLERR | POLLHUP))
        ev |= MYSQL_WAIT_READ;
    if (p.revents & POLLOUT)
        ev |= MYSQL_WAIT_WRITE;
    return ev;
}

static MYSQL *connect_nb(bool compress)
{
    MYSQL *m = mysql_init(NULL), *ret = NULL;
    unsigned t = 10;

    mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
    if (compress)
        mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
    mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
    mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &t);
    mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &t);
    int st = mysql_real_connect_start(
        &ret, m, getenv("STAMPEDE_TEST_MYSQL_HOST"), getenv("STAMPEDE_TEST_MYSQL_USER"),
        getenv("STAMPEDE_TEST_MYSQL_PASSWORD"), getenv("STAMPEDE_TEST_MYSQL_DB"),
        (unsigned)atoi(getenv("STAMPEDE_TEST_MYSQL_PORT")), NULL, 0);
    while (st)
        st = mysql_real_connect_cont(&ret, m, wait_once(m, st));
    if (ret == NULL) {
        fprintf(stderr, "connect: %s\n", mysql_error(m));
        exit(1);
    }
    return m;
}

/* The control run's queries make the server wait 5 ms before it answers,
 * so the library's receive right after the send cannot find the reply
 * already there (on a quiet box a bare SELECT's reply can beat it). */
static bool slow_server;

/* One text query "SELECT i" (skip: through ag_pvio), its value checked.
 * *yielded counts _start calls that returned MYSQL_WAIT_READ. */
static void text_query(MYSQL *m, long i, bool skip, unsigned *yielded, useconds_t delay_us)
{
    char sql[64];
    int err = 0;
    MYSQL_RES *res = NULL;

    int len =
        snprintf(sql, sizeof sql, slow_server ? "SELECT %ld + SLEEP(0.005)" : "SELECT %ld", i);
    if (skip)
        CHECK(ag_pvio_skip_read(m));
    int st = mysql_real_query_start(&err, m, sql, (unsigned long)len);
    ag_pvio_skip_clear();
    if (st & MYSQL_WAIT_READ)
        (*yielded)++;
    if (delay_us)
        usleep(delay_us); /* the reply is there before the first real read */
    while (st)
        st = mysql_real_query_cont(&err, m, wait_once(m, st));
    CHECK_MSG(err == 0, "%s: %s", sql, mysql_error(m));
    st = mysql_store_result_start(&res, m);
    while (st)
        st = mysql_store_result_cont(&res, m, wait_once(m, st));
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    CHECK_MSG(row && row[0] && atol(row[0]) == i, "%s gave %s", sql, row ? row[0] : "no row");
    if (res)
        mysql_free_result(res);
}

/* One prepared execute of "SELECT ?" with i, its value checked. */
static void stmt_exec(MYSQL *m, MYSQL_STMT *s, long long i, unsigned *yielded)
{
    long long in = i, out = -1;
    MYSQL_BIND bi = {.buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &in};
    MYSQL_BIND bo = {.buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &out};
    int rc = 0;
    my_bool b = 0;

    CHECK(mysql_stmt_bind_param(s, &bi) == 0);
    CHECK(ag_pvio_skip_read(m));
    int st = mysql_stmt_execute_start(&rc, s);
    ag_pvio_skip_clear();
    if (st & MYSQL_WAIT_READ)
        (*yielded)++;
    while (st)
        st = mysql_stmt_execute_cont(&rc, s, wait_once(m, st));
    CHECK_MSG(rc == 0, "execute: %s", mysql_stmt_error(s));
    st = mysql_stmt_store_result_start(&rc, s);
    while (st)
        st = mysql_stmt_store_result_cont(&rc, s, wait_once(m, st));
    CHECK(mysql_stmt_bind_result(s, &bo) == 0);
    CHECK(mysql_stmt_fetch(s) == 0);
    CHECK_MSG(out == i, "SELECT ? with %lld gave %lld", i, out);
    st = mysql_stmt_free_result_start(&b, s);
    while (st)
        st = mysql_stmt_free_result_cont(&b, s, wait_once(m, st));
}

int main(void)
{
    if (getenv("STAMPEDE_TEST_MYSQL_HOST") == NULL || getenv("STAMPEDE_TEST_MYSQL_PORT") == NULL)
        TEST_SKIP("no STAMPEDE_TEST_MYSQL_* (run through tests/run)");
    CHECK(!ag_pvio_skip_read(NULL));
    MYSQL *idle = mysql_init(NULL);
    CHECK(!ag_pvio_skip_read(idle)); /* no connection yet */
    mysql_close(idle);

    MYSQL *m = connect_nb(false);
    unsigned yielded = 0;

    /* Without the skip: the receive right after the send finds nothing. */
    unsigned long r0 = n_recv, e0 = n_eagain;
    slow_server = true;
    for (long i = 0; i < N_STMTS; i++)
        text_query(m, i, false, &yielded, 0);
    slow_server = false;
    unsigned long plain_recv = n_recv - r0, plain_eagain = n_eagain - e0;
    printf("without skip: %d queries, %lu recv (%.2f per query), %lu EAGAIN\n", N_STMTS, plain_recv,
           (double)plain_recv / N_STMTS, plain_eagain);
    CHECK_MSG(plain_eagain >= N_STMTS / 2, "%lu EAGAIN receives", plain_eagain);

    /* With it: text queries. */
    unsigned long long sk0 = ag_pvio_skipped();
    r0 = n_recv, e0 = n_eagain, yielded = 0;
    for (long i = 0; i < N_STMTS; i++)
        text_query(m, 1000 + i, true, &yielded, 0);
    unsigned long skip_recv = n_recv - r0, skip_eagain = n_eagain - e0;
    printf("with skip:    %d queries, %lu recv (%.2f per query), %lu EAGAIN, %u yields\n", N_STMTS,
           skip_recv, (double)skip_recv / N_STMTS, skip_eagain, yielded);
    CHECK_EQ_U64(ag_pvio_skipped() - sk0, N_STMTS);
    CHECK_EQ_U64(yielded, N_STMTS);
    CHECK_EQ_U64(skip_eagain, 0);
    CHECK_EQ_U64(skip_recv, N_STMTS);

    /* Prepared statements. */
    MYSQL_STMT *s = mysql_stmt_init(m);
    int rc = 0, st = mysql_stmt_prepare_start(&rc, s, "SELECT ?", 8);
    while (st)
        st = mysql_stmt_prepare_cont(&rc, s, wait_once(m, st));
    CHECK_MSG(rc == 0, "prepare: %s", mysql_stmt_error(s));
    sk0 = ag_pvio_skipped();
    r0 = n_recv, e0 = n_eagain, yielded = 0;
    for (long long i = 0; i < N_STMTS; i++)
        stmt_exec(m, s, 5000 + i, &yielded);
    printf("prepared:     %d executes, %lu recv, %lu EAGAIN, %u yields\n", N_STMTS, n_recv - r0,
           n_eagain - e0, yielded);
    CHECK_EQ_U64(ag_pvio_skipped() - sk0, N_STMTS);
    CHECK_EQ_U64(yielded, N_STMTS);
    CHECK_EQ_U64(n_eagain - e0, 0);
    CHECK_EQ_U64(n_recv - r0, N_STMTS);

    /* The reply is already waiting: the yield costs a poll, not the reply. */
    for (long i = 0; i < 5; i++)
        text_query(m, 77 + i, true, &yielded, 20000);

    mysql_stmt_close(s);
    mysql_close(m);

    /* --mysql-compression: compressed packets go through the same reads. */
    m = connect_nb(true);
    r0 = n_recv, e0 = n_eagain, yielded = 0;
    for (long i = 0; i < N_STMTS; i++)
        text_query(m, 9000 + i, true, &yielded, 0);
    printf("compressed:   %d queries, %lu recv, %lu EAGAIN, %u yields\n", N_STMTS, n_recv - r0,
           n_eagain - e0, yielded);
    CHECK_EQ_U64(yielded, N_STMTS);
    CHECK_EQ_U64(n_eagain - e0, 0);
    mysql_close(m);
    return TEST_END();
}
