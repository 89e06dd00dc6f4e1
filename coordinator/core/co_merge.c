/* co_merge: per-interval exact merging of the agents' STATS (contract: co_merge.h). */
#include "co_merge.h"

#include <stdlib.h>
#include <string.h>

#include "co_kinds.h"
#include "pr_msg_lat.h"

struct slot {
    struct co_interval_result iv; /* merged figures */
    uint8_t *seen;                /* per agent: its STATS is in */
    bool closed;                  /* printed or skipped */
    bool released;                /* written out and freed (co_merge_release) */
    bool kinds_folded;            /* iv.kinds added to run_kinds; later STATS go to both */
};

struct co_merge {
    uint32_t n_agents;
    uint32_t *threads;    /* per agent connections */
    bool *lost;           /* per agent */
    uint32_t *n_stats;    /* per agent STATS merged */
    uint32_t *n_late;     /* per agent late STATS */
    uint64_t interval_ns; /* I */
    struct slot *slots;   /* index k - base */
    /* base + entries allocated (highest k + 1, at least) */
    uint64_t n_slots;
    uint64_t next;           /* lowest interval not closed */
    uint64_t frozen;         /* intervals below it were considered for freezing */
    bool keep_agent_hists;   /* fill co_interval_result.agent_lat */
    uint64_t released;       /* intervals below it were released (a prefix) */
    uint64_t base;           /* k of slots[0]; every interval below it was released */
    char *const *kind_names; /* borrowed: names of the kinds (co_merge_set_kinds) */
    uint32_t n_kind_names;
    /* every STATS.kst merged, over the whole run (released intervals and
     * lost agents included): the per-kind totals when an agent sent no DONE.
     * An interval's kinds are folded in once, when they leave the expanded
     * form (fold_kinds), so a STATS costs one add, not two */
    struct co_kind_result *run_kinds;
    uint32_t n_run_kinds;
};

co_merge *co_merge_new(uint32_t n_agents, const uint32_t *threads, uint32_t interval_ms,
                       bool keep_agent_hists)
{
    co_merge *m = pr_xcalloc(1, sizeof(*m));
    m->keep_agent_hists = keep_agent_hists;
    m->n_agents = n_agents;
    m->threads = pr_xcalloc(n_agents, sizeof(*m->threads));
    if (threads)
        memcpy(m->threads, threads, n_agents * sizeof(*threads));
    m->lost = pr_xcalloc(n_agents, sizeof(*m->lost));
    m->n_stats = pr_xcalloc(n_agents, sizeof(*m->n_stats));
    m->n_late = pr_xcalloc(n_agents, sizeof(*m->n_late));
    m->interval_ns = (uint64_t)(interval_ms ? interval_ms : 1000) * 1000000u;
    return m;
}

/* Slot k, base <= k < n_slots. */
static struct slot *at(const co_merge *m, uint64_t k)
{
    return &m->slots[k - m->base];
}

void co_merge_set_kinds(co_merge *m, char *const *names, uint32_t n)
{
    m->kind_names = names;
    m->n_kind_names = n;
    for (uint64_t k = m->base; k < m->n_slots; k++)
        co_kinds_name(at(m, k)->iv.kinds, at(m, k)->iv.n_kinds, names, n);
}

/* Slot k (k >= base), allocated as needed. */
static struct slot *slot_at(co_merge *m, uint64_t k)
{
    if (k >= m->n_slots) {
        uint64_t cap = m->n_slots - m->base;
        uint64_t n = k + 1 - m->base > cap * 2 ? k + 1 - m->base : cap * 2;
        m->slots = pr_xrealloc(m->slots, n * sizeof(*m->slots));
        memset(m->slots + cap, 0, (n - cap) * sizeof(*m->slots));
        m->n_slots = m->base + n;
    }
    struct slot *s = at(m, k);
    if (s->seen == NULL && !s->released) {
        s->seen = pr_xcalloc(m->n_agents, 1);
        s->iv.k = k;
        s->iv.lat = pr_hist_new();
        if (m->keep_agent_hists)
            s->iv.agent_lat_frozen = pr_xcalloc(m->n_agents, sizeof(pr_hist_frozen *));
        s->iv.agent_iv = pr_xcalloc(m->n_agents, sizeof(*s->iv.agent_iv));
        s->iv.n_agent_iv = m->n_agents;
        s->iv.len_s = (double)m->interval_ns / 1e9;
        s->iv.t_s = (double)(k + 1) * s->iv.len_s;
    }
    return s;
}

int co_merge_add(co_merge *m, uint32_t agent, const struct pr_msg_stats *st, bool *late)
{
    *late = false;
    if (agent >= m->n_agents || st->k >= CO_MERGE_MAX_INTERVALS)
        return PR_ERANGE;
    if (st->k < m->released) { /* written out: counted, its histograms are the caller's */
        co_kinds_add(&m->run_kinds, &m->n_run_kinds, st->kst, st->n_kst, m->kind_names,
                     m->n_kind_names, true); /* but for the run's per-kind sums */
        m->n_stats[agent]++;
        m->n_late[agent]++;
        *late = true;
        return 0;
    }
    struct slot *s = slot_at(m, st->k);
    if (s->seen[agent])
        return PR_ERANGE;
    s->seen[agent] = 1;
    struct co_interval_result *iv = &s->iv;
    pr_counters_add(&iv->ctr, &st->ctr);
    if (iv->lat != NULL)
        pr_msg_stats_lat_add(iv->lat, st);
    else
        pr_msg_stats_lat_fold(&iv->lat_frozen, st); /* a late one, long after */
    if (st->svc != NULL && iv->lat != NULL) {       /* service time: kept as the latency is */
        if (iv->svc == NULL)
            iv->svc = pr_hist_new();
        pr_hist_add(iv->svc, st->svc);
    } else if (st->svc != NULL) {
        pr_hist_frozen_add(&iv->svc_frozen, st->svc);
    }
    if (m->keep_agent_hists)
        iv->agent_lat_frozen[agent] = pr_msg_stats_lat_freeze(st);
    if (iv->agent_iv != NULL) /* the report's per-agent series */
        iv->agent_iv[agent] =
            (struct co_agent_interval){.transactions = st->ctr.transactions,
                                       .p95_us = pr_msg_stats_lat_percentile(st, 95.0),
                                       .reported = true};
    co_kinds_add(&iv->kinds, &iv->n_kinds, st->kst, st->n_kst, m->kind_names, m->n_kind_names,
                 iv->lat != NULL);
    if (s->kinds_folded) /* the interval's kinds are in the run's sums already: a late one */
        co_kinds_add(&m->run_kinds, &m->n_run_kinds, st->kst, st->n_kst, m->kind_names,
                     m->n_kind_names, true);
    iv->agents_reporting++;
    iv->threads += m->threads[agent];
    if (st->cpu_pct > iv->cpu_pct_max)
        iv->cpu_pct_max = st->cpu_pct;
    if (st->lag_max_us > iv->lag_max_us)
        iv->lag_max_us = st->lag_max_us;
    m->n_stats[agent]++;
    if (s->closed) {
        iv->late = true;
        m->n_late[agent]++;
        *late = true;
    }
    return 0;
}

void co_merge_agent_lost(co_merge *m, uint32_t agent)
{
    if (agent >= m->n_agents)
        return;
    m->lost[agent] = true;
    /* Intervals already closed without its figures are partial too. */
    for (uint64_t k = m->released; k < m->n_slots; k++)
        if (at(m, k)->seen && !at(m, k)->seen[agent])
            at(m, k)->iv.partial = true;
}

uint32_t co_merge_live(const co_merge *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_agents; i++)
        n += !m->lost[i];
    return n;
}

static bool all_live_reported(const co_merge *m, const struct slot *s)
{
    for (uint32_t i = 0; i < m->n_agents; i++)
        if (!m->lost[i] && (s->seen == NULL || !s->seen[i]))
            return false;
    return true;
}

bool co_merge_due(co_merge *m, uint64_t elapsed_ns, uint64_t grace_ns, uint64_t *k, bool *early)
{
    uint64_t boundary = (m->next + 1) * m->interval_ns;
    struct slot *s = m->next < m->n_slots ? at(m, m->next) : NULL;
    bool all = s && s->seen && all_live_reported(m, s);

    *k = m->next;
    /* 50 ms of tolerance for clock offset error before calling it a tail. */
    *early = all && elapsed_ns + 50000000u < boundary;
    return all || elapsed_ns >= boundary + grace_ns;
}

/* s's kinds into the run's per-kind sums, once (while still expanded: the
 * add walks their spans, once per interval, not per STATS). */
static void fold_kinds(co_merge *m, struct slot *s)
{
    if (s->kinds_folded)
        return;
    co_kinds_sum(&m->run_kinds, &m->n_run_kinds, s->iv.kinds, s->iv.n_kinds);
    s->kinds_folded = true;
}

/* Freeze the merged histogram of intervals more than KEEP_EXPANDED
 * behind the lowest open one (all closed, since they are below next). */
static void freeze_old(co_merge *m)
{
    for (; m->frozen + CO_MERGE_KEEP_EXPANDED < m->next; m->frozen++) {
        struct co_interval_result *iv = &at(m, m->frozen)->iv;
        if (iv->lat != NULL) {
            iv->lat_frozen = pr_hist_freeze(iv->lat);
            pr_hist_destroy(&iv->lat);
        }
        if (iv->svc != NULL) {
            iv->svc_frozen = pr_hist_freeze(iv->svc);
            pr_hist_destroy(&iv->svc);
        }
        fold_kinds(m, at(m, m->frozen));
        co_kinds_freeze(iv->kinds, iv->n_kinds);
    }
}

void co_merge_close(co_merge *m, uint64_t k, bool printed, double len_s)
{
    struct slot *s = slot_at(m, k);
    s->closed = true;
    s->iv.printed = printed;
    s->iv.len_s = len_s;
    s->iv.t_s = (double)k * (double)m->interval_ns / 1e9 + len_s;
    s->iv.agents_expected = co_merge_live(m);
    for (uint32_t i = 0; i < m->n_agents; i++)
        if (!s->seen[i] && m->lost[i])
            s->iv.partial = true;
    if (k == m->next)
        while (m->next < m->n_slots && at(m, m->next)->closed)
            m->next++;
    freeze_old(m);
}

void co_merge_end(co_merge *m, uint64_t end_ns)
{
    for (uint64_t k = m->base; k < m->n_slots; k++) {
        struct slot *s = at(m, k);
        uint64_t start = k * m->interval_ns, stop = start + m->interval_ns;
        uint64_t last = end_ns < stop ? end_ns : stop;
        if (s->seen == NULL || !s->closed || s->iv.printed || s->released)
            continue;
        uint64_t len_ns = last > start ? last - start : 0;
        s->iv.len_s = (double)len_ns / 1e9;
        s->iv.t_s = (double)(start + len_ns) / 1e9;
    }
}

const struct co_interval_result *co_merge_get(const co_merge *m, uint64_t k)
{
    return k >= m->base && k < m->n_slots && at(m, k)->seen ? &at(m, k)->iv : NULL;
}

uint64_t co_merge_count(const co_merge *m)
{
    uint64_t n = m->n_slots;
    while (n > m->base && at(m, n - 1)->seen == NULL && !at(m, n - 1)->released)
        n--;
    return n > m->released ? n : m->released;
}

bool co_merge_next_final(co_merge *m, bool all, uint64_t *k)
{
    uint64_t n = co_merge_count(m);
    if (m->released >= n)
        return false;
    struct slot *s = slot_at(m, m->released);
    if (!s->closed || (!all && !s->iv.printed)) /* a tail's length is final at co_merge_end */
        return false;
    *k = m->released;
    return all || all_live_reported(m, s) || m->released + CO_MERGE_KEEP_EXPANDED < m->next;
}

struct co_interval_result *co_merge_slot(co_merge *m, uint64_t k)
{
    if (k >= CO_MERGE_MAX_INTERVALS || k < m->released)
        return NULL;
    struct slot *s = slot_at(m, k);
    return s->released ? NULL : &s->iv;
}

static void free_interval(struct co_interval_result *iv, uint32_t n_agents)
{
    pr_hist_destroy(&iv->lat);
    pr_hist_frozen_destroy(&iv->lat_frozen);
    pr_hist_destroy(&iv->svc);
    pr_hist_frozen_destroy(&iv->svc_frozen);
    for (uint32_t i = 0; iv->agent_lat_frozen && i < n_agents; i++)
        pr_hist_frozen_destroy(&iv->agent_lat_frozen[i]);
    free(iv->agent_lat_frozen);
    iv->agent_lat_frozen = NULL;
    co_kinds_free(&iv->kinds, &iv->n_kinds);
    free(iv->srv_status);
    iv->srv_status = NULL;
    free(iv->agent_iv);
    iv->agent_iv = NULL;
}

void co_merge_release(co_merge *m, uint64_t k)
{
    if (k != m->released || k >= m->n_slots)
        return;
    struct slot *s = at(m, k);
    fold_kinds(m, s);
    free_interval(&s->iv, m->n_agents);
    free(s->seen);
    s->seen = NULL;
    s->released = true;
    m->released++;
    if (m->frozen < m->released)
        m->frozen = m->released;
    /* Drop the released slots once they are half the array: memory stays
     * bounded by the live window, however long the run. */
    uint64_t gone = m->released - m->base, cap = m->n_slots - m->base;
    if (gone >= 256 && gone * 2 >= cap) {
        memmove(m->slots, m->slots + gone, (cap - gone) * sizeof(*m->slots));
        memset(m->slots + (cap - gone), 0, gone * sizeof(*m->slots));
        m->base += gone;
        m->n_slots += gone;
    }
}

bool co_merge_is_released(const co_merge *m, uint64_t k)
{
    return k < m->released;
}

uint32_t co_merge_agent_intervals(const co_merge *m, uint32_t agent)
{
    return agent < m->n_agents ? m->n_stats[agent] : 0;
}

uint32_t co_merge_agent_late(const co_merge *m, uint32_t agent)
{
    return agent < m->n_agents ? m->n_late[agent] : 0;
}

void co_merge_take(co_merge *m, struct co_interval_result **out, uint32_t *n)
{
    uint64_t count = co_merge_count(m);
    *out = pr_xcalloc(count + 1, sizeof(**out));
    *n = 0;
    for (uint64_t k = m->released; k < count; k++) {
        struct slot *s = slot_at(m, k); /* an interval nobody reported is kept, empty */
        fold_kinds(m, s);
        (*out)[(*n)++] = s->iv;
        memset(&s->iv, 0, sizeof(s->iv));
    }
}

void co_merge_take_run_kinds(co_merge *m, struct co_kind_result **out, uint32_t *n)
{
    for (uint64_t k = m->released; k < m->n_slots; k++)
        fold_kinds(m, at(m, k)); /* intervals still held */
    *out = m->run_kinds;
    *n = m->n_run_kinds;
    m->run_kinds = NULL;
    m->n_run_kinds = 0;
}

void co_merge_destroy(co_merge **mp)
{
    co_merge *m = mp ? *mp : NULL;
    if (m == NULL)
        return;
    co_kinds_free(&m->run_kinds, &m->n_run_kinds);
    for (uint64_t k = m->base; k < m->n_slots; k++) {
        struct slot *s = at(m, k);
        free_interval(&s->iv, m->n_agents);
        free(s->seen);
    }
    free(m->slots);
    free(m->threads);
    free(m->lost);
    free(m->n_stats);
    free(m->n_late);
    free(m);
    *mp = NULL;
}
