/* co_hdrout: the --hdr-log=FILE report, an HdrHistogram interval log.
 *
 * pr_hdrlog's format (HistogramLogWriter's "1.3": V2 compressed base64
 * histograms, readable by HistogramLogReader / HistogramLogProcessor,
 * hdr-histogram-js and HdrHistogram_c). Values are microseconds (see
 * pr_hdrlog.h: HistogramLogProcessor needs -outputValueUnitRatio 1000 to
 * show milliseconds). The header has a "#[stampede ...]" comment, the
 * StartTime and a BaseTime equal to it (the run's t0), so each line's
 * StartTimestamp is seconds since t0. Per report interval, in k order:
 *   - one untagged line: the interval's merged latency (what
 *     HistogramLogProcessor reads by default);
 *   - one "Tag=<agent>," line per agent that reported in it (agents in
 *     name order; an agent whose figures are missing has no line).
 * A tag is the agent name with every ',', space, control character or
 * byte that is not well-formed UTF-8 replaced by '_' (HdrHistogram's tag
 * rule); an empty name becomes "agent<index>", and a tag already taken by
 * an earlier agent gets "~<index>" appended, so tags stay unique.
 *
 * Thread: none of its own; functions only read their arguments.
 */
#ifndef CO_HDROUT_H
#define CO_HDROUT_H

#include <stdint.h>
#include <stdio.h>

#include "co_result.h"
#include "pr_err.h"

/* Write r's interval log to f (borrowed, not closed), then fflush(f).
 * start_ms is the wall clock at t0 in milliseconds since the epoch (the
 * log's StartTime and BaseTime). Returns 0, -EIO when the stream reports an
 * error, or pr_hdrlog's encode errors (PR_ERANGE, PR_EZLIB). */
int co_hdrout_write(const struct co_result *r, uint64_t start_ms, FILE *f);

/* Same into path, atomically (co_json_write_file()'s "<path>.tmp" + fsync
 * + rename): 0, or a negative code with err naming the file; on error path
 * is untouched and no .tmp is left. */
int co_hdrout_write_file(const struct co_result *r, uint64_t start_ms, const char *path,
                         struct pr_error *err);

/* Streaming (co_stream): the header (into *rc: 0 or an error), then one
 * interval's lines at a time, over f (borrowed; no flush). */
typedef struct co_hdrout_stream co_hdrout_stream;
co_hdrout_stream *co_hdrout_stream_begin(const struct co_result *r, uint64_t start_ms, FILE *f,
                                         int *rc);
int co_hdrout_stream_interval(co_hdrout_stream *s, const struct co_interval_result *iv,
                              pr_hist *scratch);
void co_hdrout_stream_destroy(co_hdrout_stream **s);

/* The tag co_hdrout gives agent `index` of r (rule above), NUL terminated,
 * the caller's (free()); NULL when index >= r->n_agents. For tests. */
char *co_hdrout_agent_tag(const struct co_result *r, uint32_t index);

#endif
