/* co_rpt_env: a run's environment flattened and diffed (see
 * co_rpt_env.h). */
#include "co_rpt_env.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_err.h"

static void env_add(struct co_rpt_env *env, size_t *cap, const char *key, const char *val)
{
    if (env->n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        struct co_rpt_kv *kv = realloc(env->kv, *cap * sizeof(*kv));
        if (kv == NULL)
            abort();
        env->kv = kv;
    }
    env->kv[env->n].key = pr_xstrdup(key);
    env->kv[env->n].val = pr_xstrdup(val);
    env->n++;
}

/* A scalar as text; "null" for null (and for anything not scalar). */
static void scalar_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.15g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(buf, len, "null");
}

/* Every scalar member of obj as "PREFIX NAME" (or NAME when prefix is
 * empty). A null variable gets its reason from unread, when there. */
static void add_object(struct co_rpt_env *env, size_t *cap, const char *prefix, const json_t *obj,
                       const json_t *unread)
{
    const char *name;
    json_t *v;
    char key[512], val[1024];
    json_object_foreach((json_t *)obj, name, v)
    {
        if (json_is_object(v) || json_is_array(v))
            continue;
        snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? " " : "", name);
        scalar_text(v, val, sizeof(val));
        const char *why = json_string_value(json_object_get(unread, name));
        if (json_is_null(v) && why != NULL)
            snprintf(val, sizeof(val), "null (%s)", why);
        env_add(env, cap, key, val);
    }
}

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct co_rpt_kv *)a)->key, ((const struct co_rpt_kv *)b)->key);
}

void co_rpt_env_read(const json_t *run, struct co_rpt_env *env)
{
    size_t cap = 0;
    char prefix[256];
    memset(env, 0, sizeof(*env));
    const json_t *e = json_object_get(run, "environment");
    env->has_env = json_is_object(e);
    const json_t *srv = json_object_get(e, "server");
    add_object(env, &cap, "server", srv, NULL);
    add_object(env, &cap, "", json_object_get(srv, "variables"), json_object_get(srv, "unread"));
    const json_t *ds = json_object_get(e, "dataset");
    add_object(env, &cap, "dataset", ds, NULL);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(ds, "tables"), i, item)
    {
        const char *tn = json_string_value(json_object_get(item, "name"));
        snprintf(prefix, sizeof(prefix), "table %s", tn ? tn : "?");
        add_object(env, &cap, prefix, item, NULL);
    }
    json_array_foreach(json_object_get(e, "agents"), i, item)
    {
        const char *an = json_string_value(json_object_get(item, "name"));
        snprintf(prefix, sizeof(prefix), "agent %s", an ? an : "?");
        add_object(env, &cap, prefix, item, NULL);
    }
    add_object(env, &cap, "option", json_object_get(run, "options"), NULL);
    /* A table's and an agent's own name is the key already. */
    size_t k = 0;
    for (size_t j = 0; j < env->n; j++) {
        const char *key = env->kv[j].key;
        size_t len = strlen(key);
        bool self = (strncmp(key, "table ", 6) == 0 || strncmp(key, "agent ", 6) == 0) && len > 5 &&
                    strcmp(key + len - 5, " name") == 0;
        if (self) {
            free(env->kv[j].key);
            free(env->kv[j].val);
        } else {
            env->kv[k++] = env->kv[j];
        }
    }
    env->n = k;
    if (env->n > 0)
        qsort(env->kv, env->n, sizeof(*env->kv), kv_cmp);
}

void co_rpt_env_clear(struct co_rpt_env *env)
{
    for (size_t i = 0; i < env->n; i++) {
        free(env->kv[i].key);
        free(env->kv[i].val);
    }
    free(env->kv);
    memset(env, 0, sizeof(*env));
}

struct co_rpt_env *co_rpt_envs_read(const struct co_rpt_file *const *runs, size_t n)
{
    struct co_rpt_env *envs = pr_xcalloc(n ? n : 1, sizeof(*envs));
    for (size_t i = 0; i < n; i++)
        co_rpt_env_read(runs[i]->root, &envs[i]);
    return envs;
}

void co_rpt_envs_free(struct co_rpt_env *envs, size_t n)
{
    for (size_t i = 0; envs != NULL && i < n; i++)
        co_rpt_env_clear(&envs[i]);
    free(envs);
}

const char *co_rpt_env_get(const struct co_rpt_env *env, const char *key)
{
    struct co_rpt_kv probe = {.key = (char *)key};
    const struct co_rpt_kv *kv =
        env->n ? bsearch(&probe, env->kv, env->n, sizeof(*env->kv), kv_cmp) : NULL;
    return kv ? kv->val : NULL;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

enum co_rpt_env_part co_rpt_env_part_of(const char *key)
{
    return strncmp(key, "dataset ", 8) == 0 || strncmp(key, "table ", 6) == 0 ? CO_RPT_ENV_DATA
                                                                              : CO_RPT_ENV_CONFIG;
}

const char **co_rpt_env_diff(const struct co_rpt_env *envs, size_t n, enum co_rpt_env_part part,
                             size_t *n_keys)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += envs[i].n;
    const char **keys = pr_xcalloc(total ? total : 1, sizeof(*keys));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < envs[i].n; j++) {
            const char *key = envs[i].kv[j].key;
            if (co_rpt_env_part_of(key) != part)
                continue;
            bool differs = false, seen = false;
            for (size_t r = 0; r < n && !differs; r++) {
                const char *v = co_rpt_env_get(&envs[r], key);
                differs = v == NULL || strcmp(v, envs[i].kv[j].val) != 0;
            }
            for (size_t q = 0; q < k && !seen; q++)
                seen = strcmp(keys[q], key) == 0;
            if (differs && !seen)
                keys[k++] = key;
        }
    if (k > 0)
        qsort(keys, k, sizeof(*keys), str_cmp);
    *n_keys = k;
    return keys;
}
