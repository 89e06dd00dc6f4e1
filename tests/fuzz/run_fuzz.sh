#!/bin/sh
# run_fuzz.sh FUZZER GEN_SEEDS KIND SECONDS ARTIFACT_DIR [DICT]
#
# One bounded libFuzzer run, as the `fuzz` suite does it: fresh seeds from
# gen_seeds (and tests/fuzz/seeds/KIND) into a temporary directory, new corpus units written beside
# them (never into the source tree), findings saved in ARTIFACT_DIR. Fails
# on any finding (crash, leak, UB, timeout, out of memory). libFuzzer's
# default error exit code is 77, which meson would read as "skipped", so it
# is set to 1 explicitly.
set -u
fuzzer=$1 gen=$2 kind=$3 secs=$4 art=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stampede-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/seeds" "$tmp/corpus" "$art" || exit 1
# Seeds: the real encoders' (gen_seeds: msg, hist, hdrlog, plan), and the files
# kept in tests/fuzz/seeds/KIND (text inputs: options, agent configs, HTTP
# requests, real run files), findings' inputs among them (regression cases).
case $kind in
msg|hist|hdrlog|plan)
    "$gen" "$kind" "$tmp/seeds" || { echo "run_fuzz: seed generation failed"; exit 1; } ;;
esac
seeds=$(dirname "$0")/seeds/$kind
if [ -d "$seeds" ]; then cp "$seeds"/* "$tmp/seeds/" || exit 1; fi

if [ -n "${6:-}" ]; then set -- "-dict=$6"; else set --; fi
"$fuzzer" "$@" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$art/" "$tmp/corpus" "$tmp/seeds"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "run_fuzz: $(basename "$fuzzer") exited $rc; reproducer in $art/"
    exit 1
fi
exit 0
