/* test_co_prom: the --prometheus endpoint (and proto's pr_prom under it,
 * which the agent's endpoint shares) over a real loopback socket:
 * bucket bounds, what a scrape shows before and after a publish, the
 * histogram's cumulative buckets against the samples recorded, label
 * escaping, 404 and 405, and the address errors. */
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "co_prom.h"
#include "testlib.h"

/* A free loopback port (bound, read, closed). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd);
    return ntohs(sa.sin_port);
}

/* The whole HTTP/1.0 response to "METHOD PATH", malloc'ed ("" on error). */
static char *http(int port, const char *method, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    size_t cap = 1 << 16, len = 0;
    char *buf = calloc(1, cap);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        char req[256];
        int n = snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: x\r\n\r\n", method, path);
        if (write(fd, req, (size_t)n) == n) {
            ssize_t got;
            while ((got = read(fd, buf + len, cap - len - 1)) > 0) {
                len += (size_t)got;
                if (cap - len < 4096)
                    buf = realloc(buf, cap *= 2);
            }
        }
    }
    buf[len] = '\0';
    close(fd);
    return buf;
}

/* The value of the sample line starting with series + " ", or -1. */
static double sample(const char *body, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, series, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
    return -1;
}

static void test_bounds(void)
{
    uint64_t b[CO_PROM_MAX_BUCKETS];
    uint32_t n = pr__prom_bounds(b);
    printf("# %u bucket bounds, %llu us .. %llu us\n", n, (unsigned long long)b[0],
           (unsigned long long)b[n - 1]);
    CHECK(n > 100 && n <= CO_PROM_MAX_BUCKETS);
    CHECK_EQ_U64(b[0], CO_PROM_BUCKET_FIRST_US);
    CHECK_EQ_U64(b[n - 1], CO_PROM_BUCKET_LAST_US);
    bool steps = true;
    for (uint32_t i = 1; i < n; i++)
        steps = steps && b[i] > b[i - 1] && (double)b[i] <= (double)b[i - 1] * 1.1 + 1.0;
    CHECK_MSG(steps, "each bound above the previous, at most 10%% (+1 us) above");
}

static void test_scrape(void)
{
    int port = free_port();
    char addr[32];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
    const char *names[2] = {"a\"b\\c\nd", "two"};
    struct co_prom_info info = {"oltp_read_write", "run", "abc-1", "0.1.0", NULL};
    struct pr_error err = {0};
    co_prom *p = co_prom_start(addr, &info, 2, names, &err);
    CHECK_MSG(p != NULL, "start on %s: %s", addr, err.msg);
    if (p == NULL)
        return;
    co_prom *again = co_prom_start(addr, &info, 2, names, &err);
    CHECK_MSG(again == NULL && strstr(err.msg, "cannot listen") != NULL, "port in use: %s",
              err.msg);

    struct pr_msg_stats st = {.k = 0, .cpu_pct = 50.0, .lag_max_us = 2000};
    st.ctr.transactions = 10;
    st.ctr.reads = 140;
    st.ctr.rolled_back = 3; /* the outcomes (PR_COUNTERS_OPT_FIELDS) */
    st.ctr.failed = 1;
    st.lat = pr_hist_new();
    for (uint64_t v = 10; v <= 1000000; v *= 10) /* 10 us .. 1 s, 2 samples each */
        pr_hist_record(st.lat, v, 2);
    co_prom_add_stats(p, 0, &st);
    char *body = http(port, "GET", "/metrics");
    CHECK_MSG(strstr(body, "200 OK") && sample(body, "stampede_transactions_total") == 0,
              "before a publish the scrape shows zero: %.300s", body);
    free(body);

    /* agent 1's STATS as pr_msg_decode leaves it: the latency frozen */
    struct pr_msg_stats st1 = st;
    st1.lat = NULL;
    st1.lat_frozen = pr_hist_freeze(st.lat);
    st1.ctr.rolled_back = 4;
    st1.ctr.failed = 0;
    co_prom_add_stats(p, 1, &st1);
    pr_hist_frozen_destroy(&st1.lat_frozen);
    co_prom_agent_state(p, 1, false, -1500000);
    co_prom_publish(p);
    body = http(port, "GET", "/metrics");
    CHECK(sample(body, "stampede_transactions_total") == 20);
    CHECK(sample(body, "stampede_queries_total{type=\"read\"}") == 280);
    CHECK(sample(body, "stampede_latency_seconds_count{kind=\"all\"}") == 24);
    /* Bounds 0.000050, ..., cumulative: 10 us in the first, 100 us by the
     * first bound at or above 100 us, and so on. */
    CHECK(sample(body, "stampede_latency_seconds_bucket{kind=\"all\",le=\"0.000050\"}") == 4);
    CHECK(sample(body, "stampede_latency_seconds_bucket{kind=\"all\",le=\"60.000000\"}") == 24);
    CHECK(sample(body, "stampede_latency_seconds_bucket{kind=\"all\",le=\"+Inf\"}") == 24);
    double sum = sample(body, "stampede_latency_seconds_sum{kind=\"all\"}");
    CHECK_MSG(sum > 4.44443 && sum < 4.44445, "sum %.6f s (2 agents x 2 x 1.11111 s)", sum);
    CHECK(sample(body, "stampede_agent_transactions_total{agent=\"a\\\"b\\\\c\\nd\"}") == 10);
    CHECK(sample(body, "stampede_agent_up{agent=\"two\"}") == 0);
    CHECK(sample(body, "stampede_agent_up{agent=\"a\\\"b\\\\c\\nd\"}") == 1);
    CHECK(sample(body, "stampede_agent_clock_offset_seconds{agent=\"two\"}") == -0.0015);
    CHECK(sample(body, "stampede_agent_cpu_ratio{agent=\"two\"}") == 0.5);
    CHECK(sample(body, "stampede_rolled_back_total") == 7);
    CHECK(sample(body, "stampede_failed_total") == 1);
    CHECK(sample(body, "stampede_agent_rolled_back_total{agent=\"two\"}") == 4);
    CHECK(sample(body, "stampede_agent_failed_total{agent=\"a\\\"b\\\\c\\nd\"}") == 1);
    CHECK(sample(body, "stampede_agent_failed_total{agent=\"two\"}") == 0);
    CHECK(strstr(body, "# TYPE stampede_rolled_back_total counter\n") != NULL &&
          strstr(body, "# TYPE stampede_agent_failed_total counter\n") != NULL);
    CHECK(strstr(body, "stampede_run_info{workload=\"oltp_read_write\",command=\"run\","
                       "run_id=\"abc-1\",version=\"0.1.0\"} 1\n") != NULL);
    CHECK(strstr(body, "Content-Type: text/plain; version=0.0.4") != NULL);
    free(body);
    body = http(port, "GET", "/");
    CHECK_MSG(strstr(body, " 404 ") != NULL, "GET /: %.80s", body);
    free(body);
    body = http(port, "POST", "/metrics");
    CHECK_MSG(strstr(body, " 405 ") != NULL, "POST /metrics: %.80s", body);
    free(body);
    pr_hist_destroy(&st.lat);
    co_prom_stop(&p);
    CHECK(p == NULL);
}

/* Per-kind series: none before the kinds are known, then one histogram
 * series and counters per kind, merged over agents; a STATS without kst
 * adds to "all" only. */
static void test_kinds(void)
{
    int port = free_port();
    char addr[32];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
    const char *names[2] = {"one", "two"};
    struct co_prom_info info = {"tpcc", "run", "abc-2", "0.1.0", NULL};
    struct pr_error err = {0};
    co_prom *p = co_prom_start(addr, &info, 2, names, &err);
    CHECK_MSG(p != NULL, "start on %s: %s", addr, err.msg);
    if (p == NULL)
        return;
    co_prom_publish(p);
    char *body = http(port, "GET", "/metrics");
    CHECK_MSG(strstr(body, "stampede_kind_count_total") == NULL &&
                  strstr(body, "kind=\"new_order\"") == NULL,
              "no kind series before the kinds: %.300s", body);
    free(body);

    char *kinds[2] = {"new_order", "payment"};
    co_prom_set_kinds(p, kinds, 2);
    char *other[1] = {"x"};
    co_prom_set_kinds(p, other, 1); /* ignored: once per run */
    struct pr_msg_kstat kst[2] = {{.count = 3, .errors = 1, .lat = pr_hist_new()},
                                  {.count = 5, .errors = 0, .lat = pr_hist_new()}};
    pr_hist_record(kst[0].lat, 40, 3);      /* 40 us: first bucket */
    pr_hist_record(kst[1].lat, 2000000, 5); /* 2 s */
    struct pr_msg_stats st = {.kst = kst, .n_kst = 2, .lat = pr_hist_new()};
    pr_hist_record(st.lat, 1000, 8);
    co_prom_add_stats(p, 0, &st);
    /* agent 1's kinds as pr_msg_decode() leaves them: frozen, lat NULL */
    struct pr_msg_kstat kfz[2] = {
        {.count = 3, .errors = 1, .lat_frozen = pr_hist_freeze(kst[0].lat)},
        {.count = 5, .errors = 0, .lat_frozen = pr_hist_freeze(kst[1].lat)}};
    st.kst = kfz;
    co_prom_add_stats(p, 1, &st);
    pr_hist_frozen_destroy(&kfz[0].lat_frozen);
    pr_hist_frozen_destroy(&kfz[1].lat_frozen);
    st.kst = kst;
    st.n_kst = 0; /* an agent without kinds: "all" only */
    co_prom_add_stats(p, 1, &st);
    co_prom_publish(p);
    body = http(port, "GET", "/metrics");
    CHECK(sample(body, "stampede_latency_seconds_count{kind=\"all\"}") == 24);
    CHECK(sample(body, "stampede_kind_latency_seconds_count{kind=\"new_order\"}") == 6);
    CHECK(sample(body, "stampede_kind_latency_seconds_count{kind=\"payment\"}") == 10);
    CHECK(sample(body,
                 "stampede_kind_latency_seconds_bucket{kind=\"new_order\",le=\"0.000050\"}") == 6);
    CHECK(sample(body, "stampede_kind_latency_seconds_bucket{kind=\"payment\",le=\"0.000050\"}") ==
          0);
    CHECK(sample(body, "stampede_kind_latency_seconds_bucket{kind=\"payment\",le=\"+Inf\"}") == 10);
    double sum = sample(body, "stampede_kind_latency_seconds_sum{kind=\"payment\"}");
    CHECK_MSG(sum > 19.9 && sum < 20.1, "payment sum %.6f s (10 x 2 s)", sum);
    CHECK(sample(body, "stampede_kind_count_total{kind=\"new_order\"}") == 6);
    CHECK(sample(body, "stampede_kind_count_total{kind=\"payment\"}") == 10);
    CHECK(sample(body, "stampede_kind_errors_total{kind=\"new_order\"}") == 2);
    CHECK(sample(body, "stampede_kind_errors_total{kind=\"payment\"}") == 0);
    CHECK(strstr(body, "kind=\"x\"") == NULL);
    CHECK_MSG(strstr(body, "stampede_latency_seconds_bucket{kind=\"new_order\"") == NULL,
              "kinds are not in the transactions' family (a sum over kind stays right)");
    CHECK(strstr(body, "# TYPE stampede_kind_latency_seconds histogram\n") != NULL);
    free(body);
    pr_hist_destroy(&st.lat);
    pr_hist_destroy(&kst[0].lat);
    pr_hist_destroy(&kst[1].lat);
    co_prom_stop(&p);
}

/* pr_prom_new_run (an agent's endpoint across runs): the counters and
 * histograms back to 0, the kinds forgotten and settable again, the new
 * run info, "what" naming the setting in errors. */
static void test_new_run(void)
{
    int port = free_port();
    char addr[32];
    snprintf(addr, sizeof(addr), ":%d", port); /* a port alone: loopback */
    const char *names[1] = {"me"};
    struct pr_prom_info info = {"oltp_read_only", "run", "run-1", "0.1.0", NULL};
    struct pr_error err = {0};
    pr_prom *p = pr_prom_start(addr, "prometheus (agent.conf)", &info, 1, names, &err);
    CHECK_MSG(p != NULL, "start on %s: %s", addr, err.msg);
    if (p == NULL)
        return;
    char *k1[1] = {"point_select"};
    pr_prom_set_kinds(p, k1, 1);
    struct pr_msg_kstat kst[1] = {{.count = 4, .lat = pr_hist_new()}};
    pr_hist_record(kst[0].lat, 900, 4);
    struct pr_msg_stats st = {.kst = kst, .n_kst = 1, .lat = pr_hist_new()};
    st.ctr.transactions = 4;
    pr_hist_record(st.lat, 1000, 4);
    pr_prom_add_stats(p, 0, &st);
    pr_prom_publish(p);
    char *body = http(port, "GET", "/metrics");
    CHECK(sample(body, "stampede_transactions_total") == 4);
    CHECK(sample(body, "stampede_kind_count_total{kind=\"point_select\"}") == 4);
    free(body);

    struct pr_prom_info info2 = {"tpcc", "run", "run-2", "0.1.0", NULL};
    pr_prom_new_run(p, &info2);
    pr_prom_publish(p);
    body = http(port, "GET", "/metrics");
    CHECK_MSG(sample(body, "stampede_transactions_total") == 0 &&
                  sample(body, "stampede_latency_seconds_count{kind=\"all\"}") == 0 &&
                  sample(body, "stampede_agent_transactions_total{agent=\"me\"}") == 0 &&
                  strstr(body, "point_select") == NULL && strstr(body, "run_id=\"run-2\"") &&
                  strstr(body, "workload=\"tpcc\""),
              "after a new run: %.400s", body);
    free(body);
    char *k2[1] = {"new_order"};
    pr_prom_set_kinds(p, k2, 1);
    pr_prom_add_stats(p, 0, &st);
    pr_prom_publish(p);
    body = http(port, "GET", "/metrics");
    CHECK(sample(body, "stampede_transactions_total") == 4);
    CHECK(sample(body, "stampede_kind_count_total{kind=\"new_order\"}") == 4);
    free(body);
    pr_prom *again = pr_prom_start(addr, "prometheus (agent.conf)", &info, 1, names, &err);
    CHECK_MSG(again == NULL && strstr(err.msg, "prometheus (agent.conf): cannot listen"),
              "a taken port: %s", err.msg);
    pr_hist_destroy(&st.lat);
    pr_hist_destroy(&kst[0].lat);
    pr_prom_stop(&p);
}

static void test_bad_addresses(void)
{
    const char *bad[] = {"9464",           "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:70000",
                         "localhost:9464", "1.2.3:9464"};
    struct co_prom_info info = {0};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct pr_error err = {0};
        co_prom *p = co_prom_start(bad[i], &info, 0, NULL, &err);
        CHECK_MSG(p == NULL && strstr(err.msg, "--prometheus") != NULL, "%s: %s", bad[i], err.msg);
        co_prom_stop(&p);
    }
}

/* A GET with a 100 KB header (over libmicrohttpd's limit): what reaches
 * stderr, read back from a temporary file in its place. */
static char *stderr_of_big_header(const char *log_prefix)
{
    int port = free_port();
    char addr[32];
    snprintf(addr, sizeof(addr), ":%d", port);
    const char *names[1] = {"me"};
    struct pr_prom_info info = {"oltp_read_only", "run", "run-1", "0.1.0", log_prefix};
    struct pr_error err = {0};
    char path[] = "/tmp/stampede-prom-stderr-XXXXXX";
    int tmp = mkstemp(path), saved = dup(STDERR_FILENO);
    fflush(stderr);
    dup2(tmp, STDERR_FILENO);
    pr_prom *p = pr_prom_start(addr, "--prometheus", &info, 1, names, &err);
    if (p != NULL) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            size_t big = 100 * 1024;
            char *req = malloc(big + 128);
            int n = snprintf(req, 128, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
            memset(req + n, 'a', big);
            memcpy(req + n + big, "\r\n\r\n", 4);
            ssize_t w = write(fd, req, (size_t)n + big + 4);
            (void)w;
            char buf[4096];
            while (read(fd, buf, sizeof buf) > 0)
                ;
            free(req);
        }
        close(fd);
        pr_prom_stop(&p);
    }
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    CHECK_MSG(p == NULL, "%s", err.msg); /* stopped */
    char *text = calloc(1, 4096);
    ssize_t got = pread(tmp, text, 4095, 0);
    (void)got;
    close(tmp);
    unlink(path);
    return text;
}

/* libmicrohttpd's own messages stay off stderr unless asked for (they were
 * printed on a successful run: issue 27 §4). */
static void test_mhd_log(void)
{
    char *quiet = stderr_of_big_header(NULL);
    CHECK_MSG(quiet[0] == '\0', "nothing on stderr without a log prefix, got: %s", quiet);
    char *loud = stderr_of_big_header("stampede:");
    CHECK_MSG(strncmp(loud, "stampede: prometheus endpoint: ", 31) == 0,
              "the message after the prefix when asked for, got: %s", loud);
    printf("# libmicrohttpd said: %s", loud);
    free(quiet);
    free(loud);
}

int main(void)
{
    test_bounds();
    test_mhd_log();
    test_scrape();
    test_kinds();
    test_new_run();
    test_bad_addresses();
    return TEST_END();
}
