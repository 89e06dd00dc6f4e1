#!/usr/bin/env python3
"""tpcc_gen: the tpcc family's generator against tpcc-mysql itself.

Usage: python3 tpcc_gen.py TEST_TPCC_GEN [TPCC_MYSQL_TARBALL]

Against the sandbox MariaDB (STAMPEDE_TEST_MYSQL_*; exit 77 without it, the
mariadb client, make/cc or the tarball: TPCC_MYSQL_TARBALL, else
tpcc-mysql-1ec1c5e.tar.gz in $STAMPEDE_PEER_SOURCES, which tests/run sets):
  1. builds tpcc-mysql in a temporary directory, creates a database
     tpcc_gen_test (granted to the test user), runs its create_table.sql and
     loads 1 warehouse with its own tpcc_load (~30-40 s);
  2. test_tpcc_gen rows: AG_WANT_ROWS (prepared and text) through a real
     connection; test_tpcc_gen run: every transaction type commits, the 1% New-Order
     rollback leaves nothing, the kinds match the server's counters,
     consistency conditions 1-4 hold;
  3. test_tpcc_gen retry with innodb_lock_wait_timeout=1 and warehouse 1's
     districts locked by another session: with the general log on, every
     retried attempt (a ROLLBACK that does not follow New-Order's invalid
     item) repeats the failed attempt's statements with the same
     parameters (the timestamps excepted: taken per attempt), and the
     statement that failed is sent again; then with --max-retries=2 events
     fail;
  4. a lost connection: the generator's session is killed mid-run (KILL
     CONNECTION): it reconnects, its new session sends SET autocommit=0
     before any statement, and every event completes;
  5. statement shapes: tpcc_start -w 1 -c 1 -r 0 -l 3 -i 1 and test_tpcc_gen
     shapes, each with the general log on; the sets of prepared statements
     must be equal, and per transaction type (a transaction is what lies
     between COMMIT/ROLLBACKs, typed by its first statement) the set of
     statements with literals replaced by ?, and the set of statement
     sequences with repeated runs collapsed (New-Order's lines, Stock-Level's
     per-item loop) must be equal. New-Order's rolled-back sequence (1%) is
     required from stampede; tpcc_start's 3 s may not draw it (printed).
     stampede's parameters taken from results are checked against the data
     (rows those statements read do not change during a run): Payment by
     name pays the ceil(n/2)-th customer by c_first, Stock-Level queries
     exactly the distinct items of the 20 orders, Delivery credits the
     order's o_c_id, each district's committed New-Orders take consecutive
     o_ids.
The general log, innodb_lock_wait_timeout and the database are restored /
dropped at the end.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import rootsql
from peer_sources import peer_source
from rootsql import check, env, failures

SKIP = 77
DB = "tpcc_gen_test"

STRING_RX = re.compile(r"'(?:[^'\\]|\\.|'')*'")
NUMBER_RX = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
SANITIZER_RX = re.compile(r"ERROR: (Address|Leak)Sanitizer:|\bruntime error: |"
                          r"WARNING: ThreadSanitizer:")
DATE_RX = re.compile(r"'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d'")

# A transaction's type by its first statement.
TXN_FIRST = [("new_order", "SELECT c_discount"), ("payment", "UPDATE warehouse"),
             ("order_status", "SELECT count(c_id)"), ("order_status", "SELECT c_balance"),
             ("delivery", "SELECT COALESCE(MIN(no_o_id)"),
             ("stock_level", "SELECT d_next_o_id FROM district")]


def sql(query, db=None, stdin=None):
    return rootsql.sql(query, db, stdin, timeout=120)


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def build(tarball, tmp):
    subprocess.run(["tar", "xzf", tarball, "-C", tmp], check=True)
    src = os.path.join(tmp, "tpcc-mysql")
    libs = subprocess.run(["mysql_config", "--libs_r"], capture_output=True, text=True,
                          check=True).stdout.strip()
    p = subprocess.run(["make", "-C", "src", "LIBS=%s -lrt -lm" % libs], cwd=src,
                       capture_output=True, text=True)
    if not check(p.returncode == 0, "tpcc-mysql builds"):
        print(p.stdout[-2000:], p.stderr[-2000:])
        sys.exit(1)
    return src


def tpcc_args():
    return ["-h", env("HOST", "127.0.0.1"), "-P", env("PORT"), "-d", DB, "-u",
            env("USER", "sbtest"), "-p", env("PASSWORD")]


def load(src):
    user = env("USER", "sbtest")
    sql("DROP DATABASE IF EXISTS %s; CREATE DATABASE %s; GRANT ALL ON %s.* TO '%s'@'%%'; "
        "GRANT ALL ON %s.* TO '%s'@'localhost'" % (DB, DB, DB, user, DB, user))
    with open(os.path.join(src, "create_table.sql")) as f:
        sql(None, DB, f.read())
    p = subprocess.run([os.path.join(src, "tpcc_load")] + tpcc_args() + ["-w", "1"],
                       capture_output=True, text=True, timeout=240)
    ok = p.returncode == 0 and "DATA LOADING COMPLETED SUCCESSFULLY" in p.stdout
    if not check(ok, "tpcc_load -w 1 loads the data set"):
        print(p.stdout[-2000:], p.stderr[-2000:])
        sys.exit(1)


def run_gen(binary, *args):
    envp = dict(os.environ)
    envp["STAMPEDE_TEST_TPCC_DB"] = DB
    p = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=180, env=envp)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    ok = p.returncode == 0 and not SANITIZER_RX.search(p.stdout + p.stderr)
    check(ok, "test_tpcc_gen %s passes without a sanitizer report" % " ".join(str(a) for a in args))
    return ok


def log_on():
    sql("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1; "
        "TRUNCATE mysql.general_log")


def log_off():
    sql("SET GLOBAL general_log = 0")


def log_read():
    """{thread_id: [(command_type, argument)]} of the test user's sessions."""
    user = env("USER", "sbtest")
    rows = sql("SELECT thread_id, command_type, HEX(argument) FROM mysql.general_log")
    conns, mine = {}, set()
    for tid, cmd, hexarg in rows:
        arg = bytes.fromhex(hexarg).decode("utf-8", "replace")
        if cmd == "Connect" and arg.startswith(user + "@"):
            mine.add(tid)
        if tid in mine:
            conns.setdefault(tid, []).append((cmd, arg))
    return conns


def workers(conns):
    """The sessions that prepared statements: the generators' (or tpcc_start's)."""
    return [c for c in conns.values() if any(cmd == "Prepare" for cmd, _ in c)]


def segments(conn):
    """A session's Execute/Query statements cut after each COMMIT/ROLLBACK;
    a SET (autocommit) is a segment of its own."""
    segs, cur = [], []
    for cmd, arg in conn:
        if cmd not in ("Execute", "Query"):
            continue
        if cmd == "Query" and arg.upper().startswith("SET "):
            segs.append([(cmd, arg)])
            continue
        cur.append((cmd, arg))
        if cmd == "Query" and arg.strip().upper() in ("COMMIT", "ROLLBACK"):
            segs.append(cur)
            cur = []
    if cur:
        segs.append(cur)
    return segs


def norm(arg):
    arg = STRING_RX.sub("?", arg)
    return NUMBER_RX.sub("?", arg)


def txn_of(seg):
    for cmd, arg in seg:
        if cmd == "Execute":
            for name, prefix in TXN_FIRST:
                if arg.startswith(prefix):
                    return name
            return "?" + arg[:40]
    return None  # only queries (SET autocommit=0, ...)


def collapse(lines):
    """Runs of a repeated block of 1..4 lines become one block."""
    out = list(lines)
    changed = True
    while changed:
        changed = False
        for size in (1, 2, 3, 4):
            i = 0
            while i + 2 * size <= len(out):
                if out[i:i + size] == out[i + size:i + 2 * size]:
                    del out[i + size:i + 2 * size]
                    changed = True
                else:
                    i += 1
    return tuple(out)


# ---- retries keep their inputs --------------------------------------------

def check_retries(conn, what):
    segs = segments(conn)
    retried = 0
    for i, seg in enumerate(segs[:-1]):
        if not seg or seg[-1] != ("Query", "ROLLBACK"):
            continue
        execs = [a for c, a in seg if c == "Execute"]
        if execs and "FROM item WHERE i_id = 100001" in execs[-1]:
            continue  # New-Order's invalid item: rolled back on purpose
        nxt = [a for c, a in segs[i + 1] if c == "Execute"]
        a = [DATE_RX.sub("'<date>'", s) for s in execs]
        b = [DATE_RX.sub("'<date>'", s) for s in nxt[:len(execs)]]
        retried += 1
        if not check(len(execs) > 0 and a == b,
                     "%s: retry %d repeats the %d statements of the failed attempt with the "
                     "same parameters (failed at: %s)"
                     % (what, retried, len(execs), execs[-1][:90] if execs else "?")):
            for x, y in zip(a, b):
                if x != y:
                    print("#   failed:  %s\n#   retried: %s" % (x[:200], y[:200]))
    check(retried >= 1, "%s: the general log shows %d retried attempt(s)" % (what, retried))


def case_retry(binary):
    t0 = sql("SELECT @@GLOBAL.innodb_lock_wait_timeout")[0][0]
    try:
        sql("SET GLOBAL innodb_lock_wait_timeout = 1")
        log_on()
        run_gen(binary, "retry", 20, 2500, 12)
        log_off()
        ws = workers(log_read())
        if check(len(ws) == 1, "retry: one generator session in the general log"):
            check_retries(ws[0], "retry (max-retries 20, lock held 2.5 s)")
        run_gen(binary, "retry", 2, 3500, 6)
    finally:
        sql("SET GLOBAL general_log = 0; SET GLOBAL innodb_lock_wait_timeout = %s" % t0)


# ---- a lost connection ------------------------------------------------------

def case_reconnect(binary):
    """KILL the generator's session mid-run: it reconnects, sends
    SET autocommit=0 before anything else, and every event completes."""
    envp = dict(os.environ)
    envp["STAMPEDE_TEST_TPCC_DB"] = DB
    log_on()
    p = subprocess.Popen([binary, "shapes", "1500"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=envp)
    killed = None
    try:
        for _ in range(100):  # wait until it has prepared and run a little
            rows = sql("SELECT thread_id FROM mysql.general_log WHERE command_type = 'Execute' "
                       "LIMIT 1 OFFSET 200")
            if rows:
                killed = rows[0][0]
                sql("KILL CONNECTION %s" % killed)
                break
            if p.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"])
        out, _ = p.communicate(timeout=180)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    log_off()
    sys.stdout.write(out)
    check(p.returncode == 0 and not SANITIZER_RX.search(out),
          "test_tpcc_gen shapes 1500 passes with its session killed, no sanitizer report")
    if not check(killed is not None, "the generator's session was killed mid-run"):
        return
    ws = [c for c in workers(log_read())]
    check(len(ws) == 2, "reconnect: a second session prepared the statements (%d sessions)"
          % len(ws))
    for c in ws[1:]:
        first = [(cmd, a) for cmd, a in c if cmd in ("Execute", "Query")][:1]
        check(first == [("Query", "SET autocommit=0")],
              "reconnect: the new session's first statement is SET autocommit=0 (%s)"
              % (first[0][1][:60] if first else "none"))


# ---- statement shapes vs tpcc_start ----------------------------------------

def shapes(conns):
    """(prepared texts, {txn: set of statements}, {txn: set of sequences})."""
    prepared, stmts, seqs = [], {}, {}
    for conn in workers(conns):
        prepared.append(sorted(a for c, a in conn if c == "Prepare"))
        for seg in segments(conn):
            t = txn_of(seg)
            if t is None:
                stmts.setdefault("(no transaction)", set()).update(
                    c + " " + norm(a) for c, a in seg)
                continue
            lines = [c + " " + norm(a) for c, a in seg]
            stmts.setdefault(t, set()).update(lines)
            seqs.setdefault(t, set()).add(collapse(lines))
    return prepared, stmts, seqs


INT_RX = r"(-?\d+)"


def verify_results(conn):
    """The parameters stampede took from results, checked against the data
    (rows these statements read never change during a run): Payment by name
    pays the ceil(n/2)-th customer by c_first; Stock-Level queries each
    distinct item of the 20 orders; Delivery credits the order's customer;
    each district's committed New-Orders take consecutive o_ids."""
    byname = re.compile(r"SELECT c_id FROM customer WHERE c_w_id = %s AND c_d_id = %s AND "
                        r"c_last = '(\w+)' ORDER BY c_first" % (INT_RX, INT_RX))
    cust = re.compile(r"SELECT c_first, .* WHERE c_w_id = %s AND c_d_id = %s AND c_id = %s FOR "
                      r"UPDATE" % (INT_RX, INT_RX, INT_RX))
    items = re.compile(r"SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = %s AND "
                       r"ol_d_id = %s AND ol_o_id < %s AND ol_o_id >= \(%s - 20\)"
                       % (INT_RX, INT_RX, INT_RX, INT_RX))
    stock = re.compile(r"SELECT count\(\*\) FROM stock WHERE s_w_id = %s AND s_i_id = %s"
                       % (INT_RX, INT_RX))
    ocid = re.compile(r"SELECT o_c_id FROM orders WHERE o_id = %s AND o_d_id = %s AND o_w_id = %s"
                      % (INT_RX, INT_RX, INT_RX))
    credit = re.compile(r"UPDATE customer SET c_balance = c_balance \+ .* WHERE c_id = %s AND "
                        r"c_d_id = %s AND c_w_id = %s" % (INT_RX, INT_RX, INT_RX))
    neworder = re.compile(r"INSERT INTO orders \(.*\) VALUES\(%s, %s, %s," % (INT_RX, INT_RX,
                                                                                INT_RX))
    bad, n_byname, n_sl, n_dl = [], 0, 0, 0
    o_ids = {}
    for seg in segments(conn):
        ex = [a for c, a in seg if c == "Execute"]
        committed = seg[-1] == ("Query", "COMMIT")
        for i, a in enumerate(ex):
            m = byname.match(a)
            if m and i + 1 < len(ex) and cust.match(ex[i + 1]):
                w, d, last = m.groups()
                ids = [int(r[0]) for r in sql("SELECT c_id FROM customer WHERE c_w_id = %s AND "
                                              "c_d_id = %s AND c_last = '%s' ORDER BY c_first"
                                              % (w, d, last), DB)]
                paid = int(cust.match(ex[i + 1]).group(3))
                n_byname += 1
                if not ids or paid != ids[(len(ids) + 1) // 2 - 1]:
                    bad.append("by name %s: paid %d, customers by c_first %s" % (last, paid, ids))
            m = items.match(a)
            if m:
                w, d, n, _ = m.groups()
                want = sorted(int(r[0]) for r in sql(
                    "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = %s AND ol_d_id = %s "
                    "AND ol_o_id < %s AND ol_o_id >= (%s - 20)" % (w, d, n, n), DB))
                got = sorted(int(stock.match(x).group(2)) for x in ex[i + 1:] if stock.match(x))
                n_sl += 1
                if got != want:
                    bad.append("stock level w %s d %s: items %s, the data's %s"
                               % (w, d, got[:8], want[:8]))
            m = ocid.match(a)
            if m and committed:
                o, d, w = m.groups()
                c = [x for x in ex[i + 1:] if credit.match(x)]
                want = sql("SELECT o_c_id FROM orders WHERE o_id = %s AND o_d_id = %s AND "
                           "o_w_id = %s" % (o, d, w), DB)[0][0]
                n_dl += 1
                if not c or credit.match(c[0]).group(1) != want:
                    bad.append("delivery of order %s/%s/%s: customer %s, o_c_id %s"
                               % (w, d, o, credit.match(c[0]).group(1) if c else "-", want))
            m = neworder.match(a)
            if m and committed:
                o, d, w = (int(x) for x in m.groups())
                prev = o_ids.get((w, d))
                if prev is not None and o != prev + 1:
                    bad.append("new order %d in district %d/%d after %d" % (o, w, d, prev))
                o_ids[(w, d)] = o
    check(not bad and n_byname > 0 and n_sl > 0 and n_dl > 0,
          "results used right: %d by-name payments, %d stock levels, %d delivered districts, "
          "%d districts' New-Order ids" % (n_byname, n_sl, n_dl, len(o_ids)))
    for b in bad[:10]:
        print("#   " + b)


def case_shapes(binary, src):
    log_on()
    p = subprocess.run([os.path.join(src, "tpcc_start")] + tpcc_args() +
                       ["-w", "1", "-c", "1", "-r", "0", "-l", "3", "-i", "1"],
                       capture_output=True, text=True, timeout=90)
    log_off()
    if not check(p.returncode == 0 and "<TpmC>" in p.stdout, "tpcc_start runs 3 s"):
        print(p.stdout[-2000:], p.stderr[-2000:])
        return
    theirs = shapes(log_read())
    log_on()
    ok = run_gen(binary, "shapes", 920)
    log_off()
    if not ok:
        return
    conns = log_read()
    ours = shapes(conns)
    for c in workers(conns):
        verify_results(c)
    check(len(ours[0]) == 1 and ours[0] == theirs[0],
          "one session each, preparing the same %d statements"
          % (len(theirs[0][0]) if theirs[0] else 0))
    for x in sorted(set(sum(theirs[0], [])) ^ set(sum(ours[0], []))):
        print("#   %s prepares: %s" % ("tpcc_start" if x in sum(theirs[0], []) else "stampede",
                                       x))
    names = sorted(set(theirs[1]) | set(ours[1]))
    for t in names:
        a, b = theirs[1].get(t, set()), ours[1].get(t, set())
        rb = "Query ROLLBACK"
        if t == "new_order" and rb in b and rb not in a:
            print("# note: tpcc_start's 3 s drew no invalid item: its New-Order ROLLBACK is "
                  "not in its capture")
            a = a | {rb}
        check(a == b, "%s: the same %d statement shapes" % (t, len(a)))
        for x in sorted(a ^ b):
            print("#   only %s: %s" % ("tpcc_start" if x in a else "stampede", x[:200]))
    for t in sorted(set(theirs[2]) | set(ours[2])):
        a, b = theirs[2].get(t, set()), ours[2].get(t, set())
        if t == "new_order":
            only_ours = {s for s in b - a if s and s[-1] == "Query ROLLBACK"}
            if only_ours:
                print("# note: New-Order's rolled-back sequence only in stampede's capture")
            a = a | only_ours
        check(a == b, "%s: the same %d statement sequences (repeats collapsed)" % (t, len(a)))
        for s in sorted(a ^ b):
            print("#   only %s:\n#     %s" % ("tpcc_start" if s in a else "stampede",
                                            "\n#     ".join(x[:160] for x in s)))
    check("new_order" in ours[2] and any(s[-1] == "Query ROLLBACK" for s in ours[2]["new_order"]),
          "stampede's capture has New-Order's rollback")


def main():
    if len(sys.argv) < 2:
        print("usage: %s TEST_TPCC_GEN [TARBALL]" % sys.argv[0], file=sys.stderr)
        return 2
    if not env("SOCKET") or not env("PORT") or not env("PASSWORD"):
        skip("no sandbox server (STAMPEDE_TEST_MYSQL_* unset; tests/run sets them)")
    for tool in ("mariadb", "make", "cc", "mysql_config", "tar"):
        if shutil.which(tool) is None:
            skip("%s is not installed" % tool)
    if len(sys.argv) > 2:
        tarball = sys.argv[2]
        if not os.path.isfile(tarball):
            skip("no tpcc-mysql tarball at %s" % tarball)
    else:
        tarball = peer_source("tpcc-mysql-1ec1c5e.tar.gz")
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tpcc_gen.")
    try:
        src = build(tarball, tmp)
        load(src)
        run_gen(binary, "rows")
        run_gen(binary, "run", 1500)
        case_retry(binary)
        case_reconnect(binary)
        case_shapes(binary, src)
    finally:
        try:
            sql("SET GLOBAL general_log = 0; DROP DATABASE IF EXISTS %s" % DB)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
