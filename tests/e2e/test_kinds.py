#!/usr/bin/env python3
"""e2e: per statement kind figures (READY.kinds, STATS/DONE.kst) end to end.

Two local agents run oltp_read_only (3 s) with --json and --hdr-log:
  - totals: point_selects count == 10 x transactions, and the sum over
    kinds of statements (count + errors) equals the server's Com_* delta
    (select + begin + commit + insert + update + delete), exactly;
  - every interval's kinds summed equal the totals (the intervals come
    from STATS, the totals from DONE: counted apart on the agents);
  - the text report has "Latency by statement (ms):" with a point_selects
    row equal to the JSON count;
  - Java's HistogramLogProcessor reading the Tag=kind:point_selects lines
    (merged over agents, per interval) gives the pooled count, p50, p99,
    p99.9 and max of the JSON totals (from DONE), within one bucket;
  - --csv-kinds rows (one per interval and kind) sum to the totals;
  - with --report-format=sysbench the section is not printed;
  - protocol 2: an old (version 1) agent's HELLO gets a BYE naming both
    versions and is counted as refused, and the run goes on with a real
    agent.
"""
import csv
import os
import re
import shutil
import subprocess

import e2elib as e
import zmtp

COM = ["Com_select", "Com_insert", "Com_update", "Com_delete", "Com_begin", "Com_commit"]
JAR = "/usr/share/java/hdrhistogram.jar"


def run(extra, name):
    j = e.path(name + ".json")
    h = e.path(name + ".hlog")
    args = (["oltp_read_only", "run", "--tables=2", "--table-size=5000", "--threads=4",
             "--time=3", "--report-interval=1", "--agents=2", "--json=" + j, "--hdr-log=" + h] +
            extra + e.local_opts() + e.db_opts())
    s0 = e.status(*COM)
    p = e.run_ok(args, name, timeout=90)
    s1 = e.status(*COM)
    return p, e.load_json(j), h, sum(s1[n] - s0[n] for n in COM)


def within_bucket(java_ms, ours_ms):
    """Java prints a bucket's highest equivalent value: equal below 2048 us,
    within 1/1024 above."""
    return abs(java_ms - ours_ms) <= max(0.0015, ours_ms / 1000.0)


def java_check(hlog, tot):
    if not (os.path.exists(JAR) and shutil.which("java")):
        e.check(False, "java and %s are installed (deploy/install-deps)" % JAR)
        return
    out = e.path("java-kind.csv")
    cmd = ["java", "-cp", JAR, "org.HdrHistogram.HistogramLogProcessor", "-i", hlog, "-tag",
           "kind:point_selects", "-outputValueUnitRatio", "1000", "-csv", "-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if not e.check(p.returncode == 0, "HistogramLogProcessor exit %d: %s" %
                   (p.returncode, p.stderr[:300])):
        return
    with open(out, encoding="utf-8") as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    if not e.check(len(rows) > 0, "Java shows kind:point_selects intervals"):
        return
    last = rows[-1]
    ps = tot["point_selects"]
    e.info("java kind:point_selects pooled: count %s p50 %s p99 %s p99.9 %s max %s; ours %r" %
           (last["Total_Count"], last["Total_50%"], last["Total_99%"], last["Total_99.9%"],
            last["Total_Max"], ps))
    e.check(int(last["Total_Count"]) == ps["count"],
            "Java's pooled kind:point_selects count %s == JSON totals %d" %
            (last["Total_Count"], ps["count"]))
    lat = ps["latency_ms"]
    for jk, ok in (("Total_50%", "p50"), ("Total_99%", "p99"), ("Total_99.9%", "p99_9"),
                   ("Total_Max", "max")):
        e.check(within_bucket(float(last[jk]), lat[ok]),
                "pooled %s: Java %s ms, merged %s ms" % (ok, last[jk], lat[ok]))


def mp_str(b):
    return bytes([0xa0 | len(b)]) + b


def old_agent_case():
    port = e.free_port()
    ep = "tcp://127.0.0.1:%d" % port
    j = e.path("old.json")
    co = e.stampede(["oltp_read_only", "run", "--tables=2", "--table-size=5000", "--threads=2",
                     "--time=1", "--agents=1", "--listen=" + ep, "--plaintext",
                     "--agent-wait=20", "--json=" + j] + e.db_opts())
    if not e.check(e.wait_listening(port), "old agent: the coordinator listens"):
        co.stop()
        return
    z = zmtp.Session(port)
    # The agent of the protocol before this one (PR_PROTO_VERSION, read from
    # the header the programs were built from).
    hdr = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto", "msg", "pr_msg.h")
    with open(hdr) as f:
        cur = int(re.search(r"#define PR_PROTO_VERSION (\d+)", f.read()).group(1))
    old = cur - 1
    hello = (b"\x85" + mp_str(b"v") + bytes([old]) + mp_str(b"t") + mp_str(b"HELLO") +
             mp_str(b"run") + mp_str(b"") + mp_str(b"seq") + b"\x01" + mp_str(b"name") +
             mp_str(b"old-agent"))
    z.send(hello)
    flags, body = zmtp._recv_frame(z.s)
    z.close()
    want = b"speaks protocol %d, this coordinator %d" % (old, cur)
    e.check(b"BYE" in body and want in body,
            "old agent: the reply is a BYE naming both versions: %r" % body[:160])
    ag = e.agent(["--coordinator=" + ep, "--plaintext", "--workers=1", "--once"], "new-agent")
    rc = co.wait(60)
    e.check(rc == 0, "old agent: the run with the real agent succeeded: exit %s" % rc)
    if rc == 0:
        d = e.load_json(j)
        e.check(d["control"]["refused_agents"] == 1,
                "old agent: counted as refused: %r" % d["control"])
    else:
        co.dump()
        ag.dump()


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    ck = e.path("kinds.csv")
    p, d, hlog, com = run(["--csv-kinds=" + ck], "kinds")
    t = d["totals"]
    kinds = t.get("kinds")
    if not e.check(kinds is not None and "point_selects" in kinds, "JSON totals have kinds"):
        e.finish()
    tx = t["transactions"]
    e.info("transactions %d, kinds %r, server Com delta %d" %
           (tx, {k: v["count"] for k, v in kinds.items()}, com))
    e.check(tx > 0 and kinds["point_selects"]["count"] == 10 * tx,
            "point_selects %d == 10 x transactions %d" % (kinds["point_selects"]["count"], tx))
    stmts = sum(v["count"] + v["errors"] for v in kinds.values())
    e.check(stmts == com, "sum over kinds %d == server Com_* delta %d" % (stmts, com))
    e.check(set(kinds) == {"point_selects", "simple_ranges", "sum_ranges", "order_ranges",
                           "distinct_ranges", "begin", "commit"},
            "oltp_read_only's kinds: %r" % sorted(kinds))
    ivs = {}
    for iv in d["intervals"]:
        for k, v in iv.get("kinds", {}).items():
            ivs[k] = ivs.get(k, 0) + v["count"]
    e.check(ivs == {k: v["count"] for k, v in kinds.items()},
            "intervals' kinds sum to the totals: %r" % ivs)
    text = p.text("out")
    rows = [l.split() for l in text.split("Latency by statement (ms):\n", 1)[-1].splitlines()]
    ps_row = [r for r in rows if r and r[0] == "point_selects"]
    e.check("Latency by statement (ms):" in text and len(ps_row) > 0 and
            int(ps_row[0][1]) == kinds["point_selects"]["count"],
            "text section with the point_selects row: %r" % (ps_row[:1],))
    with open(ck, encoding="utf-8") as f:
        crow = list(csv.DictReader(f))
    csum = {}
    for r in crow:
        csum[r["kind"]] = csum.get(r["kind"], 0) + int(r["count"])
    e.check(csum == {k: v["count"] for k, v in kinds.items()} and
            all(float(r["lat_p99_ms"]) >= float(r["lat_p50_ms"]) for r in crow),
            "--csv-kinds: %d rows, counts sum to the totals" % len(crow))
    java_check(hlog, kinds)

    p, d, _, _ = run(["--report-format=sysbench"], "strict")
    e.check("Latency by statement" not in p.text("out"),
            "--report-format=sysbench leaves the section out")
    e.check("kinds" in d["totals"], "strict: the kinds are still in the JSON")
    old_agent_case()
    e.finish()


if __name__ == "__main__":
    main()
