/* ag_tlsconn: the connect of a TLS connection, run on libuv's thread pool
 * so that the loop never waits for a handshake.
 *
 * Why not on the loop: Connector/C 3.3 (Debian's libmariadb3, OpenSSL 3)
 * runs the TLS handshake outside its non-blocking machinery. In
 * mysql_real_connect_start/_cont, pvio_socket_connect switches the socket
 * to blocking once the TCP connect is done (pvio_socket_blocking(pvio, 1)),
 * and ma_tls_connect then drives SSL_connect on that fd with
 * pvio->methods->wait_io_or_timeout, the socket plugin's own poll(); it
 * never calls my_context_yield (only ma_tls_read_async/_write_async do,
 * once the handshake is over), and nothing that yields is exported. So the
 * whole handshake, and the name lookup of a connect by name
 * (getaddrinfo in pvio_socket_connect), run inside one _cont call: the
 * loop stalls for every server round trip of every handshake.
 *
 * Here the blocking mysql_real_connect runs on a thread-pool thread
 * instead (the handle has MYSQL_OPT_NONBLOCK set already; its async
 * context is not active during a blocking call). The connection's loop
 * then takes the handle over: pr_tls_nonblock restores the non-blocking
 * socket and every later statement goes through _start/_cont as usual.
 * Timeouts: the library's connect timeout bounds the TCP connect and each
 * read of the handshake (SO_RCVTIMEO), so a job always ends.
 *
 * Thread: start and abandon on the loop thread; the callback runs there.
 */
#ifndef AG_TLSCONN_H
#define AG_TLSCONN_H

#include <mysql.h>
#include <uv.h>

typedef struct ag_tlsconn ag_tlsconn;

/* What mysql_real_connect gets. The strings are copied. */
struct ag_tlsconn_args {
    const char *host;     /* name or numeric address; "localhost" with socket */
    const char *user;     /* NULL: the library's default */
    const char *password; /* NULL: none */
    const char *db;       /* NULL: none */
    unsigned port;        /* 0 with socket */
    const char *socket;   /* NULL for TCP */
    unsigned long flags;  /* client flags */
};

/* Done: m connected (ret == m) or not (ret NULL, mysql_errno(m) says why).
 * The handle is the caller's again. */
typedef void (*ag_tlsconn_cb)(MYSQL *m, MYSQL *ret, void *data);

/* Connect m (from mysql_init, options set) with a on loop's thread pool.
 * m belongs to the job until cb runs. Returns the job, or NULL with *rc
 * set to a negative uv code (nothing started, m still the caller's). */
ag_tlsconn *ag_tlsconn_start(uv_loop_t *loop, MYSQL *m, const struct ag_tlsconn_args *a,
                             ag_tlsconn_cb cb, void *data, int *rc);

/* The caller no longer wants the result: cb will not run, and the job
 * closes its handle (mysql_close) and frees itself when the thread is
 * done. *j becomes NULL. */
void ag_tlsconn_abandon(ag_tlsconn **j);

#endif
