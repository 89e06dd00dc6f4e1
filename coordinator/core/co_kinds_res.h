/* co_kinds_res: the run's statement kinds (co_kinds) in its co_result:
 * the names from READY, the whole run's figures from DONE, and at the end
 * the merged STATS in place of the DONE sum when an agent was lost. */
#ifndef CO_KINDS_RES_H
#define CO_KINDS_RES_H

#include "co_kinds.h"
#include "co_result.h"
#include "pr_err.h"
#include "pr_msg.h"

/* READY: the first agent declaring kinds sets res->kind_names; every
 * other must declare the same list: else PR_EINVAL with err saying so. */
int co_kinds_res_ready(struct co_result *res, const struct pr_msg_ready *rd, struct pr_error *err);

/* DONE: res->kinds (whole run) += d->kst. */
void co_kinds_res_done(struct co_result *res, const struct pr_msg_done *d);

/* At the run's end, *run (n_run entries: every STATS.kst merged,
 * co_merge_take_run_kinds(), moved in) decides the per-kind totals when an
 * agent sent no DONE (lost): res->kinds, the sum of the DONE.kst received,
 * misses that agent, so it is replaced by *run (res->n_kinds entries, names
 * set), which holds the lost agent's figures up to its loss, as the run's
 * latency does (the sum of the intervals). When every agent sent DONE
 * res->kinds stays. *run is consumed either way (NULL, *n_run 0). */
void co_kinds_res_finish(struct co_result *res, struct co_kind_result **run, uint32_t *n_run);

#endif
