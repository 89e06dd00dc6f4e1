/* ag_tc_multi: the tpcc loaders over tpcc_start -m's schemas (`stampede
 * tpcc prepare|check|cleanup --multi-schema=N --multi-schema-offset=K`).
 *
 * Every stream ag_tc_loads() makes for this agent's share is made once per
 * schema and starts with "USE `<schema>`" (the streams' statements name
 * their tables unqualified, so the rest runs as is); the messages a stream
 * gives (a failed check, a note, a probe's failure) are prefixed with
 * "<schema>: ". Schema by schema, each in ag_tc_loads' order. */
#ifndef AG_TC_MULTI_H
#define AG_TC_MULTI_H

#include <stdint.h>

#include "ag_family.h"
#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"
#include "pr_tc_opts.h"

/* ag_tc_loads(o, po, plan, add, ctx, err) for each of the n databases
 * dbs[0..n-1] (borrowed, read during the call; names of at most 64
 * characters without a backquote); n == 0: ag_tc_loads itself. Returns 0,
 * or ag_tc_loads' error (streams already added are the caller's to
 * destroy, as ag_tc_loads'). Thread-safe. */
int ag_tc_multi_loads(const char *const *dbs, uint32_t n, const struct pr_tc_opts *o,
                      const pr_opts *po, const struct pr_msg_plan *plan, ag_piece_add_fn add,
                      void *ctx, struct pr_error *err);

#endif
