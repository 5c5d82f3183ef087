#!/usr/bin/env bash
# 2026-12-02
# tests/cli/cas_stress.sh TMPDIR - many processes on one chunk store through the native CLI:
# 4 writers (`cairn put` loops, which take turns through the store's writer lock and
# --busy-timeout) and 4 readers (`cairn ls`, `cairn get` of listed payloads, `cairn verify`) for
# STRESS_SECONDS (default 10; 60 for the full run). Every put must succeed (writers wait, never
# fail), every reader command must succeed (a reader never sees a torn state: every payload it
# lists reads back verified), and at the end every acknowledged payload is there, byte for byte.
set -u
CAIRN=${CAIRN:?set CAIRN to the cairn binary}
t=${1:?tmp dir}/cli-cas-stress
SECS=${STRESS_SECONDS:-10}
rm -rf "$t" && mkdir -p "$t"
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
ko() { fail=$((fail+1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
S="$t/s.cas"
head -c 400000 /dev/urandom > "$t/shared.bin" # a prefix some payloads share (dedup across writers)
"$CAIRN" put --store "$S" --chunk 4096,16384,65536 "$t/shared.bin" > /dev/null || { echo "FAIL setup"; exit 1; }
end=$(( $(date +%s) + SECS ))

writer() { # k: put files until the end; "ID FILE" in ack.k after each put that succeeded
  local k=$1 n=0 f id
  while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n+1)); f="$t/w$k.$n"
    if [ $((n % 3)) = 0 ]; then head -c $(( (RANDOM % 50000) + 1 )) "$t/shared.bin" > "$f"; fi
    head -c $(( RANDOM * 4 % 120000 )) /dev/urandom >> "$f"
    if id=$("$CAIRN" put --store "$S" --name "w$k/$n" "$f" 2>>"$t/err.w$k"); then echo "$id $f" >> "$t/ack.$k"
    else echo "put $n failed" >> "$t/bad.w$k"; fi
  done
}
reader() { # k: list, read listed payloads back (verified by get), verify the whole store
  local k=$1 n=0 id
  while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n+1))
    if ! "$CAIRN" ls --store "$S" > "$t/ls.$k" 2>>"$t/err.r$k"; then echo "ls $n failed" >> "$t/bad.r$k"; continue; fi
    for id in $(awk '{print $1}' "$t/ls.$k" | shuf -n 4 --random-source=<(yes $n)); do
      "$CAIRN" get --store "$S" "$id" -o /dev/null 2>>"$t/err.r$k" || echo "get $id failed" >> "$t/bad.r$k"
    done
    if [ $((n % 4)) = 0 ]; then
      "$CAIRN" verify --store "$S" > /dev/null 2>>"$t/err.r$k" || echo "verify $n failed" >> "$t/bad.r$k"
    fi
  done
}
pids=()
for k in 1 2 3 4; do writer $k & pids+=($!); done
for k in 1 2 3 4; do reader $k & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done

nAck=$(cat "$t"/ack.* 2>/dev/null | wc -l)
echo "     $SECS s: $nAck payloads acknowledged, store $(stat -c %s "$S") bytes"
for k in 1 2 3 4; do
  check "writer $k published and never failed" '[ -s "$t/ack.$k" ] && [ ! -e "$t/bad.w$k" ] || { cat "$t/err.w$k" | tail -3; false; }'
  check "reader $k never failed" '[ ! -e "$t/bad.r$k" ] || { head -3 "$t/bad.r$k"; tail -3 "$t/err.r$k"; false; }'
done
check "verify ok at the end" '"$CAIRN" verify --store "$S" > /dev/null'
bad=0
while read -r id f; do
  "$CAIRN" get --store "$S" "$id" -o "$t/out" -f 2>/dev/null && cmp -s "$t/out" "$f" || { bad=$((bad+1)); echo "     lost: $id $f"; }
done < <(cat "$t"/ack.*)
check "every acknowledged payload is there, byte for byte ($nAck)" '[ "$bad" = 0 ]'
check "every payload is listed" '[ "$("$CAIRN" ls --store "$S" 2>/dev/null | wc -l)" -ge "$(cat "$t"/ack.* | cut -d" " -f1 | sort -u | wc -l)" ]'
rm -rf "$t"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
