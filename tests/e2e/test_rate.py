#!/usr/bin/env python3
"""e2e rate mode (issue 9 items 6, 7, 10): 2 local agents, --rate, 4 s.

  - the service time (from each event's actual start) is reported beside
    the CO-corrected latency (from its intended start): in the JSON per
    interval, per agent and for the run (`service_ms`), in the CSV's last
    three columns and in a line of the stampede section; since an event
    never starts before it was due, every percentile of the service time is
    at most the latency's;
  - --rate-mode=uniform runs and starts about rate x time events, like
    the default Poisson mode; a closed-loop run has `service_ms` null;
  - known figures are numbers: each agent's db_rtt_ms and start_skew_ms.
"""
import csv

import e2elib as e

RATE = 200
TIME_S = 4
PCTS = ("min", "p50", "p95", "p99", "max")


def run(tag, extra):
    files = {k: e.path("%s.%s" % (tag, k)) for k in ("json", "csv")}
    p = e.run_ok(["oltp_point_select", "run", "--tables=2", "--table-size=10000", "--threads=4",
                  "--time=%d" % TIME_S, "--report-interval=1", "--agents=2",
                  "--json=" + files["json"], "--csv=" + files["csv"]] + extra +
                 e.local_opts() + e.db_opts(), "%s run" % tag, timeout=TIME_S + 60)
    if p.p.returncode != 0:
        e.finish()
    return p, e.load_json(files["json"]), files


def dominated(svc, lat, what):
    """svc and lat are {p: ms}; service <= latency at every percentile."""
    if not e.check(isinstance(svc, dict), "%s: service_ms is %r" % (what, svc)):
        return
    bad = [k for k in PCTS if svc.get(k) is None or lat.get(k) is None or svc[k] > lat[k]]
    e.check(not bad, "%s: service %s vs latency %s (bad: %s)" % (what, svc, lat, bad))


def check_rate_run(tag, p, d, files):
    tot = d["totals"]
    e.info("%s: %d transactions, latency p50 %s ms p99 %s ms, service p50 %s ms p99 %s ms" %
           (tag, tot["transactions"], tot["latency_ms"]["p50"], tot["latency_ms"]["p99"],
            (tot.get("service_ms") or {}).get("p50"), (tot.get("service_ms") or {}).get("p99")))
    want = RATE * TIME_S
    e.check(0.8 * want <= tot["transactions"] <= 1.2 * want,
            "%s: %d transactions, want about %d" % (tag, tot["transactions"], want))
    dominated(tot.get("service_ms"), tot["latency_ms"], "%s totals" % tag)
    for a in d["agents"]:
        dominated(a.get("service_ms"), a["latency_ms"], "%s agent %s" % (tag, a["name"]))
        e.check(isinstance(a["db_rtt_ms"], (int, float)) and a["db_rtt_ms"] > 0,
                "%s agent %s: db_rtt_ms %r" % (tag, a["name"], a["db_rtt_ms"]))
        e.check(isinstance(a["start_skew_ms"], (int, float)),
                "%s agent %s: start_skew_ms %r" % (tag, a["name"], a["start_skew_ms"]))
    with_tx = [iv for iv in d["intervals"] if iv["counters"]["transactions"] > 0]
    e.check(len(with_tx) >= TIME_S, "%s: %d intervals with transactions" % (tag, len(with_tx)))
    for iv in with_tx:
        dominated(iv.get("service_ms"), iv["latency_ms"], "%s interval %d" % (tag, iv["k"]))
    with open(files["csv"]) as f:
        rows = list(csv.DictReader(f))
    e.check(len(rows) == len(d["intervals"]), "%s: %d CSV rows" % (tag, len(rows)))
    for r in rows:
        if r["printed"] != "1":
            continue
        ok = all(r[c] != "" for c in ("svc_p50_ms", "svc_p95_ms", "svc_p99_ms"))
        ok = ok and float(r["svc_p50_ms"]) <= float(r["lat_p50_ms"])
        ok = ok and float(r["svc_p95_ms"]) <= float(r["lat_p95_ms"])
        ok = ok and float(r["svc_p99_ms"]) <= float(r["lat_p99_ms"])
        e.check(ok, "%s: CSV row at %s s: svc %s/%s/%s vs lat %s/%s/%s ms" %
                (tag, r["t_s"], r["svc_p50_ms"], r["svc_p95_ms"], r["svc_p99_ms"],
                 r["lat_p50_ms"], r["lat_p95_ms"], r["lat_p99_ms"]))
    out = p.text("out")
    line = [ln for ln in out.splitlines() if "service, from actual start" in ln]
    e.check(len(line) == 1 and "latency, from intended start" in out,
            "%s: stampede section has the service line: %r" % (tag, line))


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=10000)
    for tag, extra in (("poisson", ["--rate=%d" % RATE]),
                       ("uniform", ["--rate=%d" % RATE, "--rate-mode=uniform"])):
        p, d, files = run(tag, extra)
        check_rate_run(tag, p, d, files)
        e.check(d["options"].get("rate") == str(RATE), "%s: options %r" % (tag, d["options"]))
    p, d, files = run("closed", [])
    e.check(d["totals"]["service_ms"] is None, "closed loop: totals.service_ms %r" %
            (d["totals"]["service_ms"],))
    e.check(all(iv["service_ms"] is None for iv in d["intervals"]),
            "closed loop: an interval has a service time")
    e.check("service, from actual start" not in p.text("out"),
            "closed loop: no service line in the stampede section")
    e.finish()


main()
