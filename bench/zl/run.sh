#!/bin/sh
# bench/zl/run.sh - build bench_zl against the native build (build/native) and run it on the
# golden inputs, plus zstd's CLI beside cairn's CLI on the largest numeric input.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build/native
DATA=${DATA:-$ROOT/../shared/data}
cc -O2 -I"$ROOT/core/include" "$ROOT/bench/zl/bench_zl.c" "$B/libcairn.a" -lzstd -lz -lpthread -lm -o "$B/bench_zl"
"$B/bench_zl" "$DATA" "${REPEAT:-5}"
IN=$DATA/openzl-v26/inputs/records16.bin
T=$(mktemp -d)
echo "CLI, records16.bin (524288 bytes), wall time of 10 runs:"
for tool in "zstd -q -3 -f $IN -o $T/z3" "zstd -q -19 -f $IN -o $T/z19" "$B/cairn compress -p le-u32 -l 3 $IN -o $T/c3.zl" "$B/cairn compress -p le-u32 $IN -o $T/c.zl"; do
  s=$(date +%s.%N); for i in 1 2 3 4 5 6 7 8 9 10; do $tool; done; e=$(date +%s.%N)
  echo "  $(echo "$e - $s" | bc) s  $tool"
done
ls -l "$T" | awk 'NR>1{print "  " $5, $9}'
rm -rf "$T"
# Wasm size of the codec (and, with SPEED=1, wasm speeds): needs build/em (scripts/build.sh em).
if [ -f "$ROOT/build/em/libcairn_core.a" ]; then "$ROOT/bench/zl/wasm-size.sh"; fi
