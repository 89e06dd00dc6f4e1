#!/usr/bin/env python3
"""e2e: each run says whether it was steady (issue 28 §2).

Three Lua scripts on 2 connections, --report-interval=1, whose events are
server sleeps (so their throughput hardly depends on the box's load):
  - flat: DO SLEEP(0.005) for 8 s: steady (the summary's "Steady state:"
    verdict and the JSON's steady_state agree, steady true);
  - falling: each connection's sleep grows with its events (2 ms + 1 us
    per event so far), 8 s: tps falls by about half: not steady, "tps fell",
    a significant tps trend of -20% or less;
  - warm-up: each connection's first 80 events sleep 25 ms (about 2 s),
    the rest 3 ms, 12 s: 2 or 3 intervals of warm-up are found and named.
The figures themselves are checked against SciPy in the unit test
test_co_steady; this one shows the judgement on real runs.
"""
import re

import e2elib as e

FLAT = """
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("DO SLEEP(0.005)") end
"""
FALLING = """
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  n = n + 1
  con:query(string.format("DO SLEEP(%.6f)", 0.002 + 0.000001 * n))
end
"""
WARMUP = """
function thread_init() con = sysbench.sql.driver():connect() n = 0 end
function event()
  n = n + 1
  if n <= 80 then con:query("DO SLEEP(0.025)") else con:query("DO SLEEP(0.003)") end
end
"""


def one(name, script, seconds):
    path = e.path(name + ".lua")
    with open(path, "w") as f:
        f.write(script)
    j = e.path(name + ".json")
    p = e.run_ok([path, "run", "--threads=2", "--time=%d" % seconds, "--report-interval=1",
                  "--json=" + j] + e.local_opts() + e.db_opts(), name + " run")
    d = e.load_json(j)
    s = d.get("steady_state") or {}
    m = re.search(r"^Steady state:\n    (.*)$", p.text("out"), re.M)
    e.info("%s: %s" % (name, s))
    e.check(m is not None and m.group(1) == s.get("verdict"),
            "%s: the summary's steady-state line is the JSON's verdict: %r"
            % (name, m and m.group(1)))
    return s


def main():
    e.need_sandbox()
    flat = one("flat", FLAT, 8)
    e.check(flat.get("judged") is True and flat.get("steady") is True
            and flat.get("verdict", "").startswith("steady:"),
            "flat: steady (%r)" % flat.get("verdict"))
    falling = one("falling", FALLING, 8)
    t = falling.get("tps_trend") or {}
    e.check(falling.get("steady") is False and "tps fell" in falling.get("verdict", "")
            and t.get("significant") is True and t.get("change_pct", 0) <= -20,
            "falling: not steady, tps fell (%r, trend %r)" % (falling.get("verdict"), t))
    warm = one("warmup", WARMUP, 12)
    e.check(warm.get("warmup_intervals") in (2, 3) and 1.5 <= warm.get("warmup_s", 0) <= 3.5
            and "were warm-up" in warm.get("verdict", ""),
            "warm-up: 2 or 3 intervals (about 2 s) found: %r" % warm.get("verdict"))
    e.finish()


if __name__ == "__main__":
    main()
