/* co_stream: a run's result files written as its intervals close, so that
 * a run of any length holds only its live window in memory and a killed
 * coordinator leaves every closed interval on disk (README "Long runs").
 *
 * --csv and --hdr-log are written to their final names from the first
 * interval on, one row / one set of lines per interval, flushed to the
 * kernel at once (a SIGKILL loses nothing that was written; a power cut
 * may lose what was not yet synced: they are fsync'ed at the end). --json
 * goes to "<path>.tmp" (header, then one line per interval), completed at
 * the end (agents, totals, server, exit), fsync'ed and renamed over path:
 * path itself is only ever a complete document. --json=- writes to stdout.
 * The writers are co_json's, co_csv's and co_hdrout's own per-interval
 * functions, so a streamed file is the same as one written at the end.
 *
 * A file that cannot be opened or written is named on stderr when it
 * happens and again at the end; the others go on.
 *
 * Thread: the coordinator thread only.
 */
#ifndef CO_STREAM_H
#define CO_STREAM_H

#include "co_args.h"
#include "co_result.h"

typedef struct co_stream co_stream;

/* Open the files a asks for; res must hold the run's header (tool,
 * workload, options, run_id), its agents (hdr-log tags) and
 * start_unix_ms. NULL when a asks for no file. */
co_stream *co_stream_open(const struct co_args *a, const struct co_result *res);

/* Append one closed interval (in k order) to every open file. */
void co_stream_interval(co_stream *s, const struct co_interval_result *iv);

/* Complete the files from res (the JSON's agents, totals, ...), sync and
 * close them, rename the JSON into place. With info, say on stderr where
 * each file went. Returns 0, or -1 when any file failed (named on
 * stderr). Once only; later calls return the same. */
int co_stream_finish(co_stream *s, const struct co_result *res, bool info);

/* Close what is still open (a run that never finished: the files keep
 * what was written, the JSON stays in its .tmp) and free *s; NULL-safe. */
void co_stream_destroy(co_stream **s);

#endif
