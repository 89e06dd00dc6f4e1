#!/usr/bin/env python3
"""e2e sysbench_tpcc: Percona's sysbench-tpcc (code nobody here wrote) runs
unchanged through stampede's Lua engine, distributed over 2 local agents
(issue 15).

The scripts come from the peer tarball sysbench-tpcc-585e2b8.tar.gz in the
directory $STAMPEDE_PEER_SOURCES names (tests/run sets it; exit 77 without
it), unpacked into a temporary directory; the data goes into a database of
its own.
  - prepare --scale=1 --tables=1 --threads=2: its cmd_prepare is a
    PARALLEL_COMMAND run by thread 0 (agent 1) and thread 1 (agent 2):
    thread 0 creates the table set, both sleep(30) (os.execute("sleep 30"):
    a DO SLEEP on their own connection, Com_do +2, the prepare lasting
    >= 30 s), thread 0 loads warehouse 1; the set then holds what TPC-C's
    population rules (the script's MAXITEMS, DIST_PER_WARE, CUST_PER_DIST)
    say, order_line as many rows as orders' o_ol_cnt add up to;
  - run --threads=4 --time=4: both agents run transactions; the server's
    Com_begin/commit/rollback/select/insert/update/delete deltas equal the
    kinds the client counted; its report_intermediate hook prints
    sysbench.report_default lines on the coordinator; its 1% New-Order
    rollbacks (ffi.C.sb_counter_inc + ROLLBACK) are counted;
  - check (a PARALLEL_COMMAND reading every row of multi-row results):
    its ten checks print PASSED; after one district's d_next_o_id is moved
    on the server, its Check 2 prints FAILED (the rows are really read);
  - cleanup drops every table.
"""
import os
import re
import tarfile
import time

import e2elib as e

DB = "sbtpcc_e2e"
TABLES = 1
TARBALL = "sysbench-tpcc-585e2b8.tar.gz"
KINDS = ("begin", "commit", "rollback", "select", "insert", "update", "delete")
COUNTERS = tuple("Com_" + k for k in KINDS) + ("Com_do",)


def tarball():
    return e.peer_source(TARBALL)


def unpack(tb):
    with tarfile.open(tb) as t:
        t.extractall(e.tmpdir())
    for root, _, files in os.walk(e.tmpdir()):
        if "tpcc.lua" in files:
            return os.path.join(root, "tpcc.lua")
    e.check(False, "the tarball holds tpcc.lua")
    e.finish()


def tpcc(script, cmd, extra, what, timeout=240):
    before = e.status(*COUNTERS)
    t = time.monotonic()
    p = e.run_ok([script, cmd, "--scale=1", "--tables=%d" % TABLES, "--agents=2"] + extra
                 + e.local_opts() + e.db_opts(db=DB), what, timeout=timeout)
    took = time.monotonic() - t
    after = e.status(*COUNTERS)
    if p.p.returncode != 0:
        e.finish()
    out = p.text("out") + p.text("err")
    return out, {k: after[k] - before[k] for k in after}, took


def count(table):
    return int(e.sql("SELECT COUNT(*) FROM %s.%s" % (DB, table))[0][0])


def check_prepare(script):
    out, d, took = tpcc(script, "prepare", ["--threads=2"], "sysbench-tpcc prepare")
    e.info("prepare took %.1f s; deltas %s" % (took, d))
    made = sorted(int(n) for n in re.findall(r"Creating tables: (\d+)", out))
    e.check(made == list(range(1, TABLES + 1)),
            "thread 0 created the table set (printed: %s)" % made)
    e.check(d["Com_do"] == 2 and took >= 30,
            "both threads' sleep(30) ran as DO SLEEP on their connection: Com_do +%d, "
            "prepare %.1f s" % (d["Com_do"], took))
    # TPC-C's population (the script's constants): per warehouse
    want = {"warehouse": 1, "district": 10, "customer": 10 * 3000, "history": 10 * 3000,
            "orders": 10 * 3000, "new_orders": 10 * 900, "item": 100000, "stock": 100000}
    for t in range(1, TABLES + 1):
        got = {k: count("%s%d" % (k, t)) for k in want}
        e.check(got == want, "table set %d holds %s (want %s)" % (t, got, want))
        ol = count("order_line%d" % t)
        sum_ol = int(e.sql("SELECT SUM(o_ol_cnt) FROM %s.orders%d" % (DB, t))[0][0])
        e.check(ol == sum_ol and ol > 0,
                "order_line%d holds %d rows, orders' o_ol_cnt add up to %d" % (t, ol, sum_ol))


def check_run(script):
    j = e.path("run.json")
    out, d, took = tpcc(script, "run", ["--threads=4", "--time=4", "--report-interval=1",
                                        "--json=" + j], "sysbench-tpcc run", timeout=120)
    r = e.load_json(j)
    tot = r["totals"]
    kinds = {k: v["count"] for k, v in tot["kinds"].items()}
    e.info("run: %d transactions, %.1f tps, kinds %s; server deltas %s"
           % (tot["transactions"], tot["tps"], kinds, d))
    per_agent = [(a["name"], a["transactions"]) for a in r["agents"]]
    e.check(len(per_agent) == 2 and all(n > 0 for _, n in per_agent),
            "both agents ran transactions: %s" % per_agent)
    for k in KINDS:
        e.check(d["Com_" + k] == kinds.get(k, 0),
                "server Com_%s delta %d == client %s statements %d"
                % (k, d["Com_" + k], k, kinds.get(k, 0)))
    e.check(kinds.get("begin", 0) == tot["transactions"],
            "one BEGIN per event: %d BEGINs, %d events" % (kinds.get("begin", 0),
                                                         tot["transactions"]))
    lines = re.findall(r"^\[ \d+s \] thds: \d+ tps: [\d.]+ qps: [\d.]+", out, re.M)
    e.check(len(lines) >= 2, "its report_intermediate hook printed %d report_default lines"
            % len(lines))


def check_check(script):
    out, _, _ = tpcc(script, "check", ["--threads=2"], "sysbench-tpcc check")
    passed = re.findall(r"Check (\d+), warehouse: 1 PASSED", out)
    e.check(len(passed) == 10 and "FAILED" not in out,
            "check: %d checks PASSED (%s), none FAILED" % (len(passed), ",".join(passed)))
    e.sql("UPDATE %s.district1 SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 7"
          % DB)
    out, _, _ = tpcc(script, "check", ["--threads=2"], "sysbench-tpcc check (spoilt)")
    e.check(re.search(r"Check 2, warehouse: 1 FAILED", out) is not None,
            "after district 7's d_next_o_id moved, check 2 FAILED: %r"
            % re.findall(r"Check 2.*", out))
    e.sql("UPDATE %s.district1 SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 7"
          % DB)


def main():
    e.need_sandbox()
    script = unpack(tarball())
    user = e.env("USER", "sbtest")
    e.sql("DROP DATABASE IF EXISTS %s; CREATE DATABASE %s; GRANT ALL ON %s.* TO '%s'@'%%'; "
          "GRANT ALL ON %s.* TO '%s'@'localhost'" % (DB, DB, DB, user, DB, user))
    try:
        check_prepare(script)
        check_run(script)
        check_check(script)
        tpcc(script, "cleanup", [], "sysbench-tpcc cleanup")
        left = e.sql("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s'"
                     % DB)[0][0]
        e.check(left == "0", "cleanup dropped every table (%s left)" % left)
    finally:
        e.sql("DROP DATABASE IF EXISTS %s" % DB)
    e.finish()


if __name__ == "__main__":
    main()
