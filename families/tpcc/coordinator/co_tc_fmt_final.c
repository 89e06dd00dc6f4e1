/* co_tc_fmt_final: the end of a tpcc run (co_tc_fmt.h) — tpcc_start's
 * final block (<Raw Results> .. <TpmC>, §4.6), stampede's section (per
 * transaction type, merged and per agent), the server cross-check by the
 * family's formula and the --json "tpcc" value. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_tc_fmt_int.h"
#include "pr_text.h"

/* <Constraint Check>'s minimum shares of the mix (none for New-Order). */
static const double min_share_pct[CO_TC_N] = {0.0, 43.0, 4.0, 4.0, 4.0};
#define MIN_RT_PASS_PCT 90.0

const uint32_t co_tc_spec_p90_ms[PR_TC_TXN_COUNT_] = {5000, 5000, 5000, 80000, 20000};

/* TPC-C's constraint on f, transaction type x: completions in the window,
 * and their 90th percentile within co_tc_spec_p90_ms. */
static bool spec_ok(const struct co_tc_txn_figures *f, int x)
{
    return f->sc + f->lt > 0 && f->p90_ms <= (double)co_tc_spec_p90_ms[x];
}

void co__tc_figures(uint64_t errors, uint64_t stmt_errors, uint64_t late, const pr_hist *lat,
                    struct co_tc_txn_figures *out)
{
    uint64_t n = lat ? pr_hist_count(lat) : 0;

    /* The agents compared each completion with the limit as it ended
     * (pr_msg_kstat.late): exact for any limit, where the histogram's
     * buckets split exactly only at their boundaries (not 17 ms, 0.1%
     * wide there). */
    memset(out, 0, sizeof(*out));
    out->lt = late < n ? late : n;
    out->sc = n - out->lt;
    out->fl = errors;
    out->rt = stmt_errors > errors ? stmt_errors - errors : 0;
    if (n == 0)
        return;
    out->avg_ms = pr_hist_mean(lat) / 1000.0;
    out->p90_ms = (double)pr_hist_value_at_percentile(lat, 90.0) / 1000.0;
    out->p95_ms = (double)pr_hist_value_at_percentile(lat, 95.0) / 1000.0;
    out->p99_ms = (double)pr_hist_value_at_percentile(lat, 99.0) / 1000.0;
    out->max_ms = (double)pr_hist_max(lat) / 1000.0;
}

bool co_tc_fmt_figures(const co_tc_fmt *t, int agent, enum pr_tc_txn x,
                       struct co_tc_txn_figures *out)
{
    if ((unsigned)x >= CO_TC_N)
        return false;
    if (agent < 0) {
        const struct co__tc_acc *w = &t->win[x];
        co__tc_figures(w->errors, w->stmt_errors, w->late, w->lat, out);
        return true;
    }
    if ((uint32_t)agent >= t->n_agents)
        return false;
    const struct co__tc_agent *a = &t->agents[agent];
    pr_hist *h = pr_hist_new();
    if (a->lat[x] != NULL)
        pr_hist_thaw(h, a->lat[x]);
    co__tc_figures(a->errors[x], a->stmt_errors[x], a->late[x], h, out);
    pr_hist_destroy(&h);
    return true;
}

double co_tc_fmt_tpmc(const co_tc_fmt *t)
{
    uint32_t w = co_tc_fmt_window_s(&t->cfg);
    if (w == 0)
        return 0.0;
    /* The text prints "%.3f": --json gives that same number. */
    char buf[64];
    snprintf(buf, sizeof(buf), "%.3f", (double)pr_hist_count(t->win[0].lat) * 60.0 / w);
    return strtod(buf, NULL);
}

static bool server_delta(const struct co_result *res, const char *name, uint64_t *d)
{
    for (uint32_t i = 0; i < res->n_server; i++)
        if (strcmp(res->server[i].name, name) == 0) {
            *d = res->server[i].end - res->server[i].start;
            return true;
        }
    return false;
}

bool co_tc_fmt_server_check(const struct co_result *res, uint64_t *client, uint64_t *server)
{
    static const char *const kinds[] = {"commit", "rollback", "retry_rollback"};
    uint64_t c = 0, s1 = 0, s2 = 0;
    for (uint32_t i = 0; res->kinds && i < res->n_kinds; i++)
        for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++)
            if (res->kinds[i].name && strcmp(res->kinds[i].name, kinds[j]) == 0)
                c += res->kinds[i].count + res->kinds[i].errors;
    *client = c;
    if (!server_delta(res, "Com_commit", &s1) || !server_delta(res, "Com_rollback", &s2))
        return false;
    *server = s1 + s2;
    return true;
}

/* ---- tpcc_start's final block ------------------------------------------ */

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *ok_ng(bool ok)
{
    return ok ? " [OK]\n" : " [NG] *\n";
}

/* tpcc_start's "        Payment: %3.2f%% (>=43.0%%)" lines: its labels are
 * right-aligned in 15 columns, the minimum printed "%4.1f". */
static void print_constraints(FILE *out, const struct co_tc_txn_figures *f)
{
    uint64_t all = 0;
    for (int x = 0; x < (int)CO_TC_N; x++)
        all += f[x].sc + f[x].lt;
    fprintf(out, "\n<Constraint Check> (all must be [OK])\n [transaction percentage]\n");
    for (int x = 1; x < (int)CO_TC_N; x++) {
        double p = pct(f[x].sc + f[x].lt, all);
        fprintf(out, "%15s: %3.2f%% (>=%4.1f%%)", pr_tc_txn_label((enum pr_tc_txn)x), p,
                min_share_pct[x]);
        fputs(ok_ng(all > 0 && p >= min_share_pct[x]), out);
    }
    fprintf(out, " [response time (at least 90%% passed)]\n");
    for (int x = 0; x < (int)CO_TC_N; x++) {
        double p = pct(f[x].sc, f[x].sc + f[x].lt);
        fprintf(out, "%15s: %3.2f%% ", pr_tc_txn_label((enum pr_tc_txn)x), p);
        fputs(ok_ng(f[x].sc + f[x].lt > 0 && p >= MIN_RT_PASS_PCT), out);
    }
}

/* <Raw Results2(sum ver.)>: the same accounting, agent by agent. */
static void print_raw2(FILE *out, const co_tc_fmt *t)
{
    fprintf(out, "\n<Raw Results2(sum ver.)>\n");
    for (int x = 0; x < (int)CO_TC_N; x++) {
        struct co_tc_txn_figures f, sum = {0};
        for (uint32_t a = 0; a < t->n_agents; a++) {
            co_tc_fmt_figures(t, (int)a, (enum pr_tc_txn)x, &f);
            sum.sc += f.sc, sum.lt += f.lt, sum.rt += f.rt, sum.fl += f.fl;
        }
        fprintf(out, "  [%d] sc:%" PRIu64 "  lt:%" PRIu64 "  rt:%" PRIu64 "  fl:%" PRIu64 " \n", x,
                sum.sc, sum.lt, sum.rt, sum.fl);
    }
}

static void print_block(FILE *out, co_tc_fmt *t)
{
    struct co_tc_txn_figures f[CO_TC_N];
    if (!t->stopping_printed) { /* the run ended before the window did */
        t->stopping_printed = true;
        fprintf(out, "\nSTOPPING THREADS");
    }
    for (uint32_t i = 0; i < t->cfg.threads; i++) /* tpcc_start: one per thread as it ends */
        fputc('.', out);
    fputc('\n', out);
    fprintf(out, "\n<Raw Results>\n");
    for (int x = 0; x < (int)CO_TC_N; x++) {
        co_tc_fmt_figures(t, -1, (enum pr_tc_txn)x, &f[x]);
        fprintf(out,
                "  [%d] sc:%" PRIu64 " lt:%" PRIu64 "  rt:%" PRIu64 "  fl:%" PRIu64
                " avg_rt: %.1f (%" PRIu32 ")\n",
                x, f[x].sc, f[x].lt, f[x].rt, f[x].fl, f[x].avg_ms, t->cfg.rt_limit_ms[x]);
    }
    fprintf(out, " in %" PRIu32 " sec.\n", co_tc_fmt_window_s(&t->cfg));
    print_raw2(out, t);
    print_constraints(out, f);
    fprintf(out, "\n<TpmC>\n");
    fprintf(out, "                 %.3f TpmC\n", co_tc_fmt_tpmc(t));
}

/* ---- stampede's section ---------------------------------------------------- */

static void print_row(FILE *out, const char *txn, const char *who,
                      const struct co_tc_txn_figures *f)
{
    fprintf(out, "    %-13s %-20s %10" PRIu64 " %9.3f %9.3f %9.3f %9.3f %9.3f\n", txn, who,
            f->sc + f->lt, f->avg_ms, f->p90_ms, f->p95_ms, f->p99_ms, f->max_ms);
}

static uint64_t kind_count(const struct co_result *res, const char *name)
{
    for (uint32_t i = 0; res->kinds && i < res->n_kinds; i++)
        if (res->kinds[i].name && strcmp(res->kinds[i].name, name) == 0)
            return res->kinds[i].count;
    return 0;
}

static void print_section(FILE *out, const co_tc_fmt *t, const struct co_result *res)
{
    struct co_tc_txn_figures f;
    fprintf(out,
            "\nTPC-C transactions in the measured window (%" PRIu32 " s after a %" PRIu32
            " s warm-up), response time in ms:\n",
            co_tc_fmt_window_s(&t->cfg), t->cfg.warmup_s);
    fprintf(out, "    %-13s %-20s %10s %9s %9s %9s %9s %9s\n", "transaction", "agent", "count",
            "avg", "p90", "p95", "p99", "max");
    for (int x = 0; x < (int)CO_TC_N; x++) {
        const char *label = pr_tc_txn_label((enum pr_tc_txn)x);
        co_tc_fmt_figures(t, -1, (enum pr_tc_txn)x, &f);
        print_row(out, label, "(all)", &f);
        for (uint32_t a = 0; a < t->n_agents && t->n_agents > 1; a++) {
            co_tc_fmt_figures(t, (int)a, (enum pr_tc_txn)x, &f);
            const char *name = res && a < res->n_agents ? res->agents[a].name : "?";
            print_row(out, "", name, &f);
        }
    }
    fprintf(out, "TPC-C response-time constraints (clause 5.2.5.4), the 90th percentile in the "
                 "measured window:\n");
    for (int x = 0; x < (int)CO_TC_N; x++) {
        co_tc_fmt_figures(t, -1, (enum pr_tc_txn)x, &f);
        fprintf(out, "    %-13s ", pr_tc_txn_label((enum pr_tc_txn)x));
        if (f.sc + f.lt > 0)
            fprintf(out, "p90 %9.3f ms <= %2" PRIu32 " s", f.p90_ms, co_tc_spec_p90_ms[x] / 1000);
        else
            fprintf(out, "no completion in the window");
        fputs(ok_ng(spec_ok(&f, x)), out);
    }
    uint64_t no = kind_count(res, "new_order"), rb = kind_count(res, "rollback");
    fprintf(out,
            "    whole run (warm-up included): %" PRIu64 " New-Orders, %" PRIu64
            " rolled back on purpose (the 1%%), %" PRIu64 " committed\n",
            no, rb, no > rb ? no - rb : 0);
    if (t->cfg.schemas > 0) {
        char first[160], last[160];
        struct pr_tc_opts o = {.schemas = t->cfg.schemas, .schema_offset = t->cfg.schema_offset};
        pr_tc_schema_db(t->cfg.db ? t->cfg.db : "", &o, 0, first, sizeof first);
        pr_tc_schema_db(t->cfg.db ? t->cfg.db : "", &o, o.schemas - 1, last, sizeof last);
        fprintf(out,
                "    multi-schema (-m %" PRIu32 " -o %" PRIu32 "): %s..%s, connection t in "
                "%s_<(t %% %" PRIu32 ") + %" PRIu32 ">; the figures are over all of them\n",
                o.schemas, o.schema_offset, first, last, t->cfg.db ? t->cfg.db : "", o.schemas,
                o.schema_offset);
    }
    fprintf(out, "Differences from tpcc_start (fixes, docs/reference.md: TPC-C report): "
                 "counters without races; limits compared in ms as given; percentiles from the "
                 "exact merged histograms, warm-up excluded; avg_rt over the measured window "
                 "only.\n");
    if (t->missing_kinds)
        fprintf(out, "WARNING: the agents did not report every TPC-C kind: figures of the "
                     "missing ones are 0 (install the same stampede version everywhere)\n");
    uint32_t want = t->cfg.interval_s ? co_tc_fmt_window_s(&t->cfg) / t->cfg.interval_s : 0;
    if (t->lines_printed < want)
        fprintf(out,
                "WARNING: the run ended after %" PRIu32 " of the window's %" PRIu32
                " interval lines: the figures hold what completed before, TpmC is still "
                "divided by the whole window\n",
                t->lines_printed, want);
    if (t->unaligned)
        fprintf(out,
                "WARNING: the agents' %" PRIu32 " ms intervals do not divide the warm-up or "
                "--report-interval: an interval straddling a boundary counted where it "
                "started\n",
                t->interval_ms);
    fputc('\n', out);
}

void co_tc_fmt_final(co_tc_fmt *t, FILE *out, const struct co_result *res)
{
    print_block(out, t);
    print_section(out, t, res);
}

/* ---- --json ---------------------------------------------------------------- */

static void jnum(FILE *f, const char *key, double v)
{
    char buf[40];
    fprintf(f, "\"%s\": %s", key, pr_fmt_double(buf, sizeof(buf), v) ? buf : "null");
}

static void json_txns(FILE *f, const co_tc_fmt *t, int agent)
{
    struct co_tc_txn_figures x;
    fputc('{', f);
    for (int i = 0; i < (int)CO_TC_N; i++) {
        co_tc_fmt_figures(t, agent, (enum pr_tc_txn)i, &x);
        fprintf(f,
                "%s\"%s\": {\"sc\": %" PRIu64 ", \"lt\": %" PRIu64 ", \"rt\": %" PRIu64
                ", \"fl\": %" PRIu64 ", \"rt_limit_ms\": %" PRIu32 ", ",
                i ? ", " : "", pr_tc_kind_name((enum pr_tc_kind)i), x.sc, x.lt, x.rt, x.fl,
                t->cfg.rt_limit_ms[i]);
        jnum(f, "avg_ms", x.avg_ms), fputs(", ", f);
        jnum(f, "p90_ms", x.p90_ms), fputs(", ", f);
        jnum(f, "p95_ms", x.p95_ms), fputs(", ", f);
        jnum(f, "p99_ms", x.p99_ms), fputs(", ", f);
        jnum(f, "max_ms", x.max_ms), fputc('}', f);
    }
    fputc('}', f);
}

static void json_constraints(FILE *f, const co_tc_fmt *t)
{
    struct co_tc_txn_figures x[CO_TC_N];
    uint64_t all = 0;
    bool all_ok = true;
    for (int i = 0; i < (int)CO_TC_N; i++) {
        co_tc_fmt_figures(t, -1, (enum pr_tc_txn)i, &x[i]);
        all += x[i].sc + x[i].lt;
    }
    fputs("{\"transaction_percentage\": {", f);
    for (int i = 1; i < (int)CO_TC_N; i++) {
        double p = pct(x[i].sc + x[i].lt, all);
        bool ok = all > 0 && p >= min_share_pct[i];
        all_ok = all_ok && ok;
        fprintf(f, "%s\"%s\": {", i > 1 ? ", " : "", pr_tc_kind_name((enum pr_tc_kind)i));
        jnum(f, "pct", p), fputs(", ", f), jnum(f, "min_pct", min_share_pct[i]);
        fprintf(f, ", \"ok\": %s}", ok ? "true" : "false");
    }
    fputs("}, \"response_time\": {", f);
    for (int i = 0; i < (int)CO_TC_N; i++) {
        uint64_t n = x[i].sc + x[i].lt;
        double p = pct(x[i].sc, n);
        bool ok = n > 0 && p >= MIN_RT_PASS_PCT;
        all_ok = all_ok && ok;
        fprintf(f, "%s\"%s\": {", i ? ", " : "", pr_tc_kind_name((enum pr_tc_kind)i));
        jnum(f, "pct", p), fputs(", ", f), jnum(f, "min_pct", MIN_RT_PASS_PCT);
        fprintf(f, ", \"ok\": %s}", ok ? "true" : "false");
    }
    fputs("}, \"p90_response_time\": {", f); /* TPC-C 5.2.5.4, co_tc_spec_p90_ms */
    bool spec_all = true;
    for (int i = 0; i < (int)CO_TC_N; i++) {
        bool ok = spec_ok(&x[i], i);
        spec_all = spec_all && ok;
        fprintf(f, "%s\"%s\": {", i ? ", " : "", pr_tc_kind_name((enum pr_tc_kind)i));
        jnum(f, "p90_ms", x[i].sc + x[i].lt > 0 ? x[i].p90_ms : NAN);
        fprintf(f, ", \"limit_ms\": %" PRIu32 ", \"ok\": %s}", co_tc_spec_p90_ms[i],
                ok ? "true" : "false");
    }
    fprintf(f, "}, \"p90_all_ok\": %s, \"all_ok\": %s}", spec_all ? "true" : "false",
            all_ok ? "true" : "false");
}

static void json_server(FILE *f, const struct co_result *res)
{
    uint64_t client = 0, server = 0;
    bool checked = co_tc_fmt_server_check(res, &client, &server);
    fprintf(f, "{\"checked\": %s, \"formula\": \"%s\", \"client\": %" PRIu64,
            checked ? "true" : "false", co_tc_family_summary.server_formula, client);
    if (checked)
        fprintf(f, ", \"server\": %" PRIu64 ", \"match\": %s, \"diff\": %" PRId64, server,
                server == client ? "true" : "false", (int64_t)(server - client));
    else
        fputs(", \"server\": null, \"match\": null, \"diff\": null", f);
    fprintf(f, ", \"reconnects\": %" PRIu64 "}", res->total.reconnects);
}

void co_tc_fmt_json(FILE *f, const co_tc_fmt *t, const struct co_result *res)
{
    char tpmc[64];
    snprintf(tpmc, sizeof(tpmc), "%.3f", co_tc_fmt_tpmc(t));
    for (char *c = tpmc; *c; c++) /* a decimal comma locale */
        if (*c == ',')
            *c = '.';
    fprintf(f,
            "{\"tpmC\": %s, \"new_orders\": %" PRIu64 ", \"window_s\": %" PRIu32
            ", \"warmup_s\": %" PRIu32 ", \"time_s\": %" PRIu32 ", \"report_interval_s\": %" PRIu32
            ", \"transactions\": ",
            tpmc, pr_hist_count(t->win[0].lat), co_tc_fmt_window_s(&t->cfg), t->cfg.warmup_s,
            t->cfg.time_s, t->cfg.interval_s);
    json_txns(f, t, -1);
    fputs(", \"constraints\": ", f);
    json_constraints(f, t);
    fputs(", \"server_check\": ", f);
    json_server(f, res);
    fprintf(f, ", \"trx_records_lost\": %" PRIu64 ", \"trx_files_failed\": %s", t->trx_lost,
            t->trx_failed ? "true" : "false");
    fputs(", \"schemas\": [", f); /* -m/-o: the databases, connection t's at t % N */
    for (uint32_t i = 0; i < t->cfg.schemas; i++) {
        char db[160];
        struct pr_tc_opts o = {.schemas = t->cfg.schemas, .schema_offset = t->cfg.schema_offset};
        pr_tc_schema_db(t->cfg.db ? t->cfg.db : "", &o, i, db, sizeof db);
        fputs(i ? ", " : "", f);
        pr_json_string(f, db);
    }
    fputc(']', f);
    fputs(", \"agents\": [", f);
    for (uint32_t a = 0; a < t->n_agents; a++) {
        fputs(a ? ", {\"name\": " : "{\"name\": ", f);
        pr_json_string(f, res && a < res->n_agents ? res->agents[a].name : "?");
        fputs(", \"transactions\": ", f);
        json_txns(f, t, (int)a);
        fputc('}', f);
    }
    fputs("]}", f);
}
