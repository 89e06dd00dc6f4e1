/* co_spawn: local agents for a run without --listen: keys, config files, processes (contract:
 * co_spawn.h). */
#include "co_spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FILE_PATH_CAP 128 /* "/tmp/stampede-XXXXXX/local-NNNN.secret" and the like */

extern char **environ;

struct co_spawn {
    uint32_t n;                   /* agents */
    char dir[64];                 /* private directory */
    char bin[4096];               /* agent executable */
    char endpoint[128];           /* ipc://dir/coord.sock */
    struct co_keypair server;     /* coordinator keys */
    pid_t *pids;                  /* per agent, 0 = not running */
    char **envp;                  /* the agents' cleaned environment, NULL ended */
    char (*files)[FILE_PATH_CAP]; /* every path we may create in dir, n_files */
    size_t n_files;               /* 3 per agent + the ipc socket + lock */
    int lock_fd;                  /* dir/lock, flock()ed while we live (-1: none) */
    pid_t owner;                  /* the coordinator (a forked child removes nothing) */
    co_spawn_stop_fn stopped;     /* the caller's: asked to stop (co_spawn_new) */
};

#define DIR_PREFIX "stampede-"
#define LOCK_NAME  "lock"

/* The prepared set whose files a second signal removes (co_spawn_remove_now).
 * A signal handler cannot be given an argument, so this is the one mutable
 * global here; set and cleared on the coordinator's main thread. */
static co_spawn *volatile armed;

/* Variables a local agent may inherit. Everything else (MYSQL_PWD above all,
 * and whatever else the user's shell holds) stays out of its
 * /proc/PID/environ: the password reaches agents only inside the PLAN. */
static const char *const env_keep[] = {
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "ASAN_OPTIONS",
    "UBSAN_OPTIONS",
    "TSAN_OPTIONS",
    "LSAN_OPTIONS",
    "MSAN_OPTIONS",
    "MALLOC_PERTURB_",
    "LD_LIBRARY_PATH",
    "MYSQL_UNIX_PORT",
    "MYSQL_TCP_PORT",
    "STAMPEDE_ALLOW_CORE_DUMPS",
    "MARIADB_PLUGIN_DIR",
    "LIBMYSQL_PLUGIN_DIR",
};

bool co_spawn_env_kept(const char *entry)
{
    size_t len = strcspn(entry, "=");

    if (entry[len] != '=')
        return false;
    for (size_t i = 0; i < sizeof env_keep / sizeof env_keep[0]; i++) {
        size_t klen = strlen(env_keep[i]);
        if (env_keep[i][klen - 1] == '*' ? strncmp(entry, env_keep[i], klen - 1) == 0
                                         : klen == len && strncmp(entry, env_keep[i], len) == 0)
            return true;
    }
    return false;
}

/* The filtered copy of our environment, built before fork (the child of a
 * threaded process must not allocate). */
static char **clean_env(void)
{
    size_t n = 0, k = 0;

    for (char **e = environ; e && *e; e++)
        n++;
    char **out = pr_xcalloc(n + 1, sizeof *out);
    for (char **e = environ; e && *e; e++)
        if (co_spawn_env_kept(*e))
            out[k++] = pr_xstrdup(*e);
    return out;
}

static bool is_exec(const char *path)
{
    return access(path, X_OK) == 0;
}

/* Beside self, in the build tree, then on $PATH. */
static int find_agent(co_spawn *s, const char *agent_bin, const char *self_exe,
                      struct pr_error *err)
{
    char self[4096], *dir;

    if (agent_bin) {
        snprintf(s->bin, sizeof(s->bin), "%s", agent_bin);
        if (!is_exec(s->bin))
            return pr_error_set(err, PR_EINVAL, "--agent-bin=%s is not an executable", agent_bin);
        return 0;
    }
    snprintf(self, sizeof(self), "%s", self_exe ? self_exe : "");
    dir = dirname(self);
    snprintf(s->bin, sizeof(s->bin), "%s/stampede-agent", dir);
    if (is_exec(s->bin))
        return 0;
    snprintf(s->bin, sizeof(s->bin), "%s/../agent/stampede-agent", dir);
    if (is_exec(s->bin))
        return 0;
    const char *path = getenv("PATH");
    char *copy = pr_xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin"), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(s->bin, sizeof(s->bin), "%s/stampede-agent", d);
        if (is_exec(s->bin)) {
            free(copy);
            return 0;
        }
    }
    free(copy);
    return pr_error_set(err, PR_EINVAL,
                        "cannot find stampede-agent beside %s or on $PATH; install it or give "
                        "--agent-bin=PATH",
                        self_exe ? self_exe : "stampede");
}

static int write_config(co_spawn *s, uint32_t i, const char *name, uint32_t workers,
                        struct pr_error *err)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s.conf", s->dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL)
        return pr_error_set(err, -errno, "cannot write %s: %s", path, strerror(errno));
    fprintf(f,
            "# local agent %u, written by stampede for one run\n"
            "coordinator = %s\ncoordinator-key = %s\nsecret-key-file = %s/%s.secret\n"
            "name = %s\nworkers = %u\nlog-level = warn\nallow-scripts = yes\n",
            i + 1, s->endpoint, s->server.public_key, s->dir, name, name, workers);
    return fclose(f) == 0 ? 0 : pr_error_set(err, -EIO, "cannot write %s", path);
}

static void agent_name(const co_spawn *s, uint32_t i, char *out, size_t len)
{
    int width = s->n >= 1000 ? 4 : s->n >= 100 ? 3 : s->n >= 10 ? 2 : 1;
    snprintf(out, len, "local-%0*u", width, i + 1);
}

/* Every path the directory can hold, for co_spawn_remove_now(). */
static void list_files(co_spawn *s)
{
    static const char *const ext[] = {"secret", "pub", "conf"};
    char name[32];

    s->files = pr_xcalloc((size_t)s->n * 3 + 3, sizeof *s->files);
    for (uint32_t i = 0; i < s->n; i++) {
        agent_name(s, i, name, sizeof(name));
        for (size_t k = 0; k < 3; k++)
            snprintf(s->files[s->n_files++], FILE_PATH_CAP, "%s/%s.%s", s->dir, name, ext[k]);
    }
    snprintf(s->files[s->n_files++], FILE_PATH_CAP, "%s/coord.sock", s->dir);
    snprintf(s->files[s->n_files++], FILE_PATH_CAP, "%s/" LOCK_NAME, s->dir);
    snprintf(s->files[s->n_files++], FILE_PATH_CAP, "%s/" LOCK_NAME ".new", s->dir);
}

/* ---- no key directory left behind ---------------------------------------
 * Whatever ends the coordinator short of SIGKILL removes its directory: a
 * signal whose default ends the process (a crash included) runs
 * co_spawn_remove_now() and then the action it replaced (the default, or a
 * sanitizer's report), exit() runs it at exit. What SIGKILL (or a power
 * cut) leaves, the next run removes: a directory whose lock no live
 * process holds (flock is released with the last descriptor, by any end). */

static const int fatal_signals[] = {SIGSEGV, SIGBUS,  SIGFPE,    SIGILL,  SIGABRT, SIGTRAP,
                                    SIGSYS,  SIGHUP,  SIGQUIT,   SIGUSR1, SIGUSR2, SIGALRM,
                                    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction fatal_old[N_FATAL];

static void on_fatal(int sig)
{
    co_spawn_remove_now();
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &fatal_old[i], NULL);
    raise(sig);       /* at once under SIG_DFL; a sanitizer's handler reports and exits */
    _exit(128 + sig); /* a runtime that defers signals (TSan) returned here */
}

static void guard_install(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (size_t i = 0; i < N_FATAL; i++) {
        struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_NODEFER};
        sigemptyset(&sa.sa_mask);
        if (sigaction(fatal_signals[i], NULL, &fatal_old[i]) != 0 ||
            fatal_old[i].sa_handler == SIG_IGN) /* nohup: keep ignoring */
            continue;
        sigaction(fatal_signals[i], &sa, NULL);
    }
    atexit(co_spawn_remove_now);
}

/* Hold dir/lock: made as lock.new, locked, then renamed, so that a sweep
 * never sees an unlocked lock of a live run. */
static void lock_dir(co_spawn *s)
{
    char tmp[FILE_PATH_CAP], path[FILE_PATH_CAP];
    snprintf(tmp, sizeof tmp, "%s/" LOCK_NAME ".new", s->dir);
    snprintf(path, sizeof path, "%s/" LOCK_NAME, s->dir);
    s->lock_fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (s->lock_fd >= 0 && (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0 || rename(tmp, path) != 0)) {
        close(s->lock_fd);
        s->lock_fd = -1;
    }
}

static void remove_dir(const char *dir);

/* Remove the directories of earlier runs (this user's) that no live process
 * holds; returns how many. A directory without a lock (being made, or from
 * a stampede before locks) is left alone. */
unsigned co_spawn_sweep_stale(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    unsigned n = 0;
    while (d && (e = readdir(d)) != NULL) {
        char dir[FILE_PATH_CAP], lock[FILE_PATH_CAP + 8];
        struct stat st;
        if (strncmp(e->d_name, DIR_PREFIX, strlen(DIR_PREFIX)) != 0 ||
            strlen(e->d_name) != strlen(DIR_PREFIX) + 6)
            continue;
        snprintf(dir, sizeof dir, "%s/%s", tmpdir, e->d_name);
        if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        snprintf(lock, sizeof lock, "%s/" LOCK_NAME, dir);
        int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            remove_dir(dir);
            n++;
        }
        close(fd);
    }
    if (d)
        closedir(d);
    return n;
}

co_spawn *co_spawn_new(uint32_t n, const char *agent_bin, const char *self_exe, uint32_t workers,
                       co_keyring *kr, co_spawn_stop_fn stopped, struct pr_error *err)
{
    co_spawn *s = pr_xcalloc(1, sizeof(*s));
    s->n = n;
    s->stopped = stopped;
    s->pids = pr_xcalloc(n, sizeof(*s->pids));
    s->lock_fd = -1;
    s->owner = getpid();
    co_spawn_sweep_stale("/tmp");
    snprintf(s->dir, sizeof(s->dir), "/tmp/" DIR_PREFIX "XXXXXX");
    if (find_agent(s, agent_bin, self_exe, err) != 0)
        goto fail;
    if (mkdtemp(s->dir) == NULL) {
        pr_error_set(err, -errno, "cannot create a private directory in /tmp: %s", strerror(errno));
        s->dir[0] = '\0';
        goto fail;
    }
    snprintf(s->endpoint, sizeof(s->endpoint), "ipc://%s/coord.sock", s->dir);
    list_files(s);
    guard_install();
    armed = s;
    lock_dir(s);
    s->envp = clean_env();
    if (co_keys_generate(&s->server, err) != 0)
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        struct co_keypair kp;
        char name[32];
        if (s->stopped()) { /* SIGINT/SIGTERM while the keys are made */
            pr_error_set(err, -EINTR, "interrupted while making the local agents' keys");
            goto fail;
        }
        agent_name(s, i, name, sizeof(name));
        if (co_keys_generate(&kp, err) != 0 || co_keys_write(s->dir, name, &kp, err) != 0 ||
            write_config(s, i, name, workers, err) != 0 ||
            co_keyring_add(kr, kp.public_key, name) != 0)
            goto fail;
        memset(kp.secret_key, 0, sizeof(kp.secret_key));
    }
    return s;
fail:
    co_spawn_destroy(&s, 0);
    return NULL;
}

const struct co_keypair *co_spawn_server_keys(const co_spawn *s)
{
    return &s->server;
}

const char *co_spawn_endpoint(const co_spawn *s)
{
    return s->endpoint;
}

int co_spawn_start(co_spawn *s, struct pr_error *err)
{
    pid_t parent = getpid();
    for (uint32_t i = 0; i < s->n; i++) {
        char name[32], conf[160];
        agent_name(s, i, name, sizeof(name));
        snprintf(conf, sizeof(conf), "--config=%s/%s.conf", s->dir, name);
        if (s->stopped()) /* the caller stops those started (co_spawn_destroy) */
            return pr_error_set(err, -EINTR, "interrupted while starting the local agents");
        pid_t pid = fork();
        if (pid < 0)
            return pr_error_set(err, -errno, "fork: %s", strerror(errno));
        if (pid == 0) {
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(1);
            execve(s->bin, (char *[]){s->bin, conf, NULL}, s->envp);
            fprintf(stderr, "stampede: cannot run %s: %s\n", s->bin, strerror(errno));
            _exit(127);
        }
        s->pids[i] = pid;
    }
    return 0;
}

uint32_t co_spawn_exited(co_spawn *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->pids[i] > 0 && waitpid(s->pids[i], NULL, WNOHANG) == s->pids[i])
            s->pids[i] = -1;
        n += s->pids[i] < 0;
    }
    return n;
}

bool co_spawn_reap(co_spawn *s, char *name, size_t name_len, char *why, size_t why_len)
{
    for (uint32_t i = 0; i < s->n; i++) {
        int st = 0;
        if (s->pids[i] <= 0 || waitpid(s->pids[i], &st, WNOHANG) != s->pids[i])
            continue;
        s->pids[i] = -1;
        agent_name(s, i, name, name_len);
        if (WIFSIGNALED(st))
            snprintf(why, why_len, "its process was killed by signal %d", WTERMSIG(st));
        else
            snprintf(why, why_len, "its process exited with status %d", WEXITSTATUS(st));
        return true;
    }
    return false;
}

static bool all_reaped(co_spawn *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->pids[i] > 0) {
            if (waitpid(s->pids[i], NULL, WNOHANG) != s->pids[i])
                return false;
            s->pids[i] = -1;
        }
    return true;
}

/* The directory holds only files we wrote and the ipc socket. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

void co_spawn_destroy(co_spawn **sp, int timeout_ms)
{
    co_spawn *s = sp ? *sp : NULL;
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->pids[i] > 0)
            kill(s->pids[i], SIGTERM);
    for (int waited = 0; !all_reaped(s) && waited < timeout_ms; waited += 10)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->pids[i] > 0) {
            kill(s->pids[i], SIGKILL);
            waitpid(s->pids[i], NULL, 0);
        }
    if (armed == s)
        armed = NULL;
    if (s->dir[0])
        remove_dir(s->dir);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    for (char **e = s->envp; e && *e; e++)
        free(*e);
    free(s->envp);
    free(s->files);
    free(s->pids);
    free(s);
    *sp = NULL;
}

void co_spawn_remove_now(void)
{
    co_spawn *s = armed;

    if (s == NULL || getpid() != s->owner)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->pids[i] > 0)
            kill(s->pids[i], SIGTERM);
    for (size_t i = 0; i < s->n_files; i++)
        unlink(s->files[i]);
    rmdir(s->dir);
}
