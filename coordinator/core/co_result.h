/* co_result: everything a run measured, as plain data, for the writers.
 *
 * co_run fills one struct co_result while the run goes; the text report,
 * --json (co_json), --csv (co_csv) and --hdr-log (co_hdrout) only read it.
 * The result is data: it holds no writer and includes none; the run owns
 * them (co_run: the co_stream it writes as intervals close, co_output).
 * Histograms are pr_hist (µs). Times are seconds since t0 (the START
 * instant). Ownership: the struct owns every pointer in it; co_result_clear()
 * frees them.
 */
#ifndef CO_RESULT_H
#define CO_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "co_kinds.h"
#include "co_sbfmt.h"
#include "co_steady.h"
#include "co_warmcut.h"
#include "pr_counters.h"
#include "pr_hist.h"
#include "pr_msg.h"

struct co_srv_status;         /* co_srvstat.h */
struct co_thr_result;         /* co_threshold.h */
struct co_family_summary;     /* co_family_summary.h */
typedef struct co_env co_env; /* co_env.h */

/* One agent of the run, in name order (its plan index). */
struct co_agent_result {
    char *name;                /* HELLO name */
    char *host;                /* HELLO hostname */
    char *region;              /* HELLO region, "" when unset */
    uint32_t cores;            /* HELLO cores */
    uint32_t threads;          /* connections planned for it */
    uint64_t rate;             /* its rate share, 0 = closed loop */
    struct pr_counters ctr;    /* whole run: DONE, or the sum of its STATS if lost */
    pr_hist *lat;              /* whole run latency (DONE, or merged STATS) */
    pr_hist *svc;              /* whole run service time (DONE.svc), rate mode; else NULL */
    struct pr_msg_conn *conns; /* DONE.conns: each connection's events and latency sum */
    uint32_t n_conns;          /* 0: not sent (a lost agent, more than PR_MSG_MAX_CONNS) */
    double cpu_pct_avg;        /* mean STATS.cpu over its intervals, % of a core */
    double cpu_pct_max;        /* highest STATS.cpu */
    uint64_t lag_max_us;       /* highest STATS.lagmax */
    uint64_t lag_p99_us;       /* highest STATS.lag99 */
    uint64_t slip_max_us;      /* highest STATS.slip */
    int64_t clock_offset_ns;   /* agent clock - coordinator clock, lowest-RTT sample */
    uint64_t clock_rtt_ns;     /* that sample's round trip */
    uint64_t db_rtt_us;        /* READY.rtt */
    bool has_db_rtt;           /* READY.rtt came: false when every probe ping failed */
    int64_t start_skew_us;     /* DONE.skew */
    bool has_start_skew;       /* DONE.skew came: false before its workers all started */
    uint32_t intervals;        /* STATS received */
    uint32_t late_intervals;   /* STATS that came after their line was printed */
    bool saturated;            /* CPU or loop lag says the client was the limit */
    bool done;                 /* DONE received */
    int32_t status;            /* DONE.code, or a PR_E code when lost/failed */
    char *reason;              /* "" or why it failed / was lost */
    char **notes;              /* DONE.notes: informational lines (tpcc check), owned */
    uint32_t n_notes;
    bool lost;          /* went silent (docs/design.md §9.1) */
    double lost_at_s;   /* when it was declared lost, s since t0 */
    uint64_t cp_events; /* its events at the last checkpoint (from its STATS), 0 */
    uint64_t cp_lat_us; /* its latency sum then */
    /* Each connection's figures at the last checkpoint that had them
     * (STATS.conns), owned: what the next checkpoint's and the final
     * report's threads fairness count from. NULL before any. */
    struct pr_msg_conn *cp_conns;
    uint32_t n_cp_conns;
};

/* One agent's own figures in one interval, from its STATS (the report's
 * per-agent series: intervals[].per_agent in the JSON). */
struct co_agent_interval {
    uint64_t transactions; /* its events in the interval */
    uint64_t p95_us;       /* its latency's p95, µs (0 when it had no sample) */
    bool reported;         /* its STATS for the interval was merged in */
};

/* One report interval [t_s - len_s, t_s). */
struct co_interval_result {
    uint64_t k;             /* interval index */
    double t_s;             /* end of the interval, s since t0 */
    double len_s;           /* its length (the last may be shorter) */
    struct pr_counters ctr; /* merged over the agents that reported */
    /* Histograms are held either expanded (pr_hist) or frozen (compact,
     * pr_hist_frozen): read them through co_interval_lat() and
     * co_interval_agent_lat(), which take either. */
    pr_hist *lat;                      /* merged latency, or NULL when frozen */
    pr_hist_frozen *lat_frozen;        /* merged latency when not expanded, or NULL */
    pr_hist **agent_lat;               /* per agent expanded (n_agents entries, NULL:
                                          none), or NULL */
    pr_hist_frozen **agent_lat_frozen; /* per agent frozen (n_agents entries,
                                          NULL: none), or NULL */
    pr_hist *svc;                      /* merged service time (rate mode), expanded
                                          while lat is; NULL when frozen or none */
    pr_hist_frozen *svc_frozen;        /* the same frozen, or NULL */
    uint32_t agents_reporting;         /* how many agents' STATS are merged in */
    uint32_t agents_expected;          /* live agents when the line was due */
    uint32_t threads;                  /* connections of the reporting agents */
    bool late;                         /* a STATS came after the line was printed */
    bool partial;                      /* an agent's figures are missing (lost) */
    bool printed;                      /* a report line was printed for it (a tail
                                          interval after the stop is not) */
    double cpu_pct_max;                /* highest agent CPU in it */
    uint64_t lag_max_us;               /* highest agent loop lag in it */
    bool has_server;                   /* srv_qps is known */
    double server_qps;                 /* server Questions delta / len_s */
    struct co_kind_result *kinds;      /* per statement kind (co_result.kind_names order),
                                          n_kinds entries, or NULL */
    uint32_t n_kinds;
    struct co_srv_status *srv_status; /* lead's PR_ENV_STATUS figures (co_srvstat), or NULL */

    struct co_agent_interval *agent_iv; /* per agent in plan order (n_agent_iv entries), or NULL */
    uint32_t n_agent_iv;
};

/* One --report-checkpoints report: the intervals since the previous
 * checkpoint (or t0), as merged when it was printed. */
struct co_checkpoint_result {
    uint32_t at_s;          /* the checkpoint asked for */
    double t_s;             /* when it was taken: the first report boundary at or after at_s */
    double len_s;           /* since the previous checkpoint (or t0): the rates' denominator */
    uint64_t k_first;       /* first interval it covers */
    uint64_t k_last;        /* last one */
    struct pr_counters ctr; /* merged counters of those intervals */
    pr_hist *lat;           /* merged latency of those intervals (owned) */
    uint64_t late_in;       /* transactions in ctr that are late STATS of intervals an
                               earlier checkpoint had already covered (carried in) */
    struct co_sbfmt_fairness fairness; /* its "Threads fairness", as printed */
    bool fairness_per_conn;            /* measured per connection (STATS.conns, DONE.conns) */
};

/* A named server counter (SHOW GLOBAL STATUS) over the run. */
struct co_server_delta {
    char *name;
    uint64_t start, end; /* samples at READY and at the last boundary */
};

/* CO_EXIT_FORCED is sysbench's exit code after a --forced-shutdown. */
/* CO_EXIT_THRESHOLD: the run went well but a --threshold was crossed. */
enum co_exit_status {
    CO_EXIT_OK = 0,
    CO_EXIT_FAILED = 1,
    CO_EXIT_USAGE = 2,
    CO_EXIT_FORCED = 2,
    CO_EXIT_THRESHOLD = 3
};

struct co_result {
    char *tool;        /* "stampede" */
    char *version;     /* STAMPEDE_VERSION */
    char *workload;    /* canonical name */
    char *command;     /* "prepare", "run", ... */
    char **opt_names;  /* options in effect (explicit ones), n_opts */
    char **opt_values; /* password never included */
    uint32_t n_opts;
    uint32_t threads;           /* --threads over all agents */
    uint32_t report_interval_s; /* --report-interval, 0 = none */
    uint32_t percentile;        /* --percentile */
    struct co_agent_result *agents;
    uint32_t n_agents;
    struct co_interval_result *intervals; /* in k order */
    uint32_t n_intervals;
    struct pr_counters total; /* sum of the agents' totals */
    pr_hist *lat;             /* merged whole-run latency */
    pr_hist *svc;             /* merged whole-run service time (rate mode), or
                                 NULL: no agent reported one */
    double time_s;            /* run time (t0 to the last agent's DONE) */
    uint64_t start_unix_ms;   /* wall clock at t0, ms since the epoch (0: no start) */
    uint64_t t0_unix_ns;      /* our wall clock at the current phase's t0, ns since the epoch (0:
                                 no start): the agents' µs since t0 as our wall clock */
    struct co_server_delta *server; /* lead agent's counters, n_server */
    uint32_t n_server;
    uint64_t client_statements;               /* statements the agents counted (queries) */
    bool server_match;                        /* client_statements == server statements delta */
    int64_t server_diff;                      /* server delta - client count */
    bool server_checked;                      /* a start and an end sample exist */
    int exit_status;                          /* enum co_exit_status */
    char *exit_reason;                        /* "" on success */
    struct co_checkpoint_result *checkpoints; /* --report-checkpoints taken, in order */
    uint32_t n_checkpoints;
    struct pr_counters cp_late_ctr; /* STATS that arrived after the checkpoint covering their
                                       interval: carried into the next checkpoint or the
                                       final report, so the reports still sum to the totals */
    pr_hist *cp_late_lat;           /* their latency (owned; NULL when none came) */
    bool tally_mismatch;            /* an agent's DONE.tally differs from its STATS' sum */
    bool forced_shutdown;           /* --forced-shutdown cut the run off (exit_status CO_EXIT_FORCED
                                       unless it had already failed); total.unfinished: the events
                                       it cut off */
    uint64_t bad_frames;            /* malformed frames received and ignored */
    uint64_t refused_agents;        /* connections refused (unauthorized key, version) */
    char *run_id;                   /* the run id every message carries, or NULL before the fleet */
    /* Runs of any length: the intervals were written out as they closed
     * (co_stream, the run's) and freed; intervals[] then holds none of them. */
    bool has_since_cp;               /* since_cp_* hold the final report's window */
    struct pr_counters since_cp_ctr; /* counters of the intervals after the last checkpoint */
    pr_hist *since_cp_lat;           /* their merged latency (owned) */
    char **kind_names;               /* the family's statement kinds (READY.kinds), n_kinds */
    uint32_t n_kinds;
    struct co_kind_result *kinds;       /* whole run per kind: the sum of the agents' DONE.kst */
    co_env *env;                        /* environment (co_env.h), or NULL before any plan */
    struct co_steady_series steady_pts; /* one point per interval, as released (co_steady.h) */
    struct co_steady steady;            /* judged from them at the end of the run */
    struct co_warmcut warmcut; /* --warmup: the intervals kept, the cut made (co_warmcut.h) */
    struct co_thr_result *thr; /* --threshold outcomes, n_thr (co_threshold.h) */
    uint32_t n_thr;
    /* --abort-on-threshold: the threshold that stopped the run (NULL: none),
     * the figure it had then and when (the end of that interval, s since t0). */
    const struct co_threshold *thr_stop;
    double thr_stop_value;
    double thr_stop_at_s;
    /* The family's own output (co_family_summary.h), NULL: sysbench's. fam_state
     * is its state, owned (fam_summary->destroy, by co_result_clear). */
    const struct co_family_summary *fam_summary;
    void *fam_state;
};

/* iv's merged latency, for reading: iv->lat itself when expanded, else
 * iv->lat_frozen thawed into scratch (a histogram of the caller's, reused
 * from one interval to the next so that only one is ever expanded), else
 * scratch emptied. Valid until scratch is next written. */
const pr_hist *co_interval_lat(const struct co_interval_result *iv, pr_hist *scratch);

/* iv's merged service time (rate mode) the same way, or NULL when no
 * agent's STATS carried one (closed loop). */
const pr_hist *co_interval_svc(const struct co_interval_result *iv, pr_hist *scratch);

/* Agent a's own latency in iv (--hdr-log), the same way; NULL when iv has
 * none for it (a >= n_agents is the caller's to avoid). */
const pr_hist *co_interval_agent_lat(const struct co_interval_result *iv, uint32_t a,
                                     pr_hist *scratch);

/* Free everything r owns and zero it. Safe on a zeroed struct. */
void co_result_clear(struct co_result *r);

/* The whole run's time: time_s unless --warmup left a start out of the
 * totals (co_warmcut.h). What stays whole-run (per-agent and per-kind
 * rates, the server check) divides by this. */
static inline double co_result_whole_time_s(const struct co_result *r)
{
    return r->warmcut.applied ? r->warmcut.whole_time_s : r->time_s;
}

#endif
