#!/bin/sh
# co_hdrout_java GEN SRCDIR: write a --hdr-log file with GEN (co_hdrout_gen),
# with a workload name long enough to need several header lines, and check
# it with Java's HistogramLogProcessor (SRCDIR/co_hdrout_java.py). Skips
# (77) only when java or the jar (Debian libhdrhistogram-java, installed by
# deploy/install-deps) is missing.
gen=$1
src=$2
jar=/usr/share/java/hdrhistogram.jar
if ! command -v java >/dev/null 2>&1; then
    echo "SKIP: java is not installed (deploy/install-deps: default-jre-headless)"
    exit 77
fi
if [ ! -f "$jar" ]; then
    echo "SKIP: no $jar (deploy/install-deps: libhdrhistogram-java)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
long=/home/bench/scripts/a/rather/deep/tree/of/directories/holding/custom/workloads/for/this/site
"$gen" "$tmp" "$long/oltp_read_write_with_a_long_descriptive_name.lua" || exit 1
python3 "$src/co_hdrout_java.py" "$tmp" "$jar"
