/* co_csv: the --csv=FILE report, one row per report interval.
 *
 * RFC 4180 CSV, '\n' line ends, one header row then one row per interval of
 * the co_result (all of them, the tail interval after the stop too; its
 * "printed" is 0):
 *   t_s,len_s,threads,tps,qps,reads_s,writes_s,other_s,lat_p50_ms,
 *   lat_p95_ms,lat_p99_ms,lat_max_ms,err_s,reconn_s,agents_reporting,late,
 *   partial,server_qps,printed
 * then the lead's server status columns (co_srvstat_csv_header()), after
 * every earlier column so that positions stay:
 *   srv_threads_running,...,srv_created_tmp_tables_s
 * Rates are the interval's counts over its len_s. Numbers are plain decimal
 * ('.' whatever the locale, shortest form that reads back exactly);
 * booleans 0/1. A field is empty when it has no value: latencies of an
 * interval without samples, rates of an interval whose len_s is not
 * positive, server_qps when the server was not sampled.
 *
 * Thread: none of its own; functions only read their arguments.
 */
#ifndef CO_CSV_H
#define CO_CSV_H

#include <stdio.h>

#include "co_result.h"
#include "co_srvstat.h"
#include "pr_err.h"

/* Columns of a row (and of the header): 22, co_srvstat's, then the two
 * outcome columns rolled_back_s and failed_s (events per second that
 * rolled back on purpose / that the family gave up: pr_counters.h). */
#define CO_CSV_OUTCOME_COLUMNS 2
#define CO_CSV_COLUMNS         (22 + CO_SRVSTAT_N + CO_CSV_OUTCOME_COLUMNS)

/* Write the header and r's interval rows to f (borrowed, not closed), then
 * fflush(f). Returns 0 or -EIO when the stream reports an error. */
int co_csv_write(const struct co_result *r, FILE *f);

/* Same into path, atomically (co_json_write_file()'s "<path>.tmp" + fsync
 * + rename): 0, or a negative code with err naming the file; on error path
 * is untouched and no .tmp is left. */
int co_csv_write_file(const struct co_result *r, const char *path, struct pr_error *err);

/* Streaming (co_stream): the header row, and one interval's row
 * (scratch: where a frozen histogram is expanded). No flush. */
void co_csv_write_header(FILE *f);
void co_csv_write_row(FILE *f, const struct co_interval_result *iv, pr_hist *scratch);

#endif
