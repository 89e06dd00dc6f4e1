/* pr_prom: a Prometheus endpoint (README "Live metrics"), shared by the
 * coordinator's --prometheus=HOST:PORT (co_prom.h) and the agent's
 * `prometheus = HOST:PORT` (ag_prom.h): the text exposition format at
 * /metrics, served by libmicrohttpd on its own thread. One renderer, one
 * set of metric names and bucket bounds for both, so that a fleet scraped
 * host by host reads as the coordinator does.
 *
 * The owning thread (the coordinator's, or the agent's control thread)
 * owns the live figures: it adds every STATS as it arrives
 * (pr_prom_add_stats: counters and the latency histogram only grow; a late
 * STATS is added when it comes) and, after a merge step or an interval
 * close, copies them into a snapshot under a mutex (pr_prom_publish). The
 * HTTP thread only renders the latest snapshot (pr_prom_render.c), so a
 * scrape never waits on the merge and the merge waits at most for one
 * copy. GET or HEAD /metrics gives 200; any other path 404; any other
 * method 405.
 *
 * Latency buckets: fixed bounds PR_PROM_BUCKET_FIRST_US (50 µs) up to
 * 60 s, each 10% above the previous (rounded to whole µs), then +Inf; a
 * sample is placed by its exact-histogram value (0.1% resolution). Kinds:
 * the totals and the kind="all" histogram are for all transactions; once
 * READY.kinds names the run's statement kinds (pr_prom_set_kinds), each
 * kind adds a stampede_kind_latency_seconds series with its name as the
 * `kind` label (from STATS.kst, merged over all agents) and the counters
 * stampede_kind_count_total / stampede_kind_errors_total{kind}. Kinds are
 * merged only, not per agent (agents x kinds x buckets series would not be
 * cheap at 1000 agents). The per-agent families (`agent` label) have one
 * series per agent given to pr_prom_start: an agent's own endpoint has one,
 * itself.
 *
 * Every function takes a NULL endpoint and does nothing with it (an
 * endpoint not configured), so an owner keeps no check of its own.
 *
 * proto: no uv.h, no mysql.h; needs libmicrohttpd and pthreads (its own
 * library in proto/meson.build, proto_prom_dep).
 */
#ifndef PR_PROM_H
#define PR_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_counters.h"
#include "pr_err.h"
#include "pr_msg.h"

#define PR_PROM_BUCKET_FIRST_US 50
#define PR_PROM_BUCKET_LAST_US  60000000
#define PR_PROM_MAX_BUCKETS     160
#define PR_PROM_KIND_ALL        "all"

typedef struct pr_prom pr_prom;

/* The run's identity for stampede_run_info (borrowed during the call). */
struct pr_prom_info {
    const char *workload;
    const char *command;
    const char *run_id;
    const char *version;
    /* libmicrohttpd's own messages (a request it refuses, a header too
     * large) go to stderr after this prefix ("stampede:"), or nowhere when
     * NULL (the default: a scrape's trouble is not the run's). Read by
     * pr_prom_start only. */
    const char *log_prefix;
};

/* Listen on hostport ("HOST:PORT", "[V6]:PORT" or ":PORT" for 127.0.0.1;
 * HOST a numeric address) and serve /metrics for n_agents agents named
 * names[i] (copied). what names the setting in error messages
 * ("--prometheus", "prometheus (agent.conf)"). NULL with err naming it and
 * the reason (bad address, port in use). */
pr_prom *pr_prom_start(const char *hostport, const char *what, const struct pr_prom_info *info,
                       uint32_t n_agents, const char *const *names, struct pr_error *err);

/* Owning thread: a new run (an agent's endpoint outlives its runs): every
 * counter and histogram back to 0 (Prometheus reads a counter reset as a
 * new series start), the kinds forgotten (pr_prom_set_kinds again), the
 * run info replaced, every agent up. Scrapes see it at the next
 * pr_prom_publish. */
void pr_prom_new_run(pr_prom *p, const struct pr_prom_info *info);

/* Owning thread: agent's STATS into the live figures (not visible
 * before the next pr_prom_publish). */
void pr_prom_add_stats(pr_prom *p, uint32_t agent, const struct pr_msg_stats *st);

/* Owning thread: agent's liveness and clock offset (ns, agent minus
 * coordinator). */
void pr_prom_agent_state(pr_prom *p, uint32_t agent, bool up, int64_t clock_offset_ns);

/* Owning thread: the run's statement kinds (READY.kinds order, the
 * order of every STATS.kst; copied, at most PR_MSG_MAX_KINDS). Once per
 * run: a later call with kinds already set is ignored. */
void pr_prom_set_kinds(pr_prom *p, char *const *names, uint32_t n);

/* Owning thread: make the live figures what scrapes see. */
void pr_prom_publish(pr_prom *p);

/* Stop serving (waits for a scrape in progress) and free *p; NULL-safe. */
void pr_prom_stop(pr_prom **p);

/* Internal to pr_prom.c and pr_prom_render.c (and their tests). */

/* One agent's figures. */
struct pr__prom_agent {
    char *name;             /* label value */
    struct pr_counters ctr; /* sum of its STATS */
    bool up;                /* in the run, not lost */
    double cpu_ratio;       /* last STATS.cpu / 100 (cores) */
    double lag_max_s;       /* last STATS.lagmax */
    double clock_offset_s;  /* agent minus coordinator */
};

/* One statement kind's merged figures. */
struct pr__prom_kind {
    char *name;                               /* label value */
    uint64_t ok, errors;                      /* sum of STATS.kst count / errors */
    uint64_t bucket[PR_PROM_MAX_BUCKETS + 1]; /* as pr__prom_snap.bucket */
    uint64_t count, sum_us;                   /* latency samples, their exact sum */
};

/* What a scrape renders. */
struct pr__prom_snap {
    char *workload, *command, *run_id, *version;
    struct pr_counters ctr;                   /* over all agents */
    uint64_t bucket[PR_PROM_MAX_BUCKETS + 1]; /* per bound (not cumulative), [n_bounds]: +Inf */
    uint64_t count;                           /* samples */
    uint64_t sum_us;                          /* their exact sum */
    uint32_t n_agents;
    struct pr__prom_agent *agents;
    uint32_t n_kinds;            /* 0 until pr_prom_set_kinds */
    struct pr__prom_kind *kinds; /* n_kinds */
};

/* The bucket bounds in µs, ascending, into bounds[PR_PROM_MAX_BUCKETS];
 * returns how many. */
uint32_t pr__prom_bounds(uint64_t *bounds);

/* s in the text exposition format (version 0.0.4), the caller's (free()),
 * *len set. kind labels the all-transactions latency histogram; s->kinds
 * add one series each to stampede_kind_latency_seconds. */
char *pr__prom_render(const struct pr__prom_snap *s, const char *kind, size_t *len);

#endif
