/* co_rpt: the report command (see co_rpt.h). */
#include "co_rpt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_rpt_capacity.h"
#include "co_rpt_gate.h"
#include "co_rpt_groups.h"
#include "co_rpt_html.h"
#include "co_rpt_text.h"
#include "pr_file.h"

static int usage(void)
{
    fprintf(stderr, "usage: stampede report RUN.json [RUN2.json ...] [-o report.html]\n"
                    "       stampede report --group=A A1.json A2.json ... --group=B B1.json ... "
                    "[--json=FILE]\n"
                    "       stampede report --baseline=OLD.json NEW.json --fail-if='tps<-5%%' "
                    "[--junit=FILE]\n"
                    "       stampede report CAPACITY.json [-o capacity.html]\n"
                    "       (a sweep's JSON draws throughput and p95 against threads; groups of\n"
                    "       repeated runs are compared with confidence, the first the baseline)\n");
    return 2;
}

struct html_job {
    const struct co_rpt_file *files;
    size_t n;
    const char *chartjs;
    const json_t *groups;
};

static int html_cb(FILE *f, const void *arg)
{
    const struct html_job *job = arg;
    return co_rpt_html_write(f, job->files, job->n, job->chartjs, job->groups);
}

static int json_cb(FILE *f, const void *arg)
{
    if (json_dumpf(arg, f, JSON_INDENT(2)) != 0)
        return -EIO;
    return fputc('\n', f) == EOF ? -EIO : 0;
}

/* The command line: the files, each with the --group it follows (NULL
 * before any; "baseline" for --baseline=FILE, then "new" for the files
 * after it without a --group), -o, the --fail-if gates and --junit. */
struct cli {
    const char *out, *junit, *json;
    const char **paths, **groups;
    size_t n;
    struct co_rpt_gate *gates;
    size_t n_gates;
};

/* The value of option name at argv[*i] ("--name=V" or "--name V"), or
 * NULL when argv[*i] is not it; *missing when "--name" ends argv. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* Parse argv into c. 0 or 2 (usage, said on stderr). */
static int parse(int argc, char **argv, struct cli *c)
{
    const char *group = NULL, *v;
    bool missing = false, baseline = false;
    struct pr_error err = {0};
    for (int i = 1; i < argc && !missing; i++) {
        if ((v = opt_value(argc, argv, &i, "--group", &missing)) != NULL) {
            group = v;
        } else if ((v = opt_value(argc, argv, &i, "--baseline", &missing)) != NULL) {
            c->groups[c->n] = "baseline";
            c->paths[c->n++] = v;
            baseline = true;
        } else if ((v = opt_value(argc, argv, &i, "--fail-if", &missing)) != NULL) {
            if (co_rpt_gate_parse(v, &c->gates[c->n_gates], &err) != 0) {
                fprintf(stderr, "stampede report: %s\n", err.msg);
                return 2;
            }
            c->n_gates++;
        } else if ((v = opt_value(argc, argv, &i, "--junit", &missing)) != NULL) {
            c->junit = v;
        } else if ((v = opt_value(argc, argv, &i, "--json", &missing)) != NULL) {
            c->json = v;
        } else if ((v = opt_value(argc, argv, &i, "--output", &missing)) != NULL ||
                   (v = opt_value(argc, argv, &i, "-o", &missing)) != NULL) {
            c->out = v;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            return 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0' && !missing) {
            fprintf(stderr, "stampede report: unknown option %s\n", argv[i]);
            return 2;
        } else if (!missing) {
            c->groups[c->n] = group ? group : baseline ? "new" : NULL;
            c->paths[c->n++] = argv[i];
        }
    }
    if (missing)
        return 2;
    for (size_t i = 1; i < c->n; i++)
        if ((c->groups[i] == NULL) != (c->groups[0] == NULL)) {
            fprintf(stderr,
                    "stampede report: %s comes before the first --group: with groups, every "
                    "file follows the --group=NAME it belongs to\n",
                    c->paths[c->groups[0] == NULL ? 0 : i]);
            return 2;
        }
    if (c->n_gates > 0 && c->groups[0] == NULL) {
        fprintf(stderr, "stampede report: --fail-if needs a baseline: --baseline=OLD.json "
                        "NEW.json, or --group=A ... --group=B ...\n");
        return 2;
    }
    return c->n == 0 ? 2 : 0;
}

struct gates_job {
    const struct co_rpt_gate *g;
    size_t n;
};

static int junit_cb(FILE *f, const void *arg)
{
    const struct gates_job *job = arg;
    return co_rpt_gates_junit(f, job->g, job->n);
}

/* The gates evaluated, listed and written as JUnit: rc, or CO_RPT_GATE_FAILED. */
static int run_gates(struct cli *c, const struct co_rpt_group *g, size_t ng, int rc)
{
    if (c->n_gates == 0 || rc != 0)
        return rc;
    co_rpt_gates_eval(c->gates, c->n_gates, g, ng);
    size_t failed = co_rpt_gates_text(stdout, c->gates, c->n_gates);
    struct pr_error err = {0};
    struct gates_job job = {c->gates, c->n_gates};
    if (c->junit != NULL && pr_write_atomic(c->junit, "JUnit file", junit_cb, &job, &err) != 0) {
        fprintf(stderr, "stampede report: %s\n", err.msg);
        return 1;
    }
    for (size_t i = 0; i < c->n_gates; i++)
        if (c->gates[i].failed)
            fprintf(stderr, "stampede report: gate failed: %s: %s\n", c->gates[i].expr,
                    c->gates[i].why);
    return failed > 0 ? 3 : 0;
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

/* The groups compared: the --group ones, else a lone sweep's repeats. */
struct chosen {
    struct co_rpt_group *cli; /* from --group / --baseline */
    size_t n_cli;
    struct co_rpt_sweep_groups sweep;
    const struct co_rpt_group *g; /* the one used: cli, sweep.groups or NULL */
    size_t ng;
};

static int choose_groups(const struct co_rpt_file *files, const char **groups, size_t n,
                         struct chosen *ch, struct pr_error *err)
{
    ch->cli = make_groups(files, groups, n, &ch->n_cli);
    if (ch->n_cli > 0) {
        ch->g = ch->cli;
        ch->ng = ch->n_cli;
        return 0;
    }
    if (n != 1 || files[0].kind != CO_RPT_SWEEP)
        return 0;
    int rc = co_rpt_sweep_groups(&files[0], &ch->sweep, err);
    ch->g = ch->sweep.groups;
    ch->ng = ch->sweep.n_groups;
    return rc;
}

static void chosen_clear(struct chosen *ch)
{
    for (size_t i = 0; i < ch->n_cli; i++)
        free(ch->cli[i].runs);
    free(ch->cli);
    co_rpt_sweep_groups_clear(&ch->sweep);
    memset(ch, 0, sizeof(*ch));
}

static bool has_capacity(const struct co_rpt_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (files[i].kind == CO_RPT_CAPACITY)
            return true;
    return false;
}

static int capacity_cb(FILE *f, const void *arg)
{
    const struct co_rpt_file *file = arg;
    struct pr_error err = {0};
    char *chartjs = co_rpt_html_chartjs(CO_RPT_CHARTJS, &err);
    if (chartjs == NULL) {
        fprintf(stderr, "stampede report: %s\n", err.msg);
        return -ENOENT;
    }
    int rc = co_rpt_capacity_html(f, file, chartjs);
    free(chartjs);
    return rc;
}

/* A capacity search's file is reported alone: its steps, or its page. */
static int capacity_report(const struct cli *c, const struct co_rpt_file *files)
{
    size_t k = 0;
    while (files[k].kind != CO_RPT_CAPACITY)
        k++;
    if (c->n != 1 || c->groups[0] != NULL || c->n_gates > 0 || c->json || c->junit) {
        fprintf(stderr,
                "stampede report: %s is a capacity search's JSON: report it alone "
                "(stampede report %s [-o capacity.html]); groups, --baseline, --fail-if, "
                "--json and --junit take run files\n",
                files[k].path, files[k].path);
        return 2;
    }
    if (c->out == NULL)
        return co_rpt_capacity_text(stdout, &files[0]) == 0 ? 0 : 1;
    struct pr_error err = {0};
    if (pr_write_atomic(c->out, "report", capacity_cb, &files[0], &err) != 0) {
        if (err.msg[0])
            fprintf(stderr, "stampede report: %s\n", err.msg);
        return 1;
    }
    return 0;
}

int co_rpt_main(int argc, char **argv)
{
    struct cli c = {.paths = pr_xcalloc((size_t)argc, sizeof(*c.paths)),
                    .groups = pr_xcalloc((size_t)argc, sizeof(*c.groups)),
                    .gates = pr_xcalloc((size_t)argc, sizeof(*c.gates))};
    if (parse(argc, argv, &c) != 0) {
        free(c.paths);
        free(c.groups);
        free(c.gates);
        return usage();
    }
    const char *out = c.out, **paths = c.paths, **groups = c.groups;
    size_t n = c.n;
    struct co_rpt_file *files = pr_xcalloc(n, sizeof(*files));
    struct pr_error err = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (co_rpt_load(paths[i], &files[i], &err) != 0) {
            fprintf(stderr, "stampede report: %s\n", err.msg);
            rc = 1;
        }
    if (rc == 0 && has_capacity(files, n)) {
        rc = capacity_report(&c, files);
        goto out;
    }
    struct chosen ch = {0};
    if (rc == 0 && choose_groups(files, groups, n, &ch, &err) != 0) {
        fprintf(stderr,
                "stampede report: %s (a sweep's run files are read from beside it to "
                "compare its repeats)\n",
                err.msg);
        rc = 1;
    }
    const struct co_rpt_group *cg = ch.g;
    size_t ng = ch.ng;
    json_t *cmp = ng > 0 ? co_rpt_groups_json(cg, ng) : NULL;
    if (rc == 0 && out != NULL) {
        struct html_job job = {files, n, co_rpt_html_chartjs(CO_RPT_CHARTJS, &err), cmp};
        if (job.chartjs == NULL || pr_write_atomic(out, "report", html_cb, &job, &err) != 0) {
            fprintf(stderr, "stampede report: %s\n", err.msg);
            rc = 1;
        }
        free((char *)job.chartjs);
    } else if (rc == 0) {
        rc = co_rpt_text_write(stdout, files, n) == 0 ? 0 : 1;
    }
    if (cmp != NULL && rc == 0) { /* the comparison on stdout, with -o too */
        co_rpt_groups_text(stdout, cmp);
        rc = fflush(stdout) == 0 ? rc : 1;
    }
    if (cmp != NULL && rc == 0 && c.json != NULL &&
        pr_write_atomic(c.json, "comparison JSON", json_cb, cmp, &err) != 0) {
        fprintf(stderr, "stampede report: %s\n", err.msg);
        rc = 1;
    }
    if (cmp == NULL && rc == 0 && c.json != NULL) {
        fprintf(stderr, "stampede report: --json writes the groups' comparison and there is "
                        "none: give groups (--group=A ... --group=B ...), --baseline=OLD.json "
                        "NEW.json, or a sweep of repeats (--repeat=2 or more)\n");
        rc = 2;
    }
    json_decref(cmp);
    rc = run_gates(&c, cg, ng, rc);
    chosen_clear(&ch);
out:
    free(c.gates);
    free(groups);
    for (size_t i = 0; i < n; i++)
        co_rpt_file_clear(&files[i]);
    free(files);
    free(paths);
    return rc;
}
