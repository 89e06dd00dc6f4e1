/* co_lua_summary: a Lua script's sysbench.hooks.report_cumulative after a
 * run, fed with the merged result of every agent, then its done(). See
 * co_lua.h. */
#include "co_args.h"
#include "co_lua.h"
#include "co_result.h"
#include "pr_hist.h"

int co_lua_summary_final(co_lua *l, const struct co_args *a, const struct co_result *res,
                         const struct pr_msg_plan *target)
{
    if (l == NULL)
        return 0;
    double pct = (double)a->cfg.percentile;
    const pr_hist *h = res->lat;
    struct co_lua_stat s = {
        .threads_running = res->threads,
        .time_interval = res->time_s,
        .time_total = res->time_s,
        .latency_pct_s = h && pct > 0 ? (double)pr_hist_value_at_percentile(h, pct) / 1e6 : 0.0,
        .latency_min_s = h ? (double)pr_hist_min(h) / 1e6 : 0.0,
        .latency_avg_s = h ? pr_hist_mean(h) / 1e6 : 0.0,
        .latency_max_s = h ? (double)pr_hist_max(h) / 1e6 : 0.0,
        .latency_sum_s = h ? (double)pr_hist_sum(h) / 1e6 : 0.0,
    };
    co_lua_stat_counters(&s, &res->total);
    int rc = co_lua_report_cumulative(l, &s) < 0 ? -1 : 0;
    return co_lua_done(l, a->opts, a->cfg.mysql_dry_run, target) < 0 ? -1 : rc;
}
