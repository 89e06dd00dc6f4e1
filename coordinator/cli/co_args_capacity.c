/* co_args_capacity: the capacity search's options (--find-capacity, --slo,
 * --capacity-*) into struct co_args, and their rules, for co_capacity to
 * carry out (contract: co_args_int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args_int.h"
#include "co_family.h"
#include "pr_parse.h"

#define MAX_RATE   1000000000U
#define MAX_TRIAL  3600U
#define MAX_TRIALS 1000U

/* --slo: each term a --threshold expression (co_threshold_parse says what
 * is wrong with one). */
static int set_slo(struct co_args *a, const char *v, struct pr_error *err)
{
    if (v == NULL || *v == '\0')
        return pr_error_set(err, PR_EINVAL,
                            "--slo: give --threshold expressions joined by ',', e.g. "
                            "--slo='p99<=10ms,errors<=0.1%%'");
    char *copy = pr_xstrdup(v), *save = NULL;
    int rc = 0, n = 0;
    for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        struct co_threshold th;
        struct pr_error e2 = {0};
        rc = co_threshold_parse(t, &th, &e2);
        if (rc < 0)
            pr_error_set(err, rc, "--slo: %s", e2.msg);
        else
            co_threshold_clear(&th);
        n++;
    }
    free(copy);
    if (rc == 0 && (n == 0 || v[0] == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,")))
        rc = pr_error_set(err, PR_EINVAL, "--slo='%s': an empty term between the ','", v);
    if (rc == 0) {
        free(a->slo);
        a->slo = pr_xstrdup(v);
    }
    return rc;
}

int co__args_capacity(struct co_args *a, const char *name, const char *v, struct pr_error *err)
{
    if (strcmp(name, "find-capacity") == 0) {
        if (v == NULL || pr_parse_bool(v, &a->find_capacity))
            return v == NULL ? (a->find_capacity = true, 0) : 0;
        return pr_error_set(err, PR_EINVAL, "--find-capacity: '%s' is not a boolean (on/off)", v);
    }
    if (strcmp(name, "slo") == 0)
        return set_slo(a, v, err);
    if (strcmp(name, "capacity-start") == 0)
        return co__args_u32(name, v, 1, MAX_RATE, &a->capacity_start, err);
    if (strcmp(name, "capacity-trial") == 0)
        return co__args_u32(name, v, 1, MAX_TRIAL, &a->capacity_trial_s, err);
    if (strcmp(name, "capacity-warmup") == 0)
        return co__args_u32(name, v, 1, MAX_TRIAL, &a->capacity_warmup_s, err);
    if (strcmp(name, "capacity-max-trials") == 0)
        return co__args_u32(name, v, 2, MAX_TRIALS, &a->capacity_max_trials, err);
    if (strcmp(name, "capacity-dir") == 0) {
        if (v == NULL || *v == '\0')
            return pr_error_set(err, PR_EINVAL, "--capacity-dir: a directory is required");
        free(a->capacity_dir);
        a->capacity_dir = pr_xstrdup(v);
        return 0;
    }
    /* capacity-precision */
    char *end;
    errno = 0;
    double p = v ? strtod(v, &end) : 0;
    if (v == NULL || end == v || *end != '\0' || errno != 0 || !(p >= 0.1 && p <= 100))
        return pr_error_set(err, PR_EINVAL,
                            "--capacity-precision: '%s' is not a percentage in 0.1..100",
                            v ? v : "");
    a->capacity_precision = p;
    return 0;
}

/* An option the user gave (not a family's default), by canonical name. */
static bool given(const struct co_args *a, const char *name)
{
    size_t len = strlen(name);
    for (uint32_t i = 0; i < a->n_passthrough_given; i++)
        if (strncmp(a->passthrough[i], name, len) == 0 && a->passthrough[i][len] == '=')
            return true;
    return false;
}

int co__args_capacity_check(const struct co_args *a, struct pr_error *err)
{
    bool any = a->slo || a->capacity_start || a->capacity_trial_s || a->capacity_warmup_s ||
               a->capacity_precision > 0 || a->capacity_max_trials || a->capacity_dir;
    if (!a->find_capacity)
        return any ? pr_error_set(err, PR_EINVAL,
                                  "--slo and --capacity-* shape a capacity search: give "
                                  "--find-capacity too")
                   : 0;
    if (!(a->action == CO_ACTION_COMMAND && a->cmd == PR_CMD_RUN))
        return pr_error_set(err, PR_EINVAL, "--find-capacity runs trials: it goes with `run`");
    static const char *const own[] = {"rate", "time", "events", "report-interval", "warmup-time"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (given(a, own[i]))
            return pr_error_set(err, PR_EINVAL,
                                "--find-capacity sets --%s of each trial itself (--capacity-start, "
                                "--capacity-trial, --capacity-warmup); drop --%s",
                                own[i], own[i]);
    const char *clash = a->n_thresholds                    ? "--threshold (give the SLO as --slo)"
                        : a->abort_on_threshold_s          ? "--abort-on-threshold"
                        : a->warmup.mode != 0              ? "--warmup (see --capacity-warmup)"
                        : a->n_sweep_threads               ? "a --threads list"
                        : a->repeat > 1                    ? "--repeat"
                        : a->csv_path || a->csv_kinds_path ? "--csv (each step writes its JSON)"
                        : a->hdr_log_path                  ? "--hdr-log (each step writes its JSON)"
                        : a->json_path && strcmp(a->json_path, "-") == 0 ? "--json=-"
                                                                         : NULL;
    if (clash)
        return pr_error_set(err, PR_EINVAL, "--find-capacity cannot be combined with %s", clash);
    const struct co_family *fam = a->workload ? co_registry_find(a->workload) : NULL;
    if (a->slo == NULL && !(fam && fam->capacity_slo))
        return pr_error_set(err, PR_EINVAL,
                            "--find-capacity needs the SLO to meet: give --slo, e.g. "
                            "--slo='p99<=10ms,errors<=0.1%%'");
    return 0;
}
