/* co_rpt: the report command (see co_rpt.h). */
#include "co_rpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_html.h"
#include "co_rpt_text.h"
#include "pr_file.h"

static int usage(void)
{
    fprintf(stderr, "usage: stampede report RUN.json [RUN2.json ...] [-o report.html]\n"
                    "       (a sweep's JSON draws throughput and p95 against threads)\n");
    return 2;
}

struct html_job {
    const struct co_rpt_file *files;
    size_t n;
    const char *chartjs;
};

static int html_cb(FILE *f, const void *arg)
{
    const struct html_job *job = arg;
    return co_rpt_html_write(f, job->files, job->n, job->chartjs);
}

/* Parse argv: the files and -o/--output. 0 or 2 (usage). */
static int parse(int argc, char **argv, const char **out, const char **paths, size_t *n)
{
    *n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (++i >= argc)
                return 2;
            *out = argv[i];
        } else if (strncmp(argv[i], "--output=", 9) == 0) {
            *out = argv[i] + 9;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            return 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "stampede report: unknown option %s\n", argv[i]);
            return 2;
        } else {
            paths[(*n)++] = argv[i];
        }
    }
    return *n == 0 ? 2 : 0;
}

int co_rpt_main(int argc, char **argv)
{
    const char *out = NULL;
    const char **paths = pr_xcalloc((size_t)argc, sizeof(*paths));
    size_t n = 0;
    if (parse(argc, argv, &out, paths, &n) != 0) {
        free(paths);
        return usage();
    }
    struct co_rpt_file *files = pr_xcalloc(n, sizeof(*files));
    struct pr_error err = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (co_rpt_load(paths[i], &files[i], &err) != 0) {
            fprintf(stderr, "stampede report: %s\n", err.msg);
            rc = 1;
        }
    if (rc == 0 && out != NULL) {
        struct html_job job = {files, n, co_rpt_html_chartjs(CO_RPT_CHARTJS, &err)};
        if (job.chartjs == NULL || pr_write_atomic(out, "report", html_cb, &job, &err) != 0) {
            fprintf(stderr, "stampede report: %s\n", err.msg);
            rc = 1;
        }
        free((char *)job.chartjs);
    } else if (rc == 0) {
        rc = co_rpt_text_write(stdout, files, n) == 0 ? 0 : 1;
    }
    for (size_t i = 0; i < n; i++)
        co_rpt_file_clear(&files[i]);
    free(files);
    free(paths);
    return rc;
}
