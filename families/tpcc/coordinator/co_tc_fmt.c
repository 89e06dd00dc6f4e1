/* co_tc_fmt: the live part of tpcc_start's output (co_tc_fmt.h):
 * header, RAMP-UP / MEASURING START, interval lines, STOPPING THREADS, and
 * the window's sums, built from intervals as they become final. */
#include "co_tc_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "co_kinds.h"
#include "co_tc_args.h"
#include "co_tc_fmt_int.h"
#include "pr_msg_trx.h"
#include "pr_parse.h"

static const uint32_t default_limits_ms[CO_TC_N] = {5, 5, 5, 80, 20};

uint32_t co_tc_fmt_window_s(const struct co_tc_fmt_cfg *cfg)
{
    if (cfg->interval_s == 0)
        return cfg->time_s;
    return cfg->time_s / cfg->interval_s * cfg->interval_s;
}

co_tc_fmt *co_tc_fmt_new(const struct co_tc_fmt_cfg *cfg, struct co_result *res)
{
    co_tc_fmt *t = pr_xcalloc(1, sizeof(*t));
    t->cfg = *cfg;
    t->res = res;
    t->line = -1;
    t->warm_ms = (uint64_t)cfg->warmup_s * 1000u;
    t->end_ms = t->warm_ms + (uint64_t)co_tc_fmt_window_s(cfg) * 1000u;
    for (size_t i = 0; i < CO_TC_N; i++)
        t->win[i].lat = pr_hist_new();
    t->line_lat = pr_hist_new();
    t->scratch = pr_hist_new();
    for (size_t k = 0; k < PR_TC_K_COUNT_; k++)
        t->kind_of[k] = -1;
    return t;
}

void co_tc_fmt_destroy(co_tc_fmt **tp)
{
    co_tc_fmt *t = *tp;
    if (t == NULL)
        return;
    for (size_t i = 0; i < CO_TC_N; i++)
        pr_hist_destroy(&t->win[i].lat);
    for (uint32_t a = 0; a < t->n_agents; a++)
        for (size_t i = 0; i < CO_TC_N; i++)
            pr_hist_frozen_destroy(&t->agents[a].lat[i]);
    free(t->agents);
    free(t->trx_end_us);
    co_tc_trx_destroy(&t->trx);
    pr_hist_destroy(&t->line_lat);
    pr_hist_destroy(&t->scratch);
    free(t->own_opt);
    free(t);
    *tp = NULL;
}

/* tpcc_start's option letter of a stampede option, 0: none. */
static char letter_of(const char *name)
{
    static const struct {
        const char *name;
        char opt;
    } map[] = {
        {"mysql-host", 'h'},      {"mysql-port", 'P'},   {"mysql-db", 'd'},    {"mysql-user", 'u'},
        {"warehouses", 'w'},      {"threads", 'c'},      {"warmup-time", 'r'}, {"time", 'l'},
        {"report-interval", 'i'}, {"mysql-socket", 'S'},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].name, name) == 0)
            return map[i].opt;
    if (strcmp(name, "multi-schema") == 0)
        return 'm';
    if (strcmp(name, "multi-schema-offset") == 0)
        return 'o';
    return 0;
}

void co_tc_fmt_cfg_from_args(const struct co_args *a, struct co_tc_fmt_cfg *cfg,
                             struct co_tc_optline **lines_buf)
{
    const struct co_tc_args *t = co_tc_args_of(a);
    struct pr_tc_opts o = {0};

    memset(cfg, 0, sizeof(*cfg));
    if (t != NULL)
        o = t->o;
    else /* not checked (check_options) */
        memcpy(o.rt_limit_ms, default_limits_ms, sizeof(o.rt_limit_ms));
    cfg->host = a->cfg.mysql_host;
    cfg->port = a->cfg.mysql_port;
    cfg->db = a->cfg.mysql_db;
    cfg->user = a->cfg.mysql_user;
    cfg->password_set = a->password != NULL && a->password[0] != '\0';
    cfg->warehouses = o.warehouses;
    cfg->threads = a->cfg.threads;
    cfg->warmup_s = o.warmup_s;
    cfg->time_s = (uint32_t)a->cfg.time_s;
    cfg->interval_s = (uint32_t)a->cfg.report_interval_s;
    memcpy(cfg->rt_limit_ms, o.rt_limit_ms, sizeof(cfg->rt_limit_ms));
    cfg->schemas = o.schemas;
    cfg->schema_offset = o.schema_offset;

    /* The options given, in the order given, as tpcc_start echoes its
     * argv; rt-limits is its five -0..-4 (the values from rt_limit_ms). */
    struct co_tc_optline *l = pr_xcalloc(a->n_passthrough * CO_TC_N + 1, sizeof(*l));
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->n_passthrough_given; i++) { /* not the family defaults */
        const char *kv = a->passthrough[i], *eq = strchr(kv, '=');
        size_t len = eq ? (size_t)(eq - kv) : strlen(kv);
        char name[64];
        if (len >= sizeof(name))
            continue;
        memcpy(name, kv, len);
        name[len] = '\0';
        if (strcmp(name, "rt-limits") == 0) { /* the limits not left empty */
            struct pr_list_iter it;
            const char *item;
            size_t ilen;
            int d = 0;
            pr_list_iter_init(&it, eq ? eq + 1 : "");
            while (pr_list_iter_next(&it, &item, &ilen) && d < (int)CO_TC_N) {
                if (ilen > 0)
                    l[n++] = (struct co_tc_optline){(char)('0' + d), NULL};
                d++;
            }
        } else if (letter_of(name) != 0) {
            l[n++] = (struct co_tc_optline){letter_of(name), eq ? eq + 1 : "on"};
        }
    }
    cfg->optlines = l;
    cfg->n_optlines = n;
    *lines_buf = l;
}

/* ---- the header ---------------------------------------------------------- */

static void print_optline(FILE *out, const struct co_tc_fmt_cfg *cfg, const struct co_tc_optline *l)
{
    if (l->opt >= '0' && l->opt <= '4') {
        fprintf(out, "option %c (response time limit for transaction %c) '%" PRIu32 "'\n", l->opt,
                l->opt, cfg->rt_limit_ms[l->opt - '0']);
        return;
    }
    const char *v = l->value ? l->value : "";
    if (l->opt == 'S')
        fprintf(out, "option S (socket) with value '%s'\n", v);
    else if (l->opt == 'm')
        fprintf(out, "option m (multiple schemas) with value '%s'\n", v);
    else if (l->opt == 'o')
        fprintf(out, "option o (multiple schemas offset) with value '%s'\n", v);
    else
        fprintf(out, "option %c with value '%s'\n", l->opt, v);
}

void co_tc_fmt_header(co_tc_fmt *t, FILE *out)
{
    const struct co_tc_fmt_cfg *c = &t->cfg;
    fputs("***************************************\n"
          "*** ###easy### TPC-C Load Generator ***\n"
          "***************************************\n",
          out);
    for (uint32_t i = 0; i < c->n_optlines; i++)
        print_optline(out, c, &c->optlines[i]);
    fprintf(out, "<Parameters>\n");
    fprintf(out, "     [server]: %s\n", c->host ? c->host : "");
    fprintf(out, "     [port]: %s\n", c->port ? c->port : "");
    fprintf(out, "     [DBname]: %s\n", c->db ? c->db : "");
    fprintf(out, "       [user]: %s\n", c->user ? c->user : "");
    fprintf(out, "       [pass]: %s\n", c->password_set ? "*****" : ""); /* never the password */
    fprintf(out, "  [warehouse]: %" PRIu32 "\n", c->warehouses);
    fprintf(out, " [connection]: %" PRIu32 "\n", c->threads);
    fprintf(out, "     [rampup]: %" PRIu32 " (sec.)\n", c->warmup_s);
    fprintf(out, "    [measure]: %" PRIu32 " (sec.)\n", c->time_s);
}

static void print_measuring(co_tc_fmt *t, FILE *out)
{
    if (t->measuring_printed)
        return;
    t->measuring_printed = true;
    fprintf(out, "\nMEASURING START.\n\n");
}

void co_tc_fmt_started(co_tc_fmt *t, FILE *out)
{
    fprintf(out, "\nRAMP-UP TIME.(%" PRIu32 " sec.)\n", t->cfg.warmup_s);
    if (t->cfg.warmup_s == 0)
        print_measuring(t, out);
}

/* ---- sums ---------------------------------------------------------------- */

/* kind_of[] from res->kind_names, once they came (READY). */
static void resolve_kinds(co_tc_fmt *t)
{
    if (t->kinds_resolved || t->res == NULL || t->res->kind_names == NULL)
        return;
    t->kinds_resolved = true;
    for (int k = 0; k < PR_TC_K_COUNT_; k++) {
        for (uint32_t i = 0; i < t->res->n_kinds; i++)
            if (strcmp(t->res->kind_names[i], pr_tc_kind_name((enum pr_tc_kind)k)) == 0)
                t->kind_of[k] = (int)i;
        if (t->kind_of[k] < 0)
            t->missing_kinds = true;
    }
}

static bool in_window(const co_tc_fmt *t, uint64_t start_ms)
{
    return start_ms >= t->warm_ms && start_ms < t->end_ms;
}

/* Kind k's entry in an array of n (NULL: the agents did not report it). */
static int kidx(const co_tc_fmt *t, enum pr_tc_kind k, uint32_t n)
{
    int i = t->kind_of[k];
    return i >= 0 && (uint32_t)i < n ? i : -1;
}

/* ---- interval lines -------------------------------------------------------- */

static double ms_of(uint64_t us)
{
    return (double)us / 1000.0;
}

static void print_line(co_tc_fmt *t, FILE *out)
{
    const uint64_t *c = t->line_count, *mx = t->line_max_us;
    const pr_hist *h = t->line_lat;
    uint64_t secs = (uint64_t)(t->line + 1) * t->cfg.interval_s;
    /* tpcc_start's "%4d, trx: %d, 95%: %.3f, ..." (its "%:" prints '%:'). */
    fprintf(out,
            "%4" PRIu64 ", trx: %" PRIu64 ", 95%%: %.3f, 99%%: %.3f, max_rt: %.3f, %" PRIu64
            "|%.3f, %" PRIu64 "|%.3f, %" PRIu64 "|%.3f, %" PRIu64 "|%.3f\n",
            secs, c[PR_TC_NEW_ORDER], ms_of(pr_hist_value_at_percentile(h, 95.0)),
            ms_of(pr_hist_value_at_percentile(h, 99.0)), ms_of(mx[PR_TC_NEW_ORDER]),
            c[PR_TC_PAYMENT], ms_of(mx[PR_TC_PAYMENT]), c[PR_TC_ORDER_STATUS],
            ms_of(mx[PR_TC_ORDER_STATUS]), c[PR_TC_DELIVERY], ms_of(mx[PR_TC_DELIVERY]),
            c[PR_TC_STOCK_LEVEL], ms_of(mx[PR_TC_STOCK_LEVEL]));
    t->lines_printed++;
    memset(t->line_count, 0, sizeof(t->line_count));
    memset(t->line_max_us, 0, sizeof(t->line_max_us));
    pr_hist_reset(t->line_lat);
}

/* Interval iv's figures (inside the window) into the window and the line. */
static void add_interval(co_tc_fmt *t, const struct co_interval_result *iv, pr_hist *scratch)
{
    for (int x = 0; x < (int)CO_TC_N; x++) {
        int ki = kidx(t, (enum pr_tc_kind)x, iv->n_kinds);
        int si = kidx(t, (enum pr_tc_kind)(PR_TC_K_NEW_ORDER_STMT + x), iv->n_kinds);
        if (si >= 0)
            t->win[x].stmt_errors += iv->kinds[si].errors;
        if (ki < 0)
            continue;
        const struct co_kind_result *k = &iv->kinds[ki];
        const pr_hist *h = co_kind_lat(k, scratch);
        t->win[x].count += k->count;
        t->win[x].errors += k->errors;
        t->win[x].late += k->late;
        pr_hist_add(t->win[x].lat, h);
        t->line_count[x] += k->count;
        if (pr_hist_count(h) > 0 && pr_hist_max(h) > t->line_max_us[x])
            t->line_max_us[x] = pr_hist_max(h);
        if (x == PR_TC_NEW_ORDER)
            pr_hist_add(t->line_lat, h);
    }
}

void co_tc_fmt_interval(co_tc_fmt *t, FILE *out, const struct co_interval_result *iv,
                        uint32_t interval_ms)
{
    uint64_t start = iv->k * interval_ms, end = start + interval_ms;
    uint64_t ivl_ms = (uint64_t)t->cfg.interval_s * 1000u;

    resolve_kinds(t);
    t->interval_ms = interval_ms;
    if (start >= t->warm_ms)
        print_measuring(t, out);
    /* An interval straddling the window's start or a line's boundary
     * counts where it starts (said in the stampede section). */
    if (t->warm_ms % interval_ms != 0 || ivl_ms % interval_ms != 0)
        t->unaligned = true;
    if (in_window(t, start)) {
        t->intervals_in++;
        int64_t line = ivl_ms ? (int64_t)((start - t->warm_ms) / ivl_ms) : -1;
        t->line = line;
        add_interval(t, iv, t->scratch);
        if (ivl_ms && end - t->warm_ms >= (uint64_t)(line + 1) * ivl_ms)
            print_line(t, out);
    }
    if (end >= t->warm_ms)
        print_measuring(t, out);
    if (end >= t->end_ms && !t->stopping_printed) {
        t->stopping_printed = true;
        fprintf(out, "\nSTOPPING THREADS");
    }
}

/* ---- per agent --------------------------------------------------------- */

static struct co__tc_agent *agent_at(co_tc_fmt *t, uint32_t agent)
{
    if (agent >= t->n_agents) {
        t->agents = pr_xrealloc(t->agents, (agent + 1) * sizeof(*t->agents));
        memset(&t->agents[t->n_agents], 0, (agent + 1 - t->n_agents) * sizeof(*t->agents));
        t->n_agents = agent + 1;
    }
    return &t->agents[agent];
}

/* The -f / -t watermark: no live agent with connections can still send a
 * record that ended before it (each sends its intervals in order). */
static uint64_t trx_watermark(const co_tc_fmt *t)
{
    uint64_t w = UINT64_MAX;
    const struct co_result *res = t->res;
    for (uint32_t a = 0; res != NULL && a < res->n_agents; a++) {
        const struct co_agent_result *ar = &res->agents[a];
        if (ar->lost || ar->done || ar->threads == 0)
            continue;
        uint64_t e = a < t->n_trx_end ? t->trx_end_us[a] : 0;
        w = e < w ? e : w;
    }
    return w;
}

static void trx_stats(co_tc_fmt *t, uint32_t agent, const struct pr_msg_stats *st,
                      uint32_t interval_ms)
{
    t->trx_lost += st->trx_lost;
    if (t->trx == NULL)
        return;
    if (agent >= t->n_trx_end) {
        t->trx_end_us = pr_xrealloc(t->trx_end_us, (agent + 1) * sizeof *t->trx_end_us);
        memset(&t->trx_end_us[t->n_trx_end], 0, (agent + 1 - t->n_trx_end) * sizeof *t->trx_end_us);
        t->n_trx_end = agent + 1;
    }
    uint64_t end = (st->k + 1) * (uint64_t)interval_ms * 1000u;
    if (end > t->trx_end_us[agent])
        t->trx_end_us[agent] = end;
    co_tc_trx_set_epoch(t->trx, t->res ? t->res->t0_unix_ns : 0); /* -t: the common epoch */
    co_tc_trx_stats(t->trx, st, t->kind_of[PR_TC_K_NEW_ORDER]);
    co_tc_trx_flush(t->trx, trx_watermark(t));
}

void co_tc_fmt_stats(co_tc_fmt *t, uint32_t agent, const struct pr_msg_stats *st, bool released,
                     uint32_t interval_ms)
{
    resolve_kinds(t);
    trx_stats(t, agent, st, interval_ms);
    if (st->kst == NULL || !in_window(t, st->k * interval_ms))
        return;
    struct co__tc_agent *ag = agent_at(t, agent);
    for (int x = 0; x < (int)CO_TC_N; x++) {
        int ki = kidx(t, (enum pr_tc_kind)x, st->n_kst);
        int si = kidx(t, (enum pr_tc_kind)(PR_TC_K_NEW_ORDER_STMT + x), st->n_kst);
        uint64_t stmt_err = si >= 0 ? st->kst[si].errors : 0;
        ag->stmt_errors[x] += stmt_err;
        if (released) /* its interval was summed already: add it here */
            t->win[x].stmt_errors += stmt_err;
        if (ki < 0)
            continue;
        const struct pr_msg_kstat *k = &st->kst[ki];
        ag->count[x] += k->count;
        ag->errors[x] += k->errors;
        ag->late[x] += k->late;
        if (k->lat != NULL && pr_hist_count(k->lat) > 0)
            pr_hist_frozen_add(&ag->lat[x], k->lat);
        else if (k->lat == NULL && k->lat_frozen != NULL && pr_hist_frozen_count(k->lat_frozen) > 0)
            pr_hist_frozen_merge(&ag->lat[x], k->lat_frozen); /* as decoded */
        if (!released)
            continue;
        t->win[x].count += k->count;
        t->win[x].errors += k->errors;
        t->win[x].late += k->late;
        if (k->lat != NULL)
            pr_hist_add(t->win[x].lat, k->lat);
        else if (k->lat_frozen != NULL)
            pr_hist_add_frozen(t->win[x].lat, k->lat_frozen);
    }
}

/* ---- the family's output ops (co_family_summary) --------------------- */

static void *op_open(const struct co_args *a, struct co_result *res)
{
    struct co_tc_fmt_cfg cfg;
    struct co_tc_optline *lines = NULL;
    co_tc_fmt_cfg_from_args(a, &cfg, &lines);
    co_tc_fmt *t = co_tc_fmt_new(&cfg, res);
    t->own_opt = lines;
    const struct co_tc_args *ta = co_tc_args_of(a);
    struct co_tc_trx_cfg tc = {ta ? ta->report_file : "", ta ? ta->trx_file : "", cfg.warmup_s,
                               cfg.time_s, cfg.interval_s};
    t->trx = co_tc_trx_new(&tc);
    return t;
}

static void op_header(void *st, FILE *out)
{
    co_tc_fmt_header(st, out);
}

static void op_started(void *st, FILE *out)
{
    co_tc_fmt_started(st, out);
}

static void op_interval(void *st, FILE *out, const struct co_interval_result *iv,
                        uint32_t interval_ms)
{
    co_tc_fmt_interval(st, out, iv, interval_ms);
}

static void op_stats(void *st, uint32_t agent, const struct pr_msg_stats *s, bool released,
                     uint32_t interval_ms)
{
    co_tc_fmt_stats(st, agent, s, released, interval_ms);
}

static void op_final(void *st, FILE *out, const struct co_result *res)
{
    co_tc_fmt *t = st;
    /* The files are whole before the report ends; a failed write fails the
     * run (exit 1), the report and --json still come. */
    t->trx_failed = co_tc_trx_destroy(&t->trx) != 0;
    if (t->trx_failed && t->res != NULL && t->res->exit_status == CO_EXIT_OK) {
        t->res->exit_status = CO_EXIT_FAILED;
        free(t->res->exit_reason);
        t->res->exit_reason = pr_xstrdup("writing the --report-file / --trx-file failed");
    }
    if (t->trx_lost)
        fprintf(stderr,
                "stampede: warning: the agents dropped %" PRIu64 " New-Order records (more "
                "than %u in one agent interval): the -f/-t files miss them; use a shorter "
                "--report-interval or more agents\n",
                t->trx_lost, PR_MSG_MAX_TRX);
    co_tc_fmt_final(st, out, res);
}

static void op_json(FILE *f, const void *st, const struct co_result *res)
{
    co_tc_fmt_json(f, st, res);
}

static double op_figure(const void *st, const char *name)
{
    return strcmp(name, "tpmC") == 0 ? co_tc_fmt_tpmc(st) : NAN;
}

static bool op_kind_window(const void *st, const char *kind, struct co_kind_window *out)
{
    const co_tc_fmt *t = st;
    for (int x = 0; x < (int)CO_TC_N; x++)
        if (strcmp(kind, pr_tc_kind_name((enum pr_tc_kind)x)) == 0) {
            *out = (struct co_kind_window){.lat = t->win[x].lat,
                                           .count = t->win[x].count,
                                           .errors = t->win[x].errors,
                                           .time_s = co_tc_fmt_window_s(&t->cfg)};
            return true;
        }
    return false;
}

static void op_destroy(void *st)
{
    co_tc_fmt *t = st;
    co_tc_fmt_destroy(&t);
}

const struct co_family_summary co_tc_family_summary = {
    .json_key = "tpcc",
    .open = op_open,
    .header = op_header,
    .started = op_started,
    .interval = op_interval,
    .stats = op_stats,
    .final = op_final,
    .server_check = co_tc_fmt_server_check,
    .server_formula = "Com_commit+Com_rollback vs commit+rollback+retry_rollback",
    .server_caveat = "exact when the agents are the server's only clients and no connection "
                     "was lost: a lost connection's COMMIT or ROLLBACK may not reach the server",
    .json = op_json,
    .figure = op_figure,
    .kind_window = op_kind_window,
    .destroy = op_destroy,
};
