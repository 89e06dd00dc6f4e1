/* pr_ssl_mode: the --mysql-ssl modes and their names, parsed the same way
 * by the coordinator (command line), the agent (PLAN) and pr_opts' check
 * of the option's value. Pure text, no includes: no mysql, no uv.
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
#ifndef PR_SSL_MODE_H
#define PR_SSL_MODE_H

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

/* The accepted values, for error messages: "off, on, preferred, ...". */
#define PR_SSL_MODES "off, on, preferred, required, verify_ca, verify_identity"

#endif
