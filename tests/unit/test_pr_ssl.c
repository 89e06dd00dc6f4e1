/* test_pr_ssl: --mysql-ssl modes (names, sysbench's booleans, spellings)
 * and the checks on the --mysql-ssl* combination. */
#include <errno.h>
#include <string.h>

#include "pr_opts.h"
#include "pr_ssl.h"
#include "testlib.h"

static void test_modes(void)
{
    static const struct {
        const char *text;
        enum pr_ssl_mode mode;
    } ok[] = {
        {"off", PR_SSL_OFF},
        {"0", PR_SSL_OFF},
        {"FALSE", PR_SSL_OFF},
        {"DISABLED", PR_SSL_OFF},
        {"on", PR_SSL_ON},
        {"true", PR_SSL_ON},
        {"1", PR_SSL_ON},
        {"preferred", PR_SSL_PREFERRED},
        {"REQUIRED", PR_SSL_REQUIRED},
        {"verify_ca", PR_SSL_VERIFY_CA},
        {"VERIFY-CA", PR_SSL_VERIFY_CA},
        {"verify_identity", PR_SSL_VERIFY_IDENTITY},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        enum pr_ssl_mode m = (enum pr_ssl_mode)99;
        CHECK_MSG(pr_ssl_mode_parse(ok[i].text, &m) == 0 && m == ok[i].mode, "%s", ok[i].text);
    }
    enum pr_ssl_mode m = PR_SSL_REQUIRED;
    CHECK(pr_ssl_mode_parse("require", &m) == -EINVAL && m == PR_SSL_REQUIRED);
    CHECK(pr_ssl_mode_parse("", &m) == -EINVAL);
    CHECK(pr_ssl_mode_parse("verify_identityx", &m) == -EINVAL);
    CHECK(pr_ssl_mode_parse(NULL, &m) == -EINVAL);
    for (int i = PR_SSL_OFF; i <= PR_SSL_VERIFY_IDENTITY; i++) {
        CHECK(pr_ssl_mode_parse(pr_ssl_mode_name((enum pr_ssl_mode)i), &m) == 0 && (int)m == i);
        CHECK(strstr(PR_SSL_MODES, pr_ssl_mode_name((enum pr_ssl_mode)i)) != NULL);
    }
}

/* Option sets: each pair is set on a fresh value set, then checked. */
static int check_pair(const char *a, const char *b, struct pr_error *err)
{
    pr_opts *o = pr_opts_new(-1);
    int rc = pr_opts_parse_arg(o, a, err);
    if (rc == 0 && b)
        rc = pr_opts_parse_arg(o, b, err);
    if (rc == 0)
        rc = pr_ssl_check_opts(o, err);
    pr_opts_destroy(&o);
    return rc;
}

static void test_combinations(void)
{
    struct pr_error err = {0};

    CHECK(check_pair("--mysql-ssl=off", NULL, &err) == 0);
    CHECK(check_pair("--mysql-ssl", NULL, &err) == 0);
    CHECK(check_pair("--mysql-ssl=on", "--mysql-ssl-cipher=AES256-SHA", &err) == 0);
    CHECK(check_pair("--mysql-ssl=verify_ca", "--mysql-ssl-ca=/x/ca.pem", &err) == 0);
    CHECK(check_pair("--mysql-ssl=verify_identity", NULL, &err) == 0); /* CA optional */
    CHECK(check_pair("--mysql-ssl=sometimes", NULL, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--mysql-ssl") && strstr(err.msg, "'sometimes'") &&
          strstr(err.msg, "verify_identity"));
    CHECK(check_pair("--mysql-ssl-ca=ca.pem", NULL, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "other than off") != NULL);
    CHECK(check_pair("--mysql-ssl=verify_ca", NULL, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "--mysql-ssl-ca=FILE") != NULL);
    CHECK(check_pair("--mysql-ssl=required", "--mysql-ssl-key=k.pem", &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "both or neither") != NULL);
}

/* Which kind of list Connector/C will apply (pr_ssl.h), and mixed lists refused. */
static void test_cipher_kind(void)
{
    struct pr_error err = {0};

    CHECK(pr_ssl_cipher_kind(NULL) == PR_SSL_CIPHER_NONE);
    CHECK(pr_ssl_cipher_kind("") == PR_SSL_CIPHER_NONE);
    CHECK(pr_ssl_cipher_kind("TLS_AES_128_GCM_SHA256") == PR_SSL_CIPHER_TLS13);
    CHECK(pr_ssl_cipher_kind("TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256") ==
          PR_SSL_CIPHER_TLS13);
    CHECK(pr_ssl_cipher_kind("ECDHE-RSA-AES128-GCM-SHA256") == PR_SSL_CIPHER_TLS12);
    CHECK(pr_ssl_cipher_kind("AES256-SHA:ECDHE-RSA-AES128-GCM-SHA256") == PR_SSL_CIPHER_TLS12);
    CHECK(pr_ssl_cipher_kind("TLS") == PR_SSL_CIPHER_TLS12); /* not a suite name */
    CHECK(pr_ssl_cipher_kind("AES256-SHA, TLS_AES_128_GCM_SHA256") == PR_SSL_CIPHER_MIXED);
    CHECK(check_pair("--mysql-ssl=required", "--mysql-ssl-cipher=TLS_AES_128_GCM_SHA256", &err) ==
          0);
    CHECK(check_pair("--mysql-ssl=required", "--mysql-ssl-cipher=AES256-SHA:TLS_AES_128_GCM_SHA256",
                     &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "mixes TLS 1.3 suites") && strstr(err.msg, "--mysql-ssl-cipher"));
}

int main(void)
{
    test_modes();
    test_combinations();
    test_cipher_kind();
    return TEST_END();
}
