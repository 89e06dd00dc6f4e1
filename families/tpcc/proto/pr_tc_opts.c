/* pr_tc_opts: the tpcc family's options read into typed, checked values,
 * the same on coordinator and agent, and its kind and schema names (contract:
 * pr_tc_opts.h). */
#include "pr_tc_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_parse.h"

static const char *const kind_names[PR_TC_K_COUNT_] = {
    "new_order",      "payment",      "order_status",      "delivery",      "stock_level",
    "new_order_stmt", "payment_stmt", "order_status_stmt", "delivery_stmt", "stock_level_stmt",
    "commit",         "rollback",     "retry_rollback",
};

static const char *const txn_labels[PR_TC_TXN_COUNT_] = {
    "New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level",
};

const char *pr_tc_kind_name(enum pr_tc_kind k)
{
    return (unsigned)k < PR_TC_K_COUNT_ ? kind_names[k] : "?";
}

const char *const *pr_tc_kind_names(void)
{
    return kind_names;
}

const char *pr_tc_txn_label(enum pr_tc_txn t)
{
    return (unsigned)t < PR_TC_TXN_COUNT_ ? txn_labels[t] : "?";
}

static int get_range(const pr_opts *o, const char *name, int64_t lo, int64_t hi, uint32_t *out,
                     struct pr_error *err)
{
    int64_t v = pr_opts_int(o, name);
    if (v < lo || v > hi)
        return pr_error_set(err, PR_EINVAL, "--%s=%lld: must be between %lld and %lld", name,
                            (long long)v, (long long)lo, (long long)hi);
    *out = (uint32_t)v;
    return 0;
}

static const uint32_t default_limits_ms[PR_TC_TXN_COUNT_] = {5, 5, 5, 80, 20};

static int get_limits(const pr_opts *o, struct pr_tc_opts *out, struct pr_error *err)
{
    const char *text = pr_opts_str(o, "rt-limits");
    struct pr_list_iter it;
    const char *item;
    size_t len;
    unsigned n = 0;

    pr_list_iter_init(&it, text);
    while (pr_list_iter_next(&it, &item, &len)) {
        char buf[24], *end;
        if (n == PR_TC_TXN_COUNT_ || len >= sizeof buf)
            goto bad;
        if (len == 0) { /* left empty: tpcc_start's default (-0..-4 not given) */
            out->rt_limit_ms[n] = default_limits_ms[n];
            n++;
            continue;
        }
        memcpy(buf, item, len);
        buf[len] = '\0';
        long long v = strtoll(buf, &end, 10);
        if (*end != '\0' || v < 0 || v > 86400000)
            goto bad;
        out->rt_limit_ms[n++] = (uint32_t)v;
    }
    if (n == PR_TC_TXN_COUNT_)
        return 0;
bad:
    return pr_error_set(err, PR_EINVAL,
                        "--rt-limits='%s': give five integer limits in ms, for New-Order, "
                        "Payment, Order-Status, Delivery and Stock-Level (default 5,5,5,80,20; one "
                        "left empty keeps its default)",
                        text);
}

static int get_parts(const pr_opts *o, struct pr_tc_opts *out, struct pr_error *err)
{
    static const char *const names[] = {"items", "warehouse", "customer", "orders"};
    const char *text = pr_opts_str(o, "load-parts");
    struct pr_list_iter it;
    const char *item;
    size_t len;

    out->parts = 0;
    pr_list_iter_init(&it, text);
    while (pr_list_iter_next(&it, &item, &len)) {
        unsigned bit = 0;
        for (unsigned i = 0; i < 4; i++)
            if (strlen(names[i]) == len && strncmp(item, names[i], len) == 0)
                bit = 1u << i;
        if (len == 3 && strncmp(item, "all", 3) == 0)
            bit = PR_TC_PART_ALL;
        if (bit == 0)
            return pr_error_set(err, PR_EINVAL,
                                "--load-parts: '%.*s' is not one of items, warehouse, customer, "
                                "orders, all",
                                (int)len, item);
        out->parts |= bit;
    }
    if (out->parts == 0)
        return pr_error_set(err, PR_EINVAL,
                            "--load-parts is empty: name one or more of items, warehouse, "
                            "customer, orders");
    return 0;
}

int pr_tc_opts_get(const pr_opts *o, struct pr_tc_opts *out, struct pr_error *err)
{
    memset(out, 0, sizeof *out);
    if (get_range(o, "warehouses", 1, PR_TC_MAX_WAREHOUSES, &out->warehouses, err) < 0 ||
        get_range(o, "warmup-time", 0, 86400, &out->warmup_s, err) < 0 ||
        get_range(o, "max-retries", 1, 1000000, &out->max_retries, err) < 0 ||
        get_range(o, "warehouse-first", 1, PR_TC_MAX_WAREHOUSES, &out->wh_first, err) < 0 ||
        get_range(o, "warehouse-last", 0, PR_TC_MAX_WAREHOUSES, &out->wh_last, err) < 0 ||
        get_range(o, "multi-schema", 0, PR_TC_MAX_SCHEMAS, &out->schemas, err) < 0 ||
        get_range(o, "multi-schema-offset", 0, PR_TC_MAX_SCHEMA_OFFSET, &out->schema_offset, err) <
            0 ||
        get_limits(o, out, err) < 0 || get_parts(o, out, err) < 0)
        return PR_EINVAL;
    if (out->wh_last == 0)
        out->wh_last = out->warehouses;
    if (out->wh_first > out->wh_last)
        return pr_error_set(err, PR_EINVAL,
                            "--warehouse-first=%u is after --warehouse-last=%u: give a range "
                            "first <= last",
                            out->wh_first, out->wh_last);
    out->foreign_keys = pr_opts_bool(o, "foreign-keys");
    out->check_all = pr_opts_bool(o, "check-all");
    out->record_new_order = *pr_opts_str(o, "report-file") || *pr_opts_str(o, "trx-file");
    return 0;
}

int pr_tc_schema_db(const char *base, const struct pr_tc_opts *o, uint64_t t, char *buf, size_t cap)
{
    uint64_t n = o->schemas ? o->schemas : 1;
    return snprintf(buf, cap, "%s_%llu", base, (unsigned long long)(t % n + o->schema_offset));
}
