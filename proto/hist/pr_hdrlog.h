/* pr_hdrlog: HdrHistogram interop: the V2 compressed encoding of a pr_hist
 * and an interval-log writer readable by HdrHistogram's tools
 * (HistogramLogReader / HistogramLogProcessor in Java, hdr-histogram-js,
 * HdrHistogram_c's hdr_log_read).
 *
 * V2 compressed encoding (as AbstractHistogram.encodeIntoCompressedByteBuffer):
 *   int32 BE cookie 0x1c849314 (V2 compression cookie 0x1c849304 | 0x10)
 *   int32 BE length of the zlib stream that follows
 *   zlib stream (deflate, best compression) of the V2 encoding:
 *     int32 cookie 0x1c849313, int32 payload length, int32 normalizing
 *     index offset (0), int32 significant digits (3), int64 lowest
 *     discernible value (1), int64 highest trackable value (3600000000),
 *     double conversion ratio (1.0), all big endian, then the payload:
 *     the counts array from index 0 to the max's index, each count a ZigZag
 *     LEB128-64b9B varint, a run of k > 1 zero counts written as -k.
 * The base64 form is RFC 4648 standard alphabet with '=' padding.
 *
 * Values are microseconds. The interval log's Interval_Max column is the
 * exact max divided by PR_HDRLOG_MAX_DIVISOR (1000), i.e. milliseconds with
 * three decimals. HdrHistogram's tools assume nanoseconds and divide by
 * 1e6 to show milliseconds: run HistogramLogProcessor with
 * `-outputValueUnitRatio 1000` (and read hdr-histogram-js values as µs) to
 * get milliseconds out of our logs.
 *
 * Thread: functions are reentrant; a writer belongs to one thread.
 */
#ifndef PR_HDRLOG_H
#define PR_HDRLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pr_err.h"
#include "pr_hist.h"

#define PR_HDRLOG_MAX_DIVISOR 1000 /* Interval_Max = max_us / 1000: milliseconds */

/* Encode h as V2 compressed bytes. On success returns 0 and sets *buf (the
 * caller's, free()) and *len; else PR_ERANGE (a bucket count above
 * INT64_MAX: V2 counts are signed) or PR_EZLIB (deflate failed). */
int pr_hdrlog_encode_raw(const pr_hist *h, uint8_t **buf, size_t *len);
/* Same, base64: *b64 is NUL terminated and the caller's (free()); *b64_len
 * excludes the NUL. */
int pr_hdrlog_encode(const pr_hist *h, char **b64, size_t *b64_len);

/* h as a JSON value to f: its V2 compressed base64 text as a string (what
 * an hlog line carries; HdrHistogram's decodeFromCompressedByteBuffer reads
 * it), or null when h is NULL or empty or cannot be encoded. */
void pr_hdrlog_json(FILE *f, const pr_hist *h);

/* Strict decoder of V2 compressed bytes: replaces h's content with the
 * decoded buckets. V2 carries no min, max or sum: h gets what recording
 * each bucket's count at its lowest equivalent value gives (so
 * pr_hist_same_buckets() with the encoded histogram holds, and min/max are
 * HdrHistogram's getMinNonZeroValue()/lowest equivalent of the max).
 * Rejects, with h left empty and err filled:
 *   PR_EBAD_HDR  short input, wrong cookies (compression or encoding; the
 *                word-size nibble is ignored, as HdrHistogram does), length
 *                fields not matching the bytes, a decompressed size above
 *                40 + 9 * pr_hist_counts_len() bytes, normalizing offset not
 *                0, layout other than (1, 3600000000, 3), ratio not 1.0,
 *                truncated varints, indexes beyond our range or a count at
 *                index 0 (value 0), a total overflowing uint64.
 *   PR_EZLIB     a corrupt or truncated zlib stream, or bytes after it.
 * Memory is bounded (about 200 KB) whatever the input. Never crashes. */
int pr_hdrlog_decode_raw(pr_hist *h, const uint8_t *buf, size_t len, struct pr_error *err);
/* Same from base64 text (no whitespace, padding required, unused bits
 * zero); PR_EBAD_BASE64 for anything else, PR_EBAD_HDR for text longer than
 * a valid histogram can be. */
int pr_hdrlog_decode(pr_hist *h, const char *b64, size_t len, struct pr_error *err);

/* Interval-log writer over a borrowed FILE* (the caller closes it after
 * pr_hdrlog_destroy()). Keeps scratch buffers so writing an interval does
 * not allocate once they have grown. */
typedef struct pr_hdrlog pr_hdrlog;

/* A writer on f. Never NULL (aborts on out of memory). */
pr_hdrlog *pr_hdrlog_new(FILE *f);
/* Frees *w (does not close the FILE) and sets *w to NULL; NULL-safe. */
void pr_hdrlog_destroy(pr_hdrlog **w);

/* Longest header line written, "#[" and "]" included, the newline not.
 * HdrHistogram_c reads header lines into a 128-byte buffer and refuses the
 * log when one fills it; every fixed line below is shorter than this. */
#define PR_HDRLOG_LINE_MAX 100

/* Write the header as HistogramLogWriter does:
 *   #[<comment>]                      (when comment is not NULL; a comment
 *                                      longer than a line is split over
 *                                      several "#[...]" lines, at a space
 *                                      when one is near the limit, never
 *                                      inside a UTF-8 character)
 *   #[Histogram log format version 1.3]
 *   #[StartTime: <s.mmm> (seconds since epoch), <Date, UTC>]
 *   #[BaseTime: <s.mmm> (seconds since epoch)]    (when base_time)
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 * start_ms is wall-clock milliseconds since the epoch. With base_time the
 * interval timestamps are relative to start_ms (BaseTime = StartTime);
 * without it they are absolute. Returns 0, PR_EINVAL (comment with a
 * newline) or -EIO. */
int pr_hdrlog_write_header(pr_hdrlog *w, const char *comment, uint64_t start_ms, bool base_time);

/* Write one interval line:
 *   [Tag=<tag>,]<start s.mmm>,<length s.mmm>,<max ms.uuu>,<V2 base64>
 * tag NULL or "" for none; otherwise it may not contain ',', spaces or
 * control characters (PR_EINVAL). start_ms is relative to the base time
 * when the header wrote one, else milliseconds since the epoch. Returns 0,
 * PR_EINVAL, an encode error or -EIO. */
int pr_hdrlog_write_interval(pr_hdrlog *w, const char *tag, uint64_t start_ms, uint64_t length_ms,
                             const pr_hist *h);

#endif
