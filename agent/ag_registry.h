/* ag_registry: the agent's one list of workload families (ag_family.h).
 * The only place outside a family's folder that names a family. */
#ifndef AG_REGISTRY_H
#define AG_REGISTRY_H

#include <stddef.h>

#include "ag_family.h"

/* The family that owns workload `name`, or NULL. */
const struct ag_family *ag_registry_find(const char *name);

/* Parse workload `name`'s options through its family: NULL with err filled
 * (PR_EINVAL: "unknown workload 'x'", or the family's message on a bad
 * option). The caller owns the result (wl->fam->wl_destroy). */
struct ag_wl *ag_registry_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                                 struct pr_error *err);

#endif
