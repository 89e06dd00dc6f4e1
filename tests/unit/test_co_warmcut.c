/* test_co_warmcut: --warmup (coordinator/core/co_warmcut.h). What parses;
 * a run of ten 1 s intervals built here (the first three slow: 100 ms a
 * transaction, then 10 ms) cut by a fixed 3 s and by an auto warm-up: the
 * totals are the whole run's minus the cut intervals, the latency exactly
 * the later intervals' (min, max, count), the time the whole minus the
 * cut; and each case that leaves nothing out says why: off, not judged,
 * no warm-up, a cut past the last interval, intervals that do not add up. */
#include <string.h>

#include "co_result.h"
#include "co_steady.h"
#include "co_warmcut.h"
#include "testlib.h"

static void test_parse(void)
{
    struct co_warmup_opt o;
    struct pr_error err = {0};
    CHECK(co_warmup_parse("auto", &o, &err) == 0 && o.mode == CO_WARMUP_AUTO);
    CHECK(co_warmup_parse("30", &o, &err) == 0 && o.mode == CO_WARMUP_FIXED && o.s == 30);
    const char *bad[] = {"", "0", "-1", "3s", "auto2", "1.5", "86401", NULL};
    for (int i = 0; bad[i]; i++) {
        err = (struct pr_error){0};
        CHECK_MSG(co_warmup_parse(bad[i], &o, &err) == PR_EINVAL &&
                      strstr(err.msg, "'auto'") != NULL,
                  "%s: %s", bad[i], err.msg);
    }
}

/* A run as co_run leaves it before the cut: ten intervals kept, totals and
 * latency their sums (plus 5 unfinished events only the DONE counted). */
static void build(struct co_result *r, enum co_warmup_mode mode, uint32_t s)
{
    memset(r, 0, sizeof(*r));
    r->warmcut.opt = (struct co_warmup_opt){mode, s};
    r->lat = pr_hist_new();
    pr_hist *h = pr_hist_new();
    for (int k = 0; k < 10; k++) {
        struct pr_counters c = {.transactions = k < 3 ? 10 : 100, .other = k < 3 ? 10 : 100};
        pr_hist_reset(h);
        pr_hist_record(h, k < 3 ? 100000 : 10000 + (uint64_t)k, c.transactions);
        co_warmcut_add(&r->warmcut, k + 1.0, 1.0, &c, h);
        pr_counters_add(&r->total, &c);
        pr_hist_add(r->lat, h);
    }
    r->total.unfinished = 5;
    r->time_s = 10.2;
    pr_hist_destroy(&h);
}

static struct co_warmcut_totals totals(struct co_result *r)
{
    return (struct co_warmcut_totals){&r->total, &r->lat, &r->svc, &r->time_s};
}

static void test_fixed(void)
{
    struct co_result r;
    struct co_steady st = {0};
    build(&r, CO_WARMUP_FIXED, 3);
    co_warmcut_apply(&r.warmcut, &st, totals(&r));
    const struct co_warmcut *w = &r.warmcut;
    CHECK_MSG(w->applied && w->cut_s == 3.0 && w->cut_intervals == 3, "%s", w->note);
    CHECK_EQ_U64(w->cut_ctr.transactions, 30);
    CHECK_EQ_U64(w->cut_lat_count, 30);
    CHECK_EQ_U64(w->whole_ctr.transactions, 730);
    CHECK_EQ_U64(w->whole_lat_count, 730);
    CHECK_EQ_U64(r.total.transactions, 700);
    CHECK_EQ_U64(r.total.other, 700);
    CHECK_EQ_U64(r.total.unfinished, 5); /* not in an interval: stays */
    CHECK_EQ_U64(pr_hist_count(r.lat), 700);
    CHECK_EQ_U64(pr_hist_min(r.lat), 10003);
    CHECK_EQ_U64(pr_hist_max(r.lat), 10009);
    CHECK(w->whole_time_s == 10.2 && r.time_s > 7.199 && r.time_s < 7.201);
    CHECK(co_result_whole_time_s(&r) == 10.2);
    co_result_clear(&r);
}

static void test_auto(void)
{
    struct co_result r;
    struct co_steady st = {.judged = true, .settled = true, .warmup_n = 3, .warmup_s = 3.0};
    build(&r, CO_WARMUP_AUTO, 0);
    co_warmcut_apply(&r.warmcut, &st, totals(&r));
    CHECK_MSG(r.warmcut.applied && r.warmcut.cut_s == 3.0, "%s", r.warmcut.note);
    CHECK_EQ_U64(r.total.transactions, 700);
    co_result_clear(&r);
}

/* Nothing left out: the totals stay whole, the note says why. */
static void untouched(enum co_warmup_mode mode, uint32_t s, struct co_steady st, bool spoil,
                      const char *word)
{
    struct co_result r;
    build(&r, mode, s);
    if (spoil)
        pr_hist_record(r.lat, 50, 1); /* a sample no interval holds */
    co_warmcut_apply(&r.warmcut, &st, totals(&r));
    CHECK_MSG(!r.warmcut.applied && r.total.transactions == 730 && r.time_s == 10.2 &&
                  pr_hist_count(r.lat) == (spoil ? 731u : 730u),
              "%s: applied %d", word, r.warmcut.applied);
    CHECK_MSG(word[0] ? strstr(r.warmcut.note, word) != NULL : r.warmcut.note[0] == '\0',
              "want '%s' in '%s'", word, r.warmcut.note);
    co_result_clear(&r);
}

static void test_untouched(void)
{
    struct co_steady none = {0};
    struct co_steady judged = {.judged = true, .settled = true};
    struct co_steady unsettled = {.judged = true, .settled = false};
    struct co_steady warm = {.judged = true, .settled = true, .warmup_n = 3, .warmup_s = 3.0};
    untouched(CO_WARMUP_OFF, 0, warm, false, "");
    untouched(CO_WARMUP_AUTO, 0, none, false, "too short to judge");
    untouched(CO_WARMUP_AUTO, 0, judged, false, "no warm-up detected");
    untouched(CO_WARMUP_AUTO, 0, unsettled, false, "never settled");
    untouched(CO_WARMUP_FIXED, 10, none, false, "covers every interval");
    untouched(CO_WARMUP_AUTO, 0, warm, true, "do not add up");
}

int main(void)
{
    test_parse();
    test_fixed();
    test_auto();
    test_untouched();
    return TEST_END();
}
