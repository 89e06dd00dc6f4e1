#!/usr/bin/env python3
"""e2e: run --find-capacity --slo=..., capacity under an SLO (issue 28 §3).

A Lua script whose event is SELECT SLEEP(0.01) on 4 connections holds
about 400 events/s: past it the open loop's queue grows and p99 goes far
past 50 ms. The search (start 100/s, steps of 2 s after 1 s of warm-up,
to 5%) must find it within 10%:
  - with --agents=1 and with --agents=3 (each step's rate split over the
    agents as --rate is: the step's JSON has 3 agents whose rates sum to
    the step's). Three agents get --agent-weights=2,1,1: the 4 connections
    go 2/1/1 and the rate with them (equal weights would give each agent a
    third of the rate but 2/1/1 connections, and the one-connection agents
    would cap the whole at 3 x 100/s);
  - exit 0; the text's "capacity: N/s (bracket G..B/s" line is the JSON's
    capacity.rate and bracket; the steps start at 100/s, ramp x2, each has
    its run's JSON in --capacity-dir with that --rate; the bracket is the
    highest step that met the SLO and the lowest above it that did not;
  - a step that missed while an agent's loop lagged (a shared machine's
    hiccup) ran again once, and only the second counts;
  - a bad --slo, --find-capacity with --rate, --slo without
    --find-capacity: exit 2 before anything runs (no --capacity-dir made).
"""
import os
import re
import time

import e2elib as e

SCRIPT = """function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT SLEEP(0.01)") end
"""
CAPACITY = 400.0


def base(script, extra):
    return [script, "--threads=4", "--rate-mode=uniform"] + e.local_opts() + e.db_opts() + \
        extra + ["run"]


def search(script, agents):
    name = "a%d" % agents
    d, j = e.path(name), e.path(name + ".json")
    t = time.monotonic()
    p = e.stampede(base(script, ["--agents=%d" % agents, "--find-capacity", "--slo=p99<=50ms",
                                 "--capacity-start=100", "--capacity-trial=2",
                                 "--capacity-warmup=1", "--capacity-dir=" + d, "--json=" + j]))
    rc = p.wait(150)
    out = p.text("out")
    e.info("--agents=%d: %.1f s\n%s%s" % (agents, time.monotonic() - t, out, p.text("err")))
    if not e.check(rc == 0 and os.path.exists(j), "--agents=%d: exit %s (want 0), JSON written"
                   % (agents, rc)):
        p.dump()
        return
    cap = e.load_json(j)
    c, steps = cap["capacity"], cap["steps"]
    rate, good, bad = c["rate"], c["bracket"][0], c["bracket"][1]
    e.check(cap["kind"] == "capacity" and c["slo"] == ["p99<=50ms"],
            "--agents=%d: kind capacity, slo %r" % (agents, c["slo"]))
    e.check(rate is not None and abs(rate - CAPACITY) <= 0.1 * CAPACITY,
            "--agents=%d: capacity %s/s within 10%% of %g/s (bracket %s..%s, stopped %r)"
            % (agents, rate, CAPACITY, good, bad, c["stopped"]))
    m = re.search(r"^capacity: (\d+)/s \(bracket (\d+)\.\.(\d+)/s", out, re.M)
    e.check(m is not None and (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            == (rate, good, bad), "--agents=%d: text line %r is the JSON's %s (%s..%s)"
            % (agents, m and m.group(0), rate, good, bad))
    rates = [s["rate"] for s in steps if not s["retried"]]
    e.check(rates[:3] == [100, 200, 400] or rates[:4] == [100, 200, 400, 800],
            "--agents=%d: steps ramp x2 from 100/s: %r" % (agents, rates))
    retried = [i for i, s in enumerate(steps) if s["retried"]]
    e.check(all(not steps[i]["ok"] and steps[i]["saturated"] and i + 1 < len(steps) and
                steps[i + 1]["rate"] == steps[i]["rate"] for i in retried),
            "--agents=%d: a step missed with a lagging client ran again: %r" % (agents, retried))
    oks = [s["rate"] for s in steps if s["ok"]]
    misses = [s["rate"] for s in steps if not s["ok"] and not s["retried"] and s["rate"] > good]
    e.check(good == rate and good == max(oks) and bad == min(misses),
            "--agents=%d: bracket %s..%s is the highest met step and the lowest missed above "
            "it (met %r)" % (agents, good, bad, oks))
    e.check(c["stopped"] is not None or (bad - good) / good <= 0.05,
            "--agents=%d: within the precision 5%%: %s..%s" % (agents, good, bad))
    for s in steps:
        run = e.load_json(s["file"])
        rs = [a["rate"] for a in run["agents"]]
        conns = [a["threads"] for a in run["agents"]]
        e.check(len(rs) == agents and sum(rs) == s["rate"] and
                all(abs(r * 4 - s["rate"] * c) <= 4 for r, c in zip(rs, conns)) and
                abs(run["totals"]["tps"] - s["achieved"]) < 1e-6 and
                run["totals"]["latency_ms"]["p99"] == s["latency_ms"]["p99"] and
                run["thresholds"][0]["passed"] == s["passed"] and
                s["ok"] == (s["passed"] and s["achieved"] >= 0.9 * s["rate"]),
                "--agents=%d: step %s/s: its run's JSON (agents' rates %r on %r connections, tps "
                "%.1f, p99 %s)" % (agents, s["rate"], rs, conns, run["totals"]["tps"], run["totals"]["latency_ms"]["p99"]))


def refused(script, extra, words, what):
    d = e.path("refused")
    p = e.stampede(base(script, ["--capacity-dir=" + d] + extra))
    rc = p.wait(30)
    err = p.text("err")
    e.check(rc == 2 and all(w in err for w in words) and not os.path.exists(d),
            "%s: exit %s (want 2), nothing run; stderr %r" % (what, rc, err[-300:]))


def main():
    e.need_sandbox()
    script = e.path("sleep10ms.lua")
    with open(script, "w") as f:
        f.write(SCRIPT)
    refused(script, ["--find-capacity", "--slo=p99<=10ms,p42x"], ["--slo", "p42x"], "bad --slo")
    refused(script, ["--find-capacity", "--slo=p99<=10ms", "--rate=10"], ["--rate"],
            "--find-capacity with --rate")
    refused(script, ["--slo=p99<=10ms"], ["--find-capacity"], "--slo without --find-capacity")
    search(script, 1)
    search(script, 3)
    e.finish()


if __name__ == "__main__":
    main()
