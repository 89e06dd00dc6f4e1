"""Helpers the report tests share: stampede report and one real run."""
import os
import subprocess
import sys

import cdp
import e2elib as t

CHARTJS = "/usr/share/javascript/chart.js/chart.min.js"


def setup():
    """Exits 77 without the sandbox server, chromium or libjs-chart.js;
    prepares the two tables run() takes; chromium's path."""
    t.need_sandbox()
    exe = cdp.find_chromium()
    if exe is None or not os.path.exists(CHARTJS):
        print("SKIP: chromium or libjs-chart.js not installed (deploy/install-deps)")
        sys.exit(t.SKIP)
    t.prepare(tables=2, table_size=2000)
    return exe


def report(args, what, want_rc=0):
    """stampede report ARGS; checks its exit status; the CompletedProcess."""
    p = subprocess.run([t.STAMPEDE, "report"] + args, capture_output=True, text=True, timeout=60)
    t.check(p.returncode == want_rc, "%s: exit %d (want %d); stderr: %s"
            % (what, p.returncode, want_rc, p.stderr.strip()[:300]))
    return p


def run(json_path, threads=2, seconds=3, agents=2):
    """A real oltp_read_write run writing json_path."""
    args = (["oltp_read_write", "--tables=2", "--table-size=2000", "--agents=%d" % agents,
             "--threads=%s" % threads, "--time=%d" % seconds, "--report-interval=1",
             "--json=" + json_path] + t.local_opts() + t.db_opts() + ["run"])
    return t.run_ok(args, "run %s" % os.path.basename(json_path), timeout=180)
