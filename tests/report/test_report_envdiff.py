"""Two real runs that differ only in the server's
innodb_flush_log_at_trx_commit (set on the sandbox between them): the
report's environment diff must show exactly that variable, 1 → 2, in the
text and in the page opened by a real headless Chromium. Between the runs
500 rows are also added to sbtest1 (and ANALYZE TABLE run): that drift of
the data set is listed apart ("Data set drift", #data-drift-table), never
among the configuration that differs (issue 28 §1).

    python3 test_report_envdiff.py STAMPEDE STAMPEDE_AGENT ARTIFACT_DIR

Needs the environment capture in the run JSON (environment.server.variables,
issue 12a): without it this exits 77 saying so. Exit 0, 1 or 77."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
import e2elib as t  # noqa: E402
import cdp  # noqa: E402
from test_report_common import report, run  # noqa: E402

ARTIFACTS = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else os.getcwd()
VAR = "innodb_flush_log_at_trx_commit"
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "reference.md")


def check_documented(d):
    """Every key of a real run's environment, of its intervals and of their
    server_status and per_agent entries is named in docs/reference.md (as `key`
    or "key")."""
    doc = open(DOC, encoding="utf-8").read()
    env = d["environment"]
    keys = set(env)
    for part in ("server", "dataset", "coordinator"):
        keys |= set(env[part] or {})
    keys |= set(env["server"]["variables"])
    for tb in env["dataset"]["tables"]:
        keys |= set(tb)
    for ag in env["agents"]:
        keys |= set(ag)
    for iv in d["intervals"]:
        keys |= set(iv)
        keys |= set(iv.get("server_status") or {})
        for a in iv.get("per_agent") or []:
            keys |= set(a or {})
    missing = sorted(k for k in keys if "`%s`" % k not in doc and '"%s"' % k not in doc)
    t.info("%d environment and interval keys checked against docs/reference.md" % len(keys))
    t.check(not missing, "docs/reference.md documents every environment and interval key "
            "(missing: %s)" % missing)


def main():
    t.need_sandbox()
    exe = cdp.find_chromium()
    if exe is None:
        print("SKIP: chromium not installed (deploy/install-deps)")
        sys.exit(t.SKIP)
    t.prepare(tables=2, table_size=2000)
    old = t.sql("SELECT @@GLOBAL.%s" % VAR)[0][0]
    a, b = t.path("flush1.json"), t.path("flush2.json")
    try:
        t.sql("SET GLOBAL %s = 1" % VAR)
        run(a)
        t.sql("SET GLOBAL %s = 2" % VAR)
        db_name = t.env("DB", "sbtest")
        t.sql("INSERT INTO %s.sbtest1 (k, c, pad) SELECT k, c, pad FROM %s.sbtest1 LIMIT 500; "
              "ANALYZE TABLE %s.sbtest1" % (db_name, db_name, db_name))
        run(b)
    finally:
        t.sql("SET GLOBAL %s = %s" % (VAR, old))
    da, db = t.load_json(a), t.load_json(b)
    for name, d in (("flush1", da), ("flush2", db)):
        if not isinstance(d.get("environment", {}).get("server", {}).get("variables"), dict):
            print("SKIP: %s.json has no environment.server.variables: needs environment "
                  "capture (issue 12a)" % name)
            sys.exit(t.SKIP)
    t.check(da["environment"]["server"]["variables"].get(VAR) == "1" and
            db["environment"]["server"]["variables"].get(VAR) == "2",
            "the runs captured %s = %s and %s" % (VAR, da["environment"]["server"]["variables"].get(VAR),
                                                db["environment"]["server"]["variables"].get(VAR)))
    check_documented(db)
    text = report([a, b], "text comparison").stdout
    print(text)
    lines = [l.strip() for l in text.split("differ", 1)[-1].splitlines()[1:] if l.strip()]
    t.check("%s 1 → 2" % VAR in lines, "text diff has '%s 1 → 2'" % VAR)
    config = text.split("differ", 1)[-1].split("Data set drift", 1)[0]
    drift = text.split("Data set drift", 1)[-1] if "Data set drift" in text else ""
    misplaced = [l.strip() for l in config.splitlines()
                 if l.strip().startswith(("dataset ", "table "))]
    t.check(not misplaced, "no data set line among the configuration that differs: %s" % misplaced)
    t.check(any(l.strip().startswith("table sbtest1 rows ") for l in drift.splitlines()),
            "the 500 added rows show under 'Data set drift' as table sbtest1 rows")
    server_vars = set(da["environment"]["server"]["variables"]) | set(db["environment"]["server"]["variables"])
    others = [l for l in lines if l.split(" ")[0] in server_vars and not l.startswith(VAR + " ")]
    t.check(not others, "no other server variable differs: %s" % others)
    html = t.path("flush.html")
    report([a, b, "-o", html], "page of the two runs")
    browser = cdp.Browser(exe)
    try:
        browser.open("file://" + html)
        errs = browser.errors()
        t.check(not errs, "no console error: %s" % errs[:3])
        rows = browser.eval("Array.from(document.querySelectorAll('#env-diff-table tr')).map("
                            "r => Array.from(r.cells).map(c => c.textContent))")
        t.check(["%s" % VAR, "1", "2", "%s 1 → 2" % VAR] in rows,
                "the page's diff has the row %s | 1 | 2: %s" % (VAR, rows[:6]))
        drows = browser.eval("Array.from(document.querySelectorAll('#data-drift-table tr')).map("
                             "r => r.cells[0].textContent)")
        crows = browser.eval("Array.from(document.querySelectorAll('#env-diff-table tr')).map("
                             "r => r.cells[0].textContent)")
        t.check("table sbtest1 rows" in drows and
                not [r for r in crows if r.startswith(("dataset ", "table "))],
                "the page lists the drift in its own table (%s), none in the diff (%s)"
                % (drows[:4], crows[:6]))
        browser.screenshot(os.path.join(ARTIFACTS, "report-envdiff.png"))
    finally:
        browser.close()
    t.finish()


main()
