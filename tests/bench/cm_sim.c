/* cm_sim: the simulator process: N agents' DEALER sockets sending the
 * STATS encoded in advance at every boundary (cm.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <zmq.h>

#include "cm.h"

struct sim_live *cm_sim_live;

/* ---- the simulator process ---- */

struct sim_agent {
    void *sock;
    uint64_t seq; /* last seq sent */
    bool stopped; /* BYE or ABORT received */
};

struct sim_stats {
    uint8_t *data; /* encoded STATS, seq patched at send time */
    size_t size;
    size_t seq_off;
    size_t k_off; /* --interval-ms: k patched too */
};

struct sim {
    uint32_t n, k_count;
    uint64_t seed;
    struct sim_agent *ag;
    struct sim_stats *st; /* [k * n + agent] */
    zmq_pollitem_t *items;
    uint64_t t0_ns, ivl_ns; /* from START; 0 until then */
    uint64_t cpu0, wait0;   /* thread CPU and runqueue wait at START */
    uint32_t stopped;
    struct sim_report *rep;
};

/* The measured window (t0, t0 + K*I]: the run's K intervals. */
static bool in_window(const struct sim *s, uint64_t now)
{
    return s->t0_ns && now > s->t0_ns && now <= s->t0_ns + s->k_count * s->ivl_ns;
}

/* Send; messages other than STATS are counted when inside the window. */
static void sim_send(struct sim *s, uint32_t i, const void *data, size_t size, bool count)
{
    if (zmq_send(s->ag[i].sock, data, size, ZMQ_DONTWAIT) >= 0 && count &&
        in_window(s, cm_mono_ns()))
        s->rep->sent_window++;
}

static void sim_send_msg(struct sim *s, uint32_t i, struct pr_msg *m)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    m->seq = ++s->ag[i].seq;
    if (pr_msg_encode(m, &sb, NULL) == 0)
        sim_send(s, i, sb.data, sb.size, true);
    msgpack_sbuffer_destroy(&sb);
}

static void sim_hello(struct sim *s, uint32_t i)
{
    char name[32], host[32];
    struct pr_msg m;
    snprintf(name, sizeof(name), "sim-%05u", i);
    snprintf(host, sizeof(host), "bench-host-%u", i % 97);
    pr_msg_init(&m, PR_MSG_HELLO, NULL, 0);
    m.u.hello.name = name;
    m.u.hello.version = STAMPEDE_VERSION;
    m.u.hello.cores = 8;
    m.u.hello.hostname = host;
    m.u.hello.region = "";
    sim_send_msg(s, i, &m);
}

static void sim_beat(struct sim *s, uint32_t i)
{
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_HEARTBEAT, NULL, 0);
    m.u.heartbeat.state = s->t0_ns ? PR_STATE_RUNNING : PR_STATE_IDLE;
    m.u.heartbeat.clock_ns = cm_mono_ns();
    sim_send_msg(s, i, &m);
}

static void sim_on_msg(struct sim *s, uint32_t i, const struct pr_msg *in)
{
    struct pr_msg m;
    switch (in->type) {
    case PR_MSG_PING:
        pr_msg_init(&m, PR_MSG_PONG, NULL, 0);
        m.u.pong.id = in->u.ping.id;
        m.u.pong.ping_clock_ns = in->u.ping.clock_ns;
        m.u.pong.peer_clock_ns = cm_mono_ns();
        sim_send_msg(s, i, &m);
        break;
    case PR_MSG_START:
        if (s->t0_ns == 0) { /* same machine: the coordinator's clock is ours */
            s->t0_ns = in->u.start.t0_ns;
            s->ivl_ns = (uint64_t)in->u.start.interval_ms * 1000000u;
            s->cpu0 = cm_thread_cpu_ns();
            s->wait0 = cm_runqueue_wait_ns();
        }
        break;
    case PR_MSG_BYE:
    case PR_MSG_ABORT:
        if (!s->ag[i].stopped) {
            s->ag[i].stopped = true;
            s->stopped++;
        }
        break;
    default:
        break;
    }
}

static void sim_drain(struct sim *s, uint32_t i)
{
    zmq_msg_t msg;
    struct pr_msg m;
    zmq_msg_init(&msg);
    while (zmq_msg_recv(&msg, s->ag[i].sock, ZMQ_DONTWAIT) >= 0) {
        if (in_window(s, cm_mono_ns()))
            s->rep->recv_window++;
        if (pr_msg_decode(&m, zmq_msg_data(&msg), zmq_msg_size(&msg), NULL) == 0)
            sim_on_msg(s, i, &m);
        pr_msg_clear(&m);
    }
    zmq_msg_close(&msg);
}

static void sim_send_stats(struct sim *s, uint64_t k)
{
    for (uint32_t i = 0; i < s->n; i++) {
        struct sim_stats *st = &s->st[(cm_long_ivl_ms ? k % LONG_POOL : k) * s->n + i];
        cm_patch_seq(st->data, st->seq_off, ++s->ag[i].seq);
        if (cm_long_ivl_ms)
            cm_patch_seq(st->data, st->k_off, k);
        sim_send(s, i, st->data, st->size, false);
        s->rep->stats_sent++;
        atomic_fetch_add(&cm_sim_live->stats_sent, 1);
    }
}

/* Generate and encode every agent's STATS for every interval. */
static int sim_prepare(struct sim *s)
{
    struct sim_report *rep = s->rep;
    pr_hist *h = pr_hist_new();
    struct pr_counters c;
    uint64_t t = cm_mono_ns(), samples = 0, buckets = 0, bytes = 0;
    int rc = 0;

    rep->buckets_min = UINT32_MAX;
    uint64_t pool = cm_long_ivl_ms && s->k_count > LONG_POOL ? LONG_POOL : s->k_count;
    for (uint64_t k = 0; k < pool && rc == 0; k++) {
        for (uint32_t i = 0; i < s->n && rc == 0; i++) {
            msgpack_sbuffer sb;
            struct pr_hist_iter it = PR_HIST_ITER_INIT;
            uint32_t nb = 0;
            cm_gen_interval(s->seed, i, k, h, &c);
            while (pr_hist_next(h, &it))
                nb++;
            msgpack_sbuffer_init(&sb);
            struct sim_stats *st = &s->st[k * s->n + i];
            /* The lead's server sample in --long too (what srvstat and
             * srv_qps keep per interval is part of the memory measured);
             * there the pool repeats, so its counters step back at each
             * wrap and its figures are not checked. */
            rc = cm_encode_stats(k, h, &c, i == 0, &sb, &st->seq_off, &st->k_off);
            st->data = (uint8_t *)sb.data; /* ownership moves to st */
            st->size = sb.size;
            rep->expect_tx[k] += c.transactions;
            rep->expect_samples[k] += pr_hist_count(h);
            samples += pr_hist_count(h);
            buckets += nb;
            bytes += sb.size;
            rep->buckets_min = nb < rep->buckets_min ? nb : rep->buckets_min;
            rep->buckets_max = nb > rep->buckets_max ? nb : rep->buckets_max;
            rep->bytes_max = sb.size > rep->bytes_max ? (uint32_t)sb.size : rep->bytes_max;
        }
    }
    for (uint64_t k = pool; k < s->k_count; k++) { /* the pool, sent in turn */
        rep->expect_tx[k] = rep->expect_tx[k % pool];
        rep->expect_samples[k] = rep->expect_samples[k % pool];
    }
    double cnt = (double)s->n * pool;
    rep->samples_mean = (double)samples / cnt;
    rep->buckets_mean = (double)buckets / cnt;
    rep->bytes_mean = (double)bytes / cnt;
    rep->gen_s = (double)(cm_mono_ns() - t) / 1e9;
    pr_hist_destroy(&h);
    return rc;
}

static void sim_loop(struct sim *s)
{
    uint64_t now = cm_mono_ns(), next_beat = now + 1000000000u;
    uint64_t deadline = now + (uint64_t)(JOIN_TIMEOUT_S + s->k_count + 30) * 1000000000u;
    uint64_t next_k = 0;

    for (uint32_t i = 0; i < s->n; i++)
        sim_hello(s, i);
    while (s->stopped < s->n && now < deadline) {
        if (now >= next_beat) {
            next_beat += 1000000000u;
            for (uint32_t i = 0; i < s->n; i++)
                if (!s->ag[i].stopped)
                    sim_beat(s, i);
        }
        uint64_t due = s->t0_ns ? s->t0_ns + (next_k + 1) * s->ivl_ns : UINT64_MAX;
        if (next_k < s->k_count && now >= due) {
            s->rep->late_sends += now > due + 50000000u;
            if (next_k < MAX_INTERVALS)
                s->rep->send_lag_us[next_k] = (uint32_t)((now - due) / 1000u);
            sim_send_stats(s, next_k++);
            if (next_k == s->k_count) {
                s->rep->window_cpu_ns = cm_thread_cpu_ns() - s->cpu0;
                s->rep->window_wait_ns = cm_runqueue_wait_ns() - s->wait0;
            }
            continue;
        }
        uint64_t wake = next_beat < due ? next_beat : due;
        long wait_ms = wake > now ? (long)((wake - now) / 1000000u) + 1 : 0;
        if (wait_ms > 100)
            wait_ms = 100;
        if (zmq_poll(s->items, (int)s->n, wait_ms) > 0)
            for (uint32_t i = 0; i < s->n; i++)
                if (s->items[i].revents & ZMQ_POLLIN)
                    sim_drain(s, i);
        now = cm_mono_ns();
    }
    if (s->stopped < s->n)
        snprintf(s->rep->why, sizeof(s->rep->why),
                 "simulator timed out (%u of %u agents told "
                 "to stop)",
                 s->stopped, s->n);
    else
        s->rep->ok = 1;
}

/* The simulator process: returns its exit status. */
int cm_sim_main(uint32_t n, uint32_t k_count, uint64_t seed, const char *endpoint, int wfd)
{
    struct sim s = {.n = n, .k_count = k_count, .seed = seed};
    s.rep = pr_xcalloc(1, sizeof(*s.rep));
    s.rep->intervals = k_count;
    s.ag = pr_xcalloc(n, sizeof(*s.ag));
    s.st = pr_xcalloc((size_t)n * (cm_long_ivl_ms && k_count > LONG_POOL ? LONG_POOL : k_count),
                      sizeof(*s.st));
    s.items = pr_xcalloc(n, sizeof(*s.items));

    void *ctx = zmq_ctx_new();
    zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, (int)n + 64);
    int rc = sim_prepare(&s);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        int zero = 0;
        s.ag[i].sock = zmq_socket(ctx, ZMQ_DEALER);
        if (s.ag[i].sock == NULL || zmq_connect(s.ag[i].sock, endpoint) != 0) {
            snprintf(s.rep->why, sizeof(s.rep->why), "simulator socket %u: %s", i,
                     zmq_strerror(errno));
            rc = -1;
            break;
        }
        zmq_setsockopt(s.ag[i].sock, ZMQ_LINGER, &zero, sizeof(zero));
        s.items[i] = (zmq_pollitem_t){s.ag[i].sock, 0, ZMQ_POLLIN, 0};
    }
    if (rc == 0)
        sim_loop(&s);
    else if (s.rep->why[0] == '\0')
        snprintf(s.rep->why, sizeof(s.rep->why), "simulator could not encode STATS");
    const char *p = (const char *)s.rep;
    size_t left = sizeof(*s.rep);
    while (left > 0) {
        ssize_t w = write(wfd, p, left);
        if (w <= 0 && errno != EINTR)
            break;
        if (w > 0) {
            p += w;
            left -= (size_t)w;
        }
    }
    close(wfd);
    for (uint32_t i = 0; i < n; i++)
        if (s.ag[i].sock)
            zmq_close(s.ag[i].sock);
    zmq_ctx_term(ctx);
    return s.rep->ok ? 0 : 1;
}
