/* cm: what the coordinator-merge bench's files share (coordinator_merge.c
 * is the coordinator side and main; cm_gen.c the latency generator, STATS
 * encoding and clocks; cm_sim.c the simulator process; cm_micro.c the
 * per-STATS costs of the pieces; cm_ir.c the --ir mode; cm_report.c what
 * is printed). A bench, not a module: the settings below are globals set
 * once by main before anything runs. */
#ifndef CM_H
#define CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "co_args.h"
#include "co_result.h"
#include "co_run_int.h"
#include "pr_hist.h"
#include "pr_msg.h"

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
#define N_SRV             15 /* the lead's server sample: cm_srv_names */

/* Settings (main, from the command line). */
extern uint64_t cm_min_samples, cm_max_samples; /* per agent-interval, --samples=MIN:MAX */
/* --interval-ms (long-run mode, 0: off): intervals of this length, STATS
 * from a pool of LONG_POOL per agent with k patched in (5,000 intervals of
 * 100 agents cannot be encoded in advance), no server sample, and closed
 * intervals released as stampede releases them (co__live_release), so the
 * RSS growth per LONG_STEP_K intervals is what a long run costs. */
extern uint32_t cm_long_ivl_ms;
/* --ready-rtt-us: the DB round trip each agent's READY reports (co_run
 * then reserves its running sum: co__live_agent_ready); 0 for none, as a
 * --mysql-dry-run agent reports. */
extern uint32_t cm_ready_rtt_us;
/* Kinds in every STATS: 11, oltp_read_write's statement kinds
 * (pr_sb_schema.h), unless --kinds=N (the tpcc family declares 13). */
extern uint32_t cm_n_kinds;
/* The lead's server sample's counter names. */
extern const char *const cm_srv_names[N_SRV];

/* ---- cm_gen.c: the latency generator, STATS encoding, clocks ---- */

/* The generator's table for seed (once, before any cm_gen_interval). */
void cm_gen_init(uint64_t seed);
/* Agent a's interval k: cm_min_samples..cm_max_samples transactions whose
 * latencies are log-normal around the agent's median (sigma SIGMA), 0.5%
 * of them x3..x30, into h (reset first); counters as oltp_read_write. */
void cm_gen_interval(uint64_t seed, uint32_t agent, uint64_t k, pr_hist *h, struct pr_counters *c);
/* Encode STATS(k) with SEQ_MARK as seq into sb; *seq_off is the offset of
 * the 8 seq bytes (big endian, after msgpack's 0xcf), *k_off k's with
 * --interval-ms. lead: the agent also sends the server sample. 0 or a
 * negative code. */
int cm_encode_stats(uint64_t k, const pr_hist *h, const struct pr_counters *c, bool lead,
                    msgpack_sbuffer *sb, size_t *seq_off, size_t *k_off);
/* The 8 big-endian bytes at buf + off become seq. */
void cm_patch_seq(uint8_t *buf, size_t off, uint64_t seq);
uint64_t cm_mono_ns(void);        /* co_fleet's monotonic clock */
uint64_t cm_thread_cpu_ns(void);  /* this thread's CPU time */
uint64_t cm_process_cpu_ns(void); /* the process's, every thread's */
/* Time this thread spent waiting for a CPU while runnable (ns), from
 * /proc/thread-self/schedstat; 0 when unknown. */
uint64_t cm_runqueue_wait_ns(void);
/* This thread's minor page faults so far. */
long cm_thread_minflt(void);

/* ---- cm_sim.c: the simulator process ---- */

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
/* Mapped MAP_SHARED by main before the fork. */
extern struct sim_live *cm_sim_live;

/* The simulator process (forked, no ZeroMQ context yet): n agents on
 * endpoint for k_count intervals; writes its struct sim_report to wfd at
 * the end. Returns its exit status. */
int cm_sim_main(uint32_t n, uint32_t k_count, uint64_t seed, const char *endpoint, int wfd);

/* ---- coordinator_merge.c: the coordinator side ---- */

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
    long minflt_at[MAX_INTERVALS + 1];          /* the thread's minor faults, as cpu_thread */
    uint32_t reporting_at_print[MAX_INTERVALS]; /* agents merged when line k was printed */
    uint32_t stats_at[MAX_INTERVALS + 1];       /* STATS handled: [0] at START, [k + 1] at line k */
    double idle_next_us; /* co_fleet_next(timeout 0) with nothing to read, N peers */
    uint64_t wait_ns;    /* coordinator thread's runqueue wait over the intervals */
    long minflt;         /* ... and its minor page faults (first touches of fresh pages) */
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
 * interval 0: the server QPS of every interval is then 10^6. */
void cm_lead_baseline(struct run *r);
/* c->args from a stampede run command line for c->n agents on endpoint. */
int cm_make_args(struct coord *c, const char *endpoint);
/* The end of the run as co_run's finish_results does it (the intervals
 * move out of co_merge): the thread CPU it took (ms); *samples the run
 * histogram's count. */
double cm_sum_intervals(struct coord *c, uint64_t *samples);

/* ---- cm_micro.c: per-STATS costs of the pieces, on the same kind of STATS ---- */

struct micro {
    double decode_us, hist_read_us, hist_alloc_us, merge_add_us, live_stats_us, clock_read_us;
    double beat_decode_us;
    double fold_us; /* the per-agent running sum (pr_hist_acc) */
};

void cm_micro_bench(const struct coord *c, uint64_t seed, struct micro *mb);

/* ---- cm_ir.c: --ir, the merge alone for callgrind ---- */

/* n agents' STATS for k_count intervals made and handled in process
 * (0, or 1 when a STATS was refused or an interval not released). */
int cm_ir_main(struct coord *c, uint64_t seed);
/* --ir's run state freed; returns rc. */
int cm_ir_cleanup(struct coord *c, int rc);

/* ---- cm_report.c: what is printed ---- */

/* The simulator's report from fd (false: it died). */
bool cm_read_report(int fd, struct sim_report *rep);
void cm_report(struct coord *c, const struct sim_report *rep, const struct micro *mb,
               uint64_t join_cpu_ns, double join_s, long rss_join_kb, long rss_end_kb,
               long peak_kb);
/* cm_sum_intervals, then the "RESULT key=value ..." line. */
void cm_result_line(struct coord *c, const struct sim_report *rep, const struct micro *mb,
                    long rss_join_kb, long rss_end_kb, long peak_kb);
void cm_long_report(const struct coord *c, const struct sim_report *rep, long rss_join_kb,
                    long rss_end_kb, long peak_kb);

#endif
