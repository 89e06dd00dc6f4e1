/* ag_env: what an agent says about its environment in READY.env
 * (pr_msg.h, struct pr_msg_env; README "Environment").
 *
 * Every agent reports its host and build; the lead agent also reads the
 * server (version, the PR_ENV_VARIABLES, the data set under test) on its
 * blocking probe connection. A fact that cannot be read is named in the
 * unread list with the reason; nothing is guessed.
 *
 * Ownership: everything filled in is heap memory (pr_xmalloc) that
 * pr_msg_clear() frees with the READY it belongs to.
 * Thread: the session thread (blocking calls).
 */
#ifndef AG_ENV_H
#define AG_ENV_H

#include <mysql.h>

#include "pr_env.h"
#include "pr_msg.h"

/* The names of PR_ENV_STATUS as a SQL list tail: ",'Threads_running',...",
 * for the lead's SHOW GLOBAL STATUS WHERE Variable_name IN (...). */
#define AG_ENV__STATUS_NAME(name, kind) ",'" #name "'"
#define AG_ENV_STATUS_NAMES             PR_ENV_STATUS(AG_ENV__STATUS_NAME)

/* Fill e's host facts (overwriting them: e starts zeroed): hostname,
 * kernel (uname), CPU model (/proc/cpuinfo), online cores, memory
 * (/proc/meminfo MemTotal, else sysconf), Connector/C version, stampede's
 * version and git commit. Never fails: what cannot be read goes to
 * e->unread. */
void ag_env_host(struct pr_msg_env *e);

/* Lead: fill e->server from the server on conn and set e->has_server.
 * schema: the database under test (PLAN.db), whose base tables are the data
 * set. conn NULL (no probe, --mysql-dry-run): every fact is unread with
 * the reason why_none. Runs two SHOW statements (SHOW GLOBAL VARIABLES,
 * whose version is VERSION(), and SHOW TABLE STATUS), which count only
 * under Com_show_*, never as load; call it before READY's srv baseline. */
void ag_env_server(struct pr_msg_env *e, MYSQL *conn, const char *schema, const char *why_none);

#endif
