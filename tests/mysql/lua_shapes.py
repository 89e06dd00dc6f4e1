#!/usr/bin/env python3
"""lua_shapes: stampede's Lua engine sends the statements sysbench sends.

Usage: python3 lua_shapes.py STAMPEDE SYSBENCH

Debian's own scripts (/usr/share/sysbench/*.lua, code nobody here wrote)
run through stampede's Lua family (`--lua`, one local agent) and through
the real sysbench 1.0.20, one after the other against the sandbox MariaDB
with the general log on; what each tool's connections sent is compared
connection by connection with statement_shapes.py's capture and
normalization (its docstring). Also compared: the Lua family against the
native C family for the same run, so the three agree.

Compared (--tables=2 --table-size=100 --threads=1 --events=20):
  oltp_read_write prepare (the script's cmd_prepare: DDL, bulk inserts,
  index) and cleanup; runs of every Debian script that uses the database
  (the ten oltp_* and select_random_* scripts, in --db-ps-mode=auto and
  disable; against the native family too for four of them, the other six
  are compared with the native family by statement_shapes.py); and
  bulk_insert.lua's prepare, run and cleanup (plain, non-parallel commands
  written as global functions).

bulk_insert's run is compared by what the server received, not connection
by connection: with --threads=2 and --events=20 the split of the events
between sysbench's two threads is a race in sysbench itself (20/0, 12/8,
0/20, 13/7 seen in five runs), so the check is one multi-row INSERT per
connection into that connection's own table, 20 rows in all.
Exit 77 without the sandbox, the mariadb client or sysbench 1.0.20.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import statement_shapes as ss  # noqa: E402

SCRIPTS = "/usr/share/sysbench"
RUNS = ss.RUN_WORKLOADS
NATIVE_TOO = ["oltp_read_write", "oltp_point_select", "oltp_insert", "select_random_points"]


def bulk_rows(tool, logdir):
    """bulk_insert run with --threads=2 --events=20: [(table, rows)] of every
    INSERT the server received, sorted, or None when the tool failed."""
    cap = ss.capture(tool, "bulk_insert", "run", ss.db_opts() + ["--threads=2", "--events=20"],
                     logdir)
    if cap is None:
        return None
    out = []
    for conn in cap[0]:
        for line in conn:
            cmd, _, text = line.partition("\t")
            m = re.match(r"INSERT INTO sbtest(\d+) VALUES(\(N,N\))(?:x(\d+))?\Z", text)
            if cmd == "Query" and m:
                out.append((int(m.group(1)), int(m.group(3) or 1)))
    return sorted(out)


def bulk_insert(sb, lua, logdir):
    opts = ss.db_opts() + ["--threads=2"]
    caps = []
    for t in (sb, lua):
        ss.drop_tables()
        caps.append(ss.capture(t, "bulk_insert", "prepare", opts, logdir))
    ss.compare("lua bulk_insert prepare", caps[0], caps[1])
    for t in (sb, lua):
        ss.sql("TRUNCATE %s.sbtest1; TRUNCATE %s.sbtest2" % ((ss.env("DB", "sbtest"),) * 2))
        got = bulk_rows(t, logdir)
        total = sum(n for _, n in got) if got else 0
        tables = [tb for tb, _ in got] if got else []
        ss.check(got is not None and total == 20 and len(set(tables)) == len(tables)
                 and set(tables) <= {1, 2},
                 "%s bulk_insert run: one multi-row INSERT per connection into its own table, "
                 "20 rows in all (got %s)" % (t.name, got))
    caps = []
    for t in (sb, lua):
        if t is lua:
            sb.run("bulk_insert", "prepare", opts, logdir)
        caps.append(ss.capture(t, "bulk_insert", "cleanup", opts, logdir))
    ss.compare("lua bulk_insert cleanup", caps[0], caps[1])


def main():
    stampede_bin, sysbench_bin = ss.need_tools()
    if not os.path.exists(os.path.join(SCRIPTS, "oltp_common.lua")):
        print("SKIP: %s/oltp_common.lua is missing (Debian's sysbench ships it)" % SCRIPTS)
        sys.exit(ss.SKIP)
    import tempfile
    logdir = tempfile.mkdtemp(prefix="stampede-lua-shapes-")
    sb = ss.Tool("sysbench", sysbench_bin, [])
    lua = ss.Tool("stampede", stampede_bin, ["--agents=1", "--lua"])
    native = ss.Tool("stampede", stampede_bin, ["--agents=1"])
    oltp = ss.db_opts() + ["--tables=%d" % ss.TABLES, "--table-size=%d" % ss.TABLE_SIZE,
                           "--threads=1"]
    run = ["--events=%d" % ss.EVENTS]
    saved = ss.sql("SELECT @@GLOBAL.log_output, @@GLOBAL.general_log")[0]
    ss.sql("SET GLOBAL log_output='TABLE'; SET GLOBAL general_log=ON")
    try:
        caps = []
        for t in (sb, lua):
            ss.drop_tables()
            caps.append(ss.capture(t, "oltp_read_write", "prepare", oltp, logdir))
        ss.compare("lua oltp_read_write prepare", caps[0], caps[1])
        for wl in RUNS:
            for mode in ss.PS_MODES:
                opts = oltp + run + ["--db-ps-mode=" + mode]
                got = []
                for t in (sb, lua, native) if wl in NATIVE_TOO else (sb, lua):
                    ss.drop_unique_ids(t)
                    got.append(ss.capture(t, wl, "run", opts, logdir,
                                          mask_tables=wl.startswith("oltp_")))
                ss.compare("lua %s run --db-ps-mode=%s vs sysbench" % (wl, mode), got[0], got[1])
                if wl in NATIVE_TOO:
                    ss.compare("lua %s run --db-ps-mode=%s vs native" % (wl, mode),
                               got[2], got[1])
        caps = []
        for t in (sb, lua):
            sb.run("oltp_read_write", "prepare", oltp, logdir) if t is lua else None
            caps.append(ss.capture(t, "oltp_read_write", "cleanup", oltp, logdir))
        ss.compare("lua oltp_read_write cleanup", caps[0], caps[1])
        bulk_insert(sb, lua, logdir)
    finally:
        ss.sql("SET GLOBAL general_log=%s; SET GLOBAL log_output='%s'; "
               "TRUNCATE mysql.general_log" % ("ON" if saved[1] == "1" else "OFF", saved[0]))
        ss.drop_tables()
    if ss.failures:
        print("\n%d check(s) failed; tool output kept in %s" % (len(ss.failures), logdir))
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)


if __name__ == "__main__":
    main()
