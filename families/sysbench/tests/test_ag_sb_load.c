/* test_ag_sb_load: sysbench's prepare / cleanup / prewarm statements
 * (docs/design.md §13.1, Data set). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>

#include "ag_sb_family.h"
#include "ag_sb_load.h"
#include "testlib.h"

static ag_sb_workload *wl_make(const char *name, const char *const *args)
{
    struct ag_kv kv[16] = {{0}};
    char buf[16][64];
    size_t n = 0;
    struct pr_error err = {0};

    for (; args && args[n]; n++) {
        snprintf(buf[n], sizeof buf[n], "%s", args[n]);
        char *eq = strchr(buf[n], '=');
        *eq = '\0';
        kv[n].name = buf[n];
        kv[n].value = eq + 1;
    }
    ag_sb_workload *wl = ag_sb_workload_new(&ag_sb_family, name, kv, n, &err);
    CHECK_MSG(wl != NULL, "%s", err.msg);
    if (!wl)
        exit(1);
    return wl;
}

static const char ddl_default[] = "CREATE TABLE sbtest1(\n"
                                  "  id INTEGER NOT NULL AUTO_INCREMENT,\n"
                                  "  k INTEGER DEFAULT '0' NOT NULL,\n"
                                  "  c CHAR(120) DEFAULT '' NOT NULL,\n"
                                  "  pad CHAR(60) DEFAULT '' NOT NULL,\n"
                                  "  PRIMARY KEY (id)\n"
                                  ") /*! ENGINE = innodb */ ";

/* Walk the rows of one INSERT; returns the row count, checks shapes and that
 * ids (when present) continue from *next_id. */
static uint64_t check_rows(const char *s, size_t len, bool with_id, uint64_t *next_id, double *ksum)
{
    const char *end = s + len;
    uint64_t n = 0;

    while (s < end) {
        unsigned long long id = 0;
        unsigned k;
        char c[128], pad[64];
        int used = 0, got;

        if (with_id)
            got = sscanf(s, "(%llu, %u, '%119[0-9-]', '%59[0-9-]')%n", &id, &k, c, pad, &used);
        else
            got = sscanf(s, "(%u, '%119[0-9-]', '%59[0-9-]')%n", &k, c, pad, &used);
        if (got != (with_id ? 4 : 3) || used == 0 || strlen(c) != 119 || strlen(pad) != 59) {
            CHECK_MSG(false, "bad row at '%.40s'", s);
            return n;
        }
        if (with_id)
            CHECK(id == (*next_id)++);
        CHECK(k >= 1 && k <= 10000);
        *ksum += k;
        n++;
        s += used;
        if (s < end) {
            CHECK(*s == ',');
            s++;
        }
    }
    return n;
}

/* Section 3.3: table_size 10000 loads as 2716/2716/2716/1852 rows. */
static void test_prepare_default(void)
{
    ag_sb_workload *wl = wl_make("oltp_read_write", NULL);
    struct ag_sb_load_piece piece = {1, 1, 10000, true, true, false};
    ag_sb_load *l = ag_sb_load_prepare_new(wl, &piece, 42, NULL);
    struct ag_sb_load_stmt st;
    uint64_t batches[8], nb = 0, next_id = 1;
    double ksum = 0;
    const char *pre = "INSERT INTO sbtest1(k, c, pad) VALUES(";

    CHECK(ag_sb_load_next(l, &st));
    CHECK(strcmp(st.text, ddl_default) == 0 && st.text_len == strlen(ddl_default));
    CHECK(st.note && strcmp(st.note, "Creating table 'sbtest1'...") == 0);
    while (ag_sb_load_next(l, &st) && strncmp(st.text, "INSERT", 6) == 0 && nb < 8) {
        CHECK(strncmp(st.text, pre, strlen(pre)) == 0);
        CHECK(st.text_len == strlen(st.text) && st.text_len < 524288);
        if (nb == 0)
            CHECK(st.note && strcmp(st.note, "Inserting 10000 records into 'sbtest1'") == 0);
        else
            CHECK(st.note == NULL);
        size_t plen = strlen(pre) - 1;
        uint64_t rows = check_rows(st.text + plen, st.text_len - plen, false, &next_id, &ksum);
        CHECK(rows == st.rows);
        batches[nb++] = rows;
        if (rows == 2716)
            CHECK(st.text_len > 524000);
    }
    CHECK_EQ_U64(nb, 4);
    CHECK(nb == 4 && batches[0] == 2716 && batches[1] == 2716 && batches[2] == 2716 &&
          batches[3] == 1852);
    printf("prepare 10000 rows: batches %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
           ", mean k %.1f\n",
           batches[0], batches[1], batches[2], batches[3], ksum / 10000);
    CHECK(ksum / 10000 > 4800 && ksum / 10000 < 5200); /* special: centred */
    CHECK(strcmp(st.text, "CREATE INDEX k_1 ON sbtest1(k)") == 0);
    CHECK(st.note && strcmp(st.note, "Creating a secondary index on 'sbtest1'...") == 0);
    CHECK(!ag_sb_load_next(l, &st));
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    CHECK(l == NULL);
    ag_sb_workload_destroy(&wl);
}

/* --auto_inc=off --secondary=on --mysql_storage_engine=myisam; a table
 * split into two pieces with explicit ids; no index when create_secondary
 * is off. */
static void test_prepare_variants(void)
{
    const char *args[] = {"auto_inc=off",    "secondary=on", "mysql_storage_engine=myisam",
                          "table_size=3000", "tables=4",     NULL};
    ag_sb_workload *wl = wl_make("oltp_read_only", args);
    struct ag_sb_load_piece p1 = {4, 1, 1500, true, false, false};
    struct ag_sb_load_piece p2 = {4, 1501, 3000, false, true, false};
    struct ag_sb_load_stmt st;
    uint64_t next_id = 1, rows = 0;
    double ksum = 0;
    const char *pre = "INSERT INTO sbtest4(id, k, c, pad) VALUES(";

    ag_sb_load *l = ag_sb_load_prepare_new(wl, &p1, 1, NULL);
    CHECK(ag_sb_load_next(l, &st));
    CHECK(strstr(st.text, "CREATE TABLE sbtest4(\n  id INTEGER NOT NULL,\n") == st.text);
    CHECK(strstr(st.text, "  KEY xid (id)\n) /*! ENGINE = myisam */ ") != NULL);
    while (ag_sb_load_next(l, &st)) {
        CHECK(strncmp(st.text, pre, strlen(pre)) == 0);
        rows += check_rows(st.text + strlen(pre) - 1, st.text_len - strlen(pre) + 1, true, &next_id,
                           &ksum);
    }
    ag_sb_load_destroy(&l);
    l = ag_sb_load_prepare_new(wl, &p2, 2, NULL);
    CHECK(ag_sb_load_next(l, &st) && strncmp(st.text, pre, strlen(pre)) == 0);
    CHECK(st.note == NULL);
    rows +=
        check_rows(st.text + strlen(pre) - 1, st.text_len - strlen(pre) + 1, true, &next_id, &ksum);
    CHECK(ag_sb_load_next(l, &st) && strcmp(st.text, "CREATE INDEX k_4 ON sbtest4(k)") == 0);
    CHECK(!ag_sb_load_next(l, &st));
    CHECK_EQ_U64(rows, 3000);
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);

    /* auto_inc on but split: explicit ids; create_secondary=off: no index */
    const char *a2[] = {"create_secondary=off", NULL};
    wl = wl_make("oltp_read_write", a2);
    struct ag_sb_load_piece p3 = {1, 9001, 10000, false, true, true};
    l = ag_sb_load_prepare_new(wl, &p3, 3, NULL);
    CHECK(ag_sb_load_next(l, &st));
    CHECK(strncmp(st.text, "INSERT INTO sbtest1(id, k, c, pad) VALUES(9001, ", 47) == 0);
    CHECK(st.rows == 1000);
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);
}

/* Empty tables: table_size 0, oltp_insert with auto_inc off, bulk_insert. */
static void test_prepare_empty(void)
{
    const char *a0[] = {"table_size=0", NULL};
    const char *ai[] = {"auto_inc=off", NULL};
    struct ag_sb_load_piece p0 = {1, 1, 0, true, true, false};
    struct ag_sb_load_piece pi = {2, 1, 10000, true, true, false};
    struct ag_sb_load_stmt st;
    ag_sb_workload *wl = wl_make("oltp_read_write", a0);
    ag_sb_load *l = ag_sb_load_prepare_new(wl, &p0, 1, NULL);

    CHECK(ag_sb_load_next(l, &st) && strncmp(st.text, "CREATE TABLE", 12) == 0);
    CHECK(ag_sb_load_next(l, &st) && strcmp(st.text, "CREATE INDEX k_1 ON sbtest1(k)") == 0);
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);

    wl = wl_make("oltp_insert", ai);
    l = ag_sb_load_prepare_new(wl, &pi, 1, NULL);
    CHECK(ag_sb_load_next(l, &st) && strncmp(st.text, "CREATE TABLE sbtest2(", 21) == 0);
    CHECK(ag_sb_load_next(l, &st) && strcmp(st.text, "CREATE INDEX k_2 ON sbtest2(k)") == 0);
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);

    wl = wl_make("bulk_insert", NULL);
    struct ag_sb_load_piece pb = {3, 1, 0, true, true, false};
    l = ag_sb_load_prepare_new(wl, &pb, 1, NULL);
    CHECK(ag_sb_load_next(l, &st));
    CHECK(strcmp(st.text, "        CREATE TABLE IF NOT EXISTS sbtest3 (\n"
                          "          id INTEGER NOT NULL,\n"
                          "          k INTEGER DEFAULT '0' NOT NULL,\n"
                          "          PRIMARY KEY (id))") == 0);
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);
}

static void test_cleanup_prewarm(void)
{
    const char *args[] = {"tables=3", "table_size=500", NULL};
    ag_sb_workload *wl = wl_make("oltp_read_write", args);
    uint32_t t[8];
    struct ag_sb_load_stmt st;

    CHECK(ag_sb_load_tables_for(3, 0, 2, t, 8) == 2 && t[0] == 1 && t[1] == 3);
    CHECK(ag_sb_load_tables_for(3, 1, 2, t, 8) == 1 && t[0] == 2);
    CHECK(ag_sb_load_tables_for(1, 1, 2, t, 8) == 0);
    CHECK(ag_sb_load_tables_for(10, 0, 1, t, 4) == 10 && t[3] == 4);

    uint32_t all[] = {1, 2, 3};
    ag_sb_load *l = ag_sb_load_cleanup_new(wl, all, 3);
    for (uint32_t i = 1; i <= 3; i++) {
        char want[64], note[64];
        snprintf(want, sizeof want, "DROP TABLE IF EXISTS sbtest%u", i);
        snprintf(note, sizeof note, "Dropping table 'sbtest%u'...", i);
        CHECK(ag_sb_load_next(l, &st) && strcmp(st.text, want) == 0);
        CHECK(st.note && strcmp(st.note, note) == 0);
    }
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);

    uint32_t mine[] = {2};
    static const char *const want[] = {
        "SET tmp_table_size=2*1024*1024*1024",
        "SET max_heap_table_size=2*1024*1024*1024",
        "ANALYZE TABLE sbtest2",
        "SELECT AVG(id) FROM (SELECT * FROM sbtest2 FORCE KEY (PRIMARY) LIMIT 500) t",
        "SELECT COUNT(*) FROM (SELECT * FROM sbtest2 WHERE k LIKE '%0%' LIMIT 500) t",
    };
    l = ag_sb_load_prewarm_new(wl, mine, 1);
    for (size_t i = 0; i < 5; i++) {
        CHECK(ag_sb_load_next(l, &st));
        CHECK_MSG(strcmp(st.text, want[i]) == 0, "%s", st.text);
        CHECK((st.note != NULL) == (i == 2));
    }
    CHECK(strcmp(st.text, want[4]) == 0);
    CHECK(!ag_sb_load_next(l, &st));
    ag_sb_load_destroy(&l);
    ag_sb_workload_destroy(&wl);
}

static void test_errors(void)
{
    ag_sb_workload *wl = wl_make("oltp_read_write", NULL);
    struct pr_error err = {0};
    struct ag_sb_load_piece p0 = {0, 1, 10, true, true, false};
    struct ag_sb_load_piece p1 = {1, 1, 10001, true, true, false};

    CHECK(ag_sb_load_prepare_new(wl, &p0, 1, &err) == NULL && err.code == PR_EINVAL);
    CHECK(ag_sb_load_prepare_new(wl, &p1, 1, &err) == NULL && strstr(err.msg, "table_size"));
    ag_sb_workload_destroy(&wl);
}

int main(void)
{
    test_prepare_default();
    test_prepare_variants();
    test_prepare_empty();
    test_cleanup_prewarm();
    test_errors();
    return TEST_END();
}
