/* test_co_plan: PLANs split exactly, phases order a shared prepare. */
#include "co_plan.h"
#include "testlib.h"

static int parse(struct co_args *a, const char *const *argv)
{
    int argc = 0;
    struct pr_error err = {0};
    while (argv[argc])
        argc++;
    int rc = co_args_parse(a, argc, (char **)argv, "secret-pw", &err);
    if (rc != 0)
        fprintf(stderr, "parse: %s\n", err.msg);
    return rc;
}

static const struct pr_msg_plan *plan_of(const co_plan *p, uint32_t ph, uint32_t i)
{
    const struct pr_msg *m = co_plan_msg(p, ph, i);
    return m ? &m->u.plan : NULL;
}

/* The hash of plan as it would be with one field changed. */
static uint64_t hash_of(const struct pr_msg_plan *pl, const char *what)
{
    uint64_t h = 0;
    CHECK_MSG(pr_msg_plan_hash(pl, &h) == 0, "plan with %s changed does not encode", what);
    return h;
}

/* pl->plan_hash is a hash of pl's content: the same plan hashes the same
 * (the hash field itself left out), and changing any one field, numbers,
 * strings, arrays and their elements, changes it. */
static void check_hash_covers(const struct pr_msg_plan *pl)
{
    struct pr_msg_plan c = *pl;
    const uint64_t h0 = pl->plan_hash;
    c.plan_hash = h0 ^ 0xdeadbeef;
    CHECK(hash_of(&c, "plan_hash") == h0); /* plan_hash is not part of what it hashes */
#define DIFFERS(what, ...)                                                                         \
    do {                                                                                           \
        c = *pl;                                                                                   \
        __VA_ARGS__;                                                                               \
        CHECK_MSG(hash_of(&c, what) != h0, "changing %s leaves the plan hash", what);              \
    } while (0)
    DIFFERS("cmd", c.cmd = PR_CMD_PREPARE);
    DIFFERS("agent_index", c.agent_index = (c.agent_index + 1) % c.agent_count);
    DIFFERS("agent_count", c.agent_count++);
    DIFFERS("conns", c.conns--);
    DIFFERS("conn_first", c.conn_first = c.conn_first ? c.conn_first - 1 : 1);
    DIFFERS("conns_total", c.conns_total++);
    DIFFERS("rate", c.rate++);
    DIFFERS("events", c.events++);
    DIFFERS("time_s", c.time_s++);
    DIFFERS("report_ms", c.report_ms++);
    DIFFERS("seed", c.seed++);
    DIFFERS("lead", c.lead = !c.lead);
    DIFFERS("password", c.password = "secret-pX");
    DIFFERS("user", c.user = "someone-else");
    DIFFERS("one port", c.ports = (uint16_t[]){pl->ports[0], 3308});
    DIFFERS("one host", c.hosts = (char *[]){pl->hosts[0], "h3"});
    DIFFERS("the host count", c.n_hosts = 1);
    struct pr_msg_opt opts[PR_MSG_MAX_OPTS];
    CHECK(pl->n_opts > 0 && pl->n_opts <= PR_MSG_MAX_OPTS);
    memcpy(opts, pl->opts, pl->n_opts * sizeof(*opts));
    opts[pl->n_opts - 1].value = "changed";
    DIFFERS("an option's value", c.opts = opts);
    DIFFERS("the option count", c.n_opts--);
#undef DIFFERS
}

static void test_run_split(void)
{
    const char *argv[] = {"stampede",
                          "oltp_read_write",
                          "run",
                          "--threads=10",
                          "--rate=101",
                          "--events=1000",
                          "--time=0",
                          "--mysql-host=h1,h2",
                          "--mysql-port=3306,3307",
                          NULL};
    struct co_args a;
    struct pr_error err = {0};
    CHECK(parse(&a, argv) == 0);
    co_plan *p = co_plan_new(&a, 3, NULL, 42, &err);
    CHECK(p != NULL);
    CHECK_EQ_U64(co_plan_phases(p), 1);
    uint64_t conns = 0, rate = 0, events = 0, first = 0;
    for (uint32_t i = 0; i < 3; i++) {
        const struct pr_msg_plan *pl = plan_of(p, 0, i);
        CHECK(pl != NULL);
        CHECK_EQ_U64(pl->conn_first, first);
        CHECK_EQ_U64(pl->conns_total, 10);
        CHECK_EQ_U64(pl->agent_index, i);
        CHECK_EQ_U64(pl->agent_count, 3);
        CHECK(pl->lead == (i == 0));
        CHECK_EQ_U64(pl->seed, 42);
        CHECK(pl->n_hosts == 2 && pl->n_ports == 2 && pl->ports[1] == 3307);
        CHECK(strcmp(pl->password, "secret-pw") == 0);
        for (uint32_t o = 0; o < pl->n_opts; o++)
            CHECK(strstr(pl->opts[o].value, "secret-pw") == NULL);
        CHECK(pl->plan_hash != 0 && pl->plan_hash != plan_of(p, 0, (i + 1) % 3)->plan_hash);
        check_hash_covers(pl);
        first += pl->conns;
        conns += pl->conns;
        rate += pl->rate;
        events += pl->events;
    }
    CHECK_EQ_U64(plan_of(p, 0, 0)->conns, 4);
    CHECK_EQ_U64(conns, 10);
    CHECK_EQ_U64(rate, 101);
    CHECK_EQ_U64(events, 1000);
    /* The rate and the events follow the connections (4/3/3), not the
     * agents: 101/s is 41/30/30 (an even split would be 34/34/33). */
    CHECK_EQ_U64(plan_of(p, 0, 0)->rate, 41);
    CHECK_EQ_U64(plan_of(p, 0, 1)->rate, 30);
    CHECK_EQ_U64(plan_of(p, 0, 2)->rate, 30);
    CHECK_EQ_U64(plan_of(p, 0, 0)->events, 400);
    CHECK_EQ_U64(plan_of(p, 0, 2)->events, 300);
    /* Weights 3/1/1 give connections 6/2/2 and the rate with them. */
    co_plan *weighted = co_plan_new(&a, 3, (const uint64_t[]){3, 1, 1}, 42, &err);
    CHECK(weighted != NULL);
    for (uint32_t i = 0; weighted && i < 3; i++) {
        CHECK_EQ_U64(plan_of(weighted, 0, i)->conns, i == 0 ? 6 : 2);
        CHECK_EQ_U64(plan_of(weighted, 0, i)->rate, i == 0 ? 61 : 20);
    }
    co_plan_destroy(&weighted);
    /* Equal plans hash equal: the same arguments planned again. */
    co_plan *again = co_plan_new(&a, 3, NULL, 42, &err);
    for (uint32_t i = 0; again && i < 3; i++)
        CHECK_EQ_U64(plan_of(again, 0, i)->plan_hash, plan_of(p, 0, i)->plan_hash);
    co_plan_destroy(&again);
    co_plan_destroy(&p);
    CHECK(co_plan_new(&a, 11, NULL, 1, &err) == NULL); /* 10 connections, 11 agents */
    CHECK(strstr(err.msg, "--threads") != NULL);
    co_args_clear(&a);
}

static void test_partitions(void)
{
    const char *argv[] = {
        "stampede",          "oltp_point_select",  "run", "--threads=4", "--tables=5",
        "--table-size=1000", "--partition=tables", NULL};
    struct co_args a;
    struct pr_error err = {0};
    CHECK(parse(&a, argv) == 0);
    co_plan *p = co_plan_new(&a, 2, (const uint64_t[]){1, 1}, 7, &err);
    CHECK(p != NULL);
    CHECK_EQ_U64(plan_of(p, 0, 0)->n_tables + plan_of(p, 0, 1)->n_tables, 5);
    CHECK(plan_of(p, 0, 0)->tables[0].table == 1 && plan_of(p, 0, 1)->tables[0].table == 4);
    co_plan_destroy(&p);
    a.part = PR_PART_ROWS;
    p = co_plan_new(&a, 2, NULL, 7, &err);
    CHECK(p != NULL);
    CHECK_EQ_U64(plan_of(p, 0, 0)->n_tables, 5);
    CHECK_EQ_U64(plan_of(p, 0, 0)->tables[0].id_hi + 1, plan_of(p, 0, 1)->tables[0].id_lo);
    CHECK_EQ_U64(plan_of(p, 0, 1)->tables[4].id_hi, 1000);
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* One table over three agents: create, load, index in three phases. */
static void test_prepare_phases(void)
{
    const char *argv[] = {"stampede",          "oltp_read_write", "prepare", "--tables=1",
                          "--table-size=1000", "--threads=3",     NULL};
    struct co_args a;
    struct pr_error err = {0};
    CHECK(parse(&a, argv) == 0);
    co_plan *p = co_plan_new(&a, 3, NULL, 7, &err);
    CHECK_MSG(p != NULL, "%s", err.msg);
    if (p == NULL)
        return;
    CHECK_EQ_U64(co_plan_phases(p), 3);
    CHECK_EQ_U64(co_plan_rows_total(p), 1000);
    CHECK(strcmp(co_plan_phase_name(p, 0), "create") == 0);
    uint32_t creators = 0, indexers = 0;
    uint64_t next = 1;
    for (uint32_t i = 0; i < 3; i++) {
        const struct pr_msg_plan *c = plan_of(p, 0, i), *l = plan_of(p, 1, i),
                                 *x = plan_of(p, 2, i);
        if (c) {
            creators++;
            CHECK(c->tables[0].create_table && !c->tables[0].create_index);
            CHECK(c->tables[0].id_hi + 1 == c->tables[0].id_lo); /* no rows */
        }
        if (x) {
            indexers++;
            CHECK(x->tables[0].create_index && !x->tables[0].create_table);
            CHECK(x->tables[0].id_hi + 1 == x->tables[0].id_lo);
        }
        CHECK(l != NULL && !l->tables[0].create_table && !l->tables[0].create_index);
        CHECK_EQ_U64(l->tables[0].id_lo, next);
        next = l->tables[0].id_hi + 1;
    }
    CHECK_EQ_U64(next, 1001);
    CHECK(creators == 1 && indexers == 1);
    co_plan_destroy(&p);

    /* Enough tables: one phase, each agent creates and indexes its own. */
    const char *argv2[] = {"stampede", "oltp_read_write", "prepare", "--tables=4", NULL};
    co_args_clear(&a);
    CHECK(parse(&a, argv2) == 0);
    p = co_plan_new(&a, 2, NULL, 7, &err);
    CHECK(p != NULL && co_plan_phases(p) == 1);
    CHECK(plan_of(p, 0, 1)->n_tables == 2 && plan_of(p, 0, 1)->tables[0].create_table &&
          plan_of(p, 0, 1)->tables[0].create_index);
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* Host and socket lists split by pr_parse's one rule; an empty item is an
 * error naming the option, not a silently dropped (or empty) host. */
static void test_list_items(void)
{
    const char *argv[] = {"stampede", "oltp_read_write", "run", "--mysql-host=h1,,h2", NULL};
    struct co_args a;
    struct pr_error err = {0};

    CHECK(parse(&a, argv) == 0);
    CHECK(co_plan_new(&a, 1, NULL, 1, &err) == NULL);
    CHECK_MSG(strstr(err.msg, "--mysql-host") && strstr(err.msg, "h1,,h2"), "'%s'", err.msg);
    co_args_clear(&a);
    const char *argv2[] = {"stampede",
                           "oltp_read_write",
                           "run",
                           "--mysql-host=10.0.0.1,db2",
                           "--mysql-socket=/a.sock,/b.sock",
                           NULL};
    CHECK(parse(&a, argv2) == 0);
    err = (struct pr_error){0};
    co_plan *p = co_plan_new(&a, 1, NULL, 1, &err);
    CHECK_MSG(p != NULL, "%s", err.msg);
    const struct pr_msg_plan *pl = p ? plan_of(p, 0, 0) : NULL;
    CHECK(pl && pl->n_hosts == 2 && strcmp(pl->hosts[0], "10.0.0.1") == 0 &&
          strcmp(pl->hosts[1], "db2") == 0);
    CHECK(pl && pl->n_sockets == 2 && strcmp(pl->sockets[1], "/b.sock") == 0);
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* Item 5 and 7 of issue 9: every agent's READY must echo the hash of the
 * PLAN sent to it (another agent's, a stale one or a made-up one is
 * refused, naming both hashes); --rate-mode reaches every plan. */
static void test_ready_hash_and_rate_mode(void)
{
    const char *argv[] = {"stampede",    "oltp_read_write",     "run", "--threads=4",
                          "--rate=1000", "--rate-mode=uniform", NULL};
    struct co_args a;
    struct pr_error err = {0};
    CHECK(parse(&a, argv) == 0);
    co_plan *p = co_plan_new(&a, 2, NULL, 42, &err);
    CHECK(p != NULL);
    if (p == NULL) {
        co_args_clear(&a);
        return;
    }
    const struct pr_msg_plan *p0 = plan_of(p, 0, 0), *p1 = plan_of(p, 0, 1);
    CHECK(p0->rate_mode == PR_RATE_UNIFORM && p1->rate_mode == PR_RATE_UNIFORM);
    CHECK(p0->plan_hash != p1->plan_hash); /* agents' plans differ, so do their hashes */
    struct pr_msg_ready ready = {.plan_hash = p0->plan_hash, .conns = 2};
    CHECK(co_plan_check_ready(p, 0, 0, &ready, &err) == 0);
    CHECK(co_plan_check_ready(p, 0, 1, &ready, &err) == PR_EINVAL); /* agent 0's hash */
    CHECK(strstr(err.msg, "READY echoes plan hash") != NULL);
    char want[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)p1->plan_hash);
    CHECK_MSG(strstr(err.msg, want) != NULL, "message %s lacks %s", err.msg, want);
    ready.plan_hash = p1->plan_hash ^ 1;
    CHECK(co_plan_check_ready(p, 0, 1, &ready, &err) == PR_EINVAL);
    ready.plan_hash = p1->plan_hash;
    CHECK(co_plan_check_ready(p, 0, 1, &ready, &err) == 0);
    CHECK(co_plan_check_ready(p, 1, 1, &ready, &err) == PR_ERANGE); /* no such phase */
    co_plan_destroy(&p);
    co_args_clear(&a);
}

/* The general options, typed once by the parse (co_args.h cfg): what the
 * plans and reports read in place of the options by name. */
static void test_config(void)
{
    struct co_args a;
    if (parse(&a, (const char *const[]){"stampede", "oltp_read_write", "run", "--threads=8",
                                        "--time=20", "--rate=100", "--events=9",
                                        "--report-interval=2", "--percentile=99", "--histogram",
                                        "--rand-seed=7", "--forced-shutdown=3",
                                        "--mysql-socket=/s1,/s2", "--mysql-db=x", NULL}) != 0)
        return;
    const struct co_config *c = &a.cfg;
    CHECK(c->threads == 8 && c->threads_set && c->time_s == 20 && c->rate == 100);
    CHECK(c->events == 9 && c->report_interval_s == 2 && c->percentile == 99 && c->histogram);
    CHECK(c->seed == 7 && c->forced_on && c->forced_ms == 3000 && c->verbosity == 3);
    CHECK(strcmp(c->mysql_socket, "/s1,/s2") == 0 && strcmp(c->mysql_db, "x") == 0);
    CHECK(strcmp(c->mysql_host, "localhost") == 0 && strcmp(c->mysql_port, "3306") == 0);
    co_args_clear(&a);
    if (parse(&a, (const char *const[]){"stampede", "oltp_read_write", "prepare", "--tables=3",
                                        "--table_size=50", NULL}) != 0)
        return;
    CHECK(a.cfg.threads == 1 && !a.cfg.threads_set && a.cfg.mysql_socket == NULL);
    CHECK(a.cfg.tables == 3 && a.cfg.table_size == 50 && !a.cfg.forced_on);
    co_args_clear(&a);
}

int main(void)
{
    test_config();
    test_ready_hash_and_rate_mode();
    test_run_split();
    test_partitions();
    test_prepare_phases();
    test_list_items();
    return TEST_END();
}
