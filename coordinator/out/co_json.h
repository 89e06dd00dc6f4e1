/* co_json: the --json=FILE report, the whole run as one JSON document.
 *
 * The document is what README.md's "JSON output" section describes (keys,
 * units, nulls). It is written from a struct co_result only; nothing here
 * keeps state. Strings are escaped so the output is always valid UTF-8 JSON
 * (control characters as \uXXXX or \n-style escapes, bytes that are not
 * UTF-8 as \ufffd); numbers are finite (a NaN or infinite value, or a rate
 * whose interval length is not positive, is written null). Numbers use
 * the shortest "%.17g"-style form that reads back to the same double, with
 * a '.' whatever the locale.
 *
 * Thread: none of its own; functions only read their arguments.
 */
#ifndef CO_JSON_H
#define CO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "co_result.h"
#include "pr_err.h"

/* Write r as JSON to f (borrowed, not closed), then fflush(f). Returns 0 or
 * -EIO when the stream reports an error (ferror() after the flush). */
int co_json_write(const struct co_result *r, FILE *f);

/* Write r as JSON to path, atomically: into "<path>.tmp", flushed and
 * fsync'ed, then renamed over path, so path is either the complete new
 * document or what it was before. Returns 0, or a negative code (-errno)
 * with err (when not NULL) saying which file and why; on error the .tmp
 * file is removed and path is untouched. */
int co_json_write_file(const struct co_result *r, const char *path, struct pr_error *err);

/* Streaming (runs of any length, co_stream): the same document written as
 * the run goes. begin writes the header members and opens "intervals";
 * each interval is written (one line) and flushed as it closes; end closes
 * the array and writes "agents", "totals" and the rest, then flushes. The
 * members come in another order than co_json_write()'s ("agents" after
 * "intervals"); JSON objects are unordered. f is borrowed. */
typedef struct co_json_stream co_json_stream;
co_json_stream *co_json_stream_begin(const struct co_result *r, FILE *f);
void co_json_stream_interval(co_json_stream *s, const struct co_interval_result *iv,
                             pr_hist *scratch);
/* Finish and free *s (set to NULL): 0, or -EIO when the stream failed. */
int co_json_stream_end(co_json_stream **s, const struct co_result *r);

#endif
