#!/usr/bin/env python3
"""e2e: tpcc_start's multi-schema mode (-m N -o K: the connection with global
index t uses database <db>_<(t % N) + K>), against the sandbox MariaDB.

  - `stampede tpcc prepare --mysql-db=tpccms --multi-schema=2
    --multi-schema-offset=1 --warehouses=1 --agents=2` loads both schemas
    in one command (each gets tpcc_load's 30,000 orders and 100,000 items;
    the base database `tpccms` does not exist, tpcc_start does not need it
    either), and `stampede tpcc check` with the same -m checks both;
  - `stampede tpcc_start -d tpccms -m 2 -o 1 -c 4 -t FILE --agents=3` (the
    connections split 2/1/1: agent 3's only connection has global index 3,
    so a per-agent index would put it on tpccms_1): both schemas gain
    orders; the -t file's commits of the even connections (0, 2) equal
    tpccms_1's new orders counted by the server, those of the odd ones
    (1, 3) tpccms_2's; the server's PROCESSLIST shows exactly 2 sessions in
    tpccms_2 during the run; the banner echoes -m and -o as tpcc_start,
    the stampede section and --json tpcc.schemas name the two;
  - one district of tpccms_2 corrupted: check -m 2 exits 1 naming tpccms_2
    (tpccms_1 alone still passes);
  - `-m 3` with tpccms_3 missing exits non-zero naming `tpccms_3` and saying
    to load it; an empty tpccms_3 (no tables) the same way; prepare of a
    missing schema says to create it;
  - a schema the user may not use (error 1044) gets the hint naming it and
    the GRANT to give;
  - `stampede tpcc cleanup` with -m 2 drops the 9 tables of both.
"""
import re
import threading
import time

import e2elib as e

BASE = "tpccms"
SCHEMAS = [BASE + "_1", BASE + "_2"]


def orders(db):
    return int(e.sql("SELECT COUNT(*) FROM %s.orders" % db)[0][0])


def start_args(m, extra=()):
    return ["tpcc_start", "-h", e.env("HOST", "127.0.0.1"), "-P", e.env("PORT"), "-d", BASE,
            "-u", e.env("USER", "sbtest"), "-w", "1", "-m", str(m), "-o", "1"] + \
        list(extra) + e.local_opts()


def ms(cmd, m=2, extra=(), offset=1):
    """stampede tpcc CMD over schemas tpccms_<offset>..tpccms_<offset + m - 1>."""
    return ["tpcc", cmd, "--mysql-host=" + e.env("HOST", "127.0.0.1"),
            "--mysql-port=" + e.env("PORT"), "--mysql-user=" + e.env("USER", "sbtest"),
            "--mysql-db=" + BASE, "--multi-schema=%d" % m, "--multi-schema-offset=%d" % offset,
            "--warehouses=1"] + list(extra) + e.local_opts()


def tables_in(db):
    return int(e.sql("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s'" %
                     db)[0][0])


def load_schemas():
    t = time.monotonic()
    p = e.run_ok(ms("prepare", extra=["--agents=2", "--threads=4"]),
                 "stampede tpcc prepare --multi-schema=2 (one command)", timeout=300)
    e.info("tpcc prepare -m 2 -w 1 took %.1f s" % (time.monotonic() - t))
    out = p.text()
    e.check("2 schemas, %s..%s" % (SCHEMAS[0], SCHEMAS[1]) in out,
            "prepare names the schemas it loads")
    for db in SCHEMAS:
        n, items = orders(db), int(e.sql("SELECT COUNT(*) FROM %s.item" % db)[0][0])
        e.check(n == 30000 and items == 100000,
                "%s loaded: %d orders, %d items (tpcc_load's 30000, 100000)" % (db, n, items))
    p = e.run_ok(ms("check", extra=["--agents=2"]), "stampede tpcc check --multi-schema=2")
    e.check("2 schemas" in p.text(), "check names the schemas it checks")


def check_corrupt():
    """One district of the second schema off: check -m 2 fails naming it."""
    e.sql("UPDATE %s.district SET d_next_o_id = d_next_o_id + 5 WHERE d_w_id=1 AND d_id=3" %
          SCHEMAS[1])
    p = e.stampede(ms("check", extra=["--agents=1"]))
    rc = p.wait(120)
    err = p.text("err") + p.text()
    why = [l for l in err.splitlines() if SCHEMAS[1] + ":" in l][:1]
    e.check(rc == 1 and why != [], "check -m 2 with %s corrupted: exit %s, names it: %s" %
            (SCHEMAS[1], rc, why))
    e.run_ok(ms("check", m=1, extra=["--agents=1"]), "check -m 1 (%s alone) passes" % SCHEMAS[0])


def test_denied():
    """A schema the user has no grant on: 1044, and the GRANT to give."""
    a = ["tpcc", "check", "--mysql-host=" + e.env("HOST", "127.0.0.1"),
         "--mysql-port=" + e.env("PORT"), "--mysql-user=" + e.env("USER", "sbtest"),
         "--mysql-db=tpccdenied", "--multi-schema=1", "--warehouses=1", "--agents=1"] + \
        e.local_opts()
    p = e.stampede(a)
    rc = p.wait(60)
    err = p.text("err")
    why = [l for l in err.splitlines() if "1044" in l][:1]
    e.check(rc != 0 and why and "tpccdenied_0" in why[0] and
            "GRANT ALL ON `tpccdenied\\_%`.* TO" in why[0],
            "a schema without a grant: exit %s, names it and the GRANT: %s" % (rc, why))


def test_prepare_missing():
    """prepare of a schema that does not exist says to create it."""
    p = e.stampede(ms("prepare", m=1, extra=["--agents=1"], offset=7))
    rc = p.wait(60)
    why = [l for l in p.text("err").splitlines() if "%s_7" % BASE in l][:1]
    e.check(rc != 0 and why and "CREATE DATABASE" in why[0],
            "prepare of missing %s_7: exit %s, says to create it: %s" % (BASE, rc, why))


def test_cleanup():
    e.run_ok(ms("cleanup", extra=["--agents=2"]), "stampede tpcc cleanup --multi-schema=2")
    left = {db: tables_in(db) for db in SCHEMAS}
    e.check(left == {db: 0 for db in SCHEMAS}, "cleanup -m 2 dropped both: tables left %s" % left)


def sample_sessions(stop, seen):
    """Largest number of the test user's sessions per schema, while running."""
    user = e.env("USER", "sbtest")
    while not stop.is_set():
        rows = e.sql("SELECT DB, COUNT(*) FROM information_schema.PROCESSLIST WHERE USER='%s' "
                     "AND DB LIKE '%s\\_%%' GROUP BY DB" % (user, BASE))
        for db, n in rows:
            seen[db] = max(seen.get(db, 0), int(n))
        time.sleep(0.2)


def test_run():
    before = {db: orders(db) for db in SCHEMAS}
    trx, j = e.path("trx.txt"), e.path("ms.json")
    c = 4
    stop, seen = threading.Event(), {}
    sampler = threading.Thread(target=sample_sessions, args=(stop, seen), daemon=True)
    sampler.start()
    p = e.run_ok(start_args(2, ["-c", str(c), "-r", "1", "-l", "4", "-i", "2", "-t", trx,
                                "--agents=3", "--json=" + j]),
                 "stampede tpcc_start -d %s -m 2 -o 1 -c 4 --agents=3" % BASE, timeout=120)
    stop.set()
    sampler.join(10)
    if p.p.returncode != 0:
        return
    out = p.text()
    e.check("option m (multiple schemas) with value '2'" in out and
            "option o (multiple schemas offset) with value '1'" in out and
            "[DBname]: %s\n" % BASE in out,
            "the banner echoes -m and -o as tpcc_start, [DBname] is the base name")
    delta = {db: orders(db) - before[db] for db in SCHEMAS}
    e.info("orders added by the server's count: %s" % delta)
    e.check(all(delta[db] > 0 for db in SCHEMAS),
            "both schemas got New-Orders: %s" % delta)
    t_re = re.compile(r"^t_num: (\d+) finish:")
    per_conn = {}
    for line in open(trx).read().splitlines():
        m = t_re.match(line)
        if m:
            per_conn[int(m.group(1))] = per_conn.get(int(m.group(1)), 0) + 1
    e.info("-t commits per connection: %s" % dict(sorted(per_conn.items())))
    e.check(sorted(per_conn) == list(range(c)), "every connection committed (%s)" %
            sorted(per_conn))
    want = {SCHEMAS[0]: per_conn.get(0, 0) + per_conn.get(2, 0),
            SCHEMAS[1]: per_conn.get(1, 0) + per_conn.get(3, 0)}
    e.check(want == delta,
            "connections 0,2 committed into %s, 1,3 into %s: -t %s == server %s" %
            (SCHEMAS[0], SCHEMAS[1], want, delta))
    e.info("most sessions seen per schema during the run: %s" % seen)
    # Each agent's probe (RTT, status samples) uses the first schema too.
    e.check(seen.get(SCHEMAS[1]) == 2 and seen.get(SCHEMAS[0], 0) >= 2 and
            set(seen) <= set(SCHEMAS),
            "PROCESSLIST: 2 sessions in %s (connections 1 and 3), >= 2 in %s, no other" %
            (SCHEMAS[1], SCHEMAS[0]))
    doc = e.load_json(j)
    e.check(doc["tpcc"].get("schemas") == SCHEMAS and
            "multi-schema (-m 2 -o 1): %s..%s" % (SCHEMAS[0], SCHEMAS[1]) in out,
            "--json tpcc.schemas %s and the stampede section name the schemas" %
            doc["tpcc"].get("schemas"))
    no = doc["totals"]["kinds"]["new_order"]["count"] - \
        doc["totals"]["kinds"].get("rollback", {}).get("count", 0)
    e.check(no == sum(delta.values()),
            "JSON New-Order commits %d == the orders both schemas gained %d" %
            (no, sum(delta.values())))


def test_missing():
    """-m 3: tpccms_3 does not exist, then exists without tables."""
    for what in ("missing", "empty"):
        if what == "empty":
            e.sql("CREATE DATABASE %s_3" % BASE)
        p = e.stampede(start_args(3, ["-c", "3", "-r", "0", "-l", "2", "-i", "1", "--agents=1"]))
        rc = p.wait(90)
        err = p.text("err")
        why = [l for l in err.splitlines() if "%s_3" % BASE in l][:1]
        e.check(rc == 1 and why and "stampede tpcc_load -d" in why[0] and
                ("Unknown database" in why[0] if what == "missing" else
                 re.search(r"doesn't exist|does not exist", why[0]) is not None),
                "-m 3 with %s_3 %s: exit %s, names it and says to load it: %s" %
                (BASE, what, rc, why))
    e.sql("DROP DATABASE IF EXISTS %s_3" % BASE)


def test_quoted_name():
    """A --mysql-db with a backtick is quoted as an identifier (issue 27 §4:
    USE `%s` took it as it was, with multi-statements on): cleanup of
    schema tp`q_0 drops its table (a syntax error before)."""
    base, db = "tpccms`q", "`tpccms``q_0`"
    user = e.env("USER", "sbtest")
    e.sql("CREATE DATABASE IF NOT EXISTS %s; CREATE TABLE IF NOT EXISTS %s.warehouse (w_id INT); "
          "GRANT ALL ON `tpccms``q\\_%%`.* TO '%s'@'%%'; "
          "GRANT ALL ON `tpccms``q\\_%%`.* TO '%s'@'localhost'" % (db, db, user, user))
    args = ["tpcc", "cleanup", "--mysql-host=" + e.env("HOST", "127.0.0.1"),
            "--mysql-port=" + e.env("PORT"), "--mysql-user=" + user, "--mysql-db=" + base,
            "--multi-schema=1", "--warehouses=1", "--agents=1"] + e.local_opts()
    p = e.stampede(args)
    rc = p.wait(60)
    left = e.sql("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'tpccms`q_0'")
    e.check(rc == 0 and left[0][0] == "0",
            "cleanup of --mysql-db='%s' --multi-schema=1: exit %s, tables left %s: %s"
            % (base, rc, left[0][0], p.text("err").strip()[-300:]))
    e.sql("DROP DATABASE IF EXISTS %s" % db)


def main():
    e.need_sandbox()
    user = e.env("USER", "sbtest")
    e.sql("DROP DATABASE IF EXISTS %s_3; DROP DATABASE IF EXISTS %s" % (BASE, BASE))
    for db in SCHEMAS:
        e.sql("CREATE DATABASE IF NOT EXISTS %s" % db)
    e.sql("GRANT ALL ON `%s\\_%%`.* TO '%s'@'%%'; GRANT ALL ON `%s\\_%%`.* TO '%s'@'localhost'" %
          (BASE, user, BASE, user))
    load_schemas()
    test_run()
    check_corrupt()
    test_missing()
    test_prepare_missing()
    test_denied()
    test_cleanup()
    test_quoted_name()
    for db in SCHEMAS:
        e.sql("DROP DATABASE IF EXISTS %s" % db)
    e.finish()


if __name__ == "__main__":
    main()
