/* co_run: one stampede command carried out end to end (docs/design.md §4).
 *
 * Gather the agents (spawned locally, or remote on --listen), measure their
 * clocks, send each its PLAN, wait for every READY (any ERROR aborts the
 * run before load, with every agent's reason), START at one instant,
 * merge the intervals and print the sysbench lines as they become due,
 * collect the DONE totals, then print the final report and the stampede
 * section, fill *res and write the output files from it (co_output: the
 * run owns the writers, co_result is their data). SIGINT stops the run
 * cleanly (a second one exits at once); a lost agent aborts the run or,
 * with --on-agent-loss=continue, is left out of what follows.
 *
 * Thread: the caller's; it installs a SIGINT/SIGTERM handler for the run.
 */
#ifndef CO_RUN_H
#define CO_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "co_args.h"
#include "co_result.h"

/* Carry out a->cmd. Prints the report to out and problems to stderr,
 * writes the files a asks for (--json, --csv, --hdr-log; co_output_write).
 * self_exe: this executable's path (to find a local stampede-agent).
 * Returns res->exit_status, or CO_EXIT_FAILED when a file could not be
 * written; *res (zeroed by the caller) holds everything measured, even
 * after a failure. */
int co_run(const struct co_args *a, const char *self_exe, FILE *out, struct co_result *res);

/* True when a SIGINT/SIGTERM came since the last co_run began (the handler
 * co_run installs stays in place after it returns: co_sweep asks this
 * between runs). Async-signal-safe to read. */
bool co_run_interrupted(void);

#endif
