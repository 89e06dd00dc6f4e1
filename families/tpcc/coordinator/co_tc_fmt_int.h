/* co_tc_fmt_int: the tpcc output's state, shared by co_tc_fmt.c (the
 * live part: header, interval lines, sums) and co_tc_fmt_final.c (the
 * final block, the stampede section, the JSON). Internal. */
#ifndef CO_TC_FMT_INT_H
#define CO_TC_FMT_INT_H

#include "co_tc_fmt.h"
#include "co_tc_trx.h"
#include "pr_hist.h"

#define CO_TC_N PR_TC_TXN_COUNT_

/* One transaction type over the measured window, merged over the agents. */
struct co__tc_acc {
    uint64_t count;       /* completions (its kind's count) */
    uint64_t errors;      /* given up (its kind's errors): fl */
    uint64_t stmt_errors; /* failed statements of its attempts (<txn>_stmt errors) */
    uint64_t late;        /* completions at or over its limit, counted as they ended: lt */
    pr_hist *lat;         /* completions' response time, µs */
};

/* One agent's window, from its STATS, compact. */
struct co__tc_agent {
    uint64_t count[CO_TC_N], errors[CO_TC_N], stmt_errors[CO_TC_N], late[CO_TC_N];
    pr_hist_frozen *lat[CO_TC_N]; /* NULL: none yet */
};

struct co_tc_fmt {
    struct co_tc_fmt_cfg cfg;      /* strings borrowed */
    struct co_tc_optline *own_opt; /* cfg.optlines when made from co_args (owned) */
    struct co_result *res;         /* names the kinds and the agents (borrowed) */
    int kind_of[PR_TC_K_COUNT_];   /* index of each tpcc kind in res->kind_names, -1: none */
    bool kinds_resolved;           /* kind_of is set (res->kind_names came) */
    uint32_t interval_ms;          /* the agents' interval, as last handed in (0: none yet) */
    uint64_t warm_ms, end_ms;      /* the window [warm_ms, end_ms) since t0 */

    struct co__tc_acc win[CO_TC_N]; /* merged window */
    struct co__tc_agent *agents;    /* per agent, n_agents */
    uint32_t n_agents;

    /* The interval line being built (from final intervals). */
    int64_t line;                  /* its index (0: the first after MEASURING START), -1: none */
    uint64_t line_count[CO_TC_N];  /* completions */
    uint64_t line_max_us[CO_TC_N]; /* highest response time */
    pr_hist *line_lat;             /* New-Order's, for 95% and 99% */
    uint32_t lines_printed;

    bool measuring_printed; /* "MEASURING START." */
    bool stopping_printed;  /* "STOPPING THREADS" */
    bool unaligned;         /* an interval straddled a window or line boundary */
    bool missing_kinds;     /* the agents did not report the tpcc kinds */
    uint64_t intervals_in;  /* intervals handed in inside the window */
    pr_hist *scratch;       /* where a frozen kind histogram is expanded */
    co_tc_trx *trx;         /* the -f / -t files (co_tc_trx.h), or NULL */
    uint64_t *trx_end_us;   /* per agent: the end of its last STATS (µs since t0), n_trx_end */
    uint32_t n_trx_end;
    uint64_t trx_lost; /* New-Order records the agents dropped (STATS.trxlost) */
    bool trx_failed;   /* writing the -f / -t files failed */
};

/* A txn's figures from its errors (fl), its statements' errors, its
 * completions at or over its limit as the agents counted them (lt) and the
 * histogram of its completions (sc + lt: one sample each). */
void co__tc_figures(uint64_t errors, uint64_t stmt_errors, uint64_t late, const pr_hist *lat,
                    struct co_tc_txn_figures *out);

#endif
