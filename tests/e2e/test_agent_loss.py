#!/usr/bin/env python3
"""e2e: `kill -9` of one local agent in the middle of a run.

  - default (--on-agent-loss=abort): the coordinator reports the agent lost
    within 3 s of the kill (measured from the kill to its stderr line),
    stops the others, prints the (partial) final report, writes the JSON
    (exit.status 1, reason naming the lost agent, the agent marked lost)
    and exits 1;
  - --on-agent-loss=continue: the run goes on to --time with the other two
    agents, exits 0, and the intervals after the loss are marked partial
    (JSON and the interval lines).
Both runs still satisfy "sum of the intervals == totals".
"""
import re
import signal
import os
import time

import e2elib as e

LOSS_BUDGET_S = 3.0


def start(tag, time_s, extra):
    j = e.path(tag + ".json")
    p = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=6",
                    "--time=%d" % time_s, "--report-interval=1", "--agents=3", "--json=" + j] +
                   extra + e.local_opts() + e.db_opts())
    return p, j


def kill_one_agent(p):
    """Wait for the 2 s interval line, kill -9 one agent child; (pid, t)."""
    if not e.check(p.wait_line(r"^\[ 2s \]", which="out", timeout=30) is not None,
                   "the run reached its 2 s interval line"):
        p.dump()
        e.finish()
    pids = p.agent_children()
    if not e.check(len(pids) == 3, "3 stampede-agent children of stampede: %r" % pids):
        e.finish()
    victim = sorted(pids)[1]
    t = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    e.info("killed agent pid %d at %.2f s after stampede started" % (victim, t - p.t_start))
    return victim, t


def loss_line(p, t_kill):
    """Seconds from the kill to the 'agent X (...) lost at' line, and X."""
    got = p.wait_line(r"agent (\S+) \(.*\) lost at ([0-9.]+) s", timeout=15, after=t_kill)
    if got is None:
        e.check(False, "no 'agent ... lost' line within 15 s of the kill")
        return None, None
    dt = got[0] - t_kill
    e.info("loss reported %.3f s after the kill: %s" % (dt, got[1]))
    e.check(dt <= LOSS_BUDGET_S, "agent reported lost %.3f s after kill -9 (budget %.1f s)" %
            (dt, LOSS_BUDGET_S))
    return dt, got[2].group(1)


def check_sums(d, what):
    tot = d["totals"]["counters"]
    ok = all(sum(iv["counters"][f] for iv in d["intervals"]) == tot[f]
             for f in ("transactions", "reads", "writes", "other"))
    e.check(ok, "%s: sum of the intervals == totals (%d transactions)" % (what, tot["transactions"]))
    s = sum(a["transactions"] for a in d["agents"])
    e.check(s == tot["transactions"], "%s: totals %d == sum of the agents' %d" %
            (what, tot["transactions"], s))
    # per kind too: the lost agent's figures up to its loss stay in the totals
    tk = d["totals"].get("kinds") or {}
    names = sorted(set(tk) | {n for iv in d["intervals"] for n in (iv.get("kinds") or {})})
    bad = []
    for n in names:
        for f in ("count", "errors"):
            ivs = sum((iv.get("kinds") or {}).get(n, {}).get(f, 0) for iv in d["intervals"])
            if ivs != tk.get(n, {}).get(f, 0):
                bad.append((n, f, ivs, tk.get(n, {}).get(f, 0)))
    ps = tk.get("point_selects", {}).get("count", 0)
    e.check(names and not bad, "%s: per kind, sum of the intervals == totals (%d kinds, "
            "point_selects %d); differing (kind, field, intervals, totals): %r" %
            (what, len(names), ps, bad))
    e.check("rolled_back" in tot and "failed" in tot and tot["failed"] == 0,
            "%s: totals carry the events' outcomes: rolled_back %s, failed %s" %
            (what, tot.get("rolled_back"), tot.get("failed")))


def abort_case():
    p, j = start("abort", 20, [])
    victim, t_kill = kill_one_agent(p)
    _, name = loss_line(p, t_kill)
    rc = p.wait(30)
    t_exit = time.monotonic() - t_kill
    e.info("stampede exited %.2f s after the kill with status %s" % (t_exit, rc))
    e.check(rc == 1, "abort: exit status %s (want 1)" % rc)
    err = p.text("err")
    e.check(re.search(r"agent \S+ \(.*\) was lost; run aborted", err),
            "abort: stderr says the run was aborted because of the lost agent")
    out = p.text("out")
    e.check("SQL statistics:" in out and "Latency (ms):" in out and
            re.search(r"WARNING: agent \S+ was lost at", out),
            "abort: partial final report printed, with the lost-agent warning")
    if rc is None or not os.path.exists(j):
        e.check(False, "abort: JSON written to %s" % j)
        p.dump()
        return
    d = e.load_json(j)
    e.check(d["exit"]["status"] == 1 and "lost" in d["exit"]["reason"] and
            (name or "?") in d["exit"]["reason"],
            "abort: JSON exit %r names the lost agent %s" % (d["exit"], name))
    lost = [a["name"] for a in d["agents"] if a["lost"]]
    e.check(lost == [name], "abort: JSON marks exactly the killed agent lost: %r" % lost)
    others = [a for a in d["agents"] if not a["lost"]]
    e.check(all(a["done"] for a in others), "abort: the other agents finished (DONE)")
    e.check(d["totals"]["time_s"] < 10,
            "abort: the run stopped early: time_s %.2f of --time=20" % d["totals"]["time_s"])
    check_sums(d, "abort")
    e.check(not e.pid_alive(victim), "killed agent %d is gone" % victim)


def continue_case():
    p, j = start("continue", 7, ["--on-agent-loss=continue"])
    victim, t_kill = kill_one_agent(p)
    _, name = loss_line(p, t_kill)
    e.check(p.wait_line(r"continuing with the other agents", timeout=5, after=t_kill) is not None,
            "continue: stderr says it continues with the other agents")
    rc = p.wait(40)
    e.check(rc == 0, "continue: exit status %s (want 0)" % rc)
    if rc is None or not os.path.exists(j):
        e.check(False, "continue: JSON written")
        p.dump()
        return
    d = e.load_json(j)
    e.check(d["exit"]["status"] == 0, "continue: JSON exit %r" % d["exit"])
    e.check(6.5 <= d["totals"]["time_s"] <= 9,
            "continue: ran to --time=7: time_s %.2f" % d["totals"]["time_s"])
    lost = [a for a in d["agents"] if a["lost"]]
    e.check([a["name"] for a in lost] == [name],
            "continue: JSON marks the killed agent lost: %r" % [a["name"] for a in lost])
    at = lost[0]["lost_at_s"] if lost else 99
    partial = [iv for iv in d["intervals"] if iv["partial"]]
    full = [iv for iv in d["intervals"] if not iv["partial"]]
    e.info("lost_at_s %.2f; intervals (k, agents_reporting, partial): %r" %
           (at, [(iv["k"], iv["agents_reporting"], iv["partial"]) for iv in d["intervals"]]))
    unmarked = [iv["k"] for iv in full if iv["agents_reporting"] < 3]
    e.check(partial and all(iv["agents_reporting"] < 3 for iv in partial) and not unmarked,
            "continue: every interval without the lost agent's STATS is marked partial "
            "(docs/design.md §9.1: the report says which intervals are partial); not marked: "
            "k=%r (closed before the loss was declared %.1f s in)" % (unmarked, at))
    e.check(any(iv["t_s"] >= 6 and iv["partial"] and iv["agents_reporting"] == 2
                for iv in d["intervals"]),
            "continue: the last full intervals come from the 2 remaining agents, marked partial")
    e.check(all(iv["partial"] for iv in d["intervals"] if iv["t_s"] - iv["len_s"] >= at),
            "continue: every interval starting after the loss is partial")
    lines = re.findall(r"^\[ (\d+)s \].*", p.text("out"), re.M)
    marked = re.findall(r"^\[ \d+s \].*\[partial\]$", p.text("out"), re.M)
    e.check(len(marked) >= 1 and len(marked) == sum(1 for iv in partial if iv["printed"]),
            "continue: %d interval line(s) end with [partial], %d partial printed intervals in JSON"
            % (len(marked), sum(1 for iv in partial if iv["printed"])))
    e.check(len(lines) >= 6, "continue: %d interval lines printed" % len(lines))
    check_sums(d, "continue")


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    abort_case()
    continue_case()
    e.finish()


main()
