#!/usr/bin/env python3
"""e2e: `kill -9` of the coordinator in the middle of a run with two remote
agents (stampede-agent daemons started by the test, no --once, plain text on
loopback).

Verified from the server only, by polling every 50 ms after the kill:
  - Com_stmt_execute stops increasing within 5 s (the agents stop issuing
    statements: the dead-man lease, docs/design.md §3.4);
  - the sbtest user's connections in information_schema.PROCESSLIST drop to
    0 within 5 s (their DB connections are closed);
and the agent daemons themselves keep running (they wait for the next
coordinator).
"""
import os
import signal
import time

import e2elib as e

BUDGET_S = 5.0
THREADS = 6


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    base_sessions = e.sbtest_sessions()
    e.check(base_sessions == 0, "no sbtest connections before the run: %d" % base_sessions)

    port = e.free_port()
    ep = "tcp://127.0.0.1:%d" % port
    co = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000",
                     "--threads=%d" % THREADS, "--time=60", "--report-interval=1", "--agents=2",
                     "--listen=" + ep, "--plaintext", "--agent-wait=20"] + e.db_opts(),
                    new_session=True)
    agents = [e.agent(["--coordinator=" + ep, "--plaintext", "--workers=1"], "remote-%d" % i)
              for i in (1, 2)]
    if not e.check(co.wait_line(r"^\[ 2s \]", which="out", timeout=40) is not None,
                   "the run with 2 remote agents reached its 2 s interval line"):
        co.dump()
        for a in agents:
            a.dump()
        e.finish()
    s0 = e.status("Com_stmt_execute")["Com_stmt_execute"]
    time.sleep(0.3)
    s1 = e.status("Com_stmt_execute")["Com_stmt_execute"]
    conns = e.sbtest_sessions()
    e.info("before the kill: %d sbtest connections, %d statements in 0.3 s" % (conns, s1 - s0))
    e.check(s1 > s0 and conns >= THREADS,
            "load is running: Com_stmt_execute +%d in 0.3 s, %d sbtest connections (>= %d)" %
            (s1 - s0, conns, THREADS))

    t_kill = time.monotonic()
    os.kill(co.pid, signal.SIGKILL)
    co.wait(10)

    last_val = e.status("Com_stmt_execute")["Com_stmt_execute"]
    t_last_change = t_kill
    t_zero = None
    samples = []
    while time.monotonic() - t_kill < 12:
        v = e.status("Com_stmt_execute")["Com_stmt_execute"]
        n = e.sbtest_sessions()
        now = time.monotonic()
        samples.append((now - t_kill, v - last_val, n))
        if v != last_val:
            t_last_change = now
            last_val = v
        if n == 0 and t_zero is None:
            t_zero = now
        if t_zero is not None and now - t_last_change > 2.0 and now - t_zero > 1.0:
            break
        time.sleep(0.05)
    stop_s = t_last_change - t_kill
    zero_s = (t_zero - t_kill) if t_zero is not None else None
    e.info("samples (s after kill, new statements, sbtest connections), every ~10th: %r" %
           [(round(t, 2), d, n) for t, d, n in samples[::10]])
    e.info("statements stopped %.2f s after kill -9 of the coordinator; connections at 0 after %s s"
           % (stop_s, "%.2f" % zero_s if zero_s is not None else "never (12 s)"))
    e.check(stop_s <= BUDGET_S and time.monotonic() - t_last_change > 2.0,
            "Com_stmt_execute stopped increasing %.2f s after the kill (budget %.0f s)" %
            (stop_s, BUDGET_S))
    e.check(zero_s is not None and zero_s <= BUDGET_S,
            "sbtest connections closed %s s after the kill (budget %.0f s)" %
            ("%.2f" % zero_s if zero_s is not None else "never", BUDGET_S))
    e.check(e.sbtest_sessions() == 0, "still no sbtest connection at the end")
    alive = [a.name for a in agents if a.alive()]
    e.check(len(alive) == 2, "both agent daemons still run, waiting for a coordinator: %r" % alive)
    for a in agents:
        lines = [l for l in a.text("err").splitlines() if "coordinator" in l]
        e.info("%s said: %r" % (a.name, lines[-3:]))
    e.finish()


main()
