/* co_rpt_env: a run's environment and options flattened to sorted
 * "key" -> "value" lines, and the keys that differ between runs: what the
 * report's environment tables and diffs (co_rpt_text.h, co_rpt_html.h)
 * print. Thread: the caller's; nothing here prints.
 */
#ifndef CO_RPT_ENV_H
#define CO_RPT_ENV_H

#include <stddef.h>

#include <jansson.h>

#include "co_rpt_load.h"

/* One line of an environment, flattened: "innodb_flush_log_at_trx_commit"
 * -> "1", "agent a1 kernel" -> "6.1.0", "dataset rows" -> "10000". */
struct co_rpt_kv {
    char *key; /* owned */
    char *val; /* owned */
};

/* A run's environment (its "environment" object and its options),
 * flattened; sorted by key. Owned; co_rpt_env_clear frees it. has_env is
 * false for a JSON without "environment" (older files). */
struct co_rpt_env {
    struct co_rpt_kv *kv;
    size_t n;
    int has_env;
};

void co_rpt_env_read(const json_t *run, struct co_rpt_env *env);
void co_rpt_env_clear(struct co_rpt_env *env);

/* The environments of runs[0..n), in that order: an array the caller
 * frees with co_rpt_envs_free(envs, n). */
struct co_rpt_env *co_rpt_envs_read(const struct co_rpt_file *const *runs, size_t n);

/* Clear envs[0..n) and free the array; NULL-safe. */
void co_rpt_envs_free(struct co_rpt_env *envs, size_t n);

/* The value of key in env, or NULL. Borrowed. */
const char *co_rpt_env_get(const struct co_rpt_env *env, const char *key);

/* What a key describes: the configuration a user chose (server version and
 * variables, agents, options), or the data set the runs themselves (or the
 * time between them) changed: "dataset ..." and "table ..." keys, row counts
 * and sizes. A report lists the two apart, so that the line that matters is
 * not buried under drift. */
enum co_rpt_env_part { CO_RPT_ENV_CONFIG, CO_RPT_ENV_DATA };
enum co_rpt_env_part co_rpt_env_part_of(const char *key);

/* The keys of part whose values differ between envs[0..n) (a key one lacks
 * counts as differing), sorted; *n_keys of them. Strings borrowed from
 * envs; the array is the caller's to free. */
const char **co_rpt_env_diff(const struct co_rpt_env *envs, size_t n, enum co_rpt_env_part part,
                             size_t *n_keys);

#endif
