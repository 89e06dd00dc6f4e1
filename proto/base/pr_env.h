/* pr_env: the environment facts both programs name (README "Environment").
 *
 * Two lists, X-macros so each lives once:
 *   PR_ENV_VARIABLES(X)  X(name): the server variables the lead agent reads
 *                        at READY (READY.env.srv.vars / unread) and the
 *                        coordinator reports under environment.server.variables;
 *                        a variable this server does not have is reported null
 *                        with the reason, so MySQL-only and MariaDB-only names
 *                        (innodb_redo_log_capacity, thread_handling) both stay.
 *   PR_ENV_STATUS(X)     X(name, kind): the SHOW GLOBAL STATUS counters the
 *                        lead samples at every boundary (STATS.srv) for the
 *                        report's server_status, kind PR_ENV_GAUGE (its value
 *                        at the boundary) or PR_ENV_COUNTER (a per-second rate
 *                        over the interval, key name + "_s", or "_ms_s" for the
 *                        time counters in ms).
 * Header only; no code.
 */
#ifndef PR_ENV_H
#define PR_ENV_H

#define PR_ENV_VARIABLES(X)                                                                        \
    X(innodb_buffer_pool_size)                                                                     \
    X(innodb_buffer_pool_instances)                                                                \
    X(innodb_flush_log_at_trx_commit)                                                              \
    X(innodb_flush_method)                                                                         \
    X(innodb_log_file_size)                                                                        \
    X(innodb_redo_log_capacity)                                                                    \
    X(innodb_log_buffer_size)                                                                      \
    X(innodb_io_capacity)                                                                          \
    X(innodb_io_capacity_max)                                                                      \
    X(innodb_doublewrite)                                                                          \
    X(innodb_file_per_table)                                                                       \
    X(innodb_adaptive_hash_index)                                                                  \
    X(sync_binlog)                                                                                 \
    X(log_bin)                                                                                     \
    X(binlog_format)                                                                               \
    X(transaction_isolation)                                                                       \
    X(tx_isolation)                                                                                \
    X(max_connections)                                                                             \
    X(thread_handling)                                                                             \
    X(performance_schema)                                                                          \
    X(character_set_server)                                                                        \
    X(collation_server)                                                                            \
    X(table_open_cache)                                                                            \
    X(query_cache_type)

enum pr_env_kind { PR_ENV_GAUGE, PR_ENV_COUNTER, PR_ENV_COUNTER_MS };

#define PR_ENV_STATUS(X)                                                                           \
    X(Threads_running, PR_ENV_GAUGE)                                                               \
    X(Threads_connected, PR_ENV_GAUGE)                                                             \
    X(Innodb_buffer_pool_pages_dirty, PR_ENV_GAUGE)                                                \
    X(Innodb_buffer_pool_reads, PR_ENV_COUNTER)                                                    \
    X(Innodb_buffer_pool_read_requests, PR_ENV_COUNTER)                                            \
    X(Innodb_buffer_pool_write_requests, PR_ENV_COUNTER)                                           \
    X(Innodb_buffer_pool_wait_free, PR_ENV_COUNTER)                                                \
    X(Innodb_row_lock_waits, PR_ENV_COUNTER)                                                       \
    X(Innodb_row_lock_time, PR_ENV_COUNTER_MS)                                                     \
    X(Innodb_data_fsyncs, PR_ENV_COUNTER)                                                          \
    X(Innodb_data_reads, PR_ENV_COUNTER)                                                           \
    X(Innodb_data_writes, PR_ENV_COUNTER)                                                          \
    X(Innodb_os_log_written, PR_ENV_COUNTER)                                                       \
    X(Innodb_log_waits, PR_ENV_COUNTER)                                                            \
    X(Created_tmp_disk_tables, PR_ENV_COUNTER)                                                     \
    X(Created_tmp_tables, PR_ENV_COUNTER)

#endif
