/* test_co_tc_plan: the tpcc family's option rules (co_tc_family) and its
 * PLANs (co_tc_plan): phases, warehouse ranges covering 1..W once, the
 * items on one agent, run timing, home warehouses, check and cleanup. */
#include "co_family.h"
#include "co_plan.h"
#include "co_tc_args.h"
#include "co_tc_plan.h"
#include "testlib.h"

static int parse(struct co_args *a, const char *const *argv, struct pr_error *err)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(err, 0, sizeof *err);
    return co_args_parse(a, argc, (char **)argv, NULL, err);
}

/* Parse argv, which must be valid. */
static bool parse_ok(struct co_args *a, const char *const *argv)
{
    struct pr_error err;
    int rc = parse(a, argv, &err);
    CHECK_MSG(rc == 0, "%s %s: %s", argv[1], argv[2], err.msg);
    return rc == 0;
}

/* argv must be refused with a message containing want. */
static void refused(const char *const *argv, const char *want)
{
    struct co_args a;
    struct pr_error err;
    int rc = parse(&a, argv, &err);
    CHECK_MSG(rc == PR_EINVAL, "accepted: %s ... (wanted '%s')", argv[3] ? argv[3] : "", want);
    CHECK_MSG(rc != PR_EINVAL || strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
    if (rc == 0)
        co_args_clear(&a);
}

static const struct pr_msg_plan *plan_of(const co_plan *p, uint32_t ph, uint32_t i)
{
    const struct pr_msg *m = co_plan_msg(p, ph, i);
    return m ? &m->u.plan : NULL;
}

static const char *opt_of(const struct pr_msg_plan *pl, const char *name)
{
    for (uint32_t i = 0; i < pl->n_opts; i++)
        if (strcmp(pl->opts[i].name, name) == 0)
            return pl->opts[i].value;
    return NULL;
}

static co_plan *plan_new(const struct co_args *a, uint32_t n, const uint64_t *w)
{
    struct pr_error err = {0};
    co_plan *p = co_plan_new(a, n, w, 42, &err);
    CHECK_MSG(p != NULL, "co_plan_new: %s", err.msg);
    return p;
}

/* The family is found, and only for tpcc. */
static void test_registry(void)
{
    const struct co_family *f = co_registry_find("tpcc");
    CHECK(f != NULL && strcmp(f->name, "tpcc") == 0);
    CHECK(f && f->plan && f->phase_line && f->help_text && f->kinds_title);
    CHECK(co_registry_find("oltp_read_write")->kinds_title == NULL); /* sysbench's title */
    CHECK(co_registry_find("oltp_read_write") != NULL && co_registry_find("oltp_read_write") != f);
    char *help = co_args_workload_usage("tpcc");
    CHECK(help && strstr(help, "--warehouses") && strstr(help, "--mysql-db=tpcc") &&
          strstr(help, "tpcc_start"));
    free(help);
}

/* Defaults the family resolves, sent to the agents in PLAN.opts. */
static void test_defaults(void)
{
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--time=30", NULL}))
        return;
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-db"), "tpcc") == 0);
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-ignore-errors"), "all") == 0);
    CHECK_EQ_U64(pr_opts_int(a.opts, "report-interval"), 10);
    /* typed once by the parse, the family's defaults in */
    const struct co_tc_args *t = co_tc_args_of(&a);
    CHECK(strcmp(a.cfg.mysql_db, "tpcc") == 0 && a.cfg.report_interval_s == 10);
    CHECK(t && t->o.warehouses == 1 && t->o.warmup_s == 10 && t->report_file[0] == '\0');
    co_plan *p = plan_new(&a, 1, NULL);
    const struct pr_msg_plan *pl = p ? plan_of(p, 0, 0) : NULL;
    CHECK(pl && strcmp(pl->database, "tpcc") == 0);
    CHECK(pl && opt_of(pl, "mysql-ignore-errors") &&
          strcmp(opt_of(pl, "mysql-ignore-errors"), "all") == 0);
    CHECK(pl && opt_of(pl, "mysql-db") && strcmp(opt_of(pl, "mysql-db"), "tpcc") == 0);
    co_plan_destroy(&p);
    co_args_clear(&a);

    /* Given values win; a short --time is the default interval. */
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--time=5", "--mysql-db=w2",
                                       "--mysql-ignore-errors=1213", NULL}))
        return;
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-db"), "w2") == 0);
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-ignore-errors"), "1213") == 0);
    CHECK_EQ_U64(pr_opts_int(a.opts, "report-interval"), 5);
    co_args_clear(&a);
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--time=30",
                                       "--report-interval=3", NULL}))
        return;
    CHECK_EQ_U64(pr_opts_int(a.opts, "report-interval"), 3);
    co_args_clear(&a);
    /* sysbench keeps its own defaults. */
    if (!parse_ok(&a, (const char *[]){"stampede", "oltp_read_write", "run", NULL}))
        return;
    CHECK(strcmp(pr_opts_str(a.opts, "mysql-db"), "sbtest") == 0);
    CHECK_EQ_U64(pr_opts_int(a.opts, "report-interval"), 0);
    co_args_clear(&a);
}

static void test_option_rules(void)
{
    refused((const char *[]){"stampede", "tpcc", "run", "--partition=warehouses", "--agents=3",
                             "--warehouses=2", NULL},
            "--warehouses=2 is fewer than the 3 agents");
    refused((const char *[]){"stampede", "tpcc", "run", "--partition=rows", NULL},
            "split by warehouse");
    refused((const char *[]){"stampede", "tpcc", "run", "--partition=tables", NULL},
            "split by warehouse");
    refused((const char *[]){"stampede", "tpcc", "run", "--tables=2", NULL},
            "unknown option --tables for tpcc");
    refused((const char *[]){"stampede", "tpcc", "run", "--time=0", NULL}, "--time=0");
    refused((const char *[]){"stampede", "tpcc", "run", "--time=5", "--report-interval=10", NULL},
            "--report-interval=10 is longer than --time=5");
    refused((const char *[]){"stampede", "tpcc", "run", "--report-interval=0", NULL},
            "--report-interval=0: tpcc measures whole intervals");
    refused((const char *[]){"stampede", "tpcc", "run", "--events=100", NULL}, "--events");
    refused((const char *[]){"stampede", "tpcc", "run", "--rand-type=uniform", NULL},
            "--rand-type");
    refused((const char *[]){"stampede", "tpcc", "prewarm", NULL}, "no prewarm");
    refused((const char *[]){"stampede", "tpcc", "run", "--warehouses=0", NULL}, "--warehouses=0");
    refused((const char *[]){"stampede", "tpcc", "run", "--rt-limits=1,2", NULL}, "--rt-limits");
    refused((const char *[]){"stampede", "tpcc", "prepare", "--warehouse-first=3",
                             "--warehouse-last=2", NULL},
            "--warehouse-first=3 is after --warehouse-last=2");
    refused((const char *[]){"stampede", "tpcc", "prepare", "--load-parts=stock", NULL},
            "'stock' is not one of");
    /* Only run has home warehouses: prepare warns and goes on. */
    struct co_args b;
    if (parse_ok(&b, (const char *[]){"stampede", "tpcc", "prepare", "--partition=warehouses",
                                      "--agents=3", "--warehouses=2", NULL})) {
        CHECK(strstr(b.warnings, "--partition applies to run only") != NULL);
        co_args_clear(&b);
    }
    /* Fits: as many warehouses as agents. */
    struct co_args a;
    if (parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--partition=warehouses",
                                      "--agents=3", "--warehouses=3", "--threads=3", NULL}))
        co_args_clear(&a);
}

/* Every warehouse range entry (n = 1, non-empty) of phase ph, over the
 * agents: each warehouse first..last exactly once. */
static void check_cover(const co_plan *p, uint32_t ph, uint32_t n, uint32_t first, uint32_t last)
{
    uint32_t seen[64] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const struct pr_msg_plan *pl = plan_of(p, ph, i);
        for (uint32_t t = 0; pl && t < pl->n_tables; t++) {
            const struct pr_msg_table *e = &pl->tables[t];
            if (e->table != 1 || e->id_hi < e->id_lo)
                continue;
            for (uint64_t wh = e->id_lo; wh <= e->id_hi && wh < 64; wh++)
                seen[wh]++;
        }
    }
    for (uint32_t wh = 1; wh < 64; wh++)
        CHECK_MSG(seen[wh] == (wh >= first && wh <= last), "warehouse %u covered %u times", wh,
                  seen[wh]);
}

/* The number of entries {table, ...} agent i has in phase ph. */
static uint32_t count_entries(const co_plan *p, uint32_t ph, uint32_t i, uint32_t table)
{
    const struct pr_msg_plan *pl = plan_of(p, ph, i);
    uint32_t k = 0;
    for (uint32_t t = 0; pl && t < pl->n_tables; t++)
        k += pl->tables[t].table == table;
    return k;
}

static void test_prepare_full(void)
{
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "prepare", "--warehouses=5",
                                       "--agents=3", NULL}))
        return;
    co_plan *p = plan_new(&a, 3, NULL);
    if (!p)
        goto out;
    CHECK_EQ_U64(co_plan_phases(p), 3);
    CHECK(strcmp(co_plan_phase_name(p, 0), "create") == 0);
    CHECK(strcmp(co_plan_phase_name(p, 1), "load") == 0);
    CHECK(strcmp(co_plan_phase_name(p, 2), "index") == 0);
    /* create and index: agent 0 alone, {1, 1, 0, ct} and {1, 1, 0, ci}. */
    const struct pr_msg_plan *c = plan_of(p, 0, 0), *x = plan_of(p, 2, 0);
    CHECK(c && c->n_tables == 1 && c->tables[0].table == 1 && c->tables[0].id_lo == 1 &&
          c->tables[0].id_hi == 0 && c->tables[0].create_table && !c->tables[0].create_index);
    CHECK(x && x->n_tables == 1 && x->tables[0].id_hi == 0 && !x->tables[0].create_table &&
          x->tables[0].create_index);
    CHECK(plan_of(p, 0, 1) == NULL && plan_of(p, 0, 2) == NULL);
    CHECK(plan_of(p, 2, 1) == NULL && plan_of(p, 2, 2) == NULL);
    /* load: every warehouse once, in contiguous ranges 1-2, 3-4, 5; the
     * items 1..100000 on agent 0 only. */
    check_cover(p, 1, 3, 1, 5);
    const struct pr_msg_plan *l0 = plan_of(p, 1, 0), *l2 = plan_of(p, 1, 2);
    CHECK(l0 && l0->tables[0].id_lo == 1 && l0->tables[0].id_hi == 2);
    CHECK(l2 && l2->n_tables == 1 && l2->tables[0].id_lo == 5 && l2->tables[0].id_hi == 5);
    CHECK_EQ_U64(count_entries(p, 1, 0, 2), 1);
    CHECK_EQ_U64(count_entries(p, 1, 1, 2) + count_entries(p, 1, 2, 2), 0);
    for (uint32_t t = 0; l0 && t < l0->n_tables; t++)
        if (l0->tables[t].table == 2)
            CHECK(l0->tables[t].id_lo == 1 && l0->tables[t].id_hi == 100000);
    for (uint32_t i = 0; i < 3; i++) {
        const struct pr_msg_plan *pl = plan_of(p, 1, i);
        CHECK(pl && pl->cmd == PR_CMD_PREPARE && pl->conns >= 1 && pl->part == PR_PART_NONE);
        for (uint32_t t = 0; pl && t < pl->n_tables; t++)
            CHECK(!pl->tables[t].create_table && !pl->tables[t].create_index);
    }
    /* Default connections: min(3 * 5 + 1, 8) = 8 over 3 agents. */
    CHECK_EQ_U64(plan_of(p, 1, 0)->conns + plan_of(p, 1, 1)->conns + plan_of(p, 1, 2)->conns, 8);
    /* Progress denominator: items + 5 warehouses of tpcc_load's rows. */
    CHECK_EQ_U64(co_plan_rows_total(p), 100000u + 5u * (100011u + 60000u + 339000u));
    co_plan_destroy(&p);
out:
    co_args_clear(&a);

    /* --foreign-keys=off: no index phase; fewer warehouses than agents:
     * the agent without one has no load plan. */
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "prepare", "--warehouses=1",
                                       "--foreign-keys=off", "--threads=4", NULL}))
        return;
    p = plan_new(&a, 3, NULL);
    if (p) {
        CHECK_EQ_U64(co_plan_phases(p), 2);
        check_cover(p, 1, 3, 1, 1);
        CHECK(plan_of(p, 1, 0) != NULL && plan_of(p, 1, 1) == NULL && plan_of(p, 1, 2) == NULL);
        CHECK_EQ_U64(plan_of(p, 1, 0)->conns, 2); /* --threads=4 over 3: 2,1,1 */
    }
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* A tpcc_load -l/-m/-n load: one phase, the range given, no create. */
static void test_prepare_partial(void)
{
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "prepare", "--warehouses=10",
                                       "--load-parts=customer", "--warehouse-first=3",
                                       "--warehouse-last=7", NULL}))
        return;
    const uint64_t w[] = {1, 3};
    co_plan *p = plan_new(&a, 2, w);
    if (p) {
        CHECK_EQ_U64(co_plan_phases(p), 1);
        CHECK(strcmp(co_plan_phase_name(p, 0), "load") == 0);
        check_cover(p, 0, 2, 3, 7);
        /* weights 1:3 over 5 warehouses: 1 and 4 */
        CHECK(plan_of(p, 0, 0) && plan_of(p, 0, 0)->tables[0].id_lo == 3 &&
              plan_of(p, 0, 0)->tables[0].id_hi == 3);
        CHECK_EQ_U64(count_entries(p, 0, 0, 2) + count_entries(p, 0, 1, 2), 0); /* no items */
        CHECK_EQ_U64(co_plan_rows_total(p), 5u * 60000u);
        CHECK(plan_of(p, 0, 0) && opt_of(plan_of(p, 0, 0), "load-parts") &&
              strcmp(opt_of(plan_of(p, 0, 0), "load-parts"), "customer") == 0);
    }
    co_plan_destroy(&p);
    co_args_clear(&a);

    /* Items only (tpcc_load -l 1): one entry on agent 0, nothing else. */
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "prepare", "--load-parts=items", NULL}))
        return;
    p = plan_new(&a, 2, NULL);
    if (p) {
        CHECK_EQ_U64(co_plan_phases(p), 1);
        CHECK(plan_of(p, 0, 0) && plan_of(p, 0, 0)->n_tables == 1 &&
              plan_of(p, 0, 0)->tables[0].table == 2);
        CHECK(plan_of(p, 0, 1) == NULL);
        CHECK_EQ_U64(co_plan_rows_total(p), 100000);
    }
    co_plan_destroy(&p);
    co_args_clear(&a);
}

static void test_run(void)
{
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--warehouses=4", "--threads=7",
                                       "--time=20", "--warmup-time=5", NULL}))
        return;
    co_plan *p = plan_new(&a, 2, NULL);
    uint64_t conns = 0;
    for (uint32_t i = 0; p && i < 2; i++) {
        const struct pr_msg_plan *pl = plan_of(p, 0, i);
        CHECK(pl && pl->time_s == 25 && pl->report_ms == 1000 && pl->n_tables == 0);
        CHECK(pl && pl->conn_first == conns && pl->conns_total == 7);
        conns += pl ? pl->conns : 0;
    }
    CHECK_EQ_U64(conns, 7);
    CHECK(p && co_plan_report_ms(p) == 1000 && co_plan_time_s(p) == 25);
    co_plan_destroy(&p);
    co_args_clear(&a);

    /* --partition=warehouses: one home range each, covering 1..W once,
     * never more warehouses than connections when threads >= W. */
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--warehouses=6", "--threads=9",
                                       "--partition=warehouses", "--agents=3", NULL}))
        return;
    const uint64_t w[] = {1, 1, 4};
    p = plan_new(&a, 3, w);
    for (uint32_t i = 0; p && i < 3; i++) {
        const struct pr_msg_plan *pl = plan_of(p, 0, i);
        CHECK(pl && pl->n_tables == 1 && pl->part == PR_PART_WAREHOUSES);
        if (pl && pl->n_tables == 1)
            CHECK_MSG(pl->tables[0].id_hi - pl->tables[0].id_lo + 1 <= pl->conns,
                      "agent %u: %u connections for warehouses %" PRIu64 "..%" PRIu64, i, pl->conns,
                      pl->tables[0].id_lo, pl->tables[0].id_hi);
    }
    if (p)
        check_cover(p, 0, 3, 1, 6);
    co_plan_destroy(&p);
    co_args_clear(&a);

    /* Too few connections for the agents. */
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "run", "--threads=1", NULL}))
        return;
    struct pr_error err = {0};
    p = co_plan_new(&a, 2, NULL, 1, &err);
    CHECK(p == NULL && strstr(err.msg, "no connection"));
    co_plan_destroy(&p);
    co_args_clear(&a);
}

static void test_check_cleanup(void)
{
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "check", "--warehouses=3", "--threads=6",
                                       NULL}))
        return;
    co_plan *p = plan_new(&a, 4, NULL);
    if (p) {
        CHECK_EQ_U64(co_plan_phases(p), 1);
        CHECK(strcmp(co_plan_phase_name(p, 0), "check") == 0);
        check_cover(p, 0, 4, 1, 3);
        CHECK(plan_of(p, 0, 3) == NULL); /* 3 warehouses, 4 agents */
        for (uint32_t i = 0; i < 3; i++)
            CHECK(plan_of(p, 0, i) && plan_of(p, 0, i)->conns == 1 &&
                  plan_of(p, 0, i)->cmd == PR_CMD_CHECK);
    }
    co_plan_destroy(&p);
    co_args_clear(&a);

    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "cleanup", "--warehouses=3", NULL}))
        return;
    p = plan_new(&a, 2, NULL);
    if (p) {
        const struct pr_msg_plan *pl = plan_of(p, 0, 0);
        CHECK(pl && pl->n_tables == 1 && pl->tables[0].table == 1 && pl->tables[0].id_lo == 1 &&
              pl->tables[0].id_hi == 0 && pl->tables[0].create_table && pl->conns == 1);
        CHECK(plan_of(p, 0, 1) == NULL);
    }
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* The load conns default and the row estimate. */
static void test_helpers(void)
{
    CHECK_EQ_U64(co_tc_plan_rows(PR_TC_PART_ITEMS, 3), 100000);
    CHECK_EQ_U64(co_tc_plan_rows(PR_TC_PART_WAREHOUSE, 2), 2u * 100011u);
    CHECK_EQ_U64(co_tc_plan_rows(PR_TC_PART_ORDERS, 1), 30000u + 9000u + 300000u);
    struct pr_tc_opts o = {.warehouses = 2, .parts = PR_TC_PART_ALL, .wh_first = 1, .wh_last = 2};
    CHECK(!co_tc_plan_is_partial(&o));
    o.wh_last = 1;
    CHECK(co_tc_plan_is_partial(&o));
    o.wh_last = 2;
    o.parts = PR_TC_PART_ITEMS | PR_TC_PART_ORDERS;
    CHECK(co_tc_plan_is_partial(&o));
    struct co_args a;
    if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", "prepare", "--warehouses=2", NULL}))
        return;
    o.parts = PR_TC_PART_ALL;
    CHECK_EQ_U64(co_tc_plan_load_conns(&a, &o), 7);
    co_args_clear(&a);
}

/* --multi-schema=N --multi-schema-offset=K outside run: every agent's PLAN
 * opens the first schema <db>_<K> (its streams USE each, families/tpcc/agent), the
 * schemas go in PLAN.opts, and prepare's progress counts N schemas. */
static void test_multi_schema(void)
{
    static const char *const cmds[] = {"prepare", "check", "cleanup"};
    for (int c = 0; c < 3; c++) {
        struct co_args a;
        if (!parse_ok(&a, (const char *[]){"stampede", "tpcc", cmds[c], "--warehouses=2",
                                           "--mysql-db=ms", "--multi-schema=3",
                                           "--multi-schema-offset=4", NULL}))
            continue;
        co_plan *p = plan_new(&a, 2, NULL);
        uint32_t plans = 0;
        for (uint32_t ph = 0; p && ph < co_plan_phases(p); ph++)
            for (uint32_t i = 0; i < 2; i++) {
                const struct pr_msg_plan *pl = plan_of(p, ph, i);
                if (!pl)
                    continue;
                plans++;
                CHECK_MSG(strcmp(pl->database, "ms_4") == 0, "%s: database %s", cmds[c],
                          pl->database);
                CHECK(opt_of(pl, "multi-schema") && strcmp(opt_of(pl, "multi-schema"), "3") == 0);
                CHECK(opt_of(pl, "multi-schema-offset") &&
                      strcmp(opt_of(pl, "multi-schema-offset"), "4") == 0);
            }
        CHECK_MSG(plans >= 1, "%s: %u plans", cmds[c], plans);
        if (p && c == 0)
            CHECK_EQ_U64(co_plan_rows_total(p), 3u * (100000u + 2u * (100011u + 60000u + 339000u)));
        co_plan_destroy(&p);
        co_args_clear(&a);
    }
}

int main(void)
{
    test_registry();
    test_defaults();
    test_option_rules();
    test_prepare_full();
    test_prepare_partial();
    test_run();
    test_check_cleanup();
    test_helpers();
    test_multi_schema();
    return TEST_END();
}
