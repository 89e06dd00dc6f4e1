/* co_plan: one PLAN per agent per phase, from the command line and the fleet (contract: co_plan.h).
 */
#include "co_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "co_family.h"
#include "co_plan_family.h"
#include "pr_parse.h"
#include "pr_split.h"

#define MAX_PHASES CO_PLAN_MAX_PHASES

/* Split a comma list into heap strings (pr_msg_clear frees them); an empty
 * item ("a,,b", "a,") is an error naming the option. */
static char **split_list(const char *text, uint32_t *n, const char *what, struct pr_error *err)
{
    size_t k = 0;
    char **out = pr_list_split(text, &k);

    *n = (uint32_t)k;
    for (size_t i = 0; i < k; i++)
        if (out[i][0] == '\0' && err->code == 0)
            pr_error_set(err, PR_EINVAL, "--%s: empty item in '%s'; separate values by one comma",
                         what, text);
    return out;
}

static int set_targets(struct pr_msg_plan *pl, const struct co_args *a, struct pr_error *err)
{
    const struct co_config *c = &a->cfg;
    uint32_t n = 0;

    pl->hosts = split_list(c->mysql_host, &pl->n_hosts, "mysql-host", err);
    char **ports = split_list(c->mysql_port, &n, "mysql-port", err);
    pl->ports = pr_xcalloc(n + 1, sizeof(*pl->ports));
    for (uint32_t i = 0; i < n; i++) {
        char *end = NULL;
        long v = strtol(ports[i], &end, 10);
        if (err->code == 0 && (*end != '\0' || v < 1 || v > 65535))
            pr_error_set(err, PR_EINVAL, "--mysql-port: '%s' is not a port number (1-65535)",
                         ports[i]);
        pl->ports[i] = (uint16_t)v;
        free(ports[i]);
    }
    free(ports);
    pl->n_ports = n;
    if (c->mysql_socket != NULL)
        pl->sockets = split_list(c->mysql_socket, &pl->n_sockets, "mysql-socket", err);
    pl->user = pr_xstrdup(c->mysql_user);
    pl->database = pr_xstrdup(c->mysql_db);
    pl->password = pr_xstrdup(a->password ? a->password : "");
    return err->code;
}

static void set_opts(struct pr_msg_plan *pl, const struct co_args *a)
{
    pl->opts = pr_xcalloc(a->n_passthrough + 1, sizeof(*pl->opts));
    for (uint32_t i = 0; i < a->n_passthrough; i++) {
        const char *kv = a->passthrough[i], *eq = strchr(kv, '=');
        size_t len = eq ? (size_t)(eq - kv) : strlen(kv);
        pl->opts[i].name = pr_xmalloc(len + 1);
        memcpy(pl->opts[i].name, kv, len);
        pl->opts[i].name[len] = '\0';
        pl->opts[i].value = pr_xstrdup(eq ? eq + 1 : "on");
    }
    pl->n_opts = a->n_passthrough;
}

/* The parts every agent's plan shares (co_plan_family.h). */
int co_plan_base(struct pr_msg *m, const struct co_args *a, uint32_t agent, uint32_t n,
                 uint64_t seed, struct pr_error *err)
{
    pr_msg_init(m, PR_MSG_PLAN, NULL, 0);
    struct pr_msg_plan *pl = &m->u.plan;
    pl->cmd = a->cmd;
    pl->workload = pr_xstrdup(a->workload);
    pl->agent_index = agent;
    pl->agent_count = n;
    pl->seed = seed;
    pl->lead = agent == 0;
    pl->part = a->part;
    uint64_t ri = a->cfg.report_interval_s;
    pl->report_ms = ri > 0 ? (uint32_t)ri * 1000u : 1000u;
    set_opts(pl, a);
    const struct co_family *fam = co_registry_find(a->workload);
    if (fam && fam->plan_fill) /* the family's payload (a script's sources) */
        fam->plan_fill(a, pl);
    return set_targets(pl, a, err);
}

void co_plan_add_table(struct pr_msg_plan *pl, uint32_t table, uint64_t lo, uint64_t hi, bool ct,
                       bool ci)
{
    pl->tables = pr_xrealloc(pl->tables, (pl->n_tables + 1) * sizeof(*pl->tables));
    pl->tables[pl->n_tables++] = (struct pr_msg_table){table, lo, hi, ct, ci};
}

static int plan_run(co_plan *p, const struct co_args *a, const uint64_t *w, uint64_t seed,
                    struct pr_error *err)
{
    uint32_t n = p->n_agents;
    uint64_t threads = a->cfg.threads;
    uint64_t *conns = pr_xcalloc(n, sizeof(*conns)), *rate = pr_xcalloc(n, sizeof(*rate));
    uint64_t *events = pr_xcalloc(n, sizeof(*events));
    struct pr_split_span *spans = pr_xcalloc(n, sizeof(*spans));
    uint32_t tables = a->cfg.tables;
    uint64_t table_size = a->cfg.table_size;
    int rc = 0;

    /* The rate and the event budget follow the connections (which follow
     * the weights): every connection gets the same share wherever it is. */
    pr_split_u64(threads, n, w, conns);
    pr_split_u64(a->cfg.rate, n, conns, rate);
    pr_split_u64(a->cfg.events, n, conns, events);
    if (a->part == PR_PART_TABLES)
        rc = pr_split_tables(n, w, tables, spans);
    else if (a->part == PR_PART_ROWS)
        rc = pr_split_rows(n, w, table_size, spans);
    if (rc != 0) {
        pr_error_set(err, PR_EINVAL,
                     "--partition=%s: %s %s for %u agents; use fewer agents or "
                     "--partition=%s",
                     a->part == PR_PART_TABLES ? "tables" : "rows",
                     a->part == PR_PART_TABLES ? "too few tables" : "too few rows",
                     a->part == PR_PART_TABLES ? "(--tables)" : "(--table-size)", n,
                     a->part == PR_PART_TABLES ? "rows" : "none");
        goto out;
    }
    uint64_t first = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        struct pr_msg *m = &p->msgs[0][i];
        if (conns[i] == 0) {
            rc = pr_error_set(err, PR_EINVAL,
                              "--threads=%llu gives agent %u no connection: every agent needs "
                              "at least one (raise --threads or lower --agents)",
                              (unsigned long long)threads, i + 1);
            break;
        }
        rc = co_plan_base(m, a, i, n, seed, err);
        struct pr_msg_plan *pl = &m->u.plan;
        pl->conns = (uint32_t)conns[i];
        pl->conn_first = first;
        pl->conns_total = threads;
        pl->rate = rate[i];
        pl->rate_mode = a->rate_mode;
        pl->events = events[i];
        pl->time_s = a->cfg.time_s;
        first += conns[i];
        for (uint64_t t = 1; a->part == PR_PART_TABLES && t <= tables; t++)
            if (t >= spans[i].lo && t <= spans[i].hi)
                co_plan_add_table(pl, (uint32_t)t, 1, table_size ? table_size : 1, false, false);
        for (uint32_t t = 1; a->part == PR_PART_ROWS && t <= tables; t++)
            co_plan_add_table(pl, t, spans[i].lo, spans[i].hi, false, false);
    }
out:
    free(conns);
    free(rate);
    free(events);
    free(spans);
    return rc;
}

/* Prepare: pieces from pr_split_prepare(); shared tables take 3 phases. */
static int plan_prepare(co_plan *p, const struct co_args *a, const uint64_t *w, uint64_t seed,
                        struct pr_error *err)
{
    uint32_t n = p->n_agents, tables = a->cfg.tables;
    uint64_t table_size = a->cfg.table_size;
    uint32_t n_split = n;             /* agents the tables are spread over */
    if (a->wl == PR_WL_BULK_INSERT) { /* sysbench: one connection creates sbtest1..--threads */
        tables = a->cfg.threads;
        table_size = 0;
        n_split = 1;
    }
    uint64_t *conns = pr_xcalloc(n, sizeof(*conns));
    struct pr_split_piece *pc = NULL;
    size_t npc = 0;
    bool shared = false;

    if (pr_split_prepare(n_split, n_split == n ? w : NULL, tables, table_size, &pc, &npc) != 0) {
        free(conns);
        return pr_error_set(err, PR_EINVAL, "cannot split %u tables of %llu rows over %u agents",
                            tables, (unsigned long long)table_size, n);
    }
    for (size_t i = 0; i < npc; i++)
        shared = shared || pc[i].table_pieces > 1;
    p->n_phases = shared ? 3 : 1;
    p->rows_total = (uint64_t)tables * table_size;
    if (n_split == n)
        pr_split_u64(a->cfg.threads, n, w, conns);
    else
        conns[0] = 1;
    for (uint32_t ph = 0; ph < p->n_phases; ph++) {
        p->names[ph] = shared ? (const char *[]){"create", "load", "index"}[ph] : "prepare";
        p->msgs[ph] = pr_xcalloc(n, sizeof(struct pr_msg));
    }
    int rc = 0;
    for (size_t i = 0; i < npc && rc == 0; i++) {
        const struct pr_split_piece *s = &pc[i];
        bool split = s->table_pieces > 1;
        for (uint32_t ph = 0; ph < p->n_phases && rc == 0; ph++) {
            struct pr_msg *m = &p->msgs[ph][s->agent];
            bool want = !split ? ph == (shared ? 1u : 0u)
                               : (ph == 0 && s->creates) || ph == 1 || (ph == 2 && s->indexes);
            if (!want)
                continue;
            if (m->type == PR_MSG_NONE)
                rc = co_plan_base(m, a, s->agent, n, seed, err);
            struct pr_msg_plan *pl = &m->u.plan;
            if (!split)
                co_plan_add_table(pl, s->table, s->id_lo, s->id_hi, s->creates, s->indexes);
            else if (ph == 1)
                co_plan_add_table(pl, s->table, s->id_lo, s->id_hi, false, false);
            else
                co_plan_add_table(pl, s->table, s->id_lo, s->id_lo - 1, ph == 0, ph == 2);
        }
    }
    for (uint32_t ph = 0; ph < p->n_phases; ph++)
        for (uint32_t i = 0; i < n; i++) {
            struct pr_msg_plan *pl = &p->msgs[ph][i].u.plan;
            uint64_t c = conns[i] ? conns[i] : 1;
            pl->conns = (uint32_t)(c < pl->n_tables ? c : (pl->n_tables ? pl->n_tables : 1));
            pl->conns_total = pl->conns;
        }
    free(pc);
    free(conns);
    return rc;
}

/* cleanup and check (one connection, as sysbench's cleanup) and prewarm (--threads
 * connections): agent 0 alone. conns_total stays --threads: bulk_insert's
 * cleanup drops sbtest1..--threads. */
static int plan_single(co_plan *p, const struct co_args *a, uint64_t seed, struct pr_error *err)
{
    struct pr_msg *m = &p->msgs[0][0];
    int rc = co_plan_base(m, a, 0, p->n_agents, seed, err);
    uint64_t threads = a->cfg.threads;
    m->u.plan.conns = a->cmd == PR_CMD_CLEANUP || a->cmd == PR_CMD_CHECK ? 1u : (uint32_t)threads;
    m->u.plan.conns_total = threads;
    return rc;
}

co_plan *co_plan_new(const struct co_args *a, uint32_t n_agents, const uint64_t *weights,
                     uint64_t seed, struct pr_error *err)
{
    co_plan *p = pr_xcalloc(1, sizeof(*p));
    int rc;

    p->n_agents = n_agents;
    p->n_phases = 1;
    p->names[0] = pr_plan_cmd_name(a->cmd);
    const struct co_family *fam = co_registry_find(a->workload);
    if (fam && fam->cmd_parallel && a->cmd != PR_CMD_RUN) { /* in every thread, or one */
        p->msgs[0] = pr_xcalloc(n_agents, sizeof(struct pr_msg));
        rc = fam->cmd_parallel(a) ? plan_run(p, a, weights, seed, err)
                                  : plan_single(p, a, seed, err);
    } else if (fam && fam->plan) { /* the family's own plan rules (co_family.h) */
        rc = fam->plan(p, a, weights, seed, err);
    } else if (a->cmd == PR_CMD_PREPARE) {
        rc = plan_prepare(p, a, weights, seed, err);
    } else {
        p->msgs[0] = pr_xcalloc(n_agents, sizeof(struct pr_msg));
        rc = a->cmd == PR_CMD_RUN ? plan_run(p, a, weights, seed, err)
                                  : plan_single(p, a, seed, err);
    }
    for (uint32_t ph = 0; rc == 0 && ph < p->n_phases; ph++)
        for (uint32_t i = 0; rc == 0 && i < n_agents; i++) {
            struct pr_msg *m = &p->msgs[ph][i];
            if (m->type == PR_MSG_PLAN && pr_msg_plan_hash(&m->u.plan, &m->u.plan.plan_hash))
                rc = pr_error_set(err, PR_EINVAL,
                                  "the plan for agent %u breaks a protocol "
                                  "limit (too many tables, hosts or options?)",
                                  i + 1);
        }
    if (rc != 0)
        co_plan_destroy(&p);
    return p;
}

uint32_t co_plan_phases(const co_plan *p)
{
    return p->n_phases;
}

const char *co_plan_phase_name(const co_plan *p, uint32_t phase)
{
    return phase < p->n_phases ? p->names[phase] : "?";
}

const struct pr_msg *co_plan_msg(const co_plan *p, uint32_t phase, uint32_t agent)
{
    if (phase >= p->n_phases || agent >= p->n_agents)
        return NULL;
    const struct pr_msg *m = &p->msgs[phase][agent];
    return m->type == PR_MSG_PLAN ? m : NULL;
}

int co_plan_check_ready(const co_plan *p, uint32_t phase, uint32_t agent,
                        const struct pr_msg_ready *ready, struct pr_error *err)
{
    const struct pr_msg *m = co_plan_msg(p, phase, agent);

    if (m == NULL)
        return pr_error_set(err, PR_ERANGE, "READY from agent %u, which has no plan in phase %s",
                            agent + 1, co_plan_phase_name(p, phase));
    if (ready->plan_hash != m->u.plan.plan_hash)
        return pr_error_set(err, PR_EINVAL,
                            "READY echoes plan hash %016" PRIx64 " but this agent was sent "
                            "%016" PRIx64 ": it answered another plan (a stale or foreign "
                            "READY, or an agent of another version)",
                            ready->plan_hash, m->u.plan.plan_hash);
    return 0;
}

uint64_t co_plan_rows_total(const co_plan *p)
{
    return p->rows_total;
}

/* The first PLAN of the last phase: every agent's has the same timing. */
static const struct pr_msg_plan *last_plan(const co_plan *p)
{
    for (uint32_t i = 0; p->n_phases > 0 && i < p->n_agents; i++) {
        const struct pr_msg *m = co_plan_msg(p, p->n_phases - 1, i);
        if (m)
            return &m->u.plan;
    }
    return NULL;
}

uint32_t co_plan_report_ms(const co_plan *p)
{
    const struct pr_msg_plan *pl = last_plan(p);
    return pl && pl->report_ms ? pl->report_ms : 1000u;
}

uint64_t co_plan_time_s(const co_plan *p)
{
    const struct pr_msg_plan *pl = last_plan(p);
    return pl ? pl->time_s : 0;
}

void co_plan_destroy(co_plan **pp)
{
    co_plan *p = pp ? *pp : NULL;
    if (p == NULL)
        return;
    for (uint32_t ph = 0; ph < MAX_PHASES; ph++) {
        for (uint32_t i = 0; p->msgs[ph] && i < p->n_agents; i++)
            pr_msg_clear(&p->msgs[ph][i]);
        free(p->msgs[ph]);
    }
    free(p);
    *pp = NULL;
}
