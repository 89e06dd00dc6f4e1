/* co_fleet: the coordinator's ZeroMQ ROUTER, CURVE admission and the agents behind it (contract:
 * co_fleet.h). */
#include "co_fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#define ROUTING_ID_MAX 256
#define MAX_FRAME      (PR_MSG_MAX_BYTES + 1024)

struct peer {
    struct co_peer pub;          /* what callers see */
    uint8_t rid[ROUTING_ID_MAX]; /* ZeroMQ routing id */
    size_t rid_len;              /* its length */
    struct pr_seq_track in;      /* duplicate filter for this peer */
    uint64_t out_seq;            /* last seq we sent it */
    uint64_t next_ping_id;       /* our ping counter */
    bool released;               /* not part of the run: no beats, no loss */
    struct pr_clock_sync clock;  /* best PING/PONG sample, copied to pub */
};

struct co_fleet {
    void *zctx;         /* ZeroMQ context */
    void *router;       /* the ROUTER, CURVE server or plain */
    void *monitor;      /* PAIR reading the router's handshake events */
    co_zap *zap;        /* ZAP handler, NULL in plain text */
    struct peer *peers; /* joined agents, n_peers */
    size_t n_peers;
    /* peers by routing id: open addressing, linear probing, -1 for a free
     * slot; rid_cap (a power of two) at least twice n_peers. Peers are
     * never removed, so a chain holds them in join order. */
    int32_t *rid_tab;
    size_t rid_cap;
    uint32_t max_agents;         /* admit at most this many */
    char run[PR_RUN_ID_MAX + 1]; /* run id on outgoing messages */
    size_t run_len;              /* strlen(run), kept by co_fleet_set_run */
    uint64_t next_beat_ns;       /* next heartbeat round */
    uint64_t next_loss_ns;       /* no peer can be lost before this (0: scan) */
    uint64_t bad_frames;         /* malformed frames and failed handshakes */
    uint64_t accepted;           /* connections accepted (monitor) */
    uint64_t handshaken;         /* ... that completed or failed a handshake */
    uint64_t refused;            /* agents refused */
    uint64_t idle_seq;           /* seq for messages to unknown peers */
};

static int open_monitor(co_fleet *f, struct pr_error *err)
{
    char ep[64];
    snprintf(ep, sizeof(ep), "inproc://co-fleet-monitor-%p", (void *)f);
    int events = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                 ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                 ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (zmq_socket_monitor(f->router, ep, events) != 0)
        return pr_error_set(err, -errno, "zmq_socket_monitor: %s", zmq_strerror(errno));
    f->monitor = zmq_socket(f->zctx, ZMQ_PAIR);
    if (f->monitor == NULL || zmq_connect(f->monitor, ep) != 0)
        return pr_error_set(err, -errno, "monitor connect: %s", zmq_strerror(errno));
    return 0;
}

static int set_security(co_fleet *f, const struct co_fleet_config *cfg, struct pr_error *err)
{
    int one = 1;
    if (cfg->keys == NULL)
        return 0;
    f->zap = co_zap_new(f->zctx, cfg->keyring, err);
    if (f->zap == NULL)
        return err->code ? err->code : PR_EINVAL;
    if (zmq_setsockopt(f->router, ZMQ_CURVE_SERVER, &one, sizeof(one)) != 0 ||
        zmq_setsockopt(f->router, ZMQ_CURVE_SECRETKEY, cfg->keys->secret_key, CO_KEY_LEN) != 0 ||
        zmq_setsockopt(f->router, ZMQ_ZAP_DOMAIN, "stampede", 8) != 0)
        return pr_error_set(err, -errno, "CURVE setup: %s", zmq_strerror(errno));
    return 0;
}

co_fleet *co_fleet_new(const struct co_fleet_config *cfg, struct pr_error *err)
{
    co_fleet *f = pr_xcalloc(1, sizeof(*f));
    int zero = 0, one = 1;
    int64_t max_msg = MAX_FRAME;

    f->max_agents = cfg->max_agents ? cfg->max_agents : 1;
    f->zctx = zmq_ctx_new();
    f->router = zmq_socket(f->zctx, ZMQ_ROUTER);
    if (f->router == NULL) {
        pr_error_set(err, -errno, "cannot create a ZeroMQ socket: %s", zmq_strerror(errno));
        goto fail;
    }
    zmq_setsockopt(f->router, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(f->router, ZMQ_ROUTER_MANDATORY, &one, sizeof(one));
    zmq_setsockopt(f->router, ZMQ_MAXMSGSIZE, &max_msg, sizeof(max_msg));
    if (set_security(f, cfg, err) != 0 || open_monitor(f, err) != 0)
        goto fail;
    if (zmq_bind(f->router, cfg->endpoint) != 0) {
        pr_error_set(err, -errno, "cannot listen on %s: %s", cfg->endpoint, zmq_strerror(errno));
        goto fail;
    }
    return f;
fail:
    co_fleet_destroy(&f);
    return NULL;
}

void co_fleet_destroy(co_fleet **fp)
{
    co_fleet *f = fp ? *fp : NULL;
    if (f == NULL)
        return;
    if (f->router) {
        zmq_socket_monitor(f->router, NULL, 0);
        zmq_close(f->router);
    }
    if (f->monitor)
        zmq_close(f->monitor);
    co_zap_destroy(&f->zap);
    if (f->zctx)
        zmq_ctx_term(f->zctx);
    free(f->peers);
    free(f->rid_tab);
    free(f);
    *fp = NULL;
}

static int send_to(co_fleet *f, const uint8_t *rid, size_t rid_len, uint64_t seq, struct pr_msg *m)
{
    msgpack_sbuffer sb;
    struct pr_error err = {0};

    m->seq = seq;
    memcpy(m->run, f->run, f->run_len + 1); /* once per message: no formatting */
    msgpack_sbuffer_init(&sb);
    int rc = pr_msg_encode(m, &sb, &err);
    if (rc == 0) {
        if (zmq_send(f->router, rid, rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
            zmq_send(f->router, sb.data, sb.size, ZMQ_DONTWAIT) < 0)
            rc = -errno;
    } else {
        fprintf(stderr, "stampede: cannot encode %s: %s\n", pr_msg_type_name(m->type), err.msg);
    }
    pr_msg_sbuffer_scrub(&sb); /* a PLAN's holds the password */
    return rc;
}

int co_fleet_send(co_fleet *f, int peer, struct pr_msg *m)
{
    if (peer < 0 || (size_t)peer >= f->n_peers)
        return PR_EINVAL;
    struct peer *p = &f->peers[peer];
    return send_to(f, p->rid, p->rid_len, ++p->out_seq, m);
}

static void send_simple(co_fleet *f, int peer, enum pr_msg_type type, const char *reason, bool now)
{
    struct pr_msg m;
    pr_msg_init(&m, type, NULL, 0);
    if (type == PR_MSG_HEARTBEAT) {
        m.u.heartbeat.state = PR_STATE_RUNNING;
        m.u.heartbeat.clock_ns = pr_clock_now_ns();
    } else {
        m.u.abort.reason = (char *)reason;
        m.u.abort.now = now && type == PR_MSG_ABORT;
    }
    co_fleet_send(f, peer, &m);
}

void co_fleet_broadcast_stop(co_fleet *f, const char *reason, bool bye)
{
    /* A BYE is often the last frame before the socket closes: with the
     * linger 0 set at creation zmq_close would drop it unsent, and the
     * agents would later take their quiet for a lost coordinator. Give
     * the I/O thread a bounded CO_FLEET_BYE_LINGER_MS to put it out. */
    if (bye) {
        int linger = CO_FLEET_BYE_LINGER_MS;
        zmq_setsockopt(f->router, ZMQ_LINGER, &linger, sizeof(linger));
    }
    for (size_t i = 0; i < f->n_peers; i++)
        if (!f->peers[i].pub.lost && !f->peers[i].pub.gone)
            send_simple(f, (int)i, bye ? PR_MSG_BYE : PR_MSG_ABORT, reason, false);
}

void co_fleet_broadcast_abort_now(co_fleet *f, const char *reason)
{
    for (size_t i = 0; i < f->n_peers; i++)
        if (!f->peers[i].pub.lost && !f->peers[i].pub.gone)
            send_simple(f, (int)i, PR_MSG_ABORT, reason, true);
}

void co_fleet_set_run(co_fleet *f, const char *run)
{
    snprintf(f->run, sizeof(f->run), "%s", run ? run : "");
    f->run_len = strlen(f->run);
}

void co_fleet_ping(co_fleet *f, int peer)
{
    struct peer *p = &f->peers[peer];
    for (int i = 0; i < CO_FLEET_PINGS; i++) {
        struct pr_msg m;
        pr_msg_init(&m, PR_MSG_PING, NULL, 0);
        m.u.ping.id = ++p->next_ping_id;
        m.u.ping.clock_ns = pr_clock_now_ns();
        co_fleet_send(f, peer, &m);
    }
}

size_t co_fleet_count(const co_fleet *f)
{
    return f->n_peers;
}

const struct co_peer *co_fleet_peer(const co_fleet *f, int peer)
{
    return &f->peers[peer].pub;
}

void co_fleet_release(co_fleet *f, int peer)
{
    f->peers[peer].released = true;
}

uint64_t co_fleet_bad_frames(const co_fleet *f)
{
    /* A connection still mid-handshake at this instant counts too: a
     * handshake takes milliseconds, and this is read at the end of a run. */
    return f->bad_frames + (f->accepted > f->handshaken ? f->accepted - f->handshaken : 0);
}

uint64_t co_fleet_refused(const co_fleet *f)
{
    return f->refused;
}

void co_fleet_event_clear(struct co_fleet_event *ev)
{
    pr_msg_clear(&ev->msg);
    memset(ev, 0, sizeof(*ev));
}

/* FNV-1a of a routing id (ZeroMQ's own are 5 bytes: 0, then a counter). */
static uint64_t rid_hash(const uint8_t *rid, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ rid[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* Peer i into the routing id table (slot free: the table has room). */
static void rid_put(co_fleet *f, int32_t i)
{
    size_t mask = f->rid_cap - 1;
    size_t at = (size_t)rid_hash(f->peers[i].rid, f->peers[i].rid_len) & mask;
    while (f->rid_tab[at] >= 0)
        at = (at + 1) & mask;
    f->rid_tab[at] = i;
}

/* Room in the table for one more peer: doubled and refilled (in join
 * order) when it would be more than half full. */
static void rid_reserve(co_fleet *f)
{
    if (2 * (f->n_peers + 1) <= f->rid_cap)
        return;
    size_t cap = f->rid_cap ? 2 * f->rid_cap : 64;
    while (cap < 2 * (f->n_peers + 1))
        cap *= 2;
    free(f->rid_tab);
    f->rid_tab = pr_xmalloc(cap * sizeof(*f->rid_tab));
    f->rid_cap = cap;
    memset(f->rid_tab, 0xff, cap * sizeof(*f->rid_tab)); /* every slot -1 */
    for (size_t i = 0; i < f->n_peers; i++)
        rid_put(f, (int32_t)i);
}

/* The first peer (in join order) with this routing id, or -1. */
static int find_rid(const co_fleet *f, const uint8_t *rid, size_t len)
{
    if (f->rid_cap == 0)
        return -1;
    size_t mask = f->rid_cap - 1;
    for (size_t at = (size_t)rid_hash(rid, len) & mask; f->rid_tab[at] >= 0; at = (at + 1) & mask) {
        const struct peer *p = &f->peers[f->rid_tab[at]];
        if (p->rid_len == len && memcmp(p->rid, rid, len) == 0)
            return f->rid_tab[at];
    }
    return -1;
}

static int find_name(const co_fleet *f, const char *name)
{
    for (size_t i = 0; i < f->n_peers; i++)
        if (strcmp(f->peers[i].pub.name, name) == 0)
            return (int)i;
    return -1;
}

/* Tell an unknown peer why it cannot join; it is not added. */
static void refuse(co_fleet *f, const uint8_t *rid, size_t len, struct co_fleet_event *ev,
                   const char *why)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_BYE, NULL, 0);
    m.u.bye.reason = (char *)why;
    send_to(f, rid, len, ++f->idle_seq, &m);
    f->refused++;
    ev->type = CO_FLEET_REFUSED;
    ev->peer = -1;
    snprintf(ev->text, sizeof(ev->text), "%s", why);
}

static void on_hello(co_fleet *f, const uint8_t *rid, size_t len, struct pr_msg *m,
                     struct co_fleet_event *ev)
{
    const struct pr_msg_hello *h = &m->u.hello;
    char why[400];

    int same = find_name(f, h->name);
    if (same >= 0 && !f->peers[same].pub.lost && !f->peers[same].pub.gone) {
        snprintf(why, sizeof(why),
                 "agent name '%s' is already taken by an agent on %s; give each agent a "
                 "unique --name",
                 h->name, f->peers[same].pub.host);
        refuse(f, rid, len, ev, why);
        return;
    }
    if (f->n_peers >= f->max_agents) {
        snprintf(why, sizeof(why), "agent '%s' (%s) not needed: the run wants %u agents", h->name,
                 h->hostname, f->max_agents);
        refuse(f, rid, len, ev, why);
        return;
    }
    rid_reserve(f);
    f->peers = pr_xrealloc(f->peers, (f->n_peers + 1) * sizeof(*f->peers));
    struct peer *p = &f->peers[f->n_peers];
    memset(p, 0, sizeof(*p));
    memcpy(p->rid, rid, len);
    p->rid_len = len;
    rid_put(f, (int32_t)f->n_peers);
    p->in.last_seq = m->seq;
    snprintf(p->in.run, sizeof(p->in.run), "%s", m->run);
    snprintf(p->pub.name, sizeof(p->pub.name), "%s", h->name);
    snprintf(p->pub.host, sizeof(p->pub.host), "%s", h->hostname);
    snprintf(p->pub.region, sizeof(p->pub.region), "%s", h->region);
    snprintf(p->pub.version, sizeof(p->pub.version), "%s", h->version);
    snprintf(p->pub.pubkey, sizeof(p->pub.pubkey), "%s", h->pubkey);
    p->pub.cores = h->cores;
    p->pub.last_heard_ns = pr_clock_now_ns();
    ev->type = CO_FLEET_JOINED;
    ev->peer = (int)f->n_peers++;
    /* Speak at once: the agent counts itself joined when we answer. */
    send_simple(f, ev->peer, PR_MSG_HEARTBEAT, NULL, false);
    co_fleet_ping(f, ev->peer);
}

static void on_pong(struct peer *p, const struct pr_msg_pong *pong)
{
    if (!pr_clock_sync_pong(&p->clock, pong->ping_clock_ns, pong->peer_clock_ns, pr_clock_now_ns()))
        return;
    p->pub.pongs++;
    p->pub.rtt_ns = p->clock.rtt_ns;
    p->pub.offset_ns = p->clock.offset_ns;
}

/* A decoded message from a known peer. True when it is an event for the
 * caller (ownership of m moves to ev). */
static bool on_peer_msg(co_fleet *f, int idx, struct pr_msg *m, struct co_fleet_event *ev)
{
    struct peer *p = &f->peers[idx];
    struct pr_msg reply;

    if (!pr_seq_accept(&p->in, m))
        return false;
    p->pub.last_heard_ns = pr_clock_now_ns();
    switch (m->type) {
    case PR_MSG_PING:
        pr_msg_init_pong(&reply, &m->u.ping, pr_clock_now_ns());
        co_fleet_send(f, idx, &reply);
        return false;
    case PR_MSG_PONG:
        on_pong(p, &m->u.pong);
        return false;
    case PR_MSG_HEARTBEAT:
        p->pub.state = m->u.heartbeat.state;
        return false;
    case PR_MSG_HELLO: /* resent HELLO: the agent lost us for a while */
        send_simple(f, idx, PR_MSG_HEARTBEAT, NULL, false);
        return false;
    case PR_MSG_BYE:
        p->pub.gone = true;
        ev->type = CO_FLEET_BYE;
        break;
    case PR_MSG_READY:
    case PR_MSG_ERROR:
    case PR_MSG_STATS:
    case PR_MSG_DONE:
        ev->type = CO_FLEET_MSG;
        break;
    default:
        f->bad_frames++;
        return false;
    }
    ev->peer = idx;
    ev->msg = *m;
    memset(m, 0, sizeof(*m));
    return true;
}

/* Read one routed message. True when *ev was filled. */
static bool read_router(co_fleet *f, struct co_fleet_event *ev)
{
    uint8_t rid[ROUTING_ID_MAX];
    zmq_msg_t body;
    struct pr_msg m;
    struct pr_error err = {0};
    int more = 0;
    size_t more_len = sizeof(more);
    bool got = false;

    int rid_len = zmq_recv(f->router, rid, sizeof(rid), ZMQ_DONTWAIT);
    if (rid_len < 0)
        return false;
    if (rid_len > (int)sizeof(rid))
        rid_len = (int)sizeof(rid);
    zmq_msg_init(&body);
    int n = zmq_msg_recv(&body, f->router, ZMQ_DONTWAIT);
    zmq_getsockopt(f->router, ZMQ_RCVMORE, &more, &more_len);
    int rc =
        n < 0 ? PR_ETRUNCATED : pr_msg_decode(&m, zmq_msg_data(&body), zmq_msg_size(&body), &err);
    zmq_msg_close(&body);
    while (more) { /* single-frame messages only: drop the rest */
        zmq_msg_t extra;
        zmq_msg_init(&extra);
        zmq_msg_recv(&extra, f->router, 0);
        zmq_getsockopt(f->router, ZMQ_RCVMORE, &more, &more_len);
        zmq_msg_close(&extra);
        rc = rc ? rc : PR_ETRAILING;
    }
    int idx = find_rid(f, rid, (size_t)rid_len);
    if (rc == PR_EVERSION && m.type == PR_MSG_HELLO && idx < 0) {
        char why[300];
        snprintf(why, sizeof(why),
                 "agent '%s' speaks protocol %u, this coordinator %u: "
                 "install the same stampede version everywhere",
                 m.u.hello.name ? m.u.hello.name : "?", m.v, PR_PROTO_VERSION);
        refuse(f, rid, (size_t)rid_len, ev, why);
        got = true;
    } else if (rc != 0) {
        f->bad_frames++;
    } else if (idx >= 0) {
        got = on_peer_msg(f, idx, &m, ev);
    } else if (m.type == PR_MSG_HELLO) {
        on_hello(f, rid, (size_t)rid_len, &m, ev);
        got = ev->type != CO_FLEET_NONE;
    }
    pr_msg_clear(&m);
    return got;
}

/* Connections seen by the monitor. A connection that fails its handshake
 * (bad greeting) is a bad frame; one refused by ZAP is counted by the ZAP
 * handler; one that closes without any handshake result (raw garbage:
 * libzmq reports only ACCEPTED, DISCONNECTED) is found by counting:
 * accepted - handshaken (co_fleet_bad_frames()). */
static bool read_monitor(co_fleet *f)
{
    uint8_t buf[64];
    char addr[256];

    int n = zmq_recv(f->monitor, buf, sizeof(buf), ZMQ_DONTWAIT);
    if (n < 0)
        return false;
    zmq_recv(f->monitor, addr, sizeof(addr), 0);
    uint16_t event = 0;
    if (n >= 2)
        memcpy(&event, buf, sizeof(event));
    if (event == ZMQ_EVENT_ACCEPTED) {
        f->accepted++;
    } else {
        f->handshaken++;
        if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL ||
            event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
            f->bad_frames++;
    }
    return true;
}

static bool read_zap(co_fleet *f, struct co_fleet_event *ev)
{
    int refused = co_zap_handle(f->zap);
    if (refused <= 0)
        return false;
    f->refused += (uint64_t)refused;
    ev->type = CO_FLEET_REFUSED;
    ev->peer = -1;
    snprintf(ev->text, sizeof(ev->text),
             "refused an agent with an unauthorized key %s%s%s: add its public key to "
             "--authorized-keys",
             co_zap_last_refused_key(f->zap), *co_zap_last_refused_addr(f->zap) ? " from " : "",
             co_zap_last_refused_addr(f->zap));
    return true;
}

/* Heartbeats out, losses in. True when a loss was found. */
static bool timers(co_fleet *f, struct co_fleet_event *ev)
{
    uint64_t now = pr_clock_now_ns();
    bool beat = now >= f->next_beat_ns;

    int zevents = 0;
    size_t zlen = sizeof(zevents);
    /* Messages already queued may be from an agent about to be judged
     * silent: read them first. */
    bool queued =
        zmq_getsockopt(f->router, ZMQ_EVENTS, &zevents, &zlen) == 0 && (zevents & ZMQ_POLLIN);

    /* A peer's loss deadline only moves later when it is heard, and a new or
     * revived peer's is at least now + CO_FLEET_LOSS_MS, so the earliest
     * deadline of the last scan is a safe lower bound: no scan before it. */
    if (!beat && now < f->next_loss_ns)
        return false;
    uint64_t loss_ns = (uint64_t)CO_FLEET_LOSS_MS * 1000000u;
    uint64_t earliest = now + loss_ns;
    if (beat)
        f->next_beat_ns = now + (uint64_t)CO_FLEET_HEARTBEAT_MS * 1000000u;
    for (size_t i = 0; i < f->n_peers; i++) {
        struct peer *p = &f->peers[i];
        if (p->released || p->pub.lost || p->pub.gone)
            continue;
        if (!queued && now - p->pub.last_heard_ns > (uint64_t)CO_FLEET_LOSS_MS * 1000000u) {
            p->pub.lost = true;
            ev->type = CO_FLEET_LOST;
            ev->peer = (int)i;
            snprintf(ev->text, sizeof(ev->text), "no message for %.1f s",
                     (double)(now - p->pub.last_heard_ns) / 1e9);
            f->next_loss_ns = 0; /* the rest are checked on the next call */
            return true;
        }
        if (p->pub.last_heard_ns + loss_ns < earliest)
            earliest = p->pub.last_heard_ns + loss_ns;
        if (beat)
            send_simple(f, (int)i, PR_MSG_HEARTBEAT, NULL, false);
    }
    /* While messages are queued no loss is judged: look again next call. */
    f->next_loss_ns = queued ? 0 : earliest;
    return false;
}

int co_fleet_next(co_fleet *f, struct co_fleet_event *ev, int timeout_ms)
{
    uint64_t deadline = pr_clock_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;

    memset(ev, 0, sizeof(*ev));
    for (;;) {
        if (timers(f, ev))
            return 0;
        while (read_monitor(f))
            ;
        if (read_router(f, ev) || (f->zap && read_zap(f, ev)))
            return 0;
        uint64_t now = pr_clock_now_ns();
        if (now >= deadline)
            return 0;
        long wait_ms = (long)((deadline - now) / 1000000u) + 1;
        if (wait_ms > 100)
            wait_ms = 100;
        zmq_pollitem_t items[3] = {{f->router, 0, ZMQ_POLLIN, 0},
                                   {f->monitor, 0, ZMQ_POLLIN, 0},
                                   {f->zap ? co_zap_socket(f->zap) : NULL, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, f->zap ? 3 : 2, wait_ms) < 0)
            return errno == EINTR ? 0 : -errno; /* EINTR: the caller checks its signal flag */
    }
}
