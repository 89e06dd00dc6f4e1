/* ag_tc_schema: tpcc-mysql's schema. See ag_tc_schema.h.
 *
 * The column lists follow tpcc-mysql's exactly (docs/design.md §13.2): the loader's
 * INSERTs are positional, so the order is part of the contract. */
#include "ag_tc_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_err.h"

struct table_def {
    const char *name;
    unsigned ncols;
    const char *create;
};

static const struct table_def tables[AG_TC_TABLE_COUNT_] = {
    {"warehouse", 9,
     "CREATE TABLE warehouse (w_id SMALLINT NOT NULL, w_name VARCHAR(10), "
     "w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), "
     "w_zip CHAR(9), w_tax DECIMAL(4,2), w_ytd DECIMAL(12,2), "
     "PRIMARY KEY (w_id)) ENGINE=InnoDB"},
    {"district", 11,
     "CREATE TABLE district (d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, "
     "d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), "
     "d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,2), d_ytd DECIMAL(12,2), "
     "d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)) ENGINE=InnoDB"},
    {"customer", 21,
     "CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL, "
     "c_w_id SMALLINT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), "
     "c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), "
     "c_zip CHAR(9), c_phone CHAR(16), c_since DATETIME, c_credit CHAR(2), "
     "c_credit_lim BIGINT, c_discount DECIMAL(4,2), c_balance DECIMAL(12,2), "
     "c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT, c_delivery_cnt SMALLINT, "
     "c_data TEXT, PRIMARY KEY (c_w_id, c_d_id, c_id)) ENGINE=InnoDB"},
    {"history", 8,
     "CREATE TABLE history (h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT, "
     "h_w_id SMALLINT, h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24)) "
     "ENGINE=InnoDB"},
    {"new_orders", 3,
     "CREATE TABLE new_orders (no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, "
     "no_w_id SMALLINT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id)) ENGINE=InnoDB"},
    {"orders", 8,
     "CREATE TABLE orders (o_id INT NOT NULL, o_d_id TINYINT NOT NULL, "
     "o_w_id SMALLINT NOT NULL, o_c_id INT, o_entry_d DATETIME, o_carrier_id TINYINT, "
     "o_ol_cnt TINYINT, o_all_local TINYINT, PRIMARY KEY (o_w_id, o_d_id, o_id)) "
     "ENGINE=InnoDB"},
    {"order_line", 10,
     "CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, "
     "ol_w_id SMALLINT NOT NULL, ol_number TINYINT NOT NULL, ol_i_id INT, "
     "ol_supply_w_id SMALLINT, ol_delivery_d DATETIME, ol_quantity TINYINT, "
     "ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), "
     "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)) ENGINE=InnoDB"},
    {"item", 5,
     "CREATE TABLE item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), "
     "i_price DECIMAL(5,2), i_data VARCHAR(50), PRIMARY KEY (i_id)) ENGINE=InnoDB"},
    {"stock", 17,
     "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, "
     "s_quantity SMALLINT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), "
     "s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), "
     "s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0), "
     "s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50), "
     "PRIMARY KEY (s_w_id, s_i_id)) ENGINE=InnoDB"},
};

/* add_fkey_idx.sql's effect: the indexes first, then the constraints. */
static const char *const index_sql[] = {
    "CREATE INDEX idx_customer ON customer (c_w_id, c_d_id, c_last, c_first)",
    "CREATE INDEX idx_orders ON orders (o_w_id, o_d_id, o_c_id, o_id)",
    "CREATE INDEX fkey_stock_2 ON stock (s_i_id)",
    "CREATE INDEX fkey_order_line_2 ON order_line (ol_supply_w_id, ol_i_id)",
    "ALTER TABLE district ADD CONSTRAINT fkey_district_1 FOREIGN KEY (d_w_id) "
    "REFERENCES warehouse (w_id)",
    "ALTER TABLE customer ADD CONSTRAINT fkey_customer_1 FOREIGN KEY (c_w_id, c_d_id) "
    "REFERENCES district (d_w_id, d_id)",
    "ALTER TABLE history ADD CONSTRAINT fkey_history_1 FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) "
    "REFERENCES customer (c_w_id, c_d_id, c_id)",
    "ALTER TABLE history ADD CONSTRAINT fkey_history_2 FOREIGN KEY (h_w_id, h_d_id) "
    "REFERENCES district (d_w_id, d_id)",
    "ALTER TABLE new_orders ADD CONSTRAINT fkey_new_orders_1 FOREIGN KEY "
    "(no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
    "ALTER TABLE orders ADD CONSTRAINT fkey_orders_1 FOREIGN KEY (o_w_id, o_d_id, o_c_id) "
    "REFERENCES customer (c_w_id, c_d_id, c_id)",
    "ALTER TABLE order_line ADD CONSTRAINT fkey_order_line_1 FOREIGN KEY "
    "(ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
    "ALTER TABLE order_line ADD CONSTRAINT fkey_order_line_2 FOREIGN KEY "
    "(ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id)",
    "ALTER TABLE stock ADD CONSTRAINT fkey_stock_1 FOREIGN KEY (s_w_id) "
    "REFERENCES warehouse (w_id)",
    "ALTER TABLE stock ADD CONSTRAINT fkey_stock_2 FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
};

#define N_FKEYS 10

static const char fkey_count_sql[] =
    "SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS "
    "WHERE CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_NAME IN ('fkey_district_1', "
    "'fkey_customer_1', 'fkey_history_1', 'fkey_history_2', 'fkey_new_orders_1', "
    "'fkey_orders_1', 'fkey_order_line_1', 'fkey_order_line_2', 'fkey_stock_1', "
    "'fkey_stock_2')";

static const char session_sql[] = "SET FOREIGN_KEY_CHECKS=0, UNIQUE_CHECKS=0";

enum script_check {
    SCRIPT_CHECK_NONE,
    SCRIPT_CHECK_FKEYS, /* the last statement counts the foreign keys */
};

struct ag_tc_script {
    char **sql;              /* the statements, owned */
    size_t n;                /* their count */
    size_t pos;              /* statements handed out */
    enum script_check check; /* what result() verifies */
    char msg[256];           /* a failure */
};

const char *ag_tc_table_name(enum ag_tc_table t)
{
    return (unsigned)t < AG_TC_TABLE_COUNT_ ? tables[t].name : "?";
}

unsigned ag_tc_table_ncols(enum ag_tc_table t)
{
    return (unsigned)t < AG_TC_TABLE_COUNT_ ? tables[t].ncols : 0;
}

size_t ag_tc_schema_probe_sql(unsigned mask, bool columns, char *buf, size_t cap)
{
    size_t len = 0;
    int n = snprintf(buf, cap, "%s",
                     columns ? "SELECT t.n, t.c, COUNT(c.COLUMN_NAME) FROM ("
                             : "SELECT t.n, t.c, 0 FROM (");
    bool first = true;

    if (n < 0 || (size_t)n >= cap)
        return 0;
    len = (size_t)n;
    for (unsigned i = 0; i < AG_TC_TABLE_COUNT_; i++) {
        if (!(mask & (1u << i)))
            continue;
        n = snprintf(buf + len, cap - len, "%sSELECT %u AS o, '%s' AS n, %u AS c",
                     first ? "" : " UNION ALL ", i, tables[i].name, tables[i].ncols);
        if (n < 0 || (size_t)n >= cap - len)
            return 0;
        len += (size_t)n;
        first = false;
    }
    if (first)
        return 0;
    /* information_schema.TABLES fills an in-memory temporary table;
     * COLUMNS (it has TEXT columns) goes through on-disk ones. */
    if (columns)
        n = snprintf(buf + len, cap - len,
                     ") t LEFT JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = DATABASE() "
                     "AND c.TABLE_NAME = t.n GROUP BY t.o, t.n, t.c "
                     "HAVING COUNT(c.COLUMN_NAME) <> t.c ORDER BY t.o");
    else
        n = snprintf(buf + len, cap - len,
                     ") t LEFT JOIN information_schema.TABLES i ON i.TABLE_SCHEMA = DATABASE() "
                     "AND i.TABLE_NAME = t.n WHERE i.TABLE_NAME IS NULL ORDER BY t.o");
    if (n < 0 || (size_t)n >= cap - len)
        return 0;
    return len + (size_t)n;
}

const char *ag_tc_schema_probe_check(const struct ag_result *res, char *msg, size_t cap)
{
    if (res->rows == 0)
        return NULL;
    if (res->ncols < 3 || !res->col[0] || !res->is_num[2]) {
        snprintf(msg, cap, "the tpcc table probe returned an unexpected row");
        return msg;
    }
    if (res->ival[2] == 0)
        snprintf(msg, cap, "table %s does not exist: run `stampede tpcc prepare` first",
                 res->col[0]);
    else
        snprintf(msg, cap,
                 "table %s has %lld columns, tpcc-mysql's has %s: not tpcc-mysql's schema; "
                 "run `stampede tpcc prepare` (it drops and creates the 9 tables)",
                 res->col[0], (long long)res->ival[2], res->col[1] ? res->col[1] : "?");
    return msg;
}

static ag_tc_script *script_new(size_t n)
{
    ag_tc_script *s = pr_xcalloc(1, sizeof *s);
    s->sql = pr_xcalloc(n, sizeof *s->sql);
    return s;
}

static void script_add(ag_tc_script *s, const char *sql)
{
    size_t len = strlen(sql);
    s->sql[s->n] = pr_xmalloc(len + 1);
    memcpy(s->sql[s->n], sql, len + 1);
    s->n++;
}

ag_tc_script *ag_tc_schema_create_new(void)
{
    ag_tc_script *s = script_new(1 + 2 * AG_TC_TABLE_COUNT_);
    char drop[64];

    script_add(s, session_sql);
    for (unsigned i = 0; i < AG_TC_TABLE_COUNT_; i++) {
        snprintf(drop, sizeof drop, "DROP TABLE IF EXISTS %s", tables[i].name);
        script_add(s, drop);
        script_add(s, tables[i].create);
    }
    return s;
}

ag_tc_script *ag_tc_schema_index_new(void)
{
    size_t n = sizeof index_sql / sizeof index_sql[0];
    ag_tc_script *s = script_new(n + 2);

    script_add(s, session_sql);
    for (size_t i = 0; i < n; i++)
        script_add(s, index_sql[i]);
    script_add(s, fkey_count_sql);
    s->check = SCRIPT_CHECK_FKEYS;
    return s;
}

ag_tc_script *ag_tc_schema_drop_new(void)
{
    ag_tc_script *s = script_new(1 + AG_TC_TABLE_COUNT_);
    char drop[64];

    script_add(s, session_sql);
    for (unsigned i = 0; i < AG_TC_TABLE_COUNT_; i++) {
        snprintf(drop, sizeof drop, "DROP TABLE IF EXISTS %s", tables[i].name);
        script_add(s, drop);
    }
    return s;
}

void ag_tc_script_destroy(void *p)
{
    ag_tc_script *s = p;

    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->sql[i]);
    free(s->sql);
    free(s);
}

static bool script_next(void *it, const char **sql, size_t *sql_len, uint64_t *rows)
{
    ag_tc_script *s = it;

    if (s->pos >= s->n)
        return false;
    *sql = s->sql[s->pos];
    *sql_len = strlen(s->sql[s->pos]);
    *rows = 0;
    s->pos++;
    return true;
}

static const char *script_result(void *it, const struct ag_result *res)
{
    ag_tc_script *s = it;

    if (s->check != SCRIPT_CHECK_FKEYS || s->pos != s->n)
        return NULL;
    if (res->ncols < 1 || !res->is_num[0] || res->ival[0] != N_FKEYS) {
        snprintf(s->msg, sizeof s->msg,
                 "the server kept %lld of tpcc-mysql's %d foreign keys (add_fkey_idx.sql): "
                 "its tables' engine has no foreign keys (tpcc-mysql needs InnoDB); "
                 "prepare with --foreign-keys=off",
                 res->ncols >= 1 ? (long long)res->ival[0] : -1LL, N_FKEYS);
        return s->msg;
    }
    return NULL;
}

struct ag_piece ag_tc_script_piece(ag_tc_script *s)
{
    struct ag_piece p = {.it = s, .next = script_next, .result = NULL};

    if (s->check != SCRIPT_CHECK_NONE)
        p.result = script_result;
    return p;
}
