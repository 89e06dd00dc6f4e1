/* co_kinds_res: the run's statement kinds in its co_result, from the
 * agents' READY and DONE (contract: co_kinds_res.h). */
#include "co_kinds_res.h"

#include <stdlib.h>
#include <string.h>

#include "co_kinds.h"

int co_kinds_res_ready(struct co_result *res, const struct pr_msg_ready *rd, struct pr_error *err)
{
    if (rd->n_kinds == 0)
        return 0;
    if (res->kind_names == NULL) {
        res->kind_names = pr_xcalloc(rd->n_kinds, sizeof(*res->kind_names));
        for (uint32_t i = 0; i < rd->n_kinds; i++)
            res->kind_names[i] = pr_xstrdup(rd->kinds[i]);
        res->n_kinds = rd->n_kinds;
        return 0;
    }
    bool same = rd->n_kinds == res->n_kinds;
    for (uint32_t i = 0; same && i < rd->n_kinds; i++)
        same = strcmp(rd->kinds[i], res->kind_names[i]) == 0;
    if (same)
        return 0;
    return pr_error_set(err, PR_EINVAL,
                        "its statement kinds (%u, first '%s') differ from another agent's (%u, "
                        "first '%s'): install the same stampede version everywhere",
                        rd->n_kinds, rd->kinds[0], res->n_kinds, res->kind_names[0]);
}

void co_kinds_res_done(struct co_result *res, const struct pr_msg_done *d)
{
    uint32_t n = res->n_kinds;
    uint32_t m = d->n_kst < res->n_kinds ? d->n_kst : res->n_kinds;
    if (m == 0)
        return;
    if (res->kinds == NULL) {
        res->kinds = pr_xcalloc(n, sizeof(*res->kinds));
        for (uint32_t i = 0; i < n; i++)
            res->kinds[i].lat = pr_hist_new();
    }
    co_kinds_add(&res->kinds, &n, d->kst, m, res->kind_names, res->n_kinds, true);
}

void co_kinds_res_finish(struct co_result *res, struct co_kind_result **run, uint32_t *n_run)
{
    bool all_done = true;
    for (uint32_t i = 0; i < res->n_agents; i++)
        all_done = all_done && res->agents[i].done;
    if (all_done || *run == NULL || res->n_kinds == 0) {
        co_kinds_free(run, n_run);
        return;
    }
    uint32_t n = res->n_kinds;
    struct co_kind_result *k = pr_xcalloc(n, sizeof(*k));
    for (uint32_t i = 0; i < n; i++) {
        if (i < *n_run) {
            k[i] = (*run)[i];
            memset(&(*run)[i], 0, sizeof((*run)[i]));
        }
        if (k[i].lat == NULL && k[i].lat_frozen == NULL)
            k[i].lat = pr_hist_new();
    }
    co_kinds_name(k, n, res->kind_names, n);
    co_kinds_free(run, n_run);
    uint32_t old_n = n;
    co_kinds_free(&res->kinds, &old_n);
    res->kinds = k;
}
