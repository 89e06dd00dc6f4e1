/* co_kinds: see co_kinds.h. */
#include "co_kinds.h"

#include <stdlib.h>
#include <string.h>

void co_kinds_name(struct co_kind_result *k, uint32_t n, char *const *names, uint32_t n_names)
{
    for (uint32_t i = 0; i < n && i < n_names; i++)
        if (k[i].name == NULL)
            k[i].name = names[i];
}

void co_kinds_add(struct co_kind_result **dst, uint32_t *n, const struct pr_msg_kstat *src,
                  uint32_t n_src, char *const *names, uint32_t n_names, bool expanded)
{
    if (n_src == 0)
        return;
    if (*dst == NULL) {
        *dst = pr_xcalloc(n_src, sizeof(**dst));
        *n = n_src;
        for (uint32_t i = 0; expanded && i < n_src; i++)
            (*dst)[i].lat = pr_hist_new();
    }
    struct co_kind_result *k = *dst;
    co_kinds_name(k, *n, names, n_names);
    for (uint32_t i = 0; i < *n && i < n_src; i++) {
        k[i].count += src[i].count;
        k[i].errors += src[i].errors;
        k[i].late += src[i].late;
        co_kind_add_lat(&k[i], &src[i]);
    }
}

void co_kind_add_lat(struct co_kind_result *k, const struct pr_msg_kstat *src)
{
    /* lat first, as the encoder. A decoded entry is frozen
     * (pr_msg_kstat.lat_frozen): added pair by pair, its occupied buckets
     * only, never over its whole span. */
    if (k->lat != NULL && src->lat != NULL)
        pr_hist_add(k->lat, src->lat);
    else if (src->lat != NULL)
        pr_hist_frozen_add(&k->lat_frozen, src->lat);
    else if (k->lat != NULL && src->lat_frozen != NULL)
        pr_hist_add_frozen(k->lat, src->lat_frozen);
    else if (src->lat_frozen != NULL)
        pr_hist_frozen_merge(&k->lat_frozen, src->lat_frozen);
}

void co_kinds_freeze(struct co_kind_result *k, uint32_t n)
{
    for (uint32_t i = 0; k && i < n; i++) {
        if (k[i].lat == NULL)
            continue;
        if (k[i].lat_frozen == NULL)
            k[i].lat_frozen = pr_hist_freeze(k[i].lat);
        else
            pr_hist_frozen_add(&k[i].lat_frozen, k[i].lat);
        pr_hist_destroy(&k[i].lat);
    }
}

void co_kinds_free(struct co_kind_result **k, uint32_t *n)
{
    for (uint32_t i = 0; *k && i < *n; i++) {
        pr_hist_destroy(&(*k)[i].lat);
        pr_hist_frozen_destroy(&(*k)[i].lat_frozen);
    }
    free(*k);
    *k = NULL;
    *n = 0;
}

const pr_hist *co_kind_lat(const struct co_kind_result *k, pr_hist *scratch)
{
    if (k->lat != NULL)
        return k->lat;
    if (scratch == NULL)
        return NULL;
    if (k->lat_frozen != NULL)
        pr_hist_thaw(scratch, k->lat_frozen);
    else
        pr_hist_reset(scratch);
    return scratch;
}

void co_kinds_sum(struct co_kind_result **dst, uint32_t *n, const struct co_kind_result *src,
                  uint32_t n_src)
{
    if (n_src == 0 || src == NULL)
        return;
    if (*dst == NULL) {
        *dst = pr_xcalloc(n_src, sizeof(**dst));
        *n = n_src;
        for (uint32_t i = 0; i < n_src; i++)
            (*dst)[i].lat = pr_hist_new();
    }
    for (uint32_t i = 0; i < *n && i < n_src; i++) {
        struct co_kind_result *k = &(*dst)[i];
        if (k->name == NULL)
            k->name = src[i].name;
        k->count += src[i].count;
        k->errors += src[i].errors;
        k->late += src[i].late;
        if (src[i].lat != NULL)
            pr_hist_add(k->lat, src[i].lat);
        else if (src[i].lat_frozen != NULL)
            pr_hist_add_frozen(k->lat, src[i].lat_frozen);
    }
}
