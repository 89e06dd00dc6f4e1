#!/usr/bin/env python3
"""co_hdrout_java.py DIR JAR: read DIR/run.hlog (a --hdr-log file written by
co_hdrout, through co_hdrout_gen) with Java's HistogramLogProcessor (Debian
libhdrhistogram-java, JAR) and compare what it prints with
DIR/expected.jsonl (pr_hist's own figures, the "java" and "cum" members).

Checked:
  - every header line of the log is at most 100 bytes (HdrHistogram_c
    refuses a header line of 127 or more);
  - `HistogramLogProcessor -i FILE -outputValueUnitRatio 1000` (the
    README's command): exit 0, its footer's Max and Total count, and its
    overall distribution's 50% and 90% rows, equal ours for all untagged
    lines pooled;
  - its interval log (-csv -o): one row per untagged line with the
    interval's end (Timestamp, seconds since StartTime), count, 50%, 90%
    and max, and the running totals' count, 50/90/99/99.9/99.99% and max;
  - the same per interval for one agent's tag (-tag).
"""
import csv
import json
import os
import re
import subprocess
import sys

d, jar = sys.argv[1], sys.argv[2]
log = os.path.join(d, "run.hlog")
expected = [json.loads(l) for l in open(os.path.join(d, "expected.jsonl"))]
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAIL: " + what)
    return ok


def ms(us):
    return "%.3f" % (us / 1000.0)


def processor(*args):
    cmd = ["java", "-cp", jar, "org.HdrHistogram.HistogramLogProcessor", "-i", log,
           "-outputValueUnitRatio", "1000"] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "%s: exit %d, stderr %r" % (" ".join(cmd[3:]), p.returncode,
                                                         p.stderr[:500]))
    return p.stdout


with open(log, encoding="utf-8") as f:
    header = []
    for line in f:
        if not line.startswith("#") and not line.startswith('"'):
            break
        header.append(line.rstrip("\n"))
longest = max(len(l.encode()) for l in header)
check(longest <= 100, "longest header line %d bytes (limit 100, HdrHistogram_c's 127)" % longest)
print("# header: %d lines, longest %d bytes" % (len(header), longest))

merged = [e for e in expected if e["tag"] == ""]
total = merged[-1]["cum"]

# The README's command: the overall distribution and its footer.
out = processor()
rows = {}
for line in out.splitlines():
    f = line.split()
    if len(f) >= 3 and not line.startswith("#"):
        rows.setdefault(f[1], f[0])
foot = re.search(r"^#\[Max\s*=\s*([0-9.]+), Total count\s*=\s*([0-9]+)\]", out, re.M)
check(foot is not None and foot.groups() == (ms(total["max"]), str(total["count"])),
      "footer Max/Total count %r, ours %s / %d" % (foot and foot.groups(), ms(total["max"]),
                                                   total["count"]))
for pct, key in (("0.500000000000", "50"), ("0.900000000000", "90")):
    check(rows.get(pct) == ms(total["p"][key]),
          "overall %s%%: Java %s, ours %s ms" % (key, rows.get(pct), ms(total["p"][key])))


def interval_rows(tag):
    path = os.path.join(d, "java-" + (tag or "merged"))
    processor("-csv", "-o", path, *(["-tag", tag] if tag else []))
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def compare(tag, want):
    rows = interval_rows(tag)
    name = tag or "merged"
    check(len(rows) == len(want), "%s: Java shows %d intervals, the log has %d" %
          (name, len(rows), len(want)))
    for i, (r, e) in enumerate(zip(rows, want)):
        j = e["java"]
        end_s = "%.3f" % ((e["start_ms"] + e["length_ms"] - e["t0_ms"]) / 1000.0)
        got = (r["Timestamp"], r["Int_Count"], r["Int_50%"], r["Int_90%"], r["Int_Max"])
        exp = (end_s, str(j["count"]), ms(j["p"]["50"]), ms(j["p"]["90"]), ms(j["max"]))
        check(got == exp, "%s interval %d: Java (end, count, 50%%, 90%%, max) %r, ours %r" %
              (name, i, got, exp))
        if "cum" in e:
            c = e["cum"]
            got = tuple(r[k] for k in ("Total_Count", "Total_50%", "Total_90%", "Total_99%",
                                       "Total_99.9%", "Total_99.99%", "Total_Max"))
            exp = (str(c["count"]),) + tuple(ms(c["p"][k]) for k in
                                             ("50", "90", "99", "99.9", "99.99")) + (ms(c["max"]),)
            check(got == exp, "%s interval %d totals: Java %r, ours %r" % (name, i, got, exp))
    return rows


rows = compare(None, merged)
if rows:
    print("# Java's last merged row: %r" % dict(rows[-1]))
first_tag = expected[1]["tag"]
compare(first_tag, [e for e in expected if e["tag"] == first_tag])
print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
