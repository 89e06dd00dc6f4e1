/* pr_hist: an exact, mergeable latency histogram (HdrHistogram layout).
 *
 * Values are microseconds. The layout is HdrHistogram's log-linear one with
 * lowest discernible value 1, highest trackable value PR_HIST_MAX_US (1 hour)
 * and 3 significant digits, so every recorded value is kept to within 0.1%
 * and the bucket layout is identical to an HdrHistogram_c/Java/JS histogram
 * made with (1, 3600000000, 3): our V2 encoding (pr_hdrlog) is readable by
 * their tools. Merging is bucket addition, hence exact: the percentiles of a
 * merge equal those of all samples pooled.
 *
 * Values below 1 or above PR_HIST_MAX_US are clamped into range and counted
 * apart (pr_hist_clamped()). Min, max and the sum are kept exactly (not from
 * buckets), so mean is exact too.
 *
 * Percentile convention (HdrHistogram's): value_at_percentile(p) is the
 * highest value equivalent to the bucket that holds the ceil(p/100 * N)-th
 * smallest sample (at least the 1st), clamped to the exact max. p=0 gives
 * the exact min. As in HdrHistogram (Java, JS), the rank is computed in
 * double precision as ceil(x - ulp(x)) with x = p/100 * N, so a product one
 * ulp above an integer does not skip a sample; with that rank our answer
 * equals hdr-histogram-js's getValueAtPercentile() except that we clamp it
 * to the exact max (HdrHistogram returns the max's highest equivalent).
 *
 * Counters are uint64_t. The sum saturates at UINT64_MAX (only reachable
 * with absurd counts); bucket counts and the total are the caller's to keep
 * below 2^64 (a decoder rejects totals that overflow).
 *
 * Thread: a histogram is owned by one thread at a time; no internal locks.
 */
#ifndef PR_HIST_H
#define PR_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "pr_err.h"

#define PR_HIST_MIN_US  1ULL
#define PR_HIST_MAX_US  3600000000ULL /* one hour */
#define PR_HIST_SIGFIGS 3
/* Upper bound on the buckets a valid encoding may carry. */
#define PR_HIST_MAX_BUCKETS 65536

typedef struct pr_hist pr_hist;

/* A new, empty histogram. Never NULL (aborts on out of memory). */
pr_hist *pr_hist_new(void);
/* Frees *h and sets *h to NULL; NULL or *h == NULL is a no-op. */
void pr_hist_destroy(pr_hist **h);

/* Record `count` samples of value_us. Out-of-range values are clamped and
 * counted in pr_hist_clamped(); count 0 is a no-op. Hot path: no
 * allocation, no division, one predictable branch for the rare cases. */
void pr_hist_record(pr_hist *h, uint64_t value_us, uint64_t count);
/* Add every sample of src into dst (exact). Cost is proportional to the
 * span between src's min and max buckets, not to the 23221 counts. */
void pr_hist_add(pr_hist *dst, const pr_hist *src);
/* Empty h (keeps its memory). */
void pr_hist_reset(pr_hist *h);
/* Copy src over dst (dst == src is a no-op). */
void pr_hist_copy(pr_hist *dst, const pr_hist *src);
/* True when both hold exactly the same buckets, totals, min, max, sum. */
bool pr_hist_equal(const pr_hist *a, const pr_hist *b);
/* True when both hold the same count in every bucket (min, max, sum and the
 * clamped count may differ: what an HdrHistogram V2 round trip keeps). */
bool pr_hist_same_buckets(const pr_hist *a, const pr_hist *b);

/* Accessors: O(1) except stddev and percentiles, which scan the occupied
 * buckets. All take a histogram the calling thread owns. */
uint64_t pr_hist_count(const pr_hist *h);   /* samples recorded, clamped ones included */
uint64_t pr_hist_clamped(const pr_hist *h); /* samples outside [1, MAX] */
uint64_t pr_hist_min(const pr_hist *h);     /* exact; 0 when empty */
uint64_t pr_hist_max(const pr_hist *h);     /* exact; 0 when empty */
uint64_t pr_hist_sum(const pr_hist *h);     /* exact sum of recorded (clamped) values */
double pr_hist_mean(const pr_hist *h);      /* sum / count; 0 when empty */
double pr_hist_stddev(const pr_hist *h);    /* from bucket midpoints, as HdrHistogram */
/* Value at percentile p in [0, 100] (above 100 means 100, below 0 or NaN
 * means 0), convention above; 0 when empty. */
uint64_t pr_hist_value_at_percentile(const pr_hist *h, double p);

/* Bucket helpers, for tests and encoders: the lowest and highest values
 * sharing value_us's bucket (any uint64_t; 0 maps to 0). */
uint64_t pr_hist_lowest_equivalent(uint64_t value_us);
uint64_t pr_hist_highest_equivalent(uint64_t value_us);

/* Iterate non-empty buckets in increasing value order. Start with
 * it->index = -1 (or use PR_HIST_ITER_INIT); each true return fills
 * value_us (the bucket's highest equivalent value), lowest_us and count. */
struct pr_hist_iter {
    int64_t index;      /* internal counts index; -1 before the first call */
    uint64_t lowest_us; /* lowest value equivalent to this bucket */
    uint64_t value_us;  /* highest value equivalent to this bucket */
    uint64_t count;     /* samples in this bucket, > 0 */
};
#define PR_HIST_ITER_INIT                                                                          \
    {                                                                                              \
        -1, 0, 0, 0                                                                                \
    }
bool pr_hist_next(const pr_hist *h, struct pr_hist_iter *it);

/* Counts-array access for encoders (pr_hdrlog) and decoders: the layout is
 * HdrHistogram's counts array for (1, PR_HIST_MAX_US, 3): index i < 2048
 * holds value i; above, index = b * 1024 + (v >> b) with b = bit length of
 * v minus 11. counts_len() is index_of(PR_HIST_MAX_US) + 1 = 23221, a
 * prefix of HdrHistogram's 23552-long array (which reaches 2^32 - 1): our
 * valid indexes are 1 .. counts_len() - 1 (index 0 is value 0, always
 * clamped to 1). count_at_index() returns 0 outside that range. */
int32_t pr_hist_counts_len(void);
uint64_t pr_hist_count_at_index(const pr_hist *h, int32_t index);
uint64_t pr_hist_value_at_index(int32_t index); /* lowest value of that bucket */
/* Index of the bucket holding value_us (clamped into [1, PR_HIST_MAX_US]). */
int32_t pr_hist_index_of(uint64_t value_us);

/* Sparse msgpack form, used inside STATS and DONE messages:
 *   map { "n": total count, "min", "max", "sum", "clamp": uint,
 *         "b": array of [gap, count] pairs flattened as
 *              [g0, c0, g1, c1, ...]: the occupied buckets in increasing
 *              index order, g0 the first one's index and each later gap
 *              its index minus the previous one's (so every gap > 0),
 *              every count > 0 }
 * Gaps rather than indexes (protocol 4): most are under 128, one byte
 * (a positive fixint) where an index past 255 took three: a STATS of
 * tests/bench/coordinator-merge went from 22.4 KB to 12.0 KB. pack
 * appends to pk and returns 0 or a negative code. */
int pr_hist_pack(const pr_hist *h, msgpack_packer *pk);
/* Strict decoder: replaces the content of h with obj's histogram. Rejects
 * (code + message in err, h reset to empty) a non-map, missing keys, wrong
 * types, indexes out of range or not increasing (a gap of 0), zero
 * counts, more than PR_HIST_MAX_BUCKETS buckets, n != sum of counts,
 * min/max inconsistent with the buckets. Unknown keys are ignored. Never
 * crashes.
 * Codes: PR_EBAD_TYPE (not a map, a value not an unsigned integer, "b" not
 * an array), PR_EMISSING_KEY, PR_EDUP_KEY, PR_ETOO_BIG (too many buckets),
 * PR_ERANGE (an index out of range: a first gap of 0, or gaps summing
 * past the last bucket), PR_EBAD_HIST (anything inconsistent:
 * odd "b" length, a later gap of 0, zero count, n, min, max, sum or
 * clamp not matching the buckets, total overflowing). The check on sum is
 * min * n <= sum <= max * n, each product saturated at UINT64_MAX. */
int pr_hist_unpack(pr_hist *h, const msgpack_object *obj, struct pr_error *err);
/* pr_hist_unpack() straight from bytes: buf[0..len) must be exactly one
 * msgpack object, read without building msgpack-c's object tree (a STATS
 * histogram is thousands of integers). Same checks, codes and messages as
 * pr_hist_unpack() on msgpack-c's tree of the same bytes (both share them);
 * bytes that are not one whole msgpack object also give PR_ETRUNCATED,
 * PR_EINVAL (byte 0xc1) or PR_ETRAILING. Reads nothing outside buf, never
 * allocates, never recurses. */
int pr_hist_unpack_raw(pr_hist *h, const void *buf, size_t len, struct pr_error *err);

/* Frozen form: a read-only, compact copy of a histogram for keeping many
 * of them (closed report intervals, per-agent sums): the summary plus, per
 * occupied bucket, its index and count: 6 bytes a bucket (10 once the
 * total passes 2^32) instead of 186 KB for the whole array. An in-memory form only
 * (never sent nor stored: not a format). Exact: thawing gives back every
 * bucket, total, min, max, sum and clamped count. */
typedef struct pr_hist_frozen pr_hist_frozen;

/* A frozen copy of h, the caller's (pr_hist_frozen_destroy). Cost:
 * h's span between min and max. Never NULL. */
pr_hist_frozen *pr_hist_freeze(const pr_hist *h);
/* Frees *f and sets *f to NULL; NULL or *f == NULL is a no-op. */
void pr_hist_frozen_destroy(pr_hist_frozen **f);
/* Samples in f (pr_hist_count of what was frozen). */
uint64_t pr_hist_frozen_count(const pr_hist_frozen *f);
/* Bytes f occupies (header and buckets). */
size_t pr_hist_frozen_size(const pr_hist_frozen *f);
/* Add every sample of f into dst (exact, as pr_hist_add). */
void pr_hist_add_frozen(pr_hist *dst, const pr_hist_frozen *f);
/* Replace dst's content with f's (reset + add_frozen). */
void pr_hist_thaw(pr_hist *dst, const pr_hist_frozen *f);
/* *f += src, exact, kept frozen: *f is replaced by a new frozen histogram
 * (a NULL *f becomes src frozen). Cost: f's buckets plus src's span; no
 * 186 KB array is made. */
void pr_hist_frozen_add(pr_hist_frozen **f, const pr_hist *src);
/* *f += src, both frozen, exact: *f is replaced by the merge of the two
 * sorted bucket lists (a NULL *f becomes a copy of src). Cost: their
 * buckets, no span walked, no 186 KB array. */
void pr_hist_frozen_merge(pr_hist_frozen **f, const pr_hist_frozen *src);
/* Iterate f's buckets in increasing value order, as pr_hist_next() does
 * (start with PR_HIST_ITER_INIT; it->index is then a position in f). */
bool pr_hist_frozen_next(const pr_hist_frozen *f, struct pr_hist_iter *it);
/* pr_hist_value_at_percentile() of what was frozen, read from f's buckets
 * (cost: its buckets up to the rank). */
uint64_t pr_hist_frozen_value_at_percentile(const pr_hist_frozen *f, double p);
/* Sum of the values in f (pr_hist_sum of what was frozen). */
uint64_t pr_hist_frozen_sum(const pr_hist_frozen *f);
/* pr_hist_pack() of f, to the same bytes as pr_hist_pack() of f thawed. */
int pr_hist_frozen_pack(const pr_hist_frozen *f, msgpack_packer *pk);
/* pr_hist_unpack_raw() into the frozen form: *f (the caller's; NULL on
 * failure) holds buf's histogram. Cost proportional to the pairs on the
 * wire: no 186 KB array is made, zeroed or walked. Same checks, codes and
 * messages as pr_hist_unpack_raw() on the same bytes. */
int pr_hist_unpack_raw_frozen(pr_hist_frozen **f, const void *buf, size_t len,
                              struct pr_error *err);

/* Running sum: the exact sum of many histograms (an agent's STATS over
 * a run, kept for a lost agent's figures), each added at a cost of its
 * own buckets only: counts over the span of the buckets added so far,
 * uint32_t until the total passes 2^32 - 1 (then uint64_t), the span
 * grown by an eighth at least when a bucket falls outside it. Against a
 * frozen running sum (pr_hist_frozen_merge per add), no walk over the sum's
 * buckets per add; it holds 4 bytes an index of its span where the frozen
 * form holds 6 an occupied bucket. The caller's; one thread. */
typedef struct pr_hist_acc pr_hist_acc;

/* A new, empty sum. Never NULL. */
pr_hist_acc *pr_hist_acc_new(void);
/* Frees *a and sets *a to NULL; NULL or *a == NULL is a no-op. */
void pr_hist_acc_destroy(pr_hist_acc **a);
/* Hold the buckets of [lo_us, hi_us] now, their pages touched, so that
 * adds within them later allocate nothing and take no page fault (the
 * coordinator reserves each agent's sum at READY). Only on an empty sum
 * (a no-op otherwise); the sum stays empty. */
void pr_hist_acc_reserve(pr_hist_acc *a, uint64_t lo_us, uint64_t hi_us);
/* a += f (exact). */
void pr_hist_acc_add_frozen(pr_hist_acc *a, const pr_hist_frozen *f);
/* a += h (exact; cost: h's span). */
void pr_hist_acc_add(pr_hist_acc *a, const pr_hist *h);
/* Replace dst's content with a's: every bucket, total, min, max, sum and
 * clamped count. */
void pr_hist_acc_thaw(pr_hist *dst, const pr_hist_acc *a);
/* Samples in a; bytes a occupies. */
uint64_t pr_hist_acc_count(const pr_hist_acc *a);
size_t pr_hist_acc_size(const pr_hist_acc *a);

#endif
