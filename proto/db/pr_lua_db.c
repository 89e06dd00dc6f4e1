/* pr_lua_db: init()'s and done()'s queries on a blocking connection
 * (pr_lua_db.h). */
#include "pr_lua_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <mysql.h>

#include "pr_err.h"
#include "pr_lua.h"

#define CONNECT_TIMEOUT_S 10

struct pr_lua_db {
    char *host, *socket, *user, *password, *database;
    unsigned port;
    struct pr_tls_opts tls;
    MYSQL *m;
};

static char *dup_or_null(const char *s)
{
    return s ? pr_xstrdup(s) : NULL;
}

/* An error answer: (errno, message, sqlstate, true: not ignorable). */
static int push_error(lua_State *L, unsigned n, const char *msg, const char *state)
{
    lua_pushinteger(L, n);
    lua_pushstring(L, msg);
    lua_pushstring(L, state);
    lua_pushboolean(L, 1);
    return 4;
}

static const char *where_of(const pr_lua_db *db, char *buf, size_t len)
{
    if (db->socket)
        snprintf(buf, len, "%s", db->socket);
    else
        snprintf(buf, len, "%s:%u", db->host ? db->host : "localhost", db->port);
    return buf;
}

/* Open db->m. 0, or the number of error values pushed. */
static int connect_db(lua_State *L, pr_lua_db *db)
{
    unsigned timeout = CONNECT_TIMEOUT_S;
    char where[300], msg[1100];
    struct pr_error err = {0};

    db->m = mysql_init(NULL);
    if (db->m == NULL)
        return push_error(L, 2008, "out of memory for a connection", "HY000");
    mysql_options(db->m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    if (pr_tls_apply(db->m, &db->tls, &err) < 0) {
        snprintf(msg, sizeof(msg), "connect %s: %s", where_of(db, where, sizeof(where)), err.msg);
        mysql_close(db->m);
        db->m = NULL;
        return push_error(L, 2026, msg, "HY000");
    }
    if (!mysql_real_connect(db->m, db->socket ? "localhost" : db->host, db->user, db->password,
                            db->database, db->port, db->socket, 0) ||
        pr_tls_check_conn(db->m, &db->tls, &err) < 0) {
        unsigned n = err.code ? 2026 : mysql_errno(db->m);
        snprintf(msg, sizeof(msg),
                 "connect %s (init() and done() query from the coordinator, as sysbench's main "
                 "thread does): %s",
                 where_of(db, where, sizeof(where)), err.code ? err.msg : mysql_error(db->m));
        char state[6];
        snprintf(state, sizeof(state), "%s", mysql_sqlstate(db->m));
        mysql_close(db->m);
        db->m = NULL;
        return push_error(L, n, msg, state);
    }
    return 0;
}

/* The rows of res as a table of tables of strings (NULL: nil). */
static void push_rows(lua_State *L, MYSQL_RES *res, unsigned nf)
{
    MYSQL_ROW row;
    lua_createtable(L, (int)mysql_num_rows(res), 0);
    for (int i = 1; (row = mysql_fetch_row(res)) != NULL; i++) {
        unsigned long *lens = mysql_fetch_lengths(res);
        lua_createtable(L, (int)nf, 0);
        for (unsigned f = 0; f < nf; f++) {
            if (row[f] == NULL)
                continue;
            lua_pushlstring(L, row[f], lens[f]);
            lua_rawseti(L, -2, (int)f + 1);
        }
        lua_rawseti(L, -2, i);
    }
}

/* __sb_query_now(1, sql): see pr_lua_db.h. */
static int query_now(lua_State *L)
{
    pr_lua_db *db = lua_touserdata(L, lua_upvalueindex(1));
    size_t len;
    if (luaL_checkinteger(L, 1) != 1)
        return luaL_error(L, "a prepared statement outside a thread (not supported here)");
    const char *sql = luaL_checklstring(L, 2, &len);
    int n;
    if (db->m == NULL && (n = connect_db(L, db)) > 0)
        return n;
    int failed = mysql_real_query(db->m, sql, len);
    pr_lua_watchdog_rearm(L); /* the wait was the server's, not the script's */
    if (failed)
        return push_error(L, mysql_errno(db->m), mysql_error(db->m), mysql_sqlstate(db->m));
    MYSQL_RES *res = mysql_store_result(db->m);
    unsigned nf = mysql_field_count(db->m);
    if (res == NULL && nf > 0)
        return push_error(L, mysql_errno(db->m), mysql_error(db->m), mysql_sqlstate(db->m));
    lua_pushinteger(L, 0);
    lua_pushnumber(L, res ? (lua_Number)mysql_num_rows(res) : 0);
    lua_pushnumber(L, res ? 0 : (lua_Number)mysql_affected_rows(db->m));
    lua_pushnumber(L, (lua_Number)mysql_insert_id(db->m));
    lua_pushinteger(L, (lua_Integer)nf);
    lua_pushinteger(L, 0);
    if (res) {
        push_rows(L, res, nf);
        mysql_free_result(res);
    } else {
        lua_pushnil(L);
    }
    return 7;
}

pr_lua_db *pr_lua_db_attach(lua_State *L, const struct pr_lua_db_target *t)
{
    pr_lua_db *db = pr_xcalloc(1, sizeof(*db));
    db->host = dup_or_null(t->host);
    db->socket = dup_or_null(t->socket);
    db->user = dup_or_null(t->user);
    db->password = dup_or_null(t->password);
    db->database = dup_or_null(t->database);
    db->port = t->port;
    if (t->tls)
        pr_tls_opts_copy(&db->tls, t->tls);
    lua_pushlightuserdata(L, db);
    lua_pushcclosure(L, query_now, 1);
    lua_setglobal(L, "__sb_query_now");
    return db;
}

void pr_lua_db_detach(lua_State *L, pr_lua_db **dbp)
{
    if (dbp == NULL || *dbp == NULL)
        return;
    pr_lua_db *db = *dbp;
    lua_pushnil(L);
    lua_setglobal(L, "__sb_query_now");
    if (db->m)
        mysql_close(db->m);
    if (db->password)
        memset(db->password, 0, strlen(db->password));
    free(db->host);
    free(db->socket);
    free(db->user);
    free(db->password);
    free(db->database);
    pr_tls_opts_clear(&db->tls);
    free(db);
    *dbp = NULL;
}
