/* co_tc_trx: tpcc_start's -f / -t files. See co_tc_trx.h. */
#include "co_tc_trx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg_trx.h"

/* A record's place in end order. */
struct end_key {
    uint64_t end_us; /* its end */
    uint32_t i;      /* its index in STATS.trx */
};

struct co_tc_trx {
    struct co_tc_trx_cfg cfg; /* paths borrowed */
    FILE *report;             /* -f, or NULL */
    FILE *trx;                /* -t, or NULL */
    uint64_t report_lines;    /* lines written to report */
    uint64_t trx_lines;       /* lines written to trx */
    struct end_key *order;    /* scratch: the records of one STATS in end order */
    uint32_t order_cap;
};

static bool given(const char *p)
{
    return p != NULL && *p != '\0';
}

static int check_one(const char *opt, const char *path, struct pr_error *err)
{
    if (!given(path))
        return 0;
    FILE *f = fopen(path, "w+");
    if (f == NULL)
        return pr_error_set(err, PR_EINVAL,
                            "--%s=%s: cannot create the file: %s; give a path in a "
                            "writable directory",
                            opt, path, strerror(errno));
    fclose(f);
    return 0;
}

int co_tc_trx_check(const struct co_tc_trx_cfg *cfg, struct pr_error *err)
{
    int rc = check_one("report-file", cfg->report_path, err);
    return rc ? rc : check_one("trx-file", cfg->trx_path, err);
}

static FILE *open_one(const char *opt, const char *path)
{
    if (!given(path))
        return NULL;
    FILE *f = fopen(path, "w+");
    if (f == NULL)
        fprintf(stderr, "stampede: --%s=%s: cannot create the file: %s; it is not written\n", opt,
                path, strerror(errno));
    return f;
}

co_tc_trx *co_tc_trx_new(const struct co_tc_trx_cfg *cfg)
{
    if (!given(cfg->report_path) && !given(cfg->trx_path))
        return NULL;
    co_tc_trx *t = pr_xcalloc(1, sizeof *t);
    t->cfg = *cfg;
    t->report = open_one("report-file", cfg->report_path);
    t->trx = open_one("trx-file", cfg->trx_path);
    if (t->report == NULL && t->trx == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

uint32_t co_tc_trx_time_count(const struct co_tc_trx_cfg *cfg, uint64_t end_us)
{
    uint64_t warm_us = (uint64_t)cfg->warmup_s * 1000000u;
    if (cfg->interval_s == 0 || end_us < warm_us)
        return 0;
    uint64_t k = (end_us - warm_us) / ((uint64_t)cfg->interval_s * 1000000u);
    uint64_t k_max = cfg->time_s / cfg->interval_s; /* tpcc_start's last alarm */
    return (uint32_t)((k < k_max ? k : k_max) * cfg->interval_s);
}

static int by_end(const void *a, const void *b)
{
    const struct end_key *x = a, *y = b;
    if (x->end_us != y->end_us)
        return x->end_us < y->end_us ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void write_one(co_tc_trx *t, const struct pr_msg_trx *r)
{
    if (t->report) {
        fprintf(t->report, "%" PRIu32 " %.3f\n", co_tc_trx_time_count(&t->cfg, r->end_us),
                (double)r->rt_us / 1000.0);
        t->report_lines++;
    }
    if (t->trx && !(r->flags & PR_TRX_ROLLED_BACK)) {
        fprintf(t->trx,
                "t_num: %" PRIu32 " finish: %" PRIu64 " %" PRIu64 " start: %" PRIu64 " %" PRIu64
                "\n",
                r->conn, r->end_rt_ns / 1000000000u, r->end_rt_ns % 1000000000u,
                r->start_rt_ns / 1000000000u, r->start_rt_ns % 1000000000u);
        t->trx_lines++;
    }
}

void co_tc_trx_stats(co_tc_trx *t, const struct pr_msg_stats *s, int kind)
{
    if (t == NULL || s->n_trx == 0 || kind < 0)
        return;
    if (s->n_trx > t->order_cap) {
        t->order_cap = s->n_trx;
        t->order = pr_xrealloc(t->order, (size_t)t->order_cap * sizeof *t->order);
    }
    for (uint32_t i = 0; i < s->n_trx; i++)
        t->order[i] = (struct end_key){s->trx[i].end_us, i};
    qsort(t->order, s->n_trx, sizeof *t->order, by_end);
    for (uint32_t i = 0; i < s->n_trx; i++) {
        const struct pr_msg_trx *r = &s->trx[t->order[i].i];
        if (r->kind == (uint16_t)kind)
            write_one(t, r);
    }
}

uint64_t co_tc_trx_report_lines(const co_tc_trx *t)
{
    return t ? t->report_lines : 0;
}

uint64_t co_tc_trx_trx_lines(const co_tc_trx *t)
{
    return t ? t->trx_lines : 0;
}

static int close_one(FILE **f, const char *opt, const char *path)
{
    if (*f == NULL)
        return 0;
    bool bad = ferror(*f) != 0;
    bad = fclose(*f) != 0 || bad;
    *f = NULL;
    if (!bad)
        return 0;
    fprintf(stderr, "stampede: --%s=%s: writing the file failed (disk full?); it is incomplete\n",
            opt, path);
    return -EIO;
}

int co_tc_trx_destroy(co_tc_trx **tp)
{
    co_tc_trx *t = *tp;
    if (t == NULL)
        return 0;
    int rc = close_one(&t->report, "report-file", t->cfg.report_path);
    int rc2 = close_one(&t->trx, "trx-file", t->cfg.trx_path);
    free(t->order);
    free(t);
    *tp = NULL;
    return rc ? rc : rc2;
}
