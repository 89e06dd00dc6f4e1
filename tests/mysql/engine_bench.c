/* engine_bench: drive a workload through ag_engine and print throughput and
 * client CPU, for side-by-side runs with sysbench on the same server (not a
 * test; a measuring tool). Server from STAMPEDE_TEST_MYSQL_*.
 *
 *   engine_bench WORKLOAD CONNS SECONDS [auto|disable] [WORKERS] [TABLES] [TABLE_SIZE] [RATE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <uv.h>

#include "ag_engine.h"
#include "ag_sb_family.h"
#include "ag_sb_workload.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr,
                "usage: %s WORKLOAD CONNS SECONDS [auto|disable] [WORKERS] [TABLES] "
                "[TABLE_SIZE] [RATE]\n",
                argv[0]);
        return 2;
    }
    const char *host = getenv("STAMPEDE_TEST_MYSQL_HOST");
    const char *port_s = getenv("STAMPEDE_TEST_MYSQL_PORT");
    if (!host || !port_s) {
        fprintf(stderr, "STAMPEDE_TEST_MYSQL_* not set\n");
        return 77;
    }
    struct ag_kv kv[] = {{"db-ps-mode", argc > 4 ? argv[4] : "auto"},
                         {"tables", argc > 6 ? argv[6] : "1"},
                         {"table_size", argc > 7 ? argv[7] : "10000"}};
    struct pr_error perr = {0};
    ag_sb_workload *wl = ag_sb_workload_new(&ag_sb_family, argv[1], kv, 3, &perr);
    if (!wl) {
        fprintf(stderr, "%s\n", perr.msg);
        return 1;
    }
    const char *hosts[] = {host};
    uint16_t ports[] = {(uint16_t)atoi(port_s)};
    struct ag_engine_config cfg = {
        .wl = ag_sb_workload_wl(wl),
        .hosts = hosts,
        .nhosts = 1,
        .ports = ports,
        .nports = 1,
        .user = getenv("STAMPEDE_TEST_MYSQL_USER"),
        .password = getenv("STAMPEDE_TEST_MYSQL_PASSWORD"),
        .db = getenv("STAMPEDE_TEST_MYSQL_DB"),
        .conns = (uint32_t)atoi(argv[2]),
        .time_ms = (uint64_t)(atof(argv[3]) * 1000),
        .workers = argc > 5 ? (uint32_t)atoi(argv[5]) : 0,
        .seed = 1,
        .rate = argc > 8 ? atof(argv[8]) : 0,
    };
    ag_engine *e = ag_engine_new(&cfg, &perr);
    struct ag_engine_error err;
    if (!e || ag_engine_setup(e, &err)) {
        fprintf(stderr, "setup: %u %s\n", err.err_no, err.msg);
        return 1;
    }
    struct ag_engine_stats iv = {.lat = pr_hist_new()}, tot = {.lat = pr_hist_new()};
    ag_engine_start(e, uv_hrtime());
    uint64_t lag_max = 0;
    while (!ag_engine_wait(e, 1000)) {
        ag_engine_collect(e, &iv);
        if (iv.lag_max_us > lag_max)
            lag_max = iv.lag_max_us;
        if (getenv("BENCH_VERBOSE"))
            printf("  interval: %" PRIu64 " q, cpu %.0f%%, lag max %" PRIu64 " us p99 %" PRIu64
                   " us\n",
                   pr_counters_queries(&iv.ctr), iv.cpu_pct, iv.lag_max_us, iv.lag_p99_us);
    }
    ag_engine_totals(e, &tot);
    double secs = (double)tot.span_ns / 1e9;
    printf("%s conns=%s: %.0f tps %.0f qps, err %" PRIu64 ", p95 %.2f ms, client CPU %.0f%% "
           "(%.1f us CPU/query), loop lag max %.1f ms\n",
           argv[1], argv[2], (double)tot.ctr.transactions / secs,
           (double)pr_counters_queries(&tot.ctr) / secs, tot.ctr.errors,
           (double)pr_hist_value_at_percentile(tot.lat, 95) / 1000.0, tot.cpu_pct,
           tot.cpu_pct / 100.0 * secs * 1e6 / (double)pr_counters_queries(&tot.ctr),
           (double)(lag_max > tot.lag_max_us ? lag_max : tot.lag_max_us) / 1000.0);
    pr_hist_destroy(&iv.lat);
    pr_hist_destroy(&tot.lat);
    ag_engine_destroy(&e);
    ag_sb_workload_destroy(&wl);
    return 0;
}
