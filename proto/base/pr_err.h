/* pr_err: the project's error codes and the one out-of-memory policy.
 *
 * Actions return 0 or a negative code: either -errno or one of the PR_E*
 * codes below. pr_strerror() turns either kind into a message. Codes come from
 * one X-macro list so the enum and the messages cannot drift apart (libuv's
 * UV_ERRNO_MAP is the model). Project codes live below -10000 so they never
 * collide with -errno values.
 */
#ifndef PR_ERR_H
#define PR_ERR_H

#include <stddef.h>

#define PR_ERRNO_MAP(X)                                                                            \
    X(INVAL, "invalid argument")                                                                   \
    X(TRUNCATED, "message truncated")                                                              \
    X(TRAILING, "trailing bytes after message")                                                    \
    X(NOTMAP, "message is not a map")                                                              \
    X(VERSION, "protocol version mismatch")                                                        \
    X(UNKNOWN_TYPE, "unknown message type")                                                        \
    X(MISSING_KEY, "required key missing")                                                         \
    X(BAD_TYPE, "value has the wrong type")                                                        \
    X(TOO_BIG, "value or array exceeds its size limit")                                            \
    X(RANGE, "value out of range")                                                                 \
    X(DUP_KEY, "duplicate key")                                                                    \
    X(BAD_HIST, "malformed histogram")                                                             \
    X(BAD_HDR, "malformed HdrHistogram encoding")                                                  \
    X(ZLIB, "zlib failure")                                                                        \
    X(BAD_BASE64, "malformed base64")

enum pr_errno {
    PR_ERR_BASE_ = -10000,
#define PR__ERR_ENUM(name, msg) PR_E##name,
    PR_ERRNO_MAP(PR__ERR_ENUM)
#undef PR__ERR_ENUM
        PR_ERR_END_
};

/* A decode rejection: a code and a human message saying what was wrong and
 * where (e.g. "STATS.hist: bucket index 99999 out of range"). Plain data,
 * filled by decoders; msg is always NUL terminated. */
struct pr_error {
    int code;      /* 0 or a negative code as above */
    char msg[512]; /* what was rejected, for a log line or an ERROR reply */
};

/* Message for a code: a PR_E* code or a negative errno. Never NULL; the
 * string is static. Thread-safe. */
const char *pr_strerror(int code);

/* Name of a PR_E* code ("PR_EMISSING_KEY"), or "errno" for -errno values. */
const char *pr_errname(int code);

/* Fill err (when not NULL) with code and a printf-style message; returns
 * code so decoders can write `return pr_error_set(err, PR_EINVAL, ...)`. */
int pr_error_set(struct pr_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Allocation that cannot fail: aborts with a message on out of memory
 * (docs/dev.md §1). The caller owns the returned memory. */
void *pr_xmalloc(size_t size);
void *pr_xcalloc(size_t n, size_t size);
void *pr_xrealloc(void *p, size_t size);
/* pr_xcalloc aligned to align (a power of two, a multiple of
 * sizeof(void *)): for structs laid out by cache line; freed with free(). */
void *pr_xcalloc_aligned(size_t n, size_t size, size_t align);
char *pr_xstrdup(const char *s);

#endif
