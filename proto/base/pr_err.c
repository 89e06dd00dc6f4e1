/* pr_err: the project's error codes, their messages and the out-of-memory policy (contract:
 * pr_err.h). */
#include "pr_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pr_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define PR__ERR_MSG(name, msg)                                                                     \
    case PR_E##name:                                                                               \
        return msg;
        PR_ERRNO_MAP(PR__ERR_MSG)
#undef PR__ERR_MSG
    default:
        break;
    }
    if (code < 0 && code > -4096)
        return strerror(-code);
    return "unknown error";
}

const char *pr_errname(int code)
{
    switch (code) {
#define PR__ERR_NAME(name, msg)                                                                    \
    case PR_E##name:                                                                               \
        return "PR_E" #name;
        PR_ERRNO_MAP(PR__ERR_NAME)
#undef PR__ERR_NAME
    default:
        return "errno";
    }
}

int pr_error_set(struct pr_error *err, int code, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

static void *oom(size_t size)
{
    fprintf(stderr, "stampede: out of memory allocating %zu bytes\n", size);
    abort();
}

void *pr_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    return p ? p : oom(size);
}

void *pr_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom(n * size);
}

void *pr_xcalloc_aligned(size_t n, size_t size, size_t align)
{
    size_t bytes;
    void *p = NULL;
    if (__builtin_mul_overflow(n ? n : 1, size ? size : 1, &bytes) ||
        posix_memalign(&p, align, bytes) != 0)
        return oom(n * size);
    return memset(p, 0, bytes);
}

void *pr_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    return q ? q : oom(size);
}

char *pr_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(pr_xmalloc(n), s, n);
}
