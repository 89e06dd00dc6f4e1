/* Tests for pr_lua: the sandbox a user's script runs in (no way to the
 * disk or a shell, modules only from memory), errors naming FILE:LINE,
 * the watchdog stopping a script that never yields, the sources' hash. */
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "pr_lua.h"
#include "testlib.h"

static lua_State *state(void)
{
    struct pr_error err = {0};
    lua_State *L = pr_lua_new("run", NULL, 0, NULL, &err);
    CHECK_MSG(L != NULL, "%s", err.msg);
    return L;
}

/* Run chunk `src` as main script "t"; 0 or PR_EINVAL with err. */
static int run(lua_State *L, const char *src, struct pr_error *err)
{
    struct pr_lua_src s = {"t", src, strlen(src)};
    int rc = pr_lua_add_sources(L, &s, 1, err);
    return rc < 0 ? rc : pr_lua_run_main(L, "t", err);
}

static void test_sandbox(void)
{
    static const char *const gone[] = {
        "return loadfile",
        "return dofile",
        "return io",
        "return package.loadlib",
        "return os.getenv",
        "return debug",
        "return os.remove",
        "return require('ffi').load",
        "return require('ffi').cast",
    };
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        lua_State *L = state();
        char src[128];
        struct pr_error err = {0};
        /* either nil or an error (require of a module nobody shipped) */
        snprintf(src, sizeof src, "local v = (function() %s end)() assert(v == nil, 'present')",
                 gone[i]);
        int rc = run(L, src, &err);
        CHECK_MSG(rc == 0 || strstr(err.msg, "not found") != NULL, "%s: %s", gone[i], err.msg);
        lua_close(L);
    }
    lua_State *L = state();
    struct pr_error err = {0};
    CHECK(run(L,
              "assert(sysbench.cmdline.command == 'run') assert(os.time() > 0) "
              "assert(string.format('%d', 7) == '7') assert(bit.band(6, 3) == 2)",
              &err) == 0);
    lua_close(L);
}

/* What os.execute and require('ffi') still offer: sleep only, and exactly
 * the declarations sysbench-tpcc makes, mapped onto safe functions. */
static void test_exec_ffi_subset(void)
{
    static const struct {
        const char *src, *want; /* want NULL: runs; else in the error */
    } cases[] = {
        {"os.execute('ls /')", "stampede runs no command"},
        {"os.execute('sleep 1; rm -rf /')", "stampede runs no command"},
        {"assert(os.execute('sleep 0') == 0) assert(os.execute() == 0)", NULL},
        {"local f = require('ffi') f.cdef('int system(const char *)')",
         "does not offer 'int system"},
        {"local f = require('ffi') local x = f.C.system", "ffi.C.system: not declared"},
        {"local f = require('ffi') local x = f.C.usleep", "ffi.C.usleep: not declared"},
        {"local f = require('ffi') f.cdef[[\nvoid sb_counter_inc(int, sb_counter_type);\n"
         "typedef uint32_t useconds_t;\nint usleep(useconds_t useconds);\n]] "
         "assert(f.C.usleep(10) == 0) assert(f.C.SB_CNT_ERROR == 4) "
         "f.C.sb_counter_inc(0, f.C.SB_CNT_ERROR)",
         NULL},
        {"local f = require('ffi') f.cdef('void sb_counter_inc(int, sb_counter_type);') "
         "f.C.sb_counter_inc(0, f.C.SB_CNT_READ)",
         "counts only SB_CNT_ERROR"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lua_State *L = state();
        struct pr_error err = {0};
        int rc = run(L, cases[i].src, &err);
        if (cases[i].want == NULL)
            CHECK_MSG(rc == 0, "%s: %s", cases[i].src, err.msg);
        else
            CHECK_MSG(rc == PR_EINVAL && strstr(err.msg, cases[i].want) != NULL, "%s: %s",
                      cases[i].src, err.msg);
        lua_close(L);
    }
}

/* sysbench.histogram: buckets spaced logarithmically, values clamped into
 * the range, printed as sysbench prints them (bars scaled to the largest). */
static void test_histogram(void)
{
    static const char src[] =
        "local out = {}\n"
        "print = function(s) out[#out + 1] = s end\n"
        "local h = sysbench.histogram.new(10, 1, 1000)\n"
        "for _, v in ipairs({1, 10, 10, 100, 1000, 5000, 0.5}) do h:update(v) end\n"
        "h:print()\n"
        "local want = {\n"
        "  '       value  ------------- distribution ------------- count',\n"
        "  '       1.000 |' .. string.rep('*', 40) .. ' 2',\n"
        "  '      10.000 |' .. string.rep('*', 40) .. ' 2',\n"
        "  '     100.000 |' .. string.rep('*', 20) .. string.rep(' ', 20) .. ' 1',\n"
        "  '    1000.000 |' .. string.rep('*', 40) .. ' 2'}\n"
        "assert(#out == #want, 'lines: ' .. #out)\n"
        "for i = 1, #want do assert(out[i] == want[i], 'line ' .. i .. ': ' .. out[i]) end\n"
        "local e = sysbench.histogram.new(4, 1, 10) out = {} e:print()\n"
        "assert(#out == 0, 'an empty histogram prints nothing')\n"
        "assert(not pcall(sysbench.histogram.new, 10, 0, 10), 'min 0 refused')\n";
    lua_State *L = state();
    struct pr_error err = {0};
    CHECK_MSG(run(L, src, &err) == 0, "%s", err.msg);
    lua_close(L);
}

static void test_modules(void)
{
    lua_State *L = state();
    struct pr_error err = {0};
    struct pr_lua_src m = {"helper", "return {x = 42}", 15};
    CHECK(pr_lua_add_sources(L, &m, 1, &err) == 0);
    CHECK_MSG(run(L, "assert(require('helper').x == 42)", &err) == 0, "%s", err.msg);
    lua_close(L);
    L = state();
    CHECK(run(L, "require('oltp_common')", &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "t.lua:1:") && strstr(err.msg, "was not shipped with the script"),
              "%s", err.msg);
    lua_close(L);
}

static void test_errors(void)
{
    lua_State *L = state();
    struct pr_error err = {0};
    CHECK(run(L, "local a = 1\nlocal b = = 2\n", &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "t.lua:2:") != NULL, "%s", err.msg);
    lua_close(L);
    L = state();
    CHECK(run(L, "\n\nlocal t = nil\nreturn t.x\n", &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "t.lua:4:") != NULL, "%s", err.msg);
    lua_close(L);
    /* An error object: its __tostring, the line it was raised at, said as
     * a script error (was "SQL error: (no message)"). */
    L = state();
    CHECK(run(L,
              "local o = setmetatable({}, {__tostring = function() return 'custom' end})\n"
              "error(o)\n",
              &err) == PR_EINVAL);
    CHECK_MSG(strcmp(err.msg, "script error: t.lua:2: custom") == 0, "%s", err.msg);
    lua_close(L);
    L = state();
    CHECK(run(L, "\nerror({code = 7})\n", &err) == PR_EINVAL);
    CHECK_MSG(strncmp(err.msg, "script error: t.lua:2: an error object of type table", 52) == 0,
              "%s", err.msg);
    lua_close(L);
}

static void test_watchdog(void)
{
    lua_State *L = state();
    struct pr_error err = {0};
    struct pr_lua_src s = {"t", "function spin() while true do end end", 37};
    CHECK(pr_lua_add_sources(L, &s, 1, &err) == 0 && pr_lua_run_main(L, "t", &err) == 0);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pr_lua_watchdog_start(L, 200);
    int rc = pr_lua_call_global(L, "spin", &err);
    pr_lua_watchdog_start(L, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s_el = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("# watchdog stopped the loop after %.3f s: %s\n", s_el, err.msg);
    CHECK(rc == PR_EINVAL && strstr(err.msg, "without yielding") != NULL);
    CHECK_MSG(s_el >= 0.19 && s_el < 5.0, "%.3f s", s_el);
    CHECK_MSG(strstr(err.msg, "t.lua:1") != NULL, "where: %s", err.msg);
    lua_close(L);
}

static void test_hash(void)
{
    const char *n[2] = {"a", "b"}, *t[2] = {"x", "y"}, *t2[2] = {"x", "z"}, *n2[2] = {"ax", ""};
    char a[] = "a", b[] = "b", x[] = "x", y[] = "y"; /* the same texts elsewhere */
    const char *nc[2] = {a, b}, *tc[2] = {x, y};
    CHECK(pr_lua_hash(n, t, 2) == pr_lua_hash(nc, tc, 2)); /* by content, not address */
    CHECK(pr_lua_hash(n, t, 2) != pr_lua_hash(n, t2, 2));
    CHECK(pr_lua_hash(n, t, 1) != pr_lua_hash(n2, t, 1)); /* "a"+"x" vs "ax"+"x" */
    CHECK(pr_lua_hash(n, t, 2) != pr_lua_hash(n, t, 1));
}

/* Source text only (issue 27 §1): LuaJIT runs bytecode unverified, so a
 * tampered dump reached any memory. No string.dump; load and loadstring
 * refuse binary chunks whatever mode they are given; a binary source is
 * refused by name. The bytecode comes from a plain, unsandboxed state. */
static void test_text_only(void)
{
    lua_State *raw = luaL_newstate();
    luaL_openlibs(raw);
    CHECK(luaL_dostring(raw, "return string.dump(function() return 42 end)") == 0);
    size_t blen = 0;
    const char *b = lua_tolstring(raw, -1, &blen);
    CHECK(b != NULL && blen > 4 && b[0] == '\033');

    lua_State *L = state();
    struct pr_error err = {0};
    lua_pushlstring(L, b, blen);
    lua_setglobal(L, "bin");
    int rc = run(L,
                 "assert(string.dump == nil, 'string.dump') "
                 "assert(('').dump == nil, 'dump through the string metatable') "
                 "local f, e = load(bin) assert(f == nil and e, 'load') "
                 "f = load(bin, 'x', 'b') assert(f == nil, 'load mode b') "
                 "f = loadstring(bin) assert(f == nil, 'loadstring') "
                 "local parts = {bin} f = load(function() return table.remove(parts) end) "
                 "assert(f == nil, 'load from a reader') "
                 "assert(load('return 7', 'x', 'b')() == 7, 'text still loads')",
                 &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    lua_close(L);

    L = state();
    struct pr_lua_src s = {"evil", b, blen};
    memset(&err, 0, sizeof err);
    CHECK(pr_lua_add_sources(L, &s, 1, &err) == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, "evil.lua") && strstr(err.msg, "precompiled"), "%s", err.msg);
    lua_close(L);
    lua_close(raw);
}

/* The memory cap through the count hook (no query: the agent's check at
 * each query never runs): over 16 MiB, the script error at its line. */
static void test_memory_cap(void)
{
    pr_lua_set_memory_limit(16);
    lua_State *L = state();
    struct pr_error err = {0};
    int rc = run(L,
                 "local t = {}\n"
                 "for i = 1, 3000000 do\n  t[i] = i .. 'abcdefghijkl'\nend\n",
                 &err);
    CHECK_MSG(rc == PR_EINVAL && strstr(err.msg, "script error: t.lua:") &&
                  strstr(err.msg, "script used more than 16 MiB"),
              "%s", err.msg);
    lua_close(L);
    pr_lua_set_memory_limit(0);
    L = state();
    CHECK(run(L, "local t = {}\nfor i = 1, 40 do t[i] = ('x'):rep(1000000) .. i end\n", &err) == 0);
    lua_close(L);
    pr_lua_set_memory_limit(PR_LUA_MEMORY_MIB);
}

int main(void)
{
    test_sandbox();
    test_exec_ffi_subset();
    test_histogram();
    test_modules();
    test_errors();
    test_watchdog();
    test_hash();
    test_text_only();
    test_memory_cap();
    return TEST_END();
}
