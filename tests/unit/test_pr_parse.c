/* Tests for pr_parse: option names, booleans and comma lists, the rules
 * every option reader of both programs goes through. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pr_parse.h"
#include "testlib.h"

static void test_name_eq(void)
{
    CHECK(pr_name_eq("table-size", 10, "table_size"));
    CHECK(pr_name_eq("table_size", 10, "table-size"));
    CHECK(pr_name_eq("table_size=5", 10, "table_size"));
    CHECK(!pr_name_eq("table_siz", 9, "table_size"));
    CHECK(!pr_name_eq("table_sizes", 11, "table_size"));
    CHECK(!pr_name_eq("Table_size", 10, "table_size"));
    CHECK(!pr_name_eq("tablesize", 9, "table_size"));
    CHECK(pr_name_eq("", 0, ""));
    CHECK(!pr_name_eq("", 0, "x"));
}

static void test_bool(void)
{
    /* One set everywhere (issue 27 §4: --histogram=yes was an error while
     * --allow-scripts=yes worked). */
    static const char *const on[] = {"on", "ON", "On", "yes", "YES", "true", "TRUE", "True", "1"};
    static const char *const off[] = {"off", "OFF", "no", "No", "false", "False", "0"};
    static const char *const bad[] = {"", "2", "yes!", "onn", "of", "truee", " on", "on ", "-1"};

    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        bool b = false;
        CHECK_MSG(pr_parse_bool(on[i], &b) && b, "%s", on[i]);
    }
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        bool b = true;
        CHECK_MSG(pr_parse_bool(off[i], &b) && !b, "%s", off[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool b = true;
        CHECK_MSG(!pr_parse_bool(bad[i], &b) && b, "'%s' accepted", bad[i]);
    }
    bool b = false;
    CHECK(!pr_parse_bool(NULL, &b) && !b);
}

/* Items of text joined with '|' after walking it. */
static void walk(const char *text, char *out, size_t cap, size_t *n)
{
    struct pr_list_iter it;
    const char *item;
    size_t len, off = 0;

    *n = 0;
    out[0] = '\0';
    pr_list_iter_init(&it, text);
    while (pr_list_iter_next(&it, &item, &len)) {
        off += (size_t)snprintf(out + off, cap - off, "%s%.*s", *n ? "|" : "", (int)len, item);
        (*n)++;
    }
}

static void test_list(void)
{
    char buf[128];
    size_t n;

    walk("a,bb,ccc", buf, sizeof buf, &n);
    CHECK(n == 3 && strcmp(buf, "a|bb|ccc") == 0);
    walk("one", buf, sizeof buf, &n);
    CHECK(n == 1 && strcmp(buf, "one") == 0);
    walk("", buf, sizeof buf, &n);
    CHECK(n == 0);
    walk(NULL, buf, sizeof buf, &n);
    CHECK(n == 0);
    walk("a,,b", buf, sizeof buf, &n);
    CHECK_MSG(n == 3 && strcmp(buf, "a||b") == 0, "%zu '%s'", n, buf);
    walk("a,", buf, sizeof buf, &n);
    CHECK_MSG(n == 2 && strcmp(buf, "a|") == 0, "%zu '%s'", n, buf);
    walk(",", buf, sizeof buf, &n);
    CHECK_MSG(n == 2 && strcmp(buf, "|") == 0, "%zu '%s'", n, buf);

    char **v = pr_list_split("10.0.0.1,db2,,x", &n);
    CHECK(n == 4 && v != NULL);
    CHECK(v && strcmp(v[0], "10.0.0.1") == 0 && strcmp(v[1], "db2") == 0);
    CHECK(v && strcmp(v[2], "") == 0 && strcmp(v[3], "x") == 0 && v[4] == NULL);
    pr_list_free(v);
    n = 7;
    CHECK(pr_list_split("", &n) == NULL && n == 0);
    pr_list_free(NULL);
}

/* Identifiers from options, quoted for MySQL (issue 27 §4: --mysql-db
 * went into USE `%s` as it was, with multi-statements on). */
static void test_sql_ident(void)
{
    char out[32];
    CHECK(pr_sql_ident(out, sizeof out, "tpcc_1") == 8 && strcmp(out, "`tpcc_1`") == 0);
    CHECK(pr_sql_ident(out, sizeof out, "a`b") == 6 && strcmp(out, "`a``b`") == 0);
    CHECK(pr_sql_ident(out, sizeof out, "x`; DROP DATABASE y; -- ") > 0);
    CHECK_MSG(strcmp(out, "`x``; DROP DATABASE y; -- `") == 0, "%s", out);
    CHECK(pr_sql_ident(out, sizeof out, "") == 2 && strcmp(out, "``") == 0);
    CHECK(pr_sql_ident(out, 8, "abcdef") == 0 && out[0] == '\0'); /* 8 bytes + NUL */
    CHECK(pr_sql_ident(out, 9, "abcdef") == 8);
    CHECK(pr_sql_ident(out, 9, "abcde`") == 0 && out[0] == '\0'); /* doubled: 9 + NUL */
}

int main(void)
{
    test_sql_ident();
    test_name_eq();
    test_bool();
    test_list();
    return TEST_END();
}
