/* test_co_threshold: --threshold expressions (coordinator/core/co_threshold.h):
 * what parses and into what, what is refused and with which words, and the
 * evaluation against a result built here (counters, a histogram, a kind)
 * whose figures are known: tps, errors per 100 transactions, percentiles
 * (HdrHistogram's highest equivalent value), a missing kind, each operator
 * at its boundary; tpmC through a family's figure hook; which are judged
 * live (--abort-on-threshold). */
#include <math.h>
#include <string.h>

#include "co_family_summary.h"
#include "co_result.h"
#include "co_threshold.h"
#include "testlib.h"

static struct co_threshold parse_ok(const char *expr)
{
    struct co_threshold t;
    struct pr_error err = {0};
    int rc = co_threshold_parse(expr, &t, &err);
    CHECK_MSG(rc == 0, "%s: %s", expr, err.msg);
    return t;
}

static void parse_bad(const char *expr, const char *word)
{
    struct co_threshold t;
    struct pr_error err = {0};
    int rc = co_threshold_parse(expr, &t, &err);
    CHECK_MSG(rc == PR_EINVAL && strstr(err.msg, word) != NULL && strstr(err.msg, expr) != NULL,
              "%s: rc %d, %s", expr, rc, err.msg);
    CHECK(t.expr == NULL && t.kind == NULL);
}

static void test_parse(void)
{
    struct co_threshold t = parse_ok("p99<20ms");
    CHECK(t.metric == CO_THR_LATENCY && t.pct == 99 && t.op == CO_THR_LT && t.limit == 20 &&
          t.kind == NULL && strcmp(t.expr, "p99<20ms") == 0);
    co_threshold_clear(&t);
    t = parse_ok("new_order.p90<=5s");
    CHECK(t.metric == CO_THR_LATENCY && t.pct == 90 && t.op == CO_THR_LE && t.limit == 5000 &&
          t.kind && strcmp(t.kind, "new_order") == 0);
    co_threshold_clear(&t);
    t = parse_ok("a.b.p99.9>250us"); /* a kind may hold dots */
    CHECK(t.pct == 99.9 && t.op == CO_THR_GT && fabs(t.limit - 0.25) < 1e-12 && t.kind &&
          strcmp(t.kind, "a.b") == 0);
    co_threshold_clear(&t);
    t = parse_ok("errors<0.1%");
    CHECK(t.metric == CO_THR_ERRORS_PCT && t.limit == 0.1);
    co_threshold_clear(&t);
    t = parse_ok("errors<=2/s");
    CHECK(t.metric == CO_THR_ERRORS && t.limit == 2);
    co_threshold_clear(&t);
    t = parse_ok("tps>=1000");
    CHECK(t.metric == CO_THR_TPS && t.op == CO_THR_GE && t.limit == 1000);
    co_threshold_clear(&t);
    t = parse_ok("max<1");
    CHECK(t.metric == CO_THR_LATENCY && t.pct == CO_THR_MAX);
    co_threshold_clear(&t);
    t = parse_ok("tpmC>=5000");
    CHECK(t.metric == CO_THR_TPMC && t.op == CO_THR_GE && t.limit == 5000 &&
          strcmp(co_threshold_unit(&t), "tpmC") == 0 && !co_threshold_live(&t));
    co_threshold_clear(&t);
    /* Live (--abort-on-threshold): all but lower bounds on counts and tpmC. */
    const char *live[] = {"p99<20",        "tps>=5",   "errors<1%",  "events<100",
                          "reconnects<=2", "k.p99<20", "k.errors<1%"};
    const char *end_only[] = {"events>=100", "reconnects>0", "k.events>=5", "tpmC>1"};
    for (size_t i = 0; i < 7; i++) {
        t = parse_ok(live[i]);
        CHECK_MSG(co_threshold_live(&t), "%s is judged live", live[i]);
        co_threshold_clear(&t);
    }
    for (size_t i = 0; i < 4; i++) {
        t = parse_ok(end_only[i]);
        CHECK_MSG(!co_threshold_live(&t), "%s is judged at the end only", end_only[i]);
        co_threshold_clear(&t);
    }
    parse_bad("k.tpmC>1", "not of a kind");
    parse_bad("tpmC>1ms", "unit 'ms'");
    parse_bad("p99", "no comparison");
    parse_bad("<5", "no comparison");
    parse_bad("p99<<1", "not a number");
    parse_bad("p99<-1", "not a number");
    parse_bad("p99<1h", "unit 'h'");
    parse_bad("tps<5ms", "unit 'ms'");
    parse_bad("k.tps<5", "not of a kind");
    parse_bad("latency<5", "not a metric");
    parse_bad("p0<5", "not a metric");
    parse_bad("p101<5", "not a metric");
    parse_bad("px<5", "not a metric");
}

static double eval(const char *expr, const struct co_result *r, bool *passed, bool *measured)
{
    struct co_threshold t = parse_ok(expr);
    struct co_thr_result res = co_threshold_eval(&t, r);
    *passed = res.passed;
    *measured = res.measured;
    co_threshold_clear(&t);
    return res.value;
}

/* A family's figure hook: state is the tpmC. */
static double figure_of(const void *st, const char *name)
{
    return strcmp(name, "tpmC") == 0 ? *(const double *)st : NAN;
}

static void test_eval(void)
{
    struct co_result r = {0};
    r.time_s = 2.0;
    r.total.transactions = 1000;
    r.total.errors = 5;
    r.total.reads = 3000;
    r.lat = pr_hist_new();
    for (uint64_t v = 1; v <= 100; v++)
        pr_hist_record(r.lat, v * 1000, 1); /* 1..100 ms, one each */
    struct co_kind_result kind = {.name = "point_selects", .count = 90, .errors = 10};
    kind.lat = pr_hist_new();
    pr_hist_record(kind.lat, 4000, 90);
    r.kinds = &kind;
    r.n_kinds = 1;
    bool ok, m;
    double v = eval("tps>=500", &r, &ok, &m);
    CHECK_MSG(m && ok && v == 500.0, "tps %g", v);
    v = eval("tps>500", &r, &ok, &m);
    CHECK(m && !ok);
    v = eval("qps<1501", &r, &ok, &m);
    CHECK_MSG(m && ok && v == 1500.0, "qps %g", v);
    v = eval("errors<0.5%", &r, &ok, &m);
    CHECK_MSG(m && !ok && v == 0.5, "errors%% %g", v);
    v = eval("errors<=2.5", &r, &ok, &m);
    CHECK_MSG(m && ok && v == 2.5, "errors/s %g", v);
    v = eval("p50<=51ms", &r, &ok, &m); /* 50.015: the bucket's highest value */
    CHECK_MSG(m && ok && v == (double)pr_hist_value_at_percentile(r.lat, 50) / 1000.0, "p50 %g", v);
    v = eval("p99<0.099s", &r, &ok, &m);
    CHECK_MSG(m && ok == (v < 99.0) && v == (double)pr_hist_value_at_percentile(r.lat, 99) / 1000,
              "p99 %g", v);
    v = eval("max<=100ms", &r, &ok, &m);
    CHECK_MSG(m && ok && v == 100.0, "max %g", v);
    v = eval("point_selects.errors<10%", &r, &ok, &m);
    CHECK_MSG(m && !ok && v == 10.0, "kind errors%% %g", v);
    v = eval("point_selects.p95<4.1", &r, &ok, &m);
    CHECK_MSG(m && ok && v == (double)pr_hist_value_at_percentile(kind.lat, 95) / 1000, "%g", v);
    v = eval("point_selects.events>=90", &r, &ok, &m);
    CHECK(m && ok && v == 90.0);
    v = eval("deletes.p95<1000", &r, &ok, &m);
    CHECK(!m && !ok);
    v = eval("tpmC>=1", &r, &ok, &m); /* no family figure (a sysbench run): not measured */
    CHECK(!m && !ok);
    struct co_family_summary fam = {.figure = figure_of};
    double tpmc = 1234.5;
    r.fam_summary = &fam;
    r.fam_state = &tpmc;
    v = eval("tpmC>=1234.5", &r, &ok, &m);
    CHECK_MSG(m && ok && v == 1234.5, "tpmC %g", v);
    v = eval("tpmC>1234.5", &r, &ok, &m);
    CHECK(m && !ok);
    r.fam_summary = NULL;
    r.fam_state = NULL;
    r.kinds = NULL;
    r.n_kinds = 0;
    pr_hist_destroy(&kind.lat);
    pr_hist_reset(r.lat);
    v = eval("p99<1000", &r, &ok, &m); /* no sample: not measured, crossed */
    CHECK(!m && !ok);
    co_result_clear(&r);
}

int main(void)
{
    test_parse();
    test_eval();
    return TEST_END();
}
