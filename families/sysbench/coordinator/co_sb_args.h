/* co_sb_args: the sysbench family's option rules (co_sb_args.c), published
 * for the families whose options are sysbench's general ones (the Lua
 * family: a script gets sysbench's options and rules). */
#ifndef CO_SB_ARGS_H
#define CO_SB_ARGS_H

#include "co_args.h"
#include "pr_err.h"

/* The sysbench options with rules of their own, once every option is in
 * (co_family.h's check_options): the TLS options together, refused ones
 * (PR_EINVAL), no-effect warnings, --report-checkpoints into
 * a->checkpoints, --forced-shutdown and --validate warnings. Returns 0 or
 * PR_EINVAL with err filled. */
int co_sb_args_check(struct co_args *a, struct pr_error *err);

#endif
