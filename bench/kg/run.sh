#!/usr/bin/env bash
# 2026-12-02
# bench/kg/run.sh - build and run bench_kg (cairn's graph on the seed's shapes, BFS/path at 1K,
# 100K, 1M edges) and the SQLite recursive-CTE peer on the same edges; prints the ratios; then
# bench_open (open time of a graph of KG_OPEN_N entities, 10x as many facts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_DIR:-/tmp/cairn-bench-kg}
mkdir -p "$out"
lib="$root/build/native/libcairn.a"
[ -f "$lib" ] || { echo "build the native tree first (build/native)"; exit 1; }
cc -O2 -I"$root/core/include" "$here/bench_kg.c" "$lib" -lzstd -lz -lm -lpthread -o "$out/bench_kg"
cc -O2 -I"$root/core/include" "$here/bench_open.c" "$lib" -lzstd -lz -lm -lpthread -o "$out/bench_open"
echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d" " -f1-3 /proc/loadavg)"
"$out/bench_kg" "$out" | tee "$out/cairn.txt"
python3 "$here/sqlite_peer.py" "$out" | tee "$out/sqlite.txt"
"$out/bench_open" "$out" "${KG_OPEN_N:-100000}"   # open time of a large graph (no peer: the seed has none)
echo "-- SQLite / cairn (higher: cairn faster)"
for k in 1000 100000 1000000; do
  for q in bfs3 path; do
    c=$(awk -v k="${q}_${k}" '$1 ~ "^"k"_" {print $2}' "$out/cairn.txt")
    s=$(awk -v k="sqlite_${q}_${k}_" '$1 ~ "^"k {print $2}' "$out/sqlite.txt")
    awk -v q="$q" -v k="$k" -v c="$c" -v s="$s" 'BEGIN {printf "%-5s %8s edges  cairn %10.2f us  sqlite %12.1f us  ratio %8.1fx\n", q, k, c, s, s / c}'
  done
done
