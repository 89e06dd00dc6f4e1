/* gen_seeds: writes seed corpora for the fuzzers (tests/fuzz/meson.build).
 *
 *   gen_seeds msg DIR     encoded messages of every type, populated and
 *                         minimal, plus a version-mismatched HELLO
 *   gen_seeds hist DIR    pr_hist_pack() sparse histograms (msgpack)
 *   gen_seeds hdrlog DIR  HdrHistogram V2 encodings as fuzz_hdrlog reads
 *                         them: a layer byte (0 base64, 1 raw compressed,
 *                         2 uncompressed) then the bytes
 *   gen_seeds plan DIR    PLANs as a coordinator sends them, hash filled,
 *                         for each family, command and partitioning, with
 *                         the options agents parse (fuzz_plan)
 *
 * Every seed is produced by the real encoders, so the corpus follows the
 * formats as they change. Exits 0, or 1 with a message on any failure. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "pr_hdrlog.h"
#include "pr_hist.h"
#include "pr_msg.h"

static const char *out_dir;
static int n_written;

static int write_seed(const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", out_dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "gen_seeds: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    n_written++;
    return 0;
}

/* Four histograms of different shapes: empty, one value, a wide spread and
 * values clamped at both ends. */
static void make_hists(pr_hist *h[4])
{
    for (int i = 0; i < 4; i++)
        h[i] = pr_hist_new();
    pr_hist_record(h[1], 1234, 1);
    for (uint64_t v = 1; v < PR_HIST_MAX_US; v = v * 5 / 4 + 1)
        pr_hist_record(h[2], v, v % 11 + 1);
    pr_hist_record(h[3], 0, 3);
    pr_hist_record(h[3], PR_HIST_MAX_US * 2, 2);
    pr_hist_record(h[3], 500, 1000);
}

static struct pr_msg_opt opts[] = {{(char *)"tables", (char *)"8"},
                                   {(char *)"table-size", (char *)"10000"}};
static struct pr_msg_table tables[] = {{1, 1, 10000, true, true}, {2, 1, 5000, true, false}};
static char *hosts[] = {(char *)"127.0.0.1"};
static uint16_t ports[] = {3306};
static char *socks[] = {(char *)"/tmp/mysql.sock"};
static struct pr_msg_conn seed_conns[] = {{0, 500, 40000}, {1, 20, 39000}};
static struct pr_msg_stat stats[] = {{(char *)"Questions", 42}, {(char *)"Com_select", 40}};

/* READY.env of a lead agent: host facts, the server and a data set. */
static struct pr_msg_opt env_vars[] = {{(char *)"innodb_flush_log_at_trx_commit", (char *)"1"},
                                       {(char *)"log_bin", (char *)"OFF"}};
static struct pr_msg_opt env_unread[] = {
    {(char *)"innodb_redo_log_capacity", (char *)"no such variable on this server"}};
static struct pr_msg_env_table env_tabs[] = {{(char *)"sbtest1", 10000, 2637824, 0}};

static void fill_env(struct pr_msg_env *e)
{
    *e = (struct pr_msg_env){.hostname = (char *)"host1",
                             .kernel = (char *)"Linux 6.1.0 x86_64",
                             .cpu_model = (char *)"AMD EPYC",
                             .cores = 2,
                             .memory_bytes = 4294967296ULL,
                             .connector = (char *)"3.3.8",
                             .version = (char *)"0.1.0",
                             .git_commit = (char *)"fa9fe9e",
                             .unread = env_unread,
                             .n_unread = 1,
                             .has_server = true};
    e->server = (struct pr_msg_env_server){.version = (char *)"10.11.6-MariaDB",
                                           .version_comment = (char *)"Debian 12",
                                           .vars = env_vars,
                                           .n_vars = 2,
                                           .unread = env_unread,
                                           .n_unread = 1,
                                           .schema = (char *)"sbtest",
                                           .tables = env_tabs,
                                           .n_tables = 1,
                                           .table_count = 1,
                                           .rows = 10000,
                                           .data_bytes = 2637824};
}

static void fill_body(struct pr_msg *m, pr_hist *lat, pr_hist *svc)
{
    static char *kind_names[] = {(char *)"point_selects", (char *)"commit"};
    static struct pr_msg_kstat kst[2];
    kst[0] = (struct pr_msg_kstat){.count = 1400, .errors = 2, .lat = lat};
    kst[1] = (struct pr_msg_kstat){.count = 100, .errors = 0, .lat = svc};
    switch (m->type) {
    case PR_MSG_HELLO:
        m->u.hello = (struct pr_msg_hello){(char *)"agent-1", (char *)"0.1.0", 8,
                                           (char *)"host1",   (char *)"eu",    ""};
        memcpy(m->u.hello.pubkey, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", 41);
        break;
    case PR_MSG_PING:
        m->u.ping = (struct pr_msg_ping){3, 123456789};
        break;
    case PR_MSG_PONG:
        m->u.pong = (struct pr_msg_pong){3, 123456789, 987654321};
        break;
    case PR_MSG_PLAN:
        m->u.plan = (struct pr_msg_plan){PR_CMD_PREPARE,
                                         (char *)"oltp_read_only",
                                         opts,
                                         2,
                                         0,
                                         2,
                                         8,
                                         0,
                                         16,
                                         100,
                                         0,
                                         10,
                                         1000,
                                         42,
                                         true,
                                         PR_PART_TABLES,
                                         tables,
                                         2,
                                         hosts,
                                         1,
                                         ports,
                                         1,
                                         socks,
                                         1,
                                         (char *)"sbtest",
                                         (char *)"sbtest",
                                         (char *)"pw",
                                         0xabcdef,
                                         PR_RATE_UNIFORM,
                                         NULL,
                                         0,
                                         NULL,
                                         0,
                                         0,
                                         NULL};
        break;
    case PR_MSG_READY:
        m->u.ready = (struct pr_msg_ready){
            0xabcdef,    120, 8, .srv = stats, .n_srv = 2, .has_db_rtt = true, .kinds = kind_names,
            .n_kinds = 2};
        fill_env(&m->u.ready.env);
        m->u.ready.has_env = true;
        break;
    case PR_MSG_START:
        m->u.start = (struct pr_msg_start){5000000000ULL, 1000};
        break;
    case PR_MSG_STATS:
        m->u.stats = (struct pr_msg_stats){.k = 3,
                                           .lat = lat,
                                           .svc = svc,
                                           .cpu_pct = 55.5,
                                           .lag_max_us = 300,
                                           .lag_p99_us = 40,
                                           .slip_us = 7,
                                           .srv = stats,
                                           .n_srv = 2,
                                           .rows = 250000,
                                           .kst = kst,
                                           .n_kst = 2,
                                           .conns = seed_conns,
                                           .n_conns = 2};
        m->u.stats.ctr.transactions = 100;
        m->u.stats.ctr.reads = 1400;
        break;
    case PR_MSG_DONE:
        m->u.done = (struct pr_msg_done){.lat = lat,
                                         .intervals = 10,
                                         .status = 0,
                                         .reason = (char *)"time limit",
                                         .start_skew_us = -3,
                                         .has_start_skew = true,
                                         .kinds = stats,
                                         .n_kinds = 2,
                                         .rows = 1000000,
                                         .kst = kst,
                                         .n_kst = 2,
                                         .conns = seed_conns,
                                         .n_conns = 2};
        m->u.done.ctr.writes = 77;
        break;
    case PR_MSG_ABORT:
    case PR_MSG_BYE:
        m->u.abort.reason = (char *)"operator";
        break;
    case PR_MSG_HEARTBEAT:
        m->u.heartbeat = (struct pr_msg_heartbeat){PR_STATE_RUNNING, 77};
        break;
    case PR_MSG_ERROR:
        m->u.error = (struct pr_msg_error){-2,      PR_PHASE_CONNECT,        2003,
                                           "HY000", (char *)"Can't connect", (char *)"connect"};
        break;
    default:
        break;
    }
}

static int emit_msg(const struct pr_msg *m, const char *variant)
{
    msgpack_sbuffer sb;
    struct pr_error err;
    char name[64];
    int rc;

    msgpack_sbuffer_init(&sb);
    if ((rc = pr_msg_encode(m, &sb, &err)) < 0) {
        fprintf(stderr, "gen_seeds: encode %s: %s\n", pr_msg_type_name(m->type), err.msg);
    } else {
        snprintf(name, sizeof(name), "msg-%s-%s", pr_msg_type_name(m->type), variant);
        rc = write_seed(name, sb.data, sb.size);
        /* Same message from an old agent, protocol 1: "v" is the first key. */
        if (rc == 0 && m->type == PR_MSG_HELLO && sb.size > 3 && sb.data[3] == PR_PROTO_VERSION) {
            sb.data[3] = 0x01;
            snprintf(name, sizeof(name), "msg-HELLO-%s-v1", variant);
            rc = write_seed(name, sb.data, sb.size);
        }
    }
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

static int gen_msg(pr_hist *h[4])
{
    struct pr_msg m;
    for (int t = PR_MSG_HELLO; t < PR_MSG_TYPE_COUNT_; t++) {
        pr_msg_init(&m, (enum pr_msg_type)t, "run-1", (uint64_t)t);
        fill_body(&m, h[2], h[3]);
        if (emit_msg(&m, "full") < 0)
            return -1;
        pr_msg_init(&m, (enum pr_msg_type)t, NULL, 1);
        if (t == PR_MSG_PLAN) {
            m.u.plan.agent_count = 1;
            m.u.plan.report_ms = 1;
        } else if (t == PR_MSG_START) {
            m.u.start.interval_ms = 1;
        } else if (t == PR_MSG_STATS) {
            m.u.stats.lat = h[0];
        } else if (t == PR_MSG_DONE) {
            m.u.done.lat = h[1];
        }
        if (emit_msg(&m, "min") < 0)
            return -1;
    }
    return 0;
}

/* One PLAN per line: workload, command, partitioning, options. */
static struct pr_msg_opt plan_opts_rw[] = {{(char *)"tables", (char *)"4"},
                                           {(char *)"table-size", (char *)"1000"},
                                           {(char *)"range_selects", (char *)"on"},
                                           {(char *)"rand-type", (char *)"pareto"},
                                           {(char *)"mysql-ignore-errors", (char *)"1213,1020"},
                                           {(char *)"report-checkpoints", (char *)"5,10"}};
static struct pr_msg_opt plan_opts_sb[] = {{(char *)"tables", (char *)"2"},
                                           {(char *)"table_size", (char *)"500"},
                                           {(char *)"mysql-ssl", (char *)"REQUIRED"},
                                           {(char *)"db-ps-mode", (char *)"disable"},
                                           {(char *)"forced-shutdown", (char *)"10%"}};
static struct pr_msg_opt plan_opts_tc[] = {{(char *)"warehouses", (char *)"4"},
                                           {(char *)"mysql-db", (char *)"tpcc"},
                                           {(char *)"mysql-ignore-errors", (char *)"all"}};
/* Shares: agent 1 of 2 (tables 1..2 of 4; rows 1..250 of tables 1..2;
 * warehouses 1..2 of 4). */
static struct pr_msg_table plan_tabs[] = {{1, 1, 1000, true, true}, {2, 1, 1000, true, false}};
static struct pr_msg_table plan_rows[] = {{1, 1, 250, true, true}, {2, 1, 250, false, false}};
static struct pr_msg_table plan_whs[] = {{1, 1, 2, true, true}};
static const struct {
    const char *wl;
    enum pr_plan_cmd cmd;
    enum pr_partition part;
    struct pr_msg_opt *opts;
    uint32_t n_opts;
    struct pr_msg_table *tables;
    uint32_t n_tables;
} plan_seeds[] = {
    {"oltp_read_write", PR_CMD_RUN, PR_PART_TABLES, plan_opts_rw, 6, plan_tabs, 2},
    {"oltp_read_only", PR_CMD_PREPARE, PR_PART_TABLES, plan_opts_rw, 2, plan_tabs, 2},
    {"oltp_point_select", PR_CMD_RUN, PR_PART_ROWS, plan_opts_sb, 5, plan_rows, 2},
    {"oltp_insert", PR_CMD_RUN, PR_PART_NONE, plan_opts_sb, 2, NULL, 0},
    {"bulk_insert", PR_CMD_RUN, PR_PART_NONE, NULL, 0, NULL, 0},
    {"select_random_ranges", PR_CMD_PREWARM, PR_PART_NONE, plan_opts_sb, 2, NULL, 0},
    {"oltp_delete", PR_CMD_CLEANUP, PR_PART_NONE, NULL, 0, NULL, 0},
    {"tpcc", PR_CMD_RUN, PR_PART_WAREHOUSES, plan_opts_tc, 3, plan_whs, 1},
    {"tpcc", PR_CMD_PREPARE, PR_PART_WAREHOUSES, plan_opts_tc, 1, plan_whs, 1},
    {"tpcc", PR_CMD_CHECK, PR_PART_NONE, NULL, 0, NULL, 0},
};

static int gen_plan(void)
{
    for (size_t i = 0; i < sizeof(plan_seeds) / sizeof(plan_seeds[0]); i++) {
        struct pr_msg m;
        char variant[32];
        pr_msg_init(&m, PR_MSG_PLAN, "run-1", 1);
        fill_body(&m, NULL, NULL);
        struct pr_msg_plan *p = &m.u.plan;
        p->workload = (char *)plan_seeds[i].wl;
        p->cmd = plan_seeds[i].cmd;
        p->part = plan_seeds[i].part;
        p->opts = plan_seeds[i].opts;
        p->n_opts = plan_seeds[i].n_opts;
        p->tables = plan_seeds[i].tables;
        p->n_tables = plan_seeds[i].n_tables;
        if (pr_msg_plan_hash(p, &p->plan_hash) < 0)
            return -1;
        snprintf(variant, sizeof(variant), "%s-%zu", plan_seeds[i].wl, i);
        if (emit_msg(&m, variant) < 0)
            return -1;
    }
    return 0;
}

static int gen_hist(pr_hist *h[4])
{
    for (int i = 0; i < 4; i++) {
        msgpack_sbuffer sb;
        msgpack_packer pk;
        char name[32];
        msgpack_sbuffer_init(&sb);
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        int rc = pr_hist_pack(h[i], &pk);
        snprintf(name, sizeof(name), "hist-%d", i);
        if (rc == 0)
            rc = write_seed(name, sb.data, sb.size);
        msgpack_sbuffer_destroy(&sb);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* fuzz_hdrlog reads its first byte as the layer to feed: 0 base64 text,
 * 1 raw V2 compressed bytes, 2 the uncompressed V2 encoding. */
static int write_layer(const char *name, uint8_t layer, const void *data, size_t len)
{
    uint8_t *buf = malloc(len + 1);
    int rc = -1;
    if (buf != NULL) {
        buf[0] = layer;
        memcpy(buf + 1, data, len);
        rc = write_seed(name, buf, len + 1);
    }
    free(buf);
    return rc;
}

/* The zlib stream inside a raw V2 encoding (after cookie and length). */
static int write_inflated(const char *name, const uint8_t *raw, size_t raw_len)
{
    uLongf out_len = 64 + 9 * (uLongf)pr_hist_counts_len();
    uint8_t *out = malloc(out_len);
    int rc = -1;
    if (out != NULL && raw_len > 8 &&
        uncompress(out, &out_len, raw + 8, (uLong)(raw_len - 8)) == Z_OK)
        rc = write_layer(name, 2, out, out_len);
    free(out);
    return rc;
}

static int gen_hdrlog(pr_hist *h[4])
{
    for (int i = 0; i < 4; i++) {
        uint8_t *raw = NULL;
        char *b64 = NULL, name[3][32];
        size_t raw_len = 0, b64_len = 0;
        int rc = pr_hdrlog_encode_raw(h[i], &raw, &raw_len);
        if (rc == 0)
            rc = pr_hdrlog_encode(h[i], &b64, &b64_len);
        snprintf(name[0], sizeof(name[0]), "hdr-b64-%d", i);
        snprintf(name[1], sizeof(name[1]), "hdr-raw-%d", i);
        snprintf(name[2], sizeof(name[2]), "hdr-v2-%d", i);
        if (rc == 0)
            rc = write_layer(name[0], 0, b64, b64_len);
        if (rc == 0)
            rc = write_layer(name[1], 1, raw, raw_len);
        if (rc == 0)
            rc = write_inflated(name[2], raw, raw_len);
        free(raw);
        free(b64);
        if (rc < 0) {
            fprintf(stderr, "gen_seeds: hdrlog seed %d failed (%s)\n", i, pr_strerror(rc));
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    pr_hist *h[4];
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: gen_seeds msg|hist|hdrlog|plan DIR\n");
        return 1;
    }
    out_dir = argv[2];
    make_hists(h);
    if (strcmp(argv[1], "msg") == 0)
        rc = gen_msg(h);
    else if (strcmp(argv[1], "hist") == 0)
        rc = gen_hist(h);
    else if (strcmp(argv[1], "hdrlog") == 0)
        rc = gen_hdrlog(h);
    else if (strcmp(argv[1], "plan") == 0)
        rc = gen_plan();
    else
        rc = -1, fprintf(stderr, "gen_seeds: unknown kind '%s'\n", argv[1]);
    for (int i = 0; i < 4; i++)
        pr_hist_destroy(&h[i]);
    if (rc == 0)
        printf("gen_seeds: %d %s seeds in %s\n", n_written, argv[1], out_dir);
    return rc == 0 ? 0 : 1;
}
