#!/bin/sh
# co_hdrout_interop GEN SRCDIR: write a --hdr-log file with GEN
# (co_hdrout_gen) and check it with hdr-histogram-js
# (SRCDIR/co_hdrout_interop.js). Skips (77) only when node or
# SRCDIR/node_modules is missing: `npm ci --prefix tests/interop`.
gen=$1
src=$2
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
node "$src/co_hdrout_interop.js" "$tmp"
