/* co_summary: the end of a run — totals from the agents, the sysbench final
 * report, and the stampede section (per-agent table, server cross-check,
 * client saturation warnings). docs/design.md §7.4, §7.5, §11.1.
 */
#ifndef CO_SUMMARY_H
#define CO_SUMMARY_H

/* An agent whose CPU averages this share of its cores or more is saturated
 * (agents[].saturated; so is one whose event loop lags 10 ms at p99). */
#define CO_SUMMARY_SATURATED_CPU_SHARE 0.85

#include <stdio.h>

#include "co_args.h"
#include "co_result.h"

/* From res->agents (each with ctr, lat, cpu, lag filled): res->total,
 * res->lat (the sum of the agents' when the caller left it NULL), each agent's saturated flag, and
 * the server check from res->server (client_statements, server_match, server_diff, server_checked).
 */
void co_summary_totals(struct co_result *res);

/* The sysbench final report for a run (options from a). 0 or the
 * co_sbfmt error. */
int co_summary_print_final(FILE *out, const struct co_args *a, const struct co_result *res);
/* The whole run's "Threads fairness" figures (the JSON's totals) into
 * *out: true when every agent's connections were measured (DONE.conns),
 * false when some agent's totals were spread evenly over its connections
 * (a lost agent). The printed final report after --report-checkpoints
 * covers the time since the last one, as sysbench's. */
struct co_sbfmt_fairness;
bool co_summary_fairness(const struct co_result *res, struct co_sbfmt_fairness *out);
/* Fairness units of one agent's connections: now (per connection figures
 * since the start) less base (the same at a checkpoint; NULL: none) into
 * out[0..n). Returns n. */
struct co_sbfmt_unit;
struct pr_msg_conn;
size_t co_summary_conn_units(const struct pr_msg_conn *now, uint32_t n,
                             const struct pr_msg_conn *base, uint32_t n_base,
                             struct co_sbfmt_unit *out);

/* The stampede section: agents, server cross-check, warnings. */
void co_summary_print_agents(FILE *out, const struct co_result *res);

/* Server statements over the run from res->server, by the formula that
 * matches the agents' counting (documented in the .c); false when the
 * needed counters are missing. */
bool co_summary_server_statements(const struct co_result *res, uint64_t *statements);

/* --warmup: what the totals left out and what stays whole-run, or why
 * nothing was left out (co_warmcut.h); nothing without --warmup. Part of
 * co_summary_print_agents; alone (on stderr) with --report-format=sysbench. */
void co_summary_print_warmcut(FILE *out, const struct co_result *res);

#endif
