/* pr_msg_lat: a STATS' latency read whichever form it holds (lat or
 * lat_frozen), so readers need not test both (contract: pr_msg_lat.h). */
#include "pr_msg_lat.h"

void pr_msg_stats_lat_add(pr_hist *dst, const struct pr_msg_stats *st)
{
    if (st->lat != NULL)
        pr_hist_add(dst, st->lat);
    else if (st->lat_frozen != NULL)
        pr_hist_add_frozen(dst, st->lat_frozen);
}

void pr_msg_stats_lat_fold(pr_hist_frozen **dst, const struct pr_msg_stats *st)
{
    if (st->lat != NULL)
        pr_hist_frozen_add(dst, st->lat);
    else if (st->lat_frozen != NULL)
        pr_hist_frozen_merge(dst, st->lat_frozen);
}

void pr_msg_stats_lat_acc(pr_hist_acc *acc, const struct pr_msg_stats *st)
{
    if (st->lat != NULL)
        pr_hist_acc_add(acc, st->lat);
    else if (st->lat_frozen != NULL)
        pr_hist_acc_add_frozen(acc, st->lat_frozen);
}

pr_hist_frozen *pr_msg_stats_lat_freeze(const struct pr_msg_stats *st)
{
    pr_hist_frozen *f = NULL;
    if (st->lat != NULL)
        return pr_hist_freeze(st->lat);
    if (st->lat_frozen != NULL)
        pr_hist_frozen_merge(&f, st->lat_frozen);
    if (f == NULL) { /* neither: an empty one, as pr_hist_freeze of an empty histogram */
        pr_hist *h = pr_hist_new();
        f = pr_hist_freeze(h);
        pr_hist_destroy(&h);
    }
    return f;
}

uint64_t pr_msg_stats_lat_count(const struct pr_msg_stats *st)
{
    if (st->lat != NULL)
        return pr_hist_count(st->lat);
    return st->lat_frozen != NULL ? pr_hist_frozen_count(st->lat_frozen) : 0;
}

uint64_t pr_msg_stats_lat_sum(const struct pr_msg_stats *st)
{
    if (st->lat != NULL)
        return pr_hist_sum(st->lat);
    return st->lat_frozen != NULL ? pr_hist_frozen_sum(st->lat_frozen) : 0;
}

uint64_t pr_msg_stats_lat_percentile(const struct pr_msg_stats *st, double p)
{
    if (st->lat != NULL)
        return pr_hist_value_at_percentile(st->lat, p);
    return st->lat_frozen != NULL ? pr_hist_frozen_value_at_percentile(st->lat_frozen, p) : 0;
}

bool pr_msg_stats_lat_next(const struct pr_msg_stats *st, struct pr_hist_iter *it)
{
    if (st->lat != NULL)
        return pr_hist_next(st->lat, it);
    return st->lat_frozen != NULL && pr_hist_frozen_next(st->lat_frozen, it);
}
