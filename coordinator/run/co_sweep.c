/* co_sweep: a sweep of runs over --threads points and --repeat (see
 * co_sweep.h). */
#include "co_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "co_output.h"
#include "co_rpt_family.h"
#include "co_rpt_text.h"
#include "co_run.h"
#include "pr_file.h"

bool co_sweep_is_wanted(const struct co_args *a)
{
    return a->n_sweep_threads > 0 || a->repeat > 1;
}

char *co_sweep_path(const char *path, uint32_t threads, uint32_t repeat)
{
    if (path == NULL)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    size_t stem =
        dot != NULL && dot > (slash ? slash + 1 : path) ? (size_t)(dot - path) : strlen(path);
    char tag[48];
    if (threads == 0)
        snprintf(tag, sizeof(tag), "-sweep");
    else
        snprintf(tag, sizeof(tag), "-t%u-r%u", threads, repeat);
    size_t len = strlen(path) + strlen(tag) + 1;
    char *out = pr_xmalloc(len);
    snprintf(out, len, "%.*s%s%s", (int)stem, path, tag, path + stem);
    return out;
}

/* One run's figures, computed as co_json computes the run JSON's totals. */
struct figures {
    double tps, qps, p95_ms, p99_ms, err_s;
};

static double per_s(uint64_t count, double len_s)
{
    return isfinite(len_s) && len_s > 0 ? (double)count / len_s : NAN;
}

static struct figures figures_of(const struct co_result *res)
{
    bool has = res->lat != NULL && pr_hist_count(res->lat) > 0;
    return (struct figures){
        .tps = per_s(res->total.transactions, res->time_s),
        .qps = per_s(pr_counters_queries(&res->total), res->time_s),
        .p95_ms = has ? (double)pr_hist_value_at_percentile(res->lat, 95.0) / 1000.0 : NAN,
        .p99_ms = has ? (double)pr_hist_value_at_percentile(res->lat, 99.0) / 1000.0 : NAN,
        .err_s = per_s(res->total.errors, res->time_s),
    };
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* {mean, stddev (sample), min, max} of v[0..n), nulls when n is 0. */
static json_t *stats(const double *v, size_t n)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY, ss = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    double mean = n ? sum / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double sd = n > 1 ? sqrt(ss / (double)(n - 1)) : n == 1 ? 0.0 : NAN;
    json_t *o = json_object();
    json_object_set_new(o, "mean", num(mean));
    json_object_set_new(o, "stddev", num(sd));
    json_object_set_new(o, "min", num(n ? lo : NAN));
    json_object_set_new(o, "max", num(n ? hi : NAN));
    return o;
}

/* The points of the summary, from the runs that finished (status 0, or 3: a
 * --threshold crossed, the run itself measured). */
static json_t *points_of(const json_t *runs, const uint32_t *threads, uint32_t n_points)
{
    const char *keys[6] = {"tps", "qps", "p95_ms", "p99_ms"};
    size_t nk = 4;
    const struct co_rpt_family *fam;
    for (size_t f = 0; (fam = co_rpt_family_at(f)) != NULL && nk < 6; f++) {
        bool has = false; /* a family's sweep: its headline per point too */
        size_t ri;
        json_t *rr;
        json_array_foreach(runs, ri, rr) has =
            has || (fam->headline && json_object_get(rr, fam->headline) != NULL);
        if (has)
            keys[nk++] = fam->headline;
    }
    json_t *points = json_array();
    double *v = pr_xcalloc(json_array_size(runs) + 1, sizeof(*v));
    for (uint32_t p = 0; p < n_points; p++) {
        json_t *pt = json_pack("{s:i}", "threads", (json_int_t)threads[p]);
        size_t used = 0;
        for (size_t k = 0; k < nk; k++) {
            size_t i, m = 0;
            json_t *r;
            json_array_foreach(runs, i, r)
            {
                double x = json_number_value(json_object_get(r, keys[k]));
                if (json_integer_value(json_object_get(r, "threads")) == threads[p] &&
                    json_is_true(json_object_get(r, "included")) &&
                    json_is_number(json_object_get(r, keys[k])))
                    v[m++] = x;
            }
            json_object_set_new(pt, keys[k], stats(v, m));
            used = m > used ? m : used;
        }
        json_object_set_new(pt, "runs", json_integer((json_int_t)used));
        json_array_append_new(points, pt);
    }
    free(v);
    return points;
}

static int dump_cb(FILE *f, const void *arg)
{
    if (json_dumpf(arg, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
        return -EIO;
    fputc('\n', f);
    return 0;
}

/* Replace the passthrough "threads=..." (sent to the agents and written
 * in the JSON's options), the option itself and its typed copy. */
static void set_threads(struct co_args *a, uint32_t threads)
{
    char v[24];
    struct pr_error err = {0};
    snprintf(v, sizeof(v), "%u", threads);
    pr_opts_set(a->opts, "threads", v, &err);
    a->cfg.threads = threads;
    for (uint32_t i = 0; i < a->n_passthrough; i++)
        if (strncmp(a->passthrough[i], "threads=", 8) == 0) {
            free(a->passthrough[i]);
            a->passthrough[i] = pr_xmalloc(8 + strlen(v) + 1);
            sprintf(a->passthrough[i], "threads=%s", v);
        }
}

/* The pause between runs, cut short by an interrupt. */
static void pause_s(uint32_t s)
{
    for (uint64_t ms = 0; ms < (uint64_t)s * 1000 && !co_run_interrupted(); ms += 100)
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
}

struct sweep {
    struct co_args *a;
    char *paths[3];  /* the --json, --csv, --hdr-log given (restored at the end) */
    json_t *runs;    /* one object per run started */
    uint32_t *pts;   /* the points */
    uint32_t n_pts;  /* entries of pts */
    uint32_t repeat; /* runs per point */
    int rc;          /* exit status so far */
    bool in_run;     /* the interrupt stopped a run (not a pause) */
};

/* A family's headline (tpcc's tpmC: root.tpcc.tpmC), from the JSON the
 * run wrote, into the run's entry o under the headline's name. */
static void headlines_of(json_t *o, const char *json_path)
{
    if (json_path == NULL || strcmp(json_path, "-") == 0)
        return;
    json_t *root = json_load_file(json_path, 0, NULL);
    const struct co_rpt_family *fam;
    for (size_t f = 0; (fam = co_rpt_family_at(f)) != NULL; f++) {
        if (!fam->json_key || !fam->headline)
            continue;
        json_t *v = json_object_get(json_object_get(root, fam->json_key), fam->headline);
        if (json_is_number(v))
            json_object_set_new(o, fam->headline, json_real(json_number_value(v)));
    }
    json_decref(root);
}

/* Run point p's repeat r (1-based); false when the sweep must stop. */
static bool one_run(struct sweep *s, uint32_t p, uint32_t r, const char *self_exe, FILE *out)
{
    struct co_args *a = s->a;
    uint32_t idx = p * s->repeat + r, total = s->n_pts * s->repeat;
    char **slots[3] = {&a->json_path, &a->csv_path, &a->hdr_log_path};
    for (int i = 0; i < 3; i++)
        *slots[i] = co_sweep_path(s->paths[i], s->pts[p], r);
    set_threads(a, s->pts[p]);
    fprintf(out, "=== sweep run %u of %u: --threads=%u, repeat %u of %u ===\n", idx, total,
            s->pts[p], r, s->repeat);
    fflush(out);
    struct co_result res = {0};
    int rc = co_run(a, self_exe, out, &res);
    bool stop = co_run_interrupted();
    bool measured = rc == CO_EXIT_OK || rc == CO_EXIT_THRESHOLD; /* a crossed one still counts */
    struct figures fg = figures_of(&res);
    json_t *o = json_pack("{s:i,s:i,s:i,s:b}", "threads", (json_int_t)s->pts[p], "repeat",
                          (json_int_t)r, "status", (json_int_t)rc, "included", measured && !stop);
    json_object_set_new(o, "json", a->json_path ? json_string(a->json_path) : json_null());
    json_object_set_new(o, "tps", num(fg.tps));
    json_object_set_new(o, "qps", num(fg.qps));
    json_object_set_new(o, "p95_ms", num(fg.p95_ms));
    json_object_set_new(o, "p99_ms", num(fg.p99_ms));
    json_object_set_new(o, "err_s", num(fg.err_s));
    headlines_of(o, a->json_path);
    json_array_append_new(s->runs, o);
    co_result_clear(&res);
    for (int i = 0; i < 3; i++) {
        free(*slots[i]);
        *slots[i] = NULL;
    }
    if (rc == CO_EXIT_THRESHOLD && s->rc == 0)
        s->rc = CO_EXIT_THRESHOLD; /* unless a run failed: 1 */
    else if (rc != 0 && rc != CO_EXIT_THRESHOLD)
        s->rc = 1;
    s->in_run = stop;
    if (!stop && idx < total && a->sweep_pause_s > 0)
        pause_s(a->sweep_pause_s);
    return !stop && !co_run_interrupted();
}

static void finish(struct sweep *s, const char *stopped, FILE *out)
{
    struct co_args *a = s->a;
    json_t *root =
        json_pack("{s:s,s:s,s:s,s:s,s:[],s:i,s:i}", "tool", "stampede", "version", STAMPEDE_VERSION,
                  "kind", "sweep", "workload", a->workload ? a->workload : "", "threads", "repeat",
                  (json_int_t)s->repeat, "sweep_pause_s", (json_int_t)a->sweep_pause_s);
    for (uint32_t p = 0; p < s->n_pts; p++)
        json_array_append_new(json_object_get(root, "threads"), json_integer(s->pts[p]));
    json_object_set(root, "runs", s->runs);
    json_object_set_new(root, "points", points_of(s->runs, s->pts, s->n_pts));
    json_object_set_new(root, "stopped", stopped ? json_string(stopped) : json_null());
    fputc('\n', out);
    co_rpt_text_sweep(out, root, "summary (over the repeats that finished)");
    fflush(out);
    char *path = co_sweep_path(s->paths[0], 0, 0);
    struct pr_error err = {0};
    if (path != NULL && pr_write_atomic(path, "sweep JSON", dump_cb, root, &err) != 0) {
        fprintf(stderr, "stampede: %s\n", err.msg);
        s->rc = 1;
    } else if (path != NULL && a->cfg.verbosity >= CO_OUTPUT_VERBOSITY_INFO) {
        fprintf(stderr, "stampede: sweep JSON written to %s\n", path);
    }
    free(path);
    json_decref(root);
}

int co_sweep_run(struct co_args *a, const char *self_exe, FILE *out)
{
    if (a->cmd != PR_CMD_RUN) {
        fprintf(stderr, "stampede: a --threads list and --repeat are for `run` only\n");
        return 2;
    }
    uint32_t one = a->cfg.threads;
    struct sweep s = {.a = a,
                      .paths = {a->json_path, a->csv_path, a->hdr_log_path},
                      .runs = json_array(),
                      .pts = a->n_sweep_threads ? a->sweep_threads : &one,
                      .n_pts = a->n_sweep_threads ? a->n_sweep_threads : 1,
                      .repeat = a->repeat ? a->repeat : 1};
    char stopped[256] = "";
    bool go = true;
    for (uint32_t p = 0; p < s.n_pts && go; p++)
        for (uint32_t r = 1; r <= s.repeat && go; r++) {
            go = one_run(&s, p, r, self_exe, out);
            uint32_t idx = p * s.repeat + r;
            if (!go)
                snprintf(stopped, sizeof(stopped),
                         "interrupted %s run %u of %u (--threads=%u, repeat %u): %u finished "
                         "run(s) kept, %u not started%s",
                         s.in_run ? "during" : "in the pause after", idx, s.n_pts * s.repeat,
                         s.pts[p], r, s.in_run ? idx - 1 : idx, s.n_pts * s.repeat - idx,
                         s.in_run ? "; the interrupted run's files hold what it measured" : "");
        }
    if (!go) {
        fprintf(stderr, "stampede: sweep %s\n", stopped);
        s.rc = 1;
    }
    finish(&s, go ? NULL : stopped, out);
    a->json_path = s.paths[0];
    a->csv_path = s.paths[1];
    a->hdr_log_path = s.paths[2];
    set_threads(a, s.pts[0]);
    json_decref(s.runs);
    return s.rc;
}
