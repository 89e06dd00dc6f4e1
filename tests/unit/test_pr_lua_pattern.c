/* Tests for pr_lua_pattern: the step budget of string.find, match, gmatch
 * and gsub (issue 27 §2). A pattern that backtracks without end is a
 * script error at the caller's FILE:LINE, within a fraction of a second;
 * ordinary patterns (and malformed ones, LuaJIT's own errors) are never
 * refused; the walk reads nothing outside subject and pattern (random
 * patterns, run under ASan in CI). */
#include <string.h>
#include <time.h>

#include "pr_lua.h"
#include "testlib.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(const char *src, struct pr_error *err)
{
    lua_State *L = pr_lua_new("run", NULL, 0, NULL, err);
    CHECK_MSG(L != NULL, "%s", err->msg);
    if (L == NULL)
        return -1;
    struct pr_lua_src s = {"t", src, strlen(src)};
    int rc = pr_lua_add_sources(L, &s, 1, err);
    if (rc == 0)
        rc = pr_lua_run_main(L, "t", err);
    lua_close(L);
    return rc;
}

/* Each of the four functions on the pattern: refused at t.lua:2
 * within seconds (LuaJIT alone: 2^40 steps, years). */
static void test_runaway(void)
{
    static const char *const calls[] = {
        "string.find(s, p)",          "s:match(p)", "for x in s:gmatch(p) do end", "s:gsub(p, 'x')",
        "s:find('(' .. p .. ')', 3)",
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char src[256];
        snprintf(src, sizeof src,
                 "local s, p = ('a'):rep(40), ('a?'):rep(40) .. ('a'):rep(40)\n%s\n", calls[i]);
        struct pr_error err = {0};
        double t0 = now_s();
        int rc = run(src, &err);
        double dt = now_s() - t0;
        CHECK_MSG(rc != 0 && strstr(err.msg, "t.lua:2:") && strstr(err.msg, "step budget"),
                  "%s: rc %d: %s", calls[i], rc, err.msg);
        /* ~0.1 s here; ~2.5 s under TSan (the walk is instrumented) */
        CHECK_MSG(dt < 15.0, "%s: refused after %.2f s", calls[i], dt);
        printf("# %s refused after %.3f s: %s\n", calls[i], dt, err.msg);
    }
}

/* What scripts do: found, as LuaJIT finds it; a malformed pattern is
 * LuaJIT's own error; a long subject gets a larger budget. */
static void test_ordinary(void)
{
    struct pr_error err = {0};
    int rc = run("assert(select(2, ('hello world'):find('o w')) == 7)\n"
                 "local k, v = ('key=val; k2=v2'):match('(%w+)=(%w+)')\n"
                 "assert(k == 'key' and v == 'val')\n"
                 "local n = 0 for a, b in ('a=1,b=2,c=3'):gmatch('(%w+)=(%w+)') do n = n + 1 end\n"
                 "assert(n == 3)\n"
                 "assert(select(2, ('hello'):gsub('l+', 'L')) == 1)\n"
                 "assert(('x = [[a]] y'):match('%b[]') == '[[a]]')\n"
                 "assert(('THE end'):find('%f[%a]%a+', 2) == 5)\n"
                 "assert(('abcabc'):match('(abc)%1') == 'abc')\n"
                 "assert(('a.b'):find('.', 1, true) == 2)\n"
                 "local big = ('x'):rep(1000000) .. 'y'\n"
                 "assert(big:find('x*y') == 1)\n"
                 "assert(select(2, big:gsub('x', '')) == 1000000)\n"
                 "assert(not pcall(string.find, 'abc', '[a'))\n"
                 "assert(not pcall(string.find, 'abc', '%'))\n"
                 "assert(not pcall(string.find, 'abc', '(()'))\n",
                 &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
}

/* Random patterns of Lua's special characters over short subjects: none is
 * refused for the budget (they are small), none makes the walk misbehave. */
static void test_random(void)
{
    struct pr_error err = {0};
    int rc = run("math.randomseed(7)\n"
                 "local A = {'a', 'b', '%', '(', ')', '[', ']', '^', '$', '*', '+', '-', '?',\n"
                 "           '.', 'f', 'b', '1', '2', '%a', '%b()', '%f[a]', '[^a]'}\n"
                 "local n = 0\n"
                 "for i = 1, 20000 do\n"
                 "  local p, s = {}, {}\n"
                 "  for j = 1, math.random(0, 12) do p[#p + 1] = A[math.random(#A)] end\n"
                 "  for j = 1, math.random(0, 30) do s[#s + 1] = ('ab()'):sub(math.random(4), 0 + "
                 "math.random(4)) end\n"
                 "  p, s = table.concat(p), table.concat(s)\n"
                 "  for _, f in ipairs({string.find, string.match, string.gsub}) do\n"
                 "    local ok, e = pcall(f, s, p, f == string.gsub and '' or nil)\n"
                 "    if not ok and tostring(e):find('step budget', 1, true) then error(p) end\n"
                 "    n = n + 1\n"
                 "  end\n"
                 "end\n"
                 "assert(n == 60000)\n",
                 &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
}

int main(void)
{
    test_runaway();
    test_ordinary();
    test_random();
    return TEST_END();
}
