/* ag_ctl: the agent's control loop, on the thread that owns the ZeroMQ socket.
 *
 * Dials the coordinator as a DEALER (CURVE client unless --plaintext), says
 * HELLO, answers PING, measures its own clock offset to the coordinator by
 * pinging it (lowest round trip wins), turns a PLAN into an ag_session,
 * relays the session's READY/ERROR/STATS/DONE, sends a HEARTBEAT every
 * second, and enforces the dead-man lease: no word from the coordinator for
 * AG_CTL_LEASE_MS and the session is stopped at once (its DB connections
 * closed). The daemon then waits for the next coordinator: it says HELLO
 * again every second until one answers, so it survives a coordinator
 * restart. Malformed frames are counted and dropped, never fatal.
 */
#ifndef AG_CTL_H
#define AG_CTL_H

#include "ag_config.h"

#define AG_CTL_LEASE_MS     3000
#define AG_CTL_HEARTBEAT_MS 1000

/* Run the control loop until SIGINT/SIGTERM (or, with cfg->once, until one
 * run has ended). Returns 0, or a negative code after printing why to
 * stderr (socket setup failed; with --once, the run failed or the lease
 * expired). Thread: the caller's; installs SIGINT/SIGTERM handlers. */
int ag_ctl_run(const struct ag_config *cfg);

#endif
