/* co_live: what a run merges and prints while it goes — the sysbench
 * interval lines, prepare progress, the lead agent's server samples — and
 * the run's latency from its intervals at the end. State: co_run_int.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "co_family.h"
#include "co_kinds.h"
#include "co_prom.h"
#include "co_run_int.h"
#include "co_sbfmt.h"
#include "co_stream.h"
#include "co_summary.h"
#include "co_threshold.h"
#include "pr_msg_lat.h"

void co__srv_copy(struct pr_msg_stat **dst, uint32_t *n, const struct pr_msg_stat *src,
                  uint32_t n_src)
{
    for (uint32_t i = 0; i < *n; i++)
        free((*dst)[i].name);
    free(*dst);
    *dst = pr_xcalloc(n_src + 1, sizeof(**dst));
    for (uint32_t i = 0; i < n_src; i++)
        (*dst)[i] = (struct pr_msg_stat){pr_xstrdup(src[i].name), src[i].value};
    *n = n_src;
}

bool co__srv_value(const struct pr_msg_stat *s, uint32_t n, const char *name, uint64_t *v)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0) {
            *v = s[i].value;
            return true;
        }
    return false;
}

/* The lead's READY sample: the run's server baseline. */
void co__live_baseline(struct run *r, const struct pr_msg_stat *srv, uint32_t n)
{
    uint64_t q = 0;
    co_srvstat_baseline(r->srvstat, srv, n);
    if (n == 0)
        return;
    co__srv_copy(&r->srv0, &r->n_srv0, srv, n);
    if (co__srv_value(srv, n, "Questions", &q)) {
        r->prev_questions = q;
        r->have_prev_questions = true;
    }
}

/* Server QPS by interval: a window from srv_qps_base (released intervals
 * are dropped), growing by doubling. */
void co__srv_qps_set(struct run *r, uint64_t k, double qps)
{
    if (k < r->srv_qps_base)
        return; /* released and written already */
    uint64_t i = k - r->srv_qps_base;
    if (i >= r->n_srv_qps) {
        uint64_t n = i + 1 > 2 * r->n_srv_qps ? i + 1 : 2 * r->n_srv_qps;
        r->srv_qps = pr_xrealloc(r->srv_qps, n * sizeof(*r->srv_qps));
        for (uint64_t j = r->n_srv_qps; j < n; j++)
            r->srv_qps[j] = -1.0;
        r->n_srv_qps = n;
    }
    r->srv_qps[i] = qps;
}

double co__srv_qps_get(const struct run *r, uint64_t k)
{
    if (k < r->srv_qps_base || k - r->srv_qps_base >= r->n_srv_qps)
        return -1.0;
    return r->srv_qps[k - r->srv_qps_base];
}

void co__srv_qps_drop_below(struct run *r, uint64_t k)
{
    if (k <= r->srv_qps_base)
        return;
    uint64_t d = k - r->srv_qps_base;
    if (d > r->n_srv_qps)
        d = r->n_srv_qps;
    r->srv_qps_base = k;
    if (r->srv_qps == NULL) /* no server sample yet (a dry run has none) */
        return;
    memmove(r->srv_qps, r->srv_qps + d, (r->n_srv_qps - d) * sizeof(*r->srv_qps));
    for (uint64_t j = r->n_srv_qps - d; j < r->n_srv_qps; j++)
        r->srv_qps[j] = -1.0;
}

/* The lead's server sample: interval server QPS, first and last samples. */
static void on_server_sample(struct run *r, const struct pr_msg_stats *st)
{
    uint64_t q = 0;
    co_srvstat_sample(r->srvstat, st->k, st->srv, st->n_srv);
    if (st->n_srv == 0)
        return;
    if (r->srv0 == NULL)
        co__srv_copy(&r->srv0, &r->n_srv0, st->srv, st->n_srv);
    co__srv_copy(&r->srv_last, &r->n_srv_last, st->srv, st->n_srv);
    if (!co__srv_value(st->srv, st->n_srv, "Questions", &q))
        return;
    if (r->have_prev_questions && st->k < CO_MERGE_MAX_INTERVALS)
        co__srv_qps_set(r, st->k,
                        (double)(q - r->prev_questions) / ((double)r->interval_ms / 1000.0));
    r->prev_questions = q;
    r->have_prev_questions = true;
}

/* A STATS for an interval already written out: its figures still count
 * in the run's totals and the checkpoint window. */
static void after_release(struct run *r, const struct pr_msg_stats *st)
{
    if (r->tot_lat == NULL)
        r->tot_lat = pr_hist_new();
    pr_msg_stats_lat_add(r->tot_lat, st);
    if (st->svc != NULL && r->tot_svc == NULL)
        r->tot_svc = pr_hist_new();
    if (st->svc != NULL)
        pr_hist_add(r->tot_svc, st->svc);
    if (st->k >= r->cp_from_k) {
        if (r->cp_lat == NULL)
            r->cp_lat = pr_hist_new();
        pr_msg_stats_lat_add(r->cp_lat, st);
        pr_counters_add(&r->cp_ctr, &st->ctr);
    }
}

/* The running sum's reserved span: from the agent's DB round trip to this
 * many times it (an event of one to a few hundred statements). */
#define CO_LIVE_SUM_SPAN 1024u

void co__live_agent_ready(struct run *r, uint32_t i)
{
    const struct co_agent_result *ar = &r->res->agents[i];
    struct agent *ag = &r->agents[i];
    if (ag->lat_acc == NULL)
        ag->lat_acc = pr_hist_acc_new();
    if (ar->has_db_rtt && ar->db_rtt_us > 0)
        pr_hist_acc_reserve(ag->lat_acc, ar->db_rtt_us, ar->db_rtt_us * CO_LIVE_SUM_SPAN);
}

void co__live_stats(struct run *r, uint32_t i, const struct pr_msg_stats *st)
{
    struct agent *ag = &r->agents[i];
    struct co_agent_result *ar = &r->res->agents[i];
    bool late = false;

    if (r->merge == NULL) {
        r->rows_done += st->rows; /* prepare progress: co__live_progress() */
        return;
    }
    bool released = co_merge_is_released(r->merge, st->k);
    if (co_merge_add(r->merge, i, st, &late) != 0)
        return;
    if (st->n_conns > 0) { /* a checkpoint's per connection figures (STATS.conns) */
        ag->cp_snaps = pr_xrealloc(ag->cp_snaps, (ag->n_cp_snaps + 1) * sizeof *ag->cp_snaps);
        struct co__cp_snap *s = &ag->cp_snaps[ag->n_cp_snaps++];
        s->k = st->k;
        s->n = st->n_conns;
        s->conns = pr_xmalloc(st->n_conns * sizeof *s->conns);
        memcpy(s->conns, st->conns, st->n_conns * sizeof *s->conns);
    }
    if (r->res->n_checkpoints > 0 && st->k < r->cp_from_k) {
        /* Its interval is in a checkpoint already printed. */
        pr_counters_add(&r->res->cp_late_ctr, &st->ctr);
        if (r->res->cp_late_lat == NULL)
            r->res->cp_late_lat = pr_hist_new();
        pr_msg_stats_lat_add(r->res->cp_late_lat, st);
    }
    if (released)
        after_release(r, st);
    if (r->res->fam_summary != NULL) /* co_family.h */
        r->res->fam_summary->stats(r->res->fam_state, i, st, released, r->interval_ms);
    if (ag->lat_acc == NULL)
        ag->lat_acc = pr_hist_acc_new();
    pr_msg_stats_lat_acc(ag->lat_acc, st);
    if (r->prom)
        co_prom_add_stats(r->prom, i, st);
    pr_counters_add(&ag->sum, &st->ctr);
    ag->lat_sum_us += pr_msg_stats_lat_sum(st);
    ag->cpu_sum += st->cpu_pct;
    if (st->k >= ag->cpu_last_k) {
        ag->cpu_last = st->cpu_pct;
        ag->cpu_last_k = st->k;
    }
    if (st->cpu_pct > ar->cpu_pct_max)
        ar->cpu_pct_max = st->cpu_pct;
    if (st->lag_max_us > ar->lag_max_us)
        ar->lag_max_us = st->lag_max_us;
    if (st->lag_p99_us > ar->lag_p99_us)
        ar->lag_p99_us = st->lag_p99_us;
    if (st->slip_us > ar->slip_max_us)
        ar->slip_max_us = st->slip_us;
    if (i == 0)
        on_server_sample(r, st);
    if (late)
        co__live_release(r, false); /* it may have completed an interval */
}

static void print_interval(struct run *r, uint64_t k)
{
    const struct co_interval_result *iv = co_merge_get(r->merge, k);
    const struct co_args *a = r->a;
    uint32_t live = co_merge_live(r->merge);
    pr_hist *empty = NULL;

    if (a->cfg.report_interval_s == 0 || r->res->fam_summary != NULL)
        return; /* a family's own lines: at release (co__live_release) */
    if (iv == NULL)
        empty = pr_hist_new();
    struct co_sbfmt_opts o = {
        .threads = a->cfg.threads,
        .rate = a->cfg.rate,
        .report_interval_s = (uint32_t)a->cfg.report_interval_s,
        .percentile = a->cfg.percentile,
        .strict = a->report_format == CO_REPORT_FORMAT_SYSBENCH,
    };
    struct co_sbfmt_interval line = {
        .time_s = (double)(k + 1) * r->interval_ms / 1000.0,
        .interval_s = r->interval_ms / 1000.0,
        .threads_running = iv ? iv->threads : 0,
        .counters = iv ? iv->ctr : (struct pr_counters){0},
        .hist = iv ? iv->lat : empty,
        .queue_len = iv ? iv->ctr.ev_queued : 0,
        /* Not events in flight (agents do not report that): the
         * connections serving the interval (README, deviations). */
        .concurrency = iv ? iv->threads : 0,
    };
    uint32_t reporting = iv ? iv->agents_reporting : 0;
    uint32_t lost = r->n - live;
    if (reporting < r->n && reporting + lost < r->n) {
        line.marks |= CO_SBFMT_LATE;
        if (o.strict) /* no marker on stdout: a parser summing the lines must hear it */
            fprintf(stderr,
                    "stampede: the [ %.0fs ] line went out without %u of %u agents' figures "
                    "(not heard %u ms after its boundary, --grace-ms): they are in the totals "
                    "and the JSON, in no interval line\n",
                    line.time_s, r->n - lost - reporting, r->n, co__live_grace_ms(r));
    }
    if (lost > 0 && reporting < r->n)
        line.marks |= CO_SBFMT_PARTIAL;
    const struct co_family *fam = co_registry_find(a->workload);
    if (fam && fam->live_line && !o.strict && fam->live_line(a, &line, o.percentile) == 1) {
        pr_hist_destroy(&empty);
        return;
    }
    co_sbfmt_interval(r->out, &o, &line);
    fflush(r->out);
    pr_hist_destroy(&empty);
}

/* How long after its boundary an interval line waits for a live agent not
 * yet heard: --grace-ms, or CO_LIVE_HOLD_MS, twice the time after which a
 * silent agent is declared lost (its lines then go out [partial] at once).
 * A line is printed as soon as every live agent reported, so the wait costs
 * nothing unless an agent is late; then the line waits so that the interval
 * lines add up to the totals in every output mode (issue 30 §4: half an
 * interval was the rule, and a busy box's sysbench-format lines summed to
 * 5,938 transactions against 6,963). */
#define CO_LIVE_HOLD_MS (2u * CO_FLEET_LOSS_MS)
uint32_t co__live_grace_ms(const struct run *r)
{
    return r->a->grace_ms ? r->a->grace_ms : CO_LIVE_HOLD_MS;
}

/* Print (or skip, for a tail) every interval that is due. final: the run
 * is over, everything left is due. */
void co__live_flush(struct run *r, bool final)
{
    uint64_t k, now = co_fleet_now_ns();
    uint64_t elapsed = now > r->t0_ns ? now - r->t0_ns : 0;
    uint64_t ivl_ns = (uint64_t)r->interval_ms * 1000000u;
    uint64_t grace = (uint64_t)co__live_grace_ms(r) * 1000000u;
    bool early;

    if (r->merge == NULL || r->t0_ns == 0)
        return;
    while (co_merge_due(r->merge, final ? UINT64_MAX / 2 : elapsed, grace, &k, &early)) {
        if (final && k >= co_merge_count(r->merge))
            break;
        uint64_t start = k * ivl_ns, end = (k + 1) * ivl_ns;
        uint64_t stop = r->end_ns > r->t0_ns ? r->end_ns - r->t0_ns : elapsed;
        /* An interval that starts at --time or later holds only the tail of
         * events in flight at the deadline: its figures count in the
         * totals, no interval line starts after --time (a sixth line of a
         * 10 s run at 5 s intervals would join a parser's series). */
        uint64_t limit_ns =
            r->a->cmd == PR_CMD_RUN && r->plan ? co_plan_time_s(r->plan) * 1000000000u : 0;
        bool tail = early || (final && end > stop + 50000000u) || (limit_ns && start >= limit_ns);
        double len = (double)r->interval_ms / 1000.0;
        if (tail)
            len = stop > start ? (double)((stop < end ? stop : end) - start) / 1e9 : 0.0;
        if (!tail)
            print_interval(r, k);
        co_merge_close(r->merge, k, !tail, len);
        if (!tail)
            co__live_checkpoints(r, k);
        co__live_release(r, false);
    }
    if (final) { /* the tails end when the run did (co_result.time_s) */
        co_merge_end(r->merge, r->end_ns > r->t0_ns ? r->end_ns - r->t0_ns : elapsed);
        co__live_release(r, true);
    }
    co__live_prom(r, final);
}

/* After intervals were released: give the heap's free pages back to the
 * system (glibc's malloc_trim), at most every CO_LIVE_TRIM_NS. A backlog
 * of STATS queued in ZeroMQ (a coordinator that fell behind) is freed once
 * handled, but glibc keeps the pages: without this the RSS stays at the
 * backlog's peak for the rest of the run (tests/bench/coordinator-merge
 * --long, README "Long runs"). */
#define CO_LIVE_TRIM_NS (10 * 1000000000ull)
static void trim_heap(struct run *r)
{
#ifdef __GLIBC__
    uint64_t now = co_fleet_now_ns();
    if (now - r->trim_ns < CO_LIVE_TRIM_NS)
        return;
    r->trim_ns = now;
    malloc_trim(0);
#else
    (void)r;
#endif
}

/* --abort-on-threshold: from its start on, each live-judged --threshold
 * (co_threshold_live) on the run's figures up to interval iv (its released
 * counters and latency, over the time to its end); the first crossed one
 * is kept in res->thr_stop, for the run's loop to stop the run. */
/* A kind's threshold judged live: the released intervals' kinds summed
 * (named as the run's), from the first interval on. */
static void live_kinds_add(struct run *r, const struct co_interval_result *iv)
{
    const struct co_args *a = r->a;
    bool want = false;
    for (uint32_t i = 0; i < a->n_thresholds && !want; i++)
        want = a->thresholds[i].kind != NULL && co_threshold_live(&a->thresholds[i]);
    if (!want || a->abort_on_threshold_s == 0 || iv->kinds == NULL)
        return;
    co_kinds_sum(&r->live_kinds, &r->n_live_kinds, iv->kinds, iv->n_kinds);
    co_kinds_name(r->live_kinds, r->n_live_kinds, r->res->kind_names, r->res->n_kinds);
}

static void live_thresholds(struct run *r, const struct co_interval_result *iv)
{
    const struct co_args *a = r->a;
    struct co_result *res = r->res;
    if (a->abort_on_threshold_s == 0 || res->thr_stop != NULL || r->stopping ||
        iv->t_s < (double)a->abort_on_threshold_s)
        return;
    struct co_result so_far = {.total = r->live_ctr,
                               .lat = r->tot_lat,
                               .time_s = iv->t_s,
                               .kinds = r->live_kinds,
                               .n_kinds = r->n_live_kinds};
    for (uint32_t i = 0; i < a->n_thresholds; i++) {
        if (!co_threshold_live(&a->thresholds[i]))
            continue;
        struct co_thr_result t = co_threshold_eval(&a->thresholds[i], &so_far);
        if (!t.measured || t.passed)
            continue;
        res->thr_stop = t.t;
        res->thr_stop_value = t.value;
        res->thr_stop_at_s = iv->t_s;
        fprintf(stderr,
                "stampede: threshold crossed at %.0f s: %s (measured so far: %.3f %s); stopping "
                "the run (--abort-on-threshold)\n",
                iv->t_s, t.t->expr, t.value, co_threshold_unit(t.t));
        return;
    }
}

void co__live_release(struct run *r, bool all)
{
    uint64_t k;
    bool released = false;
    if (r->merge == NULL || r->keep_closed)
        return;
    if (r->scratch == NULL)
        r->scratch = pr_hist_new();
    if (r->tot_lat == NULL)
        r->tot_lat = pr_hist_new();
    while (co_merge_next_final(r->merge, all, &k)) {
        struct co_interval_result *iv = co_merge_slot(r->merge, k);
        double qps = co__srv_qps_get(r, k);
        iv->has_server = qps >= 0;
        iv->server_qps = qps >= 0 ? qps : 0.0;
        co_srvstat_take(r->srvstat, iv, 1); /* its server_status, before it is written */
        const pr_hist *h = co_interval_lat(iv, r->scratch);
        pr_hist_add(r->tot_lat, h);
        co_steady_add(&r->res->steady_pts, iv->t_s, iv->len_s, &iv->ctr, h, iv->partial);
        co_warmcut_add(&r->res->warmcut, iv->t_s, iv->len_s, &iv->ctr, h);
        pr_counters_add(&r->live_ctr, &iv->ctr);
        live_kinds_add(r, iv);
        live_thresholds(r, iv);
        if (k >= r->cp_from_k) { /* not in a checkpoint taken already */
            if (r->cp_lat == NULL)
                r->cp_lat = pr_hist_new();
            pr_hist_add(r->cp_lat, h);
            pr_counters_add(&r->cp_ctr, &iv->ctr);
        }
        h = co_interval_svc(iv, r->scratch);
        if (h != NULL && r->tot_svc == NULL)
            r->tot_svc = pr_hist_new();
        if (h != NULL)
            pr_hist_add(r->tot_svc, h);
        co_warmcut_add_svc(&r->res->warmcut, h);
        if (!r->stream_opened) {
            r->stream_opened = true;
            r->stream = co_stream_open(r->a, r->res);
        }
        co_stream_interval(r->stream, iv);
        if (r->res->fam_summary != NULL) { /* co_family.h: its lines, its sums */
            r->res->fam_summary->interval(r->res->fam_state, r->out, iv, r->interval_ms);
            fflush(r->out);
        }
        co_merge_release(r->merge, k);
        co__srv_qps_drop_below(r, k + 1); /* bounded: README "Long runs" */
        co_srvstat_drop_below(r->srvstat, k + 1);
        released = true;
    }
    if (released)
        trim_heap(r);
}

void co__live_prom(struct run *r, bool force)
{
    uint64_t now = co_fleet_now_ns();
    if (r->prom == NULL || (!force && now < r->prom_pub_ns + 200000000u))
        return;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct co_agent_result *ar = &r->res->agents[i];
        co_prom_agent_state(r->prom, i, !r->agents[i].lost, ar->clock_offset_ns);
    }
    co_prom_publish(r->prom);
    r->prom_pub_ns = now;
}

/* ---- --report-checkpoints ----------------------------------------------- */

/* Agent ag's latest STATS.conns at or before interval k, moved out (NULL:
 * none); older ones are dropped, later ones kept. */
static struct co__cp_snap take_snap(struct agent *ag, uint64_t k)
{
    struct co__cp_snap got = {0};
    uint32_t j = 0;
    for (; j < ag->n_cp_snaps && ag->cp_snaps[j].k <= k; j++) {
        free(got.conns);
        got = ag->cp_snaps[j];
    }
    memmove(ag->cp_snaps, ag->cp_snaps + j, (ag->n_cp_snaps - j) * sizeof *ag->cp_snaps);
    ag->n_cp_snaps -= j;
    return got;
}

/* Threads fairness of the checkpoint ending at interval k, per connection
 * as sysbench's per thread: each agent's connections' figures at the
 * checkpoint's interval (its STATS.conns) less those at the previous
 * checkpoint; an agent that ended before the interval, its DONE.conns. An
 * agent whose STATS for the interval has not come (late; the next report
 * counts it) adds no unit. A lost one, or one with more connections than a
 * message carries: its STATS totals since the previous checkpoint spread
 * evenly over its connections, and *measured is false. */
static struct co_sbfmt_unit *checkpoint_units(struct run *r, uint64_t k, size_t *n, bool *measured)
{
    size_t total = 0, u = 0;
    *measured = true;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct co_agent_result *ar = &r->res->agents[i];
        uint32_t most = ar->n_conns;
        for (uint32_t j = 0; j < r->agents[i].n_cp_snaps; j++)
            most = r->agents[i].cp_snaps[j].n > most ? r->agents[i].cp_snaps[j].n : most;
        total += most > ar->threads ? most : ar->threads ? ar->threads : 1;
    }
    struct co_sbfmt_unit *units = pr_xcalloc(total + 1, sizeof(*units));
    for (uint32_t i = 0; i < r->n; i++) {
        struct co_agent_result *ar = &r->res->agents[i];
        struct agent *ag = &r->agents[i];
        uint64_t ev = ag->sum.transactions - ar->cp_events;
        uint64_t lat = ag->lat_sum_us - ar->cp_lat_us;
        ar->cp_events = ag->sum.transactions;
        ar->cp_lat_us = ag->lat_sum_us;
        struct co__cp_snap s = take_snap(ag, k);
        if (s.conns != NULL) {
            u += co_summary_conn_units(s.conns, s.n, ar->cp_conns, ar->n_cp_conns, units + u);
            free(ar->cp_conns);
            ar->cp_conns = s.conns;
            ar->n_cp_conns = s.n;
            continue;
        }
        if (ag->done && ar->n_conns > 0) { /* it ended before this interval */
            u += co_summary_conn_units(ar->conns, ar->n_conns, ar->cp_conns, ar->n_cp_conns,
                                       units + u);
            free(ar->cp_conns);
            ar->cp_conns = pr_xmalloc(ar->n_conns * sizeof *ar->cp_conns);
            memcpy(ar->cp_conns, ar->conns, ar->n_conns * sizeof *ar->cp_conns);
            ar->n_cp_conns = ar->n_conns;
            continue;
        }
        if (!ar->lost && ar->threads <= PR_MSG_MAX_CONNS)
            continue; /* late: its interval goes into the next report */
        *measured = false;
        uint64_t c = ar->threads ? ar->threads : 1;
        for (uint64_t j = 0; j < c; j++, u++) {
            units[u].events = ev / c + (j < ev % c);
            units[u].lat_sum_us = lat / c + (j < lat % c);
        }
    }
    *n = u;
    return units;
}

/* The checkpoint at_s, taken at the end of interval k: merge the window's
 * intervals, print its report, keep it, restart the window. */
static void take_checkpoint(struct run *r, uint64_t k, uint32_t at_s)
{
    struct co_result *res = r->res;
    const struct co_args *a = r->a;
    pr_hist *scratch = pr_hist_new();

    res->checkpoints =
        pr_xrealloc(res->checkpoints, (res->n_checkpoints + 1) * sizeof(*res->checkpoints));
    struct co_checkpoint_result *cp = &res->checkpoints[res->n_checkpoints++];
    *cp = (struct co_checkpoint_result){
        .at_s = at_s,
        .t_s = (double)(k + 1) * r->interval_ms / 1000.0,
        .k_first = r->cp_from_k,
        .k_last = k,
        .lat = pr_hist_new(),
    };
    cp->len_s = cp->t_s - r->cp_from_s;
    if (r->cp_lat != NULL) /* the window's intervals already written out */
        pr_hist_add(cp->lat, r->cp_lat);
    pr_counters_add(&cp->ctr, &r->cp_ctr);
    pr_hist_destroy(&r->cp_lat);
    memset(&r->cp_ctr, 0, sizeof(r->cp_ctr));
    for (uint64_t i = r->cp_from_k; i <= k; i++) {
        const struct co_interval_result *iv = co_merge_get(r->merge, i);
        if (iv == NULL)
            continue;
        pr_counters_add(&cp->ctr, &iv->ctr);
        pr_hist_add(cp->lat, co_interval_lat(iv, scratch));
    }
    pr_hist_destroy(&scratch);
    if (res->cp_late_lat != NULL) { /* late figures of earlier windows */
        cp->late_in = res->cp_late_ctr.transactions;
        pr_counters_add(&cp->ctr, &res->cp_late_ctr);
        pr_hist_add(cp->lat, res->cp_late_lat);
        memset(&res->cp_late_ctr, 0, sizeof(res->cp_late_ctr));
        pr_hist_destroy(&res->cp_late_lat);
    }
    size_t n_units = 0;
    struct co_sbfmt_unit *units = checkpoint_units(r, k, &n_units, &cp->fairness_per_conn);
    co_sbfmt_fairness_of(units, n_units, &cp->fairness);
    struct co_sbfmt_opts o = {
        .threads = a->cfg.threads,
        .percentile = a->cfg.percentile,
    };
    struct co_sbfmt_final fin = {
        .counters = cp->ctr,
        .hist = cp->lat,
        .total_time_s = cp->t_s, /* sysbench: total time counts from the start */
        .rate_time_s = cp->len_s,
        .units = units,
        .n_units = n_units,
    };
    fprintf(r->out, "[ %.0fs ] Checkpoint report:\n", cp->t_s);
    co_sbfmt_final(r->out, &o, &fin);
    fflush(r->out);
    free(units);
    r->cp_from_k = k + 1;
    r->cp_from_s = cp->t_s;
}

void co__live_checkpoints(struct run *r, uint64_t k)
{
    const struct co_args *a = r->a;
    uint32_t due = 0;

    /* Checkpoints that fall on the same boundary make one report; the
     * agents send STATS.conns for the same intervals. */
    while (r->next_cp < a->n_checkpoints &&
           pr_checkpoint_interval(a->checkpoints[r->next_cp], r->interval_ms) <= k)
        due = a->checkpoints[r->next_cp++] + 1;
    if (due > 0)
        take_checkpoint(r, k, due - 1);
}

/* Prepare: "[ 10s ] rows loaded: N/M (P%), R rows/s, ETA S s" once per
 * --report-interval (every 10 s without one), a little after the agents'
 * STATS for that boundary came in. */
void co__live_progress(struct run *r)
{
    uint64_t ri = r->a->cfg.report_interval_s;
    uint64_t period_ns = (uint64_t)(ri > 0 ? ri : 10) * 1000000000u, now = co_fleet_now_ns();
    uint64_t total = co_plan_rows_total(r->plan);

    if (r->a->cmd != PR_CMD_PREPARE || total == 0)
        return;
    if (r->next_progress_ns == 0)
        r->next_progress_ns = r->first_t0_ns + period_ns + 300000000u;
    if (now < r->next_progress_ns)
        return;
    double rate = (double)(r->rows_done - r->rows_shown) / ((double)period_ns / 1e9);
    double left = total > r->rows_done ? (double)(total - r->rows_done) : 0.0;
    fprintf(r->out, "[ %.0fs ] rows loaded: %" PRIu64 "/%" PRIu64 " (%.1f%%), %.0f rows/s, ",
            (double)(r->next_progress_ns - 300000000u - r->first_t0_ns) / 1e9, r->rows_done, total,
            100.0 * (double)r->rows_done / (double)total, rate);
    if (rate > 0)
        fprintf(r->out, "ETA %.0fs\n", left / rate);
    else
        fprintf(r->out, "ETA -\n");
    fflush(r->out);
    r->rows_shown = r->rows_done;
    r->next_progress_ns += period_ns;
}

/* The run's latency (and service time) is the sum of its intervals' (the
 * tail included), summed as they were released (co__live_release), which
 * equals the sum of the agents' DONE histograms and also holds what a lost
 * agent reported before it went. A lost agent's own latency is the sum of
 * its STATS, kept per agent in a running sum (pr_hist_acc) as they arrive. Any
 * interval not released (none once the final flush ran) is added too. */
void co__live_sum_intervals(struct run *r)
{
    struct co_result *res = r->res;
    pr_hist *scratch = pr_hist_new();

    res->lat = r->tot_lat ? r->tot_lat : pr_hist_new();
    res->svc = r->tot_svc;
    r->tot_lat = r->tot_svc = NULL;
    for (uint32_t k = 0; k < res->n_intervals; k++) {
        const pr_hist *h = co_interval_lat(&res->intervals[k], scratch);
        if (h)
            pr_hist_add(res->lat, h);
        h = co_interval_svc(&res->intervals[k], scratch); /* rate mode: service time */
        if (h && res->svc == NULL)
            res->svc = pr_hist_new();
        if (h)
            pr_hist_add(res->svc, h);
    }
    if (res->n_checkpoints > 0) { /* the final report's window: after the last one */
        res->has_since_cp = true;
        res->since_cp_ctr = r->cp_ctr;
        res->since_cp_lat = r->cp_lat ? r->cp_lat : pr_hist_new();
        r->cp_lat = NULL;
    }
    for (uint32_t i = 0; i < r->n; i++) {
        struct co_agent_result *ar = &res->agents[i];
        if (ar->done)
            continue;
        pr_hist_destroy(&ar->lat);
        if (r->agents[i].lat_acc != NULL) {
            ar->lat = pr_hist_new();
            pr_hist_acc_thaw(ar->lat, r->agents[i].lat_acc);
        }
    }
    pr_hist_destroy(&scratch);
}
