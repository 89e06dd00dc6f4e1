/* ag_tc_family: the tpcc family's ops (ag_family.h) for workload "tpcc":
 * tpcc-mysql's TPC-C. Options through pr_opts (PR_WL_TPCC) and
 * pr_tc_opts_get; the transactions in ag_tc_gen; the loaders (prepare,
 * cleanup, check) in ag_tc_load.
 *
 * Kinds (READY.kinds): pr_tc_kind_names(), PR_TC_K_COUNT_ of them. Each
 * event counts under its transaction type (event_kind), each statement
 * under its "<txn>_stmt" kind, COMMIT / ROLLBACK under commit, rollback,
 * retry_rollback (pr_tc_opts.h).
 *
 * Share (--partition): none (every w_id from 1..W), or warehouses with one
 * PLAN.tables entry {n = 1, lo..hi}: this agent's home warehouses; its
 * connection with global index i uses warehouse lo + i % (hi - lo + 1).
 *
 * Multi-schema (tpcc_start -m N -o K: --multi-schema, --multi-schema-offset,
 * run only): the run's connection with global index t opens database
 * "<mysql-db>_<(t % N) + K>" (wl_conn_db); PLAN.database is then the first
 * one, "<mysql-db>_<K>" (co_tc_plan.c), for the agent's probe.
 */
#ifndef AG_TC_FAMILY_H
#define AG_TC_FAMILY_H

#include "ag_family.h"

extern const struct ag_family ag_tc_family;

#endif
