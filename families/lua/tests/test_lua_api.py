#!/usr/bin/env python3
"""e2e lua_api: sysbench Lua API semantics that real scripts rely on (issue 15).

Each case is a small script of its own, run by stampede's Lua family against
the sandbox MariaDB:
  - init_latency: statements thread_init() sends are not part of the first
    event's latency (sysbench starts the event clock at event()): a 1.5 s
    sleep in thread_init, 20 fast events: the largest event latency stays
    well under the sleep;
  - counter_error: ffi.C.sb_counter_inc(tid, SB_CNT_ERROR) counts one ignored
    error per call, the event still counting as a transaction (sysbench's
    sb_counter semantics), never as rolled back;
  - command_hook: sysbench.hooks.sql_error_ignorable is asked for an error in
    a script's own command; with true the script's pcall takes the
    RESTART_EVENT error and the command goes on; with false the command
    ends with the server's error;
  - wide_stmt: a prepared statement with 20 result columns gives its rows,
    every column checked by the script;
  - reconnect: con:reconnect() every 10th event makes a new server
    connection (CONNECTION_ID() changes, the server's Connections counter
    moves), the prepared statement prepared again, each counted a reconnect;
    con:disconnect() then drv:connect() does the same; two live connections
    in one thread are refused by name;
  - histogram: sysbench.histogram.new/update/print in a script, over 2
    threads: each thread with events prints its own histogram (made in
    thread_init) as sysbench prints one, the counts adding up to the events;
  - report_formats: sysbench.report_default and report_csv print, byte for
    byte, what sysbench 1.0.20's own sysbench.lua prints for the same stat
    (the real sysbench runs the script's command; `err/s ` has no colon
    there, and parsers of Percona's tpcc scripts read that line);
  - main_queries: init() and done() query, as sysbench's main thread does
    (issue 27 §5; they failed with "attempt to yield across C-call
    boundary", done()'s with exit status 0): over 2 agents init() runs once,
    creates a table, inserts a row and reads it back (rs:fetch_row, a NULL
    column as nil), done() inserts one and reads the count (con:query_row);
    the server holds exactly those 2 rows (the agents' statement probe no
    longer runs init()); a failing query in init() ends
    the run before any agent starts, a failing one in done() after the
    run's report, both with exit status 1 and the script's FILE:LINE.
"""
import os
import re
import shutil
import subprocess

import e2elib as e


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def base(threads=1):
    return ["--threads=%d" % threads, "--agents=1"] + e.local_opts() + e.db_opts()


def run_json(d, name, lua, events, what):
    """Runs script lua (written as d/name.lua) for that many events with
    --json; (the Proc, the JSON's totals), the totals None when the run
    failed (run_ok has said so)."""
    j = e.path(name + ".json")
    p = e.run_ok([write(d, name + ".lua", lua), "run", "--events=%d" % events, "--time=0",
                  "--json=" + j] + base(), what, timeout=60)
    if p.p.returncode != 0:
        return p, None
    return p, e.load_json(j)["totals"]


INIT_LUA = """
function thread_init()
  con = sysbench.sql.driver():connect()
  con:query("SELECT SLEEP(1.5)")
end
function event() con:query("SELECT 1") end
"""


def init_latency(d):
    tot = run_json(d, "init", INIT_LUA, 20, "lua thread_init latency run")[1]
    if tot is None:
        return
    mx = tot["latency_ms"]["max"]
    e.info("init_latency: %d events, %d statements, max event latency %.2f ms"
           % (tot["transactions"], tot["queries"]["total"], mx))
    e.check(tot["transactions"] == 20 and tot["queries"]["total"] == 21,
            "20 events and 21 statements (thread_init's sleep included): %d, %d"
            % (tot["transactions"], tot["queries"]["total"]))
    e.check(mx < 750, "the first event's latency leaves thread_init's 1500 ms sleep out: "
            "max %.2f ms (< 750)" % mx)


COUNTER_LUA = """
ffi = require("ffi")
ffi.cdef("void sb_counter_inc(int, sb_counter_type);")
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  n = n + 1
  con:query("SELECT 1")
  if n % 2 == 0 then ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_ERROR) end
  if n % 4 == 0 then ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_ERROR) end
end
"""


def counter_error(d):
    tot = run_json(d, "counter", COUNTER_LUA, 40, "lua sb_counter_inc run")[1]
    if tot is None:
        return
    c = tot["counters"]
    e.info("counter_error: %d transactions, %d ignored errors, counters %r"
           % (tot["transactions"], tot["ignored_errors"], c))
    # 40 events: 20 even ones count one error each, 10 of them (n % 4 == 0) a second
    e.check(tot["transactions"] == 40 and tot["ignored_errors"] == 30 and
            c.get("rolled_back", 0) == 0 and c.get("failed", 0) == 0,
            "SB_CNT_ERROR: 40 transactions, 30 ignored errors, none rolled back or failed: "
            "%d, %d, %s, %s" % (tot["transactions"], tot["ignored_errors"],
                                c.get("rolled_back"), c.get("failed")))


COMMAND_LUA = """
function sysbench.hooks.sql_error_ignorable(err)
  print(string.format("HOOK errno=%%d", err.sql_errno))
  return %s
end
function cmd_try()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS lua_cmd_hook (v INT)")
  local ok, err = pcall(con.query, con, "SELECT * FROM no_such_table_cmd")
  print(string.format("CAUGHT restart=%%s", tostring(type(err) == "table" and
        err.errcode == sysbench.error.RESTART_EVENT)))
  con:query("INSERT INTO lua_cmd_hook VALUES (1)")
end
function cmd_plain()
  local con = sysbench.sql.driver():connect()
  con:query("SELECT * FROM no_such_table_cmd")
  con:query("INSERT INTO lua_cmd_hook VALUES (2)")
end
sysbench.cmdline.commands = {try = {cmd_try}, plain = {cmd_plain}}
"""


def command_hook(d):
    db = e.env("DB", "sbtest")
    e.sql("DROP TABLE IF EXISTS %s.lua_cmd_hook" % db)
    yes = write(d, "cmd_yes.lua", COMMAND_LUA % "true")
    no = write(d, "cmd_no.lua", COMMAND_LUA % "false")
    p = e.stampede([yes, "try"] + base())
    rc = p.wait(60)
    out = p.text("out") + p.text("err")
    rows = [r[0] for r in e.sql("SELECT v FROM %s.lua_cmd_hook" % db)]
    e.check(rc == 0 and out.count("HOOK errno=1146") == 1 and "CAUGHT restart=true" in out
            and rows == ["1"],
            "hook true in a command: asked once, the script's pcall took RESTART_EVENT, the "
            "command went on: exit %s, rows %r, %r" % (rc, rows, out.strip()[-300:]))
    p = e.stampede([no, "plain"] + base())
    rc = p.wait(60)
    out = p.text("out") + p.text("err")
    rows = [r[0] for r in e.sql("SELECT v FROM %s.lua_cmd_hook" % db)]
    e.check(rc not in (0, 2) and out.count("HOOK errno=1146") == 1 and "1146" in p.text("err")
            .replace("HOOK errno=1146", "") and rows == ["1"],
            "hook false in a command: asked once, the command ends with the server's error "
            "and sends nothing more: exit %s, rows %r, %r" % (rc, rows, out.strip()[-300:]))
    e.sql("DROP TABLE IF EXISTS %s.lua_cmd_hook" % db)


WIDE_LUA = """
function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT ? AS c1, %s")
  p = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(p)
  n = 0
  ok = 0
end
function event()
  n = n + 1
  p:set(1000 + n)
  local rs = stmt:execute()
  assert(rs.nrows == 1, "nrows " .. tostring(rs.nrows))
  assert(rs.nfields == 20, "nfields " .. tostring(rs.nfields))
  local row = rs:fetch_row()
  assert(row ~= nil, "no row")
  assert(row[1] == tostring(1000 + n), "column 1: " .. tostring(row[1]))
  for i = 2, 20 do
    assert(row[i] == "v" .. i, "column " .. i .. ": " .. tostring(row[i]))
  end
  assert(rs:fetch_row() == nil, "a second row")
  ok = ok + 1
end
function thread_done() print("WIDE VERIFIED " .. ok) end
""" % ", ".join("'v%d' AS c%d" % (i, i) for i in range(2, 21))


def wide_stmt(d):
    before = e.status("Com_stmt_execute")["Com_stmt_execute"]
    p = e.run_ok([write(d, "wide.lua", WIDE_LUA), "run", "--events=50", "--time=0"] + base(),
                 "lua wide prepared statement run", timeout=60)
    after = e.status("Com_stmt_execute")["Com_stmt_execute"]
    if p.p.returncode != 0:
        return
    out = p.text("out") + p.text("err")
    got = [int(x) for x in re.findall(r"WIDE VERIFIED (\d+)", out)]
    e.info("wide_stmt: verified %r, Com_stmt_execute delta %d" % (got, after - before))
    e.check(got == [50] and after - before == 50,
            "50 events read all 20 columns of a prepared statement's row (%r), 50 server-side "
            "executions (%d)" % (got, after - before))


RECONNECT_LUA = """
function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT CONNECTION_ID() + ?")
  p = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(p)
  p:set(0)
  n = 0
  ids = {}
  nids = 0
end
function event()
  n = n + 1
  if n % 10 == 0 then assert(con:reconnect()) end
  local id = stmt:execute():fetch_row()[1]
  if ids[id] == nil then ids[id] = true nids = nids + 1 end
end
function thread_done() print("RECONNECT IDS " .. nids) end
"""


def reconnect(d):
    before = e.status("Connections", "Com_stmt_prepare")
    p, tot = run_json(d, "reconnect", RECONNECT_LUA, 50, "lua con:reconnect() run")
    after = e.status("Connections", "Com_stmt_prepare")
    if tot is None:
        return
    out = p.text("out") + p.text("err")
    ids = [int(x) for x in re.findall(r"RECONNECT IDS (\d+)", out)]
    conns = after["Connections"] - before["Connections"]
    prep = after["Com_stmt_prepare"] - before["Com_stmt_prepare"]
    e.info("reconnect: %d events, %d reconnects, distinct connection ids %r, server "
           "Connections delta %d, Com_stmt_prepare delta %d"
           % (tot["transactions"], tot["reconnects"], ids, conns, prep))
    # events 10, 20, 30, 40, 50 reconnect: 6 connections in all
    e.check(tot["transactions"] == 50 and tot["reconnects"] == 5 and ids == [6],
            "con:reconnect() 5 times: 50 events, %d reconnects, %r distinct CONNECTION_ID()s "
            "(want 5, [6])" % (tot["reconnects"], ids))
    e.check(conns >= 5 and prep >= 5,
            "the server saw the new connections (%d >= 5) and the statement prepared again "
            "(%d >= 5)" % (conns, prep))


HIST_LUA = """
function thread_init()
  con = sysbench.sql.driver():connect()
  h = sysbench.histogram.new(16, 1, 1000)
  n = 0
end
function event()
  n = n + 1
  con:query("SELECT 1")
  h:update(({1, 10, 100})[n % 3 + 1])
end
function thread_done() print("HIST of " .. n) h:print() end
"""


SECOND_LUA = """
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  n = 0
  ids = {}
  nids = 0
end
function event()
  n = n + 1
  if n %% 5 == 0 then
    con:disconnect()
    local ok = pcall(con.query, con, "SELECT 1")
    assert(not ok, "a query on a disconnected connection")
    con = drv:connect()
  end
  local id = con:query_row("SELECT CONNECTION_ID()")
  if ids[id] == nil then ids[id] = true nids = nids + 1 end
  %s
end
function thread_done() print("SECOND IDS " .. nids) end
"""


def second_connect(d):
    p, tot = run_json(d, "second", SECOND_LUA % "", 20, "lua disconnect/connect run")
    if tot is not None:
        out = p.text("out") + p.text("err")
        ids = [int(x) for x in re.findall(r"SECOND IDS (\d+)", out)]
        e.check(tot["transactions"] == 20 and tot["reconnects"] == 4 and ids == [5],
                "con:disconnect() + drv:connect() every 5th of 20 events: %d reconnects, %r "
                "distinct CONNECTION_ID()s (want 4, [5])" % (tot["reconnects"], ids))
    p = e.stampede([write(d, "two.lua", SECOND_LUA % "local c2 = drv:connect()"), "run",
                    "--events=5", "--time=0"] + base())
    rc = p.wait(60)
    e.check(rc != 0 and "one live connection: a second drv:connect()" in p.text("err"),
            "two live connections in a thread: refused by name: exit %s, %r"
            % (rc, p.text("err").strip()[-200:]))


def histogram(d):
    p = e.run_ok([write(d, "hist.lua", HIST_LUA), "run", "--events=60", "--time=0",
                  "--threads=2", "--agents=1"] + e.local_opts() + e.db_opts(),
                 "lua sysbench.histogram run", timeout=60)
    if p.p.returncode != 0:
        return
    out = p.text("out") + p.text("err")
    heads = out.count("       value  ------------- distribution ------------- count")
    ns = [int(x) for x in re.findall(r"HIST of (\d+)", out)]
    of = sum(ns)
    busy = len([n for n in ns if n > 0])  # an empty histogram prints nothing (sysbench)
    rows = re.findall(r"^ *([\d.]+) \|(\**) *(\d+)$", out, re.M)
    e.info("histogram: %d headings, rows %r" % (heads, rows))
    e.check(len(ns) == 2 and heads == busy and of == 60 and sum(int(r[2]) for r in rows) == 60 and
            {r[0] for r in rows} == {"1.000", "10.000", "100.000"},
            "2 threads printed their histograms: %d headings for %d threads with events %r, "
            "counts add to %d of %d events, buckets %s" % (heads, busy, ns,
                                                        sum(int(r[2]) for r in rows), of,
                            sorted({r[0] for r in rows})))


REPORT_LUA = """
local stat = {time_total = 3, threads_running = 2, events = 100, reads = 1400, writes = 400,
              other = 200, time_interval = 1, latency_pct = 0.00123, errors = 3, reconnects = 1}
local function show()
  sysbench.report_default(stat)
  sysbench.report_csv(stat)
end
if sysbench.cmdline.command == "help" then show() end
sysbench.cmdline.commands = {show = {show}}
function event() end
"""


def report_formats(d):
    path = os.path.join(d, "report_fmt.lua")
    with open(path, "w") as f:
        f.write(REPORT_LUA)
    sb = shutil.which("sysbench")
    if not e.check(sb is not None, "sysbench 1.0.20 is installed (deploy/install-deps)"):
        return
    want = subprocess.run([sb, path, "show"], capture_output=True, text=True,
                          timeout=30).stdout.splitlines()[-2:]
    p = e.stampede([path, "help"])
    rc = p.wait(30)
    got = p.text("out").splitlines()[:2]
    e.check(rc == 0 and len(want) == 2 and got == want,
            "report_default and report_csv as sysbench prints them: %r, sysbench %r"
            % (got, want))


MAIN_LUA = """
function init()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS lua_main")
  con:query("CREATE TABLE lua_main (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(8), n INT)")
  con:query("INSERT INTO lua_main (what) VALUES ('init')")
  local row = con:query("SELECT what, n, COUNT(*) FROM lua_main"):fetch_row()
  print("init sees " .. row[1] .. " " .. tostring(row[2]) .. " " .. row[3])
end
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
function done()
  local con = sysbench.sql.driver():connect()
  con:query("INSERT INTO lua_main (what) VALUES ('done')")
  print("done sees " .. con:query_row("SELECT COUNT(*) FROM lua_main") .. " rows")
end
"""

BAD_INIT_LUA = """
function init()
  local con = sysbench.sql.driver():connect()
  con:query("SELECT * FROM no_such_table_init")
end
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
"""

BAD_DONE_LUA = """
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
function done()
  local con = sysbench.sql.driver():connect()
  con:query("SELECT * FROM no_such_table_done")
end
"""


def main_queries(d):
    p = e.run_ok([write(d, "main_q.lua", MAIN_LUA), "run", "--time=1", "--threads=2",
                  "--agents=2"] + e.local_opts() + e.db_opts(), "init()/done() query run",
                 timeout=60)
    out = p.text("out")
    e.check(re.search(r"^init sees init nil 1$", out, re.M) is not None and
            re.search(r"^done sees 2 rows$", out, re.M) is not None,
            "init() and done() query and read their rows, once each: %r"
            % [l for l in out.splitlines() if "sees" in l])
    rows = e.sql("SELECT what FROM %s.lua_main ORDER BY id" % e.env("DB", "sbtest"))
    e.check(rows == [["init"], ["done"]], "the server holds init()'s and done()'s rows: %r"
            % rows)
    for name, text, line, lines_want in (("bad_init", BAD_INIT_LUA, 4, False),
                                         ("bad_done", BAD_DONE_LUA, 6, True)):
        p = e.stampede([write(d, name + ".lua", text), "run", "--time=1"] + base(1))
        rc = p.wait(60)
        err, out = p.text("err"), p.text("out")
        e.check(rc == 1 and re.search(r"%s\.lua:%d: SQL error: Table '\S+' doesn't exist"
                                      % (name, line), err) is not None,
                "%s: exit %s, stderr names %s.lua:%d and the server's error: %r"
                % (name, rc, name, line, err[-400:]))
        e.check(("transactions:" in out) == lines_want,
                "%s: the run's report %s" % (name, "printed, kept" if lines_want else
                                             "not printed: no agent started"))


def main():
    report_formats(e.path("."))
    e.need_sandbox()
    d = e.path("lua_api")
    os.makedirs(d, exist_ok=True)
    init_latency(d)
    counter_error(d)
    command_hook(d)
    wide_stmt(d)
    reconnect(d)
    second_connect(d)
    histogram(d)
    main_queries(d)
    e.finish()


if __name__ == "__main__":
    main()
