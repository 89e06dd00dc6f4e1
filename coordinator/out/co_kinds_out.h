/* co_kinds_out: the per statement kind figures in every output.
 *
 *   --json   "kinds" in each interval and in "totals": an object keyed by
 *            kind name, each {"count", "errors", "latency_ms": {min, avg,
 *            max, p50, p95, p99, p99_9}} (ms; null without samples), and
 *            "late" (before "latency_ms", only when not 0): of count, the
 *            events at or over the kind's response-time limit (tpcc's
 *            --rt-limits), counted exactly as they ended. Only
 *            kinds with a statement or an error appear; no "kinds" key when
 *            the agents declared none.
 *   --csv-kinds=FILE  a second CSV, long format, one row per interval and
 *            kind: t_s,kind,count,errors,lat_min_ms,lat_avg_ms,lat_max_ms,
 *            lat_p50_ms,lat_p95_ms,lat_p99_ms,lat_p99_9_ms.
 *   --hdr-log  beside the untagged (merged) and Tag=<agent> lines, one
 *            Tag=kind:<name> line per interval and kind with samples: that
 *            kind merged over every agent.
 *   text     after the report, "Latency by statement (ms):" with one row
 *            per kind: count, avg, p95, p99, max (not with
 *            --report-format=sysbench, which prints sysbench's lines only),
 *            then, when any event rolled back on purpose or failed,
 *            "events rolled back on purpose: N, failed: N" (run totals).
 */
#ifndef CO_KINDS_OUT_H
#define CO_KINDS_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "co_result.h"
#include "pr_hdrlog.h"

/* The JSON value (an object, one line) of kinds k[0..n) to f. */
void co_kinds_out_json(FILE *f, const struct co_kind_result *k, uint32_t n, pr_hist *scratch);
/* The same with each kind's whole latency histogram as "histogram" (V2
 * compressed, base64: pr_hdrlog_json), for the run's totals. */
void co_kinds_out_json_hist(FILE *f, const struct co_kind_result *k, uint32_t n);

/* Tag=kind:<name> lines of interval iv. 0 or the writer's error. */
int co_kinds_out_hlog(pr_hdrlog *w, const struct co_interval_result *iv, uint64_t start_ms,
                      uint64_t length_ms, pr_hist *scratch);

/* The text section for the whole run (nothing without kinds). */
void co_kinds_out_text(FILE *f, const struct co_result *r);

/* --csv-kinds: write the long-format CSV of r to f; 0 or -EIO. */
int co_kinds_out_csv(const struct co_result *r, FILE *f);

/* The --csv-kinds header line, and one interval's rows (the kinds it
 * used), for a file written as intervals close (co_stream). scratch: the
 * caller's histogram, overwritten. */
void co_kinds_out_csv_header(FILE *f);
void co_kinds_out_csv_rows(FILE *f, const struct co_interval_result *iv, pr_hist *scratch);

/* The same to path, atomically (pr_write_atomic): 0, or an error with err
 * naming the file. */
int co_kinds_out_csv_file(const struct co_result *r, const char *path, struct pr_error *err);

#endif
