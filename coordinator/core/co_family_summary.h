/* co_family_summary: a family's own live lines and run summary (struct
 * co_family_summary, co_family.summary), declared apart from the rest of
 * co_family so that co_result, which holds their state, needs nothing more
 * than it. */
#ifndef CO_FAMILY_SUMMARY_H
#define CO_FAMILY_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct co_args;
struct co_interval_result;
struct co_result;
struct pr_msg_stats;
struct pr_hist;

/* A kind's figures over a family's measured window (co_family_summary.kind_window). */
struct co_kind_window {
    const struct pr_hist *lat; /* its completions' latency, µs (borrowed from the state) */
    uint64_t count;            /* completions */
    uint64_t errors;           /* failures, as the kind's co_kind_result.errors counts them */
    double time_s;             /* the window's length */
};

/* A family's own output of a run, in place of sysbench's (co_sbfmt) where the
 * family has one (tpcc: tpcc_start's output, co_tc_fmt.h). Every op is
 * called on the coordinator's one thread, only for the run command. The
 * state open() returns is res's (res->fam_state, freed through destroy()
 * by co_result_clear()). Intervals are handed over as they become final
 * (co__live_release) and are freed right after: an op keeps what it needs,
 * bounded, never the intervals themselves. */
struct co_family_summary {
    const char *json_key; /* the --json member json() writes ("tpcc"), or NULL */
    /* The run's output state, from the parsed command line; res is where
     * the run's results go (borrowed: it outlives the state). */
    void *(*open)(const struct co_args *a, struct co_result *res);
    /* The run's header, before the agents are gathered (sysbench's:
     * co_sbfmt_header). */
    void (*header)(void *st, FILE *out);
    /* The load was started (sysbench's "Threads started!"). */
    void (*started)(void *st, FILE *out);
    /* Interval iv (k = iv->k, [k * interval_ms, (k + 1) * interval_ms)
     * since t0) is final: merged over every agent that reported it, written
     * out and about to be freed. Called in k order, for every interval,
     * tails included. Prints the family's interval lines when due. */
    void (*interval)(void *st, FILE *out, const struct co_interval_result *iv,
                     uint32_t interval_ms);
    /* Agent `agent`'s STATS, as it arrives (after co_merge took it);
     * released: its interval had been handed to interval() already (a late
     * STATS whose figures the family adds itself). */
    void (*stats)(void *st, uint32_t agent, const struct pr_msg_stats *s, bool released,
                  uint32_t interval_ms);
    /* The run is over (every interval handed over, res filled and
     * co_summary_totals() done): the summary (sysbench's:
     * co_summary_print_final). */
    void (*final)(void *st, FILE *out, const struct co_result *res);
    /* The server cross-check by the family's formula (sysbench's is
     * co_summary_server_statements()'s): the client's and the server's
     * figures over the run; false when a needed server counter is missing. */
    bool (*server_check)(const struct co_result *res, uint64_t *client, uint64_t *server);
    const char *server_formula; /* what server_check compares, for the summary and JSON */
    const char *server_caveat;  /* when it is exact, for the summary */
    /* A headline figure of the finished run by name ("tpmC", as --threshold
     * spells it), NAN when the family has none by that name; NULL: none. */
    double (*figure)(const void *st, const char *name);
    /* Kind `kind`'s figures over the family's measured window (tpcc: its
     * five transactions in the window after --warmup-time, as its report
     * prints them) into *out, for --threshold's KIND.METRIC at the end, so
     * that a threshold and the report say one figure; false (or NULL):
     * the family has no window for it and the kind's whole-run figures
     * stand. */
    bool (*kind_window)(const void *st, const char *kind, struct co_kind_window *out);
    /* The --json member json_key's value (one JSON value, no newline). */
    void (*json)(FILE *f, const void *st, const struct co_result *res);
    /* Free the state. */
    void (*destroy)(void *st);
};

#endif
