#!/usr/bin/env python3
"""e2e: stampede report --group compares repeat groups with confidence
(issue 28 §1).

Nine real open-loop runs of oltp_point_select (2 connections, 2 s each,
--rate-mode=uniform so that a run's tps is its rate give or take a few events):
three at --rate=150 (group A), three at --rate=300 (B), three more at
--rate=150 (C). Then `stampede report --group=A ... --group=B ...
--group=C ...`:
  - B vs A on tps: "B is faster by" about 100% (the printed difference
    within 90-110%), Welch p < 0.01, its interval excluding 0, the rank
    test's exact p and the bootstrap ratio of medians (about 2) printed;
  - C vs A on tps (the same setup): never a large difference: either "no
    significant difference" with the runs-per-side estimate, or (a 5%
    chance for any honest test) a significant one under 5%;
  - each group's n is 3 and its mean the mean of its runs' JSON tps;
  - a file before the first --group is refused (exit 2, named).
And as a regression gate (--fail-if, --junit): A then B with
--fail-if='tps<-5%' passes (exit 0); B then A fails (exit 3, stderr names
the gate, the JUnit file has 1 failure of 1 test case); A then C passes (no
significant fall); --baseline=B1.json A1.json (one run a side) fails on the
difference alone and says so.
As data and on the page: --json=FILE holds the same comparison (each
group's values its runs' JSON tps, B vs A significant and better, the
text's Welch p); -o draws it in headless Chromium: B's tps row marked
sig-better, the chart's floating bars the JSON's 95% intervals, its means
and all 9 runs.
The statistics themselves are checked against R and SciPy in the unit test
test_co_rpt_stats.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET
import statistics
import subprocess

import e2elib as e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import cdp  # noqa: E402


def runs(name, rate):
    paths = []
    for i in range(3):
        j = e.path("%s%d.json" % (name, i))
        e.run_ok(["oltp_point_select", "run", "--tables=1", "--table-size=1000", "--threads=2",
                  "--time=2", "--rate=%d" % rate, "--rate-mode=uniform", "--json=" + j] + e.local_opts() + e.db_opts(),
                 "%s run %d" % (name, i))
        paths.append(j)
    return paths


def report(args):
    return subprocess.run([e.STAMPEDE, "report"] + args, capture_output=True, text=True,
                          timeout=60)


def json_checks(a, b, c, out):
    """--json=FILE: the same comparison as data; the text is made from it."""
    j = e.path("groups.json")
    p = report(["--group=A"] + a + ["--group=B"] + b + ["--group=C"] + c + ["--json=" + j])
    e.check(p.returncode == 0 and p.stdout == out, "--json: exit %d, the same text on stdout"
            % p.returncode)
    d = e.load_json(j)
    fig = {f["figure"]: f for f in d.get("figures", [])}
    tps = fig.get("tps", {})
    vals = {g["group"]: g["values"] for g in tps.get("groups", [])}
    want = {n: [e.load_json(x)["totals"]["tps"] for x in ps] for n, ps in
            (("A", a), ("B", b), ("C", c))}
    e.check(d.get("baseline") == "A" and list(fig) == ["tps", "qps", "p95", "p99"]
            and vals == want,
            "JSON: baseline A, figures tps qps p95 p99, each group's values its runs' JSON tps: "
            "%r" % vals)
    ba = (tps.get("comparisons") or [{}])[0]
    m = re.search(r"B vs A: .*Welch p=(\S+);", out)
    e.check(ba.get("group") == "B" and ba.get("significant") is True and ba.get("better") is True
            and 90 <= ba.get("diff_pct", 0) <= 110 and ba.get("ci_low_pct", 0) > 0
            and m is not None and "%.3g" % ba.get("welch_p", -1) == m.group(1)
            and ba.get("verdict", "").startswith("B is faster by"),
            "JSON: B vs A on tps significant and better, +%.1f%%, Welch p %s (the text's %s): %s"
            % (ba.get("diff_pct", 0), ba.get("welch_p"), m and m.group(1), ba.get("verdict")))
    q = report(["--json=" + j] + a)
    e.check(q.returncode == 2 and "--json" in q.stderr,
            "--json without groups: exit 2, said: %r" % q.stderr[-200:])
    return d


PAGE_JS = r"""(() => {
  const rows = [...document.querySelectorAll('#groups-table tr[data-fig="tps"]')];
  const ch = Chart.getChart('grp-tps');
  return {rows: rows.map(r => [r.getAttribute('data-group'), r.className]),
    bars: ch.data.datasets[0].data, means: ch.data.datasets[1].data,
    runs: ch.data.datasets[2].data.length, labels: ch.data.labels};
})()"""


def page_checks(a, b, c):
    """-o with groups: the section marks B's tps row significant and better,
    and its chart draws each group's interval, mean and runs from the JSON."""
    exe = cdp.find_chromium()
    if not e.check(exe is not None, "chromium is installed (deploy/install-deps)"):
        return
    html, j = e.path("groups.html"), e.path("groups2.json")
    p = report(["--group=A"] + a + ["--group=B"] + b + ["--group=C"] + c + ["-o", html,
                                                                            "--json=" + j])
    if not e.check(p.returncode == 0, "report -o with groups: exit %d %s"
                   % (p.returncode, p.stderr[-300:])):
        return
    tps = [f for f in e.load_json(j)["figures"] if f["figure"] == "tps"][0]
    browser = cdp.Browser(exe)
    try:
        browser.open("file://" + html)
        e.check(not browser.errors(), "no console error: %s" % browser.errors()[:3])
        got = browser.eval(PAGE_JS)
        cls = dict(got["rows"])
        want_bars = [[g["ci_low"], g["ci_high"]] for g in tps["groups"]]
        e.check(cls.get("A") == "baseline" and cls.get("B") == "sig-better"
                and cls.get("C") in ("not-sig", "sig-better", "sig-worse"),
                "page: the tps rows marked A baseline, B sig-better: %r" % got["rows"])
        e.check(got["labels"] == ["A", "B", "C"] and got["runs"] == 9
                and got["bars"] == want_bars
                and got["means"] == [g["mean"] for g in tps["groups"]],
                "page: the tps chart draws the JSON's intervals %r, means and 9 runs: %r"
                % (want_bars, got))
    finally:
        browser.close()


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    a, b, c = runs("a", 150), runs("b", 300), runs("c", 150)
    p = report(["--group=A"] + a + ["--group=B"] + b + ["--group=C"] + c)
    out = p.stdout
    print(out[out.find("Groups compared"):])
    e.check(p.returncode == 0, "report exit 0: %s" % p.stderr[-300:])
    for name, paths in (("A", a), ("B", b), ("C", c)):
        want = statistics.mean(e.load_json(x)["totals"]["tps"] for x in paths)
        m = re.search(r"^    tps +%s +(\d+) +[0-9.]+ +([0-9.]+) " % name, out, re.M)
        e.check(m is not None and m.group(1) == "3" and abs(float(m.group(2)) - want) < 0.001,
                "group %s: n 3, mean tps %s == the mean of its runs' JSON tps %.3f"
                % (name, m and m.group(2), want))
    tps = out[out.find("Groups compared"):].split("\n    qps ")[0]
    m = re.search(r"B vs A: \+([0-9.]+)% \(95% CI \+([0-9.]+)% to \+([0-9.]+)%\), Welch p=(\S+);"
                  r" Mann-Whitney p=(\S+) \(exact\); ratio of medians ([0-9.]+)", tps)
    v = re.search(r"verdict: B is faster by ([0-9.]+)%", tps)
    e.check(m is not None and v is not None and 90 <= float(m.group(1)) <= 110
            and float(m.group(4)) < 0.01 and 1.8 <= float(m.group(6)) <= 2.2,
            "B vs A: faster by about 100%%, Welch p < 0.01, ratio of medians about 2: %s / %s"
            % (m and m.groups(), v and v.group(0)))
    m = re.search(r"C vs A: ([+-][0-9.]+)%.*Welch p=(\S+);", tps)
    v = re.search(r"verdict: (.*)$", tps[tps.find("C vs A"):], re.M)
    same_ok = m is not None and v is not None and (
        (v.group(1).startswith("no significant difference at n=3/3")
         and "runs per side would resolve a 2% difference" in v.group(1))
        or abs(float(m.group(1))) < 5)
    e.check(same_ok, "C vs A (the same setup): no large difference claimed: %s; %s"
            % (m and m.groups(), v and v.group(1)))
    json_checks(a, b, c, out)
    page_checks(a, b, c)
    junit = e.path("gate.xml")
    gates = [("A", a, "B", b, 0), ("B", b, "A", a, 3), ("A", a, "C", c, 0)]
    for bn, bp, cn, cp, want in gates:
        g = report(["--group=" + bn] + bp + ["--group=" + cn] + cp
                   + ["--fail-if=tps<-5%", "--junit=" + junit])
        root = ET.parse(junit).getroot() if g.returncode in (0, 3) else None
        suite = root.find("testsuite") if root is not None else None
        fails = int(suite.get("failures")) if suite is not None else -1
        e.check(g.returncode == want and fails == (1 if want else 0)
                and suite.get("tests") == "1" and ("gate failed: tps<-5%" in g.stderr) == bool(want),
                "gate %s then %s, --fail-if=tps<-5%%: exit %d (want %d), JUnit failures %d: %s"
                % (bn, cn, g.returncode, want, fails, g.stdout[g.stdout.find("Gates:"):].strip()))
    g = report(["--baseline=" + b[0], a[0], "--fail-if=tps<-5%"])
    e.check(g.returncode == 3 and "n=1/1: no test, the difference alone decides" in g.stdout,
            "--baseline with one run a side: fails on the difference alone, saying so: %s"
            % g.stdout[g.stdout.find("Gates:"):].strip())
    bad = report([a[0], "--group=B"] + b)
    e.check(bad.returncode == 2 and a[0] in bad.stderr and "--group" in bad.stderr,
            "a file before the first --group: exit 2 naming it: %r" % bad.stderr[-200:])
    e.finish()


if __name__ == "__main__":
    main()
