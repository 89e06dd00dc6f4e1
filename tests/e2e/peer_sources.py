"""The peer tools' source tarballs (tpcc-mysql, sysbench-tpcc) that tests
and benches build, found in the directory $STAMPEDE_PEER_SOURCES names
(tests/run sets it). Importing it does nothing else, so the benches in
tests/bench take it too (e2elib installs handlers)."""
import os
import sys

SKIP = 77


def peer_source(name, fail=None):
    """The peer tarball NAME (e.g. sysbench-tpcc-585e2b8.tar.gz) in the
    directory $STAMPEDE_PEER_SOURCES names. When the variable is unset or
    the file is not there: fail(why) when fail is given, else exits 77 with
    a SKIP line."""
    d = os.environ.get("STAMPEDE_PEER_SOURCES", "")
    p = os.path.join(d, name) if d else None
    if p is None or not os.path.isfile(p):
        why = "no %s%s: set STAMPEDE_PEER_SOURCES to the directory holding %s" % (
            name, " in " + d if d else " (STAMPEDE_PEER_SOURCES is unset)", name)
        if fail is not None:
            fail(why)
        print("SKIP: " + why)
        sys.exit(SKIP)
    return p


def bench_fail(why):
    """fail for the benches: they exit with an error, not a skip."""
    raise SystemExit("bench: " + why)
