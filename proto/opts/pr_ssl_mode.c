/* pr_ssl_mode: the --mysql-ssl mode names, read (sysbench's aliases,
 * any case, '-' for '_') and written back. */
#include "pr_ssl_mode.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>

static const struct {
    const char *name;
    enum pr_ssl_mode mode;
} names[] = {
    {"off", PR_SSL_OFF},
    {"false", PR_SSL_OFF},
    {"0", PR_SSL_OFF},
    {"disabled", PR_SSL_OFF},
    {"on", PR_SSL_ON},
    {"true", PR_SSL_ON},
    {"1", PR_SSL_ON},
    {"preferred", PR_SSL_PREFERRED},
    {"required", PR_SSL_REQUIRED},
    {"verify_ca", PR_SSL_VERIFY_CA},
    {"verify_identity", PR_SSL_VERIFY_IDENTITY},
};

/* a equals the table name b, ignoring case and '-' vs '_'. */
static int same(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
        if (x != *b)
            return 0;
    }
    return *a == *b;
}

int pr_ssl_mode_parse(const char *text, enum pr_ssl_mode *mode)
{
    if (text == NULL)
        return -EINVAL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (same(text, names[i].name)) {
            *mode = names[i].mode;
            return 0;
        }
    }
    return -EINVAL;
}

const char *pr_ssl_mode_name(enum pr_ssl_mode mode)
{
    switch (mode) {
    case PR_SSL_OFF:
        return "off";
    case PR_SSL_ON:
        return "on";
    case PR_SSL_PREFERRED:
        return "preferred";
    case PR_SSL_REQUIRED:
        return "required";
    case PR_SSL_VERIFY_CA:
        return "verify_ca";
    case PR_SSL_VERIFY_IDENTITY:
        return "verify_identity";
    }
    return "?";
}
