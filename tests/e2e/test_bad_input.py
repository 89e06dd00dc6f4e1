#!/usr/bin/env python3
"""e2e: bad input gives a precise message, the right exit code and no load.

  - usage errors (bad values, unknown options, unknown workload or command,
    plain text off loopback or without --listen): exit 2 at once, the message names the
    culprit, nothing run;
  - unreachable DB port (2 local agents): exit 1, each agent's "connect ...
    Can't connect" reason, "no load was started", no interval line, JSON
    with exit.status 1 and zero totals;
  - wrong password: exit 1, each agent's "Access denied" reason, and on the
    server: the failed logins are seen (Aborted_connects) but not one
    statement is prepared or executed (Com_stmt_prepare / Com_stmt_execute
    deltas 0) and no sbtest connection is left;
  - a precompiled (LuaJIT bytecode) script, or a module it requires: exit 2,
    "script error" naming the file, no crash (LuaJIT runs bytecode
    unverified: text chunks only, read by their real length).
"""
import os
import re
import tempfile
import time

import e2elib as e

USAGE = [
    (["oltp_read_write", "run", "--threads=abc"], r"--threads.*'abc'"),
    (["oltp_read_write", "run", "--no-such-option=1"], r"unknown option --no-such-option"),
    # bulk_insert is no exception (sysbench's legacy mode would take both).
    (["bulk_insert", "--thread=64", "run"], r"unknown option --thread\b.*did you mean --threads"),
    (["bulk_insert", "run", "--mysql-pasword=x"],
     r"unknown option --mysql-pasword\b.*did you mean --mysql-password"),
    (["oltp_read_write", "run", "--on-agent-loss=maybe"], r"--on-agent-loss.*'maybe'"),
    (["oltp_read_write", "run", "--agents=0"], r"--agents.*'0'"),
    (["oltp_read_write", "run", "--time=-1"], r"--time.*-1"),
    (["oltp_read_write", "run", "--partition=diagonal"], r"--partition.*diagonal"),
    (["oltp_read_write", "run", "--report-format=xml"], r"--report-format.*'xml'.*sysbench"),
    (["oltp_read_write", "run", "--rate=10", "--rate-mode=gaussian"],
     r"--rate-mode: 'gaussian' is not poisson or uniform"),
    (["oltp_read_write", "run", "--json"], r"--json"),
    (["oltp_read_write", "run", "--listen=tcp://10.1.2.3:5555", "--plaintext"],
     r"--plaintext.*loopback"),
    (["oltp_read_write", "run", "--listen=tcp://localhost:5555", "--plaintext"],
     r"--plaintext.*literal loopback"),
    (["oltp_read_write", "run", "--plaintext"], r"--plaintext applies only with --listen"),
    (["no_such_workload", "run"], r"unknown workload 'no_such_workload'"),
    (["oltp_read_write", "frobnicate"], r"unknown command 'frobnicate'"),
    (["oltp_read_write"], r"command"),
]

WATCH = ("Com_stmt_execute", "Com_stmt_prepare", "Aborted_connects")


def usage_errors():
    for args, rx in USAGE:
        t = time.monotonic()
        p = e.stampede(args + e.local_opts() + e.db_opts() + ["--time=1"])
        rc = p.wait(20)
        dt = time.monotonic() - t
        err = p.text("err")
        first = err.splitlines()[0] if err else ""
        ok = rc == 2 and re.search(rx, err) and "Threads started!" not in p.text("out")
        e.check(ok, "%s: exit %s in %.2f s, stderr %r" % (" ".join(args), rc, dt, first))


def setup_failure(what, port, password, reason_rx):
    j = e.path(what + ".json")
    before = e.status(*WATCH)
    t = time.monotonic()
    p = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=4",
                    "--time=5", "--report-interval=1", "--agents=2", "--json=" + j] +
                   e.local_opts() + e.db_opts(port=port), password=password)
    rc = p.wait(60)
    dt = time.monotonic() - t
    after = e.status(*WATCH)
    delta = {k: after[k] - before[k] for k in WATCH}
    err, out = p.text("err"), p.text("out")
    e.info("%s: exit %s after %.2f s; server deltas %r" % (what, rc, dt, delta))
    e.check(rc == 1, "%s: exit status %s (want 1)" % (what, rc))
    for name in ("local-1", "local-2"):
        m = re.search(r"^stampede: agent %s \(.*\) \S+: (.*)$" % name, err, re.M)
        if not e.check(m and re.search(reason_rx, m.group(1)),
                       "%s: %s's reason is given: %r" % (what, name, m and m.group(1)[:160])):
            p.dump(what)
    e.check("no load was started" in err, "%s: stderr says no load was started" % what)
    e.check(not re.search(r"^\[ \d+s \]", out, re.M) and "Threads started!" not in out and
            "SQL statistics:" not in out, "%s: no interval line, no report of a run" % what)
    e.check(dt < 10, "%s: failed fast (%.2f s, --time=5)" % (what, dt))
    if os.path.exists(j):
        d = e.load_json(j)
        e.check(d["exit"]["status"] == 1 and "no load was started" in d["exit"]["reason"] and
                d["totals"]["transactions"] == 0 and d["totals"]["queries"]["total"] == 0,
                "%s: JSON exit %r, totals %d transactions" %
                (what, d["exit"], d["totals"]["transactions"]))
    else:
        e.check(False, "%s: JSON written" % what)
    e.check(delta["Com_stmt_execute"] == 0 and delta["Com_stmt_prepare"] == 0,
            "%s: the sandbox server executed no statement: %r" % (what, delta))
    return delta


# The head of a LuaJIT 2.1 bytecode dump (ESC "LJ", version 2, flags) and
# a function prototype's first bytes: what string.dump writes, NULs included.
BYTECODE = b"\x1bLJ\x02\x0a\x14\x00\x00\x01\x00\x02\x00\x03\x29\x00\x2a\x00\x4c\x00\x02\x00\x00"


def bytecode_scripts():
    d = tempfile.mkdtemp(prefix="stampede-bytecode-")
    with open(os.path.join(d, "bin.lua"), "wb") as f:
        f.write(BYTECODE)
    with open(os.path.join(d, "binmod.lua"), "wb") as f:
        f.write(BYTECODE)
    with open(os.path.join(d, "usemod.lua"), "w") as f:
        f.write('require("binmod")\nfunction event() end\n')
    for script, name in (("bin.lua", "bin.lua"), ("usemod.lua", "binmod.lua")):
        p = e.stampede([os.path.join(d, script), "help"])
        rc = p.wait(20)
        err = p.text("err")
        ok = rc == 2 and "script error" in err and name in err and "precompiled" in err
        e.check(ok, "bytecode %s: exit %s, stderr %r" % (script, rc, err.strip()[:300]))


def main():
    bytecode_scripts()
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    usage_errors()
    setup_failure("unreachable", e.free_port(), None, r"connect .*Can't connect")
    d = setup_failure("wrong-password", None, "not-the-password", r"Access denied for user 'sbtest'")
    e.check(d["Aborted_connects"] >= 2,
            "wrong-password: the server saw the agents' failed logins (Aborted_connects +%d)" %
            d["Aborted_connects"])
    e.check(e.sbtest_sessions() == 0, "no sbtest connection left on the server")
    e.finish()


main()
