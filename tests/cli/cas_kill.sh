#!/usr/bin/env bash
# 2026-12-02
# tests/cli/cas_kill.sh TMPDIR - kill -9 of chunk store writers in the middle of concurrent
# writes, several rounds (KILL_ROUNDS, default 5): 3 `cairn put` loops share one store (taking
# turns through its writer lock), all are killed at a random moment; after each round the store
# opens, verify is ok, every payload acknowledged before the kill is there byte for byte, and a
# new put succeeds (the dead writers' lock files are broken, their torn tails cut).
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-cas-kill
ROUNDS=${KILL_ROUNDS:-5}
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
S="$t/s.cas"
: > "$t/acks"

for round in $(seq 1 "$ROUNDS"); do
  pids=()
  for k in 1 2 3; do
    # Each loop in its own process group (setsid), so kill -9 of the group takes its cairn too.
    setsid bash -c '
      CAIRN=$1 S=$2 d=$3 k=$4 n=0
      while :; do
        n=$((n+1)); f=$d/r$5.w$k.$n
        head -c $(( (RANDOM * 37) % 600000 + 1 )) /dev/urandom > "$f"
        id=$("$CAIRN" put --store "$S" --chunk 8192,32768,131072 "$f" 2>/dev/null) && echo "$id $f" >> "$d/ack.$k"
      done' _ "$CAIRN" "$S" "$t" "$k" "$round" &
    pids+=($!)
  done
  sleep "0.$(( RANDOM % 7 + 3 ))"
  for p in "${pids[@]}"; do kill -9 -- -"$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  # The killed cairn processes are reaped by init, maybe a little later: until then their lock
  # files name a live pid (the next writer waits for them, up to its busy timeout).
  t0=$(date +%s%N)
  for i in $(seq 1 200); do pgrep -g "$(IFS=,; echo "${pids[*]}")" > /dev/null || break; sleep 0.05; done
  echo "     round $round: the killed writers were gone after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  cat "$t"/ack.* >> "$t/acks" 2>/dev/null; rm -f "$t"/ack.*
  check "round $round: verify ok after kill -9 ($(wc -l < "$t/acks") acknowledged so far)" '"$CAIRN" verify --store "$S" > /dev/null'
  bad=0
  while read -r id f; do
    "$CAIRN" get --store "$S" "$id" -o "$t/out" -f 2>/dev/null && cmp -s "$t/out" "$f" || { bad=$((bad+1)); echo "     lost: $id $f"; }
  done < "$t/acks"
  check "round $round: every acknowledged payload is there" '[ "$bad" = 0 ]'
  check "round $round: the store takes a new put" 'head -c 1000 /dev/urandom > "$t/after" && "$CAIRN" put --store "$S" "$t/after" > /dev/null 2>"$t/err" || { cat "$t/err"; false; }'
done
check "payloads were acknowledged at all" '[ -s "$t/acks" ]'
rm -rf "$t"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
