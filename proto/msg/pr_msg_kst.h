/* pr_msg_kst: STATS.kst / DONE.kst, the per kind [count, errors, lat, late]
 * entries, read straight from their msgpack bytes (internal to proto: the
 * decoder in pr_msg.c hands it the raw "kst" value). A STATS carries one
 * histogram per kind: building msgpack-c's object tree for their
 * thousands of integers was most of a STATS decode. The wire format is
 * the tree decoder's, unchanged. */
#ifndef PR_MSG_KST_H
#define PR_MSG_KST_H

#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"

/* Decode buf[0..len), exactly one msgpack array of at most cap entries,
 * each [count, errors, lat, late] (two uints, a histogram as
 * pr_hist_unpack_raw() reads it, kept frozen: lat_frozen set, lat NULL,
 * and a uint <= count).
 * *arr (the caller's, freed with each entry's lat_frozen by
 * pr_msg_clear()) and *n are set before any entry is read, so a failure
 * part way leaves the entries read so far to free (lat_frozen NULL in the
 * others). 0, or a negative code with err naming the entry and
 * what is wrong, as the tree decoder's messages: PR_EBAD_TYPE (not an
 * array, an entry not [count, errors, lat, late], a count not a uint),
 * PR_ERANGE (a negative count, late above count), PR_ETOO_BIG (more than cap entries),
 * PR_ETRUNCATED / PR_EINVAL / PR_ETRAILING (bytes that are not one whole
 * msgpack array), or a histogram's code. Never reads outside buf. */
int pr__msg_kst_unpack_raw(const void *buf, size_t len, uint32_t cap, struct pr_msg_kstat **arr,
                           uint32_t *n, const char *path, struct pr_error *err);

/* The same for the array that buf[0..len) starts with (bytes may follow):
 * 0 with *used its length and *arr, *n the caller's, or a negative code
 * (no message) with nothing left to free. As strict as
 * pr__hist_unpack_raw_frozen_prefix (pr_hist_int.h): what it accepts,
 * pr_msg's pre-scan accepts too, so the pre-scan may skip it. */
int pr__msg_kst_unpack_raw_prefix(const void *buf, size_t len, uint32_t cap,
                                  struct pr_msg_kstat **arr, uint32_t *n, size_t *used);

#endif
