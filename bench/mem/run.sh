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
echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d" " -f1-3 /proc/loadavg)"
"$out/bench_mem" "$out"
locomo=$(realpath "$root/../shared/data/locomo/locomo_dev.json")
for mode in bm25 vector hybrid; do
  echo; "$root/build/native/cairn" eval locomo "$locomo" --mode "$mode"
done
wasi="$root/build/wasi"
if [ -f "$wasi/libcairn_core.a" ]; then
  echo; echo "== WASI build under Node $(node --version) (one thread, simd128): scans"
  clang-14 --target=wasm32-wasi --sysroot="$root/build/wasi-sysroot" -O3 -msimd128 -D_WASI_EMULATED_MMAN \
    -I"$root/core/include" -I"$root/core" -I"$root/native" -I"$root/wasm" "$here/bench_mem.c" "$root/wasm/host_wasi.c" \
    "$wasi/libcairn_core.a" "$wasi/libcairn_zstd.a" "$wasi/libcairn_zlib.a" -lwasi-emulated-mman \
    -Wl,-z,stack-size=1048576 -o "$out/bench_mem.wasm"
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" --dir "$out" "$out/bench_mem.wasm" "$out" --scans | tail -n +2
fi
if [ -f "$wasi/cairn.wasm" ]; then
  echo; echo "== WASI build, BM25 over LoCoMo:"
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" --dir "$(dirname "$locomo")" "$wasi/cairn.wasm" \
    eval locomo "$locomo" --mode bm25 | head -2
fi
echo
node "$here/peers.mjs" "$out" "$locomo"
