#!/usr/bin/env bash
# bench/mem/run.sh - build and run the memory benchmarks, cairn and its peers in one run:
#   bench_mem (C: bandwidth, hand AVX2 loop, flat/int8/f16/IVF/IVF-PQ, adds/s, reopen),
#   cairn eval locomo (native and WASI) for BM25/vector/hybrid quality and latency,
#   the scans again in the two wasm builds (WASI and Emscripten, one thread, simd128) under
#   Node, with their ratio to the native one-thread scans of the same run,
#   peers.mjs (usearch, hnswlib-node, minisearch, flexsearch) on the same data.
# Needs build/native (build/wasi, and build/em with emcc, for the wasm figures); npm peers from
# bench/mem/package.json.
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
echo; "$out/bench_mem" "$out" --near   # near-duplicate checks on write: off / index / exact scan
locomo=$(realpath "$root/../shared/data/locomo/locomo_dev.json")
for mode in bm25 vector hybrid; do
  echo; "$root/build/native/cairn" eval locomo "$locomo" --mode "$mode"
done
# flat f32 1T times (10K, 100K) from a bench_mem output -> "t10 t100"
flat1t() { awk '/cairn flat +1T/ {printf "%s ", $4}' "$1"; }
ratio() { # $1 = label, $2 = wasm output file: wasm time / native time just before it
  read -r n10 n100 <<<"$(flat1t "$out/native.txt")"
  read -r w10 w100 <<<"$(flat1t "$2")"
  awk -v l="$1" -v a="$w10" -v b="$n10" -v c="$w100" -v d="$n100" \
    'BEGIN {printf "  %s f32 flat 1T vs native 1T (measured just before): 10K %.2fx, 100K %.2fx the native time (goal: within 2x)\n", l, a / b, c / d}'
}
# The native scans again right before each wasm run, so that both sides of a ratio are
# measured minutes apart at most (the machine is shared; the load is printed with each).
native_scans() {
  echo; echo "== native scans again (for the ratio below), load $(cut -d" " -f1-3 /proc/loadavg)"
  "$out/bench_mem" "$out" --scans | grep -E "cairn flat +1T" | tee "$out/native.txt"
}
# Both wasm builds start with 1 GiB of memory (the bench holds about 0.5 GB at 100K): Node 20's
# V8 can abort in a GC during repeated WebAssembly.Memory growth ("Invalid bytecode", "unreachable
# code"; see the note in CMakeLists.txt), which killed some runs of this bench. Pages are
# committed lazily and nothing timed grows memory.
wasi="$root/build/wasi"
if [ -f "$wasi/libcairn_core.a" ]; then
  native_scans
  echo; echo "== WASI build under Node $(node --version) (one thread, simd128): scans, load $(cut -d" " -f1-3 /proc/loadavg)"
  clang-14 --target=wasm32-wasi --sysroot="$root/build/wasi-sysroot" -O3 -msimd128 -D_WASI_EMULATED_MMAN \
    -I"$root/core/include" -I"$root/core" -I"$root/native" -I"$root/wasm" "$here/bench_mem.c" "$root/hosts/wasi.c" \
    "$wasi/libcairn_core.a" "$wasi/libcairn_zstd.a" "$wasi/libcairn_zlib.a" -lwasi-emulated-mman \
    -Wl,-z,stack-size=1048576 -Wl,--initial-memory=1073741824 -Wl,--max-memory=4294967296 -o "$out/bench_mem.wasm"
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" --dir "$out" "$out/bench_mem.wasm" "$out" --scans | tail -n +2 | tee "$out/wasi.txt"
  ratio WASI "$out/wasi.txt"
fi
em="$root/build/em"
if [ -f "$em/libcairn_core.a" ] && command -v emcc >/dev/null; then
  # the same library the npm package links (build/em, scripts/build.sh em), as a Node program
  native_scans
  echo; echo "== Emscripten build (the npm package's core) under Node $(node --version) (one thread, simd128): scans, load $(cut -d" " -f1-3 /proc/loadavg)"
  NODE_PATH=${NODE_PATH:-/usr/share/nodejs} emcc -O3 -msimd128 -I"$root/core/include" -I"$root/core" "$here/bench_mem.c" \
    "$em/libcairn_core.a" "$em/libcairn_zstd.a" "$em/libcairn_zlib.a" -sENVIRONMENT=node -sSINGLE_FILE=1 \
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=1073741824 -sMAXIMUM_MEMORY=4GB -sTOTAL_STACK=1048576 -o "$out/bench_mem_em.cjs"
  node "$out/bench_mem_em.cjs" "$out" --scans | tail -n +2 | tee "$out/em.txt"
  ratio Emscripten "$out/em.txt"
fi
if [ -f "$wasi/cairn.wasm" ]; then
  echo; echo "== WASI build, BM25 over LoCoMo:"
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" --dir "$(dirname "$locomo")" "$wasi/cairn.wasm" \
    eval locomo "$locomo" --mode bm25 | head -2
fi
echo
node "$here/peers.mjs" "$out" "$locomo"
