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

/* Internal to co_json, co_csv and co_hdrout (double underscore). */

/* A writer for co__write_atomic: writes to f, returns 0 or a negative code. */
typedef int (*co__write_fn)(FILE *f, const void *arg);

/* The atomic "<path>.tmp" + fsync + rename sequence above, around fn(f,
 * arg). what names the output in messages ("--json"). */
int co__write_atomic(const char *path, const char *what, co__write_fn fn, const void *arg,
                     struct pr_error *err);

/* s as a JSON string, quoted: quotes, backslash and control characters
 * escaped, U+2028/2029 escaped, bytes that are not well-formed UTF-8
 * replaced by \ufffd. NULL writes "". */
void co__json_string(FILE *f, const char *s);

/* Format v into buf (at least 32 bytes) in the shortest %.15g..%.17g form
 * that strtod() reads back as v, with '.' as the decimal point. Returns
 * false (buf "") when v is NaN or infinite. */
bool co__fmt_double(char *buf, size_t buf_len, double v);

/* Length of the well-formed UTF-8 sequence at s (n bytes available): 1..4,
 * or 0 when s does not start one (bad lead byte, bad continuation,
 * overlong form, surrogate, above U+10FFFF, truncated). */
size_t co__utf8_seq_len(const unsigned char *s, size_t n);

#endif
