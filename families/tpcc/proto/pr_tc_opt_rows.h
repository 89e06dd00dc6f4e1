/* pr_tc_opt_rows: the tpcc family's rows of pr_opts' option table, one
 * macro with no includes, so that pr_opts.c can list them without depending
 * on pr_tc_opts (which reads them through pr_opts). */
#ifndef PR_TC_OPT_ROWS_H
#define PR_TC_OPT_ROWS_H

/* The tpcc family's option schema: its rows of pr_opts' table, as
 * T(name, type, default, help) (pr_opts.c defines T). Next to pr_tc_opts'
 * typed reader, so a tpcc option has one home. */
#define PR_TC_OPT_ROWS(T)                                                                          \
    T("warehouses", INT, "1", "number of warehouses (tpcc_load/tpcc_start -w)"),                   \
        T("warmup-time", INT, "10",                                                                \
          "ramp-up seconds before measuring starts: transactions run but are not counted "         \
          "(tpcc_start -r)"),                                                                      \
        T("rt-limits", LIST, "5,5,5,80,20",                                                        \
          "response-time limits in ms for New-Order, Payment, Order-Status, Delivery and "         \
          "Stock-Level: a transaction at or above its limit counts as late (tpcc_start -0..-4)"),  \
        T("max-retries", INT, "2000",                                                              \
          "attempts of one transaction, with identical inputs, before it counts as failed"),       \
        T("load-parts", LIST, "items,warehouse,customer,orders",                                   \
          "what prepare loads: items (item), warehouse (warehouse, stock, district), customer "    \
          "(customer, history), orders (orders, new_orders, order_line) (tpcc_load -l)"),          \
        T("warehouse-first", INT, "1", "first warehouse prepare loads (tpcc_load -m)"),            \
        T("warehouse-last", INT, "0",                                                              \
          "last warehouse prepare loads, 0: --warehouses (tpcc_load -n)"),                         \
        T("foreign-keys", BOOL, "on",                                                              \
          "after the load, add add_fkey_idx.sql's secondary indexes and foreign keys"),            \
        T("check-all", BOOL, "off",                                                                \
          "check: every TPC-C consistency condition (clause 3.3.2.1-12), not only 1-4"),           \
        T("report-file", STRING, NULL,                                                             \
          "run: write tpcc_start's -f file: a line \"<time_count> <rt_ms>\" per completed "        \
          "New-Order (tpcc_start -f)"),                                                            \
        T("trx-file", STRING, NULL,                                                                \
          "run: write tpcc_start's -t file: a line \"t_num: N finish: s ns start: s ns\" per "     \
          "committed New-Order (tpcc_start -t)"),                                                  \
        T("multi-schema", INT, "0",                                                                \
          "run: N schemas, connection t uses database <mysql-db>_<(t % N) + offset>, 0: off "      \
          "(tpcc_start -m)"),                                                                      \
        T("multi-schema-offset", INT, "0",                                                         \
          "run: the number of the first schema of --multi-schema (tpcc_start -o)")

#endif
