#!/bin/sh
# node_interop GEN SRCDIR CHECK: write HdrHistogram logs with GEN
# (hdr_interop_gen or co_hdrout_gen) into a temporary directory and check
# them with hdr-histogram-js (SRCDIR/CHECK: hdr_interop.js or
# co_hdrout_interop.js). Skips (77) only when node or SRCDIR/node_modules
# is missing: `npm ci --prefix tests/interop`.
gen=$1
src=$2
check=$3
if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed"
    exit 77
fi
if [ ! -f "$src/node_modules/hdr-histogram-js/package.json" ]; then
    echo "SKIP: no $src/node_modules (run: npm ci --prefix tests/interop)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp" || exit 1
node "$src/$check" "$tmp"
