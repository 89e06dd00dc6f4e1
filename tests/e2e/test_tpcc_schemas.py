#!/usr/bin/env python3
"""e2e: tpcc_start's multi-schema mode (-m N -o K: the connection with global
index t uses database <db>_<(t % N) + K>), against the sandbox MariaDB.

  - two 1-warehouse schemas loaded the tpcc-mysql way, `stampede tpcc_load
    -d tpccms_1` and `-d tpccms_2`; the base database `tpccms` does not
    exist (tpcc_start does not need it either);
  - `stampede tpcc_start -d tpccms -m 2 -o 1 -c 4 -t FILE --agents=3` (the
    connections split 2/1/1: agent 3's only connection has global index 3,
    so a per-agent index would put it on tpccms_1): both schemas gain
    orders; the -t file's commits of the even connections (0, 2) equal
    tpccms_1's new orders counted by the server, those of the odd ones
    (1, 3) tpccms_2's; the server's PROCESSLIST shows exactly 2 sessions in
    tpccms_2 during the run; the banner echoes -m and -o as tpcc_start,
    the stampede section and --json tpcc.schemas name the two;
  - `-m 3` with tpccms_3 missing exits non-zero naming `tpccms_3` and saying
    to load it with tpcc_load; an empty tpccms_3 (no tables) the same way.
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


def load_schemas():
    for db in SCHEMAS:
        t = time.monotonic()
        e.run_ok(["tpcc_load", "-h", e.env("HOST", "127.0.0.1"), "-P", e.env("PORT"), "-d", db,
                  "-u", e.env("USER", "sbtest"), "-w", "1", "--agents=1", "--threads=4"] +
                 e.local_opts(), "stampede tpcc_load -d %s -w 1" % db, timeout=300)
        e.info("tpcc_load -d %s -w 1 took %.1f s" % (db, time.monotonic() - t))
        n = orders(db)
        e.check(n == 30000, "%s loaded: %d orders (tpcc_load's 30000 per warehouse)" % (db, n))


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
    test_missing()
    for db in SCHEMAS:
        e.sql("DROP DATABASE IF EXISTS %s" % db)
    e.finish()


if __name__ == "__main__":
    main()
