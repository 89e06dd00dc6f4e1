/* co_warmcut: the start of a run left out of its totals (co_warmcut.h). */
#include "co_warmcut.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_steady.h"

int co_warmup_parse(const char *v, struct co_warmup_opt *out, struct pr_error *err)
{
    if (v != NULL && strcmp(v, "auto") == 0) {
        *out = (struct co_warmup_opt){CO_WARMUP_AUTO, 0};
        return 0;
    }
    char *end = NULL;
    unsigned long s = v != NULL && *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : 0;
    if (end == NULL || *end != '\0' || s < 1 || s > 86400)
        return pr_error_set(err, PR_EINVAL,
                            "--warmup=%s: give 'auto' (leave out the warm-up the run detects) "
                            "or a whole number of seconds from 1 to 86400",
                            v ? v : "");
    *out = (struct co_warmup_opt){CO_WARMUP_FIXED, (uint32_t)s};
    return 0;
}

void co_warmcut_add(struct co_warmcut *w, double t_s, double len_s, const struct pr_counters *ctr,
                    const pr_hist *lat)
{
    if (w->opt.mode == CO_WARMUP_OFF)
        return;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->iv = pr_xrealloc(w->iv, w->cap * sizeof(*w->iv));
    }
    struct co_warmcut_iv *iv = &w->iv[w->n++];
    *iv = (struct co_warmcut_iv){.t_s = t_s, .len_s = len_s, .ctr = *ctr};
    if (lat != NULL && pr_hist_count(lat) > 0)
        iv->lat = pr_hist_freeze(lat);
}

void co_warmcut_add_svc(struct co_warmcut *w, const pr_hist *svc)
{
    if (w->opt.mode == CO_WARMUP_OFF || w->n == 0 || svc == NULL || pr_hist_count(svc) == 0)
        return;
    pr_hist_frozen_destroy(&w->iv[w->n - 1].svc);
    w->iv[w->n - 1].svc = pr_hist_freeze(svc);
}

/* dst -= src field by field; false (dst unchanged) if any would go below 0. */
static bool counters_sub(struct pr_counters *dst, const struct pr_counters *src)
{
    struct pr_counters d = *dst;
#define SUB(name)                                                                                  \
    if (d.name < src->name)                                                                        \
        return false;                                                                              \
    d.name -= src->name;
    PR_COUNTERS_FIELDS(SUB)
    PR_COUNTERS_OPT_FIELDS(SUB)
#undef SUB
    *dst = d;
    return true;
}

/* The merge of the kept intervals' histograms from index `from` on (svc:
 * the service times); NULL when none of them has one. */
static pr_hist *merge_from(const struct co_warmcut *w, uint32_t from, bool svc)
{
    pr_hist *h = NULL;
    for (uint32_t i = from; i < w->n; i++) {
        const pr_hist_frozen *f = svc ? w->iv[i].svc : w->iv[i].lat;
        if (f == NULL)
            continue;
        if (h == NULL)
            h = pr_hist_new();
        pr_hist_add_frozen(h, f);
    }
    return h;
}

static uint64_t lat_count(const struct co_warmcut *w, uint32_t from, uint32_t to)
{
    uint64_t n = 0;
    for (uint32_t i = from; i < to; i++)
        n += w->iv[i].lat ? pr_hist_frozen_count(w->iv[i].lat) : 0;
    return n;
}

void co_warmcut_apply(struct co_warmcut *w, const struct co_steady *steady,
                      struct co_warmcut_totals t)
{
    if (w->opt.mode == CO_WARMUP_OFF)
        return;
    w->whole_ctr = *t.total;
    w->whole_time_s = *t.time_s;
    w->whole_lat_count = *t.lat ? pr_hist_count(*t.lat) : 0;
    double cut = 0.0;
    if (w->opt.mode == CO_WARMUP_FIXED) {
        cut = w->opt.s;
    } else if (!steady->judged) {
        snprintf(w->note, sizeof(w->note),
                 "--warmup=auto: the run was too short to judge (fewer than %d full intervals): "
                 "nothing left out",
                 CO_STEADY_MIN_INTERVALS);
        return;
    } else if (steady->warmup_n == 0) {
        snprintf(w->note, sizeof(w->note), "--warmup=auto: %s: nothing left out",
                 steady->settled ? "no warm-up detected" : "throughput never settled");
        return;
    } else {
        cut = steady->warmup_s;
    }
    uint32_t k = 0;
    while (k < w->n && w->iv[k].t_s <= cut + 1e-6)
        k++;
    if (k == 0 || k == w->n) {
        snprintf(w->note, sizeof(w->note), "--warmup: %.1f s %s: nothing left out", cut,
                 k == 0 ? "ends before the first interval" : "covers every interval of the run");
        return;
    }
    uint64_t all = lat_count(w, 0, w->n);
    if (all != w->whole_lat_count) {
        snprintf(w->note, sizeof(w->note),
                 "--warmup: the intervals' latency samples (%" PRIu64
                 ") do not add up to the run's (%" PRIu64 "): nothing left out",
                 all, w->whole_lat_count);
        return;
    }
    struct pr_counters cut_ctr = {0}, rest = *t.total;
    for (uint32_t i = 0; i < k; i++)
        pr_counters_add(&cut_ctr, &w->iv[i].ctr);
    if (!counters_sub(&rest, &cut_ctr)) {
        snprintf(w->note, sizeof(w->note),
                 "--warmup: the first intervals count more than the run's totals: nothing left "
                 "out");
        return;
    }
    pr_hist *lat = merge_from(w, k, false);
    if (lat == NULL)
        lat = pr_hist_new();
    pr_hist_destroy(t.lat);
    *t.lat = lat;
    if (*t.svc != NULL) {
        pr_hist *svc = merge_from(w, k, true);
        pr_hist_destroy(t.svc);
        *t.svc = svc ? svc : pr_hist_new();
    }
    *t.total = rest;
    w->cut_s = w->iv[k - 1].t_s;
    *t.time_s = *t.time_s > w->cut_s ? *t.time_s - w->cut_s : 0.0;
    w->cut_intervals = k;
    w->cut_ctr = cut_ctr;
    w->cut_lat_count = lat_count(w, 0, k);
    w->applied = true;
}

void co_warmcut_clear(struct co_warmcut *w)
{
    for (uint32_t i = 0; i < w->n; i++) {
        pr_hist_frozen_destroy(&w->iv[i].lat);
        pr_hist_frozen_destroy(&w->iv[i].svc);
    }
    free(w->iv);
    *w = (struct co_warmcut){0};
}
