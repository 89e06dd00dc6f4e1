/* pr_split: exact work splitting. See pr_split.h for the contracts.
 *
 * Largest remainder without sorting: after the floors, `left` units remain
 * (left < number of agents with a non-zero remainder). Rather than sort the
 * remainders (which needs scratch memory and a comparator with context), we
 * binary-search the largest remainder value v that at least `left` agents
 * reach; agents above v get one unit each and the rest go to agents exactly
 * at v in index order. That is the same answer as a sort by (remainder desc,
 * index asc), in O(64 n) time and no allocation.
 */
#include "pr_split.h"

#include <stdlib.h>
#include <string.h>

#include "pr_err.h"

/* Products total * weight need 128 bits; __extension__ keeps -Wpedantic
 * quiet about the GCC/Clang type. */
__extension__ typedef unsigned __int128 pr__u128;

static uint64_t weight_of(const uint64_t *weights, uint32_t i)
{
    return weights != NULL ? weights[i] : 1;
}

/* Sum of the weights and the number of non-zero ones. */
static int weight_sum(uint32_t n, const uint64_t *weights, uint64_t *wsum, uint32_t *active)
{
    uint64_t sum = 0;
    uint32_t act = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = weight_of(weights, i);
        if (w > UINT64_MAX - sum)
            return PR_ERANGE;
        sum += w;
        act += w > 0;
    }
    if (sum == 0)
        return PR_EINVAL;
    *wsum = sum;
    *active = act;
    return 0;
}

static uint32_t count_ge(const uint64_t *rem, uint32_t n, uint64_t v)
{
    uint32_t c = 0;

    for (uint32_t i = 0; i < n; i++)
        c += rem[i] >= v;
    return c;
}

/* Largest v in [0, wsum) such that at least `left` remainders are >= v. */
static uint64_t rem_threshold(const uint64_t *rem, uint32_t n, uint64_t left, uint64_t wsum)
{
    uint64_t lo = 0, hi = wsum - 1;

    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2 + 1;
        if (count_ge(rem, n, mid) >= left)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint64_t pr_split_span_len(struct pr_split_span span)
{
    return span.hi < span.lo ? 0 : span.hi - span.lo + 1;
}

int pr_split_u64(uint64_t total, uint32_t n_agents, const uint64_t *weights, uint64_t *shares)
{
    uint64_t wsum, left = total, thresh = 0, ties = 0;
    uint32_t active;

    if (n_agents == 0 || shares == NULL)
        return PR_EINVAL;
    int rc = weight_sum(n_agents, weights, &wsum, &active);
    if (rc < 0)
        return rc;
    /* Pass 1: floors, keeping each remainder in shares[] for the search. */
    for (uint32_t i = 0; i < n_agents; i++) {
        pr__u128 prod = (pr__u128)total * weight_of(weights, i);
        left -= (uint64_t)(prod / wsum);
        shares[i] = (uint64_t)(prod % wsum);
    }
    if (left > 0) {
        thresh = rem_threshold(shares, n_agents, left, wsum);
        ties = left - count_ge(shares, n_agents, thresh + 1);
    }
    /* Pass 2: floor plus one for the `left` largest remainders. */
    for (uint32_t i = 0; i < n_agents; i++) {
        uint64_t rem = shares[i];
        pr__u128 prod = (pr__u128)total * weight_of(weights, i);
        uint64_t bonus = 0;
        if (left > 0 && rem > thresh) {
            bonus = 1;
        } else if (left > 0 && rem == thresh && ties > 0) {
            bonus = 1;
            ties--;
        }
        shares[i] = (uint64_t)(prod / wsum) + bonus;
    }
    return 0;
}

/* Every active agent gets 1 plus its share of what is left after that. */
static int split_min_one(uint64_t total, uint32_t n, const uint64_t *weights, uint64_t *counts)
{
    uint64_t wsum;
    uint32_t active;

    if (n == 0 || counts == NULL)
        return PR_EINVAL;
    int rc = weight_sum(n, weights, &wsum, &active);
    if (rc < 0)
        return rc;
    if (total < active)
        return PR_ERANGE;
    rc = pr_split_u64(total - active, n, weights, counts);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        counts[i] += weight_of(weights, i) > 0;
    return 0;
}

/* Consecutive counts to consecutive 1-based spans; empty spans are {1, 0}. */
static void spans_from_counts(uint32_t n, const uint64_t *counts, struct pr_split_span *spans)
{
    uint64_t next = 1;

    for (uint32_t i = 0; i < n; i++) {
        if (counts[i] == 0) {
            spans[i] = (struct pr_split_span){.lo = 1, .hi = 0};
            continue;
        }
        spans[i] = (struct pr_split_span){.lo = next, .hi = next + (counts[i] - 1)};
        next += counts[i];
    }
}

static int split_spans(uint64_t total, uint32_t n, const uint64_t *weights,
                       struct pr_split_span *spans)
{
    if (n == 0 || spans == NULL)
        return PR_EINVAL;
    if (n > PR_SPLIT_MAX_AGENTS)
        return PR_ETOO_BIG;
    uint64_t *counts = pr_xmalloc(n * sizeof(*counts));
    int rc = split_min_one(total, n, weights, counts);
    if (rc == 0)
        spans_from_counts(n, counts, spans);
    free(counts);
    return rc;
}

int pr_split_tables(uint32_t n_agents, const uint64_t *weights, uint32_t n_tables,
                    struct pr_split_span *spans)
{
    if (n_tables == 0)
        return PR_EINVAL;
    if (n_tables > PR_SPLIT_MAX_TABLES)
        return PR_ETOO_BIG;
    return split_spans(n_tables, n_agents, weights, spans);
}

int pr_split_rows(uint32_t n_agents, const uint64_t *weights, uint64_t table_size,
                  struct pr_split_span *spans)
{
    return split_spans(table_size, n_agents, weights, spans);
}

/* Whole-table mode: one piece per table, its agent creates and indexes. */
static int prepare_whole(uint32_t n, const uint64_t *weights, uint32_t n_tables,
                         uint64_t table_size, struct pr_split_piece *out, size_t *n_out)
{
    struct pr_split_span *spans = pr_xmalloc(n * sizeof(*spans));
    int rc = pr_split_tables(n, weights, n_tables, spans);
    size_t k = 0;

    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        for (uint64_t t = spans[i].lo; t <= spans[i].hi; t++) {
            out[k++] = (struct pr_split_piece){.agent = i,
                                               .table = (uint32_t)t,
                                               .id_lo = 1,
                                               .id_hi = table_size,
                                               .table_pieces = 1,
                                               .creates = true,
                                               .indexes = true};
        }
    }
    free(spans);
    *n_out = k;
    return rc;
}

/* Row mode, one table: split its ids over `g` group members (agent indexes
 * members[0..g-1], their weights in wmem or NULL for equal). Appends the
 * pieces at out and returns how many. counts has room for g entries. */
static size_t prepare_table(uint32_t table, uint64_t table_size, const uint32_t *members,
                            uint32_t g, const uint64_t *wmem, uint64_t *counts,
                            struct pr_split_piece *out)
{
    size_t k = 0;
    uint64_t next = 1;

    /* Members have non-zero weights, so neither split can fail here. */
    if (table_size >= g)
        (void)split_min_one(table_size, g, wmem, counts);
    else
        (void)pr_split_u64(table_size, g, wmem, counts);
    for (uint32_t m = 0; m < g; m++) {
        if (counts[m] == 0 && !(table_size == 0 && m == 0))
            continue;
        out[k++] = (struct pr_split_piece){
            .agent = members[m], .table = table, .id_lo = next, .id_hi = next + counts[m] - 1};
        next += counts[m];
    }
    for (size_t j = 0; j < k; j++)
        out[j].table_pieces = (uint32_t)k;
    out[0].creates = true;
    out[k - 1].indexes = true;
    return k;
}

/* Row mode: active agents in contiguous groups, one group per table. */
static void prepare_rows(uint32_t n, const uint64_t *weights, uint32_t active, uint32_t n_tables,
                         uint64_t table_size, struct pr_split_piece *out, size_t *n_out)
{
    uint32_t *act = pr_xmalloc(active * sizeof(*act));
    uint64_t *groups = pr_xmalloc(n_tables * sizeof(*groups));
    uint64_t *wmem = pr_xmalloc(active * sizeof(*wmem));
    uint64_t *counts = pr_xmalloc(active * sizeof(*counts));
    uint32_t a = 0, off = 0;
    size_t k = 0;

    for (uint32_t i = 0; i < n; i++) {
        if (weight_of(weights, i) > 0) {
            wmem[a] = weight_of(weights, i);
            act[a++] = i;
        }
    }
    (void)pr_split_u64(active, n_tables, NULL, groups);
    for (uint32_t t = 0; t < n_tables; t++) {
        uint32_t g = (uint32_t)groups[t];
        k += prepare_table(t + 1, table_size, act + off, g, weights ? wmem + off : NULL, counts,
                           out + k);
        off += g;
    }
    free(counts);
    free(wmem);
    free(groups);
    free(act);
    *n_out = k;
}

int pr_split_prepare(uint32_t n_agents, const uint64_t *weights, uint32_t n_tables,
                     uint64_t table_size, struct pr_split_piece **pieces, size_t *n_pieces)
{
    uint64_t wsum;
    uint32_t active;

    if (pieces == NULL || n_pieces == NULL)
        return PR_EINVAL;
    *pieces = NULL;
    *n_pieces = 0;
    if (n_agents == 0 || n_tables == 0)
        return PR_EINVAL;
    if (n_agents > PR_SPLIT_MAX_AGENTS || n_tables > PR_SPLIT_MAX_TABLES)
        return PR_ETOO_BIG;
    int rc = weight_sum(n_agents, weights, &wsum, &active);
    if (rc < 0)
        return rc;
    /* At most one piece per table (whole mode) or per active agent (rows). */
    size_t cap = n_tables > n_agents ? n_tables : n_agents;
    struct pr_split_piece *out = pr_xcalloc(cap, sizeof(*out));
    size_t k = 0;
    if (n_tables >= active)
        rc = prepare_whole(n_agents, weights, n_tables, table_size, out, &k);
    else
        prepare_rows(n_agents, weights, active, n_tables, table_size, out, &k);
    if (rc < 0) {
        free(out);
        return rc;
    }
    *pieces = out;
    *n_pieces = k;
    return 0;
}

/* Sift perm[root] down a max-heap of perm[0..end) ordered by name. */
static void sift_down(const char *const *names, uint32_t *perm, size_t root, size_t end)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= end)
            return;
        if (child + 1 < end && strcmp(names[perm[child]], names[perm[child + 1]]) < 0)
            child++;
        if (strcmp(names[perm[root]], names[perm[child]]) >= 0)
            return;
        uint32_t tmp = perm[root];
        perm[root] = perm[child];
        perm[child] = tmp;
        root = child;
    }
}

int pr_split_order(const char *const *names, uint32_t n, uint32_t *perm)
{
    if (n == 0 || names == NULL || perm == NULL)
        return PR_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        if (names[i] == NULL)
            return PR_EINVAL;
        perm[i] = i;
    }
    /* Heapsort: in place, O(n log n); names are unique, so any correct sort
     * gives the same permutation. */
    for (size_t i = n / 2; i-- > 0;)
        sift_down(names, perm, i, n);
    for (size_t end = n; end-- > 1;) {
        uint32_t tmp = perm[0];
        perm[0] = perm[end];
        perm[end] = tmp;
        sift_down(names, perm, 0, end);
    }
    for (uint32_t i = 1; i < n; i++) {
        if (strcmp(names[perm[i - 1]], names[perm[i]]) == 0)
            return PR_EDUP_KEY;
    }
    return 0;
}

/* splitmix64's output function (Steele, Lea, Flood 2014): a bijection on
 * 64-bit values with full avalanche. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t pr_split_seed(uint64_t run_seed, uint32_t agent, uint32_t conn)
{
    /* (agent, conn) packs into one 64-bit key without loss; key -> seed is
     * then a composition of bijections for a fixed run seed. Different
     * constants on the two inputs keep seed(s, k) != seed(k, s) patterns. */
    uint64_t run = mix64(run_seed + UINT64_C(0x9e3779b97f4a7c15));
    uint64_t key = ((uint64_t)agent << 32) | conn;
    return mix64(run + mix64(key ^ UINT64_C(0xd1b54a32d192ed03)));
}
