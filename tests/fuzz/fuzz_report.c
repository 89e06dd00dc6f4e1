/* fuzz_report: libFuzzer target for the report tool's reader (`stampede
 * report`, coordinator/report/co_rpt*.c): a run, sweep or repeat file as anyone
 * may hand it over (co_rpt_load), then everything the report reads from it:
 * the text report of the file alone and compared with itself, and the
 * HTML report (its data block, tables and series). Input: the file's
 * bytes (a memfd, read through /proc/self/fd); output to /dev/null.
 * Beyond "no crash, no leak, no UB": a rejection fills err with its code
 * and a NUL-terminated message, and leaves the file empty. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "co_rpt_groups.h"
#include "co_rpt_html.h"
#include "co_rpt_load.h"
#include "co_rpt_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    int fd = memfd_create("run.json", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    struct co_rpt_file f[2];
    struct pr_error err = {0};
    int rc = co_rpt_load(path, &f[0], &err);
    if (rc != 0) {
        if (err.code != rc || memchr(err.msg, '\0', sizeof(err.msg)) == NULL || f[0].root)
            abort();
    } else {
        f[1] = f[0]; /* the same file twice: a comparison */
        (void)co_rpt_text_write(devnull, f, 1);
        (void)co_rpt_text_write(devnull, f, 2);
        (void)co_rpt_html_write(devnull, f, 1, "", NULL);
        /* Two groups of the same file: the comparison's data, text and
         * section on whatever figures the file holds. */
        const struct co_rpt_file *runs[2] = {&f[0], &f[1]};
        struct co_rpt_group g[2] = {{"A", runs, 2}, {"B", runs, 2}};
        json_t *cmp = f[0].kind == CO_RPT_RUN ? co_rpt_groups_json(g, 2) : NULL;
        if (cmp != NULL)
            co_rpt_groups_text(devnull, cmp);
        (void)co_rpt_html_write(devnull, f, 2, "", cmp);
        json_decref(cmp);
        co_rpt_file_clear(&f[0]);
    }
    close(fd);
    return 0;
}
