/* ag_registry: the list of families. Adding a family is one line here. */
#include "ag_registry.h"

#include "ag_lua_family.h"
#include "ag_sb_family.h"
#include "ag_tc_family.h"

static const struct ag_family *const families[] = {
    &ag_sb_family,
    &ag_tc_family,
    &ag_lua_family,
};

const struct ag_family *ag_registry_find(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i]->has_workload(name))
            return families[i];
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
