/* fuzz_hist: pr_hist_unpack over whatever msgpack the input holds, and
 * pr_hist_unpack_raw over the same bytes. Properties checked beyond "no
 * crash": a rejected input leaves the histogram empty; an accepted one
 * packs and unpacks back to itself; the raw reader agrees with the tree
 * reader (same code, same message, same histogram) whenever msgpack-c
 * reads the input as one object, and rejects it when it is not one whole
 * object. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_bounded.h"
#include "pr_hist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const pr_hist *h, pr_hist *back)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_unpacked u;
    size_t off = 0;
    struct pr_error err;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_unpacked_init(&u);
    if (pr_hist_pack(h, &pk) != 0 ||
        msgpack_unpack_next(&u, sb.data, sb.size, &off) != MSGPACK_UNPACK_SUCCESS ||
        pr_hist_unpack(back, &u.data, &err) != 0 || !pr_hist_equal(h, back))
        abort();
    /* The accessors must agree with what was accepted. */
    uint64_t n = 0;
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    while (pr_hist_next(h, &it))
        n += it.count;
    if (n != pr_hist_count(h) || pr_hist_value_at_percentile(h, 99.9) > pr_hist_max(h) ||
        pr_hist_value_at_percentile(h, 0.1) < pr_hist_min(h))
        abort();
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pr_hist *h, *back, *raw;
    if (h == NULL) {
        h = pr_hist_new();
        back = pr_hist_new();
        raw = pr_hist_new();
    }
    struct pr_error raw_err;
    pr_hist_record(raw, 4243, 1); /* unpack must replace it */
    int raw_rc = pr_hist_unpack_raw(raw, data, size, &raw_err);
    if (raw_rc != 0 && (raw_err.code != raw_rc || pr_hist_count(raw) != 0 ||
                        pr_hist_max(raw) != 0 || raw_err.msg[0] == '\0'))
        abort();
    pr_hist_frozen *fz = NULL;
    struct pr_error fz_err;
    int fz_rc = pr_hist_unpack_raw_frozen(&fz, data, size, &fz_err);
    if (fz_rc != raw_rc || (fz_rc != 0) != (fz == NULL) ||
        (fz_rc != 0 && strcmp(fz_err.msg, raw_err.msg) != 0))
        abort();
    if (fz != NULL) {
        pr_hist_thaw(back, fz);
        if (!pr_hist_equal(back, raw))
            abort();
        pr_hist_frozen_destroy(&fz);
    }
    if (!msgpack_bounded(data, size)) {
        if (raw_rc == 0)
            abort();
        return 0;
    }
    msgpack_unpacked u;
    size_t off = 0;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, (const char *)data, size, &off) == MSGPACK_UNPACK_SUCCESS &&
        off == size) {
        struct pr_error err;
        pr_hist_record(h, 4242, 1); /* unpack must replace it */
        int rc = pr_hist_unpack(h, &u.data, &err);
        if (rc == 0)
            check_roundtrip(h, back);
        else if (pr_hist_count(h) != 0 || pr_hist_max(h) != 0 || err.msg[0] == '\0')
            abort();
        if (raw_rc != rc || (rc != 0 && strcmp(raw_err.msg, err.msg) != 0) ||
            !pr_hist_equal(raw, h))
            abort();
    }
    msgpack_unpacked_destroy(&u);
    return 0;
}
