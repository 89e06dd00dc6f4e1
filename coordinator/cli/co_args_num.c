/* co_args_num: the checks of one option's value that every option file
 * shares (contract: co_args_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "co_args_int.h"

int co__args_uint(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                  struct pr_error *err)
{
    char *end;

    if (v == NULL)
        return pr_error_set(err, PR_EINVAL, "--%s: a value is required", name);
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || x < lo || x > hi)
        return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not an integer in %llu..%llu", name, v,
                            (unsigned long long)lo, (unsigned long long)hi);
    *out = x;
    return 0;
}

int co__args_u32(const char *name, const char *v, uint32_t lo, uint32_t hi, uint32_t *out,
                 struct pr_error *err)
{
    uint64_t x = 0;
    int rc = co__args_uint(name, v, lo, hi, &x, err);
    if (rc == 0)
        *out = (uint32_t)x;
    return rc;
}

int co__args_need_text(const char *name, const char *v, struct pr_error *err)
{
    if (v == NULL || *v == '\0')
        return pr_error_set(err, PR_EINVAL, "--%s: a value is required (--%s=...)", name, name);
    return 0;
}
