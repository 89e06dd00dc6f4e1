/* ag_sb_workload: sysbench 1.0.20's OLTP workloads as statement generators.
 * See ag_sb_workload.h; the Lua originals are in /usr/share/sysbench. */
#include "ag_sb_workload.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_rand.h"
#include "ag_sb_share.h"
#include "pr_sb_schema.h"

/* Statement kinds: one per sysbench stmt_defs key, plus the script-local
 * ones. Order matches kind_info[]. */
enum kind {
    K_BEGIN,
    K_COMMIT,
    K_POINT,
    K_SIMPLE,
    K_SUM,
    K_ORDER,
    K_DISTINCT,
    K_INDEX,
    K_NONINDEX,
    K_DELETE,
    K_INSERT,
    K_RPOINTS, /* select_random_points */
    K_RRANGES, /* select_random_ranges */
    K_TEXTINS, /* oltp_insert's text INSERT */
    K_BULK,    /* bulk_insert's buffer */
    K_DELINS,  /* event group: DELETE then INSERT (uses K_DELETE, K_INSERT) */
    K_COUNT_
};

static const struct {
    const char *name;  /* kind name for reports */
    const char *sql;   /* printf template with %u = table number, NULL if built */
    const char *types; /* 'i' INT, 's' STR per parameter */
} kind_info[K_COUNT_] = {
    [K_BEGIN] = {"begin", "BEGIN", ""},
    [K_COMMIT] = {"commit", "COMMIT", ""},
    [K_POINT] = {"point_selects", "SELECT c FROM sbtest%u WHERE id=?", "i"},
    [K_SIMPLE] = {"simple_ranges", "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", "ii"},
    [K_SUM] = {"sum_ranges", "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", "ii"},
    [K_ORDER] = {"order_ranges", "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
                 "ii"},
    [K_DISTINCT] = {"distinct_ranges",
                    "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", "ii"},
    [K_INDEX] = {"index_updates", "UPDATE sbtest%u SET k=k+1 WHERE id=?", "i"},
    [K_NONINDEX] = {"non_index_updates", "UPDATE sbtest%u SET c=? WHERE id=?", "si"},
    [K_DELETE] = {"deletes", "DELETE FROM sbtest%u WHERE id=?", "i"},
    [K_INSERT] = {"inserts", "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)", "iiss"},
    [K_RPOINTS] = {"random_points", NULL, NULL},
    [K_RRANGES] = {"random_ranges", NULL, NULL},
    [K_TEXTINS] = {"inserts", NULL, NULL},
    [K_BULK] = {"bulk_insert", NULL, NULL},
    [K_DELINS] = {"delete_inserts", NULL, NULL},
};

/* The shared schema's kind (pr_sb_schema.h) of each statement kind. */
static const uint16_t sb_kind[K_COUNT_] = {
    [K_BEGIN] = PR_SB_K_BEGIN,       [K_COMMIT] = PR_SB_K_COMMIT,  [K_POINT] = PR_SB_K_POINT,
    [K_SIMPLE] = PR_SB_K_SIMPLE,     [K_SUM] = PR_SB_K_SUM,        [K_ORDER] = PR_SB_K_ORDER,
    [K_DISTINCT] = PR_SB_K_DISTINCT, [K_INDEX] = PR_SB_K_INDEX,    [K_NONINDEX] = PR_SB_K_NONINDEX,
    [K_DELETE] = PR_SB_K_DELETE,     [K_INSERT] = PR_SB_K_INSERT,  [K_RPOINTS] = PR_SB_K_RPOINTS,
    [K_RRANGES] = PR_SB_K_RRANGES,   [K_TEXTINS] = PR_SB_K_INSERT, [K_BULK] = PR_SB_K_BULK,
    [K_DELINS] = PR_SB_K_DELETE,
};

/* rand.string templates: 10 and 5 groups of 11 digits (119 and 59 chars). */
static const char c_tmpl[] = "###########-###########-###########-###########-###########-"
                             "###########-###########-###########-###########-###########";
static const char pad_tmpl[] = "###########-###########-###########-###########-###########";
#define C_LEN      (sizeof c_tmpl - 1)
#define PAD_LEN    (sizeof pad_tmpl - 1)
#define BULK_BYTES 524288 /* sysbench's bulk insert buffer, NUL included */
#define MAX_GROUPS 16

/* One statement group of an event: `count` statements of `kind` on one
 * table drawn at the start of the group (BEGIN/COMMIT draw none). */
struct group {
    enum kind kind;
    uint32_t count;
};

struct ag_sb_workload {
    struct ag_wl wlb;                /* the family interface (first member) */
    int id;                          /* pr_workload */
    pr_opts *opts;                   /* parsed options, owned */
    struct ag_dist dist;             /* --rand-type and parameters */
    bool ps;                         /* --db-ps-mode=auto */
    uint32_t tables;                 /* --tables */
    uint32_t table_size;             /* --table_size */
    uint32_t range_size;             /* --range_size */
    bool auto_inc;                   /* --auto_inc */
    uint32_t random_points;          /* select_random_points */
    uint32_t nranges;                /* select_random_ranges --number_of_ranges */
    uint32_t delta;                  /* select_random_ranges --delta */
    uint64_t rand_seed;              /* --rand-seed (seeds rand.unique) */
    struct ag_sb_share share;        /* --partition: this agent's tables or ids */
    struct group groups[MAX_GROUPS]; /* the event program */
    size_t ngroups;
    int32_t base[K_COUNT_];    /* PS index of a kind's table-1 statement, or -1 */
    struct ag_stmt_def *stmts; /* the PS set, in prepare order */
    size_t nstmts;
    size_t text_cap; /* bytes a rendered statement can need */
};

/* What every event touches (genb through flush_sent) is the first cache
 * line: ag_sb_cursor_new allocates it 64-byte aligned. */
struct ag_sb_cursor {
    struct ag_gen genb;           /* the family interface (first member) */
    const ag_sb_workload *wl;     /* borrowed */
    struct ag_rand rng;           /* this connection's stream */
    size_t gi;                    /* current group */
    uint32_t ii;                  /* statements done in the current group */
    uint32_t tnum;                /* table of the current group */
    bool in_group;                /* tnum drawn for groups[gi] */
    bool ins_pending;             /* delete_inserts: the INSERT half is next */
    bool flush_sent;              /* bulk_insert: the pending flush was emitted this event */
    struct ag_rand_unique uniq;   /* oltp_insert ids with auto_inc off */
    uint32_t conn_index;          /* global connection index (sysbench tid) */
    double rmin, rmax;            /* select_random_* k segment */
    int64_t id, k;                /* delete_inserts parameters */
    char c[C_LEN];                /* c string of the current statement */
    char pad[PAD_LEN];            /* pad string of the current statement */
    char *text;                   /* rendered text statement */
    size_t text_cap;              /* its capacity */
    char *bulk;                   /* bulk_insert buffer (BULK_BYTES) */
    size_t bulk_len, bulk_prefix; /* used bytes, prefix length */
    uint64_t bulk_rows, bulk_n;   /* rows in buffer, last n appended */
    char row[48];                 /* row being appended */
    size_t row_len;
    bool row_ready;     /* row formatted, not yet appended */
    bool flush_pending; /* a flush was emitted: reset before appending */
    bool finished;      /* ag_sb_cursor_finish emitted the last flush */
};

/* ---- workload construction ------------------------------------------- */

static void add_group(ag_sb_workload *wl, enum kind k, uint32_t count)
{
    assert(wl->ngroups < MAX_GROUPS);
    wl->groups[wl->ngroups].kind = k;
    wl->groups[wl->ngroups].count = count;
    wl->ngroups++;
}

static uint32_t opt_u32(const ag_sb_workload *wl, const char *name)
{
    int64_t v = pr_opts_int(wl->opts, name);
    return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void add_ranges(ag_sb_workload *wl)
{
    add_group(wl, K_SIMPLE, opt_u32(wl, "simple_ranges"));
    add_group(wl, K_SUM, opt_u32(wl, "sum_ranges"));
    add_group(wl, K_ORDER, opt_u32(wl, "order_ranges"));
    add_group(wl, K_DISTINCT, opt_u32(wl, "distinct_ranges"));
}

static void add_writes(ag_sb_workload *wl)
{
    add_group(wl, K_INDEX, opt_u32(wl, "index_updates"));
    add_group(wl, K_NONINDEX, opt_u32(wl, "non_index_updates"));
    add_group(wl, K_DELINS, opt_u32(wl, "delete_inserts"));
}

/* The event() of each script, as statement groups. */
static void build_program(ag_sb_workload *wl)
{
    bool trx = !pr_opts_bool(wl->opts, "skip_trx");
    bool rs = pr_opts_bool(wl->opts, "range_selects");

    switch (wl->id) {
    case PR_WL_OLTP_READ_WRITE:
    case PR_WL_OLTP_READ_ONLY:
    case PR_WL_OLTP_WRITE_ONLY:
        if (trx)
            add_group(wl, K_BEGIN, 1);
        if (wl->id != PR_WL_OLTP_WRITE_ONLY) {
            add_group(wl, K_POINT, opt_u32(wl, "point_selects"));
            if (rs)
                add_ranges(wl);
        }
        if (wl->id != PR_WL_OLTP_READ_ONLY)
            add_writes(wl);
        if (trx)
            add_group(wl, K_COMMIT, 1);
        break;
    case PR_WL_OLTP_POINT_SELECT: /* forces point_selects=1 */
        add_group(wl, K_POINT, 1);
        break;
    case PR_WL_OLTP_UPDATE_INDEX:
        add_group(wl, K_INDEX, opt_u32(wl, "index_updates"));
        break;
    case PR_WL_OLTP_UPDATE_NON_INDEX:
        add_group(wl, K_NONINDEX, opt_u32(wl, "non_index_updates"));
        break;
    case PR_WL_OLTP_DELETE:
        add_group(wl, K_DELETE, 1);
        break;
    case PR_WL_OLTP_INSERT:
        add_group(wl, K_TEXTINS, 1);
        break;
    case PR_WL_SELECT_RANDOM_POINTS:
        add_group(wl, K_RPOINTS, 1);
        break;
    case PR_WL_SELECT_RANDOM_RANGES:
        add_group(wl, K_RRANGES, 1);
        break;
    case PR_WL_BULK_INSERT:
        add_group(wl, K_BULK, 1);
        break;
    }
}

/* The text of select_random_points / select_random_ranges (Lua long
 * strings, whitespace included). Caller frees. */
static char *random_sql(enum kind k, uint32_t n)
{
    const char *head = k == K_RPOINTS ? "        SELECT id, k, c, pad\n"
                                        "          FROM sbtest1\n"
                                        "          WHERE k IN ("
                                      : "        SELECT count(k)\n"
                                        "          FROM sbtest1\n"
                                        "          WHERE ";
    const char *item = k == K_RPOINTS ? "?" : "k BETWEEN ? AND ?";
    const char *sep = k == K_RPOINTS ? ", " : " OR ";
    const char *tail = k == K_RPOINTS ? ")\n        " : "";
    size_t cap = strlen(head) + n * (strlen(item) + strlen(sep)) + strlen(tail) + 1;
    char *s = pr_xmalloc(cap);
    size_t len = 0;

    len += (size_t)snprintf(s + len, cap - len, "%s", head);
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%s", i ? sep : "", item);
    snprintf(s + len, cap - len, "%s", tail);
    return s;
}

/* tmpl with its "%u" replaced by table number t (the catalogue's
 * templates are data, so no printf with a variable format). */
static void table_sql(char *buf, size_t cap, const char *tmpl, uint32_t t)
{
    const char *mark = strstr(tmpl, "%u");

    assert(mark != NULL || t == 1);
    if (mark == NULL) {
        snprintf(buf, cap, "%s", tmpl);
        return;
    }
    snprintf(buf, cap, "%.*s%u%s", (int)(mark - tmpl), tmpl, t, mark + 2);
}

/* Append the PS definitions of kind k: one per table, or one for BEGIN,
 * COMMIT and the select_random_* statements. */
static void add_stmts(ag_sb_workload *wl, enum kind k)
{
    bool single = k == K_BEGIN || k == K_COMMIT || k == K_RPOINTS || k == K_RRANGES;
    uint32_t n = single ? 1 : wl->tables;

    wl->base[k] = (int32_t)wl->nstmts;
    wl->stmts = pr_xrealloc(wl->stmts, (wl->nstmts + n) * sizeof *wl->stmts);
    for (uint32_t t = 1; t <= n; t++) {
        struct ag_stmt_def *d = &wl->stmts[wl->nstmts++];
        char buf[128];

        memset(d, 0, sizeof *d);
        d->kind = kind_info[k].name;
        d->kind_id = sb_kind[k];
        if (k == K_RPOINTS || k == K_RRANGES) {
            uint32_t np = k == K_RPOINTS ? wl->random_points : 2 * wl->nranges;
            d->sql = random_sql(k, k == K_RPOINTS ? np : wl->nranges);
            d->nparams = np; /* all INT (type[] zeroed) */
        } else {
            table_sql(buf, sizeof buf, kind_info[k].sql, t);
            d->sql = pr_xstrdup(buf);
            d->nparams = (uint32_t)strlen(kind_info[k].types);
            for (uint32_t p = 0; p < d->nparams; p++)
                d->type[p] = kind_info[k].types[p] == 's' ? AG_PARAM_STR : AG_PARAM_INT;
        }
        d->sql_len = strlen(d->sql);
        size_t need = d->sql_len + d->nparams * (C_LEN + 3) + 1;
        if (need > wl->text_cap)
            wl->text_cap = need;
    }
}

/* The prepare_statements() of each script, in its order. */
static void build_stmts(ag_sb_workload *wl)
{
    bool trx = !pr_opts_bool(wl->opts, "skip_trx");
    bool rs = pr_opts_bool(wl->opts, "range_selects");
    static const enum kind ranges[] = {K_SIMPLE, K_SUM, K_ORDER, K_DISTINCT};
    static const enum kind writes[] = {K_INDEX, K_NONINDEX, K_DELETE, K_INSERT};

    switch (wl->id) {
    case PR_WL_OLTP_READ_WRITE:
    case PR_WL_OLTP_WRITE_ONLY:
        if (trx) {
            add_stmts(wl, K_BEGIN);
            add_stmts(wl, K_COMMIT);
        }
        if (wl->id == PR_WL_OLTP_READ_WRITE) {
            add_stmts(wl, K_POINT);
            for (size_t i = 0; rs && i < 4; i++)
                add_stmts(wl, ranges[i]);
        }
        for (size_t i = 0; i < 4; i++)
            add_stmts(wl, writes[i]);
        break;
    case PR_WL_OLTP_READ_ONLY:
        add_stmts(wl, K_POINT);
        if (trx) {
            add_stmts(wl, K_BEGIN);
            add_stmts(wl, K_COMMIT);
        }
        for (size_t i = 0; rs && i < 4; i++)
            add_stmts(wl, ranges[i]);
        break;
    case PR_WL_OLTP_POINT_SELECT:
        add_stmts(wl, K_POINT);
        break;
    case PR_WL_OLTP_UPDATE_INDEX:
        add_stmts(wl, K_INDEX);
        break;
    case PR_WL_OLTP_UPDATE_NON_INDEX:
        add_stmts(wl, K_NONINDEX);
        break;
    case PR_WL_OLTP_DELETE:
        add_stmts(wl, K_DELETE);
        break;
    case PR_WL_SELECT_RANDOM_POINTS:
        add_stmts(wl, K_RPOINTS);
        break;
    case PR_WL_SELECT_RANDOM_RANGES:
        add_stmts(wl, K_RRANGES);
        break;
    default: /* oltp_insert, bulk_insert: text only */
        break;
    }
}

/* Read the numeric settings and the distribution from wl->opts. */
static int read_settings(ag_sb_workload *wl, struct pr_error *err)
{
    const pr_opts *o = wl->opts;
    int64_t tables = pr_opts_int(o, "tables");

    if (wl->id != PR_WL_BULK_INSERT && tables < 1)
        return pr_error_set(err, PR_EINVAL, "--tables: %lld, must be at least 1",
                            (long long)tables);
    wl->tables = opt_u32(wl, "tables");
    wl->table_size = opt_u32(wl, "table_size");
    wl->range_size = opt_u32(wl, "range_size");
    wl->auto_inc = pr_opts_bool(o, "auto_inc");
    wl->random_points = opt_u32(wl, "random_points");
    wl->nranges = opt_u32(wl, "number_of_ranges");
    wl->delta = opt_u32(wl, "delta");
    wl->rand_seed = (uint64_t)pr_opts_int(o, "rand-seed");
    wl->ps = strcmp(pr_opts_str(o, "db-ps-mode"), "auto") == 0;
    wl->share = (struct ag_sb_share){
        .part = PR_PART_NONE, .tables = wl->tables, .table_size = wl->table_size};
    return ag_dist_init(&wl->dist, pr_opts_str(o, "rand-type"), pr_opts_int(o, "rand-spec-iter"),
                        pr_opts_int(o, "rand-spec-pct"), pr_opts_int(o, "rand-spec-res"),
                        pr_opts_double(o, "rand-pareto-h"), pr_opts_double(o, "rand-zipfian-exp"),
                        err);
}

ag_sb_workload *ag_sb_workload_new(const struct ag_family *fam, const char *name,
                                   const struct ag_kv *opts, size_t nopts, struct pr_error *err)
{
    int id = pr_workload_from_name(name);

    if (id < 0) {
        pr_error_set(err, PR_EINVAL, "unknown workload '%s'", name);
        return NULL;
    }
    ag_sb_workload *wl = pr_xcalloc(1, sizeof *wl);
    wl->wlb.fam = fam;
    wl->id = id;
    wl->opts = pr_opts_new(id);
    wl->text_cap = 512; /* oltp_insert's text INSERT fits */
    for (size_t i = 0; i < K_COUNT_; i++)
        wl->base[i] = -1;
    for (size_t i = 0; i < nopts; i++)
        if (pr_opts_set(wl->opts, opts[i].name, opts[i].value, err) < 0)
            goto fail;
    if (read_settings(wl, err) < 0)
        goto fail;
    build_program(wl);
    build_stmts(wl);
    return wl;
fail:
    ag_sb_workload_destroy(&wl);
    return NULL;
}

void ag_sb_workload_destroy(ag_sb_workload **wl)
{
    if (!*wl)
        return;
    for (size_t i = 0; i < (*wl)->nstmts; i++)
        free((char *)(*wl)->stmts[i].sql);
    free((*wl)->stmts);
    ag_sb_share_close(&(*wl)->share);
    pr_opts_destroy(&(*wl)->opts);
    free(*wl);
    *wl = NULL;
}

bool ag_sb_workload_uses_ps(const ag_sb_workload *wl)
{
    return wl->ps && wl->nstmts > 0;
}

size_t ag_sb_workload_nstmts(const ag_sb_workload *wl)
{
    return wl->nstmts;
}

const struct ag_stmt_def *ag_sb_workload_stmt(const ag_sb_workload *wl, size_t i)
{
    assert(i < wl->nstmts);
    return &wl->stmts[i];
}

const char *ag_sb_workload_name(const ag_sb_workload *wl)
{
    return pr_workload_name(wl->id);
}

const pr_opts *ag_sb_workload_opts(const ag_sb_workload *wl)
{
    return wl->opts;
}

int ag_sb_workload_set_share(ag_sb_workload *wl, enum pr_partition part,
                             const struct pr_msg_table *t, size_t n, struct pr_error *err)
{
    struct ag_sb_share s;
    const char *why = pr_sb_partition_unfit(wl->id, part);

    if (why)
        return pr_error_set(err, PR_EINVAL,
                            "--partition=%s does not apply to %s: %s; use --partition=none",
                            pr_partition_name(part), pr_workload_name(wl->id), why);
    int rc = ag_sb_share_init(&s, part, t, n, wl->tables, wl->table_size, err);
    if (rc < 0)
        return rc;
    ag_sb_share_close(&wl->share);
    wl->share = s;
    return 0;
}

void ag_sb_workload_set_run_seed(ag_sb_workload *wl, uint64_t seed)
{
    wl->rand_seed = seed;
}

/* ---- cursor ------------------------------------------------------------- */

ag_sb_cursor *ag_sb_cursor_new(const ag_sb_workload *wl, uint64_t seed, uint32_t conn_index,
                               uint32_t conns_total)
{
    ag_sb_cursor *c = pr_xcalloc_aligned(1, sizeof *c, 64); /* the hot head is one line */
    uint64_t x = wl->rand_seed;
    uint64_t u = ag_splitmix64(&x);

    if (conns_total == 0)
        conns_total = 1;
    c->genb.fam = wl->wlb.fam;
    c->wl = wl;
    c->conn_index = conn_index;
    ag_rand_init(&c->rng, seed);
    /* One permutation per run, a disjoint slice of its inputs per connection. */
    ag_rand_unique_init(&c->uniq, (uint32_t)u, (uint32_t)(u >> 32));
    c->uniq.index += (uint32_t)(((uint64_t)conn_index << 32) / conns_total);
    /* select_random_*: rlen = table_size / threads; tid = thread id % threads */
    double rlen = (double)wl->table_size / conns_total;
    c->rmin = rlen * (conn_index % conns_total);
    c->rmax = c->rmin + rlen;
    c->text_cap = wl->text_cap;
    c->text = pr_xmalloc(c->text_cap);
    if (wl->id == PR_WL_BULK_INSERT) {
        c->bulk = pr_xmalloc(BULK_BYTES);
        c->bulk_len =
            (size_t)snprintf(c->bulk, BULK_BYTES, "INSERT INTO sbtest%u VALUES", conn_index + 1);
        c->bulk_prefix = c->bulk_len;
    }
    c->gi = wl->ngroups; /* no event until ag_sb_cursor_begin */
    return c;
}

void ag_sb_cursor_set_rng(ag_sb_cursor *c, uint64_t s0, uint64_t s1)
{
    ag_rand_set_state(&c->rng, s0, s1);
}

void ag_sb_cursor_destroy(ag_sb_cursor **c)
{
    if (!*c)
        return;
    free((*c)->text);
    free((*c)->bulk);
    free(*c);
    *c = NULL;
}

void ag_sb_cursor_begin(ag_sb_cursor *c)
{
    c->gi = 0;
    c->ii = 0;
    c->in_group = false;
    c->ins_pending = false;
    c->flush_sent = false;
}

/* An id of the current table: sysbench.rand.default(1, table_size), or
 * the same over the agent's slice of it (--partition=rows). */
static int64_t draw_id(ag_sb_cursor *c)
{
    return ag_sb_share_id(&c->wl->share, &c->wl->dist, &c->rng, c->tnum);
}

/* A k value: sysbench.rand.default(1, table_size), whatever the partition
 * (k is data, not a row the statement touches). */
static int64_t draw_k(ag_sb_cursor *c)
{
    return ag_dist_draw(&c->wl->dist, &c->rng, 1, c->wl->table_size);
}

/* sb_rand(rmin, rmax) with the doubles truncated to uint32 by the FFI. */
static int64_t draw_segment(ag_sb_cursor *c)
{
    return ag_dist_draw(&c->wl->dist, &c->rng, (uint32_t)(int64_t)c->rmin,
                        (uint32_t)(int64_t)c->rmax);
}

static void text_call(struct ag_call *call, const char *text, size_t len, const char *kind,
                      uint16_t kind_id)
{
    call->stmt = -1;
    call->text = text;
    call->text_len = len;
    call->nparams = 0;
    call->kind = kind;
    call->kind_id = kind_id;
}

/* Append n bytes of s at buf[*len] while they fit (keeping room for the
 * NUL); *len counts them either way. */
static void render(ag_sb_cursor *c, const struct ag_stmt_def *d, struct ag_call *call)
{
    size_t len = ag_stmt_render(d, call, c->text, c->text_cap);

    assert(len < c->text_cap);
    text_call(call, c->text, len, d->kind, d->kind_id);
}

/* Point the call at PS statement idx (params already in call); render it as
 * text when prepared statements are disabled. */
static void finish_call(ag_sb_cursor *c, int32_t idx, struct ag_call *call)
{
    const struct ag_stmt_def *d = &c->wl->stmts[idx];

    call->stmt = idx;
    call->nparams = d->nparams;
    call->kind = d->kind;
    call->kind_id = d->kind_id;
    call->text = NULL;
    call->text_len = 0;
    if (!c->wl->ps)
        render(c, d, call);
}

static void set_str(struct ag_call *call, uint32_t p, const char *s, size_t len)
{
    call->sval[p] = s;
    call->slen[p] = (uint32_t)len;
}

/* oltp_insert: table (drawn by the group), k, c, pad; id 0 with auto_inc,
 * else rand.unique() shifted into the signed int32 range. */
static void textins_call(ag_sb_cursor *c, struct ag_call *call)
{
    int64_t k = draw_k(c);
    int64_t id = 0;

    ag_rand_string(&c->rng, c_tmpl, C_LEN, c->c);
    ag_rand_string(&c->rng, pad_tmpl, PAD_LEN, c->pad);
    if (!c->wl->auto_inc)
        id = (int64_t)ag_rand_unique_next(&c->uniq) - INT64_C(2147483648);
    int n = snprintf(c->text, c->text_cap,
                     "INSERT INTO sbtest%u (id, k, c, pad) VALUES (%lld, %lld, '%.*s', '%.*s')",
                     c->tnum, (long long)id, (long long)k, (int)C_LEN, c->c, (int)PAD_LEN, c->pad);
    text_call(call, c->text, (size_t)n, kind_info[K_TEXTINS].name, sb_kind[K_TEXTINS]);
}

/* select_random_points / select_random_ranges: all draws from the segment. */
static void random_call(ag_sb_cursor *c, enum kind k, struct ag_call *call)
{
    if (k == K_RPOINTS) {
        for (uint32_t i = 0; i < c->wl->random_points; i++)
            call->ival[i] = draw_segment(c);
    } else {
        for (uint32_t i = 0; i < c->wl->nranges; i++) {
            int64_t v = draw_segment(c);
            call->ival[2 * i] = v;
            call->ival[2 * i + 1] = v + c->wl->delta;
        }
    }
    finish_call(c, c->wl->base[k], call);
}

/* delete_inserts, first half: draw id, k, c, pad; emit the DELETE and keep
 * the rest for the INSERT. */
static void delete_call(ag_sb_cursor *c, struct ag_call *call)
{
    c->id = draw_id(c);
    c->k = draw_k(c);
    ag_rand_string(&c->rng, c_tmpl, C_LEN, c->c);
    ag_rand_string(&c->rng, pad_tmpl, PAD_LEN, c->pad);
    call->ival[0] = c->id;
    finish_call(c, c->wl->base[K_DELETE] + (int32_t)c->tnum - 1, call);
}

static void insert_call(ag_sb_cursor *c, struct ag_call *call)
{
    call->ival[0] = c->id;
    call->ival[1] = c->k;
    set_str(call, 2, c->c, C_LEN);
    set_str(call, 3, c->pad, PAD_LEN);
    finish_call(c, c->wl->base[K_INSERT] + (int32_t)c->tnum - 1, call);
}

/* One statement of a table group: draws in sysbench's order. */
static void table_call(ag_sb_cursor *c, enum kind k, struct ag_call *call)
{
    int32_t idx = c->wl->base[k] + (int32_t)c->tnum - 1;

    switch (k) {
    case K_NONINDEX:
        ag_rand_string(&c->rng, c_tmpl, C_LEN, c->c); /* c first, then id */
        set_str(call, 0, c->c, C_LEN);
        call->ival[1] = draw_id(c);
        break;
    case K_SIMPLE:
    case K_SUM:
    case K_ORDER:
    case K_DISTINCT:
        ag_sb_share_range(&c->wl->share, &c->wl->dist, &c->rng, c->tnum, c->wl->range_size,
                          &call->ival[0], &call->ival[1]);
        break;
    default: /* point select, index update, delete: one id */
        call->ival[0] = draw_id(c);
        break;
    }
    finish_call(c, idx, call);
}

/* bulk_insert's event: append "(n,n)"; when the row does not fit the
 * 512 KiB buffer, first emit the buffer (returns true), and append on the
 * next call. Returns false when the row is appended. */
static bool bulk_step(ag_sb_cursor *c, struct ag_call *call)
{
    if (!c->row_ready) {
        c->bulk_n++;
        c->row_len = (size_t)snprintf(c->row, sizeof c->row, "(%llu,%llu)",
                                      (unsigned long long)c->bulk_n, (unsigned long long)c->bulk_n);
        c->row_ready = true;
    }
    if (!c->flush_sent && c->bulk_rows > 0 && c->bulk_len + c->row_len + 2 > BULK_BYTES) {
        text_call(call, c->bulk, c->bulk_len, kind_info[K_BULK].name, sb_kind[K_BULK]);
        c->flush_sent = true;
        c->flush_pending = true;
        return true;
    }
    if (c->flush_pending) {
        c->bulk_len = c->bulk_prefix;
        c->bulk_rows = 0;
        c->flush_pending = false;
    }
    if (c->bulk_rows > 0)
        c->bulk[c->bulk_len++] = ',';
    memcpy(c->bulk + c->bulk_len, c->row, c->row_len);
    c->bulk_len += c->row_len;
    c->bulk_rows++;
    c->row_ready = false;
    return false;
}

static bool kind_has_table(enum kind k)
{
    return k >= K_POINT && k <= K_INSERT ? true : k == K_DELINS || k == K_TEXTINS;
}

/* Emit statement ii of group g. Returns false when the group emitted
 * nothing (bulk_insert row appended). */
static bool group_call(ag_sb_cursor *c, const struct group *g, struct ag_call *call)
{
    switch (g->kind) {
    case K_BEGIN:
    case K_COMMIT:
        finish_call(c, c->wl->base[g->kind], call);
        break;
    case K_RPOINTS:
    case K_RRANGES:
        random_call(c, g->kind, call);
        break;
    case K_TEXTINS:
        textins_call(c, call);
        break;
    case K_DELINS:
        delete_call(c, call);
        c->ins_pending = true;
        return true; /* ii advances after the INSERT */
    case K_BULK:
        if (bulk_step(c, call))
            return true;
        c->ii++;
        return false;
    default:
        table_call(c, g->kind, call);
        break;
    }
    c->ii++;
    return true;
}

bool ag_sb_cursor_next(ag_sb_cursor *c, struct ag_call *call)
{
    const ag_sb_workload *wl = c->wl;

    while (c->gi < wl->ngroups) {
        const struct group *g = &wl->groups[c->gi];

        if (!c->in_group) {
            /* execute_*() draws its table even when its count is 0 */
            c->in_group = true;
            c->ii = 0;
            if (kind_has_table(g->kind))
                c->tnum = ag_sb_share_table(&wl->share, &c->rng);
        }
        if (c->ins_pending) {
            c->ins_pending = false;
            c->ii++;
            insert_call(c, call);
            return true;
        }
        if (c->ii < g->count && group_call(c, g, call))
            return true;
        if (c->ii >= g->count) {
            c->gi++;
            c->in_group = false;
        }
    }
    return false;
}

bool ag_sb_cursor_finish(ag_sb_cursor *c, struct ag_call *call)
{
    if (c->bulk == NULL || c->finished || c->flush_pending || c->bulk_rows == 0)
        return false;
    c->finished = true;
    text_call(call, c->bulk, c->bulk_len, kind_info[K_BULK].name, sb_kind[K_BULK]);
    c->bulk_rows = 0;
    return true;
}

const struct ag_wl *ag_sb_workload_wl(const ag_sb_workload *wl)
{
    return &wl->wlb;
}
