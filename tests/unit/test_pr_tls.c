/* test_pr_tls: the agent's TLS options from a PLAN's option set (sysbench's
 * fixed names for --mysql-ssl=on), the setup-time file check and its
 * message, and the post-connect rule that `required` refuses a plain
 * connection. The handshakes themselves are tested against a real server
 * (tests/e2e/test_tls.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "pr_tls.h"
#include "testlib.h"

static pr_opts *opts(const char *a, const char *b, const char *c)
{
    struct pr_error err = {0};
    pr_opts *o = pr_opts_new(-1);
    const char *args[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (args[i])
            CHECK_MSG(pr_opts_parse_arg(o, args[i], &err) == 0, "%s: %s", args[i], err.msg);
    return o;
}

static void test_from(void)
{
    struct pr_tls_opts t;
    struct pr_error err = {0};
    pr_opts *o = opts("--mysql-ssl=on", "--mysql-compression", NULL);

    CHECK(pr_tls_opts_from(&t, o, &err) == 0);
    CHECK(t.mode == PR_SSL_ON && t.compress && pr_tls_is_on(&t) && !pr_tls_wants_name(&t));
    CHECK(t.ca && strcmp(t.ca, "cacert.pem") == 0);
    CHECK(t.cert && strcmp(t.cert, "client-cert.pem") == 0);
    CHECK(t.key && strcmp(t.key, "client-key.pem") == 0);
    CHECK(t.cipher == NULL && t.crl == NULL);
    struct pr_tls_opts copy;
    pr_tls_opts_copy(&copy, &t);
    CHECK(copy.ca != t.ca && strcmp(copy.ca, t.ca) == 0 && copy.compress);
    pr_tls_opts_clear(&copy);
    pr_tls_opts_clear(&t);
    CHECK(t.ca == NULL && t.mode == PR_SSL_OFF);
    pr_opts_destroy(&o);

    o = opts("--mysql-ssl=verify_identity", "--mysql-ssl-ca=/etc/my/ca.pem",
             "--mysql-ssl-crl=crl.pem");
    CHECK(pr_tls_opts_from(&t, o, &err) == 0);
    CHECK(pr_tls_wants_name(&t) && strcmp(t.ca, "/etc/my/ca.pem") == 0 && t.cert == NULL);
    CHECK(strcmp(t.crl, "crl.pem") == 0 && !t.compress);
    pr_tls_opts_clear(&t);
    pr_opts_destroy(&o);

    o = opts("--mysql-ssl=verify_ca", NULL, NULL); /* a PLAN not checked by a coordinator */
    CHECK(pr_tls_opts_from(&t, o, &err) == PR_EINVAL && strstr(err.msg, "--mysql-ssl-ca"));
    CHECK(t.ca == NULL);
    pr_opts_destroy(&o);
}

static void test_files(void)
{
    char dir[] = "/tmp/test_pr_tls.XXXXXX", ca[128];
    struct pr_tls_opts t;
    struct pr_error err = {0};

    CHECK(mkdtemp(dir) != NULL);
    snprintf(ca, sizeof ca, "%s/ca.pem", dir);
    FILE *f = fopen(ca, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    char arg[160];
    snprintf(arg, sizeof arg, "--mysql-ssl-ca=%s", ca);
    pr_opts *o = opts("--mysql-ssl=verify_ca", arg, NULL);
    CHECK(pr_tls_opts_from(&t, o, &err) == 0);
    CHECK(pr_tls_check_files(&t, &err) == 0);
    pr_tls_opts_clear(&t);
    pr_opts_destroy(&o);

    /* --mysql-ssl=on in a directory without sysbench's files. */
    char cwd[256];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(dir) == 0);
    o = opts("--mysql-ssl=on", NULL, NULL);
    CHECK(pr_tls_opts_from(&t, o, &err) == 0);
    CHECK(pr_tls_check_files(&t, &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "'cacert.pem'") && strstr(err.msg, "No such file") &&
                  strstr(err.msg, dir) && strstr(err.msg, "stampede_agent_tls_files"),
              "%s", err.msg);
    pr_tls_opts_clear(&t);
    pr_opts_destroy(&o);
    CHECK(chdir(cwd) == 0);
    unlink(ca);
    rmdir(dir);

    o = opts("--mysql-ssl=off", NULL, NULL);
    CHECK(pr_tls_opts_from(&t, o, &err) == 0 && pr_tls_check_files(&t, &err) == 0);
    pr_opts_destroy(&o);
}

static void test_conn_rule(void)
{
    struct pr_tls_opts t = {.mode = PR_SSL_REQUIRED};
    struct pr_error err = {0};
    MYSQL *m = mysql_init(NULL);

    CHECK(pr_tls_apply(m, &t, &err) == 0);
    /* Not connected: no cipher, as on a plain connection. */
    CHECK(pr_tls_check_conn(m, &t, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "did not offer TLS") && strstr(err.msg, "required"));
    t.mode = PR_SSL_PREFERRED;
    CHECK(pr_tls_check_conn(m, &t, &err) == 0);
    t.mode = PR_SSL_OFF;
    CHECK(pr_tls_check_conn(m, &t, &err) == 0 && pr_tls_apply(m, NULL, &err) == 0);
    mysql_close(m);
    mysql_library_end();
}

/* Connector/C's TLS failures get a hint naming the option to look at. */
static void test_hints(void)
{
    struct pr_tls_opts t = {.mode = PR_SSL_VERIFY_CA, .ca = "ca.pem", .crl = "crl.pem"};
    const char *h = pr_tls_hint(&t, 2026, "TLS/SSL error: certificate revoked");

    CHECK(h && strstr(h, "revoked") && strstr(h, "--mysql-ssl-crl"));
    h = pr_tls_hint(&t, 2026, "TLS/SSL error: unable to get certificate CRL");
    CHECK(h && strstr(h, "--mysql-ssl-crl") && strstr(h, "no CRL from the CA"));
    t.cipher = "NO-SUCH";
    h = pr_tls_hint(&t, 2026, "TLS/SSL error: no cipher match");
    CHECK(h && strstr(h, "--mysql-ssl-cipher") && strstr(h, "openssl ciphers"));
    h = pr_tls_hint(&t, 2026, "TLS/SSL error: sslv3 alert handshake failure");
    CHECK(h && strstr(h, "accepts none of --mysql-ssl-cipher"));
    t.cipher = NULL;
    h = pr_tls_hint(&t, 2026, "TLS/SSL error: sslv3 alert handshake failure");
    CHECK(h && strstr(h, "docs/guide.md: TLS"));
    CHECK(pr_tls_hint(&t, 2013, "Lost connection") == NULL);
    /* The server's verdict on the client's certificate: its alert, or the
     * reset that overtook it (only with a client certificate). */
    h = pr_tls_hint(&t, 2026, "TLS/SSL error: sslv3 alert certificate revoked");
    CHECK(h && strstr(h, "revoked this client's certificate") && strstr(h, "ssl_crl"));
    const char *lost = "Lost connection to server at 'sending authentication information', "
                       "system error: 104";
    CHECK(pr_tls_hint(&t, 2013, lost) == NULL);
    t.cert = "client-cert.pem";
    h = pr_tls_hint(&t, 2013, lost);
    CHECK(h && strstr(h, "rejects this client's certificate") && strstr(h, "openssl verify"));
    t.mode = PR_SSL_OFF;
    CHECK(pr_tls_hint(&t, 2013, lost) == NULL);
}

/* A TLS 1.2 cipher list holds the connection to TLS 1.2 (else a TLS 1.3
 * server ignores it); a TLS 1.3 suite list leaves the versions alone. */
static void test_cipher_version(void)
{
    struct pr_tls_opts t = {.mode = PR_SSL_REQUIRED, .cipher = "ECDHE-RSA-AES128-GCM-SHA256"};
    struct pr_error err = {0};
    MYSQL *m = mysql_init(NULL);
    const char *v = NULL;

    CHECK(pr_tls_apply(m, &t, &err) == 0);
    CHECK(mysql_get_optionv(m, MARIADB_OPT_TLS_VERSION, &v) == 0 && v && !strcmp(v, "TLSv1.2"));
    mysql_close(m);
    m = mysql_init(NULL);
    t.cipher = "TLS_AES_128_GCM_SHA256";
    v = NULL;
    CHECK(pr_tls_apply(m, &t, &err) == 0);
    CHECK(mysql_get_optionv(m, MARIADB_OPT_TLS_VERSION, &v) == 0 && v == NULL);
    mysql_close(m);
}

int main(void)
{
    test_from();
    test_hints();
    test_cipher_version();
    test_files();
    test_conn_rule();
    return TEST_END();
}
