/* pr_ssl: the --mysql-ssl modes, parsed the same way by the coordinator
 * (command line) and the agent (PLAN). Pure text: no mysql, no uv.
 *
 * Modes (case-insensitive; '-' and '_' interchangeable):
 *   off (also false, 0, disabled)  plain connections;
 *   on (also true, 1)              sysbench 1.0.20's meaning: TLS required,
 *                                  with client-key.pem, client-cert.pem and
 *                                  cacert.pem from the working directory
 *                                  (on an agent, the agent's); the server's
 *                                  chain is checked against cacert.pem;
 *   preferred                      TLS when the server offers it, else plain;
 *   required                       TLS or fail (no certificate check unless
 *                                  --mysql-ssl-ca is given);
 *   verify_ca                      required + the server's chain is checked
 *                                  against --mysql-ssl-ca (needed);
 *   verify_identity                verify_ca + the certificate must name the
 *                                  host connected to (the CA file is optional
 *                                  here: Connector/C's default then applies).
 */
#ifndef PR_SSL_H
#define PR_SSL_H

#include "pr_err.h"
#include "pr_opts.h"

enum pr_ssl_mode {
    PR_SSL_OFF,
    PR_SSL_ON,
    PR_SSL_PREFERRED,
    PR_SSL_REQUIRED,
    PR_SSL_VERIFY_CA,
    PR_SSL_VERIFY_IDENTITY,
};

/* sysbench 1.0.20's fixed file names for --mysql-ssl=on. */
#define PR_SSL_ON_KEY  "client-key.pem"
#define PR_SSL_ON_CERT "client-cert.pem"
#define PR_SSL_ON_CA   "cacert.pem"

/* The mode named by text into *mode. Returns 0, or -EINVAL (mode untouched)
 * for NULL or an unknown name. */
int pr_ssl_mode_parse(const char *text, enum pr_ssl_mode *mode);

/* Canonical name of a mode ("off", "on", "preferred", ...); static. */
const char *pr_ssl_mode_name(enum pr_ssl_mode mode);

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

/* The accepted values, for error messages: "off, on, preferred, ...". */
#define PR_SSL_MODES "off, on, preferred, required, verify_ca, verify_identity"

#endif
