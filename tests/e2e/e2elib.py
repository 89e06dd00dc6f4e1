"""Shared helpers of the e2e suite: real stampede and stampede-agent processes
against the sandbox MariaDB that tests/run starts (STAMPEDE_TEST_MYSQL_*).

Each test script is run as `python3 SCRIPT STAMPEDE STAMPEDE_AGENT` (meson
passes the built executables). Every check prints "ok - ..." or
"FAIL - ..." with the measured figures; the script exits 1 when one failed,
77 when there is no sandbox server.
"""
import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from peer_sources import peer_source  # noqa: F401 (the tests call e2elib.peer_source)

SKIP = 77

STAMPEDE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
AGENT = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None

_procs = []  # every Proc started, stopped at exit
_failures = []
_tmp = None

# Sanitizer builds (tests/run -Db_sanitize=...): a report in stampede or in
# an agent must fail the test even when the process's exit status is not
# checked (agents' statuses never are; TSan exits 66 only at the end, or on
# the report with halt_on_error=1, which an agent-loss test could take for
# the loss it provokes). finish() scans every process's output for these.
_SANITIZER_RX = re.compile(r"WARNING: ThreadSanitizer:|ERROR: (Address|Leak)Sanitizer:|"
                           r"\bruntime error: |ThreadSanitizer: reported \d+ warning")

# TSan sleeps 1 s in every exiting process (atexit_sleep_ms) to catch races
# with threads still running; the checks here time how fast processes exit
# after a signal, so without this they would time that sleep.
if "atexit_sleep_ms" not in os.environ.get("TSAN_OPTIONS", ""):
    os.environ["TSAN_OPTIONS"] = (os.environ.get("TSAN_OPTIONS", "") + " atexit_sleep_ms=0").strip()


def need_sandbox():
    """Exit 77 unless the sandbox server and the binaries are there."""
    if STAMPEDE is None or AGENT is None:
        print("usage: %s STAMPEDE STAMPEDE_AGENT" % sys.argv[0], file=sys.stderr)
        sys.exit(2)
    missing = [v for v in ("PORT", "SOCKET", "PASSWORD") if not os.environ.get("STAMPEDE_TEST_MYSQL_" + v)]
    if missing:
        print("SKIP: no sandbox server (STAMPEDE_TEST_MYSQL_* unset; tests/run sets them)")
        sys.exit(SKIP)
    if shutil.which("mariadb") is None:
        print("SKIP: the mariadb client is not installed")
        sys.exit(SKIP)


def env(name, default=None):
    return os.environ.get("STAMPEDE_TEST_MYSQL_" + name, default)


def tmpdir():
    """A private directory for this script's files; removed at exit unless a
    check failed (its path is printed then)."""
    global _tmp
    if _tmp is None:
        _tmp = tempfile.mkdtemp(prefix="stampede-e2e-")
    return _tmp


def path(name):
    return os.path.join(tmpdir(), name)


# ---------------------------------------------------------------- checks


def check(cond, what):
    """Record one assertion; what should carry the measured figures."""
    print(("ok - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        _failures.append(what)
    return bool(cond)


def info(msg):
    print("# " + msg, flush=True)


def sanitizer_reports():
    """(process name, report text) of each process whose stdout or stderr
    holds a sanitizer report (a TSan report in a local agent lands in its
    coordinator's stderr)."""
    found = []
    for p in _procs:
        for which in ("err", "out"):
            text = p.text(which)
            m = _SANITIZER_RX.search(text)
            if m:
                start = text.rfind("==================", 0, m.start())
                found.append((p.name, text[max(start, 0):][:20000]))
                break
    return found


def finish():
    """Stop what is left, check no process printed a sanitizer report, print
    the verdict, exit 0 or 1."""
    _stop_all()
    for name, report in sanitizer_reports():
        check(False, "%s printed a sanitizer report" % name)
        print("----- %s: sanitizer report -----\n%s\n-----" % (name, report))
    if _failures:
        print("\n%d check(s) failed:" % len(_failures))
        for f in _failures:
            print("  - " + f)
        if _tmp:
            print("files kept in " + _tmp)
        sys.exit(1)
    if _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)
    print("all checks passed")
    sys.exit(0)


# ---------------------------------------------------------------- server


def sql(query, timeout=30):
    """Rows (lists of strings) of query, as root over the sandbox socket."""
    out = subprocess.run(
        ["mariadb", "--no-defaults", "-uroot", "-S", env("SOCKET"), "-N", "-B", "-e", query],
        capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError("mariadb: %s: %s" % (query, out.stderr.strip()))
    return [line.split("\t") for line in out.stdout.splitlines()]


def status(*names):
    """SHOW GLOBAL STATUS values as ints."""
    rows = sql("SHOW GLOBAL STATUS WHERE Variable_name IN (%s)" % ",".join("'%s'" % n for n in names))
    return {r[0]: int(r[1]) for r in rows}


def sbtest_sessions():
    """Connections of the sbtest user (the agents') open on the server."""
    user = env("USER", "sbtest")
    return int(sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER='%s'" % user)[0][0])


def db_opts(port=None, db=None):
    return ["--mysql-host=" + env("HOST", "127.0.0.1"),
            "--mysql-port=%s" % (port or env("PORT")),
            "--mysql-user=" + env("USER", "sbtest"),
            "--mysql-db=" + (db or env("DB", "sbtest"))]


def db_env(password=None):
    e = dict(os.environ)
    e["MYSQL_PWD"] = env("PASSWORD") if password is None else password
    return e


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, timeout=10.0):
    """True once a TCP socket listens on port (read from /proc/net/tcp*, so
    the listener never sees a probe connection), False at the timeout."""
    want = ":%04X" % port
    deadline = time.monotonic() + timeout
    while True:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(table) as f:
                    for line in f:
                        fields = line.split()
                        if len(fields) > 3 and fields[3] == "0A" and fields[1].endswith(want):
                            return True
            except OSError:
                pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


# ---------------------------------------------------------------- processes


class Proc:
    """A started process whose stdout and stderr lines are collected with
    the monotonic time each arrived."""

    def __init__(self, argv, env=None, name=None, new_session=False):
        self.argv = argv
        self.name = name or os.path.basename(argv[0])
        self.lines = {"out": [], "err": []}
        self.cond = threading.Condition()
        self.t_start = time.monotonic()
        self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, start_new_session=new_session)
        self.pid = self.p.pid
        self.children = set()  # agent pids seen under this process
        self.readers = [threading.Thread(target=self._read, args=(self.p.stdout, "out"), daemon=True),
                        threading.Thread(target=self._read, args=(self.p.stderr, "err"), daemon=True)]
        for t in self.readers:
            t.start()
        _procs.append(self)

    def _read(self, f, which):
        for raw in iter(f.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.cond:
                self.lines[which].append((time.monotonic(), line))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def text(self, which="out"):
        with self.cond:
            return "\n".join(l for _, l in self.lines[which])

    def wait_line(self, pattern, which="err", timeout=30.0, after=0.0):
        """(time, line, match) of the first line matching pattern that came
        at or after `after`, or None at the timeout."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for t, line in self.lines[which]:
                    m = rx.search(line)
                    if t >= after and m:
                        return t, line, m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.05))

    def wait(self, timeout):
        """Exit status, or None when still running after timeout."""
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        for t in self.readers:
            t.join(5)
        return rc

    def alive(self):
        return self.p.poll() is None

    def agent_children(self):
        """Pids of stampede-agent processes that are children of this one."""
        out = subprocess.run(["pgrep", "-P", str(self.pid), "-x", "stampede-agent"],
                             capture_output=True, text=True)
        pids = [int(x) for x in out.stdout.split()]
        self.children.update(pids)
        return pids

    def agent_config_dirs(self):
        """The private directories (--config=DIR/NAME.conf) of the agent
        children seen so far."""
        dirs = set()
        for pid in self.children:
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    args = f.read().decode("utf-8", "replace").split("\0")
            except OSError:
                continue
            for a in args:
                if a.startswith("--config="):
                    dirs.add(os.path.dirname(a[len("--config="):]))
        return sorted(dirs)

    def stop(self):
        """SIGKILL this process (by pid) and the agent children it had."""
        if self.alive():
            self.agent_children()
            try:
                self.p.kill()
            except ProcessLookupError:
                pass
            self.wait(10)
        for pid in self.children:
            if pid_alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def dump(self, label=None):
        print("----- %s stdout -----\n%s\n----- %s stderr -----\n%s\n-----" %
              (label or self.name, self.text("out"), label or self.name, self.text("err")))


def pid_alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _stop_all():
    for p in _procs:
        p.stop()


atexit.register(_stop_all)
# meson's timeout sends SIGTERM: exit through atexit so no process is left.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def stampede(args, password=None, **kw):
    """Start the coordinator with args (the DB password in MYSQL_PWD)."""
    return Proc([STAMPEDE] + args, env=db_env(password), name="stampede", **kw)


def local_opts():
    """Options every local-agent run takes: the agent built with this tree."""
    return ["--agent-bin=" + AGENT]


def agent(args, name):
    """Start a remote stampede-agent (own session, so a signal to the test's
    group does not reach it)."""
    return Proc([AGENT] + args + ["--name=" + name], env=dict(os.environ), name=name,
                new_session=True)


def run_ok(args, what, timeout=120, password=None):
    """Run the coordinator to completion; check exit 0; the Proc."""
    p = stampede(args, password=password)
    rc = p.wait(timeout)
    if not check(rc == 0, "%s: exit status %s (want 0)" % (what, rc)):
        p.dump()
    return p


def prepare(tables=2, table_size=10000):
    """Fresh sbtest tables: cleanup (tables may be absent), then prepare."""
    common = ["oltp_read_write", "--tables=%d" % tables, "--table-size=%d" % table_size,
              "--agents=1"] + local_opts() + db_opts()
    p = stampede(common[:1] + ["cleanup"] + common[1:])
    p.wait(60)
    t = time.monotonic()
    p = run_ok(common[:1] + ["prepare"] + common[1:], "prepare %d x %d rows" % (tables, table_size))
    info("prepare took %.2f s" % (time.monotonic() - t))
    if p.p.returncode != 0:
        finish()
    n = int(sql("SELECT COUNT(*) FROM %s.sbtest1" % env("DB", "sbtest"))[0][0])
    check(n == table_size, "sbtest1 holds %d rows after prepare (want %d)" % (n, table_size))


def load_json(p):
    with open(p) as f:
        return json.load(f)


# The server counters a run's statements show in (e2e_correctness,
# container_podman): every statement is one COM_STMT_EXECUTE and one of these.
SERVER_COUNTERS = ("Com_stmt_execute", "Com_select", "Com_insert", "Com_update", "Com_delete",
                   "Com_begin", "Com_commit")


def check_server(d, delta):
    """Every statement the agents sent is one COM_STMT_EXECUTE on the server:
    those counted as read/write/other and those that failed with an ignored
    error (deadlock, lock wait timeout: sysbench counts them apart, not in
    r/w/o). No reconnects here, so nothing was lost on the way. The test
    measures the server counters itself (before and after the stampede
    process) and compares them with the coordinator's window."""
    srv = d["server"]
    tot = d["totals"]
    stmts = tot["queries"]["total"]
    sent = stmts + tot["ignored_errors"]
    measured = delta["Com_stmt_execute"]
    info("server Com_stmt_execute delta over the whole stampede process (test-measured): %d; "
           "client statements %d + ignored errors %d = %d; JSON server %r" %
           (measured, stmts, tot["ignored_errors"], sent,
            {k: srv[k] for k in ("checked", "client_statements", "match", "diff")}))
    check(tot["reconnects"] == 0 and measured == sent,
            "test-measured Com_stmt_execute delta %d == client statements %d + ignored errors %d" %
            (measured, stmts, tot["ignored_errors"]))
    kinds = sum(delta[k] for k in SERVER_COUNTERS[1:])
    check(kinds == sent, "test-measured Com_select+insert+update+delete+begin+commit %d == %d "
            "statements sent" % (kinds, sent))
    co = {k: srv["counters"].get(k, {}).get("delta") for k in SERVER_COUNTERS}
    check(co == delta,
            "JSON server counter deltas == the test-measured ones (the coordinator's server window "
            "covers the whole run: baseline at READY, last sample after the last statement): "
            "JSON %r, test %r" % (co, delta))
    check(srv["checked"] and srv["client_statements"] == sent,
            "JSON server.checked %r, client_statements %r == %d" %
            (srv["checked"], srv["client_statements"], sent))
    check(srv["match"] is True and srv["diff"] == 0,
            "JSON server.match %r (diff %r, with %d ignored errors in this run): the coordinator's "
            "own cross-check of client statements vs the server's Com_* deltas" %
            (srv["match"], srv["diff"], tot["ignored_errors"]))
