#!/usr/bin/env python3
"""e2e: the environment a run's JSON records, and the server's side over time.

Two real runs against the sandbox, innodb_flush_log_at_trx_commit set with
SET GLOBAL to 1 before the first and to 2 before the second (restored at
the end). Checked against what this script reads itself:
  - environment.server.version and version_comment equal SELECT VERSION()
    and @@version_comment; every variable equals SHOW GLOBAL VARIABLES, the
    flush setting is "1" in the first JSON and "2" in the second, and a
    variable the server does not have (innodb_redo_log_capacity on MariaDB,
    or whichever listed one it lacks) is null with its reason;
  - environment.dataset equals information_schema.TABLES for the schema
    (names, rows, data and index bytes, totals);
  - environment.agents has every agent (two in the first run), each with
    the hostname, kernel (uname), CPU model (/proc/cpuinfo), cores, memory
    (/proc/meminfo MemTotal), Connector/C (mariadb_config --cc_version),
    stampede version and git commit of this checkout;
  - every printed interval has server_status with every key, the buffer
    pool read requests rate > 0 under load, and the counters' increases
    (rate x len_s) summed over the run within what the server's own
    counters moved around it; the tail interval has null; the CSV's added
    columns (at the end: the old columns keep their positions) equal them;
  - the cross-check still matches and the server's Com_select moved by
    exactly the statements the run counted: the environment is read with
    SHOW statements only, before the READY baseline.
"""
import csv
import os
import re
import shutil
import socket
import subprocess

import e2elib as e

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OLD_CSV = ("t_s,len_s,threads,tps,qps,reads_s,writes_s,other_s,lat_p50_ms,lat_p95_ms,lat_p99_ms,"
           "lat_max_ms,err_s,reconn_s,agents_reporting,late,partial,server_qps,printed,"
           "svc_p50_ms,svc_p95_ms,svc_p99_ms").split(",")
STATUS = {  # server_status key -> (SHOW GLOBAL STATUS name, gauge)
    "Threads_running": ("Threads_running", True),
    "Innodb_buffer_pool_reads_s": ("Innodb_buffer_pool_reads", False),
    "Innodb_buffer_pool_read_requests_s": ("Innodb_buffer_pool_read_requests", False),
    "Innodb_row_lock_waits_s": ("Innodb_row_lock_waits", False),
    "Innodb_row_lock_time_ms_s": ("Innodb_row_lock_time", False),
    "Innodb_data_fsyncs_s": ("Innodb_data_fsyncs", False),
    "Innodb_log_waits_s": ("Innodb_log_waits", False),
    "Created_tmp_disk_tables_s": ("Created_tmp_disk_tables", False),
}


def one(q):
    return e.sql(q)[0][0]


def info_tables():
    """The schema's base tables as information_schema.TABLES has them now."""
    rows = e.sql("SELECT TABLE_NAME, COALESCE(TABLE_ROWS,0), COALESCE(DATA_LENGTH,0), "
                 "COALESCE(INDEX_LENGTH,0) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s' "
                 "AND TABLE_TYPE='BASE TABLE' ORDER BY TABLE_NAME" % e.env("DB", "sbtest"))
    return [{"name": r[0], "rows": int(r[1]), "data_bytes": int(r[2]), "index_bytes": int(r[3])}
            for r in rows]


def run(name, agents, flush):
    e.sql("SET GLOBAL innodb_flush_log_at_trx_commit=%d" % flush)
    tables_before = info_tables()
    files = {k: e.path("%s.%s" % (name, k)) for k in ("json", "csv")}
    before = e.status("Com_select", *[v[0] for v in STATUS.values()])
    e.run_ok(["oltp_read_only", "run", "--tables=2", "--table-size=5000", "--threads=4",
              "--time=3", "--report-interval=1", "--agents=%d" % agents,
              "--json=" + files["json"], "--csv=" + files["csv"]] + e.local_opts() + e.db_opts(),
             "%s: run with %d agent(s), flush_log_at_trx_commit=%d" % (name, agents, flush))
    after = e.status("Com_select", *[v[0] for v in STATUS.values()])
    d = e.load_json(files["json"])
    d["_tables"] = (tables_before, info_tables())  # the statistics just before and after
    return d, files["csv"], before, after


def check_server(name, d, flush):
    srv = d["environment"]["server"]
    ver, com = one("SELECT VERSION()"), one("SELECT @@version_comment")
    e.check(srv["version"] == ver, "%s: server.version %r == SELECT VERSION() %r" % (name, srv["version"], ver))
    e.check(srv["version_comment"] == com,
            "%s: server.version_comment %r == %r" % (name, srv["version_comment"], com))
    names = list(srv["variables"])
    have = {r[0]: r[1] for r in e.sql("SHOW GLOBAL VARIABLES WHERE Variable_name IN (%s)"
                                      % ",".join("'%s'" % n for n in names))}
    e.check(len(names) >= 15, "%s: %d variables listed" % (name, len(names)))
    for must in ("innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin",
                 "binlog_format", "innodb_flush_method", "innodb_log_file_size", "innodb_io_capacity",
                 "innodb_doublewrite", "transaction_isolation", "max_connections", "thread_handling",
                 "performance_schema", "character_set_server"):
        e.check(must in srv["variables"], "%s: variable %s is listed" % (name, must))
    wrong = [(n, v, have.get(n)) for n, v in srv["variables"].items()
             if v != have.get(n) and n != "innodb_flush_log_at_trx_commit"]  # set per run: below
    e.check(not wrong, "%s: every variable equals SHOW GLOBAL VARIABLES (%d read, %d absent; wrong: %s)"
            % (name, len(have), len(names) - len(have), wrong))
    absent = [n for n in names if n not in have]
    e.check(absent and all(srv["unread"].get(n) == "no such variable on this server" for n in absent),
            "%s: variables this server lacks are null with the reason: %s"
            % (name, {n: srv["unread"].get(n) for n in absent}))
    if "innodb_redo_log_capacity" not in have:
        e.check(srv["variables"]["innodb_redo_log_capacity"] is None
                and "innodb_redo_log_capacity" in srv["unread"],
                "%s: innodb_redo_log_capacity (not on %s) is null: %r"
                % (name, ver, srv["unread"].get("innodb_redo_log_capacity")))
    e.check(not set(srv["unread"]) & set(have), "%s: no readable variable is in unread" % name)
    got = srv["variables"]["innodb_flush_log_at_trx_commit"]
    e.check(got == str(flush), "%s: innodb_flush_log_at_trx_commit %r (set to %d)" % (name, got, flush))


def check_dataset(name, d):
    ds = d["environment"]["dataset"]
    db = e.env("DB", "sbtest")
    # InnoDB's persistent statistics may be recalculated in the background
    # (a fresh sample of pages): what the lead read at READY is what the
    # server had just before the run or, at the latest, just after it.
    before, after = d["_tables"]
    want = before if ds["tables"] == before else after
    e.check(ds["schema"] == db and ds["unread"] is None, "%s: dataset.schema %r" % (name, ds["schema"]))
    e.check(ds["tables"] == want, "%s: dataset.tables equal information_schema.TABLES "
            "(before or after the run): %s vs %s / %s" % (name, ds["tables"], before, after))
    e.check(ds["table_count"] == len(want) >= 2, "%s: table_count %s" % (name, ds["table_count"]))
    for k in ("rows", "data_bytes", "index_bytes"):
        e.check(ds[k] == sum(t[k] for t in want), "%s: dataset.%s %s is the tables' total" % (name, k, ds[k]))
    e.check(any(t["rows"] > 0 for t in ds["tables"]), "%s: rows are there (estimates)" % name)


def host_facts():
    u = os.uname()
    cpu = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = next(int(l.split()[1]) * 1024 for l in f if l.startswith("MemTotal:"))
    cc = None
    if shutil.which("mariadb_config"):
        cc = subprocess.run(["mariadb_config", "--cc_version"], capture_output=True,
                            text=True).stdout.strip()
    head = subprocess.run(["git", "-C", SRC, "rev-parse", "--short=7", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    return {"hostname": socket.gethostname(), "kernel": "%s %s %s" % (u.sysname, u.release, u.machine),
            "cpu_model": cpu, "cores": os.sysconf("SC_NPROCESSORS_ONLN"), "memory_bytes": mem,
            "connector_c": cc}, head


def check_agents(name, d, n):
    ags = d["environment"]["agents"]
    e.check(len(ags) == n and [a["name"] for a in ags] == [a["name"] for a in d["agents"]],
            "%s: environment.agents %s == the run's agents" % (name, [a["name"] for a in ags]))
    facts, head = host_facts()
    for a in ags:
        e.check(a["reported"] is True and a["unread"] == {}, "%s: %s reported every fact" % (name, a["name"]))
        for k, v in facts.items():
            if v is None:
                e.info("%s: %s not checked (this script cannot read it)" % (name, k))
                continue
            e.check(a[k] == v, "%s: %s %s %r == %r" % (name, a["name"], k, a[k], v))
        e.check(a["stampede_version"] == d["version"], "%s: stampede_version %r" % (name, a["stampede_version"]))
        g = a["git_commit"]
        if head:
            e.check(re.fullmatch(r"[0-9a-f]{7,}(-dirty)?", g or "") and g.startswith(head[:7]),
                    "%s: git_commit %r is this checkout's HEAD %s" % (name, g, head))
        else:
            e.check(g == "unknown", "%s: git_commit %r outside git" % (name, g))


def check_status(name, d, csv_path, before, after):
    ivs = d["intervals"]
    printed = [iv for iv in ivs if iv["printed"]]
    e.check(len(printed) >= 2, "%s: %d printed intervals" % (name, len(printed)))
    ok = all(isinstance(iv["server_status"], dict) and
             all(isinstance(iv["server_status"].get(k), (int, float)) for k in STATUS) for iv in printed)
    e.check(ok, "%s: every printed interval has server_status with every key" % name)
    if not ok:
        return
    rr = [iv["server_status"]["Innodb_buffer_pool_read_requests_s"] for iv in printed]
    e.check(all(x > 0 for x in rr), "%s: Innodb_buffer_pool_read_requests_s > 0 under load: %s" % (name, rr))
    tr = [iv["server_status"]["Threads_running"] for iv in printed]
    e.check(all(1 <= x <= 64 for x in tr), "%s: Threads_running %s" % (name, tr))
    for key, (sname, gauge) in STATUS.items():
        if gauge:
            continue
        inc = sum(iv["server_status"][key] * iv["len_s"] for iv in printed)
        moved = after[sname] - before[sname]
        e.check(0 <= inc <= moved * 1.0001 + 0.5,
                "%s: %s: increase over printed intervals %.1f within the server's own delta %d"
                % (name, key, inc, moved))
    tails = [iv for iv in ivs if not iv["printed"]]
    e.check(all(iv["server_status"] is None for iv in tails), "%s: %d tail interval(s) null" % (name, len(tails)))
    with open(csv_path) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    e.check(head[:len(OLD_CSV)] == OLD_CSV, "%s: CSV's first %d columns unchanged" % (name, len(OLD_CSV)))
    e.check("srv_innodb_buffer_pool_read_requests_s" in head[len(OLD_CSV):] and
            "srv_threads_running" in head[len(OLD_CSV):], "%s: CSV srv_ columns at the end" % name)
    bad = []
    for iv, row in zip(ivs, rows[1:]):
        for key in STATUS:
            cell = row[head.index("srv_" + key.lower())]
            want = iv["server_status"][key] if iv["server_status"] else None
            if (cell == "" and want is not None) or (cell != "" and (want is None or abs(float(cell) - want) > 1e-9 * max(1, abs(want)))):
                bad.append((iv["k"], key, cell, want))
    e.check(len(rows) - 1 == len(ivs) and not bad, "%s: CSV srv_ cells equal the JSON's (%s)" % (name, bad[:5]))
    e.check(d["server"]["checked"] and d["server"]["match"],
            "%s: server cross-check still matches (diff %s)" % (name, d["server"].get("diff")))
    sel = after["Com_select"] - before["Com_select"]
    reads = d["totals"]["queries"]["read"]
    e.check(sel == reads, "%s: the server's Com_select moved by %d == the run's reads %d (no "
            "SELECT of stampede's own)" % (name, sel, reads))


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    e.sql("ANALYZE TABLE %s.sbtest1, %s.sbtest2" % ((e.env("DB", "sbtest"),) * 2))  # settle statistics
    orig = one("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
    try:
        d1, csv1, b1, a1 = run("run1", 2, 1)
        d2, csv2, b2, a2 = run("run2", 1, 2)
    finally:
        e.sql("SET GLOBAL innodb_flush_log_at_trx_commit=%s" % orig)
    for name, d, flush, n in (("run1", d1, 1, 2), ("run2", d2, 2, 1)):
        check_server(name, d, flush)
        check_dataset(name, d)
        check_agents(name, d, n)
    check_status("run1", d1, csv1, b1, a1)
    check_status("run2", d2, csv2, b2, a2)
    v1, v2 = d1["environment"]["server"]["variables"], d2["environment"]["server"]["variables"]
    diff = sorted(k for k in v1 if v1[k] != v2.get(k))
    e.check(diff == ["innodb_flush_log_at_trx_commit"], "the two runs' variables differ only in %s" % diff)
    e.finish()


main()
