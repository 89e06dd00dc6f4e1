/* co_args: the stampede command line, sysbench 1.0.20 style. See co_args.h.
 *
 * Options may come before the workload, so the positional words are found
 * first; the workload then decides which script options exist, and every
 * option is applied in order: the --config-file's lines, then argv. */
#include "co_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "co_args_int.h"
#include "co_family.h"
#include "pr_endpoint.h"
#include "pr_keyfile.h"
#include "pr_parse.h"

#define MAX_AGENTS   100000
#define MAX_WEIGHT   1000000000ULL
#define MAX_WAIT_S   86400
#define MAX_WORKERS  1024
#define MAX_GRACE_MS 60000
#define PASSWORD_WARN                                                                              \
    "--mysql-password puts the password in the process list; prefer MYSQL_PWD or "                 \
    "--mysql-password-file"

/* Where an option came from, for error messages and the password warning. */
struct origin {
    const char *file; /* config file, NULL for argv */
    unsigned line;    /* its line number */
};

/* ---- small helpers ------------------------------------------------------ */

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = pr_xstrdup(v);
}

/* Replace the password, scrubbing the old one. */
static void set_password(struct co_args *a, char *owned)
{
    if (a->password)
        memset(a->password, 0, strlen(a->password));
    free(a->password);
    a->password = owned;
}

void co__args_vwarn(struct co_args *a, const char *fmt, va_list ap)
{
    char line[512];

    int n = snprintf(line, sizeof line, "WARNING: ");
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    strcat(line, "\n");
    if (strstr(a->warnings, line))
        return;
    size_t old = strlen(a->warnings);
    a->warnings = pr_xrealloc(a->warnings, old + strlen(line) + 1);
    strcpy(a->warnings + old, line);
}

void co_args_warn(struct co_args *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    co__args_vwarn(a, fmt, ap);
    va_end(ap);
}

/* ---- stampede's own options --------------------------------------------- */

static int set_agents(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    return co__args_u32(n, v, 1, MAX_AGENTS, &a->agents, err);
}

static int set_agent_wait(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    return co__args_u32(n, v, 1, MAX_WAIT_S, &a->agent_wait_s, err);
}

static int set_agent_workers(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    return co__args_u32(n, v, 0, MAX_WORKERS, &a->agent_workers, err);
}

static int set_grace(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    return co__args_u32(n, v, 0, MAX_GRACE_MS, &a->grace_ms, err);
}

/* --prometheus=HOST:PORT: the address is checked when the endpoint opens
 * (co_prom), before any load starts. */
static int set_prometheus(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    if (rc == 0 && strchr(v, ':') == NULL)
        rc = pr_error_set(err, PR_EINVAL,
                          "--prometheus: '%s' is not HOST:PORT (for example 127.0.0.1:9464, or "
                          ":9464 for loopback)",
                          v);
    if (rc == 0)
        set_str(&a->prometheus, v);
    return rc;
}

static int set_prometheus_linger(struct co_args *a, const char *n, const char *v,
                                 struct pr_error *err)
{
    return co__args_u32(n, v, 0, MAX_WAIT_S, &a->prometheus_linger_s, err);
}

static int set_listen(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    if (rc == 0 && !pr_endpoint_is_valid(v))
        rc =
            pr_error_set(err, PR_EINVAL,
                         "--listen: '%s' must be tcp://HOST:PORT (port 1..65535) or ipc://PATH", v);
    if (rc == 0)
        set_str(&a->listen, v);
    return rc;
}

static void free_weights(struct co_args *a)
{
    for (uint32_t i = 0; i < a->n_weights; i++)
        free(a->weights[i].name);
    free(a->weights);
    a->weights = NULL;
    a->n_weights = 0;
}

/* One "NAME=W" item of --agent-weights (item is NUL terminated). */
static int add_weight(struct co_args *a, char *item, struct pr_error *err)
{
    char *eq = strchr(item, '=');
    uint64_t w = 0;

    if (!eq || eq == item)
        return pr_error_set(err, PR_EINVAL, "--agent-weights: '%s' is not NAME=WEIGHT", item);
    *eq = '\0';
    if (co__args_uint("agent-weights", eq + 1, 0, MAX_WEIGHT, &w, err) < 0)
        return PR_EINVAL;
    for (uint32_t i = 0; i < a->n_weights; i++)
        if (strcmp(a->weights[i].name, item) == 0)
            return pr_error_set(err, PR_EINVAL, "--agent-weights: agent '%s' given twice", item);
    if (a->n_weights == CO_ARGS_MAX_WEIGHTS)
        return pr_error_set(err, PR_EINVAL, "--agent-weights: more than %d agents",
                            CO_ARGS_MAX_WEIGHTS);
    a->weights = pr_xrealloc(a->weights, (a->n_weights + 1) * sizeof a->weights[0]);
    a->weights[a->n_weights].name = pr_xstrdup(item);
    a->weights[a->n_weights].value = w;
    a->n_weights++;
    return 0;
}

static int set_weights(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    uint64_t sum = 0;

    free_weights(a); /* a later --agent-weights replaces an earlier one */
    size_t n_items = 0;
    char **items = rc == 0 ? pr_list_split(v, &n_items) : NULL;
    for (size_t i = 0; rc == 0 && i < n_items; i++)
        rc = add_weight(a, items[i], err);
    pr_list_free(items);
    for (uint32_t i = 0; rc == 0 && i < a->n_weights; i++)
        sum += a->weights[i].value;
    if (rc == 0 && sum == 0)
        rc = pr_error_set(err, PR_EINVAL, "--agent-weights: at least one weight must be > 0");
    return rc;
}

static int set_agent_bin(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    if (rc == 0)
        set_str(&a->agent_bin, v);
    return rc;
}

static int set_partition(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    for (int i = 0; v && i < PR_PART_COUNT_; i++)
        if (strcmp(v, pr_partition_name((enum pr_partition)i)) == 0) {
            a->part = (enum pr_partition)i;
            return 0;
        }
    return pr_error_set(err, PR_EINVAL,
                        "--partition: '%s' is not one of none, tables, rows, warehouses",
                        v ? v : "");
}

static int set_on_loss(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    if (v && strcmp(v, "abort") == 0)
        a->on_loss = CO_LOSS_ABORT;
    else if (v && strcmp(v, "continue") == 0)
        a->on_loss = CO_LOSS_CONTINUE;
    else
        return pr_error_set(err, PR_EINVAL, "--on-agent-loss: '%s' is not abort or continue",
                            v ? v : "");
    return 0;
}

static int set_report_format(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    if (v && strcmp(v, "stampede") == 0)
        a->report_format = CO_REPORT_FORMAT_STAMPEDE;
    else if (v && strcmp(v, "sysbench") == 0)
        a->report_format = CO_REPORT_FORMAT_SYSBENCH;
    else
        return pr_error_set(err, PR_EINVAL, "--report-format: '%s' is not stampede or sysbench",
                            v ? v : "");
    return 0;
}

static int set_rate_mode(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    for (int i = 0; v && i < PR_RATE_COUNT_; i++)
        if (strcmp(v, pr_rate_mode_name((enum pr_rate_mode)i)) == 0) {
            a->rate_mode = (enum pr_rate_mode)i;
            return 0;
        }
    return pr_error_set(err, PR_EINVAL,
                        "--rate-mode: '%s' is not poisson or uniform (the arrival process of "
                        "--rate)",
                        v ? v : "");
}

/* The string field an option name stores into. */
static char **path_field(struct co_args *a, const char *n)
{
    if (strcmp(n, "json") == 0)
        return &a->json_path;
    if (strcmp(n, "csv") == 0)
        return &a->csv_path;
    if (strcmp(n, "csv-kinds") == 0)
        return &a->csv_kinds_path;
    if (strcmp(n, "hdr-log") == 0)
        return &a->hdr_log_path;
    if (strcmp(n, "secret-key-file") == 0)
        return &a->secret_key_file;
    return &a->authorized_keys;
}

static int set_path(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    if (rc == 0)
        set_str(path_field(a, n), v);
    return rc;
}

static int set_plaintext(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    if (v == NULL)
        return a->plaintext = true, 0;
    if (pr_parse_bool(v, &a->plaintext))
        return 0;
    return pr_error_set(err, PR_EINVAL,
                        "--plaintext: '%s' is not a boolean (" PR_BOOL_SPELLINGS ")", v);
}

/* --mysql-password-file: the password is the file's first line, without
 * its line end. */
static int set_password_file(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    char *line = NULL;
    size_t cap = 0;
    struct stat st;
    int rc = co__args_need_text(n, v, err);
    FILE *f = rc == 0 ? fopen(v, "r") : NULL;

    if (rc < 0)
        return rc;
    if (!f)
        return pr_error_set(err, PR_EINVAL, "--mysql-password-file: %s: %s", v, strerror(errno));
    if (getline(&line, &cap, f) < 0) {
        free(line);
        line = pr_xstrdup("");
    }
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    if (stat(v, &st) == 0 && (st.st_mode & 077) && !pr_keyfile_is_secret_volume(&st))
        co_args_warn(a, "--mysql-password-file: %s is readable by group or others; chmod 600 %s", v,
                     v);
    set_password(a, line);
    return 0;
}

/* --threshold (repeatable): one more criterion, parsed now. */
static int set_threshold(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    struct co_threshold t;
    int rc = co__args_need_text(n, v, err);
    if (rc == 0)
        rc = co_threshold_parse(v, &t, err);
    if (rc < 0)
        return rc;
    a->thresholds = pr_xrealloc(a->thresholds, (a->n_thresholds + 1) * sizeof(*a->thresholds));
    a->thresholds[a->n_thresholds++] = t;
    return 0;
}

static int set_abort_on_threshold(struct co_args *a, const char *n, const char *v,
                                  struct pr_error *err)
{
    return co__args_u32(n, v, 0, MAX_WAIT_S, &a->abort_on_threshold_s, err);
}

static int set_warmup(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    int rc = co__args_need_text(n, v, err);
    return rc < 0 ? rc : co_warmup_parse(v, &a->warmup, err);
}

/* --lua: parse_all reads it before the workload word (a family's parse_word). */
static int set_script_forced(struct co_args *a, const char *n, const char *v, struct pr_error *err)
{
    if (v == NULL)
        return a->script_forced = true, 0;
    if (pr_parse_bool(v, &a->script_forced))
        return 0;
    return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not a boolean (on/off)", n, v);
}

static const struct co__own_opt own_opts[] = {
    {"agents", "=N", "1", "number of agents to use", set_agents},
    {"listen", "=ENDPOINT", NULL,
     "wait for remote agents at tcp://ADDR:PORT or ipc://PATH; default: spawn --agents local "
     "agents on a private endpoint",
     set_listen},
    {"agent-wait", "=SECONDS", "30", "how long to wait for the agents", set_agent_wait},
    {"agent-weights", "=[NAME=W,...]", NULL,
     "relative shares of the work per agent name (integers); default equal", set_weights},
    {"agent-bin", "=PATH", NULL,
     "local agent executable; default stampede-agent beside this program, then $PATH",
     set_agent_bin},
    {"agent-workers", "=N", "0", "event loops per local agent. 0 for one per core",
     set_agent_workers},
    {"partition", "=STRING", "none",
     "confine each agent to its own part of the data {none,tables,rows,warehouses}", set_partition},
    {"on-agent-loss", "=STRING", "abort", "what a lost agent does to the run {abort,continue}",
     set_on_loss},
    {"report-format", "=STRING", "stampede",
     "stdout report {stampede,sysbench}; sysbench: exactly sysbench 1.0.20's lines, the "
     "stampede section only in --json",
     set_report_format},
    {"rate-mode", "=STRING", "poisson",
     "arrivals with --rate: poisson (random gaps, as sysbench) or uniform (every gap "
     "1/rate); not a sysbench option {poisson,uniform}",
     set_rate_mode},
    {"json", "=FILE", NULL, "write the whole run as JSON to FILE", set_path},
    {"csv", "=FILE", NULL, "write one CSV row per interval to FILE", set_path},
    {"csv-kinds", "=FILE", NULL, "write one CSV row per interval and statement kind to FILE",
     set_path},
    {"hdr-log", "=FILE", NULL, "write an HdrHistogram interval log to FILE", set_path},
    {"prometheus", "=HOST:PORT", NULL,
     "serve live Prometheus metrics at http://HOST:PORT/metrics during a run (:PORT for "
     "127.0.0.1)",
     set_prometheus},
    {"prometheus-linger", "=SECONDS", "0",
     "keep /metrics up this long after the final report, for a last scrape", set_prometheus_linger},
    {"secret-key-file", "=FILE", NULL, "coordinator CURVE secret key (Z85, first line)", set_path},
    {"authorized-keys", "=FILE", NULL, "agent CURVE public keys admitted, one per line", set_path},
    {"plaintext", "[=on|off]", "off", "no CURVE encryption (only with a loopback --listen)",
     set_plaintext},
    {"grace-ms", "=N", "0",
     "how long after an interval boundary a line waits for an agent not yet heard (0: 5000); "
     "a line goes out as soon as every agent reported",
     set_grace},
    {"mysql-password-file", "=FILE", NULL,
     "read the MySQL password from FILE's first line (or set MYSQL_PWD)", set_password_file},
    {"repeat", "=N", "1", "run each --threads point N times (a sweep: co_sweep)",
     co__args_sweep_repeat},
    {"sweep-pause", "=SECONDS", "0", "pause between the runs of a sweep", co__args_sweep_pause},
    {"threshold", "=EXPR", NULL,
     "fail the run (exit 3) unless [KIND.]METRIC OP VALUE holds at its end, e.g. p99<20ms, "
     "tps>=1000, errors<0.1%, new_order.p90<5s; repeatable",
     set_threshold},
    {"abort-on-threshold", "=SECONDS", "0",
     "from SECONDS into a run on, judge each --threshold on the figures so far at every "
     "interval line and stop the run at the first one crossed (exit 3); 0: off",
     set_abort_on_threshold},
    {"warmup", "=auto|SECONDS", NULL,
     "leave the start of a run out of its totals: auto, the warm-up the run detects (see its "
     "steady-state verdict), or the first SECONDS (a multiple of --report-interval); the server "
     "check and the per-agent and per-kind figures stay whole-run",
     set_warmup},
    {"find-capacity", "[=on|off]", "off",
     "run trials at rising then bisected --rate to find the highest rate that meets --slo "
     "(run only; see Capacity under an SLO in docs/guide.md)",
     co__args_capacity},
    {"slo", "=EXPR,...", NULL,
     "--find-capacity's SLO: --threshold expressions joined by ',', e.g. p99<=10ms,errors<=0.1%; "
     "tpcc: its response-time constraints by default",
     co__args_capacity},
    {"capacity-start", "=N", "10", "--find-capacity's first rate, events/s", co__args_capacity},
    {"capacity-trial", "=SECONDS", "5", "measured seconds of each --find-capacity step",
     co__args_capacity},
    {"capacity-warmup", "=SECONDS", "1",
     "seconds of each --find-capacity step left out before its measured ones", co__args_capacity},
    {"capacity-precision", "=PCT", "5",
     "--find-capacity stops when (bad - good) / good is within PCT percent", co__args_capacity},
    {"capacity-max-trials", "=N", "20", "--find-capacity runs at most N steps", co__args_capacity},
    {"capacity-dir", "=DIR", "capacity", "where --find-capacity writes each step's JSON and output",
     co__args_capacity},
    {"lua", "[=on|off]", "off",
     "run WORKLOAD's .lua script through the Lua engine even when WORKLOAD is built in",
     set_script_forced},
};

#define N_OWN (sizeof own_opts / sizeof own_opts[0])

static const struct co__own_opt *find_own(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OWN; i++)
        if (pr_name_eq(name, len, own_opts[i].name))
            return &own_opts[i];
    return NULL;
}

/* ---- applying one option ------------------------------------------------ */

/* Record "canonical=value" for the agents, replacing an earlier value. */
static void add_passthrough(struct co_args *a, const char *name, const char *value)
{
    size_t nlen = strlen(name);
    char *item = pr_xmalloc(nlen + strlen(value) + 2);

    sprintf(item, "%s=%s", name, value);
    for (uint32_t i = 0; i < a->n_passthrough; i++)
        if (strncmp(a->passthrough[i], name, nlen) == 0 && a->passthrough[i][nlen] == '=') {
            free(a->passthrough[i]);
            a->passthrough[i] = item;
            return;
        }
    a->passthrough = pr_xrealloc(a->passthrough, (a->n_passthrough + 1) * sizeof(char *));
    a->passthrough[a->n_passthrough++] = item;
    if (!a->defaults_added) /* given options come first, a family's defaults after */
        a->n_passthrough_given = a->n_passthrough;
}

/* A family's default for an option the user did not give (co_args.h):
 * set in a->opts and sent to the agents like a given one. */
int co_args_set_default(struct co_args *a, const char *name, const char *value,
                        struct pr_error *err)
{
    if (pr_opts_is_set(a->opts, name))
        return 0;
    int rc = pr_opts_set(a->opts, name, value, err);
    if (rc == 0) {
        a->defaults_added = true;
        add_passthrough(a, pr_opts_find(name)->name, value);
    }
    return rc;
}

/* An option nobody knows: name it, suggest the closest known one (ours
 * or sysbench's) and where to look. Every workload refuses it, bulk_insert
 * too (sysbench's legacy mode would take it: a typo would pass unseen). */
static int unknown_option(const struct co_args *a, const char *name, bool other_workload,
                          struct pr_error *err)
{
    const char *own[N_OWN + 1];
    char hint[96] = "";

    for (size_t i = 0; i < N_OWN; i++)
        own[i] = own_opts[i].name;
    own[N_OWN] = "mysql-password";
    const char *near = pr_opts_suggest(a->wl, name, strlen(name), own, N_OWN + 1);
    if (near)
        snprintf(hint, sizeof hint, "; did you mean --%s?", near);
    if (other_workload)
        return pr_error_set(err, PR_EINVAL, "unknown option --%s for %s%s; see stampede %s help",
                            name, a->workload, hint, a->workload);
    return pr_error_set(err, PR_EINVAL, "unknown option --%s%s; see stampede --help", name, hint);
}

/* A sysbench (pr_opts) option: set it, warn for aliases, pass it through. */
static int apply_sysbench(struct co_args *a, const char *name, const char *value,
                          struct pr_error *err)
{
    const struct pr_opt_def *def = pr_opts_find(name);

    const struct co_family *fam = co_registry_find(a->workload);
    if (fam && fam->option) { /* the family's own options (a script's declarations) */
        const char *canon = NULL;
        int lrc = fam->option(a, name, value, def && def->group != PR_OPT_SCRIPT, &canon, err);
        if (lrc < 0)
            return lrc;
        if (lrc == 1) {
            add_passthrough(a, canon, value ? value : "on");
            return 0;
        }
    }
    if (!def)
        return unknown_option(a, name, false, err);
    if (def->group == PR_OPT_SCRIPT && !(def->workloads & (1u << a->wl)))
        return unknown_option(a, def->name, true, err);
    int rc = pr_opts_set(a->opts, name, value, err);
    if (rc < 0)
        return rc;
    if (def->alias_of)
        co_args_warn(a, "--%s is deprecated, use --%s instead", def->name, def->alias_of);
    const char *canon = def->alias_of ? def->alias_of : def->name;
    add_passthrough(a, canon, value ? value : "on");
    return 0;
}

/* Apply one "--name[=value]" from o. Help, version and config-file were
 * taken care of before and are skipped here (refused in a config file). */
static int apply_option(struct co_args *a, const char *arg, const struct origin *o,
                        struct pr_error *err)
{
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0' || arg[2] == '=')
        return pr_error_set(err, PR_EINVAL, "unknown option %s; see stampede --help", arg);
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const char *value = eq ? eq + 1 : NULL;
    char nbuf[128];

    if (len >= sizeof nbuf)
        return pr_error_set(err, PR_EINVAL, "unknown option --%.40s...; see stampede --help", name);
    memcpy(nbuf, name, len);
    nbuf[len] = '\0';
    if (pr_name_eq(name, len, "help") || pr_name_eq(name, len, "version") ||
        pr_name_eq(name, len, "config-file")) {
        if (o->file)
            return pr_error_set(err, PR_EINVAL, "--%s is not allowed in a config file", nbuf);
        return 0;
    }
    const struct co__own_opt *own = find_own(name, len);
    if (own)
        return own->set(a, own->name, value, err);
    if (pr_name_eq(name, len, "mysql-password")) {
        if (!value)
            return pr_error_set(err, PR_EINVAL, "--mysql-password: a value is required");
        set_password(a, pr_xstrdup(value));
        if (!o->file)
            co_args_warn(a, "%s", PASSWORD_WARN);
        return 0;
    }
    char first[24]; /* --threads=A,B,...: a sweep; --threads takes A */
    int rc = co__args_sweep_threads(a, nbuf, &value, first, sizeof first, err);
    if (rc < 0)
        return rc;
    return apply_sysbench(a, nbuf, value, err);
}

/* Prefix err with "FILE:LINE: " for an option from a config file. */
static int with_origin(int rc, const struct origin *o, struct pr_error *err)
{
    if (rc < 0 && o->file && err) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        pr_error_set(err, rc, "%s:%u: %s", o->file, o->line, msg);
    }
    return rc;
}

/* --config-file: one option per line, "name=value" or "--name=value". */
static int apply_config(struct co_args *a, const char *path, struct pr_error *err)
{
    FILE *f = fopen(path, "r");
    struct origin o = {path, 0};
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;

    if (!f)
        return pr_error_set(err, PR_EINVAL, "--config-file: %s: %s", path, strerror(errno));
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        o.line++;
        char *s = line + strspn(line, " \t");
        size_t len = strcspn(s, "\r\n");
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        s[len] = '\0';
        if (*s == '\0' || *s == '#')
            continue;
        char *arg = pr_xmalloc(len + 3);
        sprintf(arg, "%s%s", strncmp(s, "--", 2) == 0 ? "" : "--", s);
        rc = with_origin(apply_option(a, arg, &o, err), &o, err);
        free(arg);
    }
    free(line);
    fclose(f);
    return rc;
}

/* ---- the whole command line --------------------------------------------- */

/* True for "--NAME" or "--NAME=on|true|1" (any spelling of NAME); err on a
 * value that is not a boolean. */
static int flag_value(const char *arg, const char *name, bool *matched, bool *on,
                      struct pr_error *err)
{
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);

    *matched = pr_name_eq(arg + 2, len, name);
    if (!*matched)
        return 0;
    pr_opts *tmp = pr_opts_new(-1);
    int rc = pr_opts_set(tmp, name, eq ? eq + 1 : NULL, err);
    if (rc == 0)
        *on = pr_opts_bool(tmp, name);
    pr_opts_destroy(&tmp);
    return rc;
}

/* True for "--name" (no '=') naming a known option that is not a boolean:
 * the next word was probably meant as its value. */
static bool wants_value(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || strchr(arg, '='))
        return false;
    const struct co__own_opt *own = find_own(arg + 2, strlen(arg + 2));
    if (own)
        return own->set != set_plaintext && own->set != set_script_forced &&
               strcmp(own->name, "find-capacity") != 0;
    const struct pr_opt_def *def = pr_opts_find(arg);
    return def && def->type != PR_OPT_BOOL;
}

static int scan_args(int argc, char **argv, struct co__args_scan *s, struct pr_error *err)
{
    memset(s, 0, sizeof *s);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool m = false, on = false;
        if (arg[0] != '-') {
            if (i > 1 && wants_value(argv[i - 1]))
                return pr_error_set(err, PR_EINVAL,
                                    "%s needs its value joined: %s=%s (not a separate word)",
                                    argv[i - 1], argv[i - 1], arg);
            if (s->npos < 4)
                s->pos[s->npos] = i;
            s->npos++;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0)
            return pr_error_set(err, PR_EINVAL, "unknown option %s; see stampede --help", arg);
        if (flag_value(arg, "help", &m, &on, err) < 0)
            return PR_EINVAL;
        if (m) {
            s->help |= on;
            continue;
        }
        if (flag_value(arg, "version", &m, &on, err) < 0)
            return PR_EINVAL;
        if (m) {
            s->version |= on;
            continue;
        }
        const char *eq = strchr(arg, '=');
        if (pr_name_eq(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2), "config-file")) {
            if (!eq || !eq[1])
                return pr_error_set(err, PR_EINVAL, "--config-file: a file name is required");
            s->config_file = eq + 1;
        }
        s->nopts++;
    }
    return 0;
}

static int parse_all(struct co_args *a, int argc, char **argv, const char *env_password,
                     struct pr_error *err)
{
    struct co__args_scan s;
    int rc = scan_args(argc, argv, &s, err);

    if (rc < 0)
        return rc;
    if (s.help || s.version || s.npos == 0) {
        if (!s.help && !s.version && s.nopts > 0)
            return pr_error_set(err, PR_EINVAL,
                                "no WORKLOAD given; usage: stampede [options] WORKLOAD "
                                "prepare|run|cleanup|prewarm|check|help; see stampede --help");
        a->action = s.version && !s.help ? CO_ACTION_VERSION : CO_ACTION_HELP;
        return 0;
    }
    if (strcmp(argv[s.pos[0]], "keygen") == 0)
        return co__args_parse_keygen(a, argv, &s, err);
    for (int i = 1; i < argc && rc == 0; i++) /* --lua decides what WORKLOAD names */
        if (strncmp(argv[i], "--lua", 5) == 0 && (argv[i][5] == '\0' || argv[i][5] == '='))
            rc = set_script_forced(a, "lua", argv[i][5] ? argv[i] + 6 : NULL, err);
    if (rc < 0)
        return rc;
    rc = co__args_parse_words(a, argv, &s, err);
    if (rc < 0)
        return rc;
    pr_opts_destroy(&a->opts);
    a->opts = pr_opts_new(a->wl);
    if (a->action == CO_ACTION_WL_HELP)
        return 0;
    /* MYSQL_PWD is the default: an option in the config file or argv wins. */
    set_password(a, pr_xstrdup(env_password ? env_password : ""));
    if (s.config_file && (rc = apply_config(a, s.config_file, err)) < 0)
        return rc;
    struct origin cmdline = {NULL, 0};
    for (int i = 1; i < argc && rc == 0; i++)
        if (argv[i][0] == '-')
            rc = apply_option(a, argv[i], &cmdline, err);
    return rc < 0 ? rc : co__args_check(a, err);
}

int co_args_parse(struct co_args *a, int argc, char **argv, const char *env_password,
                  struct pr_error *err)
{
    memset(a, 0, sizeof *a);
    a->wl = -1;
    a->agents = 1;
    a->agent_wait_s = 30;
    a->part = PR_PART_NONE;
    a->on_loss = CO_LOSS_ABORT;
    a->rate_mode = PR_RATE_POISSON;
    a->password = pr_xstrdup("");
    a->warnings = pr_xstrdup("");
    a->opts = pr_opts_new(-1);
    int rc = parse_all(a, argc, argv, env_password, err);
    if (rc < 0)
        co_args_clear(a);
    else
        co__config_fill(a); /* every rule ran: the options are final */
    return rc;
}

void co_args_clear(struct co_args *a)
{
    if (a->fam_args && a->fam_args_free)
        a->fam_args_free(a->fam_args);
    a->fam_args = NULL;
    free(a->workload);
    pr_opts_destroy(&a->opts);
    co__config_clear(&a->cfg);
    free(a->keygen_dir);
    free(a->keygen_name);
    free(a->listen);
    free_weights(a);
    free(a->agent_bin);
    free(a->json_path);
    free(a->csv_path);
    free(a->csv_kinds_path);
    free(a->hdr_log_path);
    free(a->prometheus);
    free(a->secret_key_file);
    free(a->authorized_keys);
    set_password(a, NULL); /* scrubbed: it would otherwise linger in freed memory */
    free(a->warnings);
    free(a->checkpoints);
    free(a->sweep_threads);
    free(a->slo);
    free(a->capacity_dir);
    for (uint32_t i = 0; i < a->n_thresholds; i++)
        co_threshold_clear(&a->thresholds[i]);
    free(a->thresholds);
    for (uint32_t i = 0; i < a->n_passthrough; i++)
        free(a->passthrough[i]);
    free(a->passthrough);
    memset(a, 0, sizeof *a);
    a->wl = -1;
}

const struct co__own_opt *co__args_own_opts(size_t *n)
{
    *n = N_OWN;
    return own_opts;
}
