#!/usr/bin/env python3
"""e2e: runs of any length (README "Long runs").

  - kill -9 of the coordinator in the middle of a run: the CSV and the
    HdrHistogram log already hold every interval whose line was printed
    before the kill (but for a [late] line among the last 3, and those
    after it: such an interval waits up to 3 intervals for its STATS) (same count, same t_s, the CSV's tps equal to the
    printed line's, the log's per-interval counts equal to the CSV's
    transactions), Java's HistogramLogProcessor reads the log (its total
    count equal to the CSV's), and the JSON is still FILE.tmp holding those
    intervals, never a truncated FILE;
  - --json=- with a lost agent (--on-agent-loss=continue, no --hdr-log):
    stdout is exactly the JSON document, the text report is on stderr,
    the JSON carries the run id, and the lost agent's latency up to its
    loss is in its agents[] figures.
Both use --mysql-dry-run at a modest --rate: no server is needed and the
box is not loaded.
"""
import json
import os
import re
import signal
import subprocess
import time

import e2elib as e
import hdrlog

JAR = "/usr/share/java/hdrhistogram.jar"


def csv_rows(path):
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


def kill_case():
    j, c, h = e.path("kill.json"), e.path("kill.csv"), e.path("kill.hlog")
    p = e.stampede(["oltp_point_select", "run", "--mysql-dry-run", "--rate=2000", "--threads=2",
                    "--agents=2", "--time=60", "--report-interval=1", "--json=" + j, "--csv=" + c,
                    "--hdr-log=" + h] + e.local_opts())
    if not e.check(p.wait_line(r"^\[ 5s \]", which="out", timeout=60) is not None,
                   "kill: the run reached its 5 s line"):
        p.dump()
        return
    time.sleep(0.3)  # between two lines (they come every second)
    full = re.findall(r"^\[ (\d+)s \] thds: \d+ tps: ([0-9.]+).*$", p.text("out"), re.M)
    marks = re.findall(r"^\[ \d+s \] thds: .*$", p.text("out"), re.M)
    p.agent_children()
    os.kill(p.pid, signal.SIGKILL)
    p.wait(10)
    p.stop()  # its agents too
    # An interval whose line was printed before every agent's STATS came
    # ([late]) waits up to 3 intervals for them before it is written, and
    # intervals are written in order: only the last 3 lines may be missing.
    lines = full
    for i in range(max(0, len(full) - 3), len(full)):
        if marks[i].endswith("[late]"):
            lines = full[:i]
            break
    e.info("killed the coordinator after %d interval lines (%d expected on disk)" %
           (len(full), len(lines)))
    rows = [r for r in csv_rows(c)] if os.path.exists(c) else []
    printed = [r for r in rows if r["printed"] == "1"]
    e.check(len(lines) <= len(printed) <= len(full) and
            [float(r["t_s"]) for r in printed] == [float(t) for t, _ in full[:len(printed)]],
            "kill: CSV rows %r: the printed lines %r (at least the first %d)" %
            ([r["t_s"] for r in printed], [t for t, _ in full], len(lines)))
    e.check(all("%.2f" % float(r["tps"]) == tps for r, (_, tps) in zip(printed, full)),
            "kill: CSV tps == the printed lines' tps: %r vs %r" %
            ([r["tps"] for r in printed], [tps for _, tps in lines]))
    log = hdrlog.read_log(h) if os.path.exists(h) else []
    merged = [x for x in log if x[0] is None]
    tagged = [x for x in log if x[0] is not None and not x[0].startswith("kind:")]
    kinds = [x for x in log if x[0] is not None and x[0].startswith("kind:")]
    e.check(len(merged) == len(rows) and len(tagged) == 2 * len(rows),
            "kill: hlog holds %d merged + %d agent-tagged lines for %d CSV rows (2 agents; "
            "%d kind:* lines besides)" % (len(merged), len(tagged), len(rows), len(kinds)))
    counts = [x[3].total() for x in merged]
    want = [round(float(r["tps"]) * float(r["len_s"])) for r in rows]
    e.check(counts == want, "kill: hlog counts per interval %r == CSV transactions %r" %
            (counts, want))
    pr = subprocess.run(["java", "-cp", JAR, "org.HdrHistogram.HistogramLogProcessor", "-i", h,
                         "-outputValueUnitRatio", "1000"], capture_output=True, text=True,
                        timeout=120)
    foot = re.search(r"Total count\s*=\s*([0-9]+)", pr.stdout)
    e.check(pr.returncode == 0 and foot and int(foot.group(1)) == sum(want),
            "kill: HistogramLogProcessor reads the log: exit %d, total count %s == %d (%s)" %
            (pr.returncode, foot and foot.group(1), sum(want), pr.stderr[:300]))
    e.check(not os.path.exists(j), "kill: no truncated %s" % j)
    tmp = open(j + ".tmp").read() if os.path.exists(j + ".tmp") else ""
    ivs = [json.loads(l.strip().rstrip(",")) for l in tmp.splitlines()
           if l.strip().startswith('{"k": ')]
    e.check([iv["k"] for iv in ivs] == list(range(len(rows))) and
            [iv["counters"]["transactions"] for iv in ivs] == want,
            "kill: %s.tmp holds the same %d intervals" % (j, len(ivs)))


def lost_case():
    p = e.stampede(["oltp_point_select", "run", "--mysql-dry-run", "--rate=3000", "--threads=3",
                    "--agents=3", "--time=6", "--report-interval=1", "--on-agent-loss=continue",
                    "--json=-"] + e.local_opts())
    if not e.check(p.wait_line(r"^\[ 2s \]", which="err", timeout=60) is not None,
                   "json=-: the interval lines go to stderr"):
        p.dump()
        return
    pids = sorted(p.agent_children())
    if not e.check(len(pids) == 3, "3 agents: %r" % pids):
        return
    os.kill(pids[1], signal.SIGKILL)
    rc = p.wait(60)
    e.check(rc == 0, "json=-: exit status %s" % rc)
    try:
        d = json.loads(p.text("out"))
    except ValueError as err:
        e.check(False, "json=-: stdout is one JSON document (%s): %r" % (err, p.text("out")[:300]))
        return
    e.check("SQL statistics:" in p.text("err"), "json=-: the text report is on stderr")
    e.check(re.match(r"^[0-9a-f]+-[0-9a-f]+$", d.get("run_id", "")),
            "json=-: the JSON carries the run id %r" % d.get("run_id"))
    lost = [a for a in d["agents"] if a["lost"]]
    if not e.check(len(lost) == 1, "one agent lost: %r" % [a["name"] for a in lost]):
        return
    a, lat = lost[0], lost[0]["latency_ms"]
    e.info("lost agent %s: %d transactions, latency %r" % (a["name"], a["transactions"], lat))
    tot = d["totals"]["latency_ms"]
    e.check(a["transactions"] > 0 and lat["max"] is not None and lat["p50"] is not None and
            0 < lat["max"] <= tot["max"] and tot["min"] <= lat["min"] <= lat["p50"] <= lat["max"],
            "the lost agent's latency up to its loss is kept without --hdr-log: %r (run %r)" %
            (lat, tot))
    s = sum(iv["counters"]["transactions"] for iv in d["intervals"])
    e.check(s == d["totals"]["transactions"] == sum(x["transactions"] for x in d["agents"]),
            "json=-: intervals %d == totals %d == agents" % (s, d["totals"]["transactions"]))


kill_case()
lost_case()
e.finish()
