/* co_rpt: the report command (see co_rpt.h). */
#include "co_rpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_groups.h"
#include "co_rpt_html.h"
#include "co_rpt_text.h"
#include "pr_file.h"

static int usage(void)
{
    fprintf(stderr, "usage: stampede report RUN.json [RUN2.json ...] [-o report.html]\n"
                    "       stampede report --group=A A1.json A2.json ... --group=B B1.json ...\n"
                    "       (a sweep's JSON draws throughput and p95 against threads; groups of\n"
                    "       repeated runs are compared with confidence, the first the baseline)\n");
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

/* Parse argv: the files, each with the --group it follows (NULL before
 * any), and -o/--output. 0 or 2 (usage). */
static int parse(int argc, char **argv, const char **out, const char **paths, const char **groups,
                 size_t *n)
{
    const char *group = NULL;
    *n = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--group=", 8) == 0 && argv[i][8] != '\0') {
            group = argv[i] + 8;
        } else if (strcmp(argv[i], "--group") == 0) {
            if (++i >= argc)
                return 2;
            group = argv[i];
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
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
            groups[*n] = group;
            paths[(*n)++] = argv[i];
        }
    }
    if (*n > 0 && group != NULL && groups[0] == NULL) {
        fprintf(stderr,
                "stampede report: %s comes before the first --group: with groups, every "
                "file follows the --group=NAME it belongs to\n",
                paths[0]);
        return 2;
    }
    return *n == 0 ? 2 : 0;
}

/* The groups of files[0..n) by their --group names, in order of first
 * appearance; *ng of them (0 without --group). Caller frees each runs and
 * the array. */
static struct co_rpt_group *make_groups(const struct co_rpt_file *files, const char **groups,
                                        size_t n, size_t *ng)
{
    struct co_rpt_group *g = pr_xcalloc(n ? n : 1, sizeof(*g));
    *ng = 0;
    for (size_t i = 0; i < n && groups[i] != NULL; i++) {
        size_t k = 0;
        while (k < *ng && strcmp(g[k].name, groups[i]) != 0)
            k++;
        if (k == *ng) {
            g[k].name = groups[i];
            g[k].runs = pr_xcalloc(n, sizeof(*g[k].runs));
            (*ng)++;
        }
        if (files[i].kind == CO_RPT_RUN)
            g[k].runs[g[k].n++] = &files[i];
    }
    return g;
}

int co_rpt_main(int argc, char **argv)
{
    const char *out = NULL;
    const char **paths = pr_xcalloc((size_t)argc, sizeof(*paths));
    const char **groups = pr_xcalloc((size_t)argc, sizeof(*groups));
    size_t n = 0;
    if (parse(argc, argv, &out, paths, groups, &n) != 0) {
        free(paths);
        free(groups);
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
    size_t ng = 0;
    struct co_rpt_group *g = rc == 0 ? make_groups(files, groups, n, &ng) : NULL;
    if (ng > 0) { /* the comparison on stdout, with -o too */
        co_rpt_groups_text(stdout, g, ng);
        rc = fflush(stdout) == 0 ? rc : 1;
    }
    for (size_t i = 0; i < ng; i++)
        free(g[i].runs);
    free(g);
    free(groups);
    for (size_t i = 0; i < n; i++)
        co_rpt_file_clear(&files[i]);
    free(files);
    free(paths);
    return rc;
}
