#!/usr/bin/env python3
"""e2e: the tpcc family distributed over real agents, against the sandbox
MariaDB, in both command-line styles.

  - `stampede tpcc prepare --warehouses=2 --agents=2`: create/load/index
    phases, tpcc_load's row counts (count.sql), "Loaded N rows" equal to the
    rows in the tables, the foreign keys of add_fkey_idx.sql;
  - `check` passes after the load and after a run (with --check-all the
    conditions 10-12 the run broke come back as notes, text and JSON); a corrupted district's
    d_next_o_id makes it fail (exit 1) naming condition 2 and the district;
  - `run --time=5 --warmup-time=2` lasts warmup + time, commits New-Orders
    (sum(d_next_o_id) grows), prints tpcc-mysql's <TpmC>; the same with
    --partition=warehouses; fewer warehouses than agents is refused (2);
  - `stampede tpcc_start -h l -S SOCKET ...` (localhost over the socket,
    only because -S named it); `-f FILE -t FILE` over 2 agents (tpcc-mysql's
    formats, a line per New-Order / commit as the JSON's kinds); a partial `tpcc_load -l 3 -m 2
    -n 2 -p PASS` (the password warning), invoked through a link named
    tpcc_load, reloads warehouse 2's customers and history only;
  - `cleanup` drops the 9 tables; then check and run fail (non-zero) saying
    to run prepare; an unreachable server fails with the agent's message;
  - the report's TPC-C response-time constraints (p90 per kind within
    5/5/5/80/20 s) match the JSON's window p90s; `run --find-capacity`
    without --slo takes them as its SLO.
"""
import os
import re
import time

import e2elib as e

DB = "tpcc_e2e"
TABLES = ["warehouse", "district", "customer", "history", "new_orders", "orders", "order_line",
          "item", "stock"]


def db():
    return e.db_opts(db=DB)


def tpcc(cmd, *extra, agents=2):
    return ["tpcc", cmd, "--agents=%d" % agents] + list(extra) + e.local_opts() + db()


def counts():
    return {t: int(e.sql("SELECT COUNT(*) FROM %s.%s" % (DB, t))[0][0]) for t in TABLES}


def tables_left():
    return int(e.sql("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='%s' "
                     "AND TABLE_NAME IN (%s)" % (DB, ",".join("'%s'" % t for t in TABLES)))[0][0])


def next_o_ids():
    return int(e.sql("SELECT SUM(d_next_o_id) FROM %s.district" % DB)[0][0])


def check_counts(w, what):
    c = counts()
    want = {"warehouse": w, "district": 10 * w, "customer": 30000 * w, "history": 30000 * w,
            "new_orders": 9000 * w, "orders": 30000 * w, "item": 100000, "stock": 100000 * w}
    bad = {t: (c[t], n) for t, n in want.items() if c[t] != n}
    e.check(not bad, "%s: row counts as tpcc_load's for %d warehouse(s): %s" %
            (what, w, bad or c))
    ol = int(e.sql("SELECT SUM(o_ol_cnt) FROM %s.orders" % DB)[0][0])
    e.check(c["order_line"] == ol and 5 * 30000 * w <= ol <= 15 * 30000 * w,
            "%s: order_line holds %d rows = sum(o_ol_cnt) %d, in 5..15 per order" %
            (what, c["order_line"], ol))
    return c


def test_prepare():
    t = time.monotonic()
    p = e.run_ok(tpcc("prepare", "--warehouses=2", "--threads=4"), "tpcc prepare", timeout=400)
    took = time.monotonic() - t
    out = p.text()
    e.info("prepare of 2 warehouses over 2 agents took %.1f s" % took)
    for phase in ("create:", "load:", "index:"):
        e.check(phase in out, "prepare prints its %s phase line" % phase)
    c = check_counts(2, "prepare")
    m = re.search(r"Loaded (\d+) rows in ([\d.]+) s \((\d+) rows/s\)", out)
    total = sum(c.values())
    e.check(m is not None and int(m.group(1)) == total,
            "prepare says 'Loaded %s rows', the tables hold %d" % (m.group(1) if m else "?", total))
    if m:
        e.info("load rate %s rows/s" % m.group(3))
    fks = int(e.sql("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE "
                    "CONSTRAINT_SCHEMA='%s'" % DB)[0][0])
    e.check(fks == 10, "add_fkey_idx.sql's 10 foreign keys exist after prepare (found %d)" % fks)
    if p.p.returncode != 0:
        p.dump()
        e.finish()


def check_ok(what):
    p = e.run_ok(tpcc("check", "--warehouses=2"), "tpcc check " + what, timeout=180)
    if p.p.returncode != 0:
        p.dump()


def check_notes():
    """After runs, check --check-all passes (exit 0), and the conditions
    10-12 tpcc-mysql's transactions break reach the coordinator's report:
    printed as "note (agent X): ..." and in --json's agents[].notes."""
    j = e.path("check-notes.json")
    p = e.run_ok(tpcc("check", "--warehouses=2", "--check-all", "--json=" + j),
                 "tpcc check --check-all after the runs", timeout=300)
    if p.p.returncode != 0:
        p.dump()
        return
    text = [l for l in p.text().splitlines() if l.startswith("note (agent ")]
    notes = [n for a in e.load_json(j).get("agents", []) for n in a.get("notes", [])]
    e.info("check notes: %d, e.g. %s" % (len(notes), text[:1]))
    e.check(text and all(re.search(r"condition 1[0-2] does not hold for warehouse [12]", l) and
                         "informational after a run" in l for l in text),
            "check prints conditions 10-12 as informational notes (%d lines)" % len(text))
    e.check(sorted(notes) == sorted(l.split(": ", 1)[1] for l in text),
            "--json agents[].notes hold the same %d lines as the text" % len(notes))


def test_check_fails():
    e.sql("UPDATE %s.district SET d_next_o_id = d_next_o_id + 7 WHERE d_w_id=2 AND d_id=3" % DB)
    p = e.stampede(tpcc("check", "--warehouses=2"))
    rc = p.wait(180)
    text = p.text("out") + "\n" + p.text("err")
    e.check(rc == 1, "check of a corrupted district exits 1 (got %s)" % rc)
    if not e.check(re.search(r"condition 2\b", text) is not None and "district 3" in text and
                   "warehouse 2" in text,
                   "its message names condition 2, warehouse 2, district 3: %s" %
                   [l for l in text.splitlines() if "condition" in l][:3]):
        p.dump()
    e.sql("UPDATE %s.district SET d_next_o_id = d_next_o_id - 7 WHERE d_w_id=2 AND d_id=3" % DB)


def test_run():
    n0 = next_o_ids()
    s0 = e.status("Com_commit")
    t = time.monotonic()
    p = e.run_ok(tpcc("run", "--warehouses=2", "--threads=4", "--time=5", "--warmup-time=2"),
                 "tpcc run --time=5 --warmup-time=2", timeout=120)
    took = time.monotonic() - t
    n1 = next_o_ids()
    s1 = e.status("Com_commit")
    e.check(took >= 7.0, "the run lasts warmup + time: %.1f s (want >= 7)" % took)
    e.check(n1 > n0, "New-Orders committed: sum(d_next_o_id) grew by %d" % (n1 - n0))
    e.check(s1["Com_commit"] > s0["Com_commit"],
            "the server counted %d commits" % (s1["Com_commit"] - s0["Com_commit"]))
    m = re.search(r"^\s+([\d.]+) TpmC$", p.text(), re.M)
    e.check(m is not None and float(m.group(1)) > 0,
            "the report ends with tpcc-mysql's <TpmC> line: %s" % (m.group(0).strip() if m else None))
    e.check("Latency by kind (ms): the five transactions" in p.text() and
            re.search(r"^\s+new_order_stmt\s+\d+", p.text(), re.M) is not None,
            "the per-kind table has tpcc's title and a new_order_stmt row")
    if p.p.returncode != 0:
        p.dump()
    exact_run()

    n0 = next_o_ids()
    p = e.run_ok(tpcc("run", "--warehouses=2", "--threads=2", "--time=3", "--warmup-time=1",
                      "--partition=warehouses"), "tpcc run --partition=warehouses", timeout=120)
    e.check(next_o_ids() > n0, "with home warehouses New-Orders are committed too (+%d)" %
            (next_o_ids() - n0))
    p = e.stampede(tpcc("run", "--warehouses=1", "--partition=warehouses"))
    rc = p.wait(30)
    e.check(rc == 2 and "fewer than the 2 agents" in p.text("err"),
            "--partition=warehouses with 1 warehouse and 2 agents: exit %s, %s" %
            (rc, p.text("err").strip()[:200]))


def exact_run():
    """3 agents: TpmC in the text == the JSON's; the JSON's New-Order
    commits (new_order - rollback kinds, whole run) == the server's
    sum(d_next_o_id) growth; COMMIT + ROLLBACK kinds == the server's
    Com_commit + Com_rollback delta; the agents' kinds add up to the merged."""
    j = e.path("tpcc-exact.json")
    n0 = next_o_ids()
    s0 = e.status("Com_commit", "Com_rollback")
    p = e.run_ok(tpcc("run", "--warehouses=2", "--threads=6", "--time=6", "--warmup-time=1",
                      "--report-interval=2", "--json=" + j, "--threshold=tpmC>=1",
                      "--threshold=new_order.p90<5s", agents=3),
                 "tpcc run over 3 agents --json", timeout=120)
    n1 = next_o_ids()
    s1 = e.status("Com_commit", "Com_rollback")
    if p.p.returncode != 0:
        return
    d = e.load_json(j)
    tc, kinds = d.get("tpcc", {}), d["totals"].get("kinds", {})
    m = re.search(r"^\s+([\d.]+) TpmC$", p.text(), re.M)
    e.check(m is not None and "%.3f" % tc.get("tpmC", -1) == m.group(1),
            "TpmC: text %s == JSON %s" % (m.group(1) if m else None, tc.get("tpmC")))
    th = {t["expr"]: t for t in d.get("thresholds", [])}
    tp, no = th.get("tpmC>=1", {}), th.get("new_order.p90<5s", {})
    e.check(tp.get("passed") is True and tp.get("unit") == "tpmC"
            and abs(tp.get("measured", -1) - tc.get("tpmC", -2)) <= 0.0005
            and no.get("passed") is True and no.get("measured", -1) > 0,
            "--threshold tpmC>=1 measured the summary's tpmC %s (%s); new_order.p90<5s: %s"
            % (tc.get("tpmC"), tp, no.get("measured")))
    def kc(k, f="count"):  # a kind that never happened is left out of the JSON
        return kinds.get(k, {}).get(f, 0)
    committed = kc("new_order") - kc("rollback")
    e.check(committed == n1 - n0 and committed > 0,
            "New-Order commits: JSON new_order %d - rollback %d == server sum(d_next_o_id) "
            "growth %d" % (kc("new_order"), kc("rollback"), n1 - n0))
    client = sum(kc(k) + kc(k, "errors") for k in ("commit", "rollback", "retry_rollback"))
    server = (s1["Com_commit"] - s0["Com_commit"]) + (s1["Com_rollback"] - s0["Com_rollback"])
    e.check(client == server and tc.get("server_check", {}).get("match") is True,
            "COMMIT + ROLLBACK: kinds %d == server Com_commit + Com_rollback delta %d (report: %s)"
            % (client, server, tc.get("server_check")))
    agents = d.get("agents", [])
    e.check(len(agents) == 3 and all(a.get("transactions", 0) > 0 for a in agents),
            "all 3 agents ran transactions")
    spec_constraints(p.text(), tc)


SPEC_P90_MS = {"new_order": 5000, "payment": 5000, "order_status": 5000, "delivery": 80000,
               "stock_level": 20000}
LABELS = {"new_order": "New-Order", "payment": "Payment", "order_status": "Order-Status",
          "delivery": "Delivery", "stock_level": "Stock-Level"}


def spec_constraints(text, tc):
    """TPC-C's response-time constraints (clause 5.2.5.4) in the report: each
    kind's line is its window p90 (the JSON's transactions[k].p90_ms) against
    5/5/5/80/20 s, [OK] when within; the JSON's p90_response_time says the same."""
    spec = tc.get("constraints", {}).get("p90_response_time", {})
    for k, limit in SPEC_P90_MS.items():
        x = tc["transactions"][k]
        n = x["sc"] + x["lt"]
        want_ok = n > 0 and x["p90_ms"] <= limit
        m = re.search(r"^    %s +p90 +([\d.]+) ms <= +(\d+) s \[(OK|NG)\]" % re.escape(LABELS[k]),
                      text, re.M)
        e.check(m is not None and float(m.group(1)) == round(x["p90_ms"], 3) and
                int(m.group(2)) * 1000 == limit and (m.group(3) == "OK") == want_ok and
                spec.get(k) == {"p90_ms": x["p90_ms"], "limit_ms": limit, "ok": want_ok},
                "TPC-C constraint %s: text %r, JSON %r (window p90 %s ms of %d)"
                % (k, m and m.group(0).strip(), spec.get(k), x["p90_ms"], n))
    e.check(tc["constraints"].get("p90_all_ok") == all(v["ok"] for v in spec.values()),
            "TPC-C constraints: p90_all_ok %r" % tc["constraints"].get("p90_all_ok"))


def capacity_default_slo():
    """run --find-capacity without --slo: the SLO is TPC-C's constraints, one
    --threshold per kind in each step's run (its warm-up by --warmup-time);
    --capacity-max-trials=2 ends it (two short steps)."""
    d, j = e.path("tpcc-cap"), e.path("tpcc-cap.json")
    p = e.stampede(tpcc("run", "--warehouses=2", "--threads=2", "--find-capacity",
                        "--capacity-start=20", "--capacity-max-trials=2", "--capacity-trial=2",
                        "--capacity-warmup=1", "--capacity-dir=" + d, "--json=" + j, agents=1))
    rc = p.wait(120)
    e.info(p.text() + p.text("err"))
    want = ["%s.p90<=%ds" % (k, v // 1000) for k, v in SPEC_P90_MS.items()]
    if not e.check(rc == 0 and os.path.exists(j), "tpcc --find-capacity: exit %s (want 0)" % rc):
        p.dump()
        return
    cap = e.load_json(j)
    steps = cap["steps"]
    e.check(cap["capacity"]["slo"] == want and "under the SLO %s:" % ",".join(want) in p.text(),
            "tpcc --find-capacity without --slo: the SLO is TPC-C's constraints %r"
            % cap["capacity"]["slo"])
    for s in steps:
        run = e.load_json(s["file"])
        tc = run.get("tpcc", {})
        e.check([t["expr"] for t in run["thresholds"]] == want and tc.get("warmup_s") == 1 and
                tc.get("window_s") == 2 and run["agents"][0]["rate"] == s["rate"],
                "tpcc step %s/s: its run judged %r, warm-up %s s, window %s s"
                % (s["rate"], [t["expr"] for t in run["thresholds"]], tc.get("warmup_s"),
                   tc.get("window_s")))
        # Each term judged the report's window figure, not the whole run's.
        got = [(t["kind"], t["measured"], t["scope"]) for t in run["thresholds"]]
        x = tc.get("transactions", {})
        exp = [(k, x[k]["p90_ms"] if x[k]["sc"] + x[k]["lt"] > 0 else None, "window")
               for k in SPEC_P90_MS]
        e.check(got == exp, "tpcc step %s/s: thresholds measured the window p90s %r (got %r)"
                % (s["rate"], exp, got))
    e.check([s["rate"] for s in steps if not s["retried"]] == [20, 40] and
            "--capacity-max-trials=2" in (cap["capacity"]["stopped"] or ""),
            "tpcc --find-capacity: steps %r, stopped %r"
            % ([s["rate"] for s in steps], cap["capacity"]["stopped"]))


def test_tpcc_start():
    """tpcc-mysql's spelling, localhost over the socket -S names."""
    n0 = next_o_ids()
    args = ["tpcc_start", "-h", "l", "-S", e.env("SOCKET"), "-d", DB, "-u", e.env("USER", "sbtest"),
            "-w", "2", "-c", "2", "-r", "1", "-l", "3", "-i", "1", "--agents=1"] + e.local_opts()
    p = e.run_ok(args, "stampede tpcc_start -h l -S SOCKET -w 2 -c 2 -r 1 -l 3 -i 1", timeout=120)
    e.check(next_o_ids() > n0, "tpcc_start committed New-Orders (+%d)" % (next_o_ids() - n0))
    if p.p.returncode != 0:
        p.dump()
    trx_files()


def shifted_agent_bin():
    """An --agent-bin whose agents' wall clocks are off (clockshift.c): the
    first agent started an hour ahead, the others half an hour behind, their
    monotonic clocks right. None without the shim (the agents as built)."""
    shim = os.environ.get("STAMPEDE_TEST_CLOCKSHIFT", "")
    if not os.path.exists(shim):
        e.info("no STAMPEDE_TEST_CLOCKSHIFT shim: the agents' clocks are the host's")
        return None
    d = e.path("clockshift")
    os.makedirs(d, exist_ok=True)
    w = os.path.join(d, "stampede-agent")
    with open(w, "w") as f:
        f.write("#!/bin/sh\n"
                "if mkdir '%s/first' 2>/dev/null; then s=3600; else s=-1800; fi\n"
                "STAMPEDE_TEST_CLOCK_SHIFT_S=$s LD_PRELOAD='%s' "
                "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" "
                "exec '%s' \"$@\"\n" % (d, shim, e.AGENT))
    os.chmod(w, 0o755)
    return w


# tpcc_start -0..-4 that are not bucket boundaries of the histograms (3
# significant digits: 16 us buckets from 16.384 ms, 32 us from 32.768 ms).
LIMITS = {"new_order": 17, "payment": 19, "order_status": 21, "delivery": 33, "stock_level": 17}


def trx_files():
    """tpcc_start -f FILE -t FILE -0 17 .. -4 17 over 2 agents whose wall
    clocks are an hour ahead and half an hour behind: both files in
    tpcc-mysql's line formats; -f has a line per completed New-Order (the
    JSON's whole-run new_order count), -t one per commit (new_order -
    rollback), time_count in tpcc_start's steps, t_num over both agents'
    connections; -t's stamps in the coordinator's clock (within the run, in
    finish order); sc + lt exact at limits that are not bucket boundaries
    (limits())."""
    rt, trx, j = e.path("rt.txt"), e.path("trx.txt"), e.path("trx-files.json")
    c, r, l, i = 4, 1, 4, 2
    limits = []
    for n, x in enumerate(LIMITS.values()):
        limits += ["-%d" % n, str(x)]
    bin_opts = e.local_opts()
    shifted = shifted_agent_bin()
    if shifted:
        bin_opts = ["--agent-bin=" + shifted]
    args = ["tpcc_start", "-h", e.env("HOST", "127.0.0.1"), "-P", e.env("PORT"), "-d", DB, "-u",
            e.env("USER", "sbtest"), "-w", "2", "-c", str(c), "-r", str(r), "-l", str(l), "-i",
            str(i), "-f", rt, "-t", trx, "--agents=2", "--json=" + j] + limits + bin_opts
    wall0 = time.time_ns()
    p = e.run_ok(args, "stampede tpcc_start -f FILE -t FILE -0 17 ... --agents=2 (clocks off: %s)"
                 % bool(shifted), timeout=120)
    wall1 = time.time_ns()
    if p.p.returncode != 0:
        p.dump()
        return
    kinds = e.load_json(j)["totals"].get("kinds", {})
    no = kinds.get("new_order", {}).get("count", 0)
    rb = kinds.get("rollback", {}).get("count", 0)
    f_re = re.compile(r"^(\d+) (\d+\.\d{3})$")
    t_re = re.compile(r"^t_num: (\d+) finish: (\d+) (\d+) start: (\d+) (\d+)$")
    f_lines = open(rt).read().splitlines()
    t_lines = open(trx).read().splitlines()
    f_bad = [x for x in f_lines if not f_re.match(x)]
    t_bad = [x for x in t_lines if not t_re.match(x)]
    e.check(not f_bad and not t_bad,
            "-f and -t lines parse in tpcc-mysql's formats (bad: %s %s)" % (f_bad[:2], t_bad[:2]))
    e.info("-f: %d lines, -t: %d lines; JSON new_order %d, rollback %d" %
           (len(f_lines), len(t_lines), no, rb))
    e.check(no > 0 and len(f_lines) == no,
            "-f: a line per completed New-Order: %d == JSON new_order %d" % (len(f_lines), no))
    e.check(len(t_lines) == no - rb,
            "-t: a line per New-Order commit: %d == JSON new_order - rollback %d" %
            (len(t_lines), no - rb))
    steps = sorted({int(f_re.match(x).group(1)) for x in f_lines if f_re.match(x)})
    e.check(set(steps) <= set(range(0, (l // i) * i + 1, i)) and 0 in steps and i in steps,
            "-f time_count in tpcc_start's steps of -i %d up to %d: %s" % (i, (l // i) * i, steps))
    rts = [float(f_re.match(x).group(2)) for x in f_lines if f_re.match(x)]
    nmax = kinds.get("new_order", {}).get("latency_ms", {}).get("max")
    e.check(rts and min(rts) > 0 and (nmax is None or max(rts) <= nmax * 1.01 + 0.001),
            "-f rt_ms > 0 and <= the kind's max (%s .. %s, JSON max %s)" %
            (min(rts) if rts else None, max(rts) if rts else None, nmax))
    t = [tuple(int(g) for g in t_re.match(x).groups()) for x in t_lines if t_re.match(x)]
    nums = {x[0] for x in t}
    ok = all(x[2] < 10**9 and x[4] < 10**9 and (x[3], x[4]) <= (x[1], x[2]) for x in t)
    e.check(ok, "-t: finish after start, nanoseconds < 1e9")
    # The common epoch: every stamp on the coordinator's clock (this host's),
    # inside the run, whatever the agents' wall clocks said.
    out = [x for x in t if not wall0 <= x[3] * 10**9 + x[4] <= x[1] * 10**9 + x[2] <= wall1]
    offs = [a.get("clock_offset_ms") for a in e.load_json(j).get("agents", [])]
    e.check(t and not out,
            "-t: %d stamps within the run on the coordinator's clock [%.3f, %.3f] s (agent "
            "clocks off by +3600/-1800 s: %s; clock_offset_ms %s): %d outside, first %s" %
            (len(t), wall0 / 1e9, wall1 / 1e9, bool(shifted), offs, len(out), out[:1]))
    e.check(nums <= set(range(c)) and len(nums) == c,
            "-t t_num covers the %d connections of both agents: %s" % (c, sorted(nums)))
    # Global completion order over both agents (one host, one clock): a line
    # that finished more than 50 ms before the line above it would be an
    # agent's interval written after the other's.
    fin = [x[1] * 10**9 + x[2] for x in t]
    back = [(a - b) / 1e6 for a, b in zip(fin, fin[1:]) if a - b > 50 * 10**6]
    e.info("-t: %d lines, %d step back more than 50 ms (largest %.1f ms)" %
           (len(fin), len(back), max(back) if back else 0.0))
    e.check(len(fin) > 10 and not back,
            "-t lines in global finish order across the 2 agents (%d steps back > 50 ms)" %
            len(back))
    e.check(e.load_json(j)["tpcc"].get("trx_records_lost") == 0,
            "--json tpcc.trx_records_lost is there: 0 records dropped")
    limits_exact(p, e.load_json(j), f_lines, f_re)
    full_files()
    bad = e.path("no-such-dir/trx.txt")
    p = e.stampede(["tpcc_start", "-t", bad, "-w", "2"] + e.local_opts())
    rc = p.wait(30)
    e.check(rc == 2 and ("--trx-file=" + bad) in p.text("err") and "cannot create" in p.text("err"),
            "-t in a missing directory: exit %s before anything runs: %s" %
            (rc, p.text("err").strip().splitlines()[:1]))


def limits_exact(p, d, f_lines, f_re):
    """sc/lt at limits that are not bucket boundaries (issue 30 §6): the
    agents count each transaction against its limit as it ends, so sc + lt
    is every transaction of the window, per agent too, and lt (whole run,
    the kinds' late) equals the -f file's New-Orders at or over 17 ms,
    counted here from their rt (tpcc_start: `rt < limit` is sc)."""
    tc, kinds = d.get("tpcc", {}), d["totals"].get("kinds", {})
    txns, agents = tc.get("transactions", {}), tc.get("agents", [])
    for name, ms in LIMITS.items():
        x = txns.get(name, {})
        per = [a["transactions"].get(name, {}) for a in agents]
        e.check(x.get("rt_limit_ms") == ms and len(per) == 2 and
                sum(a.get("sc", 0) for a in per) == x.get("sc") and
                sum(a.get("lt", 0) for a in per) == x.get("lt"),
                "%s: limit %s ms; sc %s, lt %s == the 2 agents' sums (%s)" %
                (name, x.get("rt_limit_ms"), x.get("sc"), x.get("lt"),
                 [(a.get("sc"), a.get("lt")) for a in per]))
    no = txns.get("new_order", {})
    e.check(no.get("sc", 0) + no.get("lt", 0) == tc.get("new_orders", -1) > 0,
            "New-Order sc %s + lt %s == the window's New-Orders %s" %
            (no.get("sc"), no.get("lt"), tc.get("new_orders")))
    m = re.search(r"^  \[0\] sc:(\d+) lt:(\d+)  rt:", p.text(), re.M)
    e.check(m is not None and (int(m.group(1)), int(m.group(2))) == (no.get("sc"), no.get("lt")),
            "<Raw Results> [0] %s == the JSON's sc, lt" % (m.group(0).strip() if m else None))
    us = [int(f_re.match(x).group(2).replace(".", "")) for x in f_lines if f_re.match(x)]
    late = sum(1 for u in us if u >= LIMITS["new_order"] * 1000)
    bucket = sum(1 for u in us if 16992 <= u <= 17007)
    e.info("New-Order rt: %d of %d at or over 17 ms, %d in 17 ms's bucket [16.992, 17.007]" %
           (late, len(us), bucket))
    e.check(kinds.get("new_order", {}).get("late", 0) == late,
            "whole run: the kinds' new_order late %s == the -f lines with rt >= 17.000 ms %d" %
            (kinds.get("new_order", {}).get("late"), late))


def full_files():
    """-f /dev/full: the write fails at the close; exit 1 naming the file,
    the report still printed and --json still written."""
    j = e.path("full.json")
    args = ["tpcc_start", "-h", e.env("HOST", "127.0.0.1"), "-P", e.env("PORT"), "-d", DB, "-u",
            e.env("USER", "sbtest"), "-w", "2", "-c", "2", "-r", "0", "-l", "2", "-i", "1", "-f",
            "/dev/full", "--agents=1", "--json=" + j] + e.local_opts()
    p = e.stampede(args)
    rc = p.wait(120)
    err, out = p.text("err"), p.text("out")
    e.check(rc == 1 and "--report-file=/dev/full" in err and "writing the file failed" in err,
            "-f /dev/full: exit %s, %s" % (rc, [x for x in err.splitlines() if "full" in x][:1]))
    doc = e.load_json(j) if os.path.exists(j) else {}
    e.check("<TpmC>" in out and doc.get("tpcc", {}).get("trx_files_failed") is True and
            doc.get("tpcc", {}).get("new_orders", 0) > 0,
            "-f /dev/full: <TpmC> printed, --json written (new_orders %s, trx_files_failed %s)" %
            (doc.get("tpcc", {}).get("new_orders"), doc.get("tpcc", {}).get("trx_files_failed")))


def test_cleanup_and_missing():
    e.run_ok(tpcc("cleanup", "--warehouses=2"), "tpcc cleanup", timeout=120)
    e.check(tables_left() == 0, "cleanup dropped the 9 tables (%d left)" % tables_left())
    for cmd, extra in (("check", []), ("run", ["--time=2", "--warmup-time=0"])):
        p = e.stampede(tpcc(cmd, "--warehouses=2", *extra, agents=1))
        rc = p.wait(60)
        err = p.text("err")
        e.check(rc not in (0, None) and "run `stampede tpcc prepare` first" in err and
                "the workload's prepare command" not in err and
                re.search(r"does not exist|doesn't exist", err) is not None,
                "%s without tables: exit %s, says to run prepare: %s" %
                (cmd, rc, [l for l in err.splitlines() if "prepare" in l][:1]))


def test_tpcc_load():
    """A partial tpcc_load (-l 3 -m 2 -n 2: warehouse 2's customers and
    history only) with -p (warned), invoked through a link named tpcc_load."""
    e.sql("SET FOREIGN_KEY_CHECKS=0; DELETE FROM %s.history WHERE h_c_w_id=2; "
          "DELETE FROM %s.customer WHERE c_w_id=2" % (DB, DB))
    before = counts()
    link = e.path("tpcc_load")
    os.symlink(e.STAMPEDE, link)
    args = [link, "-h", e.env("HOST", "127.0.0.1"), "-P", e.env("PORT"), "-d", DB, "-u",
            e.env("USER", "sbtest"), "-p", e.env("PASSWORD"), "-w", "2", "-l", "3", "-m", "2",
            "-n", "2", "--agents=2"] + e.local_opts()
    p = e.Proc(args, env=dict(os.environ), name="tpcc_load")
    rc = p.wait(200)
    e.check(rc == 0, "tpcc_load -w 2 -l 3 -m 2 -n 2 (through a link named tpcc_load): exit %s" %
            rc)
    e.check("--mysql-password puts the password in the process list" in p.text("err"),
            "-p gives --mysql-password's warning")
    if rc != 0:
        p.dump()
    c = counts()
    w2 = [int(e.sql("SELECT COUNT(*) FROM %s.%s WHERE %s=2" % (DB, t, col))[0][0])
          for t, col in (("customer", "c_w_id"), ("history", "h_c_w_id"))]
    e.check(before["customer"] == 30000 and w2 == [30000, 30000] and
            c["orders"] == before["orders"] and c["stock"] == before["stock"],
            "the partial load put back warehouse 2's 30000 customers and history rows (%s), "
            "left the rest (orders %d -> %d, stock %d -> %d)" %
            (w2, before["orders"], c["orders"], before["stock"], c["stock"]))


def test_unreachable():
    port = e.free_port()
    p = e.stampede(["tpcc", "run", "--time=2", "--agents=1"] + e.local_opts() +
                   e.db_opts(port=port, db=DB))
    rc = p.wait(90)
    err = p.text("err")
    why = [l for l in err.splitlines() if "connect" in l.lower() or "2003" in l][:1]
    e.check(rc not in (0, None) and why, "an unreachable server: exit %s, %s" % (rc, why))


def main():
    e.need_sandbox()
    user = e.env("USER", "sbtest")
    e.sql("CREATE DATABASE IF NOT EXISTS %s; GRANT ALL ON %s.* TO '%s'@'%%'; "
          "GRANT ALL ON %s.* TO '%s'@'localhost'" % (DB, DB, user, DB, user))
    e.stampede(tpcc("cleanup")).wait(60)
    test_prepare()
    check_ok("after the load")
    test_check_fails()
    test_run()
    capacity_default_slo()
    check_ok("after the runs")
    check_notes()
    test_tpcc_start()
    test_tpcc_load()
    test_cleanup_and_missing()
    test_unreachable()
    e.sql("DROP DATABASE IF EXISTS %s" % DB)
    e.finish()


if __name__ == "__main__":
    main()
