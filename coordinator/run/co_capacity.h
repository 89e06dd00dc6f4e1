/* co_capacity: `stampede WORKLOAD run --find-capacity --slo=...`, the
 * highest open-loop rate that meets an SLO (docs/guide.md "Capacity under
 * an SLO"). Each step is a child run of this same program with the same
 * options but --rate, --time, --report-interval=1, --warmup and one
 * --threshold per SLO term, its JSON into --capacity-dir; the steps' rates
 * come from co_capsearch. The capacity, its bracket and every step are
 * printed and, with --json=FILE, written to FILE. */
#ifndef CO_CAPACITY_H
#define CO_CAPACITY_H

#include <stdio.h>

#include "co_args.h"

/* argv is the command line a was parsed from (argv[0] skipped); self this
 * program's path. The exit status: 0, a capacity found (or a lower bound:
 * the client saturated, the trials or rates ran out); 3, even the start
 * rate misses the SLO; 1, a step failed or was interrupted, or the JSON
 * cannot be written. */
int co_capacity_run(const struct co_args *a, int argc, char **argv, const char *self, FILE *out);

#endif
