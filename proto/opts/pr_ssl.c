/* pr_ssl: the --mysql-ssl* options' consistency check and the kind of a
 * --mysql-ssl-cipher list (TLS 1.3 suites, older ciphers, or both). */
#include "pr_ssl.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pr_err.h"
#include "pr_opts.h"

enum pr_ssl_cipher_kind pr_ssl_cipher_kind(const char *list)
{
    bool tls13 = false, tls12 = false;

    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":, ");
        if (n > 0) {
            if (n > 4 && strncmp(p, "TLS_", 4) == 0)
                tls13 = true;
            else
                tls12 = true;
        }
        p += n;
        if (*p)
            p++;
    }
    if (tls13 && tls12)
        return PR_SSL_CIPHER_MIXED;
    return tls13 ? PR_SSL_CIPHER_TLS13 : tls12 ? PR_SSL_CIPHER_TLS12 : PR_SSL_CIPHER_NONE;
}

static int has(const pr_opts *o, const char *name)
{
    const char *v = pr_opts_str(o, name);
    return v && *v;
}

int pr_ssl_check_opts(const pr_opts *o, struct pr_error *err)
{
    enum pr_ssl_mode m;

    if (pr_ssl_mode_parse(pr_opts_str(o, "mysql-ssl"), &m) < 0)
        return pr_error_set(err, PR_EINVAL, "--mysql-ssl: invalid value '%s' (one of %s)",
                            pr_opts_str(o, "mysql-ssl"), PR_SSL_MODES);
    int files = has(o, "mysql-ssl-ca") || has(o, "mysql-ssl-cert") || has(o, "mysql-ssl-key") ||
                has(o, "mysql-ssl-cipher") || has(o, "mysql-ssl-crl");
    if (m == PR_SSL_OFF && files)
        return pr_error_set(err, PR_EINVAL,
                            "--mysql-ssl-ca/-cert/-key/-cipher/-crl need --mysql-ssl other than "
                            "off (e.g. --mysql-ssl=verify_ca)");
    if (m == PR_SSL_VERIFY_CA && !has(o, "mysql-ssl-ca"))
        return pr_error_set(err, PR_EINVAL,
                            "--mysql-ssl=verify_ca needs --mysql-ssl-ca=FILE (the CA that signed "
                            "the server's certificate)");
    if (pr_ssl_cipher_kind(pr_opts_str(o, "mysql-ssl-cipher")) == PR_SSL_CIPHER_MIXED)
        return pr_error_set(err, PR_EINVAL,
                            "--mysql-ssl-cipher mixes TLS 1.3 suites (TLS_...) with TLS 1.2 "
                            "ciphers: the client library applies only one kind, so give TLS 1.3 "
                            "suites alone or TLS 1.2 ciphers alone (the latter hold the "
                            "connection to TLS 1.2)");
    if (m != PR_SSL_ON && has(o, "mysql-ssl-cert") != has(o, "mysql-ssl-key"))
        return pr_error_set(err, PR_EINVAL,
                            "--mysql-ssl-cert and --mysql-ssl-key go together: give both or "
                            "neither");
    return 0;
}
