/* co_args_sweep: the command line's sweep options (--threads as a list,
 * --repeat, --sweep-pause) into struct co_args, for co_sweep to carry out
 * (contract: co_args_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args_int.h"
#include "pr_parse.h"

#define MAX_POINTS 256
#define MAX_REPEAT 10000
#define MAX_PAUSE  86400

/* The item v[0..len) as co__args_u32 reads it. */
static int parse_u32(const char *name, const char *v, size_t len, uint32_t lo, uint32_t hi,
                     uint32_t *out, struct pr_error *err)
{
    char buf[24];
    if (v == NULL || len == 0 || len >= sizeof(buf))
        return pr_error_set(err, PR_EINVAL, "--%s: '%.*s' is not an integer in %u..%u", name,
                            (int)(len < 40 ? len : 40), v ? v : "", lo, hi);
    memcpy(buf, v, len);
    buf[len] = '\0';
    return co__args_u32(name, buf, lo, hi, out, err);
}

int co__args_sweep_repeat(struct co_args *a, const char *name, const char *v, struct pr_error *err)
{
    return parse_u32(name, v, v ? strlen(v) : 0, 1, MAX_REPEAT, &a->repeat, err);
}

int co__args_sweep_pause(struct co_args *a, const char *name, const char *v, struct pr_error *err)
{
    return parse_u32(name, v, v ? strlen(v) : 0, 0, MAX_PAUSE, &a->sweep_pause_s, err);
}

int co__args_sweep_threads(struct co_args *a, const char *name, const char **value, char *first,
                           size_t first_len, struct pr_error *err)
{
    if ((strcmp(name, "threads") != 0 && strcmp(name, "num-threads") != 0 &&
         strcmp(name, "num_threads") != 0) ||
        *value == NULL || strchr(*value, ',') == NULL)
        return 0;
    uint32_t pts[MAX_POINTS], n = 0;
    struct pr_list_iter it;
    const char *item;
    size_t len;
    pr_list_iter_init(&it, *value);
    while (pr_list_iter_next(&it, &item, &len)) {
        if (n == MAX_POINTS)
            return pr_error_set(err, PR_EINVAL, "--%s: more than %d points in the list", name,
                                MAX_POINTS);
        int rc = parse_u32(name, item, len, 1, 1000000, &pts[n], err);
        if (rc < 0) {
            char msg[sizeof(err->msg)];
            snprintf(msg, sizeof(msg), "%s", err->msg);
            return pr_error_set(err, rc, "%s (a sweep is --threads=8,16,32)", msg);
        }
        n++;
    }
    free(a->sweep_threads);
    a->sweep_threads = pr_xcalloc(n, sizeof(*pts));
    memcpy(a->sweep_threads, pts, n * sizeof(*pts));
    a->n_sweep_threads = n;
    snprintf(first, first_len, "%u", pts[0]);
    *value = first;
    return 0;
}
