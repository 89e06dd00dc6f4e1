/* test_ag_sb_share: --partition=none|tables|rows on the sysbench workloads
 * (ag_sb_workload_set_share, ag_sb_share.h): part=none keeps every stream as
 * it was, tables and rows confine each statement to the share, plans a share
 * cannot honour are refused. Built with -Wl,--wrap=malloc,calloc,realloc so
 * allocations by the agent library are counted: a confined cursor must not
 * allocate per event. */
#include <stdint.h>
#include <stdlib.h>

#include "ag_sb_family.h"
#include "ag_sb_workload.h"
#define TESTLIB_COUNT_ALLOCS /* nallocs: the library must not allocate per event */
#include "sb_wl_fix.h"
#include "testlib.h"

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Digest of `events` events of one cursor: every call's statement index,
 * parameters and text. */
static uint64_t stream_digest(const ag_sb_workload *wl, ag_sb_cursor *c, int events)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    struct ag_call k;

    for (int e = 0; e < events; e++) {
        ag_sb_cursor_begin(c);
        while (ag_sb_cursor_next(c, &k)) {
            h = fnv(h, &k.stmt, sizeof k.stmt);
            if (k.text) {
                h = fnv(h, k.text, k.text_len);
                continue;
            }
            const struct ag_stmt_def *d = ag_sb_workload_stmt(wl, (size_t)k.stmt);
            for (uint32_t p = 0; p < k.nparams; p++)
                h = d->type[p] == AG_PARAM_STR ? fnv(h, k.sval[p], k.slen[p])
                                               : fnv(h, &k.ival[p], sizeof k.ival[p]);
        }
    }
    while (ag_sb_cursor_finish(c, &k))
        h = fnv(h, k.text, k.text_len);
    return h;
}

/* Streams of part=none, one per workload and distribution. */
static const struct {
    const char *wl;
    const char *args[5];
} none_cases[] = {
    {"oltp_read_write", {"tables=4", "table_size=10000", NULL}},
    {"oltp_read_write", {"tables=3", "table_size=500", "db-ps-mode=disable", "rand-type=uniform"}},
    {"oltp_write_only", {"tables=5", "table_size=777", "rand-type=pareto", NULL}},
    {"oltp_read_only", {"tables=2", "table_size=100000", "rand-type=zipfian", NULL}},
    {"oltp_delete", {"tables=7", "table_size=1000", "rand-type=gaussian", NULL}},
    {"oltp_insert", {"tables=3", "auto_inc=off", NULL}},
    {"oltp_update_non_index", {"tables=2", "table_size=99", "db-ps-mode=disable", NULL}},
    {"select_random_points", {"table_size=1000", NULL}},
    {"bulk_insert", {NULL}},
};

/* Digests of the none_cases streams (seed 1000 + i, connection i of 16,
 * 3000 events) made by the cursor at commit ee3dd60, before partitioning
 * existed: part=none must keep every statement of every stream. */
static const uint64_t none_digest[] = {
    UINT64_C(0x62d44424f071f30f), UINT64_C(0x2b1e9a3f4d9f61cd), UINT64_C(0xcb9205663f2879ae),
    UINT64_C(0xf62b984319138e92), UINT64_C(0x3d7484a299504b19), UINT64_C(0x95964e4460116b8e),
    UINT64_C(0x97d4b06a034167b8), UINT64_C(0xf8f888af59a022fb), UINT64_C(0xb74ea4d078d562c8),
};

static uint64_t none_case_digest(size_t i, bool set_none)
{
    ag_sb_workload *wl = wl_ok(none_cases[i].wl, none_cases[i].args);
    struct pr_error err = {0};

    if (set_none)
        CHECK(ag_sb_workload_set_share(wl, PR_PART_NONE, NULL, 0, &err) == 0);
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 1000 + i, (uint32_t)i, 16);
    uint64_t h = stream_digest(wl, c, 3000);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);
    return h;
}

static void test_part_none_unchanged(void)
{
    CHECK_EQ_U64(sizeof none_digest / sizeof none_digest[0],
                 sizeof none_cases / sizeof none_cases[0]);
    for (size_t i = 0; i < sizeof none_cases / sizeof none_cases[0]; i++) {
        uint64_t h = none_case_digest(i, false);
        CHECK_MSG(h == none_digest[i], "%s (case %zu): digest %016" PRIx64, none_cases[i].wl, i, h);
        CHECK_EQ_U64(none_case_digest(i, true), h);
    }
}

/* Table number of a call: the N of "sbtestN" in its SQL. */
static uint32_t call_table(const ag_sb_workload *wl, const struct ag_call *k)
{
    const char *sql = k->stmt >= 0 ? sql_of(wl, k) : k->text;
    const char *p = sql ? strstr(sql, "sbtest") : NULL;
    return p ? (uint32_t)strtoul(p + 6, NULL, 10) : 0;
}

/* Bounds a share puts on one table's ids. */
struct slice {
    int64_t lo, hi;
    bool whole; /* tables: ranges are sysbench's (the end may pass table_size) */
};

/* Check every id a (prepared) call carries against s; counts ids seen and
 * ranges whose start was folded (start + range_size - 1 == hi). */
static void check_call_ids(const struct ag_call *k, struct slice s, int64_t table_size,
                           int64_t range_size, uint64_t *ids, uint64_t *folded)
{
    const char *kind = k->kind;
    int64_t id;

    if (!strcmp(kind, "begin") || !strcmp(kind, "commit"))
        return;
    if (strstr(kind, "_ranges") && s.whole) {
        CHECK(k->ival[0] >= s.lo && k->ival[0] <= s.hi &&
              k->ival[1] == k->ival[0] + range_size - 1);
        (*ids)++;
        return;
    }
    if (strstr(kind, "_ranges")) {
        int64_t a = k->ival[0], b = k->ival[1];
        CHECK_MSG(a >= s.lo && b <= s.hi && a <= b, "%s %lld..%lld outside %lld..%lld", kind,
                  (long long)a, (long long)b, (long long)s.lo, (long long)s.hi);
        if (s.hi - s.lo + 1 >= range_size)
            CHECK(b - a + 1 == range_size);
        else
            CHECK(a == s.lo && b == s.hi);
        *folded += b == s.hi;
        (*ids)++;
        return;
    }
    id = !strcmp(kind, "non_index_updates") ? k->ival[1] : k->ival[0];
    CHECK_MSG(id >= s.lo && id <= s.hi, "%s id %lld outside %lld..%lld", kind, (long long)id,
              (long long)s.lo, (long long)s.hi);
    if (!strcmp(kind, "inserts"))
        CHECK(k->ival[1] >= 1 && k->ival[1] <= table_size); /* k: whole table */
    (*ids)++;
}

static void test_part_tables(void)
{
    static const uint32_t lists[][4] = {{3, 4, 5, 0}, {7, 2, 0, 0}, {8, 0, 0, 0}};
    static const char *const wls[] = {"oltp_read_write", "oltp_point_select", "oltp_delete",
                                      "oltp_insert", "oltp_update_non_index"};
    const char *args[] = {"tables=8", "table_size=5000", "rand-type=uniform", NULL};
    struct pr_error err = {0};
    struct ag_call k;

    for (size_t w = 0; w < sizeof wls / sizeof wls[0]; w++)
        for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
            struct pr_msg_table t[4] = {{0}};
            size_t n = 0;
            uint64_t hits[9] = {0}, total = 0, ids = 0, folded = 0;
            for (; n < 4 && lists[l][n]; n++)
                t[n] = (struct pr_msg_table){lists[l][n], 1, 5000, false, false};
            ag_sb_workload *wl = wl_ok(wls[w], args);
            CHECK_MSG(ag_sb_workload_set_share(wl, PR_PART_TABLES, t, n, &err) == 0, "%s", err.msg);
            ag_sb_cursor *c = ag_sb_cursor_new(wl, 11 + l, 0, 1);
            for (int e = 0; e < 20000; e++) {
                ag_sb_cursor_begin(c);
                while (ag_sb_cursor_next(c, &k)) {
                    uint32_t tn = call_table(wl, &k);
                    if (tn == 0)
                        continue; /* BEGIN, COMMIT */
                    CHECK(tn <= 8);
                    hits[tn <= 8 ? tn : 0]++;
                    total++;
                    if (k.stmt >= 0)
                        check_call_ids(&k, (struct slice){1, 5000, true}, 5000, 100, &ids, &folded);
                }
            }
            uint64_t inside = 0;
            for (size_t i = 0; i < n; i++) {
                inside += hits[lists[l][i]];
                /* uniform over the listed tables: each within 5% of its share */
                double share = (double)hits[lists[l][i]] / (double)total;
                CHECK_MSG(share > 0.95 / (double)n && share < 1.05 / (double)n,
                          "%s table %u share %.4f of %zu tables", wls[w], lists[l][i], share, n);
            }
            CHECK_MSG(inside == total, "%s: %" PRIu64 " of %" PRIu64 " statements off the list",
                      wls[w], total - inside, total);
            CHECK(total >= 20000);
            ag_sb_cursor_destroy(&c);
            ag_sb_workload_destroy(&wl);
        }
}

/* rows: a stream with slice [lo, hi] is exactly the none stream of a table
 * of hi - lo + 1 rows shifted by lo - 1, for every distribution (point
 * selects draw nothing else); so the shape is sysbench's within the slice. */
static void test_part_rows_shape(void)
{
    static const char *const types[] = {"uniform", "special", "gaussian", "pareto", "zipfian"};
    struct pr_error err = {0};
    struct ag_call a, b;

    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char rt[64];
        snprintf(rt, sizeof rt, "rand-type=%s", types[i]);
        const char *whole[] = {"tables=3", "table_size=100000", rt, "point_selects=10", NULL};
        const char *small[] = {"tables=3", "table_size=30000", rt, "point_selects=10", NULL};
        ag_sb_workload *wr = wl_ok("oltp_read_only", whole), *wn = wl_ok("oltp_read_only", small);
        struct pr_msg_table t[3];
        for (uint32_t j = 0; j < 3; j++)
            t[j] = (struct pr_msg_table){j + 1, 40001, 70000, false, false};
        CHECK(ag_sb_workload_set_share(wr, PR_PART_ROWS, t, 3, &err) == 0);
        ag_sb_cursor *cr = ag_sb_cursor_new(wr, 5, 0, 1), *cn = ag_sb_cursor_new(wn, 5, 0, 1);
        uint64_t n = 0, mismatch = 0, mid = 0;
        for (int e = 0; e < 5000; e++) {
            ag_sb_cursor_begin(cr);
            ag_sb_cursor_begin(cn);
            while (ag_sb_cursor_next(cr, &a)) {
                CHECK(ag_sb_cursor_next(cn, &b));
                if (strcmp(a.kind, "point_selects") != 0)
                    continue;
                n++;
                mismatch += a.ival[0] != b.ival[0] + 40000;
                mid += a.ival[0] > 50000 && a.ival[0] <= 60000;
            }
        }
        CHECK_MSG(mismatch == 0 && n == 50000, "%s: %" PRIu64 " of %" PRIu64 " ids differ",
                  types[i], mismatch, n);
        /* special's and gaussian's hot spot is the slice's middle, not the table's */
        if (!strcmp(types[i], "special") || !strcmp(types[i], "gaussian"))
            CHECK_MSG(mid > n / 2, "%s: %" PRIu64 " of %" PRIu64 " mid-slice", types[i], mid, n);
        ag_sb_cursor_destroy(&cr);
        ag_sb_cursor_destroy(&cn);
        ag_sb_workload_destroy(&wr);
        ag_sb_workload_destroy(&wn);
    }
}

/* rows: every id of every kind inside its table's slice (slices differ per
 * table), ranges inside and folded at the slice end, short slices. */
static void test_part_rows_bounds(void)
{
    static const char *const types[] = {"uniform", "special", "pareto", "zipfian"};
    static const struct slice sl[3][4] = {
        /* per table 1..3, per case */
        {{1, 2500, false}, {2501, 5000, false}, {9901, 10000, false}},
        {{4000, 4049, false}, {1, 1, false}, {10000, 10000, false}}, /* < range_size */
        {{1, 10000, false}, {5000, 5099, false}, {9000, 9999, false}},
    };
    const char *args_t[] = {"tables=3", "table_size=10000", "delete_inserts=2", NULL, NULL};
    struct pr_error err = {0};
    struct ag_call k;

    for (size_t ty = 0; ty < sizeof types / sizeof types[0]; ty++)
        for (size_t cs = 0; cs < 3; cs++) {
            char rt[64];
            snprintf(rt, sizeof rt, "rand-type=%s", types[ty]);
            args_t[3] = rt;
            ag_sb_workload *wl = wl_ok("oltp_read_write", args_t);
            struct pr_msg_table t[3];
            for (uint32_t j = 0; j < 3; j++)
                t[j] = (struct pr_msg_table){3 - j, (uint64_t)sl[cs][2 - j].lo,
                                             (uint64_t)sl[cs][2 - j].hi, false, false};
            CHECK_MSG(ag_sb_workload_set_share(wl, PR_PART_ROWS, t, 3, &err) == 0, "%s", err.msg);
            ag_sb_cursor *c = ag_sb_cursor_new(wl, 9 + cs, 0, 1);
            uint64_t ids = 0, folded = 0, per_table[4] = {0};
            for (int e = 0; e < 3000; e++) {
                ag_sb_cursor_begin(c);
                while (ag_sb_cursor_next(c, &k)) {
                    uint32_t tn = call_table(wl, &k);
                    if (tn == 0)
                        continue;
                    CHECK(tn >= 1 && tn <= 3);
                    if (tn < 1 || tn > 3)
                        continue;
                    per_table[tn]++;
                    check_call_ids(&k, sl[cs][tn - 1], 10000, 100, &ids, &folded);
                }
            }
            CHECK(ids > 3000 * 15);
            for (uint32_t tn = 1; tn <= 3; tn++) /* tables as sysbench: all of them */
                CHECK(per_table[tn] > ids / 5);
            CHECK(folded > 0);
            ag_sb_cursor_destroy(&c);
            ag_sb_workload_destroy(&wl);
        }
}

/* Inconsistent plans and workloads a partition cannot confine are refused
 * with a message saying why; the workload is left as it was. */
static void test_part_errors(void)
{
    static const struct {
        const char *wl;
        enum pr_partition part;
        struct pr_msg_table t[3];
        size_t n;
        const char *msg;
    } cases[] = {
        {"oltp_read_write", PR_PART_TABLES, {{0}}, 0, "no table"},
        {"oltp_read_write", PR_PART_TABLES, {{5, 1, 1000, 0, 0}}, 1, "outside --tables=4"},
        {"oltp_read_write", PR_PART_TABLES, {{0, 1, 1000, 0, 0}}, 1, "outside --tables=4"},
        {"oltp_read_write", PR_PART_TABLES, {{2, 1, 1000, 0, 0}, {2, 1, 1000, 0, 0}}, 2, "twice"},
        {"oltp_read_write", PR_PART_TABLES, {{2, 1, 500, 0, 0}}, 1, "not the whole table"},
        {"oltp_read_write",
         PR_PART_ROWS,
         {{1, 1, 10, 0, 0}, {2, 1, 10, 0, 0}},
         2,
         "table 3 has no id range"},
        {"oltp_read_write",
         PR_PART_ROWS,
         {{1, 0, 10, 0, 0}, {2, 1, 10, 0, 0}, {3, 1, 10, 0, 0}},
         3,
         "table 1 has ids 0..10"},
        {"oltp_read_write",
         PR_PART_ROWS,
         {{1, 1, 10, 0, 0}, {2, 900, 1001, 0, 0}, {3, 1, 10, 0, 0}},
         3,
         "within 1..1000"},
        {"oltp_read_write",
         PR_PART_ROWS,
         {{1, 1, 10, 0, 0}, {2, 11, 10, 0, 0}, {3, 1, 10, 0, 0}},
         3,
         "table 2 has ids 11..10"},
        {"oltp_read_write", PR_PART_ROWS, {{7, 1, 10, 0, 0}}, 1, "outside --tables=4"},
        {"oltp_read_write", PR_PART_NONE, {{1, 1, 10, 0, 0}}, 1, "part=none lists 1"},
        {"oltp_read_write", PR_PART_COUNT_, {{0}}, 0, "not none, tables or rows"},
        {"select_random_points", PR_PART_TABLES, {{1, 1, 1000, 0, 0}}, 1, "select_random_points"},
        {"select_random_ranges", PR_PART_ROWS, {{1, 1, 10, 0, 0}}, 1, "select_random_ranges"},
        {"bulk_insert", PR_PART_TABLES, {{1, 1, 1000, 0, 0}}, 1, "per connection"},
        {"oltp_insert", PR_PART_ROWS, {{1, 1, 10, 0, 0}}, 1, "new ids"},
    };
    const char *args[] = {"tables=4", "table_size=1000", NULL};
    struct pr_error err;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* bulk_insert declares neither option (and refuses unknown ones). */
        bool bulk = strcmp(cases[i].wl, "bulk_insert") == 0;
        ag_sb_workload *wl = wl_ok(cases[i].wl, bulk ? NULL : args);
        ag_sb_cursor *before = ag_sb_cursor_new(wl, 3, 0, 1);
        uint64_t h0 = stream_digest(wl, before, 200);
        memset(&err, 0, sizeof err);
        int rc = ag_sb_workload_set_share(wl, cases[i].part, cases[i].t, cases[i].n, &err);
        CHECK_MSG(rc == PR_EINVAL && err.code == PR_EINVAL && strstr(err.msg, cases[i].msg),
                  "case %zu: rc %d: %s", i, rc, err.msg);
        ag_sb_cursor *after = ag_sb_cursor_new(wl, 3, 0, 1);
        CHECK_EQ_U64(stream_digest(wl, after, 200), h0);
        ag_sb_cursor_destroy(&before);
        ag_sb_cursor_destroy(&after);
        ag_sb_workload_destroy(&wl);
    }
    /* oltp_insert under tables is fine: its table is drawn from the list */
    ag_sb_workload *wl = wl_ok("oltp_insert", args);
    struct pr_msg_table t = {4, 1, 1000, false, false};
    CHECK(ag_sb_workload_set_share(wl, PR_PART_TABLES, &t, 1, &err) == 0);
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 3, 0, 1);
    struct ag_call k;
    for (int e = 0; e < 100; e++) {
        ag_sb_cursor_begin(c);
        while (ag_sb_cursor_next(c, &k))
            CHECK(call_table(wl, &k) == 4);
    }
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);
}

/* A confined cursor allocates nothing per event either. */
static void test_part_no_alloc(void)
{
    const char *args[] = {"tables=4", "table_size=1000", "db-ps-mode=disable", NULL};
    struct pr_msg_table rows[4], tabs[2] = {{2, 1, 1000, 0, 0}, {3, 1, 1000, 0, 0}};
    struct pr_error err = {0};
    struct ag_call k;

    for (uint32_t j = 0; j < 4; j++)
        rows[j] = (struct pr_msg_table){j + 1, 100, 160, false, false};
    for (int m = 0; m < 2; m++) {
        ag_sb_workload *wl = wl_ok("oltp_read_write", args);
        CHECK(ag_sb_workload_set_share(wl, m ? PR_PART_ROWS : PR_PART_TABLES, m ? rows : tabs,
                                       m ? 4 : 2, &err) == 0);
        ag_sb_cursor *c = ag_sb_cursor_new(wl, 1, 0, 1);
        uint64_t before = nallocs;
        for (int e = 0; e < 20000; e++) {
            ag_sb_cursor_begin(c);
            while (ag_sb_cursor_next(c, &k))
                ;
        }
        CHECK_EQ_U64(nallocs, before);
        ag_sb_cursor_destroy(&c);
        ag_sb_workload_destroy(&wl);
    }
}

int main(void)
{
    test_part_none_unchanged();
    test_part_tables();
    test_part_rows_shape();
    test_part_rows_bounds();
    test_part_errors();
    test_part_no_alloc();
    return TEST_END();
}
