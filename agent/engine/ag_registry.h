/* ag_registry: the agent's workload families (ag_family.h). Their list,
 * ag_families, is generated from families/meson.build's (the one place
 * that names the families, in claim order). */
#ifndef AG_REGISTRY_H
#define AG_REGISTRY_H

#include <stddef.h>

#include "ag_family.h"

/* The families, NULL at the end: generated (co_families.c's twin,
 * families/gen_registry.py). */
extern const struct ag_family *const ag_families[];

/* The family that owns workload `name`, or NULL. */
const struct ag_family *ag_registry_find(const char *name);

/* Parse workload `name`'s options through its family: NULL with err filled
 * (PR_EINVAL: "unknown workload 'x'", or the family's message on a bad
 * option). The caller owns the result (wl->fam->wl_destroy). */
struct ag_wl *ag_registry_wl_new(const char *name, const struct ag_kv *opts, size_t nopts,
                                 struct pr_error *err);

#endif
