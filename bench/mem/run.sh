#!/usr/bin/env bash
# bench/mem/run.sh - build and run the memory benchmarks, cairn and its peers in one run:
#   bench_mem (C: bandwidth, hand AVX2 loop, flat/int8/f16/IVF/IVF-PQ, adds/s, reopen),
#   cairn eval locomo (native and WASI) for BM25/vector/hybrid quality and latency,
#   peers.mjs (usearch, hnswlib-node, minisearch, flexsearch) on the same data.
# Needs build/native (and build/wasi for the wasm figures); npm peers from bench/mem/package.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_DIR:-/tmp/cairn-bench-mem}
mkdir -p "$out"
lib="$root/build/native/libcairn.a"
[ -f "$lib" ] || { echo "build the native tree first (build/native)"; exit 1; }
cc -O2 -I"$root/core/include" -I"$root/core" "$here/bench_mem.c" "$lib" -lzstd -lz -lm -lpthread -o "$out/bench_mem"
[ -d "$here/node_modules/usearch" ] || (cd "$here" && npm install --no-audit --no-fund --loglevel=error)
echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$out/bench_mem" "$out"
locomo="$root/../shared/data/locomo/locomo_dev.json"
for mode in bm25 vector hybrid; do
  echo; "$root/build/native/cairn" eval locomo "$locomo" --mode "$mode"
done
if [ -f "$root/build/wasi/cairn.wasm" ]; then
  echo; echo "== WASI build (Node $(node --version)), BM25:"
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" --dir "$(dirname "$locomo")" "$root/build/wasi/cairn.wasm" \
    eval locomo "$locomo" --mode bm25 | head -3
fi
echo
node "$here/peers.mjs" "$out" "$locomo"
