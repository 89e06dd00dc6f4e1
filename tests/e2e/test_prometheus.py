#!/usr/bin/env python3
"""e2e: the coordinator's --prometheus endpoint, scraped by a real
Prometheus server.

One 15 s oltp_read_write run (2 local agents, sandbox MariaDB) with
--prometheus on a free loopback port and --prometheus-linger=3; a real
`prometheus` (Debian's, started here on loopback with its own temporary
storage) scrapes it every second. Checked:
  - during the run, a scrape passes `promtool check metrics`, carries the
    run info, the counters and the latency histogram, and its counters do
    not go down on the next scrape; other paths give 404, POST gives 405;
  - afterwards, through Prometheus's HTTP API, the last
    stampede_transactions_total equals the JSON's totals.transactions (and
    the per-agent series sum to it), and histogram_quantile(0.95, ...) over
    the run lies in the bucket that holds the JSON's p95;
  - per statement kind: the scrape carries stampede_kind_latency_seconds and
    stampede_kind_count_total / stampede_kind_errors_total{kind}; through
    Prometheus, each kind's last count and errors equal the JSON's
    totals.kinds, and histogram_quantile(0.95) of the most frequent kind
    lies in the bucket of that kind's JSON p95.
  - the agents' own endpoint (`prometheus = PORT` in one agent's config
    file, --prometheus=127.0.0.1:PORT on the other's command line): a 4 s
    run of 2 daemon agents; during it each agent's scrape passes `promtool
    check metrics`, carries the run id, its own agent series and the
    per-kind series; after it, each agent's counters (transactions, queries
    by type, errors, reconnects, per-kind counts) summed over the 2 agents
    equal the coordinator's JSON totals; an agent whose port is taken exits
    non-zero naming the setting;
  - a request with a 100 KB header during the run is refused, and the run's
    stderr stays empty (libmicrohttpd's message goes to stampede's log at
    --verbosity >= 4 only).
Needs the `prometheus` package (deploy/install-deps); skips (77) without
it or without the sandbox server.
"""
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import e2elib as e

RUN_S = 15


def http(url, method="GET"):
    """(status, body) of a request; errors' status too."""
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def parse(text):
    """{series: value} of an exposition text (series as written)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def start_prometheus(target_port):
    d = e.path("prom")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                "scrape_configs:\n  - job_name: stampede\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % target_port)
    port = e.free_port()
    p = e.Proc(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(d, "db"),
                "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"], name="prometheus")
    base = "http://127.0.0.1:%d" % port
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if http(base + "/-/ready")[0] == 200:
                return p, base
        except OSError:
            pass
        time.sleep(0.2)
    e.check(False, "prometheus ready within 30 s")
    p.dump()
    e.finish()


def query(base, q):
    st, body = http(base + "/api/v1/query?" + urllib.parse.urlencode({"query": q}))
    import json
    d = json.loads(body)
    if st != 200 or d.get("status") != "success":
        e.check(False, "query %r: HTTP %d %s" % (q, st, body[:300]))
        return []
    return d["data"]["result"]


def scrape_checks(url):
    st, body = http(url)
    e.check(st == 200, "GET /metrics during the run: HTTP %d" % st)
    f = e.path("scrape.txt")
    with open(f, "w") as out:
        out.write(body)
    pc = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                        text=True, timeout=30)
    e.check(pc.returncode == 0, "promtool check metrics: exit %d %s%s" %
            (pc.returncode, pc.stdout[:500], pc.stderr[:500]))
    m = parse(body)
    info = [k for k in m if k.startswith("stampede_run_info{")]
    e.check(len(info) == 1 and 'workload="oltp_read_write"' in info[0] and "run_id=" in info[0],
            "run info gauge: %r" % info)
    for name in ("stampede_transactions_total", 'stampede_queries_total{type="read"}',
                 "stampede_errors_total", "stampede_reconnects_total",
                 "stampede_rolled_back_total", "stampede_failed_total",
                 'stampede_latency_seconds_count{kind="all"}'):
        e.check(name in m, "scrape has %s (%s)" % (name, m.get(name)))
    kinds = [k for k in m if k.startswith("stampede_kind_count_total{")]
    e.check(len(kinds) > 0 and any(k.startswith("stampede_kind_latency_seconds_count{") for k in m),
            "scrape has per-kind series: %r" % kinds[:5])
    ups = {k: v for k, v in m.items() if k.startswith("stampede_agent_up{")}
    e.check(len(ups) == 2 and all(v == 1 for v in ups.values()), "agents up: %r" % ups)
    time.sleep(1.2)
    m2 = parse(http(url)[1])
    grew = [k for k in m if k.endswith("_total") or "_bucket" in k or k.endswith("_count")]
    down = [k for k in grew if m2.get(k, -1) < m[k]]
    e.check(not down and m2["stampede_transactions_total"] > m["stampede_transactions_total"],
            "counters only grow between two scrapes (%d series; transactions %d -> %d; down: %r)"
            % (len(grew), m["stampede_transactions_total"], m2["stampede_transactions_total"],
               down[:5]))
    base = url.rsplit("/", 1)[0]
    e.check(http(base + "/other")[0] == 404, "GET /other: 404")
    e.check(http(url, method="POST")[0] == 405, "POST /metrics: 405")
    # A 100 KB header (issue 27 §4): libmicrohttpd refuses it, and its
    # message stays off stderr at the default --verbosity (the run's stderr
    # is checked empty in main: fd69bc4 printed libmicrohttpd's line there).
    host, port = url.split("/")[2].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as c:
        try:
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 +
                      b"\r\n\r\n")
            status = c.recv(64).split(b" ")[1:2]
        except OSError as x:  # it may close before reading it all
            status = [str(x).encode()]
    e.check(status != [b"200"], "a 100 KB header is refused: %r" % status)
    return body


def bounds_of(text):
    out = []
    for line in text.splitlines():
        if line.startswith("stampede_latency_seconds_bucket{") and 'le="+Inf"' not in line:
            out.append(float(line.split('le="')[1].split('"')[0]))
    return out


def bucket_of(bounds, value_s):
    """The Prometheus bucket (lo, hi] holding value_s. Compared in whole µs,
    as both sides are: 0.403 ms / 1000 is 0.00040300000000000004 in floating
    point, above the bound 0.000403 it equals."""
    us, b_us = round(value_s * 1e6), [round(b * 1e6) for b in bounds]
    lo = max([b for b in b_us if b < us], default=0) / 1e6
    hi = min([b for b in b_us if b >= us], default=float("inf")) / 1e6
    return lo, hi


def kind_checks(base, d, bounds):
    jk = d["totals"].get("kinds") or {}
    if not e.check(len(jk) > 0, "the JSON has totals.kinds: %r" % list(jk)):
        return
    for metric, field in (("stampede_kind_count_total", "count"),
                          ("stampede_kind_errors_total", "errors")):
        got = query(base, "last_over_time(%s[5m])" % metric)
        pk = {r["metric"].get("kind"): float(r["value"][1]) for r in (got or [])}
        want = {k: float(v[field]) for k, v in jk.items()}
        # Prometheus has every kind READY.kinds named; the JSON only those used.
        diff = {k: (pk.get(k), w) for k, w in want.items() if pk.get(k) != w}
        unused = {k: v for k, v in pk.items() if k not in want and v != 0}
        e.info("%s: %d kinds from Prometheus, %d in the JSON" % (metric, len(pk), len(want)))
        e.check(not diff and not unused, "%s per kind == JSON totals.kinds %s (differ: %r, "
                "in Prometheus only: %r)" % (metric, field, diff, unused))
    top = max(jk, key=lambda k: jk[k]["count"])
    p95_s = jk[top]["latency_ms"]["p95"] / 1000.0
    got = query(base, 'histogram_quantile(0.95, sum by (le) (last_over_time('
                'stampede_kind_latency_seconds_bucket{kind="%s"}[5m])))' % top)
    q = float(got[0]["value"][1]) if got else -1
    lo, hi = bucket_of(bounds, p95_s)
    e.info("kind %s: JSON p95 %.6f s in bucket (%g, %g]; Prometheus %.6f s" %
           (top, p95_s, lo, hi, q))
    e.check(lo * 0.999 <= q <= hi * 1.001,
            "kind %s: histogram_quantile(0.95) %.6f s within the bucket (%g, %g] of the JSON "
            "p95 %.6f s" % (top, q, lo, hi, p95_s))


def agent_scrape(name, port):
    """An agent's /metrics during a run: promtool, run info, its series."""
    st, body = http("http://127.0.0.1:%d/metrics" % port)
    e.check(st == 200, "agent %s: GET /metrics during the run: HTTP %d" % (name, st))
    with open(e.path("scrape-%s.txt" % name), "w") as out:
        out.write(body)
    pc = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                        text=True, timeout=30)
    e.check(pc.returncode == 0, "agent %s: promtool check metrics: exit %d %s%s" %
            (name, pc.returncode, pc.stdout[:500], pc.stderr[:500]))
    m = parse(body)
    info = [k for k in m if k.startswith("stampede_run_info{")]
    e.check(len(info) == 1 and 'workload="oltp_read_write"' in info[0],
            "agent %s: run info gauge: %r" % (name, info))
    own = 'agent="%s"' % name
    for fam in ("stampede_agent_transactions_total", "stampede_agent_cpu_ratio",
                "stampede_agent_loop_lag_seconds", "stampede_agent_up"):
        series = [k for k in m if k.startswith(fam + "{")]
        e.check(len(series) == 1 and own in series[0],
                "agent %s: %s is its own series: %r" % (name, fam, series))
    e.check(any(k.startswith("stampede_kind_count_total{") for k in m) and
            any(k.startswith('stampede_latency_seconds_bucket{kind="all"') for k in m),
            "agent %s: latency histogram and per-kind series" % name)
    return info[0]


def agents_case():
    """Two daemon agents with their own endpoints; their sums == the JSON."""
    d = e.path("agents")
    os.makedirs(d, exist_ok=True)
    ep = "tcp://127.0.0.1:%d" % e.free_port()
    ports = {"prom-a": e.free_port(), "prom-b": e.free_port()}
    conf = os.path.join(d, "prom-a.conf")
    with open(conf, "w") as f:  # a port alone: loopback
        f.write("coordinator = %s\nplaintext = on\nworkers = 1\nprometheus = %d\n"
                % (ep, ports["prom-a"]))
    ags = [e.agent(["--config=" + conf], "prom-a"),
           e.agent(["--coordinator=" + ep, "--plaintext", "--workers=1",
                    "--prometheus=127.0.0.1:%d" % ports["prom-b"]], "prom-b")]
    for name, port in ports.items():
        e.check(e.wait_listening(port), "agent %s listens on 127.0.0.1:%d" % (name, port))
    # The same port again: a clear error, exit non-zero, at startup.
    bad = e.agent(["--coordinator=" + ep, "--plaintext", "--workers=1",
                   "--prometheus=127.0.0.1:%d" % ports["prom-a"]], "prom-bad")
    rc = bad.wait(15)
    e.check(rc not in (0, None) and "prometheus" in bad.text("err") and
            "cannot listen" in bad.text("err"),
            "an agent whose metrics port is taken exits non-zero naming the setting: exit %s, %r"
            % (rc, bad.text("err").strip()[-300:]))
    j = e.path("agents.json")
    co = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=4",
                     "--time=4", "--report-interval=1", "--agents=2", "--listen=" + ep,
                     "--plaintext", "--agent-wait=20", "--json=" + j] + e.db_opts())
    if e.check(co.wait_line(r"^\[ 2s \]", which="out", timeout=60) is not None,
               "agents: the run reached its 2 s line"):
        infos = [agent_scrape(n, p) for n, p in ports.items()]
        e.check(len(set(infos)) == 1, "both agents carry the same run info: %r" % infos)
    rc = co.wait(60)
    t_end = time.monotonic()
    if not e.check(rc == 0 and os.path.exists(j), "agents: run exit status %s" % rc):
        co.dump()
        for a in ags:
            a.dump()
        for a in ags:
            a.stop()
        return
    doc = e.load_json(j)
    tot = doc["totals"]
    e.check(all('run_id="%s"' % doc["run_id"] in i for i in infos),
            "the agents' run info carries the JSON's run id %s" % doc["run_id"])
    sums = {}
    for name, port in ports.items():
        m = parse(http("http://127.0.0.1:%d/metrics" % port)[1])
        for k, v in m.items():
            if k.split("{")[0].endswith("_total"):
                sums[k] = sums.get(k, 0) + v
    want = {"stampede_transactions_total": tot["transactions"],
            'stampede_queries_total{type="read"}': tot["queries"]["read"],
            'stampede_queries_total{type="write"}': tot["queries"]["write"],
            'stampede_queries_total{type="other"}': tot["queries"]["other"],
            "stampede_errors_total": tot["ignored_errors"],
            "stampede_reconnects_total": tot["reconnects"],
            "stampede_rolled_back_total": tot["counters"]["rolled_back"],
            "stampede_failed_total": tot["counters"]["failed"]}
    for k, v in (tot.get("kinds") or {}).items():
        want['stampede_kind_count_total{kind="%s"}' % k] = v["count"]
    diff = {k: (sums.get(k), w) for k, w in want.items() if sums.get(k) != w}
    e.info("agents' counters summed: transactions %s (JSON %d), %d series compared" %
           (sums.get("stampede_transactions_total"), tot["transactions"], len(want)))
    e.check(tot["transactions"] > 0 and not diff,
            "the agents' own counters summed over 2 agents == the JSON totals (differ: %r)" % diff)
    # Past the 3 s lease after the coordinator's goodbye: daemons wait for
    # the next run without taking the quiet for a lost coordinator.
    time.sleep(max(0.0, 3.6 - (time.monotonic() - t_end)))
    for a in ags:
        e.check("no word from the coordinator" not in a.text("err"),
                "%s: no 'no word from the coordinator' warning 3.6 s after the run: %r"
                % (a.name, a.text("err")[-300:]))
    for a in ags:
        a.stop()


def main():
    e.need_sandbox()
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            print("SKIP: %s is not installed (deploy/install-deps: prometheus)" % tool)
            raise SystemExit(e.SKIP)
    e.prepare(tables=2, table_size=5000)
    mport = e.free_port()
    prom, base = start_prometheus(mport)
    j = e.path("run.json")
    p = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=4",
                    "--time=%d" % RUN_S, "--report-interval=1", "--agents=2", "--json=" + j,
                    "--prometheus=127.0.0.1:%d" % mport, "--prometheus-linger=3"] +
                   e.local_opts() + e.db_opts())
    if not e.check(p.wait_line(r"^\[ 4s \]", which="out", timeout=60) is not None,
                   "the run reached its 4 s line"):
        p.dump()
        e.finish()
    body = scrape_checks("http://127.0.0.1:%d/metrics" % mport)
    rc = p.wait(RUN_S + 60)
    if not e.check(rc == 0, "run exit status %s" % rc):
        p.dump()
        e.finish()
    # The 3 s linger is quiet (issue 27 §5): the agents were told the run is
    # over and do not take the linger for a lost coordinator.
    err = p.text("err")
    e.check("no word from the coordinator" not in err and err.strip() == "",
            "a successful run with --prometheus-linger=3 writes nothing on stderr: %r"
            % err[-300:])
    d = e.load_json(j)
    total = d["totals"]["transactions"]
    p95_s = d["totals"]["latency_ms"]["p95"] / 1000.0
    # Stale markers follow the target's end: read the last sample scraped.
    got = query(base, "last_over_time(stampede_transactions_total[5m])")
    last = float(got[0]["value"][1]) if got else -1
    e.info("JSON total %d, Prometheus last stampede_transactions_total %s" % (total, last))
    e.check(last == total, "last scraped stampede_transactions_total %s == JSON total %d" %
            (last, total))
    # The events' outcomes (rolled back on purpose, given up), through
    # Prometheus as the JSON counts them (oltp_read_write has neither).
    for metric, key in (("stampede_rolled_back_total", "rolled_back"),
                        ("stampede_failed_total", "failed")):
        got = query(base, "last_over_time(%s[5m])" % metric)
        want = d["totals"]["counters"][key]
        e.check(got and float(got[0]["value"][1]) == want,
                "last scraped %s %s == JSON totals.counters.%s %d" %
                (metric, got and got[0]["value"][1], key, want))
        got = query(base, "sum(last_over_time(%s[5m]))" % metric.replace("stampede_", "stampede_agent_"))
        e.check(got and float(got[0]["value"][1]) == want,
                "per-agent %s sum to %d: %r" % (metric, want, got and got[0]["value"][1]))
    got = query(base, "sum(last_over_time(stampede_agent_transactions_total[5m]))")
    e.check(got and float(got[0]["value"][1]) == total,
            "per-agent transactions sum to the total: %r" % (got and got[0]["value"][1]))
    got = query(base, "histogram_quantile(0.95, sum by (le) "
                "(last_over_time(stampede_latency_seconds_bucket[5m])))")
    q = float(got[0]["value"][1]) if got else -1
    bounds = bounds_of(body)
    lo, hi = bucket_of(bounds, p95_s)
    e.info("JSON p95 %.6f s in bucket (%g, %g]; Prometheus histogram_quantile(0.95) %.6f s" %
           (p95_s, lo, hi, q))
    # 0.1%: the exact histogram's bucket width, which can put a sample on
    # the other side of a bound.
    e.check(lo * 0.999 <= q <= hi * 1.001,
            "histogram_quantile(0.95) %.6f s within the bucket (%g, %g] of the JSON p95 %.6f s"
            % (q, lo, hi, p95_s))
    kind_checks(base, d, bounds)
    agents_case()
    scrapes = query(base, "count_over_time(up{job=\"stampede\"}[5m])")
    e.info("Prometheus scraped the coordinator %s times" % (scrapes and scrapes[0]["value"][1]))
    prom.stop()
    e.finish()


main()
