/* co_compare: two targets run interleaved and compared (co_compare.h). */
#include "co_compare.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "co_rpt.h"
#include "pr_err.h"

extern char **environ;

#define MAX_REPEAT 1000

/* One side: its name, the arguments it adds, the hook before its runs. */
struct side {
    const char *name;
    const char **args;
    size_t n_args;
    const char *before;
};

struct cmp {
    struct side s[2];
    unsigned repeat;
    const char *dir;
    const char **report; /* options passed on to the report: --json, --fail-if, ... */
    size_t n_report;
    char **base; /* the command after "--" */
    size_t n_base;
};

static int usage(void)
{
    fprintf(stderr,
            "usage: stampede compare [--repeat=N] [--name-a=A] [--name-b=B] [--a=ARG]... "
            "[--b=ARG]...\n"
            "                        [--before-a=CMD] [--before-b=CMD] [--dir=DIR] "
            "[--json=FILE]\n"
            "                        [--fail-if=EXPR]... [--junit=FILE] [-o FILE] -- WORKLOAD "
            "[OPTIONS] run\n"
            "       (runs A B A B ... --repeat times each, then compares them as\n"
            "       `stampede report --group=A ... --group=B ...`)\n");
    return 2;
}

/* "--name=V": V, or NULL when arg is not that option. */
static const char *value_of(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && arg[len] == '=' ? arg + len + 1 : NULL;
}

/* A side's name goes into file names: letters, digits, '_', '-', '.'. */
static bool good_name(const char *s)
{
    if (*s == '\0' || *s == '.')
        return false;
    for (; *s; s++)
        if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
              (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return false;
    return true;
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Say what is wrong, and give the usage status. */
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "stampede compare: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* One option of ours at argv[i] into c: 0, 2 (said), or 1 (not ours). */
static int option(struct cmp *c, const char *arg)
{
    const char *v;
    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof(name), "--%c", 'a' + k);
        if ((v = value_of(arg, name)) != NULL) {
            c->s[k].args[c->s[k].n_args++] = v;
            return 0;
        }
        snprintf(name, sizeof(name), "--before-%c", 'a' + k);
        if ((v = value_of(arg, name)) != NULL) {
            c->s[k].before = v;
            return 0;
        }
        snprintf(name, sizeof(name), "--name-%c", 'a' + k);
        if ((v = value_of(arg, name)) != NULL) {
            c->s[k].name = v;
            return good_name(v) ? 0
                                : bad("%s: a side's name is letters, digits, _ - . (it "
                                      "names its run files)",
                                      arg);
        }
    }
    if ((v = value_of(arg, "--repeat")) != NULL) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno || *end || end == v || n < 2 || n > MAX_REPEAT)
            return bad("%s: runs per side, 2 to 1000 (one run a side has no verdict)", arg);
        c->repeat = (unsigned)n;
        return 0;
    }
    if ((v = value_of(arg, "--dir")) != NULL) {
        c->dir = v;
        return *v ? 0 : bad("%s: a directory for the run files", arg);
    }
    if (value_of(arg, "--json") || value_of(arg, "--fail-if") || value_of(arg, "--junit") ||
        value_of(arg, "--output")) {
        c->report[c->n_report++] = arg;
        return 0;
    }
    return 1;
}

/* argv into c: 0, or 2 (usage, said). */
static int parse(int argc, char **argv, struct cmp *c)
{
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            c->report[c->n_report++] = "-o";
            c->report[c->n_report++] = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage();
        int rc = option(c, argv[i]);
        if (rc == 1)
            return bad("unknown option %s (the run's own options go after \"--\")", argv[i]);
        if (rc != 0)
            return rc;
    }
    if (i >= argc - 1)
        return bad("%s", "no command to run: give it after \"--\", e.g. -- oltp_read_write "
                         "--time=60 run");
    c->base = argv + i + 1;
    c->n_base = (size_t)(argc - i - 1);
    for (size_t k = 0; k < c->n_base; k++)
        if (strncmp(c->base[k], "--json", 6) == 0)
            return bad("%s: compare writes each run's JSON into --dir itself; drop it (--json "
                       "before \"--\" writes the comparison)",
                       c->base[k]);
    if (strcmp(c->s[0].name, c->s[1].name) == 0)
        return bad("--name-a and --name-b are both '%s': give the sides two names", c->s[0].name);
    return 0;
}

/* The shell command of a hook, with the side and repeat in its
 * environment: 0, or -1 (said). */
static int run_hook(const struct side *s, char letter, unsigned rep, unsigned run, unsigned runs)
{
    if (s->before == NULL)
        return 0;
    char r[16];
    snprintf(r, sizeof(r), "%u", rep);
    setenv("STAMPEDE_COMPARE_SIDE", s->name, 1);
    setenv("STAMPEDE_COMPARE_REPEAT", r, 1);
    fflush(NULL);
    int st = system(s->before);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    fprintf(stderr,
            "stampede compare: the --before-%c command failed (%s %d) before run %u of %u (%s, "
            "repeat %u): %s\n",
            letter, st != -1 && WIFEXITED(st) ? "exit" : "status",
            st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : st, run, runs, s->name, rep, s->before);
    return -1;
}

/* One run of side s writing json: its exit status (0 or 3 count), or -1. */
static int run_one(const struct cmp *c, const struct side *s, const char *self, const char *json)
{
    size_t n = 0;
    char **argv = pr_xcalloc(c->n_base + s->n_args + 3, sizeof(*argv));
    char *jopt = pr_xmalloc(strlen(json) + 8);
    snprintf(jopt, strlen(json) + 8, "--json=%s", json);
    argv[n++] = (char *)self;
    for (size_t k = 0; k < c->n_base; k++) /* the command, then the side's options */
        argv[n++] = c->base[k];
    for (size_t k = 0; k < s->n_args; k++)
        argv[n++] = (char *)s->args[k];
    argv[n++] = jopt;
    fflush(NULL);
    /* Ctrl-C reaches the run (its own handler stops it and keeps what it
     * measured, exit 1) and not this process, which then says so. */
    posix_spawnattr_t at;
    co_spawn_sigdefault(&at);
    void (*old_int)(int) = signal(SIGINT, SIG_IGN), (*old_term)(int) = signal(SIGTERM, SIG_IGN);
    pid_t pid;
    int rc = posix_spawn(&pid, self, NULL, &at, argv, environ), st = 0;
    if (rc == 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
    posix_spawnattr_destroy(&at);
    free(jopt);
    free(argv);
    if (rc != 0) {
        fprintf(stderr, "stampede compare: cannot start %s: %s\n", self, strerror(rc));
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The comparison of the files written: `stampede report` with the groups. */
static int report(const struct cmp *c, char **files, size_t n_files)
{
    size_t n = 0;
    char **argv = pr_xcalloc(n_files + c->n_report + 4, sizeof(*argv));
    char ga[128], gb[128];
    snprintf(ga, sizeof(ga), "--group=%s", c->s[0].name);
    snprintf(gb, sizeof(gb), "--group=%s", c->s[1].name);
    argv[n++] = "report";
    for (int k = 0; k < 2; k++) {
        argv[n++] = k == 0 ? ga : gb;
        for (size_t i = (size_t)k; i < n_files; i += 2)
            argv[n++] = files[i];
    }
    for (size_t i = 0; i < c->n_report; i++)
        argv[n++] = (char *)c->report[i];
    int rc = co_rpt_main((int)n, argv);
    free(argv);
    return rc;
}

/* The runs, A B A B ...: their files into files[] (2 * repeat). 0, or 1
 * (said). */
static int run_all(const struct cmp *c, const char *self, char **files, size_t *n_files)
{
    unsigned runs = 2 * c->repeat;
    for (unsigned i = 0; i < runs; i++) {
        const struct side *s = &c->s[i % 2];
        unsigned rep = i / 2 + 1;
        size_t len = strlen(c->dir) + strlen(s->name) + 24;
        char *json = pr_xmalloc(len);
        snprintf(json, len, "%s/%s-%u.json", c->dir, s->name, rep);
        files[(*n_files)++] = json;
        if (access(json, F_OK) == 0) {
            fprintf(stderr,
                    "stampede compare: %s exists: --dir=%s holds a comparison already; "
                    "choose another --dir (nothing is overwritten)\n",
                    json, c->dir);
            return 1;
        }
        if (run_hook(s, (char)('a' + i % 2), rep, i + 1, runs) != 0)
            return 1;
        printf("=== compare run %u of %u: %s (repeat %u) ===\n", i + 1, runs, s->name, rep);
        int rc = run_one(c, s, self, json);
        if (rc != 0 && rc != 3) {
            fprintf(stderr,
                    "stampede compare: run %u of %u (%s, repeat %u) failed (exit %d); the runs "
                    "before it are kept in %s\n",
                    i + 1, runs, s->name, rep, rc, c->dir);
            return 1;
        }
    }
    return 0;
}

void co_spawn_sigdefault(posix_spawnattr_t *at)
{
    sigset_t dfl;
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigdefault(at, &dfl);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGDEF);
}

int co_compare_main(int argc, char **argv, const char *self)
{
    struct cmp c = {.s = {{.name = "A"}, {.name = "B"}}, .repeat = 3, .dir = "compare"};
    c.s[0].args = pr_xcalloc((size_t)argc, sizeof(char *));
    c.s[1].args = pr_xcalloc((size_t)argc, sizeof(char *));
    c.report = pr_xcalloc((size_t)argc * 2, sizeof(char *));
    int rc = self == NULL ? (fprintf(stderr, "stampede compare: cannot find this program "
                                             "(/proc/self/exe)\n"),
                             1)
                          : parse(argc, argv, &c);
    if (rc == 0 && mkdir(c.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "stampede compare: --dir=%s: cannot create it: %s\n", c.dir,
                strerror(errno));
        rc = 1;
    }
    size_t n_files = 0;
    char **files = pr_xcalloc(2 * (size_t)c.repeat, sizeof(*files));
    if (rc == 0)
        rc = run_all(&c, self, files, &n_files);
    if (rc == 0) {
        printf("=== compare: %s vs %s, %u runs each, interleaved ===\n", c.s[1].name, c.s[0].name,
               c.repeat);
        rc = report(&c, files, n_files);
    }
    for (size_t i = 0; i < n_files; i++)
        free(files[i]);
    free(files);
    free(c.s[0].args);
    free(c.s[1].args);
    free(c.report);
    return rc;
}
