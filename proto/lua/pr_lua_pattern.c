/* pr_lua_pattern: a step budget for Lua's pattern functions (pr_lua.h).
 *
 * string.find, match, gmatch and gsub run LuaJIT's backtracking matcher in
 * C, where the count hook (the watchdog) never fires: one call such as
 * string.find(("a"):rep(40), ("a?"):rep(40) .. ("a"):rep(40)) takes years.
 * Each of them is wrapped: before LuaJIT's own function runs, the same
 * search is walked here, by the same backtracking rules, counting steps
 * (a call of the matcher, a character scanned); over the budget the call
 * is a script error at the caller's FILE:LINE and LuaJIT's function never
 * runs. Within the budget LuaJIT's function does the work, so results are
 * LuaJIT's own. A pattern this walk finds malformed (or nested deeper than
 * LuaJIT allows) goes to LuaJIT unchecked, for its own error message: a
 * malformed pattern fails early there, whatever the subject. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include <lauxlib.h>

#include "pr_lua.h"

#define MAX_CAPTURES 32  /* LUA_MAXCAPTURES */
#define MAX_DEPTH    200 /* LuaJIT's LJ_MAX_XLEVEL: deeper is its own error */
#define CAP_UNCLOSED (-1)
#define CAP_POSITION (-2)
#define BUDGET_BASE  20000000L /* steps: ~0.1-0.3 s of matching */
#define BUDGET_BYTE  64L       /* more steps per byte of the subject */

enum walk { W_OK, W_OVER, W_GIVE_UP }; /* within budget, over it, not checked */

struct pm {
    const char *src_init, *src_end, *p_end;
    long steps;      /* left */
    enum walk state; /* W_OK until over the budget or given up */
    int depth, level;
    struct {
        const char *init;
        ptrdiff_t len;
    } cap[MAX_CAPTURES];
};

static bool spend(struct pm *m, long n)
{
    m->steps -= n;
    if (m->steps < 0 && m->state == W_OK)
        m->state = W_OVER;
    return m->state == W_OK;
}

static const char *give_up(struct pm *m)
{
    if (m->state == W_OK)
        m->state = W_GIVE_UP;
    return NULL;
}

/* One past the single-character class at p, or NULL (malformed). */
static const char *class_end(struct pm *m, const char *p)
{
    if (p >= m->p_end)
        return NULL;
    char c = *p++;
    if (c == '%')
        return p < m->p_end ? p + 1 : NULL;
    if (c == '[') {
        if (p < m->p_end && *p == '^')
            p++;
        do { /* the first ']' is taken as a member */
            if (p >= m->p_end)
                return NULL;
            c = *p++;
            if (c == '%') {
                if (p >= m->p_end)
                    return NULL;
                p++;
            }
        } while (p >= m->p_end || *p != ']');
        return p + 1;
    }
    return p;
}

static bool class_has(int c, int cl)
{
    bool r;
    switch (tolower(cl)) {
    case 'a':
        r = isalpha(c);
        break;
    case 'c':
        r = iscntrl(c);
        break;
    case 'd':
        r = isdigit(c);
        break;
    case 'l':
        r = islower(c);
        break;
    case 'p':
        r = ispunct(c);
        break;
    case 's':
        r = isspace(c);
        break;
    case 'u':
        r = isupper(c);
        break;
    case 'w':
        r = isalnum(c);
        break;
    case 'x':
        r = isxdigit(c);
        break;
    case 'z':
        r = c == 0;
        break;
    default:
        return cl == c;
    }
    return isupper(cl) ? !r : r;
}

/* c in the set [p .. ec] (p at '[', ec at its ']'). */
static bool bracket_has(int c, const char *p, const char *ec)
{
    bool in = true;
    if (*++p == '^') {
        in = false;
        p++;
    }
    for (; p < ec; p++) {
        if (*p == '%' && p + 1 < ec) {
            p++;
            if (class_has(c, (unsigned char)*p))
                return in;
        } else if (p + 2 < ec && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return in;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return in;
        }
    }
    return !in;
}

static bool single(const struct pm *m, const char *s, const char *p, const char *ep)
{
    if (s >= m->src_end)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.':
        return true;
    case '%':
        return class_has(c, (unsigned char)p[1]);
    case '[':
        return bracket_has(c, p, ep - 1);
    default:
        return (unsigned char)*p == c;
    }
}

static const char *match(struct pm *m, const char *s, const char *p);
static const char *match_at(struct pm *m, const char *s, const char *p);

static const char *max_expand(struct pm *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t i = 0;
    while (single(m, s + i, p, ep))
        i++;
    if (!spend(m, (long)i + 1))
        return NULL;
    for (; i >= 0; i--) {
        const char *r = match(m, s + i, ep + 1);
        if (r != NULL || m->state != W_OK)
            return r;
    }
    return NULL;
}

static const char *min_expand(struct pm *m, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *r = match(m, s, ep + 1);
        if (r != NULL || m->state != W_OK)
            return r;
        if (!single(m, s, p, ep) || !spend(m, 1))
            return NULL;
        s++;
    }
}

static const char *start_capture(struct pm *m, const char *s, const char *p, ptrdiff_t what)
{
    if (m->level >= MAX_CAPTURES)
        return give_up(m);
    m->cap[m->level].init = s;
    m->cap[m->level].len = what;
    m->level++;
    const char *r = match(m, s, p);
    if (r == NULL)
        m->level--;
    return r;
}

static const char *end_capture(struct pm *m, const char *s, const char *p)
{
    int l = m->level - 1;
    while (l >= 0 && m->cap[l].len != CAP_UNCLOSED)
        l--;
    if (l < 0)
        return give_up(m);
    m->cap[l].len = s - m->cap[l].init;
    const char *r = match(m, s, p);
    if (r == NULL)
        m->cap[l].len = CAP_UNCLOSED;
    return r;
}

static const char *back_ref(struct pm *m, const char *s, int digit)
{
    int l = digit - '1';
    if (l < 0 || l >= m->level || m->cap[l].len == CAP_UNCLOSED)
        return give_up(m);
    ptrdiff_t len = m->cap[l].len < 0 ? 0 : m->cap[l].len;
    if (!spend(m, (long)len))
        return NULL;
    if (m->src_end - s >= len && memcmp(m->cap[l].init, s, (size_t)len) == 0)
        return s + len;
    return NULL;
}

static const char *balance(struct pm *m, const char *s, const char *p)
{
    if (p + 1 >= m->p_end)
        return give_up(m);
    if (s >= m->src_end || *s != p[0])
        return NULL;
    int open = 1;
    const char *q = s;
    while (++q < m->src_end) {
        if (*q == p[1]) {
            if (--open == 0) {
                spend(m, q - s);
                return m->state == W_OK ? q + 1 : NULL;
            }
        } else if (*q == p[0]) {
            open++;
        }
    }
    spend(m, q - s);
    return NULL;
}

/* Lua's matcher, walked: recursion where Lua's recurses (captures,
 * expansions, a '?' that matched), a loop where it loops. */
static const char *match_at(struct pm *m, const char *s, const char *p)
{
    for (;;) {
        if (!spend(m, 1))
            return NULL;
        if (p >= m->p_end)
            return s;
        if (*p == '(')
            return p + 1 < m->p_end && p[1] == ')' ? start_capture(m, s, p + 2, CAP_POSITION)
                                                   : start_capture(m, s, p + 1, CAP_UNCLOSED);
        if (*p == ')')
            return end_capture(m, s, p + 1);
        if (*p == '$' && p + 1 == m->p_end)
            return s == m->src_end ? s : NULL;
        if (*p == '%' && p + 1 < m->p_end && p[1] == 'b') {
            if ((s = balance(m, s, p + 2)) == NULL)
                return NULL;
            p += 4;
            continue;
        }
        if (*p == '%' && p + 1 < m->p_end && p[1] == 'f') {
            const char *q = p + 2, *ep;
            if (q >= m->p_end || *q != '[' || (ep = class_end(m, q)) == NULL)
                return give_up(m);
            int prev = s == m->src_init ? 0 : (unsigned char)s[-1];
            int cur = s < m->src_end ? (unsigned char)*s : 0;
            if (bracket_has(prev, q, ep - 1) || !bracket_has(cur, q, ep - 1))
                return NULL;
            p = ep;
            continue;
        }
        if (*p == '%' && p + 1 < m->p_end && isdigit((unsigned char)p[1])) {
            if ((s = back_ref(m, s, p[1])) == NULL)
                return NULL;
            p += 2;
            continue;
        }
        const char *ep = class_end(m, p);
        if (ep == NULL)
            return give_up(m);
        bool hit = single(m, s, p, ep);
        if (ep < m->p_end) {
            switch (*ep) {
            case '?': {
                const char *r = hit ? match(m, s + 1, ep + 1) : NULL;
                if (r != NULL || m->state != W_OK)
                    return r;
                p = ep + 1;
                continue;
            }
            case '*':
                return max_expand(m, s, p, ep);
            case '+':
                return hit ? max_expand(m, s + 1, p, ep) : NULL;
            case '-':
                return min_expand(m, s, p, ep);
            }
        }
        if (!hit)
            return NULL;
        s++;
        p = ep;
    }
}

/* Depth as LuaJIT counts it (deeper is its own "pattern too complex"). */
static const char *match(struct pm *m, const char *s, const char *p)
{
    if (++m->depth > MAX_DEPTH) {
        m->depth--;
        return give_up(m);
    }
    const char *r = match_at(m, s, p);
    m->depth--;
    return m->state == W_OK ? r : NULL;
}

/* Walk the search the call will make: from init (0-based) on, the first
 * match (all == false) or every match up to max (gmatch, gsub). */
static enum walk walk(const char *s, size_t ls, const char *p, size_t lp, size_t init, bool all,
                      long max, bool anchors)
{
    struct pm m = {.src_init = s, .src_end = s + ls, .p_end = p + lp, .state = W_OK};
    m.steps = BUDGET_BASE + BUDGET_BYTE * (long)(ls > 1000000000u ? 1000000000u : ls);
    bool anchor = anchors && lp > 0 && *p == '^';
    if (anchor)
        p++;
    const char *src = s + init;
    long n = 0;
    while (m.state == W_OK && src <= m.src_end && (max < 0 || n < max)) {
        m.level = 0;
        m.depth = 0;
        const char *e = match(&m, src, p);
        if (e != NULL) {
            n++;
            if (!all)
                break;
            src = e > src ? e : src + 1;
        } else {
            src++;
        }
        if (anchor)
            break;
    }
    return m.state;
}

/* A pattern with none of ^$*+?.([%- is a plain search: nothing to check. */
static bool plain(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr("^$*+?.([%-", p[i]) != NULL && p[i] != '\0')
            return false;
    return true;
}

/* string.find/match's init argument, 0-based, or false: no search at all. */
static bool start_of(lua_State *L, int arg, size_t ls, size_t *out)
{
    lua_Integer i = luaL_optinteger(L, arg, 1);
    if (i < 0)
        i = (lua_Integer)ls + i + 1 > 0 ? (lua_Integer)ls + i + 1 : 1;
    else if (i == 0)
        i = 1;
    if ((size_t)i > ls + 1)
        return false;
    *out = (size_t)i - 1;
    return true;
}

static int over_budget(lua_State *L, const char *fn)
{
    return luaL_error(L,
                      "string.%s: the pattern takes more than stampede's step budget on this "
                      "subject (it backtracks without end: simplify the pattern)",
                      fn);
}

/* upvalue 1: LuaJIT's function, upvalue 2: its name. */
static int guarded(lua_State *L)
{
    const char *fn = lua_tostring(L, lua_upvalueindex(2));
    size_t ls = 0, lp = 0, init = 0;
    const char *s = lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER
                        ? lua_tolstring(L, 1, &ls)
                        : NULL;
    const char *p = lua_type(L, 2) == LUA_TSTRING || lua_type(L, 2) == LUA_TNUMBER
                        ? lua_tolstring(L, 2, &lp)
                        : NULL;
    if (s != NULL && p != NULL && !plain(p, lp)) {
        enum walk w = W_OK;
        if (fn[0] == 'f' || fn[0] == 'm') { /* find, match */
            bool literal = fn[0] == 'f' && lua_toboolean(L, 4);
            if (!literal && start_of(L, 3, ls, &init))
                w = walk(s, ls, p, lp, init, false, -1, true);
        } else if (fn[1] == 'm') {                      /* gmatch */
            w = walk(s, ls, p, lp, 0, true, -1, false); /* '^' is no anchor */
        } else {                                        /* gsub */
            long max = lua_isnumber(L, 4) ? (long)lua_tointeger(L, 4) : -1;
            w = walk(s, ls, p, lp, 0, true, max, true);
        }
        if (w == W_OVER)
            return over_budget(L, fn);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

void pr_lua_pattern_install(lua_State *L)
{
    static const char *const names[] = {"find", "match", "gmatch", "gsub"};
    lua_getglobal(L, "string");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        lua_getfield(L, -1, names[i]);
        lua_pushstring(L, names[i]);
        lua_pushcclosure(L, guarded, 2);
        lua_setfield(L, -2, names[i]);
    }
    lua_pop(L, 1);
}
