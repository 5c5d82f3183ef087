#!/usr/bin/env bash
# bench/ab.sh REV_A REV_B [ROUNDS] - the h5, zl and mem benches of two revisions side by side:
# builds libcairn.a of each revision (git worktree under build/ab/, Release), compiles that
# revision's own bench sources against it, then runs them alternating
# A, B, A, B... ROUNDS times (default 3), so load drifts hit both sides alike. Prints every run;
# ICOUNT=1 adds instructions per HDF5 operation of each side (valgrind callgrind, as
# bench/h5/icount.sh counts them): a figure the load of a shared machine cannot move.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
A=$1 B=$2 rounds=${3:-3}
. "$here/ab_lib.sh"
out=$abOut
data=$(realpath "$root/../shared/data")
lib() { abLib "$@"; }
for rev in "$A" "$B"; do
  d=$(lib "$rev")
  cc -O2 -o "$out/bench_h5.$rev" "$d/bench/h5/bench_h5.c" -I"$d/core/include" "$d/build/libcairn.a" \
     $(pkg-config --cflags --libs hdf5) -lzstd -lz -lpthread -lm
  cc -O2 -o "$out/bench_zl.$rev" "$d/bench/zl/bench_zl.c" -I"$d/core/include" "$d/build/libcairn.a" -lzstd -lz -lpthread -lm
  cc -O2 -o "$out/bench_mem.$rev" "$d/bench/mem/bench_mem.c" -I"$d/core/include" -I"$d/core" "$d/build/libcairn.a" \
     -lzstd -lz -lpthread -lm
done
[ -f "$out/h5data/many.h5" ] || { mkdir -p "$out/h5data"; /usr/bin/python3 "$root/bench/h5/mkdata.py" "$out/h5data" >/dev/null; }
echo "== $(date -u '+%F %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); A=$A B=$B"
for r in $(seq "$rounds"); do
  for rev in "$A" "$B"; do
    echo "--- round $r, $rev: bench_h5"; "$out/bench_h5.$rev" "$out/h5data"
    echo "--- round $r, $rev: bench_zl"; "$out/bench_zl.$rev" "$data" 3
    echo "--- round $r, $rev: bench_mem --adds"; mkdir -p "$out/mem.$rev"; "$out/bench_mem.$rev" "$out/mem.$rev" --adds
  done
done
if [ "${ICOUNT:-0}" = 1 ]; then
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/bench_h5.$1" "$out/h5data" --loop "$2" cairn "$3" 2>&1 | awk '/refs/ {gsub(",", "", $NF); print $NF}'; }
  for c in small attrs many; do
    a=$(( ($(count "$A" $c 30) - $(count "$A" $c 10)) / 20 ))
    b=$(( ($(count "$B" $c 30) - $(count "$B" $c 10)) / 20 ))
    awk -v c=$c -v a=$a -v b=$b -v A="$A" -v B="$B" 'BEGIN { printf "icount %-6s %s %8d instr/op   %s %8d instr/op   B/A %.4f\n", c, A, a, B, b, b / a }'
  done
fi
