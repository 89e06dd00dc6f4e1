/* co_csv: the --csv=FILE report (see co_csv.h). */
#include "co_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "co_srvstat.h"
#include "pr_file.h"
#include "pr_text.h"

static const char csv_header[] = "t_s,len_s,threads,tps,qps,reads_s,writes_s,other_s,lat_p50_ms,"
                                 "lat_p95_ms,lat_p99_ms,lat_max_ms,err_s,reconn_s,"
                                 "agents_reporting,late,partial,server_qps,printed,"
                                 "svc_p50_ms,svc_p95_ms,svc_p99_ms";

/* ",<v>" (or "," alone when v is not finite); first omits the comma. */
static void csv_num(FILE *f, double v, bool first)
{
    char buf[40];
    pr_fmt_double(buf, sizeof(buf), v);
    fprintf(f, "%s%s", first ? "" : ",", buf);
}

static double rate(uint64_t count, double len_s)
{
    return isfinite(len_s) && len_s > 0 ? (double)count / len_s : NAN;
}

/* Latency at p in ms, NaN (empty field) without samples. */
static double lat_ms(const pr_hist *h, double p)
{
    if (h == NULL || pr_hist_count(h) == 0)
        return NAN;
    uint64_t us = p >= 100.0 ? pr_hist_max(h) : pr_hist_value_at_percentile(h, p);
    return (double)us / 1000.0;
}

/* scratch: where a frozen histogram is expanded (co_interval_lat). */
static void csv_row(FILE *f, const struct co_interval_result *iv, pr_hist *scratch)
{
    const struct pr_counters *c = &iv->ctr;
    const pr_hist *lat = co_interval_lat(iv, scratch);
    double len = iv->len_s;
    csv_num(f, iv->t_s, true);
    csv_num(f, len, false);
    fprintf(f, ",%" PRIu32, iv->threads);
    csv_num(f, rate(c->transactions, len), false);
    csv_num(f, rate(pr_counters_queries(c), len), false);
    csv_num(f, rate(c->reads, len), false);
    csv_num(f, rate(c->writes, len), false);
    csv_num(f, rate(c->other, len), false);
    csv_num(f, lat_ms(lat, 50.0), false);
    csv_num(f, lat_ms(lat, 95.0), false);
    csv_num(f, lat_ms(lat, 99.0), false);
    csv_num(f, lat_ms(lat, 100.0), false);
    csv_num(f, rate(c->errors, len), false);
    csv_num(f, rate(c->reconnects, len), false);
    fprintf(f, ",%" PRIu32 ",%d,%d", iv->agents_reporting, iv->late, iv->partial);
    csv_num(f, iv->has_server ? iv->server_qps : NAN, false);
    fprintf(f, ",%d", iv->printed);
    const pr_hist *svc = co_interval_svc(iv, scratch); /* after lat: scratch is reused */
    csv_num(f, lat_ms(svc, 50.0), false);
    csv_num(f, lat_ms(svc, 95.0), false);
    csv_num(f, lat_ms(svc, 99.0), false);
    co_srvstat_csv_row(f, iv);
    csv_num(f, rate(c->rolled_back, len), false); /* outcome columns: last (co_csv.h) */
    csv_num(f, rate(c->failed, len), false);
    fputc('\n', f);
}

int co_csv_write(const struct co_result *r, FILE *f)
{
    co_csv_write_header(f);
    pr_hist *scratch = pr_hist_new();
    for (uint32_t i = 0; i < r->n_intervals; i++)
        csv_row(f, &r->intervals[i], scratch);
    pr_hist_destroy(&scratch);
    if (fflush(f) != 0 || ferror(f))
        return -EIO;
    return 0;
}

void co_csv_write_header(FILE *f)
{
    fputs(csv_header, f);
    co_srvstat_csv_header(f); /* appended columns */
    /* the events' outcomes, added after them */
    fputs(",rolled_back_s,failed_s", f);
    fputc('\n', f);
}

void co_csv_write_row(FILE *f, const struct co_interval_result *iv, pr_hist *scratch)
{
    csv_row(f, iv, scratch);
}

static int csv_write_cb(FILE *f, const void *arg)
{
    return co_csv_write(arg, f);
}

int co_csv_write_file(const struct co_result *r, const char *path, struct pr_error *err)
{
    return pr_write_atomic(path, "--csv", csv_write_cb, r, err);
}
