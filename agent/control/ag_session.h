/* ag_session: one PLAN carried out, on its own thread, for the control loop.
 *
 * The control thread (ag_ctl) owns the ZeroMQ socket and must stay
 * responsive (heartbeats, lease), so everything that blocks — opening the
 * pool, preparing statements, waiting for interval boundaries, running
 * prepare/cleanup — happens on the session's thread. The session talks back
 * only through an outbox of ready-to-send messages (READY, ERROR, STATS,
 * DONE) and a file descriptor that becomes readable when the outbox has
 * something; the control thread polls that fd beside its socket.
 *
 * Lifecycle: _new (setup starts at once) -> READY (the lead agent's with
 * its server baseline, pr_msg.h) or ERROR in the outbox -> _go (START
 * received) -> STATS every interval -> DONE -> finished. The run is torn
 * down (connections closed) before DONE or a setup ERROR is queued, and
 * that last message is queued together with the finished mark, so once the
 * control thread has sent it, the session is finished and can be reaped.
 * _stop at any point ends it early: graceful (let in-flight statements
 * finish, bounded, then DONE) or immediate (lease expired: close every DB
 * connection now; a DONE is still produced for the record).
 */
#ifndef AG_SESSION_H
#define AG_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_msg.h"

typedef struct ag_session ag_session;

/* Start a session for plan (copied; the caller keeps its own). workers is
 * the number of event loops (0 = usable CPUs, ag_cpus.h). Returns NULL only when the
 * thread cannot be created. Thread: control thread. */
ag_session *ag_session_new(const struct pr_msg_plan *plan, int workers);

/* START: begin load at t0_local_ns (CLOCK_MONOTONIC of this host) with
 * intervals of interval_ms. Ignored unless the session is ready. */
void ag_session_go(ag_session *s, uint64_t t0_local_ns, uint32_t interval_ms);

/* End early. immediate: close DB connections without waiting. */
void ag_session_stop(ag_session *s, bool immediate);

/* Readable when the outbox is non-empty. Owned by the session. */
int ag_session_fd(const ag_session *s);

/* Move the oldest outgoing message into *out (the caller sets run and seq,
 * sends it and pr_msg_clear()s it). False when the outbox is empty. */
bool ag_session_pop(ag_session *s, struct pr_msg *out);

/* The session's state, for HEARTBEAT. */
enum pr_agent_state ag_session_state(const ag_session *s);

/* True once the last message (DONE or a setup ERROR) has been popped: the
 * thread is ending and _destroy will not wait long. */
bool ag_session_is_finished(const ag_session *s);

/* Stop (immediate) if still running, join the thread, free everything,
 * set *s to NULL. */
void ag_session_destroy(ag_session **s);

#endif
