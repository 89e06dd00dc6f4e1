/* test_ag_tc_load: the tpcc loaders' streams without a server
 * (families/tpcc/agent/ag_tc_load.h): which streams a PLAN gives, their statements
 * in order, the rows each INSERT carries (counted in its text and as
 * reported), tpcc_load's cardinalities for one warehouse, the exact 10%
 * "original" items, the one-cycle o_c_id permutation, the same data for
 * the same seed however the item range is split, bad PLAN entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_tc_load.h"
#include "ag_tc_load_int.h"
#include "ag_tc_multi.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"
#include "tc_sink_fix.h"
#include "testlib.h"

/* ag_tc_loads over plan with options opts ("name=value", NULL ended). */
static int loads(enum pr_plan_cmd cmd, const struct pr_msg_table *t, uint32_t n, uint64_t seed,
                 const char *const *opts, struct sink *s, struct pr_error *err)
{
    pr_opts *po = pr_opts_new(PR_WL_TPCC);
    struct pr_tc_opts o;

    for (size_t i = 0; opts && opts[i]; i++)
        CHECK(pr_opts_parse_arg(po, opts[i], err) == 0);
    CHECK(pr_tc_opts_get(po, &o, err) == 0);
    struct pr_msg_plan plan = {
        .cmd = cmd, .seed = seed, .tables = (struct pr_msg_table *)t, .n_tables = n};
    int rc = ag_tc_loads(&o, po, &plan, sink_add, s, err);
    pr_opts_destroy(&po);
    return rc;
}

static const struct ag_result ok_result; /* rows 0: nothing missing, nothing broken */

struct tally {
    uint64_t rows[AG_TC_TABLE_COUNT_]; /* tuples counted in the INSERTs' text */
    uint64_t reported;                 /* rows next() reported */
    uint64_t originals;                /* item tuples with "original" */
    uint64_t hash;                     /* FNV-1a of the VALUES payloads, in order */
    size_t statements;
};

static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

static int table_of(const char *name, size_t len)
{
    for (int t = 0; t < AG_TC_TABLE_COUNT_; t++)
        if (strlen(ag_tc_table_name(t)) == len && memcmp(ag_tc_table_name(t), name, len) == 0)
            return t;
    return -1;
}

/* Run stream p to its end; every INSERT's tuples counted into *t. */
static void drain(struct ag_piece p, struct tally *t)
{
    const char *sql;
    size_t len;
    uint64_t rows;
    size_t k = 0;

    while (p.next(p.it, &sql, &len, &rows)) {
        CHECK(len == strlen(sql));
        if (k == 0)
            CHECK(strcmp(sql, "SET UNIQUE_CHECKS=0, FOREIGN_KEY_CHECKS=0, autocommit=1") == 0);
        if (k == 1)
            CHECK(strncmp(sql, "SELECT t.n, t.c, 0 FROM (", 25) == 0 &&
                  strstr(sql, "information_schema.TABLES") != NULL);
        if (k >= 2) {
            CHECK(strncmp(sql, "INSERT INTO ", 12) == 0);
            const char *name = sql + 12, *sp = strchr(name, ' ');
            int tab = table_of(name, (size_t)(sp - name));
            CHECK(tab >= 0 && strncmp(sp, " VALUES (", 9) == 0);
            uint64_t tuples = 0;
            for (const char *c = sp; *c; c++)
                tuples += *c == '(';
            CHECK_EQ_U64(tuples, rows);
            if (tab >= 0)
                t->rows[tab] += tuples;
            if (tab == AG_TC_ITEM)
                for (const char *c = strstr(sp, "original"); c; c = strstr(c + 8, "original"))
                    t->originals++;
            t->hash = fnv(t->hash, sp + 8, strlen(sp + 8));
            t->hash = fnv(t->hash, ",", 1);
        } else {
            CHECK_EQ_U64(rows, 0);
        }
        t->reported += rows;
        t->statements++;
        if (p.result)
            CHECK(p.result(p.it, &ok_result) == NULL);
        k++;
    }
}

static void test_one_warehouse(void)
{
    struct sink s = {0};
    struct pr_error err = {0};
    struct pr_msg_table t[] = {{1, 1, 1, false, false}, {2, 1, 100000, false, false}};
    struct tally ta = {.hash = 0xcbf29ce484222325ull};

    CHECK(loads(PR_CMD_PREPARE, t, 2, 9, NULL, &s, &err) == 0);
    printf("one warehouse + items: %zu streams\n", s.n);
    CHECK_EQ_U64(s.n, 4 + 8); /* items in 4 blocks; 4 warehouse/stock, 2 customer, 2 orders */
    for (size_t i = 0; i < s.n; i++)
        drain(s.p[i], &ta);
    uint64_t want[AG_TC_TABLE_COUNT_] = {
        [AG_TC_WAREHOUSE] = 1,   [AG_TC_DISTRICT] = 10,     [AG_TC_CUSTOMER] = 30000,
        [AG_TC_HISTORY] = 30000, [AG_TC_NEW_ORDERS] = 9000, [AG_TC_ORDERS] = 30000,
        [AG_TC_ITEM] = 100000,   [AG_TC_STOCK] = 100000};
    uint64_t sum = 0;
    for (int i = 0; i < AG_TC_TABLE_COUNT_; i++) {
        printf("  %-10s %llu\n", ag_tc_table_name(i), (unsigned long long)ta.rows[i]);
        if (i != AG_TC_ORDER_LINE)
            CHECK_EQ_U64(ta.rows[i], want[i]);
        sum += ta.rows[i];
    }
    CHECK(ta.rows[AG_TC_ORDER_LINE] >= 5 * 30000 && ta.rows[AG_TC_ORDER_LINE] <= 15 * 30000);
    CHECK_EQ_U64(ta.reported, sum);
    CHECK_EQ_U64(ta.originals, 10000);
    sink_free(&s);
}

/* The item rows of a seed, loaded through the given ranges. */
static uint64_t items_hash(uint64_t seed, const struct pr_msg_table *t, uint32_t n)
{
    static const char *const opts[] = {"--load-parts=items", NULL};
    struct sink s = {0};
    struct pr_error err = {0};
    struct tally ta = {.hash = 0xcbf29ce484222325ull};

    CHECK(loads(PR_CMD_PREPARE, t, n, seed, opts, &s, &err) == 0);
    for (size_t i = 0; i < s.n; i++)
        drain(s.p[i], &ta);
    CHECK_EQ_U64(ta.rows[AG_TC_ITEM], 100000);
    sink_free(&s);
    return ta.hash;
}

static void test_repeat(void)
{
    struct pr_msg_table whole[] = {{2, 1, 100000, false, false}};
    struct pr_msg_table split[] = {{2, 1, 12345, false, false}, {2, 12346, 100000, false, false}};
    uint64_t a = items_hash(3, whole, 1), b = items_hash(3, split, 2), c = items_hash(4, whole, 1);
    CHECK(a == b);
    CHECK(a != c);
}

static void test_permutation(void)
{
    struct ag__tc_load_ctx c = {.seed = 11};
    uint16_t perm[PR_TC_ORD_PER_DIST];
    uint32_t len = 0, at = 1;

    ag__tc_permutation(&c, 1, 1, perm);
    do { /* follow the cycle through 1 */
        at = perm[at - 1];
        len++;
    } while (at != 1 && len <= PR_TC_ORD_PER_DIST);
    CHECK_EQ_U64(len, PR_TC_ORD_PER_DIST);
    uint8_t flags[PR_TC_ITEMS + 1];
    ag__tc_orig_flags(&c, AG_TC_STOCK, 2, flags);
    uint32_t n = 0;
    for (uint32_t i = 0; i <= PR_TC_ITEMS; i++)
        n += flags[i];
    CHECK_EQ_U64(n, 10000);
    CHECK(flags[0] == 0);
}

static size_t statements(struct ag_piece p)
{
    const char *sql;
    size_t len, n = 0;
    uint64_t rows;
    while (p.next(p.it, &sql, &len, &rows))
        n++;
    return n;
}

static void test_commands(void)
{
    static const char *const fk_off[] = {"--foreign-keys=off", NULL};
    static const char *const all[] = {"--check-all=on", NULL};
    struct sink s = {0};
    struct pr_error err = {0};
    struct pr_msg_table ct = {1, 1, 0, true, false}, ci = {1, 1, 0, false, true};

    CHECK(loads(PR_CMD_PREPARE, &ct, 1, 1, NULL, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 1);
    CHECK_EQ_U64(statements(s.p[0]), 1 + 2 * 9); /* SET, then DROP + CREATE each */
    sink_free(&s);
    CHECK(loads(PR_CMD_PREPARE, &ci, 1, 1, NULL, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 1);
    sink_free(&s);
    CHECK(loads(PR_CMD_PREPARE, &ci, 1, 1, fk_off, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 0);
    CHECK(loads(PR_CMD_CLEANUP, &ct, 1, 1, NULL, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 1);
    CHECK_EQ_U64(statements(s.p[0]), 1 + 9);
    sink_free(&s);

    struct pr_msg_table w3 = {1, 1, 3, false, false};
    CHECK(loads(PR_CMD_CHECK, &w3, 1, 1, NULL, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 3);
    /* begin, probe, presence, conditions 1-4, commit */
    CHECK_EQ_U64(statements(s.p[0]), 3 + 4 + 1);
    sink_free(&s);
    CHECK(loads(PR_CMD_CHECK, &w3, 1, 1, all, &s, &err) == 0);
    CHECK_EQ_U64(statements(s.p[2]), 3 + 12 + 1 + 1); /* + the as-loaded query */
    sink_free(&s);
}

static void test_bad(void)
{
    struct sink s = {0};
    struct pr_error err = {0};
    struct pr_msg_table bad[][1] = {{{3, 1, 1, false, false}},
                                    {{2, 0, 5, false, false}},
                                    {{2, 1, 100001, false, false}},
                                    {{1, 1, 40000, false, false}},
                                    {{1, 5, 3, false, false}}};
    const char *want[] = {"not a tpcc entry", "item range 0..5", "item range 1..100001",
                          "warehouse range 1..40000", "warehouse range 5..3"};

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(loads(PR_CMD_PREPARE, bad[i], 1, 1, NULL, &s, &err) == PR_EINVAL);
        CHECK_MSG(strstr(err.msg, want[i]) != NULL, "'%s' lacks '%s'", err.msg, want[i]);
        CHECK_EQ_U64(s.n, 0);
    }
    CHECK(loads(PR_CMD_PREWARM, NULL, 0, 1, NULL, &s, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "tpcc has no prewarm command") != NULL);
}

static void test_probe_message(void)
{
    struct ag_result r = {.rows = 1, .ncols = 3};
    char msg[256];

    r.col[0] = "stock";
    r.col[1] = "17";
    r.col[2] = "0";
    r.is_num[1] = r.is_num[2] = true;
    r.ival[1] = 17;
    CHECK(strcmp(ag_tc_schema_probe_check(&r, msg, sizeof msg),
                 "table stock does not exist: run `stampede tpcc prepare` first") == 0);
    r.col[2] = "4";
    r.ival[2] = 4;
    const char *m = ag_tc_schema_probe_check(&r, msg, sizeof msg);
    CHECK(strstr(m, "table stock has 4 columns, tpcc-mysql's has 17") != NULL);
}

/* --multi-schema (ag_tc_multi): every stream once per schema, its first
 * statement USE `<schema>`, the USE's result not handed to the stream, the
 * stream's messages prefixed with the schema. */
static void test_multi(void)
{
    static const char *const dbs[] = {"s_1", "s_2"};
    struct sink s = {0};
    struct pr_error err = {0};
    pr_opts *po = pr_opts_new(PR_WL_TPCC);
    struct pr_tc_opts o;
    struct pr_msg_table ct = {1, 1, 0, true, false}, w1 = {1, 1, 1, false, false};
    const char *sql;
    size_t len;
    uint64_t rows;

    CHECK(pr_tc_opts_get(po, &o, &err) == 0);
    struct pr_msg_plan plan = {.cmd = PR_CMD_CLEANUP, .seed = 1, .tables = &ct, .n_tables = 1};
    CHECK(ag_tc_multi_loads(dbs, 2, &o, po, &plan, sink_add, &s, &err) == 0);
    CHECK_EQ_U64(s.n, 2);
    for (size_t i = 0; i < s.n && i < 2; i++) {
        char want[32];
        snprintf(want, sizeof want, "USE `%s`", dbs[i]);
        CHECK(s.p[i].next(s.p[i].it, &sql, &len, &rows) && len == strlen(want) &&
              memcmp(sql, want, len) == 0 && rows == 0);
        CHECK_EQ_U64(statements(s.p[i]), 1 + 9); /* then cleanup's own: SET, 9 DROPs */
    }
    sink_free(&s);

    /* One warehouse's load: 3 parts' streams, twice; a probe that finds a
     * table missing fails naming the schema. */
    plan.cmd = PR_CMD_PREPARE;
    plan.tables = &w1;
    size_t single = 0;
    CHECK(ag_tc_multi_loads(dbs, 0, &o, po, &plan, sink_add, &s, &err) == 0);
    single = s.n;
    sink_free(&s);
    CHECK(ag_tc_multi_loads(dbs, 2, &o, po, &plan, sink_add, &s, &err) == 0);
    CHECK_MSG(single > 0 && s.n == 2 * single, "%zu streams, %zu without -m", s.n, single);
    struct ag_piece *p = &s.p[s.n - 1]; /* the second schema's */
    struct ag_result missing = {.rows = 1, .ncols = 3};
    missing.col[0] = "stock";
    missing.col[1] = "17";
    missing.col[2] = "0";
    missing.is_num[1] = missing.is_num[2] = true;
    missing.ival[1] = 17;
    CHECK(p->next(p->it, &sql, &len, &rows) && strncmp(sql, "USE `s_2`", len) == 0);
    CHECK(p->result(p->it, &missing) == NULL); /* the USE's: not the stream's */
    CHECK(p->next(p->it, &sql, &len, &rows) && strncmp(sql, "SET ", 4) == 0);
    CHECK(p->result(p->it, &ok_result) == NULL);
    CHECK(p->next(p->it, &sql, &len, &rows)); /* the probe */
    const char *m = p->result(p->it, &missing);
    printf("probe message: %s\n", m ? m : "NULL");
    CHECK(m && strncmp(m, "s_2: table stock does not exist", 31) == 0);
    sink_free(&s);
    pr_opts_destroy(&po);
}

int main(void)
{
    test_one_warehouse();
    test_repeat();
    test_permutation();
    test_commands();
    test_bad();
    test_probe_message();
    test_multi();
    return TEST_END();
}
