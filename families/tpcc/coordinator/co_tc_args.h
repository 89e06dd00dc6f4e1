/* co_tc_args: the tpcc family's own options as typed data, the family's
 * part of the parsed command line (the general ones are co_args.cfg). Read
 * once from the option values by the family's check_options hook
 * (co_tc_family.c), after its rules passed and its defaults were set, and
 * kept in a->fam_args, which co_args_clear frees; the code after parsing
 * (plans, phase lines, the report) reads these fields, never an option by
 * name. */
#ifndef CO_TC_ARGS_H
#define CO_TC_ARGS_H

#include "co_args.h"
#include "pr_tc_opts.h"

struct co_tc_args {
    struct pr_tc_opts o; /* --warehouses, --warmup-time, --rt-limits, ... (pr_tc_opts_get) */
    char *report_file;   /* --report-file (tpcc_start -f), "" when not given */
    char *trx_file;      /* --trx-file (tpcc_start -t), "" when not given */
    char *load_parts;    /* --load-parts as given (prepare's phase line echoes it) */
};

/* The tpcc options of a, or NULL when a's workload is not tpcc or its
 * options were not checked (a parse that failed, an action other than a
 * command). Borrowed from a. */
const struct co_tc_args *co_tc_args_of(const struct co_args *a);

/* Keep o and the family's file options of a->opts in a->fam_args
 * (replacing what was there). */
void co_tc_args_keep(struct co_args *a, const struct pr_tc_opts *o);

#endif
