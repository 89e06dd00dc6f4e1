/* pr_lua: the sandboxed LuaJIT state a sysbench script runs in, on the
 * coordinator (to read its options) and on the agents (to run it). Both
 * sides build it here so a script sees the same environment everywhere.
 *
 * The sandbox: base, table, string, math, bit, os (clock, time, date and
 * difftime only) and package libraries; no io, debug or ffi; no loadfile,
 * dofile, os.execute, io.popen or package.loadlib. require() finds only the
 * sources given to pr_lua_add_sources() (and, on the coordinator, what the
 * host searcher returns): nothing is read from disk by the state itself.
 * Then the prelude (pr_lua_prelude.lua: stampede's sysbench 1.0.20 API)
 * runs, given the host's C functions.
 *
 * A watchdog (a count hook every PR_LUA_HOOK_COUNT instructions, with the
 * JIT off so that compiled loops cannot skip it) raises "script ran N ms
 * without yielding" once a call from the host runs longer than the limit
 * set by pr_lua_watchdog_start().
 *
 * Thread: a state and its coroutines belong to one thread at a time. */
#ifndef PR_LUA_H
#define PR_LUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "pr_err.h"

#define PR_LUA_HOOK_COUNT 100000 /* instructions between watchdog checks */

/* One Lua source: a module name ("oltp_common", the main script's name
 * without .lua) and its text. Borrowed. */
struct pr_lua_src {
    const char *name;
    const char *text;
    size_t len;
};

/* One host function given to the prelude as host[name]; ud is its first
 * upvalue (lua_upvalueindex(1)). */
struct pr_lua_fn {
    const char *name;
    lua_CFunction fn;
};

/* A sandboxed state with the prelude run; sysbench.cmdline.command is
 * `command` ("run", "prepare", ...). fns (n of them, may be NULL) get ud as
 * their upvalue. NULL with err filled (PR_EINVAL) on failure. Caller owns:
 * lua_close(). */
lua_State *pr_lua_new(const char *command, const struct pr_lua_fn *fns, size_t n, void *ud,
                      struct pr_error *err);

/* luaL_loadbuffer for source text only (a binary chunk is refused with a
 * message naming chunk, LUA_ERRSYNTAX): every chunk from outside enters
 * through it (and the sandbox's load/loadstring, forced to text). */
int pr_lua_load_text(lua_State *L, const char *text, size_t len, const char *chunk);

/* The text of the error value at idx of L, as stampede prints a script's
 * error: "script error: FILE:LINE: MESSAGE" (a string as error() made it;
 * an object's __tostring; its type when it has none), or "FILE:LINE: SQL
 * error: ..." for the driver's error object. FILE:LINE of an object come
 * from where's innermost Lua function (the failed coroutine; NULL: none).
 * __tostring runs on L (not on a dead coroutine). */
void pr_lua_error_text(lua_State *L, int idx, lua_State *where, char *buf, size_t len);

/* lua_pcall with a message handler: on failure (non-zero, as lua_pcall)
 * the error on top is a string, pr_lua_error_text's (FILE:LINE of an
 * error object taken before the stack unwinds). */
int pr_lua_pcall(lua_State *L, int nargs, int nres);

/* Each Lua state's memory cap (LuaJIT's GC count, checked by the count
 * hook and after every resume of a script's coroutine): over it after a
 * full collection, the script fails with "script used more than N MiB" at
 * its FILE:LINE. pr_lua_set_memory_limit sets it for the states
 * pr_lua_new makes from then on (0: none; stampede-agent's
 * lua-memory-limit). */
#define PR_LUA_MEMORY_MIB 256
void pr_lua_set_memory_limit(uint32_t mib);
/* L (or a coroutine of it, where, for the FILE:LINE) over its cap: true
 * with the script error in msg. */
bool pr_lua_memory_over(lua_State *L, lua_State *where, char *msg, size_t len);

/* Wrap string.find, match, gmatch and gsub with a step budget
 * (pr_lua_pattern.c): a search that would backtrack past it is a script
 * error at the caller's FILE:LINE before LuaJIT's function runs (the count
 * hook never fires inside C). pr_lua_new() installs it. */
void pr_lua_pattern_install(lua_State *L);

/* Make the n sources requirable by name (chunk "@NAME.lua", so errors say
 * NAME.lua:LINE). A syntax error is PR_EINVAL naming file and line. */
int pr_lua_add_sources(lua_State *L, const struct pr_lua_src *srcs, size_t n, struct pr_error *err);

/* Add a searcher after package.preload: fn(name) returns a loader, or a
 * string saying where it looked (Lua 5.1 package.loaders). ud is its
 * upvalue. */
void pr_lua_add_searcher(lua_State *L, lua_CFunction fn, void *ud);

/* Run the main script (require of srcs[0] name, already added). 0, or
 * PR_EINVAL with err holding the script's message (FILE:LINE: ...). */
int pr_lua_run_main(lua_State *L, const char *name, struct pr_error *err);

/* Call global function `fn` (no argument, no result) under the watchdog.
 * 0, or PR_EINVAL with the message. */
int pr_lua_call_global(lua_State *L, const char *fn, struct pr_error *err);

/* Arm the watchdog for the next host call into L: the script may run
 * limit_ms before an error stops it. 0 disarms. */
void pr_lua_watchdog_start(lua_State *L, uint32_t limit_ms);
/* The armed watchdog's clock starts again (after a host call that blocked
 * in C, as a yield would have: pr_lua_db's queries). */
void pr_lua_watchdog_rearm(lua_State *L);

/* Push a new table of every general and mysql option of o, typed (numbers,
 * booleans, strings), names '_' separated: sysbench.opt's general part
 * (__sb_set_options' second argument). */
struct pr_opts;
void pr_lua_push_general_opts(lua_State *L, const struct pr_opts *o);

/* FNV-1a 64 over the names and texts of the n sources (PLAN.script_hash). */
uint64_t pr_lua_hash(const char *const *names, const char *const *texts, size_t n);

/* Build: the prelude's text (generated from pr_lua_prelude.lua). */
extern const char pr_lua_prelude[];
extern const size_t pr_lua_prelude_len;

#endif
