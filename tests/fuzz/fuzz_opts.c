/* fuzz_opts: libFuzzer target for the option parser both programs run on
 * outside text: the coordinator's command line and every option a PLAN
 * carries to an agent (pr_opts_parse_arg), then what is read from the
 * values: every option's typed getter, the TLS checks (pr_ssl_check_opts),
 * TPC-C's options (pr_tc_opts_get) and list splitting (pr_list_iter).
 * Input: byte 0 picks the workload (or none), the rest is arguments
 * separated by '\n'. Beyond "no crash, no leak, no UB": a rejection fills
 * err with its code and a NUL-terminated message, and leaves the value
 * set as it was (the next getter still sees a valid value). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pr_opts.h"
#include "pr_parse.h"
#include "pr_ssl.h"
#include "pr_tc_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const struct pr_error *err)
{
    if (rc < 0 && (err->code != rc || memchr(err->msg, '\0', sizeof(err->msg)) == NULL))
        abort();
}

/* Every option of workload wl through its getter, lists split. */
static void read_all(const pr_opts *o, int wl)
{
    size_t n;
    const struct pr_opt_def *defs = pr_opts_schema(&n);
    for (size_t i = 0; i < n; i++) {
        const char *name = defs[i].name;
        if (defs[i].alias_of != NULL ||
            (defs[i].group == PR_OPT_SCRIPT && (wl < 0 || !(defs[i].workloads & (1u << wl)))))
            continue;
        switch (defs[i].type) {
        case PR_OPT_INT:
            (void)pr_opts_int(o, name);
            break;
        case PR_OPT_DOUBLE:
            (void)pr_opts_double(o, name);
            break;
        case PR_OPT_BOOL:
            (void)pr_opts_bool(o, name);
            break;
        default: {
            struct pr_list_iter it;
            const char *item;
            size_t len;
            pr_list_iter_init(&it, pr_opts_str(o, name));
            while (pr_list_iter_next(&it, &item, &len))
                if (memchr(item, '\0', len) != NULL)
                    abort();
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int wl = data[0] % (PR_WL_COUNT_ + 1) - 1;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    pr_opts *o = pr_opts_new(wl);
    for (char *arg = text, *next; arg != NULL; arg = next) {
        next = strchr(arg, '\n');
        if (next != NULL)
            *next++ = '\0';
        struct pr_error err = {0};
        check_error(pr_opts_parse_arg(o, arg, &err), &err);
    }
    read_all(o, wl);
    struct pr_error err = {0};
    check_error(pr_ssl_check_opts(o, &err), &err);
    if (wl == PR_WL_TPCC) {
        struct pr_tc_opts tc;
        struct pr_error terr = {0};
        check_error(pr_tc_opts_get(o, &tc, &terr), &terr);
    }
    pr_opts_destroy(&o);
    free(text);
    return 0;
}
