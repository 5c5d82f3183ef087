#!/usr/bin/env bash
# 2026-12-02 - bench/durable_ab.sh REV_A REV_B [ROUNDS]: the durable write paths of two revisions
# side by side (issue 16's "locks must not slow the hot paths": a small durable chunk-store put
# and a durable memory commit, goal within 5%). Builds each revision's libcairn.a and its own
# bench_cas / bench_mem (bench/ab_lib.sh), then, for each side:
#   - system calls per operation (strace -c): the fsyncs and writes that bound a durable
#     operation's time, and the lock calls the change added;
#   - instructions per operation (valgrind callgrind), which the load of a shared machine cannot
#     move;
#   - wall-clock rates, A B A B ... ROUNDS times (default 4), medians: only meaningful on a quiet
#     machine (the load average is printed beside them).
# Time per durable operation ~ its syncs (same count on both sides => same time) + its CPU
# (instructions): the first two rows decide on a loaded machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ab_lib.sh"
A=$1 B=$2 rounds=${3:-4}
tmpd=$(mktemp -d /tmp/cairn-durable-ab.XXXXXX)
trap 'rm -rf "$tmpd"' EXIT
# bench_cas from B's sources on both sides (its small_durable_put row is newer than some
# revisions; it uses only the public API); bench_mem each revision's own (it reads internals).
for rev in "$A" "$B"; do
  d=$(abLib "$rev")
  cc -O2 -o "$abOut/bench_cas.$rev" "$abRoot/bench/cas/bench_cas.c" -I"$abRoot/bench/cas" -I"$d/core/include" "$d/build/libcairn.a" -lzstd -lz -lpthread -lm
  cc -O2 -o "$abOut/bench_mem.$rev" "$d/bench/mem/bench_mem.c" -I"$d/core/include" -I"$d/core" "$d/build/libcairn.a" -lzstd -lz -lpthread -lm
done
echo "== $(date -u '+%F %H:%M') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); A=$A B=$B"
NCAS=500 # bench_cas small_durable_put: 5 rounds of 100 puts
NMEM=200 # bench_mem --adds: 20,000 adds committed every 100, in each of its two fsync runs
sys() { # rev what -> "fsync/op write/op lock/op total/op"
  local rev=$1 what=$2 n
  if [ "$what" = cas ]; then n=$NCAS; strace -f -c -o "$tmpd/st" "$abOut/bench_cas.$rev" small_durable_put "$tmpd" >/dev/null
  else n=$NMEM; strace -f -c -o "$tmpd/st" "$abOut/bench_mem.$rev" "$tmpd/m.$rev" --adds >/dev/null; fi
  awk -v n=$n '$NF ~ /^(fsync|fdatasync)$/ {s += $4} $NF ~ /^(write|pwrite64|writev|pwritev)$/ {w += $4}
               $NF ~ /^(fcntl|flock|link|unlink|openat)$/ {l += $4} $NF == "total" {t = $4}
               END {printf "%.2f %.2f %.2f %.1f", s / n, w / n, l / n, t / n}' "$tmpd/st"
}
icount() { # rev what -> instructions per operation in the durable call
  local rev=$1 what=$2
  if [ "$what" = cas ]; then
    valgrind --tool=callgrind --callgrind-out-file="$tmpd/cg" --toggle-collect=cairn_cas_put "$abOut/bench_cas.$rev" small_durable_put "$tmpd" >/dev/null 2>&1
    n=$NCAS
  else
    valgrind --tool=callgrind --callgrind-out-file="$tmpd/cg" --toggle-collect=cairn_mem_commit "$abOut/bench_mem.$rev" "$tmpd/m.$rev" --adds >/dev/null 2>&1
    n=$((NMEM * 3)) # the commits of all three runs (fsync, log-only fsync, no fsync)
  fi
  awk -v n=$n '/^summary:/ {printf "%.0f", $2 / n}' "$tmpd/cg"
}
for what in cas mem; do
  for rev in "$A" "$B"; do
    read -r s w l t <<<"$(sys "$rev" $what)"
    printf 'syscalls  %-3s %s: fsync %s/op, writes %s/op, lock+lockfile calls %s/op, all %s/op\n' $what "$rev" "$s" "$w" "$l" "$t"
  done
  a=$(icount "$A" $what) b=$(icount "$B" $what)
  awk -v w=$what -v A="$A" -v B="$B" -v a=$a -v b=$b 'BEGIN {printf "icount    %-3s %s %d instr/op   %s %d instr/op   B/A %.4f\n", w, A, a, B, b, b / a}'
done
for r in $(seq "$rounds"); do
  for rev in "$A" "$B"; do
    c=$("$abOut/bench_cas.$rev" small_durable_put "$tmpd" | awk '{print $2}')
    m=$("$abOut/bench_mem.$rev" "$tmpd/m.$rev" --adds | awk '/log only/ {getline; print $(NF-1)}')
    echo "wall round $r $rev: cas durable put $c puts/s, mem durable commit (log only) $m adds/s  (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done | tee "$tmpd/wall"
for rev in "$A" "$B"; do # medians (mawk has no asort: sort -n)
  c=$(awk -v rev="$rev" '$4 == rev":" {print $8}' "$tmpd/wall" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  m=$(awk -v rev="$rev" '$4 == rev":" {print $15}' "$tmpd/wall" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  echo "wall median $rev: cas $c puts/s, mem $m adds/s"
done
