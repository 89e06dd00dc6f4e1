/* pr_tls: how a connection's transport is set up: TLS (--mysql-ssl and its
 * files) and compression (--mysql-compression), applied to a MYSQL handle
 * before connect through Connector/C's own options (its TLS is OpenSSL).
 * Connector/C runs the TLS handshake outside its non-blocking calls, so
 * the agent connects a TLS connection on libuv's thread pool
 * (agent/engine/ag_tlsconn.h).
 *
 * What the library does not enforce is checked here after connect: with
 * Connector/C 3.3 only a certificate check makes TLS mandatory, so a
 * `required` connection to a server without TLS would silently go plain;
 * pr_tls_check_conn refuses it.
 *
 * Files are read by the library at each connect, from paths relative to
 * the agent's working directory; pr_tls_check_files says at setup, before
 * any load, which one this agent lacks.
 */
#ifndef PR_TLS_H
#define PR_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <mysql.h>

#include "pr_err.h"
#include "pr_opts.h"
#include "pr_ssl.h"

/* Transport options. Plain data; the strings are the holder's (NULL:
 * unset). */
struct pr_tls_opts {
    enum pr_ssl_mode mode; /* --mysql-ssl */
    char *ca;              /* --mysql-ssl-ca (for mode on: cacert.pem unless given) */
    char *cert;            /* --mysql-ssl-cert (on: client-cert.pem) */
    char *key;             /* --mysql-ssl-key (on: client-key.pem) */
    char *cipher;          /* --mysql-ssl-cipher */
    char *crl;             /* --mysql-ssl-crl */
    bool compress;         /* --mysql-compression */
};

/* Fill *t from the option set o (values checked by pr_opts), with owned
 * copies (free with pr_tls_opts_clear). Mode `on` gets sysbench 1.0.20's
 * file names for the files not given. Returns 0, or PR_EINVAL with err
 * naming the combination that cannot work (pr_ssl_check_opts); *t is then
 * zeroed. */
int pr_tls_opts_from(struct pr_tls_opts *t, const pr_opts *o, struct pr_error *err);

/* A deep copy of src into *dst (free with pr_tls_opts_clear). */
void pr_tls_opts_copy(struct pr_tls_opts *dst, const struct pr_tls_opts *src);

/* Free the strings of *t and zero it. */
void pr_tls_opts_clear(struct pr_tls_opts *t);

/* True when connections use TLS (any mode but off). */
bool pr_tls_is_on(const struct pr_tls_opts *t);

/* True when the library must connect by host name rather than the
 * resolved address (verify_identity checks the certificate against it). */
bool pr_tls_wants_name(const struct pr_tls_opts *t);

/* Every file *t names is readable here. Returns 0, or PR_EINVAL with err
 * naming the option, the path, the reason and what to do. */
int pr_tls_check_files(const struct pr_tls_opts *t, struct pr_error *err);

/* Set the options of *t (NULL: nothing) on m, before connect. Returns 0,
 * or -EINVAL naming the option the library refused in err. */
int pr_tls_apply(MYSQL *m, const struct pr_tls_opts *t, struct pr_error *err);

/* After a successful connect: the transport is what *t asks for (TLS
 * when mode is not off/preferred). Returns 0, or PR_EINVAL with a message
 * in err. */
int pr_tls_check_conn(MYSQL *m, const struct pr_tls_opts *t, struct pr_error *err);

/* After a non-blocking connect that negotiated TLS: put the socket back in
 * non-blocking mode. Connector/C 3.3 runs the TLS handshake with the
 * socket switched to blocking and does not switch it back, so every later
 * SSL_read would block the loop instead of yielding MYSQL_WAIT_READ.
 * Returns 0 or -errno. */
int pr_tls_nonblock(MYSQL *m);

/* Empty this thread's OpenSSL error queue. Connector/C leaves errors there
 * (a failed SSL_shutdown in mysql_close of a lost connection, a failed
 * read) and never clears it before SSL_read/SSL_write, while OpenSSL's
 * SSL_get_error reads a non-empty queue as a failure: every later
 * "would block" of any TLS connection on this thread then ends that
 * connection as lost. A handshake clears the queue, so this mattered only
 * once handshakes left the loop (ag_tlsconn.h). Call on the loop thread
 * after closing a TLS handle or after a TLS connection's error. */
void pr_tls_clear_errors(void);

/* What to do about connect error err_no (message msg) under *t, or NULL
 * when the TLS options have nothing to say. Static string. */
const char *pr_tls_hint(const struct pr_tls_opts *t, unsigned err_no, const char *msg);

#endif
