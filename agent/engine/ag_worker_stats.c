/* ag_worker_stats: a worker's interval and run figures, struct ag_wstats
 * (see ag_worker.h): made, freed, emptied and summed. */
#include <stdlib.h>
#include <string.h>

#include "ag_worker.h"
#include "pr_err.h"

void ag_wstats_init(struct ag_wstats *s, size_t nk)
{
    memset(s, 0, sizeof *s);
    s->lat = pr_hist_new();
    s->svc = pr_hist_new();
    s->lag = pr_hist_new();
    s->nk = nk;
    s->kst = pr_xcalloc(nk ? nk : 1, sizeof *s->kst);
    for (size_t i = 0; i < nk; i++)
        s->kst[i].lat = pr_hist_new();
}

void ag_wstats_close(struct ag_wstats *s)
{
    pr_hist_destroy(&s->lat);
    pr_hist_destroy(&s->svc);
    pr_hist_destroy(&s->lag);
    for (size_t i = 0; i < s->nk; i++)
        pr_hist_destroy(&s->kst[i].lat);
    free(s->kst);
    s->kst = NULL;
    s->nk = 0;
    free(s->trx);
    s->trx = NULL;
    s->n_trx = s->cap_trx = 0;
}

void ag_wstats_reset(struct ag_wstats *s)
{
    memset(&s->ctr, 0, sizeof s->ctr);
    s->rows = 0;
    pr_hist_reset(s->lat);
    pr_hist_reset(s->svc);
    pr_hist_reset(s->lag);
    s->slip_max_us = 0;
    s->last_end_ns = 0;
    s->n_trx = 0;
    s->trx_lost = 0;
    for (size_t i = 0; i < s->nk; i++) {
        s->kst[i].count = s->kst[i].errors = s->kst[i].late = 0;
        pr_hist_reset(s->kst[i].lat);
    }
}

void ag_wstats_fold(struct ag_wstats *dst, const struct ag_wstats *src)
{
    pr_counters_add(&dst->ctr, &src->ctr);
    pr_hist_add(dst->lat, src->lat);
    pr_hist_add(dst->svc, src->svc);
    pr_hist_add(dst->lag, src->lag);
    if (src->slip_max_us > dst->slip_max_us)
        dst->slip_max_us = src->slip_max_us;
    if (src->last_end_ns > dst->last_end_ns)
        dst->last_end_ns = src->last_end_ns;
    dst->rows += src->rows;
    for (size_t i = 0; i < dst->nk && i < src->nk; i++) {
        dst->kst[i].count += src->kst[i].count;
        dst->kst[i].errors += src->kst[i].errors;
        dst->kst[i].late += src->kst[i].late;
        pr_hist_add(dst->kst[i].lat, src->kst[i].lat);
    }
}

void ag_wstats_add(struct ag_wstats *dst, const struct ag_wstats *src)
{
    ag_wstats_fold(dst, src);
    dst->trx_lost += src->trx_lost;
    for (uint32_t i = 0; i < src->n_trx; i++)
        ag_wstats_add_trx(dst, &src->trx[i]);
}

void ag_wstats_add_trx(struct ag_wstats *s, const struct pr_msg_trx *t)
{
    if (s->n_trx >= PR_MSG_MAX_TRX) {
        s->trx_lost++;
        return;
    }
    if (s->n_trx == s->cap_trx) {
        s->cap_trx = s->cap_trx ? 2 * s->cap_trx : 256;
        s->trx = pr_xrealloc(s->trx, s->cap_trx * sizeof *s->trx);
    }
    s->trx[s->n_trx++] = *t;
}
