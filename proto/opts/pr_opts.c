/* pr_opts: sysbench 1.0.20's option schema and parser. See pr_opts.h. */
#include "pr_opts.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_parse.h"
#include "pr_ssl_mode.h"
#include "pr_tc_opt_rows.h"

#define OLTP_WLS                                                                                   \
    ((1u << PR_WL_OLTP_READ_WRITE) | (1u << PR_WL_OLTP_READ_ONLY) |                                \
     (1u << PR_WL_OLTP_WRITE_ONLY) | (1u << PR_WL_OLTP_POINT_SELECT) |                             \
     (1u << PR_WL_OLTP_UPDATE_INDEX) | (1u << PR_WL_OLTP_UPDATE_NON_INDEX) |                       \
     (1u << PR_WL_OLTP_INSERT) | (1u << PR_WL_OLTP_DELETE) | (1u << PR_WL_SELECT_RANDOM_POINTS) |  \
     (1u << PR_WL_SELECT_RANDOM_RANGES))

#define G(n, t, d, h)                                                                              \
    {                                                                                              \
        n, PR_OPT_##t, PR_OPT_GENERAL, d, h, 0, NULL                                               \
    }
#define A(n, t, d, to)                                                                             \
    {                                                                                              \
        n, PR_OPT_##t, PR_OPT_GENERAL, d, "deprecated alias for --" to, 0, to                      \
    }
#define M(n, t, d, h)                                                                              \
    {                                                                                              \
        n, PR_OPT_##t, PR_OPT_MYSQL, d, h, 0, NULL                                                 \
    }
#define S(n, t, d, h)                                                                              \
    {                                                                                              \
        n, PR_OPT_##t, PR_OPT_SCRIPT, d, h, OLTP_WLS, NULL                                         \
    }

/* A tpcc family option (tpcc-mysql's tpcc_load and tpcc_start): its rows
 * are PR_TC_OPT_ROWS, in pr_tc_opt_rows.h. */
#define T(n, t, d, h)                                                                              \
    {                                                                                              \
        n, PR_OPT_##t, PR_OPT_SCRIPT, d, h, 1u << PR_WL_TPCC, NULL                                 \
    }
/* Names, defaults and help texts as `sysbench --help` and `sysbench
 * oltp_read_write help` print them (1.0.20). Numeric script options are Lua
 * numbers in sysbench; we type the integral ones PR_OPT_INT. */
static const struct pr_opt_def schema[] = {
    G("threads", INT, "1", "number of threads to use"),
    G("events", INT, "0", "limit for total number of events"),
    G("time", INT, "10", "limit for total execution time in seconds"),
    G("forced-shutdown", STRING, "off",
      "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to "
      "disable"),
    G("thread-stack-size", STRING, "64K", "size of stack per thread"),
    G("rate", INT, "0", "average transactions rate. 0 for unlimited rate"),
    G("report-interval", INT, "0",
      "periodically report intermediate statistics with a specified interval in seconds. 0 "
      "disables intermediate reports"),
    G("report-checkpoints", LIST, "",
      "dump full statistics and reset all counters at specified points in time. The argument "
      "is a list of comma-separated values representing the amount of time in seconds elapsed "
      "from start of test when report checkpoint(s) must be performed. Report checkpoints are "
      "off by default."),
    G("debug", BOOL, "off", "print more debugging info"),
    G("validate", BOOL, "off", "perform validation checks where possible"),
    G("help", BOOL, "off", "print help and exit"),
    G("version", BOOL, "off", "print version and exit"),
    G("config-file", STRING, NULL, "File containing command line options"),
    A("tx-rate", INT, "0", "rate"),
    A("max-requests", INT, "0", "events"),
    A("max-time", INT, "0", "time"),
    A("num-threads", INT, "1", "threads"),
    G("rand-type", STRING, "special",
      "random numbers distribution {uniform,gaussian,special,pareto,zipfian}"),
    G("rand-spec-iter", INT, "12", "number of iterations used for numbers generation"),
    G("rand-spec-pct", INT, "1",
      "percentage of values to be treated as 'special' (for special distribution)"),
    G("rand-spec-res", INT, "75",
      "percentage of 'special' values to use (for special distribution)"),
    G("rand-seed", INT, "0",
      "seed for random number generator. When 0, the current time is used as a RNG seed."),
    G("rand-pareto-h", DOUBLE, "0.2", "parameter h for pareto distribution"),
    G("rand-zipfian-exp", DOUBLE, "0.8",
      "shape parameter (exponent, theta) for the Zipfian distribution (sysbench master)"),
    G("verbosity", INT, "3", "verbosity level {5 - debug, 0 - only critical messages}"),
    G("percentile", INT, "95",
      "percentile to calculate in latency statistics (1-100). Use the special value of 0 to "
      "disable percentile calculations"),
    G("histogram", BOOL, "off", "print latency histogram in report"),
    G("db-driver", STRING, "mysql",
      "specifies database driver to use ('help' to get list of available drivers)"),
    G("db-ps-mode", STRING, "auto", "prepared statements usage mode {auto, disable}"),
    G("db-debug", BOOL, "off", "print database-specific debug information"),
    M("mysql-host", LIST, "localhost", "MySQL server host"),
    M("mysql-port", LIST, "3306", "MySQL server port"),
    M("mysql-socket", LIST, NULL, "MySQL socket"),
    M("mysql-user", STRING, "sbtest", "MySQL user"),
    M("mysql-password", STRING, "", "MySQL password"),
    M("mysql-db", STRING, "sbtest", "MySQL database name"),
    M("mysql-ssl", STRING, "off",
      "use SSL connections {off, on, preferred, required, verify_ca, verify_identity}; on: "
      "sysbench 1.0.20's client-key.pem, client-cert.pem, cacert.pem in the working directory"),
    M("mysql-ssl-cipher", STRING, "", "use specific cipher for SSL connections"),
    M("mysql-ssl-ca", STRING, "",
      "CA certificate file (PEM) the server's certificate is checked against"),
    M("mysql-ssl-cert", STRING, "", "client certificate file (PEM)"),
    M("mysql-ssl-key", STRING, "", "client private key file (PEM)"),
    M("mysql-ssl-crl", STRING, "", "certificate revocation list file (PEM)"),
    M("mysql-compression", BOOL, "off", "use compression, if available in the client library"),
    M("mysql-debug", BOOL, "off", "trace all client library calls"),
    M("mysql-ignore-errors", LIST, "1213,1020,1205", "list of errors to ignore, or \"all\""),
    M("mysql-dry-run", BOOL, "off",
      "Dry run, pretend that all MySQL client API calls are successful without executing them"),
    S("table_size", INT, "10000", "Number of rows per table"),
    S("range_size", INT, "100", "Range size for range SELECT queries"),
    S("tables", INT, "1", "Number of tables"),
    S("point_selects", INT, "10", "Number of point SELECT queries per transaction"),
    S("simple_ranges", INT, "1", "Number of simple range SELECT queries per transaction"),
    S("sum_ranges", INT, "1", "Number of SELECT SUM() queries per transaction"),
    S("order_ranges", INT, "1", "Number of SELECT ORDER BY queries per transaction"),
    S("distinct_ranges", INT, "1", "Number of SELECT DISTINCT queries per transaction"),
    S("index_updates", INT, "1", "Number of UPDATE index queries per transaction"),
    S("non_index_updates", INT, "1", "Number of UPDATE non-index queries per transaction"),
    S("delete_inserts", INT, "1", "Number of DELETE/INSERT combinations per transaction"),
    S("range_selects", BOOL, "on", "Enable/disable all range SELECT queries"),
    S("auto_inc", BOOL, "on",
      "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. "
      "When disabled, use client-generated IDs"),
    S("skip_trx", BOOL, "off",
      "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode"),
    S("secondary", BOOL, "off", "Use a secondary index in place of the PRIMARY KEY"),
    S("create_secondary", BOOL, "on", "Create a secondary index in addition to the PRIMARY KEY"),
    S("mysql_storage_engine", STRING, "innodb", "Storage engine, if MySQL is used"),
    S("pgsql_variant", STRING, NULL,
      "Use this PostgreSQL variant when running with the PostgreSQL driver. The only currently "
      "supported variant is 'redshift'. When enabled, create_secondary is automatically "
      "disabled, and delete_inserts is set to 0"),
    {"random_points", PR_OPT_INT, PR_OPT_SCRIPT, "10",
     "Number of random points in the IN() clause in generated SELECTs",
     1u << PR_WL_SELECT_RANDOM_POINTS, NULL},
    {"number_of_ranges", PR_OPT_INT, PR_OPT_SCRIPT, "10",
     "Number of random BETWEEN ranges per SELECT", 1u << PR_WL_SELECT_RANDOM_RANGES, NULL},
    {"delta", PR_OPT_INT, PR_OPT_SCRIPT, "5", "Size of BETWEEN ranges",
     1u << PR_WL_SELECT_RANDOM_RANGES, NULL},
    PR_TC_OPT_ROWS(T),
};

#define NSCHEMA (sizeof schema / sizeof schema[0])

static const char *const wl_names[PR_WL_COUNT_] = {
    "oltp_read_write",      "oltp_read_only",        "oltp_write_only", "oltp_point_select",
    "oltp_update_index",    "oltp_update_non_index", "oltp_insert",     "oltp_delete",
    "select_random_points", "select_random_ranges",  "bulk_insert",     "tpcc",
};

/* One option's current value; every type keeps its text too. */
struct opt_val {
    bool set;   /* given explicitly */
    char *text; /* current text (default or given); NULL when unset without default */
    int64_t i;  /* PR_OPT_INT */
    double d;   /* PR_OPT_DOUBLE */
    bool b;     /* PR_OPT_BOOL */
};

struct pr_opts {
    int wl;                    /* pr_workload id or -1 */
    struct opt_val v[NSCHEMA]; /* indexed like schema[] */
    char deprecated[128];      /* aliases used, comma separated */
};

const struct pr_opt_def *pr_opts_schema(size_t *n)
{
    *n = NSCHEMA;
    return schema;
}

int pr_workload_from_name(const char *name)
{
    size_t len = strlen(name);

    if (len > 4 && strcmp(name + len - 4, ".lua") == 0)
        len -= 4;
    for (int i = 0; i < PR_WL_COUNT_; i++)
        if (strlen(wl_names[i]) == len && strncmp(name, wl_names[i], len) == 0)
            return i;
    return -1;
}

const char *pr_workload_name(int wl)
{
    return wl >= 0 && wl < PR_WL_COUNT_ ? wl_names[wl] : NULL;
}

static const char *strip_dashes(const char *name)
{
    return strncmp(name, "--", 2) == 0 ? name + 2 : name;
}

static int find_index(const char *name, size_t len)
{
    for (size_t i = 0; i < NSCHEMA; i++)
        if (pr_name_eq(name, len, schema[i].name))
            return (int)i;
    return -1;
}

const struct pr_opt_def *pr_opts_find(const char *name)
{
    name = strip_dashes(name);
    int i = find_index(name, strlen(name));
    return i < 0 ? NULL : &schema[i];
}

/* True when workload wl (-1: none) has option def: general and mysql
 * options always, script options only where the workload declares them. */
static bool declared(const struct pr_opt_def *def, int wl)
{
    return def->group != PR_OPT_SCRIPT || (wl >= 0 && (def->workloads & (1u << wl)));
}

unsigned pr_opts_distance(const char *a, size_t alen, const char *b)
{
    unsigned row[PR_OPTS_NAME_MAX + 1];
    size_t blen = strlen(b);

    if (alen > PR_OPTS_NAME_MAX || blen > PR_OPTS_NAME_MAX)
        return UINT32_MAX;
    for (size_t j = 0; j <= blen; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= alen; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= blen; j++) {
            char x = a[i - 1] == '_' ? '-' : a[i - 1];
            char y = b[j - 1] == '_' ? '-' : b[j - 1];
            unsigned best = diag + (x != y);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = row[j];
            row[j] = best;
        }
    }
    return row[blen];
}

/* Close enough to be a typo: a third of the name's length, at least 1,
 * at most 3 edits. */
static unsigned typo_limit(size_t len)
{
    size_t lim = len / 3;
    return lim < 1 ? 1 : lim > 3 ? 3 : (unsigned)lim;
}

const char *pr_opts_suggest(int wl, const char *name, size_t len, const char *const *extra,
                            size_t n_extra)
{
    const char *best = NULL;
    unsigned best_d = typo_limit(len) + 1;

    for (size_t i = 0; i < n_extra; i++) {
        unsigned d = pr_opts_distance(name, len, extra[i]);
        if (d < best_d) {
            best_d = d;
            best = extra[i];
        }
    }
    for (size_t i = 0; i < NSCHEMA; i++) {
        if (!declared(&schema[i], wl) || strcmp(schema[i].name, "help") == 0)
            continue;
        unsigned d = pr_opts_distance(name, len, schema[i].name);
        if (d < best_d) {
            best_d = d;
            best = schema[i].alias_of ? schema[i].alias_of : schema[i].name;
        }
    }
    return best;
}

static bool parse_int(const char *s, int64_t *out)
{
    char *end;

    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s && *end == '\0' && errno == 0)
        return *out = v, true;
    /* A Lua number with an integral value, e.g. 1e6. */
    double d = strtod(s, &end);
    if (!*s || *end != '\0' || !isfinite(d) || d != floor(d) || fabs(d) > 9.0e15)
        return false;
    *out = (int64_t)d;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    double d = strtod(s, &end);

    if (!*s || *end != '\0' || !isfinite(d))
        return false;
    *out = d;
    return true;
}

/* Integer bounds for options where sysbench (or sanity) limits them. */
static const struct {
    const char *name;
    int64_t lo, hi;
} int_bounds[] = {
    {"threads", 1, 1000000},
    {"events", 0, INT64_MAX},
    {"time", 0, INT64_MAX},
    {"rate", 0, INT64_MAX},
    {"report-interval", 0, INT64_MAX},
    {"verbosity", 0, 5},
    {"percentile", 0, 100},
    {"rand-spec-iter", 1, 1000000},
    {"rand-spec-pct", 0, 100},
    {"rand-spec-res", 0, 99},
    {"tables", 0, 1000000},
    {"table_size", 0, 4294967295LL},
    {"range_size", 0, 4294967295LL},
    {"random_points", 1, 128},
    {"number_of_ranges", 1, 64},
    {"delta", 0, 4294967295LL},
};

static int check_choice(const char *opt, const char *v, const char *const *choices,
                        struct pr_error *err)
{
    for (size_t i = 0; choices[i]; i++)
        if (strcmp(v, choices[i]) == 0)
            return 0;
    return pr_error_set(err, PR_EINVAL, "--%s: invalid value '%s'", opt, v);
}

/* Each comma-separated item of v must be an integer in lo..hi. */
static int check_int_list(const char *opt, const char *v, int64_t lo, int64_t hi, size_t max,
                          struct pr_error *err)
{
    struct pr_list_iter it;
    const char *s;
    size_t n = 0, len;

    pr_list_iter_init(&it, v);
    while (pr_list_iter_next(&it, &s, &len)) {
        char item[32];
        int64_t x;

        if (len == 0 || len >= sizeof item)
            return pr_error_set(err, PR_EINVAL, "--%s: bad list item in '%s'", opt, v);
        memcpy(item, s, len);
        item[len] = '\0';
        if (!parse_int(item, &x) || x < lo || x > hi)
            return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not an integer in %lld..%lld", opt,
                                item, (long long)lo, (long long)hi);
        if (++n > max)
            return pr_error_set(err, PR_EINVAL, "--%s: more than %zu values", opt, max);
    }
    return 0;
}

static int check_forced_shutdown(const char *v, struct pr_error *err)
{
    int64_t x;
    size_t len = strlen(v);
    char num[32];

    if (len == 0 || strcmp(v, "off") == 0)
        return 0;
    if (len >= sizeof num)
        return pr_error_set(err, PR_EINVAL, "--forced-shutdown: invalid value '%s'", v);
    memcpy(num, v, len + 1);
    if (num[len - 1] == '%')
        num[len - 1] = '\0';
    if (!parse_int(num, &x) || x < 0)
        return pr_error_set(err, PR_EINVAL, "--forced-shutdown: invalid value '%s' (N, N%% or off)",
                            v);
    return 0;
}

/* Option-specific checks beyond the type. */
static int validate(const struct pr_opt_def *def, const char *v, struct pr_error *err)
{
    static const char *const rand_types[] = {"uniform", "gaussian", "special",
                                             "pareto",  "zipfian",  NULL};
    static const char *const ps_modes[] = {"auto", "disable", NULL};
    static const char *const drivers[] = {"mysql", NULL};
    const char *n = def->name;

    if (strcmp(n, "rand-type") == 0)
        return check_choice(n, v, rand_types, err);
    if (strcmp(n, "db-ps-mode") == 0)
        return check_choice(n, v, ps_modes, err);
    if (strcmp(n, "db-driver") == 0)
        return check_choice(n, v, drivers, err);
    if (strcmp(n, "mysql-ignore-errors") == 0) {
        struct pr_ignore_errors ie;
        return pr_ignore_errors_parse(v, &ie, err);
    }
    if (strcmp(n, "report-checkpoints") == 0)
        return check_int_list(n, v, 0, UINT32_MAX, 256, err);
    if (strcmp(n, "mysql-port") == 0)
        return check_int_list(n, v, 1, 65535, 1024, err);
    if (strcmp(n, "forced-shutdown") == 0)
        return check_forced_shutdown(v, err);
    if (strcmp(n, "mysql-ssl") == 0) {
        enum pr_ssl_mode m;
        if (pr_ssl_mode_parse(v, &m) < 0)
            return pr_error_set(err, PR_EINVAL, "--mysql-ssl: invalid value '%s' (one of %s)", v,
                                PR_SSL_MODES);
    }
    return 0;
}

/* Parse text v for def into val (unchanged on error). */
static int parse_value(const struct pr_opt_def *def, const char *v, struct opt_val *val,
                       struct pr_error *err)
{
    struct opt_val nv = *val;

    switch (def->type) {
    case PR_OPT_INT:
        if (!parse_int(v, &nv.i))
            return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not an integer", def->name, v);
        for (size_t i = 0; i < sizeof int_bounds / sizeof int_bounds[0]; i++)
            if (strcmp(int_bounds[i].name, def->name) == 0 &&
                (nv.i < int_bounds[i].lo || nv.i > int_bounds[i].hi))
                return pr_error_set(err, PR_EINVAL, "--%s: %lld is not in %lld..%lld", def->name,
                                    (long long)nv.i, (long long)int_bounds[i].lo,
                                    (long long)int_bounds[i].hi);
        break;
    case PR_OPT_DOUBLE:
        if (!parse_double(v, &nv.d))
            return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not a number", def->name, v);
        break;
    case PR_OPT_BOOL:
        if (!pr_parse_bool(v, &nv.b))
            return pr_error_set(err, PR_EINVAL,
                                "--%s: '%s' is not a boolean (" PR_BOOL_SPELLINGS ")", def->name,
                                v);
        break;
    case PR_OPT_STRING:
    case PR_OPT_LIST:
        break;
    }
    int rc = validate(def, v, err);
    if (rc < 0)
        return rc;
    free(val->text);
    nv.text = pr_xstrdup(v);
    *val = nv;
    return 0;
}

pr_opts *pr_opts_new(int wl)
{
    pr_opts *o = pr_xcalloc(1, sizeof *o);

    o->wl = wl >= 0 && wl < PR_WL_COUNT_ ? wl : -1;
    for (size_t i = 0; i < NSCHEMA; i++) {
        if (schema[i].def == NULL || schema[i].alias_of)
            continue;
        int rc = parse_value(&schema[i], schema[i].def, &o->v[i], NULL);
        assert(rc == 0);
        (void)rc;
    }
    return o;
}

void pr_opts_destroy(pr_opts **o)
{
    if (!*o)
        return;
    for (size_t i = 0; i < NSCHEMA; i++)
        free((*o)->v[i].text);
    free(*o);
    *o = NULL;
}

static void note_deprecated(pr_opts *o, const char *name)
{
    size_t len = strlen(o->deprecated);

    if (strstr(o->deprecated, name))
        return;
    snprintf(o->deprecated + len, sizeof o->deprecated - len, "%s--%s", len ? "," : "", name);
}

/* pr_opts_set with an explicit name length (name need not be terminated). */
static int set_n(pr_opts *o, const char *name, size_t nlen, const char *value, struct pr_error *err)
{
    int i = find_index(name, nlen);

    if (i < 0 || !declared(&schema[i], o->wl)) {
        const char *near = pr_opts_suggest(o->wl, name, nlen, NULL, 0);
        return pr_error_set(err, PR_EINVAL, "--%.*s: unknown option%s%s%s%s%s", (int)nlen, name,
                            o->wl >= 0 ? " for " : "", o->wl >= 0 ? wl_names[o->wl] : "",
                            near ? " (did you mean --" : "", near ? near : "", near ? "?)" : "");
    }
    const struct pr_opt_def *def = &schema[i];
    if (def->alias_of) {
        note_deprecated(o, def->name);
        i = find_index(def->alias_of, strlen(def->alias_of));
        def = &schema[i];
    }
    if (value == NULL && strcmp(def->name, "mysql-ssl") == 0)
        value = "on"; /* sysbench's bare --mysql-ssl (a boolean there) */
    if (value == NULL) {
        if (def->type != PR_OPT_BOOL)
            return pr_error_set(err, PR_EINVAL, "--%s: a value is required", def->name);
        value = "on";
    }
    int rc = parse_value(def, value, &o->v[i], err);
    if (rc == 0)
        o->v[i].set = true;
    return rc;
}

int pr_opts_set(pr_opts *o, const char *name, const char *value, struct pr_error *err)
{
    name = strip_dashes(name);
    return set_n(o, name, strlen(name), value, err);
}

int pr_opts_parse_arg(pr_opts *o, const char *arg, struct pr_error *err)
{
    const char *name = strip_dashes(arg);
    const char *eq = strchr(name, '=');

    if (*name == '\0' || eq == name)
        return pr_error_set(err, PR_EINVAL, "'%s': missing option name", arg);
    return set_n(o, name, eq ? (size_t)(eq - name) : strlen(name), eq ? eq + 1 : NULL, err);
}

/* Value slot for a getter; the option must exist and have type t. */
static const struct opt_val *get(const pr_opts *o, const char *name, enum pr_opt_type t)
{
    name = strip_dashes(name);
    int i = find_index(name, strlen(name));

    assert(i >= 0 && "unknown option name");
    assert(schema[i].type == t || (t == PR_OPT_STRING && schema[i].type == PR_OPT_LIST) ||
           t == (enum pr_opt_type) - 1);
    (void)t;
    return &o->v[i];
}

int64_t pr_opts_int(const pr_opts *o, const char *name)
{
    return get(o, name, PR_OPT_INT)->i;
}

double pr_opts_double(const pr_opts *o, const char *name)
{
    return get(o, name, PR_OPT_DOUBLE)->d;
}

bool pr_opts_bool(const pr_opts *o, const char *name)
{
    return get(o, name, PR_OPT_BOOL)->b;
}

const char *pr_opts_str(const pr_opts *o, const char *name)
{
    const struct opt_val *v = get(o, name, (enum pr_opt_type) - 1);
    return v->text ? v->text : "";
}

bool pr_opts_is_set(const pr_opts *o, const char *name)
{
    return get(o, name, (enum pr_opt_type) - 1)->set;
}

const char *pr_opts_deprecated(const pr_opts *o)
{
    return o->deprecated;
}

bool pr_opts_forced_shutdown_ms(const pr_opts *o, uint64_t *ms)
{
    const char *v = pr_opts_str(o, "forced-shutdown");
    uint64_t time_ms = (uint64_t)pr_opts_int(o, "time") * 1000u;
    size_t len = strlen(v);

    if (strcmp(v, "off") == 0 || time_ms == 0)
        return false;
    if (len == 0)
        *ms = time_ms * 5 / 100;
    else if (v[len - 1] == '%')
        *ms = time_ms * strtoull(v, NULL, 10) / 100;
    else
        *ms = strtoull(v, NULL, 10) * 1000u;
    return true;
}

int pr_ignore_errors_parse(const char *text, struct pr_ignore_errors *out, struct pr_error *err)
{
    struct pr_ignore_errors ie = {0};
    struct pr_list_iter it;
    const char *s;
    size_t len;

    pr_list_iter_init(&it, text);
    while (pr_list_iter_next(&it, &s, &len)) {
        char item[32];
        int64_t code;

        if (len == 0 || len >= sizeof item)
            return pr_error_set(err, PR_EINVAL, "--mysql-ignore-errors: bad item in '%s'", text);
        memcpy(item, s, len);
        item[len] = '\0';
        if (strcmp(item, "all") == 0) {
            ie.all = true;
        } else if (!parse_int(item, &code) || code < 0 || code > UINT32_MAX) {
            return pr_error_set(err, PR_EINVAL,
                                "--mysql-ignore-errors: '%s' is not an error code or \"all\"",
                                item);
        } else if (ie.n == PR_MAX_IGNORE_ERRORS) {
            return pr_error_set(err, PR_EINVAL, "--mysql-ignore-errors: more than %d codes",
                                PR_MAX_IGNORE_ERRORS);
        } else {
            ie.codes[ie.n++] = (uint32_t)code;
        }
    }
    *out = ie;
    return 0;
}

bool pr_ignore_errors_has(const struct pr_ignore_errors *ie, uint32_t code)
{
    if (ie->all)
        return true;
    for (uint32_t i = 0; i < ie->n; i++)
        if (ie->codes[i] == code)
            return true;
    return false;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* One checkpoint: a plain decimal in 0..UINT32_MAX. */
static int checkpoint_item(const char *s, size_t len, uint32_t *out, struct pr_error *err)
{
    char item[32], *end;

    snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), s);
    errno = 0;
    unsigned long long x = strtoull(item, &end, 10);
    if (len == 0 || len > 10 || *item < '0' || *item > '9' || *end || errno || x > UINT32_MAX)
        return pr_error_set(err, PR_EINVAL,
                            "--report-checkpoints: '%s' is not a whole number of seconds", item);
    *out = (uint32_t)x;
    return 0;
}

int pr_opts_checkpoints(const pr_opts *o, uint32_t **at, uint32_t *n, struct pr_error *err)
{
    uint32_t *v = NULL, got = 0, kept = 0;

    *at = NULL;
    *n = 0;
    for (const char *p = pr_opts_str(o, "report-checkpoints"); *p;) {
        size_t len = strcspn(p, ",");
        uint32_t x = 0;
        int rc = checkpoint_item(p, len, &x, err);
        if (rc < 0) {
            free(v);
            return rc;
        }
        v = pr_xrealloc(v, (got + 1) * sizeof *v);
        v[got++] = x;
        p += len + (p[len] == ',');
    }
    if (got > 1)
        qsort(v, got, sizeof *v, cmp_u32);
    for (uint32_t i = 0; i < got; i++)
        if (kept == 0 || v[kept - 1] != v[i])
            v[kept++] = v[i];
    *at = v;
    *n = kept;
    return 0;
}

uint64_t pr_checkpoint_interval(uint32_t at_s, uint32_t interval_ms)
{
    uint64_t ms = (uint64_t)at_s * 1000u, ivl = interval_ms ? interval_ms : 1;
    uint64_t k = (ms + ivl - 1) / ivl; /* boundaries (k + 1) * ivl >= ms */
    return k > 0 ? k - 1 : 0;
}
