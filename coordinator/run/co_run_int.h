/* co_run_int: the run's state, shared by co_run.c (the lifecycle) and
 * co_live.c (what is merged and printed while the run goes). Internal to
 * the coordinator; tests/bench/coordinator_merge.c drives co_live through
 * it too. */
#ifndef CO_RUN_INT_H
#define CO_RUN_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "co_args.h"
#include "co_fleet.h"
#include "co_keys.h"
#include "co_merge.h"
#include "co_plan.h"
#include "co_result.h"
#include "co_spawn.h"
#include "co_srvstat.h"
#include "pr_msg.h"

/* One agent of the run, in name order. */
/* One agent's STATS.conns: its connections' figures since the start, at
 * the end of interval k (a --report-checkpoints interval), owned. */
struct co__cp_snap {
    uint64_t k;
    struct pr_msg_conn *conns;
    uint32_t n;
};

struct agent {
    int peer;               /* fleet peer number */
    bool in_phase;          /* has a PLAN in the current phase */
    bool ready;             /* READY (or ERROR) answered */
    bool done;              /* DONE received in the current phase */
    bool has_end;           /* its DONE said when its last event ended (end_ns) */
    uint64_t end_ns;        /* that moment, coordinator clock (t0 + DONE.end) */
    bool lost;              /* lost or said BYE */
    char error[1024];       /* its setup or run error, "" if none */
    struct pr_counters sum; /* sum of its STATS (a lost agent's totals) */
    uint64_t lat_sum_us;    /* sum of its STATS latency sums */
    double cpu_sum;         /* sum of STATS.cpu */
    double cpu_last;        /* STATS.cpu of its latest interval, cpu_last_k */
    uint64_t cpu_last_k;    /* (a tail after the stop is shorter: co_run_out.c) */
    /* Its STATS.conns not yet taken by a checkpoint, in interval order
     * (co_live.c checkpoint_units): a fast agent's next checkpoint interval
     * can come before a slow one lets this one close. */
    struct co__cp_snap *cp_snaps;
    uint32_t n_cp_snaps;

    /* Its latency over its STATS (a lost agent's figures): a running sum. */
    pr_hist_acc *lat_acc;
};

struct run {
    const struct co_args *a;
    FILE *out;
    struct co_result *res;
    co_keyring *kr;         /* authorized agent keys */
    struct co_keypair keys; /* ours (listen mode) */
    co_spawn *spawn;        /* local agents, or NULL */
    co_fleet *fleet;
    co_plan *plan;
    co_merge *merge;      /* run command only */
    struct agent *agents; /* n in name order */
    uint32_t n;
    uint64_t seed;
    uint64_t t0_ns;       /* START instant, our clock */
    uint64_t first_t0_ns; /* the first phase's t0: total time of a prepare */
    uint32_t interval_ms;
    uint64_t end_ns;          /* when the last DONE came */
    bool stopping;            /* ABORT sent */
    bool bye_sent;            /* the run's end told to the agents (say_goodbye) */
    bool gathered;            /* every agent joined (gather) */
    uint64_t stop_ns;         /* when */
    struct pr_msg_stat *srv0; /* lead's first server sample */
    uint32_t n_srv0;
    struct pr_msg_stat *srv_last; /* lead's latest sample */
    uint32_t n_srv_last;
    uint64_t prev_questions; /* lead's previous Questions, for server QPS */
    bool have_prev_questions;
    uint64_t rows_done;        /* prepare progress: rows loaded so far */
    uint64_t rows_shown;       /* rows_done at the last progress line */
    uint64_t next_progress_ns; /* when the next progress line is due */
    double *srv_qps;           /* per interval: server QPS, < 0 unknown */
    uint64_t n_srv_qps;
    uint32_t next_cp;   /* --report-checkpoints: index of the next one due */
    uint64_t cp_from_k; /* first interval of the current checkpoint window */
    double cp_from_s;   /* when the last checkpoint was taken (0: t0) */
    bool forced_on;     /* --forced-shutdown in force */
    uint64_t forced_ms; /* its delay after --time */
    bool forced;        /* it fired: agents told to stop now */
    /* srv_qps[i] is interval srv_qps_base + i: those below were released
     * (co__srv_qps_set). */
    uint64_t srv_qps_base;
    /* Runs of any length: intervals are written out and freed as they
     * become final (co__live_release), so the run's figures are summed as
     * they go. */
    pr_hist *tot_lat;            /* released intervals' latency, + STATS after their release */
    pr_hist *tot_svc;            /* the same for the service time, NULL: none (closed loop) */
    pr_hist *cp_lat;             /* released intervals of the current checkpoint window */
    struct pr_counters cp_ctr;   /* their counters */
    struct pr_counters live_ctr; /* released intervals' counters: the run's so far
                                    (--abort-on-threshold) */
    pr_hist *scratch;            /* where a frozen interval is expanded */
    /* Released intervals' per-kind figures, summed only when a kind's
     * --threshold is judged live (--abort-on-threshold), else NULL. */
    struct co_kind_result *live_kinds;
    uint32_t n_live_kinds;
    bool stream_opened; /* stream was opened (at the first release) */
    /* The result files written as intervals close (co_stream), or NULL:
     * none asked for, or no interval released yet. Finished from res by
     * co_output_write at the run's end. */
    struct co_stream *stream;
    struct pr_prom *prom; /* --prometheus endpoint (co_prom.h), or NULL */
    uint64_t prom_pub_ns; /* when a snapshot was last published */
    bool keep_closed;     /* co__live_release does nothing: closed intervals stay in
                             co_merge (tests/bench/coordinator_merge reads them all) */

    co_srvstat *srvstat; /* the lead's samples as per-interval figures */
    uint64_t trim_ns;    /* when co__live_release last gave free heap pages back (malloc_trim) */
};

/* Server samples: *dst becomes a copy of src (src NULL, n_src 0: freed). */
void co__srv_copy(struct pr_msg_stat **dst, uint32_t *n, const struct pr_msg_stat *src,
                  uint32_t n_src);
/* The value of a named counter in a sample; false when absent. */
bool co__srv_value(const struct pr_msg_stat *s, uint32_t n, const char *name, uint64_t *v);

/* The lead's READY sample: the run's server baseline. */
void co__live_baseline(struct run *r, const struct pr_msg_stat *srv, uint32_t n);
/* Agent i's STATS: merged into its interval (run) or counted as prepare
 * progress; its per-agent sums and the lead's server sample too. */
void co__live_stats(struct run *r, uint32_t i, const struct pr_msg_stats *st);
/* Agent i is READY for a run: its running sum (co__live_stats' per-agent
 * latency, pr_hist_acc) is made now, its likely span (READY.rtt to 1024
 * times it) reserved and touched, so that the first interval does not
 * allocate and fault in every agent's sum at once (issue 30 §5: at 1000
 * agents interval 0 was the run's worst, over 10% of a core). */
void co__live_agent_ready(struct run *r, uint32_t i);
/* Print (or skip, for a tail) every interval that is due; final: the run
 * is over and everything left is due. */
void co__live_flush(struct run *r, bool final);
/* How long a line waits for an agent not yet heard (--grace-ms or 5 s). */
uint32_t co__live_grace_ms(const struct run *r);
/* After interval k was printed: every --report-checkpoints due at its end
 * boundary ("[ Ns ] Checkpoint report:" and a final-style report of the
 * intervals since the previous one, kept in res->checkpoints). */
void co__live_checkpoints(struct run *r, uint64_t k);
/* Prepare progress line when one is due. */
void co__live_progress(struct run *r);
/* res->lat from the intervals; a lost agent's from its kept intervals. */
void co__live_sum_intervals(struct run *r);
/* Write out and free every interval that is final (all: the run is over,
 * every closed one is), in k order: co_stream, the run's totals, the
 * checkpoint window. */
void co__live_release(struct run *r, bool all);
/* Publish the --prometheus snapshot now (force) or when one is due. */
void co__live_prom(struct run *r, bool force);

/* Server QPS of interval k (co_live.c): set it, read it (< 0 unknown or
 * dropped), drop every interval below k (released: memory stays bounded by
 * the live window). */
void co__srv_qps_set(struct run *r, uint64_t k, double qps);
double co__srv_qps_get(const struct run *r, uint64_t k);
void co__srv_qps_drop_below(struct run *r, uint64_t k);

/* co_run.c: agent i's name. */
const char *co__run_agent_name(const struct run *r, uint32_t i);

/* co_run_out.c: the result's header fields from the options; the family's
 * own output state (co_family.h) when it has one; the run's header. */
void co__run_fill_header(struct run *r);
void co__run_open_family_summary(struct run *r);
void co__run_print_header(struct run *r);

/* co_run_out.c: per-agent identity and clock figures once the plan is made;
 * at the end, lost agents' totals, intervals, kinds and server deltas. */
void co__run_init_results(struct run *r);
void co__run_finish_results(struct run *r);

/* co_run_out.c: what a prepare/cleanup/prewarm/check phase does, before it
 * starts; and what is printed after the phases. */
void co__run_print_phase(struct run *r, uint32_t phase);
void co__run_print_end(struct run *r);

#endif
