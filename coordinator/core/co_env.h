/* co_env: the run's environment, for the JSON's "environment" object
 * (README "Environment").
 *
 * Built from the agents' READY.env (pr_msg.h): each agent's host and build,
 * and the lead agent's (index 0) reading of the server and the data set.
 * Whatever was not reported is written null with the reason, never
 * guessed: an agent that sent no env (an older stampede-agent, or one that
 * failed before READY) has every fact null; a variable the server lacks is
 * null with "no such variable on this server".
 *
 * The JSON is built and written with jansson (libjansson): its strings are
 * escaped by the library, bytes that are not UTF-8 become U+FFFD first.
 *
 * Thread: one thread, the coordinator's.
 */
#ifndef CO_ENV_H
#define CO_ENV_H

#include <stdint.h>
#include <stdio.h>

#include "pr_msg.h"

/* Also declared in co_result.h, which holds the run's (co_result.env). */
typedef struct co_env co_env;

/* For n_agents agents, in plan (name) order. */
co_env *co_env_new(uint32_t n_agents);

/* Free e and NULL *e; safe on NULL. */
void co_env_destroy(co_env **e);

/* Agent i's READY (borrowed): keeps its env, and for the lead (i 0) the
 * server facts, replacing any from an earlier phase. A READY without env
 * changes nothing. e NULL or i out of range: nothing. */
void co_env_ready(co_env *e, uint32_t agent, const struct pr_msg_ready *ready);

/* Write the member ',\n<2*depth spaces>"environment": {...}' of e (an
 * object member after at least one other, at nesting depth; "environment":
 * null when e is NULL), the object indented as co_json's. Agent i's name
 * is names[i] (n_names entries, borrowed; null past them). Returns 0 or
 * -ENOMEM. */
int co_env_json_write(co_env *e, const char *const *names, uint32_t n_names, FILE *f, int depth);

#endif
