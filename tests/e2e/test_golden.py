#!/usr/bin/env python3
"""e2e: today's outputs as golden files, apart from timings (issue 31).

The rule of the reorganisation (issue 31): behaviour does not change, the
sysbench-format output, JSON, CSV, hlog and TPC-C output are byte-identical
on golden runs before and after, apart from timings. This test is that
comparison. It makes small, fixed runs against the sandbox MariaDB and
compares each output, normalised, with its file in tests/golden/:

  1. `oltp_read_write prepare` (2 tables of 1000 rows, --rand-seed) - stdout;
  2. `oltp_read_write run --rand-seed=42 --events=1000 --time=0 --threads=2
     --agents=2 --partition=tables --rate=400 --rate-mode=uniform
     --report-interval=1 --histogram --json --csv --hdr-log` - stdout (the
     default report: sysbench's lines, the histogram, stampede's section),
     the JSON, the CSV, the hlog. --partition=tables gives each agent its own
     table (no deadlock retries: query and statement counts are exact);
     --rate with uniform gaps makes the run last at least 2.5 s whatever the
     machine's speed, so that there are always interval lines;
  3. the same with --report-format=sysbench, 600 events and --rand-seed=43
     - stdout (exactly sysbench 1.0.20's lines);
  4. `stampede report` of run 2's JSON - its text table;
  5. `tpcc prepare --warehouses=1 --agents=2 --foreign-keys=off` - stdout;
  6. `tpcc run --warehouses=1 --threads=2 --agents=2 --warmup-time=1 --time=2
     --report-interval=1 --json` - stdout (tpcc_start's report and
     stampede's section) and the JSON.

Normalisation ("apart from timings"): every word, label, line, blank line,
line order, JSON key, key order, nesting and type is kept, and so are the
numbers that are deterministic for these runs (option echoes, thread and
agent counts, transaction, event, query and per-kind statement counts of the
sysbench runs, rate limits, table names and counts); any other number
(rates, latencies, times, percentages, timestamps, the TPC-C run's counts,
server counters, sizes) becomes "#" in text and "<number>" in JSON, the
padding around it collapsing to one space (a Markdown table's column
widths too). Host names, the port, the tmp dir, the run id, the version,
kernel, CPU, git commit and the server's variables are masked too, and so
are the interval lines' thds, the server cross-check's verdict (match or
differ) and TPC-C's [OK]/[NG]. The files in tests/golden/ hold these
normalised forms (readable, diffable), not the raw outputs. What depends on timing only in how often it occurs is compared by
shape: the interval lines (their distinct normalised forms, in order of first
appearance), the histogram's rows, the JSON's `intervals` (not the length
but the shape of the fullest element, the first of those with the most
non-null values; inside it every number or null is "<number|null>" and
every bool "<bool>"; its `kinds` and `per_agent` likewise), the CSV's
rows (column counts; the header exactly), the hlog's data
lines (field counts and tags; comment lines normalised, the column header
exactly) plus the count of values per tag summed over the whole log (exact:
one per transaction or statement). Lines whose presence depends on timing
are dropped: an agent's "looks saturated" warning, an interval line's
[late]/[partial] marks, the TPC-C progress lines, tpcc's rollback and
retry_rollback kinds (the 1% of New-Orders rolled back on purpose and
deadlock retries) and its "events rolled back on purpose" line, in the
text and the JSON, and the JSON's "late" of a tpcc kind (written only when
not 0).

A difference fails the test with a unified diff of the normalised text, or
the JSON paths that differ (golden vs now).

Regenerating: run by hand with a sandbox's environment

    d=$(mktemp -d /tmp/sbx.XXXXXX); deploy/sandbox-db start $d; . $d/env
    tests/e2e/test_golden.py --update [STAMPEDE STAMPEDE_AGENT]
    deploy/sandbox-db stop $d

(the executables default to build/coordinator/stampede and
build/agent/stampede-agent) rewrites the files of tests/golden/ from today's
outputs and prints what changed. An update must be a deliberate output
change: commit it with the change that makes it, and name the outputs that
change in the commit message (a change to this normaliser needs --update
too, and says so). The golden files assume the sandbox's
user (sbtest), as tests/run sets it; the runs use databases of their own (sb_golden,
tpcc_golden), made and dropped here.
"""
import difflib
import json
import os
import re
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(ROOT, "tests", "golden")
UPDATE = "--update" in sys.argv[1:]
if UPDATE:
    sys.argv.remove("--update")
    if len(sys.argv) == 1:  # by hand: the build tree's executables
        sys.argv += [os.path.join(ROOT, "build", "coordinator", "stampede"),
                     os.path.join(ROOT, "build", "agent", "stampede-agent")]
sys.path.insert(0, HERE)

import e2elib as e  # noqa: E402

DB_TPCC = "tpcc_golden"
# The sysbench runs' own database: other tests share the sandbox's sbtest
# (and may run beside this one), and the JSON's environment lists every
# table of the schema under test.
DB_SB = "sb_golden"
SUBS = []  # (regex, placeholder): the tmp dir, the version, the port, the host

# ---------------------------------------------------------------- text


# A number, with a unit glued to it (1s, 2.5257s, 43.79%); not a part of
# a word, a version (1.0.20), a name (local-1, sbtest1) or an address.
NUM = re.compile(r"([ \t]*)(?<![\w.\-])(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(s|ms|%)?(?![\w.])"
                 r"([ \t]*)")


def mask_line(line, keep):
    """line with its numbers replaced by '#' (the padding around one made a
    single space), except in the spans the regexes of keep match (their
    group 'k' when they have one)."""
    saved = []

    def protect(m):
        g = "k" if "k" in m.re.groupindex else 0
        s, t = m.span(g)
        whole = m.group(0)
        saved.append(m.group(g))
        a, b = s - m.start(), t - m.start()
        # a private-use character: no digit, no word character
        return whole[:a] + chr(0xE000 + len(saved) - 1) + whole[b:]

    for rx in keep:
        line = rx.sub(protect, line)
    line = NUM.sub(lambda m: (" " if m.group(1) else "") + "#" + (m.group(3) or "") +
                   (" " if m.group(4) else ""), line)
    return re.sub("[\ue000-\ue0ff]", lambda m: saved[ord(m.group(0)) - 0xE000], line)


def substitute(text):
    for rx, ph in SUBS:
        text = rx.sub(ph, text)
    return text


def collapse(lines, pred):
    """Each run of consecutive lines for which pred holds becomes its
    distinct lines, in order of first appearance (the run's length depends
    on timing, the forms do not)."""
    out, run = [], []
    for line in lines + [None]:
        if line is not None and pred(line):
            if line not in run:
                run.append(line)
            continue
        out += run
        run = []
        if line is not None:
            out.append(line)
    return out


AGENT_ROW = re.compile(r"^(    local-\d+ +)\S+ +(\d+) ")
INTERVAL = re.compile(r"^\[ #s \] ")
HIST_ROW = re.compile(r"^ +\d+\.\d+ \|\**\s+\d+$")


def norm_text(text, keep=(), drop=()):
    """The normalised form of a report (see the docstring)."""
    text = substitute(text)
    out = []
    for line in text.split("\n"):
        if any(rx.search(line) for rx in drop):
            continue
        if HIST_ROW.match(line):
            out.append("<histogram row: value |bar count>")
            continue
        line = re.sub(r" \[(late|partial)\]", "", line)
        line = re.sub(r"\): (match|differ by .*)$", "): <match|differ>", line)
        line = AGENT_ROW.sub(r"\1<HOST> \2 ", line)
        if line.startswith("|"):  # a Markdown table: column widths follow the figures
            line = re.sub(r"-{3,}", "---", re.sub(r"[ \t]+", " ", line))
        out.append(mask_line(line, keep))
    out = collapse(out, lambda l: INTERVAL.match(l) is not None)
    out = collapse(out, lambda l: l.startswith("<histogram row"))
    return "\n".join(out)


K = re.compile
SB_KEEP = [
    K(r"^Number of threads: \d+$"), K(r"^Target transaction rate: \d+/sec$"),
    K(r"^Report intermediate results every \d+ second\(s\)$"), K(r"seed \(\d+\)"),
    K(r"\(ms,\d+%\)"), K(r"^ +(read|write|other|total): +\d+$"),
    K(r"^    (transactions|queries|ignored errors|reconnects): +\d+"),
    K(r"^    total number of events: +\d+$"), K(r"\d+th percentile"),
    K(r"^    events \(avg/stddev\): +[\d.]+/[\d.]+$"),
    K(r"^    [a-z_]+ +\d+ +\d+(?= )"),  # Latency by statement: kind, count, errors
    K(r"^    local-\d+ +<HOST> \d+"),  # Agents: name, host, conns
    K(r"^Creating and loading: .*"), K(r"^Loaded \d+ rows"),
]
SB_DROP = [K(r"^WARNING: agent local-\d+ looks saturated")]

TPCC_KEEP = [
    K(r"^option \w with value '.*'$"),
    K(r"^ *\[(warehouse|connection|rampup|measure)\]: .*$"),
    K(r"^RAMP-UP TIME\.\(\d+ sec\.\)$"), K(r"^ in \d+ sec\.$"), K(r"\(\d+\)$"),
    K(r"^  \[\d\]"), K(r"^ +\d+, trx:"), K(r"9[59]%:"), K(r"\(>= ?[\d.]+%\)"),
    K(r"at least \d+% passed"), K(r"\(\d+ s after a \d+ s warm-up\)"), K(r"\(the 1%\)"),
    K(r"^    local-\d+ +<HOST> \d+"),
    K(r"^load: warehouses .*"), K(r"^create: .*"),
]
TPCC_DROP = SB_DROP + [
    K(r"^\[ *\d+s \] rows loaded: "),  # prepare's progress lines
    K(r"^    (rollback|retry_rollback) "), K(r"^    events rolled back on purpose: "),
]


def norm_tpcc_text(text):
    text = re.sub(r" \[(OK|NG)\]( \*)?$", " [<OK|NG>]", text, flags=re.M)
    return norm_text(text, TPCC_KEEP, TPCC_DROP)


# ---------------------------------------------------------------- JSON


def match(path, pattern):
    """path: tuple of keys and indexes; pattern: 'a/*/b/**' ('*' one
    component, '**' the rest)."""
    parts = pattern.split("/")
    for i, p in enumerate(parts):
        if p == "**":
            return True
        if i >= len(path) or (p != "*" and p != str(path[i])):
            return False
    return len(parts) == len(path)


def rule(path, rules):
    for pattern, action in rules:
        if match(path, pattern):
            return action
    return None


def scalar(v, path, rules, version):
    act = rule(path, rules)
    if act == "any":
        return "<any>"
    if isinstance(v, bool):
        return "<bool>" if act == "mask" else v
    if isinstance(v, (int, float)):
        return v if act == "keep" else "<number>"
    if isinstance(v, str):
        if act == "mask":
            return "<string>"
        return "<VERSION>" if v == version else substitute(v)
    return v  # null


def leaves(v):
    """The number of non-null scalars in v."""
    if isinstance(v, dict):
        return sum(leaves(x) for x in v.values())
    if isinstance(v, list):
        return sum(leaves(x) for x in v)
    return v is not None


def norm_json(v, rules, version, path=(), loose=False):
    """The normalised tree. loose: inside an element compared by shape
    (intervals): numbers and nulls are '<number|null>', bools '<bool>'."""
    act = rule(path, rules)
    if act == "subtree":
        return "<%s>" % type(v).__name__
    if act == "shape" or (act == "shape-map" and isinstance(v, dict)):
        items = list(v.values()) if isinstance(v, dict) else v
        what = "<%s of varying length; the shape of its fullest element:>" % (
            "map" if isinstance(v, dict) else "array")
        if not items:
            return [what, None]
        # The first of those with the most non-null leaves: a tail interval
        # has no server_status, an agent not heard in time is a null.
        best = max(enumerate(items), key=lambda ix: (leaves(ix[1]), -ix[0]))[1]
        return [what, norm_json(best, rules, version, path + ("*",), True)]
    if isinstance(v, dict):
        return {k: norm_json(x, rules, version, path + (k,), loose) for k, x in v.items()}
    if isinstance(v, list):
        return [norm_json(x, rules, version, path + (i,), loose) for i, x in enumerate(v)]
    if loose and act != "keep":
        if isinstance(v, bool):
            return "<bool>"
        if v is None or isinstance(v, (int, float)):
            return "<number|null>"
    return scalar(v, path, rules, version)


COMMON_RULES = [
    ("run_id", "mask"), ("options/mysql-host", "mask"), ("options/mysql-port", "mask"),
    ("threads", "keep"), ("report_interval_s", "keep"), ("percentile", "keep"),
    ("intervals", "shape"), ("intervals/*/kinds", "shape-map"),
    ("intervals/*/per_agent", "shape"),
    ("agents/*/host", "mask"), ("agents/*/threads", "keep"), ("agents/*/rate", "keep"),
    ("agents/*/saturated", "mask"),
    ("agents/*/status", "keep"), ("agents/*/lost_at_s", "keep"),
    ("server/match", "mask"),
    ("environment/server", "subtree"),
    ("environment/dataset/table_count", "keep"), ("environment/dataset/unread", "any"),
    ("environment/agents/*/hostname", "mask"), ("environment/agents/*/kernel", "mask"),
    ("environment/agents/*/cpu_model", "mask"), ("environment/agents/*/connector_c", "mask"),
    ("environment/agents/*/git_commit", "mask"), ("environment/coordinator/git_commit", "mask"),
    ("control/**", "keep"), ("exit/**", "keep"),
    # the whole latency histograms (HdrHistogram V2, base64): their content is timing
    ("totals/histogram", "mask"), ("totals/kinds/*/histogram", "mask"),
    # the steady-state verdict names counts of intervals (timing); e2e_steady checks it
    ("steady_state/verdict", "mask"),
]
EXACT_COUNTERS = ["transactions", "reads", "writes", "other", "errors", "reconnects",
                  "unfinished", "rolled_back", "failed"]
SB_RULES = COMMON_RULES + [
    ("agents/*/transactions", "keep"), ("agents/*/queries", "keep"),
    ("agents/*/conns/*/0", "keep"),  # [events, time] per connection
    ("totals/transactions", "keep"), ("totals/queries/*", "keep"),
    ("totals/ignored_errors", "keep"), ("totals/reconnects", "keep"),
    ("totals/fairness/events_avg", "keep"), ("totals/fairness/events_stddev", "keep"),
    ("totals/kinds/*/count", "keep"), ("totals/kinds/*/errors", "keep"),
    ("server/client_statements", "keep"),
] + [("agents/*/counters/" + c, "keep") for c in EXACT_COUNTERS] + [
    ("totals/counters/" + c, "keep") for c in EXACT_COUNTERS]
TPCC_RULES = COMMON_RULES + [
    ("totals/kinds/rollback", "drop"), ("totals/kinds/retry_rollback", "drop"),
    ("intervals/*/kinds/rollback", "drop"), ("intervals/*/kinds/retry_rollback", "drop"),
    # a kind's "late" (events at or over its limit) is there only when not 0
    ("totals/kinds/*/late", "drop"), ("intervals/*/kinds/*/late", "drop"),
    ("totals/ignored_errors", "mask"),
    ("tpcc/window_s", "keep"), ("tpcc/warmup_s", "keep"), ("tpcc/time_s", "keep"),
    ("tpcc/report_interval_s", "keep"), ("tpcc/transactions/*/rt_limit_ms", "keep"),
    ("tpcc/agents/*/transactions/*/rt_limit_ms", "keep"),
    ("tpcc/constraints/*/*/min_pct", "keep"), ("tpcc/constraints/**", "mask"),
    ("tpcc/server_check/checked", "keep"), ("tpcc/server_check/match", "mask"),
    ("tpcc/trx_records_lost", "keep"),
]


def drop_keys(v, rules, path=()):
    """Remove the subtrees whose rule is 'drop' (present or not by timing)."""
    if isinstance(v, dict):
        return {k: drop_keys(x, rules, path + (k,)) for k, x in v.items()
                if rule(path + (k,), rules) != "drop"}
    if isinstance(v, list):
        return [drop_keys(x, rules, path + (i,)) for i, x in enumerate(v)]
    return v


def json_diffs(a, b, path="$"):
    """[(path, golden, now)] where the normalised trees differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in a:
            if k not in b:
                out.append((path + "." + k, "present", "missing"))
        for k in b:
            if k not in a:
                out.append((path + "." + k, "missing", "present: %s" % json.dumps(b[k])[:80]))
        common_a = [k for k in a if k in b]
        common_b = [k for k in b if k in a]
        if common_a != common_b:
            out.append((path, "keys in order %s" % common_a, "in order %s" % common_b))
        for k in common_a:
            out += json_diffs(a[k], b[k], path + "." + k)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(path, "%d elements" % len(a), "%d elements" % len(b))]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += json_diffs(x, y, "%s[%d]" % (path, i))
        return out
    if a != b or type(a) is not type(b):
        return [(path, json.dumps(a), json.dumps(b))]
    return []


# ---------------------------------------------------------------- CSV, hlog


def norm_csv(text):
    lines = text.rstrip("\n").split("\n")
    out = ["header: " + lines[0]]
    rows = lines[1:]
    out.append("rows: %s" % ("none" if not rows else "some (their number depends on timing)"))
    for n in sorted({len(r.split(",")) for r in rows}):
        out.append("a row of %d columns" % n)
    return "\n".join(out)


def norm_hlog(p):
    import hdrlog
    out, data, totals = [], [], {}
    with open(p) as f:
        text = substitute(f.read())
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("#"):
            line = re.sub(r"\w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2} \w+ \d{4}", "<DATE>", line)
            out.append(mask_line(line, []))
        elif line.startswith('"'):
            out.append(line)
        else:
            f = line.split(",")
            tag = f[0][4:] if f[0].startswith("Tag=") else None
            hist = hdrlog.decode(f[-1])
            totals[tag] = totals.get(tag, 0) + hist.total()
            form = "%d fields: %s#,#,#,<histogram>" % (len(f), "Tag=%s," % tag if tag else "")
            if form not in data:
                data.append(form)
    out.append("data lines (distinct forms, in order of first appearance):")
    out += ["  " + d for d in data]
    out.append("values per tag over the whole log:")
    out += ["  %s: %d" % (t or "(untagged: all agents merged)", n) for t, n in totals.items()]
    return "\n".join(out)


# ---------------------------------------------------------------- runs


def golden(name, now, kind="text"):
    """Compare (or with --update write) one output's normalised form."""
    p = os.path.join(GOLDEN, name)
    if kind == "json":
        now_text = json.dumps(now, indent=1) + "\n"
    else:
        now_text = now.rstrip("\n") + "\n"
    old_text = None
    if os.path.exists(p):
        with open(p) as f:
            old_text = f.read()
    if UPDATE:
        if old_text != now_text:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(p, "w") as f:
                f.write(now_text)
            e.info("updated tests/golden/%s" % name)
            if old_text is not None:
                sys.stdout.writelines(difflib.unified_diff(
                    old_text.splitlines(True), now_text.splitlines(True),
                    "tests/golden/" + name, "now"))
        else:
            e.info("tests/golden/%s unchanged" % name)
        return
    if old_text is None:
        e.check(False, "tests/golden/%s exists (run %s --update)" % (name, sys.argv[0]))
        return
    if kind == "json":
        diffs = json_diffs(json.loads(old_text), now)
        ok = e.check(not diffs, "%s: the normalised JSON is the golden one%s" % (
            name, "" if not diffs else " (%d paths differ)" % len(diffs)))
        if not ok:
            for path, a, b in diffs[:30]:
                print("    %s: golden %s, now %s" % (path, a, b))
        return
    ok = e.check(old_text == now_text, "%s: the normalised output is the golden one" % name)
    if not ok:
        sys.stdout.writelines(difflib.unified_diff(
            old_text.splitlines(True), now_text.splitlines(True),
            "tests/golden/" + name, name + " (now)"))


def read(p):
    with open(p) as f:
        return f.read()


def run(args, what, timeout=120):
    p = e.run_ok(args, what, timeout=timeout)
    if p.p.returncode != 0:
        e.finish()
    return p.text("out") + "\n"


def own_database(db):
    user = e.env("USER", "sbtest")
    e.sql("DROP DATABASE IF EXISTS %s; CREATE DATABASE %s; GRANT ALL ON %s.* TO '%s'@'%%'; "
          "GRANT ALL ON %s.* TO '%s'@'localhost'" % (db, db, db, user, db, user))


def sysbench_runs(version):
    sb = ["--tables=2", "--table-size=1000"]
    own_database(DB_SB)
    common = sb + e.local_opts() + e.db_opts(db=DB_SB)
    out = run(["oltp_read_write", "prepare", "--agents=1", "--rand-seed=42"] + common,
              "oltp_read_write prepare")
    golden("oltp_prepare.stdout.txt", norm_text(out, SB_KEEP, SB_DROP))

    files = {k: e.path("oltp." + k) for k in ("json", "csv", "hlog")}
    run_opts = ["--rand-seed=42", "--time=0", "--threads=2", "--agents=2",
                "--partition=tables", "--rate=400", "--rate-mode=uniform",
                "--report-interval=1", "--histogram"]
    out = run(["oltp_read_write", "run", "--events=1000"] + run_opts +
              ["--json=" + files["json"], "--csv=" + files["csv"],
               "--hdr-log=" + files["hlog"]] + common, "oltp_read_write run")
    golden("oltp_run.stdout.txt", norm_text(out, SB_KEEP, SB_DROP))
    golden("oltp_run.json", norm_json(drop_keys(e.load_json(files["json"]), SB_RULES), SB_RULES,
                                      version), "json")
    golden("oltp_run.csv.txt", norm_csv(read(files["csv"])))
    golden("oltp_run.hlog.txt", norm_hlog(files["hlog"]))

    # Another seed: with run 2's, its UPDATEs would write the values run 2
    # wrote, affect no row and count as "other", not "write" (as sysbench).
    out = run(["oltp_read_write", "run", "--events=600", "--report-format=sysbench"] +
              run_opts[1:] + ["--rand-seed=43"] + common,
              "oltp_read_write run --report-format=sysbench")
    golden("oltp_run_sysbench.stdout.txt", norm_text(out, SB_KEEP, SB_DROP))

    out = run(["report", files["json"]], "stampede report oltp.json", timeout=60)
    golden("report.stdout.txt", norm_text(out, SB_KEEP, SB_DROP))
    e.sql("DROP DATABASE IF EXISTS %s" % DB_SB)


def tpcc_runs(version):
    own_database(DB_TPCC)
    common = ["--warehouses=1", "--agents=2"] + e.local_opts() + e.db_opts(db=DB_TPCC)
    t = time.monotonic()
    out = run(["tpcc", "prepare", "--foreign-keys=off"] + common, "tpcc prepare", timeout=300)
    e.info("tpcc prepare of 1 warehouse took %.1f s" % (time.monotonic() - t))
    golden("tpcc_prepare.stdout.txt", norm_tpcc_text(out))

    j = e.path("tpcc.json")
    out = run(["tpcc", "run", "--threads=2", "--warmup-time=1", "--time=2", "--report-interval=1",
               "--json=" + j] + common, "tpcc run")
    golden("tpcc_run.stdout.txt", norm_tpcc_text(out))
    golden("tpcc_run.json", norm_json(drop_keys(e.load_json(j), TPCC_RULES), TPCC_RULES,
                                      version), "json")
    e.sql("DROP DATABASE IF EXISTS %s" % DB_TPCC)


def main():
    e.need_sandbox()
    t0 = time.monotonic()
    out = subprocess.run([e.STAMPEDE, "--version"], capture_output=True, text=True).stdout
    m = re.match(r"stampede (\S+) ", out)
    if not e.check(m is not None, "stampede --version names a version: %r" % out):
        e.finish()
    version = m.group(1)
    SUBS[:] = [(re.compile(re.escape(e.tmpdir())), "<TMP>"),
               (re.compile(r"\bstampede " + re.escape(version) + r"\b"), "stampede <VERSION>"),
               (re.compile(r"(?<![\w.])" + re.escape(e.env("PORT")) + r"(?![\w.])"), "<PORT>"),
               (re.compile(r"(?<![\w.])" + re.escape(e.env("HOST", "127.0.0.1")) + r"(?![\w.])"),
                "<HOST>")]
    host = socket.gethostname()
    e.info("version %s, host %s; golden files in %s%s" % (version, host, GOLDEN,
                                                          " (--update)" if UPDATE else ""))
    sysbench_runs(version)
    tpcc_runs(version)
    e.info("the golden runs took %.1f s" % (time.monotonic() - t0))
    e.finish()


if __name__ == "__main__":
    main()
