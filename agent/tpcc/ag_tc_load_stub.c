/* ag_tc_load_stub: LINK STUB, NOT THE LOADER. TL's agent/tpcc/ag_tc_load.c
 * (branch tcl) implements ag_tc_loads; this file only lets branch tcg
 * build and test the generator before the merge, and must be deleted (with
 * its line in agent/meson.build) when tcl's ag_tc_load.c is merged. It
 * refuses every command instead of pretending to load. */
#include "ag_tc_load.h"

int ag_tc_loads(const struct pr_tc_opts *o, const pr_opts *po, const struct pr_msg_plan *plan,
                ag_piece_add_fn add, void *ctx, struct pr_error *err)
{
    (void)o, (void)po, (void)plan, (void)add, (void)ctx;
    return pr_error_set(err, PR_EINVAL,
                        "tpcc prepare/cleanup/check are not in this build (branch tcg: the "
                        "loaders come with branch tcl)");
}
