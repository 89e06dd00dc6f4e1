/* harness: plays the coordinator over a real ZeroMQ ROUTER socket so the
 * agent daemon can be tested before the coordinator exists. It spawns a real
 * stampede-agent process, answers its PINGs, sends heartbeats while
 * receiving (unless paused), and checks the server through a blocking
 * MariaDB client connection. Test-only code. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <mysql.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "pr_msg.h"

struct harness {
    void *zctx, *router;
    char endpoint[128];
    uint8_t peer[256]; /* routing id of the agent */
    size_t peer_len;
    pid_t agent_pid;
    uint64_t seq;
    char run[PR_RUN_ID_MAX + 1];
    bool beats; /* send a HEARTBEAT every second while receiving */
    uint64_t next_beat_ns;
    MYSQL *db;              /* blocking client for checks */
    struct pr_msg hello;    /* the agent's HELLO */
    struct rusage agent_ru; /* the agent's resource use, after h_stop */
    uint64_t plan_hash;     /* hash of the last PLAN sent */
};

uint64_t h_now_ns(void);
/* Bind, spawn `agent_bin` with extra args (NULL-terminated), wait for HELLO.
 * Returns 0 or -1 with a message on stderr. */
int h_start(struct harness *h, const char *agent_bin, const char *const *extra);
/* SIGTERM the agent, wait for it, close everything. Returns the agent's
 * exit status (0: a clean stop; a sanitizer report makes it non-zero, 66
 * for TSan), 128 + the signal that ended it, or -1 when there was none. */
int h_stop(struct harness *h);
/* Send m (run and seq filled in). A PLAN whose plan_hash is 0 gets its
 * real hash (pr_msg_plan_hash), as the coordinator does; any other value
 * is sent as is (a tampered plan). h->plan_hash keeps what was sent. */
int h_send(struct harness *h, struct pr_msg *m);
/* Receive the next message of the wanted type (others are handled: PING is
 * answered, HEARTBEAT/PONG skipped, anything else returned too when
 * want == PR_MSG_NONE). Returns 0, or -1 on timeout. */
int h_recv(struct harness *h, struct pr_msg *m, enum pr_msg_type want, int timeout_ms);
/* Fill a PLAN with the test server's targets and sbtest credentials
 * (plan_hash 0: h_send computes it). */
void h_plan_init(struct pr_msg *m, enum pr_plan_cmd cmd, const char *workload);
/* SHOW GLOBAL STATUS value, or UINT64_MAX. */
uint64_t h_status(struct harness *h, const char *name);
/* Count of processlist rows for user sbtest (excluding our own). */
int h_sbtest_conns(struct harness *h);
/* h_sbtest_conns once it reads 0, or what it reads after timeout_ms. A
 * client that closed its connection may still show in the processlist
 * until the server thread has read its COM_QUIT (under load, a while):
 * call this before counting what a test step opens. Heartbeats and PINGs
 * are answered meanwhile; any other message the agent sends is dropped. */
int h_sbtest_conns_settle(struct harness *h, int timeout_ms);
/* Run a statement; returns the first column of the first row as integer
 * (or 0 when no result). */
long long h_query_int(struct harness *h, const char *sql);
/* Run a statement; returns the number of rows it returned, or -1. */
long long h_query_rows(struct harness *h, const char *sql);

#endif
