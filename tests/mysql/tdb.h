/* tdb: the sandbox server the mysql suite's C tests run against
 * (STAMPEDE_TEST_MYSQL_*, set by tests/run) and a blocking client for the
 * tests' own set-up and checks. Test-only code. A failing statement ends
 * the test (exit 1) with the statement and the server's message. */
#ifndef TDB_H
#define TDB_H

#include <stddef.h>
#include <stdint.h>

#include <mysql.h>

#include "ag_engine.h"

/* The server, from the environment (strings borrowed from it). */
struct tdb_env {
    const char *host, *port, *sock, *user, *pass, *db;
    const char *hosts[1]; /* tdb_engine_target's target lists */
    uint16_t ports[1];
};

/* Fill e: STAMPEDE_TEST_MYSQL_HOST (unset or empty: the test is skipped,
 * exit 77), _PORT (3306), _SOCKET (none), _USER (sbtest), _PASSWORD (""),
 * _DB (sbtest). */
void tdb_env_init(struct tdb_env *e);

/* e's port as a number. */
uint16_t tdb_port(const struct tdb_env *e);

/* A new blocking connection to e's server and database; exit 1 (with the
 * server's message) when it fails. The caller closes it. */
MYSQL *tdb_connect(const struct tdb_env *e);

/* Point cfg's targets and credentials at e's server (hosts, ports, user,
 * password, db); the rest of cfg is left as it is. e must outlive cfg. */
void tdb_engine_target(struct tdb_env *e, struct ag_engine_config *cfg);

/* cfg zeroed, then e's targets (tdb_engine_target), conns connections
 * (conns_total too), 2 workers (1 for one connection) and timeouts of 5 s
 * (connect) and 30 s (read, write): the tests' usual engine; the caller
 * sets the workload and changes what it needs. */
void tdb_engine_config(struct tdb_env *e, struct ag_engine_config *cfg, uint32_t conns);

/* Run sql, discarding any result. */
void tdb_exec(MYSQL *m, const char *sql);

/* The first column of sql's first row as an integer (if_null when NULL);
 * exit 1 when there is no row. */
long long tdb_int(MYSQL *m, const char *sql, long long if_null);

/* The first column of sql's first row as text into buf ("NULL" for a NULL
 * or no row). */
void tdb_text(MYSQL *m, const char *sql, char *buf, size_t cap);

/* A global status counter (information_schema.GLOBAL_STATUS, upper case
 * name). */
long long tdb_status(MYSQL *m, const char *name);

#endif
