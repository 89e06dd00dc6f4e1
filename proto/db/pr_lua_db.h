/* pr_lua_db: the queries a script sends where no thread of it runs —
 * init() and done(), which sysbench runs in its main thread — on one
 * blocking connection of their own, opened at the first such query and
 * closed by pr_lua_db_detach(). The coordinator is the run's main thread:
 * it attaches one to its script state around init() and done().
 *
 * The prelude (pr_lua_prelude.lua, ask()) calls the global __sb_query_now
 * set here as (1, sql); its answer is the yield protocol's, with the rows
 * as a table of rows (each a table of strings, NULL as nil) after gen:
 * (0, nrows, affected, insert_id, nfields, 0, rows), or on an error
 * (errno, message, sqlstate, true) — raised by the prelude as the script's
 * SQL error at its FILE:LINE. A failed connect is such an error too
 * (errno 2002/2003/1045 ..., its message naming the server).
 *
 * Thread: the state's. */
#ifndef PR_LUA_DB_H
#define PR_LUA_DB_H

#include <lua.h>

#include "pr_tls.h"

/* Where the connection goes; the strings are copied (NULL: unset). */
struct pr_lua_db_target {
    const char *host; /* unless socket */
    unsigned port;
    const char *socket; /* a Unix socket path, or NULL */
    const char *user;
    const char *password;
    const char *database;
    const struct pr_tls_opts *tls; /* NULL: plain */
};

typedef struct pr_lua_db pr_lua_db;

/* Queries outside coroutines in L go to t from now on. Never NULL. */
pr_lua_db *pr_lua_db_attach(lua_State *L, const struct pr_lua_db_target *t);
/* They are answered empty again; the connection (if one was opened) is
 * closed and *db freed and set to NULL. NULL or *db NULL: no-op. */
void pr_lua_db_detach(lua_State *L, pr_lua_db **db);

#endif
