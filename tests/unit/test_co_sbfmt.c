/* Tests for co_sbfmt. The main checks reproduce sysbench 1.0.20's own
 * output byte for byte: sysbench-samples/plain.out and run.out (copied
 * below without their first line, which is the one we change), from inputs
 * chosen so that every printed figure follows exactly from them (counts,
 * exact min/max/sum, a percentile rank, the histogram rows). The rest checks
 * widths, markers, edge cases and errors. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <regex.h>

#include "co_sbfmt.h"
#include "co_sbfmt_expected.h"
#include "pr_err.h"
#include "testlib.h"

#define VERSION_LINE "stampede " STAMPEDE_VERSION " (sysbench 1.0.20 compatible)\n"

/* Byte-for-byte comparison, reporting the first differing line. */
#define CHECK_TEXT(got, want) check_text(__LINE__, (got), (want))
static void check_text(int line, const char *got, const char *want)
{
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    testlib_checks++;
    if (got[i] == want[i])
        return;
    size_t bol = i;
    while (bol > 0 && want[bol - 1] != '\n')
        bol--;
    testlib_failures++;
    fprintf(stderr, "%s:%d: text differs at byte %zu\n want: %.*s\n  got: %.*s\n", __FILE__, line,
            i, (int)strcspn(want + bol, "\n"), want + bol, (int)strcspn(got + bol, "\n"),
            got + bol);
}

/* The lines joined, each ended by a newline (caller frees). */
static char *join_lines(const char *const *lines, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        abort();
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", lines[i]);
    *p = '\0';
    return s;
}

/* n samples: one at min_us, one at max_us, n_p at p_us and the rest at two
 * adjacent values between min_us and p_us so that the sum is sum_us. */
static pr_hist *make_hist(uint64_t n, uint64_t min_us, uint64_t max_us, uint64_t p_us, uint64_t n_p,
                          uint64_t sum_us)
{
    pr_hist *h = pr_hist_new();
    uint64_t rest_n = n - 2 - n_p;
    uint64_t rest_sum = sum_us - min_us - max_us - n_p * p_us;
    uint64_t base = rest_sum / rest_n;

    CHECK(base > min_us && base + 1 < p_us);
    pr_hist_record(h, min_us, 1);
    pr_hist_record(h, base, rest_n - rest_sum % rest_n);
    pr_hist_record(h, base + 1, rest_sum % rest_n);
    pr_hist_record(h, p_us, n_p);
    pr_hist_record(h, max_us, 1);
    CHECK_EQ_U64(pr_hist_count(h), n);
    CHECK_EQ_U64(pr_hist_sum(h), sum_us);
    return h;
}

static struct pr_counters counters(uint64_t tx, uint64_t r, uint64_t w, uint64_t o)
{
    struct pr_counters c = {0};
    c.transactions = tx;
    c.reads = r;
    c.writes = w;
    c.other = o;
    return c;
}

/* plain.out: header, "Threads started!", final report. 408 events with
 * min 760, max 7610, p95 rank 388 at 2810 (bucket 2810-2811 µs: 2.81) and
 * sum 1001010 µs; rates over 1.0034345 s (sysbench's denominator is taken
 * after "total time", 1.0023 s). */
static char *plain_text(bool strict)
{
    const struct co_sbfmt_opts opts = {.threads = 1, .percentile = 95, .strict = strict};
    pr_hist *h = make_hist(408, 760, 7610, 2810, 20, 1001010);
    const struct co_sbfmt_unit unit = {408, 1001010};
    const struct co_sbfmt_final fin = {
        .counters = counters(408, 5712, 1628, 820),
        .hist = h,
        .total_time_s = 1.0023,
        .rate_time_s = 1.0034345,
        .units = &unit,
        .n_units = 1,
    };
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_header(f, &opts) == 0);
    CHECK(co_sbfmt_started(f) == 0);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    cap_text(&c);
    pr_hist_destroy(&h);
    return c.buf;
}

static void test_plain_out(void)
{
    char *got = plain_text(false);
    CHECK(strncmp(got, VERSION_LINE, strlen(VERSION_LINE)) == 0);
    char *want = join_lines(plain_out, sizeof plain_out / sizeof plain_out[0]);
    CHECK_TEXT(got + strlen(VERSION_LINE), want);
    free(want);
    free(got);
}

/* run.out: two interval lines, the --histogram block and the final report.
 * Interval counts over the actual interval lengths reproduce every rate; the
 * interval percentiles are bucket 3020-3021 and 2610-2611 µs. */
static char *run_text(bool strict, unsigned marks)
{
    const struct co_sbfmt_opts opts = {.threads = 1,
                                       .report_interval_s = 1,
                                       .percentile = 95,
                                       .histogram = true,
                                       .strict = strict};
    pr_hist *h1 = pr_hist_new(), *h2 = pr_hist_new(), *h = pr_hist_new();
    struct co_sbfmt_interval iv1 = {
        .time_s = 1.0012, .interval_s = 1.001207, .threads_running = 1, .hist = h1, .marks = marks};
    struct co_sbfmt_interval iv2 = {
        .time_s = 2.0011, .interval_s = 0.999854, .threads_running = 1, .hist = h2, .marks = marks};
    const struct co_sbfmt_unit unit = {894, 2002046};
    const struct co_sbfmt_final fin = {
        .counters = counters(894, 12516, 3576, 1788),
        .hist = h,
        .total_time_s = 2.0053,
        .rate_time_s = 2.00615,
        .units = &unit,
        .n_units = 1,
    };
    struct cap c;
    FILE *f = cap_open(&c);

    iv1.counters = counters(452, 6340, 1808, 905);
    iv2.counters = counters(441, 6163, 1764, 882);
    pr_hist_record(h1, 3020, 452);
    pr_hist_record(h2, 2610, 441);
    for (size_t i = 0; i < sizeof run_samples / sizeof run_samples[0]; i++)
        pr_hist_record(h, run_samples[i].value_us, run_samples[i].count);
    CHECK(co_sbfmt_header(f, &opts) == 0);
    CHECK(co_sbfmt_started(f) == 0);
    CHECK(co_sbfmt_interval(f, &opts, &iv1) == 0);
    CHECK(co_sbfmt_interval(f, &opts, &iv2) == 0);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    cap_text(&c);
    pr_hist_destroy(&h1);
    pr_hist_destroy(&h2);
    pr_hist_destroy(&h);
    return c.buf;
}

static void test_run_out(void)
{
    char *got = run_text(false, 0);
    CHECK(strncmp(got, VERSION_LINE, strlen(VERSION_LINE)) == 0);
    char *want = join_lines(run_out, sizeof run_out / sizeof run_out[0]);
    CHECK_TEXT(got + strlen(VERSION_LINE), want);
    free(want);
    free(got);
}

/* line with every run of digits replaced by one '9': the line's shape,
 * apart from its numbers. */
static void shape(const char *line, size_t len, char *out, size_t out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < out_len; i++) {
        bool digit = line[i] >= '0' && line[i] <= '9';
        if (!digit || o == 0 || out[o - 1] != '9' || i == 0 || line[i - 1] < '0' ||
            line[i - 1] > '9')
            out[o++] = digit ? '9' : line[i];
    }
    out[o] = '\0';
}

static char *read_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (!buf)
        abort();
    buf[n] = '\0';
    return buf;
}

/* Strict output, line by line against sysbench's own file: the same lines
 * apart from numbers, the same number of them (ending after "Threads
 * fairness"), and a first line of sysbench's "sysbench 1.0.20 (using X)"
 * form naming stampede's version. */
static void check_like_sample(const char *got, const char *sample, const char *what)
{
    static const char banner[] = "sysbench 1.0.20 (using stampede " STAMPEDE_VERSION ")\n";
    CHECK_MSG(strncmp(got, banner, strlen(banner)) == 0, "%s: first line %.60s", what, got);
    CHECK_MSG(strncmp(sample, "sysbench 1.0.20 (using ", 23) == 0, "%s: sample's first line", what);
    const char *g = strchr(got, '\n'), *w = strchr(sample, '\n');
    int line = 1;
    while (g && w && g[1] && w[1]) {
        g++, w++, line++;
        size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
        char gs[512], ws[512];
        shape(g, gl, gs, sizeof gs);
        shape(w, wl, ws, sizeof ws);
        CHECK_MSG(strcmp(gs, ws) == 0, "%s line %d: got '%.*s', sysbench '%.*s'", what, line,
                  (int)gl, g, (int)wl, w);
        g = strchr(g, '\n');
        w = strchr(w, '\n');
    }
    CHECK_MSG(g && w && !g[1] && !w[1], "%s: %d lines, one output ends before the other", what,
              line);
}

/* --report-format=sysbench against the real sysbench's output
 * (tests/unit/sysbench-samples): interval markers dropped, sysbench's
 * banner, nothing after "Threads fairness". */
static void test_strict_samples(const char *dir)
{
    char *plain = read_file(dir, "plain.out"), *run = read_file(dir, "run.out");
    char *got = plain_text(true);
    check_like_sample(got, plain, "plain.out");
    free(got);
    got = run_text(true, CO_SBFMT_LATE | CO_SBFMT_PARTIAL);
    check_like_sample(got, run, "run.out");
    CHECK(strstr(got, "[late]") == NULL && strstr(got, "[partial]") == NULL);
    free(got);
    /* The default keeps its markers. */
    got = run_text(false, CO_SBFMT_LATE | CO_SBFMT_PARTIAL);
    CHECK(strstr(got, "reconn/s: 0.00 [late] [partial]\n") != NULL);
    free(got);
    free(plain);
    free(run);
}

static void test_header_rate_seed(void)
{
    const struct co_sbfmt_opts opts = {
        .threads = 64, .rate = 50, .report_interval_s = 10, .seed = 42, .percentile = 99};
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_header(f, &opts) == 0);
    CHECK_TEXT(cap_text(&c), VERSION_LINE "\n"
                                          "Running the test with following options:\n"
                                          "Number of threads: 64\n"
                                          "Target transaction rate: 50/sec\n"
                                          "Report intermediate results every 10 second(s)\n"
                                          "Initializing random number generator from seed (42).\n"
                                          "\n"
                                          "\n"
                                          "Initializing worker threads...\n"
                                          "\n");
    cap_free(&c);
}

/* --report-checkpoints and --forced-shutdown in the header, and the
 * forced shutdown's line in the report, placed as sysbench 1.0.20 prints
 * them (captured: `sysbench oltp_point_select --time=5 --report-interval=1
 * --report-checkpoints=2,4 --forced-shutdown=1 run`, and a run whose
 * table was locked: `--threads=2 --time=2 --forced-shutdown=1`). */
static void test_checkpoints_forced(void)
{
    const uint32_t cps[] = {2, 4};
    const struct co_sbfmt_opts opts = {.threads = 1,
                                       .report_interval_s = 1,
                                       .percentile = 95,
                                       .checkpoints = cps,
                                       .n_checkpoints = 2,
                                       .forced_shutdown = true,
                                       .forced_shutdown_s = 6};
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_header(f, &opts) == 0);
    CHECK_TEXT(cap_text(&c), VERSION_LINE "\n"
                                          "Running the test with following options:\n"
                                          "Number of threads: 1\n"
                                          "Report intermediate results every 1 second(s)\n"
                                          "Report checkpoint(s) at 2, 4 seconds\n"
                                          "Initializing random number generator from current "
                                          "time\n"
                                          "\n"
                                          "Forcing shutdown in 6 seconds\n"
                                          "\n"
                                          "Initializing worker threads...\n"
                                          "\n");
    cap_free(&c);

    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit units[2] = {{0, 0}};
    const struct co_sbfmt_final fin = {
        .hist = h, .total_time_s = 3.0001, .units = units, .n_units = 2, .unfinished = 2};
    f = cap_open(&c);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    CHECK(strstr(cap_text(&c), "    reconnects:                          0      (0.00 per sec.)\n"
                               "\n"
                               "Number of unfinished transactions on forced shutdown: 2\n"
                               "\n"
                               "General statistics:\n"
                               "    total time:                          3.0001s\n") != NULL);
    cap_free(&c);
    const struct co_sbfmt_final none = {.hist = h, .units = units, .n_units = 2};
    f = cap_open(&c);
    CHECK(co_sbfmt_final(f, &opts, &none) == 0);
    CHECK(strstr(cap_text(&c), "unfinished") == NULL);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* The pattern sysbench parsers use (fields, not end of line). */
#define SB_LINE_RE                                                                                 \
    "^\\[ ([0-9]+)s \\] thds: ([0-9]+) tps: ([0-9.]+) qps: ([0-9.]+) "                             \
    "\\(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\\) lat \\(ms,([0-9]+)%\\): ([0-9.]+) "                \
    "err/s: ([0-9.]+) reconn/s: ([0-9.]+)"

static void test_interval_rate_marks(void)
{
    const struct co_sbfmt_opts opts = {.threads = 64, .rate = 50, .percentile = 99};
    pr_hist *h = pr_hist_new();
    struct co_sbfmt_interval iv = {
        .time_s = 10.4,
        .interval_s = 10.0,
        .threads_running = 64,
        .hist = h,
        .queue_len = 7,
        .concurrency = 3,
        .marks = CO_SBFMT_LATE | CO_SBFMT_PARTIAL,
    };
    struct cap c;
    regex_t re;
    regmatch_t m[12];

    iv.counters = counters(500, 7000, 2000, 1000);
    iv.counters.errors = 3;
    iv.counters.reconnects = 1;
    pr_hist_record(h, 5000, 500); /* bucket 5000-5003 µs */
    FILE *f = cap_open(&c);
    CHECK(co_sbfmt_interval(f, &opts, &iv) == 0);
    const char *got = cap_text(&c);
    CHECK_TEXT(got, "[ 10s ] thds: 64 tps: 50.00 qps: 1000.00 (r/w/o: 700.00/200.00/100.00) "
                    "lat (ms,99%): 5.00 err/s: 0.30 reconn/s: 0.10 [late] [partial]\n"
                    "[ 10s ] queue length: 7, concurrency: 3\n");
    CHECK(regcomp(&re, SB_LINE_RE, REG_EXTENDED | REG_NEWLINE) == 0);
    CHECK(regexec(&re, got, 12, m, 0) == 0);
    CHECK(m[11].rm_eo - m[11].rm_so == 4 && strncmp(got + m[11].rm_so, "0.10", 4) == 0);
    regfree(&re);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* --percentile=0: "disabled" in the final report, 0.00 in interval lines. */
static void test_percentile_disabled(void)
{
    const struct co_sbfmt_opts opts = {.threads = 2};
    pr_hist *h = make_hist(100, 500, 9000, 2000, 5, 150000);
    const struct co_sbfmt_unit units[2] = {{50, 70000}, {50, 80000}};
    const struct co_sbfmt_final fin = {.counters = counters(100, 0, 0, 0),
                                       .hist = h,
                                       .total_time_s = 1,
                                       .units = units,
                                       .n_units = 2};
    struct co_sbfmt_interval iv = {.time_s = 1, .interval_s = 1, .threads_running = 2, .hist = h};
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_interval(f, &opts, &iv) == 0);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    const char *got = cap_text(&c);
    CHECK(strstr(got, " lat (ms,0%): 0.00 err/s: ") != NULL);
    CHECK(strstr(got, "\n         max:                                    9.00\n"
                      "         percentile stats:               disabled\n"
                      "         sum:                                  150.00\n") != NULL);
    CHECK(strstr(got, "th percentile") == NULL);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* Length of the line starting at s, without its newline. */
static size_t line_len(const char *s)
{
    return strcspn(s, "\n");
}

/* Every "Latency (ms)" line is 53 characters; every labelled value of the
 * SQL and General sections starts at column 42. */
static void check_widths(const char *text)
{
    const char *lat = strstr(text, "Latency (ms):\n");
    const char *fair = strstr(text, "Threads fairness:\n");
    CHECK(lat && fair);
    if (!lat || !fair)
        return;
    int n_lat = 0;
    for (const char *l = lat + line_len(lat) + 1; *l != '\n'; l += line_len(l) + 1, n_lat++)
        CHECK_MSG(line_len(l) == 53, "%zu: %.*s", line_len(l), (int)line_len(l), l);
    CHECK(n_lat == 5);
    int n_col = 0;
    for (const char *l = text; l < lat; l += line_len(l) + 1) {
        if (line_len(l) <= 41 || l[line_len(l) - 1] == ':')
            continue; /* section titles */
        n_col++;
        CHECK_MSG(l[40] == ' ' && l[41] != ' ', "%.*s", (int)line_len(l), l);
    }
    CHECK(n_col == 10);
}

static void test_widths(void)
{
    static const uint32_t pcts[] = {1, 50, 95, 99, 100};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit unit = {2001, 0};
    struct co_sbfmt_final fin = {.hist = h, .total_time_s = 86400.5, .units = &unit, .n_units = 1};

    pr_hist_record(h, 1, 1);
    pr_hist_record(h, 1234, 1000);
    pr_hist_record(h, PR_HIST_MAX_US, 1000); /* sum 3.6e9 ms */
    fin.counters = counters(2001, 123456789012ULL, 9, 0);
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        const struct co_sbfmt_opts opts = {.threads = 1, .percentile = pcts[i]};
        struct cap c;
        FILE *f = cap_open(&c);
        CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
        check_widths(cap_text(&c));
        cap_free(&c);
    }
    pr_hist_destroy(&h);
}

/* The 100th percentile is the exact max, not its bucket's top (10007). */
static void test_100th_percentile(void)
{
    const struct co_sbfmt_opts opts = {.threads = 1, .percentile = 100};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit unit = {2, 11001};
    const struct co_sbfmt_final fin = {.counters = counters(2, 0, 0, 0),
                                       .hist = h,
                                       .total_time_s = 1,
                                       .units = &unit,
                                       .n_units = 1};
    struct cap c;
    FILE *f = cap_open(&c);

    pr_hist_record(h, 1000, 1);
    pr_hist_record(h, 10001, 1);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    CHECK(strstr(cap_text(&c), "\n        100th percentile:                       10.00\n") !=
          NULL);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* No events at all, no time elapsed: zeros everywhere, no inf or nan. */
static void test_zero_events(void)
{
    const struct co_sbfmt_opts opts = {.threads = 4, .percentile = 95, .histogram = true};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit units[4] = {{0, 0}};
    const struct co_sbfmt_final fin = {.hist = h, .units = units, .n_units = 4};
    const struct co_sbfmt_interval iv = {.time_s = 0.4, .hist = h};
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_interval(f, &opts, &iv) == 0);
    CHECK_TEXT(cap_text(&c), "[ 0s ] thds: 0 tps: 0.00 qps: 0.00 (r/w/o: 0.00/0.00/0.00) "
                             "lat (ms,95%): 0.00 err/s: 0.00 reconn/s: 0.00\n");
    cap_free(&c);
    f = cap_open(&c);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    CHECK_TEXT(cap_text(&c), "Latency histogram (values are in milliseconds)\n"
                             " \n"
                             "SQL statistics:\n"
                             "    queries performed:\n"
                             "        read:                            0\n"
                             "        write:                           0\n"
                             "        other:                           0\n"
                             "        total:                           0\n"
                             "    transactions:                        0      (0.00 per sec.)\n"
                             "    queries:                             0      (0.00 per sec.)\n"
                             "    ignored errors:                      0      (0.00 per sec.)\n"
                             "    reconnects:                          0      (0.00 per sec.)\n"
                             "\n"
                             "General statistics:\n"
                             "    total time:                          0.0000s\n"
                             "    total number of events:              0\n"
                             "\n"
                             "Latency (ms):\n"
                             "         min:                                    0.00\n"
                             "         avg:                                    0.00\n"
                             "         max:                                    0.00\n"
                             "         95th percentile:                        0.00\n"
                             "         sum:                                    0.00\n"
                             "\n"
                             "Threads fairness:\n"
                             "    events (avg/stddev):           0.0000/0.00\n"
                             "    execution time (avg/stddev):   0.0000/0.00\n"
                             "\n");
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* Counts wider than "%-6" push the rate right, as in sysbench. */
static void test_huge_numbers(void)
{
    const struct co_sbfmt_opts opts = {.threads = 1, .percentile = 95};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit unit = {UINT64_MAX, 0};
    struct co_sbfmt_final fin = {
        .counters = counters(UINT64_MAX, 10000000000000000000ULL, 0, 0),
        .hist = h,
        .total_time_s = 1,
        .units = &unit,
        .n_units = 1,
    };
    struct cap c;
    FILE *f = cap_open(&c);

    fin.counters.errors = 1234567;
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    const char *got = cap_text(&c);
    CHECK(strstr(got, "\n        read:                            10000000000000000000\n"));
    CHECK(strstr(got, "\n    transactions:                        18446744073709551615 "
                      "(18446744073709551616.00 per sec.)\n"));
    CHECK(
        strstr(got, "\n    ignored errors:                      1234567 (1234567.00 per sec.)\n"));
    CHECK(strstr(got, "\n    total number of events:              18446744073709551615\n"));
    CHECK(strstr(got, "\n    events (avg/stddev):           18446744073709551616.0000/0.00\n"));
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* Population standard deviation over the units, events and seconds. */
static void test_fairness(void)
{
    const struct co_sbfmt_opts opts = {.threads = 2, .percentile = 95};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit units[2] = {{100, 1000000}, {300, 3000000}};
    const struct co_sbfmt_final fin = {.counters = counters(400, 0, 0, 0),
                                       .hist = h,
                                       .total_time_s = 10,
                                       .units = units,
                                       .n_units = 2};
    struct cap c;
    FILE *f = cap_open(&c);

    pr_hist_record(h, 10000, 400);
    CHECK(co_sbfmt_final(f, &opts, &fin) == 0);
    CHECK(strstr(cap_text(&c), "Threads fairness:\n"
                               "    events (avg/stddev):           200.0000/100.00\n"
                               "    execution time (avg/stddev):   2.0000/1.00\n\n") != NULL);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* sysbench's bucket index of a value in ms (sb_histogram_update()). */
static size_t sb_index(double ms)
{
    double deduct = log(0.001), mult = 1023 / (log(100000.0) - deduct);
    double i = floor((log(ms) - deduct) * mult + 0.5);
    return i < 0 ? 0 : i > 1023 ? 1023 : (size_t)i;
}

/* The extreme rows, and a histogram with every value 1 µs .. 100 ms: the
 * rows hold every sample, in sysbench's rows, each row's count within
 * one of our buckets (64 µs wide at most here) of sysbench's own count. */
static void test_histogram_block(void)
{
    pr_hist *h = pr_hist_new();
    struct cap c;
    FILE *f = cap_open(&c);

    pr_hist_record(h, 1, 1);
    pr_hist_record(h, PR_HIST_MAX_US, 2);
    CHECK(co_sbfmt_histogram(f, h) == 0);
    CHECK_TEXT(cap_text(&c), "Latency histogram (values are in milliseconds)\n"
                             "       value  ------------- distribution ------------- count\n"
                             "       0.001 |********************                     1\n"
                             "  100000.000 |**************************************** 2\n"
                             " \n");
    cap_free(&c);

    static uint64_t want[1024];
    uint64_t want_rows = 0;
    pr_hist_reset(h);
    for (uint64_t v = 1; v <= 100000; v++) {
        pr_hist_record(h, v, 1);
        want_rows += want[sb_index((double)v / 1000.0)]++ == 0;
    }
    f = cap_open(&c);
    CHECK(co_sbfmt_histogram(f, h) == 0);
    const char *l = strstr(cap_text(&c), "count\n");
    uint64_t total = 0, rows = 0;
    double value, prev = 0;
    unsigned long count;
    /* A row: "%12.3f |", 40 columns of stars then spaces, " ", the count. */
    for (l = l ? l + 6 : ""; line_len(l) > 55 && sscanf(l, "%12lf |", &value) == 1;
         l += line_len(l) + 1) {
        size_t stars = strspn(l + 14, "*");
        CHECK(strspn(l + 14 + stars, " ") == 41 - stars);
        count = strtoul(l + 55, NULL, 10);
        size_t i = sb_index(value);
        uint64_t diff = count > want[i] ? count - want[i] : want[i] - count;
        CHECK_MSG(diff <= 64, "row %.3f: %lu vs sysbench %" PRIu64, value, count, want[i]);
        CHECK(value > prev);
        prev = value;
        total += count;
        rows++;
    }
    CHECK(strcmp(l, " \n") == 0);
    CHECK_EQ_U64(total, 100000);
    CHECK_EQ_U64(rows, want_rows);
    cap_free(&c);
    pr_hist_destroy(&h);
}

/* A bucket of ours that straddles a sysbench boundary goes whole to the
 * row of its midpoint (co_sbfmt.h), whichever of its values was recorded. */
static void test_histogram_midpoint(void)
{
    pr_hist *h = pr_hist_new();
    int lo_apart = 0, hi_apart = 0; /* buckets where lo's or hi's row is not mid's */

    for (uint64_t v = 2048; v < 1000000 && !(lo_apart && hi_apart);
         v = pr_hist_highest_equivalent(v) + 1) {
        uint64_t lo = pr_hist_lowest_equivalent(v), hi = pr_hist_highest_equivalent(v);
        size_t mid = sb_index(((double)lo + (double)hi) / 2000.0);
        bool lo_off = sb_index(lo / 1000.0) != mid, hi_off = sb_index(hi / 1000.0) != mid;
        if ((!lo_off || lo_apart) && (!hi_off || hi_apart))
            continue;
        lo_apart += lo_off;
        hi_apart += hi_off;
        pr_hist_reset(h);
        pr_hist_record(h, lo_off ? lo : hi, 1);
        struct cap c;
        FILE *f = cap_open(&c);
        CHECK(co_sbfmt_histogram(f, h) == 0);
        const char *row = strstr(cap_text(&c), "count\n");
        double value = 0;
        CHECK(row && sscanf(row + 6, "%12lf |", &value) == 1);
        CHECK_MSG(sb_index(value) == mid, "bucket %" PRIu64 "-%" PRIu64 " in row %.3f", lo, hi,
                  value);
        cap_free(&c);
    }
    CHECK(lo_apart && hi_apart);
    pr_hist_destroy(&h);
}

static void test_errors(void)
{
    const struct co_sbfmt_opts opts = {.threads = 1, .percentile = 95};
    const struct co_sbfmt_opts bad_pct = {.threads = 1, .percentile = 101};
    pr_hist *h = pr_hist_new();
    const struct co_sbfmt_unit unit = {0, 0};
    struct co_sbfmt_final fin = {.hist = h, .units = &unit, .n_units = 0};
    struct co_sbfmt_interval iv = {.hist = h};
    struct cap c;
    FILE *f = cap_open(&c);

    CHECK(co_sbfmt_final(f, &opts, &fin) == PR_EINVAL);
    fin.n_units = 1;
    CHECK(co_sbfmt_final(f, &bad_pct, &fin) == PR_EINVAL);
    CHECK(co_sbfmt_header(f, &bad_pct) == PR_EINVAL);
    CHECK(co_sbfmt_interval(f, &bad_pct, &iv) == PR_EINVAL);
    iv.hist = NULL;
    CHECK(co_sbfmt_interval(f, &opts, &iv) == PR_EINVAL);
    CHECK(co_sbfmt_histogram(f, NULL) == PR_EINVAL);
    CHECK(strlen(cap_text(&c)) == 0); /* a failed call writes nothing */
    cap_free(&c);

    FILE *ro = fopen("/dev/null", "r"); /* writes fail: ferror() */
    CHECK(ro != NULL);
    if (ro) {
        CHECK(co_sbfmt_started(ro) == -EIO);
        fclose(ro);
    }
    pr_hist_destroy(&h);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_co_sbfmt SAMPLES_DIR (tests/unit/sysbench-samples)\n");
        return 2;
    }
    test_plain_out();
    test_run_out();
    test_strict_samples(argv[1]);
    test_header_rate_seed();
    test_checkpoints_forced();
    test_interval_rate_marks();
    test_percentile_disabled();
    test_widths();
    test_100th_percentile();
    test_zero_events();
    test_huge_numbers();
    test_fairness();
    test_histogram_block();
    test_histogram_midpoint();
    test_errors();
    return TEST_END();
}
