/* cm_gen: the latency generator, the STATS encoding, the clocks (cm.h). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "cm.h"
#include "co_fleet.h"

static double ez[EZ_LEN]; /* exp(SIGMA * z), z standard normal */
/* settings: cm.h */
uint64_t cm_min_samples = 1000;
uint64_t cm_max_samples = 20000;
uint32_t cm_long_ivl_ms;
uint32_t cm_ready_rtt_us = 200;

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

void cm_gen_init(uint64_t seed)
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
void cm_gen_interval(uint64_t seed, uint32_t agent, uint64_t k, pr_hist *h, struct pr_counters *c)
{
    uint64_t s = seed ^ mix64(((uint64_t)agent << 32) ^ (k + 0x1234567ull));
    double med = agent_median_us(seed, agent);
    uint64_t n = cm_min_samples + rng_next(&s) % (cm_max_samples - cm_min_samples + 1);

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

const char *const cm_srv_names[N_SRV] = {
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
/* Kinds in every STATS: 11, oltp_read_write's statement kinds
 * (pr_sb_schema.h), unless --kinds=N (the tpcc family declares 13). */
uint32_t cm_n_kinds = 11;

/* Encode STATS(k) with SEQ_MARK as seq into sb; *seq_off is the offset of
 * the 8 seq bytes (big endian, after msgpack's 0xcf). lead: the agent also
 * sends the server sample, as the lead agent does. 0 or a negative code. */
int cm_encode_stats(uint64_t k, const pr_hist *h, const struct pr_counters *c, bool lead,
                    msgpack_sbuffer *sb, size_t *seq_off, size_t *k_off)
{
    struct pr_msg m;
    struct pr_msg_stat srv[N_SRV];
    struct pr_error err = {0};

    pr_msg_init(&m, PR_MSG_STATS, NULL, SEQ_MARK);
    m.u.stats.k = cm_long_ivl_ms ? K_MARK : k;
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
    for (uint32_t i = 0; i < cm_n_kinds; i++)
        kst[i] = (struct pr_msg_kstat){.count = 0, .errors = 0, .lat = pr_hist_new()};
    for (int b = 0; pr_hist_next(h, &it); b++) {
        struct pr_msg_kstat *kk = &kst[(uint32_t)b % cm_n_kinds];
        pr_hist_record(kk->lat, it.value_us, it.count);
        kk->count += it.count;
    }
    m.u.stats.kst = kst;
    m.u.stats.n_kst = cm_n_kinds;
    if (lead) {
        for (size_t i = 0; i < N_SRV; i++)
            srv[i] = (struct pr_msg_stat){(char *)cm_srv_names[i], 1000000 * (k + 1) + i};
        m.u.stats.srv = srv;
        m.u.stats.n_srv = (uint32_t)N_SRV;
    }
    int rc = pr_msg_encode(&m, sb, &err);
    for (uint32_t i = 0; i < cm_n_kinds; i++)
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
    if (cm_long_ivl_ms) {
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

void cm_patch_seq(uint8_t *buf, size_t off, uint64_t seq)
{
    for (int i = 7; i >= 0; i--, seq >>= 8)
        buf[off + (size_t)i] = (uint8_t)seq;
}

uint64_t cm_mono_ns(void)
{
    return co_fleet_now_ns();
}

uint64_t cm_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cm_process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time this thread spent waiting for a CPU while runnable (ns), from
 * /proc/thread-self/schedstat; 0 when unknown. Tells a starved run (busy
 * machine) from a slow coordinator. */
uint64_t cm_runqueue_wait_ns(void)
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

long cm_thread_minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : 0;
}
