#!/usr/bin/env python3
"""e2e: what a successful run writes to stdout and stderr, per mode.

  - --report-format=sysbench (strict): stdout is exactly sysbench 1.0.20's
    grammar from its first line, "sysbench 1.0.20 (using stampede
    VERSION)", to the end of "Threads fairness" (one regular expression for
    the whole text, interval lines included, markers excluded); the
    stampede section is not on stdout but in the JSON (agents, server);
  - a successful run with --json, --csv and --hdr-log writes nothing to
    stderr at the default --verbosity (PerfKitBenchmarker treats any stderr
    as a failure), strict or not;
  - with --verbosity=4 the three "written to" lines appear on stderr;
  - the default report (--report-format=stampede) is unchanged: stampede's
    first line and the "Agents:" section after "Threads fairness";
  - the interval lines add up to the totals in strict mode too (issue 30
    §4): with one of two agents stopped (SIGSTOP) for 1.5 s mid-run, the
    lines wait for it, and their transactions plus the tail's (the JSON's
    unprinted intervals, events in flight at --time) are the summary's
    transactions, with an empty stderr; with --grace-ms=300 the line that
    cannot wait goes out without the agent and stderr says so. Before, a
    line waited half an interval and went out short without a word.
"""
import os
import re
import signal
import subprocess
import time

import e2elib as e

F = r"[0-9]+(?:\.[0-9]+)?"
INTERVAL = (r"\[ \d+s \] thds: \d+ tps: {f} qps: {f} \(r/w/o: {f}/{f}/{f}\) lat \(ms,\d+%\): {f} "
            r"err/s: {f} reconn/s: {f}\n").format(f=F)


def strict_grammar(version):
    """sysbench 1.0.20's run output (docs/design.md §13.1, Output), whole."""
    return re.compile(
        r"sysbench 1\.0\.20 \(using stampede " + re.escape(version) + r"\)\n\n"
        r"Running the test with following options:\n"
        r"Number of threads: \d+\n"
        r"(?:Target transaction rate: \d+/sec\n)?"
        r"(?:Report intermediate results every \d+ second\(s\)\n)?"
        r"Initializing random number generator from (?:current time|seed \(\d+\)\.)\n\n\n"
        r"Initializing worker threads\.\.\.\n\n"
        r"Threads started!\n\n"
        r"(?:" + INTERVAL + r")*"
        r"SQL statistics:\n"
        r"    queries performed:\n"
        r"        read: +\d+\n"
        r"        write: +\d+\n"
        r"        other: +\d+\n"
        r"        total: +\d+\n"
        r"    transactions: +\d+ +\({f} per sec\.\)\n"
        r"    queries: +\d+ +\({f} per sec\.\)\n"
        r"    ignored errors: +\d+ +\({f} per sec\.\)\n"
        r"    reconnects: +\d+ +\({f} per sec\.\)\n\n"
        r"General statistics:\n"
        r"    total time: +{f}s\n"
        r"    total number of events: +\d+\n\n"
        r"Latency \(ms\):\n"
        r"         min: +{f}\n"
        r"         avg: +{f}\n"
        r"         max: +{f}\n"
        r"        +\d+th percentile: +{f}\n"
        r"         sum: +{f}\n\n"
        r"Threads fairness:\n"
        r"    events \(avg/stddev\): +{f}/{f}\n"
        r"    execution time \(avg/stddev\): +{f}/{f}\n\n".format(f=F))


def run(tag, extra, time_s=3):
    files = {k: e.path("%s.%s" % (tag, k)) for k in ("json", "csv", "hlog")}
    p = e.run_ok(["oltp_read_only", "run", "--tables=2", "--table-size=10000", "--threads=4",
                  "--time=%d" % time_s, "--report-interval=1", "--agents=2",
                  "--json=" + files["json"], "--csv=" + files["csv"],
                  "--hdr-log=" + files["hlog"]] + extra + e.local_opts() + e.db_opts(),
                 "%s run (%s)" % (tag, " ".join(extra) or "defaults"), timeout=time_s + 60)
    return p, files


def held(tag, extra):
    """A strict run of 2 agents, one stopped for 1.5 s after the 1 s line:
    (sum of the lines' transactions, the tail's, the total, stderr)."""
    j = e.path("%s.json" % tag)
    p = e.stampede(["oltp_point_select", "run", "--tables=2", "--table-size=10000",
                    "--threads=2", "--time=5", "--report-interval=1", "--agents=2",
                    "--report-format=sysbench", "--json=" + j] + extra + e.local_opts() +
                   e.db_opts())
    if p.wait_line(r"^\[ 1s \]", which="out", timeout=60) is None:
        p.dump(tag)
        return None
    pids = p.agent_children()
    os.kill(pids[-1], signal.SIGSTOP)
    time.sleep(1.5)
    os.kill(pids[-1], signal.SIGCONT)
    rc = p.wait(60)
    if not e.check(rc == 0, "%s: exit %s" % (tag, rc)):
        p.dump(tag)
        return None
    lines = re.findall(r"^\[ *\d+s \] thds: \d+ tps: ([0-9.]+) ", p.text("out"), re.M)
    total = re.search(r"^    transactions: +(\d+) ", p.text("out"), re.M)
    d = e.load_json(j)
    tail = sum(round(iv["tps"] * iv["len_s"]) for iv in d["intervals"] if not iv.get("printed"))
    return (round(sum(float(x) for x in lines)), tail, int(total.group(1)) if total else -1,
            p.text("err"))


def main():
    e.need_sandbox()
    out = subprocess.run([e.STAMPEDE, "--version"], capture_output=True, text=True).stdout
    m = re.match(r"stampede (\S+) ", out)
    if not e.check(m is not None, "stampede --version names a version: %r" % out):
        e.finish()
    version = m.group(1)
    e.prepare(tables=2, table_size=10000)

    p, files = run("strict", ["--report-format=sysbench"])
    text = p.text("out") + "\n"  # Proc.text() drops the last line end
    g = strict_grammar(version).fullmatch(text)
    e.check(g is not None, "strict stdout (%d lines) is sysbench 1.0.20's grammar from its first "
            "line to the end of Threads fairness" % text.count("\n"))
    if g is None:
        p.dump("strict")
    lines = text.rstrip("\n").splitlines()
    e.check(lines[0] == "sysbench 1.0.20 (using stampede %s)" % version,
            "strict first line %r" % lines[0])
    e.check(lines[-1].startswith("    execution time (avg/stddev):"),
            "strict stdout ends with the Threads fairness block: last line %r" % lines[-1])
    e.check(len(re.findall(r"^\[ \d+s \] thds: ", text, re.M)) >= 2,
            "strict stdout has its interval lines")
    e.check("Agents:" not in text and "Server cross-check" not in text,
            "the stampede section is not on strict stdout")
    d = e.load_json(files["json"])
    e.check(len(d["agents"]) == 2 and all("saturated" in a for a in d["agents"]) and
            "server" in d and "match" in d["server"],
            "the stampede section is in the JSON: %d agents, server %r" %
            (len(d["agents"]), {k: d["server"].get(k) for k in ("checked", "match")}))
    e.check(p.text("err") == "", "strict successful run: empty stderr (%r)" % p.text("err")[:300])

    p, files = run("verbose", ["--verbosity=4"], time_s=2)
    err = p.text("err")
    want = ["stampede: JSON results written to " + files["json"],
            "stampede: CSV intervals written to " + files["csv"],
            "stampede: HdrHistogram log written to " + files["hlog"]]
    e.check(err.splitlines() == want, "--verbosity=4: stderr is the three 'written to' lines: %r"
            % err[:500])

    p, files = run("default", [], time_s=2)
    text = p.text("out")
    e.check(text.startswith("stampede %s (sysbench 1.0.20 compatible)\n" % version),
            "default first line %r" % text.splitlines()[0])
    e.check(re.search(r"^Threads fairness:\n.*\n.*\n\n(Latency by statement \(ms\):\n(.+\n)+\n)?"
                      r"Agents:\n", text, re.M) is not None,
            "default report keeps the Agents section after Threads fairness")
    e.check(p.text("err") == "", "default successful run: empty stderr (%r)" % p.text("err")[:300])

    got = held("held", [])
    if got is not None:
        s, tail, total, err = got
        e.check(s + tail == total, "strict, an agent stopped for 1.5 s: the lines' %d transactions "
                "+ the tail's %d == the summary's %d" % (s, tail, total))
        e.check(err == "", "strict, held lines: empty stderr (%r)" % err[:300])
    got = held("short", ["--grace-ms=300"])
    if got is not None:
        s, tail, total, err = got
        e.check(s + tail < total, "strict, --grace-ms=300: a line went out short (lines %d + tail "
                "%d < %d)" % (s, tail, total))
        e.check(re.search(r"^stampede: the \[ \d+s \] line went out without 1 of 2 agents' "
                          r"figures \(not heard 300 ms after its boundary", err, re.M) is not None,
                "strict, --grace-ms=300: stderr says which line went out short: %r" % err[:300])
    e.finish()


main()
