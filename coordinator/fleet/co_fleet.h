/* co_fleet: the coordinator's ZeroMQ ROUTER and the agents behind it.
 *
 * It binds the endpoint (CURVE server with a ZAP handler admitting only
 * authorized keys, or plain text on loopback/ipc), admits agents by HELLO,
 * answers their PINGs, measures each agent's clock offset with its own PINGs
 * (lowest round trip wins, NTP style), sends a HEARTBEAT to every agent each
 * second and declares an agent lost after CO_FLEET_LOSS_MS of silence
 * (docs/design.md §3.4, §9.1). Everything else an agent sends (READY, ERROR, STATS,
 * DONE) comes back to the caller as an event. Malformed frames are counted
 * and dropped; so are connections that fail the handshake (garbage bytes,
 * refused keys), seen through a socket monitor.
 *
 * Peers are numbered 0.. in the order they joined; the number stays valid
 * for the fleet's life. Thread: one thread (the one that created it).
 */
#ifndef CO_FLEET_H
#define CO_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "co_keys.h"
#include "pr_clock.h"
#include "pr_err.h"
#include "pr_msg.h"

#define CO_FLEET_HEARTBEAT_MS 1000
/* Two missed heartbeats and a half: a dead agent is reported within 3 s
 * of its last word (docs/design.md §3.4). */
#define CO_FLEET_LOSS_MS 2500
#define CO_FLEET_PINGS   8 /* clock pings per agent */

struct co_fleet_config {
    const char *endpoint;          /* tcp://ADDR:PORT or ipc://PATH to bind */
    const struct co_keypair *keys; /* coordinator keys; NULL: plain text */
    const co_keyring *keyring;     /* authorized agent keys (with keys); borrowed */
    uint32_t max_agents;           /* admit at most this many; later ones get BYE */
};

/* What an agent told us about itself, plus our measurements. */
struct co_peer {
    char name[PR_MSG_NAME_MAX + 1];
    char host[PR_MSG_HOST_MAX + 1];
    char region[PR_MSG_NAME_MAX + 1];
    char version[PR_MSG_NAME_MAX + 1];
    char pubkey[PR_MSG_Z85_KEY_LEN + 1];
    uint32_t cores;
    int64_t offset_ns;         /* agent clock - ours; valid when rtt_ns > 0 */
    uint64_t rtt_ns;           /* best ping round trip, 0 = none yet */
    uint32_t pongs;            /* PONGs received for our pings */
    uint64_t last_heard_ns;    /* our clock when its last valid message came */
    bool lost;                 /* silent for CO_FLEET_LOSS_MS */
    bool gone;                 /* said BYE */
    enum pr_agent_state state; /* from its last HEARTBEAT */
};

enum co_fleet_event_type {
    CO_FLEET_NONE,    /* nothing happened before the timeout */
    CO_FLEET_JOINED,  /* a new agent said HELLO */
    CO_FLEET_MSG,     /* READY, ERROR, STATS, DONE from an agent (ev.msg) */
    CO_FLEET_LOST,    /* an agent went silent */
    CO_FLEET_BYE,     /* an agent said BYE (ev.msg holds it) */
    CO_FLEET_REFUSED, /* an agent was refused (ev.text says why) */
};

struct co_fleet_event {
    enum co_fleet_event_type type;
    int peer;          /* peer number, -1 for REFUSED of an unknown peer */
    struct pr_msg msg; /* CO_FLEET_MSG / BYE: owned; co_fleet_event_clear() */
    char text[512];    /* REFUSED: why */
};

typedef struct co_fleet co_fleet;

/* Bind and start listening. NULL with err naming the endpoint. */
co_fleet *co_fleet_new(const struct co_fleet_config *cfg, struct pr_error *err);

/* Wait up to timeout_ms for the next event, handling HELLO, PING, PONG,
 * HEARTBEAT and timers on the way. Returns 0 with *ev filled (type NONE on
 * timeout). Heartbeats go out and losses are detected at each call: call it
 * at least every 100 ms. */
int co_fleet_next(co_fleet *f, struct co_fleet_event *ev, int timeout_ms);

/* Free what an event holds. */
void co_fleet_event_clear(struct co_fleet_event *ev);

/* Send m to a peer, setting m's run (the fleet's current run id) and seq.
 * m is only read. 0, or a negative code (peer gone, encode error). */
int co_fleet_send(co_fleet *f, int peer, struct pr_msg *m);

/* Send an ABORT (or BYE when bye) with a reason to every live peer. After
 * a BYE, closing the fleet waits up to CO_FLEET_BYE_LINGER_MS for it to go out. */
#define CO_FLEET_BYE_LINGER_MS 500

void co_fleet_broadcast_stop(co_fleet *f, const char *reason, bool bye);

/* Send an ABORT with now set (stop at once, pr_msg_abort) to every live
 * peer: --forced-shutdown. */
void co_fleet_broadcast_abort_now(co_fleet *f, const char *reason);

/* The run id put on every message from now on. */
void co_fleet_set_run(co_fleet *f, const char *run);

/* Send CO_FLEET_PINGS pings to a peer now (clock measurement). */
void co_fleet_ping(co_fleet *f, int peer);

size_t co_fleet_count(const co_fleet *f);
/* Peer info; valid until co_fleet_destroy. */
const struct co_peer *co_fleet_peer(const co_fleet *f, int peer);

/* Drop the peer from heartbeats and loss detection (not part of the run). */
void co_fleet_release(co_fleet *f, int peer);

uint64_t co_fleet_bad_frames(const co_fleet *f);
uint64_t co_fleet_refused(const co_fleet *f);

/* Monotonic clock, ns: the coordinator's clock on the wire (pr_clock_now_ns(),
 * the one clock both programs use). */
static inline uint64_t co_fleet_now_ns(void)
{
    return pr_clock_now_ns();
}

/* Close the socket and free everything; *f becomes NULL. */
void co_fleet_destroy(co_fleet **f);

#endif
