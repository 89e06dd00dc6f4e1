/* test_tc_trx_lost: tpcc_start's -f/-t records past the agent's bound
 * (PR_MSG_MAX_TRX = 65,536 per interval) are dropped and counted, and the
 * coordinator's warning and --json tpcc.trx_records_lost say exactly how
 * many. A real run cannot make 65,536 New-Orders in one second against the
 * sandbox in a few seconds, so this drives the real pieces in process:
 * workers' ag_wstats (ag_worker_stats.c) merged as the engine merges them,
 * the STATS message encoded and decoded (pr_msg), then the coordinator's
 * tpcc output (co_tc_fmt.c: its stats and final ops, with a -f file). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <unistd.h>

#include "ag_worker.h"
#include "co_family.h"
#include "co_result.h"
#include "co_tc_fmt.h"
#include "co_tc_fmt_int.h"
#include "co_tc_trx.h"
#include "pr_msg.h"
#include "pr_msg_trx.h"
#include "pr_tc_opts.h"
#include "testlib.h"

#define IVL_MS 1000u

/* n New-Order records of connection conn, ending in interval k. */
static void add_records(struct ag_wstats *s, uint32_t conn, uint64_t k, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct pr_msg_trx r = {.conn = conn,
                               .kind = PR_TC_K_NEW_ORDER,
                               .end_us = k * IVL_MS * 1000u + 1000u + i % 900000u,
                               .rt_us = 1000u + i % 50u};
        ag_wstats_add_trx(s, &r);
    }
}

/* One agent interval: the workers' records (per worker), merged as the
 * engine merges (ag_wstats_add into one), sent as a STATS and decoded. */
static uint64_t agent_interval(struct pr_msg *back, uint64_t k, const uint32_t *per_worker,
                               int workers)
{
    struct ag_wstats w[4], merge;

    ag_wstats_init(&merge, 0);
    for (int i = 0; i < workers; i++) {
        ag_wstats_init(&w[i], 0);
        add_records(&w[i], (uint32_t)i, k, per_worker[i]);
        /* a worker keeps at most PR_MSG_MAX_TRX of its own */
        uint64_t over = per_worker[i] > PR_MSG_MAX_TRX ? per_worker[i] - PR_MSG_MAX_TRX : 0;
        CHECK_EQ_U64(w[i].trx_lost, over);
        CHECK_EQ_U64(w[i].n_trx, per_worker[i] - over);
        ag_wstats_add(&merge, &w[i]);
    }
    struct pr_msg m;
    pr_msg_init(&m, PR_MSG_STATS, "a0", 1);
    m.u.stats.k = k;
    m.u.stats.lat = pr_hist_new();
    m.u.stats.trx = merge.trx; /* moved, as ag_session does */
    m.u.stats.n_trx = merge.n_trx;
    m.u.stats.trx_lost = merge.trx_lost;
    merge.trx = NULL;
    merge.n_trx = merge.cap_trx = 0;
    msgpack_sbuffer sb;
    struct pr_error err = {0};
    msgpack_sbuffer_init(&sb);
    CHECK_MSG(pr_msg_encode(&m, &sb, &err) == 0, "%s", err.msg);
    CHECK_MSG(pr_msg_decode(back, sb.data, sb.size, &err) == 0, "%s", err.msg);
    msgpack_sbuffer_destroy(&sb);
    uint64_t lost = m.u.stats.trx_lost, kept = m.u.stats.n_trx;
    pr_msg_clear(&m); /* the records and the histogram */
    for (int i = 0; i < workers; i++)
        ag_wstats_close(&w[i]);
    ag_wstats_close(&merge);
    CHECK_EQ_U64(back->u.stats.trx_lost, lost);
    CHECK_EQ_U64(back->u.stats.n_trx, kept);
    return lost;
}

static size_t file_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    int c;
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

static void test_trx_lost(void)
{
    char fpath[] = "/tmp/test_tc_trx_lost_f.XXXXXX", epath[] = "/tmp/test_tc_trx_lost_e.XXXXXX";
    int fd = mkstemp(fpath), efd = mkstemp(epath);
    CHECK(fd >= 0 && efd >= 0);
    if (fd < 0 || efd < 0)
        return;
    close(fd);

    struct co_result res;
    memset(&res, 0, sizeof res);
    res.n_kinds = PR_TC_K_COUNT_; /* the New-Order kind is found by name */
    res.kind_names = pr_xcalloc(PR_TC_K_COUNT_, sizeof(char *));
    for (int i = 0; i < PR_TC_K_COUNT_; i++)
        res.kind_names[i] = pr_xstrdup(pr_tc_kind_name((enum pr_tc_kind)i));
    res.n_agents = 2;
    res.agents = pr_xcalloc(2, sizeof *res.agents);
    res.agents[0].name = pr_xstrdup("agent-a");
    res.agents[1].name = pr_xstrdup("agent-b");
    res.agents[0].threads = res.agents[1].threads = 3;
    struct co_tc_fmt_cfg cfg = {.host = "127.0.0.1",
                                .port = "3306",
                                .db = "tpcc",
                                .user = "root",
                                .warehouses = 2,
                                .threads = 6,
                                .warmup_s = 0,
                                .time_s = 3,
                                .interval_s = 1,
                                .rt_limit_ms = {5, 5, 5, 80, 20}};
    co_tc_fmt *t = co_tc_fmt_new(&cfg, &res);
    struct co_tc_trx_cfg tc = {fpath, NULL, cfg.warmup_s, cfg.time_s, cfg.interval_s};
    t->trx = co_tc_trx_new(&tc);
    CHECK(t->trx != NULL);

    /* Agent a, interval 0: 3 workers, 40,000 + 30,000 + 5,000 records:
     * the merge keeps 65,536 and drops 9,464. Interval 1: one worker alone
     * past the bound, 70,000: it drops 4,464 itself. Interval 2: 1,000, none.
     * Agent b, interval 0: 66,000 over 2 workers: 464 dropped. */
    static const uint32_t a0[] = {40000, 30000, 5000}, a1[] = {70000}, a2[] = {1000},
                          b0[] = {33000, 33000};
    struct {
        uint32_t agent;
        uint64_t k;
        const uint32_t *w;
        int n;
        uint64_t want_lost;
    } ivs[] = {{0, 0, a0, 3, 9464}, {1, 0, b0, 2, 464}, {0, 1, a1, 1, 4464}, {0, 2, a2, 1, 0}};
    uint64_t lost = 0, sent = 0;
    for (size_t i = 0; i < sizeof ivs / sizeof ivs[0]; i++) {
        struct pr_msg back;
        uint64_t l = agent_interval(&back, ivs[i].k, ivs[i].w, ivs[i].n);
        CHECK_MSG(l == ivs[i].want_lost, "agent %u interval %llu: %llu dropped, want %llu",
                  ivs[i].agent, (unsigned long long)ivs[i].k, (unsigned long long)l,
                  (unsigned long long)ivs[i].want_lost);
        for (int w = 0; w < ivs[i].n; w++)
            sent += ivs[i].w[w];
        lost += l;
        co_tc_fmt_stats(t, ivs[i].agent, &back.u.stats, false, IVL_MS);
        pr_msg_clear(&back);
    }
    printf("records made %llu, dropped by the agents %llu, coordinator counts %llu\n",
           (unsigned long long)sent, (unsigned long long)lost, (unsigned long long)t->trx_lost);
    CHECK_EQ_U64(t->trx_lost, lost);

    /* The final op: the warning (stderr) and --json say the same count;
     * the -f file has every record that was kept. */
    fflush(stderr);
    int saved = dup(2);
    dup2(efd, 2);
    char *text = NULL, *js = NULL;
    size_t text_len = 0, js_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    co_tc_family_summary.final(t, out, &res);
    fclose(out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *jf = open_memstream(&js, &js_len);
    co_tc_family_summary.json(jf, t, &res);
    fclose(jf);
    char warn[512] = {0}, want[64];
    FILE *ef = fopen(epath, "r");
    size_t n = ef ? fread(warn, 1, sizeof warn - 1, ef) : 0;
    warn[n] = '\0';
    if (ef)
        fclose(ef);
    printf("warning: %s", warn);
    snprintf(want, sizeof want, "dropped %" PRIu64 " New-Order records", lost);
    CHECK_MSG(strstr(warn, want) != NULL, "warning '%s' lacks '%s'", warn, want);
    snprintf(want, sizeof want, "\"trx_records_lost\": %" PRIu64, lost);
    CHECK_MSG(js && strstr(js, want) != NULL, "--json lacks '%s'", want);
    size_t lines = file_lines(fpath);
    printf("-f lines %zu, records kept %llu\n", lines, (unsigned long long)(sent - lost));
    CHECK_EQ_U64(lines, sent - lost);
    free(text);
    free(js);
    unlink(fpath);
    unlink(epath);
    close(efd);
    co_tc_fmt_destroy(&t);
    co_result_clear(&res);
}

int main(void)
{
    test_trx_lost();
    return TEST_END();
}
