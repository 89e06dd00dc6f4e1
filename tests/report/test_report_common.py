"""Helpers the report tests share: stampede report and one real run."""
import os
import subprocess

import e2elib as t


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
