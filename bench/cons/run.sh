#!/usr/bin/env bash
# 2026-12-02 - bench/cons/run.sh - the consolidation cycle, the session tick and the seed's
# consolidation-efficiency experiment (issue 18) on the seed's shapes, beside the seed's figures
# (bench/cons/bench_cons.c says what each figure is). Builds bench_cons against build/native
# (scripts/build.sh native first). ROUNDS=5 by default; SIZES=1 runs the 1K shape only (the 10K
# promotion compares every evicted memory with every other: quadratic, seconds of CPU).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_DIR:-/tmp/cairn-bench-cons}
ROUNDS=${ROUNDS:-5} SIZES=${SIZES:-2}
mkdir -p "$out"
[ -f "$root/build/native/libcairn.a" ] || { echo "build the native tree first (scripts/build.sh native)"; exit 1; }
cc -O2 -Wall -Wextra -I"$root/core/include" "$here/bench_cons.c" "$root/build/native/libcairn.a" -lzstd -lz -lm -lpthread -o "$out/bench_cons"
echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/bench_cons" "$ROUNDS" "$SIZES" | tee "$out/cons.json"
python3 - "$out/cons.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seed = {'n1000': (164, 5760), 'n10000': (17300, 89800)}  # us: consolidation, session tick (i7-12650H)
print(f"{'shape':8} {'evict us':>10} {'seed us':>9} {'x seed':>7} {'+promote us':>12} {'2nd cycle us':>13} {'tick us':>9} {'seed':>7} {'x seed':>7}")
for k, (sc, st) in seed.items():
    if k not in d: continue
    r = d[k]
    print(f"{k:8} {r['evict_us']:10.1f} {sc:9} {sc / r['evict_us']:7.2f} {r['promote_us']:12.1f} {r['second_cycle_us']:13.1f} {r['tick_us']:9.1f} {st:7} {st / r['tick_us']:7.2f}")
e = d['experiment']
print(f"experiment: {e['memories']} memories, {e['signal']} signal, capacity {e['capacity']}: {e['hot_after']} hot after, "
      f"Hit@1/5/10 {e['hit1']:.2f}/{e['hit5']:.2f}/{e['hit10']:.2f} (seed 1.00 each), hot search {e['speedup']:.2f}x faster (seed 8.8x)")
PY
