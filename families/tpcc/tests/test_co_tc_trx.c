/* co_tc_trx: tpcc_start's -f / -t files from STATS.trx records: its
 * time_count rule (0 through the ramp-up and the first measured interval,
 * then i, 2i, ..., never past floor(time / i) * i), the two line formats,
 * lines in global end order across STATS (held until the watermark), the
 * rolled-back New-Order in -f only, other kinds left out, a path that
 * cannot be created refused up front, -t stamps in the coordinator's wall
 * clock whatever the agents' host clocks say, and a write that fails
 * (/dev/full) reported by destroy. */
#include <unistd.h>

#include "co_tc_trx.h"
#include "pr_msg_trx.h"
#include "testlib.h"

static void test_time_count(void)
{
    struct co_tc_trx_cfg c = {NULL, NULL, 2, 5, 2}; /* -r 2 -l 5 -i 2 */
    static const struct {
        uint64_t end_us;
        uint32_t want;
    } cases[] = {
        {0, 0},         {1999999, 0}, {2000000, 0}, {3999999, 0}, {4000000, 2},
        {5999999, 2},   {6000000, 4}, {7500000, 4}, /* wind-down: the last alarm's 4 */
        {100000000, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_MSG(co_tc_trx_time_count(&c, cases[i].end_us) == cases[i].want,
                  "end %" PRIu64 " us: %u, want %u", cases[i].end_us,
                  co_tc_trx_time_count(&c, cases[i].end_us), cases[i].want);
    c.interval_s = 0; /* no interval lines: tpcc_start's counter never moves */
    CHECK(co_tc_trx_time_count(&c, 100000000) == 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[4096];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

static void test_files(void)
{
    char dir[] = "/tmp/test_co_tc_trx.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char rp[64], tp[64];
    snprintf(rp, sizeof rp, "%s/rt.txt", dir);
    snprintf(tp, sizeof tp, "%s/trx.txt", dir);
    struct co_tc_trx_cfg c = {rp, tp, 1, 4, 2};
    struct pr_error err = {0};
    CHECK(co_tc_trx_check(&c, &err) == 0);

    co_tc_trx *t = co_tc_trx_new(&c);
    CHECK(t != NULL);
    /* Out of end order, one rolled back on purpose, one of another kind. */
    struct pr_msg_trx recs[] = {
        {3, 0, 0, 3500000, 12345, 1700000003000000001ull, 1700000003012345001ull},
        {1, 0, 0, 500000, 999, 1700000000000000000ull, 1700000000000999000ull},
        {2, 0, PR_TRX_ROLLED_BACK, 1200000, 1500, 1, 2},
        {0, 1, 0, 1300000, 7777, 5, 6},
    };
    struct pr_msg_stats s = {.trx = recs, .n_trx = 4};
    co_tc_trx_stats(t, &s, 0);
    CHECK_EQ_U64(co_tc_trx_report_lines(t), 0); /* held until a flush */
    CHECK_EQ_U64(co_tc_trx_held(t), 3);
    co_tc_trx_flush(t, 1300000); /* the watermark: the two that ended before it */
    CHECK_EQ_U64(co_tc_trx_report_lines(t), 2);
    CHECK_EQ_U64(co_tc_trx_trx_lines(t), 1);
    CHECK_EQ_U64(co_tc_trx_held(t), 1);
    /* Another agent's STATS: its record ended before the held 3.5 s one
     * and must come first; equal ends go by connection. */
    struct pr_msg_trx more[] = {
        {9, 0, 0, 2000000, 4000, 1700000002000000000ull, 1700000002004000000ull},
        {4, 0, 0, 2000000, 3000, 1700000002000000000ull, 1700000002003000000ull},
    };
    struct pr_msg_stats s2 = {.trx = more, .n_trx = 2};
    co_tc_trx_stats(t, &s2, 0);
    CHECK(co_tc_trx_destroy(&t) == 0 && t == NULL); /* writes the rest, in order */

    const char *want_rt = "0 0.999\n0 1.500\n0 3.000\n0 4.000\n2 12.345\n";
    const char *got = slurp(rp);
    CHECK_MSG(strcmp(got, want_rt) == 0, "-f file:\n%s", got);
    const char *want_trx = "t_num: 1 finish: 1700000000 999000 start: 1700000000 0\n"
                           "t_num: 4 finish: 1700000002 3000000 start: 1700000002 0\n"
                           "t_num: 9 finish: 1700000002 4000000 start: 1700000002 0\n"
                           "t_num: 3 finish: 1700000003 12345001 start: 1700000003 1\n";
    got = slurp(tp);
    CHECK_MSG(strcmp(got, want_trx) == 0, "-t file:\n%s", got);

    struct co_tc_trx_cfg bad = {"/nonexistent-dir/rt.txt", NULL, 0, 1, 1};
    CHECK(co_tc_trx_check(&bad, &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "--report-file=/nonexistent-dir/rt.txt") != NULL, "%s", err.msg);
    struct co_tc_trx_cfg none = {NULL, "", 0, 1, 1};
    CHECK(co_tc_trx_new(&none) == NULL);
    unlink(rp);
    unlink(tp);
    rmdir(dir);
}

/* -t in the common epoch (issue 30 §6): two agents whose host clocks are
 * an hour ahead and 2.5 s behind the coordinator's. Their stamps land at
 * the coordinator's wall clock (t0 + end_us), the last attempt's length
 * kept, and in end order; without an epoch they stay as sent. */
static void test_epoch(void)
{
    char dir[] = "/tmp/test_co_tc_trx.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char tp[64];
    snprintf(tp, sizeof tp, "%s/trx.txt", dir);
    struct co_tc_trx_cfg c = {NULL, tp, 1, 4, 2};
    const uint64_t t0 = 1700000000123456789ull; /* the coordinator's wall clock at t0 */
    const uint64_t ahead = 3600000000000ull, behind = 2500000000ull;
    /* agent A (ahead): ended 1.5 s after t0, its last attempt 4 ms long */
    uint64_t a_end = t0 + 1500000000ull + ahead;
    /* agent B (behind): ended 1.2 s after t0 (before A's), one attempt of 7 ms */
    uint64_t b_end = t0 + 1200000000ull - behind;
    struct pr_msg_trx ra = {1, 0, 0, 1500000, 9000, a_end - 4000000, a_end};
    struct pr_msg_trx rb = {6, 0, 0, 1200000, 7000, b_end - 7000000, b_end};
    struct pr_msg_stats sa = {.trx = &ra, .n_trx = 1}, sb = {.trx = &rb, .n_trx = 1};

    co_tc_trx *t = co_tc_trx_new(&c);
    CHECK(t != NULL);
    co_tc_trx_set_epoch(t, t0);
    co_tc_trx_stats(t, &sa, 0);
    co_tc_trx_stats(t, &sb, 0);
    CHECK(co_tc_trx_destroy(&t) == 0);
    const char *want = "t_num: 6 finish: 1700000001 323456789 start: 1700000001 316456789\n"
                       "t_num: 1 finish: 1700000001 623456789 start: 1700000001 619456789\n";
    const char *got = slurp(tp);
    CHECK_MSG(strcmp(got, want) == 0, "-t file:\n%s", got);

    t = co_tc_trx_new(&c); /* no epoch: the agents' own clocks */
    co_tc_trx_stats(t, &sa, 0);
    CHECK(co_tc_trx_destroy(&t) == 0);
    got = slurp(tp);
    CHECK_MSG(strcmp(got, "t_num: 1 finish: 1700003601 623456789 start: 1700003601 619456789\n") ==
                  0,
              "-t file:\n%s", got);
    unlink(tp);
    rmdir(dir);
}

/* A write that fails at the close (/dev/full: ENOSPC) makes destroy fail. */
static void test_full(void)
{
    if (access("/dev/full", W_OK) != 0) {
        fprintf(stderr, "no writable /dev/full: test_full not run\n");
        CHECK(0);
        return;
    }
    struct co_tc_trx_cfg c = {"/dev/full", NULL, 0, 4, 2};
    struct pr_error err = {0};
    CHECK(co_tc_trx_check(&c, &err) == 0);
    co_tc_trx *t = co_tc_trx_new(&c);
    CHECK(t != NULL);
    struct pr_msg_trx r = {0, 0, 0, 100, 1000, 1, 2};
    struct pr_msg_stats s = {.trx = &r, .n_trx = 1};
    co_tc_trx_stats(t, &s, 0);
    CHECK(co_tc_trx_destroy(&t) < 0 && t == NULL);
}

int main(void)
{
    test_time_count();
    test_files();
    test_epoch();
    test_full();
    return TEST_END();
}
