/* co_warmcut: --warmup=auto|SECONDS, the start of a run left out of its
 * totals (docs/guide.md "Steady state").
 *
 * While the run goes, each released interval's counters and latency (and
 * service time, in rate mode) are kept, the histograms frozen (a few KB an
 * interval: only when --warmup is given). At the end the cut is chosen:
 * the warm-up co_steady detected (auto) or the first SECONDS; the totals
 * become the whole run's minus the intervals that ended by then, the
 * latency the exact merge of the intervals after it, the time the whole
 * run's minus the cut. What stays whole-run, as the summary says: the
 * server cross-check (made before the cut), per-agent and per-kind
 * figures, threads fairness, and the intervals themselves.
 */
#ifndef CO_WARMCUT_H
#define CO_WARMCUT_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_counters.h"
#include "pr_err.h"
#include "pr_hist.h"

struct co_steady;

/* --warmup as given. */
enum co_warmup_mode { CO_WARMUP_OFF = 0, CO_WARMUP_AUTO, CO_WARMUP_FIXED };

struct co_warmup_opt {
    enum co_warmup_mode mode;
    uint32_t s; /* CO_WARMUP_FIXED: seconds */
};

/* "auto" or a whole number of seconds >= 1. */
int co_warmup_parse(const char *v, struct co_warmup_opt *out, struct pr_error *err);

/* One kept interval. */
struct co_warmcut_iv {
    double t_s, len_s; /* its end and length, s since t0 */
    struct pr_counters ctr;
    pr_hist_frozen *lat; /* NULL: no event */
    pr_hist_frozen *svc; /* NULL: none (closed loop) */
};

struct co_warmcut {
    struct co_warmup_opt opt;
    struct co_warmcut_iv *iv; /* released intervals, in time order */
    uint32_t n, cap;
    /* The outcome (co_warmcut_apply). */
    bool applied;                 /* the totals leave out cut_s */
    double cut_s;                 /* s since t0 left out (applied) */
    uint32_t cut_intervals;       /* intervals that ended by then */
    struct pr_counters cut_ctr;   /* their counters */
    uint64_t cut_lat_count;       /* their latency samples */
    struct pr_counters whole_ctr; /* the whole run's totals, kept */
    double whole_time_s;          /* the whole run's time */
    uint64_t whole_lat_count;     /* the whole run's latency samples */
    char note[256];               /* why nothing was left out ("" when applied or off) */
};

/* Keep one interval (a no-op when --warmup is off). lat, svc: NULL when none. */
void co_warmcut_add(struct co_warmcut *w, double t_s, double len_s, const struct pr_counters *ctr,
                    const pr_hist *lat);
/* The service time of the interval added last. */
void co_warmcut_add_svc(struct co_warmcut *w, const pr_hist *svc);

/* The run's totals as co_warmcut_apply changes them (a co_result's). */
struct co_warmcut_totals {
    struct pr_counters *total;
    pr_hist **lat; /* *lat replaced */
    pr_hist **svc; /* *svc replaced when not NULL */
    double *time_s;
};

/* At the end, after the totals and the server check (co_summary_totals)
 * and the steady-state judgement: leave the cut out of the totals.
 * Nothing changes (note says why) when the warm-up was not judged or not
 * found, the cut spans the whole run, or the kept intervals do not add up
 * to the run's latency. */
void co_warmcut_apply(struct co_warmcut *w, const struct co_steady *steady,
                      struct co_warmcut_totals t);

void co_warmcut_clear(struct co_warmcut *w);

#endif
