#!/usr/bin/env python3
"""e2e: stampede compare, two targets interleaved (issue 28 §1).

Two real servers that differ in one setting that matters: the test's
sandbox (innodb_flush_log_at_trx_commit=2, deploy/sandbox-db's default)
and a second sandbox started here with =1 (an fsync per commit). Both get
one 1000-row table; then

    stampede compare --repeat=4 --name-a=flush2 --name-b=flush1
        --a=--mysql-port=A --a=--mysql-password-file=... --b=... --dir=D
        --json=cmp.json --fail-if='tps<-5%' --junit=gates.xml
        -- oltp_update_index --time=2 --threads=2 ... run

  - the 8 runs go A B A B ... (the "=== compare run k of 8: NAME" lines in
    that order) and write D/flush2-1.json ... D/flush1-4.json;
  - the comparison: flush1 slower than flush2 on tps, significant (Welch
    p < 0.05, "flush1 is slower by"), at least 20% (an fsync per commit on
    this VM's disk costs several times the work of the update);
  - each group's values in --json are its runs' JSON tps, in run order;
  - the environment diff names innodb_flush_log_at_trx_commit 2 -> 1 (the
    configuration, apart from the data-set drift);
  - as the CI gate docs/guide.md's worked example is: --fail-if='tps<-5%'
    fails (exit 3, stderr names it, the JUnit file has 1 failure);
  - --before-b: a failing hook stops the comparison (exit 1, named, the
    runs before it kept); a second compare into the same --dir refuses to
    overwrite (exit 1); no command after "--": exit 2.
"""
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import e2elib as e

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.join(HERE, "..", "..", "deploy", "sandbox-db")
REPEAT = 4


def start_b():
    d = tempfile.mkdtemp(prefix="stampede-cmp-b.")
    p = subprocess.run([SANDBOX, "start", d, "--mariadbd-arg=--innodb-flush-log-at-trx-commit=1"],
                       capture_output=True, text=True, timeout=120)
    if not e.check(p.returncode == 0, "second sandbox (flush 1) started: %s" % p.stderr[-300:]):
        e.finish()
    return d


def side(port, pwfile):
    return ["--mysql-port=%s" % port, "--mysql-password-file=" + pwfile]


def base_cmd():
    return ["oltp_update_index", "--tables=1", "--table-size=1000", "--threads=2", "--time=2",
            "--mysql-host=" + e.env("HOST", "127.0.0.1"), "--mysql-user=" + e.env("USER", "sbtest"),
            "--mysql-db=" + e.env("DB", "sbtest")] + e.local_opts() + ["run"]


def compare(args, timeout=240):
    return subprocess.run([e.STAMPEDE, "compare"] + args, capture_output=True, text=True,
                          timeout=timeout, env={k: v for k, v in os.environ.items()
                                                if k != "MYSQL_PWD"})


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    pw_a = e.path("a.password")
    with open(os.open(pw_a, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(e.env("PASSWORD", "") + "\n")
    b = start_b()
    try:
        with open(os.path.join(b, "port")) as f:
            port_b = f.read().strip()
        pw_b = os.path.join(b, "password")
        e.run_ok(["oltp_update_index", "prepare", "--tables=1", "--table-size=1000",
                  "--mysql-host=127.0.0.1", "--mysql-port=" + port_b,
                  "--mysql-password-file=" + pw_b, "--mysql-user=sbtest", "--mysql-db=sbtest"]
                 + e.local_opts(), "prepare on the flush-1 server")
        sides = ["--a=" + x for x in side(e.env("PORT"), pw_a)] + \
                ["--b=" + x for x in side(port_b, pw_b)]
        d, j = e.path("cmp"), e.path("cmp.json")
        junit = e.path("gates.xml")
        p = compare(["--repeat=%d" % REPEAT, "--name-a=flush2", "--name-b=flush1", "--dir=" + d,
                     "--json=" + j, "--fail-if=tps<-5%", "--junit=" + junit] + sides + ["--"]
                    + base_cmd())
        out = p.stdout
        fails = ET.parse(junit).getroot().find("testsuite").get("failures") \
            if os.path.exists(junit) else None
        e.check(p.returncode == 3 and "gate failed: tps<-5%" in p.stderr and fails == "1",
                "compare with --fail-if='tps<-5%%': exit %d (a regression: 3), JUnit failures "
                "%s: %s" % (p.returncode, fails, p.stderr[-400:]))
        order = re.findall(r"^=== compare run (\d+) of (\d+): (\S+) \(repeat (\d+)\) ===$", out,
                           re.M)
        want = [(str(i + 1), str(2 * REPEAT), ("flush2", "flush1")[i % 2], str(i // 2 + 1))
                for i in range(2 * REPEAT)]
        e.check(order == want, "runs interleaved A B A B: %s" % order)
        files = sorted(os.listdir(d)) if os.path.isdir(d) else []
        e.check(files == sorted("%s-%d.json" % (n, r) for n in ("flush1", "flush2")
                                for r in range(1, REPEAT + 1)), "run files in --dir: %s" % files)
        print(out[out.find("Groups compared"):][:1500])
        doc = e.load_json(j) if os.path.exists(j) else {}
        tps = [f for f in doc.get("figures", []) if f["figure"] == "tps"]
        tps = tps[0] if tps else {}
        vals = [[g["group"], g["values"]] for g in tps.get("groups", [])]
        want_vals = [[n, [e.load_json(os.path.join(d, "%s-%d.json" % (n, r)))["totals"]["tps"]
                          for r in range(1, REPEAT + 1)]] for n in ("flush2", "flush1")]
        e.check(vals == want_vals, "--json: each side's values its runs' tps: %s" % vals)
        c = (tps.get("comparisons") or [{}])[0]
        e.check(c.get("significant") is True and c.get("better") is False
                and c.get("diff_pct", 0) <= -20
                and c.get("verdict", "").startswith("flush1 is slower by"),
                "flush1 (an fsync per commit) significantly slower: %+.1f%%, Welch p %s: %s"
                % (c.get("diff_pct", 0), c.get("welch_p"), c.get("verdict")))
        e.check(re.search(r"^    innodb_flush_log_at_trx_commit 2 → 2 → .*→ 1$", out, re.M)
                is not None, "the environment diff names innodb_flush_log_at_trx_commit 2 → 1")
        # Bad input: a failing hook, a --dir in use, no command.
        d2 = e.path("cmp2")
        p = compare(["--repeat=2", "--dir=" + d2, "--before-b=exit 7"] + sides + ["--"]
                    + base_cmd())
        e.check(p.returncode == 1 and "--before-b command failed (exit 7) before run 2 of 4"
                in p.stderr and os.listdir(d2) == ["A-1.json"],
                "a failing --before-b: exit %d, named, run 1 kept (%s): %r"
                % (p.returncode, os.listdir(d2) if os.path.isdir(d2) else None, p.stderr[-300:]))
        p = compare(["--repeat=2", "--dir=" + d2] + sides + ["--"] + base_cmd())
        e.check(p.returncode == 1 and "nothing is overwritten" in p.stderr,
                "the same --dir again: exit %d, refused: %r" % (p.returncode, p.stderr[-200:]))
        p = compare(["--repeat=2"] + sides)
        e.check(p.returncode == 2 and "no command to run" in p.stderr,
                "no command after --: exit %d: %r" % (p.returncode, p.stderr[-200:]))
    finally:
        subprocess.run([SANDBOX, "stop", b], capture_output=True, timeout=60)
        shutil.rmtree(b, ignore_errors=True)
    e.finish()


if __name__ == "__main__":
    main()
