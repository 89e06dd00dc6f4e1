/* co_registry: look-ups over the coordinator's families (co_families,
 * generated from families/meson.build's list; co_family.h). */
#include <stddef.h>

#include "co_family.h"
#include "co_rpt_family.h"

const struct co_family *co_registry_find(const char *name)
{
    for (size_t i = 0; name && co_families[i] != NULL; i++)
        if (co_families[i]->has_workload(name))
            return co_families[i];
    return NULL;
}

const struct co_family *co_registry_at(size_t i)
{
    for (size_t j = 0; j <= i; j++)
        if (co_families[j] == NULL)
            return NULL;
    return co_families[i];
}

int co_registry_parse_word(struct co_args *a, const char *w, const char *c, struct pr_error *err)
{
    const struct co_family *f;
    for (size_t i = 0; (f = co_registry_at(i)) != NULL; i++) {
        int rc = f->parse_word ? f->parse_word(a, w, c, err) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

const struct co_rpt_family *co_rpt_family_at(size_t i)
{
    const struct co_family *f;
    for (size_t j = 0; (f = co_registry_at(j)) != NULL; j++)
        if (f->rpt != NULL && i-- == 0)
            return f->rpt;
    return NULL;
}

bool co_rpt_family_in(const struct co_rpt_family *f, const json_t *root)
{
    return f->json_key != NULL && json_is_object(json_object_get(root, f->json_key));
}

int co_registry_argv_translate(int argc, char **argv, struct co_family_argv *out,
                               struct pr_error *err)
{
    const struct co_family *f;
    *out = (struct co_family_argv){0};
    for (size_t i = 0; (f = co_registry_at(i)) != NULL; i++) {
        int rc = f->argv_translate ? f->argv_translate(argc, argv, out, err) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

void co_family_argv_free(struct co_family_argv *fa)
{
    if (fa->free_fn)
        fa->free_fn(fa);
    *fa = (struct co_family_argv){0};
}
