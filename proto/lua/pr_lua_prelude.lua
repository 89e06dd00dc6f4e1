-- pr_lua_prelude: stampede's own implementation of the sysbench 1.0.20 Lua
-- API that scripts see (the subset docs/guide.md "Your own Lua scripts" lists). It
-- runs first in every script state (coordinator and agent); the host passes
-- itself as the chunk's argument: a table of C functions (rand_*, emit, ...)
-- that may be empty (the coordinator only reads options).
--
-- Threads: one state serves many connections (coroutines). Globals a
-- coroutine writes (thread_init's drv, con, stmt, param) live in that
-- coroutine's own table (__sb.env), so scripts written for sysbench's one
-- state per thread keep their per-thread globals apart. sysbench.tid reads
-- the running coroutine's id.
--
-- Yield protocol (read by families/lua/agent/ag_lua_gen.c):
--   yield(0)                  event boundary; resumed with 0 (run event()) or
--                             1 (run thread_done() and end)
--   yield(1, sql)             a text query
--   yield(2, idx, p1, .., pn) prepared statement idx (0-based) of the set
--   yield(3)                  con:reconnect(); resumed with nothing
-- resumed after a query with (errno, nrows, affected, insert_id, ncols, gen)
-- (the rows through host.row(gen, n)) or, on an error, (errno, message,
-- sqlstate[, true when it is not ignorable]).
-- A query where no coroutine runs (init() and done(), sysbench's main
-- thread) is not a yield: it goes to the host's blocking connection,
-- __sb_query_now(1, sql) (proto/db/pr_lua_db.c), answered the same way with the
-- rows as a table after gen; where the host has none (the agents' statement
-- probe) it is answered empty.
local host = ... or {}
local yield = coroutine.yield
local rawget, rawset, type, error, select, tostring = rawget, rawset, type, error, select,
    tostring
local fmt = string.format

local shared = {}
for k, v in pairs(_G) do shared[k] = v end
-- _G stays empty: reads go through gmt.__index, a table (no function call
-- per global): the running coroutine's env (whose own __index is shared),
-- or shared itself outside coroutines. The host switches gmt.__index and
-- ctx.env around each resume (ctx.mt, ctx.shared).
local envmt = {__index = shared}
local gmt = {__index = shared}
local ctx = {env = nil, tid = 0, probe = false, mt = gmt, shared = shared}
__sb_ctx = ctx
shared.__sb_ctx = ctx
gmt.__newindex = function(_, k, v)
    local e = ctx.env
    if e ~= nil then rawset(e, k, v) else rawset(shared, k, v) end
end
local G = setmetatable(_G, gmt)
-- A coroutine's own globals table (the host makes one per coroutine).
function shared.__sb_new_env()
    return setmetatable({}, envmt)
end
for k in pairs(shared) do rawset(G, k, nil) end

-- The host's print (the agent's: one line per write(2), on stderr).
if host.print ~= nil then print = host.print end

local function unsupported(name)
    return function()
        error(fmt("stampede does not support %s (docs/guide.md: Your own Lua scripts)", name), 2)
    end
end

sysbench = setmetatable({
    version = "1.0.20",
    version_string = "sysbench 1.0.20 (stampede)",
    cmdline = {
        options = {},
        commands = {},
        PARALLEL_COMMAND = true,
        ARG_NONE = 0, ARG_BOOL = 1, ARG_INT = 2, ARG_SIZE = 3, ARG_DOUBLE = 4,
        ARG_STRING = 5, ARG_LIST = 6, ARG_FILE = 7,
    },
    opt = {},
    hooks = {},
    error = {RESTART_EVENT = 1},
    rand = {},
    sql = {},
}, {__index = function(_, k) if k == "tid" then return ctx.tid end end})

-- ---- rand: the native family's generators (agent/engine/ag_rand.c) ---------------
-- Without the host's generators (the coordinator, which runs the top level
-- only to read the options) each returns its lower bound, or the template.
local function need(name)
    local f = host[name]
    if f == nil then return function(a) return a or 0 end end
    return f
end
local r = sysbench.rand
r.uniform = need("rand_uniform")
r.default = need("rand_default")
r.gaussian = need("rand_gaussian")
r.special = need("rand_special")
r.pareto = need("rand_pareto")
r.zipfian = need("rand_zipfian")
r.unique = need("rand_unique")
r.string = need("rand_string")
r.uniform_uint64 = need("rand_uint64")
r.uniform_double = need("rand_double")
function r.varstring(min, max)
    local n = r.uniform(min, max)
    local t = {}
    for i = 1, n do t[i] = string.char(r.uniform(33, 126)) end
    return table.concat(t)
end
sb_rand = r.default
sb_rand_uniform = r.uniform
sb_rand_gaussian = r.gaussian
sb_rand_special = r.special
sb_rand_uniq = r.unique
sb_rand_str = r.string
sb_rand_varstr = r.varstring

-- ---- sql -------------------------------------------------------------------
local sql = sysbench.sql
sql.type = {NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5, DOUBLE = 6,
            TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11, VARCHAR = 12}
sql.error = {NONE = 0, IGNORABLE = 1, FATAL = 2}
local T = sql.type

-- The statement set the agent prepares on every connection: sql -> index
-- (filled by the agent from the probe; empty: every statement is text).
__sb_stmt_index = {}
-- Statements con:prepare() saw (the probe reads them): {sql=, types={}}.
__sb_prepared = {}

-- A result set: nrows, nfields and its rows, read from the host ("row")
-- one at a time, while it is the connection's last result (as sysbench,
-- which frees a result at the next query on its connection).
local host_row = host.row or function() end
local running = coroutine.running
local function ask(...)
    if running() ~= nil then return yield(...) end
    local now = rawget(shared, "__sb_query_now")
    if now == nil then return nil end
    return now(...)
end
-- event()'s error, while its stack is there: an object (but the restart
-- request) becomes its text with the FILE:LINE it was raised at.
local host_errtext = function(e)
    if type(e) == "table" and e.errcode == sysbench.error.RESTART_EVENT then return e end
    return host.errtext(e)
end
local result_mt = {}
result_mt.__index = result_mt
function result_mt.fetch_row(self)
    local n = self._fetched + 1
    self._fetched = n
    if n > self.nrows then return nil end
    local rows = self._rows
    if rows ~= nil then return rows[n] end
    return {host_row(self._gen, n)}
end
function result_mt.free(self) end

local con_mt = {}
con_mt.__index = con_mt

-- The reply to a query on connection con (nil: a sleep's): its result set,
-- or an error raised as sysbench does. A connection has one result set,
-- refilled by each query (sysbench's db_query() returns &con->rs too): no
-- table made per query.
local function reply(con, query, errno, a, b, c, nf, gen, rows)
    if errno == nil or ctx.probe then
        return setmetatable({nrows = 0, nfields = 0, _fetched = 0, _gen = -1}, result_mt)
    end
    if errno ~= 0 then
        local e = {connection = nil, query = query, sql_errno = errno, sql_state = b,
                   sql_errmsg = a, errcode = sysbench.error.RESTART_EVENT}
        if c then -- not ignorable: sysbench.hooks.sql_error_ignorable may say it is
            local h = sysbench.hooks.sql_error_ignorable
            if type(h) ~= "function" or not h(e) then e.errcode = nil end
        end
        error(e, 3)
    end
    local rs = con and con._rs
    if rs == nil then
        rs = setmetatable({}, result_mt)
        if con then con._rs = rs end
    end
    rs.nrows, rs.affected_rows, rs.insert_id, rs.nfields, rs._fetched, rs._gen, rs._rows =
        a, b, c, nf, 0, gen, rows
    return rs
end

function con_mt.query(self, q)
    if type(q) ~= "string" then error("con:query() needs a string", 2) end
    if self._closed then closed_query(self) end
    return reply(self, q, ask(1, q))
end

function con_mt.query_row(self, q)
    local rs = self:query(q)
    if rs == nil or rs.nrows == 0 then return nil end
    if rs._rows ~= nil then return unpack(rs._rows[1], 1, rs.nfields) end
    return host_row(rs._gen, 1)
end

-- A thread has one live connection: disconnect() ends this object's use
-- (its queries fail); a drv:connect() after it opens a new one.
local function closed_query(self)
    error("a query on a connection closed with con:disconnect()", 3)
end
function con_mt.disconnect(self)
    if self._closed then return end
    self._closed = true
    local e = ctx.env
    if e ~= nil and rawget(e, "__sb_con") == self then rawset(e, "__sb_con", false) end
end
con_mt.close = con_mt.disconnect
-- A new connection (the statements prepared again), in thread_init() or
-- event(): the agent closes the connection and opens it again (a reconnect
-- in the figures), then resumes; in thread_done() it does nothing.
function con_mt.reconnect(self)
    if not ctx.probe and coroutine.running() ~= nil and host.row ~= nil then yield(3) end
    return true
end

-- bulk insert: sysbench's db_bulk_insert_next: flush before a row when the
-- statement, the row, a comma and the NUL would pass 512 KiB.
local BULK_MAX = 524288
function con_mt.bulk_insert_init(self, q)
    self._bq = q
    self._bv = {}
    self._blen = #q
end
function con_mt.bulk_insert_next(self, v)
    if self._bq == nil then error("bulk_insert_next() before bulk_insert_init()", 2) end
    local bv = self._bv
    if #bv > 0 and self._blen + #v + 2 > BULK_MAX then
        local q = self._bq .. table.concat(bv, ",")
        self._bv = {}
        self._blen = #self._bq
        bv = self._bv
        reply(self, q, ask(1, q))
    end
    if #bv > 0 then self._blen = self._blen + 1 end
    bv[#bv + 1] = v
    self._blen = self._blen + #v
end
function con_mt.bulk_insert_done(self)
    local bv = self._bv
    if bv ~= nil and #bv > 0 then
        local q = self._bq .. table.concat(bv, ",")
        self._bv = {}
        reply(self, q, ask(1, q))
    end
    self._bq = nil
end

local param_mt = {}
param_mt.__index = param_mt
function param_mt.set(self, v)
    if v == nil then error("stampede does not bind SQL NULL parameters (param:set(nil))", 2) end
    if self.str then
        v = tostring(v)
        if #v > self.max_len then v = v:sub(1, self.max_len) end
    end
    self.value = v
end
function param_mt.set_rand_str(self, tmpl)
    self:set(r.string(tmpl))
end

local stmt_mt = {}
stmt_mt.__index = stmt_mt
function stmt_mt.bind_create(self, btype, max_len)
    local p
    if btype == T.TINYINT or btype == T.SMALLINT or btype == T.INT or btype == T.BIGINT then
        p = {str = false, value = 0}
    elseif btype == T.CHAR or btype == T.VARCHAR then
        p = {str = true, max_len = max_len or 0, value = ""}
    else
        error("stampede binds only integer and CHAR/VARCHAR parameters, not type " ..
              tostring(btype), 2)
    end
    self._types[#self._types + 1] = p.str and "s" or "i"
    return setmetatable(p, param_mt)
end
function stmt_mt.bind_param(self, ...)
    self._params = {...}
end

-- The statement as text, '?' replaced (sysbench's client-side emulation).
local function render(s)
    local ps, i = s._params, 0
    return (s.sql:gsub("%?", function()
        i = i + 1
        local p = ps[i]
        if p == nil then error("prepared statement executed with unbound parameter " .. i, 4) end
        if p.str then return "'" .. p.value .. "'" end
        return fmt("%d", p.value)
    end))
end

local function pvalues(ps, i, n)
    if i > n then return end
    return ps[i].value, pvalues(ps, i + 1, n)
end

function stmt_mt.execute(self)
    if self._con ~= nil and self._con._closed then closed_query(self) end
    local idx = self._idx
    if idx ~= nil and not ctx.probe then
        local ps = self._params
        local n = #ps
        if n == 1 then return reply(self._con, self.sql, yield(2, idx, ps[1].value)) end
        if n == 2 then return reply(self._con, self.sql, yield(2, idx, ps[1].value, ps[2].value)) end
        return reply(self._con, self.sql, yield(2, idx, pvalues(ps, 1, n)))
    end
    local q = render(self)
    return reply(self._con, q, ask(1, q))
end
function stmt_mt.close(self) end

function con_mt.prepare(self, q)
    local s = setmetatable({sql = q, _types = {}, _params = {}, _con = self}, stmt_mt)
    local pr = rawget(shared, "__sb_prepared")
    pr[#pr + 1] = s
    s._idx = rawget(shared, "__sb_stmt_index")[q]
    return s
end

local drv_mt = {}
drv_mt.__index = drv_mt
-- The thread's connection: the agent's, already open for the first
-- connect(); one after con:disconnect() is a new server connection (the
-- agent reopens it: a reconnect in the figures). Two live at once are not
-- supported.
function drv_mt.connect(self)
    local e = ctx.env
    local cur = e ~= nil and rawget(e, "__sb_con")
    if cur then
        error("stampede gives each thread one live connection: a second drv:connect() " ..
              "before con:disconnect() is not supported", 2)
    end
    local c = setmetatable({}, con_mt)
    if e ~= nil then
        if cur == false and not ctx.probe and host.row ~= nil then yield(3) end
        rawset(e, "__sb_con", c)
    end
    return c
end
function drv_mt.name(self) return "mysql" end
function drv_mt.close(self) end

function sql.driver(name)
    if name ~= nil and name ~= "mysql" then
        error("stampede drives MySQL only, not " .. tostring(name), 2)
    end
    return setmetatable({}, drv_mt)
end

-- ---- sleeping, os.execute and the ffi subset -------------------------------
-- A script's sleep never blocks the agent's loop: it is a query on the
-- script's own connection ("DO SLEEP(s)"), which the loop waits for as for
-- any other. Outside a connection (the coordinator) it does nothing.
local function sleep_s(s)
    s = tonumber(s)
    if s == nil or s < 0 then error("a sleep of a number of seconds >= 0 is needed", 3) end
    if not ctx.probe and coroutine.running() ~= nil and host.row ~= nil then
        local q = fmt("DO SLEEP(%.6f)", s)
        reply(nil, q, yield(1, q))
    end
end
-- os.execute: only "sleep N" (tpcc_common.lua's sleep()); nothing else runs.
function os.execute(cmd)
    if cmd == nil then return 0 end -- "is there a shell": none
    local n = type(cmd) == "string" and cmd:match("^%s*sleep%s+([%d.]+)%s*$")
    if n == nil then
        error(fmt("os.execute(%q): stampede runs no command; only 'sleep N' (a sleep on " ..
                  "the script's connection) is allowed", tostring(cmd)), 2)
    end
    sleep_s(n)
    return 0
end

-- require("ffi"): not LuaJIT's FFI (it reaches any C function of the
-- process) but the declarations sysbench scripts make, each mapped onto a
-- safe stampede function. ffi.cdef accepts exactly these; ffi.C has them
-- and sysbench's counter names.
local ffi_decls = {
    ["void sb_counter_inc(int, sb_counter_type)"] = "sb_counter_inc",
    ["typedef uint32_t useconds_t"] = "useconds_t",
    ["int usleep(useconds_t useconds)"] = "usleep",
    ["int usleep(useconds_t)"] = "usleep",
    ["unsigned int sleep(unsigned int seconds)"] = "sleep",
    ["unsigned int sleep(unsigned int)"] = "sleep",
}
local CNT = {SB_CNT_OTHER = 0, SB_CNT_READ = 1, SB_CNT_WRITE = 2, SB_CNT_EVENT = 3,
             SB_CNT_TRX = 3, SB_CNT_ERROR = 4, SB_CNT_RECONNECT = 5}
local ffi_C_fns = {
    sb_counter_inc = function(_, kind)
        if kind ~= CNT.SB_CNT_ERROR then
            error("ffi.C.sb_counter_inc: stampede counts only SB_CNT_ERROR (one more " ..
                  "ignored error, as in sysbench), not " .. tostring(kind), 2)
        end
        if host.event_error ~= nil then host.event_error() end
    end,
    usleep = function(us) sleep_s((tonumber(us) or 0) / 1e6) return 0 end,
    sleep = function(s) sleep_s(s) return 0 end,
}
local ffi_declared = {}
local ffi = {
    cdef = function(text)
        if type(text) ~= "string" then error("ffi.cdef() needs a string", 2) end
        for d in text:gmatch("[^;]+") do
            d = d:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""):gsub(" ?([(),]) ?", "%1")
            d = d:gsub(",", ", ")
            if d ~= "" then
                local name = ffi_decls[d]
                if name == nil then
                    error(fmt("ffi.cdef: stampede's ffi is a safe subset, not LuaJIT's FFI; " ..
                              "it does not offer '%s' (docs/guide.md: Your own Lua scripts)", d), 2)
                end
                ffi_declared[name] = true
            end
        end
    end,
    C = setmetatable({}, {__index = function(_, k)
        if CNT[k] ~= nil then return CNT[k] end
        local f = ffi_C_fns[k]
        if f == nil or not ffi_declared[k] then
            error(fmt("ffi.C.%s: not declared with ffi.cdef, or not in stampede's ffi subset",
                      tostring(k)), 2)
        end
        return f
    end}),
}
package.preload.ffi = function() return ffi end

-- ---- sysbench.histogram: bounded histograms (sysbench 1.0.20's API) ---------
-- new(size, min, max): size buckets spaced logarithmically over [min, max]
-- (a value goes to bucket floor((ln v - ln min) * (size-1) / (ln max - ln
-- min) + 0.5), clamped); h:update(v); h:print(): one line per non-empty
-- bucket, "%12.3f |%-40s %d" (its value, a bar scaled to the largest, its
-- count) under sysbench's heading. A histogram belongs to the state that
-- made it: made at the top level it is shared by the connections of one
-- agent worker thread (sysbench: one per thread); made in thread_init(),
-- one per connection.
local hist_mt = {}
hist_mt.__index = hist_mt
local HIST_BAR = string.rep("*", 40)
function hist_mt.update(self, v)
    v = tonumber(v)
    if v == nil then error("histogram:update() needs a number", 2) end
    local i = math.floor((math.log(v) - self._deduct) * self._mult + 0.5)
    if i ~= i or i < 0 then i = 0 elseif i >= self._size then i = self._size - 1 end
    self._count[i] = (self._count[i] or 0) + 1
end
function hist_mt.print(self)
    local max = 0
    for _, c in pairs(self._count) do if c > max then max = c end end
    if max == 0 then return end
    print("       value  ------------- distribution ------------- count")
    for i = 0, self._size - 1 do
        local c = self._count[i]
        if c ~= nil then
            local w = math.floor(c * 40 / max + 0.5)
            print(fmt("%12.3f |%-40s %d", math.exp(i / self._mult + self._deduct),
                      HIST_BAR:sub(1, w), c))
        end
    end
end
sysbench.histogram = {}
function sysbench.histogram.new(size, range_min, range_max)
    size, range_min, range_max = tonumber(size), tonumber(range_min), tonumber(range_max)
    if size == nil or size < 2 or size ~= math.floor(size) or range_min == nil or
        range_max == nil or range_min <= 0 or range_max <= range_min then
        error("sysbench.histogram.new(size, min, max) needs an integer size >= 2 and " ..
              "0 < min < max", 2)
    end
    local d = math.log(range_min)
    return setmetatable({_size = size, _deduct = d, _mult = (size - 1) / (math.log(range_max) - d),
                         _count = {}}, hist_mt)
end

-- ---- reports (coordinator: sysbench.hooks.report_intermediate) ----------
local function rates(stat)
    local s = stat.time_interval
    return stat.events / s, (stat.reads + stat.writes + stat.other) / s, stat.reads / s,
        stat.writes / s, stat.other / s
end
function sysbench.report_csv(stat)
    local tps, qps, r, w, o = rates(stat)
    print(fmt("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f", stat.time_total,
              stat.threads_running, tps, qps, r, w, o, stat.latency_pct * 1000,
              stat.errors / stat.time_interval, stat.reconnects / stat.time_interval))
end
function sysbench.report_default(stat)
    local tps, qps, r, w, o = rates(stat)
    print(fmt("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) " ..
              "lat (ms,%u%%): %4.2f err/s %4.2f reconn/s: %4.2f", stat.time_total,
              stat.threads_running, tps, qps, r, w, o, sysbench.opt.percentile or 95,
              stat.latency_pct * 1000, stat.errors / stat.time_interval,
              stat.reconnects / stat.time_interval))
end
-- One JSON object per report, the keys of sysbench's report_json (which
-- wraps them in an array).
function sysbench.report_json(stat)
    local tps, qps, r, w, o = rates(stat)
    print(fmt('{"time": %.0f, "threads": %u, "tps": %.2f, "qps": {"total": %.2f, ' ..
              '"reads": %.2f, "writes": %.2f, "other": %.2f}, "latency": %.2f, ' ..
              '"errors": %.2f, "reconnects": %.2f}', stat.time_total, stat.threads_running,
              tps, qps, r, w, o, stat.latency_pct * 1000, stat.errors / stat.time_interval,
              stat.reconnects / stat.time_interval))
end
-- Run hook `name` with stat: true when the script has one.
function __sb_report(name, stat)
    local h = sysbench.hooks[name]
    if type(h) ~= "function" then return false end
    h(stat)
    return true
end

-- ---- the thread body and commands (agent) ----------------------------------
-- One coroutine per connection runs this: thread_init, then events.
function __sb_thread_main()
    local ti = G.thread_init
    if ti ~= nil then ti() end
    local ev = G.event
    if ev == nil then error("the script defines no event() function", 0) end
    while true do
        if yield(0) == 1 then break end
        while true do
            local ok, e = xpcall(ev, host_errtext)
            if ok then break end
            if type(e) ~= "table" or e.errcode ~= sysbench.error.RESTART_EVENT then
                error(e, 0)
            end
            local h = sysbench.hooks.before_restart_event
            if h ~= nil then h(e) end
        end
    end
    local td = G.thread_done
    if td ~= nil then td() end
end

-- The function command `name` runs, and whether it runs in every thread.
function __sb_command(name)
    local c = sysbench.cmdline.commands[name]
    if type(c) == "table" and type(c[1]) == "function" then return c[1], c[2] and true or false end
    if type(c) == "function" then return c, false end
    local f = G[name]
    if type(f) == "function" then return f, false end -- sysbench runs these once
    return nil, false
end

function __sb_run_command(name)
    local f = __sb_command(name)
    if f == nil then error("the script has no command '" .. name .. "'", 0) end
    f()
end

-- sysbench.opt from the options as text: types from the script's declared
-- defaults (booleans, numbers), general options from the host's table.
function __sb_set_options(given, general)
    local o = sysbench.opt
    for k, v in pairs(general) do o[k] = v end
    for name, d in pairs(sysbench.cmdline.options) do
        local key = name:gsub("-", "_")
        local def = type(d) == "table" and d[2] or nil
        local v = given[key]
        if v == nil then
            o[key] = def
        elseif type(def) == "boolean" then
            o[key] = host.parse_bool(v) -- pr_parse_bool: one parser
        elseif type(def) == "number" then
            o[key] = tonumber(v)
        else
            o[key] = v
        end
    end
end
