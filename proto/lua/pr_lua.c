/* pr_lua: the sandboxed script state. See pr_lua.h. */
#include "pr_lua.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "pr_opts.h"
#include "pr_parse.h"

/* Registry key of the state's watchdog (a full userdata). */
static const char WATCHDOG_KEY[] = "pr_lua.watchdog";

struct watchdog {
    uint64_t deadline_ns; /* 0: not started (the next check starts it) */
    uint32_t limit_ms;    /* 0: disarmed */
    uint32_t mem_mib;     /* the state's memory cap, MiB; 0: none */
};

/* pr_lua_new's cap for the states it makes (pr_lua_set_memory_limit). */
static uint32_t default_mem_mib = PR_LUA_MEMORY_MIB;

void pr_lua_set_memory_limit(uint32_t mib)
{
    default_mem_mib = mib;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct watchdog *watchdog_of(lua_State *L)
{
    lua_pushlightuserdata(L, (void *)WATCHDOG_KEY);
    lua_rawget(L, LUA_REGISTRYINDEX);
    struct watchdog *w = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return w;
}

/* The clock starts at the first check after arming (at most
 * PR_LUA_HOOK_COUNT instructions late): arming costs no clock read, which
 * matters as the agent arms it around every resume. */
/* "FILE:LINE: " of the innermost function of the script running on L
 * (past stampede's prelude, where a query yields), or "". */
static void here(lua_State *L, char *at, size_t len)
{
    lua_Debug where;
    at[0] = '\0';
    for (int lvl = 0; lua_getstack(L, lvl, &where); lvl++)
        if (lua_getinfo(L, "Sl", &where) && where.currentline > 0 &&
            strcmp(where.short_src, "stampede_prelude") != 0) {
            snprintf(at, len, "%s:%d: ", where.short_src, where.currentline);
            return;
        }
}

bool pr_lua_memory_over(lua_State *L, lua_State *where, char *msg, size_t len)
{
    struct watchdog *w = watchdog_of(L);
    if (w == NULL || w->mem_mib == 0 ||
        (uint64_t)lua_gc(L, LUA_GCCOUNT, 0) <= (uint64_t)w->mem_mib * 1024u)
        return false;
    lua_gc(L, LUA_GCCOLLECT, 0); /* garbage not yet collected is no use */
    uint64_t kb = (uint64_t)lua_gc(L, LUA_GCCOUNT, 0);
    if (kb <= (uint64_t)w->mem_mib * 1024u)
        return false;
    char at[160];
    here(where, at, sizeof at);
    snprintf(msg, len,
             "script error: %sscript used more than %u MiB (%llu MiB live after a full "
             "collection; the agent's lua-memory-limit)",
             at, w->mem_mib, (unsigned long long)(kb / 1024u));
    return true;
}

static void hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct watchdog *w = watchdog_of(L);
    char msg[512];
    if (w != NULL && w->mem_mib != 0 && pr_lua_memory_over(L, L, msg, sizeof msg)) {
        lua_pushstring(L, msg);
        lua_error(L);
    }
    if (w == NULL || w->limit_ms == 0)
        return;
    uint64_t now = now_ns();
    if (w->deadline_ns == 0) {
        w->deadline_ns = now + (uint64_t)w->limit_ms * 1000000u;
        return;
    }
    if (now > w->deadline_ns) {
        lua_Debug where;
        char at[160] = "";
        unsigned limit = w->limit_ms;
        w->limit_ms = 0;
        w->deadline_ns = 0;
        if (lua_getstack(L, 0, &where) && lua_getinfo(L, "Sl", &where) && where.currentline > 0)
            snprintf(at, sizeof at, "%s:%d: ", where.short_src, where.currentline);
        luaL_error(L, "%sscript ran %u ms without yielding (a loop that sends no query?)", at,
                   limit);
    }
}

void pr_lua_watchdog_start(lua_State *L, uint32_t limit_ms)
{
    struct watchdog *w = watchdog_of(L);
    if (w) {
        w->limit_ms = limit_ms;
        w->deadline_ns = 0;
    }
}

void pr_lua_watchdog_rearm(lua_State *L)
{
    struct watchdog *w = watchdog_of(L);
    if (w)
        w->deadline_ns = 0;
}

static void open_lib(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void set_nil(lua_State *L, const char *table, const char *field)
{
    if (table) {
        lua_getglobal(L, table);
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            lua_setfield(L, -2, field);
        }
        lua_pop(L, 1);
    } else {
        lua_pushnil(L);
        lua_setglobal(L, field);
    }
}

/* Only package.preload (and a host searcher, added later) finds modules. */
static const char SANDBOX_LUA[] =
    "local l = package.loaders\n"
    "package.loaders = {l[1], function(n) if n == 'ffi' then return '\\n\\tthe LuaJIT FFI "
    "is not available in stampede\\'s sandbox (it reaches any C function)' end "
    "return \"\\n\\tmodule '\" .. n .. \"' was not shipped with the script\" end}\n"
    "package.path = '' package.cpath = ''\n"
    "package.loaded.ffi = nil package.preload.ffi = nil\n"
    "package.loaded.io = nil package.loaded.debug = nil\n"
    "local keep = {clock = os.clock, time = os.time, date = os.date, difftime = os.difftime}\n"
    "os = keep package.loaded.os = keep\n"
    /* Source text only: LuaJIT does not verify bytecode, so a tampered
     * binary chunk reaches any memory (issue 27). load's mode is forced
     * to "t" (loadstring is the same function) and string.dump is gone. */
    "local rawload = load\n"
    "load = function(ld, name, mode, ...) return rawload(ld, name, 't', ...) end\n"
    "loadstring = load string.dump = nil\n";

static int sandbox(lua_State *L, struct pr_error *err)
{
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_BITLIBNAME, luaopen_bit);
    open_lib(L, LUA_OSLIBNAME, luaopen_os);
    open_lib(L, LUA_LOADLIBNAME, luaopen_package);
    set_nil(L, NULL, "loadfile");
    set_nil(L, NULL, "dofile");
    set_nil(L, "package", "loadlib");
    pr_lua_pattern_install(L);
    if (luaL_loadbuffer(L, SANDBOX_LUA, sizeof SANDBOX_LUA - 1, "=sandbox") ||
        lua_pcall(L, 0, 0, 0))
        return pr_error_set(err, PR_EINVAL, "Lua sandbox: %s", lua_tostring(L, -1));
    return 0;
}

static int error_handler(lua_State *L);

/* host.parse_bool(text): pr_parse_bool's answer, or an error naming the
 * spellings (a script option's value, validated on the coordinator). */
static int parse_bool(lua_State *L)
{
    const char *v = luaL_checkstring(L, 1);
    bool b = false;
    if (!pr_parse_bool(v, &b))
        return luaL_error(L, "'%s' is not a boolean (" PR_BOOL_SPELLINGS ")", v);
    lua_pushboolean(L, b);
    return 1;
}

lua_State *pr_lua_new(const char *command, const struct pr_lua_fn *fns, size_t n, void *ud,
                      struct pr_error *err)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        pr_error_set(err, PR_EINVAL, "cannot create a Lua state (out of memory?)");
        return NULL;
    }
    lua_pushlightuserdata(L, (void *)WATCHDOG_KEY);
    struct watchdog *w = lua_newuserdata(L, sizeof *w);
    memset(w, 0, sizeof *w);
    w->mem_mib = default_mem_mib;
    lua_rawset(L, LUA_REGISTRYINDEX);
    if (sandbox(L, err) < 0)
        goto fail;
    lua_sethook(L, hook, LUA_MASKCOUNT, PR_LUA_HOOK_COUNT);
    if (luaL_loadbuffer(L, pr_lua_prelude, pr_lua_prelude_len, "=stampede_prelude")) {
        pr_error_set(err, PR_EINVAL, "Lua prelude: %s", lua_tostring(L, -1));
        goto fail;
    }
    lua_newtable(L);
    lua_pushcfunction(L, error_handler);
    lua_setfield(L, -2, "errtext");
    lua_pushcfunction(L, parse_bool);
    lua_setfield(L, -2, "parse_bool");
    for (size_t i = 0; i < n; i++) {
        lua_pushlightuserdata(L, ud);
        lua_pushcclosure(L, fns[i].fn, 1);
        lua_setfield(L, -2, fns[i].name);
    }
    if (lua_pcall(L, 1, 0, 0)) {
        pr_error_set(err, PR_EINVAL, "Lua prelude: %s", lua_tostring(L, -1));
        goto fail;
    }
    lua_getglobal(L, "sysbench");
    lua_getfield(L, -1, "cmdline");
    lua_pushstring(L, command);
    lua_setfield(L, -2, "command");
    lua_pop(L, 2);
    return L;
fail:
    lua_close(L);
    return NULL;
}

int pr_lua_load_text(lua_State *L, const char *text, size_t len, const char *chunk)
{
    if (len > 0 && text[0] == LUA_SIGNATURE[0]) {
        lua_pushfstring(L,
                        "%s: a precompiled (bytecode) chunk: stampede loads Lua source text "
                        "only",
                        chunk[0] == '@' || chunk[0] == '=' ? chunk + 1 : chunk);
        return LUA_ERRSYNTAX;
    }
    return luaL_loadbufferx(L, text, len, chunk, "t");
}

int pr_lua_add_sources(lua_State *L, const struct pr_lua_src *srcs, size_t n, struct pr_error *err)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (size_t i = 0; i < n; i++) {
        char chunk[128];
        snprintf(chunk, sizeof chunk, "@%s.lua", srcs[i].name);
        if (pr_lua_load_text(L, srcs[i].text, srcs[i].len, chunk)) {
            pr_error_set(err, PR_EINVAL, "script error: %s", lua_tostring(L, -1));
            lua_pop(L, 3);
            return PR_EINVAL;
        }
        lua_setfield(L, -2, srcs[i].name);
    }
    lua_pop(L, 2);
    return 0;
}

void pr_lua_add_searcher(lua_State *L, lua_CFunction fn, void *ud)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaders");
    lua_pushlightuserdata(L, ud);
    lua_pushcclosure(L, fn, 1);
    lua_rawseti(L, -2, 2); /* in place of "not shipped" */
    lua_pop(L, 2);
}

/* "FILE:LINE: " of the innermost function of the script on where's stack
 * ("" when none): the prelude's frames are stampede's API, whose errors
 * are the calling line's. */
static void where_text(lua_State *where, char *out, size_t len)
{
    lua_Debug ar;
    out[0] = '\0';
    for (int lvl = 0; where != NULL && lua_getstack(where, lvl, &ar); lvl++)
        if (lua_getinfo(where, "Sl", &ar) && ar.currentline > 0 &&
            strcmp(ar.short_src, "stampede_prelude") != 0) {
            snprintf(out, len, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
}

void pr_lua_error_text(lua_State *L, int idx, lua_State *where, char *buf, size_t len)
{
    char at[160];
    idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
    if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
        const char *m = lua_tostring(L, idx); /* error() put FILE:LINE; or made here */
        bool made = strncmp(m, "script error: ", 14) == 0 || strstr(m, "SQL error: ") != NULL;
        snprintf(buf, len, "%s%s", made ? "" : "script error: ", m);
        return;
    }
    where_text(where, at, sizeof at);
    if (lua_istable(L, idx)) {
        lua_getfield(L, idx, "sql_errmsg"); /* the driver's error object (sysbench's) */
        const char *m = lua_tostring(L, -1);
        if (m != NULL) {
            snprintf(buf, len, "%sSQL error: %s", at, m);
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, idx, "__tostring")) {
        lua_pushvalue(L, idx);
        if (lua_pcall(L, 1, 1, 0) == 0 && lua_isstring(L, -1))
            snprintf(buf, len, "script error: %s%s", at, lua_tostring(L, -1));
        else
            snprintf(buf, len, "script error: %s(an error object whose __tostring failed)", at);
        lua_pop(L, 1);
        return;
    }
    snprintf(buf, len, "script error: %san error object of type %s (error() with no message)", at,
             luaL_typename(L, idx));
}

/* lua_pcall's message handler: the error's text while its stack is still
 * there (for the FILE:LINE of an error object). */
static int error_handler(lua_State *L)
{
    char buf[512];
    if (lua_type(L, 1) == LUA_TSTRING)
        return 1;
    pr_lua_error_text(L, 1, L, buf, sizeof buf);
    lua_pushstring(L, buf);
    return 1;
}

int pr_lua_pcall(lua_State *L, int nargs, int nres)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, error_handler);
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    return rc;
}

/* The message of a failed pcall: "script error: FILE:LINE: ...". */
static int call_error(lua_State *L, struct pr_error *err)
{
    char buf[512];
    pr_lua_error_text(L, -1, NULL, buf, sizeof buf);
    pr_error_set(err, PR_EINVAL, "%s", buf);
    lua_pop(L, 1);
    return PR_EINVAL;
}

int pr_lua_run_main(lua_State *L, const char *name, struct pr_error *err)
{
    lua_getglobal(L, "require");
    lua_pushstring(L, name);
    if (pr_lua_pcall(L, 1, 0))
        return call_error(L, err);
    return 0;
}

int pr_lua_call_global(lua_State *L, const char *fn, struct pr_error *err)
{
    lua_getglobal(L, fn);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    if (pr_lua_pcall(L, 0, 0))
        return call_error(L, err);
    return 0;
}

/* sysbench.opt's general part: every general and mysql option, typed. */
void pr_lua_push_general_opts(lua_State *L, const pr_opts *o)
{
    size_t n;
    const struct pr_opt_def *defs = pr_opts_schema(&n);
    lua_newtable(L);
    lua_pushcfunction(L, error_handler);
    lua_setfield(L, -2, "errtext");
    for (size_t i = 0; i < n; i++) {
        const struct pr_opt_def *d = &defs[i];
        char key[PR_OPTS_NAME_MAX + 1];
        if (d->group == PR_OPT_SCRIPT || d->alias_of)
            continue;
        snprintf(key, sizeof key, "%s", d->name);
        for (char *p = key; *p; p++)
            if (*p == '-')
                *p = '_';
        switch (d->type) {
        case PR_OPT_INT:
            lua_pushnumber(L, (lua_Number)pr_opts_int(o, d->name));
            break;
        case PR_OPT_DOUBLE:
            lua_pushnumber(L, pr_opts_double(o, d->name));
            break;
        case PR_OPT_BOOL:
            lua_pushboolean(L, pr_opts_bool(o, d->name));
            break;
        default:
            lua_pushstring(L, pr_opts_str(o, d->name));
            break;
        }
        lua_setfield(L, -2, key);
    }
}

uint64_t pr_lua_hash(const char *const *names, const char *const *texts, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        const char *parts[2] = {names[i], texts[i]};
        for (int k = 0; k < 2; k++) {
            for (const unsigned char *p = (const unsigned char *)parts[k]; p && *p; p++) {
                h ^= *p;
                h *= 0x100000001b3ULL;
            }
            h ^= 0xff; /* separator */
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}
