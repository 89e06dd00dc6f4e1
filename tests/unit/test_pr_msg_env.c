/* test_pr_msg_env: READY.env, the environment map (proto/msg/pr_msg.h).
 *
 * Round trip of a READY with every env fact, the server part and a data
 * set; a READY without env (an older agent) and an env without srv (not
 * the lead); then strict decoding of the nested maps, on hand-packed wire
 * forms that break exactly one thing: a missing key, a wrong type deep in
 * the data set, nil for the optional srv, an unknown key (ignored), and
 * every truncation; and the encoder's limits. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "pr_msg.h"
#include "testlib.h"

static struct pr_msg_opt vars[] = {{(char *)"innodb_flush_log_at_trx_commit", (char *)"2"},
                                   {(char *)"log_bin", (char *)"OFF"}};
static struct pr_msg_opt srv_unread[] = {
    {(char *)"innodb_redo_log_capacity", (char *)"no such variable on this server"}};
static struct pr_msg_opt host_unread[] = {{(char *)"cpu_model", (char *)"no model name"}};
static struct pr_msg_env_table tabs[] = {{(char *)"sbtest1", 10000, 2637824, 0},
                                         {(char *)"sbtest2", 9985, 2637824, 16384}};

static void fill_env(struct pr_msg *m, bool server)
{
    pr_msg_init(m, PR_MSG_READY, "run-1", 3);
    m->u.ready.plan_hash = 42;
    m->u.ready.conns = 4;
    m->u.ready.has_env = true;
    struct pr_msg_env *e = &m->u.ready.env;
    e->hostname = (char *)"db-client-1";
    e->kernel = (char *)"Linux 6.1.0-18-amd64 x86_64";
    e->cpu_model = (char *)"";
    e->cores = 16;
    e->memory_bytes = 67108864000ULL;
    e->connector = (char *)"3.3.8";
    e->version = (char *)"0.1.0";
    e->git_commit = (char *)"fa9fe9e-dirty";
    e->unread = host_unread;
    e->n_unread = 1;
    if (!server)
        return;
    e->has_server = true;
    struct pr_msg_env_server *s = &e->server;
    s->version = (char *)"10.11.6-MariaDB-0+deb12u1";
    s->version_comment = (char *)"Debian 12";
    s->vars = vars;
    s->n_vars = 2;
    s->unread = srv_unread;
    s->n_unread = 1;
    s->schema = (char *)"sbtest";
    s->tables = tabs;
    s->n_tables = 2;
    s->table_count = 3; /* one more than listed: the list may be cut */
    s->rows = 19985 + 7;
    s->data_bytes = 2637824 * 2 + 16384;
    s->index_bytes = 16384;
}

static void check_pairs(const struct pr_msg_opt *a, uint32_t na, const struct pr_msg_opt *b,
                        uint32_t nb)
{
    CHECK_EQ_U64(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        CHECK(strcmp(a[i].name, b[i].name) == 0);
        CHECK(strcmp(a[i].value, b[i].value) == 0);
    }
}

static int encode(const struct pr_msg *m, msgpack_sbuffer *sb)
{
    msgpack_sbuffer_init(sb);
    struct pr_error err = {0};
    int rc = pr_msg_encode(m, sb, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    return rc;
}

static void test_roundtrip(void)
{
    struct pr_msg m, d;
    msgpack_sbuffer sb;
    struct pr_error err = {0};

    fill_env(&m, true);
    if (encode(&m, &sb) != 0)
        return;
    CHECK_MSG(pr_msg_decode(&d, sb.data, sb.size, &err) == 0, "%s", err.msg);
    const struct pr_msg_env *a = &m.u.ready.env, *b = &d.u.ready.env;
    CHECK(d.u.ready.has_env);
    CHECK(strcmp(a->hostname, b->hostname) == 0);
    CHECK(strcmp(a->kernel, b->kernel) == 0);
    CHECK(strcmp(b->cpu_model, "") == 0);
    CHECK_EQ_U64(a->cores, b->cores);
    CHECK_EQ_U64(a->memory_bytes, b->memory_bytes);
    CHECK(strcmp(a->connector, b->connector) == 0);
    CHECK(strcmp(a->version, b->version) == 0);
    CHECK(strcmp(a->git_commit, b->git_commit) == 0);
    check_pairs(a->unread, a->n_unread, b->unread, b->n_unread);
    CHECK(b->has_server);
    const struct pr_msg_env_server *x = &a->server, *y = &b->server;
    CHECK(strcmp(x->version, y->version) == 0);
    CHECK(strcmp(x->version_comment, y->version_comment) == 0);
    check_pairs(x->vars, x->n_vars, y->vars, y->n_vars);
    check_pairs(x->unread, x->n_unread, y->unread, y->n_unread);
    CHECK(strcmp(x->schema, y->schema) == 0);
    CHECK_EQ_U64(x->n_tables, y->n_tables);
    for (uint32_t i = 0; i < x->n_tables && i < y->n_tables; i++) {
        CHECK(strcmp(x->tables[i].name, y->tables[i].name) == 0);
        CHECK_EQ_U64(x->tables[i].rows, y->tables[i].rows);
        CHECK_EQ_U64(x->tables[i].data_bytes, y->tables[i].data_bytes);
        CHECK_EQ_U64(x->tables[i].index_bytes, y->tables[i].index_bytes);
    }
    CHECK_EQ_U64(x->table_count, y->table_count);
    CHECK_EQ_U64(x->rows, y->rows);
    CHECK_EQ_U64(x->data_bytes, y->data_bytes);
    CHECK_EQ_U64(x->index_bytes, y->index_bytes);
    pr_msg_clear(&d);
    pr_msg_clear(&d); /* twice is safe */
    msgpack_sbuffer_destroy(&sb);

    /* Not the lead: no srv on the wire, none decoded. */
    fill_env(&m, false);
    if (encode(&m, &sb) != 0)
        return;
    CHECK_MSG(pr_msg_decode(&d, sb.data, sb.size, &err) == 0, "%s", err.msg);
    CHECK(d.u.ready.has_env && !d.u.ready.env.has_server);
    CHECK(d.u.ready.env.server.version == NULL && d.u.ready.env.server.n_tables == 0);
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);

    /* An older agent: no env at all. */
    fill_env(&m, true);
    m.u.ready.has_env = false;
    if (encode(&m, &sb) != 0)
        return;
    CHECK(memmem(sb.data, sb.size,
                 "\xa3"
                 "env",
                 4) == NULL);
    CHECK_MSG(pr_msg_decode(&d, sb.data, sb.size, &err) == 0, "%s", err.msg);
    CHECK(!d.u.ready.has_env && d.u.ready.env.hostname == NULL);
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- Hand-packed wire forms ----------------------------------------------- */

enum breakage {
    B_NONE,       /* valid */
    B_NO_GIT,     /* env without "git" */
    B_ROWS_STR,   /* env.srv.tabs[1].rows is a string */
    B_SRV_NIL,    /* env.srv is nil */
    B_EXTRA,      /* an unknown key in env and in a table: ignored */
    B_TAB_NO_IDX, /* env.srv.tabs[0] without "idx" */
    B_ENV_ARRAY,  /* env is an array */
    B_VAR_NUM,    /* env.srv.vars[0] value is an integer */
};

static void str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str_with_body(pk, s, strlen(s));
}

static void kv_u(msgpack_packer *pk, const char *k, uint64_t v)
{
    str(pk, k);
    msgpack_pack_uint64(pk, v);
}

static void kv_s(msgpack_packer *pk, const char *k, const char *v)
{
    str(pk, k);
    str(pk, v);
}

static void pack_table(msgpack_packer *pk, const char *name, enum breakage b, int i)
{
    bool no_idx = b == B_TAB_NO_IDX && i == 0, extra = b == B_EXTRA;
    msgpack_pack_map(pk, 4 - no_idx + extra);
    kv_s(pk, "n", name);
    str(pk, "rows");
    if (b == B_ROWS_STR && i == 1)
        str(pk, "10000");
    else
        msgpack_pack_uint64(pk, 10000);
    kv_u(pk, "data", 2637824);
    if (!no_idx)
        kv_u(pk, "idx", 0);
    if (extra)
        kv_s(pk, "future", "ignored");
}

static void pack_srv(msgpack_packer *pk, enum breakage b)
{
    if (b == B_SRV_NIL) {
        msgpack_pack_nil(pk);
        return;
    }
    msgpack_pack_map(pk, 10);
    kv_s(pk, "ver", "10.11.6-MariaDB");
    kv_s(pk, "com", "Debian 12");
    str(pk, "vars");
    msgpack_pack_array(pk, 1);
    msgpack_pack_array(pk, 2);
    str(pk, "sync_binlog");
    if (b == B_VAR_NUM)
        msgpack_pack_uint64(pk, 0);
    else
        str(pk, "0");
    str(pk, "unread");
    msgpack_pack_array(pk, 0);
    kv_s(pk, "schema", "sbtest");
    str(pk, "tabs");
    msgpack_pack_array(pk, 2);
    pack_table(pk, "sbtest1", b, 0);
    pack_table(pk, "sbtest2", b, 1);
    kv_u(pk, "tcount", 2);
    kv_u(pk, "rows", 20000);
    kv_u(pk, "data", 2 * 2637824);
    kv_u(pk, "idx", 0);
}

static void pack_ready(msgpack_sbuffer *sb, enum breakage b)
{
    msgpack_packer pk;
    msgpack_sbuffer_init(sb);
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 7);
    kv_u(&pk, "v", PR_PROTO_VERSION);
    kv_s(&pk, "t", "READY");
    kv_s(&pk, "run", "r");
    kv_u(&pk, "seq", 1);
    kv_u(&pk, "hash", 9);
    kv_u(&pk, "conns", 2);
    str(&pk, "env");
    if (b == B_ENV_ARRAY) {
        msgpack_pack_array(&pk, 0);
        return;
    }
    msgpack_pack_map(&pk, 10 - (b == B_NO_GIT) + (b == B_EXTRA));
    kv_s(&pk, "host", "h1");
    kv_s(&pk, "kern", "Linux 6.1.0 x86_64");
    kv_s(&pk, "cpu", "AMD EPYC");
    kv_u(&pk, "cores", 2);
    kv_u(&pk, "mem", 4096ULL << 20);
    kv_s(&pk, "cc", "3.3.8");
    kv_s(&pk, "ver", "0.1.0");
    if (b != B_NO_GIT)
        kv_s(&pk, "git", "fa9fe9e");
    str(&pk, "unread");
    msgpack_pack_array(&pk, 0);
    str(&pk, "srv");
    pack_srv(&pk, b);
    if (b == B_EXTRA)
        kv_u(&pk, "gpu", 1);
}

static void expect(enum breakage b, int code, const char *path)
{
    msgpack_sbuffer sb;
    struct pr_msg d;
    struct pr_error err = {0};

    pack_ready(&sb, b);
    int rc = pr_msg_decode(&d, sb.data, sb.size, &err);
    CHECK_MSG(rc == code, "breakage %d: got %d (%s), want %d", (int)b, rc, err.msg, code);
    if (path != NULL)
        CHECK_MSG(strstr(err.msg, path) != NULL, "breakage %d: '%s' does not name %s", (int)b,
                  err.msg, path);
    if (rc == 0) {
        CHECK(d.u.ready.has_env && d.u.ready.env.has_server);
        CHECK_EQ_U64(d.u.ready.env.server.n_tables, 2);
        CHECK_EQ_U64(d.u.ready.env.server.tables[1].rows, 10000);
        CHECK(strcmp(d.u.ready.env.git_commit, "fa9fe9e") == 0);
    }
    pr_msg_clear(&d);
    msgpack_sbuffer_destroy(&sb);
}

static void test_strict(void)
{
    expect(B_NONE, 0, NULL);
    expect(B_EXTRA, 0, NULL);
    expect(B_NO_GIT, PR_EMISSING_KEY, "READY.env");
    expect(B_NO_GIT, PR_EMISSING_KEY, "git");
    expect(B_ROWS_STR, PR_EBAD_TYPE, "READY.env.srv.tabs[1].rows");
    expect(B_SRV_NIL, PR_EBAD_TYPE, "READY.env.srv");
    expect(B_TAB_NO_IDX, PR_EMISSING_KEY, "READY.env.srv.tabs[0]");
    expect(B_ENV_ARRAY, PR_EBAD_TYPE, "READY.env");
    expect(B_VAR_NUM, PR_EBAD_TYPE, "READY.env.srv.vars[0]");
}

/* Every cut of a valid env message is refused, without a crash or leak. */
static void test_truncation(void)
{
    msgpack_sbuffer sb;
    struct pr_msg d;
    struct pr_error err = {0};
    int refused = 0;

    pack_ready(&sb, B_NONE);
    for (size_t n = 0; n < sb.size; n++) {
        refused += pr_msg_decode(&d, sb.data, n, &err) < 0;
        pr_msg_clear(&d);
    }
    CHECK_EQ_U64(refused, sb.size);
    msgpack_sbuffer_destroy(&sb);
}

/* The encoder keeps the decoder's limits. */
static void test_limits(void)
{
    struct pr_msg m;
    msgpack_sbuffer sb;
    struct pr_error err = {0};
    char long_cpu[PR_MSG_HOST_MAX + 2];

    fill_env(&m, true);
    memset(long_cpu, 'x', sizeof(long_cpu) - 1);
    long_cpu[sizeof(long_cpu) - 1] = '\0';
    m.u.ready.env.cpu_model = long_cpu;
    msgpack_sbuffer_init(&sb);
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ETOO_BIG);
    CHECK_MSG(strstr(err.msg, "READY.env.cpu") != NULL, "%s", err.msg);
    CHECK_EQ_U64(sb.size, 0);

    fill_env(&m, true);
    struct pr_msg_env_table *many = calloc(PR_MSG_MAX_ENV_TABS + 1, sizeof(*many));
    for (uint32_t i = 0; i <= PR_MSG_MAX_ENV_TABS; i++)
        many[i].name = (char *)"t";
    m.u.ready.env.server.tables = many;
    m.u.ready.env.server.n_tables = PR_MSG_MAX_ENV_TABS + 1;
    CHECK(pr_msg_encode(&m, &sb, &err) == PR_ETOO_BIG);
    CHECK_MSG(strstr(err.msg, "READY.env.srv.tabs") != NULL, "%s", err.msg);
    m.u.ready.env.server.n_tables = PR_MSG_MAX_ENV_TABS; /* at the limit: fine */
    CHECK_MSG(pr_msg_encode(&m, &sb, &err) == 0, "%s", err.msg);
    free(many);
    msgpack_sbuffer_destroy(&sb);
}

int main(void)
{
    test_roundtrip();
    test_strict();
    test_truncation();
    test_limits();
    return TEST_END();
}
