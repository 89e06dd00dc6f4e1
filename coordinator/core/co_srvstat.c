/* co_srvstat: per-interval server status figures (co_srvstat.h). */
#include "co_srvstat.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_merge.h"
#include "pr_text.h"

#define STATUS_ENTRY(name, kind) {#name, kind},
static const struct {
    const char *name;      /* SHOW GLOBAL STATUS name */
    enum pr_env_kind kind; /* gauge or counter */
} status[CO_SRVSTAT_N] = {PR_ENV_STATUS(STATUS_ENTRY)};

struct co_srvstat {
    struct co_srv_status *by_k; /* per interval base + i, i < n_k (a window: the
                                   intervals not yet released) */
    bool *set;                  /* by_k[i] holds figures */
    uint64_t n_k;
    uint64_t base;               /* by_k[0]'s interval; everything below it was dropped */
    uint64_t prev[CO_SRVSTAT_N]; /* the last sample's values */
    bool prev_has[CO_SRVSTAT_N];
    bool have_prev;  /* a sample came */
    uint64_t prev_k; /* its interval + 1 (0: the baseline) */
};

co_srvstat *co_srvstat_new(void)
{
    return pr_xcalloc(1, sizeof(co_srvstat));
}

void co_srvstat_destroy(co_srvstat **tp)
{
    co_srvstat *t = tp ? *tp : NULL;
    if (t == NULL)
        return;
    free(t->by_k);
    free(t->set);
    free(t);
    *tp = NULL;
}

static bool find(const struct pr_msg_stat *srv, uint32_t n, const char *name, uint64_t *v)
{
    for (uint32_t i = 0; i < n; i++)
        if (srv[i].name != NULL && strcmp(srv[i].name, name) == 0) {
            *v = srv[i].value;
            return true;
        }
    return false;
}

/* Remember a sample as the one the next interval starts from. */
static void keep(co_srvstat *t, uint64_t next_k, const struct pr_msg_stat *srv, uint32_t n)
{
    for (int i = 0; i < CO_SRVSTAT_N; i++)
        t->prev_has[i] = find(srv, n, status[i].name, &t->prev[i]);
    t->have_prev = true;
    t->prev_k = next_k;
}

void co_srvstat_baseline(co_srvstat *t, const struct pr_msg_stat *srv, uint32_t n)
{
    if (t != NULL && n > 0)
        keep(t, 0, srv, n);
}

void co_srvstat_sample(co_srvstat *t, uint64_t k, const struct pr_msg_stat *srv, uint32_t n)
{
    if (t == NULL || n == 0 || k >= CO_MERGE_MAX_INTERVALS)
        return;
    if (t->have_prev && t->prev_k == k && k >= t->base) { /* below base: written already */
        uint64_t slot = k - t->base;
        if (slot >= t->n_k) {
            uint64_t nk = slot + 1 > 2 * t->n_k ? slot + 1 : 2 * t->n_k;
            t->by_k = pr_xrealloc(t->by_k, nk * sizeof(*t->by_k));
            t->set = pr_xrealloc(t->set, nk * sizeof(*t->set));
            memset(t->by_k + t->n_k, 0, (nk - t->n_k) * sizeof(*t->by_k));
            memset(t->set + t->n_k, 0, (nk - t->n_k) * sizeof(*t->set));
            t->n_k = nk;
        }
        struct co_srv_status *s = &t->by_k[slot];
        for (int i = 0; i < CO_SRVSTAT_N; i++) {
            uint64_t v = 0;
            if (!find(srv, n, status[i].name, &v))
                continue;
            if (status[i].kind == PR_ENV_GAUGE) {
                s->has[i] = true, s->value[i] = v;
            } else if (t->prev_has[i] && v >= t->prev[i]) {
                s->has[i] = true, s->value[i] = v - t->prev[i];
            }
        }
        t->set[slot] = true;
    }
    keep(t, k + 1, srv, n);
}

void co_srvstat_drop_below(co_srvstat *t, uint64_t k)
{
    if (t == NULL || k <= t->base)
        return;
    uint64_t d = k - t->base;
    if (t->n_k == 0) { /* no sample yet (a dry run has none): nothing to move */
        t->base = k;
        return;
    }
    if (d >= t->n_k) {
        memset(t->by_k, 0, t->n_k * sizeof(*t->by_k));
        memset(t->set, 0, t->n_k * sizeof(*t->set));
    } else {
        memmove(t->by_k, t->by_k + d, (t->n_k - d) * sizeof(*t->by_k));
        memmove(t->set, t->set + d, (t->n_k - d) * sizeof(*t->set));
        memset(t->by_k + (t->n_k - d), 0, d * sizeof(*t->by_k));
        memset(t->set + (t->n_k - d), 0, d * sizeof(*t->set));
    }
    t->base = k;
}

void co_srvstat_take(co_srvstat *t, struct co_interval_result *iv, uint32_t n)
{
    for (uint32_t i = 0; t != NULL && i < n; i++) {
        uint64_t k = iv[i].k;
        free(iv[i].srv_status);
        iv[i].srv_status = NULL;
        if (k >= t->base && k - t->base < t->n_k && t->set[k - t->base]) {
            iv[i].srv_status = pr_xmalloc(sizeof(*iv[i].srv_status));
            *iv[i].srv_status = t->by_k[k - t->base];
        }
    }
}

/* The figure's value for output: a gauge as is, a counter per second over
 * the interval; NaN when unknown. */
static double figure(const struct co_interval_result *iv, int i)
{
    const struct co_srv_status *s = iv->srv_status;
    if (s == NULL || !iv->printed || !s->has[i])
        return NAN;
    if (status[i].kind == PR_ENV_GAUGE)
        return (double)s->value[i];
    return isfinite(iv->len_s) && iv->len_s > 0 ? (double)s->value[i] / iv->len_s : NAN;
}

/* The JSON key: the status name, with "_s" for a counter's rate ("_ms_s"
 * for a time in ms). */
static void key_of(int i, char *buf, size_t len)
{
    const char *suffix = status[i].kind == PR_ENV_GAUGE     ? ""
                         : status[i].kind == PR_ENV_COUNTER ? "_s"
                                                            : "_ms_s";
    snprintf(buf, len, "%s%s", status[i].name, suffix);
}

void co_srvstat_json(FILE *f, const struct co_interval_result *iv)
{
    char key[96], num[40];

    if (iv->srv_status == NULL || !iv->printed) {
        fputs(", \"server_status\": null", f);
        return;
    }
    fputs(", \"server_status\": {", f);
    for (int i = 0; i < CO_SRVSTAT_N; i++) {
        key_of(i, key, sizeof(key));
        fprintf(f, "%s\"%s\": %s", i ? ", " : "", key,
                pr_fmt_double(num, sizeof(num), figure(iv, i)) ? num : "null");
    }
    fputc('}', f);
}

void co_srvstat_csv_header(FILE *f)
{
    char key[96];
    for (int i = 0; i < CO_SRVSTAT_N; i++) {
        key_of(i, key, sizeof(key));
        for (char *c = key; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        fprintf(f, ",srv_%s", key);
    }
}

void co_srvstat_csv_row(FILE *f, const struct co_interval_result *iv)
{
    char num[40];
    for (int i = 0; i < CO_SRVSTAT_N; i++) {
        pr_fmt_double(num, sizeof(num), figure(iv, i));
        fprintf(f, ",%s", num);
    }
}
