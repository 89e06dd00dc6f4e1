"""What the scripts that drive the sandbox server as root share (tpcc_gen.py,
statement_shapes.py): its settings, ok/FAIL checks and root's SQL over the
socket. Importing it does nothing else (e2elib installs handlers)."""
import os
import subprocess

failures = []  # what failed, in check() order


def env(name, default=None):
    return os.environ.get("STAMPEDE_TEST_MYSQL_" + name, default)


def check(cond, what):
    """Prints "ok - what" or "FAIL - what" (kept in failures); cond."""
    print(("ok - " if cond else "FAIL - ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def sql(query, db=None, stdin=None, timeout=60):
    """Rows (lists of strings) of query (None: stdin alone) in database db,
    as root over the sandbox socket, without the test user's MYSQL_PWD."""
    argv = ["mariadb", "--no-defaults", "-uroot", "-S", env("SOCKET"), "-N", "-B"]
    if db:
        argv.append(db)
    if query is not None:
        argv += ["-e", query]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=stdin,
                         env={k: v for k, v in os.environ.items() if k != "MYSQL_PWD"})
    if out.returncode != 0:
        raise RuntimeError("mariadb: %s: %s" % (query, out.stderr.strip()))
    return [line.split("\t") for line in out.stdout.splitlines()]
