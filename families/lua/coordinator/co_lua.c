/* co_lua: a user's Lua script on the coordinator. See co_lua.h. */
#include "co_lua.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <strings.h>

#include "pr_lua.h"
#include "pr_lua_db.h"
#include "pr_parse.h"

#define SYSTEM_DIR  "/usr/share/sysbench"
#define LOAD_MS     5000 /* longest the script's top level may run here */
#define MAX_SOURCES PR_MSG_MAX_SCRIPTS

/* One option the script declares. */
struct lopt {
    char *name; /* '_' spelling */
    char *help; /* its description */
    char *def;  /* default as text, NULL when none */
    int type;   /* LUA_TBOOLEAN, LUA_TNUMBER, LUA_TSTRING or LUA_TNIL (any text) */
};

struct co_lua {
    char *workload;           /* "lua:NAME" */
    char *path;               /* the script as found (for messages) */
    char *dir;                /* the script's directory */
    char *names[MAX_SOURCES]; /* module names, [0] the script */
    char *texts[MAX_SOURCES]; /* their sources */
    size_t n;                 /* sources read */
    struct lopt *opts;        /* sysbench.cmdline.options */
    size_t n_opts;
    lua_State *L;  /* the loaded script, kept for its report hook */
    char *cmd;     /* the command it was loaded for */
    bool has_cmd;  /* the command exists */
    bool parallel; /* it runs in every thread */
    char why[512]; /* a searcher's error (too many modules, unreadable) */
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool co_lua_wants(const char *word, bool builtin, bool forced)
{
    if (forced)
        return true;
    if (strchr(word, '/') && ends_with(word, ".lua"))
        return true;
    return !builtin;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            buf = pr_xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static bool exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* dir/NAME.lua in the search order: dirs[0] first when given. */
static char *search(const char *first_dir, const char *name)
{
    char path[4096];
    const char *sp = getenv("SYSBENCH_PATH");
    if (first_dir) {
        snprintf(path, sizeof path, "%s/%s.lua", first_dir, name);
        if (exists(path))
            return pr_xstrdup(path);
    }
    while (sp && *sp) {
        size_t len = strcspn(sp, ":");
        if (len > 0) {
            snprintf(path, sizeof path, "%.*s/%s.lua", (int)len, sp, name);
            if (exists(path))
                return pr_xstrdup(path);
        }
        sp += len + (sp[len] == ':');
    }
    snprintf(path, sizeof path, "%s/%s.lua", SYSTEM_DIR, name);
    return exists(path) ? pr_xstrdup(path) : NULL;
}

char *co_lua_find(const char *word)
{
    if (strchr(word, '/') || (ends_with(word, ".lua") && exists(word)))
        return exists(word) ? pr_xstrdup(word) : NULL;
    char name[256];
    snprintf(name, sizeof name, "%s", word);
    if (ends_with(name, ".lua"))
        name[strlen(name) - 4] = '\0';
    return search(".", name);
}

/* ---- reading the sources ---------------------------------------------- */

static bool have(const co_lua *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return true;
    return false;
}

/* Module `name`'s file: the script's directory first. */
static char *read_module(co_lua *l, const char *name, size_t *len)
{
    char file[256];
    snprintf(file, sizeof file, "%s", name);
    for (char *p = file; *p; p++)
        if (*p == '.')
            *p = '/';
    char *path = search(l->dir, file);
    if (path == NULL)
        return NULL;
    char *text = read_file(path, len);
    free(path);
    return text;
}

/* A source travels as a string (PLAN scr*): a NUL byte would cut it short
 * unseen, and Lua source has none (a precompiled chunk does). */
static bool text_only(co_lua *l, const char *name, const char *text, size_t len)
{
    const char *nul = memchr(text, '\0', len);
    if (nul == NULL)
        return true;
    snprintf(l->why, sizeof l->why,
             "script error: %s.lua: a NUL byte at offset %zu: not Lua source text (stampede "
             "refuses precompiled chunks; give the .lua source)",
             name, (size_t)(nul - text));
    return false;
}

static bool add_source(co_lua *l, const char *name, char *text)
{
    if (l->n >= MAX_SOURCES) {
        snprintf(l->why, sizeof l->why, "more than %d Lua modules", MAX_SOURCES);
        free(text);
        return false;
    }
    if (strlen(text) > PR_MSG_SCRIPT_MAX || strlen(name) > PR_MSG_NAME_MAX) {
        snprintf(l->why, sizeof l->why, "%s.lua: larger than %u bytes (or its name is too long)",
                 name, PR_MSG_SCRIPT_MAX);
        free(text);
        return false;
    }
    l->names[l->n] = pr_xstrdup(name);
    l->texts[l->n++] = text;
    return true;
}

/* package.loaders[2] on the coordinator: read the module, record it. */
static int searcher(lua_State *L)
{
    co_lua *l = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    size_t len = 0;
    if (strcmp(name, "ffi") == 0) {
        lua_pushstring(L, "\n\tthe LuaJIT FFI is not available in stampede's sandbox (it "
                          "reaches any C function; docs/guide.md: Your own Lua scripts)");
        return 1;
    }
    char *text = read_module(l, name, &len);
    if (text == NULL) {
        lua_pushfstring(L, "\n\tno file '%s/%s.lua', none in $SYSBENCH_PATH or " SYSTEM_DIR, l->dir,
                        name);
        return 1;
    }
    char chunk[300];
    snprintf(chunk, sizeof chunk, "@%s.lua", name);
    if (!text_only(l, name, text, len)) {
        free(text);
        return luaL_error(L, "%s", l->why);
    }
    if (pr_lua_load_text(L, text, len, chunk) != 0) {
        free(text);
        return lua_error(L);
    }
    if (!have(l, name) && !add_source(l, name, text))
        return luaL_error(L, "%s", l->why);
    return 1;
}

/* require "x" / require("x") in the sources not yet read (a require
 * inside a function the top level never ran): read them too. */
static void static_requires(co_lua *l)
{
    for (size_t i = 0; i < l->n; i++) {
        for (const char *p = strstr(l->texts[i], "require"); p; p = strstr(p + 7, "require")) {
            const char *q = p + 7;
            while (*q == ' ' || *q == '(')
                q++;
            if (*q != '"' && *q != '\'')
                continue;
            char quote = *q++, name[128];
            size_t n = 0;
            while (q[n] && q[n] != quote && n + 1 < sizeof name)
                n++;
            if (q[n] != quote || n == 0)
                continue;
            memcpy(name, q, n);
            name[n] = '\0';
            size_t len;
            char *text = have(l, name) ? NULL : read_module(l, name, &len);
            if (text)
                add_source(l, name, text);
        }
    }
}

/* ---- the API check -------------------------------------------------------- */

static const char *const supported[] = {"sysbench.cmdline.options",
                                        "sysbench.cmdline.commands",
                                        "sysbench.cmdline.command",
                                        "sysbench.cmdline.PARALLEL_COMMAND",
                                        "sysbench.cmdline.ARG_",
                                        "sysbench.opt",
                                        "sysbench.tid",
                                        "sysbench.version",
                                        "sysbench.version_string",
                                        "sysbench.rand.uniform",
                                        "sysbench.rand.default",
                                        "sysbench.rand.gaussian",
                                        "sysbench.rand.special",
                                        "sysbench.rand.pareto",
                                        "sysbench.rand.zipfian",
                                        "sysbench.rand.unique",
                                        "sysbench.rand.string",
                                        "sysbench.rand.varstring",
                                        "sysbench.rand.uniform_uint64",
                                        "sysbench.rand.uniform_double",
                                        "sysbench.sql.driver",
                                        "sysbench.sql.type",
                                        "sysbench.sql.error",
                                        "sysbench.hooks.before_restart_event",
                                        "sysbench.error.RESTART_EVENT",
                                        "sysbench.hooks.report_intermediate",
                                        "sysbench.report_csv",
                                        "sysbench.report_json",
                                        "sysbench.hooks.report_cumulative",
                                        "sysbench.hooks.sql_error_ignorable",
                                        "sysbench.report_default",
                                        "sysbench.histogram.new",
                                        NULL};

static bool api_known(const char *name, size_t len)
{
    for (size_t i = 0; supported[i]; i++) {
        size_t n = strlen(supported[i]);
        bool prefix = supported[i][n - 1] == '_';
        if (len >= n && strncmp(name, supported[i], n) == 0 &&
            (prefix || len == n || name[n] == '.'))
            return true;
    }
    return false;
}

/* Skip a string or comment starting at p; returns the position after it
 * (counting lines), or p when none starts there. */
static const char *skip_literal(const char *p, unsigned *line)
{
    bool comment = p[0] == '-' && p[1] == '-';
    const char *s = comment ? p + 2 : p;
    if (s[0] == '[' && (s[1] == '[' || s[1] == '=')) {
        size_t eq = 0;
        while (s[1 + eq] == '=')
            eq++;
        if (s[1 + eq] == '[') {
            for (const char *q = s + 2 + eq; *q; q++) {
                if (*q == '\n')
                    (*line)++;
                if (*q == ']' && strncmp(q + 1, "========", eq) == 0 && q[1 + eq] == ']')
                    return q + 2 + eq;
            }
            return s + strlen(s);
        }
    }
    if (comment)
        return s + strcspn(s, "\n");
    if (*p == '"' || *p == '\'') {
        const char *q = p + 1;
        while (*q && *q != *p && *q != '\n')
            q += q[0] == '\\' && q[1] ? 2 : 1;
        return *q ? q + 1 : q;
    }
    return p;
}

/* sysbench.X names used outside strings and comments, against the list. */
static int check_api(const co_lua *l, struct pr_error *err)
{
    for (size_t i = 0; i < l->n; i++) {
        unsigned line = 1;
        const char *t = l->texts[i];
        for (const char *p = t; *p;) {
            const char *q = skip_literal(p, &line);
            if (q != p) {
                p = q;
                continue;
            }
            if (*p == '\n')
                line++;
            bool start = p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
            if (start && strncmp(p, "sysbench.", 9) == 0) {
                size_t n = 9;
                while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
                    n++;
                while (n > 0 && p[n - 1] == '.')
                    n--;
                if (!api_known(p, n))
                    return pr_error_set(err, PR_EINVAL,
                                        "%s.lua:%u: %.*s is not supported by stampede's Lua "
                                        "engine (docs/guide.md: Your own Lua scripts)",
                                        l->names[i], line, (int)n, p);
                p += n;
                continue;
            }
            p++;
        }
    }
    return 0;
}

/* ---- options and commands ------------------------------------------------- */

static void read_options(co_lua *l, lua_State *L)
{
    lua_getglobal(L, "sysbench");
    lua_getfield(L, -1, "cmdline");
    lua_getfield(L, -1, "options");
    size_t cap = 0;
    for (lua_pushnil(L); lua_istable(L, -2) && lua_next(L, -2); lua_pop(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            continue;
        if (l->n_opts == cap) {
            cap = cap ? cap * 2 : 32;
            l->opts = pr_xrealloc(l->opts, cap * sizeof *l->opts);
        }
        struct lopt *o = &l->opts[l->n_opts++];
        o->name = pr_xstrdup(lua_tostring(L, -2));
        for (char *p = o->name; *p; p++)
            if (*p == '-')
                *p = '_';
        o->help = pr_xstrdup("");
        o->def = NULL;
        o->type = LUA_TNIL;
        if (!lua_istable(L, -1))
            continue;
        lua_rawgeti(L, -1, 1);
        if (lua_isstring(L, -1)) {
            free(o->help);
            o->help = pr_xstrdup(lua_tostring(L, -1));
        }
        lua_rawgeti(L, -2, 2);
        o->type = lua_type(L, -1);
        if (o->type == LUA_TBOOLEAN)
            o->def = pr_xstrdup(lua_toboolean(L, -1) ? "on" : "off");
        else if (o->type == LUA_TNUMBER || o->type == LUA_TSTRING)
            o->def = pr_xstrdup(lua_tostring(L, -1));
        else
            o->type = LUA_TNIL;
        lua_pop(L, 2);
    }
    lua_pop(L, 3);
}

static int opt_cmp(const void *a, const void *b)
{
    return strcmp(((const struct lopt *)a)->name, ((const struct lopt *)b)->name);
}

static void read_command(co_lua *l, lua_State *L)
{
    lua_getglobal(L, "__sb_command");
    lua_getglobal(L, "sysbench");
    lua_getfield(L, -1, "cmdline");
    lua_getfield(L, -1, "command");
    lua_remove(L, -2);
    lua_remove(L, -2);
    if (lua_pcall(L, 1, 2, 0) == 0) {
        l->has_cmd = lua_isfunction(L, -2);
        l->parallel = lua_toboolean(L, -1);
    }
    lua_pop(L, 2);
}

static char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    char *n = pr_xstrdup(b ? b + 1 : path);
    if (ends_with(n, ".lua"))
        n[strlen(n) - 4] = '\0';
    return n;
}

co_lua *co_lua_load(const char *path, const char *cmd, struct pr_error *err)
{
    co_lua *l = pr_xcalloc(1, sizeof *l);
    size_t len;
    char *text = read_file(path, &len);
    char *name = base_name(path);
    const char *slash = strrchr(path, '/');
    l->dir = pr_xstrdup(slash ? path : ".");
    if (slash)
        l->dir[slash - path] = '\0';
    l->path = pr_xstrdup(path);
    l->workload = pr_xmalloc(strlen(name) + 5);
    sprintf(l->workload, "lua:%s", name);
    lua_State *L = NULL;
    if (text == NULL) {
        pr_error_set(err, PR_EINVAL, "cannot read the script %s: %s", path, strerror(errno));
        goto fail;
    }
    if (!text_only(l, name, text, len)) {
        free(text);
        pr_error_set(err, PR_EINVAL, "%s", l->why);
        goto fail;
    }
    if (!add_source(l, name, text) || (L = pr_lua_new(cmd, NULL, 0, NULL, err)) == NULL) {
        if (l->why[0])
            pr_error_set(err, PR_EINVAL, "%s", l->why);
        goto fail;
    }
    pr_lua_add_searcher(L, searcher, l);
    struct pr_lua_src main_src = {name, l->texts[0], strlen(l->texts[0])};
    if (pr_lua_add_sources(L, &main_src, 1, err) < 0)
        goto fail;
    pr_lua_watchdog_start(L, LOAD_MS);
    int rc = pr_lua_run_main(L, name, err);
    pr_lua_watchdog_start(L, 0);
    if (rc < 0)
        goto fail;
    static_requires(l);
    if (check_api(l, err) < 0)
        goto fail;
    read_options(l, L);
    if (l->n_opts > 1) /* sorted, as sysbench lists them */
        qsort(l->opts, l->n_opts, sizeof *l->opts, opt_cmp);
    read_command(l, L);
    l->cmd = pr_xstrdup(cmd);
    l->L = L;
    free(name);
    return l;
fail:
    if (L)
        lua_close(L);
    free(name);
    co_lua_destroy(&l);
    return NULL;
}

void co_lua_destroy(co_lua **lp)
{
    co_lua *l = *lp;
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->names[i]);
        free(l->texts[i]);
    }
    free(l->cmd);
    for (size_t i = 0; i < l->n_opts; i++) {
        free(l->opts[i].name);
        free(l->opts[i].help);
        free(l->opts[i].def);
    }
    free(l->opts);
    if (l->L)
        lua_close(l->L);
    free(l->dir);
    free(l->path);
    free(l->workload);
    free(l);
    *lp = NULL;
}

const char *co_lua_workload(const co_lua *l)
{
    return l->workload;
}

static bool name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
            return false;
    return *a == *b;
}

int co_lua_option(const co_lua *l, const char *name, const char *value, const char **canon,
                  struct pr_error *err)
{
    for (size_t i = 0; i < l->n_opts; i++) {
        const struct lopt *o = &l->opts[i];
        if (!name_eq(o->name, name))
            continue;
        *canon = o->name;
        bool b;
        char *end = NULL;
        if (o->type == LUA_TBOOLEAN && value && !pr_parse_bool(value, &b))
            return pr_error_set(err, PR_EINVAL,
                                "--%s: '%s' is not a boolean (" PR_BOOL_SPELLINGS
                                "; the script's default is %s)",
                                name, value, o->def);
        if (o->type == LUA_TNUMBER && (!value || (strtod(value, &end), *value == '\0' || *end)))
            return pr_error_set(err, PR_EINVAL,
                                "--%s: '%s' is not a number (the script's "
                                "default is %s)",
                                name, value ? value : "", o->def);
        if (o->type != LUA_TBOOLEAN && value == NULL)
            return pr_error_set(err, PR_EINVAL, "--%s needs a value (--%s=VALUE)", name, name);
        return 1;
    }
    return 0;
}

int co_lua_unknown_option(const co_lua *l, const char *name, struct pr_error *err)
{
    return pr_error_set(err, PR_EINVAL,
                        "unknown option --%s: %s.lua does not declare it in "
                        "sysbench.cmdline.options; see stampede %s help",
                        name, l->names[0], l->path);
}

bool co_lua_has_command(const co_lua *l)
{
    return l->has_cmd;
}

bool co_lua_cmd_parallel(const co_lua *l)
{
    return l->parallel;
}

void co_lua_plan_fill(const co_lua *l, struct pr_msg_plan *pl)
{
    pl->script_names = pr_xcalloc(l->n, sizeof(char *));
    pl->script_srcs = pr_xcalloc(l->n, sizeof(char *));
    for (size_t i = 0; i < l->n; i++) {
        pl->script_names[i] = pr_xstrdup(l->names[i]);
        pl->script_srcs[i] = pr_xstrdup(l->texts[i]);
    }
    pl->n_script_names = pl->n_script_srcs = (uint32_t)l->n;
    pl->script_hash =
        pr_lua_hash((const char *const *)l->names, (const char *const *)l->texts, l->n);
    if (co_lua_custom_command(l))
        pl->script_cmd = pr_xstrdup(l->cmd);
}

const char *co_lua_custom_command(const co_lua *l)
{
    for (int i = 0; i < PR_CMD_COUNT_; i++)
        if (strcmp(l->cmd, pr_plan_cmd_name((enum pr_plan_cmd)i)) == 0)
            return NULL;
    return strcmp(l->cmd, "help") == 0 || !l->has_cmd ? NULL : l->cmd;
}

char *co_lua_usage(const co_lua *l)
{
    size_t cap = 256, off = 0;
    char *s = pr_xmalloc(cap);
    off += (size_t)snprintf(s, cap, "%s.lua options:\n", l->names[0]);
    for (size_t i = 0; i < l->n_opts; i++) {
        const struct lopt *o = &l->opts[i];
        size_t need = strlen(o->name) + strlen(o->help) + (o->def ? strlen(o->def) : 0) + 64;
        if (off + need >= cap) {
            cap = (off + need) * 2;
            s = pr_xrealloc(s, cap);
        }
        char lhs[128];
        snprintf(lhs, sizeof lhs, "--%s%s", o->name,
                 o->type == LUA_TBOOLEAN  ? "[=on|off]"
                 : o->type == LUA_TNUMBER ? "=N"
                                          : "=STRING");
        off += (size_t)snprintf(s + off, cap - off, "  %-32s %s%s%s%s\n", lhs, o->help,
                                o->def ? " [" : "", o->def ? o->def : "", o->def ? "]" : "");
    }
    return s;
}

int co_lua_set_options(co_lua *l, const pr_opts *general, char *const *given, size_t n,
                       struct pr_error *err)
{
    lua_State *L = l->L;
    lua_getglobal(L, "__sb_set_options");
    lua_newtable(L);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(given[i], '=');
        if (eq == NULL)
            continue;
        lua_pushlstring(L, given[i], (size_t)(eq - given[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    pr_lua_push_general_opts(L, general);
    if (pr_lua_pcall(L, 2, 0) != 0) {
        pr_error_set(err, PR_EINVAL, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return PR_EINVAL;
    }
    return 0;
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

void co_lua_stat_counters(struct co_lua_stat *s, const struct pr_counters *c)
{
    s->events = c->transactions;
    s->reads = c->reads;
    s->writes = c->writes;
    s->other = c->other;
    s->errors = c->errors;
    s->reconnects = c->reconnects;
}

/* Run hook `name` with s: 1 ran, 0 none, -1 failed (said on stderr). */
static int report(co_lua *l, const char *name, const struct co_lua_stat *s)
{
    lua_State *L = l->L;
    lua_getglobal(L, "__sb_report");
    lua_pushstring(L, name);
    lua_newtable(L);
    set_num(L, "threads_running", s->threads_running);
    set_num(L, "time_interval", s->time_interval);
    set_num(L, "time_total", s->time_total);
    set_num(L, "latency_pct", s->latency_pct_s);
    set_num(L, "latency_min", s->latency_min_s);
    set_num(L, "latency_avg", s->latency_avg_s);
    set_num(L, "latency_max", s->latency_max_s);
    set_num(L, "latency_sum", s->latency_sum_s);
    set_num(L, "events", (double)s->events);
    set_num(L, "reads", (double)s->reads);
    set_num(L, "writes", (double)s->writes);
    set_num(L, "other", (double)s->other);
    set_num(L, "errors", (double)s->errors);
    set_num(L, "reconnects", (double)s->reconnects);
    set_num(L, "queue_length", (double)s->queue_length);
    set_num(L, "concurrency", (double)s->concurrency);
    pr_lua_watchdog_start(L, LOAD_MS);
    int rc = pr_lua_pcall(L, 2, 1);
    pr_lua_watchdog_start(L, 0);
    if (rc != 0) {
        fprintf(stderr, "stampede: %s.lua %s hook: %s\n", l->names[0], name, lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    bool ran = lua_toboolean(L, -1);
    lua_pop(L, 1);
    fflush(stdout);
    return ran ? 1 : 0;
}

int co_lua_report_intermediate(co_lua *l, const struct co_lua_stat *s)
{
    return report(l, "report_intermediate", s);
}

int co_lua_report_cumulative(co_lua *l, const struct co_lua_stat *s)
{
    return report(l, "report_cumulative", s);
}

/* Global function fn of the kept state, its queries on a blocking
 * connection to the run's first server (as every agent's probe connects). */
static int call_main(co_lua *l, const char *fn, const pr_opts *o, bool dry_run,
                     const struct pr_msg_plan *pl, struct pr_error *err)
{
    struct pr_tls_opts tls = {0};
    if (pr_tls_opts_from(&tls, o, err) < 0)
        return err->code;
    struct pr_lua_db_target t = {
        .host = pl->n_hosts ? pl->hosts[0] : "localhost",
        .port = pl->n_ports ? pl->ports[0] : 3306,
        .socket = pl->n_sockets ? pl->sockets[0] : NULL,
        .user = pl->user,
        .password = pl->password,
        .database = pl->database,
        .tls = &tls,
    };
    /* --mysql-dry-run: no server; the queries are answered empty */
    pr_lua_db *db = dry_run ? NULL : pr_lua_db_attach(l->L, &t);
    pr_lua_watchdog_start(l->L, LOAD_MS);
    int rc = pr_lua_call_global(l->L, fn, err);
    pr_lua_watchdog_start(l->L, 0);
    pr_lua_db_detach(l->L, &db);
    pr_tls_opts_clear(&tls);
    fflush(stdout);
    return rc;
}

int co_lua_init(co_lua *l, const pr_opts *o, bool dry_run, const struct pr_msg_plan *target,
                struct pr_error *err)
{
    if (call_main(l, "init", o, dry_run, target, err) == 0)
        return 0;
    char msg[sizeof(err->msg)];
    snprintf(msg, sizeof(msg), "%s", err->msg);
    return pr_error_set(err, PR_EINVAL, "%s.lua init(): %s", l->names[0], msg);
}

int co_lua_done(co_lua *l, const pr_opts *o, bool dry_run, const struct pr_msg_plan *target)
{
    struct pr_error err = {0};
    int rc = call_main(l, "done", o, dry_run, target, &err);
    if (rc < 0)
        fprintf(stderr, "stampede: %s.lua done(): %s\n", l->names[0], err.msg);
    return rc;
}
