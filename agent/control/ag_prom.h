/* ag_prom: the agent's own Prometheus endpoint (agent.conf `prometheus =
 * HOST:PORT`, README "Live metrics"), for fleets that scrape every host.
 *
 * proto's pr_prom (the coordinator's exposition, metric names and bucket
 * bounds) with one `agent` series, this agent: its transactions, queries
 * by type, errors and reconnects, the latency histogram and per-kind
 * counts and latency, its CPU, loop lag and clock offset to the
 * coordinator, all from the STATS it sends, as they go out. A run command's
 * PLAN starts a new run on the endpoint (counters back to 0, the run info
 * replaced); between runs it keeps serving the last run's figures. Off
 * unless configured.
 *
 * Thread: the control thread (ag_ctl), which owns it; pr_prom serves from
 * its own thread.
 */
#ifndef AG_PROM_H
#define AG_PROM_H

#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"

typedef struct ag_prom ag_prom;

/* Serve /metrics on hostport (pr_prom_start's forms; ":PORT" is loopback)
 * for the agent named name (copied). NULL with err naming the setting
 * (bad address, port in use). */
ag_prom *ag_prom_start(const char *hostport, const char *name, const char *log_prefix,
                       struct pr_error *err);

/* A PLAN was accepted for run_id (borrowed): a run command starts a new
 * run on the endpoint; other commands (prepare, cleanup, ...) are not
 * measured. NULL-safe. */
void ag_prom_plan(ag_prom *p, const struct pr_msg_plan *plan, const char *run_id);

/* A message the session is about to send to the coordinator: READY names
 * the kinds, STATS are added (and published), DONE publishes.
 * clock_offset_ns: the coordinator's clock minus ours (pr_clock_sync).
 * NULL-safe. */
void ag_prom_msg(ag_prom *p, const struct pr_msg *m, int64_t clock_offset_ns);

/* Stop serving and free *p; NULL-safe. */
void ag_prom_stop(ag_prom **p);

#endif
