/* test_family: the generator interface (ag_family.h) through the real
 * engine against a real MariaDB (STAMPEDE_TEST_MYSQL_*; exit 77 without).
 *
 * Usage: test_family [case]. Cases:
 *   results  a test family whose every statement is built from the previous
 *            statement's result (PS and text protocol): first-row text and
 *            numeric values, NULL, row counts, affected rows, insert ids;
 *            outcomes (committed / rolled back on purpose / failed) and a
 *            retry policy that keeps its inputs after an ignorable error
 *   check    the sysbench family's check stream: passes on a freshly
 *            prepared table, fails naming the table once a row is gone
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <uv.h>

#include "ag_engine.h"
#include "ag_sb_check.h"
#include "ag_sb_family.h"
#include "ag_sb_load.h"
#include "ag_sb_workload.h"
#include "tdb.h"
#include "testlib.h"

static struct tdb_env env;
static MYSQL *db;

static void cfg_init(struct ag_engine_config *cfg, const struct ag_wl *wl, uint32_t conns)
{
    tdb_engine_config(&env, cfg, conns);
    cfg->wl = wl;
    cfg->workers = 2;
    cfg->seed = 7;
    cfg->ignore_errors = "1062"; /* the duplicate key the family provokes */
}

/* ---- a family that reads every result --------------------------------- */

/* One event, 6 statements, each using the previous result:
 *   0 PS   SELECT ?+1, CONCAT('v', ?), NULL          (n)      -> n+1, "v<n>"
 *   1 text SELECT <n+1>*2, 'x'                                 -> 2(n+1)
 *   2 text INSERT INTO fam_t (v) VALUES (<2(n+1)>)            -> insert id
 *   3 PS   SELECT v FROM fam_t WHERE id=?  (insert id)         -> 2(n+1)
 *   4 text UPDATE fam_t SET v=v WHERE id <= <id> AND id > 0 -> affected 0
 *   5 text INSERT INTO fam_u (k) VALUES (<k>) once per event key: every
 *          third event first inserts a duplicate key (1062, ignorable):
 *          the retry keeps the inputs (same n) and skips the duplicate.
 * The event ends rolled back on purpose when n % 5 == 0, else committed;
 * a generator gives up (failed) after its 40th event. */
struct tf_wl {
    struct ag_wl base;
    struct ag_stmt_def stmts[2];
    pr_opts *opts;
};

struct tf_gen {
    struct ag_gen base;
    uint32_t conn;
    int64_t n;       /* the event's input */
    int step;        /* next statement */
    int64_t id;      /* insert id of statement 2 */
    uint64_t events; /* events begun */
    bool dup_done;   /* the duplicate of this event was tried */
    char text[160];  /* text statements */
};

static atomic_uint_fast64_t tf_bad, tf_results, tf_retries, tf_rolled, tf_failed, tf_done;

#define TF_EXPECT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (atomic_fetch_add(&tf_bad, 1) < 5)                                                  \
                fprintf(stderr, "family check failed: %s (step %d)\n", #cond, g->step);            \
        }                                                                                          \
    } while (0)

static const struct ag_family tf_family;

static bool tf_has(const char *name)
{
    return strcmp(name, "test_family") == 0;
}

static struct ag_wl *tf_wl_new(const char *name, const struct ag_kv *o, size_t n,
                               struct pr_error *err)
{
    (void)name, (void)o, (void)n, (void)err;
    struct tf_wl *w = calloc(1, sizeof *w);
    w->base.fam = &tf_family;
    w->stmts[0] = (struct ag_stmt_def){
        .sql = "SELECT ?+1, CONCAT('v', ?), NULL", .nparams = 2, .kind = "calc"};
    w->stmts[0].sql_len = strlen(w->stmts[0].sql);
    w->stmts[1] = (struct ag_stmt_def){
        .sql = "SELECT v FROM fam_t WHERE id=?", .nparams = 1, .kind = "lookup"};
    w->stmts[1].sql_len = strlen(w->stmts[1].sql);
    w->opts = pr_opts_new(-1);
    return &w->base;
}

static void tf_wl_destroy(struct ag_wl **wl)
{
    struct tf_wl *w = (struct tf_wl *)*wl;
    pr_opts_destroy(&w->opts);
    free(w);
    *wl = NULL;
}

static size_t tf_kinds(const struct ag_wl *wl, const char *const **names)
{
    static const char *const k[] = {"calc", "text"};
    (void)wl;
    *names = k;
    return 2;
}

static size_t tf_nstmts(const struct ag_wl *wl)
{
    (void)wl;
    return 2;
}

static const struct ag_stmt_def *tf_stmt(const struct ag_wl *wl, size_t i)
{
    return &((const struct tf_wl *)wl)->stmts[i];
}

static struct ag_gen *tf_gen_new(const struct ag_wl *wl, uint64_t seed, uint32_t conn,
                                 uint32_t total)
{
    (void)wl, (void)seed, (void)total;
    struct tf_gen *g = calloc(1, sizeof *g);
    g->base.fam = &tf_family;
    g->conn = conn;
    return &g->base;
}

static void tf_gen_destroy(struct ag_gen **g)
{
    free(*g);
    *g = NULL;
}

static void tf_begin(struct ag_gen *gg)
{
    struct tf_gen *g = (struct tf_gen *)gg;
    g->events++;
    g->n = (int64_t)(g->conn * 1000 + g->events);
    g->step = 0;
    g->dup_done = false;
}

static enum ag_step tf_next(struct ag_gen *gg, struct ag_call *call)
{
    struct tf_gen *g = (struct tf_gen *)gg;
    int len = 0;

    call->want = AG_WANT_RESULT;
    call->stmt = -1;
    call->kind_id = g->step == 0 || g->step == 3 ? 0 : 1; /* PS: calc, text: text */
    switch (g->step) {
    case 0:
        call->stmt = 0;
        call->nparams = 2;
        call->ival[0] = g->n;
        call->ival[1] = g->n;
        return AG_STEP_STMT;
    case 1:
        len = snprintf(g->text, sizeof g->text, "SELECT %lld*2, 'x'", (long long)(g->n + 1));
        break;
    case 2:
        len = snprintf(g->text, sizeof g->text, "INSERT INTO fam_t (v) VALUES (%lld)",
                       (long long)(2 * (g->n + 1)));
        break;
    case 3:
        call->stmt = 1;
        call->nparams = 1;
        call->ival[0] = g->id;
        return AG_STEP_STMT;
    case 4:
        len = snprintf(g->text, sizeof g->text, "UPDATE fam_t SET v=v WHERE id=%lld",
                       (long long)g->id);
        break;
    case 5:
        /* every third event: a duplicate key first (the key of event 1) */
        len = snprintf(g->text, sizeof g->text, "INSERT INTO fam_u (k) VALUES (%lld)",
                       (long long)(g->events % 3 == 0 && !g->dup_done ? g->conn * 1000 + 1 : g->n));
        break;
    default:
        if (g->events >= 40) {
            atomic_fetch_add(&tf_failed, 1);
            return AG_STEP_FAILED;
        }
        if (g->n % 5 == 0) {
            atomic_fetch_add(&tf_rolled, 1);
            return AG_STEP_ROLLED_BACK;
        }
        atomic_fetch_add(&tf_done, 1);
        return AG_STEP_COMMITTED;
    }
    call->text = g->text;
    call->text_len = (size_t)len;
    call->kind = "text";
    return AG_STEP_STMT;
}

static void tf_result(struct ag_gen *gg, const struct ag_result *r)
{
    struct tf_gen *g = (struct tf_gen *)gg;

    atomic_fetch_add(&tf_results, 1);
    TF_EXPECT(r->err_no == 0);
    switch (g->step) {
    case 0: {
        char v[32];
        snprintf(v, sizeof v, "v%lld", (long long)g->n);
        TF_EXPECT(r->rows == 1 && r->ncols == 3);
        TF_EXPECT(r->is_num[0] && r->ival[0] == g->n + 1);
        TF_EXPECT(r->col[1] && strcmp(r->col[1], v) == 0 && r->col_len[1] == strlen(v));
        TF_EXPECT(!r->is_num[1] && r->col[2] == NULL);
        break;
    }
    case 1:
        TF_EXPECT(r->rows == 1 && r->ncols == 2 && r->is_num[0]);
        TF_EXPECT(r->ival[0] == 2 * (g->n + 1) && r->dval[0] == (double)(2 * (g->n + 1)));
        TF_EXPECT(r->col[1] && strcmp(r->col[1], "x") == 0);
        break;
    case 2:
        TF_EXPECT(r->rows == 0 && r->ncols == 0 && r->affected == 1 && r->insert_id > 0);
        g->id = (int64_t)r->insert_id;
        break;
    case 3:
        TF_EXPECT(r->rows == 1 && r->ncols == 1 && r->ival[0] == 2 * (g->n + 1));
        break;
    case 4:
        TF_EXPECT(r->rows == 0 && r->affected == 0); /* matched, not changed */
        break;
    case 5:
        TF_EXPECT(r->affected == 1);
        break;
    }
    g->step++;
}

/* Keep the inputs: the duplicate is not tried again, the event resumes at
 * the statement that failed. */
static bool tf_retry(struct ag_gen *gg, const struct ag_result *r)
{
    struct tf_gen *g = (struct tf_gen *)gg;
    TF_EXPECT(r->err_no == 1062 && g->step == 5);
    atomic_fetch_add(&tf_retries, 1);
    g->dup_done = true;
    return true;
}

static bool tf_finish(struct ag_gen *g, struct ag_call *call)
{
    (void)g, (void)call;
    return false;
}

static const pr_opts *tf_opts(const struct ag_wl *wl)
{
    return ((const struct tf_wl *)wl)->opts;
}

static const struct ag_family tf_family = {
    .name = "test",
    .has_workload = tf_has,
    .wl_new = tf_wl_new,
    .wl_destroy = tf_wl_destroy,
    .wl_opts = tf_opts,
    .wl_nstmts = tf_nstmts,
    .wl_stmt = tf_stmt,
    .wl_kinds = tf_kinds,
    .gen_new = tf_gen_new,
    .gen_destroy = tf_gen_destroy,
    .begin = tf_begin,
    .next = tf_next,
    .result = tf_result,
    .retry = tf_retry,
    .finish = tf_finish,
};

static void case_results(void)
{
    struct ag_engine_config cfg;
    struct pr_error perr = {0};
    struct ag_engine_error err = {0};
    struct pr_msg_kstat kst[2] = {{.lat = pr_hist_new()}, {.lat = pr_hist_new()}};
    struct ag_engine_stats st = {
        .lat = pr_hist_new(), .svc = pr_hist_new(), .kst = kst, .n_kst = 2};

    tdb_exec(db, "DROP TABLE IF EXISTS fam_t, fam_u");
    tdb_exec(db, "CREATE TABLE fam_t (id INT AUTO_INCREMENT PRIMARY KEY, v BIGINT)");
    tdb_exec(db, "CREATE TABLE fam_u (k BIGINT PRIMARY KEY)");
    struct ag_wl *wl = tf_wl_new("test_family", NULL, 0, &perr);
    cfg_init(&cfg, wl, 4);
    cfg.events = 4 * 40; /* 40 per connection would need exact sharing: bound it by failure */
    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK(e != NULL);
    CHECK_MSG(ag_engine_setup(e, &err) == 0, "setup: %s", err.msg);
    CHECK(ag_engine_start(e, uv_hrtime()) == 0);
    ag_engine_wait(e, -1);
    CHECK(!ag_engine_error(e, &err));
    CHECK(ag_engine_totals(e, &st) == 0);
    ag_engine_destroy(&e);

    uint64_t done = atomic_load(&tf_done), rolled = atomic_load(&tf_rolled);
    uint64_t failed = atomic_load(&tf_failed), retries = atomic_load(&tf_retries);
    printf("events: committed %llu rolled back %llu failed %llu; retries %llu; results %llu; "
           "engine: transactions %llu errors %llu reads %llu writes %llu other %llu\n",
           (unsigned long long)done, (unsigned long long)rolled, (unsigned long long)failed,
           (unsigned long long)retries, (unsigned long long)atomic_load(&tf_results),
           (unsigned long long)st.ctr.transactions, (unsigned long long)st.ctr.errors,
           (unsigned long long)st.ctr.reads, (unsigned long long)st.ctr.writes,
           (unsigned long long)st.ctr.other);
    CHECK_EQ_U64(atomic_load(&tf_bad), 0);
    CHECK_EQ_U64(done + rolled + failed, 160);
    CHECK(rolled > 0 && failed > 0 && done > 0);
    CHECK_EQ_U64(st.ctr.transactions, done + rolled); /* rolled back on purpose counts as done */
    CHECK_EQ_U64(st.ctr.errors, retries + failed);    /* ignorable errors + events given up */
    /* the outcomes apart (pr_counters' optional rolled_back, failed) */
    printf("outcomes counted: rolled back on purpose %llu, failed %llu\n",
           (unsigned long long)st.ctr.rolled_back, (unsigned long long)st.ctr.failed);
    CHECK_EQ_U64(st.ctr.rolled_back, rolled);
    CHECK_EQ_U64(st.ctr.failed, failed);
    CHECK_EQ_U64(atomic_load(&tf_results), 6 * 160); /* one result per successful statement */
    CHECK_EQ_U64(st.ctr.reads + st.ctr.writes + st.ctr.other, 6 * 160);
    /* Per kind: 2 PS statements and 4 text ones per event; the duplicate
     * key errors are the text kind's. */
    printf("kinds: calc %llu (%llu errors), text %llu (%llu errors)\n",
           (unsigned long long)kst[0].count, (unsigned long long)kst[0].errors,
           (unsigned long long)kst[1].count, (unsigned long long)kst[1].errors);
    CHECK_EQ_U64(kst[0].count, 2 * 160);
    CHECK_EQ_U64(kst[1].count, 4 * 160);
    CHECK_EQ_U64(kst[0].errors, 0);
    CHECK_EQ_U64(kst[1].errors, retries);
    CHECK_EQ_U64(pr_hist_count(kst[0].lat), 2 * 160);
    pr_hist_destroy(&kst[0].lat);
    pr_hist_destroy(&kst[1].lat);
    pr_hist_destroy(&st.lat);
    pr_hist_destroy(&st.svc);
    tf_wl_destroy(&wl);
    tdb_exec(db, "DROP TABLE IF EXISTS fam_t, fam_u");
}

/* ---- the sysbench check stream ---------------------------------------- */

static int run_stream(struct ag_piece p, struct ag_engine_error *err)
{
    struct ag_engine_config cfg;
    struct pr_error perr = {0};

    cfg_init(&cfg, NULL, 1);
    ag_engine *e = ag_engine_new(&cfg, &perr);
    CHECK(e != NULL);
    CHECK(ag_engine_setup(e, err) == 0);
    int rc = ag_engine_run_pieces(e, &p, 1, err);
    ag_engine_destroy(&e);
    return rc;
}

static void case_check(void)
{
    struct ag_kv kv[] = {{"tables", "2"}, {"table_size", "300"}};
    struct pr_error perr = {0};
    struct ag_engine_error err;
    uint32_t nums[] = {1, 2};
    ag_sb_workload *wl = ag_sb_workload_new(&ag_sb_family, "oltp_read_only", kv, 2, &perr);
    CHECK(wl != NULL);

    ag_sb_load *cl = ag_sb_load_cleanup_new(wl, nums, 2);
    CHECK_EQ_U64((uint64_t)run_stream(ag_sb_load_piece(cl), &err), 0);
    ag_sb_load_destroy(&cl);
    for (uint32_t t = 1; t <= 2; t++) {
        struct ag_sb_load_piece piece = {t, 1, 300, true, true, false};
        ag_sb_load *l = ag_sb_load_prepare_new(wl, &piece, 1, &perr);
        CHECK_EQ_U64((uint64_t)run_stream(ag_sb_load_piece(l), &err), 0);
        ag_sb_load_destroy(&l);
    }
    ag_sb_check *c = ag_sb_check_new(wl, nums, 2);
    int rc = run_stream(ag_sb_check_piece(c), &err);
    CHECK_MSG(rc == 0, "check of a fresh prepare: %s", err.msg);
    ag_sb_check_destroy(&c);

    tdb_exec(db, "DELETE FROM sbtest2 WHERE id=300");
    c = ag_sb_check_new(wl, nums, 2);
    rc = run_stream(ag_sb_check_piece(c), &err);
    printf("check after a DELETE: rc %d: %s (%s)\n", rc, err.msg, err.what);
    CHECK(rc < 0);
    CHECK(strstr(err.msg, "sbtest2: 299 rows with ids 1..299, expected 300 rows") != NULL);
    ag_sb_check_destroy(&c);

    tdb_exec(db, "DROP TABLE sbtest2");
    c = ag_sb_check_new(wl, nums, 2);
    rc = run_stream(ag_sb_check_piece(c), &err);
    printf("check of a missing table: rc %d: error %u %s\n", rc, err.err_no, err.msg);
    CHECK(rc < 0 && err.err_no == 1146);
    ag_sb_check_destroy(&c);
    cl = ag_sb_load_cleanup_new(wl, nums, 2);
    CHECK_EQ_U64((uint64_t)run_stream(ag_sb_load_piece(cl), &err), 0);
    ag_sb_load_destroy(&cl);
    ag_sb_workload_destroy(&wl);
}

int main(int argc, char **argv)
{
    tdb_env_init(&env);
    db = tdb_connect(&env);
    const char *only = argc > 1 ? argv[1] : NULL;
    if (!only || strcmp(only, "results") == 0)
        case_results();
    if (!only || strcmp(only, "check") == 0)
        case_check();
    mysql_close(db);
    mysql_library_end();
    return TEST_END();
}
