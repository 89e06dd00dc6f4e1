/* tdb: see tdb.h. */
#include "tdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v ? v : dflt;
}

void tdb_env_init(struct tdb_env *e)
{
    memset(e, 0, sizeof *e);
    e->host = getenv("STAMPEDE_TEST_MYSQL_HOST");
    if (!e->host || !*e->host) { /* testlib.h's TEST_SKIP */
        printf("SKIP: STAMPEDE_TEST_MYSQL_HOST is not set\n");
        exit(77);
    }
    e->port = env_or("STAMPEDE_TEST_MYSQL_PORT", "3306");
    e->sock = getenv("STAMPEDE_TEST_MYSQL_SOCKET");
    e->user = env_or("STAMPEDE_TEST_MYSQL_USER", "sbtest");
    e->pass = env_or("STAMPEDE_TEST_MYSQL_PASSWORD", "");
    e->db = env_or("STAMPEDE_TEST_MYSQL_DB", "sbtest");
}

uint16_t tdb_port(const struct tdb_env *e)
{
    return (uint16_t)atoi(e->port);
}

MYSQL *tdb_connect(const struct tdb_env *e)
{
    MYSQL *m = mysql_init(NULL);
    if (!m || !mysql_real_connect(m, e->host, e->user, e->pass, e->db, tdb_port(e), NULL, 0)) {
        fprintf(stderr, "cannot connect to %s:%s/%s: %s\n", e->host, e->port, e->db,
                m ? mysql_error(m) : "out of memory");
        exit(1);
    }
    return m;
}

void tdb_engine_target(struct tdb_env *e, struct ag_engine_config *cfg)
{
    e->hosts[0] = e->host;
    e->ports[0] = tdb_port(e);
    cfg->hosts = e->hosts;
    cfg->nhosts = 1;
    cfg->ports = e->ports;
    cfg->nports = 1;
    cfg->user = e->user;
    cfg->password = e->pass;
    cfg->db = e->db;
}

void tdb_engine_config(struct tdb_env *e, struct ag_engine_config *cfg, uint32_t conns)
{
    memset(cfg, 0, sizeof *cfg);
    tdb_engine_target(e, cfg);
    cfg->conns = conns;
    cfg->conns_total = conns;
    cfg->workers = conns < 2 ? 1 : 2;
    cfg->connect_timeout_s = 5;
    cfg->read_timeout_s = 30;
    cfg->write_timeout_s = 30;
}

static MYSQL_RES *query(MYSQL *m, const char *sql)
{
    if (mysql_query(m, sql) != 0) {
        fprintf(stderr, "%s: %s\n", sql, mysql_error(m));
        exit(1);
    }
    return mysql_store_result(m);
}

void tdb_exec(MYSQL *m, const char *sql)
{
    MYSQL_RES *r = query(m, sql);
    if (r)
        mysql_free_result(r);
}

long long tdb_int(MYSQL *m, const char *sql, long long if_null)
{
    MYSQL_RES *r = query(m, sql);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    if (!row) {
        fprintf(stderr, "%s: no row\n", sql);
        exit(1);
    }
    long long v = row[0] ? atoll(row[0]) : if_null;
    mysql_free_result(r);
    return v;
}

void tdb_text(MYSQL *m, const char *sql, char *buf, size_t cap)
{
    MYSQL_RES *r = query(m, sql);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    snprintf(buf, cap, "%s", row && row[0] ? row[0] : "NULL");
    if (r)
        mysql_free_result(r);
}

long long tdb_status(MYSQL *m, const char *name)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = "
             "'%s'",
             name);
    return tdb_int(m, sql, 0);
}
