/* co_compare: `stampede compare`, two targets run interleaved and compared
 * with confidence (docs/guide.md "Interleaved comparisons").
 *
 *   stampede compare [--repeat=N] [--name-a=A] [--name-b=B]
 *                    [--a=ARG]... [--b=ARG]... [--before-a=CMD] [--before-b=CMD]
 *                    [--dir=DIR] [--json=FILE] [--fail-if=EXPR]... [--junit=FILE]
 *                    [-o FILE] -- WORKLOAD [OPTIONS] run
 *
 * Runs the command after "--" 2N times in the order A B A B ..., side A
 * with each --a=ARG added, side B with each --b=ARG (two servers: their
 * --mysql-host/--mysql-port; one server with two settings: --before-a and
 * --before-b, shell commands run before each of that side's runs), each run
 * a complete stampede run (this program, spawned) writing DIR/A-1.json,
 * DIR/B-1.json, ... Then the files are compared as `stampede report
 * --group=A ... --group=B ...` compares them (co_rpt.h), --json, --fail-if,
 * --junit and -o passed on. Interleaving spreads the machine's drift (a
 * warming cache, a neighbour's load) over both sides instead of one.
 *
 * A failed run (exit other than 0 or 3; Ctrl-C stops the run in progress,
 * which then exits 1) or hook stops the comparison:
 * exit 1, the message names it, the runs so far stay in DIR. Thread: the
 * caller's.
 */
#ifndef CO_COMPARE_H
#define CO_COMPARE_H

#include <spawn.h>

/* argv[0] is "compare"; self is this program's path. The exit status:
 * 0, 1 (a run or hook failed, or the files cannot be written), 2 (usage),
 * 3 (a --fail-if gate failed). */
int co_compare_main(int argc, char **argv, const char *self);

/* *at initialised so that a child spawned with it (a run of this program:
 * compare's, --find-capacity's steps) takes SIGINT and SIGTERM at their
 * defaults, whatever the parent ignores or handles. The caller destroys it. */
void co_spawn_sigdefault(posix_spawnattr_t *at);

#endif
