/* co_tc_compat: tpcc_load / tpcc_start command lines. See co_tc_compat.h. */
#include "co_tc_compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pwd.h>
#include <unistd.h>

#include "pr_tc_opts.h"

#define MAX_WORDS 4096

/* How one tpcc-mysql option's value is taken. */
enum kind {
    K_TEXT,   /* any non-empty text */
    K_ANY,    /* any text, empty too (-p) */
    K_HOST,   /* a host; "l" is localhost */
    K_UINT,   /* a decimal in lo..hi */
    K_PART,   /* tpcc_load -l: 1..4 */
    K_LIMIT,  /* tpcc_start -0..-4: one of --rt-limits */
    K_REFUSE, /* not supported yet: why says so */
};

/* One option of tpcc_load's or tpcc_start's getopt string. */
struct copt {
    char c;           /* the letter */
    enum kind kind;   /* how its value is read */
    const char *to;   /* the tpcc family's option, or NULL */
    unsigned lo, hi;  /* K_UINT's range */
    const char *what; /* what it is, for messages; K_REFUSE: the reason */
};

/* The rows both commands share: the connection and -w, first in each
 * table. */
/* clang-format off */
#define CONN_COPTS                                             \
    {'h', K_HOST, "mysql-host", 0, 0, "server host"},          \
    {'P', K_UINT, "mysql-port", 1, 65535, "port"},             \
    {'d', K_TEXT, "mysql-db", 0, 0, "database"},               \
    {'u', K_TEXT, "mysql-user", 0, 0, "user"},                 \
    {'p', K_ANY, "mysql-password", 0, 0, "password"},          \
    {'w', K_UINT, "warehouses", 1, 32767, "warehouses"}
/* clang-format on */

static const struct copt load_opts[] = {
    CONN_COPTS,
    {'l', K_PART, "load-parts", 1, 4, "part (1=ITEMS 2=WAREHOUSE 3=CUSTOMER 4=ORDERS)"},
    {'m', K_UINT, "warehouse-first", 1, 32767, "first warehouse"},
    {'n', K_UINT, "warehouse-last", 1, 32767, "last warehouse"},
    {0, K_TEXT, NULL, 0, 0, NULL},
};

static const struct copt start_opts[] = {
    CONN_COPTS,
    {'c', K_UINT, "threads", 1, 1000000, "connections"},
    {'r', K_UINT, "warmup-time", 0, 86400, "ramp-up seconds"},
    {'l', K_UINT, "time", 1, 31536000, "measure seconds"},
    {'i', K_UINT, "report-interval", 1, 86400, "report interval seconds"},
    {'S', K_TEXT, "mysql-socket", 0, 0, "Unix socket path"},
    {'0', K_LIMIT, NULL, 0, 86400000, "New-Order response-time limit (ms)"},
    {'1', K_LIMIT, NULL, 0, 86400000, "Payment response-time limit (ms)"},
    {'2', K_LIMIT, NULL, 0, 86400000, "Order-Status response-time limit (ms)"},
    {'3', K_LIMIT, NULL, 0, 86400000, "Delivery response-time limit (ms)"},
    {'4', K_LIMIT, NULL, 0, 86400000, "Stock-Level response-time limit (ms)"},
    {'f', K_TEXT, "report-file", 0, 0, "report file (a line per New-Order)"},
    {'t', K_TEXT, "trx-file", 0, 0, "trx file (a line per New-Order commit)"},
    {'m', K_UINT, "multi-schema", 0, PR_TC_MAX_SCHEMAS, "number of schemas"},
    {'o', K_UINT, "multi-schema-offset", 0, PR_TC_MAX_SCHEMA_OFFSET, "first schema's number"},
    {0, K_TEXT, NULL, 0, 0, NULL},
};

static const char load_usage[] =
    "Usage: stampede tpcc_load -h server_host -P port -d database_name -u mysql_user\n"
    "                          -p mysql_password -w warehouses [-l part -m min_wh -n max_wh]\n"
    "                          [stampede options: --agents=N --threads=N --json=FILE ...]\n"
    "* [part]: 1=ITEMS 2=WAREHOUSE 3=CUSTOMER 4=ORDERS\n"
    "Defaults: -P 3306 -d tpcc -w 1, -u your login name; -h l means localhost.\n"
    "The same as: stampede tpcc prepare --mysql-host=... --warehouses=W [--load-parts=...\n"
    "  --warehouse-first=MIN --warehouse-last=MAX]; see `stampede tpcc help`.\n";

static const char start_usage[] =
    "Usage: stampede tpcc_start -h server_host -P port -d database_name -u mysql_user\n"
    "                           -p mysql_password -w warehouses -c connections -r warmup_time\n"
    "                           -l running_time -i report_interval [-S socket]\n"
    "                           [-f report_file] [-t trx_file] [-m schemas -o offset]\n"
    "                           [-0..-4 response-time limits in ms]\n"
    "                           [stampede options: --agents=N --json=FILE ...]\n"
    "Defaults: -P 3306 -d tpcc -w 1 -c 10 -r 10 -l 20 -i 10 (or -l when shorter),\n"
    "  -0 5 -1 5 -2 5 -3 80 -4 20, -u your login name; -h l means localhost; a socket is\n"
    "  used only when -S names one. -m N -o K: connection t uses database\n"
    "  <db>_<(t % N) + K> (-o defaults to 0; load each with tpcc_load -d <db>_<i>).\n"
    "The same as: stampede tpcc run --mysql-host=... --warehouses=W --threads=C\n"
    "  --warmup-time=R --time=L --report-interval=I --rt-limits=... [--report-file=F\n"
    "  --trx-file=F]; see `stampede tpcc help`.\n";

const char *co_tc_compat_usage(const char *which)
{
    return which && strcmp(which, "tpcc_load") == 0 ? load_usage : start_usage;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : (path ? path : "");
}

/* Which command argv is, and the index of its first option; NULL if none. */
static const char *which_of(int argc, char **argv, int *first)
{
    static const char *const names[] = {"tpcc_load", "tpcc_start"};
    for (int k = 0; k < 2; k++) {
        if (argc >= 1 && strcmp(base_name(argv[0]), names[k]) == 0)
            return *first = 1, names[k];
        if (argc >= 2 && strcmp(argv[1], names[k]) == 0)
            return *first = 2, names[k];
    }
    return NULL;
}

static const struct copt *find_opt(const struct copt *tab, char c)
{
    for (; tab->c; tab++)
        if (tab->c == c)
            return tab;
    return NULL;
}

static bool parse_uint(const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || x < lo || x > hi)
        return false;
    *out = (unsigned)x;
    return true;
}

/* What was given, by option letter (values borrowed from argv). */
struct given {
    const char *val[128]; /* by letter; NULL: not given */
    const char **tail;    /* "--..." words, in order */
    int n_tail;
};

/* Check one value against its option's kind. */
static int check_value(const char *which, const struct copt *o, const char *v, struct pr_error *err)
{
    unsigned x = 0;

    switch (o->kind) {
    case K_REFUSE:
        return pr_error_set(err, PR_EINVAL, "%s -%c: %s", which, o->c, o->what);
    case K_ANY:
        return 0;
    case K_UINT:
    case K_PART:
    case K_LIMIT:
        if (!parse_uint(v, o->kind == K_PART ? 1 : o->lo, o->kind == K_PART ? 4 : o->hi, &x))
            return pr_error_set(err, PR_EINVAL, "%s -%c '%s': the %s must be an integer in %u..%u",
                                which, o->c, v, o->what, o->kind == K_PART ? 1 : o->lo,
                                o->kind == K_PART ? 4 : o->hi);
        return 0;
    default:
        if (*v == '\0')
            return pr_error_set(err, PR_EINVAL,
                                "%s -%c: the %s is empty; give one or leave -%c out", which, o->c,
                                o->what, o->c);
        return 0;
    }
}

static int scan(const char *which, const struct copt *tab, int argc, char **argv, int first,
                struct given *g, bool *help, struct pr_error *err)
{
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0) {
            *help = true;
            continue;
        }
        if (strncmp(arg, "--", 2) == 0 && arg[2]) {
            g->tail[g->n_tail++] = arg; /* stampede's own (co_args checks it) */
            continue;
        }
        const struct copt *o = arg[0] == '-' && arg[1] ? find_opt(tab, arg[1]) : NULL;
        if (o == NULL && arg[0] == '-')
            return pr_error_set(err, PR_EINVAL, "%s: unknown option %s", which, arg);
        if (o == NULL)
            return pr_error_set(err, PR_EINVAL,
                                "%s: unexpected argument '%s' (options are -X VALUE; stampede's "
                                "own are --name=value)",
                                which, arg);
        const char *v = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
        if (v == NULL)
            return pr_error_set(err, PR_EINVAL, "%s -%c: a value is required (the %s)", which, o->c,
                                o->kind == K_REFUSE ? "file" : o->what);
        int rc = check_value(which, o, v, err);
        if (rc != 0)
            return rc;
        g->val[(unsigned char)o->c] = v; /* a repeated option: the last wins, as getopt's users */
    }
    return 0;
}

/* The translated words, built up. */
struct words {
    char **w;
    int n;
};

static void add(struct words *ws, const char *name, const char *value)
{
    size_t len = strlen(name) + (value ? strlen(value) + 1 : 0) + 3;
    char *s = pr_xmalloc(len);
    if (value)
        snprintf(s, len, "--%s=%s", name, value);
    else
        snprintf(s, len, "%s", name);
    ws->w[ws->n++] = s;
}

/* libmysqlclient's user for an empty one: the login name. */
static const char *login_name(void)
{
    const struct passwd *pw = getpwuid(geteuid());
    return pw && pw->pw_name ? pw->pw_name : getenv("USER");
}

/* What both commands share: the server and the warehouses. */
static void add_common(struct words *ws, const struct given *g, const char *login_user)
{
    const char *h = g->val['h'];
    if (h)
        add(ws, "mysql-host", strcmp(h, "l") == 0 ? "localhost" : h);
    add(ws, "mysql-port", g->val['P'] ? g->val['P'] : "3306");
    add(ws, "mysql-db", g->val['d'] ? g->val['d'] : "tpcc");
    if (!g->val['u'] && !login_user)
        login_user = login_name();
    if (g->val['u'] || (login_user && *login_user))
        add(ws, "mysql-user", g->val['u'] ? g->val['u'] : login_user);
    if (g->val['p'])
        add(ws, "mysql-password", g->val['p']);
    add(ws, "warehouses", g->val['w'] ? g->val['w'] : "1");
}

static int add_load(struct words *ws, const struct given *g, struct pr_error *err)
{
    static const char *const parts[] = {"items", "warehouse", "customer", "orders"};
    const char *l = g->val['l'];

    if (!l && (g->val['m'] || g->val['n']))
        return pr_error_set(err, PR_EINVAL,
                            "tpcc_load -m/-n: a warehouse range needs -l PART (2, 3 or 4) too; "
                            "tpcc_load ignores -m and -n without -l");
    if (!l)
        return 0;
    add(ws, "load-parts", parts[atoi(l) - 1]);
    if (atoi(l) == 1)
        return 0; /* part 1 ignores the range, as tpcc_load */
    add(ws, "warehouse-first", g->val['m'] ? g->val['m'] : "1");
    if (g->val['n']) /* without -n: up to -w (tpcc_load: nothing, max_wh = 0) */
        add(ws, "warehouse-last", g->val['n']);
    return 0;
}

static void add_start(struct words *ws, const struct given *g)
{
    char rt[128] = "";

    add(ws, "threads", g->val['c'] ? g->val['c'] : "10");
    add(ws, "warmup-time", g->val['r'] ? g->val['r'] : "10");
    add(ws, "time", g->val['l'] ? g->val['l'] : "20");
    if (g->val['i'])
        add(ws, "report-interval", g->val['i']);
    if (g->val['S'])
        add(ws, "mysql-socket", g->val['S']);
    if (g->val['f'])
        add(ws, "report-file", g->val['f']);
    if (g->val['t'])
        add(ws, "trx-file", g->val['t']);
    if (g->val['m'])
        add(ws, "multi-schema", g->val['m']);
    if (g->val['o'])
        add(ws, "multi-schema-offset", g->val['o']);
    /* Only the limits given, the others left empty (their defaults): the
     * header echoes -0..-4 only when given, as tpcc_start's getopt loop. */
    bool any = false;
    for (int t = 0; t < 5; t++) {
        const char *v = g->val['0' + t] ? g->val['0' + t] : "";
        size_t off = strlen(rt);
        any = any || g->val['0' + t] != NULL;
        snprintf(rt + off, sizeof rt - off, "%s%s", t ? "," : "", v);
    }
    if (any)
        add(ws, "rt-limits", rt);
}

int co_tc_compat_translate(int argc, char **argv, const char *login_user, struct co_tc_argv *out,
                           struct pr_error *err)
{
    int first = 0;
    const char *which = which_of(argc, argv, &first);
    bool load = which && strcmp(which, "tpcc_load") == 0;
    struct given g = {0};

    memset(out, 0, sizeof *out);
    if (which == NULL)
        return 0;
    out->which = which;
    if (argc > MAX_WORDS)
        return pr_error_set(err, PR_EINVAL, "%s: more than %d words", which, MAX_WORDS);
    g.tail = pr_xcalloc((size_t)argc + 1, sizeof(*g.tail));
    int rc = scan(which, load ? load_opts : start_opts, argc, argv, first, &g, &out->help, err);
    struct words ws = {pr_xcalloc((size_t)argc + 24, sizeof(char *)), 0};
    add(&ws, "stampede", NULL);
    add(&ws, "tpcc", NULL);
    add(&ws, load ? "prepare" : "run", NULL);
    if (rc == 0) {
        add_common(&ws, &g, login_user);
        if (load)
            rc = add_load(&ws, &g, err);
        else
            add_start(&ws, &g);
    }
    for (int i = 0; rc == 0 && i < g.n_tail; i++)
        add(&ws, g.tail[i], NULL);
    free(g.tail);
    out->argv = ws.w;
    out->argc = ws.n;
    if (rc != 0) {
        co_tc_compat_free(out);
        out->which = which;
        return rc;
    }
    return 1;
}

void co_tc_compat_free(struct co_tc_argv *out)
{
    for (int i = 0; out->argv && i < out->argc; i++) {
        memset(out->argv[i], 0, strlen(out->argv[i])); /* one may hold the password */
        free(out->argv[i]);
    }
    free(out->argv);
    memset(out, 0, sizeof *out);
}
