/* co_run_out: what a run records into its co_result (identity, totals,
 * server deltas) and prints around its phases (header, phase lines, the
 * final report); see co_run_int.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_env.h"
#include "co_family.h"
#include "co_kinds.h"
#include "co_kinds_out.h"
#include "co_kinds_res.h"
#include "co_run_int.h"
#include "co_sbfmt.h"
#include "co_summary.h"
#include "co_threshold.h"

/* Per-agent identity and clock figures, in name order. */
void co__run_init_results(struct run *r)
{
    struct co_result *res = r->res;
    res->n_agents = r->n;
    res->agents = pr_xcalloc(r->n + 1, sizeof(*res->agents));
    res->env = co_env_new(r->n);
    r->srvstat = co_srvstat_new();
    for (uint32_t i = 0; i < r->n; i++) {
        const struct co_peer *p = co_fleet_peer(r->fleet, r->agents[i].peer);
        struct co_agent_result *ar = &res->agents[i];
        const struct pr_msg *plan = co_plan_msg(r->plan, co_plan_phases(r->plan) - 1, i);
        ar->name = pr_xstrdup(p->name);
        ar->host = pr_xstrdup(p->host);
        ar->region = pr_xstrdup(p->region);
        ar->cores = p->cores;
        ar->threads = plan ? plan->u.plan.conns : 0;
        ar->rate = plan ? plan->u.plan.rate : 0;
        ar->clock_offset_ns = p->offset_ns;
        ar->clock_rtt_ns = p->rtt_ns;
        ar->reason = pr_xstrdup("");
    }
}

/* An agent's mean CPU over its n intervals, each weighted by its length:
 * STATS.cpu is a share of its own interval, and the last one (the tail
 * after the stop, often a few ms) is shorter than the others. */
static double cpu_mean(const struct run *r, const struct agent *ag, uint32_t n)
{
    if (n == 0)
        return 0.0;
    double ivl = (double)r->interval_ms / 1000.0, len = ivl;
    if (r->end_ns > r->t0_ns) {
        double stop = (double)(r->end_ns - r->t0_ns) / 1e9;
        len = fmax(0.0, fmin(ivl, stop - (double)ag->cpu_last_k * ivl));
    }
    double time = (double)(n - 1) * ivl + len;
    return time > 0 ? ((ag->cpu_sum - ag->cpu_last) * ivl + ag->cpu_last * len) / time : 0.0;
}

/* Totals of lost agents from their STATS; CPU means; intervals; server. */
/* The intervals still held at the end (the tail, or all of them when none
 * was released) join the steady-state points, and the run is judged. */
static void steady_tail(struct co_result *res)
{
    pr_hist *scratch = pr_hist_new();
    for (uint32_t k = 0; k < res->n_intervals; k++) {
        const struct co_interval_result *iv = &res->intervals[k];
        const pr_hist *lat = co_interval_lat(iv, scratch);
        co_steady_add(&res->steady_pts, iv->t_s, iv->len_s, &iv->ctr, lat, iv->partial);
        co_warmcut_add(&res->warmcut, iv->t_s, iv->len_s, &iv->ctr, lat);
        co_warmcut_add_svc(&res->warmcut, co_interval_svc(iv, scratch));
    }
    pr_hist_destroy(&scratch);
    co_steady_judge(res->steady_pts.p, res->steady_pts.n, &res->steady);
}

void co__run_finish_results(struct run *r)
{
    struct co_result *res = r->res;

    for (uint32_t i = 0; i < r->n; i++) {
        struct agent *ag = &r->agents[i];
        struct co_agent_result *ar = &res->agents[i];
        if (!ar->done)
            ar->ctr = ag->sum; /* its latency: lost_agent_lat() */
        if (r->merge) {
            ar->intervals = co_merge_agent_intervals(r->merge, i);
            ar->late_intervals = co_merge_agent_late(r->merge, i);
            ar->cpu_pct_avg = cpu_mean(r, ag, ar->intervals);
        }
        if (!ar->lat)
            ar->lat = pr_hist_new();
    }
    if (r->merge) {
        co_merge_take(r->merge, &res->intervals, &res->n_intervals);
        co__live_sum_intervals(r);
        struct co_kind_result *run_kinds = NULL; /* a lost agent's kinds kept (co_kinds.h) */
        uint32_t n_run_kinds = 0;
        co_merge_take_run_kinds(r->merge, &run_kinds, &n_run_kinds);
        co_kinds_res_finish(res, &run_kinds, &n_run_kinds);
        co_srvstat_take(r->srvstat, res->intervals, res->n_intervals);
        for (uint32_t k = 0; k < res->n_intervals; k++) {
            double qps = co__srv_qps_get(r, res->intervals[k].k);
            res->intervals[k].has_server = qps >= 0;
            res->intervals[k].server_qps = qps >= 0 ? qps : 0.0;
        }
        steady_tail(res);
    }
    /* Without the lead's DONE its last sample is not the run's end. */
    bool lead_done = r->n > 0 && res->agents[0].done && !res->agents[0].lost;
    if (r->srv0 && r->srv_last && lead_done) {
        res->server = pr_xcalloc(r->n_srv_last + 1, sizeof(*res->server));
        for (uint32_t i = 0; i < r->n_srv_last; i++) {
            uint64_t start = 0;
            if (!co__srv_value(r->srv0, r->n_srv0, r->srv_last[i].name, &start))
                continue;
            res->server[res->n_server++] = (struct co_server_delta){pr_xstrdup(r->srv_last[i].name),
                                                                    start, r->srv_last[i].value};
        }
    }
    res->time_s = r->end_ns > r->first_t0_ns ? (double)(r->end_ns - r->first_t0_ns) / 1e9 : 0.0;
    res->bad_frames = co_fleet_bad_frames(r->fleet);
    res->refused_agents = co_fleet_refused(r->fleet);
    co_summary_totals(res);
    /* The server check is made: it stays whole-run. */
    co_warmcut_apply(&res->warmcut, &res->steady,
                     (struct co_warmcut_totals){&res->total, &res->lat, &res->svc, &res->time_s});
}

void co__run_fill_header(struct run *r)
{
    const struct co_args *a = r->a;
    struct co_result *res = r->res;
    res->tool = pr_xstrdup("stampede");
    res->version = pr_xstrdup(STAMPEDE_VERSION);
    res->workload = pr_xstrdup(a->workload ? a->workload : "");
    res->command = pr_xstrdup(pr_plan_cmd_name(a->cmd));
    res->opt_names = pr_xcalloc(a->n_passthrough + 1, sizeof(char *));
    res->opt_values = pr_xcalloc(a->n_passthrough + 1, sizeof(char *));
    for (uint32_t i = 0; i < a->n_passthrough; i++) {
        const char *kv = a->passthrough[i], *eq = strchr(kv, '=');
        size_t len = eq ? (size_t)(eq - kv) : strlen(kv);
        res->opt_names[i] = pr_xmalloc(len + 1);
        memcpy(res->opt_names[i], kv, len);
        res->opt_names[i][len] = '\0';
        res->opt_values[i] = pr_xstrdup(eq ? eq + 1 : "on");
    }
    res->n_opts = a->n_passthrough;
    res->threads = a->cfg.threads;
    res->report_interval_s = (uint32_t)a->cfg.report_interval_s;
    res->percentile = a->cfg.percentile;
    res->warmcut.opt = a->warmup;
    res->exit_reason = pr_xstrdup("");
}

/* A run of a family with its own live lines and summary (co_family.h): its
 * state, in res. */
void co__run_open_family_summary(struct run *r)
{
    const struct co_family *fam = co_registry_find(r->a->workload);
    if (r->a->cmd != PR_CMD_RUN || fam == NULL || fam->summary == NULL)
        return;
    r->res->fam_summary = fam->summary;
    r->res->fam_state = fam->summary->open(r->a, r->res);
}

void co__run_print_header(struct run *r)
{
    const struct co_args *a = r->a;
    bool strict = a->report_format == CO_REPORT_FORMAT_SYSBENCH;
    if (a->cmd != PR_CMD_RUN) {
        co_sbfmt_banner(r->out, strict);
        return;
    }
    if (r->res->fam_summary != NULL) { /* the family's own (co_family.h) */
        r->res->fam_summary->header(r->res->fam_state, r->out);
        fflush(r->out);
        return;
    }
    struct co_sbfmt_opts o = {
        .threads = a->cfg.threads,
        .rate = a->cfg.rate,
        .report_interval_s = (uint32_t)a->cfg.report_interval_s,
        .seed = a->cfg.seed,
        .percentile = a->cfg.percentile,
        .strict = strict,
        .checkpoints = a->checkpoints,
        .n_checkpoints = a->n_checkpoints,
        .forced_shutdown = r->forced_on,
        .forced_shutdown_s = (a->cfg.time_s * 1000u + r->forced_ms) / 1000u,
    };
    co_sbfmt_header(r->out, &o);
    fflush(r->out);
}

/* What a prepare / cleanup / prewarm phase does, before it starts. */
void co__run_print_phase(struct run *r, uint32_t phase)
{
    const struct co_args *a = r->a;
    uint32_t tables = a->cfg.tables, busy = 0;
    if (a->wl == PR_WL_BULK_INSERT) /* sbtest1..--threads */
        tables = a->cfg.threads;
    for (uint32_t i = 0; i < r->n; i++)
        busy += r->agents[i].in_phase;
    const char *name = co_plan_phase_name(r->plan, phase);
    const struct co_family *fam = co_registry_find(a->workload);
    if (fam && fam->phase_line) { /* the family's own words for its phases */
        fam->phase_line(r->out, a, name, busy, co__run_agent_name(r, 0));
        fflush(r->out);
        return;
    }
    if (a->cmd == PR_CMD_PREPARE && a->wl == PR_WL_BULK_INSERT)
        fprintf(r->out,
                "Creating %u bulk_insert table(s) 'sbtest1'..'sbtest%u' over %u agent(s)...\n",
                tables, tables, busy);
    else if (a->cmd == PR_CMD_PREPARE)
        fprintf(r->out, "%s: %u table(s) of %" PRIu64 " rows over %u agent(s)...\n",
                strcmp(name, "prepare") ? name : "Creating and loading", tables, a->cfg.table_size,
                busy);
    else if (a->cmd == PR_CMD_CLEANUP)
        fprintf(r->out, "Dropping %u table(s) 'sbtest1'..'sbtest%u' through agent %s...\n", tables,
                tables, co__run_agent_name(r, 0));
    else if (a->cmd == PR_CMD_CHECK)
        fprintf(r->out, "Checking %u table(s) through agent %s...\n", tables,
                co__run_agent_name(r, 0));
    else
        fprintf(r->out, "Prewarming %u table(s) through agent %s...\n", tables,
                co__run_agent_name(r, 0));
    fflush(r->out);
}

/* --threshold: each evaluated on the finished run, listed (stdout, unless
 * the sysbench format keeps stdout sysbench's), each crossed one named on
 * stderr; a run that went well then exits CO_EXIT_THRESHOLD. */
static void check_thresholds(struct run *r)
{
    const struct co_args *a = r->a;
    struct co_result *res = r->res;
    if (a->n_thresholds == 0)
        return;
    res->thr = pr_xcalloc(a->n_thresholds, sizeof(*res->thr));
    res->n_thr = a->n_thresholds;
    uint32_t crossed = 0;
    bool text = a->report_format != CO_REPORT_FORMAT_SYSBENCH;
    if (text)
        fprintf(r->out, "Thresholds:\n");
    for (uint32_t i = 0; i < a->n_thresholds; i++) {
        res->thr[i] = co_threshold_eval(&a->thresholds[i], res);
        const struct co_thr_result *t = &res->thr[i];
        char v[64];
        if (t->measured)
            snprintf(v, sizeof(v), "%.3f %s", t->value, co_threshold_unit(t->t));
        else
            snprintf(v, sizeof(v), "not measured");
        if (text)
            fprintf(r->out, "    %-28s %-24s %s\n", t->t->expr, v, t->passed ? "ok" : "CROSSED");
        if (!t->passed)
            fprintf(stderr, "stampede: threshold crossed: %s (measured: %s)\n", t->t->expr, v);
        crossed += !t->passed;
    }
    const struct co_threshold *stop = res->thr_stop;
    if (text && stop != NULL)
        fprintf(r->out,
                "    (the run was stopped at %.0f s: %s was crossed, %.3f %s so far; "
                "--abort-on-threshold)\n",
                res->thr_stop_at_s, stop->expr, res->thr_stop_value, co_threshold_unit(stop));
    if (text)
        fprintf(r->out, "\n");
    if ((crossed > 0 || stop != NULL) && res->exit_status == CO_EXIT_OK) {
        res->exit_status = CO_EXIT_THRESHOLD;
        free(res->exit_reason);
        if (stop != NULL) {
            char why[512];
            snprintf(why, sizeof(why),
                     "stopped at %.0f s: --threshold %s was crossed "
                     "(--abort-on-threshold)",
                     res->thr_stop_at_s, stop->expr);
            res->exit_reason = pr_xstrdup(why);
        } else {
            res->exit_reason = pr_xstrdup("a --threshold was crossed");
        }
    }
}

/* After a run's phases: the text report (the family's own, or sysbench's
 * with the per-kind and per-agent sections), or a prepare's rows/s line,
 * or "Done in". */
void co__run_print_end(struct run *r)
{
    const struct co_args *a = r->a;
    struct co_result *res = r->res;
    FILE *out = r->out;

    if (a->cmd == PR_CMD_RUN && r->t0_ns && res->fam_summary != NULL) {
        res->fam_summary->final(res->fam_state, out, res); /* co_family.h */
        co_kinds_out_text(out, res);
        co_summary_print_agents(out, res);
        check_thresholds(r);
    } else if (a->cmd == PR_CMD_RUN && r->t0_ns) {
        co_summary_print_final(out, a, res);
        fflush(out);
        const struct co_family *fam = co_registry_find(a->workload);
        if (fam && fam->summary_after && /* a script's report_cumulative and done() */
            fam->summary_after(a, res, &co_plan_msg(r->plan, 0, 0)->u.plan) < 0 &&
            res->exit_status == CO_EXIT_OK) {
            res->exit_status = CO_EXIT_FAILED;
            free(res->exit_reason);
            res->exit_reason = pr_xstrdup("the script's report_cumulative or done() failed");
        }
        if (a->report_format != CO_REPORT_FORMAT_SYSBENCH) /* per kind (co_kinds_out.h) */
            co_kinds_out_text(out, res);
        if (a->report_format != CO_REPORT_FORMAT_SYSBENCH) /* strict: in the JSON only */
            co_summary_print_agents(out, res);
        else /* stdout is sysbench's lines: the cut is said apart */
            co_summary_print_warmcut(stderr, res);
        check_thresholds(r);
    } else if (res->exit_status == CO_EXIT_OK && a->cmd == PR_CMD_PREPARE && r->rows_done) {
        fprintf(out, "Loaded %" PRIu64 " rows in %.1f s (%.0f rows/s).\n", r->rows_done,
                res->time_s, res->time_s > 0 ? (double)r->rows_done / res->time_s : 0.0);
    } else if (res->exit_status == CO_EXIT_OK) {
        fprintf(out, "Done in %.1f s.\n", res->time_s);
    }
}
