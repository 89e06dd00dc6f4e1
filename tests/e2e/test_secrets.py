#!/usr/bin/env python3
"""e2e: secrets stay where the README says (issue 9 items 2, 3 and 8).

  - a real local run (2 agents) with MYSQL_PWD set to the sandbox's real
    password, plus a decoy secret in another variable: while the agents
    run, every agent's /proc/PID/environ and /proc/PID/cmdline is read and
    neither holds the password or the decoy (the password reaches agents
    only inside the PLAN, over CURVE); the environ read is shown to work
    (it holds PATH), and the run itself succeeds;
  - --mysql-ignore-errors=1213,all, which the coordinator accepts, is
    accepted by the agents too (one parser in proto/): the run succeeds.
"""
import os
import re

import e2elib as e

DECOY_NAME = "STAMPEDE_E2E_API_TOKEN"
DECOY = "decoy-secret-3f9c1e77a2"


def read_proc(pid, what):
    try:
        with open("/proc/%d/%s" % (pid, what), "rb") as f:
            return f.read()
    except OSError:
        return None


def environ_and_cmdline():
    password = e.env("PASSWORD")
    e.check(password and len(password) >= 12,
            "the sandbox password is long enough to be recognised (%d characters)" %
            len(password or ""))
    env = e.db_env()
    env[DECOY_NAME] = DECOY
    p = e.Proc([e.STAMPEDE, "oltp_read_write", "run", "--tables=2", "--table-size=2000",
                "--threads=2", "--time=4", "--report-interval=1", "--agents=2"] +
               e.local_opts() + e.db_opts(), env=env, name="stampede")
    if not e.check(p.wait_line(r"^\[ 1s \]", which="out", timeout=30) is not None,
                   "environ: the run reached its 1 s interval line"):
        p.dump()
        return
    pids = p.agent_children()
    e.check(len(pids) == 2, "environ: 2 local agents running: %r" % pids)
    secret = password.encode()
    for pid in pids:
        environ, cmdline = read_proc(pid, "environ"), read_proc(pid, "cmdline")
        if not e.check(environ is not None and cmdline is not None,
                       "agent %d: /proc environ (%s bytes) and cmdline (%s bytes) read" %
                       (pid, environ and len(environ), cmdline and len(cmdline))):
            continue
        names = sorted(x.split(b"=", 1)[0].decode() for x in environ.split(b"\0") if x)
        e.info("agent %d environment: %s" % (pid, " ".join(names)))
        e.check(b"PATH=" in environ, "agent %d: its environment was read (PATH is there)" % pid)
        e.check(secret not in environ,
                "agent %d: the password is not in /proc/%d/environ" % (pid, pid))
        e.check(b"MYSQL_PWD" not in environ, "agent %d: no MYSQL_PWD variable at all" % pid)
        e.check(DECOY.encode() not in environ,
                "agent %d: another secret variable (%s) is not inherited" % (pid, DECOY_NAME))
        e.check(secret not in cmdline, "agent %d: the password is not in its cmdline %r" %
                (pid, cmdline.replace(b"\0", b" ")[:200]))
    rc = p.wait(60)
    e.check(rc == 0, "environ: the run with cleaned agent environments succeeded (exit %s)" % rc)
    if rc != 0:
        p.dump()


def ignore_errors_all():
    p = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=2000", "--threads=2",
                    "--time=2", "--agents=1", "--mysql-ignore-errors=1213,all"] +
                   e.local_opts() + e.db_opts())
    rc = p.wait(60)
    out = p.text("out")
    m = re.search(r"^\s+transactions:\s+(\d+)\s", out, re.M)
    e.check(rc == 0 and m and int(m.group(1)) > 0,
            "--mysql-ignore-errors=1213,all: exit %s, %s transactions (the agent took the PLAN)" %
            (rc, m and m.group(1)))
    if rc != 0:
        p.dump()


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=2000)
    environ_and_cmdline()
    ignore_errors_all()
    e.finish()


main()
