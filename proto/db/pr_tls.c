/* pr_tls: TLS and compression options of a connection. See pr_tls.h. */
#include "pr_tls.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <openssl/err.h>
#include <unistd.h>

static char *dup_opt(const pr_opts *o, const char *name, const char *fallback)
{
    const char *v = pr_opts_str(o, name);
    if (v && *v)
        return pr_xstrdup(v);
    return fallback ? pr_xstrdup(fallback) : NULL;
}

int pr_tls_opts_from(struct pr_tls_opts *t, const pr_opts *o, struct pr_error *err)
{
    memset(t, 0, sizeof *t);
    int rc = pr_ssl_check_opts(o, err);
    if (rc < 0)
        return rc;
    pr_ssl_mode_parse(pr_opts_str(o, "mysql-ssl"), &t->mode);
    bool on = t->mode == PR_SSL_ON;
    t->compress = pr_opts_bool(o, "mysql-compression");
    t->ca = dup_opt(o, "mysql-ssl-ca", on ? PR_SSL_ON_CA : NULL);
    t->cert = dup_opt(o, "mysql-ssl-cert", on ? PR_SSL_ON_CERT : NULL);
    t->key = dup_opt(o, "mysql-ssl-key", on ? PR_SSL_ON_KEY : NULL);
    t->cipher = dup_opt(o, "mysql-ssl-cipher", NULL);
    t->crl = dup_opt(o, "mysql-ssl-crl", NULL);
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s ? pr_xstrdup(s) : NULL;
}

void pr_tls_opts_copy(struct pr_tls_opts *dst, const struct pr_tls_opts *src)
{
    *dst = *src;
    dst->ca = dup_or_null(src->ca);
    dst->cert = dup_or_null(src->cert);
    dst->key = dup_or_null(src->key);
    dst->cipher = dup_or_null(src->cipher);
    dst->crl = dup_or_null(src->crl);
}

void pr_tls_opts_clear(struct pr_tls_opts *t)
{
    free(t->ca);
    free(t->cert);
    free(t->key);
    free(t->cipher);
    free(t->crl);
    memset(t, 0, sizeof *t);
}

bool pr_tls_is_on(const struct pr_tls_opts *t)
{
    return t && t->mode != PR_SSL_OFF;
}

bool pr_tls_wants_name(const struct pr_tls_opts *t)
{
    return t && t->mode == PR_SSL_VERIFY_IDENTITY;
}

static int check_file(const char *opt, const char *path, struct pr_error *err)
{
    char cwd[PATH_MAX];

    if (path == NULL)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int e = errno;
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "?");
    return pr_error_set(err, PR_EINVAL,
                        "%s: cannot read '%s' on this agent (%s; working directory %s): "
                        "put the file there (Ansible: stampede_agent_tls_files) or give "
                        "another path",
                        opt, path, strerror(e), cwd);
}

int pr_tls_check_files(const struct pr_tls_opts *t, struct pr_error *err)
{
    if (!pr_tls_is_on(t))
        return 0;
    bool on = t->mode == PR_SSL_ON;
    int rc =
        check_file(on ? "--mysql-ssl=on (sysbench's cacert.pem)" : "--mysql-ssl-ca", t->ca, err);
    if (rc == 0)
        rc = check_file(on ? "--mysql-ssl=on (sysbench's client-cert.pem)" : "--mysql-ssl-cert",
                        t->cert, err);
    if (rc == 0)
        rc = check_file(on ? "--mysql-ssl=on (sysbench's client-key.pem)" : "--mysql-ssl-key",
                        t->key, err);
    if (rc == 0)
        rc = check_file("--mysql-ssl-crl", t->crl, err);
    return rc;
}

static int set_str(MYSQL *m, enum mysql_option opt, const char *name, const char *v,
                   struct pr_error *err)
{
    if (v == NULL)
        return 0;
    if (mysql_optionsv(m, opt, v) != 0)
        return pr_error_set(err, -EINVAL, "the client library refused %s", name);
    return 0;
}

int pr_tls_apply(MYSQL *m, const struct pr_tls_opts *t, struct pr_error *err)
{
    if (t == NULL)
        return 0;
    if (t->compress && mysql_optionsv(m, MYSQL_OPT_COMPRESS, NULL) != 0)
        return pr_error_set(err, -EINVAL, "the client library refused --mysql-compression");
    if (!pr_tls_is_on(t))
        return 0;
    /* MYSQL_OPT_SSL_ENFORCE turns TLS on even without any file; with a CA the
     * library checks the server's chain; VERIFY_SERVER_CERT adds the name. */
    my_bool yes = 1;
    if (mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &yes) != 0)
        return pr_error_set(err, -EINVAL, "the client library has no TLS (--mysql-ssl)");
    int rc = set_str(m, MYSQL_OPT_SSL_CA, "--mysql-ssl-ca", t->ca, err);
    if (rc == 0)
        rc = set_str(m, MYSQL_OPT_SSL_CERT, "--mysql-ssl-cert", t->cert, err);
    if (rc == 0)
        rc = set_str(m, MYSQL_OPT_SSL_KEY, "--mysql-ssl-key", t->key, err);
    if (rc == 0)
        rc = set_str(m, MYSQL_OPT_SSL_CIPHER, "--mysql-ssl-cipher", t->cipher, err);
    /* TLS 1.2 ciphers only apply to a TLS 1.2 connection (pr_ssl.h). */
    if (rc == 0 && pr_ssl_cipher_kind(t->cipher) == PR_SSL_CIPHER_TLS12)
        rc = set_str(m, MARIADB_OPT_TLS_VERSION, "--mysql-ssl-cipher (TLSv1.2)", "TLSv1.2", err);
    if (rc == 0)
        rc = set_str(m, MYSQL_OPT_SSL_CRL, "--mysql-ssl-crl", t->crl, err);
    if (rc == 0 && t->mode == PR_SSL_VERIFY_IDENTITY &&
        mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &yes) != 0)
        rc = pr_error_set(err, -EINVAL, "the client library refused verify_identity");
    return rc;
}

int pr_tls_check_conn(MYSQL *m, const struct pr_tls_opts *t, struct pr_error *err)
{
    if (!pr_tls_is_on(t) || t->mode == PR_SSL_PREFERRED)
        return 0;
    if (mysql_get_ssl_cipher(m) == NULL)
        return pr_error_set(err, PR_EINVAL,
                            "the server did not offer TLS but --mysql-ssl=%s requires it: "
                            "enable TLS on the server (ssl_cert, ssl_key) or use "
                            "--mysql-ssl=preferred",
                            pr_ssl_mode_name(t->mode));
    return 0;
}

const char *pr_tls_hint(const struct pr_tls_opts *t, unsigned err_no, const char *msg)
{
    if (err_no == 1045 && !pr_tls_is_on(t))
        return "check --mysql-user and the password (MYSQL_PWD or --mysql-password); a user "
               "created REQUIRE SSL needs --mysql-ssl=required (or stronger)";
    /* The server's verdict on this client's certificate: an alert when the
     * client reads it, or (TLS 1.3: the server checks the certificate after
     * the client's handshake is done) a reset when the server's close
     * overtakes the alert, which then is lost with the reset. */
    if (msg && strstr(msg, "alert certificate revoked"))
        return "the server revoked this client's certificate (--mysql-ssl-cert is in the "
               "server's ssl_crl): give the agent a certificate that is not revoked";
    if (err_no == 2013 && pr_tls_is_on(t) && t->cert && msg &&
        strstr(msg, "sending authentication information"))
        return "the server closed the connection right after the TLS handshake, as it does "
               "when it rejects this client's certificate (revoked by the server's ssl_crl, or "
               "not from its ssl_ca; the server's error log says \"closed normally without "
               "authentication\"): check --mysql-ssl-cert with openssl verify -crl_check "
               "against the server's ssl_ca and ssl_crl";
    if (err_no != 2026) /* CR_SSL_CONNECTION_ERROR */
        return NULL;
    /* Connector/C's words when the chain is good but the name is not. */
    if (t && t->mode == PR_SSL_VERIFY_IDENTITY && msg &&
        strstr(msg, "Validation of SSL server certificate failed"))
        return "the server's certificate does not name the host given in --mysql-host "
               "(verify_identity checks it): connect by a name the certificate has, or use "
               "--mysql-ssl=verify_ca";
    if (msg && strstr(msg, "certificate revoked"))
        return "the server's certificate is revoked by the CRL in --mysql-ssl-crl: the server "
               "needs a new certificate (or the CRL file is not the current one)";
    if (msg && strstr(msg, "unable to get certificate CRL"))
        return "--mysql-ssl-crl has no CRL from the CA that issued the server's certificate (every "
               "certificate of the chain is checked): add that CA's CRL to the file";
    if (msg && strstr(msg, "no cipher match"))
        return "--mysql-ssl-cipher names no cipher this client's OpenSSL has: TLS 1.3 suites "
               "(openssl ciphers -s -tls1_3) or TLS 1.2 names (openssl ciphers -s -tls1_2)";
    if (msg && (strstr(msg, "handshake failure") || strstr(msg, "no shared cipher")) && t &&
        t->cipher)
        return "the server accepts none of --mysql-ssl-cipher's ciphers: compare with the "
               "server's ssl_cipher and TLS versions";
    return "check --mysql-ssl and its files against the server's TLS setup (docs/guide.md: TLS)";
}

int pr_tls_nonblock(MYSQL *m)
{
    if (mysql_get_ssl_cipher(m) == NULL)
        return 0;
    int fd = (int)mysql_get_socket(m);
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -errno;
    if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

void pr_tls_clear_errors(void)
{
    ERR_clear_error();
}
