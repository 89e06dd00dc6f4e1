/* test_pr_msg_scrub: no freed PLAN copy still holds the password.
 *
 * Linked with -Wl,--wrap=free, so every free() in proto (and in msgpack's
 * inline sbuffer code) passes through __wrap_free, which looks for the
 * password (and a secret option value) in the block about to be released.
 * A control case frees an unscrubbed copy to show the watch sees it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <malloc.h>

#include "pr_msg.h"
#include "testlib.h"

#define SECRET     "pw-Zq81vXr2LmT0wwkd"
#define SECRET_OPT "opt-Gh47YyqLp9Xa3"

void __real_free(void *p);
void __wrap_free(void *p);

static volatile bool watching; /* volatile: the compiler takes free() for the builtin */
static volatile unsigned frees_seen, leaks_seen;

static bool holds(const unsigned char *p, size_t n, const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp(p + i, s, len) == 0)
            return true;
    return false;
}

void __wrap_free(void *p)
{
    if (watching && p != NULL) {
        size_t n = malloc_usable_size(p);
        frees_seen++;
        if (holds(p, n, SECRET) || holds(p, n, SECRET_OPT))
            leaks_seen++;
    }
    __real_free(p);
}

static void make_plan(struct pr_msg *m, struct pr_msg_opt *opt, struct pr_msg_table *t)
{
    static char *hosts[] = {"127.0.0.1"};
    static uint16_t ports[] = {3306};

    pr_msg_init(m, PR_MSG_PLAN, "run-1", 1);
    struct pr_msg_plan *p = &m->u.plan;
    opt->name = "mysql-password";
    opt->value = SECRET_OPT;
    t->table = 1;
    t->id_lo = 1;
    t->id_hi = 100;
    p->cmd = PR_CMD_RUN;
    p->workload = "oltp_read_write";
    p->opts = opt;
    p->n_opts = 1;
    p->agent_count = 1;
    p->conns = 1;
    p->conns_total = 1;
    p->time_s = 1;
    p->report_ms = 1000;
    p->tables = t;
    p->n_tables = 1;
    p->hosts = hosts;
    p->n_hosts = 1;
    p->ports = ports;
    p->n_ports = 1;
    p->user = "sbtest";
    p->database = "sbtest";
    p->password = SECRET;
}

int main(void)
{
    struct pr_msg plan, decoded;
    struct pr_msg_opt opt = {0};
    struct pr_msg_table table = {0};
    struct pr_error err = {0};
    msgpack_sbuffer sb;

    make_plan(&plan, &opt, &table);
    msgpack_sbuffer_init(&sb);
    int rc = pr_msg_encode(&plan, &sb, &err);
    CHECK_MSG(rc == 0, "encode: %s", err.msg);
    CHECK(rc == 0 && holds((const unsigned char *)sb.data, sb.size, SECRET));
    rc = pr_msg_decode(&decoded, sb.data, sb.size, &err);
    CHECK_MSG(rc == 0, "decode: %s", err.msg);
    CHECK(rc == 0 && decoded.u.plan.password && strcmp(decoded.u.plan.password, SECRET) == 0);

    /* Control: an unscrubbed copy is seen. */
    char *volatile copy = strdup(SECRET); /* volatile: the pair must not be elided */
    watching = true;
    free(copy);
    watching = false;
    CHECK_MSG(leaks_seen == 1 && frees_seen == 1, "control: %u leaks in %u frees", leaks_seen,
              frees_seen);

    frees_seen = leaks_seen = 0;
    watching = true;
    pr_msg_clear(&decoded);
    watching = false;
    CHECK_MSG(frees_seen >= 5, "pr_msg_clear freed %u blocks", frees_seen);
    CHECK_MSG(leaks_seen == 0, "pr_msg_clear freed %u blocks still holding a secret", leaks_seen);

    frees_seen = leaks_seen = 0;
    watching = true;
    pr_msg_sbuffer_scrub(&sb);
    watching = false;
    CHECK_MSG(frees_seen == 1 && leaks_seen == 0,
              "pr_msg_sbuffer_scrub: %u frees, %u holding a secret", frees_seen, leaks_seen);

    uint64_t h = 0;
    frees_seen = leaks_seen = 0;
    watching = true;
    CHECK(pr_msg_plan_hash(&plan.u.plan, &h) == 0 && h != 0);
    watching = false;
    CHECK_MSG(frees_seen >= 1 && leaks_seen == 0, "pr_msg_plan_hash: %u frees, %u leaking",
              frees_seen, leaks_seen);
    return TEST_END();
}
