/* test_ag_sb_workload: sysbench 1.0.20's OLTP workloads as generated statements
 * (docs/design.md §13.1). Built with
 * -Wl,--wrap=malloc,calloc,realloc so allocations by the agent library are
 * counted: the cursor must not allocate per event. --partition is
 * test_ag_sb_share's. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>

#include "ag_sb_family.h"
#include "ag_sb_workload.h"
#define TESTLIB_COUNT_ALLOCS /* nallocs: the library must not allocate per event */
#include "sb_wl_fix.h"
#include "testlib.h"

/* ---- helpers ---- */

/* One event's calls, copied out of the cursor's buffers. */
#define MAXCALLS 64
struct event {
    size_t n;
    struct ag_call call[MAXCALLS];
    char text[MAXCALLS][1024];
    char sval[MAXCALLS][4][128];
};

static void run_event(ag_sb_cursor *c, struct event *ev)
{
    ev->n = 0;
    ag_sb_cursor_begin(c);
    while (ev->n < MAXCALLS && ag_sb_cursor_next(c, &ev->call[ev->n])) {
        struct ag_call *k = &ev->call[ev->n];
        if (k->text) {
            CHECK(k->text_len < sizeof ev->text[0]);
            snprintf(ev->text[ev->n], sizeof ev->text[0], "%.*s", (int)k->text_len, k->text);
            k->text = ev->text[ev->n];
        }
        for (uint32_t p = 0; p < k->nparams && p < 4; p++)
            if (k->stmt >= 0 && k->slen[p]) {
                memcpy(ev->sval[ev->n][p], k->sval[p], k->slen[p]);
                k->sval[p] = ev->sval[ev->n][p];
            }
        ev->n++;
    }
}

/* sysbench's classification assuming rows exist: SELECT read, DML write. */
static char klass(const char *sql)
{
    while (*sql == ' ')
        sql++;
    if (strncmp(sql, "SELECT", 6) == 0)
        return 'r';
    if (!strncmp(sql, "UPDATE", 6) || !strncmp(sql, "DELETE", 6) || !strncmp(sql, "INSERT", 6))
        return 'w';
    return 'o';
}

/* c / pad value shape: groups of 11 digits separated by '-'. */
static bool digit_groups(const char *s, size_t len, size_t groups)
{
    if (len != groups * 12 - 1)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((i % 12 == 11) ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* The 20 Prepare lines of sysbench's run in the server's general log. */
static const char *const rw_ps_t2[] = {
    "BEGIN",
    "COMMIT",
    "SELECT c FROM sbtest1 WHERE id=?",
    "SELECT c FROM sbtest2 WHERE id=?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest2 WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest2 WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT c FROM sbtest2 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest2 WHERE id BETWEEN ? AND ? ORDER BY c",
    "UPDATE sbtest1 SET k=k+1 WHERE id=?",
    "UPDATE sbtest2 SET k=k+1 WHERE id=?",
    "UPDATE sbtest1 SET c=? WHERE id=?",
    "UPDATE sbtest2 SET c=? WHERE id=?",
    "DELETE FROM sbtest1 WHERE id=?",
    "DELETE FROM sbtest2 WHERE id=?",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
    "INSERT INTO sbtest2 (id, k, c, pad) VALUES (?, ?, ?, ?)",
};

static void test_rw_ps_set(void)
{
    const char *args[] = {"tables=2", NULL};
    ag_sb_workload *wl = wl_ok("oltp_read_write", args);

    CHECK(ag_sb_workload_uses_ps(wl));
    CHECK_EQ_U64(ag_sb_workload_nstmts(wl), 20);
    for (size_t i = 0; i < 20 && i < ag_sb_workload_nstmts(wl); i++) {
        const struct ag_stmt_def *d = ag_sb_workload_stmt(wl, i);
        CHECK_MSG(strcmp(d->sql, rw_ps_t2[i]) == 0, "%zu: '%s'", i, d->sql);
        CHECK(d->sql_len == strlen(rw_ps_t2[i]));
        uint32_t q = 0;
        for (const char *s = d->sql; *s; s++)
            q += *s == '?';
        CHECK(d->nparams == q);
    }
    const struct ag_stmt_def *ns = ag_sb_workload_stmt(wl, 14), *ins = ag_sb_workload_stmt(wl, 18);
    CHECK(ns->type[0] == AG_PARAM_STR && ns->type[1] == AG_PARAM_INT);
    CHECK(ins->type[0] == AG_PARAM_INT && ins->type[1] == AG_PARAM_INT);
    CHECK(ins->type[2] == AG_PARAM_STR && ins->type[3] == AG_PARAM_STR);
    CHECK(strcmp(ns->kind, "non_index_updates") == 0);
    ag_sb_workload_destroy(&wl);
    CHECK(wl == NULL);
}

/* Section 4.2: oltp_read_write's event, with tables=2 (ps mode). */
static void check_rw_event(const ag_sb_workload *wl, const struct event *ev)
{
    static const char *const kinds[20] = {
        "begin",         "point_selects",     "point_selects", "point_selects", "point_selects",
        "point_selects", "point_selects",     "point_selects", "point_selects", "point_selects",
        "point_selects", "simple_ranges",     "sum_ranges",    "order_ranges",  "distinct_ranges",
        "index_updates", "non_index_updates", "deletes",       "inserts",       "commit"};
    int r = 0, w = 0, o = 0;

    CHECK_EQ_U64(ev->n, 20);
    if (ev->n != 20)
        return;
    for (size_t i = 0; i < 20; i++) {
        const struct ag_call *k = &ev->call[i];
        CHECK(k->stmt >= 0 && k->text == NULL);
        CHECK_MSG(strcmp(k->kind, kinds[i]) == 0, "%zu: %s", i, k->kind);
        char kl = klass(sql_of(wl, k));
        r += kl == 'r', w += kl == 'w', o += kl == 'o';
    }
    CHECK(r == 14 && w == 4 && o == 2);
    CHECK(ev->call[0].stmt == 0 && ev->call[19].stmt == 1);
    for (size_t i = 2; i <= 10; i++) /* one table for the whole group */
        CHECK(ev->call[i].stmt == ev->call[1].stmt);
    for (size_t i = 1; i <= 14; i++) {
        const struct ag_call *k = &ev->call[i];
        CHECK(k->ival[0] >= 1 && k->ival[0] <= 10000);
        if (i >= 11)
            CHECK(k->ival[1] == k->ival[0] + 99);
    }
    const struct ag_call *nu = &ev->call[16], *del = &ev->call[17], *ins = &ev->call[18];
    CHECK(digit_groups(nu->sval[0], nu->slen[0], 10));
    CHECK(nu->ival[1] >= 1 && nu->ival[1] <= 10000);
    CHECK(ins->stmt == del->stmt + 2); /* same table: deletes x2, then inserts */
    CHECK(ins->ival[0] == del->ival[0]);
    CHECK(ins->ival[1] >= 1 && ins->ival[1] <= 10000);
    CHECK(digit_groups(ins->sval[2], ins->slen[2], 10));
    CHECK(digit_groups(ins->sval[3], ins->slen[3], 5));
}

static void test_rw_event(void)
{
    const char *args[] = {"tables=2", NULL};
    ag_sb_workload *wl = wl_ok("oltp_read_write", args);
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 1, 0, 1);
    static struct event ev;
    struct ag_call extra;
    bool tables_seen[2] = {false, false};

    for (int i = 0; i < 200; i++) {
        run_event(c, &ev);
        check_rw_event(wl, &ev);
        tables_seen[ev.call[1].stmt - 2] = true;
    }
    CHECK(tables_seen[0] && tables_seen[1]);
    CHECK(!ag_sb_cursor_next(c, &extra)); /* stays complete */
    CHECK(!ag_sb_cursor_finish(c, &extra));
    ag_sb_cursor_destroy(&c);
    CHECK(c == NULL);
    ag_sb_workload_destroy(&wl);
}

/* Our own rendering of a PS call as sysbench's emulated PS does. */
static void render_expected(const struct ag_stmt_def *d, const struct ag_call *k, char *out,
                            size_t cap)
{
    size_t len = 0;
    uint32_t p = 0;

    for (const char *sql = d->sql; *sql && len + 200 < cap; sql++) {
        if (*sql != '?') {
            out[len++] = *sql;
            continue;
        }
        if (d->type[p] == AG_PARAM_STR)
            len += (size_t)snprintf(out + len, cap - len, "'%.*s'", (int)k->slen[p], k->sval[p]);
        else
            len += (size_t)snprintf(out + len, cap - len, "%lld", (long long)k->ival[p]);
        p++;
    }
    out[len] = '\0';
}

/* --db-ps-mode=disable yields the same statements as text, with literals
 * substituted; same seed, same draws. */
static void test_ps_disable(void)
{
    const char *a_ps[] = {"tables=2", NULL};
    const char *a_tx[] = {"tables=2", "db-ps-mode=disable", NULL};
    ag_sb_workload *wp = wl_ok("oltp_read_write", a_ps), *wt = wl_ok("oltp_read_write", a_tx);
    ag_sb_cursor *cp = ag_sb_cursor_new(wp, 99, 0, 1), *ct = ag_sb_cursor_new(wt, 99, 0, 1);
    static struct event ep, et;
    static char want[1024];

    CHECK(!ag_sb_workload_uses_ps(wt));
    CHECK_EQ_U64(ag_sb_workload_nstmts(wt), 20);
    for (int e = 0; e < 50; e++) {
        run_event(cp, &ep);
        run_event(ct, &et);
        CHECK_EQ_U64(et.n, ep.n);
        for (size_t i = 0; i < et.n && i < ep.n; i++) {
            CHECK(et.call[i].stmt == -1 && et.call[i].text != NULL);
            render_expected(ag_sb_workload_stmt(wp, (size_t)ep.call[i].stmt), &ep.call[i], want,
                            sizeof want);
            CHECK_MSG(strcmp(et.text[i], want) == 0, "'%s' != '%s'", et.text[i], want);
            CHECK(et.call[i].text_len == strlen(want));
        }
    }
    /* The forms the general log shows for sysbench's statements. */
    long long id, hi, k;
    char c[128], pad[64];
    CHECK(strcmp(et.text[0], "BEGIN") == 0 && strcmp(et.text[19], "COMMIT") == 0);
    CHECK(sscanf(et.text[1], "SELECT c FROM sbtest%*u WHERE id=%lld", &id) == 1);
    CHECK(sscanf(et.text[12], "SELECT SUM(k) FROM sbtest%*u WHERE id BETWEEN %lld AND %lld", &id,
                 &hi) == 2 &&
          hi == id + 99);
    CHECK(sscanf(et.text[16], "UPDATE sbtest%*u SET c='%119[0-9-]' WHERE id=%lld", c, &id) == 2);
    CHECK(
        sscanf(
            et.text[18],
            "INSERT INTO sbtest%*u (id, k, c, pad) VALUES (%lld, %lld, '%119[0-9-]', '%59[0-9-]')",
            &id, &k, c, pad) == 4);
    CHECK(strlen(c) == 119 && strlen(pad) == 59);
    ag_sb_cursor_destroy(&cp);
    ag_sb_cursor_destroy(&ct);
    ag_sb_workload_destroy(&wp);
    ag_sb_workload_destroy(&wt);
}

/* Section 4.2's PS-set sizes and orders, for tables=3. */
static void test_ps_sets(void)
{
    static const struct {
        const char *wl;
        const char *opt;
        size_t n;
        const char *first, *last;
    } cases[] = {
        {"oltp_read_write", NULL, 29, "BEGIN",
         "INSERT INTO sbtest3 (id, k, c, pad) VALUES (?, ?, ?, ?)"},
        {"oltp_read_write", "skip_trx=on", 27, "SELECT c FROM sbtest1 WHERE id=?", NULL},
        {"oltp_read_write", "range_selects=off", 17, "BEGIN", NULL},
        {"oltp_read_only", NULL, 17, "SELECT c FROM sbtest1 WHERE id=?",
         "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c"},
        {"oltp_read_only", "range_selects=off", 5, "SELECT c FROM sbtest1 WHERE id=?", "COMMIT"},
        {"oltp_write_only", NULL, 14, "BEGIN", NULL},
        {"oltp_point_select", NULL, 3, "SELECT c FROM sbtest1 WHERE id=?", NULL},
        {"oltp_update_index", NULL, 3, "UPDATE sbtest1 SET k=k+1 WHERE id=?", NULL},
        {"oltp_update_non_index", NULL, 3, "UPDATE sbtest1 SET c=? WHERE id=?", NULL},
        {"oltp_delete", NULL, 3, "DELETE FROM sbtest1 WHERE id=?", NULL},
        {"oltp_insert", NULL, 0, NULL, NULL},
        {"bulk_insert", NULL, 0, NULL, NULL},
        {"select_random_points", NULL, 1, NULL, NULL},
        {"select_random_ranges", NULL, 1, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"tables=3", cases[i].opt, NULL};
        bool bulk = strcmp(cases[i].wl, "bulk_insert") == 0; /* declares no tables */
        ag_sb_workload *wl = wl_ok(cases[i].wl, bulk ? NULL : args);
        size_t n = ag_sb_workload_nstmts(wl);

        CHECK_MSG(n == cases[i].n, "%s %s: %zu", cases[i].wl, cases[i].opt ? cases[i].opt : "", n);
        CHECK(ag_sb_workload_uses_ps(wl) == (cases[i].n > 0));
        if (n && cases[i].first)
            CHECK_MSG(strcmp(ag_sb_workload_stmt(wl, 0)->sql, cases[i].first) == 0, "%s",
                      cases[i].wl);
        if (n && cases[i].last)
            CHECK_MSG(strcmp(ag_sb_workload_stmt(wl, n - 1)->sql, cases[i].last) == 0, "%s",
                      cases[i].wl);
        if (n == 5) /* read_only, no ranges: point x3, BEGIN, COMMIT */
            CHECK(strcmp(ag_sb_workload_stmt(wl, 3)->sql, "BEGIN") == 0);
        ag_sb_workload_destroy(&wl);
    }
}

/* Statement kinds per event for each script (sysbench's). */
static void test_sequences(void)
{
    static const struct {
        const char *wl;
        const char *opt;
        const char *seq; /* one letter per statement */
        int r, w, o;
    } cases[] = {
        /* B begin, C commit, p point, s/S/O/D ranges, i index, n nonindex, d delete, I insert */
        {"oltp_read_write", NULL, "BppppppppppsSODindIC", 14, 4, 2},
        {"oltp_read_write", "skip_trx=on", "ppppppppppsSODindI", 14, 4, 0},
        {"oltp_read_write", "range_selects=off", "BppppppppppindIC", 10, 4, 2},
        {"oltp_read_write", "delete_inserts=2", "BppppppppppsSODindIdIC", 14, 6, 2},
        {"oltp_read_write", "point_selects=0", "BsSODindIC", 4, 4, 2},
        {"oltp_read_only", NULL, "BppppppppppsSODC", 14, 0, 2},
        {"oltp_write_only", NULL, "BindIC", 0, 4, 2},
        {"oltp_point_select", NULL, "p", 1, 0, 0},
        {"oltp_point_select", "point_selects=5", "p", 1, 0, 0},
        {"oltp_update_index", NULL, "i", 0, 1, 0},
        {"oltp_update_index", "index_updates=3", "iii", 0, 3, 0},
        {"oltp_update_non_index", NULL, "n", 0, 1, 0},
        {"oltp_delete", NULL, "d", 0, 1, 0},
        {"oltp_delete", "delete_inserts=3", "d", 0, 1, 0},
    };
    static const char *const names[] = {"begin",           "commit",        "point_selects",
                                        "simple_ranges",   "sum_ranges",    "order_ranges",
                                        "distinct_ranges", "index_updates", "non_index_updates",
                                        "deletes",         "inserts"};
    static const char letters[] = "BCpsSODindI";
    static struct event ev;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"tables=4", cases[i].opt, NULL};
        ag_sb_workload *wl = wl_ok(cases[i].wl, args);
        ag_sb_cursor *c = ag_sb_cursor_new(wl, i, 0, 1);
        char seq[MAXCALLS + 1] = "";
        int r = 0, w = 0, o = 0;

        run_event(c, &ev);
        for (size_t j = 0; j < ev.n; j++) {
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                if (strcmp(ev.call[j].kind, names[k]) == 0)
                    seq[j] = letters[k];
            char kl = klass(sql_of(wl, &ev.call[j]));
            r += kl == 'r', w += kl == 'w', o += kl == 'o';
        }
        seq[ev.n] = '\0';
        CHECK_MSG(strcmp(seq, cases[i].seq) == 0, "%s %s: %s", cases[i].wl,
                  cases[i].opt ? cases[i].opt : "", seq);
        CHECK(r == cases[i].r && w == cases[i].w && o == cases[i].o);
        ag_sb_cursor_destroy(&c);
        ag_sb_workload_destroy(&wl);
    }
}

/* oltp_insert: text protocol always; id 0 with auto_inc, else unique ids
 * (rand.unique() - 2^31) never repeating across the run's connections. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_insert(void)
{
    const char *on[] = {"tables=2", NULL};
    const char *off[] = {"tables=2", "auto_inc=off", "rand-seed=5", NULL};
    ag_sb_workload *wl = wl_ok("oltp_insert", on);
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 3, 0, 1);
    static struct event ev;
    long long id, k;
    char cs[128], pad[64];
    unsigned t;

    run_event(c, &ev);
    CHECK_EQ_U64(ev.n, 1);
    CHECK(ev.call[0].stmt == -1);
    CHECK(sscanf(ev.text[0],
                 "INSERT INTO sbtest%u (id, k, c, pad) VALUES (%lld, %lld, '%119[0-9-]', "
                 "'%59[0-9-]')",
                 &t, &id, &k, cs, pad) == 5);
    CHECK(id == 0 && t >= 1 && t <= 2 && k >= 1 && k <= 10000);
    CHECK(strlen(cs) == 119 && strlen(pad) == 59);
    CHECK(ev.text[0][strlen(ev.text[0]) - 1] == ')');
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);

    wl = wl_ok("oltp_insert", off);
    const size_t per = 20000;
    int64_t *ids = malloc(2 * per * sizeof *ids);
    for (uint32_t conn = 0; conn < 2; conn++) {
        c = ag_sb_cursor_new(wl, 100 + conn, conn, 2);
        for (size_t i = 0; i < per; i++) {
            run_event(c, &ev);
            CHECK(sscanf(ev.text[0], "INSERT INTO sbtest%u (id, k, c, pad) VALUES (%lld,", &t,
                         &id) == 2);
            CHECK(id >= INT32_MIN && id <= INT32_MAX);
            ids[conn * per + i] = id;
        }
        ag_sb_cursor_destroy(&c);
    }
    qsort(ids, 2 * per, sizeof *ids, cmp_i64);
    size_t dups = 0;
    for (size_t i = 1; i < 2 * per; i++)
        dups += ids[i] == ids[i - 1];
    CHECK_EQ_U64(dups, 0);
    free(ids);
    ag_sb_workload_destroy(&wl);
}

/* select_random_*: Lua long-string texts, per-connection k segments. */
static void test_select_random(void)
{
    const char *pa[] = {"random_points=3", NULL};
    const char *ra[] = {"number_of_ranges=2", "delta=7", "rand-type=uniform", NULL};
    ag_sb_workload *wp = wl_ok("select_random_points", pa), *wr = wl_ok("select_random_ranges", ra);
    static struct event ev;

    CHECK(strcmp(ag_sb_workload_stmt(wp, 0)->sql, "        SELECT id, k, c, pad\n"
                                                  "          FROM sbtest1\n"
                                                  "          WHERE k IN (?, ?, ?)\n"
                                                  "        ") == 0);
    CHECK(strcmp(ag_sb_workload_stmt(wr, 0)->sql,
                 "        SELECT count(k)\n"
                 "          FROM sbtest1\n"
                 "          WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?") == 0);
    CHECK(ag_sb_workload_stmt(wp, 0)->nparams == 3 && ag_sb_workload_stmt(wr, 0)->nparams == 4);

    /* connection 1 of 4, table_size 10000: segment [2500, 5000] */
    ag_sb_cursor *c = ag_sb_cursor_new(wp, 1, 1, 4);
    for (int e = 0; e < 1000; e++) {
        run_event(c, &ev);
        CHECK(ev.n == 1 && ev.call[0].stmt == 0 && ev.call[0].nparams == 3);
        for (int p = 0; p < 3; p++)
            CHECK(ev.call[0].ival[p] >= 2500 && ev.call[0].ival[p] <= 5000);
    }
    ag_sb_cursor_destroy(&c);
    c = ag_sb_cursor_new(wr, 1, 3, 4); /* [7500, 10000] */
    int64_t lo = INT64_MAX, hi = 0;
    for (int e = 0; e < 5000; e++) {
        run_event(c, &ev);
        for (int p = 0; p < 4; p += 2) {
            CHECK(ev.call[0].ival[p + 1] == ev.call[0].ival[p] + 7);
            lo = ev.call[0].ival[p] < lo ? ev.call[0].ival[p] : lo;
            hi = ev.call[0].ival[p] > hi ? ev.call[0].ival[p] : hi;
        }
    }
    CHECK(lo >= 7500 && lo < 7510 && hi <= 10000 && hi > 9990);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wp);
    ag_sb_workload_destroy(&wr);

    const char *dis[] = {"random_points=2", "db-ps-mode=disable", NULL};
    wp = wl_ok("select_random_points", dis);
    c = ag_sb_cursor_new(wp, 1, 0, 1);
    run_event(c, &ev);
    long long x, y;
    CHECK(sscanf(ev.text[0],
                 "        SELECT id, k, c, pad\n          FROM sbtest1\n          WHERE k IN "
                 "(%lld, %lld)",
                 &x, &y) == 2);
    CHECK(strcmp(ev.text[0] + strlen(ev.text[0]) - 10, ")\n        ") == 0);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wp);
}

/* bulk_insert: rows (n,n) into sbtest<conn+1>, flushed at 512 KiB exactly as
 * db_bulk_insert_next, the rest by ag_sb_cursor_finish. */
static void test_bulk(void)
{
    ag_sb_workload *wl = wl_ok("bulk_insert", NULL);
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 1, 2, 4);
    static char flushed[524288];
    struct ag_call call;
    size_t flen = 0;
    uint64_t ev = 0, nflush = 0;

    while (nflush < 2) {
        ag_sb_cursor_begin(c);
        ev++;
        if (ag_sb_cursor_next(c, &call)) {
            CHECK(call.stmt == -1 && call.text_len < 524288);
            /* the row of this event ("(ev,ev)") did not fit */
            char row[48];
            int rl = snprintf(row, sizeof row, "(%llu,%llu)", (unsigned long long)ev,
                              (unsigned long long)ev);
            CHECK(call.text_len + (size_t)rl + 2 > 524288);
            if (nflush == 0) {
                memcpy(flushed, call.text, call.text_len);
                flen = call.text_len;
            }
            nflush++;
            if (nflush == 2) { /* restart after a failed flush: the same flush again */
                size_t len = call.text_len;
                ag_sb_cursor_begin(c);
                CHECK(ag_sb_cursor_next(c, &call) && call.text_len == len);
            }
            CHECK(!ag_sb_cursor_next(c, &call));
        }
    }
    /* first statement: prefix then (1,1),(2,2),... consecutive */
    const char *pre = "INSERT INTO sbtest3 VALUES(1,1),(2,2),(3,3)";
    CHECK(flen > strlen(pre) && memcmp(flushed, pre, strlen(pre)) == 0);
    uint64_t n = 0, expect = 1;
    const char *s = flushed + strlen("INSERT INTO sbtest3 VALUES");
    bool consecutive = true;
    while (s < flushed + flen) {
        unsigned long long a, b;
        int used = 0;
        if (sscanf(s, "(%llu,%llu)%n", &a, &b, &used) != 2 || a != expect || b != expect) {
            consecutive = false;
            break;
        }
        n++, expect++;
        s += used;
        s += s < flushed + flen && *s == ',';
    }
    CHECK(consecutive && s == flushed + flen);
    printf("bulk_insert: first flush %zu bytes, %" PRIu64 " rows\n", flen, n);
    CHECK(ag_sb_cursor_finish(c, &call));
    CHECK(call.text_len > 26 && call.text[call.text_len - 1] == ')');
    char last[64]; /* the flushing event's own row, numbered without a gap */
    int ll = snprintf(last, sizeof last, "INSERT INTO sbtest3 VALUES(%llu,%llu)",
                      (unsigned long long)ev, (unsigned long long)ev);
    CHECK(call.text_len == (size_t)ll && memcmp(call.text, last, (size_t)ll) == 0);
    CHECK(!ag_sb_cursor_finish(c, &call));
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);
}

static void test_errors(void)
{
    struct pr_error err = {0};
    const char *bad1[] = {"foo_bar=1", NULL};
    const char *bad2[] = {"table-size=abc", NULL};
    const char *bad3[] = {"tables=0", NULL};
    const char *bad4[] = {"rand-type=zipf", NULL};
    const char *bad5[] = {"random_points=3", NULL}; /* not an oltp_read_write option */
    const char *bad_bulk[] = {"foo_bar=1", NULL};

    CHECK(wl_new("oltp_nope", NULL, &err) == NULL && err.code == PR_EINVAL);
    CHECK(strstr(err.msg, "oltp_nope") != NULL);
    CHECK(wl_new("oltp_read_write", bad1, &err) == NULL && strstr(err.msg, "foo_bar"));
    CHECK(wl_new("oltp_read_write", bad2, &err) == NULL && strstr(err.msg, "table_size"));
    CHECK(wl_new("oltp_read_write", bad3, &err) == NULL && strstr(err.msg, "tables"));
    CHECK(wl_new("oltp_read_write", bad4, &err) == NULL && strstr(err.msg, "rand-type"));
    CHECK(wl_new("oltp_read_write", bad5, &err) == NULL && strstr(err.msg, "random_points"));
    /* No legacy mode: a PLAN with an unknown option is refused by the agent. */
    CHECK(wl_new("bulk_insert", bad_bulk, &err) == NULL && strstr(err.msg, "foo_bar"));
    ag_sb_workload *wl = wl_new("oltp_read_write.lua", NULL, &err);
    CHECK(wl != NULL && strcmp(ag_sb_workload_name(wl), "oltp_read_write") == 0);
    CHECK(pr_opts_int(ag_sb_workload_opts(wl), "table_size") == 10000);
    ag_sb_workload_destroy(&wl);
}

/* No allocation per event or statement (counted through --wrap). */
static void test_no_alloc(void)
{
    static const struct {
        const char *wl;
        const char *opt;
    } cases[] = {
        {"oltp_read_write", NULL},
        {"oltp_read_write", "db-ps-mode=disable"},
        {"oltp_insert", "auto_inc=off"},
        {"bulk_insert", NULL},
        {"select_random_ranges", "db-ps-mode=disable"},
    };
    struct ag_call call;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"tables=8", cases[i].opt, NULL};
        bool bulk = strcmp(cases[i].wl, "bulk_insert") == 0; /* declares no tables */
        ag_sb_workload *wl = wl_ok(cases[i].wl, bulk ? NULL : args);
        ag_sb_cursor *c = ag_sb_cursor_new(wl, 7, 0, 1);
        uint64_t before = nallocs, stmts = 0;

        for (int e = 0; e < 100000; e++) {
            ag_sb_cursor_begin(c);
            while (ag_sb_cursor_next(c, &call))
                stmts++;
        }
        while (ag_sb_cursor_finish(c, &call))
            stmts++;
        CHECK_MSG(nallocs == before, "%s: %" PRIu64 " allocations", cases[i].wl, nallocs - before);
        CHECK(stmts > 0);
        ag_sb_cursor_destroy(&c);
        ag_sb_workload_destroy(&wl);
    }
    CHECK(nallocs > 0); /* the counter does see the library's allocations */
}

/* Restart after an ignorable error: the event starts over at BEGIN with
 * new draws; same seed gives the same stream, another seed differs. */
static void test_restart_determinism(void)
{
    const char *args[] = {"tables=4", "db-ps-mode=disable", NULL};
    ag_sb_workload *wl = wl_ok("oltp_read_write", args);
    ag_sb_cursor *a = ag_sb_cursor_new(wl, 77, 0, 1), *b = ag_sb_cursor_new(wl, 77, 0, 1);
    ag_sb_cursor *d = ag_sb_cursor_new(wl, 78, 0, 1);
    static struct event ea, eb, ed;
    struct ag_call call;
    bool differ = false;

    for (int e = 0; e < 20; e++) {
        run_event(a, &ea);
        run_event(b, &eb);
        run_event(d, &ed);
        for (size_t i = 0; i < ea.n; i++) {
            CHECK(strcmp(ea.text[i], eb.text[i]) == 0);
            differ = differ || strcmp(ea.text[i], ed.text[i]) != 0;
        }
    }
    CHECK(differ);
    ag_sb_cursor_begin(a);
    CHECK(ag_sb_cursor_next(a, &call) && strcmp(call.kind, "begin") == 0);
    CHECK(ag_sb_cursor_next(a, &call) && strcmp(call.kind, "point_selects") == 0);
    char first[128];
    snprintf(first, sizeof first, "%.*s", (int)call.text_len, call.text);
    ag_sb_cursor_begin(a); /* restart mid-event */
    CHECK(ag_sb_cursor_next(a, &call) && strcmp(call.kind, "begin") == 0);
    size_t n = 1;
    while (ag_sb_cursor_next(a, &call))
        n++;
    CHECK_EQ_U64(n, 20);
    ag_sb_cursor_destroy(&a);
    ag_sb_cursor_destroy(&b);
    ag_sb_cursor_destroy(&d);
    ag_sb_workload_destroy(&wl);
}

/* Golden output of the real sysbench 1.0.20 (Debian 1.0.20+ds-5) against
 * MariaDB 10.11 with the general log on, one event each:
 *   sysbench <script> --db-ps-mode=disable --rand-seed=1 --percentile=0
 *            --events=1 --time=0 [--tables=2] --table-size=1000 ... run
 * Our cursor gets the xoroshiro state sysbench derives from srandom(1). The
 * general log trims leading/trailing blanks of select_random_* texts. */
static const char *const golden_rw[] = {
    "BEGIN",
    "SELECT c FROM sbtest2 WHERE id=499",
    "SELECT c FROM sbtest2 WHERE id=505",
    "SELECT c FROM sbtest2 WHERE id=502",
    "SELECT c FROM sbtest2 WHERE id=504",
    "SELECT c FROM sbtest2 WHERE id=502",
    "SELECT c FROM sbtest2 WHERE id=500",
    "SELECT c FROM sbtest2 WHERE id=595",
    "SELECT c FROM sbtest2 WHERE id=498",
    "SELECT c FROM sbtest2 WHERE id=503",
    "SELECT c FROM sbtest2 WHERE id=502",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 503 AND 602",
    "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 503 AND 602",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 498 AND 597 ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 500 AND 599 ORDER BY c",
    "UPDATE sbtest2 SET k=k+1 WHERE id=502",
    "UPDATE sbtest2 SET c='51626599062-75635264942-03818874044-15764222419-34267939645-"
    "64050651023-35184323306-78479673774-80009633226-26047853019' WHERE id=648",
    "DELETE FROM sbtest1 WHERE id=502",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (502, 501, '20291438014-27612825250-"
    "24565262722-56180127818-67812424890-21827018312-42469292565-57060036243-74548621199-"
    "86247638576', '01463023183-25141136241-54123631706-42131492007-07997160663')",
    "COMMIT",
};

/* The cursor of workload `name` with sysbench's state for srandom(seed). */
static ag_sb_cursor *sysbench_cursor(const ag_sb_workload *wl, unsigned seed)
{
    ag_sb_cursor *c = ag_sb_cursor_new(wl, 0, 0, 1);

    srandom(seed);
    uint64_t a = (uint64_t)random(), b = (uint64_t)random();
    uint64_t x = (uint64_t)random(), y = (uint64_t)random();
    ag_sb_cursor_set_rng(c, (a << 32) | (b & UINT32_MAX), (x << 32) | (y & UINT32_MAX));
    return c;
}

static void test_golden_vs_sysbench(void)
{
    const char *rw[] = {"tables=2", "table_size=1000", "db-ps-mode=disable", NULL};
    const char *ins[] = {"tables=2", "table_size=1000", NULL};
    const char *rr[] = {"table_size=1000", "number_of_ranges=3", "db-ps-mode=disable", NULL};
    static struct event ev;

    ag_sb_workload *wl = wl_ok("oltp_read_write", rw);
    ag_sb_cursor *c = sysbench_cursor(wl, 1);
    run_event(c, &ev);
    CHECK_EQ_U64(ev.n, 20);
    for (size_t i = 0; i < ev.n && i < 20; i++)
        CHECK_MSG(strcmp(ev.text[i], golden_rw[i]) == 0, "%zu: %s", i, ev.text[i]);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);

    /* sysbench ran with --auto_inc=off (id -1784940800 from its unseeded
     * unique()); with auto_inc on the id is 0 and every draw is the same. */
    wl = wl_ok("oltp_insert", ins);
    c = sysbench_cursor(wl, 1);
    run_event(c, &ev);
    CHECK(ev.n == 1 &&
          strcmp(ev.text[0],
                 "INSERT INTO sbtest2 (id, k, c, pad) VALUES (0, 499, '86864191228-77397283760-"
                 "73612048675-16265990627-56352649420-38188740441-57642224193-42679396456-"
                 "40506510233-51843233067', '84796737748-00096332262-60478530191-41549189896-"
                 "92652029143')") == 0);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);

    wl = wl_ok("select_random_ranges", rr);
    c = sysbench_cursor(wl, 1);
    run_event(c, &ev);
    CHECK(ev.n == 1 && strcmp(ev.text[0], "        SELECT count(k)\n          FROM sbtest1\n"
                                          "          WHERE k BETWEEN 503 AND 508 OR k BETWEEN "
                                          "499 AND 504 OR k BETWEEN 504 AND 509") == 0);
    ag_sb_cursor_destroy(&c);
    ag_sb_workload_destroy(&wl);
}

int main(void)
{
    test_golden_vs_sysbench();
    test_rw_ps_set();
    test_rw_event();
    test_ps_disable();
    test_ps_sets();
    test_sequences();
    test_insert();
    test_select_random();
    test_bulk();
    test_errors();
    test_no_alloc();
    test_restart_determinism();
    return TEST_END();
}
