#!/usr/bin/env python3
"""e2e: no one-run key directory (/tmp/stampede-XXXXXX, the local agents'
secret keys) outlives its coordinator (issue 27 §1).

  - a coordinator that crashes mid-run (SIGSEGV sent to it, as a real crash
    would raise) removes its directory and its agents end;
  - SIGHUP (the terminal closed) does the same;
  - a coordinator killed with SIGKILL cannot: its directory stays, and the
    next run removes it (no live process holds its lock), while the
    directory of a run still going is left alone.
"""
import glob
import os
import signal
import time

import e2elib as e


def key_dirs():
    return set(glob.glob("/tmp/stampede-??????"))


def start_run(seconds=30):
    before = key_dirs()
    co = e.stampede(["oltp_point_select", "run", "--tables=1", "--table-size=1000",
                     "--threads=2", "--agents=2", "--time=%d" % seconds,
                     "--report-interval=1"] + e.db_opts())
    if co.wait_line(r"^\[ 1s \]", which="out", timeout=30) is None:
        co.dump()
    agents = co.agent_children()
    dirs = set(co.agent_config_dirs()) or (key_dirs() - before)
    return co, dirs, agents


def gone_within(paths, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(os.path.exists(p) for p in paths):
            return True
        time.sleep(0.05)
    return False


def agents_end(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(e.pid_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def killed_by(sig):
    co, dirs, agents = start_run()
    e.check(len(dirs) == 1 and len(agents) == 2,
            "%s: the run has its key directory %s and 2 agents %s"
            % (sig.name, sorted(dirs), agents))
    os.kill(co.pid, sig)
    rc = co.wait(20)
    e.check(rc is not None and rc != 0, "%s: the coordinator ended (status %s)" % (sig.name, rc))
    e.check(bool(dirs) and gone_within(dirs, 2.0),
            "%s: its key directory is removed: %s" % (sig.name, sorted(dirs)))
    e.check(agents_end(agents, 5.0), "%s: its agents ended" % sig.name)


def stale_after_kill():
    co, dirs, agents = start_run()
    os.kill(co.pid, signal.SIGKILL)
    co.wait(20)
    agents_end(agents, 5.0)
    e.check(len(dirs) == 1 and all(os.path.isdir(d) for d in dirs),
            "SIGKILL: the key directory stays behind at first: %s" % sorted(dirs))
    live, live_dirs, _ = start_run(seconds=8)  # the next run
    e.check(gone_within(dirs, 2.0), "the next run removed the stale directory %s" % sorted(dirs))
    e.check(len(live_dirs) == 1 and all(os.path.isdir(d) for d in live_dirs),
            "the next run's own directory is there: %s" % sorted(live_dirs))
    third, third_dirs, _ = start_run(seconds=2)  # a run beside a live one
    e.check(all(os.path.isdir(d) for d in live_dirs),
            "a run beside a live one leaves the live one's directory alone")
    e.check(third.wait(30) == 0 and live.wait(30) == 0, "both later runs exit 0")
    e.check(not any(os.path.exists(d) for d in live_dirs | third_dirs),
            "their directories are removed when they end")


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    killed_by(signal.SIGSEGV)
    killed_by(signal.SIGHUP)
    stale_after_kill()
    e.finish()


main()
