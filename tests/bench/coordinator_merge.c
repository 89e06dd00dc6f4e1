/* coordinator_merge: what merging N agents' STATS costs the coordinator.
 *
 * A forked simulator process opens N ZeroMQ DEALER sockets to a real
 * co_fleet (plain text, ipc://) bound by this process, says HELLO with N
 * distinct names, answers the fleet's PINGs with PONGs, sends a HEARTBEAT
 * every second and, once this process has sent START, one STATS(k) per agent
 * at every 1 s boundary. Each STATS carries a realistic latency histogram
 * (gen_interval()) and is encoded in advance so the simulator stays cheap;
 * this side decodes every one, which is the real cost. The coordinator (this
 * process's main thread) is co_run's: its run state is a struct run
 * (co_run_int.h) built as co_run builds it, with the args from co_args_parse
 * of "stampede oltp_read_write run --agents=N --threads=16N
 * --report-interval=1 --time=K --listen=ipc://... --plaintext
 * [--hdr-log=...]", a real co_fleet and co_merge and a co_result; the loop
 * is co_run's drive_phase: co_fleet_next -> handle_event -> co__live_stats
 * (co_live.c: co_merge_add, the per-agent sums, the lead's server sample) ->
 * co__live_flush (co_merge_due, the sysbench line, co_merge_close), the
 * lines going to a memory FILE. Only co_run.c's static handle_event and
 * agent_of_peer are mirrored here (marked "as co_run.c"). At the end
 * co__live_sum_intervals makes the run's latency from the intervals, as
 * co_run's finish_results does.
 *
 * Prints for one N: coordinator thread CPU per interval (mean, max, % of one
 * core), the process's CPU including ZeroMQ's I/O thread, messages per
 * second, whether each interval was complete (every agent merged before its
 * line was printed, and the merged totals equal what the simulator sent),
 * peak RSS, CPU by section of the loop and per-STATS costs of the pieces
 * (decode, its histogram read, histogram allocation, co__live_stats,
 * co_merge_add) and the end of the run's co__live_sum_intervals. Asserts
 * nothing; exits 1 only when the bench itself could not run. Times are thread CPU
 * time (CLOCK_THREAD_CPUTIME_ID), steady on a shared machine; an interval's
 * CPU is what the thread used from the end of the co__live_flush call that
 * printed the previous line (START for the first) to the end of the one
 * that printed its line. The time each side waited for a CPU while runnable
 * (/proc/thread-self/schedstat) is printed too: lines printed at boundary +
 * grace with agents missing on a busy machine say "starved", not "slow",
 * when that wait is large. The last line is "RESULT key=value ..." for
 * tests/bench/coordinator-merge.
 *
 * Simplifications: every agent sends STATS(k) at the same instant (the
 * boundary; the burst is the worst case for the line's delay), agents send
 * no clock PINGs of their own, the run id stays "" and there is no PLAN
 * phase (each agent's connections are set to 16 directly, as co_plan splits
 * --threads=16N; no READY: the lead's baseline sample is set as READY would
 * set it).
 *
 * Usage: coordinator_merge [--agents=N] [--intervals=K] [--samples=MIN:MAX]
 *                          [--hdr-log] [--seed=S]
 *   --samples: transactions per agent-interval, uniform in MIN..MAX
 *   (default 1000:20000).
 *   --hdr-log keeps every agent's histogram per interval, as stampede does
 *   with --hdr-log=FILE (co_merge_new's keep_agent_hists). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "co_args.h"
#include "co_fleet.h"
#include "co_merge.h"
#include "co_report.h"
#include "co_result.h"
#include "co_run_int.h"
#include "pr_hist.h"
#include "pr_msg.h"
#include "pr_msg_lat.h"
#include "pr_split.h"

#define INTERVAL_MS       1000
#define THREADS_PER_AGENT 16
#define MAX_INTERVALS     10000
#define MAX_AGENTS        10000
#define JOIN_TIMEOUT_S    300
#define SEQ_MARK          0xA5A5A5A5A5A5A5A5ull /* placeholder patched at send time */
#define K_MARK            0xA6A6A6A6A6A6A6A6ull /* --interval-ms: k patched at send time too */
#define LONG_POOL         20   /* --interval-ms: distinct STATS per agent, sent in turn */
#define LONG_FIRST_K      100  /* --interval-ms: RSS growth counted from this interval */
#define LONG_STEP_K       1000 /* ... per this many */
#define LONG_SAMPLE_K     100  /* --interval-ms: memory and backlog sampled every this many */
#define LONG_SAMPLES      (MAX_INTERVALS / LONG_SAMPLE_K + 2)
#define QUIET_BACKLOG     5 /* STATS queued: "no backlog" for a quiet sample */
#define EZ_LEN            (1u << 16)
#define SIGMA             0.5 /* log-normal shape */
#define TAIL_PER_MILLE    5   /* samples multiplied by 3..30: lock waits, flushes */
#define MICRO_STATS       64

/* ---- shared: the latency generator and STATS encoding ---- */

static double ez[EZ_LEN];           /* exp(SIGMA * z), z standard normal */
static uint64_t min_samples = 1000; /* per agent-interval, --samples=MIN:MAX */
static uint64_t max_samples = 20000;
/* --interval-ms (long-run mode, 0: off): intervals of this length, STATS
 * from a pool of LONG_POOL per agent with k patched in (5,000 intervals of
 * 100 agents cannot be encoded in advance), no server sample, and closed
 * intervals released as stampede releases them (co__live_release), so the
 * RSS growth per LONG_STEP_K intervals is what a long run costs. */
static uint32_t long_ivl_ms;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_next(uint64_t *s)
{
    return mix64(*s += 0x9e3779b97f4a7c15ull);
}

static double rng_unit(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static void gen_init(uint64_t seed)
{
    uint64_t s = seed ^ 0x5bd1e995ull;
    for (uint32_t i = 0; i < EZ_LEN; i++) {
        double z = sqrt(-2.0 * log(rng_unit(&s))) * cos(6.283185307179586 * rng_unit(&s));
        ez[i] = exp(SIGMA * z);
    }
}

/* Agent a's median latency, log-uniform in 2..20 ms, fixed for the run. */
static double agent_median_us(uint64_t seed, uint32_t agent)
{
    uint64_t s = seed ^ mix64(agent + 1u);
    return 2000.0 * pow(10.0, rng_unit(&s));
}

/* Agent a's interval k: min..max_samples transactions whose latencies are
 * log-normal around the agent's median (sigma SIGMA), 0.5% of them x3..x30;
 * counters as oltp_read_write (14 reads, 4 writes, 2 other per transaction). */
static void gen_interval(uint64_t seed, uint32_t agent, uint64_t k, pr_hist *h,
                         struct pr_counters *c)
{
    uint64_t s = seed ^ mix64(((uint64_t)agent << 32) ^ (k + 0x1234567ull));
    double med = agent_median_us(seed, agent);
    uint64_t n = min_samples + rng_next(&s) % (max_samples - min_samples + 1);

    pr_hist_reset(h);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        double v = med * ez[r & (EZ_LEN - 1)];
        if ((r >> 32) % 1000 < TAIL_PER_MILLE)
            v *= 3.0 + (double)((r >> 48) % 28);
        pr_hist_record(h, (uint64_t)v, 1);
    }
    memset(c, 0, sizeof(*c));
    c->transactions = n;
    c->reads = 14 * n;
    c->writes = 4 * n;
    c->other = 2 * n;
    c->errors = rng_next(&s) % 3;
}

static const char *const srv_names[] = {
    "Questions",
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
    "Com_stmt_execute",
    "Com_stmt_prepare",
    "Threads_running",
    "Threads_connected",
    "Innodb_rows_read",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
};
#define N_SRV (sizeof(srv_names) / sizeof(srv_names[0]))
/* Kinds in every STATS: 11, oltp_read_write's statement kinds
 * (pr_sb_schema.h), unless --kinds=N (the tpcc family declares 13). */
static uint32_t n_kinds = 11;

/* Encode STATS(k) with SEQ_MARK as seq into sb; *seq_off is the offset of
 * the 8 seq bytes (big endian, after msgpack's 0xcf). lead: the agent also
 * sends the server sample, as the lead agent does. 0 or a negative code. */
static int encode_stats(uint64_t k, const pr_hist *h, const struct pr_counters *c, bool lead,
                        msgpack_sbuffer *sb, size_t *seq_off, size_t *k_off)
{
    struct pr_msg m;
    struct pr_msg_stat srv[N_SRV];
    struct pr_error err = {0};

    pr_msg_init(&m, PR_MSG_STATS, NULL, SEQ_MARK);
    m.u.stats.k = long_ivl_ms ? K_MARK : k;
    m.u.stats.ctr = *c;
    m.u.stats.lat = (pr_hist *)h;
    m.u.stats.cpu_pct = 20.0 + (double)(c->transactions % 60);
    m.u.stats.lag_max_us = 200 + c->transactions % 900;
    m.u.stats.lag_p99_us = 100 + c->transactions % 300;
    /* The 11 kinds of oltp_read_write in every STATS, as a sysbench agent
     * sends them (READY.kinds order): the interval's samples dealt over
     * them bucket by bucket. */
    struct pr_msg_kstat kst[PR_MSG_MAX_KINDS];
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    for (uint32_t i = 0; i < n_kinds; i++)
        kst[i] = (struct pr_msg_kstat){.count = 0, .errors = 0, .lat = pr_hist_new()};
    for (int b = 0; pr_hist_next(h, &it); b++) {
        struct pr_msg_kstat *kk = &kst[(uint32_t)b % n_kinds];
        pr_hist_record(kk->lat, it.value_us, it.count);
        kk->count += it.count;
    }
    m.u.stats.kst = kst;
    m.u.stats.n_kst = n_kinds;
    if (lead) {
        for (size_t i = 0; i < N_SRV; i++)
            srv[i] = (struct pr_msg_stat){(char *)srv_names[i], 1000000 * (k + 1) + i};
        m.u.stats.srv = srv;
        m.u.stats.n_srv = (uint32_t)N_SRV;
    }
    int rc = pr_msg_encode(&m, sb, &err);
    for (uint32_t i = 0; i < n_kinds; i++)
        pr_hist_destroy(&kst[i].lat);
    if (rc != 0) {
        fprintf(stderr, "coordinator_merge: cannot encode STATS: %s\n", err.msg);
        return rc;
    }
    static const uint8_t mark[9] = {0xcf, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5, 0xa5};
    const uint8_t *p = memmem(sb->data, sb->size, mark, sizeof(mark));
    if (p == NULL || memmem(p + 1, sb->size - (size_t)(p + 1 - (uint8_t *)sb->data), mark,
                            sizeof(mark)) != NULL) {
        fprintf(stderr, "coordinator_merge: seq placeholder not found exactly once\n");
        return PR_EINVAL;
    }
    *seq_off = (size_t)(p - (const uint8_t *)sb->data) + 1;
    if (long_ivl_ms) {
        static const uint8_t kmark[9] = {0xcf, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6};
        p = memmem(sb->data, sb->size, kmark, sizeof(kmark));
        if (p == NULL) {
            fprintf(stderr, "coordinator_merge: k placeholder not found\n");
            return PR_EINVAL;
        }
        *k_off = (size_t)(p - (const uint8_t *)sb->data) + 1;
    }
    return 0;
}

static void patch_seq(uint8_t *buf, size_t off, uint64_t seq)
{
    for (int i = 7; i >= 0; i--, seq >>= 8)
        buf[off + (size_t)i] = (uint8_t)seq;
}

static uint64_t mono_ns(void)
{
    return co_fleet_now_ns();
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time this thread spent waiting for a CPU while runnable (ns), from
 * /proc/thread-self/schedstat; 0 when unknown. Tells a starved run (busy
 * machine) from a slow coordinator. */
static uint64_t runqueue_wait_ns(void)
{
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    fclose(f);
    return wait;
}

/* What the simulator tells the coordinator side at the end (one pipe write). */
struct sim_report {
    int ok;              /* 1: the simulator ran to the end */
    char why[256];       /* when not ok */
    uint32_t intervals;  /* K */
    double gen_s;        /* wall time spent generating and encoding */
    double samples_mean; /* per agent-interval */
    double buckets_mean; /* occupied histogram buckets per agent-interval */
    uint32_t buckets_min, buckets_max;
    double bytes_mean; /* encoded STATS size */
    uint32_t bytes_max;
    uint64_t sent_window;                   /* non-STATS messages sent in (t0, t0 + K*I] */
    uint64_t recv_window;                   /* messages received in (t0, t0 + K*I] */
    uint64_t stats_sent;                    /* STATS messages sent in all */
    uint64_t window_cpu_ns;                 /* simulator main thread CPU in the window */
    uint64_t window_wait_ns;                /* ... and its wait for a CPU */
    uint64_t late_sends;                    /* STATS bursts begun > 50 ms after their boundary */
    uint32_t send_lag_us[MAX_INTERVALS];    /* per interval: its burst began this long after
                                               its boundary (the simulated agents' lateness) */
    uint64_t expect_tx[MAX_INTERVALS];      /* per interval: transactions sent */
    uint64_t expect_samples[MAX_INTERVALS]; /* per interval: histogram samples sent */
};

/* Shared with the simulator (MAP_SHARED before the fork): STATS sent so
 * far, read live by the coordinator side to tell a receive backlog (sent,
 * not yet handled) from memory that stays. */
struct sim_live {
    _Atomic uint64_t stats_sent;
};
static struct sim_live *sim_live;

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
    if (zmq_send(s->ag[i].sock, data, size, ZMQ_DONTWAIT) >= 0 && count && in_window(s, mono_ns()))
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
    m.u.heartbeat.clock_ns = mono_ns();
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
        m.u.pong.peer_clock_ns = mono_ns();
        sim_send_msg(s, i, &m);
        break;
    case PR_MSG_START:
        if (s->t0_ns == 0) { /* same machine: the coordinator's clock is ours */
            s->t0_ns = in->u.start.t0_ns;
            s->ivl_ns = (uint64_t)in->u.start.interval_ms * 1000000u;
            s->cpu0 = thread_cpu_ns();
            s->wait0 = runqueue_wait_ns();
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
        if (in_window(s, mono_ns()))
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
        struct sim_stats *st = &s->st[(long_ivl_ms ? k % LONG_POOL : k) * s->n + i];
        patch_seq(st->data, st->seq_off, ++s->ag[i].seq);
        if (long_ivl_ms)
            patch_seq(st->data, st->k_off, k);
        sim_send(s, i, st->data, st->size, false);
        s->rep->stats_sent++;
        atomic_fetch_add(&sim_live->stats_sent, 1);
    }
}

/* Generate and encode every agent's STATS for every interval. */
static int sim_prepare(struct sim *s)
{
    struct sim_report *rep = s->rep;
    pr_hist *h = pr_hist_new();
    struct pr_counters c;
    uint64_t t = mono_ns(), samples = 0, buckets = 0, bytes = 0;
    int rc = 0;

    rep->buckets_min = UINT32_MAX;
    uint64_t pool = long_ivl_ms && s->k_count > LONG_POOL ? LONG_POOL : s->k_count;
    for (uint64_t k = 0; k < pool && rc == 0; k++) {
        for (uint32_t i = 0; i < s->n && rc == 0; i++) {
            msgpack_sbuffer sb;
            struct pr_hist_iter it = PR_HIST_ITER_INIT;
            uint32_t nb = 0;
            gen_interval(s->seed, i, k, h, &c);
            while (pr_hist_next(h, &it))
                nb++;
            msgpack_sbuffer_init(&sb);
            struct sim_stats *st = &s->st[k * s->n + i];
            /* The lead's server sample in --long too (what srvstat and
             * srv_qps keep per interval is part of the memory measured);
             * there the pool repeats, so its counters step back at each
             * wrap and its figures are not checked. */
            rc = encode_stats(k, h, &c, i == 0, &sb, &st->seq_off, &st->k_off);
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
    rep->gen_s = (double)(mono_ns() - t) / 1e9;
    pr_hist_destroy(&h);
    return rc;
}

static void sim_loop(struct sim *s)
{
    uint64_t now = mono_ns(), next_beat = now + 1000000000u;
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
                s->rep->window_cpu_ns = thread_cpu_ns() - s->cpu0;
                s->rep->window_wait_ns = runqueue_wait_ns() - s->wait0;
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
        now = mono_ns();
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
static int sim_main(uint32_t n, uint32_t k_count, uint64_t seed, const char *endpoint, int wfd)
{
    struct sim s = {.n = n, .k_count = k_count, .seed = seed};
    s.rep = pr_xcalloc(1, sizeof(*s.rep));
    s.rep->intervals = k_count;
    s.ag = pr_xcalloc(n, sizeof(*s.ag));
    s.st = pr_xcalloc((size_t)n * (long_ivl_ms && k_count > LONG_POOL ? LONG_POOL : k_count),
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

/* ---- the coordinator side: co_run's state (co_run_int.h), co_live's code ---- */

struct sections { /* thread CPU over the run, ns */
    uint64_t next, handle, clear, flush;
    uint64_t loops;
};

struct coord {
    uint32_t n, k_count;
    bool keep_hists;      /* --hdr-log given: co_merge keeps per-agent histograms */
    struct co_args args;  /* co_args_parse of a stampede run command line */
    struct co_result res; /* zeroed but for agents[] (threads, done at the end) */
    struct run r;         /* co_run's run state: what co__live_* read and write */
    char *out_buf;        /* r.out: the interval lines, in memory */
    size_t out_len;
    size_t out_seen; /* bytes of out_buf whose lines are counted */
    /* measurements */
    uint32_t printed, lost, refused, stats_events;
    uint64_t cpu_thread[MAX_INTERVALS + 1]; /* [0] at START, [k + 1] after line k's flush */
    uint64_t cpu_proc[MAX_INTERVALS + 1];
    uint64_t wall[MAX_INTERVALS + 1];
    uint32_t reporting_at_print[MAX_INTERVALS]; /* agents merged when line k was printed */
    uint32_t stats_at[MAX_INTERVALS + 1];       /* STATS handled: [0] at START, [k + 1] at line k */
    double idle_next_us; /* co_fleet_next(timeout 0) with nothing to read, N peers */
    uint64_t wait_ns;    /* coordinator thread's runqueue wait over the intervals */
    size_t heap_join;    /* malloc'ed bytes in use (all arenas) after the join */
    size_t heap_end;     /* ... after the last line */
    struct sections sec;
    char load_start[48], load_end[48]; /* /proc/loadavg at START and at the last line */
    /* --interval-ms: sampled at every LONG_SAMPLE_K lines printed */
    struct long_sample {
        uint32_t k;             /* lines printed */
        long rss_kb;            /* RSS */
        size_t heap_used;       /* mallinfo2: malloc'ed and in use, all arenas */
        size_t heap_sys;        /* ... and obtained from the system (arenas + mmapped) */
        uint64_t live_max;      /* intervals held by co_merge (not released), max since the
                                   previous sample */
        uint64_t backlog_max;   /* STATS sent by the simulator and not yet handled, max */
        double recv_lag_max_ms; /* a STATS handled this long after its interval's boundary */
        double recv_lag_sum_ms; /* ... summed, for the mean */
        uint64_t recv_n;
        uint32_t complete;    /* lines complete when printed */
        uint64_t backlog_now; /* STATS queued when RSS and heap were read */
        size_t acc_bytes;     /* the agents' own latency accumulators (agent.lat_acc) then */
        /* The same read again at the first loop turn after the mark with
         * at most QUIET_BACKLOG STATS queued (0 k: none came before the
         * next mark): what the run holds, without a queue in it. */
        uint32_t quiet_k;
        long quiet_rss_kb;
        size_t quiet_heap_used;
    } ls[LONG_SAMPLES];
    uint32_t n_ls;          /* samples taken */
    struct long_sample cur; /* the maxima and sums since the last sample */
    uint64_t first_live;    /* lowest interval not released (co_merge_is_released) */
};

/* The lead's READY sample, as the simulator's counters stand before
 * interval 0 (its STATS(k) say 1000000 * (k + 1) + i): the server QPS of
 * every interval is then 10^6, checked at the end. */
static void lead_baseline(struct run *r)
{
    struct pr_msg_stat srv[N_SRV];
    for (size_t i = 0; i < N_SRV; i++)
        srv[i] = (struct pr_msg_stat){(char *)srv_names[i], i};
    co__live_baseline(r, srv, (uint32_t)N_SRV);
}

/* co_args_parse of "stampede oltp_read_write run --agents=N --threads=16N
 * --report-interval=1 --time=K --listen=ENDPOINT --plaintext [--hdr-log=
 * /dev/null]" (the bench never writes the log: co_output is not called). */
static int make_args(struct coord *c, const char *endpoint)
{
    char agents[32], threads[32], time_s[32], listen[160];
    char prog[] = "stampede", wl[] = "oltp_read_write", cmd[] = "run";
    char ri[] = "--report-interval=1", plain[] = "--plaintext", hdr[] = "--hdr-log=/dev/null";
    struct pr_error err = {0};

    snprintf(agents, sizeof(agents), "--agents=%u", c->n);
    snprintf(threads, sizeof(threads), "--threads=%u", c->n * THREADS_PER_AGENT);
    snprintf(time_s, sizeof(time_s), "--time=%u", c->k_count);
    snprintf(listen, sizeof(listen), "--listen=%s", endpoint);
    char *argv[] = {prog, wl, cmd, agents, threads, ri, time_s, listen, plain, hdr, NULL};
    if (co_args_parse(&c->args, c->keep_hists ? 10 : 9, argv, NULL, &err) != 0) {
        fprintf(stderr, "coordinator_merge: co_args_parse: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* as co_run.c's agent_of_peer (static there): linear scan */
static int agent_of_peer(const struct run *r, int peer)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].peer == peer)
            return (int)i;
    return -1;
}

/* as co_run.c's handle_event (static there), for the events this bench
 * sees: STATS go to co__live_stats, a lost agent to co_merge_agent_lost.
 * Also notes how many agents interval k holds while its line is not
 * printed yet (co__live_flush does not merge: the count at the flush that
 * prints it is the last one noted). */
static void handle_event(struct coord *c, struct co_fleet_event *ev)
{
    struct run *r = &c->r;
    int i = ev->peer >= 0 ? agent_of_peer(r, ev->peer) : -1;

    if (ev->type == CO_FLEET_REFUSED) {
        c->refused++;
        fprintf(stderr, "coordinator_merge: %s\n", ev->text);
        return;
    }
    if (i < 0)
        return;
    if (ev->type == CO_FLEET_LOST || ev->type == CO_FLEET_BYE) {
        if (!r->agents[i].lost) {
            r->agents[i].lost = true;
            c->lost++;
            co_merge_agent_lost(r->merge, (uint32_t)i);
            fprintf(stderr, "coordinator_merge: agent %d lost\n", i);
        }
    } else if (ev->type == CO_FLEET_MSG && ev->msg.type == PR_MSG_STATS) {
        uint64_t k = ev->msg.u.stats.k;
        c->stats_events++;
        if (long_ivl_ms) { /* how late the agent is, seen from here */
            uint64_t due = r->t0_ns + (k + 1) * (uint64_t)r->interval_ms * 1000000u;
            uint64_t now = co_fleet_now_ns();
            double ms = now > due ? (double)(now - due) / 1e6 : 0.0;
            c->cur.recv_lag_max_ms = ms > c->cur.recv_lag_max_ms ? ms : c->cur.recv_lag_max_ms;
            c->cur.recv_lag_sum_ms += ms;
            c->cur.recv_n++;
        }
        co__live_stats(r, (uint32_t)i, &ev->msg.u.stats);
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        if (k < MAX_INTERVALS && k >= c->printed && iv != NULL)
            c->reporting_at_print[k] = iv->agents_reporting;
    }
}

/* Lines co__live_flush printed since the last call (each is fflush'ed):
 * CPU and wall clock noted for each, after the whole call. */
static void count_lines(struct coord *c)
{
    uint64_t cpu = 0, proc = 0, wall = 0;
    for (; c->out_seen < c->out_len; c->out_seen++) {
        if (c->out_buf[c->out_seen] != '\n' || c->printed >= c->k_count)
            continue;
        if (cpu == 0) {
            cpu = thread_cpu_ns();
            proc = process_cpu_ns();
            wall = co_fleet_now_ns();
        }
        c->printed++;
        c->cpu_thread[c->printed] = cpu;
        c->cpu_proc[c->printed] = proc;
        c->wall[c->printed] = wall;
        c->stats_at[c->printed] = c->stats_events;
    }
}

/* The 1, 5 and 15 minute load averages, as /proc/loadavg says them. */
static void loadavg(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, d;
    if (f != NULL && fscanf(f, "%lf %lf %lf", &a, &b, &d) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, d);
    if (f != NULL)
        fclose(f);
}

static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Wait for every agent and its clock pings, as co_run's gather. */
static int gather(struct coord *c, uint64_t *join_cpu_ns, double *join_s)
{
    uint64_t t = mono_ns(), cpu = thread_cpu_ns();
    uint64_t deadline = t + (uint64_t)JOIN_TIMEOUT_S * 1000000000u;
    struct co_fleet_event ev;

    for (;;) {
        size_t have = co_fleet_count(c->r.fleet);
        bool clocks = have >= c->n;
        for (size_t i = 0; clocks && i < have; i++)
            clocks = co_fleet_peer(c->r.fleet, (int)i)->pongs >= CO_FLEET_PINGS / 2;
        if (clocks)
            break;
        if (mono_ns() > deadline) {
            fprintf(stderr, "coordinator_merge: only %zu of %u agents joined in %d s\n", have, c->n,
                    JOIN_TIMEOUT_S);
            return -1;
        }
        co_fleet_next(c->r.fleet, &ev, 100);
        if (ev.type == CO_FLEET_REFUSED || ev.type == CO_FLEET_LOST)
            fprintf(stderr, "coordinator_merge: during join: %s\n",
                    ev.type == CO_FLEET_REFUSED ? ev.text : "an agent was lost");
        co_fleet_event_clear(&ev);
    }
    *join_cpu_ns = thread_cpu_ns() - cpu;
    *join_s = (double)(mono_ns() - t) / 1e9;
    return 0;
}

/* The run state as co_run's make_plan, init_results, run_phases and
 * send_start leave it (no PLAN phase: every agent has THREADS_PER_AGENT
 * connections, as co_plan splits --threads=16N), the lead's baseline,
 * "Threads started!", then START. */
static int start_run(struct coord *c)
{
    struct run *r = &c->r;
    const char **names = pr_xcalloc(c->n, sizeof(*names));
    uint32_t *perm = pr_xcalloc(c->n, sizeof(*perm));
    uint32_t *threads = pr_xcalloc(c->n, sizeof(*threads));
    uint64_t lead_ns = 200000000u; /* co_run's START_LEAD_MS */
    int64_t ri = pr_opts_int(c->args.opts, "report-interval");

    for (uint32_t i = 0; i < c->n; i++)
        names[i] = co_fleet_peer(r->fleet, (int)i)->name;
    int rc = pr_split_order(names, c->n, perm);
    r->n = c->n;
    r->agents = pr_xcalloc(c->n, sizeof(*r->agents));
    c->res.n_agents = c->n;
    c->res.agents = pr_xcalloc(c->n + 1, sizeof(*c->res.agents));
    for (uint32_t i = 0; i < c->n; i++) {
        r->agents[i].peer = (int)perm[i];
        r->agents[i].in_phase = r->agents[i].ready = true;
        c->res.agents[i].threads = threads[i] = THREADS_PER_AGENT;
        uint64_t rtt = co_fleet_peer(r->fleet, r->agents[i].peer)->rtt_ns;
        if (2 * rtt + 50000000u > lead_ns)
            lead_ns = 2 * rtt + 50000000u;
    }
    free(names);
    free(perm);
    r->interval_ms = ri > 0 ? (uint32_t)ri * 1000u : 1000u; /* co_run's interval_ms_of */
    /* The per-interval figures below read every interval after the run:
     * keep them in co_merge (stampede releases them: --interval-ms does). */
    r->keep_closed = long_ivl_ms == 0;
    if (long_ivl_ms)
        r->interval_ms = long_ivl_ms;
    else if (rc != 0 || r->interval_ms != INTERVAL_MS)
        rc = rc ? rc : PR_EINVAL;
    if (rc != 0) {
        free(threads);
        fprintf(stderr, "coordinator_merge: %s\n",
                rc ? pr_strerror(rc) : "the interval is not INTERVAL_MS");
        return -1;
    }
    r->merge = co_merge_new(c->n, threads, r->interval_ms, c->args.hdr_log_path != NULL);
    free(threads);
    lead_baseline(r);
    co_report_started(r->out);
    fflush(r->out);
    c->out_seen = c->out_len;
    r->t0_ns = r->first_t0_ns = co_fleet_now_ns() + lead_ns;
    c->cpu_thread[0] = thread_cpu_ns();
    c->cpu_proc[0] = process_cpu_ns();
    c->wait_ns = runqueue_wait_ns();
    c->wall[0] = co_fleet_now_ns();
    loadavg(c->load_start, sizeof(c->load_start));
    for (uint32_t i = 0; i < c->n; i++) {
        struct pr_msg m;
        pr_msg_init(&m, PR_MSG_START, NULL, 0);
        m.u.start.t0_ns = r->t0_ns;
        m.u.start.interval_ms = r->interval_ms;
        co_fleet_send(r->fleet, r->agents[i].peer, &m);
    }
    return 0;
}

static long rss_kb(void);

/* --interval-ms, after each loop turn: the live window and the backlog
 * (maxima since the last sample); every LONG_SAMPLE_K lines RSS and the
 * heap (mallinfo2) too. Sampled whatever the state, so that a run that
 * falls behind shows its backlog next to its memory: memory that grows
 * with the backlog is load, memory that grows with none is kept. The
 * lines in memory are dropped (a long run's stdout is not the
 * coordinator's memory). */
static void long_sample(struct coord *c)
{
    struct long_sample *cur = &c->cur;
    while (co_merge_is_released(c->r.merge, c->first_live))
        c->first_live++;
    uint64_t count = co_merge_count(c->r.merge);
    uint64_t live = count > c->first_live ? count - c->first_live : 0;
    uint64_t sent = atomic_load(&sim_live->stats_sent);
    uint64_t backlog = sent > c->stats_events ? sent - c->stats_events : 0;
    cur->live_max = live > cur->live_max ? live : cur->live_max;
    cur->backlog_max = backlog > cur->backlog_max ? backlog : cur->backlog_max;
    struct long_sample *last = c->n_ls ? &c->ls[c->n_ls - 1] : NULL;
    if (last && last->quiet_k == 0 && backlog <= QUIET_BACKLOG) {
        struct mallinfo2 mi = mallinfo2();
        last->quiet_k = c->printed;
        last->quiet_rss_kb = rss_kb();
        last->quiet_heap_used = mi.uordblks + mi.hblkhd;
    }
    if (c->printed >= (c->n_ls + 1) * LONG_SAMPLE_K && c->n_ls < LONG_SAMPLES) {
        struct mallinfo2 mi = mallinfo2();
        cur->backlog_now = backlog;
        for (uint32_t i = 0; i < c->n; i++)
            cur->acc_bytes +=
                c->r.agents[i].lat_acc ? pr_hist_frozen_size(c->r.agents[i].lat_acc) : 0;
        cur->k = c->printed;
        cur->rss_kb = rss_kb();
        cur->heap_used = mi.uordblks + mi.hblkhd;
        cur->heap_sys = mi.arena + mi.hblkhd;
        for (uint32_t k = c->n_ls ? c->ls[c->n_ls - 1].k : 0; k < c->printed; k++)
            cur->complete += c->reporting_at_print[k] == c->n;
        c->ls[c->n_ls++] = *cur;
        memset(cur, 0, sizeof(*cur));
    }
    fflush(c->r.out);
    fseek(c->r.out, 0, SEEK_SET);
    c->out_seen = 0;
    c->out_len = 0;
}

/* as co_run.c's drive_phase loop (co_fleet_next, handle_event,
 * co_fleet_event_clear, co__live_flush), with each part timed */
static void drive(struct coord *c)
{
    struct co_fleet_event ev;
    uint64_t deadline =
        c->r.t0_ns + (uint64_t)(c->k_count + 10) * c->r.interval_ms * 1000000u + 10000000000u;

    while (c->printed < c->k_count && co_fleet_now_ns() < deadline) {
        uint64_t a = thread_cpu_ns();
        co_fleet_next(c->r.fleet, &ev, 50);
        uint64_t b = thread_cpu_ns();
        handle_event(c, &ev);
        uint64_t d = thread_cpu_ns();
        co_fleet_event_clear(&ev);
        uint64_t e = thread_cpu_ns();
        co__live_flush(&c->r, false);
        uint64_t f = thread_cpu_ns();
        count_lines(c);
        if (long_ivl_ms)
            long_sample(c);
        c->sec.next += b - a;
        c->sec.handle += d - b;
        c->sec.clear += e - d;
        c->sec.flush += f - e;
        c->sec.loops++;
    }
}

/* co_fleet_next(timeout 0) with (nearly) nothing to read: what each call
 * costs beyond the messages, with N peers (heartbeat/loss timers scan them
 * all). The simulator's heartbeats may still arrive: calls that got one are
 * left out. */
static void measure_idle_next(struct coord *c)
{
    struct co_fleet_event ev;
    uint64_t total = 0, calls = 0;
    for (int i = 0; i < 5000; i++) {
        uint64_t t = thread_cpu_ns();
        co_fleet_next(c->r.fleet, &ev, 0);
        uint64_t d = thread_cpu_ns() - t;
        if (ev.type == CO_FLEET_NONE && d < 1000000u) {
            total += d;
            calls++;
        }
        handle_event(c, &ev);
        co_fleet_event_clear(&ev);
    }
    c->idle_next_us = calls ? (double)total / 1e3 / (double)calls : 0.0;
}

/* The end of the run as co_run's finish_results does it: the intervals
 * move out of co_merge and the run's latency is their sum
 * (co__live_sum_intervals, every agent having sent DONE). Returns the
 * thread CPU it took (ms); *samples: the run histogram's count. */
static double sum_intervals(struct coord *c, uint64_t *samples)
{
    for (uint32_t i = 0; i < c->n; i++)
        c->res.agents[i].done = true;
    uint64_t t = thread_cpu_ns();
    co_merge_take(c->r.merge, &c->res.intervals, &c->res.n_intervals);
    co__live_sum_intervals(&c->r);
    double ms = (double)(thread_cpu_ns() - t) / 1e6;
    *samples = pr_hist_count(c->res.lat);
    return ms;
}

/* ---- per-STATS costs of the pieces, measured on the same kind of STATS ---- */

struct micro {
    double decode_us, hist_read_us, hist_alloc_us, merge_add_us, live_stats_us, clock_read_us;
    double beat_decode_us;
    double fold_us, fold_old_us; /* the per-agent running sum: pr_hist_frozen_fold, _merge */
};

static double per_op_us(uint64_t t0, uint64_t ops)
{
    return (double)(thread_cpu_ns() - t0) / 1e3 / (double)ops;
}

/* co__live_stats on a run of MICRO_STATS agents, as the bench's run (same
 * args) but without a fleet. */
static double micro_live_stats(const struct coord *c, struct pr_msg *msgs, int reps)
{
    struct co_result res = {0};
    struct run r = {.a = &c->args,
                    .res = &res,
                    .n = MICRO_STATS,
                    .interval_ms = INTERVAL_MS,
                    .keep_closed = true};
    uint32_t threads[MICRO_STATS];

    for (uint32_t i = 0; i < MICRO_STATS; i++)
        threads[i] = THREADS_PER_AGENT;
    res.n_agents = MICRO_STATS;
    res.agents = pr_xcalloc(MICRO_STATS + 1, sizeof(*res.agents));
    r.agents = pr_xcalloc(MICRO_STATS, sizeof(*r.agents));
    r.merge = co_merge_new(MICRO_STATS, threads, INTERVAL_MS, c->keep_hists);
    uint64_t t = thread_cpu_ns();
    for (int k = 0; k < reps; k++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            msgs[i].u.stats.k = (uint64_t)k;
            co__live_stats(&r, i, &msgs[i].u.stats);
        }
    double us = per_op_us(t, (uint64_t)reps * MICRO_STATS);
    co_merge_destroy(&r.merge);
    for (uint32_t i = 0; i < MICRO_STATS; i++)
        pr_hist_frozen_destroy(&r.agents[i].lat_acc);
    pr_hist_destroy(&r.fold_scratch);
    pr_hist_destroy(&r.scratch);
    free(r.agents);
    co__srv_copy(&r.srv0, &r.n_srv0, NULL, 0);
    co__srv_copy(&r.srv_last, &r.n_srv_last, NULL, 0);
    free(r.srv0);
    free(r.srv_last);
    free(r.srv_qps);
    co_result_clear(&res);
    return us;
}

static void micro_bench(const struct coord *c, uint64_t seed, struct micro *mb)
{
    msgpack_sbuffer sb[MICRO_STATS], hb[MICRO_STATS];
    struct pr_msg msgs[MICRO_STATS];
    pr_hist *h = pr_hist_new();
    struct pr_counters ctr;
    size_t off, koff;
    int reps = 20;

    for (uint32_t i = 0; i < MICRO_STATS; i++) {
        msgpack_packer pk;
        msgpack_sbuffer_init(&sb[i]);
        msgpack_sbuffer_init(&hb[i]);
        gen_interval(seed, i + 1, 0, h, &ctr);
        msgpack_packer_init(&pk, &hb[i], msgpack_sbuffer_write);
        if (encode_stats(0, h, &ctr, false, &sb[i], &off, &koff) != 0 || pr_hist_pack(h, &pk) != 0)
            exit(1);
        patch_seq((uint8_t *)sb[i].data, off, 1);
    }
    uint64_t t = thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_msg_decode(&msgs[0], sb[i].data, sb[i].size, NULL);
            pr_msg_clear(&msgs[0]);
        }
    mb->decode_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    /* the "lat" value of those STATS, the bytes pr_msg_decode hands to
     * pr_hist_unpack_raw_frozen, read sparse (and freed) */
    t = thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_hist_frozen *f = NULL;
            if (pr_hist_unpack_raw_frozen(&f, hb[i].data, hb[i].size, NULL) != 0)
                exit(1);
            pr_hist_frozen_destroy(&f);
        }
    mb->hist_read_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    /* the same bytes into a whole histogram, as STATS were decoded before
     * (a 186 KB pr_hist made, filled and freed each time) */
    t = thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            pr_hist *x = pr_hist_new();
            if (pr_hist_unpack_raw(x, hb[i].data, hb[i].size, NULL) != 0)
                exit(1);
            pr_hist_destroy(&x);
        }
    mb->hist_alloc_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);

    for (uint32_t i = 0; i < MICRO_STATS; i++)
        pr_msg_decode(&msgs[i], sb[i].data, sb[i].size, NULL);
    co_merge *m = co_merge_new(MICRO_STATS, NULL, INTERVAL_MS, c->keep_hists);
    t = thread_cpu_ns();
    for (int r = 0; r < reps; r++)
        for (uint32_t i = 0; i < MICRO_STATS; i++) {
            bool late;
            msgs[i].u.stats.k = (uint64_t)r;
            co_merge_add(m, i, &msgs[i].u.stats, &late);
        }
    mb->merge_add_us = per_op_us(t, (uint64_t)reps * MICRO_STATS);
    co_merge_destroy(&m);
    mb->live_stats_us = micro_live_stats(c, msgs, reps);

    /* the per-agent running sum (co__live_stats' fold), each of the 64
     * agents' STATS reps times (each rep its own interval), both ways */
    pr_hist *fs = pr_hist_new();
    for (int way = 0; way < 2; way++) {
        pr_hist_frozen *acc[MICRO_STATS] = {0};
        struct pr_msg one[1];
        t = thread_cpu_ns();
        uint64_t spent = 0;
        for (int r = 0; r < reps; r++) {
            for (uint32_t i = 0; i < MICRO_STATS; i++) {
                gen_interval(seed, i + 1, (uint64_t)r, h, &ctr);
                if (encode_stats((uint64_t)r, h, &ctr, false, &sb[i], &off, &koff) != 0)
                    exit(1);
            }
            for (uint32_t i = 0; i < MICRO_STATS; i++) {
                pr_msg_decode(&one[0], sb[i].data, sb[i].size, NULL);
                uint64_t t1 = thread_cpu_ns();
                if (way == 0)
                    pr_msg_stats_lat_fold_scratch(&acc[i], &one[0].u.stats, fs);
                else
                    pr_msg_stats_lat_fold(&acc[i], &one[0].u.stats);
                spent += thread_cpu_ns() - t1;
                pr_msg_clear(&one[0]);
                msgpack_sbuffer_clear(&sb[i]);
            }
        }
        (void)t;
        *(way == 0 ? &mb->fold_us : &mb->fold_old_us) =
            (double)spent / 1e3 / ((double)reps * MICRO_STATS);
        for (uint32_t i = 0; i < MICRO_STATS; i++)
            pr_hist_frozen_destroy(&acc[i]);
    }
    pr_hist_destroy(&fs);

    t = thread_cpu_ns();
    for (int r = 0; r < 100000; r++)
        (void)thread_cpu_ns();
    mb->clock_read_us = per_op_us(t, 100000);

    msgpack_sbuffer beat_sb;
    struct pr_msg beat;
    msgpack_sbuffer_init(&beat_sb);
    pr_msg_init(&beat, PR_MSG_HEARTBEAT, NULL, 12345);
    beat.u.heartbeat.state = PR_STATE_RUNNING;
    beat.u.heartbeat.clock_ns = mono_ns();
    pr_msg_encode(&beat, &beat_sb, NULL);
    t = thread_cpu_ns();
    for (int r = 0; r < 20000; r++) {
        pr_msg_decode(&beat, beat_sb.data, beat_sb.size, NULL);
        pr_msg_clear(&beat);
    }
    mb->beat_decode_us = per_op_us(t, 20000);
    msgpack_sbuffer_destroy(&beat_sb);

    for (uint32_t i = 0; i < MICRO_STATS; i++) {
        pr_msg_clear(&msgs[i]);
        msgpack_sbuffer_destroy(&sb[i]);
        msgpack_sbuffer_destroy(&hb[i]);
    }
    pr_hist_destroy(&h);
}

/* ---- --ir: the merge alone, for callgrind's instruction counts ---- */

/* Interval k's STATS from the n agents as the run loop handles them
 * (pr_msg_decode, co__live_stats, pr_msg_clear; ZeroMQ and co_fleet's
 * peer lookup left out), then the co__live_flush that prints, closes and
 * releases it (stampede's path: keep_closed false). Not inlined, so that
 * `valgrind --tool=callgrind --toggle-collect=ir_interval` counts exactly
 * this. The clock is set back so that k is due, its line not a tail. */
static __attribute__((noinline)) void ir_interval(struct run *r, const msgpack_sbuffer *sb,
                                                  uint32_t n, uint64_t k, uint32_t *bad)
{
    struct pr_msg m;
    for (uint32_t i = 0; i < n; i++) {
        if (pr_msg_decode(&m, sb[i].data, sb[i].size, NULL) == 0 && m.type == PR_MSG_STATS)
            co__live_stats(r, i, &m.u.stats);
        else
            (*bad)++;
        pr_msg_clear(&m);
    }
    r->t0_ns = co_fleet_now_ns() - ((k + 1) * (uint64_t)r->interval_ms + 100u) * 1000000u;
    co__live_flush(r, false);
}

/* --ir: n agents' STATS for k_count intervals, made here (no simulator, no
 * sockets) and handled by ir_interval; prints the STATS' size and the
 * thread CPU per STATS. The Ir per STATS is callgrind's count of
 * ir_interval divided by the STATS handled (printed). */
static int ir_main(struct coord *c, uint64_t seed)
{
    struct co_result *res = &c->res;
    struct run *r = &c->r;
    uint32_t n = c->n, *threads = pr_xcalloc(n, sizeof(*threads)), bad = 0;
    msgpack_sbuffer *sb = pr_xcalloc(n, sizeof(*sb));
    pr_hist *h = pr_hist_new();
    struct pr_counters ctr;
    size_t off, koff, bytes = 0;
    uint64_t cpu = 0, released = 0;

    if (make_args(c, "ipc:///nonexistent/coordinator-merge-ir") != 0)
        return 1;
    *r = (struct run){.a = &c->args, .res = res, .n = n, .interval_ms = INTERVAL_MS};
    r->out = open_memstream(&c->out_buf, &c->out_len);
    res->n_agents = n;
    res->agents = pr_xcalloc(n + 1, sizeof(*res->agents));
    r->agents = pr_xcalloc(n, sizeof(*r->agents));
    for (uint32_t i = 0; i < n; i++)
        threads[i] = res->agents[i].threads = THREADS_PER_AGENT;
    r->merge = co_merge_new(n, threads, INTERVAL_MS, c->keep_hists);
    lead_baseline(r);
    for (uint32_t i = 0; i < n; i++)
        msgpack_sbuffer_init(&sb[i]);
    for (uint64_t k = 0; k < c->k_count; k++) {
        for (uint32_t i = 0; i < n; i++) {
            msgpack_sbuffer_clear(&sb[i]);
            gen_interval(seed, i + 1, k, h, &ctr);
            if (encode_stats(k, h, &ctr, i == 0, &sb[i], &off, &koff) != 0)
                return 1;
            bytes += sb[i].size;
        }
        uint64_t t = thread_cpu_ns();
        ir_interval(r, sb, n, k, &bad);
        cpu += thread_cpu_ns() - t;
    }
    for (uint64_t k = 0; k < c->k_count; k++)
        released += co_merge_is_released(r->merge, k);
    uint64_t stats = (uint64_t)n * c->k_count;
    printf("coordinator-merge --ir: %u agents x %u intervals = %" PRIu64 " STATS of %.1f KB mean "
           "(%u kinds), %s; %" PRIu64 " of %u intervals released, %u STATS refused\n",
           n, c->k_count, stats, (double)bytes / 1024.0 / (double)stats, n_kinds,
           c->keep_hists ? "per-agent histograms kept (--hdr-log)" : "no --hdr-log", released,
           c->k_count, bad);
    printf("  decode + co__live_stats + clear, and each interval's flush and release: %.2f us "
           "thread CPU per STATS\n",
           (double)cpu / 1e3 / (double)stats);
    printf("  instructions: valgrind --tool=callgrind --toggle-collect=ir_interval; "
           "Ir / %" PRIu64 " = Ir per STATS\n",
           stats);
    for (uint32_t i = 0; i < n; i++)
        msgpack_sbuffer_destroy(&sb[i]);
    free(sb);
    free(threads);
    pr_hist_destroy(&h);
    return bad == 0 && released == c->k_count ? 0 : 1;
}

/* --ir's run state freed, as main's; returns rc. */
static int ir_cleanup(struct coord *c, int rc)
{
    struct run *r = &c->r;
    co_merge_destroy(&r->merge);
    for (uint32_t i = 0; r->agents && i < r->n; i++)
        pr_hist_frozen_destroy(&r->agents[i].lat_acc);
    pr_hist_destroy(&r->fold_scratch);
    pr_hist_destroy(&r->scratch);
    pr_hist_destroy(&r->tot_lat);
    pr_hist_destroy(&r->tot_svc);
    pr_hist_destroy(&r->cp_lat);
    free(r->agents);
    co__srv_copy(&r->srv0, &r->n_srv0, NULL, 0);
    co__srv_copy(&r->srv_last, &r->n_srv_last, NULL, 0);
    free(r->srv0);
    free(r->srv_last);
    free(r->srv_qps);
    co_result_clear(&c->res);
    co_args_clear(&c->args);
    if (r->out != NULL)
        fclose(r->out);
    free(c->out_buf);
    return rc;
}

/* ---- report ---- */

/* Bytes co_merge holds for interval k's histograms (merged and per agent;
 * an expanded one counts its whole struct). */
static size_t iv_hist_bytes(const struct co_interval_result *iv, uint32_t n_agents)
{
    size_t b = iv->lat != NULL ? (size_t)pr_hist_counts_len() * 8 : 0;
    b += iv->lat_frozen != NULL ? pr_hist_frozen_size(iv->lat_frozen) : 0;
    for (uint32_t a = 0; iv->agent_lat_frozen != NULL && a < n_agents; a++)
        b += iv->agent_lat_frozen[a] != NULL ? pr_hist_frozen_size(iv->agent_lat_frozen[a]) : 0;
    return b;
}

/* Samples merged into iv, expanded or frozen. */
static uint64_t iv_samples(const struct co_interval_result *iv)
{
    return iv->lat != NULL          ? pr_hist_count(iv->lat)
           : iv->lat_frozen != NULL ? pr_hist_frozen_count(iv->lat_frozen)
                                    : 0;
}

static bool read_report(int fd, struct sim_report *rep)
{
    char *p = (char *)rep;
    size_t left = sizeof(*rep);
    while (left > 0) {
        ssize_t r = read(fd, p, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        left -= (size_t)r;
    }
    return true;
}

static const char *last_line(const char *buf, size_t len, size_t *line_len)
{
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    *line_len = len - start;
    return buf + start;
}

/* Interval k was printed with every agent merged, its totals are what the
 * simulator sent, and no STATS came after its line. */
static bool exact_at_print(const struct coord *c, const struct sim_report *rep, uint32_t k)
{
    const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
    return iv && iv->printed && !iv->late && c->reporting_at_print[k] == c->n &&
           iv->ctr.transactions == rep->expect_tx[k] && iv_samples(iv) == rep->expect_samples[k];
}

/* STATS co_merge refused (co__live_stats drops them silently), tail
 * intervals closed without a line, intervals whose server QPS (from the
 * lead's samples) is not the 10^6 the simulator's counters make. */
static void tally(const struct coord *c, uint32_t *rejected, uint32_t *tails, uint32_t *bad_qps)
{
    const struct run *r = &c->r;
    uint32_t accepted = 0;
    uint64_t last_printed = 0;
    for (uint32_t i = 0; i < c->n; i++)
        accepted += co_merge_agent_intervals(r->merge, i);
    *rejected = c->stats_events - accepted;
    for (uint64_t k = 0; k < co_merge_count(r->merge); k++) {
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        if (iv && iv->printed)
            last_printed = k + 1;
    }
    *tails = 0;
    for (uint64_t k = 0; k < last_printed; k++) {
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        *tails += iv == NULL || !iv->printed;
    }
    *bad_qps = 0;
    for (uint32_t k = 0; k < c->printed; k++)
        *bad_qps += co__srv_qps_get(r, k) != 1e6;
}

/* The thread's CPU per STATS handled: over all intervals, and the worst
 * interval's (its CPU over the STATS handled in it). */
static void stats_us(const struct coord *c, double *mean, double *max)
{
    uint64_t cpu = 0, n = 0;
    *max = 0;
    for (uint32_t k = 0; k < c->printed; k++) {
        uint64_t dc = c->cpu_thread[k + 1] - c->cpu_thread[k];
        uint64_t dn = c->stats_at[k + 1] - c->stats_at[k];
        cpu += dc;
        n += dn;
        double us = dn ? (double)dc / 1e3 / (double)dn : 0.0;
        *max = us > *max ? us : *max;
    }
    *mean = n ? (double)cpu / 1e3 / (double)n : 0.0;
}

static void report(struct coord *c, const struct sim_report *rep, const struct micro *mb,
                   uint64_t join_cpu_ns, double join_s, long rss_join_kb, long rss_end_kb,
                   long peak_kb)
{
    uint32_t kk = c->printed, complete = 0, rejected, tails, bad_qps;
    double mean = 0, max = 0, pmean = 0, pmax = 0;

    tally(c, &rejected, &tails, &bad_qps);
    for (uint32_t k = 0; k < kk; k++) {
        double ms = (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]) / 1e6;
        double pms = (double)(c->cpu_proc[k + 1] - c->cpu_proc[k]) / 1e6;
        mean += ms / kk;
        pmean += pms / kk;
        max = ms > max ? ms : max;
        pmax = pms > pmax ? pms : pmax;
        complete += exact_at_print(c, rep, k);
    }
    double span_s = kk ? (double)(c->wall[kk] - c->wall[0]) / 1e9 : 0.0;
    double per_ivl = kk ? 1.0 / kk : 0.0;
    double window_s = (double)kk * INTERVAL_MS / 1000.0;
    double in_s = window_s > 0 ? (double)(rep->sent_window + rep->stats_sent) / window_s : 0.0;
    double out_s = window_s > 0 ? (double)rep->recv_window / window_s : 0.0;

    printf("coordinator-merge: %u agents, %u intervals of %d ms, plain-text ipc, %s\n", c->n, kk,
           INTERVAL_MS, c->keep_hists ? "--hdr-log (per-agent histograms kept)" : "no --hdr-log");
    printf("  STATS per agent-interval: %.0f samples (%" PRIu64 "..%" PRIu64
           "), log-normal median 2..20 ms per agent, "
           "sigma %.1f, %.1f%% tail x3..x30: %.0f occupied buckets (%u..%u), %.1f KB encoded (max "
           "%.1f KB); generated in %.1f s\n",
           rep->samples_mean, min_samples, max_samples, SIGMA, TAIL_PER_MILLE / 10.0,
           rep->buckets_mean, rep->buckets_min, rep->buckets_max, rep->bytes_mean / 1024.0,
           rep->bytes_max / 1024.0, rep->gen_s);
    printf("  coordinator thread CPU per interval: mean %.2f ms, max %.2f ms = %.2f%% (max %.2f%%) "
           "of one core; goal for 1000 agents: < 10%%\n",
           mean, max, mean / INTERVAL_MS * 100.0, max / INTERVAL_MS * 100.0);
    double us_mean = 0, us_max = 0;
    stats_us(c, &us_mean, &us_max);
    printf("  coordinator thread CPU per STATS handled (all of the thread's work, heartbeats "
           "included): mean %.2f us, worst interval %.2f us; load average at START %s, at the "
           "last line %s\n",
           us_mean, us_max, c->load_start, c->load_end);
    printf("  process CPU per interval (with ZeroMQ's I/O thread): mean %.2f ms, max %.2f ms = "
           "%.2f%% of one core\n",
           pmean, pmax, pmean / INTERVAL_MS * 100.0);
    printf("  messages: %.0f/s in (STATS, HEARTBEAT), %.0f/s out (HEARTBEAT) over the %.0f s of "
           "the intervals; %u STATS handled; %u lines over %.2f s wall\n",
           in_s, out_s, window_s, c->stats_events, kk, span_s);
    printf("  intervals complete: %u/%u (every agent merged before the line, totals equal to what "
           "was sent, none late); lost %u, refused %u, STATS co_merge refused %u, tails %u; "
           "server QPS from the lead's samples wrong in %u\n",
           complete, c->k_count, c->lost, c->refused, rejected, tails, bad_qps);
    printf("  waiting for a CPU while runnable (busy machine) per interval: coordinator thread "
           "%.1f ms; simulator thread %.1f ms (its CPU %.1f ms; %" PRIu64 " of %u STATS bursts "
           "began > 50 ms late)\n",
           c->wait_ns / 1e6 * per_ivl, rep->window_wait_ns / 1e6 / c->k_count,
           rep->window_cpu_ns / 1e6 / c->k_count, rep->late_sends, c->k_count);
    size_t hist_bytes = 0;
    for (uint32_t k = 0; k < kk; k++) {
        const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
        hist_bytes += iv ? iv_hist_bytes(iv, c->n) : 0;
    }
    printf("  interval histograms held by co_merge: %.1f KB, %.1f KB per interval\n",
           hist_bytes / 1024.0, kk ? hist_bytes / 1024.0 / kk : 0.0);
    printf("  RSS: %.1f MB after join, %.1f MB at the end, peak %.1f MB; growth %.1f KB per "
           "interval\n",
           rss_join_kb / 1024.0, rss_end_kb / 1024.0, peak_kb / 1024.0,
           kk ? (double)(rss_end_kb - rss_join_kb) / kk : 0.0);
    if (c->heap_end == 0) /* a sanitizer's allocator: mallinfo2 knows nothing */
        printf("  malloc'ed and in use: unknown (not glibc's allocator)\n");
    else
        printf("  malloc'ed and in use (mallinfo2, all arenas): %.1f MB after join, %.1f MB at "
               "the end; growth %.1f KB per interval (RSS growing faster: pages first touched, "
               "or freed but kept by the allocator)\n",
               c->heap_join / 1048576.0, c->heap_end / 1048576.0,
               kk ? ((double)c->heap_end - (double)c->heap_join) / 1024.0 / kk : 0.0);
    printf("  loop sections per interval (thread CPU): co_fleet_next %.2f ms, handle_event -> "
           "co__live_stats %.2f ms, co_fleet_event_clear %.2f ms, co__live_flush %.2f ms (%" PRIu64
           " loop turns; ~%.2f ms of it is the section clocks)\n",
           c->sec.next / 1e6 * per_ivl, c->sec.handle / 1e6 * per_ivl, c->sec.clear / 1e6 * per_ivl,
           c->sec.flush / 1e6 * per_ivl, c->sec.loops,
           (double)c->sec.loops * per_ivl * 5 * mb->clock_read_us / 1e3);
    printf("  per STATS (isolated, %d typical STATS): pr_msg_decode+clear %.1f us (of which "
           "its \"lat\" read sparse %.1f us; read whole, as before, would be %.1f us), "
           "co__live_stats %.1f us (co_merge_add alone %.1f us); x %u agents = %.2f ms per "
           "interval\n",
           MICRO_STATS, mb->decode_us, mb->hist_read_us, mb->hist_alloc_us, mb->live_stats_us,
           mb->merge_add_us, c->n, (mb->decode_us + mb->live_stats_us) * c->n / 1e3);
    double calls = (double)c->sec.loops * per_ivl;
    double n_stats = (double)c->stats_events * per_ivl;
    double n_beats = window_s > 0 ? (double)rep->sent_window / window_s * INTERVAL_MS / 1000.0 : 0;
    double part_stats = mb->decode_us * n_stats / 1e3,
           part_beats = mb->beat_decode_us * n_beats / 1e3;
    double part_calls = c->idle_next_us * calls / 1e3;
    printf("  co_fleet_next per interval, estimated: %.0f STATS decodes %.2f ms + %.0f HEARTBEAT "
           "decodes (%.2f us each) %.2f ms + %.0f calls x %.2f us fixed cost at %u peers "
           "(timers' scan, empty reads) %.2f ms; rest (ZeroMQ recv/send, heartbeats out, peer "
           "lookup) %.2f ms\n",
           n_stats, part_stats, n_beats, mb->beat_decode_us, part_beats, calls, c->idle_next_us,
           c->n, part_calls, c->sec.next / 1e6 * per_ivl - part_stats - part_beats - part_calls);
    printf("  join: %u agents (HELLO + %d clock pings each) in %.2f s wall, %.1f ms coordinator "
           "thread CPU\n",
           c->n, CO_FLEET_PINGS, join_s, join_cpu_ns / 1e6);
    printf("  per agent's running sum (co__live_stats' fold, isolated, %d agents x 20 STATS): "
           "%.2f us per STATS (pr_hist_frozen_fold; pr_hist_frozen_merge, as before: %.2f us)\n",
           MICRO_STATS, mb->fold_us, mb->fold_old_us);
    printf("  per interval: k, thread CPU ms, with I/O thread ms, agents merged when the line was "
           "printed, line printed after the boundary (ms), exact and on time, STATS handled, "
           "thread CPU us per STATS\n");
    for (uint32_t k = 0; k < kk; k++) {
        const struct co_interval_result *iv = co_merge_get(c->r.merge, k);
        int64_t delay =
            (int64_t)c->wall[k + 1] - (int64_t)(c->r.t0_ns + (k + 1) * INTERVAL_MS * 1000000ull);
        uint64_t dn = c->stats_at[k + 1] - c->stats_at[k];
        double dc = (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]);
        printf("    %3u %9.2f %9.2f %6u %8.1f  %-16s %6" PRIu64 " %7.2f\n", k,
               (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]) / 1e6,
               (double)(c->cpu_proc[k + 1] - c->cpu_proc[k]) / 1e6, c->reporting_at_print[k],
               (double)delay / 1e6,
               exact_at_print(c, rep, k) ? "yes"
               : iv && iv->late          ? "no (late STATS)"
                                         : "no",
               dn, dn ? dc / 1e3 / (double)dn : 0.0);
    }
    size_t ll = 0;
    const char *line = last_line(c->out_buf, c->out_len, &ll);
    printf("  last interval line: %.*s\n", (int)ll, line);
}

/* The run's end (sum_intervals) and the "RESULT key=value ..." line. */
static void result_line(struct coord *c, const struct sim_report *rep, const struct micro *mb,
                        long rss_join_kb, long rss_end_kb, long peak_kb)
{
    uint32_t kk = c->printed, complete = 0;
    double mean = 0, max = 0, pmean = 0;
    uint64_t expect = 0, got = 0;

    for (uint32_t k = 0; k < kk; k++) {
        double ms = (double)(c->cpu_thread[k + 1] - c->cpu_thread[k]) / 1e6;
        mean += ms / kk;
        pmean += (double)(c->cpu_proc[k + 1] - c->cpu_proc[k]) / 1e6 / kk;
        max = ms > max ? ms : max;
        complete += exact_at_print(c, rep, k);
    }
    for (uint32_t k = 0; k < c->k_count; k++)
        expect += rep->expect_samples[k];
    double growth = kk ? (double)(rss_end_kb - rss_join_kb) / kk : 0.0;
    double window_s = (double)kk * INTERVAL_MS / 1000.0;
    double in_s = window_s > 0 ? (double)(rep->sent_window + rep->stats_sent) / window_s : 0.0;
    double out_s = window_s > 0 ? (double)rep->recv_window / window_s : 0.0;
    double sum_ms = sum_intervals(c, &got); /* moves the intervals out of co_merge: last */
    double us_mean = 0, us_max = 0;
    stats_us(c, &us_mean, &us_max);
    printf("  end of run: co_merge_take + co__live_sum_intervals (run latency from %u "
           "intervals) %.2f ms thread CPU; %" PRIu64 " samples, %s what was sent\n",
           c->res.n_intervals, sum_ms, got, got == expect ? "equal to" : "NOT equal to");
    printf(
        "RESULT agents=%u intervals=%u hdr_log=%d cpu_ms_mean=%.2f cpu_ms_max=%.2f "
        "core_pct=%.2f core_pct_max=%.2f proc_core_pct=%.2f msgs_in_s=%.0f msgs_out_s=%.0f "
        "complete=%u/%u peak_rss_mb=%.1f rss_growth_kb=%.1f decode_us=%.1f sum_intervals_ms=%.2f "
        "cpu_wait_ms=%.1f stats_us_mean=%.2f stats_us_max=%.2f fold_us=%.2f\n",
        c->n, kk, c->keep_hists, mean, max, mean / INTERVAL_MS * 100.0, max / INTERVAL_MS * 100.0,
        pmean / INTERVAL_MS * 100.0, in_s, out_s, complete, c->k_count, peak_kb / 1024.0, growth,
        mb->decode_us, sum_ms, kk ? c->wait_ns / 1e6 / kk : 0.0, us_mean, us_max, mb->fold_us);
}

/* The simulated agents' own lateness over intervals [k0, k1): the mean
 * and max delay of their STATS bursts after the boundary, ms. */
static void send_lag(const struct sim_report *rep, uint32_t k0, uint32_t k1, double *mean,
                     double *max)
{
    double sum = 0;
    *max = 0;
    for (uint32_t k = k0; k < k1 && k < MAX_INTERVALS; k++) {
        double ms = rep->send_lag_us[k] / 1e3;
        sum += ms;
        *max = ms > *max ? ms : *max;
    }
    *mean = k1 > k0 ? sum / (k1 - k0) : 0;
}

/* --interval-ms: one row per LONG_STEP_K intervals after the first
 * LONG_FIRST_K (from the samples taken every LONG_SAMPLE_K lines): RSS and
 * its growth, the heap in use and obtained, the most intervals co_merge
 * held, the most STATS queued (sent, not handled), how late the STATS
 * were when handled and when the simulator sent them. Then the growth per
 * LONG_STEP_K, and whether the run kept up. */
static void long_report(const struct coord *c, const struct sim_report *rep, long rss_join_kb,
                        long rss_end_kb, long peak_kb)
{
    uint32_t complete = 0;
    uint64_t kk = c->printed < MAX_INTERVALS ? c->printed : MAX_INTERVALS;
    for (uint64_t k = 0; k < kk; k++)
        complete += c->reporting_at_print[k] == c->n;
    double cpu_ms = kk ? (double)(c->cpu_thread[kk] - c->cpu_thread[0]) / 1e6 / (double)kk : 0;
    printf("coordinator-merge long run: %u agents, %u intervals of %u ms (STATS from a pool of %d "
           "per agent, %.0f samples and %.0f buckets each on average)\n",
           c->n, c->printed, long_ivl_ms, LONG_POOL, rep->samples_mean, rep->buckets_mean);
    printf("  lines printed %u of %u, complete when printed %u; coordinator thread CPU %.3f ms "
           "per interval (%.1f%% of a core); waiting for a CPU %.3f ms per interval\n",
           c->printed, c->k_count, complete, cpu_ms, cpu_ms / long_ivl_ms * 100.0,
           kk ? c->wait_ns / 1e6 / (double)kk : 0.0);
    printf("  RSS: %.1f MB after join, %.1f MB at the end, peak %.1f MB\n", rss_join_kb / 1024.0,
           rss_end_kb / 1024.0, peak_kb / 1024.0);
    printf("  %6s %7s %8s %7s %8s %7s %7s %5s %7s %7s %7s %7s %7s %7s | %6s %7s %8s %7s %8s\n",
           "at k", "RSS MB", "dRSS KB", "heap MB", "dheap KB", "sys MB", "acc KB", "live", "queued",
           "q max", "rcv ms", "rcv max", "snd ms", "snd max", "quiet", "RSS MB", "dRSS KB",
           "heap MB", "dheap KB");
    /* rows: the first sample at or after LONG_FIRST_K + j * LONG_STEP_K */
    int row[LONG_SAMPLES], n_row = 0;
    for (uint32_t i = 0; i < c->n_ls; i++)
        if (c->ls[i].k >= LONG_FIRST_K + (uint32_t)n_row * LONG_STEP_K)
            row[n_row++] = (int)i;
    double worst = 0, worst_heap = 0, q_worst = 0, q_worst_heap = 0;
    uint64_t backlog_all = 0, live_all = 0;
    const struct long_sample *q_first = NULL, *q_prev = NULL, *q_last = NULL;
    for (int j = 0; j < n_row; j++) {
        const struct long_sample *x = &c->ls[row[j]];
        const struct long_sample *p = j ? &c->ls[row[j - 1]] : NULL;
        uint64_t live = 0, backlog = 0, n = 0;
        double lag_max = 0, lag_sum = 0, s_mean, s_max;
        for (int i = j ? row[j - 1] + 1 : 0; i <= row[j]; i++) {
            const struct long_sample *y = &c->ls[i];
            live = y->live_max > live ? y->live_max : live;
            backlog = y->backlog_max > backlog ? y->backlog_max : backlog;
            lag_max = y->recv_lag_max_ms > lag_max ? y->recv_lag_max_ms : lag_max;
            lag_sum += y->recv_lag_sum_ms;
            n += y->recv_n;
        }
        send_lag(rep, p ? p->k : 0, x->k, &s_mean, &s_max);
        double d = p ? (double)(x->rss_kb - p->rss_kb) : 0;
        double dh = p ? ((double)x->heap_used - (double)p->heap_used) / 1024.0 : 0;
        printf("  %6u %7.1f %+8.0f %7.2f %+8.0f %7.1f %7.1f %5" PRIu64 " %7" PRIu64 " %7" PRIu64
               " %7.1f %7.1f %7.1f %7.1f |",
               x->k, x->rss_kb / 1024.0, d, x->heap_used / 1048576.0, dh, x->heap_sys / 1048576.0,
               x->acc_bytes / 1024.0, live, x->backlog_now, backlog, n ? lag_sum / (double)n : 0.0,
               lag_max, s_mean, s_max);
        if (x->quiet_k) {
            double qd = q_prev ? (double)(x->quiet_rss_kb - q_prev->quiet_rss_kb) : 0;
            double qdh =
                q_prev ? ((double)x->quiet_heap_used - (double)q_prev->quiet_heap_used) / 1024.0
                       : 0;
            printf(" %6u %7.1f %+8.0f %7.2f %+8.0f\n", x->quiet_k, x->quiet_rss_kb / 1024.0, qd,
                   x->quiet_heap_used / 1048576.0, qdh);
            if (q_prev) {
                double per_k = (double)LONG_STEP_K / (double)(x->quiet_k - q_prev->quiet_k);
                q_worst = qd * per_k > q_worst ? qd * per_k : q_worst;
                q_worst_heap = qdh * per_k > q_worst_heap ? qdh * per_k : q_worst_heap;
            }
            q_first = q_first ? q_first : x;
            q_prev = q_last = x;
        } else {
            printf(" %6s (never at most %d STATS queued before the next mark)\n", "-",
                   QUIET_BACKLOG);
        }
        if (p == NULL)
            continue;
        double per_k = (double)LONG_STEP_K / (double)(x->k - p->k);
        worst = d * per_k > worst ? d * per_k : worst;
        worst_heap = dh * per_k > worst_heap ? dh * per_k : worst_heap;
        backlog_all = backlog > backlog_all ? backlog : backlog_all;
        live_all = live > live_all ? live : live_all;
    }
    double span = n_row > 1 ? (double)(c->ls[row[n_row - 1]].k - c->ls[row[0]].k) / LONG_STEP_K : 0;
    double per =
        span > 0 ? (double)(c->ls[row[n_row - 1]].rss_kb - c->ls[row[0]].rss_kb) / span : 0;
    double per_heap =
        span > 0 ? ((double)c->ls[row[n_row - 1]].heap_used - (double)c->ls[row[0]].heap_used) /
                       1024.0 / span
                 : 0;
    printf("  (acc: the bytes of the agents' own latency accumulators, co_live's per-agent "
           "lat_acc; live: intervals co_merge held, max; queued: STATS sent by the simulated "
           "agents and "
           "not yet handled, when RSS and heap were read, and q max the most since the row "
           "before; rcv: a STATS's delay after its interval's boundary when handled, mean and "
           "max; snd: the agents' delay in sending it; quiet: the same reads at the first loop "
           "turn after the mark with at most %d STATS queued)\n",
           QUIET_BACKLOG);
    printf("  growth per %d intervals after the first %d: RSS %.0f KB mean, %.0f KB worst; heap "
           "in use %.0f KB mean, %.0f KB worst; most STATS queued %" PRIu64
           " (%.1f intervals' worth), most intervals held %" PRIu64 "\n",
           LONG_STEP_K, LONG_FIRST_K, per, worst, per_heap, worst_heap, backlog_all,
           (double)backlog_all / c->n, live_all);
    double q_span = q_first && q_last != q_first
                        ? (double)(q_last->quiet_k - q_first->quiet_k) / LONG_STEP_K
                        : 0;
    double q_per = q_span > 0 ? (double)(q_last->quiet_rss_kb - q_first->quiet_rss_kb) / q_span : 0;
    double q_per_heap =
        q_span > 0
            ? ((double)q_last->quiet_heap_used - (double)q_first->quiet_heap_used) / 1024.0 / q_span
            : 0;
    if (q_span > 0)
        printf("  without a queue (quiet reads, intervals %u..%u): RSS %.0f KB, heap in use %.0f "
               "KB per %d intervals (worst step %.0f KB, %.0f KB); goal: RSS <= 1024 KB -> %s\n",
               q_first->quiet_k, q_last->quiet_k, q_per, q_per_heap, LONG_STEP_K, q_worst,
               q_worst_heap, q_per <= 1024 ? "met" : "NOT met");
    else
        printf("  no two quiet reads (the queue never drained): the growth above is the "
               "backlog's; use a longer --interval-ms or fewer agents\n");
    printf(
        "RESULT agents=%u intervals=%u interval_ms=%u complete=%u rss_growth_per_1000_kb=%.0f "
        "rss_growth_worst_kb=%.0f heap_growth_per_1000_kb=%.0f quiet_rss_growth_per_1000_kb=%.0f "
        "quiet_heap_growth_per_1000_kb=%.0f backlog_max=%" PRIu64 " live_max=%" PRIu64
        " peak_rss_mb=%.1f\n",
        c->n, c->printed, long_ivl_ms, complete, per, worst, per_heap, q_per, q_per_heap,
        backlog_all, live_all, peak_kb / 1024.0);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: coordinator_merge [--agents=N (1..%d)] [--intervals=K (1..%d)] "
            "[--kinds=N (1..%d)] [--samples=MIN:MAX] [--hdr-log] [--seed=S] "
            "[--interval-ms=MS (10..1000)]\n",
            MAX_AGENTS, MAX_INTERVALS, PR_MSG_MAX_KINDS);
    return 2;
}

static bool parse_uint(const char *arg, const char *name, unsigned long max, unsigned long *v)
{
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || arg[len] != '=')
        return false;
    char *end;
    errno = 0;
    *v = strtoul(arg + len + 1, &end, 10);
    if (errno || *end || end == arg + len + 1 || *v == 0 || *v > max) {
        fprintf(stderr, "coordinator_merge: %s wants an integer in 1..%lu\n", name, max);
        exit(usage());
    }
    return true;
}

/* --samples=MIN:MAX, 1 <= MIN <= MAX <= 10^7 */
static void parse_samples(const char *v)
{
    char *end, *end2 = NULL;
    errno = 0;
    unsigned long lo = strtoul(v, &end, 10);
    unsigned long hi = *end == ':' ? strtoul(end + 1, &end2, 10) : 0;
    if (errno || end == v || *end != ':' || end2 == end + 1 || *end2 || lo == 0 || hi < lo ||
        hi > 10000000) {
        fprintf(stderr, "coordinator_merge: --samples wants MIN:MAX, 1 <= MIN <= MAX <= "
                        "10000000\n");
        exit(usage());
    }
    min_samples = lo;
    max_samples = hi;
}

static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    unsigned long n = 100, k_count = 10, seed = 1;
    bool keep_hists = false, ir = false;
    char endpoint[128], path[96];
    int fds[2];

    for (int i = 1; i < argc; i++) {
        unsigned long v;
        if (parse_uint(argv[i], "--agents", MAX_AGENTS, &v))
            n = v;
        else if (parse_uint(argv[i], "--kinds", PR_MSG_MAX_KINDS, &v) && v >= 1)
            n_kinds = (uint32_t)v;
        else if (strncmp(argv[i], "--kinds=", 8) == 0)
            return usage();
        else if (parse_uint(argv[i], "--intervals", MAX_INTERVALS, &v))
            k_count = v;
        else if (parse_uint(argv[i], "--seed", ULONG_MAX, &v))
            seed = v;
        else if (strncmp(argv[i], "--samples=", 10) == 0)
            parse_samples(argv[i] + 10);
        else if (strcmp(argv[i], "--hdr-log") == 0)
            keep_hists = true;
        else if (strcmp(argv[i], "--ir") == 0)
            ir = true;
        else if (parse_uint(argv[i], "--interval-ms", 1000, &v) && v >= 10)
            long_ivl_ms = (uint32_t)v;
        else if (strncmp(argv[i], "--interval-ms=", 14) == 0)
            return usage();
        else
            return usage();
    }
    raise_fd_limit();
    signal(SIGPIPE, SIG_IGN);
    gen_init(seed);
    if (ir) {
        static struct coord ic; /* large arrays: static */
        ic.n = (uint32_t)n;
        ic.k_count = (uint32_t)k_count;
        ic.keep_hists = keep_hists;
        return ir_cleanup(&ic, ir_main(&ic, seed));
    }
    snprintf(path, sizeof(path), "/tmp/stampede-cmerge-%d.sock", (int)getpid());
    snprintf(endpoint, sizeof(endpoint), "ipc://%s", path);
    if (pipe(fds) != 0) {
        perror("coordinator_merge: pipe");
        return 1;
    }
    sim_live =
        mmap(NULL, sizeof(*sim_live), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sim_live == MAP_FAILED) {
        perror("coordinator_merge: mmap");
        return 1;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("coordinator_merge: fork");
        return 1;
    }
    if (child == 0) { /* the simulator: fresh process, no ZeroMQ context yet */
        close(fds[0]);
        _exit(sim_main((uint32_t)n, (uint32_t)k_count, seed, endpoint, fds[1]));
    }
    close(fds[1]);

    static struct coord c; /* large arrays: static */
    struct pr_error err = {0};
    uint64_t join_cpu = 0;
    double join_s = 0;
    int status = 1;
    c.n = (uint32_t)n;
    c.k_count = (uint32_t)k_count;
    c.keep_hists = keep_hists;
    c.r = (struct run){.a = &c.args, .res = &c.res};
    c.r.out = open_memstream(&c.out_buf, &c.out_len);
    if (make_args(&c, endpoint) == 0) { /* as co_run's open_fleet with --listen --plaintext */
        struct co_fleet_config fc = {.endpoint = c.args.listen, .max_agents = c.args.agents};
        c.r.fleet = co_fleet_new(&fc, &err);
        if (c.r.fleet == NULL)
            fprintf(stderr, "coordinator_merge: %s\n", err.msg);
    }
    if (c.r.fleet != NULL && gather(&c, &join_cpu, &join_s) == 0 && start_run(&c) == 0) {
        long rss_join = rss_kb();
        c.heap_join = mallinfo2().uordblks;
        drive(&c);
        loadavg(c.load_end, sizeof(c.load_end));
        c.wait_ns = runqueue_wait_ns() - c.wait_ns;
        long rss_end = rss_kb(), peak = peak_rss_kb();
        c.heap_end = mallinfo2().uordblks;
        measure_idle_next(&c);
        co_fleet_broadcast_stop(c.r.fleet, "bench over", true);
        struct sim_report *rep = pr_xcalloc(1, sizeof(*rep));
        bool got = read_report(fds[0], rep);
        if (!got || !rep->ok) {
            fprintf(stderr, "coordinator_merge: simulator: %s\n",
                    got ? rep->why : "no report (it died)");
        } else if (long_ivl_ms) {
            long_report(&c, rep, rss_join, rss_end, peak);
            status = 0;
        } else {
            struct micro mb;
            micro_bench(&c, seed, &mb);
            report(&c, rep, &mb, join_cpu, join_s, rss_join, rss_end, peak);
            result_line(&c, rep, &mb, rss_join, rss_end, peak);
            status = 0;
        }
        free(rep);
    }
    if (status != 0)
        kill(child, SIGTERM);
    int ws;
    waitpid(child, &ws, 0);
    close(fds[0]);
    co_fleet_destroy(&c.r.fleet);
    unlink(path);
    co_merge_destroy(&c.r.merge);
    for (uint32_t i = 0; c.r.agents && i < c.r.n; i++)
        pr_hist_frozen_destroy(&c.r.agents[i].lat_acc);
    pr_hist_destroy(&c.r.fold_scratch);
    pr_hist_destroy(&c.r.scratch);
    free(c.r.agents);
    co__srv_copy(&c.r.srv0, &c.r.n_srv0, NULL, 0);
    co__srv_copy(&c.r.srv_last, &c.r.n_srv_last, NULL, 0);
    free(c.r.srv0);
    free(c.r.srv_last);
    free(c.r.srv_qps);
    co_result_clear(&c.res);
    co_args_clear(&c.args);
    fclose(c.r.out);
    free(c.out_buf);
    return status;
}
