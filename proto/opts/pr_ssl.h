/* pr_ssl: the --mysql-ssl* options checked together, and what a
 * --mysql-ssl-cipher list names; the modes themselves are pr_ssl_mode's.
 * Pure text: no mysql, no uv. */
#ifndef PR_SSL_H
#define PR_SSL_H

#include "pr_err.h"
#include "pr_opts.h"
#include "pr_ssl_mode.h"

/* The --mysql-ssl* options of o make sense together: no file or cipher
 * with off, a CA file with verify_ca, a certificate and its key together,
 * a cipher list of one kind (pr_ssl_cipher_kind).
 * Returns 0, or PR_EINVAL with err saying what to change. */
int pr_ssl_check_opts(const pr_opts *o, struct pr_error *err);

/* What a --mysql-ssl-cipher list names. Connector/C hands the list first
 * to OpenSSL's SSL_CTX_set_ciphersuites (TLS 1.3 suites, TLS_AES_128_...)
 * and only when that fails to SSL_CTX_set_cipher_list (TLS 1.2 and older
 * names): a list of TLS 1.2 ciphers leaves TLS 1.3's default suites on, so
 * a TLS 1.3 server never uses them unless the connection is held to TLS
 * 1.2, and a mixed list loses its TLS 1.3 part. */
enum pr_ssl_cipher_kind {
    PR_SSL_CIPHER_NONE,  /* NULL or empty */
    PR_SSL_CIPHER_TLS13, /* only TLS 1.3 suites (names starting TLS_) */
    PR_SSL_CIPHER_TLS12, /* only TLS 1.2-and-older cipher names */
    PR_SSL_CIPHER_MIXED, /* both */
};

/* The kind of the ':'-separated (also ',' or ' ') cipher list. */
enum pr_ssl_cipher_kind pr_ssl_cipher_kind(const char *list);

#endif
