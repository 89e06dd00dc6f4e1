/* ag_sb_share: an agent's part of the data under --partition (see ag_sb_share.h). */
#include "ag_sb_share.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* tables: every entry a distinct, whole table of 1..tables. */
static int init_tables(struct ag_sb_share *s, const struct pr_msg_table *t, size_t n,
                       struct pr_error *err)
{
    uint64_t whole = s->table_size ? s->table_size : 1;

    if (n == 0)
        return pr_error_set(err, PR_EINVAL,
                            "PLAN part=tables gives this agent no table: the coordinator must "
                            "list at least one");
    bool *seen = pr_xcalloc((size_t)s->tables + 1, sizeof *seen);
    s->list = pr_xcalloc(n, sizeof *s->list);
    for (size_t i = 0; i < n; i++) {
        const struct pr_msg_table *e = &t[i];
        int rc = 0;
        if (e->table < 1 || e->table > s->tables)
            rc = pr_error_set(err, PR_EINVAL, "PLAN part=tables: table %u is outside --tables=%u",
                              e->table, s->tables);
        else if (seen[e->table])
            rc = pr_error_set(err, PR_EINVAL, "PLAN part=tables: table %u is listed twice",
                              e->table);
        else if (e->id_lo != 1 || e->id_hi != whole)
            rc = pr_error_set(err, PR_EINVAL,
                              "PLAN part=tables: table %u has ids %llu..%llu, not the whole "
                              "table 1..%llu (--table_size)",
                              e->table, (unsigned long long)e->id_lo, (unsigned long long)e->id_hi,
                              (unsigned long long)whole);
        if (rc < 0) {
            free(seen);
            return rc;
        }
        seen[e->table] = true;
        s->list[s->nlist++] = e->table;
    }
    free(seen);
    return 0;
}

/* rows: every table 1..tables exactly once, with a slice of 1..table_size. */
static int init_rows(struct ag_sb_share *s, const struct pr_msg_table *t, size_t n,
                     struct pr_error *err)
{
    s->lo = pr_xcalloc((size_t)s->tables + 1, sizeof *s->lo);
    s->hi = pr_xcalloc((size_t)s->tables + 1, sizeof *s->hi);
    for (size_t i = 0; i < n; i++) {
        const struct pr_msg_table *e = &t[i];
        if (e->table < 1 || e->table > s->tables)
            return pr_error_set(err, PR_EINVAL, "PLAN part=rows: table %u is outside --tables=%u",
                                e->table, s->tables);
        if (s->lo[e->table] != 0)
            return pr_error_set(err, PR_EINVAL, "PLAN part=rows: table %u is listed twice",
                                e->table);
        if (e->id_lo < 1 || e->id_lo > e->id_hi || e->id_hi > s->table_size)
            return pr_error_set(err, PR_EINVAL,
                                "PLAN part=rows: table %u has ids %llu..%llu, not a range "
                                "within 1..%u (--table_size)",
                                e->table, (unsigned long long)e->id_lo,
                                (unsigned long long)e->id_hi, s->table_size);
        s->lo[e->table] = (uint32_t)e->id_lo;
        s->hi[e->table] = (uint32_t)e->id_hi;
    }
    for (uint32_t k = 1; k <= s->tables; k++)
        if (s->lo[k] == 0)
            return pr_error_set(err, PR_EINVAL,
                                "PLAN part=rows: table %u has no id range (every table 1..%u "
                                "must be listed)",
                                k, s->tables);
    return 0;
}

int ag_sb_share_init(struct ag_sb_share *s, enum pr_partition part, const struct pr_msg_table *t,
                     size_t n, uint32_t tables, uint32_t table_size, struct pr_error *err)
{
    int rc = 0;

    memset(s, 0, sizeof *s);
    s->part = part;
    s->tables = tables;
    s->table_size = table_size;
    switch (part) {
    case PR_PART_NONE:
        if (n > 0)
            rc = pr_error_set(err, PR_EINVAL,
                              "PLAN part=none lists %zu table(s): a plan confined to tables or "
                              "rows must say part=tables or part=rows",
                              n);
        break;
    case PR_PART_TABLES:
        rc = init_tables(s, t, n, err);
        break;
    case PR_PART_ROWS:
        rc = init_rows(s, t, n, err);
        break;
    default:
        rc = pr_error_set(err, PR_EINVAL, "PLAN part=%d is not none, tables or rows", (int)part);
        break;
    }
    if (rc < 0)
        ag_sb_share_close(s);
    return rc;
}

void ag_sb_share_close(struct ag_sb_share *s)
{
    free(s->list);
    free(s->lo);
    free(s->hi);
    memset(s, 0, sizeof *s);
}

uint32_t ag_sb_share_table(const struct ag_sb_share *s, struct ag_rand *r)
{
    if (s->part == PR_PART_TABLES)
        return s->list[ag_rand_uniform(r, 1, s->nlist) - 1];
    return ag_rand_uniform(r, 1, s->tables);
}

int64_t ag_sb_share_id(const struct ag_sb_share *s, const struct ag_dist *d, struct ag_rand *r,
                       uint32_t t)
{
    if (s->part != PR_PART_ROWS)
        return ag_dist_draw(d, r, 1, s->table_size);
    uint32_t lo = s->lo[t], hi = s->hi[t];
    return (int64_t)lo - 1 + ag_dist_draw(d, r, 1, hi - lo + 1);
}

void ag_sb_share_range(const struct ag_sb_share *s, const struct ag_dist *d, struct ag_rand *r,
                       uint32_t t, uint32_t range_size, int64_t *start, int64_t *end)
{
    *start = ag_sb_share_id(s, d, r, t);
    if (s->part == PR_PART_ROWS && range_size > 0) {
        int64_t lo = s->lo[t], hi = s->hi[t];
        if (hi - lo + 1 < (int64_t)range_size) {
            *start = lo;
            *end = hi;
            return;
        }
        if (*start + range_size - 1 > hi)
            *start = hi - range_size + 1;
    }
    *end = *start + range_size - 1;
}
