/* co_sweep: sweeps and repeats of `run` (README "Reports and comparisons").
 *
 * --threads=8,16,32 (a list) and/or --repeat=N make one run per point and
 * repeat, each a whole co_run with its own files: --json=run.json becomes
 * run-t8-r1.json, run-t8-r2.json, ... (--csv and --hdr-log likewise), with
 * --sweep-pause=S seconds between runs. At the end: a summary on stdout
 * (per point: mean, sample stddev, min and max of tps, qps, p95 and p99
 * over the repeats that finished) and, with --json, the sweep JSON
 * (run-sweep.json: "kind": "sweep", the runs and the summary), which
 * `stampede report` draws against threads. SIGINT stops the run in
 * progress as for one run (its files are still written, it is left out of
 * the summary), keeps every finished run and says where the sweep stopped.
 * The options are read by co_args (co_args_sweep.c).
 * Thread: the caller's.
 */
#ifndef CO_SWEEP_H
#define CO_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "co_args.h"

/* True when a asks for more than one run (a --threads list or --repeat). */
bool co_sweep_is_wanted(const struct co_args *a);

/* The path of one run's file: "run.json" -> "run-t8-r1.json" ("-sweep"
 * for threads 0). Caller frees; NULL for a NULL path. */
char *co_sweep_path(const char *path, uint32_t threads, uint32_t repeat);

/* Carry out the sweep a asks for (a->cmd must be run): the runs, their
 * files, the summary on out, the sweep JSON. a is changed during the
 * sweep (threads, file names) and restored before it returns. Returns the
 * exit status: 0 when every run succeeded, 1 otherwise, 2 for a sweep of
 * a command other than run. */
int co_sweep_run(struct co_args *a, const char *self_exe, FILE *out);

#endif
