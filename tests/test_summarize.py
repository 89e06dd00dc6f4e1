#!/usr/bin/env python3
"""tests/summarize on made-up meson logs: a skip passes by default, fails
with --fail-on-skip (naming the test and its reason) unless allowed by
--allow-skip or $STAMPEDE_ALLOW_SKIP; failures always fail."""
import json
import os
import subprocess
import sys
import tempfile

SUMMARIZE = sys.argv[1]
bad = []


def log(tmp, results):
    d = os.path.join(tmp, "b%d" % len(os.listdir(tmp)))
    os.makedirs(os.path.join(d, "meson-logs"))
    with open(os.path.join(d, "meson-logs", "testlog.json"), "w") as f:
        for name, res, out in results:
            f.write(json.dumps({"name": "stampede:mysql / " + name, "result": res,
                                "stdout": out}) + "\n")
    return d


def run(args, env_allow=None, want_rc=0, want=()):
    env = dict(os.environ)
    env.pop("STAMPEDE_ALLOW_SKIP", None)
    if env_allow is not None:
        env["STAMPEDE_ALLOW_SKIP"] = env_allow
    p = subprocess.run([sys.executable, SUMMARIZE] + args, env=env, capture_output=True,
                       text=True)
    ok = p.returncode == want_rc and all(w in p.stdout for w in want)
    print("%s - summarize %s: exit %d, %r" % ("ok" if ok else "FAIL", " ".join(args),
                                              p.returncode, p.stdout.strip()))
    if not ok:
        bad.append(args)


with tempfile.TemporaryDirectory() as tmp:
    skip = log(tmp, [("engine_counts", "OK", ""),
                     ("engine_restart", "SKIP", "== restart\nSKIP: restart needs a sandbox\n")])
    run([skip], want=("1 passed, 0 failed, 1 skipped",))
    run(["--fail-on-skip", skip], want_rc=1,
        want=("FAILED: stampede:mysql / engine_restart (skipped, not allowed: SKIP: restart "
              "needs a sandbox", "1 passed, 1 failed, 0 skipped"))
    run(["--fail-on-skip", "--allow-skip=engine_restart", skip],
        want=("1 passed, 0 failed, 1 skipped",))
    run(["--fail-on-skip", skip], env_allow="other,engine_restart",
        want=("1 passed, 0 failed, 1 skipped",))
    fail = log(tmp, [("engine_counts", "FAIL", "")])
    run(["--allow-skip=engine_counts", fail], want_rc=1, want=("0 passed, 1 failed",))
    run(["--no-such-flag", skip], want_rc=2)
sys.exit(1 if bad else 0)
