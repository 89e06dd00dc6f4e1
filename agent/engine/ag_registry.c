/* ag_registry: look-ups over the agent's families (ag_families, generated
 * from families/meson.build's list; ag_registry.h). */
#include "ag_registry.h"

const struct ag_family *ag_registry_find(const char *name)
{
    for (size_t i = 0; ag_families[i] != NULL; i++)
        if (ag_families[i]->has_workload(name))
            return ag_families[i];
    return NULL;
}

struct ag_wl *ag_registry_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                                 struct pr_error *err)
{
    const struct ag_family *f = ag_registry_find(name);

    if (f == NULL) {
        pr_error_set(err, PR_EINVAL, "unknown workload '%s'", name);
        return NULL;
    }
    return f->wl_new(name, opts, nopts, err);
}
