/* co_prom: the coordinator's --prometheus=HOST:PORT endpoint (README "Live
 * metrics"): proto's pr_prom (pr_prom.h: the exposition, the bucket bounds
 * and the libmicrohttpd server, shared with the agent's own endpoint) with
 * one `agent` series per agent of the run.
 *
 * The coordinator thread adds every STATS as it arrives (late ones when
 * they come) and publishes after a merge step or an interval close; the
 * HTTP thread renders the last snapshot, so a scrape never holds up the
 * merge. See pr_prom.h for the metrics, buckets and kinds.
 */
#ifndef CO_PROM_H
#define CO_PROM_H

#include <stdbool.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"
#include "pr_prom.h"

#define CO_PROM_BUCKET_FIRST_US PR_PROM_BUCKET_FIRST_US
#define CO_PROM_BUCKET_LAST_US  PR_PROM_BUCKET_LAST_US
#define CO_PROM_MAX_BUCKETS     PR_PROM_MAX_BUCKETS
#define CO_PROM_KIND_ALL        PR_PROM_KIND_ALL

/* The endpoint is pr_prom's own (no wrapper: nothing here adds state);
 * every function below is NULL-safe, as pr_prom's are. */
typedef struct pr_prom co_prom;

/* The run's identity for stampede_run_info (borrowed during the call). */
struct co_prom_info {
    const char *workload;
    const char *command;
    const char *run_id;
    const char *version;
    const char *log_prefix; /* pr_prom_info's: NULL drops libmicrohttpd's messages */
};

/* Listen on hostport (pr_prom_start: "HOST:PORT", "[V6]:PORT", ":PORT"
 * for 127.0.0.1) and serve /metrics for n_agents agents named names[i]
 * (copied). NULL with err naming --prometheus and the reason. */
co_prom *co_prom_start(const char *hostport, const struct co_prom_info *info, uint32_t n_agents,
                       const char *const *names, struct pr_error *err);

/* Coordinator thread: agent's STATS into the live figures (not visible
 * before the next co_prom_publish). */
void co_prom_add_stats(co_prom *p, uint32_t agent, const struct pr_msg_stats *st);

/* Coordinator thread: agent's liveness and clock offset (ns, agent minus
 * coordinator). */
void co_prom_agent_state(co_prom *p, uint32_t agent, bool up, int64_t clock_offset_ns);

/* Coordinator thread: the run's statement kinds (READY.kinds order;
 * copied). Once per run: a later call is ignored. */
void co_prom_set_kinds(co_prom *p, char *const *names, uint32_t n);

/* Coordinator thread: make the live figures what scrapes see. */
void co_prom_publish(co_prom *p);

/* Stop serving (waits for a scrape in progress) and free *p; NULL-safe. */
void co_prom_stop(co_prom **p);

#endif
