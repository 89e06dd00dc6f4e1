/* tpcc_load_drive: the tpcc family's prepare streams (ag_tc_loads) on the
 * real engine, in process, without the coordinator: create the 9 tables,
 * load warehouses 1..W and the items over CONNS connections, optionally
 * add the indexes and foreign keys; print one line of key=value pairs for
 * tests/bench/tpcc-load-vs-tpcc_load ("the loader streams alone").
 *
 *   tpcc_load_drive W CONNS [SEED [fk]]
 *
 * Needs STAMPEDE_TEST_MYSQL_* (deploy/sandbox-db env); the database is
 * STAMPEDE_TEST_MYSQL_DB. load_s covers the load phase only (tpcc_load's
 * work); create_s and index_s are apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "ag_engine.h"
#include "ag_tc_load.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"

struct sink {
    struct ag_piece *p;
    void (**destroy)(void *);
    size_t n;
};

static void sink_add(void *ctx, struct ag_piece piece, void (*destroy)(void *it))
{
    struct sink *s = ctx;
    s->p = realloc(s->p, (s->n + 1) * sizeof *s->p);
    s->destroy = realloc(s->destroy, (s->n + 1) * sizeof *s->destroy);
    if (!s->p || !s->destroy)
        abort();
    s->p[s->n] = piece;
    s->destroy[s->n++] = destroy;
}

/* Run one phase; returns its wall seconds, exits on a failure. */
static double phase(const char *name, const struct pr_tc_opts *o, const pr_opts *po,
                    struct pr_msg_plan *plan, uint32_t conns, uint64_t *rows)
{
    struct sink s = {0};
    struct pr_error perr = {0};
    struct ag_engine_error err = {0};
    static const char *hosts[1];
    static uint16_t ports[1];
    struct ag_engine_config cfg;

    if (ag_tc_loads(o, po, plan, sink_add, &s, &perr) < 0) {
        fprintf(stderr, "tpcc_load_drive: %s: %s\n", name, perr.msg);
        exit(1);
    }
    hosts[0] = getenv("STAMPEDE_TEST_MYSQL_HOST");
    ports[0] = (uint16_t)atoi(getenv("STAMPEDE_TEST_MYSQL_PORT"));
    memset(&cfg, 0, sizeof cfg);
    cfg.hosts = hosts;
    cfg.nhosts = 1;
    cfg.ports = ports;
    cfg.nports = 1;
    cfg.user = getenv("STAMPEDE_TEST_MYSQL_USER");
    cfg.password = getenv("STAMPEDE_TEST_MYSQL_PASSWORD");
    cfg.db = getenv("STAMPEDE_TEST_MYSQL_DB");
    cfg.conns = conns;
    cfg.conns_total = conns;
    cfg.seed = plan->seed;
    ag_engine *e = ag_engine_new(&cfg, &perr);
    if (!e || ag_engine_setup(e, &err) < 0) {
        fprintf(stderr, "tpcc_load_drive: %s: setup: %s\n", name, e ? err.msg : perr.msg);
        exit(1);
    }
    uint64_t t0 = uv_hrtime();
    int rc = ag_engine_run_pieces(e, s.p, s.n, &err);
    double secs = (double)(uv_hrtime() - t0) / 1e9;
    struct ag_engine_stats st = {0};
    ag_engine_totals(e, &st);
    ag_engine_destroy(&e);
    if (rc < 0) {
        fprintf(stderr, "tpcc_load_drive: %s: %s (%s)\n", name, err.msg, err.what);
        exit(1);
    }
    if (rows)
        *rows = st.rows;
    for (size_t i = 0; i < s.n; i++)
        if (s.destroy[i])
            s.destroy[i](s.p[i].it);
    free(s.p);
    free(s.destroy);
    return secs;
}

int main(int argc, char **argv)
{
    if (argc < 3 || !getenv("STAMPEDE_TEST_MYSQL_HOST")) {
        fprintf(stderr,
                "usage: tpcc_load_drive W CONNS [SEED [fk]] (with STAMPEDE_TEST_MYSQL_*)\n");
        return 2;
    }
    struct pr_error perr = {0};
    pr_opts *po = pr_opts_new(PR_WL_TPCC);
    struct pr_tc_opts o;
    if (pr_opts_set(po, "warehouses", argv[1], &perr) < 0 || pr_tc_opts_get(po, &o, &perr) < 0) {
        fprintf(stderr, "tpcc_load_drive: %s\n", perr.msg);
        return 2;
    }
    uint32_t conns = (uint32_t)atoi(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    bool fk = argc > 4 && strcmp(argv[4], "fk") == 0;
    struct pr_msg_table t[2] = {{1, 1, 0, true, false}, {0}};
    struct pr_msg_plan plan = {.cmd = PR_CMD_PREPARE, .seed = seed, .tables = t, .n_tables = 1};
    uint64_t rows = 0;

    double create_s = phase("create", &o, po, &plan, 1, NULL);
    t[0] = (struct pr_msg_table){1, 1, o.warehouses, false, false};
    t[1] = (struct pr_msg_table){2, 1, PR_TC_ITEMS, false, false};
    plan.n_tables = 2;
    double load_s = phase("load", &o, po, &plan, conns, &rows);
    double index_s = 0;
    if (fk) {
        t[0] = (struct pr_msg_table){1, 1, 0, false, true};
        plan.n_tables = 1;
        index_s = phase("index", &o, po, &plan, 1, NULL);
    }
    printf("rows=%llu create_s=%.3f load_s=%.3f index_s=%.3f rows_per_s=%.0f\n",
           (unsigned long long)rows, create_s, load_s, index_s, (double)rows / load_s);
    pr_opts_destroy(&po);
    return 0;
}
