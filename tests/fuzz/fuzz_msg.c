/* fuzz_msg: libFuzzer target for the whole-message decoder (pr_msg_decode).
 *
 * Beyond "no crash, no leak, no UB" (ASan + UBSan), it checks the codec's
 * promises: a rejection fills struct pr_error with the same negative code
 * and a NUL-terminated message and leaves the struct empty (except the
 * documented PR_EVERSION salvage); an accepted message encodes again, and
 * that encoding decodes and re-encodes to the very same bytes. Any broken
 * promise aborts, which libFuzzer reports as a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rejection(const struct pr_msg *m, int rc, const struct pr_error *err)
{
    if (rc >= 0 || err->code != rc || memchr(err->msg, '\0', sizeof(err->msg)) == NULL)
        abort();
    if (rc != PR_EVERSION && m->type != PR_MSG_NONE)
        abort();
}

static void check_reencode(const struct pr_msg *m)
{
    struct pr_msg again;
    struct pr_error err;
    msgpack_sbuffer a, b;

    msgpack_sbuffer_init(&a);
    msgpack_sbuffer_init(&b);
    if (pr_msg_encode(m, &a, &err) != 0)
        abort();
    if (pr_msg_decode(&again, a.data, a.size, &err) != 0 || again.type != m->type)
        abort();
    if (pr_msg_encode(&again, &b, &err) != 0)
        abort();
    if (a.size != b.size || memcmp(a.data, b.data, a.size) != 0)
        abort();
    pr_msg_clear(&again);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pr_msg m;
    struct pr_error err;
    int rc = pr_msg_decode(&m, data, size, &err);

    if (rc == 0)
        check_reencode(&m);
    else
        check_rejection(&m, rc, &err);
    pr_msg_clear(&m);
    return 0;
}
