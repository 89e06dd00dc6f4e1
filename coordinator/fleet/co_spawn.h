/* co_spawn: local agents for a run without --listen (docs/design.md §1, §10).
 *
 * Creates a private directory (0700) holding fresh CURVE keys (one pair for
 * the coordinator, one per agent), one config file per agent and the ipc
 * endpoint, so local agents need no setup and no secret is in argv. The
 * agents run in their own process group (a terminal's Ctrl-C reaches only
 * the coordinator, which stops them cleanly) and get SIGTERM if the
 * coordinator dies (PR_SET_PDEATHSIG). They inherit only a cleaned
 * environment (co_spawn_env_kept): the database password travels in the
 * PLAN over CURVE, never through the environment or argv.
 *
 * Agents are named "local-1".."local-N" (zero padded when N >= 10 so name
 * order is number order).
 */
#ifndef CO_SPAWN_H
#define CO_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "co_keys.h"
#include "pr_err.h"

typedef struct co_spawn co_spawn;

/* Whether the caller was asked to stop (a SIGINT/SIGTERM; co_run's
 * co_run_interrupted): making and starting the agents gives up then. */
typedef bool (*co_spawn_stop_fn)(void);

/* Prepare n agents: directory, keys (each agent's public key is added to
 * kr), configs. agent_bin NULL: stampede-agent beside self_exe, then in the
 * build tree (../agent/), then $PATH. workers: per agent, 0 = cores.
 * stopped: asked before each agent's keys and start. NULL with err on
 * failure. */
co_spawn *co_spawn_new(uint32_t n, const char *agent_bin, const char *self_exe, uint32_t workers,
                       co_keyring *kr, co_spawn_stop_fn stopped, struct pr_error *err);

/* The coordinator's key pair and the endpoint to bind (borrowed). */
const struct co_keypair *co_spawn_server_keys(const co_spawn *s);
const char *co_spawn_endpoint(const co_spawn *s);

/* Start the agent processes. 0 or -errno (fork/exec failed). */
int co_spawn_start(co_spawn *s, struct pr_error *err);

/* Number of agents that exited so far (reaped without blocking). */
uint32_t co_spawn_exited(co_spawn *s);

/* Reap one agent that exited since the last call, without blocking: true
 * with its name and how it ended ("killed by signal 9", "exited with status
 * 1") written to name/why. A local agent's death is known at once, before
 * its silence would tell. */
bool co_spawn_reap(co_spawn *s, char *name, size_t name_len, char *why, size_t why_len);

/* SIGTERM every agent still running, wait up to timeout_ms, then SIGKILL;
 * remove the directory; free; *s becomes NULL. */
void co_spawn_destroy(co_spawn **s, int timeout_ms);

/* For a signal handler about to _exit (a second Ctrl-C): SIGTERM the agents
 * of the live co_spawn and remove its key directory: the files it may hold
 * (paths computed in co_spawn_new) and the directory itself. Only kill,
 * unlink and rmdir: async-signal-safe. No effect when none is live. */
void co_spawn_remove_now(void);

/* True when an environment entry "NAME=value" is one a local agent keeps
 * (PATH, HOME, TMPDIR, locale, sanitizer options, library paths): agents
 * are started with only these, so MYSQL_PWD and any other secret of the
 * caller's environment never shows in an agent's /proc/PID/environ. */
bool co_spawn_env_kept(const char *entry);

/* Remove the one-run key directories (tmpdir/stampede-XXXXXX) of this
 * user's earlier runs that no live process holds (their coordinator was
 * killed with SIGKILL); how many. co_spawn_new() runs it on /tmp. */
unsigned co_spawn_sweep_stale(const char *tmpdir);

#endif
