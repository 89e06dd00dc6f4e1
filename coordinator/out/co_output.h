/* co_output: the files a run writes (--json, --csv, --hdr-log), from its
 * co_result, after the report. A file that cannot be written is reported
 * on stderr naming it; the others are still written. */
#ifndef CO_OUTPUT_H
#define CO_OUTPUT_H

#include "co_args.h"
#include "co_result.h"
#include "co_stream.h"

/* --verbosity from which a run says on stderr where each file went
 * (sysbench's "info" level; the default 3 prints nothing on success). */
#define CO_OUTPUT_VERBOSITY_INFO 4

/* Write every file a asks for. 0, or -1 when any failed (each named on
 * stderr, whatever the verbosity). With --verbosity >= 4 also prints where
 * each file went, on stderr. stream: the run's files written as its
 * intervals closed (co_stream), completed from res (borrowed: the caller
 * destroys it), or NULL: every file is written from res now. */
int co_output_write(const struct co_args *a, const struct co_result *res, co_stream *stream);

#endif
