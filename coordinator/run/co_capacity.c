/* co_capacity: a capacity search over child runs (co_capacity.h). */
#include "co_capacity.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "co_capsearch.h"
#include "co_compare.h"
#include "co_family.h"
#include "co_summary.h"
#include "pr_file.h"
#include "pr_parse.h"

extern char **environ;

/* One step: what was offered and what its run's JSON says. */
struct step {
    uint32_t rate;
    double achieved, p50, p95, p99; /* events/s; ms (NAN: not measured) */
    double arrivals, completed;     /* the agents' arrivals due (started + never started)
                                       and events completed, whole run (NAN: none read) */
    double errors;                  /* ignored errors of the measured window */
    bool passed;                    /* every SLO term passed */
    bool saturated;                 /* an agent looked saturated (its CPU or its loop lag) */
    bool busy;                      /* an agent's CPU was the cause: the client is the limit */
    double busy_cpu, busy_cores;    /* that agent's mean CPU (% of a core) and cores */
    bool ok;                        /* co_capsearch_ok */
    bool retried;                   /* missed with a lagging client: run again, this one not
                                       counted by the search */
    int status;                     /* the run's exit status */
    char *file;                     /* its JSON */
    char failed[384];               /* why it missed: the SLO terms missed (or its run's
                                       error), "" when none */
    json_t *missed;                 /* those terms: [{expr, measured, unit}] */
};

struct cap {
    const struct co_args *a;
    const char *self;
    const char *dir;
    char **slo; /* the terms */
    size_t n_slo;
    char **base; /* the child's options but the step's own */
    size_t n_base;
    const char *warmup_opt; /* the family's (tpcc: warmup-time), or NULL */
    char *slo_text;         /* the SLO as --slo says it */
    struct step *steps;
    size_t n;
    struct co_capsearch_cfg cfg;
};

enum { CAP_STOPPED_LEN = 640 }; /* why the search stopped, with a step's error */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* The options a step must not inherit: ours, and --json (a step's is its own). */
static bool dropped(const char *arg)
{
    static const char *const names[] = {"find-capacity",
                                        "slo",
                                        "capacity-start",
                                        "capacity-trial",
                                        "capacity-warmup",
                                        "capacity-precision",
                                        "capacity-max-trials",
                                        "capacity-dir",
                                        "json"};
    if (strncmp(arg, "--", 2) != 0)
        return false;
    const char *eq = strchr(arg + 2, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (pr_name_eq(arg + 2, len, names[i]))
            return true;
    return false;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0)
        abort();
    va_end(ap);
    return s;
}

/* Run step k at rate: its exit status, or -1 (said). Its output goes to
 * DIR/step-K.log; Ctrl-C reaches it (it stops and keeps what it measured)
 * and sets interrupted here. */
static int run_step(struct cap *c, struct step *s, size_t k)
{
    const struct co_args *a = c->a;
    uint32_t w = a->capacity_warmup_s ? a->capacity_warmup_s : 1;
    uint32_t t = a->capacity_trial_s ? a->capacity_trial_s : 5;
    char **argv = pr_xcalloc(c->n_base + c->n_slo + 10, sizeof(*argv));
    size_t n = 0, own = 0;
    argv[n++] = (char *)c->self;
    for (size_t i = 0; i < c->n_base; i++)
        argv[n++] = c->base[i];
    own = n;
    argv[n++] = fmt("--rate=%u", s->rate);
    argv[n++] = c->warmup_opt ? fmt("--time=%u", t) : fmt("--time=%u", w + t);
    argv[n++] = c->warmup_opt ? fmt("--%s=%u", c->warmup_opt, w) : fmt("--warmup=%u", w);
    argv[n++] = fmt("--report-interval=1");
    argv[n++] = fmt("--json=%s", s->file);
    argv[n++] = fmt("--find-capacity=off");
    for (size_t i = 0; i < c->n_slo; i++)
        argv[n++] = fmt("--threshold=%s", c->slo[i]);
    char *log = fmt("%s/step-%zu.log", c->dir, k);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t at;
    co_spawn_sigdefault(&at);
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fflush(NULL);
    pid_t pid;
    int rc = posix_spawn(&pid, c->self, &fa, &at, argv, environ), st = 0;
    if (rc == 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    for (size_t i = own; i < n; i++)
        free(argv[i]);
    free(argv);
    free(log);
    if (rc != 0) {
        fprintf(stderr, "stampede: --find-capacity: cannot start %s: %s\n", c->self, strerror(rc));
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static double num_at(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The step's figures from its JSON: false when it cannot be read. */
static bool read_step(struct step *s)
{
    json_t *root = json_load_file(s->file, 0, NULL);
    if (root == NULL)
        return false;
    const json_t *tot = json_object_get(root, "totals");
    const json_t *lat = json_object_get(tot, "latency_ms");
    s->achieved = num_at(tot, "tps");
    s->p50 = num_at(lat, "p50");
    s->p95 = num_at(lat, "p95");
    s->p99 = num_at(lat, "p99");
    s->errors = num_at(tot, "ignored_errors");
    s->arrivals = 0;
    s->completed = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(root, "agents"), i, v)
    {
        double cores = num_at(v, "cores"), cpu = num_at(json_object_get(v, "cpu_pct"), "avg");
        const json_t *ctr = json_object_get(v, "counters");
        cores = isfinite(cores) && cores > 0 ? cores : 1;
        if (json_is_object(ctr)) {
            s->arrivals += num_at(ctr, "ev_started") + num_at(ctr, "ev_dropped");
            s->completed += num_at(ctr, "transactions");
        }
        s->saturated = s->saturated || json_is_true(json_object_get(v, "saturated"));
        if (!s->busy && cpu >= CO_SUMMARY_SATURATED_CPU_SHARE * 100.0 * cores) {
            s->busy = true;
            s->busy_cpu = cpu;
            s->busy_cores = cores;
        }
    }
    s->passed = true;
    s->missed = json_array();
    json_array_foreach(json_object_get(root, "thresholds"), i, v)
    {
        /* A kind the step did not run (a short TPC-C step without a
         * Delivery) has no figure to miss the SLO with. */
        if (json_is_true(json_object_get(v, "passed")) ||
            (json_is_string(json_object_get(v, "kind")) && !isfinite(num_at(v, "measured"))))
            continue;
        s->passed = false;
        size_t len = strlen(s->failed);
        double m = num_at(v, "measured");
        const char *unit = json_string_value(json_object_get(v, "unit"));
        const char *expr = json_string_value(json_object_get(v, "expr"));
        snprintf(s->failed + len, sizeof(s->failed) - len, "%s%s (%.4g%s)", len ? ", " : "",
                 expr ? expr : "?", m, unit ? unit : "");
        json_array_append_new(s->missed,
                              json_pack("{s:s,s:o,s:o}", "expr", expr ? expr : "?", "measured",
                                        jnum(m), "unit", unit ? json_string(unit) : json_null()));
    }
    json_decref(root);
    s->ok = co_capsearch_ok(s->passed, s->arrivals, s->completed);
    if (s->passed && !s->ok)
        snprintf(s->failed, sizeof(s->failed),
                 "the open loop fell behind: %.0f of %.0f arrivals completed (< %.0f%%)",
                 s->completed, s->arrivals, CO_CAPSEARCH_KEPT_UP * 100);
    return true;
}

static void print_step(FILE *out, const struct step *s, size_t k)
{
    if (k == 1)
        fprintf(out, "%4s %10s %11s %9s %9s %9s %7s  %s\n", "step", "offered/s", "achieved/s",
                "p50 ms", "p95 ms", "p99 ms", "errors", "verdict");
    fprintf(out, "%4zu %10u %11.1f %9.2f %9.2f %9.2f %7.0f  %s%s%s%s\n", k, s->rate, s->achieved,
            s->p50, s->p95, s->p99, s->errors, s->ok ? "met" : "missed", s->failed[0] ? ": " : "",
            s->failed,
            s->busy        ? " [client saturated]"
            : s->retried   ? " [client lag: run again]"
            : s->saturated ? " [client lag]"
                           : "");
    fflush(out);
}

static int dump_cb(FILE *f, const void *arg)
{
    if (json_dumpf(arg, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
        return -EIO;
    fputc('\n', f);
    return 0;
}

/* The capacity JSON (--json=FILE): 0, or 1 (said). */
static int write_json(const struct cap *c, uint32_t good, uint32_t bad, const char *stopped)
{
    if (c->a->json_path == NULL)
        return 0;
    json_t *slo = json_array();
    for (size_t i = 0; i < c->n_slo; i++)
        json_array_append_new(slo, json_string(c->slo[i]));
    json_t *cap =
        json_pack("{s:o,s:[o,o],s:o,s:f,s:o}", "rate", good ? json_integer(good) : json_null(),
                  "bracket", good ? json_integer(good) : json_null(),
                  bad ? json_integer(bad) : json_null(), "slo", slo, "precision_pct",
                  c->cfg.precision_pct, "stopped", stopped ? json_string(stopped) : json_null());
    json_t *steps = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const struct step *s = &c->steps[i];
        json_t *o = json_pack("{s:I,s:o,s:{s:o,s:o,s:o},s:o,s:b,s:b,s:b,s:b,s:b,s:i,s:s}", "rate",
                              (json_int_t)s->rate, "achieved", jnum(s->achieved), "latency_ms",
                              "p50", jnum(s->p50), "p95", jnum(s->p95), "p99", jnum(s->p99),
                              "errors", jnum(s->errors), "passed", s->passed, "ok", s->ok,
                              "saturated", s->saturated, "client_busy", s->busy, "retried",
                              s->retried, "status", s->status, "file", s->file);
        json_object_set_new(o, "arrivals", jnum(s->arrivals));
        json_object_set_new(o, "completed", jnum(s->completed));
        json_object_set_new(o, "missed", s->missed ? json_incref(s->missed) : json_array());
        json_object_set_new(o, "why", s->failed[0] ? json_string(s->failed) : json_null());
        json_array_append_new(steps, o);
    }
    json_t *root = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "tool", "stampede", "version",
                             STAMPEDE_VERSION, "kind", "capacity", "workload",
                             c->a->workload ? c->a->workload : "", "capacity", cap, "steps", steps);
    struct pr_error err = {0};
    int rc = pr_write_atomic(c->a->json_path, "capacity JSON", dump_cb, root, &err);
    json_decref(root);
    if (rc != 0)
        fprintf(stderr, "stampede: %s\n", err.msg);
    return rc != 0;
}

/* A failed step's reason from its log to stderr: its first error lines
 * ("stampede: ..."), else its last lines; the first error into s->failed. */
static void failed_log(const struct cap *c, struct step *s, size_t k)
{
    char *log = fmt("%s/step-%zu.log", c->dir, k), line[1024], last[3][1024] = {"", "", ""};
    FILE *f = fopen(log, "r");
    size_t n = 0, errs = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "stampede: ", 10) == 0 && errs < 3) {
            if (errs++ == 0)
                snprintf(s->failed, sizeof(s->failed), "%.*s", (int)strcspn(line + 10, "\n"),
                         line + 10);
            fprintf(stderr, "  %s: %s", log, line);
        }
        snprintf(last[n++ % 3], sizeof(last[0]), "%s", line);
    }
    for (size_t i = n > 3 ? n - 3 : 0; errs == 0 && i < n; i++)
        fprintf(stderr, "  %s: %s", log, last[i % 3]);
    if (f)
        fclose(f);
    free(log);
}

/* The steps the search counts (not a retried one, nor a failed run), *n
 * of them. */
static struct co_capstep *counted(const struct cap *c, size_t *n)
{
    struct co_capstep *cs = pr_xcalloc(c->n + 1, sizeof(*cs));
    for (size_t i = 0; i < c->n; i++)
        if (!c->steps[i].retried && (c->steps[i].status == 0 || c->steps[i].status == 3))
            cs[(*n)++] = (struct co_capstep){c->steps[i].rate, c->steps[i].ok};
    return cs;
}

/* Steps until the search ends: the reason it stopped early into stopped
 * ("" when it ended by itself), *end how. The exit status so far. */
static int search(struct cap *c, FILE *out, char *stopped, size_t len, enum co_capsearch_end *end)
{
    for (;;) {
        size_t m = 0;
        struct co_capstep *cs = counted(c, &m);
        uint32_t rate = co_capsearch_next(cs, m, &c->cfg, end);
        free(cs);
        if (c->n > 0 && c->steps[c->n - 1].retried) /* the same rate again */
            rate = c->steps[c->n - 1].rate, *end = CO_CAPSEARCH_GO;
        if (c->n >= c->cfg.max_trials + 4 && rate != 0) {
            *end = CO_CAPSEARCH_MAX_TRIALS;
            rate = 0;
        }
        if (rate == 0)
            return 0;
        struct step *s = &c->steps[c->n++];
        *s = (struct step){.rate = rate,
                           .p50 = NAN,
                           .p95 = NAN,
                           .p99 = NAN,
                           .achieved = NAN,
                           .arrivals = NAN,
                           .completed = NAN};
        s->file = fmt("%s/step-%zu.json", c->dir, c->n);
        s->status = run_step(c, s, c->n);
        if (interrupted) {
            snprintf(stopped, len, "interrupted during step %zu (%u/s): the steps before it kept",
                     c->n, rate);
            c->n--;
            free(s->file);
            json_decref(s->missed);
            return 1;
        }
        if (s->status < 0 || (s->status != 0 && s->status != 3) || !read_step(s)) {
            failed_log(c, s, c->n);
            snprintf(stopped, len, "step %zu (%u/s) failed (exit %d): %s; see %s/step-%zu.log",
                     c->n, rate, s->status,
                     s->failed[0] ? s->failed : "the run or the server failed", c->dir, c->n);
            return 1;
        }
        /* A miss while an agent's loop lagged (agents[].saturated) may be
         * the client's hiccup (a shared machine): once, the step runs again. */
        s->retried = !s->ok && s->saturated && !s->busy &&
                     !(c->n > 1 && c->steps[c->n - 2].retried && c->steps[c->n - 2].rate == rate);
        print_step(out, s, c->n);
        /* The client's CPU is the limit: a higher rate would measure the
         * load generator. A lag alone (agents[].saturated without it) is
         * noted on the step: near capacity the open loop's own queue and
         * a shared machine's hiccups cause it. */
        if (s->busy) {
            snprintf(stopped, len,
                     "the client saturated at %u/s (step %zu: an agent's CPU averaged %.0f%% of "
                     "one core with %.0f core(s) usable, and %.0f%% of its cores is saturated; "
                     "see its JSON agents[].cpu_pct): the capacity is a lower bound, add load "
                     "generators",
                     rate, c->n, s->busy_cpu, s->busy_cores,
                     CO_SUMMARY_SATURATED_CPU_SHARE * 100.0);
            return 0;
        }
    }
}

/* The SLO's terms: --slo's, or the family's (co_family.capacity_slo). */
static void split_slo(struct cap *c, const struct co_family *fam)
{
    c->slo_text = c->a->slo ? pr_xstrdup(c->a->slo) : fam->capacity_slo(c->a);
    const char *slo = c->slo_text;
    char *copy = pr_xstrdup(slo), *save = NULL;
    c->slo = pr_xcalloc(strlen(slo) + 1, sizeof(char *));
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        c->slo[c->n_slo++] = pr_xstrdup(t);
    free(copy);
}

static int conclude(struct cap *c, FILE *out, int rc, enum co_capsearch_end end, char *stopped)
{
    uint32_t good, bad;
    size_t m = 0;
    struct co_capstep *cs = counted(c, &m);
    co_capsearch_bracket(cs, m, &good, &bad);
    free(cs);
    size_t len = CAP_STOPPED_LEN;
    if (!stopped[0] && end == CO_CAPSEARCH_MAX_TRIALS)
        snprintf(stopped, len, "--capacity-max-trials=%u steps ran", c->cfg.max_trials);
    else if (!stopped[0] && end == CO_CAPSEARCH_MAX_RATE)
        snprintf(stopped, len, "the SLO still held at the highest rate, %u/s", c->cfg.max_rate);
    else if (!stopped[0] && end == CO_CAPSEARCH_START_MISSED)
        snprintf(stopped, len,
                 "the SLO is not met even at the start rate %u/s: give a lower --capacity-start",
                 c->cfg.start);
    fputc('\n', out);
    if (good && bad && !stopped[0])
        fprintf(out, "capacity: %u/s (bracket %u..%u/s, precision %.1f%%)\n", good, good, bad,
                (double)(bad - good) * 100.0 / good);
    else if (good && bad)
        fprintf(out, "capacity: %u/s (bracket %u..%u/s; stopped: %s)\n", good, good, bad, stopped);
    else if (good)
        fprintf(out, "capacity: at least %u/s (a lower bound; stopped: %s)\n", good, stopped);
    else
        fprintf(out, "capacity: none found (stopped: %s)\n", stopped);
    fflush(out);
    if (stopped[0])
        fprintf(stderr, "stampede: --find-capacity stopped: %s\n", stopped);
    int wrc = write_json(c, good, bad, stopped[0] ? stopped : NULL);
    if (rc == 0 && !good)
        rc = 3;
    return rc ? rc : wrc;
}

int co_capacity_run(const struct co_args *a, int argc, char **argv, const char *self, FILE *out)
{
    if (self == NULL) {
        fprintf(stderr, "stampede: --find-capacity: cannot find this program (/proc/self/exe)\n");
        return 1;
    }
    struct cap c = {.a = a, .self = self, .dir = a->capacity_dir ? a->capacity_dir : "capacity"};
    const struct co_family *fam = a->workload ? co_registry_find(a->workload) : NULL;
    c.warmup_opt = fam ? fam->capacity_warmup_opt : NULL;
    c.cfg = (struct co_capsearch_cfg){
        .start = a->capacity_start ? a->capacity_start : 10,
        .precision_pct = a->capacity_precision > 0 ? a->capacity_precision : 5.0,
        .max_trials = a->capacity_max_trials ? a->capacity_max_trials : 20,
        .max_rate = 1000000000u};
    c.base = pr_xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 1; i < argc; i++)
        if (!dropped(argv[i]))
            c.base[c.n_base++] = argv[i];
    split_slo(&c, fam); /* co__args_capacity_check: --slo, or the family has one */
    c.steps = pr_xcalloc(c.cfg.max_trials + 5, sizeof(*c.steps)); /* + the retries */
    char stopped[CAP_STOPPED_LEN] = "";
    enum co_capsearch_end end = CO_CAPSEARCH_GO;
    int rc = 0;
    char *first = fmt("%s/step-1.json", c.dir);
    if (mkdir(c.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "stampede: --capacity-dir=%s: cannot create it: %s\n", c.dir,
                strerror(errno));
        rc = 1;
    } else if (access(first, F_OK) == 0) {
        fprintf(stderr,
                "stampede: %s exists: --capacity-dir=%s holds a search already; choose another "
                "(nothing is overwritten)\n",
                first, c.dir);
        rc = 1;
    } else {
        fprintf(out,
                "finding the capacity under the SLO %s: steps of %us after %us of warm-up, "
                "from %u/s, to %.1f%%; each step's files in %s/\n",
                c.slo_text, a->capacity_trial_s ? a->capacity_trial_s : 5,
                a->capacity_warmup_s ? a->capacity_warmup_s : 1, c.cfg.start, c.cfg.precision_pct,
                c.dir);
        rc = search(&c, out, stopped, sizeof(stopped), &end);
        rc = conclude(&c, out, rc, end, stopped);
    }
    free(first);
    for (size_t i = 0; i < c.n; i++) {
        free(c.steps[i].file);
        json_decref(c.steps[i].missed);
    }
    for (size_t i = 0; i < c.n_slo; i++)
        free(c.slo[i]);
    free(c.slo);
    free(c.slo_text);
    free(c.steps);
    free(c.base);
    return rc;
}
