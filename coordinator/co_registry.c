/* co_registry: the coordinator's list of families. Adding a family is one
 * line here. */
#include <stddef.h>

#include "co_family.h"

static const struct co_family *const families[] = {
    &co_sb_family,
    &co_lua_family,
    &co_tc_family,
};

const struct co_family *co_registry_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof families / sizeof families[0]; i++)
        if (families[i]->has_workload(name))
            return families[i];
    return NULL;
}
