#!/usr/bin/env bash
# bench/h5/icount.sh - instructions per operation (valgrind callgrind) for libhdf5 and cairn on
# the small/attrs/many cases: a measure the load of a shared machine does not move. Each count
# is (N=30 run - N=10 run) / 20, so process start-up and library init cancel out. Syscalls
# count as one instruction each here: the wall-clock bench (run.sh) is the real-time figure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/bench-h5}
[ -x "$out/bench_h5" ] || bash "$here/run.sh" "$out" >/dev/null
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/bench_h5" "$out" --loop "$1" "$2" "$3" 2>&1 | awk '/refs/ {gsub(",", "", $NF); print $NF}'; }
for c in small attrs many; do
  h=$(( ($(count $c h5 30) - $(count $c h5 10)) / 20 ))
  k=$(( ($(count $c cairn 30) - $(count $c cairn 10)) / 20 ))
  awk -v c=$c -v h=$h -v k=$k 'BEGIN { printf "%-6s libhdf5 %9d instr/op   cairn %8d instr/op   ratio %6.1f\n", c, h, k, h / k }'
done
