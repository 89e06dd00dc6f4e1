/* co_kinds_out: see co_kinds_out.h. */
#include "co_kinds_out.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "co_family.h"
#include "co_kinds.h"
#include "pr_file.h"
#include "pr_text.h"

static const struct {
    const char *key;
    double p;
} pcts[] = {{"p50", 50.0}, {"p95", 95.0}, {"p99", 99.0}, {"p99_9", 99.9}};

static bool kind_used(const struct co_kind_result *k)
{
    return k->count > 0 || k->errors > 0;
}

static void num(FILE *f, double v)
{
    char buf[40];
    fputs(pr_fmt_double(buf, sizeof(buf), v) ? buf : "null", f);
}

/* min, avg, max and the percentiles of h in ms, NAN when empty. */
static void lat_ms(const pr_hist *h, double out[7])
{
    bool has = h != NULL && pr_hist_count(h) > 0;
    out[0] = has ? (double)pr_hist_min(h) / 1000.0 : NAN;
    out[1] = has ? pr_hist_mean(h) / 1000.0 : NAN;
    out[2] = has ? (double)pr_hist_max(h) / 1000.0 : NAN;
    for (size_t i = 0; i < 4; i++)
        out[3 + i] = has ? (double)pr_hist_value_at_percentile(h, pcts[i].p) / 1000.0 : NAN;
}

static void kinds_json(FILE *f, const struct co_kind_result *k, uint32_t n, pr_hist *scratch,
                       bool with_hist)
{
    static const char *const keys[3] = {"min", "avg", "max"};
    bool first = true;

    fputc('{', f);
    for (uint32_t i = 0; k && i < n; i++) {
        if (!kind_used(&k[i]))
            continue;
        double v[7];
        lat_ms(co_kind_lat(&k[i], scratch), v);
        fputs(first ? "" : ", ", f);
        first = false;
        pr_json_string(f, k[i].name ? k[i].name : "?");
        fprintf(f, ": {\"count\": %llu, \"errors\": %llu, ", (unsigned long long)k[i].count,
                (unsigned long long)k[i].errors);
        if (k[i].late > 0) /* a kind with a limit (tpcc): its events at or over it */
            fprintf(f, "\"late\": %llu, ", (unsigned long long)k[i].late);
        fputs("\"latency_ms\": {", f);
        for (size_t j = 0; j < 7; j++) {
            fprintf(f, "%s\"%s\": ", j ? ", " : "", j < 3 ? keys[j] : pcts[j - 3].key);
            num(f, v[j]);
        }
        fputc('}', f);
        if (with_hist) {
            fputs(", \"histogram\": ", f);
            pr_hdrlog_json(f, co_kind_lat(&k[i], scratch));
        }
        fputc('}', f);
    }
    fputc('}', f);
}

void co_kinds_out_json(FILE *f, const struct co_kind_result *k, uint32_t n, pr_hist *scratch)
{
    kinds_json(f, k, n, scratch, false);
}

void co_kinds_out_json_hist(FILE *f, const struct co_kind_result *k, uint32_t n)
{
    pr_hist *scratch = pr_hist_new();
    kinds_json(f, k, n, scratch, true);
    pr_hist_destroy(&scratch);
}

int co_kinds_out_hlog(pr_hdrlog *w, const struct co_interval_result *iv, uint64_t start_ms,
                      uint64_t length_ms, pr_hist *scratch)
{
    char tag[96];
    int rc = 0;

    for (uint32_t i = 0; rc == 0 && iv->kinds && i < iv->n_kinds; i++) {
        const pr_hist *h = co_kind_lat(&iv->kinds[i], scratch);
        if (pr_hist_count(h) == 0)
            continue;
        snprintf(tag, sizeof(tag), "kind:%s", iv->kinds[i].name ? iv->kinds[i].name : "?");
        for (char *c = tag; *c; c++) /* a tag holds no comma, space or control (a Lua
                                        script's kinds are its statements' texts) */
            if (*c == ',' || (unsigned char)*c <= ' ' || *c == 0x7f)
                *c = '_';
        rc = pr_hdrlog_write_interval(w, tag, start_ms, length_ms, h);
    }
    return rc;
}

void co_kinds_out_text(FILE *f, const struct co_result *r)
{
    if (r->kinds == NULL || r->n_kinds == 0)
        return;
    pr_hist *scratch = pr_hist_new();
    const struct co_family *fam = co_registry_find(r->workload); /* its kinds' title */
    fprintf(f, "%s\n", fam && fam->kinds_title ? fam->kinds_title : "Latency by statement (ms):");
    fprintf(f, "    %-20s %12s %10s %10s %10s %10s %10s\n", "kind", "count", "errors", "avg",
            "95th", "99th", "max");
    for (uint32_t i = 0; i < r->n_kinds; i++) {
        const struct co_kind_result *k = &r->kinds[i];
        if (!kind_used(k))
            continue;
        double v[7];
        lat_ms(co_kind_lat(k, scratch), v);
        fprintf(f, "    %-20s %12llu %10llu %10.2f %10.2f %10.2f %10.2f\n", k->name ? k->name : "?",
                (unsigned long long)k->count, (unsigned long long)k->errors,
                isnan(v[1]) ? 0.0 : v[1], isnan(v[4]) ? 0.0 : v[4], isnan(v[5]) ? 0.0 : v[5],
                isnan(v[2]) ? 0.0 : v[2]);
    }
    if (r->total.rolled_back > 0 || r->total.failed > 0) /* the events' outcomes, when any */
        fprintf(f, "    events rolled back on purpose: %llu, failed: %llu\n",
                (unsigned long long)r->total.rolled_back, (unsigned long long)r->total.failed);
    fputc('\n', f);
    pr_hist_destroy(&scratch);
}

void co_kinds_out_csv_header(FILE *f)
{
    fputs("t_s,kind,count,errors,lat_min_ms,lat_avg_ms,lat_max_ms,lat_p50_ms,lat_p95_ms,"
          "lat_p99_ms,lat_p99_9_ms\n",
          f);
}

void co_kinds_out_csv_rows(FILE *f, const struct co_interval_result *iv, pr_hist *scratch)
{
    for (uint32_t i = 0; iv->kinds && i < iv->n_kinds; i++) {
        const struct co_kind_result *kr = &iv->kinds[i];
        if (!kind_used(kr))
            continue;
        double v[7];
        lat_ms(co_kind_lat(kr, scratch), v);
        num(f, iv->t_s);
        fprintf(f, ",%s,%llu,%llu", kr->name ? kr->name : "?", (unsigned long long)kr->count,
                (unsigned long long)kr->errors);
        for (size_t j = 0; j < 7; j++) {
            fputc(',', f);
            if (!isnan(v[j]))
                num(f, v[j]);
        }
        fputc('\n', f);
    }
}

int co_kinds_out_csv(const struct co_result *r, FILE *f)
{
    pr_hist *scratch = pr_hist_new();

    co_kinds_out_csv_header(f);
    for (uint32_t k = 0; k < r->n_intervals; k++)
        co_kinds_out_csv_rows(f, &r->intervals[k], scratch);
    pr_hist_destroy(&scratch);
    return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}

static int csv_cb(FILE *f, const void *arg)
{
    return co_kinds_out_csv(arg, f);
}

int co_kinds_out_csv_file(const struct co_result *r, const char *path, struct pr_error *err)
{
    return pr_write_atomic(path, "--csv-kinds", csv_cb, r, err);
}
