/* co_tc_trx: tpcc_start's -f / -t files. See co_tc_trx.h. */
#include "co_tc_trx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pr_msg_trx.h"

/* A held record and its arrival number (the last tie-break). */
struct held {
    struct pr_msg_trx r;
    uint64_t seq;
};

struct co_tc_trx {
    struct co_tc_trx_cfg cfg; /* paths borrowed */
    FILE *report;             /* -f, or NULL */
    FILE *trx;                /* -t, or NULL */
    uint64_t report_lines;    /* lines written to report */
    uint64_t trx_lines;       /* lines written to trx */
    struct held *held;        /* records not written yet, n_held (sorted at a flush) */
    uint32_t n_held, held_cap;
    uint64_t min_end_us; /* the earliest end in held (when n_held > 0): a flush
                            up to it or below has nothing to write */
    uint64_t seq;        /* records taken so far */
    uint64_t t0_unix_ns; /* -t stamps: our wall clock at t0, or 0: the agents' own */
    bool warned_early;   /* the CO_TC_TRX_MAX_HELD warning was printed */
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
    const struct held *x = a, *y = b;
    if (x->r.end_us != y->r.end_us)
        return x->r.end_us < y->r.end_us ? -1 : 1;
    if (x->r.conn != y->r.conn)
        return x->r.conn < y->r.conn ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void co_tc_trx_set_epoch(co_tc_trx *t, uint64_t t0_unix_ns)
{
    if (t != NULL)
        t->t0_unix_ns = t0_unix_ns;
}

/* r's -t stamps in the common epoch (co_tc_trx_set_epoch). */
static void stamps(const co_tc_trx *t, const struct pr_msg_trx *r, uint64_t *start_ns,
                   uint64_t *end_ns)
{
    *start_ns = r->start_rt_ns;
    *end_ns = r->end_rt_ns;
    if (t->t0_unix_ns == 0)
        return;
    uint64_t last = r->end_rt_ns > r->start_rt_ns ? r->end_rt_ns - r->start_rt_ns : 0;
    *end_ns = t->t0_unix_ns + r->end_us * 1000u;
    *start_ns = *end_ns > last ? *end_ns - last : 0;
}

static void write_one(co_tc_trx *t, const struct pr_msg_trx *r)
{
    if (t->report) {
        fprintf(t->report, "%" PRIu32 " %.3f\n", co_tc_trx_time_count(&t->cfg, r->end_us),
                (double)r->rt_us / 1000.0);
        t->report_lines++;
    }
    if (t->trx && !(r->flags & PR_TRX_ROLLED_BACK)) {
        uint64_t start, end;
        stamps(t, r, &start, &end);
        fprintf(t->trx,
                "t_num: %" PRIu32 " finish: %" PRIu64 " %" PRIu64 " start: %" PRIu64 " %" PRIu64
                "\n",
                r->conn, end / 1000000000u, end % 1000000000u, start / 1000000000u,
                start % 1000000000u);
        t->trx_lines++;
    }
}

/* Sort the held records, write the first n, keep the rest. */
/* Write held's first n records; held is sorted (by_end). */
static void write_first(co_tc_trx *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        write_one(t, &t->held[i].r);
    memmove(t->held, t->held + n, (size_t)(t->n_held - n) * sizeof *t->held);
    t->n_held -= n;
    if (t->n_held > 0)
        t->min_end_us = t->held[0].r.end_us;
}

void co_tc_trx_flush(co_tc_trx *t, uint64_t upto_us)
{
    if (t == NULL || t->n_held == 0 || upto_us <= t->min_end_us)
        return; /* most STATS: the watermark waits for a slower agent */
    qsort(t->held, t->n_held, sizeof *t->held, by_end);
    uint32_t n = 0;
    while (n < t->n_held && t->held[n].r.end_us < upto_us)
        n++;
    write_first(t, n);
}

void co_tc_trx_stats(co_tc_trx *t, const struct pr_msg_stats *s, int kind)
{
    if (t == NULL || s->n_trx == 0 || kind < 0)
        return;
    uint32_t want = 0;
    for (uint32_t i = 0; i < s->n_trx; i++)
        want += s->trx[i].kind == (uint16_t)kind;
    if (t->n_held + want > CO_TC_TRX_MAX_HELD) { /* bounded: the oldest go out early */
        if (!t->warned_early)
            fprintf(stderr,
                    "stampede: more than %u New-Order records wait for a slow agent: "
                    "the oldest are written now, the -f/-t files may be out of "
                    "order from here\n",
                    CO_TC_TRX_MAX_HELD);
        t->warned_early = true;
        qsort(t->held, t->n_held, sizeof *t->held, by_end);
        uint32_t keep = CO_TC_TRX_MAX_HELD - want;
        write_first(t, t->n_held > keep ? t->n_held - keep : 0);
    }
    if (t->n_held + want > t->held_cap) {
        t->held_cap = 2 * (t->n_held + want);
        if (t->held_cap > CO_TC_TRX_MAX_HELD)
            t->held_cap = CO_TC_TRX_MAX_HELD;
        t->held = pr_xrealloc(t->held, (size_t)t->held_cap * sizeof *t->held);
    }
    for (uint32_t i = 0; i < s->n_trx; i++)
        if (s->trx[i].kind == (uint16_t)kind) {
            if (t->n_held == 0 || s->trx[i].end_us < t->min_end_us)
                t->min_end_us = s->trx[i].end_us;
            t->held[t->n_held++] = (struct held){s->trx[i], t->seq++};
        }
}

uint32_t co_tc_trx_held(const co_tc_trx *t)
{
    return t ? t->n_held : 0;
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
    co_tc_trx_flush(t, UINT64_MAX);
    int rc = close_one(&t->report, "report-file", t->cfg.report_path);
    int rc2 = close_one(&t->trx, "trx-file", t->cfg.trx_path);
    free(t->held);
    free(t);
    *tp = NULL;
    return rc ? rc : rc2;
}
