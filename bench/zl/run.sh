#!/bin/sh
# bench/zl/run.sh - build bench_zl against the native build (build/native) and run it on the
# golden inputs, plus zstd's CLI beside cairn's CLI on the largest numeric input.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build/native
DATA=${DATA:-$ROOT/../shared/data}
cc -O2 -I"$ROOT/core/include" "$ROOT/bench/zl/bench_zl.c" "$B/libcairn.a" -lzstd -lz -lpthread -lm -o "$B/bench_zl"
cc -O2 -o "$B/proc_cmp" "$ROOT/bench/zl/proc_cmp.c"
"$B/bench_zl" "$DATA" "${REPEAT:-5}"
IN=$DATA/openzl-v26/inputs/records16.bin
T=$(mktemp -d)
echo "CLI, records16.bin (524288 bytes), wall time of 10 runs:"
for tool in "zstd -q -3 -f $IN -o $T/z3" "zstd -q -19 -f $IN -o $T/z19" "$B/cairn compress -f -p le-u32 -l 3 $IN -o $T/c3.zl" "$B/cairn compress -f -p le-u32 $IN -o $T/c.zl"; do
  s=$(date +%s.%N); for i in 1 2 3 4 5 6 7 8 9 10; do $tool; done; e=$(date +%s.%N)
  echo "  $(echo "$e - $s" | bc) s  $tool"
done
ls -l "$T" | awk 'NR>1{print "  " $5, $9}'
# Whole-process decompression of 20 MiB of numeric data (issue 23): `cairn decompress` of cairn's
# le-u32 frames (level 3 and the default 19) against `zstd -d` of zstd -3's frame of the same
# data; wall, CPU and minor faults of each process (bench/zl/proc_cmp.c, median of 9, commands
# alternating). To a file (cairn writes a temporary, syncs it and renames it; zstd does not
# sync) and to standard output.
"$B/bench_zl" --walk 20971520 "$T/w20.bin"
"$B/cairn" compress -p le-u32 -l 3 "$T/w20.bin" -o "$T/w20-3.zl"
"$B/cairn" compress -p le-u32 "$T/w20.bin" -o "$T/w20.zl"
zstd -q -3 -f "$T/w20.bin" -o "$T/w20.zst"
echo "CLI, 20 MiB le-u32 random walk, whole process: cairn frames $(stat -c %s "$T/w20-3.zl") (level 3), $(stat -c %s "$T/w20.zl") (19); zstd -3 $(stat -c %s "$T/w20.zst") bytes"
"$B/proc_cmp" 9 "$B/cairn decompress -f $T/w20-3.zl -o $T/o1" "$B/cairn decompress -f $T/w20.zl -o $T/o2" "$B/cairn decompress $T/w20-3.zl -o - >$T/o3" "zstd -q -d -f $T/w20.zst -o $T/o4"
cmp "$T/o1" "$T/w20.bin" && cmp "$T/o2" "$T/w20.bin" && cmp "$T/o3" "$T/w20.bin" && cmp "$T/o4" "$T/w20.bin"
rm -rf "$T"
# Wasm size of the codec (and, with SPEED=1, wasm speeds): needs build/em (scripts/build.sh em).
if [ -f "$ROOT/build/em/libcairn_core.a" ]; then "$ROOT/bench/zl/wasm-size.sh"; fi
