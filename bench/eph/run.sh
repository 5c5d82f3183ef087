#!/usr/bin/env bash
# 2026-12-02 - bench/eph/run.sh - the ephemeral tier and the decision gate (issue 18) beside the
# seed's figures and a real Redis server, on the same shapes:
#   cairn:  `cairn eph bench --json` (native; and cairn.wasm under Node's WASI when built)
#   Redis:  bench/eph/bench_redis.c through hiredis, against a redis-server this script starts on
#           a loopback port (no persistence) and stops by its pid when it ends, one round trip per
#           command and pipelined (1000 commands a batch)
# and prints one table: each figure, the seed's, cairn's speedup over the seed (goal: 5x), Redis's
# figures and Redis / cairn. Needs build/native (scripts/build.sh native), redis-server and
# libhiredis-dev (scripts/setup.sh). N=10000 DIM=384 ROUNDS=5 by default (environment).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${BENCH_DIR:-/tmp/cairn-bench-eph}
N=${N:-10000} DIM=${DIM:-384} ROUNDS=${ROUNDS:-5}
mkdir -p "$out"
[ -x "$root/build/native/cairn" ] || { echo "build the native tree first (scripts/build.sh native)"; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server is missing (scripts/setup.sh installs it)"; exit 1; }
cc -O2 -Wall -Wextra "$here/bench_redis.c" -lhiredis -lm -o "$out/bench_redis"

port=$((20000 + RANDOM % 20000))
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$out/redis.pid" --logfile "$out/redis.log" --dir "$out"
stop() { # by its pid, then wait (up to 5 s) until it has exited
  [ -f "$out/redis.pid" ] || return 0
  local pid; pid=$(cat "$out/redis.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  rm -f "$out/redis.pid"
}
trap stop EXIT
for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done

echo "== $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(redis-server --version | cut -d' ' -f1-3)"
"$root/build/native/cairn" eph bench --n "$N" --dim "$DIM" --rounds "$ROUNDS" --json > "$out/cairn.json"
"$out/bench_redis" 127.0.0.1 "$port" "$N" "$DIM" "$ROUNDS" > "$out/redis.json"
wasi=""
if [ -f "$root/build/wasi/cairn.wasm" ]; then
  NODE_NO_WARNINGS=1 node "$root/scripts/wasi-run.mjs" "$root/build/wasi/cairn.wasm" eph bench --n "$N" --dim "$DIM" \
    --rounds "$ROUNDS" --json > "$out/wasi.json"
  wasi="$out/wasi.json"
fi
node "$here/table.mjs" "$out/cairn.json" "$out/redis.json" $wasi
