#!/usr/bin/env python3
"""e2e: no one-run key directory (/tmp/stampede-XXXXXX, the local agents'
secret keys) outlives its coordinator (issue 27 §1).

  - a coordinator that crashes mid-run (SIGABRT sent to it, as an abort()
    would raise) removes its directory and its agents end;
  - SIGHUP (the terminal closed) does the same;
  - a coordinator killed with SIGKILL cannot: its directory stays, and the
    next run removes it (no live process holds its lock), while the
    directory of a run still going is left alone;
  - SIGTERM while 64 local agents are being made (issue 27 §3): the
    coordinator exits within 1 s (3 s under TSan, which slows every
    step), leaves no agent process and no key directory, and prints no
    "handshake ... failed" warning; --agents beyond cores x 32 is refused,
    pointing to --listen.
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


def agents_of(d):
    """Pids of processes whose command line names directory d."""
    pids = []
    for cmd in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(cmd, "rb") as f:
                if d.encode() in f.read():
                    pids.append(int(cmd.split("/")[2]))
        except OSError:
            pass
    return pids


def spawn_sigterm(delay_s):
    before = key_dirs()
    n = min(64, (os.cpu_count() or 1) * 32)  # the local bound on a 1-core machine is 32
    co = e.stampede(["oltp_point_select", "run", "--agents=%d" % n, "--threads=%d" % n,
                     "--time=5"] + e.db_opts())
    d, t0 = None, time.monotonic()
    while d is None and time.monotonic() - t0 < 20:
        new = key_dirs() - before
        for x in new:
            try:
                if len(os.listdir(x)) > 10:  # keys being written
                    d = x
            except OSError:
                pass
        time.sleep(0.005)
    time.sleep(delay_s)
    ts = time.monotonic()
    os.kill(co.pid, signal.SIGTERM)
    rc = co.wait(30)
    dt = time.monotonic() - ts
    with open(e.STAMPEDE, "rb") as f:
        tsan = b"__tsan_init" in f.read()
    bound = 3.0 if tsan else 1.0
    what = "SIGTERM %.1f s into making %d local agents" % (delay_s, n)
    e.info("%s: exit %s after %.3f s" % (what, rc, dt))
    e.check(d is not None, "%s: the key directory was seen filling" % what)
    e.check(rc is not None and dt <= bound, "%s: exits within %.0f s (%.3f s)" % (what, bound, dt))
    time.sleep(0.3)
    e.check(d is not None and not os.path.exists(d) and not agents_of(d),
            "%s: no key directory and no agent process left (%s)" % (what, d and agents_of(d)))
    e.check("handshake" not in co.text("err"),
            "%s: no handshake warning: %r" % (what, co.text("err")[-300:]))


def too_many():
    cores = os.cpu_count() or 1
    p = e.stampede(["oltp_point_select", "run", "--agents=%d" % (cores * 32 + 1)] + e.db_opts())
    rc = p.wait(20)
    err = p.text("err")
    e.check(rc == 2 and "at most %d local agents" % (cores * 32) in err and "--listen" in err,
            "--agents=%d refused, pointing to --listen: exit %s, %r"
            % (cores * 32 + 1, rc, err.strip()[-200:]))


def main():
    too_many()
    spawn_sigterm(0.0)
    spawn_sigterm(0.3)
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    killed_by(signal.SIGABRT)  # a crash (SIGSEGV would be reported by ASan as its own)
    killed_by(signal.SIGHUP)
    stale_after_kill()
    e.finish()


main()
